"""The Recorder's ingestion steps: snapshots, deletions, extractions, chunks, aids, indexed texts.

Statements go to the shared ingestion graph :data:`provgraph.vocab.GRAPH.INGESTION`
(aids derived from a query go to the run graph). Content-defined things get
content-derived IRIs, so recording them twice adds nothing. These are methods
of :class:`~provgraph.recorder.Recorder`; see its documentation.

Reference: PROV-O §3 (https://www.w3.org/TR/prov-o/), PROV-DM §5.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace
from collections.abc import Mapping, Sequence
from typing import Any

from . import ids
from ._recording import RecorderBase, _agent_tuple, _given_iri
from .errors import NotFound, RecordError
from .model import (
    Agent, AidRecord, ChunkRecord, ExtractionRecord, IndexedRecord, QueryRecord, Ref, Segment,
    SnapshotRecord, iri_of,
)
from .schema import aid as aid_schema
from .schema import chunk as chunk_schema
from .schema import extraction as extraction_schema
from .schema import indexed as indexed_schema
from .schema import snapshot as snapshot_schema
from .schema import table as table_schema
from .terms import IRI, Literal, Quad
from .vocab import AID_KINDS, GRAPH, PG, PROV

__all__ = ["IngestionSteps"]


class IngestionSteps(RecorderBase):
    """The ingestion steps of :class:`~provgraph.recorder.Recorder`."""

    def snapshot(self, data: bytes, *, uri: str, media_type: str,
                 observed_at: _dt.datetime | None = None, revision_of: Ref | None = None,
                 document: str | None = None, part: bool = False) -> SnapshotRecord:
        """Retain ``data`` and record it as a ``pg:SourceSnapshot`` of the document at ``uri``.

        Args:
            data: the exact source bytes as fetched (not decoded, not normalised).
            uri: where the bytes came from (the document's identity by default).
            media_type: IANA media type, e.g. ``text/markdown; charset=utf-8``.
            observed_at: when the bytes were fetched (aware; default now).
            revision_of: the previous snapshot of the same document
                (``prov:wasRevisionOf``, binary and qualified). ``None``: new bytes of
                a document that has snapshots revise its newest one
                (:func:`provgraph.schema.snapshot.newest_of_document`; issue 17), and
                the record returned names it. When it is the
                snapshot of these very bytes (an unchanged re-ingest), nothing is
                revised: a ``pg:Reobservation`` that ``prov:used`` the snapshot at
                ``observed_at`` is recorded instead (issue 14;
                :func:`provgraph.schema.snapshot.reobservation_quads`), so ``stale``
                reports nothing for it.
            document: IRI of the version-independent document; default is minted from ``uri``.
            part: the bytes are a part of the document (a passage or chunk a service
                returned), not the whole: never taken for a revision of the document's
                other snapshots when ``revision_of`` is ``None`` (the importers' passages).

        Returns:
            :class:`SnapshotRecord`; its IRI is the RFC 6920 ``ni:`` name of the bytes.
            Recording the same bytes again returns the same IRI and adds nothing,
            ``observed_at`` and ``revision_of`` included (but for the re-observation
            above): a revert to earlier bytes is not recorded (a known limitation;
            README "Recording a pipeline"). The record returned for a re-observation
            has ``revision_of=None``; the times are read back with
            :func:`provgraph.schema.snapshot.reobservations`.

        Raises:
            RecordError: ``data`` is not bytes, ``uri`` or ``media_type`` is empty,
                ``observed_at`` is naive, or ``revision_of`` is ``None`` and the new
                bytes were observed before the document's newest snapshot (snapshots
                of a document are recorded in the order observed; name the revised
                snapshot to place it).
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
        if prev is None and not part and not self._exists(snap) and self._exists(doc):
            prev = self._newest_snapshot(doc, uri, observed)
        unchanged = prev == snap  # seen again with the same bytes: a re-observation (issue 14)
        rec = SnapshotRecord(iri=snap, document=doc, sha256=digest, byte_size=len(data),
                             media_type=media_type, source_uri=uri, observed_at=observed,
                             revision_of=None if unchanged else prev)
        g = GRAPH.INGESTION
        if self._exists(snap):
            q = snapshot_schema.document_quads(doc, uri, snap, g)
            if unchanged:
                q += snapshot_schema.reobservation_quads(snap, digest, observed, g, run=self.iri)
        else:
            q = snapshot_schema.to_quads(rec, g, run=self.iri)
        self._emit(q)
        self._mark_written(snap)
        self._mark_written(doc)
        self._support.remember(snap, self._support.derive(snapshots=[snap]), ingestion=True)
        return rec

    def _newest_snapshot(self, doc: IRI, uri: str, observed: _dt.datetime) -> IRI | None:
        """What new bytes of ``doc`` revise when no ``revision_of`` is given: its newest
        snapshot, in the store or in this batch (issue 17)."""
        pending = [*(self._held or ()), *(self._pending or ())]
        newest = snapshot_schema.newest_of_document(self.store, doc, pending)
        if newest is None:
            return None
        snap, when = newest
        if when is not None and observed < when:
            raise RecordError(
                f"these bytes were observed before ({observed.isoformat()}) the newest snapshot "
                f"of {uri}, <{snap}> ({when.isoformat()}): snapshots of a document are recorded "
                "in the order they were observed; pass revision_of= the snapshot this one "
                "revises to place it")
        return snap

    def unretained_document(self, uri: str, *, reason: str, document: str | None = None) -> IRI:
        """Record a document whose bytes are not retained (a ``pg:Document`` with
        ``pg:notRetained``, and no snapshot), e.g. a retrieval document that an
        OpenTelemetry span names by id only (issue 14).

        Such a document can be a retrieval hit (with its rank and score) and a citation
        target, but never evidence: the resolver gives its citations the outcome
        ``unresolved_id`` with ``reason`` (:mod:`provgraph.resolve`).

        Args:
            uri: the document's identifier or locator as the source gave it
                (``pg:sourceUri``; a citation that names it resolves to this document).
            reason: why the bytes are not retained, a sentence naming the source,
                e.g. ``"trace.jsonl:3: the span gave no document.content"``.
            document: IRI of the document; default is minted from ``uri`` (the IRI a
                snapshot recorded later from ``uri`` would specialize).

        Returns:
            The document's IRI. Recording it again adds nothing; a document that has
            a snapshot already keeps it (only the first ``pg:notRetained`` is kept).

        Raises:
            RecordError: ``uri`` or ``reason`` is empty.
        """
        if not uri:
            raise RecordError("document uri must not be empty")
        if not reason:
            raise RecordError("say why the document's bytes are not retained: reason= is empty")
        doc = _given_iri("document", document) or ids.content_iri("document", uri)
        if self._exists(doc):
            return doc
        self._emit(snapshot_schema.unretained_quads(doc, uri, reason, GRAPH.INGESTION))
        self._mark_written(doc)
        return doc

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
        self._emit(snapshot_schema.deletion_quads(act, snap, doc, when, GRAPH.INGESTION, run=self.iri))
        self._written.add(act)
        return act

    def _document_of(self, snap: IRI) -> IRI:
        # the Recorder writes the document as an IRI (schema.snapshot); nothing else counts
        for _, _, doc, _ in self.store.quads(snap, PROV.specializationOf, None, GRAPH.INGESTION):
            if isinstance(doc, IRI):
                return doc
        for s, p, doc, _ in self._pending or ():
            if s == snap and p == PROV.specializationOf and isinstance(doc, IRI):
                return doc
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
                               text_sha256=tdigest, offset_map=segs, config=cfg)
        if self._exists(iri):
            self._remember_text(text_iri, text, agent, snap)
            return rec
        rec = replace(rec, started_at=self._time("started_at", started_at) if started_at else None,
                      ended_at=self._time("ended_at", ended_at))
        self._emit(extraction_schema.to_quads(rec, GRAPH.INGESTION, run=self.iri))
        self._mark_written(iri)
        self._remember_text(text_iri, text, agent, snap)
        return rec

    def page_layout(self, extraction: ExtractionRecord, *, layout: table_schema.PageLayout,
                    tables: Sequence[table_schema.TableRecord] = ()) -> None:
        """Record where an extraction's text sits on the pages of a PDF, and the tables it
        found (issue 21; :mod:`provgraph.schema.table` has the statements;
        :func:`provgraph.pdf.record_pdf` is the usual caller).

        Args:
            extraction: the extraction (its text is ``layout.text_iri``).
            layout: the page map and word boxes of its text.
            tables: the tables, each ``prov:wasGeneratedBy`` this extraction.

        Raises:
            RecordError: ``layout`` is not about this extraction's text, a table names
                another extraction, or a page range lies outside the text.
        """
        if layout.text_iri != extraction.text_iri:
            raise RecordError(f"the page layout is of <{layout.text_iri}>, not of extraction "
                              f"<{extraction.iri}>'s text <{extraction.text_iri}>")
        n = len(extraction.text)
        for i, (s, e, _, _) in enumerate(layout.pages, 1):
            if not 0 <= s <= e <= n:
                raise RecordError(f"page {i} covers code points [{s}, {e}), outside the "
                                  f"extracted text (0..{n})")
        for t in tables:
            if t.extraction != extraction.iri or t.snapshot != extraction.snapshot:
                raise RecordError(f"table <{t.iri}> names extraction <{t.extraction}> of "
                                  f"<{t.snapshot}>, not <{extraction.iri}>")
        q = table_schema.layout_quads(layout, GRAPH.INGESTION)
        for t in tables:
            q += table_schema.table_quads(t, GRAPH.INGESTION)
        self._emit(q)

    def _remember_text(self, text_iri: IRI, text: str, parser: Agent, snap: IRI) -> None:
        self._texts[text_iri] = text
        self._support.remember(text_iri, self._support.derive(agents=[parser.iri], evidence=[snap]),
                               ingestion=True)

    def _snapshot_size(self, snapshot: SnapshotRecord | str) -> int:
        if isinstance(snapshot, SnapshotRecord):
            return snapshot.byte_size
        snap = iri_of(snapshot)
        for _, _, size, _ in self.store.quads(snap, PG.byteSize, None, GRAPH.INGESTION):
            if isinstance(size, Literal):
                return int(size.value)
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
        full: str | None
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
        act = chunk_schema.chunking_iri(text_iri, agent.name, agent.version, params)
        q: list[Quad] = []
        if not self._exists(act):
            q += chunk_schema.chunking_quads(act, text_iri, params, agent, g, run=self.iri,
                                             ended_at=self._time("ended_at", ended_at))
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
            c = chunk_schema.chunk_iri(text_iri, agent.name, agent.version, start, end)
            chunk = ChunkRecord(iri=c, extraction=ext_iri, text_iri=text_iri, snapshot=snap,
                                start=start, end=end, text=full[start:end], chunking=act)
            out.append(chunk)
            if self._exists(c):
                continue
            q += chunk_schema.to_quads(chunk, g)
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
        rec = replace(rec, at=self._time("at", at))
        self._emit(aid_schema.to_quads(rec, g, run=self.iri))
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
        iri = indexed_schema.indexed_iri(c, text)
        g = GRAPH.INGESTION
        rec = IndexedRecord(iri=iri, text=text, chunk=c,
                            segments=self._check_segments(text, segments, "indexed"))
        if self._exists(iri):
            # recorded before (perhaps with another embedder): the store's statements stand,
            # and so does the support remembered or read back from them
            return rec
        agent = _agent_tuple("embedder", embedder) if embedder is not None else None
        support = self._support.derive(agents=[agent.iri] if agent else [],
                                       evidence=list(rec.sources))
        self._emit(indexed_schema.to_quads(rec, g, run=self.iri, embedder=agent,
                                           at=self._time("at", at) if agent else None))
        self._mark_written(iri)
        self._support.remember(iri, support, ingestion=True)
        return rec
