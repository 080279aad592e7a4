"""The streaming ``provgraph record`` (issue 16, item 6): the log is checked in a first pass
that keeps nothing, then recorded in batches inside one journaled write
(EmbeddedStore.journaled), so a bad line late in the log, Ctrl-C or SIGKILL leaves the
store exactly as it was."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from provgraph.cli import cli
from provgraph.errors import EventLogError, StoreError
from provgraph.events import BATCH_EVENTS, check_events
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI
from provgraph.vocab import PG, PROV

from .test_store_journal import JOURNAL, _contents, _prefilled


def _events(queries: int) -> list[str]:
    """A valid event log: a run, one source cut into two chunks, then ``queries`` queries."""
    text = "Pumps are serviced every 6 months. Valves are checked yearly.\n"
    lines = [
        {"event": "run", "label": "journal test", "started_at": "2026-01-05T10:00:00Z"},
        {"event": "snapshot", "id": "s", "uri": "https://example.org/m.txt",
         "media_type": "text/plain", "content": text, "observed_at": "2026-01-05T10:00:00Z"},
        {"event": "extraction", "id": "x", "snapshot": "s", "parser": {"name": "plain", "version": "1"},
         "text": text},
        {"event": "chunking", "extraction": "x", "chunker": {"name": "s", "version": "1"},
         "ranges": [[0, 35], [35, len(text)]], "ids": ["c1", "c2"]},
    ]
    lines += [{"event": "query", "id": f"q{i}", "text": f"question {i}?",
               "at": "2026-01-05T10:01:00Z"} for i in range(queries)]
    return [json.dumps(x) for x in lines]


def test_check_events_keeps_nothing_and_counts_the_bad_lines_past_the_limit() -> None:
    assert check_events(_events(3)) == (7, 7)
    lines = _events(10) + ["{not json"] * 1_200
    with pytest.raises(EventLogError) as err:
        check_events(lines, "big.jsonl")
    assert "big.jsonl: 1200 bad lines" in str(err.value)
    assert err.value.line == 15
    assert len(err.value.errors) == 1_000


def _write_log(path: Path, queries: int, *extra: str) -> Path:
    path.write_text("\n".join(_events(queries) + list(extra)) + "\n", encoding="utf-8")
    return path


def test_record_streams_a_long_log_in_batches_and_keeps_it_all(tmp_path: Path) -> None:
    log = _write_log(tmp_path / "events.jsonl", 2 * BATCH_EVENTS + 10)
    res = CliRunner().invoke(cli, ["--store", str(tmp_path / "store"), "record", str(log)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    store = EmbeddedStore(tmp_path / "store", read_only=True)
    queries = store.select(f"SELECT (COUNT(?q) AS ?n) WHERE {{ ?q a <{PG.Query}> }}")
    assert int(queries[0]["n"].value) == 2 * BATCH_EVENTS + 10  # type: ignore[union-attr]
    store.close()
    assert not (tmp_path / "store" / JOURNAL).exists()


def test_a_bad_line_late_in_a_long_log_stores_nothing_and_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "store"
    before = _prefilled(path)
    runner = CliRunner()
    n = 3 * BATCH_EVENTS
    # a line the schema refuses: found by the first pass, before the store is opened
    log = _write_log(tmp_path / "a.jsonl", n, json.dumps({"event": "query"}))
    res = runner.invoke(cli, ["--store", str(path), "record", str(log)])
    assert res.exit_code == 2  # an input error
    assert f"a.jsonl:{n + 5} field 'text': 'text' is a required property" in res.output
    # a line that passes the schema but cannot be recorded (an id no earlier line defines):
    # found while recording, after two batches were stored, which are then undone
    log = _write_log(tmp_path / "b.jsonl", n, json.dumps(
        {"event": "retrieval", "query": "nowhere", "retriever": {"name": "r", "version": "1"},
         "hits": []}))
    res = runner.invoke(cli, ["--store", str(path), "record", str(log)])
    assert res.exit_code == 2  # an input error
    assert f"b.jsonl:{n + 5} field 'query': query id 'nowhere' is not defined earlier in the log" in (
        res.output)
    assert not (path / JOURNAL).exists()
    assert _contents(path) == before


def test_record_reads_standard_input_twice_through_a_copy(tmp_path: Path) -> None:
    lines = _events(BATCH_EVENTS + 5)
    res = CliRunner().invoke(cli, ["--store", str(tmp_path / "store"), "record", "-"],
                             input="\n".join(lines) + "\n", catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "recorded run" in res.output


def _stored(path: Path) -> int:
    """Statements a read-only open of ``path`` sees (beside the writer), 0 if it cannot open."""
    try:
        with EmbeddedStore(path, read_only=True) as s:
            return len(s)
    except StoreError:
        return 0


def _record_until_journaled(path: Path, log: Path, sig: int) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``provgraph record``; once a batch is stored (the journal has grown twice: a
    batch is journaled before it is stored; and, as a journal write can show as two
    sizes, a read-only open sees more statements than before), send ``sig``."""
    with EmbeddedStore(path, read_only=True) as s0:
        stored_before = len(s0)
    proc = subprocess.Popen([sys.executable, "-m", "provgraph", "--store", str(path), "record",
                             str(log)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    journal = path / JOURNAL
    deadline = time.monotonic() + 180
    sizes = {0}
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            sizes.add(journal.stat().st_size)
        except FileNotFoundError:
            pass
        if len([n for n in sizes if n > 1000]) >= 2 and _stored(path) > stored_before:
            break  # past the header, and a batch is stored
        time.sleep(0.01)
    assert proc.poll() is None, "record ended before its journal grew"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=180)
    return proc, err.decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_killed_record_leaves_the_store_exactly_as_before(tmp_path: Path) -> None:
    path = tmp_path / "store"
    before = _prefilled(path)
    log = _write_log(tmp_path / "events.jsonl", 8 * BATCH_EVENTS)
    proc, _ = _record_until_journaled(path, log, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    assert (path / JOURNAL).exists()
    assert len(_contents(path)) > len(before)  # part of the log was stored when it died
    res = CliRunner().invoke(cli, ["--store", str(path), "init"], catch_exceptions=False)
    assert "note: undid record" in res.output  # the next write command undoes it
    assert not (path / JOURNAL).exists()
    after = EmbeddedStore(path, read_only=True)
    ontology = IRI("urn:provgraph:graph:ontology")
    assert sorted(repr(q) for q in after.quads() if q[3] != ontology) == before
    after.close()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_an_interrupted_record_leaves_the_store_exactly_as_before(tmp_path: Path) -> None:
    path = tmp_path / "store"
    before = _prefilled(path)
    log = _write_log(tmp_path / "events.jsonl", 8 * BATCH_EVENTS)
    proc, err = _record_until_journaled(path, log, signal.SIGINT)
    assert proc.returncode == -signal.SIGINT, err
    assert "Traceback" not in err
    assert f"Interrupted: nothing from {log} was stored (the store is as it was)" in err
    assert not (path / JOURNAL).exists()
    assert _contents(path) == before


def _shape(store: EmbeddedStore, run: IRI) -> list[tuple[str, str, int]]:
    """(predicate, graph, count) of every statement; the run's graph named "run"."""
    counts: dict[tuple[str, str], int] = {}
    for _, p, _, g in store.quads():
        key = (str(p), "run" if g == run else str(g))
        counts[key] = counts.get(key, 0) + 1
    return sorted((p, g, n) for (p, g), n in counts.items())


def test_streamed_batches_record_what_one_transaction_records(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline fixture recorded 1 event per transaction, so that every id a line uses
    was defined two or more transactions before and its record kept lean (an IRI; an
    answer read back from the store for its claims), writes the same statements as one
    transaction (its queries and answers get fresh IRIs, so counts are compared). With 3
    events per transaction its claims found their answer's record and this passed while a
    claim of an answer defined two transactions before failed."""
    from provgraph import events as ev

    from . import pipeline

    lines = pipeline.events()
    whole = EmbeddedStore(tmp_path / "whole")
    run = ev.load_events(whole, lines).iri
    monkeypatch.setattr(ev, "BATCH_EVENTS", 1)
    streamed = EmbeddedStore(tmp_path / "streamed")
    run2 = ev.load_events(streamed, lines).iri
    assert _shape(streamed, run2) == _shape(whole, run)
    whole.close()
    streamed.close()


_ANSWER_LINES = [
    {"event": "context_packing", "id": "gi", "text": "Answer.\nPumps are serviced every 6 months.",
     "segments": [{"start": 0, "end": 8, "origin": "instruction"},
                  {"start": 8, "end": 42, "origin": "original", "source": "c1"}]},
    {"event": "generation", "id": "a", "input": "gi", "model": {"name": "m", "version": "1"},
     "text": "Every 6 months, says the manual."},
]


def test_a_claim_names_an_answer_defined_batches_earlier(tmp_path: Path) -> None:
    """A log over two batches long whose last line claims a span of an answer defined in
    the first batch: the id resolves (the answer is read back from the store), the claim
    text is the answer's span and the claim is linked to its generation. Before, ids of
    batches two back were kept as IRIs only and the claim failed with 'claim text is
    required when the answer is given by IRI'."""
    lines = _events(0) + [json.dumps(x) for x in _ANSWER_LINES]
    lines += _events(2 * BATCH_EVENTS + 100)[4:]  # the queries only
    lines.append(json.dumps({"event": "claim", "id": "cl", "answer": "a", "start": 0,
                             "end": 14, "kind": "paraphrase"}))
    lines.append(json.dumps({"event": "claim", "answer": "a", "start": 16, "end": 31,
                             "kind": "paraphrase", "text": "says the manual"}))
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(lines) > 4_100
    res = CliRunner().invoke(cli, ["--store", str(tmp_path / "store"), "record", str(log)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    with EmbeddedStore(tmp_path / "store", read_only=True) as store:
        rows = store.select(f"""SELECT ?text ?gen WHERE {{
            ?c a <{PG.Claim}> ; <{PG.text}> ?text ; <{PROV.wasGeneratedBy}> ?gen .
            ?a a <{PG.Answer}> ; <{PROV.wasGeneratedBy}> ?gen }} ORDER BY ?text""")
        assert [r["text"].value for r in rows] == ["Every 6 months", "says the manual"]  # type: ignore[union-attr]


@pytest.mark.parametrize("answer, message", [
    ("b", "field 'answer': answer id 'b' is not defined earlier in the log"),
    ("q0", "field 'answer': answer id 'q0' does not name an answer: give the id of a "
           "generation event"),
])
def test_a_claim_of_an_unknown_answer_id_says_so(tmp_path: Path, answer: str, message: str) -> None:
    """An answer id no earlier line defines, or one naming something else (a query), is
    reported as such, early in the log and batches later, not as a missing claim text."""
    for queries in (2, 2 * BATCH_EVENTS + 100):
        lines = _events(queries) + [json.dumps(x) for x in _ANSWER_LINES]
        lines.append(json.dumps({"event": "claim", "answer": answer, "start": 0, "end": 14,
                                 "kind": "paraphrase"}))
        log = tmp_path / "events.jsonl"
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        res = CliRunner().invoke(cli, ["--memory", "record", str(log)])
        assert res.exit_code == 2, res.output
        assert f"events.jsonl:{len(lines)} {message}" in res.output
        assert "nothing from this file was stored" in res.output


def _snapshot(sid: str, text: str) -> str:
    return json.dumps({"event": "snapshot", "id": sid, "uri": f"https://example.org/{sid}.txt",
                       "media_type": "text/plain", "content": text,
                       "observed_at": "2026-01-05T10:00:00Z"})


_BAD = json.dumps({"event": "retrieval", "query": "nowhere", "retriever": {"name": "r",
                                                                          "version": "1"},
                   "hits": []})


def _blobs(path: Path) -> set[str]:
    with EmbeddedStore(path, read_only=True) as store:
        return set(store.originals.digests())  # type: ignore[attr-defined]


def test_a_failed_record_removes_the_originals_it_wrote_and_keeps_older_ones(
        tmp_path: Path) -> None:
    """A log of one transaction that fails on its last line: the originals its snapshot and
    extraction wrote are removed ('nothing from this file was stored' holds for the
    originals too); an original already retained before, whose bytes the log holds again,
    stays; verify finds nothing wrong. Before, both new originals were left behind."""
    from provgraph.originals import sha256_hex
    from provgraph.verify import verify_store

    path = tmp_path / "store"
    runner = CliRunner()
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join(_events(1)) + "\n", encoding="utf-8")
    assert runner.invoke(cli, ["--store", str(path), "record", str(old)],
                         catch_exceptions=False).exit_code == 0
    before = _blobs(path)
    kept = sha256_hex(json.loads(_events(0)[1])["content"].encode())
    assert kept in before
    log = tmp_path / "new.jsonl"
    log.write_text("\n".join(_events(3) + [
        _snapshot("n", "New bytes.\n"),
        json.dumps({"event": "extraction", "snapshot": "n", "parser": {"name": "p", "version": "1"},
                    "text": "New bytes.", "offset_map": [[0, 10, 0, 10]]}),
        _BAD]) + "\n", encoding="utf-8")
    res = runner.invoke(cli, ["--store", str(path), "record", str(log)])
    assert res.exit_code == 2, res.output
    assert "nothing from this file was stored" in res.output
    assert _blobs(path) == before
    assert verify_store(path).ok


def test_a_long_record_that_fails_removes_the_originals_of_its_last_transaction(
        tmp_path: Path) -> None:
    """A log of three transactions (on a store with a ledger) that fails in the third: the
    original its third transaction wrote is removed; the one the first wrote stays, as the
    ledger line of that committed transaction lists it (verify would report it missing),
    and verify finds nothing wrong."""
    from provgraph.originals import sha256_hex
    from provgraph.verify import verify_store

    path = tmp_path / "store"
    _prefilled(path)  # a store of no originals (a store the record created would go)
    log = _write_log(tmp_path / "events.jsonl", 2 * BATCH_EVENTS + 10,
                     _snapshot("late", "Written in the last transaction.\n"), _BAD)
    res = CliRunner().invoke(cli, ["--store", str(path), "record", str(log)])
    assert res.exit_code == 2, res.output
    blobs = _blobs(path)
    assert sha256_hex(b"Written in the last transaction.\n") not in blobs
    assert blobs == {sha256_hex(json.loads(_events(0)[1])["content"].encode())}
    assert verify_store(path).ok


def test_an_interrupted_record_removes_the_originals_it_wrote(tmp_path: Path) -> None:
    """Ctrl-C (KeyboardInterrupt, raised here by the progress callback after the snapshot's
    line) while recording: the snapshot's original is removed, the interrupt goes on."""
    from provgraph.events import iter_checked, record_events

    lines = _events(5)

    def interrupt(n: int) -> None:
        if n == 3:
            raise KeyboardInterrupt

    store = EmbeddedStore(tmp_path / "store")
    with pytest.raises(KeyboardInterrupt):
        record_events(store, iter_checked(lines), count=len(lines), progress=interrupt)
    assert list(store.originals.digests()) == []  # type: ignore[attr-defined]
    assert len(store) == 0
    store.close()


def test_a_long_record_that_fails_on_a_store_without_a_ledger_removes_all_its_originals(
        ) -> None:
    """On an in-memory store (journaled, no ledger) a log of three transactions that fails
    in the third leaves none of its originals, those of the stored transactions included
    (removed once the journal's undo has run)."""
    from provgraph.events import iter_checked, record_events

    lines = _events(2 * BATCH_EVENTS + 10) + [_snapshot("late", "Late bytes.\n"), _BAD]
    store = EmbeddedStore()
    assert store.journals
    with pytest.raises(EventLogError, match="query id 'nowhere' is not defined"):
        record_events(store, iter_checked(lines), count=len(lines))
    assert len(store) == 0
    assert list(store.originals.digests()) == []  # type: ignore[attr-defined]
