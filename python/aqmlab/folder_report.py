"""`aqmlab report RUN|SWEEP`: a self-contained HTML page for any run or sweep folder — its facts, its
tables (pandas' HTML) and its figures (:mod:`aqmlab.plot`), laid out by a Jinja2 template
(`templates/folder_report.html.j2`). The studies have their own report (:mod:`aqmlab.report`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import jinja2
import pandas as pd

from aqmlab import __version__, plot
from aqmlab.studies.base import fmt_ci, mean_ci

__all__ = ["write_folder_report"]

#: Links listed in a run's report (the busiest first).
MAX_LINKS = 12


@dataclass
class _Table:
    title: str
    html: str
    note: str = ""


def write_folder_report(folder: str | Path, out: str | Path | None = None) -> Path:
    """Draws the folder's figures and writes `report.html` into `out` (default: the folder itself);
    returns the page's path."""
    folder = Path(folder)
    out = Path(out) if out is not None else folder
    out.mkdir(parents=True, exist_ok=True)
    figures = plot.plot_folder(folder, out / "figures", formats=("png", "svg"))
    if plot.is_sweep(folder):
        title, facts, warnings, tables = _sweep_content(folder)
    else:
        title, facts, warnings, tables = _run_content(folder)
    template = jinja2.Environment(autoescape=True).from_string(
        files("aqmlab").joinpath("templates/folder_report.html.j2").read_text(encoding="utf-8")
    )
    page = template.render(
        title=title,
        facts=facts,
        warnings=warnings,
        tables=tables,
        figures=[{"src": f"{p.stem.relative_to(out)}.png", "title": p.title} for p in figures],
        version=__version__,
    )
    path = out / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def _html(df: pd.DataFrame) -> str:
    return df.to_html(index=False, border=0, na_rep="–", float_format=lambda v: f"{v:.4g}")


def _run_content(folder: Path):
    s = json.loads((folder / "summary.json").read_text())
    facts = [
        ("scenario", s.get("scenario_file") or s.get("name")),
        ("seed", s.get("seed")),
        (
            "simulated",
            f"{s.get('end_s', 0):g} s (warm-up {s.get('warmup_s', 0):g} s), ended by {s.get('ended_by')}",
        ),
        ("events", f"{s.get('events', 0):,}"),
        ("wall time", f"{s.get('wall_s', 0):.2f} s"),
        ("overrides", " ".join(s.get("overrides") or []) or "none"),
    ]
    tables = []
    links = plot.read_table(folder, "links")
    if not links.empty:
        top = links.sort_values("utilization", ascending=False).head(MAX_LINKS)
        tables.append(
            _Table(
                "Links (busiest first)",
                _html(
                    pd.DataFrame(
                        {
                            "link": top["link"],
                            "queue": top["queue"],
                            "rate Mb/s": top["rate_bps"] / 1e6,
                            "utilization": top["utilization"],
                            "loss %": 100 * top["loss_rate"],
                            "drops": top["drops"],
                            "marks": top["marks"],
                            "mean queue pkts": top["q_mean_pkts"],
                            "mean queueing delay ms": 8e3 * top["q_mean_bytes"] / top["rate_bps"],
                        }
                    )
                ),
                f"{len(links)} link directions; queueing delay = time-average backlog / rate.",
            )
        )
    flows = plot.read_table(folder, "flows")
    if not flows.empty:
        g = flows.groupby("group", sort=False)
        tables.append(
            _Table(
                "Flow groups",
                _html(
                    pd.DataFrame(
                        {
                            "group": list(g.groups),
                            "flows": g.size().to_numpy(),
                            "goodput Mb/s": g["goodput_bps"].sum().to_numpy() / 1e6,
                            "per flow Mb/s": g["goodput_bps"].mean().to_numpy() / 1e6,
                            "retransmits": g["retransmits"].sum().to_numpy(),
                            "timeouts": g["timeouts"].sum().to_numpy(),
                        }
                    )
                ),
            )
        )
    for name, title in (("classes", "Traffic classes"), ("responses", "Response times (s)")):
        df = plot.read_table(folder, name)
        if not df.empty:
            tables.append(_Table(title, _html(df)))
    return f"Run {s.get('name')} (seed {s.get('seed')})", facts, s.get("warnings") or [], tables


def _sweep_content(folder: Path):
    plan = json.loads((folder / "sweep.json").read_text())
    agg = plot.read_table(folder, "aggregate")
    failed_path = folder / "failed.json"
    failed = json.loads(failed_path.read_text()) if failed_path.exists() else []
    params = plot.swept_params(plan, agg)
    facts = [
        ("scenario", plan.get("scenario_file")),
        (
            "swept",
            ", ".join(f"{k} = {v}" for k, v in {**plan.get("grid", {}), **plan.get("zip", {})}.items())
            or "nothing",
        ),
        ("fixed", " ".join(plan.get("sets") or []) or "none"),
        ("seeds", ", ".join(map(str, plan.get("seeds", [])))),
        (
            "runs",
            f"{len(plan.get('runs', []))} planned, {agg['run'].nunique() if not agg.empty else 0} done, "
            f"{len(failed)} failed",
        ),
    ]
    warnings = [
        f"run {f.get('hash')} ({f.get('params')}, seed {f.get('seed')}) failed: {f.get('error')}"
        for f in failed
    ]
    tables = []
    if not agg.empty:
        tables.append(
            _Table(
                "Per configuration: mean ± 95 % interval over seeds (Student t)",
                _html(_per_config(agg, params)),
            )
        )
    return f"Sweep of {Path(plan.get('scenario_file', folder)).name}", facts, warnings, tables


def _per_config(agg: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """One row per configuration: the busiest link's utilization, mean queue and loss, and each class's
    goodput, as mean ± 95 % interval over its seeds."""
    columns = [
        (scope, entity, metric, 1e-6, f"{entity} goodput Mb/s")
        if metric == "goodput_bps"
        else (scope, entity, metric, 1.0, f"{entity} {metric}")
        for scope, entity, metric in plot.summary_metrics(agg)
    ]
    rows = []
    for config, runs in agg.groupby(params, sort=False) if params else [((), agg)]:
        row = (
            dict(zip(params, config if isinstance(config, tuple) else (config,), strict=True))
            if params
            else {}
        )
        row["seeds"] = runs["seed"].nunique()
        for scope, entity, metric, scale, name in columns:
            sel = runs[(runs["scope"] == scope) & (runs["entity"] == entity) & (runs["metric"] == metric)]
            row[name] = fmt_ci(*(scale * v for v in mean_ci(sel["value"])), digits=4)
        rows.append(row)
    return pd.DataFrame(rows)
