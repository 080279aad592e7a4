"""PDF page layout and tables (issue 21): the one place their statements are built and
decoded.

* :class:`PageLayout`: for text extracted from a PDF, the page map (each page's code point
  range in the extracted text, pages separated by a form feed, and the page's size) and
  the box map (each word's code point range, page and box), written on the
  ``pg:ExtractedText`` as ``pg:pageMap`` and ``pg:boxMap``.
* :class:`TableRecord` (``pg:Table``) and :class:`CellRecord` (``pg:TableCell``): a table
  the extraction found on a page, and its cells with their row, column, text, box, header
  flag and header path. A table ``prov:wasGeneratedBy`` the extraction activity and
  ``prov:wasDerivedFrom`` the snapshot; a cell ``pg:inTable`` and ``prov:wasDerivedFrom``
  its table, so a claim citing a cell has the parser and the snapshot in its support
  (:mod:`provgraph._support`).

Coordinates: every box is ``(x0, y0, x1, y1)`` in PDF user space units (points, 1/72 inch)
with the origin at the bottom-left corner of the page (ISO 32000-1 §8.3.2.3), ``x0 < x1``
and ``y0 < y1``; pdfplumber's top-left ``top``/``bottom`` are converted when the extraction
is recorded (:mod:`provgraph.pdf`). Pages are numbered from 1; rows and columns from 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad
from ..vocab import PG, PROV
from ._table import Field, Table

__all__ = ["Box", "RFC8118", "pdf_fragment", "PageLayout", "TableRecord", "CellRecord", "LAYOUT", "TABLE", "CELL",
           "table_iri", "cell_iri", "layout_quads", "table_quads", "load_layout", "load_layouts",
           "load_tables",
           "load_cells", "tables_of_extraction"]

Box = tuple[float, float, float, float]
"""``(x0, y0, x1, y1)`` in PDF user space points, origin bottom-left (module docstring)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PageLayout:
    """Where the text of a PDF extraction sits on its pages.

    Args:
        text_iri: the ``pg:ExtractedText``.
        pages: one ``(text_start, text_end, width, height)`` per page, in page order: the
            page's end-exclusive code point range in the text and its size in points.
        boxes: one ``(text_start, text_end, page, x0, y0, x1, y1)`` per word: its code point
            range, its 1-based page and the union of its glyph boxes (:data:`Box`).
    """

    text_iri: IRI
    pages: tuple[tuple[int, int, float, float], ...]
    boxes: tuple[tuple[int, int, int, float, float, float, float], ...]

    def height(self, page: int) -> float | None:
        """The height in points of 1-based ``page`` (``None``: no such page)."""
        return self.pages[page - 1][3] if 1 <= page <= len(self.pages) else None

    def page_of(self, offset: int) -> int | None:
        """The 1-based page holding code point ``offset`` of the text (``None``: none)."""
        for n, (s, e, _, _) in enumerate(self.pages, 1):
            if s <= offset < e or (s == e == offset):
                return n
        return None

    def words_on(self, page: int) -> list[tuple[int, int, Box]]:
        """The words of ``page``: ``(text_start, text_end, box)``, in text order."""
        return [(s, e, (x0, y0, x1, y1)) for s, e, p, x0, y0, x1, y1 in self.boxes if p == page]


@dataclass(frozen=True, slots=True, kw_only=True)
class CellRecord:
    """One cell of an extracted table (``pg:TableCell``).

    Args:
        iri: ``<table>#cell-<row>-<col>``.
        table: the table.
        row, col: 0-based position in the extracted grid.
        text: the cell's text as parsed (lines joined by ``\\n``).
        bbox: its box (:data:`Box`), ``None`` when the parser gave none.
        header: whether it is in a header row.
        header_path: the texts of the header cells above it, top to bottom.
        start, end: its text's code point range in the extraction's text, when contiguous.
    """

    iri: IRI
    table: IRI
    row: int
    col: int
    text: str
    bbox: Box | None = None
    header: bool = False
    header_path: tuple[str, ...] = ()
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableRecord:
    """A table found on one page (``pg:Table``).

    Args:
        iri: content-derived from the extraction, page and index (:func:`table_iri`).
        extraction: the ``pg:Extraction`` activity that parsed it.
        snapshot: the PDF snapshot.
        page: 1-based page number.
        index: 0-based position among the page's tables.
        bbox: the table's box (:data:`Box`).
        rows, cols: the extracted grid's size.
        header_rows: leading rows identified as headers (0: none extracted).
        cells: its cells, by row then column (empty when loaded without cells).
    """

    iri: IRI
    extraction: IRI
    snapshot: IRI
    page: int
    index: int
    bbox: Box
    rows: int
    cols: int
    header_rows: int = 0
    cells: tuple[CellRecord, ...] = ()

    def cell(self, row: int, col: int) -> CellRecord | None:
        """The cell at ``(row, col)``, ``None`` when the grid has none there (merged)."""
        for c in self.cells:
            if c.row == row and c.col == col:
                return c
        return None


RFC8118 = "http://tools.ietf.org/rfc/rfc8118"
"""``dcterms:conformsTo`` of a PDF ``oa:FragmentSelector`` (Web Annotation Data Model §4.2.1)."""


def pdf_fragment(page: int, box: Box | None = None, height: float | None = None) -> str:
    """The RFC 8118 fragment (PDF open parameters, ISO 32000-2 Annex O) of ``page`` and,
    given the page's ``height``, of ``box``: ``page=18&viewrect=left,top,wd,ht`` in points
    from the page's top-left corner (``box`` is PDF user space, origin bottom-left).

    >>> pdf_fragment(18, (252.0, 622.0, 372.0, 642.0), 792.0)
    'page=18&viewrect=252,150,120,20'
    >>> pdf_fragment(3)
    'page=3'
    """
    value = f"page={page}"
    if box is not None and height is not None:
        x0, y0, x1, y1 = box
        value += f"&viewrect={x0:g},{round(height - y1, 3):g},{round(x1 - x0, 3):g},{round(y1 - y0, 3):g}"
    return value


def table_iri(extraction: IRI, page: int, index: int) -> IRI:
    """The IRI of table ``index`` of ``page`` in ``extraction`` (content-derived)."""
    return ids.content_iri("table", extraction, page, index)


def cell_iri(table: IRI, row: int, col: int) -> IRI:
    """The IRI of the cell at ``(row, col)`` of ``table``: ``<table>#cell-<row>-<col>``."""
    return IRI(f"{table}#cell-{row}-{col}")


LAYOUT = Table("page-layout", (), fields=(Field("pages", PG.pageMap, "json"),
                                          Field("boxes", PG.boxMap, "json")))

TABLE = Table(
    "table", (PROV.Entity, PG.Table),
    fields=(Field("extraction", PROV.wasGeneratedBy, "iri"),
            Field("snapshot", PROV.wasDerivedFrom, "iri"), Field("page", PG.pageNumber, "int"),
            Field("index", PG.tableIndex, "int"), Field("bbox", PG.bbox, "json"),
            Field("rows", PG.rowCount, "int"), Field("cols", PG.columnCount, "int"),
            Field("header_rows", PG.headerRows, "int", default=0)))

CELL = Table(
    "table-cell", (PROV.Entity, PG.TableCell),
    fields=(Field("table", PG.inTable, "iri"), Field("derived", PROV.wasDerivedFrom, "iri"),
            Field("row", PG.rowIndex, "int"), Field("col", PG.columnIndex, "int"),
            Field("text", PG.cellText), Field("bbox", PG.bbox, "json"),
            Field("header", PG.isHeader, "bool", default=False),
            Field("header_path", PG.headerPath, "json"),
            Field("start", PG.start, "int", requires="end"),
            Field("end", PG.end, "int", requires="start")))


@dataclass(frozen=True, slots=True)
class _CellRow:
    """A cell as :data:`CELL` writes it (``derived`` = its table)."""

    table: IRI
    derived: IRI
    row: int
    col: int
    text: str
    bbox: list[float] | None
    header: bool
    header_path: list[str]
    start: int | None
    end: int | None


def layout_quads(layout: PageLayout, graph: IRI | None) -> list[Quad]:
    """The ``pg:pageMap`` and ``pg:boxMap`` statements of ``layout`` on its extracted text."""
    return LAYOUT.quads(layout.text_iri, _Layout([list(p) for p in layout.pages],
                                                 [list(b) for b in layout.boxes]), graph,
                        types=False)


@dataclass(frozen=True, slots=True)
class _Layout:
    pages: list[list[float]]
    boxes: list[list[float]]


def table_quads(table: TableRecord, graph: IRI | None) -> list[Quad]:
    """The statements of ``table`` and of each of its cells, in ``graph``."""
    q = TABLE.quads(table.iri, _TableRow(table), graph)
    for c in table.cells:
        q += CELL.quads(c.iri, _CellRow(c.table, c.table, c.row, c.col, c.text,
                                        list(c.bbox) if c.bbox else None, c.header,
                                        list(c.header_path), c.start, c.end), graph)
    return q


class _TableRow:
    """A :class:`TableRecord` with its box as a JSON list (what :data:`TABLE` writes)."""

    def __init__(self, t: TableRecord) -> None:
        self.extraction, self.snapshot, self.page, self.index = t.extraction, t.snapshot, t.page, t.index
        self.bbox, self.rows, self.cols, self.header_rows = list(t.bbox), t.rows, t.cols, t.header_rows


def _box(raw: object) -> Box | None:
    if not isinstance(raw, list) or len(raw) != 4:
        return None
    a, b, c, d = (float(v) for v in raw)
    return (a, b, c, d)


def load_layout(store: ProvStore, text_iri: IRI) -> PageLayout | None:
    """The page layout recorded on ``text_iri`` (one query); ``None`` when it has none.

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    return load_layouts(store, [text_iri]).get(text_iri)


def load_layouts(store: ProvStore, text_iris: Sequence[IRI]) -> dict[IRI, PageLayout]:
    """The page layouts recorded on ``text_iris``, by text IRI (one query); a text without
    one is absent.

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, _, _ = LAYOUT.read(store, text_iris)
    out: dict[IRI, PageLayout] = {}
    for t, p in props.items():
        v = LAYOUT.decode(p, {}, t)
        if v["pages"] is None:
            continue
        pages = tuple((int(s), int(e), float(w), float(h)) for s, e, w, h in v["pages"])
        boxes = tuple((int(s), int(e), int(n), float(a), float(b), float(c), float(d))
                      for s, e, n, a, b, c, d in (v["boxes"] or ()))
        out[t] = PageLayout(text_iri=t, pages=pages, boxes=boxes)
    return out


def load_cells(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, CellRecord]:
    """The cells among ``iris``, by IRI (one query).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, _, _ = CELL.read_typed(store, iris, PG.TableCell)
    out: dict[IRI, CellRecord] = {}
    for i, p in props.items():
        v = CELL.decode(p, {}, i)
        out[i] = CellRecord(iri=i, table=v["table"] or IRI(""), row=int(v["row"] or 0),
                            col=int(v["col"] or 0), text=v["text"] or "", bbox=_box(v["bbox"]),
                            header=bool(v["header"]),
                            header_path=tuple(str(h) for h in (v["header_path"] or ())),
                            start=v["start"], end=v["end"])
    return out


_CELLS_OF = f"SELECT ?table ?cell WHERE {{ ?cell <{PG.inTable}> ?table }}"
_TABLES_OF = f"SELECT ?ext ?table WHERE {{ ?table <{PROV.wasGeneratedBy}> ?ext ; a <{PG.Table}> }}"


def load_tables(store: ProvStore, iris: Sequence[IRI], *, cells: bool = True) -> dict[IRI, TableRecord]:
    """The tables among ``iris``, by IRI, with their cells sorted by row and column when
    ``cells`` (three queries whatever their number).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, _, _ = TABLE.read_typed(store, iris, PG.Table)
    by_table: dict[IRI, list[CellRecord]] = {t: [] for t in props}
    if cells and props:
        rows = store.select(_CELLS_OF, values=("table", list(props)), source="provgraph.schema.table")
        got = load_cells(store, sorted({IRI(r["cell"]) for r in rows if isinstance(r["cell"], IRI)}))
        for c in got.values():
            if c.table in by_table:
                by_table[c.table].append(c)
    out: dict[IRI, TableRecord] = {}
    for i, p in props.items():
        v = TABLE.decode(p, {}, i)
        out[i] = TableRecord(iri=i, extraction=v["extraction"] or IRI(""),
                             snapshot=v["snapshot"] or IRI(""), page=int(v["page"] or 0),
                             index=int(v["index"] or 0), bbox=_box(v["bbox"]) or (0.0, 0.0, 0.0, 0.0),
                             rows=int(v["rows"] or 0), cols=int(v["cols"] or 0),
                             header_rows=int(v["header_rows"] or 0),
                             cells=tuple(sorted(by_table[i], key=lambda c: (c.row, c.col))))
    return out


def tables_of_extraction(store: ProvStore, extraction: IRI) -> list[TableRecord]:
    """Every table ``extraction`` (a ``pg:Extraction`` activity) generated, by page and
    index, with their cells (four queries).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    rows = store.select(_TABLES_OF, values=("ext", [extraction]), source="provgraph.schema.table")
    got = load_tables(store, sorted({IRI(r["table"]) for r in rows if isinstance(r["table"], IRI)}))
    return sorted(got.values(), key=lambda t: (t.page, t.index))
