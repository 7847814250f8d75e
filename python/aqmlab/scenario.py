"""Scenarios without running them: load a TOML file or a dict, check it and describe the resolved model.

The layer just above the engine binding ``aqmlab._core``: standard library only, so that ``aqmlab validate``
starts at once. Runs and their tables (pandas, pyarrow) are in :mod:`aqmlab.api`, which re-exports these."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from aqmlab import _core

if TYPE_CHECKING:
    from typing import Any

__all__ = ["ScenarioError", "load_scenario", "parse_size", "validate"]

DICT_LABEL = "<dict>"


class ScenarioError(ValueError):
    """A scenario (or an override) the engine rejects. The message names the file, the line, the field
    path and what was expected, e.g. ``x.toml:12: links[0].rate: a positive rate, found -5 bit/s``.
    From :func:`validate`, ``errors`` holds every error of the scenario (the message is the first) and
    ``warnings`` the warnings of the parts that could be checked; elsewhere ``errors`` is the message."""

    def __init__(self, message: str, errors: Iterable[str] = (), warnings: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.errors = list(errors) or [message]
        self.warnings = list(warnings)


def load_scenario(scenario: str | os.PathLike | Mapping[str, Any]) -> tuple[str, str]:
    """Returns ``(toml_text, file_label)`` for a path to a TOML file or a dict (label ``<dict>``).

    A missing or unreadable file raises ``OSError`` (with the file name); a dict that cannot be written as
    TOML raises ``ScenarioError``.
    """
    if isinstance(scenario, Mapping):
        import tomli_w  # only for dicts: a file is read as it is

        try:
            return tomli_w.dumps(dict(scenario)), DICT_LABEL
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"{DICT_LABEL}: not representable as TOML: {e}") from None
    if isinstance(scenario, str | os.PathLike):
        path = os.fspath(scenario)
        with open(path, "rb") as f:
            data = f.read()
        try:
            return data.decode("utf-8"), path
        except UnicodeDecodeError as e:
            raise ScenarioError(
                f"{path}: a TOML text file in UTF-8, found byte 0x{data[e.start]:02x} at offset {e.start}"
            ) from None
    raise TypeError(f"a scenario is a path or a dict, not {type(scenario).__name__}")


_SIZE_UNITS = {
    "": 1,
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KIB": 2**10,
    "MIB": 2**20,
    "GIB": 2**30,
    "TIB": 2**40,
}


def parse_size(size: int | str) -> int:
    """A memory size in bytes: a whole number of bytes, or a string such as ``"2GB"``, ``"512MB"``,
    ``"1.5GiB"`` (KB, MB, GB, TB are powers of 1000; KiB, MiB, GiB, TiB powers of 1024)."""
    if isinstance(size, bool) or not isinstance(size, int | str):
        raise TypeError(
            f"a memory size is a number of bytes or a string like '2GB', not {type(size).__name__}"
        )
    if isinstance(size, int):
        value = size
    else:
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)\s*", size)
        unit = m.group(2).upper() if m else None
        if m is None or unit not in _SIZE_UNITS:
            raise ValueError(
                "a memory size like '2GB', '512MB' or '1.5GiB' (units B, KB, MB, GB, TB, KiB, MiB, GiB, "
                f"TiB), found {size!r}"
            )
        value = int(float(m.group(1)) * _SIZE_UNITS[unit])
    if not 0 < value < 2**64:
        raise ValueError(f"a positive memory size, found {size!r}")
    return value


def memory_limit(max_memory: int | str | None) -> int | None:
    """``max_memory`` in bytes; None leaves the engine's default (half of the machine's memory)."""
    return None if max_memory is None else parse_size(max_memory)


def disk_free(folder: str | os.PathLike) -> int | None:
    """Free bytes on the file system of ``folder`` (or of its nearest existing parent)."""
    path = Path(folder).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def validate(
    scenario: str | os.PathLike | Mapping[str, Any],
    *,
    seed: int | None = None,
    set: Iterable[str] = (),
    max_memory: int | str | None = None,
) -> dict:
    """Parses and checks a scenario without running it; returns a description of the resolved model
    (``name``, ``seed``, ``duration_s``, ``warmup_s``, ``nodes``, ``links``, ``flows``, ``classes``),
    its ``warnings`` (settings that are legal but probably not meant, located like errors) and its
    resource ``estimate`` (flows, link directions, a bound of the packets in flight, queue samples,
    window-trace and flow-series rows and the memory of the run's tables, ``memory_bytes``, with
    ``parts``).

    A scenario whose tables would need more memory than ``max_memory`` (bytes, or a size such as
    ``"2GB"``; default half of the machine's memory, given back as ``max_memory``) raises
    ``ScenarioError`` naming the setting to change, before anything is allocated. A scenario with
    several mistakes raises ``ScenarioError`` with all of them in ``errors``. The tables that
    stream to files as :func:`aqmlab.api.run` goes (queue samples, the window trace, the flow series)
    count one batch in memory, and their files are checked against the free space of the current folder."""
    text, label = load_scenario(scenario)
    check_seed(seed)
    limit = memory_limit(max_memory)
    try:
        return json.loads(_core.validate(text, label, list(set), seed, limit, disk_free(os.curdir)))
    except ValueError as e:
        raise ScenarioError(str(e), getattr(e, "errors", ()), getattr(e, "warnings", ())) from None


def check_seed(seed: int | None) -> None:
    """Refuses a run seed outside 0..2^64-1."""
    if seed is not None and not 0 <= seed < 2**64:
        raise ScenarioError(f"seed {seed}: a run seed is a whole number from 0 to 2^64-1")
