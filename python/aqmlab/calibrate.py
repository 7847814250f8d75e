"""Offered-load calibration of web traffic (docs/load-and-metrics.md#calibration): the connection rate of
PackMime-HTTP generators (``[[http]]``, open loop) or the number of emulated users (``[[web_users]]``,
closed loop).

Offered load is the rate on the wire (headers included) that the generators produce when the network does
not constrain them. :func:`calibrate` raises every link slower than ``widen_bps`` to that rate (with large
drop-tail buffers; delays, TCP settings and sizes are kept), runs the generators at a few sizes (connection
rates, or user counts), measures the departures on one link direction after the warm-up, fits
``load = k·size`` through the origin and returns the size for the target load with the load a check run at
that size achieves. User counts are whole numbers: the check runs at the rounded count.
"""

from __future__ import annotations

import math
import re
import time
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aqmlab import __version__, _core
from aqmlab.scenario import ScenarioError, load_scenario, validate

__all__ = ["Calibration", "CalibrationError", "Point", "calibrate", "read_set_file"]

#: First guess of k: bits/s on the wire server→client per new connection/s (ns-2.35, HTTP/1.1,
#: docs/load-and-metrics.md#calibration).
K_GUESS_BPS = 68e3
#: First guess of k for web users: bits/s server→client per user with the SURGE defaults (130-200 kb/s
#: over 600-s runs of 50-200 users on a widened network); only places the fit's first runs.
K_GUESS_USER_BPS = 150e3


@dataclass(frozen=True)
class Knob:
    """What is scaled: the ``rate`` of ``[[http]]`` generators or the ``users`` of ``[[web_users]]``."""

    table: str
    field: str
    unit: str
    #: The unit in "kb/s per ...".
    per: str
    k_guess_bps: float
    integer: bool


KNOBS = {
    "http": Knob("http", "rate", "connections/s", "connection/s", K_GUESS_BPS, False),
    "web_users": Knob("web_users", "users", "users", "user", K_GUESS_USER_BPS, True),
}
#: Links slower than this are raised to it unless told otherwise.
DEFAULT_WIDEN_BPS = 1e9
#: The queue of every widened link direction: nothing is dropped at the loads calibrated for.
WIDE_QUEUE = '{ kind = "droptail", limit = 100000 }'
#: Replaces `stop.after_pairs` so that every run lasts its duration.
NO_STOP = 2**62


class CalibrationError(ValueError):
    """A calibration that cannot be done as asked (unknown link or generator, no traffic measured)."""


@dataclass
class Point:
    """One run: the size of the scaled generators (total connection rate, or users), the seed, and the load
    measured on the link (bit/s)."""

    rate: float
    seed: int
    load_bps: float
    wall_s: float = 0.0
    #: What ``rate`` counts.
    knob: Knob = KNOBS["http"]


@dataclass
class Calibration:
    """The outcome of :func:`calibrate`. Sizes (``rate``) are of the scaled generator, or the sum of all of
    them: connections/s for ``[[http]]``, users for ``[[web_users]]`` (``knob``)."""

    scenario_file: str
    link: str
    link_rate_bps: float
    target: float
    #: (index in the knob's table, name, size in the scenario) of the scaled generators.
    generators: list[tuple[int, str, float]]
    widen_bps: float
    duration_s: float
    warmup_s: float
    seeds: list[int]
    overrides: list[str]
    points: list[Point]
    #: Fitted bits/s on the link per connection/s (per user).
    k_bps: float
    #: The size that gives the target load (for users, rounded to whole users).
    rate: float
    knob: Knob = KNOBS["http"]
    check: list[Point] = field(default_factory=list)
    #: Things the calibration left as they were that may matter.
    notes: list[str] = field(default_factory=list)

    @property
    def target_bps(self) -> float:
        return self.target * self.link_rate_bps

    @property
    def achieved(self) -> float:
        """Load of the check run(s) at :attr:`rate`, as a fraction of the link's real rate."""
        if not self.check:
            return math.nan
        return sum(p.load_bps for p in self.check) / len(self.check) / self.link_rate_bps

    def rate_overrides(self, rate: float | None = None) -> list[str]:
        """``http.<i>.rate=...`` (``web_users.<i>.users=...``) overrides that set the scaled generators'
        total to ``rate``."""
        return _rate_overrides(self.knob, self.generators, self.rate if rate is None else rate)

    def to_toml(self) -> str:
        """The calibration file: comments with the measurements, then the overrides (one per line)."""
        kn = self.knob
        names = ", ".join(
            f"{name} ({kn.table}.{i}, {kn.field} {base:g} in the scenario)"
            for i, name, base in self.generators
        )
        lines = [
            f"# Offered-load calibration by `aqmlab calibrate` (aqmlab {__version__}, "
            "docs/load-and-metrics.md#calibration)",
            f"# scenario: {self.scenario_file}",
        ]
        if self.overrides:
            lines.append(f"# calibrated with --set {' --set '.join(self.overrides)} (pass them too)")
        lines += [
            f"# link {self.link} at {_mbps(self.link_rate_bps):g} Mb/s; target load {self.target:g} = "
            f"{_mbps(self.target_bps):g} Mb/s on the wire (headers included)",
            f"# measured with every link below {_mbps(self.widen_bps):g} Mb/s raised to it (drop-tail, "
            "large buffers); delays, TCP and sizes kept",
            f"# runs: duration {self.duration_s:g} s, warm-up {self.warmup_s:g} s, seeds "
            f"{', '.join(map(str, self.seeds))}",
            f"# generators scaled together: {names}",
            f"# fit load = k * {kn.field} through the origin: k = {self.k_bps / 1e3:.3f} kb/s per {kn.per}",
            f"#   {kn.field:>11}   seed   load Mb/s   load/{kn.field} kb/s",
        ]
        for p in self.points:
            lines.append(
                f"#   {p.rate:11.3f} {p.seed:6d} {_mbps(p.load_bps):11.4f} {p.load_bps / p.rate / 1e3:16.3f}"
            )
        lines.append(
            f"# {kn.field} for the target: {self.rate:.3f} {kn.unit}; check run: "
            f"{_mbps(self.achieved * self.link_rate_bps):.4f} Mb/s = load {self.achieved:.4f} "
            f"(target {self.target:g}, {100 * (self.achieved / self.target - 1):+.2f}%)"
        )
        for note in self.notes:
            lines.append(f"# note: {note}")
        lines.append(f"# apply with: aqmlab run {self.scenario_file} --set-file THIS_FILE")
        for ov in self.rate_overrides():
            key, _, value = ov.partition("=")
            lines.append(f"{key} = {value}")
        return "\n".join(lines) + "\n"


def calibrate(
    scenario: str | Path,
    *,
    link: str,
    target_load: float,
    generator: str | None = None,
    widen_bps: float = DEFAULT_WIDEN_BPS,
    rates: Sequence[float] | None = None,
    duration_s: float | None = None,
    seeds: int = 1,
    seed: int | None = None,
    set: Iterable[str] = (),
    on_point: Callable[[str, Point], object] | None = None,
) -> Calibration:
    """Calibrates the connection rate of the PackMime generators (or the number of users of the web-user
    generators) of ``scenario`` (a path) so that the offered load on ``link`` (a direction, ``"R1->R0"``)
    is ``target_load`` × its rate.

    ``generator`` names the one generator that is scaled, or a kind (``"http"``, ``"web_users"``) whose
    generators are scaled together (default: all ``[[http]]`` generators, or all ``[[web_users]]`` when
    there are none; the fit is on the sum of their sizes); ``rates`` are the sizes tried (default 0.5, 1
    and 2 × a first guess from k ≈ 68 kb/s per connection/s, 150 kb/s per user); each is run with
    ``seeds`` seeds from ``seed`` (default the scenario's); ``duration_s`` replaces the scenario's
    duration. ``on_point(stage, point)`` is called after every run (stage ``"fit"`` or ``"check"``).
    """
    if not (target_load > 0 and math.isfinite(target_load)):
        raise CalibrationError(f"--target-load: a positive fraction of the link's rate, found {target_load}")
    if seeds < 1:
        raise CalibrationError(f"--seeds: at least 1, found {seeds}")
    overrides = [str(s) for s in set]
    text, label = load_scenario(scenario)
    if duration_s is not None:
        if not (duration_s > 0 and math.isfinite(duration_s)):
            raise CalibrationError(f"--duration: a positive number of seconds, found {duration_s}")
        overrides.append(f"duration={duration_s!r}")
    desc = validate(scenario, seed=seed, set=overrides)
    try:
        doc = tomllib.loads(_core.resolve(text, label, overrides, seed))
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    rates_by_link = {lk["link"]: float(lk["rate_bps"]) for lk in desc["links"]}
    if link not in rates_by_link:
        raise CalibrationError(
            f"--link {link}: not a link direction of the scenario ({', '.join(rates_by_link)})"
        )
    link_rate = rates_by_link[link]

    knob, gens = _scaled_generators(doc, label, generator)
    fixed = list(overrides)
    warmup_s = float(desc["warmup_s"])
    run_s = float(desc["duration_s"])
    if warmup_s >= run_s / 2:
        warmup_s = run_s / 5
        fixed.append(f"measure.warmup={warmup_s!r}")
    fixed += _widen(doc, rates_by_link, widen_bps)
    fixed += ["measure.pair_records=false", "measure.sample_links=[]", "measure.trace_cwnd=[]"]
    if "stop" in doc:
        fixed.append(f"stop.after_pairs={NO_STOP}")
    first_seed = int(desc["seed"])
    seed_list = [first_seed + j for j in range(seeds)]

    if rates is None:
        guess = target_load * link_rate / knob.k_guess_bps
        rates = [0.5 * guess, guess, 2 * guess]
    rates = [float(r) for r in rates]
    if not rates or any(not (r > 0 and math.isfinite(r)) for r in rates):
        raise CalibrationError(f"--rates: positive {knob.unit}, found {rates}")
    rates = [_whole(knob, len(gens), r) for r in rates]

    from aqmlab.api import run  # pandas and pyarrow: loaded by a calibration, not by `--set-file`

    def measure(stage: str, rate: float) -> list[Point]:
        points = []
        for s in seed_list:
            t0 = time.perf_counter()
            r = run(scenario, seed=s, set=fixed + _rate_overrides(knob, gens, rate))
            row = r.links.set_index("link").loc[link]
            window = r.summary["end_s"] - r.summary["warmup_s"]
            load = float(row["departure_bytes"]) * 8 / window
            p = Point(rate, s, load, time.perf_counter() - t0, knob)
            points.append(p)
            if on_point is not None:
                on_point(stage, p)
        return points

    points = [p for rate in rates for p in measure("fit", rate)]
    k = sum(p.rate * p.load_bps for p in points) / sum(p.rate * p.rate for p in points)
    if not k > 0:
        raise CalibrationError(f"--link {link}: no traffic measured on this link direction")
    cal = Calibration(
        scenario_file=label,
        link=link,
        link_rate_bps=link_rate,
        target=target_load,
        generators=gens,
        widen_bps=widen_bps,
        duration_s=run_s,
        warmup_s=warmup_s,
        seeds=seed_list,
        overrides=[o for o in overrides if not o.startswith("duration=")],
        points=points,
        k_bps=k,
        rate=_whole(knob, len(gens), target_load * link_rate / k),
        knob=knob,
    )
    for b, box in enumerate(doc.get("delaybox", [])):
        delay = box.get("delay", {})
        if delay.get("kind") == "packmime_rtt":
            cal.notes.append(
                f"delaybox.{b}.delay.rate (PackMime RTT model) left at {delay.get('rate')}; "
                "set it to the new rate too if the RTT distribution should follow it"
            )
    cal.check = measure("check", cal.rate)
    return cal


def _scaled_generators(
    doc: dict, label: str, generator: str | None
) -> tuple[Knob, list[tuple[int, str, float]]]:
    """The knob and the (index, name, size) of the generators ``generator`` selects: one by name, all of a
    kind, or by default all PackMime generators (all web-user generators when there are none)."""
    found = {
        kind: [
            (i, g.get("name") or f"{kind}{i}", float(g[kn.field])) for i, g in enumerate(doc.get(kind, []))
        ]
        for kind, kn in KNOBS.items()
    }
    if generator is None:
        kind = "http" if found["http"] else "web_users"
        if not found[kind]:
            raise CalibrationError(
                f"{label}: the scenario has no [[http]] or [[web_users]] generator to calibrate"
            )
        return KNOBS[kind], found[kind]
    for kind, gens in found.items():
        named = [g for g in gens if g[1] == generator]
        if named:
            return KNOBS[kind], named
    if found.get(generator):
        return KNOBS[generator], found[generator]
    names = ", ".join(g[1] for gens in found.values() for g in gens)
    raise CalibrationError(f"--generator {generator}: no such generator or kind of generator ({names})")


def _whole(knob: Knob, generators: int, size: float) -> float:
    """``size`` as the knob takes it: users are whole, at least one per generator."""
    return float(max(generators, round(size))) if knob.integer else size


def _rate_overrides(knob: Knob, gens: list[tuple[int, str, float]], rate: float) -> list[str]:
    """Sets the generators' sizes to ``rate`` in total, keeping their proportions (whole users: the largest
    remainders get the users left over, so the total is exact)."""
    total = sum(base for _, _, base in gens)
    if not knob.integer:
        return [f"{knob.table}.{i}.{knob.field}={_num(base * rate / total)}" for i, _, base in gens]
    shares = [base * rate / total for _, _, base in gens]
    counts = [max(1, math.floor(x)) for x in shares]
    for j in sorted(range(len(gens)), key=lambda j: counts[j] - shares[j])[: max(0, int(rate) - sum(counts))]:
        counts[j] += 1
    return [f"{knob.table}.{i}.{knob.field}={n}" for (i, _, _), n in zip(gens, counts, strict=True)]


def _widen(doc: dict, rates_by_link: dict[str, float], widen_bps: float) -> list[str]:
    """Overrides that raise every link slower than ``widen_bps`` to it, with a large drop-tail buffer."""
    out = []
    rate = str(int(round(widen_bps)))
    for i, spec in enumerate(doc.get("links", [])):
        if rates_by_link.get(f"{spec['a']}->{spec['b']}", math.inf) < widen_bps:
            out.append(f"links.{i}.rate={rate}")
            # `queue` and `queue_ab`/`queue_ba` cannot be given together.
            directional = "queue_ab" in spec or "queue_ba" in spec
            queues = ("queue_ab", "queue_ba") if directional else ("queue",)
            out += [f"links.{i}.{q}={WIDE_QUEUE}" for q in queues]
    d = doc.get("dumbbell")
    if d is not None:
        r0, r1 = d.get("routers", ["A", "B"])
        if rates_by_link.get(f"{r0}->{r1}", math.inf) < widen_bps:
            out += [f"dumbbell.bottleneck_rate={rate}", f"dumbbell.queue={WIDE_QUEUE}"]
            out.append(f"dumbbell.reverse_queue={WIDE_QUEUE}")
        if rates_by_link.get(f"{d.get('left', 'S')}0->{r0}", math.inf) < widen_bps:
            out += [f"dumbbell.access_rate={rate}", f"dumbbell.access_queue={WIDE_QUEUE}"]
    lot = doc.get("parking_lot")
    if lot is not None:
        routers = lot["routers"]
        r0, r1 = ["R0", "R1"] if isinstance(routers, int) else routers[:2]
        if rates_by_link.get(f"{r0}->{r1}", math.inf) < widen_bps:
            # Every hop has the lot's rate; the hop directions' own queues give way to the wide one.
            out += [f"parking_lot.rate={rate}", f"parking_lot.queue={WIDE_QUEUE}", "parking_lot.queues={}"]
        for i, group in enumerate(lot.get("hosts", [])):
            host = (group.get("names") or [f"{group.get('name', '')}0"])[0]
            if rates_by_link.get(f"{host}->{group['router']}", math.inf) < widen_bps:
                out += [f"parking_lot.hosts.{i}.rate={rate}", f"parking_lot.hosts.{i}.queue={WIDE_QUEUE}"]
    return out


def read_set_file(path: str | Path) -> list[str]:
    """The ``key=value`` overrides of a file of ``key = value`` lines (TOML values; blank lines and
    ``#`` comments are skipped), e.g. one written by ``aqmlab calibrate``."""
    overrides = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            key, eq, value = stripped.partition("=")
            if not eq or not key.strip():
                raise ScenarioError(f"{path}:{n}: expected `key = value`, found {stripped!r}")
            try:
                parsed = tomllib.loads(f"v = {value.strip()}")["v"]
            except tomllib.TOMLDecodeError as e:
                raise ScenarioError(f"{path}:{n}: {key.strip()}: not a TOML value ({e})") from None
            overrides.append(f"{key.strip()}={_inline(parsed)}")
    return overrides


def _inline(v: object) -> str:
    """A TOML value on one line (comments dropped)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _num(v) if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
    if isinstance(v, str):
        escaped = v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{escaped}"'
    if isinstance(v, list):
        return "[" + ", ".join(_inline(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_inline(x)}" for k, x in v.items()) + " }"
    return str(v)  # dates and times are written as TOML writes them


def _key(k: str) -> str:
    return k if k and all(c.isalnum() or c in "_-" for c in k) else _inline(k)


def _num(x: float) -> str:
    """A float as TOML, with enough digits (always with a decimal point or exponent)."""
    s = repr(float(f"{x:.6g}"))
    return s


def parse_rate(text: str) -> float:
    """Bits per second of a rate written as in scenarios (``"1Gbps"``, ``"100Mb/s"``, ``"64kbps"``, a bare
    number of bit/s)."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([A-Za-z/]*)\s*", text)
    unit = m.group(2) if m else ""
    for suffix in ("/s", "ps", "bit"):
        unit = unit.removesuffix(suffix)
    scale = {
        "": 1.0,
        "b": 1.0,
        "k": 1e3,
        "K": 1e3,
        "kb": 1e3,
        "Kb": 1e3,
        "M": 1e6,
        "Mb": 1e6,
        "G": 1e9,
        "Gb": 1e9,
    }
    try:
        value = float(m.group(1)) * scale[unit] if m else math.nan
    except (KeyError, ValueError):
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f'a positive rate like "1Gbps" or "100Mbps", found {text!r}')
    return value


def _mbps(bps: float) -> float:
    return bps / 1e6
