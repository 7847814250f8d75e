"""Study W: Weigle, Vembar, Du — "Assessing the Impact of Multiple Active Queue Management Routers".

Table I (long-lived goodput, long-lived loss, HTTP loss for DT and ARED/PI/REM over 1-3 congested
links), the forward HTTP response-time CDFs with the uncongested reference, and the paper's findings.
"""

from __future__ import annotations

import json
import math
import statistics
from importlib.resources import files
from pathlib import Path

import pandas as pd
import tomli_w

from aqmlab.studies import plots
from aqmlab.studies.base import (
    Figure,
    Finding,
    RunOutcome,
    Study,
    StudyRun,
    Table,
    fmt_ci,
    fmt_effect,
    mean_ci,
    paired_effect,
    shows_effect,
)
from aqmlab.studies.weigle2005_topology import (
    AQM_QUEUES,
    CONGESTED,
    DEFAULT_RATE,
    ROUTERS,
    TABLE_ROWS,
    scenario,
)

AQMS = list(AQM_QUEUES)

# How aqmlab reads the paper's scenario where the text leaves a choice (evidence from both simulators in
# validation/results/weigle2005_sensitivity.md): clouds 2-7 are two cross-traffic clouds per congested link,
# one each way ("cross": "both"); the HTTP receivers ACK every segment, as ns-2's FullTcp does by
# default (segsperack_ 1); and the AQMs' byte-mode packet size is the paper's average packet, 615 B, which
# its "target queue of 20 packets results in a delaytarget setting for ARED of 10 ms" presumes
# (docs/studies.md#w-queues).
READING: dict[str, object] = {"cross": "both", "http_ack_every": 1, "mean_pktsize": 615}


def study_rates(calibration: dict) -> dict[str, float]:
    """The connection rates the study runs at, from a calibration (`calibrate`): the offered load counted as
    HTTP response payload (application bytes, the unit of the paper's PackMime response sizes) rather than
    on the wire, i.e. the wire-calibrated rates, rounded to 0.01 conn/s, times wire / payload load at the
    first estimate, rounded again (0.01 conn/s is the twin's input precision, so both simulators run the
    same rates). Evidence, in aqmlab and ns-2: validation/results/weigle2005_sensitivity.md."""
    scale = calibration["e2e_load_at_first_estimate_mbps"] / calibration["e2e_payload_at_first_estimate_mbps"]
    return {k: round(round(calibration[k], 2) * scale, 2) for k in ("e2e_rate", "cross_rate")}


# Table I of the paper: (goodput kb/s, long-lived loss %, HTTP loss %) per row and queue type.
PAPER: dict[tuple[str, ...], dict[str, tuple[float, float, float]]] = {
    ("DT",): {"DT": (1715, 1.67, 3.90)},
    ("AQM",): {"ARED": (1064, 5.78, 4.83), "PI": (1296, 0.02, 0.18), "REM": (1254, 0.02, 0.02)},
    ("DT", "DT"): {"DT": (1432, 2.15, 4.98)},
    ("DT", "AQM"): {"ARED": (1063, 4.51, 3.90), "PI": (1096, 0.38, 0.83), "REM": (1114, 0.32, 0.64)},
    ("AQM", "DT"): {"ARED": (900, 4.26, 4.10), "PI": (964, 0.52, 1.29), "REM": (984, 0.46, 1.10)},
    ("AQM", "AQM"): {"ARED": (955, 5.44, 4.37), "PI": (1103, 0.05, 0.23), "REM": (1095, 0.04, 0.03)},
    ("DT", "DT", "DT"): {"DT": (1280, 2.41, 5.67)},
    ("DT", "DT", "AQM"): {"ARED": (1051, 3.88, 4.41), "PI": (1089, 1.01, 2.11), "REM": (1091, 1.08, 2.12)},
    ("DT", "AQM", "DT"): {"ARED": (979, 3.87, 4.47), "PI": (1009, 0.81, 1.99), "REM": (990, 0.89, 2.26)},
    ("AQM", "DT", "DT"): {"ARED": (889, 4.69, 4.77), "PI": (1052, 0.60, 1.64), "REM": (1043, 0.61, 1.56)},
    ("AQM", "AQM", "DT"): {"ARED": (850, 5.68, 4.99), "PI": (994, 0.32, 0.98), "REM": (995, 0.34, 0.94)},
    ("AQM", "DT", "AQM"): {"ARED": (847, 5.97, 5.05), "PI": (1020, 0.30, 0.75), "REM": (1017, 0.26, 0.47)},
    ("DT", "AQM", "AQM"): {"ARED": (884, 5.33, 4.70), "PI": (961, 0.51, 1.15), "REM": (983, 0.48, 0.97)},
    ("AQM", "AQM", "AQM"): {"ARED": (800, 6.98, 5.48), "PI": (985, 0.08, 0.30), "REM": (1003, 0.04, 0.04)},
}


def configurations() -> list[tuple[tuple[str, ...], str]]:
    """(combo, queue type) of every simulated cell: the DT rows, each AQM row with each AQM, and the
    uncongested reference (no cross traffic)."""
    cells: list[tuple[tuple[str, ...], str]] = [((), "none")]
    for combo in TABLE_ROWS:
        cells += [(combo, "DT")] if "AQM" not in combo else [(combo, a) for a in AQMS]
    return cells


# The paper's run length: forward end-to-end pairs completed after the warm-up (§III-D).
PAPER_PAIRS = 50_000


def runs(quick: bool, seeds: int, calibration: dict | None = None) -> list[StudyRun]:
    pairs = 2_000 if quick else PAPER_PAIRS
    rates = (
        study_rates(calibration) if calibration else {"e2e_rate": DEFAULT_RATE, "cross_rate": DEFAULT_RATE}
    )
    specs = []
    for combo, queue in configurations():
        aqm = None if queue in ("DT", "none") else queue
        sc = scenario(
            combo, aqm, e2e_rate=rates["e2e_rate"], cross_rate=rates["cross_rate"], pairs=pairs, **READING
        )
        text = tomli_w.dumps(sc)
        for seed in range(1, seeds + 1):
            labels = (("row", "-".join(combo) or "uncongested"), ("queue", queue))
            specs.append(StudyRun(labels=labels, scenario=text, seed=seed))
    return specs


def calibrate(quick: bool, execute, reading: dict | None = None) -> dict:
    """The paper's calibration (section III-C): end-to-end HTTP rates giving 3.5 Mb/s of HTTP offered
    load each way with the long-lived flows running and no loss at R0/R7; cross-traffic rates giving
    3.5 Mb/s of forward cross traffic per congested link with the router links widened to 100 Mb/s.
    Offered load is linear in the connection rate (docs/load-and-metrics.md#calibration): runs at the
    first-estimate rate give the slope k, and the rate is target / k. PackMime's response sizes are
    heavy-tailed, so one 1200-s run misses its mean by up to 10 %: the full calibration averages the load
    over three seeds.
    `execute(specs)` runs specs and returns their outcomes; `reading` replaces READING (sensitivity runs).
    Also returned: the loads at the first estimate, and the end-to-end response payload (application
    bytes, no headers, SYNs or ACKs), for calibrating on another definition of offered load."""
    reading = READING if reading is None else reading
    target = 3.5e6
    duration = 300.0 if quick else 1200.0
    seeds = [1] if quick else [1, 2, 3]
    e2e = tomli_w.dumps(scenario((), None, pairs=10**9, max_duration=duration, **reading))
    cross = tomli_w.dumps(
        scenario(
            ("DT", "DT", "DT"), None, pairs=10**9, max_duration=duration, router_rate="100Mbps", **reading
        )
    )
    specs = [
        StudyRun(labels=(("calibration", name),), scenario=text, seed=seed)
        for seed in seeds
        for name, text in (("e2e", e2e), ("cross", cross))
    ]
    outcomes = execute(specs)
    window = duration - 60.0

    def class_bits(o: RunOutcome, link: str, cls: str) -> float:
        lc = o.table("link_classes")
        row = lc[(lc["link"] == link) & (lc["class"] == cls)]
        return 8 * float(row["departure_bytes"].sum()) / window

    e2e_runs = [o for o in outcomes if o.spec.label("calibration") == "e2e"]
    cross_runs = [o for o in outcomes if o.spec.label("calibration") == "cross"]
    # HTTP offered load each way: the end-to-end classes' bytes on the first router link. Cross traffic: the
    # cross class's bytes on each congested link in the forward direction (with "both", the reverse cloud's
    # requests and ACKs count too: they are forward-path cross traffic).
    e2e_load = sum(
        class_bits(o, "R0->R1", "http_fwd") + class_bits(o, "R7->R6", "http_rev") for o in e2e_runs
    )
    e2e_load /= 2 * len(e2e_runs)
    cross_load = sum(class_bits(o, f"{a}->{b}", "cross") for o in cross_runs for a, b in CONGESTED)
    cross_load /= len(CONGESTED) * len(cross_runs)
    payload = 0.0
    for o in e2e_runs:
        resp = o.table("responses").set_index("class")
        payload += 8 * float(resp.loc[["http_fwd", "http_rev"], "response_bytes"].sum()) / window
    payload /= 2 * len(e2e_runs)
    return {
        "e2e_rate": DEFAULT_RATE * target / e2e_load,
        "cross_rate": DEFAULT_RATE * target / cross_load,
        "e2e_load_at_first_estimate_mbps": e2e_load / 1e6,
        "cross_load_at_first_estimate_mbps": cross_load / 1e6,
        "e2e_payload_at_first_estimate_mbps": payload / 1e6,
    }


def calibrate_study(quick: bool, execute) -> dict:
    """`calibrate` on the study's reading, with the rates the runs use (`study_rates`) beside the wire
    rates, so that the report shows both."""
    cal = calibrate(quick, execute)
    run = study_rates(cal)
    return {**cal, "run_e2e_rate": run["e2e_rate"], "run_cross_rate": run["cross_rate"]}


# The forward classes' source and receiver hosts (name prefixes; sources at R0, receivers at R7).
FORWARD_HOSTS = {"ll_fwd": ("ll0src", "ll0sink"), "http_fwd": ("web1s", "web1c")}


def _router_index(node: str) -> int | None:
    return ROUTERS.index(node) if node in ROUTERS else None


def forward_path_share(link_classes: pd.DataFrame, cls: str, counter: str = "drops") -> float:
    """Share (%) of the packets class `cls` sends on its forward path — long-lived data, HTTP responses —
    that the forward path's queues dropped (`counter` "drops": the paper's "loss ... for end-to-end
    forward-path traffic", §III-D) or marked CE ("marks"): the counter summed over the sources' uplinks,
    the router hops towards R7 and the receivers' downlinks, over the packets the sources sent. The
    class's packets the other way (ACKs, requests) are left out, as the paper's definition does; the
    class's own `loss_rate` counts both ways. NaN if the class sent nothing."""
    source, receiver = FORWARD_HOSTS[cls]
    rows = link_classes[link_classes["class"] == cls]

    def forward(link: str) -> bool:
        frm, to = link.split("->", 1)
        i, j = _router_index(frm), _router_index(to)
        towards_r7 = i is not None and j is not None and j > i
        return frm.startswith(source) or towards_r7 or (frm == ROUTERS[-1] and to.startswith(receiver))

    uplink = rows["link"].str.startswith(source)
    sent = rows.loc[uplink, "arrivals"].sum()
    on_path = rows["link"].map(forward).astype(bool)
    return 100 * rows.loc[on_path, counter].sum() / sent if sent else float("nan")


def _metrics(o: RunOutcome) -> dict[str, float]:
    flows = o.table("flows")
    classes = o.table("classes").set_index("class")
    link_classes = o.table("link_classes")
    goodput = flows.loc[flows["group"] == "ll_fwd", "goodput_bps"].sum() / 1e3
    resp = o.table("responses").set_index("class")
    return {
        "goodput": goodput,
        "ll_loss": forward_path_share(link_classes, "ll_fwd"),
        "http_loss": forward_path_share(link_classes, "http_fwd"),
        "ll_marked": forward_path_share(link_classes, "ll_fwd", "marks"),
        # the part of each loss that is buffer overflow (the rest: early drops, and with ECN the packets
        # that cannot be marked: SYN-ACKs, FINs, pure ACKs)
        "ll_loss_overflow": forward_path_share(link_classes, "ll_fwd", "drops_overflow"),
        "http_loss_overflow": forward_path_share(link_classes, "http_fwd", "drops_overflow"),
        "ll_loss_both_ways": 100 * classes["loss_rate"].get("ll_fwd", float("nan")),
        "http_loss_both_ways": 100 * classes.loc["http_fwd", "loss_rate"],
        "rt_median": resp.loc["http_fwd", "p50_s"],
        "rt_mean": resp.loc["http_fwd", "mean_s"],
    }


def summarize(outcomes: list[RunOutcome]) -> pd.DataFrame:
    """One row per run with its labels and metrics."""
    rows = [{**dict(o.spec.labels), "seed": o.spec.seed, **_metrics(o)} for o in outcomes]
    return pd.DataFrame(rows)


def _cell(df: pd.DataFrame, row: str, queue: str, metric: str) -> tuple[float, float]:
    sel = df[(df["row"] == row) & (df["queue"] == queue)][metric]
    return mean_ci(sel.tolist())


# ns-2.35 beside aqmlab: the twin's runs (validation/ns2/weigle2005.tcl) as validation/compare_weigle2005.py
# last wrote them — per cell, each seed's goodput and losses, with the settings and run length used.
NS2_RESULTS = files(__package__) / "weigle2005_ns2.json"


def ns2_results() -> dict:
    return json.loads(NS2_RESULTS.read_text(encoding="utf-8")) if NS2_RESULTS.is_file() else {"cells": {}}


def ns2_frame() -> pd.DataFrame:
    """The twin's runs in summarize()'s layout (row, queue, seed and the metrics it has), so that the
    findings run the same checks on them."""
    ns2 = ns2_results()
    rows = []
    for cell, metrics in ns2["cells"].items():
        row, queue = cell.rsplit(" ", 1)
        values = {k: v for k, v in metrics.items() if k != "seeds"}
        for i, seed in enumerate(metrics["seeds"]):
            rows.append({"row": row, "queue": queue, "seed": seed, **{k: v[i] for k, v in values.items()}})
    return pd.DataFrame(rows)


def tables(outcomes: list[RunOutcome]) -> list[Table]:
    df = summarize(outcomes)
    ns2 = ns2_results()
    out = []
    for metric, title, digits, k in [
        ("goodput", "Table I (a): long-lived goodput (kb/s)", 0, 0),
        ("ll_loss", "Table I (b): long-lived loss (%)", 2, 1),
        ("http_loss", "Table I (c): HTTP loss (%)", 2, 2),
    ]:
        rows = []
        for combo in TABLE_ROWS:
            r = {
                "R1-R2": combo[0],
                "R3-R4": combo[1] if len(combo) > 1 else "-",
                "R5-R6": combo[2] if len(combo) > 2 else "-",
            }
            for q in ["DT", *AQMS]:
                paper = PAPER[combo].get(q)
                twin = ns2["cells"].get(f"{'-'.join(combo)} {q}")
                r[f"{q} aqmlab"] = (
                    "" if paper is None else fmt_ci(*_cell(df, "-".join(combo), q, metric), digits)
                )
                run = (twin or {}).get(metric)
                r[f"{q} ns-2"] = "" if run is None else fmt_ci(*mean_ci(run), digits=digits)
                r[f"{q} paper"] = "" if paper is None else f"{paper[k]:.{digits}f}"
            rows.append(r)
        note = ""
        if ns2["cells"]:
            counts = sorted({len(c["seeds"]) for c in ns2["cells"].values()})
            seeds = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
            note = (
                f"ns-2: the ns-2.35 twin, {seeds} seeds "
                f"per cell of {ns2['pairs']} forward pairs each (aqmlab here: as this report's runs), "
                f"settings {ns2['settings']}; blank where not run."
            )
        out.append(Table(title, pd.DataFrame(rows), note=note))
    out.append(_agreement_table(df))
    rt_rows = []
    for combo in TABLE_ROWS:
        r = {"row": "-".join(combo)}
        for q in ["DT", *AQMS]:
            if q in PAPER[combo]:
                r[f"{q} median ms"] = fmt_ci(
                    *(1e3 * v for v in _cell(df, "-".join(combo), q, "rt_median")), digits=0
                )
        rt_rows.append(r)
    unc = _cell(df, "uncongested", "none", "rt_median")
    out.append(
        Table(
            "Forward HTTP response time, median (ms) — the paper shows CDFs (figures below)",
            pd.DataFrame(rt_rows).fillna(""),
            note=f"Uncongested reference: {fmt_ci(unc[0] * 1e3, unc[1] * 1e3, 0)} ms.",
        )
    )
    return out


# Table I's columns (index into PAPER's tuples) and how close a cell must come to the paper.
TABLE_I = {"goodput": 0, "ll_loss": 1, "http_loss": 2}
WITHIN = 0.15
# Two cells of a Table I row (or the drop-tail rows) count as ordered by the paper when their losses
# differ by at least this factor.
ORDER_RATIO = 1.5


def _paper_cells() -> list[tuple[tuple[str, ...], str]]:
    return [(c, q) for c in TABLE_ROWS for q in PAPER[c]]


def _closeness(df: pd.DataFrame, metric: str) -> tuple[int, int, int]:
    """Cells within WITHIN of the paper, cells whose 95% interval holds the paper's value, cells run."""
    near = inside = n = 0
    for c, q in _paper_cells():
        if not _has(df, c, q, metric):
            continue
        m, h = mean_ci(_by_seed(df, c, q, metric).values())
        paper = PAPER[c][q][TABLE_I[metric]]
        n += 1
        near += abs(m - paper) <= WITHIN * paper
        inside += h == h and abs(m - paper) <= h
    return near, inside, n


def _orderings(df: pd.DataFrame, metric: str) -> tuple[int, int, int, int]:
    """The pairs of cells the paper orders by `metric` (ratio ≥ ORDER_RATIO): the ARED/PI/REM cells of each
    AQM row and the drop-tail rows over 1-3 links. Returns how many the runs order the same way with
    the paired 95% interval excluding zero, with the means only, the other way with the interval, and
    the pairs compared."""
    k = TABLE_I[metric]
    pairs = [((c, a), (c, b)) for c in AQM_ROWS for i, a in enumerate(AQMS) for b in AQMS[i + 1 :]]
    pairs += [((a, "DT"), (b, "DT")) for i, a in enumerate(DT_ROWS) for b in DT_ROWS[i + 1 :]]
    held = same = reversed_ = n = 0
    for x, y in pairs:
        px, py = PAPER[x[0]][x[1]][k], PAPER[y[0]][y[1]][k]
        if min(px, py) <= 0 or max(px, py) / min(px, py) < ORDER_RATIO:
            continue
        if not (_has(df, *x, metric) and _has(df, *y, metric)):
            continue
        lo, hi = (x, y) if px < py else (y, x)
        m, h, _ = _effect(df, lo, hi, metric)  # the paper's larger minus its smaller
        n += 1
        held += shows_effect(m, h)
        same += m > 0
        reversed_ += shows_effect(-m, h)
    return held, same, reversed_, n


def _dt_goodput_steps(df: pd.DataFrame) -> str:
    """Drop-tail's goodput change from one congested link to two and from two to three, paired by seed."""
    steps = []
    for a, b in zip(DT_ROWS, DT_ROWS[1:], strict=False):
        if _has(df, a, "DT") and _has(df, b, "DT"):
            m, h, _ = _effect(df, (a, "DT"), (b, "DT"), "goodput")
            shown = "" if shows_effect(-m, h) else " (not shown)"
            steps.append(f"{len(a)}→{len(b)}: {fmt_effect(m, h, 'kb/s')}{shown}")
    return "; ".join(steps)


def _agreement_table(df: pd.DataFrame) -> Table:
    """Table I cell by cell against the paper, for aqmlab's runs and the ns-2 twin's."""
    twin = ns2_frame()
    sims = {"aqmlab": df}
    if not twin.empty:  # aqmlab again on the cells the twin ran, for a like-for-like count
        ran = set(zip(twin["row"], twin["queue"], strict=True))
        sims["aqmlab, the twin's cells"] = df[[rq in ran for rq in zip(df["row"], df["queue"], strict=True)]]
        sims["ns-2"] = twin
    names = {"goodput": "long-lived goodput", "ll_loss": "long-lived loss", "http_loss": "HTTP loss"}
    rows = []
    for metric, name in names.items():
        close = {sim: _closeness(d, metric) for sim, d in sims.items()}
        rows.append(
            {"check": f"{name}: cells within {WITHIN:.0%} of the paper"}
            | {sim: f"{c[0]} of {c[2]}" for sim, c in close.items()}
        )
        rows.append(
            {"check": f"{name}: cells whose 95% interval holds the paper's value"}
            | {sim: f"{c[1]} of {c[2]}" for sim, c in close.items()}
        )
        if metric == "goodput":
            rows.append(
                {"check": "long-lived goodput: drop-tail's falls with each congested link (paired)"}
                | {sim: _dt_goodput_steps(d) for sim, d in sims.items()}
            )
            continue
        order = {sim: _orderings(d, metric) for sim, d in sims.items()}
        rows.append(
            {"check": f"{name}: pairs the paper orders, same order (interval / means) and reversed"}
            | {sim: f"{o[0]} / {o[1]} of {o[3]}, {o[2]} reversed" for sim, o in order.items()}
        )
    return Table(
        "Table I beside the paper, cell by cell",
        pd.DataFrame(rows),
        note=(
            "Pairs the paper orders: two cells of one Table I row (ARED, PI, REM) or two drop-tail rows "
            f"whose paper values differ by a factor of {ORDER_RATIO:g} or more; same order with the "
            "interval: the paired difference over seeds has its 95% interval on the paper's side of zero. "
            "ns-2: the cells the twin ran; beside it aqmlab on the same cells."
        ),
    )


def _by_seed(df: pd.DataFrame, combo: tuple[str, ...], queue: str, metric: str) -> dict[int, float]:
    sel = df[(df["row"] == "-".join(combo)) & (df["queue"] == queue)]
    return dict(zip(sel["seed"], sel[metric], strict=True)) if metric in sel else {}


def _has(df: pd.DataFrame, combo: tuple[str, ...], queue: str, metric: str = "goodput") -> bool:
    return any(v == v for v in _by_seed(df, combo, queue, metric).values())


def _effect(df, a: tuple[tuple[str, ...], str], b: tuple[tuple[str, ...], str], metric: str, scale=1.0):
    """Paired effect of configuration b over a on `metric` (times `scale`): (mean, half-width, seeds)."""
    m, h, n = paired_effect(_by_seed(df, *a, metric), _by_seed(df, *b, metric))
    return m * scale, h * scale, n


AQM_ROWS = [c for c in TABLE_ROWS if "AQM" in c]
DT_ROWS = [c for c in TABLE_ROWS if "AQM" not in c]

# Each finding's check takes the runs (summarize()'s layout) and returns (reproduced, evidence), or None
# when the runs lack a cell it needs (the ns-2 twin runs only some cells).


def _dt_highest(df: pd.DataFrame) -> tuple[bool, str] | None:
    """DT over the best AQM configuration with as many congested links."""
    ok, ev = True, []
    for n in (1, 2, 3):
        dt = (("DT",) * n, "DT")
        candidates = [(c, q) for c in AQM_ROWS if len(c) == n for q in AQMS if _has(df, c, q)]
        if not candidates or not _has(df, *dt):
            continue
        best = max(candidates, key=lambda cq: mean_ci(_by_seed(df, *cq, "goodput").values())[0])
        m, h, _ = _effect(df, best, dt, "goodput")
        ok &= shows_effect(m, h)
        ev.append(f"{n}CL: DT − best AQM ({'-'.join(best[0])} {best[1]}) {fmt_effect(m, h, 'kb/s')}")
    return (ok, "; ".join(ev)) if ev else None


def _ared_lowest(df: pd.DataFrame) -> tuple[bool, str] | None:
    """ARED below the lower of PI and REM in (all but one in ten of) the AQM rows."""
    rows = [c for c in AQM_ROWS if all(_has(df, c, q) for q in AQMS)]
    if not rows:
        return None
    shown = positive = 0
    for c in rows:
        other = min(("PI", "REM"), key=lambda q: mean_ci(_by_seed(df, c, q, "goodput").values())[0])
        m, h, _ = _effect(df, (c, "ARED"), (c, other), "goodput")
        positive += m > 0
        shown += shows_effect(m, h)
    need = len(rows) - len(rows) // 10
    return (
        shown >= need,
        f"lower of PI/REM − ARED > 0 in {positive} of {len(rows)} AQM rows, with its 95% interval above zero "
        f"in {shown} (reproduced: at least {need})" + _congestion_signals(df, rows),
    )


def _congestion_signals(df: pd.DataFrame, rows: list[tuple[str, ...]]) -> str:
    """Why the AQMs' goodputs order as they do: the share of forward long-lived packets each AQM marks or
    drops (its congestion signals), averaged over the rows with one AQM link that have it, and the
    ARED/PI goodput ratio the Mathis law (goodput ∝ 1/√p) predicts from them beside the measured one.
    One AQM link: there a packet is marked at most once, so aqmlab's marks and the twin's CE-marked
    deliveries count the same thing (with two, aqmlab also counts a CE packet marked again)."""
    rows = [c for c in rows if c.count("AQM") == 1 and all(_has(df, c, q, "ll_marked") for q in AQMS)]
    if not rows:
        return ""

    def mean_over_rows(q: str, metric: str) -> float:
        return statistics.fmean(mean_ci(_by_seed(df, c, q, metric).values())[0] for c in rows)

    signals = {q: mean_over_rows(q, "ll_marked") + mean_over_rows(q, "ll_loss") for q in AQMS}
    goodput = {q: mean_over_rows(q, "goodput") for q in AQMS}
    return (
        f"; long-lived packets marked or dropped, mean over the {len(rows)} rows with one AQM link: "
        + ", ".join(f"{q} {signals[q]:.1f} %" for q in AQMS)
        + f"; ARED/PI goodput {goodput['ARED'] / goodput['PI']:.2f}, by the Mathis law "
        f"√(p_PI/p_ARED) = {math.sqrt(signals['PI'] / signals['ARED']):.2f}"
    )


def _pi_rem_lossless(df: pd.DataFrame) -> tuple[bool, str] | None:
    """Every loss of PI and REM in the all-AQM rows below 0.5 %, upper 95% bound included; for the worst
    cell, the part of its loss that is buffer overflow (PI and REM mark every ECN-capable packet they
    select, so the rest is packets that cannot be marked)."""
    worst, worst_at, worst_cell = -1.0, "", None
    for c in (c for c in AQM_ROWS if "DT" not in c):
        for q in ("PI", "REM"):
            for metric in ("ll_loss", "http_loss"):
                if not _has(df, c, q, metric):
                    continue
                m, h = mean_ci(_by_seed(df, c, q, metric).values())
                upper = m + h if h == h else math.inf  # one seed: no bound, nothing established
                if upper > worst:
                    worst, worst_cell = upper, (c, q, metric)
                    worst_at = f"{'-'.join(c)} {q} {metric.replace('_', ' ')} {fmt_ci(m, h, 2)} %"
    if worst_cell is None:
        return None
    c, q, metric = worst_cell
    if _has(df, c, q, f"{metric}_overflow"):
        overflow = mean_ci(_by_seed(df, c, q, f"{metric}_overflow").values())[0]
        worst_at += f", of which buffer overflow {overflow:.2f} %"
    bound = f"highest upper 95% bound of loss in all-AQM rows with PI/REM: {worst:.2f} % "
    return worst < 0.5, (bound if worst < math.inf else "no 95% bound with one seed ") + (
        f"({worst_at}); reproduced below 0.5 %"
    )


def _rt_falls_per_aqm_router(df: pd.DataFrame) -> tuple[bool, str] | None:
    """On three congested links, the mean response time over the rows with k AQM routers falls with k."""
    by_k: dict[int, list[tuple[tuple[str, ...], str]]] = {k: [] for k in range(4)}
    for c in (c for c in TABLE_ROWS if len(c) == 3):
        k = c.count("AQM")
        by_k[k] += [(c, q) for q in (["DT"] if k == 0 else ["PI", "REM"])]
    if not all(_has(df, c, q, "rt_mean") for cells in by_k.values() for c, q in cells):
        return None

    def per_seed(k: int) -> dict[int, float]:
        values: dict[int, list[float]] = {}
        for c, q in by_k[k]:
            for seed, v in _by_seed(df, c, q, "rt_mean").items():
                values.setdefault(seed, []).append(v)
        return {seed: sum(v) / len(v) for seed, v in values.items()}

    steps = [paired_effect(per_seed(k + 1), per_seed(k)) for k in range(3)]
    return all(
        shows_effect(m, h) for m, h, _ in steps
    ), "3CL mean response time saved by one more AQM router: " + (
        ", ".join(f"{k}→{k + 1}: {fmt_effect(1e3 * m, 1e3 * h, 'ms')}" for k, (m, h, _) in enumerate(steps))
    )


def _dt_rem_beats_rem_dt(df: pd.DataFrame) -> tuple[bool, str] | None:
    """REM-DT − DT-REM positive on mean response time and on HTTP loss."""
    a, b = (("DT", "AQM"), "REM"), (("AQM", "DT"), "REM")
    if not all(_has(df, *cell, metric) for cell in (a, b) for metric in ("rt_mean", "http_loss")):
        return None
    rt_m, rt_h, _ = _effect(df, a, b, "rt_mean", 1e3)
    loss_m, loss_h, _ = _effect(df, a, b, "http_loss")
    return (
        shows_effect(rt_m, rt_h) and shows_effect(loss_m, loss_h),
        f"REM-DT − DT-REM: mean response {fmt_effect(rt_m, rt_h, 'ms')}, "
        f"HTTP loss {fmt_effect(loss_m, loss_h, 'points', 2)}",
    )


FINDINGS = [
    ("Drop-tail gives the highest long-lived goodput.", _dt_highest),
    ("Configurations with ARED give the lowest long-lived goodput of the three AQMs.", _ared_lowest),
    ("With ECN, PI and REM lose almost nothing when every congested link runs them.", _pi_rem_lossless),
    (
        "HTTP response times improve with each AQM router (PI, REM), most with one per congested link.",
        _rt_falls_per_aqm_router,
    ),
    ("DT-REM beats REM-DT on HTTP response time, with less HTTP loss.", _dt_rem_beats_rem_dt),
]


def findings(outcomes: list[RunOutcome]) -> list[Finding]:
    """The paper's five findings, each as an effect paired by seed with its 95% interval: a finding is
    reproduced only where the interval excludes zero, never on a bare difference of two means. The same
    checks run on the ns-2 twin's cells (NS2_RESULTS): a miss ns-2 shares is told from aqmlab's own."""
    df, twin = summarize(outcomes), ns2_frame()
    res = []
    for claim, check in FINDINGS:
        ok, evidence = check(df) or (False, "the runs lack the cells this check needs")
        ref = check(twin) if not twin.empty else None
        res.append(
            Finding(
                claim,
                ok,
                evidence,
                reference=""
                if ref is None
                else f"ns-2.35 twin, same check on its cells: "
                f"{'reproduced' if ref[0] else 'NOT reproduced'} — {ref[1]}",
                reference_reproduced=None if ref is None else ref[0],
            )
        )
    return res


def figures(outcomes: list[RunOutcome], out: Path) -> list[Figure]:
    figs = []
    unc = [o for o in outcomes if o.spec.label("row") == "uncongested"]
    for n in (1, 2, 3):
        for aqm in AQMS:
            curves = {"Uncongested": unc}
            for combo in TABLE_ROWS:
                if len(combo) != n:
                    continue
                q = "DT" if "AQM" not in combo else aqm
                name = "-".join(q if c == "AQM" else "DT" for c in combo)
                curves[name] = [
                    o
                    for o in outcomes
                    if o.spec.label("row") == "-".join(combo) and o.spec.label("queue") == q
                ]
            stem = f"cdf_{n}cl_{aqm.lower()}"
            plots.response_cdf(curves, "http_fwd", out / stem, f"{n} congested link(s), {aqm}: forward HTTP")
            figs.append(Figure(f"Response-time CDF, {n}CL, {aqm}", stem, "Forward end-to-end HTTP, 0–2 s."))
    return figs


STUDY = Study(
    name="weigle2005",
    title="Weigle, Vembar, Du — Assessing the Impact of Multiple AQM Routers (reproduced with aqmlab)",
    citation="M. C. Weigle, D. Vembar, Z. Du, ns-2 study of ARED, PI and REM with ECN over 1-3 congested "
    "links.",
    runs=runs,
    tables=tables,
    findings=findings,
    figures=figures,
    calibrate=calibrate_study,
    notes=[
        "Offered load is counted as HTTP response payload: the runs' rates (run_e2e_rate, run_cross_rate "
        "above) are the wire-calibrated ones times wire / payload load (weigle2005.study_rates; the "
        "sensitivity table compares both definitions in aqmlab and ns-2).",
        "The interior clouds 2..7 are read as two PackMime cross-traffic clouds per congested link, one each "
        "way (the paper's figure is not in the text extraction; with one forward cloud per link the total "
        "forward load is 91 % and drop-tail loses half of the paper's 1.67 % — validation/results/"
        "weigle2005_sensitivity.md compares the readings in aqmlab and ns-2).",
        "HTTP connections behave as ns-2's FullTcp/Newreno (PackMime's agent): Nagle, an ACK per segment, "
        "FullTcp's fast recovery, no Limited Transmit; long-lived flows as the one-way Agent/TCP/Newreno "
        "with a DelAck sink. ECN responses as ns-2.35's.",
        "The AQMs measure their queues and scale their marking in units of the paper's average packet, "
        "615 B (ns-2's mean_pktsize_, whose defaults are 500 B for ARED and PI and 1000 B for REM): the "
        "target of 20 packets is then 12.3 KB for all three, as the paper's ARED delay target of 10 ms for "
        "20 packets presumes, and the 200-packet buffers hold 123 KB. With ns-2's defaults instead, "
        "ARED's long-lived losses fall further below the paper's in aqmlab and ns-2 alike "
        "(validation/results/weigle2005_sensitivity.md).",
        "ns-2 columns: the ns-2.35 twin of this scenario (validation/ns2/weigle2005.tcl) with the same "
        "rates, run by validation/compare_weigle2005.py; its run length is given under each table.",
        "Findings are effects paired by seed (the configurations share their traffic draws) with their 95 % "
        "intervals; an interval that includes zero, or a single seed, reproduces nothing.",
        "Losses are those of the forward-path traffic, as the paper defines them (§III-D): the share of the "
        "packets the forward long-lived sources (data) and HTTP servers (responses) send that is dropped on "
        "the way to their receivers (weigle2005.forward_path_share). Counting both directions of each "
        "class (ACKs and requests too) doubles drop-tail's long-lived loss and halves ARED's; "
        "validation/results/compare_weigle2005.md gives both definitions in both simulators.",
        "--quick stops after 2,000 forward pairs instead of the paper's 50,000.",
    ],
    full_runtime="315 s of wall time on 2 cores (--jobs 2; 3 seeds x 37 configurations + 6 calibration "
    "runs), 249 MB peak, measured end to end with /usr/bin/time -v on 2026-11-25",
)
