"""OTLP JSON Lines with OpenInference / GenAI attributes (issue 14, item 4).

The real input is ../shared/cases/otel/openinference_llamaindex.otlp.jsonl (a LlamaIndex
run traced by openinference-instrumentation-llama-index); it is read from there, never
copied. Expectations are taken from the file itself and compared with what the schema
layer reads back from the store.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from provgraph import EmbeddedStore, Recorder
from provgraph.errors import ImportFailed
from provgraph.importers import detect, import_file
from provgraph.resolve import resolve_run
from provgraph.schema import generation, prompt, retrieval, run as run_schema, snapshot
from provgraph.terms import IRI
from provgraph.vocab import GRAPH, PG

from .conftest import shared_cases

NAME = "openinference_llamaindex.otlp.jsonl"


def _case() -> bytes:
    return (shared_cases("otel") / NAME).read_bytes()


def _spans(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [sp for rs in request["resourceSpans"] for ss in rs["scopeSpans"] for sp in ss["spans"]]


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for kv in span.get("attributes", []):
        v = kv["value"]
        out[kv["key"]] = next(iter(v.values())) if v else None
    return out


def _of_type(store: EmbeddedStore, run: IRI, cls: IRI) -> list[IRI]:
    rows = store.select("SELECT ?run ?cls ?x WHERE { GRAPH ?run { ?x a ?cls } }",
                        {"run": run, "cls": cls})
    return sorted(IRI(str(r["x"])) for r in rows)


def _expected(data: bytes) -> dict[str, Any]:
    """What the file says, read independently of the importer."""
    docs: list[tuple[int, str, str, float]] = []
    prompts: list[str] = []
    answers: list[str] = []
    for line in data.decode().splitlines():
        for sp in _spans(json.loads(line)):
            a = _attrs(sp)
            n = 0
            while f"retrieval.documents.{n}.document.id" in a:
                docs.append((n + 1, a[f"retrieval.documents.{n}.document.id"],
                             a[f"retrieval.documents.{n}.document.content"],
                             a[f"retrieval.documents.{n}.document.score"]))
                n += 1
            if sp["name"].endswith(".complete"):  # the innermost LLM span
                prompts += [v["stringValue"] for v in a["llm.prompts"]["values"]]
                answers.append(a["output.value"])
    return {"docs": docs, "prompts": prompts, "answers": answers}


# ------------------------------------------------------------------ the real file

def test_shared_file_imports_every_document_score_prompt_and_answer(store):
    data = _case()
    want = _expected(data)
    assert want["docs"] and want["prompts"]  # the case holds what this test is about
    r = import_file(store, "otlp", data, NAME)
    assert (r.items_total, r.items_ok, r.errors, r.answers, r.snapshots) == (2, 2, (), 1, 1)
    [run] = r.runs
    [run_rec] = run_schema.load(store, [run])
    assert run_rec.config is not None
    assert run_rec.config["trace_id"] == "c1ef3be083f723dcbba576e856e19e59"
    assert run_rec.config["service_name"] == "rag-demo"
    # the retrieval: every document, in rank order, with its score and retained bytes
    [ret] = retrieval.load(store, _of_type(store, run, PG.Retrieval)).values()
    assert ret.retriever.name == "BM25Retriever.retrieve"
    snaps = snapshot.load(store, [h.target_iri for h in ret.hits])
    got = [(h.rank, snaps[h.target_iri].source_uri,
            snapshot_bytes(store, snaps[h.target_iri]).decode(), h.score) for h in ret.hits]
    assert got == want["docs"]
    assert [s.media_type for s in snaps.values()] == ["text/plain; charset=utf-8"]
    # the query the retriever used
    [query_text] = [str(row["t"].value) for row in store.select(  # type: ignore[union-attr]
        "SELECT ?q ?t WHERE { ?q <https://w3id.org/provgraph/ns#text> ?t }", {"q": ret.query})]
    assert query_text == "capital?"
    # the exact prompt, its segments, its template
    [gi] = prompt.load(store, _of_type(store, run, PG.GeneratorInput)).values()
    assert [gi.text] == want["prompts"]
    assert gi.retrieval == ret.iri
    by_origin = {s.origin: gi.text[s.start:s.end] for s in gi.segments if s.origin != "instruction"}
    assert by_origin == {"original": want["docs"][0][2], "query": "capital?"}
    assert [s.source_iri for s in gi.segments if s.origin == "original"] == [ret.hits[0].target_iri]
    assert [s.source_iri for s in gi.segments if s.origin == "query"] == [ret.query]
    instructions = [gi.text[s.start:s.end] for s in gi.segments if s.origin == "instruction"]
    assert instructions[0] == "Context information is below.\n---------------------\n"
    # the metadata header LlamaIndex put before the chunk is neither original nor instruction
    assert "file_name: fr.txt\n\n" not in "".join(gi.text[s.start:s.end] for s in gi.segments)
    assert gi.template is not None and gi.template.name.startswith("openinference-template-")
    # the generation: model, settings, answer
    [ans] = generation.load(store, _of_type(store, run, PG.Answer)).values()
    assert [ans.text] == want["answers"]
    assert (ans.model.name, ans.model.version) == ("unknown", "")
    assert ans.settings == {"num_output": -1, "is_chat_model": False}
    assert ans.generator_input == gi.iri
    # the ingestion-only trace records nothing and says so
    [warning] = r.warnings
    assert "trace 86fe83e1e624f6a7acfea97b453343f3 has no retrieval or LLM span" in warning.message


def snapshot_bytes(store: EmbeddedStore, snap: snapshot.SnapshotRecord) -> bytes:
    return store.originals.get(snap.sha256)


def test_auto_detection_and_the_cli_as_a_whole_process(tmp_path):
    data = _case()
    assert detect(data) == "otlp"
    assert detect(b'{"entity": {}}') is None
    path = shared_cases("otel") / NAME
    st = tmp_path / "store"
    env = {**os.environ, "PROVGRAPH_LOCK_TIMEOUT": "60"}
    done = subprocess.run([sys.executable, "-m", "provgraph", "--store", str(st), "import",
                           str(path)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"imported {path} (otlp): " in done.stderr
    assert "warning: item 0 at " in done.stderr
    from provgraph import open_store

    store = open_store(st)
    try:
        [run] = [IRI(str(r["run"])) for r in store.select(
            "SELECT ?run WHERE { GRAPH ?run { ?run a <https://w3id.org/provgraph/ns#Run> } }")]
        [ret] = retrieval.load(store, _of_type(store, run, PG.Retrieval)).values()
        assert [(h.rank, h.score) for h in ret.hits] == [(d[0], d[3]) for d in _expected(data)["docs"]]
    finally:
        store.close()


# ------------------------------------------------------------------ variants of the real file

def _request() -> dict[str, Any]:
    return json.loads(_case().decode().splitlines()[0])


def _retriever_span(req: dict[str, Any]) -> dict[str, Any]:
    return next(sp for sp in _spans(req) if sp["name"] == "BM25Retriever.retrieve")


def _line(req: dict[str, Any]) -> bytes:
    return (json.dumps(req) + "\n").encode()


def test_document_without_content_is_recorded_as_such_and_its_citations_are_unresolved(store):
    req = _request()
    span = _retriever_span(req)
    span["attributes"] = [kv for kv in span["attributes"]
                          if kv["key"] != "retrieval.documents.0.document.content"]
    r = import_file(store, "otlp", _line(req), "hidden.jsonl")
    assert r.snapshots == 0
    [run] = r.runs
    [ret] = retrieval.load(store, _of_type(store, run, PG.Retrieval)).values()
    [hit] = ret.hits
    assert (hit.rank, hit.score) == (1, 0.1150728315114975)
    doc = hit.target_iri
    assert snapshot.load(store, [doc]) == {}  # not a snapshot: no bytes
    why = snapshot.not_retained(store, [doc])[doc]
    assert why.startswith("hidden.jsonl:1 $.resourceSpans[0].scopeSpans[0].spans[3]")
    assert "gave no document.content" in why
    assert list(store.quads(doc, PG.notRetained, None, GRAPH.INGESTION))
    # the prompt holds the text, but nothing links it to evidence
    [gi] = prompt.load(store, _of_type(store, run, PG.GeneratorInput)).values()
    assert [s for s in gi.segments if s.origin == "original"] == []
    # a citation of that document (by the id the framework gave it) is unresolved, with the reason
    rec = Recorder(store, run_iri=run)
    [ans] = generation.load(store, _of_type(store, run, PG.Answer)).values()
    claim = rec.claim(ans, start=0, end=7, kind="quotation")
    rec.citation(claim, target="2e9f223a-6b40-4fb0-8217-84e266d3ccd0", quote="Context")
    rec.citation(claim, target=doc, quote="Context")
    res = resolve_run(store, run)
    assert [x.outcome for _, x in res.items] == ["unresolved_id", "unresolved_id"]
    for _, x in res.items:
        assert "its bytes were not retained" in x.reason and "gave no document.content" in x.reason


def _with_documents(n: int, keep_last: int | None) -> dict[str, Any]:
    """The real request with ``n`` retrieved documents; with ``keep_last``, the span keeps
    only its last ``keep_last`` attributes, as the SDK's attribute limit does."""
    req = _request()
    span = _retriever_span(req)
    base = [kv for kv in span["attributes"] if not kv["key"].startswith("retrieval.documents.")]
    docs = []
    for i in range(n):
        docs += [{"key": f"retrieval.documents.{i}.document.id", "value": {"stringValue": f"node-{i}"}},
                 {"key": f"retrieval.documents.{i}.document.content",
                  "value": {"stringValue": f"Passage number {i} about Paris."}},
                 {"key": f"retrieval.documents.{i}.document.score",
                  "value": {"doubleValue": 1.0 - i / 100}},
                 {"key": f"retrieval.documents.{i}.document.metadata",
                  "value": {"stringValue": "{}"}}]
    attrs = base[:1] + docs + base[1:]  # input.value first, as OpenInference sets it
    if keep_last is not None and len(attrs) > keep_last:
        span["droppedAttributesCount"] = len(attrs) - keep_last
        attrs = attrs[-keep_last:]
    span["attributes"] = attrs
    return req


def test_attribute_limit_warns_and_keeps_the_true_ranks(store):
    req = _with_documents(40, keep_last=128)  # 1 + 160 + 3 attributes; the SDK kept 128
    r = import_file(store, "otlp", _line(req), "limited.jsonl")
    limit = [w for w in r.warnings if "attribute" in w.message]
    [w] = limit
    assert w.path == "limited.jsonl:1 $.resourceSpans[0].scopeSpans[0].spans[3]"
    assert "the OpenTelemetry SDK dropped 36 attribute(s)" in w.message
    assert "documents at ranks 1-9 (9 of them) are missing" in w.message
    assert "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT" in w.message
    [ret] = retrieval.load(store, _of_type(store, r.runs[0], PG.Retrieval)).values()
    ranks = [h.rank for h in ret.hits]
    assert ranks[0] == 10 and ranks == list(range(10, 41))
    assert ret.hits[0].score == pytest.approx(1.0 - 9 / 100)


def test_exactly_128_attributes_is_a_warning_too(store):
    req = _with_documents(31, keep_last=None)  # 1 + 124 + 3 = 128, nothing marked dropped
    assert len(_retriever_span(req)["attributes"]) == 128
    r = import_file(store, "otlp", _line(req), "full.jsonl")
    [w] = [w for w in r.warnings if "attribute" in w.message]
    assert "it has 128 attributes, the SDK's default limit of 128" in w.message
    req = _with_documents(30, keep_last=None)
    r = import_file(EmbeddedStore(), "otlp", _line(req), "fine.jsonl")
    assert not [w for w in r.warnings if "attribute" in w.message]


# ------------------------------------------------------------------ errors and --partial

def test_bad_span_id_names_file_line_and_path_and_stores_nothing():
    req = _request()
    _spans(req)[2]["spanId"] = "KHSWHBsZGBE="  # base64, as the generic Protobuf JSON mapping writes
    data = _case() + _line(req)
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "otlp", data, "bad.jsonl")
    [err] = info.value.report.errors
    assert err.path == "bad.jsonl:2 $.resourceSpans[0].scopeSpans[0].spans[2].spanId"
    assert "is not a 16-digit hex id (this looks like base64" in err.message
    assert len(store) == 0
    assert "bad.jsonl: nothing was stored" in str(info.value)


def test_not_json_line_and_not_otlp():
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "otlp", _case() + b"{oops\n", "t.jsonl")
    [err] = info.value.report.errors
    assert err.path == "t.jsonl:2" and err.message.startswith("is not JSON")
    with pytest.raises(ImportFailed) as info:
        import_file(store, "otlp", b'{"entity": {}}\n', "prov.json")
    [err] = info.value.report.errors
    assert "is not an ExportTraceServiceRequest" in err.message
    assert len(store) == 0


def test_an_llm_span_without_prompt_fails_its_trace_and_partial_stores_the_rest():
    bad = _request()
    for sp in _spans(bad):
        sp["traceId"] = "0123456789abcdef0123456789abcdef"
        if sp["name"] == "MockLLM.complete":
            sp["attributes"] = [kv for kv in sp["attributes"]
                                if kv["key"] not in ("llm.prompts", "input.value")]
    data = _case() + _line(bad)
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as info:
        import_file(store, "otlp", data, "mixed.jsonl")
    [err] = info.value.report.errors
    assert err.item == 2 and "is an LLM span without a prompt" in err.message
    assert "OPENINFERENCE_HIDE_INPUTS" in err.message
    assert len(store) == 0
    r = import_file(store, "otlp", data, "mixed.jsonl", partial=True)
    assert (r.items_ok, len(r.runs), r.answers) == (2, 1, 1)


# ------------------------------------------------------------------ GenAI conventions

def _genai_request() -> dict[str, Any]:
    def kv(key: str, value: Any) -> dict[str, Any]:
        if isinstance(value, float):
            return {"key": key, "value": {"doubleValue": value}}
        if isinstance(value, int):
            return {"key": key, "value": {"intValue": str(value)}}
        return {"key": key, "value": {"stringValue": value}}

    messages = [{"role": "user", "parts": [{"type": "text", "content": "What is the capital?"}]}]
    out = [{"role": "assistant", "parts": [{"type": "text", "content": "Paris."}],
            "finish_reason": "stop"}]
    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
            "name": "chat gpt-4o", "kind": 3, "startTimeUnixNano": "1700000000000000000",
            "endTimeUnixNano": "1700000001500000000",
            "attributes": [kv("gen_ai.operation.name", "chat"), kv("gen_ai.provider.name", "openai"),
                           kv("gen_ai.request.model", "gpt-4o"),
                           kv("gen_ai.response.model", "gpt-4o-2024-08-06"),
                           kv("gen_ai.request.temperature", 0.2), kv("gen_ai.request.max_tokens", 200),
                           kv("gen_ai.system_instructions", "Answer briefly."),
                           kv("gen_ai.input.messages", json.dumps(messages)),
                           kv("gen_ai.output.messages", json.dumps(out))]}
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.openai"},
                                               "spans": [span]}]}]}


def test_genai_chat_span_becomes_prompt_and_generation(store):
    r = import_file(store, "otlp", _line(_genai_request()), "genai.jsonl")
    [run] = r.runs
    [gi] = prompt.load(store, _of_type(store, run, PG.GeneratorInput)).values()
    assert gi.text == "system:\nAnswer briefly.\n\nuser:\nWhat is the capital?"
    assert gi.retrieval is None and gi.template is None
    [ans] = generation.load(store, _of_type(store, run, PG.Answer)).values()
    assert ans.text == "Paris."
    assert (ans.model.name, ans.model.version) == ("gpt-4o", "gpt-4o-2024-08-06")
    assert ans.settings == {"temperature": 0.2, "max_tokens": 200, "provider": "openai"}
    assert ans.started_at is not None and ans.started_at.isoformat() == "2023-11-14T22:13:20+00:00"
    assert ans.ended_at is not None and ans.ended_at.microsecond == 500000
    assert _of_type(store, run, PG.Retrieval) == []


def test_variants_do_not_alter_the_shared_case():
    # _request() parses a fresh copy each time; the file on disk is never written
    before = _case()
    req = _request()
    copy.deepcopy(req)
    assert _case() == before and Path(shared_cases("otel") / NAME).is_file()


def test_only_trace_runs_are_recorded(store):
    r = import_file(store, "otlp", _case(), NAME)
    rows = store.select("SELECT ?run WHERE { GRAPH ?run { ?run a <https://w3id.org/provgraph/ns#Run> } }")
    assert sorted(IRI(str(x["run"])) for x in rows) == list(r.runs)


@pytest.mark.parametrize("where, value, message", [
    ("resource", [{"attributes": []}], "$.resourceSpans[0].resource: must be a Resource object"),
    ("scopeSpans", {"spans": []}, "$.resourceSpans[0].scopeSpans: must be an array of ScopeSpans"),
])
def test_a_level_of_the_wrong_type_is_an_item_error(where, value, message):
    # found by fuzzing (tests/test_fuzz_parsers.py, issue 20): a "resource" given as an
    # array was AttributeError: 'list' object has no attribute 'get'
    data = json.dumps({"resourceSpans": [{where: value}]}).encode()
    store = EmbeddedStore()
    with pytest.raises(ImportFailed) as exc:
        import_file(store, "otlp", data, "traces.jsonl")
    assert message in str(exc.value), str(exc.value)
    assert len(store) == 0
