"""What the executors share: the work of one task, the same in a local worker process and on a Dask worker
(:func:`simulate`: run the simulation, streaming its growing tables into its run folder under a
temporary name, which only the process that started the runs renames into place), how a failed task is
described, and the result callback."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aqmlab import __version__, api

#: Called in the process that started the tasks, for every task: (task, payload, None) or
#: (task, None, error message).
OnResult = Callable[[dict, dict | None, str | None], object]


class RunnerError(api.ScenarioError):
    """Tasks that cannot be handed out: Dask not installed, or its scheduler out of reach."""


def simulate(task: Mapping[str, Any]) -> dict:
    """Runs one task as :func:`aqmlab.api.run` runs a scenario with an output folder, its growing tables
    streamed to their files, and returns ``{"hash", "wall_s"}`` with where the run folder is: written
    under a temporary name in ``task["runs_dir"]`` (``"staged"``: the process that owns the sweep
    folder renames it), or, on a Dask worker that does not see that folder (no shared file system),
    as the files' bytes (``"files"``), written to a local temporary folder and read back."""
    if task["version"] != __version__:
        raise RuntimeError(f"this worker has aqmlab {__version__}, the sweep expects {task['version']}")
    runs_dir = Path(task["runs_dir"])
    if runs_dir.is_dir():
        result = _run(task, runs_dir)
        return {"hash": task["hash"], "staged": str(result.folder), "wall_s": result.summary["wall_s"]}
    with tempfile.TemporaryDirectory(prefix="aqmlab-run-") as d:
        result = _run(task, Path(d))
        assert result.folder is not None, "run with an output folder"
        files = {p.name: p.read_bytes() for p in sorted(result.folder.iterdir()) if p.is_file()}
    return {"hash": task["hash"], "files": files, "wall_s": result.summary["wall_s"]}


def _run(task: Mapping[str, Any], runs_dir: Path) -> api.RunResult:
    """The task's run folder, written into ``runs_dir`` under a temporary name."""
    return api.run_text(
        task["text"],
        task["file"],
        seed=task["seed"],
        set=list(task["overrides"]),
        out=runs_dir / task["hash"],
        commit=False,
    )


def describe(e: BaseException) -> str:
    """A task's failure as one line: a scenario error as the engine wrote it, anything else with its type."""
    if isinstance(e, api.ScenarioError):
        return str(e)
    return f"{type(e).__name__}: {e}"
