"""Study W's scenario builder: the readings it offers are built as documented and accepted by the engine."""

from __future__ import annotations

import math

import pytest

from aqmlab import api
from aqmlab.studies.weigle2005_topology import AQM_QUEUES, DROPTAIL, ROUTERS, scenario


def _attached(sc: dict, host: str) -> str:
    """The router a host hangs off."""
    (group,) = [g for g in sc["parking_lot"]["hosts"] if host in g["names"]]
    return group["router"]


def _hop_queue(sc: dict, a: str, b: str) -> dict:
    """The queue of the hop direction a->b."""
    lot = sc["parking_lot"]
    return lot.get("queues", {}).get(f"{a}->{b}", lot["queue"])


def test_cross_both_puts_a_second_cloud_the_other_way_on_each_congested_link():
    sc = scenario(("DT", "DT"), None, cross="both")
    names = [h["name"] for h in sc["http"]]
    assert names == ["http_fwd", "http_rev", "cross1", "cross1r", "cross2", "cross2r"]
    clouds = {h["name"]: h for h in sc["http"]}
    for k, (up, down) in ((1, ("R1", "R2")), (2, ("R3", "R4"))):
        forward, reverse = clouds[f"cross{k}"], clouds[f"cross{k}r"]
        assert {_attached(sc, s) for s in forward["servers"]} == {up}
        assert {_attached(sc, c) for c in forward["clients"]} == {down}
        assert {_attached(sc, s) for s in reverse["servers"]} == {down}
        assert {_attached(sc, c) for c in reverse["clients"]} == {up}
        assert forward["class"] == reverse["class"] == "cross"
    # one cloud per link with the forward reading
    assert [h["name"] for h in scenario(("DT", "DT"), None, cross="fwd")["http"]][2:] == ["cross1", "cross2"]


def test_every_router_with_hosts_of_both_sides_has_two_delayboxes():
    sc = scenario(("DT",), None, cross="both")
    boxes = {}
    for d in sc["delaybox"]:
        boxes.setdefault(d["node"], []).append(d["delay"]["side"])
    # R0 and R7 serve long-lived and HTTP hosts of both sides; R1 and R2 a server and a client cloud each
    assert {r: sorted(s) for r, s in boxes.items()} == {
        r: ["client", "server"] for r in ("R0", "R1", "R2", "R7")
    }


def test_http_connections_behave_as_ns2_fulltcp_and_long_lived_ones_as_one_way_agents():
    sc = scenario(("AQM",), "PI")
    for h in sc["http"]:
        assert h["tcp"] == {"ack_every": 1, "recovery": "full_tcp", "limited_transmit": False}
    assert all("tcp" not in f for f in sc["flows"])  # the shared [tcp]: aqmlab's one-way defaults
    one_way = scenario(("AQM",), "PI", http_recovery="one_way", http_ack_every=2)
    assert one_way["http"][0]["tcp"] == {"ack_every": 2, "recovery": "one_way"}


def test_aqm_on_all_routers_only_in_rows_without_drop_tail():
    def queues(sc):
        """The queue kind of each hop direction, as the engine builds them."""
        links = api.validate(sc)["links"]
        return {x["link"]: x["queue"] for x in links if set(x["link"].split("->")) <= set(ROUTERS)}

    everywhere = queues(scenario(("AQM", "AQM"), "REM", aqm_routers="all"))
    assert len(everywhere) == 14 and set(everywhere.values()) == {"rem"}
    mixed = queues(scenario(("AQM", "DT"), "REM", aqm_routers="all"))
    assert {k for k, q in mixed.items() if q == "rem"} == {"R1->R2", "R2->R1"}
    assert all(q == "droptail" for k, q in mixed.items() if k not in ("R1->R2", "R2->R1"))
    sc = scenario(("AQM", "DT"), "REM")
    assert _hop_queue(sc, "R2", "R1") == AQM_QUEUES["REM"] and _hop_queue(sc, "R3", "R4") == DROPTAIL


def test_sensitivity_knobs_reach_the_aqm():
    sc = scenario(("AQM",), "ARED", mean_pktsize=615, ared_gentle=False)
    q = _hop_queue(sc, "R1", "R2")
    assert q["mean_pktsize"] == 615 and q["gentle"] is False and q["adaptive"] is True
    assert "mean_pktsize" not in AQM_QUEUES["ARED"]  # the shared table is not modified
    # A byte buffer of 200 full-size packets: limit_ counts mean_pktsize units (ns-2's 500 B for PI,
    # 1000 B for REM, or the size given); drop-tail keeps its 200 packets.
    for aqm, size, limit in (("PI", None, 600), ("REM", None, 300), ("PI", 615, 487)):
        sc = scenario(("AQM", "DT"), aqm, mean_pktsize=size, aqm_buffer_bytes=300_000)
        assert _hop_queue(sc, "R1", "R2")["limit"] == limit
        assert _hop_queue(sc, "R3", "R4")["limit"] == 200


def test_min_rto_reaches_every_tcp_and_is_left_out_at_the_default():
    assert "min_rto" not in scenario(("DT",), None)["tcp"]  # the engine's default is ns-2.35's 200 ms
    sc = scenario(("DT",), None, min_rto=1)
    assert sc["tcp"]["min_rto"] == "1s"  # the scenario-wide [tcp] table: long-lived and HTTP alike
    assert all("min_rto" not in h["tcp"] for h in sc["http"])


@pytest.mark.parametrize("combo,aqm", [(("AQM", "DT", "AQM"), "ARED"), (("DT",), None), ((), None)])
def test_the_engine_accepts_every_reading(combo, aqm):
    model = api.validate(scenario(combo, aqm, cross="both", aqm_routers="all", mean_pktsize=615, min_rto=1))
    assert {"http_fwd", "http_rev", "ll_fwd", "ll_rev"} <= set(model["classes"])
    assert ("cross" in model["classes"]) == bool(combo)


def test_bad_readings_are_refused():
    with pytest.raises(ValueError, match="cross must be"):
        scenario(("DT",), None, cross="sideways")
    with pytest.raises(ValueError, match="aqm_routers must be"):
        scenario(("DT",), None, aqm_routers="some")


def test_forward_path_share_counts_the_packets_a_class_sends_towards_its_receivers():
    import pandas as pd

    from aqmlab.studies.weigle2005 import forward_path_share

    rows = [  # (link, class, arrivals, drops, marks)
        ("ll0srca->R0", "ll_fwd", 60, 1, 0),  # sent by the sources: the denominator, and its drops count
        ("ll0srcb->R0", "ll_fwd", 40, 0, 0),
        ("R0->R1", "ll_fwd", 99, 0, 0),
        ("R1->R2", "ll_fwd", 99, 3, 7),  # forward data dropped and marked at the congested hop
        ("R2->R1", "ll_fwd", 50, 5, 2),  # the class's packets on the way back: not the forward path
        ("R0->ll0srca", "ll_fwd", 30, 2, 0),  # ACKs delivered to a source: not the forward path
        ("R7->ll0sinka", "ll_fwd", 96, 1, 0),  # forward data on the receiver's downlink
        ("ll0sinka->R7", "ll_fwd", 48, 4, 0),  # the receiver's ACKs
        ("R1->R2", "cross", 500, 9, 11),  # another class on the same hop
    ]
    lc = pd.DataFrame(rows, columns=["link", "class", "arrivals", "drops", "marks"])
    assert forward_path_share(lc, "ll_fwd") == pytest.approx(100 * (1 + 3 + 1) / 100)
    assert forward_path_share(lc, "ll_fwd", "marks") == pytest.approx(100 * 7 / 100)
    assert math.isnan(forward_path_share(lc, "http_fwd"))  # the class sent nothing
