# `make test` is what CI runs: it builds .venv if needed, installs the project, lints, type-checks, tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.DEFAULT_GOAL := test
.PHONY: test test-thorough lint typecheck pytest redis-server bench run chat clean
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bedrock,vertex]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# The several-instances tests and bench start a real redis-server on loopback:
# Debian's package when none is on PATH (elsewhere, install Redis or set REDIS_SERVER).
redis-server:
	@command -v redis-server >/dev/null 2>&1 || [ -n "$$REDIS_SERVER" ] || { \
	  echo "installing redis-server from Debian's packages"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get install -y -qq --no-install-recommends redis-server >/dev/null 2>&1 || \
	  { $(SUDO) apt-get update -qq && \
	    $(SUDO) apt-get install -y -qq --no-install-recommends redis-server >/dev/null; }; }

# Two workers per core: most of the suite's time is waiting on processes and sockets
# (on 2 cores: 3:16 with 4 workers, 5:00 with 2). Property tests draw the `ci` profile's
# examples (tests/examples.py); `make test-thorough` draws each test's full count.
WORKERS ?= $(shell echo $$(( 2 * $$(nproc 2>/dev/null || echo 1) )))
pytest: $(STAMP) redis-server
	$(BIN)/pytest -n $(WORKERS)

test: lint typecheck pytest

test-thorough: $(STAMP) redis-server
	$(BIN)/pytest -n $(WORKERS) --hypothesis-profile=thorough

bench: $(STAMP) redis-server
	$(BIN)/python -m bench.verify
	$(BIN)/python -m bench.efficacy
	$(BIN)/python -m bench.filler
	$(BIN)/python -m bench.triage
	$(BIN)/python -m bench.languages
	$(BIN)/python -m bench.injection
	$(BIN)/python -m bench.loop
	$(BIN)/python -m bench.load
	$(BIN)/python -m bench.telemetry
	$(BIN)/python -m bench.knowledge

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache

run: $(STAMP)
	$(BIN)/python -m app

chat: $(STAMP)
	$(BIN)/python -m app chat
