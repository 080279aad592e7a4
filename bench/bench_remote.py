"""Remote stores against the embedded one (issue 13): recording and querying the same
synthetic workload through the Oxigraph server and Virtuoso, with ratios.

For each store (embedded on disk; Oxigraph server; Virtuoso, both started on 127.0.0.1
by ``tests/servers.py``): record ``answers`` answers with :func:`bench.bench_queries.
build_workload` (the Recorder, its batches buffered into ``bulk_add``: the Graph Store
Protocol path on a remote store), then time lineage of sampled claims, ``stale`` and
``impact`` over the whole store (:func:`bench.bench_queries.measure`, whose checks compare
each answer with the workload's ground truth) and one claim's bundle export. Ratios are
remote time / embedded time (above 1: the remote store is slower).

Run: ``python -m bench.bench_remote [--answers N]``; :func:`run` returns the results for
``bench/__main__.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from provgraph.io.bundle import export
from provgraph.remote import RemoteStore
from provgraph.store import EmbeddedStore, ProvStore

from . import bench_queries

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests import servers  # noqa: E402


def _one(name: str, store: ProvStore, answers: int, repeat: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    truth = bench_queries.build_workload(store, answers)  # type: ignore[arg-type]
    record_s = time.perf_counter() - t0
    m = bench_queries.measure(store, truth, repeat=repeat, baselines=False)  # type: ignore[arg-type]
    claims = truth.claims[:20]
    t1 = time.perf_counter()
    for c in claims:
        export(store, "trig", claim=c)
    export_s = (time.perf_counter() - t1) / len(claims)
    return {"store": name, "answers": answers, "quads": len(store), "record_s": record_s,
            "lineage_s": m["lineage"]["median_s"], "stale_s": m["stale"]["median_s"],
            "impact_s": m["impact"]["median_s"], "export_claim_s": export_s,
            "checks": m["checks"]}


def run(quick: bool = True, answers: int | None = None) -> dict[str, Any]:
    n = answers or (1000 if quick else 10_000)
    repeat = 5
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="provgraph-bench-remote-") as tmp:
        local = EmbeddedStore(Path(tmp) / "embedded")
        results.append(_one("embedded", local, n, repeat))
        local.close()
        starts: list[Callable[[], servers.Server]] = [
            servers.start_oxigraph, lambda: servers.start_virtuoso(max_rows=1_000_000)]
        for start in starts:
            srv = start()
            try:
                store = RemoteStore(srv.query_url, originals=Path(tmp) / srv.name,
                                    **srv.store_kwargs())  # type: ignore[arg-type]
                results.append(_one(srv.name, store, n, repeat))
                results[-1]["requests"] = store.http.requests
            finally:
                srv.stop()
    base = results[0]
    rows = []
    for r in results[1:]:
        for key, label in (("record_s", "record (bulk, GSP)"), ("lineage_s", "lineage, one claim"),
                           ("stale_s", "stale, whole store"), ("impact_s", "impact, whole store"),
                           ("export_claim_s", "claim bundle export")):
            rows.append({"measure": f"{r['store']}: {label}", "value": r[key],
                         "baseline": "embedded", "baseline_value": base[key],
                         "ratio": r[key] / base[key] if base[key] else None, "unit": "s"})
    return {"rows": rows, "results": results,
            "notes": [f"{n:,} answers; checks against the ground truth: "
                      + "; ".join(f"{r['store']} {all(r['checks'].values())}" for r in results)]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_remote")
    ap.add_argument("--answers", type=int, default=1000)
    args = ap.parse_args(argv)
    print(json.dumps(run(answers=args.answers), indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
