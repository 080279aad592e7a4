"""What the ledger costs a recording (issue 20, item 1).

Two on-disk stores record the same workload (:mod:`bench.workload`: its ingestion, then
``answers`` answers, one Recorder transaction each): ``ledger`` (the default: every write
appended to ``ledger.jsonl`` and fsync-ed before it commits) and ``plain``
(``EmbeddedStore(path, ledger=False)``). They take turns every ``SLICE`` answers, so
background load falls on both alike; the ratio ledger / plain of the seconds of each
pair of slices is the cost. Also measured: the ledger's size against the store's, and
``verify_store`` on the ledger store (replay and comparison) against the recording.

Run: ``python -m bench.bench_ledger [ANSWERS] [--sync each|flush] [--workdir DIR]``
(default 2,000 answers, ``each``: :data:`provgraph.ledger.SYNC_ENV`). Prints one JSON object.
``--floor``: :func:`durable_floor` instead (the ``record`` target against a raw floor that
makes each transaction's line durable too).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from provgraph.ledger import LEDGER_NAME, SYNC_ENV
from provgraph.store import EmbeddedStore
from provgraph.verify import verify_store

from . import workload as w
from .pairing import paired_values

SLICE = 50
"""Answers each store records before the other takes its turn."""


def _size(root: Path) -> int:
    return sum(f.stat().st_size for f in (root / "rdf").iterdir() if f.is_file())


def run(answers: int = 2_000, *, workdir: str | None = None, sync: str = "each") -> dict[str, Any]:
    """Record ``answers`` answers into both stores (the module docstring).

    Returns:
        ``{"answers", "load_average", "rate_ratio" (paired spread of ledger / plain
        seconds per slice), "answers_per_second" {name: rate}, "ledger_bytes",
        "rdf_bytes", "verify_seconds", "record_seconds"}``.
    """
    os.environ[SYNC_ENV] = sync  # read when the ledger store opens
    wl = w.Workload(answers)
    tmp = Path(tempfile.mkdtemp(prefix="provgraph-bench-ledger-", dir=workdir))
    load0 = os.getloadavg()[0]
    names = ("ledger", "plain")
    try:
        stores = {n: EmbeddedStore(tmp / n, ledger=(n == "ledger")) for n in names}
        recs = {n: w.new_recorder(stores[n], wl) for n in names}
        ings = {n: w.record_ingestion(recs[n], wl) for n in names}
        seconds: dict[str, list[float]] = {n: [] for n in names}
        for lo in range(0, answers, SLICE):
            specs = list(wl.specs(lo, min(answers, lo + SLICE)))
            for name in (names if (lo // SLICE) % 2 == 0 else names[::-1]):
                t = time.perf_counter()
                for a in specs:
                    w.record_answer(recs[name], wl, ings[name], a)
                seconds[name].append(time.perf_counter() - t)
        for s in stores.values():
            s.close()
        t = time.perf_counter()
        report = verify_store(tmp / "ledger")
        verify = time.perf_counter() - t
        assert report.ok, report.findings
        return {"answers": answers, "slice": SLICE, "sync": sync,
                "load_average": [round(load0, 2), round(os.getloadavg()[0], 2)],
                "rate_ratio": paired_values(seconds["ledger"], seconds["plain"])["ratio"],
                "answers_per_second": {n: round(answers / sum(seconds[n]), 1) for n in names},
                "ledger_bytes": (tmp / "ledger" / LEDGER_NAME).stat().st_size,
                "rdf_bytes": _size(tmp / "ledger"),
                "statements": report.statements, "ledger_lines": report.lines,
                "verify_seconds": round(verify, 2),
                "record_seconds": round(sum(seconds["ledger"]), 2)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


FLOOR_SLICE = 25
"""Answers each variant of :func:`durable_floor` records before the next takes its turn."""


def durable_floor(answers: int = 500, *, workdir: str | None = None) -> dict[str, Any]:
    """The ``record`` target's row (bench/__main__.py: the Recorder, one transaction per
    answer, against pyoxigraph's ``Store.extend`` of the same quads, pre-built) beside a
    raw floor with the ledger's durability: before each ``extend``, pyoxigraph's side
    appends a line of the size the ledger writes for that answer and ``fdatasync``-s it,
    as the ledger must (:data:`provgraph.ledger.SYNC_ENV` ``each``). Four variants take
    turns every :data:`FLOOR_SLICE` answers (the order reversed every other slice):
    ``raw`` (``extend``), ``raw_durable`` (append + ``fdatasync`` + ``extend``), ``ledger``
    (the Recorder on a store with its ledger, the default) and ``plain`` (the Recorder on
    ``EmbeddedStore(path, ledger=False)``).

    Returns:
        ``{"answers", "load_average", "ms_per_answer" {variant: ms}, "ratios" {"a/b":
        paired ratio spread (min, median, max, n) of the seconds of each slice}}``.
    """
    import gc

    import pyoxigraph as ox

    from .bench_record import ledger_line, to_ox

    os.environ[SYNC_ENV] = "each"
    wl = w.Workload(answers)
    tmp = Path(tempfile.mkdtemp(prefix="provgraph-bench-floor-", dir=workdir))
    load0 = os.getloadavg()[0]
    try:
        cap = w.CaptureStore()
        crec = w.new_recorder(cap, wl)
        cing = w.record_ingestion(crec, wl)
        raws = {n: ox.Store(str(tmp / n)) for n in ("raw", "raw_durable")}
        for t in cap.transactions:
            for r in raws.values():
                r.extend(to_ox(t))
        cap.transactions = []
        fd = os.open(tmp / "lines.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        stores = {n: EmbeddedStore(tmp / n, ledger=(n == "ledger")) for n in ("ledger", "plain")}
        recs = {n: w.new_recorder(stores[n], wl) for n in stores}
        ings = {n: w.record_ingestion(recs[n], wl) for n in stores}
        seconds: dict[str, list[float]] = {n: [] for n in ("raw", "raw_durable", "ledger", "plain")}
        for lo in range(0, answers, FLOOR_SLICE):
            specs = list(wl.specs(lo, min(answers, lo + FLOOR_SLICE)))
            for a in specs:
                w.record_answer(crec, wl, cing, a)
            tx = [to_ox(t) for t in cap.transactions]
            lines = [ledger_line(t) for t in cap.transactions]
            cap.transactions = []
            gc.collect()
            order = list(seconds) if (lo // FLOOR_SLICE) % 2 == 0 else list(seconds)[::-1]
            for name in order:
                t0 = time.perf_counter()
                if name == "raw":
                    for q in tx:
                        raws[name].extend(q)
                elif name == "raw_durable":
                    for q, line in zip(tx, lines):
                        os.write(fd, line)
                        os.fdatasync(fd)
                        raws[name].extend(q)
                else:
                    for a in specs:
                        w.record_answer(recs[name], wl, ings[name], a)
                seconds[name].append(time.perf_counter() - t0)
        os.close(fd)
        for s in stores.values():
            s.close()
        cap.close()
        pairs = (("ledger", "raw"), ("plain", "raw"), ("raw_durable", "raw"),
                 ("ledger", "raw_durable"), ("ledger", "plain"))
        return {"answers": answers, "slice": FLOOR_SLICE,
                "load_average": [round(load0, 2), round(os.getloadavg()[0], 2)],
                "ms_per_answer": {n: round(1000 * sum(v) / answers, 2) for n, v in seconds.items()},
                "ratios": {f"{a}/{b}": paired_values(seconds[a], seconds[b])["ratio"]
                           for a, b in pairs}}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover - manual use
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("answers", nargs="?", type=int, default=2_000)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--sync", choices=("each", "flush"), default="each",
                    help="$PROVGRAPH_LEDGER_SYNC of the ledger store (provgraph.ledger.SYNC_ENV)")
    ap.add_argument("--floor", action="store_true",
                    help="the record target's row beside a raw floor that syncs a line per "
                    "transaction too (durable_floor)")
    ns = ap.parse_args()
    if ns.floor:
        print(json.dumps(durable_floor(ns.answers, workdir=ns.workdir), indent=1))
    else:
        print(json.dumps(run(ns.answers, workdir=ns.workdir, sync=ns.sync), indent=1))
