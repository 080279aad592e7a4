"""The stale index (issue 16, item 1): ``stale()`` answers from rows kept beside the
store only while they are the rows it would compute, and ``verify`` finds an index
changed outside provgraph.

Every test works on a copy of the demo store, which has updated and deleted rows.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from provgraph import staleness
from provgraph.errors import OriginalCorruptError
from provgraph.store import EmbeddedStore
from provgraph.verify import verify_store


@pytest.fixture
def demo_copy(demo_store_path: Path, tmp_path: Path) -> Path:
    path = tmp_path / "store"
    shutil.copytree(demo_store_path, path, ignore=shutil.ignore_patterns("index"))
    return path


def _index(path: Path) -> Path:
    return path / staleness.INDEX_FILE


def test_rows_read_from_the_index_are_the_computed_rows(demo_copy):
    s = EmbeddedStore(demo_copy, read_only=True)
    try:
        live = staleness.stale(s, index=False)
        assert {r.kind for r in live} == {"updated", "deleted"}
        assert not _index(demo_copy).exists()  # index=False writes nothing
        assert staleness.stale(s) == live
        assert _index(demo_copy).exists()  # a read-only open keeps it too
        kept = staleness.stale(s)
        assert [repr(r) for r in kept] == [repr(r) for r in live]  # time zones included
        for run in sorted({r.run for r in live}):
            assert staleness.stale(s, run=run) == staleness.stale(s, run=run, index=False)
    finally:
        s.close()


def test_the_index_is_what_answers_while_nothing_changed(demo_copy, monkeypatch):
    s = EmbeddedStore(demo_copy, read_only=True)
    try:
        live = staleness.stale(s)

        def no_reads(*args, **kwargs):
            raise AssertionError("computed although the index holds this state")

        monkeypatch.setattr(staleness, "_compute", no_reads)
        assert staleness.stale(s) == live
    finally:
        s.close()


def test_a_write_makes_the_index_unused(demo_copy):
    s = EmbeddedStore(demo_copy, read_only=True)
    before = staleness.stale(s)
    s.close()
    gone = before[0].run
    w = EmbeddedStore(demo_copy)
    w.remove_graph(gone)  # the run of the first stale claim
    w.close()
    s = EmbeddedStore(demo_copy, read_only=True)
    try:
        after = staleness.stale(s)
        assert after == staleness.stale(s, index=False)
        assert gone not in {r.run for r in after}
        assert after == [r for r in before if r.run != gone]
    finally:
        s.close()


def test_an_altered_original_is_not_answered_from_the_index(demo_copy):
    s = EmbeddedStore(demo_copy, read_only=True)
    try:
        staleness.stale(s)
        doc = json.loads(_index(demo_copy).read_bytes())
        digest = next(d for d, present in doc["originals"].items() if present)
        blob = s.originals.path_for(digest)  # type: ignore[attr-defined]
        blob.chmod(0o644)
        blob.write_bytes(blob.read_bytes() + b" altered")
        with pytest.raises(OriginalCorruptError):
            staleness.stale(s, index=False)
        with pytest.raises(OriginalCorruptError):
            staleness.stale(s)
    finally:
        s.close()


def test_an_index_of_other_code_or_another_state_is_not_used(demo_copy):
    s = EmbeddedStore(demo_copy, read_only=True)
    try:
        live = staleness.stale(s)
        doc = json.loads(_index(demo_copy).read_bytes())
        doc["runs"] = {}
        # another state with no ledger mark to bring it up to date from: not used either
        for change in ({"code": "0" * 64}, {"token": "0" * 64, "mark": None}):
            _index(demo_copy).write_text(json.dumps({**doc, **change}))
            assert staleness.stale(s) == live
        _index(demo_copy).write_text("{not json")
        assert staleness.stale(s) == live
    finally:
        s.close()


def test_verify_finds_an_index_changed_outside_provgraph(demo_copy):
    assert verify_store(demo_copy).ok  # (its writer open changes the engine's files)
    s = EmbeddedStore(demo_copy, read_only=True)
    live = staleness.stale(s)
    s.close()
    assert verify_store(demo_copy).ok  # the index agrees
    s = EmbeddedStore(demo_copy, read_only=True)
    staleness.stale(s)  # kept for the state after verify's open
    s.close()
    doc = json.loads(_index(demo_copy).read_bytes())
    doc["codes"] = [0 if c != 3 else c for c in doc["codes"]]  # every updated span "unchanged"
    _index(demo_copy).write_text(json.dumps(doc))
    s = EmbeddedStore(demo_copy, read_only=True)
    try:
        assert staleness.stale(s) != live  # the tampered rows are what stale would read
    finally:
        s.close()
    report = verify_store(demo_copy)
    [finding] = [f for f in report.findings if f.kind == "stale-index"]
    assert "does not agree with the store" in finding.detail
    assert finding.where.endswith("index/stale-v2.json")


def _cli(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "provgraph", "--store", str(path), *args],
                          capture_output=True, text=True, timeout=120)


def test_the_cli_gives_the_same_rows_with_and_without_the_index(demo_copy):
    recomputed = _cli(demo_copy, "stale", "--recompute", "--json")
    assert recomputed.returncode == 0, recomputed.stderr
    assert not _index(demo_copy).exists()
    first = _cli(demo_copy, "stale", "--json")
    assert _index(demo_copy).exists()
    kept = _cli(demo_copy, "stale", "--json")
    assert first.stdout == kept.stdout == recomputed.stdout
    assert json.loads(kept.stdout)


def test_a_reader_opened_before_a_write_keeps_no_index_of_the_older_state(demo_copy):
    reader = EmbeddedStore(demo_copy, read_only=True)  # sees the state before the write
    try:
        w = EmbeddedStore(demo_copy)
        w.remove_graph(staleness.stale(reader, index=False)[0].run)
        w.close()
        rows = staleness.stale(reader)
        assert rows == staleness.stale(reader, index=False)  # its own (older) state
        assert not _index(demo_copy).exists()  # which no later open would read
    finally:
        reader.close()
    s = EmbeddedStore(demo_copy, read_only=True)
    try:
        assert staleness.stale(s) == staleness.stale(s, index=False)
        assert _index(demo_copy).exists()
    finally:
        s.close()


@pytest.mark.parametrize("ledger", [True, False])
def test_every_committed_write_changes_the_state_token(tmp_path, ledger):
    """The engine's write-ahead log grows with each commit, so even a store without a
    ledger gives a new token after every add, remove and replace; a read-only open gives
    the token of the state it reads, and an in-memory store none."""
    from provgraph.terms import IRI, Literal

    def quad(i: int):
        return (IRI(f"urn:x:s{i}"), IRI("urn:x:p"), Literal("v"), IRI("urn:x:g"))

    s = EmbeddedStore(tmp_path / "s", ledger=ledger)
    seen = [s.state_token()]
    for write in (lambda: s.add([quad(1)]), lambda: s.add([quad(2)]),
                  lambda: s.remove([quad(1)]), lambda: s.replace([quad(2)], [quad(3)])):
        write()
        seen.append(s.state_token())
    assert None not in seen and len(set(seen)) == len(seen)
    s.close()
    r = EmbeddedStore(tmp_path / "s", read_only=True)
    try:
        assert r.state_token() is not None and r.state_token() == r.state_token()
    finally:
        r.close()
    assert EmbeddedStore().state_token() is None
