"""Where a citation of a PDF points, for a reviewer (issue 21): page, box, table, row,
column, header path, precision and what the extraction lost, with W3C Web Annotation
selectors; and which claims a table re-extraction changed.

:func:`region_for_citation` is the one reader a page or report that highlights a cited
region uses. :func:`changed_cells` answers "after the table parser changed, which claims
rest on a cell that now reads differently?": ``impact`` lists every claim whose support
went through the old parser version; this narrows it to the claims on cells the new
version parsed differently (text, header path, or no such cell).

Coordinates: boxes are PDF user space, points, origin bottom-left (ISO 32000-1
§8.3.2.3; :mod:`provgraph.schema.table`). The ``FragmentSelector`` follows RFC 8118 §3 (the
PDF open parameters of ISO 32000-2 Annex O): ``page=N`` and, for a box,
``viewrect=left,top,wd,ht`` in points measured from the page's top-left corner, as those
parameters define it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ._rows import _Row
from .analytics import impact
from .errors import NoPageRegion, NotFound
from .media import base_media_type
from .schema import chunk as chunk_schema
from .schema import citation as citation_schema
from .schema import extraction as extraction_schema
from .schema import snapshot as snapshot_schema
from .schema import table as table_schema
from .schema.table import RFC8118, Box, CellRecord, TableRecord, pdf_fragment
from .store import ProvStore
from .terms import IRI

__all__ = ["Region", "region_for_citation", "CellChangeRow", "changed_cells", "counterpart_cell",
           "RFC8118"]



@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Region:
    """The region a citation of a PDF table or cell points at, as resolved.

    Attributes:
        citation: the citation.
        outcome: its recorded resolver outcome (``None``: not resolved yet).
        precision: ``cell``, ``row``, ``table`` or ``page`` (``None``: not located).
        context_gaps: what the extraction lost (``header_not_extracted``,
            ``row_context_not_extracted``).
        snapshot: the PDF snapshot.
        extraction: the extraction (parser run) the table comes from.
        page: 1-based page number.
        bbox: the box the resolver located (the cell's, the row's, the table's, or the
            quoted words' on the page); before resolution the cited cell's or table's:
            ``(x0, y0, x1, y1)`` in PDF user space points, origin bottom-left.
        table: the table (``None`` at page precision); ``row``, ``column``: the cell's
            (``None`` above cell precision).
        header_path: the cell's header path (``()``: none extracted).
        row_cells: the texts of the cells of its row, in column order, itself included
            (``()`` above cell precision).
        text: the cell's text (``None`` above cell precision).
        page_text_start, page_text_end: the cell's code point range in its page's text
            (the extraction's text from the page's start), when contiguous.
        selectors: W3C Web Annotation selectors as JSON-LD objects: a ``FragmentSelector``
            (RFC 8118 ``page=N&viewrect=...``), and for a cell a ``TextQuoteSelector`` and,
            when known, a ``TextPositionSelector`` within the page text.
    """

    citation: IRI
    outcome: str | None
    precision: str | None
    context_gaps: tuple[str, ...]
    snapshot: IRI
    extraction: IRI
    page: int
    bbox: Box
    table: IRI | None
    row: int | None
    column: int | None
    header_path: tuple[str, ...]
    row_cells: tuple[str, ...]
    text: str | None
    page_text_start: int | None
    page_text_end: int | None
    selectors: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every attribute (tuples as lists)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["bbox"] = list(self.bbox)
        d["context_gaps"] = list(self.context_gaps)
        d["header_path"] = list(self.header_path)
        d["row_cells"] = list(self.row_cells)
        d["selectors"] = list(self.selectors)
        return d


def _fragment(page: int, box: Box, height: float | None) -> dict[str, Any]:
    return {"type": "FragmentSelector", "conformsTo": RFC8118,
            "value": pdf_fragment(page, box, height)}


def region_for_citation(store: ProvStore, citation: str) -> Region:
    """The PDF region a recorded citation points at: a cell, a table, or a box on a page.

    Uses what the resolver recorded (``pg:resolvedRegion``, ``pg:precision``,
    ``pg:contextGap``, ``pg:pageNumber``, ``pg:bbox``) when the citation was resolved
    (``provgraph resolve``), else its target as recorded when that is a cell or table
    (``outcome`` and ``precision`` then ``None``: nothing was checked).

    Args:
        store: the store.
        citation: the citation's IRI.

    Returns:
        :class:`Region` (``table``, ``row`` and ``column`` ``None`` above their precision).

    Raises:
        NotFound: ``citation`` is not a recorded citation.
        NoPageRegion: it points at no recorded table or cell and the resolver located it
            on no PDF page: it cites a text source (the message names the snapshot and its
            media type and where a text citation's span is shown), or a PDF it was not
            located in (not resolved yet, or not found), or no snapshot at all.
        StoreError, QueryError: the store cannot be read.
    """
    got = citation_schema.load(store, [IRI(citation)]).get(IRI(citation))
    if got is None or got.claim is None:
        raise NotFound(citation, "citation")
    place = got.resolved_region or got.target
    cell: CellRecord | None = None
    table: TableRecord | None = None
    if place is not None:
        cell = table_schema.load_cells(store, [place]).get(place)
        tid = cell.table if cell is not None else place
        table = table_schema.load_tables(store, [tid]).get(tid)
    resolved = got.outcome is not None and got.resolved_page is not None and got.resolved_bbox is not None
    if table is not None:
        extraction, snapshot, page = table.extraction, table.snapshot, table.page
        box = (cell.bbox if cell is not None and cell.bbox is not None else table.bbox)
    elif resolved and got.resolved_snapshot is not None:
        snapshot, page = got.resolved_snapshot, int(got.resolved_page or 0)
        box = got.resolved_bbox or (0.0, 0.0, 0.0, 0.0)
        extraction = _extraction_with_layout(store, snapshot, got.target)
    else:
        raise _no_region(store, got)
    if resolved and got.resolved_bbox is not None:
        box = got.resolved_bbox
    ext = extraction_schema.load(store, [extraction], text=False).get(extraction)
    layout = table_schema.load_layout(store, ext.text_iri) if ext is not None else None
    page_info = layout.pages[page - 1] if layout and len(layout.pages) >= page else None
    height = page_info[3] if page_info else None
    selectors: list[dict[str, Any]] = [_fragment(page, box, height)]
    ps = pe = None
    if cell is not None:
        selectors.append({"type": "TextQuoteSelector", "exact": cell.text})
        if cell.start is not None and cell.end is not None and page_info is not None:
            ps, pe = cell.start - page_info[0], cell.end - page_info[0]
            selectors.append({"type": "TextPositionSelector", "start": ps, "end": pe})
    precision = got.precision if got.outcome is not None else None
    return Region(citation=IRI(citation), outcome=got.outcome, precision=precision,
                  context_gaps=got.context_gaps, snapshot=snapshot, extraction=extraction,
                  page=page, bbox=box, table=table.iri if table is not None else None,
                  row=cell.row if cell else None, column=cell.col if cell else None,
                  header_path=cell.header_path if cell else (),
                  row_cells=tuple(c.text for c in table.cells if cell and c.row == cell.row)
                  if table is not None else (),
                  text=cell.text if cell else None,
                  page_text_start=ps, page_text_end=pe, selectors=tuple(selectors))


def _snapshot_of(store: ProvStore, cit: citation_schema.Citation) -> IRI | None:
    """The snapshot a citation's target comes from: the one the resolver resolved it in,
    else its target when that is a snapshot, a chunk's snapshot, or the snapshot of the
    extracted text it cites; ``None`` for any other target."""
    if cit.resolved_snapshot is not None:
        return cit.resolved_snapshot
    target = cit.target
    if target is None:
        return None
    if target in snapshot_schema.load(store, [target]):
        return target
    chunk = chunk_schema.load(store, [target]).get(target)
    if chunk is not None:
        return chunk.snapshot
    props, nodes, _ = extraction_schema.EXTRACTED_TEXT.read(store, [target])
    if target in props:
        snapshot: IRI | None = extraction_schema.EXTRACTED_TEXT.decode(
            props[target], nodes, target)["snapshot"]
        return snapshot
    return None


def _no_region(store: ProvStore, cit: citation_schema.Citation) -> NoPageRegion:
    """The error for a citation :func:`region_for_citation` finds no region of, saying
    why in the words the CLI prints: a text source (its snapshot and media type, and where
    a text citation's span is shown), a PDF it was not located in, or no snapshot."""
    iri = str(cit.iri)
    run = f" --run {cit.graph}" if cit.graph is not None else ""
    where = (f"'provgraph lineage {iri}' shows what it cites, 'provgraph resolve{run} --citations' "
             f"its span and outcome, and the citation drawer of 'provgraph ui' (claim "
             f"<{cit.claim}>) the span highlighted in the retained original")
    snapshot = _snapshot_of(store, cit)
    snap = snapshot_schema.load(store, [snapshot]).get(snapshot) if snapshot else None
    if snap is None:
        return NoPageRegion(iri, snapshot, "", (
            f"citation <{iri}> has no page region: its target <{cit.target or cit.target_id}> is "
            f"no PDF page, table, table cell or retained snapshot; {where}"))
    media = snap.media_type or "no media type recorded"
    if base_media_type(snap.media_type) != "application/pdf":
        return NoPageRegion(iri, snapshot, snap.media_type, (
            f"citation <{iri}> has no page region: it cites a text source, snapshot <{snapshot}> "
            f"({media}), located by character range, not by page; {where}"))
    if cit.outcome is None:
        why = f"it is not resolved yet: run 'provgraph resolve{run}' first"
    else:
        why = (f"the resolver located it on no page (outcome {cit.outcome}); "
               f"'provgraph resolve{run} --citations' says why")
    return NoPageRegion(iri, snapshot, snap.media_type, (
        f"citation <{iri}> has no page region in the PDF snapshot <{snapshot}>: {why}"))


def _extraction_with_layout(store: ProvStore, snapshot: IRI, target: IRI | None) -> IRI:
    """The extraction a page-located citation was resolved in: the one whose text it
    cites, else the snapshot's first extraction with a page layout."""
    exts = extraction_schema.of_snapshots(store, [snapshot], text=False).get(snapshot, [])
    for e in exts:
        if e.text_iri == target:
            return e.iri
    for e in exts:
        if table_schema.load_layout(store, e.text_iri) is not None:
            return e.iri
    raise NotFound(str(snapshot), "PDF extraction with a page layout")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class CellChangeRow(_Row):
    """A claim resting on a table cell that a newer extraction parsed differently.

    Attributes:
        run, claim, citation: the claim and its citation of the cell (or table).
        cell: the cited cell (for a cited table, its cell the citation resolved to).
        change: ``text`` (the cell's text differs), ``header_path`` (same text, another
            header path) or ``missing`` (the newer extraction has no cell there).
        old_text, new_text: the cell's text in each extraction (``None``: no cell).
        old_header_path, new_header_path: the header paths, joined by `` > ``.
        new_cell: the corresponding cell of the newer extraction (``None``: none).
        new_extraction: the newer extraction compared with.
    """

    run: IRI
    claim: IRI
    citation: IRI
    cell: IRI
    change: str
    old_text: str | None
    new_text: str | None
    old_header_path: str
    new_header_path: str
    new_cell: IRI | None
    new_extraction: IRI


def _overlap(a: Box, b: Box) -> tuple[float, float]:
    """``(intersection over union, intersection over the smaller box)`` of two boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0, 0.0
    inter = w * h
    area_a, area_b = (a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1])
    union = area_a + area_b - inter
    small = min(area_a, area_b)
    return (inter / union if union > 0 else 0.0), (inter / small if small > 0 else 0.0)


def _match(cell: CellRecord, page: int, tables: Sequence[TableRecord]) -> CellRecord | None:
    """The cell of ``tables`` on ``page`` that corresponds to ``cell``: among the cells at
    least half of the smaller of the two boxes overlaps (one inside the other, as when a
    parser splits or merges rows), the one with the largest intersection over union;
    ``None`` when there is none."""
    if cell.bbox is None:
        return None
    best, score = None, 0.0
    for t in tables:
        if t.page != page:
            continue
        for c in t.cells:
            if c.bbox is not None:
                iou, contained = _overlap(cell.bbox, c.bbox)
                if contained >= 0.5 and iou > score:
                    best, score = c, iou
    return best


def counterpart_cell(store: ProvStore, cell: CellRecord, agent_name: str,
                     version: str | None = None) -> tuple[IRI, CellRecord | None] | None:
    """The cell that corresponds to ``cell`` in the newest later extraction of its
    snapshot by ``agent_name`` (see :func:`changed_cells` for the matching rule).

    Args:
        store: the store.
        cell: a cell of an extraction by ``agent_name`` (at ``version``, when given).
        agent_name, version: the parser whose cells are compared.

    Returns:
        ``(newer extraction, its cell or None)``, or ``None`` when the cell's extraction is
        not by that parser (and version) or has no later re-extraction.

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    table = table_schema.load_tables(store, [cell.table], cells=False).get(cell.table)
    if table is None:
        return None
    old = extraction_schema.load(store, [table.extraction], text=False).get(table.extraction)
    if old is None or old.parser.name != agent_name or (
            version is not None and old.parser.version != version):
        return None
    newer = _newest_other(store, old, agent_name)
    if newer is None:
        return None
    return newer[0], _match(cell, table.page, newer[1])


def changed_cells(store: ProvStore, agent_name: str, version: str, *,
                  run: str | None = None) -> list[CellChangeRow]:
    """Claims that cite a table cell parsed by ``agent_name`` at ``version`` whose
    counterpart in the newest later extraction of the same snapshot by ``agent_name``
    (a re-extraction: ended after the cell's, by ``prov:endedAtTime``) reads differently.

    The candidates are the rows of :func:`provgraph.analytics.impact` (``impact.rq``)
    whose citation targets (or resolved to) a ``pg:TableCell`` of an extraction by that
    parser version; a cell's counterpart is the cell of the newer extraction on the same
    page whose box overlaps it most (:func:`_match`: at least half of the smaller box
    overlapped, then the largest intersection over union). A claim on a cell whose text
    and header path are unchanged is not listed.

    Args:
        store: the store.
        agent_name: the parser's ``pg:agentName`` (``pdfplumber``).
        version: the old version (``0.11.10+lines-strict``).
        run: one run only (``None``: every run).

    Returns:
        ``list[CellChangeRow]``, sorted by run, claim and citation.

    Raises:
        AgentNotFound: no agent has that name and version.
        StoreError, QueryError: the store cannot be read.
    """
    rows = impact(store, agent_name, version=version, run=run)
    by_claim = citation_schema.citations_of_claims(store, sorted({r.claim for r in rows}))
    run_of = {r.claim: r.run for r in rows}
    out: list[CellChangeRow] = []
    newer_cache: dict[IRI, tuple[IRI, list[TableRecord]] | None] = {}
    for claim, cits in sorted(by_claim.items()):
        for cit in cits:
            place = cit.resolved_region or cit.target
            if place is None or cit.iri is None:
                continue
            cell = table_schema.load_cells(store, [place]).get(place)
            if cell is None:
                continue
            table = table_schema.load_tables(store, [cell.table], cells=False).get(cell.table)
            if table is None:
                continue
            exts = extraction_schema.load(store, [table.extraction], text=False)
            old = exts.get(table.extraction)
            if old is None or old.parser.name != agent_name or old.parser.version != version:
                continue
            newer = newer_cache.get(table.extraction)
            if table.extraction not in newer_cache:
                newer = newer_cache[table.extraction] = _newest_other(store, old, agent_name)
            if newer is None:
                continue
            new_ext, new_tables = newer
            twin = _match(cell, table.page, new_tables)
            old_path, new_path = " > ".join(cell.header_path), (" > ".join(twin.header_path)
                                                                 if twin else "")
            if twin is None:
                change = "missing"
            elif twin.text != cell.text:
                change = "text"
            elif twin.header_path != cell.header_path:
                change = "header_path"
            else:
                continue
            out.append(CellChangeRow(run=run_of[claim], claim=claim, citation=cit.iri, cell=cell.iri,
                                     change=change, old_text=cell.text,
                                     new_text=twin.text if twin else None,
                                     old_header_path=old_path, new_header_path=new_path,
                                     new_cell=twin.iri if twin else None, new_extraction=new_ext))
    return sorted(out, key=lambda r: (str(r.run), str(r.claim), str(r.citation)))


def _newest_other(store: ProvStore, old: Any, agent_name: str) -> tuple[IRI, list[TableRecord]] | None:
    """The newest (by end time, then IRI) extraction of ``old``'s snapshot by ``agent_name``
    that ended after ``old`` (any other one when ``old`` has no end time), and its tables."""
    def later(e: Any) -> bool:
        return old.ended_at is None or (e.ended_at is not None and e.ended_at > old.ended_at)

    others = [e for e in extraction_schema.of_snapshots(store, [old.snapshot], text=False)
              .get(old.snapshot, []) if e.iri != old.iri and e.parser.name == agent_name
              and later(e)]
    if not others:
        return None
    newest = max(others, key=lambda e: (e.ended_at.timestamp() if e.ended_at else 0.0, e.iri))
    return newest.iri, table_schema.tables_of_extraction(store, newest.iri)
