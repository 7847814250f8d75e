"""Python API: run a scenario (a TOML file or a dict) and get its result tables."""

from __future__ import annotations
