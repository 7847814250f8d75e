"""`aqmlab plot` and `aqmlab report` on any run or sweep folder: every figure the folder has data for is
written as PNG and SVG, the HTML page holds the tables and the figures, and the ellipse of the
delay-vs-throughput scatter is the points' one-standard-deviation ellipse."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aqmlab
from aqmlab import plot, sweep
from aqmlab.folder_report import write_folder_report
from test_cli import aqmlab as cli

SHORT = ["duration=8", "measure.warmup=2"]


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    from conftest import EXAMPLE

    out = tmp_path_factory.mktemp("plot") / "run"
    aqmlab.run(EXAMPLE, set=[*SHORT, "measure.flow_series=true"], out=out)
    return out


def test_a_run_gets_queue_delay_cwnd_and_goodput_figures(run_folder, tmp_path):
    figures = plot.plot_folder(run_folder, tmp_path / "figs")
    assert [f.stem.name for f in figures] == ["queue", "queue_delay", "cwnd", "goodput", "throughput"]
    for f in figures:
        assert f.stem.with_suffix(".png").stat().st_size > 1000
        assert f.stem.with_suffix(".svg").read_text().lstrip().startswith("<?xml")


def test_a_run_report_holds_its_tables_and_figures(run_folder):
    page = write_folder_report(run_folder).read_text()
    assert "Links (busiest first)" in page and "Flow groups" in page and "r1-&gt;r2" in page
    assert page.count("<img ") == 5 and 'src="figures/throughput.png"' in page


def test_a_sweep_gets_boxes_scatter_and_a_table_with_intervals(tmp_path):
    from conftest import EXAMPLE

    out = tmp_path / "sw"
    sweep.run_sweep(EXAMPLE, grid=["links.3.queue_ab.limit=20,100"], sets=SHORT, seeds=3, jobs=1, out=out)
    assert [f.stem.name for f in plot.plot_folder(out)] == ["boxes", "delay_throughput"]
    page = write_folder_report(out).read_text()
    assert "links.3.queue_ab.limit" in page and page.count(" ± ") >= 2 * 3 and page.count("<img ") == 2


def test_the_ellipse_is_one_standard_deviation_along_the_principal_axes():
    # x spread 2, y spread 1, uncorrelated: sample variances 8/3 and 2/3, axes 2·sqrt of each, angle 0.
    e = plot._ellipse(np.array([-2.0, 2.0, 0.0, 0.0]), np.array([0.0, 0.0, -1.0, 1.0]), "C0")
    assert e.center == (0.0, 0.0)
    assert e.width == pytest.approx(2 * math.sqrt(8 / 3)) and e.height == pytest.approx(2 * math.sqrt(2 / 3))
    assert e.angle % 180 == pytest.approx(0.0, abs=1e-9)
    # The same points turned by 90 degrees: the long axis is vertical.
    e = plot._ellipse(np.array([0.0, 0.0, -1.0, 1.0]), np.array([-2.0, 2.0, 0.0, 0.0]), "C0")
    assert e.angle % 180 == pytest.approx(90.0)


def test_plot_errors_are_one_line(tmp_path):
    p = cli("plot", tmp_path / "nope")
    assert p.returncode == 2 and "no such folder" in p.stderr and p.stderr.count("\n") == 1
    p = cli("plot", tmp_path, "--format", "jpg")
    assert p.returncode == 2 and "--format" in p.stderr
    p = cli("report", tmp_path)
    assert p.returncode == 2 and "neither a run folder" in p.stderr
