"""Agreement tests: two commands that read the same citation give the same answer
(issue 12). Each pair of readers gets a regression case and a property over random
pipelines."""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provgraph import EmbeddedStore, Recorder
from provgraph.analytics import generated_evidence
from provgraph.model import Segment
from provgraph.resolve import resolve_run

T0 = dt.datetime(2026, 1, 5, 10, 0, tzinfo=dt.timezone.utc)
SOURCE = ("Boilers are inspected every twelve months. Pressure vessels are tested every "
          "five years. Records are kept for ten years.")
QUESTIONS = ["How often are boilers inspected?", "When are pressure vessels tested?",
             "How long are records kept?"]


def _pipeline(store: EmbeddedStore, quotes: list[tuple[int, str, bool]]) -> Recorder:
    """A pipeline with one chunk per sentence and a generated question derived from each
    chunk (the aid a LlamaIndex QuestionsAnsweredExtractor makes); each quote is
    ``(chunk index, quoted text, shown in the prompt as generated)``."""
    rec = Recorder(store, label="agreement", packages=[], started_at=T0)
    snap = rec.snapshot(SOURCE.encode(), uri="file:///ops.txt", media_type="text/plain",
                        observed_at=T0)
    ext = rec.extraction(snap, parser=("plain", "1"), text=SOURCE)
    bounds, start = [], 0
    for i, ch in enumerate(SOURCE):
        if ch == "." and (i + 1 == len(SOURCE) or SOURCE[i + 1] == " "):
            bounds.append((start, i + 1))
            start = i + 2
    chunks = rec.chunking(ext, chunker=("sentences", "1"), ranges=bounds)
    aids = [rec.aid("generated_question", text=q, model=("qgen", "1"), derived_from=[c])
            for q, c in zip(QUESTIONS, chunks)]
    q = rec.query("What are the inspection rules?")
    hits = rec.retrieval(q, retriever=("bm25", "1"), hits=[(c, 1.0) for c in chunks])
    prompt = " ".join(c.text for c in chunks) + " " + " ".join(a.text for a in aids)
    segs, pos = [], 0
    for c in chunks:
        segs.append(Segment(start=pos, end=pos + len(c.text), origin="original", source=c))
        pos += len(c.text) + 1
    for a in aids:
        segs.append(Segment(start=pos, end=pos + len(a.text), origin="generated", source=a))
        pos += len(a.text) + 1
    gi = rec.context_packing(text=prompt, segments=segs, retrieval=hits)
    answer_text = " ".join(f'"{quote}"' for _, quote, _ in quotes)
    ans = rec.generation(gi, model=("gen", "1"), text=answer_text)
    pos = 0
    for idx, quote, _ in quotes:
        span = len(quote) + 2
        claim = rec.claim(ans, start=pos, end=pos + span, kind="quotation")
        rec.citation(claim, target=chunks[idx], quote=quote)
        pos += span + 1
    return rec


def _generated_target(store: EmbeddedStore) -> set[str]:
    return {str(c.iri) for c, r in resolve_run(store).items if r.outcome == "generated_target"}


def test_quote_of_a_generated_question_citing_its_chunk_is_generated_evidence():
    """Regression (issue 12, disagreement 1): the answer quotes the generated question
    while citing the chunk it was derived from. resolve gives generated_target, and
    generated-evidence must list the same citation (it listed none)."""
    store = EmbeddedStore()
    _pipeline(store, [(0, QUESTIONS[0], True), (1, "Pressure vessels are tested every five years.",
                                                False)])
    flagged = _generated_target(store)
    assert len(flagged) == 1
    rows = generated_evidence(store)
    assert {str(r.citation) for r in rows} == flagged
    assert [r.basis for r in rows] == ["resolved_generated"]
    assert rows[0].aid is not None and rows[0].aid_type == "GeneratedQuestion"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=1, max_size=5))
def test_every_generated_target_citation_is_generated_evidence(picks):
    sentences = [s + "." for s in SOURCE[:-1].split(". ")]
    quotes = [(i, QUESTIONS[i] if gen else sentences[i], gen) for i, gen in picks]
    store = EmbeddedStore()
    _pipeline(store, quotes)
    flagged = _generated_target(store)
    assert len(flagged) == sum(1 for _, _, gen in quotes if gen)
    listed = {str(r.citation) for r in generated_evidence(store) if r.citation is not None}
    assert flagged <= listed


def test_a_moved_quote_cited_through_its_document_is_not_orphaned():
    """A ranged quote of a document whose newest revision still holds the quote
    elsewhere is a misplaced range (quote_mismatch, saying where the quote is), not an
    orphaned quote (which says it is gone): stale calls the same span unchanged."""
    from provgraph.resolve import Citation, resolve

    store = EmbeddedStore()
    rec = Recorder(store, packages=[])
    old = rec.snapshot("\ufeffAlpha beta.\nGamma delta.".encode(), uri="file:///x.txt",
                       media_type="text/plain", observed_at=T0)
    rec.snapshot("\ufeffNew line.\nAlpha beta.\nGamma delta.".encode(), uri="file:///x.txt",
                 media_type="text/plain", observed_at=T0 + dt.timedelta(days=1), revision_of=old)
    got = resolve(store, Citation(target_id=old.document, target=old.document, start=12, end=24,
                                  unit="codepoint", quote="Gamma delta."))
    assert got.outcome == "quote_mismatch"
    assert "the quote occurs at code points [22, 34)" in got.reason


def test_a_claim_citing_a_deleted_document_is_stale_and_orphaned():
    """resolve calls a citation of a deleted document orphaned; stale (the command and
    both queries) lists its claim as deleted against the document's newest snapshot."""
    from provgraph import analytics
    from provgraph.queries import QueryCatalog

    store = EmbeddedStore()
    rec = Recorder(store, packages=[])
    old = rec.snapshot(b"Alpha beta.", uri="file:///d.txt", media_type="text/plain",
                       observed_at=T0)
    new = rec.snapshot(b"Alpha beta. Gamma.", uri="file:///d.txt", media_type="text/plain",
                       observed_at=T0 + dt.timedelta(days=1), revision_of=old)
    q = rec.query("q?")
    gi = rec.context_packing(text="Alpha beta.", segments=[])
    ans = rec.generation(gi, model=("m", "1"), text='"Alpha beta."')
    claim = rec.claim(ans, start=0, end=13, kind="quotation")
    rec.citation(claim, target=old.document, quote="Alpha beta.")
    assert q.iri and analytics.stale(store) == []  # a revision does not make it stale
    rec.deletion(new)
    [res] = resolve_run(store).items
    assert res[1].outcome == "orphaned"
    rows = analytics.stale(store)
    assert [(r.claim, r.snapshot, r.kind) for r in rows] == [(claim.iri, new.iri, "deleted")]
    catalog = QueryCatalog()
    for name in ("stale", "stale-claims"):
        got = store.select(catalog.get(name).text)
        assert {str(new.iri)} == {str(r["snapshot"]) for r in got}, name
