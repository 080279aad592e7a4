"""The query workload at scale (issue 16 item 5): build a store of up to 1,000,000 answers
on this machine and measure what a user waits on there.

**Build.** :func:`bench.bench_queries.build_workload` (the Recorder, about 158 statements
per answer, the same generator as the 10,000 and 100,000-answer stores) writes into
:class:`_Pipelined`, which hands each 400,000-statement batch to the store layer's bulk
path (:meth:`provgraph.store.EmbeddedStore.bulk_add`, pyoxigraph's bulk loader, no ledger)
on a writer thread while the Recorder generates the next batch: generation and loading
overlap and no N-Quads file is written. The store is then closed, reopened and (unless
``--no-optimize``) optimized; the truth file beside it (``PATH.truth.json``) lets
``--path`` reuse it.

**Measures** (each on the store opened read-only, as the commands open it):

* lineage of one claim: median over sampled claims in-process, and the command
  ``provgraph lineage CLAIM`` (wall time of the child process);
* stale and impact: result rows per second in-process, A B pairs against the raw engine
  floor (:func:`bench.bench_queries.measure_floors`: pyoxigraph replaying the store
  layer's reads), rows checked against the workload's ground truth;
* one claim bundle to PROV-JSON against its raw floor (:func:`bench.bench_export.claim_floor`);
* disk: the store directory after close and reopen, and after ``optimize()``;
* peak resident memory of each query command as a child process (``/usr/bin/time``'s
  ``%M``: the child's ``VmHWM``).

:func:`stage_costs` measures what each build stage costs per answer on a small workload
(the Recorder, the store layer's bulk path and its raw floor, ``optimize()``), from which
the time of a build at any size is extrapolated.

Run: ``python -m bench.bench_scale --answers N --path DIR [--json FILE]``; ``make
bench-scale`` runs 1,000,000 answers (about 2.3 hours of CPU to build, 7.5 ms per answer
measured at 200,000 answers; 4-5 hours of wall time on the shared 2-core machine at load
10-15: see bench/RESULTS.md, "1M answers (issue 16 item 5)").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from provgraph import analytics
from provgraph.store import EmbeddedStore

from . import bench_queries as bq
from . import pairing


class _Pipelined:
    """The store :func:`bench.bench_queries.build_workload` writes into: each batch its
    buffer flushes goes to ``inner.bulk_add`` on a writer thread while the Recorder makes
    the next one (at most one batch in flight). Reads wait for the batch in flight, and
    ``has_subject`` also answers from it, so the Recorder sees what it wrote."""

    def __init__(self, inner: EmbeddedStore) -> None:
        self.inner = inner
        self.originals = inner.originals
        self.location = inner.location
        self._thread: threading.Thread | None = None
        self._pending: set[Any] = set()
        self._error: BaseException | None = None
        self.statements_sent = 0
        self.write_s = 0.0  # seconds the writer thread spent in bulk_add

    def _join(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            self._pending = set()
        if self._error is not None:
            raise self._error

    def bulk_add(self, quads: Any) -> None:
        batch = list(quads)
        self._join()
        self._pending = {q[0] for q in batch}
        self.statements_sent += len(batch)

        def write() -> None:
            t = time.perf_counter()
            try:
                self.inner.bulk_add(batch)
            except BaseException as exc:  # re-raised by the next _join
                self._error = exc
            self.write_s += time.perf_counter() - t

        self._thread = threading.Thread(target=write, name="bench-scale-writer")
        self._thread.start()

    def has_subject(self, iri: Any) -> bool:
        return iri in self._pending or self.inner.has_subject(iri)

    def finish(self) -> None:
        """Wait for the batch in flight (raises what the writer raised)."""
        self._join()

    def __len__(self) -> int:
        self._join()
        return len(self.inner)

    def __getattr__(self, name: str) -> Any:
        self._join()
        return getattr(self.inner, name)


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _du(path: Path) -> int:
    """Bytes of the files under ``path`` (apparent sizes)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def build(path: Path, answers: int, *, optimize: bool = True,
          log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Build the query workload of ``answers`` answers at ``path`` (which must not exist)
    and its truth file ``PATH.truth.json``.

    Returns:
        ``{"answers", "statements", "generate_load_s", "generate_load_cpu_s",
        "writer_s", "close_reopen_s", "optimize_s", "bytes_after_build",
        "bytes_after_reopen", "bytes_after_optimize", "load_*"}``: seconds of wall
        time (``*_cpu_s``: CPU of this process, all threads), bytes of the store's
        files (``optimize_s``/``bytes_after_optimize`` absent without ``optimize``).

    Raises:
        FileExistsError: ``path`` exists.
    """
    if path.exists():
        raise FileExistsError(f"{path} exists: pass it as --path to reuse it, or remove it")
    out: dict[str, Any] = {"answers": answers, "load_before": os.getloadavg()}
    store = EmbeddedStore(path, ledger=False)
    sink = _Pipelined(store)
    t0, c0 = time.perf_counter(), time.process_time()
    step = max(1, answers // 20)

    def progress(i: int) -> None:
        if i % step == 0:
            el = time.perf_counter() - t0
            log(f"  {i:,} answers, {sink.statements_sent:,} statements sent, {el:.0f} s "
                f"({i / el:.0f} answers/s), load {os.getloadavg()[0]:.1f}")

    try:
        truth = bq.build_workload(sink, answers, progress=progress)  # type: ignore[arg-type]
        sink.finish()
    finally:
        store.close()
    out["generate_load_s"] = time.perf_counter() - t0
    out["generate_load_cpu_s"] = time.process_time() - c0
    out["writer_s"] = sink.write_s
    out["statements_sent"] = sink.statements_sent
    out["statements"] = truth.statements
    out["bytes_after_build"] = _du(path)
    bq._save_truth(Path(f"{path}.truth.json"), truth)
    t = time.perf_counter()
    EmbeddedStore(path, ledger=False).close()
    out["close_reopen_s"] = time.perf_counter() - t
    out["bytes_after_reopen"] = _du(path)
    log(f"  built: {truth.statements:,} statements in {out['generate_load_s']:.0f} s, "
        f"{out['bytes_after_reopen'] / 1e9:.2f} GB after reopen")
    if optimize:
        t = time.perf_counter()
        store = EmbeddedStore(path, ledger=False)
        try:
            store.optimize()
        finally:
            store.close()
        out["optimize_s"] = time.perf_counter() - t
        out["bytes_after_optimize"] = _du(path)
        log(f"  optimized in {out['optimize_s']:.0f} s: {out['bytes_after_optimize'] / 1e9:.2f} GB")
    out["load_after"] = os.getloadavg()
    Path(f"{path}.build.json").write_text(json.dumps(out, indent=1), encoding="utf-8")
    return out


class _Capture:
    """An in-memory store whose bulk writes are also kept, batch by batch, with the CPU
    seconds spent storing them (so the Recorder's own CPU is the rest)."""

    def __init__(self) -> None:
        self.inner = EmbeddedStore()
        self.originals = self.inner.originals
        self.location = self.inner.location
        self.batches: list[list[Any]] = []
        self.store_cpu_s = 0.0

    def bulk_add(self, quads: Any) -> None:
        batch = list(quads)
        self.batches.append(batch)
        c = time.process_time()
        self.inner.bulk_add(batch)
        self.store_cpu_s += time.process_time() - c

    def __len__(self) -> int:
        return len(self.inner)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def stage_costs(answers: int, workdir: Path) -> dict[str, Any]:
    """What each stage of :func:`build` costs, in CPU seconds per answer, measured on
    ``answers`` answers (everything held in memory: keep it to about 10,000):

    * ``generate``: the Recorder making the workload's statements
      (:func:`bench.bench_queries.build_workload`; its store is an in-memory one, whose
      writes are not counted);
    * ``bulk_add``: the store layer's bulk path on disk
      (:meth:`provgraph.store.EmbeddedStore.bulk_add` of the same batches: term
      conversion and pyoxigraph's bulk loader);
    * ``raw_bulk_load``: the floor of that stage, pyoxigraph's ``Store.bulk_load`` of the
      same statements as N-Quads bytes (serialized untimed);
    * ``optimize``: ``Store.optimize()`` of the bulk-loaded store.

    Returns:
        ``{"answers", "statements", "<stage>_cpu_s", "<stage>_s" (wall), "load"}``.
    """
    import pyoxigraph as ox

    from provgraph.store import serialize_quads

    out: dict[str, Any] = {"answers": answers, "load_before": os.getloadavg()}
    cap = _Capture()
    c, t = time.process_time(), time.perf_counter()
    bq.build_workload(cap, answers)  # type: ignore[arg-type]
    out["generate_cpu_s"] = time.process_time() - c - cap.store_cpu_s
    out["generate_s"] = time.perf_counter() - t
    out["statements"] = sum(len(b) for b in cap.batches)
    for name in ("pg", "raw"):
        shutil.rmtree(workdir / name, ignore_errors=True)
    store = EmbeddedStore(workdir / "pg", ledger=False)
    c, t = time.process_time(), time.perf_counter()
    for b in cap.batches:
        store.bulk_add(b)
    out["bulk_add_cpu_s"] = time.process_time() - c
    out["bulk_add_s"] = time.perf_counter() - t
    c, t = time.process_time(), time.perf_counter()
    store.optimize()
    out["optimize_cpu_s"] = time.process_time() - c
    out["optimize_s"] = time.perf_counter() - t
    store.close()
    data = b"".join(serialize_quads(b, "nquads") for b in cap.batches)
    cap.batches = []
    raw = ox.Store(str(workdir / "raw"))
    c, t = time.process_time(), time.perf_counter()
    raw.bulk_load(data, format=ox.RdfFormat.N_QUADS)
    out["raw_bulk_load_cpu_s"] = time.process_time() - c
    out["raw_bulk_load_s"] = time.perf_counter() - t
    del raw
    for name in ("pg", "raw"):
        shutil.rmtree(workdir / name, ignore_errors=True)
    out["load_after"] = os.getloadavg()
    return out


# ------------------------------------------------------------------------------ measuring

def run_child(argv: list[str]) -> dict[str, float]:
    """Run ``argv`` as a child process (output discarded) under ``/usr/bin/time`` and
    return its wall seconds, CPU seconds and peak resident memory (``%M``, the child's
    ``VmHWM``, in MB). A child forked from this process would inherit this process's
    high-water mark in ``ru_maxrss``; ``time`` is small, so its child's figure is the
    command's own.

    Raises:
        subprocess.CalledProcessError: the child exits non-zero.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as f:
        t = time.perf_counter()
        subprocess.run(["/usr/bin/time", "-o", f.name, "-f", "%M %U %S", *argv], check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t
        kb, user, system = f.read().split()[-3:]
    return {"wall_s": wall, "maxrss_mb": int(kb) / 1024, "cpu_s": float(user) + float(system)}


def measure_lineage(path: Path, truth: bq.Truth, *, n: int = 200,
                    cli_n: int = 5) -> dict[str, Any]:
    """lineage of sampled claims on the store opened read-only: the first call after
    opening, then ``n`` calls over 50 sampled claims (median, p95 seconds of wall time,
    median CPU seconds); and ``cli_n``
    commands ``provgraph --store PATH lineage CLAIM --json`` (wall seconds, peak MB)."""
    rng = random.Random(11)
    sample = rng.sample(truth.claims, min(len(truth.claims), 50))
    store = EmbeddedStore(path, read_only=True)
    try:
        t = time.perf_counter()
        rows = analytics.lineage(store, sample[0])
        first = time.perf_counter() - t
        times, cpu = [], []
        for i in range(n):
            t, c = time.perf_counter(), time.process_time()
            analytics.lineage(store, sample[i % len(sample)])
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
    finally:
        store.close()
    cli = [run_child([*pairing.provgraph_cli(), "--store", str(path), "lineage",
                      str(sample[i % len(sample)]), "--json"]) for i in range(cli_n)]
    return {"rows": len(rows), "first_s": first, **bq._stats(times),
            "cpu_median_s": statistics.median(cpu),
            "cli": {"wall": pairing.spread([c["wall_s"] for c in cli]),
                    "maxrss_mb": max(c["maxrss_mb"] for c in cli)}}


def measure_export(path: Path, truth: bq.Truth, *, n: int = 20) -> dict[str, Any]:
    """One claim bundle to PROV-JSON (:func:`provgraph.io.bundle.export`, in process on
    the store opened read-only) against its raw floor
    (:func:`bench.bench_export.claim_floor`), claim by claim A B (``n`` pairs, after one
    warm-up of each; wall and CPU seconds, ``pairs`` and ``cpu_pairs``); and the command ``provgraph export --claim CLAIM -o FILE`` (one
    run: wall seconds, peak MB)."""
    import io

    import pyoxigraph as ox

    from . import bench_export as be

    fn, why = be.find_exporter()
    if fn is None:
        raise RuntimeError(why)
    rng = random.Random(5)
    claims = rng.sample(truth.claims, n)
    store = EmbeddedStore(path, read_only=True)
    raw = ox.Store.read_only(str(path / "rdf"))
    try:
        be._call_export(fn, store, io.BytesIO(), claim=claims[0])
        be.claim_floor(raw, str(claims[0]), store.default_graph_iri)
        mine, floor, mine_cpu, floor_cpu = [], [], [], []
        statements = 0
        for c in claims:
            buf = io.BytesIO()
            t, u = time.perf_counter(), time.process_time()
            be._call_export(fn, store, buf, claim=c)
            mine.append(time.perf_counter() - t)
            mine_cpu.append(time.process_time() - u)
            t, u = time.perf_counter(), time.process_time()
            nq = be.claim_floor(raw, str(c), store.default_graph_iri)
            floor.append(time.perf_counter() - t)
            floor_cpu.append(time.process_time() - u)
            statements += nq.count(b"\n")
    finally:
        store.close()
        del raw
    with tempfile.TemporaryDirectory(prefix="provgraph-bench-scale-") as tmp:
        cli = run_child([*pairing.provgraph_cli(), "--store", str(path), "export", "--claim",
                         str(claims[1]), "-o", str(Path(tmp) / "claim.json")])
    return {"pairs": pairing.paired_values(mine, floor),
            "cpu_pairs": pairing.paired_values(mine_cpu, floor_cpu),
            "statements_per_claim": statements / n,
            "cli": cli}


def measure_commands(path: Path, truth: bq.Truth) -> dict[str, dict[str, float]]:
    """Peak resident memory and wall time of each whole-store query command, one run each
    as a child process (``provgraph --store PATH stale --json`` and ``impact``)."""
    out = {}
    for name, (_, argv) in bq.FLOOR_QUESTIONS.items():
        out[name] = run_child([*pairing.provgraph_cli(), "--store", str(path), *argv])
    return out


def measure(path: Path, *, pairs: int = 3, cli_pairs: int = 2,
            log: Callable[[str], None] = _log) -> dict[str, Any]:
    """Everything the module docstring lists, on the built store at ``path`` (with its
    truth file); seconds, MB, bytes, rows per second; ``load`` holds the load averages
    (1, 5, 15 min) before and after each part."""
    truth = bq._load_truth(Path(f"{path}.truth.json"))
    res: dict[str, Any] = {"answers": truth.answers, "statements": truth.statements,
                           "bytes": _du(path)}
    build_file = Path(f"{path}.build.json")
    if build_file.exists():
        res["build"] = json.loads(build_file.read_text(encoding="utf-8"))
    load: dict[str, Any] = {}
    for part, fn in (("lineage", lambda: measure_lineage(path, truth)),
                     ("floors", lambda: bq.measure_floors(path, pairs=pairs, cli_pairs=cli_pairs,
                                                          truth=truth)),
                     ("commands", lambda: measure_commands(path, truth)),
                     ("export", lambda: measure_export(path, truth))):
        before = os.getloadavg()
        t = time.perf_counter()
        res[part] = fn()
        load[part] = {"before": before, "after": os.getloadavg(),
                      "seconds": time.perf_counter() - t}
        log(f"  {part} measured in {load[part]['seconds']:.0f} s, load {before[0]:.1f} -> "
            f"{load[part]['after'][0]:.1f}")
    res["load"] = load
    for q in ("stale", "stale-indexed", "impact", "impact-indexed"):
        f = res["floors"][q]
        f["rows_per_s"] = f["rows"] / f["inproc"]["a"]["median"]
        f["floor_rows_per_s"] = f["rows"] / f["inproc"]["b"]["median"]
        f["cli_rows_per_s"] = f["rows"] / f["cli"]["a"]["median"]
        f["cpu_rows_per_s"] = f["rows"] / f["inproc_cpu"]["a"]["median"]
        f["floor_cpu_rows_per_s"] = f["rows"] / f["inproc_cpu"]["b"]["median"]
    return res


# ------------------------------------------------------------------------------- targets

TARGET_ANSWERS = 1_000_000
"""The size issue 16 item 5 names."""
LINEAGE_MS = 5.0
"""lineage median, in-process, at most this many milliseconds."""
ROWS_PER_S = 150_000
"""stale and impact in-process: at least this many result rows per second."""
EXPORT_RATIO = 1.5
"""one claim bundle: at most this many times its raw floor (median of the pairs)."""
DISK_GB = 30.0
"""settled store (after close and reopen, and after optimize) under this many GB at 1M."""
RSS_MB = 2048.0
"""peak resident memory of each query command under this many MB."""


def target_rows(res: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per target: ``{"measure", "value", "target", "ok"}`` (``value`` a text);
    disk is judged at the size built and scaled linearly to :data:`TARGET_ANSWERS`."""
    rows: list[dict[str, Any]] = []
    lin = res["lineage"]
    rows.append({"measure": f"lineage of one claim, in-process median ({lin['rows']} rows; "
                            f"p95 {lin['p95_s'] * 1000:.2f} ms, CPU median "
                            f"{lin['cpu_median_s'] * 1000:.2f} ms, first call after opening "
                            f"{lin['first_s'] * 1000:.1f} ms)",
                 "value": f"{lin['median_s'] * 1000:.2f} ms", "target": f"< {LINEAGE_MS:g} ms",
                 "ok": lin["median_s"] * 1000 < LINEAGE_MS})
    rows.append({"measure": "`provgraph lineage CLAIM --json`, whole command, median "
                            f"({lin['cli']['wall']['n']} claims)",
                 "value": f"{lin['cli']['wall']['median']:.2f} s", "target": "", "ok": None})
    for q in ("stale", "stale-indexed", "impact", "impact-indexed"):
        f = res["floors"][q]
        inp = f["inproc"]
        rows.append({"measure": f"{q}, in-process: {f['rows']:,} rows in "
                                f"{inp['a']['median']:.2f} s (floor {inp['b']['median']:.2f} s, "
                                f"{f['floor_rows_per_s']:,.0f} rows/s; ratio "
                                f"{inp['ratio']['median']:.2f}×, "
                                f"{pairing.describe(inp)}; by CPU time "
                                f"{f['cpu_rows_per_s']:,.0f} rows/s, floor "
                                f"{f['floor_cpu_rows_per_s']:,.0f})",
                     "value": f"{f['rows_per_s']:,.0f} rows/s",
                     "target": f"≥ {ROWS_PER_S:,} rows/s", "ok": f["rows_per_s"] >= ROWS_PER_S})
        rows.append({"measure": f"`provgraph {q} --json`, whole command (floor "
                                f"{f['cli']['b']['median']:.2f} s, ratio "
                                f"{f['cli']['ratio']['median']:.2f}×)",
                     "value": f"{f['cli']['a']['median']:.2f} s "
                              f"({f['cli_rows_per_s']:,.0f} rows/s)", "target": "", "ok": None})
    ex = res["export"]["pairs"]
    rows.append({"measure": f"one claim bundle to PROV-JSON, in-process (~"
                            f"{res['export']['statements_per_claim']:.0f} statements; "
                            f"{ex['a']['median'] * 1000:.1f} ms against the raw floor's "
                            f"{ex['b']['median'] * 1000:.1f} ms; "
                            f"{pairing.describe(ex, scale=1000.0, unit='ms')}; by CPU time "
                            f"{res['export']['cpu_pairs']['ratio']['median']:.2f}×)",
                 "value": f"{ex['ratio']['median']:.2f}× floor", "target": f"≤ {EXPORT_RATIO}×",
                 "ok": ex["ratio"]["median"] <= EXPORT_RATIO})
    scale = TARGET_ANSWERS / res["answers"]
    build = res.get("build", {})
    sizes = [("after close and reopen", "bytes_after_reopen"),
             ("after optimize()", "bytes_after_optimize")] if build else [("as found", "")]
    for label, key in sizes:
        b = build.get(key) if key else res["bytes"]
        if b is None:
            continue
        rows.append({"measure": f"disk, store {label} ({b / res['statements']:.0f} bytes per "
                                f"statement; scaled ×{scale:g} to {TARGET_ANSWERS:,} answers: "
                                f"{b * scale / 1e9:.1f} GB)",
                     "value": f"{b / 1e9:.2f} GB", "target": f"< {DISK_GB:g} GB at 1M",
                     "ok": b * scale / 1e9 < DISK_GB})
    peaks = {"lineage": res["lineage"]["cli"]["maxrss_mb"],
             **{q: c["maxrss_mb"] for q, c in res["commands"].items()},
             "export --claim": res["export"]["cli"]["maxrss_mb"]}
    for name, mb in peaks.items():
        rows.append({"measure": f"peak resident memory of `provgraph {name}`",
                     "value": f"{mb:,.0f} MB", "target": f"< {RSS_MB:,.0f} MB",
                     "ok": mb < RSS_MB})
    return rows


def markdown(res: dict[str, Any]) -> str:
    """The results as the bench/RESULTS.md section's tables and notes."""
    import pyoxigraph

    build = res.get("build", {})
    lines = [f"- store: {res['answers']:,} answers, {res['statements']:,} statements, "
             f"{res['bytes'] / 1e9:.2f} GB now",
             f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
             f"{_ram_gb():.1f} GB RAM; {platform.platform()}",
             f"- versions: Python {platform.python_version()}, pyoxigraph "
             f"{pyoxigraph.__version__}"]
    if build:
        lines.append(
            f"- build: {build['generate_load_s']:.0f} s wall ({build['generate_load_cpu_s']:.0f} s "
            f"CPU) to generate and bulk-load {build['statements_sent']:,} statements "
            f"({build['statements']:,} distinct), "
            f"{build['answers'] / build['generate_load_s']:.0f} answers/s; writer thread busy "
            f"{build['writer_s']:.0f} s; optimize {build.get('optimize_s', 0):.0f} s; load "
            f"average {build['load_before'][0]:.1f} before, {build['load_after'][0]:.1f} after")
    for part, ld in res["load"].items():
        lines.append(f"- {part}: {ld['seconds']:.0f} s, load average {ld['before'][0]:.1f} -> "
                     f"{ld['after'][0]:.1f}")
    checks = res["floors"].get("checks", {})
    bad = [k for k, v in checks.items() if not v]
    lines.append("- stale and impact rows equal the workload's ground truth: "
                 + ("yes" if not bad else "NO: " + ", ".join(bad)))
    lines += ["", "| measure | value | target | result |", "|---|---|---|---|"]
    for r in target_rows(res):
        ok = "–" if r["ok"] is None else ("**pass**" if r["ok"] else "**FAIL**")
        lines.append(f"| {r['measure']} | {r['value']} | {r['target']} | {ok} |")
    return "\n".join(lines) + "\n"


def _ram_gb() -> float:
    with open("/proc/meminfo", encoding="ascii") as f:
        return int(f.readline().split()[1]) / 1024 / 1024


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.bench_scale [--answers N] [--path DIR] [--json FILE]
    [--no-optimize] [--pairs P]``: build the store at ``DIR`` (or reuse it when its truth
    file exists), measure it, print the Markdown section; exit 1 when a target fails."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--answers", type=int, default=TARGET_ANSWERS,
                   help=f"answers to build (default {TARGET_ANSWERS:,}; ignored when reusing)")
    p.add_argument("--path", type=Path, default=Path("/tmp/provgraph-bench-scale"),
                   help="the store; reused when PATH.truth.json exists (default %(default)s)")
    p.add_argument("--json", type=Path, help="also write the measurements here")
    p.add_argument("--no-optimize", action="store_true", help="skip Store.optimize() after the build")
    p.add_argument("--pairs", type=int, default=3, help="A B pairs per floor row (default 3)")
    a = p.parse_args(argv)
    if not Path(f"{a.path}.truth.json").exists():
        _log(f"building {a.answers:,} answers at {a.path} ...")
        build(a.path, a.answers, optimize=not a.no_optimize,
              log=_log)
    res = measure(a.path, pairs=a.pairs, log=_log)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1, default=str), encoding="utf-8")
    sys.stdout.write(markdown(res))
    return 0 if all(r["ok"] is not False for r in target_rows(res)) else 1


if __name__ == "__main__":
    sys.exit(main())
