"""The Recorder: turns each step of a RAG pipeline into PROV-O statements.

One :class:`Recorder` is one run: a PROV bundle stored as the named graph
whose name is the run IRI. Ingestion facts (documents, snapshots, extractions,
chunks, and aids derived from chunks) go to the shared ingestion graph
:data:`provgraph.vocab.GRAPH.INGESTION`, because every run that retrieves a
chunk relies on the same ingestion; request-time facts (queries, retrievals,
context packing, generations, answers, claims, citations) go to the run graph.

Every call writes one transaction, or joins the enclosing :meth:`Recorder.batch`.
Content-defined things (snapshots, extractions, chunks, aids, agents) get
content-derived IRIs, so recording them twice adds nothing; the first
observation of a snapshot is the one kept.

Times are timezone-aware ``datetime`` values (a naive one raises
:class:`~provgraph.errors.RecordError`); when omitted, the recorder's clock
(UTC now by default) is used. Offsets are end-exclusive Unicode code point
offsets unless a parameter says otherwise.

Besides the PROV statements, two provenance shortcuts are written per claim and
kept consistent with them: ``pg:citedSnapshot`` (each snapshot a citation's
target derives from) and ``pg:supportAgent`` (each agent associated with an
activity in the claim's support: model, prompt template, retriever and the
models of the aids it used, parser, chunker, embedder, aid generator). They make
staleness and impact questions one-hop lookups (DESIGN.md, engine facts). Their
one definition, and the bounded memory of it the Recorder keeps, are in
:mod:`provgraph._support`; a claim gets the same shortcuts whether its answer
was recorded by this Recorder or read back from the store.

This module defines the :class:`Recorder` with its run, batches and request-time
steps; its ingestion steps are in :mod:`provgraph._ingestion`, the plumbing they
share in :mod:`provgraph._recording`.

Reference: PROV-O §3 (https://www.w3.org/TR/prov-o/), PROV-DM §5.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib.metadata
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from . import ids
from ._ingestion import IngestionSteps
from ._recording import SEGMENT_ORIGINS  # noqa: F401 - re-exported (prompt segment origins)
from ._recording import (
    _HEX64, _IRI_SYNTAX, _agent_tuple, _given_iri, _Journal, _JournaledDict, _JournaledSet,
    _utcnow,
)
from ._support import DEFAULT_CACHE_SIZE, SupportCache
from .errors import RecordError, ResolutionError
from .model import (
    Agent, AnswerRecord, CitationRecord, ClaimRecord, Derivation, Hit, InputRecord, QueryRecord,
    Ref, RetrievalRecord, RunRecord, Segment, iri_of,
)
from .schema import citation as citation_schema
from .schema import claim as claim_schema
from .schema import generation as generation_schema
from .schema import prompt as prompt_schema
from .schema import query as query_schema
from .schema import retrieval as retrieval_schema
from .schema import review as review_schema
from .schema import run as run_schema
from .normalize import get_policy
from .store import ProvStore
from .terms import IRI, Quad
from .vocab import CLAIM_KINDS, CLAIM_STATUSES, PG, RDF, REVIEW_VERDICTS, UNITS, own_graph_error

__all__ = ["Recorder"]


class Recorder(IngestionSteps):
    """Records one run of a RAG pipeline into a :class:`~provgraph.store.ProvStore`.

    Args:
        store: where statements and retained originals go.
        label: a human-readable run name (``rdfs:label`` of the bundle).
        config: the pipeline's configuration snapshot (JSON-serialisable mapping).
        models: model identifiers in use, e.g. ``{"generator": "claude-sonnet-4@2025-05"}``.
        code_revision: the pipeline's code revision (git commit), when known.
        packages: distribution names whose installed versions are recorded;
            ``None`` records provgraph's own dependencies.
        run_iri: the run's IRI (default: a fresh ``urn:uuid:`` UUIDv7). Naming a run
            already in the store continues it: its identity is not written again. Never
            one of provgraph's own graphs (:data:`provgraph.vocab.RESERVED_GRAPHS`).
        started_at: aware start time (default: the clock's now).
        clock: a function returning an aware ``datetime``, used for every omitted time.
        cache_size: request-time support entries kept in memory (default 8,192; at least 1).
        hold_run: hold the run's own statements until :meth:`release_run` instead of
            writing them at once (what the event log and the importers do, calling it
            inside :meth:`batch`, so that input that fails stores nothing, not even the run).

    Memory. To write the support shortcuts without querying the store, the
    Recorder remembers the support (agents and snapshots) of what it records.
    Ingestion entries (snapshots, extracted texts, chunks, aids made from chunks,
    indexed representations) are kept for the Recorder's life: one per corpus
    item, about 200 bytes each, plus each extracted text itself (to chunk an
    extraction given by IRI). Request-time entries (queries, retrievals,
    per-request aids, prompts, answers, claims) are only needed while their
    answer is being recorded: they are a least-recently-used cache of
    ``cache_size`` entries, 8,192 by default (7 or 8 per answer: the last
    thousand or so answers; about 200 bytes an entry, 1.6 MB in all), so a
    long-lived Recorder that records every request of an application into one
    run stays bounded. An evicted entry, or one recorded by another session, is
    read back from the store, which gives the same shortcuts
    (:mod:`provgraph._support` holds the one definition); only that lookup is
    slower. Entries of an open :meth:`batch` are never evicted before it is stored.

    Raises:
        RecordError: a naive datetime, a non-JSON ``config``, or a ``run_iri`` that is
            not an absolute IRI or names one of provgraph's own graphs
            (:func:`provgraph.vocab.own_graph_error`); nothing is written.
        StoreError: the store cannot be written.

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> store = EmbeddedStore()
        >>> rec = Recorder(store, label="demo")
        >>> snap = rec.snapshot(b"Water boils at 100 C.", uri="file:///facts.txt",
        ...                     media_type="text/plain")
        >>> ext = rec.extraction(snap, parser=("plain", "1"), text="Water boils at 100 C.")
        >>> [c.text for c in rec.chunking(ext, chunker=("fixed", "1"), ranges=[(0, 21)])]
        ['Water boils at 100 C.']
    """

    def __init__(self, store: ProvStore, *, label: str = "", config: Mapping[str, Any] | None = None,
                 models: Mapping[str, str] | None = None, code_revision: str | None = None,
                 packages: Sequence[str] | None = None, run_iri: str | None = None,
                 started_at: _dt.datetime | None = None,
                 clock: Callable[[], _dt.datetime] = _utcnow,
                 cache_size: int = DEFAULT_CACHE_SIZE, hold_run: bool = False) -> None:
        if not isinstance(cache_size, int) or cache_size < 1:
            raise RecordError(f"cache_size={cache_size!r}: give a whole number of entries, at least 1")
        self.store = store
        self._clock = clock
        self._pending: list[Quad] | None = None
        self._held: list[Quad] | None = [] if hold_run else None
        self._journal = _Journal()
        self._written: set[IRI] = _JournaledSet(self._journal)
        self._support = SupportCache(store, cache_size)
        self._texts: dict[IRI, str] = _JournaledDict(self._journal)
        iri = _given_iri("run_iri", run_iri) or ids.new_iri()
        if (why := own_graph_error(iri, writer="run")) is not None:
            raise RecordError(f"run_iri={run_iri!r}: {why}")
        started = self._time("started_at", started_at)
        if config is not None:
            self._json("config", config)
        if models:
            self._json("models", dict(models))
        self.run = RunRecord(iri=iri, label=label, started_at=started,
                             packages=_package_versions(packages),
                             config=dict(config) if config is not None else None,
                             models=dict(models) if models else None,
                             code_revision=code_revision or None)
        if run_iri and self.store.has_subject(iri) and next(
                iter(self.store.quads(iri, RDF.type, PG.Run, iri)), None):
            return  # continuing a recorded run: its identity is already in its graph
            # (only there: a deleted run's IRI stays described in the removals graph)
        self._emit(run_schema.to_quads(self.run))

    def release_run(self) -> None:
        """Write the run statements held by ``hold_run=True`` (into the open batch, if any);
        nothing when none are held."""
        held, self._held = self._held, None
        if held:
            self._emit(held)

    @property
    def pending(self) -> int:
        """Statements the open :meth:`batch` holds in memory, to be stored when it ends
        (0 outside a batch)."""
        return len(self._pending or ())

    # ------------------------------------------------------------------ batches
    @contextlib.contextmanager
    def batch(self) -> Iterator["Recorder"]:
        """Group several steps into one transaction.

        Statements are held in memory and stored when the block exits normally;
        if it raises, nothing from the block is stored (retained original bytes
        already written stay, unreferenced: they are content-addressed).
        """
        if self._pending is not None:
            yield self
            return
        self._pending = []
        # An undo log instead of copies of the caches: copying cost O(corpus) per batch (issue 8).
        self._journal.open()
        self._support.begin()
        try:
            yield self
            pending, self._pending = self._pending, None
            if pending:
                self.store.add(pending)
            self._journal.close()
            self._support.commit()
        except BaseException:
            self._pending = None
            self._journal.rollback()
            self._support.rollback()
            raise

    # ------------------------------------------------------------------ request time
    def query(self, text: str, *, at: _dt.datetime | None = None, iri: str | None = None) -> QueryRecord:
        """Record a user query (``pg:Query``) in the run graph.

        Raises:
            RecordError: ``text`` is empty or ``at`` is naive.
        """
        if not text:
            raise RecordError("query text must not be empty")
        rec = QueryRecord(iri=_given_iri("iri", iri) or ids.new_iri(), text=text,
                          at=self._time("at", at))
        self._emit(query_schema.to_quads(rec, self.iri))
        self._support.remember(rec.iri, self._support.derive(), ingestion=False)
        return rec

    def retrieval(self, query: Ref, *, retriever: Agent | tuple[str, str],
                  hits: Sequence[Hit | tuple[Ref, float | None]], index_version: str = "",
                  aids: Sequence[Ref] = (), started_at: _dt.datetime | None = None,
                  ended_at: _dt.datetime | None = None, iri: str | None = None) -> RetrievalRecord:
        """Record a retrieval: the query (and aids) used, and the ranked hits.

        Args:
            query: the query record or IRI.
            retriever: ``(name, version)``, e.g. ``("rank-bm25", "0.2.2")``.
            hits: :class:`Hit` values, or ``(chunk, score)`` pairs ranked in order (rank 1 first).
            index_version: the version or digest of the index searched.
            aids: generated aids used to search (a HyDE document, say).

        Each hit is a qualified ``prov:Usage`` with ``pg:rank`` and ``pg:score``.

        Raises:
            RecordError: duplicate or non-positive ranks; an ``iri`` another run already
                holds (a retrieval belongs to one run).
        """
        agent = _agent_tuple("retriever", retriever)
        act = _given_iri("iri", iri) or ids.new_iri()
        if iri:
            self._refuse_other_run(act, f"retrieval <{act}>")
        g = self.iri
        start = self._time("started_at", started_at)
        end = self._time("ended_at", ended_at) if ended_at else start
        q_iri = self._require(query, "query")
        aid_iris = tuple(dict.fromkeys(iri_of(a) for a in aids))
        norm: list[Hit] = []
        for i, h in enumerate(hits):
            if isinstance(h, Hit):
                target, rank, score = iri_of(h.target), h.rank, h.score
            else:
                target, rank, score = iri_of(h[0]), i + 1, h[1]
            if rank < 1 or any(rank == x.rank for x in norm):
                raise RecordError(f"hit {i}: rank {rank} is not positive or is repeated")
            norm.append(Hit(target=target, rank=int(rank),
                            score=float(score) if score is not None else None))
        rec = RetrievalRecord(iri=act, query=q_iri, hits=tuple(norm), retriever=agent,
                              index_version=index_version, aids=aid_iris, started_at=start,
                              ended_at=end, run=g)
        support = self._support.derive(agents=[agent.iri], inputs=aid_iris)
        self._emit(retrieval_schema.to_quads(rec, g))
        self._support.remember(act, support, ingestion=False)
        return rec

    def context_packing(self, *, text: str, segments: Sequence[Segment],
                        retrieval: Ref | None = None, template: Agent | tuple[str, str] | None = None,
                        omitted: Sequence[Ref] = (), token_budget: int | None = None,
                        at: _dt.datetime | None = None, iri: str | None = None) -> InputRecord:
        """Record context packing: the exact prompt text the generator will see.

        Args:
            text: the full generator input (prompt), exactly as sent.
            segments: code point ranges of ``text`` marked ``original``, ``generated``,
                ``instruction`` or ``query``, each linked to its chunk or aid.
            retrieval: the retrieval whose hits were packed (``prov:wasInformedBy``).
            template: ``(name, version)`` of the prompt template.
            omitted: chunks left out for the budget (``pg:omitted``).
            token_budget: the budget in tokens, if one applied.

        Raises:
            RecordError: a segment outside ``text``, an unknown origin, or original or
                generated text without a source; an ``iri`` whose context packing another
                run already holds.
        """
        gi = _given_iri("iri", iri) or ids.new_iri()
        act = ids.content_iri("packing", gi)
        if iri:
            self._refuse_other_run(act, f"generator input <{gi}> (its context packing <{act}>)")
        g = self.iri
        when = self._time("at", at)
        tmpl = _agent_tuple("prompt_template", template) if template is not None else None
        segs = self._check_segments(text, segments, "context_packing")
        r = iri_of(retrieval) if retrieval is not None else None
        rec = InputRecord(iri=gi, packing=act, text=text, segments=segs, retrieval=r,
                          template=tmpl, omitted=tuple(dict.fromkeys(iri_of(o) for o in omitted)),
                          token_budget=int(token_budget) if token_budget is not None else None,
                          at=when, run=g)
        support = self._support.derive(agents=[tmpl.iri] if tmpl else [],
                                       evidence=list(rec.sources), inputs=[r] if r else [])
        self._emit(prompt_schema.to_quads(rec, g))
        self._support.remember(gi, support, ingestion=False)
        return rec

    def generation(self, generator_input: Ref, *, model: Agent | tuple[str, str], text: str,
                   settings: Mapping[str, Any] | None = None, started_at: _dt.datetime | None = None,
                   ended_at: _dt.datetime | None = None, iri: str | None = None) -> AnswerRecord:
        """Record a generation: the model, its settings, its input and the answer text.

        Args:
            generator_input: the :class:`InputRecord` (or IRI) the model was given.
            model: ``(model id, version)``.
            text: the answer exactly as generated.
            settings: decoding settings (temperature, max tokens, ...), JSON.
            iri: IRI for the answer (default: fresh UUIDv7).

        Raises:
            RecordError: naive times or non-JSON settings; an ``iri`` whose generation
                another run already holds.
        """
        agent = _agent_tuple("model", model)
        ans = _given_iri("iri", iri) or ids.new_iri()
        act = ids.content_iri("generation", ans)
        if iri:
            self._refuse_other_run(act, f"answer <{ans}> (its generation <{act}>)")
        gi = self._require(generator_input, "generator input")
        g = self.iri
        start = self._time("started_at", started_at)
        end = self._time("ended_at", ended_at) if ended_at else start
        self._json("settings", settings or {})
        rec = AnswerRecord(iri=ans, generation=act, text=text, model=agent, generator_input=gi,
                           settings=dict(settings or {}), started_at=start, ended_at=end, run=g)
        support = self._support.derive(agents=[agent.iri], inputs=[gi])
        self._emit(generation_schema.to_quads(rec, g))
        self._support.remember(ans, support, ingestion=False)
        return rec

    def claim(self, answer: AnswerRecord | str, *, start: int, end: int, kind: str,
              status: str = "supported", text: str | None = None,
              derived_from: Sequence[Ref] = (), warrant: str | None = None,
              iri: str | None = None) -> ClaimRecord:
        """Record a claim: a span of the answer, with its kind and status.

        Args:
            answer: the answer record, or its IRI together with ``text``.
            start, end: end-exclusive code point offsets into the answer text.
            kind: ``quotation``, ``paraphrase``, ``derivation`` or ``abstention``.
            status: ``supported``, ``partially_supported``, ``unsupported`` or ``uncertain``.
            text: the claim text; required when ``answer`` is an IRI, checked otherwise.
            derived_from: operands of a derivation (claims, chunks), written as
                ``prov:wasDerivedFrom`` with a qualified ``prov:Derivation`` carrying ``warrant``.
            warrant: the formula or inference rule, e.g. ``"3.12 - 2.2 = 0.92"``.

        Raises:
            RecordError: unknown kind or status, a span outside the answer, a
                derivation without operands or warrant; an ``iri`` naming a claim of another
                run (a claim belongs to one run: its ``pg:run``).
        """
        if kind not in CLAIM_KINDS:
            raise RecordError(f"unknown claim kind {kind!r}; use one of {CLAIM_KINDS}")
        if status not in CLAIM_STATUSES:
            raise RecordError(f"unknown claim status {status!r}; use one of {CLAIM_STATUSES}")
        if isinstance(answer, AnswerRecord):
            if not 0 <= start <= end <= len(answer.text):
                raise RecordError(f"claim span [{start}, {end}) is outside the answer "
                                  f"(0..{len(answer.text)} code points)")
            span = answer.text[start:end]
            if text is not None and text != span:
                raise RecordError(f"claim text {text!r} differs from the answer span {span!r}")
            text = span
            ans, gen = answer.iri, answer.generation
        else:
            if text is None:
                raise RecordError("claim text is required when the answer is given by IRI")
            if not 0 <= start <= end:
                raise RecordError(f"claim span [{start}, {end}) is reversed or negative")
            ans, gen = self._require(answer, "answer"), None
        if kind == "derivation" and (not derived_from or not warrant):
            raise RecordError("a derivation claim needs derived_from (its operands) and a warrant")
        c = _given_iri("iri", iri) or ids.new_iri()
        if iri:
            self._refuse_other_run(c, f"claim <{c}>")
        g = self.iri
        derivations = tuple(Derivation(entity=iri_of(op), warrant=warrant or None)
                            for op in derived_from)
        support = self._support.derive(evidence=[d.entity for d in derivations], inputs=[ans])
        rec = ClaimRecord(iri=c, answer=ans, start=start, end=end, text=text, kind=kind,
                          status=status, run=g, generation=gen, derivations=derivations,
                          support_agents=tuple(sorted(support.agents)),
                          cited_snapshots=tuple(sorted(support.snapshots)))
        self._emit(claim_schema.to_quads(rec, g))
        self._support.remember(c, support, ingestion=False)
        return rec

    def citation(self, claim: Ref, *, target: Ref, start: int | None = None,
                 end: int | None = None, unit: str | None = None, end_inclusive: bool = False,
                 quote: str | None = None, prefix: str | None = None, suffix: str | None = None,
                 pinned_sha256: str | None = None, policy: str | None = None,
                 iri: str | None = None) -> CitationRecord:
        """Record what a claim pointed at, as the answer gave it (not yet verified).

        Args:
            claim: the claim record or IRI.
            target: what was cited: a snapshot, extracted text, chunk, aid or
                generator input (record or IRI), or a raw identifier the answer
                used (``"doc-3"``) that does not name a recorded resource.
            start, end: the cited range, in ``unit``; both or neither.
            unit: ``utf8_byte``, ``codepoint``, ``utf16_unit``, ``page`` or ``block``.
            end_inclusive: ``True`` when ``end`` is the last unit of the range
                (Amazon Bedrock spans), ``False`` for end-exclusive ranges.
            quote, prefix, suffix: a W3C Web Annotation ``oa:TextQuoteSelector``
                (exact text and its context).
            pinned_sha256: digest of the bytes the citation was made against, if the
                answer pinned one.
            policy: the normalization policy the quote is to be compared under
                (``exact``, ``nfc``, ``whitespace``, ``fold``, or ``name@version``;
                :mod:`provgraph.normalize`), when the citation's maker knows it: for
                example ``whitespace`` for a quotation whose lines a Markdown answer
                wrapped. Recorded as ``pg:policy "name@version"`` on the quote's
                ``oa:TextQuoteSelector`` (the citation's own ``pg:policy`` is the
                resolver's, the policy of its verdict); the resolver applies it to
                this citation, whatever policy it was asked to use for others.
                Needs ``quote``.

        The resolver (:mod:`provgraph.resolve`) later checks the citation against
        the retained bytes and records the outcome.

        Raises:
            RecordError: a range without a unit, one bound without the other, an
                unknown unit, a negative offset, an empty quote, or a policy that
                is unknown or given without a quote.
        """
        if (start is None) != (end is None):
            raise RecordError("citation start and end go together: give both or neither")
        if start is not None and unit is None:
            raise RecordError("a citation range needs its unit (utf8_byte, codepoint, utf16_unit, "
                              "page or block)")
        if unit is not None and unit not in UNITS:
            raise RecordError(f"unknown offset unit {unit!r}; use one of {UNITS}")
        if start is not None and (int(start) < 0 or int(end) < 0):  # type: ignore[arg-type]
            raise RecordError(f"citation range [{start}, {end}] has a negative offset")
        if quote is not None and quote == "":
            raise RecordError("citation quote must not be empty; omit it instead")
        if pinned_sha256 is not None and not _HEX64.match(pinned_sha256):
            raise RecordError(f"pinned_sha256 {pinned_sha256!r} is not 64 hex characters")
        declared = _declared_policy(policy, quote)
        c = self._require(claim, "claim")
        cit = _given_iri("iri", iri) or ids.new_iri()
        g = self.iri
        raw = target if isinstance(target, str) else iri_of(target)
        target_iri = self._as_target(raw)
        rec = CitationRecord(iri=cit, claim=c, target_id=str(raw), target=target_iri,
                             start=int(start) if start is not None else None,
                             end=int(end) if end is not None else None,
                             unit=unit if start is not None else None,
                             end_inclusive=bool(end_inclusive) if start is not None else False,
                             quote=quote, prefix=(prefix or None) if quote is not None else None,
                             suffix=(suffix or None) if quote is not None else None,
                             pinned_sha256=pinned_sha256.lower() if pinned_sha256 else None,
                             policy=declared, graph=g)
        q = citation_schema.to_quads(rec, g)
        support = None
        if target_iri is not None:
            # the claim's support grows by the target's: write what it adds
            old = self._support.of(c)
            support = self._support.derive(agents=old.agents, snapshots=old.snapshots,
                                           evidence=[target_iri])
            q += claim_schema.shortcut_quads(c, sorted(support.agents - old.agents),
                                             sorted(support.snapshots - old.snapshots), g)
        self._emit(q)
        if support is not None:
            self._support.remember(c, support, ingestion=False)
        return rec

    # ------------------------------------------------------------------ review (issue 18)
    def review(self, claim: Ref, *, verdicts: Mapping[str, str], reviewer: str,
               version: str = "", model: bool = False, role: str = "reviewer",
               policy: str | None = None, saw: Ref | None = None,
               at: _dt.datetime | None = None, iri: str | None = None) -> review_schema.ReviewRecord:
        """Record one reviewer's verdicts on a claim: a ``pg:Review`` activity in this
        run's graph (:mod:`provgraph.schema.review` has the PROV modelling).

        Reviews of one claim that disagree are all kept; :meth:`adjudicate` resolves them.

        Args:
            claim: the claim record or IRI (recorded, in any run).
            verdicts: verdict kind -> value, e.g. ``{"quotation": "faithful"}``; kinds and
                values from :data:`provgraph.vocab.REVIEW_VERDICTS`.
            reviewer: the person's name, or the model id with ``model=True``.
            version: the model version (``""`` for a person).
            model: the reviewer is a software judge (``prov:SoftwareAgent``), not a person.
            role: the reviewer's role (``prov:hadRole``), e.g. ``annotator``, ``domain-expert``.
            policy: the review policy and its version, e.g. ``"review-guide@2"``.
            saw: the source snapshot (record or IRI) the reviewer read.
            at: when the review was made (aware; default: the clock's now).

        Raises:
            RecordError: no verdicts, an unknown kind or a value the kind does not take,
                an empty reviewer or role, a naive ``at``, a claim that is not recorded or
                ``saw`` that is not a recorded ``pg:SourceSnapshot``, an ``iri`` another
                run already holds. Nothing is stored.
        """
        return self._judge(claim, verdicts=verdicts, reviewer=reviewer, version=version,
                           model=model, role=role, policy=policy, saw=saw, at=at, iri=iri,
                           adjudication=False)

    def adjudicate(self, claim: Ref, *, verdicts: Mapping[str, str], reviewer: str,
                   version: str = "", model: bool = False, role: str = "adjudicator",
                   policy: str | None = None, at: _dt.datetime | None = None,
                   iri: str | None = None) -> review_schema.ReviewRecord:
        """Record the final verdicts on a claim's reviews: a ``pg:Adjudication`` that
        ``prov:used`` every stored review verdict of the kinds decided, and generates one
        verdict per kind ``prov:wasDerivedFrom`` them (a review stored later is not weighed:
        'unadjudicated-disagreements' lists it again if it disagrees).

        Args:
            claim, verdicts, reviewer, version, model, policy: as :meth:`review`.
            role: the adjudicator's role (default ``adjudicator``).
            at: when (aware; default: the clock's now); not before the reviews it weighs.

        Raises:
            RecordError: as :meth:`review`; a kind no stored review of the claim has a
                verdict of (nothing to adjudicate), or ``at`` before a review it weighs.
                Nothing is stored.
        """
        return self._judge(claim, verdicts=verdicts, reviewer=reviewer, version=version,
                           model=model, role=role, policy=policy, saw=None, at=at, iri=iri,
                           adjudication=True)

    def _judge(self, claim: Ref, *, verdicts: Mapping[str, str], reviewer: str, version: str,
               model: bool, role: str, policy: str | None, saw: Ref | None,
               at: _dt.datetime | None, iri: str | None,
               adjudication: bool) -> review_schema.ReviewRecord:
        what = "adjudication" if adjudication else "review"
        if not verdicts:
            raise RecordError(f"a {what} needs at least one verdict (KIND=VALUE; kinds: "
                              f"{', '.join(REVIEW_VERDICTS)})")
        for kind, value in verdicts.items():
            if kind not in REVIEW_VERDICTS:
                raise RecordError(f"unknown verdict kind {kind!r}; use one of "
                                  f"{', '.join(REVIEW_VERDICTS)}")
            if value not in REVIEW_VERDICTS[kind]:
                raise RecordError(f"verdict {kind}={value!r} is not a {kind} value; use one of "
                                  f"{', '.join(REVIEW_VERDICTS[kind])}")
        if not reviewer or not reviewer.strip():
            raise RecordError(f"a {what} needs the reviewer's name (or model id)")
        if not role or not role.strip():
            raise RecordError("the reviewer's role must not be empty; name it or leave it out")
        when = self._time("at", at)
        c = self._require(claim, "claim")
        saw_iri = None
        if saw is not None:
            saw_iri = iri_of(saw)
            if isinstance(saw, str) and next(iter(self.store.quads(saw_iri, RDF.type, PG.SourceSnapshot)), None) is None:
                raise RecordError(f"saw <{saw_iri}> is not a recorded source snapshot "
                                  "(pg:SourceSnapshot); give the IRI of the snapshot the "
                                  "reviewer read")
        act = _given_iri("iri", iri) or ids.new_iri()
        if iri:
            self._refuse_other_run(act, f"{what} <{act}>")
        who = review_schema.Reviewer(
            name=reviewer, version=version, model=model,
            iri=review_schema.reviewer_iri(reviewer, version, model))
        weighed: dict[str, tuple[IRI, ...]] = {}
        if adjudication:
            reviews = [r for r in review_schema.reviews_of(self.store, [c]) if not r.adjudication]
            for kind in verdicts:
                weighed[kind] = tuple(sorted(v.iri for r in reviews for v in r.verdicts
                                             if v.kind == kind))
                if not weighed[kind]:
                    raise RecordError(f"claim <{c}> has no review with a {kind} verdict: nothing "
                                      "to adjudicate; record the reviews first (provgraph review)")
            late = [r for r in reviews if r.at > when
                    and any(v.kind in verdicts for v in r.verdicts)]
            if late:
                raise RecordError(f"adjudication time {when.isoformat()} is before the review "
                                  f"<{late[0].iri}> of {late[0].at.isoformat()} it weighs")
        rec = review_schema.ReviewRecord(
            iri=act, adjudication=adjudication, claim=c, reviewer=who, role=role, at=when,
            policy=policy or None, saw=saw_iri,
            verdicts=tuple(review_schema.Verdict(kind=k, value=v, activity=act, reviewer=who.iri,
                                                 derived_from=weighed.get(k, ()),
                                                 iri=IRI(f"{act}#verdict-{k}"))
                           for k, v in sorted(verdicts.items())),
            weighed=tuple(sorted({i for t in weighed.values() for i in t})), run=self.iri)
        self._emit(review_schema.to_quads(rec, self.iri))
        return rec

    def _as_target(self, raw: str) -> IRI | None:
        """``raw`` as an IRI when it names a recorded resource, else ``None``."""
        if not _IRI_SYNTAX.match(raw):
            return None
        iri = IRI(raw)
        if iri in self._support or iri in self._written:
            return iri
        if self._pending and any(qd[0] == iri for qd in self._pending):
            return iri
        return iri if self.store.has_subject(iri) else None


def _declared_policy(policy: str | None, quote: str | None) -> str | None:
    """``name@version`` of a citation's declared normalization policy (``None``: none)."""
    if policy is None:
        return None
    if quote is None:
        raise RecordError(f"citation policy {policy!r} says how the quote is compared; give "
                          "quote= as well, or leave the policy out")
    try:
        return get_policy(policy).label
    except ResolutionError as exc:
        raise RecordError(f"citation policy: {exc}") from None


def _package_versions(packages: Sequence[str] | None) -> dict[str, str]:
    names = packages if packages is not None else (
        "provgraph", "pyoxigraph", "rdflib", "prov", "networkx", "click")
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out
