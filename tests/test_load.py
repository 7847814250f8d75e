"""`aqmlab.load_run` and `aqmlab.load_sweep` give back what `run` and `run_sweep` returned, from the folders
they wrote (for notebooks and later analysis)."""

from __future__ import annotations

import pandas as pd
import pytest

import aqmlab
from aqmlab import api, sweep
from conftest import EXAMPLE

SHORT = ["duration=4", "measure.warmup=1"]


def test_load_run_gives_the_tables_run_returned(tmp_path):
    r = aqmlab.run(EXAMPLE, set=SHORT, out=tmp_path / "run")
    loaded = aqmlab.load_run(tmp_path / "run")
    assert loaded.summary == {**r.summary, **r.scenario_record()}
    for name in api.TABLES:
        pd.testing.assert_frame_equal(getattr(loaded, name), getattr(r, name), check_dtype=False)
    assert loaded.pairs is None and loaded.scenario_text == r.scenario_text


def test_load_sweep_gives_the_counts_failures_and_aggregate(tmp_path):
    out = tmp_path / "sw"
    res = sweep.run_sweep(EXAMPLE, grid=["duration=1,4"], sets=["measure.warmup=1"], seeds=2, jobs=1, out=out)
    loaded = aqmlab.load_sweep(out)
    assert (loaded.total, loaded.unique, loaded.done) == (res.total, res.unique, 0)
    assert loaded.skipped == res.done == 2 and loaded.failed == res.failed and len(res.failed) == 2
    pd.testing.assert_frame_equal(loaded.aggregate, res.aggregate)
    # Each run folder loads as a run.
    run = aqmlab.load_run(out / "runs" / loaded.aggregate["run"].iloc[0])
    assert run.summary["duration_s"] == 4.0


def test_loading_something_else_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a run folder"):
        aqmlab.load_run(tmp_path)
    with pytest.raises(FileNotFoundError, match="not a sweep folder"):
        aqmlab.load_sweep(tmp_path)
