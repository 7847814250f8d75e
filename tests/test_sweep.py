"""Sweeps: definition parsing, planning and hashes, skip and resume (after SIGKILL), Dask = local."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from aqmlab import __version__, _core, api, sweep
from aqmlab.runner import worker
from aqmlab.sweep import SweepError, parse_assignment, plan_sweep, run_hash, split_values
from conftest import EXAMPLE

_SCRIPT = Path(sys.executable).parent / "aqmlab"
AQMLAB = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "aqmlab.cli"]
#: The example scenario made short: a run takes a fraction of a second.
SHORT = ["duration=3", "measure.warmup=1"]
QUEUES = 'links.3.queue_ab={kind="red"},{kind="pi"}'
TABLES = ["links", "link_classes", "flows", "queue_samples", "cwnd_trace", "flow_series"]


def aqmlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*AQMLAB, *map(str, args)], capture_output=True, text=True, timeout=300)


def sweep_args(out: Path, *extra: str) -> list[str]:
    args = ["sweep", str(EXAMPLE), "--out", str(out)]
    for s in SHORT:
        args += ["--set", s]
    return [*args, *extra]


def assert_complete(out: Path, hashes: set[str]) -> None:
    """Every run folder is there exactly once, loads, and nothing temporary is left."""
    runs = out / "runs"
    entries = sorted(p.name for p in runs.iterdir())
    assert entries == sorted(hashes), entries
    for h in hashes:
        summary = json.loads((runs / h / "summary.json").read_text())
        assert summary["aqmlab_version"] == __version__
        for name in TABLES:
            pd.read_parquet(runs / h / f"{name}.parquet")
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name or ".old-" in p.name]


# ------------------------------------------------------------------------------------------- definition


@pytest.mark.parametrize(
    "text, values",
    [
        ("1,2,3", ["1", "2", "3"]),
        ('{kind="red"},{kind="pi", target="5ms"}', ['{kind="red"}', '{kind="pi", target="5ms"}']),
        ("[1, 2],[\"a,b\", 'c,d']", ["[1, 2]", "[\"a,b\", 'c,d']"]),
        ('"x\\",y", z', ['"x\\",y"', "z"]),
        ("{a={b=[1,2]}}, 10Mbps", ["{a={b=[1,2]}}", "10Mbps"]),
    ],
)
def test_values_split_at_top_level_commas_only(text, values):
    assert split_values(text) == values


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("dumbbell.pairs", "expected key=value1,value2"),
        ("=1,2", "expected key=value1,value2"),
        ('dumbbell.queue={kind="red"', "unclosed `{`"),
        ("dumbbell.queue={kind=red}}", "unbalanced `}`"),
        ('name="abc', "unterminated string"),
        ("dumbbell.pairs=1,,2", "value 2 of 3 is empty"),
        ("dumbbell.pairs=1,1", "listed twice"),
        ("seed=1,2", "--seeds"),
        ("bad key=1", "not a dotted key"),
    ],
)
def test_bad_grid_is_a_clear_error(spec, expected):
    with pytest.raises(SweepError, match=expected.replace("[", r"\[").replace("(", r"\(")):
        parse_assignment(spec)


def test_bad_grid_on_the_command_line_is_one_line_exit_2(tmp_path, capsys):
    from aqmlab.cli import main

    for args, expected in [
        (
            ["--grid", 'links.3.queue_ab={kind="red"'],
            "aqmlab: error: --grid 'links.3.queue_ab={kind=\"red\"': unclosed",
        ),
        (["--grid", "links.9.rate=1,2"], "aqmlab: error: --grid: links.9.rate=1: index 9 is out of range"),
        (
            ["--zip", "tcp.ecn=true,false", "--zip", "tcp.max_window=1,2,3"],
            "--zip lists must have the same length",
        ),
        (["--grid", "duration=1,2"], "`duration` is also swept by --grid"),
        (["--grid", "links.3.nope=1,2"], "unknown field `nope`"),
        (["--seeds", "0"], "--seeds 0: expected at least 1 seed"),
    ]:
        assert main(sweep_args(tmp_path / "out", *args)) == 2, args
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("aqmlab: error: "), err
        assert expected in lines[0], lines[0]
    assert not (tmp_path / "out" / "runs").exists() or not any((tmp_path / "out" / "runs").iterdir())


# ------------------------------------------------------------------------------------------------ plans


def test_cross_product_times_zip_times_seeds():
    plan = plan_sweep(
        EXAMPLE,
        grid=[QUEUES, "tcp.init_cwnd=2,4,10"],
        zip=["tcp.ecn=true,false", "tcp.max_window=20,64"],
        sets=SHORT,
        seeds=3,
    )
    assert len(plan.runs) == 2 * 3 * 2 * 3
    assert len({r.hash for r in plan.runs}) == len(plan.runs)
    # zip lists vary together: ecn=true always with max_window=20
    assert {(r.params["tcp.ecn"], r.params["tcp.max_window"]) for r in plan.runs} == {
        ("true", "20"),
        ("false", "64"),
    }
    assert {r.seed for r in plan.runs} == {1, 2, 3}
    first = plan.runs[0]
    assert first.params == {
        "links.3.queue_ab": '{kind="red"}',
        "tcp.init_cwnd": "2",
        "tcp.ecn": "true",
        "tcp.max_window": "20",
    }
    assert first.overrides == [
        *SHORT,
        'links.3.queue_ab={kind="red"}',
        "tcp.init_cwnd=2",
        "tcp.ecn=true",
        "tcp.max_window=20",
    ]
    assert [r.seed for r in plan_sweep(EXAMPLE, sets=SHORT).runs] == [1]
    # A --zip list may repeat a value (its rows still differ); a --grid list may not.
    repeated = plan_sweep(EXAMPLE, zip=["tcp.ecn=true,true", "tcp.max_window=20,64"], sets=SHORT)
    assert [r.params for r in repeated.runs] == [
        {"tcp.ecn": "true", "tcp.max_window": "20"},
        {"tcp.ecn": "true", "tcp.max_window": "64"},
    ]
    assert [r.seed for r in plan_sweep(EXAMPLE, sets=SHORT, seeds="7,3").runs] == [7, 3]


def test_hashes_are_stable_and_depend_on_the_resolved_scenario_only():
    a = plan_sweep(EXAMPLE, grid=[QUEUES], sets=SHORT, seeds=2)
    b = plan_sweep(EXAMPLE, grid=[QUEUES], sets=SHORT, seeds=2)
    assert [r.hash for r in a.runs] == [r.hash for r in b.runs]
    # The documented formula: sha256 of the resolved text, the seed and the version.
    r = a.runs[1]
    text = EXAMPLE.read_text()
    resolved = _core.resolve(text, str(EXAMPLE), r.overrides, r.seed)
    assert r.hash == run_hash(resolved, r.seed, __version__) and len(r.hash) == 16
    assert run_hash(resolved, r.seed, "0.0.0") != r.hash
    # The same scenario reached through --grid or through --set has the same hash...
    single = plan_sweep(EXAMPLE, grid=['links.3.queue_ab={kind="red"}'], sets=SHORT, seeds=1)
    via_set = plan_sweep(EXAMPLE, sets=[*SHORT, 'links.3.queue_ab={kind="red"}'], seeds=1)
    assert single.runs[0].hash == via_set.runs[0].hash == a.runs[0].hash
    # ...and the API's mapping form gives the same runs as the strings.
    mapping = plan_sweep(
        EXAMPLE, grid={"links.3.queue_ab": ['{kind="red"}', '{kind="pi"}']}, sets=SHORT, seeds=2
    )
    assert [r.hash for r in mapping.runs] == [r.hash for r in a.runs]


# ------------------------------------------------------------------------------------ runs, skip, resume


def test_sweep_writes_runs_definition_and_aggregate_then_skips_everything(tmp_path):
    out = tmp_path / "sw"
    sweep_args = {
        "grid": [QUEUES],
        "zip": ["tcp.ecn=true,false", "tcp.max_window=20,64"],
        "sets": SHORT,
        "seeds": 2,
        "jobs": 2,
        "out": out,
    }
    res = sweep.run_sweep(EXAMPLE, **sweep_args)
    assert (res.total, res.unique, res.done, res.skipped, res.failed) == (8, 8, 8, 0, [])
    definition = json.loads((out / "sweep.json").read_text())
    hashes = {r["hash"] for r in definition["runs"]}
    assert len(hashes) == 8 and definition["grid"] == {"links.3.queue_ab": ['{kind="red"}', '{kind="pi"}']}
    assert definition["zip"] == {"tcp.ecn": ["true", "false"], "tcp.max_window": ["20", "64"]}
    assert definition["sets"] == SHORT and definition["seeds"] == [1, 2]
    assert_complete(out, hashes)

    agg = pd.read_parquet(out / "aggregate.parquet")
    pd.testing.assert_frame_equal(agg, res.aggregate)
    assert list(agg.columns) == [
        "run",
        "seed",
        "links.3.queue_ab",
        "tcp.ecn",
        "tcp.max_window",
        "scope",
        "entity",
        "metric",
        "value",
    ]
    assert (
        set(agg["run"]) == hashes and agg["tcp.ecn"].dtype == bool and agg["tcp.max_window"].dtype == "int64"
    )
    assert set(agg["scope"]) == {"run", "link", "class"}
    bottleneck = agg[(agg["scope"] == "link") & (agg["entity"] == "r1->r2")]
    for metric in ("utilization", "q_mean_pkts", "q_std_pkts", "drops", "loss_rate", "marks"):
        assert len(bottleneck[bottleneck["metric"] == metric]) == 8, metric
    goodput = agg[(agg["scope"] == "class") & (agg["metric"] == "goodput_bps")]
    assert {"bulk", "udp"} <= set(goodput["entity"])
    assert (goodput[goodput["entity"].isin(["bulk", "udp"])]["value"] > 0).all()
    assert set(agg[agg["scope"] == "class"]["metric"]) >= {"goodput_bps", "retransmits", "flows"}
    # The value in the table is the one in the run folder.
    h = definition["runs"][0]["hash"]
    links = pd.read_parquet(out / "runs" / h / "links.parquet").set_index("link")
    row = bottleneck[(bottleneck["run"] == h) & (bottleneck["metric"] == "q_mean_pkts")]
    assert row["value"].item() == links.loc["r1->r2", "q_mean_pkts"]
    by_queue = bottleneck[bottleneck["metric"] == "q_mean_pkts"].groupby("links.3.queue_ab")["value"].mean()
    assert set(by_queue.index) == {'{kind="red"}', '{kind="pi"}'}

    mtimes = {h: (out / "runs" / h / "summary.json").stat().st_mtime_ns for h in hashes}
    again = sweep.run_sweep(EXAMPLE, **sweep_args)
    assert (again.done, again.skipped, again.failed) == (0, 8, [])
    assert mtimes == {h: (out / "runs" / h / "summary.json").stat().st_mtime_ns for h in hashes}
    pd.testing.assert_frame_equal(again.aggregate, agg)


def test_response_times_reach_the_aggregate(tmp_path):
    scenario = EXAMPLE.parent / "packmime-delaybox.toml"
    res = sweep.run_sweep(scenario, sets=["duration=25"], seeds=1, jobs=1, out=tmp_path / "sw")
    assert res.done == 1 and not res.failed
    h = res.aggregate["run"].iloc[0]
    responses = pd.read_parquet(tmp_path / "sw" / "runs" / h / "responses.parquet")
    assert list(responses["class"]) == ["web"] and responses["pairs"].item() > 0
    rows = res.aggregate[res.aggregate["scope"] == "response"].set_index("metric")["value"]
    assert rows["p50_s"] == responses["p50_s"].item() and 0 < rows["p50_s"] <= rows["p90_s"]


def test_failed_runs_are_reported_and_do_not_stop_the_others(tmp_path):
    out = tmp_path / "sw"
    p = aqmlab(
        *sweep_args(
            out, "--grid", 'links.3.queue_ab={kind="red"},{kind="nope"}', "--seeds", "2", "--jobs", "1"
        )
    )
    assert p.returncode == 1, p.stderr
    assert 'failed: links.3.queue_ab={kind="nope"} seed=1' in p.stdout
    assert "unknown variant `nope`" in " ".join(p.stdout.split())
    failed = json.loads((out / "failed.json").read_text())
    assert [(f["params"], f["seed"]) for f in failed] == [
        ({"links.3.queue_ab": '{kind="nope"}'}, s) for s in (1, 2)
    ]
    agg = pd.read_parquet(out / "aggregate.parquet")
    assert set(agg["links.3.queue_ab"]) == {'{kind="red"}'} and agg["run"].nunique() == 2


def test_sweep_runs_stream_the_queue_samples_of_a_single_run(tmp_path):
    sets = [*SHORT, 'measure.sample_links=["all"]', "measure.sample_interval=1ms"]
    result = sweep.run_sweep(EXAMPLE, sets=sets, seeds=[3], jobs=1, out=tmp_path / "sw")
    assert (result.done, result.failed) == (1, [])
    (folder,) = (tmp_path / "sw" / "runs").iterdir()
    single = api.run(EXAMPLE, seed=3, set=sets)
    assert len(single.queue_samples) > 10_000
    for name in ("queue_samples", "cwnd_trace"):
        pd.testing.assert_frame_equal(pd.read_parquet(folder / f"{name}.parquet"), getattr(single, name))


def test_a_worker_that_cannot_see_the_sweep_folder_sends_the_run_folder_back(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    text = EXAMPLE.read_text()
    h = run_hash(_core.resolve(text, str(EXAMPLE), SHORT, 1), 1)
    payload = worker.simulate(sweep.task(h, text, str(EXAMPLE), SHORT, 1, tmp_path / "elsewhere"))
    assert "staged" not in payload and "summary.json" in payload["files"]
    assert sweep.store_run(runs, payload) == runs / h
    assert_complete(tmp_path, {h})


def test_a_crashed_worker_fails_only_its_run(tmp_path, monkeypatch):
    from aqmlab.runner import local

    results = []
    tasks = [{"hash": "a", "kind": "ok"}, {"hash": "b", "kind": "crash"}, {"hash": "c", "kind": "ok"}]
    monkeypatch.setattr(local, "_worker_main", _fake_worker_main)
    local.execute(tasks, lambda t, p, e: results.append((t["hash"], p, e)), jobs=2)
    by_hash = {h: (p, e) for h, p, e in results}
    assert by_hash["a"] == ({"hash": "a"}, None) and by_hash["c"] == ({"hash": "c"}, None)
    assert by_hash["b"][0] is None and "killed by SIGKILL" in by_hash["b"][1]


def _fake_worker_main(conn, parent):  # a module-level function: the spawned worker imports it
    while True:
        task = conn.recv()
        if task is None:
            return
        if task["kind"] == "crash":
            os.kill(os.getpid(), signal.SIGKILL)
        conn.send(("ok", {"hash": task["hash"]}))


def test_sweep_killed_with_sigkill_resumes_without_loss_or_duplicates(tmp_path):
    out = tmp_path / "sw"
    # 8 runs of a few tenths of a second each, one at a time.
    args = ["sweep", str(EXAMPLE), "--out", str(out), "--set", "duration=6", "--set", "measure.warmup=1"]
    args += ["--grid", QUEUES, "--grid", "tcp.init_cwnd=2,4", "--seeds", "2", "--jobs", "1"]
    proc = subprocess.Popen([*AQMLAB, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = out / "runs"
    deadline = time.monotonic() + 120
    finished = 0
    # Complete run folders only: a run being written is a hidden `.<hash>.tmp-*` folder until renamed.
    complete = "[!.]*/summary.json"
    while time.monotonic() < deadline:
        finished = len(list(runs.glob(complete))) if runs.exists() else 0
        if finished >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert 2 <= finished < 8, finished
    before = {p.parent.name for p in runs.glob(complete)}
    assert len(before) < 8
    time.sleep(1)  # the orphaned worker notices its parent is gone and exits without writing anything

    p = aqmlab(*args)
    assert p.returncode == 0, p.stderr
    definition = json.loads((out / "sweep.json").read_text())
    hashes = {r["hash"] for r in definition["runs"]}
    assert len(hashes) == 8 and before <= hashes
    assert_complete(out, hashes)
    # The first sweep's runs were skipped, not run again.
    assert f"{len(before)} already complete" in p.stderr
    agg = pd.read_parquet(out / "aggregate.parquet")
    assert set(agg["run"]) == hashes
    assert (agg.groupby(["run", "scope", "entity", "metric"]).size() == 1).all()


# ------------------------------------------------------------------------------------------------- dask


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dask_cluster(tmp_path):
    """A scheduler and two single-threaded workers on 127.0.0.1, as separate processes."""
    pytest.importorskip("distributed")
    dask = Path(sys.executable).parent / "dask"
    base = [str(dask)] if dask.exists() else [sys.executable, "-m", "dask"]
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    work = tmp_path / "dask"
    work.mkdir()
    common = {"cwd": work, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [
        subprocess.Popen(
            [*base, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **common
        )
    ]
    try:
        for i in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        *base,
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--no-dashboard",
                        "--name",
                        f"w{i}",
                        "--local-directory",
                        str(work),
                    ],
                    **common,
                )
            )
        from dask.distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_dask_run_equals_the_local_run(tmp_path, dask_cluster):
    definition = dict(grid=[QUEUES], zip=["tcp.ecn=true,false", "tcp.max_window=20,64"], sets=SHORT, seeds=2)
    local = sweep.run_sweep(EXAMPLE, **definition, jobs=2, out=tmp_path / "local")
    remote = sweep.run_sweep(EXAMPLE, **definition, dask=dask_cluster, out=tmp_path / "dask")
    assert (remote.done, remote.failed) == (8, [])
    hashes = sorted(p.name for p in (tmp_path / "local" / "runs").iterdir())
    assert hashes == sorted(p.name for p in (tmp_path / "dask" / "runs").iterdir())
    assert_complete(tmp_path / "dask", set(hashes))
    for h in hashes:
        a, b = tmp_path / "local" / "runs" / h, tmp_path / "dask" / "runs" / h
        assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())
        for name in TABLES:
            assert (a / f"{name}.parquet").read_bytes() == (b / f"{name}.parquet").read_bytes(), (h, name)
        sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
        sa.pop("wall_s"), sb.pop("wall_s")
        assert sa == sb
    not_wall = ~local.aggregate["metric"].isin(sweep.WALL_TIME_METRICS)
    pd.testing.assert_frame_equal(
        local.aggregate[not_wall].reset_index(drop=True),
        remote.aggregate[~remote.aggregate["metric"].isin(sweep.WALL_TIME_METRICS)].reset_index(drop=True),
    )
    ja, jb = (json.loads((tmp_path / d / "sweep.json").read_text()) for d in ("local", "dask"))
    assert ja == jb
