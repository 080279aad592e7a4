"""Peak memory, time and write-ahead log of ``provgraph record`` on a large event log
(issue 16, item 6).

Builds a JSONL event log (``schemas/events-v1.schema.json``) of about ``MB`` megabytes
from the benchmark workload (:mod:`bench.workload`): the corpus first (one ``snapshot``,
``extraction`` and ``chunking`` event per 50 chunks, every chunk named by an id), then
answers (``query``, ``retrieval`` with 10 hits, ``context_packing``, ``generation``, 3
``claim`` and 4-6 ``citation`` events each) until the file reaches the size. Then, each
in its own process, so the peak is that command's alone:

* ``provgraph --store S record LOG`` into a new on-disk store: its peak memory
  (``VmHWM`` from ``/proc/self/status``, read by the child itself just before it exits),
  wall time and exit status;
* the store directory right after it: total bytes and write-ahead log bytes
  (``rdf/*.log``);
* a writer's reopen of that store (``EmbeddedStore(S)`` then ``close()``): its wall time
  and peak memory, which is where a write-ahead log left behind is replayed.

Run: ``python -m bench.bench_record_log MB [MB ...] [--workdir DIR] [--logs DIR] [--keep]``
(default 20; ``--logs`` keeps the logs to measure another version on the same bytes).
Prints one JSON object per size.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from . import workload as w


def _events_for_corpus(wl: w.Workload) -> Any:
    c = wl.corpus
    for s in range(c.n_snapshots):
        t = (w.T0).isoformat().replace("+00:00", "Z")
        yield {"event": "snapshot", "id": f"s{s}", "uri": c.uri(s),
               "media_type": "text/markdown; charset=utf-8", "content": c.texts[s],
               "observed_at": t}
        yield {"event": "extraction", "id": f"x{s}", "snapshot": f"s{s}",
               "parser": {"name": w.PARSER_NAME, "version": c.parser_version(s)},
               "text": c.texts[s], "ended_at": t}
        first = s * w.CHUNKS_PER_SNAPSHOT
        yield {"event": "chunking", "extraction": f"x{s}",
               "chunker": {"name": w.CHUNKER[0], "version": w.CHUNKER[1]},
               "ranges": [list(r) for r in c.ranges[s]],
               "ids": [f"c{first + k}" for k in range(len(c.ranges[s]))], "ended_at": t}


def _events_for_answer(wl: w.Workload, a: w.AnswerSpec) -> Any:
    i = a.index
    t = wl.answer_time(i).isoformat().replace("+00:00", "Z")
    yield {"event": "query", "id": f"q{i}", "text": a.query, "at": t}
    yield {"event": "retrieval", "id": f"r{i}", "query": f"q{i}",
           "retriever": {"name": w.RETRIEVER[0], "version": w.RETRIEVER[1]},
           "hits": [{"target": f"c{c}", "score": s} for c, s in a.hits],
           "started_at": t, "ended_at": t}
    yield {"event": "context_packing", "id": f"i{i}", "text": f"Answer from the context.\n{a.query}",
           "segments": [], "retrieval": f"r{i}", "at": t}
    yield {"event": "generation", "id": f"a{i}", "input": f"i{i}",
           "model": {"name": w.MODEL[0], "version": w.MODEL[1]}, "text": a.answer,
           "started_at": t, "ended_at": t}
    for k, cl in enumerate(a.claims):
        yield {"event": "claim", "id": f"cl{i}.{k}", "answer": f"a{i}", "start": cl.start,
               "end": cl.end, "kind": cl.kind}
        for cit in cl.citations:
            ev: dict[str, Any] = {"event": "citation", "claim": f"cl{i}.{k}",
                                  "target": (f"s{wl.corpus.snapshot_of(cit.chunk)}" if cit.snapshot
                                             else f"c{cit.chunk}")}
            if cit.quote is not None:
                ev.update(quote=cit.quote, start=cit.start, end=cit.end, unit=cit.unit)
            yield ev


def write_log(path: Path, megabytes: float) -> dict[str, int]:
    """Write an event log of at least ``megabytes`` MB (10^6 bytes) at ``path``.

    Returns:
        ``{"bytes", "lines", "answers", "chunks"}``.
    """
    target = int(megabytes * 1_000_000)
    # answers ~ 2.4 KB of events each, the corpus (max(1000, answers) chunks) ~ 0.5 KB a
    # chunk: enough answers to reach the size, the last ones unused
    answers = max(100, target // 2_000)
    wl = w.Workload(answers)
    size = lines = done = 0
    with open(path, "w", encoding="utf-8") as out:
        def put(ev: dict[str, Any], out: IO[str] = out) -> None:
            nonlocal size, lines
            text = json.dumps(ev, ensure_ascii=False) + "\n"
            out.write(text)
            size += len(text.encode("utf-8"))
            lines += 1
        put({"event": "run", "label": f"bench record log {megabytes} MB",
             "started_at": w.T0.isoformat().replace("+00:00", "Z")})
        for ev in _events_for_corpus(wl):
            put(ev)
        for a in wl.specs():
            if size >= target:
                break
            for ev in _events_for_answer(wl, a):
                put(ev)
            done += 1
    return {"bytes": size, "lines": lines, "answers": done, "chunks": wl.corpus.n_chunks}


_CHILD_RECORD = """
import sys
from provgraph.cli import cli
code = 0
try:
    cli.main(sys.argv[1:], prog_name="provgraph", standalone_mode=False)
except SystemExit as exc:
    code = exc.code or 0
except BaseException as exc:
    print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
    code = 1
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print(f"VmHWM_kB={hwm}", file=sys.stderr)
sys.exit(code)
"""

_CHILD_REOPEN = """
import sys, time
from provgraph.store import EmbeddedStore
t = time.perf_counter()
EmbeddedStore(sys.argv[1]).close()
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print(f"VmHWM_kB={hwm} seconds={time.perf_counter() - t:.3f}", file=sys.stderr)
"""


def _child(code: str, args: list[str]) -> tuple[int, float, int, str]:
    """``(exit status, wall seconds, VmHWM bytes, stderr)`` of ``python -c code args``."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1])
    wall = time.perf_counter() - t
    hwm = 0
    for part in proc.stderr.split():
        if part.startswith("VmHWM_kB="):
            hwm = int(part.split("=")[1]) * 1024
    return proc.returncode, wall, hwm, proc.stderr


def _sizes(rdf: Path) -> tuple[int, int]:
    total = wal = 0
    for f in rdf.iterdir():
        if f.is_file():
            n = f.stat().st_size
            total += n
            if f.suffix == ".log":
                wal += n
    return total, wal


def run(megabytes: float = 20, *, workdir: str | None = None, keep: bool = False,
        events: Path | None = None, log: Any = None) -> dict[str, Any]:
    """Measure ``provgraph record`` on a log of ``megabytes`` MB (see the module docstring).

    ``events``: an event log to use; written there first when it does not exist (so two
    versions of provgraph can be measured on the same bytes). ``None``: a temporary one.

    Returns:
        a dict: ``log`` (:func:`write_log`'s counts), ``record_status``,
        ``record_seconds``, ``record_peak_mb``, ``peak_over_log`` (peak / log size),
        ``store_mb`` and ``wal_mb`` right after the record, ``reopen_seconds``,
        ``reopen_peak_mb``, ``statements`` and ``load_average`` (1-minute, at the start).
    """
    say = log or (lambda *_: None)
    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-reclog-", dir=workdir))
    try:
        if events is None:
            events = root / "events.jsonl"
        if events.exists():
            with open(events, "rb") as f:
                counts = {"bytes": events.stat().st_size, "lines": sum(1 for _ in f)}
        else:
            counts = write_log(events, megabytes)
        say(f"  log: {counts}")
        store = root / "store"
        load = os.getloadavg()[0]
        status, wall, peak, err = _child(_CHILD_RECORD, ["--store", str(store), "record",
                                                          str(events)])
        say(f"  record: status {status}, {wall:.1f} s, peak {peak / 1e6:.0f} MB")
        if status != 0:
            say(err[-2000:])
        total, wal = _sizes(store / "rdf")
        _, reopen_wall, reopen_peak, rerr = _child(_CHILD_REOPEN, [str(store)])
        reopen_s = float(rerr.split("seconds=")[1].split()[0]) if "seconds=" in rerr else reopen_wall
        from provgraph.store import EmbeddedStore

        s = EmbeddedStore(store, read_only=True)
        statements = len(s)
        s.close()
        return {"megabytes": megabytes, "log": counts, "record_status": status,
                "record_seconds": round(wall, 1), "record_peak_mb": round(peak / 1e6, 1),
                "peak_over_log": round(peak / counts["bytes"], 2),
                "store_mb": round(total / 1e6, 1), "wal_mb": round(wal / 1e6, 1),
                "reopen_seconds": round(reopen_s, 2), "reopen_peak_mb": round(reopen_peak / 1e6, 1),
                "statements": statements, "load_average": round(load, 2)}
    finally:
        if keep:
            say(f"  kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover - manual use
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("megabytes", nargs="*", type=float, default=[20.0])
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--logs", default=None,
                    help="a directory for the event logs (events-MB.jsonl), reused when present")
    ns = ap.parse_args()
    for mb in ns.megabytes:
        path = Path(ns.logs) / f"events-{mb:g}.jsonl" if ns.logs else None
        print(json.dumps(run(mb, workdir=ns.workdir, keep=ns.keep, events=path,
                             log=lambda m: print(m, file=sys.stderr))), flush=True)
