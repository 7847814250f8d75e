"""aqmlab: a fast, reproducible packet-level laboratory for active queue management."""

from aqmlab._core import __version__
from aqmlab.api import RunResult, load_scenario, run

__all__ = ["RunResult", "__version__", "load_scenario", "run"]
