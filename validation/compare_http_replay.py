"""Replay the same HTTP connections in aqmlab and ns-2.35 and compare them pair by pair.

A connection trace (``[[http]] trace = FILE`` in aqmlab, ``validation/ns2/http_replay.tcl`` in ns-2: FullTcp
agents driven as PackMime-HTTP drives them) removes every random draw from the comparison: both simulators
open the same connections at the same instants with the same requests, responses, server delays and think
gaps over one drop-tail bottleneck, so every request/response pair must complete at the same microsecond
until the first event the two models treat differently. The first pairs that differ point at that event.

    .venv/bin/python validation/compare_http_replay.py        # writes validation/results/http_replay.md

The trace: connections arriving as a Poisson process (``RATE`` per second over ``SPAN`` seconds), 70 % with
one pair, the others persistent with 1 + Exp(mean 3) pairs, think gaps Exp(mean 0.5 s), server delays
U(0, 50 ms), requests 200 B + Exp(mean 400 B), responses 100 B x Pareto(1.2) capped at 2 MB
(``random.Random(1)``). Cases: the bottleneck at 5 and at 1 Mb/s (neither loses a packet: the responses
are small; a lossy case is to come).
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

ROOT = Path(__file__).resolve().parent.parent
TCL = ROOT / "validation" / "ns2" / "http_replay.tcl"
RESULTS = ROOT / "validation" / "results"
RATE, SPAN, DURATION = 20.0, 50.0, 60
CASES = {"5 Mb/s": 5, "1 Mb/s": 1}
SAME = 2e-6  # ns-2 prints microseconds


def make_trace(path: Path) -> int:
    """Writes the trace; returns its number of connections."""
    r = random.Random(1)
    t, lines = 0.0, []
    while (t := t + r.expovariate(RATE)) < SPAN:
        pairs = 1 if r.random() < 0.7 else 1 + int(r.expovariate(1 / 3))
        cells = [f"{t:.6f}"]
        for k in range(pairs):
            req, rsp = int(200 + r.expovariate(1 / 400)), int(min(2e6, 100 * r.paretovariate(1.2)))
            if k:
                cells.append(f"{r.expovariate(2.0):.6f}")
            cells += [str(req), str(rsp), f"{r.uniform(0, 0.05):.6f}"]
        lines.append(" ".join(cells))
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def scenario(trace: Path, mbps: int) -> dict:
    """aqmlab's twin of http_replay.tcl: FullTcp's options as PackMime's agents have them."""
    link = {"rate": "100Mbps", "delay": "1ms", "queue": {"kind": "droptail", "limit": 1000}}
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
        },
        "links": [
            {"a": "client", "b": "R0", **link},
            {
                "a": "R0",
                "b": "R1",
                "rate": f"{mbps}Mbps",
                "delay": "1ms",
                "queue": {"kind": "droptail", "limit": 100},
            },
            {"a": "R1", "b": "server", **link},
        ],
        "http": [{"name": "web", "clients": "client", "servers": "server", "trace": str(trace)}],
    }


def run_both(trace: Path, mbps: int, tmp: Path) -> dict:
    from aqmlab import api

    log = tmp / f"ns2-{mbps}.pairs"
    args = [f"trace={trace}", f"pairs={log}", f"bneck={mbps}", f"duration={DURATION}"]
    out = subprocess.run(["ns", str(TCL), *args], capture_output=True, text=True, check=True).stdout
    ns_counts = last_json(out)
    ns2 = {}
    for line in log.read_text().splitlines():
        c, i, s, e = line.split()
        ns2[(int(c), int(i))] = (float(s), float(e))
    r = api.run(scenario(trace, mbps), seed=1)
    p = r.pairs
    aq = {
        (int(c), int(i)): (s, e)
        for c, i, s, e in zip(p.connection, p["index"], p.start_s, p.end_s, strict=True)
    }
    links = r.links.set_index("link")
    keys = sorted(set(ns2) | set(aq), key=lambda k: min(x[k][0] for x in (ns2, aq) if k in x))
    same = [k for k in keys if k in ns2 and k in aq and abs(ns2[k][1] - aq[k][1]) < SAME]
    first = next((k for k in keys if k not in same), None)
    rt = {n: [e - s for s, e in d.values()] for n, d in (("ns-2", ns2), ("aqmlab", aq))}
    return {
        "pairs": (len(ns2), len(aq)),
        "same": len(same),
        "first": first,
        "first_at": min(x[first][0] for x in (ns2, aq) if first in x) if first else None,
        "drops": (ns_counts["drops_rev"], int(links.loc["R1->R0", "drops"])),
        "mean_rt": (statistics.fmean(rt["ns-2"]), statistics.fmean(rt["aqmlab"])),
    }


def last_json(out: str) -> dict:
    return json.loads([ln for ln in out.splitlines() if ln.startswith("{")][-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS / "http_replay.md")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "conns.txt"
        n = make_trace(trace)
        for label, mbps in CASES.items():
            res = run_both(trace, mbps, Path(tmp))
            rows.append((label, res))
            print(label, res)
    lines = [
        "# HTTP connections replayed in aqmlab and ns-2.35",
        "",
        "<!-- generated by validation/compare_http_replay.py -->",
        f"{n} connections from one trace (see the script), {DURATION} s, FullTcp NewReno at both ends; "
        f"{time.perf_counter() - t0:.0f} s wall. A pair is the same when its response completes at the same "
        "microsecond in both simulators.",
        "",
        "| bottleneck | pairs ns-2 / aqmlab | the same | first different pair (connection, index) at | "
        "drops R1->R0 ns-2 / aqmlab | mean response ms ns-2 / aqmlab |",
        "|---|---|---|---|---|---|",
    ]
    for label, r in rows:
        first = f"{r['first']} at {r['first_at']:.3f} s" if r["first"] else "none"
        lines.append(
            f"| {label} | {r['pairs'][0]} / {r['pairs'][1]} | {r['same']} | {first} | "
            f"{r['drops'][0]} / {r['drops'][1]} | "
            f"{1000 * r['mean_rt'][0]:.1f} / {1000 * r['mean_rt'][1]:.1f} |"
        )
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
