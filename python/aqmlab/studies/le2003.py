"""Study L: Le, Aikat, Jeffay, Smith — "The Effects of Active Queue Management on Web Performance"
(SIGCOMM 2003, a lab testbed).

The peering link of studies/scenarios/le2003/peering.toml (100 Mb/s, web traffic both ways, per-flow delays
uniform on [10, 150] ms from the browsers, 16 KB windows) at 80/90/98/105% offered load, calibrated on
the uncongested 1 Gb/s network as the study did; drop-tail 24/240/2400, PI and REM with q_ref 24/240,
ARED (12, 36) and (120, 360) with w_q = 1/8192, every AQM with and without ECN.

The web traffic is a closed loop of emulated users (``[[web_users]]``, docs/traffic.md#closed-loop-web-users),
as the testbed's UNC generator was: the offered load is set by the number of users, and a congested link
slows their pages down, so they ask for less. The variant ``packmime`` (``aqmlab reproduce le2003 --variant
packmime``) runs the open-loop PackMime-HTTP generators of peering.toml instead, at a connection rate.
Neither is the UNC model itself (docs/traffic.md#the-unc-web-model-of-study-l): compare shapes (which
scheme's CDF is above which), not absolute percentiles.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
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

SCENARIO = files(__package__) / "scenarios" / "le2003" / "peering.toml"
PEERING = "links.4"  # the RA <-> RB link in peering.toml
LOADS = [80, 90, 98, 105]
AQM_LIMIT = 2400  # buffer behind the AQMs (the paper does not give ALTQ's queue limit)


@dataclass(frozen=True)
class Traffic:
    """How a traffic model sets the offered load: the generators' size knob (``http.<i>.rate`` connections/s
    or ``web_users.<i>.users``), its value for about 98 Mb/s per direction, and the scenario text."""

    kind: str  # "http" or "web_users"
    knob: str  # "rate" or "users"
    base: float  # size per direction for about 98 Mb/s offered on the uncongested network
    text: str

    def overrides(self, size: float) -> list[str]:
        value = f"{size:.3f}" if self.knob == "rate" else str(max(1, round(size)))
        return [f"{self.kind}.{i}.{self.knob}={value}" for i in (0, 1)]


def _web_users_scenario(text: str) -> str:
    """peering.toml with each PackMime generator replaced by as many emulated users (same name, clients and
    servers). Response sizes are PackMime's (fitted to UNC traces of 2000-2001, as study L's generator
    was to UNC traces: median about 1 KB, tail index about 1.2; SURGE's defaults have a mean of 66 KB and
    a tail of index 1.1) at the connection rate of the open-loop scenario; think times, objects per page,
    parallel connections and the persistent share are the generator's documented defaults."""
    doc = tomllib.loads(text)
    doc["name"] = "le2003-peering-users"
    doc["web_users"] = [
        {
            "name": h["name"],
            "clients": h["clients"],
            "servers": h["servers"],
            "users": WEB_USERS_BASE,
            "response_size": {"kind": "packmime", "rate": h["rate"]},
        }
        for h in doc.pop("http")
    ]
    return tomli_w.dumps(doc)


# Users per direction for about 98 Mb/s offered on the uncongested network (a first guess the calibration
# replaces: a page is 1.37 objects of about 8 KB, and a user asks for one every think time of 3 s plus the
# page's own time).
WEB_USERS_BASE = 3070
# PackMime connections/s per direction for about 98 Mb/s offered (peering.toml's header comment).
PACKMIME_BASE = 1261.0


def traffic_model(name: str) -> Traffic:
    text = SCENARIO.read_text(encoding="utf-8")
    if name == "packmime":
        return Traffic("http", "rate", PACKMIME_BASE, text)
    return Traffic("web_users", "users", WEB_USERS_BASE, _web_users_scenario(text))


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


# Loads whose runs are checked for stationarity, and the statistics window of the check (the issue's
# 10-minute windows of the hour; --quick: two 30-s windows of its 60 measured seconds).
STATIONARITY_LOADS = (98, 105)
WINDOW = {False: "600s", True: "30s"}
STATIONARY_SPREAD = 0.2  # windows' loss and p90 within 20 % of each other
# The full study's runs measure an hour after a 10-minute warm-up (peering.toml's is 60 s). The closed loop
# settles slowly: in the 60-s warm-up runs the first 10-minute window had the lowest loss in 19 of 25 lossy
# runs at 98 and 105 %, and PI 24 with ECN at 98 % went from 1.9 % loss over 60-180 s to about 3 % from
# 660 s on, with no further trend over two hours (validation/results/le2003-full.md).
WARMUP_S = 600


def _overrides(
    traffic: Traffic, scheme: dict | None, size: float, quick: bool, load: int | None = None
) -> list[str]:
    ov = traffic.overrides(size)
    if quick:
        ov += ["duration=90", "measure.warmup=30"]
    if load in STATIONARITY_LOADS:
        ov.append(f"measure.window={WINDOW[quick]}")
    if scheme is None:
        ov.append(f"{PEERING}.rate=1Gbps")
    else:
        ov.append(f"{PEERING}.queue={scheme['queue']}")
        if scheme["ecn"]:
            ov.append("tcp.ecn=true")
    return ov


def calibrate(traffic: Traffic, quick: bool, execute) -> dict:
    """The study's calibration: offered load measured on the uncongested (1 Gb/s) network is linear in
    the connection rate (PackMime) or the number of users (the closed loop never slows down there); one
    run at the base size gives the slope, and the size for each load follows."""
    ov = _overrides(traffic, None, traffic.base, quick)
    if not quick:
        ov.append("duration=600")
    (o,) = execute(
        [
            StudyRun(
                labels=(("calibration", "uncongested"),),
                scenario=traffic.text,
                seed=1,
                overrides=tuple(ov),
            )
        ]
    )
    links = o.table("links").set_index("link")
    load = (links.loc["RA->RB", "utilization"] + links.loc["RB->RA", "utilization"]) / 2 * 1e9  # bit/s
    k = load / traffic.base
    unit = "conn_per_s" if traffic.knob == "rate" else "user"
    return {f"bits_per_s_per_{unit}": k, **{f"{traffic.knob}_{p}": p / 100 * 100e6 / k for p in LOADS}}


def runs(traffic: Traffic, quick: bool, seeds: int, calibration: dict | None = None) -> list[StudyRun]:
    specs = []
    loads = [90, 98] if quick else LOADS
    hour = [] if quick else [f"duration={WARMUP_S + 3600}", f"measure.warmup={WARMUP_S}"]
    for load in loads:
        size = calibration[f"{traffic.knob}_{load}"] if calibration else traffic.base * load / 98
        for name, scheme in schemes(quick).items():
            for seed in range(1, seeds + 1):
                labels = (("load", str(load)), ("scheme", name))
                specs.append(
                    StudyRun(
                        labels=labels,
                        scenario=traffic.text,
                        seed=seed,
                        overrides=tuple(_overrides(traffic, scheme, size, quick, load) + hour),
                    )
                )
    return specs


def _metrics(o: RunOutcome) -> dict[str, float]:
    links = o.table("links").set_index("link")
    resp = o.table("responses")
    resp = resp[~resp["class"].str.endswith(".page")]  # objects, as the testbed timed them, not pages
    ab, ba = links.loc["RA->RB"], links.loc["RB->RA"]
    throughput = (ab["utilization"] * ab["rate_bps"] + ba["utilization"] * ba["rate_bps"]) / 2 / 1e6
    arrivals = ab["arrivals"] + ba["arrivals"]
    drops = ab["drops"] + ba["drops"]
    summary = o.summary()
    measured_s = summary["end_s"] - summary["warmup_s"]
    return {
        "throughput_mbps": throughput,
        "completed": float(resp["pairs"].sum()),
        "completed_per_hour_m": float(resp["pairs"].sum()) / measured_s * 3600 / 1e6,
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


# Table 2's loss ratios, where legible (docs/studies.md#l-table-2), in %.
PAPER_LOSS = {"DT 24": [0.2, 2.7, 6.5, 9.1], "DT 240": [0.04, 1.8, 6.0, 8.8]}


def tables(outcomes: list[RunOutcome]) -> list[Table]:
    df = summarize(outcomes)
    loads = sorted({int(x) for x in df["load"]})
    rows = []
    for scheme in dict.fromkeys(df["scheme"]):
        r = {"scheme": scheme}
        paper = PAPER_T2.get(scheme)
        for load in loads:
            sel = df[(df["scheme"] == scheme) & (df["load"] == str(load))]
            col = LOADS.index(load)
            r[f"{load}% Mb/s sim"] = fmt_ci(*mean_ci(sel["throughput_mbps"]), digits=1)
            r[f"{load}% Mb/s paper"] = f"{paper[col][0]:.1f}" if paper else ""
            r[f"{load}% loss % sim"] = fmt_ci(*mean_ci(sel["loss_pct"]), digits=2)
            r[f"{load}% loss % paper"] = f"{PAPER_LOSS[scheme][col]:g}" if scheme in PAPER_LOSS else ""
            r[f"{load}% requests/h (M) sim"] = fmt_ci(*mean_ci(sel["completed_per_hour_m"]), digits=1)
            r[f"{load}% requests/h (M) paper"] = f"{paper[col][1]:.1f}" if paper else ""
            r[f"{load}% median RT ms sim"] = fmt_ci(*(1e3 * v for v in mean_ci(sel["rt_median"])), digits=0)
        rows.append(r)
    note = (
        "Simulated: mean ± 95 % interval over seeds. Requests per hour are the completed request/response "
        "pairs of both directions over the measured period, scaled to an hour (the paper's counts are of "
        "hour-long testbed runs). The paper's loss ratios are legible only for drop-tail 24 and 240."
    )
    return [
        Table(
            "Table 2: link throughput (Mb/s), loss, completed requests per hour, median response time",
            pd.DataFrame(rows),
            note=note,
        ),
        stationarity(outcomes),
    ]


def _windows(o: RunOutcome) -> pd.DataFrame:
    """Per full statistics window of a run: the peering link's loss (%, both directions) and the objects'
    p90 response time (s; the classes' p90s weighted by their pairs)."""
    links = o.table("window_links")
    links = links[links["link"].isin(["RA->RB", "RB->RA"])]
    length = links["t_end"] - links["t_start"]
    links = links[length > length.max() - 1e-6]  # a last, shorter window says less: left out
    per = links.groupby("t_start")[["arrivals", "drops", "departure_bytes"]].sum()
    resp = o.table("window_responses")
    resp = resp[~resp["class"].str.endswith(".page") & resp["t_start"].isin(per.index)]
    weighted = (resp["p90_s"] * resp["pairs"]).groupby(resp["t_start"]).sum()
    return pd.DataFrame(
        {
            "loss_pct": 100 * per["drops"] / per["arrivals"],
            "p90_s": weighted / resp.groupby("t_start")["pairs"].sum(),
            "carried_bytes": per["departure_bytes"],
        }
    )


def _spread(values: pd.Series) -> float:
    """How far apart the windows are: max / min − 1 (0 when all are 0)."""
    lo, hi = values.min(), values.max()
    return 0.0 if hi == 0 else (hi / lo - 1 if lo > 0 else float("inf"))


def _trend(values: pd.Series) -> tuple[float, float]:
    """Least-squares slope of a run's window values per hour of simulated time, and its 95 % half-width
    (Student t on n − 2). Windows of heavy-tailed traffic are correlated, so the interval is if anything
    too narrow: a trend it cannot tell from zero is none."""
    from scipy import stats

    hours = pd.Series(values.index, dtype=float) / 3600
    fit = stats.linregress(hours, values.to_numpy())
    return fit.slope, float(stats.t.ppf(0.975, len(values) - 2)) * fit.stderr


def stationarity(outcomes: list[RunOutcome]) -> Table:
    rows, drifts = [], []
    for o in outcomes:
        if int(o.spec.label("load")) not in STATIONARITY_LOADS:
            continue
        w = _windows(o)
        loss, p90 = _spread(w["loss_pct"]), _spread(w["p90_s"])
        slope, half = _trend(w["loss_pct"]) if len(w) > 2 else (math.nan, math.nan)
        drifts.append(half == half and abs(slope) > half)
        rows.append(
            {
                "load": o.spec.label("load"),
                "scheme": o.spec.label("scheme"),
                "seed": o.spec.seed,
                "loss % per window": " / ".join(f"{v:.2f}" for v in w["loss_pct"]),
                "p90 ms per window": " / ".join(f"{1e3 * v:.0f}" for v in w["p90_s"]),
                "loss spread %": f"{100 * loss:.0f}",
                "p90 spread %": f"{100 * p90:.0f}",
                "carried spread %": f"{100 * _spread(w['carried_bytes']):.1f}",
                "loss trend, points per hour": f"{slope:+.2f} ± {half:.2f}",
                "stationary": "yes" if len(w) > 1 and max(loss, p90) < STATIONARY_SPREAD else "no",
            }
        )
    frame = pd.DataFrame(rows)
    steady = int((frame["stationary"] == "yes").sum()) if rows else 0
    note = (
        f"{steady} of {len(rows)} runs stationary: in each, the peering link's loss and the objects' p90 "
        "response time over successive statistics windows (measure.window; the last window when shorter is "
        f"left out) are within {100 * STATIONARY_SPREAD:.0f} % of each other (spread = largest / smallest − "
        "1; a loss of zero in every window counts as no spread). The bytes the link carried per window "
        "(carried spread) show how steady the load was; the loss trend is the least-squares slope over "
        f"the windows with its 95 % interval: {sum(drifts)} of {len(rows)} runs drift, i.e. their loss "
        "moves with the run's length, where the others only vary from window to window."
    )
    return Table("Stationarity at 98 % and 105 % load", frame, note=note)


# The findings compare schemes by median response time, as effects paired by seed (every scheme runs the
# same traffic draws per seed) with their 95 % intervals: a difference is shown only when its interval
# excludes zero, and one seed shows nothing.


def _by_seed(df: pd.DataFrame, load: int, scheme: str) -> dict[int, float]:
    sel = df[(df["load"] == str(load)) & (df["scheme"] == scheme)]
    return dict(zip(sel["seed"], 1e3 * sel["rt_median"], strict=True))


def _best(df: pd.DataFrame, load: int, schemes: list[str], worst: bool = False) -> str:
    """The scheme with the lowest (or highest) mean median response time among `schemes`."""
    mean = {s: mean_ci(_by_seed(df, load, s).values())[0] for s in schemes}
    return (max if worst else min)(mean, key=mean.__getitem__)


def _gain(df: pd.DataFrame, load: int, slower: str, faster: str) -> tuple[float, float, int]:
    """How much lower `faster`'s median response time is than `slower`'s, in ms: mean, 95 % half-width,
    seeds."""
    return paired_effect(_by_seed(df, load, faster), _by_seed(df, load, slower))


def _family(df: pd.DataFrame, prefix: str, ecn: str | None = None) -> list[str]:
    """Schemes of one AQM family (``"PI"``, ``"ARED"``, ...) in the runs, with (``"ECN"``) or without
    (``"no ECN"``) ECN, or both."""
    return [
        s
        for s in dict.fromkeys(df["scheme"])
        if s.split()[0] == prefix and (ecn is None or s.endswith(", " + ecn))
    ]


def _loads(df: pd.DataFrame, at_least: int = 0, at_most: int = 1000) -> list[int]:
    return sorted(x for x in {int(v) for v in df["load"]} if at_least <= x <= at_most)


# Each check yields, per comparison, whether it agrees with the paper and the evidence; nothing when the
# runs lack the loads or schemes it needs.
Evidence = Iterator[tuple[bool, str]]


def _no_aqm_beats_droptail(df: pd.DataFrame) -> Evidence:
    for load in _loads(df, at_most=80):
        dt = _best(df, load, _family(df, "DT"))
        aqms = [s for f in ("PI", "REM", "ARED") for s in _family(df, f)]
        gains = {s: _gain(df, load, dt, s) for s in aqms}
        best = max(gains, key=lambda s: gains[s][0])
        m, h, n = gains[best]
        ok = n > 1 and not any(shows_effect(g[0], g[1]) for g in gains.values())
        yield ok, f"{load}%: the most any AQM gains over {dt}: {best} {fmt_effect(m, h, 'ms')}"


def _pi_modestly_best_without_ecn(df: pd.DataFrame) -> Evidence:
    if not _family(df, "PI", "no ECN"):
        return
    for load in _loads(df, at_least=90):
        pi = _best(df, load, _family(df, "PI", "no ECN"))
        dt = _best(df, load, _family(df, "DT"))
        other = _best(df, load, _family(df, "REM", "no ECN") + _family(df, "ARED", "no ECN"))
        (m1, h1, _), (m2, h2, _) = _gain(df, load, dt, pi), _gain(df, load, other, pi)
        yield (
            shows_effect(m1, h1) and shows_effect(m2, h2),
            f"{load}%: {pi} gains {fmt_effect(m1, h1, 'ms')} over {dt}, "
            f"{fmt_effect(m2, h2, 'ms')} over {other}",
        )


def _ecn_helps_pi_and_rem(df: pd.DataFrame) -> Evidence:
    loads = _loads(df, at_least=90)
    if not _family(df, "PI", "ECN") or "uncongested" not in set(df["scheme"]):
        return
    for load in loads:
        for family in ("PI", "REM"):
            for with_ecn in _family(df, family, "ECN"):
                without = with_ecn.replace(", ECN", ", no ECN")
                m, h, _ = _gain(df, load, without, with_ecn)
                yield (
                    shows_effect(m, h),
                    f"{load}%: ECN gains {fmt_effect(m, h, 'ms')} for {with_ecn.removesuffix(', ECN')}",
                )
    if 90 in loads:
        ecn = _best(df, 90, _family(df, "PI", "ECN") + _family(df, "REM", "ECN"))
        dt = _best(df, 90, _family(df, "DT"))
        m, h, _ = _gain(df, 90, dt, ecn)
        gap, gap_h, _ = _gain(df, 90, ecn, "uncongested")
        yield (
            shows_effect(m, h),
            f"90%: {ecn} gains {fmt_effect(m, h, 'ms')} over {dt}; the uncongested network is "
            f"{fmt_effect(gap, gap_h, 'ms')} faster than it",
        )


def _ared_poorest_ecn_no_help(df: pd.DataFrame) -> Evidence:
    if not _family(df, "ARED"):
        return
    for load in _loads(df, at_least=90):
        ared = _best(df, load, _family(df, "ARED"))
        worst_other = _best(df, load, _family(df, "PI") + _family(df, "REM"), worst=True)
        m, h, _ = _gain(df, load, ared, worst_other)
        yield (
            shows_effect(m, h),
            f"{load}%: the slowest PI/REM ({worst_other}) gains {fmt_effect(m, h, 'ms')} "
            f"over the best ARED ({ared})",
        )
        for with_ecn in _family(df, "ARED", "ECN"):
            e, eh, _ = _gain(df, load, with_ecn.replace(", ECN", ", no ECN"), with_ecn)
            yield (
                not shows_effect(e, eh),
                f"ECN gains {fmt_effect(e, eh, 'ms')} for {with_ecn.removesuffix(', ECN')}",
            )


#: The paper's claims, the check of each, and what to add to its evidence.
FINDINGS = [
    (
        "Up to 80% load, no AQM improves response times over drop-tail.",
        _no_aqm_beats_droptail,
        " (reproduced: no gain with its interval above zero, two seeds or more)",
    ),
    (
        "At 90% load and above without ECN, PI gives modestly better response times than drop-tail and the "
        "other AQMs.",
        _pi_modestly_best_without_ecn,
        "",
    ),
    (
        "With ECN, PI and REM improve response times significantly at 90% load and above, and at 90% come "
        "closer to the uncongested network than drop-tail.",
        _ecn_helps_pi_and_rem,
        "",
    ),
    ("ARED gives the poorest response times, and ECN does not help it.", _ared_poorest_ecn_no_help, ""),
]


def findings(outcomes: list[RunOutcome]) -> list[Finding]:
    """The paper's four headline results, each an effect paired by seed with its 95 % interval."""
    df = summarize(outcomes)
    res = []
    for claim, check, note in FINDINGS:
        evidence = list(check(df))
        if evidence:
            ok = all(agrees for agrees, _ in evidence)
            res.append(Finding(claim, ok, "; ".join(text for _, text in evidence) + note))
        else:
            res.append(Finding(claim, False, "the runs lack the loads or schemes this check needs"))
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


# Measured, not extrapolated: the closed-loop study at one seed (validation/results/le2003-full.md).
RUNTIME = {
    "web_users": "1 h 25 min of wall time per seed on 2 cores shared with other jobs (--jobs 2): 64 runs of "
    "a 10-minute warm-up and the hour, a median 160 s each, and the calibration run, measured end to end "
    "with /usr/bin/time on 2026-11-25",
    "packmime": "not measured end to end; its runs at 98 and 105 % take longer than the closed loop's as "
    "open connections pile up (validation/results/scale.md)",
}

NOTES = {
    "web_users": "Traffic model: closed-loop emulated users (docs/traffic.md#closed-loop-web-users), as the "
    "testbed's UNC generator: SURGE's think times and pages, PackMime-HTTP's (UNC-fitted) response sizes; "
    "the number of users per direction is calibrated for each load on the uncongested network. Response "
    "times are per object (request to last response byte), as the testbed measured them; compare the "
    "ordering of schemes, not absolute response times (docs/traffic.md#the-unc-web-model-of-study-l).",
    "packmime": "Traffic model (variant packmime): open-loop PackMime-HTTP at a calibrated connection rate "
    "stands in for the UNC web model used on the testbed (docs/traffic.md#the-unc-web-model-of-study-l): "
    "its offered load does not throttle itself when the link is congested, unlike the testbed's users; "
    "compare the ordering of schemes, not absolute response times.",
}


def make_study(variant: str) -> Study:
    traffic = traffic_model(variant)
    return Study(
        name="le2003",
        title="Le, Aikat, Jeffay, Smith — The Effects of AQM on Web Performance (reproduced with aqmlab)",
        citation="L. Le, J. Aikat, K. Jeffay, F. D. Smith, SIGCOMM 2003: PI, REM, ARED with and without ECN "
        "on a 100 Mb/s peering link.",
        runs=partial(runs, traffic),
        tables=tables,
        findings=findings,
        figures=figures,
        calibrate=partial(calibrate, traffic),
        notes=[
            NOTES[variant],
            f"AQM buffers hold {AQM_LIMIT} packets (the paper does not give ALTQ's queue limit).",
            "REM runs in byte mode (arrivals, queue and capacity in bytes; q_ref in 1000-byte units): in "
            "packet mode ns-2's capacity term assumes 1000-byte packets and web traffic's small packets "
            "drive the price up until the link starves.",
            "--quick: 90 s runs (60 s measured), loads 90 and 98%, q_ref 24 and ARED 12/36 only.",
        ],
        full_runtime=RUNTIME[variant],
        variant="" if variant == "web_users" else variant,
        variants={"packmime": lambda: make_study("packmime")} if variant == "web_users" else {},
    )


STUDY = make_study("web_users")
