"""The relation table: every PROV-DM relation and provgraph link, in one place (issue 12).

One frozen :class:`Relation` row per relation says which PROV-O property writes
it, its qualified form, the kinds of its subject and object and whether its
object is *upstream* of its subject. Everything else derives from the rows:

* the PROV-O mapping of :mod:`provgraph.io.provo` (PROV-DM record <-> quads),
* the typing and derivation tables of :mod:`provgraph.validate`,
* the closure of a lineage, which ``provgraph lineage`` (``queries/lineage.rq``,
  :func:`provgraph.analytics.lineage`), the networkx projection
  (:func:`provgraph.graph.project`) and a claim or run bundle
  (:func:`provgraph.io.bundle.export`) all walk: :data:`UPSTREAM`, plus
  :data:`DESCRIBING` for a bundle (see :func:`closure_path`).

``tests/test_relations.py`` checks that the property path of ``lineage.rq`` names
exactly :data:`UPSTREAM`, so the query file and the table cannot drift.

References: PROV-DM §5 (https://www.w3.org/TR/prov-dm/#section-prov-overview),
PROV-O §4.1 "PROV-DM to PROV-O" (https://www.w3.org/TR/prov-o/#description-qualified-terms),
PROV-Links (https://www.w3.org/TR/prov-links/) for ``mentionOf``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal as _Lit

from .terms import IRI
from .vocab import OA, PG, PROV, RDF, RDFS

__all__ = ["Kind", "Relation", "RELATIONS", "PROV_RELATIONS", "LINKS", "UPSTREAM", "DESCRIBING",
           "NOT_UPSTREAM", "DERIVATIONS", "CITES", "SHORTCUTS", "INVERSES", "BUNDLE_LEFT_OUT", "MENTION_OF",
           "AS_IN_BUNDLE", "by_property", "by_qualified", "closure_path", "missing_argument"]

Kind = _Lit["E", "A", "Ag"]
"""The PROV element kind of a relation's subject or object: entity, activity, agent."""

_P = PROV._base
MENTION_OF = IRI(_P + "mentionOf")
"""``prov:mentionOf`` (PROV-Links; not in the closed :class:`~provgraph.vocab.PROV` class)."""
AS_IN_BUNDLE = IRI(_P + "asInBundle")
"""``prov:asInBundle``, the bundle of a ``mentionOf`` (PROV-Links)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Relation:
    """One relation: a PROV-DM relation (PROV-O §4.1) or one of provgraph's own links.

    Attributes:
        name: the PROV-DM relation name (``"wasDerivedFrom"``), or the CURIE of a
            provgraph link (``"pg:citation"``).
        property: the binary property (``prov:wasDerivedFrom``) from subject to object.
        record: the ``prov`` package's record type local name (``"Derivation"``), or
            ``None`` for provgraph links. Subtypes of derivation share ``"Derivation"``.
        subject_attr: the PROV-DM formal attribute holding the subject
            (``"generatedEntity"``), ``None`` for provgraph links.
        object_attr: the formal attribute holding the object (``"usedEntity"``).
        qualified: the ``prov:qualified*`` property, or ``None`` (no qualified form).
        qualified_class: the class of the qualified node (``prov:Derivation``).
        influencer: the property of the qualified node naming the object
            (``prov:entity``, ``prov:activity``, ``prov:agent``, ``prov:influencer``).
        roles: ``(formal attribute, property of the qualified node)`` pairs of the
            optional arguments (``("time", prov:atTime)``, ``("plan", prov:hadPlan)``).
        subtype: the ``prov:type`` of a derivation subtype (``prov:Revision``), else ``None``.
        time_shortcut: the property a time-only form is written as
            (``prov:generatedAtTime``), else ``None``.
        subject: the kind of the subject (``"E"``, ``"A"``, ``"Ag"``), ``None`` when any.
        object: the kind of the object, ``None`` when any.
        derivation: a derivation or one of its subtypes (PROV-CONSTRAINTS C42 walks these).
        upstream: the object is upstream of the subject (it points to the past):
            a lineage follows it.
        cites: on the path from a claim to the snapshots it cites (``pg:citedSnapshot``).
        shortcut: a one-hop summary written at record time of a path that the
            upstream relations already hold (``pg:citedSnapshot``); not followed.
        object_expandable: the object argument may be the placeholder ``-``, read as
            "some unknown one" (PROV-CONSTRAINTS §5.1 Table 3, "expandable"):
            a generation's or invalidation's activity, a start's or end's trigger, an
            association's agent; then at least one of the id, the object, the optional
            arguments (:attr:`roles`) and an attribute must be given (PROV-DM §5.1,
            PROV-N §3.3). Every other PROV-DM object argument is mandatory, so a
            qualified node without it is invalid (:mod:`provgraph.validate`), and an
            import refuses the record (:func:`missing_argument`).
        non_expandable: formal attributes (names from :attr:`roles`) whose ``-`` means
            "none", not "unknown" (PROV-CONSTRAINTS §5.1 Table 3): an association's
            plan, a delegation's activity. Such a ``-`` does not merge with a value under
            the same relation id (Constraint 23). A derivation's activity, generation
            and usage follow PROV-CONSTRAINTS Definition 4 instead (``pg:imprecise``).
        role: PROV-DM lets the relation carry ``prov:role`` (PROV-DM §5.7.2.3: usage,
            generation, invalidation, association, start, end).
    """

    name: str
    property: IRI
    record: str | None = None
    subject_attr: str | None = None
    object_attr: str | None = None
    qualified: IRI | None = None
    qualified_class: IRI | None = None
    influencer: IRI | None = None
    roles: tuple[tuple[str, IRI], ...] = ()
    subtype: IRI | None = None
    time_shortcut: IRI | None = None
    subject: Kind | None = None
    object: Kind | None = None
    derivation: bool = False
    upstream: bool = False
    cites: bool = False
    shortcut: bool = False
    object_expandable: bool = False
    non_expandable: tuple[str, ...] = ()
    role: bool = False


_T = (("time", PROV.atTime),)
_DERIVATION_ROLES = (("activity", PROV.hadActivity), ("generation", PROV.hadGeneration),
                     ("usage", PROV.hadUsage))


def _derivation(name: str, prop: IRI, qualified: IRI, cls: IRI, subtype: IRI | None,
                cites: bool = False) -> Relation:
    return Relation(name=name, property=prop, record="Derivation",
                    subject_attr="generatedEntity", object_attr="usedEntity",
                    qualified=qualified, qualified_class=cls, influencer=PROV.entity,
                    roles=_DERIVATION_ROLES, subtype=subtype, subject="E", object="E",
                    derivation=True, upstream=True, cites=cites)


PROV_RELATIONS: tuple[Relation, ...] = (
    Relation(name="wasGeneratedBy", property=PROV.wasGeneratedBy, record="Generation",
             subject_attr="entity", object_attr="activity", qualified=PROV.qualifiedGeneration,
             qualified_class=PROV.Generation, influencer=PROV.activity, roles=_T,
             time_shortcut=PROV.generatedAtTime, subject="E", object="A", upstream=True,
             object_expandable=True, role=True),
    Relation(name="used", property=PROV.used, record="Usage", subject_attr="activity",
             object_attr="entity", qualified=PROV.qualifiedUsage, qualified_class=PROV.Usage,
             influencer=PROV.entity, roles=_T, subject="A", object="E", upstream=True,
             role=True),
    Relation(name="wasInformedBy", property=PROV.wasInformedBy, record="Communication",
             subject_attr="informed", object_attr="informant",
             qualified=PROV.qualifiedCommunication, qualified_class=PROV.Communication,
             influencer=PROV.activity, subject="A", object="A", upstream=True),
    Relation(name="wasStartedBy", property=PROV.wasStartedBy, record="Start",
             subject_attr="activity", object_attr="trigger", qualified=PROV.qualifiedStart,
             qualified_class=PROV.Start, influencer=PROV.entity,
             roles=(("starter", PROV.hadActivity), *_T), subject="A", object="E", upstream=True,
             object_expandable=True, role=True),
    Relation(name="wasEndedBy", property=PROV.wasEndedBy, record="End",
             subject_attr="activity", object_attr="trigger", qualified=PROV.qualifiedEnd,
             qualified_class=PROV.End, influencer=PROV.entity,
             roles=(("ender", PROV.hadActivity), *_T), subject="A", object="E", upstream=True,
             object_expandable=True, role=True),
    # an invalidation happens after the entity existed: downstream, never in a lineage
    Relation(name="wasInvalidatedBy", property=PROV.wasInvalidatedBy, record="Invalidation",
             subject_attr="entity", object_attr="activity",
             qualified=PROV.qualifiedInvalidation, qualified_class=PROV.Invalidation,
             influencer=PROV.activity, roles=_T, time_shortcut=PROV.invalidatedAtTime,
             subject="E", object="A", object_expandable=True, role=True),
    _derivation("wasDerivedFrom", PROV.wasDerivedFrom, PROV.qualifiedDerivation,
                PROV.Derivation, None, cites=True),
    _derivation("wasRevisionOf", PROV.wasRevisionOf, PROV.qualifiedRevision, PROV.Revision,
                PROV.Revision),
    _derivation("wasQuotedFrom", PROV.wasQuotedFrom, PROV.qualifiedQuotation, PROV.Quotation,
                PROV.Quotation),
    _derivation("hadPrimarySource", PROV.hadPrimarySource, PROV.qualifiedPrimarySource,
                PROV.PrimarySource, PROV.PrimarySource),
    Relation(name="wasAttributedTo", property=PROV.wasAttributedTo, record="Attribution",
             subject_attr="entity", object_attr="agent", qualified=PROV.qualifiedAttribution,
             qualified_class=PROV.Attribution, influencer=PROV.agent, subject="E", object="Ag",
             upstream=True),
    Relation(name="wasAssociatedWith", property=PROV.wasAssociatedWith, record="Association",
             subject_attr="activity", object_attr="agent", qualified=PROV.qualifiedAssociation,
             qualified_class=PROV.Association, influencer=PROV.agent,
             roles=(("plan", PROV.hadPlan),), subject="A", object="Ag", upstream=True,
             object_expandable=True, non_expandable=("plan",), role=True),
    Relation(name="actedOnBehalfOf", property=PROV.actedOnBehalfOf, record="Delegation",
             subject_attr="delegate", object_attr="responsible",
             qualified=PROV.qualifiedDelegation, qualified_class=PROV.Delegation,
             influencer=PROV.agent, roles=(("activity", PROV.hadActivity),), subject="Ag",
             object="Ag", upstream=True, non_expandable=("activity",)),
    Relation(name="wasInfluencedBy", property=PROV.wasInfluencedBy, record="Influence",
             subject_attr="influencee", object_attr="influencer",
             qualified=PROV.qualifiedInfluence, qualified_class=PROV.Influence,
             influencer=PROV.influencer, upstream=True),
    Relation(name="specializationOf", property=PROV.specializationOf, record="Specialization",
             subject_attr="specificEntity", object_attr="generalEntity", subject="E",
             object="E", upstream=True),
    # symmetric: an alternate is another aspect of the same thing, not its past
    Relation(name="alternateOf", property=PROV.alternateOf, record="Alternate",
             subject_attr="alternate1", object_attr="alternate2", subject="E", object="E"),
    Relation(name="hadMember", property=PROV.hadMember, record="Membership",
             subject_attr="collection", object_attr="entity", subject="E", object="E",
             upstream=True),
    Relation(name="mentionOf", property=MENTION_OF, record="Mention",
             subject_attr="specificEntity", object_attr="generalEntity", subject="E",
             object="E", upstream=True),
    Relation(name="asInBundle", property=AS_IN_BUNDLE, record="Mention",
             subject_attr="specificEntity", object_attr="bundle", subject="E", object="E",
             upstream=True),
)
"""The PROV-DM relations (PROV-DM §5, PROV-O §4.1, PROV-Links), in PROV-DM order."""

LINKS: tuple[Relation, ...] = (
    Relation(name="pg:answer", property=PG.answer, subject="E", object="E", upstream=True),
    Relation(name="pg:citation", property=PG.citation, subject="E", object="E", upstream=True,
             cites=True),
    Relation(name="pg:target", property=PG.target, subject="E", object="E", upstream=True,
             cites=True),
    Relation(name="pg:resolvedSnapshot", property=PG.resolvedSnapshot, subject="E", object="E",
             upstream=True),
    Relation(name="pg:resolvedRegion", property=PG.resolvedRegion, subject="E", object="E",
             upstream=True),
    Relation(name="pg:segmentSource", property=PG.segmentSource, object="E", upstream=True),
    Relation(name="pg:aidUsed", property=PG.aidUsed, subject="A", object="E", upstream=True),
    Relation(name="pg:reviewOf", property=PG.reviewOf, subject="A", object="E", upstream=True),
    Relation(name="pg:sawSnapshot", property=PG.sawSnapshot, subject="A", object="E",
             upstream=True),
    Relation(name="pg:inTable", property=PG.inTable, subject="E", object="E", upstream=True),
    Relation(name="pg:document", property=PG.document, subject="E", object="E", shortcut=True),
    Relation(name="pg:citedSnapshot", property=PG.citedSnapshot, subject="E", object="E",
             shortcut=True),
    Relation(name="pg:supportAgent", property=PG.supportAgent, subject="E", object="Ag",
             shortcut=True),
    # downstream or bookkeeping: what a packing left out, the text an extraction made,
    # the run a resource was recorded in
    Relation(name="pg:omitted", property=PG.omitted),
    Relation(name="pg:extractedText", property=PG.extractedText),
    Relation(name="pg:run", property=PG.run),
)
"""provgraph's own links between recorded resources (``ontologies/rag-prov.ttl``)."""

RELATIONS: tuple[Relation, ...] = PROV_RELATIONS + LINKS
"""Every row: the PROV-DM relations, then provgraph's links."""

UPSTREAM: tuple[IRI, ...] = tuple(r.property for r in RELATIONS if r.upstream)
"""Properties whose object is upstream of their subject, in table order: the edges of a
lineage (``lineage.rq``, the networkx projection, a bundle's closure)."""

DESCRIBING: tuple[IRI, ...] = (
    *(r.qualified for r in PROV_RELATIONS if r.qualified is not None),
    PROV.hadGeneration, PROV.hadUsage, OA.hasSelector, PG.segment)
"""Properties to nodes that only describe their subject: qualified influence nodes (and
the generation and usage nodes a qualified derivation names), Web Annotation selectors
and ``pg:Segment`` nodes. A bundle carries them; a lineage does not list them as nodes."""

INVERSES: frozenset[IRI] = frozenset({IRI(_P + "generated"), IRI(_P + "invalidated"),
                                      IRI(_P + "influenced")})
"""PROV-O's inverse (downstream) forms (PROV-O §4.2 "inverse names"), never upstream."""

NOT_UPSTREAM: frozenset[IRI] = frozenset(
    {RDF.type, RDFS.seeAlso} | INVERSES | set(DESCRIBING)
    | {r.property for r in RELATIONS if not r.upstream})
"""Properties to IRIs that are not upstream links: the table's rows that are not upstream
(invalidation, ``alternateOf``, shortcuts, bookkeeping), :data:`DESCRIBING`,
:data:`INVERSES`, ``rdf:type`` and ``rdfs:seeAlso``. ``lineage.rq``'s path skips these
(and literal-valued properties) in one negated property set; see :data:`UPSTREAM`."""

DERIVATIONS: tuple[IRI, ...] = tuple(r.property for r in RELATIONS if r.derivation)
"""``wasDerivedFrom`` and its subtypes' properties (PROV-CONSTRAINTS C42)."""

CITES: frozenset[IRI] = frozenset(r.property for r in RELATIONS if r.cites)
"""The relations a claim's cited snapshots are reached by (``pg:citedSnapshot``)."""

SHORTCUTS: frozenset[IRI] = frozenset(r.property for r in RELATIONS if r.shortcut)

BUNDLE_LEFT_OUT: frozenset[IRI] = frozenset(
    {p for r in RELATIONS if r.name == "wasInvalidatedBy"
     for p in (r.property, r.qualified, r.time_shortcut) if p is not None}
    | {IRI(_P + "generated"), IRI(_P + "invalidated")})
"""Statements a bundle leaves out even about its own resources: invalidations (whether a
source went stale is ``provgraph stale``'s question) and the inverse generation forms."""

_BY_PROPERTY = {r.property: r for r in RELATIONS}
_BY_QUALIFIED = {r.qualified: r for r in RELATIONS if r.qualified is not None}


def by_property(prop: str) -> Relation | None:
    """The row whose binary property is ``prop``, or ``None``."""
    return _BY_PROPERTY.get(IRI(prop))


def by_qualified(prop: str) -> Relation | None:
    """The row whose ``prov:qualified*`` property is ``prop``, or ``None``."""
    return _BY_QUALIFIED.get(IRI(prop))


def closure_path(props: tuple[IRI, ...] = UPSTREAM) -> str:
    """A SPARQL 1.1 alternative path over ``props`` (full IRIs): ``(<a>|<b>|...)``.

    ``lineage.rq`` spells the same path with prefixes; the bundle's closure query
    (:func:`provgraph.io.bundle.lineage_closure`) builds it with this function.

    Example:
        >>> closure_path((PROV.used,))
        '(<http://www.w3.org/ns/prov#used>)'
    """
    return "(" + "|".join(f"<{p}>" for p in props) + ")"


def missing_argument(rel: Relation, given: Collection[str], attributes: bool,
                     identified: bool = False) -> str | None:
    """What a record of ``rel`` lacks that PROV-DM requires, or ``None`` when nothing.

    The one rule every PROV format's import applies (PROV-N, PROV-JSON, PROV-XML through
    :mod:`provgraph.io.provo`, and a PROV-O qualified node): the subject and, unless
    :attr:`Relation.object_expandable`, the object are mandatory; a relation whose object
    may be ``-`` needs at least one of its id, the object, its optional arguments and
    an attribute (PROV-DM §5.1.3 for generation; PROV-N §3.3.1: "wasGeneratedBy(e2, -, -)
    ... [is] not valid ... since at least one of id, a, t, or attributes must be
    present").

    Args:
        rel: a row of :data:`PROV_RELATIONS`.
        given: the PROV-DM names of the formal arguments present (``"informed"``,
            ``"time"``); the record's id does not count.
        attributes: whether the record has any attribute.
        identified: whether the record has an id (a PROV-O qualified node that is an IRI).

    Returns:
        A phrase naming PROV-DM's argument(s), e.g. ``"no informant"`` or ``"no id,
        no activity, no time and no attribute"``, for the caller's message.

    Example:
        >>> missing_argument(by_property(PROV.wasInformedBy), {"informed"}, False)
        'no informant'
        >>> missing_argument(by_property(PROV.wasGeneratedBy), {"entity"}, False)
        'no id, no activity, no time and no attribute'
        >>> missing_argument(by_property(PROV.wasGeneratedBy), {"entity", "time"}, False) is None
        True
    """
    for attr in (rel.subject_attr, None if rel.object_expandable else rel.object_attr):
        if attr is not None and attr not in given:
            return f"no {attr}"
    if rel.object_expandable:
        optional = [a for a in (rel.object_attr, *(r for r, _ in rel.roles)) if a is not None]
        if not (attributes or identified or any(a in given for a in optional)):
            return "no id, no " + ", no ".join(optional) + " and no attribute"
    return None
