"""PackMime-HTTP's random variables in isolation: aqmlab's samplers beside ns-2.35's, draw for draw.

Each sampler (connection gaps, request and response sizes, the two DelayBox delays) is drawn N times per seed
in both simulators, outside any network: ns-2 through ``validation/ns2/packmime_samples.tcl``, aqmlab through
the ``packmime_samples`` example of aqmlab-core. Per seed: quantiles, the mean, the lag-1 autocorrelation of
the series' logarithms, the tail index of the sizes and, for the connection gaps, the coefficient of variation
of the number of connections in windows of 1, 10, 60 and 360 s (how bursty the arrivals are at the time scales
of a run). A statistic is "ok" when aqmlab's mean over seeds lies inside ns-2's seed range or within 5 % of
ns-2's mean. Response sizes have a tail index near 1.2 (finite mean, infinite variance), so their sample mean
is ruled by the largest few draws and wanders from seed to seed far more than any quantile; compare them by
quantiles and tail index. Writes ``validation/results/compare_packmime_samplers.md``; a few minutes.

    python validation/compare_packmime_samplers.py [--seeds 5] [--draws 200000] [--rates 43.06 48.98]

Needs ns (validation/ns2/install-ns2.sh), cargo and numpy. Study W's rates are the defaults: these
variables' shapes depend on the rate (the ns-2 code takes log2 of it).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TCL = HERE / "ns2" / "packmime_samples.tcl"
EXAMPLE = ROOT / "target" / "release" / "examples" / "packmime_samples"
OUT = HERE / "results" / "compare_packmime_samplers.md"

KINDS = {
    "arrivals": "gap between connection starts (s)",
    "requests": "request size (bytes)",
    "responses": "response size (bytes)",
    "rtt_client": "client-side DelayBox delay (ms)",
    "rtt_server": "server-side DelayBox delay (ms)",
}
QUANTILES = (0.1, 0.5, 0.9, 0.99, 0.999)
WINDOWS_S = (1, 10, 60, 360)


def draws(sim: str, kind: str, rate: float, n: int, seed: int) -> np.ndarray:
    args = [kind, str(rate), str(n), str(seed)]
    cmd = ["ns", str(TCL), *args] if sim == "ns-2" else [str(EXAMPLE), *args]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return np.array(out.split(), dtype=float)


def statistics_of(kind: str, x: np.ndarray, rate: float) -> dict[str, float]:
    s = {f"p{100 * q:g}": float(np.quantile(x, q)) for q in QUANTILES}
    s["mean"] = float(x.mean())
    logs = np.log(x)  # logarithms: the raw values' correlation is ruled by a few huge draws
    s["lag-1 autocorrelation of log"] = float(np.corrcoef(logs[:-1], logs[1:])[0, 1])
    if kind in ("requests", "responses"):
        top = np.sort(x)[-len(x) // 1000 :]  # Hill's estimator over the largest 0.1 %
        s["tail index (Hill, top 0.1 %)"] = float(1 / np.mean(np.log(top[1:] / top[0])))
    if kind == "arrivals":
        s["mean x rate"] = float(x.mean() * rate)
        starts = np.cumsum(x)
        for w in WINDOWS_S:
            counts = np.bincount((starts // w).astype(int))[:-1]  # the last window is cut short
            s[f"CV of connections per {w} s"] = float(counts.std() / counts.mean())
    return s


def verdict(aq: list[float], ns: list[float]) -> str:
    m = statistics.fmean(aq)
    inside = min(ns) <= m <= max(ns) or abs(m - statistics.fmean(ns)) <= 0.05 * abs(statistics.fmean(ns))
    return "ok" if inside else "**differs**"


def fmt(values: list[float]) -> str:
    m = statistics.fmean(values)
    return f"{m:.4g} ({min(values):.4g}..{max(values):.4g})"


RUN_S = 360  # a study-W run measures about 360 s after its warm-up


def offered_bytes_per_run(rates: list[float], seeds: int) -> list[str]:
    """The response bytes one cloud offers in a run (rate x 360 s responses), across many seeds: the sum
    of draws of tail index 1.2 is ruled by its few largest, so runs differ mostly by their elephants, and
    a simulator whose runs vary more from seed to seed than another's could owe it to its far tail, which
    the per-seed statistics above (top 0.1 %) do not reach."""
    from scipy import stats

    lines = [
        f"### Response bytes offered per run ({RUN_S} s of connections), {seeds} seeds per simulator",
        "",
        "Per seed: the sum of rate x 360 response sizes (MB), and the draws above 10 MB and 100 MB, pooled "
        "over the seeds. KS: the two-sample Kolmogorov-Smirnov p-value of the per-seed sums.",
        "",
        "| rate | simulator | p10 | p50 | p90 | max | draws > 10 MB | draws > 100 MB | KS p |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for rate in rates:
        n = round(rate * RUN_S)
        sums, big = {}, {}
        for sim in ("aqmlab", "ns-2"):
            runs = [draws(sim, "responses", rate, n, s) for s in range(1, seeds + 1)]
            sums[sim] = np.array([x.sum() / 1e6 for x in runs])
            pooled = np.concatenate(runs)
            big[sim] = ((pooled > 1e7).sum(), (pooled > 1e8).sum())
        ks = stats.ks_2samp(sums["aqmlab"], sums["ns-2"]).pvalue
        for sim in ("aqmlab", "ns-2"):
            q = np.quantile(sums[sim], [0.1, 0.5, 0.9])
            lines.append(
                f"| {rate} | {sim} | {q[0]:.0f} | {q[1]:.0f} | {q[2]:.0f} | {sums[sim].max():.0f} "
                f"| {big[sim][0]} | {big[sim][1]} | {ks:.2f} |"
            )
        print(f"rate {rate} offered bytes per run: done", flush=True)
    return [*lines, ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--draws", type=int, default=200_000)
    ap.add_argument("--rates", type=float, nargs="+", default=[43.06, 48.98])
    ap.add_argument(
        "--run-seeds", type=int, default=60, help="seeds of the per-run offered-bytes check (0: skip it)"
    )
    a = ap.parse_args()
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "aqmlab-core", "--example", "packmime_samples"],
        cwd=ROOT,
        check=True,
    )
    seeds = range(1, a.seeds + 1)
    lines = [
        "# PackMime-HTTP's samplers: aqmlab vs ns-2.35, in isolation",
        "",
        "<!-- generated by validation/compare_packmime_samplers.py -->",
        f"{a.draws} draws per seed, seeds 1..{a.seeds} in each simulator; each cell: mean over seeds "
        "(seed range). Verdict: aqmlab's mean inside ns-2's seed range or within 5 % of ns-2's mean.",
        "",
    ]
    ok = total = 0
    for rate in a.rates:
        for kind, what in KINDS.items():
            per_sim = {
                sim: [statistics_of(kind, draws(sim, kind, rate, a.draws, s), rate) for s in seeds]
                for sim in ("aqmlab", "ns-2")
            }
            lines += [f"### {what}, rate {rate} connections/s", "", "| statistic | aqmlab | ns-2 | verdict |"]
            lines.append("|---|---|---|---|")
            for stat in per_sim["aqmlab"][0]:
                aq = [r[stat] for r in per_sim["aqmlab"]]
                ns = [r[stat] for r in per_sim["ns-2"]]
                v = verdict(aq, ns)
                ok += v == "ok"
                total += 1
                lines.append(f"| {stat} | {fmt(aq)} | {fmt(ns)} | {v} |")
            lines.append("")
            print(f"rate {rate} {kind}: done", flush=True)
    if a.run_seeds:
        lines += offered_bytes_per_run(a.rates, a.run_seeds)
    lines.insert(5, f"**{ok} of {total} statistics ok.**\n")
    OUT.write_text("\n".join(lines))
    print(f"{ok} of {total} ok; wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
