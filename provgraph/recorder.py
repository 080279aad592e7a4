"""The Recorder: turns each step of a RAG pipeline into PROV-O statements.

One :class:`Recorder` is one run: a PROV bundle stored as the named graph
whose name is the run IRI. Ingestion facts (documents, snapshots, extractions,
chunks, and aids derived from chunks) go to the shared ingestion graph
:data:`provgraph.vocab.GRAPH.INGESTION`, because every run that retrieves a
chunk relies on the same ingestion; request-time facts (queries, retrievals,
context packing, generations, answers, claims, citations) go to the run graph.

Every call writes one transaction, or joins the enclosing :meth:`Recorder.batch`.
Content-defined things (snapshots, extractions, chunks, aids, agents) get
content-derived IRIs, so recording them twice adds nothing; the first
observation of a snapshot is the one kept.

Times are timezone-aware ``datetime`` values (a naive one raises
:class:`~provgraph.errors.RecordError`); when omitted, the recorder's clock
(UTC now by default) is used. Offsets are end-exclusive Unicode code point
offsets unless a parameter says otherwise.

Besides the PROV statements, two provenance shortcuts are written per claim and
kept consistent with them: ``pg:citedSnapshot`` (each snapshot a citation's
target derives from) and ``pg:supportAgent`` (each agent associated with an
activity in the claim's support: model, prompt template, retriever and the
models of the aids it used, parser, chunker, embedder, aid generator). They make
staleness and impact questions one-hop lookups (DESIGN.md, engine facts). Their
one definition, and the bounded memory of it the Recorder keeps, are in
:mod:`provgraph._support`; a claim gets the same shortcuts whether its answer
was recorded by this Recorder or read back from the store.

Reference: PROV-O §3 (https://www.w3.org/TR/prov-o/), PROV-DM §5.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib.metadata
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from . import ids
from ._support import DEFAULT_CACHE_SIZE, SupportCache
from .errors import RecordError, ResolutionError
from .model import (
    Agent, AidRecord, AnswerRecord, ChunkRecord, CitationRecord, ClaimRecord,
    ExtractionRecord, Hit, IndexedRecord, InputRecord, QueryRecord, Ref, RetrievalRecord,
    RunRecord, Segment, SnapshotRecord, iri_of,
)
from .normalize import get_policy
from .originals import sha256_hex
from .store import ProvStore
from .terms import IRI, Literal, Quad, lit
from .vocab import AGENT_ROLES, AID_KINDS, CLAIM_KINDS, CLAIM_STATUSES, GRAPH, OA, PG, PROV, RDF, RDFS, UNITS

__all__ = ["Recorder"]

SEGMENT_ORIGINS = ("original", "generated", "instruction", "query")
_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")
_IRI_SYNTAX = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|^`\\]*$")


def _utcnow() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _check_time(name: str, value: _dt.datetime) -> _dt.datetime:
    if not isinstance(value, _dt.datetime):
        raise RecordError(f"{name} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise RecordError(
            f"{name}={value.isoformat()!r} is a naive datetime; pass a timezone-aware one "
            "(for example datetime.now(timezone.utc))"
        )
    return value


def _given_iri(name: str, value: str | None) -> IRI | None:
    """A caller-supplied IRI, checked: absolute, no spaces, angle brackets, quotes or braces."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _IRI_SYNTAX.match(value):
        raise RecordError(f"{name}={value!r} is not an absolute IRI (scheme:..., with no spaces, "
                          "<, >, quotes or braces); omit it to mint one")
    return IRI(value)


def _agent_tuple(role: str, agent: Agent | tuple[str, str] | str | None) -> Agent:
    if role not in AGENT_ROLES:
        raise RecordError(f"unknown agent role {role!r}; use one of {sorted(AGENT_ROLES)}")
    if agent is None:
        raise RecordError(f"a {role} agent is required: pass (name, version)")
    if isinstance(agent, Agent):
        name, version = agent.name, agent.version
    elif isinstance(agent, str):
        name, version = agent, ""
    else:
        try:
            name, version = agent
        except (TypeError, ValueError):
            raise RecordError(f"{role} must be (name, version), got {agent!r}") from None
    if not name:
        raise RecordError(f"{role} name must not be empty")
    return Agent(role=role, name=str(name), version=str(version or ""),
                 iri=ids.content_iri("agent", role, str(name), str(version or "")))


_MISSING = object()


class _Journal:
    """Undo log of the Recorder's caches while a batch is open, so a failed batch
    forgets what it recorded without copying the caches (issue 8: copies cost O(corpus))."""

    def __init__(self) -> None:
        self.entries: list[tuple[Any, Any, Any]] | None = None

    def open(self) -> None:
        self.entries = []

    def close(self) -> None:
        self.entries = None

    def rollback(self) -> None:
        for container, key, old in reversed(self.entries or []):
            if isinstance(container, set):
                set.discard(container, key)
            elif old is _MISSING:
                dict.pop(container, key, None)
            else:
                dict.__setitem__(container, key, old)
        self.entries = None


class _JournaledDict(dict):  # type: ignore[type-arg]
    def __init__(self, journal: _Journal) -> None:
        super().__init__()
        self._journal = journal

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._journal.entries is not None:
            self._journal.entries.append((self, key, self.get(key, _MISSING)))
        super().__setitem__(key, value)


class _JournaledSet(set):  # type: ignore[type-arg]
    def __init__(self, journal: _Journal) -> None:
        super().__init__()
        self._journal = journal

    def add(self, item: Any) -> None:
        if item not in self:
            if self._journal.entries is not None:
                self._journal.entries.append((self, item, None))
            super().add(item)


class Recorder:
    """Records one run of a RAG pipeline into a :class:`~provgraph.store.ProvStore`.

    Args:
        store: where statements and retained originals go.
        label: a human-readable run name (``rdfs:label`` of the bundle).
        config: the pipeline's configuration snapshot (JSON-serialisable mapping).
        models: model identifiers in use, e.g. ``{"generator": "claude-sonnet-4@2025-05"}``.
        code_revision: the pipeline's code revision (git commit), when known.
        packages: distribution names whose installed versions are recorded;
            ``None`` records provgraph's own dependencies.
        run_iri: the run's IRI (default: a fresh ``urn:uuid:`` UUIDv7). Naming a run
            already in the store continues it: its identity is not written again.
        started_at: aware start time (default: the clock's now).
        clock: a function returning an aware ``datetime``, used for every omitted time.
        cache_size: request-time support entries kept in memory (default 8,192; at least 1).

    Memory. To write the support shortcuts without querying the store, the
    Recorder remembers the support (agents and snapshots) of what it records.
    Ingestion entries (snapshots, extracted texts, chunks, aids made from chunks,
    indexed representations) are kept for the Recorder's life: one per corpus
    item, about 200 bytes each. Request-time entries (queries, retrievals,
    per-request aids, prompts, answers, claims) are only needed while their
    answer is being recorded: they are a least-recently-used cache of
    ``cache_size`` entries (8,192 by default: about 8 per answer, so the last
    thousand or so answers, about 2 MB), so a long-lived Recorder recording
    every request of an application into one run stays bounded. An evicted entry,
    or one recorded by another session, is read back from the store, which gives
    the same shortcuts (:mod:`provgraph._support` holds the one definition); only
    that lookup is slower. Entries of an open :meth:`batch` are never evicted
    before it is stored.

    Raises:
        RecordError: a naive datetime or a non-JSON ``config``.
        StoreError: the store cannot be written.

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> store = EmbeddedStore()
        >>> rec = Recorder(store, label="demo")
        >>> snap = rec.snapshot(b"Water boils at 100 C.", uri="file:///facts.txt",
        ...                     media_type="text/plain")
        >>> ext = rec.extraction(snap, parser=("plain", "1"), text="Water boils at 100 C.")
        >>> [c.text for c in rec.chunking(ext, chunker=("fixed", "1"), ranges=[(0, 21)])]
        ['Water boils at 100 C.']
    """

    def __init__(self, store: ProvStore, *, label: str = "", config: Mapping[str, Any] | None = None,
                 models: Mapping[str, str] | None = None, code_revision: str | None = None,
                 packages: Sequence[str] | None = None, run_iri: str | None = None,
                 started_at: _dt.datetime | None = None,
                 clock: Callable[[], _dt.datetime] = _utcnow,
                 cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        if not isinstance(cache_size, int) or cache_size < 1:
            raise RecordError(f"cache_size={cache_size!r}: give a whole number of entries, at least 1")
        self.store = store
        self._clock = clock
        self._pending: list[Quad] | None = None
        self._journal = _Journal()
        self._written: set[IRI] = _JournaledSet(self._journal)
        self._support = SupportCache(store, cache_size)
        self._texts: dict[IRI, str] = _JournaledDict(self._journal)
        iri = _given_iri("run_iri", run_iri) or ids.new_iri()
        started = self._time("started_at", started_at)
        self.run = RunRecord(iri=iri, label=label, started_at=started)
        g = iri
        if run_iri and self.store.has_subject(iri):
            return  # continuing a recorded run: its identity is already stored
        q: list[Quad] = [
            (iri, RDF.type, PROV.Bundle, g), (iri, RDF.type, PROV.Entity, g),
            (iri, RDF.type, PG.Run, g), (iri, PROV.generatedAtTime, lit(started), g),
            (iri, PG.packageVersions, lit(_package_versions(packages)), g),
        ]
        if label:
            q.append((iri, RDFS.label, lit(label), g))
        if config is not None:
            q.append((iri, PG.configuration, self._json("config", config), g))
        if models:
            q.append((iri, PG.modelIds, self._json("models", dict(models)), g))
        if code_revision:
            q.append((iri, PG.codeRevision, lit(code_revision), g))
        self._emit(q)

    # ------------------------------------------------------------------ plumbing
    @property
    def iri(self) -> IRI:
        """The run IRI, which is also the name of the run's graph (bundle)."""
        return self.run.iri

    @contextlib.contextmanager
    def batch(self) -> Iterator["Recorder"]:
        """Group several steps into one transaction.

        Statements are held in memory and stored when the block exits normally;
        if it raises, nothing from the block is stored (retained original bytes
        already written stay, unreferenced: they are content-addressed).
        """
        if self._pending is not None:
            yield self
            return
        self._pending = []
        # An undo log instead of copies of the caches: copying cost O(corpus) per batch (issue 8).
        self._journal.open()
        self._support.begin()
        try:
            yield self
            pending, self._pending = self._pending, None
            if pending:
                self.store.add(pending)
            self._journal.close()
            self._support.commit()
        except BaseException:
            self._pending = None
            self._journal.rollback()
            self._support.rollback()
            raise

    def _emit(self, quads: list[Quad]) -> None:
        if self._pending is not None:
            self._pending.extend(quads)
        else:
            self.store.add(quads)

    def _time(self, name: str, value: _dt.datetime | None) -> _dt.datetime:
        return _check_time(name, value) if value is not None else _check_time("clock()", self._clock())

    @staticmethod
    def _json(name: str, value: Any) -> Literal:
        try:
            return lit(dict(value) if isinstance(value, Mapping) else value)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"{name} must be JSON-serialisable: {exc}") from None

    def _exists(self, iri: IRI) -> bool:
        if iri in self._written:
            return True
        if self.store.has_subject(iri):
            self._mark_written(iri)
            return True
        return False

    def _mark_written(self, iri: IRI) -> None:
        self._written.add(iri)

    def _agent_quads(self, agent: Agent, g: IRI) -> list[Quad]:
        a = agent.iri
        q: list[Quad] = [
            (a, RDF.type, PROV.Agent, g), (a, RDF.type, PROV.SoftwareAgent, g),
            (a, RDF.type, AGENT_ROLES[agent.role], g), (a, PG.agentName, lit(agent.name), g),
            (a, PG.agentVersion, lit(agent.version), g),
        ]
        label = f"{agent.name} {agent.version}".strip()
        q.append((a, RDFS.label, lit(label), g))
        return q

    def _activity_quads(self, act: IRI, cls: IRI, g: IRI, started: _dt.datetime | None,
                        ended: _dt.datetime | None, agents: Iterable[Agent] = ()) -> list[Quad]:
        q: list[Quad] = [(act, RDF.type, PROV.Activity, g), (act, RDF.type, cls, g),
                         (act, PG.run, self.iri, g)]
        if started is not None:
            q.append((act, PROV.startedAtTime, lit(started), g))
        if ended is not None:
            q.append((act, PROV.endedAtTime, lit(ended), g))
        for agent in agents:
            q.append((act, PROV.wasAssociatedWith, agent.iri, g))
            q.extend(self._agent_quads(agent, g))
        return q

    def _segments(self, owner: IRI, text: str, segments: Sequence[Segment], g: IRI,
                  what: str) -> list[Quad]:
        q: list[Quad] = []
        for i, seg in enumerate(segments):
            if not isinstance(seg, Segment):
                raise RecordError(f"{what} segment {i} must be a Segment, got {seg!r}")
            if not 0 <= seg.start <= seg.end <= len(text):
                raise RecordError(
                    f"{what} segment {i} [{seg.start}, {seg.end}) is outside the text "
                    f"(0..{len(text)} code points)")
            if seg.origin not in SEGMENT_ORIGINS:
                raise RecordError(f"{what} segment {i} origin {seg.origin!r}; use one of "
                                  f"{SEGMENT_ORIGINS}")
            if seg.origin in ("original", "generated") and seg.source is None:
                raise RecordError(f"{what} segment {i} is {seg.origin} text but names no source")
            node = IRI(f"{owner}#segment-{i}")
            q += [(owner, PG.segment, node, g), (node, RDF.type, PG.Segment, g),
                  (node, PG.start, lit(seg.start), g), (node, PG.end, lit(seg.end), g),
                  (node, PG.origin, lit(seg.origin), g)]
            if seg.source is not None:
                q.append((node, PG.segmentSource, iri_of(seg.source), g))
        return q

    def _require(self, ref: Ref, what: str) -> IRI:
        """The IRI of ``ref``, which must name something already recorded."""
        iri = iri_of(ref)
        if not isinstance(ref, str) or iri in self._support or iri in self._written:
            return iri
        if _IRI_SYNTAX.match(iri) and self.store.has_subject(iri):
            return iri
        raise RecordError(f"{what} <{iri}> is not recorded; record it first or pass its record")

    # ------------------------------------------------------------------ ingestion
    def snapshot(self, data: bytes, *, uri: str, media_type: str,
                 observed_at: _dt.datetime | None = None, revision_of: Ref | None = None,
                 document: str | None = None) -> SnapshotRecord:
        """Retain ``data`` and record it as a ``pg:SourceSnapshot`` of the document at ``uri``.

        Args:
            data: the exact source bytes as fetched (not decoded, not normalised).
            uri: where the bytes came from (the document's identity by default).
            media_type: IANA media type, e.g. ``text/markdown; charset=utf-8``.
            observed_at: when the bytes were fetched (aware; default now).
            revision_of: the previous snapshot of the same document
                (``prov:wasRevisionOf``, binary and qualified).
            document: IRI of the version-independent document; default is minted from ``uri``.

        Returns:
            :class:`SnapshotRecord`; its IRI is the RFC 6920 ``ni:`` name of the bytes.
            Recording the same bytes again returns the same IRI and adds nothing.

        Raises:
            RecordError: ``data`` is not bytes, ``uri`` or ``media_type`` is empty,
                ``observed_at`` is naive.
        """
        if not isinstance(data, (bytes, bytearray)):
            raise RecordError(f"snapshot data must be bytes, got {type(data).__name__}; "
                              "encode text first (for example text.encode('utf-8'))")
        if not uri:
            raise RecordError("snapshot uri must not be empty")
        if not media_type:
            raise RecordError("snapshot media_type must not be empty")
        observed = self._time("observed_at", observed_at)
        digest = self.store.originals.put(bytes(data))
        snap = ids.snapshot_iri(digest)
        doc = _given_iri("document", document) or ids.content_iri("document", uri)
        prev = iri_of(revision_of) if revision_of is not None else None
        if prev == snap:
            raise RecordError(f"snapshot {snap} cannot be a revision of itself (same bytes)")
        rec = SnapshotRecord(iri=snap, document=doc, sha256=digest, byte_size=len(data),
                             media_type=media_type, source_uri=uri, observed_at=observed,
                             revision_of=prev)
        g = GRAPH.INGESTION
        q: list[Quad] = [(doc, RDF.type, PROV.Entity, g), (doc, RDF.type, PG.Document, g),
                         (doc, PG.sourceUri, lit(uri), g), (snap, PROV.specializationOf, doc, g)]
        if not self._exists(snap):
            obs = ids.content_iri("observation", digest)
            q += [
                (snap, RDF.type, PROV.Entity, g), (snap, RDF.type, PG.SourceSnapshot, g),
                (snap, PG.sha256, lit(digest), g), (snap, PG.byteSize, lit(len(data)), g),
                (snap, PG.mediaType, lit(media_type), g), (snap, PG.sourceUri, lit(uri), g),
                (snap, PG.observedAt, lit(observed), g),
                (snap, PROV.generatedAtTime, lit(observed), g),
                (snap, PROV.wasGeneratedBy, obs, g),
            ]
            q += self._activity_quads(obs, PG.Observation, g, None, observed)
            if prev is not None:
                qual = IRI(f"{snap}#revision")
                q += [(snap, PROV.wasRevisionOf, prev, g),
                      (snap, PROV.qualifiedRevision, qual, g),
                      (qual, RDF.type, PROV.Revision, g), (qual, PROV.entity, prev, g)]
        self._emit(q)
        self._mark_written(snap)
        self._support.remember(snap, self._support.derive(snapshots=[snap]), ingestion=True)
        return rec

    def deletion(self, snapshot: Ref, *, at: _dt.datetime | None = None) -> IRI:
        """Record that the document of ``snapshot`` (its newest snapshot) was deleted.

        Writes a ``pg:Deletion`` activity that invalidates the snapshot and its
        document (``prov:wasInvalidatedBy``, ``prov:invalidatedAtTime``).

        Returns:
            The deletion activity's IRI.

        Raises:
            RecordError: ``at`` is naive.
            NotFound: ``snapshot`` is not a recorded snapshot.
        """
        snap = iri_of(snapshot)
        when = self._time("at", at)
        doc = self._document_of(snap)
        act = ids.content_iri("deletion", snap)
        if self._exists(act):
            return act
        g = GRAPH.INGESTION
        q = self._activity_quads(act, PG.Deletion, g, None, when)
        q += [(snap, PROV.wasInvalidatedBy, act, g), (doc, PROV.wasInvalidatedBy, act, g),
              (snap, PROV.invalidatedAtTime, lit(when), g), (doc, PROV.invalidatedAtTime, lit(when), g)]
        self._emit(q)
        self._written.add(act)
        return act

    def _document_of(self, snap: IRI) -> IRI:
        from .errors import NotFound

        for quad in self.store.quads(snap, PROV.specializationOf, None, GRAPH.INGESTION):
            return quad[2]  # type: ignore[return-value]
        for quad in self._pending or ():
            if quad[0] == snap and quad[1] == PROV.specializationOf:
                return quad[2]  # type: ignore[return-value]
        raise NotFound(snap, "snapshot")

    def extraction(self, snapshot: SnapshotRecord | str, *, parser: Agent | tuple[str, str],
                   text: str, offset_map: Sequence[Sequence[int]] | None = None,
                   config: Mapping[str, Any] | None = None, started_at: _dt.datetime | None = None,
                   ended_at: _dt.datetime | None = None) -> ExtractionRecord:
        """Record a parser turning a snapshot into text (``pg:Extraction``).

        Args:
            snapshot: the snapshot parsed (record or IRI).
            parser: ``(name, version)`` of the parser, e.g. ``("docutils", "0.21.2")``.
            text: the extracted text; retained in the originals store.
            offset_map: ``(text_start, text_end, byte_start, byte_end)`` segments
                mapping code points of ``text`` to bytes of the snapshot, sorted and
                non-overlapping. ``None`` means the text is the snapshot decoded as
                UTF-8 (an identity map, checked).
            config: parser configuration (JSON); part of the extraction's identity.

        Raises:
            RecordError: a malformed or out-of-range offset map, or ``offset_map=None``
                when the text is not the UTF-8 decoding of the snapshot.
        """
        snap = iri_of(snapshot)
        agent = _agent_tuple("parser", parser)
        cfg = dict(config or {})
        if not isinstance(text, str):
            raise RecordError("extraction text must be str")
        size = self._snapshot_size(snapshot)
        segs = self._check_offset_map(snap, text, offset_map, size)
        iri = ids.content_iri("extraction", snap, agent.name, agent.version, cfg)
        text_iri = ids.content_iri("text", iri)
        tbytes = text.encode("utf-8")
        tdigest = self.store.originals.put(tbytes)
        rec = ExtractionRecord(iri=iri, text_iri=text_iri, snapshot=snap, parser=agent, text=text,
                               text_sha256=tdigest, offset_map=segs)
        if self._exists(iri):
            self._remember_text(text_iri, text, agent, snap)
            return rec
        g = GRAPH.INGESTION
        q = self._activity_quads(iri, PG.Extraction, g, self._time("started_at", started_at) if started_at else None,
                                 self._time("ended_at", ended_at), [agent])
        q += [(iri, PROV.used, snap, g), (iri, PG.configuration, lit(cfg), g),
              (iri, PG.extractedText, text_iri, g),
              (text_iri, RDF.type, PROV.Entity, g), (text_iri, RDF.type, PG.ExtractedText, g),
              (text_iri, PROV.wasGeneratedBy, iri, g), (text_iri, PROV.wasDerivedFrom, snap, g),
              (text_iri, PG.sha256, lit(tdigest), g), (text_iri, PG.byteSize, lit(len(tbytes)), g),
              (text_iri, PG.offsetUnit, lit("codepoint"), g),
              (text_iri, PG.offsetMap, lit([list(s) for s in segs]), g)]
        self._emit(q)
        self._mark_written(iri)
        self._remember_text(text_iri, text, agent, snap)
        return rec

    def _remember_text(self, text_iri: IRI, text: str, parser: Agent, snap: IRI) -> None:
        self._texts[text_iri] = text
        self._support.remember(text_iri, self._support.derive(agents=[parser.iri], evidence=[snap]),
                               ingestion=True)

    def _snapshot_size(self, snapshot: SnapshotRecord | str) -> int:
        if isinstance(snapshot, SnapshotRecord):
            return snapshot.byte_size
        snap = iri_of(snapshot)
        for quad in self.store.quads(snap, PG.byteSize, None, GRAPH.INGESTION):
            return int(quad[2].value)  # type: ignore[union-attr]
        from .errors import NotFound

        raise NotFound(snap, "snapshot")

    def _check_offset_map(self, snap: IRI, text: str, offset_map: Sequence[Sequence[int]] | None,
                          size: int) -> tuple[tuple[int, int, int, int], ...]:
        if offset_map is None:
            digest = ids.digest_of_snapshot_iri(snap)
            if digest is None:
                raise RecordError("offset_map is required when the snapshot is not an ni: IRI")
            raw = self.store.originals.get(digest)
            try:
                decoded = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RecordError(f"snapshot {snap} is not UTF-8; pass an offset_map") from None
            if decoded != text:
                raise RecordError("offset_map=None means the text is the snapshot decoded as "
                                  "UTF-8, but it differs; pass the parser's offset map")
            return ((0, len(text), 0, len(raw)),) if text else ()
        out: list[tuple[int, int, int, int]] = []
        last_t = last_b = 0
        for i, seg in enumerate(offset_map):
            try:
                ts, te, bs, be = (int(x) for x in seg)
            except (TypeError, ValueError):
                raise RecordError(f"offset_map[{i}] must be (text_start, text_end, byte_start, "
                                  f"byte_end), got {seg!r}") from None
            if not (last_t <= ts <= te <= len(text)):
                raise RecordError(f"offset_map[{i}] text range [{ts}, {te}) is unsorted or past "
                                  f"the text ({len(text)} code points)")
            if not (0 <= bs <= be <= size):
                raise RecordError(f"offset_map[{i}] byte range [{bs}, {be}) is outside the "
                                  f"snapshot ({size} bytes)")
            if bs < last_b:
                raise RecordError(f"offset_map[{i}] byte range starts before the previous one ends")
            out.append((ts, te, bs, be))
            last_t, last_b = te, be
        return tuple(out)

    def chunking(self, extraction: ExtractionRecord | str, *, chunker: Agent | tuple[str, str],
                 ranges: Sequence[tuple[int, int]], parameters: Mapping[str, Any] | None = None,
                 text: str | None = None, ended_at: _dt.datetime | None = None) -> list[ChunkRecord]:
        """Record a chunker splitting an extraction's text into chunks (``pg:Chunking``).

        Args:
            extraction: the extraction (record, or IRI when ``text`` is given).
            chunker: ``(name, version)``.
            ranges: ``(start, end)`` code point ranges of the extracted text, end-exclusive.
            parameters: chunker parameters (JSON), e.g. ``{"max_chars": 800, "overlap": 100}``.
            text: the extracted text, needed only when ``extraction`` is an IRI.

        Returns:
            One :class:`ChunkRecord` per range, in order. Chunk IRIs derive from
            the extraction, chunker and range, so re-chunking adds nothing.

        Raises:
            RecordError: a range outside the text, empty, or reversed.
        """
        agent = _agent_tuple("chunker", chunker)
        params = dict(parameters or {})
        if isinstance(extraction, ExtractionRecord):
            ext_iri, text_iri, full, snap = (extraction.iri, extraction.text_iri, extraction.text,
                                             extraction.snapshot)
        else:
            ext_iri = iri_of(extraction)
            text_iri = ids.content_iri("text", ext_iri)
            full = text if text is not None else self._texts.get(text_iri)
            if full is None:
                raise RecordError("chunking an extraction by IRI needs its text: pass text=")
            snaps = self._support.of(text_iri).snapshots
            snap = next(iter(snaps)) if snaps else IRI("")
        g = GRAPH.INGESTION
        act = ids.content_iri("chunking", text_iri, agent.name, agent.version, params)
        q: list[Quad] = []
        if not self._exists(act):
            q += self._activity_quads(act, PG.Chunking, g, None, self._time("ended_at", ended_at), [agent])
            q += [(act, PROV.used, text_iri, g), (act, PG.configuration, lit(params), g)]
        out = []
        support = self._support.derive(agents=[agent.iri], evidence=[text_iri])
        for i, rng in enumerate(ranges):
            try:
                start, end = (int(x) for x in rng)
            except (TypeError, ValueError):
                raise RecordError(f"chunk range {i} must be (start, end), got {rng!r}") from None
            if not 0 <= start < end <= len(full):
                raise RecordError(f"chunk range {i} [{start}, {end}) is empty, reversed or outside "
                                  f"the extracted text (0..{len(full)} code points)")
            c = ids.content_iri("chunk", text_iri, agent.name, agent.version, start, end)
            chunk_text = full[start:end]
            out.append(ChunkRecord(iri=c, extraction=ext_iri, text_iri=text_iri, snapshot=snap,
                                   start=start, end=end, text=chunk_text))
            if self._exists(c):
                continue
            sel = IRI(f"{c}#position")
            q += [(c, RDF.type, PROV.Entity, g), (c, RDF.type, PG.Chunk, g),
                  (c, PROV.wasGeneratedBy, act, g), (c, PROV.wasDerivedFrom, text_iri, g),
                  (c, PG.text, lit(chunk_text), g), (c, PG.start, lit(start), g),
                  (c, PG.end, lit(end), g), (c, PG.offsetUnit, lit("codepoint"), g),
                  (c, OA.hasSelector, sel, g), (sel, RDF.type, OA.TextPositionSelector, g),
                  (sel, OA.start, lit(start), g), (sel, OA.end, lit(end), g)]
            self._mark_written(c)
        self._emit(q)
        self._mark_written(act)
        for chunk in out:
            self._support.remember(chunk.iri, support, ingestion=True)
        return out

    def aid(self, kind: str, *, text: str, model: Agent | tuple[str, str],
            derived_from: Sequence[Ref], at: _dt.datetime | None = None) -> AidRecord:
        """Record a generated retrieval aid: never original evidence.

        Args:
            kind: ``hypothetical_document`` (HyDE), ``contextual_prefix`` or ``generated_question``.
            text: the generated text.
            model: ``(name, version)`` of the generator (a language model, or a
                deterministic local generator recorded as such).
            derived_from: what the aid was generated from: chunks for a contextual
                prefix or generated question, the query for a hypothetical document.

        Aids derived only from ingestion entities go to the ingestion graph;
        aids derived from a query go to the run graph.

        Raises:
            RecordError: unknown ``kind`` or empty ``derived_from``.
        """
        if kind not in AID_KINDS:
            raise RecordError(f"unknown aid kind {kind!r}; use one of {sorted(AID_KINDS)}")
        if not derived_from:
            raise RecordError(f"{kind}: derived_from must name at least one chunk or query")
        agent = _agent_tuple("model", model)
        sources = tuple(iri_of(r) for r in derived_from)
        per_request = any(isinstance(r, QueryRecord) for r in derived_from) or any(
            not s.startswith("urn:provgraph:") and not s.startswith("ni:") for s in sources)
        g = self.iri if per_request else GRAPH.INGESTION
        iri = ids.content_iri("aid", kind, text, agent.name, agent.version, sorted(sources))
        rec = AidRecord(iri=iri, kind=kind, text=text, model=agent, derived_from=sources)
        support = self._support.derive(agents=[agent.iri], evidence=sources, generated=True)
        # a per-request aid is remembered like the other request-time entries (bounded),
        # not in the ingestion-lifetime set of written IRIs
        if self._exists(iri) if not per_request else (iri in self._support
                                                       or self.store.has_subject(iri)):
            self._support.remember(iri, support, ingestion=not per_request)
            return rec
        act = ids.content_iri("aid-generation", iri)
        q = self._activity_quads(act, PG.AidGeneration, g, None, self._time("at", at), [agent])
        q += [(iri, RDF.type, PROV.Entity, g), (iri, RDF.type, PG.GeneratedAid, g),
              (iri, RDF.type, AID_KINDS[kind], g), (iri, PG.text, lit(text), g),
              (iri, PROV.wasGeneratedBy, act, g)]
        for s in sources:
            q += [(act, PROV.used, s, g), (iri, PROV.wasDerivedFrom, s, g)]
        self._emit(q)
        if not per_request:
            self._mark_written(iri)
        self._support.remember(iri, support, ingestion=not per_request)
        return rec

    def indexed(self, chunk: Ref, *, text: str, segments: Sequence[Segment],
                embedder: Agent | tuple[str, str] | None = None,
                at: _dt.datetime | None = None) -> IndexedRecord:
        """Record the exact text that was embedded or indexed for ``chunk``.

        Args:
            chunk: the chunk this representation stands for in the index.
            text: the indexed text, e.g. a contextual prefix followed by the chunk.
            segments: which code point ranges of ``text`` are original (the chunk)
                and which generated (an aid), each naming its source.
            embedder: ``(name, version)`` of the embedding model, when there is one.

        Raises:
            RecordError: a segment outside ``text`` or without a source.
        """
        c = iri_of(chunk)
        iri = ids.content_iri("indexed", c, text)
        g = GRAPH.INGESTION
        q = self._segments(iri, text, segments, g, "indexed")
        rec = IndexedRecord(iri=iri, text=text, chunk=c, segments=tuple(segments))
        if self._exists(iri):
            # recorded before (perhaps with another embedder): the store's statements stand,
            # and so does the support remembered or read back from them
            return rec
        q += [(iri, RDF.type, PROV.Entity, g), (iri, RDF.type, PG.IndexedRepresentation, g),
              (iri, PG.text, lit(text), g), (iri, PROV.wasDerivedFrom, c, g),
              (iri, PROV.specializationOf, c, g)]
        evidence = [c]
        for s in segments:
            if s.source is not None and iri_of(s.source) not in evidence:
                evidence.append(iri_of(s.source))
                q.append((iri, PROV.wasDerivedFrom, iri_of(s.source), g))
        agents = []
        if embedder is not None:
            agent = _agent_tuple("embedder", embedder)
            agents.append(agent.iri)
            act = ids.content_iri("indexing", iri, agent.name, agent.version)
            q += self._activity_quads(act, PG.Indexing, g, None, self._time("at", at), [agent])
            q += [(act, PROV.used, c, g), (iri, PROV.wasGeneratedBy, act, g)]
        support = self._support.derive(agents=agents, evidence=evidence)
        self._emit(q)
        self._mark_written(iri)
        self._support.remember(iri, support, ingestion=True)
        return rec

    # ------------------------------------------------------------------ request time
    def query(self, text: str, *, at: _dt.datetime | None = None, iri: str | None = None) -> QueryRecord:
        """Record a user query (``pg:Query``) in the run graph.

        Raises:
            RecordError: ``text`` is empty or ``at`` is naive.
        """
        if not text:
            raise RecordError("query text must not be empty")
        q_iri = _given_iri("iri", iri) or ids.new_iri()
        g = self.iri
        self._emit([(q_iri, RDF.type, PROV.Entity, g), (q_iri, RDF.type, PG.Query, g),
                    (q_iri, PG.text, lit(text), g),
                    (q_iri, PROV.generatedAtTime, lit(self._time("at", at)), g)])
        self._support.remember(q_iri, self._support.derive(), ingestion=False)
        return QueryRecord(iri=q_iri, text=text)

    def retrieval(self, query: Ref, *, retriever: Agent | tuple[str, str],
                  hits: Sequence[Hit | tuple[Ref, float | None]], index_version: str = "",
                  aids: Sequence[Ref] = (), started_at: _dt.datetime | None = None,
                  ended_at: _dt.datetime | None = None, iri: str | None = None) -> RetrievalRecord:
        """Record a retrieval: the query (and aids) used, and the ranked hits.

        Args:
            query: the query record or IRI.
            retriever: ``(name, version)``, e.g. ``("rank-bm25", "0.2.2")``.
            hits: :class:`Hit` values, or ``(chunk, score)`` pairs ranked in order (rank 1 first).
            index_version: the version or digest of the index searched.
            aids: generated aids used to search (a HyDE document, say).

        Each hit is a qualified ``prov:Usage`` with ``pg:rank`` and ``pg:score``.

        Raises:
            RecordError: duplicate or non-positive ranks.
        """
        agent = _agent_tuple("retriever", retriever)
        act = _given_iri("iri", iri) or ids.new_iri()
        g = self.iri
        start = self._time("started_at", started_at)
        end = self._time("ended_at", ended_at) if ended_at else start
        q_iri = self._require(query, "query")
        q = self._activity_quads(act, PG.Retrieval, g, start, end, [agent])
        q.append((act, PROV.used, q_iri, g))
        if index_version:
            q.append((act, PG.indexVersion, lit(index_version), g))
        aid_iris = []
        for a in aids:
            a_iri = iri_of(a)
            q += [(act, PROV.used, a_iri, g), (act, PG.aidUsed, a_iri, g)]
            aid_iris.append(a_iri)
        norm: list[tuple[IRI, int, float | None]] = []
        for i, h in enumerate(hits):
            if isinstance(h, Hit):
                target, rank, score = iri_of(h.target), h.rank, h.score
            else:
                target, rank, score = iri_of(h[0]), i + 1, h[1]
            if rank < 1 or any(rank == r for _, r, _ in norm):
                raise RecordError(f"hit {i}: rank {rank} is not positive or is repeated")
            norm.append((target, rank, score))
            u = IRI(f"{act}#hit-{rank}")
            q += [(act, PROV.used, target, g), (act, PROV.qualifiedUsage, u, g),
                  (u, RDF.type, PROV.Usage, g), (u, PROV.entity, target, g),
                  (u, PG.rank, lit(int(rank)), g)]
            if score is not None:
                q.append((u, PG.score, lit(float(score)), g))
        support = self._support.derive(agents=[agent.iri], inputs=aid_iris)
        self._emit(q)
        self._support.remember(act, support, ingestion=False)
        return RetrievalRecord(iri=act, query=q_iri, hits=tuple(norm), retriever=agent)

    def context_packing(self, *, text: str, segments: Sequence[Segment],
                        retrieval: Ref | None = None, template: Agent | tuple[str, str] | None = None,
                        omitted: Sequence[Ref] = (), token_budget: int | None = None,
                        at: _dt.datetime | None = None, iri: str | None = None) -> InputRecord:
        """Record context packing: the exact prompt text the generator will see.

        Args:
            text: the full generator input (prompt), exactly as sent.
            segments: code point ranges of ``text`` marked ``original``, ``generated``,
                ``instruction`` or ``query``, each linked to its chunk or aid.
            retrieval: the retrieval whose hits were packed (``prov:wasInformedBy``).
            template: ``(name, version)`` of the prompt template.
            omitted: chunks left out for the budget (``pg:omitted``).
            token_budget: the budget in tokens, if one applied.

        Raises:
            RecordError: a segment outside ``text``, an unknown origin, or original or
                generated text without a source.
        """
        gi = _given_iri("iri", iri) or ids.new_iri()
        act = ids.content_iri("packing", gi)
        g = self.iri
        when = self._time("at", at)
        tmpl = [_agent_tuple("prompt_template", template)] if template is not None else []
        q = self._activity_quads(act, PG.ContextPacking, g, when, when, tmpl)
        q += self._segments(gi, text, segments, g, "context_packing")
        q += [(gi, RDF.type, PROV.Entity, g), (gi, RDF.type, PG.GeneratorInput, g),
              (gi, PG.text, lit(text), g), (gi, PROV.wasGeneratedBy, act, g)]
        sources = []
        for s in segments:
            if s.source is not None and iri_of(s.source) not in sources:
                sources.append(iri_of(s.source))
        for src in sources:
            q += [(act, PROV.used, src, g), (gi, PROV.wasDerivedFrom, src, g)]
        informed = []
        if retrieval is not None:
            r = iri_of(retrieval)
            q.append((act, PROV.wasInformedBy, r, g))
            informed.append(r)
        for o in omitted:
            q.append((act, PG.omitted, iri_of(o), g))
        if token_budget is not None:
            q.append((act, PG.tokenBudget, lit(int(token_budget)), g))
        support = self._support.derive(agents=[a.iri for a in tmpl], evidence=sources,
                                       inputs=informed)
        self._emit(q)
        self._support.remember(gi, support, ingestion=False)
        return InputRecord(iri=gi, packing=act, text=text, segments=tuple(segments))

    def generation(self, generator_input: Ref, *, model: Agent | tuple[str, str], text: str,
                   settings: Mapping[str, Any] | None = None, started_at: _dt.datetime | None = None,
                   ended_at: _dt.datetime | None = None, iri: str | None = None) -> AnswerRecord:
        """Record a generation: the model, its settings, its input and the answer text.

        Args:
            generator_input: the :class:`InputRecord` (or IRI) the model was given.
            model: ``(model id, version)``.
            text: the answer exactly as generated.
            settings: decoding settings (temperature, max tokens, ...), JSON.
            iri: IRI for the answer (default: fresh UUIDv7).

        Raises:
            RecordError: naive times or non-JSON settings.
        """
        agent = _agent_tuple("model", model)
        ans = _given_iri("iri", iri) or ids.new_iri()
        act = ids.content_iri("generation", ans)
        gi = self._require(generator_input, "generator input")
        g = self.iri
        start = self._time("started_at", started_at)
        end = self._time("ended_at", ended_at) if ended_at else start
        q = self._activity_quads(act, PG.Generation, g, start, end, [agent])
        q += [(act, PROV.used, gi, g), (act, PG.settings, self._json("settings", settings or {}), g),
              (ans, RDF.type, PROV.Entity, g), (ans, RDF.type, PG.Answer, g),
              (ans, PG.text, lit(text), g), (ans, PROV.wasGeneratedBy, act, g),
              (ans, PROV.generatedAtTime, lit(end), g)]
        support = self._support.derive(agents=[agent.iri], inputs=[gi])
        self._emit(q)
        self._support.remember(ans, support, ingestion=False)
        return AnswerRecord(iri=ans, generation=act, text=text, model=agent)

    def claim(self, answer: AnswerRecord | str, *, start: int, end: int, kind: str,
              status: str = "supported", text: str | None = None,
              derived_from: Sequence[Ref] = (), warrant: str | None = None,
              iri: str | None = None) -> ClaimRecord:
        """Record a claim: a span of the answer, with its kind and status.

        Args:
            answer: the answer record, or its IRI together with ``text``.
            start, end: end-exclusive code point offsets into the answer text.
            kind: ``quotation``, ``paraphrase``, ``derivation`` or ``abstention``.
            status: ``supported``, ``partially_supported``, ``unsupported`` or ``uncertain``.
            text: the claim text; required when ``answer`` is an IRI, checked otherwise.
            derived_from: operands of a derivation (claims, chunks), written as
                ``prov:wasDerivedFrom`` with a qualified ``prov:Derivation`` carrying ``warrant``.
            warrant: the formula or inference rule, e.g. ``"3.12 - 2.2 = 0.92"``.

        Raises:
            RecordError: unknown kind or status, a span outside the answer, a
                derivation without operands or warrant.
        """
        if kind not in CLAIM_KINDS:
            raise RecordError(f"unknown claim kind {kind!r}; use one of {CLAIM_KINDS}")
        if status not in CLAIM_STATUSES:
            raise RecordError(f"unknown claim status {status!r}; use one of {CLAIM_STATUSES}")
        if isinstance(answer, AnswerRecord):
            if not 0 <= start <= end <= len(answer.text):
                raise RecordError(f"claim span [{start}, {end}) is outside the answer "
                                  f"(0..{len(answer.text)} code points)")
            span = answer.text[start:end]
            if text is not None and text != span:
                raise RecordError(f"claim text {text!r} differs from the answer span {span!r}")
            text = span
            ans, gen = answer.iri, answer.generation
        else:
            if text is None:
                raise RecordError("claim text is required when the answer is given by IRI")
            if not 0 <= start <= end:
                raise RecordError(f"claim span [{start}, {end}) is reversed or negative")
            ans, gen = self._require(answer, "answer"), None
        if kind == "derivation" and (not derived_from or not warrant):
            raise RecordError("a derivation claim needs derived_from (its operands) and a warrant")
        c = _given_iri("iri", iri) or ids.new_iri()
        g = self.iri
        q: list[Quad] = [(c, RDF.type, PROV.Entity, g), (c, RDF.type, PG.Claim, g),
                         (c, PG.answer, ans, g), (c, PG.start, lit(start), g), (c, PG.end, lit(end), g),
                         (c, PG.text, lit(text), g), (c, PG.claimKind, lit(kind), g),
                         (c, PG.claimStatus, lit(status), g), (c, PG.run, self.iri, g)]
        if gen is not None:
            q.append((c, PROV.wasGeneratedBy, gen, g))
        operands = []
        for i, op in enumerate(derived_from):
            o = iri_of(op)
            node = IRI(f"{c}#derivation-{i}")
            q += [(c, PROV.wasDerivedFrom, o, g), (c, PROV.qualifiedDerivation, node, g),
                  (node, RDF.type, PROV.Derivation, g), (node, PROV.entity, o, g)]
            if warrant:
                q.append((node, PG.warrant, lit(warrant), g))
            operands.append(o)
        support = self._support.derive(evidence=operands, inputs=[ans])
        q += [(c, PG.supportAgent, a, g) for a in sorted(support.agents)]
        q += [(c, PG.citedSnapshot, s, g) for s in sorted(support.snapshots)]
        self._emit(q)
        self._support.remember(c, support, ingestion=False)
        return ClaimRecord(iri=c, answer=ans, start=start, end=end, text=text, kind=kind,
                           status=status)

    def citation(self, claim: Ref, *, target: Ref, start: int | None = None,
                 end: int | None = None, unit: str | None = None, end_inclusive: bool = False,
                 quote: str | None = None, prefix: str | None = None, suffix: str | None = None,
                 pinned_sha256: str | None = None, policy: str | None = None,
                 iri: str | None = None) -> CitationRecord:
        """Record what a claim pointed at, as the answer gave it (not yet verified).

        Args:
            claim: the claim record or IRI.
            target: what was cited: a snapshot, extracted text, chunk, aid or
                generator input (record or IRI), or a raw identifier the answer
                used (``"doc-3"``) that does not name a recorded resource.
            start, end: the cited range, in ``unit``; both or neither.
            unit: ``utf8_byte``, ``codepoint``, ``utf16_unit``, ``page`` or ``block``.
            end_inclusive: ``True`` when ``end`` is the last unit of the range
                (Amazon Bedrock spans), ``False`` for end-exclusive ranges.
            quote, prefix, suffix: a W3C Web Annotation ``oa:TextQuoteSelector``
                (exact text and its context).
            pinned_sha256: digest of the bytes the citation was made against, if the
                answer pinned one.
            policy: the normalization policy the quote is to be compared under
                (``exact``, ``nfc``, ``whitespace``, ``fold``, or ``name@version``;
                :mod:`provgraph.normalize`), when the citation's maker knows it: for
                example ``whitespace`` for a quotation whose lines a Markdown answer
                wrapped. Recorded as ``pg:policy "name@version"`` on the quote's
                ``oa:TextQuoteSelector`` (the citation's own ``pg:policy`` is the
                resolver's, the policy of its verdict); the resolver applies it to
                this citation, whatever policy it was asked to use for others.
                Needs ``quote``.

        The resolver (:mod:`provgraph.resolve`) later checks the citation against
        the retained bytes and records the outcome.

        Raises:
            RecordError: a range without a unit, one bound without the other, an
                unknown unit, a negative offset, an empty quote, or a policy that
                is unknown or given without a quote.
        """
        if (start is None) != (end is None):
            raise RecordError("citation start and end go together: give both or neither")
        if start is not None and unit is None:
            raise RecordError("a citation range needs its unit (utf8_byte, codepoint, utf16_unit, "
                              "page or block)")
        if unit is not None and unit not in UNITS:
            raise RecordError(f"unknown offset unit {unit!r}; use one of {UNITS}")
        if start is not None and (int(start) < 0 or int(end) < 0):  # type: ignore[arg-type]
            raise RecordError(f"citation range [{start}, {end}] has a negative offset")
        if quote is not None and quote == "":
            raise RecordError("citation quote must not be empty; omit it instead")
        if pinned_sha256 is not None and not _HEX64.match(pinned_sha256):
            raise RecordError(f"pinned_sha256 {pinned_sha256!r} is not 64 hex characters")
        declared = _declared_policy(policy, quote)
        c = self._require(claim, "claim")
        cit = _given_iri("iri", iri) or ids.new_iri()
        g = self.iri
        raw = target if isinstance(target, str) else iri_of(target)
        target_iri = self._as_target(raw)
        q: list[Quad] = [(cit, RDF.type, PROV.Entity, g), (cit, RDF.type, PG.Citation, g),
                         (c, PG.citation, cit, g), (cit, PG.targetId, lit(str(raw)), g)]
        if target_iri is not None:
            q.append((cit, PG.target, target_iri, g))
        if start is not None:
            q += [(cit, PG.start, lit(int(start)), g), (cit, PG.end, lit(int(end)), g),  # type: ignore[arg-type]
                  (cit, PG.offsetUnit, lit(unit), g),
                  (cit, PG.endInclusive, lit(bool(end_inclusive)), g)]
        if quote is not None:
            sel = IRI(f"{cit}#quote")
            q += [(cit, OA.hasSelector, sel, g), (sel, RDF.type, OA.TextQuoteSelector, g),
                  (sel, OA.exact, lit(quote), g)]
            if prefix:
                q.append((sel, OA.prefix, lit(prefix), g))
            if suffix:
                q.append((sel, OA.suffix, lit(suffix), g))
            if declared:
                q.append((sel, PG.policy, lit(declared), g))
        if pinned_sha256:
            q.append((cit, PG.pinnedSha256, lit(pinned_sha256.lower()), g))
        support = None
        if target_iri is not None:
            # the claim's support grows by the target's: write what it adds
            old = self._support.of(c)
            support = self._support.derive(agents=old.agents, snapshots=old.snapshots,
                                           evidence=[target_iri])
            q += [(c, PG.supportAgent, a, g) for a in sorted(support.agents - old.agents)]
            q += [(c, PG.citedSnapshot, s, g) for s in sorted(support.snapshots - old.snapshots)]
        self._emit(q)
        if support is not None:
            self._support.remember(c, support, ingestion=False)
        return CitationRecord(iri=cit, claim=c, target_id=str(raw), target=target_iri,
                              start=start, end=end, unit=unit, end_inclusive=end_inclusive,
                              quote=quote, prefix=prefix, suffix=suffix,
                              pinned_sha256=pinned_sha256.lower() if pinned_sha256 else None,
                              policy=declared)

    def _as_target(self, raw: str) -> IRI | None:
        """``raw`` as an IRI when it names a recorded resource, else ``None``."""
        if not _IRI_SYNTAX.match(raw):
            return None
        iri = IRI(raw)
        if iri in self._support or iri in self._written:
            return iri
        if self._pending and any(qd[0] == iri for qd in self._pending):
            return iri
        return iri if self.store.has_subject(iri) else None


def _declared_policy(policy: str | None, quote: str | None) -> str | None:
    """``name@version`` of a citation's declared normalization policy (``None``: none)."""
    if policy is None:
        return None
    if quote is None:
        raise RecordError(f"citation policy {policy!r} says how the quote is compared; give "
                          "quote= as well, or leave the policy out")
    try:
        return get_policy(policy).label
    except ResolutionError as exc:
        raise RecordError(f"citation policy: {exc}") from None


def _package_versions(packages: Sequence[str] | None) -> dict[str, str]:
    names = packages if packages is not None else (
        "provgraph", "pyoxigraph", "rdflib", "prov", "networkx", "click")
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out
