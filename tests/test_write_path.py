"""The write hot path tuned in issue 8 keeps its behaviour: term conversion gives the
same pyoxigraph terms for every term kind, and a failed batch forgets what it wrote."""

from __future__ import annotations

import pytest

from provgraph import EmbeddedStore, Recorder, RecordError
from provgraph.store import _quad_to_ox, _to_ox
from provgraph.terms import IRI, BNode, Literal, lit
from provgraph.vocab import GRAPH, PG, RDF


@pytest.mark.parametrize("quad", [
    (IRI("urn:x:s"), IRI("urn:x:p"), IRI("urn:x:o"), IRI("urn:x:g")),
    (IRI("urn:x:s"), IRI("urn:x:p"), lit("plain"), None),
    (IRI("urn:x:s"), IRI("urn:x:p"), lit(3), IRI("urn:x:g")),
    (IRI("urn:x:s"), IRI("urn:x:p"), Literal("chat", language="fr"), IRI("urn:x:g")),
    (IRI("urn:x:s"), IRI("urn:x:p"), Literal("x", datatype=""), IRI("urn:x:g")),
    (BNode("b1"), IRI("urn:x:p"), BNode("b2"), IRI("urn:x:g")),
    ("urn:x:plain-str", "urn:x:p", "urn:x:o", "urn:x:g"),
])
def test_fast_conversion_matches_the_generic_one(quad):
    import pyoxigraph as ox

    s, p, o, g = quad
    expected = ox.Quad(_to_ox(s), _to_ox(p), _to_ox(o), ox.DefaultGraph() if g is None else _to_ox(g))
    assert _quad_to_ox(quad) == expected


def test_a_failed_batch_forgets_the_snapshot_it_recorded():
    store = EmbeddedStore()
    rec = Recorder(store, packages=[])
    n = len(store)
    with pytest.raises(RecordError):
        with rec.batch():
            snap = rec.snapshot(b"bytes", uri="file:///a", media_type="text/plain")
            rec.query("")  # fails: the whole batch is dropped
    assert len(store) == n
    # recording it again must write it: the recorder does not think it is stored
    again = rec.snapshot(b"bytes", uri="file:///a", media_type="text/plain")
    assert again.iri == snap.iri
    assert store.contains((snap.iri, RDF.type, PG.SourceSnapshot, GRAPH.INGESTION))
    store.close()


def test_a_failed_batch_keeps_what_earlier_batches_recorded():
    store = EmbeddedStore()
    rec = Recorder(store, packages=[])
    with rec.batch():
        first = rec.snapshot(b"one", uri="file:///one", media_type="text/plain")
    n = len(store)
    with pytest.raises(RecordError):
        with rec.batch():
            rec.snapshot(b"two", uri="file:///two", media_type="text/plain")
            rec.query("")
    assert len(store) == n
    # the first snapshot is still known: recording it again adds nothing
    rec.snapshot(b"one", uri="file:///one", media_type="text/plain")
    assert len(store) == n
    assert first.iri in rec._written
    store.close()
