"""PDF ingestion (issue 21): per-page text with word boxes, and tables as cells with their
rows, columns, boxes and header paths, parsed by pdfplumber and recorded as an extraction.

Why pdfplumber: it is built on pdfminer.six (text with each glyph's position) and finds
tables from the page's ruling lines or text alignment, giving each cell's box
(``Table.rows[i].cells``) and text (``Table.extract()``); both are maintained and on PyPI
(MIT). It is an optional extra: ``pip install 'provgraph[pdf]'``;
:class:`~provgraph.errors.ProvgraphError` says so when it is missing.

What is recorded (:func:`record_pdf`), through the Recorder:

* one ``pg:Extraction`` of the snapshot by the parser agent ``pdfplumber`` at version
  ``<pdfplumber version>+<profile>`` (the table settings profile, :data:`PROFILES`), with
  the settings and header rule in its ``pg:configuration``: a change of settings is a new
  parser version, so ``impact --agent pdfplumber --version V`` names what it touched;
* its text: each page's words, clustered into lines (pdfplumber's ``cluster_objects`` on
  ``top``, tolerance 3 pt), words joined by a space and lines by a line feed; pages joined
  by a form feed (U+000C), so ``page`` citations address pages (:mod:`provgraph.offsets`).
  The offset map is empty: a PDF's text is not a substring of its bytes. The page map and
  the word boxes are the way back to the page (:class:`~provgraph.schema.table.PageLayout`);
* each table (:class:`~provgraph.schema.table.TableRecord`) and its cells.

Coordinates are converted from pdfplumber's top-left ``top``/``bottom`` to PDF user space
(points, origin bottom-left: ``y = page height - top``); a page whose media box does not
start at (0, 0) is shifted by pdfplumber, so its boxes are relative to the media box's
lower-left corner.

Header rows (``header_rule``): pdfplumber does not say which rows are headers, so the rule
is part of the parser's configuration and only rows that satisfy it are headers:
``"bold"`` (leading rows whose every non-empty cell is set entirely in a bold font),
``"non-numeric"`` (leading rows in which no line of any cell is a number; empty rows
count) or ``"none"``. A table whose
header row the table finder missed has no header rows, and its cells no header path: the
resolver then says ``context_not_extracted`` instead of inventing one.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ProvgraphError, RecordError
from .model import ExtractionRecord, SnapshotRecord, iri_of
from .schema.table import Box, CellRecord, PageLayout, TableRecord, cell_iri, table_iri
from .terms import IRI

if TYPE_CHECKING:
    from .recorder import Recorder

__all__ = ["PROFILES", "HEADER_RULES", "PdfPage", "PdfExtraction", "extract_pdf", "record_pdf",
           "parser_version"]

PROFILES: dict[str, dict[str, Any]] = {
    "lines": {"vertical_strategy": "lines", "horizontal_strategy": "lines"},
    "lines-strict": {"vertical_strategy": "lines_strict", "horizontal_strategy": "lines_strict"},
    "text-rows": {"vertical_strategy": "lines", "horizontal_strategy": "text",
                  "intersection_tolerance": 5},
}
"""Named pdfplumber ``table_settings``: ``lines`` (pdfplumber's default: cells bounded by
ruling lines and rectangle edges), ``lines-strict`` (ruling lines only: a header set on a
shaded band without a rule above it is not in the table) and ``text-rows`` (vertical rules,
rows from text alignment)."""

HEADER_RULES = ("bold", "non-numeric", "none")
"""How header rows are identified (see the module docstring)."""

_NUMBER = re.compile(r"^[-+]?[\d,]*\.?\d+%?$")
_LINE_TOLERANCE = 3


def _pdfplumber() -> Any:
    try:
        import pdfplumber
    except ImportError:
        raise ProvgraphError("PDF ingestion needs pdfplumber: pip install 'provgraph[pdf]'") from None
    return pdfplumber


def parser_version(profile: str) -> str:
    """The parser agent's version for ``profile``: ``<pdfplumber version>+<profile>``.

    Raises:
        ProvgraphError: pdfplumber is not installed.
        RecordError: an unknown profile.
    """
    if profile not in PROFILES:
        raise RecordError(f"unknown table profile {profile!r}; use one of {sorted(PROFILES)}")
    return f"{_pdfplumber().__version__}+{profile}"


@dataclass(frozen=True, slots=True)
class PdfPage:
    """One page: its 1-based number, size in points, and code point range in the text."""

    number: int
    width: float
    height: float
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Cell:
    row: int
    col: int
    text: str
    bbox: Box
    header: bool
    header_path: tuple[str, ...]
    start: int | None
    end: int | None


@dataclass(frozen=True, slots=True)
class _Table:
    page: int
    index: int
    bbox: Box
    rows: int
    cols: int
    header_rows: int
    cells: tuple[_Cell, ...]


@dataclass(frozen=True, slots=True)
class PdfExtraction:
    """What :func:`extract_pdf` parsed, before it is recorded.

    Attributes:
        text: the pages' text, pages separated by a form feed.
        pages: the pages (:class:`PdfPage`).
        boxes: one ``(text_start, text_end, page, x0, y0, x1, y1)`` per word.
        tables: the tables, by page and position (cells by row and column).
        config: the parser configuration recorded with the extraction.
        version: the parser agent's version (:func:`parser_version`).
    """

    text: str
    pages: tuple[PdfPage, ...]
    boxes: tuple[tuple[int, int, int, float, float, float, float], ...]
    tables: tuple[_Table, ...]
    config: dict[str, Any]
    version: str


def _r(v: float) -> float:
    return round(float(v), 3)


def _user_box(obj: Mapping[str, Any] | Sequence[float], height: float) -> Box:
    """pdfplumber's ``(x0, top, x1, bottom)`` (top-left origin) as PDF user space."""
    if isinstance(obj, Mapping):
        x0, top, x1, bottom = obj["x0"], obj["top"], obj["x1"], obj["bottom"]
    else:
        x0, top, x1, bottom = obj
    return (_r(x0), _r(height - bottom), _r(x1), _r(height - top))


def _inside(box: Box, outer: Box) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


def _unreadable(name: str, exc: Exception, what: str) -> RecordError:
    """The error for a PDF pdfplumber cannot open or parse (``what``: ``read``, ``read the
    pages of``, ``parse page N of``): encrypted, else truncated or damaged, naming
    ``name`` and pdfminer's own error (pdfplumber wraps it in ``PdfminerException``)."""
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

    inner: BaseException = exc
    if type(exc).__name__ == "PdfminerException" and exc.args and isinstance(exc.args[0],
                                                                              BaseException):
        inner = exc.args[0]
    if isinstance(inner, (PDFEncryptionError, PDFPasswordIncorrect)):
        return RecordError(f"{name} is encrypted: pdfplumber cannot {what} it without its "
                           f"password ({type(inner).__name__}); decrypt it (for example 'qpdf "
                           "--decrypt --password=PASSWORD IN.pdf OUT.pdf') and ingest the "
                           "decrypted copy")
    return RecordError(f"{name}: pdfplumber cannot {what} it: {type(inner).__name__}: {inner}; "
                       "the file may be truncated or damaged: ingest a complete copy")


def extract_pdf(data: bytes, *, profile: str = "lines", header_rule: str = "bold",
                name: str = "the input") -> PdfExtraction:
    """Parse a PDF's bytes: per-page text with word boxes, and its tables.

    Args:
        data: the PDF's bytes.
        profile: the table settings (:data:`PROFILES`).
        header_rule: how header rows are identified (:data:`HEADER_RULES`).
        name: what the bytes are, for errors (the CLI gives the file's path).

    Returns:
        :class:`PdfExtraction` (boxes in PDF user space, points, origin bottom-left).

    Raises:
        ProvgraphError: pdfplumber is not installed.
        RecordError: an unknown profile or header rule, or bytes that are not a readable
            PDF: empty, without the ``%PDF-`` header in their first 1024 bytes (ISO
            32000-1 §7.5.2; readers look that far), encrypted, or that pdfplumber cannot
            read (truncated or damaged: the message names pdfminer's error). Every
            message names ``name``.
    """
    if not data:
        raise RecordError(f"{name} is empty (0 bytes), not a PDF; give a PDF file")
    if data.find(b"%PDF-", 0, 1024) < 0:
        raise RecordError(f"{name} is not a PDF: its first 1024 bytes hold no '%PDF-' header; "
                          "give a PDF file (ingest text sources with 'provgraph record' or "
                          "the Recorder)")
    if header_rule not in HEADER_RULES:
        raise RecordError(f"unknown header rule {header_rule!r}; use one of {HEADER_RULES}")
    version = parser_version(profile)
    plumber = _pdfplumber()
    from pdfplumber.utils.clustering import cluster_objects

    settings = dict(PROFILES[profile])
    parts: list[str] = []
    pages: list[PdfPage] = []
    boxes: list[tuple[int, int, int, float, float, float, float]] = []
    tables: list[_Table] = []
    pos = 0
    try:
        pdf = plumber.open(io.BytesIO(data))
    except Exception as exc:  # pdfminer raises many types for bad bytes
        raise _unreadable(name, exc, "read") from None
    with pdf:
        try:
            pdf_pages = list(pdf.pages)
        except Exception as exc:  # pdfminer's errors for a broken page tree
            raise _unreadable(name, exc, "read the pages of") from None
        for number, page in enumerate(pdf_pages, 1):
            if number > 1:
                parts.append("\f")
                pos += 1
            start, h = pos, float(page.height)
            try:
                words = page.extract_words(x_tolerance=3, y_tolerance=3, extra_attrs=["fontname"])
                found = sorted(page.find_tables(settings), key=lambda t: (t.bbox[1], t.bbox[0]))
            except Exception as exc:  # a malformed content stream: name the page
                raise _unreadable(name, exc, f"parse page {number} of") from None
            page_words: list[tuple[int, int, Box]] = []
            for ln, line in enumerate(cluster_objects(words, "top", _LINE_TOLERANCE)):
                if ln:
                    parts.append("\n")
                    pos += 1
                for wn, w in enumerate(sorted(line, key=lambda w: w["x0"])):
                    if wn:
                        parts.append(" ")
                        pos += 1
                    text = str(w["text"])
                    box = _user_box(w, h)
                    boxes.append((pos, pos + len(text), number, *box))
                    page_words.append((pos, pos + len(text), box))
                    parts.append(text)
                    pos += len(text)
            pages.append(PdfPage(number, _r(page.width), _r(h), start, pos))
            for index, t in enumerate(found):
                tables.append(_table(page, t, number, index, h, header_rule, page_words))
    config = {"profile": profile, "table_settings": settings, "header_rule": header_rule,
              "text": f"words clustered into lines (tolerance {_LINE_TOLERANCE} pt), pages "
                      "separated by a form feed",
              "coordinates": "PDF user space, points, origin bottom-left"}
    return PdfExtraction("".join(parts), tuple(pages), tuple(boxes), tuple(tables), config, version)


def _table(page: Any, t: Any, number: int, index: int, h: float, header_rule: str,
           words: list[tuple[int, int, Box]]) -> _Table:
    texts = t.extract()
    grid: list[list[tuple[str, Box] | None]] = []
    for r, row in enumerate(t.rows):
        out: list[tuple[str, Box] | None] = []
        for c, bbox in enumerate(row.cells):
            if bbox is None:
                out.append(None)
                continue
            text = texts[r][c] if r < len(texts) and c < len(texts[r]) else None
            out.append((text or "", _user_box(bbox, h)))
        grid.append(out)
    ncols = max((len(r) for r in grid), default=0)
    header_rows = 0
    for r, row in enumerate(t.rows):
        if not _is_header(page, row.cells, grid[r], header_rule):
            break
        header_rows += 1
    cells: list[_Cell] = []
    for r, row_cells in enumerate(grid):
        for c, got in enumerate(row_cells):
            if got is None:
                continue
            text, box = got
            path: list[str] = []
            for hr in range(min(r, header_rows)):
                k = c
                while k >= 0 and (k >= len(grid[hr]) or grid[hr][k] is None):
                    k -= 1  # a header cell spanning columns is the nearest one to the left
                head = grid[hr][k] if k >= 0 else None
                if head is not None and head[0].strip():
                    path.append(head[0])
            inside = [(s, e) for s, e, b in words if _inside(b, box)]
            start = end = None
            if inside:
                s0, e0 = inside[0][0], inside[-1][1]
                others = [1 for s, e, b in words if s0 <= s and e <= e0 and not _inside(b, box)]
                if not others:
                    start, end = s0, e0
            cells.append(_Cell(r, c, text, box, r < header_rows, tuple(path), start, end))
    return _Table(number, index, _user_box(t.bbox, h), len(grid), ncols, header_rows, tuple(cells))


def _is_header(page: Any, bboxes: Sequence[Any], row: list[tuple[str, Box] | None], rule: str) -> bool:
    filled = [(b, got[0]) for b, got in zip(bboxes, row) if got is not None and got[0].strip()]
    if rule == "none":
        return False
    if rule == "non-numeric":  # an empty leading row (a spacer above the header) counts
        return not any(_NUMBER.match(line.strip()) for _, text in filled for line in text.splitlines())
    if not filled:
        return False
    for b, _ in filled:
        chars = [ch for ch in page.within_bbox(b).chars if not str(ch["text"]).isspace()]
        if not chars or not all("bold" in str(ch.get("fontname", "")).lower() for ch in chars):
            return False
    return True


def record_pdf(rec: Recorder, snapshot: SnapshotRecord | str, *, profile: str = "lines",
               header_rule: str = "bold", data: bytes | None = None,
               parsed: PdfExtraction | None = None) -> tuple[ExtractionRecord, list[TableRecord]]:
    """Parse a recorded PDF snapshot with pdfplumber and record the extraction, its page
    layout and its tables (one batch: all of it or nothing).

    Args:
        rec: the :class:`~provgraph.recorder.Recorder`.
        snapshot: the PDF's snapshot (record or IRI); its retained bytes are parsed.
        profile: the table settings (:data:`PROFILES`); part of the parser's version.
        header_rule: how header rows are identified (:data:`HEADER_RULES`).
        data: the PDF's bytes when the caller has them (else read from the originals
            store, digest checked).
        parsed: the result of :func:`extract_pdf` on those bytes when the caller parsed them
            first (to refuse a bad PDF before anything is recorded); ``profile`` and
            ``header_rule`` are then its own.

    Returns:
        ``(extraction, tables)``: the :class:`~provgraph.model.ExtractionRecord` (parser
        ``pdfplumber`` at :func:`parser_version`) and the recorded tables with their cells.

    Raises:
        ProvgraphError: pdfplumber is not installed.
        RecordError: an unknown profile or header rule, or bytes that are not a PDF.
        OriginalMissingError, OriginalCorruptError: the retained bytes are gone or altered.
    """
    from . import ids

    snap = iri_of(snapshot)
    if parsed is not None:
        got = parsed
    else:
        if data is None:
            digest = ids.digest_of_snapshot_iri(snap)
            if digest is None:
                raise RecordError(f"snapshot <{snap}> is not an ni: IRI; pass its bytes as data=")
            data = rec.store.originals.get(digest)
        got = extract_pdf(data, profile=profile, header_rule=header_rule)
    with rec.batch():
        ext = rec.extraction(snapshot, parser=("pdfplumber", got.version),
                                               text=got.text, offset_map=[], config=got.config)
        layout = PageLayout(text_iri=ext.text_iri,
                            pages=tuple((p.start, p.end, p.width, p.height) for p in got.pages),
                            boxes=got.boxes)
        tables = []
        for t in got.tables:
            t_iri = table_iri(ext.iri, t.page, t.index)
            cells = tuple(CellRecord(iri=cell_iri(t_iri, c.row, c.col), table=t_iri, row=c.row,
                                     col=c.col, text=c.text, bbox=c.bbox, header=c.header,
                                     header_path=c.header_path, start=c.start, end=c.end)
                          for c in t.cells)
            tables.append(TableRecord(iri=t_iri, extraction=ext.iri, snapshot=IRI(snap), page=t.page,
                                      index=t.index, bbox=t.bbox, rows=t.rows, cols=t.cols,
                                      header_rows=t.header_rows, cells=cells))
        rec.page_layout(ext, layout=layout, tables=tables)
    return ext, tables
