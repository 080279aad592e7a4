"""The support shortcuts (pg:supportAgent, pg:citedSnapshot) do not depend on the session.

A claim recorded in the Recorder session that recorded its answer (support from the
Recorder's memory) and the same claim added later from a new Recorder over the same
store (support read back from the store) must get the same shortcuts, so that
``impact`` and ``stale`` find it either way.
"""

from __future__ import annotations

import datetime as dt

from provgraph import EmbeddedStore, Recorder, Segment
from provgraph.analytics import impact
from provgraph.model import Hit
from provgraph.terms import IRI
from provgraph.vocab import PG, RDF

from . import pipeline

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 4, 1, 8, 0, tzinfo=UTC)
RUN = "urn:uuid:01900000-0000-7000-8000-0000000000aa"


def agents(store, claim) -> set[str]:
    """``name version`` of each pg:supportAgent of ``claim``."""
    rows = store.select(
        "PREFIX pg: <https://w3id.org/provgraph/ns#> SELECT ?c ?n ?v WHERE { "
        "?c pg:supportAgent ?a . ?a pg:agentName ?n ; pg:agentVersion ?v }", {"c": IRI(claim)})
    return {f"{r['n'].value} {r['v'].value}".strip() for r in rows}


def cited(store, claim) -> set[IRI]:
    return {q[2] for q in store.quads(IRI(claim), PG.citedSnapshot)}


def _claim_again(rec, answer, claim, citations):
    """``claim`` recorded again by ``rec`` on ``answer`` given by IRI, with the same citations."""
    new = rec.claim(answer.iri, start=claim.start, end=claim.end, kind=claim.kind,
                    status=claim.status, text=claim.text)
    for cit in citations:
        rec.citation(new, target=cit.target, start=cit.start, end=cit.end, unit=cit.unit,
                     quote=cit.quote)
    return new


def test_fixture_claims_get_the_same_support_in_a_new_session(rag_store):
    store, r = rag_store
    cits = {"claim_quote": [r["cit1"]], "claim_para": [r["cit2"], r["cit3"]],
            "claim_bad": [r["cit4"]]}
    rec = Recorder(store, packages=[], run_iri=pipeline.RUN)  # a new session, empty caches
    for name, cs in cits.items():
        old = r[name]
        new = _claim_again(rec, r["answer"], old, cs)
        assert agents(store, new.iri) == agents(store, old.iri), name
        assert cited(store, new.iri) == cited(store, old.iri), name
    assert "hyde-gen 0.1" in agents(store, r["claim_quote"].iri)


def test_an_uncited_claim_gets_the_same_support_in_either_session(store):
    first = Recorder(store, packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(first)
    ans = r["answer"]
    # same session as its answer: the answer's support is in the Recorder's memory
    same = first.claim(ans, start=0, end=5, kind="paraphrase")
    assert agents(store, same.iri) == {
        "extractive 1.0", "qa-template 3", "rank-bm25 0.2.2", "hyde-gen 0.1", "ctx-gen 0.1",
        "lines 1.0", "plain-utf8 1.0"}
    later = Recorder(store, packages=[], run_iri=pipeline.RUN)
    other = later.claim(ans.iri, start=0, end=5, kind="paraphrase", text=ans.text[:5])
    assert agents(store, other.iri) == agents(store, same.iri)


def _record_hyde_pipeline(rec: Recorder) -> dict:
    """A retrieval that used a HyDE document; a second source parsed by another parser."""
    out: dict = {}
    text = "Pumps are tested every 6 months.\nValves are tested yearly.\n"
    snap = rec.snapshot(text.encode(), uri="file:///pumps.txt", media_type="text/plain",
                        observed_at=T0)
    ext = rec.extraction(snap, parser=("txt-parser", "2"), text=text, ended_at=T0)
    chunks = rec.chunking(ext, chunker=("lines", "1.0"), ranges=[(0, 33), (33, len(text))],
                          ended_at=T0)
    other_text = "Valves: yearly."
    snap2 = rec.snapshot(other_text.encode(), uri="file:///valves.txt", media_type="text/plain",
                         observed_at=T0)
    ext2 = rec.extraction(snap2, parser=("other-parser", "9"), text=other_text, ended_at=T0)
    out["valves"] = rec.chunking(ext2, chunker=("whole", "1"), ranges=[(0, len(other_text))],
                                 ended_at=T0)[0]
    q = rec.query("How often are pumps tested?", at=T0, iri=pipeline.iri("hq"))
    hyde = rec.aid("hypothetical_document", text="Pumps are tested twice a year.",
                   model=("hyde-model", "1"), derived_from=[q], at=T0)
    ret = rec.retrieval(q, retriever=("dense", "3"), hits=[Hit(target=chunks[0], rank=1, score=0.9)],
                        aids=[hyde], started_at=T0, iri=pipeline.iri("hr"))
    prompt = "Context:\n" + chunks[0].text
    gi = rec.context_packing(text=prompt, retrieval=ret, template=("tmpl", "1"),
                             segments=[Segment(start=0, end=9, origin="instruction"),
                                       Segment(start=9, end=len(prompt), origin="original",
                                               source=chunks[0])], at=T0,
                             iri=pipeline.iri("hgi"))
    out["answer"] = rec.generation(gi, model=("gen", "5"), text="Every 6 months.", started_at=T0,
                                   iri=pipeline.iri("ha"))
    out["chunk"] = chunks[0]
    out["snapshot"] = snap
    return out


HYDE_SUPPORT = {"gen 5", "tmpl 1", "dense 3", "hyde-model 1", "txt-parser 2", "lines 1.0"}


def test_a_claim_added_from_a_new_session_keeps_the_retrieval_aids_model(tmp_path):
    path = tmp_path / "store"
    store = EmbeddedStore(path)
    first = Recorder(store, packages=[], run_iri=RUN, started_at=T0)
    r = _record_hyde_pipeline(first)
    same = first.claim(r["answer"], start=0, end=14, kind="paraphrase")
    first.citation(same, target=r["chunk"])
    assert agents(store, same.iri) == HYDE_SUPPORT
    del first
    store.close()

    store = EmbeddedStore(path)  # a new process: only the store is shared
    later = Recorder(store, packages=[], run_iri=RUN)
    ans = r["answer"]
    other = later.claim(ans.iri, start=0, end=14, kind="paraphrase", text=ans.text[:14])
    later.citation(other, target=r["chunk"].iri)
    assert agents(store, other.iri) == agents(store, same.iri) == HYDE_SUPPORT
    assert cited(store, other.iri) == cited(store, same.iri) == {r["snapshot"].iri}
    # the HyDE model's upgrade impacts both claims
    rows = impact(store, "hyde-model", version="1")
    assert {row.claim for row in rows} == {same.iri, other.iri}
    store.close()


def test_operands_and_citations_from_an_earlier_session_carry_their_whole_support(store):
    first = Recorder(store, packages=[], run_iri=RUN, started_at=T0)
    r = _record_hyde_pipeline(first)
    a = first.claim(r["answer"], start=0, end=14, kind="paraphrase")
    first.citation(a, target=r["valves"])  # a source the prompt did not contain
    full = HYDE_SUPPORT | {"other-parser 9", "whole 1"}
    assert agents(store, a.iri) == full

    # same session: a derivation from the claim gets the claim's whole support
    d1 = first.claim(r["answer"], start=0, end=5, kind="derivation", derived_from=[a],
                     warrant="restated")
    later = Recorder(store, packages=[], run_iri=RUN)
    # new session: the operand's support is read back from the store
    d2 = later.claim(r["answer"].iri, start=0, end=5, kind="derivation", derived_from=[a.iri],
                     warrant="restated", text=r["answer"].text[:5])
    assert agents(store, d2.iri) == agents(store, d1.iri) == full
    assert cited(store, d2.iri) == cited(store, d1.iri) == cited(store, a.iri)

    # a citation added to the earlier claim from the new session keeps what it had
    later.citation(a.iri, target=r["chunk"].iri)
    d3 = later.claim(r["answer"].iri, start=0, end=5, kind="derivation", derived_from=[a.iri],
                     warrant="restated", text=r["answer"].text[:5])
    assert agents(store, d3.iri) == full


# ---------------------------------------------------------------------------------------
# one definition: what a Recorder remembers is what the store gives back


def _remembered(rec: Recorder) -> dict:
    sc = rec._support
    return {**sc.ingestion, **sc.recent}


def test_every_remembered_support_equals_the_one_read_back_from_the_store(store):
    from provgraph._support import SupportCache

    rec = Recorder(store, packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    h = _record_hyde_pipeline(rec)
    c = rec.claim(h["answer"], start=0, end=5, kind="derivation", warrant="w",
                  derived_from=[r["claim_para"], h["chunk"]])
    rec.citation(c, target=r["prefix"])
    rec.indexed(h["chunk"], text="Pumps. " + h["chunk"].text, embedder=("emb", "2"),
                segments=[Segment(start=0, end=7, origin="generated", source=r["prefix"]),
                          Segment(start=7, end=7 + len(h["chunk"].text), origin="original",
                                  source=h["chunk"])])
    memory = _remembered(rec)
    assert len(memory) > 30
    fresh = SupportCache(store)
    for iri, support in memory.items():
        assert fresh.of(iri) == support, iri
    # the kinds of entity are all there
    kinds = {q[2] for iri in memory for q in store.quads(iri, RDF.type)}
    assert {PG.SourceSnapshot, PG.ExtractedText, PG.Chunk, PG.ContextualPrefix,
            PG.HypotheticalDocument, PG.IndexedRepresentation, PG.Query, PG.Retrieval,
            PG.GeneratorInput, PG.Answer, PG.Claim} <= kinds


def test_a_derivation_takes_its_operands_support_as_it_stands_then(store):
    # a claim's support is fixed when it is recorded (growing by its own citations) and
    # written as its shortcuts: a later citation of an operand does not reach it, in
    # memory or read back from the store
    rec = Recorder(store, packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    d1 = rec.claim(r["answer"], start=0, end=5, kind="derivation", warrant="w",
                   derived_from=[r["claim_quote"]], iri=pipeline.iri("d1"))
    rec.citation(r["claim_quote"], target=r["c_faq_a"])
    assert cited(store, r["claim_quote"].iri) == {r["policy_v1"].iri, r["faq"].iri}
    assert cited(store, d1.iri) == {r["policy_v1"].iri}
    for size in (8192, 1):
        later = Recorder(store, packages=[], run_iri=pipeline.RUN, cache_size=size)
        later.query("evicts everything else")
        d2 = later.claim(r["answer"], start=0, end=5, kind="derivation", warrant="w",
                         derived_from=[d1])
        assert cited(store, d2.iri) == {r["policy_v1"].iri}
        d3 = later.claim(r["answer"], start=0, end=5, kind="derivation", warrant="w",
                         derived_from=[r["claim_quote"].iri])
        assert cited(store, d3.iri) == {r["policy_v1"].iri, r["faq"].iri}


def test_an_indexed_text_recorded_again_keeps_the_stored_embedder(store):
    rec = Recorder(store, packages=[])
    r = _record_hyde_pipeline(rec)
    seg = [Segment(start=0, end=len(r["chunk"].text), origin="original", source=r["chunk"])]
    ix = rec.indexed(r["chunk"], text=r["chunk"].text, segments=seg, embedder=("emb", "1"))
    again = rec.indexed(r["chunk"], text=r["chunk"].text, segments=seg)  # no embedder given
    assert again.iri == ix.iri
    q = rec.query("q")
    gi = rec.context_packing(text="x", segments=[Segment(start=0, end=1, origin="original",
                                                         source=ix)])
    a = rec.generation(gi, model=("m", "1"), text="abc")
    c = rec.claim(a, start=0, end=3, kind="paraphrase")
    assert "emb 1" in agents(store, c.iri) and q.text == "q"


# ---------------------------------------------------------------------------------------
# memory: request-time entries are bounded, and the bound changes no statement


def _record_workload(store, answers: int, cache_size: int | None):
    from bench import workload as w

    wl = w.Workload(answers)
    kw = {} if cache_size is None else {"cache_size": cache_size}
    rec = Recorder(store, label="bench", packages=[], run_iri=wl.run_iri, started_at=w.T0, **kw)
    ing = w.record_ingestion(rec, wl)
    for a in wl.specs():
        w.record_answer(rec, wl, ing, a)
    return rec


def test_a_cache_of_one_entry_writes_the_same_statements_as_the_default(monkeypatch):
    import provgraph._support as support_module

    reads = []
    real = support_module.read_step
    monkeypatch.setattr(support_module, "read_step", lambda st, x: reads.append(x) or real(st, x))
    stores = []
    for size in (None, 1):
        reads.clear()
        s = EmbeddedStore()
        rec = _record_workload(s, 40, size)  # one batch per answer
        # and steps outside any batch: the fixture pipeline, a retrieval with an aid,
        # a derivation from claims and a citation added to an early claim
        kw = {} if size is None else {"cache_size": size}
        rec2 = Recorder(s, packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0), **kw)
        r = pipeline.record(rec2)
        h = _record_hyde_pipeline(rec2)
        rec2.claim(h["answer"], start=0, end=5, kind="derivation", warrant="w",
                   derived_from=[r["claim_para"], r["claim_quote"]], iri=pipeline.iri("d1"))
        rec2.citation(r["claim_quote"], target=h["valves"], iri=pipeline.iri("ct9"))
        rec2.claim(r["answer"], start=0, end=5, kind="paraphrase", iri=pipeline.iri("cl9"))
        stores.append(s)
        if size is None:
            assert reads == []  # everything was in memory
        else:
            assert len(rec._support.recent) == len(rec2._support.recent) == 1
            assert len(reads) > 10  # evicted entries were read back from the store
    big, tiny = stores
    assert len(big) == len(tiny) > 8000
    assert big.canonical_nquads() == tiny.canonical_nquads()
    assert "other-parser 9" in agents(tiny, pipeline.iri("cl1"))
    assert "hyde-gen 0.1" in agents(tiny, pipeline.iri("cl9"))


def test_request_entries_are_bounded_and_ingestion_entries_are_kept(store):
    from bench import workload as w

    rec = _record_workload(store, 60, 16)
    sc = rec._support
    assert len(sc.recent) == 16
    wl = w.Workload(60)
    assert len(sc.ingestion) == wl.corpus.n_chunks + 2 * wl.corpus.n_snapshots + len(wl.corpus.revised)
    written = len(rec._written)
    q = rec.query("more?")
    hyde = rec.aid("hypothetical_document", text="A guess.", model=("hyde", "1"), derived_from=[q])
    assert len(rec._written) == written  # a per-request aid is a request entry
    assert hyde.iri in sc.recent
    assert rec.aid("hypothetical_document", text="A guess.", model=("hyde", "1"),
                   derived_from=[q]).iri == hyde.iri


def test_a_rolled_back_batch_forgets_its_entries_and_keeps_earlier_ones(store):
    rec = Recorder(store, packages=[], cache_size=2)
    r = _record_hyde_pipeline(rec)
    kept = rec.claim(r["answer"], start=0, end=5, kind="paraphrase")
    before = rec._support.of(kept.iri)
    try:
        with rec.batch():
            rec.citation(kept, target=r["valves"])
            gone = rec.claim(r["answer"], start=0, end=5, kind="paraphrase")
            assert "other-parser 9" not in agents(store, kept.iri)
            raise KeyError("boom")
    except KeyError:
        pass
    assert gone.iri not in rec._support
    assert rec._support.of(kept.iri) == before
    # the claim's support is what the store says: the failed citation added nothing
    rec.citation(kept, target=r["valves"])
    assert "other-parser 9" in agents(store, kept.iri)


def test_cache_size_must_be_a_positive_whole_number(store):
    from provgraph import RecordError
    import pytest

    for bad in (0, -1, 1.5, "8"):
        with pytest.raises(RecordError, match="cache_size"):
            Recorder(store, packages=[], cache_size=bad)


# ---------------------------------------------------------------------------------------
# property: sessions, cache sizes and batches change no statement

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_OPS = st.lists(st.one_of(
    st.tuples(st.just("answer"), st.booleans()),  # with a HyDE document or not
    st.tuples(st.just("claim"), st.integers(0, 99), st.lists(st.integers(0, 99), max_size=2)),
    st.tuples(st.just("cite"), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("session"), st.sampled_from([1, 2, 3, 8192])),
    st.tuples(st.just("batch"), st.integers(1, 4)),
), max_size=25)


def _play(store, ops, *, variant: bool) -> None:
    rec = Recorder(store, packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    h = _record_hyde_pipeline(rec)
    answers = [r["answer"], h["answer"]]
    claims = [r["claim_quote"], r["claim_para"], r["claim_bad"]]
    targets = [r["c_interval"], r["c_faq_a"], r["prefix"], r["hyde"], h["valves"], h["chunk"],
               r["policy_v2"], "doc-7", r["input"]]
    n = 0
    batch: list = []  # [open context manager, steps left]

    def name(kind: str) -> str:
        return pipeline.iri(f"z{kind}{n}")  # apart from the fixture's pinned IRIs

    for op in ops:
        n += 1
        if op[0] == "session":
            if variant and not batch:
                rec = Recorder(store, packages=[], run_iri=pipeline.RUN, cache_size=op[1])
            continue
        if op[0] == "batch":
            if variant and not batch:
                cm = rec.batch()
                cm.__enter__()
                batch = [cm, op[1]]
            continue
        if op[0] == "answer":
            q = rec.query(f"question {n}?", at=T0, iri=name("q"))
            aids = [rec.aid("hypothetical_document", text=f"guess {n}", model=("hyde-model", "1"),
                            derived_from=[q], at=T0)] if op[1] else []
            ret = rec.retrieval(q, retriever=("dense", "3"), hits=[Hit(target=h["chunk"], rank=1,
                                                                       score=1.0)],
                                aids=aids, started_at=T0, iri=name("r"))
            gi = rec.context_packing(text="ctx " + h["valves"].text, retrieval=ret, at=T0,
                                     segments=[Segment(start=4, end=4 + len(h["valves"].text),
                                                       origin="original", source=h["valves"])],
                                     iri=name("gi"))
            answers.append(rec.generation(gi, model=("gen", str(n % 2)), text="An answer.",
                                          started_at=T0, iri=name("a")))
        elif op[0] == "claim":
            a = answers[op[1] % len(answers)]
            ops_ = [claims[i % len(claims)] for i in op[2]]
            if op[1] % 2:  # by IRI, as a later session or another process would
                a = a.iri
            claims.append(rec.claim(a, start=0, end=2, text="An"[:2] if isinstance(a, str) else None,
                                    kind="derivation" if ops_ else "paraphrase",
                                    derived_from=ops_, warrant="w" if ops_ else None,
                                    iri=name("c")))
        elif op[0] == "cite":
            c = claims[op[1] % len(claims)]
            rec.citation(c.iri if op[1] % 2 else c, target=targets[op[2] % len(targets)],
                         iri=name("ct"))
        if batch:
            batch[1] -= 1
            if batch[1] == 0:
                batch[0].__exit__(None, None, None)
                batch = []
    if batch:
        batch[0].__exit__(None, None, None)


@settings(max_examples=40, deadline=None)
@given(_OPS)
def test_sessions_cache_sizes_and_batches_change_no_statement(ops):
    reference, variant = EmbeddedStore(), EmbeddedStore()
    try:
        _play(reference, ops, variant=False)
        _play(variant, ops, variant=True)
        assert variant.canonical_nquads() == reference.canonical_nquads()
    finally:
        reference.close()
        variant.close()


def test_the_request_tier_evicts_the_least_recently_used_entry(store):
    from provgraph._support import SupportCache

    rec = Recorder(store, packages=[])
    qs = [rec.query(f"q{i}") for i in range(3)]
    cache = SupportCache(store, size=2)
    cache.of(qs[0].iri)
    cache.of(qs[1].iri)
    cache.of(qs[0].iri)  # used again: now the most recent
    cache.of(qs[2].iri)
    assert list(cache.recent) == [qs[0].iri, qs[2].iri]
