"""Indexed representations (``pg:IndexedRepresentation``): the exact text that was
embedded or indexed for a chunk, with its segments (:mod:`provgraph.schema.segment`)
saying which ranges are original (the chunk) and which generated (an aid).

It is a ``prov:specializationOf`` the chunk and ``prov:wasDerivedFrom`` the chunk and
every segment source; with an embedder, ``prov:wasGeneratedBy`` a ``pg:Indexing``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad
from ..vocab import PG, PROV
from ._table import Field, Table
from .agent import Activity, Agent, activity_quads
from .segment import SEGMENTS, Segment

__all__ = ["IndexedRecord", "INDEXED", "to_quads", "load", "indexed_iri"]


def indexed_iri(chunk: IRI, text: str) -> IRI:
    """The content-derived IRI of the indexed representation of ``chunk`` as ``text``."""
    return ids.content_iri("indexed", chunk, text)


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexedRecord:
    """The exact text that was embedded or indexed for a chunk.

    Args:
        iri: the representation.
        text: the indexed text (code points; segments index it).
        chunk: the chunk it stands for.
        segments: its segments, in order.
    """

    iri: IRI
    text: str
    chunk: IRI
    segments: tuple[Segment, ...]

    @property
    def sources(self) -> tuple[IRI, ...]:
        """The chunk, then each further segment source, once each, in order."""
        out = [self.chunk]
        for s in self.segments:
            if s.source_iri is not None and s.source_iri not in out:
                out.append(s.source_iri)
        return tuple(out)


INDEXED = Table(
    "indexed", (PROV.Entity, PG.IndexedRepresentation),
    fields=(Field("text", PG.text), Field("chunk", PROV.specializationOf, "iri"),
            Field("sources", PROV.wasDerivedFrom, "iri", many=True, read=False)),
    parts=(SEGMENTS,))


def to_quads(rec: IndexedRecord, graph: IRI | None, *, run: IRI, embedder: Agent | None = None,
             at: _dt.datetime | None = None) -> list[Quad]:
    """The representation, its segments and, given an ``embedder``, its ``pg:Indexing``
    activity (recorded by ``run``, ended ``at``), in ``graph``."""
    q = INDEXED.quads(rec.iri, rec, graph)
    if embedder is not None:
        act = ids.content_iri("indexing", rec.iri, embedder.name, embedder.version)
        q += activity_quads(Activity(iri=act, cls=PG.Indexing, run=run, ended_at=at,
                                     agents=(embedder,)), graph)
        q += [(act, PROV.used, rec.chunk, graph), (rec.iri, PROV.wasGeneratedBy, act, graph)]
    return q


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, IndexedRecord]:
    """The indexed representations among ``iris``, by IRI (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = INDEXED.read_typed(store, iris, PG.IndexedRepresentation)
    out: dict[IRI, IndexedRecord] = {}
    for i, p in props.items():
        v = INDEXED.decode(p, nodes, i)
        out[i] = IndexedRecord(iri=i, text=v["text"] or "", chunk=v["chunk"] or IRI(""),
                               segments=v["segments"])
    return out
