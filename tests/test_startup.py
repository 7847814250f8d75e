"""The `aqmlab` command loads the heavy packages only for the commands that use them, so that `--version`,
`--help` and `validate` start at once (their times: `make bench`, validation/startup.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("dask", "distributed", "matplotlib", "numpy", "pandas", "pyarrow", "rich", "scipy")

# Runs the command in a fresh interpreter, then names the heavy packages it imported.
PROBE = """
import sys
from aqmlab.cli import main
main(sys.argv[1:])
print(" ".join(m for m in {heavy} if m in sys.modules), file=sys.stderr)
"""


def heavy_imports(*args: str) -> set[str]:
    p = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args], capture_output=True, text=True, check=False
    )
    assert p.returncode == 0, p.stderr
    return set(p.stderr.splitlines()[-1].split()) if p.stderr.strip() else set()


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["run", "--help"], ["reproduce", "--help"]])
def test_version_and_help_import_none_of_the_heavy_packages(args):
    assert heavy_imports(*args) == set()


def test_validate_imports_only_rich(example):
    assert heavy_imports("validate", str(example)) == {"rich"}


def test_run_imports_only_rich(example, tmp_path):
    # The engine writes the tables; the summary is printed from the rows it returns.
    args = ["run", str(example), "--set", "duration=1", "--out", str(tmp_path / "run")]
    assert heavy_imports(*args) == {"rich"}
