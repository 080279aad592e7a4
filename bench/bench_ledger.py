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


if __name__ == "__main__":  # pragma: no cover - manual use
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("answers", nargs="?", type=int, default=2_000)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--sync", choices=("each", "flush"), default="each",
                    help="$PROVGRAPH_LEDGER_SYNC of the ledger store (provgraph.ledger.SYNC_ENV)")
    ns = ap.parse_args()
    print(json.dumps(run(ns.answers, workdir=ns.workdir, sync=ns.sync), indent=1))
