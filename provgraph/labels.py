"""Answerability labels for evaluation (issue 18): which recorded answers answer a
question the sources cannot answer.

A label comes from one of two recorded places, in this order:

1. **A frozen fixture.** A run recorded by the exposure test names its fixture's run in its
   configuration (``exposure.fixture_run``; :mod:`provgraph.exposure`), and the fixture's
   run holds the expected answer (:func:`provgraph.fixtures.record`): ``"unknown"`` labels
   every answer of the run *unanswerable*, any other text *answerable*.
2. **Reviews.** An ``answerability`` verdict (:mod:`provgraph.review`) on any claim of the
   answer: the newest adjudicated verdict wins; without one, the reviews' verdict when
   they agree; reviews that disagree leave the answer *disputed* (not labelled) until
   adjudicated.

An answer with neither is unlabelled. :func:`provgraph.evaluation.metrics` uses these
labels for ``correct_abstention``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from .schema import review as review_schema
from .schema import run as run_schema
from .store import ProvStore
from .terms import IRI
from .vocab import PG, RDF

__all__ = ["AnswerLabel", "answerability_labels", "ANSWERABLE", "UNANSWERABLE", "DISPUTED"]

ANSWERABLE = "answerable"
UNANSWERABLE = "unanswerable"
DISPUTED = "disputed"
"""Reviews disagree and no adjudication settled them: not a label."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class AnswerLabel:
    """An answer's answerability label.

    Attributes:
        value: :data:`ANSWERABLE`, :data:`UNANSWERABLE` or :data:`DISPUTED`.
        source: ``fixture <id>``, ``adjudication`` or ``review``.
    """

    value: str
    source: str


def answerability_labels(store: ProvStore, runs: Iterable[IRI],
                         claims_of_answer: Mapping[str, Sequence[IRI]],
                         run_of_answer: Mapping[str, IRI]) -> dict[str, AnswerLabel]:
    """The label of each answer that has one (module docstring).

    Args:
        store: the store to read.
        runs: the runs the answers belong to.
        claims_of_answer: each answer IRI (as text) with its claims.
        run_of_answer: each answer IRI with its run.

    Returns:
        ``{answer IRI: AnswerLabel}`` for the labelled (or disputed) answers only.

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    out: dict[str, AnswerLabel] = {}
    fixture_label = _fixture_labels(store, runs)
    for answer, run in run_of_answer.items():
        if run in fixture_label:
            out[answer] = fixture_label[run]
    if next(iter(store.quads(None, RDF.type, PG.Review)), None) is None:
        return out
    pending = {a: cs for a, cs in claims_of_answer.items() if a not in out and cs}
    answer_of = {c: a for a, cs in pending.items() for c in cs}
    verdicts: dict[str, list[tuple[bool, str]]] = {}
    for rev in review_schema.reviews_of(store, list(answer_of)):  # oldest first
        for v in rev.verdicts:
            if v.kind == "answerability":
                verdicts.setdefault(answer_of[rev.claim], []).append((rev.adjudication, v.value))
    for answer, vs in verdicts.items():
        settled = [value for adj, value in vs if adj]
        if settled:
            out[answer] = AnswerLabel(value=settled[-1], source="adjudication")
        elif len({value for _, value in vs}) == 1:
            out[answer] = AnswerLabel(value=vs[0][1], source="review")
        else:
            out[answer] = AnswerLabel(value=DISPUTED, source="review")
    return out


def _fixture_labels(store: ProvStore, runs: Iterable[IRI]) -> dict[IRI, AnswerLabel]:
    """Each run that names a fixture run, labelled by that fixture's expected answer."""
    from .fixtures import UNKNOWN

    fixture_run: dict[IRI, IRI] = {}
    for rr in run_schema.load(store, sorted(set(runs))):
        named = ((rr.config or {}).get("exposure") or {}).get("fixture_run")
        if isinstance(named, str) and named:
            fixture_run[rr.iri] = IRI(named)
    expected = {rr.iri: (rr.config or {})
                for rr in run_schema.load(store, sorted(set(fixture_run.values())))}
    out: dict[IRI, AnswerLabel] = {}
    for run, fx in fixture_run.items():
        cfg = expected.get(fx)
        answer = cfg.get("expected_answer") if cfg else None
        if isinstance(answer, str) and answer.strip():
            out[run] = AnswerLabel(value=UNANSWERABLE if answer == UNKNOWN else ANSWERABLE,
                                   source=f"fixture {cfg.get('fixture', fx) if cfg else fx}")
    return out
