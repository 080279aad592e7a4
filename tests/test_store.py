"""Store layer: transactions, error mapping, canonical comparison, persistence."""

from __future__ import annotations

import os

import pytest

from provgraph.errors import QuerySyntaxError, SerializationError, StoreError, UnsupportedFormat
from provgraph.store import EmbeddedStore, canonical_nquads, default_store_path, open_store
from provgraph.terms import IRI, BNode, Literal, lit

G = IRI("urn:x:g")
S = IRI("urn:x:s")
P = IRI("urn:x:p")


def test_add_is_all_or_nothing(store):
    with pytest.raises(StoreError, match="invalid term"):
        store.add([(S, P, lit(1), G), (IRI("not an iri"), P, lit(2), G)])
    assert len(store) == 0


def test_literals_keep_value_datatype_zone_and_language(store):
    """Every literal reads back as written (issue 15): the engine alone would keep XSD
    literals by value in canonical form (".120" as ".12", "1.50" as "1.5"); the store
    layer encodes those (provgraph._lexical). Doubles keep full precision."""
    x = "http://www.w3.org/2001/XMLSchema#"
    given = [Literal("2026-01-01T10:00:00.120+02:00", x + "dateTime"),
             Literal("2026-01-01T10:00:00Z", x + "dateTime"),
             Literal("1.50", x + "decimal"), Literal(""), Literal("chat", language="fr"),
             lit(0.1 + 0.2)]
    store.add([(S, P, v, G) for v in given])
    got = {q[2] for q in store.quads(S, P)}
    assert got == set(given)
    assert lit(0.1 + 0.2) == Literal("0.30000000000000004", x + "double")


def test_select_binds_terms_not_text(store):
    store.add([(S, P, lit("x"), G)])
    rows = store.select("SELECT ?s ?o WHERE { ?s ?p ?o }", {"s": IRI("urn:x:other")})
    assert rows == []
    rows = store.select("SELECT ?s ?o WHERE { ?s ?p ?o }", {"s": S})
    assert rows == [{"s": S, "o": Literal("x")}]


def test_select_over_a_list_of_values_equals_one_select_per_value(store):
    tricky = Literal('a "quoted"\nline \\ with } and >', language="en")
    o2 = Literal("1.5", "http://www.w3.org/2001/XMLSchema#decimal")
    store.add([(S, P, tricky, G), (IRI("urn:x:s2"), P, o2, G), (IRI("urn:x:s3"), P, lit("z"), G)])
    q = "SELECT ?s ?o WHERE { ?s ?p ?o } ORDER BY ?s"
    asked = [tricky, o2, Literal("absent")]
    once = store.select(q, values=("o", asked))
    each = [r for v in asked for r in store.select(q, {"o": v})]
    assert once == each == [{"s": S, "o": tricky}, {"s": IRI("urn:x:s2"), "o": o2}]
    assert store.select(q, values=("s", [])) == []
    with pytest.raises(TypeError, match="no blank node"):
        store.select(q, values=("s", [BNode("b0")]))


def test_query_syntax_error_names_the_source(store):
    with pytest.raises(QuerySyntaxError, match="lineage.rq"):
        store.select("SELECT WHERE {", source="lineage.rq")


def test_load_is_atomic_and_rejects_bad_documents(store):
    with pytest.raises(SerializationError, match="does not parse"):
        store.load(b"<urn:a> <urn:b> <urn:c> .\n<urn:a> <urn:b> ", "turtle", graph=G)
    assert len(store) == 0
    with pytest.raises(UnsupportedFormat, match="use one of"):
        store.load(b"", "n3-ish")
    assert store.load(b"<urn:a> <urn:b> <urn:c> .", "turtle", graph=G) == 1
    assert store.named_graphs() == [G]


def test_canonical_nquads_ignores_blank_node_labels():
    a = [(BNode("x1"), P, lit(1), G), (S, P, BNode("x1"), G)]
    b = [(BNode("zz"), P, lit(1), G), (S, P, BNode("zz"), G)]
    assert canonical_nquads(a) == canonical_nquads(b)
    assert canonical_nquads(a) != canonical_nquads([(BNode("zz"), P, lit(2), G), (S, P, BNode("zz"), G)])


def test_default_path_and_env_override(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PROVGRAPH_STORE", raising=False)
    assert default_store_path() == tmp_path / ".provgraph"
    monkeypatch.setenv("PROVGRAPH_STORE", str(tmp_path / "elsewhere"))
    s = open_store()
    assert s.location == str(tmp_path / "elsewhere")
    assert (tmp_path / "elsewhere" / "rdf").is_dir()
    s.close()


def test_remove_and_graphs(store_path):
    s = EmbeddedStore(store_path)
    s.add([(S, P, lit(1), G), (S, P, lit(2), None)])
    s.remove([(S, P, lit(1), G)])
    assert [q[2] for q in s.quads(S, P)] == [lit(2)]
    s.remove_graph(G)
    s.close()
    s = EmbeddedStore(store_path)
    assert len(s) == 1
    s.close()


def test_locked_store_gives_a_clear_error(store_path):
    s = EmbeddedStore(store_path)
    with pytest.raises(StoreError, match=rf"being written by pid {os.getpid()} .*waited 0.2 s"):
        EmbeddedStore(store_path, lock_timeout=0.2)
    s.close()


def test_select_gives_every_value_as_the_pattern_read_gives_it(store):
    """select() converts each distinct term once per result (issue 16: repeated values
    come from a cache keyed by the engine's term, and a column of mostly distinct values
    stops being cached); the rows must equal what quads() reads, value for value: equal
    values in other lexical forms, datatypes, languages and kinds stay apart."""
    xsd = "http://www.w3.org/2001/XMLSchema#"
    objects = [IRI("urn:x:o1"), IRI("urn:x:o2"), Literal("1", xsd + "integer"),
               Literal("01", xsd + "integer"), Literal("1", xsd + "int"), Literal("1"),
               Literal("1", language="en"), Literal("1", language="de"), BNode("b1"),
               Literal("1.0", xsd + "decimal"), Literal("true", xsd + "boolean")]
    p2 = IRI("urn:x:p2")
    store.add([(IRI(f"urn:x:s{i}"), P, objects[i % len(objects)], G) for i in range(600)]
              + [(IRI(f"urn:x:s{i}"), p2, Literal(f"v{i}"), G) for i in range(300)])
    for pred in (P, p2):  # a repeating column (cached throughout), a distinct one
        rows = store.select("SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }", {"p": pred})
        got = sorted((str(r["s"]), repr(r["o"]), r["g"]) for r in rows)
        want = sorted((str(s), repr(o), g) for s, _, o, g in store.quads(None, pred))
        assert len(got) in (600, 300) and got == want


def test_subject_pairs_read_as_the_contract_default_reads_them(rag_store, tmp_path):
    """EmbeddedStore.subject_pairs (the run export's hot read, issue 16 item 7) gives what
    the contract's default (ProvStore.subject_pairs, over quads_list) gives: every graph but
    the skipped one, without the skipped predicates, a pair in two graphs once; on a
    read-only open too, and with its object cache warm (the second read)."""
    from provgraph.store import ProvStore
    from provgraph.vocab import GRAPH, PROV, RDF

    store, _ = rag_store
    subjects = sorted({q[0] for q in store.quads()})
    twice = subjects[0]
    extra = [(twice, p, o, IRI("urn:x:other")) for _, p, o, _ in store.quads(twice)]
    extra.append((twice, RDF.type, PROV.Entity, GRAPH.ONTOLOGY))
    extra.append((twice, P, Literal("01", "http://www.w3.org/2001/XMLSchema#integer"), None))
    store.add(extra)
    path = tmp_path / "pg"
    disk = EmbeddedStore(path)
    disk.add(store.quads())
    disk.close()
    skip = frozenset({RDF.type})
    with EmbeddedStore(path, read_only=True) as ro:
        for s in subjects:
            for kw in ({}, {"skip_graph": GRAPH.ONTOLOGY, "skip_predicates": skip}):
                want = ProvStore.subject_pairs(store, s, **kw)
                assert len(want) == len(set(want))
                for _ in range(2):
                    assert sorted(map(repr, store.subject_pairs(s, **kw))) == sorted(map(repr, want))
                    assert sorted(map(repr, ro.subject_pairs(s, **kw))) == sorted(map(repr, want))
    assert len(ProvStore.subject_pairs(store, twice)) < len(store.quads_list(twice))
