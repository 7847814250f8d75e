"""Replay the same HTTP connections in aqmlab and ns-2.35 and compare them pair by pair.

A connection trace (``[[http]] trace = FILE`` in aqmlab, ``validation/ns2/http_replay.tcl`` in ns-2: FullTcp
agents driven as PackMime-HTTP drives them) removes every random draw from the comparison: both simulators
open the same connections at the same instants with the same requests, responses, server delays and think
gaps over one drop-tail bottleneck (100 Mb/s access links, 1 ms each link).

    .venv/bin/python validation/compare_http_replay.py        # writes validation/results/http_replay.md

1. **Exact**: with small responses nothing is lost and every request/response pair must complete at the same
   microsecond in both simulators; the first pairs that differ point at the event the models treat
   differently. A third case marks with ECN deterministically ("step": PI with probability 0 or 1, which
   also drops the non-ECT handshake packets it selects), so FullTcp's ECN and handshake recovery can be
   matched packet for packet up to the first tie the two schedulers break differently.
2. **Paired, with loss**: ten times larger responses through a 20-packet buffer. Here the two runs part at
   the first instant where several connections act at once (ns-2 orders such ties by its timers' floating
   point times and its heap), so each trace is compared as a whole: drops, packets, retransmission
   timeouts (ns-2: the agents' ``nrexmit_``), pairs completed and response times, over ``--traces`` traces
   with the paired difference and its 95 % interval.
3. **Paired, with ECN marking**: the same traces through PI as study W configures it (ECN, byte mode, queue
   in bytes, 615-byte mean packet, target 20 packets, 200 x 615 bytes of buffer): how FullTcp answers CE
   marks, compared as in 2 with the marks beside the drops.

A trace: connections arriving as a Poisson process (``RATE`` per second over ``SPAN`` seconds), 70 % with
one pair, the others persistent with 1 + Exp(mean 3) pairs, think gaps Exp(mean 0.5 s), server delays
U(0, 50 ms), requests 200 B + Exp(mean 400 B), responses ``scale`` bytes x Pareto(1.2) capped at 2 MB
(``random.Random(seed)``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aqmlab.studies.base import paired_effect

ROOT = Path(__file__).resolve().parent.parent
TCL = ROOT / "validation" / "ns2" / "http_replay.tcl"
RESULTS = ROOT / "validation" / "results"
RATE, SPAN, DURATION = 20.0, 50.0, 60
# Exact cases, label: (bottleneck Mb/s, buffer packets, response scale bytes, PI mode); trace seed 1.
EXACT = {
    "5 Mb/s": (5, 100, 100, "0"),
    "1 Mb/s": (1, 100, 100, "0"),
    "2 Mb/s, ECN step marking": (2, 200, 1000, "step"),
}
LOSSY = (2, 20, 1000)
MARKING = (2, 200, 1500)  # heavier traces (responses x15) through study W's PI with ECN
# The twin's pi= modes: "1" study W's PI queue (python/aqmlab/studies/weigle2005_topology.py) at 615-byte
# packets; "step" PI whose probability is 0 or 1 (gain 1 per packet of error, none on the previous one),
# so that marks are deterministic and a replay can match packet for packet.
PI_QUEUES = {
    "1": {"kind": "pi", "qref": 20, "ecn": True, "bytes": True, "queue_in_bytes": True, "mean_pktsize": 615},
    "step": {
        "kind": "pi",
        "qref": 10,
        "ecn": True,
        "bytes": False,
        "queue_in_bytes": False,
        "a": 1.0,
        "b": 0.0,
    },
}
SAME = 2e-6  # ns-2 prints microseconds


def make_trace(path: Path, scale: int, seed: int) -> int:
    """Writes a trace; returns its number of connections."""
    r = random.Random(seed)
    t, lines = 0.0, []
    while (t := t + r.expovariate(RATE)) < SPAN:
        pairs = 1 if r.random() < 0.7 else 1 + int(r.expovariate(1 / 3))
        cells = [f"{t:.6f}"]
        for k in range(pairs):
            req, rsp = int(200 + r.expovariate(1 / 400)), int(min(2e6, scale * r.paretovariate(1.2)))
            if k:
                cells.append(f"{r.expovariate(2.0):.6f}")
            cells += [str(req), str(rsp), f"{r.uniform(0, 0.05):.6f}"]
        lines.append(" ".join(cells))
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def scenario(trace: Path, mbps: int, buffer: int, pi: str = "0") -> dict:
    """aqmlab's twin of http_replay.tcl: FullTcp's options as PackMime's agents have them."""
    link = {"rate": "100Mbps", "delay": "1ms", "queue": {"kind": "droptail", "limit": 1000}}
    queue = {**PI_QUEUES[pi], "limit": buffer} if pi != "0" else {"kind": "droptail", "limit": buffer}
    bottleneck = {"rate": f"{mbps}Mbps", "delay": "1ms", "queue": queue}
    return {
        "name": "http-replay",
        "duration": f"{DURATION}s",
        "measure": {"pair_records": True},
        "tcp": {
            "mss": 1460,
            "max_window": 64,
            "delayed_ack": True,
            "ack_every": 1,
            "nagle": True,
            "recovery": "full_tcp",
            "limited_transmit": False,
            "ecn": pi != "0",
        },
        "links": [
            {"a": "client", "b": "R0", **link},
            {"a": "R0", "b": "R1", **bottleneck},
            {"a": "R1", "b": "server", **link},
        ],
        "http": [{"name": "web", "clients": "client", "servers": "server", "trace": str(trace)}],
    }


def run_both(trace: Path, mbps: int, buffer: int, pi: str = "0") -> dict:
    """Both simulators on one trace: each one's pairs {(connection, index): (start, end)} and link counts."""
    from aqmlab import api

    log = trace.with_suffix(".ns2-pairs")
    args = [f"trace={trace}", f"pairs={log}", f"bneck={mbps}", f"bqueue={buffer}", f"duration={DURATION}"]
    args.append(f"pi={pi}")
    out = subprocess.run(["ns", str(TCL), *args], capture_output=True, text=True, check=True).stdout
    counts = json.loads([ln for ln in out.splitlines() if ln.startswith("{")][-1])
    ns2 = {}
    for line in log.read_text().splitlines():
        c, i, s, e = line.split()
        ns2[(int(c), int(i))] = (float(s), float(e))
    r = api.run(scenario(trace, mbps, buffer, pi), seed=1)
    p = r.pairs
    aq = {
        (int(c), int(i)): (s, e)
        for c, i, s, e in zip(p.connection, p["index"], p.start_s, p.end_s, strict=True)
    }
    rev = r.links.set_index("link").loc["R1->R0"]
    gen = r.generators.iloc[0]
    return {
        "ns-2": {
            "pairs": ns2,
            "drops": counts["drops_rev"],
            "marks": counts["marks_rev"],
            "packets": counts["arrivals_rev"],
            "timeouts": counts["timeouts"],
        },
        "aqmlab": {
            "pairs": aq,
            "drops": int(rev["drops"]),
            "marks": int(rev["marks"]),
            "packets": int(rev["arrivals"]),
            # FullTcp's nrexmit_ counts every timeout, those after an ECN reduction too (FullTcpAgent::
            # timeout; only the one-way agent leaves them out)
            "timeouts": int(gen["timeouts"]),
        },
    }


def exact(res: dict) -> dict:
    """Pairs completing at the same microsecond, and the earliest-starting one that does not."""
    ns2, aq = res["ns-2"]["pairs"], res["aqmlab"]["pairs"]
    keys = sorted(set(ns2) | set(aq), key=lambda k: min(x[k][0] for x in (ns2, aq) if k in x))
    same = {k for k in keys if k in ns2 and k in aq and abs(ns2[k][1] - aq[k][1]) < SAME}
    first = next((k for k in keys if k not in same), None)
    return {"pairs": (len(ns2), len(aq)), "same": len(same), "first": first}


def summary(side: dict) -> dict[str, float]:
    rts = sorted(e - s for s, e in side["pairs"].values())
    return {
        "drops R1->R0": side["drops"],
        "CE marks R1->R0": side["marks"],
        "packets R1->R0": side["packets"],
        "retransmission timeouts": side["timeouts"],
        "pairs completed": len(rts),
        "mean response ms": 1000 * statistics.fmean(rts),
        "p90 response ms": 1000 * rts[int(0.9 * (len(rts) - 1))],
    }


def paired(title: str, case: tuple[int, int, int], pi: str, traces: int, tmp: str) -> list[str]:
    """A paired section: the traces seeded 1..`traces` through the case's bottleneck in both simulators."""
    mbps, buffer, scale = case
    rows = []
    for seed in range(1, traces + 1):
        trace = Path(tmp) / f"trace-{seed}.txt"
        make_trace(trace, scale, seed)
        res = run_both(trace, mbps, buffer, pi)
        rows.append({sim: summary(res[sim]) for sim in ("ns-2", "aqmlab")})
        print(title.split(":")[0], "trace", seed, rows[-1])
    lines = [
        "",
        f"### Paired, {title.format(mbps=mbps, buffer=buffer)}, {len(rows)} traces",
        "",
        "Per metric: the mean over traces in each simulator, and aqmlab − ns-2 paired by trace with its 95 % "
        "interval (Student t).",
        "",
        "| metric | ns-2 | aqmlab | aqmlab − ns-2 |",
        "|---|---|---|---|",
    ]
    for metric in rows[0]["ns-2"]:
        by_trace = {sim: {t: r[sim][metric] for t, r in enumerate(rows)} for sim in ("ns-2", "aqmlab")}
        diff, half, _ = paired_effect(by_trace["ns-2"], by_trace["aqmlab"])
        lines.append(
            f"| {metric} | {statistics.fmean(by_trace['ns-2'].values()):.1f} | "
            f"{statistics.fmean(by_trace['aqmlab'].values()):.1f} | {diff:+.1f} ± {half:.1f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=8, help="traces of the lossy comparison (2 or more)")
    ap.add_argument("--out", type=Path, default=RESULTS / "http_replay.md")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    lines = [
        "# HTTP connections replayed in aqmlab and ns-2.35",
        "",
        "<!-- generated by validation/compare_http_replay.py -->",
        f"{DURATION} s per run, FullTcp NewReno at both ends, drop-tail bottleneck unless a case names PI "
        "with ECN; the script's docstring describes the traces.",
        "",
        "### Exact: every pair at the same microsecond",
        "",
        "| bottleneck | connections | pairs ns-2 / aqmlab | the same | first different (connection, pair) |",
        "|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for label, (mbps, buffer, scale, pi) in EXACT.items():
            trace = Path(tmp) / f"exact-{mbps}.txt"
            n = make_trace(trace, scale, seed=1)
            e = exact(run_both(trace, mbps, buffer, pi))
            print(label, e)
            first = e["first"] or "none"
            lines.append(f"| {label} | {n} | {e['pairs'][0]} / {e['pairs'][1]} | {e['same']} | {first} |")
        lines += paired(
            "with loss: {mbps} Mb/s, {buffer}-packet buffer, responses x10", LOSSY, "0", args.traces, tmp
        )
        lines += paired(
            "with ECN marking: {mbps} Mb/s, study W's PI ({buffer} x 615 bytes), responses x15",
            MARKING,
            "1",
            args.traces,
            tmp,
        )
    lines += ["", f"{time.perf_counter() - t0:.0f} s wall."]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
