"""OpenAI Responses annotations: url_citation, file_citation, container_file_citation."""

from __future__ import annotations

import json

import pytest

from provgraph import EmbeddedStore
from provgraph.errors import ImportFailed
from provgraph.importers import import_file

from .importers_support import (
    answers, citations, claims, fixture, fixture_json, hits, queries, snapshot_text,
)


def test_annotations_become_claims_with_their_targets(store):
    payload = fixture_json("openai_responses.json")
    r = import_file(store, "openai", fixture("openai_responses.json"), "openai_responses.json")
    assert (r.items_ok, r.answers, r.claims, r.citations, r.snapshots) == (1, 1, 3, 5, 3)
    text = payload["response"]["output"][1]["content"][0]["text"]
    assert answers(store, r.run) == [text]
    assert queries(store, r.run) == ["Que dit le rapport sur le climat ?"]
    got = claims(store, r.run)
    assert [c["text"] for c in got] == [
        "Selon le rapport, la température moyenne a augmenté de 1,2 °C 🌡 depuis 1900.",
        "Le niveau de la mer monte de 3,4 mm/an.",
        "3,4 mm/an",
    ]
    anns = payload["response"]["output"][1]["content"][0]["annotations"]
    url = anns[0]
    # the url_citation span is the inline link the model wrote after the sentence
    assert text[url["start_index"]:url["end_index"]] == (
        "([climat.example](https://climat.example/rapport?utm_source=openai))")
    raw, snap = citations(store, got[0]["claim"])  # sorted by target id: "https:" < "ni:"
    assert (raw["tid"], raw["target"]) == ("https://climat.example/rapport?utm_source=openai", None)
    assert snap["tid"] == snap["target"] and snap["target"].startswith("ni:///sha-256;")
    assert snapshot_text(store, snap["target"]) == (
        "La température moyenne a augmenté de 1,2 °C depuis 1900 🌡.")
    # a file_citation cites every result chunk of that file given to the model
    second = citations(store, got[1]["claim"])
    assert sorted(snapshot_text(store, c["target"]) for c in second) == [
        "Le niveau de la mer monte de 3,4 mm par an.", "Mesures satellitaires depuis 1993."]
    [container] = citations(store, got[2]["claim"])
    assert (container["tid"], container["target"]) == ("cfile_01", None)
    cont = anns[3]
    assert (got[2]["start"], got[2]["end"]) == (cont["start_index"], cont["end_index"])
    assert [(rank, score) for rank, _, score in hits(store, r.run)] == [(1, 0.93), (2, 0.81), (3, 0.4)]


def test_index_past_the_text_is_an_item_error():
    payload = fixture_json("openai_responses.json")
    payload["response"]["output"][1]["content"][0]["annotations"][1]["index"] = 999
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "openai", json.dumps(payload).encode(), "bad.json")
    [err] = info.value.report.errors
    assert err.path == "$.response.output[1].content[0].annotations[1]"
    assert err.message == "file_citation: position 999 is past the text (185 code points)"
    assert len(store) == 0


def test_not_a_response_is_reported():
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "openai", fixture("cohere_v1.json"), "cohere_v1.json")
    [err] = info.value.report.errors
    assert err.message.startswith("is not an OpenAI Responses API response")
