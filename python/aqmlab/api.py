"""Python API: run a scenario (a TOML file or a dict) and get its result tables."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import tomli_w

from aqmlab import _core

__all__ = ["RunResult", "ScenarioError", "load_scenario", "run", "validate"]

#: The tables of a run, in the order they are written.
TABLES = ("links", "link_classes", "flows", "queue_samples", "cwnd_trace")

DICT_LABEL = "<dict>"


class ScenarioError(ValueError):
    """A scenario (or an override) the engine rejects. The message names the file, the line, the field
    path and what was expected, e.g. ``x.toml:12: links[0].rate: a positive rate, found -5 bit/s``."""


def load_scenario(scenario: str | os.PathLike | Mapping[str, Any]) -> tuple[str, str]:
    """Returns ``(toml_text, file_label)`` for a path to a TOML file or a dict (label ``<dict>``).

    A missing or unreadable file raises ``OSError`` (with the file name); a dict that cannot be written as
    TOML raises ``ScenarioError``.
    """
    if isinstance(scenario, Mapping):
        try:
            return tomli_w.dumps(dict(scenario)), DICT_LABEL
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"{DICT_LABEL}: not representable as TOML: {e}") from None
    if isinstance(scenario, str | os.PathLike):
        path = os.fspath(scenario)
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    raise TypeError(f"a scenario is a path or a dict, not {type(scenario).__name__}")


def validate(
    scenario: str | os.PathLike | Mapping[str, Any], *, seed: int | None = None, set: Iterable[str] = ()
) -> dict:
    """Parses and checks a scenario without running it; returns a description of the resolved model
    (``name``, ``seed``, ``duration_s``, ``warmup_s``, ``nodes``, ``links``, ``flows``, ``classes``)."""
    text, label = load_scenario(scenario)
    try:
        return json.loads(_core.validate(text, label, list(set), seed))
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def run(
    scenario: str | os.PathLike | Mapping[str, Any],
    *,
    seed: int | None = None,
    set: Iterable[str] = (),
    progress: Callable[[float], object] | None = None,
    out: str | os.PathLike | None = None,
) -> RunResult:
    """Runs a scenario (path or dict) and returns its tables.

    ``seed`` replaces the scenario's seed; ``set`` holds ``key=value`` overrides (``dumbbell.pairs=10``,
    ``flows.0.tcp.ecn=true``); ``progress(sim_time_s)`` is called about 200 times; with ``out`` the run
    folder is also written there (see :meth:`RunResult.write`). Ctrl-C raises ``KeyboardInterrupt``.
    """
    text, label = load_scenario(scenario)
    overrides = [str(s) for s in set]
    started = False

    def on_progress(t: float) -> None:
        nonlocal started
        started = True
        if progress is not None:
            progress(t)

    t0 = time.perf_counter()
    try:
        raw_json = _core.run(text, label, overrides, seed, on_progress)
    except ValueError as e:
        # The scenario is loaded before the first progress call: a ValueError after it comes from the
        # caller's own callback and is passed on untouched.
        if started:
            raise
        raise ScenarioError(str(e)) from None
    wall = time.perf_counter() - t0
    raw = json.loads(raw_json)
    result = RunResult.from_raw(raw, text=text, file=label, overrides=overrides, seed=seed, wall_s=wall)
    if out is not None:
        result.write(out)
    return result


def _numeric_columns(df: pd.DataFrame) -> pd.DataFrame:
    """JSON has no NaN (the engine writes null): columns of numbers and nulls become float columns."""
    for col in df.columns:
        if df[col].dtype == object:
            vals = df[col].dropna()
            if all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals):
                df[col] = df[col].astype("float64")
    return df


def _rows(rows: list[dict]) -> pd.DataFrame:
    return _numeric_columns(pd.DataFrame.from_records(rows))


@dataclass
class RunResult:
    """The outcome of one run: ``summary`` (dict) and the tables as pandas DataFrames."""

    summary: dict
    links: pd.DataFrame
    link_classes: pd.DataFrame
    flows: pd.DataFrame
    queue_samples: pd.DataFrame
    cwnd_trace: pd.DataFrame
    raw: dict = field(repr=False)
    scenario_text: str = field(default="", repr=False)
    #: The ``seed`` argument of the run (None: the scenario's own seed).
    seed_override: int | None = field(default=None, repr=False)

    @classmethod
    def from_raw(
        cls,
        raw: dict,
        *,
        text: str = "",
        file: str = "",
        overrides: list[str] | None = None,
        seed: int | None = None,
        wall_s: float = float("nan"),
    ) -> RunResult:
        summary = dict(raw["summary"])
        summary["wall_s"] = wall_s
        summary["overrides"] = list(overrides or [])
        summary["scenario_file"] = file
        names = raw.get("sample_link_names", [])
        qs = raw.get("queue_samples", {})
        queue_samples = pd.DataFrame(
            {
                "link": pd.Series([names[i] for i in qs.get("link", [])], dtype="str"),
                "t": pd.Series(qs.get("t", []), dtype="float64"),
                "q_pkts": pd.Series(qs.get("q_pkts", []), dtype="int64"),
                "q_bytes": pd.Series(qs.get("q_bytes", []), dtype="int64"),
            }
        )
        ct = raw.get("cwnd_trace", {})
        cwnd_trace = pd.DataFrame(
            {
                "flow": pd.Series(ct.get("flow", []), dtype="int64"),
                "t": pd.Series(ct.get("t", []), dtype="float64"),
                "cwnd": pd.Series([_nan(v) for v in ct.get("cwnd", [])], dtype="float64"),
                "ssthresh": pd.Series([_nan(v) for v in ct.get("ssthresh", [])], dtype="float64"),
            }
        )
        return cls(
            summary=summary,
            links=_rows(raw.get("links", [])),
            link_classes=_rows(raw.get("link_classes", [])),
            flows=_rows(raw.get("flows", [])),
            queue_samples=queue_samples,
            cwnd_trace=cwnd_trace,
            raw=raw,
            scenario_text=text,
            seed_override=seed,
        )

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in TABLES}

    def scenario_record(self) -> dict:
        """The scenario as run, for ``summary.json``: ``scenario`` is the TOML text with the overrides (and
        a ``--seed``) applied by the engine (the original is kept in ``scenario_original``)."""
        text = self.scenario_text
        overrides = list(self.summary.get("overrides", []))
        seed = self.seed_override
        if not overrides and seed is None:
            return {"scenario": text}
        resolved = _core.resolve(text, self.summary.get("scenario_file", ""), overrides, seed)
        return {"scenario": resolved, "scenario_original": text}

    def write(self, directory: str | os.PathLike) -> Path:
        """Writes the run folder ``directory`` atomically: ``summary.json`` and one Parquet file per table
        are written into a temporary sibling folder, flushed to disk, then renamed into place. A previous
        run folder of the same name is replaced; any other existing file or non-empty folder is refused.
        On failure nothing is left under the final name (a previous run folder stays as it was)."""
        final = Path(directory)
        parent = final.parent
        parent.mkdir(parents=True, exist_ok=True)
        if final.exists() or final.is_symlink():
            if not final.is_dir() or final.is_symlink():
                raise FileExistsError(f"{final}: exists and is not a run folder")
            if any(final.iterdir()) and not (final / "summary.json").is_file():
                raise FileExistsError(f"{final}: exists and is not a run folder (no summary.json)")
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-", dir=parent))
        old: Path | None = None
        try:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes it private; a run folder is an ordinary folder
            summary = {**self.summary, **self.scenario_record()}
            _write_file(tmp / "summary.json", (json.dumps(summary, indent=2, allow_nan=True) + "\n").encode())
            for name, df in self.tables().items():
                path = tmp / f"{name}.parquet"
                pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
                _fsync_path(path)
            _fsync_path(tmp)
            if final.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-", dir=parent))
                os.replace(final, old / "run")
            os.replace(tmp, final)
            _fsync_path(parent)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            if old is not None and (old / "run").exists() and not final.exists():
                os.replace(old / "run", final)  # put the previous run folder back
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return final


def _nan(v: float | None) -> float:
    return float("nan") if v is None else v


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_path(path: Path) -> None:
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
