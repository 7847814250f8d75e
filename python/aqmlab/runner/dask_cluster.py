"""The Dask executor of sweeps and studies: the same tasks as the local pool, on a ``dask.distributed``
cluster.

Workers run :func:`aqmlab.runner.worker.simulate`: a worker that sees ``OUT`` (a ``LocalCluster``, or a
shared file system) streams the run folder into ``OUT/runs/`` under a temporary name, one that does not
writes it locally and returns its files as bytes; either way the client (the process running the sweep)
puts it in place atomically as ``OUT/runs/<hash>/``. Workers need aqmlab installed (the same version: a
worker with another version refuses the task), and a run written by a Dask sweep is byte-for-byte the
run a local sweep writes (except ``wall_s``).
``address="local"`` starts a ``LocalCluster`` of ``jobs`` single-threaded worker processes.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

from aqmlab.runner.worker import OnResult, RunnerError, describe, simulate


def execute(tasks: Sequence[dict], on_result: OnResult, *, address: str, jobs: int) -> None:
    """Submits every task to the cluster at ``address`` (or a new local one) and calls ``on_result`` in
    this process as each finishes. A task that raises, or whose workers keep dying (Dask's
    ``KilledWorker``), is reported as failed; the others go on. On any exception (Ctrl-C included) the
    remaining tasks are cancelled and the client (and a local cluster) closed."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise RunnerError(
            "--dask needs the dask and distributed packages (pip install dask distributed)"
        ) from None

    cluster = None
    client = None
    futures = []
    try:
        if address == "local":
            cluster = LocalCluster(
                n_workers=jobs,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            client = Client(cluster)
        else:
            try:
                client = Client(address, timeout="20s")
            except OSError as e:
                raise RunnerError(f"--dask {address}: cannot reach the scheduler ({e})") from None
        token = uuid.uuid4().hex[:8]
        by_key = {}
        for t in tasks:
            f = client.submit(simulate, t, key=f"aqmlab-run-{t['hash']}-{token}", pure=False)
            by_key[f.key] = t
            futures.append(f)
        for f in as_completed(futures):
            task = by_key[f.key]
            try:
                payload = f.result()
            except Exception as e:  # noqa: BLE001 - the task's own error, raised again here
                on_result(task, None, describe(e))
            else:
                on_result(task, payload, None)
            f.release()
    finally:
        if client is not None:
            try:
                client.cancel([f for f in futures if not f.done()])
            except Exception:  # noqa: BLE001 - closing anyway
                pass
            client.close()
        if cluster is not None:
            cluster.close()
