"""Normalization policies: what each changes, what none changes, and the map back."""

from __future__ import annotations

import os
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provgraph.errors import ResolutionError
from provgraph.normalize import POLICIES, get_policy

NFD_CAFE = "cafe\u0301"
NFC_CAFE = "caf\u00e9"


@pytest.mark.parametrize("policy, text, expected", [
    ("exact", f"{NFD_CAFE}\r\n  x", f"{NFD_CAFE}\r\n  x"),
    ("nfc", f"{NFD_CAFE}\r\n  x", f"{NFC_CAFE}\r\n  x"),
    ("nfc", "\u1100\u1161\u11a8", "\uac01"),  # Hangul jamo compose across starters
    ("nfc", "a\u0323\u0302", "\u1ead"),  # two marks, canonical order, one precomposed letter
    ("whitespace", f"{NFD_CAFE}\r\n  x\ty", f"{NFC_CAFE} x y"),
    ("whitespace", "a\u00a0b", "a\u00a0b"),  # NBSP is left to fold
    ("fold", "\ufb01ne \ufb02ow \ufb00 \ufb03 \ufb04 \u0133", "fine flow ff ffi ffl ij"),
    ("fold", "a\u00a0b\u2009c\u3000d", "a b c d"),
    ("fold", "\u201cIt\u2019s\u201d \u2013 1\u20132 \u2212 \u2026", "\"It's\" - 1-2 - ..."),
    ("fold", "inspec\u00adtion\u200b", "inspection"),
    # what fold must leave alone: case, superscripts, circled digits, fullwidth, fractions
    ("fold", "The x\u00b2 \u2460 \uff21 \u00bd \u2122", "The x\u00b2 \u2460 \uff21 \u00bd \u2122"),
])
def test_what_each_policy_does(policy, text, expected):
    assert get_policy(policy).normalize(text).text == expected


@pytest.mark.parametrize("policy", list(POLICIES))
def test_case_is_never_folded(policy):
    pol = get_policy(policy)
    assert pol.normalize("The Inspection").text != pol.normalize("the inspection").text
    assert pol.normalize_quote("\u0130STANBUL") != pol.normalize_quote("istanbul")


@pytest.mark.parametrize("policy, text, span, original", [
    ("nfc", f"a {NFD_CAFE} b", (2, 6), (2, 7)),          # composed letter maps to both code points
    ("nfc", f"a {NFD_CAFE} b", (5, 6), (5, 7)),
    ("nfc", f"a {NFD_CAFE} b", (6, 8), (7, 9)),
    ("whitespace", "one\r\n\r\n  two", (0, 7), (0, 12)),
    ("whitespace", "one\r\n\r\n  two", (3, 4), (3, 9)),
    ("whitespace", "one\r\n\r\n  two", (4, 7), (9, 12)),
    ("fold", "a \ufb01ne day", (2, 6), (2, 5)),           # ligature spelled out: 1 -> 2 code points
    ("fold", "re\u00adsume", (0, 6), (0, 7)),             # removed soft hyphen
    ("fold", "re\u00adsume", (2, 6), (3, 7)),
    ("fold", "re\u00adsume", (0, 2), (0, 2)),
])
def test_map_back_to_original_offsets(policy, text, span, original):
    n = get_policy(policy).normalize(text)
    assert n.to_original(*span) == original


def test_inside_changed_pieces():
    fold = get_policy("fold")
    n = fold.normalize("a \ufb03x")  # 'a ffix'
    assert n.text == "a ffix"
    assert n.to_original(2, 5) == (2, 3)
    assert n.to_original(3, 5) is None and n.to_original(2, 4) is None
    ws = get_policy("whitespace").normalize("a \r\n b")
    assert ws.text == "a b" and ws.to_original(1, 2) == (1, 5)


def test_quotes_and_context_are_normalized_without_and_with_stripping():
    ws = get_policy("whitespace")
    assert ws.normalize_quote("  not\r\nspecified ") == "not specified"
    assert ws.normalize_context("is  ") == "is "
    assert get_policy("exact").normalize_quote("  x ") == "  x "
    assert get_policy("nfc").normalize_quote(f" {NFD_CAFE} ") == f" {NFC_CAFE} "


def test_policies_are_named_and_versioned():
    assert [p.label for p in POLICIES.values()] == ["exact@1", "nfc@1", "whitespace@1", "fold@1"]
    assert get_policy("fold@1") is POLICIES["fold"]
    with pytest.raises(ResolutionError, match="unknown normalization policy 'nfkc'"):
        get_policy("nfkc")
    with pytest.raises(ResolutionError, match="policy nfc has version 1, not '2'"):
        get_policy("nfc@2")


# --------------------------------------------------------------- properties
ALPHABET = st.sampled_from([
    "a", "B", " ", "  ", "\t", "\r\n", "\n", "\u00a0", "\u2009", "e\u0301", "\u00e9",
    "\u1100", "\u1161", "\u11a8", "\u0301", "\u0323", "\ufb01", "\ufb03", "\u2019", "\u201c",
    "\u2014", "\u00ad", "\u200b", "\u00b2", "\u2460", "\U0001F600", "\u0b47", "\u0b3e", "x",
])
TEXTS = st.lists(ALPHABET, max_size=30).map("".join)


@settings(max_examples=400, deadline=None, derandomize=os.environ.get("CI") == "true")
@given(TEXTS, st.sampled_from(list(POLICIES)))
def test_nfc_part_equals_unicodedata_and_mapped_spans_renormalize(text, name):
    pol = get_policy(name)
    n = pol.normalize(text)
    if pol.nfc and not pol.whitespace:
        assert n.text == unicodedata.normalize("NFC", text)
    assert n.to_original(0, len(n.text)) is not None
    for s in range(len(n.text) + 1):
        for e in range(s, len(n.text) + 1):
            m = n.to_original(s, e)
            if m is None:
                continue
            os_, oe = m
            assert 0 <= os_ <= oe <= len(text)
            assert pol.normalize(text[os_:oe]).text == n.text[s:e]
