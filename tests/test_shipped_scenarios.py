"""Every scenario the repository ships loads, and the aqmlab side of the ns-3 comparison stays runnable
without ns-3 (validation/compare_ns3.py, docs/validation-ns3.md)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import aqmlab

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "scenarios").rglob("*.toml"))


@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(ROOT)) for p in SHIPPED])
def test_shipped_scenario_loads_without_warnings(path):
    described = aqmlab.validate(path)
    assert described["links"], path
    assert described["warnings"] == [], described["warnings"]


def compare_ns3():
    spec = importlib.util.spec_from_file_location("compare_ns3", ROOT / "validation" / "compare_ns3.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["compare_ns3"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_every_ns3_twin_configuration_is_a_valid_aqmlab_scenario():
    cmp = compare_ns3()
    for name, c in cmp.CONFIGS.items():
        model = aqmlab.validate(cmp.SCENARIO, set=cmp.aqmlab_overrides(c))
        assert model["flows"] == c.flows, name


def test_a_short_aqmlab_run_gives_every_compared_metric():
    cmp = compare_ns3()
    row = cmp.aqmlab_run("cubic-codel", 1, duration=4.0, warmup=2.0)
    assert set(cmp.METRICS) <= set(row)
    # Two CUBIC flows on a 50 Mb/s link after 2 s: the link is busy and CoDel holds a short queue.
    assert 30 < row["goodput"] <= 50
    assert 0 < row["q_mean"] < 50
    assert len(row["cwnd_samples"]) == 21
