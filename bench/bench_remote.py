"""Remote stores against the embedded one (issue 13): recording and querying the same
synthetic workload through ``provgraph serve``, the Oxigraph server and Virtuoso, with
ratios.

For each store (embedded on disk; ``provgraph serve`` over a temporary store, a
subprocess on a free 127.0.0.1 port with its token in the environment, recorded through
its client store :class:`~provgraph.serve.client.ServedStore`; the Oxigraph server and
Virtuoso, both started on 127.0.0.1 by ``tests/servers.py``): record ``answers`` answers with :func:`bench.bench_queries.
build_workload` (the Recorder, its batches buffered into ``bulk_add``: the Graph Store
Protocol path on a remote store), then time lineage of sampled claims, ``stale`` and
``impact`` over the whole store (:func:`bench.bench_queries.measure`, whose checks compare
each answer with the workload's ground truth) and one claim's bundle export. Each remote
store's export of each timed claim (N-Quads, blank nodes canonicalized) is compared
with the export of the same claim from an embedded copy of that store's statements. Ratios are remote time / embedded time (above 1: the remote
store is slower).

Run: ``python -m bench.bench_remote [--answers N]``; :func:`run` returns the results for
``bench/__main__.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from provgraph.errors import StoreError
from provgraph.io.bundle import export
from provgraph.remote import RemoteStore
from provgraph.serve.client import ServedStore
from provgraph.store import EmbeddedStore, ProvStore, canonical_nquads, parse_rdf

from . import bench_queries

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests import servers  # noqa: E402

SERVE_TOKEN = "bench-serve-token-7d1e"
SERVE_MAX_REQUEST_MB = 512
"""``--max-request-mb`` of the benchmark's server: the workload's bulk loads are batches of
400,000 statements (:class:`bench.bench_queries._Buffered`), about 80 MB as one
``POST /quads``, over the stock 64 MB; :class:`~provgraph.serve.client.ServedStore`
sends a ``bulk_add`` as one request."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serve_process(store: Path, token: str = SERVE_TOKEN) -> Iterator[str]:
    """``provgraph --store STORE serve --bind 127.0.0.1:PORT --max-request-mb``
    :data:`SERVE_MAX_REQUEST_MB` (a free port, the token in ``$PROVGRAPH_TOKEN``) in a subprocess; yields its URL once ``/health`` answers and
    stops it by pid (SIGTERM, a graceful shutdown) on exit."""
    port = _free_port()
    env = dict(os.environ, PROVGRAPH_TOKEN=token)
    env.pop("PROVGRAPH_TOKEN_FILE", None)
    proc = subprocess.Popen([sys.executable, "-m", "provgraph", "--store", str(store), "serve",
                             "--bind", f"127.0.0.1:{port}", "--max-request-mb",
                             str(SERVE_MAX_REQUEST_MB)], env=env,
                            stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            if proc.poll() is not None:
                raise RuntimeError(f"provgraph serve exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(url + "/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("provgraph serve did not answer /health within 30 s")
        yield url
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


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
    # Untimed: the same claims exported again as N-Quads, here and from an embedded copy
    # of this store's statements, so both exports read identical data.
    mine = {c: _canonical_export(store, c) for c in claims}
    if isinstance(store, EmbeddedStore):
        compared: dict[str, Any] = {"claims": len(claims), "identical": len(claims)}
    else:
        copy = EmbeddedStore()
        try:
            copy.bulk_add(store.quads())
            compared = _compare_exports({c: _canonical_export(copy, c) for c in claims}, mine)
            compared["quads_equal"] = len(copy) == len(store)
        except StoreError as exc:  # reading every statement back can exceed a timeout
            compared = {"error": str(exc)}
        finally:
            copy.close()
    return {"store": name, "answers": answers, "quads": len(store), "record_s": record_s,
            "lineage_s": m["lineage"]["median_s"], "stale_s": m["stale"]["median_s"],
            "impact_s": m["impact"]["median_s"], "export_claim_s": export_s,
            "checks": m["checks"], "load_before": m["load_before"],
            "export_vs_embedded": compared}


def _canonical_export(store: ProvStore, claim: str) -> str:
    return canonical_nquads(parse_rdf(export(store, "nquads", claim=claim).data, "nquads"))


def _compare_exports(base: dict[Any, str], other: dict[Any, str]) -> dict[str, Any]:
    """How many claims' canonical N-Quads exports equal the embedded store's (``base``),
    with the first differing lines of the first claim that differs."""
    differ = [c for c in base if base[c] != other.get(c)]
    out: dict[str, Any] = {"claims": len(base), "identical": len(base) - len(differ),
                           "lines_embedded": sum(v.count("\n") for v in base.values()),
                           "lines_here": sum(v.count("\n") for v in other.values())}
    if differ:
        a = set(base[differ[0]].splitlines())
        b = set(other.get(differ[0], "").splitlines())
        out.update(first_claim=differ[0], only_embedded=sorted(a - b)[:10],
                   only_here=sorted(b - a)[:10], n_only_embedded=len(a - b),
                   n_only_here=len(b - a))
    return out


def _done(results: list[dict[str, Any]], result: dict[str, Any]) -> None:
    """Keep ``result`` and print it to stderr (a later store's failure keeps it)."""
    results.append(result)
    print(json.dumps(result, default=str), file=sys.stderr, flush=True)


STORES = ("serve", "oxigraph", "virtuoso")
"""The stores measured against the embedded store (``--stores``)."""


def run(quick: bool = True, answers: int | None = None,
        stores: tuple[str, ...] = STORES) -> dict[str, Any]:
    n = answers or (1000 if quick else 10_000)
    repeat = 5
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="provgraph-bench-remote-") as tmp:
        local = EmbeddedStore(Path(tmp) / "embedded")
        _done(results, _one("embedded", local, n, repeat))
        local.close()
        if "serve" in stores:
            with serve_process(Path(tmp) / "served") as url:
                served = ServedStore(url, token=SERVE_TOKEN)
                try:
                    _done(results, _one("provgraph serve", served, n, repeat))
                finally:
                    served.close()
        engines: dict[str, Callable[[], servers.Server]] = {
            "oxigraph": servers.start_oxigraph,
            "virtuoso": lambda: servers.start_virtuoso(max_rows=1_000_000)}
        for start in (engines[s] for s in stores if s in engines):
            srv = start()
            try:
                store = RemoteStore(srv.query_url, originals=Path(tmp) / srv.name,
                                    **{**srv.store_kwargs(), "timeout": 600.0})  # type: ignore[arg-type]
                _done(results, _one(srv.name, store, n, repeat))
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
                      + "; ".join(f"{r['store']} {all(r['checks'].values())}" for r in results),
                      "claim exports identical to the embedded store's: "
                      + "; ".join(f"{r['store']} {r['export_vs_embedded'].get('identical', '?')}/"
                                  f"{r['export_vs_embedded'].get('claims', '?')}"
                                  for r in results[1:])]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_remote")
    ap.add_argument("--answers", type=int, default=1000)
    ap.add_argument("--stores", default=",".join(STORES),
                    help=f"comma-separated, measured against the embedded store: {', '.join(STORES)}")
    args = ap.parse_args(argv)
    stores = tuple(x for x in args.stores.split(",") if x)
    unknown = sorted(set(stores) - set(STORES))
    if unknown:
        ap.error(f"unknown store(s) {', '.join(unknown)}; choose from {', '.join(STORES)}")
    print(json.dumps(run(answers=args.answers, stores=stores), indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
