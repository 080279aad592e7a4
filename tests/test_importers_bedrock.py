"""Amazon Bedrock RetrieveAndGenerate / Retrieve: the real recorded cassettes
(span end inclusive) and a non-ASCII fixture."""

from __future__ import annotations

import json

import pytest
import yaml

from provgraph import EmbeddedStore
from provgraph.errors import ImportFailed
from provgraph.importers import import_file

from .conftest import shared_cases
from .importers_support import (
    answers, citations, claims, fixture, fixture_json, hits, queries, snapshot_text, snapshots,
)

pytestmark = pytest.mark.shared

RAG = ("test_retrieve_and_generate_with_knowledge_base.yaml",
       "test_retrieve_and_generate_with_external_s3_source.yaml")


def _cassette(name: str) -> tuple[dict, dict, bytes]:
    raw = (shared_cases("real-rag/bedrock") / name).read_bytes()
    [inter] = yaml.safe_load(raw)["interactions"]
    return json.loads(inter["request"]["body"]), json.loads(inter["response"]["body"]["string"]), raw


@pytest.mark.parametrize("name", RAG)
def test_recorded_claim_spans_equal_the_cited_text_under_the_inclusive_end_rule(store, name):
    _, resp, raw = _cassette(name)
    out = resp["output"]["text"]
    parts = [c["generatedResponsePart"]["textResponsePart"] for c in resp["citations"]]
    for p in parts:  # the rule itself, measured on the recording
        assert out[p["span"]["start"]:p["span"]["end"] + 1] == p["text"]
        assert out[p["span"]["start"]:p["span"]["end"]] != p["text"]
    r = import_file(store, "bedrock", raw, name)
    got = claims(store, r.run)
    assert [(c["start"], c["end"], c["text"]) for c in got] == [
        (p["span"]["start"], p["span"]["end"] + 1, p["text"]) for p in parts]
    assert answers(store, r.run) == [out]


def test_knowledge_base_cassette(store):
    req, resp, raw = _cassette(RAG[0])
    r = import_file(store, "bedrock", raw, RAG[0])
    assert (r.items_ok, r.answers, r.claims, r.citations, r.snapshots) == (1, 1, 2, 2, 1)
    assert queries(store, r.run) == ["What is Task Decomposition?"]
    [(rank, snap, score)] = hits(store, r.run)
    assert (rank, score) == (1, None)
    ref = resp["citations"][0]["retrievedReferences"][0]
    assert snapshot_text(store, snap) == ref["content"]["text"]
    # a custom document id ("2222") is not a URI: the passage is named by file + JSONPath
    assert snapshots(store)[snap]["uri"] == (
        "test_retrieve_and_generate_with_knowledge_base.yaml#$.interactions[0].response.body"
        ".citations[0].retrievedReferences[0]")
    for c in claims(store, r.run):
        [cit] = citations(store, c["claim"])
        assert (cit["target"], cit["unit"], cit["exact"]) == (snap, None, None)


def test_external_s3_cassette_keeps_every_reference_and_the_s3_uri(store):
    _, resp, raw = _cassette(RAG[1])
    r = import_file(store, "bedrock", raw, RAG[1])
    refs = [ref for c in resp["citations"] for ref in c["retrievedReferences"]]
    distinct = {ref["content"]["text"] for ref in refs}
    assert (len(refs), len(distinct)) == (9, 8)
    assert (r.claims, r.citations, r.snapshots) == (3, 9, 8)
    recorded = snapshots(store)
    assert {snapshot_text(store, s) for s in recorded} == distinct
    assert {v["uri"] for v in recorded.values()} == {"s3://bedrock-az-kb/knowledge_bases/VLDBJ96.pdf"}
    assert [h[0] for h in hits(store, r.run)] == list(range(1, 9))
    for c, cit in zip(claims(store, r.run), resp["citations"]):
        texts = sorted(snapshot_text(store, x["target"]) for x in citations(store, c["claim"]))
        assert texts == sorted(ref["content"]["text"] for ref in cit["retrievedReferences"])


def test_retrieve_cassette_is_a_retrieval_with_scores_and_no_answer(store):
    raw = (shared_cases("real-rag/bedrock") / "test_retrieve.yaml").read_bytes()
    resp = json.loads(yaml.safe_load(raw)["interactions"][0]["response"]["body"]["string"])
    r = import_file(store, "bedrock", raw, "test_retrieve.yaml")
    assert (r.items_ok, r.answers, r.claims, r.snapshots) == (1, 0, 0, 5)
    assert queries(store, r.run) == ["What is task Decomposition?"]
    got = hits(store, r.run)
    assert [(rank, score) for rank, _, score in got] == [
        (i + 1, res["score"]) for i, res in enumerate(resp["retrievalResults"])]
    assert [snapshot_text(store, s) for _, s, _ in got] == [
        res["content"]["text"] for res in resp["retrievalResults"]]


def test_non_ascii_fixture_inclusive_end_in_code_points(store):
    payload = fixture_json("bedrock_rag.json")
    out = payload["response"]["output"]["text"]
    r = import_file(store, "bedrock", fixture("bedrock_rag.json"), "bedrock_rag.json")
    got = claims(store, r.run)
    assert [c["text"] for c in got] == ["Le pont de Québec 🌉 a été achevé en 1917.",
                                        "Sa travée centrale mesure 549 m."]
    span = payload["response"]["citations"][1]["generatedResponsePart"]["textResponsePart"]["span"]
    assert (span["start"], got[1]["start"]) == (42, 42)
    # in UTF-16 units or bytes the same text starts elsewhere: the fixture's unit is code points
    assert len(out[:42].encode("utf-16-le")) // 2 == 43 and len(out[:42].encode()) == 49
    assert (r.snapshots, r.citations) == (2, 3)
    uris = sorted(v["uri"] for v in snapshots(store).values())
    assert uris == ["https://exemple.ca/pont", "s3://ponts/quebec.pdf"]


def test_span_past_the_answer_is_an_item_error():
    payload = fixture_json("bedrock_rag.json")
    payload["response"]["citations"][1]["generatedResponsePart"]["textResponsePart"]["span"]["end"] = 400
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "bedrock", json.dumps(payload).encode(), "bad.json")
    [err] = info.value.report.errors
    assert err.path == "$.response.citations[1].generatedResponsePart.textResponsePart.span"
    assert err.message == "answer span (end inclusive): offset 401 is past the text (74 code points)"
    assert len(store) == 0


def test_failed_http_interaction_is_an_item_error():
    cassette = {"interactions": [{"request": {"uri": "https://x/retrieveAndGenerate", "body": "{}"},
                                  "response": {"status": {"code": 500, "message": "boom"},
                                               "body": {"string": "{}"}}}]}
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "bedrock", yaml.safe_dump(cassette).encode(), "c.yaml")
    [err] = info.value.report.errors
    assert (err.path, err.message) == ("$.interactions[0].response.status.code",
                                       "HTTP status 500: the recorded call failed, there is no answer")


# -- found by fuzzing (tests/test_fuzz_parsers.py, issue 20) --------------------------------

@pytest.mark.parametrize("config, where", [
    ({"type": "KNOWLEDGE_BASE", "knowledgeBaseConfiguration": 1.0},
     "$.request.retrieveAndGenerateConfiguration.knowledgeBaseConfiguration: must be an object, "
     "got a number"),
    ([{"type": "KNOWLEDGE_BASE"}], "$.request.retrieveAndGenerateConfiguration: must be an object, "
                                   "got an array"),
])
def test_a_configuration_that_is_not_an_object_is_an_item_error(config, where):
    # was AttributeError: 'float' object has no attribute 'get' (and 'list' ...)
    doc = json.loads(fixture("bedrock_rag.json"))
    payload = {"request": {"retrieveAndGenerateConfiguration": config},
               "response": doc.get("response", doc)}
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as exc:
        import_file(store, "bedrock", json.dumps(payload).encode(), "cfg.json")
    assert where in str(exc.value), str(exc.value)
    assert len(store) == 0


def test_yaml_surrogate_pair_escapes_are_refused_not_a_traceback():
    # '{request": ...' is not JSON (a quote is missing), so it is read as YAML, which turns
    # "\ud83c\udf09" into two lone surrogates: was UnicodeEncodeError in the offset helpers
    data = (b'{request": {"input": {"text": "Q ?"}}, "response": {"output": {"text": '
            b'"Le pont \\ud83c\\udf09 a 1917."}, "citations": []}}')
    store = EmbeddedStore()
    with pytest.raises(ImportFailed, match=r"is not YAML text \(a lone UTF-16 surrogate escape "
                                           r"\(\\ud83c\), which is not Unicode text at line 1 "
                                           r"column 81\)"):
        import_file(store, "bedrock", data, "pont.json")
    assert len(store) == 0
