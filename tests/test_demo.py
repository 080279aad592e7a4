"""The demo's ground truth: what the reference pipeline recorded over the Flask docs,
checked against the recorded store (run once per module)."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from provgraph import EmbeddedStore
from provgraph.cli import cli
from provgraph.demo import MARKER, run_demo
from provgraph.demo.corpus import PAGES, RELEASES, corpus_dir, load_questions, page_bytes
from provgraph.demo.rst import PARSER_V1, PARSER_V2, extract_rst
from provgraph.errors import ProvgraphError
from provgraph.terms import IRI, term_value

from .test_packaging import _run_outside_checkout, wheel_site  # noqa: F401 (fixture)

ABSTAINING = {"q20", "q21", "q22", "q23"}
STALE = {
    "q01": {"updated"}, "q04": {"updated"}, "q09": {"updated"}, "q16": {"updated"},
    "q05": {"deleted"}, "q06": {"deleted"}, "q12": {"deleted"},
    "q02": {"cited span unchanged"}, "q03": {"cited span unchanged"},
    "q07": {"cited span unchanged"}, "q10": {"cited span unchanged"},
    "q11": {"cited span unchanged"}, "q13": {"cited span unchanged"},
    "q14": {"cited span unchanged"}, "q15": {"cited span unchanged"},
    "q17": {"cited span unchanged"}, "q18": {"cited span unchanged"},
    "q19": {"cited span unchanged"},
}
PARSER_AFFECTED = {"q10", "q11", "q16"}
RESOLVER_OUTCOMES = {  # question -> outcomes of its citations (policy whitespace)
    "quote_match": {"q03", "q10", "q18", "q19"},
    "normalized_match": {"q01", "q02", "q04", "q05", "q06", "q07", "q08", "q09", "q11", "q12"},
    "located": {"q13", "q14", "q15", "q16", "q17"},
    "generated_target": {"q24", "q25"},
}
GENERATED_TARGET = {"q24", "q25"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    # the pipeline's statements only: the evaluation step is tested in test_demo_evaluation.py
    return run_demo(tmp_path_factory.mktemp("demo") / "store", quiet=True, evaluation=False)


@pytest.fixture
def store(demo):
    s = EmbeddedStore(demo.store_path)
    yield s
    s.close()


# ------------------------------------------------------------------ corpus
def test_corpus_files_are_the_ones_sources_md_lists():
    root = corpus_dir()
    listed = dict(re.findall(r"^\| ((?:Flask-2\.0\.3|flask-3\.0\.3)/\S+) \| ([0-9a-f]{64}) \|$",
                             (root / "SOURCES.md").read_text(), re.M))
    on_disk = {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in sorted(root.glob("[Ff]lask-*/**/*")) if p.is_file()}
    assert listed == on_disk
    assert len(on_disk) == 14 + 11
    assert "BSD" in (root / "SOURCES.md").read_text()
    assert (root / "LICENSE.rst").read_text().startswith("Copyright 2010 Pallets")
    assert sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) < 3_000_000


def test_every_page_exists_in_the_first_release_and_three_are_removed_in_the_second():
    old, new = RELEASES
    assert all(page_bytes(old, p) for p in PAGES)
    assert [p for p in PAGES if page_bytes(new, p) is None] == [
        "docs/security.rst", "docs/foreword.rst", "docs/becomingbig.rst"]
    assert page_bytes(old, "docs/shell.rst") == page_bytes(new, "docs/shell.rst")


def test_question_set_covers_every_answer_type():
    qs = load_questions()
    kinds = [q.expect for q in qs]
    assert len(qs) >= 20
    assert kinds.count("quotation") == 12 and kinds.count("paraphrase") == 5
    assert kinds.count("derivation") == 2 and kinds.count("abstention") == 4
    assert kinds.count("stress_generated") == 2


# ------------------------------------------------------------------ parser
@pytest.mark.parametrize("page", PAGES)
def test_offset_map_segments_are_verbatim_source_bytes(page):
    data = page_bytes(RELEASES[0], page)
    ex = extract_rst(data, PARSER_V1)
    for ts, te, bs, be in ex.offset_map:
        assert data[bs:be].decode("utf-8") == ex.text[ts:te]
    mapped = sum(te - ts for ts, te, _, _ in ex.offset_map)
    non_space = sum(1 for c in ex.text if not c.isspace())
    assert mapped >= 0.97 * non_space


def test_parser_upgrade_renders_function_references_with_parentheses():
    data = page_bytes(RELEASES[0], "docs/quickstart.rst")
    assert "use the url_for function." in extract_rst(data, PARSER_V1).text
    assert "use the url_for() function." in extract_rst(data, PARSER_V2).text


def test_recorded_offset_maps_point_at_identical_bytes(store):
    rows = store.select("""PREFIX pg: <https://w3id.org/provgraph/ns#>
        PREFIX prov: <http://www.w3.org/ns/prov#>
        SELECT ?t ?map ?tsha ?ssha WHERE { ?t a pg:ExtractedText ; pg:offsetMap ?map ;
          pg:sha256 ?tsha ; prov:wasDerivedFrom ?s . ?s pg:sha256 ?ssha }""")
    assert len(rows) == 2 * (14 + 10)  # every snapshot, parsers 1.0 and 1.1
    for r in rows:
        text = store.originals.get(term_value(r["tsha"])).decode()
        src = store.originals.get(term_value(r["ssha"]))
        for ts, te, bs, be in term_value(r["map"]):
            assert src[bs:be].decode() == text[ts:te]


# ------------------------------------------------------------------ answers
def test_answered_questions_cite_the_expected_page(demo):
    for q in demo.questions.values():
        pages = {p for ps in q.cited_pages for p in ps}
        if q.expect == "abstention":
            assert pages == set() and q.abstained, q.id
        else:
            assert pages == {q.page}, q.id
            assert not q.abstained


def test_abstentions(demo):
    assert demo.questions_of(demo.abstentions) == ABSTAINING
    for qid in ABSTAINING:
        assert demo.questions[qid].answer.startswith("Not stated in the sources")
        assert demo.questions[qid].claim_kinds == ["abstention"]


def test_claim_kinds(demo):
    kinds = {qid: q.claim_kinds for qid, q in demo.questions.items()}
    assert kinds["q01"] == ["quotation"] and kinds["q13"] == ["paraphrase"]
    assert kinds["q18"] == ["quotation", "quotation", "derivation"]
    assert kinds["q19"] == ["quotation", "derivation"]
    assert demo.questions["q18"].answer == (
        'Flask 1.0 was "Released 2018-04-26" [3] and Flask 2.0.0 was "Released 2021-05-11" [2]; '
        "1111 days passed between the two releases.")


def test_derivation_is_recorded_with_operands_and_warrant(demo, store):
    q = demo.questions["q18"]
    derived = IRI(q.claims[2])
    rows = store.select("""PREFIX prov: <http://www.w3.org/ns/prov#>
        PREFIX pg: <https://w3id.org/provgraph/ns#>
        SELECT ?claim ?op ?warrant WHERE { ?claim prov:qualifiedDerivation ?d .
          ?d prov:entity ?op ; pg:warrant ?warrant }""", {"claim": derived})
    assert sorted(str(r["op"]) for r in rows) == sorted(q.claims[:2])
    assert {term_value(r["warrant"]) for r in rows} == {
        "calendar days between ISO 8601 dates: |2021-05-11 - 2018-04-26| = 1111 days"}


def test_quotes_are_the_cited_chunk_text(demo):
    for qid, q in demo.questions.items():
        for claim in q.claims:
            for cit in demo.facts[claim].citations:
                if cit.cited_text and demo.facts[claim].kind == "quotation":
                    assert demo.facts[claim].text == cit.cited_text, qid


# ------------------------------------------------------------------ audit ground truth
def test_stale_claims(demo):
    assert demo.stale_by_question() == STALE
    assert "q08" not in demo.stale_by_question()  # shell.rst is byte-identical in 3.0.3


def test_claims_affected_by_the_parser_change(demo):
    assert demo.questions_of(demo.parser_affected) == PARSER_AFFECTED


def test_generated_targets(demo, store):
    assert {demo.citation_question[c] for c in demo.generated_targets} == GENERATED_TARGET
    for cit in demo.generated_targets:
        fact = next(c for f in demo.facts.values() for c in f.citations if c.iri == cit)
        assert "https://w3id.org/provgraph/ns#ContextualPrefix" in fact.types
        assert fact.cited_text.startswith("From the Flask 2.0.3 documentation")
        assert not any(fact.cited_text in page_bytes(RELEASES[0], p).decode() for p in PAGES)
    # the stress condition is labelled in the recorded generation settings
    gen = store.select("""PREFIX pg: <https://w3id.org/provgraph/ns#>
        PREFIX prov: <http://www.w3.org/ns/prov#>
        SELECT ?claim ?s WHERE { ?claim prov:wasGeneratedBy ?g . ?g pg:settings ?s }""",
                       {"claim": IRI(demo.questions["q24"].claims[0])})
    assert term_value(gen[0]["s"])["stress_condition"] == (
        "generated contextual prefixes read as source text")


def test_resolver_outcomes(demo, store):
    finding = demo.findings["resolver"]
    assert finding.available
    by_question: dict[str, set[str]] = {}
    for cit, outcome in finding.extra["by_citation"].items():
        by_question.setdefault(outcome, set()).add(demo.citation_question[cit])
    assert by_question == RESOLVER_OUTCOMES
    assert finding.value == {"quote_match": 5, "normalized_match": 10, "located": 5,
                             "generated_target": 2}
    generated = {c for c, o in finding.extra["by_citation"].items() if o == "generated_target"}
    assert generated == demo.generated_targets
    # only verified quotes got prov:wasQuotedFrom, written in the run's graph
    rows = store.select("""PREFIX prov: <http://www.w3.org/ns/prov#>
        SELECT ?claim ?snap WHERE { ?claim prov:wasQuotedFrom ?snap }""")
    quoted = {demo.claim_question[str(r["claim"])] for r in rows}
    assert quoted == RESOLVER_OUTCOMES["quote_match"] | RESOLVER_OUTCOMES["normalized_match"]


def test_prov_json_bundle_of_the_lineage_claim(demo):
    from provgraph.io.bundle import verify_bundle

    finding = demo.findings["prov_json"]
    path = finding.value
    assert path == demo.store_path / "exports" / "q01-claim.prov.json"
    data = path.read_bytes()
    check = verify_bundle(data, "prov-json")
    assert check.ok and check.subject == demo.questions["q01"].claims[0]
    assert check.actual == finding.extra["digest"]
    doc = json.loads(data)  # PROV-JSON names things by prefixed names
    bundle = doc["bundle"]["bundle:" + str(finding.extra["bundle"]).rsplit(":", 1)[1]]
    claim = "uuid:" + demo.questions["q01"].claims[0].removeprefix("urn:uuid:")
    assert claim in bundle["entity"]
    assert {"used", "wasDerivedFrom", "wasGeneratedBy", "wasAssociatedWith", "agent"} <= set(bundle)


def test_runs_and_deletions_recorded(demo, store):
    assert sorted(demo.runs) == ["flask-docs-qa", "flask-docs-update", "parser-upgrade"]
    rows = store.select("""PREFIX prov: <http://www.w3.org/ns/prov#>
        PREFIX pg: <https://w3id.org/provgraph/ns#>
        SELECT ?doc WHERE { ?doc a pg:Document ; prov:wasInvalidatedBy ?d }""")
    assert sorted(str(r["doc"]).rsplit(":", 1)[1] for r in rows) == [
        "docs/becomingbig.rst", "docs/foreword.rst", "docs/security.rst"]
    revisions = store.select("""PREFIX prov: <http://www.w3.org/ns/prov#>
        SELECT ?new ?old WHERE { ?new prov:wasRevisionOf ?old }""")
    assert len(revisions) == 10  # 14 pages - 3 removed - shell.rst unchanged


# ------------------------------------------------------------------ runs and the CLI
def test_a_second_run_writes_the_same_statements(demo, store, tmp_path):
    again = run_demo(tmp_path / "again", quiet=True, evaluation=False)
    other = EmbeddedStore(again.store_path)
    try:
        assert other.canonical_nquads() == store.canonical_nquads()
    finally:
        other.close()
    assert again.stale == demo.stale and again.generated_targets == demo.generated_targets
    assert again.findings["prov_json"].value.read_bytes() == demo.findings["prov_json"].value.read_bytes()


def test_demo_store_is_marked_and_other_directories_are_never_deleted(demo, tmp_path, runner):
    assert (demo.store_path / MARKER).is_file()
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "keep.txt").write_text("mine")
    with pytest.raises(ProvgraphError, match="is not a demo store"):
        run_demo(precious, quiet=True)
    result = runner.invoke(cli, ["demo", "--store", str(precious)])
    assert result.exit_code == 2
    assert "is not a demo store" in result.output
    assert (precious / "keep.txt").read_text() == "mine"


def test_missing_library_modules_are_reported_not_faked():
    from provgraph.demo.findings import optional_module

    assert optional_module("provgraph.no_such_module") == (
        None, "(not available: provgraph.no_such_module missing)")
    assert optional_module("provgraph.analytics", "no_such_function")[1] == (
        "(not available: provgraph.analytics.no_such_function missing)")


def test_every_library_finding_is_available(demo):
    assert {n: f.available for n, f in demo.findings.items()} == dict.fromkeys(
        ("resolver", "lineage", "stale", "impact", "generated_evidence", "prov_json"), True)


def test_library_stale_agrees_with_the_ground_truth(demo):
    rows = demo.findings["stale"].value
    kinds: dict[str, set[str]] = {}
    for r in rows:
        kinds.setdefault(demo.claim_question[str(r.claim)], set()).add(r.kind)
    assert kinds == {q: {"deleted" if c == {"deleted"} else "updated"} for q, c in STALE.items()}
    # the library's span check agrees with the ground truth for every claim that cites
    # text; a claim resting only on derivation operands may be unknown (None)
    for r in rows:
        if r.kind != "updated":
            continue
        truth = demo.stale[str(r.claim)]
        if r.span_unchanged is not None:
            assert r.span_unchanged is (truth == "cited span unchanged"), r


def test_library_impact_of_the_old_parser_covers_every_claim(demo):
    rows = demo.findings["impact"].value
    assert {str(r.claim) for r in rows} == set(demo.facts)
    assert {(r.agent_name, r.agent_version) for r in rows} == {PARSER_V1.agent}
    assert demo.parser_affected < set(demo.facts)


def test_library_generated_evidence(demo):
    rows = demo.findings["generated_evidence"].value
    assert {str(r.citation) for r in rows} == demo.generated_targets
    assert {(r.basis, r.aid_type) for r in rows} == {("generated_target", "ContextualPrefix")}


def test_library_lineage_of_the_quoted_claim(demo):
    rows = demo.findings["lineage"].value
    old = demo.pipeline.v1["docs/installation.rst"]
    by_node = {str(r.node): r for r in rows}
    assert by_node[old.snapshot.iri].kind == "SourceSnapshot"
    assert old.snapshot.sha256 in by_node[old.snapshot.iri].label
    assert "2022-03-01T09:00:00Z" in by_node[old.snapshot.iri].label
    assert by_node[old.snapshot.document].kind == "Document"
    assert by_node[old.extraction.iri].label == "by provgraph-demo-rst 1.0"
    assert {r.label for r in rows if r.kind == "Parser"} == {"provgraph-demo-rst 1.0"}
    assert demo.pipeline.v2["docs/installation.rst"].snapshot.iri not in by_node


def test_demo_bundles_stream_and_agree_with_the_general_path(store, monkeypatch):
    from .test_io_provjson_stream import Paths

    paths = Paths(monkeypatch)
    claims = [r["c"] for r in store.select(
        "SELECT DISTINCT ?c WHERE { ?c a <https://w3id.org/provgraph/ns#Claim> }")]
    runs = [r["g"] for r in store.select(
        "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?g a <https://w3id.org/provgraph/ns#Run> } }")]
    assert len(claims) > 25 and runs
    for c in sorted(claims):
        paths.agree(store, c, claim=c)
    for g in runs:
        paths.agree(store, g, run=g)
    assert (paths.streamed, paths.fell_back) == (len(claims) + len(runs), 0)


def test_a_plain_resolve_keeps_the_demo_results(demo, tmp_path, runner):
    """Issue 17: 'provgraph --store .provgraph-demo resolve' (default policy exact) turned
    the 10 normalized_match into quote_mismatch and changed the q01 claim bundle's digest,
    because the demo resolved under whitespace without recording that policy on its
    citations. The citations now declare it, so any later resolve reaches the same verdicts."""
    import shutil

    from provgraph.io.bundle import export
    from provgraph.resolve import resolve_run

    copy = tmp_path / "demo-copy"
    shutil.copytree(demo.store_path, copy)
    res = runner.invoke(cli, ["--store", str(copy), "resolve", "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    counts = {r["outcome"]: r["citations"] for r in json.loads(res.stdout) if r["citations"]}
    assert counts == demo.findings["resolver"].value
    assert "0 statements added, 0 removed" in res.stderr  # the same resolution, not a new one
    s = EmbeddedStore(copy)
    try:
        again = resolve_run(s, demo.runs["flask-docs-qa"])  # the library's default: exact
        assert {str(c.iri): r.outcome for c, r in again.items} == (
            demo.findings["resolver"].extra["by_citation"])
        claim = demo.questions["q01"].claims[0]
        assert export(s, "prov-json", claim=claim).digest == demo.findings["prov_json"].extra["digest"]
    finally:
        s.close()


def test_both_shacl_engines_agree_on_the_demo_store(store):
    # issue 16: the SPARQL-based constraints run once over the data graph; the results
    # are those of the single-engine path (every constraint in pyshacl), with their count
    import collections

    from provgraph import shacl

    triples = [(q[0], q[1], q[2]) for q in shacl._quads_of(store, None)]
    data = shacl.ShapesData()
    data.add(triples)
    new, ref = data.validate(), shacl._reference_report(triples)
    assert collections.Counter((v, type(v.focus_node), type(v.value)) for v in new.violations) \
        == collections.Counter((v, type(v.focus_node), type(v.value)) for v in ref.violations)
    assert new.conforms == ref.conforms
