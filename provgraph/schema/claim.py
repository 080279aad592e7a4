"""Claims (``pg:Claim``): spans of an answer, with their kind, status and, for a
derivation, their operands and warrant.

A claim holds code points ``[start, end)`` (end-exclusive) of its answer's
``pg:text``. A derivation's operands are ``prov:wasDerivedFrom`` the claim, each with
a qualified ``prov:Derivation`` node ``<claim>#derivation-<i>`` carrying the warrant
(``pg:warrant``: the formula or inference rule; PROV-O §3.3 qualified terms). The two
provenance shortcuts (``pg:supportAgent``, ``pg:citedSnapshot``; :mod:`provgraph._support`)
are written at record time and read back here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..store import ProvStore
from ..terms import IRI, Quad, Term
from ..vocab import PG, PROV
from ._table import Field, Part, Table

__all__ = ["Derivation", "ClaimRecord", "CLAIM", "to_quads", "shortcut_quads", "load",
           "claims_of_runs"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Derivation:
    """One operand of a derivation claim (a qualified ``prov:Derivation``).

    Args:
        entity: the operand (a claim, chunk or other entity).
        warrant: the formula or inference rule, ``None`` if none was given.
    """

    entity: IRI
    warrant: str | None = None


_DERIVATION = Table("derivation", (PROV.Derivation,),
                    fields=(Field("entity", PROV.entity, "iri"), Field("warrant", PG.warrant)),
                    record=Derivation)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimRecord:
    """A claim: code points ``[start, end)`` of an answer's text.

    Args:
        iri: the claim.
        answer: the answer it is a span of (``pg:answer``).
        start, end: end-exclusive code point offsets into the answer text.
        text: the claim text.
        kind: ``quotation``, ``paraphrase``, ``derivation`` or ``abstention``.
        status: ``supported``, ``partially_supported``, ``unsupported`` or ``uncertain``.
        run: the run it belongs to (``pg:run``), ``""`` when unknown.
        generation: the generation activity of its answer, ``None`` when not known.
        derivations: the operands of a derivation, in order.
        support_agents, cited_snapshots: the provenance shortcuts, sorted.
    """

    iri: IRI
    answer: IRI
    start: int
    end: int
    text: str
    kind: str
    status: str
    run: IRI = IRI("")
    generation: IRI | None = None
    derivations: tuple[Derivation, ...] = ()
    support_agents: tuple[IRI, ...] = ()
    cited_snapshots: tuple[IRI, ...] = ()

    @property
    def derived_from(self) -> tuple[IRI, ...]:
        """The derivation operands' IRIs, in order."""
        return tuple(d.entity for d in self.derivations)

    @property
    def warrant(self) -> str | None:
        """The warrant of the first operand (every operand carries the same one)."""
        return self.derivations[0].warrant if self.derivations else None


CLAIM = Table(
    "claim", (PROV.Entity, PG.Claim),
    fields=(Field("answer", PG.answer, "iri"), Field("start", PG.start, "int"),
            Field("end", PG.end, "int"), Field("text", PG.text), Field("kind", PG.claimKind),
            Field("status", PG.claimStatus), Field("run", PG.run, "iri"),
            Field("generation", PROV.wasGeneratedBy, "iri"),
            Field("derived_from", PROV.wasDerivedFrom, "iri", many=True, read=False),
            Field("support_agents", PG.supportAgent, "iri", many=True),
            Field("cited_snapshots", PG.citedSnapshot, "iri", many=True)),
    parts=(Part("derivations", PROV.qualifiedDerivation, "#derivation-{i}", _DERIVATION, many=True),))


def to_quads(rec: ClaimRecord, graph: IRI | None) -> list[Quad]:
    """The claim's statements, its derivation nodes and its shortcuts, in ``graph``."""
    return CLAIM.quads(rec.iri, rec, graph)


def shortcut_quads(claim: IRI, agents: Sequence[IRI], snapshots: Sequence[IRI],
                   graph: IRI | None) -> list[Quad]:
    """Further shortcut statements of ``claim`` (a citation adds its target's support)."""
    return ([(claim, PG.supportAgent, a, graph) for a in agents]
            + [(claim, PG.citedSnapshot, s, graph) for s in snapshots])


def _record(iri: IRI, p: dict[IRI, list[Term]], nodes: dict[IRI, dict[IRI, list[Term]]]) -> ClaimRecord:
    v = CLAIM.decode(p, nodes, iri)
    return ClaimRecord(iri=iri, answer=v["answer"] or IRI(""),
                       start=v["start"] if isinstance(v["start"], int) else 0,
                       end=v["end"] if isinstance(v["end"], int) else 0, text=v["text"] or "",
                       kind=v["kind"] or "", status=v["status"] or "", run=v["run"] or IRI(""),
                       generation=v["generation"], derivations=v["derivations"],
                       support_agents=v["support_agents"], cited_snapshots=v["cited_snapshots"])


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, ClaimRecord]:
    """The claims among ``iris``, by IRI (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = CLAIM.read_typed(store, iris, PG.Claim)
    return {i: _record(i, p, nodes) for i, p in props.items()}


_CLAIMS_OF_RUN = """SELECT ?claim ?g WHERE { GRAPH ?g { ?claim a <%s> } }""" % PG.Claim


def claims_of_runs(store: ProvStore, runs: Sequence[IRI] | None = None) -> list[IRI]:
    """The claims recorded in the graphs ``runs`` (``None``: every graph), sorted (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    rows = (store.select(_CLAIMS_OF_RUN, values=("g", list(runs)), source="provgraph.schema.claim")
            if runs is not None else store.select(_CLAIMS_OF_RUN, source="provgraph.schema.claim"))
    return sorted({IRI(r["claim"]) for r in rows if isinstance(r["claim"], IRI)})
