"""Helpers shared by the commands: one-line errors, warnings, the input file check, the console and
the number formats of the reports. Standard library only at import time (rich is loaded by the console)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
#: Rows of the per-link tables before "… and N more".
MAX_LINK_ROWS = 10


class CliError(Exception):
    """An error reported as one line on stderr, exit status 2."""


def out_path(text: str) -> str:
    """The argparse type of ``--out``: an empty name would silently mean the current or default folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file or folder name, found an empty one")
    return text


def error_line(message: str, prefix: bool = True) -> None:
    one_line = " ".join(s.strip() for s in str(message).splitlines() if s.strip())
    sys.stderr.write(f"aqmlab: error: {one_line}\n" if prefix else f"{one_line}\n")
    sys.stderr.flush()


def warn(warnings: list[str]) -> None:
    for w in warnings:
        sys.stderr.write(f"aqmlab: warning: {w}\n")
    sys.stderr.flush()


def load(path: str) -> str:
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory, not a file")
    return path


def stdout_console() -> Console:
    """Rich console for the report: the terminal's width, or 120 columns when stdout is not a terminal
    (rich would otherwise wrap the tables at 80)."""
    from rich.console import Console

    width = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 120
    return Console(highlight=False, width=width)


def fmt_secs(s: float) -> str:
    if s == 0:
        return "0 s"
    if abs(s) < 1:
        return f"{s * 1e3:g} ms"
    return f"{s:g} s"


def fmt_rate(bps: float) -> str:
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:g} {unit}"
    return f"{bps:g} b/s"
