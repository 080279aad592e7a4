"""RAGChecker input and output files (amazon-science/RAGChecker examples)."""

from __future__ import annotations

import json

import pytest

from provgraph import EmbeddedStore
from provgraph.errors import ImportFailed
from provgraph.importers import import_file
from provgraph.importers.ragchecker import locate_claim

from .conftest import shared_cases
from .importers_support import answers, citations, claims, hits, queries, snapshot_text, snapshots

pytestmark = pytest.mark.shared


def _load(name: str) -> tuple[dict, bytes]:
    raw = (shared_cases("real-rag/ragchecker") / name).read_bytes()
    return json.loads(raw), raw


def test_inputs_record_queries_retrievals_and_answers(store):
    data, raw = _load("checking_inputs.json")
    r = import_file(store, "ragchecker", raw, "checking_inputs.json")
    results = data["results"]
    passages = [c["text"] for res in results for c in res["retrieved_context"]]
    assert (len(results), len(passages), len(set(passages))) == (2, 7, 7)
    assert (r.items_ok, r.answers, r.claims, r.citations, r.snapshots) == (2, 2, 0, 0, 7)
    assert answers(store, r.run) == sorted(res["response"] for res in results)
    assert queries(store, r.run) == sorted(res["query"] for res in results)
    assert {snapshot_text(store, s) for s in snapshots(store)} == set(passages)
    assert [h[0] for h in hits(store, r.run)] == [1, 1, 2, 2, 3, 3, 4]
    uri = snapshots(store)
    assert "checking_inputs.json#$.results[0].retrieved_context[0]" in {v["uri"] for v in uri.values()}


def test_outputs_claims_statuses_and_entailing_citations(store):
    data, raw = _load("checking_outputs.json")
    r = import_file(store, "ragchecker", raw, "checking_outputs.json")
    results = data["results"]
    n_claims = sum(len(res["response_claims"]) for res in results)
    n_entail = sum(row.count("Entailment") for res in results for row in res["retrieved2response"])
    assert (n_claims, n_entail) == (16, 14)
    assert (r.items_ok, r.answers, r.claims, r.citations) == (2, 2, 16, 14)
    got = claims(store, r.run)
    expected = []
    for res in results:
        for triplet, row in zip(res["response_claims"], res["retrieved2response"]):
            expected.append(("; ".join(triplet), "supported" if "Entailment" in row else "unsupported",
                             sorted(res["retrieved_context"][j]["text"]
                                    for j, lab in enumerate(row) if lab == "Entailment")))
    recorded = [(c["label"], c["status"],
                 sorted(snapshot_text(store, x["target"]) for x in citations(store, c["claim"])))
                for c in got]
    assert sorted(recorded) == sorted(expected)
    assert sum(1 for c in got if c["status"] == "supported") == 9
    for c in got:
        assert c["kind"] == "paraphrase" and c["answer"][c["start"]:c["end"]] == c["text"]
    # a triplet's claim span is the response sentence that holds its object
    res0 = results[0]["response"]
    nile = [c for c in got if c["label"] == "Nile; stretches; approximately 6,650 kilometers"][0]
    assert nile["text"] == res0[:res0.index(" There is")]
    amazon = [c for c in got if c["label"] == "Amazon River; length; 4,350 miles"][0]
    assert amazon["text"] == res0[res0.index("There is"):]


def test_locate_claim_falls_back_to_shared_words():
    r = "Paris is large. The Seine crosses it."
    assert locate_claim(r, ["river", "crosses", "Paris"]) == (0, 15)
    assert locate_claim(r, ["Seine", "flows", "north"]) == (16, 37)


def test_label_rows_must_match_claims_and_passages():
    data, _ = _load("checking_outputs.json")
    data["results"][1]["retrieved2response"].pop()
    data["results"][0]["retrieved2response"][0][0] = "Maybe"
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "ragchecker", json.dumps(data).encode(), "out.json")
    assert [(e.item, e.path, e.message) for e in info.value.report.errors] == [
        (0, "$.results[0].retrieved2response[0][0]",
         "unknown label 'Maybe'; expected one of Entailment, Neutral, Contradiction"),
        (1, "$.results[1].retrieved2response", "has 4 rows for 5 response claims"),
    ]
    assert len(store) == 0


def test_wrong_format_file():
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "ragchecker", b'{"demos": []}', "asqa.json")
    [err] = info.value.report.errors
    assert err.item is None and err.path == "$"
    assert err.message.startswith("is not a RAGChecker file") and "found keys ['demos']" in err.message
