"""The bad-input probe of issue 16, as a table: every malformed scenario or command line the issue lists,
run through the `aqmlab` command as a user would, and what came back — a located error (exit status 2,
naming the file and the field or option), a warning (the run goes on, `aqmlab: warning:` names the
setting), or nothing (silently accepted: the outcome the issue set out to remove).

    python validation/bad_input_probe.py [--aqmlab PATH] [--out validation/results/bad_input_probe.md]

Each case says what a good answer must name (a field path, an option, the file). Standard library only;
needs the `aqmlab` command (make build), and about a minute.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "scenarios" / "example.toml"
BENCH = ROOT / "scenarios" / "bench-dumbbell.toml"

# Two hosts joined through a router, one TCP flow between them (the tests break the same scenario).
BASE = (ROOT / "tests" / "data" / "two_hosts.toml").read_text()


@dataclass
class Case:
    what: str
    expect: str  # "error", "warning", or "warning or error" (it depends on the machine)
    names: str  # what the message must contain: a field path, an option or the file
    text: str | None = None  # the scenario (None: `args` name their own)
    args: tuple[str, ...] = ("validate", "{file}")
    setup: str | None = None  # "sweep-folder": a sweep folder of another plan exists at {dir}/sweep


def sub(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


CASES = [
    Case(
        "duplicate link",
        "error",
        "links[2]",
        BASE + '\n[[links]]\na = "h1"\nb = "r"\nrate = "10Mbps"\ndelay = "1ms"\n',
    ),
    Case(
        "`queue` beside `queue_ab` / `queue_ba`",
        "error",
        "links[0].queue",
        sub('delay = "1ms"\n', 'delay = "1ms"\nqueue = { kind = "red" }\nqueue_ab = { kind = "pie" }\n'),
    ),
    Case(
        "`--set links.3.queue=...` on a link with directional queues",
        "error",
        "links[3].queue",
        None,
        ("validate", str(EXAMPLE), "--set", 'links.3.queue={kind="pie"}'),
    ),
    Case(
        "a `[[delaybox]]` on a node that serves no host",
        "error",
        "delaybox[0]",
        BASE + '\n[[delaybox]]\nnode = "h1"\ndelay = { kind = "constant", value = "10ms" }\n',
    ),
    Case("`rate = 1e30`", "error", "links[0].rate", sub('rate = "10Mbps"', "rate = 1e30")),
    Case("a delay of 1e9 s", "error", "links[0].delay", sub('delay = "1ms"', 'delay = "1000000000s"')),
    Case("a flow starting after the run ends", "warning", "flows[0].start", BASE + 'start = "5s"\n'),
    Case(
        "a decreasing `access_delay = { from, to }`",
        "error",
        "access_delay",
        None,
        ("validate", str(BENCH), "--set", 'dumbbell.access_delay={from="45ms", to="0ms"}'),
    ),
    Case("a rate below 1 bit/s", "error", "links[0].rate", sub('rate = "10Mbps"', 'rate = "0.4bps"')),
    Case("`--out ''`", "error", "--out", BASE, ("run", "{file}", "--out", "")),
    Case(
        "a sweep into a folder of another plan",
        "error",
        "--force",
        BASE,
        ("sweep", "{file}", "--seeds", "1", "--out", "{dir}/sweep"),
        setup="sweep-folder",
    ),
    Case(
        "`count = 1000000000`",
        "error",
        "flows[0].count",
        BASE + "count = 1000000000\n",
    ),
    Case(
        '`sample_interval = "1ns"` with `sample_links = ["all"]` on the shipped example',
        "error",
        "measure.sample_interval",
        None,
        (
            "validate",
            str(EXAMPLE),
            "--set",
            'measure.sample_interval="1ns"',
            "--set",
            'measure.sample_links=["all"]',
        ),
    ),
    Case(
        "the same on a 2-s scenario: tens of GB on disk (an error where they do not fit)",
        "warning or error",
        "measure.sample_interval",
        BASE + '\n[measure]\nsample_interval = "1ns"\nsample_links = ["all"]\n',
    ),
    Case("`--seed -1`", "error", "seed", BASE, ("validate", "{file}", "--seed", "-1")),
    Case("a binary file", "error", "{file}", "\x00\x01\x02\xff\xfe binary"),
    Case('`start = { sprad = "1s" }`', "error", "sprad", BASE + 'start = { sprad = "1s" }\n'),
    Case("a huge `seed`", "error", "seed", "seed = 100000000000000000000\n" + BASE),
    Case(
        "`limit = -3`",
        "error",
        "links[0].queue.limit",
        sub('delay = "1ms"\n', 'delay = "1ms"\nqueue = { kind = "droptail", limit = -3 }\n'),
    ),
    Case(
        "three mistakes in three entries (every one reported)",
        "error",
        "measure.sample_interval",
        sub('rate = "10Mbps"', 'rate = "-1Mbps"') + 'colour = "red"\n[measure]\nsample_interval = "soon"\n',
    ),
]


def classify(case: Case, proc: subprocess.CompletedProcess, file: Path) -> tuple[str, str]:
    """(outcome, the message) of one case."""
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("aqmlab: ")]
    errors = [ln for ln in lines if ln.startswith("aqmlab: error:")]
    warnings = [ln for ln in lines if ln.startswith("aqmlab: warning:")]
    names = case.names.replace("{file}", str(file))
    if proc.returncode == 2 and errors:
        named = [e for e in errors if names in e]
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        return ("located error" if named else "error, not naming " + names), (named or errors)[0] + more
    if proc.returncode == 0 and warnings:
        named = [w for w in warnings if names in w]
        return ("warning" if named else "warning, not naming " + names), (named or warnings)[0]
    if proc.returncode == 0:
        return "silently accepted", ""
    return f"exit status {proc.returncode}", (proc.stderr.strip().splitlines() or [""])[-1]


def run_case(aqmlab: str, case: Case, tmp: Path) -> tuple[str, str, str]:
    file = tmp / "probe.toml"
    if case.text is not None:
        file.write_bytes(case.text.encode("latin-1"))
    if case.setup == "sweep-folder":
        other = tmp / "other.toml"
        other.write_text(BASE.replace('name = "two-hosts"', 'name = "other"'))
        subprocess.run(
            [aqmlab, "sweep", str(other), "--seeds", "2", "--out", str(tmp / "sweep")],
            capture_output=True,
            check=True,
        )
    args = [a.replace("{file}", str(file)).replace("{dir}", str(tmp)) for a in case.args]
    proc = subprocess.run([aqmlab, *args], capture_output=True, text=True, cwd=tmp, timeout=600)
    outcome, message = classify(case, proc, file)
    return outcome, " ".join(["aqmlab", *(f"'{a}'" if " " in a or not a else a for a in args)]), message


def escape(cell: str) -> str:
    """A Markdown table cell: pipes escaped."""
    return cell.replace("|", "\\|")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    venv = Path(sys.executable).parent / "aqmlab"
    ap.add_argument("--aqmlab", default=str(venv) if venv.exists() else shutil.which("aqmlab"))
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "results" / "bad_input_probe.md")
    args = ap.parse_args()
    rows, tally = [], {}
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            outcome, command, message = run_case(args.aqmlab, case, Path(tmp))
        message = re.sub(r"/tmp/[^/ ]+/", "", message).replace(str(ROOT) + "/", "")
        command = re.sub(r"/tmp/[^/ ]+/", "", command).replace(str(ROOT) + "/", "")
        good = outcome in {"error": ["located error"], "warning": ["warning"]}.get(
            case.expect, ["located error", "warning"]
        )
        tally[outcome] = tally.get(outcome, 0) + 1
        rows.append(
            (case.what, command, case.expect, outcome + ("" if good else " **(unexpected)**"), message)
        )
        print(f"{outcome:24s} {case.what}", file=sys.stderr)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(tally.items()))
    lines = [
        "# Bad input: the probe of issue 16",
        "",
        "<!-- generated by validation/bad_input_probe.py -->",
        f"**{len(CASES)} cases: {summary}.** A located error names the file, and the field path or the "
        "option (exit status 2); a warning names the setting and the run goes on.",
        "",
        "| case | command | expected | outcome | message |",
        "|---|---|---|---|---|",
        *(f"| {w} | `{c}` | {e} | {o} | {escape(m)} |" for w, c, e, o, m in rows),
        "",
        "The issue's other cases are behaviour, checked by tests rather than here: AQM durations take "
        "units (`tests/test_bad_input.py`, the Rust unit tests), packets sent at t = 0 are counted and "
        "intervals use Student's t for any number of seeds (`tests/test_bad_input.py`), and queue "
        "samples, window traces and flow series stream to disk in runs and sweeps alike "
        "(`tests/test_memory.py`, `tests/test_sweep.py`).",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print(args.out)


if __name__ == "__main__":
    main()
