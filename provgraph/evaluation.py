"""Claim-level evaluation over recorded provenance: metrics with stated denominators (issue 18).

Every metric is one :class:`MetricRow`: a numerator, a denominator, how many items of
the scope were excluded from the denominator and why (``note``). A metric that cannot be
computed is *undefined* (``value=None``), never zero, and the note says why.

The facts come from three readers, each the one place its concept is defined:

* ``evaluation-claims.rq``: one row per claim (run, answer, question, kind, status,
  citation count, quoting/verified flags counted as ``coverage.rq`` counts them,
  derivation operands and warrants, cited snapshots, support agent roles);
* :func:`provgraph.analytics.unsupported` (``unsupported.rq``): which claims have no
  eligible evidence (the one definition of eligible evidence);
* :func:`provgraph.schema.citation.citations_of_runs`: each citation with its recorded
  resolver outcome (the citation decoder every other reader uses);
* :func:`provgraph.analytics.stale`: which claims cite a revised or deleted snapshot.

=============================  ===========================================  ==========================================  =====================================
metric                         numerator                                    denominator                                 excluded
=============================  ===========================================  ==========================================  =====================================
``claim_coverage``             claims with eligible evidence, or of kind    claims                                      none
                               ``abstention``, or with status ``uncertain``
                               (claims minus :func:`~provgraph.analytics.
                               unsupported` rows)
``cited_claim_rate``           cited non-abstention claims of citing        non-abstention claims of citing answers     abstentions; claims of answers with
                               answers                                                                                  no citation (undefined per answer)
``quotation_fidelity``         verified quotations (claims                  quoting claims (kind ``quotation`` or a     claims that quote nothing
                               ``prov:wasQuotedFrom`` a source)             citation with a quote)
``generated_target_rate``      citations with outcome ``generated_target``  resolved citations (with an outcome)        unresolved citations
``locator_precision``          citations resolved to a verified exact span  citations the resolver located in a         resolved citations not located
                               (``quote_match``, ``normalized_match``)      retained original (those two, ``located``,  (failures); unresolved citations
                                                                            ``context_not_extracted``)
``freshness_compliance``       claims each of whose cited snapshots is      claims with a cited snapshot                claims citing no snapshot
                               current (no newer revision, not deleted),    (``pg:citedSnapshot``)
                               or observed within ``max_age`` of ``as_of``
``transformation_completeness`` claims whose support names a parser,        claims                                      none
                               chunker, retriever, model and prompt
                               template, each with a version
``correct_abstention``         answers labelled unanswerable that abstain   answers labelled unanswerable               answers labelled answerable (those
                               (every claim of kind ``abstention``)         (:mod:`provgraph.labels`: a fixture's       that abstain are named: over-
                                                                            expected answer ``unknown``, or a           abstention), unlabelled and disputed
                                                                            review's ``answerability`` verdict)         answers; undefined when none labelled
``contradiction_visibility``   undefined: needs labels of which sources disagree
=============================  ===========================================  ==========================================  =====================================

The cited-claim rate is defined per answer: an answer that carries no citation at all
has an *undefined* rate (its pipeline did not cite; 0 would say it cited nothing it
could have), and so does an answer with no claim other than abstentions. At run level
the rate pools the answers where it is defined; the claims of the others are counted
in ``excluded``.

``--by question`` groups by answer (each answer answers one question; the question's
text is in ``question``); ``--by outcome`` gives each resolver outcome's share of the
resolved citations of a run, the breakdown behind ``generated_target_rate`` and
``locator_precision``.

Example:
    >>> from provgraph import EmbeddedStore, Recorder
    >>> store = EmbeddedStore()
    >>> rec = Recorder(store, packages=[])
    >>> snap = rec.snapshot(b"Water boils at 100 C.", uri="file:///f.txt", media_type="text/plain")
    >>> gi = rec.context_packing(text="q", segments=[])
    >>> ans = rec.generation(gi, model=("m", "1"), text="Water boils at 100 C. It is wet.")
    >>> c1 = rec.claim(ans, start=0, end=21, kind="quotation")
    >>> _ = rec.citation(c1, target=snap, quote="Water boils at 100 C.")
    >>> _ = rec.claim(ans, start=22, end=32, kind="paraphrase")
    >>> row = next(r for r in metrics(store) if r.metric == "claim_coverage")
    >>> row.numerator, row.denominator, row.value
    (1, 2, 0.5)
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ._rows import _int, _Row, _run_query, _str
from .kinds import check_run
from .labels import ANSWERABLE, DISPUTED, UNANSWERABLE, AnswerLabel, answerability_labels
from .schema import citation as citation_schema
from .schema import snapshot as snapshot_schema
from .schema.citation import Citation
from .store import ProvStore
from .terms import IRI
from .vocab import OUTCOMES, VERIFIED_OUTCOMES

__all__ = ["MetricRow", "ClaimFacts", "metrics", "claim_facts", "METRICS", "GROUPINGS",
           "REQUIRED_ROLES", "LOCATED_OUTCOMES"]

METRICS = ("claim_coverage", "cited_claim_rate", "quotation_fidelity", "generated_target_rate",
           "locator_precision", "freshness_compliance", "transformation_completeness",
           "correct_abstention", "contradiction_visibility")
"""The metrics of :func:`metrics`, in output order."""

GROUPINGS = ("run", "question", "outcome")
"""What :func:`metrics` can group by."""

REQUIRED_ROLES = ("Parser", "Chunker", "Retriever", "Model", "PromptTemplate")
"""The agent roles (``pg:`` classes) a claim's support must name, each with a version,
for ``transformation_completeness``."""

LOCATED_OUTCOMES = (*VERIFIED_OUTCOMES, "located", "context_not_extracted")
"""Outcomes where the resolver found the cited place in a retained original: the
denominator of ``locator_precision``."""

SHARE_DIGITS = 4
"""Decimal places of :attr:`MetricRow.value` (as :data:`provgraph.analytics.SHARE_DIGITS`)."""

_NO_LABELS = {
    "correct_abstention": "undefined: no answerability labels recorded for these answers (a "
                          "fixture's expected answer 'unknown', or a review's answerability "
                          "verdict: 'provgraph review --verdict answerability=...')",
    "contradiction_visibility": "undefined: no contradiction labels recorded (which sources "
                                "disagree); record adjudications to measure it",
}


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class MetricRow(_Row):
    """One metric over one group.

    Attributes:
        run: the run the group belongs to.
        group: the group: the run IRI (``by="run"``), the answer IRI (``"question"``,
            ``""`` for claims recorded without an answer) or a resolver outcome
            (``"outcome"``).
        question: the question's text for ``by="question"`` when recorded, else ``""``.
        metric: one of :data:`METRICS`, or ``citation_outcome`` for ``by="outcome"``.
        numerator: items that meet the metric (``None`` when undefined for lack of labels).
        denominator: items it is out of, after exclusions (``None`` likewise).
        value: ``numerator / denominator`` rounded to 4 decimal places; ``None``
            (undefined, not zero) when the denominator is 0 or the metric needs labels.
        excluded: items of the scope left out of the denominator (unit as the denominator's).
        note: what the exclusions are, or why the metric is undefined.
    """

    run: IRI
    group: str
    question: str
    metric: str
    numerator: int | None
    denominator: int | None
    value: float | None
    excluded: int
    note: str


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ClaimFacts:
    """The facts of one claim the metrics use (a row of ``evaluation-claims.rq``).

    Attributes:
        run, answer, claim: IRIs (``answer`` is ``""`` when none was recorded).
        question: the question text, ``""`` when not recorded.
        kind, status: as recorded (``""`` when absent).
        citations: number of citations.
        quoting, verified: a quoting claim / a verified quotation, as ``coverage.rq`` counts.
        operands, warrants: derivation operands and ``pg:warrant`` values.
        cited_snapshots: number of ``pg:citedSnapshot`` snapshots.
        roles: the :data:`REQUIRED_ROLES` among its versioned support agents.
        unsupported: listed by :func:`provgraph.analytics.unsupported` (no eligible evidence).
    """

    run: IRI
    answer: str
    question: str
    claim: IRI
    kind: str
    status: str
    citations: int
    quoting: bool
    verified: bool
    operands: int
    warrants: int
    cited_snapshots: int
    roles: frozenset[str]
    unsupported: bool


def _runs(store: ProvStore, runs: Sequence[str] | None) -> list[IRI] | None:
    if runs is None:
        return None
    return [r for r in (check_run(store, x) for x in runs) if r is not None]


def claim_facts(store: ProvStore, runs: Sequence[str] | None = None) -> list[ClaimFacts]:
    """The per-claim facts of ``runs`` (``None``: every run), sorted by run, answer, claim.

    Reads ``evaluation-claims.rq`` and :func:`provgraph.analytics.unsupported` (one query
    each per run asked for, or one each for every run).

    Raises:
        QueryParameterError: a run is not an absolute IRI.
        NotFound: a run is not in the store (or was deleted, or is not a run).
    """
    from .analytics import unsupported

    chosen = _runs(store, runs)
    scope: list[IRI | None] = [*chosen] if chosen is not None else [None]
    out: list[ClaimFacts] = []
    for run in scope:
        bare = {r.claim for r in unsupported(store, run=run)}
        for r in _run_query(store, "evaluation-claims", {"run": run}):
            claim = IRI(r["claim"])
            roles = frozenset((_str(r["roles"]) or "").split()) & frozenset(REQUIRED_ROLES)
            out.append(ClaimFacts(
                run=IRI(r["run"]), answer=_str(r["answer"]) or "", question=_str(r["question"]) or "",
                claim=claim, kind=_str(r["kind"]) or "", status=_str(r["status"]) or "",
                citations=_int(r["citations"]), quoting=_int(r["quoting"]) > 0,
                verified=_int(r["verified"]) > 0, operands=_int(r["operands"]),
                warrants=_int(r["warrants"]), cited_snapshots=_int(r["cited_snapshots"]),
                roles=roles, unsupported=claim in bare))
    return sorted(out, key=lambda f: (f.run, f.answer, f.claim))


def _share(n: int, d: int) -> float | None:
    return round(n / d, SHARE_DIGITS) if d else None


def _row(run: IRI, group: str, question: str, metric: str, n: int, d: int, excluded: int,
         note: str, undefined: str) -> MetricRow:
    return MetricRow(run=run, group=group, question=question, metric=metric, numerator=n,
                     denominator=d, value=_share(n, d), excluded=excluded,
                     note=note if d else (f"undefined: {undefined}" + (f"; {note}" if note else "")))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _claim_metrics(run: IRI, group: str, question: str, claims: list[ClaimFacts],
                   stale: dict[IRI, set[IRI]], fresh_snapshots: set[IRI]) -> list[MetricRow]:
    out: list[MetricRow] = []
    n = len(claims)
    abst = sum(c.kind == "abstention" for c in claims)
    unc = sum(c.status == "uncertain" and c.kind != "abstention" for c in claims)
    bare = sum(c.unsupported for c in claims)
    accounted = [x for x in (_plural(abst, "abstention") if abst else "",
                             f"{unc} uncertain" if unc else "") if x]
    out.append(_row(run, group, question, "claim_coverage", n - bare, n, 0, "; ".join(
        ([" and ".join(accounted) + " counted as accounted for"] if accounted else [])
        + ([f"{bare} without eligible evidence ('provgraph unsupported' lists them)"]
           if bare else [])), "no claims"))
    # cited-claim rate: per answer, undefined for an answer with no citation
    answers: dict[str, list[ClaimFacts]] = {}
    for c in claims:
        answers.setdefault(c.answer, []).append(c)
    num = den = 0
    no_cite_answers = no_cite_claims = 0
    for cs in answers.values():
        material = [c for c in cs if c.kind != "abstention"]
        if not material:
            continue  # abstentions only: counted as abstentions
        if not any(c.citations for c in cs):
            no_cite_answers += 1
            no_cite_claims += len(material)
            continue
        den += len(material)
        num += sum(c.citations > 0 for c in material)
    parts = []
    if abst:
        parts.append(_plural(abst, "abstention"))
    if no_cite_answers:
        parts.append(f"{_plural(no_cite_claims, 'claim')} of "
                     f"{_plural(no_cite_answers, 'answer')} without citations "
                     "(the rate is undefined for such an answer, not 0)")
    out.append(_row(run, group, question, "cited_claim_rate", num, den, abst + no_cite_claims,
                    "excluded: " + "; ".join(parts) if parts else "",
                    "no answer with citations and a claim other than an abstention"))
    quoting = sum(c.quoting for c in claims)
    verified = sum(c.verified for c in claims)
    out.append(_row(run, group, question, "quotation_fidelity", verified, quoting, n - quoting,
                    f"excluded: {_plural(n - quoting, 'claim')} quoting nothing" if n - quoting else "",
                    "no quotations"))
    cited = [c for c in claims if c.cited_snapshots]
    fresh = sum(not (stale.get(c.claim, set()) - fresh_snapshots) for c in cited)
    out.append(_row(run, group, question, "freshness_compliance", fresh, len(cited), n - len(cited),
                    (f"excluded: {_plural(n - len(cited), 'claim')} citing no snapshot"
                     if n - len(cited) else ""), "no claim cites a snapshot"))
    complete = sum(c.roles == frozenset(REQUIRED_ROLES) for c in claims)
    missing = Counter(r for c in claims for r in REQUIRED_ROLES if r not in c.roles)
    out.append(_row(run, group, question, "transformation_completeness", complete, n, 0,
                    ("missing: " + ", ".join(f"{r} ({k})" for r, k in sorted(missing.items()))
                     if missing else ""), "no claims"))
    return out


def _citation_metrics(run: IRI, group: str, question: str, cits: list[Citation]) -> list[MetricRow]:
    outcomes = Counter(c.outcome for c in cits)
    unresolved = outcomes.pop(None, 0)
    resolved = sum(outcomes.values())
    hint = (f"; {_plural(unresolved, 'citation')} not resolved (run 'provgraph resolve')"
            if unresolved else "")
    gen = outcomes.get("generated_target", 0)
    out = [_row(run, group, question, "generated_target_rate", gen, resolved, unresolved,
                f"excluded: {unresolved} unresolved" if unresolved else "",
                "no resolved citations" + hint)]
    located = sum(outcomes.get(o, 0) for o in LOCATED_OUTCOMES)
    exact = sum(outcomes.get(o, 0) for o in VERIFIED_OUTCOMES)
    failed = resolved - located
    parts = ([f"{failed} not located (failure outcomes)"] if failed else []) + (
        [f"{unresolved} unresolved"] if unresolved else [])
    out.append(_row(run, group, question, "locator_precision", exact, located, failed + unresolved,
                    "excluded: " + "; ".join(parts) if parts else "",
                    "no citation located in a retained original" + hint))
    return out


def _outcome_rows(run: IRI, cits: list[Citation]) -> list[MetricRow]:
    outcomes = Counter(c.outcome for c in cits)
    unresolved = outcomes.pop(None, 0)
    resolved = sum(outcomes.values())
    note = f"excluded: {unresolved} unresolved" if unresolved else ""
    return [_row(run, o, "", "citation_outcome", outcomes.get(o, 0), resolved, unresolved, note,
                 "no resolved citations") for o in OUTCOMES]


def _label_rows(run: IRI, group: str, question: str, claims: list[ClaimFacts],
                labels: Mapping[str, AnswerLabel]) -> list[MetricRow]:
    out = [MetricRow(run=run, group=group, question=question, metric=m, numerator=None,
                     denominator=None, value=None, excluded=0, note=note)
           for m, note in _NO_LABELS.items()]
    answers: dict[str, list[ClaimFacts]] = {}
    for c in claims:
        answers.setdefault(c.answer, []).append(c)
    labelled = {a: labels[a] for a in answers if a in labels}
    if not labelled:
        return out

    def abstains(a: str) -> bool:
        return all(c.kind == "abstention" for c in answers[a])

    unanswerable = [a for a, lab in labelled.items() if lab.value == UNANSWERABLE]
    answerable = [a for a, lab in labelled.items() if lab.value == ANSWERABLE]
    disputed = sum(lab.value == DISPUTED for lab in labelled.values())
    unlabelled = len(answers) - len(labelled)
    over = sum(abstains(a) for a in answerable)
    parts = ([f"{_plural(len(answerable), 'answer')} labelled answerable"
              + (f" ({over} of them abstained: over-abstention)" if over else "")]
             if answerable else [])
    parts += [f"{_plural(unlabelled, 'answer')} without a label"] if unlabelled else []
    parts += ([f"{_plural(disputed, 'answer')} whose reviews disagree (adjudicate them)"]
              if disputed else [])
    out[0] = _row(run, group, question, "correct_abstention",
                  sum(abstains(a) for a in unanswerable), len(unanswerable),
                  len(answers) - len(unanswerable),
                  "excluded: " + "; ".join(parts) if parts else "",
                  "no answer labelled unanswerable")
    return out


def _fresh_within(store: ProvStore, snapshots: Iterable[IRI], max_age: _dt.timedelta | None,
                  as_of: _dt.datetime) -> set[IRI]:
    """The snapshots among ``snapshots`` observed within ``max_age`` of ``as_of``."""
    if max_age is None:
        return set()
    recs = snapshot_schema.load(store, sorted(set(snapshots)))
    return {i for i, s in recs.items() if as_of - s.observed_at <= max_age}


def metrics(store: ProvStore, *, runs: Sequence[str] | None = None, by: str = "run",
            max_age: _dt.timedelta | None = None,
            as_of: _dt.datetime | None = None) -> list[MetricRow]:
    """The evaluation metrics of recorded or imported runs, each with its denominator.

    See the module docstring for each metric's numerator, denominator and exclusions.

    Args:
        store: the store to read.
        runs: run IRIs; ``None`` means every run that has claims or citations.
        by: ``"run"`` (one row per metric per run), ``"question"`` (per answer) or
            ``"outcome"`` (each resolver outcome's share of a run's resolved citations).
        max_age: for ``freshness_compliance``, a revised or deleted cited snapshot still
            complies when it was observed at most this long before ``as_of``;
            ``None``: only current snapshots comply.
        as_of: the instant ``max_age`` is measured back from (timezone-aware); ``None``
            means now (UTC).

    Returns:
        ``list[MetricRow]``: by run (IRI order), then group, then :data:`METRICS` order
        (:data:`~provgraph.vocab.OUTCOMES` order for ``by="outcome"``).

    Raises:
        ValueError: ``by`` is not one of :data:`GROUPINGS`, ``as_of`` is naive, or
            ``max_age`` is negative.
        QueryParameterError: a run is not an absolute IRI.
        NotFound: a run is not in the store (or was deleted, or is not a run).
    """
    from .staleness import stale as stale_rows

    if by not in GROUPINGS:
        raise ValueError(f"by={by!r}: give one of {', '.join(GROUPINGS)}")
    if as_of is not None and as_of.tzinfo is None:
        raise ValueError("as_of is a naive datetime; give a timezone-aware one")
    if max_age is not None and max_age < _dt.timedelta(0):
        raise ValueError(f"max_age={max_age} is negative")
    when = as_of or _dt.datetime.now(_dt.timezone.utc)
    chosen = _runs(store, runs)
    facts = claim_facts(store, chosen)
    cits = citation_schema.citations_of_runs(store, chosen)
    scope = sorted(set(chosen) if chosen is not None else
                   {f.run for f in facts} | {c.graph for c in cits if c.graph is not None})
    by_run: dict[IRI, list[ClaimFacts]] = {r: [] for r in scope}
    for f in facts:
        by_run.setdefault(f.run, []).append(f)
    cits_by_run: dict[IRI, list[Citation]] = {r: [] for r in scope}
    for c in cits:
        if c.graph is not None:
            cits_by_run.setdefault(c.graph, []).append(c)
    claims_of_answer: dict[str, list[IRI]] = {}
    for f in facts:
        if f.answer:
            claims_of_answer.setdefault(f.answer, []).append(f.claim)
    labels = ({} if by == "outcome" else answerability_labels(
        store, scope, claims_of_answer, {f.answer: f.run for f in facts if f.answer}))
    out: list[MetricRow] = []
    for run in scope:
        if by == "outcome":
            out += _outcome_rows(run, cits_by_run[run])
            continue
        stale: dict[IRI, set[IRI]] = {}
        for s in stale_rows(store, run=run):
            stale.setdefault(s.claim, set()).add(s.snapshot)
        fresh = _fresh_within(store, (s for ss in stale.values() for s in ss), max_age, when)
        claim_answer = {f.claim: f.answer for f in by_run[run]}
        if by == "run":
            groups = [(str(run), "", by_run[run], cits_by_run[run])]
        else:
            answers = sorted({f.answer for f in by_run[run]})
            groups = [(a, next((f.question for f in by_run[run] if f.answer == a), ""),
                       [f for f in by_run[run] if f.answer == a],
                       [c for c in cits_by_run[run] if claim_answer.get(c.claim or IRI("")) == a])
                      for a in answers]
        for group, question, claims, gcits in groups:
            rows = _claim_metrics(run, group, question, claims, stale, fresh)
            rows += _citation_metrics(run, group, question, gcits)
            rows += _label_rows(run, group, question, claims, labels)
            order = {m: i for i, m in enumerate(METRICS)}
            out += sorted(rows, key=lambda r: order[r.metric])
    return out
