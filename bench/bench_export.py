"""Benchmark 4: export to PROV-JSON, one claim bundle and one whole run, and the
``prov`` package reading that document back (the baseline of PROV-JSON import).

**Whole run** (issue 16, item 7): the peer is the path a user without provgraph has to
turn a run's PROV-O into PROV-JSON: the ``prov`` package reading the run's statements
(``ProvDocument.deserialize(content=TriG, format="rdf", rdf_format="trig")``, what
``prov.read(..., format="rdf")`` does) and writing PROV-JSON. The TriG holds exactly the
run bundle's content (:func:`run_statements`, read from the same store, untimed); the
peer's deserialize + serialize to a file is timed in a child process
(:func:`_child_provrdf`). provgraph's side is the library call behind ``provgraph export
--run RUN --format prov-json -o FILE`` (:func:`provgraph.io.bundle.export` on a store
opened read-only, as the CLI opens it), timed in a child process
(:func:`_child_export`). The two run in turn, A B A B (:func:`bench.pairing.paired_values`:
ratio = the prov package's seconds / provgraph's, pair by pair).

**Content** (:func:`content_check`): both PROV-JSON files are read back into PROV-O
(:func:`provgraph.io.read`) and compared with the run's statements as the store holds
them (literals in canonical form): a statement of the store the file does not give back
is *dropped*; one the file adds beyond the store's statements and their PROV-O
entailments (:func:`provgraph.io.provo.complete`) is *extra*. provgraph must drop and add
nothing (the bench fails otherwise); what the prov package drops is reported by
predicate and by the type of its subject, with the PROV-JSON records and attribute
values of both files counted section by section (:func:`provjson_counts`).

**Claim bundles**: claim by claim, provgraph's export (in process) paired with the prov
package building and serializing the same claim's bundle from the workload specs
(:class:`ProvBuilder`, the old baseline), and with its *raw floor* (:func:`claim_floor`):
pyoxigraph alone doing the export's two reads (the claim's types, the closure query of
:mod:`provgraph.io.bundle`, same text) and serializing the statements as N-Quads.

The *read floor* of the whole run is pyoxigraph alone iterating the run graph and the
ingestion graph (no conversion, no output). Import rows: provgraph importing a PROV-JSON
document the prov package wrote from objects in memory (:class:`ProvBuilder`, built once,
untimed context) against the prov package reading it back.
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
    """provgraph's whole-run PROV-JSON export to the file ``out``, timed: what ``provgraph
    export --run RUN --format prov-json -o FILE`` calls, on a store opened read-only as the
    CLI opens it."""
    from provgraph.io.bundle import export
    from provgraph.store import EmbeddedStore

    from .bench_import import peak_rss_mb

    st = EmbeddedStore(store_path, read_only=True)
    base = peak_rss_mb()
    t0 = time.perf_counter()
    c0 = time.process_time()
    with open(out, "wb") as fh:
        res = export(st, "prov-json", run=run_iri, out=fh)
    t1 = time.perf_counter()
    cpu = time.process_time() - c0
    st.close()
    return {"run_s": t1 - t0, "cpu_s": cpu, "maxrss_mb": peak_rss_mb(), "maxrss_before_mb": base,
            "bytes": os.path.getsize(out), "statements": res.statements}


def _child_provrdf(trig: str, out: str) -> dict[str, Any]:
    """The peer: the prov package reading the run's PROV-O (TriG, read into memory
    untimed) and writing PROV-JSON to the file ``out``, timed; with the number of
    subjects whose attributes it reports as not converted (its ``UserWarning``)."""
    import warnings

    text = Path(trig).read_text(encoding="utf-8")
    base = _maxrss_mb()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        c0 = time.process_time()
        doc = pm.ProvDocument.deserialize(content=text, format="rdf", rdf_format="trig")
        t1 = time.perf_counter()
        with open(out, "w", encoding="utf-8") as fh:
            doc.serialize(fh, format="json")
        t2 = time.perf_counter()
        cpu = time.process_time() - c0
    lost = [str(x.message) for x in caught if "were not converted" in str(x.message)]
    return {"prov_s": t2 - t0, "read_s": t1 - t0, "write_s": t2 - t1, "cpu_s": cpu,
            "maxrss_mb": _maxrss_mb(), "maxrss_before_mb": base, "bytes": os.path.getsize(out),
            "unconverted_subjects": sum(m.count("': [(") for m in lost)}


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


# --------------------------------------------------------------------------- whole run vs the peer

def run_statements(store: Any, run: str) -> list[tuple[Any, Any, Any]]:
    """The run bundle's content as the store holds it, read without the exporter: every
    subject of the run's graph and everything reached from them along the relations a
    bundle follows (:data:`provgraph.relations.UPSTREAM` and ``DESCRIBING``), each with
    all its statements in every graph but the ontology's, less
    :data:`provgraph.relations.BUNDLE_LEFT_OUT` (the :mod:`provgraph.io.bundle` module
    docstring). Returns distinct ``(s, p, o)`` triples; one store read per subject."""
    from provgraph.relations import BUNDLE_LEFT_OUT, DESCRIBING, UPSTREAM
    from provgraph.store import ANY_GRAPH
    from provgraph.terms import IRI, Literal
    from provgraph.vocab import GRAPH

    follow = frozenset(UPSTREAM) | frozenset(DESCRIBING)
    todo = list(dict.fromkeys(q[0] for q in store.quads(None, None, None, IRI(run))))
    seen = set(todo)
    out: dict[tuple[Any, Any, Any], None] = {}
    while todo:
        s = todo.pop()
        for _, p, o, g in store.quads(s, None, None, ANY_GRAPH):
            if g == GRAPH.ONTOLOGY or p in BUNDLE_LEFT_OUT:
                continue
            out[(s, p, o)] = None
            if p in follow and not isinstance(o, Literal) and o not in seen:
                seen.add(o)
                todo.append(o)
    return list(out)


def _curie(term: Any) -> str:
    from provgraph._rows import curie

    return curie(str(term))


def content_check(statements: list[tuple[Any, Any, Any]], data: bytes) -> dict[str, Any]:
    """Compare a PROV-JSON file's bundle content with the store's ``statements``.

    The file is read back with :func:`provgraph.io.read`; its statements in a bundle
    (a named graph) are compared with ``statements``, literals in canonical form
    (:func:`provgraph.xsd.canonical`: PROV-JSON gives times back as ``+00:00``).

    Returns:
        ``{"expected", "read", "dropped", "extra", "dropped_by_predicate",
        "dropped_by_type", "extra_by_predicate"}``: ``dropped`` counts statements of the
        store the file does not give back, ``extra`` statements the file gives beyond
        the store's and their PROV-O entailments (:func:`provgraph.io.provo.complete`);
        the ``by_`` maps count them by predicate CURIE and by the subject's first
        ``rdf:type`` (CURIE, ``untyped`` if none), most first.
    """
    from collections import Counter

    from provgraph.io import read
    from provgraph.io.provo import complete
    from provgraph.terms import Literal
    from provgraph.vocab import RDF
    from provgraph.xsd import canonical

    def canon(o: Any) -> Any:
        return canonical(o) if isinstance(o, Literal) else o

    expected = {(s, p, canon(o)) for s, p, o in statements}
    entailed = {(s, p, canon(o)) for s, p, o, _ in
                complete([(s, p, o, None) for s, p, o in statements])[0]} - expected
    got = {(s, p, canon(o)) for s, p, o, g in read(data, "prov-json", name="(bench)").quads
           if g is not None}
    dropped = expected - got
    extra = got - expected - entailed
    types: dict[Any, str] = {}
    for s, p, o in sorted(statements, key=lambda t: (str(t[0]), str(t[1]), str(t[2]))):
        if p == RDF.type and s not in types:
            types[s] = _curie(o)
    return {"expected": len(expected), "read": len(got), "dropped": len(dropped),
            "extra": len(extra),
            "dropped_by_predicate": dict(Counter(_curie(p) for _, p, _ in dropped).most_common()),
            "dropped_by_type": dict(Counter(types.get(s, "untyped") for s, _, _ in dropped)
                                    .most_common()),
            "extra_by_predicate": dict(Counter(_curie(p) for _, p, _ in extra).most_common())}


def provjson_counts(data: bytes) -> dict[str, list[int]]:
    """PROV-JSON records and attribute values per section (``entity``, ``used``...) of the
    bundles of a PROV-JSON document (PROV-JSON §2-3), summed over bundles:
    ``{section: [records, attribute values]}``; a list value counts each member."""
    doc = json.loads(data)
    out: dict[str, list[int]] = {}
    for body in doc.get("bundle", {}).values():
        for section, records in body.items():
            if section == "prefix":
                continue
            n = out.setdefault(section, [0, 0])
            for attrs in records.values():
                for rec in attrs if isinstance(attrs, list) else [attrs]:
                    n[0] += 1
                    n[1] += sum(len(v) if isinstance(v, list) else 1 for v in rec.values())
    return dict(sorted(out.items()))


def whole_run(store_path: str | Path, run_iri: str, pairs: int, *,
              workdir: str | None = None, check: bool = True) -> dict[str, Any]:
    """The whole-run rows on the on-disk store at ``store_path`` (module docstring).

    Writes the run's statements as TriG (untimed), then ``pairs`` pairs of child
    processes: the prov package reading it and writing PROV-JSON, then provgraph's
    export. With ``check``, compares both files' content with the store's statements
    (:func:`content_check`, :func:`provjson_counts`; the last pair's files).

    Returns:
        ``{"pairs": paired_values(prov seconds, provgraph seconds), "cpu_pairs": the same
        for CPU seconds, "prov": [child results], "provgraph": [child results],
        "statements", "trig_bytes", "content": {"provgraph", "prov", "counts"}}``;
        ``pairs["ratio"]`` is the speed-up (the prov package's time / provgraph's).

    Raises:
        AssertionError: with ``check``, provgraph's file drops or adds a statement.
    """
    from provgraph.store import EmbeddedStore, serialize_quads
    from provgraph.terms import IRI

    tmp = Path(tempfile.mkdtemp(prefix="provgraph-bench-run-", dir=workdir))
    try:
        st = EmbeddedStore(store_path, read_only=True)
        try:
            statements = run_statements(st, run_iri)
        finally:
            st.close()
        trig = tmp / "run.trig"
        trig.write_bytes(serialize_quads([(s, p, o, IRI(run_iri)) for s, p, o in statements],
                                         "trig"))
        prov_out, pg_out = tmp / "prov.json", tmp / "provgraph.json"
        peer, ours = [], []
        for _ in range(pairs):
            peer.append(_spawn("provrdf", str(trig), str(prov_out)))
            ours.append(_spawn("export", str(store_path), run_iri, str(pg_out)))
        res: dict[str, Any] = {
            "pairs": pairing.paired_values([b["prov_s"] for b in peer], [a["run_s"] for a in ours]),
            "cpu_pairs": pairing.paired_values([b["cpu_s"] for b in peer],
                                               [a["cpu_s"] for a in ours]),
            "prov": peer, "provgraph": ours, "statements": len(statements),
            "trig_bytes": trig.stat().st_size}
        if check:
            pg_data, prov_data = pg_out.read_bytes(), prov_out.read_bytes()
            res["content"] = {"provgraph": content_check(statements, pg_data),
                              "prov": content_check(statements, prov_data),
                              "counts": {"provgraph": provjson_counts(pg_data),
                                         "prov": provjson_counts(prov_data)}}
            mine = res["content"]["provgraph"]
            assert mine["dropped"] == 0 and mine["extra"] == 0, (
                f"provgraph's run PROV-JSON differs from the store: {mine}")
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def claim_floor(raw_store: Any, claim: str, default_graph_iri: str | None) -> bytes:
    """The raw floor of one claim export: pyoxigraph alone doing the export's two reads
    (the claim's ``rdf:type`` statements, then :mod:`provgraph.io.bundle`'s closure query,
    the same text and ``VALUES`` clause) and serializing the statements found as N-Quads."""
    import pyoxigraph as ox

    from provgraph.io import bundle
    from provgraph.store import _with_values
    from provgraph.terms import IRI
    from provgraph.vocab import RDF

    list(raw_store.quads_for_pattern(ox.NamedNode(claim), ox.NamedNode(RDF.type), None))
    text = bundle._CLOSURE_QUERY if default_graph_iri is None else bundle._CLOSURE_QUERY_NAMED
    rows = raw_store.query(_with_values(text, "seed", [IRI(claim)]),
                           use_default_graph_as_union=True)
    dg = ox.DefaultGraph()
    return ox.serialize([ox.Quad(r[0], r[1], r[2], dg if r[3] is None else r[3]) for r in rows],
                        format=ox.RdfFormat.N_QUADS)


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


CONTENT_CHECK_MAX_ANSWERS = 2_000
"""Largest workload whose whole-run files are read back and compared with the store
(:func:`content_check`): at 10,000 answers reading both 100+ MB files back through the
prov package takes minutes and gigabytes, so there only the times are paired."""


def _provgraph_side(answers: int, n_claims: int, workdir: str | None, provjson: Path,
                    pairs: int) -> dict[str, Any]:
    """provgraph's measurements, each target row paired with its baseline A B A B
    (issue 16, item 8): claim bundles claim by claim against the prov package building
    and serializing the same claim's bundle in process and against the raw floor
    (:func:`claim_floor`), on the store opened read-only as the CLI opens it; ``pairs``
    whole-run exports against the prov package reading the run's PROV-O
    (:func:`whole_run`). The prov package's document for the import rows is built once
    (child process) into ``provjson``."""
    fn, why = find_exporter()
    if fn is None:
        return {"available": False, "reason": why}
    import pyoxigraph as ox

    from provgraph.store import EmbeddedStore

    root = Path(tempfile.mkdtemp(prefix="provgraph-bench-export-", dir=workdir))
    try:
        wl = w.Workload(answers)
        w.build_store(root / "store", wl).close()  # the Recorder's statements, bulk-loaded
        st = EmbeddedStore(root / "store", read_only=True)
        raw = ox.Store.read_only(str(root / "store" / "rdf"))
        ing = _ingested(wl)
        res: dict[str, Any] = {"available": True}
        times, base, floor = [], [], []
        for i in range(n_claims):
            a = i * max(1, answers // n_claims) % answers
            claim = wl.iri("claim", a, i % w.CLAIMS_PER_ANSWER)
            buf = io.BytesIO()
            t0 = time.perf_counter()
            _call_export(fn, st, buf, claim=claim)
            times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            pb = ProvBuilder(wl, ing)
            pb.answer(wl.spec(a), claims=(i % w.CLAIMS_PER_ANSWER,))
            pb.doc.serialize(io.StringIO(), format="json")
            base.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            claim_floor(raw, claim, st.default_graph_iri)
            floor.append(time.perf_counter() - t0)
        res["claim_ms_median"] = 1000 * statistics.median(times)
        res["claim_ms_p95"] = 1000 * _p95(times)
        res["claim_pairs"] = pairing.paired_values(times, base)
        res["claim_floor_pairs"] = pairing.paired_values(times, floor)
        res["prov_claim"] = {"claim_ms_median": 1000 * statistics.median(base),
                             "claim_ms_p95": 1000 * _p95(base)}
        st.close()
        del raw
        res["load_before"] = os.getloadavg()[0]
        run = whole_run(root / "store", wl.run_iri, pairs, workdir=str(root),
                        check=answers <= CONTENT_CHECK_MAX_ANSWERS)
        res["load_after"] = os.getloadavg()[0]
        res["whole_run"] = run
        exports = run["provgraph"]
        res.update(max(exports, key=lambda e: e["maxrss_mb"]))  # the largest peak
        res["run_s"] = run["pairs"]["b"]["median"]
        res["run_pairs"] = run["pairs"]
        res["prov_build"] = _spawn("build", str(answers), str(provjson))
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
    """Export benchmark on ``answers`` answers. Returns the prov package's numbers under
    ``prov`` (its build + serialize of the import rows' document, its reading it back, its
    claim bundles) and provgraph's under ``provgraph`` (``available: False`` with a reason
    when absent): ``whole_run`` (:func:`whole_run`: ``pairs`` A B pairs against the prov
    package reading the run's PROV-O; ``run_pairs`` its paired seconds, ratio = speed-up),
    ``claim_pairs`` and ``claim_floor_pairs`` (``n_claims`` pairs, ratio = provgraph /
    baseline)."""
    tmp = Path(tempfile.mkdtemp(prefix="provgraph-bench-provjson-", dir=workdir))
    try:
        path = tmp / "run.provjson"
        g = _provgraph_side(answers, n_claims, workdir, path, pairs)
        if g.get("available"):
            build = g.pop("prov_build")
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
                    "provrdf": lambda: _child_provrdf(*args),
                    "scan": lambda: _child_scan(*args),
                    "pgimport": lambda: _child_pgimport(*args)}
        print(json.dumps(children[kind]()))
    elif len(sys.argv) > 1 and sys.argv[1] == "--store":
        # manual use: python -m bench.bench_export --store DIR RUN [PAIRS]: the whole-run
        # rows on an existing store (the demo's: bench/bench_demo.py does this too)
        print(json.dumps(whole_run(sys.argv[2], sys.argv[3],
                                   int(sys.argv[4]) if len(sys.argv) > 4 else 3), indent=1))
    else:  # manual use: python -m bench.bench_export [ANSWERS]
        print(json.dumps(run(int(sys.argv[1]) if len(sys.argv) > 1 else 1000), indent=1))
