"""Agreement: ``subject_pairs_batch`` (the run export's read, one query written by
pyoxigraph as SPARQL TSV and split in Python; issue 16 item 7) gives, subject by subject,
what ``subject_pairs`` (pattern reads of engine terms) gives, on literals chosen to break
a TSV decoder: every code point, escapes, language tags, the datatypes TSV writes bare,
literals the engine would change (stored under a private datatype), blank nodes, the
default graph, the skipped graph and predicates, a pair in two graphs."""

from __future__ import annotations

import pytest

from provgraph.store import EmbeddedStore, ProvStore
from provgraph.terms import IRI, BNode, Literal
from provgraph.vocab import GRAPH, RDF

XSD = "http://www.w3.org/2001/XMLSchema#"
G, H = IRI("urn:x:g"), IRI("urn:x:h")
P, Q = IRI("urn:x:p"), IRI("urn:x:q")

_CODE_POINTS = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
TEXTS = [_CODE_POINTS[i:i + 4099] for i in range(0, len(_CODE_POINTS), 4099)] + [
    "", " ", '"', "\\", '\\"', '"@en', '"^^<urn:x:d>', "\t", "\n", "\r\n", "\x00", "\x7f",
    "\\u0041", "\\t", "<urn:x:s>", "_:b", "42", "true", "a\tb\nc\"d\\e €😀"]
OBJECTS = [Literal(t) for t in TEXTS] + [
    Literal("x", language="en-GB"), Literal("x", language="de"), Literal("", language="fr"),
    Literal("1", XSD + "integer"), Literal("-7", XSD + "integer"), Literal("007", XSD + "integer"),
    Literal("1", XSD + "int"), Literal("01", XSD + "integer"), Literal("1.5", XSD + "decimal"),
    Literal("1.0", XSD + "decimal"), Literal("1.5E0", XSD + "double"), Literal("INF", XSD + "double"),
    Literal("true", XSD + "boolean"), Literal("1", XSD + "boolean"),
    Literal("2022-03-01T09:00:00Z", XSD + "dateTime"), Literal("x", XSD + "string"),
    Literal('{"a": [1, "\\t"]}', "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"),
    Literal("not a number", XSD + "integer"), Literal("v", "urn:x:datatype"),
    IRI("urn:x:o"), IRI("http://example.org/a?b=c#d"), BNode("b1")]


@pytest.fixture
def filled(tmp_path):
    """An on-disk store holding every object under P for urn:x:s0..., plus the cases of
    graphs and predicates; closed, to be opened as each test needs."""
    path = tmp_path / "pg"
    s0, s1, s2 = IRI("urn:x:s0"), IRI("urn:x:s1"), IRI("urn:x:s2")
    quads = [(s0, P, o, G) for o in OBJECTS]
    quads += [(s1, P, o, G) for o in OBJECTS[:5]] + [(s1, P, o, H) for o in OBJECTS[3:8]]
    quads += [(s1, Q, IRI("urn:x:o"), None), (s1, P, OBJECTS[0], None),
              (s1, RDF.type, IRI("urn:x:C"), GRAPH.ONTOLOGY), (s1, RDF.type, IRI("urn:x:D"), G)]
    quads += [(BNode("n1"), P, Literal("in a blank node"), G), (s2, P, BNode("n1"), G)]
    store = EmbeddedStore(path)
    store.add(quads)
    store.load(b'<urn:x:s2> <urn:x:q> "rtl"@ar--rtl <urn:x:g> .\n', "nquads")
    store.close()
    return path


SUBJECTS = [IRI("urn:x:s0"), IRI("urn:x:s1"), IRI("urn:x:s2"), BNode("n1"), IRI("urn:x:none"),
            IRI("urn:x:s1")]


@pytest.mark.parametrize("read_only", [False, True])
@pytest.mark.parametrize("kw", [{}, {"skip_graph": GRAPH.ONTOLOGY, "skip_predicates": {RDF.type}},
                                {"skip_graph": G}, {"skip_predicates": {P, Q}}])
def test_batch_reads_as_subject_pairs(filled, read_only, kw):
    with EmbeddedStore(filled, read_only=read_only) as store:
        for _ in range(2):  # the term caches cold, then warm
            got = store.subject_pairs_batch(SUBJECTS, **kw)
            assert len(got) == len(SUBJECTS)
            for s, pairs in zip(SUBJECTS, got):
                want = store.subject_pairs(s, **kw)
                assert len(pairs) == len(set(pairs)), s
                assert sorted(map(repr, pairs)) == sorted(map(repr, want)), s
                assert sorted(map(repr, pairs)) == sorted(map(repr, ProvStore.subject_pairs_batch(
                    store, [s], **kw)[0]))
    if not kw:
        assert len(got[0]) == len(OBJECTS)  # nothing lost on the way: a test that can fail
        assert got[4] == [] and got[1] == got[5]


def test_batch_of_nothing(filled):
    with EmbeddedStore(filled, read_only=True) as store:
        assert store.subject_pairs_batch([]) == []
        assert store.subject_pairs_batch([BNode("n1")]) == [store.subject_pairs(BNode("n1"))]
