"""Packet captures (`measure.pcap`): the pcap file of a link direction, read back with dpkt, agrees with
the run's own counters (departures, bytes, ECN marks) and holds valid IPv4 headers."""

from __future__ import annotations

import struct
from pathlib import Path

import dpkt
import pytest

import aqmlab
from aqmlab.api import pcap_file_name
from aqmlab.scenario import ScenarioError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "scenarios" / "example.toml"
# The example, shorter, with ECN negotiated and RED marking on the bottleneck r1 -> r2.
SETTINGS = [
    'duration="8s"',
    'measure.warmup="2s"',
    "tcp.ecn=true",
    "links.3.queue_ab.ecn=true",
    'measure.pcap=["r1->r2", "r2->r1"]',
]
NOT_ECT, ECT0, CE = 0, 2, 3


def checksum_ok(header: bytes) -> bool:
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return total == 0xFFFF


def original_lengths(path: Path) -> list[int]:
    """The original length of every record, from the record headers (dpkt's reader does not give it)."""
    data = path.read_bytes()
    lengths, at = [], 24
    while at < len(data):
        caplen, orig = struct.unpack_from("<II", data, at + 8)
        lengths.append(orig)
        at += 16 + caplen
    return lengths


def read(path: Path) -> list[tuple[float, int, dpkt.ip.IP, bytes]]:
    """(time, original length, IPv4 packet, raw headers) of every record, read with dpkt."""
    with open(path, "rb") as f:
        reader = dpkt.pcap.Reader(f)
        assert reader.datalink() == 101, "LINKTYPE_RAW"
        packets = [(ts, buf) for ts, buf in reader]
    lengths = original_lengths(path)
    assert len(lengths) == len(packets)
    return [(ts, n, dpkt.ip.IP(buf), buf) for (ts, buf), n in zip(packets, lengths, strict=True)]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> aqmlab.RunResult:
    out = tmp_path_factory.mktemp("pcap") / "run"
    return aqmlab.run(EXAMPLE, set=SETTINGS, out=out)


def link_row(run: aqmlab.RunResult, link: str) -> dict:
    return run.links.set_index("link").loc[link].to_dict()


def test_a_capture_per_listed_direction_in_the_run_folder(run: aqmlab.RunResult) -> None:
    assert run.folder is not None
    assert pcap_file_name("r1->r2") == "r1_to_r2.pcap"
    assert sorted(p.name for p in (run.folder / "pcap").iterdir()) == ["r1_to_r2.pcap", "r2_to_r1.pcap"]
    assert run.pcap_paths["r1->r2"] == run.folder / "pcap" / "r1_to_r2.pcap"
    loaded = aqmlab.load_run(run.folder)
    assert loaded.pcap_paths == run.pcap_paths


@pytest.mark.parametrize("link", ["r1->r2", "r2->r1"])
def test_records_are_the_departures_with_their_sizes(run: aqmlab.RunResult, link: str) -> None:
    records = read(run.pcap_paths[link])
    row = link_row(run, link)
    assert len(records) == row["departures"] > 1000
    assert sum(n for _, n, _, _ in records) == row["departure_bytes"]
    times = [ts for ts, _, _, _ in records]
    assert times == sorted(times) and 2.0 <= times[0] and times[-1] <= 8.0, "in the window, in order"
    for _, n, ip, raw in records:
        assert checksum_ok(raw[:20]), "IPv4 header checksum"
        assert (ip.v, ip.hl, ip.len) == (4, 5, n), "the simulated size is the total length"
        assert ip.p in (dpkt.ip.IP_PROTO_TCP, dpkt.ip.IP_PROTO_UDP)
        assert len(raw) == 20 + (20 if ip.p == dpkt.ip.IP_PROTO_TCP else 8), "headers only"


def test_tcp_sequence_numbers_rise_except_retransmissions(run: aqmlab.RunResult) -> None:
    records = read(run.pcap_paths["r1->r2"])
    highest: dict[tuple, int] = {}
    seen: dict[tuple, set[int]] = {}
    back = 0
    for _, n, ip, _ in records:
        if ip.p != dpkt.ip.IP_PROTO_TCP or n <= 40:
            continue
        tcp = ip.data
        key = (ip.src, ip.dst, tcp.sport, tcp.dport)
        assert tcp.off == 5 and tcp.flags & dpkt.tcp.TH_ACK
        if tcp.seq < highest.get(key, 0):
            assert tcp.seq in seen[key], "only a segment sent before goes back"
            back += 1
        highest[key] = max(highest.get(key, 0), tcp.seq)
        seen.setdefault(key, set()).add(tcp.seq)
    # Four bulk flows and the transfer cross the bottleneck: one 4-tuple each.
    assert len(highest) == 5
    assert back <= run.flows["retransmits"].sum()


def test_ecn_codepoints_follow_the_scenario(run: aqmlab.RunResult) -> None:
    records = read(run.pcap_paths["r1->r2"])
    counts = {NOT_ECT: 0, ECT0: 0, CE: 0}
    for _, n, ip, _ in records:
        ecn = ip.tos & 3
        counts[ecn] += 1
        if ip.p == dpkt.ip.IP_PROTO_UDP:
            assert ecn == NOT_ECT, "UDP is not ECN-capable"
        elif n > 40:
            assert ecn in (ECT0, CE), "ECN-capable TCP data"
    marks = link_row(run, "r1->r2")["marks"]
    assert marks > 0
    # RED marks at r1 -> r2 on arrival: a marked packet departs CE, except those still queued at the
    # ends of the window (at most the buffer, 100 packets).
    assert abs(counts[CE] - marks) <= 100, (counts, marks)
    acks = read(run.pcap_paths["r2->r1"])
    assert {ip.tos & 3 for _, _, ip, _ in acks} == {NOT_ECT}, "pure ACKs are not ECN-capable"
    assert any(ip.data.flags & dpkt.tcp.TH_ECE for _, _, ip, _ in acks), "receivers echo the marks"


def test_an_unknown_link_is_a_located_error() -> None:
    with pytest.raises(ScenarioError, match=r"measure\.pcap\[1\]"):
        aqmlab.validate(EXAMPLE, set=['measure.pcap=["r1->r2", "r1->d1"]'])
