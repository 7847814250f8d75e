"""aqmlab: a fast, reproducible packet-level laboratory for active queue management.

The package in layers, each importing only those below it (docs/python.md): the engine binding
``aqmlab._core``; ``scenario`` (load and validate) and ``api`` (run, result tables); ``sweep``,
``calibrate`` and their runners; the studies and ``reproduce``; the command line ``aqmlab.cli``."""

from aqmlab._core import __version__
from aqmlab.scenario import ScenarioError, load_scenario, validate

__all__ = [
    "RunResult",
    "ScenarioError",
    "__version__",
    "load_run",
    "load_scenario",
    "load_sweep",
    "run",
    "validate",
]

#: Loaded on first use: they bring pandas and pyarrow, which `import aqmlab` alone does not need.
_FROM_API = ("RunResult", "load_run", "run")


def __getattr__(name: str) -> object:
    if name in _FROM_API:
        from aqmlab import api

        return getattr(api, name)
    if name == "load_sweep":
        from aqmlab.sweep import load_sweep

        return load_sweep
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
