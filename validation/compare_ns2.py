"""Cross-validate aqmlab against ns-2.35 on BENCH-DUMBBELL-N with RED, PI, REM and AVQ.

Runs the same scenario in both simulators for several seeds (5 by default; about 2 minutes in all),
one run at a time, and prints per AQM and metric the mean +- seed-to-seed standard deviation of each
simulator, the relative difference and a verdict. The table is also written as Markdown to
``validation/results/compare_ns2.md`` and the raw runs to ``validation/results/compare_ns2.jsonl``.

    python3 validation/compare_ns2.py           # 5 seeds, N = 100, 60 s: what `make validate` runs
    python3 validation/compare_ns2.py --seeds 5 --aqm red pi

Scenario (``/work/shared/docs/bench.md``; ns-2 side ``validation/ns2/bench_dumbbell.tcl``): N long-lived
NewReno flows, 100 Mb/s 10 ms bottleneck A->B, 1 Gb/s access links spreading base RTTs over 20..200 ms,
every other queue drop-tail with 1000 packets (the reverse bottleneck B->A included, which aqmlab would
otherwise give the same AQM), metrics over [10 s, 60 s], queue sampled every 10 ms. The aqmlab side runs
``scenarios/bench-dumbbell.toml`` through ``aqmlab-bench`` with the ``--set`` overrides in ``AQMLAB_QUEUES``,
which mirror every parameter bench_dumbbell.tcl sets or leaves at its ns-2.35 default:

- RED: gentle, thresh 100, maxthresh 300, linterm 10 (max_p 0.1), q_weight 0.002, packet mode
  (queue_in_bytes_ and bytes_ false), setbit_ false, mean_pktsize_ 500 (ns-2 default, idle correction
  only); wait_ true, mark_p_ 0.1, use_mark_p_ true are aqmlab's defaults too.
- PI: qref_ 200, w_ 170, a_ 1.822e-5, b_ 1.816e-5, packet mode, mean_pktsize_ 500, setbit_ false.
- REM: ns-2 defaults (packet mode, pbo_ 20, gamma_ 0.001, phi_ 1.001, pupdtime_ 2 ms, inw_ 1,
  mean_pktsize_ 1000, markpkts_ false), limit 1000.
- AVQ (Queue/Vq): ns-2 defaults (byte mode, mean_pktsize_ 1000 -> 1 000 000-byte buffer, gamma_ 0.98,
  ecnlim_ 0.8, buflim_ 1, markpkts_ false), limit 1000.

Metrics (same definitions on both sides): ``utilization`` (bits sent / capacity / window), ``goodput``
(payload delivered in order, Mb/s), ``q_mean`` and ``q_std`` (10-ms samples of packets waiting, the one
on the wire excluded), ``drop_rate`` (bottleneck drops / arrivals). Verdict: utilization within 3
points, goodput within 3 % of ns-2's; mean queue, queue std and drop rate within 15 % of ns-2's mean
or within twice ns-2's seed-to-seed standard deviation, whichever is larger.

Study C (``validation/ns2/study_c.tcl``) is deliberately NOT compared here yet: its traffic mix
(536-byte FTP, Pareto HTTP-like files over persistent connections, reverse CBR) is still being built in
aqmlab by someone else. Add it once aqmlab can express that mix.

Standard library only (Python 3.11); needs ``ns`` (``validation/ns2/install-ns2.sh``) and the
``aqmlab-bench`` binary (``cargo build --release -p aqmlab-core``; found through ``--bench``,
``$AQMLAB_BENCH``, ``$CARGO_TARGET_DIR`` or ``target/``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validation" / "ns2"))
import run_ns2  # noqa: E402  (the colleague's runner, validation/ns2/run_ns2.py)

SCENARIO = ROOT / "scenarios" / "bench-dumbbell.toml"
RESULTS = ROOT / "validation" / "results"

# The reverse bottleneck B->A is DropTail with limit 1000 in ns-2 (simplex-link ... DropTail).
REVERSE = 'dumbbell.reverse_queue={ kind = "droptail", limit = 1000 }'
AQMLAB_QUEUES = {
    "red": '{ kind = "red", limit = 1000, queue_in_bytes = false, bytes = false, mean_pktsize = 500, '
    "thresh = 100, maxthresh = 300, linterm = 10, q_weight = 0.002, gentle = true, wait = true, "
    "mark_p = 0.1, use_mark_p = true, ecn = false, adaptive = false }",
    "pi": '{ kind = "pi", limit = 1000, qref = 200.0, w = 170.0, a = 1.822e-5, b = 1.816e-5, '
    "queue_in_bytes = false, bytes = false, mean_pktsize = 500, ecn = false }",
    "rem": '{ kind = "rem", limit = 1000, queue_in_bytes = false, mean_pktsize = 1000, gamma = 0.001, '
    "phi = 1.001, qref = 20.0, pupdtime = 0.002, inw = 1.0, alpha = 0.1, ecn = false }",
    "avq": '{ kind = "avq", limit = 1000, queue_in_bytes = true, mean_pktsize = 1000, gamma = 0.98, '
    "alpha = 0.15, ecnlim = 0.8, buflim = 1.0, ecn = false }",
}

# (key, label, format, kind of check)
METRICS = [
    ("utilization", "utilization", "{:.4f}", "points"),
    ("goodput", "goodput Mb/s", "{:.2f}", "relative"),
    ("q_mean", "mean queue pkts", "{:.1f}", "spread"),
    ("q_std", "queue std pkts", "{:.1f}", "spread"),
    ("drop_rate", "drop rate %", "{:.3f}", "spread"),
]
UTIL_POINTS = 0.03
GOODPUT_REL = 0.03
SPREAD_REL = 0.15


def find_bench(explicit: str | None) -> Path:
    """The aqmlab-bench binary: --bench, $AQMLAB_BENCH, $CARGO_TARGET_DIR/release, target/release."""
    candidates = [explicit, os.environ.get("AQMLAB_BENCH")]
    if os.environ.get("CARGO_TARGET_DIR"):
        candidates.append(str(Path(os.environ["CARGO_TARGET_DIR"]) / "release" / "aqmlab-bench"))
    candidates.append(str(ROOT / "target" / "release" / "aqmlab-bench"))
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    sys.exit(
        "compare_ns2: aqmlab-bench not found; run `cargo build --release -p aqmlab-core` or pass --bench"
    )


def run_aqmlab(bench: Path, aqm: str, seed: int, n: int, duration: float) -> dict:
    """One aqmlab run; returns the normalised metrics."""
    cmd = [
        str(bench),
        str(SCENARIO),
        f"dumbbell.queue={AQMLAB_QUEUES[aqm]}",
        REVERSE,
        f"dumbbell.pairs={n}",
        f"duration={duration:g}",
        f"seed={seed}",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"aqmlab-bench failed ({proc.returncode}): {proc.stderr.strip()}")
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    if raw["bottleneck"] != "A->B":
        raise RuntimeError(f"the busiest link is {raw['bottleneck']}, expected A->B")
    return {
        "simulator": "aqmlab",
        "aqm": aqm,
        "seed": seed,
        "utilization": raw["utilization"],
        "goodput": raw["goodput_mbps"],
        "q_mean": raw["q_mean_pkts"],
        "q_std": raw["q_std_pkts"],
        "drop_rate": 100.0 * raw["drops"] / raw["arrivals"],
        "drops_overflow": raw["drops_overflow"],
        "drops_early": raw["drops_early"],
        "wall_s": raw["wall_s"],
    }


def run_ns2_once(aqm: str, seed: int, n: int, duration: float, ns_bin: str) -> dict:
    """One ns-2 run; returns the normalised metrics."""
    raw = run_ns2.run(script="bench", n=n, queue=aqm, seed=seed, duration=duration, ns_bin=ns_bin)
    return {
        "simulator": "ns-2.35",
        "aqm": aqm,
        "seed": seed,
        "utilization": raw["utilization"],
        "goodput": raw["goodput_mbps"],
        "q_mean": raw["q_mean_pkts"],
        "q_std": raw["q_std_pkts"],
        "drop_rate": 100.0 * raw["drops"] / raw["arrivals"],
        "wall_s": raw["wall_s"],
    }


def mean_sd(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def verdict(kind: str, ns2: list[float], aqm: list[float]) -> tuple[bool, str]:
    """(ok, tolerance text) for one metric."""
    (m_ns, sd_ns), (m_aq, _) = mean_sd(ns2), mean_sd(aqm)
    diff = m_aq - m_ns
    if kind == "points":
        return abs(diff) <= UTIL_POINTS, f"±{100 * UTIL_POINTS:g} pt"
    if kind == "relative":
        tol = GOODPUT_REL * abs(m_ns)
        return abs(diff) <= tol, f"±{100 * GOODPUT_REL:g}%"
    tol = max(SPREAD_REL * abs(m_ns), 2.0 * sd_ns)
    which = f"±{100 * SPREAD_REL:g}%" if tol == SPREAD_REL * abs(m_ns) else "±2 sd(ns-2)"
    return abs(diff) <= tol, which


def table(rows: list[dict], aqms: list[str]) -> tuple[list[list[str]], int]:
    """Table cells (header first) and the number of failed checks."""
    head = ["AQM", "metric", "ns-2.35 mean ± sd", "aqmlab mean ± sd", "Δ", "tolerance", "verdict"]
    out, failed = [head], 0
    for aqm in aqms:
        for key, label, fmt, kind in METRICS:
            ns2 = [r[key] for r in rows if r["aqm"] == aqm and r["simulator"] == "ns-2.35"]
            aql = [r[key] for r in rows if r["aqm"] == aqm and r["simulator"] == "aqmlab"]
            if not ns2 or not aql:
                continue
            (m_ns, sd_ns), (m_aq, sd_aq) = mean_sd(ns2), mean_sd(aql)
            ok, tol = verdict(kind, ns2, aql)
            failed += not ok
            if kind == "points":
                delta = f"{100 * (m_aq - m_ns):+.2f} pt"
            else:
                delta = f"{100 * (m_aq - m_ns) / m_ns:+.1f}%" if m_ns else "n/a"
            out.append(
                [
                    aqm.upper(),
                    label,
                    f"{fmt.format(m_ns)} ± {fmt.format(sd_ns)}",
                    f"{fmt.format(m_aq)} ± {fmt.format(sd_aq)}",
                    delta,
                    tol,
                    "ok" if ok else "DIFFERS",
                ]
            )
    return out, failed


def render_text(cells: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    lines = []
    for k, r in enumerate(cells):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(cells: list[list[str]], meta: str) -> str:
    lines = ["# aqmlab vs ns-2.35 — BENCH-DUMBBELL", "", meta, ""]
    lines.append("| " + " | ".join(cells[0]) + " |")
    lines.append("|" + "---|" * len(cells[0]))
    lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aqm", nargs="+", default=list(AQMLAB_QUEUES), choices=list(AQMLAB_QUEUES))
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..S in each simulator (default 5)")
    ap.add_argument("--n", type=int, default=100, help="flows (default 100)")
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds (default 60)")
    ap.add_argument("--bench", default=None, help="aqmlab-bench binary")
    ap.add_argument("--ns", default="ns", help="ns-2 binary")
    ap.add_argument("--out", type=Path, default=RESULTS / "compare_ns2.md", help="Markdown table")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any check fails")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error("--seeds must be at least 1")

    bench = find_bench(args.bench)
    rows: list[dict] = []
    t0 = time.perf_counter()
    for aqm in args.aqm:
        for seed in range(1, args.seeds + 1):
            for sim in ("ns-2.35", "aqmlab"):
                if sim == "ns-2.35":
                    r = run_ns2_once(aqm, seed, args.n, args.duration, args.ns)
                else:
                    r = run_aqmlab(bench, aqm, seed, args.n, args.duration)
                rows.append(r)
                print(
                    f"{sim:8s} {aqm:4s} seed {seed}: util {r['utilization']:.4f} goodput {r['goodput']:.2f} "
                    f"q {r['q_mean']:.1f} ± {r['q_std']:.1f} drops {r['drop_rate']:.3f}% "
                    f"({r['wall_s']:.1f} s)",
                    file=sys.stderr,
                    flush=True,
                )

    cells, failed = table(rows, args.aqm)
    checks = len(cells) - 1
    meta = (
        f"N = {args.n} flows, {args.duration:g} s simulated, metrics over [10 s, {args.duration:g} s], "
        f"seeds 1..{args.seeds} in each simulator (sd = seed-to-seed standard deviation). "
        f"{checks - failed} of {checks} checks pass. Generated by `validation/compare_ns2.py` "
        f"in {time.perf_counter() - t0:.0f} s."
    )
    print(render_text(cells))
    print(meta)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_markdown(cells, meta), encoding="utf-8")
    raw = args.out.with_suffix(".jsonl")
    raw.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {args.out} and {raw}", file=sys.stderr)
    if any(math.isnan(r["q_mean"]) for r in rows):
        print("warning: a run has no queue samples", file=sys.stderr)
    return 1 if (args.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())
