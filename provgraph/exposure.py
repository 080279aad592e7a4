"""The paired exposure test (issue 18 part 3): does generated text become attributed
evidence when a generator is shown it?

One *arm* per way generated aids (HyDE documents, contextual prefixes, generated
questions) reach the generator; everything else is held fixed: the retrieved originals,
their order, the original-evidence budget and the generation seed.

==============  ==============================  ==================================================
arm             :attr:`ArmContext.presentation`  what the pipeline must do with the aids
==============  ==============================  ==================================================
``baseline``    ``pipeline``                    whatever the pipeline does unmodified
``omit``        ``omitted``                     leave them out of the prompt
``label``       ``labelled``                    show them, marked as generated text
``expose``      ``unlabelled``                  show them, with no mark of what they are
``mislabel``    ``as_source``                   show them, presented as source text (a lie)
==============  ==============================  ==================================================

The pipeline protocol. The user's pipeline is a callable ``pipeline(ctx) -> ArmOutput``:

* it gets an :class:`ArmContext`: the query, the fixed :class:`Original` s in their
  fixed order (one per non-empty line of each fixture source, in file order), the
  :class:`Aid` s, the arm and how aids must be presented, the original-evidence budget
  and the room reserved for aids (code points; aids never take the originals' room),
  and the seed (the same in every arm of a query and repetition);
* it returns an :class:`ArmOutput`: the exact prompt as :class:`PromptPart` s (each
  names the original or aid it carries, by id, or is instruction or query text), the
  answer text, its :class:`AnswerClaim` s (span, kind, the id it cites and the quote),
  the model ``(name, version)`` and its generation settings.

:func:`run_exposure` records each arm as its own run (a
:class:`~provgraph.recorder.Recorder`; the run's configuration names the fixture's run,
:attr:`provgraph.fixtures.Fixture.run_iri`, the arm, repetition and seed): the query,
the aids, the prompt with each part's segment ``original`` or ``generated`` *by what it
carries*, not by how it was presented (a mislabelled aid is still ``generated``; the
generation settings record ``aids_presented_as``), the answer, its claims and citations
(an original's citation targets its chunk, an aid's the aid). It resolves each run
(:func:`provgraph.resolve.resolve_run`), reads the recorded prompts back and refuses
the comparison (:class:`~provgraph.errors.ExposureError`) unless every arm packed the
same originals, in the same order, with the same text (so the same budget) as the
reference arm. Metrics come from :func:`provgraph.evaluation.metrics`; the paired
differences and their intervals from :func:`provgraph.bootstrap.paired_bootstrap`.

Missing data. A query's value of a metric pools its repetitions (numerators over
denominators); it is undefined when the pooled denominator is 0. A paired difference
needs the value in both arms: a query undefined in either is left out of that
difference (complete pairs only) and counted in :attr:`ExposureRow.excluded_queries`.
"""

from __future__ import annotations

import hashlib
import importlib
import contextlib
import math
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import fixtures as fixtures_mod
from .bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, paired_bootstrap
from .errors import ExposureError, RecordError
from .evaluation import METRICS, SHARE_DIGITS, metrics
from .fixtures import QUERY_REF, Fixture
from .model import AidRecord, ChunkRecord, Segment
from .recorder import Recorder
from .resolve import resolve_run
from .schema import prompt as prompt_schema
from .store import ProvStore
from .terms import IRI
from ._rows import _Row

__all__ = ["ARMS", "PRESENTATIONS", "EXPOSURE_METRICS", "MISSING_DATA_POLICY", "Original", "Aid",
           "ArmContext", "PromptPart", "AnswerClaim", "ArmOutput", "ArmRun", "ExposureRow",
           "ExposureReport", "Pipeline", "run_exposure", "load_pipeline", "output_where",
           "output_errors"]

ARMS = ("baseline", "omit", "label", "expose", "mislabel")
"""The arms, in report order."""

PRESENTATIONS = {"baseline": "pipeline", "omit": "omitted", "label": "labelled",
                 "expose": "unlabelled", "mislabel": "as_source"}
"""How each arm presents the aids to the generator (module docstring)."""

EXPOSURE_METRICS = tuple(m for m in METRICS if m != "contradiction_visibility")
"""The metrics of :func:`provgraph.evaluation.metrics` compared across arms
(``correct_abstention`` is labelled by each fixture's expected answer,
:mod:`provgraph.labels`; ``contradiction_visibility`` is left out: no fixture labels
which sources disagree, so it is undefined in every arm)."""

MISSING_DATA_POLICY = ("complete pairs: a query whose metric is undefined in either arm is "
                       "left out of the difference")
"""What a paired difference does with undefined values (module docstring)."""

CHUNKER = ("provgraph-exposure-lines", "1")
"""The originals' chunker: one chunk per non-empty line of a source."""
PARSER = ("provgraph-utf8-decode", "1")
"""The originals' extraction: the source bytes decoded as UTF-8."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Original:
    """A retrieved original: ``id`` is ``<source id>-<k>`` (k from 1, line order),
    ``text`` the line exactly as in the source, ``source`` the fixture's source id."""

    id: str
    source: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Aid:
    """A generated aid of the fixture: ``kind`` as :data:`provgraph.vocab.AID_KINDS`."""

    id: str
    kind: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ArmContext:
    """What a pipeline is given for one arm.

    Attributes:
        query: the question exactly as asked.
        originals: the retrieved originals in their fixed order; pack all of them, in this
            order, unchanged.
        aids: the generated aids.
        arm: one of :data:`ARMS`.
        presentation: how the aids must reach the generator (:data:`PRESENTATIONS`).
        original_budget: code points of the originals (their total length).
        aid_room: code points reserved for the aids (their total length), on top of
            ``original_budget``: aids never truncate originals.
        seed: the generation seed, the same in every arm of a query and repetition.
        repeat: the repetition, from 1.
    """

    query: str
    originals: tuple[Original, ...]
    aids: tuple[Aid, ...]
    arm: str
    presentation: str
    original_budget: int
    aid_room: int
    seed: int
    repeat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptPart:
    """A piece of the prompt, in order: ``ref`` is the id of the original or aid whose
    text it carries (``None``: template text, or the question when ``query=True``)."""

    text: str
    ref: str | None = None
    query: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerClaim:
    """A claim of the answer: code points ``[start, end)`` of the answer text, ``kind``
    as the Recorder's claim kinds, ``cited`` the id of an original or aid (``None``: not
    cited), ``quote`` the text quoted from it (``None``: no quote)."""

    start: int
    end: int
    kind: str = "quotation"
    cited: str | None = None
    quote: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ArmOutput:
    """What a pipeline returns for one arm (module docstring, "The pipeline protocol")."""

    prompt: tuple[PromptPart, ...]
    answer: str
    claims: tuple[AnswerClaim, ...]
    model: tuple[str, str]
    settings: Mapping[str, Any] = field(default_factory=dict)


Pipeline = Callable[[ArmContext], ArmOutput]
"""The pipeline protocol: one call per arm, query and repetition."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ArmRun:
    """One recorded arm: its run, fixture, arm, repetition and seed."""

    run: IRI
    fixture: str
    fixture_run: IRI
    arm: str
    repeat: int
    seed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ExposureRow(_Row):
    """One arm and metric.

    Attributes:
        arm, metric: the arm (:data:`ARMS`) and metric (:data:`EXPOSURE_METRICS`).
        value: the arm's pooled value (``numerator / denominator`` over every query and
            repetition, 4 decimal places); ``None`` when undefined.
        numerator, denominator: the pooled counts (units as the metric's:
            :mod:`provgraph.evaluation`).
        difference: mean over queries of (this arm's per-query value minus the reference
            arm's), 4 decimal places; ``None`` for the reference arm, or when no query
            has both values.
        ci_low, ci_high: the paired percentile bootstrap interval of ``difference``
            (:attr:`ExposureReport.confidence`), ``None`` with it.
        queries: queries in the difference (complete pairs; for the reference arm, the
            queries where its value is defined).
        excluded: queries left out (undefined in either arm: :data:`MISSING_DATA_POLICY`).
        note: why a value or difference is undefined, else ``""``.
    """

    arm: str
    metric: str
    value: float | None
    numerator: int
    denominator: int
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    queries: int
    excluded: int
    note: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ExposureReport:
    """What :func:`run_exposure` did.

    Attributes:
        runs: the recorded arm runs, by fixture, repetition, arm.
        rows: one :class:`ExposureRow` per arm and metric.
        reference: the arm the differences are against.
        queries: the number of queries (fixtures).
        repeats: pipeline repetitions per arm and query.
        resamples, confidence, seed: of the bootstrap (``seed`` also seeds the generation
            seeds; the bootstrap of the k-th metric of :data:`EXPOSURE_METRICS`, from 0,
            draws with ``random.Random(seed * 1000 + k)``).
        missing_data: :data:`MISSING_DATA_POLICY`.
    """

    runs: tuple[ArmRun, ...]
    rows: tuple[ExposureRow, ...]
    reference: str
    queries: int
    repeats: int
    resamples: int
    confidence: float
    seed: int
    missing_data: str = MISSING_DATA_POLICY

    def summary(self) -> str:
        """One line saying what was compared and how."""
        return (f"exposure: {self.queries} quer{'y' if self.queries == 1 else 'ies'}, "
                f"{self.repeats} repetition(s) per arm, differences against arm "
                f"{self.reference} with a paired percentile bootstrap over queries "
                f"({self.resamples} resamples, {self.confidence:.0%}, seed {self.seed}); "
                f"missing data: {self.missing_data}")


def load_pipeline(spec: str) -> Pipeline:
    """The callable named by ``MODULE:CALLABLE`` (the current directory is importable,
    as with ``python -m``).

    Raises:
        ExposureError: not ``MODULE:CALLABLE``, the module does not import, or it has no
            such callable.
    """
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise ExposureError(f"--pipeline {spec!r} is not MODULE:CALLABLE; give e.g. "
                            "provgraph.demo.exposure:answer")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise ExposureError(f"--pipeline {spec!r}: module {module!r} does not import ({exc}); "
                            "check the name and that it is on PYTHONPATH") from None
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise ExposureError(f"--pipeline {spec!r}: module {module!r} has no callable {name!r}")
    return fn  # type: ignore[no-any-return]


def originals_of(fx: Fixture) -> list[tuple[Original, str, int, int]]:
    """Each original of ``fx`` (one per non-empty line of each source, in file order) with
    its source id and its code point range ``[start, end)`` in the source decoded as
    UTF-8 (a leading BOM dropped). Shared with :mod:`provgraph.end_to_end`."""
    out = []
    for s in fx.sources.values():
        text = s.data.decode("utf-8-sig")
        pos, k = 0, 0
        for line in text.splitlines(keepends=True):
            body = line.rstrip("\r\n")
            if body.strip():
                k += 1
                out.append((Original(id=f"{s.id}-{k}", source=s.id, text=body), s.id, pos,
                            pos + len(body)))
            pos += len(line)
    return out


def generation_seed(seed: int, fixture: str, repeat: int) -> int:
    """The seed handed to every arm of one query and repetition: 32 bits of
    sha-256(``seed``, ``fixture``, ``repeat``)."""
    digest = hashlib.sha256(f"{seed}\x00{fixture}\x00{repeat}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def check_queries(fixtures: Sequence[Fixture], repeats: int) -> None:
    """The checks every paired comparison makes before it runs anything (shared with
    :mod:`provgraph.end_to_end`).

    Raises:
        ExposureError: ``repeats`` below 1, no fixture, or a fixture id given twice.
        FixtureError: a fixture fails its check.
    """
    if repeats < 1:
        raise ExposureError(f"--repeats {repeats}: run each arm at least once")
    if not fixtures:
        raise ExposureError("no fixture given; pass --fixture F (repeatable, one query each)")
    seen: set[str] = set()
    for fx in fixtures:
        if fx.id in seen:
            raise ExposureError(f"fixture id {fx.id!r} is given twice ({fx.path}); each "
                                "fixture is one query of the comparison")
        seen.add(fx.id)
        fixtures_mod.require_clean(fx)


def run_exposure(store: ProvStore, fixtures: Sequence[Fixture], pipeline: Pipeline, *,
                 arms: Sequence[str] = ARMS, repeats: int = 1, seed: int = 0,
                 resamples: int = DEFAULT_RESAMPLES, confidence: float = DEFAULT_CONFIDENCE,
                 pipeline_name: str = "") -> ExposureReport:
    """Run ``pipeline`` once per arm, fixture (query) and repetition; record, resolve,
    check the arms' originals, and compare the arms.

    Args:
        store: where the fixtures and the arm runs are recorded.
        fixtures: the queries (one per fixture; each must pass its check); ids unique.
        pipeline: the pipeline (module docstring, "The pipeline protocol").
        arms: the arms, from :data:`ARMS`, no repeats; the first is the reference the
            differences are against (``baseline`` when given first, as by default).
        repeats: pipeline repetitions per arm and query (at least 1), pooled per query.
        seed: seeds the generation seeds (:attr:`ArmContext.seed`) and the bootstrap.
        resamples, confidence: of the bootstrap (:func:`provgraph.bootstrap.paired_bootstrap`).
        pipeline_name: recorded in each arm run's configuration.

    Returns:
        :class:`ExposureReport`: the arm runs, and one :class:`ExposureRow` per arm and
        metric (arms in the order given, metrics in :data:`EXPOSURE_METRICS` order).

    Raises:
        ExposureError: bad arms, repeats, no fixtures or a repeated fixture id; a pipeline
            output that is not an :class:`ArmOutput`, names an unknown id, or whose claim
            is outside its answer; arms whose recorded originals, order or budget differ
            from the reference arm's (the message names the arm, query, repetition and
            the first difference); the runs stay recorded.
        FixtureError: a fixture fails its check.
        RecordError, StoreError: as the Recorder raises them.
    """
    if not arms or len(set(arms)) != len(arms) or any(a not in ARMS for a in arms):
        raise ExposureError(f"--arms {','.join(arms)!r}: give distinct arms among "
                            f"{','.join(ARMS)}")
    check_queries(fixtures, repeats)
    runs: list[ArmRun] = []
    for fx in fixtures:
        fixture_run = fixtures_mod.record(store, fx).run
        for r in range(1, repeats + 1):
            s = generation_seed(seed, fx.id, r)
            done = [_run_arm(store, fx, fixture_run, pipeline, arm, r, s, pipeline_name)
                    for arm in arms]
            runs += [d[0] for d in done]
            _check_same_originals(fx, r, [(d[0].arm, d[1]) for d in done])
    return ExposureReport(runs=tuple(runs),
                          rows=tuple(_compare(store, runs, arms, seed, resamples, confidence)),
                          reference=arms[0], queries=len(fixtures), repeats=repeats,
                          resamples=resamples, confidence=confidence, seed=seed)


def output_where(what: str, arm: str, fx: Fixture, repeat: int) -> str:
    """How an error names a pipeline's (or retriever's) output: ``what`` (``pipeline
    output``), the arm, the fixture, its query (at most 60 characters) and the repetition.

    >>> from types import SimpleNamespace
    >>> output_where("retriever output", "with_aid", SimpleNamespace(id="q1",
    ...              query="When are boilers inspected?"), 2)
    "retriever output for arm with_aid (fixture q1, query 'When are boilers inspected?', repetition 2)"
    """
    query = fx.query if len(fx.query) <= 60 else fx.query[:59] + "…"
    return f"{what} for arm {arm} (fixture {fx.id}, query {query!r}, repetition {repeat})"


@contextlib.contextmanager
def output_errors(where: str) -> Iterator[None]:
    """Record a pipeline's output with the Recorder's refusals (a claim kind it does not
    know, an empty quote, an empty model name) named by ``where`` (:func:`output_where`):
    a :class:`~provgraph.errors.RecordError` becomes an :class:`ExposureError` that
    names the arm and the query (they said only "unknown claim kind 'guess'").

    Raises:
        ExposureError: the Recorder refused a value of the output.
    """
    try:
        yield
    except RecordError as exc:
        raise ExposureError(f"{where}: {exc}; fix the pipeline's output (the arms recorded "
                            "before this one stay in the store)") from exc


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _check_arm_output(out: ArmOutput, where: str) -> None:
    """Refuse an ArmOutput whose fields are not of their declared types (a str as the
    prompt, ``None`` as the answer), before anything is recorded."""
    def bad(field_name: str, value: object, want: str) -> ExposureError:
        return ExposureError(f"{where}: {field_name} is {type(value).__name__} "
                             f"{value!r:.60}, not {want}")

    if isinstance(out.prompt, (str, bytes)) or not isinstance(out.prompt, Sequence):
        raise bad("prompt", out.prompt, "a sequence of PromptPart")
    for i, part in enumerate(out.prompt, start=1):
        if not isinstance(part, PromptPart) or not isinstance(part.text, str):
            raise bad(f"prompt part {i}", part, "a PromptPart with text")
    if not isinstance(out.answer, str):
        raise bad("answer", out.answer, "a str")
    if isinstance(out.claims, (str, bytes)) or not isinstance(out.claims, Sequence):
        raise bad("claims", out.claims, "a sequence of AnswerClaim")
    for i, c in enumerate(out.claims, start=1):
        if not isinstance(c, AnswerClaim) or not (isinstance(c.start, int)
                                                  and isinstance(c.end, int)):
            raise bad(f"claim {i}", c, "an AnswerClaim with int start and end")
    if not (isinstance(out.model, (tuple, list)) and len(out.model) == 2
            and all(isinstance(x, str) for x in out.model)):
        raise bad("model", out.model, "(name, version), two str")
    if not isinstance(out.settings, Mapping):
        raise bad("settings", out.settings, "a mapping")


def _run_arm(store: ProvStore, fx: Fixture, fixture_run: IRI, pipeline: Pipeline, arm: str,
             repeat: int, seed: int, pipeline_name: str
             ) -> tuple[ArmRun, list[tuple[str, str]]]:
    spans = originals_of(fx)
    originals = tuple(o for o, *_ in spans)
    aids = tuple(Aid(id=a.id, kind=a.kind, text=a.text) for a in fx.aids.values())
    ctx = ArmContext(query=fx.query, originals=originals, aids=aids, arm=arm,
                     presentation=PRESENTATIONS[arm],
                     original_budget=sum(len(o.text) for o in originals),
                     aid_room=sum(len(a.text) for a in aids), seed=seed, repeat=repeat)
    try:
        out = pipeline(ctx)
    except (Exception, SystemExit) as exc:  # the user's code (sys.exit too): an input error
        raise ExposureError(
            f"the pipeline {pipeline_name} raised {type(exc).__name__} in arm {arm} (fixture "
            f"{fx.id}, repetition {repeat}): {exc}; fix the pipeline (the arms recorded "
            "before this one stay in the store)") from exc
    where = output_where("pipeline output", arm, fx, repeat)
    if not isinstance(out, ArmOutput):
        raise ExposureError(f"{where} is {type(out).__name__}, not an ArmOutput; return "
                            "provgraph.exposure.ArmOutput")
    _check_arm_output(out, where)
    config = {"exposure": {"fixture": fx.id, "fixture_run": str(fixture_run), "arm": arm,
                           "presentation": ctx.presentation, "repeat": repeat, "seed": seed,
                           "pipeline": pipeline_name, "original_budget": ctx.original_budget,
                           "aid_room": ctx.aid_room}}
    rec = Recorder(store, label=f"exposure {fx.id} {arm} #{repeat}", config=config)
    with output_errors(where), rec.batch():
        q = rec.query(fx.query)
        chunks = record_originals(rec, fx, spans)
        by_source = {sid: [c for o, c in chunks.items() if o.rsplit("-", 1)[0] == sid]
                     for sid in fx.sources}
        aid_recs: dict[str, AidRecord] = {}
        for a in fx.aids.values():
            derived: list[Any] = []
            for ref in a.derived_from:
                derived += [q] if ref == QUERY_REF else by_source[ref]
            aid_recs[a.id] = rec.aid(a.kind, text=a.text, model=a.model, derived_from=derived)
        segments, text = [], ""
        for i, part in enumerate(out.prompt):
            if part.ref is not None and part.ref not in chunks and part.ref not in aid_recs:
                raise ExposureError(f"{where}: prompt part {i + 1} carries {part.ref!r}, which "
                                    "names no original or aid; use the ids of the ArmContext")
            origin = ("original" if part.ref in chunks else "generated" if part.ref else
                      "query" if part.query else "instruction")
            source = chunks.get(part.ref or "") or aid_recs.get(part.ref or "")
            segments.append(Segment(start=len(text), end=len(text) + len(part.text),
                                    origin=origin, source=source))
            text += part.text
        gi = rec.context_packing(text=text, segments=segments)
        settings = {**out.settings, "seed": seed, "exposure_arm": arm,
                    "aids_presented_as": ctx.presentation}
        answer = rec.generation(gi, model=out.model, text=out.answer, settings=settings)
        for i, c in enumerate(out.claims):
            if not 0 <= c.start <= c.end <= len(out.answer):
                raise ExposureError(f"{where}: claim {i + 1} [{c.start}, {c.end}) is outside "
                                    f"the answer (0..{len(out.answer)} code points)")
            claim = rec.claim(answer, start=c.start, end=c.end, kind=c.kind)
            if c.cited is None:
                continue
            target = chunks.get(c.cited) or aid_recs.get(c.cited)
            if target is None:
                raise ExposureError(f"{where}: claim {i + 1} cites {c.cited!r}, which names no "
                                    "original or aid; use the ids of the ArmContext")
            rec.citation(claim, target=target, quote=c.quote)
    resolve_run(store, rec.iri)
    # what the store holds, not what the pipeline said: the originals of the recorded prompt
    recorded = prompt_schema.load(store, [gi.iri])[gi.iri]
    ids_of = {c.iri: oid for oid, c in chunks.items()}
    packed = [(ids_of.get(seg.source_iri or IRI(""), str(seg.source_iri)),
               recorded.text[seg.start:seg.end])
              for seg in recorded.segments if seg.origin == "original"]
    return (ArmRun(run=rec.iri, fixture=fx.id, fixture_run=fixture_run, arm=arm, repeat=repeat,
                   seed=seed), packed)


def record_originals(rec: Recorder, fx: Fixture,
                     spans: Sequence[tuple[Original, str, int, int]]) -> dict[str, ChunkRecord]:
    """Record each fixture source (snapshot of its bytes, UTF-8 extraction by
    :data:`PARSER`) and its originals as chunks (:data:`CHUNKER`, ``spans`` as
    :func:`originals_of` gives them); returns the chunk of each original id."""
    chunks: dict[str, ChunkRecord] = {}
    for sid, src in fx.sources.items():
        snap = rec.snapshot(src.data, uri=src.uri, media_type=src.media_type)
        ext = rec.extraction(snap, parser=PARSER, text=src.data.decode("utf-8-sig"))
        mine = [(o, a, b) for o, s, a, b in spans if s == sid]
        made = rec.chunking(ext, chunker=CHUNKER, ranges=[(a, b) for _, a, b in mine])
        chunks.update({o.id: c for (o, _, _), c in zip(mine, made)})
    return chunks


def _check_same_originals(fx: Fixture, repeat: int,
                          arms: list[tuple[str, list[tuple[str, str]]]]) -> None:
    """Refuse unless every arm packed the reference arm's originals, in its order, with its
    text: ``arms`` holds each arm's ``(original id, text)`` pairs as read back from its
    recorded prompt."""
    ref_arm, ref = arms[0]
    for arm, got in arms[1:]:
        diff = _first_difference(ref, got)
        if diff is None:
            continue
        budget = (f"; original-evidence budget {sum(len(t) for _, t in got)} code points, "
                  f"{ref_arm} {sum(len(t) for _, t in ref)}")
        raise ExposureError(
            f"arm {arm} (fixture {fx.id}, repetition {repeat}) did not pack the originals of "
            f"arm {ref_arm}: {diff}{budget}. The comparison is refused: only how aids reach the "
            "generator may vary; pack every original of ArmContext.originals, in order, "
            "unchanged (the arm runs stay recorded)")


def _first_difference(ref: list[tuple[str, str]], got: list[tuple[str, str]]) -> str | None:
    for i, ((rid, rtext), (gid, gtext)) in enumerate(zip(ref, got), start=1):
        if rid != gid:
            return f"original {i} of its prompt is {gid}, where the reference has {rid}"
        if rtext != gtext:
            return (f"original {i} ({gid}) is {len(gtext)} code points ({gtext[:40]!r}), "
                    f"the reference's {len(rtext)} ({rtext[:40]!r})")
    if len(got) < len(ref):
        return (f"it packs {len(got)} originals, the reference {len(ref)} (first missing: "
                f"{ref[len(got)][0]})")
    if len(got) > len(ref):
        return (f"it packs {len(got)} originals, the reference {len(ref)} (first extra: "
                f"{got[len(ref)][0]})")
    return None


def _pool(rows: list[tuple[int, int]]) -> tuple[int, int]:
    return sum(n for n, _ in rows), sum(d for _, d in rows)


def _value(n: int, d: int) -> float | None:
    return round(n / d, SHARE_DIGITS) if d else None


def _compare(store: ProvStore, runs: list[ArmRun], arms: Sequence[str], seed: int,
             resamples: int, confidence: float) -> list[ExposureRow]:
    counts: dict[tuple[IRI, str], tuple[int, int]] = {}
    for m in metrics(store, runs=[r.run for r in runs], by="run"):
        if m.metric in EXPOSURE_METRICS:
            counts[(m.run, m.metric)] = (m.numerator or 0, m.denominator or 0)
    queries = list(dict.fromkeys(r.fixture for r in runs))
    # (arm, metric, query) -> pooled (numerator, denominator) over the repetitions
    per_query: dict[tuple[str, str, str], tuple[int, int]] = {}
    for metric in EXPOSURE_METRICS:
        for arm in arms:
            for fxid in queries:
                per_query[(arm, metric, fxid)] = _pool(
                    [counts.get((r.run, metric), (0, 0)) for r in runs
                     if r.arm == arm and r.fixture == fxid])
    reference = arms[0]
    out: list[ExposureRow] = []
    for arm in arms:
        for k, metric in enumerate(EXPOSURE_METRICS):
            n, d = _pool([per_query[(arm, metric, q)] for q in queries])
            diffs: list[float] = []
            for q in queries:
                a, b = per_query[(arm, metric, q)], per_query[(reference, metric, q)]
                if a[1] and b[1]:
                    diffs.append(a[0] / a[1] - b[0] / b[1])
            notes = [] if d else ["undefined: denominator 0 in every query"]
            if arm == reference:
                ci = None
                defined = sum(bool(per_query[(arm, metric, q)][1]) for q in queries)
            else:
                ci = paired_bootstrap(diffs, resamples=resamples, confidence=confidence,
                                      seed=seed * 1000 + k)
                defined = len(diffs)
                if not diffs:
                    notes.append(f"no query has it defined in both this arm and {reference}")
            out.append(ExposureRow(
                arm=arm, metric=metric, value=_value(n, d), numerator=n, denominator=d,
                difference=_round(ci.mean if ci else None), ci_low=_round(ci.low if ci else None),
                ci_high=_round(ci.high if ci else None), queries=defined,
                excluded=len(queries) - defined, note="; ".join(notes)))
    return out


def _round(x: float | None) -> float | None:
    return round(x, SHARE_DIGITS) if x is not None else None
