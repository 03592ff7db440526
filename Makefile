# `make test` is what CI runs: it builds .venv if needed, installs the project, lints, type-checks, tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.DEFAULT_GOAL := test
.PHONY: test lint typecheck pytest bench run chat clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python -m bench.verify
	$(BIN)/python -m bench.loop
	$(BIN)/python -m bench.load
	$(BIN)/python -m bench.telemetry
	$(BIN)/python -m bench.knowledge

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

run: $(STAMP)
	$(BIN)/python -m app

chat: $(STAMP)
	$(BIN)/python -m app chat
