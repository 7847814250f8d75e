"""What the executors share: the work of one task, the same in a local worker process and on a Dask worker
(:func:`simulate`: run the simulation and return its run folder as bytes, so that only the process that
started the runs writes into ``OUT``), how a failed task is described, and the result callback."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab import __version__, _core, api

#: Called in the process that started the tasks, for every task: (task, payload, None) or
#: (task, None, error message).
OnResult = Callable[[dict, dict | None, str | None], object]


class RunnerError(api.ScenarioError):
    """Tasks that cannot be handed out: Dask not installed, or its scheduler out of reach."""


def simulate(task: Mapping[str, Any]) -> dict:
    """Runs one task and returns ``{"hash", "files": {name: bytes}, "wall_s"}``: the run folder exactly as
    :meth:`aqmlab.RunResult.write` writes it (written to a local temporary folder and read back), plus
    ``responses.parquet`` when the run has response-time classes and the API did not write that table."""
    if task["version"] != __version__:
        raise RuntimeError(f"this worker has aqmlab {__version__}, the sweep expects {task['version']}")
    t0 = time.perf_counter()
    try:
        raw_json = _core.run(task["text"], task["file"], list(task["overrides"]), task["seed"], None)
    except ValueError as e:
        raise api.ScenarioError(str(e)) from None
    wall = time.perf_counter() - t0
    raw = json.loads(raw_json)
    result = api.RunResult.from_raw(
        raw,
        text=task["text"],
        file=task["file"],
        overrides=list(task["overrides"]),
        seed=task["seed"],
        wall_s=wall,
    )
    with tempfile.TemporaryDirectory(prefix="aqmlab-run-") as d:
        folder = result.write(Path(d) / task["hash"])
        files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
    if "responses.parquet" not in files and raw.get("responses"):
        files["responses.parquet"] = api.parquet_bytes(pd.DataFrame.from_records(raw["responses"]))
    return {"hash": task["hash"], "files": files, "wall_s": wall}


def describe(e: BaseException) -> str:
    """A task's failure as one line: a scenario error as the engine wrote it, anything else with its type."""
    if isinstance(e, api.ScenarioError):
        return str(e)
    return f"{type(e).__name__}: {e}"
