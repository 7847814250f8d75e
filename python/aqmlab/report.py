"""Writes a study's report folder: Markdown and HTML tables (simulated beside the paper), figures as PNG
and SVG, the findings with their checks, and report.html showing all of it."""

from __future__ import annotations

import html
import json
from pathlib import Path

from aqmlab.studies.base import Figure, Finding, Study, Table


def table_markdown(t: Table) -> str:
    cols = list(t.frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in t.frame.iterrows():
        lines.append("| " + " | ".join(str(row[c]) for c in cols) + " |")
    return f"### {t.title}\n\n" + "\n".join(lines) + (f"\n\n{t.note}\n" if t.note else "\n")


def _table_html(t: Table) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in t.frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in t.frame.itertuples(index=False)
    )
    note = f"<p class='note'>{html.escape(t.note)}</p>" if t.note else ""
    return f"<h3>{html.escape(t.title)}</h3><table><tr>{head}</tr>{body}</table>{note}"


def _finding_html(f: Finding) -> str:
    cls = "ok" if f.reproduced else "no"
    reference = f"<br><span class='evidence'>{html.escape(f.reference)}</span>" if f.reference else ""
    return (
        f"<li><span class='{cls}'>{f.verdict}</span> — {html.escape(f.claim)}"
        f"<br><span class='evidence'>{html.escape(f.evidence)}</span>{reference}</li>"
    )


STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f0f0f0; }
.ok { color: #106010; font-weight: bold; } .no { color: #a01010; font-weight: bold; }
.evidence { color: #555; font-size: 0.9em; } .note { color: #555; font-size: 0.9em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
"""


def write_report(
    study: Study,
    out: Path,
    tables: list[Table],
    findings: list[Finding],
    figures: list[Figure],
    facts: dict,
) -> Path:
    """Writes report.md, report.html, tables.md and findings.json into `out`; figures are already there."""
    out.mkdir(parents=True, exist_ok=True)
    md = [f"# {study.title}\n", f"{study.citation}\n"]
    md += [f"- {k}: {v}" for k, v in facts.items()]
    md += [""] + [f"> {n}" for n in study.notes] + [""]
    md += ["## Tables (simulated mean ± 95% interval over seeds, beside the paper's values)\n"]
    md += [table_markdown(t) for t in tables]
    md += ["## Findings\n"]
    md += [
        f"- **{f.verdict}** — {f.claim}  \n  {f.evidence}" + (f"  \n  {f.reference}" if f.reference else "")
        for f in findings
    ]
    md += ["", "## Figures\n"] + [f"![{f.title}]({f.stem}.png)\n\n{f.caption}\n" for f in figures]
    (out / "report.md").write_text("\n".join(md) + "\n")
    (out / "tables.md").write_text("\n".join(table_markdown(t) for t in tables))
    (out / "findings.json").write_text(
        json.dumps(
            [
                {
                    "claim": f.claim,
                    "reproduced": f.reproduced,
                    "evidence": f.evidence,
                    "reference": f.reference,
                    "reference_reproduced": f.reference_reproduced,
                }
                for f in findings
            ],
            indent=2,
        )
    )
    for i, t in enumerate(tables):
        t.frame.to_csv(out / f"table{i + 1}.csv", index=False)
    facts_html = "".join(f"<li>{html.escape(str(k))}: {html.escape(str(v))}</li>" for k, v in facts.items())
    notes_html = "".join(f"<p class='note'>{html.escape(n)}</p>" for n in study.notes)
    figs_html = "".join(
        f"<figure><img src='{f.stem}.png' alt='{html.escape(f.title)}'>"
        f"<figcaption>{html.escape(f.title)}. {html.escape(f.caption)}</figcaption></figure>"
        for f in figures
    )
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(study.title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{html.escape(study.title)}</h1>"
        f"<p>{html.escape(study.citation)}</p><ul>{facts_html}</ul>{notes_html}"
        f"<h2>Tables</h2><p>Simulated: mean ± 95% confidence interval over seeds. "
        f"Paper: the published value.</p>{''.join(_table_html(t) for t in tables)}"
        f"<h2>Findings</h2><ul>{''.join(_finding_html(f) for f in findings)}</ul>"
        f"<h2>Figures</h2>{figs_html}</body></html>"
    )
    path = out / "report.html"
    path.write_text(page)
    return path
