"""`provgraph evaluate exposure`: a thin CLI over provgraph.exposure (rows, the stated
settings on standard error, refusals and bad input as `Error:` with exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provgraph.cli import cli
from provgraph.exposure import EXPOSURE_METRICS

EXAMPLES = Path(__file__).parents[1] / "examples" / "fixtures"
FIXTURES = [str(EXAMPLES / f"{n}.json") for n in ("quotation", "calculation")]
QUERY = json.loads(Path(FIXTURES[0]).read_text(encoding="utf-8"))["query"]


def _args(*extra: str, pipeline: str = "provgraph.demo.exposure:answer") -> list[str]:
    return ["--memory", "evaluate", "exposure", "--fixture", FIXTURES[0], "--fixture",
            FIXTURES[1], "--pipeline", pipeline, *extra]


def test_cli_reports_rows_per_arm_and_metric(runner) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(cli, _args("--arms", "baseline,label,mislabel", "--seed", "5", "--nl"),
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 3 * len(EXPOSURE_METRICS)
    gen = {r["arm"]: r for r in rows if r["metric"] == "generated_target_rate"}
    assert {a: r["numerator"] for a, r in gen.items()} == {"baseline": 0, "label": 0,
                                                           "mislabel": 2}
    assert gen["mislabel"]["difference"] == 1.0
    assert (gen["mislabel"]["ci_low"], gen["mislabel"]["ci_high"]) == (1.0, 1.0)
    assert "2 queries, 1 repetition(s) per arm" in res.stderr
    assert "2000 resamples, 95%, seed 5" in res.stderr


def test_cli_refuses_a_reordering_pipeline_with_exit_2(runner) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(cli, _args(pipeline="provgraph.demo.exposure:reordering"))
    assert res.exit_code == 2
    assert res.stderr.startswith("Error: arm omit (fixture library-saturday-closing, "
                                 "repetition 1) did not pack the originals of arm baseline: "
                                 "original 1 of its prompt is hours-3")


@pytest.mark.parametrize("args, message", [
    (_args("--arms", "baseline,sideways"), "unknown arm 'sideways'"),
    (_args(pipeline="provgraph.demo.exposure"), "is not MODULE:CALLABLE"),
    (_args(pipeline="provgraph.no_such_module:f"), "does not import"),
    (_args(pipeline="provgraph.demo.exposure:nothing"), "has no callable 'nothing'"),
    (_args("--repeats", "0"), "--repeats"),
])
def test_cli_bad_input_exits_2_naming_it(runner, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(cli, args)
    assert res.exit_code == 2
    assert message in res.stderr


def test_a_pipeline_that_raises_is_an_error_line_naming_the_arm(runner, tmp_path,
                                                                monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # it was a traceback
    (tmp_path / "broken_pipeline.py").write_text(
        "def answer(ctx):\n    raise RuntimeError('model endpoint down')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    res = runner.invoke(cli, _args(pipeline="broken_pipeline:answer"))
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("Error: the pipeline broken_pipeline:answer raised RuntimeError "
                                 "in arm baseline (fixture library-saturday-closing, repetition "
                                 "1): model endpoint down; fix the pipeline"), res.stderr
    assert "Traceback" not in res.stderr


_BAD_OUTPUTS = '''
import dataclasses
from provgraph.demo.exposure import answer, retrieve

def unnamed_retriever(ctx):  # the Recorder refused it: "retriever name must not be empty"
    return dataclasses.replace(retrieve(ctx), retriever=("", "1"))

def short_retriever(ctx):  # "retriever must be (name, version), got ('bm25',)"
    return dataclasses.replace(retrieve(ctx), retriever=("bm25",))

def word_scores(ctx):  # a ValueError traceback
    out = retrieve(ctx)
    return dataclasses.replace(out, scores=tuple("high" for _ in out.ranked))

def guessed_kind(ctx):  # "unknown claim kind 'guess'"
    out = answer(ctx)
    return dataclasses.replace(out, claims=tuple(dataclasses.replace(c, kind="guess")
                                                 for c in out.claims))

def no_answer(ctx):  # a TypeError traceback
    return dataclasses.replace(answer(ctx), answer=None)
'''


@pytest.mark.parametrize("name, end_to_end, arm, says", [
    ("unnamed_retriever", True, "without_aid",
     "retriever is ('', '1'), not (name, version), two non-empty str"),
    ("short_retriever", True, "without_aid",
     "retriever is ('bm25',), not (name, version), two non-empty str"),
    ("word_scores", True, "without_aid", "score 1 is 'high', not a finite number"),
    ("guessed_kind", False, "baseline", "unknown claim kind 'guess'; use one of"),
    ("no_answer", False, "baseline", "answer is NoneType None, not a str"),
])
def test_a_bad_pipeline_output_names_its_arm_and_query(runner, tmp_path, monkeypatch, name,
                                                       end_to_end, arm, says) -> None:  # type: ignore[no-untyped-def]
    """The Recorder's refusals of a pipeline's (or retriever's) output said neither the
    arm nor the query ("retriever name must not be empty"), and outputs of the wrong type
    were tracebacks: each is one error line naming the arm, the fixture and its query."""
    (tmp_path / "bad_outputs.py").write_text(_BAD_OUTPUTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    extra = ("--end-to-end",) if end_to_end else ()
    res = runner.invoke(cli, _args(*extra, pipeline=f"bad_outputs:{name}"))
    assert res.exit_code == 2, res.output
    what = "retriever" if end_to_end else "pipeline"
    assert res.stderr.startswith(
        f"Error: {what} output for arm {arm} (fixture library-saturday-closing, query "
        f"'{QUERY}', repetition 1): {says}"), res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""
