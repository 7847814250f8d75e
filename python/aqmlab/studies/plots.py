"""The studies' figures, drawn from run folders: response-time CDFs (0-2 s), CCDFs on log-log axes,
queue-size processes and bars with 95 % intervals. Every figure is written as PNG and SVG."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from aqmlab.plot import save_figure  # noqa: E402
from aqmlab.studies.base import RunOutcome  # noqa: E402


def pooled_bins(outcomes: list[RunOutcome], cls: str) -> pd.DataFrame:
    """Histogram bins of class `cls` summed over runs (seeds), sorted by edge."""
    frames = []
    for o in outcomes:
        b = o.table("response_bins")
        frames.append(b[b["class"] == cls])
    if not frames:
        return pd.DataFrame(columns=["lo_s", "hi_s", "count"])
    b = pd.concat(frames).groupby(["lo_s", "hi_s"], as_index=False)["count"].sum()
    return b.sort_values("lo_s")


def cdf_points(bins: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(x, F(x)) at the upper bin edges."""
    if bins.empty:
        return np.array([]), np.array([])
    counts = bins["count"].to_numpy(dtype=float)
    return bins["hi_s"].to_numpy(), np.cumsum(counts) / counts.sum()


def response_cdf(curves: dict[str, list[RunOutcome]], cls: str, stem: Path, title: str) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, outcomes in curves.items():
        x, y = cdf_points(pooled_bins(outcomes, cls))
        if len(x):
            ax.step(np.concatenate([[0], x]), np.concatenate([[0], y]), where="post", label=name)
    ax.set_xlim(0, 2)
    ax.set_ylim(0, 1)
    ax.set_xlabel("response time (s)")
    ax.set_ylabel("cumulative probability")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, stem)


def response_ccdf(curves: dict[str, list[RunOutcome]], cls: str, stem: Path, title: str) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, outcomes in curves.items():
        x, y = cdf_points(pooled_bins(outcomes, cls))
        keep = y < 1
        if keep.any():
            ax.loglog(x[keep] * 1e3, 1 - y[keep], label=name)
    ax.set_xlim(10, 1e7)
    ax.set_xlabel("response time (ms)")
    ax.set_ylabel("complementary cumulative probability")
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    save_figure(fig, stem)


def queue_process(series: dict[str, RunOutcome], link: str, stem: Path, title: str, t_range=None) -> None:
    """Queue length (packets) over time at `link`, one panel per entry."""
    n = len(series)
    fig, axes = plt.subplots(n, 1, figsize=(7, 1.6 * n + 0.6), sharex=True, squeeze=False)
    for ax, (name, o) in zip(axes[:, 0], series.items(), strict=True):
        s = o.table("queue_samples")
        s = s[s["link"] == link]
        if t_range:
            s = s[(s["t"] >= t_range[0]) & (s["t"] <= t_range[1])]
        ax.plot(s["t"], s["q_pkts"], lw=0.6)
        ax.set_ylabel(name, fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time (s)")
    axes[0, 0].set_title(title)
    save_figure(fig, stem)


def grouped_bars(
    groups: list[str],
    series: dict[str, list[tuple[float, float]]],
    stem: Path,
    title: str,
    ylabel: str,
    *,
    log: bool = False,
    band: tuple[float, float] | None = None,
) -> None:
    """Bars of (mean, 95 % half-width) per group, one bar per series side by side, with error bars; `band`
    shades a reference range (e.g. a claim's)."""
    fig, ax = plt.subplots(figsize=(max(6.4, 1.3 * len(groups)), 4.2))
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for i, (name, cells) in enumerate(series.items()):
        means = np.array([m for m, _ in cells], dtype=float)
        halves = np.array([h if h == h else 0.0 for _, h in cells], dtype=float)
        # An interval reaching below zero cannot be drawn on a log axis: cut it at the bar's foot.
        lower = np.minimum(halves, means * 0.9) if log else halves
        ax.bar(
            x + (i - (len(series) - 1) / 2) * width, means, width, yerr=[lower, halves], capsize=3, label=name
        )
    if band:
        ax.axhspan(*band, color="green", alpha=0.1, label=f"{band[0]:g}–{band[1]:g}")
    if log:
        ax.set_yscale("log")
    ax.set_xticks(x, groups, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y", which="both")
    ax.legend(fontsize=8)
    save_figure(fig, stem)
