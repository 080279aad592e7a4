"""Retrievals (``pg:Retrieval``): the query (and any aids) used, the retriever agent and
index version, and the ranked hits as qualified ``prov:Usage`` nodes (PROV-O §3.3)
``<retrieval>#hit-<rank>`` with ``prov:entity``, ``pg:rank`` (from 1) and ``pg:score``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..store import ProvStore
from ..terms import IRI, Quad
from ..vocab import PG, PROV
from ._table import Field, Part, Table
from .agent import ACTIVITY, Activity, Agent, activity_quads, agents_of, associated

__all__ = ["Hit", "RetrievalRecord", "RETRIEVAL", "to_quads", "load"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """One ranked retrieval result.

    Args:
        target: the chunk (or other entity) retrieved: IRI or record.
        rank: position in the ranking, counting from 1.
        score: the retriever's score, ``None`` if it gave none.
    """

    target: Any
    rank: int
    score: float | None = None

    @property
    def target_iri(self) -> IRI:
        """The IRI of :attr:`target`."""
        return IRI(self.target if isinstance(self.target, str) else self.target.iri)


_HIT = Table("hit", (PROV.Usage,),
             fields=(Field("target_iri", PROV.entity, "iri", read=False),
                     Field("target", PROV.entity, "iri", write=False),
                     Field("rank", PG.rank, "int"), Field("score", PG.score, "float")),
             record=Hit)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalRecord:
    """A retrieval activity with its ranked hits.

    Args:
        iri: the activity.
        query: the query it used.
        hits: the hits, by rank.
        retriever: the retriever agent.
        index_version: version or digest of the index searched (``""``: not given).
        aids: generated aids used to search (``pg:aidUsed``), sorted.
        started_at, ended_at: aware times.
        run: the run it belongs to.
    """

    iri: IRI
    query: IRI
    hits: tuple[Hit, ...]
    retriever: Agent
    index_version: str = ""
    aids: tuple[IRI, ...] = ()
    started_at: _dt.datetime | None = None
    ended_at: _dt.datetime | None = None
    run: IRI = IRI("")

    @property
    def used(self) -> tuple[IRI, ...]:
        """Everything ``prov:used``: the query, the aids and each hit's target."""
        return (self.query, *self.aids, *(h.target_iri for h in self.hits))


RETRIEVAL = Table(
    "retrieval", (),
    fields=(Field("used", PROV.used, "iri", many=True, read=False),
            Field("index_version", PG.indexVersion, default="", omit_empty=True),
            Field("aids", PG.aidUsed, "iri", many=True)),
    parts=(Part("hits", PROV.qualifiedUsage, "#hit-{key}", _HIT, many=True, key="rank"),))


def to_quads(rec: RetrievalRecord, graph: IRI | None) -> list[Quad]:
    """The retrieval activity, its retriever, its uses and hits, in ``graph``."""
    q = activity_quads(Activity(iri=rec.iri, cls=PG.Retrieval, run=rec.run,
                                started_at=rec.started_at, ended_at=rec.ended_at,
                                agents=(rec.retriever,)), graph)
    return q + RETRIEVAL.quads(rec.iri, rec, graph, types=False)


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, RetrievalRecord]:
    """The retrievals among ``iris``, by IRI (two queries: activities, agents).

    The query is the one used entity typed ``pg:Query`` among the ``prov:used`` objects
    that are neither aids nor hit targets.

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    found, nodes, _ = RETRIEVAL.read_typed(store, iris, PG.Retrieval)
    agents = agents_of(store, found.values())
    out: dict[IRI, RetrievalRecord] = {}
    for i, p in found.items():
        v = RETRIEVAL.decode(p, nodes, i)
        a = ACTIVITY.decode(p, nodes, i)
        others = set(v["aids"]) | {IRI(h.target) for h in v["hits"]}
        used = [IRI(u) for u in p.get(PROV.used, []) if IRI(u) not in others]
        retriever = associated(p, agents, "retriever") or Agent(role="retriever", name="")
        out[i] = RetrievalRecord(iri=i, query=used[0] if used else IRI(""), hits=v["hits"],
                                 retriever=retriever, index_version=v["index_version"] or "",
                                 aids=v["aids"], started_at=a["started_at"],
                                 ended_at=a["ended_at"], run=a["run"] or IRI(""))
    return out
