"""The `aqmlab reproduce` subcommand (registered by :mod:`aqmlab.cli`; the work is in
:mod:`aqmlab.reproduce`).

    aqmlab reproduce weigle2005|chrost2009 [--quick] [--seeds K] [--jobs N] [--dask ADDRESS] [--out DIR]
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from aqmlab import reproduce
from aqmlab.fsutil import out_path


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "reproduce",
        help="reproduce a published study and write its report",
        description="Calibrate where the study calibrated, run its simulations (resumable) and write a "
        "report folder with the paper's tables beside the simulated ones, figures and findings.",
    )
    s.add_argument("study", choices=sorted(reproduce.STUDIES), help="the study")
    s.add_argument("--quick", action="store_true", help="a smaller but faithful version (a few minutes)")
    s.add_argument("--seeds", type=int, metavar="K", help="seeds per configuration (default 1 quick, 3 full)")
    s.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes (default: number of CPUs)")
    s.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster (scheduler address or `local`)")
    s.add_argument(
        "--out", type=out_path, metavar="DIR", help="report folder (default reports/STUDY[-quick])"
    )


def cmd_reproduce(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    columns = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(args.study, total=None)

        def progress(kind: str, info: dict) -> None:
            if kind == "start":
                bar.update(task, total=info["todo"], completed=0)
                if info["total"] > info["todo"]:
                    console.print(f"{info['total'] - info['todo']} of {info['total']} runs already complete")
            elif kind == "done":
                bar.advance(task)
            elif kind == "failed":
                console.print(f"[red]failed[/red] {info['label']}: {info['error']}")

        path = reproduce.reproduce(
            args.study,
            quick=args.quick,
            seeds=args.seeds,
            jobs=args.jobs,
            dask=args.dask,
            out=args.out,
            progress=progress,
        )
    print(f"Report: {path}")
    return 0
