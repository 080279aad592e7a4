"""The resolver's engine: reads a citation's target from the store, checks it with
:mod:`provgraph.matching`, and maps the span back to snapshot bytes.

Private to :mod:`provgraph.resolve` (which documents the rules); :class:`Citation`
is re-exported there.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from . import ids
from .errors import (
    OffsetError, OriginalCorruptError, OriginalMissingError, ProvgraphError, ResolutionError,
    SourceDecodeError,
)
from .matching import VERIFIED, Located, Resolution, locate, search
from ._region_resolver import RegionReads, locate_on_page, resolve_region
from .schema.table import pdf_fragment
from .media import BLOCKS_MEDIA_TYPE, BlockText, base_media_type, is_blocks_media_type, is_text_media_type
from .schema.agent import AGENT
from .schema.chunk import CHUNK
from .schema.citation import Citation
from .schema.claim import ClaimRecord
from .schema.extraction import EXTRACTED_TEXT, decode_offset_map
from .schema.segment import SEGMENTS
from .schema.snapshot import SNAPSHOT, newest_first
from .normalize import EXACT, Policy, get_policy
from .offsets import LOCATOR_UNITS, SourceText
from ._resolver_reads import (
    _AIDS_OF_CLAIM, _DOCUMENT_BY_URI, _REVERSE, _ROUNDS, BatchedReads, _Miss, _value,
)
from .store import ProvStore
from .terms import IRI, lit
from .vocab import PG, PROV, RDF

__all__ = ["Citation"]


_GENERATED_TYPES = {PG.GeneratedAid: "a generated aid", PG.HypotheticalDocument: "a hypothetical document",
                    PG.ContextualPrefix: "a contextual prefix", PG.GeneratedQuestion: "a generated question",
                    PG.Answer: "a generated answer", PG.Claim: "a claim of a generated answer"}
_QUOTE_PAIRS = ('""', "\u201c\u201d", "''", "\u2018\u2019", "\u00ab\u00bb", "\u201e\u201c")


class _Stop(Exception):
    """Ends a resolution early with an outcome."""

    def __init__(self, outcome: str, reason: str, **fields: Any) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason
        self.fields = fields


_T = TypeVar("_T")


@dataclass
class _Snap:
    iri: IRI
    sha256: str
    data: bytes
    src: SourceText | None
    problem: str
    media_type: str


@dataclass
class _Ext:
    iri: IRI
    sha256: str
    src: SourceText
    segs: list[tuple[int, int, int, int]]
    snapshot: IRI
    verbatim: dict[int, bool]


@dataclass
class _View:
    kind: str  # snapshot | blocks | extracted | chunk
    iri: IRI
    src: SourceText | None
    snap: _Snap
    ext: _Ext | None = None
    base: int = 0
    blocks: BlockText | None = None

    def describe(self) -> str:
        if self.kind == "snapshot":
            return f"snapshot <{self.iri}>"
        if self.kind == "blocks":
            return f"the blocks of snapshot <{self.iri}> ({BLOCKS_MEDIA_TYPE})"
        if self.kind == "extracted":
            return f"extracted text <{self.iri}> of snapshot <{self.snap.iri}>"
        n = len(self.src.text) if self.src else 0
        return (f"chunk <{self.iri}> (code points [{self.base}, {self.base + n}) of extracted "
                f"text <{self.ext.iri if self.ext else ''}>)")


class _Resolver(BatchedReads):
    """Resolves citations against one store, caching what it reads (its reads are
    batched by :class:`~provgraph._resolver_reads.BatchedReads`)."""

    def __init__(self, store: ProvStore, policy: Policy) -> None:
        super().__init__(store)
        self.policy = policy
        self._snaps: dict[str, _Snap | _Stop] = {}
        self._exts: dict[str, _Ext | _Stop] = {}
        self._texts: dict[str, SourceText] = {}
        self._regions = RegionReads(store)
        self.damaged: dict[str, str] = {}
        """Retained originals that are missing or corrupt: digest -> the error (issue 20)."""

    def resolve_many(self, items: Sequence[tuple[Citation, ClaimRecord | None]]) -> list[Resolution]:
        """The resolutions of ``items`` in order, reading the store in batched rounds:
        at most ``4 + 3 * _ROUNDS`` queries, whatever the number of citations (plus
        direct reads for what is still missing after the last round)."""
        self.prefetch([c for c, _ in items])
        regions = [t for t in {c.target for c, _ in items if c.target is not None}
                   if {PG.TableCell, PG.Table} & set(self._props.get(t, {}).get(RDF.type, []))]
        if regions:  # PDF cells and tables (issue 21): read together, eight queries
            self._regions.preload(sorted(regions))
        out: dict[int, Resolution] = {}
        pending = list(range(len(items)))
        self._collecting = True
        try:
            for _ in range(_ROUNDS):
                still = []
                for i in pending:
                    try:
                        out[i] = self.resolve(*items[i])
                    except _Miss:
                        still.append(i)
                pending = still
                if not pending:
                    break
                self.fetch()
        finally:
            self._collecting = False
        for i in pending:
            out[i] = self.resolve(*items[i])
        return [out[i] for i in range(len(items))]

    @staticmethod
    def _memo(cache: dict[str, _T | _Stop], iri: IRI, load: Callable[[IRI], _T]) -> _T:
        """``load(iri)`` once per IRI; a :class:`_Stop` it raises is remembered and
        raised again, so a broken snapshot is diagnosed once per run."""
        got = cache.get(iri)
        if got is None:
            try:
                got = load(iri)
            except _Stop as stop:
                got = stop
            cache[iri] = got
        if isinstance(got, _Stop):
            raise got
        return got

    def snapshot(self, iri: IRI) -> _Snap:
        return self._memo(self._snaps, iri, self._load_snapshot)

    def _load_snapshot(self, iri: IRI) -> _Snap:
        rec = SNAPSHOT.decode(self.props(iri), {}, iri)
        sha = rec["sha256"]
        if not sha:
            raise _Stop("snapshot_mismatch", f"snapshot <{iri}> records no pg:sha256, so its "
                        "retained bytes cannot be checked")
        named = ids.digest_of_snapshot_iri(iri)
        if named is not None and named != sha:
            raise _Stop("snapshot_mismatch", f"snapshot <{iri}> names sha256:{named} but records "
                        f"pg:sha256 {sha}")
        data = self._original(sha, f"snapshot <{iri}>")
        try:
            src: SourceText | None = SourceText.from_bytes(data, name=f"snapshot <{iri}>")
            problem = ""
        except SourceDecodeError as exc:
            src, problem = None, str(exc)
        return _Snap(iri, sha, data, src, problem, rec["media_type"] or "")

    def _original(self, sha: str, what: str) -> bytes:
        try:
            return self.store.originals.get(sha)
        except (OriginalMissingError, OriginalCorruptError, ValueError) as exc:
            if not isinstance(exc, ValueError):
                self.damaged[sha] = str(exc)
            raise _Stop("snapshot_mismatch", f"the retained original of {what} cannot be used: "
                        f"{exc}") from None

    def extraction(self, iri: IRI) -> _Ext:
        return self._memo(self._exts, iri, self._load_extraction)

    def _load_extraction(self, iri: IRI) -> _Ext:
        rec = EXTRACTED_TEXT.decode(self.props(iri), {}, iri)
        sha = rec["text_sha256"]
        if not sha:
            raise _Stop("snapshot_mismatch", f"extracted text <{iri}> records no pg:sha256, so "
                        "the rendering cited cannot be checked")
        data = self._original(sha, f"extracted text <{iri}>")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _Stop("snapshot_mismatch", f"the retained extracted text <{iri}> is not UTF-8") from None
        snaps = [s for s in self.objects(iri, PROV.wasDerivedFrom) if PG.SourceSnapshot in self.types(s)]
        if not snaps:
            raise _Stop("unresolved_id", f"extracted text <{iri}> derives from no recorded snapshot")
        segs = sorted(decode_offset_map(rec["offset_map"]))
        return _Ext(iri, sha, SourceText.from_text(text), segs, snaps[0], {})

    def text_of(self, iri: IRI) -> SourceText | None:
        got = self._texts.get(iri)
        if got is None:
            text = self.one(iri, PG.text)
            if text is None:
                return None
            got = self._texts[iri] = SourceText.from_text(str(text))
        return got

    # ------------------------------------------------------------ entry
    def resolve(self, cit: Citation, claim: ClaimRecord | None = None) -> Resolution:
        """The resolution of ``cit``; ``claim`` is the claim that made it (a quotation
        claim's citation without a quote is checked with the claim's own text)."""
        default = self.policy
        try:
            if cit.policy:  # the citation's declared policy wins (issue 7, QA 4)
                try:
                    self.policy = get_policy(cit.policy)
                except ResolutionError as exc:
                    raise _Stop("unresolved_range", f"the citation declares the normalization "
                                f"policy {cit.policy!r}, which cannot be applied: {exc}") from None
            res = self._resolve(cit, claim)
        except _Stop as stop:
            res = Resolution(outcome=stop.outcome, reason=stop.reason, policy=self.policy.name,
                             policy_version=self.policy.version, **stop.fields)
        except ResolutionError as exc:
            res = Resolution(outcome="unresolved_range", reason=str(exc), policy=self.policy.name,
                             policy_version=self.policy.version)
        finally:
            self.policy = default
        return replace(res, citation=cit.iri)

    def _resolve(self, cit: Citation, claim: ClaimRecord | None) -> Resolution:
        quote, lead = cit.quote, ""
        if quote is None and claim is not None and claim.kind == "quotation" and claim.text:
            quote = _strip_quotes(claim.text)
            lead = "no quote given, so the quotation claim's own text was checked; "
        cit = replace(cit, quote=quote or None)
        target = cit.target or self._target_from_id(cit.target_id)
        types = self.types(target)
        if not types:
            raise _Stop("unresolved_id", f"target {cit.target_id!r} names nothing recorded in the store")
        gen = [d for t, d in _GENERATED_TYPES.items() if t in types]
        if gen:
            return self._generated_target(target, cit, gen[-1], lead)
        if PG.Document in types:
            return self._prefixed(lead, self._via_document(target, cit))
        if PG.IndexedRepresentation in types or PG.GeneratorInput in types:
            return self._prefixed(lead, self._via_segments(target, cit, types))
        if PG.TableCell in types or PG.Table in types:  # a PDF region (issue 21)
            return self._prefixed(lead, resolve_region(self._regions, target, types, cit,
                                                       self.policy, self.snapshot))
        if PG.SourceSnapshot in types:
            view = _View("snapshot", target, None, self.snapshot(target))
            view.src = view.snap.src
        elif PG.ExtractedText in types:
            ext = self.extraction(target)
            view = _View("extracted", target, ext.src, self.snapshot(ext.snapshot), ext)
        elif PG.Chunk in types:
            view = self._chunk_view(target)
        else:
            kinds = ", ".join(sorted(t.rsplit("#", 1)[-1] for t in types))
            raise _Stop("unresolved_id", f"target <{target}> is a {kinds}, not source text a "
                        "citation can quote")
        self._check_pin(cit, view)
        return self._prefixed(lead, self._on_view(view, cit))

    @staticmethod
    def _prefixed(lead: str, res: Resolution) -> Resolution:
        return replace(res, reason=lead + res.reason) if lead else res

    def _target_from_id(self, raw: str) -> IRI:
        docs = self._docs_by_uri.get(raw)
        if docs is None:
            rows = self.store.select(_DOCUMENT_BY_URI, {"uri": lit(raw)})
            docs = self._docs_by_uri[raw] = sorted({IRI(r["doc"]) for r in rows if r["doc"] is not None})
        if len(docs) == 1:
            return docs[0]
        if len(docs) > 1:
            raise _Stop("unresolved_id", f"target {raw!r} is the source URI of {len(docs)} documents")
        if ":" in raw:
            try:
                if self.props(raw):
                    return IRI(raw)
            except ProvgraphError:  # not an IRI at all
                pass
        raise _Stop("unresolved_id", f"target {raw!r} names no recorded snapshot, extraction, "
                    "chunk, aid or document (nor a document's source URI)")

    def _chunk_view(self, chunk: IRI) -> _View:
        rec = CHUNK.decode(self.props(chunk), {}, chunk)
        text, start, end = rec["text"], rec["start"], rec["end"]
        exts = [e for e in self.objects(chunk, PROV.wasDerivedFrom) if PG.ExtractedText in self.types(e)]
        if text is None or start is None or not exts:
            raise _Stop("unresolved_id", f"chunk <{chunk}> lacks pg:text, pg:start or the extracted "
                        "text it derives from")
        ext = self.extraction(exts[0])
        if ext.src.text[start:end] != text:
            raise _Stop("snapshot_mismatch", f"chunk <{chunk}>'s pg:text is not code points "
                        f"[{start}, {end}) of its recorded extracted text <{ext.iri}> (sha256:"
                        f"{ext.sha256}): the chunk addresses another rendering")
        src = self._texts.get(chunk) or self._texts.setdefault(chunk, SourceText.from_text(text))
        return _View("chunk", chunk, src, self.snapshot(ext.snapshot), ext, int(start))

    def _check_pin(self, cit: Citation, view: _View) -> None:
        pin = (cit.pinned_sha256 or "").lower().removeprefix("sha256:")
        if not pin:
            return
        known = {view.snap.sha256} | ({view.ext.sha256} if view.ext else set())
        if pin not in known:
            ext = f" nor the extracted text's sha256:{view.ext.sha256}" if view.ext else ""
            raise _Stop("snapshot_mismatch", f"the citation is pinned to sha256:{pin}, which is not "
                        f"the retained bytes of snapshot <{view.snap.iri}> (sha256:"
                        f"{view.snap.sha256}){ext}", snapshot=view.snap.iri)

    # ------------------------------------------------------------ one text
    def _locate(self, src: SourceText, cit: Citation) -> Located:
        rng = cit.start is not None and cit.end is not None
        return locate(src, cit.quote, start=cit.start if rng else None,
                      end=cit.end if rng else None, unit=cit.unit or "codepoint",
                      end_inclusive=cit.end_inclusive, prefix=cit.prefix, suffix=cit.suffix,
                      policy=self.policy)

    def _on_view(self, view: _View, cit: Citation) -> Resolution:
        ranged = cit.start is not None
        if view.kind == "snapshot":
            view = self._text_layer(view, cit)
        if view.src is None:  # the snapshot is not text (a PDF, say)
            why = view.snap.problem or f"it is {base_media_type(view.snap.media_type)}, not text"
            if ranged:
                raise _Stop("unresolved_range", f"snapshot <{view.iri}> ({view.snap.media_type}) is "
                            f"not UTF-8 text ({why}); a range must address its "
                            "extracted text or a chunk", snapshot=view.iri)
            if cit.quote is None:
                return self._result(view, Located("located", 0, 0, self.policy, "no quote given; "
                                    "the citation covers the whole snapshot"), whole_bytes=True)
            loc = Located("quote_mismatch", None, None, self.policy,
                          f"the snapshot is not UTF-8 text ({why}) and none of its "
                          "extracted texts holds the quote", in_text=False)
        else:
            loc = self._locate(view.src, cit)
        if loc.outcome == "quote_mismatch" and cit.quote and not ranged:
            alt = self._fallback(view, cit)
            if alt is not None:
                view, loc = alt
        if loc.outcome == "quote_mismatch" and cit.quote and not loc.in_text:
            gen = self._generated_holder(cit, [view.iri, view.ext.iri if view.ext else view.iri,
                                                view.snap.iri])
            if gen is not None:
                aid, desc = gen
                return self._res("generated_target", f"the quote does not occur in {view.describe()} "
                                 f"but occurs in {desc} <{aid}>: generated text is never a "
                                 "quotation source", generated_source=aid, snapshot=view.snap.iri)
        return self._result(view, loc)

    def _text_layer(self, view: _View, cit: Citation) -> _View:
        """The text a citation of a snapshot addresses, by media type (:mod:`provgraph.media`):
        a block document's blocks; for bytes that are not text, no text of their own (their
        recorded extraction for a page or block range, or for a quote; ``unresolved_range``
        when none is recorded); otherwise the snapshot's decoded text."""
        snap, unit = view.snap, cit.unit or "codepoint"
        ranged = cit.start is not None
        if is_blocks_media_type(snap.media_type) and (unit in LOCATOR_UNITS or not ranged):
            if unit == "page" and ranged:
                raise _Stop("unresolved_range", f"snapshot <{view.iri}> is a block document "
                            f"({BLOCKS_MEDIA_TYPE}): it has blocks, not pages", snapshot=view.iri)
            try:
                blocks = BlockText.from_bytes(snap.data, name=f"snapshot <{view.iri}>")
            except ValueError as exc:
                raise _Stop("unresolved_range", f"{exc}; its blocks cannot be located",
                            snapshot=view.iri) from None
            return _View("blocks", view.iri, blocks.source(), snap, blocks=blocks)
        if is_text_media_type(snap.media_type):
            return view
        media = base_media_type(snap.media_type)
        exts = self._extractions_of(view.iri)
        if not exts:
            if cit.quote is None and not ranged:
                return replace(view, src=None)
            what = ("pages cannot be located" if ranged and unit == "page" else
                    "blocks cannot be located" if ranged and unit == "block" else
                    "the quote cannot be checked against its bytes" if cit.quote is not None else
                    f"a {unit} range cannot address its text")
            raise _Stop("unresolved_range", f"no text layer recorded for {media}; {what}: "
                        f"snapshot <{view.iri}> is not text and no extraction of it is recorded "
                        "(record one, with its offset map, and cite it or this snapshot again)",
                        snapshot=view.iri)
        if ranged and unit in LOCATOR_UNITS:
            if len(exts) > 1:
                raise _Stop("unresolved_range", f"snapshot <{view.iri}> ({media}) has {len(exts)} "
                            f"recorded extractions, so its {unit}s are not one text; cite one of "
                            f"them: {', '.join(f'<{e}>' for e in exts)}", snapshot=view.iri)
            ext = self.extraction(exts[0])
            return _View("extracted", ext.iri, ext.src, snap, ext)
        return replace(view, src=None)

    def _fallback(self, view: _View, cit: Citation) -> tuple[_View, Located] | None:
        """Where a quote-only citation's quote is not in the target's own text: across the
        chunk's boundaries in its extracted text, or in a snapshot's extracted texts."""
        quote = cit.quote or ""
        if view.kind == "chunk" and view.ext is not None and view.src is not None:
            margin = len(quote) + 8
            lo = max(0, view.base - margin)
            hi = min(len(view.ext.src.text), view.base + len(view.src.text) + margin)
            loc = search(view.ext.src, quote, cit.prefix, cit.suffix, self.policy, lo, hi)
            if loc.start is not None and loc.end is not None and (
                    loc.start < view.base + len(view.src.text) and loc.end > view.base):
                ext_view = _View("extracted", view.ext.iri, view.ext.src, view.snap, view.ext)
                note = (f"the quote runs across a boundary of chunk <{view.iri}> (code points "
                        f"[{view.base}, {view.base + len(view.src.text)})); in its extracted text ")
                return ext_view, replace(loc, reason=note + loc.reason)
            if loc.outcome == "ambiguous":
                ext_view = _View("extracted", view.ext.iri, view.ext.src, view.snap, view.ext)
                return ext_view, replace(loc, reason=f"the quote is not inside chunk <{view.iri}>; "
                                         f"in its extracted text {loc.reason}")
        if view.kind == "snapshot":
            for ext_iri in self._extractions_of(view.iri):
                try:
                    ext = self.extraction(ext_iri)
                except _Stop:
                    continue
                loc = search(ext.src, quote, cit.prefix, cit.suffix, self.policy)
                if loc.outcome != "quote_mismatch":
                    note = f"not in the snapshot's own text; in its extracted text <{ext_iri}> "
                    return (_View("extracted", ext_iri, ext.src, view.snap, ext),
                            replace(loc, reason=note + loc.reason))
        return None

    def _extractions_of(self, snap: IRI) -> list[IRI]:
        self.need(subjects=[(PROV.wasDerivedFrom, snap)])
        self.need(props=self.subjects(PROV.wasDerivedFrom, snap))
        return [s for s in self.subjects(PROV.wasDerivedFrom, snap) if PG.ExtractedText in self.types(s)]

    def _res(self, outcome: str, reason: str, policy: Policy | None = None, **fields: Any) -> Resolution:
        pol = policy or self.policy
        return Resolution(outcome=outcome, reason=reason, policy=pol.name,
                          policy_version=pol.version, **fields)

    def _result(self, view: _View, loc: Located, whole_bytes: bool = False) -> Resolution:
        where = view.describe()
        if whole_bytes:
            n = len(view.snap.data)
            return self._res(loc.outcome, f"in {where}: {loc.reason}; bytes [0, {n})",
                             byte_start=0, byte_end=n, snapshot=view.snap.iri)
        if loc.start is None or loc.end is None:
            return self._res(loc.outcome, f"in {where}: {loc.reason}", loc.policy,
                             snapshot=view.snap.iri)
        if view.ext is not None and not view.ext.segs and loc.outcome in VERIFIED:
            paged = self._on_page(view, loc)  # a PDF's text: no bytes, a page and a box
            if paged is not None:
                return paged
        try:
            bs, be, cs, ce, note = self._to_snapshot(view, loc.start, loc.end)
        except _Stop as stop:
            outcome = "quote_mismatch" if loc.outcome in VERIFIED else "unresolved_range"
            return self._res(outcome, f"in {where}: {loc.reason}; but {stop.reason}",
                             snapshot=view.snap.iri)
        text: str | None
        if view.kind == "blocks" and view.src is not None:
            text = view.src.text[loc.start:loc.end]
        elif view.snap.src is not None and cs is not None and ce is not None:
            text = view.snap.src.text[cs:ce]
        else:
            text = view.src.text[loc.start:loc.end] if view.src else None
        span = f"; snapshot <{view.snap.iri}> bytes [{bs}, {be})" if view.kind not in ("snapshot", "blocks") else \
            f"; bytes [{bs}, {be})"
        return self._res(loc.outcome, f"in {where}: {loc.reason}{span}{note}", loc.policy,
                         byte_start=bs, byte_end=be, codepoint_start=cs, codepoint_end=ce,
                         snapshot=view.snap.iri, text=text)

    def _on_page(self, view: _View, loc: Located) -> Resolution | None:
        """A quote verified in the text of a PDF extraction (no offset map: its text is not
        in the bytes) is located by page and box through the recorded page layout; inside a
        table's box it is located in the table's region (issue 21)."""
        assert view.ext is not None and loc.start is not None and loc.end is not None
        acts = self.objects(view.ext.iri, PROV.wasGeneratedBy)
        s, e = view.base + loc.start, view.base + loc.end
        got = locate_on_page(self._regions, view.ext.iri, acts[0] if acts else None, s, e)
        if got is None:
            return None
        page, box, table = got
        layout = self._regions.layout_of_text(view.ext.iri)
        height = layout.height(page) if layout is not None else None
        where = (f"page {page}, in the region of table {table.index} (not mapped to a cell)"
                 if table is not None else f"page {page}")
        return self._res(loc.outcome, f"in {view.describe()}: {loc.reason}; {where}, words' box "
                         f"[{box[0]:g}, {box[1]:g}, {box[2]:g}, {box[3]:g}] pt (PDF user space); "
                         "a PDF's text has no byte offsets", loc.policy, snapshot=view.snap.iri,
                         text=view.ext.src.text[s:e], precision="table" if table else "page",
                         region=table.iri if table is not None else None, page=page, bbox=box,
                         fragment=pdf_fragment(page, box, height))

    # ------------------------------------------------------------ mapping to bytes
    def _to_snapshot(self, view: _View, cs: int, ce: int) -> tuple[int, int, int | None, int | None, str]:
        if view.kind == "snapshot":
            assert view.src is not None
            bs, be = view.src.byte_span(cs, ce)
            return bs, be, cs, ce, ""
        if view.kind == "blocks":
            assert view.blocks is not None
            rs, re_, crossed = view.blocks.raw_span(cs, ce)
            bs, be = view.blocks.raw.byte_span(rs, re_)
            note = "" if crossed is None else (
                f"; the byte range includes the JSON punctuation between blocks {crossed[0]} and "
                f"{crossed[1]}")
            return bs, be, rs, re_, note
        assert view.ext is not None
        bs, be, note = self._map_extracted(view.ext, view.snap, view.base + cs, view.base + ce)
        scs = sce = None
        if view.snap.src is not None:
            try:
                scs = view.snap.src.codepoint_of(bs, "utf8_byte")
                sce = view.snap.src.codepoint_of(be, "utf8_byte")
            except OffsetError:
                scs = sce = None
                note += "; the byte range does not fall on character boundaries of the snapshot text"
        elif view.snap.problem:
            note += "; no code point offsets: the snapshot is not UTF-8 text"
        return bs, be, scs, sce, note

    def _verbatim(self, ext: _Ext, snap: _Snap, i: int) -> bool:
        got = ext.verbatim.get(i)
        if got is None:
            ts, te, bs, be = ext.segs[i]
            got = ext.verbatim[i] = snap.data[bs:be] == ext.src.text[ts:te].encode("utf-8")
        return got

    def _map_extracted(self, ext: _Ext, snap: _Snap, s: int, e: int) -> tuple[int, int, str]:
        """Extracted-text code points ``[s, e)`` -> snapshot bytes, through the offset map."""
        segs = [g for g in ext.segs if g[1] > g[0]] or ext.segs
        if not segs:
            raise _Stop("unresolved_range", f"the offset map of extracted text <{ext.iri}> is empty: "
                        "its text has no recorded source bytes")
        text = ext.src.text
        starts = [g[0] for g in segs]
        ends = [g[1] for g in segs]
        notes: list[str] = []
        i = bisect_right(starts, s) - 1
        if i < 0 or s >= ends[i]:
            j = i + 1
            gap_end = starts[j] if j < len(segs) else len(text)
            if j < len(segs) and starts[j] < e and not text[s:starts[j]].strip():
                s, i = starts[j], j
                notes.append("leading whitespace the parser produced is left out")
            else:
                raise _Stop("unresolved_range", f"code points [{s}, {min(gap_end, e)}) of extracted "
                            f"text <{ext.iri}> ({text[s:min(gap_end, e)][:40]!r}) were produced by "
                            "the parser and have no source bytes")
        k = bisect_left(ends, e)
        if k == len(segs) or starts[k] >= e:
            p = k - 1
            if p >= i and not text[ends[p]:e].strip():
                e, k = ends[p], p
                notes.append("trailing whitespace the parser produced is left out")
            else:
                lo = ends[p] if p >= 0 else 0
                raise _Stop("unresolved_range", f"code points [{lo}, {e}) of extracted text "
                            f"<{ext.iri}> ({text[lo:e][:40]!r}) were produced by the parser and "
                            "have no source bytes")
        off = ext.src.offset_of
        ts, te, sb, eb = segs[i]
        if self._verbatim(ext, snap, i):
            bs = sb + off(s, "utf8_byte") - off(ts, "utf8_byte")
        else:
            bs = sb
            if s != ts:
                notes.append(f"offset-map segment [{ts}, {te}) -> bytes [{sb}, {eb}) is not a "
                             "verbatim copy of its source bytes, so the start is widened to the "
                             "segment's start")
        ts, te, sb, eb = segs[k]
        if self._verbatim(ext, snap, k):
            be = sb + off(e, "utf8_byte") - off(ts, "utf8_byte")
        else:
            be = eb
            if e != te:
                notes.append(f"offset-map segment [{ts}, {te}) -> bytes [{sb}, {eb}) is not a "
                             "verbatim copy of its source bytes, so the end is widened to the "
                             "segment's end")
        if any(segs[n + 1][0] > segs[n][1] for n in range(i, k)):
            notes.append("the span crosses text the parser produced; the byte range includes "
                         "the source markup in between")
        elif any(segs[n + 1][2] > segs[n][3] for n in range(i, k)):
            notes.append("the byte range includes the source markup the parser left out "
                         "between its segments")
        return bs, max(be, bs), "".join("; " + n for n in notes)

    # ------------------------------------------------------------ generated text
    def _describe_generated(self, iri: IRI) -> str:
        types = self.types(iri)
        kind = [d for t, d in _GENERATED_TYPES.items() if t in types]
        desc = kind[-1] if kind else "generated text"
        agents = []
        self.need(props=self.objects(iri, PROV.wasGeneratedBy))
        self.need(props=[ag for act in self.objects(iri, PROV.wasGeneratedBy)
                         for ag in self.objects(act, PROV.wasAssociatedWith)])
        for act in self.objects(iri, PROV.wasGeneratedBy):
            for ag in self.objects(act, PROV.wasAssociatedWith):
                a = AGENT.decode(self.props(ag), {}, ag)
                agents.append(f"{a['name'] or ag} {a['version'] or ''}".strip())
        return desc + (f" generated by {', '.join(sorted(agents))}" if agents else "")

    def _generated_target(self, target: IRI, cit: Citation, desc: str, lead: str) -> Resolution:
        detail = ""
        src = self.text_of(target)
        if cit.quote and src is not None:
            loc = search(src, cit.quote, cit.prefix, cit.suffix, self.policy)
            detail = ("; the quote occurs in its text" if loc.outcome != "quote_mismatch"
                      else "; the quote does not occur in its text either")
        return self._res("generated_target", f"{lead}the target <{target}> is "
                         f"{self._describe_generated(target)}: generated text is never a quotation "
                         f"source{detail}", generated_source=target)

    def _generated_holder(self, cit: Citation, targets: list[IRI]) -> tuple[IRI, str] | None:
        """An aid whose text contains the quote: aids derived from the target (or its
        chunks, or named by generated segments of its indexed representations), then
        aids in the claim's generator input or used by its retrieval."""
        quote = cit.quote or ""
        nq = self.policy.normalize_quote(quote)
        candidates: list[tuple[IRI, str]] = []
        self.need(subjects=[(p, t) for t in targets for p in _REVERSE])
        for t in dict.fromkeys(targets):
            candidates += self._aids_of_target(t)
        if cit.claim:
            candidates += self._aids_of_claim(cit.claim)
        for aid, text in candidates:
            if quote in text or (self.policy is not EXACT and nq and nq in self.policy.normalize_quote(text)):
                return aid, self._describe_generated(aid)
        return None

    def _aids_of_target(self, target: IRI) -> list[tuple[IRI, str]]:
        """Aids derived from ``target`` within three ``prov:wasDerivedFrom`` steps, and aids
        named by generated segments of its indexed representations, with their texts.

        Walked with indexed pattern lookups from the target: the same question as one
        SPARQL UNION with the target substituted took seconds per call on a 44k-statement
        store, because the engine binds substitutions after evaluating the pattern.
        """
        found: set[IRI] = set()
        frontier = [target]
        for _ in range(3):
            self.need(subjects=[(PROV.wasDerivedFrom, n) for n in frontier])
            nxt = [s for node in frontier for s in self.subjects(PROV.wasDerivedFrom, node)]
            self.need(props=nxt)
            found.update(nxt)
            frontier = nxt
        self.need(subjects=[(PROV.specializationOf, target)])
        reps = self.subjects(PROV.specializationOf, target)
        self.need(props=reps)
        self.need(props=[seg for r in reps for seg in self.objects(r, PG.segment)])
        for rep_ in reps:
            for seg in self.objects(rep_, PG.segment):
                if self.one(seg, PG.origin) == "generated":
                    found.update(self.objects(seg, PG.segmentSource))
        return sorted((aid, str(self.one(aid, PG.text))) for aid in found
                      if PG.GeneratedAid in self.types(aid) and self.one(aid, PG.text) is not None)

    def _aids_of_claim(self, claim: IRI) -> list[tuple[IRI, str]]:
        got = self._claim_aids.get(claim)
        if got is None:
            rows = self.store.select(_AIDS_OF_CLAIM, {"claim": claim})
            got = self._claim_aids[claim] = sorted({(IRI(r["aid"]), str(_value(r["text"])))
                                                    for r in rows})
        return got

    # ------------------------------------------------------------ documents (newest revision)
    def _via_document(self, doc: IRI, cit: Citation) -> Resolution:
        self.need(subjects=[(PROV.specializationOf, doc)])
        self.need(props=self.subjects(PROV.specializationOf, doc))
        snaps = [s for s in self.subjects(PROV.specializationOf, doc) if PG.SourceSnapshot in self.types(s)]
        if not snaps:
            why = self.one(doc, PG.notRetained)  # recorded as such (issue 14): say why
            raise _Stop("unresolved_id", f"document <{doc}> has no recorded snapshot"
                        + (f": its bytes were not retained ({why})" if why is not None else ""))
        revised = {o for s in snaps for o in self.objects(s, PROV.wasRevisionOf)}
        order = newest_first(snaps, {s: next(iter(self.props(s).get(PG.observedAt, ())), None) for s in snaps},
                             revised)
        pin = (cit.pinned_sha256 or "").lower().removeprefix("sha256:")
        if pin:
            hit = [s for s in order if self.one(s, PG.sha256) == pin]
            if not hit:
                raise _Stop("snapshot_mismatch", f"the citation is pinned to sha256:{pin}, which is "
                            f"none of the {len(order)} retained snapshots of document <{doc}>")
            view = _View("snapshot", hit[0], None, self.snapshot(hit[0]))
            view.src = view.snap.src
            return self._on_view(view, replace(cit, pinned_sha256=None))
        newest = order[0]
        deleted = self.objects(doc, PROV.wasInvalidatedBy) or self.objects(newest, PROV.wasInvalidatedBy)
        view = _View("snapshot", newest, None, self.snapshot(newest))
        view.src = view.snap.src
        res = self._on_view(view, cit)
        gone = deleted or (res.outcome == "quote_mismatch" and cit.quote is not None)
        if gone and not deleted and cit.start is not None:
            # a ranged quote that moved: the newest revision still holds it elsewhere, so
            # it is a misplaced range, not an orphaned quote
            gone = not self._on_view(view, replace(cit, start=None, end=None)).verified
        if not gone:
            return replace(res, reason=f"document <{doc}>, newest revision: {res.reason}")
        for old in (order if deleted else order[1:]):
            try:
                old_view = _View("snapshot", old, None, self.snapshot(old))
                old_view.src = old_view.snap.src
                found = (self._on_view(old_view, replace(cit, start=None, end=None))
                         if cit.quote else None)
            except _Stop:  # unreadable, or not text with no text layer: look further back
                continue
            if found is not None and found.verified:
                why = (f"document <{doc}> was deleted; the quote occurs in its snapshot <{old}>"
                       if deleted else
                       f"the quote is not in the newest revision <{newest}> of document <{doc}>; "
                       f"it occurs in the older snapshot <{old}>")
                return self._res("orphaned", f"{why} at bytes [{found.byte_start}, {found.byte_end})",
                                 snapshot=newest)
        if deleted:
            return self._res("orphaned", f"document <{doc}> was deleted; its newest snapshot is "
                             f"<{newest}>" + ("" if cit.quote is None else
                                              " and no snapshot of it holds the quote"),
                             snapshot=newest)
        return replace(res, reason=f"document <{doc}>, newest revision: {res.reason}; no older "
                       "snapshot holds it either")

    # ------------------------------------------------------------ indexed and prompt text
    def _segments(self, owner: IRI) -> list[tuple[int, int, str, IRI | None, int]]:
        """The segments of a prompt or indexed text, decoded by the schema's segment table:
        ``(start, end, origin, source, index)``, sorted."""
        nodes = self.objects(owner, PG.segment)
        self.need(props=nodes)
        out = []
        for node in nodes:
            seg = SEGMENTS.table.decode(self.props(node), {}, node)
            tail = node.rsplit("-", 1)[-1]
            out.append((int(seg["start"] or 0), int(seg["end"] or 0), str(seg["origin"]),
                        seg["source"], int(tail) if tail.isdigit() else 0))
        return sorted(out)

    def _via_segments(self, target: IRI, cit: Citation, types: set[str]) -> Resolution:
        what = "generator input" if PG.GeneratorInput in types else "indexed representation"
        src = self.text_of(target)
        if src is None:
            raise _Stop("unresolved_id", f"{what} <{target}> has no pg:text")
        segs = self._segments(target)
        if cit.start is not None and cit.end is not None:
            try:
                cs, ce = src.span(cit.start, cit.end, cit.unit or "codepoint", cit.end_inclusive)
            except OffsetError as exc:
                raise _Stop("unresolved_range", f"in {what} <{target}>: {exc}") from None
        elif cit.quote is None:
            raise _Stop("unresolved_range", f"the citation names the whole {what} <{target}> and no "
                        "range or quote, so it points at no source text")
        else:
            loc = search(src, cit.quote, cit.prefix, cit.suffix, self.policy)
            if loc.start is None or loc.end is None:
                in_original = any(cit.quote in src.text[a:b] for a, b, o, _, _ in segs if o == "original")
                gen = [(s_, a, b) for a, b, o, s_, _ in segs
                       if o == "generated" and s_ is not None and cit.quote in src.text[a:b]]
                if gen and not in_original:
                    aid = gen[0][0]
                    return self._res("generated_target", f"the quote occurs only in generated text of "
                                     f"{what} <{target}>, from {self._describe_generated(aid)} <{aid}>",
                                     generated_source=aid)
                holder = (self._generated_holder(cit, [target]) if loc.outcome == "quote_mismatch"
                          else None)
                if holder is not None:
                    return self._res("generated_target", f"the quote does not occur in {what} "
                                     f"<{target}> but in {holder[1]} <{holder[0]}>",
                                     generated_source=holder[0])
                return self._res(loc.outcome, f"in {what} <{target}>: {loc.reason}", loc.policy)
            cs, ce = loc.start, loc.end
        over = [g for g in segs if (g[0] < ce and cs < g[1]) or (cs == ce and g[0] <= cs <= g[1])]
        in_gen = [g for g in over if g[2] == "generated"]
        if in_gen:
            gen_aid = in_gen[0][3]
            return self._res("generated_target", f"code points [{cs}, {ce}) of {what} <{target}> "
                             f"fall in its generated segment {in_gen[0][4]} [{in_gen[0][0]}, {in_gen[0][1]}), "
                             f"text from {self._describe_generated(gen_aid) if gen_aid else 'a generator'} "
                             f"<{gen_aid}>", generated_source=gen_aid)
        if len(over) != 1 or over[0][2] != "original" or over[0][3] is None or not (
                over[0][0] <= cs and ce <= over[0][1]):
            kinds = ", ".join(f"{g[2]} [{g[0]}, {g[1]})" for g in over) or "no segment"
            raise _Stop("unresolved_range", f"code points [{cs}, {ce}) of {what} <{target}> are not "
                        f"inside one original segment (they cover: {kinds}), so they name no source text")
        a, b, _, chunk, idx = over[0]
        assert chunk is not None  # an original segment without a chunk was refused above
        seg_text = src.text[a:b]
        view = self._chunk_view(chunk) if PG.Chunk in self.types(chunk) else None
        if view is None or view.src is None:
            raise _Stop("unresolved_range", f"segment {idx} of {what} <{target}> names <{chunk}>, "
                        "which is not a recorded chunk")
        k = view.src.text.find(seg_text)
        if k < 0 or view.src.text.find(seg_text, k + 1) >= 0:
            raise _Stop("unresolved_range", f"segment {idx} of {what} <{target}> is not a unique "
                        f"part of chunk <{chunk}>'s text, so its offsets cannot be carried over")
        inner = replace(cit, start=cs - a + k, end=ce - a + k, unit="codepoint", end_inclusive=False,
                        prefix=None, suffix=None)
        res = self._on_view(view, inner)
        return replace(res, reason=f"code points [{cs}, {ce}) of {what} <{target}> are original "
                       f"text (segment {idx}) from chunk <{chunk}>; {res.reason}")


def _strip_quotes(text: str) -> str:
    t = text.strip()
    for pair in _QUOTE_PAIRS:
        if len(t) >= 2 and t[0] == pair[0] and t[-1] == pair[1]:
            return t[1:-1].strip()
    return t
