"""Closed-loop web users (`[[web_users]]`) in the Python results: the users fetching a page and thinking
over time (`measure.user_series`), in the run folder and read back by load_run."""

from __future__ import annotations

import pytest

import aqmlab
from test_calibrate_users import SMALL_USERS

COLUMNS = ["generator", "t", "waiting", "thinking"]


def test_user_series_reaches_the_run_folder(tmp_path):
    scenario = tmp_path / "users.toml"
    scenario.write_text(SMALL_USERS)
    sampled = ["duration=20s", "measure.user_series=true", 'measure.sample_interval="1s"']
    r = aqmlab.run(scenario, set=sampled, out=tmp_path / "run")
    assert (tmp_path / "run" / "user_series.parquet").is_file()
    loaded = aqmlab.load_run(tmp_path / "run")
    for res in (r, loaded):
        series = res.user_series
        assert list(series.columns) == COLUMNS and set(series["generator"]) == {"users"}
        # Every user is fetching a page or thinking, sampled every second after the warm-up.
        assert ((series["waiting"] + series["thinking"]) == 20).all() and len(series) >= 10
        assert series["waiting"].max() > 0
    # Off by default: the table is there, empty; a run folder from before the table says so on access.
    plain = aqmlab.run(scenario, set=["duration=6s"], out=tmp_path / "plain")
    assert plain.user_series.empty and list(plain.user_series.columns) == COLUMNS
    (tmp_path / "plain" / "user_series.parquet").unlink()
    old = aqmlab.load_run(tmp_path / "plain")
    assert len(old.links) > 0
    with pytest.raises(FileNotFoundError, match="no user_series.parquet.*earlier aqmlab"):
        _ = old.user_series
