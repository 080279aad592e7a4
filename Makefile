# provgraph: the two set-up commands (README) and helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-servers test-slow test-frameworks test-browser soak bench bench-full bench-scale clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m compileall -q provgraph
	@touch $(STAMP)

# An editable install gets no bytecode from pip, and with PYTHONDONTWRITEBYTECODE set
# every command recompiled provgraph's modules (about 40 ms of each start; issue 16):
# compile them here (only what changed since last time).
demo: $(STAMP)
	$(BIN)/python -m compileall -q provgraph
	$(BIN)/provgraph demo

test: $(STAMP)
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -q -n 2 --dist loadscope -m "not servers and not slow and not frameworks and not browser and not soak"

# The store contract and the query library on real SPARQL engines (issue 13): the Oxigraph
# server (pip install oxigraph) and Virtuoso (apt-get install virtuoso-opensource), started
# by the test fixtures on 127.0.0.1; skipped with a reason where not installed, never in CI.
test-servers: $(STAMP)
	$(BIN)/python -m pytest -q -m servers

# The concurrency runs (issue 13): 30 s each, readers and writers in separate processes.
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

# The framework adapters (issue 14) with their pinned extras; offline (deterministic LLMs,
# BM25). With CI=true a missing framework fails instead of skipping.
test-frameworks: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,llamaindex,haystack,langchain]'
	$(BIN)/python -m pytest -q -m frameworks

# The auditor's web page in headless Chromium (issue 19): Debian's chromium and
# chromium-driver (apt-get install chromium chromium-driver; .ci/run does) driven by
# Selenium (the browser extra). With CI=true a missing browser fails instead of skipping.
# PROVGRAPH_SCREENSHOTS=docs/screenshots writes the README's screenshots.
test-browser: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,browser]'
	$(BIN)/python -m pytest -q -m browser

# Crash safety and fuzzing at length (issue 20): the crash harness's 100 SIGKILLs
# (tests/crash_harness.py; make test runs 20) and the fuzz tests with 10 times the examples
# of make test, drawn afresh each run (derandomized with CI=true; tests/fuzz_support.py).
soak: $(STAMP)
	PROVGRAPH_FUZZ=soak $(BIN)/python -m pytest -q -m "soak or fuzz"

bench: $(STAMP)
	$(BIN)/python -m bench --quick

bench-full: $(STAMP)
	$(BIN)/python -m bench --full

# The query workload at 1,000,000 answers (issue 16 item 5; not in CI): builds the store at
# SCALE_STORE once (about 160M statements, hours on a 2-core machine; bench/RESULTS.md,
# "1M answers") and reuses it on later runs, then measures lineage, stale, impact, a claim
# export, disk and each query command's peak memory. SCALE_ANSWERS=300000 builds less.
SCALE_ANSWERS ?= 1000000
SCALE_STORE ?= /tmp/provgraph-bench-scale
bench-scale: $(STAMP)
	$(BIN)/python -m bench.bench_scale --answers $(SCALE_ANSWERS) --path $(SCALE_STORE) --json $(SCALE_STORE).results.json

clean:
	rm -rf $(VENV) .provgraph .provgraph-demo .mypy_cache dist build claim.json claim.prov.json served oxigraph-data remote-originals
