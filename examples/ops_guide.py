"""Writes examples/ops-guide.pdf, the operations guide of the migration-window case (issue
21), with fpdf2: 18 US Letter pages; page 18 holds two tables in PDF user space points.

Table 7, "Migration windows", has its bold header row on a shaded band with no ruling line
above it, as many house styles draw it: a table finder that follows ruling lines only
(pdfplumber's ``lines_strict``) misses the header; one that also follows rectangle edges
(pdfplumber's default ``lines``) keeps it. Table 8, "On-call contacts", is ruled on every
side, so both find it whole. The text is this project's own (Apache-2.0, as the rest of it).

    python examples/ops_guide.py            # rewrites examples/ops-guide.pdf
    python examples/ops_guide.py --check    # exit 1 if the shipped file differs

Needs fpdf2 (in provgraph's test extra). The bytes are deterministic: the creation date is
fixed and fpdf2 writes no other varying field; tests/test_pdf.py builds them again and
compares them with the shipped file.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

PATH = Path(__file__).with_name("ops-guide.pdf")

MIGRATION_TABLE = [("Migration", "Window"), ("Standard", "Four hours"),
                   ("With data backfill", "Eight hours")]
CONTACTS_TABLE = [("Team", "Pager"), ("Database", "db-oncall"), ("Network", "net-oncall")]


def build(migration: list[tuple[str, str]] | None = None) -> bytes:
    """The guide's bytes (fpdf2; points; top-left drawing origin, as fpdf2 draws);
    ``migration`` replaces Table 7's rows (a revised guide, for the tests)."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(False)
    pdf.set_creation_date(dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))
    for n in range(1, 19):
        pdf.add_page()
        pdf.set_font("Helvetica", size=11)
        pdf.set_xy(72, 72)
        if n < 18:
            pdf.cell(0, 14, f"Operations guide, page {n}.")
            continue
        pdf.cell(0, 14, "7. Maintenance windows")
        pdf.set_xy(72, 96)
        pdf.cell(0, 14, "Plan schema migrations inside the window below.")
        _table(pdf, 72, 130, migration or MIGRATION_TABLE, shaded_header=True)
        pdf.set_xy(72, 230)
        pdf.set_font("Helvetica", size=11)
        pdf.cell(0, 14, "8. On-call contacts")
        _table(pdf, 72, 250, CONTACTS_TABLE, shaded_header=False)
    return bytes(pdf.output())


def _table(pdf: object, x0: float, y0: float, rows: list[tuple[str, str]], *,
           shaded_header: bool) -> None:
    w0, w1, h = 180.0, 120.0, 20.0
    p = pdf  # fpdf.FPDF
    if shaded_header:  # a filled band, no stroked rule above the header
        p.set_fill_color(220, 220, 220)  # type: ignore[attr-defined]
        p.rect(x0, y0, w0 + w1, h, style="F")  # type: ignore[attr-defined]
    for i, (a, b) in enumerate(rows):
        p.set_font("Helvetica", style="B" if i == 0 else "", size=11)  # type: ignore[attr-defined]
        y = y0 + h * i
        p.set_xy(x0 + 4, y + 3)  # type: ignore[attr-defined]
        p.cell(w0 - 8, 14, a)  # type: ignore[attr-defined]
        p.set_xy(x0 + w0 + 4, y + 3)  # type: ignore[attr-defined]
        p.cell(w1 - 8, 14, b)  # type: ignore[attr-defined]
    p.set_line_width(0.75)  # type: ignore[attr-defined]
    bottom = y0 + h * len(rows)
    first = y0 + h if shaded_header else y0
    y = first
    while y <= bottom:
        p.line(x0, y, x0 + w0 + w1, y)  # type: ignore[attr-defined]
        y += h
    for x in (x0, x0 + w0, x0 + w0 + w1):
        p.line(x, y0, x, bottom)  # type: ignore[attr-defined]


if __name__ == "__main__":
    data = build()
    if "--check" in sys.argv[1:]:
        sys.exit(0 if PATH.read_bytes() == data else 1)
    PATH.write_bytes(data)
    print(f"wrote {PATH} ({len(data)} bytes)")
