# provgraph: the two set-up commands (README) and helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow bench bench-full clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/provgraph demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow tests/test_concurrency.py

bench: $(STAMP)
	$(BIN)/python -m bench --quick

bench-full: $(STAMP)
	$(BIN)/python -m bench --full

clean:
	rm -rf $(VENV) .provgraph .provgraph-demo dist build
