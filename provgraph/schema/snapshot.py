"""Documents, snapshots and their revisions, re-observations and deletions (``pg:Document``,
``pg:SourceSnapshot``, ``pg:Observation``, ``pg:Reobservation``, ``pg:Deletion``).

A snapshot is the retained bytes of one observation of a document: its IRI is the
RFC 6920 ``ni:`` name of those bytes, ``pg:sha256`` their hex digest; it is a
``prov:specializationOf`` the version-independent document and may be a
``prov:wasRevisionOf`` (binary and qualified, PROV-O §3.3) an earlier snapshot.
A deletion is a ``pg:Deletion`` activity that invalidates the snapshot and its
document (PROV-DM §5.1.7).

Re-observation (issue 14): bytes fetched again and found equal to the document's
current snapshot are one more *use* of that snapshot, not a new entity. A
``pg:Reobservation`` activity ``prov:used`` the snapshot and ended
(``prov:endedAtTime``) when the bytes were seen (PROV-DM §5.1.4 Usage). Why not the
alternatives: a second ``pg:observedAt`` on the snapshot would break its
functional property and the ordering of revisions; a new snapshot entity for equal
bytes would defeat content addressing (RFC 6920 names are the bytes); a
``prov:wasRevisionOf`` itself is meaningless, and an invalidation would make every
claim on the unchanged text stale. The snapshot therefore stays the newest revision
and ``stale`` reports nothing.

A document whose bytes no source gave (a retrieval document a trace names by id
only) is a ``pg:Document`` with ``pg:notRetained`` (why) and no snapshot: it can be
a retrieval hit and a citation target, never evidence (the resolver reports its
citations as ``unresolved_id`` with that reason).

A new snapshot of a document that already has one is a revision of the document's
newest snapshot (:func:`newest_of_document`), whether or not ``revision_of`` names it
(issue 17: without it the snapshot was silently not a revision, so ``stale`` found
nothing); one observed before that newest snapshot must name its place.

Ordering revisions: :func:`newest_first` is the one rule every reader uses (the
resolver's "newest revision of a document"): a snapshot that no other snapshot of
the document revises comes first, then later observation times, compared as
timezone-aware instants (never as strings), then the IRI.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad, lit, term_value
from ..vocab import PG, PROV, RDF
from ..xsd import instant
from ._table import Field, Part, Table
from .agent import Activity, activity_quads

__all__ = ["SnapshotRecord", "DocumentRecord", "DOCUMENT", "SNAPSHOT", "to_quads", "document_quads",
           "deletion_quads", "load", "newest_first", "observation_iri", "SnapshotState", "states",
           "reobservation_iri", "reobservation_quads", "reobservations", "unretained_quads",
           "not_retained", "newest_of_document"]


def observation_iri(sha256: str) -> IRI:
    """The IRI of the observation activity that generated the snapshot of these bytes."""
    return ids.content_iri("observation", sha256)


def reobservation_iri(sha256: str, at: _dt.datetime) -> IRI:
    """The IRI of the ``pg:Reobservation`` of the bytes with digest ``sha256`` at the
    instant ``at`` (aware; the same instant in any zone gives the same IRI)."""
    return ids.content_iri("reobservation", sha256,
                           at.astimezone(_dt.timezone.utc).isoformat())


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotRecord:
    """Retained bytes of one observation of a document (``pg:SourceSnapshot``).

    Args:
        iri: the snapshot (``ni:///sha-256;...``).
        document: the version-independent ``pg:Document`` it is a ``prov:specializationOf``.
        sha256: hex digest of the retained bytes (lower case).
        byte_size: number of bytes.
        media_type: IANA media type as given (``text/markdown; charset=utf-8``).
        source_uri: where the bytes came from.
        observed_at: when they were fetched (aware).
        revision_of: the previous snapshot of the same document, or ``None``.
    """

    iri: IRI
    document: IRI
    sha256: str
    byte_size: int
    media_type: str
    source_uri: str
    observed_at: _dt.datetime
    revision_of: IRI | None = None

    @property
    def observation(self) -> IRI:
        """The ``pg:Observation`` activity that generated the snapshot."""
        return observation_iri(self.sha256)


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentRecord:
    """A version-independent document (``pg:Document``).

    Args:
        iri: the document.
        source_uri: where it is published, or its identifier as a source gave it.
        not_retained: why no snapshot of its bytes is retained (``pg:notRetained``);
            ``""`` for a document whose snapshots are recorded.
    """

    iri: IRI
    source_uri: str
    not_retained: str = ""


DOCUMENT = Table("document", (PROV.Entity, PG.Document),
                 fields=(Field("source_uri", PG.sourceUri),
                         Field("not_retained", PG.notRetained, default="", omit_empty=True)),
                 record=DocumentRecord)

_REVISION = Table("revision", (PROV.Revision,), fields=(Field("revision_of", PROV.entity, "iri"),))

SNAPSHOT = Table(
    "snapshot", (PROV.Entity, PG.SourceSnapshot),
    fields=(Field("document", PROV.specializationOf, "iri", write=False),  # document_quads
            Field("sha256", PG.sha256),
            Field("byte_size", PG.byteSize, "int"), Field("media_type", PG.mediaType),
            Field("source_uri", PG.sourceUri), Field("observed_at", PG.observedAt, "datetime"),
            Field("observed_at", PROV.generatedAtTime, "datetime", read=False),
            Field("observation", PROV.wasGeneratedBy, "iri", read=False),
            Field("revision_of", PROV.wasRevisionOf, "iri")),
    parts=(Part("revision_of", PROV.qualifiedRevision, "#revision", _REVISION),),
    record=SnapshotRecord)


def document_quads(document: IRI, source_uri: str, snapshot: IRI, graph: IRI | None) -> list[Quad]:
    """The document's statements and the snapshot's ``prov:specializationOf`` it."""
    return [(document, RDF.type, PROV.Entity, graph), (document, RDF.type, PG.Document, graph),
            (document, PG.sourceUri, lit(source_uri), graph),
            (snapshot, PROV.specializationOf, document, graph)]


def to_quads(snap: SnapshotRecord, graph: IRI | None, *, run: IRI) -> list[Quad]:
    """The snapshot's statements, its document's and its observation activity's
    (recorded by ``run``), in ``graph`` (the ingestion graph)."""
    q = document_quads(snap.document, snap.source_uri, snap.iri, graph)
    q += SNAPSHOT.quads(snap.iri, snap, graph)
    q += activity_quads(Activity(iri=snap.observation, cls=PG.Observation, run=run,
                                 ended_at=snap.observed_at), graph)
    return q


def reobservation_quads(snapshot: IRI, sha256: str, at: _dt.datetime, graph: IRI | None,
                        *, run: IRI) -> list[Quad]:
    """A ``pg:Reobservation`` (recorded by ``run``, ended ``at``) that ``prov:used``
    ``snapshot``: its bytes were seen unchanged at ``at`` (module docstring)."""
    act = reobservation_iri(sha256, at)
    q = activity_quads(Activity(iri=act, cls=PG.Reobservation, run=run, ended_at=at), graph)
    q.append((act, PROV.used, snapshot, graph))
    return q


_REOBSERVED = f"""SELECT ?snap ?at WHERE {{
  ?act <{PROV.used}> ?snap ; a <{PG.Reobservation}> ; <{PROV.endedAtTime}> ?at }}"""


def reobservations(store: ProvStore, snapshot: IRI) -> list[_dt.datetime]:
    """When ``snapshot``'s bytes were seen unchanged after their first observation
    (its ``pg:Reobservation`` activities' ``prov:endedAtTime``), as aware datetimes in
    ascending order; ``[]`` when never. The first observation is the snapshot's
    ``observed_at`` (:func:`load`).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    rows = store.select(_REOBSERVED, {"snap": snapshot}, source="provgraph.schema.snapshot")
    out = [instant(r["at"]) for r in rows]
    return sorted(t for t in out if t is not None)


def unretained_quads(document: IRI, source_uri: str, reason: str,
                     graph: IRI | None) -> list[Quad]:
    """A ``pg:Document`` at ``source_uri`` whose bytes are not retained, saying why
    (``pg:notRetained``); no snapshot is written for it."""
    return DOCUMENT.quads(document, DocumentRecord(iri=document, source_uri=source_uri,
                                                   not_retained=reason), graph)


def not_retained(store: ProvStore, documents: Sequence[IRI]) -> dict[IRI, str]:
    """The documents among ``documents`` recorded as not retained, with the reason
    (``pg:notRetained``; one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    if not documents:
        return {}
    rows = store.select(f"SELECT ?doc ?why WHERE {{ ?doc <{PG.notRetained}> ?why }}",
                        values=("doc", list(documents)), source="provgraph.schema.snapshot")
    return {IRI(str(r["doc"])): str(term_value(r["why"])) for r in rows}


def deletion_quads(act: IRI, snapshot: IRI, document: IRI, at: _dt.datetime, graph: IRI | None,
                   *, run: IRI) -> list[Quad]:
    """A ``pg:Deletion`` ``act`` (ended ``at``) invalidating ``snapshot`` and ``document``."""
    q = activity_quads(Activity(iri=act, cls=PG.Deletion, run=run, ended_at=at), graph)
    q += [(snapshot, PROV.wasInvalidatedBy, act, graph), (document, PROV.wasInvalidatedBy, act, graph),
          (snapshot, PROV.invalidatedAtTime, lit(at), graph),
          (document, PROV.invalidatedAtTime, lit(at), graph)]
    return q


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, SnapshotRecord]:
    """The snapshots among ``iris`` (one query), by IRI. A subject that is not a
    ``pg:SourceSnapshot`` or lacks a digest is left out.

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = SNAPSHOT.read_typed(store, iris, PG.SourceSnapshot)
    out: dict[IRI, SnapshotRecord] = {}
    for iri, p in props.items():
        v = SNAPSHOT.decode(p, nodes, iri)
        if v["sha256"] is None:
            continue
        out[iri] = SnapshotRecord(
            iri=iri, document=v["document"] or IRI(""), sha256=v["sha256"],
            byte_size=v["byte_size"] if isinstance(v["byte_size"], int) else 0,
            media_type=v["media_type"] or "", source_uri=v["source_uri"] or "",
            observed_at=v["observed_at"] if isinstance(v["observed_at"], _dt.datetime) else _EPOCH,
            revision_of=v["revision_of"])
    return out


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MIN = _dt.datetime.min.replace(tzinfo=_dt.timezone.utc)


def newest_first(snapshots: Sequence[IRI], observed: Mapping[IRI, object],
                 revised: Set[IRI] = frozenset()) -> list[IRI]:
    """``snapshots`` of one document, newest first: those no other snapshot revises
    (not in ``revised``), then later ``observed`` instants (``xsd:dateTime`` literals or
    datetimes, compared as instants by :func:`provgraph.xsd.instant`: 10:00+05:00 is
    before 09:00Z; a time without a zone is read as UTC; no time sorts last), then IRI,
    descending. The one ordering of revisions (``stale``, ``resolve``)."""
    return sorted(snapshots, key=lambda s: (s not in revised, instant(observed.get(s)) or _MIN, s),
                  reverse=True)


_OF_DOCUMENT = f"""SELECT ?doc ?snap ?observed ?older WHERE {{
  ?snap <{PROV.specializationOf}> ?doc ; a <{PG.SourceSnapshot}> .
  OPTIONAL {{ ?snap <{PG.observedAt}> ?observed }}
  OPTIONAL {{ ?snap <{PROV.wasRevisionOf}> ?older }}
}}"""


def newest_of_document(store: ProvStore, document: IRI, pending: Sequence[Quad] = ()
                       ) -> tuple[IRI, _dt.datetime | None] | None:
    """The newest snapshot of ``document`` (:func:`newest_first`) and its observation
    time, or ``None`` when it has none: what a new snapshot of the document revises.

    Args:
        store: the store (one query, bound to the document).
        document: the document's IRI.
        pending: statements written but not yet committed (a Recorder batch), read too.
    """
    observed: dict[IRI, object] = {}
    revised: set[IRI] = set()
    snaps: set[IRI] = set()
    for row in store.select(_OF_DOCUMENT, {"doc": document}):
        snap = IRI(row["snap"])
        snaps.add(snap)
        if row.get("observed") is not None:
            observed[snap] = row["observed"]
        if isinstance(row.get("older"), IRI):
            revised.add(IRI(row["older"]))
    mine = {q[0] for q in pending if q[1] == PROV.specializationOf and q[2] == document}
    for q in pending:
        if q[0] in mine and q[1] == RDF.type and q[2] == PG.SourceSnapshot:
            snaps.add(IRI(q[0]))
        elif q[0] in mine and q[1] == PG.observedAt:
            observed[IRI(q[0])] = q[2]
        elif q[0] in mine and q[1] == PROV.wasRevisionOf and isinstance(q[2], IRI):
            revised.add(q[2])
    if not snaps:
        return None
    newest = newest_first(sorted(snaps), observed, revised)[0]
    return newest, instant(observed.get(newest))


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotState:
    """What happened to a snapshot after it was recorded.

    Args:
        newer: the snapshots that are ``prov:wasRevisionOf`` it, newest first
            (:func:`newest_first`).
        deleted: it or its document ``prov:wasInvalidatedBy`` a deletion.
    """

    newer: tuple[IRI, ...] = ()
    deleted: bool = False


_STATES = f"""SELECT ?snap ?newer ?observed ?deletion WHERE {{
  {{ ?newer <{PROV.wasRevisionOf}> ?snap OPTIONAL {{ ?newer <{PG.observedAt}> ?observed }} }}
  UNION {{ ?snap <{PROV.wasInvalidatedBy}> ?deletion }}
  UNION {{ ?snap <{PROV.specializationOf}> ?doc . ?doc <{PROV.wasInvalidatedBy}> ?deletion }}
}}"""


def states(store: ProvStore, snapshots: Sequence[IRI]) -> dict[IRI, SnapshotState]:
    """The :class:`SnapshotState` of each of ``snapshots`` (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    if not snapshots:
        return {}
    rows = store.select(_STATES, values=("snap", list(snapshots)), source="provgraph.schema.snapshot")
    newer: dict[IRI, set[IRI]] = {s: set() for s in snapshots}
    observed: dict[IRI, object] = {}
    deleted: set[IRI] = set()
    for r in rows:
        snap = IRI(str(r["snap"]))
        if isinstance(r["newer"], IRI):
            newer[snap].add(r["newer"])
            if r["observed"] is not None:
                observed[r["newer"]] = r["observed"]
        if r["deletion"] is not None:
            deleted.add(snap)
    return {s: SnapshotState(newer=tuple(newest_first(sorted(newer[s]), observed)),
                             deleted=s in deleted) for s in snapshots}
