"""The Haystack adapter (issue 14) on real documentation files, offline: Haystack's
TextFileToDocument, DocumentSplitter, InMemoryDocumentStore with InMemoryBM25Retriever,
PromptBuilder or ChatPromptBuilder, AnswerBuilder and a deterministic generator or chat
generator component. Needs the extra: `make test-frameworks`."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from provgraph import EmbeddedStore, analytics, resolve
from provgraph.errors import ProvgraphError, RecordError
from provgraph.schema import chunk as chunk_schema
from provgraph.schema import extraction as extraction_schema
from provgraph.schema import generation as generation_schema
from provgraph.schema import prompt as prompt_schema
from provgraph.schema import retrieval as retrieval_schema
from provgraph.schema import snapshot as snapshot_schema
from provgraph.staleness import stale

from .adapters_support import (
    CORPUS, citations, claims, copy_pages, missing_framework, namespace, run_user_lines,
)

pytestmark = pytest.mark.frameworks

PAGES = ["shell.rst", "foreword.rst", "server.rst"]
QUESTION = "Why is Flask called a microframework, and what does micro mean?"
TEMPLATE = """Answer the question from the documents; cite them as [n].
{% for doc in documents %}[{{ loop.index }}] ({{ doc.meta['file_path'] }})
{{ doc.content }}
{% endfor %}
Question: {{ query }}
Answer:"""
SYSTEM = "Answer the question from the documents; cite them as [n]."
USER = """{% for doc in documents %}[{{ loop.index }}] ({{ doc.meta['file_path'] }})
{{ doc.content }}
{% endfor %}
Question: {{ query }}
Answer:"""
USER_LINES = [
    "from provgraph import open_store",
    "from provgraph.adapters.haystack import HaystackRecorder",
    'pg = HaystackRecorder(open_store(), label="support-bot")',
    "pg.check()",
    "pg.close()",
]


@pytest.fixture(scope="module")
def hs() -> Any:
    """The Haystack classes the tests use; a failure in CI, a skip elsewhere, when absent."""
    try:
        from haystack import AsyncPipeline, Pipeline, component, tracing
        from haystack.components.builders import AnswerBuilder, ChatPromptBuilder, PromptBuilder
        from haystack.components.converters import TextFileToDocument
        from haystack.components.preprocessors import DocumentSplitter
        from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
        from haystack.components.writers import DocumentWriter
        from haystack.dataclasses import ChatMessage, ToolCall
        from haystack.document_stores.in_memory import InMemoryDocumentStore
    except ImportError as exc:
        missing_framework("haystack", exc)

    def quoting_reply(reply: str, prompt: str) -> str:
        """``reply`` quoting the last sentence of document [1] in ``prompt``."""
        first = prompt.split("[1] (", 1)[1].split("\n", 1)[1]
        sentences = re.findall(r"[A-Z][^\".\n]{20,}\.", first.split("\n[2] (", 1)[0])
        return reply.format(quote=sentences[-1])

    @component
    class QuotingGenerator:
        """A deterministic generator: quotes the last sentence of document [1] and cites
        document [2] without a quote; it keeps each prompt it was given."""

        def __init__(self, reply: str = 'The docs say "{quote}" [1]. They also cover more [2].') -> None:
            self.prompts: list[str] = []
            self.reply = reply

        @component.output_types(replies=list[str], meta=list[dict[str, Any]])
        def run(self, prompt: str) -> dict[str, Any]:
            self.prompts.append(prompt)
            return {"replies": [quoting_reply(self.reply, prompt)],
                    "meta": [{"model": "quoting-generator-1.0"}]}

    @component
    class QuotingChatGenerator:
        """The same replies with a chat generator's interface (OpenAIChatGenerator's: messages
        in, ChatMessage replies out, the served model in each reply's meta); it keeps each
        message list it was given."""

        def __init__(self, reply: str = 'The docs say "{quote}" [1]. They also cover more [2].') -> None:
            self.messages: list[list[Any]] = []
            self.reply = reply

        @component.output_types(replies=list[ChatMessage])
        def run(self, messages: list[ChatMessage]) -> dict[str, Any]:
            self.messages.append(messages)
            user = next(m.text for m in messages if m.role.value == "user")
            return {"replies": [ChatMessage.from_assistant(
                quoting_reply(self.reply, user),
                meta={"model": "quoting-chat-generator-1.0", "finish_reason": "stop"})]}

        # this module's annotations are strings (``from __future__``) that Haystack resolves in
        # the module's globals, where the ChatMessage imported above is not
        run.__annotations__["messages"] = list[ChatMessage]

    return namespace(dict(locals()))


def _index(hs: Any, folder: Path) -> Any:
    """The user's indexing pipeline (unchanged by provgraph): files -> split -> store."""
    docs = hs.InMemoryDocumentStore()
    p = hs.Pipeline()
    p.add_component("convert", hs.TextFileToDocument())
    p.add_component("split", hs.DocumentSplitter(split_by="word", split_length=120, split_overlap=20))
    p.add_component("write", hs.DocumentWriter(docs))
    p.connect("convert", "split")
    p.connect("split", "write")
    p.run({"convert": {"sources": [folder / name for name in PAGES]}})
    return docs


def _rag(hs: Any, docs: Any, *, reply: str | None = None, pattern: str = r"\[(\d+)\]") -> Any:
    """The user's query pipeline (unchanged by provgraph): BM25 -> prompt -> generator -> answer."""
    p = hs.Pipeline()
    p.add_component("retrieve", hs.InMemoryBM25Retriever(docs, top_k=3))
    p.add_component("prompt", hs.PromptBuilder(TEMPLATE, required_variables=["documents", "query"]))
    p.add_component("llm", hs.QuotingGenerator(**({"reply": reply} if reply else {})))
    p.add_component("answer", hs.AnswerBuilder(reference_pattern=pattern))
    p.connect("retrieve", "prompt.documents")
    p.connect("prompt", "llm")
    p.connect("llm.replies", "answer.replies")
    p.connect("llm.meta", "answer.meta")
    p.connect("retrieve", "answer.documents")
    return p


def _chat_rag(hs: Any, docs: Any, *, pipeline: Any = None) -> Any:
    """The user's chat query pipeline (unchanged by provgraph): BM25 -> ChatPromptBuilder ->
    chat generator -> AnswerBuilder (taking the ChatMessage replies); ``pipeline`` is the
    pipeline class (default ``Pipeline``)."""
    p = (pipeline or hs.Pipeline)()
    p.add_component("retrieve", hs.InMemoryBM25Retriever(docs, top_k=3))
    p.add_component("prompt", hs.ChatPromptBuilder(
        [hs.ChatMessage.from_system(SYSTEM), hs.ChatMessage.from_user(USER)],
        required_variables=["documents", "query"]))
    p.add_component("llm", hs.QuotingChatGenerator())
    p.add_component("answer", hs.AnswerBuilder(reference_pattern=r"\[(\d+)\]"))
    p.connect("retrieve", "prompt.documents")
    p.connect("prompt.prompt", "llm.messages")
    p.connect("llm.replies", "answer.replies")
    p.connect("retrieve", "answer.documents")
    return p


def _rendered(messages: list[Any]) -> str:
    """The prompt text the adapters record for chat messages: "<role>: <text>", one a line."""
    return "\n".join(f"{m.role.value}: {m.text}" for m in messages)


def _ask(pipeline: Any, question: str) -> Any:
    return pipeline.run({"retrieve": {"query": question}, "prompt": {"query": question},
                         "answer": {"query": question}})


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return copy_pages(tmp_path / "docs", PAGES)


def test_the_readme_lines_are_the_user_lines_and_record_a_run(hs, corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("PROVGRAPH_STORE", str(tmp_path / "store"))
    ns = run_user_lines(USER_LINES, "result = _ask(_rag(hs, _index(hs, corpus)), QUESTION)\n",
                        {"_ask": _ask, "_rag": _rag, "_index": _index, "hs": hs, "corpus": corpus,
                         "QUESTION": QUESTION}, "README-haystack")
    assert len(ns["pg"].answers) == 1
    assert ns["result"]["answer"]["answers"][0].data.startswith("The docs say")
    ns["pg"].store.close()


@pytest.mark.parametrize("chat", [False, True], ids=["text", "chat"])
def test_recorded_graph_resolve_lineage_generated_evidence_and_stale(hs, corpus, chat):
    store = EmbeddedStore()
    from provgraph.adapters.haystack import METADATA_KEY, HaystackRecorder
    with HaystackRecorder(store, label="t") as pg:
        docs = _index(hs, corpus)
        rag = _chat_rag(hs, docs) if chat else _rag(hs, docs)
        result = _ask(rag, QUESTION)
    model = "quoting-chat-generator-1.0" if chat else "quoting-generator-1.0"
    (a1,) = pg.answers
    split = docs.filter_documents()

    # each file as a snapshot with its retained bytes; its text as the extraction
    for name in PAGES:
        raw = (corpus / name).read_bytes()
        (snap,) = snapshot_schema.load(store, [pg._snapshots.newest[(corpus / name).resolve().as_uri()]]).values()
        assert store.originals.get(snap.sha256) == raw and snap.byte_size == len(raw)
        assert snap.media_type.endswith("charset=utf-8")
    # each split document is a chunk at split_idx_start + its length, in code points
    assert all(METADATA_KEY in d.meta for d in split)   # the chunk IRI, stored with the document
    chunk_of = {d.id: pg._chunk_of(d) for d in split}
    chunks = chunk_schema.load(store, list(chunk_of.values()))
    assert len(chunks) == len(split)
    for d in split:
        c = chunks[chunk_of[d.id]]
        assert (c.start, c.end, c.text) == (d.meta["split_idx_start"],
                                            d.meta["split_idx_start"] + len(d.content), d.content)
    # foreword.rst has curly quotes near its start: its later chunks' code point offsets are
    # not byte offsets, and the extraction's text is the file's text
    foreword = [d for d in split if d.meta["file_path"] == "foreword.rst" and d.meta["split_idx_start"] > 0]
    text = (corpus / "foreword.rst").read_text(encoding="utf-8")
    assert foreword and all(len(text[:d.meta["split_idx_start"]].encode()) != d.meta["split_idx_start"]
                            for d in foreword)
    exts = extraction_schema.load(store, list({c.extraction for c in chunks.values()}))
    assert {e.parser.name for e in exts.values()} == {"TextFileToDocument"}

    # the retrieval: the retriever's documents, ranked, with BM25's scores
    answer = generation_schema.load(store, [a1])[a1]
    gen = rag.get_component("llm")
    reply = result["answer"]["answers"][0]
    assert answer.text == reply.data and answer.model.name == model
    gi = prompt_schema.load(store, [answer.generator_input])[answer.generator_input]
    hits = sorted(retrieval_schema.load(store, [gi.retrieval])[gi.retrieval].hits, key=lambda h: h.rank)
    expected = rag.get_component("retrieve").run(query=QUESTION)["documents"]
    assert [(h.rank, h.target, h.score) for h in hits] == [
        (i + 1, chunk_of[d.id], pytest.approx(d.score)) for i, d in enumerate(expected)]
    assert retrieval_schema.load(store, [gi.retrieval])[gi.retrieval].retriever.name == "InMemoryBM25Retriever"

    # the exact prompt (chat: the messages ChatPromptBuilder rendered, as the generator got them);
    # each retrieved document's text original (its chunk), the query, the template
    assert gi.text == (_rendered(gen.messages[0]) if chat else gen.prompts[0])
    assert sum(s.end - s.start for s in gi.segments) == len(gi.text)
    by_origin: dict[str, list[Any]] = {}
    for s in gi.segments:
        by_origin.setdefault(s.origin, []).append(s)
    assert [(gi.text[s.start:s.end], s.source) for s in by_origin["original"]] == [
        (d.content, chunk_of[d.id]) for d in expected]
    assert [gi.text[s.start:s.end] for s in by_origin["query"]] == [QUESTION]
    template = "".join(gi.text[s.start:s.end] for s in by_origin["instruction"])
    assert template.startswith(f"system: {SYSTEM}\nuser: [1] (" if chat else f"{SYSTEM}\n[1] (")
    assert all(s.source is None for s in by_origin["instruction"])
    assert gi.template is not None and gi.template.name == (
        "ChatPromptBuilder:prompt" if chat else "PromptBuilder:prompt")

    # AnswerBuilder's references as claims and citations
    c1, c2 = claims(store, a1)
    assert (c1.kind, c2.kind) == ("quotation", "paraphrase")
    (cit1,) = citations(store, c1.iri)
    assert cit1.target == chunk_of[expected[0].id] and cit1.unit == "codepoint"
    assert chunks[cit1.target].text[cit1.start:cit1.end] == cit1.quote and cit1.quote in answer.text
    # the quote is in foreword.rst after its curly quotes: code points, not bytes, locate it
    assert expected[0].meta["file_path"] == "foreword.rst"
    k = chunks[cit1.target].start + cit1.start
    assert text[k:k + len(cit1.quote)] == cit1.quote and len(text[:k].encode()) > k
    (cit2,) = citations(store, c2.iri)
    assert cit2.quote is None and cit2.target == chunk_of[expected[1].id]
    assert (cit2.start, cit2.end) == (0, len(expected[1].content))

    outcomes = {r.citation: r.outcome for _, r in resolve.resolve_run(store).items}
    assert outcomes == {cit1.iri: "quote_match", cit2.iri: "located"}
    # nothing in this pipeline is generated evidence: no aids, no model-written document
    assert analytics.generated_evidence(store) == []

    lineage = analytics.lineage(store, c1.iri)
    labels = " ".join(r.label or "" for r in lineage)
    assert {"Chunk", "SourceSnapshot", "Retrieval"} <= {r.kind for r in lineage}
    for name in ("DocumentSplitter", "TextFileToDocument", model, "InMemoryBM25Retriever"):
        assert name in labels, name
    assert {r.claim for r in analytics.impact(store, "DocumentSplitter")} == {c1.iri, c2.iri}
    assert stale(store) == []

    # re-ingest: unchanged pages record nothing new; an edited page makes its claims stale
    cited = Path(expected[0].meta["file_path"]).name
    before = dict(pg._snapshots.newest)
    page = corpus / cited
    page.write_text(page.read_text(encoding="utf-8").replace("Flask", "Flask (the framework)"),
                    encoding="utf-8")
    with HaystackRecorder(store, label="nightly") as again:
        _index(hs, corpus)
    assert again.answers == []
    for name in PAGES:
        uri = (corpus / name).resolve().as_uri()
        assert (again._snapshots.newest[uri] == before[uri]) == (name != cited), name
    rows = stale(store)
    citing = {c.iri for c, d in ((c1, expected[0]), (c2, expected[1])) if d.meta["file_path"] == cited}
    assert {r.claim for r in rows} == citing == {c1.iri}    # c2 cites shell.rst, unchanged
    assert {r.kind for r in rows} == {"updated"}
    store.close()


def test_a_recording_failure_surfaces_and_does_not_stop_the_pipeline(hs, corpus, monkeypatch):
    from provgraph.adapters.haystack import HaystackRecorder
    store = EmbeddedStore()
    pg = HaystackRecorder(store)
    rag = _rag(hs, _index(hs, corpus))

    def broken(*a: Any, **k: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(pg.recorder, "retrieval", broken)
    result = _ask(rag, QUESTION)
    assert result["answer"]["answers"][0].data  # the application got its answer ...
    with pytest.raises(RecordError, match="disk full") as info:
        pg.close()                                # ... and provgraph raises the failure
    assert isinstance(info.value.__cause__, OSError)
    assert pg.answers == []
    store.close()


def test_content_tracing_is_on_for_provgraph_only_and_the_users_tracer_is_kept(hs, corpus, monkeypatch):
    from provgraph.adapters.haystack import HaystackRecorder
    monkeypatch.delenv("HAYSTACK_CONTENT_TRACING_ENABLED", raising=False)
    monkeypatch.setattr(hs.tracing.tracer, "is_content_tracing_enabled", False)
    seen: list[tuple[str, str]] = []

    class UserSpan(hs.tracing.Span):
        def __init__(self, name: str) -> None:
            self.name = name

        def set_tag(self, key: str, value: Any) -> None:
            seen.append((self.name, key))

    class UserTracer(hs.tracing.Tracer):
        @contextlib.contextmanager
        def trace(self, operation_name: str, tags: Any = None, parent_span: Any = None) -> Any:
            yield UserSpan(operation_name)

        def current_span(self) -> Any:
            return None

    user = UserTracer()
    hs.tracing.enable_tracing(user)
    try:
        store = EmbeddedStore()
        with HaystackRecorder(store) as pg:
            _ask(_rag(hs, _index(hs, corpus)), QUESTION)
        assert len(pg.answers) == 1
        assert hs.tracing.tracer.actual_tracer is user    # put back
        assert ("haystack.component.run", "haystack.component.visits") in seen
        assert not any(k in ("haystack.component.input", "haystack.component.output") for _, k in seen)
        assert hs.tracing.tracer.is_content_tracing_enabled is False
        store.close()
    finally:
        hs.tracing.disable_tracing()


def test_without_haystack_the_error_says_how_to_install_it(monkeypatch):
    from provgraph.adapters.haystack import HaystackRecorder
    monkeypatch.setitem(sys.modules, "haystack", None)
    with pytest.raises(ProvgraphError, match=r"pip install 'provgraph\[haystack\]'"):
        HaystackRecorder(EmbeddedStore())


def test_documents_made_without_a_converter_retain_their_text_under_their_file_name(hs):
    from haystack import Document

    from provgraph.adapters.haystack import HaystackRecorder
    store = EmbeddedStore()
    text = (CORPUS / "shell.rst").read_text(encoding="utf-8")

    def split(content: str) -> Any:
        p = hs.Pipeline()
        p.add_component("split", hs.DocumentSplitter(split_by="word", split_length=80))
        return p.run({"split": {"documents": [Document(content=content, meta={"file_path": "shell.rst"})]}})

    with HaystackRecorder(store) as pg:
        split(text)
    uri = "urn:haystack:file_path:shell.rst"
    (snap,) = snapshot_schema.load(store, [pg._snapshots.newest[uri]]).values()
    assert store.originals.get(snap.sha256) == text.encode("utf-8")
    with HaystackRecorder(store) as again:
        split(text.replace("shell", "REPL"))
    (newer,) = snapshot_schema.load(store, [again._snapshots.newest[uri]]).values()
    assert newer.revision_of == snap.iri
    store.close()


def test_a_reference_no_sentence_marks_is_cited_by_a_claim_spanning_the_answer(hs, corpus):
    from provgraph.adapters.haystack import HaystackRecorder
    store = EmbeddedStore()
    with HaystackRecorder(store) as pg:
        rag = _rag(hs, _index(hs, corpus), reply="Flask starts small (see 2).", pattern=r"\(see (\d+)\)")
        _ask(rag, QUESTION)
    (a,) = pg.answers
    (claim,) = claims(store, a)
    assert (claim.start, claim.end, claim.kind) == (0, len("Flask starts small (see 2)."), "paraphrase")
    (cit,) = citations(store, claim.iri)
    second = rag.get_component("retrieve").run(query=QUESTION)["documents"][1]
    assert cit.target == pg._chunk_of(second) and (cit.start, cit.end) == (0, len(second.content))
    assert {r.outcome for _, r in resolve.resolve_run(store).items} == {"located"}
    store.close()


def test_an_async_chat_pipeline_is_recorded_as_a_pipeline_is(hs, corpus):
    from provgraph.adapters.haystack import HaystackRecorder
    store = EmbeddedStore()
    with HaystackRecorder(store) as pg:
        rag = _chat_rag(hs, _index(hs, corpus), pipeline=hs.AsyncPipeline)
        result = asyncio.run(rag.run_async({"retrieve": {"query": QUESTION}, "prompt": {"query": QUESTION},
                                            "answer": {"query": QUESTION}}))
    (a,) = pg.answers
    answer = generation_schema.load(store, [a])[a]
    assert answer.text == result["answer"]["answers"][0].data
    assert answer.model.name == "quoting-chat-generator-1.0"
    gi = prompt_schema.load(store, [answer.generator_input])[answer.generator_input]
    assert gi.text == _rendered(rag.get_component("llm").messages[0])
    expected = rag.get_component("retrieve").run(query=QUESTION)["documents"]
    assert [(gi.text[s.start:s.end], s.source) for s in gi.segments if s.origin == "original"] == [
        (d.content, pg._chunk_of(d)) for d in expected]
    assert [gi.text[s.start:s.end] for s in gi.segments if s.origin == "query"] == [QUESTION]
    c1, c2 = claims(store, a)
    assert (c1.kind, c2.kind) == ("quotation", "paraphrase")
    assert sorted(r.outcome for _, r in resolve.resolve_run(store).items) == ["located", "quote_match"]
    store.close()


def test_chat_messages_render_one_a_line_and_a_tool_call_only_reply_is_no_answer(hs):
    from provgraph.adapters.haystack import _render, _replies
    call = hs.ToolCall(tool_name="search", arguments={"q": "micro"})
    messages = [hs.ChatMessage.from_system("Be brief."), hs.ChatMessage.from_user("Why micro?"),
                hs.ChatMessage.from_assistant("Looking.", tool_calls=[call])]
    assert _render(messages) == "system: Be brief.\nuser: Why micro?\nassistant: Looking.[tool_call]"
    replies = [hs.ChatMessage.from_assistant(tool_calls=[call]),
               hs.ChatMessage.from_assistant("Small core.", meta={"model": "m-1"})]
    assert _replies({"replies": replies}) == [("Small core.", {"model": "m-1"})]
