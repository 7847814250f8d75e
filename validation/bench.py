"""BENCH-DUMBBELL-N speed benchmark of aqmlab, optionally side by side with ns-2.35.

    python validation/bench.py [--duration S] [--repeat K] [--json FILE]
    python validation/bench.py --compare [--repeat K] [--json FILE] [--markdown FILE]

Scenarios (docs/bench.md#bench-dumbbell-n): drop-tail at N = 10, 100, 1000; RED and PI at N = 100 (and,
aqmlab alone, PIE, CoDel, FQ-CoDel, COBALT, CUBIC and DCTCP for the per-packet costs); with
``--compare`` also drop-tail at N = 100 with 300 s simulated. Drop-tail also runs at N = 30, 300 and
3000 for the "scaling with N" table and plot (``bench-scaling.png``): how forwards per second fall as
the flows' state outgrows the caches (ns-2 too with ``--compare``, up to N = 1000). Each run is one
``aqmlab-bench`` process (``scenarios/bench-dumbbell.toml`` plus overrides) timed from outside, like
the ``ns`` process that ``validation/ns2/run_ns2.py`` times: the wall column is whole-process wall
time, set-up included, for both simulators. Peak RSS comes from ``/usr/bin/time -v`` when it exists
(else from the program). With ``--repeat K`` the runs go in K rounds of every scenario, and with
``--compare`` aqmlab and ns-2 alternate run by run, so machine noise hits all alike; the speed and
accuracy targets are judged from the numbers measured in that run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from aqmlab_bench import find_bench

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "bench-dumbbell.toml"
RESULTS_MD = ROOT / "validation" / "results" / "bench.md"
TIME_BIN = "/usr/bin/time"

sys.path.insert(0, str(ROOT / "validation" / "ns2"))
import run_ns2  # noqa: E402

#: docs/bench.md's RED: gentle, min_th 100, max_th 300, max_p 0.1, w_q 0.002, packet mode, drop.
RED = (
    '{kind="red", limit=1000, queue_in_bytes=false, bytes=false, thresh=100, maxthresh=300, '
    "linterm=10, q_weight=0.002, gentle=true, ecn=false}"
)
#: docs/bench.md's PI: q_ref 200 packets, a and b at their (ns-2) defaults, sampling at 170 Hz, drop.
PI = '{kind="pi", limit=1000, qref=200, w=170, ecn=false}'
DT = '{kind="droptail", limit=1000}'
#: The modern disciplines at their own defaults (docs/aqm.md), with docs/bench.md's 1000-packet buffer;
#: aqmlab only (ns-2.35 has none of them), for the per-packet cost against drop-tail.
MODERN = {
    "PIE": '{kind="pie", limit=1000}',
    "CoDel": '{kind="codel", limit=1000}',
    "FQ-CoDel": '{kind="fq_codel", limit=1000}',
    "COBALT": '{kind="cobalt", limit=1000}',
    "FQ-PIE": '{kind="fq_pie", limit=1000}',
    "DualPI2": '{kind="dualpi2", limit=1000}',
}
QUEUES = {"DT": DT, "RED": RED, "PI": PI, **MODERN}
#: Congestion controls beside NewReno, over drop-tail at N = 100 (DCTCP and Prague with ECN on, Prague
#: sending ECT(1), as they require: drop-tail never marks, so this measures their per-ACK accounting and
#: Prague's pacing timer, not their response to marks).
CONTROLLERS = ("cubic", "dctcp", "prague")
CC_NAMES = {
    "newreno": "NewReno",
    "cubic": "CUBIC",
    "dctcp": "DCTCP (ECN)",
    "prague": "Prague (ECT(1), paced)",
}

#: Targets of the comparison (docs/bench.md#targets).
SPEEDUP_TARGETS = {("DT", 100, 300.0): 5.0, ("DT", 1000, 60.0): 20.0}
#: Link forwards per whole-process wall-second, judged on every drop-tail scenario.
FORWARDS_TARGET = 10e6
GOODPUT_TOL = 0.03
QMEAN_TOL = 0.15
#: ns-2.35's drop-tail wall time on docs/bench.md's reference machine ("a machine of this kind"), 60 s
#: simulated, by N: the yardstick for how fast the machine ran during a comparison.
NS2_REFERENCE_WALL_S = {10: 0.68, 100: 1.29, 1000: 10.45}
#: Drop-tail N beyond docs/bench.md's three, for the scaling table only (no targets). ns-2 runs up to
#: SCALING_NS2_MAX_N: at N = 3000 it takes minutes.
SCALING_EXTRA_N = (30, 300, 3000)
SCALING_NS2_MAX_N = 1000
#: The scaling plot, written beside the Markdown report.
SCALING_PNG_NAME = "bench-scaling.png"


@dataclass
class Scenario:
    queue: str  # a key of QUEUES
    n: int
    duration: float
    cc: str = "newreno"

    @property
    def name(self) -> str:
        """The queue, and the congestion control when it is not NewReno."""
        return self.queue if self.cc == "newreno" else f"{self.queue}, {CC_NAMES[self.cc]}"

    @property
    def label(self) -> str:
        cc = "" if self.cc == "newreno" else f" {self.cc}"
        return f"{self.queue}-{self.n}{cc}" + ("" if self.duration == 60 else f" ({self.duration:g} s)")

    def aqmlab_args(self) -> list[str]:
        args = [
            f"dumbbell.pairs={self.n}",
            f"duration={self.duration:g}",
            f"dumbbell.queue={QUEUES[self.queue]}",
        ]
        if self.cc != "newreno":
            args.append(f'tcp.cc="{self.cc}"')
        if self.cc in ("dctcp", "prague"):
            args.append("tcp.ecn=true")
        if self.cc == "prague":
            args.append('tcp.ecn_codepoint="ect1"')
        return args

    @property
    def ns2_queue(self) -> str:
        return self.queue.lower()


@dataclass
class Measured:
    """One simulator's result for one scenario (wall time: median of the repeats)."""

    runs: list[dict] = field(default_factory=list)

    @property
    def first(self) -> dict:
        return self.runs[0]

    @property
    def wall_s(self) -> float:
        return statistics.median(r["wall_s"] for r in self.runs)

    @property
    def cpu_s(self) -> float:
        return statistics.median(r["cpu_s"] for r in self.runs)

    @property
    def forwards_per_s(self) -> float:
        """Link forwards per wall-second at the median wall time (every run forwards the same packets)."""
        return self.get("link_forwards") / self.wall_s

    @property
    def peak_rss_mb(self) -> float:
        return max(r["peak_rss_mb"] for r in self.runs)

    def get(self, key: str) -> float:
        return self.first.get(key, float("nan"))


def _time_v_rss(stderr: str) -> float | None:
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return int(m.group(1)) / 1024.0 if m else None


def _time_v_cpu(stderr: str) -> float | None:
    """User + system CPU seconds from GNU time -v output."""
    u = re.search(r"User time \(seconds\): ([\d.]+)", stderr)
    s = re.search(r"System time \(seconds\): ([\d.]+)", stderr)
    return float(u.group(1)) + float(s.group(1)) if u and s else None


def timed(cmd: list[str]) -> tuple[subprocess.CompletedProcess, dict]:
    """Runs ``cmd`` as one process timed from outside: the finished process and its cost, ``wall_s``
    (whole process), ``cpu_s`` (user + system) and ``peak_rss_mb`` (both from ``/usr/bin/time -v`` when it
    exists, else NaN and None)."""
    use_time = os.access(TIME_BIN, os.X_OK)
    full = [TIME_BIN, "-v", *cmd] if use_time else cmd
    t0 = time.perf_counter()
    proc = subprocess.run(full, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    cpu = _time_v_cpu(proc.stderr) if use_time else None
    rss = _time_v_rss(proc.stderr) if use_time else None
    return proc, {"wall_s": wall, "cpu_s": cpu if cpu is not None else float("nan"), "peak_rss_mb": rss}


def run_aqmlab(binary: Path, sc: Scenario) -> dict:
    """One aqmlab-bench process; its JSON plus whole-process wall_s and peak_rss_mb."""
    cmd = [str(binary), str(SCENARIO), *sc.aqmlab_args()]
    proc, cost = timed(cmd)
    if proc.returncode != 0:
        err = proc.stderr.split("\tCommand being timed:")[0].strip()
        raise RuntimeError(f"aqmlab-bench exited with {proc.returncode}: {err}")
    res = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
    res["engine_wall_s"] = res.pop("wall_s")  # the run loop alone, as the binary measured it
    res["engine_forwards_per_s"] = res.pop("forwards_per_s")
    res["engine_peak_rss_mb"] = res["peak_rss_mb"]
    if cost["peak_rss_mb"] is not None:
        res["peak_rss_mb"] = round(cost["peak_rss_mb"], 1)
    res["cpu_s"] = cost["cpu_s"]
    res["wall_s"] = round(cost["wall_s"], 3)
    res["forwards_per_s"] = res["link_forwards"] / cost["wall_s"]
    res["command"] = " ".join(cmd)
    return res


def run_ns2_once(sc: Scenario) -> dict:
    res = run_ns2.run(script="bench", n=sc.n, queue=sc.ns2_queue, seed=1, duration=sc.duration)
    res["link_forwards"] = res.get("link_pkts_total", float("nan"))
    res["cpu_s"] = res.get("user_s", float("nan")) + res.get("sys_s", float("nan"))
    res["forwards_per_s"] = res["link_forwards"] / res["wall_s"]
    return res


def scenarios(duration: float, compare: bool) -> list[Scenario]:
    out = [Scenario("DT", n, duration) for n in (10, 100, 1000)]
    out += [Scenario("RED", 100, duration), Scenario("PI", 100, duration)]
    if compare:
        out.append(Scenario("DT", 100, 300.0))
    return out


def aqmlab_only(duration: float) -> list[Scenario]:
    """The modern disciplines and the other congestion controls at N = 100: aqmlab alone."""
    return [Scenario(q, 100, duration) for q in MODERN] + [
        Scenario("DT", 100, duration, cc) for cc in CONTROLLERS
    ]


def rel(a: float, b: float) -> float:
    return (a - b) / b if b else float("nan")


def fmt_int(x: float) -> str:
    return f"{int(x):,}" if x == x else "–"


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


# ----- tables ----------------------------------------------------------------------------------------


def aqmlab_rows(results: list[tuple[Scenario, Measured]]) -> tuple[list[str], list[list[str]]]:
    head = [
        "scenario",
        "N",
        "sim s",
        "wall s",
        "peak RSS MB",
        "events",
        "link forwards",
        "forwards / wall s",
        "goodput Mb/s",
        "drops",
        "q mean pkts",
        "q std pkts",
    ]
    rows = []
    for sc, m in results:
        rows.append(
            [
                sc.name,
                str(sc.n),
                f"{sc.duration:g}",
                f"{m.wall_s:.3f}",
                f"{m.peak_rss_mb:.1f}",
                fmt_int(m.get("events")),
                fmt_int(m.get("link_forwards")),
                f"{m.forwards_per_s / 1e6:.2f} M",
                f"{m.get('goodput_mbps'):.2f}",
                fmt_int(m.get("drops")),
                f"{m.get('q_mean_pkts'):.1f}",
                f"{m.get('q_std_pkts'):.1f}",
            ]
        )
    return head, rows


def per_packet_rows(
    results: list[tuple[Scenario, Measured]], key: str, forwards_key: str, dur: float
) -> tuple[list[str], list[list[str]]]:
    """Wall per link forward of every scenario at N = 100 and `dur` simulated, relative to drop-tail with
    NewReno."""
    at_100 = [(sc, m) for sc, m in results if sc.n == 100 and sc.duration == dur]
    base = next((m for sc, m in at_100 if sc.queue == "DT" and sc.cc == "newreno"), None)
    head = ["queue, TCP (N = 100)", "wall per forward ns", "ratio to DT, NewReno"]
    rows: list[list[str]] = []
    if base is None:
        return head, rows
    cost_base = _cost(base, key, forwards_key)
    for sc, m in at_100:
        c = _cost(m, key, forwards_key)
        rows.append([f"{sc.queue}, {CC_NAMES[sc.cc]}", f"{c * 1e9:.0f}", f"{c / cost_base:.3f}"])
    return head, rows


def _cost(m: Measured, key: str, forwards_key: str) -> float:
    wall = statistics.median(r[key] for r in m.runs)
    return wall / m.get(forwards_key)


def compare_rows(
    results: list[tuple[Scenario, Measured, Measured]],
) -> tuple[list[str], list[list[str]], list[tuple[str, bool]]]:
    head = [
        "scenario",
        "N",
        "sim s",
        "aqmlab wall s",
        "ns-2 wall s",
        "speed-up",
        "CPU s aqmlab / ns-2",
        "CPU speed-up",
        "aqmlab RSS MB",
        "ns-2 RSS MB",
        "goodput aqmlab / ns-2 Mb/s",
        "Δ goodput",
        "drops aqmlab / ns-2",
        "q mean aqmlab / ns-2",
        "Δ q mean",
    ]
    rows = []
    checks: list[tuple[str, bool]] = []
    for sc, a, n in results:
        speedup = n.wall_s / a.wall_s
        dg = rel(a.get("goodput_mbps"), n.get("goodput_mbps"))
        dq = rel(a.get("q_mean_pkts"), n.get("q_mean_pkts"))
        target = SPEEDUP_TARGETS.get((sc.queue, sc.n, sc.duration))
        if target is not None:
            text = f"{sc.label}: speed-up ≥ {target:g}× (measured {speedup:.1f}×)"
            checks.append((text, speedup >= target))
        if sc.queue == "DT":
            fps = a.forwards_per_s
            text = f"{sc.label}: ≥ {FORWARDS_TARGET / 1e6:g} M link forwards per wall-second"
            checks.append((f"{text} (measured {fps / 1e6:.2f} M)", fps >= FORWARDS_TARGET))
        checks.append((f"{sc.label}: goodput within 3% (measured {dg:+.2%})", abs(dg) <= GOODPUT_TOL))
        checks.append((f"{sc.label}: mean queue within 15% (measured {dq:+.1%})", abs(dq) <= QMEAN_TOL))
        rows.append(
            [
                sc.queue,
                str(sc.n),
                f"{sc.duration:g}",
                f"{a.wall_s:.3f}",
                f"{n.wall_s:.3f}",
                f"{speedup:.1f}×",
                f"{a.cpu_s:.2f} / {n.cpu_s:.2f}",
                f"{n.cpu_s / a.cpu_s:.1f}×",
                f"{a.peak_rss_mb:.1f}",
                f"{n.peak_rss_mb:.1f}",
                f"{a.get('goodput_mbps'):.2f} / {n.get('goodput_mbps'):.2f}",
                f"{dg:+.2%}",
                f"{fmt_int(a.get('drops'))} / {fmt_int(n.get('drops'))}",
                f"{a.get('q_mean_pkts'):.1f} / {n.get('q_mean_pkts'):.1f}",
                f"{dq:+.1%}",
            ]
        )
    return head, rows, checks


def machine_rows(results: list[tuple[Scenario, Measured, Measured]]) -> tuple[list[str], list[list[str]]]:
    """How fast this machine ran, judged by ns-2 against docs/bench.md's reference timings, and aqmlab's
    forwards per second scaled by the same factor: an estimate (it assumes both simulators slow down
    alike on a loaded machine), never used for a verdict."""
    head = [
        "scenario",
        "ns-2 wall s here",
        "ns-2 wall s, reference machine",
        "machine slower by",
        "aqmlab forwards / wall s",
        "scaled to the reference machine",
    ]
    rows = []
    for sc, a, n in results:
        ref = NS2_REFERENCE_WALL_S.get(sc.n)
        if sc.queue != "DT" or sc.duration != 60 or ref is None:
            continue
        slower = n.wall_s / ref
        fps = a.forwards_per_s
        scaled = fps * slower
        rows.append(
            [
                sc.label,
                f"{n.wall_s:.3f}",
                f"{ref:.2f}",
                f"{slower:.2f}×",
                f"{fps / 1e6:.2f} M",
                f"{scaled / 1e6:.1f} M",
            ]
        )
    return head, rows


def scaling_rows(
    scaling: list[tuple[Scenario, Measured, Measured | None]],
) -> tuple[list[str], list[list[str]]]:
    """Per N: aqmlab's wall, forwards per second (also relative to the smallest N), wall per forward
    and peak RSS; with ns-2's run, its wall, forwards per second and the speed-up."""
    head = [
        "N",
        "aqmlab wall s",
        "forwards / wall s",
        "vs smallest N",
        "ns per forward",
        "peak RSS MB",
        "ns-2 wall s",
        "ns-2 forwards / wall s",
        "speed-up",
    ]
    rows = []
    first = None
    for sc, a, n in scaling:
        fps = a.forwards_per_s
        first = first or fps
        ns2 = ["–", "–", "–"]
        if n is not None:
            ns2 = [f"{n.wall_s:.3f}", f"{n.forwards_per_s / 1e6:.2f} M", f"{n.wall_s / a.wall_s:.1f}×"]
        rows.append(
            [
                str(sc.n),
                f"{a.wall_s:.3f}",
                f"{fps / 1e6:.2f} M",
                f"{fps / first:.2f}",
                f"{1e9 / fps:.0f}",
                f"{a.peak_rss_mb:.1f}",
                *ns2,
            ]
        )
    return head, rows


def plot_scaling(scaling: list[tuple[Scenario, Measured, Measured | None]], path: Path) -> None:
    """Forwards per wall-second against N, both simulators, with the 10 M target for reference."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ns = [sc.n for sc, _, _ in scaling]
    ax.plot(ns, [a.forwards_per_s for _, a, _ in scaling], "o-", label="aqmlab")
    ns2 = [(sc.n, n.forwards_per_s) for sc, _, n in scaling if n is not None]
    if ns2:
        ax.plot([k for k, _ in ns2], [v for _, v in ns2], "s-", label="ns-2.35")
    ax.axhline(FORWARDS_TARGET, color="grey", linestyle="--", linewidth=1, label="10 M target")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (flows on BENCH-DUMBBELL-N, drop-tail)")
    ax.set_ylabel("link forwards per wall-second")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def rich_table(title: str, head: list[str], rows: list[list[str]]) -> Table:
    t = Table(title=title, box=box.SIMPLE_HEAVY, title_justify="left")
    for i, h in enumerate(head):
        t.add_column(h, justify="left" if i == 0 else "right")
    for r in rows:
        t.add_row(*r)
    return t


def md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


# ----- main ------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds (default 60)")
    ap.add_argument("--repeat", type=int, default=1, metavar="K", help="runs per scenario; median wall time")
    ap.add_argument("--json", metavar="FILE", help="write every run's JSON here")
    ap.add_argument("--compare", action="store_true", help="also run ns-2.35, alternating with aqmlab")
    ap.add_argument("--markdown", metavar="FILE", default=None, help=f"(--compare) default {RESULTS_MD}")
    ap.add_argument("--bin", metavar="PATH", help="aqmlab-bench binary (default $CARGO_TARGET_DIR/release)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.duration <= 10:
        ap.error("--duration must exceed the 10 s warm-up")
    binary = find_bench(args.bin, "bench")
    if not binary.exists():
        print(f"bench: {binary} not found; run `make build`", file=sys.stderr)
        return 2
    console = Console(width=max(Console().width, 200))  # wide tables stay readable in logs and pipes
    scs = scenarios(args.duration, args.compare)
    extra = [Scenario("DT", n, args.duration) for n in SCALING_EXTRA_N]
    alone = aqmlab_only(args.duration)
    aq: list[tuple[Scenario, Measured]] = []
    both: list[tuple[Scenario, Measured, Measured]] = []
    scaling: list[tuple[Scenario, Measured, Measured | None]] = []
    everything = scs + alone + extra
    ns2_too = {
        sc.label: args.compare and sc not in alone and (sc in scs or sc.n <= SCALING_NS2_MAX_N)
        for sc in everything
    }
    runs = {sc.label: (Measured(), Measured()) for sc in everything}
    # Round k runs every scenario once, so a change in the shared machine's load between rounds hits
    # all scenarios alike and the ratios between them (per-packet costs, scaling) stay fair.
    for k in range(args.repeat):
        for sc in everything:
            a, n = runs[sc.label]
            console.print(f"[dim]{sc.label}: aqmlab run {k + 1}/{args.repeat}[/dim]")
            a.runs.append(run_aqmlab(binary, sc))
            if ns2_too[sc.label]:
                console.print(f"[dim]{sc.label}: ns-2 run {k + 1}/{args.repeat}[/dim]")
                n.runs.append(run_ns2_once(sc))
    for sc in everything:
        a, n = runs[sc.label]
        if sc.queue == "DT" and sc.cc == "newreno" and sc.duration == args.duration:
            scaling.append((sc, a, n if ns2_too[sc.label] else None))
        if sc in scs or sc in alone:
            aq.append((sc, a))
        if sc in scs and args.compare:
            both.append((sc, a, n))
    scaling.sort(key=lambda t: t[0].n)

    load = os.getloadavg()
    stamp = time.strftime("%Y-%m-%d %H:%M")
    context = (
        f"{stamp}, {os.cpu_count()} cores, load average {load[0]:.2f} at the end, "
        f"{args.repeat} run(s) per scenario (median wall time), seed 1"
    )
    console.print(f"\n[bold]BENCH-DUMBBELL-N[/bold] — {context}")
    head, rows = aqmlab_rows(aq)
    console.print(rich_table("aqmlab (whole-process wall time)", head, rows))
    md = [f"# BENCH-DUMBBELL-N — {context}", "", "## aqmlab", "", md_table(head, rows), ""]

    out = Path(args.markdown) if args.markdown else RESULTS_MD if args.compare else None
    sh, sr = scaling_rows(scaling)
    console.print(rich_table("scaling with N (drop-tail, whole process)", sh, sr))
    md += [
        "## Scaling with N",
        "",
        "Drop-tail, whole-process wall time. Forwards per wall-second fall as the N flows' state"
        " (links, counters, TCP ends) outgrows the core's caches; ns-2 runs up to"
        f" N = {SCALING_NS2_MAX_N}. No targets are judged here.",
        "",
        md_table(sh, sr),
        "",
    ]
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        png = out.with_name(SCALING_PNG_NAME)
        plot_scaling(scaling, png)
        md += [f"![forwards per wall-second against N]({png.name})", ""]

    ph, pr = per_packet_rows(aq, "engine_wall_s", "link_forwards", args.duration)
    console.print(rich_table("aqmlab per-packet cost (run loop wall ÷ link forwards)", ph, pr))
    md += ["## aqmlab per-packet cost (run-loop wall ÷ link forwards)", "", md_table(ph, pr), ""]

    if args.compare:
        ns_only = [(sc, n) for sc, _, n in both]
        nh, nr = per_packet_rows(ns_only, "loop_wall_s", "link_forwards", args.duration)
        console.print(rich_table("ns-2.35 per-packet cost (event-loop wall ÷ link packets)", nh, nr))
        md += ["## ns-2.35 per-packet cost (event-loop wall ÷ link packets)", "", md_table(nh, nr), ""]
        ch, cr, checks = compare_rows(both)
        console.print(
            rich_table("aqmlab vs ns-2.35 (speed-up = ns-2 wall ÷ aqmlab wall, whole process)", ch, cr)
        )
        for text, ok in checks:
            console.print(f"  {'[green]' if ok else '[red]'}{verdict(ok)}[/] — {text}")
        md += [
            "## aqmlab vs ns-2.35",
            "",
            "Speed-up = ns-2 wall ÷ aqmlab wall, both whole-process (median of the runs); CPU = user + sys"
            " seconds of the process, less sensitive to other load on the machine (not used for the"
            " verdicts); Δ = (aqmlab − ns-2) / ns-2.",
            "",
            md_table(ch, cr),
            "",
            "## Targets",
            "",
        ]
        md += [f"- **{verdict(ok)}** — {text}" for text, ok in checks]
        md.append("")
        mh, mr = machine_rows(both)
        if mr:
            title = "machine speed (ns-2 against docs/bench.md's reference; an estimate)"
            console.print(rich_table(title, mh, mr))
            md += [
                "## Machine speed",
                "",
                "ns-2's wall time here against the reference machine of docs/bench.md, and aqmlab's"
                " forwards per second scaled by the same factor: an estimate that assumes both simulators"
                " slow down alike when the shared machine is loaded. Not used for the verdicts above.",
                "",
                md_table(mh, mr),
                "",
            ]
    if out is not None:
        out.write_text("\n".join(md))
        console.print(f"\nwrote {out} and {SCALING_PNG_NAME} beside it")

    if args.json:
        records = [
            {**r, "bench": sc.label, "queue": sc.queue, "n": sc.n}
            for sc in everything
            for m in runs[sc.label]
            for r in m.runs
        ]
        Path(args.json).write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
