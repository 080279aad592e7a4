"""Media types read as text, and block documents (QA 3): the importer's retained JSON
array of blocks and the resolver's ``block`` unit agree; bytes that are not text are
never searched as if they were."""

from __future__ import annotations

import json

import pytest

from provgraph import EmbeddedStore, Recorder
from provgraph.media import BLOCKS_MEDIA_TYPE, BlockText, encode_blocks, is_text_media_type
from provgraph.resolve import resolve

# escapes of every kind: quotation marks, backslash, newline, tab, a \u escape of a
# BMP character, a surrogate pair for an astral one, and raw non-ASCII text
BLOCKS_ESCAPED = ['Er sagte "ja" \\ dann\nging er.', "Tab\there \u00e9t\u00e9 \U0001F600.",
                  "", "Dritter Block: Caf\u00e9."]


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_every_code_point_maps_exactly_to_its_json_literal(ensure_ascii):
    data = json.dumps(BLOCKS_ESCAPED, ensure_ascii=ensure_ascii, indent=1).encode()
    bt = BlockText.from_bytes(data)
    assert bt.blocks == tuple(BLOCKS_ESCAPED)
    assert bt.text == "".join(BLOCKS_ESCAPED)
    a, b, c = (len(t) for t in BLOCKS_ESCAPED[:3])
    assert bt.spans == ((0, a), (a, a + b), (a + b, a + b), (a + b, len(bt.text)))
    raw = data.decode()
    for k, (s, e) in enumerate(bt.spans):
        if e == s:
            continue
        for i in range(s, e):
            for j in range(i + 1, e + 1):
                rs, re_, crossed = bt.raw_span(i, j)
                assert crossed is None
                # the JSON text there is exactly the escaped form of the characters
                assert json.loads('"' + raw[rs:re_] + '"') == bt.text[i:j]
        assert (bt.raw_span(s, e)[:2]) == bt.literals[k]
    rs, re_, crossed = bt.raw_span(25, 35)
    assert crossed == (0, 1)
    assert json.loads("[" + '"' + raw[rs:re_] + '"' + "]") == [bt.text[25:a], bt.text[a:35]]


@pytest.mark.parametrize("data, fragment", [
    (b"not json", "is not JSON"),
    (b'{"a": "b"}', "is not a JSON array of strings"),
    (b'["a", 1]', "is not a JSON array of strings"),
    (b'["\\ud800 lone"]', r"is not JSON \(a lone UTF-16 surrogate escape \(\\ud800\)"),
    (b'["\xff"]', "is not UTF-8 text"),
])
def test_malformed_block_documents(data, fragment):
    with pytest.raises(ValueError, match=fragment):
        BlockText.from_bytes(data)


def test_text_media_types():
    text = ["text/plain", "text/markdown; charset=utf-8", "application/json", "application/xml",
            "application/ld+json", "image/svg+xml", BLOCKS_MEDIA_TYPE, "message/rfc822",
            "application/x-tex", ""]
    binary = ["application/pdf", "application/octet-stream", "image/png", "audio/mpeg",
              "application/zip", "application/msword",
              "application/vnd.openxmlformats-officedocument.wordprocessingml.document"]
    assert [m for m in text if not is_text_media_type(m)] == []
    assert [m for m in binary if is_text_media_type(m)] == []


@pytest.fixture
def rec():
    store = EmbeddedStore()
    r = Recorder(store, label="media", packages=[])
    yield r
    store.close()


def _cite(rec, **kw):
    answer = rec.generation(rec.context_packing(text="q", segments=[]), model=("m", "1"), text="x")
    claim = rec.claim(answer, start=0, end=1, kind="paraphrase")
    return resolve(rec.store, rec.citation(claim, **kw))


def test_block_ranges_and_quotes_with_escapes_resolve_to_the_json_bytes(rec):
    data = json.dumps(BLOCKS_ESCAPED, ensure_ascii=True).encode()
    snap = rec.snapshot(data, uri="urn:example:blocks", media_type=BLOCKS_MEDIA_TYPE)
    res = _cite(rec, target=snap, start=0, end=1, unit="block", quote='"ja" \\ dann\nging')
    assert res.outcome == "quote_match", res.reason
    assert json.loads('"' + data[res.byte_start:res.byte_end].decode() + '"') == res.text
    assert res.text == '"ja" \\ dann\nging'
    assert data[res.byte_start:res.byte_end] == b'\\"ja\\" \\\\ dann\\nging'
    assert "within blocks [0, 1)" in res.reason
    # an astral character written as a surrogate-pair escape maps to the whole escape
    res = _cite(rec, target=snap, start=1, end=2, unit="block", quote="\u00e9t\u00e9 \U0001F600")
    assert res.outcome == "quote_match", res.reason
    assert data[res.byte_start:res.byte_end] == b"\\u00e9t\\u00e9 \\ud83d\\ude00"
    # the quote is searched within the cited blocks only
    res = _cite(rec, target=snap, start=3, end=4, unit="block", quote="ging er")
    assert res.outcome == "quote_mismatch"
    assert "does not occur within blocks [3, 4)" in res.reason
    assert "it does occur elsewhere in the source" in res.reason
    # without a range, the quote is searched in the blocks' joined text, not the JSON
    res = _cite(rec, target=snap, quote="ging er.Tab\there")
    assert res.outcome == "quote_match", res.reason
    assert "JSON punctuation between blocks 0 and 1" in res.reason
    # past the last block, and page ranges on a block document
    res = _cite(rec, target=snap, start=2, end=5, unit="block", quote="x")
    assert res.outcome == "unresolved_range" and "the source has 4 blocks" in res.reason
    res = _cite(rec, target=snap, start=1, end=2, unit="page", quote="x")
    assert res.outcome == "unresolved_range" and "it has blocks, not pages" in res.reason
    # the empty block is located inside its literal; nothing verified
    empty = _cite(rec, target=snap, start=2, end=3, unit="block")
    assert empty.outcome == "located", empty.reason
    assert empty.byte_start == empty.byte_end == data.index(b', ""') + 3


def test_a_malformed_block_document_is_unresolved(rec):
    snap = rec.snapshot(b'{"not": "blocks"}', uri="urn:example:bad", media_type=BLOCKS_MEDIA_TYPE)
    res = _cite(rec, target=snap, start=0, end=1, unit="block", quote="blocks")
    assert res.outcome == "unresolved_range"
    assert "is not a JSON array of strings" in res.reason and "blocks cannot be located" in res.reason


PDF = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n(Crème brûlée 5 €) Tj\n%%EOF\n".encode()


def test_a_pdf_without_a_text_layer_is_never_searched_as_text(rec):
    snap = rec.snapshot(PDF, uri="urn:example:scan.pdf", media_type="application/pdf")
    # the quote is in the raw bytes, which decode as UTF-8: still not a match, nor a misquote
    for kw, what in (({"start": 1, "end": 2, "unit": "page"}, "pages cannot be located"),
                     ({}, "the quote cannot be checked against its bytes"),
                     ({"start": 0, "end": 4, "unit": "utf8_byte"}, "the quote cannot be checked")):
        res = _cite(rec, target=snap, quote="Crème brûlée 5 €", **kw)
        assert res.outcome == "unresolved_range", res.reason
        assert res.reason.startswith(f"no text layer recorded for application/pdf; {what}")
        assert res.snapshot == snap.iri and res.byte_start is None
    res = _cite(rec, target=snap)
    assert (res.outcome, res.byte_start, res.byte_end) == ("located", 0, len(PDF))


def test_pdf_pages_are_located_through_its_recorded_extraction(rec):
    snap = rec.snapshot(PDF, uri="urn:example:scan2.pdf", media_type="application/pdf")
    text = "Carte\fCrème brûlée 5 €"
    start = PDF.index("(Crème".encode()) + 1
    end = start + len("Crème brûlée 5 €".encode())
    rec.extraction(snap, parser=("pdftotext", "24.02"), text=text,
                   offset_map=[(0, 5, 0, 8), (6, len(text), start, end)])
    res = _cite(rec, target=snap, start=2, end=3, unit="page", quote="brûlée 5 €")
    assert res.outcome == "quote_match", res.reason
    assert PDF[res.byte_start:res.byte_end].decode() == "brûlée 5 €"
    assert "within pages [2, 3)" in res.reason and "extracted text" in res.reason
    res = _cite(rec, target=snap, start=1, end=2, unit="page", quote="brûlée 5 €")
    assert res.outcome == "quote_mismatch" and "does occur elsewhere" in res.reason
    # a quote alone is looked for in the extraction, not in the raw bytes
    res = _cite(rec, target=snap, quote="Crème brûlée")
    assert res.outcome == "quote_match" and "in its extracted text" in res.reason
    res = _cite(rec, target=snap, quote="/Type /Catalog")
    assert res.outcome == "quote_mismatch", res.reason


def test_encode_blocks_is_what_the_anthropic_importer_retains():
    assert BlockText.from_bytes(encode_blocks(BLOCKS_ESCAPED)).blocks == tuple(BLOCKS_ESCAPED)


def test_a_text_range_on_a_pdf_without_a_text_layer_names_no_text(rec):
    snap = rec.snapshot(PDF, uri="urn:example:scan3.pdf", media_type="application/pdf")
    res = _cite(rec, target=snap, start=0, end=4, unit="utf8_byte")
    assert res.outcome == "unresolved_range"
    assert res.reason.startswith("no text layer recorded for application/pdf; a utf8_byte range "
                                 "cannot address its text")


def test_an_older_pdf_revision_without_text_does_not_stop_the_orphan_check(rec):
    old = rec.snapshot(b"The valve is rated 10 bar.", uri="urn:example:doc", media_type="text/plain")
    pdf = rec.snapshot(PDF, uri="urn:example:doc", media_type="application/pdf", revision_of=old)
    rec.snapshot(b"The valve is rated 12 bar.", uri="urn:example:doc", media_type="text/plain",
                 revision_of=pdf)
    doc = next(q[2] for q in rec.store.quads(old.iri, None) if str(q[1]).endswith("specializationOf"))
    res = _cite(rec, target=str(doc), quote="rated 10 bar")
    assert res.outcome == "orphaned", res.reason
    assert f"it occurs in the older snapshot <{old.iri}>" in res.reason
