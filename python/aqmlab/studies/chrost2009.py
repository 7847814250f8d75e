"""Study C: Chrost & Chydzinski — queue-size stability of AQMs under low congestion and short buffers.

The dumbbell of studies/scenarios/chrost2009/c{10,100,1000}.toml with DT, RED, BLUE, REM, PI, AVQ and
AN-AQM on the bottleneck (ns-2 defaults, buffer 90; the uncongested case also with buffer 900); the paper's
tables of average queue, throughput, standard deviation and coefficient of variation.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pandas as pd

from aqmlab.studies import plots
from aqmlab.studies.base import Figure, Finding, RunOutcome, Study, StudyRun, Table, fmt_ci, mean_ci

SCENARIOS = files(__package__) / "scenarios" / "chrost2009"
SCALES = {"uncongested": "c10.toml", "mild": "c100.toml", "heavy": "c1000.toml"}
AQMS = ["DT", "RED", "BLUE", "REM", "PI", "AVQ", "AN-AQM"]


def queue(aqm: str, buffer: int) -> str:
    """The bottleneck queue with ns-2's defaults (AN-AQM: target 30% of the buffer)."""
    kind = {"DT": "droptail", "AN-AQM": "an_aqm"}.get(aqm, aqm.lower())
    extra = f", qref = {round(0.3 * buffer)}" if aqm == "AN-AQM" else ""
    return f'{{ kind = "{kind}", limit = {buffer}{extra} }}'


# The paper's tables: (avg queue pkts, throughput %, std pkts, CoV %) per AQM and scale, buffer 90.
PAPER_90 = {
    "DT": [(1.8, 40.5, 8.6, 473.5), (22.0, 92.0, 25.6, 116.2), (73.5, 100.0, 21.4, 29.1)],
    "RED": [(0.4, 24.2, 2.4, 674.2), (4.3, 71.6, 7.9, 184.5), (22.2, 94.5, 9.7, 43.6)],
    "BLUE": [(1.7, 39.3, 8.1, 472.7), (17.5, 91.9, 24.4, 145.1), (48.8, 100.0, 38.9, 79.7)],
    "REM": [(1.7, 39.3, 8.1, 471.1), (21.8, 92.3, 25.2, 115.8), (70.6, 100.0, 22.0, 31.1)],
    "PI": [(1.6, 35.2, 8.0, 496.3), (21.8, 91.9, 24.9, 114.2), (70.9, 99.8, 22.1, 31.2)],
    "AVQ": [(1.0, 34.5, 5.5, 530.1), (13.1, 87.6, 18.0, 137.6), (21.5, 98.0, 17.9, 83.3)],
    "AN-AQM": [(0.6, 24.6, 3.9, 692.9), (4.1, 72.0, 7.9, 191.8), (18.9, 99.3, 9.8, 52.2)],
}
# Buffer 900, uncongested: (avg queue, throughput %, std).
PAPER_900 = {
    "DT": (227.0, 94.0, 272.0),
    "RED": (4.7, 60.2, 17.4),
    "BLUE": (213.6, 97.8, 287.2),
    "REM": (25.6, 93.3, 47.6),
    "PI": (3.6, 61.5, 13.6),
    "AVQ": (38.0, 79.4, 74.6),
    "AN-AQM": (38.1, 83.6, 63.8),
}


def runs(quick: bool, seeds: int, calibration: dict | None = None) -> list[StudyRun]:
    cases = [(scale, aqm, 90) for scale in SCALES for aqm in AQMS]
    cases += [("uncongested", aqm, 900) for aqm in AQMS]
    specs = []
    for scale, aqm, buffer in cases:
        text = SCENARIOS.joinpath(SCALES[scale]).read_text(encoding="utf-8")
        overrides = [f"links.0.queue_ab={queue(aqm, buffer)}", f"links.0.queue_ba.limit={buffer}"]
        if quick and scale == "heavy":
            overrides.append("duration=70")  # 40 s measured instead of 70 s: the heavy case costs most
        for seed in range(1, seeds + 1):
            labels = (("scale", scale), ("aqm", aqm), ("buffer", str(buffer)))
            specs.append(StudyRun(labels=labels, scenario=text, seed=seed, overrides=tuple(overrides)))
    return specs


def _metrics(o: RunOutcome) -> dict[str, float]:
    links = o.table("links").set_index("link")
    row = links.loc["A->B"]
    mean, std = float(row["q_sample_mean_pkts"]), float(row["q_sample_std_pkts"])
    return {
        "avg_queue": mean,
        "throughput": 100 * float(row["utilization"]),
        "std": std,
        "cov": 100 * std / mean if mean > 0 else float("nan"),
        "loss": 100 * float(row["loss_rate"]),
    }


def summarize(outcomes: list[RunOutcome]) -> pd.DataFrame:
    return pd.DataFrame([{**dict(o.spec.labels), "seed": o.spec.seed, **_metrics(o)} for o in outcomes])


def tables(outcomes: list[RunOutcome]) -> list[Table]:
    df = summarize(outcomes)

    def cell(scale: str, aqm: str, buffer: int, metric: str, digits: int = 1) -> str:
        sel = df[(df["scale"] == scale) & (df["aqm"] == aqm) & (df["buffer"] == str(buffer))][metric]
        return fmt_ci(*mean_ci(sel.tolist()), digits=digits)

    out = []
    names = ["avg queue (pkts)", "throughput (%)", "std (pkts)", "CoV (%)"]
    for k, (metric, name) in enumerate(zip(["avg_queue", "throughput", "std", "cov"], names, strict=True)):
        rows = []
        for aqm in AQMS:
            r = {"AQM": aqm}
            for i, scale in enumerate(SCALES):
                r[f"{scale} sim"] = cell(scale, aqm, 90, metric)
                r[f"{scale} paper"] = f"{PAPER_90[aqm][i][k]:.1f}"
            rows.append(r)
        out.append(
            Table(
                f"Buffer 90: {name} — uncongested (10) / mild (100) / heavy (1000 connections)",
                pd.DataFrame(rows),
            )
        )
    rows = []
    for aqm in AQMS:
        r = {"AQM": aqm}
        for k, (metric, name) in enumerate(zip(["avg_queue", "throughput", "std"], names, strict=False)):
            r[f"{name} sim"] = cell("uncongested", aqm, 900, metric)
            r[f"{name} paper"] = f"{PAPER_900[aqm][k]:.1f}"
        rows.append(r)
    out.append(Table("Buffer 900, uncongested (10 connections)", pd.DataFrame(rows)))
    return out


def findings(outcomes: list[RunOutcome]) -> list[Finding]:
    df = summarize(outcomes)
    m = df.groupby(["scale", "aqm", "buffer"])[["avg_queue", "throughput", "std", "cov"]].mean()

    def v(scale: str, aqm: str, buffer: int, metric: str) -> float:
        return float(m.loc[(scale, aqm, str(buffer)), metric])

    res = []
    covs = {(s, a): v(s, a, 90, "cov") for s in ("uncongested", "mild") for a in AQMS if a != "DT"}
    res.append(
        Finding(
            "With low congestion (10 and 100 connections) and a short buffer (90), no AQM keeps the queue "
            "stable: every coefficient of variation exceeds 100%.",
            all(c > 100 for c in covs.values()),
            "lowest CoV: " + "{}/{} {:.0f}%".format(*min(covs, key=covs.get), min(covs.values())),
        )
    )
    both = {
        a: (v("uncongested", a, 900, "avg_queue"), v("uncongested", a, 900, "cov")) for a in AQMS if a != "DT"
    }
    res.append(
        Finding(
            "With the 900-packet buffer at low congestion, no AQM keeps the queue both short (average below "
            "5% of the buffer) and stable (coefficient of variation below 100%).",
            not any(avg < 45 and cov < 100 for avg, cov in both.values()),
            ", ".join(f"{a} {avg:.0f} pkts, CoV {cov:.0f}%" for a, (avg, cov) in both.items()),
        )
    )
    rem_dt = [abs(v(s, "REM", 90, "avg_queue") / v(s, "DT", 90, "avg_queue") - 1) for s in ("mild", "heavy")]
    res.append(
        Finding(
            "With ns-2's defaults REM behaves like drop-tail (its capacity term assumes 1000-byte packets).",
            max(rem_dt) < 0.15,
            "REM vs DT average queue differs by "
            + ", ".join(f"{100 * d:.0f}%" for d in rem_dt)
            + " (mild, heavy)",
        )
    )
    return res


def figures(outcomes: list[RunOutcome], out: Path) -> list[Figure]:
    figs = []
    for scale in SCALES:
        series = {
            o.spec.label("aqm"): o
            for o in outcomes
            if o.spec.label("scale") == scale and o.spec.label("buffer") == "90" and o.spec.seed == 1
        }
        series = {a: series[a] for a in AQMS if a in series}
        stem = f"queue_{scale}"
        plots.queue_process(
            series, "A->B", out / stem, f"Queue size at A->B, {scale}, buffer 90 (seed 1)", (30, 100)
        )
        figs.append(
            Figure(
                f"Queue-size process, {scale}",
                stem,
                "Packets waiting at the bottleneck, sampled every 0.1 s.",
            )
        )
    return figs


STUDY = Study(
    name="chrost2009",
    title="Chrost & Chydzinski — AQM queue stability under low congestion and short buffers "
    "(reproduced with aqmlab)",
    citation="L. Chrost, A. Chydzinski, ns-2.33 dumbbell study of DT, RED, BLUE, REM, PI, AVQ and AN-AQM.",
    runs=runs,
    tables=tables,
    findings=findings,
    figures=figures,
    notes=[
        "Every AQM uses ns-2's default parameters, as the paper did; RED and AVQ default to byte mode, so "
        "their hard limits are 90×500 B and 90×1000 B "
        "(docs/aqm.md#red-automatic-parameters, docs/aqm.md#avq-virtual-queue).",
        "AN-AQM is a documented reconstruction (the paper describing it was not obtained); its constants "
        "are placeholders, so its rows are not evidence about the published algorithm.",
        "--quick runs one seed and stops the heavy (1000-connection) case at 70 s (40 s measured).",
    ],
    full_runtime="about 3 minutes of wall time per seed on 2 cores (28 runs)",
)
