"""Recorder: the foundation's done-when checks on a complete small pipeline."""

from __future__ import annotations

import datetime as dt

import pytest

from provgraph import EmbeddedStore, Recorder, RecordError
from provgraph.events import load_events
from provgraph.terms import IRI, lit
from provgraph.vocab import GRAPH, OA, PG, PROV, RDF

from . import pipeline


def test_python_api_and_jsonl_give_the_same_graph(rag_store):
    store, _ = rag_store
    other = EmbeddedStore()
    rec = load_events(other, pipeline.events(), name="fixture.jsonl")
    assert rec.iri == pipeline.RUN
    assert len(store) == len(other) > 250
    assert store.canonical_nquads() == other.canonical_nquads()


def test_store_reopens_from_disk_with_everything(store_path):
    s = EmbeddedStore(store_path)
    rec = Recorder(s, label="fixture", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    before = s.canonical_nquads()
    s.close()
    s2 = EmbeddedStore(store_path)
    assert s2.canonical_nquads() == before
    # the retained originals are there and verify
    assert s2.originals.get(r["policy_v1"].sha256) == pipeline.POLICY_V1.encode()
    s2.close()


def test_graph_layout_one_bundle_per_run_and_shared_ingestion(rag_store):
    store, r = rag_store
    assert store.named_graphs() == sorted([IRI(pipeline.RUN), GRAPH.INGESTION])
    assert store.contains((IRI(pipeline.RUN), RDF.type, PROV.Bundle, IRI(pipeline.RUN)))
    # ingestion facts live in the shared graph, request facts in the run graph
    assert store.contains((r["policy_v1"].iri, RDF.type, PG.SourceSnapshot, GRAPH.INGESTION))
    assert store.contains((r["c_interval"].iri, RDF.type, PG.Chunk, GRAPH.INGESTION))
    assert store.contains((r["prefix"].iri, RDF.type, PG.ContextualPrefix, GRAPH.INGESTION))
    assert store.contains((r["hyde"].iri, RDF.type, PG.HypotheticalDocument, IRI(pipeline.RUN)))
    assert store.contains((r["claim_quote"].iri, RDF.type, PG.Claim, IRI(pipeline.RUN)))


def test_revision_is_binary_and_qualified(rag_store):
    store, r = rag_store
    v1, v2 = r["policy_v1"].iri, r["policy_v2"].iri
    assert store.contains((v2, PROV.wasRevisionOf, v1, GRAPH.INGESTION))
    q = IRI(f"{v2}#revision")
    assert store.contains((v2, PROV.qualifiedRevision, q, GRAPH.INGESTION))
    assert store.contains((q, PROV.entity, v1, GRAPH.INGESTION))
    assert r["policy_v1"].document == r["policy_v2"].document


def test_recording_the_same_ingestion_twice_adds_nothing(rag_store):
    store, r = rag_store
    n = len(store)
    rec = Recorder(store, packages=[], run_iri=pipeline.RUN, label="fixture", started_at=pipeline.t(0))
    snap = rec.snapshot(pipeline.POLICY_V1.encode(), uri="https://example.org/policy.md",
                        media_type="text/markdown", observed_at=pipeline.t(500))
    ext = rec.extraction(snap, parser=("plain-utf8", "1.0"), text=pipeline.POLICY_V1,
                         ended_at=pipeline.t(2))
    chunks = rec.chunking(ext, chunker=("lines", "1.0"), ranges=[(21, 63)],
                          parameters={"by": "line"}, ended_at=pipeline.t(3))
    assert snap.iri == r["policy_v1"].iri and chunks[0].iri == r["c_interval"].iri
    assert len(store) == n


def test_support_shortcuts_follow_the_prov_statements(rag_store):
    store, r = rag_store
    rows = store.select(
        "SELECT ?c ?name WHERE { ?c <https://w3id.org/provgraph/ns#supportAgent> ?a . "
        "?a <https://w3id.org/provgraph/ns#agentName> ?name }", {"c": r["claim_quote"].iri})
    names = sorted(str(x["name"].value) for x in rows)
    assert names == ["ctx-gen", "extractive", "hyde-gen", "lines", "plain-utf8", "qa-template", "rank-bm25"]
    snaps = {q[2] for q in store.quads(r["claim_quote"].iri, PG.citedSnapshot)}
    assert snaps == {r["policy_v1"].iri}
    # the claim citing the generated prefix cites no snapshot at all
    assert not list(store.quads(r["claim_bad"].iri, PG.citedSnapshot))


def test_naive_datetime_is_rejected(store):
    with pytest.raises(RecordError, match="naive datetime"):
        Recorder(store, started_at=dt.datetime(2026, 1, 1))
    rec = Recorder(store)
    with pytest.raises(RecordError, match="timezone-aware"):
        rec.query("q", at=dt.datetime(2026, 1, 1, 12))


@pytest.mark.parametrize("kwargs, message", [
    ({"start": 0, "end": None, "unit": "codepoint"}, "give both or neither"),
    ({"start": 0, "end": 4}, "needs its unit"),
    ({"start": 0, "end": 4, "unit": "chars"}, "unknown offset unit"),
    ({"quote": ""}, "must not be empty"),
    ({"quote": "x", "policy": "nfkc"}, "unknown normalization policy 'nfkc'"),
    ({"quote": "x", "policy": "whitespace@9"}, "policy whitespace has version 1, not '9'"),
    ({"policy": "whitespace"}, "says how the quote is compared; give quote= as well"),
])
def test_bad_citations_are_rejected(rag_store, kwargs, message):
    store, r = rag_store
    rec = Recorder(store, packages=[])
    n = len(store)
    with pytest.raises(RecordError, match=message):
        rec.citation(r["claim_quote"], target=r["c_interval"], **kwargs)
    assert len(store) == n + 0  # the failed step stored nothing


def test_batch_is_all_or_nothing(store):
    rec = Recorder(store, packages=[])
    n = len(store)
    with pytest.raises(RecordError):
        with rec.batch():
            rec.query("first")
            rec.query("")
    assert len(store) == n


def test_chunk_range_outside_text_is_rejected(store):
    rec = Recorder(store, packages=[])
    snap = rec.snapshot(b"abc", uri="file:///a", media_type="text/plain")
    ext = rec.extraction(snap, parser=("p", "1"), text="abc")
    with pytest.raises(RecordError, match="outside"):
        rec.chunking(ext, chunker=("c", "1"), ranges=[(0, 9)])


def test_offset_map_is_checked(store):
    rec = Recorder(store, packages=[])
    snap = rec.snapshot(b"<p>a</p>", uri="file:///a.html", media_type="text/html")
    with pytest.raises(RecordError, match="offset_map=None"):
        rec.extraction(snap, parser=("html", "1"), text="a")
    with pytest.raises(RecordError, match="outside the snapshot"):
        rec.extraction(snap, parser=("html", "1"), text="a", offset_map=[(0, 1, 3, 99)])
    ext = rec.extraction(snap, parser=("html", "1"), text="a", offset_map=[(0, 1, 3, 4)])
    assert ext.offset_map == ((0, 1, 3, 4),)
    assert store.contains((ext.text_iri, PG.offsetMap, lit([[0, 1, 3, 4]]), GRAPH.INGESTION))


def test_raw_citation_ids_that_look_like_text_are_kept_raw(rag_store):
    store, r = rag_store
    rec = Recorder(store, packages=[])
    cit = rec.citation(r["claim_para"], target="see: page 4")
    assert cit.target is None and cit.target_id == "see: page 4"
    cit = rec.citation(r["claim_para"], target="doc-3")
    assert cit.target is None


def test_rolled_back_batch_forgets_its_records(store):
    rec = Recorder(store, packages=[])
    with pytest.raises(RecordError):
        with rec.batch():
            snap = rec.snapshot(b"gone", uri="file:///gone", media_type="text/plain")
            rec.query("")
    q = rec.query("q")
    a = rec.generation(rec.context_packing(text="x", segments=[]), model=("m", "1"), text="ans")
    c = rec.claim(a, start=0, end=3, kind="paraphrase")
    cit = rec.citation(c, target=snap.iri)
    assert cit.target is None  # the snapshot was never stored
    assert not list(store.quads(c.iri, PG.citedSnapshot))
    assert q.text == "q"


def test_deletion_is_idempotent(rag_store):
    store, r = rag_store
    rec = Recorder(store, packages=[])
    a1 = rec.deletion(r["faq"], at=pipeline.t(100))
    ingestion = len(list(store.quads(graph=GRAPH.INGESTION)))
    again = Recorder(store, packages=[])
    assert again.deletion(r["faq"], at=pipeline.t(200)) == a1
    assert len(list(store.quads(graph=GRAPH.INGESTION))) == ingestion
    assert len(list(store.quads(a1, PROV.endedAtTime))) == 1


def test_fixture_pipeline_conforms_to_the_shapes_and_a_targetless_citation_does_not(rag_store):
    from provgraph.shacl import validate_shapes

    store, r = rag_store
    assert validate_shapes(store).conforms
    Recorder(store, packages=[], run_iri=pipeline.RUN).citation(r["claim_para"], target="doc-3")
    report = validate_shapes(store)
    assert not report.conforms
    assert {v.path for v in report.violations} == {PG.target.n3()}


def test_a_declared_policy_is_recorded_on_the_quote_selector(rag_store):
    # QA 4: the citation's own pg:policy is the resolver's verdict policy, replaced at
    # each resolve; the declared one sits on the oa:TextQuoteSelector it qualifies
    store, r = rag_store
    rec = Recorder(store, packages=[])
    cit = rec.citation(r["claim_quote"], target=r["c_interval"],
                       quote="interval is\nnot specified", policy="whitespace")
    assert cit.policy == "whitespace@1"
    sel = IRI(f"{cit.iri}#quote")
    assert [q[2] for q in store.quads(sel, PG.policy)] == [lit("whitespace@1")]
    assert list(store.quads(cit.iri, PG.policy)) == []
    plain = rec.citation(r["claim_quote"], target=r["c_interval"], quote="interval")
    assert plain.policy is None and list(store.quads(IRI(f"{plain.iri}#quote"), PG.policy)) == []
    from provgraph.shacl import validate_shapes

    assert validate_shapes(store).conforms
    store.add([(IRI(f"{plain.iri}#quote"), PG.policy, lit("whitespace"), rec.iri)])
    report = validate_shapes(store)
    # the selector's shape is checked through the citation's oa:hasSelector
    assert not report.conforms
    assert {(v.focus_node, v.path) for v in report.violations} == {(plain.iri, OA.hasSelector.n3())}


@pytest.mark.parametrize("graph", [GRAPH.INGESTION, GRAPH.ONTOLOGY, GRAPH.REMOVALS])
def test_a_run_iri_naming_one_of_provgraphs_own_graphs_is_refused(store, graph):
    with pytest.raises(RecordError) as exc:
        Recorder(store, packages=[], run_iri=graph)
    assert str(exc.value) == (
        f"run_iri={graph!r}: {graph} is a graph provgraph reserves for itself (reserved: "
        "urn:provgraph:graph:ingestion, urn:provgraph:graph:ontology, "
        "urn:provgraph:graph:removals), not a run: 'provgraph runs' would not list a run "
        "recorded there, nor 'delete-run' remove it; give the run another IRI (a urn:uuid:, "
        "say), or leave it out to mint one")
    with pytest.raises(RecordError, match="reserves for itself"):  # held runs alike
        Recorder(store, packages=[], run_iri=graph, hold_run=True)
    assert len(store) == 0


def test_a_claim_or_activity_of_another_run_is_refused(rag_store):
    """Claims and request-time activities have one pg:run: naming one a run already holds
    from another run was stored, and the shapes then found two pg:run values."""
    store, r = rag_store
    rec = Recorder(store, packages=[], run_iri=pipeline.iri("b"))
    claim = r["claim_quote"]
    review = Recorder(store, packages=[]).review(claim, verdicts={"origin": "original"},
                                                  reviewer="ana", iri=pipeline.iri("rv1"))
    n = len(store)
    tail = (f" already belongs to run <{pipeline.RUN}> (its pg:run), and a resource belongs to "
            f"one run: record it in run <{pipeline.RUN}>, or give it an IRI of its own in run "
            f"<{pipeline.iri('b')}> (or none, to mint one)")
    with pytest.raises(RecordError) as exc:
        rec.claim(r["answer"].iri, start=1, end=42, kind="quotation", text=claim.text,
                  iri=claim.iri)
    assert str(exc.value) == f"claim <{claim.iri}>{tail}"
    with pytest.raises(RecordError) as exc:
        rec.retrieval(r["query"].iri, retriever=("rank-bm25", "0.2.2"), hits=[],
                      iri=r["retrieval"].iri)
    assert str(exc.value) == f"retrieval <{r['retrieval'].iri}>{tail}"
    gi = r["input"]
    with pytest.raises(RecordError) as exc:
        rec.context_packing(text="x", segments=[], iri=gi.iri)
    assert str(exc.value) == f"generator input <{gi.iri}> (its context packing <{gi.packing}>){tail}"
    ans = r["answer"]
    with pytest.raises(RecordError) as exc:
        rec.generation(gi.iri, model=("extractive", "1.0"), text=ans.text, iri=ans.iri)
    assert str(exc.value) == f"answer <{ans.iri}> (its generation <{ans.generation}>){tail}"
    with pytest.raises(RecordError) as exc:
        rec.review(claim, verdicts={"origin": "original"}, reviewer="ana", iri=review.iri)
    assert str(exc.value).startswith(f"review <{review.iri}> already belongs to run <{review.run}>")
    assert len(store) == n  # nothing of the refused steps was stored
    # the run that holds the claim records it again: the same statements, nothing added
    again = Recorder(store, packages=[], run_iri=pipeline.RUN)
    again.claim(r["answer"].iri, start=1, end=42, kind="quotation", text=claim.text,
                iri=claim.iri)
    assert len(store) == n
