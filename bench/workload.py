"""The synthetic but realistic recorded RAG workload every benchmark runs on.

A workload of ``N`` answers is one run (one PROV bundle) of a RAG app over a
corpus of ``max(1000, N)`` chunks:

* **Ingestion** (shared ingestion graph): one source snapshot per 50 chunks,
  each parsed by one of 3 parser versions (``md-parser`` 1.0, 1.1, 2.0, by
  snapshot index modulo 3) and cut into 50 chunks by one chunker. Every 10th
  document later gets a newer revision (a second snapshot with one chunk's
  sentence changed), so staleness questions have answers.
* **Per answer** (run graph), in one :meth:`~provgraph.recorder.Recorder.batch`:
  one query; one retrieval with 10 ranked chunk hits (scores); the context
  packing that links retrieval to generation (no segments: the Recorder needs
  a generator input between retrieval and generation); one generation with
  its answer; 3 claims (a quotation, two paraphrases) with 1, 2 and 1-or-2
  citations. The quotation's citation carries a code point range and the exact
  quoted text of its chunk; every 5th answer's last citation points at the
  source snapshot itself with a UTF-8 byte range and a quote.

Everything is deterministic (seeded), times are fixed UTC instants, and the
request-time IRIs are pinned (``urn:uuid:`` in UUIDv7 layout, derived from the
answer index), so recording the same workload twice, into two stores, writes
identical statements. That is what makes the raw-engine comparison fair:
:func:`capture` records through the real :class:`~provgraph.recorder.Recorder`
into a store that only keeps the quads it is given, and the baseline inserts
exactly those quads with pyoxigraph.

Text contains non-ASCII words so byte, code point and UTF-16 offsets differ.

Ground truth for the query and resolver benchmarks is on :class:`Workload`:
which snapshot each chunk belongs to, which parser version extracted it, which
documents were revised, and each answer's hits and citations.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import IO, Any

from provgraph.model import ChunkRecord, Hit, SnapshotRecord
from provgraph.originals import Originals
from provgraph.recorder import Recorder
from provgraph.store import ANY_GRAPH, ProvStore
from provgraph.vocab import GRAPH, PG
from provgraph.terms import IRI, BNode, Quad, Term

__all__ = ["Workload", "AnswerSpec", "ClaimSpec", "CitationSpec", "Corpus", "CaptureStore",
           "capture", "record_ingestion", "record_answer", "record_workload", "build_store",
           "PARSER_VERSIONS", "CHUNKS_PER_SNAPSHOT", "HITS_PER_ANSWER"]

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
"""Time of the first recorded step; answer ``i`` is recorded at ``T0 + 1 h + i s``."""

CHUNKS_PER_SNAPSHOT = 50
HITS_PER_ANSWER = 10
CLAIMS_PER_ANSWER = 3
PARSER_NAME = "md-parser"
PARSER_VERSIONS = ("1.0", "1.1", "2.0")
CHUNKER = ("sentence-chunker", "0.4")
RETRIEVER = ("rank-bm25", "0.2.2")
TEMPLATE = ("qa-template", "7")
MODEL = ("gen-model", "2025-05")
REVISED_EVERY = 10
GRAPH_INGESTION = GRAPH.INGESTION
"""Every 10th document (snapshot index 0, 10, 20 ...) gets a newer revision."""

_WORDS = (
    "boiler", "inspection", "interval", "engineer", "certified", "registry", "pressure",
    "valve", "safety", "annual", "report", "operator", "maintenance", "schedule", "the",
    "of", "and", "is", "by", "every", "must", "be", "within", "months", "after", "before",
    "café", "naïve", "Zürich", "façade", "déjà", "résumé", "coöperate", "Ångström",
    "temperature", "limit", "exceeds", "document", "section", "appendix", "revision",
    "policy", "record", "kept", "for", "years", "water", "steam", "gauge", "test",
)


def _sentence(rng: random.Random, lo: int, hi: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def _iri(copy: int, kind: int, index: int) -> IRI:
    """A pinned ``urn:uuid:`` in UUIDv7 layout (version 7, RFC 9562 variant)."""
    return IRI(f"urn:uuid:{copy:08x}-{kind:04x}-7000-8000-{index:012x}")


@dataclass(frozen=True, slots=True)
class CitationSpec:
    """One citation: ``chunk`` (corpus index) or, when ``snapshot`` is set, the
    chunk's source snapshot with a UTF-8 byte range."""

    chunk: int
    quote: str | None = None
    start: int | None = None
    end: int | None = None
    unit: str | None = None
    snapshot: bool = False


@dataclass(frozen=True, slots=True)
class ClaimSpec:
    """One claim: code points ``[start, end)`` of the answer text."""

    start: int
    end: int
    kind: str
    citations: tuple[CitationSpec, ...]


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """Everything recorded for answer ``index``: query, hits, answer, claims."""

    index: int
    query: str
    hits: tuple[tuple[int, float], ...]
    answer: str
    claims: tuple[ClaimSpec, ...]


class Corpus:
    """``n_chunks`` chunks in ``n_chunks / 50`` source snapshots (deterministic).

    Attributes:
        texts: extracted text of each snapshot (also its UTF-8 bytes: the parser
            is recorded with an identity offset map).
        ranges: per snapshot, the 50 ``(start, end)`` code point chunk ranges.
        revised: per revised snapshot index, the revised text.
    """

    def __init__(self, n_chunks: int, seed: int = 7) -> None:
        rng = random.Random(seed)
        self.n_snapshots = -(-n_chunks // CHUNKS_PER_SNAPSHOT)
        self.n_chunks = self.n_snapshots * CHUNKS_PER_SNAPSHOT
        self.texts: list[str] = []
        self.ranges: list[list[tuple[int, int]]] = []
        self.revised: dict[int, str] = {}
        for s in range(self.n_snapshots):
            parts: list[str] = [f"# Document {s}\n"]
            pos = len(parts[0])
            ranges = []
            for _ in range(CHUNKS_PER_SNAPSHOT):
                chunk = " ".join(_sentence(rng, 8, 16) for _ in range(rng.randint(3, 5)))
                ranges.append((pos, pos + len(chunk)))
                parts.append(chunk + "\n")
                pos += len(chunk) + 1
            text = "".join(parts)
            self.texts.append(text)
            self.ranges.append(ranges)
            if s % REVISED_EVERY == 0:
                a, b = ranges[rng.randrange(CHUNKS_PER_SNAPSHOT)]
                self.revised[s] = text[:a] + _sentence(rng, 10, 14) + text[b:]

    def chunk_text(self, chunk: int) -> str:
        s, j = divmod(chunk, CHUNKS_PER_SNAPSHOT)
        a, b = self.ranges[s][j]
        return self.texts[s][a:b]

    def snapshot_of(self, chunk: int) -> int:
        return chunk // CHUNKS_PER_SNAPSHOT

    def parser_version(self, snapshot: int) -> str:
        return PARSER_VERSIONS[snapshot % len(PARSER_VERSIONS)]

    def uri(self, snapshot: int) -> str:
        return f"https://docs.example.org/manual/doc-{snapshot:05d}.md"


@dataclass
class Workload:
    """A deterministic workload of ``answers`` answers (see the module docstring).

    Args:
        answers: number of answers.
        copy: a number mixed into every pinned request IRI and the run IRI, so
            several copies of one workload can share a store as separate runs.
        seed: random seed.
    """

    answers: int
    copy: int = 0
    seed: int = 11
    corpus: Corpus = field(init=False)

    def __post_init__(self) -> None:
        self.corpus = Corpus(max(1000, self.answers), seed=self.seed)

    @property
    def run_iri(self) -> IRI:
        return _iri(self.copy, 0, 0)

    def iri(self, kind: str, index: int, sub: int = 0) -> IRI:
        """The pinned IRI of ``kind`` (query, retrieval, input, answer, claim,
        citation) of answer ``index``; ``sub`` numbers claims (0-2) and
        citations (0-5) within the answer."""
        code = {"query": 1, "retrieval": 2, "input": 3, "answer": 4}.get(kind)
        if code is None:
            code = {"claim": 0x10, "citation": 0x20}[kind] + sub
        return _iri(self.copy, code, index)

    def answer_time(self, index: int) -> dt.datetime:
        return T0 + dt.timedelta(hours=1, seconds=index)

    def spec(self, index: int) -> AnswerSpec:
        """The answer ``index`` (deterministic, independent of the others)."""
        rng = random.Random(self.seed * 1_000_003 + index)
        c = self.corpus
        hits_idx = rng.sample(range(c.n_chunks), HITS_PER_ANSWER)
        scores = sorted((round(rng.uniform(1.0, 20.0), 4) for _ in hits_idx), reverse=True)
        query = _sentence(rng, 6, 12)[:-1] + "?"
        # claim 1: a verbatim quotation from the top hit
        top = c.chunk_text(hits_idx[0])
        sentences = top.split(". ")
        k = rng.randrange(len(sentences))
        quote = sentences[k].rstrip(".")
        qs = sum(len(x) + 2 for x in sentences[:k])
        assert top[qs:qs + len(quote)] == quote
        s1 = f'"{quote}"'
        s2 = _sentence(rng, 10, 18)
        s3 = _sentence(rng, 8, 14)
        answer = f"{s1} {s2} {s3}"
        a1 = (1, 1 + len(quote))
        a2 = (len(s1) + 1, len(s1) + 1 + len(s2))
        a3 = (a2[1] + 1, a2[1] + 1 + len(s3))
        cit1 = (CitationSpec(hits_idx[0], quote=quote, start=qs, end=qs + len(quote),
                             unit="codepoint"),)
        cit2 = (CitationSpec(hits_idx[1]), CitationSpec(hits_idx[2]))
        if index % 5 == 0:
            # a citation of the source bytes: UTF-8 byte range of a sentence of the hit chunk
            ch = hits_idx[3]
            s = c.snapshot_of(ch)
            a, _ = c.ranges[s][ch % CHUNKS_PER_SNAPSHOT]
            text = c.texts[s]
            sent = c.chunk_text(ch).split(". ")[0]
            b0 = len(text[:a].encode("utf-8"))
            cit3: tuple[CitationSpec, ...] = (CitationSpec(
                ch, quote=sent, start=b0, end=b0 + len(sent.encode("utf-8")), unit="utf8_byte",
                snapshot=True),)
        else:
            cit3 = (CitationSpec(hits_idx[3]),)
        if index % 2:
            cit3 += (CitationSpec(hits_idx[4]),)
        claims = (ClaimSpec(*a1, "quotation", cit1), ClaimSpec(*a2, "paraphrase", cit2),
                  ClaimSpec(*a3, "paraphrase", cit3))
        return AnswerSpec(index, query, tuple(zip(hits_idx, scores)), answer, claims)

    def specs(self, start: int = 0, stop: int | None = None) -> Iterator[AnswerSpec]:
        for i in range(start, self.answers if stop is None else stop):
            yield self.spec(i)


# --------------------------------------------------------------------------- recording

@dataclass
class Ingested:
    """What :func:`record_ingestion` recorded: snapshot and chunk records by corpus index."""

    snapshots: list[SnapshotRecord]
    chunks: list[ChunkRecord]
    revisions: dict[int, SnapshotRecord]


def new_recorder(store: ProvStore, wl: Workload) -> Recorder:
    """A Recorder for the workload's run (pinned run IRI and start time)."""
    return Recorder(store, label=f"bench workload {wl.answers} answers (copy {wl.copy})",
                    config={"top_k": HITS_PER_ANSWER, "workload": "bench"},
                    models={"generator": "/".join(MODEL)}, code_revision="bench",
                    packages=[], run_iri=wl.run_iri, started_at=T0)


def record_ingestion(rec: Recorder, wl: Workload) -> Ingested:
    """Record the corpus: snapshots, extractions (3 parser versions), chunks, then revisions."""
    c = wl.corpus
    snaps, chunks = [], []
    for s in range(c.n_snapshots):
        t = T0 + dt.timedelta(seconds=s)
        with rec.batch():
            snap = rec.snapshot(c.texts[s].encode("utf-8"), uri=c.uri(s),
                                media_type="text/markdown; charset=utf-8", observed_at=t)
            ext = rec.extraction(snap, parser=(PARSER_NAME, c.parser_version(s)),
                                 text=c.texts[s], ended_at=t)
            chunks += rec.chunking(ext, chunker=CHUNKER, ranges=c.ranges[s],
                                   parameters={"sentences": [3, 5]}, ended_at=t)
        snaps.append(snap)
    revisions = {}
    with rec.batch():
        for s, text in sorted(c.revised.items()):
            revisions[s] = rec.snapshot(text.encode("utf-8"), uri=c.uri(s),
                                        media_type="text/markdown; charset=utf-8",
                                        observed_at=T0 + dt.timedelta(days=30, seconds=s),
                                        revision_of=snaps[s])
    return Ingested(snaps, chunks, revisions)


def record_answer(rec: Recorder, wl: Workload, ing: Ingested, a: AnswerSpec) -> None:
    """Record one answer in one transaction (one :meth:`Recorder.batch`)."""
    t = wl.answer_time(a.index)
    i = a.index
    chunks = ing.chunks
    with rec.batch():
        q = rec.query(a.query, at=t, iri=wl.iri("query", i))
        r = rec.retrieval(q, retriever=RETRIEVER, index_version="idx-2026-03-01",
                          hits=[Hit(target=chunks[c], rank=k + 1, score=s)
                                for k, (c, s) in enumerate(a.hits)],
                          started_at=t, ended_at=t, iri=wl.iri("retrieval", i))
        gi = rec.context_packing(text=f"Answer from the context.\n{a.query}", segments=[],
                                 retrieval=r, at=t, iri=wl.iri("input", i))
        ans = rec.generation(gi, model=MODEL, text=a.answer, settings={"temperature": 0},
                             started_at=t, ended_at=t, iri=wl.iri("answer", i))
        n = 0
        for k, cl in enumerate(a.claims):
            claim = rec.claim(ans, start=cl.start, end=cl.end, kind=cl.kind,
                              iri=wl.iri("claim", i, k))
            for cit in cl.citations:
                target: Any = (ing.snapshots[wl.corpus.snapshot_of(cit.chunk)] if cit.snapshot
                               else chunks[cit.chunk])
                rec.citation(claim, target=target, start=cit.start, end=cit.end, unit=cit.unit,
                             quote=cit.quote, iri=wl.iri("citation", i, n))
                n += 1


def record_workload(store: ProvStore, wl: Workload, *, start: int = 0, stop: int | None = None,
                    progress: Callable[[int], None] | None = None) -> tuple[Recorder, Ingested]:
    """Record ingestion and answers ``[start, stop)`` of ``wl`` into ``store``."""
    rec = new_recorder(store, wl)
    ing = record_ingestion(rec, wl)
    for a in wl.specs(start, stop):
        record_answer(rec, wl, ing, a)
        if progress is not None:
            progress(a.index)
    return rec, ing


# --------------------------------------------------------------------------- capturing

class CaptureStore(ProvStore):
    """A :class:`ProvStore` that keeps the quads it is given, one list per transaction.

    It answers the only reads a Recorder that did its own ingestion makes
    (``has_subject``, and the ``pg:run`` of a claim or activity whose IRI is pinned)
    from the statements it has seen, and refuses SPARQL: a
    benchmark that needed SPARQL here would be measuring a cold path by accident.
    ``sink`` (optional) is called with each transaction's quads instead of keeping them.
    """

    def __init__(self, originals_dir: str | Path | None = None,
                 sink: Callable[[list[Quad]], None] | None = None) -> None:
        self._tmp = None
        if originals_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="provgraph-bench-originals-")
            originals_dir = self._tmp.name
        self.originals = Originals(Path(originals_dir))
        self.location = ":capture:"
        self.transactions: list[list[Quad]] = []
        self._sink = sink
        self._subjects: set[Term] = set()
        self._runs: dict[Term, set[Quad]] = {}
        self._count = 0

    def add(self, quads: Iterable[Quad]) -> None:
        batch = list(quads)
        self._subjects.update(q[0] for q in batch)
        for q in batch:
            if q[1] == PG.run:
                self._runs.setdefault(q[0], set()).add(q)
        self._count += len(batch)
        if self._sink is not None:
            self._sink(batch)
        else:
            self.transactions.append(batch)

    bulk_add = add

    def quads(self, subject: IRI | BNode | None = None, predicate: IRI | None = None,
              object: Term | None = None, graph: Any = ANY_GRAPH) -> Iterator[Quad]:
        if subject is not None and predicate == PG.run and object is None and graph is ANY_GRAPH:
            yield from self._runs.get(subject, ())
            return
        if subject is None or predicate is not None or object is not None or graph is not ANY_GRAPH:
            raise NotImplementedError("CaptureStore answers subject-only and pg:run lookups")
        if subject in self._subjects:
            yield (subject, IRI("urn:bench:seen"), IRI("urn:bench:seen"), None)

    def select(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
               source: str = "<text>") -> list[dict[str, Term | None]]:
        raise NotImplementedError(f"CaptureStore cannot run SPARQL (asked with {bindings})")

    def ask(self, *a: Any, **k: Any) -> bool:
        raise NotImplementedError

    def construct(self, *a: Any, **k: Any) -> list[Any]:
        raise NotImplementedError

    def update(self, *a: Any, **k: Any) -> None:
        raise NotImplementedError

    def remove(self, quads: Iterable[Quad]) -> None:
        raise NotImplementedError

    def load(self, *a: Any, **k: Any) -> int:
        raise NotImplementedError

    def serialize(self, *a: Any, **k: Any) -> bytes | None:
        raise NotImplementedError

    def named_graphs(self) -> list[IRI]:
        raise NotImplementedError

    def remove_graph(self, graph: IRI) -> None:
        raise NotImplementedError

    def __len__(self) -> int:
        return self._count

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


@dataclass
class Captured:
    """Quads of one workload as the Recorder wrote them, per transaction.

    ``ingestion`` holds the ingestion transactions (plus the run header);
    ``answers[i]`` the single transaction of answer ``start + i``.
    """

    ingestion: list[list[Quad]]
    answers: list[list[Quad]]

    @cached_property
    def statements_per_answer(self) -> float:
        return sum(map(len, self.answers)) / max(1, len(self.answers))


def capture(wl: Workload, *, start: int = 0, stop: int | None = None) -> Captured:
    """Record ``wl`` through the real Recorder into a :class:`CaptureStore`; return the quads."""
    cs = CaptureStore()
    try:
        rec = new_recorder(cs, wl)
        ing = record_ingestion(rec, wl)
        n_ing = len(cs.transactions)
        for a in wl.specs(start, stop):
            record_answer(rec, wl, ing, a)
        return Captured(cs.transactions[:n_ing], cs.transactions[n_ing:])
    finally:
        cs.close()


@contextlib.contextmanager
def capturing_to(sink: Callable[[list[Quad]], None]) -> Iterator[CaptureStore]:
    """A :class:`CaptureStore` that streams each transaction to ``sink``."""
    cs = CaptureStore(sink=sink)
    try:
        yield cs
    finally:
        cs.close()


def build_store(path: str | Path, wl: Workload, *, optimize: bool = True) -> Any:
    """An on-disk :class:`~provgraph.store.EmbeddedStore` at ``path`` holding ``wl``, fast.

    The workload is recorded through the real Recorder into a :class:`CaptureStore`
    whose originals directory is the store's own (so retained originals are there for
    the resolver), streamed to an N-Quads file, bulk-loaded, and optimized (a store
    filled by bulk loading is several times slower to query until then: DESIGN.md).
    The statements are the same as :func:`record_workload` writes. About 1 minute per
    10,000 answers here, against about 1 minute per 12,000 answers for
    :func:`record_workload` plus its slower queries before ``optimize()``.
    """
    from provgraph.store import EmbeddedStore

    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    nq = root / "workload.nq.tmp"
    try:
        with open(nq, "w", encoding="utf-8", newline="\n") as out:
            cs = CaptureStore(root / "originals", sink=lambda b: out.writelines(iter_nquads_lines(b)))
            rec = new_recorder(cs, wl)
            ing = record_ingestion(rec, wl)
            for a in wl.specs():
                record_answer(rec, wl, ing, a)
        store = EmbeddedStore(root)
        store.bulk_load(nq, "nquads")
        if optimize:
            store.optimize()
        return store
    finally:
        nq.unlink(missing_ok=True)


def iter_nquads_lines(quads: Iterable[Quad]) -> Iterator[str]:
    """N-Quads lines of ``quads`` (IRIs and literals only; the workload has no blank nodes)."""
    for s, p, o, g in quads:
        yield (f"{s.n3()} {p.n3()} {o.n3()} {g.n3()} .\n" if g is not None
               else f"{s.n3()} {p.n3()} {o.n3()} .\n")


def write_nquads(out: IO[str], quads: Iterable[Quad]) -> int:
    n = 0
    for line in iter_nquads_lines(quads):
        out.write(line)
        n += 1
    return n
