"""resolve reads the store in a bounded number of batched queries (issue 12): the count
does not grow with the number of citations, and batching never changes a verdict."""

from __future__ import annotations

import pytest

from provgraph import EmbeddedStore
from provgraph._resolver import _ROUNDS
from provgraph.resolve import resolve_run

from .counting_store import counting
from .test_agreement import QUESTIONS, SOURCE, _pipeline

SENTENCES = [s + "." for s in SOURCE[:-1].split(". ")]
BOUND = 4 + 3 * _ROUNDS + 6  # resolver rounds + loading citations and claims + write-back


def _store(n: int) -> EmbeddedStore:
    store = EmbeddedStore()
    quotes = [(i % 3, QUESTIONS[i % 3] if i % 2 else SENTENCES[i % 3], i % 2 == 1) for i in range(n)]
    _pipeline(store, quotes)
    return store


@pytest.mark.parametrize("n", [1, 2, 8, 32])
def test_resolve_run_reads_are_bounded(n):
    store = _store(n)
    with counting(store) as c:
        result = resolve_run(c)
    assert len(result.items) == n
    assert c.reads <= BOUND, c.log
    assert c.counts.get("quads", 0) == 0, [m for m in c.log if m[0] == "quads"]


def test_read_count_does_not_grow_with_citations():
    counts = []
    for n in (2, 32):
        with counting(_store(n)) as c:
            resolve_run(c)
        counts.append(c.reads)
    assert counts[1] <= counts[0], counts


def test_batched_and_direct_reads_give_the_same_verdicts(monkeypatch):
    store = _store(12)
    before = len(store)
    batched = [(str(c.iri), r) for c, r in resolve_run(store).items]
    assert len(store) > before
    resolved = store.canonical_nquads()
    again = resolve_run(store)
    assert again.added == 0 and again.removed == 0
    import provgraph._resolver as R

    monkeypatch.setattr(R, "_ROUNDS", 0)  # no batching: every read on demand
    direct = [(str(c.iri), r) for c, r in resolve_run(store).items]
    assert direct == batched
    assert store.canonical_nquads() == resolved  # the re-runs changed nothing
