"""The `aqmlab plot` and `aqmlab report` subcommands (registered by :mod:`aqmlab.cli`; the work is in
:mod:`aqmlab.plot` and :mod:`aqmlab.folder_report`, imported when a command runs: matplotlib is slow to
import).

    aqmlab plot RUN|SWEEP [--out DIR] [--format png,svg]
    aqmlab report RUN|SWEEP [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from aqmlab.fsutil import out_path


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plot",
        help="draw the figures of a run or sweep folder",
        description="Draw a run folder's queue length and queueing delay over time, congestion windows, "
        "goodput per flow and response-time CDF/CCDF, or a sweep folder's box plots per configuration and "
        "its delay-vs-throughput scatter, as PNG and SVG (figures without data are left out).",
    )
    p.add_argument("folder", type=Path, help="a run folder (summary.json) or a sweep folder (sweep.json)")
    p.add_argument(
        "--out", type=out_path, metavar="DIR", help="where the figures go (default FOLDER/figures)"
    )
    p.add_argument(
        "--format",
        default="png,svg",
        type=_formats,
        metavar="png,svg",
        help="file formats (default png,svg)",
    )
    r = sub.add_parser(
        "report",
        help="write an HTML page of a run or sweep folder",
        description="Write report.html for a run or sweep folder: its facts, tables (a sweep's as mean and "
        "95 %% interval over seeds per configuration) and figures, in one page with the figures beside it.",
    )
    r.add_argument("folder", type=Path, help="a run folder (summary.json) or a sweep folder (sweep.json)")
    r.add_argument("--out", type=out_path, metavar="DIR", help="where report.html goes (default FOLDER)")


def _formats(text: str) -> list[str]:
    formats = [f.strip() for f in text.split(",") if f.strip()]
    if not formats or any(f not in ("png", "svg") for f in formats):
        raise argparse.ArgumentTypeError(f"png, svg or png,svg, found {text!r}")
    return formats


def cmd_plot(args: argparse.Namespace) -> int:
    from aqmlab import plot

    for fig in plot.plot_folder(args.folder, args.out, args.format):
        print(f"{', '.join(f'{fig.stem}.{f}' for f in args.format)}: {fig.title}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from aqmlab.folder_report import write_folder_report

    print(write_folder_report(args.folder, args.out))
    return 0
