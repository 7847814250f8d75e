"""`aqmlab reproduce STUDY`: reproduce a published study and write its report (the work is in
:mod:`aqmlab.reproduce`).

    aqmlab reproduce weigle2005|le2003|chrost2009|l4s-coexistence [--quick] [--variant NAME] [--seeds K]
                     [--jobs N] [--dask ADDRESS] [--out DIR]
"""

from __future__ import annotations

import argparse

from rich.console import Console

from aqmlab import reproduce
from aqmlab.cli.common import runs_progress


def main(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    with runs_progress("[bold]{task.description}", console=console, transient=True) as bar:
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
            variant=args.variant,
        )
    print(f"Report: {path}")
    return 0
