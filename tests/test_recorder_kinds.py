"""An IRI given where the Recorder (or the event log) expects a claim, an answer, a query
or a generator input must name one: a run's IRI there was stored as if it were one (a
claim citing nothing, a claim of a run), with exit 0 from ``provgraph record``."""

from __future__ import annotations

import json

import pytest

from provgraph import Recorder
from provgraph.errors import EventLogError, RecordError
from provgraph.events import load_events

from . import pipeline


def _statements(store):
    return sorted(map(str, store.quads()))


@pytest.mark.parametrize("event", [
    {"event": "claim", "answer": "RUN", "start": 0, "end": 3, "kind": "quotation", "text": "abc"},
    {"event": "citation", "claim": "RUN", "target": "doc-1", "quote": "abc"},
    {"event": "citation", "claim": "CLAIM_OF", "target": "doc-1"},
    {"event": "generation", "input": "RUN", "model": {"name": "m", "version": "1"}, "text": "x"},
    {"event": "retrieval", "query": "CLAIM", "retriever": {"name": "r", "version": "1"}, "hits": []},
])
def test_event_log_refuses_an_iri_of_another_kind(rag_store, event):
    store, records = rag_store
    names = {"RUN": str(records["run"]), "CLAIM": str(records["claim_quote"].iri),
             "CLAIM_OF": str(records["answer"].iri)}
    ev = {k: names.get(v, v) if isinstance(v, str) else v for k, v in event.items()}
    before = _statements(store)
    with pytest.raises(EventLogError, match=r"is an? (run|claim|answer) \(") as exc:
        load_events(store, [json.dumps(ev)], name="log.jsonl")
    assert exc.value.line == 1
    assert " a answer" not in str(exc.value)
    assert _statements(store) == before


def test_recorder_refuses_its_own_run_as_a_claim(store):
    rec = Recorder(store, label="k", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    with pytest.raises(RecordError, match="is a run"):
        rec.citation(str(rec.iri), target="doc-1")


def test_recorder_takes_iris_of_the_right_kind(rag_store):
    store, records = rag_store
    rec = Recorder(store, label="k2", packages=[], started_at=pipeline.t(0))
    claim = rec.claim(str(records["answer"].iri), start=0, end=3, kind="quotation", text="abc")
    rec.citation(str(claim.iri), target="doc-1")
    rec.citation(str(records["claim_quote"].iri), target="doc-2")
