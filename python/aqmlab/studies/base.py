"""What a reproducible study is made of: the runs it needs, and how their results become the paper's
tables, figures and findings. Each study module (weigle2005, le2003, chrost2009) defines one `Study`."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class StudyRun:
    """One simulation of a study: a scenario (TOML text), the labels that place it in the study's tables, a
    seed."""

    labels: tuple[tuple[str, str], ...]
    scenario: str
    seed: int
    overrides: tuple[str, ...] = ()

    def label(self, key: str) -> str:
        return dict(self.labels)[key]


@dataclass
class RunOutcome:
    """A finished run: its spec and its run folder."""

    spec: StudyRun
    folder: Path

    def table(self, name: str) -> pd.DataFrame:
        return pd.read_parquet(self.folder / f"{name}.parquet")

    def summary(self) -> dict:
        """The run's summary.json (seed, warmup_s, end_s, wall_s, ...)."""
        return json.loads((self.folder / "summary.json").read_text())


@dataclass
class Table:
    """A paper table: rows of simulated values (mean and 95% interval over seeds) beside the paper's."""

    title: str
    frame: pd.DataFrame
    note: str = ""


@dataclass
class Finding:
    """A claim of the paper, checked against the simulated numbers."""

    claim: str
    reproduced: bool
    evidence: str
    #: The same check on a reference simulator's runs of the same scenario (study W: its ns-2.35 twin),
    #: where they exist: its evidence, and whether it reproduces the claim (None: not run there).
    reference: str = ""
    reference_reproduced: bool | None = None

    @property
    def verdict(self) -> str:
        """'reproduced', or 'NOT reproduced', saying so when the reference simulator misses it too (a miss
        ns-2 shares is the paper's or the reading's, not aqmlab's model)."""
        if self.reproduced:
            return "reproduced"
        if self.reference_reproduced is False:
            return "NOT reproduced, nor by the reference simulator"
        return "NOT reproduced"


@dataclass
class Figure:
    title: str
    stem: str  # file name without extension; PNG and SVG are written
    caption: str = ""


@dataclass
class Study:
    name: str
    title: str
    citation: str
    runs: Callable[[bool, int, dict | None], list[StudyRun]]  # (quick, seeds, calibration) -> runs
    tables: Callable[[list[RunOutcome]], list[Table]]
    findings: Callable[[list[RunOutcome]], list[Finding]]
    figures: Callable[[list[RunOutcome], Path], list[Figure]]
    notes: list[str] = field(default_factory=list)
    #: (quick, execute) -> calibration passed to `runs`; `execute(specs)` returns their outcomes.
    calibrate: Callable[[bool, Callable[[list[StudyRun]], list[RunOutcome]]], dict] | None = None
    full_runtime: str = ""
    #: Seeds per configuration when `--seeds` is not given, of the full version and of `--quick`.
    seeds: int = 3
    quick_seeds: int = 1
    #: Called on each run as soon as it is stored, while the others still run: e.g. to reduce large files
    #: (packet captures) to the numbers the study needs.
    reduce: Callable[[RunOutcome], object] | None = None
    #: The variant this is ("" for the study's own setting), and the other variants by name (`aqmlab
    #: reproduce STUDY --variant NAME`), each built on demand: e.g. le2003's "packmime" traffic.
    variant: str = ""
    variants: dict[str, Callable[[], Study]] = field(default_factory=dict)


def mean_ci(values: Iterable[float]) -> tuple[float, float]:
    """Mean and half-width of the 95% confidence interval (Student t) of a small sample."""
    xs = [v for v in values if v == v]  # drop NaN
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    m = sum(xs) / n
    if n == 1:
        return m, math.nan
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    # Imported here: scipy.stats takes seconds to import, which every aqmlab command would pay.
    from scipy import stats

    return m, float(stats.t.ppf(0.975, n - 1)) * math.sqrt(var / n)


def paired_effect(a: dict[int, float], b: dict[int, float]) -> tuple[float, float, int]:
    """Effect of b over a, paired by seed: mean and 95% half-width of b[s] - a[s] over the seeds both have
    (the study's configurations share their traffic draws per seed), and the number of seeds."""
    diffs = [b[s] - a[s] for s in sorted(a.keys() & b.keys())]
    return (*mean_ci(diffs), len(diffs))


def shows_effect(m: float, h: float) -> bool:
    """An effect (mean `m`, 95% half-width `h`) is positive and its interval over seeds excludes zero; one
    seed (no interval) shows nothing."""
    return h == h and m - h > 0


def fmt_effect(m: float, h: float, unit: str, digits: int = 0) -> str:
    return f"{m:+.{digits}f} ± {h:.{digits}f} {unit}" if h == h else f"{m:+.{digits}f} {unit} (one seed)"


def fmt_ci(mean: float, half: float, digits: int = 1) -> str:
    if mean != mean:
        return "–"
    if half != half:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {half:.{digits}f}"
