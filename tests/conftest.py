"""Shared fixtures: the example scenario and a tiny scenario text to break in various ways."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "scenarios" / "example.toml"

# Two hosts joined through a router (shared with validation/bad_input_probe.py), plus an island x <-> y
# that nothing reaches.
ISLAND = """\
[[links]]
a = "x"
b = "y"
rate = "10Mbps"
delay = "1ms"

"""
TINY = (ROOT / "tests" / "data" / "two_hosts.toml").read_text().replace("[[flows]]", ISLAND + "[[flows]]", 1)


@pytest.fixture
def example() -> Path:
    return EXAMPLE


@pytest.fixture
def tiny_text() -> str:
    return TINY
