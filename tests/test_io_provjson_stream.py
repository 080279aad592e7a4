"""The streaming PROV-JSON writer (provgraph/io/provjson_stream.py) against the general
mapping (provo.quads_to_document + the prov package): for every bundle it writes, the
digest it computes without reading its output back must be the digest
verify_bundle recomputes from the file, and the file must read back as the same
statements as the general path's file."""

from __future__ import annotations

import io
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provgraph.io import bundle as bundle_mod
from provgraph.io import provjson_stream, read
from provgraph.io.bundle import export, verify_bundle
from provgraph.io.load import import_document
from provgraph.io.provjson_stream import NotStreamable, nt_line
from provgraph.store import EmbeddedStore, rdfc_canonical_nquads
from provgraph.terms import IRI, Literal
from provgraph.kinds import RUN_TYPES
from provgraph.vocab import PROV, RDF

from .conftest import shared_cases
from .io_helpers import canon


class Paths:
    """Exports through the streaming path and through the general path, counting
    which bundles the streaming path took."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.mp = monkeypatch
        self.streamed = 0
        self.fell_back = 0

    def general(self, store, **kw):
        def refuse(*a, **k):
            raise NotStreamable("forced: the general path")

        with self.mp.context() as m:
            m.setattr(bundle_mod, "_stream_provjson", refuse)
            return export(store, "prov-json", **kw)

    def streamed_or_none(self, store, **kw):
        real = bundle_mod._stream_provjson
        took: list[bool] = []

        def spy(*a, **k):
            try:
                got = real(*a, **k)
            except NotStreamable:
                took.append(False)
                raise
            took.append(True)
            return got

        with self.mp.context() as m:
            m.setattr(bundle_mod, "_stream_provjson", spy)
            result = export(store, "prov-json", **kw)
        if took == [True]:
            self.streamed += 1
            return result
        self.fell_back += 1
        return None

    def agree(self, store, label, **kw) -> None:
        fast = self.streamed_or_none(store, **kw)
        if fast is None:
            return
        slow = self.general(store, **kw)
        assert (fast.digest, fast.statements, fast.bundle) == (
            slow.digest, slow.statements, slow.bundle), label
        check = verify_bundle(fast.data, name=label)
        assert check.ok and check.actual == fast.digest, (label, check)
        assert canon(read(fast.data, "prov-json").quads) == canon(
            read(slow.data, "prov-json").quads), label


@pytest.fixture
def paths(monkeypatch):
    return Paths(monkeypatch)


def _claims(store):
    rows = store.select("SELECT DISTINCT ?c WHERE { ?c a <https://w3id.org/provgraph/ns#Claim> }")
    return sorted(r["c"] for r in rows)


def test_fixture_pipeline_claims_and_run_agree_with_the_general_path(rag_store, paths):
    store, r = rag_store
    claims = _claims(store)
    assert len(claims) >= 3
    for c in claims:
        paths.agree(store, c, claim=c)
    paths.agree(store, "run", run=r["run"])
    assert paths.streamed == len(claims) + 1 and paths.fell_back == 0


def test_the_benchmark_workload_streams_and_agrees(tmp_path, paths):
    from bench import workload as w

    wl = w.Workload(12)
    store = EmbeddedStore(tmp_path / "s")
    w.record_workload(store, wl)
    for i in range(0, 12, 5):
        for k in range(w.CLAIMS_PER_ANSWER):
            paths.agree(store, f"claim {i}/{k}", claim=wl.iri("claim", i, k))
    paths.agree(store, "run", run=wl.run_iri)
    assert paths.fell_back == 0
    store.close()


def test_a_run_spooled_to_temporary_files_is_the_same_file(rag_store, monkeypatch):
    store, r = rag_store
    run = r["run"]
    whole = export(store, "prov-json", run=run)
    monkeypatch.setattr(provjson_stream, "SPOOL_BYTES", 64)
    real_digest = bundle_mod._Digest
    monkeypatch.setattr(bundle_mod, "_Digest", lambda b: real_digest(b, limit=7))
    out = io.BytesIO()
    spooled = export(store, "prov-json", run=run, out=out)
    assert spooled.data == b"" and out.getvalue() == whole.data
    assert spooled.digest == whole.digest and verify_bundle(out.getvalue()).ok


def test_a_run_read_ahead_in_any_batches_is_the_same_file(tmp_path, monkeypatch):
    """The run walk reads its subjects ahead in batches (bundle._Reads over
    subject_pairs_batch, issue 16 item 7): with at most 10 subjects held (many reads, the
    look-ahead cut short at every level) and one subject a read (the walk's reads before
    the batches), the file is the same byte for byte; the default reads a few batches."""
    from bench import workload as w

    wl = w.Workload(12)
    store = EmbeddedStore(tmp_path / "s")
    w.record_workload(store, wl)
    calls: list[int] = []
    real_batch = store.subject_pairs_batch

    def counted(subjects, **kw):
        calls.append(len(subjects))
        return real_batch(subjects, **kw)

    monkeypatch.setattr(store, "subject_pairs_batch", counted)
    whole = export(store, "prov-json", run=wl.run_iri).data
    default_reads, subjects = len(calls), sum(calls)
    assert default_reads <= 12 and subjects > 500, calls
    real_reads = bundle_mod._Reads
    calls.clear()
    monkeypatch.setattr(bundle_mod, "_Reads", lambda *a: real_reads(*a, limit=5))
    assert export(store, "prov-json", run=wl.run_iri).data == whole
    assert len(calls) > 10 * default_reads and max(calls) <= 11 and sum(calls) == subjects
    calls.clear()
    monkeypatch.setattr(real_reads, "pos", lambda self, s: bundle_mod._pos(store, s))
    assert export(store, "prov-json", run=wl.run_iri).data == whole and not calls
    store.close()


def test_blank_nodes_fall_back_to_the_general_path(paths):
    store = EmbeddedStore()
    import_document(store, b"""@prefix prov: <http://www.w3.org/ns/prov#> .
        <http://example.org/b> a prov:Entity ; prov:qualifiedDerivation [ a prov:Derivation ;
            prov:entity <http://example.org/a> ; <http://example.org/why> "copied" ] .
        <http://example.org/a> a prov:Entity .""", "turtle")
    assert paths.streamed_or_none(store, claim="http://example.org/b") is None
    result = export(store, "prov-json", claim="http://example.org/b")
    assert verify_bundle(result.data).ok and paths.fell_back == 1


@pytest.mark.shared
def test_every_shared_prov_case_streams_or_falls_back_and_agrees(paths):
    root = shared_cases("prov")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    for path in files:
        store = EmbeddedStore()
        try:
            import_document(store, path.read_bytes(), name=str(path))
        except Exception:  # noqa: BLE001 - the rejected cases are test_io_cases' business
            store.close()
            continue
        name = path.relative_to(root).as_posix()
        bundles = {q[0] for q in store.quads(None, RDF.type) if str(q[2]) in RUN_TYPES}
        subjects = sorted({q[0] for q in store.quads() if isinstance(q[0], IRI)} - bundles)
        for s in subjects[:25]:  # a bundle is exported as run= (claim= refuses it: issue 17)
            paths.agree(store, f"{name} claim {s}", claim=s)
        for g in store.named_graphs():
            paths.agree(store, f"{name} run {g}", run=g)
        store.close()
    # the cases are full of blank nodes and edge shapes: both paths must be exercised
    assert paths.streamed > 150 and paths.fell_back > 100, (paths.streamed, paths.fell_back)


_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=40) | st.text(
    alphabet=string.printable + "\x00\x01\x08\x0b\x0c\x1f\x7f\u2028\ufeff\U0001f600", max_size=40)


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, kind=st.sampled_from(["plain", "lang", "typed", "json"]))
def test_canonical_lines_equal_the_engine_rdfc_form(text, kind):
    o = {"plain": Literal(text), "lang": Literal(text, None, "en-gb"),
         "typed": Literal(text, "http://example.org/dt"),
         "json": Literal(text, "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON")}[kind]
    s, p = IRI("urn:x:s"), IRI("http://example.org/p")
    assert nt_line(s, p, o) + "\n" == rdfc_canonical_nquads([(s, p, o, None)])


def test_nt_line_of_an_iri_object():
    assert nt_line(IRI("urn:x:s"), PROV.used, IRI("urn:x:o")) + "\n" == rdfc_canonical_nquads(
        [(IRI("urn:x:s"), PROV.used, IRI("urn:x:o"), None)])


# The whole-run PROV-JSON files as the exporter wrote them before it was made faster
# (issue 16, item 7): a change to the exporter must leave every byte as it was. If the
# demo pipeline or the benchmark workload itself changes (different statements), re-pin
# these from the exporter at the commit before the change, never from the changed one.
RUN_FILES = {
    "workload 12": ("d9af1d874a896b807b7c4f276db1d15878fa248b3572292d8698843132118e78", 340894),
    "workload 30": ("e903d65b255c97a8748188f28b9d2d9effbe988eb14fa92179d4e7e8752407a4", 724336),
    "demo": ("75b6ed09240611e8d1ccd9633c527beeabf496e0896b9c26337a095db525c863", 1546700),
}


def _run_file(store, run) -> tuple[str, int]:
    import hashlib

    data = export(store, "prov-json", run=run).data
    out = io.BytesIO()
    assert export(store, "prov-json", run=run, out=out).digest and out.getvalue() == data
    return hashlib.sha256(data).hexdigest(), len(data)


@pytest.mark.parametrize("answers", [12, 30])
def test_the_workload_run_file_is_byte_for_byte_the_pinned_one(tmp_path, answers):
    from bench import workload as w

    wl = w.Workload(answers)
    store = EmbeddedStore(tmp_path / "s")
    w.record_workload(store, wl)
    assert _run_file(store, wl.run_iri) == RUN_FILES[f"workload {answers}"]
    store.close()


def test_the_demo_run_file_is_byte_for_byte_the_pinned_one(tmp_path):
    from bench.bench_demo import _qa_run
    from provgraph.demo import run_demo

    run_demo(tmp_path / "demo", quiet=True)
    store = EmbeddedStore(tmp_path / "demo", read_only=True)
    try:
        assert _run_file(store, IRI(_qa_run(tmp_path / "demo"))) == RUN_FILES["demo"]
    finally:
        store.close()
