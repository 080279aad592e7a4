"""``provgraph serve`` and its client (issue 13, part 2): the SPARQL 1.1 Protocol, ingest,
health, the token, the limits, shutdown, and the store contract through the client (the
contract suite itself runs on it too: ``served`` in tests/test_store_contract.py)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from provgraph import Recorder
from provgraph.cli import cli
from provgraph.errors import EventLogError
from provgraph.events import load_events
from provgraph.queries import QueryCatalog
from provgraph.serve.client import ServedStore, _Connection
from provgraph.store import EmbeddedStore, open_store
from provgraph.terms import IRI, lit

from . import pipeline, query_scenarios as sc
from .concurrency_workload import RUN_GRAPH_STATEMENTS, answer_log
from .serve_helpers import TOKEN, ThreadServedStore, start_serve_process
from .test_queries import QUERY_NAMES, _params
from .test_remote_queries import _concatenated, _normal


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ThreadServedStore]:
    s = ThreadServedStore(tmp_path / "served", allow_update=False, max_request_bytes=1 << 20)
    yield s
    s.close()


def _http(url: str, data: bytes | None = None, *, method: str | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def _world(store: Any) -> dict[str, Any]:
    rec = Recorder(store, label="fixture", packages=[], run_iri=pipeline.RUN,
                   started_at=pipeline.t(0))
    r = pipeline.record(rec)
    r["upgrade"] = sc.parser_upgrade(store, r)
    r["generated"] = sc.generated_cases(rec, r)
    r["exposure"] = sc.exposure_cases(rec, r)
    r["outcomes"] = sc.outcomes_and_claims(rec, r)
    sc.deletion(rec, r)
    r["reviews"] = sc.reviews(rec, r)
    return r


def test_every_named_query_gives_identical_rows_recorded_and_read_through_serve(
        tmp_path: Path) -> None:
    embedded = EmbeddedStore()
    r = _world(embedded)
    served = ThreadServedStore(tmp_path / "s")
    try:
        _world(served)  # recorded through the client: the Recorder does not change
        cat = QueryCatalog()
        for name in QUERY_NAMES:
            params = _params(r, name)  # type: ignore[no-untyped-call]
            ours, theirs = cat.run(served, name, params), cat.run(embedded, name, params)
            assert ours, name
            # rows unordered; a GROUP_CONCAT list is in the engine's order (two stores)
            concat = _concatenated(cat.get(name).text)
            assert _normal(ours, concat) == _normal(theirs, concat), name
        assert embedded.canonical_nquads() == served.canonical_nquads()
    finally:
        served.close()


def test_the_sparql_protocol_get_form_post_and_direct_post(served: ThreadServedStore) -> None:
    load_events(served, pipeline.events())
    q = "SELECT (COUNT(*) AS ?n) WHERE { ?c a <https://w3id.org/provgraph/ns#Claim> }"
    want = served.select(q)[0]["n"]
    assert want is not None and int(want.value) == 3  # type: ignore[union-attr]
    base = served.location + "/sparql"
    answers = [
        _http(base + "?" + urllib.parse.urlencode({"query": q})),
        _http(base, urllib.parse.urlencode({"query": q}).encode(),
              headers={"Content-Type": "application/x-www-form-urlencoded"}),
        _http(base, q.encode(), headers={"Content-Type": "application/sparql-query"}),
    ]
    for status, media, body in answers:
        assert status == 200 and media == "application/sparql-results+json"
        assert json.loads(body)["results"]["bindings"][0]["n"]["value"] == "3"
    status, media, body = _http(base + "?" + urllib.parse.urlencode(
        {"query": "CONSTRUCT { ?c ?p ?o } WHERE { ?c a <https://w3id.org/provgraph/ns#Claim> ;"
                  " ?p ?o } LIMIT 2"}))
    assert status == 200 and media == "application/n-triples" and body.count(b" .\n") == 2


def test_rdflib_sparqlstore_reads_the_server(served: ThreadServedStore) -> None:
    import rdflib
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    load_events(served, pipeline.events())
    graph = rdflib.Graph(SPARQLStore(served.location + "/sparql", returnFormat="json"))
    rows = list(graph.query("SELECT ?c WHERE { ?c a <https://w3id.org/provgraph/ns#Claim> }"))
    assert sorted(str(row[0]) for row in rows) == sorted(  # type: ignore[index]
        str(row["c"]) for row in served.select(
            "SELECT ?c WHERE { ?c a <https://w3id.org/provgraph/ns#Claim> }"))


def test_updates_are_refused_unless_allowed_and_then_need_the_token(
        served: ThreadServedStore, tmp_path: Path) -> None:
    upd = urllib.parse.urlencode({"update": "DROP ALL"}).encode()
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    load_events(served, pipeline.events())
    before = len(served)
    status, _, body = _http(served.location + "/sparql", upd, headers=form)
    assert status == 403 and b"--allow-update" in body
    status, _, _ = _http(served.location + "/sparql", b"DROP ALL",
                         headers={"Content-Type": "application/sparql-update"})
    assert status == 403 and len(served) == before
    open_srv = ThreadServedStore(tmp_path / "u", allow_update=True)
    try:
        open_srv.add([(IRI("urn:x:a"), IRI("urn:x:p"), lit(1), None)])
        status, _, body = _http(open_srv.location + "/sparql", upd, headers=form)
        assert status == 401 and b"token" in body and len(open_srv) == 1
        status, _, _ = _http(open_srv.location + "/sparql", upd,
                             headers={**form, "Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and len(open_srv) == 0
    finally:
        open_srv.close()


def test_service_is_refused(served: ThreadServedStore) -> None:
    q = "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"
    status, _, body = _http(served.location + "/sparql?" + urllib.parse.urlencode({"query": q}))
    assert status == 403 and b"SERVICE (SPARQL 1.1 Federated Query) is refused" in body
    # the word elsewhere is not the clause (tests/test_sparql_guard.py has the obfuscations)
    q = "SELECT * { ?s <urn:x:SERVICE> 'SERVICE <x>' }"
    status, _, body = _http(served.location + "/sparql?" + urllib.parse.urlencode({"query": q}))
    assert status == 200, body


def test_ingest_is_all_or_nothing_with_the_line_and_field_errors_of_record(
        served: ThreadServedStore, tmp_path: Path) -> None:
    good = "\n".join(pipeline.events()).encode()
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/x-ndjson"}
    status, _, body = _http(served.location + "/ingest?name=a.jsonl", good, headers=auth)
    assert status == 200 and json.loads(body) == {"run": pipeline.RUN}
    count = len(served)
    bad = pipeline.events()
    bad[9] = bad[9].replace('"2026-03-01T09:10:00Z"', '"2026-03-01T09:10:00"')
    bad[0] = bad[0].replace("000000000001", "000000000009")
    status, _, body = _http(served.location + "/ingest?name=bad.jsonl",
                            "\n".join(bad).encode(), headers=auth)
    err = json.loads(body)
    assert status == 400 and (err["line"], err["field"]) == (10, "at")
    with pytest.raises(EventLogError) as local:
        load_events(EmbeddedStore(), bad, name="bad.jsonl")
    assert err["error"] == str(local.value)  # the same words as 'provgraph record'
    assert len(served) == count  # nothing from the bad log
    status, _, _ = _http(served.location + "/ingest", good, headers={})
    assert status == 401


def test_request_size_limit(served: ThreadServedStore) -> None:
    status, _, body = _http(served.location + "/ingest", b"x" * (2 << 20),
                            headers={"Authorization": f"Bearer {TOKEN}"})
    assert status == 413 and b"over the limit" in body


def test_health_and_version(served: ThreadServedStore) -> None:
    status, _, body = _http(served.location + "/health")
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, _, body = _http(served.location + "/version")
    assert json.loads(body)["provgraph"] == __import__("provgraph").__version__


def test_a_batched_answer_is_one_request(served: ThreadServedStore,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    load_events(served, pipeline.events())
    calls: list[str] = []
    real = _Connection.request

    def counted(self: _Connection, method: str, path: str, *a: Any, **k: Any) -> Any:
        calls.append(f"{method} {path.split('?')[0]}")
        return real(self, method, path, *a, **k)

    monkeypatch.setattr(_Connection, "request", counted)
    rec = Recorder(served, label="app", packages=[])
    calls.clear()
    with rec.batch():
        rec.query("How often are boilers inspected?")
        packed = rec.context_packing(text="Boilers: every 12 months.", segments=[])
        answer = rec.generation(packed, model=("m", "1"), text="Every 12 months.")
        rec.claim(answer, start=0, end=16, kind="paraphrase")
    assert calls == ["POST /quads"]


def test_the_cli_and_open_store_take_a_served_url(served: ThreadServedStore) -> None:
    load_events(served, pipeline.events())
    s = open_store(served.location)
    assert isinstance(s, ServedStore) and len(s) == len(served)
    claim = "urn:uuid:01900000-0000-7000-8000-000000000cl1"
    via_http = CliRunner().invoke(cli, ["--store", served.location, "lineage", claim])
    local_path = served.backing.location  # the same store, read directly
    assert via_http.exit_code == 0, via_http.output
    direct = CliRunner().invoke(cli, ["--store", local_path, "lineage", claim])
    assert direct.exit_code == 0 and via_http.output == direct.output


def test_sigterm_finishes_in_flight_work_and_closes_the_store(tmp_path: Path) -> None:
    proc, url = start_serve_process(tmp_path / "store")
    client = ServedStore(url, token=TOKEN)
    runs = [f"urn:uuid:{i:08d}-0000-4000-8000-000000000000" for i in range(3)]
    for run in runs:
        load_events(client, answer_log(run))
    client.close()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    after = EmbeddedStore(tmp_path / "store", read_only=True)
    assert [len(list(after.quads(graph=IRI(r)))) for r in runs] == [RUN_GRAPH_STATEMENTS] * 3
    assert not (tmp_path / "store" / "writer.json").exists()


def test_kill_9_during_ingest_loses_no_acknowledged_event(tmp_path: Path) -> None:
    proc, url = start_serve_process(tmp_path / "store")
    acked: list[str] = []
    stop = threading.Event()

    def ingest(tag: int) -> None:
        i = 0
        while not stop.is_set():
            run = f"urn:uuid:{tag:04d}{i:04d}-0000-4000-8000-000000000000"
            try:
                status, _, _ = _http(url + "/ingest", "\n".join(answer_log(run)).encode(),
                                     headers={"Authorization": f"Bearer {TOKEN}"})
            except OSError:
                return  # the server died mid-request: not acknowledged
            if status != 200:
                return
            acked.append(run)
            i += 1

    workers = [threading.Thread(target=ingest, args=(t,)) for t in range(3)]
    for w in workers:
        w.start()
    time.sleep(3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    stop.set()
    for w in workers:
        w.join(timeout=30)
    assert len(acked) > 10
    after = EmbeddedStore(tmp_path / "store")  # the lock of a killed process is free
    counts = {str(r["g"]): int(r["n"].value) for r in after.select(  # type: ignore[union-attr]
        "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
        if str(r["g"]).startswith("urn:uuid:")}
    assert all(counts.get(run) == RUN_GRAPH_STATEMENTS for run in acked)
    assert set(counts.values()) == {RUN_GRAPH_STATEMENTS}  # nothing half-written
    after.close()


def test_a_served_store_that_is_not_there_says_how_to_start_it() -> None:
    from provgraph.errors import StoreError

    with pytest.raises(StoreError, match="start it with 'provgraph serve'"):
        ServedStore("http://127.0.0.1:9")
    with pytest.raises(StoreError, match="not a provgraph serve URL"):
        ServedStore("ftp://x")
