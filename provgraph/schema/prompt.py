"""Context packing (``pg:ContextPacking``) and the exact prompt it produced
(``pg:GeneratorInput``): the text the generator saw, its segments
(:mod:`provgraph.schema.segment`) marked original, generated, instruction or query and
linked to their chunk or aid, the retrieval it packed, what was left out for the
budget (``pg:omitted``) and the budget in tokens.
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
from .agent import ACTIVITY, Activity, Agent, activity_quads, agents_of, associated
from .segment import SEGMENTS, Segment

__all__ = ["InputRecord", "PACKING", "GENERATOR_INPUT", "to_quads", "load", "packing_iri"]


def packing_iri(generator_input: IRI) -> IRI:
    """The context-packing activity that generated ``generator_input``."""
    return ids.content_iri("packing", generator_input)


@dataclass(frozen=True, slots=True, kw_only=True)
class InputRecord:
    """The exact generator input (prompt) produced by context packing.

    Args:
        iri: the ``pg:GeneratorInput``.
        packing: the ``pg:ContextPacking`` activity.
        text: the prompt exactly as sent (segments index its code points).
        segments: its segments, in order.
        retrieval: the retrieval whose hits were packed (``prov:wasInformedBy``), if any.
        template: the prompt template agent, if any.
        omitted: chunks left out for the budget, sorted.
        token_budget: the budget in tokens, if one applied.
        at: when it was packed (aware).
        run: the run it belongs to.
    """

    iri: IRI
    packing: IRI
    text: str
    segments: tuple[Segment, ...]
    retrieval: IRI | None = None
    template: Agent | None = None
    omitted: tuple[IRI, ...] = ()
    token_budget: int | None = None
    at: _dt.datetime | None = None
    run: IRI = IRI("")

    @property
    def sources(self) -> tuple[IRI, ...]:
        """Each segment source once, in order of first appearance."""
        return tuple(dict.fromkeys(s.source_iri for s in self.segments if s.source_iri is not None))


PACKING = Table(
    "packing", (),
    fields=(Field("sources", PROV.used, "iri", many=True, read=False),
            Field("retrieval", PROV.wasInformedBy, "iri"),
            Field("omitted", PG.omitted, "iri", many=True),
            Field("token_budget", PG.tokenBudget, "int")))

GENERATOR_INPUT = Table(
    "generator-input", (PROV.Entity, PG.GeneratorInput),
    fields=(Field("text", PG.text), Field("packing", PROV.wasGeneratedBy, "iri"),
            Field("sources", PROV.wasDerivedFrom, "iri", many=True, read=False)),
    parts=(SEGMENTS,))


def to_quads(rec: InputRecord, graph: IRI | None) -> list[Quad]:
    """The packing activity (with its template agent), the generator input and its
    segments, in ``graph``."""
    agents = (rec.template,) if rec.template is not None else ()
    q = activity_quads(Activity(iri=rec.packing, cls=PG.ContextPacking, run=rec.run,
                                started_at=rec.at, ended_at=rec.at, agents=agents), graph)
    q += PACKING.quads(rec.packing, rec, graph, types=False)
    q += GENERATOR_INPUT.quads(rec.iri, rec, graph)
    return q


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, InputRecord]:
    """The generator inputs among ``iris``, by IRI (three queries: inputs, their packing
    activities, template agents).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = GENERATOR_INPUT.read_typed(store, iris, PG.GeneratorInput)
    found = {i: GENERATOR_INPUT.decode(p, nodes, i) for i, p in props.items()}
    acts, anodes, _ = PACKING.read(store, sorted({v["packing"] for v in found.values() if v["packing"]}))
    agents = agents_of(store, acts.values())
    out: dict[IRI, InputRecord] = {}
    for i, v in found.items():
        ap = acts.get(v["packing"], {}) if v["packing"] else {}
        pv = PACKING.decode(ap, anodes, v["packing"] or IRI(""))
        av = ACTIVITY.decode(ap, anodes, v["packing"] or IRI(""))
        template = associated(ap, agents, "prompt_template")
        out[i] = InputRecord(iri=i, packing=v["packing"] or IRI(""), text=v["text"] or "",
                             segments=v["segments"], retrieval=pv["retrieval"], template=template,
                             omitted=pv["omitted"], token_budget=pv["token_budget"],
                             at=av["started_at"], run=av["run"] or IRI(""))
    return out
