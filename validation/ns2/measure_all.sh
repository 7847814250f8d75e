#!/usr/bin/env bash
# Re-run the measurements tabled in README.md (sequentially; ~2 minutes on an idle 2-core machine).
# Writes validation/ns2/results/measured.jsonl (one run_ns2.py JSON object per line).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=validation/ns2/results/measured.jsonl
mkdir -p "$(dirname "$out")"
: > "$out"
R="python3 validation/ns2/run_ns2.py"
for n in 10 100 1000; do $R --n "$n" --duration 60 --queue dt --seed 1 >> "$out"; done
for q in red pi rem avq; do $R --n 100 --duration 60 --queue "$q" --seed 1 >> "$out"; done
for q in dt red pi rem avq; do $R --script study_c --n 100 --buffer 90 --queue "$q" --seed 1 >> "$out"; done
for n in 10 1000; do $R --script study_c --n "$n" --buffer 90 --queue dt --seed 1 >> "$out"; done
echo "wrote $out"
