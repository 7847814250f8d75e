"""Figures of any run or sweep folder (`aqmlab plot`), drawn with matplotlib from the folder's Parquet tables,
each written as PNG and SVG.

A run folder gives: queue length and queueing delay over time of the sampled links, the traced congestion
windows, goodput per flow, throughput over time per flow group and per flow (with `measure.flow_series`),
and the response-time CDF and CCDF per class. A sweep folder gives: box plots of
the busiest link's utilization, mean queue and loss and of each class's goodput per swept value, and
Flent's delay-versus-throughput scatter with one ellipse per configuration (mean and one standard
deviation over seeds). Figures a folder has no data for (no sampled link, no traced flow, no flow
series, no web traffic) are left out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

__all__ = ["Plot", "is_sweep", "plot_folder", "read_table", "save_figure", "summary_metrics", "swept_params"]

FORMATS = ("png", "svg")
#: Sampled links drawn at most (the busiest first); a figure with more panels is unreadable.
MAX_PANELS = 6
#: Flows drawn one line each in the throughput figure.
MAX_FLOW_LINES = 20


@dataclass
class Plot:
    """One figure written: its file stem (without extension) and what it shows."""

    stem: Path
    title: str


def is_sweep(folder: Path) -> bool:
    return (folder / "sweep.json").exists()


def plot_folder(
    folder: str | Path, out: str | Path | None = None, formats: Iterable[str] = FORMATS
) -> list[Plot]:
    """Draws every figure `folder` (a run or a sweep folder) has data for into `out` (default
    `folder/figures`) and returns them."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder")
    out = Path(out) if out is not None else folder / "figures"
    formats = tuple(formats)
    if bad := [f for f in formats if f not in FORMATS]:
        raise ValueError(f"--format: {', '.join(bad)} is not one of {', '.join(FORMATS)}")
    out.mkdir(parents=True, exist_ok=True)
    if is_sweep(folder):
        return _sweep_figures(folder, out, formats)
    if not (folder / "summary.json").exists():
        raise FileNotFoundError(
            f"{folder}: neither a run folder (summary.json) nor a sweep folder (sweep.json)"
        )
    return _run_figures(folder, out, formats)


def save_figure(fig, stem: Path, formats: Iterable[str] = FORMATS) -> None:
    """Writes `fig` as `stem.png` and `stem.svg` (or `formats`) and closes it."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    for fmt in formats:
        fig.savefig(stem.with_suffix(f".{fmt}"), dpi=110, bbox_inches="tight")
    plt.close(fig)


def _saved(fig, stem: Path, title: str, formats: Iterable[str]) -> Plot:
    """`fig` written as `stem` in `formats` (see `save_figure`), as the plot titled `title`."""
    save_figure(fig, stem, formats)
    return Plot(stem, title)


def read_table(folder: Path, name: str) -> pd.DataFrame:
    """A Parquet table of a run or sweep folder, empty when the folder has none."""
    path = folder / f"{name}.parquet"
    return pd.read_parquet(path) if path.exists() else pd.DataFrame()


# ------------------------------------------------------------------------------------------------- a run


def _run_figures(folder: Path, out: Path, formats: tuple[str, ...]) -> list[Plot]:
    links = read_table(folder, "links")
    drawn = []
    for table, draw in _RUN_FIGURES:
        # A run without the table (nothing traced, sampled or completed) has no such figure.
        df = read_table(folder, table)
        if not df.empty:
            drawn += draw(df, folder, links, out, formats)
    return drawn


def _queues(q: pd.DataFrame, folder: Path, links: pd.DataFrame, out: Path, formats) -> list[Plot]:
    """Queue length (packets) and queueing delay (backlog ÷ link rate: what an arrival then waits) over
    time, one panel per sampled link, busiest first."""
    busy = links.set_index("link")["utilization"] if not links.empty else pd.Series(dtype=float)
    names = sorted(q["link"].unique(), key=lambda n: -busy.get(n, 0.0))[:MAX_PANELS]
    rate = links.set_index("link")["rate_bps"] if not links.empty else pd.Series(dtype=float)
    plots = []
    for what, column, unit in (("queue", "q_pkts", "packets"), ("queue_delay", "q_bytes", "ms")):
        title = "Queue length" if what == "queue" else "Queueing delay (backlog / link rate)"
        fig, panels = _time_panels(names, unit, title)
        for ax, name in panels:
            s = q[q["link"] == name]
            y = s[column].to_numpy(dtype=float)
            if column == "q_bytes":
                y = 8e3 * y / float(rate.get(name, math.nan))
            ax.plot(s["t"], y, lw=0.7)
        plots.append(_saved(fig, out / what, title, formats))
    return plots


def _time_panels(names: list, unit: str, title: str):
    """A figure of one panel per name, stacked over a shared time axis; returns it and (axes, name)."""
    fig, axes = plt.subplots(len(names), 1, figsize=(7.5, 1.9 * len(names) + 0.6), sharex=True, squeeze=False)
    for ax, name in zip(axes[:, 0], names, strict=True):
        ax.set_ylabel(unit)
        ax.set_title(str(name), fontsize=9, loc="left")
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(title)
    return fig, list(zip(axes[:, 0], names, strict=True))


def _cwnd(trace: pd.DataFrame, folder: Path, links: pd.DataFrame, out: Path, formats) -> list[Plot]:
    flows = sorted(trace["flow"].unique())[:MAX_PANELS]
    fig, panels = _time_panels([f"flow {f}" for f in flows], "segments", "Congestion window")
    for (ax, _), flow in zip(panels, flows, strict=True):
        s = trace[trace["flow"] == flow]
        ax.step(s["t"], s["cwnd"], where="post", lw=0.8, label="cwnd")
        ax.step(
            s["t"],
            s["ssthresh"].clip(upper=s["cwnd"].max() * 1.5),
            where="post",
            lw=0.8,
            ls="--",
            label="ssthresh",
        )
    panels[0][0].legend(fontsize=8, loc="upper right")
    return [_saved(fig, out / "cwnd", "Congestion window of the traced flows", formats)]


def _goodput(flows: pd.DataFrame, folder: Path, links: pd.DataFrame, out: Path, formats) -> list[Plot]:
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for group, g in flows.groupby("group", sort=False):
        ax.bar(g["flow"], g["goodput_bps"] / 1e6, label=group, width=0.8)
    ax.set_xlabel("flow")
    ax.set_ylabel("goodput (Mb/s)")
    ax.grid(alpha=0.3, axis="y")
    if flows["group"].nunique() <= 12:
        ax.legend(fontsize=8)
    ax.set_title("Goodput per flow (after the warm-up)")
    return [_saved(fig, out / "goodput", "Goodput per flow", formats)]


def _throughput(series: pd.DataFrame, folder: Path, links: pd.DataFrame, out: Path, formats) -> list[Plot]:
    """Throughput over time from the flow series (bytes delivered per sample interval): the total of each
    flow group, and each flow of the first groups (at most MAX_FLOW_LINES lines)."""
    groups = read_table(folder, "flows").set_index("flow")["group"]
    series = series.sort_values(["flow", "t"]).assign(group=lambda d: d["flow"].map(groups))
    # Each row covers the time since the flow's previous row (the first: one interval, as the next).
    interval = series.groupby("flow")["t"].diff()
    interval = interval.fillna(series.groupby("flow")["t"].transform(lambda t: t.diff().median()))
    series["mbps"] = 8e-6 * series["bytes_delivered"] / interval
    names = ["by flow group", "by flow"]
    fig, panels = _time_panels(names, "Mb/s", "Throughput over time (bytes delivered per sample interval)")
    (by_group, _), (by_flow, _) = panels
    for group, g in series.groupby("group", sort=False):
        total = g.groupby("t")["mbps"].sum()
        by_group.plot(total.index, total.to_numpy(), lw=0.8, label=group)
    for flow in series["flow"].unique()[:MAX_FLOW_LINES]:
        s = series[series["flow"] == flow]
        by_flow.plot(s["t"], s["mbps"], lw=0.6)
    if series["group"].nunique() <= 12:
        by_group.legend(fontsize=8, loc="upper right")
    return [_saved(fig, out / "throughput", "Throughput over time", formats)]


def _responses(bins: pd.DataFrame, folder: Path, links: pd.DataFrame, out: Path, formats) -> list[Plot]:
    """Response-time CDF (0 to the 99th percentile) and CCDF (log-log) per class, from the histogram."""
    fig_cdf, ax_cdf = plt.subplots(figsize=(6.4, 4.2))
    fig_ccdf, ax_ccdf = plt.subplots(figsize=(6.4, 4.2))
    xmax = 0.0
    for cls, b in bins.groupby("class"):
        b = b.sort_values("lo_s")
        counts = b["count"].to_numpy(dtype=float)
        cdf = np.cumsum(counts) / counts.sum()
        x = b["hi_s"].to_numpy()
        ax_cdf.step(np.r_[0.0, x], np.r_[0.0, cdf], where="post", label=cls)
        ax_ccdf.loglog(x[cdf < 1], 1 - cdf[cdf < 1], label=cls)
        xmax = max(xmax, float(x[np.searchsorted(cdf, 0.99)]))
    ax_cdf.set_xlim(0, xmax or None)
    ax_cdf.set_ylim(0, 1)
    for ax, ylabel in ((ax_cdf, "P(response time ≤ x)"), (ax_ccdf, "P(response time > x)")):
        ax.set_xlabel("response time (s)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    ax_cdf.set_title("Response-time CDF")
    ax_ccdf.set_title("Response-time CCDF")
    return [
        _saved(fig_cdf, out / "response_cdf", "Response-time CDF", formats),
        _saved(fig_ccdf, out / "response_ccdf", "Response-time CCDF", formats),
    ]


#: The figures of a run: the table each is drawn from, and the drawer, given that table when it has rows.
_RUN_FIGURES = (
    ("queue_samples", _queues),
    ("cwnd_trace", _cwnd),
    ("flows", _goodput),
    ("flow_series", _throughput),
    ("response_bins", _responses),
)

# ----------------------------------------------------------------------------------------------- a sweep


def _sweep_figures(folder: Path, out: Path, formats: tuple[str, ...]) -> list[Plot]:
    agg = read_table(folder, "aggregate")
    if agg.empty:
        return []
    params = swept_params(json.loads((folder / "sweep.json").read_text()), agg)
    agg = agg.assign(config=_config_labels(agg, params))
    plots = _boxes(agg, " × ".join(params), out, formats)
    plots += _delay_throughput(folder, agg, out, formats)
    return plots


def _config_labels(agg: pd.DataFrame, params: list[str]) -> pd.Series:
    """One label per configuration: the swept values, `key=value` joined (the run's hash without any)."""
    if not params:
        return pd.Series(["all"] * len(agg), index=agg.index)
    if len(params) == 1:  # the parameter is named in the figure's title
        return agg[params[0]].astype(str)
    return agg[params].astype(str).apply(lambda r: ", ".join(f"{k}={v}" for k, v in r.items()), axis=1)


def swept_params(plan: dict, agg: pd.DataFrame) -> list[str]:
    """The swept keys of a sweep's definition (`sweep.json`) that are columns of its aggregate table."""
    return [p for p in [*plan.get("grid", {}), *plan.get("zip", {})] if p in agg.columns]


def _busiest_link(agg: pd.DataFrame) -> str | None:
    util = agg[(agg["scope"] == "link") & (agg["metric"] == "utilization")]
    return None if util.empty else str(util.groupby("entity")["value"].mean().idxmax())


def summary_metrics(agg: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(scope, entity, metric) a sweep is summarised by: the busiest link's utilization, mean queue and
    loss rate, then each class's goodput (sorted by class)."""
    link = _busiest_link(agg)
    metrics = [("link", link, m) for m in ("utilization", "q_mean_pkts", "loss_rate")] if link else []
    classes = agg.loc[(agg["scope"] == "class") & (agg["metric"] == "goodput_bps"), "entity"].unique()
    return metrics + [("class", c, "goodput_bps") for c in sorted(classes)]


def _boxes(agg: pd.DataFrame, swept: str, out: Path, formats) -> list[Plot]:
    """Box plots over seeds per configuration of the summary metrics (at most MAX_PANELS classes)."""
    metrics = summary_metrics(agg)
    panels = [m for m in metrics if m[0] == "link"] + [m for m in metrics if m[0] == "class"][:MAX_PANELS]
    if not panels:
        return []
    configs = list(dict.fromkeys(agg["config"]))
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(max(6.4, 0.9 * len(configs) + 2), 2.2 * len(panels) + 0.8), squeeze=False
    )
    for ax, (scope, entity, metric) in zip(axes[:, 0], panels, strict=True):
        sel = agg[(agg["scope"] == scope) & (agg["entity"] == entity) & (agg["metric"] == metric)]
        scale, unit = (1e-6, " (Mb/s)") if metric.endswith("_bps") else (1.0, "")
        data = [scale * sel.loc[sel["config"] == c, "value"].to_numpy() for c in configs]
        ax.boxplot(data, tick_labels=configs, showmeans=True)
        ax.set_title(f"{entity}: {metric.removesuffix('_bps')}{unit}", fontsize=9, loc="left")
        ax.grid(alpha=0.3, axis="y")
        ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    fig.suptitle(f"Over seeds, per value of {swept}" if swept else "Over seeds")
    fig.tight_layout()
    return [_saved(fig, out / "boxes", "Box plots over seeds per configuration", formats)]


def _delay_throughput(folder: Path, agg: pd.DataFrame, out: Path, formats) -> list[Plot]:
    """Flent's view: mean queueing delay on the busiest link (time-average backlog ÷ rate, from each run's
    links table) against the total goodput, one point per run, one ellipse (one standard deviation over
    seeds) per configuration."""
    link = _busiest_link(agg)
    if link is None:
        return []
    points = []
    for (run, config), _ in agg.groupby(["run", "config"]):
        links = read_table(folder / "runs" / str(run), "links")
        flows = read_table(folder / "runs" / str(run), "flows")
        if links.empty or flows.empty:
            continue
        row = links.set_index("link").loc[link]
        delay_ms = 8e3 * float(row["q_mean_bytes"]) / float(row["rate_bps"])
        points.append((config, delay_ms, flows["goodput_bps"].sum() / 1e6))
    if not points:
        return []
    df = pd.DataFrame(points, columns=["config", "delay_ms", "goodput_mbps"])
    fig, ax = plt.subplots(figsize=(6.8, 4.6))
    for i, (config, g) in enumerate(df.groupby("config", sort=False)):
        color = f"C{i % 10}"
        ax.scatter(g["delay_ms"], g["goodput_mbps"], s=14, color=color, label=config)
        if len(g) >= 3:
            ax.add_patch(_ellipse(g["delay_ms"].to_numpy(), g["goodput_mbps"].to_numpy(), color))
    ax.invert_xaxis()  # Flent's convention: better (lower delay) to the right
    ax.set_xlabel(f"mean queueing delay on {link} (ms)")
    ax.set_ylabel("total goodput (Mb/s)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("Delay vs throughput (ellipse: one standard deviation over seeds)")
    return [_saved(fig, out / "delay_throughput", "Delay vs throughput per configuration", formats)]


def _ellipse(x: np.ndarray, y: np.ndarray, color: str) -> Ellipse:
    """The one-standard-deviation ellipse of the points: axes along the covariance's eigenvectors."""
    cov = np.cov(x, y)
    values, vectors = np.linalg.eigh(cov)
    angle = math.degrees(math.atan2(vectors[1, 1], vectors[0, 1]))
    w, h = 2 * np.sqrt(np.maximum(values[::-1], 0))
    return Ellipse((x.mean(), y.mean()), w, h, angle=angle, fill=False, color=color, lw=1)
