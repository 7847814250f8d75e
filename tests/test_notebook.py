"""The example notebook (examples/quickstart.ipynb) runs headless from the repository's root, as a user
would open it: every cell executes without error, and the results display as HTML."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def test_the_quickstart_notebook_runs_and_shows_its_results():
    nb = nbformat.read(ROOT / "examples" / "quickstart.ipynb", as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any(h.startswith("<h4>Run example (seed 1)</h4>") and "r1-&gt;r2" in h for h in html)
    assert any(h.startswith("<h4>Sweep ") and "4 runs planned" in h for h in html)
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 2
