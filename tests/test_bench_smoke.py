"""The benchmark workload has the shape bench/workload.py promises: a tiny run of the
generator, with the statements of every answer counted from its spec (not timed)."""

from __future__ import annotations

from collections import Counter

from bench import workload as w
from provgraph import EmbeddedStore
from provgraph.vocab import PG, PROV, RDF

N = 12

# Fixed statements per answer (recorder.py): query 4; retrieval 12 (activity, times, retriever
# agent) + used query + index version + 6 per ranked hit; context packing 10; generation 19;
# each claim 10 + one pg:supportAgent per agent of the answer (retriever, model).
FIXED = 4 + (12 + 1 + 1 + 6 * w.HITS_PER_ANSWER) + 10 + 19 + w.CLAIMS_PER_ANSWER * (10 + 2)


def expected_statements(wl: w.Workload, a: w.AnswerSpec) -> int:
    """Statements the Recorder writes for answer ``a``, from the spec alone."""
    c = wl.corpus
    n = FIXED
    for claim in a.claims:
        agents: set[str] = {"retriever", "model"}
        snaps: set[int] = set()
        for cit in claim.citations:
            n += 5  # type x2, pg:citation, pg:targetId, pg:target
            n += 4 if cit.start is not None else 0  # start, end, unit, endInclusive
            n += 3 if cit.quote is not None else 0  # oa:hasSelector, its type, oa:exact
            snap = c.snapshot_of(cit.chunk)
            new_agents = set() if cit.snapshot else {f"parser {c.parser_version(snap)}", "chunker"}
            n += len(new_agents - agents) + len({snap} - snaps)  # the two shortcuts
            agents |= new_agents
            snaps.add(snap)
    return n


def test_every_answer_writes_the_statements_its_spec_implies():
    wl = w.Workload(N)
    cap = w.capture(wl)
    specs = list(wl.specs())
    assert len(cap.answers) == N  # one transaction per answer
    assert [len(t) for t in cap.answers] == [expected_statements(wl, a) for a in specs]
    assert 175 <= cap.statements_per_answer <= 195


def test_answer_shape():
    wl = w.Workload(N)
    for a in wl.specs():
        assert len(a.hits) == w.HITS_PER_ANSWER
        assert len({c for c, _ in a.hits}) == w.HITS_PER_ANSWER
        assert [s for _, s in a.hits] == sorted((s for _, s in a.hits), reverse=True)
        assert [c.kind for c in a.claims] == ["quotation", "paraphrase", "paraphrase"]
        assert [len(c.citations) for c in a.claims] == [1, 2, 1 + a.index % 2]
        quote = a.claims[0].citations[0]
        assert wl.corpus.chunk_text(quote.chunk)[quote.start:quote.end] == quote.quote
        assert a.answer[a.claims[0].start:a.claims[0].end] == quote.quote
        last = a.claims[2].citations[0]
        assert last.snapshot == (a.index % 5 == 0)
        if last.snapshot:
            raw = wl.corpus.texts[wl.corpus.snapshot_of(last.chunk)].encode("utf-8")
            assert raw[last.start:last.end].decode("utf-8") == last.quote


def test_corpus_shape_and_ingestion_statements():
    wl = w.Workload(N)
    c = wl.corpus
    assert (c.n_snapshots, c.n_chunks) == (20, 1000)  # one snapshot per 50 chunks
    assert sorted(c.revised) == [0, 10]
    assert Counter(c.parser_version(s) for s in range(c.n_snapshots)) == {"1.0": 7, "1.1": 7, "2.0": 6}
    cap = w.capture(wl, stop=0)
    # per snapshot: document 4 + snapshot 9 + observation 4 + extraction 22 + chunking 13
    # + 12 per chunk; per revision 21; run header 9
    assert sum(map(len, cap.ingestion)) == 20 * (4 + 9 + 4 + 22 + 13 + 12 * 50) + 2 * 21 + 9


def test_recorded_store_holds_the_captured_statements():
    wl = w.Workload(N)
    cap = w.capture(wl)
    store = EmbeddedStore()
    w.record_workload(store, wl, stop=0)
    before = len(store)
    rec, ing = w.record_workload(store, wl)  # ingestion again adds nothing (content IRIs)
    # the retriever's and the model's agent statements (6 each) repeat in every answer
    assert len(store) - before == sum(map(len, cap.answers)) - 12 * (N - 1)
    run = wl.run_iri
    claims = store.select("SELECT (COUNT(?c) AS ?n) WHERE { ?c a <%s> }" % PG.Claim)
    assert claims[0]["n"].value == str(3 * N)
    # a quotation claim's citation target derives from a snapshot of the recorded corpus
    a0 = wl.spec(0)
    chunk = ing.chunks[a0.claims[0].citations[0].chunk]
    assert store.contains((wl.iri("citation", 0, 0), PG.target, chunk.iri, run))
    assert store.contains((chunk.iri, PROV.wasDerivedFrom, chunk.text_iri, w.GRAPH_INGESTION))
    assert store.contains((wl.iri("claim", 0, 0), RDF.type, PG.Claim, run))
    store.close()


def test_build_store_holds_what_the_recorder_writes(tmp_path):
    wl = w.Workload(5)
    fast = w.build_store(tmp_path / "fast", wl)
    slow = EmbeddedStore()
    w.record_workload(slow, wl)
    assert len(fast) == len(slow)
    assert fast.canonical_nquads() == slow.canonical_nquads()
    snap = wl.corpus.texts[0].encode("utf-8")
    from provgraph.originals import sha256_hex

    assert fast.originals.get(sha256_hex(snap)) == snap
    fast.close()
    slow.close()


def test_export_benchmark_runs_end_to_end_on_a_tiny_workload(tmp_path):
    """bench_export.run on 12 answers: both sides measured, in child processes."""
    from bench import bench_export

    res = bench_export.run(12, workdir=str(tmp_path), n_claims=3)
    p, g = res["prov"], res["provgraph"]
    assert g["available"] and p["records"] > 12 * 10
    assert g["statements"] == _run_bundle_statements(12) and g["scan_quads"] >= g["statements"]
    assert g["import_quads"] > p["records"] and g["maxrss_mb"] > 0 and g["claim_ms_median"] > 0
    run = g["whole_run"]
    assert run["statements"] == g["statements"] and run["pairs"]["a"]["n"] == 3
    mine, theirs = run["content"]["provgraph"], run["content"]["prov"]
    assert (mine["expected"], mine["dropped"], mine["extra"]) == (g["statements"], 0, 0)
    assert theirs["dropped"] > 0  # the prov package's RDF reader drops the selectors
    assert "oa:TextQuoteSelector" in theirs["dropped_by_type"]
    assert g["claim_floor_pairs"]["a"]["n"] == 3
    from bench.__main__ import render_export

    assert "drops / adds" in render_export(res)
    assert list(tmp_path.iterdir()) == []  # every temporary store and file removed


def test_the_content_check_sees_a_dropped_and_an_added_statement():
    """bench_export.content_check fails a file that lost or gained a statement."""
    from bench import bench_export
    from provgraph.io.bundle import export
    from provgraph.terms import IRI, Literal

    store = EmbeddedStore()
    wl = w.Workload(3)
    w.record_workload(store, wl)
    statements = bench_export.run_statements(store, wl.run_iri)
    data = export(store, "prov-json", run=wl.run_iri).data
    assert bench_export.content_check(statements, data)["dropped"] == 0
    extra = (IRI("urn:x:s"), IRI("urn:x:p"), Literal("o"))
    got = bench_export.content_check([*statements, extra], data)
    assert (got["dropped"], got["extra"], got["dropped_by_predicate"]) == (1, 0, {"urn:x:p": 1})
    got = bench_export.content_check([t for t in statements if t[1] != IRI(
        "https://w3id.org/provgraph/ns#text")], data)
    assert got["dropped"] == 0 and got["extra"] > 0 and "pg:text" in got["extra_by_predicate"]
    store.close()


def _run_bundle_statements(n):
    """The run bundle's size through the general (read-back) path, in N-Quads."""
    from provgraph.io.bundle import export

    store = EmbeddedStore()
    wl = w.Workload(n)
    w.record_workload(store, wl)
    got = export(store, "nquads", run=wl.run_iri).statements
    store.close()
    return got
