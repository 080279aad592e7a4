"""Memory of a long-lived Recorder: Python heap growth per answer recorded into one run.

A production app keeps one :class:`~provgraph.recorder.Recorder` open and records
every request into it. This records the benchmark workload's ingestion, then
``answers`` answers (one ``batch()`` each, :func:`bench.workload.record_answer`) into
an on-disk store, and reports the Python heap (``tracemalloc``, which does not see
the store engine's own Rust allocations) after ingestion and every ``every``
answers, plus the growth per 1,000 answers over the second half (after any
bounded cache has filled) and the process RSS for reference.

Run: ``python -m bench.bench_record_memory [ANSWERS] [EVERY]`` (default 20,000 and 2,000).
"""

from __future__ import annotations

import gc
import json
import resource
import shutil
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

from provgraph.store import EmbeddedStore

from . import workload as w


def _rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(answers: int = 20_000, every: int = 2_000, *, workdir: str | None = None,
        log: Any = None) -> dict[str, Any]:
    """Heap after ingestion and after every ``every`` answers, in bytes (see module doc)."""
    say = log or (lambda *_: None)
    wl = w.Workload(answers)
    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-recmem-", dir=workdir))
    try:
        store = EmbeddedStore(root / "pg")
        tracemalloc.start()
        rec = w.new_recorder(store, wl)
        ing = w.record_ingestion(rec, wl)
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        points = [{"answers": 0, "heap_bytes": base, "rss_mb": round(_rss_mb(), 1)}]
        for lo in range(0, answers, every):
            for a in wl.specs(lo, min(answers, lo + every)):
                w.record_answer(rec, wl, ing, a)
            gc.collect()
            points.append({"answers": min(answers, lo + every),
                           "heap_bytes": tracemalloc.get_traced_memory()[0],
                           "rss_mb": round(_rss_mb(), 1)})
            say(f"  {points[-1]}")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        store.close()
        half = points[len(points) // 2]
        last = points[-1]
        span = last["answers"] - half["answers"]
        return {
            "answers": answers,
            "points": points,
            "heap_growth_bytes": last["heap_bytes"] - base,
            "heap_growth_per_1000_answers_second_half": (
                round(1000 * (last["heap_bytes"] - half["heap_bytes"]) / span) if span else None),
            "heap_peak_bytes": peak,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover - manual use
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000
    print(json.dumps(run(n, k, log=lambda m: print(m, file=sys.stderr)), indent=1))
