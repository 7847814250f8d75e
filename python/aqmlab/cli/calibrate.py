"""`aqmlab calibrate SCENARIO.toml`: find the PackMime connection rate (or the number of web users) for a
target offered load and write it as overrides for `run --set-file` (the work is in
:mod:`aqmlab.calibrate`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table
from rich.text import Text

from aqmlab import calibrate as calib
from aqmlab.cli.common import CliError, fmt_rate, load, stdout_console


def main(args: argparse.Namespace) -> int:
    path = load(args.scenario)
    try:
        widen = calib.parse_rate(args.widen)
    except ValueError as e:
        raise CliError(f"--widen: {e}") from None
    rates = None
    if args.rates:
        try:
            rates = [float(r) for r in args.rates.split(",") if r.strip()]
        except ValueError:
            raise CliError(f"--rates: comma-separated rates or user counts, found {args.rates!r}") from None
    out = stdout_console()
    out.print(
        Text(
            f"Calibrating {path}: load {args.target_load:g} on {args.link} "
            f"(links widened to {fmt_rate(widen)})"
        )
    )

    def on_point(stage: str, p: calib.Point) -> None:
        label = "check" if stage == "check" else "run"
        out.print(
            f"  {label:5}  {p.rate:9.3f} {p.knob.unit}  seed {p.seed}:  {p.load_bps / 1e6:9.4f} Mb/s"
            f" on the link  ({p.load_bps / p.rate / 1e3:.2f} kb/s per {p.knob.per},"
            f" {p.wall_s:.1f} s wall)"
        )

    try:
        cal = calib.calibrate(
            path,
            link=args.link,
            target_load=args.target_load,
            generator=args.generator,
            widen_bps=widen,
            rates=rates,
            duration_s=args.duration,
            seeds=args.seeds,
            seed=args.seed,
            set=args.overrides,
            on_point=on_point,
        )
    except calib.CalibrationError as e:
        raise CliError(str(e)) from None
    dest = Path(args.out) if args.out else Path(f"{Path(path).stem}.calibration.toml")
    if dest.parent != Path(""):
        dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(cal.to_toml(), encoding="utf-8")
    names = ", ".join(name for _, name, _ in cal.generators)
    facts = Table.grid(padding=(0, 2))
    facts.add_row("generators", Text(f"{names} (scaled together)" if len(cal.generators) > 1 else names))
    facts.add_row("link", f"{cal.link} at {fmt_rate(cal.link_rate_bps)}, target {fmt_rate(cal.target_bps)}")
    facts.add_row("k", f"{cal.k_bps / 1e3:.3f} kb/s on the link per {cal.knob.per} (fit through the origin)")
    facts.add_row(cal.knob.field, f"{cal.rate:.3f} {cal.knob.unit} for load {cal.target:g}")
    facts.add_row(
        "check",
        f"{cal.achieved * cal.link_rate_bps / 1e6:.4f} Mb/s = load {cal.achieved:.4f}"
        f" ({100 * (cal.achieved / cal.target - 1):+.2f}% from the target)",
    )
    facts.add_row("overrides", Text(" ".join(cal.rate_overrides())))
    out.print(facts)
    out.print(Text(f"Calibration file: {dest}", style="bold"))
    out.print(Text(f"  apply with: aqmlab run {path} --set-file {dest}"))
    return 0
