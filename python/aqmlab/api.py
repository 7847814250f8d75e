"""Python API: run a scenario (a TOML file or a dict) and get its result tables (pandas and pyarrow).

Also gives the scenario functions of :mod:`aqmlab.scenario` (``validate``, ``load_scenario``, ``parse_size``,
``ScenarioError``), so that ``aqmlab.api`` is the whole API of one run."""

from __future__ import annotations

import io
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

from aqmlab import _core
from aqmlab.fsutil import fsync_path, write_file
from aqmlab.scenario import (
    ScenarioError,
    check_seed,
    disk_free,
    load_scenario,
    memory_limit,
    parse_size,
    validate,
)

__all__ = ["RunResult", "ScenarioError", "load_run", "load_scenario", "parse_size", "run", "validate"]

#: The tables of a run, in the order they are written (``pairs`` is written separately, as it streams).
TABLES = (
    "links",
    "link_classes",
    "flows",
    "queue_samples",
    "cwnd_trace",
    "flow_series",
    "user_series",
    "classes",
    "generators",
    "responses",
    "response_bins",
)

#: Columns of the tables that may be empty (a scenario without HTTP has no responses).
COLUMNS = {
    "user_series": ["generator", "t", "waiting", "thinking"],
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

#: The tables that grow with the run's length and stream to their Parquet files in batches as the run
#: goes (``pairs`` too, with ``measure.pair_records``), so that they are never all in memory.
STREAMED = ("queue_samples", "cwnd_trace", "flow_series")
QUEUE_SAMPLES_SCHEMA = pa.schema(
    [
        ("link", pa.string()),
        ("t", pa.float64()),
        ("q_pkts", pa.int64()),
        ("q_bytes", pa.int64()),
        ("sojourn_s", pa.float64()),
    ]
)
CWND_TRACE_SCHEMA = pa.schema(
    [
        ("flow", pa.int64()),
        ("t", pa.float64()),
        ("cwnd", pa.float64()),
        ("ssthresh", pa.float64()),
        ("timeouts", pa.int64()),
    ]
)
FLOW_SERIES_SCHEMA = pa.schema([("flow", pa.int64()), ("t", pa.float64()), ("bytes_delivered", pa.int64())])
#: The folder of a run folder that holds the packet captures of ``measure.pcap``.
PCAP_DIR = "pcap"


def pcap_file_name(link: str) -> str:
    """The capture file of link direction ``link`` in ``pcap/``: ``r1->r2`` → ``r1_to_r2.pcap`` (any
    other character that is not a letter, a digit, ``-``, ``_`` or ``.`` becomes ``_``)."""
    name = link.replace("->", "_to_")
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in name) + ".pcap"


def run(
    scenario: str | os.PathLike | Mapping[str, Any],
    *,
    seed: int | None = None,
    set: Iterable[str] = (),
    progress: Callable[[float], object] | None = None,
    out: str | os.PathLike | None = None,
    max_memory: int | str | None = None,
) -> RunResult:
    """Runs a scenario (path or dict) and returns its tables.

    ``seed`` replaces the scenario's seed; ``set`` holds ``key=value`` overrides (``dumbbell.pairs=10``,
    ``flows.0.tcp.ecn=true``); ``progress(sim_time_s)`` is called about 200 times; with ``out`` the run
    folder is also written there (see :meth:`RunResult.write`). Ctrl-C raises ``KeyboardInterrupt``.

    With ``measure.pair_records = true`` the request/response pairs stream to ``pairs.parquet`` as the
    run goes (in the run folder's temporary folder with ``out``, else in a temporary file that lives as
    long as the result); :attr:`RunResult.pairs` reads that file.

    With ``measure.pcap``, each listed link direction's departures stream to ``pcap/<link>.pcap``
    (:attr:`RunResult.pcap_paths`).

    Queue samples, the window trace and the flow series stream to ``queue_samples.parquet``,
    ``cwnd_trace.parquet`` and ``flow_series.parquet`` in the same way (read back on first access of
    :attr:`RunResult.queue_samples`, :attr:`RunResult.cwnd_trace` and :attr:`RunResult.flow_series`),
    so a run's memory does not grow with its length. A run whose tables would need more memory than
    ``max_memory`` (see :func:`validate`; default half of the machine's memory), or whose streamed
    tables more than the free disk space, is refused with ``ScenarioError`` before anything is
    allocated or written.
    """
    text, label = load_scenario(scenario)
    return run_text(text, label, seed=seed, set=set, progress=progress, out=out, max_memory=max_memory)


def run_text(
    text: str,
    label: str,
    *,
    seed: int | None = None,
    set: Iterable[str] = (),
    progress: Callable[[float], object] | None = None,
    out: str | os.PathLike | None = None,
    max_memory: int | str | None = None,
    commit: bool = True,
) -> RunResult:
    """:func:`run` of a scenario's TOML ``text`` (``label`` names it in messages). Without ``commit``
    the run folder is left under its temporary name, :attr:`RunResult.folder`, for the caller to rename
    (:func:`aqmlab.sweep.commit_run_folder`: a sweep's worker writes the run, the process that owns
    the sweep folder puts it in place)."""
    overrides = [str(s) for s in set]
    check_seed(seed)
    limit = memory_limit(max_memory)
    free = disk_free(out if out is not None else tempfile.gettempdir())
    try:
        desc = json.loads(_core.validate(text, label, overrides, seed, limit, free))
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
    sink: _Streams | None = None
    try:
        if staging is not None:
            folder = staging.tmp
        else:
            scratch = tempfile.mkdtemp(prefix="aqmlab-run-")
            folder = Path(scratch)
        sink = _Streams(folder, desc["classes"], [link["link"] for link in desc["links"]], records_on)
        t0 = time.perf_counter()
        try:
            raw_json = _core.run(text, label, overrides, seed, on_progress, sink, limit, free)
        except ValueError as e:
            # The scenario is loaded before the first progress call: a ValueError after it comes from the
            # caller's own callback (or a table writer) and is passed on untouched.
            if started or sink.rows:
                raise
            raise ScenarioError(str(e)) from None
        wall = time.perf_counter() - t0
        sink.close()
        raw = json.loads(raw_json)
        for name in ("pairs", *STREAMED):
            raw.pop(name, None)  # empty: the rows went to the sink
        result = RunResult.from_raw(raw, text=text, file=label, overrides=overrides, seed=seed, wall_s=wall)
        result.table_paths = {name: sink.paths[name] for name in STREAMED}
        result.pairs_path = sink.paths.get("pairs")
        result.pcap_paths = sink.pcap_paths()
        if scratch is not None:
            weakref.finalize(result, shutil.rmtree, scratch, True)
            scratch = None
        if staging is not None:
            result._write_into(staging)
            result.folder = staging.commit_result(result) if commit else staging.tmp
    except BaseException:
        if sink is not None:
            sink.close()
        if staging is not None:
            staging.abort()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    return result


def _pair_records_on(resolved_text: str) -> bool:
    try:
        return bool(tomllib.loads(resolved_text).get("measure", {}).get("pair_records", False))
    except (tomllib.TOMLDecodeError, AttributeError):
        return False  # the engine accepted it, so this cannot happen; no records then


class _ParquetSink:
    """Appends column-wise JSON batches of one table to a Parquet file; ``convert`` turns a batch's
    columns into an Arrow table of ``schema``."""

    def __init__(self, path: Path, schema: pa.Schema, convert: Callable[[dict], pa.Table]) -> None:
        self.path = path
        self.convert = convert
        self.rows = 0
        self.writer: pq.ParquetWriter | None = pq.ParquetWriter(path, schema)

    def __call__(self, batch_json: str) -> None:
        table = self.convert(json.loads(batch_json))
        assert self.writer is not None, "rows after the end of the run"
        self.writer.write_table(table)
        self.rows += table.num_rows

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
            fsync_path(self.path)


def _typed(cols: dict, schema: pa.Schema, **given: pa.Array) -> pa.Table:
    """The batch's columns as ``schema`` (JSON's nulls, the engine's NaN and infinity, become nulls, as
    they were when these tables were written from pandas); ``given`` columns are already arrays."""
    arrays = {name: given.get(name, None) for name in schema.names}
    for name in schema.names:
        if arrays[name] is None:
            arrays[name] = pa.array(cols[name], schema.field(name).type)
    return pa.table(arrays, schema=schema)


class _PairSink(_ParquetSink):
    """Request/response pair batches to ``pairs.parquet``; class indices become the class names."""

    def __init__(self, path: Path, classes: list[str]) -> None:
        names = pa.array(classes, pa.string())

        def convert(cols: dict) -> pa.Table:
            return _typed(
                cols, PAIRS_SCHEMA, **{"class": pc.take(names, pa.array(cols["class"], pa.int32()))}
            )

        super().__init__(path, PAIRS_SCHEMA, convert)


class _PcapSink:
    """Appends the engine's batches of one link direction's capture (raw pcap bytes, the file header
    first) to its file in ``folder/pcap/``."""

    def __init__(self, folder: Path, link: str) -> None:
        directory = folder / PCAP_DIR
        directory.mkdir(exist_ok=True)
        self.path = directory / pcap_file_name(link)
        self.file: io.BufferedWriter | None = open(self.path, "wb")  # noqa: SIM115 (closed by close)
        self.batches = 0

    def __call__(self, data: bytes) -> None:
        assert self.file is not None, "records after the end of the run"
        self.file.write(data)
        self.batches += 1

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
            fsync_path(self.path)
            fsync_path(self.path.parent)


class _Streams:
    """The ``records`` callback of ``_core.run``: each batch of a streamed table (``queue_samples``,
    ``cwnd_trace``, ``flow_series`` and, with pair records, ``pairs``) is appended to its Parquet file
    in ``folder``, so that these tables are never all in memory. Queue samples get their link's name."""

    def __init__(self, folder: Path, classes: list[str], link_names: list[str], pairs: bool) -> None:
        links = pa.array(link_names, pa.string())

        def samples(cols: dict) -> pa.Table:
            link = pc.take(links, pa.array(cols["link"], pa.int32()))
            return _typed(cols, QUEUE_SAMPLES_SCHEMA, link=link)

        def trace(cols: dict) -> pa.Table:
            return _typed(cols, CWND_TRACE_SCHEMA)

        def series(cols: dict) -> pa.Table:
            return _typed(cols, FLOW_SERIES_SCHEMA)

        self.sinks: dict[str, _ParquetSink] = {}
        try:
            self.sinks["queue_samples"] = _ParquetSink(
                folder / "queue_samples.parquet", QUEUE_SAMPLES_SCHEMA, samples
            )
            self.sinks["cwnd_trace"] = _ParquetSink(folder / "cwnd_trace.parquet", CWND_TRACE_SCHEMA, trace)
            self.sinks["flow_series"] = _ParquetSink(
                folder / "flow_series.parquet", FLOW_SERIES_SCHEMA, series
            )
            if pairs:
                self.sinks["pairs"] = _PairSink(folder / PAIRS_FILE, classes)
        except BaseException:
            self.close()
            raise
        self.paths = {name: sink.path for name, sink in self.sinks.items()}
        self.folder = folder
        self.pcap: dict[str, _PcapSink] = {}

    @property
    def rows(self) -> int:
        return sum(sink.rows for sink in self.sinks.values()) + sum(p.batches for p in self.pcap.values())

    def __call__(self, table: str, batch: Any) -> None:
        if table == "pcap":
            link, data = batch
            if link not in self.pcap:
                self.pcap[link] = _PcapSink(self.folder, link)
            self.pcap[link](data)
            return
        self.sinks[table](batch)

    def pcap_paths(self) -> dict[str, Path]:
        return {link: sink.path for link, sink in self.pcap.items()}

    def close(self) -> None:
        for sink in [*self.sinks.values(), *self.pcap.values()]:
            sink.close()


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

    def commit_result(self, result: RunResult) -> Path:
        """Renames the folder ``result`` was written into to its final name, and points the result's
        streamed tables there."""
        final = self.commit()
        for name, source in result.table_paths.items():
            if source.parent == self.tmp:
                result.table_paths[name] = final / source.name
        if result.pairs_path is not None and result.pairs_path.parent == self.tmp:
            result.pairs_path = final / PAIRS_FILE
        for link, source in result.pcap_paths.items():
            if source.parent == self.tmp / PCAP_DIR:
                result.pcap_paths[link] = final / PCAP_DIR / source.name
        return final


def parquet_bytes(df: pd.DataFrame) -> bytes:
    """A table as a Parquet file (without the index), as sweeps and their workers store tables."""
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), buf)
    return buf.getvalue()


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
    """The outcome of one run: ``summary`` (dict) and the tables as pandas DataFrames. The tables that
    grow with the run's length stream to Parquet files as :func:`run` goes: ``queue_samples``,
    ``cwnd_trace`` and ``flow_series`` are read from theirs on first access, ``pairs`` (the
    request/response records, with ``measure.pair_records``) at every access."""

    summary: dict
    links: pd.DataFrame
    link_classes: pd.DataFrame
    flows: pd.DataFrame
    classes: pd.DataFrame
    generators: pd.DataFrame
    responses: pd.DataFrame
    response_bins: pd.DataFrame
    #: With ``measure.user_series``, per ``[[web_users]]`` generator and sample: ``generator``, ``t``,
    #: ``waiting`` (users fetching a page), ``thinking``; empty otherwise.
    user_series: pd.DataFrame
    raw: dict = field(repr=False)
    scenario_text: str = field(default="", repr=False)
    #: The ``seed`` argument of the run (None: the scenario's own seed).
    seed_override: int | None = field(default=None, repr=False)
    #: The ``pairs.parquet`` of this run (None when pair records are off).
    pairs_path: Path | None = field(default=None, repr=False)
    #: The Parquet files of the streamed tables (``queue_samples``, ``cwnd_trace``, ``flow_series``) by
    #: name; a table not in it was returned by the engine and is in ``frames``.
    table_paths: dict[str, Path] = field(default_factory=dict, repr=False)
    #: The streamed tables read so far, and those the engine returned.
    frames: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    #: The run folder written by :func:`run` with ``out`` (None without).
    folder: Path | None = field(default=None, repr=False)
    #: The pcap file of each link direction captured (``measure.pcap``), by link name.
    pcap_paths: dict[str, Path] = field(default_factory=dict, repr=False)

    def _repr_html_(self) -> str:
        """In Jupyter: the run's facts, its busiest links and its classes."""
        from aqmlab.display import result_html

        s = self.summary
        facts = [
            f"{s.get('end_s', 0):g} s simulated (ended by {s.get('ended_by', '?')})",
            f"{s.get('wall_s', 0):.2f} s wall",
            f"{len(self.flows)} flows",
        ]
        if s.get("warnings"):
            facts.append(f"{len(s['warnings'])} warnings")
        link_cols = ["link", "queue", "utilization", "q_mean_pkts", "sojourn_mean_s", "loss_rate", "marks"]
        links = self.links.sort_values("utilization", ascending=False)
        links = links[[c for c in link_cols if c in links]]
        class_cols = ["class", "goodput_bps", "loss_rate", "flows"]
        classes = self.classes[[c for c in class_cols if c in self.classes]]
        title = f"Run {s.get('name', '')} (seed {s.get('seed', '?')})"
        return result_html(title, facts, [("Links, busiest first", links), ("Classes", classes)])

    @property
    def queue_samples(self) -> pd.DataFrame:
        """Queue lengths of the sampled link directions: ``link``, ``t``, ``q_pkts``, ``q_bytes``, and
        ``sojourn_s`` (queueing delay of the last packet sent by ``t``). Read from
        ``queue_samples.parquet`` on first access; for very long runs read that file in batches
        (``pyarrow.parquet.ParquetFile(r.table_paths["queue_samples"]).iter_batches()``)."""
        return self._streamed("queue_samples")

    @property
    def cwnd_trace(self) -> pd.DataFrame:
        """The traced flows' windows at every change: ``flow``, ``t``, ``cwnd``, ``ssthresh``,
        ``timeouts``. Read from ``cwnd_trace.parquet`` on first access."""
        return self._streamed("cwnd_trace")

    @property
    def flow_series(self) -> pd.DataFrame:
        """With ``measure.flow_series``, every flow's bytes delivered per sample interval: ``flow``, ``t``
        (the interval's end), ``bytes_delivered`` (in the interval); empty otherwise. Read from
        ``flow_series.parquet`` on first access."""
        return self._streamed("flow_series")

    def _streamed(self, name: str) -> pd.DataFrame:
        if name not in self.frames:
            self.frames[name] = pq.read_table(self.table_paths[name]).to_pandas()
        return self.frames[name]

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
        queue_samples = _columns(
            raw.get("queue_samples", {}),
            {"link": "str", "t": "float64", "q_pkts": "int64", "q_bytes": "int64", "sojourn_s": "float64"},
            link=names.__getitem__,
        )
        cwnd_trace = _columns(
            raw.get("cwnd_trace", {}),
            {"flow": "int64", "t": "float64", "cwnd": "float64", "ssthresh": "float64", "timeouts": "int64"},
            cwnd=_nan,
            ssthresh=_nan,
        )
        flow_series = _columns(
            raw.get("flow_series", {}), {"flow": "int64", "t": "float64", "bytes_delivered": "int64"}
        )
        user_series = _columns(
            raw.get("user_series", {}),
            {"generator": "str", "t": "float64", "waiting": "int64", "thinking": "int64"},
            generator=raw.get("user_series_names", []).__getitem__,
        )
        # JSON has no infinity: the open-ended top bin comes as null.
        response_bins = _columns(
            raw.get("response_bins", {}),
            {"class": "str", "lo_s": "float64", "hi_s": "float64", "count": "int64"},
            lo_s=_nan,
            hi_s=_inf,
        )
        return cls(
            summary=summary,
            links=_rows(raw.get("links", [])),
            link_classes=_rows(raw.get("link_classes", [])),
            flows=_rows(raw.get("flows", [])),
            classes=_rows(raw.get("classes", []), COLUMNS["classes"]),
            generators=_rows(raw.get("generators", []), COLUMNS["generators"]),
            responses=_rows(raw.get("responses", []), COLUMNS["responses"]),
            response_bins=response_bins,
            user_series=user_series,
            raw=raw,
            scenario_text=text,
            seed_override=seed,
            # The streamed tables are read from their files unless the engine returned them.
            frames={
                name: df
                for name, df in (
                    ("queue_samples", queue_samples),
                    ("cwnd_trace", cwnd_trace),
                    ("flow_series", flow_series),
                )
                if name in raw
            },
        )

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables by name (not ``pairs``, which stays in its file); the streamed ones are read."""
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
        staging = _Staging(directory)
        self._write_into(staging)
        return staging.commit_result(self)

    def _write_into(self, staging: _Staging) -> None:
        """Writes the run folder's files into ``staging.tmp`` and flushes them (removing it on failure)."""
        try:
            tmp = staging.tmp
            summary = {**self.summary, **self.scenario_record()}
            write_file(tmp / "summary.json", (json.dumps(summary, indent=2, allow_nan=True) + "\n").encode())
            files = {**self.table_paths, **({"pairs": self.pairs_path} if self.pairs_path else {})}
            for name in TABLES:
                path = tmp / f"{name}.parquet"
                if name not in files:
                    df = getattr(self, name)
                    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
                    fsync_path(path)
            for source in files.values():
                path = tmp / source.name
                if source != path:  # not streamed into this folder during the run: copied, not read
                    shutil.copyfile(source, path)
                    fsync_path(path)
            for source in self.pcap_paths.values():
                path = tmp / PCAP_DIR / source.name
                if source != path:
                    path.parent.mkdir(exist_ok=True)
                    shutil.copyfile(source, path)
                    fsync_path(path)
        except BaseException:
            staging.abort()
            raise


def load_run(folder: str | os.PathLike) -> RunResult:
    """The :class:`RunResult` of a run folder (written by ``run(..., out=)``, ``aqmlab run`` or a sweep), as
    :func:`run` returned it: the summary, the tables, and the streamed tables and pair records read from
    their files on access."""
    folder = Path(folder)
    summary_path = folder / "summary.json"
    if not summary_path.exists():
        raise FileNotFoundError(f"{folder}: not a run folder (no summary.json)")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    streamed = {name: folder / f"{name}.parquet" for name in STREAMED}
    pairs = folder / PAIRS_FILE
    tables = {name: _read_table(folder, name) for name in TABLES if name not in STREAMED}
    captures = {link: folder / PCAP_DIR / pcap_file_name(link) for link in tables["links"]["link"]}
    return RunResult(
        summary=summary,
        **tables,
        raw={},
        scenario_text=summary.get("scenario_original", summary.get("scenario", "")),
        pairs_path=pairs if pairs.exists() else None,
        table_paths=streamed,
        pcap_paths={link: path for link, path in captures.items() if path.is_file()},
    )


def _columns(table: dict, dtypes: dict[str, str], **convert: Callable[[Any], Any]) -> pd.DataFrame:
    """A table the engine returns as columns (name -> values; an absent one is empty), with `dtypes`;
    `convert` maps the values of the columns it names first."""
    return pd.DataFrame(
        {
            name: pd.Series(
                [convert[name](v) for v in table.get(name, [])] if name in convert else table.get(name, []),
                dtype=dtype,
            )
            for name, dtype in dtypes.items()
        }
    )


def _read_table(folder: Path, name: str) -> pd.DataFrame:
    path = folder / f"{name}.parquet"
    if name == "user_series" and not path.exists():  # a run folder written before the table existed
        return _rows([], COLUMNS[name])
    return pd.read_parquet(path)


def _nan(v: float | None) -> float:
    return float("nan") if v is None else v


def _inf(v: float | None) -> float:
    return math.inf if v is None else v
