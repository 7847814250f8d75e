"""The local executor of sweeps and studies: a pool of worker processes, each running one simulation at a
time.

Not ``concurrent.futures``: a crashed worker there breaks the whole pool and does not say which run
killed it. Here each worker has its own pipe, the parent knows which task each one holds, a worker that
dies is reported as that run's failure and replaced, and the others go on. Workers are started with
``spawn`` (no inherited locks or threads), ignore Ctrl-C (the parent stops them) and exit when the parent
goes away, even when it was killed outright.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aqmlab.runner.worker import OnResult, describe, simulate


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def _worker_main(conn: mpc.Connection, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            reply: tuple[str, Any] = ("ok", simulate(task))
        except BaseException as e:  # noqa: BLE001 - every failure goes back to the parent
            reply = ("error", describe(e))
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return


@dataclass
class _Worker:
    proc: Any
    conn: mpc.Connection
    task: dict | None = None


def _start(ctx: Any) -> _Worker:
    parent_conn, child_conn = ctx.Pipe()
    proc = ctx.Process(target=_worker_main, args=(child_conn, os.getpid()), daemon=True, name="aqmlab-sweep")
    proc.start()
    child_conn.close()
    return _Worker(proc, parent_conn)


def _exit_text(code: int | None) -> str:
    if code is None:
        return "worker process stopped answering"
    if code < 0:
        try:
            return f"worker process killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"worker process killed by signal {-code}"
    return f"worker process exited with status {code}"


def execute(tasks: Sequence[dict], on_result: OnResult, *, jobs: int) -> None:
    """Runs ``tasks`` on ``jobs`` worker processes, calling ``on_result`` in this process as each one
    ends. Returns when all have ended; on any exception (Ctrl-C included) the workers are killed."""
    ctx = mp.get_context("spawn")
    pending = deque(tasks)
    workers = [_start(ctx) for _ in range(min(jobs, len(pending)))]
    try:
        while True:
            for w in workers:
                while w.task is None and pending:
                    task = pending.popleft()
                    try:
                        w.conn.send(task)
                        w.task = task
                    except (EOFError, OSError):  # died while idle: replace it, keep the task
                        pending.appendleft(task)
                        _stop(w)
                        new = _start(ctx)
                        w.proc, w.conn = new.proc, new.conn
            busy = [w for w in workers if w.task is not None]
            if not busy:
                break
            ready = set(mpc.wait([w.conn for w in busy] + [w.proc.sentinel for w in busy]))
            for w in busy:
                if w.conn not in ready and w.proc.sentinel not in ready:
                    continue
                task, w.task = w.task, None
                try:
                    if not w.conn.poll():
                        raise EOFError
                    kind, value = w.conn.recv()
                except (EOFError, OSError):
                    w.proc.join(timeout=5)
                    on_result(task, None, _exit_text(w.proc.exitcode))
                    _stop(w)
                    if pending:
                        new = _start(ctx)
                        w.proc, w.conn = new.proc, new.conn
                    continue
                if kind == "ok":
                    on_result(task, value, None)
                else:
                    on_result(task, None, value)
            workers = [w for w in workers if w.task is not None or w.proc.is_alive() or pending]
        for w in workers:
            try:
                w.conn.send(None)
            except (EOFError, OSError):
                pass
        for w in workers:
            w.proc.join(timeout=5)
    finally:
        for w in workers:
            _stop(w)


def _stop(w: _Worker) -> None:
    if w.proc.is_alive():
        w.proc.kill()
    w.proc.join(timeout=5)
    try:
        w.conn.close()
    except OSError:
        pass
