"""Cross-validate aqmlab's modern congestion controls and queue disciplines against ns-3.37.

Runs NS3-DUMBBELL (``scenarios/ns3-dumbbell.toml``; ns-3 side ``validation/ns3/dumbbell.cc``, built by
``validation/ns3/build.sh``; docs/validation-ns3.md) in both simulators for several seeds: two long-lived
flows of one congestion control (eight for NewReno) over a 50 Mb/s, 80-ms-RTT dumbbell whose bottleneck
runs the queue under test. Per configuration and metric it writes ns-3's mean ± sd, aqmlab's, the
difference and a verdict to ``validation/results/compare_ns3.md``, the raw runs (with the first flow's
window every 100 ms) to ``compare_ns3.jsonl`` and that window in both simulators (seed 1) to
``compare_ns3.png``.

    .venv/bin/python validation/compare_ns3.py              # every configuration, 3 seeds (~6 min)
    .venv/bin/python validation/compare_ns3.py --only cubic-codel --seeds 1

Metrics, measured over [warm-up, end] on both sides: ``goodput`` (payload delivered to the receivers,
Mb/s, all flows), ``jain`` (Jain's index of the flows' goodputs), ``q_mean`` (10-ms samples of the
packets waiting in the bottleneck's queue discipline), ``drop_pct`` and ``mark_pct`` (bottleneck drops and
CE marks per arrival, %), ``cwnd_mean`` (flow 0's window sampled every 100 ms, segments) and
``cuts_per_min`` (window reductions of flow 0 by more than 10 % between 100-ms samples, per minute: the
period of the window's saw-tooth). Verdict as in the ns-2 comparisons: goodput within 3 %, the other
metrics within 15 % of ns-3's mean or twice ns-3's seed-to-seed sd, whichever is larger (queue: at least
1 packet, rates: at least 0.05 points).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import aqmlab

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "ns3-dumbbell.toml"
NS3 = ROOT / "validation" / "ns3" / "build" / "dumbbell"
RESULTS = ROOT / "validation" / "results"
DURATION, WARMUP = 60.0, 20.0


@dataclass(frozen=True)
class Config:
    """One configuration: the controller, the ns-3 queue (``dumbbell.cc --queue``), ECN, and aqmlab's
    bottleneck queue, which states ns-3's defaults where aqmlab's differ (FQ-CoDel's quantum: ns-3 takes
    the device MTU, 1500 B)."""

    cc: str
    ns3_queue: str
    aqmlab_queue: str
    ecn: bool = False
    ect1: bool = False
    flows: int = 2
    limit: int = 1000


DT = '{ kind = "droptail", limit = 333 }'
CONFIGS = {
    # NewReno's saw-tooth at 2 flows would last 27 s: 8 flows give each several cycles in the window.
    "newreno-droptail": Config("newreno", "droptail", DT, flows=8, limit=333),
    "cubic-droptail": Config("cubic", "droptail", DT, limit=333),
    "cubic-codel": Config("cubic", "codel", '{ kind = "codel", limit = 1000 }'),
    "cubic-fq_codel": Config(
        "cubic", "fq_codel", '{ kind = "fq_codel", limit = 1000, quantum = 1500, ecn = false }'
    ),
    "cubic-pie": Config("cubic", "pie", '{ kind = "pie", limit = 1000 }'),
    # ns-3's FQ-PIE children run PIE without derandomisation (aqmlab's fq_pie follows Linux: on).
    "cubic-fq_pie": Config(
        "cubic", "fq_pie", '{ kind = "fq_pie", limit = 1000, quantum = 1500, derandomize = false }'
    ),
    "cubic-cobalt": Config("cubic", "cobalt", '{ kind = "cobalt", limit = 1000 }'),
    "cubic-codel-ecn": Config("cubic", "codel", '{ kind = "codel", limit = 1000, ecn = true }', ecn=True),
    # DCTCP sending ECT(0) against CoDel's Linux-style ce_threshold (every ECN-capable packet above 1 ms).
    "dctcp-codel_ce": Config(
        "dctcp", "codel_ce", '{ kind = "codel", limit = 1000, ecn = true, ce_threshold = "1ms" }', ecn=True
    ),
    "dctcp-fq_codel_l4s": Config(
        "dctcp",
        "fq_codel_l4s",
        '{ kind = "fq_codel", limit = 1000, quantum = 1500, ce_threshold = "1ms", l4s = true }',
        ecn=True,
        ect1=True,
    ),
}
# metric: (format, relative tolerance, absolute floor)
METRICS = {
    "goodput": ("{:.2f}", 0.03, 0.0),
    "jain": ("{:.3f}", 0.03, 0.0),
    "q_mean": ("{:.1f}", 0.15, 1.0),
    "drop_pct": ("{:.3f}", 0.15, 0.05),
    "mark_pct": ("{:.3f}", 0.15, 0.05),
    "cwnd_mean": ("{:.1f}", 0.15, 1.0),
    "cuts_per_min": ("{:.1f}", 0.15, 1.0),
}


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0


def window_stats(cwnd: np.ndarray, seconds: float) -> dict:
    """Mean of the 100-ms window samples of a measurement window `seconds` long, and reductions per
    minute."""
    cuts = int(np.sum(cwnd[1:] < 0.9 * cwnd[:-1]))
    return {"cwnd_mean": float(cwnd.mean()), "cuts_per_min": cuts * 60.0 / seconds}


def ns3_run(name: str, seed: int) -> dict:
    c = CONFIGS[name]
    args = [str(NS3), f"--cc={c.cc}", f"--queue={c.ns3_queue}", f"--seed={seed}", f"--flows={c.flows}"]
    args += [f"--limit={c.limit}", f"--ecn={int(c.ecn)}", f"--ect1={int(c.ect1)}"]
    args += [f"--duration={DURATION}", f"--warmup={WARMUP}"]
    started = time.perf_counter()
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    # ns-3 samples from t = 0.1 s: keep the samples at or after the warm-up.
    cwnd = np.array(out["cwnd"])[int(round(WARMUP / 0.1)) - 1 :]
    arrivals = out["arrivals"]
    return {
        "simulator": "ns-3.37",
        "config": name,
        "seed": seed,
        "goodput": sum(out["goodput_mbps"]),
        "jain": jain(out["goodput_mbps"]),
        "q_mean": out["q_mean_pkts"],
        "drop_pct": 100 * out["drops"] / arrivals,
        "mark_pct": 100 * out["marks"] / arrivals,
        **window_stats(cwnd, DURATION - WARMUP),
        "wall_s": time.perf_counter() - started,
        "cwnd_samples": [round(w, 2) for w in cwnd.tolist()],
    }


def aqmlab_overrides(c: Config) -> list[str]:
    """The ``--set`` overrides that turn scenarios/ns3-dumbbell.toml into configuration ``c``."""
    overrides = [f"tcp.cc={c.cc}", f"tcp.ecn={str(c.ecn).lower()}", f"dumbbell.queue={c.aqmlab_queue}"]
    overrides.append(f"dumbbell.pairs={c.flows}")
    if c.ect1:
        overrides.append('tcp.ecn_codepoint="ect1"')
    return overrides


def aqmlab_run(name: str, seed: int, duration: float = DURATION, warmup: float = WARMUP) -> dict:
    overrides = aqmlab_overrides(CONFIGS[name]) + [f"duration={duration}", f"measure.warmup={warmup}"]
    started = time.perf_counter()
    r = aqmlab.run(SCENARIO, seed=seed, set=overrides)
    wall = time.perf_counter() - started
    goodputs = [g / 1e6 for g in r.flows.sort_values("flow").goodput_bps]
    link = r.links.set_index("link").loc["A->B"]
    trace = r.cwnd_trace
    trace = trace[trace.flow == 0]
    # The window in force at each 100-ms sample: the last change at or before it.
    at = np.arange(warmup, duration + 1e-9, 0.1)
    idx = np.searchsorted(trace.t.to_numpy(), at, side="right") - 1
    cwnd = trace.cwnd.to_numpy()[idx]
    return {
        "simulator": "aqmlab",
        "config": name,
        "seed": seed,
        "goodput": sum(goodputs),
        "jain": jain(goodputs),
        "q_mean": float(link.q_mean_pkts),
        "drop_pct": 100 * link.drops / link.arrivals,
        "mark_pct": 100 * link.marks / link.arrivals,
        **window_stats(cwnd, duration - warmup),
        "wall_s": wall,
        "cwnd_samples": [round(w, 2) for w in cwnd.tolist()],
    }


def verdict(metric: str, ns3: list[float], aq: list[float]) -> str:
    _, rel, floor = METRICS[metric]
    m_ns, m_aq = statistics.fmean(ns3), statistics.fmean(aq)
    sd = statistics.stdev(ns3) if len(ns3) > 1 else 0.0
    return "ok" if abs(m_aq - m_ns) <= max(rel * abs(m_ns), 2 * sd, floor) else "**differs**"


def mean_sd(xs: list[float], fmt: str) -> str:
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{fmt.format(statistics.fmean(xs))} ± {fmt.format(sd)}"


def markdown(rows: list[dict], seeds: int) -> tuple[str, int, int]:
    lines = [
        "# aqmlab beside ns-3.37 on NS3-DUMBBELL",
        "",
        f"Written by `validation/compare_ns3.py` ({seeds} seeds per configuration; mean ± seed-to-seed sd). "
        "Scenario: docs/validation-ns3.md. Verdict: goodput within 3 %, other metrics within 15 % of "
        "ns-3's mean or 2 sd of ns-3's seeds (floors: 1 packet, 1 segment, 1 cut/min, 0.05 points).",
        "",
        "| configuration | metric | ns-3.37 | aqmlab | Δ | verdict |",
        "|---|---|---|---|---|---|",
    ]
    ok = total = 0
    for name in dict.fromkeys(r["config"] for r in rows):
        for metric, (fmt, _, _) in METRICS.items():
            ns3 = [r[metric] for r in rows if r["config"] == name and r["simulator"] == "ns-3.37"]
            aq = [r[metric] for r in rows if r["config"] == name and r["simulator"] == "aqmlab"]
            v = verdict(metric, ns3, aq)
            ok, total = ok + (v == "ok"), total + 1
            m_ns, m_aq = statistics.fmean(ns3), statistics.fmean(aq)
            delta = f"{100 * (m_aq - m_ns) / m_ns:+.0f} %" if m_ns else f"{m_aq - m_ns:+.3f}"
            lines.append(f"| {name} | {metric} | {mean_sd(ns3, fmt)} | {mean_sd(aq, fmt)} | {delta} | {v} |")
    lines += ["", f"{ok} of {total} cells agree.", ""]
    return "\n".join(lines), ok, total


def plot(rows: list[dict], names: list[str], path: Path) -> None:
    """Flow 0's window in both simulators, seed 1, one panel per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(names), 1, figsize=(9, 1.9 * len(names)), sharex=True, squeeze=False)
    t = np.arange(WARMUP, DURATION + 1e-9, 0.1)
    for ax, name in zip(axes[:, 0], names, strict=True):
        for sim in ("ns-3.37", "aqmlab"):
            run = next(r for r in rows if r["config"] == name and r["simulator"] == sim and r["seed"] == 1)
            ax.plot(t[: len(run["cwnd_samples"])], run["cwnd_samples"], lw=0.8, label=sim)
        ax.set_ylabel("cwnd (seg)")
        ax.set_title(name, fontsize=9)
    axes[0, 0].legend(loc="upper right", fontsize=8)
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument(
        "--only",
        nargs="+",
        choices=sorted(CONFIGS),
        help="configurations to run; the others' rows are kept from the last run's compare_ns3.jsonl",
    )
    ap.add_argument("--jobs", type=int, default=2, help="ns-3 runs at once")
    args = ap.parse_args()
    subprocess.run(["bash", str(ROOT / "validation" / "ns3" / "build.sh")], check=True)
    names = args.only or list(CONFIGS)
    jobs = [(n, s) for n in names for s in range(1, args.seeds + 1)]
    started = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        ns3_rows = list(pool.map(lambda job: ns3_run(*job), jobs))
    aq_rows = [aqmlab_run(*job) for job in jobs]
    print(f"{len(jobs)} runs per simulator in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    raw = RESULTS / "compare_ns3.jsonl"
    kept = []
    if args.only and raw.exists():
        kept = [r for r in map(json.loads, raw.read_text().splitlines()) if r["config"] not in names]
    order = list(CONFIGS)
    rows = sorted(kept + ns3_rows + aq_rows, key=lambda r: (order.index(r["config"]), r["simulator"]))
    RESULTS.mkdir(exist_ok=True)
    raw.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text, ok, total = markdown(rows, args.seeds)
    (RESULTS / "compare_ns3.md").write_text(text)
    plot(rows, list(dict.fromkeys(r["config"] for r in rows)), RESULTS / "compare_ns3.png")
    print(text)
    print(f"{ok}/{total} cells agree; wrote {RESULTS / 'compare_ns3.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
