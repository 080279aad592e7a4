"""The reference RAG pipeline of the demo, recorded step by step with :class:`~provgraph.Recorder`.

Three runs, each a PROV bundle (ingestion facts go to the shared ingestion graph):

1. ``flask-docs-qa``: ingest the Flask 2.0.3 pages (docutils parser 1.0, chunker,
   generated contextual prefixes and questions, indexed representations), then
   answer every question: query, HyDE document (from a first BM25 pass), BM25
   retrieval with the question and the HyDE document, context packing,
   extractive reading, claims and citations.
2. ``flask-docs-update``: ingest the 3.0.3 pages as revisions of the same documents;
   pages that are gone are recorded as deletions.
3. ``parser-upgrade``: re-run extraction of every retained snapshot with parser 1.1
   (a changed configuration: function references rendered as ``url_for()``).

All times come from pinned clocks and all request-time IRIs are name-based
UUIDs, so two runs of the demo write the same statements.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..model import (AidRecord, ChunkRecord, ExtractionRecord, Hit, IndexedRecord, Segment, SnapshotRecord,
                     iri_of)
from ..recorder import Recorder
from ..store import ProvStore
from . import generator as gen
from .answerer import (INSTRUCTION, PROMPT_TEMPLATE, READER, TOKEN_BUDGET, TOP_K, AnswerPlan, Index,
                       IndexEntry, Question, pack, read)
from .chunking import CHUNK_PARAMETERS, CHUNKER, chunk_ranges
from .corpus import PAGE_TITLES, PAGES, RELEASES, Release, document_iri, page_bytes
from .rst import PARSER_V1, PARSER_V2, Extracted, ParserProfile, block_at, extract_rst

__all__ = ["DocState", "Answered", "PipelineResult", "run_pipeline", "demo_iri", "RUN_LABELS",
           "QUOTE_POLICY"]

_NS = uuid.UUID("6f1c3a52-3d0e-5b8e-9a51-7d2f0c1e4b10")
MEDIA_TYPE = "text/x-rst; charset=utf-8"
RUN_LABELS = ("flask-docs-qa", "flask-docs-update", "parser-upgrade")
QUOTE_POLICY = "whitespace"
"""The normalization policy every quote of the reader declares (``Recorder.citation(...,
policy=)``): it quotes across line breaks with a single space, as language models do.
Declared on the citation, so any later ``provgraph resolve`` reaches the demo's verdicts
(issue 17: the demo resolved under it without recording it, and a plain resolve then
turned its normalized matches into mismatches)."""
RETRIEVER = ("rank-bm25", importlib.metadata.version("rank-bm25"))


def demo_iri(*parts: str) -> str:
    """A name-based ``urn:uuid:`` (UUIDv5) IRI: the same parts always give the same IRI."""
    return f"urn:uuid:{uuid.uuid5(_NS, '/'.join(parts))}"


class _Clock:
    """A pinned clock: ``start``, then one second later on every call."""

    def __init__(self, start: dt.datetime) -> None:
        self.start = start
        self.n = 0

    def __call__(self) -> dt.datetime:
        self.n += 1
        return self.start + dt.timedelta(seconds=self.n)


@dataclass(slots=True)
class DocState:
    """One page as ingested at one release with one parser."""

    page: str
    release: Release
    snapshot: SnapshotRecord
    extraction: ExtractionRecord
    extracted: Extracted
    chunks: list[ChunkRecord] = field(default_factory=list)
    prefixes: list[AidRecord] = field(default_factory=list)
    questions: list[AidRecord] = field(default_factory=list)
    indexed: list[IndexedRecord] = field(default_factory=list)


@dataclass(slots=True)
class Answered:
    """One answered question: its plan and the IRIs it was recorded under."""

    question: Question
    plan: AnswerPlan
    query: str
    answer: str
    claims: list[str]
    citations: list[list[str]]
    cited_pages: list[list[str | None]]
    included: list[int] = field(default_factory=list)
    """Index entries packed into the prompt, in source-number order."""
    hyde: str = ""
    """The hypothetical document generated for the question."""


@dataclass(slots=True)
class PipelineResult:
    """What the three runs recorded, for the audit and the report."""

    runs: dict[str, str]
    v1: dict[str, DocState]
    v2: dict[str, DocState]
    unchanged: list[str]
    deleted: list[str]
    reparsed: dict[str, DocState]
    answered: list[Answered]
    index_version: str
    index_size: int
    index: Index | None = None
    """The BM25 index the questions were answered from (entries: chunks of ``v1``)."""


def _config() -> dict[str, Any]:
    return {"corpus": [r.sdist for r in RELEASES], "parser": PARSER_V1.config,
            "chunker": dict(CHUNK_PARAMETERS), "retriever": {"top_k": TOP_K, "hyde": True},
            "packing": {"token_budget": TOKEN_BUDGET, "unit": "whitespace tokens"},
            "prompt": INSTRUCTION}


def _recorder(store: ProvStore, label: str, start: dt.datetime) -> Recorder:
    clock = _Clock(start)
    return Recorder(store, label=label, config=_config(), run_iri=demo_iri("run", label),
                    started_at=start, clock=clock,
                    models={"aid_generator": "@".join(gen.GENERATOR), "answerer": "@".join(READER)},
                    code_revision=f"provgraph {__version__} (provgraph.demo)")


def _ingest_page(rec: Recorder, release: Release, page: str, data: bytes, profile: ParserProfile,
                 revision_of: SnapshotRecord | None, with_aids: bool,
                 snapshot: SnapshotRecord | None = None) -> DocState:
    snap = snapshot or rec.snapshot(data, uri=release.source_uri(page), media_type=MEDIA_TYPE,
                                    observed_at=release.observed_at, revision_of=revision_of,
                                    document=document_iri(page))
    extracted = extract_rst(data, profile)
    ext = rec.extraction(snap, parser=profile.agent, text=extracted.text,
                         offset_map=extracted.offset_map, config=profile.config)
    ranges = chunk_ranges(extracted)
    chunks = rec.chunking(ext, chunker=CHUNKER, ranges=ranges, parameters=CHUNK_PARAMETERS)
    state = DocState(page=page, release=release, snapshot=snap, extraction=ext, extracted=extracted,
                     chunks=chunks)
    if not with_aids:
        return state
    title = PAGE_TITLES.get(page, extracted.title)
    for chunk in chunks:
        block = block_at(extracted, chunk.start)
        section = block.section if block else ()
        prefix_text = gen.contextual_prefix(release.version, title, section, chunk.text)
        question_text = gen.generated_question(title, section, chunk.text)
        prefix = rec.aid("contextual_prefix", text=prefix_text, model=gen.GENERATOR, derived_from=[chunk])
        question = rec.aid("generated_question", text=question_text, model=gen.GENERATOR,
                           derived_from=[chunk])
        text = prefix_text + "\n\n" + chunk.text + "\n\n" + question_text
        a = len(prefix_text) + 2
        b = a + len(chunk.text)
        indexed = rec.indexed(chunk, text=text, segments=[
            Segment(start=0, end=len(prefix_text), origin="generated", source=prefix),
            Segment(start=a, end=b, origin="original", source=chunk),
            Segment(start=b + 2, end=len(text), origin="generated", source=question)])
        state.prefixes.append(prefix)
        state.questions.append(question)
        state.indexed.append(indexed)
    return state


def _ingest_release(rec: Recorder, release: Release) -> dict[str, DocState]:
    out: dict[str, DocState] = {}
    for page in PAGES:
        data = page_bytes(release, page)
        if data is None:
            raise FileNotFoundError(f"corpus file {release.folder}/{page} is missing")
        with rec.batch():
            out[page] = _ingest_page(rec, release, page, data, PARSER_V1, None, with_aids=True)
    return out


def _build_index(docs: dict[str, DocState]) -> tuple[Index, list[tuple[DocState, int]]]:
    entries: list[IndexEntry] = []
    where: list[tuple[DocState, int]] = []
    for page in PAGES:
        d = docs[page]
        for i, chunk in enumerate(d.chunks):
            entries.append(IndexEntry(key=d.indexed[i].iri, indexed_text=d.indexed[i].text,
                                      chunk_text=chunk.text, prefix_text=d.prefixes[i].text,
                                      page=page, title=PAGE_TITLES.get(page, d.extracted.title)))
            where.append((d, i))
    return Index(entries), where


def _answer(rec: Recorder, question: Question, index: Index,
            where: list[tuple[DocState, int]]) -> Answered:
    run = rec.iri
    qid = question.id
    with rec.batch():
        q = rec.query(question.text, iri=demo_iri(run, qid, "query"))
        first = index.search(question.text, k=3)
        hyde_text = gen.hypothetical_document(question.text,
                                              [index.entries[i].chunk_text for i, _ in first])
        first_chunks = [where[i][0].chunks[where[i][1]] for i, _ in first]
        hyde = rec.aid("hypothetical_document", text=hyde_text, model=gen.GENERATOR,
                       derived_from=[q, *first_chunks])
        # the question counts twice, the hypothetical document once
        hits = index.search("\n".join((question.text, question.text, hyde_text)), k=TOP_K)
        retrieval = rec.retrieval(
            q, retriever=RETRIEVER, index_version=index.version, aids=[hyde],
            hits=[Hit(target=where[i][0].indexed[where[i][1]], rank=r + 1, score=s)
                  for r, (i, s) in enumerate(hits)],
            iri=demo_iri(run, qid, "retrieval"))
        packed = pack(question.text, [i for i, _ in hits], index)

        def source(key: tuple[str, int]) -> ChunkRecord | AidRecord:
            d, j = where[key[1]]
            return d.chunks[j] if key[0] == "chunk" else d.prefixes[j]

        segments = [Segment(start=s, end=e, origin=o, source=source(k) if k else None)
                    for s, e, o, k in packed.segments]
        gi = rec.context_packing(text=packed.text, segments=segments, retrieval=retrieval,
                                 template=PROMPT_TEMPLATE, token_budget=TOKEN_BUDGET,
                                 omitted=[where[i][0].chunks[where[i][1]] for i in packed.omitted],
                                 iri=demo_iri(run, qid, "input"))
        plan = read(question, packed, index)
        settings: dict[str, Any] = {"deterministic": True, "reads_generated_segments": False}
        if question.expect == "stress_generated":
            settings = {"deterministic": True, "reads_generated_segments": True,
                        "stress_condition": "generated contextual prefixes read as source text"}
        answer = rec.generation(gi, model=READER, text=plan.text, settings=settings,
                                iri=demo_iri(run, qid, "answer"))
        claims: list[str] = []
        citations: list[list[str]] = []
        pages: list[list[str | None]] = []
        for k, cp in enumerate(plan.claims):
            claim = rec.claim(answer, start=cp.start, end=cp.end, kind=cp.kind, status=cp.status,
                              derived_from=[claims[o] for o in cp.operands], warrant=cp.warrant,
                              iri=demo_iri(run, qid, f"claim-{k + 1}"))
            claims.append(claim.iri)
            cits: list[str] = []
            cpages: list[str | None] = []
            for j, cit in enumerate(cp.citations):
                target = source(cit.target)
                c = rec.citation(claim, target=target, start=cit.start, end=cit.end, unit="codepoint",
                                 quote=cit.quote, prefix=cit.prefix, suffix=cit.suffix,
                                 policy=QUOTE_POLICY if cit.quote is not None else None,
                                 iri=demo_iri(run, qid, f"claim-{k + 1}", f"citation-{j + 1}"))
                cits.append(iri_of(c))  # a recorded citation has its IRI
                cpages.append(where[cit.target[1]][0].page)
            citations.append(cits)
            pages.append(cpages)
    return Answered(question=question, plan=plan, query=q.iri, answer=answer.iri, claims=claims,
                    citations=citations, cited_pages=pages, included=list(packed.included),
                    hyde=hyde_text)


def _update(rec: Recorder, release: Release, previous: dict[str, DocState]
            ) -> tuple[dict[str, DocState], list[str], list[str]]:
    out: dict[str, DocState] = {}
    unchanged: list[str] = []
    deleted: list[str] = []
    for page in PAGES:
        prev = previous[page]
        data = page_bytes(release, page)
        with rec.batch():
            if data is None:
                rec.deletion(prev.snapshot, at=release.observed_at)
                deleted.append(page)
            elif data == rec.store.originals.get(prev.snapshot.sha256):
                unchanged.append(page)
            else:
                out[page] = _ingest_page(rec, release, page, data, PARSER_V1, prev.snapshot,
                                         with_aids=True)
    return out, unchanged, deleted


def _reparse(rec: Recorder, states: Iterable[DocState]) -> dict[str, DocState]:
    out: dict[str, DocState] = {}
    for s in states:
        data = rec.store.originals.get(s.snapshot.sha256)
        with rec.batch():
            out[s.snapshot.iri] = _ingest_page(rec, s.release, s.page, data, PARSER_V2, None,
                                               with_aids=False, snapshot=s.snapshot)
    return out


def run_pipeline(store: ProvStore, questions: list[Question]) -> PipelineResult:
    """Record the three runs of the demo into ``store`` (see the module docstring).

    Raises:
        FileNotFoundError: a corpus file listed in :data:`~provgraph.demo.corpus.PAGES`
            is missing from the first release.
        RecordError: the pipeline produced an invalid record (a bug).
    """
    v1_release, v2_release = RELEASES
    qa = _recorder(store, RUN_LABELS[0], v1_release.observed_at)
    v1 = _ingest_release(qa, v1_release)
    index, where = _build_index(v1)
    answered = [_answer(qa, q, index, where) for q in questions]
    upd = _recorder(store, RUN_LABELS[1], v2_release.observed_at)
    v2, unchanged, deleted = _update(upd, v2_release, v1)
    upgrade = _recorder(store, RUN_LABELS[2], v2_release.observed_at + dt.timedelta(days=7))
    reparsed = _reparse(upgrade, [*v1.values(), *v2.values()])
    return PipelineResult(runs={label: r.iri for label, r in zip(RUN_LABELS, (qa, upd, upgrade))},
                          v1=v1, v2=v2, unchanged=unchanged, deleted=deleted, reparsed=reparsed,
                          answered=answered, index_version=index.version, index_size=len(index.entries),
                          index=index)
