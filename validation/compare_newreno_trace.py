"""aqmlab's NewReno senders beside ns-2.35's, packet for packet.

One connection (window 30, ECN negotiated, no marks) over a 10 Mb/s, 10 ms link that loses a fixed list
of packets (2 % of the positions, drawn once with a seeded generator), so that both simulators see the
same losses: `validation/ns2/newreno_trace.tcl` (ErrorModel/List) and this file's `scenario`
(`loss_ab.list`). With no randomness left, every data packet must leave the sender at the same instant
in both, over 60 s of fast retransmits, partial ACKs, timeouts and go-back-N, for three senders:
ns-2's one-way Agent/TCP/Newreno with a plain and with a delayed-ACK sink (`recovery = "one_way"`), and
FullTcp/Newreno at both ends (`recovery = "full_tcp"`, PackMime-HTTP's agent). What such traces found
is in docs/tcp.md#ns-2-newreno-trace.

Writes `validation/results/newreno_trace.md` and `newreno_trace.json` (ns-2's counters and every 100th
departure, which `tests/test_newreno_trace.py` checks aqmlab against without ns-2). Exits 1 on a
difference.

    python validation/compare_newreno_trace.py
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TCL = HERE / "ns2" / "newreno_trace.tcl"
RESULTS = HERE / "results"
# name -> (ns-2 agent, sink)
SENDERS = {
    "one-way, plain sink": ("oneway", "plain"),
    "one-way, DelAck sink": ("oneway", "delack"),
    "FullTcp": ("fulltcp", "plain"),
}
DURATION = 60
MSS = 1460
CHECKPOINT_EVERY = 100
# ns-2 prints microseconds; the final window to 6 significant digits.
TIME_TOLERANCE, CWND_TOLERANCE = 2e-6, 1e-3


def losses() -> list[int]:
    """Positions of the lost packets as ns-2's ErrorModel/List counts them: every packet on the link,
    from 0 (the SYN; FullTcp's handshake ACK is 1, then data)."""
    rng = random.Random(7)
    return [i for i in range(2, 40_000) if rng.random() < 0.02]


def scenario(sender: str) -> dict:
    """The aqmlab twin of newreno_trace.tcl for one of `SENDERS`. aqmlab's list counts data packets
    from 1, where ns-2's counts the SYN at 0 and FullTcp's handshake ACK: one position less for FullTcp."""
    agent, sink = SENDERS[sender]
    full = agent == "fulltcp"
    tcp = {"mss": MSS, "ecn": True, "max_window": 30, "delayed_ack": sink == "delack"}
    if full:
        tcp |= {"recovery": "full_tcp", "limited_transmit": False, "nagle": True}
    return {
        "name": "newreno-trace",
        "duration": f"{DURATION}s",
        "tcp": tcp,
        "measure": {"pcap": ["s->d"]},
        "links": [
            {
                "a": "s",
                "b": "d",
                "rate": "10Mbps",
                "delay": "10ms",
                "queue": {"kind": "droptail", "limit": 1000},
                "loss_ab": {"list": [p - full for p in losses()]},
            }
        ],
        "flows": [{"name": "f", "kind": "tcp_bulk", "src": "s", "dst": "d", "start": "0s"}],
    }


def from_first(departures: list[tuple[float, int]], unit: int) -> list[tuple[float, int]]:
    """Departures as (time after the first data packet's, segment number from 0)."""
    t0, s0 = departures[0]
    return [(t - t0, (s - s0) // unit) for t, s in departures]


def run_aqmlab(sender: str) -> tuple[dict, list[tuple[float, int]]]:
    from aqmlab import api
    from aqmlab.studies.l4s_coexistence import read_capture

    r = api.run(scenario(sender), seed=1)
    f = r.flows.iloc[0]
    counters = {"timeouts": int(f.timeouts - f.timeouts_after_ecn), "cwnd": float(f.cwnd)}
    sent = read_capture(Path(r.pcap_paths["s->d"]))
    data = sent[sent["size"] > 40]  # the key's low 32 bits are the TCP sequence number
    departures = list(zip(data["t"].tolist(), (data["key"] & 0xFFFFFFFF).tolist(), strict=True))
    return counters, from_first(departures, MSS)


def run_ns2(sender: str) -> tuple[dict, list[tuple[float, int]]]:
    agent, sink = SENDERS[sender]
    with tempfile.TemporaryDirectory() as tmp:
        lost, trace = Path(tmp) / "losses", Path(tmp) / "trace"
        lost.write_text("\n".join(map(str, losses())) + "\n")
        args = [f"agent={agent}", f"sink={sink}", f"losses={lost}", f"trace={trace}", f"duration={DURATION}"]
        out = subprocess.run(["ns", str(TCL), *args], capture_output=True, text=True, check=True).stdout
        # "-" (transmission starts) of data packets at the sender, node 0: time, sequence number.
        events = (line.split() for line in trace.read_text().splitlines())
        departures = [
            (float(e[1]), int(e[10])) for e in events if e[0] == "-" and e[2] == "0" and int(e[5]) > 40
        ]
    # The one-way agent numbers packets, FullTcp bytes.
    return json.loads(out.strip().splitlines()[-1]), from_first(departures, MSS if agent == "fulltcp" else 1)


def first_difference(a: list, b: list) -> int | None:
    for i, ((ta, sa), (tb, sb)) in enumerate(zip(a, b, strict=False)):
        if sa != sb or abs(ta - tb) > TIME_TOLERANCE:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def main() -> int:
    RESULTS.mkdir(exist_ok=True)
    lines = [
        "# aqmlab's NewReno senders beside ns-2.35, packet for packet",
        "",
        "<!-- generated by validation/compare_newreno_trace.py -->",
        f"One connection, window 30, 10 Mb/s and 10 ms, {len(losses())} listed packets lost, {DURATION} s. "
        "Identical = every data packet (new or retransmitted) leaves the sender at the same instant, to the "
        "microsecond, counted from the first data packet.",
        "",
        "| sender | simulator | data packets on the wire (the lost excluded) | timeouts | final cwnd "
        "| departures |",
        "|---|---|---|---|---|---|",
    ]
    record, failed = {}, False
    for sender in SENDERS:
        (ns_counters, ns_trace), (aq_counters, aq_trace) = run_ns2(sender), run_aqmlab(sender)
        diff = first_difference(ns_trace, aq_trace)
        verdict = (
            "identical" if diff is None else f"**differ from packet {diff} (t = {ns_trace[diff][0]:.6f} s)**"
        )
        failed |= (
            diff is not None
            or ns_counters["timeouts"] != aq_counters["timeouts"]
            or abs(ns_counters["cwnd"] - aq_counters["cwnd"]) > CWND_TOLERANCE
        )
        for name, c, tr in (("ns-2.35", ns_counters, ns_trace), ("aqmlab", aq_counters, aq_trace)):
            lines.append(
                f"| {sender} | {name} | {len(tr)} | {c['timeouts']} | {c['cwnd']:.6g} | "
                f"{verdict if name == 'aqmlab' else ''} |"
            )
        record[sender] = {
            "counters": ns_counters,
            "departures": len(ns_trace),
            "checkpoints": ns_trace[::CHECKPOINT_EVERY],
        }
    (RESULTS / "newreno_trace.md").write_text("\n".join(lines) + "\n")
    (RESULTS / "newreno_trace.json").write_text(json.dumps(record, indent=1) + "\n")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
