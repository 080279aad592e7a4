"""Answerability labels (provgraph.labels) and the correct_abstention metric and gate
they feed (issue 18): from reviews and adjudications on the run of known counts, and from
frozen fixtures through the exposure test."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from provgraph import EmbeddedStore, Recorder, Segment
from provgraph import fixtures
from provgraph.demo.exposure import answer
from provgraph.evaluation import metrics
from provgraph.exposure import AnswerClaim, ArmContext, ArmOutput, run_exposure
from provgraph.gates import gate, parse_policy

from . import eval_runs

UTC = dt.timezone.utc
T1 = dt.datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
EXAMPLES = Path(__file__).parents[1] / "examples" / "fixtures"


def _abstention(store, run) -> tuple:  # type: ignore[no-untyped-def]
    row = next(m for m in metrics(store, runs=[run]) if m.metric == "correct_abstention")
    return row.numerator, row.denominator, row.excluded, row.note


def test_review_labels_count_abstentions_on_unanswerable_questions():
    with EmbeddedStore() as s:
        r = eval_runs.record(s)
        rec = Recorder(s, run_iri=r["run"], packages=[], clock=lambda: T1)
        gi = rec.context_packing(text="Is the lake frozen?",
                                 segments=[Segment(start=0, end=19, origin="query")])
        a4 = rec.generation(gi, model=("reader", "1.0"), text="I cannot tell from the sources.")
        c9 = rec.claim(a4, start=0, end=31, kind="abstention")
        assert _abstention(s, r["run"])[:2] == (None, None)  # no label yet
        rec.review(c9, verdicts={"answerability": "unanswerable"}, reviewer="ana", at=T1)
        rec.review(r["c1"], verdicts={"answerability": "answerable"}, reviewer="ana", at=T1)
        rec.review(r["c5"], verdicts={"answerability": "unanswerable"}, reviewer="ana", at=T1)
        rec.review(r["c6"], verdicts={"answerability": "answerable"}, reviewer="bo", at=T1)
        n, d, excluded, note = _abstention(s, r["run"])
        # a4 abstains on an unanswerable question; a1 answerable; a2 disputed; a3 unlabelled
        assert (n, d, excluded) == (1, 1, 3)
        assert ("1 answer labelled answerable" in note and "1 answer without a label" in note
                and "1 answer whose reviews disagree" in note)
        # the adjudication settles a2: unanswerable, and a2 answers (c5) instead of abstaining
        rec.adjudicate(r["c5"], verdicts={"answerability": "unanswerable"}, reviewer="lead",
                       at=T1 + dt.timedelta(hours=1))
        assert _abstention(s, r["run"])[:3] == (1, 2, 2)
        row = next(g for g in gate(s, parse_policy("")) if g.gate == "correct_abstentions")
        assert (row.status, row.numerator, row.denominator) == ("fail", 1, 2)
        assert "1 of 2 answers to unanswerable questions do not abstain" in row.note


def _abstaining(ctx: ArmContext) -> ArmOutput:
    """The demo pipeline's prompt, but the answer always abstains."""
    out = answer(ctx)
    text = "I cannot tell from the sources."
    return ArmOutput(prompt=out.prompt, answer=text, model=out.model,
                     claims=(AnswerClaim(start=0, end=len(text), kind="abstention"),))


def test_fixture_labels_through_the_exposure_test():
    fx = [fixtures.load(EXAMPLES / f"{n}.json") for n in ("quotation", "unanswerable")]
    with EmbeddedStore() as s:
        rep = run_exposure(s, fx, answer, arms=("baseline", "omit"), resamples=50)
        by_fixture = {(r.fixture, r.arm): r.run for r in rep.runs}
        # the demo "model" copies a sentence even when the sources cannot answer
        assert _abstention(s, by_fixture[("library-holiday-opening", "baseline")])[:2] == (0, 1)
        n, d, _, note = _abstention(s, by_fixture[("library-saturday-closing", "omit")])
        assert (n, d) == (0, 0) and "1 answer labelled answerable" in note
        row = next(x for x in rep.rows if x.arm == "omit" and x.metric == "correct_abstention")
        assert (row.numerator, row.denominator) == (0, 1)
        rep2 = run_exposure(s, fx, _abstaining, arms=("baseline", "omit"), resamples=50)
        row = next(x for x in rep2.rows if x.arm == "omit" and x.metric == "correct_abstention")
        assert (row.numerator, row.denominator, row.value) == (1, 1, 1.0)
        over = {(r.fixture, r.arm): r.run for r in rep2.runs}[("library-saturday-closing", "omit")]
        assert "(1 of them abstained: over-abstention)" in _abstention(s, over)[3]
