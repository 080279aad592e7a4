"""The paired exposure test (provgraph.exposure, `provgraph evaluate exposure`) on the
shipped fixtures and the example pipelines of provgraph.demo.exposure."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from provgraph import fixtures
from provgraph.demo.exposure import answer, reordering
from provgraph.errors import ExposureError
from provgraph.exposure import (ARMS, EXPOSURE_METRICS, ArmContext, ArmOutput, PromptPart,
                                run_exposure)
from provgraph.schema import generation as generation_schema
from provgraph.schema import prompt as prompt_schema
from provgraph.store import EmbeddedStore
from provgraph.vocab import PG, RDF

EXAMPLES = Path(__file__).parents[1] / "examples" / "fixtures"
FIXTURES = [str(EXAMPLES / f"{n}.json") for n in ("quotation", "calculation", "unanswerable")]


def _load() -> list[fixtures.Fixture]:
    return [fixtures.load(f) for f in FIXTURES]


@pytest.fixture(scope="module")
def report():  # type: ignore[no-untyped-def]
    s = EmbeddedStore()
    rep = run_exposure(s, _load(), answer, repeats=2, seed=7, resamples=300)
    yield s, rep
    s.close()


def _row(rep, arm: str, metric: str):  # type: ignore[no-untyped-def]
    return next(r for r in rep.rows if r.arm == arm and r.metric == metric)


def test_generated_target_findings_only_in_the_arms_that_expose_or_mislabel(report) -> None:  # type: ignore[no-untyped-def]
    _, rep = report
    found = {arm: _row(rep, arm, "generated_target_rate").numerator for arm in ARMS}
    # two of the three fixtures have an aid that matches the question better than any
    # original sentence; the unanswerable one's prefix does not: 2 queries x 2 repetitions
    assert found == {"baseline": 0, "omit": 0, "label": 0, "expose": 4, "mislabel": 4}
    for arm in ARMS:
        assert _row(rep, arm, "generated_target_rate").denominator == 6  # 3 queries x 2


def test_rows_one_per_arm_and_metric_with_paired_differences(report) -> None:  # type: ignore[no-untyped-def]
    _, rep = report
    assert [(r.arm, r.metric) for r in rep.rows] == [(a, m) for a in ARMS for m in EXPOSURE_METRICS]
    base = _row(rep, "baseline", "generated_target_rate")
    assert (base.value, base.difference, base.ci_low, base.ci_high) == (0.0, None, None, None)
    exp = _row(rep, "expose", "generated_target_rate")
    # per-query differences 1, 1, 0 against the baseline: mean 2/3, interval within [0, 1]
    assert exp.difference == pytest.approx(0.6667)
    assert exp.ci_low is not None and exp.ci_high is not None
    assert 0.0 <= exp.ci_low <= exp.difference <= exp.ci_high <= 1.0
    assert (exp.queries, exp.excluded) == (3, 0)
    omit = _row(rep, "omit", "quotation_fidelity")
    assert (omit.difference, omit.ci_low, omit.ci_high) == (0.0, 0.0, 0.0)
    assert (rep.reference, rep.queries, rep.repeats, rep.resamples, rep.seed) == (
        "baseline", 3, 2, 300, 7)
    assert "complete pairs" in rep.summary() and "seed 7" in rep.summary()


def test_a_query_undefined_in_an_arm_is_left_out_of_the_difference(report) -> None:  # type: ignore[no-untyped-def]
    _, rep = report
    # locator precision needs a citation located in an original: where the model quoted
    # the aid (two queries) it is undefined, so one complete pair is left
    row = _row(rep, "mislabel", "locator_precision")
    assert (row.queries, row.excluded) == (1, 2)
    assert row.difference == 0.0


def test_each_arm_is_its_own_run_linked_to_the_fixture(report) -> None:  # type: ignore[no-untyped-def]
    store, rep = report
    assert len(rep.runs) == 3 * 2 * len(ARMS)
    assert len({r.run for r in rep.runs}) == len(rep.runs)
    first = rep.runs[0]
    conf = next(iter(store.quads(first.run, PG.configuration, None, first.run)))[2]
    config = json.loads(conf.value)["exposure"]
    assert config["fixture_run"] == fixtures.load(FIXTURES[0]).run_iri
    assert (config["arm"], config["repeat"]) == ("baseline", 1)
    # the same generation seed in every arm of a query and repetition, another in the next
    seeds = {(r.fixture, r.repeat): set() for r in rep.runs}
    for r in rep.runs:
        seeds[(r.fixture, r.repeat)].add(r.seed)
    assert all(len(v) == 1 for v in seeds.values())
    assert len({next(iter(v)) for v in seeds.values()}) == len(seeds)


def test_a_mislabelled_aid_is_still_recorded_as_generated(report) -> None:  # type: ignore[no-untyped-def]
    store, rep = report
    run = next(r.run for r in rep.runs if r.arm == "mislabel")
    gi = next(iter(store.quads(None, RDF.type, PG.GeneratorInput, run)))[0]
    prompt = prompt_schema.load(store, [gi])[gi]
    aid_text = fixtures.load(FIXTURES[0]).aids["question"].text
    seg = next(s for s in prompt.segments if prompt.text[s.start:s.end] == aid_text)
    assert seg.origin == "generated"
    assert "[S1, source text] " + aid_text in prompt.text  # what the model was told
    ans = next(iter(store.quads(None, RDF.type, PG.Answer, run)))[0]
    answer_rec = generation_schema.load(store, [ans])[ans]
    assert answer_rec.settings["aids_presented_as"] == "as_source"


def test_a_pipeline_that_reorders_originals_is_refused() -> None:
    s = EmbeddedStore()
    with pytest.raises(ExposureError) as err:
        run_exposure(s, _load()[:1], reordering)
    assert str(err.value).startswith(
        "arm omit (fixture library-saturday-closing, repetition 1) did not pack the originals "
        "of arm baseline: original 1 of its prompt is hours-3, where the reference has hours-1")


def truncating(ctx: ArmContext) -> ArmOutput:
    """The example pipeline, cutting the last original short when aids are exposed."""
    out = answer(ctx)
    if ctx.arm != "expose":
        return out
    last = ctx.originals[-1]
    parts = tuple(PromptPart(text=p.text[:10], ref=p.ref) if p.ref == last.id else p
                  for p in out.prompt)
    return dataclasses.replace(out, prompt=parts)


def test_a_pipeline_that_truncates_an_original_is_refused() -> None:
    with pytest.raises(ExposureError, match=r"arm expose .* original 3 \(hours-3\) is 10 code "
                                            r"points .* budget 113 code points, baseline 160"):
        run_exposure(EmbeddedStore(), _load()[:1], truncating)


def unknown_id(ctx: ArmContext) -> ArmOutput:
    out = answer(ctx)
    return dataclasses.replace(out, prompt=(*out.prompt, PromptPart(text="x", ref="nope")))


@pytest.mark.parametrize("kwargs, message", [
    ({"arms": ("baseline", "sideways")}, "give distinct arms"),
    ({"arms": ("omit", "omit")}, "give distinct arms"),
    ({"repeats": 0}, "at least once"),
])
def test_bad_settings_are_refused(kwargs, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ExposureError, match=message):
        run_exposure(EmbeddedStore(), _load()[:1], answer, **kwargs)


def test_a_prompt_part_naming_no_original_or_aid_is_refused() -> None:
    with pytest.raises(ExposureError, match="prompt part .* carries 'nope', which names no "
                                            "original or aid"):
        run_exposure(EmbeddedStore(), _load()[:1], unknown_id)


def test_the_same_seed_gives_the_same_report() -> None:
    a = run_exposure(EmbeddedStore(), _load()[:2], answer, arms=("baseline", "expose"), seed=3,
                     resamples=200)
    b = run_exposure(EmbeddedStore(), _load()[:2], answer, arms=("baseline", "expose"), seed=3,
                     resamples=200)
    assert a.rows == b.rows
