"""Generated retrieval aids (``pg:GeneratedAid``): hypothetical documents (HyDE),
contextual prefixes and generated questions. Never original evidence: the resolver
never accepts one as a quotation source (DESIGN.md, "Quotation versus derivation").

An aid is ``prov:wasGeneratedBy`` a ``pg:AidGeneration`` activity associated with
the model, and ``prov:wasDerivedFrom`` what it was made from (chunks, or the query).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad
from ..vocab import AID_KINDS, PG, PROV, RDF
from ._table import Field, Table
from .agent import ACTIVITY, Activity, Agent, activity_quads, agents_of, associated

__all__ = ["AidRecord", "AID", "to_quads", "load", "kind_of", "generation_iri"]


def generation_iri(aid: IRI) -> IRI:
    """The ``pg:AidGeneration`` activity of an aid."""
    return ids.content_iri("aid-generation", aid)


@dataclass(frozen=True, slots=True, kw_only=True)
class AidRecord:
    """A generated retrieval aid. Never original evidence.

    Args:
        iri: the aid (content-derived from kind, text, model and sources).
        kind: ``hypothetical_document``, ``contextual_prefix`` or ``generated_question``.
        text: the generated text.
        model: the generator agent.
        derived_from: what it was generated from, sorted.
        at: when it was generated (aware), ``None`` if unknown.
    """

    iri: IRI
    kind: str
    text: str
    model: Agent
    derived_from: tuple[IRI, ...]
    at: _dt.datetime | None = None

    @property
    def generation(self) -> IRI:
        """The ``pg:AidGeneration`` activity."""
        return generation_iri(self.iri)


AID = Table(
    "aid", (PROV.Entity, PG.GeneratedAid),
    fields=(Field("text", PG.text), Field("generation", PROV.wasGeneratedBy, "iri", read=False),
            Field("derived_from", PROV.wasDerivedFrom, "iri", many=True)),
    extra_types=lambda a: [AID_KINDS[a.kind]])


def kind_of(types: Sequence[object]) -> str | None:
    """The aid kind whose class is among ``types``."""
    return next((k for k, cls in AID_KINDS.items() if cls in types), None)


def to_quads(aid: AidRecord, graph: IRI | None, *, run: IRI) -> list[Quad]:
    """The aid, its generation activity (recorded by ``run``) and its model, in ``graph``."""
    q = activity_quads(Activity(iri=aid.generation, cls=PG.AidGeneration, run=run, ended_at=aid.at,
                                agents=(aid.model,)), graph)
    q += [(aid.generation, PROV.used, s, graph) for s in aid.derived_from]
    q += AID.quads(aid.iri, aid, graph)
    return q


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, AidRecord]:
    """The aids among ``iris``, by IRI (three queries: aids, generations, models).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """

    found, nodes, _ = AID.read_typed(store, iris, PG.GeneratedAid)
    acts, _, _ = ACTIVITY.read(store, [generation_iri(i) for i in found])
    agents = agents_of(store, acts.values())
    out: dict[IRI, AidRecord] = {}
    for i, p in found.items():
        v = AID.decode(p, nodes, i)
        act = acts.get(generation_iri(i), {})
        model = associated(act, agents, "model") or Agent(role="model", name="")
        out[i] = AidRecord(iri=i, kind=kind_of(p.get(RDF.type, [])) or "", text=v["text"] or "",
                           model=model, derived_from=v["derived_from"],
                           at=ACTIVITY.decode(act, {}, i)["ended_at"])
    return out
