"""Rich display of results in Jupyter: the HTML a notebook shows for a `RunResult` or a `SweepResult`
(their `_repr_html_`), a title, a line of facts and the tables a reader looks at first."""

from __future__ import annotations

import html
from collections.abc import Iterable

import pandas as pd

#: Rows shown of each table (the full tables are on the result object).
MAX_ROWS = 12


def result_html(title: str, facts: Iterable[str], tables: Iterable[tuple[str, pd.DataFrame]]) -> str:
    parts = [f"<h4>{html.escape(title)}</h4>", f"<p>{' · '.join(html.escape(f) for f in facts)}</p>"]
    for caption, df in tables:
        if df.empty:
            continue
        more = f" (first {MAX_ROWS} of {len(df)})" if len(df) > MAX_ROWS else ""
        parts.append(f"<p><b>{html.escape(caption)}</b>{more}</p>")
        parts.append(df.head(MAX_ROWS).to_html(index=False, float_format=lambda x: f"{x:.4g}", border=0))
    return "\n".join(parts)
