"""The Python API: aqmlab.run / validate / load_scenario and RunResult."""

from __future__ import annotations

import json
import tomllib

import pandas as pd
import pytest

import aqmlab
from aqmlab import _core, api

TINY_DICT = {
    "name": "tiny-dict",
    "duration": "2s",
    "measure": {"sample_links": ["h1->r"]},
    "links": [
        {"a": "h1", "b": "r", "rate": "10Mbps", "delay": "1ms"},
        {"a": "r", "b": "h2", "rate": "5Mbps", "delay": "5ms", "queue": {"kind": "red", "limit": 40}},
    ],
    "flows": [{"kind": "tcp_bulk", "src": "h1", "dst": "h2", "count": 2}],
}


def test_api_accepts_a_dict():
    text, label = aqmlab.load_scenario(TINY_DICT)
    assert label == "<dict>" and tomllib.loads(text) == TINY_DICT
    r = aqmlab.run(TINY_DICT)
    assert r.summary["name"] == "tiny-dict" and r.summary["scenario_file"] == "<dict>"
    assert r.summary["overrides"] == [] and r.summary["wall_s"] > 0
    assert list(r.flows["flow"]) == [0, 1]
    assert r.links.set_index("link").loc["r->h2", "queue"] == "red"
    assert (r.flows["goodput_bps"] > 0).all()


def test_result_tables(example):
    r = aqmlab.run(example)
    assert isinstance(r, aqmlab.RunResult)
    for name in api.TABLES:
        assert isinstance(getattr(r, name), pd.DataFrame)
    # queue_samples carry the link name, not the engine's index.
    assert r.queue_samples["link"].unique().tolist() == ["r1->r2"]
    assert list(r.queue_samples.columns) == ["link", "t", "q_pkts", "q_bytes", "sojourn_s"]
    assert list(r.cwnd_trace.columns) == ["flow", "t", "cwnd", "ssthresh", "timeouts"]
    # Unsampled links have NaN sample statistics, as float columns.
    assert r.links["q_sample_mean_pkts"].dtype == "float64"
    assert r.links["q_sample_mean_pkts"].isna().sum() == len(r.links) - 1


def test_same_seed_same_tables_different_seed_different(example):
    # The example has random start times and Poisson UDP, so the seed matters.
    a, b = aqmlab.run(example, seed=11), aqmlab.run(example, seed=11)
    c = aqmlab.run(example, seed=12)
    for name in api.TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))
    assert a.summary["seed"] == 11 and c.summary["seed"] == 12
    assert not a.flows.equals(c.flows)
    assert not a.queue_samples.equals(c.queue_samples)
    assert a.summary["events"] != c.summary["events"]


def test_overrides_and_seed_reach_the_engine(example):
    r = aqmlab.run(example, seed=4, set=["flows.0.count=2", "links.3.queue_ab.ecn=true", "tcp.ecn=true"])
    assert r.summary["seed"] == 4
    assert len(r.flows) == 6
    assert r.links.set_index("link").loc["r1->r2", "marks"] > 0
    rec = r.scenario_record()
    doc = tomllib.loads(rec["scenario"])
    assert doc["seed"] == 4 and doc["flows"][0]["count"] == 2 and doc["tcp"]["ecn"] is True
    # The reconstructed text alone reproduces the run.
    again = aqmlab.run({**doc})
    pd.testing.assert_frame_equal(again.flows, r.flows)


def test_scenario_error_is_a_value_error_with_the_engine_message(tiny_text, tmp_path):
    bad = tiny_text.replace('rate = "10Mbps"', 'rate = "-5Mbps"', 1)
    f = tmp_path / "bad.toml"
    f.write_text(bad)
    with pytest.raises(ValueError) as engine:
        _core.validate(bad, str(f))
    for call in (aqmlab.run, aqmlab.validate):
        with pytest.raises(aqmlab.ScenarioError) as e:
            call(f)
        assert isinstance(e.value, ValueError)
        assert str(e.value) == str(engine.value)
        assert str(e.value).startswith(f"{f}:7: links[0].rate: a positive rate")


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        aqmlab.run(tmp_path / "nope.toml")


def test_progress_is_called_with_simulated_time(example):
    seen: list[float] = []
    aqmlab.run(example, progress=seen.append)
    assert len(seen) > 50
    assert seen == sorted(seen) and 0 <= seen[0] and seen[-1] <= 30.0


def test_an_error_in_the_progress_callback_is_passed_on(example):
    def boom(t):
        raise ValueError("callback failed")

    with pytest.raises(ValueError, match="callback failed") as e:
        aqmlab.run(example, progress=boom)
    assert not isinstance(e.value, aqmlab.ScenarioError)


def test_write_makes_a_run_folder_and_replaces_a_previous_one(example, tmp_path):
    r = aqmlab.run(example, out=tmp_path / "run")
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == sorted(
        ["summary.json"] + [f"{t}.parquet" for t in api.TABLES]
    )
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "run" / "flows.parquet"), r.flows)
    r2 = aqmlab.run(example, seed=2)
    r2.write(tmp_path / "run")
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["seed"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no temporary folders left behind


def test_failed_write_leaves_no_folder(example, tmp_path, monkeypatch):
    r = aqmlab.run(example)
    calls = []
    real = api.shutil.copyfile  # the table files are copied into the run folder

    def flaky(source, path, *a, **k):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(source, path, *a, **k)

    monkeypatch.setattr(api.shutil, "copyfile", flaky)
    with pytest.raises(OSError, match="No space"):
        r.write(tmp_path / "run")
    assert list(tmp_path.iterdir()) == []  # neither the run folder nor a temporary one
    assert len(calls) == 3

    # A previous run folder under that name survives a failed rewrite untouched.
    monkeypatch.setattr(api.shutil, "copyfile", real)
    r.write(tmp_path / "run")
    before = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()}
    calls.clear()
    monkeypatch.setattr(api.shutil, "copyfile", flaky)
    with pytest.raises(OSError):
        aqmlab.run(example, seed=9).write(tmp_path / "run")
    assert {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_write_refuses_to_replace_something_that_is_not_a_run_folder(example, tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "precious.csv").write_text("1,2,3")
    (tmp_path / "file").write_text("x")
    r = aqmlab.run(example)
    for target in ("data", "file"):
        with pytest.raises(FileExistsError, match="not a run folder"):
            r.write(tmp_path / target)
    assert (tmp_path / "data" / "precious.csv").read_text() == "1,2,3"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "file"]


def test_delay_and_throughput_measures_reach_the_run_folder(tmp_path):
    """Queueing delays (links, queue samples), one-way delays and a finite transfer's completion (flows)
    and the flow series are written to the run folder and read back by load_run."""
    links = TINY_DICT["links"]
    scenario = {
        **TINY_DICT,
        # A buffer larger than the windows: nothing is lost, so the transfer's handshake completes.
        "links": [links[0], {**links[1], "queue": {"kind": "droptail", "limit": 1000}}],
        "measure": {"sample_links": ["r->h2"], "sample_interval": "100ms", "flow_series": True},
        "flows": [
            {"kind": "tcp_bulk", "src": "h1", "dst": "h2", "count": 2},
            {"kind": "udp_cbr", "src": "h1", "dst": "h2", "rate": "1Mbps"},
            {"kind": "tcp_bulk", "src": "h1", "dst": "h2", "bytes": "20kB", "start": "0.5s"},
        ],
    }
    r = aqmlab.run(scenario, out=tmp_path / "run")
    assert (tmp_path / "run" / "flow_series.parquet").is_file()
    loaded = aqmlab.load_run(tmp_path / "run")
    for res in (r, loaded):
        link = res.links.set_index("link").loc["r->h2"]
        quantiles = [link[f"sojourn_{s}_s"] for s in ("p50", "p90", "p99", "max")]
        assert quantiles == sorted(quantiles) and 0 < link["sojourn_mean_s"] <= link["sojourn_max_s"]
        flows = res.flows.set_index("flow")
        assert (flows["owd_min_s"] <= flows["owd_mean_s"]).all()
        assert (flows["owd_mean_s"] <= flows["owd_max_s"]).all() and (flows["jitter_s"] >= 0).all()
        transfer = flows.loc[3]
        assert transfer["transfer_bytes"] == 20_000 and transfer["fct_s"] > 0
        assert transfer["transfer_end_s"] == pytest.approx(transfer["start_s"] + transfer["fct_s"])
        assert (
            flows.loc[[0, 1, 2], "fct_s"].isna().all() and (flows.loc[[0, 1, 2], "transfer_bytes"] == 0).all()
        )
        assert list(res.queue_samples.columns) == ["link", "t", "q_pkts", "q_bytes", "sojourn_s"]
        assert res.queue_samples["sojourn_s"].max() <= link["sojourn_max_s"]
        series = res.flow_series
        assert list(series.columns) == ["flow", "t", "bytes_delivered"] and len(series) == 4 * 20
        per_flow = series.groupby("flow")["bytes_delivered"].sum()
        assert per_flow.to_dict() == flows["bytes_delivered"].to_dict()
    # Off by default: the table is there, empty.
    plain = aqmlab.run(TINY_DICT)
    assert plain.flow_series.empty and list(plain.flow_series.columns) == ["flow", "t", "bytes_delivered"]
