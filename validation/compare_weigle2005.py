"""Study W side by side: aqmlab's 8Q parking lot against its ns-2.35 twin (validation/ns2/weigle2005.tcl).

Both simulators run the same cells (Table I rows and queue types) with the same seeds, connection rates and
scenario reading; every metric is shown as mean ± 95 % CI over seeds, with the paper's value beside it. A cell
is "ok" when aqmlab's mean lies inside ns-2's seed range or within 10 % of ns-2's mean.

    python validation/compare_weigle2005.py [--seeds 3] [--pairs 20000] [--jobs 2] [--cells default]
        [--set cross=fwd ...] [--tag NAME] [--ns2-only] [--cached-only] [--require METRIC]

Run at the paper's length (`--pairs 50000`) with the study's settings, it also writes the ns-2 column of
the study's own report (python/aqmlab/studies/weigle2005_ns2.json), so that both simulators appear there
at the run length of the report's runs. ns-2's runs are cached in
validation/results/compare_weigle2005.jsonl (one line per cell, seed and settings), so an interrupted
comparison resumes where it stopped; aqmlab's take seconds and are always run afresh. The connection
rates are the study's own calibration (aqmlab, three seeds), kept in
validation/results/weigle2005_calibration.json and redone when the reading changes. Needs the aqmlab
package (make build) and ns (validation/ns2/install-ns2.sh).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from aqmlab import api, reproduce
from aqmlab.studies import weigle2005
from aqmlab.studies.base import mean_ci
from aqmlab.studies.weigle2005_topology import CONGESTED, scenario

HERE = Path(__file__).resolve().parent
TCL = HERE / "ns2" / "weigle2005.tcl"
RESULTS = HERE / "results"
CACHE = RESULTS / "compare_weigle2005.jsonl"
CALIBRATION = RESULTS / "weigle2005_calibration.json"

# (combo, queue): DT over 1-3 congested links, every AQM on one and on all three, and DT-REM / REM-DT.
CELLS = {
    "default": [
        (("DT",), "DT"),
        (("DT", "DT"), "DT"),
        (("DT", "DT", "DT"), "DT"),
        *[(("AQM",), q) for q in weigle2005.AQMS],
        *[(("AQM", "AQM", "AQM"), q) for q in weigle2005.AQMS],
        (("DT", "AQM"), "REM"),
        (("AQM", "DT"), "REM"),
    ],
    "dt1": [(("DT",), "DT")],
    # drop-tail on two and three congested links: the long-lived flows' goodput and timeouts
    "dt23": [(("DT", "DT"), "DT"), (("DT", "DT", "DT"), "DT")],
    "1cl": [(("DT",), "DT"), *[(("AQM",), q) for q in weigle2005.AQMS]],
    # every Table I cell: the study's report shows ns-2 beside aqmlab on each
    "all": [c for c in weigle2005.configurations() if c[0]],
}
# the default cells an AQM setting moves (mean_pktsize, ared_gentle): drop-tail's are left out
CELLS["default_aqm"] = [c for c in CELLS["default"] if c[1] != "DT"]
# Scenario settings shared by both simulators; aqmlab's name -> the twin's key=value name.
SETTINGS = {
    "cross": "cross",
    "http_ack_every": "segsperack",
    "e2e_rate": "e2e_rate",
    "cross_rate": "cross_rate",
    "mean_pktsize": "mean_pktsize",
    "ared_gentle": "ared_gentle",
    "delaybox": "delaybox",
    "min_rto": "minrto",
    "initial_rto": "rtxcur_init",
    "max_rto": "maxrto",
    "tcp_defaults": "tcp_defaults",
}
# Settings of aqmlab's model alone: ns-2 is always itself (FullTcp for HTTP), so they are not passed on.
AQMLAB_ONLY = {"http_recovery"}
# Settings of the twin alone (diagnostics of ns-2 itself, such as an older release's TCP defaults): they
# can only be run with --ns2-only, since aqmlab would run its own model beside them.
NS2_ONLY = {"tcp_defaults"}
# Settings that only shape the AQM queues: a drop-tail cell and the calibration (drop-tail throughout) run
# the same with or without them, so they are left out of those runs' cache keys and calibration entries.
AQM_ONLY = {"mean_pktsize", "ared_gentle", "aqm_buffer_bytes"}


def parse_cells(text: str) -> list[tuple[tuple[str, ...], str]]:
    """A named set of cells, or a comma-separated list of ROW:QUEUE (a Table I row and its queue type)."""
    if text in CELLS:
        return CELLS[text]
    table = weigle2005.configurations()
    cells = []
    for item in text.split(","):
        row, _, queue = item.partition(":")
        cell = (tuple(row.split("-")), queue)
        if cell not in table or not row:
            raise ValueError(
                f"{item!r} is neither a set ({', '.join(sorted(CELLS))}) nor a Table I cell ROW:QUEUE"
            )
        cells.append(cell)
    return cells


def number(text: str) -> int | float:
    """A setting the study leaves at its default, given on the command line: an int where it is one."""
    return int(text) if text.lstrip("-").isdigit() else float(text)


def without_aqm_settings(settings: dict) -> dict:
    return {k: v for k, v in settings.items() if k not in AQM_ONLY}


# The classes whose load each congested link carries (departures, Mb/s) is compared: whether the two
# simulators offer the same traffic where it matters.
LOAD_CLASSES = ("ll_fwd", "http_fwd", "cross")


def link_names(combo: tuple[str, ...]) -> list[str]:
    return [f"{a}->{b}" for a, b in CONGESTED[: len(combo)]]


def calibrated_rates(jobs: int, reading: dict | None = None) -> dict[str, float]:
    """The study's connection rates for `reading` (default: the study's), rounded to 0.01 connections/s
    (the twin's input), with the calibration's loads; computed once per reading and kept."""
    reading = without_aqm_settings(weigle2005.READING if reading is None else reading)
    saved = json.loads(CALIBRATION.read_text()) if CALIBRATION.exists() else []
    for entry in saved:
        if entry["reading"] == reading:
            return entry["calibration"]
    print(f"calibrating {reading} (aqmlab, 3 seeds x 2 runs of 1200 s)", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        cal = weigle2005.calibrate(
            False, lambda specs: reproduce.execute(specs, Path(tmp), jobs=jobs), reading
        )
    cal["e2e_rate"], cal["cross_rate"] = round(cal["e2e_rate"], 2), round(cal["cross_rate"], 2)
    CALIBRATION.write_text(json.dumps([*saved, {"reading": reading, "calibration": cal}], indent=1) + "\n")
    return cal


def run_aqmlab(combo, queue, seed, pairs, settings) -> dict:
    aqm = None if queue == "DT" else queue
    sc = scenario(combo, aqm, pairs=pairs, **settings)
    r = api.run(sc, seed=seed)
    window = r.summary["end_s"] - sc["measure"]["warmup"]
    carried = r.link_classes.set_index(["link", "class"])["departure_bytes"] * 8 / window / 1e6
    flows, classes = r.flows, r.classes.set_index("class")
    ll = flows[flows["group"] == "ll_fwd"]
    links, resp = r.links.set_index("link"), r.responses.set_index("class")
    m = {
        "goodput_kbps": ll["goodput_bps"].sum() / 1e3,
        # ns-2's nrexmit_ leaves out the timeouts that follow an ECN reduction (ssthresh kept)
        "ll_timeouts": float((ll["timeouts"] - ll["timeouts_after_ecn"]).sum()),
        "ll_retransmits": float(ll["retransmits"].sum()),
        "ll_path_loss_pct": weigle2005.forward_path_share(r.link_classes, "ll_fwd"),
        "http_path_loss_pct": weigle2005.forward_path_share(r.link_classes, "http_fwd"),
        "ll_path_marked_pct": weigle2005.forward_path_share(r.link_classes, "ll_fwd", "marks"),
        "http_path_marked_pct": weigle2005.forward_path_share(r.link_classes, "http_fwd", "marks"),
        "ll_loss_pct": 100 * classes.loc["ll_fwd", "loss_rate"],
        "http_loss_pct": 100 * classes.loc["http_fwd", "loss_rate"],
        "rt_mean_ms": 1e3 * resp.loc["http_fwd", "mean_s"],
        "rt_p10_ms": 1e3 * resp.loc["http_fwd", "p10_s"],
        "rt_p50_ms": 1e3 * resp.loc["http_fwd", "p50_s"],
        "rt_p90_ms": 1e3 * resp.loc["http_fwd", "p90_s"],
        "end_s": r.summary["end_s"],
        "wall_s": r.summary["wall_s"],
    }
    for name in link_names(combo):
        m[f"{name} drops"] = float(links.loc[name, "drops"])
        m[f"{name} marks"] = float(links.loc[name, "marks"])
        m[f"{name} q_mean_pkts"] = float(links.loc[name, "q_mean_pkts"])
        for cls in LOAD_CLASSES:
            m[f"{name} {cls} Mb/s"] = float(carried.get((name, cls), 0.0))
    return m


def run_ns2(combo, queue, seed, pairs, settings) -> dict:
    args = ["-".join(combo) or "none", queue if queue != "DT" else "-", str(seed), f"pairs={pairs}"]
    args += [
        f"{SETTINGS[k]}={int(v) if isinstance(v, bool) else v}"
        for k, v in settings.items()
        if k not in AQMLAB_ONLY
    ]
    out = subprocess.run(["ns", str(TCL), *args], capture_output=True, text=True, check=True).stdout
    j = json.loads(out.strip().splitlines()[-1])
    m = {
        "goodput_kbps": j["goodput_kbps"],
        **{k: float(j[k]) for k in ("ll_timeouts", "ll_retransmits") if k in j},
        "ll_path_loss_pct": 100 * j["classes"]["ll_fwd_path"]["loss_rate"],
        "http_path_loss_pct": 100 * j["classes"]["http_fwd_path"]["loss_rate"],
        **{  # packets delivered CE-marked (runs before the twin counted them lack it)
            f"{cls}_path_marked_pct": 100 * c["ce_delivered"] / c["sent"]
            for cls in ("ll", "http")
            if "ce_delivered" in (c := j["classes"][f"{cls}_fwd_path"]) and c["sent"]
        },
        "ll_loss_pct": 100 * j["classes"]["ll_fwd"]["loss_rate"],
        "http_loss_pct": 100 * j["classes"]["http_fwd"]["loss_rate"],
        "rt_mean_ms": 1e3 * j["rt_mean_s"],
        "rt_p10_ms": 1e3 * j["rt_p10_s"],
        "rt_p50_ms": 1e3 * j["rt_p50_s"],
        "rt_p90_ms": 1e3 * j["rt_p90_s"],
        "end_s": j["end_s"],
        "wall_s": j["wall_s"],
    }
    for name in link_names(combo):
        link = j["links"][name]
        m[f"{name} drops"] = float(link["drops"])
        m[f"{name} marks"] = float(link["marks"])
        m[f"{name} q_mean_pkts"] = float(link["q_mean_pkts"])
        for cls in LOAD_CLASSES:
            m[f"{name} {cls} Mb/s"] = float(link["load_mbps"].get(cls, 0.0))
    return m


RUNNERS = {"aqmlab": run_aqmlab, "ns-2": run_ns2}


def key(sim, combo, queue, seed, pairs, settings) -> str:
    if queue == "DT":
        settings = without_aqm_settings(settings)
    return json.dumps([sim, "-".join(combo), queue, seed, pairs, sorted(settings.items())])


def load_cache() -> dict[str, dict]:
    if not CACHE.exists():
        return {}
    # a run done again (--require) is appended: its last line wins
    records = (json.loads(line) for line in CACHE.read_text().splitlines() if line)
    return {r["key"]: r for r in records}


# Metrics every cached ns-2 run must hold; a run cached before one of them was kept is run again.
REQUIRED = ("ll_path_loss_pct", "http_path_loss_pct")


def current(record: dict | None, required: tuple[str, ...] = ()) -> bool:
    return record is not None and all(m in record["metrics"] for m in (*REQUIRED, *required))


def run_all(cells, seeds, pairs, settings, jobs, sims=tuple(RUNNERS), require=()) -> dict[str, dict]:
    """Runs what is missing; ns-2's runs are kept in the cache file (a cached run lacking a metric of
    `require` is run again: the twin gained a counter), aqmlab's (20-40x faster, and changing with the
    engine) are always run afresh."""
    cache = load_cache()
    todo = [
        (sim, combo, queue, seed)
        for combo, queue in cells
        for seed in seeds
        for sim in sims
        if sim == "aqmlab" or not current(cache.get(key(sim, combo, queue, seed, pairs, settings)), require)
    ]
    # ns-2 runs take 20-40x longer: start them first so the pool stays busy.
    todo.sort(key=lambda t: t[0] != "ns-2")
    print(f"{len(todo)} runs to do", file=sys.stderr)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {
            pool.submit(RUNNERS[sim], combo, queue, seed, pairs, settings): (sim, combo, queue, seed)
            for sim, combo, queue, seed in todo
        }
        for done, fut in enumerate(as_completed(futures), 1):
            sim, combo, queue, seed = futures[fut]
            k = key(sim, combo, queue, seed, pairs, settings)
            rec = {"key": k, "metrics": fut.result()}
            if sim == "ns-2":
                with CACHE.open("a") as f:  # one whole line per run: a crash loses at most the runs in flight
                    f.write(json.dumps(rec) + "\n")
            cache[k] = rec
            print(f"[{done}/{len(todo)}] {sim} {'-'.join(combo)} {queue} seed {seed}", file=sys.stderr)
    return cache


def paper_value(combo, queue, metric) -> str:
    # The paper's losses are its forward-path traffic's (weigle2005.forward_path_share).
    index = {"goodput_kbps": 0, "ll_path_loss_pct": 1, "http_path_loss_pct": 2}.get(metric)
    paper = weigle2005.PAPER.get(combo, {}).get(queue)
    return "" if index is None or paper is None else f"{paper[index]:g}"


def verdict(aq: list[float], ns: list[float]) -> str:
    a, n = statistics.fmean(aq), statistics.fmean(ns)
    inside = min(ns) <= a <= max(ns)
    close = abs(a - n) <= 0.1 * abs(n) if n else a == 0
    return "ok" if inside or close else "**differs**"


def welch(aq: list[float], ns: list[float]) -> tuple[float, float]:
    """aqmlab's mean minus ns-2's and the half-width of its 95 % interval (Welch: unequal variances)."""
    a, n = statistics.fmean(aq), statistics.fmean(ns)
    va, vn = statistics.variance(aq) / len(aq), statistics.variance(ns) / len(ns)
    if va + vn == 0:
        return a - n, 0.0
    df = (va + vn) ** 2 / (va**2 / (len(aq) - 1) + vn**2 / (len(ns) - 1))
    from scipy import stats  # imported here, as in studies.base: it takes a while

    return a - n, float(stats.t.ppf(0.975, df)) * math.sqrt(va + vn)


def fmt_diff(diff: float, half: float, digits: int) -> str:
    mark = "**" if abs(diff) > half else ""
    return f"{mark}{diff:+.{digits}f} ± {half:.{digits}f}{mark}"


def fmt(values: list[float]) -> str:
    m, h = mean_ci(values)
    digits = 0 if abs(m) >= 100 else 2
    return f"{m:.{digits}f}" + ("" if math.isnan(h) else f" ± {h:.{digits}f}")


def report(cells, seeds, pairs, settings, cache, tag) -> str:
    lines = [
        f"# Study W: aqmlab vs ns-2.35 ({tag})",
        "",
        "<!-- generated by validation/compare_weigle2005.py -->",
        f"Seeds {seeds[0]}..{seeds[-1]} in each simulator; runs stop after {pairs} forward end-to-end pairs "
        f"after the 60-s warm-up. Settings: {', '.join(f'{k} = {v}' for k, v in settings.items())}. "
        "Mean ± 95 % CI over seeds (Student t); verdict: aqmlab's mean inside ns-2's seed range or within "
        "10 % of ns-2's mean. aqmlab − ns-2: the difference of means with its 95 % interval (Welch), in "
        "bold where the interval excludes 0. The paper ran 50,000 pairs. Losses: `*_path_loss_pct` counts "
        "the forward-path traffic (long-lived data, HTTP responses) as the paper does, beside its values; "
        "`*_loss_pct` the whole class both ways (ACKs and requests too).",
        "",
    ]
    tally = [0, 0]
    significant = 0
    spread: dict[str, list[tuple[list[float], list[float]]]] = {}  # metric family -> per cell (aqmlab, ns-2)
    for combo, queue in cells:
        runs = {
            sim: [cache[key(sim, combo, queue, s, pairs, settings)]["metrics"] for s in seeds]
            for sim in RUNNERS
        }
        lines += [
            f"### {'-'.join(combo)} ({queue})",
            "",
            "| metric | aqmlab | ns-2 | aqmlab − ns-2 | paper | verdict |",
            "|---|---|---|---|---|---|",
        ]
        # The twin counts a link's marks as its CE departures less the upstream link's: packets marked
        # upstream and dropped here come out negative on a drop-tail link (which never marks), and a CE
        # packet an AQM marks again is not counted, where aqmlab (as ns-3) counts every mark. Marks are
        # compared only where no congested link upstream runs an AQM.
        names = link_names(combo)
        no_marks = {name for i, name in enumerate(names) if combo[i] == "DT" or "AQM" in combo[:i]}
        for metric in runs["ns-2"][0]:
            if metric in ("end_s", "wall_s") or not all(metric in r for r in runs["ns-2"]):
                continue  # runs cached before a metric was kept lack it
            if metric.endswith(" marks") and metric.split(" ")[0] in no_marks:
                continue
            aq = [r[metric] for r in runs["aqmlab"]]
            ns = [r[metric] for r in runs["ns-2"]]
            v = verdict(aq, ns)
            tally[v == "ok"] += 1
            diff, half = welch(aq, ns)
            significant += abs(diff) > half
            if statistics.fmean(aq) + statistics.fmean(ns):
                family = metric.split(" ", 1)[1] if "->" in metric else metric  # "R1->R2 drops" -> "drops"
                spread.setdefault(family, []).append((aq, ns))
            digits = 0 if abs(statistics.fmean(ns)) >= 100 else 2
            lines.append(
                f"| {metric} | {fmt(aq)} | {fmt(ns)} | {fmt_diff(diff, half, digits)} "
                f"| {paper_value(combo, queue, metric)} | {v} |"
            )
        wall = {sim: statistics.fmean(r["wall_s"] for r in rs) for sim, rs in runs.items()}
        lines += [
            "",
            f"Simulated time per run {fmt([r['end_s'] for r in runs['ns-2']])} s (ns-2); "
            f"mean wall time per run aqmlab {wall['aqmlab']:.1f} s, ns-2 {wall['ns-2']:.1f} s.",
            "",
        ]
    lines += seed_spread(spread)
    lines.insert(
        5,
        f"**{tally[1]} of {sum(tally)} cells ok; aqmlab and ns-2 differ significantly (95 % Welch interval "
        f"of the difference excludes 0) in {significant} of {sum(tally)}.**\n",
    )
    return "\n".join(lines)


def seed_spread(spread: dict[str, list[tuple[list[float], list[float]]]]) -> list[str]:
    """Whether aqmlab's results sit systematically above or below ns-2's, and whether they vary more from
    seed to seed. Every cell of a simulator runs the same traffic draws for a given seed, so the cells'
    seed-to-seed variations are not independent (a seed with a few huge responses loads every cell):
    besides counting the cells where aqmlab's mean or standard deviation is the larger, each seed is
    scored by its values relative to each cell's mean over both simulators, averaged over the cells; the
    two simulators' scores are compared by Welch's t test (level) and an F test (spread), with one score
    per seed."""
    from scipy import stats

    lines = [
        "### Level and seed spread",
        "",
        "Per metric: the cells where aqmlab's mean, and its seed-to-seed standard deviation, exceed ns-2's; "
        "each seed's score (its values over the cells' means over both simulators, averaged over the "
        "cells): the mean score, aqmlab's over ns-2's, with Welch's two-sided p, and the score's variance, "
        "aqmlab's over ns-2's, with the F test's two-sided p. Cells share their seeds, so only the scores "
        "are tests.",
        "",
        "| metric | cells with aqmlab's mean > ns-2's | level, aqmlab / ns-2 | Welch p "
        "| cells with aqmlab's sd > ns-2's | seed-score variance, aqmlab / ns-2 | F-test p |",
        "|---|---|---|---|---|---|---|",
    ]
    for family, cells in spread.items():
        above = sum(statistics.fmean(aq) > statistics.fmean(ns) for aq, ns in cells)
        wider = sum(statistics.stdev(aq) > statistics.stdev(ns) for aq, ns in cells)
        scores = {}
        for sim, i in (("aqmlab", 0), ("ns-2", 1)):
            per_seed = zip(
                *((v / ((statistics.fmean(c[0]) + statistics.fmean(c[1])) / 2) for v in c[i]) for c in cells),
                strict=True,
            )
            scores[sim] = [statistics.fmean(s) for s in per_seed]
        var = {sim: statistics.variance(sc) for sim, sc in scores.items()}
        if var["ns-2"] == 0 or var["aqmlab"] == 0:
            continue  # nothing varies (e.g. marks of drop-tail cells)
        level = statistics.fmean(scores["aqmlab"]) / statistics.fmean(scores["ns-2"])
        p_level = stats.ttest_ind(scores["aqmlab"], scores["ns-2"], equal_var=False).pvalue
        ratio, dof = var["aqmlab"] / var["ns-2"], len(cells[0][0]) - 1
        p = 2 * min(stats.f.sf(ratio, dof, dof), stats.f.cdf(ratio, dof, dof))
        lines.append(
            f"| {family} | {above} of {len(cells)} | {level:.3f} | {p_level:.2g} "
            f"| {wider} of {len(cells)} | {ratio:.2f} | {p:.2g} |"
        )
    return [*lines, ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--cells",
        default="default",
        metavar="SET|ROW:QUEUE,...",
        help=f"a named set of Table I cells ({', '.join(sorted(CELLS))}) or a list: AQM-AQM-AQM:PI,DT:DT",
    )
    ap.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help=f"one of {sorted(SETTINGS)}"
    )
    ap.add_argument("--tag", default="the study's reading", help="title of the report section")
    ap.add_argument("--ns2-only", action="store_true", help="only fill the ns-2 cache; write no report")
    ap.add_argument(
        "--cached-only",
        action="store_true",
        help="compare only the cells whose ns-2 runs are all cached (a long comparison's state so far)",
    )
    ap.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="METRIC",
        help="run ns-2 again where a cached run lacks METRIC (after the twin gained a counter)",
    )
    ap.add_argument("--out", type=Path, default=RESULTS / "compare_weigle2005.md")
    a = ap.parse_args()
    RESULTS.mkdir(exist_ok=True)
    study = {**weigle2005.READING, **weigle2005.study_rates(calibrated_rates(a.jobs))}
    settings = dict(study)
    for kv in a.set:
        k, _, v = kv.partition("=")
        if k not in SETTINGS:
            ap.error(f"--set {kv}: unknown setting {k!r} (known: {', '.join(sorted(SETTINGS))})")
        if k in NS2_ONLY and not a.ns2_only:
            ap.error(f"--set {kv}: a setting of the twin alone, for --ns2-only runs")
        settings[k] = v if k in NS2_ONLY else type(settings[k])(v) if k in settings else number(v)
    seeds = list(range(1, a.seeds + 1))
    try:
        cells = parse_cells(a.cells)
    except ValueError as e:
        ap.error(f"--cells {a.cells}: {e}")
    if a.cached_only:
        cache = load_cache()
        cached = {k for k, r in cache.items() if current(r)}
        cells = [c for c in cells if all(key("ns-2", *c, s, a.pairs, settings) in cached for s in seeds)]
    if a.ns2_only:
        run_all(cells, seeds, a.pairs, settings, a.jobs, sims=("ns-2",), require=tuple(a.require))
        return
    cache = run_all(cells, seeds, a.pairs, settings, a.jobs, require=tuple(a.require))
    a.out.write_text(report(cells, seeds, a.pairs, settings, cache, a.tag) + "\n")
    print(a.out)
    if settings == study and a.pairs == weigle2005.PAPER_PAIRS:
        # the study's report shows ns-2 at its own settings and run length (the paper's) only
        write_study_data(a.pairs, settings, cache)


def write_study_data(pairs, settings, cache) -> None:
    """The ns-2 column of the study's own report (weigle2005.NS2_RESULTS): each cached seed's value per
    Table I cell, for every cell the twin ran with the study's settings (seeds 1, 2, ... while cached)."""
    names = {
        "goodput": "goodput_kbps",
        "ll_loss": "ll_path_loss_pct",
        "http_loss": "http_path_loss_pct",
        "ll_loss_both_ways": "ll_loss_pct",
        "http_loss_both_ways": "http_loss_pct",
        "ll_marked": "ll_path_marked_pct",
    }
    data = {"settings": settings, "pairs": pairs, "cells": {}}
    for combo, queue in CELLS["all"]:
        runs = []
        for seed in itertools.count(1):  # seeds 1, 2, ... as far as they are cached
            record = cache.get(key("ns-2", combo, queue, seed, pairs, settings))
            if not current(record):
                break
            runs.append(record["metrics"])
        if not runs:
            continue
        # a metric the cached runs do not all hold is left out (blank in the study's report)
        cell = {k: [r[v] for r in runs] for k, v in names.items() if all(v in r for r in runs)}
        if all("rt_mean_ms" in r for r in runs):  # runs cached before it was kept lack it
            cell["rt_mean"] = [r["rt_mean_ms"] / 1e3 for r in runs]  # seconds, as the study's own runs
        data["cells"][f"{'-'.join(combo)} {queue}"] = {"seeds": list(range(1, len(runs) + 1)), **cell}
    weigle2005.NS2_RESULTS.write_text(json.dumps(data, indent=1) + "\n")
    print(weigle2005.NS2_RESULTS)


if __name__ == "__main__":
    main()
