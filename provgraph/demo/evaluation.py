"""The demo's evaluation step (issue 18 part 7): metrics, a gate run and the paired
exposure test on the demo's own pipeline.

:func:`evaluate` asks provgraph's evaluation libraries about the demo store:

1. :func:`provgraph.evaluation.metrics` of the ``flask-docs-qa`` run (the rows
   ``provgraph metrics --run RUN`` prints);
2. :func:`provgraph.gates.gate` of that run under the example policy
   (``examples/gate-policy.toml``, carried in the wheel as ``_data/policies``);
3. :func:`provgraph.exposure.run_exposure` with the demo's own pipeline.

The adapter. :func:`write_fixtures` freezes a few demo questions as fixtures
(``provgraph-fixture/1``, written to ``<store>/fixtures/`` and loaded back through
:func:`provgraph.fixtures.load`, so they are checked as any fixture is): each chunk the
demo packed into the question's prompt, in source-number order, is one source whose
bytes are the chunk's extracted text with each paragraph on one line (the harness
takes one original per non-empty line, so a sentence is never cut); its URI is the
retained page's, with ``#chunk-<k>``. Its aids are the demo's generated aids of that
prompt: each packed chunk's contextual prefix and the question's HyDE document. The
expected answer is the sentence the demo's reader picks from the originals alone
(with its evidence span), or ``unknown`` when it abstains.

:class:`DemoArmPipeline` answers each arm with the demo's reader
(:func:`provgraph.demo.answerer.best_sentence`: the focus phrases and BM25 idf of
the demo's index): it reads as source text the originals and the aids an arm shows
unlabelled (``expose``) or as sources (``mislabel``), never aids marked as generated
(``baseline``, as the demo packs them, and ``label``) or left out (``omit``). So an
answer quotes an aid, and the resolver calls its citation ``generated_target``, only
in the arms that expose or mislabel the aids.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..evaluation import MetricRow, metrics
from ..exposure import (AnswerClaim, ArmContext, ArmOutput, ExposureReport, PromptPart,
                        run_exposure)
from ..fixtures import FIXTURE_FORMAT, UNKNOWN, Fixture, load
from ..gates import GatePolicy, GateRow, gate, parse_policy
from ..resources import data_dir, data_text
from ..store import ProvStore
from . import generator as gen
from .answerer import INSTRUCTION, READER, Index, Question, best_sentence
from .pipeline import Answered, PipelineResult

__all__ = ["DemoEvaluation", "DemoArmPipeline", "evaluate", "write_fixtures",
           "EXPOSURE_QUESTIONS", "POLICY", "policy_path", "SEED"]

EXPOSURE_QUESTIONS = ("q08", "q24", "q25")
"""The questions of the exposure test: q08, which the originals answer but whose HyDE
document outscores them once it is read as a source; q24 and q25, whose answer only the generated prefixes hold (the reader abstains
in the arms that do not read them, so their generated-target rate is undefined there and
they drop out of the paired differences: complete pairs only). Three questions keep the
demo's added time to a few seconds: each arm run is a run the metrics read."""
POLICY = "gate-policy.toml"
"""The gate policy the demo holds its run to (in :func:`provgraph.resources.data_dir`
``policies``)."""
SEED = 0
"""Seeds the exposure test's generation seeds and bootstrap."""
PIPELINE_NAME = "provgraph.demo.evaluation:DemoArmPipeline"


def policy_path() -> Path:
    """The demo's gate policy file (``examples/gate-policy.toml`` in a checkout)."""
    return data_dir("policies") / POLICY


@dataclass(slots=True)
class DemoEvaluation:
    """What :func:`evaluate` found: the QA ``run``, its metric rows, the gate policy and
    its verdicts, the exposure fixtures (paths), the exposure report and the statements
    the exposure test added to the store."""

    run: str
    metrics: list[MetricRow]
    policy: GatePolicy
    gates: list[GateRow]
    fixtures: list[Path]
    exposure: ExposureReport
    statements: int


class DemoArmPipeline:
    """The demo's reader as an exposure pipeline (module docstring).

    Args:
        index: the demo's index (idf of the question terms).
        questions: the demo questions, looked up by their text (``ArmContext.query``).
    """

    def __init__(self, index: Index, questions: Sequence[Question]) -> None:
        self.index = index
        self.questions = {q.text: q for q in questions}

    def __call__(self, ctx: ArmContext) -> ArmOutput:
        question = self.questions[ctx.query]
        parts = [PromptPart(text=INSTRUCTION + "\n\nQuestion: "),
                 PromptPart(text=ctx.query, query=True), PromptPart(text="\n\nSources:\n")]
        readable: list[tuple[str, str]] = []  # (ref, text) the reader takes for source text
        for aid in ctx.aids if ctx.presentation != "omitted" else ():
            if ctx.presentation in ("pipeline", "labelled"):
                parts += [PromptPart(text=f"\n[generated {aid.kind}, not a source] "),
                          PromptPart(text=aid.text, ref=aid.id)]
                continue
            n = len(readable) + 1
            tag = f"\n[{n}] " if ctx.presentation == "unlabelled" else f"\n[{n}, source text] "
            parts += [PromptPart(text=tag), PromptPart(text=aid.text, ref=aid.id)]
            readable.append((aid.id, aid.text))
        for o in ctx.originals:
            parts += [PromptPart(text=f"\n[{len(readable) + 1}] "),
                      PromptPart(text=o.text, ref=o.id)]
            readable.append((o.id, o.text))
        parts.append(PromptPart(text="\n"))
        pick = best_sentence(question, [t for _, t in readable], self.index)
        if pick is None:
            text = (f"Not stated in the sources: none of the {len(ctx.originals)} passages "
                    "retrieved for this question answers it.")
            claims: tuple[AnswerClaim, ...] = (AnswerClaim(start=0, end=len(text),
                                                           kind="abstention"),)
        else:
            n, _, _, sentence = pick
            lead = 'The sources say: "'
            text = f'{lead}{sentence}" [{n + 1}]'
            claims = (AnswerClaim(start=len(lead), end=len(lead) + len(sentence),
                                  kind="quotation", cited=readable[n][0], quote=sentence),)
        return ArmOutput(prompt=tuple(parts), answer=text, claims=claims, model=READER,
                         settings={"deterministic": True})


def _paragraph_lines(chunk: str) -> str:
    return "\n".join(" ".join(b.split()) for b in re.split(r"\n[ \t]*\n", chunk) if b.strip())


def _fixture_document(result: PipelineResult, index: Index, a: Answered) -> dict[str, object]:
    sources: list[dict[str, object]] = []
    aids: list[dict[str, object]] = []
    texts: list[tuple[str, str]] = []
    model = {"name": gen.GENERATOR[0], "version": gen.GENERATOR[1]}
    for n, i in enumerate(a.included, start=1):
        e = index.entries[i]
        doc = result.v1[e.page]
        k = [str(x.iri) for x in doc.indexed].index(e.key) + 1
        data = _paragraph_lines(e.chunk_text).encode("utf-8")
        sources.append({"id": f"c{n}", "uri": f"{doc.release.source_uri(e.page)}#chunk-{k}",
                        "media_type": "text/plain; charset=utf-8",
                        "sha256": hashlib.sha256(data).hexdigest(),
                        "content_base64": base64.b64encode(data).decode("ascii")})
        texts.append((f"c{n}", data.decode("utf-8")))
        aids.append({"id": f"prefix-c{n}", "kind": "contextual_prefix", "text": e.prefix_text,
                     "model": model, "derived_from": [f"c{n}"]})
    aids.append({"id": "hyde", "kind": "hypothetical_document", "text": a.hyde, "model": model,
                 "derived_from": ["query"]})
    # the expected answer: what the demo's reader quotes from the originals alone
    lines = [(sid, pos, line) for sid, t in texts
             for pos, line in _lines(t)]
    pick = best_sentence(a.question, [line for _, _, line in lines], index)
    evidence: list[dict[str, object]] = []
    expected = UNKNOWN
    if pick is not None:
        n, start, end, sentence = pick
        sid, pos, _ = lines[n]
        evidence.append({"id": "e1", "source": sid, "start": pos + start, "end": pos + end,
                         "text": sentence})
        expected = sentence
    return {"format": FIXTURE_FORMAT, "id": f"demo-{a.question.id}",
            "description": f"provgraph demo question {a.question.id}, frozen by "
                           "provgraph.demo.evaluation: the chunks the demo packed, in order, "
                           "and the demo's generated aids of that prompt.",
            "query": a.question.text, "sources": sources, "evidence": evidence, "aids": aids,
            "expected_answer": expected}


def _lines(text: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        if line.strip():
            out.append((pos, line.rstrip("\r\n")))
        pos += len(line)
    return out


def write_fixtures(folder: Path, result: PipelineResult,
                   questions: Sequence[str] = EXPOSURE_QUESTIONS) -> list[Path]:
    """Freeze the demo's ``questions`` (ids) as fixtures in ``folder``, one JSON file each
    (``demo-<id>.json``; module docstring), and return their paths.

    Raises:
        KeyError: a question id the demo did not answer.
        ValueError: ``result`` carries no index (not from :func:`run_pipeline`).
    """
    if result.index is None:
        raise ValueError("the pipeline result carries no index; use run_pipeline's result")
    answered = {a.question.id: a for a in result.answered}
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for qid in questions:
        path = folder / f"demo-{qid}.json"
        doc = _fixture_document(result, result.index, answered[qid])
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def evaluate(store: ProvStore, result: PipelineResult, folder: Path) -> DemoEvaluation:
    """Metrics and gates of the demo's QA run, and the exposure test on its pipeline
    (module docstring); the fixtures are written to ``folder`` and the arm runs recorded
    into ``store`` (one run per arm and question, plus each fixture's run).

    Raises:
        ProvgraphError: as the evaluation, gate and exposure libraries raise them (a bug
            in the demo if it happens).
    """
    run = result.runs["flask-docs-qa"]
    rows = metrics(store, runs=[run])
    policy = parse_policy(data_text("policies", POLICY), str(policy_path()))
    verdicts = gate(store, policy, runs=[run])
    paths = write_fixtures(folder, result)
    fixtures: list[Fixture] = [load(p) for p in paths]
    assert result.index is not None  # write_fixtures checked it
    pipeline = DemoArmPipeline(result.index, [a.question for a in result.answered])
    before = len(store)
    report = run_exposure(store, fixtures, pipeline, seed=SEED, pipeline_name=PIPELINE_NAME)
    return DemoEvaluation(run=run, metrics=rows, policy=policy, gates=verdicts, fixtures=paths,
                          exposure=report, statements=len(store) - before)
