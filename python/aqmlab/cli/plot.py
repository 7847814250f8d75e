"""`aqmlab plot RUN|SWEEP`: the figures of a run or sweep folder (the work is in :mod:`aqmlab.plot`)."""

from __future__ import annotations

import argparse

from aqmlab import plot


def main(args: argparse.Namespace) -> int:
    for fig in plot.plot_folder(args.folder, args.out, args.format):
        print(f"{', '.join(f'{fig.stem}.{f}' for f in args.format)}: {fig.title}")
    return 0
