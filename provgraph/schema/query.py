"""User queries (``pg:Query``): the question as asked, with its time."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass

from ..store import ProvStore
from ..terms import IRI, Quad
from ..vocab import PG, PROV
from ._table import Field, Table

__all__ = ["QueryRecord", "QUERY", "to_quads", "load"]


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryRecord:
    """A user query.

    Args:
        iri: the query.
        text: the question as asked.
        at: when it was asked (aware; ``prov:generatedAtTime``), ``None`` if unknown.
    """

    iri: IRI
    text: str
    at: _dt.datetime | None = None


QUERY = Table("query", (PROV.Entity, PG.Query),
              fields=(Field("text", PG.text), Field("at", PROV.generatedAtTime, "datetime")),
              record=QueryRecord)


def to_quads(rec: QueryRecord, graph: IRI | None) -> list[Quad]:
    """The query's statements in ``graph`` (the run graph)."""
    return QUERY.quads(rec.iri, rec, graph)


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, QueryRecord]:
    """The queries among ``iris``, by IRI (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = QUERY.read_typed(store, iris, PG.Query)
    return {i: QUERY.build(p, nodes, i, iri=i) for i, p in props.items()}
