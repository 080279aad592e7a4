"""Staleness: claims whose cited source snapshot was revised or deleted, and
whether the span each claim rests on is still there (``provgraph stale``).

Re-exported by :mod:`provgraph.analytics`; see :func:`stale`. The computation is
:mod:`provgraph._stale_compute`, the index it answers from :mod:`provgraph._stale_index`
(brought up to date after writes by :mod:`provgraph._stale_delta`).
"""

from __future__ import annotations

from ._stale_compute import StaleRow, _compute
from ._stale_index import INDEX_FILE, _code_key, _compute_and_keep, _from_index, check_index
from .kinds import check_run
from .store import ProvStore

__all__ = ["StaleRow", "stale", "check_index", "INDEX_FILE"]


def stale(store: ProvStore, *, run: str | None = None, index: bool = True) -> list[StaleRow]:
    """Claims whose cited snapshot has a newer revision or was invalidated (``stale.rq``).

    ``stale.rq`` starts from the revision and invalidation statements and follows
    the ``pg:citedSnapshot`` shortcut back to the claims, one index scan per
    snapshot (read grouped by run, snapshot and kind: ``stale-claims.rq``, the same
    rows). Whether a claim's cited span is still present, unchanged, in the
    newest snapshot needs the retained bytes, which SPARQL cannot read, so it is
    decided here, per revised snapshot rather than per claim:

    1. the newest revision (``revisions.rq``) is read from ``store.originals``:
       its bytes decoded as UTF-8 (when they are; a leading byte-order mark is not
       text, as for the resolver) and every text extracted from it;
       a text "occurs" in it when it is found in one of these renderings under the
       ``whitespace`` normalization policy (NFC and collapsed whitespace only: a
       re-wrapped paragraph is unchanged, a changed character is not);
    2. each extracted text and chunk of the old snapshot (``stale-texts.rq``)
       whose whole text still occurs in it is unchanged, and so is every
       span of it: claims resting only on such targets get ``True``;
    3. for the old snapshot itself and each target that changed, the claims resting
       on it (``citations-of.rq``, ``derived-from.rq``; each run only where the
       cheaper ``stale-citations.rq`` and ``stale-dependents.rq`` show that it can
       add something) are checked span by
       span: the citation's range, read exactly as the resolver reads it
       (:func:`provgraph.offsets.cited_span`: code points, UTF-8 bytes counting a
       byte-order mark, UTF-16 units, or pages and blocks of an extracted text or a
       chunk; a range that names no text cannot be told), else its quote if the
       target contains it, else the whole target text must occur. A derivation from a changed target counts as changed; a
       citation of a generator input or indexed text derived from it cannot be
       mapped back and gives ``None``.

    The verdicts of a snapshot rest on its own statements only, so a call for one ``run``
    reads only the revised snapshots that run's claims cite (``stale-texts.rq`` once for
    each while they are fewer than a third of the store's revised snapshots): a small run
    of a large store costs milliseconds, not the whole store's reads.

    A claim's ``span_unchanged`` is ``False`` if any of its spans in the snapshot
    changed, else ``None`` if any could not be told, else ``True``; a claim derived
    from such a claim (``derivations.rq``, followed to the end of the chain) rests on
    the same spans and gets the worse of the two.

    **The stale index.** The rows of the whole store are kept beside it
    (:meth:`ProvStore.write_index`, ``stale-v2.json``) together with the store's
    :meth:`~ProvStore.state_token`, the place in the store's ledger it was computed at
    (:meth:`~ProvStore.ledger_mark`), the code that computed them and every retained
    original the computation read (and whether it was there). A later call answers from
    that index while the code is the same and each of those originals still reads back
    with its digest (and each that was missing still is):

    - as kept, when the token is unchanged (no statement written since, by anyone);
    - brought up to date, when the ledger continues from the index's mark: the ledger
      lines written since say what every write added and removed, and
      :mod:`provgraph._stale_delta` maps each statement to the snapshots whose rows it
      can change; only their rows are computed anew (a recorded answer touches the few
      snapshots its retrieval and citations reach; after a revision or a deletion the
      revisions and invalidations are read anew, and the snapshots whose newest
      revision or invalidation changed are computed). A removed statement a stale query
      reads, a blank node in one, or a writer that wrote without the ledger
      (``ledger=False``) make the whole index computed anew instead.

    Otherwise it computes anew; a whole-store call keeps what it got when no write landed
    meanwhile. So the index never changes an answer, only its time
    (tests/test_stale_index.py and tests/test_stale_index_delta.py compare them after
    every kind of write). A store that gives no token (in memory, remote) is always
    computed.

    Args:
        store: the store to read.
        run: restrict to claims recorded in this run; ``None`` means all runs.
        index: ``False`` computes anew and neither reads nor writes the stale index
            (what an auditor re-checking the index, or a benchmark, asks for).

    Returns:
        ``list[StaleRow]`` sorted by run, claim, snapshot.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
        OriginalMissingError, OriginalCorruptError: the newest snapshot's retained
            bytes are missing or altered.
    """
    run_iri = check_run(store, run)
    token = store.state_token() if index and _code_key() is not None else None
    if token is not None:
        rows = _from_index(store, token, keep=True)
        if rows is not None:
            return rows if run_iri is None else [r for r in rows if r.run == run_iri]
        if run_iri is None:
            return _compute_and_keep(store, token)
    return _compute(store, run_iri)

