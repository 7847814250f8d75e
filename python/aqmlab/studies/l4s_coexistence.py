"""Study L4S: how scalable (L4S) and classic TCP flows share one bottleneck — RFC 9332's coexistence claims
for DualPI2, beside FQ-CoDel and PIE in ns-3's L4S mode and their classic versions.

The dumbbell of studies/scenarios/l4s/coexistence.toml: scalable flows (TCP Prague sending ECT(1),
:data:`SCALABLE_CC`; DCTCP is the alternative) and classic flows (CUBIC, or NewReno in the full version, not
ECN-capable) through one bottleneck of 100 Mb/s (quick: 40 Mb/s) at base RTTs of 20 and 80 ms. Per run:
each class's per-flow goodput and their ratio, each class's queueing delay at the bottleneck (mean and
p99 over its packets, from packet captures of the bottleneck and its feeding links), utilisation, marks
and drops.
"""

from __future__ import annotations

import json
import shutil
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.api import PCAP_DIR, pcap_file_name
from aqmlab.studies import plots
from aqmlab.studies.base import Figure, Finding, RunOutcome, Study, StudyRun, Table, fmt_ci, mean_ci

SCENARIO = files(__package__) / "scenarios" / "l4s" / "coexistence.toml"

#: The scalable congestion control (flows.0, ECT(1)): TCP Prague, paced and RTT-independent below 25 ms
#: (docs/tcp.md#tcp-prague); `"dctcp"` runs the study with DCTCP instead, nothing else changed.
SCALABLE_CC = "prague"
SCALABLE_NAME = {"dctcp": "DCTCP", "prague": "Prague"}.get(SCALABLE_CC, SCALABLE_CC)

#: The bottleneck queues (A->B). ECT(1) means L4S to DualPI2 and to the L4S modes (docs/aqm.md#dualpi2,
#: docs/aqm.md#l4s-mode); the classic FQ-CoDel and PIE treat it as ECT(0) and mark it by their classic
#: law (both with ECN on, so that the scalable flow is marked, not dropped).
AQMS = {
    "DualPI2": '{ kind = "dualpi2" }',
    "FQ-CoDel L4S": '{ kind = "fq_codel", ce_threshold = "1ms", l4s = true }',
    "PIE L4S": '{ kind = "pie", ecn = true, ce_threshold = "1ms", l4s = true }',
    "FQ-CoDel": '{ kind = "fq_codel" }',
    "PIE": '{ kind = "pie", ecn = true }',
}
#: Base RTT (ms) -> bottleneck one-way delay: RTT = 2 · (1 ms access + bottleneck + 1 ms access).
RTTS = {20: "8ms", 80: "38ms"}
#: Mixes: (scalable flows, classic flows, classic control).
MIXES = {
    "1+1 CUBIC": (1, 1, "cubic"),
    "1+1 NewReno": (1, 1, "newreno"),
    "4+4 CUBIC": (4, 4, "cubic"),
}
QUICK_MIXES = ["1+1 CUBIC"]
RATE = {False: "100Mbps", True: "40Mbps"}
#: Quick runs: shorter, and measured after a shorter warm-up.
QUICK_TIMES = ("duration=60", "measure.warmup=20")
BOTTLENECK = "A->B"
#: The links that feed the bottleneck: scalable flows leave S0, classic ones S1 (coexistence.toml).
FEEDS = {"scalable": "S0->A", "classic": "S1->A"}
CLASSES = ("scalable", "classic")

# RFC 9332's claims (§4.1 and Appendix A) the findings check, shown beside the simulated numbers.
RFC_RATIO = (0.5, 2.0)  # rate of a scalable vs a classic flow over DualPI2, k = 2
RFC_L_P99_MS = 2.0  # the L queue's p99 "around 1 ms" (the 1 ms step), read as at most 2 ms
RFC_C_TARGET_MS = 15.0  # the C queue's PI2 target; "near" read as within ±50 %, as tests/aqm_behaviour.rs
FQ_NEAR_ONE = (0.8, 1.25)  # "near 1" for a flow-isolating scheduler


def runs(quick: bool, seeds: int, calibration: dict | None = None) -> list[StudyRun]:
    text = SCENARIO.read_text(encoding="utf-8")
    specs = []
    for aqm, queue in AQMS.items():
        for rtt, delay in RTTS.items():
            for mix in QUICK_MIXES if quick else MIXES:
                n_l, n_c, classic_cc = MIXES[mix]
                overrides = [
                    f"dumbbell.queue={queue}",
                    f"dumbbell.bottleneck_rate={RATE[quick]}",
                    f"dumbbell.bottleneck_delay={delay}",
                    f"flows.0.count={n_l}",
                    f"flows.0.tcp.cc={SCALABLE_CC}",
                    f"flows.1.count={n_c}",
                    f"flows.1.tcp.cc={classic_cc}",
                    # Departures of the bottleneck and of the links feeding it: each packet's wait (p99).
                    f'measure.pcap=["{BOTTLENECK}", "{FEEDS["scalable"]}", "{FEEDS["classic"]}"]',
                    *(QUICK_TIMES if quick else ()),
                ]
                labels = (("aqm", aqm), ("rtt", str(rtt)), ("mix", mix))
                specs += [StudyRun(labels, text, seed, tuple(overrides)) for seed in range(1, seeds + 1)]
    return specs


# ------------------------------------------------------------------------------------------- metrics

_RECORD = np.dtype(
    [
        ("sec", "<u4"),
        ("nsec", "<u4"),
        ("incl", "<u4"),
        ("orig", "<u4"),
        ("ip", "V20"),
        ("sport", ">u2"),
        ("dport", ">u2"),
        ("seq", ">u4"),
        ("tail", "V12"),  # ack, offset and flags, window, checksum, urgent pointer
    ]
)


def read_capture(path: Path) -> pd.DataFrame:
    """A capture of TCP packets (engine/pcap.rs: 24-byte file header, then 56-byte records of IPv4 and
    TCP headers without options) as columns t (s), size (bytes), key (source port and sequence number)."""
    r = np.fromfile(path, dtype=_RECORD, offset=24)
    if len(r) and not (r["incl"] == 40).all():
        raise ValueError(f"{path}: not a capture of TCP packets only")
    return pd.DataFrame(
        {
            "t": r["sec"] + r["nsec"] * 1e-9,
            "size": r["orig"].astype(np.int64),
            "key": (r["sport"].astype(np.int64) << 32) | r["seq"].astype(np.int64),
        }
    )


def class_waits(o: RunOutcome) -> dict[str, np.ndarray]:
    """Each class's queueing delays (s) at the bottleneck, one per data packet sent on it in the window:
    its transmission start there minus its arrival, the start on its feeding link plus that link's
    transmission time and delay. Packets sent more than once (retransmissions) are left out, as their
    copies cannot be told apart."""
    links = o.table("links").set_index("link")
    out = o.folder / PCAP_DIR
    at_b = read_capture(out / pcap_file_name(BOTTLENECK))
    at_b = at_b[~at_b["key"].duplicated(keep=False)]
    waits = {}
    for cls, feed in FEEDS.items():
        f = read_capture(out / pcap_file_name(feed))
        f = f[~f["key"].duplicated(keep=False)]
        arrive = (
            f["t"] + f["size"] * 8 / float(links.loc[feed, "rate_bps"]) + float(links.loc[feed, "delay_s"])
        )
        m = pd.DataFrame({"key": f["key"], "arrive": arrive}).merge(at_b, on="key")
        # A packet that arrived just before the warm-up and left after it has no feed record: unmatched.
        waits[cls] = np.clip((m["t"] - m["arrive"]).to_numpy(), 0, None)
    return waits


#: The run's numbers are kept in its folder under this name, and its packet captures then removed (about
#: 20 MB per 100 Mb/s run); a new version of `_metrics` needs a new name (and the runs again).
METRICS_FILE = "l4s_metrics_v1.json"


def _metrics(o: RunOutcome) -> dict[str, float]:
    """The run's numbers, computed once from its tables and captures."""
    cache = o.folder / METRICS_FILE
    if cache.is_file():
        return json.loads(cache.read_text())
    flows = o.table("flows")
    link = o.table("links").set_index("link").loc[BOTTLENECK]
    per_class = o.table("link_classes")
    per_class = per_class[per_class["link"] == BOTTLENECK].set_index("class")
    waits = class_waits(o)
    m = {"utilization": float(link["utilization"])}
    for cls in CLASSES:
        f = flows[flows["group"] == cls]
        m[f"{cls}_mbps"] = float(f["goodput_bps"].mean()) / 1e6  # per flow
        # From the captures, not the flows' one-way delay over its minimum: under a standing queue (PIE's,
        # DualPI2's C queue) that minimum holds queueing too, and the difference falls short.
        w = waits[cls]
        m[f"{cls}_delay_ms"] = float(w.mean()) * 1e3 if len(w) else float("nan")
        m[f"{cls}_p99_ms"] = float(np.quantile(w, 0.99)) * 1e3 if len(w) else float("nan")
        row = per_class.loc[cls] if cls in per_class.index else None
        m[f"{cls}_marks"] = float(row["marks"]) if row is not None else 0.0
        m[f"{cls}_drops"] = float(row["drops"]) if row is not None else 0.0
    m["ratio"] = m["scalable_mbps"] / m["classic_mbps"] if m["classic_mbps"] > 0 else float("inf")
    cache.write_text(json.dumps(m))
    shutil.rmtree(o.folder / PCAP_DIR)
    return m


def summarize(outcomes: list[RunOutcome]) -> pd.DataFrame:
    return pd.DataFrame([{**dict(o.spec.labels), "seed": o.spec.seed, **_metrics(o)} for o in outcomes])


def _configs(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(aqm, rtt, mix) in the study's order, those present only."""
    have = set(zip(df["aqm"], df["rtt"], df["mix"], strict=True))
    return [(a, str(r), x) for a in AQMS for r in RTTS for x in MIXES if (a, str(r), x) in have]


def _mix_name(mix: str) -> str:
    """'1+1 CUBIC' spelled out: '1 Prague + 1 CUBIC'."""
    n_l, n_c, _ = MIXES[mix]
    return f"{n_l} {SCALABLE_NAME} + {n_c} {mix.split()[1]}"


def _values(df: pd.DataFrame, aqm: str, rtt: str, mix: str, metric: str) -> list[float]:
    sel = df[(df["aqm"] == aqm) & (df["rtt"] == rtt) & (df["mix"] == mix)]
    return sel[metric].tolist()


def _ci(df: pd.DataFrame, aqm: str, rtt: str, mix: str, metric: str) -> tuple[float, float]:
    return mean_ci(_values(df, aqm, rtt, mix, metric))


# ------------------------------------------------------------------------------------------- tables


def tables(outcomes: list[RunOutcome]) -> list[Table]:
    df = summarize(outcomes)
    configs = _configs(df)
    rows = []
    for aqm, rtt, mix in configs:
        rows.append(
            {
                "AQM": aqm,
                "RTT (ms)": rtt,
                "mix": _mix_name(mix),
                f"{SCALABLE_NAME} (Mb/s per flow)": fmt_ci(*_ci(df, aqm, rtt, mix, "scalable_mbps")),
                "classic (Mb/s per flow)": fmt_ci(*_ci(df, aqm, rtt, mix, "classic_mbps")),
                "rate ratio sim": fmt_ci(*_ci(df, aqm, rtt, mix, "ratio"), digits=2),
                "rate ratio RFC 9332": "0.5–2" if aqm == "DualPI2" else "–",
            }
        )
    out = [
        Table(
            "Rate balance: per-flow goodput and the ratio scalable / classic",
            pd.DataFrame(rows),
            "Mean ± 95 % interval over seeds. RFC 9332 claims the ratio only for DualPI2 (§4.1, k = 2).",
        )
    ]
    rows = []
    for aqm, rtt, mix in configs:
        r = {"AQM": aqm, "RTT (ms)": rtt, "mix": mix}
        for cls in CLASSES:
            r[f"{cls} mean (ms)"] = fmt_ci(*_ci(df, aqm, rtt, mix, f"{cls}_delay_ms"), digits=2)
            r[f"{cls} p99 (ms)"] = fmt_ci(*_ci(df, aqm, rtt, mix, f"{cls}_p99_ms"), digits=2)
        r["RFC 9332 (DualPI2)"] = "L p99 ≈ 1, C ≈ 15" if aqm == "DualPI2" else "–"
        rows.append(r)
    out.append(
        Table(
            "Queueing delay at the bottleneck per class (scalable = L4S, classic)",
            pd.DataFrame(rows),
            "Mean and p99 of the class's packets' waits at the bottleneck (arrival to start of "
            "transmission), from packet captures of the bottleneck and its feeding links (retransmitted "
            "segments left out).",
        )
    )
    rows = []
    for aqm, rtt, mix in configs:
        r = {"AQM": aqm, "RTT (ms)": rtt, "mix": mix}
        r["utilisation (%)"] = fmt_ci(*(100 * v for v in _ci(df, aqm, rtt, mix, "utilization")))
        for cls in CLASSES:
            r[f"{cls} marks"] = fmt_ci(*_ci(df, aqm, rtt, mix, f"{cls}_marks"), digits=0)
            r[f"{cls} drops"] = fmt_ci(*_ci(df, aqm, rtt, mix, f"{cls}_drops"), digits=0)
        rows.append(r)
    out.append(Table("Utilisation, marks and drops at the bottleneck (measured window)", pd.DataFrame(rows)))
    return out


# ------------------------------------------------------------------------------------------- findings


def _ratio_cells(df: pd.DataFrame, aqm: str, mix: str = "1+1 CUBIC") -> dict[str, tuple[float, float]]:
    """Rate ratio (mean, 95 % half-width over seeds) per RTT."""
    return {rtt: _ci(df, a, rtt, mix, "ratio") for a, rtt, x in _configs(df) if a == aqm and x == mix}


def _inside(m: float, h: float, lo: float, hi: float) -> bool:
    """The 95 % interval m ± h lies inside [lo, hi] (one seed, no interval: not shown)."""
    return h == h and lo <= m - h and m + h <= hi


def _outside(m: float, h: float, lo: float, hi: float) -> bool:
    """The 95 % interval m ± h lies wholly below lo or above hi."""
    return h == h and (m + h < lo or m - h > hi)


def _show(cells: dict[str, tuple[float, float]], unit: str = "", digits: int = 2) -> str:
    return "; ".join(f"{rtt} ms: {fmt_ci(m, h, digits)}{unit}" for rtt, (m, h) in cells.items())


def findings(outcomes: list[RunOutcome]) -> list[Finding]:
    df = summarize(outcomes)
    res = []
    lo, hi = RFC_RATIO
    dual = _ratio_cells(df, "DualPI2")
    res.append(
        Finding(
            f"Over DualPI2 one {SCALABLE_NAME} (ECT(1)) and one CUBIC flow get rates within a factor 2 of "
            f"each other (RFC 9332 §4.1: ratio in {lo}–{hi}), at base RTTs of 20 and 80 ms.",
            bool(dual) and all(_inside(m, h, lo, hi) for m, h in dual.values()),
            f"rate ratio {SCALABLE_NAME}/CUBIC (95 % interval over seeds inside {lo}–{hi} required): "
            + _show(dual),
        )
    )
    l99 = {r: _ci(df, "DualPI2", r, "1+1 CUBIC", "scalable_p99_ms") for r in dual}
    c_mean = {r: _ci(df, "DualPI2", r, "1+1 CUBIC", "classic_delay_ms") for r in dual}
    c_lo, c_hi = 0.5 * RFC_C_TARGET_MS, 1.5 * RFC_C_TARGET_MS
    l_ok = bool(dual) and all(_inside(m, h, 0.0, RFC_L_P99_MS) for m, h in l99.values())
    c_ok = bool(dual) and all(_inside(m, h, c_lo, c_hi) for m, h in c_mean.values())
    met = {True: "met", False: "NOT met"}
    res.append(
        Finding(
            f"Over DualPI2 the L queue's p99 delay stays about 1 ms (at most {RFC_L_P99_MS:g} ms) while the "
            f"classic queue sits near its {RFC_C_TARGET_MS:g} ms target (RFC 9332 §1, Appendix A).",
            l_ok and c_ok,
            f"L p99 (interval at most {RFC_L_P99_MS:g} ms required, {met[l_ok]}): "
            + _show(l99, " ms")
            + f"; C mean (interval within {c_lo:g}–{c_hi:g} ms required, {met[c_ok]}): "
            + _show(c_mean, " ms", 1),
        )
    )
    pie = _ratio_cells(df, "PIE")
    res.append(
        Finding(
            "A single-queue AQM without L4S support (classic PIE, ECT(1) marked as ECT(0)) lets the "
            f"scalable flow starve or dominate the classic one: ratio outside {lo}–{hi}.",
            bool(pie) and all(_outside(m, h, lo, hi) for m, h in pie.values()),
            f"rate ratio {SCALABLE_NAME}/CUBIC over classic PIE (interval wholly outside {lo}–{hi} "
            "required): "
            + _show(pie)
            + "; a ratio above 2 is the scalable flow dominating, below 0.5 starving",
        )
    )
    f_lo, f_hi = FQ_NEAR_ONE
    fq = {f"{a}, {r}": v for a in ("FQ-CoDel L4S", "FQ-CoDel") for r, v in _ratio_cells(df, a).items()}
    res.append(
        Finding(
            "FQ-CoDel isolates flows: with or without its L4S mode the rate ratio is near 1 "
            f"({f_lo}–{f_hi}).",
            bool(fq) and all(_inside(m, h, f_lo, f_hi) for m, h in fq.values()),
            f"rate ratio (interval within {f_lo}–{f_hi} required): " + _show(fq),
        )
    )
    return res


# ------------------------------------------------------------------------------------------- figures


def figures(outcomes: list[RunOutcome], out: Path) -> list[Figure]:
    df = summarize(outcomes)
    configs = _configs(df)
    figs = []
    for mix in [x for x in MIXES if any(c[2] == x for c in configs)]:
        slug = mix.replace("+", "_").replace(" ", "_").lower()
        groups = [a for a in AQMS if any(c[0] == a and c[2] == mix for c in configs)]
        rtts = [r for r in RTTS if any(c[1] == str(r) and c[2] == mix for c in configs)]
        series = {f"RTT {r} ms": [_ci(df, a, str(r), mix, "ratio") for a in groups] for r in rtts}
        stem = f"ratio_{slug}"
        plots.grouped_bars(
            groups,
            series,
            out / stem,
            f"Rate ratio {SCALABLE_NAME} / classic, {mix}",
            "rate ratio (log scale)",
            log=True,
            band=RFC_RATIO,
        )
        figs.append(
            Figure(
                f"Rate ratio, {mix}",
                stem,
                "Per-flow goodput of the scalable flows over the classic ones; bars: 95 % intervals over "
                "seeds; shaded: RFC 9332's 0.5–2 for DualPI2.",
            )
        )
        for rtt in rtts:
            series = {
                f"{cls} {stat}": [_ci(df, a, str(rtt), mix, f"{cls}_{key}") for a in groups]
                for cls in CLASSES
                for stat, key in (("mean", "delay_ms"), ("p99", "p99_ms"))
            }
            stem = f"delay_{slug}_rtt{rtt}"
            plots.grouped_bars(
                groups,
                series,
                out / stem,
                f"Queueing delay per class, {mix}, base RTT {rtt} ms",
                "queueing delay (ms, log scale)",
                log=True,
            )
            figs.append(
                Figure(
                    f"Queueing delay per class, {mix}, RTT {rtt} ms",
                    stem,
                    "Mean and p99 of each class's packets' waits at the bottleneck (packet captures); bars: "
                    "95 % intervals over seeds.",
                )
            )
    return figs


STUDY = Study(
    name="l4s-coexistence",
    title="L4S coexistence — scalable and classic TCP over DualPI2, FQ-CoDel and PIE (RFC 9332's claims, "
    "simulated with aqmlab)",
    citation="K. De Schepper, B. Briscoe, G. White, RFC 9332: Dual-Queue Coupled Active Queue Management "
    "(AQM) for Low Latency, Low Loss, and Scalable Throughput (L4S), 2023.",
    runs=runs,
    tables=tables,
    findings=findings,
    figures=figures,
    # At 80 ms one CUBIC flow's epochs last seconds, so a 100-s run's rate ratio varies from seed to seed
    # (1.4-1.8 over DualPI2) more than 3 seeds' intervals (t = 4.30) can resolve against 0.5-2.
    seeds=5,
    quick_seeds=2,
    reduce=_metrics,  # each run's captures reduced as soon as it is stored: peak disk a few runs' worth
    notes=[
        f"The scalable sender is {SCALABLE_NAME} sending ECT(1) (docs/tcp.md#tcp-prague: DCTCP's response to "
        "marks, pacing, RTT independence below 25 ms; classic ECN feedback, not AccECN); "
        'l4s_coexistence.SCALABLE_CC = "dctcp" runs DCTCP instead.',
        "Classic flows are not ECN-capable (Linux's client default): DualPI2's C queue and the classic laws "
        "drop them. The classic FQ-CoDel and PIE run with ECN on and treat ECT(1) as ECT(0).",
        "Dumbbell, 100 Mb/s (quick: 40 Mb/s), 1 ms access links at 200 Mb/s, base RTTs 20 and 80 ms; every "
        "AQM with its defaults (docs/aqm.md#dualpi2, docs/aqm.md#l4s-mode: ce_threshold 1 ms).",
        "Findings require the 95 % interval over seeds (Student t) to lie inside (or, for classic PIE, "
        "wholly outside) the claim's range; the full version runs 5 seeds (t = 2.78), --quick 2 (t = 12.7).",
        "--quick: 40 Mb/s, the 1+1 CUBIC mix only, 60 s runs measured after 20 s (full: 100 s after 30 s), "
        "2 seeds.",
    ],
    full_runtime="50 s of wall time on 2 cores (--jobs 2; 5 seeds x 30 configurations, 150 runs; peak RSS "
    "265 MB), measured with /usr/bin/time on 2026-11-25",
)
