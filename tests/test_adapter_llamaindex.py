"""The LlamaIndex adapter (issue 14) on real documentation files, offline: LlamaIndex's
IngestionPipeline (SentenceSplitter, QuestionsAnsweredExtractor), its BM25 retriever, its
CitationQueryEngine and a deterministic LLM. Needs the extra: `make test-frameworks`."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from provgraph import EmbeddedStore, analytics, resolve
from provgraph.schema import aid as aid_schema
from provgraph.schema import chunk as chunk_schema
from provgraph.schema import generation as generation_schema
from provgraph.schema import prompt as prompt_schema
from provgraph.schema import retrieval as retrieval_schema
from provgraph.schema import snapshot as snapshot_schema
from provgraph.staleness import stale
from provgraph.vocab import PG, PROV

from .adapters_support import (
    citations, claims, copy_pages, missing_framework, namespace, run_user_lines,
)

pytestmark = pytest.mark.frameworks

PAGES = ["shell.rst", "foreword.rst", "server.rst"]
QUESTION = "1. What does this part of the Flask documentation explain?"
USER_LINES = [
    "from provgraph import open_store",
    "from provgraph.adapters.llamaindex import LlamaIndexRecorder",
    'pg = LlamaIndexRecorder(open_store(), label="support-bot")',
    "pg.check()",
    "pg.close()",
]


@pytest.fixture(scope="module")
def li() -> Any:
    """The LlamaIndex classes the tests use; a failure in CI, a skip elsewhere, when absent."""
    try:
        from llama_index.core import SimpleDirectoryReader
        from llama_index.core.extractors import QuestionsAnsweredExtractor
        from llama_index.core.ingestion import IngestionPipeline
        from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
        from llama_index.core.llms.callbacks import llm_completion_callback
        from llama_index.core.node_parser import SentenceSplitter
        from llama_index.core.query_engine import CitationQueryEngine
        from llama_index.retrievers.bm25 import BM25Retriever
    except ImportError as exc:
        missing_framework("llamaindex", exc)

    class DeterministicLLM(CustomLLM):  # type: ignore[misc]
        """Questions for the extractor; for a citation prompt, a quotation of Source 1's
        first sentence, or (asked about the generated questions) of the generated question."""

        prompts: list = []

        @property
        def metadata(self) -> Any:
            return LLMMetadata(model_name="deterministic-llm")

        def _answer(self, prompt: str) -> str:
            if "Source 1:" not in prompt:
                return QUESTION
            self.prompts.append(prompt)
            sources = prompt.split("\n------\n")[1]
            if "generated questions" in prompt.rsplit("Query:", 1)[1]:
                return f'The excerpt asks "{QUESTION[3:]}" [1].'
            first = re.search(r"Source 1:\n(.*?[.!?])\s", sources, re.S)
            assert first is not None
            return f'The docs say "{first.group(1)}" [1]. They also cover more [2].'

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> Any:
            return CompletionResponse(text=self._answer(prompt))

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kw: Any) -> Any:
            text, acc = self._answer(prompt), ""
            for word in text.split(" "):
                delta = ("" if not acc else " ") + word
                acc += delta
                yield CompletionResponse(text=acc, delta=delta)

    return namespace(dict(locals()))


def _app(li: Any, folder: Path, *, streaming: bool = False) -> Any:
    """The user's LlamaIndex application (unchanged by provgraph): ingest, then an engine."""
    llm = li.DeterministicLLM()
    docs = li.SimpleDirectoryReader(input_files=[str(folder / p) for p in PAGES]).load_data()
    nodes = li.IngestionPipeline(transformations=[
        li.SentenceSplitter(chunk_size=256, chunk_overlap=20),
        li.QuestionsAnsweredExtractor(llm=llm, questions=1)]).run(documents=docs)
    retriever = li.BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=2)
    engine = li.CitationQueryEngine.from_args(None, retriever=retriever, llm=llm,
                                              citation_chunk_size=128, streaming=streaming)
    return docs, nodes, retriever, engine, llm


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return copy_pages(tmp_path / "docs", PAGES)


def test_the_readme_lines_are_the_user_lines_and_record_a_run(li, corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("PROVGRAPH_STORE", str(tmp_path / "store"))
    app = ('docs, nodes, retriever, engine, llm = _app(li, corpus)\n'
           'response = engine.query("How do I create a request context in the shell?")\n')
    ns = run_user_lines(USER_LINES, app, {"_app": _app, "li": li, "corpus": corpus}, "README-llamaindex")
    assert len(ns["pg"].answers) == 1
    ns["pg"].store.close()


def test_recorded_graph_resolve_lineage_generated_evidence_and_stale(li, corpus):
    store = EmbeddedStore()
    from provgraph.adapters.llamaindex import LlamaIndexRecorder
    with LlamaIndexRecorder(store, label="t") as pg:
        docs, nodes, retriever, engine, llm = _app(li, corpus)
        q1 = "How do I create a request context in the shell?"
        r1 = engine.query(q1)
        r2 = engine.query("Which generated questions does the shell page answer?")
    a1, a2 = pg.answers

    # documents and their retained bytes; chunk ranges are the nodes' code point ranges
    for doc in docs:
        raw = Path(doc.metadata["file_path"]).read_bytes()
        snap = snapshot_schema.load(store, [pg._newest[Path(doc.metadata["file_path"]).resolve().as_uri()]])
        (rec,) = snap.values()
        assert store.originals.get(rec.sha256) == raw and rec.byte_size == len(raw)
    chunk_of = {n.node_id: pg._chunk_of(n) for n in nodes}
    chunks = chunk_schema.load(store, list(chunk_of.values()))
    for n in nodes:
        c = chunks[chunk_of[n.node_id]]
        assert (c.start, c.end, c.text) == (n.start_char_idx, n.end_char_idx, n.get_content())
    # the extractor's questions are generated aids, with the model that made them
    aids = aid_schema.load(store, [iri for n in nodes for iri in pg._aids_of(n).values()])
    assert len(aids) == len(nodes)
    assert {(a.kind, a.text, a.model.name) for a in aids.values()} == {
        ("generated_question", QUESTION, "deterministic-llm")}

    # the retrieval: the parent nodes, ranked, with BM25's scores
    answer = generation_schema.load(store, [a1])[a1]
    assert answer.text == r1.response and answer.model.name == "deterministic-llm"
    gi = prompt_schema.load(store, [answer.generator_input])[answer.generator_input]
    hits = retrieval_schema.load(store, [gi.retrieval])[gi.retrieval].hits
    expected = retriever.retrieve(q1)
    assert [(h.rank, h.target, h.score) for h in sorted(hits, key=lambda h: h.rank)] == [
        (i + 1, chunk_of[n.node.node_id], pytest.approx(n.score)) for i, n in enumerate(expected)]
    # the exact LLM input, each range marked
    assert gi.text == llm.prompts[0]
    by_origin: dict[str, list[Any]] = {}
    for s in gi.segments:
        by_origin.setdefault(s.origin, []).append(s)
    assert sum(s.end - s.start for s in gi.segments) == len(gi.text)
    assert [gi.text[s.start:s.end] for s in by_origin["query"]] == [q1]
    for s in by_origin["original"]:
        assert gi.text[s.start:s.end] in chunks[s.source].text
    assert {gi.text[s.start:s.end] for s in by_origin["generated"]} == {QUESTION}
    assert all(s.source in aids for s in by_origin["generated"])
    labels = [gi.text[s.start:s.end] for s in by_origin["instruction"] if s.source is None]
    assert any(t.startswith("Source 1:") or "Source 1:\n" in t for t in labels)
    headers = [s for s in by_origin["instruction"] if s.source is not None]
    assert headers and all(s.source in chunks for s in headers)   # the metadata header

    # claims and citations: "Source 1" mapped back to its parent chunk's range
    c1, c2 = claims(store, a1)
    assert (c1.kind, c2.kind) == ("quotation", "paraphrase")
    (cit1,) = citations(store, c1.iri)
    src1 = r1.source_nodes[0].node.get_content().split("\n", 1)[1]
    assert cit1.target == chunk_of[expected[0].node.node_id] and cit1.unit == "codepoint"
    assert chunks[cit1.target].text[cit1.start:cit1.end] == cit1.quote and cit1.quote in src1
    (cit2,) = citations(store, c2.iri)
    assert cit2.quote is None and chunks[cit2.target].text[cit2.start:cit2.end] in \
        r1.source_nodes[1].node.get_content()

    outcomes = {r.citation: r.outcome for _, r in resolve.resolve_run(store).items}
    assert outcomes[cit1.iri] == "quote_match" and outcomes[cit2.iri] == "located"
    (g,) = claims(store, a2)
    (gcit,) = citations(store, g.iri)
    assert gcit.target in aids and outcomes[gcit.iri] == "generated_target"
    rows = analytics.generated_evidence(store)
    assert [(r.claim, r.aid_type) for r in rows] == [(g.iri, "GeneratedQuestion")]

    lineage = analytics.lineage(store, c1.iri)
    labels_ = " ".join(r.label or "" for r in lineage)
    kinds = {r.kind for r in lineage}
    assert {"Chunk", "SourceSnapshot", "Retrieval"} <= kinds, kinds
    assert "SentenceSplitter" in labels_ and "deterministic-llm" in labels_ and "BM25Retriever" in labels_
    assert stale(store) == []

    # re-ingest: unchanged pages record nothing new; an edited page makes its claims stale
    shell = corpus / "shell.rst"
    shell.write_text(shell.read_text(encoding="utf-8").replace("interactive shell", "REPL"), encoding="utf-8")
    with LlamaIndexRecorder(store, label="nightly") as again:
        _app(li, corpus)
    assert again.answers == []
    rows_ = stale(store)
    # the two claims citing shell.rst text; the claim quoting a generated question is
    # generated evidence, which stale does not follow to the snapshot behind the aid
    assert {r.claim for r in rows_} == {c1.iri, c2.iri}
    assert {r.kind for r in rows_} == {"updated"}
    store.close()


def test_a_recording_failure_surfaces(li, corpus, monkeypatch):
    from provgraph.adapters.llamaindex import LlamaIndexRecorder
    from provgraph.errors import RecordError
    store = EmbeddedStore()
    pg = LlamaIndexRecorder(store)
    *_, engine, _ = _app(li, corpus)

    def broken(*a: Any, **k: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(pg.recorder, "retrieval", broken)
    response = engine.query("How do I create a request context in the shell?")
    assert response.response  # LlamaIndex swallowed the handler's error ...
    with pytest.raises(RecordError, match="disk full") as info:
        pg.close()                # ... and provgraph raises it
    assert isinstance(info.value.__cause__, OSError)
    assert pg.answers == []
    store.close()


def test_async_records_one_generation_and_streaming_is_not_consumed(li, corpus):
    from provgraph.adapters.llamaindex import LlamaIndexRecorder
    store = EmbeddedStore()
    with LlamaIndexRecorder(store) as pg:
        *_, engine, llm = _app(li, corpus)
        r = asyncio.run(engine.aquery("How do I create a request context in the shell?"))
        assert len(pg.answers) == 1
        prompts = list(store.quads(None, PROV.wasGeneratedBy, None))
        inputs = [s for s, _, _, _ in store.quads(None, None, PG.GeneratorInput)]
        assert len(inputs) == 1, "acomplete -> complete reported twice, recorded once"
        assert generation_schema.load(store, pg.answers)[pg.answers[0]].text == r.response
        assert prompts

        *_, streamer, _ = _app(li, corpus, streaming=True)
        stream = streamer.query("How do I create a request context in the shell?")
        assert len(pg.answers) == 1            # the query returned; nothing read from the stream
        text = "".join(stream.response_gen)   # the user reads it
        assert len(pg.answers) == 2
        assert generation_schema.load(store, [pg.answers[1]])[pg.answers[1]].text == text
    store.close()
