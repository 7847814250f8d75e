"""Study L on closed-loop web users: the scenario replaces each PackMime generator by users, the
calibration turns a measured load into user counts, and the open-loop PackMime traffic stays available as
the variant ``packmime``."""

from __future__ import annotations

import tomllib

import pandas as pd
import pytest

from aqmlab import api, reproduce
from aqmlab.studies import le2003
from aqmlab.studies.base import RunOutcome, StudyRun


def test_web_users_take_the_place_of_each_packmime_generator():
    open_loop = tomllib.loads(le2003.SCENARIO.read_text(encoding="utf-8"))
    closed = tomllib.loads(le2003.traffic_model("web_users").text)
    assert "http" not in closed and len(closed["web_users"]) == len(open_loop["http"]) == 2
    for users, http in zip(closed["web_users"], open_loop["http"], strict=True):
        assert (users["name"], users["clients"], users["servers"]) == (
            http["name"],
            http["clients"],
            http["servers"],
        )
        # PackMime's UNC-fitted response sizes, with run lengths of the open-loop scenario's rate
        assert users["response_size"] == {"kind": "packmime", "rate": http["rate"]}
    # everything else (links, DelayBoxes, TCP, measurement) is the open-loop scenario's
    for key in ("links", "delaybox", "tcp", "measure"):
        assert closed[key] == open_loop[key]


def test_the_traffic_knob_sets_users_or_connection_rates():
    assert le2003.traffic_model("web_users").overrides(3070.4) == [
        "web_users.0.users=3070",
        "web_users.1.users=3070",
    ]
    assert le2003.traffic_model("packmime").overrides(1261) == [
        "http.0.rate=1261.000",
        "http.1.rate=1261.000",
    ]


class _Outcome(RunOutcome):
    def __init__(self, utilization: float):
        self.utilization = utilization

    def table(self, name: str) -> pd.DataFrame:
        assert name == "links"
        return pd.DataFrame({"link": ["RA->RB", "RB->RA"], "utilization": [self.utilization] * 2})


@pytest.mark.parametrize("variant", ["web_users", "packmime"])
def test_calibration_is_linear_in_the_knob(variant):
    """One run on the uncongested 1 Gb/s network at the base size: a utilization of 0.1 there is 100 Mb/s,
    so the size for p % of 100 Mb/s is p / 100 of the base size."""
    traffic = le2003.traffic_model(variant)
    seen = []

    def execute(specs):
        seen.extend(specs)
        return [_Outcome(0.1)]

    cal = le2003.calibrate(traffic, True, execute)
    (spec,) = seen
    assert f"{le2003.PEERING}.rate=1Gbps" in spec.overrides
    assert set(traffic.overrides(traffic.base)) <= set(spec.overrides)
    for p in le2003.LOADS:
        assert cal[f"{traffic.knob}_{p}"] == pytest.approx(p / 100 * traffic.base)
    runs = le2003.runs(traffic, True, 1, cal)
    at_90 = [r for r in runs if r.label("load") == "90"]
    assert at_90 and all(set(traffic.overrides(0.9 * traffic.base)) <= set(r.overrides) for r in at_90)


def test_packmime_is_a_variant_of_the_study():
    variant = le2003.STUDY.variants["packmime"]()
    assert variant.variant == "packmime" and le2003.STUDY.variant == ""
    spec = variant.runs(True, 1, None)[0]
    assert "[[http]]" in spec.scenario and "web_users" not in spec.scenario
    assert "[[web_users]]" in le2003.STUDY.runs(True, 1, None)[0].scenario


def test_an_unknown_variant_is_a_clear_error():
    with pytest.raises(reproduce.ReproduceError, match="no variant 'nosuch'; its variants: packmime"):
        reproduce.reproduce("le2003", variant="nosuch")


def test_the_web_users_scenario_runs():
    traffic = le2003.traffic_model("web_users")
    r = api.run_text(traffic.text, "le2003", set=[*traffic.overrides(200), "duration=5", "measure.warmup=1"])
    resp = r.responses.set_index("class")
    for side in ("web_ab", "web_ba"):
        assert resp.loc[side, "pairs"] > 0 and resp.loc[f"{side}.page", "pairs"] > 0


def _frame(paper_like: bool, seeds: int = 3) -> pd.DataFrame:
    """Median response times (s) shaped as the paper reports them, or contradicting every finding, with a
    few ms of per-seed noise so that the paired intervals are finite."""
    rows = []
    for i, scheme in enumerate(le2003.schemes(False)):
        family, ecn = scheme.split()[0], scheme.endswith(", ECN")
        for load in le2003.LOADS:
            congested = load >= 90
            if scheme == "uncongested":
                rt = 0.20
            elif family == "DT":
                rt = 0.40 if congested else 0.25
            elif family == "ARED":
                rt = 0.50 if congested else 0.27
            elif ecn:
                rt = 0.25 if congested else 0.26
            else:
                rt = {"PI": 0.37, "REM": 0.42}[family] if congested else 0.27
            if not paper_like:
                if family == "ARED":
                    rt = 0.21  # fastest everywhere: contradicts findings 1, 2 and 4
                elif family in ("PI", "REM"):
                    rt = 0.45 if congested else 0.30  # no gain from PI or from ECN: contradicts 2 and 3
            for seed in range(1, seeds + 1):
                noise = 0.003 * ((seed * (i + 1) + load) % 3 - 1)
                rows.append(dict(load=str(load), scheme=scheme, seed=seed, rt_median=rt + noise))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("paper_like", [True, False])
def test_findings_follow_the_effects(monkeypatch, paper_like):
    monkeypatch.setattr(le2003, "summarize", lambda outcomes: _frame(paper_like))
    found = le2003.findings([])
    assert len(found) == 4
    assert [f.reproduced for f in found] == [paper_like] * 4
    assert all("±" in f.evidence for f in found)


def test_one_seed_reproduces_no_finding(monkeypatch):
    monkeypatch.setattr(le2003, "summarize", lambda outcomes: _frame(True, seeds=1))
    found = le2003.findings([])
    assert not any(f.reproduced for f in found)
    assert all("one seed" in f.evidence for f in found)


class _Windowed(RunOutcome):
    """A run at 98 % with a 10-minute statistics window per loss given, and one more, shorter window."""

    def __init__(self, losses: list[float], p90s: list[float], carried: list[float] | None = None):
        self.spec = StudyRun(labels=(("load", "98"), ("scheme", "DT 240")), scenario="", seed=1)
        starts = [60.0 + 600 * k for k in range(len(losses) + 1)]
        ends = [a + 600 for a in starts[:-1]] + [starts[-1] + 40]
        carried = carried or [1e9] * len(losses)
        self.links = pd.DataFrame(
            [
                # loss and bytes split over the two directions; a busy access link that must not count
                {
                    "link": link,
                    "t_start": a,
                    "t_end": b,
                    "arrivals": 1000,
                    "drops": 10 * loss,
                    "departure_bytes": c / 2,
                }
                for a, b, loss, c in zip(starts, ends, [*losses, 99.0], [*carried, 1.0], strict=True)
                for link in ("RA->RB", "RB->RA")
            ]
            + [
                {"link": "clientsA->RA", "t_start": 60.0, "t_end": 660.0, "arrivals": 5, "drops": 5}
                | {"departure_bytes": 7}
            ]
        )
        self.responses = pd.DataFrame(
            [
                {"class": c, "t_start": a, "t_end": b, "pairs": n, "p90_s": p90 * k}
                for a, b, p90 in zip(starts, ends, [*p90s, 9.0], strict=True)
                # two object classes: the pairs-weighted p90 is p90; pages are left out
                for c, n, k in (("web_ab", 1, 0.5), ("web_ba", 3, 7 / 6), ("web_ab.page", 9, 100))
            ]
        )

    def table(self, name: str) -> pd.DataFrame:
        return {"window_links": self.links, "window_responses": self.responses}[name]


@pytest.mark.parametrize(
    ("losses", "p90s", "spreads", "stationary"),
    [
        ([5.0, 5.5], [0.8, 0.9], ("10", "12"), "yes"),  # 5.5 / 5 − 1 = 10 %, 0.9 / 0.8 − 1 = 12.5 %
        ([5.0, 6.5], [0.8, 0.8], ("30", "0"), "no"),  # loss grows by 30 %
        ([0.0, 0.0], [0.8, 0.85], ("0", "6"), "yes"),  # no loss at all: no spread
        ([0.0, 0.1], [0.8, 0.8], ("inf", "0"), "no"),
    ],
)
def test_stationarity_compares_the_full_windows(losses, p90s, spreads, stationary):
    (row,) = le2003.stationarity([_Windowed(losses, p90s)]).frame.to_dict("records")
    assert (row["loss spread %"], row["p90 spread %"], row["stationary"]) == (*spreads, stationary)
    assert row["loss % per window"] == " / ".join(f"{v:.2f}" for v in losses)
    assert row["p90 ms per window"] == " / ".join(f"{1e3 * v:.0f}" for v in p90s)


def test_stationarity_tells_a_drift_from_window_to_window_noise():
    # Loss rising by 0.5 points per 10-minute window is 3 points per hour, exactly linear: a drift.
    rising = _Windowed([1.0, 1.5, 2.0, 2.5], [0.8] * 4, carried=[9e9, 9.09e9, 9e9, 9e9])
    # Values like these out of order: a spread of 150 % but a slope of 0.2 points per window (least
    # squares: Σ(k − 1.5)·y / Σ(k − 1.5)² = 1 / 5), 1.2 per hour, inside a wide interval.
    noisy = _Windowed([2.0, 1.0, 1.5, 2.5], [0.8] * 4)
    table = le2003.stationarity([rising, noisy])
    a, b = table.frame.to_dict("records")
    assert a["loss trend, points per hour"] == "+3.00 ± 0.00"
    assert a["carried spread %"] == "1.0"
    assert b["loss trend, points per hour"].startswith("+1.20 ± 8.")
    assert (a["stationary"], b["stationary"]) == ("no", "no")
    assert "1 of 2 runs drift" in table.note


def test_the_stationarity_loads_carry_statistics_windows():
    for quick, window in ((True, "30s"), (False, "600s")):
        for spec in le2003.STUDY.runs(quick, 1, None):
            has = f"measure.window={window}" in spec.overrides
            assert has == (int(spec.label("load")) in le2003.STATIONARITY_LOADS)
