"""aqmlab's NewReno senders against ns-2.35's recorded runs of the same lossy connection
(validation/compare_newreno_trace.py, which `make validate` reruns with ns-2 beside aqmlab)."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validation"))

import compare_newreno_trace as trace  # noqa: E402

NS2 = json.loads((ROOT / "validation" / "results" / "newreno_trace.json").read_text())


@pytest.mark.parametrize("sender", list(trace.SENDERS))
def test_every_packet_leaves_when_ns2s_does(sender):
    counters, departures = trace.run_aqmlab(sender)
    ns2 = NS2[sender]
    assert counters["timeouts"] == ns2["counters"]["timeouts"]
    assert counters["cwnd"] == pytest.approx(ns2["counters"]["cwnd"], abs=trace.CWND_TOLERANCE)
    assert len(departures) == ns2["departures"]
    for (t, seq), (t2, seq2) in zip(departures[:: trace.CHECKPOINT_EVERY], ns2["checkpoints"], strict=True):
        assert (seq, t) == (seq2, pytest.approx(t2, abs=trace.TIME_TOLERANCE))
