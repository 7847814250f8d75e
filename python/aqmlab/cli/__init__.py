"""The `aqmlab` command: run, validate or calibrate a scenario, sweep it, reproduce a study, plot or report
a run or sweep folder.

    aqmlab run SCENARIO.toml [--out DIR] [--seed N] [--set key=value ...] [--set-file FILE ...] [--quiet]
        [--max-memory SIZE]
    aqmlab validate SCENARIO.toml [--seed N] [--set key=value ...] [--set-file FILE ...] [--max-memory SIZE]
    aqmlab calibrate SCENARIO.toml --link A->B --target-load 0.9 [--generator NAME] [--widen RATE]
        [--rates r1,r2,...] [--duration S] [--seeds K] [--seed N] [--set key=value ...] [--out FILE]
    aqmlab sweep SCENARIO.toml --grid key=v1,v2 ... --seeds K [--jobs N] [--dask ADDRESS] (see cli/sweep.py)
    aqmlab reproduce weigle2005|le2003|chrost2009|l4s-coexistence [--quick] [--variant NAME] [--seeds K]
        [--jobs N] [--dask ADDRESS]
        (see cli/reproduce.py)
    aqmlab plot RUN|SWEEP [--out DIR] [--format png,svg]
    aqmlab report RUN|SWEEP [--out DIR]

Errors (a missing file, a bad scenario, a bad --set) are one line on stderr and exit status 2 (a bad scenario
is one line per error, from `validate` and `run`); Ctrl-C
prints "interrupted" and exits with 130. Warnings (a scenario setting that is legal but probably not
meant, e.g. a flow starting after the end) are lines "aqmlab: warning: ..." on stderr, and are kept in
the run's summary.json. A scenario whose tables would need more memory than --max-memory (default half
of the machine's memory) is an error of `validate` and `run` alike, before anything is allocated.
"""

from __future__ import annotations

import importlib
import os
import re

from aqmlab.cli import parser
from aqmlab.cli.common import EXIT_ERROR, EXIT_INTERRUPTED, CliError, error_line, load, warn
from aqmlab.scenario import ScenarioError


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `aqmlab` console script; returns the exit status."""
    args = None
    try:
        args = parser.build().parse_args(argv)
        if getattr(args, "set_files", None):
            from aqmlab.calibrate import read_set_file

            args.overrides = [ov for f in args.set_files for ov in read_set_file(load(f))] + args.overrides
        # The command's module is imported only now: each loads what it needs (rich, pandas, ...).
        command = importlib.import_module(f"{__name__}.{args.command}")
        return command.main(args)
    except KeyboardInterrupt:
        error_line("interrupted", prefix=False)
        return EXIT_INTERRUPTED
    except SystemExit as e:  # --help / --version
        return e.code if isinstance(e.code, int) else 0
    except ScenarioError as e:
        warn(e.warnings)
        for message in e.errors:  # every error of the scenario from `validate`, one per line
            error_line(message + _override_hint(message, getattr(args, "overrides", [])))
    except CliError as e:
        error_line(str(e))
    except OSError as e:
        where = e.filename if e.filename is not None else ""
        error_line(f"{where}: {e.strerror}" if where and e.strerror else str(e))
    except Exception as e:  # noqa: BLE001 - never show a traceback; AQMLAB_DEBUG=1 does
        if os.environ.get("AQMLAB_DEBUG"):
            raise
        error_line(f"internal error: {type(e).__name__}: {e} (AQMLAB_DEBUG=1 shows the traceback)")
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
