"""The LangChain adapter (issue 14) on real documentation files, offline: TextLoader,
RecursiveCharacterTextSplitter (add_start_index), BM25Retriever, a MultiVectorRetriever
over an in-memory vector store with deterministic fake embeddings, and FakeListChatModel
(a subclass that quotes what it was shown). Needs the extra: `make test-frameworks`."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from provgraph import EmbeddedStore, analytics, resolve
from provgraph.schema import aid as aid_schema
from provgraph.schema import chunk as chunk_schema
from provgraph.schema import extraction as extraction_schema
from provgraph.schema import generation as generation_schema
from provgraph.schema import prompt as prompt_schema
from provgraph.schema import retrieval as retrieval_schema
from provgraph.schema import snapshot as snapshot_schema
from provgraph.staleness import stale
from provgraph.vocab import PG

from .adapters_support import (
    citations as _citations, claims as _claims, copy_pages, missing_framework, namespace, run_user_lines,
)

pytestmark = pytest.mark.frameworks

PAGES = ["shell.rst", "foreword.rst", "server.rst"]
Q1 = "How do I create a request context in the shell?"
MISSING = "this sentence is in none of the documents"
USER_LINES = [
    "from provgraph import open_store",
    "from provgraph.adapters.langchain import LangChainRecorder",
    'pg = LangChainRecorder(open_store(), label="support-bot")',
    "pg.check()",
    "pg.close()",
]


@pytest.fixture(scope="module")
def lc() -> Any:
    """The LangChain classes the tests use; a failure in CI, a skip elsewhere, when absent."""
    try:
        from langchain_classic.retrievers.multi_vector import MultiVectorRetriever
        from langchain_community.document_loaders import TextLoader
        from langchain_community.retrievers import BM25Retriever
        from langchain_core.documents import Document
        from langchain_core.embeddings import DeterministicFakeEmbedding
        from langchain_core.language_models import FakeListChatModel
        from langchain_core.messages import AIMessageChunk
        from langchain_core.outputs import ChatGenerationChunk
        from langchain_core.output_parsers import StrOutputParser
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_core.runnables import RunnableLambda, RunnablePassthrough
        from langchain_core.stores import InMemoryStore
        from langchain_core.vectorstores import InMemoryVectorStore
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError as exc:
        missing_framework("langchain", exc)

    class QuotingChatModel(FakeListChatModel):  # type: ignore[misc]
        """FakeListChatModel that quotes the first line (20+ characters, no double quote)
        of the context it is shown, then a passage that is in no document; asked for a
        question, it answers with the next of its fixed responses."""

        seen: list = []

        def _call(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> str:
            if not any("Context:" in str(m.content) for m in messages):
                return super()._call(messages, stop, run_manager, **kw)
            self.seen.append(list(messages))
            context = str(messages[0].content).split("Context:\n", 1)[1]
            first = next(line.strip() for line in context.splitlines()
                         if len(line.strip()) >= 20 and '"' not in line)
            return f'The docs say "{first}". They do not say "{MISSING}".'

        def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
            for word in re.split(r"(?<= )", self._call(messages, stop, run_manager, **kw)):
                yield ChatGenerationChunk(message=AIMessageChunk(content=word))

    return namespace(dict(locals()))


PROMPT = [("system", "Answer from the context only.\nContext:\n{context}"), ("human", "{question}")]


def _join(docs: list[Any]) -> str:
    return "\n\n".join(d.page_content for d in docs)


def _app(lc: Any, folder: Path) -> Any:
    """The user's LangChain application (unchanged by provgraph): load, split, BM25, a chain."""
    docs = [d for p in PAGES for d in lc.TextLoader(str(folder / p), encoding="utf-8").load()]
    chunks = lc.RecursiveCharacterTextSplitter(chunk_size=400, chunk_overlap=40,
                                               add_start_index=True).split_documents(docs)
    retriever = lc.BM25Retriever.from_documents(chunks, k=2)
    llm = lc.QuotingChatModel(responses=["unused"])
    chain = ({"context": retriever | _join, "question": lc.RunnablePassthrough()}
             | lc.ChatPromptTemplate.from_messages(PROMPT) | llm | lc.StrOutputParser())
    return chunks, retriever, llm, chain


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return copy_pages(tmp_path / "docs", PAGES)


def _rendered(messages: list[Any]) -> str:
    return "\n".join(f"{m.type}: {m.content}" for m in messages)


def test_the_readme_lines_are_the_user_lines_and_record_a_run(lc, corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("PROVGRAPH_STORE", str(tmp_path / "store"))
    app = ("chunks, retriever, llm, chain = _app(lc, corpus)\n"
           f"answer = chain.invoke({Q1!r})\n")
    ns = run_user_lines(USER_LINES, app, {"_app": _app, "lc": lc, "corpus": corpus}, "README-langchain")
    assert len(ns["pg"].answers) == 1
    ns["pg"].store.close()


def test_recorded_graph_resolve_lineage_unsupported_and_stale(lc, corpus):
    from provgraph.adapters.langchain import LangChainRecorder
    store = EmbeddedStore()
    with LangChainRecorder(store, label="t") as pg:
        chunks, retriever, llm, chain = _app(lc, corpus)
        r1 = chain.invoke(Q1)
    (a1,) = pg.answers
    expected = [d for d in chunks if any(d.page_content == x.page_content
                                         for x in lc.BM25Retriever.from_documents(chunks, k=2)
                                         ._get_relevant_documents(Q1, run_manager=None))]

    # the answer, its input (the exact messages the model saw) and the retrieval
    answer = generation_schema.load(store, [a1])[a1]
    assert answer.text == r1 and answer.model.name == "QuotingChatModel"
    gi = prompt_schema.load(store, [answer.generator_input])[answer.generator_input]
    assert gi.text == _rendered(llm.seen[0])
    hits = sorted(retrieval_schema.load(store, [gi.retrieval])[gi.retrieval].hits, key=lambda h: h.rank)
    assert [h.rank for h in hits] == [1, 2] and all(h.score is None for h in hits)  # BM25Retriever gives none
    chunk_recs = chunk_schema.load(store, [h.target for h in hits])
    texts = [chunk_recs[h.target].text for h in hits]
    assert sorted(texts) == sorted(d.page_content for d in expected)

    # documents and bytes; chunk ranges are the splitter's start_index (code points)
    for h in hits:
        c = chunk_recs[h.target]
        doc = next(d for d in chunks if d.page_content == c.text)
        assert (c.start, c.end) == (doc.metadata["start_index"], doc.metadata["start_index"] + len(c.text))
        (snap,) = snapshot_schema.load(store, [c.snapshot]).values()
        raw = Path(doc.metadata["source"]).read_bytes()
        assert store.originals.get(snap.sha256) == raw and snap.byte_size == len(raw)
        assert snap.source_uri == Path(doc.metadata["source"]).resolve().as_uri()

    # prompt segments: the retrieved texts original (with their chunk), the question query
    assert sum(s.end - s.start for s in gi.segments) == len(gi.text)
    by_origin: dict[str, list[Any]] = {}
    for s in gi.segments:
        by_origin.setdefault(s.origin, []).append(s)
    assert sorted((gi.text[s.start:s.end], s.source) for s in by_origin["original"]) == sorted(
        (chunk_recs[h.target].text, h.target) for h in hits)
    assert [gi.text[s.start:s.end] for s in by_origin["query"]] == [Q1]
    assert "generated" not in by_origin
    assert any("Answer from the context only." in gi.text[s.start:s.end] for s in by_origin["instruction"])

    # claims: the quote of retrieved text cites its chunk range; the other is unsupported
    c1, c2 = _claims(store, a1)
    assert (c1.kind, c1.status, c2.kind, c2.status) == ("quotation", "supported", "quotation", "unsupported")
    (cit,) = _citations(store, c1.iri)
    assert cit.target in chunk_recs and cit.unit == "codepoint"
    assert chunk_recs[cit.target].text[cit.start:cit.end] == cit.quote and cit.quote in r1
    assert _citations(store, c2.iri) == []
    outcomes = {r.citation: r.outcome for _, r in resolve.resolve_run(store).items}
    assert outcomes == {cit.iri: "quote_match"}
    assert [r.claim for r in analytics.unsupported(store)] == [c2.iri]
    assert analytics.generated_evidence(store) == []

    lineage = analytics.lineage(store, c1.iri)
    kinds = {r.kind for r in lineage}
    labels = " ".join(r.label or "" for r in lineage)
    assert {"Chunk", "SourceSnapshot", "Retrieval"} <= kinds, kinds
    for name in ("langchain-text-splitter", "langchain-document-loader", "QuotingChatModel", "BM25Retriever"):
        assert name in labels, name
    # impact: the retriever has a name and no version (LangChain passes only its name)
    assert {(r.claim, r.agent_version) for r in analytics.impact(store, "BM25Retriever")} == {
        (c1.iri, ""), (c2.iri, "")}
    assert stale(store) == []

    # re-ingest after an edit: the edited page is a revision, the claim citing it stale
    cited = Path(next(d.metadata["source"] for d in chunks if d.page_content == chunk_recs[cit.target].text))
    cited.write_text(cited.read_text(encoding="utf-8").replace("the", "THE", 1), encoding="utf-8")
    with LangChainRecorder(store, label="nightly") as again:
        chunks2, *_ = _app(lc, corpus)
        again.ingest(chunks2)
    assert again.answers == []
    rows = stale(store)
    assert {(r.claim, r.kind) for r in rows} == {(c1.iri, "updated")}
    store.close()


def test_chunks_located_by_start_index_or_unique_text_else_unlocated(lc, corpus):
    from provgraph.adapters.langchain import LangChainRecorder
    store = EmbeddedStore()
    page = corpus / "foreword.rst"          # has non-ASCII text: code points, not bytes
    full = page.read_text(encoding="utf-8")
    Doc = lc.Document
    late = full.index("Flask", 1500)
    twice = "Flask"                       # occurs many times
    docs = [Doc(page_content=full[late:late + 60], metadata={"source": str(page), "start_index": late}),
            Doc(page_content=full[late:late + 60], metadata={"source": str(page)}),
            Doc(page_content=twice, metadata={"source": str(page)}),
            Doc(page_content=full[late:late + 60], metadata={"source": str(page), "start_index": 3}),
            Doc(page_content="A note with no source file.", metadata={"source": "https://example.org/x"})]
    assert len(full[:late].encode("utf-8")) > late    # the byte offset differs
    with LangChainRecorder(store) as pg:
        iris = pg.ingest(docs)
    assert iris[0] == iris[1]            # unique text: the same range as start_index gives
    chunks = chunk_schema.load(store, set(iris))
    assert (chunks[iris[0]].start, chunks[iris[0]].end) == (late, late + 60)
    exts = extraction_schema.load(store, [chunks[i].extraction for i in iris])
    for i in (2, 3):                     # unlocated: the file's bytes kept, no map into them
        c = chunks[iris[i]]
        ext = exts[c.extraction]
        assert c.text == docs[i].page_content and ext.offset_map == ()
        assert "unlocated" in ext.config and c.snapshot == chunks[iris[0]].snapshot
    c = chunks[iris[4]]                  # no source file: the text is its own snapshot
    (snap,) = snapshot_schema.load(store, [c.snapshot]).values()
    assert store.originals.get(snap.sha256) == docs[4].page_content.encode("utf-8")
    assert snap.source_uri.startswith("urn:langchain:document:sha256:")
    assert exts[c.extraction].config["source"] == "https://example.org/x"
    store.close()


def test_multi_vector_children_are_generated_aids_with_their_model(lc, corpus):
    from provgraph.adapters.langchain import LangChainRecorder
    store = EmbeddedStore()
    with LangChainRecorder(store) as pg:
        docs = lc.TextLoader(str(corpus / "foreword.rst"), encoding="utf-8").load()
        parents = lc.RecursiveCharacterTextSplitter(chunk_size=600, chunk_overlap=0,
                                                    add_start_index=True).split_documents(docs)
        questions = [f"Which part of the Flask foreword is passage {i} about?" for i in range(len(parents))]
        qgen = (lc.ChatPromptTemplate.from_template("Write one question about:\n{doc}")
                | lc.QuotingChatModel(responses=questions) | lc.StrOutputParser())
        ids = [f"p{i}" for i in range(len(parents))]
        children = [lc.Document(page_content=qgen.invoke({"doc": p.page_content}), metadata={"doc_id": i})
                    for i, p in zip(ids, parents)]
        vectorstore = lc.InMemoryVectorStore(lc.DeterministicFakeEmbedding(size=16))
        vectorstore.add_documents(children)
        docstore = lc.InMemoryStore()
        docstore.mset(list(zip(ids, parents)))
        mvr = lc.MultiVectorRetriever(vectorstore=vectorstore, docstore=docstore, id_key="doc_id",
                                      search_kwargs={"k": 1})
        aids = pg.multi_vector(mvr, kind="generated_question")
        # the chain shows the parent passage and the generated question that matched
        llm = lc.QuotingChatModel(responses=["unused"])
        both = lc.RunnableLambda(lambda d: _join(d["q"] + d["p"]))
        chain = ({"context": {"q": vectorstore.as_retriever(search_kwargs={"k": 1}), "p": mvr} | both,
                  "question": lc.RunnablePassthrough()}
                 | lc.ChatPromptTemplate.from_messages(PROMPT) | llm | lc.StrOutputParser())
        out = chain.invoke("What is Flask's foreword about?")

    assert [a.text for a in aids] == questions
    recs = aid_schema.load(store, [a.iri for a in aids])
    assert {(r.kind, r.model.name) for r in recs.values()} == {("generated_question", "QuotingChatModel")}
    (answer_iri,) = pg.answers
    answer = generation_schema.load(store, [answer_iri])[answer_iri]
    gi = prompt_schema.load(store, [answer.generator_input])[answer.generator_input]
    gen = [s for s in gi.segments if s.origin == "generated"]
    assert [gi.text[s.start:s.end] for s in gen] == [out.split('"')[1]] and gen[0].source in recs
    # the MultiVectorRetriever's retrieval used the returned parent's aids
    rets = [s for s, _, _, _ in store.quads(None, None, PG.Retrieval)]
    loaded = retrieval_schema.load(store, rets)
    (by_mvr,) = [r for r in loaded.values() if r.retriever.name == "MultiVectorRetriever"]
    (hit,) = by_mvr.hits
    assert set(by_mvr.aids) == {a.iri for a in aids if a.derived_from == (hit.target,)}
    # the answer quotes the generated question: generated evidence
    claim, missing = _claims(store, answer_iri)
    assert missing.status == "unsupported"
    (cit,) = _citations(store, claim.iri)
    assert cit.target == gen[0].source
    outcomes = {r.citation: r.outcome for _, r in resolve.resolve_run(store).items}
    assert outcomes[cit.iri] == "generated_target"
    assert [(r.claim, r.aid_type) for r in analytics.generated_evidence(store)] == [
        (claim.iri, "GeneratedQuestion")]
    store.close()


def test_a_recording_failure_surfaces(lc, corpus, monkeypatch):
    from provgraph.adapters.langchain import LangChainRecorder
    from provgraph.errors import RecordError
    store = EmbeddedStore()
    pg = LangChainRecorder(store)
    *_, chain = _app(lc, corpus)

    def broken(*a: Any, **k: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(pg.recorder, "retrieval", broken)
    assert chain.invoke(Q1)       # LangChain logged and dropped the handler's error ...
    with pytest.raises(RecordError, match="disk full") as info:
        pg.close()                # ... and provgraph raises it
    assert isinstance(info.value.__cause__, OSError)
    assert pg.answers == []
    store.close()


def test_async_and_streaming_record_one_answer_each(lc, corpus):
    from provgraph.adapters.langchain import LangChainRecorder
    store = EmbeddedStore()
    with LangChainRecorder(store) as pg:
        *_, chain = _app(lc, corpus)
        out = asyncio.run(chain.ainvoke(Q1))
        assert len(pg.answers) == 1
        streamed = chain.stream(Q1)
        assert len(pg.answers) == 1           # nothing read from the stream yet
        text = "".join(streamed)              # the user reads it
        assert len(pg.answers) == 2
    assert [generation_schema.load(store, [a])[a].text for a in pg.answers] == [out, text]
    assert len([s for s, _, _, _ in store.quads(None, None, PG.GeneratorInput)]) == 2
    assert re.search(r'"[^"]{20,}"', text)
    store.close()


def test_a_failed_step_replaced_by_a_fallback_is_left_out_and_the_run_recorded(lc, corpus):
    from provgraph.adapters.langchain import LangChainRecorder
    store = EmbeddedStore()

    def down(_: Any) -> Any:
        raise ConnectionError("model endpoint down")

    with LangChainRecorder(store) as pg:
        chunks, retriever, llm, _ = _app(lc, corpus)
        chain = ({"context": retriever | _join, "question": lc.RunnablePassthrough()}
                 | lc.ChatPromptTemplate.from_messages(PROMPT)
                 | lc.RunnableLambda(down).with_fallbacks([llm]) | lc.StrOutputParser())
        out = chain.invoke(Q1)
        with pytest.raises(ConnectionError):
            (retriever | lc.RunnableLambda(down)).invoke(Q1)
    (a,) = pg.answers                     # the failed top-level run is not recorded
    assert generation_schema.load(store, [a])[a].text == out
    store.close()
