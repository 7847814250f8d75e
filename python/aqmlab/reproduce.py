"""`aqmlab reproduce STUDY`: calibrate where the study calibrated, run its simulations (locally or on a
Dask cluster, resumable: each run is stored under the hash of its resolved scenario, seed and aqmlab
version exactly as `aqmlab sweep` stores it), and write the report folder."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

from aqmlab import __version__, _core, runner, studies, sweep
from aqmlab.report import write_report
from aqmlab.studies.base import RunOutcome, StudyRun

#: progress(kind, info): kind is "start" (info: total, todo), "done" or "failed" (info: label).
Progress = Callable[[str, dict], object]


class ReproduceError(RuntimeError):
    pass


def _label(spec: StudyRun) -> str:
    return " ".join(f"{k}={v}" for k, v in spec.labels) + f" seed={spec.seed}"


def execute(
    specs: list[StudyRun],
    runs_dir: Path,
    *,
    jobs: int | None = None,
    dask: str | None = None,
    progress: Progress | None = None,
    on_stored: Callable[[RunOutcome], object] | None = None,
) -> list[RunOutcome]:
    """Runs every spec not already complete in `runs_dir` and returns all outcomes in spec order, calling
    `on_stored` on each run as soon as it is stored. Another process using `runs_dir` at the same time is
    an error (its unfinished runs' folders are live)."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    try:
        with sweep.FolderLock(runs_dir):
            return _execute(specs, runs_dir, jobs=jobs, dask=dask, progress=progress, on_stored=on_stored)
    except sweep.SweepError as e:
        raise ReproduceError(str(e)) from None


def _execute(
    specs: list[StudyRun],
    runs_dir: Path,
    *,
    jobs: int | None,
    dask: str | None,
    progress: Progress | None,
    on_stored: Callable[[RunOutcome], object] | None = None,
) -> list[RunOutcome]:
    sweep.clean_runs_dir(runs_dir)
    emit = progress or (lambda kind, info: None)
    hashes, tasks, labels, spec_of = [], {}, {}, {}
    for spec in specs:
        file = "<study>"
        resolved = _core.resolve(spec.scenario, file, list(spec.overrides), spec.seed)
        h = sweep.run_hash(resolved, spec.seed)
        hashes.append(h)
        labels.setdefault(h, _label(spec))
        spec_of.setdefault(h, spec)
        if h not in tasks and not sweep.is_complete(runs_dir / h):
            tasks[h] = sweep.task(h, spec.scenario, file, spec.overrides, spec.seed, runs_dir)
    emit("start", {"total": len(specs), "todo": len(tasks)})
    failures: list[str] = []

    def on_result(task: dict, payload: dict | None, error: str | None) -> None:
        h = task["hash"]
        if payload is None:
            failures.append(f"{labels[h]}: {error}")
            emit("failed", {"label": labels[h], "error": error})
            return
        sweep.store_run(runs_dir, payload)
        if on_stored:
            on_stored(RunOutcome(spec_of[h], runs_dir / h))
        emit("done", {"label": labels[h], "wall_s": payload["wall_s"]})

    if tasks:
        runner.execute(list(tasks.values()), on_result, jobs=max(1, jobs or os.cpu_count() or 1), dask=dask)
    if failures:
        raise ReproduceError(f"{len(failures)} run(s) failed; first: {failures[0]}")
    return [RunOutcome(spec, runs_dir / h) for spec, h in zip(specs, hashes, strict=True)]


def reproduce(
    name: str,
    *,
    quick: bool = False,
    seeds: int | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    out: str | os.PathLike | None = None,
    progress: Progress | None = None,
    variant: str | None = None,
) -> Path:
    """Reproduces study `name` (or its `variant`) and returns the path of its report.html."""
    if name not in studies.NAMES:
        raise ReproduceError(f"unknown study {name!r}; choose one of {', '.join(studies.NAMES)}")
    study = studies.load(name)
    if variant:
        if variant not in study.variants:
            known = ", ".join(study.variants) or "none"
            raise ReproduceError(f"study {name} has no variant {variant!r}; its variants: {known}")
        study = study.variants[variant]()
    seeds = seeds or (study.quick_seeds if quick else study.seeds)
    stem = "-".join([name, *([variant] if variant else []), *(["quick"] if quick else [])])
    out = Path(out or Path("reports") / stem)
    runs_dir = out / "runs"
    t0 = time.perf_counter()

    def run_specs(specs: list[StudyRun]) -> list[RunOutcome]:
        return execute(specs, runs_dir, jobs=jobs, dask=dask, progress=progress, on_stored=study.reduce)

    calibration = study.calibrate(quick, run_specs) if study.calibrate else None
    outcomes = run_specs(study.runs(quick, seeds, calibration))
    tables = study.tables(outcomes)
    findings = study.findings(outcomes)
    figures = study.figures(outcomes, out)
    facts = {
        "mode": "quick" if quick else "full",
        **({"variant": variant} if variant else {}),
        "seeds": seeds,
        "runs": len(outcomes),
        "aqmlab": __version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "wall time (this invocation)": f"{time.perf_counter() - t0:.0f} s",
        "full version's run time": study.full_runtime,
    }
    if calibration:
        facts["calibration"] = ", ".join(f"{k} = {v:.4g}" for k, v in calibration.items())
    return write_report(study, out, tables, findings, figures, facts)
