"""provgraph.evaluation and 'provgraph metrics' (issue 18): metrics on a run with known
counts (tests/eval_runs.py), and agreement with 'coverage' and 'unsupported'."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from provgraph import EmbeddedStore, Recorder
from provgraph.analytics import coverage, unsupported
from provgraph.cli import cli
from provgraph.evaluation import METRICS, metrics
from provgraph.resolve import resolve_run

from . import eval_runs


def _by_metric(rows):
    return {r.metric: r for r in rows}


def test_known_counts_per_run(evaluated):
    store, _ = evaluated
    m = _by_metric(metrics(store))
    assert list(m) == list(METRICS)
    got = {k: (r.numerator, r.denominator, r.excluded) for k, r in m.items()}
    assert got == {
        # c1, c4 (uncertain), c6 (abstention), c8 (derivation) of 8; c2, c3, c5, c7 unsupported
        "claim_coverage": (4, 8, 0),
        # a1: c1, c2 cited of c1-c4; a3: c7 of c7, c8; a2 (no citations) and c6 excluded
        "cited_claim_rate": (3, 6, 2),
        "quotation_fidelity": (1, 3, 5),       # c1 verified of c1, c2, c7
        "generated_target_rate": (1, 3, 0),    # cit7 of three resolved
        "locator_precision": (1, 1, 2),        # cit1; cit2 (mismatch), cit7 (generated) not located
        "freshness_compliance": (3, 3, 5),     # c1, c2, c8 cite the snapshot
        "transformation_completeness": (8, 8, 0),
        "correct_abstention": (None, None, 0),
        "contradiction_visibility": (None, None, 0),
    }
    assert m["claim_coverage"].value == 0.5
    assert m["quotation_fidelity"].value == 0.3333
    assert "1 claim of 1 answer without citations" in m["cited_claim_rate"].note
    assert m["correct_abstention"].value is None
    assert m["correct_abstention"].note.startswith("undefined: no answerability labels recorded")


def test_cited_claim_rate_is_undefined_not_zero_for_an_answer_without_citations(evaluated):
    store, r = evaluated
    rows = [x for x in metrics(store, by="question") if x.metric == "cited_claim_rate"]
    per_answer = {x.group: x for x in rows}
    assert set(per_answer) == {r["a1"].iri, r["a2"].iri, r["a3"].iri}
    a2 = per_answer[r["a2"].iri]
    assert (a2.numerator, a2.denominator, a2.value) == (0, 0, None)
    assert a2.note.startswith("undefined:") and a2.question == "Is ice cold?"
    assert (per_answer[r["a1"].iri].numerator, per_answer[r["a1"].iri].denominator) == (2, 4)
    # the unsupported uncited claim of a2 (c5) still counts against claim coverage
    cov = {x.group: x for x in metrics(store, by="question") if x.metric == "claim_coverage"}
    assert (cov[r["a2"].iri].numerator, cov[r["a2"].iri].denominator) == (1, 2)


def test_per_question_sums_to_the_run(evaluated):
    store, _ = evaluated
    run = _by_metric(metrics(store))
    per_q = metrics(store, by="question")
    for name in ("claim_coverage", "quotation_fidelity", "generated_target_rate",
                 "locator_precision", "freshness_compliance", "transformation_completeness"):
        rows = [x for x in per_q if x.metric == name]
        assert sum(x.numerator or 0 for x in rows) == run[name].numerator, name
        assert sum(x.denominator or 0 for x in rows) == run[name].denominator, name


def test_by_outcome_shares_of_resolved_citations(evaluated):
    store, _ = evaluated
    rows = {x.group: (x.numerator, x.denominator) for x in metrics(store, by="outcome")}
    assert rows["quote_match"] == (1, 3) and rows["quote_mismatch"] == (1, 3)
    assert rows["generated_target"] == (1, 3) and rows["located"] == (0, 3)


def test_unresolved_citations_are_excluded_and_said(store):
    eval_runs.record(store)  # not resolved
    m = _by_metric(metrics(store))
    assert (m["generated_target_rate"].denominator, m["generated_target_rate"].excluded) == (0, 3)
    assert m["generated_target_rate"].value is None
    assert "run 'provgraph resolve'" in m["generated_target_rate"].note


def test_freshness_after_a_revision_and_the_max_age_window(evaluated):
    store, r = evaluated
    rec = Recorder(store, packages=[], label="update")
    rec.snapshot(b"Water boils at 99 C.\n", uri="https://example.org/water.txt",
                 media_type="text/plain", observed_at=eval_runs.T0 + dt.timedelta(days=30),
                 revision_of=r["snap"])
    f = _by_metric(metrics(store, runs=[r["run"]]))["freshness_compliance"]
    assert (f.numerator, f.denominator) == (0, 3)
    as_of = eval_runs.T0 + dt.timedelta(days=40)
    within = _by_metric(metrics(store, runs=[r["run"]], max_age=dt.timedelta(days=41),
                                as_of=as_of))["freshness_compliance"]
    assert (within.numerator, within.denominator) == (3, 3)
    outside = _by_metric(metrics(store, runs=[r["run"]], max_age=dt.timedelta(days=39),
                                 as_of=as_of))["freshness_compliance"]
    assert outside.numerator == 0


def test_transformation_completeness_names_what_is_missing(store):
    rec = Recorder(store, packages=[])
    gi = rec.context_packing(text="q", segments=[])  # no template, retriever, parser, chunker
    ans = rec.generation(gi, model=("m", "1"), text="Yes.")
    rec.claim(ans, start=0, end=4, kind="paraphrase", status="uncertain")
    t = _by_metric(metrics(store))["transformation_completeness"]
    assert (t.numerator, t.denominator) == (0, 1)
    assert t.note == "missing: Chunker (1), Parser (1), PromptTemplate (1), Retriever (1)"


def _agree_with_coverage_and_unsupported(store):
    cov = {(r.run, r.measure): r.count for r in coverage(store)}
    bare = {}
    for u in unsupported(store):
        bare[u.run] = bare.get(u.run, 0) + 1
    rows = metrics(store)
    assert rows
    for run in {r.run for r in rows}:
        m = _by_metric(x for x in rows if x.run == run)
        c = m["claim_coverage"]
        assert c.denominator == cov[run, "claims"]
        assert c.denominator - c.numerator == bare.get(run, 0)
        q = m["quotation_fidelity"]
        assert (q.numerator, q.denominator) == (cov[run, "verified_quotations"],
                                                cov[run, "quoting_claims"])
        g = m["generated_target_rate"]
        assert g.numerator == cov[run, "generated_target"]
        assert g.denominator == cov[run, "citations"] - cov[run, "unresolved"]
        assert g.excluded == cov[run, "unresolved"]
        by_outcome = {x.group: x.numerator for x in metrics(store, runs=[run], by="outcome")}
        assert all(by_outcome[o] == cov[run, o] for o in by_outcome)


def test_agreement_with_coverage_and_unsupported_known_counts(evaluated):
    _agree_with_coverage_and_unsupported(evaluated[0])


def test_agreement_with_coverage_and_unsupported_on_the_demo(demo_store):
    with EmbeddedStore(demo_store, read_only=True) as s:
        _agree_with_coverage_and_unsupported(s)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    from provgraph.demo import run_demo

    return run_demo(tmp_path_factory.mktemp("demo") / "store", quiet=True).store_path


def test_metrics_cli_prints_rows_with_denominators(runner, tmp_path):
    path = tmp_path / "store"
    with EmbeddedStore(path) as s:
        eval_runs.record(s)
        resolve_run(s)
    res = runner.invoke(cli, ["--store", str(path), "metrics", "--nl"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.output.splitlines()]
    assert [r["metric"] for r in rows] == list(METRICS)
    assert rows[0] == {"run": eval_runs.RUN, "group": eval_runs.RUN, "question": "",
                       "metric": "claim_coverage", "numerator": 4, "denominator": 8, "value": 0.5,
                       "excluded": 0, "note": "1 abstention and 1 uncertain counted as accounted "
                       "for; 4 without eligible evidence ('provgraph unsupported' lists them)"}
    bad = runner.invoke(cli, ["--store", str(path), "metrics", "--run", "urn:uuid:nope"])
    assert bad.exit_code == 2 and "Error:" in bad.output and "provgraph runs" in bad.output
    bad = runner.invoke(cli, ["--store", str(path), "metrics", "--max-age", "soon"])
    assert bad.exit_code == 2 and "is not a duration" in bad.output
