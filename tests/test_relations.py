"""The one relation table (provgraph.relations) against the places that used to restate it."""

from __future__ import annotations

import re

import rdflib

from provgraph import relations
from provgraph.relations import NOT_UPSTREAM, RELATIONS, UPSTREAM
from provgraph.resources import data_dir
from provgraph.terms import IRI
from provgraph.vocab import OA, PG, PROV, RDFS

OWL = rdflib.Namespace("http://www.w3.org/2002/07/owl#")


def _lineage_text() -> tuple[str, dict[str, str]]:
    text = (data_dir("queries") / "lineage.rq").read_text(encoding="utf-8")
    return text, dict(re.findall(r"PREFIX (\w+): <([^>]+)>", text))


def _curies(text: str, prefixes: dict[str, str]) -> list[IRI]:
    return [IRI(prefixes[p] + local) for p, local in re.findall(r"\b(\w+):(\w+)\b", text)]


def test_lineage_edges_are_exactly_the_upstream_relations_of_the_table():
    text, prefixes = _lineage_text()
    start = text.index("?relation IN (")
    listed = _curies(text[start:text.index(")", start)], prefixes)
    assert listed == list(UPSTREAM)


def _literal_valued() -> set[IRI]:
    g = rdflib.Graph().parse(data_dir("ontologies") / "rag-prov.ttl")
    pg = {IRI(str(s)) for s in g.subjects(rdflib.RDF.type, OWL.DatatypeProperty)}
    return pg | {PROV.generatedAtTime, PROV.invalidatedAtTime, PROV.startedAtTime,
                 PROV.endedAtTime, PROV.atTime, PROV.value, RDFS.label, RDFS.comment}


def test_lineage_path_skips_exactly_the_non_upstream_relations_and_literals():
    text, prefixes = _lineage_text()
    path = set(_curies(text[text.index("?entity (!("):text.index("))* ?node")], prefixes))
    assert not path & set(UPSTREAM)  # the path never skips an upstream edge
    assert NOT_UPSTREAM <= path  # nor walks a relation the table says is not upstream
    assert path - NOT_UPSTREAM <= _literal_valued()  # the rest only saves literal steps


def test_every_row_names_vocabulary_terms_and_is_unique():
    props = [r.property for r in RELATIONS]
    assert len(props) == len(set(props))
    qualified = [r.qualified for r in RELATIONS if r.qualified is not None]
    assert len(qualified) == len(set(qualified)) == 14
    for r in RELATIONS:
        for term in (r.property, r.qualified, r.qualified_class, r.influencer, r.subtype,
                     r.time_shortcut, *(p for _, p in r.roles)):
            assert term is None or term in PROV or term in PG or term in (
                relations.MENTION_OF, relations.AS_IN_BUNDLE), (r.name, term)
        assert not (r.upstream and r.shortcut), r.name
    assert set(UPSTREAM).isdisjoint(NOT_UPSTREAM)
    assert {OA.hasSelector, PG.segment, PROV.qualifiedUsage} <= set(relations.DESCRIBING)
    assert relations.DERIVATIONS == (PROV.wasDerivedFrom, PROV.wasRevisionOf,
                                     PROV.wasQuotedFrom, PROV.hadPrimarySource)


def test_the_qualified_forms_agree_with_the_prov_o_ontology_ranges():
    """Each qualified property's class is its rdfs:range in PROV-O's own terms."""
    ranges = {PROV.qualifiedGeneration: PROV.Generation, PROV.qualifiedUsage: PROV.Usage,
              PROV.qualifiedQuotation: PROV.Quotation, PROV.qualifiedRevision: PROV.Revision,
              PROV.qualifiedPrimarySource: PROV.PrimarySource,
              PROV.qualifiedDelegation: PROV.Delegation, PROV.qualifiedInfluence: PROV.Influence}
    for qualified, cls in ranges.items():
        row = relations.by_qualified(qualified)
        assert row is not None and row.qualified_class == cls
    assert relations.by_property(PROV.wasQuotedFrom).subtype == PROV.Quotation  # type: ignore[union-attr]
