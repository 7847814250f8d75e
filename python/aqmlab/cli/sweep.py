"""`aqmlab sweep SCENARIO.toml`: run a scenario over a grid of parameters and seeds (the work is in
:mod:`aqmlab.sweep`).

    aqmlab sweep SCENARIO.toml --grid key=v1,v2 [--zip key=a,b ...] [--set key=value ...] --seeds K
                 [--seed-list 1,5,9] [--jobs N] [--dask ADDRESS|local] [--out DIR] [--force]

Exit status 0 when every run is complete, 1 when some run failed, 2 for a bad definition, 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.progress import TextColumn
from rich.text import Text

from aqmlab import sweep
from aqmlab.cli.common import CliError, LateProgress, load, report_table, runs_progress, stdout_console, warn

EXIT_FAILED_RUNS = 1
#: Failed runs listed in the final report (all of them are in OUT/failed.json).
MAX_FAILED_LINES = 10


class _Bar(LateProgress):
    """A rich progress bar over the runs to simulate, with done / skipped / failed counts and ETA."""

    def __init__(self, enabled: bool) -> None:
        self.console = Console(stderr=True, highlight=False)
        self.enabled = enabled
        self.task = None
        self.counts = {"done": 0, "skipped": 0, "failed": 0}

    def __call__(self, kind: str, info: dict) -> None:
        if kind == "start":
            self.counts["skipped"] = info["skipped"]
            warn(info["warnings"])  # before the bar, and with --quiet too: as `aqmlab run` does
            if not self.enabled:
                return
            if info["cleaned"]:
                self.console.print(
                    f"removed {info['cleaned']} incomplete run folder(s) of an interrupted sweep"
                )
            head = f"{info['total']} runs ({info['unique']} distinct)"
            if info["skipped"]:
                head += f", {info['skipped']} already complete"
            self.console.print(head)
            if self.enabled and info["todo"]:
                counts = TextColumn("{task.fields[counts]}")
                self.bar = runs_progress("runs", counts, console=self.console, transient=False)
                self.task = self.bar.add_task(
                    "runs", total=info["todo"] + info["invalid"], counts=self._text()
                )
                self.bar.start()
            return
        if kind in ("done", "failed"):
            self.counts[kind] += 1
        if kind == "failed" and self.enabled:
            msg = Text("failed: ", style="bold red")
            msg.append(f"{info['label']} [{info['hash']}]: {info['error']}")
            self.console.print(msg)
        if self.bar is not None:
            self.bar.update(self.task, advance=1, counts=self._text())

    def _text(self) -> str:
        c = self.counts
        return f"done {c['done']} · skipped {c['skipped']} · failed {c['failed']}"


def main(args: argparse.Namespace) -> int:
    path = load(args.scenario)
    if args.jobs is not None and args.jobs < 1:
        raise CliError(f"--jobs {args.jobs}: expected at least 1")
    seeds = args.seed_list if args.seed_list is not None else args.seeds
    out = Path(args.out) if args.out else Path("results") / f"sweep-{Path(path).stem}"
    with _Bar(enabled=not args.quiet) as bar:
        res = sweep.run_sweep(
            path,
            grid=args.grid,
            zip=args.zip,
            sets=args.overrides,
            seeds=seeds,
            jobs=args.jobs,
            dask=args.dask,
            out=out,
            progress=bar,
            force=args.force,
        )
    console = stdout_console()
    columns = [(col, "right") for col in ("runs", "distinct", "done", "skipped", "failed", "wall")]
    t = report_table(f"Sweep {res.out}", columns)
    t.add_row(
        str(res.total),
        str(res.unique),
        str(res.done),
        str(res.skipped),
        Text(str(len(res.failed)), style="bold red" if res.failed else ""),
        f"{res.wall_s:.1f} s",
    )
    console.print(t)
    for f in res.failed[:MAX_FAILED_LINES]:
        params = " ".join([*(f"{k}={v}" for k, v in f["params"].items()), f"seed={f['seed']}"])
        console.print(Text(f"failed: {params}: {f['error']}", style="red"))
    console.print(Text(f"Runs: {res.out / 'runs'}  Aggregate: {res.out / 'aggregate.parquet'}", style="bold"))
    if len(res.failed) > MAX_FAILED_LINES:
        console.print(Text(f"… and {len(res.failed) - MAX_FAILED_LINES} more", style="red"))
    if res.failed:
        console.print(
            Text(f"{len(res.failed)} run(s) failed (listed in {res.out / 'failed.json'})", style="bold red")
        )
        return EXIT_FAILED_RUNS
    return 0
