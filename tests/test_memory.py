"""The resource estimate: a run whose tables would not fit in memory (or whose streamed tables would not
fit on disk) is refused before it allocates anything, naming the setting to change; queue samples and
the window trace stream to Parquet, so memory does not grow with the run's length (issue 16, item 2)."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest

from aqmlab import api
from conftest import EXAMPLE, ROOT
from test_cli import aqmlab

BENCH = ROOT / "scenarios" / "bench-dumbbell.toml"
ONE_MS_ALL = ['measure.sample_interval="1ms"', 'measure.sample_links=["all"]']


def sets(*overrides: str) -> list[str]:
    return [a for s in overrides for a in ("--set", s)]


def error_line(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


def peak_rss_mb(*args: object, cwd) -> tuple[subprocess.CompletedProcess, float]:
    """Runs `aqmlab *args` as the child of a fresh interpreter; returns it and the child's peak RSS."""
    code = (
        "import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "sys.stderr.write(p.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
        "sys.exit(p.returncode)\n"
    )
    cmd = [sys.executable, "-c", code, sys.executable, "-m", "aqmlab.cli", *map(str, args)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=300)
    return p, float(p.stdout.strip().splitlines()[-1])


def test_validate_reports_the_estimate():
    desc = api.validate(BENCH, set=ONE_MS_ALL)
    e = desc["estimate"]
    assert (e["flows"], e["link_directions"], e["sampled_links"]) == (100, 402, 402)
    assert e["samples_per_link"] == 50_001 and e["queue_samples"] == 402 * 50_001
    assert e["packets_in_flight"] == 100 * (2 * 1000 + 4)  # the windows bound: long-lived TCP only
    parts = {p["what"]: p for p in e["parts"]}
    assert set(parts) == {"flows", "link directions", "queue samples", "packets in flight"}
    qs = parts["queue samples"]
    assert qs["setting"] == "measure.sample_interval"
    # Streamed: one batch of 65,536 samples in memory, the rest in queue_samples.parquet.
    assert qs["streamed"] and qs["bytes"] == 65_536 * qs["each"]
    assert qs["file_bytes"] == e["file_bytes"] == 402 * 50_001 * 8
    assert e["memory_bytes"] < 300e6  # 3.3 GB measured when the samples were held in memory
    assert desc["max_memory"] > 0
    traced = api.validate(BENCH, set=["measure.trace_cwnd=[0, 99]"])["estimate"]
    assert traced["traced_flows"] == 2 and traced["cwnd_rows"] > 0


def test_validate_prints_the_estimate():
    p = aqmlab("validate", BENCH, "--max-memory", "8GB")
    assert p.returncode == 0, p.stderr
    assert "Resource estimate (memory limit 8.0 GB)" in p.stdout
    assert "5,001" in p.stdout  # A->B sampled at 100 Hz for 50 s
    assert "measure.sample_interval" in p.stdout and "packets in flight" in p.stdout


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_billion_flows_are_refused_without_allocating(tmp_path, command):
    p, rss = peak_rss_mb(command, BENCH, "--set", "flows.0.count=1000000000", cwd=tmp_path)
    line = error_line(p)
    assert f"{BENCH}:38: flows[0].count: a run within the memory limit of " in line
    assert (
        "(half of this machine's memory; --max-memory, or max_memory in the Python API, changes it)" in line
    )
    assert "4.1 TB of it in 1,000,000,000 flows (other tables: " in line
    assert "use fewer flows (the `count` of a flow group" in line
    assert "refused before allocating anything (set by --set flows.0.count=1000000000)" in line
    assert rss < 300, rss
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_nanosecond_sampling_interval_is_refused_and_leaves_nothing(tmp_path, command):
    overrides = sets('measure.sample_interval="1ns"', 'measure.sample_links=["all"]')
    p, rss = peak_rss_mb(command, EXAMPLE, *overrides, cwd=tmp_path)
    line = error_line(p)
    assert f"{EXAMPLE}:26: measure.sample_interval: a run whose streamed tables fit in the free disk" in line
    assert "in 300,000,000,012 queue samples: 12 link directions sampled 25,000,000,001 times each" in line
    assert "`measure.sample_links`" in line and "refused before writing anything" in line
    assert rss < 300, rss
    assert list(tmp_path.iterdir()) == []  # no results/ folder, no temporary run folder


def test_max_memory_sets_the_limit(tmp_path):
    line = error_line(
        aqmlab("run", BENCH, "--max-memory", "20MB", "--set", "dumbbell.pairs=1000", cwd=tmp_path)
    )
    assert "dumbbell.pairs: a run within the memory limit of 20.0 MB (--max-memory); " in line
    assert "58.4 MB of it in 4,002 link directions (other tables: flows 4.1 MB" in line
    assert list(tmp_path.iterdir()) == []
    line = error_line(aqmlab("validate", EXAMPLE, "--max-memory", "lots"))
    assert "argument --max-memory: a memory size like '2GB'" in line
    assert aqmlab("validate", EXAMPLE, "--max-memory", "2GiB").returncode == 0


def test_api_run_refuses_before_writing(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(
        api.ScenarioError, match=r"flows\[0\]\.count: a run within the memory limit of 10\.0 MB"
    ):
        api.run(EXAMPLE, set=["flows.0.count=100000"], out=out, max_memory="10MB")
    assert list(tmp_path.iterdir()) == []
    r = api.run(EXAMPLE, set=["duration=6"], max_memory=2**30)
    assert len(r.flows) == 8


def test_parse_size():
    assert api.parse_size("2GB") == 2_000_000_000
    assert api.parse_size("512 MB") == 512_000_000
    assert api.parse_size("1.5GiB") == 3 * 2**29
    assert api.parse_size("100kb") == 100_000
    assert api.parse_size(12345) == 12345
    for bad in ("", "2 XB", "-1GB", "0"):
        with pytest.raises(ValueError, match="memory size"):
            api.parse_size(bad)
    with pytest.raises(TypeError):
        api.parse_size(2.5)  # type: ignore[arg-type]


def test_streamed_tables_are_written_in_bounded_row_groups(tmp_path):
    """Queue samples and the window trace are written batch by batch as the run goes (row groups of at
    most 65,536 rows), and read back whole; copied, not read, when written elsewhere."""
    overrides = [
        'measure.sample_links=["all"]',
        'measure.sample_interval="2ms"',
        "measure.trace_cwnd=[0, 1, 5]",
    ]
    r = api.run(EXAMPLE, set=overrides, out=tmp_path / "run")
    assert r.table_paths["queue_samples"] == tmp_path / "run" / "queue_samples.parquet"
    assert len(r.queue_samples) > 2 * 65_536 and len(r.cwnd_trace) > 1000
    meta = pq.ParquetFile(r.table_paths["queue_samples"]).metadata
    groups = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert len(groups) > 2 and max(groups) <= 65_536 and sum(groups) == len(r.queue_samples)
    # The links' sample statistics do not need the samples in memory.
    assert (r.links["q_samples"] == 12_501).all()
    r.write(tmp_path / "again")
    for name in ("queue_samples", "cwnd_trace"):
        again = pd.read_parquet(tmp_path / "again" / f"{name}.parquet")
        pd.testing.assert_frame_equal(again, getattr(r, name))
    # Without `out`, in a temporary folder that lives as long as the result.
    r2 = api.run(EXAMPLE, set=overrides)
    pd.testing.assert_frame_equal(r2.cwnd_trace, r.cwnd_trace)


def test_memory_does_not_grow_with_the_samples(tmp_path):
    """A 100-flow dumbbell sampling its 402 link directions every 1 ms: 2.8 million samples here (about
    460 MB when they were held in memory), 20 million over the full 60 s (3.3 GB then)."""
    overrides = sets(*ONE_MS_ALL, "duration=12", "measure.warmup=5")
    p, rss = peak_rss_mb("run", BENCH, *overrides, "--out", tmp_path / "run", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert rss < 300, rss
    assert len(pd.read_parquet(tmp_path / "run" / "queue_samples.parquet")) == 402 * 7001
