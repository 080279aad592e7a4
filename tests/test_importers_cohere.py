"""Cohere Chat v2 and v1 citations: answer spans, document ids, retained documents."""

from __future__ import annotations

import json

import pytest

from provgraph import EmbeddedStore
from provgraph.errors import ImportFailed
from provgraph.importers import import_file

from .importers_support import (
    answers, citations, claims, fixture, fixture_json, queries, snapshot_text, snapshots,
)


def test_v2_claims_are_the_cited_spans_and_cite_the_request_documents(store):
    payload = fixture_json("cohere_v2.json")
    r = import_file(store, "cohere", fixture("cohere_v2.json"), "cohere_v2.json")
    assert (r.items_ok, r.answers, r.claims, r.citations, r.snapshots) == (1, 1, 2, 3, 2)
    answer = payload["response"]["message"]["content"][0]["text"]
    assert answers(store, r.run) == [answer]
    assert queries(store, r.run) == ["Que coûte la crème brûlée, et quand ouvre le café ?"]
    got = claims(store, r.run)
    cits = [c for c in payload["response"]["message"]["citations"] if c["type"] == "TEXT_CONTENT"]
    # the PLAN citation points into the model's plan, not the answer: skipped
    assert [(c["start"], c["end"], c["text"]) for c in got] == [
        (c["start"], c["end"], c["text"]) for c in cits]
    assert [c["text"] for c in got] == ["La crème brûlée coûte 5 €", "le café ouvre à 7 h."]
    # an emoji precedes the spans: as UTF-16 units they would start one later
    assert len(answer[:16].encode("utf-16-le")) // 2 == 17
    docs = payload["request"]["documents"]
    want = {json.dumps(d["data"], ensure_ascii=False, separators=(",", ":")) for d in docs}
    assert {snapshot_text(store, s) for s in snapshots(store)} == want
    menu = json.dumps(docs[0]["data"], ensure_ascii=False, separators=(",", ":"))
    hours = json.dumps(docs[1]["data"], ensure_ascii=False, separators=(",", ":"))
    [c1] = citations(store, got[0]["claim"])
    assert snapshot_text(store, c1["target"]) == menu and c1["unit"] is None
    c2 = citations(store, got[1]["claim"])
    assert sorted(snapshot_text(store, c["target"]) for c in c2) == sorted([menu, hours])
    uris = sorted(v["uri"] for v in snapshots(store).values())
    assert uris == ["cohere_v2.json#$.request.documents[0]", "cohere_v2.json#$.request.documents[1]"]


def test_v2_response_without_request_uses_the_documents_the_citations_carry(store):
    payload = fixture_json("cohere_v2.json")["response"]
    r = import_file(store, "cohere", json.dumps(payload).encode(), "resp.json")
    assert (r.claims, r.citations, r.snapshots) == (2, 3, 2)
    texts = {snapshot_text(store, s) for s in snapshots(store)}
    assert texts == {'{"snippet":"La crème brûlée coûte 5 € 😋 et le café 2 €.","title":"Carte 🍽"}',
                     '{"snippet":"Ouvert à 7 h, fermé le lundi.","title":"Horaires"}'}


def test_utf16_offsets_are_recognised_by_the_cited_text(store):
    payload = fixture_json("cohere_v2.json")
    for c in payload["response"]["message"]["citations"][:2]:
        c["start"] += 1  # the answer opens with one astral emoji: two UTF-16 units
        c["end"] += 1
    r = import_file(store, "cohere", json.dumps(payload).encode(), "utf16.json")
    assert [c["text"] for c in claims(store, r.run)] == ["La crème brûlée coûte 5 €",
                                                         "le café ouvre à 7 h."]


def test_v1_document_ids(store):
    payload = fixture_json("cohere_v1.json")
    r = import_file(store, "cohere", fixture("cohere_v1.json"), "cohere_v1.json")
    assert (r.claims, r.citations, r.snapshots) == (2, 2, 2)
    got = claims(store, r.run)
    assert [c["text"] for c in got] == ["Emperor penguins", "only live in Antarctica."]
    for claim, cit, doc in zip(got, payload["citations"], payload["documents"]):
        [c] = citations(store, claim["claim"])
        assert cit["document_ids"] == [doc["id"]]
        body = {k: v for k, v in doc.items() if k != "id"}
        assert snapshot_text(store, c["target"]) == json.dumps(body, separators=(",", ":"))


def test_unknown_source_id_and_wrong_span_text_are_item_errors():
    payload = fixture_json("cohere_v2.json")
    payload["response"]["message"]["citations"][1]["sources"][0]["id"] = "doc:7"
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "cohere", json.dumps(payload).encode(), "bad.json")
    [err] = info.value.report.errors
    assert err.path == "$.response.message.citations[1].sources[0].id"
    assert err.message == ("source id 'doc:7' is not among the 2 documents of the request "
                           "(menu, doc:1)")
    payload = fixture_json("cohere_v2.json")
    payload["response"]["message"]["citations"][0]["end"] += 3
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "cohere", json.dumps(payload).encode(), "bad.json")
    [err] = info.value.report.errors
    assert err.path == "$.response.message.citations[0]"
    assert err.message == ("answer range: range [16, 44) holds 'La crème brûlée coûte 5 € et', not "
                           "the cited text 'La crème brûlée coûte 5 €', counted in codepoint or "
                           "utf16_unit")
