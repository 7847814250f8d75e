"""Run the ns-2.35 validation scripts and collect their metrics plus cost figures.

Examples:
    python validation/ns2/run_ns2.py --n 100 --duration 60 --queue dt --seed 1
    python validation/ns2/run_ns2.py --script study_c --n 100 --buffer 90 --queue red
    python validation/ns2/run_ns2.py --script packmime --seed 2 [--rate 15] [--option segsperack=1]

Prints one JSON object: the script's own JSON metrics plus ``wall_s`` (wall-clock seconds of the
``ns`` process), ``peak_rss_mb`` (its maximum resident set size, MiB), ``user_s`` and ``sys_s``
(CPU seconds) and the command line that was run. Pure standard library (Python 3.11).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCRIPTS = {
    "bench": HERE / "bench_dumbbell.tcl",
    "bench_dumbbell": HERE / "bench_dumbbell.tcl",
    "study_c": HERE / "study_c.tcl",
    "packmime": HERE / "packmime.tcl",
}
QUEUES = ("dt", "red", "pi", "rem", "avq")
TIME_BIN = "/usr/bin/time"


class Ns2Error(RuntimeError):
    """ns exited with an error or printed no JSON."""


def build_command(
    script: str = "bench",
    n: int = 10,
    queue: str = "dt",
    seed: int = 1,
    duration: float | None = None,
    buffer: int = 90,
    routing: str | None = None,
    window: int | None = None,
    warm: float | None = None,
    access_limit: int | None = None,
    ns_bin: str = "ns",
    rate: float | None = None,
    options: list[str] | None = None,
) -> list[str]:
    """The ``ns`` command line for one run (without the /usr/bin/time wrapper)."""
    if script not in SCRIPTS:
        raise ValueError(f"unknown script {script!r}; choose from {sorted(SCRIPTS)}")
    if queue not in QUEUES:
        raise ValueError(f"unknown queue {queue!r}; choose from {QUEUES}")
    tcl = str(SCRIPTS[script])
    if script == "packmime":
        # packmime.tcl: positional seed, then key=value options (drop-tail everywhere, as the TOML).
        if queue != "dt" or routing is not None or access_limit is not None:
            raise ValueError("--queue/--routing/--access-limit do not apply to packmime")
        warm_s = None if warm is None else int(warm)
        options = [*key_values(duration=duration, warm=warm_s, window=window, rate=rate), *(options or [])]
        return [ns_bin, tcl, str(seed), *options]
    if rate is not None or options:
        raise ValueError("--rate/--option apply to packmime only")
    if SCRIPTS[script].name == "bench_dumbbell.tcl":
        if window is not None or warm is not None or access_limit is not None:
            raise ValueError("--window/--warm/--access-limit apply to study_c and packmime only")
        dur = 60.0 if duration is None else duration
        cmd = [ns_bin, tcl, str(n), f"{dur:g}", queue, str(seed)]
        if routing is not None:
            cmd.append(routing)
        return cmd
    if routing is not None:
        raise ValueError("--routing applies to the bench script only")
    options = key_values(duration=duration, warm=warm, window=window, access_limit=access_limit)
    return [ns_bin, tcl, str(n), str(buffer), queue, str(seed), *options]


def key_values(**values: float | None) -> list[str]:
    """The scripts' `key=value` options for the values given (not None): floats as %g, integers whole."""
    return [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items() if v is not None]


def _parse_time_v(stderr: str) -> dict[str, float]:
    """Extract wall, CPU and peak RSS from GNU time -v output."""
    out: dict[str, float] = {}
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    if m:
        out["peak_rss_mb"] = int(m.group(1)) / 1024.0
    m = re.search(r"User time \(seconds\): ([\d.]+)", stderr)
    if m:
        out["user_s"] = float(m.group(1))
    m = re.search(r"System time \(seconds\): ([\d.]+)", stderr)
    if m:
        out["sys_s"] = float(m.group(1))
    return out


def _strip_time_v(stderr: str) -> str:
    idx = stderr.find("\tCommand being timed:")
    return stderr if idx < 0 else stderr[:idx]


def run(ns_bin: str = "ns", timeout: float | None = None, **settings: Any) -> dict:
    """Run one ns-2 simulation, `settings` those of `build_command`; return its JSON metrics plus wall_s,
    peak_rss_mb, user_s, sys_s."""
    if shutil.which(ns_bin) is None:
        raise Ns2Error(f"{ns_bin!r} not found; run validation/ns2/install-ns2.sh")
    cmd = build_command(ns_bin=ns_bin, **settings)
    use_time = os.access(TIME_BIN, os.X_OK)
    full = [TIME_BIN, "-v", *cmd] if use_time else cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(full, capture_output=True, text=True, timeout=timeout, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise Ns2Error(f"ns exited with {proc.returncode}: {_strip_time_v(proc.stderr).strip()}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise Ns2Error(f"no JSON on stdout; stdout={proc.stdout!r} stderr={proc.stderr!r}")
    result = json.loads(lines[-1])
    cost = _parse_time_v(proc.stderr) if use_time else {}
    if "peak_rss_mb" not in cost:
        # ru_maxrss of RUSAGE_CHILDREN is the largest child so far (KiB on Linux): exact only for
        # the first run in this process.
        cost["peak_rss_mb"] = after.ru_maxrss / 1024.0
        cost["user_s"] = after.ru_utime - before.ru_utime
        cost["sys_s"] = after.ru_stime - before.ru_stime
    result["wall_s"] = round(wall, 3)
    result["peak_rss_mb"] = round(cost["peak_rss_mb"], 1)
    result["user_s"] = round(cost.get("user_s", 0.0), 2)
    result["sys_s"] = round(cost.get("sys_s", 0.0), 2)
    result["command"] = " ".join(cmd)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--script", default="bench", choices=sorted(SCRIPTS))
    ap.add_argument("--n", type=int, default=10, help="flows (bench) or TCP connections (study_c)")
    ap.add_argument(
        "--duration", type=float, default=None, help="simulated s (bench 60, study_c 100, packmime 200)"
    )
    ap.add_argument("--queue", default="dt", choices=QUEUES)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--buffer", type=int, default=90, help="study_c bottleneck buffer, packets")
    ap.add_argument("--routing", choices=("manual", "static"), default=None, help="bench only")
    ap.add_argument(
        "--window", type=int, default=None, help="study_c TCP window_ (default 1000); packmime (64)"
    )
    ap.add_argument(
        "--warm", type=float, default=None, help="study_c window start (default 30); packmime warm-up (20)"
    )
    ap.add_argument("--access-limit", type=int, default=None, help="study_c access-link limit_")
    ap.add_argument("--rate", type=float, default=None, help="packmime: new connections/s (default 15)")
    ap.add_argument(
        "--option",
        action="append",
        default=[],
        help="packmime: extra key=value passed to packmime.tcl (segsize, segsperack, delaybox, ...)",
    )
    ap.add_argument("--ns", default="ns", help="ns binary")
    ap.add_argument("--timeout", type=float, default=None, help="seconds before the run is killed")
    args = ap.parse_args(argv)
    try:
        res = run(
            script=args.script,
            n=args.n,
            queue=args.queue,
            seed=args.seed,
            duration=args.duration,
            buffer=args.buffer,
            routing=args.routing,
            window=args.window,
            warm=args.warm,
            access_limit=args.access_limit,
            ns_bin=args.ns,
            timeout=args.timeout,
            rate=args.rate,
            options=args.option,
        )
    except (Ns2Error, ValueError, subprocess.TimeoutExpired) as exc:
        print(f"run_ns2: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
