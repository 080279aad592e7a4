"""The auditor's page, as data (issue 19): what each view of :mod:`provgraph.ui` shows,
read through the library that the CLI uses, so the page and ``provgraph lineage``,
``stale``, ``impact`` and ``export`` cannot disagree about a citation.

Views:

* :func:`run_list`: the runs (:func:`provgraph.runs.runs`).
* :func:`run_answers`: a run's answers, each with its claims, their status and the
  resolver's outcomes; optionally filtered (:data:`FILTERS`).
* :func:`claim_drawer`: one claim: its citations, each with the cited snapshot
  (URI, sha-256, observation time, the ``prov:wasRevisionOf`` chain and whether a
  newer version exists), the retained original as the resolver decodes it
  (:meth:`provgraph.offsets.SourceText.from_bytes`) split around the span the resolver
  located (``pg:resolvedCodepointStart/End``: end-exclusive code points of that text,
  checked here against ``pg:resolvedByteStart/End`` in the retained bytes), the diff of
  the cited lines when a newer revision exists, the prompt the model saw split into
  original and generated segments, and the review status.
  For a citation of a PDF table, cell or page box, the drawer also has a
  :class:`RegionView` (:func:`region_view`): :func:`provgraph.regions.region_for_citation`
  with the recorded page layout (page size, word boxes) and table (its cells) to draw.
* :func:`lineage_view`: the claim's upstream graph (:func:`provgraph.analytics.lineage`
  and :func:`~provgraph.analytics.lineage_subgraph`) laid out in layers by depth.
* :func:`bundle_of`: the claim's sealed PROV-JSON bundle
  (:func:`provgraph.io.bundle.export`) and its verification
  (:func:`~provgraph.io.bundle.verify_bundle`).

Every function only reads; each raises what the library function it calls raises
(:class:`~provgraph.errors.QueryParameterError` for an IRI that is not absolute,
:class:`~provgraph.errors.NotFound` for one the store does not hold).
"""

from __future__ import annotations

import datetime as _dt
import difflib
from dataclasses import dataclass, field
from typing import Any

from .. import analytics, runs as runs_mod
from .._rows import _check_iri, _run_query, curie
from ..errors import NotFound, OriginalCorruptError, OriginalMissingError, SourceDecodeError
from ..kinds import require_run
from ..io.bundle import BundleCheck, ExportResult, export, verify_bundle
from ..offsets import SourceText
from ..regions import Region, region_for_citation
from ..schema import agent as agent_schema
from ..schema import aid as aid_schema
from ..schema import chunk as chunk_schema
from ..schema import citation as citation_schema
from ..schema import claim as claim_schema
from ..schema import extraction as extraction_schema
from ..schema import generation as generation_schema
from ..schema import prompt as prompt_schema
from ..schema import review as review_schema
from ..schema import snapshot as snapshot_schema
from ..schema import table as table_schema
from ..schema.citation import Citation
from ..schema.claim import ClaimRecord
from ..schema.snapshot import SnapshotRecord
from ..schema.table import Box, TableRecord
from ..store import ProvStore
from ..terms import IRI, term_value
from ..vocab import PROV, RDFS, VERIFIED_OUTCOMES

__all__ = ["FILTERS", "AnswerView", "RunAnswers", "SnapshotView", "CitationView", "PromptPart",
           "ClaimDrawer", "RegionView", "region_view", "region_words", "LineageNode", "LineageView", "run_list", "run_answers",
           "ANSWERS_PER_PAGE", "claim_drawer", "lineage_view", "bundle_of", "outcome_class", "snapshot_labels",
           "stale_label"]

FILTERS = ("stale", "impacted", "generated", "unsupported", "unreviewed")
"""The answer view's filters: claims listed by ``provgraph stale``, ``impact --agent
NAME [--version V]``, ``generated-evidence``, ``unsupported``, and the query
``unreviewed-claims`` (no ``pg:Review`` of them), each for the run shown."""


def outcome_class(status: str, outcomes: list[str | None]) -> str:
    """How the page draws a claim, from its recorded status and its citations' resolver
    outcomes: ``unsupported`` (recorded ``unsupported`` or ``uncertain``, or every
    resolved citation failed: an outcome neither verified,
    :data:`provgraph.vocab.VERIFIED_OUTCOMES`, nor ``located``), ``partial`` (recorded
    ``partially_supported``, or some citation failed or was only ``located``: its
    target resolved but no quote was verified), else ``supported``.

    >>> outcome_class("supported", ["quote_match"]), outcome_class("supported", ["located"])
    ('supported', 'partial')
    >>> outcome_class("supported", ["generated_target"])
    'unsupported'
    """
    done = [o for o in outcomes if o is not None]
    failed = [o for o in done if o not in VERIFIED_OUTCOMES and o != "located"]
    if status in ("unsupported", "uncertain") or (done and len(failed) == len(done)):
        return "unsupported"
    if failed or status == "partially_supported" or "located" in done:
        return "partial"
    return "supported"


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerView:
    """One answer: its text, and its claims (in answer order)."""

    iri: IRI
    text: str
    claims: list[tuple[ClaimRecord, list[Citation]]]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunAnswers:
    """The answer view of a run: its IRI and ``rdfs:label``, ``answers`` (filtered; page
    ``page`` of ``pages``), the filter applied and how many claims it kept (``shown``) of
    ``total``."""

    run: IRI
    label: str | None
    answers: list[AnswerView]
    filter: str | None
    shown: int
    total: int
    page: int = 1
    pages: int = 1


def run_list(store: ProvStore) -> list[runs_mod.RunRow]:
    """The runs, as ``provgraph runs`` lists them."""
    return runs_mod.runs(store)


def _filtered(store: ProvStore, run: IRI, name: str, agent: str | None,
              version: str | None) -> set[IRI]:
    if name == "stale":
        return {r.claim for r in analytics.stale(store, run=run)}
    if name == "impacted":
        if not agent:
            raise ValueError("the impacted filter needs an agent name (agent=NAME, and "
                             "version=V for one version)")
        return {r.claim for r in analytics.impact(store, agent, version=version or None, run=run)}
    if name == "generated":
        return {r.claim for r in analytics.generated_evidence(store, run=run)}
    if name == "unsupported":
        return {r.claim for r in analytics.unsupported(store, run=run)}
    if name == "unreviewed":
        return {IRI(r["claim"]) for r in _run_query(store, "unreviewed-claims", {"run": run})
                if isinstance(r["claim"], IRI)}
    raise ValueError(f"unknown filter {name!r}; use one of {', '.join(FILTERS)}")


ANSWERS_PER_PAGE = 50
"""Answers shown on one page of the answer view."""

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def run_answers(store: ProvStore, run: str, *, filter: str | None = None,
                agent: str | None = None, version: str | None = None,
                page: int = 1) -> RunAnswers:
    """The answers of ``run`` with their claims and citations (reads bound to the run:
    its label, its claims, their records and citations, their answers; a filter adds the
    run-restricted library call it names).

    Args:
        store: the store.
        run: the run's IRI.
        filter: one of :data:`FILTERS`, or ``None`` for every claim.
        agent, version: for ``filter="impacted"``: the agent name and version.
        page: which page of :data:`ANSWERS_PER_PAGE` answers (1-based), in the order
            they were generated.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not a run of the store.
        AgentNotFound: no agent ``agent`` (at ``version``).
        ValueError: an unknown filter, ``impacted`` without an agent, a page that
            does not exist.
    """
    iri = require_run(store, _check_iri("run", run))
    label = next((str(term_value(q[2])) for q in store.quads(iri, RDFS.label, None, graph=iri)), None)
    keep = _filtered(store, iri, filter, agent, version) if filter else None
    records = claim_schema.load(store, claim_schema.claims_of_runs(store, [iri]))
    by_answer: dict[IRI, list[ClaimRecord]] = {}
    shown = 0
    for c in records.values():
        if keep is None or c.iri in keep:
            by_answer.setdefault(c.answer, []).append(c)
            shown += 1
    # the answers in the order they were generated (their prov:generatedAtTime); the
    # citations are read for the page's claims only
    answers = generation_schema.load(store, sorted(by_answer))
    times = {a: r.ended_at for a, r in answers.items()}
    order = sorted(by_answer, key=lambda a: (times.get(a) is None, times.get(a) or _EPOCH, a))
    pages = max(1, -(-len(order) // ANSWERS_PER_PAGE))
    if not 1 <= page <= pages:
        raise ValueError(f"page {page} does not exist: the run has {pages} page(s) of answers")
    mine = order[(page - 1) * ANSWERS_PER_PAGE:page * ANSWERS_PER_PAGE]
    cits = citation_schema.citations_of_claims(store, [c.iri for a in mine for c in by_answer[a]])
    out = [AnswerView(iri=a, text=answers[a].text if a in answers else "",
                      claims=[(c, cits.get(c.iri, []))
                              for c in sorted(by_answer[a], key=lambda c: (c.start, c.iri))])
           for a in mine]
    return RunAnswers(run=iri, label=label, answers=out, filter=filter, shown=shown,
                      total=len(records), page=page, pages=pages)


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotView:
    """The snapshot a citation resolved to, and its versions.

    Attributes:
        record: the snapshot.
        older: the ``prov:wasRevisionOf`` chain back from it, newest first.
        newer: the snapshots that revise it, newest first.
        deleted: it or its document was invalidated.
        text: its retained bytes decoded as the resolver decodes them, ``None`` when they
            are not UTF-8 text (or not retained).
        span: the end-exclusive code point range of ``text`` the resolver located.
        span_bytes: the same range in the retained bytes (byte-order mark counted).
        cited_bytes_text: ``bytes[span_bytes]`` decoded: equals ``text[span]`` (checked).
        diff: for a snapshot with a newer revision, the changed lines around the cited
            span as ``(tag, old_lines, new_lines)`` (``difflib`` opcodes ``replace``,
            ``delete``, ``insert``; ``equal`` once when the cited lines are unchanged).
        note: why no text or span is shown, if so.
    """

    record: SnapshotRecord
    older: list[SnapshotRecord] = field(default_factory=list)
    newer: list[SnapshotRecord] = field(default_factory=list)
    deleted: bool = False
    text: str | None = None
    span: tuple[int, int] | None = None
    span_bytes: tuple[int, int] | None = None
    cited_bytes_text: str | None = None
    diff: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RegionView:
    """The cited region of a PDF as the drawer draws it (issue 21 meets issue 19).

    Everything comes from :func:`provgraph.regions.region_for_citation` and the records
    it reads (:mod:`provgraph.schema.table`); nothing is located again here.

    Attributes:
        region: :func:`~provgraph.regions.region_for_citation` of the citation.
        words: :func:`region_words` of the region: its outcome, precision and gaps in
            plain words.
        page_size: ``(width, height)`` of the region's page in points, from the recorded
            page layout (``None``: the extraction recorded no layout).
        page_words: the words of that page as recorded: ``(text, box)``, in text order,
            each box :data:`~provgraph.schema.table.Box` (PDF points, origin bottom-left);
            empty when the layout has no word boxes.
        table: the region's table with its cells (``None`` at page precision).
        fragment: the RFC 8118 fragment (``page=N&viewrect=...``) of the region, the value
            of its ``FragmentSelector``.
        document: the PDF's file name, from its snapshot's source URI (for
            ``document#fragment``).
    """

    region: Region
    words: str
    page_size: tuple[float, float] | None
    page_words: list[tuple[str, Box]]
    table: TableRecord | None
    fragment: str
    document: str


_PRECISION_WORDS = {"cell": "the table cell", "row": "the table row", "table": "the table",
                    "page": "the page"}
_GAP_WORDS = {"header_not_extracted": "the header was not extracted",
              "row_context_not_extracted": ("part of the row was not extracted (words level with "
                                            "the cell lie outside the extracted table)")}


def region_words(region: Region) -> str:
    """The resolver's outcome, precision and context gaps of ``region`` in plain words.

    >>> import dataclasses
    >>> r = Region(citation="urn:x:c", outcome="context_not_extracted", precision="cell",
    ...            context_gaps=("header_not_extracted",), snapshot="urn:x:s",
    ...            extraction="urn:x:e", page=18, bbox=(0.0, 0.0, 1.0, 1.0), table="urn:x:t",
    ...            row=0, column=1, header_path=(), row_cells=(), text="Four hours",
    ...            page_text_start=None, page_text_end=None, selectors=())
    >>> region_words(r)
    'supported by the table, but the header was not extracted'
    >>> region_words(dataclasses.replace(r, outcome="quote_match", context_gaps=(),
    ...                                  header_path=("Window",)))
    'supported by the table cell, under the header Window'
    """
    what = _PRECISION_WORDS.get(region.precision or "", "the cited region")
    if region.outcome is None:
        return "not resolved yet: the cited region as recorded; nothing was checked"
    if region.outcome == "context_not_extracted":
        gaps = [_GAP_WORDS.get(g, g.replace("_", " ")) for g in region.context_gaps]
        return "supported by the table, but " + " and ".join(gaps or ["context was not extracted"])
    if region.outcome in VERIFIED_OUTCOMES:
        under = (f", under the header {' > '.join(region.header_path)}"
                 if region.header_path else "")
        return f"supported by {what}{under}"
    if region.outcome == "located":
        return f"located in {what}; no quote was checked"
    if region.outcome == "quote_mismatch":
        return f"not supported: the quote is not in {what}"
    return f"not supported: {region.outcome.replace('_', ' ')}"


def region_view(store: ProvStore, citation: str) -> RegionView:
    """The drawing of the PDF region ``citation`` points at: the
    :class:`~provgraph.regions.Region`, its page's recorded layout (size and word boxes,
    with the words' text from the extraction) and its table's cells.

    Raises:
        NotFound: as :func:`provgraph.regions.region_for_citation` (the citation points at
            no recorded table or cell and was located on no PDF page).
        StoreError, QueryError: the store cannot be read.
    """
    reg = region_for_citation(store, citation)
    ext = extraction_schema.load(store, [reg.extraction]).get(reg.extraction)
    layout = table_schema.load_layout(store, ext.text_iri) if ext is not None else None
    size: tuple[float, float] | None = None
    words: list[tuple[str, Box]] = []
    if layout is not None and 1 <= reg.page <= len(layout.pages):
        size = layout.pages[reg.page - 1][2:4]
        words = [(ext.text[s:e] if ext is not None else "", box)
                 for s, e, box in layout.words_on(reg.page)]
    table = table_schema.load_tables(store, [reg.table]).get(reg.table) if reg.table else None
    snap = snapshot_schema.load(store, [reg.snapshot]).get(reg.snapshot)
    name = (snap.source_uri.rstrip("/").rsplit("/", 1)[-1] if snap is not None and snap.source_uri
            else "") or "document.pdf"
    frag = next((str(s["value"]) for s in reg.selectors if s.get("type") == "FragmentSelector"),
                table_schema.pdf_fragment(reg.page))
    return RegionView(region=reg, words=region_words(reg), page_size=size, page_words=words,
                      table=table, fragment=frag, document=name)


@dataclass(frozen=True, slots=True, kw_only=True)
class CitationView:
    """A citation and what the drawer shows of it: the snapshot (``None`` when the
    resolver located none, e.g. a generated target), for a generated target the
    generated text it pointed at, and for a PDF table, cell or page box the region
    (:class:`RegionView`; ``None`` otherwise)."""

    citation: Citation
    snapshot: SnapshotView | None
    generated_text: str | None = None
    region: RegionView | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptPart:
    """A range of the prompt the model saw: its text, ``origin`` (``original``,
    ``generated``, ``instruction``, ``query``, or ``unmarked`` for text no segment
    covers) and the chunk or aid it came from."""

    text: str
    origin: str
    source: IRI | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimDrawer:
    """Everything the citation drawer shows for one claim.

    Attributes:
        claim: the claim.
        answer_text: the answer it is a span of.
        citations: its citations, by IRI.
        prompt: the prompt the model saw, in parts (empty when not recorded).
        stale: the ``provgraph stale`` rows of this claim (run-restricted).
        reviews: its reviews and adjudications, oldest first.
        display: :func:`outcome_class` of the claim.
        agents: the agents of every activity in its support (``pg:supportAgent``:
            parser, chunker, retriever, model, prompt template), by role then name.
        operands: for a derivation, each operand (``prov:wasDerivedFrom``, in order) with
            its text when it is a claim, else ``None``.
    """

    claim: ClaimRecord
    answer_text: str
    citations: list[CitationView]
    prompt: list[PromptPart]
    stale: list[Any]
    reviews: list[review_schema.ReviewRecord]
    display: str
    agents: list[agent_schema.Agent] = field(default_factory=list)
    operands: list[tuple[IRI, str | None]] = field(default_factory=list)


def _chain(store: ProvStore, rec: SnapshotRecord, limit: int = 50) -> list[SnapshotRecord]:
    out: list[SnapshotRecord] = []
    seen = {rec.iri}
    prev = rec.revision_of
    while prev is not None and prev not in seen and len(out) < limit:
        seen.add(prev)
        got = snapshot_schema.load(store, [prev]).get(prev)
        if got is None:
            break
        out.append(got)
        prev = got.revision_of
    return out


def _decode(store: ProvStore, rec: SnapshotRecord) -> tuple[SourceText | None, str]:
    try:
        return SourceText.from_bytes(store.originals.get(rec.sha256), name=str(rec.iri)), ""
    except OriginalMissingError:
        return None, "the original bytes are not retained in this store"
    except OriginalCorruptError as exc:  # shown, not a failed page: what an auditor is after
        return None, f"not shown: {exc}; 'provgraph verify' lists what depends on it"
    except SourceDecodeError as exc:
        return None, f"not shown as text: {exc}"


def _line_diff(old: str, new: str, span: tuple[int, int]) -> list[tuple[str, list[str], list[str]]]:
    """The opcodes of a line diff of ``old`` against ``new`` that touch the lines of
    ``old`` holding ``span`` (code points); ``[("equal", lines, lines)]`` when none does."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    first = old.count("\n", 0, span[0])
    last = old.count("\n", 0, max(span[0], span[1] - 1))
    out: list[tuple[str, list[str], list[str]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        touches = (i1 <= last and i2 > first) if i2 > i1 else (first <= i1 <= last + 1)
        if touches:
            out.append((tag, a[i1:i2], b[j1:j2]))
    return out or [("equal", a[first:last + 1], a[first:last + 1])]


def _snapshot_view(store: ProvStore, cit: Citation) -> SnapshotView | None:
    snap = cit.resolved_snapshot
    if snap is None and cit.target is not None:
        snap = cit.target if cit.target in snapshot_schema.load(store, [cit.target]) else None
    if snap is None:
        return None
    rec = snapshot_schema.load(store, [snap]).get(snap)
    if rec is None:
        return None
    state = snapshot_schema.states(store, [snap]).get(snap, snapshot_schema.SnapshotState())
    newer_recs = snapshot_schema.load(store, list(state.newer))
    newer = [newer_recs[n] for n in state.newer if n in newer_recs]
    src, note = _decode(store, rec)
    text = src.text if src is not None else None
    span = cit.resolved_codepoints
    span_bytes = cit.resolved_bytes
    cited: str | None = None
    if src is not None and span is not None:
        if not (0 <= span[0] <= span[1] <= len(src.text)):
            note, span = f"the recorded span {span} is outside the text", None
        elif span_bytes is not None:
            cited = src.data[span_bytes[0]:span_bytes[1]].decode("utf-8", errors="replace")
            if cited != src.text[span[0]:span[1]]:
                note = ("the recorded byte and code point ranges name different text; "
                        "'provgraph resolve' again")
    elif src is not None:
        note = note or "the resolver located no span in this snapshot"
    diff: list[tuple[str, list[str], list[str]]] = []
    if newer and text is not None and span is not None:
        new_src, _ = _decode(store, newer[0])
        if new_src is not None:
            diff = _line_diff(text, new_src.text, span)
    return SnapshotView(record=rec, older=_chain(store, rec), newer=newer, deleted=state.deleted,
                        text=text, span=span, span_bytes=span_bytes, cited_bytes_text=cited,
                        diff=diff, note=note)


def _generated_text(store: ProvStore, cit: Citation) -> str | None:
    target = cit.generated_source or (cit.target if cit.outcome == "generated_target" else None)
    if target is None:
        return None
    aids = aid_schema.load(store, [target])
    if target in aids:
        return aids[target].text
    chunks = chunk_schema.load(store, [target])
    return chunks[target].text if target in chunks else None


def _prompt(store: ProvStore, generator_input: IRI) -> list[PromptPart]:
    if not generator_input:
        return []
    rec = prompt_schema.load(store, [generator_input]).get(generator_input)
    if rec is None:
        return []
    parts: list[PromptPart] = []
    at = 0
    for seg in sorted(rec.segments, key=lambda s: (s.start, s.end)):
        if seg.start > at:
            parts.append(PromptPart(text=rec.text[at:seg.start], origin="unmarked"))
        start = max(seg.start, at)
        if seg.end > start:
            parts.append(PromptPart(text=rec.text[start:seg.end], origin=seg.origin,
                                    source=seg.source_iri))
        at = max(at, seg.end)
    if at < len(rec.text):
        parts.append(PromptPart(text=rec.text[at:], origin="unmarked"))
    return parts


def _may_be_stale(store: ProvStore, rec: ClaimRecord, cits: list[Citation]) -> bool:
    """Whether ``provgraph stale`` can list ``rec``, told from reads bound to it: one of
    its cited snapshots (``pg:citedSnapshot``, which covers derivation operands) has a
    newer revision or was invalidated (it or its document), or a citation targets a
    document that was invalidated: the three branches of ``stale.rq``. Only then is
    the run-restricted :func:`provgraph.analytics.stale` asked for its rows."""
    if any(st.newer or st.deleted
           for st in snapshot_schema.states(store, list(rec.cited_snapshots)).values()):
        return True
    return any(next(iter(store.quads(c.target, PROV.wasInvalidatedBy)), None) is not None
               for c in cits if c.target is not None)


def _operands(store: ProvStore, rec: ClaimRecord) -> list[tuple[IRI, str | None]]:
    if not rec.derivations:
        return []
    found = claim_schema.load(store, list(rec.derived_from))
    return [(o, found[o].text if o in found else None) for o in rec.derived_from]


def _region(store: ProvStore, cit: Citation) -> RegionView | None:
    """The region of a citation the resolver located in a PDF (a table, a cell or a page
    box), or of an unresolved one whose target may be a table or cell; ``None`` for any
    other (no read for a resolved citation of text)."""
    pdf = cit.resolved_region is not None or cit.resolved_page is not None
    if cit.iri is None or not (pdf or (cit.outcome is None and cit.target is not None)):
        return None
    try:
        return region_view(store, cit.iri)
    except NotFound:
        return None


def claim_drawer(store: ProvStore, claim: str) -> ClaimDrawer:
    """The citation drawer of ``claim``: reads bound to this claim, and, only for a claim
    whose cited snapshot was revised or deleted, :func:`provgraph.analytics.stale`
    restricted to its run (the library has no per-claim form of it).

    Raises:
        QueryParameterError: ``claim`` is not an absolute IRI.
        NotFound: no ``pg:Claim`` ``claim`` in the store.
    An altered retained original does not fail the drawer: its citation says so where
    the original would be shown.
    """
    iri = _check_iri("claim", claim)
    rec = claim_schema.load(store, [iri]).get(iri)
    if rec is None:
        raise NotFound(iri, "claim")
    cits = citation_schema.citations_of_claims(store, [iri]).get(iri, [])
    views = [CitationView(citation=c, snapshot=_snapshot_view(store, c),
                          generated_text=_generated_text(store, c), region=_region(store, c))
             for c in cits]
    answer = generation_schema.load(store, [rec.answer]).get(rec.answer) if rec.answer else None
    prompt = _prompt(store, answer.generator_input) if answer is not None else []
    try:
        stale_rows = ([r for r in analytics.stale(store, run=rec.run) if r.claim == iri]
                      if rec.run and _may_be_stale(store, rec, cits) else [])
    except OriginalCorruptError:  # a revision's original was altered: the citation view says
        stale_rows = []           # which original it cites; 'provgraph verify' names the rest
    return ClaimDrawer(claim=rec, answer_text=answer.text if answer is not None else "",
                       citations=views, prompt=prompt, stale=stale_rows,
                       reviews=review_schema.reviews_of(store, [iri]),
                       display=outcome_class(rec.status, [c.outcome for c in cits]),
                       agents=sorted(agent_schema.load_agents(store, list(rec.support_agents)).values(),
                                     key=lambda a: (a.role, a.name, a.version)),
                       operands=_operands(store, rec))


@dataclass(frozen=True, slots=True, kw_only=True)
class LineageNode:
    """A node of the drawn lineage: its :class:`~provgraph.analytics.LineageRow`
    fields and its place (``layer`` = depth, ``slot`` = position within the layer)."""

    row: analytics.LineageRow
    layer: int
    slot: int


@dataclass(frozen=True, slots=True, kw_only=True)
class LineageView:
    """The upstream graph of an entity: ``nodes`` (one per ``provgraph lineage`` row),
    ``edges`` as ``(node, relation CURIE, upstream node)`` between drawn nodes."""

    root: IRI
    nodes: list[LineageNode]
    edges: list[tuple[IRI, str, IRI]]


def lineage_view(store: ProvStore, entity: str) -> LineageView:
    """The lineage of ``entity`` laid out in layers: layer ``d`` holds the nodes at depth
    ``d`` (edges from the entity on a shortest path, as ``provgraph lineage`` gives
    them), in that command's row order.

    Raises:
        QueryParameterError, NotFound, WrongKind: as :func:`provgraph.analytics.lineage`.
    """
    rows = analytics.lineage(store, entity)
    edges_by, _, _ = analytics.lineage_subgraph(store, entity)
    slots: dict[int, int] = {}
    nodes = []
    for r in rows:
        nodes.append(LineageNode(row=r, layer=r.depth, slot=slots.get(r.depth, 0)))
        slots[r.depth] = slots.get(r.depth, 0) + 1
    drawn = {r.node for r in rows}
    edges = sorted((n, curie(rel), up) for n, lst in edges_by.items() if n in drawn
                   for rel, up in lst if up in drawn)
    return LineageView(root=IRI(entity), nodes=nodes, edges=edges)


def snapshot_labels(store: ProvStore, snapshots: list[IRI]) -> dict[str, str]:
    """A readable name of each of ``snapshots``: its source URI and observation date
    (one read); a snapshot not recorded as one keeps its IRI."""
    recs = snapshot_schema.load(store, sorted(set(snapshots)))
    return {str(s): (f"{recs[s].source_uri} ({recs[s].observed_at.date().isoformat()})"
                     if s in recs else str(s)) for s in snapshots}


def stale_label(rows: list[Any]) -> str:
    """One claim's ``provgraph stale`` rows in words: ``current`` (no row), ``deleted``,
    ``updated, cited span changed|unchanged|cannot tell`` (the worst row first)."""
    if not rows:
        return "current"
    if any(r.kind == "deleted" for r in rows):
        return "deleted"
    verdicts = [r.span_unchanged for r in rows]
    word = ("changed" if False in verdicts else "cannot tell" if None in verdicts
            else "unchanged")
    return f"updated, cited span {word}"


def bundle_of(store: ProvStore, claim: str) -> tuple[ExportResult, BundleCheck]:
    """The claim's bundle as ``provgraph export --claim CLAIM --format prov-json`` writes
    it, and :func:`provgraph.io.bundle.verify_bundle` of those bytes.

    Raises:
        QueryParameterError: ``claim`` is not an absolute IRI.
        NotFound, WrongKind: as :func:`provgraph.io.bundle.export`.
    """
    iri = _check_iri("claim", claim)
    result = export(store, "prov-json", claim=iri)
    return result, verify_bundle(result.data, "prov-json", name=f"bundle of {iri}")
