# Stratagem — the two commands a new machine needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: run test lint fmt bench bench-service sysdeps clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@# tests/api/test_generated_client.py: its typer pin (<0.28) conflicts with ours, not its code
	$(BIN)/python -m pip install -q --no-deps openapi-python-client==0.29.1
	@rm -f $(VENV)/.installed-*; touch $(STAMP)

sysdeps:
	@bash scripts/system-deps.sh

## Set up everything and start the app on 127.0.0.1:8000 (SQLite under var/, catalog loaded).
run: $(STAMP) sysdeps
	$(BIN)/stratagem serve --host 127.0.0.1 --port 8000

lint: $(STAMP)
	$(BIN)/ruff check app tests benchmarks migrations
	$(BIN)/ruff format --check app tests benchmarks migrations
	$(BIN)/mypy app

fmt: $(STAMP)
	$(BIN)/ruff check --fix app tests benchmarks migrations
	$(BIN)/ruff format app tests benchmarks migrations

## Set up everything and pass the tests: lint, then the whole suite (SQLite and PostgreSQL),
## one worker per core with each test file kept whole on one worker (its fixtures built once,
## its tests in order): 4,421 tests, 705 s on 2 cores (clean clone, 2026-12-08).
test: $(STAMP) sysdeps lint
	TEST_POSTGRES_URL="$$(bash scripts/ensure-postgres.sh)" $(BIN)/pytest -n auto --dist loadfile

## Benchmarks (not part of `make test`: timings are reported, never asserted).
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	$(BIN)/pytest benchmarks --benchmark-only -p no:randomly

## Service benchmarks (issue 14): PDFs beside estimates, 1 vs 2 processes on PostgreSQL.
bench-service: $(STAMP) sysdeps
	@command -v wrk >/dev/null || apt-get install -y -q wrk
	TEST_POSTGRES_URL="$$(bash scripts/ensure-postgres.sh)" $(BIN)/python benchmarks/pdf_burst.py
	TEST_POSTGRES_URL="$$(bash scripts/ensure-postgres.sh)" $(BIN)/python benchmarks/load_scaling.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
