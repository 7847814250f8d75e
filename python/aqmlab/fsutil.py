"""Durable file writes shared by run folders and sweeps: data reaches the disk before a rename makes it
visible, so an interrupted process never leaves a half-written file under its final name."""

from __future__ import annotations

import os
from pathlib import Path


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
