"""Study W: Weigle, Vembar, Du — "Assessing the Impact of Multiple Active Queue Management Routers".

Table I (long-lived goodput, long-lived loss, HTTP loss for DT and ARED/PI/REM over 1-3 congested
links), the forward HTTP response-time CDFs with the uncongested reference, and the paper's findings.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import tomli_w

from aqmlab.studies import plots
from aqmlab.studies.base import Figure, Finding, RunOutcome, RunSpec, Study, Table, fmt_ci, mean_ci
from aqmlab.studies.weigle2005_topology import AQM_QUEUES, CONGESTED, DEFAULT_RATE, TABLE_ROWS, scenario

AQMS = list(AQM_QUEUES)

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


def runs(quick: bool, seeds: int, calibration: dict | None = None) -> list[RunSpec]:
    pairs = 2_000 if quick else 50_000
    rates = calibration or {"e2e_rate": DEFAULT_RATE, "cross_rate": DEFAULT_RATE}
    specs = []
    for combo, queue in configurations():
        aqm = None if queue in ("DT", "none") else queue
        sc = scenario(combo, aqm, e2e_rate=rates["e2e_rate"], cross_rate=rates["cross_rate"], pairs=pairs)
        text = tomli_w.dumps(sc)
        for seed in range(1, seeds + 1):
            labels = (("row", "-".join(combo) or "uncongested"), ("queue", queue))
            specs.append(RunSpec(labels=labels, scenario=text, seed=seed))
    return specs


def calibrate(quick: bool, execute) -> dict:
    """The paper's calibration (section III-C): end-to-end HTTP rates giving 3.5 Mb/s of HTTP offered
    load each way with the long-lived flows running and no loss at R0/R7; cross-traffic rates giving
    3.5 Mb/s of forward cross traffic per congested link with the router links widened to 100 Mb/s.
    Offered load is linear in the connection rate (reference §13.2): one run at the first-estimate
    rate gives the slope k, and the rate is target / k. `execute(specs)` runs specs, returns outcomes."""
    target = 3.5e6
    duration = 300.0 if quick else 1200.0
    e2e = scenario((), None, pairs=10**9, max_duration=duration)
    cross = scenario(("DT", "DT", "DT"), None, pairs=10**9, max_duration=duration, router_rate="100Mbps")
    specs = [
        RunSpec(labels=(("calibration", "e2e"),), scenario=tomli_w.dumps(e2e), seed=1),
        RunSpec(labels=(("calibration", "cross"),), scenario=tomli_w.dumps(cross), seed=1),
    ]
    e2e_out, cross_out = execute(specs)
    window = duration - 60.0

    def class_bits(o: RunOutcome, link: str, cls: str) -> float:
        lc = o.table("link_classes")
        row = lc[(lc["link"] == link) & (lc["class"] == cls)]
        return 8 * float(row["departure_bytes"].sum()) / window

    # HTTP offered load each way: the end-to-end classes' bytes on the first router link.
    e2e_load = (class_bits(e2e_out, "R0->R1", "http_fwd") + class_bits(e2e_out, "R7->R6", "http_rev")) / 2
    cross_load = sum(class_bits(cross_out, f"{a}->{b}", "cross") for a, b in CONGESTED) / 3
    return {
        "e2e_rate": DEFAULT_RATE * target / e2e_load,
        "cross_rate": DEFAULT_RATE * target / cross_load,
        "e2e_load_at_first_estimate_mbps": e2e_load / 1e6,
        "cross_load_at_first_estimate_mbps": cross_load / 1e6,
    }


def _metrics(o: RunOutcome) -> dict[str, float]:
    flows = o.table("flows")
    classes = o.table("classes").set_index("class")
    goodput = flows.loc[flows["group"] == "ll_fwd", "goodput_bps"].sum() / 1e3
    ll_loss = 100 * classes.loc["ll_fwd", "loss_rate"] if "ll_fwd" in classes.index else float("nan")
    http_loss = 100 * classes.loc["http_fwd", "loss_rate"]
    resp = o.table("responses").set_index("class")
    return {
        "goodput": goodput,
        "ll_loss": ll_loss,
        "http_loss": http_loss,
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


def tables(outcomes: list[RunOutcome]) -> list[Table]:
    df = summarize(outcomes)
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
                if paper is None:
                    r[f"{q} sim"], r[f"{q} paper"] = "", ""
                    continue
                r[f"{q} sim"] = fmt_ci(*_cell(df, "-".join(combo), q, metric), digits=digits)
                r[f"{q} paper"] = f"{paper[k]:.{digits}f}"
            rows.append(r)
        out.append(Table(title, pd.DataFrame(rows)))
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


def findings(outcomes: list[RunOutcome]) -> list[Finding]:
    df = summarize(outcomes)
    mean = df.groupby(["row", "queue"])[["goodput", "ll_loss", "http_loss", "rt_median", "rt_mean"]].mean()

    def m(row: tuple[str, ...], q: str, metric: str) -> float:
        key = ("-".join(row), q)
        return float(mean.loc[key, metric]) if key in mean.index else float("nan")

    res = []
    aqm_rows = [c for c in TABLE_ROWS if "AQM" in c]
    # 1. DT gives the highest long-lived goodput (per number of congested links).
    ok, ev = True, []
    for n in (1, 2, 3):
        dt = m(("DT",) * n, "DT", "goodput")
        best_aqm = max(m(c, q, "goodput") for c in aqm_rows if len(c) == n for q in AQMS)
        ok &= dt > best_aqm
        ev.append(f"{n}CL: DT {dt:.0f} vs best AQM {best_aqm:.0f} kb/s")
    res.append(Finding("Drop-tail gives the highest long-lived goodput.", ok, "; ".join(ev)))
    # 2. Any ARED router gives the lowest goodput among the AQMs.
    wins = [
        (c, m(c, "ARED", "goodput") < min(m(c, "PI", "goodput"), m(c, "REM", "goodput"))) for c in aqm_rows
    ]
    n_ok = sum(w for _, w in wins)
    res.append(
        Finding(
            "Configurations with ARED give the lowest long-lived goodput of the three AQMs.",
            n_ok >= len(wins) - 1,
            f"ARED lowest in {n_ok} of {len(wins)} AQM rows",
        )
    )
    # 3. PI and REM lose almost nothing with ECN when every congested link runs them.
    full = [c for c in aqm_rows if "DT" not in c]
    worst = max(m(c, q, metric) for c in full for q in ("PI", "REM") for metric in ("ll_loss", "http_loss"))
    res.append(
        Finding(
            "With ECN, PI and REM lose almost nothing when every congested link runs them.",
            worst < 0.5,
            f"largest long-lived or HTTP loss in all-AQM rows with PI/REM: {worst:.2f}% (threshold 0.5%)",
        )
    )
    # 4. Response times improve with each AQM router, most with one per congested link (3CL rows).
    by_count: dict[int, list[float]] = {}
    for c in TABLE_ROWS:
        if len(c) == 3:
            for q in AQMS if "AQM" in c else ["DT"]:
                if q == "ARED":
                    continue
                by_count.setdefault(c.count("AQM"), []).append(m(c, q, "rt_mean"))
    avg = {k: sum(v) / len(v) for k, v in sorted(by_count.items())}
    improving = all(avg[k + 1] < avg[k] for k in range(3))
    res.append(
        Finding(
            "HTTP response times improve with each AQM router (PI, REM), most with one per congested link.",
            improving,
            "3CL mean response time by number of AQM routers: "
            + ", ".join(f"{k}: {v * 1e3:.0f} ms" for k, v in avg.items()),
        )
    )
    # 5. DT-REM beats REM-DT on response time and has about half the HTTP loss.
    a, b = ("DT", "AQM"), ("AQM", "DT")
    rt_ok = m(a, "REM", "rt_mean") < m(b, "REM", "rt_mean")
    loss_ok = m(a, "REM", "http_loss") < m(b, "REM", "http_loss")
    res.append(
        Finding(
            "DT-REM beats REM-DT on HTTP response time, with less HTTP loss.",
            rt_ok and loss_ok,
            f"mean response DT-REM {m(a, 'REM', 'rt_mean') * 1e3:.0f} ms "
            f"vs REM-DT {m(b, 'REM', 'rt_mean') * 1e3:.0f} ms;"
            f" HTTP loss {m(a, 'REM', 'http_loss'):.2f}% vs {m(b, 'REM', 'http_loss'):.2f}%",
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
    calibrate=calibrate,
    notes=[
        "Interior cross-traffic clouds are one PackMime generator per congested link (servers upstream, "
        "clients downstream): our reading of the paper's figure, which is not in the text extraction.",
        "Long-lived loss is the loss rate of the long-lived class (data and ACKs, every queue); HTTP loss "
        "that of the forward end-to-end HTTP class.",
        "--quick stops after 2,000 forward pairs instead of the paper's 50,000.",
    ],
    full_runtime="about 2 minutes of wall time per configuration and seed (37 configurations)",
)
