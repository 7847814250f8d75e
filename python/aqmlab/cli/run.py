"""`aqmlab run SCENARIO.toml`: run a scenario, write its run folder and print a summary of its tables."""

from __future__ import annotations

import argparse
import hashlib
import math
import re
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from aqmlab import api
from aqmlab.cli.common import MAX_LINK_ROWS, LateProgress, fmt_secs, load, report_table, stdout_console, warn

#: Runs shorter than this (wall time) never show a progress bar.
PROGRESS_AFTER_S = 2.0


class _LazyProgress(LateProgress):
    """A progress bar on simulated time that appears only once a run has taken PROGRESS_AFTER_S."""

    def __init__(self, total_s: float, enabled: bool) -> None:
        self.total = total_s
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.task = None

    def __call__(self, sim_s: float) -> None:
        if self.bar is None:
            if not self.enabled or time.perf_counter() - self.t0 < PROGRESS_AFTER_S:
                return
            self.bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                TextColumn("{task.completed:.1f}/{task.total:.1f} s simulated, {task.fields[wall]} wall"),
                console=Console(stderr=True),
                transient=True,
            )
            wall = f"{time.perf_counter() - self.t0:.0f} s"
            self.task = self.bar.add_task("run", total=self.total, completed=sim_s, wall=wall)
            self.bar.start()
        self.bar.update(self.task, completed=sim_s, wall=f"{time.perf_counter() - self.t0:.0f} s")


def main(args: argparse.Namespace) -> int:
    path = load(args.scenario)
    # Checks the scenario first (fast, and gives the duration for the progress bar).
    desc = api.validate(path, seed=args.seed, set=args.overrides, max_memory=args.max_memory)
    warn(desc["warnings"])
    out_dir = (
        Path(args.out) if args.out else Path("results") / _default_folder(desc, args.scenario, args.overrides)
    )
    with _LazyProgress(desc["duration_s"], enabled=not args.quiet) as progress:
        # Written by api.run, so that pair records stream into the run folder as the run goes.
        result = api.run(
            path,
            seed=args.seed,
            set=args.overrides,
            progress=progress,
            out=out_dir,
            max_memory=args.max_memory,
        )
    if args.quiet:
        print(out_dir)
        return 0
    out = stdout_console()
    print_summary(result, out)
    out.print(Text(f"Run folder: {out_dir}", style="bold"))
    return 0


def _default_folder(summary: dict, scenario_path: str, overrides: list[str]) -> str:
    """`<name>-seed<N>`, and with overrides `-<6 hex digits of their sha256>`, so that runs of one scenario
    with other overrides do not replace each other's folder (the same overrides, in order, give the same
    folder)."""
    name = summary.get("name") or Path(scenario_path).stem
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "run"
    tag = f"-{hashlib.sha256(chr(10).join(overrides).encode()).hexdigest()[:6]}" if overrides else ""
    return f"{name}-seed{summary['seed']}{tag}"


def print_summary(result: api.RunResult, out: Console) -> None:
    """Run facts, the busiest links and the flow classes (from the rows the engine returned: printing
    needs neither pandas nor pyarrow)."""
    s = result.summary
    window = s["end_s"] - s["warmup_s"]
    facts = Table.grid(padding=(0, 2))
    facts.add_row("scenario", Text(f"{s['name'] or '(unnamed)'}  ({s['scenario_file']})"))
    facts.add_row("seed", str(s["seed"]))
    simulated = f"{fmt_secs(s['end_s'])}  (of {fmt_secs(s['duration_s'])})"
    if s.get("ended_by") == "pairs":
        simulated += "  ended by the stop condition ([stop] after_pairs)"
    facts.add_row("simulated", Text(simulated))
    facts.add_row(
        "warm-up",
        f"{fmt_secs(s['warmup_s'])}  (measured {fmt_secs(s['warmup_s'])} – {fmt_secs(s['end_s'])}, "
        f"{fmt_secs(window)})",
    )
    facts.add_row("events", f"{s['events']:,}")
    facts.add_row("wall time", f"{s['wall_s']:.3f} s")
    rate = s["link_forwards"] / s["wall_s"] if s["wall_s"] > 0 else math.inf
    facts.add_row("link forwards", f"{s['link_forwards']:,}  ({_si(rate)}/s wall)")
    facts.add_row("flows", str(s["flows"]))
    if s["overrides"]:
        facts.add_row("overrides", Text(" ".join(s["overrides"])))
    out.print(facts)
    out.print()
    out.print(link_table(result.records("links")))
    out.print()
    flows = result.records("flows")
    if flows:
        out.print(class_table(flows))
    responses = result.records("responses")
    if responses:
        out.print(response_table(responses, result.records("classes")))
    for line in generator_lines(result.records("generators")):
        out.print(line)


def link_table(links: list[dict]) -> Table:
    more = len(links) - MAX_LINK_ROWS
    caption = f"… and {more} more link directions (all in links.parquet)\n" if more > 0 else ""
    caption += (
        "drops o/e/n: buffer overflow / early (AQM) / early because the packet was not ECN-capable;"
        " queue: time-weighted mean ± std of waiting packets"
    )
    cols = [
        ("link", "left"),
        ("queue", "left"),
        ("util %", "right"),
        ("arrivals", "right"),
        ("drops o/e/n", "right"),
        ("marks", "right"),
        ("loss %", "right"),
        ("queue mean±std", "right"),
    ]
    t = report_table("Busiest links (after warm-up)", cols, caption=caption, caption_justify="left")
    top = sorted(links, key=lambda r: (r["utilization"], r["arrivals"]), reverse=True)[:MAX_LINK_ROWS]
    for row in top:
        t.add_row(
            Text(row["link"]),
            Text(row["queue"]),
            f"{100 * row['utilization']:.1f}",
            f"{row['arrivals']:,}",
            f"{row['drops_overflow']:,}/{row['drops_early']:,}/{row['drops_not_ect']:,}",
            f"{row['marks']:,}",
            f"{100 * row['loss_rate']:.2f}",
            f"{row['q_mean_pkts']:.1f}±{row['q_std_pkts']:.1f}",
        )
    return t


def class_table(flows: list[dict]) -> Table:
    cols = [
        ("class", "left"),
        ("kind", "left"),
        ("flows", "right"),
        ("goodput Mb/s", "right"),
        ("per flow Mb/s", "right"),
        ("retransmits", "right"),
        ("timeouts", "right"),
    ]
    t = report_table("Flow classes (after warm-up)", cols)
    agg: dict[str, dict] = {}  # by class, in order of first flow
    for f in flows:
        a = agg.setdefault(
            f["class"], {"kind": {}, "flows": 0, "goodput": 0.0, "retransmits": 0, "timeouts": 0}
        )
        a["kind"][f["kind"]] = None
        a["flows"] += 1
        a["goodput"] += f["goodput_bps"]
        a["retransmits"] += f["retransmits"]
        a["timeouts"] += f["timeouts"]
    for cls, row in agg.items():
        t.add_row(
            Text(str(cls)),
            Text("/".join(row["kind"])),
            f"{row['flows']:,}",
            f"{row['goodput'] / 1e6:.3f}",
            f"{row['goodput'] / 1e6 / row['flows']:.3f}",
            f"{row['retransmits']:,}",
            f"{row['timeouts']:,}",
        )
    return t


def response_table(responses: list[dict], classes: list[dict]) -> Table:
    t = report_table(
        "Response times (requests sent after the warm-up)",
        [
            (name, "left" if name == "class" else "right")
            for name in ("class", "pairs", "incomplete", "mean", "p10", "p50", "p90", "p99", "loss %")
        ],
        caption="times in ms (quantiles from 2.3%-wide bins); loss: HTTP loss, the class's packets dropped "
        "anywhere ÷ packets it sent",
        caption_justify="left",
    )
    loss = {c["class"]: c["loss_rate"] for c in classes}
    for row in responses:
        rate = loss.get(row["class"], math.nan)
        t.add_row(
            Text(str(row["class"])),
            f"{row['pairs']:,}",
            f"{row['incomplete']:,}",
            *(_ms(row[q]) for q in ("mean_s", "p10_s", "p50_s", "p90_s", "p99_s")),
            f"{100 * rate:.3f}" if math.isfinite(rate) else "–",
        )
    return t


def generator_lines(generators: list[dict]) -> list[Text]:
    lines = []
    for g in generators:
        started = g["connections_started"]
        per = g["pairs_planned"] / started if started else math.nan
        lines.append(
            Text(
                f"Generators: {g['generator']}: {started:,} connections started / "
                f"{g['connections_finished']:,} finished / {g['connections_open']:,} open at the end, "
                f"{per:.3f} pairs per connection; TCP (both ends, whole run): {g['retransmits']:,} "
                f"retransmissions, {g['timeouts']:,} timeouts"
            )
        )
    return lines


def _ms(s: float) -> str:
    return f"{1e3 * s:.1f}" if math.isfinite(s) else "–"


def _si(x: float) -> str:
    if not math.isfinite(x):
        return "∞"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.2f} {unit}"
    return f"{x:.0f}"
