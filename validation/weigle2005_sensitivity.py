"""Study W: which reading of the paper's scenario reproduces Table I — a sensitivity table over the choices
the text leaves open, with ns-2.35 beside aqmlab where the choice is a scenario choice.

    python validation/weigle2005_sensitivity.py [--seeds 3] [--pairs 20000] [--jobs 2] [--no-ns2]

Each variant changes one thing from the study's reading (weigle2005.READING) and is calibrated anew where
the change moves the offered load. Writes validation/results/weigle2005_sensitivity.md; ns-2's runs share
compare_weigle2005.py's cache.
"""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path

import compare_weigle2005 as cmp
from aqmlab.studies import weigle2005
from aqmlab.studies.weigle2005_topology import DEFAULT_RATE

CELLS = [(("DT",), "DT"), (("DT", "DT", "DT"), "DT"), *[(("AQM",), q) for q in weigle2005.AQMS]]
NS2_CELLS = [(("DT",), "DT"), (("AQM",), "ARED")]


def variants(jobs: int, pairs: int) -> list[tuple[str, dict, bool, int]]:
    """(label, settings, run ns-2 too, forward pairs per run) for the study's reading and each
    alternative; all but the last run `pairs` pairs."""

    def calibrated(**change) -> dict:
        reading = {**weigle2005.READING, **change}
        return {**reading, **weigle2005.study_rates(cmp.calibrated_rates(jobs, reading))}

    study = calibrated()
    cal = cmp.calibrated_rates(jobs)
    wire = {**weigle2005.READING, "e2e_rate": cal["e2e_rate"], "cross_rate": cal["cross_rate"]}
    scale = study["e2e_rate"] / wire["e2e_rate"]
    rows = [
        (
            "study reading: offered load counted as HTTP response payload, cross traffic both ways on each "
            "congested link, HTTP ACKs every segment, AQMs' packet size 615 B",
            study,
            True,
        ),
        (
            f"offered load counted on the wire: headers, handshakes and ACKs too (rates / {scale:.3f})",
            wire,
            True,
        ),
        ("cross traffic one way only (one cloud per congested link)", calibrated(cross="fwd"), True),
        ("HTTP receivers delay ACKs (every 2nd segment)", calibrated(http_ack_every=2), True),
        (
            f"no calibration: the first estimate {DEFAULT_RATE:.2f} conn/s for every cloud",
            {**study, "e2e_rate": round(DEFAULT_RATE, 2), "cross_rate": round(DEFAULT_RATE, 2)},
            False,
        ),
        (
            "AQMs' byte-mode packet size ns-2's defaults (ARED and PI 500 B, REM 1000 B), not the paper's "
            "615 B average",
            {k: v for k, v in study.items() if k != "mean_pktsize"},
            True,
        ),
        (
            "AQM buffers of 200 full-size packets (300 KB) instead of ns-2's 200 × mean_pktsize bytes",
            {**study, "aqm_buffer_bytes": 200 * 1500},
            False,
        ),
        ("ARED without the gentle region", {**study, "ared_gentle": False}, False),
        # the calibration runs lose nothing, so a timer setting leaves their rates as they are
        (
            "every TCP's retransmission timer as in ns-2.27 (the paper's time): at least 1 s, 6 s before "
            "the first RTT sample, backed off without a 60-s cap",
            {**study, "min_rto": 1, "initial_rto": 6.0, "max_rto": 100000.0},
            True,
        ),
        (
            "every router queue runs the AQM in the all-AQM rows (not only the congested links')",
            {**study, "aqm_routers": "all"},
            False,
        ),
        (
            "HTTP connections recover as ns-2's one-way agent (not FullTcp's burst at the end of recovery)",
            {**study, "http_recovery": "one_way"},
            False,
        ),
    ]
    # The run length is no reading but moves the results as much as one: heavy-tailed responses make
    # the load of a longer run larger (docs/studies.md#w-calibration-and-run-length).
    paper_length = (
        f"the study reading at the paper's run length, {weigle2005.PAPER_PAIRS:,} pairs",
        study,
        True,
        weigle2005.PAPER_PAIRS,
    )
    return [(*row, pairs) for row in rows] + ([paper_length] if pairs != weigle2005.PAPER_PAIRS else [])


# The paper does not name its ns-2 release; PackMime-HTTP and DelayBox entered ns-2 in 2.30 (2006) from its
# first author, so it ran an earlier release with them added. The TCP defaults changed since (ns-2.35's
# tcl/lib/ns-default.tcl against 2.28's); aqmlab models 2.35's, so these rows run the twin alone.
RELEASES = [
    ("2.35", "ns-2.35's TCP defaults (the twin's and aqmlab's)"),
    (
        "2.28",
        "ns-2.28's (February 2005): maxrto_ 100000, rtxcur_init_ 6 s, integer window reductions, the "
        "old RTT variance, no CWR on retransmissions, no slow-start bug fix",
    ),
    ("2.27", "ns-2.27's (January 2004): as 2.28's, and minrto_ 1 s"),
]
RELEASE_CELLS = cmp.CELLS["1cl"]
RELEASE_METRICS = [
    ("goodput_kbps", "goodput kb/s"),
    ("ll_path_loss_pct", "long-lived loss %"),
    ("http_path_loss_pct", "HTTP loss %"),
    ("ll_timeouts", "long-lived timeouts"),
    ("rt_mean_ms", "mean response ms"),
]


def release_table(study: dict, seeds: list[int], jobs: int) -> list[str]:
    """The twin under the TCP defaults of ns-2's releases of the paper's time, at the paper's run length."""
    pairs = weigle2005.PAPER_PAIRS
    lines = [
        "",
        "## ns-2 alone: the TCP defaults of the releases of the paper's time",
        "",
        f"The twin with the study's reading, seeds {seeds[0]}..{seeds[-1]}, {pairs:,} pairs (the twin's "
        "`tcp_defaults`); aqmlab models ns-2.35's defaults, of which the row with ns-2.27's timers above "
        "varies the retransmission timer's three bounds in both simulators.",
        "",
        "| cell | TCP defaults | "
        + " | ".join(t for _, t in RELEASE_METRICS)
        + " | paper goodput / losses |",
        "|---|---|" + "---|" * len(RELEASE_METRICS) + "---|",
    ]
    caches = {}
    for release, _ in RELEASES:
        settings = study if release == "2.35" else {**study, "tcp_defaults": release}
        caches[release] = (settings, cmp.run_all(RELEASE_CELLS, seeds, pairs, settings, jobs, sims=("ns-2",)))
    for combo, queue in RELEASE_CELLS:
        paper = " / ".join(f"{v:g}" for v in weigle2005.PAPER[combo][queue])
        for release, _ in RELEASES:
            settings, cache = caches[release]
            runs = [cache[cmp.key("ns-2", combo, queue, s, pairs, settings)]["metrics"] for s in seeds]
            values = [
                cmp.fmt([r[m] for r in runs]) if all(m in r for r in runs) else "" for m, _ in RELEASE_METRICS
            ]
            lines.append(f"| {'-'.join(combo)} {queue} | {release} | " + " | ".join(values) + f" | {paper} |")
    lines += ["", *[f"- {release}: {text}" for release, text in RELEASES]]
    return lines


METRICS = [  # the paper's losses are its forward-path traffic's (weigle2005.forward_path_share)
    ("goodput_kbps", 0, "goodput kb/s"),
    ("ll_path_loss_pct", 1, "long-lived loss %"),
    ("http_path_loss_pct", 2, "HTTP loss %"),
]


def score(means: dict, cells) -> tuple[float, float]:
    """Distance to Table I over `cells`: mean |relative error| of goodput, and mean |log10 ratio| of the
    loss cells (losses span two decades, so their error is a factor; 0.01 % is added to both sides)."""
    gp, loss = [], []
    for combo, queue in cells:
        paper = weigle2005.PAPER[combo][queue]
        gp.append(abs(means[(combo, queue)]["goodput_kbps"] / paper[0] - 1))
        for metric, i, _ in METRICS[1:]:
            loss.append(abs(math.log10((means[(combo, queue)][metric] + 0.01) / (paper[i] + 0.01))))
    return statistics.fmean(gp), statistics.fmean(loss)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-ns2", action="store_true", help="aqmlab only (ns-2 cells from the cache if there)")
    ap.add_argument("--out", type=Path, default=cmp.RESULTS / "weigle2005_sensitivity.md")
    a = ap.parse_args()
    seeds = list(range(1, a.seeds + 1))
    rows, summary = [], []
    for label, settings, with_ns2, pairs in variants(a.jobs, a.pairs):
        sims = ("aqmlab", "ns-2") if with_ns2 and not a.no_ns2 else ("aqmlab",)
        cache = cmp.run_all(CELLS, seeds, pairs, settings, a.jobs, sims=("aqmlab",))
        if "ns-2" in sims:
            cache |= cmp.run_all(NS2_CELLS, seeds, pairs, settings, a.jobs, sims=("ns-2",))
        cache |= cmp.load_cache()
        means = {}
        for combo, queue in CELLS:
            for sim in ("aqmlab", "ns-2"):
                recs = [cache.get(cmp.key(sim, combo, queue, s, pairs, settings)) for s in seeds]
                if all(cmp.current(r) for r in recs):
                    runs = [r["metrics"] for r in recs]
                    means[(sim, combo, queue)] = {
                        m: statistics.fmean(r[m] for r in runs) for m, _, _ in METRICS
                    }
                    means[(sim, combo, queue)]["ci"] = {
                        m: cmp.fmt([r[m] for r in runs]) for m, _, _ in METRICS
                    }
        scores = {}
        for sim in ("aqmlab", "ns-2"):  # ns-2 only where it ran every cell
            if all((sim, c, q) in means for c, q in CELLS):
                scores[sim] = score({(c, q): means[(sim, c, q)] for c, q in CELLS}, CELLS)
        summary.append((label, scores, settings))
        rows.append((label, settings, means))
    lines = [
        "# Study W: which reading reproduces Table I",
        "",
        "<!-- generated by validation/weigle2005_sensitivity.py -->",
        f"Seeds 1..{a.seeds}, {a.pairs} forward pairs after the warm-up per run (the paper: 50,000) except "
        "where the variant says otherwise. Each variant changes one choice from the study's reading and is "
        "recalibrated where the change moves the offered load. Distance to Table I over DT 1CL, DT 3CL "
        "and each AQM on one congested link: goodput as mean |relative error|, forward-path losses as "
        "mean |log10 ratio| (0.3 = a factor of 2); ns-2's where the twin ran all five cells.",
        "",
        "| variant | e2e / cross rate (conn/s) | goodput error aqmlab | ns-2 | loss error aqmlab | ns-2 |",
        "|---|---|---|---|---|---|",
    ]
    for label, scores, s in summary:
        gp = [f"{100 * scores[sim][0]:.0f} %" if sim in scores else "" for sim in ("aqmlab", "ns-2")]
        loss = [f"{scores[sim][1]:.2f}" if sim in scores else "" for sim in ("aqmlab", "ns-2")]
        lines.append(
            f"| {label} | {s['e2e_rate']} / {s['cross_rate']} | {' | '.join(gp)} | {' | '.join(loss)} |"
        )
    for label, _, means in rows:
        lines += [
            "",
            f"### {label}",
            "",
            "| cell | " + " | ".join(t for _, _, t in METRICS) + " |",
            "|---|---|---|---|",
        ]
        for combo, queue in CELLS:
            paper = weigle2005.PAPER[combo][queue]
            cells = []
            for metric, i, _ in METRICS:
                parts = [f"aqmlab {means[('aqmlab', combo, queue)]['ci'][metric]}"]
                if ("ns-2", combo, queue) in means:
                    parts.append(f"ns-2 {means[('ns-2', combo, queue)]['ci'][metric]}")
                parts.append(f"paper {paper[i]:g}")
                cells.append("<br>".join(parts))
            lines.append(f"| {'-'.join(combo)} {queue} | " + " | ".join(cells) + " |")
    if not a.no_ns2:
        lines += release_table(summary[0][2], seeds, a.jobs)
    a.out.write_text("\n".join(lines) + "\n")
    print(a.out)


if __name__ == "__main__":
    main()
