"""The L4S coexistence study: its run list is well-formed (every configuration parses), the per-packet waits
rebuilt from packet captures agree with the engine's own sojourn statistics, and a tiny reproduction
writes tables and findings whose numbers are the runs' own."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aqmlab import api, reproduce
from aqmlab.scenario import validate
from aqmlab.studies import l4s_coexistence as l4s
from aqmlab.studies.base import RunOutcome, StudyRun


@pytest.mark.parametrize("quick", [True, False])
def test_every_configuration_parses_and_is_labelled(tmp_path, quick):
    specs = l4s.runs(quick, 2)
    mixes = l4s.QUICK_MIXES if quick else list(l4s.MIXES)
    assert len(specs) == len(l4s.AQMS) * len(l4s.RTTS) * len(mixes) * 2
    configs = {s.labels for s in specs}
    assert len(configs) == len(specs) // 2
    scenario = tmp_path / "coexistence.toml"
    scenario.write_text(specs[0].scenario)
    for spec in specs:
        if spec.seed != 1:
            continue
        model = validate(scenario, set=spec.overrides, seed=spec.seed)
        n_l, n_c, classic_cc = l4s.MIXES[spec.label("mix")]
        assert model["flows"] == n_l + n_c, spec.labels
        assert f"flows.0.tcp.cc={l4s.SCALABLE_CC}" in spec.overrides
        assert f"flows.1.tcp.cc={classic_cc}" in spec.overrides
        assert f"dumbbell.bottleneck_delay={l4s.RTTS[int(spec.label('rtt'))]}" in spec.overrides


def test_the_user_facing_example_is_the_study_base_case():
    """scenarios/l4s/dualpi2-prague-vs-cubic.toml parses and runs the study's first configuration: DualPI2,
    100 Mb/s, one scalable ECT(1) flow beside one classic flow, the same groups and controls."""
    example = Path(__file__).resolve().parent.parent / "scenarios" / "l4s" / "dualpi2-prague-vs-cubic.toml"
    assert validate(example)["flows"] == 2
    doc, study = tomllib.loads(example.read_text()), tomllib.loads(l4s.SCENARIO.read_text())
    assert doc["dumbbell"]["queue"] == {"kind": "dualpi2"} and l4s.AQMS["DualPI2"] == '{ kind = "dualpi2" }'
    for key in ("bottleneck_rate", "bottleneck_delay", "access_delay"):
        assert doc["dumbbell"][key] == study["dumbbell"][key]
    assert [(f["name"], f["tcp"]) for f in doc["flows"]] == [(f["name"], f["tcp"]) for f in study["flows"]]


def _run(tmp_path, queue: str, seed: int = 1) -> RunOutcome:
    spec = l4s.runs(True, 1)[0]
    overrides = [
        o for o in spec.overrides if not o.startswith(("dumbbell.queue=", "duration=", "measure.warmup="))
    ]
    overrides += [f"dumbbell.queue={queue}", "duration=8", "measure.warmup=3"]
    scenario = tmp_path / "coexistence.toml"
    scenario.write_text(spec.scenario)
    api.run(scenario, set=overrides, seed=seed, out=tmp_path / "run")
    return RunOutcome(StudyRun(spec.labels, spec.scenario, seed, tuple(overrides)), tmp_path / "run")


@pytest.mark.parametrize("queue", ['{ kind = "dualpi2" }', '{ kind = "pie", ecn = true }'])
def test_waits_from_the_captures_match_the_links_sojourn(tmp_path, queue):
    """Each class's waits, rebuilt from the capture of the bottleneck and of its feeding link, pooled, have
    the mean the engine measures for the link (it counts every packet; retransmissions are few)."""
    o = _run(tmp_path, queue)
    waits = l4s.class_waits(o)
    link = o.table("links").set_index("link").loc[l4s.BOTTLENECK]
    pooled = np.concatenate([waits["scalable"], waits["classic"]])
    assert len(pooled) > 0.95 * link["departures"]  # only data packets cross A->B
    assert pooled.mean() == pytest.approx(link["sojourn_mean_s"], rel=0.03, abs=2e-5)
    assert pooled.max() <= link["sojourn_max_s"] + 1e-9
    # Each class's packets are its flows' segments: about as many as they delivered in the window.
    flows = o.table("flows").groupby("group")["bytes_delivered"].sum()
    for cls in l4s.CLASSES:
        assert len(waits[cls]) == pytest.approx(flows[cls] / 1460, rel=0.05)


def test_a_tiny_reproduction_reports_the_runs_own_numbers(tmp_path, monkeypatch):
    def tiny_runs(quick, seeds, calibration=None):
        keep = {"DualPI2", "PIE"}
        return [
            StudyRun(s.labels, s.scenario, s.seed, (*s.overrides, "duration=8", "measure.warmup=3"))
            for s in l4s.runs(True, seeds)
            if s.label("aqm") in keep and s.label("rtt") == "20"
        ]

    monkeypatch.setattr(l4s.STUDY, "runs", tiny_runs)
    report = reproduce.reproduce("l4s-coexistence", quick=True, jobs=1, out=tmp_path / "rep")
    rep = tmp_path / "rep"
    html = report.read_text()
    for title in (
        "Rate balance",
        "Queueing delay at the bottleneck per class",
        "Utilisation, marks and drops",
    ):
        assert title in html
    assert (rep / "ratio_1_1_cubic.png").stat().st_size > 1000
    assert (rep / "delay_1_1_cubic_rtt20.svg").stat().st_size > 1000
    # Each run's rate ratio straight from its flows table; the table's cell is their mean over the 2 seeds.
    folders = [d for d in (rep / "runs").iterdir() if (d / "summary.json").is_file()]
    assert len(folders) == 4
    ratios = {}
    for d in folders:
        s = json.loads((d / "summary.json").read_text())
        f = pd.read_parquet(d / "flows.parquet").set_index("group")["goodput_bps"]
        aqm = "DualPI2" if "dualpi2" in " ".join(s["overrides"]) else "PIE"
        ratios.setdefault(aqm, []).append(f["scalable"] / f["classic"])
        assert not (d / "pcap").exists()  # reduced to l4s_metrics_v1.json
    t1 = pd.read_csv(rep / "table1.csv").set_index("AQM")
    for aqm, rs in ratios.items():
        shown = float(t1.loc[aqm, "rate ratio sim"].split(" ± ")[0])
        assert shown == pytest.approx(np.mean(rs), abs=0.006)
    assert t1.loc["DualPI2", "rate ratio RFC 9332"] == "0.5–2"
    findings = json.loads((rep / "findings.json").read_text())
    assert len(findings) == 4 and all(isinstance(f["reproduced"], bool) for f in findings)
    # Finding 1's evidence is DualPI2's ratio over the seeds; finding 4 has no FQ-CoDel run to stand on.
    m = re.search(r"20 ms: ([0-9.]+) ± ([0-9.]+)", findings[0]["evidence"])
    assert m and float(m.group(1)) == pytest.approx(np.mean(ratios["DualPI2"]), abs=0.006)
    assert findings[3]["reproduced"] is False
