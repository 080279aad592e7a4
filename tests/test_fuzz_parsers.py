"""Fuzzing the parsers (issue 20, item 4): the JSONL event log, every RAG importer, every
readable PROV and RDF format, and check-quote, fed real inputs mutated by Hypothesis
(tests/fuzz_support.py): values replaced by values of other types, keys dropped, strings
emptied or given lone surrogates, numbers made huge or negative, bytes overwritten, cut,
duplicated.

Each library call must return or raise a :class:`~provgraph.errors.ProvgraphError` (the
documented error of every entry point), never another exception; a call that raises must
leave the store's statements as they were, and every retained original as it was. (A
known gap: the originals a failed import or event log retained before it failed stay
behind, unreferenced by any statement; the blob store is write-once and has no removal.) The seeds are
the project's examples and test fixtures, the fixture pipeline exported in each format,
and ../shared/cases (real RAG outputs and PROV documents) where present (absent is a
failure when CI=true). The command line is checked on a sample: exit 0, 1 or 2, a
one-line ``Error:``, no traceback (tests/test_fuzz_entry_points.py fuzzes every file
entry point of the command line the same way).

The example counts are bounded and derandomized in ``make test`` and 10 times larger
in ``make soak`` (tests/fuzz_support.py).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from provgraph import EmbeddedStore, Recorder
from provgraph.errors import ProvgraphError
from provgraph.events import load_events
from provgraph.importers import FORMATS as RAG_FORMATS
from provgraph.importers import import_file
from provgraph.io import FORMATS as DOCUMENT_FORMATS
from provgraph.io.bundle import export
from provgraph.io.load import import_document
from provgraph.matching import check_quote
from provgraph.normalize import POLICIES
from provgraph.vocab import UNITS

from . import pipeline
from .conftest import SHARED_CASES
from .fuzz_support import fuzz_settings, mutated, mutated_bytes

pytestmark = pytest.mark.fuzz

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
IMPORTER_FIXTURES = ROOT / "tests" / "fixtures" / "importers"


def _shared(*patterns: str) -> list[bytes]:
    """The bytes of the ../shared/cases files matching ``patterns``: none where the folder
    is absent (the repository's own seeds still run), a failure in CI."""
    if not SHARED_CASES.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{SHARED_CASES} is missing in CI; the fuzz seeds include its cases")
        return []
    return [p.read_bytes() for pattern in patterns for p in sorted(SHARED_CASES.glob(pattern))]


def _files(*paths: Path) -> list[bytes]:
    return [p.read_bytes() for p in paths]


def _pipeline_store() -> EmbeddedStore:
    s = EmbeddedStore()
    pipeline.record(Recorder(s, label="fixture", packages=[], run_iri=pipeline.RUN,
                             started_at=pipeline.t(0)))
    return s


class Target:
    """An in-memory store (originals in a temporary directory) holding the fixture
    pipeline, so that a failed call has something to damage; replaced by a fresh one once
    successful calls have doubled it (comparing a large store after every example would
    cost more than the calls)."""

    def __init__(self) -> None:
        self.store = _pipeline_store()
        self.size = len(self.store)

    def either_stores_or_fails_cleanly(self, call: Callable[[EmbeddedStore], object]) -> None:
        """``call(store)`` returns, or raises a ProvgraphError and leaves the store's
        statements and retained originals as they were (new originals aside: see the
        module docstring)."""
        if len(self.store) > 2 * self.size:
            self.store.close()
            self.store = _pipeline_store()
        statements, blobs = self._statements(), self._blobs()
        try:
            call(self.store)
        except ProvgraphError:
            assert self._statements() == statements, "a failed call changed the statements"
            # known gap: originals retained before the failure stay (write-once blobs that
            # no statement names); none is removed or changed
            assert {k: v for k, v in self._blobs().items() if k in blobs} == blobs

    def _statements(self) -> list[str]:
        return sorted(repr(q) for q in self.store.quads())

    def _blobs(self) -> dict[str, bytes]:
        root = Path(self.store.originals.location)
        return {p.name: p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def target() -> Iterator[Target]:
    t = Target()
    yield t
    t.store.close()


# -------------------------------------------------------------------------- the event log

EVENT_SEEDS = [(EXAMPLES / "events.jsonl").read_bytes(),
               ("\n".join(pipeline.events()) + "\n").encode()]


@fuzz_settings(60)
@given(data=mutated(EVENT_SEEDS))
def test_the_event_log_parser_and_recorder(target, data):
    text = data.decode("utf-8", errors="replace")
    target.either_stores_or_fails_cleanly(
        lambda store: load_events(store, io.StringIO(text), name="fuzz.jsonl"))


# ------------------------------------------------------------------------ the RAG importers

def _rag_seeds(fmt: str) -> list[bytes]:
    fx = IMPORTER_FIXTURES
    seeds = {
        "anthropic": lambda: _files(EXAMPLES / "anthropic-response.json",
                                    fx / "anthropic_citations.json"),
        "cohere": lambda: _files(fx / "cohere_v1.json", fx / "cohere_v2.json"),
        "bedrock": lambda: _files(EXAMPLES / "bedrock-retrieve-and-generate.json",
                                  fx / "bedrock_rag.json") + _shared("real-rag/bedrock/*.yaml"),
        "openai": lambda: _files(fx / "openai_responses.json"),
        "vertex": lambda: _files(fx / "vertex_grounding.json"),
        "ragchecker": lambda: [json.dumps({"results": [{
            "query_id": "0", "query": "Who wrote it?", "response": "Ann wrote it.",
            "retrieved_context": [{"doc_id": "d1", "text": "The book was written by Ann."}]}]}
        ).encode()] + _shared("real-rag/ragchecker/*.json"),
        "alce": lambda: _shared("real-rag/alce/*.json") or [json.dumps({"data": [{
            "question": "Who wrote it?", "output": "Ann wrote it [1].",
            "docs": [{"title": "Book", "text": "The book was written by Ann."}]}]}).encode()],
        "answer": lambda: _files(EXAMPLES / "answer.md") + _shared("real-rag/grounded/answer_*.md"),
        "otlp": lambda: _files(EXAMPLES / "traces.otlp.jsonl") + _shared("otel/*.jsonl"),
    }
    return seeds[fmt]()


def _answer_sources() -> list[Path]:
    shared = SHARED_CASES / "real-rag" / "grounded" / "source.md"
    return [EXAMPLES / "sources"] + ([shared] if shared.exists() else [])


@pytest.mark.parametrize("fmt", list(RAG_FORMATS))
def test_each_rag_importer(target, fmt):
    sources = _answer_sources() if fmt == "answer" else []

    @fuzz_settings(25)
    @given(data=mutated(_rag_seeds(fmt)), partial=st.booleans())
    def check(data: bytes, partial: bool) -> None:
        target.either_stores_or_fails_cleanly(
            lambda store: import_file(store, fmt, data, f"fuzz.{fmt}", sources, partial))

    check()


# --------------------------------------------------------------- PROV and RDF documents

READABLE = [name for name, f in DOCUMENT_FORMATS.items() if f.readable]
_SHARED_DOCUMENTS = {"prov-json": "prov/**/*.json", "provn": "prov/**/*.provn",
                     "prov-xml": "prov/**/*.xml", "json-ld": "prov/**/*.jsonld"}


def _document_seeds(fmt: str) -> list[bytes]:
    s = _pipeline_store()
    seeds = [export(s, fmt, run=pipeline.RUN).data]
    s.close()
    if fmt == "provn":
        seeds.append((EXAMPLES / "primer.provn").read_bytes())
    if fmt in _SHARED_DOCUMENTS:
        seeds += _shared(_SHARED_DOCUMENTS[fmt])
    return seeds


@pytest.mark.parametrize("fmt", READABLE)
def test_each_document_reader(target, fmt):
    seeds = _document_seeds(fmt)

    @fuzz_settings(20)
    @given(data=mutated(seeds), auto=st.booleans())
    def check(data: bytes, auto: bool) -> None:
        target.either_stores_or_fails_cleanly(
            lambda store: import_document(store, data, "auto" if auto else fmt,
                                          name=f"fuzz.{fmt}"))

    check()


# ----------------------------------------------------------------------------- check-quote

QUOTE_SOURCES = _files(EXAMPLES / "policy.md", EXAMPLES / "sources" / "boiler-policy.md")


@st.composite
def quote_checks(draw: st.DrawFn) -> dict[str, Any]:
    seeds = QUOTE_SOURCES + _shared("real-rag/grounded/source.md")
    source = draw(st.sampled_from(seeds))
    if draw(st.booleans()):
        source = draw(mutated_bytes(source))
    text = source.decode("utf-8", errors="replace")
    i = draw(st.integers(0, max(0, len(text) - 1)))
    quote = draw(st.one_of(st.just(text[i:i + draw(st.integers(0, 80))]), st.text(max_size=20)))
    bound = st.one_of(st.none(), st.integers(-5, len(source) + 5), st.integers(-2**70, 2**70))
    return {"source": source, "quote": quote, "start": draw(bound), "end": draw(bound),
            "unit": draw(st.sampled_from([*UNITS, "bytes"])), "end_inclusive": draw(st.booleans()),
            "prefix": draw(st.one_of(st.none(), st.text(max_size=6))),
            "suffix": draw(st.one_of(st.none(), st.text(max_size=6))),
            "policy": draw(st.sampled_from([*POLICIES, "nope"]))}


@fuzz_settings(150)
@given(args=quote_checks())
def test_check_quote(args):
    try:
        res = check_quote(**args)
    except ProvgraphError:
        return
    assert res.outcome  # a Resolution with an outcome


@fuzz_settings(25)
@given(args=quote_checks())
def test_check_quote_on_the_command_line(runner, tmp_path_factory, args):
    from provgraph.cli import cli

    src = tmp_path_factory.mktemp("q") / "source.md"
    src.write_bytes(args["source"])
    argv = ["check-quote", str(src), "--quote", args["quote"], "--unit", args["unit"],
            "--policy", args["policy"]]
    for opt in ("start", "end", "prefix", "suffix"):
        if args[opt] is not None:
            argv += [f"--{opt}", str(args[opt])]
    if args["end_inclusive"]:
        argv.append("--end-inclusive")
    res = runner.invoke(cli, argv)
    assert res.exit_code in (0, 1, 2), (res.exit_code, res.output, res.exception)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output
    if res.exit_code == 2:
        assert res.stderr.startswith(("Error:", "Usage:")) or "\nError:" in res.stderr, res.stderr
