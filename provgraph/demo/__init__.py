"""``provgraph demo``: a reference RAG pipeline over real, versioned documentation.

:func:`run_demo` records the pipeline of :mod:`provgraph.demo.pipeline` over the
Flask 2.0.3 and 3.0.3 documentation (``examples/corpus``) into a fresh on-disk
store, reads the ground truth back from the store (:mod:`provgraph.demo.audit`),
asks provgraph's resolver and query library the auditor's questions
(:mod:`provgraph.demo.findings`), prints the report (:mod:`provgraph.demo.report`)
and returns everything as a :class:`DemoResult`.

No network, no language model: the parser is docutils, the retriever rank-bm25,
and the aid generator and the answerer are small deterministic functions,
recorded as the agents they are. Two runs give the same statements, except those of
the evaluation step (:mod:`provgraph.demo.evaluation`): the exposure harness records its
arm and fixture runs with fresh UUIDv7 IRIs and wall-clock times, so only their numbers
repeat (``run_demo(evaluation=False)`` leaves the step out).
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ProvgraphError
from ..store import EmbeddedStore
from . import audit
from .evaluation import DemoEvaluation, evaluate
from .corpus import load_questions
from .findings import Finding
from .pipeline import PipelineResult, run_pipeline
from .rst import PARSER_V1, PARSER_V2

__all__ = ["run_demo", "DemoResult", "QuestionOutcome", "DEFAULT_STORE", "MARKER"]

DEFAULT_STORE = Path(".provgraph-demo")
"""Default demo store, relative to the current directory."""
MARKER = "PROVGRAPH_DEMO_STORE"
"""File that marks a directory as a demo store, which the next run may delete."""


@dataclass(slots=True)
class QuestionOutcome:
    """One question: what was expected, the answer, and its claims and citations (IRIs)."""

    id: str
    question: str
    expect: str
    page: str | None
    answer: str
    abstained: bool
    claims: list[str]
    claim_kinds: list[str]
    citations: list[list[str]]
    cited_pages: list[list[str | None]]
    note: str = ""


@dataclass(slots=True)
class DemoResult:
    """Everything the demo recorded and found.

    Attributes:
        store_path: the on-disk store.
        runs: run label -> run IRI.
        questions: question id -> :class:`QuestionOutcome`, in file order.
        claim_question: claim IRI -> question id; ``citation_question`` likewise.
        stale: the demo's own check (from the store): claim IRI -> ``updated``,
            ``deleted`` or ``cited span unchanged``.
        parser_affected: claim IRIs whose cited text parser 1.1 no longer produces.
        generated_targets: citation IRIs whose target is a generated aid.
        abstentions: claim IRIs of kind ``abstention``.
        findings: provgraph's libraries' answers by name (``resolver``, ``lineage``,
            ``stale``, ``impact``, ``generated_evidence``, ``prov_json``).
        counts: numbers shown in the report (snapshots, chunks, statements ...).
        evaluation: metrics and gates of the QA run and the exposure test on the demo's
            pipeline (:mod:`provgraph.demo.evaluation`); its runs are in the store.
        seconds: wall time of the run.
        program: how the report spells the provgraph command (``run_demo(program=)``).
    """

    store_path: Path
    runs: dict[str, str]
    questions: dict[str, QuestionOutcome]
    claim_question: dict[str, str]
    citation_question: dict[str, str]
    stale: dict[str, str]
    parser_affected: set[str]
    generated_targets: set[str]
    abstentions: set[str]
    facts: dict[str, audit.ClaimFact]
    findings: dict[str, Finding] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)
    pipeline: PipelineResult | None = None
    evaluation: DemoEvaluation | None = None
    seconds: float = 0.0
    program: str = "provgraph"

    def questions_of(self, claims: set[str] | dict[str, Any]) -> set[str]:
        """Question ids of the given claim IRIs."""
        return {self.claim_question[c] for c in claims}

    def stale_by_question(self) -> dict[str, set[str]]:
        """Question id -> the stale categories of its claims."""
        out: dict[str, set[str]] = {}
        for claim, category in self.stale.items():
            out.setdefault(self.claim_question[claim], set()).add(category)
        return out


def _fresh_store(path: Path) -> EmbeddedStore:
    if path.exists():
        if not path.is_dir():
            raise ProvgraphError(f"demo store path {path} is a file; choose a directory with "
                                 "--store PATH")
        if (path / MARKER).is_file():
            shutil.rmtree(path)
        elif any(path.iterdir()):
            raise ProvgraphError(
                f"{path} exists and is not a demo store (no {MARKER} file), so the demo will not "
                "delete it; choose another directory with 'provgraph demo --store PATH'")
    store = EmbeddedStore(path)
    (path / MARKER).write_text("Created by 'provgraph demo'; the next demo run deletes this "
                               "directory and starts afresh.\n", encoding="utf-8")
    return store


def _missing_part(note: str) -> str:
    """``provgraph.x (why)`` from a finding's note ``(not available: provgraph.x missing: why)``."""
    what = note.removeprefix("(not available: ").removesuffix(")")
    name, _, why = what.partition(" missing")
    why = why.removeprefix(": ")
    return f"{name} ({why})" if why else name


def run_demo(store_path: Path | None = None, *, console: Any = None, quiet: bool = False,
             program: str = "provgraph", evaluation: bool = True) -> DemoResult:
    """Run the reference pipeline end to end, print the audit report, return the results.

    Args:
        store_path: directory for the demo store; ``None`` means ``./.provgraph-demo``.
            An existing demo store there is deleted first (a directory that is not a
            demo store is never deleted).
        console: a ``rich.console.Console`` to print to (default: standard output).
        quiet: print nothing.
        program: how the report spells the provgraph command in the commands it
            suggests (``.venv/bin/provgraph`` when ``provgraph`` is not on PATH).
        evaluation: run the evaluation step (metrics, gates, the exposure test) after the
            pipeline; ``False`` leaves it out, and the store then holds the pipeline's
            statements only, the same on every run.

    Returns:
        :class:`DemoResult`; the store is closed.

    Raises:
        ProvgraphError: ``store_path`` holds something other than a demo store, or the
            corpus is missing; or a provgraph module the report asks did not import
            (after the report is printed, with what it could show: issue 17, the
            demo exited 0 then).
    """
    from . import report

    started = time.perf_counter()
    path = Path(store_path) if store_path is not None else DEFAULT_STORE
    store = _fresh_store(path)
    try:
        questions = load_questions()
        result = run_pipeline(store, questions)
        qa_run = result.runs["flask-docs-qa"]
        facts = audit.claim_facts(store, qa_run)
        outcomes: dict[str, QuestionOutcome] = {}
        claim_q: dict[str, str] = {}
        cit_q: dict[str, str] = {}
        for a in result.answered:
            q = a.question
            outcomes[q.id] = QuestionOutcome(
                id=q.id, question=q.text, expect=q.expect, page=q.page, answer=a.plan.text,
                abstained=a.plan.abstained, claims=a.claims,
                claim_kinds=[c.kind for c in a.plan.claims], citations=a.citations,
                cited_pages=a.cited_pages, note=q.note)
            claim_q.update({c: q.id for c in a.claims})
            cit_q.update({c: q.id for cits in a.citations for c in cits})
        demo = DemoResult(
            store_path=path.resolve(), runs=result.runs, questions=outcomes, claim_question=claim_q,
            citation_question=cit_q,
            stale=audit.stale_claims(store, facts, PARSER_V1.agent),
            parser_affected=audit.parser_affected(store, facts, PARSER_V2.agent),
            generated_targets=audit.generated_targets(facts), abstentions=audit.abstentions(facts),
            facts=facts, pipeline=result)
        demo.findings = report.library_findings(store, demo)  # resolves the QA run
        demo.counts = report.counts(store, result)
        if evaluation:
            demo.evaluation = evaluate(store, result, path.resolve() / "fixtures")
    finally:
        store.close()
    demo.seconds = time.perf_counter() - started
    demo.program = program
    if not quiet:
        report.render(demo, console)
    missing = [f.note for f in demo.findings.values() if not f.available]
    if missing:
        what = "; ".join(dict.fromkeys(_missing_part(n) for n in missing))
        raise ProvgraphError(f"the demo ran without {what}; reinstall provgraph with its "
                             "dependencies ('make demo', or pip install -e .) and run it again")
    return demo
