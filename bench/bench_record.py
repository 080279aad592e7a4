"""Benchmark 1 and 3: recording through the Recorder against raw pyoxigraph inserts,
and store size on disk per answer.

Every variant writes the *same* statements into its own on-disk store in a
temporary directory. The raw quads come from recording the workload through
the real Recorder into a :class:`~bench.workload.CaptureStore` (pinned IRIs and
times, so both sides write identical data); building the pyoxigraph quads for
the raw side happens outside the timed region unless the variant says
"terms built in the loop".

Variants, all on disk, answers processed in slices of ``SLICE`` answers so memory
stays bounded at 100,000 answers:

=========================  ===================================================
``recorder_tx``            ``Recorder``: one ``batch()`` (one transaction) per answer
``raw_tx``                 ``pyoxigraph.Store.extend(quads)`` per answer, quads pre-built
``raw_tx_durable``         same, each answer's ledger line appended and ``fdatasync``-ed
                           first, as the ledger does (:data:`provgraph.ledger.SYNC_ENV`)
``raw_tx_build``           same, building ``pyoxigraph`` terms from strings in the loop
``recorder_batch``         ``Recorder``: one ``batch()`` per slice of ``SLICE`` answers
``raw_batch``              ``Store.extend`` of a whole slice (one transaction)
``raw_bulk``               ``Store.bulk_extend`` of a whole slice (no transaction)
=========================  ===================================================

The target ratio is ``recorder_tx / raw_tx_durable`` ≤ 1.5: the raw engine doing the same
work, which since the ledger (issue 20) includes making each transaction's line durable
before it commits. Issue 8 set the target against ``raw_tx``, before there was a ledger;
that ratio is still shown.
"""

from __future__ import annotations

import cProfile
import gc
import io
import os
import pstats
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from provgraph.store import EmbeddedStore
from provgraph.terms import IRI, BNode, Literal, Quad

from . import pairing, workload as w

SLICE = 1000
"""Answers per slice: the unit of the batch/bulk variants (one transaction or bulk load each)."""
SUB = 50
"""The per-answer variants take turns every SUB answers; each turn is one A B pair of the
target row (quick mode's 500 answers: 10 pairs; 5 pairs of 100 answers gave medians
from 1.38 to 1.55 in two runs an hour apart)."""

ALL_VARIANTS = ("recorder_tx", "raw_tx", "raw_tx_durable", "raw_tx_build", "recorder_batch",
                "raw_batch", "raw_bulk")


# --------------------------------------------------------------------------- raw side

def _raw_term(t: Any, cache: dict[Any, Any]) -> Any:
    """A pyoxigraph term for a provgraph term, as a hand-written raw recorder would build it."""
    if type(t) is Literal:
        if t.language:
            return ox.Literal(t.value, language=t.language)
        if t.datatype:
            dt = cache.get(t.datatype)
            if dt is None:
                dt = cache[t.datatype] = ox.NamedNode(t.datatype)
            return ox.Literal(t.value, datatype=dt)
        return ox.Literal(t.value)
    if type(t) is BNode:
        return ox.BlankNode(t)
    return ox.NamedNode(t)


def ledger_line(quads: list[Quad]) -> bytes:
    """The ledger line the store writes for a transaction adding ``quads`` (its length
    and encoding; the chain fields are placeholders)."""
    from provgraph import store as st_mod
    from provgraph.ledger import GENESIS, _encode

    added = st_mod._ledger_strs([st_mod._quad_to_store(q) for q in quads])
    return _encode(1, GENESIS, "add", (), added, (), None) + b"\n"


def to_ox(quads: Iterable[Quad]) -> list[ox.Quad]:
    """pyoxigraph quads for provgraph quads (setup for the raw variants; not timed)."""
    cache: dict[Any, Any] = {}
    default = ox.DefaultGraph()
    return [ox.Quad(_raw_term(s, cache), _raw_term(p, cache), _raw_term(o, cache),
                    default if g is None else _raw_term(g, cache)) for s, p, o, g in quads]


def _raw_build_and_extend(store: ox.Store, quads: list[Quad]) -> None:
    """The ``raw_tx_build`` body: build the pyoxigraph terms, then one transaction."""
    nn, lt, quad = ox.NamedNode, ox.Literal, ox.Quad
    out = []
    for s, p, o, g in quads:
        if type(o) is Literal:
            obj = (lt(o.value, datatype=nn(o.datatype)) if o.datatype
                   else lt(o.value, language=o.language) if o.language else lt(o.value))
        else:
            obj = nn(o)
        out.append(quad(nn(s), nn(p), obj, nn(g)))
    store.extend(out)


# --------------------------------------------------------------------------- helpers

def dir_size(path: str | os.PathLike[str]) -> int:
    """Bytes of all regular files under ``path``."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.stat(os.path.join(root, f)).st_size
            except FileNotFoundError:
                pass
    return total


class _Timer:
    """Total seconds of the timed blocks, and each block's own (``laps``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.laps: list[float] = []

    def __enter__(self) -> "_Timer":
        self._t = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        lap = time.perf_counter() - self._t
        self.seconds += lap
        self.laps.append(lap)


def _pairs(timers: dict[str, _Timer]) -> dict[str, Any]:
    """The per-answer variants against ``raw_tx`` block by block: they take turns every
    ``SUB`` answers, so block ``i`` of each is one A B pair (:func:`bench.pairing.paired_values`)."""
    out: dict[str, Any] = {}
    for a, b in (("recorder_tx", "raw_tx"), ("recorder_tx", "raw_tx_durable"),
                 ("recorder_tx", "raw_tx_build")):
        if a in timers and b in timers and timers[a].laps and \
                len(timers[a].laps) == len(timers[b].laps):
            out[f"{a}/{b}"] = pairing.paired_values(timers[a].laps, timers[b].laps)
    return out


def run(answers: int, *, workdir: str | None = None, variants: Iterable[str] = ALL_VARIANTS,
        log: Any = None) -> dict[str, Any]:
    """Run the recording benchmark on a workload of ``answers`` answers.

    Returns a dict with ``seconds`` per variant (answers only; ingestion is
    reported apart as ``ingestion_seconds``), ``statements`` per answer,
    ``store_bytes`` (RDF files, after flush and after ``optimize()``) for
    ``recorder_tx`` and ``raw_tx``, ``originals_bytes``, and the ratios.
    """
    variants = tuple(variants)
    say = log or (lambda *_: None)
    wl = w.Workload(answers)
    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-record-", dir=workdir))
    res: dict[str, Any] = {"answers": answers, "variants": variants, "slice": SLICE}
    timers = {v: _Timer() for v in variants}
    ing_timers = {v: _Timer() for v in variants}
    try:
        # capture side: the quads the Recorder writes, per transaction
        cap = w.CaptureStore()
        crec = w.new_recorder(cap, wl)
        cing = w.record_ingestion(crec, wl)
        ing_quads = cap.transactions
        cap.transactions = []
        ing_ox = [to_ox(t) for t in ing_quads]
        res["ingestion_statements"] = sum(map(len, ing_quads))

        raw: dict[str, ox.Store] = {}
        for v in variants:
            if v.startswith("raw"):
                raw[v] = ox.Store(str(root / v))
        pg: dict[str, tuple[EmbeddedStore, Any, Any]] = {}
        for v in variants:
            if v.startswith("recorder"):
                st = EmbeddedStore(root / v)
                with ing_timers[v]:
                    rec = w.new_recorder(st, wl)
                    ing = w.record_ingestion(rec, wl)
                pg[v] = (st, rec, ing)
        for v, st in raw.items():
            with ing_timers[v]:
                if v == "raw_bulk":
                    st.bulk_extend([q for t in ing_ox for q in t])
                else:
                    for t in ing_ox:
                        st.extend(t)

        fd = os.open(root / "raw_tx_durable.lines", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        n_statements = 0
        for lo in range(0, answers, SLICE):
            hi = min(answers, lo + SLICE)
            specs = list(wl.specs(lo, hi))
            for a in specs:
                w.record_answer(crec, wl, cing, a)
            tx = cap.transactions
            cap.transactions = []
            n_statements += sum(map(len, tx))
            tx_ox = [to_ox(t) for t in tx]
            lines = [ledger_line(t) for t in tx] if "raw_tx_durable" in variants else []
            gc.collect()
            # per-answer variants alternate every SUB answers, so that load from other
            # processes falls on all of them alike; slice variants run once per slice
            for lo2 in range(0, len(specs), SUB):
                for v in variants:
                    t = timers[v]
                    if v == "raw_tx":
                        st = raw[v]
                        with t:
                            for q in tx_ox[lo2:lo2 + SUB]:
                                st.extend(q)
                    elif v == "raw_tx_durable":
                        st = raw[v]
                        with t:
                            for q, line in zip(tx_ox[lo2:lo2 + SUB], lines[lo2:lo2 + SUB]):
                                os.write(fd, line)
                                os.fdatasync(fd)
                                st.extend(q)
                    elif v == "raw_tx_build":
                        st = raw[v]
                        with t:
                            for pq in tx[lo2:lo2 + SUB]:
                                _raw_build_and_extend(st, pq)
                    elif v == "recorder_tx":
                        _, rec, ing = pg[v]
                        with t:
                            for a in specs[lo2:lo2 + SUB]:
                                w.record_answer(rec, wl, ing, a)
            for v in variants:
                t = timers[v]
                if v == "raw_batch":
                    flat = [q for qs in tx_ox for q in qs]
                    with t:
                        raw[v].extend(flat)
                elif v == "raw_bulk":
                    flat = [q for qs in tx_ox for q in qs]
                    with t:
                        raw[v].bulk_extend(flat)
                elif v == "recorder_batch":
                    _, rec, ing = pg[v]
                    with t:
                        with rec.batch():
                            for a in specs:
                                w.record_answer(rec, wl, ing, a)
            say(f"  record {answers}: {hi} answers done")
            del tx, tx_ox, specs
        cap.close()
        os.close(fd)

        res["statements_per_answer"] = n_statements / answers
        res["seconds"] = {v: timers[v].seconds for v in variants}
        res["pairs"] = _pairs(timers)
        res["ingestion_seconds"] = {v: ing_timers[v].seconds for v in variants}
        res["ms_per_answer"] = {v: 1000 * timers[v].seconds / answers for v in variants}

        # sizes: close every store, reopen it (RocksDB drops the obsolete write-ahead log
        # then), measure the RDF files; then optimize (compaction) and measure again.
        counts = {v: len(raw[v]) for v in raw}
        counts.update({v: len(pg[v][0]) for v in pg})
        res["quads_in_store"] = counts
        if "recorder_tx" in pg:
            res["originals_bytes"] = dir_size(root / "recorder_tx" / "originals")
        for st in raw.values():
            st.flush()
        for st, _, _ in pg.values():
            st.close()
        raw.clear()
        pg.clear()
        gc.collect()
        sizes: dict[str, dict[str, int]] = {}
        for v in variants:
            d = root / v / "rdf" if v.startswith("recorder") else root / v
            st = ox.Store(str(d))
            sizes[v] = {"reopened": dir_size(d)}
            if v in ("recorder_tx", "raw_tx"):
                st.optimize()
                del st
                gc.collect()
                st = ox.Store(str(d))
                sizes[v]["optimized"] = dir_size(d)
            del st
            gc.collect()
        res["store_bytes"] = sizes
        res["ratios"] = _ratios(res)
        return res
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_prefilled(answers: int, *, tail: int = SLICE, workdir: str | None = None,
                  log: Any = None) -> dict[str, Any]:
    """Per-answer transactions measured at scale without recording everything before.

    Both stores are first filled, untimed, with answers ``[0, answers - tail)`` of the
    workload: the quads the Recorder writes for them are bulk-loaded into one
    pyoxigraph store, which is then copied. The provgraph side's Recorder records
    the ingestion again (adding nothing, warming its caches as a long-running
    recorder's would be). Then the last ``tail`` answers are timed as in :func:`run`:
    ``recorder_tx`` against ``raw_tx``, taking turns every ``SUB`` answers.
    """
    say = log or (lambda *_: None)
    wl = w.Workload(answers)
    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-prefill-", dir=workdir))
    res: dict[str, Any] = {"answers": answers, "variants": ("recorder_tx", "raw_tx"),
                           "prefilled": answers - tail, "timed": tail}
    try:
        t0 = time.perf_counter()
        nq = root / "prefill.nq"
        tail_tx: list[list[Quad]] = []
        state = {"tail": False}
        with open(nq, "w", encoding="utf-8", newline="\n") as out:
            def sink(batch: list[Quad]) -> None:
                if state["tail"]:
                    tail_tx.append(batch)
                else:
                    out.writelines(w.iter_nquads_lines(batch))

            cap = w.CaptureStore(root / "B" / "originals", sink=sink)
            crec = w.new_recorder(cap, wl)
            cing = w.record_ingestion(crec, wl)
            res["ingestion_statements"] = len(cap)
            for a in wl.specs(0, answers - tail):
                w.record_answer(crec, wl, cing, a)
            n_prefill = len(cap)
            state["tail"] = True
            specs = list(wl.specs(answers - tail, answers))
            for a in specs:
                w.record_answer(crec, wl, cing, a)
        say(f"  record {answers} (prefilled): {n_prefill:,} statements captured "
            f"in {time.perf_counter() - t0:.0f} s")
        t1 = time.perf_counter()
        a_store = ox.Store(str(root / "A"))
        a_store.bulk_load(path=str(nq), format=ox.RdfFormat.N_QUADS)
        a_store.flush()
        del a_store
        gc.collect()
        nq.unlink()
        shutil.copytree(root / "A", root / "B" / "rdf")
        say(f"  record {answers} (prefilled): stores filled in {time.perf_counter() - t1:.0f} s")
        raw = ox.Store(str(root / "A"))
        st = EmbeddedStore(root / "B")
        rec = w.new_recorder(st, wl)
        ing = w.record_ingestion(rec, wl)
        tx_ox = [to_ox(t) for t in tail_tx]
        res["statements_per_answer"] = sum(map(len, tail_tx)) / tail
        timers = {"recorder_tx": _Timer(), "raw_tx": _Timer()}
        gc.collect()
        for lo in range(0, tail, SUB):
            with timers["raw_tx"]:
                for q in tx_ox[lo:lo + SUB]:
                    raw.extend(q)
            with timers["recorder_tx"]:
                for a in specs[lo:lo + SUB]:
                    w.record_answer(rec, wl, ing, a)
        res["seconds"] = {k: t.seconds for k, t in timers.items()}
        res["pairs"] = _pairs(timers)
        res["ms_per_answer"] = {k: 1000 * t.seconds / tail for k, t in timers.items()}
        res["ingestion_seconds"] = {}
        res["quads_in_store"] = {"raw_tx": len(raw), "recorder_tx": len(st)}
        res["originals_bytes"] = dir_size(root / "B" / "originals")
        raw.flush()
        st.close()
        del raw
        gc.collect()
        sizes = {}
        for v, d in (("recorder_tx", root / "B" / "rdf"), ("raw_tx", root / "A")):
            reopened = ox.Store(str(d))
            sizes[v] = {"reopened": dir_size(d)}
            del reopened
            gc.collect()
        res["store_bytes"] = sizes
        res["ratios"] = _ratios(res)
        return res
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _ratios(res: dict[str, Any]) -> dict[str, float]:
    s = res["seconds"]
    out: dict[str, float] = {}
    pairs = [("recorder_tx", "raw_tx"), ("recorder_tx", "raw_tx_durable"), ("recorder_tx", "raw_tx_build"),
             ("recorder_batch", "raw_batch"), ("recorder_batch", "raw_bulk")]
    for a, b in pairs:
        if a in s and b in s and s[b] > 0:
            out[f"{a}/{b}"] = s[a] / s[b]
    sz = res.get("store_bytes", {})
    if "recorder_tx" in sz and "raw_tx" in sz:
        for k in ("reopened", "optimized"):
            if k in sz["recorder_tx"] and k in sz["raw_tx"]:
                out[f"size_{k}"] = sz["recorder_tx"][k] / sz["raw_tx"][k]
    return out


def profile_recorder(answers: int = 500, *, workdir: str | None = None, top: int = 25) -> str:
    """cProfile of recording ``answers`` answers (one transaction each) into an on-disk store.

    Returns the report text: the functions with the most own time, with their
    share of the profiled total.
    """
    wl = w.Workload(answers)
    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-profile-", dir=workdir))
    try:
        st = EmbeddedStore(root / "pg")
        rec = w.new_recorder(st, wl)
        ing = w.record_ingestion(rec, wl)
        specs = list(wl.specs())
        prof = cProfile.Profile()
        prof.enable()
        for a in specs:
            w.record_answer(rec, wl, ing, a)
        prof.disable()
        st.close()
        stats = pstats.Stats(prof)
        total = stats.total_tt  # type: ignore[attr-defined]
        rows = []
        for (file, line, fn), (cc, nc, tt, ct, _) in stats.stats.items():  # type: ignore[attr-defined]
            rows.append((tt, ct, nc, f"{Path(file).name}:{line}({fn})"))
        out = io.StringIO()
        out.write(f"profiled {answers} answers, {total:.3f} s under cProfile "
                  f"({1000 * total / answers:.2f} ms/answer with profiler overhead)\n")
        out.write(f"{'own %':>6} {'cum %':>6} {'calls':>9}  function\n")
        for tt, ct, nc, name in sorted(rows, reverse=True)[:top]:
            out.write(f"{100 * tt / total:6.1f} {100 * ct / total:6.1f} {nc:9d}  {name}\n")
        return out.getvalue()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover - manual use
    import json
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    if "--profile" in sys.argv:
        print(profile_recorder(n))
    else:
        print(json.dumps(run(n, log=lambda m: print(m, file=sys.stderr)), indent=1))
