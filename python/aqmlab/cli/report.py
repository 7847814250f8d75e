"""`aqmlab report RUN|SWEEP`: an HTML page of a run or sweep folder (the work is in
:mod:`aqmlab.folder_report`)."""

from __future__ import annotations

import argparse

from aqmlab.folder_report import write_folder_report


def main(args: argparse.Namespace) -> int:
    print(write_folder_report(args.folder, args.out))
    return 0
