"""Concurrency (issue 13): one writer recording continuously beside four readers, on the
embedded store and through ``provgraph serve``; two writers through serve. Each role is a
process (tests/concurrency_workload.py). ``slow``: 30 s each (``$PROVGRAPH_CONCURRENCY_SECONDS``),
run by ``make test-slow`` as its own CI step.

Pass: 0 failed reads, no count that went down, no run graph seen half-recorded, 0 failed
writes, and every acknowledged answer present and complete afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from provgraph.ontology import init_store
from provgraph.store import EmbeddedStore, open_store
from provgraph.terms import IRI

from .concurrency_workload import RUN_GRAPH_STATEMENTS
from .serve_helpers import TOKEN, start_serve_process

pytestmark = pytest.mark.slow
SECONDS = float(os.environ.get("PROVGRAPH_CONCURRENCY_SECONDS", "30"))
ROOT = Path(__file__).resolve().parents[1]


def _spawn(role: str, where: str, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PROVGRAPH_TOKEN": TOKEN}
    return subprocess.Popen([sys.executable, "-m", "tests.concurrency_workload", role, where,
                             str(SECONDS), str(out)], cwd=ROOT, env=env)


def _run(where: str, tmp: Path, writers: int, readers: int) -> tuple[list[Any], list[Any]]:
    procs = [(_spawn("writer", where, tmp / f"w{i}.json"), tmp / f"w{i}.json")
             for i in range(writers)]
    procs += [(_spawn("reader", where, tmp / f"r{i}.json"), tmp / f"r{i}.json")
              for i in range(readers)]
    for p, _ in procs:
        assert p.wait(timeout=SECONDS + 120) == 0
    summaries = [json.loads(out.read_text()) for _, out in procs]
    print(json.dumps(summaries))  # the measured numbers, shown with -s
    return summaries[:writers], summaries[writers:]


def _check(store_path: Path, tmp: Path, w: list[Any], r: list[Any]) -> None:
    assert [x["failed"] for x in w] == [0] * len(w), w
    assert all(x["written"] > 0 for x in w), w
    assert [(x["failed"], x["went_down"], x["incomplete"]) for x in r] == [(0, 0, 0)] * len(r), r
    assert all(x["reads"] > 0 for x in r), r
    acked = [line for f in sorted(tmp.glob("w*.acks"))
             for line in f.read_text().split()]
    assert len(acked) == sum(x["written"] for x in w)
    store = EmbeddedStore(store_path, read_only=True)
    counts = {str(row["g"]): int(row["n"].value) for row in store.select(  # type: ignore[union-attr]
        "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
        if str(row["g"]).startswith("urn:uuid:")}
    assert sorted(counts) == sorted(acked)  # nothing lost, nothing unacknowledged
    assert set(counts.values()) == {RUN_GRAPH_STATEMENTS}
    assert IRI(acked[-1]) in store.named_graphs()


def _new_store(path: Path) -> None:
    s = open_store(path)
    init_store(s)
    s.close()


def test_one_writer_and_four_readers_on_the_embedded_store(tmp_path: Path) -> None:
    _new_store(tmp_path / "store")
    w, r = _run(str(tmp_path / "store"), tmp_path, writers=1, readers=4)
    _check(tmp_path / "store", tmp_path, w, r)


def test_one_writer_and_four_readers_through_serve(tmp_path: Path) -> None:
    _new_store(tmp_path / "store")
    proc, url = start_serve_process(tmp_path / "store")
    try:
        w, r = _run(url, tmp_path, writers=1, readers=4)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
    _check(tmp_path / "store", tmp_path, w, r)


def test_two_writers_through_serve_lose_nothing(tmp_path: Path) -> None:
    _new_store(tmp_path / "store")
    proc, url = start_serve_process(tmp_path / "store")
    try:
        w, r = _run(url, tmp_path, writers=2, readers=1)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
    _check(tmp_path / "store", tmp_path, w, r)
