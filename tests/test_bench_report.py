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
    small_row, large_row = (dict(zip(head, r, strict=True)) for r in rows)
    # ns-2 at N = 10: 1.5 M forwards in 1 s, five times aqmlab's wall.
    assert small_row == {
        "N": "10",
        "aqmlab wall s": "0.200",
        "forwards / wall s": "10.00 M",
        "vs smallest N": "1.00",
        "ns per forward": "100",
        "peak RSS MB": "4.0",
        "ns-2 wall s": "1.000",
        "ns-2 forwards / wall s": "1.50 M",
        "speed-up": "5.0×",
    }
    assert large_row == {
        "N": "1000",
        "aqmlab wall s": "0.500",
        "forwards / wall s": "5.00 M",
        "vs smallest N": "0.50",
        "ns per forward": "200",
        "peak RSS MB": "11.0",
        "ns-2 wall s": "–",
        "ns-2 forwards / wall s": "–",
        "speed-up": "–",
    }


def test_scaling_plot_is_written(tmp_path):
    scaling = [
        (bench.Scenario("DT", n, 60.0), measured([0.1 * k], 2_000_000), measured([k], 2_000_000))
        for k, n in enumerate((10, 100, 1000), start=1)
    ]
    png = tmp_path / "scaling.png"
    bench.plot_scaling(scaling, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
