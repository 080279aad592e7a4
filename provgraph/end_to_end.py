"""The end-to-end mode of the exposure test (issue 18 part 3): does a generated aid help
*retrieval*? Reported apart from the origin figures of :mod:`provgraph.exposure`.

The paired exposure test holds the retrieved originals fixed and asks whether generated
text becomes attributed evidence. This mode asks the other question a team weighs
against it: what the aid buys in retrieval. Two arms per query and repetition:

==============  ==================================================================
arm             what the user's retriever gets
==============  ==================================================================
``without_aid`` the query only (:attr:`RetrievalContext.aids` is empty)
``with_aid``    the query and the fixture's generated aids (a HyDE document, say)
==============  ==================================================================

The retriever protocol. The user's callable ``retrieve(ctx) -> RetrievalOutput`` gets a
:class:`RetrievalContext`: the query, every candidate original of the fixture corpus
(one per non-empty line of each source, in file order, the same ids as the exposure
test's :class:`~provgraph.exposure.Original`), the aids of the arm, the cut-off ``k``
and the seed (the same in both arms of a query and repetition). It returns a
:class:`RetrievalOutput`: the original ids it ranks, best first (scores optional), the
retriever ``(name, version)``, the aids it used (a subset of those given) and, if it
knows it, the cost of the call (the aid's generation included, in a unit it names).

Each arm call is recorded as its own run (configuration key ``end_to_end``: fixture, its
run, arm, repetition, seed, ``k``, cost and unit): the query, the sources and their
originals as chunks, the aids, and one retrieval (``prov:Usage`` per hit with
``pg:rank`` and ``pg:score``; the aids it used) whose ``prov:startedAtTime`` and
``prov:endedAtTime`` span the measured call. No generation is recorded: these runs hold
no answer and no claim, so no origin metric (:mod:`provgraph.evaluation`) can count
them, and their numbers are reported in their own table.

Metrics, per arm, read back from the store (the recorded retrievals and run
configurations), not from what the retriever returned:

=====================  ==========================================================  ===========
metric                 per call                                                    unit
=====================  ==========================================================  ===========
``recall_at_k``        relevant originals in the top ``k`` / relevant originals    share
``precision_at_k``     relevant originals in the top ``k`` / min(``k``, candidates) share
``reciprocal_rank``    1 / rank of the first relevant hit (0 when none is ranked)  share
``latency_seconds``    wall-clock seconds of the retriever call, as recorded       seconds
``cost``               the cost the retriever reported                             its unit
=====================  ==========================================================  ===========

An original is *relevant* when its code point range overlaps one of the fixture's
evidence spans (:class:`provgraph.fixtures.EvidenceSpan`). A fixture with no evidence
(an unanswerable question) has no relevance figures; latency and cost still count.

Missing data. A query's value pools its repetitions: recall and precision as pooled
numerators over denominators, the others as means of the calls that have a value;
undefined when nothing is defined. Paired differences (``with_aid`` minus
``without_aid``) use complete pairs only, as in :data:`provgraph.exposure.MISSING_DATA_POLICY`.
"""

from __future__ import annotations

import datetime as _dt
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import fixtures as fixtures_mod
from .bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, paired_bootstrap
from .errors import ExposureError
from .evaluation import SHARE_DIGITS
from .exposure import MISSING_DATA_POLICY, Aid, ArmRun, Original, check_queries, \
    generation_seed, originals_of, output_errors, output_where, record_originals
from .fixtures import QUERY_REF, Fixture
from .model import AidRecord, Hit
from .recorder import Recorder
from .schema import retrieval as retrieval_schema
from .schema import run as run_schema
from .store import ProvStore
from .terms import IRI
from ._rows import _Row

__all__ = ["E2E_ARMS", "E2E_METRICS", "DEFAULT_K", "RetrievalContext", "RetrievalOutput",
           "Retriever", "RetrievalRun", "RetrievalRow", "RetrievalReport", "run_end_to_end"]

E2E_ARMS = ("without_aid", "with_aid")
"""The arms of the end-to-end mode; differences are ``with_aid`` minus ``without_aid``."""

E2E_METRICS = ("recall_at_k", "precision_at_k", "reciprocal_rank", "latency_seconds", "cost")
"""The retrieval metrics, in report order (module docstring)."""

DEFAULT_K = 3
"""The default rank cut-off of recall and precision."""

_SHARES = ("recall_at_k", "precision_at_k")
CONFIG_KEY = "end_to_end"
"""The run configuration key of an end-to-end arm run."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalContext:
    """What a retriever is given for one arm.

    Attributes:
        query: the question exactly as asked.
        candidates: every original of the fixture corpus, in file order (rank them; the
            order given carries no relevance).
        aids: the fixture's aids in ``with_aid``; empty in ``without_aid``.
        arm: one of :data:`E2E_ARMS`.
        k: the rank cut-off the report uses (rank more if you like; only the top ``k``
            count for recall and precision, the whole list for the reciprocal rank).
        seed: the same in both arms of a query and repetition.
        repeat: the repetition, from 1.
    """

    query: str
    candidates: tuple[Original, ...]
    aids: tuple[Aid, ...]
    arm: str
    k: int
    seed: int
    repeat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalOutput:
    """What a retriever returns for one arm.

    Attributes:
        ranked: candidate ids, best first, no repeats.
        scores: one score per ranked id (higher is better), or empty.
        retriever: ``(name, version)`` of the retriever.
        aids_used: ids of the aids the retrieval used (a subset of :attr:`RetrievalContext.aids`).
        cost: the call's cost in ``cost_unit`` (the aid's generation included), ``None``
            when unknown; not negative.
        cost_unit: what ``cost`` counts (``"tokens"``, ``"USD"``), the same in every call.
    """

    ranked: tuple[str, ...]
    retriever: tuple[str, str]
    scores: tuple[float, ...] = ()
    aids_used: tuple[str, ...] = ()
    cost: float | None = None
    cost_unit: str = ""


Retriever = Callable[[RetrievalContext], RetrievalOutput]
"""The retriever protocol: one call per arm, query and repetition."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalRun(ArmRun):
    """One recorded arm call (:class:`provgraph.exposure.ArmRun`) and its retrieval."""

    retrieval: IRI


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalRow(_Row):
    """One arm and metric of the end-to-end mode.

    Attributes:
        arm, metric: the arm (:data:`E2E_ARMS`) and metric (:data:`E2E_METRICS`).
        value: the arm's value over every query and repetition (pooled share for recall
            and precision, mean over calls otherwise), 4 decimal places (latency: 6);
            ``None`` when undefined.
        numerator, denominator: the pooled counts of a share; ``None`` for a mean.
        calls: the calls the value rests on.
        unit: ``share``, ``seconds`` or the cost unit.
        difference: mean over queries of (``with_aid`` minus ``without_aid``); ``None``
            for ``without_aid`` or when no query has both values.
        ci_low, ci_high: its paired percentile bootstrap interval.
        queries, excluded: queries in the difference, and left out (complete pairs).
        note: why a value or difference is undefined, else ``""``.
    """

    arm: str
    metric: str
    value: float | None
    numerator: int | None
    denominator: int | None
    calls: int
    unit: str
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    queries: int
    excluded: int
    note: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalReport:
    """What :func:`run_end_to_end` did: the arm runs, one row per arm and metric, and
    the settings (as :class:`provgraph.exposure.ExposureReport`)."""

    runs: tuple[RetrievalRun, ...]
    rows: tuple[RetrievalRow, ...]
    k: int
    queries: int
    repeats: int
    resamples: int
    confidence: float
    seed: int
    missing_data: str = MISSING_DATA_POLICY

    def summary(self) -> str:
        """One line saying what was compared and how."""
        return (f"end-to-end retrieval (reported apart from the origin figures): "
                f"{self.queries} quer{'y' if self.queries == 1 else 'ies'}, {self.repeats} "
                f"repetition(s) per arm, k = {self.k}, differences with_aid - without_aid "
                f"with a paired percentile bootstrap over queries ({self.resamples} "
                f"resamples, {self.confidence:.0%}, seed {self.seed}); missing data: "
                f"{self.missing_data}")


def run_end_to_end(store: ProvStore, fixtures: Sequence[Fixture], retriever: Retriever, *,
                   k: int = DEFAULT_K, repeats: int = 1, seed: int = 0,
                   resamples: int = DEFAULT_RESAMPLES, confidence: float = DEFAULT_CONFIDENCE,
                   retriever_name: str = "") -> RetrievalReport:
    """Call ``retriever`` once per arm, fixture (query) and repetition; record each call
    as a run; compare the arms on the recorded retrievals.

    Args:
        store: where the fixtures and the arm runs are recorded.
        fixtures: the queries (one per fixture; each must pass its check); ids unique.
        retriever: the retriever (module docstring, "The retriever protocol").
        k: the rank cut-off of recall and precision (at least 1).
        repeats: calls per arm and query (at least 1), pooled per query.
        seed: seeds the per-query seeds and the bootstrap (metric ``j`` of
            :data:`E2E_METRICS`, from 0, draws with ``random.Random(seed * 1000 + j)``).
        resamples, confidence: of the bootstrap (:func:`provgraph.bootstrap.paired_bootstrap`).
        retriever_name: recorded in each run's configuration.

    Returns:
        :class:`RetrievalReport`, rows in :data:`E2E_ARMS` then :data:`E2E_METRICS` order.

    Raises:
        ExposureError: bad ``k`` or repeats, no fixture or a repeated id; a retriever that
            raises, returns another type, ranks an unknown or repeated id, gives scores
            of another length, names an aid it was not given, a negative or non-finite
            cost, or changes its cost unit (the runs recorded before stay in the store).
        FixtureError: a fixture fails its check.
        RecordError, StoreError: as the Recorder raises them.
    """
    if k < 1:
        raise ExposureError(f"--k {k}: the rank cut-off is at least 1")
    check_queries(fixtures, repeats)
    runs: list[RetrievalRun] = []
    unit: list[str] = []
    chunk_ids: dict[IRI, str] = {}  # chunk IRI -> original id
    for fx in fixtures:
        fixture_run = fixtures_mod.record(store, fx).run
        for r in range(1, repeats + 1):
            s = generation_seed(seed, fx.id, r)
            for arm in E2E_ARMS:
                runs.append(_run_arm(store, fx, fixture_run, retriever, arm, k, r, s,
                                     retriever_name, unit, chunk_ids))
    rows = _compare(store, fixtures, runs, k, chunk_ids, seed, resamples, confidence)
    return RetrievalReport(runs=tuple(runs), rows=tuple(rows), k=k, queries=len(fixtures),
                           repeats=repeats, resamples=resamples, confidence=confidence,
                           seed=seed)


def _run_arm(store: ProvStore, fx: Fixture, fixture_run: IRI, retriever: Retriever, arm: str,
             k: int, repeat: int, seed: int, name: str, unit: list[str],
             chunk_ids: dict[IRI, str]) -> RetrievalRun:
    spans = originals_of(fx)
    candidates = tuple(o for o, *_ in spans)
    aids = tuple(Aid(id=a.id, kind=a.kind, text=a.text) for a in fx.aids.values()) \
        if arm == "with_aid" else ()
    ctx = RetrievalContext(query=fx.query, candidates=candidates, aids=aids, arm=arm, k=k,
                           seed=seed, repeat=repeat)
    where = output_where("retriever output", arm, fx, repeat)
    started = _dt.datetime.now(_dt.timezone.utc)
    t0 = time.perf_counter()
    try:
        out = retriever(ctx)
    except (Exception, SystemExit) as exc:  # the user's code (sys.exit too): an input error
        raise ExposureError(
            f"the retriever {name} raised {type(exc).__name__} in arm {arm} (fixture {fx.id}, "
            f"repetition {repeat}): {exc}; fix the retriever (the arms recorded before this "
            "one stay in the store)") from exc
    elapsed = time.perf_counter() - t0
    ended = started + _dt.timedelta(seconds=elapsed)
    _check_output(out, ctx, where, unit)
    config = {CONFIG_KEY: {"fixture": fx.id, "fixture_run": str(fixture_run), "arm": arm,
                           "repeat": repeat, "seed": seed, "k": k, "retriever": name,
                           "cost": out.cost, "cost_unit": out.cost_unit}}
    rec = Recorder(store, label=f"end-to-end {fx.id} {arm} #{repeat}", config=config)
    with output_errors(where), rec.batch():
        q = rec.query(fx.query)
        chunks = record_originals(rec, fx, spans)
        chunk_ids.update({c.iri: oid for oid, c in chunks.items()})
        aid_recs: dict[str, AidRecord] = {}
        for a in fx.aids.values():
            if a.id not in {x.id for x in aids}:
                continue
            derived: list[Any] = []
            for ref in a.derived_from:
                derived += [q] if ref == QUERY_REF else [
                    c for oid, c in chunks.items() if oid.rsplit("-", 1)[0] == ref]
            aid_recs[a.id] = rec.aid(a.kind, text=a.text, model=a.model, derived_from=derived)
        scores = out.scores or (None,) * len(out.ranked)
        hits = [Hit(target=chunks[oid], rank=i, score=sc)
                for i, (oid, sc) in enumerate(zip(out.ranked, scores), start=1)]
        ret = rec.retrieval(q, retriever=out.retriever, hits=hits,
                            aids=[aid_recs[a] for a in out.aids_used], started_at=started,
                            ended_at=ended)
    return RetrievalRun(run=rec.iri, fixture=fx.id, fixture_run=fixture_run, arm=arm,
                        repeat=repeat, seed=seed, retrieval=ret.iri)


def _check_output(out: object, ctx: RetrievalContext, where: str, unit: list[str]) -> None:
    if not isinstance(out, RetrievalOutput):
        raise ExposureError(f"{where} is {type(out).__name__}, not a RetrievalOutput; return "
                            "provgraph.end_to_end.RetrievalOutput")
    if isinstance(out.ranked, (str, bytes)) or not isinstance(out.ranked, Sequence):
        raise ExposureError(f"{where}: ranked is {type(out.ranked).__name__} "
                            f"{out.ranked!r:.60}, not a sequence of candidate ids")
    if not (isinstance(out.retriever, (tuple, list)) and len(out.retriever) == 2
            and all(isinstance(x, str) and x for x in out.retriever)):
        raise ExposureError(f"{where}: retriever is {out.retriever!r:.60}, not (name, "
                            "version), two non-empty str")
    for i, sc in enumerate(out.scores, start=1):
        if isinstance(sc, bool) or not isinstance(sc, (int, float)) or not math.isfinite(sc):
            raise ExposureError(f"{where}: score {i} is {sc!r:.40}, not a finite number")
    if out.cost is not None and (isinstance(out.cost, bool)
                                 or not isinstance(out.cost, (int, float))):
        raise ExposureError(f"{where}: cost {out.cost!r:.40} is not a number (or None)")
    if not isinstance(out.cost_unit, str):
        raise ExposureError(f"{where}: cost unit {out.cost_unit!r:.40} is not a str")
    known = {o.id for o in ctx.candidates}
    for i, oid in enumerate(out.ranked, start=1):
        if oid not in known:
            raise ExposureError(f"{where}: rank {i} is {oid!r}, which names no candidate; use "
                                "the ids of RetrievalContext.candidates")
    if len(set(out.ranked)) != len(out.ranked):
        dup = next(o for o in out.ranked if out.ranked.count(o) > 1)
        raise ExposureError(f"{where}: {dup!r} is ranked twice; rank each candidate once")
    if out.scores and len(out.scores) != len(out.ranked):
        raise ExposureError(f"{where}: {len(out.scores)} scores for {len(out.ranked)} ranked "
                            "ids; give one score per ranked id, or none")
    given = {a.id for a in ctx.aids}
    for a in out.aids_used:
        if a not in given:
            raise ExposureError(f"{where}: aids_used names {a!r}, which this arm was not given "
                                f"(arm {ctx.arm} gets {sorted(given) or 'no aids'})")
    if out.cost is not None:
        if not math.isfinite(out.cost) or out.cost < 0:
            raise ExposureError(f"{where}: cost {out.cost!r} is not a finite number >= 0")
        if unit and unit[0] != out.cost_unit:
            raise ExposureError(f"{where}: cost unit {out.cost_unit!r} differs from the "
                                f"earlier calls' {unit[0]!r}; report every cost in one unit")
        unit[:] = [out.cost_unit]


# (shares: numerator, denominator) or (means: value) of one call, per metric
_Obs = dict[str, tuple[int, int] | float | None]


def _observations(store: ProvStore, fixtures: Sequence[Fixture], runs: Sequence[RetrievalRun],
                  k: int, chunk_ids: dict[IRI, str]) -> tuple[dict[IRI, _Obs], set[str]]:
    """Each call's metric values, and the cost units named, from the recorded
    retrievals and run configurations."""
    by_id = {fx.id: fx for fx in fixtures}
    recs = retrieval_schema.load(store, [r.retrieval for r in runs])
    configs = {rr.iri: (rr.config or {}).get(CONFIG_KEY, {})
               for rr in run_schema.load(store, [r.run for r in runs])}
    out: dict[IRI, _Obs] = {}
    units: set[str] = set()
    for r in runs:
        fx = by_id[r.fixture]
        spans = originals_of(fx)
        relevant = {o.id for o, sid, a, b in spans
                    if any(e.source == sid and e.start < b and a < e.end
                           for e in fx.evidence.values())}
        rec = recs[r.retrieval]
        # the recorded hits name chunks (content-derived IRIs: the same in every run)
        ranked = [chunk_ids[IRI(str(h.target))] for h in sorted(rec.hits, key=lambda h: h.rank)]
        obs: _Obs = {}
        top = set(ranked[:k])
        if relevant:
            obs["recall_at_k"] = (len(top & relevant), len(relevant))
            obs["precision_at_k"] = (len(top & relevant), min(k, len(spans)))
            first = next((i for i, oid in enumerate(ranked, start=1) if oid in relevant), None)
            obs["reciprocal_rank"] = 1 / first if first else 0.0
        else:
            obs["recall_at_k"] = obs["precision_at_k"] = obs["reciprocal_rank"] = None
        assert rec.started_at is not None and rec.ended_at is not None
        obs["latency_seconds"] = (rec.ended_at - rec.started_at).total_seconds()
        cost = configs.get(r.run, {}).get("cost")
        obs["cost"] = float(cost) if cost is not None else None
        if cost is not None:
            units.add(str(configs.get(r.run, {}).get("cost_unit") or "unnamed unit"))
        out[r.run] = obs
    return out, units


def _compare(store: ProvStore, fixtures: Sequence[Fixture], runs: Sequence[RetrievalRun], k: int,
             chunk_ids: dict[IRI, str], seed: int, resamples: int, confidence: float
             ) -> list[RetrievalRow]:
    obs, units = _observations(store, fixtures, runs, k, chunk_ids)
    cost_unit = next(iter(units)) if units else "no cost reported"
    queries = [fx.id for fx in fixtures]

    def per_query(arm: str, metric: str, q: str) -> tuple[float | None, int, int | None, int]:
        """(value, calls with a value, numerator, denominator) of one query."""
        vals = [obs[r.run][metric] for r in runs if r.arm == arm and r.fixture == q]
        have = [v for v in vals if v is not None]
        if metric in _SHARES:
            n = sum(v[0] for v in have if isinstance(v, tuple))
            d = sum(v[1] for v in have if isinstance(v, tuple))
            return (n / d if d else None), len(have), n, d
        xs = [float(v) for v in have if not isinstance(v, tuple)]
        return (math.fsum(xs) / len(xs) if xs else None), len(xs), None, 0

    rows: list[RetrievalRow] = []
    for arm in E2E_ARMS:
        for j, metric in enumerate(E2E_METRICS):
            digits = 6 if metric == "latency_seconds" else SHARE_DIGITS
            cells = {q: per_query(arm, metric, q) for q in queries}
            calls = sum(c[1] for c in cells.values())
            if metric in _SHARES:
                n = sum(c[2] or 0 for c in cells.values())
                d = sum(c[3] for c in cells.values())
                value, num, den = (n / d if d else None), n, d
            else:
                xs = [float(v) for r in runs if r.arm == arm
                      if (v := obs[r.run][metric]) is not None and not isinstance(v, tuple)]
                value, num, den = (math.fsum(xs) / len(xs) if xs else None), None, None
            notes = [] if value is not None else [
                "undefined: no fixture has evidence spans" if metric in _SHARES
                or metric == "reciprocal_rank" else "undefined: the retriever reported no cost"]
            diff = lo = hi = None
            defined = sum(c[0] is not None for c in cells.values())
            if arm != "without_aid":
                pairs = [(cells[q][0], per_query("without_aid", metric, q)[0]) for q in queries]
                diffs = [a - b for a, b in pairs if a is not None and b is not None]
                ci = paired_bootstrap(diffs, resamples=resamples, confidence=confidence,
                                      seed=seed * 1000 + j)
                diff, lo, hi, defined = ci.mean, ci.low, ci.high, len(diffs)
                if not diffs:
                    notes.append("no query has it defined in both arms")
            rows.append(RetrievalRow(
                arm=arm, metric=metric, value=_round(value, digits), numerator=num,
                denominator=den, calls=calls,
                unit="share" if metric in _SHARES or metric == "reciprocal_rank" else
                "seconds" if metric == "latency_seconds" else cost_unit,
                difference=_round(diff, digits), ci_low=_round(lo, digits),
                ci_high=_round(hi, digits), queries=defined, excluded=len(queries) - defined,
                note="; ".join(notes)))
    return rows


def _round(x: float | None, digits: int) -> float | None:
    return round(x, digits) if x is not None else None
