"""Helpers for the interchange tests: graph comparison and the PROV-DM normal form."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from provgraph.store import canonical_nquads
from provgraph.terms import BNode, IRI, Literal, Quad

PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"
QUALIFIED_SLOT = {
    "qualifiedGeneration": "activity", "qualifiedUsage": "entity",
    "qualifiedCommunication": "activity", "qualifiedStart": "entity", "qualifiedEnd": "entity",
    "qualifiedInvalidation": "activity", "qualifiedDerivation": "entity",
    "qualifiedAttribution": "agent", "qualifiedAssociation": "agent",
    "qualifiedDelegation": "agent", "qualifiedInfluence": "influencer",
}


PROV_PARSED = frozenset({"http://www.w3.org/2001/XMLSchema#dateTime"})
"""Datatypes whose lexical form a PROV-DM format (PROV-JSON, PROV-N, PROV-XML) may not
keep: the times that are formal arguments (``wasGeneratedBy(e, a, T)``, an activity's
start and end) are read by the ``prov`` package (3.2.3) into Python ``datetime`` values;
provgraph gives each back the form its document writes it in
(:func:`provgraph.io._prov.formal_time_forms`), except one value written two ways in one
document, which is stored canonical. Attribute values keep their form in every datatype
(issue 15: :data:`provgraph.io._prov.PARSED_TYPES`)."""


def prov_values(quads: Iterable[Quad]) -> list[Quad]:
    """``quads`` with the literals of :data:`PROV_PARSED` datatypes in the canonical form
    of their value (:func:`provgraph.xsd.canonical`), datatype kept: what a PROV-DM
    format can be compared on."""
    from provgraph.xsd import canonical

    out = []
    for s, p, o, g in quads:
        if isinstance(o, Literal) and o.datatype in PROV_PARSED:
            o = Literal(canonical(o).value, o.datatype)
        out.append((s, p, o, g))
    return out


def canon(quads: Iterable[Quad]) -> str:
    """Canonical N-Quads (blank nodes canonicalized by pyoxigraph)."""
    return canonical_nquads(list(quads))


def prov_normal_form(quads: Iterable[Quad]) -> str:
    """Canonical N-Quads after the three differences PROV-DM cannot represent:

    1. ``xsd:dateTime`` lexical forms become ``datetime.isoformat()`` of their value
       (the prov package parses times; ``.109`` and ``.109000`` are one value);
    2. an anonymous qualified influence node that carries nothing but its class and
       its object is dropped (PROV-DM has no anonymous, attribute-free qualified
       relation distinct from the binary one, which is kept);
    3. ``rdf:type`` with a literal object (as prov's own PROV-O writer emits for
       non-name ``prov:type`` values) becomes ``prov:type``.
    """
    from prov.model.records import parse_xsd_datetime

    qs = list(quads)
    by_node: dict[object, list[Quad]] = defaultdict(list)
    for q in qs:
        by_node[(q[0], q[3])].append(q)
    drop: set[Quad] = set()
    for s, p, o, g in qs:
        if not (p.startswith(PROV + "qualified") and isinstance(o, BNode)):
            continue
        slot = QUALIFIED_SLOT.get(p[len(PROV):])
        own = by_node.get((o, g), [])
        allowed = {RDF_TYPE, PROV + slot} if slot else set()
        if slot and all(x[1] in allowed for x in own) and sum(x[1] == PROV + slot for x in own) == 1:
            drop.add((s, p, o, g))
            drop.update(own)
    out = []
    for s, p, o, g in qs:
        if (s, p, o, g) in drop:
            continue
        if isinstance(o, Literal) and o.datatype == XSD_DATETIME:
            parsed = parse_xsd_datetime(o.value)
            if parsed is not None:
                o = Literal(parsed.isoformat(), XSD_DATETIME)
        if p == RDF_TYPE and isinstance(o, Literal):
            p = IRI(PROV + "type")
        out.append((s, p, o, g))
    return canonical_nquads(out)
