"""Windowed statistics (`measure.window`) in the Python results: `window_links` and `window_responses`
reach the run folder and read back, and add up to the whole-run tables."""

from __future__ import annotations

import aqmlab
from conftest import ROOT

TWO_HOSTS = ROOT / "tests" / "data" / "two_hosts.toml"
LINK_COLUMNS = ["link", "t_start", "t_end", "arrivals", "drops", "marks", "departure_bytes"]
RESPONSE_COLUMNS = ["class", "t_start", "t_end", "pairs", "mean_s", "p50_s", "p90_s", "p99_s"]


def test_window_links_read_back_and_add_up_to_the_links_table(tmp_path):
    r = aqmlab.run(TWO_HOSTS, set=['measure.window="0.5s"'], out=tmp_path / "run")
    assert (tmp_path / "run" / "window_links.parquet").is_file()
    for res in (r, aqmlab.load_run(tmp_path / "run")):
        w = res.window_links
        assert list(w.columns) == LINK_COLUMNS
        # Four link directions, windows of 0.5 s over the 2 s run.
        assert len(w) == 4 * 4 and sorted(set(w["t_end"])) == [0.5, 1.0, 1.5, 2.0]
        links = res.links.set_index("link")
        sums = w.groupby("link")[["arrivals", "departure_bytes"]].sum().loc[links.index]
        assert (sums["arrivals"] == links["arrivals"]).all()
        assert (sums["departure_bytes"] == links["departure_bytes"]).all()
        # A bulk transfer has no request/response pairs.
        assert res.window_responses.empty and list(res.window_responses.columns) == RESPONSE_COLUMNS
    # Off by default: the tables are there, empty.
    plain = aqmlab.run(TWO_HOSTS)
    assert plain.window_links.empty and list(plain.window_links.columns) == LINK_COLUMNS
