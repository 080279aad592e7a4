"""``provgraph stale`` agrees with the other readers of the same records (issue 12):

* with the resolver on a cited span: a span ``stale()`` calls unchanged is one the
  resolver still finds in the newest revision (both read a citation's range through
  :func:`provgraph.offsets.cited_span`);
* with ``stale.rq`` and ``stale-claims.rq`` (``provgraph query``) on which claims are
  stale, at the grain ``stale()`` reports: one row per run, claim and cited snapshot;
* with itself and SPARQL on which of two branching revisions is the newest: times are
  compared as instants, not as strings.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from provgraph import EmbeddedStore, Recorder, Segment, analytics
from provgraph._rows import _run_query
from provgraph.matching import VERIFIED
from provgraph.offsets import BOM, SourceText
from provgraph.resolve import Citation, resolve
from provgraph.terms import IRI, Literal, term_value
from provgraph.vocab import PG

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
URI = "https://example.org/source.txt"


def t(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def _answer(rec: Recorder) -> Any:
    gi = rec.context_packing(text="ctx", segments=[Segment(start=0, end=3, origin="instruction")],
                             at=t(1))
    return rec.generation(gi, model=("m", "1"), text="an answer", started_at=t(2), ended_at=t(2))


def _store_citing(old: bytes, **citation: Any) -> tuple[EmbeddedStore, Recorder, Any, Any]:
    """A store with snapshot ``old`` and one claim citing it (``citation``: the range
    and quote); returns (store, recorder, snapshot, citation record)."""
    store = EmbeddedStore()
    rec = Recorder(store, label="agreement", packages=[], started_at=t(0))
    snap = rec.snapshot(old, uri=URI, media_type="text/plain", observed_at=t(0))
    claim = rec.claim(_answer(rec), start=0, end=2, kind="paraphrase")
    cit = rec.citation(claim, target=snap, **citation)
    return store, rec, snap, cit


def _found(store: EmbeddedStore, quote: str, snapshot: IRI) -> bool:
    """Whether the resolver finds ``quote`` in ``snapshot`` under the whitespace policy
    ``stale()`` compares with (``ambiguous``: more than once, so it is there)."""
    got = resolve(store, Citation(target_id=str(snapshot), target=snapshot, quote=quote),
                  policy="whitespace")
    return got.outcome in VERIFIED or got.outcome == "ambiguous"


def _still_found(store: EmbeddedStore, old_cit: Any, new: IRI) -> bool:
    """Whether the text the resolver reads at ``old_cit`` occurs in snapshot ``new``, as
    the resolver finds a quote."""
    old = resolve(store, old_cit)
    assert old.text is not None, old
    return _found(store, old.text, new)


# ------------------------------------------------------------------ (2) the span of a citation

@pytest.mark.parametrize("unit, start, end", [("codepoint", 0, 3), ("utf16_unit", 0, 3),
                                              ("utf8_byte", 3, 6)])
def test_a_range_in_a_source_with_a_byte_order_mark_is_read_as_the_resolver_reads_it(unit, start, end):
    # "abc" in every unit: utf8_byte offsets count the BOM, the others do not. The
    # revision keeps "\ufeffab" but not "abc", so the span changed.
    store, rec, snap, cit = _store_citing(BOM + b"abc def", start=start, end=end, unit=unit)
    new = rec.snapshot(BOM + b"abX def", uri=URI, media_type="text/plain", observed_at=t(10),
                       revision_of=snap)
    assert resolve(store, cit).text == "abc"
    assert not _still_found(store, cit, new.iri)
    [row] = analytics.stale(store)
    assert (row.newest, row.span_unchanged) == (new.iri, False)
    store.close()


def test_an_empty_range_in_a_changed_target_cannot_be_told_unchanged():
    # an empty end-exclusive range names no text: the resolver says unresolved_range
    store, rec, snap, cit = _store_citing(b"abc def", start=2, end=2, unit="codepoint")
    rec.snapshot(b"abc de", uri=URI, media_type="text/plain", observed_at=t(10), revision_of=snap)
    assert resolve(store, cit).outcome == "unresolved_range"
    [row] = analytics.stale(store)
    assert row.span_unchanged is None
    store.close()


_PIECES = ["a", "b", "e", " ", "  ", "\n", "\r\n", "\t", "e\u0301", "\u00e9", "\U0001F600",
           "\U0001D538", "\u00df", "xy"]
_text = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12).map("".join)


@st.composite
def _case(draw: Any) -> tuple[bytes, bytes, dict[str, Any]]:
    """(old bytes, new bytes, citation arguments): a BOM or not on either side, the new
    text an edit of the old one, and a range in any unit (empty, inclusive, off a
    character boundary) or a quote."""
    text = draw(_text)
    old = (BOM if draw(st.booleans()) else b"") + text.encode()
    i = draw(st.integers(0, len(text)))
    j = draw(st.integers(i, len(text)))
    edited = text[:i] + draw(st.sampled_from(["", "Q", " ", "\n", "\u0301", "a"])) + text[j:]
    if edited == text:
        edited += "Q"
    new = (BOM if draw(st.booleans()) else b"") + edited.encode()
    src = SourceText.from_bytes(old)
    unit = draw(st.sampled_from(["codepoint", "utf8_byte", "utf16_unit", "page", "block", None]))
    if unit is None:
        a = draw(st.integers(0, len(src.text) - 1))
        return old, new, {"quote": src.text[a:draw(st.integers(a + 1, len(src.text)))]}
    if unit in ("page", "block"):
        start = draw(st.integers(0, src.size(unit) + 1))
        end = draw(st.integers(start, src.size(unit) + 1))
    else:  # mostly character boundaries, sometimes one unit off (inside a character)
        a = draw(st.integers(0, len(src.text)))
        b = draw(st.integers(a, len(src.text)))
        start = src.offset_of(a, unit) + draw(st.sampled_from([0, 0, 0, 1]))
        end = max(start, src.offset_of(b, unit) + draw(st.sampled_from([0, 0, 0, -1, 1])))
    return old, new, {"start": start, "end": end, "unit": unit,
                      "end_inclusive": draw(st.booleans())}


@settings(max_examples=200, deadline=None, derandomize=os.environ.get("CI") == "true",
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(_case())
def test_a_span_stale_calls_unchanged_is_one_the_resolver_still_finds(case):
    old, new, citation = case
    store, rec, snap, cit = _store_citing(old, **citation)
    try:
        # a range that names no text (empty, inside a character, past the end) is no
        # cited span: it is as unreadable in the revision as before, and a target whose
        # whole text is unchanged is not read citation by citation
        span = resolve(store, cit).text
        assume(span is not None)
        # the resolver finds the span as a quote in the old snapshot too (not a part of
        # a character such as "e" of "e\u0301"), and it is not whitespace only: the
        # whitespace policy makes that empty, and stale() calls every span of a target
        # whose whole text is unchanged (whitespace-normalized) unchanged unread
        assume(span.strip() and _found(store, span, snap.iri))
        newer = rec.snapshot(new, uri=URI, media_type="text/plain", observed_at=t(10),
                             revision_of=snap)
        [row] = analytics.stale(store)
        if row.span_unchanged is True:
            assert _still_found(store, cit, newer.iri), (old, new, citation)
    finally:
        store.close()


# ------------------------------------------------------------------ (4) one row per claim

def _query_rows(store: EmbeddedStore) -> dict[str, list[tuple[str, str, str, str]]]:
    """The rows of stale.rq and of stale-claims.rq (its groups split into their claims)
    as (run, claim, snapshot, kind), in the order given."""
    flat = [(str(r["run"]), str(r["claim"]), str(r["snapshot"]), str(term_value(r["kind"])))
            for r in _run_query(store, "stale", {})]
    grouped = []
    for g in _run_query(store, "stale-claims", {}):
        claims = str(term_value(g["claims"])).split(" ")
        assert term_value(g["count"]) == len(claims)
        grouped += [(str(g["run"]), c, str(g["snapshot"]), str(term_value(g["kind"])))
                    for c in claims]
    return {"stale": flat, "stale-claims": grouped}


def _assert_queries_agree_with_stale(store: EmbeddedStore) -> list[tuple[str, str, str, str]]:
    rows = [(str(r.run), str(r.claim), str(r.snapshot), r.kind) for r in analytics.stale(store)]
    for name, got in _query_rows(store).items():
        assert sorted(got) == rows, name
    return rows


def _two_claims_and_two_revisions() -> tuple[EmbeddedStore, Recorder, Any, Any, Any]:
    store, rec, snap, _ = _store_citing(b"abc def", quote="abc")
    rec.citation(rec.claim(_answer(rec), start=0, end=2, kind="paraphrase"), target=snap,
                 quote="def")
    a = rec.snapshot(b"abc def A", uri=URI, media_type="text/plain", observed_at=t(10),
                     revision_of=snap)
    b = rec.snapshot(b"abc def B", uri=URI, media_type="text/plain", observed_at=t(20),
                     revision_of=snap)
    return store, rec, snap, a, b


def test_two_branching_revisions_give_one_row_per_claim_in_every_reading():
    store, _, snap, _, b = _two_claims_and_two_revisions()
    rows = _assert_queries_agree_with_stale(store)
    assert [(r[2], r[3]) for r in rows] == [(str(snap.iri), "updated")] * 2
    assert {r.newest for r in analytics.stale(store)} == {b.iri}
    store.close()


def test_a_deletion_gives_one_deleted_row_per_claim_in_every_reading():
    # the deletion invalidates the newest snapshot and its document: a snapshot cited
    # there is reached twice, and the revised one is both updated and deleted
    store, rec, snap, a, b = _two_claims_and_two_revisions()
    rec.citation(rec.claim(_answer(rec), start=0, end=2, kind="paraphrase"), target=b,
                 quote="B")
    rec.deletion(b, at=t(30))
    rows = _assert_queries_agree_with_stale(store)
    assert sorted((r[2], r[3]) for r in rows) == sorted(
        [(str(snap.iri), "deleted")] * 2 + [(str(b.iri), "deleted")])
    store.close()


def test_a_deleted_snapshot_with_a_revised_document_in_one_run():
    store, rec, snap, a, b = _two_claims_and_two_revisions()
    rec.deletion(snap, at=t(30))  # the old snapshot itself and the document
    _assert_queries_agree_with_stale(store)
    store.close()


# ------------------------------------------------------------------ (5) the newest revision

_PLUS5 = dt.timezone(dt.timedelta(hours=5))


def test_the_newest_branching_revision_is_the_latest_instant_not_the_latest_string():
    # 10:00+05:00 is 05:00Z, four hours before 09:00Z
    store, rec, snap, _ = _store_citing(b"abc def", quote="abc")
    late_string = rec.snapshot(b"abc def A", uri=URI, media_type="text/plain",
                               observed_at=dt.datetime(2026, 3, 2, 10, 0, tzinfo=_PLUS5),
                               revision_of=snap)
    latest = rec.snapshot(b"abc def B", uri=URI, media_type="text/plain",
                          observed_at=dt.datetime(2026, 3, 2, 9, 0, tzinfo=UTC), revision_of=snap)
    [row] = analytics.stale(store)
    assert row.newest == latest.iri and row.changed_at == dt.datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    # SPARQL compares the literals as xsd:dateTime and gives the same order
    order = store.select(
        "PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX pg: <https://w3id.org/provgraph/ns#> "
        "SELECT ?old ?newer WHERE { ?newer prov:wasRevisionOf ?old ; pg:observedAt ?at } "
        "ORDER BY DESC(?at)", {"old": snap.iri})
    assert [IRI(r["newer"]) for r in order] == [latest.iri, late_string.iri]
    store.close()


def test_an_observation_time_without_a_zone_is_read_as_utc():
    # a PROV document may carry an xsd:dateTime without a zone; it is read as UTC (it
    # used to stop stale() with a TypeError when compared with a zoned time)
    store, rec, snap, _ = _store_citing(b"abc def", quote="abc")
    rec.snapshot(b"abc def A", uri=URI, media_type="text/plain",
                 observed_at=dt.datetime(2026, 3, 2, 10, 0, tzinfo=_PLUS5), revision_of=snap)
    naive = rec.snapshot(b"abc def B", uri=URI, media_type="text/plain", observed_at=t(0),
                         revision_of=snap)
    [quad] = store.quads(naive.iri, PG.observedAt)
    store.remove([quad])
    store.add([(naive.iri, PG.observedAt,
                Literal("2026-03-02T09:00:00", "http://www.w3.org/2001/XMLSchema#dateTime"),
                quad[3])])
    [row] = analytics.stale(store)
    assert row.newest == naive.iri and row.changed_at == dt.datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    store.close()



def test_stale_and_a_citation_of_the_document_agree_on_the_newest_revision():
    store, rec, snap, _ = _store_citing(b"abc def", quote="abc")
    rec.snapshot(b"abc def A", uri=URI, media_type="text/plain",
                 observed_at=dt.datetime(2026, 3, 2, 10, 0, tzinfo=_PLUS5), revision_of=snap)
    rec.snapshot(b"abc def B", uri=URI, media_type="text/plain",
                 observed_at=dt.datetime(2026, 3, 2, 9, 0, tzinfo=UTC), revision_of=snap)
    [row] = analytics.stale(store)
    got = resolve(store, Citation(target_id=str(snap.document), target=snap.document, quote="abc"))
    assert got.snapshot == row.newest
    store.close()
