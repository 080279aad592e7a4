"""Reviews and adjudications of claims (issue 18 part 4): reviewers, verdicts, and the
activities that make them.

PROV modelling (PROV-O §3; PROV-DM §5.3 agents, §5.7.4.4 roles):

* the reviewer is a ``pg:Reviewer`` agent, also typed ``prov:Person`` or, for a model
  judge, ``prov:SoftwareAgent``; its IRI is content-derived from name, version and kind;
* a review is a ``pg:Review`` activity (an adjudication a ``pg:Adjudication``, the same
  record with another class): ``prov:wasAssociatedWith`` the reviewer, with a qualified
  ``prov:Association`` node ``<activity>#association`` carrying ``prov:agent`` and
  ``prov:hadRole`` (PROV-DM allows a role on an association, not on an attribution); the
  role is a ``prov:Role`` IRI ``urn:provgraph:role:<name>`` with an ``rdfs:label``;
  ``prov:startedAtTime`` (an aware ``xsd:dateTime``); ``pg:policy`` the review policy and
  version; ``pg:reviewOf`` the claim and ``pg:sawSnapshot`` the snapshot the reviewer read,
  each also written as ``prov:used``; an adjudication also ``prov:used`` the verdicts it
  weighed; ``prov:generated`` each verdict;
* each verdict is a ``pg:Verdict`` entity ``<activity>#verdict-<kind>`` with
  ``pg:verdictKind`` and ``pg:verdictValue`` (:data:`provgraph.vocab.REVIEW_VERDICTS`),
  ``prov:wasGeneratedBy`` the activity and ``prov:wasAttributedTo`` the reviewer; an
  adjudication's verdict is ``prov:wasDerivedFrom`` the reviews' verdicts of its kind.

:func:`load` reads any number of reviews and adjudications with two queries (the
activities with their parts, then their reviewers); :func:`reviews_of` adds one.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote, unquote

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Literal, Quad, Term, lit
from ..vocab import PG, PROV, RDF, RDFS
from ._table import Field, Part, Props, Table

__all__ = ["Reviewer", "Verdict", "ReviewRecord", "REVIEW", "REVIEWER", "VERDICT", "ROLE_PREFIX",
           "reviewer_iri", "role_iri", "to_quads", "load", "reviews_of", "reviewed_claims"]

GENERATED = IRI(PROV._base + "generated")
"""``prov:generated``, the inverse name of ``prov:wasGeneratedBy`` (PROV-O §3.2, not in the
closed :class:`~provgraph.vocab.PROV` class): the link from an activity to its verdicts, written
with each verdict's own ``prov:wasGeneratedBy``."""

ROLE_PREFIX = "urn:provgraph:role:"
"""Reviewer role IRIs are this prefix plus the percent-encoded role name."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reviewer:
    """A person or a model that reviews claims.

    Args:
        name: who: a person's name or handle, or a model id (not empty).
        version: the model version; ``""`` for a person.
        model: ``True`` for a software judge (``prov:SoftwareAgent``), ``False`` for a
            person (``prov:Person``).
        iri: the agent's IRI (default: content-derived, :func:`reviewer_iri`).
    """

    name: str
    version: str = ""
    model: bool = False
    iri: IRI = IRI("")

    @property
    def label(self) -> str:
        """``rdfs:label``: name and version."""
        return f"{self.name} {self.version}".strip()


def reviewer_iri(name: str, version: str, model: bool) -> IRI:
    """The content-derived IRI of a reviewer (the same reviewer twice is one agent)."""
    return ids.content_iri("reviewer", name, version, "model" if model else "person")


def role_iri(role: str) -> IRI:
    """The ``prov:Role`` IRI of a role name: ``urn:provgraph:role:`` + percent-encoded name."""
    return IRI(ROLE_PREFIX + quote(role, safe=""))


REVIEWER = Table(
    "reviewer", (PROV.Agent, PG.Reviewer),
    fields=(Field("name", PG.agentName), Field("version", PG.agentVersion, default=""),
            Field("label", RDFS.label, read=False)),
    extra_types=lambda r: [PROV.SoftwareAgent if r.model else PROV.Person])


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """One verdict (a ``pg:Verdict`` entity).

    Args:
        kind: one of :data:`provgraph.vocab.REVIEW_VERDICTS`.
        value: one of the values of ``kind``.
        activity: the review or adjudication that made it (``prov:wasGeneratedBy``).
        reviewer: its reviewer (``prov:wasAttributedTo``).
        derived_from: for an adjudication, the reviews' verdicts it resolves
            (``prov:wasDerivedFrom``), sorted.
        iri: the verdict entity (``<activity>#verdict-<kind>``; filled when read).
    """

    kind: str
    value: str
    activity: IRI = IRI("")
    reviewer: IRI = IRI("")
    derived_from: tuple[IRI, ...] = ()
    iri: IRI = IRI("")


VERDICT = Table(
    "verdict", (PROV.Entity, PG.Verdict),
    fields=(Field("kind", PG.verdictKind), Field("value", PG.verdictValue),
            Field("activity", PROV.wasGeneratedBy, "iri"),
            Field("reviewer", PROV.wasAttributedTo, "iri"),
            Field("derived_from", PROV.wasDerivedFrom, "iri", many=True)))

_ASSOCIATION = Table("review-association", (PROV.Association,),
                     fields=(Field("reviewer_iri", PROV.agent, "iri"),
                             Field("role_iri", PROV.hadRole, "iri")))


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewRecord:
    """A review (``pg:Review``) or adjudication (``pg:Adjudication``) of one claim.

    Args:
        iri: the activity.
        adjudication: ``True`` for a ``pg:Adjudication``.
        claim: the claim judged (``pg:reviewOf``).
        reviewer: who judged.
        role: the reviewer's role in this activity (``prov:hadRole``), e.g. ``annotator``.
        at: when (``prov:startedAtTime``), an aware datetime.
        policy: the review policy and version (``pg:policy``), ``None`` when not given.
        saw: the source snapshot the reviewer read (``pg:sawSnapshot``), ``None`` when not given.
        verdicts: the verdicts made, sorted by kind.
        weighed: for an adjudication, the review verdicts it ``prov:used``, sorted.
        run: the run (graph) it is recorded in (``pg:run``).
    """

    iri: IRI
    adjudication: bool
    claim: IRI
    reviewer: Reviewer
    role: str
    at: _dt.datetime
    policy: str | None = None
    saw: IRI | None = None
    verdicts: tuple[Verdict, ...] = ()
    weighed: tuple[IRI, ...] = ()
    run: IRI = IRI("")

    @property
    def reviewer_iri(self) -> IRI:
        """The reviewer's IRI."""
        return self.reviewer.iri

    @property
    def role_iri(self) -> IRI:
        """The role's ``prov:Role`` IRI."""
        return role_iri(self.role)

    @property
    def used(self) -> tuple[IRI, ...]:
        """Everything the activity ``prov:used``: the claim, the snapshot seen, the verdicts weighed."""
        return (self.claim, *((self.saw,) if self.saw else ()), *self.weighed)


REVIEW = Table(
    "review", (PROV.Activity,),
    fields=(Field("run", PG.run, "iri"), Field("at", PROV.startedAtTime, "datetime"),
            Field("policy", PG.policy), Field("claim", PG.reviewOf, "iri"),
            Field("saw", PG.sawSnapshot, "iri"),
            Field("used", PROV.used, "iri", many=True),
            Field("reviewer_iri", PROV.wasAssociatedWith, "iri")),
    parts=(Part("reviewer_iri", PROV.qualifiedAssociation, "#association", _ASSOCIATION),
           Part("verdicts", GENERATED, "#verdict-{key}", VERDICT, many=True, key="kind")),
    extra_types=lambda r: [PG.Adjudication if r.adjudication else PG.Review])


def to_quads(rec: ReviewRecord, graph: IRI | None) -> list[Quad]:
    """The statements of a review or adjudication in ``graph``: the activity, its
    association, its verdicts, its reviewer and the role."""
    q = REVIEW.quads(rec.iri, rec, graph)
    q += REVIEWER.quads(rec.reviewer.iri, rec.reviewer, graph)
    q += [(rec.role_iri, RDF.type, PROV.Role, graph), (rec.role_iri, RDFS.label, lit(rec.role), graph)]
    return q


def _role_name(iri: object) -> str:
    s = str(iri or "")
    return unquote(s[len(ROLE_PREFIX):]) if s.startswith(ROLE_PREFIX) else s


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, ReviewRecord]:
    """The reviews and adjudications among ``iris``, by IRI (two queries: the activities
    with their association and verdict nodes, then their reviewers).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, graphs = REVIEW.read(store, iris)
    props = {s: p for s, p in props.items()
             if {PG.Review, PG.Adjudication} & set(p.get(RDF.type, []))}
    agents = {a for p in props.values() for a in p.get(PROV.wasAssociatedWith, [])}
    aprops, _, _ = REVIEWER.read(store, sorted(IRI(a) for a in agents))
    out: dict[IRI, ReviewRecord] = {}
    for s, p in props.items():
        v = REVIEW.decode(p, nodes, s)
        who = IRI(v["reviewer_iri"] or "")
        ap = aprops.get(who, {})
        names = ap.get(PG.agentName, [])
        versions = ap.get(PG.agentVersion, [])
        reviewer = Reviewer(name=_value(names[0]) if names else "",
                            version=_value(versions[0]) if versions else "",
                            model=PROV.SoftwareAgent in ap.get(RDF.type, []), iri=who)
        mine = {IRI(t) for t in p.get(GENERATED, [])}
        verdicts = tuple(sorted((_verdict(node, n, s, who) for node, n in nodes.items()
                                 if node in mine and PG.Verdict in n.get(RDF.type, [])),
                                key=lambda x: x.kind))
        claim, saw = IRI(v["claim"] or ""), v["saw"]
        weighed = tuple(sorted(IRI(u) for u in v["used"] if u not in (claim, saw)))
        out[s] = ReviewRecord(iri=s, adjudication=PG.Adjudication in p.get(RDF.type, []),
                              claim=claim, reviewer=reviewer, role=_role_name(v["role_iri"]),
                              at=v["at"], policy=v["policy"], saw=IRI(saw) if saw else None,
                              verdicts=verdicts, weighed=weighed,
                              run=IRI(v["run"] or graphs.get(s) or ""))
    return out


def _value(t: Term) -> str:
    return t.value if isinstance(t, Literal) else str(t)


def _verdict(node: IRI, n: Props, activity: IRI, reviewer: IRI) -> Verdict:
    v = VERDICT.decode(n, {}, node)
    return Verdict(kind=v["kind"] or "", value=v["value"] or "", activity=activity,
                   reviewer=reviewer, derived_from=v["derived_from"], iri=node)


_REVIEWS_OF = f"SELECT ?review ?claim WHERE {{ ?review <{PG.reviewOf}> ?claim }}"


def reviews_of(store: ProvStore, claims: Sequence[IRI]) -> list[ReviewRecord]:
    """The reviews and adjudications of ``claims``, oldest first (three queries).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    if not claims:
        return []
    rows = store.select(_REVIEWS_OF, values=("claim", list(dict.fromkeys(claims))),
                        source="provgraph.schema.review")
    found = load(store, sorted({IRI(r["review"]) for r in rows if isinstance(r["review"], IRI)}))
    return sorted(found.values(), key=lambda r: (r.at, r.iri))


_REVIEWED = (f"SELECT DISTINCT ?claim WHERE {{ ?review <{PG.reviewOf}> ?claim ; "
             f"a <{PG.Review}> }}")


def reviewed_claims(store: ProvStore) -> set[IRI]:
    """Every claim at least one ``pg:Review`` is ``pg:reviewOf`` (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    return {IRI(r["claim"]) for r in store.select(_REVIEWED, source="provgraph.schema.review")
            if isinstance(r["claim"], IRI)}
