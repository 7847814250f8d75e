"""Shared fixtures: the example scenario and a tiny scenario text to break in various ways."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "scenarios" / "example.toml"

# Two hosts joined through a router, plus an island x <-> y that nothing reaches.
TINY = """\
name = "tiny"
duration = "2s"

[[links]]
a = "h1"
b = "r"
rate = "10Mbps"
delay = "1ms"

[[links]]
a = "r"
b = "h2"
rate = "10Mbps"
delay = "1ms"

[[links]]
a = "x"
b = "y"
rate = "10Mbps"
delay = "1ms"

[[flows]]
kind = "tcp_bulk"
src = "h1"
dst = "h2"
"""


@pytest.fixture
def example() -> Path:
    return EXAMPLE


@pytest.fixture
def tiny_text() -> str:
    return TINY
