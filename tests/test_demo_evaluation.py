"""The demo's evaluation step (issue 18 part 7): metrics, gates and the paired exposure
test on the demo's own pipeline, as the library computes them and the report prints them."""

from __future__ import annotations

import io
import json
import shlex

import pytest
from rich.console import Console

from provgraph.cli import cli
from provgraph.demo import run_demo
from provgraph.demo.evaluation import EXPOSURE_QUESTIONS, policy_path
from provgraph.demo.report import next_commands, render
from provgraph.evaluation import metrics
from provgraph.fixtures import check, load
from provgraph.resources import data_dir
from provgraph.store import EmbeddedStore


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return run_demo(tmp_path_factory.mktemp("demo-eval") / "store", quiet=True)


def _plain(rows):
    return json.loads(json.dumps([r.to_dict() for r in rows], default=str))


def test_the_demo_metrics_agree_with_provgraph_metrics(demo, runner):
    ev = demo.evaluation
    res = runner.invoke(cli, ["--store", str(demo.store_path), "metrics", "--run", ev.run,
                              "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == _plain(ev.metrics)
    by = {r.metric: r for r in ev.metrics}
    # the QA run's two stress answers quote generated prefixes: real numbers, not placeholders
    assert by["generated_target_rate"].numerator == 2
    assert by["generated_target_rate"].denominator == len(demo.findings["resolver"].extra[
        "by_citation"])


def test_the_demo_gates_agree_with_provgraph_gate(demo, runner):
    ev = demo.evaluation
    res = runner.invoke(cli, ["--store", str(demo.store_path), "gate", "--policy",
                              str(policy_path()), "--run", ev.run, "--json"],
                        catch_exceptions=False)
    assert res.exit_code == 1  # a gate fails, so the gate command fails
    assert json.loads(res.stdout) == _plain(ev.gates)
    status = {g.gate: g.status for g in ev.gates}
    assert status["quotation_fidelity"] == "fail"
    assert "generated_target 2 > 0" in next(g.note for g in ev.gates
                                            if g.gate == "quotation_fidelity")
    assert status["warranted_derivations"] == "pass"
    assert policy_path().parent == data_dir("policies")


def test_generated_targets_appear_only_in_the_arms_that_expose_or_mislabel_aids(demo):
    ev = demo.evaluation
    rep = ev.exposure
    assert [p.stem for p in ev.fixtures] == [f"demo-{q}" for q in EXPOSURE_QUESTIONS]
    for p in ev.fixtures:
        assert check(load(p)) == []
    assert len(rep.runs) == 5 * len(EXPOSURE_QUESTIONS)
    store = EmbeddedStore(demo.store_path, read_only=True)
    try:
        for run in rep.runs:  # from the store, one arm run at a time
            rows = {m.metric: m for m in metrics(store, runs=[run.run])}
            generated = rows["generated_target_rate"].numerator or 0
            assert (generated > 0) == (run.arm in ("expose", "mislabel")), run
    finally:
        store.close()
    rate = {r.arm: r for r in rep.rows if r.metric == "generated_target_rate"}
    for arm in ("baseline", "omit", "label"):
        assert rate[arm].numerator == 0 and rate[arm].denominator >= 1, rate[arm]
    for arm in ("expose", "mislabel"):
        assert rate[arm].numerator == len(EXPOSURE_QUESTIONS), rate[arm]
        # q08 is answered in both arms (a complete pair); q24, q25 abstain in the baseline
        assert (rate[arm].difference, rate[arm].queries, rate[arm].excluded) == (1.0, 1, 2)
    assert rate["omit"].difference == rate["label"].difference == 0.0


def test_the_report_prints_the_evaluation_section_with_its_numbers(demo):
    out = io.StringIO()
    render(demo, Console(file=out, width=200))
    text = out.getvalue()
    section = text.split("Evaluation: metrics, release gates, the paired exposure test", 1)[1]
    section = section.split("PROV-JSON bundle", 1)[0]
    ev = demo.evaluation
    gt = next(r for r in ev.metrics if r.metric == "generated_target_rate")
    assert f"{gt.numerator} / {gt.denominator}" in section
    failed = [g.gate for g in ev.gates if g.status == "fail"]
    assert f"gate: {len(failed)} of {len(ev.gates)} gates fail ({', '.join(failed)})" in section
    for arm, n in (("expose", "3 / 3"), ("mislabel", "3 / 3")):
        line = next(ln for ln in section.splitlines() if ln.startswith(f"│ {arm} "))
        assert n in line and "+1" in line
    assert "q08, q24, q25" in section
    cmds = next_commands(demo)
    assert any(shlex.split(c)[3:5] == ["metrics", "--run"] for c in cmds)
    assert any(" evaluate exposure " in c for c in cmds)
