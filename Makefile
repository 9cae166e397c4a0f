# One name per step; each runs the same commands as .ci/run and tools/test-wheel.
# `make ci` is everything CI runs.

PYTHON ?= python3
export NO_MKDOCS_2_WARNING = 1

.PHONY: fmt lint test bench docs wheel ci

fmt:
	cargo fmt
	ruff format .
	ruff check --fix .

lint:
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --all-targets --features python -- -D warnings
	ruff check .
	ruff format --check .
	mypy --strict python/colorwars
	$(PYTHON) -m mypy.stubtest colorwars._core

test:
	pytest
	cargo test

bench:
	$(PYTHON) benchmarks/bench_simulate.py --quick
	$(PYTHON) benchmarks/bench_ai.py --quick
	$(PYTHON) benchmarks/bench_gymnasium.py --quick

docs:
	site=$$(mktemp -d) && mkdocs build --strict -d "$$site/site" && rm -rf "$$site"

wheel:
	tools/test-wheel

ci:
	bash .ci/run
