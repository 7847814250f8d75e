"""The command line of `aqmlab`: every command's arguments. Light imports only (argparse, the version, the
names of the studies, `parse_size`), so that `--help`, `--version` and argument errors load none of the
heavy packages."""

from __future__ import annotations

import argparse
from pathlib import Path

from aqmlab import __version__, studies
from aqmlab.cli.common import CliError, out_path
from aqmlab.scenario import parse_size


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage block
        raise CliError(f"{message} (see `{self.prog} --help`)")


def build() -> argparse.ArgumentParser:
    p = _Parser(prog="aqmlab", description="A packet-level laboratory for active queue management.")
    p.add_argument("--version", action="version", version=f"aqmlab {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
        sp.add_argument("--seed", type=int, metavar="N", help="run seed (replaces the scenario's `seed`)")
        _sets(sp, "change a scenario field, e.g. dumbbell.pairs=10 or flows.0.tcp.ecn=true (repeatable)")
        _repeatable(
            sp,
            "--set-file",
            "FILE",
            "apply the `key = value` lines of FILE as --set (e.g. from `aqmlab calibrate`); "
            "--set options come after them",
            dest="set_files",
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
    r.add_argument(
        "--out",
        type=out_path,
        metavar="DIR",
        help="run folder (default results/<name>-seed<N>, plus -<hash> of the --set/--set-file overrides)",
    )
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
    _add_sweep(sub)
    _add_reproduce(sub)
    _add_plot_and_report(sub)
    return p


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _repeatable(
    sp: argparse.ArgumentParser, flag: str, metavar: str, help: str, dest: str | None = None
) -> None:
    """An option that may be given many times, its values collected in order in a list (empty without it)."""
    sp.add_argument(flag, dest=dest, action="append", default=[], metavar=metavar, help=help)


def _sets(sp: argparse.ArgumentParser, help: str) -> None:
    """``--set key=value`` (repeatable), collected in ``overrides``."""
    _repeatable(sp, "--set", "key=value", help, dest="overrides")


def _workers(sp: argparse.ArgumentParser, dask_help: str) -> None:
    """``--jobs`` and ``--dask``: where the runs of a sweep or study go."""
    sp.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes (default: number of CPUs)")
    sp.add_argument("--dask", metavar="ADDRESS", help=dask_help)


def _add_sweep(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "sweep",
        help="run a scenario over a grid of parameters and seeds",
        description="Run the cross product of the --grid lists, times the paired --zip lists, times the "
        "seeds; resumable; aggregate table in OUT/aggregate.parquet.",
    )
    s.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    _repeatable(
        s,
        "--grid",
        "key=v1,v2",
        "values of one field, crossed with the other --grid lists; TOML values as in --set, split at "
        'top-level commas: \'dumbbell.queue={kind="red"},{kind="pi"}\' (repeatable)',
    )
    _repeatable(
        s,
        "--zip",
        "key=a,b",
        "values that vary together with the other --zip lists (all of the same length; repeatable)",
    )
    _sets(s, "change a field in every run (repeatable)")
    seeds = s.add_mutually_exclusive_group()
    seeds.add_argument(
        "--seeds", type=int, metavar="K", help="run each combination with seeds 1..K (default 1)"
    )
    seeds.add_argument("--seed-list", metavar="S1,S2,...", help="run each combination with these seeds")
    _workers(
        s,
        "run on a Dask cluster: a scheduler address (tcp://host:8786) or `local` (a LocalCluster of --jobs "
        "workers)",
    )
    s.add_argument(
        "--out", type=out_path, metavar="DIR", help="sweep folder (default results/sweep-<scenario name>)"
    )
    s.add_argument(
        "--force",
        action="store_true",
        help="reuse a sweep folder that holds a different sweep (its sweep.json and aggregate.parquet are "
        "replaced; run folders are kept)",
    )
    s.add_argument("--quiet", "-q", action="store_true", help="no progress bar; print only the final counts")


def _add_reproduce(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "reproduce",
        help="reproduce a published study and write its report",
        description="Calibrate where the study calibrated, run its simulations (resumable) and write a "
        "report folder with the paper's tables beside the simulated ones, figures and findings.",
    )
    s.add_argument("study", choices=studies.NAMES, help="the study")
    s.add_argument("--quick", action="store_true", help="a smaller but faithful version (a few minutes)")
    s.add_argument(
        "--variant",
        metavar="NAME",
        help="another setting of the study (le2003: packmime, the open-loop PackMime-HTTP traffic instead of "
        "the closed-loop web users); report in reports/STUDY-NAME[-quick]",
    )
    s.add_argument(
        "--seeds",
        type=int,
        metavar="K",
        help="seeds per configuration (default 3, l4s-coexistence 5; --quick: 1, l4s-coexistence 2)",
    )
    _workers(s, "run on a Dask cluster (scheduler address or `local`)")
    s.add_argument(
        "--out", type=out_path, metavar="DIR", help="report folder (default reports/STUDY[-quick])"
    )


def _formats(text: str) -> list[str]:
    formats = [f.strip() for f in text.split(",") if f.strip()]
    if not formats or any(f not in ("png", "svg") for f in formats):
        raise argparse.ArgumentTypeError(f"png, svg or png,svg, found {text!r}")
    return formats


def _add_plot_and_report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plot",
        help="draw the figures of a run or sweep folder",
        description="Draw a run folder's queue length and queueing delay over time, congestion windows, "
        "goodput per flow and response-time CDF/CCDF, or a sweep folder's box plots per configuration and "
        "its delay-vs-throughput scatter, as PNG and SVG (figures without data are left out).",
    )
    p.add_argument("folder", type=Path, help="a run folder (summary.json) or a sweep folder (sweep.json)")
    p.add_argument(
        "--out", type=out_path, metavar="DIR", help="where the figures go (default FOLDER/figures)"
    )
    p.add_argument(
        "--format", default="png,svg", type=_formats, metavar="png,svg", help="file formats (default png,svg)"
    )
    r = sub.add_parser(
        "report",
        help="write an HTML page of a run or sweep folder",
        description="Write report.html for a run or sweep folder: its facts, tables (a sweep's as mean and "
        "95 %% interval over seeds per configuration) and figures.",
    )
    r.add_argument("folder", type=Path, help="a run folder (summary.json) or a sweep folder (sweep.json)")
    r.add_argument("--out", type=out_path, metavar="DIR", help="where report.html goes (default FOLDER)")
