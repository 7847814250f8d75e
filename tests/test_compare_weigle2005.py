"""Study W's twin comparison (validation/compare_weigle2005.py): which cached ns-2 runs a reading reuses."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))

import compare_weigle2005 as cmp  # noqa: E402

STUDY = {"cross": "both", "http_ack_every": 1, "e2e_rate": 51.91, "cross_rate": 45.63}


def test_a_drop_tail_run_is_shared_by_every_aqm_reading():
    # mean_pktsize, ared_gentle and aqm_buffer_bytes shape only the AQM queues: a drop-tail cell runs the
    # same under any of them, so its cached twin run serves them all ...
    plain = cmp.key("ns-2", ("DT", "DT"), "DT", 1, 50_000, STUDY)
    for change in ({"mean_pktsize": 615}, {"ared_gentle": False}, {"aqm_buffer_bytes": 300_000}):
        assert cmp.key("ns-2", ("DT", "DT"), "DT", 1, 50_000, {**STUDY, **change}) == plain
    # ... but not an AQM cell, nor a drop-tail cell under a change that reaches every queue or TCP
    aqm = cmp.key("ns-2", ("AQM",), "PI", 1, 50_000, STUDY)
    assert cmp.key("ns-2", ("AQM",), "PI", 1, 50_000, {**STUDY, "mean_pktsize": 615}) != aqm
    assert cmp.key("ns-2", ("DT", "DT"), "DT", 1, 50_000, {**STUDY, "min_rto": 1}) != plain
    # a key names the simulator, cell, seed and run length
    sim, combo, queue, seed, pairs, settings = json.loads(plain)
    assert (sim, combo, queue, seed, pairs) == ("ns-2", "DT-DT", "DT", 1, 50_000)
    assert dict(settings) == STUDY


def test_the_calibration_ignores_aqm_settings():
    assert cmp.without_aqm_settings({**STUDY, "mean_pktsize": 615, "ared_gentle": False}) == STUDY


def test_command_line_numbers_keep_their_type():
    assert cmp.number("1") == 1 and isinstance(cmp.number("1"), int)
    assert cmp.number("-2") == -2
    assert cmp.number("0.5") == 0.5


def test_cells_are_a_named_set_or_a_list_of_table_i_cells():
    assert cmp.parse_cells("1cl") == cmp.CELLS["1cl"]
    assert cmp.parse_cells("AQM-AQM-AQM:PI,DT:DT") == [(("AQM", "AQM", "AQM"), "PI"), (("DT",), "DT")]
    for bad in ("AQM:DT", "DT-AQM:RED", "everything", ":PI"):
        with pytest.raises(ValueError, match="neither a set"):
            cmp.parse_cells(bad)
