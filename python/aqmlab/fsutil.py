"""Durable file writes shared by run folders and sweeps: data reaches the disk before a rename makes it
visible, so an interrupted process never leaves a half-written file under its final name."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def out_path(text: str) -> str:
    """The argparse type of ``--out``: an empty name would silently mean the current or default folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file or folder name, found an empty one")
    return text


def write_file(path: Path, data: bytes) -> None:
    """Writes and fsyncs a file."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def fsync_path(path: Path) -> None:
    """fsync a file or a directory (directories: where the platform allows it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
