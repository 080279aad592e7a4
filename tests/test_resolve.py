"""The citation resolver: every outcome, every unit, and the write-back (issue 3).

Part 1 is store-free (:func:`provgraph.matching.check_quote`), table-driven over
one source with a BOM, CRLF line ends, NFC and NFD forms of one word, emoji
and other astral characters, ligatures and a repeated sentence. Part 2 resolves
recorded citations through chunk -> extracted text -> offset map -> snapshot
bytes. Part 3 checks what ``resolve_run`` writes, and that a re-run changes nothing.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provgraph import Recorder, Segment
from provgraph.errors import NotFound, ResolutionError, SourceDecodeError
from provgraph.matching import _WordIndex, check_quote, search
from provgraph.normalize import POLICIES
from provgraph.offsets import BOM, SourceText
from provgraph.resolve import Citation, load_citations, resolve, resolve_run
from provgraph.terms import IRI, lit
from provgraph.vocab import OA, OUTCOMES, PG, PROV, RDF

from . import pipeline

TEXT = ("Menu: caf\u00e9 au lait and cafe\u0301 noir.\r\n"           # NFC, then NFD
        "Wave \U0001F44B\U0001F3FD hello \U0001D518 end.\r\n"          # emoji, skin tone, astral letter
        "The \ufb01nal o\ufb03ce report.\r\n"                          # ligatures
        "Check the valve. The valve is rated 10 bar. Check the valve. The valve is rated 12 bar.\r\n"
        "The inspection interval is not specified.\r\n")
SOURCE = BOM + TEXT.encode()
SRC = SourceText.from_bytes(SOURCE)

MIXUP = ("read as utf16_unit offsets, the range gives the quote (code points [44, 55)): a "
         "UTF-16 versus code point mix-up")

# id, quote, keyword arguments, outcome, (byte_start, byte_end), (codepoint_start, codepoint_end),
# a fragment of the reason
CASES = [
    ("nfc-form-exact", "caf\u00e9", {}, "quote_match", (9, 14), (6, 10), "occurs once"),
    ("nfd-form-exact", "cafe\u0301", {}, "quote_match", (27, 33), (23, 28), "occurs once"),
    ("nfd-quote-of-nfc-text-exact", "cafe\u0301 au lait", {}, "quote_mismatch", None, None,
     "does not occur in the text"),
    ("nfd-quote-of-nfc-text-nfc", "cafe\u0301 au lait", {"policy": "nfc"}, "normalized_match",
     (9, 22), (6, 18), "under nfc@1 (not exactly)"),
    ("astral-codepoint-range", "hello \U0001D518 end", {"start": 44, "end": 55}, "quote_match",
     (55, 69), (44, 55), "exactly the text at code points [44, 55)"),
    ("astral-utf16-range", "hello \U0001D518 end", {"start": 46, "end": 58, "unit": "utf16_unit"},
     "quote_match", (55, 69), (44, 55), "exactly"),
    ("astral-utf8-range", "hello \U0001D518 end", {"start": 55, "end": 69, "unit": "utf8_byte"},
     "quote_match", (55, 69), (44, 55), "exactly"),
    ("utf16-offsets-given-as-codepoints", "hello \U0001D518 end", {"start": 46, "end": 58},
     "quote_mismatch", None, None, MIXUP),
    ("inclusive-end", "hello \U0001D518 end", {"start": 44, "end": 54, "end_inclusive": True},
     "quote_match", (55, 69), (44, 55), "exactly"),
    ("inclusive-end-given-as-exclusive", "hello \U0001D518 end", {"start": 44, "end": 54},
     "quote_mismatch", None, None,
     "read as codepoint offsets with an inclusive end, the range gives the quote"),
    ("emoji-range-utf16", "\U0001F44B\U0001F3FD hello", {"start": 41, "end": 51, "unit": "utf16_unit"},
     "quote_match", (46, 60), (41, 49), "exactly"),
    ("inside-utf8-sequence", "\U0001F44B\U0001F3FD hello", {"start": 47, "end": 60, "unit": "utf8_byte"},
     "unresolved_range", None, None,
     "utf8_byte offset 47 falls inside the 4-byte UTF-8 sequence of '\U0001F44B' (U+1F44B WAVING "
     "HAND SIGN) at bytes [46, 50); use 46 or 50"),
    ("inside-surrogate-pair", "\U0001F44B\U0001F3FD hello", {"start": 42, "end": 51, "unit": "utf16_unit"},
     "unresolved_range", None, None, "utf16_unit offset 42 falls between the two UTF-16 code units"),
    ("negative", "Menu", {"start": -1, "end": 4}, "unresolved_range", None, None,
     "codepoint range [-1, 4) has a negative start (-1)"),
    ("negative-inclusive-end", "M", {"start": 0, "end": -1, "end_inclusive": True},
     "unresolved_range", None, None, "codepoint range [0, -1] has a negative end (-1)"),
    ("reversed-inclusive", "M", {"start": 3, "end": 2, "end_inclusive": True},
     "unresolved_range", None, None, "codepoint range [3, 2] is reversed"),
    ("empty", "M", {"start": 3, "end": 3}, "unresolved_range", None, None,
     "codepoint range [3, 3) is empty"),
    ("past-the-end", "Menu", {"start": 200, "end": 300}, "unresolved_range", None, None,
     "codepoint offset 300 is past the end of the text (213 codepoints)"),
    ("reversed", "Menu", {"start": 10, "end": 5}, "unresolved_range", None, None,
     "codepoint range [10, 5) is reversed"),
    ("past-the-end-but-fits-utf16", "specified.\r\n", {"start": 204, "end": 216},
     "unresolved_range", None, None,
     "past the end of the text (213 codepoints); read as utf16_unit offsets, the range gives the quote"),
    ("bom-bytes-from-zero", "Menu", {"start": 0, "end": 7, "unit": "utf8_byte"}, "quote_match",
     (3, 7), (0, 4), "exactly"),
    ("bom-bytes-after-bom", "Menu", {"start": 3, "end": 7, "unit": "utf8_byte"}, "quote_match",
     (3, 7), (0, 4), "exactly"),
    ("inside-bom", "Menu", {"start": 1, "end": 7, "unit": "utf8_byte"}, "unresolved_range", None,
     None, "inside the 3-byte byte-order mark"),
    ("crlf-exact", "noir. Wave", {}, "quote_mismatch", None, None, "does not occur in the text"),
    ("crlf-nfc", "noir. Wave", {"policy": "nfc"}, "quote_mismatch", None, None,
     "exactly or under nfc@1"),
    ("crlf-whitespace", "noir. Wave", {"policy": "whitespace"}, "normalized_match", (34, 45),
     (29, 40), "under whitespace@1"),
    ("crlf-whitespace-range", "noir.  Wave", {"start": 29, "end": 40, "policy": "whitespace"},
     "normalized_match", (34, 45), (29, 40), "under whitespace@1 the quote equals the text"),
    ("ligature-exact", "final office", {}, "quote_mismatch", None, None, "does not occur"),
    ("ligature-whitespace", "final office", {"policy": "whitespace"}, "quote_mismatch", None, None,
     "does not occur"),
    ("ligature-fold", "final office", {"policy": "fold"}, "normalized_match", (76, 89), (62, 71),
     "under fold@1"),
    ("case-never-folded", "the inspection interval", {"policy": "fold"}, "quote_mismatch", None,
     None, "does not occur"),
    ("repeated-no-context", "Check the valve.", {}, "ambiguous", None, None,
     "the quote occurs 2 times (at code points [81, 97), [125, 141)); no prefix or suffix was given"),
    ("repeated-prefix-decides", "Check the valve.", {"prefix": "rated 10 bar. "}, "quote_match",
     (143, 159), (125, 141), "the prefix and suffix select the one at code points [125, 141)"),
    ("repeated-suffix-decides", "Check the valve.", {"suffix": " The valve is rated 10"},
     "quote_match", (99, 115), (81, 97), "select the one at code points [81, 97)"),
    ("repeated-context-matches-none", "Check the valve.", {"prefix": "rated 99 bar. "},
     "ambiguous", None, None, "none of them has the given prefix and suffix"),
    ("repeated-ambiguous-under-fold", "The valve is rated", {"policy": "fold"}, "ambiguous", None,
     None, "occurs 2 times"),
    ("repeated-range-decides", "Check the valve.", {"start": 125, "end": 141}, "quote_match",
     (143, 159), (125, 141), "exactly"),
    ("range-elsewhere", "The inspection interval", {"start": 0, "end": 23}, "quote_mismatch", None,
     None, "the quote occurs at code points [170, 193)"),
    # QA 8: a match never starts or ends inside a grapheme cluster
    ("stops-before-combining-mark", "cafe", {}, "quote_mismatch", None, None,
     "the quote occurs at code points [23, 27), but it ends inside a character sequence: 'e' "
     "(U+0065 LATIN SMALL LETTER E) is followed by '\u0301' (U+0301 COMBINING ACUTE ACCENT)"),
    ("stops-before-combining-mark-whitespace", "cafe", {"policy": "whitespace"},
     "quote_mismatch", None, None, "ends inside a character sequence"),
    ("range-stops-before-combining-mark", "cafe", {"start": 23, "end": 27}, "quote_mismatch",
     None, None, "holds the quote, but it ends inside a character sequence"),
    ("starts-with-combining-mark", "\u0301 noir", {}, "quote_mismatch", None, None,
     "it starts inside a character sequence"),
    ("stops-before-skin-tone-modifier", "Wave \U0001F44B", {}, "quote_mismatch", None, None,
     "(U+1F3FD EMOJI MODIFIER FITZPATRICK TYPE-4)"),
    ("single-occurrence-context-disagrees", "interval is not", {"prefix": "The boiler "},
     "quote_match", (203, 218), (185, 200), "does not match the text around it"),
]


@pytest.mark.parametrize("quote, kwargs, outcome, byte_span, cp_span, reason",
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_check_quote_table(quote, kwargs, outcome, byte_span, cp_span, reason):
    res = check_quote(SRC, quote, **kwargs)
    assert res.outcome == outcome, res.reason
    assert (res.byte_start, res.byte_end) == (byte_span or (None, None))
    assert (res.codepoint_start, res.codepoint_end) == (cp_span or (None, None))
    assert reason in res.reason
    if byte_span:
        # the offsets really address the quoted text in the bytes and in the decoded text
        assert SOURCE[slice(*byte_span)].decode() == TEXT[slice(*cp_span)] == res.text
        assert res.snapshot == "ni:///sha-256;" + _b64(SOURCE)
    expected_policy = kwargs.get("policy", "exact") if outcome != "quote_match" else "exact"
    assert (res.policy, res.policy_version) == (expected_policy, "1")


def _b64(data: bytes) -> str:
    import base64
    import hashlib

    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")


PAGED = "Cover page.\fSection 2. The valve is rated 10 bar.\fSection 3. The valve is rated 12 bar."


@pytest.mark.parametrize("quote, start, end, unit, outcome, cp_span, reason", [
    ("The valve is rated", 2, 3, "page", "quote_match", (23, 41), "within pages [2, 3)"),
    ("The valve is rated", 3, 3, "page", "unresolved_range", None, "page range [3, 3) is empty"),
    ("The valve is rated", 2, 4, "page", "ambiguous", None, "occurs 2 times"),
    ("Cover page", 2, 3, "page", "quote_mismatch", None, "it does occur elsewhere in the source"),
    ("The valve is rated", 0, 1, "page", "unresolved_range", None, "pages are numbered from 1"),
    ("Section 3", 1, 2, "block", "quote_match", (13, 22), "within blocks [1, 2)"),
    ("Section 3", 0, 1, "block", "quote_mismatch", None, "within blocks [0, 1)"),
    ("Section 3", 1, 3, "block", "unresolved_range", None, "runs past the last block"),
])
def test_page_and_block_locators(quote, start, end, unit, outcome, cp_span, reason):
    text = PAGED if unit == "page" else "Intro line.\n\nSection 3. Body.\n"
    res = check_quote(text, quote, start=start, end=end, unit=unit)
    assert res.outcome == outcome, res.reason
    assert (res.codepoint_start, res.codepoint_end) == (cp_span or (None, None))
    assert reason in res.reason


def test_inspection_interval_prefix_wording_never_matches_the_source():
    source = SourceText.from_text(pipeline.POLICY_V1)
    for policy in POLICIES:
        res = check_quote(source, "The inspection interval is 73 days", policy=policy)
        assert res.outcome == "quote_mismatch", policy
        assert check_quote(source, pipeline.PREFIX_TEXT, policy=policy).outcome == "quote_mismatch"
    assert check_quote(source, "The inspection interval is not specified.").outcome == "quote_match"


def test_check_quote_usage_errors():
    with pytest.raises(ResolutionError, match="the quote is empty"):
        check_quote(SRC, "")
    with pytest.raises(ResolutionError, match="give both start and end"):
        check_quote(SRC, "Menu", start=1)
    with pytest.raises(ResolutionError, match="unknown offset unit 'chars'"):
        check_quote(SRC, "Menu", start=0, end=4, unit="chars")
    with pytest.raises(ResolutionError, match="unknown normalization policy"):
        check_quote(SRC, "Menu", policy="nfkc")
    with pytest.raises(SourceDecodeError, match="byte 1 \\(0xff\\)"):
        check_quote(b"a\xffb", "a")


# ====================================================================== part 2: the store
def _claim(rec: Recorder, text: str = "x", kind: str = "paraphrase"):
    answer = rec.generation(rec.context_packing(text="q", segments=[]), model=("m", "1"), text=text)
    return rec.claim(answer, start=0, end=len(text), kind=kind)


@pytest.fixture
def fx(rag_store):
    """The shared fixture pipeline plus a second run for extra citations."""
    store, r = rag_store
    rec = Recorder(store, label="checks", packages=[], started_at=pipeline.t(20))
    return store, r, rec


def _resolve(store, rec, claim=None, **kw):
    cit = rec.citation(claim or _claim(rec), **kw)
    return resolve(store, cit)


def test_fixture_citations(fx):
    store, r, _ = fx
    got = {c.iri: resolve(store, c.iri) for c in load_citations(store, pipeline.RUN)}
    quote, located, faq, prefix = (got[IRI(pipeline.iri(n))] for n in ("ct1", "ct2", "ct3", "ct4"))
    assert (quote.outcome, quote.byte_start, quote.byte_end, quote.codepoint_start,
            quote.codepoint_end, quote.snapshot) == ("quote_match", 21, 62, 21, 62, r["policy_v1"].iri)
    assert quote.text == "The inspection interval is not specified."
    assert (located.outcome, located.byte_start, located.byte_end) == ("located", 63, 110)
    assert "no quote given" in located.reason
    assert (faq.outcome, faq.byte_start, faq.byte_end, faq.snapshot) == ("quote_match", 28, 48,
                                                                        r["faq"].iri)
    assert (prefix.outcome, prefix.generated_source, prefix.byte_start) == (
        "generated_target", r["prefix"].iri, None)
    assert prefix.reason == (f"the target <{r['prefix'].iri}> is a contextual prefix generated by "
                             "ctx-gen 0.1: generated text is never a quotation source; the quote "
                             "occurs in its text")


def test_quoting_the_prefix_wording_against_the_source_chunk_is_generated_target(fx):
    store, r, rec = fx
    res = _resolve(store, rec, target=r["c_interval"], quote="The inspection interval is 73 days")
    assert (res.outcome, res.generated_source) == ("generated_target", r["prefix"].iri)
    assert "does not occur in chunk" in res.reason and "a contextual prefix generated by ctx-gen" in res.reason
    # against the snapshot itself, and against the extracted text, likewise
    for target in (r["policy_v1"], r["ext_policy"].text_iri):
        res = _resolve(store, rec, target=target, quote="The inspection interval is 73 days")
        assert (res.outcome, res.generated_source) == ("generated_target", r["prefix"].iri)
    # a quote found nowhere, generated or original, is a plain mismatch
    res = _resolve(store, rec, target=r["c_interval"], quote="The interval is 90 days")
    assert res.outcome == "quote_mismatch"


def test_quote_spanning_a_chunk_boundary(fx):
    store, r, rec = fx
    quote = "not specified.\nBoilers are inspected"
    res = _resolve(store, rec, target=r["c_interval"], quote=quote)
    start = pipeline.POLICY_V1.index(quote)
    assert (res.outcome, res.byte_start, res.byte_end) == ("quote_match", start, start + len(quote))
    assert "runs across a boundary of chunk" in res.reason
    assert res.text == quote


def test_quotation_claim_without_quote_checks_its_own_text(fx):
    store, r, rec = fx
    claim = _claim(rec, text="\u201cBoilers are inspected by a certified engineer.\u201d", kind="quotation")
    res = _resolve(store, rec, claim=claim, target=r["c_engineer"])
    assert (res.outcome, res.byte_start, res.byte_end) == ("quote_match", 63, 109)
    assert res.reason.startswith("no quote given, so the quotation claim's own text was checked")


def test_prompt_and_indexed_targets(fx):
    store, r, rec = fx
    gi, prompt = r["input"], r["input"].text
    a = prompt.index(pipeline.PREFIX_TEXT)
    res = _resolve(store, rec, target=gi, start=a, end=a + 20, unit="codepoint")
    assert (res.outcome, res.generated_source) == ("generated_target", r["prefix"].iri)
    assert "generated segment 1" in res.reason
    b = prompt.index("The inspection interval is not")
    res = _resolve(store, rec, target=gi, start=b, end=b + 41, unit="codepoint",
                   quote="The inspection interval is not specified.")
    assert (res.outcome, res.byte_start, res.byte_end, res.snapshot) == (
        "quote_match", 21, 62, r["policy_v1"].iri)
    assert "are original text (segment 2)" in res.reason
    res = _resolve(store, rec, target=gi, quote="interval is 73 days, effective")
    assert (res.outcome, res.generated_source) == ("generated_target", r["prefix"].iri)
    res = _resolve(store, rec, target=gi, quote="The inspection interval is")
    assert res.outcome == "ambiguous"
    res = _resolve(store, rec, target=gi, quote="The inspection interval is", suffix=" not")
    assert (res.outcome, res.byte_start, res.byte_end) == ("quote_match", 21, 47)
    res = _resolve(store, rec, target=gi, start=0, end=6, unit="codepoint")
    assert res.outcome == "unresolved_range" and "instruction [0, 25)" in res.reason
    idx_text = pipeline.PREFIX_TEXT + "\n" + r["c_interval"].text
    ir = rec.indexed(r["c_interval"], text=idx_text, embedder=("e5", "2"), segments=[
        Segment(start=0, end=len(pipeline.PREFIX_TEXT), origin="generated", source=r["prefix"]),
        Segment(start=len(pipeline.PREFIX_TEXT) + 1, end=len(idx_text), origin="original",
                source=r["c_interval"])])
    res = _resolve(store, rec, target=ir, quote="73 days")
    assert (res.outcome, res.generated_source) == ("generated_target", r["prefix"].iri)
    res = _resolve(store, rec, target=ir, quote="not specified")
    assert (res.outcome, res.byte_start, res.byte_end) == ("quote_match", 48, 61)


def test_snapshot_mismatch_cases(fx):
    store, r, rec = fx
    res = _resolve(store, rec, target=r["c_interval"], quote="not specified", pinned_sha256="ab" * 32)
    assert res.outcome == "snapshot_mismatch"
    assert f"pinned to sha256:{'ab' * 32}, which is not the retained bytes of snapshot" in res.reason
    res = _resolve(store, rec, target=r["c_interval"], quote="not specified",
                   pinned_sha256=r["policy_v1"].sha256.upper())
    assert res.outcome == "quote_match"
    res = _resolve(store, rec, target=r["c_interval"], quote="not specified",
                   pinned_sha256=r["ext_policy"].text_sha256)
    assert res.outcome == "quote_match"
    # a chunk whose text is not its recorded extraction's addresses another rendering
    c = r["c_engineer"].iri
    store.replace([(c, PG.text, lit(r["c_engineer"].text), IRI("urn:provgraph:graph:ingestion"))],
                  [(c, PG.text, lit("Boilers are never inspected.\n"), IRI("urn:provgraph:graph:ingestion"))])
    res = _resolve(store, rec, target=c, quote="never inspected")
    assert res.outcome == "snapshot_mismatch" and "addresses another rendering" in res.reason


def test_altered_original_is_snapshot_mismatch(fx):
    store, r, rec = fx
    path = store.originals.path_for(r["faq"].sha256)
    os.chmod(path, 0o644)
    path.write_bytes(pipeline.FAQ.replace("certified", "qualified").encode())
    res = _resolve(store, rec, target=r["c_faq_a"], quote="A certified engineer")
    assert res.outcome == "snapshot_mismatch"
    assert "was altered" in res.reason


def test_unresolved_ids_and_ranges(fx):
    store, r, rec = fx
    res = _resolve(store, rec, target="doc-3", quote="x")
    assert res.outcome == "unresolved_id" and "'doc-3' names no recorded" in res.reason
    res = resolve(store, Citation(target_id="see: the manual", quote="x"))  # not even an IRI
    assert res.outcome == "unresolved_id" and "names no recorded" in res.reason
    res = _resolve(store, rec, target=r["query"], quote="boilers")
    assert res.outcome == "unresolved_id" and "not source text" in res.reason
    res = _resolve(store, rec, target=r["c_interval"], start=40, end=50, unit="codepoint",
                   quote="specified.")
    assert res.outcome == "unresolved_range"
    assert "codepoint offset 50 is past the end of the text (42 codepoints)" in res.reason


def test_orphaned_against_the_newest_revision(fx):
    store, r, rec = fx
    url = "https://example.org/policy.md"
    res = _resolve(store, rec, target=url, quote="The inspection interval is not specified.")
    assert (res.outcome, res.snapshot, res.byte_start) == ("orphaned", r["policy_v2"].iri, None)
    assert res.reason == (f"the quote is not in the newest revision <{r['policy_v2'].iri}> of "
                          f"document <{r['policy_v1'].document}>; it occurs in the older snapshot "
                          f"<{r['policy_v1'].iri}> at bytes [21, 62)")
    res = _resolve(store, rec, target=r["policy_v1"].document, quote="The inspection interval is 12 months.")
    assert (res.outcome, res.snapshot, res.byte_start, res.byte_end) == (
        "quote_match", r["policy_v2"].iri, 21, 58)
    res = _resolve(store, rec, target=url, quote="not specified.",
                   pinned_sha256=r["policy_v1"].sha256)
    assert (res.outcome, res.snapshot, res.byte_start) == ("quote_match", r["policy_v1"].iri, 48)
    rec.deletion(r["policy_v2"], at=pipeline.t(90))
    res = _resolve(store, rec, target=url, quote="Boilers are inspected")
    assert (res.outcome, res.snapshot) == ("orphaned", r["policy_v2"].iri)
    assert res.reason == (f"document <{r['policy_v1'].document}> was deleted; the quote occurs "
                          f"in its snapshot <{r['policy_v2'].iri}> at bytes [59, 80)")


def _markdown(rec):
    """A Markdown source and its rendering, with an offset map that is partly not verbatim."""
    pieces = [("Boilers", "Boilers"), ("\n", "\n"), ("\u2022 ", None), ("The ", "The "),
              ("boiler", "boiler"), (" must be inspected by ", " must be inspected by "),
              ("Tom & Jerry", "Tom &amp; Jerry"), (".", ".")]
    md = "# Boilers\n\n- The **boiler** must be inspected by Tom &amp; Jerry.\n"
    text, segs, pos, src_pos = "", [], 0, 0
    for out, raw in pieces:
        if raw is not None:
            b = md.index(raw, src_pos)
            segs.append((pos, pos + len(out), b, b + len(raw)))
            src_pos = b + len(raw)
        text += out
        pos += len(out)
    snap = rec.snapshot(md.encode(), uri="https://example.org/boilers.md", media_type="text/markdown")
    ext = rec.extraction(snap, parser=("markdown-it-py", "3.0.0"), text=text, offset_map=segs)
    return md, snap, ext


def test_offset_map_back_to_markdown_bytes(fx):
    store, r, rec = fx
    md, snap, ext = _markdown(rec)
    res = _resolve(store, rec, target=ext.text_iri, quote="The boiler must")
    assert (res.outcome, res.byte_start, res.byte_end) == ("quote_match", md.index("The"),
                                                           md.index(" be inspected"))
    assert md.encode()[res.byte_start:res.byte_end] == b"The **boiler** must"
    assert "includes the source markup" in res.reason
    res = _resolve(store, rec, target=ext.text_iri, quote="\u2022 The boiler")
    assert res.outcome == "quote_mismatch" and "were produced by the parser" in res.reason
    res = _resolve(store, rec, target=ext.text_iri, quote="Tom & Jerry.")
    assert (res.byte_start, res.byte_end) == (md.index("Tom"), md.index("Jerry.") + 6)
    res = _resolve(store, rec, target=ext.text_iri, quote="Jerry.")
    assert (res.outcome, res.byte_start, res.byte_end) == ("quote_match", md.index("Tom"),
                                                           md.index("Jerry.") + 6)
    assert "the start is widened to the segment's start" in res.reason
    # the snapshot's raw text lacks the quote; its extracted text has it
    res = _resolve(store, rec, target=snap, quote="The boiler must")
    assert (res.outcome, res.byte_start) == ("quote_match", md.index("The"))
    assert "not in the snapshot's own text; in its extracted text" in res.reason


def test_bom_crlf_source_through_an_extraction(fx):
    store, r, rec = fx
    snap = rec.snapshot(SOURCE, uri="file:///menu.txt", media_type="text/plain; charset=utf-8")
    ext = rec.extraction(snap, parser=("plain", "1"), text=TEXT, offset_map=[(0, len(TEXT), 3, len(SOURCE))])
    chunks = rec.chunking(ext, chunker=("lines", "1"), ranges=[(0, 35), (35, 59), (59, 81)])
    res = _resolve(store, rec, target=chunks[1], start=6, end=10, unit="utf16_unit",
                   quote="\U0001F44B\U0001F3FD")  # the hand and its skin tone: units [6, 10)
    assert (res.outcome, res.byte_start, res.byte_end, res.codepoint_start, res.codepoint_end) == (
        "quote_match", 46, 54, 41, 43)
    res = _resolve(store, rec, target=chunks[1], start=7, end=8, unit="utf16_unit", quote="\U0001F44B")
    assert res.outcome == "unresolved_range" and "surrogate pair" in res.reason
    res = _resolve(store, rec, target=snap, start=46, end=54, unit="utf8_byte",
                   quote="\U0001F44B\U0001F3FD")
    assert (res.outcome, res.codepoint_start) == ("quote_match", 41)
    # the hand without its modifier is not the character the source has (QA 8)
    res = _resolve(store, rec, target=snap, start=46, end=50, unit="utf8_byte", quote="\U0001F44B")
    assert res.outcome == "quote_mismatch" and "ends inside a character sequence" in res.reason
    res = resolve(store, Citation(target_id=chunks[2].iri, target=chunks[2].iri,
                                  quote="final office"), policy="fold")
    assert (res.outcome, res.byte_start, res.byte_end, res.policy) == (
        "normalized_match", 76, 89, "fold")
    res = resolve(store, Citation(target_id=chunks[0].iri, target=chunks[0].iri, quote="noir. "),
                  policy="whitespace")
    assert (res.outcome, res.byte_start, res.byte_end) == ("normalized_match", 34, 39)


def test_every_outcome_is_covered(fx):
    """The outcomes asserted above, gathered: each of vocab.OUTCOMES occurs."""
    store, r, rec = fx
    seen = {resolve(store, c).outcome for c in load_citations(store, pipeline.RUN)}
    seen |= {
        _resolve(store, rec, target=r["c_interval"], quote="not specified",
                 pinned_sha256="00" * 32).outcome,
        _resolve(store, rec, target="nothing-here", quote="x").outcome,
        _resolve(store, rec, target=r["c_interval"], start=5, end=2, unit="codepoint").outcome,
        _resolve(store, rec, target=r["c_interval"], quote="interval").outcome,
        _resolve(store, rec, target=r["c_interval"], quote="nowhere at all").outcome,
        _resolve(store, rec, target="https://example.org/policy.md",
                 quote="not specified").outcome,
        resolve(store, Citation(target_id="c", target=r["c_interval"].iri,
                                quote="interval is not\nspecified"), policy="whitespace").outcome,
        resolve(store, Citation(target_id="c", target=r["c_interval"].iri, quote="e")).outcome,
    }
    # context_not_extracted needs a PDF table: tests/test_pdf.py covers it
    assert seen == set(OUTCOMES) - {"context_not_extracted"}


# ====================================================================== part 3: write-back
def test_resolve_run_writes_quotations_only_for_verified_quotes(rag_store):
    store, r = rag_store
    run = IRI(pipeline.RUN)
    result = resolve_run(store, pipeline.RUN)
    assert result.counts() == {"quote_match": 2, "normalized_match": 0, "quote_mismatch": 0,
                               "generated_target": 1, "snapshot_mismatch": 0,
                               "unresolved_range": 0, "unresolved_id": 0, "ambiguous": 0,
                               "orphaned": 0, "located": 1, "context_not_extracted": 0}
    claim, cit = r["claim_quote"].iri, r["cit1"].iri
    snap = r["policy_v1"].iri
    q = IRI(f"{cit}#quotation")
    pos, sel = IRI(f"{cit}#quotation-position"), IRI(f"{cit}#quotation-quote")
    expected = {
        (claim, PROV.wasQuotedFrom, snap), (claim, PROV.wasDerivedFrom, snap),
        (claim, PROV.qualifiedQuotation, q), (q, RDF.type, PROV.Quotation), (q, PROV.entity, snap),
        (q, PG.policy, lit("exact@1")), (q, PG.resolvedByteStart, lit(21)),
        (q, PG.resolvedByteEnd, lit(62)), (q, OA.hasSelector, pos), (q, OA.hasSelector, sel),
        (pos, RDF.type, OA.TextPositionSelector), (pos, OA.start, lit(21)), (pos, OA.end, lit(62)),
        (sel, RDF.type, OA.TextQuoteSelector),
        (sel, OA.exact, lit("The inspection interval is not specified.")),
        (cit, PG.outcome, lit("quote_match")), (cit, PG.policy, lit("exact@1")),
        (cit, PG.resolvedSnapshot, snap), (cit, PG.resolvedByteStart, lit(21)),
        (cit, PG.resolvedByteEnd, lit(62)), (cit, PG.resolvedCodepointStart, lit(21)),
        (cit, PG.resolvedCodepointEnd, lit(62)),
    }
    for s, p, o in expected:
        assert store.contains((s, p, o, run)), (s, p, o)
    # quote_match for a paraphrase claim's citation (ct3) also records the quotation;
    # located (ct2) and generated_target (ct4) never do
    assert store.contains((r["claim_para"].iri, PROV.wasQuotedFrom, r["faq"].iri, run))
    assert not list(store.quads(IRI(f"{r['cit2'].iri}#quotation")))
    bad = r["claim_bad"].iri
    assert not list(store.quads(bad, PROV.wasQuotedFrom))
    assert not list(store.quads(bad, PROV.qualifiedQuotation))
    assert store.contains((r["cit4"].iri, PG.outcome, lit("generated_target"), run))
    assert store.contains((r["cit4"].iri, PROV.wasInfluencedBy, r["prefix"].iri, run))
    # one Resolution activity, associated with the provgraph resolver agent, used each citation
    acts = [q_[0] for q_ in store.quads(None, RDF.type, PG.Resolution)]
    assert len(acts) == 1
    agent = next(store.quads(acts[0], PROV.wasAssociatedWith))[2]
    assert store.contains((agent, RDF.type, PG.Resolver, run))
    assert store.contains((agent, PG.agentName, lit("provgraph"), run))
    assert {q_[2] for q_ in store.quads(acts[0], PROV.used)} == {r[f"cit{i}"].iri for i in range(1, 5)}
    # exactly one outcome per citation
    for i in range(1, 5):
        assert len(list(store.quads(r[f"cit{i}"].iri, PG.outcome))) == 1


def test_resolve_run_twice_changes_nothing_and_replaces_outcomes(rag_store):
    store, r = rag_store
    first = resolve_run(store)
    snapshot = store.canonical_nquads()
    second = resolve_run(store)
    assert (second.added, second.removed) == (0, 0)
    assert store.canonical_nquads() == snapshot
    assert first.added == len(store) - len(_without_resolution(store, r))
    # a policy change replaces the activity; the outcomes stay one per citation
    resolve_run(store, policy="whitespace")
    assert len(list(store.quads(None, RDF.type, PG.Resolution))) == 1
    assert len(list(store.quads(r["cit1"].iri, PG.outcome))) == 1
    # the evidence goes bad: the outcome and the quotation are withdrawn, nothing else
    path = store.originals.path_for(r["policy_v1"].sha256)
    os.chmod(path, 0o644)
    path.write_bytes(b"tampered")
    resolve_run(store)
    cit, claim = r["cit1"].iri, r["claim_quote"].iri
    assert [q[2] for q in store.quads(cit, PG.outcome)] == [lit("snapshot_mismatch")]
    assert not list(store.quads(claim, PROV.wasQuotedFrom))
    assert not list(store.quads(claim, PROV.wasDerivedFrom))
    assert not list(store.quads(IRI(f"{cit}#quotation")))
    assert store.contains((r["claim_para"].iri, PROV.wasQuotedFrom, r["faq"].iri, IRI(pipeline.RUN)))


def _without_resolution(store, r):
    """The fixture recorded afresh, for comparing statement counts."""
    from provgraph import EmbeddedStore

    other = EmbeddedStore()
    rec = Recorder(other, label="fixture", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    pipeline.record(rec)
    out = list(other.quads())
    other.close()
    return out


def test_derivation_operands_survive_a_failed_quotation(fx):
    store, r, rec = fx
    claim = rec.claim(_claim(rec, "Two inspections.").answer, start=0, end=3, text="Two",
                      kind="derivation", derived_from=[r["faq"]], warrant="count")
    rec.citation(claim, target=r["faq"], quote="Who inspects boilers?")
    resolve_run(store, rec.iri)
    assert store.contains((claim.iri, PROV.wasQuotedFrom, r["faq"].iri, rec.iri))
    path = store.originals.path_for(r["faq"].sha256)
    os.chmod(path, 0o644)
    path.write_bytes(b"gone")
    resolve_run(store, rec.iri)
    assert not store.contains((claim.iri, PROV.wasQuotedFrom, r["faq"].iri, rec.iri))
    assert store.contains((claim.iri, PROV.wasDerivedFrom, r["faq"].iri, rec.iri))


def test_unknown_run_and_citation_are_not_found(rag_store):
    store, _ = rag_store
    with pytest.raises(NotFound, match="run <urn:uuid:nope> is not in the store"):
        resolve_run(store, "urn:uuid:nope")
    with pytest.raises(NotFound, match="citation <urn:uuid:nope>"):
        resolve(store, "urn:uuid:nope")


# ====================================================================== the search index
WORDS = st.sampled_from(["valve", "the", "The", " ", "  ", ".", "\r\n", "caf\u00e9", "cafe\u0301",
                         "\U0001F600", "rated", "10", "_x", "-", "\u00e9t\u00e9"])


@settings(max_examples=300, deadline=None,
          derandomize=os.environ.get("CI") == "true")
@given(st.lists(WORDS, max_size=60).map("".join), st.lists(WORDS, min_size=1, max_size=5).map("".join),
       st.data())
def test_word_index_finds_exactly_the_occurrences_a_scan_finds(text, quote, data):
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, len(text)))
    scan, i = [], text.find(quote, lo, hi)
    while i != -1:
        scan.append(i)
        i = text.find(quote, i + 1, hi)
    got = _WordIndex(text).find_all(quote, lo, hi)
    assert got is None or got == scan
    # and search() over a long text (index in use from its second call) agrees with a scan
    long = SourceText.from_text(text * (1 + 2048 // max(1, len(text))))
    for _ in range(2):
        res = search(long, quote)
    first = long.text.find(quote)
    if res.outcome == "quote_match":
        assert first == res.start and long.text.find(quote, first + 1) == -1
    elif res.outcome == "ambiguous":
        assert first != -1 and long.text.find(quote, first + 1) != -1
    else:
        assert res.outcome == "quote_mismatch" and first == -1


@pytest.mark.parametrize("text, quote, fragment", [
    ("Le cafe\u0301 est bon.", "cafe", "'e' (U+0065 LATIN SMALL LETTER E) is followed by"),
    ("Family: \U0001F468\u200d\U0001F469\u200d\U0001F467 here", "Family: \U0001F468",
     "(U+1F468 MAN) is followed by '\\u200d' (U+200D ZERO WIDTH JOINER)"),
    ("Family: \U0001F468\u200d\U0001F469\u200d\U0001F467 here", "\U0001F469\u200d\U0001F467 here",
     "starts inside a character sequence: a zero width joiner (U+200D) joins"),
    ("Coffee \u2615\ufe0f now", "Coffee \u2615", "(U+FE0F VARIATION SELECTOR-16)"),
    ("Flags \U0001F1EB\U0001F1F7\U0001F1E9\U0001F1EA end", "\U0001F1F7\U0001F1E9",
     "it ends inside a character sequence: it splits a pair of regional indicator symbols"),
    ("\u1112\u1161\u11ab\u1100\u116e\u11a8", "\u1112\u1161", "the Hangul jamo"),
    ("\u0915\u093f\u0924\u093e\u092c", "\u0915", "(U+093F DEVANAGARI VOWEL SIGN I)"),
    ("line one\r\nline two", "line one\r", "it splits a CR LF line end"),
])
def test_a_match_never_splits_a_user_perceived_character(text, quote, fragment):
    res = check_quote(text, quote)
    assert res.outcome == "quote_mismatch", res.reason
    assert fragment in res.reason
    assert res.byte_start is None


@pytest.mark.parametrize("text, quote, span", [
    ("Family: \U0001F468\u200d\U0001F469\u200d\U0001F467 here",
     "\U0001F468\u200d\U0001F469\u200d\U0001F467", (8, 13)),
    ("Flags \U0001F1EB\U0001F1F7\U0001F1E9\U0001F1EA end", "\U0001F1E9\U0001F1EA", (8, 10)),
    ("Coffee \u2615\ufe0f now", "\u2615\ufe0f now", (7, 13)),
    ("line one\r\nline two", "line one\r\n", (0, 10)),
    ("Le cafe\u0301 est bon. Un cafe noir.", "cafe", (21, 25)),  # the other, whole, "cafe"
])
def test_whole_character_sequences_match(text, quote, span):
    res = check_quote(text, quote)
    assert (res.outcome, res.codepoint_start, res.codepoint_end) == ("quote_match", *span), res.reason


def test_a_citations_declared_policy_wins_over_the_resolvers(fx):
    # QA 4: the policy a citation declares is applied to it; the resolver's policy (CLI
    # --policy) applies to the citations that declare none
    store, r, rec = fx
    wrapped = "The inspection interval\nis not specified."  # the source has a space there
    claim = _claim(rec, kind="quotation")
    declared = rec.citation(claim, target=r["c_interval"], quote=wrapped, policy="whitespace")
    plain = rec.citation(claim, target=r["c_interval"], quote=wrapped)
    strict = rec.citation(claim, target=r["c_interval"], quote=wrapped, policy="exact")
    got = {c.iri: res for c, res in resolve_run(store, rec.iri).items}
    assert (got[declared.iri].outcome, got[declared.iri].policy) == ("normalized_match", "whitespace")
    assert got[plain.iri].outcome == "quote_mismatch"
    assert got[strict.iri].outcome == "quote_mismatch"
    got = {c.iri: res for c, res in resolve_run(store, rec.iri, policy="whitespace").items}
    assert got[plain.iri].outcome == "normalized_match"
    assert (got[strict.iri].outcome, got[strict.iri].policy) == ("quote_mismatch", "exact")
    assert got[declared.iri].outcome == "normalized_match"
    # the declared policy survives the write-back, so resolving again changes nothing
    again = resolve_run(store, rec.iri, policy="whitespace")
    assert (again.added, again.removed) == (0, 0)
    assert resolve(store, declared).outcome == "normalized_match"
    assert load_citations(store, citation=declared.iri)[0].policy == "whitespace@1"


def test_a_declared_policy_this_provgraph_lacks_is_unresolved(fx):
    store, r, rec = fx
    cit = rec.citation(_claim(rec), target=r["c_interval"], quote="interval")
    store.add([(IRI(f"{cit.iri}#quote"), PG.policy, lit("fold@7"), rec.iri)])  # e.g. imported PROV
    res = resolve(store, cit.iri)
    assert res.outcome == "unresolved_range"
    assert res.reason == ("the citation declares the normalization policy 'fold@7', which "
                          "cannot be applied: policy fold has version 1, not '7'")


# ------------------------------------------------ issue 15: context chooses among occurrences
_NAMES = "Jose\u0301 wrote it; José signed."  # decomposed at [0, 5), precomposed at [16, 20)


@pytest.mark.parametrize("kwargs, outcome, span", [
    # the suffix points at the decomposed occurrence: under nfc it is the one chosen
    ({"suffix": " wrote"}, "normalized_match", (0, 5)),
    ({"prefix": "it; ", "suffix": " signed"}, "quote_match", (16, 20)),
    # no context: the exact occurrence is the better one
    ({}, "quote_match", (16, 20)),
    # context that fits neither: the exact occurrence, with a note that the context disagrees
    ({"suffix": " read"}, "quote_match", (16, 20)),
])
def test_nfc_context_chooses_among_exact_and_normalized_occurrences(kwargs, outcome, span):
    r = check_quote(_NAMES, "José", policy="nfc", **kwargs)
    assert (r.outcome, (r.codepoint_start, r.codepoint_end)) == (outcome, span), r.reason


def test_equally_good_occurrences_under_a_policy_are_ambiguous():
    # two decomposed occurrences fit the suffix equally well; the exact one does not fit it
    text = "Jose\u0301 wrote it; Jose\u0301 wrote it; José signed."
    r = check_quote(text, "José", policy="nfc", suffix=" wrote")
    assert r.outcome == "ambiguous", r.reason
    assert "equally good at code points [0, 5), [16, 21)" in r.reason
    # when both fit, the exact occurrence is the better one (the policy is a fallback)
    r = check_quote("Jose\u0301 wrote it; José wrote it.", "José", policy="nfc", suffix=" wrote")
    assert (r.outcome, r.codepoint_start) == ("quote_match", 16), r.reason


def test_resolve_writes_the_quotation_for_the_occurrence_the_context_selects(fx):
    # issue 15: under nfc the suffix selected the decomposed occurrence at [0, 5), yet the
    # resolver answered quote_match for [16, 20) and wrote prov:wasQuotedFrom for it
    store, _, rec = fx
    snap = rec.snapshot(_NAMES.encode(), uri="https://example.org/names.txt",
                        media_type="text/plain")
    claim = _claim(rec, "José", kind="quotation")
    cit = rec.citation(claim, target=snap, quote="José", suffix=" wrote", policy="nfc")
    resolve_run(store, rec.iri)
    res = resolve(store, cit.iri)
    assert (res.outcome, res.codepoint_start, res.codepoint_end) == ("normalized_match", 0, 5)
    assert (res.byte_start, res.byte_end) == (0, 6)
    q = IRI(f"{cit.iri}#quotation")
    assert store.contains((q, PG.resolvedByteStart, lit(0), rec.iri))
    assert store.contains((q, PG.resolvedByteEnd, lit(6), rec.iri))
