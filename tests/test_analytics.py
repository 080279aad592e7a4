"""provgraph.analytics on recorded pipelines with known ground truth: exact rows."""

from __future__ import annotations

import dataclasses

import datetime as dt

import pytest

from provgraph import NotFound, QueryParameterError, analytics, ids
from provgraph.analytics import (
    CoverageRow, ExposureRow, GeneratedEvidenceRow, ImpactRow, StaleRow, UnsupportedRow,
)
from provgraph.errors import AgentNotFound
from provgraph.terms import IRI, lit
from provgraph.vocab import PG

from . import pipeline, query_scenarios as sc

UTC = dt.timezone.utc
RUN = IRI(pipeline.RUN)


def agent(role: str, name: str, version: str) -> IRI:
    return ids.content_iri("agent", role, name, version)


def chunking_of(ext) -> IRI:
    return ids.content_iri("chunking", ext.text_iri, "lines", "1.0", {"by": "line"})


# ------------------------------------------------------------------ lineage

def test_lineage_of_a_claim_is_everything_upstream_with_depths(recorded):
    store, _, r = recorded
    gen = ids.content_iri("generation", r["answer"].iri)
    packing = ids.content_iri("packing", r["input"].iri)
    ext_p, ext_f = r["ext_policy"], r["ext_faq"]
    rows = analytics.lineage(store, r["claim_quote"].iri)
    got = [(x.depth, x.kind, x.node, x.relation, x.parent) for x in rows]
    cl1, ct1, gi = r["claim_quote"].iri, r["cit1"].iri, r["input"].iri
    assert got == [
        (0, "Claim", cl1, None, None),
        (1, "Answer", r["answer"].iri, "pg:answer", cl1),
        (1, "Citation", ct1, "pg:citation", cl1),
        (1, "Generation", gen, "prov:wasGeneratedBy", cl1),
        (2, "Chunk", r["c_interval"].iri, "pg:target", ct1),
        (2, "GeneratorInput", gi, "prov:used", gen),
        (2, "Model", agent("model", "extractive", "1.0"), "prov:wasAssociatedWith", gen),
        (3, "Chunk", r["c_engineer"].iri, "prov:wasDerivedFrom", gi),
        (3, "Chunking", chunking_of(ext_p), "prov:wasGeneratedBy", r["c_interval"].iri),
        (3, "ContextPacking", packing, "prov:wasGeneratedBy", gi),
        (3, "ContextualPrefix", r["prefix"].iri, "prov:wasDerivedFrom", gi),
        (3, "ExtractedText", ext_p.text_iri, "prov:wasDerivedFrom", r["c_interval"].iri),
        (4, "AidGeneration", ids.content_iri("aid-generation", r["prefix"].iri),
         "prov:wasGeneratedBy", r["prefix"].iri),
        (4, "Chunker", agent("chunker", "lines", "1.0"), "prov:wasAssociatedWith", chunking_of(ext_p)),
        (4, "Extraction", ext_p.iri, "prov:wasGeneratedBy", ext_p.text_iri),
        (4, "PromptTemplate", agent("prompt_template", "qa-template", "3"),
         "prov:wasAssociatedWith", packing),
        (4, "Retrieval", r["retrieval"].iri, "prov:wasInformedBy", packing),
        (4, "SourceSnapshot", r["policy_v1"].iri, "prov:wasDerivedFrom", ext_p.text_iri),
        (5, "Chunk", r["c_faq_a"].iri, "prov:used", r["retrieval"].iri),
        (5, "Document", r["policy_v1"].document, "prov:specializationOf", r["policy_v1"].iri),
        (5, "HypotheticalDocument", r["hyde"].iri, "prov:used", r["retrieval"].iri),
        (5, "Model", agent("model", "ctx-gen", "0.1"), "prov:wasAssociatedWith",
         ids.content_iri("aid-generation", r["prefix"].iri)),
        (5, "Observation", ids.content_iri("observation", r["policy_v1"].sha256),
         "prov:wasGeneratedBy", r["policy_v1"].iri),
        (5, "Parser", agent("parser", "plain-utf8", "1.0"), "prov:wasAssociatedWith", ext_p.iri),
        (5, "Query", r["query"].iri, "prov:used", r["retrieval"].iri),
        (5, "Retriever", agent("retriever", "rank-bm25", "0.2.2"), "prov:wasAssociatedWith",
         r["retrieval"].iri),
        (6, "AidGeneration", ids.content_iri("aid-generation", r["hyde"].iri),
         "prov:wasGeneratedBy", r["hyde"].iri),
        (6, "Chunking", chunking_of(ext_f), "prov:wasGeneratedBy", r["c_faq_a"].iri),
        (6, "ExtractedText", ext_f.text_iri, "prov:wasDerivedFrom", r["c_faq_a"].iri),
        (7, "Extraction", ext_f.iri, "prov:wasGeneratedBy", ext_f.text_iri),
        (7, "Model", agent("model", "hyde-gen", "0.1"), "prov:wasAssociatedWith",
         ids.content_iri("aid-generation", r["hyde"].iri)),
        (7, "SourceSnapshot", r["faq"].iri, "prov:wasDerivedFrom", ext_f.text_iri),
        (8, "Document", r["faq"].document, "prov:specializationOf", r["faq"].iri),
        (8, "Observation", ids.content_iri("observation", r["faq"].sha256),
         "prov:wasGeneratedBy", r["faq"].iri),
    ]
    labels = {x.node: x.label for x in rows}
    assert labels[cl1] == "code points [1, 42) quotation (supported)"
    assert labels[ct1] == f"target {r['c_interval'].iri}"
    assert labels[r["c_interval"].iri] == "code points [21, 63)"
    assert labels[ext_p.iri] == "by plain-utf8 1.0"
    assert labels[agent("parser", "plain-utf8", "1.0")] == "plain-utf8 1.0"
    assert labels[r["policy_v1"].iri] == (f"sha256:{r['policy_v1'].sha256} "
                                          "observed 2026-03-01T09:00:00Z")
    assert labels[r["policy_v1"].document] == "https://example.org/policy.md"


def test_lineage_max_depth_and_revisions(recorded):
    store, _, r = recorded
    rows = analytics.lineage(store, r["claim_quote"].iri, max_depth=1)
    assert [(x.depth, x.kind) for x in rows] == [(0, "Claim"), (1, "Answer"), (1, "Citation"),
                                                 (1, "Generation")]
    assert [x.kind for x in analytics.lineage(store, r["claim_quote"].iri, max_depth=0)] == ["Claim"]
    # an older revision is upstream of the newer snapshot (prov:wasRevisionOf)
    v2 = analytics.lineage(store, r["policy_v2"].iri)
    assert [(x.depth, x.kind, x.node, x.relation) for x in v2] == [
        (0, "SourceSnapshot", r["policy_v2"].iri, None),
        (1, "Document", r["policy_v2"].document, "prov:specializationOf"),
        (1, "Observation", ids.content_iri("observation", r["policy_v2"].sha256), "prov:wasGeneratedBy"),
        (1, "SourceSnapshot", r["policy_v1"].iri, "prov:wasRevisionOf"),
        (2, "Observation", ids.content_iri("observation", r["policy_v1"].sha256), "prov:wasGeneratedBy"),
    ]


def test_lineage_of_an_unknown_or_malformed_iri_is_an_error(recorded):
    store, _, _ = recorded
    with pytest.raises(NotFound, match="urn:uuid:nope"):
        analytics.lineage(store, "urn:uuid:nope")
    with pytest.raises(QueryParameterError, match="not an absolute IRI"):
        analytics.lineage(store, "not an iri")


# ------------------------------------------------------------------ stale

def test_stale_tells_the_changed_span_from_the_unchanged_one(recorded):
    store, _, r = recorded
    v2_time = dt.datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    assert analytics.stale(store) == [
        StaleRow(run=RUN, claim=r["claim_quote"].iri, snapshot=r["policy_v1"].iri, kind="updated",
                 newest=r["policy_v2"].iri, changed_at=v2_time, span_unchanged=False),
        StaleRow(run=RUN, claim=r["claim_para"].iri, snapshot=r["policy_v1"].iri, kind="updated",
                 newest=r["policy_v2"].iri, changed_at=v2_time, span_unchanged=True),
    ]


def test_deletion_makes_exactly_the_citing_claims_stale(recorded):
    store, rec, r = recorded
    sc.deletion(rec, r)
    v2_time = dt.datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    assert analytics.stale(store) == [
        StaleRow(run=RUN, claim=r["claim_quote"].iri, snapshot=r["policy_v1"].iri, kind="updated",
                 newest=r["policy_v2"].iri, changed_at=v2_time, span_unchanged=False),
        StaleRow(run=RUN, claim=r["claim_para"].iri, snapshot=r["policy_v1"].iri, kind="updated",
                 newest=r["policy_v2"].iri, changed_at=v2_time, span_unchanged=True),
        StaleRow(run=RUN, claim=r["claim_para"].iri, snapshot=r["faq"].iri, kind="deleted",
                 newest=None, changed_at=pipeline.t(200), span_unchanged=False),
    ]


def test_deleting_a_revised_document_makes_its_claims_deleted_not_updated(recorded):
    store, rec, r = recorded
    rec.deletion(r["policy_v2"], at=pipeline.t(400))
    assert [(x.claim, x.snapshot, x.kind, x.newest, x.changed_at, x.span_unchanged)
            for x in analytics.stale(store)] == [
        (r["claim_quote"].iri, r["policy_v1"].iri, "deleted", None, pipeline.t(400), False),
        (r["claim_para"].iri, r["policy_v1"].iri, "deleted", None, pipeline.t(400), False)]


def test_stale_over_a_revision_chain_names_the_newest_snapshot(recorded):
    store, rec, r = recorded
    v3_text = pipeline.POLICY_V2.replace("12 months", "6 months")
    v3 = rec.snapshot(v3_text.encode(), uri="https://example.org/policy.md",
                      media_type="text/markdown", observed_at=pipeline.t(300),
                      revision_of=r["policy_v2"])
    rows = analytics.stale(store)
    assert [(x.claim, x.snapshot, x.newest, x.changed_at, x.span_unchanged) for x in rows] == [
        (r["claim_quote"].iri, r["policy_v1"].iri, v3.iri, pipeline.t(300), False),
        (r["claim_para"].iri, r["policy_v1"].iri, v3.iri, pipeline.t(300), True),
    ]


def test_stale_spans_are_checked_citation_by_citation(recorded):
    store, rec, r = recorded
    ans = r["answer"].iri

    def claim(name, **kw):
        return rec.claim(ans, start=0, end=1, text='"', iri=sc.iri(name), **kw)

    # the changed chunk, quoted where it did not change: unchanged
    same = claim("cls1", kind="quotation")
    rec.citation(same, target=r["c_interval"], quote="The inspection interval is", iri=sc.iri("cts1"))
    # the changed chunk by code point range over the changed words: changed
    rng = claim("cls2", kind="paraphrase")
    rec.citation(rng, target=r["c_interval"], start=27, end=40, unit="codepoint", iri=sc.iri("cts2"))
    # the snapshot itself by UTF-8 byte range over an unchanged sentence: unchanged
    raw = claim("cls3", kind="paraphrase")
    at = pipeline.POLICY_V1.index("Boilers")
    rec.citation(raw, target=r["policy_v1"], start=at, end=at + 21, unit="utf8_byte",
                 iri=sc.iri("cts3"))
    # the extracted text by an inclusive code point range over the changed sentence: changed
    ext = claim("cls4", kind="paraphrase")
    at = pipeline.POLICY_V1.index("The inspection")
    rec.citation(ext, target=r["ext_policy"].text_iri, start=at, end=at + 40, unit="codepoint",
                 end_inclusive=True, iri=sc.iri("cts4"))
    # a derivation from the changed chunk, and one from a claim that cites it: changed
    d1 = claim("cls5", kind="derivation", derived_from=[r["c_interval"]], warrant="restated")
    d2 = claim("cls6", kind="derivation", derived_from=[r["claim_quote"]], warrant="restated")
    # derivations from the extracted text and from the snapshot itself: changed
    d3 = claim("cls8", kind="derivation", derived_from=[r["ext_policy"].text_iri], warrant="sum")
    d4 = claim("cls9", kind="derivation", derived_from=[r["policy_v1"]], warrant="sum")
    # a citation of the prompt, which derives from the changed chunk: cannot be told
    gi = claim("cls7", kind="paraphrase")
    rec.citation(gi, target=r["input"], start=30, end=40, unit="codepoint", iri=sc.iri("cts7"))
    got = {x.claim: x.span_unchanged for x in analytics.stale(store)}
    assert got == {r["claim_quote"].iri: False, r["claim_para"].iri: True, same.iri: True,
                   rng.iri: False, raw.iri: True, ext.iri: False, d1.iri: False, d2.iri: False,
                   d3.iri: False, d4.iri: False, gi.iri: None}


def test_stale_run_filter_and_unknown_run(recorded):
    store, _, r = recorded
    upgrade = sc.parser_upgrade(store, r)
    # run 2's claim y cites c_engineer of policy_v1, so it is stale too
    assert [(x.run, x.claim, x.span_unchanged) for x in analytics.stale(store, run=sc.RUN2)] == [
        (IRI(sc.RUN2), upgrade["y"].iri, True)]
    assert {x.claim for x in analytics.stale(store, run=pipeline.RUN)} == {
        r["claim_quote"].iri, r["claim_para"].iri}
    with pytest.raises(NotFound, match="run <urn:uuid:nope>"):
        analytics.stale(store, run="urn:uuid:nope")


# ------------------------------------------------------------------ impact

def test_parser_upgrade_impact_is_exactly_the_claims_that_went_through_it(recorded):
    store, _, r = recorded
    up = sc.parser_upgrade(store, r)
    run2 = IRI(sc.RUN2)
    p2 = agent("parser", "plain-utf8", "2.0")
    p1 = agent("parser", "plain-utf8", "1.0")
    assert analytics.impact(store, "plain-utf8", version="2.0") == [
        ImpactRow(run=run2, claim=up["x"].iri, agent=p2, agent_name="plain-utf8", agent_version="2.0"),
        ImpactRow(run=run2, claim=up["z"].iri, agent=p2, agent_name="plain-utf8", agent_version="2.0"),
    ]
    assert [(x.run, x.claim) for x in analytics.impact(store, "plain-utf8", version="1.0")] == [
        (RUN, r["claim_quote"].iri), (RUN, r["claim_para"].iri), (RUN, r["claim_bad"].iri),
        (run2, up["y"].iri), (run2, up["z"].iri)]
    both = analytics.impact(store, "plain-utf8")
    assert [(x.claim, x.agent, x.agent_version) for x in both if x.run == run2] == [
        (up["x"].iri, p2, "2.0"), (up["y"].iri, p1, "1.0"), (up["z"].iri, p1, "1.0"),
        (up["z"].iri, p2, "2.0")]
    assert [x.claim for x in analytics.impact(store, "plain-utf8", version="2.0", run=pipeline.RUN)] == []


def test_impact_of_each_agent_role(recorded):
    store, _, r = recorded
    fixture_claims = [r["claim_quote"].iri, r["claim_para"].iri, r["claim_bad"].iri]
    for name in ("lines", "rank-bm25", "qa-template", "extractive", "ctx-gen", "hyde-gen"):
        assert [x.claim for x in analytics.impact(store, name)] == fixture_claims, name


def test_impact_of_an_unknown_agent_is_an_error(recorded):
    store, _, _ = recorded
    with pytest.raises(AgentNotFound, match="agent 'docutils' is not in the store"):
        analytics.impact(store, "docutils")
    with pytest.raises(AgentNotFound, match="recorded versions: '1.0'"):
        analytics.impact(store, "plain-utf8", version="9.9")


# ------------------------------------------------------------------ unsupported, coverage

def test_unsupported_in_the_fixture_is_the_claim_citing_generated_text(recorded):
    store, _, r = recorded
    assert analytics.unsupported(store) == [
        UnsupportedRow(run=RUN, claim=r["claim_bad"].iri, kind="paraphrase", claimed_status="unsupported",
                       citations=1, reason="no_eligible_citation")]


def test_unsupported_counts_uncited_claims_and_respects_outcomes(recorded):
    store, rec, r = recorded
    o = sc.outcomes_and_claims(rec, r)
    assert analytics.unsupported(store) == [
        UnsupportedRow(run=RUN, claim=r["claim_quote"].iri, kind="quotation", claimed_status="supported",
                       citations=1, reason="no_eligible_citation"),
        UnsupportedRow(run=RUN, claim=r["claim_bad"].iri, kind="paraphrase", claimed_status="unsupported",
                       citations=1, reason="no_eligible_citation"),
        UnsupportedRow(run=RUN, claim=o["uncited"].iri, kind="paraphrase", claimed_status="supported",
                       citations=0, reason="uncited"),
        UnsupportedRow(run=RUN, claim=o["raw"].iri, kind="quotation", claimed_status="supported",
                       citations=1, reason="no_eligible_citation"),
    ]


def _coverage(rows: list[CoverageRow]) -> dict[str, tuple[int, int, str]]:
    return {x.measure: (x.count, x.denominator, x.of) for x in rows}


def test_coverage_of_the_fixture_states_its_denominators(recorded):
    store, _, _ = recorded
    rows = analytics.coverage(store)
    assert {x.run for x in rows} == {RUN}
    assert [x.measure for x in rows] == [
        "claims", "cited_claims", "quoting_claims", "verified_quotations", "citations",
        "unresolved", "quote_match", "normalized_match", "quote_mismatch", "generated_target",
        "snapshot_mismatch", "unresolved_range", "unresolved_id", "ambiguous", "orphaned",
        "located", "context_not_extracted"]
    assert _coverage(rows) == {
        "claims": (3, 3, "claims"), "cited_claims": (3, 3, "claims"),
        "quoting_claims": (3, 3, "claims"), "verified_quotations": (0, 3, "quoting_claims"),
        "citations": (4, 4, "citations"), "unresolved": (4, 4, "citations"),
        **{o: (0, 4, "citations") for o in (
            "quote_match", "normalized_match", "quote_mismatch", "generated_target",
            "snapshot_mismatch", "unresolved_range", "unresolved_id", "ambiguous", "orphaned",
            "located", "context_not_extracted")}}
    assert rows[1] == CoverageRow(run=RUN, measure="cited_claims", count=3, denominator=3,
                                  of="claims", share=1.0)


def test_coverage_after_resolution(recorded):
    store, rec, r = recorded
    sc.outcomes_and_claims(rec, r)
    sc.parser_upgrade(store, r)
    rows = analytics.coverage(store)
    fixture = _coverage([x for x in rows if x.run == RUN])
    # 8 claims: 3 of the fixture + cl4..cl8; cited: 3 + cl8; quoting: cl1 (kind), cl2 and cl3
    # (quoted citations), cl8 (kind); verified: cl2 (prov:wasQuotedFrom)
    assert fixture["claims"] == (8, 8, "claims")
    assert fixture["cited_claims"] == (4, 8, "claims")
    assert fixture["quoting_claims"] == (4, 8, "claims")
    assert fixture["verified_quotations"] == (1, 4, "quoting_claims")
    assert fixture["citations"] == (5, 5, "citations")
    assert fixture["unresolved"] == (2, 5, "citations")
    assert fixture["quote_match"] == fixture["normalized_match"] == fixture["quote_mismatch"] == (
        1, 5, "citations")
    assert fixture["orphaned"] == fixture["located"] == (0, 5, "citations")
    run2 = _coverage(analytics.coverage(store, run=sc.RUN2))
    assert run2["claims"] == (3, 3, "claims") and run2["cited_claims"] == (2, 3, "claims")
    assert run2["quoting_claims"] == (0, 3, "claims")
    assert [x.share for x in analytics.coverage(store, run=sc.RUN2)
            if x.measure == "verified_quotations"] == [None]


# ------------------------------------------------------------------ generated evidence, exposure

def test_generated_evidence_in_the_fixture(recorded):
    store, _, r = recorded
    assert analytics.generated_evidence(store) == [
        GeneratedEvidenceRow(run=RUN, claim=r["claim_bad"].iri, citation=r["cit4"].iri,
                             target=r["prefix"].iri, basis="generated_target", aid=r["prefix"].iri,
                             aid_type="ContextualPrefix", segment=None)]


def test_generated_ranges_of_prompt_and_indexed_text(recorded):
    store, rec, r = recorded
    g = sc.generated_cases(rec, r)
    seg = IRI(f"{r['input'].iri}#segment-1")
    rows = analytics.generated_evidence(store)
    got = {(x.claim, x.citation, x.target, x.basis, x.aid, x.aid_type, x.segment) for x in rows}
    prefix = r["prefix"].iri
    assert got == {
        (r["claim_bad"].iri, r["cit4"].iri, prefix, "generated_target", prefix, "ContextualPrefix", None),
        (g["g1"].iri, g["cit_g1"].iri, r["input"].iri, "generated_range", prefix, "ContextualPrefix", seg),
        (g["g3"].iri, g["cit_g3"].iri, r["input"].iri, "generated_range", prefix, "ContextualPrefix", seg),
        (g["g4"].iri, g["cit_g4"].iri, r["input"].iri, "generated_range", prefix, "ContextualPrefix", seg),
        (g["g5"].iri, g["cit_g5"].iri, g["indexed"].iri, "generated_range", prefix, "ContextualPrefix",
         IRI(f"{g['indexed'].iri}#segment-0")),
        (g["g6"].iri, None, prefix, "generated_quotation", prefix, "ContextualPrefix", None),
    }
    assert len(rows) == 6  # g2 (a range of original text) is not generated evidence


def test_exposure_reports_labels_and_unlabelled_aids(recorded):
    store, rec, r = recorded
    gen1 = ids.content_iri("generation", r["answer"].iri)
    a = len("Answer from the context.\n")
    assert analytics.exposure(store) == [
        ExposureRow(run=RUN, generation=gen1, answer=r["answer"].iri, generator_input=r["input"].iri,
                    aid=r["prefix"].iri, aid_type="ContextualPrefix", label="generated",
                    start=a, end=a + len(pipeline.PREFIX_TEXT))]
    e = sc.exposure_cases(rec, r)
    gen2 = ids.content_iri("generation", e["answer"].iri)
    rows = [x for x in analytics.exposure(store) if x.generation == gen2]
    head = len("Context:\n")
    assert [(x.aid, x.aid_type, x.label, x.start, x.end) for x in rows] == [
        (r["prefix"].iri, "ContextualPrefix", "original", head, head + len(pipeline.PREFIX_TEXT)),
        (r["hyde"].iri, "HypotheticalDocument", "unlabelled", e["hyde_start"],
         e["hyde_start"] + len(pipeline.HYDE_TEXT)),
    ]
    assert rows[0].answer == e["answer"].iri and rows[0].generator_input == e["input"].iri


# ------------------------------------------------------------------ rows and runs

def test_rows_have_stable_columns_and_json_values(recorded):
    store, _, r = recorded
    row = analytics.stale(store)[0]
    assert StaleRow.columns() == ("run", "claim", "snapshot", "kind", "newest", "changed_at",
                                  "span_unchanged")
    d = row.to_dict()
    assert d["changed_at"] == "2026-03-01T10:00:00+00:00" and type(d["claim"]) is str
    assert d["span_unchanged"] is False


def test_many_rows_print_as_each_row_prints(demo_store_path):
    """dicts_of (the CLI's and rows_as_dicts' batch conversion, which converts each
    distinct text and time once) gives exactly each row's to_dict, on every row type of
    the demo store, times in two zones at one instant included."""
    import datetime as dt

    from provgraph import EmbeddedStore
    from provgraph._rows import dicts_of

    s = EmbeddedStore(demo_store_path, read_only=True)
    try:
        sets = [analytics.stale(s), analytics.impact(s, "provgraph-demo-rst"),
                analytics.generated_evidence(s), analytics.coverage(s),
                analytics.unsupported(s), analytics.exposure(s)]
        rows = [r for rs in sets for r in rs]
        assert len({type(r) for r in rows}) == len(sets) and all(sets)
        utc = rows[0].changed_at
        assert utc is not None
        moved = dataclasses.replace(rows[0], changed_at=utc.astimezone(
            dt.timezone(dt.timedelta(hours=2))))  # the same instant, another zone
        rows += [moved, rows[0]]
        assert dicts_of(rows) == [r.to_dict() for r in rows]
        assert dicts_of(rows)[-2]["changed_at"] != dicts_of(rows)[-1]["changed_at"]
        assert analytics.rows_as_dicts(rows) == [r.to_dict() for r in rows]
    finally:
        s.close()


@pytest.mark.parametrize("fn", [analytics.unsupported, analytics.generated_evidence,
                                analytics.coverage, analytics.exposure])
def test_every_run_filter_rejects_unknown_and_malformed_runs(recorded, fn):
    store, _, _ = recorded
    with pytest.raises(NotFound, match="run <urn:uuid:0000>"):
        fn(store, run="urn:uuid:0000")
    with pytest.raises(QueryParameterError):
        fn(store, run="x> } ; DROP ALL ; <y")
    assert fn(store, run=pipeline.RUN) == fn(store)


def test_outcome_written_in_another_graph_still_counts(recorded):
    # the resolver may write outcomes in its own graph; queries read the union of graphs
    store, _, r = recorded
    other = IRI("urn:provgraph:graph:resolver")
    store.add([(r["cit2"].iri, PG.outcome, lit("quote_mismatch"), other),
               (r["cit3"].iri, PG.outcome, lit("ambiguous"), other)])
    assert [x.claim for x in analytics.unsupported(store)] == [r["claim_para"].iri, r["claim_bad"].iri]
