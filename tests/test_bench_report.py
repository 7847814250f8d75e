"""The benchmark report's arithmetic (validation/bench.py), on hand-made measurements."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "validation"))
import bench  # noqa: E402


def measured(walls: list[float], forwards: int, rss: float = 4.0) -> bench.Measured:
    return bench.Measured(runs=[{"wall_s": w, "link_forwards": forwards, "peak_rss_mb": rss} for w in walls])


def test_scaling_rows_take_the_median_run_and_compare_with_the_smallest_n():
    small = bench.Scenario("DT", 10, 60.0)
    large = bench.Scenario("DT", 1000, 60.0)
    scaling = [
        # Median wall 0.2 s for 2 M forwards: 10 M per second, 100 ns each.
        (small, measured([0.3, 0.2, 0.1], 2_000_000), measured([1.0], 1_500_000)),
        # Median wall 0.5 s for 2.5 M forwards: 5 M per second, half the smallest N's rate.
        (large, measured([0.5, 0.6, 0.4], 2_500_000, rss=11.0), None),
    ]
    head, rows = bench.scaling_rows(scaling)
    first = dict(zip(head, rows[0], strict=True))
    assert first["forwards / wall s"] == "10.00 M"
    assert first["ns per forward"] == "100"
    assert first["vs smallest N"] == "1.00"
    # ns-2: 1.5 M forwards in 1 s, five times aqmlab's wall.
    assert first["ns-2 forwards / wall s"] == "1.50 M"
    assert first["speed-up"] == "5.0×"
    last = dict(zip(head, rows[1], strict=True))
    assert last["forwards / wall s"] == "5.00 M"
    assert last["vs smallest N"] == "0.50"
    assert last["ns per forward"] == "200"
    assert last["peak RSS MB"] == "11.0"
    assert last["ns-2 wall s"] == "–"


def test_scaling_plot_is_written(tmp_path):
    scaling = [
        (bench.Scenario("DT", n, 60.0), measured([0.1 * k], 2_000_000), measured([k], 2_000_000))
        for k, n in enumerate((10, 100, 1000), start=1)
    ]
    png = tmp_path / "scaling.png"
    bench.plot_scaling(scaling, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
