"""Where the validation and benchmark scripts find the ``aqmlab-bench`` binary."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def find_bench(explicit: str | None, tool: str) -> Path:
    """The aqmlab-bench binary: ``explicit`` (--bench), $AQMLAB_BENCH, $CARGO_TARGET_DIR/release,
    target/release. Exits with a message naming ``tool`` when there is none."""
    candidates = [explicit, os.environ.get("AQMLAB_BENCH")]
    if os.environ.get("CARGO_TARGET_DIR"):
        candidates.append(str(Path(os.environ["CARGO_TARGET_DIR"]) / "release" / "aqmlab-bench"))
    candidates.append(str(ROOT / "target" / "release" / "aqmlab-bench"))
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    sys.exit(f"{tool}: aqmlab-bench not found; run `cargo build --release -p aqmlab-core` or pass --bench")
