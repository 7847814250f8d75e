# aqmlab — the two set-up commands are `make demo` and `make test`; both install what they need.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
export CARGO_TERM_PROGRESS_WHEN = never

.PHONY: demo test build lint rust-test py-test wheel-test fuzz bench bench-compare validate clean

# Everything comes from pyproject.toml: here the tools (its `dev` dependency group: maturin, pytest, ruff,
# import-linter; with a pip new enough for `--group`), in `build` the package, its dependencies and the
# dask extra.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet --group dev
	touch $@

# Builds the Rust engine into the virtual environment (aqmlab._core, the package installed editable with
# its dependencies) and the benchmark binary. The binary is built with both packages selected, so cargo
# resolves the dependencies' features as for the extension just built and reuses them (with
# `-p aqmlab-core` alone it rebuilt rand, arrow and parquet in release: minutes).
build: $(VENV)/.installed
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --quiet --extras dask
	cargo build --release --quiet -p aqmlab-core -p aqmlab-py --bin aqmlab-bench

demo: build
	$(VENV)/bin/aqmlab reproduce chrost2009 --quick

lint: $(VENV)/.installed
	cargo fmt --all --check
	cargo clippy --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check python tests validation
	$(VENV)/bin/ruff format --check python tests validation
	PYTHONPATH=python $(VENV)/bin/lint-imports --no-cache --no-logo --config pyproject.toml

rust-test:
	cargo test --quiet -p aqmlab-core

py-test: build
	$(VENV)/bin/pytest -q

# The package as a user installs it: the wheel (built from what `make build` compiled: same profile, target
# folder and interpreter, so nothing is compiled again) in a fresh virtual environment outside the
# checkout, reproducing study C from the data it ships. About 3 minutes, most of it pip and the study.
wheel-test: build
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(VENV)/bin/maturin build --release --quiet --interpreter $(PY) --out "$$tmp/dist" && \
	python3 -m venv "$$tmp/venv" && \
	"$$tmp/venv/bin/pip" install --quiet "$$tmp"/dist/aqmlab-*.whl && \
	cd "$$tmp" && venv/bin/aqmlab reproduce chrost2009 --quick --out report && test -s report/report.html

test: lint rust-test py-test wheel-test

# The property test of the scenario parser and model builder (mutated scenarios never panic and every
# rejection is a located error) with many more cases than the 256 of `make test`; FUZZ_CASES to change.
FUZZ_CASES ?= 20000

fuzz:
	PROPTEST_CASES=$(FUZZ_CASES) cargo test --quiet -p aqmlab-core --test scenario_fuzz

# Extra options for validation/bench.py, e.g. `make bench-compare BENCH_ARGS="--repeat 3"`.
BENCH_ARGS ?=

# validation/startup.py: the start-up of the aqmlab command beside the engine's time
# (validation/results/startup.md).
bench: build
	$(PY) validation/bench.py $(BENCH_ARGS)
	$(PY) validation/startup.py

bench-compare: build
	bash validation/ns2/install-ns2.sh
	$(PY) validation/bench.py --compare $(BENCH_ARGS)
	$(PY) validation/startup.py --compare

# Cross-validation against ns-2.35 (validation/compare_newreno_trace.py: one lossy NewReno connection
# whose packets must leave at ns-2's instants; compare_bulk_parking.py: long-lived flows behind slow
# access links beside bulk cross traffic; validation/compare_ns2.py: AQMs on the bench dumbbell;
# validation/compare_packmime.py: PackMime-HTTP + DelayBox; both standard library only, need just the
# aqmlab-bench binary and ns; validation/compare_packmime_samplers.py: PackMime's random variables drawn
# alone in both simulators; validation/compare_weigle2005.py and weigle2005_sensitivity.py: study W
# beside its ns-2 twin, through the aqmlab package (20,000 pairs per run, and every Table I cell at the
# paper's 50,000, which also gives the study report its ns-2 column) — about three hours of ns-2 on 2
# cores when not cached;
# validation/compare_ns3.py: CUBIC, DCTCP and the modern AQMs beside ns-3.37, which it installs and builds).
validate: build
	bash validation/ns2/install-ns2.sh
	$(PY) validation/compare_newreno_trace.py
	$(PY) validation/compare_http_replay.py
	$(PY) validation/compare_bulk_parking.py
	python3 validation/compare_ns2.py
	python3 validation/compare_packmime.py
	$(PY) validation/compare_packmime_samplers.py
	$(PY) validation/compare_weigle2005.py --seeds 5
	$(PY) validation/compare_weigle2005.py --cells all --out validation/results/compare_weigle2005_all.md
	$(PY) validation/compare_weigle2005.py --cells all --pairs 50000 --out validation/results/compare_weigle2005_50k.md
	$(PY) validation/weigle2005_sensitivity.py
	$(PY) validation/bad_input_probe.py
	$(PY) validation/compare_ns3.py

clean:
	rm -rf target $(VENV) results reports
