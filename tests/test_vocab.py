"""Drift tests: vocab.PG against ontologies/rag-prov.ttl, and the SHACL shapes against both."""

from __future__ import annotations

import pyshacl
import pytest
import rdflib
from pyshacl.entrypoints import meta_validate
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SH

from provgraph import vocab
from provgraph.recorder import SEGMENT_ORIGINS
from provgraph.resources import ontology_text
from provgraph.vocab import PG

PG_NS = PG._base
PROV_NS = "http://www.w3.org/ns/prov#"
PGSH = rdflib.Namespace("https://w3id.org/provgraph/shapes#")


@pytest.fixture(scope="module")
def ontology() -> rdflib.Graph:
    return rdflib.Graph().parse(data=ontology_text("rag-prov.ttl"), format="turtle")


@pytest.fixture(scope="module")
def shapes() -> rdflib.Graph:
    return rdflib.Graph().parse(data=ontology_text("rag-shapes.ttl"), format="turtle")


def declared_pg_terms(g: rdflib.Graph) -> set[str]:
    return {str(s) for s in g.subjects(RDF.type, None)
            if isinstance(s, rdflib.URIRef) and str(s).startswith(PG_NS)}


def test_every_vocab_term_is_declared_with_label_and_comment(ontology):
    declared = declared_pg_terms(ontology)
    missing = [t for t in PG._terms if PG_NS + t not in declared]
    assert missing == [], f"vocab.PG terms not declared in rag-prov.ttl: {missing}"
    unlabelled = [t for t in PG._terms
                  if ontology.value(rdflib.URIRef(PG_NS + t), RDFS.label) is None]
    assert unlabelled == [], f"terms without rdfs:label: {unlabelled}"
    uncommented = [t for t in PG._terms
                   if len(str(ontology.value(rdflib.URIRef(PG_NS + t), RDFS.comment) or "")) < 40]
    assert uncommented == [], f"terms without a real rdfs:comment: {uncommented}"


def test_every_declared_term_is_in_vocab(ontology):
    extra = sorted(t[len(PG_NS):] for t in declared_pg_terms(ontology)
                   if t[len(PG_NS):] not in PG._terms)
    assert extra == [], f"rag-prov.ttl declares terms missing from vocab.PG: {extra}"
    # nothing in the pg: namespace is described without being declared
    undeclared = {str(s) for s in ontology.subjects() if str(s).startswith(PG_NS)}
    assert undeclared <= declared_pg_terms(ontology)


def test_ontology_header_has_a_version_and_no_imports(ontology):
    onto = rdflib.URIRef("https://w3id.org/provgraph/ns")
    assert (onto, RDF.type, OWL.Ontology) in ontology
    assert ontology.value(onto, OWL.versionInfo) is not None
    assert ontology.value(onto, OWL.versionIRI) is not None
    # provgraph never fetches while loading vocabulary
    assert list(ontology.triples((None, OWL.imports, None))) == []


def test_each_term_is_a_class_or_a_typed_property(ontology):
    kinds = {OWL.Class, OWL.DatatypeProperty, OWL.ObjectProperty}
    for term in PG:
        types = set(ontology.objects(rdflib.URIRef(term), RDF.type))
        assert len(types & kinds) == 1, f"{term} must be exactly one of {kinds}, has {types}"


def test_every_class_specialises_a_prov_class(ontology):
    for cls in ontology.subjects(RDF.type, OWL.Class):
        supers = set(ontology.transitive_objects(cls, RDFS.subClassOf)) - {cls}
        assert any(str(s).startswith(PROV_NS) for s in supers), f"{cls} has no PROV-O superclass"


def test_class_hierarchy_examples(ontology):
    def sub(a: str, b: str) -> bool:
        return rdflib.URIRef(b) in set(ontology.transitive_objects(rdflib.URIRef(a), RDFS.subClassOf))

    assert sub(PG.ContextualPrefix, PG.GeneratedAid)
    assert sub(PG.ContextualPrefix, PROV_NS + "Entity")
    assert sub(PG.Parser, PROV_NS + "SoftwareAgent")
    assert sub(PG.Run, PROV_NS + "Bundle")
    assert sub(PG.Extraction, PROV_NS + "Activity")


def test_properties_have_ranges(ontology):
    for kind in (OWL.DatatypeProperty, OWL.ObjectProperty):
        for prop in ontology.subjects(RDF.type, kind):
            assert ontology.value(prop, RDFS.range) is not None, f"{prop} has no rdfs:range"


def test_shapes_parse_and_are_valid_shacl(shapes):
    assert len(shapes) > 0
    conforms, _graph, text = meta_validate(shapes, inference="none")
    assert conforms, text
    # pyshacl can load them as a shapes graph
    conforms, _graph, text = pyshacl.validate(rdflib.Graph(), shacl_graph=shapes,
                                              inference="none", do_owl_imports=False)
    assert conforms, text


def test_each_target_class_is_declared(shapes, ontology):
    classes = {str(c) for c in ontology.subjects(RDF.type, OWL.Class)}
    targets = {str(t) for t in shapes.objects(None, SH.targetClass)}
    assert targets, "the shapes target no class"
    assert targets <= classes, f"undeclared target classes: {sorted(targets - classes)}"


def test_every_recorded_class_has_a_shape(shapes):
    targets = {str(t) for t in shapes.objects(None, SH.targetClass)}
    for cls in (PG.SourceSnapshot, PG.Extraction, PG.ExtractedText, PG.Chunk, PG.GeneratedAid,
                PG.Retrieval, PG.ContextPacking, PG.GeneratorInput, PG.Generation, PG.Answer,
                PG.Claim, PG.Citation, PG.Segment, PG.Query, PG.Run, PG.RemovedRun):
        assert cls in targets, f"no shape targets {cls}"


def test_every_property_shape_has_a_message(shapes):
    property_shapes = set(shapes.objects(None, SH.property)) | set(
        shapes.subjects(RDF.type, SH.PropertyShape))
    named = [s for s in property_shapes if isinstance(s, rdflib.URIRef)]
    assert named, "property shapes are expected to be named pgsh: IRIs"
    silent = sorted(str(s) for s in named if shapes.value(s, SH.message) is None)
    assert silent == [], f"property shapes without sh:message: {silent}"
    for constraint in shapes.subjects(RDF.type, SH.SPARQLConstraint):
        assert shapes.value(constraint, SH.message) is not None


def test_every_shape_term_in_pg_namespace_is_in_vocab(shapes):
    used = {str(t) for t in shapes.all_nodes()
            if isinstance(t, rdflib.URIRef) and str(t).startswith(PG_NS)}
    unknown = sorted(t for t in used if t not in PG)
    assert unknown == [], f"shapes use terms missing from vocab.PG: {unknown}"


@pytest.mark.parametrize(("shape", "values"), [
    ("Claim-claimKind", vocab.CLAIM_KINDS),
    ("Claim-claimStatus", vocab.CLAIM_STATUSES),
    ("Citation-outcome", vocab.OUTCOMES),
    ("Citation-offsetUnit", vocab.UNITS),
    ("Segment-origin", SEGMENT_ORIGINS),
    ("Citation-precision", vocab.PRECISIONS),
    ("Citation-contextGap", vocab.CONTEXT_GAPS),
])
def test_enumerations_match_vocab(shapes, shape, values):
    head = shapes.value(PGSH[shape], SH["in"])
    assert head is not None, f"pgsh:{shape} has no sh:in"
    assert tuple(str(v) for v in Collection(shapes, head)) == tuple(values)


def test_misspelt_term_raises_attribute_error_naming_the_term():
    with pytest.raises(AttributeError, match="Chunk"):
        PG.Chunck  # noqa: B018


def test_terms_are_iris_in_the_namespace():
    assert PG.Chunk == "https://w3id.org/provgraph/ns#Chunk"
    assert PG.Chunk in PG
    assert "https://w3id.org/provgraph/ns#Chunck" not in PG


def test_one_verified_outcome_set():
    """matching, analytics and unsupported.rq name vocab.VERIFIED_OUTCOMES (issue 12)."""
    import re

    from provgraph import analytics, matching
    from provgraph.resources import data_dir

    assert set(vocab.VERIFIED_OUTCOMES) < set(vocab.OUTCOMES)
    assert vocab.OUTCOMES[:len(vocab.VERIFIED_OUTCOMES)] == vocab.VERIFIED_OUTCOMES
    assert matching.VERIFIED == frozenset(vocab.VERIFIED_OUTCOMES)
    assert analytics.SUCCESS_OUTCOMES is vocab.VERIFIED_OUTCOMES
    text = (data_dir("queries") / "unsupported.rq").read_text(encoding="utf-8")
    listed = re.search(r"\?outcome NOT IN \(([^)]*)\)", text)
    assert listed is not None
    assert tuple(re.findall(r'"(\w+)"', listed.group(1))) == vocab.VERIFIED_OUTCOMES
