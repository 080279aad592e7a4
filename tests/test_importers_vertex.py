"""Vertex AI / Gemini groundingMetadata: UTF-8 byte segments, omitted zero fields."""

from __future__ import annotations

import json

import pytest

from provgraph import EmbeddedStore
from provgraph.errors import ImportFailed
from provgraph.importers import import_file

from .importers_support import (
    answers, citations, claims, fixture, fixture_json, hits, queries, slice_unit, snapshot_text,
    snapshots,
)


def test_byte_segments_become_codepoint_claims(store):
    payload = fixture_json("vertex_grounding.json")
    cand = payload["response"]["candidates"][0]
    parts = [p["text"] for p in cand["content"]["parts"]]
    r = import_file(store, "vertex", fixture("vertex_grounding.json"), "vertex_grounding.json")
    assert (r.items_ok, r.answers, r.claims, r.citations, r.snapshots) == (1, 1, 3, 5, 2)
    assert answers(store, r.run) == ["".join(parts)]
    supports = cand["groundingMetadata"]["groundingSupports"]
    # zero-valued fields are omitted from the JSON: startIndex 0, partIndex 0
    assert "startIndex" not in supports[0]["segment"] and "partIndex" not in supports[0]["segment"]
    for sup in supports:  # each segment's bytes hold its text
        seg = sup["segment"]
        part = parts[seg.get("partIndex", 0)]
        assert slice_unit(part, seg.get("startIndex", 0), seg["endIndex"], "utf8_byte") == seg["text"]
    got = claims(store, r.run)
    assert [(c["start"], c["end"], c["text"]) for c in got] == [
        (0, 32, "Der Kölner Dom 🏰 ist 157 m hoch."),
        (21, 31, "157 m hoch"),
        (33, 62, "Er wurde 1880 fertiggestellt."),
    ]
    assert supports[2]["segment"]["startIndex"] == 25  # bytes, where the claim starts at code point 21
    assert queries(store, r.run) == ["Wie hoch ist der Kölner Dom und wann wurde er fertig?"]
    assert len(hits(store, r.run)) == 2


def test_chunks_cited_whole_web_chunks_raw(store):
    r = import_file(store, "vertex", fixture("vertex_grounding.json"), "vertex_grounding.json")
    first = claims(store, r.run)[0]
    web, chunk = citations(store, first["claim"])  # sorted by target id: "https:" < "ni:"
    assert (web["tid"], web["target"], web["unit"]) == (
        "https://de.example.org/wiki/K%C3%B6lner_Dom", None, None)
    assert (chunk["tid"], chunk["unit"]) == (chunk["target"], None)
    assert snapshot_text(store, chunk["target"]) == (
        "Der Kölner Dom ist 157,38 m hoch 🏰 und wurde 1880 vollendet.")
    assert snapshots(store)[chunk["target"]]["uri"] == "gs://dom/koeln.txt"


def test_snake_case_sdk_dump_is_accepted(store):
    payload = fixture_json("vertex_grounding.json")["response"]
    cand = payload["candidates"][0]
    gm = cand.pop("groundingMetadata")
    cand["grounding_metadata"] = {
        "grounding_chunks": gm["groundingChunks"],
        "grounding_supports": [{"segment": {("end_index" if k == "endIndex" else
                                             "start_index" if k == "startIndex" else
                                             "part_index" if k == "partIndex" else k): v
                                            for k, v in s["segment"].items()},
                                "grounding_chunk_indices": s["groundingChunkIndices"]}
                               for s in gm["groundingSupports"]]}
    r = import_file(store, "vertex", json.dumps(payload).encode(), "sdk.json")
    assert [c["text"] for c in claims(store, r.run)] == [
        "Der Kölner Dom 🏰 ist 157 m hoch.", "157 m hoch", "Er wurde 1880 fertiggestellt."]


@pytest.mark.parametrize("change, path, message", [
    (lambda s: s[2]["segment"].update(startIndex=17),
     "$.response.candidates[0].groundingMetadata.groundingSupports[2].segment",
     "UTF-8 byte range [17, 35) of part 0: byte offset 17 falls inside a multi-byte UTF-8 sequence"),
    (lambda s: s[1].update(groundingChunkIndices=[3]),
     "$.response.candidates[0].groundingMetadata.groundingSupports[1].groundingChunkIndices[0]",
     "chunk index 3 is past the 3 grounding chunks"),
    (lambda s: s[1]["segment"].update(endIndex=90),
     "$.response.candidates[0].groundingMetadata.groundingSupports[1].segment",
     "UTF-8 byte range [0, 90) of part 1: offset 90 is past the text (29 UTF-8 bytes)"),
    # QA 19: a negative offset is called negative, not "past the text"
    (lambda s: s[1]["segment"].update(endIndex=-5),
     "$.response.candidates[0].groundingMetadata.groundingSupports[1].segment",
     "UTF-8 byte range [0, -5) of part 1: offset -5 is negative"),
    (lambda s: s[0]["segment"].update(endIndex=30),
     "$.response.candidates[0].groundingMetadata.groundingSupports[0].segment",
     "UTF-8 byte range [0, 30) holds 'Der Kölner Dom 🏰 ist 157 m', not the segment text "
     "'Der Kölner Dom 🏰 ist 157 m hoch.'"),
])
def test_bad_segments_are_item_errors(change, path, message):
    payload = fixture_json("vertex_grounding.json")
    change(payload["response"]["candidates"][0]["groundingMetadata"]["groundingSupports"])
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "vertex", json.dumps(payload).encode(), "bad.json")
    [err] = info.value.report.errors
    assert (err.path, err.message) == (path, message)
    assert len(store) == 0


def test_a_response_without_candidates_is_an_item_error():
    # found by fuzzing (tests/test_fuzz_parsers.py, issue 20): "candidates": [] was IndexError
    doc = fixture_json("vertex_grounding.json")
    doc["response"]["candidates"] = []
    store = EmbeddedStore()
    with pytest.raises(ImportFailed, match=r"\$\.response\.candidates: is empty: the response "
                                           "has no candidate"):
        import_file(store, "vertex", json.dumps(doc).encode(), "empty.json")
    assert len(store) == 0


@pytest.mark.parametrize("where, key, path", [
    # found by make soak's fuzzing (issue 20): {"contents": 1} was a TypeError traceback
    ("request", "contents", "$.request.contents"),
    ("request", "generationConfig", "$.request.generationConfig"),
    ("candidate", "groundingMetadata", "$.response.candidates[0].groundingMetadata"),
    ("grounding", "groundingChunks", "$.response.candidates[0].groundingMetadata.groundingChunks"),
    ("grounding", "groundingSupports",
     "$.response.candidates[0].groundingMetadata.groundingSupports"),
    ("grounding", "retrievalQueries", "$.response.candidates[0].groundingMetadata.retrievalQueries"),
    ("support", "groundingChunkIndices",
     "$.response.candidates[0].groundingMetadata.groundingSupports[0].groundingChunkIndices"),
])
def test_a_mistyped_field_is_an_item_error_naming_it(where, key, path):
    doc = fixture_json("vertex_grounding.json")
    cand = doc["response"]["candidates"][0]
    target = {"request": doc["request"], "candidate": cand,
              "grounding": cand["groundingMetadata"],
              "support": cand["groundingMetadata"]["groundingSupports"][0]}[where]
    target[key] = 1
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "vertex", json.dumps(doc).encode(), "typed.json")
    [err] = info.value.report.errors
    want = "an object" if key in ("generationConfig", "groundingMetadata") else "an array"
    assert (err.path, err.message) == (path, f"must be {want}, got an integer")
    assert len(store) == 0
