"""Cross-validate aqmlab against ns-2.35: BENCH-DUMBBELL-N and the study C dumbbell.

Runs the same scenarios in both simulators for several seeds, one run at a time, and prints per
configuration and metric the mean +- seed-to-seed standard deviation of each simulator, the difference
and a verdict. The tables are also written as Markdown to ``validation/results/compare_ns2.md`` (one
section per part) and the raw runs to ``validation/results/compare_ns2.jsonl``.

    python3 validation/compare_ns2.py                 # both parts: what `make validate` runs (~10 min)
    python3 validation/compare_ns2.py --part bench --seeds 5 --aqm red pi
    python3 validation/compare_ns2.py --part c --c-n 10 100 --c-seeds 3 --c-aqm dt red

Part 1 -- BENCH-DUMBBELL (5 seeds by default; about 2 minutes).

Scenario (``docs/bench.md#bench-dumbbell-n``; ns-2 side ``validation/ns2/bench_dumbbell.tcl``): N long-lived
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

Part 2 -- study C (Chrost & Chydzinski; ``docs/studies.md#study-c``): the 100 Mb/s, 65 ms dumbbell
with 10 / 100 / 1000 TCP connections (536-byte FTP, 1500-byte FTP, HTTP-like Pareto files over persistent
connections, reverse UDP CBR), buffer 90, metrics over [30 s, 100 s], queue sampled every 0.1 s. ns-2 side
``validation/ns2/study_c.tcl``; aqmlab side
``python/aqmlab/studies/scenarios/chrost2009/c{10,100,1000}.toml``, which mirror the tcl choice for choice
(counts, paths, start times, windows, access and reverse buffers). The A->B queue is the AQM with ns-2
DEFAULT parameters and limit = buffer on both sides (``C_QUEUES``); the reverse bottleneck B->A is
drop-tail with the same limit. 3 seeds per configuration in each simulator by default (about 8 minutes
in all; every configuration, N = 1000 included, runs all seeds). Metrics: ``q_mean`` and ``q_std`` (0.1-s
samples of waiting packets; aqmlab takes 701 samples, t = 30.0 .. 100.0 s inclusive,
ns-2 700, t < 100 s), ``throughput`` (% of 100 Mb/s: bytes leaving A->B, headers included), ``cov``
(100 * std / mean per run, then averaged; reported, not judged: it follows from the other two),
``drop_rate`` (A->B drops / arrivals, %). The paper's value (docs/studies.md#c-tables; the paper reports
no drop rate) is printed beside them. Verdicts as in part 1: throughput within 3 points of ns-2's; mean
queue, queue std and drop rate within 15 % of ns-2's mean or twice ns-2's seed-to-seed sd, whichever is
larger, and for the queue metrics at least 1 packet (the uncongested runs have sub-packet mean queues).

Standard library only (Python 3.11); needs ``ns`` (``validation/ns2/install-ns2.sh``) and the
``aqmlab-bench`` binary (``cargo build --release -p aqmlab-core``; found through ``--bench``,
``$AQMLAB_BENCH``, ``$CARGO_TARGET_DIR`` or ``target/``).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

from aqmlab_bench import find_bench

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validation" / "ns2"))
import run_ns2  # noqa: E402  (the colleague's runner, validation/ns2/run_ns2.py)

SCENARIO = ROOT / "scenarios" / "bench-dumbbell.toml"
C_SCENARIO = ROOT / "python" / "aqmlab" / "studies" / "scenarios" / "chrost2009" / "c{n}.toml"
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
# Study C: the A->B queue with ns-2 DEFAULT parameters (every aqmlab config defaults to ns-2's values:
# RED byte mode with mean_pktsize 500 and automatic thresholds/w_q, PI qref 50, REM packet mode with
# mean_pktsize 1000, AVQ byte mode with mean_pktsize 1000); {b} is the buffer in packets.
C_QUEUES = {
    "dt": '{{ kind = "droptail", limit = {b} }}',
    "red": '{{ kind = "red", limit = {b} }}',
    "pi": '{{ kind = "pi", limit = {b} }}',
    "rem": '{{ kind = "rem", limit = {b} }}',
    "avq": '{{ kind = "avq", limit = {b} }}',
}
C_N = (10, 100, 1000)
# The paper's tables (buffer 90; docs/studies.md#c-tables): (avg queue pkts, throughput %, std pkts, CoV %)
# per N.
PAPER_C = {
    "dt": {10: (1.8, 40.5, 8.6, 473.5), 100: (22.0, 92.0, 25.6, 116.2), 1000: (73.5, 100.0, 21.4, 29.1)},
    "red": {10: (0.4, 24.2, 2.4, 674.2), 100: (4.3, 71.6, 7.9, 184.5), 1000: (22.2, 94.5, 9.7, 43.6)},
    "pi": {10: (1.6, 35.2, 8.0, 496.3), 100: (21.8, 91.9, 24.9, 114.2), 1000: (70.9, 99.8, 22.1, 31.2)},
    "rem": {10: (1.7, 39.3, 8.1, 471.1), 100: (21.8, 92.3, 25.2, 115.8), 1000: (70.6, 100.0, 22.0, 31.1)},
    "avq": {10: (1.0, 34.5, 5.5, 530.1), 100: (13.1, 87.6, 18.0, 137.6), 1000: (21.5, 98.0, 17.9, 83.3)},
}
# (key, label, format, kind of check, index in PAPER_C or None)
C_METRICS = [
    ("q_mean", "mean queue pkts", "{:.2f}", "queue", 0),
    ("throughput", "throughput %", "{:.1f}", "pct_points", 1),
    ("q_std", "queue std pkts", "{:.2f}", "queue", 2),
    ("cov", "CoV %", "{:.0f}", "info", 3),
    ("drop_rate", "drop rate %", "{:.3f}", "spread", None),
]
QUEUE_SLACK = 1.0  # packets

UTIL_POINTS = 0.03
GOODPUT_REL = 0.03
SPREAD_REL = 0.15


def run_bench(bench: Path, *args: str) -> dict:
    """The JSON metrics of one aqmlab-bench run; `args` the scenario, then options and overrides."""
    proc = subprocess.run([str(bench), *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"aqmlab-bench failed ({proc.returncode}): {proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_row(simulator: str, aqm: str, seed: int, raw: dict, **extra: object) -> dict:
    """The normalised metrics of one bench-dumbbell run of either simulator."""
    return {
        "part": "bench",
        "simulator": simulator,
        "aqm": aqm,
        "seed": seed,
        "utilization": raw["utilization"],
        "goodput": raw["goodput_mbps"],
        "q_mean": raw["q_mean_pkts"],
        "q_std": raw["q_std_pkts"],
        "drop_rate": 100.0 * raw["drops"] / raw["arrivals"],
        **extra,
        "wall_s": raw["wall_s"],
    }


def run_aqmlab(bench: Path, aqm: str, seed: int, n: int, duration: float) -> dict:
    """One aqmlab run; returns the normalised metrics."""
    raw = run_bench(
        bench,
        str(SCENARIO),
        f"dumbbell.queue={AQMLAB_QUEUES[aqm]}",
        REVERSE,
        f"dumbbell.pairs={n}",
        f"duration={duration:g}",
        f"seed={seed}",
    )
    if raw["bottleneck"] != "A->B":
        raise RuntimeError(f"the busiest link is {raw['bottleneck']}, expected A->B")
    extra = {"drops_overflow": raw["drops_overflow"], "drops_early": raw["drops_early"]}
    return bench_row("aqmlab", aqm, seed, raw, **extra)


def run_ns2_once(aqm: str, seed: int, n: int, duration: float, ns_bin: str) -> dict:
    """One ns-2 run; returns the normalised metrics."""
    raw = run_ns2.run(script="bench", n=n, queue=aqm, seed=seed, duration=duration, ns_bin=ns_bin)
    return bench_row("ns-2.35", aqm, seed, raw)


def run_aqmlab_c(
    bench: Path, aqm: str, n: int, seed: int, buffer: int, sim: str = "aqmlab", *extra: str
) -> dict:
    """One aqmlab study C run (with extra `key=value` overrides); returns the normalised metrics."""
    raw = run_bench(
        bench,
        str(C_SCENARIO).format(n=n),
        "--link=A->B",
        f"links.0.queue_ab={C_QUEUES[aqm].format(b=buffer)}",
        f"links.0.queue_ba.limit={buffer}",
        f"seed={seed}",
        *extra,
    )
    return c_row(sim, aqm, n, seed, raw, drops_early=raw["drops_early"])


def run_ns2_c(aqm: str, n: int, seed: int, buffer: int, ns_bin: str) -> dict:
    """One ns-2 study C run; returns the normalised metrics."""
    raw = run_ns2.run(script="study_c", n=n, queue=aqm, seed=seed, buffer=buffer, ns_bin=ns_bin)
    return c_row("ns-2.35", aqm, n, seed, raw, rev_drops=raw["rev_drops"], access_drops=raw["access_drops"])


NS2_NO_SSR = "ns-2.35 ssr0"
AQMLAB_NO_SSR = "aqmlab ssr0"


def run_ns2_c_no_restart(n: int, seed: int, buffer: int, ns_bin: str) -> dict:
    """Diagnostic ns-2 study C run (DT) with ``Agent/TCP set slow_start_restart_ false``."""
    cmd = [ns_bin, str(run_ns2.SCRIPTS["study_c"]), str(n), str(buffer), "dt", str(seed)]
    t0 = time.perf_counter()
    proc = subprocess.run([*cmd, "slow_start_restart=0"], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"ns failed ({proc.returncode}): {proc.stderr.strip()}")
    raw = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
    raw["wall_s"] = time.perf_counter() - t0
    return c_row(NS2_NO_SSR, "dt", n, seed, raw)


def c_row(sim: str, aqm: str, n: int, seed: int, raw: dict, **extra) -> dict:
    q_mean, q_std = raw["q_mean_pkts"], raw["q_std_pkts"]
    return {
        "part": "c",
        "simulator": sim,
        "aqm": aqm,
        "n": n,
        "seed": seed,
        "q_mean": q_mean,
        "throughput": 100.0 * raw["utilization"],
        "q_std": q_std,
        "cov": 100.0 * q_std / q_mean if q_mean > 0 else 0.0,
        "drop_rate": 100.0 * raw["drops"] / raw["arrivals"],
        "wall_s": raw["wall_s"],
        **extra,
    }


def mean_sd(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def verdict(kind: str, ns2: list[float], aqm: list[float]) -> tuple[bool, str]:
    """(ok, tolerance text) for one metric."""
    (m_ns, sd_ns), (m_aq, _) = mean_sd(ns2), mean_sd(aqm)
    diff = m_aq - m_ns
    if kind == "points":
        return abs(diff) <= UTIL_POINTS, f"±{100 * UTIL_POINTS:g} pt"
    if kind == "pct_points":  # the metric is already in %
        return abs(diff) <= 100 * UTIL_POINTS, f"±{100 * UTIL_POINTS:g} pt"
    if kind == "relative":
        tol = GOODPUT_REL * abs(m_ns)
        return abs(diff) <= tol, f"±{100 * GOODPUT_REL:g}%"
    if kind == "info":
        return True, "-"
    slack = QUEUE_SLACK if kind == "queue" else 0.0
    tols = [(SPREAD_REL * abs(m_ns), f"±{100 * SPREAD_REL:g}%"), (2.0 * sd_ns, "±2 sd(ns-2)")]
    if slack:
        tols.append((slack, f"±{slack:g} pkt"))
    tol, which = max(tols, key=lambda t: t[0])
    return abs(diff) <= tol, which


def compared(sel: list[dict], key: str, kind: str) -> tuple[float, float, float, float, bool, str] | None:
    """ns-2's mean and sd of `key` over the rows `sel`, aqmlab's, and the verdict (ok, tolerance); None
    unless both simulators have rows."""
    ns2 = [r[key] for r in sel if r["simulator"] == "ns-2.35"]
    aql = [r[key] for r in sel if r["simulator"] == "aqmlab"]
    if not ns2 or not aql:
        return None
    (m_ns, sd_ns), (m_aq, sd_aq) = mean_sd(ns2), mean_sd(aql)
    return m_ns, sd_ns, m_aq, sd_aq, *verdict(kind, ns2, aql)


def mean_pm_sd(fmt: str, mean: float, sd: float) -> str:
    return f"{fmt.format(mean)} ± {fmt.format(sd)}"


def relative(m_ns: float, m_aq: float, digits: int) -> str:
    return f"{100 * (m_aq - m_ns) / m_ns:+.{digits}f}%" if m_ns else "n/a"


def bench_delta(kind: str, m_ns: float, m_aq: float) -> str:
    if kind == "points":
        return f"{100 * (m_aq - m_ns):+.2f} pt"
    return relative(m_ns, m_aq, 1)


def c_delta(kind: str, m_ns: float, m_aq: float) -> str:
    if kind == "pct_points":
        return f"{m_aq - m_ns:+.1f} pt"
    if kind == "queue":
        return f"{m_aq - m_ns:+.2f} ({relative(m_ns, m_aq, 0)})" if m_ns else "n/a"
    return relative(m_ns, m_aq, 0)


def metric_cells(sel: list[dict], key: str, fmt: str, kind: str, delta) -> tuple[list[str], bool] | None:
    """One metric over the rows `sel`: the cells ns-2 mean ± sd, aqmlab mean ± sd, Δ (as `delta` writes
    it), tolerance, and whether the two agree; None unless both simulators have rows."""
    both = compared(sel, key, kind)
    if both is None:
        return None
    m_ns, sd_ns, m_aq, sd_aq, ok, tol = both
    return [mean_pm_sd(fmt, m_ns, sd_ns), mean_pm_sd(fmt, m_aq, sd_aq), delta(kind, m_ns, m_aq), tol], ok


def table(rows: list[dict], aqms: list[str]) -> tuple[list[list[str]], int]:
    """Table cells (header first) and the number of failed checks."""
    head = ["AQM", "metric", "ns-2.35 mean ± sd", "aqmlab mean ± sd", "Δ", "tolerance", "verdict"]
    out, failed = [head], 0
    for aqm in aqms:
        sel = [r for r in rows if r.get("part", "bench") == "bench" and r["aqm"] == aqm]
        for key, label, fmt, kind in METRICS:
            if (compared_cells := metric_cells(sel, key, fmt, kind, bench_delta)) is None:
                continue
            cells, ok = compared_cells
            failed += not ok
            out.append([aqm.upper(), label, *cells, "ok" if ok else "DIFFERS"])
    return out, failed


def table_c(rows: list[dict], ns: list[int], aqms: list[str]) -> tuple[list[list[str]], int]:
    """Study C table cells (header first) and the number of failed checks."""
    head = [
        "N",
        "AQM",
        "metric",
        "paper",
        "ns-2.35 mean ± sd",
        "aqmlab mean ± sd",
        "Δ",
        "tolerance",
        "verdict",
    ]
    out, failed = [head], 0
    for n in ns:
        for aqm in aqms:
            sel = [r for r in rows if r.get("part") == "c" and r["aqm"] == aqm and r["n"] == n]
            for key, label, fmt, kind, pidx in C_METRICS:
                if (compared_cells := metric_cells(sel, key, fmt, kind, c_delta)) is None:
                    continue
                cells, ok = compared_cells
                failed += not ok
                paper = fmt.format(PAPER_C[aqm][n][pidx]) if pidx is not None and aqm in PAPER_C else "-"
                result = "info" if kind == "info" else ("ok" if ok else "DIFFERS")
                out.append([str(n), aqm.upper(), label, paper, *cells, result])
    return out, failed


def table_cause(rows: list[dict], ns: list[int]) -> list[list[str]]:
    """DT with slow-start restart switched off in both simulators (ns-2 `slow_start_restart_ 0`, aqmlab
    `tcp.slow_start_restart = false`): the two must still agree."""
    head = ["N", "metric", "ns-2.35 ssr off", "aqmlab ssr off", "verdict"]
    out = [head]
    for n in ns:
        sel = [r for r in rows if r.get("part") == "c" and r["aqm"] == "dt" and r["n"] == n]
        by = {sim: [r for r in sel if r["simulator"] == sim] for sim in (NS2_NO_SSR, AQMLAB_NO_SSR)}
        if not all(by.values()):
            continue
        for key, label, fmt, kind, _ in C_METRICS:
            cols = []
            for sim in (NS2_NO_SSR, AQMLAB_NO_SSR):
                m, sd = mean_sd([r[key] for r in by[sim]])
                cols.append(mean_pm_sd(fmt, m, sd))
            ok, tol = verdict(kind, [r[key] for r in by[NS2_NO_SSR]], [r[key] for r in by[AQMLAB_NO_SSR]])
            out.append(
                [str(n), label, *cols, "info" if kind == "info" else f"{'ok' if ok else 'DIFFERS'} ({tol})"]
            )
    return out


def render_text(cells: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    lines = []
    for k, r in enumerate(cells):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(cells: list[list[str]], meta: str, title: str) -> str:
    lines = [title, "", meta, ""]
    lines.append("| " + " | ".join(cells[0]) + " |")
    lines.append("|" + "---|" * len(cells[0]))
    lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
    return "\n".join(lines) + "\n"


def run_bench_part(args: argparse.Namespace, bench: Path) -> list[dict]:
    rows = []
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
    return rows


def run_c_part(args: argparse.Namespace, bench: Path) -> list[dict]:
    rows = []
    for n in args.c_n:
        for aqm in args.c_aqm:
            for seed in range(1, args.c_seeds + 1):
                for sim in ("ns-2.35", "aqmlab"):
                    if sim == "ns-2.35":
                        r = run_ns2_c(aqm, n, seed, args.c_buffer, args.ns)
                    else:
                        r = run_aqmlab_c(bench, aqm, n, seed, args.c_buffer)
                    rows.append(r)
                    print(
                        f"{r['simulator']:8s} C N={n:<4d} {aqm:4s} seed {seed}: "
                        f"q {r['q_mean']:.2f} ± {r['q_std']:.2f} "
                        f"thr {r['throughput']:.1f}% drops {r['drop_rate']:.3f}% ({r['wall_s']:.1f} s)",
                        file=sys.stderr,
                        flush=True,
                    )
    for n in args.c_cause:
        for seed in range(1, args.c_seeds + 1):
            for r in (
                run_ns2_c_no_restart(n, seed, args.c_buffer, args.ns),
                run_aqmlab_c(
                    bench, "dt", n, seed, args.c_buffer, AQMLAB_NO_SSR, "tcp.slow_start_restart=false"
                ),
            ):
                rows.append(r)
                print(
                    f"{r['simulator']} C N={n:<4d} dt   seed {seed}: q {r['q_mean']:.2f} ± {r['q_std']:.2f} "
                    f"thr {r['throughput']:.1f}% drops {r['drop_rate']:.3f}% ({r['wall_s']:.1f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--part", choices=["all", "bench", "c"], default="all", help="which comparison (default all)"
    )
    ap.add_argument("--aqm", nargs="+", default=list(AQMLAB_QUEUES), choices=list(AQMLAB_QUEUES))
    ap.add_argument("--seeds", type=int, default=5, help="bench: seeds 1..S in each simulator (default 5)")
    ap.add_argument("--n", type=int, default=100, help="bench: flows (default 100)")
    ap.add_argument("--duration", type=float, default=60.0, help="bench: simulated seconds (default 60)")
    ap.add_argument("--c-aqm", nargs="+", default=list(C_QUEUES), choices=list(C_QUEUES))
    ap.add_argument("--c-n", nargs="+", type=int, default=list(C_N), choices=list(C_N), help="study C scales")
    ap.add_argument(
        "--c-seeds", type=int, default=3, help="study C: seeds 1..S in each simulator (default 3)"
    )
    ap.add_argument("--c-buffer", type=int, default=90, help="study C: A->B buffer, packets (default 90)")
    ap.add_argument(
        "--c-cause",
        nargs="*",
        type=int,
        default=[10, 100],
        choices=list(C_N),
        help="study C: N values for the DT cause check with ns-2's slow_start_restart_ off (default 10 100)",
    )
    ap.add_argument("--from-jsonl", type=Path, default=None, help="rebuild the tables from saved runs")
    ap.add_argument("--bench", default=None, help="aqmlab-bench binary")
    ap.add_argument("--ns", default="ns", help="ns-2 binary")
    ap.add_argument("--out", type=Path, default=RESULTS / "compare_ns2.md", help="Markdown table")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any check fails")
    args = ap.parse_args(argv)
    if args.seeds < 1 or args.c_seeds < 1:
        ap.error("--seeds and --c-seeds must be at least 1")

    t0 = time.perf_counter()
    rows: list[dict] = []
    if args.from_jsonl:
        rows = [json.loads(ln) for ln in args.from_jsonl.read_text(encoding="utf-8").splitlines() if ln]
    else:
        bench = find_bench(args.bench, "compare_ns2")
        if args.part in ("all", "bench"):
            rows += run_bench_part(args, bench)
        if args.part in ("all", "c"):
            rows += run_c_part(args, bench)
    elapsed = time.perf_counter() - t0

    sections, failed_all = [], 0
    if any(r.get("part", "bench") == "bench" for r in rows) and args.part in ("all", "bench"):
        cells, failed = table(rows, args.aqm)
        checks = len(cells) - 1
        seeds = max(r["seed"] for r in rows if r.get("part", "bench") == "bench")
        meta = (
            f"N = {args.n} flows, {args.duration:g} s simulated, metrics over [10 s, {args.duration:g} s], "
            f"seeds 1..{seeds} in each simulator (sd = seed-to-seed standard deviation). "
            f"{checks - failed} of {checks} checks pass."
        )
        sections.append(("# aqmlab vs ns-2.35 — BENCH-DUMBBELL", cells, meta))
        failed_all += failed
    if any(r.get("part") == "c" for r in rows) and args.part in ("all", "c"):
        cells, failed = table_c(rows, args.c_n, args.c_aqm)
        checks = sum(1 for c in cells[1:] if c[-1] != "info")
        seeds = max(r["seed"] for r in rows if r.get("part") == "c")
        meta = (
            f"Study C (Chrost & Chydzinski), buffer {args.c_buffer} packets, 100 s simulated, metrics over "
            f"[30 s, 100 s], queue sampled every 0.1 s; seeds 1..{seeds} in each simulator at every N "
            "(sd = seed-to-seed standard deviation). **paper** = the published ns-2.33 value "
            "(docs/studies.md#c-tables; one run of the authors' own set-up, not a target for either "
            "simulator here). Tolerances: throughput ±3 points; queue mean/std and drop rate "
            "±max(15 %, 2 sd(ns-2)), queue metrics at least ±1 packet; CoV is reported only. "
            f"{checks - failed} of {checks} checks pass."
        )
        sections.append(("## aqmlab vs ns-2.35 — study C dumbbell", cells, meta))
        failed_all += failed
        cause = table_cause(rows, args.c_cause)
        if len(cause) > 1:
            meta = (
                "Slow-start restart check (DT, same seeds): ns-2's one-way TCP keeps its retransmit timer "
                "running after everything is acknowledged, and `timeout()` with no outstanding data and "
                "`slow_start_restart_` true (the default) sets cwnd to 1 before every file that follows an "
                "idle period of at least one RTO. aqmlab models the same (`tcp.slow_start_restart`, on by "
                "default; the tables above). Here both simulators run with it switched off and must still "
                "agree. Not counted in the totals above."
            )
            sections.append(("### Study C cause check: slow-start restart after idle", cause, meta))
    md = []
    for title, cells, meta in sections:
        print(render_text(cells))
        print(meta)
        md.append(render_markdown(cells, meta, title))
    footer = f"Generated by `validation/compare_ns2.py` in {elapsed:.0f} s."
    print(footer)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(md) + "\n" + footer + "\n", encoding="utf-8")
    if not args.from_jsonl:
        raw = args.out.with_suffix(".jsonl")
        raw.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"wrote {args.out} and {raw}", file=sys.stderr)
    if any(math.isnan(r["q_mean"]) for r in rows):
        print("warning: a run has no queue samples", file=sys.stderr)
    return 1 if (args.strict and failed_all) else 0


if __name__ == "__main__":
    sys.exit(main())
