"""Study L: Le, Aikat, Jeffay, Smith — "The Effects of Active Queue Management on Web Performance"
(SIGCOMM 2003, a lab testbed).

The peering link of studies/scenarios/le2003/peering.toml (100 Mb/s, web traffic both ways, per-flow delays
uniform on [10, 150] ms from the browsers, 16 KB windows) at 80/90/98/105% offered load, calibrated on
the uncongested 1 Gb/s network as the study did; drop-tail 24/240/2400, PI and REM with q_ref 24/240,
ARED (12, 36) and (120, 360) with w_q = 1/8192, every AQM with and without ECN. PackMime-HTTP stands in
for the UNC web model (docs/traffic.md#the-unc-web-model-of-study-l): compare shapes (which scheme's CDF
is above which), not absolute percentiles.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pandas as pd

from aqmlab.studies import plots
from aqmlab.studies.base import Figure, Finding, RunOutcome, Study, StudyRun, Table, fmt_ci, mean_ci

SCENARIO = files(__package__) / "scenarios" / "le2003" / "peering.toml"
PEERING = "links.4"  # the RA <-> RB link in peering.toml
LOADS = [80, 90, 98, 105]
BASE_RATE = 1261.0  # conn/s per direction in peering.toml, ≈ 98 Mb/s offered (its header comment)
AQM_LIMIT = 2400  # buffer behind the AQMs (the paper does not give ALTQ's queue limit)


def schemes(quick: bool) -> dict[str, dict | None]:
    """Scheme label → peering queue (None = the uncongested 1 Gb/s network) and whether ECN is on."""
    out: dict[str, dict | None] = {"uncongested": None}
    for n in (24, 240) if quick else (24, 240, 2400):
        out[f"DT {n}"] = {"queue": f'{{ kind = "droptail", limit = {n} }}', "ecn": False}
    for ecn in (False, True):
        tag = "ECN" if ecn else "no ECN"
        for q in (24,) if quick else (24, 240):
            for kind in ("pi", "rem"):
                # REM in byte mode: its capacity term counts packets of mean_pktsize, which web traffic's
                # small packets would overrun in packet mode (docs/aqm.md#rem-price-and-capacity).
                extra = ", queue_in_bytes = true" if kind == "rem" else ""
                flags = f"ecn = {str(ecn).lower()}, limit = {AQM_LIMIT}{extra}"
                queue = f'{{ kind = "{kind}", qref = {q}, {flags} }}'
                out[f"{kind.upper()} {q}, {tag}"] = {"queue": queue, "ecn": ecn}
        for lo, hi in ((12, 36),) if quick else ((12, 36), (120, 360)):
            queue = (
                f'{{ kind = "red", adaptive = true, thresh = {lo}, maxthresh = {hi}, q_weight = {1 / 8192}, '
                f"queue_in_bytes = false, bytes = false, ecn = {str(ecn).lower()}, limit = {AQM_LIMIT} }}"
            )
            out[f"ARED {lo}/{hi}, {tag}"] = {"queue": queue, "ecn": ecn}
    return out


def _overrides(scheme: dict | None, rate: float, quick: bool) -> list[str]:
    ov = [f"http.0.rate={rate:.3f}", f"http.1.rate={rate:.3f}"]
    if quick:
        ov += ["duration=90", "measure.warmup=30"]
    if scheme is None:
        ov.append(f"{PEERING}.rate=1Gbps")
    else:
        ov.append(f"{PEERING}.queue={scheme['queue']}")
        if scheme["ecn"]:
            ov.append("tcp.ecn=true")
    return ov


def calibrate(quick: bool, execute) -> dict:
    """The study's calibration: offered load measured on the uncongested (1 Gb/s) network is linear in
    the connection rate; one run at the scenario's rate gives the slope."""
    ov = _overrides(None, BASE_RATE, True) if quick else _overrides(None, BASE_RATE, False) + ["duration=600"]
    (o,) = execute(
        [
            StudyRun(
                labels=(("calibration", "uncongested"),),
                scenario=SCENARIO.read_text(encoding="utf-8"),
                seed=1,
                overrides=tuple(ov),
            )
        ]
    )
    links = o.table("links").set_index("link")
    load = (links.loc["RA->RB", "utilization"] + links.loc["RB->RA", "utilization"]) / 2 * 1e9  # bit/s
    k = load / BASE_RATE
    return {"bits_per_s_per_conn_per_s": k, **{f"rate_{p}": p / 100 * 100e6 / k for p in LOADS}}


def runs(quick: bool, seeds: int, calibration: dict | None = None) -> list[StudyRun]:
    text = SCENARIO.read_text(encoding="utf-8")
    specs = []
    loads = [90, 98] if quick else LOADS
    for load in loads:
        rate = calibration[f"rate_{load}"] if calibration else BASE_RATE * load / 98
        for name, scheme in schemes(quick).items():
            for seed in range(1, seeds + 1):
                labels = (("load", str(load)), ("scheme", name))
                specs.append(
                    StudyRun(
                        labels=labels,
                        scenario=text,
                        seed=seed,
                        overrides=tuple(_overrides(scheme, rate, quick)),
                    )
                )
    return specs


def _metrics(o: RunOutcome) -> dict[str, float]:
    links = o.table("links").set_index("link")
    resp = o.table("responses")
    ab, ba = links.loc["RA->RB"], links.loc["RB->RA"]
    throughput = (ab["utilization"] * ab["rate_bps"] + ba["utilization"] * ba["rate_bps"]) / 2 / 1e6
    arrivals = ab["arrivals"] + ba["arrivals"]
    drops = ab["drops"] + ba["drops"]
    return {
        "throughput_mbps": throughput,
        "completed": float(resp["pairs"].sum()),
        "loss_pct": 100 * drops / arrivals if arrivals else float("nan"),
        "rt_median": float((resp["p50_s"] * resp["pairs"]).sum() / resp["pairs"].sum()),
    }


def summarize(outcomes: list[RunOutcome]) -> pd.DataFrame:
    return pd.DataFrame([{**dict(o.spec.labels), "seed": o.spec.seed, **_metrics(o)} for o in outcomes])


# Table 2 (link throughput Mb/s, completed requests in millions; partly reconstructed:
# docs/studies.md#l-table-2).
PAPER_T2 = {
    "uncongested": [(80.6, 13.2), (91.3, 15.0), (98.2, 16.2), (105.9, 17.3)],
    "DT 24": [(80.3, 13.2), (88.4, 14.4), (91.1, 14.9), (91.8, 15.0)],
    "DT 240": [(80.6, 13.2), (89.9, 14.6), (92.0, 15.1), (92.4, 15.0)],
    "DT 2400": [(80.4, 13.1), (88.6, 14.7), (91.3, 15.1), (91.1, 15.0)],
    "PI 24, no ECN": [(80.2, 13.3), (87.9, 14.4), (89.3, 15.1), (89.9, 15.1)],
    "PI 240, no ECN": [(80.1, 13.1), (87.2, 14.7), (90.0, 14.9), (90.5, 15.0)],
    "REM 24, no ECN": [(79.8, 13.2), (86.4, 14.4), (87.6, 14.5), (87.5, 14.6)],
    "REM 240, no ECN": [(79.3, 13.2), (83.3, 14.0), (86.2, 14.4), (87.7, 14.6)],
    "ARED 12/36, no ECN": [(79.4, 13.0), (85.5, 13.8), (87.4, 14.0), (87.3, 14.1)],
    "ARED 120/360, no ECN": [(80.2, 13.0), (85.5, 14.0), (87.9, 14.2), (85.2, 13.9)],
    "PI 24, ECN": [(79.3, 13.2), (88.6, 14.6), (89.4, 14.9), (89.5, 15.0)],
    "PI 240, ECN": [(80.1, 13.1), (88.2, 14.7), (89.6, 15.1), (90.8, 15.2)],
    "REM 24, ECN": [(80.1, 13.1), (88.2, 14.6), (89.6, 14.9), (89.3, 14.9)],
    "REM 240, ECN": [(80.3, 13.2), (88.6, 14.7), (90.4, 15.1), (90.4, 15.1)],
    "ARED 12/36, ECN": [(78.8, 12.9), (85.5, 13.8), (88.0, 13.9), (87.7, 14.1)],
    "ARED 120/360, ECN": [(80.5, 13.1), (86.2, 14.1), (88.2, 14.1), (85.8, 13.9)],
}


def tables(outcomes: list[RunOutcome]) -> list[Table]:
    df = summarize(outcomes)
    loads = sorted({int(x) for x in df["load"]})
    rows = []
    for scheme in dict.fromkeys(df["scheme"]):
        r = {"scheme": scheme}
        for load in loads:
            sel = df[(df["scheme"] == scheme) & (df["load"] == str(load))]
            r[f"{load}% Mb/s sim"] = fmt_ci(*mean_ci(sel["throughput_mbps"]), digits=1)
            paper = PAPER_T2.get(scheme)
            r[f"{load}% Mb/s paper"] = f"{paper[LOADS.index(load)][0]:.1f}" if paper else ""
            r[f"{load}% median RT ms sim"] = fmt_ci(*(1e3 * v for v in mean_ci(sel["rt_median"])), digits=0)
            r[f"{load}% loss % sim"] = fmt_ci(*mean_ci(sel["loss_pct"]), digits=2)
        rows.append(r)
    note = (
        "The paper's completed-request counts (millions per run) come from hour-long testbed runs and are "
        "not "
        "comparable with these shorter runs; link throughput and loss are. Paper loss ratios (legible part): "
        "DT 24: 0.2/2.7/6.5/9.1%, DT 240: 0.04/1.8/6.0/8.8% at 80/90/98/105% load."
    )
    return [
        Table("Table 2: link throughput (Mb/s), median response time, loss", pd.DataFrame(rows), note=note)
    ]


def findings(outcomes: list[RunOutcome]) -> list[Finding]:
    df = summarize(outcomes)
    m = df.groupby(["load", "scheme"])["rt_median"].mean()

    def rt(load: int, scheme: str) -> float:
        return float(m.get((str(load), scheme), float("nan")))

    res = []
    ecn_best = min(rt(90, s) for s in ("PI 24, ECN", "REM 24, ECN"))
    dt_best = min(rt(90, s) for s in ("DT 24", "DT 240"))
    unc = rt(90, "uncongested")
    res.append(
        Finding(
            "With ECN, PI and REM give response times near the uncongested network at 90% load "
            "(closer than drop-tail).",
            abs(ecn_best - unc) < abs(dt_best - unc),
            f"median response at 90%: uncongested {unc * 1e3:.0f} ms, "
            f"best PI/REM+ECN {ecn_best * 1e3:.0f} ms, "
            f"best DT {dt_best * 1e3:.0f} ms",
        )
    )
    ared = [rt(98, s) for s in df["scheme"].unique() if s.startswith("ARED")]
    others = [rt(98, s) for s in df["scheme"].unique() if s.split()[0] in ("PI", "REM")]
    res.append(
        Finding(
            "ARED gives the worst response times of the AQMs at high load.",
            min(ared) > max(others) if ared and others else False,
            f"98% load medians: best ARED {min(ared) * 1e3:.0f} ms "
            f"vs worst PI/REM {max(others) * 1e3:.0f} ms",
        )
    )
    ared_gain = rt(98, "ARED 12/36, no ECN") - rt(98, "ARED 12/36, ECN")
    pi_gain = rt(98, "PI 24, no ECN") - rt(98, "PI 24, ECN")
    res.append(
        Finding(
            "ECN helps PI but does not help ARED.",
            pi_gain > 0 and ared_gain < pi_gain,
            f"median improvement with ECN at 98%: PI {pi_gain * 1e3:.0f} ms, ARED {ared_gain * 1e3:.0f} ms",
        )
    )
    return res


def figures(outcomes: list[RunOutcome], out: Path) -> list[Figure]:
    figs = []
    loads = sorted({int(o.spec.label("load")) for o in outcomes})
    for load in loads:
        for ecn in ("no ECN", "ECN"):
            curves: dict[str, list[RunOutcome]] = {}
            for o in outcomes:
                s = o.spec.label("scheme")
                if o.spec.label("load") == str(load) and (
                    s == "uncongested" or s.startswith("DT") or s.endswith(", " + ecn)
                ):
                    curves.setdefault(s, []).append(o)
            tag = "ecn" if ecn == "ECN" else "noecn"
            stem = f"cdf_{load}_{tag}"
            plots.response_cdf(
                curves, "web_ab", out / stem, f"{load}% load, {ecn}: response times (side A browsers)"
            )
            figs.append(
                Figure(
                    f"Response-time CDF, {load}% load, {ecn}", stem, "0–2 s, as the paper's Figures 11-13."
                )
            )
        stem = f"ccdf_{load}"
        curves = {}
        for o in outcomes:
            s = o.spec.label("scheme")
            if o.spec.label("load") == str(load) and not s.endswith(", ECN"):
                curves.setdefault(s, []).append(o)
        plots.response_ccdf(curves, "web_ab", out / stem, f"{load}% load, without ECN: CCDF")
        figs.append(Figure(f"Response-time CCDF, {load}% load", stem, "Log-log, as the paper's Figure 14."))
    return figs


STUDY = Study(
    name="le2003",
    title="Le, Aikat, Jeffay, Smith — The Effects of AQM on Web Performance (reproduced with aqmlab)",
    citation="L. Le, J. Aikat, K. Jeffay, F. D. Smith, SIGCOMM 2003: PI, REM, ARED with and without ECN "
    "on a 100 Mb/s peering link.",
    runs=runs,
    tables=tables,
    findings=findings,
    figures=figures,
    calibrate=calibrate,
    notes=[
        "Traffic model: PackMime-HTTP stands in for the UNC web model used on the testbed "
        "(docs/traffic.md#the-unc-web-model-of-study-l); "
        "compare the ordering of schemes, not absolute response times.",
        f"AQM buffers hold {AQM_LIMIT} packets (the paper does not give ALTQ's queue limit).",
        "REM runs in byte mode (arrivals, queue and capacity in bytes; q_ref in 1000-byte units): in packet "
        "mode ns-2's capacity term assumes 1000-byte packets and web traffic's small packets drive the "
        "price up until the link starves.",
        "--quick: 90 s runs (60 s measured), loads 90 and 98%, q_ref 24 and ARED 12/36 only.",
    ],
    full_runtime="about 10-20 minutes of wall time per configuration and seed for the hour-long runs "
    "(64 configurations)",
)
