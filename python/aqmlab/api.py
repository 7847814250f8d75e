"""Python API: run a scenario (a TOML file or a dict) and get its result tables."""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import time
import tomllib
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import tomli_w

from aqmlab import _core
from aqmlab.fsutil import fsync_path, write_file

__all__ = ["RunResult", "ScenarioError", "load_scenario", "run", "validate"]

#: The tables of a run, in the order they are written (``pairs`` is written separately, as it streams).
TABLES = (
    "links",
    "link_classes",
    "flows",
    "queue_samples",
    "cwnd_trace",
    "classes",
    "generators",
    "responses",
    "response_bins",
)

#: Columns of the tables that may be empty (a scenario without HTTP has no responses).
COLUMNS = {
    "classes": ["class", "packets_sent", "bytes_sent", "drops", "loss_rate", "marks"],
    "generators": [
        "generator",
        "class",
        "connections_started",
        "connections_finished",
        "connections_open",
        "pairs_planned",
    ],
    "responses": [
        "class",
        "pairs",
        "incomplete",
        "mean_s",
        "p10_s",
        "p50_s",
        "p90_s",
        "p99_s",
        "request_bytes",
        "response_bytes",
    ],
}

#: The file of pair records in a run folder (with ``measure.pair_records = true``).
PAIRS_FILE = "pairs.parquet"
PAIRS_SCHEMA = pa.schema(
    [
        ("class", pa.string()),
        ("connection", pa.int64()),
        ("index", pa.int64()),
        ("start_s", pa.float64()),
        ("end_s", pa.float64()),
        ("response_time_s", pa.float64()),
        ("request_bytes", pa.int64()),
        ("response_bytes", pa.int64()),
    ]
)

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
        with open(path, "rb") as f:
            data = f.read()
        try:
            return data.decode("utf-8"), path
        except UnicodeDecodeError as e:
            raise ScenarioError(
                f"{path}: a TOML text file in UTF-8, found byte 0x{data[e.start]:02x} at offset {e.start}"
            ) from None
    raise TypeError(f"a scenario is a path or a dict, not {type(scenario).__name__}")


def validate(
    scenario: str | os.PathLike | Mapping[str, Any], *, seed: int | None = None, set: Iterable[str] = ()
) -> dict:
    """Parses and checks a scenario without running it; returns a description of the resolved model
    (``name``, ``seed``, ``duration_s``, ``warmup_s``, ``nodes``, ``links``, ``flows``, ``classes``) and
    its ``warnings`` (settings that are legal but probably not meant, located like errors)."""
    text, label = load_scenario(scenario)
    _check_seed(seed)
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

    With ``measure.pair_records = true`` the request/response pairs stream to ``pairs.parquet`` as the
    run goes (in the run folder's temporary folder with ``out``, else in a temporary file that lives as
    long as the result); :attr:`RunResult.pairs` reads that file.
    """
    text, label = load_scenario(scenario)
    overrides = [str(s) for s in set]
    _check_seed(seed)
    try:
        classes = json.loads(_core.validate(text, label, overrides, seed))["classes"]
        records_on = _pair_records_on(_core.resolve(text, label, overrides, seed))
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    started = False

    def on_progress(t: float) -> None:
        nonlocal started
        started = True
        if progress is not None:
            progress(t)

    staging = _Staging(out) if out is not None else None
    scratch: str | None = None
    sink: _PairSink | None = None
    try:
        if records_on:
            if staging is not None:
                pairs_path = staging.tmp / PAIRS_FILE
            else:
                scratch = tempfile.mkdtemp(prefix="aqmlab-pairs-")
                pairs_path = Path(scratch) / PAIRS_FILE
            sink = _PairSink(pairs_path, classes)
        t0 = time.perf_counter()
        try:
            raw_json = _core.run(text, label, overrides, seed, on_progress, sink)
        except ValueError as e:
            # The scenario is loaded before the first progress call: a ValueError after it comes from the
            # caller's own callback (or the pair writer) and is passed on untouched.
            if started or (sink is not None and sink.rows):
                raise
            raise ScenarioError(str(e)) from None
        wall = time.perf_counter() - t0
        if sink is not None:
            sink.close()
        raw = json.loads(raw_json)
        raw.pop("pairs", None)  # empty: the records went to the sink
        result = RunResult.from_raw(raw, text=text, file=label, overrides=overrides, seed=seed, wall_s=wall)
        if sink is not None:
            result.pairs_path = sink.path
            if scratch is not None:
                weakref.finalize(result, shutil.rmtree, scratch, True)
                scratch = None
        if staging is not None:
            result._write_staged(staging)
    except BaseException:
        if sink is not None:
            sink.close()
        if staging is not None:
            staging.abort()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    return result


def _check_seed(seed: int | None) -> None:
    if seed is not None and not 0 <= seed < 2**64:
        raise ScenarioError(f"seed {seed}: a run seed is a whole number from 0 to 2^64-1")


def _pair_records_on(resolved_text: str) -> bool:
    try:
        return bool(tomllib.loads(resolved_text).get("measure", {}).get("pair_records", False))
    except (tomllib.TOMLDecodeError, AttributeError):
        return False  # the engine accepted it, so this cannot happen; no records then


class _PairSink:
    """The ``records`` callback of ``_core.run``: appends each JSON batch of pairs to a Parquet file, so
    that the pairs are never all in memory. Class indices become the class names."""

    def __init__(self, path: Path, classes: list[str]) -> None:
        self.path = path
        self.classes = pa.array(classes, pa.string())
        self.rows = 0
        self.writer: pq.ParquetWriter | None = pq.ParquetWriter(path, PAIRS_SCHEMA)

    def __call__(self, batch_json: str) -> None:
        cols = json.loads(batch_json)
        table = pa.table(
            {
                "class": pc.take(self.classes, pa.array(cols["class"], pa.int32())),
                **{
                    name: pa.array(cols[name], PAIRS_SCHEMA.field(name).type)
                    for name in PAIRS_SCHEMA.names
                    if name != "class"
                },
            },
            schema=PAIRS_SCHEMA,
        )
        assert self.writer is not None, "records after the end of the run"
        self.writer.write_table(table)
        self.rows += table.num_rows

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
            fsync_path(self.path)


class _Staging:
    """A run folder being written: a temporary sibling of ``final`` that :meth:`commit` renames into
    place (replacing a previous run folder of that name) and :meth:`abort` removes."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.final = final = Path(directory)
        self.parent = final.parent
        self.parent.mkdir(parents=True, exist_ok=True)
        if final.exists() or final.is_symlink():
            if not final.is_dir() or final.is_symlink():
                raise FileExistsError(f"{final}: exists and is not a run folder")
            if any(final.iterdir()) and not (final / "summary.json").is_file():
                raise FileExistsError(f"{final}: exists and is not a run folder (no summary.json)")
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-", dir=self.parent))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.tmp, 0o777 & ~umask)  # mkdtemp makes it private; a run folder is an ordinary folder

    def commit(self) -> Path:
        final, parent = self.final, self.parent
        old: Path | None = None
        try:
            fsync_path(self.tmp)
            if final.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-", dir=parent))
                os.replace(final, old / "run")
            os.replace(self.tmp, final)
            fsync_path(parent)
        except BaseException:
            self.abort()
            if old is not None and (old / "run").exists() and not final.exists():
                os.replace(old / "run", final)  # put the previous run folder back
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return final

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def _numeric_columns(df: pd.DataFrame) -> pd.DataFrame:
    """JSON has no NaN (the engine writes null): columns of numbers and nulls become float columns."""
    for col in df.columns:
        if df[col].dtype == object:
            vals = df[col].dropna()
            if all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals):
                df[col] = df[col].astype("float64")
    return df


def _rows(rows: list[dict], columns: list[str] | None = None) -> pd.DataFrame:
    return _numeric_columns(pd.DataFrame.from_records(rows, columns=columns))


@dataclass
class RunResult:
    """The outcome of one run: ``summary`` (dict) and the tables as pandas DataFrames; ``pairs`` (the
    request/response records, with ``measure.pair_records``) is read from its Parquet file on access."""

    summary: dict
    links: pd.DataFrame
    link_classes: pd.DataFrame
    flows: pd.DataFrame
    queue_samples: pd.DataFrame
    cwnd_trace: pd.DataFrame
    classes: pd.DataFrame
    generators: pd.DataFrame
    responses: pd.DataFrame
    response_bins: pd.DataFrame
    raw: dict = field(repr=False)
    scenario_text: str = field(default="", repr=False)
    #: The ``seed`` argument of the run (None: the scenario's own seed).
    seed_override: int | None = field(default=None, repr=False)
    #: The ``pairs.parquet`` of this run (None when pair records are off).
    pairs_path: Path | None = field(default=None, repr=False)

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
                "timeouts": pd.Series(ct.get("timeouts", []), dtype="int64"),
            }
        )
        rb = raw.get("response_bins", {})
        response_bins = pd.DataFrame(
            {
                "class": pd.Series(rb.get("class", []), dtype="str"),
                "lo_s": pd.Series([_nan(v) for v in rb.get("lo_s", [])], dtype="float64"),
                # JSON has no infinity: the open-ended top bin comes as null.
                "hi_s": pd.Series([_inf(v) for v in rb.get("hi_s", [])], dtype="float64"),
                "count": pd.Series(rb.get("count", []), dtype="int64"),
            }
        )
        return cls(
            summary=summary,
            links=_rows(raw.get("links", [])),
            link_classes=_rows(raw.get("link_classes", [])),
            flows=_rows(raw.get("flows", [])),
            queue_samples=queue_samples,
            cwnd_trace=cwnd_trace,
            classes=_rows(raw.get("classes", []), COLUMNS["classes"]),
            generators=_rows(raw.get("generators", []), COLUMNS["generators"]),
            responses=_rows(raw.get("responses", []), COLUMNS["responses"]),
            response_bins=response_bins,
            raw=raw,
            scenario_text=text,
            seed_override=seed,
        )

    def tables(self) -> dict[str, pd.DataFrame]:
        """The in-memory tables by name (not ``pairs``, which stays in its file)."""
        return {name: getattr(self, name) for name in TABLES}

    @property
    def pairs(self) -> pd.DataFrame | None:
        """Every request/response pair whose request was sent after the warm-up and completed (columns
        ``class``, ``connection``, ``index``, ``start_s``, ``end_s``, ``response_time_s``,
        ``request_bytes``, ``response_bytes``), read from ``pairs.parquet`` at each access; None when the
        scenario does not set ``measure.pair_records``. For very long runs read the file in batches
        (``pyarrow.parquet.ParquetFile(r.pairs_path).iter_batches()``)."""
        if self.pairs_path is None:
            return None
        return pq.read_table(self.pairs_path).to_pandas()

    def response_cdf(self, cls: str | None = None) -> pd.DataFrame:
        """The response-time CDF of one class (None: every class together) from the histogram
        ``response_bins``: columns ``x_s`` (seconds; a bin's upper edge, after a first row at the lowest
        bin's lower edge) and ``fraction`` (of the pairs with a response time up to ``x_s``). Bins are
        2.3% wide, so this is exact at the edges; empty when there are no pairs."""
        bins = self.response_bins
        if cls is not None:
            known = list(dict.fromkeys(bins["class"]))
            if cls not in known:
                raise ValueError(f"no response times for class {cls!r} (classes with some: {known})")
            bins = bins[bins["class"] == cls]
        counts = bins.groupby(["lo_s", "hi_s"], sort=True)["count"].sum().reset_index()
        total = counts["count"].sum()
        if total == 0:
            return pd.DataFrame({"x_s": pd.Series(dtype="float64"), "fraction": pd.Series(dtype="float64")})
        x = [float(counts["lo_s"].iloc[0]), *counts["hi_s"].astype(float)]
        fraction = [0.0, *(counts["count"].cumsum() / total).astype(float)]
        fraction[-1] = 1.0  # exactly, whatever the rounding
        return pd.DataFrame({"x_s": x, "fraction": fraction})

    def response_ccdf(self, cls: str | None = None) -> pd.DataFrame:
        """The complementary CDF (fraction of pairs with a response time above ``x_s``), as
        :meth:`response_cdf`; for log-log plots drop the last row (0)."""
        cdf = self.response_cdf(cls)
        return pd.DataFrame({"x_s": cdf["x_s"], "fraction": 1.0 - cdf["fraction"]})

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
        """Writes the run folder ``directory`` atomically: ``summary.json``, one Parquet file per table and
        ``pairs.parquet`` (when pair records are on) are written into a temporary sibling folder, flushed
        to disk, then renamed into place. A previous run folder of the same name is replaced; any other
        existing file or non-empty folder is refused. On failure nothing is left under the final name (a
        previous run folder stays as it was)."""
        return self._write_staged(_Staging(directory))

    def _write_staged(self, staging: _Staging) -> Path:
        try:
            tmp = staging.tmp
            summary = {**self.summary, **self.scenario_record()}
            write_file(tmp / "summary.json", (json.dumps(summary, indent=2, allow_nan=True) + "\n").encode())
            for name, df in self.tables().items():
                path = tmp / f"{name}.parquet"
                pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
                fsync_path(path)
            pairs = tmp / PAIRS_FILE
            if self.pairs_path is not None and self.pairs_path != pairs:
                shutil.copyfile(self.pairs_path, pairs)
                fsync_path(pairs)
        except BaseException:
            staging.abort()
            raise
        final = staging.commit()
        if self.pairs_path == tmp / PAIRS_FILE:
            self.pairs_path = final / PAIRS_FILE  # streamed into this folder during the run
        return final


def _nan(v: float | None) -> float:
    return float("nan") if v is None else v


def _inf(v: float | None) -> float:
    return math.inf if v is None else v
