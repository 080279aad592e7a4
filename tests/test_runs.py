"""delete-run twice (provgraph.runs, provgraph.schema.removal, ``provgraph delete-run``)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from provgraph.errors import RunDeleted
from provgraph.ledger import LEDGER_NAME
from provgraph.recorder import Recorder
from provgraph.runs import delete_run, removals
from provgraph.schema.removal import RemovalRecord, removal_iri, removed_run_iri, to_quads
from provgraph.store import EmbeddedStore
from provgraph.terms import Literal, lit
from provgraph.vocab import GRAPH, PG, PROV, RDF

from . import pipeline

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ROOT / "examples" / "events.jsonl"
RUN = json.loads(EVENTS.read_text(encoding="utf-8").splitlines()[0])["iri"]
UTC = dt.timezone.utc
T1 = dt.datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
T2 = dt.datetime(2026, 6, 2, 9, 0, tzinfo=UTC)


def _run(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PROVGRAPH_STORE", None)
    return subprocess.run([sys.executable, "-m", "provgraph", "--store", str(store), *args],
                          env=env, capture_output=True, text=True, timeout=300)


def _record(store: EmbeddedStore) -> None:
    """The fixture pipeline of tests/pipeline.py, as the run ``pipeline.RUN``."""
    pipeline.record(Recorder(store, label="fixture", packages=[], run_iri=pipeline.RUN,
                             started_at=pipeline.t(0)))


def _state(path: Path) -> tuple[int, bytes, bytes]:
    """What a refused command must leave as it was: the statement count, the ledger's
    bytes and its durable head."""
    with EmbeddedStore(path, read_only=True) as s:
        n = len(s)
    return n, (path / LEDGER_NAME).read_bytes(), (path / "ledger.head").read_bytes()


def _text(t: object) -> str:
    return t.value if isinstance(t, Literal) else str(t)


def _removals_graph(path: Path) -> list[tuple[str, ...]]:
    with EmbeddedStore(path, read_only=True) as s:
        return sorted(tuple(_text(t) for t in q[:3]) for q in s.quads(graph=GRAPH.REMOVALS))


# -- defect 1: deleting a run twice --------------------------------------------------------


def test_delete_run_of_a_deleted_run_refuses_and_changes_nothing(demo_store_path, tmp_path):
    # a whole CLI process on a copy of the demo store, as a user runs it
    store = tmp_path / "store"
    shutil.copytree(demo_store_path, store)
    [row] = [r for r in json.loads(_run(store, "runs").stdout) if r["label"] == "flask-docs-qa"]
    first = _run(store, "delete-run", row["run"], "--reason", "first", "--yes")
    assert first.returncode == 0, first.stderr
    [gone] = json.loads(_run(store, "runs", "--removed").stdout)
    before = _state(store)
    again = _run(store, "delete-run", row["run"], "--reason", "second", "--yes")
    assert again.returncode == 2, again.stderr
    assert again.stderr.strip() == (
        f"Error: run <{row['run']}> was deleted at {gone['removed']} ({row['statements']} "
        "statements removed by 'provgraph delete-run'); 'provgraph runs --removed' lists "
        "deleted runs")
    assert _state(store) == before
    assert json.loads(_run(store, "runs", "--removed").stdout) == [gone]
    checked = _run(store, "validate")
    assert checked.returncode == 0, checked.stdout
    assert "0 violation(s)" in checked.stderr


def test_the_library_refuses_a_deleted_run_before_writing():
    store = EmbeddedStore()
    _record(store)
    done = delete_run(store, pipeline.RUN, reason="first", at=T1)
    n, rows = len(store), removals(store)
    with pytest.raises(RunDeleted) as exc:
        delete_run(store, pipeline.RUN, reason="second", at=T2)
    assert (exc.value.iri, exc.value.at, exc.value.statements) == (
        pipeline.RUN, T1, done.statements)
    assert "'provgraph runs --removed'" in str(exc.value)
    assert len(store) == n and removals(store) == rows


def test_two_delete_run_processes_at_once_leave_one_removal(tmp_path):
    # the embedded store's write lock makes the second wait for the first, then read the
    # run as deleted
    store = tmp_path / "store"
    assert _run(store, "record", str(EVENTS)).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PROVGRAPH_STORE", None)
    procs = [subprocess.Popen([sys.executable, "-m", "provgraph", "--store", str(store),
                               "delete-run", RUN, "--reason", why, "--yes"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for why in ("a", "b")]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    assert sorted(rc for rc, _ in results) == [0, 2], results
    assert any(f"run <{RUN}> was deleted at" in err for _, err in results)
    assert len(json.loads(_run(store, "runs", "--removed").stdout)) == 1
    assert _run(store, "validate").returncode == 0


def test_a_run_recorded_again_and_deleted_again_is_invalidated_once(tmp_path):
    # the README allows recording the same event log again after delete-run; deleting that
    # run again wrote a second prov:invalidatedAtTime on the run (C40: validate exit 1)
    store = tmp_path / "store"
    assert _run(store, "record", str(EVENTS)).returncode == 0
    assert _run(store, "delete-run", RUN, "--reason", "one", "--yes").returncode == 0
    assert _run(store, "record", str(EVENTS)).returncode == 0
    second = _run(store, "delete-run", RUN, "--reason", "two", "--yes")
    assert second.returncode == 0, second.stderr
    checked = _run(store, "validate")
    assert checked.returncode == 0, checked.stdout
    rows = json.loads(_run(store, "runs", "--removed").stdout)
    assert [(r["run"], r["label"], r["reason"], r["statements"]) for r in rows] == [
        (RUN, "faq-bot", "one", 123), (RUN, "faq-bot", "two", 123)]
    assert rows[0]["removed"] < rows[1]["removed"]
    # the run keeps its first invalidation; the second is on an alternate of it
    graph = _removals_graph(store)
    alt = str(removed_run_iri(rows[1]["removal"]))
    assert [t for t in graph if t[0] == RUN and t[1] == str(PROV.invalidatedAtTime)] == [
        (RUN, str(PROV.invalidatedAtTime),
         lit(dt.datetime.fromisoformat(rows[0]["removed"])).value)]
    assert (alt, str(PROV.alternateOf), RUN) in graph
    assert (alt, str(PROV.wasInvalidatedBy), rows[1]["removal"]) in graph
    assert (alt, str(RDF.type), str(PG.RemovedRun)) in graph
    # and a third delete-run names the latest deletion
    third = _run(store, "delete-run", RUN, "--yes")
    assert third.returncode == 2
    assert f"was deleted at {rows[1]['removed']}" in third.stderr


def test_a_repeated_removal_record_is_an_alternate():
    rec = RemovalRecord(iri=removal_iri(pipeline.RUN, T2), run=pipeline.RUN, at=T2,
                        statements=3, sha256="0" * 64, label="x", run_types=(PG.Run,),
                        again=True)
    alt = removed_run_iri(rec.iri)
    subjects = {q[0] for q in to_quads(rec)}
    assert subjects == {rec.iri, alt}
    assert (alt, PROV.alternateOf, rec.run, GRAPH.REMOVALS) in to_quads(rec)

