"""Re-ingesting unchanged bytes as a revision of their own snapshot is a re-observation
(issue 14, item 5): recorded, idempotent, and never stale."""

from __future__ import annotations

import datetime as dt
import json

from provgraph import Recorder
from provgraph.events import load_events
from provgraph.schema import snapshot as snapshot_schema
from provgraph.staleness import stale
from provgraph.vocab import GRAPH, PG, PROV

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
TEXT = "Boilers are inspected every 12 months by a certified engineer.\n"
URI = "https://example.org/boilers.txt"


def _cited(rec: Recorder) -> tuple[object, object]:
    """A snapshot, a chunk of it, an answer quoting it and a citation of the chunk."""
    snap = rec.snapshot(TEXT.encode(), uri=URI, media_type="text/plain", observed_at=T0)
    ext = rec.extraction(snap, parser=("plain", "1"), text=TEXT)
    [chunk] = rec.chunking(ext, chunker=("all", "1"), ranges=[(0, len(TEXT) - 1)])
    q = rec.query("How often are boilers inspected?")
    hits = rec.retrieval(q, retriever=("bm25", "1"), hits=[(chunk, 1.0)])
    from provgraph import Segment
    gi = rec.context_packing(text=chunk.text, retrieval=hits,
                             segments=[Segment(start=0, end=len(chunk.text), origin="original",
                                               source=chunk)])
    ans = rec.generation(gi, model=("m", "1"), text="Every 12 months.")
    claim = rec.claim(ans, start=0, end=16, kind="paraphrase")
    rec.citation(claim, target=chunk)
    return snap, claim


def test_unchanged_reingest_through_the_recorder_is_an_observation_not_an_error(store):
    rec = Recorder(store, label="first ingest")
    snap, _ = _cited(rec)
    before = len(store)
    later = T0 + dt.timedelta(days=1)
    again = rec.snapshot(TEXT.encode(), uri=URI, media_type="text/plain", observed_at=later,
                         revision_of=snap)
    assert again.iri == snap.iri and again.revision_of is None
    assert snapshot_schema.reobservations(store, snap.iri) == [later]
    # the snapshot is not revised: no self-revision, its first observation time is kept
    assert list(store.quads(snap.iri, PROV.wasRevisionOf, None)) == []
    [kept] = snapshot_schema.load(store, [snap.iri]).values()
    assert kept.observed_at == T0 and kept.revision_of is None
    assert stale(store) == []
    # the re-observation is an activity that used the snapshot, in the ingestion graph
    act = snapshot_schema.reobservation_iri(snap.sha256, later)
    assert set(store.quads(act, PROV.used, None)) == {(act, PROV.used, snap.iri, GRAPH.INGESTION)}
    assert list(store.quads(act, None, PG.Reobservation, GRAPH.INGESTION))
    # recording the same observation again adds nothing; another instant adds one
    n = len(store)
    rec.snapshot(TEXT.encode(), uri=URI, media_type="text/plain", observed_at=later,
                 revision_of=snap.iri)
    assert len(store) == n > before
    rec.snapshot(TEXT.encode(), uri=URI, media_type="text/plain",
                 observed_at=later + dt.timedelta(days=1), revision_of=snap)
    assert snapshot_schema.reobservations(store, snap.iri) == [later, later + dt.timedelta(days=1)]
    assert stale(store) == []


def test_a_real_change_after_a_reobservation_is_still_stale(store):
    rec = Recorder(store)
    snap, claim = _cited(rec)
    rec.snapshot(TEXT.encode(), uri=URI, media_type="text/plain",
                 observed_at=T0 + dt.timedelta(days=1), revision_of=snap)
    changed = TEXT.replace("12", "18")
    rec.snapshot(changed.encode(), uri=URI, media_type="text/plain",
                 observed_at=T0 + dt.timedelta(days=2), revision_of=snap)
    [row] = stale(store)
    assert (row.claim, row.snapshot) == (claim.iri, snap.iri)


def _log(lines: list[dict[str, object]]) -> list[str]:
    return [json.dumps(x) for x in lines]


def test_unchanged_reingest_through_the_event_log(store):
    first = _log([
        {"event": "run", "label": "nightly 1"},
        {"event": "snapshot", "id": "s", "uri": URI, "media_type": "text/plain", "content": TEXT,
         "observed_at": "2026-03-01T09:00:00Z"},
    ])
    load_events(store, first, name="night1.jsonl")
    [snap] = snapshot_schema.load(store, [_snapshot_iri(store)]).values()
    second = _log([
        {"event": "run", "label": "nightly 2"},
        {"event": "snapshot", "id": "s", "uri": URI, "media_type": "text/plain", "content": TEXT,
         "observed_at": "2026-03-02T09:00:00+01:00", "revision_of": snap.iri},
    ])
    load_events(store, second, name="night2.jsonl")  # used to raise "cannot be a revision of itself"
    assert snapshot_schema.reobservations(store, snap.iri) == [
        dt.datetime(2026, 3, 2, 8, 0, tzinfo=UTC)]
    assert list(store.quads(snap.iri, PROV.wasRevisionOf, None)) == []
    assert stale(store) == []


def _snapshot_iri(store):  # type: ignore[no-untyped-def]
    [(s, _, _, _)] = store.quads(None, PG.sha256, None, GRAPH.INGESTION)
    return s
