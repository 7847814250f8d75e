"""Study L at scale: run python/aqmlab/studies/scenarios/le2003/peering.toml with aqmlab-bench and report
its cost.

    python3 validation/scale.py                 # 10 simulated minutes (600 s, warm-up 60 s)
    python3 validation/scale.py --full          # the full hour (3600 s)
    python3 validation/scale.py --calibrate     # offered load on the uncongested network (1 Gb/s peering)

The scenario is study L's peering link (two ISP sides, client and server clouds on each, PackMime HTTP/1.1
in both directions, 100 Mb/s full-duplex peering link with drop-tail 240, per-flow U{10..150} ms delay on
the browsers' outbound packets, 16 KB windows) at the connection rate calibrated for ~98 % offered load
per direction. Raw pair records stay off, so memory is the engine's live state plus fixed-size
histograms.

Reported per run: wall-clock seconds, peak RSS (the bench process's VmHWM, MiB), simulated seconds per
wall second, pairs completed after the warm-up (both generators), connections opened, events, link
forwards, peering-link utilization and loss each way, and the response-time quantiles per direction.
Each run is appended as one JSON line to ``validation/results/scale.jsonl`` and as a Markdown table row to
stdout (and to ``--md`` if given).

``--calibrate`` replaces the peering link by 1 Gb/s (study L's "uncongested" network,
docs/load-and-metrics.md#offered-load) and runs each ``--rates`` value for ``--duration`` (default
360 s, warm-up 60 s) and ``--seeds`` seeds, reporting Mb/s per direction and k = Mb/s per (conn/s); the
rate for a target load is target / k.

Standard library only (Python 3.11); needs ``aqmlab-bench`` (``cargo build --release -p aqmlab-core``;
found through ``--bench``, ``$AQMLAB_BENCH``, ``$CARGO_TARGET_DIR`` or ``target/``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from aqmlab_bench import find_bench

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "python" / "aqmlab" / "studies" / "scenarios" / "le2003" / "peering.toml"
RESULTS = ROOT / "validation" / "results"
PEERING = ("RA->RB", "RB->RA")
PEERING_INDEX = 4  # links.4 is RA<->RB in peering.toml
CAPACITY_MBPS = 100.0


def run_bench(bench: Path, overrides: list[str], timeout: float | None = None) -> dict:
    """Runs aqmlab-bench on the peering scenario; returns its JSON plus the outer wall time."""
    cmd = [str(bench), str(SCENARIO), "--links", *overrides]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    outer = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"aqmlab-bench failed ({proc.returncode}): {proc.stderr.strip()}")
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    raw["outer_wall_s"] = outer
    raw["command"] = " ".join(cmd)
    return raw


def summarise(raw: dict, duration: float, warmup: float) -> dict:
    """The scale metrics of one run."""
    links = {row["link"]: row for row in raw["links"]}
    out = {
        "duration_s": duration,
        "warmup_s": warmup,
        "seed": raw.get("seed"),
        "wall_s": raw["wall_s"],
        "outer_wall_s": round(raw["outer_wall_s"], 3),
        "peak_rss_mb": raw["peak_rss_mb"],
        "sim_s_per_wall_s": duration / raw["wall_s"] if raw["wall_s"] > 0 else float("nan"),
        "pairs": raw["pairs"],
        "connections": raw["connections"],
        "events": raw["events"],
        "link_forwards": raw["link_forwards"],
        "packets_peak": raw["packets_peak"],
        "flow_slots": raw["flow_slots"],
        "ended_by": raw["ended_by"],
    }
    for name in PEERING:
        row = links[name]
        tag = "ab" if name == "RA->RB" else "ba"
        out[f"util_{tag}"] = row["utilization"]
        out[f"loss_pct_{tag}"] = 100.0 * row["drops"] / row["arrivals"] if row["arrivals"] else 0.0
    for r in raw["responses"]:
        out[f"resp_{r['class']}"] = {
            k: r[k] for k in ("pairs", "incomplete", "mean_s", "p10_s", "p50_s", "p90_s", "p99_s")
        }
    for g in raw["generators"]:
        out[f"gen_{g['generator']}"] = {
            k: g[k] for k in ("connections_started", "connections_finished", "connections_open")
        }
    return out


HEADER = (
    "| run | sim s | wall s | peak RSS MiB | sim s / wall s | pairs completed | connections | "
    "util RA->RB / RB->RA | loss % RA->RB / RB->RA | p50 / p90 / p99 s (web_ab) |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def md_row(label: str, s: dict) -> str:
    r = s.get("resp_web_ab", {})
    quant = " / ".join(f"{r.get(k, float('nan')):.3f}" for k in ("p50_s", "p90_s", "p99_s"))
    return (
        f"| {label} | {s['duration_s']:g} | {s['wall_s']:.1f} | {s['peak_rss_mb']:.1f} | "
        f"{s['sim_s_per_wall_s']:.1f} | {s['pairs']:,} | {s['connections']:,} | "
        f"{s['util_ab']:.4f} / {s['util_ba']:.4f} | "
        f"{s['loss_pct_ab']:.2f} / {s['loss_pct_ba']:.2f} | {quant} |"
    )


def calibrate(bench: Path, rates: list[float], seeds: int, duration: float, warmup: float) -> int:
    print("| rate conn/s per direction | seed | RA->RB Mb/s | RB->RA Mb/s | k = Mb/s per conn/s | wall s |")
    print("|---|---|---|---|---|---|")
    ks: list[float] = []
    for rate in rates:
        for seed in range(1, seeds + 1):
            raw = run_bench(
                bench,
                [
                    f"seed={seed}",
                    f'duration="{duration:g}s"',
                    f'measure.warmup="{warmup:g}s"',
                    f'links.{PEERING_INDEX}.rate="1Gbps"',
                    f"http.0.rate={rate:g}",
                    f"http.1.rate={rate:g}",
                ],
            )
            links = {row["link"]: row for row in raw["links"]}
            mbps = [links[n]["utilization"] * 1000.0 for n in PEERING]
            k = statistics.fmean(mbps) / rate
            ks.append(k)
            print(f"| {rate:g} | {seed} | {mbps[0]:.2f} | {mbps[1]:.2f} | {k:.5f} | {raw['wall_s']:.1f} |")
    k = statistics.fmean(ks)
    print(f"\nk = {k * 1000:.2f} kb/s per conn/s (mean of {len(ks)} runs); rate for 98 Mb/s = {98 / k:.0f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the full hour (3600 s) instead of 600 s")
    ap.add_argument("--duration", type=float, default=None, help="simulated seconds (overrides --full)")
    ap.add_argument("--warmup", type=float, default=60.0, help="warm-up seconds (default 60)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], help="extra aqmlab-bench key=value override")
    ap.add_argument("--calibrate", action="store_true", help="measure offered load on a 1 Gb/s peering link")
    ap.add_argument("--rates", type=float, nargs="+", default=[1274.0], help="--calibrate rates (conn/s)")
    ap.add_argument("--seeds", type=int, default=3, help="--calibrate seeds per rate (default 3)")
    ap.add_argument("--bench", default=None, help="aqmlab-bench binary")
    ap.add_argument("--timeout", type=float, default=None, help="seconds before the run is killed")
    ap.add_argument("--jsonl", type=Path, default=RESULTS / "scale.jsonl", help="append the run here")
    ap.add_argument("--md", type=Path, default=None, help="also append the Markdown row to this file")
    args = ap.parse_args(argv)
    bench = find_bench(args.bench, "scale")
    if args.calibrate:
        duration = 360.0 if args.duration is None else args.duration
        return calibrate(bench, args.rates, args.seeds, duration, args.warmup)
    duration = args.duration if args.duration is not None else (3600.0 if args.full else 600.0)
    overrides = [
        f"seed={args.seed}",
        f'duration="{duration:g}s"',
        f'measure.warmup="{args.warmup:g}s"',
        *args.set,
    ]
    raw = run_bench(bench, overrides, timeout=args.timeout)
    raw["seed"] = args.seed
    s = summarise(raw, duration, args.warmup)
    s["overrides"] = overrides
    args.jsonl.parent.mkdir(parents=True, exist_ok=True)
    with args.jsonl.open("a") as f:
        f.write(json.dumps(s) + "\n")
    label = "hour" if duration >= 3600 else f"{duration / 60:g} min"
    row = md_row(label, s)
    print(HEADER)
    print(row)
    if args.md is not None:
        with args.md.open("a") as f:
            f.write(row + "\n")
    print(json.dumps(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
