"""Parameter sweeps: many runs of one scenario, content-addressed, resumable, local or on Dask.

A sweep is the cross product of the ``grid`` lists, times the paired ``zip`` lists (they vary together),
times the seeds, each run with the common ``sets`` applied first. Every run is identified by a short
sha256 of its fully resolved scenario text (``_core.resolve``: overrides and seed applied), its seed and
the aqmlab version, and lives in ``OUT/runs/<hash>/`` (a normal run folder). A run whose folder has a
``summary.json`` is complete and is skipped when the sweep is repeated; folders appear atomically
(written into a temporary sibling, then renamed), so an interrupted sweep resumes with nothing lost,
duplicated or half-written. ``OUT/sweep.json`` records the definition and the list of runs;
``OUT/aggregate.parquet`` (rebuilt from the run folders at the end of every sweep) holds one row per
run, scope (link direction, traffic class, response class or the run itself) and metric.

Simulations run in worker processes or on a Dask cluster (:mod:`aqmlab.runner`). Either way the worker
streams the run's growing tables (queue samples, window trace, pair records) into the run folder under a
temporary name in ``OUT/runs/``, and this process renames it into place; so a run's memory does not grow
with its length, and only the process holding ``OUT/.lock`` completes run folders. A Dask worker that
does not see ``OUT`` (no shared file system) writes the folder locally and sends its files back instead.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pandas as pd

from aqmlab import __version__, _core, api, runner
from aqmlab.fsutil import fsync_path, write_file

__all__ = [
    "RunSpec",
    "SweepError",
    "SweepResult",
    "build_aggregate",
    "load_sweep",
    "parse_assignment",
    "plan_sweep",
    "run_hash",
    "run_sweep",
    "split_values",
]

#: Length of the hex run identifier (64 bits of the sha256).
HASH_CHARS = 16
#: Columns of the aggregate table besides one column per swept parameter.
AGGREGATE_COLUMNS = ("run", "seed", "scope", "entity", "metric", "value")
#: Metrics of the aggregate table, per scope: (metric, source column, how several rows combine).
LINK_METRICS = (
    "utilization",
    "q_mean_pkts",
    "q_std_pkts",
    "q_max_pkts",
    "arrivals",
    "departures",
    "drops",
    "drops_overflow",
    "drops_early",
    "loss_rate",
    "marks",
)
CLASS_METRICS = (
    ("flows", "flow", "count"),
    ("goodput_bps", "goodput_bps", "sum"),
    ("goodput_per_flow_bps", "goodput_bps", "mean"),
    ("bytes_delivered", "bytes_delivered", "sum"),
    ("retransmits", "retransmits", "sum"),
    ("timeouts", "timeouts", "sum"),
)
RESPONSE_METRICS = ("pairs", "incomplete", "mean_s", "p10_s", "p50_s", "p90_s", "p99_s")
RUN_METRICS = ("events", "link_forwards", "end_s", "wall_s")
#: Metrics that measure the machine, not the model: they differ between identical runs.
WALL_TIME_METRICS = ("wall_s",)

_TMP_RE = re.compile(r"^\..+\.(tmp|old)-")
_HASH_RE = re.compile(rf"^[0-9a-f]{{{HASH_CHARS}}}$")
_KEY_RE = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")


class SweepError(api.ScenarioError):
    """A sweep definition that cannot be run: a malformed ``--grid``/``--zip``/``--seeds``, zip lists of
    different lengths, a key given twice, or a scenario that no combination can run."""


# ------------------------------------------------------------------------------------------- definition


def split_values(text: str) -> list[str]:
    """Splits ``v1,v2,...`` at the commas outside braces, brackets and quoted strings, so that TOML inline
    tables and arrays stay whole: ``{kind="red"},{kind="pi", a=1}`` gives two values. Raises
    ``ValueError`` for unbalanced brackets or an unterminated string."""
    parts: list[str] = []
    depth: list[str] = []
    closing = {"{": "}", "[": "]"}
    buf: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            triple = text[i : i + 3] == c * 3
            quote = c * 3 if triple else c
            j = i + len(quote)
            while True:
                if j >= n:
                    raise ValueError(f"unterminated string starting at character {i + 1}")
                if c == '"' and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    j += len(quote)
                    break
                j += 1
            buf.append(text[i:j])
            i = j
            continue
        if c in closing:
            depth.append(closing[c])
        elif c in "}]":
            if not depth or depth[-1] != c:
                raise ValueError(f"unbalanced `{c}` at character {i + 1}")
            depth.pop()
        elif c == "," and not depth:
            parts.append("".join(buf))
            buf = []
            i += 1
            continue
        buf.append(c)
        i += 1
    if depth:
        raise ValueError(f"unclosed `{ {'}': '{', ']': '['}[depth[-1]] }`")
    parts.append("".join(buf))
    return [p.strip() for p in parts]


def parse_assignment(spec: str, option: str = "--grid") -> tuple[str, list[str]]:
    """Parses ``key=v1,v2,...`` into the key and the value texts (each a TOML value, or a bare word taken as
    a string, exactly as ``--set`` takes it). Raises :class:`SweepError` with a one-line message."""
    key, eq, values = spec.partition("=")
    key = key.strip()
    if not eq or not key:
        raise SweepError(f"{option} {spec!r}: expected key=value1,value2,...")
    if not _KEY_RE.match(key):
        raise SweepError(
            f"{option} {spec!r}: `{key}` is not a dotted key such as dumbbell.pairs or flows.0.rate"
        )
    if key == "seed":
        raise SweepError(f"{option} {spec!r}: vary the seed with --seeds K or --seed-list instead")
    if key in AGGREGATE_COLUMNS:
        raise SweepError(f"{option} {spec!r}: `{key}` clashes with a column of the aggregate table")
    try:
        items = split_values(values)
    except ValueError as e:
        raise SweepError(f"{option} {spec!r}: {e}") from None
    for k, item in enumerate(items, 1):
        if not item:
            raise SweepError(f"{option} {spec!r}: value {k} of {len(items)} is empty")
    seen: set[str] = set()
    for item in items:
        if item in seen and option == "--grid":  # a --zip list may repeat a value (its rows differ)
            raise SweepError(f"{option} {spec!r}: the value {item} is listed twice")
        seen.add(item)
    return key, items


def _assignments(
    specs: Iterable[str] | Mapping[str, Sequence[Any]], option: str
) -> list[tuple[str, list[str]]]:
    """``--grid``/``--zip`` strings, or (API) a mapping of key to a list of values; Python values are
    written as TOML (strings as bare words unless they need quotes)."""
    if isinstance(specs, Mapping):
        out = []
        for key, vals in specs.items():
            if isinstance(vals, str | bytes) or not isinstance(vals, Sequence):
                raise SweepError(f"{option} {key}: expected a list of values, got {vals!r}")
            texts = [_toml_value(v) for v in vals]
            out.append(parse_assignment(f"{key}=" + ",".join(texts), option))
            if len(out[-1][1]) != len(texts):  # a value text containing a top-level comma
                raise SweepError(f"{option} {key}: cannot represent the values {list(vals)!r}")
        return out
    return [parse_assignment(s, option) for s in specs]


def _toml_value(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    import tomli_w

    return tomli_w.dumps({"v": v}).partition("=")[2].strip()


def parse_seeds(seeds: int | Iterable[int] | str | None) -> list[int]:
    """``K`` (seeds 1..K), a list of seeds, or a ``"1,5,9"`` string."""
    if seeds is None:
        return [1]
    if isinstance(seeds, str):
        try:
            seeds = [int(s) for s in seeds.split(",")]
        except ValueError:
            raise SweepError(f"--seed-list {seeds!r}: expected whole numbers separated by commas") from None
    if isinstance(seeds, int):
        if seeds < 1:
            raise SweepError(f"--seeds {seeds}: expected at least 1 seed")
        return list(range(1, seeds + 1))
    out = [int(s) for s in seeds]
    if not out:
        raise SweepError("--seed-list: no seeds")
    for s in out:
        if not 0 <= s < 2**64:
            raise SweepError(f"--seed-list: seed {s} is out of range (0 .. 2^64-1)")
    if len(set(out)) != len(out):
        raise SweepError("--seed-list: a seed is listed twice")
    return out


def run_hash(resolved_text: str, seed: int, version: str = __version__) -> str:
    """The run's identifier: the first 16 hex digits of the sha256 of a canonical JSON document holding
    the aqmlab version, the seed and the resolved scenario text."""
    doc = json.dumps(
        {"aqmlab_version": version, "scenario": resolved_text, "seed": seed},
        sort_keys=True,
        ensure_ascii=True,
    )
    return hashlib.sha256(doc.encode()).hexdigest()[:HASH_CHARS]


@dataclass
class RunSpec:
    """One planned run: its hash, the swept parameters (key → value text), its seed and everything a
    worker needs to simulate it."""

    hash: str
    params: dict[str, str]
    seed: int
    overrides: list[str]
    #: Set when the scenario of this combination is invalid (the run is reported as failed, not run).
    error: str | None = None

    def label(self) -> str:
        return " ".join([*(f"{k}={v}" for k, v in self.params.items()), f"seed={self.seed}"])


@dataclass
class Plan:
    scenario_text: str
    scenario_file: str
    grid: list[tuple[str, list[str]]]
    zip: list[tuple[str, list[str]]]
    sets: list[str]
    seeds: list[int]
    runs: list[RunSpec]
    #: Settings legal but probably not meant, once per combination that has them (with its parameters).
    warnings: list[str] = field(default_factory=list)

    def definition(self) -> dict:
        return {
            "aqmlab_version": __version__,
            "scenario_file": self.scenario_file,
            "scenario_sha256": hashlib.sha256(self.scenario_text.encode()).hexdigest(),
            "grid": {k: v for k, v in self.grid},
            "zip": {k: v for k, v in self.zip},
            "sets": self.sets,
            "seeds": self.seeds,
            "runs": [{"hash": r.hash, "params": r.params, "seed": r.seed} for r in self.runs],
        }


def plan_sweep(
    scenario: str | os.PathLike | Mapping[str, Any],
    *,
    grid: Iterable[str] | Mapping[str, Sequence[Any]] = (),
    zip: Iterable[str] | Mapping[str, Sequence[Any]] = (),  # noqa: A002 - the option's name
    sets: Iterable[str] = (),
    seeds: int | Iterable[int] | str | None = None,
) -> Plan:
    """Expands a sweep definition into its runs (in order: grid product, then zip index, then seed) and
    hashes each. Every distinct scenario is checked (``_core.validate``); combinations that fail are
    kept with their error, but if every combination fails the definition itself is wrong and
    :class:`SweepError` is raised."""
    text, label = api.load_scenario(scenario)
    g = _assignments(grid, "--grid")
    z = _assignments(zip, "--zip")
    sets = [str(s) for s in sets]
    seed_list = parse_seeds(seeds)
    keys: dict[str, str] = {}
    for opt, pairs in (("--grid", g), ("--zip", z)):
        for key, _ in pairs:
            if key in keys:
                raise SweepError(f"{opt} {key}: the key is also given by {keys[key]} {key}")
            keys[key] = opt
    for s in sets:
        key = s.partition("=")[0].strip()
        if key in keys:
            raise SweepError(f"--set {s}: `{key}` is also swept by {keys[key]}")
    if z:
        lengths = {key: len(vals) for key, vals in z}
        if len(set(lengths.values())) > 1:
            desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
            raise SweepError(f"--zip lists must have the same length: {desc}")
        zip_rows = [[(key, vals[i]) for key, vals in z] for i in range(len(z[0][1]))]
    else:
        zip_rows = [[]]
    combos: list[list[tuple[str, str]]] = []
    for product in itertools.product(*[[(key, v) for v in vals] for key, vals in g]):
        for zrow in zip_rows:
            combos.append([*product, *zrow])

    runs: list[RunSpec] = []
    failures: list[str] = []
    warnings: list[str] = []
    for combo in combos:
        params = dict(combo)
        overrides = [*sets, *(f"{k}={v}" for k, v in combo)]
        where = " ".join(f"{k}={v}" for k, v in combo)
        in_runs = f" (in the runs with {where})" if where else ""
        error = None
        try:
            desc = json.loads(_core.validate(text, label, overrides, seed_list[0]))
            warnings += [w + in_runs for w in desc["warnings"]]
        except ValueError as e:  # reported with the run's parameters; or, if all fail, raised below
            error = str(e)
            failures.append(error + in_runs)
        for seed in seed_list:
            try:
                resolved = _core.resolve(text, label, overrides, seed)
            except ValueError as e:  # an override that cannot be applied: the definition is wrong
                msg = str(e)
                for key, value in combo:  # the engine calls every override `--set`
                    if msg.startswith(f"--set: {key}={value}:"):
                        msg = keys[key] + msg[len("--set") :]
                raise SweepError(msg + (f" (in the runs with {where})" if where else "")) from None
            runs.append(RunSpec(run_hash(resolved, seed), params, seed, overrides, error))
    if failures and len(failures) == len(combos):
        raise SweepError(failures[0])
    return Plan(text, label, g, z, sets, seed_list, runs, warnings)


# ------------------------------------------------------------------------------------------------ storage


def _check_plan_extends(path: Path, plan: Plan) -> None:
    """Refuses a folder whose ``sweep.json`` lists runs this plan does not have: the sweep would replace
    the earlier one's record and aggregate with fewer or other runs. The same plan (a resume) or one
    with more seeds or values passes."""
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return
    except (OSError, ValueError) as e:
        raise SweepError(f"{path}: unreadable ({e}); pass --force to replace it") from None
    now = plan.definition()
    if {r["hash"] for r in earlier.get("runs", [])} <= {r["hash"] for r in now["runs"]}:
        return

    def describe(d: dict) -> str:
        runs, seeds = len(d.get("runs", [])), d.get("seeds")
        return f"{runs} runs, grid {d.get('grid')}, zip {d.get('zip')}, sets {d.get('sets')}, seeds {seeds}"

    raise SweepError(
        f"{path.parent}: holds a different sweep ({describe(earlier)}; this one: {describe(now)}); "
        "choose another --out, or pass --force to replace its sweep.json and aggregate.parquet"
    )


def is_complete(folder: Path) -> bool:
    return (folder / "summary.json").is_file()


def clean_runs_dir(runs_dir: Path) -> int:
    """Removes what an interrupted sweep can leave in ``runs/``: temporary folders (``.<hash>.tmp-*``,
    ``.<hash>.old-*``) and run folders without ``summary.json``. Returns how many were removed."""
    removed = 0
    if not runs_dir.is_dir():
        return 0
    for entry in runs_dir.iterdir():
        stale = _TMP_RE.match(entry.name) or (
            _HASH_RE.match(entry.name) and entry.is_dir() and not is_complete(entry)
        )
        if stale:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed += 1
    return removed


def write_run_folder(runs_dir: Path, run_hash_: str, files: Mapping[str, bytes]) -> Path:
    """Writes a run folder from its files' bytes atomically: a temporary sibling, every file flushed,
    then :func:`commit_run_folder`. On any failure (Ctrl-C included) the temporary folder is removed; a
    process killed outright leaves it behind for :func:`clean_runs_dir`."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{run_hash_}.tmp-", dir=runs_dir))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)
        for name in sorted(files, key=lambda n: n == "summary.json"):  # summary.json last
            if "/" in name or name.startswith("."):
                raise ValueError(f"unexpected file name in a run folder: {name!r}")
            write_file(tmp / name, files[name])
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return commit_run_folder(runs_dir, run_hash_, tmp)


def commit_run_folder(runs_dir: Path, run_hash_: str, tmp: Path) -> Path:
    """Puts a run folder written under the temporary name ``tmp`` (in ``runs_dir``, its files flushed) in
    place as ``runs_dir/<hash>``: the folder fsynced, then renamed. On any failure the temporary folder
    is removed; a process killed outright leaves it behind for :func:`clean_runs_dir`."""
    final = runs_dir / run_hash_
    try:
        fsync_path(tmp)
        if is_complete(final):  # someone else finished it meanwhile: identical content
            shutil.rmtree(tmp, ignore_errors=True)
            return final
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        fsync_path(runs_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def store_run(runs_dir: Path, payload: Mapping[str, Any]) -> Path:
    """Puts the run folder of a task's payload (:func:`aqmlab.runner.worker.simulate`) in place: renamed
    from where the worker wrote it, or written from the files a worker that cannot see ``runs_dir``
    sent."""
    if "files" in payload:
        return write_run_folder(runs_dir, payload["hash"], payload["files"])
    return commit_run_folder(runs_dir, payload["hash"], Path(payload["staged"]))


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class FolderLock:
    """An exclusive lock on ``OUT/.lock`` (released by the kernel if the process dies): one process at a
    time completes run folders in ``OUT``, and only it may clear the temporary folders of unfinished runs
    (another process's would be live ones)."""

    def __init__(self, out: Path) -> None:
        self.path = out / ".lock"
        self.fd: int | None = None

    def __enter__(self) -> FolderLock:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            self.fd = None
            raise SweepError(
                f"{self.path.parent}: another aqmlab process (a sweep or a reproduction) is writing into "
                "this folder"
            ) from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


# ------------------------------------------------------------------------------------------------- worker


def task_of(plan: Plan, run: RunSpec, runs_dir: Path) -> dict:
    """What a worker needs for one run (plain data: it is pickled to worker processes and Dask)."""
    return task(run.hash, plan.scenario_text, plan.scenario_file, run.overrides, run.seed, runs_dir)


def task(run_hash_: str, text: str, file: str, overrides: Sequence[str], seed: int, runs_dir: Path) -> dict:
    """A task: the run's hash, its scenario (``text``, named ``file``), overrides and seed, and the folder
    its run folder goes into (as an absolute path, for workers started elsewhere)."""
    return {
        "hash": run_hash_,
        "text": text,
        "file": file,
        "overrides": list(overrides),
        "seed": seed,
        "version": __version__,
        "runs_dir": str(runs_dir.absolute()),
    }


# ---------------------------------------------------------------------------------------------- aggregate


def _param_columns(runs: Sequence[RunSpec], keys: Sequence[str]) -> dict[str, list[Any]]:
    """Each swept key as a column: booleans, integers or floats when every value is one, else the value
    texts (inline tables and arrays stay as written, e.g. ``{kind="red"}``)."""
    cols: dict[str, list[Any]] = {}
    for key in keys:
        texts = [r.params[key] for r in runs]
        parsed = []
        for t in texts:
            try:
                parsed.append(tomllib.loads(f"v = {t}")["v"])
            except tomllib.TOMLDecodeError:
                parsed.append(t)
        if all(isinstance(v, bool) for v in parsed):
            cols[key] = parsed
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in parsed):
            cols[key] = parsed
        elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in parsed):
            cols[key] = [float(v) for v in parsed]
        elif all(isinstance(v, str) for v in parsed):
            cols[key] = parsed
        else:
            cols[key] = texts
    return cols


def _metric_rows(folder: Path) -> list[tuple[str, str, str, float]]:
    """(scope, entity, metric, value) rows of one run folder."""
    rows: list[tuple[str, str, str, float]] = []
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    for m in RUN_METRICS:
        if m in summary and summary[m] is not None:
            rows.append(("run", "", m, float(summary[m])))
    links = pd.read_parquet(folder / "links.parquet")
    for rec in links.to_dict("records"):
        for m in LINK_METRICS:
            if m in rec:
                rows.append(("link", str(rec["link"]), m, _float(rec[m])))
    flows_path = folder / "flows.parquet"
    flows = pd.read_parquet(flows_path) if flows_path.is_file() else pd.DataFrame()
    if len(flows) and "class" in flows:
        for cls, g in flows.groupby("class", sort=False):
            for metric, col, how in CLASS_METRICS:
                if col in g:
                    v = len(g) if how == "count" else getattr(g[col].astype("float64"), how)()
                    rows.append(("class", str(cls), metric, _float(v)))
    resp_path = folder / "responses.parquet"
    if resp_path.is_file():
        for rec in pd.read_parquet(resp_path).to_dict("records"):
            for m in RESPONSE_METRICS:
                if m in rec:
                    rows.append(("response", str(rec.get("class", "")), m, _float(rec[m])))
    return rows


def _float(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def build_aggregate(out: str | os.PathLike, plan: Plan | None = None, write: bool = True) -> pd.DataFrame:
    """The tidy aggregate table of a sweep folder, built from the run folders on disk: one row per run,
    scope, entity and metric, with every swept parameter as a column (see the README). Runs without a
    complete folder are left out. Uses ``plan`` or else ``OUT/sweep.json``; writes
    ``OUT/aggregate.parquet`` atomically when ``write``."""
    out = Path(out)
    if plan is not None:
        keys = [k for k, _ in plan.grid] + [k for k, _ in plan.zip]
        runs = plan.runs
    else:
        definition = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
        keys = list(definition["grid"]) + list(definition["zip"])
        runs = [RunSpec(r["hash"], r["params"], r["seed"], []) for r in definition["runs"]]
    runs = [r for r in runs if is_complete(out / "runs" / r.hash)]
    params = _param_columns(runs, keys)
    cache: dict[str, list[tuple[str, str, str, float]]] = {}
    data: dict[str, list[Any]] = {c: [] for c in ("run", "seed", *keys, "scope", "entity", "metric", "value")}
    for i, r in enumerate(runs):
        if r.hash not in cache:
            cache[r.hash] = _metric_rows(out / "runs" / r.hash)
        for scope, entity, metric, value in cache[r.hash]:
            data["run"].append(r.hash)
            data["seed"].append(r.seed)
            for k in keys:
                data[k].append(params[k][i])
            data["scope"].append(scope)
            data["entity"].append(entity)
            data["metric"].append(metric)
            data["value"].append(value)
    df = pd.DataFrame(data)
    df["seed"] = df["seed"].astype("int64")
    df["value"] = df["value"].astype("float64")
    for c in ("run", "scope", "entity", "metric"):
        df[c] = df[c].astype("str")
    if write:
        _write_atomic(out / "aggregate.parquet", api.parquet_bytes(df))
    return df


# -------------------------------------------------------------------------------------------------- sweep


@dataclass
class SweepResult:
    """What :func:`run_sweep` did: counts of runs (``total`` planned, ``unique`` distinct hashes, ``done``
    simulated now, ``skipped`` already complete, ``failed``), the failures (``hash``, ``params``,
    ``seed``, ``error``), the output folder and the aggregate table."""

    out: Path
    total: int
    unique: int
    done: int
    skipped: int
    failed: list[dict] = field(default_factory=list)
    aggregate: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    cleaned: int = 0
    wall_s: float = 0.0
    #: The plan's warnings (settings legal but probably not meant), as `aqmlab sweep` prints them.
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def _repr_html_(self) -> str:
        """In Jupyter: the counts of runs and the head of the aggregate table."""
        from aqmlab.display import result_html

        facts = [
            f"{self.total} runs planned",
            f"{self.done} simulated now",
            f"{self.skipped} already complete",
            f"{len(self.failed)} failed",
        ]
        return result_html(
            f"Sweep {self.out}", facts, [("Aggregate (a row per run and metric)", self.aggregate)]
        )


#: A progress event: ``kind`` is "start" (with the counts), "done", "failed" or "skipped".
ProgressCallback = Callable[[str, dict], object]


def load_sweep(out: str | os.PathLike) -> SweepResult:
    """The :class:`SweepResult` of a sweep folder, as :func:`run_sweep` returned it: the counts from
    ``sweep.json`` and the run folders (``done`` 0, as nothing is simulated now; ``skipped`` the runs
    complete on disk), the failures of ``failed.json`` and the aggregate table. Each run is a run folder
    under ``out/runs/<hash>`` for :func:`aqmlab.api.load_run`."""
    out = Path(out)
    plan_path = out / "sweep.json"
    if not plan_path.exists():
        raise FileNotFoundError(f"{out}: not a sweep folder (no sweep.json)")
    hashes = [r["hash"] for r in json.loads(plan_path.read_text(encoding="utf-8"))["runs"]]
    failed_path = out / "failed.json"
    aggregate_path = out / "aggregate.parquet"
    return SweepResult(
        out=out,
        total=len(hashes),
        unique=len(set(hashes)),
        done=0,
        skipped=sum(is_complete(out / "runs" / h) for h in set(hashes)),
        failed=json.loads(failed_path.read_text(encoding="utf-8")) if failed_path.exists() else [],
        aggregate=pd.read_parquet(aggregate_path)
        if aggregate_path.exists()
        else build_aggregate(out, write=False),
    )


class SweepDefinition(TypedDict, total=False):
    """The keyword arguments of :func:`plan_sweep` that :func:`run_sweep` passes on to it."""

    grid: Iterable[str] | Mapping[str, Sequence[Any]]
    zip: Iterable[str] | Mapping[str, Sequence[Any]]
    sets: Iterable[str]
    seeds: int | Iterable[int] | str | None


def run_sweep(
    scenario: str | os.PathLike | Mapping[str, Any],
    *,
    jobs: int | None = None,
    dask: str | None = None,
    out: str | os.PathLike = "results/sweep",
    progress: ProgressCallback | None = None,
    force: bool = False,
    **definition: Unpack[SweepDefinition],
) -> SweepResult:
    """Runs a sweep (see the module docstring) and returns a :class:`SweepResult`.

    ``grid``/``zip``/``sets``/``seeds`` define it as for :func:`plan_sweep`: ``grid``/``zip`` are
    ``key=v1,v2`` strings or mappings of key to values; ``seeds`` is ``K`` (seeds 1..K, the default 1),
    a list, or a ``"1,5,9"`` string. ``jobs`` is the number of worker processes
    (default: the number of CPUs; with ``dask="local"`` the number of Dask workers); ``dask`` is a
    scheduler address or ``"local"``. ``progress(kind, info)`` is called from this process. Ctrl-C stops
    the workers and raises ``KeyboardInterrupt``; run folders already written stay, and a repeated call
    resumes. Bad definitions raise :class:`SweepError`, and so does an ``out`` folder holding a sweep with
    runs this one does not have, unless ``force`` (its ``sweep.json`` and ``aggregate.parquet`` are then
    replaced; run folders stay).
    """
    t0 = time.perf_counter()
    plan = plan_sweep(scenario, **definition)
    jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SweepError(f"{out}: exists and is not a folder")
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    emit = progress or (lambda kind, info: None)
    with FolderLock(out):
        if not force:
            _check_plan_extends(out / "sweep.json", plan)
        cleaned = clean_runs_dir(runs_dir)
        _write_atomic(out / "sweep.json", (json.dumps(plan.definition(), indent=2) + "\n").encode())
        by_hash: dict[str, list[RunSpec]] = {}
        for r in plan.runs:
            by_hash.setdefault(r.hash, []).append(r)
        skipped = [h for h in by_hash if is_complete(runs_dir / h)]
        invalid = [h for h in by_hash if h not in skipped and by_hash[h][0].error]
        todo = [h for h in by_hash if h not in skipped and h not in invalid]
        failed: list[dict] = []
        done = 0
        emit(
            "start",
            {
                "total": len(plan.runs),
                "unique": len(by_hash),
                "skipped": len(skipped),
                "todo": len(todo),
                "invalid": len(invalid),
                "cleaned": cleaned,
                "warnings": plan.warnings,
            },
        )

        def fail(h: str, error: str) -> None:
            for r in by_hash[h]:
                rec = {"hash": h, "params": r.params, "seed": r.seed, "error": error}
                failed.append(rec)
                emit("failed", {**rec, "label": r.label()})

        for h in invalid:
            fail(h, by_hash[h][0].error or "")

        def on_result(task: dict, payload: dict | None, error: str | None) -> None:
            nonlocal done
            h = task["hash"]
            if payload is None:
                fail(h, error or "unknown error")
                return
            store_run(runs_dir, payload)
            done += 1
            emit("done", {"hash": h, "label": by_hash[h][0].label(), "wall_s": payload["wall_s"]})

        tasks = [task_of(plan, by_hash[h][0], runs_dir) for h in todo]
        if tasks:
            runner.execute(tasks, on_result, jobs=jobs, dask=dask)
        fail_path = out / "failed.json"
        if failed:
            _write_atomic(fail_path, (json.dumps(failed, indent=2) + "\n").encode())
        else:
            fail_path.unlink(missing_ok=True)
        aggregate = build_aggregate(out, plan)
    return SweepResult(
        out=out,
        total=len(plan.runs),
        unique=len(by_hash),
        done=done,
        skipped=len(skipped),
        failed=failed,
        aggregate=aggregate,
        cleaned=cleaned,
        wall_s=time.perf_counter() - t0,
        warnings=plan.warnings,
    )
