"""Generations (``pg:Generation``) and their answers (``pg:Answer``): the model and its
settings, the generator input it used, and the answer text exactly as generated."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad
from ..vocab import PG, PROV
from ._table import Field, Table
from .agent import ACTIVITY, Activity, Agent, activity_quads, agents_of, associated

__all__ = ["AnswerRecord", "GENERATION", "ANSWER", "to_quads", "load", "generation_iri"]


def generation_iri(answer: IRI) -> IRI:
    """The generation activity of ``answer``."""
    return ids.content_iri("generation", answer)


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerRecord:
    """An answer and the generation activity that produced it.

    Args:
        iri: the ``pg:Answer``.
        generation: the ``pg:Generation`` activity.
        text: the answer exactly as generated (claims index its code points).
        model: the model agent.
        generator_input: the prompt it used (``prov:used``), ``""`` when unknown.
        settings: decoding settings (JSON).
        started_at, ended_at: aware times (``ended_at`` is the answer's
            ``prov:generatedAtTime``).
        run: the run it belongs to.
    """

    iri: IRI
    generation: IRI
    text: str
    model: Agent
    generator_input: IRI = IRI("")
    settings: dict[str, Any] = field(default_factory=dict)
    started_at: _dt.datetime | None = None
    ended_at: _dt.datetime | None = None
    run: IRI = IRI("")


GENERATION = Table(
    "generation", (),
    fields=(Field("generator_input", PROV.used, "iri"), Field("settings", PG.settings, "json")))

ANSWER = Table(
    "answer", (PROV.Entity, PG.Answer),
    fields=(Field("text", PG.text), Field("generation", PROV.wasGeneratedBy, "iri"),
            Field("ended_at", PROV.generatedAtTime, "datetime")))


def to_quads(rec: AnswerRecord, graph: IRI | None) -> list[Quad]:
    """The generation activity (with its model), its use and settings, and the answer."""
    q = activity_quads(Activity(iri=rec.generation, cls=PG.Generation, run=rec.run,
                                started_at=rec.started_at, ended_at=rec.ended_at,
                                agents=(rec.model,)), graph)
    q += GENERATION.quads(rec.generation, rec, graph, types=False)
    q += ANSWER.quads(rec.iri, rec, graph)
    return q


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, AnswerRecord]:
    """The answers among ``iris``, by IRI (three queries: answers, generations, models).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = ANSWER.read_typed(store, iris, PG.Answer)
    found = {i: ANSWER.decode(p, nodes, i) for i, p in props.items()}
    acts, anodes, _ = GENERATION.read(store, sorted({v["generation"] for v in found.values()
                                                     if v["generation"]}))
    agents = agents_of(store, acts.values())
    out: dict[IRI, AnswerRecord] = {}
    for i, v in found.items():
        g = v["generation"] or IRI("")
        ap = acts.get(g, {})
        gv, av = GENERATION.decode(ap, anodes, g), ACTIVITY.decode(ap, anodes, g)
        model = associated(ap, agents, "model") or Agent(role="model", name="")
        out[i] = AnswerRecord(iri=i, generation=g, text=v["text"] or "", model=model,
                              generator_input=gv["generator_input"] or IRI(""),
                              settings=gv["settings"] or {}, started_at=av["started_at"],
                              ended_at=v["ended_at"], run=av["run"] or IRI(""))
    return out
