"""aqmlab's one-way NewReno against ns-2.35's recorded run of the same lossy flow
(validation/compare_newreno_trace.py, which `make validate` reruns with ns-2 beside aqmlab)."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validation"))

import compare_newreno_trace as trace  # noqa: E402

NS2 = json.loads((ROOT / "validation" / "results" / "newreno_trace.json").read_text())


@pytest.mark.parametrize("sink", trace.SINKS)
def test_newreno_follows_ns2_through_every_loss(sink):
    counters, changes = trace.run_aqmlab(sink)
    ns2 = NS2[sink]
    assert {k: counters[k] for k in ("timeouts", "retransmits", "sent")} == {
        k: ns2["counters"][k] for k in ("timeouts", "retransmits", "sent")
    }
    assert counters["cwnd"] == pytest.approx(ns2["counters"]["cwnd"], abs=trace.CWND_TOLERANCE)
    checkpoints = changes[:: trace.CHECKPOINT_EVERY]
    assert len(checkpoints) == len(ns2["checkpoints"])
    for (t, cwnd), (t2, cwnd2) in zip(checkpoints, ns2["checkpoints"], strict=True):
        assert t == pytest.approx(t2, abs=trace.TIME_TOLERANCE)
        assert cwnd == pytest.approx(cwnd2, abs=trace.CWND_TOLERANCE)
