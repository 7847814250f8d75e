"""Running simulation tasks, the layer between the API and sweeps and studies: :func:`execute` hands them
to the local pool of worker processes (:mod:`aqmlab.runner.local`) or to a Dask cluster
(:mod:`aqmlab.runner.dask_cluster`); both run :func:`aqmlab.runner.worker.simulate` and call ``on_result``
in the calling process, which writes the run folders. A task is plain data (``hash``, ``text``, ``file``,
``overrides``, ``seed``, ``version``, ``runs_dir``: see :func:`aqmlab.sweep.task`)."""

from __future__ import annotations

from collections.abc import Sequence

from aqmlab.runner import dask_cluster, local
from aqmlab.runner.worker import OnResult, RunnerError

__all__ = ["OnResult", "RunnerError", "execute"]


def execute(tasks: Sequence[dict], on_result: OnResult, *, jobs: int, dask: str | None = None) -> None:
    """Runs ``tasks`` on ``jobs`` local worker processes, or on the Dask cluster at ``dask`` (a scheduler
    address, or ``"local"`` for a new ``LocalCluster`` of ``jobs`` workers)."""
    if dask:
        dask_cluster.execute(tasks, on_result, address=dask, jobs=jobs)
    else:
        local.execute(tasks, on_result, jobs=jobs)
