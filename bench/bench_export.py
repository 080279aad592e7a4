"""Benchmark 4: export to PROV-JSON, one claim bundle and one whole run, against
the ``prov`` package building and serializing the same document; and the
``prov`` package reading that document back (the baseline of PROV-JSON import).

The baseline is what a team without provgraph would write: build a
``prov.model.ProvDocument`` from the application's own records (the workload
specs, with the same IRIs the Recorder mints), one bundle for the run and one
for the shared ingestion, then ``serialize(format="json")``. Each whole-run
measurement runs in a child process so that its peak resident memory
(``resource.getrusage``) is its own.

provgraph's side records the workload into an on-disk store and times
:func:`provgraph.io.bundle.export` (through :func:`_call_export`): claim bundles
in process, the whole run in a child process writing to a file, with that
process's peak resident memory (``VmHWM``). Two more measurements put the run
export in context: the *read floor*, pyoxigraph alone iterating the same
statements out of the same store (no conversion, no output), and provgraph
importing the prov package's PROV-JSON document (``provgraph.io.load.
import_document``) against the prov package reading it.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import prov.model as pm

from provgraph.vocab import PG as _PG

from . import pairing, workload as w

PG_NS = pm.Namespace("pg", "https://w3id.org/provgraph/ns#")
OA_NS = pm.Namespace("oa", "http://www.w3.org/ns/oa#")


class _Names:
    """QualifiedNames for IRIs, registering one namespace per IRI prefix."""

    def __init__(self, doc: pm.ProvDocument) -> None:
        self.doc = doc
        self.spaces: dict[str, pm.Namespace] = {}
        self.cache: dict[str, pm.QualifiedName] = {}

    def __call__(self, iri: str) -> pm.QualifiedName:
        got = self.cache.get(iri)
        if got is not None:
            return got
        # split before any fragment, so <run-activity#hit-3> shares the namespace of its
        # activity: one namespace per answer would make the prov package quadratic
        head = iri.split("#", 1)[0]
        cut = max(head.rfind(";"), head.rfind(":"), head.rfind("/")) + 1
        base, local = iri[:cut], iri[cut:]
        ns = self.spaces.get(base)
        if ns is None:
            ns = self.doc.add_namespace(f"n{len(self.spaces)}", base)
            self.spaces[base] = ns
        q = self.cache[iri] = ns[local]
        return q


def _pg(term: str) -> pm.QualifiedName:
    assert term in _PG._terms  # noqa: SLF001 - same vocabulary as the Recorder
    return PG_NS[term]


class ProvBuilder:
    """Builds the baseline ``ProvDocument`` for a workload (or part of one)."""

    def __init__(self, wl: w.Workload, ing: w.Ingested) -> None:
        self.wl, self.ing = wl, ing
        self.doc = pm.ProvDocument()
        self.doc.add_namespace(PG_NS)
        self.doc.add_namespace(OA_NS)
        self.qn = _Names(self.doc)
        self.run = self.doc.bundle(self.qn(wl.run_iri))
        self.ingestion = self.doc.bundle(self.qn("urn:provgraph:graph:ingestion"))
        self._chunks_done: set[int] = set()
        self._snaps_done: set[int] = set()
        self._agents: dict[tuple[str, str, str], pm.QualifiedName] = {}

    def agent(self, bundle: pm.ProvBundle, role: str, name: str, version: str) -> pm.QualifiedName:
        key = (str(bundle.identifier), name, version)
        q = self._agents.get(key)
        if q is None:
            q = self.qn(f"urn:provgraph:agent:{role}-{name}-{version}")
            bundle.agent(q, {pm.PROV_TYPE: pm.PROV["SoftwareAgent"], _pg("agentName"): name,
                             _pg("agentVersion"): version})
            self._agents[key] = q
        return q

    # ingestion ---------------------------------------------------------------
    def snapshot(self, s: int) -> pm.QualifiedName:
        snap = self.ing.snapshots[s]
        q = self.qn(snap.iri)
        if s in self._snaps_done:
            return q
        self._snaps_done.add(s)
        b, c = self.ingestion, self.wl.corpus
        doc = self.qn(snap.document)
        b.entity(doc, {pm.PROV_TYPE: _pg("Document"), _pg("sourceUri"): snap.source_uri})
        b.entity(q, {pm.PROV_TYPE: _pg("SourceSnapshot"), _pg("sha256"): snap.sha256,
                     _pg("byteSize"): snap.byte_size, _pg("mediaType"): snap.media_type,
                     _pg("sourceUri"): snap.source_uri, _pg("observedAt"): snap.observed_at})
        b.specializationOf(q, doc)
        ext = self.qn(f"urn:provgraph:extraction:bench-{s}")
        text = self.qn(f"urn:provgraph:text:bench-{s}")
        b.activity(ext, None, snap.observed_at, {pm.PROV_TYPE: _pg("Extraction")})
        b.used(ext, q)
        b.wasAssociatedWith(ext, self.agent(b, "parser", w.PARSER_NAME, c.parser_version(s)))
        b.entity(text, {pm.PROV_TYPE: _pg("ExtractedText"), _pg("offsetUnit"): "codepoint",
                        _pg("offsetMap"): json.dumps([[0, len(c.texts[s]), 0, snap.byte_size]])})
        b.wasGeneratedBy(text, ext)
        b.wasDerivedFrom(text, q)
        rev = self.ing.revisions.get(s)
        if rev is not None:
            rq = self.qn(rev.iri)
            b.entity(rq, {pm.PROV_TYPE: _pg("SourceSnapshot"), _pg("sha256"): rev.sha256,
                          _pg("byteSize"): rev.byte_size, _pg("observedAt"): rev.observed_at})
            b.specializationOf(rq, doc)
            b.wasRevisionOf(rq, q)
        return q

    def chunk(self, i: int) -> pm.QualifiedName:
        ch = self.ing.chunks[i]
        q = self.qn(ch.iri)
        if i in self._chunks_done:
            return q
        self._chunks_done.add(i)
        s = self.wl.corpus.snapshot_of(i)
        self.snapshot(s)
        b = self.ingestion
        chunking = self.qn(f"urn:provgraph:chunking:bench-{s}")
        b.entity(q, {pm.PROV_TYPE: _pg("Chunk"), _pg("text"): ch.text, _pg("start"): ch.start,
                     _pg("end"): ch.end, _pg("offsetUnit"): "codepoint"})
        b.wasGeneratedBy(q, chunking)
        b.wasDerivedFrom(q, self.qn(f"urn:provgraph:text:bench-{s}"))
        b.wasAssociatedWith(chunking, self.agent(b, "chunker", *w.CHUNKER))
        return q

    # request time --------------------------------------------------------------
    def answer(self, a: w.AnswerSpec, claims: tuple[int, ...] | None = None) -> None:
        """Add answer ``a`` (or, with ``claims``, only what those claims' lineage needs:
        the retrieval and generation chain is shared by all claims of an answer)."""
        wl, b, qn, i = self.wl, self.run, self.qn, a.index
        t = wl.answer_time(i)
        query = qn(wl.iri("query", i))
        b.entity(query, {pm.PROV_TYPE: _pg("Query"), _pg("text"): a.query})
        r = qn(wl.iri("retrieval", i))
        b.activity(r, t, t, {pm.PROV_TYPE: _pg("Retrieval"), _pg("indexVersion"): "idx-2026-03-01"})
        b.wasAssociatedWith(r, self.agent(b, "retriever", *w.RETRIEVER))
        b.used(r, query)
        for rank, (c, score) in enumerate(a.hits, 1):
            b.used(r, self.chunk(c), identifier=qn(f"{wl.iri('retrieval', i)}#hit-{rank}"),
                   other_attributes={_pg("rank"): rank, _pg("score"): score})
        gi_iri = wl.iri("input", i)
        gi, packing = qn(gi_iri), qn(f"urn:provgraph:packing:bench-{i}")
        b.activity(packing, t, t, {pm.PROV_TYPE: _pg("ContextPacking")})
        b.entity(gi, {pm.PROV_TYPE: _pg("GeneratorInput"),
                      _pg("text"): f"Answer from the context.\n{a.query}"})
        b.wasGeneratedBy(gi, packing)
        b.wasInformedBy(packing, r)
        gen, ans = qn(f"urn:provgraph:generation:bench-{i}"), qn(wl.iri("answer", i))
        b.activity(gen, t, t, {pm.PROV_TYPE: _pg("Generation"),
                               _pg("settings"): json.dumps({"temperature": 0})})
        model = self.agent(b, "model", *w.MODEL)
        b.wasAssociatedWith(gen, model)
        b.used(gen, gi)
        b.entity(ans, {pm.PROV_TYPE: _pg("Answer"), _pg("text"): a.answer})
        b.wasGeneratedBy(ans, gen, t)
        agents = [self.agent(b, "retriever", *w.RETRIEVER), model]
        n = 0
        for k, cl in enumerate(a.claims):
            cits = []
            for cit in cl.citations:
                if claims is None or k in claims:
                    cq = qn(wl.iri("citation", i, n))
                    target = (self.snapshot(wl.corpus.snapshot_of(cit.chunk)) if cit.snapshot
                              else self.chunk(cit.chunk))
                    attrs: list[tuple[Any, Any]] = [
                        (pm.PROV_TYPE, _pg("Citation")), (_pg("targetId"), str(target.uri)),
                        (_pg("target"), target)]
                    if cit.start is not None:
                        attrs += [(_pg("start"), cit.start), (_pg("end"), cit.end),
                                  (_pg("offsetUnit"), cit.unit), (_pg("endInclusive"), False)]
                    if cit.quote is not None:
                        attrs.append((OA_NS["exact"], cit.quote))
                    b.entity(cq, attrs)
                    cits.append((cq, target, cit))
                n += 1
            if claims is not None and k not in claims:
                continue
            c = qn(wl.iri("claim", i, k))
            attrs = [(pm.PROV_TYPE, _pg("Claim")), (_pg("answer"), ans), (_pg("start"), cl.start),
                     (_pg("end"), cl.end), (_pg("text"), a.answer[cl.start:cl.end]),
                     (_pg("claimKind"), cl.kind), (_pg("claimStatus"), "supported")]
            attrs += [(_pg("citation"), cq) for cq, _, _ in cits]
            attrs += [(_pg("supportAgent"), ag) for ag in agents]
            attrs += [(_pg("citedSnapshot"), self.snapshot(wl.corpus.snapshot_of(cit.chunk)))
                      for _, _, cit in cits]
            b.entity(c, attrs)
            b.wasGeneratedBy(c, gen)


def _ingested(wl: w.Workload) -> w.Ingested:
    cs = w.CaptureStore()
    try:
        return w.record_ingestion(w.new_recorder(cs, wl), wl)
    finally:
        cs.close()


def _maxrss_mb() -> float:
    from .bench_import import peak_rss_mb

    return peak_rss_mb()


# --------------------------------------------------------------------------- child processes

def _child_build(answers: int, out: str) -> dict[str, Any]:
    wl = w.Workload(answers)
    ing = _ingested(wl)
    specs = list(wl.specs())
    base = _maxrss_mb()
    t0 = time.perf_counter()
    pb = ProvBuilder(wl, ing)
    for a in specs:
        pb.answer(a)
    t1 = time.perf_counter()
    with open(out, "w", encoding="utf-8") as fh:
        pb.doc.serialize(fh, format="json")
    t2 = time.perf_counter()
    return {"build_s": t1 - t0, "write_s": t2 - t1, "maxrss_mb": _maxrss_mb(),
            "maxrss_before_mb": base, "bytes": os.path.getsize(out)}


def _child_read(path: str) -> dict[str, Any]:
    base = _maxrss_mb()
    t0 = time.perf_counter()
    with open(path, encoding="utf-8") as fh:
        doc = pm.ProvDocument.deserialize(fh, format="json")
    t1 = time.perf_counter()
    n = len(doc.get_records()) + sum(len(b.get_records()) for b in doc.bundles)
    return {"read_s": t1 - t0, "records": n, "maxrss_mb": _maxrss_mb(), "maxrss_before_mb": base}


def _child_export(store_path: str, run_iri: str, out: str) -> dict[str, Any]:
    from provgraph.io.bundle import export
    from provgraph.store import EmbeddedStore

    from .bench_import import peak_rss_mb

    st = EmbeddedStore(store_path)
    base = peak_rss_mb()
    t0 = time.perf_counter()
    with open(out, "wb") as fh:
        res = export(st, "prov-json", run=run_iri, out=fh)
    t1 = time.perf_counter()
    st.close()
    return {"run_s": t1 - t0, "maxrss_mb": peak_rss_mb(), "maxrss_before_mb": base,
            "bytes": os.path.getsize(out), "statements": res.statements}


def _child_scan(store_path: str, run_iri: str) -> dict[str, Any]:
    """pyoxigraph alone reading every statement of the run graph and of the
    ingestion graph (the run bundle's content) from the on-disk store."""
    import pyoxigraph as ox

    st = ox.Store(str(Path(store_path) / "rdf"))
    t0 = time.perf_counter()
    n = 0
    for g in (run_iri, "urn:provgraph:graph:ingestion"):
        for q in st.quads_for_pattern(None, None, None, ox.NamedNode(g)):
            q.subject, q.predicate, q.object  # noqa: B018 - touch every term, as a reader must
            n += 1
    return {"scan_s": time.perf_counter() - t0, "scan_quads": n}


def _child_pgimport(path: str, workdir: str) -> dict[str, Any]:
    from provgraph.io.load import import_document
    from provgraph.store import EmbeddedStore

    from .bench_import import peak_rss_mb

    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-pgimport-", dir=workdir or None))
    try:
        st = EmbeddedStore(root / "store")
        base = peak_rss_mb()
        t0 = time.perf_counter()
        data = Path(path).read_bytes()
        res = import_document(st, data, "prov-json", name=path)
        t1 = time.perf_counter()
        n = len(st)
        st.close()
        return {"import_s": t1 - t0, "maxrss_mb": peak_rss_mb(), "maxrss_before_mb": base,
                "quads": n, "stored": getattr(res, "stored", None)}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _spawn(*args: str) -> dict[str, Any]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = subprocess.run([sys.executable, "-m", "bench.bench_export", "--child", *args],
                         capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- provgraph hook

def find_exporter() -> tuple[Any, str]:
    """``(provgraph.io.bundle.export, "")`` when it exists, else ``(None, reason)``."""
    try:
        mod = importlib.import_module("provgraph.io.bundle")
    except ImportError as exc:
        return None, f"provgraph.io.bundle is not importable ({exc})"
    fn = getattr(mod, "export", None)
    if not callable(fn):
        return None, "provgraph.io.bundle has no export function"
    return fn, ""


def _call_export(fn: Any, store: Any, out: Any, *, claim: str | None = None,
                 run: str | None = None) -> None:
    """Adapter to provgraph's exporter, ``provgraph.io.bundle.export(store, "prov-json",
    claim=IRI | run=IRI) -> ExportResult`` (issue 5): the bundle's bytes go to ``out``."""
    kwargs: dict[str, Any] = {}
    if claim is not None:
        kwargs["claim"] = str(claim)
    if run is not None:
        kwargs["run"] = str(run)
    out.write(fn(store, "prov-json", **kwargs).data)


def _provgraph_side(answers: int, n_claims: int, workdir: str | None, provjson: Path,
                    pairs: int) -> dict[str, Any]:
    """provgraph's measurements, each target row paired with its baseline A B A B
    (issue 16, item 8): claim bundles claim by claim against the prov package building
    and serializing the same claim's bundle in process, and ``pairs`` whole-run exports
    (child processes) against the prov package's build + serialize (child processes;
    the first one writes ``provjson``, which the import rows read)."""
    fn, why = find_exporter()
    if fn is None:
        return {"available": False, "reason": why}
    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-export-", dir=workdir))
    try:
        wl = w.Workload(answers)
        st = w.build_store(root / "store", wl)  # the Recorder's statements, bulk-loaded
        ing = _ingested(wl)
        res: dict[str, Any] = {"available": True}
        times, base = [], []
        for i in range(n_claims):
            a = i * max(1, answers // n_claims) % answers
            buf = io.BytesIO()
            t0 = time.perf_counter()
            _call_export(fn, st, buf, claim=wl.iri("claim", a, i % w.CLAIMS_PER_ANSWER))
            times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            pb = ProvBuilder(wl, ing)
            pb.answer(wl.spec(a), claims=(i % w.CLAIMS_PER_ANSWER,))
            pb.doc.serialize(io.StringIO(), format="json")
            base.append(time.perf_counter() - t0)
        res["claim_ms_median"] = 1000 * statistics.median(times)
        res["claim_ms_p95"] = 1000 * _p95(times)
        res["claim_pairs"] = pairing.paired_values(times, base)
        res["prov_claim"] = {"claim_ms_median": 1000 * statistics.median(base),
                             "claim_ms_p95": 1000 * _p95(base)}
        st.close()
        out = root / "run.json"
        builds, exports = [], []
        for k in range(pairs):
            b = _spawn("build", str(answers), str(provjson if k == 0 else root / "prov.json"))
            e = _spawn("export", str(root / "store"), wl.run_iri, str(out))
            builds.append(b)
            exports.append(e)
            out.unlink()
        res["prov_builds"] = builds
        res.update(max(exports, key=lambda e: e["maxrss_mb"]))  # the largest peak
        res["run_s"] = statistics.median(e["run_s"] for e in exports)
        # speed-up pair by pair: the prov package's build + serialize / provgraph's export
        res["run_pairs"] = pairing.paired_values([b["build_s"] + b["write_s"] for b in builds],
                                                 [e["run_s"] for e in exports])
        res.update(_spawn("scan", str(root / "store"), wl.run_iri))
        got = _spawn("pgimport", str(provjson), str(root))
        res.update({"import_s": got["import_s"], "import_maxrss_mb": got["maxrss_mb"],
                    "import_quads": got["quads"]})
        return res
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def claim_bundle_baseline(answers: int, n_claims: int) -> dict[str, float]:
    """Median and p95 milliseconds for the prov package to build and serialize one
    claim's lineage bundle to PROV-JSON (in process)."""
    wl = w.Workload(answers)
    ing = _ingested(wl)
    times = []
    for i in range(n_claims):
        a = wl.spec(i * max(1, answers // n_claims) % answers)
        t0 = time.perf_counter()
        pb = ProvBuilder(wl, ing)
        pb.answer(a, claims=(i % w.CLAIMS_PER_ANSWER,))
        pb.doc.serialize(io.StringIO(), format="json")
        times.append(time.perf_counter() - t0)
    return {"claim_ms_median": 1000 * statistics.median(times), "claim_ms_p95": 1000 * _p95(times)}


def run(answers: int, *, workdir: str | None = None, n_claims: int = 100,
        pairs: int = 3) -> dict[str, Any]:
    """Export benchmark on ``answers`` answers. Returns baseline numbers under ``prov``
    and provgraph's under ``provgraph`` (``available: False`` with a reason when absent);
    the whole-run rows are medians of ``pairs`` A B pairs (``run_pairs``: the prov
    package's seconds / provgraph's, pair by pair), the claim rows of ``n_claims`` pairs
    (``claim_pairs``)."""
    tmp = Path(tempfile.mkdtemp(prefix="provgraph-bench-provjson-", dir=workdir))
    try:
        path = tmp / "run.provjson"
        g = _provgraph_side(answers, n_claims, workdir, path, pairs)
        if g.get("available"):
            builds = g.pop("prov_builds")
            build = {"build_s": statistics.median(b["build_s"] for b in builds),
                     "write_s": statistics.median(b["write_s"] for b in builds),
                     "maxrss_mb": max(b["maxrss_mb"] for b in builds),
                     "maxrss_before_mb": builds[0]["maxrss_before_mb"],
                     "bytes": builds[0]["bytes"]}
            claims = g.pop("prov_claim")
        else:
            build = _spawn("build", str(answers), str(path))
            claims = claim_bundle_baseline(answers, n_claims)
        read = _spawn("read", str(path))
        res: dict[str, Any] = {"answers": answers, "prov": {**build, **claims, **{
            "read_s": read["read_s"], "read_maxrss_mb": read["maxrss_mb"],
            "records": read["records"]}}}
        res["provgraph"] = g
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        kind, args = sys.argv[2], sys.argv[3:]
        children = {"build": lambda: _child_build(int(args[0]), args[1]),
                    "read": lambda: _child_read(args[0]),
                    "export": lambda: _child_export(*args),
                    "scan": lambda: _child_scan(*args),
                    "pgimport": lambda: _child_pgimport(*args)}
        print(json.dumps(children[kind]()))
    else:  # manual use: python -m bench.bench_export [ANSWERS]
        print(json.dumps(run(int(sys.argv[1]) if len(sys.argv) > 1 else 1000), indent=1))
