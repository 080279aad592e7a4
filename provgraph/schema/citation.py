"""Citations (``pg:Citation``): what a claim pointed at, as the answer gave it, and the
resolver's recorded outcome.

What is stored, in the run graph:

* ``claim pg:citation citation``; ``pg:targetId`` the identifier as the answer gave it,
  ``pg:target`` the recorded resource it names (when it names one);
* a range: ``pg:start``/``pg:end`` in ``pg:offsetUnit`` (``utf8_byte``, ``codepoint``,
  ``utf16_unit``, ``page``, ``block``) with ``pg:endInclusive``, written together;
* a quote: a W3C Web Annotation ``oa:TextQuoteSelector`` ``<citation>#quote``
  (``oa:exact``, ``oa:prefix``, ``oa:suffix``; Web Annotation Data Model §4.2.4) with
  the normalization policy it is to be compared under (``pg:policy "name@version"``);
* ``pg:pinnedSha256``: the digest of the bytes the citation was made against;
* after ``provgraph resolve``: ``pg:outcome``, ``pg:reason`` and, for
  ``generated_target``, ``prov:wasInfluencedBy`` the generated text
  (:func:`resolution_quads` writes these; :mod:`provgraph.resolve` decides them).

Offsets: :meth:`Citation.span_in` is the one interpretation of a citation's range
against a text (:meth:`provgraph.offsets.SourceText.span`: ``utf8_byte`` counts the
bytes, byte-order mark included; ``codepoint`` and ``utf16_unit`` the decoded text
without the mark; an offset inside a multi-byte sequence or surrogate pair is an
error, never a rounding). Every reader of a citation's span (the resolver, ``stale``,
the demo's audit) goes through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import OffsetError
from ..offsets import SourceText, cited_span
from ..store import ProvStore
from ..terms import IRI, Quad, Term, lit
from ..vocab import DCTERMS, OA, PG, PROV, RDF
from ._table import Field, Part, Table, decode_term
from .table import RFC8118

__all__ = ["Citation", "CITATION", "to_quads", "load", "citations_of_claims", "citations_of_runs",
           "OUTCOME_PREDICATES", "Verdict", "verdict_quads", "quotation_nodes", "from_row",
           "ROW_VARIABLES"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Citation:
    """What a claim pointed at (``pg:Citation``), as recorded; also the input of the resolver.

    Args:
        target_id: the identifier as the answer gave it (``pg:targetId``).
        target: the recorded resource it names (``pg:target``), ``None`` if none.
        start, end: the cited range in ``unit`` (both or neither).
        unit: ``utf8_byte``, ``codepoint``, ``utf16_unit``, ``page`` or ``block``.
        end_inclusive: ``end`` names the last unit of the range (Amazon Bedrock spans).
        quote, prefix, suffix: the ``oa:TextQuoteSelector`` (exact text and its context).
        pinned_sha256: hex digest of the bytes the citation was made against.
        policy: the normalization policy declared for the quote (``name@version``); it
            wins over the policy the resolver is asked to use.
        iri: the citation (``None`` for one built by hand to resolve).
        claim: the claim that made it.
        graph: the run graph it is recorded in.
        outcome, reason: the resolver's recorded outcome and reason (``None``: not resolved).
        generated_source: for ``generated_target``, the generated text behind it.
        resolved_snapshot, resolved_bytes, resolved_codepoints: where the resolver located
            the cited span (end-exclusive byte and code point ranges of that snapshot).
        resolved_region, precision, context_gaps: for a citation of a PDF table or cell,
            the cell or table the resolver located it in, how precisely (``cell``, ``row``,
            ``table``, ``page``) and what context the extraction lost (issue 21).
        resolved_page, resolved_bbox: for a PDF, the page and box the resolver located
            (PDF user space points, origin bottom-left).
    """

    target_id: str
    target: IRI | None = None
    start: int | None = None
    end: int | None = None
    unit: str | None = None
    end_inclusive: bool = False
    quote: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    pinned_sha256: str | None = None
    policy: str | None = None
    iri: IRI | None = None
    claim: IRI | None = None
    graph: IRI | None = None
    outcome: str | None = None
    reason: str | None = None
    generated_source: IRI | None = None
    resolved_snapshot: IRI | None = None
    resolved_bytes: tuple[int, int] | None = None
    resolved_codepoints: tuple[int, int] | None = None
    resolved_region: IRI | None = None
    precision: str | None = None
    context_gaps: tuple[str, ...] = ()
    resolved_page: int | None = None
    resolved_bbox: tuple[float, float, float, float] | None = None

    @property
    def has_range(self) -> bool:
        """Both bounds of a range are given."""
        return self.start is not None and self.end is not None

    def span_in(self, source: SourceText) -> tuple[int, int]:
        """The end-exclusive code point range of ``source`` the citation's range names.

        Raises:
            OffsetError: no range, or one that :meth:`provgraph.offsets.SourceText.span`
                rejects (past the end, inside a character, reversed, empty).
        """
        if self.start is None or self.end is None:
            raise self._no_range()
        return source.span(self.start, self.end, self.unit or "codepoint", self.end_inclusive)

    def cited_text(self, source: SourceText) -> str:
        """The text of ``source`` the citation's range names: :func:`provgraph.offsets.cited_span`.

        Raises:
            OffsetError: no range, or one that names no text (see :meth:`span_in`).
        """
        if self.start is None or self.end is None:
            raise self._no_range()
        return cited_span(source, self.start, self.end, self.unit, self.end_inclusive)

    def _no_range(self) -> OffsetError:
        return OffsetError("the citation gives no range", offset=None, unit=self.unit or "",
                           kind="no_range")


_QUOTE = Table("quote-selector", (OA.TextQuoteSelector,),
               fields=(Field("quote", OA.exact), Field("prefix", OA.prefix, omit_empty=True),
                       Field("suffix", OA.suffix, omit_empty=True),
                       Field("policy", PG.policy, omit_empty=True)))

CITATION = Table(
    "citation", (PROV.Entity, PG.Citation),
    fields=(Field("claim", PG.citation, "iri", inverse=True), Field("target_id", PG.targetId),
            Field("target", PG.target, "iri"), Field("start", PG.start, "int", requires="end"),
            Field("end", PG.end, "int", requires="start"),
            Field("unit", PG.offsetUnit, requires="start"),
            Field("end_inclusive", PG.endInclusive, "bool", default=False, requires="start"),
            Field("pinned_sha256", PG.pinnedSha256, omit_empty=True),
            Field("outcome", PG.outcome, write=False), Field("reason", PG.reason, write=False),
            Field("generated_source", PROV.wasInfluencedBy, "iri", write=False),
            Field("resolved_snapshot", PG.resolvedSnapshot, "iri", write=False),
            Field("resolved_byte_start", PG.resolvedByteStart, "int", write=False),
            Field("resolved_byte_end", PG.resolvedByteEnd, "int", write=False),
            Field("resolved_codepoint_start", PG.resolvedCodepointStart, "int", write=False),
            Field("resolved_codepoint_end", PG.resolvedCodepointEnd, "int", write=False),
            Field("resolved_region", PG.resolvedRegion, "iri", write=False),
            Field("precision", PG.precision, write=False),
            Field("context_gaps", PG.contextGap, many=True, write=False),
            Field("resolved_page", PG.pageNumber, "int", write=False),
            Field("resolved_bbox", PG.bbox, "json", write=False)),
    parts=(Part("quote", OA.hasSelector, "#quote", _QUOTE),))

OUTCOME_PREDICATES = frozenset({PG.outcome, PG.reason, PG.policy, PG.resolvedSnapshot,
                                PG.resolvedByteStart, PG.resolvedByteEnd,
                                PG.resolvedCodepointStart, PG.resolvedCodepointEnd,
                                PROV.wasInfluencedBy, PG.resolvedRegion, PG.precision,
                                PG.contextGap, PG.pageNumber, PG.bbox})
"""What a resolution writes on a citation (replaced, never added to, by the next one)."""


def to_quads(cit: Citation, graph: IRI | None) -> list[Quad]:
    """The citation's statements (with ``claim pg:citation`` it) and its quote selector.

    Raises:
        ValueError: the citation has no IRI or no claim.
    """
    if cit.iri is None or cit.claim is None:
        raise ValueError("a citation is stored with its IRI and its claim")
    return CITATION.quads(cit.iri, cit, graph)


ROW_VARIABLES = {"citation": "iri", "claim": "claim", "target": "target", "tid": "target_id",
                 "quote": "quote", "prefix": "prefix", "suffix": "suffix", "start": "start",
                 "end": "end", "unit": "unit", "end_inclusive": "end_inclusive",
                 "pin": "pinned_sha256", "policy": "policy", "outcome": "outcome"}
"""The SPARQL variable names a query projects for citation fields (``citations-of.rq``,
``stale-citations.rq``), decoded by :func:`from_row`."""


def from_row(row: Mapping[str, Term | None]) -> Citation:
    """The citation a query row describes, by :data:`ROW_VARIABLES` (absent variables
    stay unset): the one decoder of citation rows, so a query reader reads a range as
    :func:`load` does."""
    codecs = {f.attr: f.codec for f in CITATION.fields} | {f.attr: f.codec for f in _QUOTE.fields}
    codecs["iri"] = "iri"
    v: dict[str, Any] = {}
    for var, attr in ROW_VARIABLES.items():
        term = row.get(var)
        if term is not None:
            v[attr] = decode_term(codecs[attr], term)
    start, end = v.get("start"), v.get("end")
    if not (isinstance(start, int) and isinstance(end, int)):
        v["start"] = v["end"] = None
    v["end_inclusive"] = v.get("end_inclusive") is True
    v.setdefault("target_id", str(v.get("target") or ""))
    return Citation(**v)


def _record(iri: IRI, p: dict[IRI, list[Term]], nodes: dict[IRI, dict[IRI, list[Term]]],
            graph: IRI | None) -> Citation:
    v = CITATION.decode(p, nodes, iri)
    start, end = v["start"], v["end"]
    if not (isinstance(start, int) and isinstance(end, int)):
        start = end = None
    return Citation(
        target_id=str(v["target_id"] if v["target_id"] is not None else (v["target"] or "")),
        target=v["target"], start=start, end=end, unit=v["unit"],
        end_inclusive=bool(v["end_inclusive"]), quote=v["quote"], prefix=v["prefix"],
        suffix=v["suffix"], pinned_sha256=v["pinned_sha256"], policy=v["policy"], iri=iri,
        claim=v["claim"], graph=graph, outcome=v["outcome"], reason=v["reason"],
        generated_source=v["generated_source"], resolved_snapshot=v["resolved_snapshot"],
        resolved_bytes=_pair(v["resolved_byte_start"], v["resolved_byte_end"]),
        resolved_codepoints=_pair(v["resolved_codepoint_start"], v["resolved_codepoint_end"]),
        resolved_region=v["resolved_region"], precision=v["precision"],
        context_gaps=tuple(str(g) for g in v["context_gaps"]),
        resolved_page=v["resolved_page"] if isinstance(v["resolved_page"], int) else None,
        resolved_bbox=_bbox(v["resolved_bbox"]))


def _bbox(raw: object) -> tuple[float, float, float, float] | None:
    if isinstance(raw, list) and len(raw) == 4 and all(isinstance(x, (int, float)) for x in raw):
        return (float(raw[0]), float(raw[1]), float(raw[2]), float(raw[3]))
    return None


def _pair(a: object, b: object) -> tuple[int, int] | None:
    return (a, b) if isinstance(a, int) and isinstance(b, int) else None


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, Citation]:
    """The citations among ``iris``, by IRI (one query). ``graph`` is the graph of the
    citation's ``rdf:type`` statement.

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, graphs = CITATION.read_typed(store, iris, PG.Citation)
    return {i: _record(i, p, nodes, graphs.get(i)) for i, p in props.items()}


_BY_CLAIM = f"SELECT ?claim ?cit WHERE {{ ?claim <{PG.citation}> ?cit }}"
_BY_GRAPH = f"SELECT ?g ?cit WHERE {{ GRAPH ?g {{ ?claim <{PG.citation}> ?cit }} }}"


def citations_of_claims(store: ProvStore, claims: Sequence[IRI]) -> dict[IRI, list[Citation]]:
    """The citations of each of ``claims``, ordered by citation IRI (two queries).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    rows = store.select(_BY_CLAIM, values=("claim", list(claims)), source="provgraph.schema.citation") \
        if claims else []
    cits = load(store, sorted({IRI(r["cit"]) for r in rows if isinstance(r["cit"], IRI)}))
    out: dict[IRI, list[Citation]] = {c: [] for c in claims}
    for c in sorted(cits.values(), key=lambda c: c.iri or ""):
        if c.claim in out:
            out[c.claim].append(c)
    return out


def citations_of_runs(store: ProvStore, runs: Sequence[IRI] | None = None) -> list[Citation]:
    """Every citation recorded in the graphs ``runs`` (``None``: in any graph), ordered
    by graph and citation IRI (two queries).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    if runs is not None and not runs:
        return []
    rows = (store.select(_BY_GRAPH, values=("g", list(runs)), source="provgraph.schema.citation")
            if runs is not None else store.select(_BY_GRAPH, source="provgraph.schema.citation"))
    cits = load(store, sorted({IRI(r["cit"]) for r in rows if isinstance(r["cit"], IRI)}))
    return sorted(cits.values(), key=lambda c: (c.graph or "", c.iri or ""))


class Verdict(Protocol):
    """What the resolver decided about one citation (:class:`provgraph.matching.Resolution`
    has these attributes): outcome, reason, policy, the resolved span in the snapshot
    (end-exclusive bytes and code points), the generated source, the original text."""

    # read-only members, so a frozen dataclass (Resolution) satisfies the protocol
    @property
    def outcome(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def policy(self) -> str: ...

    @property
    def policy_version(self) -> str: ...

    @property
    def byte_start(self) -> int | None: ...

    @property
    def byte_end(self) -> int | None: ...

    @property
    def codepoint_start(self) -> int | None: ...

    @property
    def codepoint_end(self) -> int | None: ...

    @property
    def snapshot(self) -> IRI | None: ...

    @property
    def generated_source(self) -> IRI | None: ...

    @property
    def text(self) -> str | None: ...

    @property
    def region(self) -> IRI | None: ...

    @property
    def precision(self) -> str | None: ...

    @property
    def context_gaps(self) -> tuple[str, ...]: ...

    @property
    def page(self) -> int | None: ...

    @property
    def bbox(self) -> tuple[float, float, float, float] | None: ...

    @property
    def fragment(self) -> str | None: ...

    @property
    def verified(self) -> bool: ...


def quotation_nodes(cit: IRI) -> tuple[IRI, IRI, IRI, IRI]:
    """The qualified ``prov:Quotation`` node a verified citation gets, and its position,
    quote and PDF fragment selectors: ``<cit>#quotation``, ``#quotation-position``,
    ``#quotation-quote``, ``#quotation-fragment``."""
    return (IRI(f"{cit}#quotation"), IRI(f"{cit}#quotation-position"),
            IRI(f"{cit}#quotation-quote"), IRI(f"{cit}#quotation-fragment"))


def verdict_quads(cit: Citation, v: Verdict, graph: IRI | None) -> set[Quad]:
    """The statements a resolution writes for ``cit`` in ``graph``.

    On the citation: ``pg:outcome``, ``pg:reason``, ``pg:policy`` (``name@version``),
    ``pg:resolvedSnapshot``, ``pg:resolvedByteStart/End`` and
    ``pg:resolvedCodepointStart/End`` (end-exclusive), ``prov:wasInfluencedBy`` the
    generated source, and for a PDF ``pg:resolvedRegion``, ``pg:precision``, each
    ``pg:contextGap``, ``pg:pageNumber`` and ``pg:bbox`` (issue 21). For a verified quote (``quote_match``, ``normalized_match``) also
    ``claim prov:wasQuotedFrom snapshot``, ``claim prov:wasDerivedFrom snapshot`` and the
    qualified ``prov:Quotation`` (PROV-O §3.3) with an ``oa:TextPositionSelector`` in
    code points of the snapshot's text and an ``oa:TextQuoteSelector`` with the
    original text, and for a PDF an ``oa:FragmentSelector`` (``dcterms:conformsTo`` RFC
    8118, ``rdf:value`` ``page=N&viewrect=...``). Nothing for a citation without an IRI.
    """
    c = cit.iri
    if c is None:
        return set()
    policy = lit(f"{v.policy}@{v.policy_version}")
    out: set[Quad] = {(c, PG.outcome, lit(v.outcome), graph), (c, PG.reason, lit(v.reason), graph),
                      (c, PG.policy, policy, graph)}
    if v.snapshot:
        out.add((c, PG.resolvedSnapshot, v.snapshot, graph))
    for pred, val in ((PG.resolvedByteStart, v.byte_start), (PG.resolvedByteEnd, v.byte_end),
                      (PG.resolvedCodepointStart, v.codepoint_start),
                      (PG.resolvedCodepointEnd, v.codepoint_end)):
        if val is not None:
            out.add((c, pred, lit(val), graph))
    if v.generated_source:
        out.add((c, PROV.wasInfluencedBy, v.generated_source, graph))
    if v.region:
        out.add((c, PG.resolvedRegion, v.region, graph))
    if v.precision:
        out.add((c, PG.precision, lit(v.precision), graph))
    out |= {(c, PG.contextGap, lit(g), graph) for g in v.context_gaps}
    if v.page is not None:
        out.add((c, PG.pageNumber, lit(v.page), graph))
    if v.bbox is not None:
        out.add((c, PG.bbox, lit(list(v.bbox)), graph))
    if v.verified and cit.claim is not None and v.snapshot is not None:
        claim, snap = cit.claim, v.snapshot
        qn, pos, qs, frag = quotation_nodes(c)
        out |= {(claim, PROV.wasQuotedFrom, snap, graph), (claim, PROV.wasDerivedFrom, snap, graph),
                (claim, PROV.qualifiedQuotation, qn, graph), (qn, RDF.type, PROV.Quotation, graph),
                (qn, PROV.entity, snap, graph), (qn, PG.policy, policy, graph)}
        if v.byte_start is not None and v.byte_end is not None:
            out |= {(qn, PG.resolvedByteStart, lit(v.byte_start), graph),
                    (qn, PG.resolvedByteEnd, lit(v.byte_end), graph)}
        if v.codepoint_start is not None and v.codepoint_end is not None:
            out |= {(qn, OA.hasSelector, pos, graph), (pos, RDF.type, OA.TextPositionSelector, graph),
                    (pos, OA.start, lit(v.codepoint_start), graph),
                    (pos, OA.end, lit(v.codepoint_end), graph)}
        if v.text is not None:
            out |= {(qn, OA.hasSelector, qs, graph), (qs, RDF.type, OA.TextQuoteSelector, graph),
                    (qs, OA.exact, lit(v.text), graph)}
        if v.fragment is not None:  # a PDF: page and box (RFC 8118; issue 21)
            out |= {(qn, OA.hasSelector, frag, graph), (frag, RDF.type, OA.FragmentSelector, graph),
                    (frag, DCTERMS.conformsTo, IRI(RFC8118), graph),
                    (frag, RDF.value, lit(v.fragment), graph)}
    return out
