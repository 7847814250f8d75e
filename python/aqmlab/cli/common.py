"""Helpers shared by the commands: one-line errors, warnings, the input file check, the console, the
progress bars and the number formats of the reports. Standard library only at import time (rich is loaded
by the functions that use it)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from collections.abc import Iterable

    from rich.console import Console
    from rich.progress import Progress, ProgressColumn
    from rich.table import Table

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


def report_table(title: str, columns: Iterable[tuple[str, str]], **options: Any) -> Table:
    """A table of a command's report: `title` on the left above a simple head of `columns` (name,
    justification); `options` go to rich's Table (a caption)."""
    from rich import box
    from rich.table import Table

    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, **options)
    for name, justify in columns:
        t.add_column(name, justify=justify)
    return t


def runs_progress(label: str, *counts: ProgressColumn, console: Console, transient: bool) -> Progress:
    """A progress bar over runs: `label`, the bar, runs done of all, the `counts` columns, the time taken
    and the time left."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        *counts,
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=transient,
    )


class LateProgress:
    """A progress bar that a command starts only once there is something to show (`bar` stays None until
    then), used as a context manager: leaving it stops the bar if it started."""

    bar: Progress | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


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
