"""JSONL event log: schema, line-numbered errors, all-or-nothing loading."""

from __future__ import annotations

import json

import jsonschema
import pytest

from provgraph.errors import EventLogError
from provgraph.events import load_events, schema

from . import pipeline


def test_schema_is_valid_json_schema_and_accepts_the_fixture():
    jsonschema.Draft202012Validator.check_schema(schema())
    v = jsonschema.Draft202012Validator(schema())
    for line in pipeline.events():
        assert not list(v.iter_errors(json.loads(line)))


def _replace(lines, index, **changes):
    obj = json.loads(lines[index])
    for k, v in changes.items():
        if v is None:
            obj.pop(k, None)
        else:
            obj[k] = v
    lines[index] = json.dumps(obj)
    return lines


@pytest.mark.parametrize("index, changes, line, field, message", [
    (1, {"uri": None}, 2, "uri", "required"),
    (9, {"at": "2026-03-01T09:10:00"}, 10, "at",
     r"'2026-03-01T09:10:00' is not an RFC 3339 date-time with a time zone \(add Z or an "
     r"offset such as \+01:00\)"),
    (18, {"unit": "chars"}, 19, "unit", "is not one of"),
    (14, {"kind": "quote"}, 15, "kind", "is not one of"),
    (12, {"retrieval": "nope"}, 13, "retrieval",
     "retrieval id 'nope' is not defined earlier in the log"),
    (16, {"end": 999}, 17, None, "outside the answer"),
])
def test_malformed_line_reports_line_and_field_and_stores_nothing(store, index, changes, line,
                                                                  field, message):
    lines = _replace(pipeline.events(), index, **changes)
    with pytest.raises(EventLogError, match=message) as exc:
        load_events(store, lines, name="events.jsonl")
    assert exc.value.line == line
    assert exc.value.field == field
    assert f"events.jsonl:{line}" in str(exc.value)
    assert len(store) == 0
    assert store.named_graphs() == []


def test_not_json_and_duplicate_ids(store):
    with pytest.raises(EventLogError, match="not valid JSON") as exc:
        load_events(store, ['{"event": "query", "text": "a"}', "{oops"])
    assert exc.value.line == 2
    lines = ['{"event": "query", "id": "q", "text": "a"}', '{"event": "query", "id": "q", "text": "b"}']
    with pytest.raises(EventLogError, match="already defined"):
        load_events(store, lines)
    assert len(store) == 0


def test_run_event_only_first(store):
    lines = ['{"event": "query", "text": "a"}', '{"event": "run", "label": "late"}']
    with pytest.raises(EventLogError, match="first line"):
        load_events(store, lines)


def test_a_run_in_one_of_provgraphs_own_graphs_is_a_line_error(store):
    lines = ['{"event": "run", "iri": "urn:provgraph:graph:ontology"}',
             '{"event": "query", "text": "q"}']
    with pytest.raises(EventLogError, match="urn:provgraph:graph:ontology is a graph provgraph "
                                            "reserves for itself") as exc:
        load_events(store, lines, name="own.jsonl")
    assert (exc.value.line, exc.value.field) == (1, "iri")
    assert str(exc.value).startswith("own.jsonl:1 field 'iri': ")
    assert len(store) == 0


def test_base64_content_keeps_exact_bytes(store):
    lines = ['{"event": "snapshot", "id": "s", "uri": "file:///x.bin", "media_type": "application/octet-stream",'
             ' "content_base64": "/v8AAQ==", "observed_at": "2026-01-01T00:00:00Z"}']
    load_events(store, lines)
    from provgraph.originals import sha256_hex
    assert store.originals.get(sha256_hex(b"\xfe\xff\x00\x01")) == b"\xfe\xff\x00\x01"


def test_lone_surrogates_bad_iris_and_dangling_refs_are_line_errors(store):
    with pytest.raises(EventLogError, match="lone UTF-16 surrogate") as exc:
        load_events(store, ['{"event": "query", "text": "ok"}', '{"event": "query", "text": "\\ud800"}'])
    assert exc.value.line == 2
    with pytest.raises(EventLogError, match="is not an absolute IRI") as exc:
        load_events(store, ['{"event": "query", "text": "q", "iri": "not an iri"}'])
    assert exc.value.line == 1
    with pytest.raises(EventLogError, match="is not an absolute IRI"):
        load_events(store, ['{"event": "run", "iri": "urn:x> <y"}', '{"event": "query", "text": "q"}'])
    with pytest.raises(EventLogError, match="claim <urn:x:claim> is not recorded") as exc:
        load_events(store, ['{"event": "query", "text": "q"}',
                            '{"event": "citation", "claim": "urn:x:claim", "target": "doc-1"}'])
    assert exc.value.line == 2
    assert len(store) == 0


def test_empty_log_and_duplicate_chunk_ids_are_errors(store):
    with pytest.raises(EventLogError, match="no pipeline events"):
        load_events(store, [])
    with pytest.raises(EventLogError, match="no pipeline events"):
        load_events(store, ['{"event": "run", "label": "only a run"}'])
    lines = pipeline.events()
    lines[5] = lines[5].replace('"ids": ["cp0", "cp1", "cp2"]', '"ids": ["cp0", "p1", "cp2"]')
    with pytest.raises(EventLogError, match="'p1' is already defined") as exc:
        load_events(store, lines)
    assert exc.value.line == 6 and exc.value.field == "ids"
    assert len(store) == 0


def _with_citation(**fields):
    lines = pipeline.events()
    cit = {"event": "citation", "claim": "cl1", "target": "cp1", "id": "extra", **fields}
    return lines + [json.dumps(cit)]


def test_citation_policy_is_recorded_and_checked_against_the_known_names(store):
    # QA 4: the event schema's citation event takes the declared normalization policy
    load_events(store, _with_citation(quote="interval is\nnot specified", policy="whitespace"))
    from provgraph.vocab import OA, PG

    [sel] = [q[0] for q in store.quads(None, PG.policy) if str(q[0]).endswith("#quote")]
    assert [q[2] for q in store.quads(sel, OA.exact)][0].value == "interval is\nnot specified"


@pytest.mark.parametrize("fields, message", [
    ({"quote": "x", "policy": "nfkc"}, "does not match"),
    ({"quote": "x", "policy": "Whitespace"}, "does not match"),
    ({"policy": "whitespace"}, "'quote' is a dependency of 'policy'"),
])
def test_citation_policy_errors(store, fields, message):
    with pytest.raises(EventLogError, match=message) as exc:
        load_events(store, _with_citation(**fields), name="events.jsonl")
    assert exc.value.line == len(pipeline.events()) + 1
    assert len(store) == 0


def test_schema_policy_names_are_the_policies():
    from provgraph.normalize import POLICIES

    pattern = schema()["allOf"][-1]["then"]["properties"]["policy"]["pattern"]
    assert pattern == "^(" + "|".join(POLICIES) + ")(@[0-9]+)?$"
