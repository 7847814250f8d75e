"""PackMime-HTTP results (classes, generators, responses, response bins, pair records), the response-time
CDF helpers, `aqmlab calibrate` and `run --set-file`."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pandas as pd
import pytest

import aqmlab
from aqmlab import calibrate as calib
from conftest import ROOT
from test_cli import aqmlab as cli

PACKMIME = ROOT / "scenarios" / "packmime-delaybox.toml"
SHORT = ["duration=30"]  # warm-up 20 s: 10 s measured

COLUMNS = {
    "classes": ["class", "packets_sent", "bytes_sent", "drops", "loss_rate", "marks"],
    "generators": [
        "generator",
        "class",
        "connections_started",
        "connections_finished",
        "connections_open",
        "pairs_planned",
        "retransmits",
        "timeouts",
        "timeouts_after_ecn",
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
    "response_bins": ["class", "lo_s", "hi_s", "count"],
}
PAIR_COLUMNS = [
    "class",
    "connection",
    "index",
    "start_s",
    "end_s",
    "response_time_s",
    "request_bytes",
    "response_bytes",
]

# Two web clouds over a 10 Mb/s core, no DelayBox: small enough to calibrate in a few seconds.
SMALL_WEB = """\
name = "small-web"
duration = "30s"

[measure]
warmup = "5s"

[[links]]
a = "client"
b = "R0"
rate = "100Mbps"
delay = "1ms"

[[links]]
a = "R0"
b = "R1"
rate = "10Mbps"
delay = "20ms"

[[links]]
a = "R1"
b = "server"
rate = "100Mbps"
delay = "1ms"

[[http]]
name = "web"
clients = "client"
servers = "server"
rate = 20
"""


def test_packmime_tables_have_the_documented_columns(tmp_path):
    r = aqmlab.run(PACKMIME, set=SHORT, out=tmp_path / "run")
    for name, cols in COLUMNS.items():
        df = getattr(r, name)
        assert list(df.columns) == cols, name
        assert len(df) > 0, name
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "run" / f"{name}.parquet"), df)
    assert list(r.classes["class"]) == ["web"]
    g = r.generators.iloc[0]
    assert g["generator"] == "web" and g["connections_started"] > 100
    assert g["connections_open"] == g["connections_started"] - g["connections_finished"]
    resp = r.responses.iloc[0]
    assert resp["pairs"] > 0 and resp["p10_s"] <= resp["p50_s"] <= resp["p90_s"] <= resp["p99_s"]
    assert r.response_bins["count"].sum() == resp["pairs"]
    assert (r.response_bins["hi_s"] > r.response_bins["lo_s"]).all()
    s = r.summary
    assert s["ended_by"] == "duration" and s["flow_slots"] >= 1 and s["flows"] == g["connections_started"]
    # Pair records are off: no file, no table.
    assert r.pairs is None and r.pairs_path is None
    assert not (tmp_path / "run" / "pairs.parquet").exists()


def test_pair_records_stream_to_the_run_folder(tmp_path):
    out = tmp_path / "run"
    r = aqmlab.run(PACKMIME, set=[*SHORT, "measure.pair_records=true"], out=out)
    assert r.pairs_path == out / "pairs.parquet" and r.pairs_path.is_file()
    pairs = r.pairs
    assert list(pairs.columns) == PAIR_COLUMNS
    # Both count the pairs whose request was sent after the warm-up and that completed.
    assert len(pairs) == r.responses["pairs"].sum() > 0
    assert set(pairs["class"]) == {"web"}
    assert (pairs["start_s"] >= r.summary["warmup_s"]).all() and (pairs["end_s"] <= r.summary["end_s"]).all()
    np.testing.assert_allclose(pairs["response_time_s"], pairs["end_s"] - pairs["start_s"], atol=1e-9)
    assert pairs["response_bytes"].sum() == r.responses["response_bytes"].sum()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no temporary folder left

    # Without a run folder the records go to a temporary file that lives as long as the result.
    r2 = aqmlab.run(PACKMIME, set=[*SHORT, "measure.pair_records=true"])
    path = r2.pairs_path
    pd.testing.assert_frame_equal(r2.pairs, pairs)
    r2.write(tmp_path / "copy")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "copy" / "pairs.parquet"), pairs)
    del r2
    import gc

    gc.collect()
    assert not path.exists()


def test_response_cdf_from_bins_is_monotone_and_ends_at_one():
    r = aqmlab.run(PACKMIME, set=SHORT)
    for cls in (None, "web"):
        cdf = r.response_cdf(cls)
        assert list(cdf.columns) == ["x_s", "fraction"]
        assert cdf["x_s"].is_monotonic_increasing and cdf["fraction"].is_monotonic_increasing
        assert cdf["fraction"].iloc[0] == 0.0 and cdf["fraction"].iloc[-1] == 1.0
        ccdf = r.response_ccdf(cls)
        np.testing.assert_allclose(ccdf["fraction"], 1 - cdf["fraction"])
    # The median of the CDF agrees with the engine's p50 within a bin (2.3%).
    cdf = r.response_cdf()
    median = cdf.loc[cdf["fraction"] >= 0.5, "x_s"].iloc[0]
    assert median == pytest.approx(r.responses["p50_s"].iloc[0], rel=0.025)
    with pytest.raises(ValueError, match="no response times for class 'nope'"):
        r.response_cdf("nope")


def test_cwnd_trace_counts_timeouts():
    lossy = {
        "duration": "10s",
        "measure": {"trace_cwnd": [0]},
        "links": [{"a": "h1", "b": "h2", "rate": "10Mbps", "delay": "5ms", "loss_ab": {"rate": 0.1}}],
        "flows": [{"kind": "tcp_bulk", "src": "h1", "dst": "h2"}],
    }
    r = aqmlab.run(lossy)
    t = r.cwnd_trace
    assert list(t.columns) == ["flow", "t", "cwnd", "ssthresh", "timeouts"]
    assert t["timeouts"].is_monotonic_increasing
    assert t["timeouts"].iloc[-1] == r.flows["timeouts"].iloc[0] > 0


def test_cli_prints_response_times_generators_and_the_stop_condition(tmp_path):
    p = cli(
        "run", PACKMIME, "--set", "duration=30", "--set", "stop.after_pairs=50", "--out", tmp_path / "run"
    )
    assert p.returncode == 0, p.stderr
    assert "Response times" in p.stdout and "loss %" in p.stdout, p.stdout
    row = next(line for line in p.stdout.splitlines() if line.strip().startswith("web "))
    assert row.split()[1] == "50"  # the stop condition: 50 pairs after the warm-up
    assert "Generators: web:" in p.stdout and "pairs per connection" in p.stdout
    assert "retransmissions" in p.stdout and "timeouts" in p.stdout
    assert "ended by the stop condition" in p.stdout
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["ended_by"] == "pairs"


def test_calibrate_reaches_the_target_and_writes_a_set_file(tmp_path):
    scenario = tmp_path / "small-web.toml"
    scenario.write_text(SMALL_WEB)
    cal = calib.calibrate(scenario, link="R1->R0", target_load=0.6, duration_s=30)
    assert len(cal.points) == 3 and len(cal.check) == 1
    assert 50e3 < cal.k_bps < 90e3  # ns-2.35 measured ≈ 68 kb/s per conn/s server→client
    # Short runs sample the heavy tails poorly: over seeds 1-6 the check lands within -13%..+7% here.
    assert cal.achieved == pytest.approx(0.6, rel=0.15)

    # The command writes the same calibration; `run --set-file` applies it.
    p = cli(
        "calibrate", scenario, "--link", "R1->R0", "--target-load", "0.6", "--duration", "30", cwd=tmp_path
    )
    assert p.returncode == 0, p.stderr
    assert "k " in p.stdout and "check" in p.stdout
    written = tmp_path / "small-web.calibration.toml"
    doc = tomllib.loads(written.read_text())
    assert doc["http"]["0"]["rate"] == pytest.approx(cal.rate, rel=1e-5)
    assert calib.read_set_file(written) == [f"http.0.rate={calib._num(cal.rate)}"]
    p = cli("run", scenario, "--set-file", written, "--out", tmp_path / "run")
    assert p.returncode == 0, p.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["overrides"] == calib.read_set_file(written)
    assert tomllib.loads(summary["scenario"])["http"][0]["rate"] == pytest.approx(cal.rate, rel=1e-5)


def test_calibrate_errors_are_one_line(tmp_path):
    scenario = tmp_path / "small-web.toml"
    scenario.write_text(SMALL_WEB)
    for args, expected in (
        (["--link", "X->Y", "--target-load", "0.5"], "--link X->Y: not a link direction"),
        (["--link", "R1->R0", "--target-load", "0.5", "--generator", "nope"], "--generator nope: no such"),
        (["--link", "R1->R0", "--target-load", "0.5", "--widen", "fast"], "--widen:"),
    ):
        p = cli("calibrate", scenario, *args, cwd=tmp_path)
        assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
        assert expected in p.stderr


def test_set_file_keeps_toml_values_and_reports_bad_lines(tmp_path):
    f = tmp_path / "set.toml"
    f.write_text(
        '# comment\nhttp.0.rate = 12.5  # trailing\n\nmeasure.sample_links = ["R0->R1"]\nq = {kind="pie"}\n'
    )
    assert calib.read_set_file(f) == [
        "http.0.rate=12.5",
        'measure.sample_links=["R0->R1"]',
        'q={ kind = "pie" }',
    ]
    f.write_text("http.0.rate 12\n")
    p = cli("validate", PACKMIME, "--set-file", f)
    assert p.returncode == 2 and f"{f}:1: expected `key = value`" in p.stderr
