"""Agents and activities: ``prov:SoftwareAgent`` with a role, name and version, and the
``prov:Activity`` statements every recorded step shares (PROV-DM §5.1.1, §5.3.1).

An agent's IRI is content-derived from role, name and version
(:func:`provgraph.ids.content_iri`), so recording the same tool twice adds nothing.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..store import ProvStore
from ..terms import IRI, Quad, Term
from ..vocab import AGENT_ROLES, PG, PROV, RDF, RDFS
from ._table import Field, Table

__all__ = ["Agent", "Activity", "AGENT", "ACTIVITY", "agent_quads", "activity_quads",
           "load_agents", "role_of", "agents_of", "associated"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Agent:
    """A software agent identified by role, name and version (PROV-DM §5.3.1).

    Args:
        role: one of ``parser``, ``chunker``, ``embedder``, ``retriever``, ``model``,
            ``prompt_template``, ``resolver``, ``reviewer``, ``pipeline``
            (:data:`provgraph.vocab.AGENT_ROLES`; its class is the agent's third type).
        name: the tool or model identifier, e.g. ``docutils`` or ``claude-sonnet-4``.
        version: its version string; ``""`` when unknown.
        iri: the agent's IRI (content-derived by the Recorder).
    """

    role: str
    name: str
    version: str = ""
    iri: IRI = IRI("")

    @property
    def label(self) -> str:
        """``rdfs:label``: name and version, e.g. ``"docutils 0.21.2"``."""
        return f"{self.name} {self.version}".strip()


AGENT = Table(
    "agent", (PROV.Agent, PROV.SoftwareAgent),
    fields=(Field("name", PG.agentName), Field("version", PG.agentVersion, default=""),
            Field("label", RDFS.label, read=False)),
    extra_types=lambda a: [AGENT_ROLES[a.role]], record=Agent)


def role_of(types: Iterable[str]) -> str | None:
    """The role whose class is among ``types`` (``None``: none is)."""
    got = set(types)
    return next((role for role, cls in AGENT_ROLES.items() if cls in got), None)


def agent_quads(agent: Agent, graph: IRI | None) -> list[Quad]:
    """The statements of ``agent`` in ``graph``: three types, name, version, label."""
    return AGENT.quads(agent.iri, agent, graph)


def load_agents(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, Agent]:
    """The agents among ``iris`` (one query), by IRI; IRIs that name no agent with a
    known role are left out.

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = AGENT.read(store, iris)
    out: dict[IRI, Agent] = {}
    for iri, p in props.items():
        role = role_of(str(t) for t in p.get(RDF.type, []))
        if role is None:
            continue
        out[iri] = AGENT.build(p, nodes, iri, role=role, iri=iri)
    return out


def agents_of(store: ProvStore, activities: Iterable[Mapping[IRI, list[Term]]]) -> dict[IRI, Agent]:
    """The agents the given activities (predicate maps) are ``prov:wasAssociatedWith``,
    by IRI (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    return load_agents(store, sorted({IRI(a) for p in activities
                                      for a in p.get(PROV.wasAssociatedWith, [])}))


def associated(activity: Mapping[IRI, list[Term]], agents: Mapping[IRI, Agent],
               role: str) -> Agent | None:
    """The first agent with ``role`` the activity is associated with (``None``: none)."""
    return next((agents[IRI(a)] for a in activity.get(PROV.wasAssociatedWith, [])
                 if IRI(a) in agents and agents[IRI(a)].role == role), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Activity:
    """The statements every recorded activity shares (PROV-DM §5.1.1).

    Args:
        iri: the activity.
        cls: its provgraph class (``pg:Extraction``, ``pg:Retrieval``, ...).
        run: the run (bundle) it belongs to (``pg:run``).
        started_at, ended_at: aware times (``prov:startedAtTime``/``endedAtTime``); ``None``
            when not known.
        agents: its associated agents (``prov:wasAssociatedWith``), written with it.
    """

    iri: IRI
    cls: IRI
    run: IRI
    started_at: _dt.datetime | None = None
    ended_at: _dt.datetime | None = None
    agents: tuple[Agent, ...] = ()

    @property
    def agent_iris(self) -> tuple[IRI, ...]:
        """The IRIs of :attr:`agents`."""
        return tuple(a.iri for a in self.agents)


ACTIVITY = Table(
    "activity", (PROV.Activity,),
    fields=(Field("run", PG.run, "iri"), Field("started_at", PROV.startedAtTime, "datetime"),
            Field("ended_at", PROV.endedAtTime, "datetime"),
            Field("agent_iris", PROV.wasAssociatedWith, "iri", many=True, read=False)),
    extra_types=lambda a: [a.cls])


def activity_quads(activity: Activity, graph: IRI | None) -> list[Quad]:
    """The statements of ``activity`` in ``graph``: types, run, times, associations, and
    each associated agent's own statements."""
    q = ACTIVITY.quads(activity.iri, activity, graph)
    for agent in activity.agents:
        q += agent_quads(agent, graph)
    return q

