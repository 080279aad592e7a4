"""Anthropic Messages citations: char (code points, end-exclusive), page, content
block and search result locations, on a fixture with accented text and emoji."""

from __future__ import annotations

import base64
import json

import pytest

from provgraph import EmbeddedStore
from provgraph.errors import ImportFailed
from provgraph.importers import import_file
from provgraph.terms import IRI
from provgraph.vocab import PG

from .importers_support import (
    answers, citations, claims, fixture, fixture_json, queries, slice_unit, snapshot_bytes,
    snapshot_text, snapshots,
)


@pytest.fixture
def imported(store):
    report = import_file(store, "anthropic", fixture("anthropic_citations.json"),
                         "anthropic_citations.json")
    return store, report


def test_report_counts(imported):
    _, r = imported
    assert (r.items_total, r.items_ok, r.answers, r.claims, r.citations, r.snapshots) == (1, 1, 1, 4, 6, 4)
    assert r.errors == () and len(r.runs) == 1 and r.stored > 200


def test_answer_is_the_text_blocks_and_claims_are_the_cited_blocks(imported):
    store, r = imported
    payload = fixture_json("anthropic_citations.json")
    blocks = [b["text"] for b in payload["response"]["content"]]
    assert answers(store, r.run) == ["".join(blocks)]
    assert [c["text"] for c in claims(store, r.run)] == [
        "le café ouvre à 7 h ☕",
        "la crème brûlée coûte 5 € 😋",
        "Les prix du pétrole ont augmenté de 3 % en 2024 dans 12 pays",
        "Les Jeux de Tokyo ont coûté 1,6 billion de yens.",
    ]
    for c in claims(store, r.run):
        assert c["answer"][c["start"]:c["end"]] == c["text"]
        assert c["kind"] == "paraphrase" and c["status"] == "supported"
    assert queries(store, r.run) == ["Et les Jeux de Tokyo ?"]


def test_char_location_is_codepoints_end_exclusive_into_the_retained_text(imported):
    store, r = imported
    doc = fixture_json("anthropic_citations.json")["request"]["messages"][0]["content"][0]["source"]["data"]
    cafe, creme = claims(store, r.run)[:2]
    [c1] = citations(store, cafe["claim"])
    assert (c1["start"], c1["end"], c1["unit"], c1["inclusive"]) == (0, 23, "codepoint", False)
    assert c1["exact"] == "Le café ☕ ouvre à 7 h. "
    assert snapshot_text(store, c1["target"]) == doc
    assert slice_unit(doc, c1["start"], c1["end"], "codepoint") == c1["exact"]
    char = [c for c in citations(store, creme["claim"]) if c["unit"] == "codepoint"][0]
    assert (char["start"], char["end"]) == (23, 52)
    assert slice_unit(doc, 23, 52, "codepoint") == char["exact"] == "La crème brûlée coûte 5 € 😋. "
    # the units differ on this text: read as UTF-16 units or bytes the range is other text
    assert slice_unit(doc, 23, 52, "utf16_unit") == "La crème brûlée coûte 5 € 😋."
    assert slice_unit(doc, 23, 52, "utf8_byte") == " h. La crème brûlée coûte"


def test_page_block_search_result_and_web_citations(imported):
    store, r = imported
    payload = fixture_json("anthropic_citations.json")
    content = payload["request"]["messages"][0]["content"]
    _, creme, oil, tokyo = claims(store, r.run)
    page = [c for c in citations(store, creme["claim"]) if c["unit"] == "page"][0]
    # page_location 2..3 (1-indexed, exclusive) is the second page, recorded as given:
    # provgraph's page unit is numbered from 1 too (it was 0-based [1, 2), page 1 to the resolver)
    assert (page["start"], page["end"], page["inclusive"]) == (2, 3, False)
    assert snapshot_bytes(store, page["target"]) == base64.b64decode(content[1]["source"]["data"])
    assert snapshots(store)[page["target"]]["media"] == "application/pdf"
    [block] = citations(store, oil["claim"])
    assert (block["start"], block["end"], block["unit"]) == (0, 2, "block")
    blocks = json.loads(snapshot_bytes(store, block["target"]))
    assert blocks == [b["text"] for b in content[2]["source"]["content"]]
    assert "".join(blocks[0:2]) == block["exact"]
    web, result = citations(store, tokyo["claim"])
    assert (web["tid"], web["target"], web["unit"], web["exact"]) == (
        "https://example.com/cost", None, None, "Tokyo 2020 cost")
    assert (result["start"], result["end"], result["unit"]) == (1, 2, "block")
    texts = json.loads(snapshot_bytes(store, result["target"]))
    assert texts[1:2] == [result["exact"]] == ["The games cost ¥1.6 trillion."]
    assert snapshots(store)[result["target"]]["uri"] == "https://example.org/tokyo"


def test_claims_carry_the_cited_snapshot_shortcut(imported):
    store, r = imported
    cafe = claims(store, r.run)[0]
    [cit] = citations(store, cafe["claim"])
    assert store.contains((IRI(cafe["claim"]), PG.citedSnapshot, IRI(cit["target"]), r.run))


def _mutated(change) -> bytes:
    payload = fixture_json("anthropic_citations.json")
    change(payload)
    return json.dumps(payload).encode()


def test_document_index_past_the_list_is_an_item_error_and_nothing_is_stored():
    store = EmbeddedStore()

    def bad(p):
        p["response"]["content"][1]["citations"][0]["document_index"] = 9

    with pytest.raises(ImportFailed) as info:
        import_file(store, "anthropic", _mutated(bad), "bad.json")
    [err] = info.value.report.errors
    assert (err.item, err.path) == (0, "$.response.content[1].citations[0].document_index")
    assert err.message == "document_index 9 is past the 3 documents in the request"
    assert info.value.report.stored == 0 and info.value.report.runs == ()
    assert len(store) == 0


def test_char_range_past_the_text_is_an_item_error():
    def bad(p):
        p["response"]["content"][1]["citations"][0]["end_char_index"] = 500

    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "anthropic", _mutated(bad), "bad.json")
    [err] = info.value.report.errors
    assert err.path == "$.response.content[1].citations[0]"
    assert err.message == ("char range [0, 500) of document:0: offset 500 is past the text "
                           "(67 code points)")


def test_wrong_format_payload_is_reported():
    payload = json.dumps({"results": [{"query": "q", "response": "r"}]}).encode()
    with pytest.raises(ImportFailed) as info:
        import_file(EmbeddedStore(), "anthropic", payload, "checking_inputs.json")
    [err] = info.value.report.errors
    assert err.item == 0 and err.path == "$"
    assert err.message.startswith("is not an Anthropic Messages exchange: expected")
    assert err.message.endswith("found keys ['results']")
    assert str(info.value) == (
        "checking_inputs.json: nothing was stored: item 0 at $: " + err.message
        + ". check that the file is in the anthropic format (--format) and fix the items listed")


def test_json_lines_partial_stores_the_valid_items_and_lists_the_rest():
    good = fixture_json("anthropic_citations.json")
    bad = fixture_json("anthropic_citations.json")
    bad["response"]["content"][3]["citations"][1]["end_page_number"] = 2
    data = "\n".join(json.dumps(x) for x in (good, bad, good)).encode()
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "anthropic", data, "log.jsonl")
    assert len(store) == 0
    assert "pass partial=True" not in str(info.value)
    assert "import with partial=True (--partial) to store the 2 valid items" in str(info.value)
    r = import_file(store, "anthropic", data, "log.jsonl", partial=True)
    assert (r.items_total, r.items_ok, r.answers, r.claims) == (3, 2, 2, 8)
    [err] = r.errors
    assert (err.item, err.path) == (1, "line 2.response.content[3].citations[1]")
    assert err.message == "page range [2, 2) is not 1-indexed with an exclusive end"
    assert len(answers(store, r.run)) == 2


def test_url_documents_have_no_bytes_and_are_cited_by_url(store):
    def url_pdf(p):
        p["request"]["messages"][0]["content"][1]["source"] = {
            "type": "url", "url": "https://example.org/scan.pdf"}

    r = import_file(store, "anthropic", _mutated(url_pdf), "url.json")
    assert r.snapshots == 3
    creme = claims(store, r.run)[1]
    page = [c for c in citations(store, creme["claim"]) if c["unit"] == "page"][0]
    assert (page["tid"], page["target"], page["start"], page["end"]) == (
        "https://example.org/scan.pdf", None, 2, 3)


def _resolved(store, run):
    from provgraph.resolve import resolve_run

    return {c.iri: (c, r) for c, r in resolve_run(store, run).items}


def test_block_citations_resolve_within_the_cited_blocks(imported):
    # QA 3: a block document is retained as a JSON array of its blocks' strings, with a
    # media type that says so; block i is element i, and the quote is searched in the
    # cited blocks' joined text, mapped back exactly to the bytes of the JSON literals
    store, r = imported
    _, _, oil, tokyo = claims(store, r.run)
    [block] = citations(store, oil["claim"])
    [result] = [c for c in citations(store, tokyo["claim"]) if c["unit"] == "block"]
    assert snapshots(store)[block["target"]]["media"] == "application/vnd.provgraph.blocks+json"
    got = _resolved(store, r.run)
    _, res = got[block["cit"]]
    data = snapshot_bytes(store, block["target"])
    first, second = json.loads(data)
    assert res.outcome == "quote_match", res.reason
    assert (res.byte_start, res.byte_end) == (
        data.index(first.encode()), data.index(second.encode()) + len(second.encode()))
    assert data[res.byte_start:res.byte_end].decode() == f'{first}", "{second}'
    assert res.text == first + second == block["exact"]
    assert "within blocks [0, 2)" in res.reason
    assert "the byte range includes the JSON punctuation between blocks 0 and 1" in res.reason
    raw = data.decode()
    assert (res.codepoint_start, res.codepoint_end) == (raw.index(first), raw.index(second) + len(second))
    _, res = got[result["cit"]]
    data = snapshot_bytes(store, result["target"])
    assert res.outcome == "quote_match", res.reason
    assert data[res.byte_start:res.byte_end].decode() == "The games cost ¥1.6 trillion."
    assert "within blocks [1, 2)" in res.reason and "JSON punctuation" not in res.reason


def test_pdf_without_a_text_layer_cannot_be_checked(imported):
    # QA 3: the PDF's raw bytes happen to decode as text; they are not searched as if
    # they were its text, and the citation is not reported as a misquote
    store, r = imported
    creme = claims(store, r.run)[1]
    [page] = [c for c in citations(store, creme["claim"]) if c["unit"] == "page"]
    _, res = _resolved(store, r.run)[page["cit"]]
    assert res.outcome == "unresolved_range"
    assert ("no text layer recorded for application/pdf; pages cannot be located"
            in res.reason), res.reason
    assert (res.byte_start, res.codepoint_start) == (None, None)
