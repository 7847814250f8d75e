"""Python API: run a scenario (a TOML file or a dict) and get its result tables (pandas DataFrames).

Also gives the scenario functions of :mod:`aqmlab.scenario` (``validate``, ``load_scenario``, ``parse_size``,
``ScenarioError``), so that ``aqmlab.api`` is the whole API of one run."""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

# pandas and pyarrow are imported where tables are read: `aqmlab run` prints its summary without them.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RunResult", "ScenarioError", "load_run", "load_scenario", "parse_size", "run", "validate"]

#: The tables of a run, each in ``<table>.parquet`` of its folder. The engine defines their columns
#: (crates/aqmlab-core/src/tables) and writes the files; ``pairs.parquet`` is there only with
#: ``measure.pair_records``.
TABLES = (
    "links",
    "link_classes",
    "flows",
    "queue_samples",
    "aqm_samples",
    "cwnd_trace",
    "flow_series",
    "user_series",
    "window_links",
    "window_responses",
    "classes",
    "generators",
    "responses",
    "response_bins",
)

#: The file of pair records in a run folder (with ``measure.pair_records = true``).
PAIRS_FILE = "pairs.parquet"
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

    The engine writes every table as ``<table>.parquet`` (:data:`TABLES`), in the run folder's
    temporary folder with ``out``, else in a temporary folder that lives as long as the result; the
    result's tables are read from these files on first access. Queue samples, the window trace, the
    flow series and, with ``measure.pair_records = true``, the request/response pairs
    (``pairs.parquet``, :attr:`RunResult.pairs`) are written as the run goes, so a run's memory does
    not grow with its length.

    With ``measure.pcap``, each listed link direction's departures stream to ``pcap/<link>.pcap``
    (:attr:`RunResult.pcap_paths`).

    A run whose tables would need more memory than
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
    started = False

    def on_progress(t: float) -> None:
        nonlocal started
        started = True
        if progress is not None:
            progress(t)

    staging = _Staging(out) if out is not None else None
    scratch: str | None = None
    captures: _Captures | None = None
    try:
        if staging is not None:
            folder = staging.tmp
        else:
            scratch = tempfile.mkdtemp(prefix="aqmlab-run-")
            folder = Path(scratch)
        captures = _Captures(folder)
        t0 = time.perf_counter()
        try:
            summary_json, columns = _core.run(
                text, label, str(folder), overrides, seed, on_progress, captures, limit, free
            )
        except ValueError as e:
            # The scenario is loaded before the first progress call: a ValueError after it comes from the
            # caller's own callback (or a capture's writer) and is passed on untouched.
            if started or captures.batches:
                raise
            raise ScenarioError(str(e)) from None
        wall = time.perf_counter() - t0
        captures.close()
        summary = {**json.loads(summary_json), "wall_s": wall, "overrides": overrides, "scenario_file": label}
        result = RunResult(
            summary=summary,
            tables_dir=folder,
            scenario_text=text,
            seed_override=seed,
            columns=columns,
            pcap_paths=captures.paths(),
        )
        if scratch is not None:
            weakref.finalize(result, shutil.rmtree, scratch, True)
            scratch = None
        if staging is not None:
            result._write_into(staging)
            result.folder = staging.commit_result(result) if commit else staging.tmp
    except BaseException:
        if captures is not None:
            captures.close()
        if staging is not None:
            staging.abort()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    return result


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


class _Captures:
    """The ``pcap`` callback of ``_core.run``: appends each captured link direction's bytes to its file
    in ``folder/pcap/``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sinks: dict[str, _PcapSink] = {}

    @property
    def batches(self) -> int:
        return sum(sink.batches for sink in self.sinks.values())

    def __call__(self, link: str, data: bytes) -> None:
        if link not in self.sinks:
            self.sinks[link] = _PcapSink(self.folder, link)
        self.sinks[link](data)

    def paths(self) -> dict[str, Path]:
        return {link: sink.path for link, sink in self.sinks.items()}

    def close(self) -> None:
        for sink in self.sinks.values():
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
        if result.tables_dir == self.tmp:
            result.tables_dir = final
        for link, source in result.pcap_paths.items():
            if source.parent == self.tmp / PCAP_DIR:
                result.pcap_paths[link] = final / PCAP_DIR / source.name
        return final


def parquet_bytes(df: pd.DataFrame) -> bytes:
    """A table as a Parquet file (without the index), as sweeps and their workers store tables."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), buf)
    return buf.getvalue()


class _Table:
    """A table of a :class:`RunResult`, read from its ``<table>.parquet`` on first access."""

    def __init__(self, doc: str = "") -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, result: RunResult | None, owner: type | None = None) -> Any:
        return self if result is None else result.table(self.name)


@dataclass
class RunResult:
    """The outcome of one run: ``summary`` (dict) and the tables as pandas DataFrames, each read from its
    Parquet file in :attr:`tables_dir` on first access (``pairs``, the request/response records with
    ``measure.pair_records``, at every access). The engine defines the tables' columns and writes the
    files: every table has all its columns, even when empty, and NaN and infinity are floats."""

    summary: dict
    #: The folder of the table files (``<table>.parquet``): the run folder, or the temporary folder of a
    #: run without ``out``, removed with the result.
    tables_dir: Path
    scenario_text: str = field(default="", repr=False)
    #: The ``seed`` argument of the run (None: the scenario's own seed).
    seed_override: int | None = field(default=None, repr=False)
    #: The tables written at the end of the run as the engine returned them, ``{table: {column:
    #: [values]}}``, for printing without pandas (see :meth:`records`); empty for :func:`load_run`.
    columns: dict[str, dict[str, list]] = field(default_factory=dict, repr=False)
    #: The tables read so far.
    frames: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    #: The run folder written by :func:`run` with ``out`` (None without).
    folder: Path | None = field(default=None, repr=False)
    #: The pcap file of each link direction captured (``measure.pcap``), by link name.
    pcap_paths: dict[str, Path] = field(default_factory=dict, repr=False)

    links = _Table("Per link direction: counters, utilization, queue length and queueing delay.")
    link_classes = _Table("Per link direction and traffic class that reached it: counters and loss.")
    flows = _Table("Per flow: goodput, TCP loss recovery, one-way delay, transfer completion.")
    classes = _Table("Per traffic class: packets and bytes sent, drops anywhere, loss rate, marks.")
    generators = _Table("Per PackMime or web-user generator: connections started, finished and open.")
    responses = _Table("Per class with request/response pairs: counts and response-time quantiles.")
    response_bins = _Table("The response-time histogram: ``class``, ``lo_s``, ``hi_s``, ``count``.")
    queue_samples = _Table(
        """Queue lengths of the sampled link directions: ``link``, ``t``, ``q_pkts``, ``q_bytes``, and
        ``sojourn_s`` (queueing delay of the last packet sent by ``t``); for very long runs read its
        file in batches (``pyarrow.parquet.ParquetFile(r.table_paths["queue_samples"]).iter_batches()``)."""
    )
    aqm_samples = _Table(
        """The sampled link directions' AQM state at every queue sample, a row per variable: ``link``,
        ``t``, ``variable`` (e.g. ``p``, ``avg``; docs/aqm.md), ``value``; no rows for drop-tail."""
    )
    cwnd_trace = _Table(
        "The traced flows' windows at every change: ``flow``, ``t``, ``cwnd``, ``ssthresh``, ``timeouts``."
    )
    flow_series = _Table(
        """With ``measure.flow_series``, every flow's bytes delivered per sample interval: ``flow``, ``t``
        (the interval's end), ``bytes_delivered`` (in the interval); empty otherwise."""
    )
    user_series = _Table(
        """With ``measure.user_series``, per ``[[web_users]]`` generator and sample: ``generator``, ``t``,
        ``waiting`` (users fetching a page), ``thinking``; empty otherwise."""
    )
    window_links = _Table(
        """With ``measure.window``, per link direction and window from the warm-up on: ``link``,
        ``t_start``, ``t_end``, ``arrivals``, ``drops``, ``marks``, ``departure_bytes``; empty otherwise."""
    )
    window_responses = _Table(
        """With ``measure.window``, per class and window in which it completed pairs: ``class``,
        ``t_start``, ``t_end``, ``pairs``, ``mean_s``, ``p50_s``, ``p90_s``, ``p99_s``; empty otherwise."""
    )

    @property
    def table_paths(self) -> dict[str, Path]:
        """The Parquet file of each table, by name."""
        return {name: self.tables_dir / f"{name}.parquet" for name in TABLES}

    @property
    def pairs_path(self) -> Path | None:
        """The ``pairs.parquet`` of this run (None when pair records are off)."""
        path = self.tables_dir / PAIRS_FILE
        return path if path.exists() else None

    def table(self, name: str) -> pd.DataFrame:
        """Table ``name`` (one of :data:`TABLES`), read from its file on first access."""
        if name not in self.frames:
            import pandas as pd

            path = self.table_paths[name]
            if not path.exists():
                raise FileNotFoundError(
                    f"{self.tables_dir}: no {path.name}; the run folder was written by an earlier aqmlab "
                    f"without the {name} table: run the scenario again"
                )
            self.frames[name] = pd.read_parquet(path)
        return self.frames[name]

    def records(self, name: str) -> list[dict]:
        """The rows of table ``name`` as dicts: from :attr:`columns` when the engine returned it, else
        read from its file."""
        if name in self.columns:
            cols = self.columns[name]
            return [dict(zip(cols, row, strict=True)) for row in zip(*cols.values(), strict=True)]
        return self.table(name).to_dict("records")

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
        import pandas as pd

        return pd.read_parquet(self.pairs_path)

    def response_cdf(self, cls: str | None = None) -> pd.DataFrame:
        """The response-time CDF of one class (None: every class together) from the histogram
        ``response_bins``: columns ``x_s`` (seconds; a bin's upper edge, after a first row at the lowest
        bin's lower edge) and ``fraction`` (of the pairs with a response time up to ``x_s``). Bins are
        2.3% wide, so this is exact at the edges; empty when there are no pairs."""
        import pandas as pd

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
        import pandas as pd

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
            files = [*self.table_paths.values(), *([self.pairs_path] if self.pairs_path else [])]
            for source in files:
                path = tmp / source.name
                if source != path:  # not written into this folder by the engine: copied, not read
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
    :func:`run` returned it: the summary, and the tables and pair records read from their files on
    access."""
    folder = Path(folder)
    summary_path = folder / "summary.json"
    if not summary_path.exists():
        raise FileNotFoundError(f"{folder}: not a run folder (no summary.json)")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    result = RunResult(
        summary=summary,
        tables_dir=folder,
        scenario_text=summary.get("scenario_original", summary.get("scenario", "")),
    )
    captures = {link: folder / PCAP_DIR / pcap_file_name(link) for link in result.links["link"]}
    result.pcap_paths = {link: path for link, path in captures.items() if path.is_file()}
    return result
