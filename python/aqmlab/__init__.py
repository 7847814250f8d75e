"""aqmlab: a fast, reproducible packet-level laboratory for active queue management."""

from aqmlab._core import __version__
from aqmlab.api import RunResult, ScenarioError, load_scenario, run, validate

__all__ = ["RunResult", "ScenarioError", "__version__", "load_scenario", "run", "validate"]
