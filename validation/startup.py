"""Start-up cost of the `aqmlab` command: whole-process wall time and peak RSS, beside the engine's time.

    python validation/startup.py [--repeat K] [--compare] [--markdown FILE] [--json FILE]

Each command is one process timed from outside (``bench.timed``: wall clock, ``/usr/bin/time -v`` for CPU
and peak RSS), K times in rounds (median wall). Measured: the interpreter alone (``python -c pass``, the
floor no Python command goes below), ``aqmlab --version``, ``aqmlab validate scenarios/example.toml``, and
``aqmlab run`` of BENCH-DUMBBELL with 50 flows and 80 s simulated (drop-tail), beside the engine's own time
for that run (``wall_s`` of the run's summary.json) and ``aqmlab-bench`` (the engine without Python, whole
process) on the same scenario; with ``--compare`` also ns-2.35 on its twin (``validation/ns2``), as in
``bench.py --compare``. The targets of docs/bench.md#start-up are judged from the numbers of this run, for
information: the machine's load moves them (the report gives it). Writes ``validation/results/startup.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from aqmlab_bench import find_bench
from bench import RESULTS_MD, SCENARIO, Scenario, md_table, rich_table, run_aqmlab, run_ns2_once, timed

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "scenarios" / "example.toml"
RESULTS = RESULTS_MD.with_name("startup.md")
AQMLAB = Path(sys.executable).parent / "aqmlab"
#: The `aqmlab run` case: 50 flows, 80 s simulated, drop-tail (bench.py's scenario with these overrides).
RUN_CASE = Scenario("DT", 50, 80.0)
#: docs/bench.md#start-up: whole-process seconds of --version and validate; run within
#: RUN_FACTOR x the engine's time + RUN_EXTRA_S.
QUICK_TARGET_S = 0.2
RUN_FACTOR = 1.5
RUN_EXTRA_S = 0.3


def aqmlab_process(args: list[str], out: Path | None = None) -> dict:
    """One `aqmlab` (or interpreter) process: its cost, and with ``out`` (a run folder) the engine's wall
    time from its summary.json."""
    proc, cost = timed(args)
    if proc.returncode != 0:
        err = proc.stderr.split("\tCommand being timed:")[0].strip()
        raise RuntimeError(f"{' '.join(args)} exited with {proc.returncode}: {err}")
    if out is not None:
        cost["engine_wall_s"] = json.loads((out / "summary.json").read_text())["wall_s"]
    return cost


def median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, metavar="K", help="runs per command; median wall time")
    ap.add_argument("--compare", action="store_true", help="also ns-2.35 on the run's scenario")
    ap.add_argument("--markdown", metavar="FILE", default=str(RESULTS), help=f"default {RESULTS}")
    ap.add_argument("--json", metavar="FILE", help="write every run's measurements here")
    ap.add_argument("--bin", metavar="PATH", help="aqmlab-bench binary (default $CARGO_TARGET_DIR/release)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if not AQMLAB.exists():
        print(f"startup: {AQMLAB} not found; run `make build`", file=sys.stderr)
        return 2
    binary = find_bench(args.bin, "startup")
    console = Console(width=max(Console().width, 160))
    sets = [a for kv in RUN_CASE.aqmlab_args() for a in ("--set", kv)]
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="aqmlab-startup-") as tmp:
        out = Path(tmp) / "run"
        run = [str(AQMLAB), "run", str(SCENARIO), *sets, "--quiet", "--out", str(out)]
        commands = {
            "python -c pass": ([sys.executable, "-c", "pass"], None),
            "aqmlab --version": ([str(AQMLAB), "--version"], None),
            "aqmlab validate scenarios/example.toml": ([str(AQMLAB), "validate", str(EXAMPLE)], None),
            "aqmlab run (50 flows, 80 s)": (run, out),
        }
        # Round k runs every command once, so a change in the shared machine's load hits all alike.
        for k in range(args.repeat):
            console.print(f"[dim]round {k + 1}/{args.repeat}[/dim]")
            for label, (cmd, folder) in commands.items():
                runs.setdefault(label, []).append(aqmlab_process(cmd, folder))
            runs.setdefault("aqmlab-bench (engine, no Python)", []).append(run_aqmlab(binary, RUN_CASE))
            if args.compare:
                runs.setdefault("ns-2.35", []).append(run_ns2_once(RUN_CASE))

    load = os.getloadavg()
    context = (
        f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average {load[0]:.2f} at the end, "
        f"{args.repeat} run(s) per command (median wall time)"
    )
    run_wall = median(runs["aqmlab run (50 flows, 80 s)"], "wall_s")
    engine = median(runs["aqmlab run (50 flows, 80 s)"], "engine_wall_s")
    head = ["command", "wall s", "CPU s", "peak RSS MB", "wall ÷ aqmlab run"]
    rows = [
        [
            label,
            f"{median(rs, 'wall_s'):.3f}",
            f"{median(rs, 'cpu_s'):.3f}",
            f"{max(r['peak_rss_mb'] or float('nan') for r in rs):.1f}",
            f"{median(rs, 'wall_s') / run_wall:.2f}",
        ]
        for label, rs in runs.items()
    ]
    rows.append(["engine's own time in that run (summary.json wall_s)", f"{engine:.3f}", "", "", ""])
    checks = []
    for label in ("aqmlab --version", "aqmlab validate scenarios/example.toml"):
        wall = median(runs[label], "wall_s")
        checks.append((f"{label}: under {QUICK_TARGET_S:g} s (measured {wall:.3f} s)", wall < QUICK_TARGET_S))
    limit = RUN_FACTOR * engine + RUN_EXTRA_S
    checks.append(
        (
            f"aqmlab run: within {RUN_FACTOR:g} × the engine's {engine:.3f} s + {RUN_EXTRA_S:g} s = "
            f"{limit:.3f} s (measured {run_wall:.3f} s)",
            run_wall <= limit,
        )
    )
    console.print(f"\n[bold]Start-up[/bold] — {context}")
    console.print(rich_table("whole process (median wall; CPU = user + sys)", head, rows))
    for text, ok in checks:
        console.print(f"  {'[green]met' if ok else '[red]NOT met'}[/] — {text}")
    md = [
        f"# Start-up — {context}",
        "",
        "Whole-process wall time of each command (median), CPU = user + sys seconds, peak RSS; the"
        f" `aqmlab run` case is BENCH-DUMBBELL with {RUN_CASE.n} flows, {RUN_CASE.duration:g} s simulated,"
        " drop-tail, the same scenario for aqmlab-bench and ns-2. `validation/startup.py` (`make bench`).",
        "",
        md_table(head, rows),
        "",
        "## Targets (docs/bench.md#start-up)",
        "",
        *(f"- **{'met' if ok else 'NOT met'}** — {text}" for text, ok in checks),
        "",
    ]
    Path(args.markdown).write_text("\n".join(md))
    console.print(f"\nwrote {args.markdown}")
    if args.json:
        records = [{**r, "command": label} for label, rs in runs.items() for r in rs]
        Path(args.json).write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
