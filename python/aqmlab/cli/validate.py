"""`aqmlab validate SCENARIO.toml`: check a scenario and describe it (the model, its link directions and
its resource estimate) without running it."""

from __future__ import annotations

import argparse

from rich.table import Table
from rich.text import Text

from aqmlab.cli.common import MAX_LINK_ROWS, fmt_rate, fmt_secs, load, report_table, stdout_console, warn
from aqmlab.scenario import validate


def main(args: argparse.Namespace) -> int:
    desc = validate(load(args.scenario), seed=args.seed, set=args.overrides, max_memory=args.max_memory)
    warn(desc["warnings"])
    out = stdout_console()
    ok = f"OK, {len(desc['warnings'])} warning(s) (on stderr)" if desc["warnings"] else "OK"
    style = "bold yellow" if desc["warnings"] else "bold green"
    out.print(Text(f"{args.scenario}: {ok}", style=style), soft_wrap=True)
    facts = Table.grid(padding=(0, 2))
    facts.add_row("name", Text(desc["name"] or "(none)"))
    facts.add_row("seed", str(desc["seed"]))
    facts.add_row("duration", fmt_secs(desc["duration_s"]))
    facts.add_row("warm-up", fmt_secs(desc["warmup_s"]))
    facts.add_row("nodes", str(desc["nodes"]))
    facts.add_row("link directions", str(len(desc["links"])))
    facts.add_row("flows", str(desc["flows"]))
    facts.add_row("classes", Text(", ".join(desc["classes"]) or "(none)"))
    out.print(facts)
    columns = (("link", "left"), ("rate", "right"), ("delay", "right"), ("queue", "left"))
    t = report_table("Link directions", columns)
    for link in desc["links"][:MAX_LINK_ROWS]:
        t.add_row(
            Text(link["link"]), fmt_rate(link["rate_bps"]), fmt_secs(link["delay_s"]), Text(link["queue"])
        )
    out.print(t)
    if len(desc["links"]) > MAX_LINK_ROWS:
        out.print(f"… and {len(desc['links']) - MAX_LINK_ROWS} more link directions")
    out.print(estimate_table(desc["estimate"], desc["max_memory"]))
    return 0


def estimate_table(estimate: dict, limit: int) -> Table:
    """The resource estimate: items and memory of each table (and the file of each streamed one)."""
    columns = (
        ("table", "left"),
        ("items", "right"),
        ("memory", "right"),
        ("file", "right"),
        ("set by", "left"),
    )
    t = report_table(f"Resource estimate (memory limit {_bytes(limit)})", columns)
    for part in estimate["parts"]:
        file = _bytes(part["file_bytes"]) if part["streamed"] else ""
        t.add_row(part["what"], f"{part['items']:,}", _bytes(part["bytes"]), file, Text(part["setting"]))
    t.add_row("total", "", _bytes(estimate["memory_bytes"]), _bytes(estimate["file_bytes"]), "", style="bold")
    return t


def _bytes(n: float) -> str:
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"
