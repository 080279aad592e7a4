"""The end-to-end mode of the exposure test (provgraph.end_to_end, `provgraph evaluate
exposure --end-to-end`): retrieval with and without the aids, on the shipped fixtures,
read back from the recorded retrievals and kept out of the origin figures."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from provgraph import fixtures
from provgraph.demo.exposure import retrieve
from provgraph.end_to_end import (E2E_ARMS, E2E_METRICS, RetrievalContext, RetrievalOutput,
                                  run_end_to_end)
from provgraph.errors import ExposureError
from provgraph.evaluation import metrics
from provgraph.schema import retrieval as retrieval_schema
from provgraph.store import EmbeddedStore

EXAMPLES = Path(__file__).parents[1] / "examples" / "fixtures"
FIXTURES = [str(EXAMPLES / f"{n}.json") for n in ("quotation", "calculation", "unanswerable")]


def _load() -> list[fixtures.Fixture]:
    return [fixtures.load(f) for f in FIXTURES]


def _scripted(order: dict[str, list[int]], cost: float | None = None, unit: str = "tokens"):  # type: ignore[no-untyped-def]
    """A retriever ranking the candidates in a fixed order per arm (indices into the
    candidates), using every aid it is given."""
    def fn(ctx: RetrievalContext) -> RetrievalOutput:
        ids = [ctx.candidates[i].id for i in order[ctx.arm] if i < len(ctx.candidates)]
        return RetrievalOutput(ranked=tuple(ids), retriever=("scripted", "1"),
                               aids_used=tuple(a.id for a in ctx.aids), cost=cost,
                               cost_unit=unit)
    return fn


def _row(rep, arm: str, metric: str):  # type: ignore[no-untyped-def]
    return next(r for r in rep.rows if r.arm == arm and r.metric == metric)


def test_known_ranks_give_known_relevance_figures() -> None:
    # quotation: candidates hours-1..3, the evidence ("closes at 13:00") is in hours-3.
    # without the aid it is ranked 3rd, with it 1st; k = 1
    fx = [fixtures.load(FIXTURES[0])]
    with EmbeddedStore() as s:
        rep = run_end_to_end(s, fx, _scripted({"without_aid": [0, 1, 2], "with_aid": [2, 0, 1]}),
                             k=1, repeats=2, resamples=200)
    assert _row(rep, "without_aid", "recall_at_k").numerator == 0
    assert _row(rep, "without_aid", "recall_at_k").denominator == 2  # 1 relevant x 2 calls
    assert _row(rep, "with_aid", "recall_at_k").value == 1.0
    assert _row(rep, "without_aid", "precision_at_k").value == 0.0
    assert (_row(rep, "with_aid", "precision_at_k").numerator,
            _row(rep, "with_aid", "precision_at_k").denominator) == (2, 2)
    assert _row(rep, "without_aid", "reciprocal_rank").value == round(1 / 3, 4)
    assert _row(rep, "with_aid", "reciprocal_rank").value == 1.0
    assert _row(rep, "with_aid", "reciprocal_rank").difference == round(1 - 1 / 3, 4)
    assert _row(rep, "with_aid", "recall_at_k").difference == 1.0
    assert [(r.arm, r.metric) for r in rep.rows] == [(a, m) for a in E2E_ARMS for m in E2E_METRICS]


def test_an_unanswerable_query_has_no_relevance_figures_but_latency_and_cost() -> None:
    fx = _load()
    with EmbeddedStore() as s:
        rep = run_end_to_end(s, fx, _scripted({"without_aid": [0, 1, 2, 3, 4],
                                               "with_aid": [0, 1, 2, 3, 4]}, cost=2.5),
                             resamples=200)
    recall = _row(rep, "with_aid", "recall_at_k")
    assert (recall.queries, recall.excluded) == (2, 1)  # unanswerable left out
    latency = _row(rep, "with_aid", "latency_seconds")
    assert (latency.queries, latency.excluded, latency.calls) == (3, 0, 3)
    cost = _row(rep, "without_aid", "cost")
    assert (cost.value, cost.unit, cost.calls) == (2.5, "tokens", 3)


def test_figures_are_read_from_the_recorded_retrievals() -> None:
    slow = 0.05

    def sleepy(ctx: RetrievalContext) -> RetrievalOutput:
        time.sleep(slow if ctx.aids else 0)
        return retrieve(ctx)

    with EmbeddedStore() as s:
        rep = run_end_to_end(s, [fixtures.load(FIXTURES[0])], sleepy, resamples=200)
        recs = retrieval_schema.load(s, [r.retrieval for r in rep.runs])
        by_arm = {r.arm: recs[r.retrieval] for r in rep.runs}
        spent = {a: (rec.ended_at - rec.started_at).total_seconds()  # type: ignore[operator]
                 for a, rec in by_arm.items()}
        assert _row(rep, "with_aid", "latency_seconds").value == round(spent["with_aid"], 6)
        assert spent["with_aid"] >= slow > spent["without_aid"]
        # the with-aid retrieval records the aid it used (prov:used), the other none
        assert len(by_arm["with_aid"].aids) == 1 and by_arm["without_aid"].aids == ()
        assert [h.rank for h in by_arm["with_aid"].hits] == [1, 2, 3]


def test_end_to_end_runs_never_enter_the_origin_figures() -> None:
    with EmbeddedStore() as s:
        rep = run_end_to_end(s, _load(), retrieve, resamples=200)
        runs = [r.run for r in rep.runs]
        rows = metrics(s, runs=runs, by="run")
        # no answer and no claim recorded: every claim-level metric has denominator 0
        assert rows and all(not r.denominator for r in rows)


@pytest.mark.parametrize("bad, says", [
    (lambda c: RetrievalOutput(ranked=("nope",), retriever=("r", "1")), "names no candidate"),
    (lambda c: RetrievalOutput(ranked=(c.candidates[0].id,) * 2, retriever=("r", "1")),
     "ranked twice"),
    (lambda c: RetrievalOutput(ranked=(c.candidates[0].id,), scores=(1.0, 2.0),
                               retriever=("r", "1")), "one score per ranked id"),
    (lambda c: RetrievalOutput(ranked=(), retriever=("r", "1"), aids_used=("question",)),
     "was not given"),
    (lambda c: RetrievalOutput(ranked=(), retriever=("r", "1"), cost=-1.0), "not a finite"),
    (lambda c: RetrievalOutput(ranked=(), retriever=("r", "1"), cost=1.0,
                               cost_unit="USD" if c.aids else "tokens"), "differs from"),
    (lambda c: [], "not a RetrievalOutput"),
    (lambda c: 1 / 0, "raised ZeroDivisionError"),
    (lambda c: sys.exit(0), "raised SystemExit"),  # was a silent exit 0 (break test)
])
def test_a_bad_retriever_output_is_refused_with_what_to_fix(bad, says: str) -> None:  # type: ignore[no-untyped-def]
    with EmbeddedStore() as s, pytest.raises(ExposureError, match=says):
        run_end_to_end(s, [fixtures.load(FIXTURES[0])], bad)


def test_cli_end_to_end_prints_its_own_table(runner) -> None:  # type: ignore[no-untyped-def]
    from provgraph.cli import cli

    res = runner.invoke(cli, ["--memory", "evaluate", "exposure", "--end-to-end", "--fixture",
                              FIXTURES[0], "--pipeline", "provgraph.demo.exposure:retrieve",
                              "--k", "1", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert {(r["arm"], r["metric"]) for r in rows} == {(a, m) for a in E2E_ARMS
                                                       for m in E2E_METRICS}
    assert "reported apart from the origin figures" in res.stderr
    assert not any(r["metric"] == "generated_target_rate" for r in rows)


@pytest.mark.parametrize("args, says", [
    (["--end-to-end", "--arms", "omit"], "--arms does not apply with --end-to-end"),
    (["--k", "2"], "--k applies only with --end-to-end"),
])
def test_cli_refuses_options_of_the_other_mode(runner, args: list[str], says: str) -> None:  # type: ignore[no-untyped-def]
    from provgraph.cli import cli

    res = runner.invoke(cli, ["--memory", "evaluate", "exposure", *args, "--fixture",
                              FIXTURES[0], "--pipeline", "provgraph.demo.exposure:retrieve"])
    assert res.exit_code == 2 and says in res.output
