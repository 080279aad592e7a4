"""The store's flush schedule (issue 16, item 4): a writer that commits many small
transactions keeps its write-ahead log small, because the store flushes the engine on a
schedule of its own (EmbeddedStore.flush_schedule). Behaviour, not timing."""

from __future__ import annotations

from pathlib import Path

import pytest

from provgraph.store import EmbeddedStore
from provgraph.terms import IRI, lit


def _wal(root: Path) -> int:
    return sum(f.stat().st_size for f in (root / "rdf").glob("*.log"))


def _size(root: Path) -> int:
    return sum(f.stat().st_size for f in (root / "rdf").iterdir() if f.is_file())


def test_the_flush_schedule_keeps_the_write_ahead_log_small(tmp_path: Path) -> None:
    on, off = EmbeddedStore(tmp_path / "on"), EmbeddedStore(tmp_path / "off")
    on.flush_schedule(statements=2_000, seconds=None)
    off.flush_schedule(None, None)
    g, p = IRI("urn:x:g"), IRI("urn:x:p")
    for k in range(100):  # 100 transactions of 200 statements, as a recorder commits them
        batch = [(IRI(f"urn:x:s{k}-{i}"), p, lit(f"statement {k} {i} " + "x" * 60), g)
                 for i in range(200)]
        on.add(batch)
        off.add(batch)
    assert (on.flushes, off.flushes) == (10, 0)
    wal_on, wal_off = _wal(tmp_path / "on"), _wal(tmp_path / "off")
    on.close()
    off.close()
    EmbeddedStore(tmp_path / "off").close()  # a writer open replays the log, then drops it
    settled = _size(tmp_path / "off")
    assert wal_off > settled  # unflushed, the log holds every transaction
    assert wal_on * 3 < wal_off  # flushed on schedule, it holds the last few


def test_the_schedule_flushes_by_time_and_can_be_turned_off(tmp_path: Path) -> None:
    store = EmbeddedStore(tmp_path / "s")
    store.flush_schedule(statements=None, seconds=1e-9)
    store.add([(IRI("urn:x:a"), IRI("urn:x:p"), lit(1), None)])
    store.add([(IRI("urn:x:a"), IRI("urn:x:p"), lit(2), None)])
    assert store.flushes == 2
    store.flush_schedule(None, None)
    store.add([(IRI("urn:x:a"), IRI("urn:x:p"), lit(3), None)])
    assert store.flushes == 2
    with pytest.raises(ValueError, match="statements must be >= 1"):
        store.flush_schedule(0)
    store.close()
    memory = EmbeddedStore()
    memory.add([(IRI("urn:x:a"), IRI("urn:x:p"), lit(1), None)] * 30_000)
    assert memory.flushes == 0  # nothing to flush in memory
