"""Cross-validate aqmlab's PackMime-HTTP + DelayBox against ns-2.35 (scenarios/packmime-delaybox.toml).

Runs the scenario for several seeds in each simulator (8 by default, one run at a time; about two
minutes in all with the diagnostics) and prints per metric the mean +- seed-to-seed standard deviation of
each simulator, both seed ranges, the relative difference and a verdict. Writes
``validation/results/compare_packmime.md`` (tables; hand-written analysis after the
``end of generated tables`` marker is kept) and the raw runs to ``validation/results/compare_packmime.jsonl``.

    python3 validation/compare_packmime.py                 # 8 seeds + the diagnostic variants
    python3 validation/compare_packmime.py --seeds 5 --no-diagnostics

Connection arrivals are long-range dependent in both simulators, so the number of connections (and with it
pairs and link utilization) in 200 s varies by +-20 % between seeds; compare those with many seeds.

Scenario: one PackMime-HTTP 1.1 cloud pair (rate 15 new connections/s, FullTcp/Newreno in ns-2), client
--100Mb/1ms-- R0 --10Mb/1ms-- R1 --100Mb/1ms-- server, drop-tail 1000 / 100 / 1000, DelayBoxes at R0
(PackMimeHTTPXmit client side) and R1 (server side), 200 s, warm-up 20 s. ns-2 side:
``validation/ns2/packmime.tcl`` (segsize_ 1460, window_ 64, segsperack_ 1 as the TOML's mss, max_window
and ack_every = 1).

Metrics (same definitions on both sides): ``pairs`` = request/response pairs whose request was sent at
or after the warm-up and whose response completed by the end (ns-2: lines of PackMime's
``set-outfile`` log with ``set-warmup 20``; aqmlab: ``responses[].pairs``); response-time p10/p50/p90/p99
and mean over those pairs (ns-2: exact order statistics of the log; aqmlab: its log-binned histogram,
bins 2.3 % wide); ``connections`` started in the whole run; ``pairs/conn`` = pairs / connections;
``util R1->R0`` (server->client, responses) and ``util R0->R1`` over [warm-up, end], headers included;
bottleneck drops (both directions).

Verdict: a metric passes when aqmlab's mean is within 10 % of ns-2's mean, or inside ns-2's seed range
[min, max] (its seed-to-seed spread).

Diagnostics (``--no-diagnostics`` skips them), each again over all seeds and both simulators where
applicable:
- ``no DelayBox``: both simulators without DelayBoxes (ns-2 ``delaybox=0``; aqmlab with the
  ``[[delaybox]]`` tables removed), isolating TCP, PackMime and link behaviour from the RTT model;
  then the same with ns-2's Nagle algorithm off (``nodelay=1``: FullTcp ``nodelay_ true``), because
  FullTcp holds a sub-MSS segment while data is unacknowledged and aqmlab's TCP does not.
- ``server box only`` (ns-2 Nagle off): only the server-side DelayBox (R1, PackMimeHTTPXmit type 1),
  ns-2 ``delaybox=server nodelay=1`` against aqmlab with only the R1 box (one draw ``d`` per flow, applied
  both ways, round trip ``2d``), as ns-2.35's DelayBox does (see the report); the variant ``independent
  draw per direction`` shows what a round trip ``a + b`` of two draws would give (what an earlier twin
  without the ``Flags`` packet header did), with two ``packmime_rtt`` server-side boxes, each applied to one
  direction only: at R0 serving the client (``direction = "from_served"``: requests and ACKs) and at R1
  serving the server (``from_served``: responses). (aqmlab lets each host be served by one box, hence
  R0; where a pure delay sits on the nearly idle path does not matter.)

Standard library only (Python 3.11); needs ``ns`` (``validation/ns2/install-ns2.sh``) and
``aqmlab-bench`` (``cargo build --release -p aqmlab-core``; found through ``--bench``, ``$AQMLAB_BENCH``,
``$CARGO_TARGET_DIR`` or ``target/``).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aqmlab_bench import find_bench

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validation" / "ns2"))
import run_ns2  # noqa: E402  (validation/ns2/run_ns2.py)

SCENARIO = ROOT / "scenarios" / "packmime-delaybox.toml"
RESULTS = ROOT / "validation" / "results"

# (key, label, format, scale for display)
METRICS = [
    ("pairs", "pairs completed", "{:.0f}", 1.0),
    ("connections", "connections", "{:.0f}", 1.0),
    ("pairs_per_conn", "pairs / connection", "{:.3f}", 1.0),
    ("p10_s", "p10 response ms", "{:.1f}", 1000.0),
    ("p50_s", "p50 response ms", "{:.1f}", 1000.0),
    ("p90_s", "p90 response ms", "{:.1f}", 1000.0),
    ("p99_s", "p99 response ms", "{:.0f}", 1000.0),
    ("mean_s", "mean response ms", "{:.1f}", 1000.0),
    ("util_rev", "util R1->R0 (responses)", "{:.4f}", 1.0),
    ("util_fwd", "util R0->R1 (requests)", "{:.4f}", 1.0),
    ("drops", "bottleneck drops", "{:.1f}", 1.0),
]
TOLERANCE = 0.10


def without_delayboxes(text: str) -> str:
    """The scenario text with every [[delaybox]] table removed."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines():
        if re.match(r"^\s*\[\[?[A-Za-z_.]+\]\]?", line):
            skipping = line.strip().startswith("[[delaybox]]")
        if not skipping:
            out.append(line)
    return "\n".join(out) + "\n"


def server_box_only(text: str, per_direction: bool) -> str:
    """The scenario with only the server-side delay; per_direction: one independent draw per direction."""
    out = without_delayboxes(text)
    box = '\n[[delaybox]]\nnode = "{node}"\nserves = "{host}"\ndirection = "{d}"\n'
    box += 'delay = {{ kind = "packmime_rtt", side = "server", rate = 15 }}\n'
    if not per_direction:
        return out + box.format(node="R1", host="server", d="both")
    # aqmlab lets a host be served by one box only: the client->server draw sits at R0 (serving the
    # client, its outbound packets), the server->client draw at R1 (serving the server, its outbound
    # packets); both from the server-side RTT model, each box with its own series.
    return (
        out
        + box.format(node="R0", host="client", d="from_served")
        + box.format(node="R1", host="server", d="from_served")
    )


def run_aqmlab(bench: Path, scenario: Path, seed: int, variant: str) -> dict:
    """One aqmlab run; returns the normalised metrics."""
    cmd = [str(bench), str(scenario), "--links", f"seed={seed}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"aqmlab-bench failed ({proc.returncode}): {proc.stderr.strip()}")
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    links = {row["link"]: row for row in raw["links"]}
    resp = raw["responses"][0]
    gen = raw["generators"][0]
    return {
        "simulator": "aqmlab",
        "variant": variant,
        "seed": seed,
        "pairs": resp["pairs"],
        "incomplete": resp["incomplete"],
        "connections": gen["connections_started"],
        "pairs_per_conn": gen["pairs_planned"] / max(gen["connections_started"], 1),
        "p10_s": resp["p10_s"],
        "p50_s": resp["p50_s"],
        "p90_s": resp["p90_s"],
        "p99_s": resp["p99_s"],
        "mean_s": resp["mean_s"],
        "util_rev": links["R1->R0"]["utilization"],
        "util_fwd": links["R0->R1"]["utilization"],
        "drops": links["R1->R0"]["drops"] + links["R0->R1"]["drops"],
        "tcp_timeouts": raw["tcp_timeouts"],
        "wall_s": raw["wall_s"],
    }


def run_ns2_once(seed: int, variant: str, ns_bin: str, options: list[str]) -> dict:
    """One ns-2 run; returns the normalised metrics."""
    raw = run_ns2.run(script="packmime", seed=seed, ns_bin=ns_bin, options=options)
    return {
        "simulator": "ns-2",
        "variant": variant,
        "seed": seed,
        "pairs": raw["pairs"],
        "connections": raw["connections"],
        # planned pairs are not visible in ns-2; pairs completed over the whole run / connections
        "pairs_per_conn": raw["pairs_total"] / max(raw["connections"], 1),
        "p10_s": raw["p10_s"],
        "p50_s": raw["p50_s"],
        "p90_s": raw["p90_s"],
        "p99_s": raw["p99_s"],
        "mean_s": raw["mean_s"],
        "util_rev": raw["util_rev"],
        "util_fwd": raw["util_fwd"],
        "drops": raw["drops_fwd"] + raw["drops_rev"],
        "wall_s": raw["wall_s"],
    }


def read_delay_dump(path: Path) -> dict[tuple[int, int, int], float]:
    """A DelayBox set-delay-file dump: (src, dst, fid) -> delay ms."""
    out: dict[tuple[int, int, int], float] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 4:
            out[(int(parts[0]), int(parts[1]), int(parts[2]))] = float(parts[3])
    return out


def round_trip_halves(dump: dict[tuple[int, int, int], float]) -> tuple[list[float], int, int]:
    """Per flow a + b (the box's share of the round trip, ms) and counts (flows, flows with a == b)."""
    vals: list[float] = []
    flows = equal = 0
    for (src, dst, fid), a in dump.items():
        b = dump.get((dst, src, fid))
        if src < dst and b is not None:
            flows += 1
            equal += a == b
            vals.append(a + b)
    return vals, flows, equal


def mean_sd(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def verdict(ns2: list[float], aqm: list[float]) -> tuple[bool, str]:
    m_ns, _ = mean_sd(ns2)
    m_aq, _ = mean_sd(aqm)
    if m_ns == 0:
        return m_aq == 0 or min(ns2) <= m_aq <= max(ns2), "n/a"
    rel = (m_aq - m_ns) / abs(m_ns)
    ok = abs(rel) <= TOLERANCE or min(ns2) <= m_aq <= max(ns2)
    return ok, f"{100 * rel:+.1f}%"


def table(rows: list[dict], ns_variant: str, aq_variant: str) -> tuple[list[list[str]], int]:
    cells = [["metric", "ns-2 mean ± sd", "ns-2 range", "aqmlab mean ± sd", "aqmlab range", "Δ", "verdict"]]
    fails = 0
    for key, label, fmt, scale in METRICS:
        ns2 = [r[key] * scale for r in rows if r["simulator"] == "ns-2" and r["variant"] == ns_variant]
        aqm = [r[key] * scale for r in rows if r["simulator"] == "aqmlab" and r["variant"] == aq_variant]
        if not ns2 or not aqm:
            continue
        ok, rel = verdict(ns2, aqm)
        fails += not ok
        mn, sn = mean_sd(ns2)
        ma, sa = mean_sd(aqm)
        cells.append(
            [
                label,
                f"{fmt.format(mn)} ± {fmt.format(sn)}",
                f"{fmt.format(min(ns2))}..{fmt.format(max(ns2))}",
                f"{fmt.format(ma)} ± {fmt.format(sa)}",
                f"{fmt.format(min(aqm))}..{fmt.format(max(aqm))}",
                rel,
                "ok" if ok else "DIFFERENT",
            ]
        )
    return cells, fails


def render_text(cells: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells)


def render_markdown(cells: list[list[str]]) -> str:
    head = "| " + " | ".join(cells[0]) + " |\n|" + "---|" * len(cells[0]) + "\n"
    return head + "".join("| " + " | ".join(r) + " |\n" for r in cells[1:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8, help="seeds 1..S in each simulator (default 8)")
    ap.add_argument("--no-diagnostics", action="store_true", help="only the main comparison")
    ap.add_argument("--bench", default=None, help="aqmlab-bench binary")
    ap.add_argument("--ns", default="ns", help="ns-2 binary")
    ap.add_argument("--out", type=Path, default=RESULTS / "compare_packmime.md", help="Markdown report")
    ap.add_argument("--jsonl", type=Path, default=RESULTS / "compare_packmime.jsonl", help="raw runs")
    ap.add_argument("--strict", action="store_true", help="exit 1 if a main-comparison check fails")
    args = ap.parse_args(argv)
    bench = find_bench(args.bench, "compare_packmime")
    seeds = list(range(1, args.seeds + 1))
    rows: list[dict] = []
    t0 = time.perf_counter()
    text = SCENARIO.read_text()
    delay_stats: dict[str, tuple[int, int]] = {}
    with tempfile.TemporaryDirectory(prefix="compare_packmime-") as tmp:
        tmpd = Path(tmp)
        shares: dict[str, list[float]] = {"R0": [], "R1": []}
        for seed in seeds:
            prefix = tmpd / f"delays-{seed}"
            rows.append(run_ns2_once(seed, "default", args.ns, [f"delayfile={prefix}"]))
            for node in ("R0", "R1"):
                vals, flows, equal = round_trip_halves(read_delay_dump(Path(f"{prefix}.{node}")))
                shares[node].extend(vals)
                f0, e0 = delay_stats.get(node, (0, 0))
                delay_stats[node] = (f0 + flows, e0 + equal)
            rows.append(run_aqmlab(bench, SCENARIO, seed, "default"))
        if not args.no_diagnostics:
            nodb = tmpd / "packmime-no-delaybox.toml"
            nodb.write_text(without_delayboxes(text))
            srv = tmpd / "packmime-server-box.toml"
            srv.write_text(server_box_only(text, per_direction=False))
            srv2 = tmpd / "packmime-server-box-per-direction.toml"
            srv2.write_text(server_box_only(text, per_direction=True))
            for seed in seeds:
                rows.append(run_ns2_once(seed, "no-delaybox", args.ns, ["delaybox=0"]))
                rows.append(run_ns2_once(seed, "no-delaybox-nodelay", args.ns, ["delaybox=0", "nodelay=1"]))
                rows.append(run_aqmlab(bench, nodb, seed, "no-delaybox"))
                rows.append(
                    run_ns2_once(seed, "server-box-nodelay", args.ns, ["delaybox=server", "nodelay=1"])
                )
                rows.append(run_aqmlab(bench, srv, seed, "server-box"))
                rows.append(run_aqmlab(bench, srv2, seed, "server-box-per-direction"))
    elapsed = time.perf_counter() - t0

    sections = [("main: scenarios/packmime-delaybox.toml vs packmime.tcl", "default", "default")]
    if not args.no_diagnostics:
        sections += [
            ("diagnostic: no DelayBox in either simulator", "no-delaybox", "no-delaybox"),
            (
                "diagnostic: no DelayBox, ns-2 with Nagle off (FullTcp nodelay_ true)",
                "no-delaybox-nodelay",
                "no-delaybox",
            ),
            (
                "diagnostic: server-side DelayBox only, ns-2 Nagle off; aqmlab one draw per flow",
                "server-box-nodelay",
                "server-box",
            ),
            (
                "diagnostic: server-side DelayBox only, ns-2 Nagle off; aqmlab one draw per direction",
                "server-box-nodelay",
                "server-box-per-direction",
            ),
        ]
    md_parts = []
    main_fails = 0
    for title, ns_v, aq_v in sections:
        cells, fails = table(rows, ns_v, aq_v)
        if ns_v == aq_v == "default":
            main_fails = fails
        print(f"\n== {title} ({fails} outside tolerance)")
        print(render_text(cells))
        md_parts.append(f"### {title}\n\n{render_markdown(cells)}")
    dstat = ", ".join(
        f"{node}: {flows} flows with both directions, {equal} with a == b"
        for node, (flows, equal) in delay_stats.items()
    )
    for node, vals in shares.items():
        if vals:
            xs = sorted(vals)
            qs = " / ".join(f"{xs[int(q * (len(xs) - 1))]:.1f}" for q in (0.1, 0.5, 0.9))
            dstat += f"; {node} round-trip share a + b p10 / p50 / p90 = {qs} ms"
    print(f"\nns-2 DelayBox entries: {dstat}")
    meta = (
        f"Seeds 1..{args.seeds} in each simulator; {elapsed:.0f} s wall in all. Verdict: within "
        f"{100 * TOLERANCE:.0f} % of ns-2's mean or inside ns-2's seed range. ns-2 DelayBox entries "
        f"(all seeds): {dstat}."
    )
    args.jsonl.parent.mkdir(parents=True, exist_ok=True)
    with args.jsonl.open("w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    generated = (
        "<!-- generated by validation/compare_packmime.py; the analysis after the tables is by hand -->\n"
        f"{meta}\n\n" + "\n".join(md_parts)
    )
    out = args.out
    marker = "<!-- end of generated tables -->"
    tail = ""
    if out.exists() and marker in out.read_text():
        tail = out.read_text().split(marker, 1)[1]
    out.write_text("# PackMime-HTTP + DelayBox: aqmlab vs ns-2.35\n\n" + generated + "\n" + marker + tail)
    print(f"\nwrote {out} and {args.jsonl}")
    return 1 if args.strict and main_fails else 0


if __name__ == "__main__":
    sys.exit(main())
