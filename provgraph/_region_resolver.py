"""The resolver's part for citations of PDF tables and cells (issue 21); private to
:mod:`provgraph._resolver`, rules documented in :mod:`provgraph.resolve`.

A citation whose target is a ``pg:TableCell`` or ``pg:Table`` is checked against the
recorded extraction of the retained PDF (the snapshot's bytes are read and their digest
checked first): the quote against the cell's text, or, for a table, against each cell, then
each row (its cells joined by a space), then the words inside the table's box on the page.
The precision reported is the finest the extraction supports: ``cell``, ``row`` or
``table``, never a cell the parser did not produce. A quote that matches a cell whose table
has no extracted header, or whose row has text outside the extracted table (a column the
parser did not keep), gives ``context_not_extracted`` with the gaps named
(:data:`provgraph.vocab.CONTEXT_GAPS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from .matching import VERIFIED, Resolution, search
from .normalize import Policy
from .offsets import SourceText
from .schema import extraction as extraction_schema
from .schema import table as table_schema
from .schema.citation import Citation
from .schema.table import Box, CellRecord, PageLayout, TableRecord, pdf_fragment
from .store import ProvStore
from .terms import IRI
from .vocab import PG

__all__ = ["RegionReads", "resolve_region", "row_context_outside", "context_gaps",
           "locate_on_page"]


class RegionReads:
    """Tables, cells, page layouts and texts of PDF extractions, read once and kept (a
    citation may be tried in several rounds of the batched resolver); :meth:`preload` reads
    those of many citations' targets in a fixed number of queries.

    Args:
        store: the store read.
    """

    def __init__(self, store: ProvStore) -> None:
        self.store = store
        self._tables: dict[IRI, TableRecord | None] = {}
        self._cells: dict[IRI, CellRecord | None] = {}
        self._layouts: dict[IRI, PageLayout | None] = {}  # by extraction activity
        self._text_layouts: dict[IRI, PageLayout | None] = {}  # by extracted text
        self._text: dict[IRI, str] = {}
        self._of_ext: dict[IRI, list[TableRecord]] = {}

    def preload(self, targets: Sequence[IRI]) -> None:
        """Read the cells and tables among ``targets``, their tables' cells and their
        extractions' page layouts: eight queries whatever their number (cells 1, tables 3,
        extractions 3, layouts 1)."""
        cells = table_schema.load_cells(self.store, list(targets))
        self._cells.update(cells)
        tables = sorted({c.table for c in cells.values()} | (set(targets) - set(cells)))
        got = table_schema.load_tables(self.store, tables)
        self._tables.update({t: got.get(t) for t in tables})
        exts = sorted({t.extraction for t in got.values()} - set(self._layouts))
        recs = extraction_schema.load(self.store, exts, text=False)
        layouts = table_schema.load_layouts(self.store, [r.text_iri for r in recs.values() if r.text_iri])
        for e in exts:
            r = recs.get(e)
            self._layouts[e] = layouts.get(r.text_iri) if r is not None else None

    def cell(self, iri: IRI) -> CellRecord | None:
        if iri not in self._cells:
            self._cells[iri] = table_schema.load_cells(self.store, [iri]).get(iri)
        return self._cells[iri]

    def table(self, iri: IRI) -> TableRecord | None:
        if iri not in self._tables:
            self._tables[iri] = table_schema.load_tables(self.store, [iri]).get(iri)
        return self._tables[iri]

    def text(self, extraction: IRI) -> str:
        """The extraction's text (read from the originals store, digest-checked)."""
        if extraction not in self._text:
            ext = extraction_schema.load(self.store, [extraction]).get(extraction)
            self._text[extraction] = ext.text if ext is not None else ""
        return self._text[extraction]

    def layout_of_text(self, text_iri: IRI) -> PageLayout | None:
        """The page layout recorded on an extracted text (``None``: not a PDF's)."""
        if text_iri not in self._text_layouts:
            self._text_layouts[text_iri] = table_schema.load_layout(self.store, text_iri)
        return self._text_layouts[text_iri]

    def tables_of(self, extraction: IRI) -> list[TableRecord]:
        """The tables an extraction generated (cells included)."""
        if extraction not in self._of_ext:
            self._of_ext[extraction] = table_schema.tables_of_extraction(self.store, extraction)
        return self._of_ext[extraction]

    def layout(self, extraction: IRI) -> PageLayout | None:
        """The page layout of an extraction activity's text."""
        if extraction not in self._layouts:
            ext = extraction_schema.load(self.store, [extraction], text=False).get(extraction)
            self._layouts[extraction] = (table_schema.load_layout(self.store, ext.text_iri)
                                         if ext is not None and ext.text_iri else None)
        return self._layouts[extraction]


def row_context_outside(cell: CellRecord, table: TableRecord, layout: PageLayout | None) -> list[str]:
    """Words of the cell's page whose box centre is level with the cell (within its
    vertical extent) but outside the table's box: text of the cell's row the table
    extraction did not keep. Empty without a layout or a cell box."""
    if layout is None or cell.bbox is None:
        return []
    text_words = []
    for s, e, b in layout.words_on(table.page):
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        if cell.bbox[1] <= cy <= cell.bbox[3] and not (table.bbox[0] <= cx <= table.bbox[2]):
            text_words.append((s, e))
    return [f"{s}:{e}" for s, e in text_words]


def context_gaps(cell: CellRecord, table: TableRecord, layout: PageLayout | None) -> tuple[str, ...]:
    """The :data:`~provgraph.vocab.CONTEXT_GAPS` of ``cell`` in ``table``."""
    gaps = []
    if not cell.header and not cell.header_path:
        gaps.append("header_not_extracted")
    if row_context_outside(cell, table, layout):
        gaps.append("row_context_not_extracted")
    return tuple(gaps)


def locate_on_page(reads: RegionReads, text_iri: IRI, extraction: IRI | None, start: int,
                   end: int) -> tuple[int, Box, TableRecord | None] | None:
    """Where code points ``[start, end)`` of a PDF's extracted text are: the page, the union
    of the boxes of the words they overlap, and the table whose box holds that union (on
    that page), if any; ``None`` when the text has no page layout or the span no word."""
    layout = reads.layout_of_text(text_iri)
    if layout is None:
        return None
    page = layout.page_of(start)
    words = [(b[3], b[4], b[5], b[6]) for b in layout.boxes
             if b[2] == page and b[0] < end and start < b[1]]
    if page is None or not words:
        return None
    box = (min(w[0] for w in words), min(w[1] for w in words), max(w[2] for w in words),
           max(w[3] for w in words))
    table = None
    for t in reads.tables_of(extraction) if extraction else []:
        if t.page == page and t.bbox[0] <= box[0] and box[2] <= t.bbox[2] and \
                t.bbox[1] <= box[1] and box[3] <= t.bbox[3]:
            table = t
    return page, box, table


def _fmt_box(b: Box | None) -> str:
    return "no box" if b is None else f"[{b[0]:g}, {b[1]:g}, {b[2]:g}, {b[3]:g}]"


def describe_cell(cell: CellRecord, table: TableRecord) -> str:
    """``cell (row 1, column 1) of table 0 on page 18, box [...] pt``."""
    return (f"cell (row {cell.row}, column {cell.col}) of table {table.index} on page "
            f"{table.page}, box {_fmt_box(cell.bbox)} pt")


def resolve_region(reads: RegionReads, target: IRI, types: set[str], cit: Citation,
                   policy: Policy, snapshot_check: Callable[[IRI], object]) -> Resolution:
    """The resolution of a citation of a ``pg:TableCell`` or ``pg:Table``, with the RFC 8118
    fragment of the page and box it located (:func:`_resolve_region` has the rules)."""
    res = _resolve_region(reads, target, types, cit, policy, snapshot_check)
    if res.page is None:
        return res
    cell = reads.cell(target) if PG.TableCell in types else None
    table = reads.table(cell.table if cell is not None else target)
    layout = reads.layout(table.extraction) if table is not None else None
    height = layout.height(res.page) if layout is not None else None
    return replace(res, fragment=pdf_fragment(res.page, res.bbox, height))


def _resolve_region(reads: RegionReads, target: IRI, types: set[str], cit: Citation,
                    policy: Policy, snapshot_check: Callable[[IRI], object]) -> Resolution:
    """The resolution of a citation of a ``pg:TableCell`` or ``pg:Table``.

    Args:
        reads: memoized reads.
        target: the cited cell or table.
        types: its ``rdf:type`` IRIs.
        cit: the citation (its quote, prefix and suffix).
        policy: the normalization policy.
        snapshot_check: called with the PDF snapshot's IRI; reads and digest-checks its
            retained bytes (raises the resolver's stop on a missing or altered original).
    """
    if PG.TableCell in types:
        cell = reads.cell(target)
        table = reads.table(cell.table) if cell is not None else None
    else:
        cell, table = None, reads.table(target)
    if table is None:
        return _res("unresolved_id", f"<{target}> is not a recorded table or table cell", policy)
    snapshot_check(table.snapshot)
    layout = reads.layout(table.extraction)
    where = f"table {table.index} on page {table.page} (box {_fmt_box(table.bbox)} pt)"
    if cell is not None:
        return _on_cell(cell, table, layout, cit, policy, lead="")
    if cit.quote is None:
        return _res("located", f"no quote given; the citation names {where} of extraction "
                    f"<{table.extraction}>", policy, snapshot=table.snapshot, region=table.iri,
                    precision="table", page=table.page, bbox=table.bbox)
    hits = [c for c in table.cells if search(SourceText.from_text(c.text), cit.quote, None, None,
                                             policy).outcome in VERIFIED]
    if len(hits) == 1:
        return _on_cell(hits[0], table, layout, cit, policy,
                        lead=f"the quote occurs in one cell of {where}: ")
    if len(hits) > 1:
        return _res("ambiguous", f"the quote occurs in {len(hits)} cells of {where}: "
                    + ", ".join(f"(row {c.row}, column {c.col})" for c in hits[:5]), policy,
                    snapshot=table.snapshot, region=table.iri, precision="table",
                    page=table.page, bbox=table.bbox)
    for r in range(table.rows):
        row = [c for c in table.cells if c.row == r]
        joined = " ".join(c.text for c in row)
        loc = search(SourceText.from_text(joined), cit.quote, None, None, policy)
        if loc.outcome in VERIFIED and loc.start is not None and loc.end is not None:
            return _res(loc.outcome, f"the quote spans several cells of row {r} of {where}: "
                        f"{loc.reason}", loc.policy, snapshot=table.snapshot, region=table.iri,
                        precision="row", text=joined[loc.start:loc.end], page=table.page,
                        bbox=_union([c.bbox for c in row]) or table.bbox)
    if layout is not None:
        words = [(s, e) for s, e, b in layout.words_on(table.page)
                 if table.bbox[0] <= (b[0] + b[2]) / 2 <= table.bbox[2]
                 and table.bbox[1] <= (b[1] + b[3]) / 2 <= table.bbox[3]]
        full = reads.text(table.extraction)
        region_text = " ".join(full[s:e] for s, e in words)
        loc = search(SourceText.from_text(region_text), cit.quote, None, None, policy)
        if loc.outcome in VERIFIED and loc.start is not None and loc.end is not None:
            return _res(loc.outcome, f"the quote is in the text of {where}, but in no cell or "
                        "row the table parser produced, so it is located in the table's region "
                        f"only: {loc.reason}", loc.policy, snapshot=table.snapshot,
                        region=table.iri, precision="table",
                        text=region_text[loc.start:loc.end], page=table.page, bbox=table.bbox)
    return _res("quote_mismatch", f"the quote occurs in no cell, row or the region of {where}",
                policy, snapshot=table.snapshot, region=table.iri, precision="table",
                    page=table.page, bbox=table.bbox)


def _on_cell(cell: CellRecord, table: TableRecord, layout: PageLayout | None, cit: Citation,
             policy: Policy, lead: str) -> Resolution:
    where = describe_cell(cell, table)
    fields: dict[str, Any] = {"snapshot": table.snapshot, "region": cell.iri, "precision": "cell",
                              "page": table.page, "bbox": cell.bbox or table.bbox}
    if cit.quote is None:
        return _res("located", f"{lead}no quote given; the citation names {where}", policy,
                    **fields)
    loc = search(SourceText.from_text(cell.text), cit.quote, cit.prefix, cit.suffix, policy)
    if loc.outcome not in VERIFIED or loc.start is None or loc.end is None:
        return _res(loc.outcome, f"{lead}in {where} ({cell.text!r}): {loc.reason}", loc.policy,
                    **fields)
    text = cell.text[loc.start:loc.end]
    path = " > ".join(cell.header_path)
    gaps = context_gaps(cell, table, layout)
    if not gaps:
        head = (f"; header path: {path}" if path else "; it is a header cell")
        return _res(loc.outcome, f"{lead}in {where}: {loc.reason}{head}", loc.policy, text=text,
                    **fields)
    why = []
    if "header_not_extracted" in gaps:
        why.append(f"no header row of table {table.index} was extracted, so the cell has no "
                   "header path")
    if "row_context_not_extracted" in gaps:
        n = len(row_context_outside(cell, table, layout))
        why.append(f"{n} word(s) level with the cell on page {table.page} lie outside the "
                   "extracted table: a column of its row was not extracted")
    return _res("context_not_extracted", f"{lead}the quote matches {where} ({loc.outcome}: "
                f"{loc.reason}), but {'; and '.join(why)}", loc.policy, text=text,
                context_gaps=gaps, **fields)


def _union(boxes: list[Box | None]) -> Box | None:
    got = [b for b in boxes if b is not None]
    if not got:
        return None
    return (min(b[0] for b in got), min(b[1] for b in got), max(b[2] for b in got),
            max(b[3] for b in got))


def _res(outcome: str, reason: str, policy: Policy, **fields: Any) -> Resolution:
    return Resolution(outcome=outcome, reason=reason, policy=policy.name,
                      policy_version=policy.version, **fields)
