"""Study reproduction: a tiny study's report holds every table and figure; the findings checks pass on
the paper's own numbers and fail on deliberately wrong ones."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from aqmlab import reproduce, sweep
from aqmlab.studies import chrost2009, l4s_coexistence, weigle2005
from aqmlab.studies.base import paired_effect


def _tiny_chrost_runs(quick, seeds, calibration=None):
    # Every configuration of the study, each cut to 4 simulated seconds after the 30 s warm-up.
    specs = chrost2009.runs(True, 1)
    return [type(s)(s.labels, s.scenario, s.seed, (*s.overrides, "duration=34")) for s in specs]


def test_a_tiny_study_report_has_every_table_figure_and_finding(tmp_path, monkeypatch):
    monkeypatch.setattr(chrost2009.STUDY, "runs", _tiny_chrost_runs)
    report = reproduce.reproduce("chrost2009", quick=True, jobs=2, out=tmp_path / "rep")
    html = report.read_text()
    for title in [
        "avg queue (pkts)",
        "throughput (%)",
        "std (pkts)",
        "CoV (%)",
        "Buffer 900, uncongested",
    ]:
        assert title in html
    for scale in chrost2009.SCALES:
        for ext in ("png", "svg"):
            assert (tmp_path / "rep" / f"queue_{scale}.{ext}").stat().st_size > 1000
        assert f"queue_{scale}.png" in html
    findings = json.loads((tmp_path / "rep" / "findings.json").read_text())
    assert len(findings) == 3 and all(isinstance(f["reproduced"], bool) for f in findings)
    # Paper values sit beside simulated ones in every buffer-90 table.
    t1 = pd.read_csv(tmp_path / "rep" / "table1.csv")
    assert list(t1.columns[1:3]) == ["uncongested sim", "uncongested paper"]
    assert t1.loc[t1["AQM"] == "DT", "heavy paper"].item() == 73.5
    # A second invocation resumes: nothing is simulated again.
    events = []
    reproduce.reproduce(
        "chrost2009", quick=True, jobs=2, out=tmp_path / "rep", progress=lambda k, i: events.append((k, i))
    )
    assert events[0] == ("start", {"total": len(_tiny_chrost_runs(True, 1)), "todo": 0})


class _Planned(Exception):
    pass


@pytest.mark.parametrize(("quick", "expected"), [(False, 5), (True, 2)])
def test_without_seeds_a_study_runs_its_own_number(monkeypatch, tmp_path, quick, expected):
    def runs(quick, seeds, calibration=None):
        raise _Planned(seeds)

    monkeypatch.setattr(l4s_coexistence.STUDY, "runs", runs)
    with pytest.raises(_Planned) as planned:
        reproduce.reproduce("l4s-coexistence", quick=quick, out=tmp_path)
    assert planned.value.args == (expected,)


def _chrost_frame(paper_like: bool) -> pd.DataFrame:
    rows = []
    for aqm, per_scale in chrost2009.PAPER_90.items():
        for scale, (avg, tp, std, cov) in zip(chrost2009.SCALES, per_scale, strict=True):
            rows.append(
                dict(
                    scale=scale, aqm=aqm, buffer="90", seed=1, avg_queue=avg, throughput=tp, std=std, cov=cov
                )
            )
        avg, tp, std = chrost2009.PAPER_900[aqm]
        rows.append(
            dict(
                scale="uncongested",
                aqm=aqm,
                buffer="900",
                seed=1,
                avg_queue=avg,
                throughput=tp,
                std=std,
                cov=100 * std / avg,
            )
        )
    df = pd.DataFrame(rows)
    if not paper_like:
        # A stable short queue at low congestion, and REM far from drop-tail: every claim is contradicted.
        df.loc[(df["aqm"] == "PI") & (df["scale"] == "mild"), "cov"] = 40.0
        df.loc[(df["aqm"] == "PI") & (df["buffer"] == "900"), ["avg_queue", "cov"]] = [10.0, 50.0]
        df.loc[df["aqm"] == "REM", "avg_queue"] *= 0.5
    return df


@pytest.mark.parametrize("paper_like", [True, False])
def test_chrost_findings_follow_the_numbers(monkeypatch, paper_like):
    monkeypatch.setattr(chrost2009, "summarize", lambda outcomes: _chrost_frame(paper_like))
    results = chrost2009.findings([])
    assert [f.reproduced for f in results] == [paper_like] * 3


def _weigle_frame(paper_like: bool, seeds: int = 3) -> pd.DataFrame:
    """Table I's numbers for three seeds, each seed scaled by 1 + 1 % · (seed − 2): every paired effect then
    has a small but nonzero interval."""
    rows = []
    for combo, cells in weigle2005.PAPER.items():
        n_aqm = combo.count("AQM")
        for q, (gp, ll, http) in cells.items():
            # Response times are not tabulated in the paper: fall with each AQM router (DT-REM best of 2CL).
            rt = 1.0 - 0.1 * n_aqm - (0.05 if combo == ("DT", "AQM") else 0.0)
            for seed in range(1, seeds + 1):
                f = 1 + 0.01 * (seed - 2) * (1 + 0.1 * n_aqm)
                rows.append(
                    dict(
                        row="-".join(combo),
                        queue=q,
                        seed=seed,
                        goodput=gp * f,
                        ll_loss=ll * f,
                        http_loss=http * f,
                        rt_median=rt * f,
                        rt_mean=rt * f,
                    )
                )
    df = pd.DataFrame(rows)
    if not paper_like:
        df.loc[df["queue"] == "ARED", "goodput"] = 2000.0  # ARED best, above drop-tail
        df.loc[df["queue"] == "PI", "ll_loss"] = 3.0
        df["rt_mean"] = 1.0 + 0.1 * df["row"].str.count("AQM")
    return df


@pytest.mark.parametrize("paper_like", [True, False])
def test_weigle_findings_follow_the_numbers(monkeypatch, paper_like):
    monkeypatch.setattr(weigle2005, "summarize", lambda outcomes: _weigle_frame(paper_like))
    results = weigle2005.findings([])
    assert [f.reproduced for f in results] == [paper_like] * 5, [(f.claim, f.evidence) for f in results]


def test_weigle_findings_need_an_interval_not_two_means(monkeypatch):
    """One seed gives no interval, so nothing is reproduced even on the paper's own numbers; and a 1-ms
    difference buried in ±30 ms of seed-to-seed noise is no 'DT-REM beats REM-DT'."""
    monkeypatch.setattr(weigle2005, "summarize", lambda outcomes: _weigle_frame(True, seeds=1))
    assert not any(f.reproduced for f in weigle2005.findings([]))
    df = _weigle_frame(True)
    rem = df["queue"] == "REM"
    for combo, rt, noise in (("DT-AQM", 0.800, 0.03), ("AQM-DT", 0.801, -0.03)):
        sel = rem & (df["row"] == combo)
        df.loc[sel, "rt_mean"] = [rt - noise, rt + noise, rt]
    monkeypatch.setattr(weigle2005, "summarize", lambda outcomes: df)
    fifth = weigle2005.findings([])[4]
    assert not fifth.reproduced and "+1 ± " in fifth.evidence, fifth.evidence


def test_paired_effect_by_hand():
    # differences 1, 2, 0: mean 1, sd 1, half-width t(0.975, 2) · 1 / sqrt(3) = 4.302653 / 1.732051 = 2.484138
    m, h, n = paired_effect({1: 1.0, 2: 2.0, 3: 3.0, 4: 9.0}, {1: 2.0, 2: 4.0, 3: 3.0})
    assert (m, n) == (1.0, 3) and h == pytest.approx(2.484138, abs=1e-6)


def test_weigle_lossless_finding_names_the_overflow_share_of_the_worst_loss(monkeypatch):
    """Finding 3 reports, for the PI/REM cell with the highest loss bound, how much of that loss the buffer
    overflowed (PI and REM mark what they select, so the rest could not be marked)."""
    df = _weigle_frame(True)
    worst = (df["row"] == "AQM-AQM-AQM") & (df["queue"] == "PI")
    df.loc[worst, "http_loss"] = [0.5, 0.6, 0.7]
    df["http_loss_overflow"] = float("nan")
    df.loc[worst, "http_loss_overflow"] = [0.3, 0.45, 0.6]
    monkeypatch.setattr(weigle2005, "summarize", lambda outcomes: df)
    third = weigle2005.findings([])[2]
    assert not third.reproduced
    assert "AQM-AQM-AQM PI http loss 0.60 ± 0.25 %, of which buffer overflow 0.45 %" in third.evidence


def test_unknown_study_is_a_clear_error():
    with pytest.raises(reproduce.ReproduceError, match="unknown study"):
        reproduce.reproduce("nosuch2024")


def test_weigle_findings_run_the_same_checks_on_the_ns2_twin(monkeypatch):
    """Each finding is also checked on the twin's cells: where ns-2 misses a finding too, the verdict says
    so; a check whose cells the twin did not run gives no reference."""
    monkeypatch.setattr(weigle2005, "summarize", lambda outcomes: _weigle_frame(False))
    twin = _weigle_frame(False)
    twin = twin[twin["row"].isin(["DT", "AQM", "AQM-AQM-AQM"])]  # ARED best there, as in aqmlab's frame
    cells = {
        f"{row} {queue}": {"seeds": [1, 2, 3]}
        | {m: list(g.sort_values("seed")[m]) for m in ("goodput", "ll_loss", "http_loss")}
        for (row, queue), g in twin.groupby(["row", "queue"])
    }
    monkeypatch.setattr(weigle2005, "ns2_results", lambda: {"cells": cells})
    results = weigle2005.findings([])
    assert [f.reference_reproduced for f in results] == [False, False, False, None, None]
    assert results[1].verdict == "NOT reproduced, nor by the reference simulator"
    assert "in 0 of 2 AQM rows" in results[1].reference, results[1].reference
    assert results[3].verdict == "NOT reproduced" and results[3].reference == ""


def test_weigle_table_i_agreement_counts_cells_and_orderings(monkeypatch):
    """On the paper's own numbers (the seeds' values average to them) every cell is within 15 % and inside
    its interval, and every ordered pair holds. With PI's and REM's losses swapped, the pairs the paper
    orders between them come out reversed: by hand from Table I (ratio >= 1.5), one long-lived loss pair
    (AQM-AQM-AQM, 0.08 against 0.04) and four HTTP loss pairs (AQM, AQM-AQM, AQM-DT-AQM, AQM-AQM-AQM). ARED's
    goodput at 2000 kb/s puts its 11 cells outside 15 %."""
    monkeypatch.setattr(weigle2005, "ns2_results", lambda: {"cells": {}})

    def checks(df):
        table = weigle2005._agreement_table(df).frame
        return dict(zip(table["check"], table["aqmlab"], strict=True))

    paper = checks(_weigle_frame(True))
    for metric in ("long-lived goodput", "long-lived loss", "HTTP loss"):
        assert paper[f"{metric}: cells within 15% of the paper"] == "36 of 36"
        assert paper[f"{metric}: cells whose 95% interval holds the paper's value"] == "36 of 36"
    ordered = [v for k, v in paper.items() if "pairs the paper orders" in k]
    assert len(ordered) == 2 and all(re.fullmatch(r"(\d+) / \1 of \1, 0 reversed", v) for v in ordered)
    assert (
        "(not shown)" not in paper["long-lived goodput: drop-tail's falls with each congested link (paired)"]
    )

    df = _weigle_frame(True)
    pi, rem = df["queue"] == "PI", df["queue"] == "REM"
    for metric in ("ll_loss", "http_loss"):
        df.loc[pi, metric], df.loc[rem, metric] = df.loc[rem, metric].values, df.loc[pi, metric].values
    df.loc[df["queue"] == "ARED", "goodput"] = 2000.0
    swapped = checks(df)
    assert swapped[
        "long-lived loss: pairs the paper orders, same order (interval / means) and reversed"
    ].endswith(", 1 reversed")
    assert swapped["HTTP loss: pairs the paper orders, same order (interval / means) and reversed"].endswith(
        ", 4 reversed"
    )
    assert swapped["long-lived goodput: cells within 15% of the paper"] == "25 of 36"


def test_weigle_ared_finding_gives_the_congestion_signals_and_the_mathis_ratio(monkeypatch):
    """By hand: over the 6 rows of Table I with one AQM link ARED's goodputs sum to 5946 kb/s, PI's to 6506,
    a ratio of 0.91; with 4 % of long-lived packets marked by ARED and 16 % by PI (no loss), the Mathis law
    predicts √(16 / 4) = 2.00."""
    df = _weigle_frame(True)
    df["ll_loss"] = 0.0
    df["ll_marked"] = df["queue"].map({"DT": 0.0, "ARED": 4.0, "PI": 16.0, "REM": 9.0})
    monkeypatch.setattr(weigle2005, "summarize", lambda outcomes: df)
    monkeypatch.setattr(weigle2005, "ns2_results", lambda: {"cells": {}})
    evidence = weigle2005.findings([])[1].evidence
    assert "mean over the 6 rows with one AQM link: ARED 4.0 %, PI 16.0 %, REM 9.0 %" in evidence, evidence
    assert "ARED/PI goodput 0.91, by the Mathis law √(p_PI/p_ARED) = 2.00" in evidence, evidence


def test_weigle_study_rates_count_the_offered_load_as_response_payload():
    """By hand: 48.976 and 43.056 conn/s calibrated on the wire round to 48.98 and 43.06; the wire carries
    3.678272 Mb/s where the responses carry 3.470953, a factor 1.059729, so the study runs 51.91 and 45.63."""
    cal = {
        "e2e_rate": 48.976,
        "cross_rate": 43.056,
        "e2e_load_at_first_estimate_mbps": 3.678272,
        "e2e_payload_at_first_estimate_mbps": 3.470953,
    }
    assert weigle2005.study_rates(cal) == {"e2e_rate": 51.91, "cross_rate": 45.63}
    for spec in weigle2005.runs(True, 1, cal):
        rates = set(re.findall(r"^rate = ([0-9.]+)$", spec.scenario, re.M))
        assert rates <= {"51.91", "45.63"} and "51.91" in rates, (spec.labels, rates)


def test_a_second_process_on_the_same_runs_folder_is_refused(tmp_path):
    """A reproduction clears the temporary folders of unfinished runs when it starts, so a second one on
    the same folder would delete the first one's live runs: it is refused instead."""
    runs = tmp_path / "runs"
    runs.mkdir()
    live = runs / ".0123456789abcdef.tmp-x"
    live.mkdir()
    with sweep.FolderLock(runs):
        with pytest.raises(reproduce.ReproduceError, match="another aqmlab process"):
            reproduce.execute([], runs)
    assert live.is_dir()
    assert reproduce.execute([], runs) == [] and not live.exists()  # alone, it clears what was left
