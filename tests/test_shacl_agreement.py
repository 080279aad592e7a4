"""provgraph.shacl validates with pyshacl-turbo, a Rust engine, from N-Triples text
(issue 16, item 2). These tests hold it to the pyshacl path (every constraint in pyshacl
over an rdflib graph, ``shacl._reference_report``): the same results, counted with their
multiplicity, with the same messages, paths, values and source shapes, on broken graphs
made for each constraint, on literals written in more than one form, on the shared
third-party cases and (in tests/test_demo.py) on the demo store."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import pytest

from provgraph import shacl
from provgraph.importers import import_file
from provgraph.io.load import import_document
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI, XSD, BNode, Literal, lit
from provgraph.vocab import PG, PROV, RDF, RDFS

from .conftest import shared_cases
from .test_shacl import BREAKAGES, _replace, recorded  # noqa: F401 (fixture)


def both(store: EmbeddedStore) -> tuple[shacl.ShaclReport, shacl.ShaclReport]:
    """(the two-engine report through validate_shapes, the single-engine reference)."""
    triples = [(q[0], q[1], q[2]) for q in shacl._quads_of(store, None)]
    return shacl.validate_shapes(store), shacl._reference_report(triples)


def typed(report: shacl.ShaclReport) -> collections.Counter[Any]:
    """The results with their count and the kind of their terms (an IRI and a blank node
    with the same text compare equal as provgraph terms)."""
    return collections.Counter((v, type(v.focus_node).__name__, type(v.value).__name__,
                                type(v.shape).__name__) for v in report.violations)


def assert_agree(store: EmbeddedStore) -> shacl.ShaclReport:
    new, ref = both(store)
    assert typed(new) == typed(ref)
    assert len(new.violations) == len(ref.violations)
    assert new.conforms == ref.conforms
    return new


@pytest.mark.parametrize(("breakage", "shape"), BREAKAGES)
def test_agrees_on_each_breakage(recorded, breakage, shape):  # noqa: F811
    store, _rec, r = recorded
    breakage(store, r)
    report = assert_agree(store)
    assert shape in {str(v.shape).rsplit("#", 1)[-1] for v in report.violations}


def _duplicate_rank(s: EmbeddedStore, r: dict[str, Any]) -> None:
    hit = IRI(f"{r['retrieval'].iri}#hit-2")
    _replace(s, hit, PG.rank, lit(1))


def _segment_past_its_text(s: EmbeddedStore, r: dict[str, Any]) -> None:
    _replace(s, IRI(f"{r['input'].iri}#segment-4"), PG.end, lit(100_000))


def _chunk_offsets_not_canonical(s: EmbeddedStore, r: dict[str, Any]) -> None:
    # "+0" and "035" are integers for rdflib: the chunk is still consistent
    _replace(s, r["c_service"].iri, PG.start, Literal("+0", XSD + "integer"))
    _replace(s, r["c_service"].iri, PG.end, Literal("035", XSD + "integer"))
    _replace(s, r["c_staff"].iri, PG.end, Literal("077", XSD + "integer"))


def _language_tagged_texts(s: EmbeddedStore, r: dict[str, Any]) -> None:
    _replace(s, r["c_life"].iri, PG.text, Literal("Seals last 2 years.", None, "en"))
    _replace(s, r["claim_quote"].iri, PG.text,
             Literal("Pumps are serviced every 6 months.", None, "en"))


def _typed_by_a_subclass_in_the_data(s: EmbeddedStore, r: dict[str, Any]) -> None:
    # a chunk known only through a subclass declared in the data, with a wrong text
    my_chunk, node = IRI("urn:x:MyChunk"), IRI("urn:x:chunk")
    s.add([(my_chunk, RDFS.subClassOf, PG.Chunk, r["run"]), (node, RDF.type, my_chunk, r["run"]),
           (node, PG.text, lit("abc"), r["run"]), (node, PG.start, lit(0), r["run"]),
           (node, PG.end, lit(5), r["run"])])


def _blank_node_segment(s: EmbeddedStore, r: dict[str, Any]) -> None:
    seg = BNode("seg1")
    s.add([(seg, RDF.type, PG.Segment, r["run"]), (r["input"].iri, PG.segment, seg, r["run"]),
           (seg, PG.start, lit(0), r["run"]), (seg, PG.end, lit(10_000), r["run"]),
           (seg, PG.origin, lit("instruction"), r["run"])])


def _twice_typed_claim_in_two_graphs(s: EmbeddedStore, r: dict[str, Any]) -> None:
    # one claim in two graphs (the data graph is their union) with a wrong text in one
    claim = r["claim_para"].iri
    quads = [q for q in s.quads(claim) if q[1] != PG.text]
    s.add([(q[0], q[1], q[2], IRI("urn:x:other-graph")) for q in quads])
    s.add([(claim, PG.text, lit("Seals cost 12.50 EUR each!"), IRI("urn:x:other-graph"))])


def _not_a_focus_node(s: EmbeddedStore, r: dict[str, Any]) -> None:
    # matches the chunk query's pattern but is no chunk: no result, in either engine
    node = IRI("urn:x:not-a-chunk")
    s.add([(node, RDF.type, PROV.Entity, r["run"]), (node, PG.text, lit("abc"), r["run"]),
           (node, PG.start, lit(0), r["run"]), (node, PG.end, lit(9), r["run"])])


def _two_forms_of_one_rank(s: EmbeddedStore, r: dict[str, Any]) -> None:
    # "01" and "1" are two statements (and two values for sh:maxCount) in both engines'
    # graphs; an engine that held values, not forms, would see one
    hit = IRI(f"{r['retrieval'].iri}#hit-1")
    (rank,) = [q for q in s.quads(hit, PG.rank)]
    s.add([(hit, PG.rank, Literal("0" + rank[2].value, XSD + "integer"), rank[3])])


def _non_canonical_value_reported(s: EmbeddedStore, r: dict[str, Any]) -> None:
    # a value outside its range, written in a non-canonical form: sh:value is the form
    # as stored ("-01", not "-1")
    _replace(s, IRI(f"{r['retrieval'].iri}#hit-1"), PG.rank, Literal("-01", XSD + "integer"))


def _odd_texts(s: EmbeddedStore, r: dict[str, Any]) -> None:
    # a text with a line break, quotes and a non-BMP character, through N-Triples text
    _replace(s, r["claim_quote"].iri, PG.text, lit('Pumps "are"\n serviced \U0001f527 every 6.'))


SPARQL_BREAKAGES: list[Any] = [
    pytest.param(_two_forms_of_one_rank, {"RankedUsage-rank"}, id="two-forms-of-one-value"),
    pytest.param(_non_canonical_value_reported, {"RankedUsage-rank"},
                 id="non-canonical-value-reported"),
    pytest.param(_odd_texts, {"ClaimShape"}, id="odd-texts"),
    pytest.param(_duplicate_rank, {"RetrievalShape"}, id="duplicate-rank"),
    pytest.param(_segment_past_its_text, {"SegmentShape"}, id="segment-past-its-text"),
    pytest.param(_chunk_offsets_not_canonical, set(), id="non-canonical-integers"),
    pytest.param(_language_tagged_texts, {"Chunk-text", "Claim-text"}, id="language-tagged"),
    pytest.param(_typed_by_a_subclass_in_the_data, {"ChunkShape"}, id="subclass-in-data"),
    pytest.param(_blank_node_segment, {"SegmentShape"}, id="blank-node-focus"),
    pytest.param(_twice_typed_claim_in_two_graphs, {"ClaimShape"}, id="claim-in-two-graphs"),
    pytest.param(_not_a_focus_node, set(), id="not-a-focus-node"),
]


@pytest.mark.parametrize(("breakage", "shapes"), SPARQL_BREAKAGES)
def test_agrees_on_sparql_constraint_edge_cases(recorded, breakage: Callable[..., None],  # noqa: F811
                                                shapes: set[str]):
    store, _rec, r = recorded
    breakage(store, r)
    report = assert_agree(store)
    found = {str(v.shape).rsplit("#", 1)[-1] for v in report.violations}
    assert shapes <= found, found
    if not shapes:
        assert report.conforms, found


def test_duplicate_solutions_of_one_focus_node_count_once(recorded):  # noqa: F811
    # two hits sharing a rank give the solutions (u1, u2) and (u2, u1) with one ?value
    store, _rec, r = recorded
    _duplicate_rank(store, r)
    report = assert_agree(store)
    ranks = [v for v in report.violations if str(v.shape).endswith("#RetrievalShape")]
    assert [(v.focus_node, v.value) for v in ranks] == [(r["retrieval"].iri, lit(1))]


def _shared_store() -> EmbeddedStore:
    store = EmbeddedStore()
    rag = shared_cases("real-rag")
    for fmt, path, sources in (
            ("alce", rag / "alce" / "asqa_default.json", ()),
            ("ragchecker", rag / "ragchecker" / "checking_outputs.json", ()),
            ("answer", rag / "grounded" / "answer_grounded.md", (rag / "grounded" / "source.md",)),
            ("answer", rag / "grounded" / "answer_fabricated.md",
             (rag / "grounded" / "source.md",)),
            ("otlp", shared_cases("otel") / "openinference_llamaindex.otlp.jsonl", ())):
        import_file(store, fmt, path.read_bytes(), path.name, list(sources), partial=True)
    prov = shared_cases("prov")
    for path in (prov / "dlr-prov-db-connector" / "primer.json",
                 prov / "dlr-prov-db-connector" / "horsemeat_example.json"):
        import_document(store, path.read_bytes(), "auto", name=path.name)
    return store


@pytest.mark.shared
def test_agrees_on_the_shared_cases():
    store = _shared_store()
    try:
        claims = store.select("SELECT (COUNT(*) AS ?n) WHERE { ?c a <%s> }" % PG.Claim)[0]["n"]
        assert claims is not None and int(str(claims.value)) > 0  # type: ignore[union-attr]
        assert_agree(store)
        # and broken: every claim's text changed, every chunk's end moved
        for q in list(store.quads(None, PG.text)):
            if (q[0], RDF.type, PG.Claim, q[3]) in set(store.quads(q[0], RDF.type)):
                _replace(store, q[0], PG.text, lit("changed"))
        report = assert_agree(store)
        assert any(str(v.shape).endswith("#ClaimShape") for v in report.violations)
    finally:
        store.close()



def test_an_ill_typed_offset_is_a_datatype_result_not_an_error(recorded):  # noqa: F811
    """An ill-typed ``pg:start`` of a chunk is an ``sh:datatype`` result. The chunk's
    SPARQL-based constraint computes with it (``?end - ?start``): SPARQL makes that an
    error that fails the FILTER (SPARQL 1.1 §17.3), no result. pyshacl's reference path
    cannot be compared here: rdflib raises ``TypeError`` out of that arithmetic."""
    store, _rec, r = recorded
    _replace(store, r["c_service"].iri, PG.start, Literal("zero", XSD + "integer"))
    report = shacl.validate_shapes(store)
    found = {(str(v.shape).rsplit("#", 1)[-1], v.value) for v in report.violations}
    assert found == {("Chunk-start", Literal("zero", XSD + "integer"))}, report.messages()
    with pytest.raises(TypeError):
        both(store)


def test_blank_node_labels_past_ascii_are_validated_and_reported_with_their_labels():
    """A blank node label may hold any letter (N-Triples PN_CHARS_U) and the store keeps
    it; the engine's report reader refused one (the whole validation failed). The engine
    now reads fresh ASCII labels and the report gives the store's labels back."""
    store = EmbeddedStore()
    claim, other = BNode("claimé1"), BNode("ü_2")
    store.add([(claim, RDF.type, PG.Claim, None), (claim, PG.answer, other, None),
               (other, RDF.type, PG.Answer, None), (claim, PG.start, lit(-1), None),
               (BNode("pgu0"), RDFS.label, lit("a label that looks like a fresh one"), None)])
    report = assert_agree(store)
    focus = {v.focus_node for v in report.violations}
    assert claim in focus and all(str(f).isascii() or str(f) in ("claimé1", "ü_2")
                                  for f in focus)
    assert any(v.value == lit(-1) and v.focus_node == claim for v in report.violations)


def test_ascii_labels_keeps_the_statements_and_maps_each_label_back():
    import pyoxigraph

    from provgraph._shacl_engine import ascii_labels

    text = ('_:é <urn:x:p> _:ü .\n_:ü <urn:x:p> "_:é in a literal" .\n'
            '<urn:x:s> <urn:x:p> _:plain .\n_:pgu <urn:x:p> _:é .\n')
    new, back = ascii_labels(text)
    assert new.splitlines()[:2] == ["_:pguu0 <urn:x:p> _:pguu1 .",
                                    '_:pguu1 <urn:x:p> "_:é in a literal" .']
    assert set(back.values()) == {"é", "ü"} and all(k.startswith("pguu") for k in back)
    renamed = {(str(t.subject), str(t.predicate), str(t.object))
               for t in pyoxigraph.parse(new.encode(), pyoxigraph.RdfFormat.N_TRIPLES)}

    def old(term: str) -> str:
        return "_:" + back[term[2:]] if term.startswith("_:") and term[2:] in back else term
    assert {(old(s), p, old(o)) for s, p, o in renamed} == {
        (str(t.subject), str(t.predicate), str(t.object))
        for t in pyoxigraph.parse(text.encode(), pyoxigraph.RdfFormat.N_TRIPLES)}
    assert ascii_labels("<urn:x:a> <urn:x:p> _:b .\n") == ("<urn:x:a> <urn:x:p> _:b .\n", {})
