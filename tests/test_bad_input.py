"""Bad input never passes silently: each case is a located error or a warning (issue 16)."""

from __future__ import annotations

import json

import pytest
from scipy import stats

from aqmlab import api, sweep
from aqmlab.calibrate import WIDE_QUEUE, _widen
from aqmlab.studies.base import mean_ci
from conftest import EXAMPLE
from test_cli import aqmlab

SHORT = ["duration=3", "measure.warmup=1"]


def one_error_line(p) -> str:
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


@pytest.mark.parametrize("command", ["run", "validate"])
def test_a_seed_out_of_range_names_the_seed(tmp_path, command):
    line = one_error_line(aqmlab(command, EXAMPLE, "--seed", "-1", cwd=tmp_path))
    assert "seed -1: a run seed is a whole number from 0 to 2^64-1" in line
    line = one_error_line(aqmlab(command, EXAMPLE, "--seed", str(2**64), cwd=tmp_path))
    assert f"seed {2**64}: " in line


@pytest.mark.parametrize("command", ["run", "sweep", "calibrate"])
def test_an_empty_out_is_an_error(tmp_path, command):
    extra = ["--link", "r1->r2", "--target-load", "0.5"] if command == "calibrate" else []
    line = one_error_line(aqmlab(command, EXAMPLE, *extra, "--out", "", cwd=tmp_path))
    assert "argument --out: expected a file or folder name, found an empty one" in line
    assert not (tmp_path / "results").exists()


def test_a_binary_scenario_names_the_file(tmp_path):
    f = tmp_path / "scenario.toml"
    f.write_bytes(b"duration = 1\n\xff\xfe\x00binary")
    line = one_error_line(aqmlab("validate", f))
    assert f"{f}: a TOML text file in UTF-8, found byte 0xff at offset 13" in line


def test_an_unknown_start_key_names_the_key_and_the_forms(tmp_path, tiny_text):
    f = tmp_path / "tiny.toml"
    f.write_text(tiny_text + 'start = { sprad = "1s" }\n')
    line = one_error_line(aqmlab("validate", f))
    assert f"{f}:26: flows[0].start: " in line
    assert "`sprad` is neither `spread` nor `uniform`" in line and '{ spread = "1s" }' in line


def test_queue_with_directional_queues_is_an_error_even_by_set(tmp_path):
    line = one_error_line(aqmlab("validate", EXAMPLE, "--set", 'links.3.queue={kind="pie"}'))
    assert "links[3].queue: either `queue` (both directions) or `queue_ab`/`queue_ba`, not both" in line
    assert '(set by --set links.3.queue={kind="pie"})' in line


def test_a_negative_queue_limit_names_queue_limit(tmp_path):
    line = one_error_line(aqmlab("validate", EXAMPLE, "--set", "links.0.queue.limit=-3"))
    assert "links[0].queue.limit: invalid value: integer `-3`" in line


def test_validate_and_run_report_every_mistake(tmp_path, tiny_text):
    f = tmp_path / "three.toml"
    text = tiny_text.replace('rate = "10Mbps"', 'rate = "-10Mbps"', 2).replace(
        'rate = "-10Mbps"', 'rate = "10Mbps"', 1
    )
    f.write_text(text + 'colour = "red"\n[measure]\nwarmup = "soon"\n')
    p = aqmlab("validate", f)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 3, p.stderr
    assert lines[0].startswith(f"aqmlab: error: {f}:13: links[1].rate: a positive rate"), p.stderr
    assert lines[1].startswith(f"aqmlab: error: {f}:26: flows[0].colour: unknown field `colour`"), p.stderr
    assert lines[2].startswith(f"aqmlab: error: {f}:28: measure.warmup: "), p.stderr
    with pytest.raises(api.ScenarioError) as e:
        api.validate(f)
    assert [f"aqmlab: error: {m}" for m in e.value.errors] == lines and str(e.value) == e.value.errors[0]
    p = aqmlab("run", f, "--out", tmp_path / "run")
    assert p.returncode == 2 and p.stderr.strip().splitlines() == lines, p.stderr
    assert not (tmp_path / "run").exists()


def test_warnings_go_to_stderr_and_the_summary(tmp_path, tiny_text):
    f = tmp_path / "late.toml"
    f.write_text(tiny_text + 'start = "5s"\n')
    warning = f"{f}:26: flows[0].start: 1 of the group's 1 flows start at or after the end of the run"
    p = aqmlab("validate", f)
    assert p.returncode == 0 and "OK, 1 warning(s)" in p.stdout
    assert p.stderr.startswith(f"aqmlab: warning: {warning}"), p.stderr
    p = aqmlab("run", f, "--out", tmp_path / "run", "--quiet")
    assert p.returncode == 0 and p.stderr.startswith(f"aqmlab: warning: {warning}"), p.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert len(summary["warnings"]) == 1 and summary["warnings"][0].startswith(warning)
    assert api.validate(EXAMPLE)["warnings"] == []
    # A sweep prints each combination's warnings once, with the combination, before it runs.
    p = aqmlab(
        "sweep", f, "--grid", 'flows.0.start="5s","0s"', "--seeds", "2", "--out", tmp_path / "sw", "-q"
    )
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("aqmlab: warning:")]
    assert (
        len(lines) == 1 and "flows[0].start: 1 of the group's 1 flows start at or after the end" in lines[0]
    )
    assert lines[0].endswith('(in the runs with flows.0.start="5s")'), p.stderr


def test_a_sweep_refuses_a_folder_of_another_plan_unless_forced(tmp_path):
    """A plan that would drop runs from the folder's record is refused; resuming or extending is not."""
    out = tmp_path / "sw"
    first = sweep.run_sweep(EXAMPLE, sets=SHORT, seeds=2, jobs=1, out=out)
    assert first.done == 2
    definition = (out / "sweep.json").read_text()
    with pytest.raises(sweep.SweepError, match="holds a different sweep .2 runs.*this one: 1 runs.*--force"):
        sweep.run_sweep(EXAMPLE, sets=SHORT, seeds=1, jobs=1, out=out)
    assert (out / "sweep.json").read_text() == definition
    # The same plan resumes as before; --force replaces the record and keeps the run folders.
    again = sweep.run_sweep(EXAMPLE, sets=SHORT, seeds=2, jobs=1, out=out)
    assert (again.done, again.skipped) == (0, 2)
    more = sweep.run_sweep(EXAMPLE, sets=SHORT, seeds=3, jobs=1, out=out)
    assert (more.done, more.skipped) == (1, 2)
    with pytest.raises(sweep.SweepError, match="holds a different sweep"):
        sweep.run_sweep(EXAMPLE, sets=[*SHORT, "tcp.ecn=true"], seeds=3, jobs=1, out=out)
    forced = sweep.run_sweep(EXAMPLE, sets=SHORT, seeds=1, jobs=1, out=out, force=True)
    assert (forced.done, forced.skipped) == (0, 1)
    assert len(json.loads((out / "sweep.json").read_text())["runs"]) == 1
    assert len(set(forced.aggregate["run"])) == 1
    assert len(list((out / "runs").iterdir())) == 3


def test_the_sweep_command_says_to_pass_force(tmp_path):
    out = tmp_path / "sw"
    args = ["sweep", EXAMPLE, "--out", out, "--quiet", "--jobs", "1"]
    for s in SHORT:
        args += ["--set", s]
    assert aqmlab(*args).returncode == 0
    line = one_error_line(aqmlab(*args, "--set", "tcp.ecn=true"))
    assert f"{out}: holds a different sweep" in line and "pass --force" in line
    assert aqmlab(*args, "--set", "tcp.ecn=true", "--force").returncode == 0


@pytest.mark.parametrize("n", [2, 5, 11, 30])
def test_intervals_use_students_t_for_any_number_of_seeds(n):
    xs = [float(i % 3) for i in range(n)]
    mean, half = mean_ci(xs)
    sd = stats.tstd(xs)
    assert half == pytest.approx(stats.t.ppf(0.975, n - 1) * sd / n**0.5, rel=1e-12)
    if n == 11:  # the normal quantile used to be taken from 11 seeds on: 12 % too narrow
        assert half / (1.96 * sd / n**0.5) == pytest.approx(2.228 / 1.96, rel=1e-3)


def test_calibration_widens_directional_queues_without_queue():
    doc = {"links": [{"a": "r1", "b": "r2", "queue_ab": {}, "queue_ba": {}}, {"a": "h", "b": "r1"}]}
    out = _widen(doc, {"r1->r2": 1e6, "h->r1": 1e6}, 1e9)
    assert f"links.0.queue_ab={WIDE_QUEUE}" in out and f"links.0.queue_ba={WIDE_QUEUE}" in out
    assert not any(o.startswith("links.0.queue=") for o in out)
    assert f"links.1.queue={WIDE_QUEUE}" in out


def test_calibration_widens_a_parking_lot():
    lot = {
        "routers": 3,
        "queues": {"R1->R2": {"kind": "pi"}},
        "hosts": [{"name": "h", "count": 2, "router": "R0"}],
    }
    lot["hosts"].append({"names": ["fast"], "router": "R2"})
    out = _widen({"parking_lot": lot}, {"R0->R1": 1e6, "h0->R0": 1e6, "fast->R2": 1e10}, 1e9)
    assert out == [
        "parking_lot.rate=1000000000",
        f"parking_lot.queue={WIDE_QUEUE}",
        "parking_lot.queues={}",
        "parking_lot.hosts.0.rate=1000000000",
        f"parking_lot.hosts.0.queue={WIDE_QUEUE}",
    ]
