"""Documents, snapshots and their revisions and deletions (``pg:Document``,
``pg:SourceSnapshot``, ``pg:Observation``, ``pg:Deletion``).

A snapshot is the retained bytes of one observation of a document: its IRI is the
RFC 6920 ``ni:`` name of those bytes, ``pg:sha256`` their hex digest; it is a
``prov:specializationOf`` the version-independent document and may be a
``prov:wasRevisionOf`` (binary and qualified, PROV-O §3.3) an earlier snapshot.
A deletion is a ``pg:Deletion`` activity that invalidates the snapshot and its
document (PROV-DM §5.1.7).

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
from ..terms import IRI, Quad, lit
from ..vocab import PG, PROV, RDF
from ..xsd import instant
from ._table import Field, Part, Table
from .agent import Activity, activity_quads

__all__ = ["SnapshotRecord", "DOCUMENT", "SNAPSHOT", "to_quads", "document_quads",
           "deletion_quads", "load", "newest_first", "observation_iri", "SnapshotState", "states"]


def observation_iri(sha256: str) -> IRI:
    """The IRI of the observation activity that generated the snapshot of these bytes."""
    return ids.content_iri("observation", sha256)


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


DOCUMENT = Table("document", (PROV.Entity, PG.Document),
                 fields=(Field("source_uri", PG.sourceUri),))

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
