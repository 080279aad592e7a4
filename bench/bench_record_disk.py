"""Disk of a long recording run against its settled size, with and without the store's
flush schedule (issue 16, item 4).

Two on-disk stores record the same workload (:mod:`bench.workload`: its ingestion, then
``answers`` answers, one transaction each, through the :class:`~provgraph.recorder.Recorder`):
``scheduled`` with the store's default :meth:`~provgraph.store.EmbeddedStore.flush_schedule`,
``unscheduled`` with the schedule turned off (the engine flushes only by its own limits).
They take turns every ``SLICE`` answers, so background load falls on both alike, and each
slice is timed: the ratio of the two rates, slice by slice, is the write cost of the
schedule. Every ``every`` answers the RocksDB directory of each store is measured (all
files, and the write-ahead log ``*.log`` alone). At the end each store is closed and its
directory measured, then reopened by a writer (timed: a reopen replays the write-ahead
log) and closed again: that is the *settled* size every running size is compared with.

Run: ``python -m bench.bench_record_disk [ANSWERS] [EVERY] [--workdir DIR]`` (default
10,000 and 1,000). Prints one JSON object.
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

from provgraph.store import EmbeddedStore

from . import workload as w
from .pairing import paired_values

SLICE = 100
"""Answers each store records before the other takes its turn."""


def rdf_sizes(root: Path) -> dict[str, int]:
    """``{"total", "wal"}``: bytes of the store's ``rdf/`` files, and of its ``*.log`` files."""
    total = wal = 0
    for f in (root / "rdf").iterdir():
        try:
            n = f.stat().st_size
        except FileNotFoundError:  # deleted by a compaction meanwhile
            continue
        total += n
        if f.suffix == ".log":
            wal += n
    return {"total": total, "wal": wal}


def run(answers: int = 10_000, every: int = 1_000, *, workdir: str | None = None,
        log: Any = None) -> dict[str, Any]:
    """Record ``answers`` answers into both stores (see the module docstring).

    Returns:
        ``{"answers", "load_average": [start, end], "variants": {name: {...}},
        "rate_ratio": paired spread of scheduled / unscheduled seconds per slice}``; each
        variant has ``samples`` (``answers``, ``total``, ``wal`` bytes), ``closed``,
        ``settled`` (bytes), ``reopen_seconds``, ``max_over_settled`` (largest running
        total / settled), ``max_wal``, ``flushes`` and ``answers_per_second``.
    """
    say = log or (lambda *_: None)
    wl = w.Workload(answers)
    tmp = Path(tempfile.mkdtemp(prefix="provgraph-bench-disk-", dir=workdir))
    load0 = os.getloadavg()[0]
    names = ("scheduled", "unscheduled")
    try:
        stores: dict[str, EmbeddedStore] = {}
        recs: dict[str, Any] = {}
        ings: dict[str, Any] = {}
        seconds: dict[str, list[float]] = {}
        samples: dict[str, list[dict[str, int]]] = {}
        for name in names:
            stores[name] = EmbeddedStore(tmp / name)
            if name == "unscheduled":
                stores[name].flush_schedule(None, None)
            recs[name] = w.new_recorder(stores[name], wl)
            ings[name] = w.record_ingestion(recs[name], wl)
            seconds[name], samples[name] = [], []
        for lo in range(0, answers, SLICE):
            hi = min(answers, lo + SLICE)
            specs = list(wl.specs(lo, hi))
            order = names if (lo // SLICE) % 2 == 0 else names[::-1]
            for name in order:
                t = time.perf_counter()
                for a in specs:
                    w.record_answer(recs[name], wl, ings[name], a)
                seconds[name].append(time.perf_counter() - t)
            if hi % every == 0 or hi == answers:
                for name in names:
                    samples[name].append({"answers": hi, **rdf_sizes(tmp / name)})
                say(f"  {hi}: " + ", ".join(
                    f"{n} {samples[n][-1]['total'] / 1e6:.0f} MB (wal {samples[n][-1]['wal'] / 1e6:.0f})"
                    for n in names))
        out: dict[str, Any] = {}
        for name in names:
            flushes = stores[name].flushes
            stores[name].close()
            closed = rdf_sizes(tmp / name)["total"]
            t = time.perf_counter()
            EmbeddedStore(tmp / name).close()
            reopen = time.perf_counter() - t
            settled = rdf_sizes(tmp / name)["total"]
            out[name] = {
                "samples": samples[name], "closed": closed, "settled": settled,
                "reopen_seconds": round(reopen, 3),
                "max_over_settled": round(max(s["total"] for s in samples[name]) / settled, 3),
                "last_over_settled": round(samples[name][-1]["total"] / settled, 3),
                "max_wal": max(s["wal"] for s in samples[name]),
                "flushes": flushes,
                "answers_per_second": round(answers / sum(seconds[name]), 1),
            }
        return {"answers": answers, "slice": SLICE,
                "load_average": [round(load0, 2), round(os.getloadavg()[0], 2)],
                "variants": out,
                "rate_ratio": paired_values(seconds["scheduled"], seconds["unscheduled"])["ratio"]}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover - manual use
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("answers", nargs="?", type=int, default=10_000)
    ap.add_argument("every", nargs="?", type=int, default=1_000)
    ap.add_argument("--workdir", default=None)
    ns = ap.parse_args()
    print(json.dumps(run(ns.answers, ns.every, workdir=ns.workdir,
                         log=lambda m: print(m, file=sys.stderr)), indent=1))
