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
from provgraph.vocab import PG

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
    q = rec.query("How often are pumps tested?", at=T0)
    hyde = rec.aid("hypothetical_document", text="Pumps are tested twice a year.",
                   model=("hyde-model", "1"), derived_from=[q], at=T0)
    ret = rec.retrieval(q, retriever=("dense", "3"), hits=[Hit(target=chunks[0], rank=1, score=0.9)],
                        aids=[hyde], started_at=T0)
    prompt = "Context:\n" + chunks[0].text
    gi = rec.context_packing(text=prompt, retrieval=ret, template=("tmpl", "1"),
                             segments=[Segment(start=0, end=9, origin="instruction"),
                                       Segment(start=9, end=len(prompt), origin="original",
                                               source=chunks[0])], at=T0)
    out["answer"] = rec.generation(gi, model=("gen", "5"), text="Every 6 months.", started_at=T0)
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
