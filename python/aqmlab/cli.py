"""The `aqmlab` command: run, validate or calibrate a scenario.

    aqmlab run SCENARIO.toml [--out DIR] [--seed N] [--set key=value ...] [--set-file FILE ...] [--quiet]
        [--max-memory SIZE]
    aqmlab validate SCENARIO.toml [--seed N] [--set key=value ...] [--set-file FILE ...] [--max-memory SIZE]
    aqmlab calibrate SCENARIO.toml --link A->B --target-load 0.9 [--generator NAME] [--widen RATE]
        [--rates r1,r2,...] [--duration S] [--seeds K] [--seed N] [--set key=value ...] [--out FILE]
    aqmlab sweep SCENARIO.toml --grid key=v1,v2 ... --seeds K [--jobs N] [--dask ADDRESS] (see sweep_cli.py)
    aqmlab reproduce weigle2005|le2003|chrost2009 [--quick] [--seeds K] [--jobs N] [--dask ADDRESS]
        (see reproduce_cli.py)
    aqmlab plot RUN|SWEEP [--out DIR] [--format png,svg]; aqmlab report RUN|SWEEP [--out DIR]
        (see folder_cli.py)

Errors (a missing file, a bad scenario, a bad --set) are one line on stderr and exit status 2; Ctrl-C
prints "interrupted" and exits with 130. Warnings (a scenario setting that is legal but probably not
meant, e.g. a flow starting after the end) are lines "aqmlab: warning: ..." on stderr, and are kept in
the run's summary.json. A scenario whose tables would need more memory than --max-memory (default half
of the machine's memory) is an error of `validate` and `run` alike, before anything is allocated.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
from pathlib import Path

import pandas as pd
from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from aqmlab import __version__, api, folder_cli, reproduce_cli, sweep_cli
from aqmlab import calibrate as calib
from aqmlab.fsutil import out_path

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
#: Runs shorter than this (wall time) never show a progress bar.
PROGRESS_AFTER_S = 2.0
#: Rows of the per-link table before "… and N more".
MAX_LINK_ROWS = 10


class CliError(Exception):
    """An error reported as one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage block
        raise CliError(f"{message} (see `{self.prog} --help`)")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="aqmlab", description="A packet-level laboratory for active queue management.")
    p.add_argument("--version", action="version", version=f"aqmlab {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
        sp.add_argument("--seed", type=int, metavar="N", help="run seed (replaces the scenario's `seed`)")
        sp.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            metavar="key=value",
            help="change a scenario field, e.g. dumbbell.pairs=10 or flows.0.tcp.ecn=true (repeatable)",
        )
        sp.add_argument(
            "--set-file",
            dest="set_files",
            action="append",
            default=[],
            metavar="FILE",
            help="apply the `key = value` lines of FILE as --set (e.g. from `aqmlab calibrate`); "
            "--set options come after them",
        )

    def max_memory(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--max-memory",
            type=_size,
            metavar="SIZE",
            help="refuse a run whose tables would need more memory than SIZE, e.g. 2GB or 512MB "
            "(default half of this machine's memory)",
        )

    r = sub.add_parser("run", help="run a scenario and write its run folder", description="Run a scenario.")
    common(r)
    max_memory(r)
    r.add_argument("--out", type=out_path, metavar="DIR", help="run folder (default results/<name>-seed<N>)")
    r.add_argument("--quiet", "-q", action="store_true", help="print only the run folder")
    v = sub.add_parser("validate", help="check a scenario and describe it", description="Check a scenario.")
    common(v)
    max_memory(v)
    c = sub.add_parser(
        "calibrate",
        help="find the PackMime connection rate (or web-user count) for a target offered load",
        description="Calibrate the connection rate of the [[http]] generators, or the number of users of "
        "the [[web_users]] generators, for a target offered load on one link direction "
        "(docs/load-and-metrics.md#calibration): every link slower than --widen is raised to it, the "
        "generators run at a few sizes, load = k*size is fitted through the origin, and a check run at "
        "the resulting size (whole users) is reported. Writes the overrides to a file for "
        "`run --set-file`.",
    )
    common(c)
    c.add_argument("--link", required=True, metavar="A->B", help="link direction whose load is calibrated")
    c.add_argument(
        "--target-load",
        required=True,
        type=float,
        metavar="F",
        help="target load, a fraction of the link's rate",
    )
    c.add_argument(
        "--generator",
        metavar="NAME",
        help="the generator scaled, or a kind (http, web_users) scaled together "
        "(default: every [[http]] generator, else every [[web_users]] one)",
    )
    c.add_argument(
        "--widen", default="1Gbps", metavar="RATE", help="rate of the widened links (default 1Gbps)"
    )
    c.add_argument(
        "--rates",
        metavar="r1,r2,...",
        help="connection rates (user counts) to try (default 0.5, 1 and 2 x a guess from k = 68 kb/s "
        "per conn/s, 150 kb/s per user)",
    )
    c.add_argument(
        "--duration", type=float, metavar="S", help="simulated seconds per run (default the scenario's)"
    )
    c.add_argument("--seeds", type=int, default=1, metavar="K", help="seeds per rate (default 1)")
    c.add_argument(
        "--out",
        type=out_path,
        metavar="FILE",
        help="calibration file (default <scenario-stem>.calibration.toml)",
    )
    sweep_cli.add_parser(sub)
    reproduce_cli.add_parser(sub)
    folder_cli.add_parsers(sub)
    return p


def _size(text: str) -> int:
    try:
        return api.parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `aqmlab` console script; returns the exit status."""
    args = None
    try:
        args = _parser().parse_args(argv)
        if hasattr(args, "set_files"):
            args.overrides = [
                ov for f in args.set_files for ov in calib.read_set_file(_load(f))
            ] + args.overrides
        if args.command == "run":
            return cmd_run(args)
        if args.command == "calibrate":
            return cmd_calibrate(args)
        if args.command == "sweep":
            return sweep_cli.cmd_sweep(args)
        if args.command == "reproduce":
            return reproduce_cli.cmd_reproduce(args)
        if args.command == "plot":
            return folder_cli.cmd_plot(args)
        if args.command == "report":
            return folder_cli.cmd_report(args)
        return cmd_validate(args)
    except KeyboardInterrupt:
        _error_line("interrupted", prefix=False)
        return EXIT_INTERRUPTED
    except SystemExit as e:  # --help / --version
        return e.code if isinstance(e.code, int) else 0
    except api.ScenarioError as e:
        _error_line(str(e) + _override_hint(str(e), getattr(args, "overrides", [])))
    except calib.CalibrationError as e:
        _error_line(str(e))
    except CliError as e:
        _error_line(str(e))
    except OSError as e:
        where = e.filename if e.filename is not None else ""
        _error_line(f"{where}: {e.strerror}" if where and e.strerror else str(e))
    except Exception as e:  # noqa: BLE001 - never show a traceback; AQMLAB_DEBUG=1 does
        if os.environ.get("AQMLAB_DEBUG"):
            raise
        _error_line(f"internal error: {type(e).__name__}: {e} (AQMLAB_DEBUG=1 shows the traceback)")
    return EXIT_ERROR


def _override_hint(message: str, overrides: list[str]) -> str:
    """Names the --set that put a bad value in place: its line number is that of the edited document."""
    m = re.match(r"^[^:]*(?::\d+)?: ([\w\[\].-]+): ", message)
    if not m or message.startswith("--set:"):
        return ""
    path = re.sub(r"\[(\d+)\]", r".\1", m.group(1))
    for ov in overrides:
        key = ov.partition("=")[0].strip()
        if key == path or path.startswith(key + "."):
            return f" (set by --set {ov})"
    return ""


def _error_line(message: str, prefix: bool = True) -> None:
    one_line = " ".join(s.strip() for s in str(message).splitlines() if s.strip())
    sys.stderr.write(f"aqmlab: error: {one_line}\n" if prefix else f"{one_line}\n")
    sys.stderr.flush()


def _warn(warnings: list[str]) -> None:
    for w in warnings:
        sys.stderr.write(f"aqmlab: warning: {w}\n")
    sys.stderr.flush()


def _load(path: str) -> str:
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory, not a file")
    return path


# ---------------------------------------------------------------------------------------------- validate


def cmd_validate(args: argparse.Namespace) -> int:
    desc = api.validate(_load(args.scenario), seed=args.seed, set=args.overrides, max_memory=args.max_memory)
    _warn(desc["warnings"])
    out = _stdout_console()
    ok = f"OK, {len(desc['warnings'])} warning(s) (on stderr)" if desc["warnings"] else "OK"
    style = "bold yellow" if desc["warnings"] else "bold green"
    out.print(Text(f"{args.scenario}: {ok}", style=style), soft_wrap=True)
    facts = Table.grid(padding=(0, 2))
    facts.add_row("name", Text(desc["name"] or "(none)"))
    facts.add_row("seed", str(desc["seed"]))
    facts.add_row("duration", _secs(desc["duration_s"]))
    facts.add_row("warm-up", _secs(desc["warmup_s"]))
    facts.add_row("nodes", str(desc["nodes"]))
    facts.add_row("link directions", str(len(desc["links"])))
    facts.add_row("flows", str(desc["flows"]))
    facts.add_row("classes", Text(", ".join(desc["classes"]) or "(none)"))
    out.print(facts)
    t = Table(title="Link directions", title_justify="left", box=box.SIMPLE_HEAD)
    for col, justify in (("link", "left"), ("rate", "right"), ("delay", "right"), ("queue", "left")):
        t.add_column(col, justify=justify)
    for link in desc["links"][:MAX_LINK_ROWS]:
        t.add_row(Text(link["link"]), _rate(link["rate_bps"]), _secs(link["delay_s"]), Text(link["queue"]))
    out.print(t)
    if len(desc["links"]) > MAX_LINK_ROWS:
        out.print(f"… and {len(desc['links']) - MAX_LINK_ROWS} more link directions")
    out.print(estimate_table(desc["estimate"], desc["max_memory"]))
    return 0


def estimate_table(estimate: dict, limit: int) -> Table:
    """The resource estimate: items and memory of each table (and the file of each streamed one)."""
    t = Table(
        title=f"Resource estimate (memory limit {_bytes(limit)})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    columns = (
        ("table", "left"),
        ("items", "right"),
        ("memory", "right"),
        ("file", "right"),
        ("set by", "left"),
    )
    for col, justify in columns:
        t.add_column(col, justify=justify)
    for part in estimate["parts"]:
        file = _bytes(part["file_bytes"]) if part["streamed"] else ""
        t.add_row(part["what"], f"{part['items']:,}", _bytes(part["bytes"]), file, Text(part["setting"]))
    t.add_row("total", "", _bytes(estimate["memory_bytes"]), _bytes(estimate["file_bytes"]), "", style="bold")
    return t


def _bytes(n: float) -> str:
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


# ------------------------------------------------------------------------------------------------- run


class _LazyProgress:
    """A progress bar on simulated time that appears only once a run has taken PROGRESS_AFTER_S."""

    def __init__(self, total_s: float, enabled: bool) -> None:
        self.total = total_s
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.bar: Progress | None = None
        self.task = None

    def __call__(self, sim_s: float) -> None:
        if self.bar is None:
            if not self.enabled or time.perf_counter() - self.t0 < PROGRESS_AFTER_S:
                return
            self.bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                TextColumn("{task.completed:.1f}/{task.total:.1f} s simulated, {task.fields[wall]} wall"),
                console=Console(stderr=True),
                transient=True,
            )
            wall = f"{time.perf_counter() - self.t0:.0f} s"
            self.task = self.bar.add_task("run", total=self.total, completed=sim_s, wall=wall)
            self.bar.start()
        self.bar.update(self.task, completed=sim_s, wall=f"{time.perf_counter() - self.t0:.0f} s")

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def cmd_run(args: argparse.Namespace) -> int:
    path = _load(args.scenario)
    # Checks the scenario first (fast, and gives the duration for the progress bar).
    desc = api.validate(path, seed=args.seed, set=args.overrides, max_memory=args.max_memory)
    _warn(desc["warnings"])
    out_dir = Path(args.out) if args.out else Path("results") / _default_folder(desc, args.scenario)
    progress = _LazyProgress(desc["duration_s"], enabled=not args.quiet)
    try:
        # Written by api.run, so that pair records stream into the run folder as the run goes.
        result = api.run(
            path,
            seed=args.seed,
            set=args.overrides,
            progress=progress,
            out=out_dir,
            max_memory=args.max_memory,
        )
    finally:
        progress.stop()
    if args.quiet:
        print(out_dir)
        return 0
    out = _stdout_console()
    print_summary(result, out)
    out.print(Text(f"Run folder: {out_dir}", style="bold"))
    return 0


# ------------------------------------------------------------------------------------------- calibrate


def cmd_calibrate(args: argparse.Namespace) -> int:
    path = _load(args.scenario)
    try:
        widen = calib.parse_rate(args.widen)
    except ValueError as e:
        raise CliError(f"--widen: {e}") from None
    rates = None
    if args.rates:
        try:
            rates = [float(r) for r in args.rates.split(",") if r.strip()]
        except ValueError:
            raise CliError(f"--rates: comma-separated connection rates, found {args.rates!r}") from None
    out = _stdout_console()
    out.print(
        Text(
            f"Calibrating {path}: load {args.target_load:g} on {args.link} (links widened to {_rate(widen)})"
        )
    )

    def on_point(stage: str, p: calib.Point) -> None:
        label = "check" if stage == "check" else "run"
        out.print(
            f"  {label:5}  {p.rate:9.3f} {p.knob.unit}  seed {p.seed}:  {p.load_bps / 1e6:9.4f} Mb/s"
            f" on the link  ({p.load_bps / p.rate / 1e3:.2f} kb/s per {p.knob.per},"
            f" {p.wall_s:.1f} s wall)"
        )

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
    dest = Path(args.out) if args.out else Path(f"{Path(path).stem}.calibration.toml")
    if dest.parent != Path(""):
        dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(cal.to_toml(), encoding="utf-8")
    names = ", ".join(name for _, name, _ in cal.generators)
    facts = Table.grid(padding=(0, 2))
    facts.add_row("generators", Text(f"{names} (scaled together)" if len(cal.generators) > 1 else names))
    facts.add_row("link", f"{cal.link} at {_rate(cal.link_rate_bps)}, target {_rate(cal.target_bps)}")
    facts.add_row(
        "k",
        f"{cal.k_bps / 1e3:.3f} kb/s on the link per {cal.knob.per} (fit through the origin)",
    )
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


def _stdout_console() -> Console:
    """Rich console for the report: the terminal's width, or 120 columns when stdout is not a terminal
    (rich would otherwise wrap the tables at 80)."""
    width = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 120
    return Console(highlight=False, width=width)


def _default_folder(summary: dict, scenario_path: str) -> str:
    name = summary.get("name") or Path(scenario_path).stem
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "run"
    return f"{name}-seed{summary['seed']}"


def print_summary(result: api.RunResult, out: Console) -> None:
    """Run facts, the busiest links and the flow classes."""
    s = result.summary
    window = s["end_s"] - s["warmup_s"]
    facts = Table.grid(padding=(0, 2))
    facts.add_row("scenario", Text(f"{s['name'] or '(unnamed)'}  ({s['scenario_file']})"))
    facts.add_row("seed", str(s["seed"]))
    simulated = f"{_secs(s['end_s'])}  (of {_secs(s['duration_s'])})"
    if s.get("ended_by") == "pairs":
        simulated += "  ended by the stop condition ([stop] after_pairs)"
    facts.add_row("simulated", Text(simulated))
    facts.add_row(
        "warm-up",
        f"{_secs(s['warmup_s'])}  (measured {_secs(s['warmup_s'])} – {_secs(s['end_s'])}, {_secs(window)})",
    )
    facts.add_row("events", f"{s['events']:,}")
    facts.add_row("wall time", f"{s['wall_s']:.3f} s")
    rate = s["link_forwards"] / s["wall_s"] if s["wall_s"] > 0 else math.inf
    facts.add_row("link forwards", f"{s['link_forwards']:,}  ({_si(rate)}/s wall)")
    facts.add_row("flows", str(s["flows"]))
    if s["overrides"]:
        facts.add_row("overrides", Text(" ".join(s["overrides"])))
    out.print(facts)
    out.print()
    out.print(link_table(result.links))
    out.print()
    if len(result.flows):
        out.print(class_table(result.flows))
    if len(result.responses):
        out.print(response_table(result.responses, result.classes))
    for line in generator_lines(result.generators):
        out.print(line)


def link_table(links: pd.DataFrame) -> Table:
    more = len(links) - MAX_LINK_ROWS
    caption = f"… and {more} more link directions (all in links.parquet)\n" if more > 0 else ""
    caption += (
        "drops o/e/n: buffer overflow / early (AQM) / early because the packet was not ECN-capable;"
        " queue: time-weighted mean ± std of waiting packets"
    )
    t = Table(
        title="Busiest links (after warm-up)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption=caption,
        caption_justify="left",
    )
    cols = [
        ("link", "left"),
        ("queue", "left"),
        ("util %", "right"),
        ("arrivals", "right"),
        ("drops o/e/n", "right"),
        ("marks", "right"),
        ("loss %", "right"),
        ("queue mean±std", "right"),
    ]
    for name, justify in cols:
        t.add_column(name, justify=justify)
    top = links.sort_values(["utilization", "arrivals"], ascending=False, kind="stable").head(MAX_LINK_ROWS)
    for row in top.itertuples(index=False):
        t.add_row(
            Text(row.link),
            Text(row.queue),
            f"{100 * row.utilization:.1f}",
            f"{row.arrivals:,}",
            f"{row.drops_overflow:,}/{row.drops_early:,}/{row.drops_not_ect:,}",
            f"{row.marks:,}",
            f"{100 * row.loss_rate:.2f}",
            f"{row.q_mean_pkts:.1f}±{row.q_std_pkts:.1f}",
        )
    return t


def class_table(flows: pd.DataFrame) -> Table:
    t = Table(title="Flow classes (after warm-up)", title_justify="left", box=box.SIMPLE_HEAD)
    for name, justify in (
        ("class", "left"),
        ("kind", "left"),
        ("flows", "right"),
        ("goodput Mb/s", "right"),
        ("per flow Mb/s", "right"),
        ("retransmits", "right"),
        ("timeouts", "right"),
    ):
        t.add_column(name, justify=justify)
    g = flows.groupby("class", sort=False)
    agg = pd.DataFrame(
        {
            "kind": g["kind"].agg(lambda k: "/".join(dict.fromkeys(k))),
            "flows": g.size(),
            "goodput": g["goodput_bps"].sum(),
            "retransmits": g["retransmits"].sum(),
            "timeouts": g["timeouts"].sum(),
        }
    )
    for cls, row in agg.iterrows():
        t.add_row(
            Text(str(cls)),
            Text(row["kind"]),
            f"{row['flows']:,}",
            f"{row['goodput'] / 1e6:.3f}",
            f"{row['goodput'] / 1e6 / row['flows']:.3f}",
            f"{row['retransmits']:,}",
            f"{row['timeouts']:,}",
        )
    return t


def response_table(responses: pd.DataFrame, classes: pd.DataFrame) -> Table:
    t = Table(
        title="Response times (requests sent after the warm-up)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption="times in ms (quantiles from 2.3%-wide bins); loss: HTTP loss, the class's packets dropped "
        "anywhere ÷ packets it sent",
        caption_justify="left",
    )
    for name in ("class", "pairs", "incomplete", "mean", "p10", "p50", "p90", "p99", "loss %"):
        t.add_column(name, justify="left" if name == "class" else "right")
    loss = dict(zip(classes["class"], classes["loss_rate"], strict=True)) if len(classes) else {}
    for row in responses.to_dict("records"):
        rate = loss.get(row["class"], math.nan)
        t.add_row(
            Text(str(row["class"])),
            f"{row['pairs']:,}",
            f"{row['incomplete']:,}",
            *(_ms(row[q]) for q in ("mean_s", "p10_s", "p50_s", "p90_s", "p99_s")),
            f"{100 * rate:.3f}" if math.isfinite(rate) else "–",
        )
    return t


def generator_lines(generators: pd.DataFrame) -> list[Text]:
    lines = []
    for g in generators.to_dict("records"):
        started = g["connections_started"]
        per = g["pairs_planned"] / started if started else math.nan
        lines.append(
            Text(
                f"Generators: {g['generator']}: {started:,} connections started / "
                f"{g['connections_finished']:,} finished / {g['connections_open']:,} open at the end, "
                f"{per:.3f} pairs per connection"
            )
        )
    return lines


def _ms(s: float) -> str:
    return f"{1e3 * s:.1f}" if math.isfinite(s) else "–"


def _secs(s: float) -> str:
    if s == 0:
        return "0 s"
    if abs(s) < 1:
        return f"{s * 1e3:g} ms"
    return f"{s:g} s"


def _rate(bps: float) -> str:
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:g} {unit}"
    return f"{bps:g} b/s"


def _si(x: float) -> str:
    if not math.isfinite(x):
        return "∞"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.2f} {unit}"
    return f"{x:.0f}"


if __name__ == "__main__":
    sys.exit(main())
