"""The store contract: what every ProvStore and every BlobStore implementation must do.

Each test runs over every implementation in ``STORES`` (``any_store``) or ``BLOB_STORES``
(``any_blobs``). A new implementation (the remote SPARQL store of issue 13) joins by adding
one entry that opens a fresh, empty store under ``tmp_path``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from provgraph.errors import (
    OriginalCorruptError, OriginalMissingError, QueryError, QuerySyntaxError, SerializationError,
    StoreError, UnsupportedFormat,
)
from provgraph.originals import BlobStore, MemoryBlobStore, Originals, sha256_hex
from provgraph.store import ANY_GRAPH, EmbeddedStore, ProvStore
from provgraph.terms import IRI, BNode, Literal, Quad, lit

from .counting_store import CountingStore
from .serve_helpers import ThreadServedStore

X = "urn:x:"
G1, G2 = IRI(X + "g1"), IRI(X + "g2")
A, B, C, D = (IRI(X + n) for n in "abcd")
P, Q, R = (IRI(X + n) for n in ("p", "q", "r"))
XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"
BAD = IRI("not an iri")

STORES: dict[str, Callable[[Path], ProvStore]] = {
    "embedded-memory": lambda tmp: EmbeddedStore(),
    "embedded-memory-blobs": lambda tmp: EmbeddedStore(blobs=MemoryBlobStore()),
    "embedded-disk": lambda tmp: EmbeddedStore(tmp / "store"),
    "counting-wrapper": lambda tmp: CountingStore(EmbeddedStore()),
    "served": lambda tmp: ThreadServedStore(tmp / "served"),
}
"""Opener of a fresh, empty store per implementation (one more entry for a remote store)."""


REMOTE_STORES: dict[str, str] = {"oxigraph-server": "oxigraph_server",
                                 "virtuoso": "virtuoso_server"}
"""Remote stores (issue 13) by the session fixture of the real engine they run on
(tests/conftest.py): skipped with a reason where the engine is not installed, never in CI."""


@pytest.fixture(params=sorted(STORES) + [pytest.param(name, marks=pytest.mark.servers)
                                         for name in sorted(REMOTE_STORES)])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ProvStore]:
    if request.param in REMOTE_STORES:
        from .conftest import open_remote

        s = open_remote(request.getfixturevalue(REMOTE_STORES[request.param]), tmp_path)
    else:
        s = STORES[request.param](tmp_path)
    yield s
    s.close()


def _tamper_file(blobs: BlobStore, digest: str, data: bytes) -> None:
    assert isinstance(blobs, Originals)
    path = blobs.path_for(digest)
    os.chmod(path, 0o644)
    path.write_bytes(data)


def _tamper_memory(blobs: BlobStore, digest: str, data: bytes) -> None:
    assert isinstance(blobs, MemoryBlobStore)
    blobs._blobs[digest] = data  # noqa: SLF001 - simulates a corrupted medium


BLOB_STORES: dict[str, tuple[Callable[[Path], BlobStore],
                             Callable[[BlobStore, str, bytes], None]]] = {
    "file": (lambda tmp: Originals(tmp / "blobs"), _tamper_file),
    "memory": (lambda tmp: MemoryBlobStore(), _tamper_memory),
}
"""(opener, tamper) per BlobStore implementation; tamper overwrites a blob's bytes in place."""


@pytest.fixture(params=sorted(BLOB_STORES))
def any_blobs(request: pytest.FixtureRequest,
              tmp_path: Path) -> tuple[BlobStore, Callable[[BlobStore, str, bytes], None]]:
    opener, tamper = BLOB_STORES[request.param]
    return opener(tmp_path), tamper


def _all(store: ProvStore) -> set[Quad]:
    return set(store.quads())


BASE: list[Quad] = [(A, P, B, G1), (B, P, C, G1), (C, Q, lit("c"), G2), (A, R, lit(1), None)]


# -- writing -------------------------------------------------------------------------------

def test_add_is_idempotent_and_counted_by_len(any_store: ProvStore) -> None:
    any_store.add(BASE)
    any_store.add(BASE[:2])
    assert len(any_store) == 4
    assert _all(any_store) == set(BASE)
    assert any_store.contains(BASE[0]) and not any_store.contains((A, P, B, G2))


def test_add_is_all_or_nothing(any_store: ProvStore) -> None:
    with pytest.raises(StoreError, match="invalid term"):
        any_store.add([BASE[0], (BAD, P, lit(2), G1)])
    assert len(any_store) == 0


def test_remove_ignores_absent_quads_and_keeps_other_graphs(any_store: ProvStore) -> None:
    any_store.add(BASE + [(A, P, B, G2)])
    any_store.remove([(A, P, B, G1), (D, P, D, G1)])
    assert _all(any_store) == (set(BASE) - {(A, P, B, G1)}) | {(A, P, B, G2)}
    any_store.remove([])
    assert len(any_store) == 4


def test_remove_with_an_invalid_term_is_a_store_error_and_removes_nothing(
        any_store: ProvStore) -> None:
    any_store.add(BASE)
    with pytest.raises(StoreError, match="invalid term"):
        any_store.remove([BASE[0], (BAD, P, lit(2), G1)])
    assert _all(any_store) == set(BASE)


def test_replace_swaps_in_one_step(any_store: ProvStore) -> None:
    any_store.add(BASE)
    any_store.replace([(A, R, lit(1), None), (D, P, D, G1)], [(A, R, lit(2), None), BASE[0]])
    assert _all(any_store) == (set(BASE) - {(A, R, lit(1), None)}) | {(A, R, lit(2), None)}
    any_store.replace([BASE[1]], [BASE[1]])  # removed and added: present afterwards
    assert any_store.contains(BASE[1])
    any_store.replace([], [(D, P, A, G2)])
    any_store.replace([(D, P, A, G2)], [])
    assert _all(any_store) == (set(BASE) - {(A, R, lit(1), None)}) | {(A, R, lit(2), None)}


def test_a_failing_replace_leaves_the_store_unchanged(any_store: ProvStore) -> None:
    any_store.add(BASE)
    before = any_store.canonical_nquads()
    with pytest.raises(StoreError):
        any_store.replace([BASE[0], BASE[1]], [(A, P, lit("new"), G1), (BAD, P, lit(2), G1)])
    with pytest.raises(StoreError):
        any_store.replace([(BAD, P, lit(2), G1), BASE[0]], [(A, P, lit("new"), G1)])
    assert any_store.canonical_nquads() == before


def test_bulk_add_and_bulk_load_store_what_add_stores(any_store: ProvStore,
                                                       tmp_path: Path) -> None:
    any_store.bulk_add(BASE)
    assert _all(any_store) == set(BASE)
    nq = tmp_path / "more.nq"
    nq.write_text(f"<{D}> <{P}> \"d\" <{G2}> .\n<{D}> <{Q}> <{A}> .\n", encoding="utf-8")
    any_store.bulk_load(nq, "nquads")
    nt = tmp_path / "more.nt"
    nt.write_text(f"<{D}> <{R}> \"1\"^^<{XSD_INT}> .\n", encoding="utf-8")
    any_store.bulk_load(nt, "ntriples", graph=G1)
    assert _all(any_store) == set(BASE) | {(D, P, lit("d"), G2), (D, Q, A, None),
                                           (D, R, lit(1), G1)}
    bad = tmp_path / "bad.nq"
    bad.write_text("<urn:x:a> <urn:x:p> .\n", encoding="utf-8")
    with pytest.raises(SerializationError, match="does not parse"):
        any_store.bulk_load(bad, "nquads")
    with pytest.raises(UnsupportedFormat):
        any_store.bulk_load(nq, "n3")


def test_load_is_atomic_and_reports_the_count(any_store: ProvStore) -> None:
    ttl = f"<{A}> <{P}> <{B}> , <{C}> ."
    assert any_store.load(ttl, "turtle", graph=G1) == 2
    assert any_store.load(ttl.encode(), "turtle", graph=G1) == 0
    with pytest.raises(SerializationError, match="does not parse"):
        any_store.load(f"<{A}> <{P}> <{D}> . <{A}> <{P}> .", "turtle", graph=G1)
    with pytest.raises(UnsupportedFormat, match="'n3'"):
        any_store.load(ttl, "n3")
    assert _all(any_store) == {(A, P, B, G1), (A, P, C, G1)}


def test_update_runs_sparql_update_and_maps_syntax_errors(any_store: ProvStore) -> None:
    any_store.update(f"INSERT DATA {{ GRAPH <{G1}> {{ <{A}> <{P}> <{B}> }} }}")
    assert _all(any_store) == {(A, P, B, G1)}
    with pytest.raises(QuerySyntaxError, match="in my-update"):
        any_store.update("INSERT DATTA { }", source="my-update")
    assert len(any_store) == 1


# -- reading -------------------------------------------------------------------------------

def test_quads_match_patterns_and_graphs(any_store: ProvStore) -> None:
    any_store.add(BASE + [(A, P, B, G2)])
    assert set(any_store.quads(A)) == {(A, P, B, G1), (A, R, lit(1), None), (A, P, B, G2)}
    assert set(any_store.quads(None, P, B)) == {(A, P, B, G1), (A, P, B, G2)}
    assert set(any_store.quads(None, None, lit("c"))) == {(C, Q, lit("c"), G2)}
    assert set(any_store.quads(A, graph=None)) == {(A, R, lit(1), None)}
    assert set(any_store.quads(graph=G2)) == {(C, Q, lit("c"), G2), (A, P, B, G2)}
    assert set(any_store.quads(graph=ANY_GRAPH)) == _all(any_store)
    assert list(any_store.quads(D)) == []


def test_named_graphs_and_remove_graph(any_store: ProvStore) -> None:
    any_store.add(BASE)
    assert any_store.named_graphs() == [G1, G2]
    any_store.remove_graph(G1)
    any_store.remove_graph(IRI(X + "never"))
    assert any_store.named_graphs() == [G2]
    assert _all(any_store) == {(C, Q, lit("c"), G2), (A, R, lit(1), None)}


def test_select_sees_the_union_of_graphs_with_bindings_and_values(any_store: ProvStore) -> None:
    any_store.add(BASE)
    q = "SELECT ?s ?o WHERE { ?s ?p ?o } ORDER BY ?s ?o"
    assert [r["s"] for r in any_store.select(q)] == [A, A, B, C]
    assert any_store.select(q, {"s": B}) == [{"s": B, "o": C}]
    assert any_store.select(q, values=("s", [C, B, D])) == [{"s": B, "o": C},
                                                           {"s": C, "o": lit("c")}]
    assert any_store.select("SELECT ?g ?s WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g ?s",
                            {"g": G2}) == [{"g": G2, "s": C}]
    rows = any_store.select("SELECT ?s ?x WHERE { ?s ?p ?o OPTIONAL { ?s <urn:x:none> ?x } }",
                            {"s": C})
    assert rows == [{"s": C, "x": None}]


def test_ask_and_construct(any_store: ProvStore) -> None:
    any_store.add(BASE)
    assert any_store.ask("ASK { ?s ?p ?o }", {"s": A})
    assert not any_store.ask("ASK { ?s ?p ?o }", {"s": D})
    triples = any_store.construct("CONSTRUCT { ?o ?p ?s } WHERE { ?s ?p ?o FILTER(isIRI(?o)) }")
    assert set(triples) == {(B, P, A), (C, P, B)}
    assert any_store.construct("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", {"s": C}) == [
        (C, Q, lit("c"))]


def test_query_errors_are_provgraph_errors(any_store: ProvStore) -> None:
    with pytest.raises(QuerySyntaxError, match="in lineage.rq") as exc:
        any_store.select("SELECT ?s WHERE { ?s ?p }", source="lineage.rq")
    assert exc.value.path == "lineage.rq"
    with pytest.raises(QuerySyntaxError):
        any_store.ask("ASK { ?s }")
    with pytest.raises(QueryError, match="expected a SELECT"):
        any_store.select("ASK { ?s ?p ?o }")
    with pytest.raises(QueryError, match="expected an ASK"):
        any_store.ask("SELECT * WHERE { ?s ?p ?o }")
    with pytest.raises(QueryError, match="expected a CONSTRUCT"):
        any_store.construct("ASK { ?s ?p ?o }")


def test_canonical_nquads_ignore_blank_node_labels_and_implementation(
        any_store: ProvStore) -> None:
    any_store.add([(BNode("one"), P, lit("x"), G1), (A, P, BNode("one"), G1), BASE[3]])
    other = EmbeddedStore()
    other.add([(BNode("two"), P, lit("x"), G1), (A, P, BNode("two"), G1), BASE[3]])
    assert any_store.canonical_nquads() == other.canonical_nquads()
    assert any_store.canonical_nquads([None]) == f"<{A}> <{R}> \"1\"^^<{XSD_INT}> .\n"
    other.close()


def test_serialized_dataset_loads_back_equal(any_store: ProvStore) -> None:
    any_store.add(BASE + [(B, Q, Literal("é", language="fr"), G2)])
    data = any_store.serialize("trig")
    assert isinstance(data, bytes)
    with pytest.raises(UnsupportedFormat):
        any_store.serialize("turtle")
    copy = EmbeddedStore()
    copy.load(data, "trig")
    assert copy.canonical_nquads() == any_store.canonical_nquads()
    copy.close()


# -- batch reads -----------------------------------------------------------------------------

def test_describe_reads_every_subject_in_one_query(any_store: ProvStore) -> None:
    any_store.add(BASE + [(A, P, C, G2), (A, P, B, G2), (A, P, lit(2), G1),
                          (A, P, Literal("2", XSD_INT), G1), (A, Q, BNode("n"), G1)])
    counted = CountingStore(any_store)
    got = ProvStore.describe(counted, [A, C, D, A])  # the contract's own implementation
    assert counted.counts == {"select": 1}
    bnode = next(o for o in got[A][Q])
    assert list(got) == [A, C, D]
    assert got == {
        A: {P: [B, C, lit(2)], Q: [bnode], R: [lit(1)]},
        C: {Q: [lit("c")]},
        D: {},
    }
    assert any_store.describe([A, C, D]) == got
    assert any_store.describe([A], graph=G2) == {A: {P: [B, C]}}
    assert any_store.describe([A, C], predicates=[R, Q]) == {A: {Q: [bnode], R: [lit(1)]},
                                                            C: {Q: [lit("c")]}}
    with pytest.raises(ValueError, match="graph=None"):
        any_store.describe([A], graph=None)
    with pytest.raises(TypeError, match="not an IRI"):
        any_store.describe([BNode("n")])  # type: ignore[list-item]


def test_describe_of_nothing_issues_no_query(any_store: ProvStore) -> None:
    counted = CountingStore(any_store)
    assert ProvStore.describe(counted, []) == {}
    assert ProvStore.describe(counted, [A], predicates=[]) == {A: {}}
    assert counted.reads == 0


def test_describe_equals_the_quads_of_each_subject(any_store: ProvStore) -> None:
    """Agreement: the batch read and one pattern lookup per subject give the same answer."""
    any_store.add(BASE + [(A, P, C, G2), (B, Q, lit("b"), G2), (D, R, A, None)])
    subjects = [A, B, C, D, IRI(X + "absent")]
    each: dict[IRI, dict[IRI, set[object]]] = {s: {} for s in subjects}
    for s in subjects:
        for _, p, o, _ in any_store.quads(s):
            each[s].setdefault(p, set()).add(o)
    got = any_store.describe(subjects)
    assert {s: {p: set(os) for p, os in by_p.items()} for s, by_p in got.items()} == each


CHAIN: list[Quad] = [
    (A, P, B, G1),            # a -p-> b            (run graph)
    (B, Q, C, G2),            # b -q-> c            (another graph: paths cross graphs)
    (C, P, BNode("m"), G2),   # c -p-> _:m -p-> d   (through a blank node)
    (BNode("m"), P, D, G2),
    (D, P, lit("x"), G2),     # literals are not returned
    (D, R, A, G1),            # d -r-> a            (r closes a cycle)
]


def test_closure_follows_the_given_predicates_forward(any_store: ProvStore) -> None:
    any_store.add(CHAIN)
    counted = CountingStore(any_store)
    if _is_virtuoso(any_store):  # its paths stop on reaching a literal: a clear refusal
        with pytest.raises(QueryError, match="Virtuoso cannot walk a property path onto a literal"):
            ProvStore.closure(counted, [A], [P, Q])
    else:
        assert ProvStore.closure(counted, [A], [P, Q]) == {B, C, D}
    assert counted.counts == {"select": 1}
    assert any_store.closure([A], [P]) == {B}
    assert any_store.closure([A], [P, Q, R]) == {A, B, C, D}  # a is on a cycle
    assert any_store.closure([A, IRI(X + "absent")], [P, Q], max_depth=2) == {B, C}
    assert any_store.closure([A], [P, Q], max_depth=4) == {B, C, D}
    assert any_store.closure([A], [P, Q], max_depth=3) == {B, C}
    assert any_store.closure([A], []) == set() and any_store.closure([], [P]) == set()
    with pytest.raises(ValueError, match="max_depth"):
        any_store.closure([A], [P], max_depth=0)


def _is_virtuoso(store: ProvStore) -> bool:
    from provgraph.remote import RemoteStore

    return isinstance(store, RemoteStore) and store.engine.name == "virtuoso"


def test_closure_inverse_walks_downstream(any_store: ProvStore) -> None:
    any_store.add(CHAIN)
    assert any_store.closure([D], [P, Q], inverse=True) == {A, B, C}
    assert any_store.closure([D], [P, Q], inverse=True, max_depth=1) == set()  # via _:m
    assert any_store.closure([C], [P, Q], inverse=True, max_depth=1) == {B}


def test_has_subject_mentions_occurs(any_store: ProvStore) -> None:
    any_store.add(BASE)
    assert any_store.has_subject(A) and not any_store.has_subject(D)
    assert any_store.mentions(C) and not any_store.has_subject(IRI(X + "none"))
    assert any_store.occurs(P) and any_store.occurs(G2) and not any_store.mentions(P)
    assert not any_store.occurs(IRI(X + "none"))


def test_has_graph_is_true_only_for_a_graph_holding_statements(any_store: ProvStore) -> None:
    any_store.add(BASE)
    assert any_store.has_graph(G1) and any_store.has_graph(G2)
    assert not any_store.has_graph(A) and not any_store.has_graph(IRI(X + "none"))
    any_store.remove([q for q in BASE if q[3] == G2])
    assert not any_store.has_graph(G2) and any_store.has_graph(G1)


def test_has_graph_on_a_read_only_store_beside_its_writer(tmp_path: Path) -> None:
    writer = EmbeddedStore(tmp_path / "s")
    writer.add(BASE)
    reader = EmbeddedStore(tmp_path / "s", read_only=True)
    try:
        assert reader.has_graph(G1) and not reader.has_graph(IRI(X + "none"))
    finally:
        reader.close()
        writer.close()


# -- retained originals ------------------------------------------------------------------------

def test_every_store_has_a_blob_store(any_store: ProvStore) -> None:
    assert isinstance(any_store.originals, BlobStore)
    digest = any_store.originals.put(b"retained")
    assert any_store.originals.get(digest) == b"retained" and digest in any_store.originals


def test_blob_put_get_contains(any_blobs: tuple[BlobStore, Callable[..., None]]) -> None:
    blobs, _ = any_blobs
    data = "Grüße 🌍\r\n".encode()
    digest = blobs.put(data)
    assert digest == sha256_hex(data) and blobs.put(data) == digest
    assert blobs.get(digest) == data and digest in blobs
    assert blobs.get(blobs.put(b"")) == b""
    assert sha256_hex(b"other") not in blobs
    assert "not a digest" not in blobs and 42 not in blobs and digest.upper() not in blobs
    with pytest.raises(ValueError, match="not a lowercase hex"):
        blobs.get(digest.upper())


def test_a_missing_blob_is_its_own_error(any_blobs: tuple[BlobStore, Callable[..., None]]) -> None:
    blobs, _ = any_blobs
    with pytest.raises(OriginalMissingError, match="is missing") as exc:
        blobs.get("0" * 64)
    assert exc.value.sha256 == "0" * 64
    assert not isinstance(exc.value, OriginalCorruptError)


def test_a_corrupt_blob_is_its_own_error_and_is_never_overwritten(
        any_blobs: tuple[BlobStore, Callable[[BlobStore, str, bytes], None]]) -> None:
    blobs, tamper = any_blobs
    digest = blobs.put(b"The inspection interval is not specified.")
    tamper(blobs, digest, b"The inspection interval is 73 days.")
    with pytest.raises(OriginalCorruptError, match="was altered") as exc:
        blobs.get(digest)
    assert exc.value.sha256 == digest
    assert exc.value.actual == sha256_hex(b"The inspection interval is 73 days.")
    assert not isinstance(exc.value, OriginalMissingError)
    with pytest.raises(OriginalCorruptError):
        blobs.put(b"The inspection interval is not specified.")
    assert digest in blobs  # present, but corrupt


# -- the counting wrapper (tests/counting_store.py) ------------------------------------------

def test_counting_store_counts_each_call_at_its_boundary() -> None:
    from .counting_store import counting

    inner = EmbeddedStore()
    with counting(inner) as c:
        c.add(BASE)
        c.originals.put(b"x")
        assert c.writes == 1 and c.reads == 0 and c.blob_counts == {"put": 1}
        list(c.quads(A))
        c.select("SELECT * WHERE { ?s ?p ?o }", source="all.rq")
        c.ask("ASK { ?s ?p ?o }")
        c.describe([A, B, C])  # one batch read, whatever the inner store does for it
        c.closure([A], [P])
        assert c.has_subject(A) and c.mentions(C) and not c.occurs(D) and len(c) == 4
        assert c.counts == {"quads": 1, "select": 1, "ask": 1, "describe": 1, "closure": 1,
                            "has_subject": 1, "mentions": 1, "occurs": 1, "len": 1}
        assert c.reads == 9
        assert c.log[:3] == [("add", ""), ("quads", ""), ("select", "all.rq")]
        with c.measure():
            c.describe([A])
            c.originals.get(sha256_hex(b"x"))
        assert (c.reads, c.writes, dict(c.blob_counts)) == (1, 0, {"get": 1})
        assert c.add_native is not None  # implementation extras reach the inner store
    assert len(inner) == 4  # leaving counting() does not close the inner store
    inner.close()
