"""Processes for the concurrency tests (issue 13): a writer recording answers, a reader
checking what it sees. Run as ``python -m tests.concurrency_workload ROLE STORE SECONDS OUT``.

STORE is a store directory or a ``provgraph serve`` URL (``http://...``). Each recorded
answer is the fixture pipeline's event log with a fresh run IRI (one transaction, or one
ingest request, per answer); its run graph holds :data:`RUN_GRAPH_STATEMENTS` statements.

``writer`` appends each run IRI to OUT *after* the store acknowledged it (so OUT lists
exactly the acknowledged answers) and counts failures. ``reader`` opens the store afresh
for every read (read-only on disk), runs a count, a per-graph completeness check and the
stale / impact / lineage library calls behind the CLI commands, and writes a JSON summary
to OUT: reads, failures (with their messages), counts that went down, run graphs that
were not complete.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path

from provgraph import analytics
from provgraph.events import load_events
from provgraph.store import ProvStore, open_store
from provgraph.terms import IRI

from . import pipeline

RUN_GRAPH_STATEMENTS = 216
"""Statements in the run graph of one recorded fixture log (measured; a test pins it)."""

PER_GRAPH = """SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"""


def answer_log(run: str) -> list[str]:
    """The fixture event log with run IRI ``run`` and no other pinned IRI."""
    out = []
    for line in pipeline.events():
        ev = json.loads(line)
        ev.pop("iri", None)
        if ev["event"] == "run":
            ev["iri"] = run
        out.append(json.dumps(ev))
    return out


def _open(where: str, *, write: bool) -> ProvStore:
    if where.startswith(("http://", "https://")):
        return open_store(where)
    return open_store(where, read_only=not write)


def write(where: str, seconds: float, out: Path, tag: str = "w") -> dict[str, object]:
    """Record answers for ``seconds``; every acknowledged run IRI goes to ``out``."""
    store = _open(where, write=True)
    done = failed = 0
    errors: list[str] = []
    end = time.monotonic() + seconds
    with out.open("a", encoding="utf-8") as acks:
        while time.monotonic() < end:
            run = f"urn:uuid:{uuid.uuid4()}"
            try:
                load_events(store, answer_log(run), name=f"{tag}-{done}")
            except Exception as exc:  # counted and reported, never dropped
                failed += 1
                errors.append(f"{type(exc).__name__}: {exc}"[:300])
                continue
            acks.write(run + "\n")
            acks.flush()
            done += 1
    store.close()
    return {"written": done, "failed": failed, "errors": errors[:5]}


def read(where: str, seconds: float) -> dict[str, object]:
    """Open, check and close the store repeatedly for ``seconds``."""
    reads = failed = went_down = incomplete = 0
    errors: list[str] = []
    last = -1
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            store = _open(where, write=False)
            try:
                rows = store.select(PER_GRAPH, source="per-graph")
                runs = {r["g"]: int(r["n"].value) for r in rows  # type: ignore[union-attr]
                        if str(r["g"]).startswith("urn:uuid:")}
                incomplete += sum(1 for n in runs.values() if n != RUN_GRAPH_STATEMENTS)
                count = sum(runs.values())
                if count < last:
                    went_down += 1
                last = count
                analytics.stale(store)
                if runs:
                    analytics.impact(store, "rank-bm25")
                    claims = store.select(
                        "SELECT ?c ?g WHERE { GRAPH ?g { ?c a <https://w3id.org/provgraph/ns#Claim> } }"
                        " LIMIT 1", {"g": IRI(str(next(iter(runs))))}, source="claim")
                    if claims and claims[0]["c"] is not None:
                        analytics.lineage(store, str(claims[0]["c"]))
            finally:
                store.close()
            reads += 1
        except Exception as exc:
            failed += 1
            errors.append(f"{type(exc).__name__}: {exc}"[:300])
    return {"reads": reads, "failed": failed, "went_down": went_down,
            "incomplete": incomplete, "last_count": last, "errors": errors[:5]}


def main(argv: list[str]) -> None:
    role, where, seconds, out = argv[0], argv[1], float(argv[2]), Path(argv[3])
    if role == "writer":
        summary = write(where, seconds, out.with_suffix(".acks"), tag=out.stem)
    else:
        summary = read(where, seconds)
    out.write_text(json.dumps(summary), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
