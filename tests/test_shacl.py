"""provgraph.shacl: a pipeline recorded by the Recorder conforms to the bundled shapes,
and the shapes catch what the recorder must never leave out."""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import hashlib
import io
from pathlib import Path
from typing import Any

import pytest

from provgraph.model import Hit, Segment
from provgraph.ontology import init_store
from provgraph.recorder import Recorder
from provgraph.runs import delete_run
from provgraph.shacl import ShaclReport, Violation, validate_shapes
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI, Literal, lit
from provgraph.vocab import GRAPH, OA, PG, PROV, RDF

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

MANUAL_V1 = "Pumps are serviced every 6 months.\nOnly certified staff may open the casing.\n"
MANUAL_V2 = "Pumps are serviced every 3 months.\nOnly certified staff may open the casing.\n"
FAQ_HTML = "<p>Spare seals cost 12.50 EUR.</p><p>Seals last 2 years.</p>"
FAQ_TEXT = "Spare seals cost 12.50 EUR.\nSeals last 2 years."


def t(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def record_pipeline(rec: Recorder, *, delete: bool = True) -> dict[str, Any]:
    """A small complete pipeline: two sources (one revised), an extraction each, chunks,
    a contextual prefix with its indexed representation, a query with a hypothetical
    document, a retrieval, context packing, a generation, four kinds of claims and
    their citations, and a deletion."""
    r: dict[str, Any] = {}
    r["manual_v1"] = rec.snapshot(MANUAL_V1.encode(), uri="https://example.org/manual.txt",
                                  media_type="text/plain; charset=utf-8", observed_at=t(0))
    r["manual_v2"] = rec.snapshot(MANUAL_V2.encode(), uri="https://example.org/manual.txt",
                                  media_type="text/plain; charset=utf-8", observed_at=t(30),
                                  revision_of=r["manual_v1"])
    r["faq"] = rec.snapshot(FAQ_HTML.encode(), uri="https://example.org/faq.html",
                            media_type="text/html", observed_at=t(1))
    r["ext_v1"] = rec.extraction(r["manual_v1"], parser=("plain-utf8", "1.0"), text=MANUAL_V1,
                                 ended_at=t(2))
    r["ext_v2"] = rec.extraction(r["manual_v2"], parser=("plain-utf8", "1.0"), text=MANUAL_V2,
                                 ended_at=t(31))
    # HTML: text ranges map back to the bytes inside the <p> elements
    r["ext_faq"] = rec.extraction(r["faq"], parser=("html-text", "2.1"), text=FAQ_TEXT,
                                  offset_map=[(0, 27, 3, 30), (28, 47, 37, 56)],
                                  config={"block_sep": "\n"}, started_at=t(2), ended_at=t(3))
    v1 = rec.chunking(r["ext_v1"], chunker=("lines", "1.0"), ranges=[(0, 35), (35, 77)],
                      parameters={"by": "line"}, ended_at=t(4))
    rec.chunking(r["ext_v2"], chunker=("lines", "1.0"), ranges=[(0, 35), (35, 77)],
                 parameters={"by": "line"}, ended_at=t(32))
    faq = rec.chunking(r["ext_faq"], chunker=("lines", "1.0"), ranges=[(0, 27), (28, 47)],
                       parameters={"by": "line"}, ended_at=t(4))
    r["c_service"], r["c_staff"] = v1
    r["c_price"], r["c_life"] = faq
    prefix_text = "From the pump manual, maintenance section:"
    r["prefix"] = rec.aid("contextual_prefix", text=prefix_text, model=("ctx-gen", "0.3"),
                          derived_from=[r["c_service"]], at=t(5))
    indexed_text = prefix_text + " " + r["c_service"].text
    r["indexed"] = rec.indexed(r["c_service"], text=indexed_text, embedder=("e5-small", "2"),
                               segments=[Segment(start=0, end=len(prefix_text), origin="generated",
                                                 source=r["prefix"]),
                                         Segment(start=len(prefix_text) + 1, end=len(indexed_text),
                                                 origin="original", source=r["c_service"])],
                               at=t(6))
    question = "How often are pumps serviced and what do seals cost?"
    r["query"] = rec.query(question, at=t(10))
    r["hyde"] = rec.aid("hypothetical_document", text="Pumps need service twice a year.",
                        model=("hyde-gen", "0.1"), derived_from=[r["query"]], at=t(10))
    r["retrieval"] = rec.retrieval(
        r["query"], retriever=("rank-bm25", "0.2.2"), index_version="idx-7", aids=[r["hyde"]],
        hits=[Hit(target=r["c_service"], rank=1, score=4.5), Hit(target=r["c_price"], rank=2, score=2.0),
              Hit(target=r["c_life"], rank=3)],
        started_at=t(11), ended_at=t(11))
    instruction = "Answer from the context only.\n"
    parts = [(instruction, "instruction", None), (prefix_text + "\n", "generated", r["prefix"]),
             (r["c_service"].text, "original", r["c_service"]),
             (r["c_price"].text + "\n", "original", r["c_price"]),
             (question, "query", r["query"])]
    prompt, segments = "", []
    for text, origin, source in parts:
        segments.append(Segment(start=len(prompt), end=len(prompt) + len(text), origin=origin,
                                source=source))
        prompt += text
    r["input"] = rec.context_packing(text=prompt, segments=segments, retrieval=r["retrieval"],
                                     template=("qa-template", "4"), omitted=[r["c_life"]],
                                     token_budget=1024, at=t(12))
    answer = ("\"Pumps are serviced every 6 months.\" Seals cost 12.50 EUR each. "
              "Two seals cost 25.00 EUR. I cannot say who may replace them.")
    r["answer"] = rec.generation(r["input"], model=("gen-model", "2025-05"), text=answer,
                                 settings={"temperature": 0.0, "max_tokens": 256},
                                 started_at=t(13), ended_at=t(14))

    def span(s: str) -> tuple[int, int]:
        i = answer.index(s)
        return i, i + len(s)

    s, e = span("Pumps are serviced every 6 months.")
    r["claim_quote"] = rec.claim(r["answer"], start=s, end=e, kind="quotation")
    s, e = span("Seals cost 12.50 EUR each.")
    r["claim_para"] = rec.claim(r["answer"], start=s, end=e, kind="paraphrase")
    s, e = span("Two seals cost 25.00 EUR.")
    r["claim_calc"] = rec.claim(r["answer"], start=s, end=e, kind="derivation",
                                derived_from=[r["claim_para"], r["c_price"]],
                                warrant="2 * 12.50 = 25.00")
    s, e = span("I cannot say who may replace them.")
    r["claim_abstain"] = rec.claim(r["answer"], start=s, end=e, kind="abstention",
                                   status="uncertain")
    r["cit_quote"] = rec.citation(r["claim_quote"], target=r["c_service"], start=0, end=34,
                                  unit="codepoint", quote="Pumps are serviced every 6 months.",
                                  suffix="\n")
    r["cit_snapshot"] = rec.citation(r["claim_quote"], target=r["manual_v1"], start=0, end=33,
                                     unit="utf8_byte", end_inclusive=True,
                                     pinned_sha256=hashlib.sha256(MANUAL_V1.encode()).hexdigest().upper())
    r["cit_para"] = rec.citation(r["claim_para"], target=r["c_price"], quote="12.50 EUR")
    r["cit_aid"] = rec.citation(r["claim_para"], target=r["prefix"])
    if delete:
        r["deletion"] = rec.deletion(r["faq"], at=t(90))
    return r


@pytest.fixture
def recorded():
    store = EmbeddedStore()
    rec = Recorder(store, label="shacl fixture", packages=[], config={"k": 3},
                   models={"generator": "gen-model@2025-05"}, code_revision="abc123",
                   started_at=t(0))
    records = record_pipeline(rec)
    records["run"] = rec.iri
    yield store, rec, records
    store.close()


def paths_and_messages(report: ShaclReport) -> str:
    return "\n".join(f"{v.path} | {v.message}" for v in report.violations)


def test_recorded_pipeline_conforms(recorded):
    store, _rec, _r = recorded
    report = validate_shapes(store)
    assert report.violations == [], paths_and_messages(report)
    assert report.conforms is True


def test_run_graph_and_ingestion_graph_each_conform(recorded):
    store, rec, _r = recorded
    for graph in (rec.iri, GRAPH.INGESTION):
        report = validate_shapes(store, graphs=[graph])
        assert report.conforms, paths_and_messages(report)
    assert validate_shapes(store, graphs=[rec.iri, GRAPH.INGESTION, rec.iri]).conforms


def test_second_run_over_the_same_ingestion_conforms(recorded):
    store, _rec, _r = recorded
    second = Recorder(store, label="second", packages=[], started_at=t(100))
    record_pipeline(second, delete=False)
    report = validate_shapes(store)
    assert report.conforms, paths_and_messages(report)


def test_second_run_recording_the_same_deletion_conforms(recorded):
    store, _rec, r = recorded
    second = Recorder(store, label="second", packages=[], started_at=t(100))
    second.deletion(r["faq"].iri, at=t(90))
    report = validate_shapes(store)
    assert report.conforms, paths_and_messages(report)


def test_a_deleted_runs_removal_record_conforms(recorded):
    # the removals graph keeps the run as a pg:RemovedRun: the pg:Run facts went with its graph
    store, rec, _r = recorded
    delete_run(store, rec.iri, reason="a test")
    report = validate_shapes(store, graphs=[GRAPH.REMOVALS])
    assert report.violations == [], paths_and_messages(report)
    assert {q[2] for q in store.quads(rec.iri, RDF.type, None, GRAPH.REMOVALS)} == {
        PROV.Bundle, PROV.Entity, PG.RemovedRun}


def test_ontology_graph_is_not_validated(recorded):
    store, _rec, _r = recorded
    assert init_store(store) > 0
    assert validate_shapes(store).conforms


def test_citation_naming_nothing_recorded_has_no_target_and_is_a_violation(recorded):
    store, rec, r = recorded
    cit = rec.citation(r["claim_para"], target="doc-3", quote="12.50 EUR")
    assert cit.target is None
    assert not list(store.quads(cit.iri, PG.target))
    report = validate_shapes(store)
    assert report.conforms is False
    about_target = [v for v in report.violations
                    if v.path == PG.target.n3() or "pg:target" in v.message]
    assert about_target, paths_and_messages(report)
    v = about_target[0]
    assert v.focus_node == cit.iri
    assert v.path == f"<{PG.target}>"
    assert v.value is None
    assert v.severity == "Violation"
    assert v.shape == IRI("https://w3id.org/provgraph/shapes#Citation-target")
    # only that citation is wrong
    assert {x.focus_node for x in report.violations} == {cit.iri}


def test_snapshot_missing_sha256_is_flagged(recorded):
    store, _rec, r = recorded
    snap = r["manual_v2"].iri
    quads = list(store.quads(snap, PG.sha256))
    assert len(quads) == 1
    store.remove(quads)
    report = validate_shapes(store)
    assert not report.conforms
    assert [(v.focus_node, v.path) for v in report.violations] == [(snap, PG.sha256.n3())]
    assert "pg:sha256" in report.violations[0].message


def _replace(store: EmbeddedStore, subject: IRI, predicate: IRI, new: Any) -> None:
    old = list(store.quads(subject, predicate))
    assert old, (subject, predicate)
    store.remove(old)
    store.add([(subject, predicate, new, old[0][3])])


def _remove(store: EmbeddedStore, subject: IRI | None, predicate: IRI, obj: Any = None) -> None:
    old = list(store.quads(subject, predicate, obj))
    assert old, (subject, predicate, obj)
    store.remove(old)


BREAKAGES = [
    pytest.param(lambda s, r: _replace(s, r["faq"].iri, PG.sha256, lit("ABCDEF")),
                 "SourceSnapshot-sha256", id="digest-not-64-lowercase-hex"),
    pytest.param(lambda s, r: _replace(s, r["faq"].iri, PG.byteSize,
                                       Literal("many", "http://www.w3.org/2001/XMLSchema#integer")),
                 "SourceSnapshot-byteSize", id="ill-typed-byte-size"),
    pytest.param(lambda s, r: _remove(s, r["manual_v1"].iri, PROV.specializationOf),
                 "SourceSnapshot-specializationOf", id="snapshot-without-document"),
    pytest.param(lambda s, r: _remove(s, r["ext_faq"].iri, PROV.wasAssociatedWith),
                 "Extraction-parser", id="extraction-without-parser"),
    pytest.param(lambda s, r: _remove(s, r["ext_faq"].text_iri, PG.offsetMap),
                 "ExtractedText-offsetMap", id="text-without-offset-map"),
    pytest.param(lambda s, r: _remove(s, r["c_price"].iri, OA.hasSelector),
                 "Chunk-hasSelector", id="chunk-without-selector"),
    pytest.param(lambda s, r: _replace(s, r["c_price"].iri, PG.text, lit("Spare seals")),
                 "ChunkShape", id="chunk-text-not-its-range"),
    pytest.param(lambda s, r: _remove(s, r["hyde"].iri, PROV.wasGeneratedBy),
                 "GeneratedAid-model", id="aid-without-model"),
    pytest.param(lambda s, r: s.add([(r["claim_para"].iri, PROV.wasQuotedFrom, r["prefix"].iri,
                                      r["run"])]),
                 "GeneratedAid-neverQuoted", id="quotation-from-generated-aid"),
    pytest.param(lambda s, r: _remove(s, r["retrieval"].iri, PROV.used, r["query"].iri),
                 "Retrieval-query", id="retrieval-without-query"),
    pytest.param(lambda s, r: _remove(s, IRI(f"{r['retrieval'].iri}#hit-2"), PG.rank),
                 "RankedUsage-rank", id="hit-without-rank"),
    pytest.param(lambda s, r: _replace(s, IRI(f"{r['input'].iri}#segment-1"), PG.origin,
                                       lit("model")),
                 "Segment-origin", id="unknown-segment-origin"),
    pytest.param(lambda s, r: _remove(s, IRI(f"{r['input'].iri}#segment-2"), PG.segmentSource),
                 "SegmentSourceShape", id="original-segment-without-source"),
    pytest.param(lambda s, r: _remove(s, r["answer"].generation, PROV.wasAssociatedWith),
                 "Generation-model", id="generation-without-model"),
    pytest.param(lambda s, r: _replace(s, r["claim_para"].iri, PG.claimKind, lit("summary")),
                 "Claim-claimKind", id="unknown-claim-kind"),
    pytest.param(lambda s, r: _replace(s, r["claim_para"].iri, PG.claimStatus, lit("true")),
                 "Claim-claimStatus", id="unknown-claim-status"),
    pytest.param(lambda s, r: _replace(s, r["claim_para"].iri, PG.text, lit("Seals are cheap.")),
                 "ClaimShape", id="claim-text-not-its-answer-span"),
    pytest.param(lambda s, r: _remove(s, None, PG.warrant),
                 "DerivationClaimShape", id="derivation-without-warrant"),
    pytest.param(lambda s, r: _replace(s, r["cit_quote"].iri, PG.offsetUnit, lit("chars")),
                 "Citation-offsetUnit", id="unknown-offset-unit"),
    pytest.param(lambda s, r: _remove(s, r["cit_quote"].iri, PG.offsetUnit),
                 "CitationRangeShape", id="range-without-unit"),
    pytest.param(lambda s, r: s.add([(r["cit_quote"].iri, PG.outcome, lit("match"), r["run"])]),
                 "Citation-outcome", id="unknown-outcome"),
    pytest.param(lambda s, r: (delete_run(s, r["run"]),
                               _remove(s, r["run"], PROV.invalidatedAtTime)),
                 "RemovedRun-invalidatedAtTime", id="removed-run-without-time"),
    pytest.param(lambda s, r: (delete_run(s, r["run"]),
                               s.add([(IRI(r["run"]), PROV.invalidatedAtTime, lit(T0),
                                       GRAPH.REMOVALS)])),
                 "RemovedRun-invalidatedAtTime", id="removed-run-with-two-times"),
    pytest.param(lambda s, r: (delete_run(s, r["run"]), _remove(s, None, RDF.type, PG.Removal)),
                 "RemovedRun-invalidatedBy", id="removed-run-not-by-a-removal"),
]


@pytest.mark.parametrize(("breakage", "shape"), BREAKAGES)
def test_shapes_catch_breakage(recorded, breakage, shape):
    store, _rec, r = recorded
    breakage(store, r)
    report = validate_shapes(store)
    assert not report.conforms
    shapes = {str(v.shape).rsplit("#", 1)[-1] for v in report.violations}
    assert shape in shapes, paths_and_messages(report)
    assert all(v.message for v in report.violations)


def test_resolver_outcome_is_accepted(recorded):
    store, rec, r = recorded
    store.add([(r["cit_quote"].iri, PG.outcome, lit("quote_match"), rec.iri),
               (r["cit_quote"].iri, PG.resolvedSnapshot, r["manual_v1"].iri, rec.iri),
               (r["cit_quote"].iri, PG.resolvedByteStart, lit(0), rec.iri),
               (r["cit_quote"].iri, PG.resolvedByteEnd, lit(34), rec.iri)])
    assert validate_shapes(store).conforms


def test_report_types_are_frozen(recorded):
    store, rec, r = recorded
    rec.citation(r["claim_quote"], target="[4]")
    report = validate_shapes(store)
    assert isinstance(report.violations[0], Violation)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.conforms = True  # type: ignore[misc]
    assert report.messages()[0].endswith(report.violations[0].message)


def test_empty_store_conforms():
    with EmbeddedStore() as store:
        assert validate_shapes(store) == ShaclReport(conforms=True, violations=[])


def test_shacl_module_does_not_import_pyoxigraph():
    source = Path(__file__).resolve().parents[1] / "provgraph" / "shacl.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert "pyoxigraph" not in imported


class _Trickle(io.BytesIO):
    """Standard input as a pipe gives it: a few bytes at a time, cutting characters."""

    def read1(self, size: int = -1) -> bytes:
        return super().read1(5)


def test_the_engine_reads_the_text_as_ascii_with_the_same_statements():
    """issue 16, item 2: the engine's process escapes each character past ASCII as it reads
    (an ASCII str goes to the engine without a second UTF-8 copy); the statements are the
    same, and a block where one may be in a blank node label is kept as it is."""
    import pyoxigraph

    from provgraph._shacl_engine import read_text

    def statements(text: bytes) -> set[Any]:
        return set(pyoxigraph.parse(text, pyoxigraph.RdfFormat.N_TRIPLES))

    lines = ['<urn:x:é> <urn:x:p> "naïve \\" café\\n\\\\ ÿ 😀"@fr .',
             '<urn:x:a> <urn:x:p> "x"^^<urn:x:typ€> .',
             '<urn:x:a> <urn:x:p> "x _:é is no label" .',
             '<urn:x:a> <urn:x:p> _:b1 .', '<urn:x:a> <urn:x:p> "plain" .']
    data = ("\n".join(lines) + "\n").encode()
    for stream in (io.BytesIO(data), _Trickle(data), _Trickle(data.rstrip(b"\n"))):
        assert statements(read_text(stream).encode()) == statements(data)
    # the pipe gives one line a block here: each line is escaped but the look-alike one
    by_line = read_text(_Trickle(data)).splitlines()
    assert by_line[0] == ('<urn:x:\\u00E9> <urn:x:p> "na\\u00EFve \\" caf\\u00E9\\n\\\\ '
                          '\\u00FF \\U0001F600"@fr .')
    assert by_line[1] == '<urn:x:a> <urn:x:p> "x"^^<urn:x:typ\\u20AC> .'
    assert by_line[2:] == lines[2:]
    assert read_text(io.BytesIO(b"".join(x.encode() + b"\n" for x in lines[3:]))).isascii()
    labelled = '_:bé <urn:x:p> "é" .\n<urn:x:a> <urn:x:p> _:bé .\n'.encode()
    kept = read_text(io.BytesIO(labelled))
    assert kept == labelled.decode() and statements(kept.encode()) == statements(labelled)
    with pytest.raises(UnicodeDecodeError):
        read_text(io.BytesIO(b'<urn:x:a> <urn:x:p> "\xff" .\n'))


def test_validate_stops_a_started_engine_it_was_given_when_the_run_is_unknown():
    """provgraph validate starts the SHACL engine before it opens the store and hands it
    to validate(), which owns it from then on: an error stops its process."""
    from provgraph.errors import NotFound
    from provgraph.shacl import ShapesData
    from provgraph.validate import validate

    with EmbeddedStore() as store:
        engine = ShapesData().start()
        process = engine._engine
        assert process is not None and process.poll() is None
        with pytest.raises(NotFound):
            validate(store, "urn:x:no-such-run", shapes_data=engine)
        assert process.poll() is not None and engine._engine is None
        started = ShapesData().start()
        report = validate(store, shapes_data=started)
        assert report.shacl is not None and report.shacl.conforms
