"""delete-run twice, and removal records older provgraph versions wrote (provgraph.runs,
provgraph.schema.removal, provgraph.upgrade, ``provgraph delete-run`` / ``upgrade`` /
``validate``)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from provgraph.cli import cli
from provgraph.errors import RunDeleted
from provgraph.ledger import LEDGER_NAME, read_lines
from provgraph.recorder import Recorder
from provgraph.runs import delete_run, removals
from provgraph.schema.removal import (REMOVAL, RemovalRecord, outdated, removal_iri,
                                      removed_run_iri, to_quads)
from provgraph.store import EmbeddedStore
from provgraph.terms import Literal, lit
from provgraph.upgrade import upgrade
from provgraph.validate import validate
from provgraph.vocab import GRAPH, PG, PROV, RDF, RDFS

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


# -- deleting a run twice -------------------------------------------------------------------


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


# -- removal records older versions wrote ----------------------------------------------------


def _old_delete_run(store: EmbeddedStore, run: str, at: dt.datetime, reason: str) -> None:
    """Delete ``run`` as provgraph wrote it before 8e52083 (git log -p provgraph/runs.py,
    schema/removal.py): the run keeps its own types (pg:Run among them), and every
    removal goes on the run itself."""
    quads = list(store.quads(graph=run))
    digest = hashlib.sha256(store.canonical_nquads([run]).encode("utf-8")).hexdigest()
    types = sorted({q[2] for q in quads if q[0] == run and q[1] == RDF.type})
    label = next((q[2] for q in quads if q[0] == run and q[1] == RDFS.label), None)
    rec = RemovalRecord(iri=removal_iri(run, at), run=run, at=at, statements=len(quads),
                        sha256=digest, reason=reason)
    g = GRAPH.REMOVALS
    q = REMOVAL.quads(rec.iri, rec, g)
    q += [(run, RDF.type, t, g) for t in types]
    q += [(run, RDFS.label, label, g)] if label is not None else []
    q += [(run, PROV.wasInvalidatedBy, rec.iri, g), (run, PROV.invalidatedAtTime, lit(at), g)]
    store.replace(quads, q)


def _old_store(path: Path, twice: bool) -> None:
    with EmbeddedStore(path) as s:
        _record(s)
        _old_delete_run(s, pipeline.RUN, T1, "old one")
        if twice:  # recorded again and deleted again, as defect 1 left it
            _record(s)
            _old_delete_run(s, pipeline.RUN, T2, "old two")


def _all_quads(path: Path) -> set[tuple[str, ...]]:
    with EmbeddedStore(path, read_only=True) as s:
        return {tuple(_text(t) for t in q) for q in s.quads()}


@pytest.mark.parametrize("twice", [False, True], ids=["typed-pg-run", "deleted-twice"])
def test_upgrade_brings_an_old_removal_record_up_to_date(runner, tmp_path, twice):
    store = tmp_path / "store"
    _old_store(store, twice)
    rows = json.loads(runner.invoke(cli, ["--store", str(store), "runs", "--removed"]).stdout)
    # validate names what is wrong and the command that fixes it
    res = runner.invoke(cli, ["--store", str(store), "validate"])
    assert res.exit_code == 1
    assert (f"outdated removal record in graph <{GRAPH.REMOVALS}>: the removal record of run "
            f"<{pipeline.RUN}> was written by an older provgraph: the deleted run is typed "
            "pg:Run there, not pg:RemovedRun") in res.stdout
    assert "; 'provgraph upgrade' retypes it pg:RemovedRun (one ledgered transaction" in res.stdout
    if twice:
        assert (f"run <{pipeline.RUN}> has 2 removal records (it was deleted, recorded again "
                "under the same IRI, and deleted again)") in res.stdout
        assert "C40 invalidation-invalidation-ordering" in res.stdout
    # --dry-run says the same and writes nothing
    before, ledger = _all_quads(store), (store / LEDGER_NAME).read_bytes()
    dry = runner.invoke(cli, ["--store", str(store), "upgrade", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    fixes = 2 if twice else 1
    assert (f"would upgrade the removal records of 1 run(s) ({fixes} fix(es))"
            in dry.stderr)
    assert _all_quads(store) == before and (store / LEDGER_NAME).read_bytes() == ledger
    done = runner.invoke(cli, ["--store", str(store), "upgrade"], catch_exceptions=False)
    assert done.exit_code == 0
    assert f"upgraded the removal records of 1 run(s) ({fixes} fix(es))" in done.stderr
    after = runner.invoke(cli, ["--store", str(store), "validate"])
    assert after.exit_code == 0, after.stdout
    # only the removals graph changed, only as described, and the ledger says so in one line
    gone, new = before - _all_quads(store), _all_quads(store) - before
    assert {q[3] for q in gone | new} == {str(GRAPH.REMOVALS)}
    expected_gone = {(pipeline.RUN, str(RDF.type), str(PG.Run))}
    if twice:
        removal2 = str(removal_iri(pipeline.RUN, T2))
        expected_gone |= {(pipeline.RUN, str(PROV.wasInvalidatedBy), removal2),
                          (pipeline.RUN, str(PROV.invalidatedAtTime), "2026-06-02T09:00:00Z")}
    assert {q[:3] for q in gone} == expected_gone
    assert (pipeline.RUN, str(RDF.type), str(PG.RemovedRun)) in {q[:3] for q in new}
    *_, last = read_lines(store / LEDGER_NAME)
    assert last.note == "provgraph upgrade" and len(last.removed) == len(gone)
    assert len(last.added) == len(new)
    # what the removal records say is what they said
    assert json.loads(runner.invoke(cli, ["--store", str(store), "runs",
                                          "--removed"]).stdout) == rows
    assert runner.invoke(cli, ["--store", str(store), "verify"]).exit_code == 0
    # and a second upgrade has nothing to do
    ledger = (store / LEDGER_NAME).read_bytes()
    again = runner.invoke(cli, ["--store", str(store), "upgrade"])
    assert again.exit_code == 0 and "up to date: nothing to upgrade" in again.stderr
    assert (store / LEDGER_NAME).read_bytes() == ledger


def test_upgrade_writes_what_delete_run_writes_now():
    # a repeated removal upgraded and one recorded by the current delete-run are one shape
    old, new = EmbeddedStore(), EmbeddedStore()
    for s in (old, new):
        _record(s)
    _old_delete_run(old, pipeline.RUN, T1, "r")
    _record(old)
    _old_delete_run(old, pipeline.RUN, T2, "r")
    upgrade(old)
    delete_run(new, pipeline.RUN, reason="r", at=T1)
    _record(new)
    delete_run(new, pipeline.RUN, reason="r", at=T2)

    def removals_graph(s: EmbeddedStore) -> set[tuple[str, ...]]:
        return {tuple(_text(t) for t in q) for q in s.quads(graph=GRAPH.REMOVALS)}

    assert removals_graph(old) == removals_graph(new)
    assert validate(new, shapes=True).conforms and validate(old, shapes=True).conforms


def test_what_delete_run_writes_is_never_outdated():
    store = EmbeddedStore()
    _record(store)
    delete_run(store, pipeline.RUN, at=T1)
    _record(store)
    delete_run(store, pipeline.RUN, at=T2)
    assert outdated(q[:3] for q in store.quads(graph=GRAPH.REMOVALS)) == []
    assert upgrade(store) == []


def test_a_repeated_removal_record_is_an_alternate():
    rec = RemovalRecord(iri=removal_iri(pipeline.RUN, T2), run=pipeline.RUN, at=T2,
                        statements=3, sha256="0" * 64, label="x", run_types=(PG.Run,),
                        again=True)
    alt = removed_run_iri(rec.iri)
    subjects = {q[0] for q in to_quads(rec)}
    assert subjects == {rec.iri, alt}
    assert (alt, PROV.alternateOf, rec.run, GRAPH.REMOVALS) in to_quads(rec)


def test_an_old_record_that_cannot_be_moved_safely_is_reported_not_changed(runner, tmp_path):
    # two removals on the run but one invalidation time: which time is whose is unknown, so
    # upgrade changes nothing there, says so and exits 1; validate says the same
    store = tmp_path / "store"
    with EmbeddedStore(store) as s:
        _record(s)
        delete_run(s, pipeline.RUN, at=T1)
        _record(s)
        _old_delete_run(s, pipeline.RUN, T2, "old")
        s.remove([(pipeline.RUN, PROV.invalidatedAtTime, lit(T2), GRAPH.REMOVALS)])
        typed, found = outdated(q[:3] for q in s.quads(graph=GRAPH.REMOVALS))
        assert typed.fix == "retypes it pg:RemovedRun"
        assert found.fix == "" and found.add == ()
        assert "cannot move it safely: correct the removals graph by hand" in found.problem
    before = _all_quads(store)
    res = runner.invoke(cli, ["--store", str(store), "upgrade"])
    assert res.exit_code == 1
    assert f"\nnot upgraded: run <{pipeline.RUN}> has 2 removal records" in res.stderr
    g = str(GRAPH.REMOVALS)
    assert before ^ _all_quads(store) == {(pipeline.RUN, str(RDF.type), str(PG.Run), g)}
    checked = runner.invoke(cli, ["--store", str(store), "validate"])
    assert checked.exit_code == 1 and found.problem in checked.stdout


def test_the_alternate_of_a_run_deleted_twice_reads_as_deleted():
    # not 'is a run (pg:RemovedRun, ...), not a run'
    store = EmbeddedStore()
    _record(store)
    delete_run(store, pipeline.RUN, at=T1)
    _record(store)
    second = delete_run(store, pipeline.RUN, at=T2)
    alt = removed_run_iri(second.removal)
    with pytest.raises(RunDeleted) as exc:
        delete_run(store, alt)
    assert (exc.value.iri, exc.value.at, exc.value.statements) == (alt, T2, second.statements)
