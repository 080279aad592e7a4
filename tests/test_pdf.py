"""PDF pages and tables (issue 21): ingestion with pdfplumber, cell and table citations, the
resolver's precision and context gaps, the region a reviewer sees, stale and impact.

Three real PDFs: the operations guide of the migration-window case (examples/ops-guide.pdf,
built again here with fpdf2 and compared byte for byte), a PDF written here with fpdf2 from
a public-domain table excerpt (tests/data/pdf/nics-2015-11-excerpt.csv), and the FBI's NICS
report for November 2015 (public domain, tests/data/pdf/SOURCES.md), each parsed by two
table settings profiles, which are two parser versions.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from provgraph import EmbeddedStore, Recorder
from provgraph.analytics import impact, stale
from provgraph.errors import ProvgraphError, RecordError
from provgraph.pdf import extract_pdf, parser_version, record_pdf
from provgraph.regions import changed_cells, region_for_citation
from provgraph.resolve import resolve_run
from provgraph.schema import table as table_schema
from provgraph.vocab import PG, PROV

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "pdf"
NICS = DATA / "nics-background-checks-2015-11.pdf"
GUIDE = ROOT / "examples" / "ops-guide.pdf"
T0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.timezone.utc)
STRICT, LINES = parser_version("lines-strict"), parser_version("lines")


def _ops_guide_module():
    spec = importlib.util.spec_from_file_location("ops_guide", ROOT / "examples" / "ops_guide.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _recorder(store, minute=0, label="t"):
    return Recorder(store, label=label, packages=[], clock=lambda: T0 + dt.timedelta(minutes=minute))


def _claim(rec, *cites, text="The migration window is four hours."):
    """One answer, one claim per ``(target, quote)``; returns the citations."""
    prompt = rec.context_packing(text=text, segments=[])
    answer = rec.generation(prompt, model=("ops-model", "1"), text=text)
    out = []
    for target, quote in cites:
        claim = rec.claim(answer, start=0, end=len(text), kind="paraphrase")
        out.append(rec.citation(claim, target=target, quote=quote))
    return out


def _cell(table, text):
    return next(c for c in table.cells if c.text == text)


# ---------------------------------------------------------------------- the files
def test_the_shipped_pdfs_are_the_documented_ones():
    digest = hashlib.sha256(NICS.read_bytes()).hexdigest()
    assert digest == "4f0ae6e017b0e97de211da8fd97316e55bd927af5740d6ce95e1b7b1539f9407"
    assert digest in (DATA / "SOURCES.md").read_text(encoding="utf-8")
    assert _ops_guide_module().build() == GUIDE.read_bytes()


# ---------------------------------------------------------------------- extraction
def test_ops_guide_pages_text_and_word_boxes():
    got = extract_pdf(GUIDE.read_bytes(), profile="lines")
    assert len(got.pages) == 18 and got.text.count("\f") == 17
    p18 = got.pages[-1]
    assert (p18.number, p18.width, p18.height) == (18, 612.0, 792.0)
    assert got.text[p18.start:p18.end].splitlines() == [
        "7. Maintenance windows", "Plan schema migrations inside the window below.",
        "Migration Window", "Standard Four hours", "With data backfill Eight hours",
        "8. On-call contacts", "Team Pager", "Database db-oncall", "Network net-oncall"]
    four = [b for b in got.boxes if got.text[b[0]:b[1]] == "Four"]
    assert len(four) == 1 and four[0][2] == 18
    # fpdf2 set the 14 pt high cell at x 256, y 153 (its top-left origin), text after its
    # 1 mm margin (2.835 pt): in user space x0 = 258.835, and the 11 pt glyphs' box sits
    # inside the cell's [792 - 167, 792 - 153]
    assert four[0][3:] == (258.83, 626.423, 281.446, 637.423)
    assert 792 - 153 - 14 < four[0][4] < four[0][6] < 792 - 153


def test_header_on_a_shaded_band_is_lost_by_lines_strict_and_kept_by_lines():
    data = GUIDE.read_bytes()
    strict, lines = (extract_pdf(data, profile=p).tables for p in ("lines-strict", "lines"))
    assert [(t.page, t.index, t.bbox, t.rows, t.cols, t.header_rows) for t in strict] == [
        (18, 0, (72.0, 602.0, 372.0, 642.0), 2, 2, 0), (18, 1, (72.0, 482.0, 372.0, 542.0), 3, 2, 1)]
    assert [(t.page, t.index, t.bbox, t.rows, t.cols, t.header_rows) for t in lines] == [
        (18, 0, (72.0, 602.0, 372.0, 662.0), 3, 2, 1), (18, 1, (72.0, 482.0, 372.0, 542.0), 3, 2, 1)]
    assert [(c.row, c.col, c.text, c.bbox, c.header_path) for c in strict[0].cells] == [
        (0, 0, "Standard", (72.0, 622.0, 252.0, 642.0), ()),
        (0, 1, "Four hours", (252.0, 622.0, 372.0, 642.0), ()),
        (1, 0, "With data backfill", (72.0, 602.0, 252.0, 622.0), ()),
        (1, 1, "Eight hours", (252.0, 602.0, 372.0, 622.0), ())]
    assert [(c.row, c.col, c.text, c.bbox, c.header, c.header_path) for c in lines[0].cells] == [
        (0, 0, "Migration", (72.0, 642.0, 252.0, 662.0), True, ()),
        (0, 1, "Window", (252.0, 642.0, 372.0, 662.0), True, ()),
        (1, 0, "Standard", (72.0, 622.0, 252.0, 642.0), False, ("Migration",)),
        (1, 1, "Four hours", (252.0, 622.0, 372.0, 642.0), False, ("Window",)),
        (2, 0, "With data backfill", (72.0, 602.0, 252.0, 622.0), False, ("Migration",)),
        (2, 1, "Eight hours", (252.0, 602.0, 372.0, 622.0), False, ("Window",))]
    # the on-call table is ruled on every side: both versions parse it alike
    assert strict[1].cells == lines[1].cells


def test_a_pdf_written_from_a_real_table_excerpt(tmp_path):
    from fpdf import FPDF

    rows = list(csv.reader((DATA / "nics-2015-11-excerpt.csv").open(encoding="utf-8")))
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_creation_date(T0)
    pdf.add_page()
    x0, y0, widths, h = 72.0, 100.0, (120.0, 80.0, 80.0, 80.0), 18.0
    for r, row in enumerate(rows):
        pdf.set_font("Helvetica", style="B" if r == 0 else "", size=10)
        x = x0
        for c, text in enumerate(row):
            pdf.set_xy(x, y0 + r * h)
            pdf.cell(widths[c], h, text, border=1)
            x += widths[c]
    got = extract_pdf(bytes(pdf.output()), profile="lines")
    (t,) = got.tables
    assert (t.page, t.bbox, t.rows, t.cols, t.header_rows) == (1, (72.0, 602.0, 432.0, 692.0), 5, 4, 1)
    assert [[c.text for c in t.cells if c.row == r] for r in range(5)] == rows
    alaska = next(c for c in t.cells if c.text == "3,062")
    assert (alaska.row, alaska.col, alaska.bbox, alaska.header_path) == (
        2, 2, (272.0, 638.0, 352.0, 656.0), ("Handgun",))
    assert got.text[alaska.start:alaska.end] == "3,062"


def test_nics_report_by_two_parser_versions():
    data = NICS.read_bytes()
    old = extract_pdf(data, profile="lines", header_rule="non-numeric")
    new = extract_pdf(data, profile="text-rows", header_rule="non-numeric")
    assert (len(old.pages), old.pages[0].width, old.pages[0].height) == (1, 1008.0, 612.0)
    (t,) = old.tables
    assert (t.bbox, t.rows, t.cols, t.header_rows) == ((33.12, 42.744, 975.301, 588.001), 17, 25, 2)
    merged = next(c for c in t.cells if c.row == 2 and c.col == 2)
    # ruled every fifth state: this version merges five states into one cell
    assert (merged.text, merged.bbox, merged.header_path, merged.start) == (
        "23,022\n3,062\n12,382\n6,359\n41181", (145.814, 496.78, 180.134, 532.653),
        ("NICS Firearm Background Checks\nNovember - 2015",
         "Permit Handgun Long Gun *Other **Multiple Admin"), None)
    t2 = new.tables[0]
    assert (len(new.tables), t2.bbox, t2.rows, t2.cols, t2.header_rows) == (
        3, (111.429, 129.629, 975.301, 551.915), 59, 24, 3)
    cell = next(c for c in t2.cells if c.text == "3,062")
    assert (cell.row, cell.col, cell.bbox, cell.header_path) == (
        4, 1, (145.814, 517.879, 180.134, 525.079), ("Handgun",))
    assert new.text[cell.start:cell.end] == "3,062"
    pawn = next(c for c in t2.cells if (c.row, c.col) == (4, 7))
    assert pawn.header_path == ("Pre-Pawn", "Long Gun")  # a header spanning three columns


# ---------------------------------------------------------------------- the case
@pytest.fixture
def guide():
    """The ops guide ingested twice (lines-strict, then lines) and one answer each citing
    the "Four hours" cell and the "db-oncall" cell, resolved."""
    store = EmbeddedStore()
    ing = _recorder(store, 0, "ingest")
    snap = ing.snapshot(GUIDE.read_bytes(), uri="https://example.org/ops-guide.pdf",
                        media_type="application/pdf")
    out = {"store": store, "snap": snap}
    for minute, profile in ((1, "lines-strict"), (2, "lines")):
        rec = _recorder(store, minute, profile)
        ext, tables = record_pdf(rec, snap, profile=profile)
        four, pager = _cell(tables[0], "Four hours"), _cell(tables[1], "db-oncall")
        cits = _claim(rec, (four.iri, "Four hours"), (pager.iri, "db-oncall"),
                      (tables[0].iri, "Eight hours"), (tables[0].iri, "Window"))
        out[profile] = {"rec": rec, "ext": ext, "tables": tables, "cits": cits,
                        "res": resolve_run(store, rec.iri)}
    yield out
    store.close()


def test_header_lost_gives_context_not_extracted(guide):
    (c_four, r_four), (_, r_pager), (_, r_eight), (_, r_window) = guide["lines-strict"]["res"].items
    t = guide["lines-strict"]["tables"][0]
    assert (r_four.outcome, r_four.precision, r_four.context_gaps, r_four.region, r_four.text) == (
        "context_not_extracted", "cell", ("header_not_extracted",), table_schema.cell_iri(t.iri, 0, 1),
        "Four hours")
    assert r_four.reason == (
        "the quote matches cell (row 0, column 1) of table 0 on page 18, box [252, 622, 372, 642] pt "
        "(quote_match: the quote occurs once, at code points [0, 10)), but no header row of "
        "table 0 was extracted, so the cell has no header path")
    assert not r_four.verified
    assert (r_pager.outcome, r_pager.precision) == ("quote_match", "cell")
    # a cited table narrowed to its one cell holding the quote: same gap
    assert (r_eight.outcome, r_eight.precision, r_eight.region) == (
        "context_not_extracted", "cell", table_schema.cell_iri(t.iri, 1, 1))
    # the header text is not in this version's table at all: no invented cell
    assert (r_window.outcome, r_window.precision, r_window.region) == ("quote_mismatch", "table", t.iri)
    store = guide["store"]
    claim = c_four.claim
    assert not list(store.quads(claim, PROV.wasQuotedFrom, None))
    assert [q[2].value for q in store.quads(c_four.iri, PG.contextGap, None)] == ["header_not_extracted"]


def test_header_kept_gives_a_verified_quotation_with_the_header_path(guide):
    (c_four, r_four), _, (_, r_eight), (_, r_window) = guide["lines"]["res"].items
    t = guide["lines"]["tables"][0]
    assert (r_four.outcome, r_four.precision, r_four.context_gaps, r_four.region) == (
        "quote_match", "cell", (), table_schema.cell_iri(t.iri, 1, 1))
    assert r_four.reason.endswith("header path: Window")
    assert (r_eight.outcome, r_eight.region) == ("quote_match", table_schema.cell_iri(t.iri, 2, 1))
    assert (r_window.outcome, r_window.region) == ("quote_match", table_schema.cell_iri(t.iri, 0, 1))
    snap = guide["snap"].iri
    assert list(guide["store"].quads(c_four.claim, PROV.wasQuotedFrom, snap))


def test_region_for_citation_gives_page_box_cell_header_and_selectors(guide):
    store = guide["store"]
    lost = region_for_citation(store, guide["lines-strict"]["cits"][0].iri).to_dict()
    kept = region_for_citation(store, guide["lines"]["cits"][0].iri).to_dict()
    for d in (lost, kept):
        assert (d["page"], d["bbox"], d["column"], d["text"], d["precision"]) == (
            18, [252.0, 622.0, 372.0, 642.0], 1, "Four hours", "cell")
        # the page's text starts at "7. Maintenance windows"; the cell is its code points 97-107
        assert (d["page_text_start"], d["page_text_end"]) == (97, 107)
        assert d["selectors"] == [
            {"type": "FragmentSelector", "conformsTo": "http://tools.ietf.org/rfc/rfc8118",
             "value": "page=18&viewrect=252,150,120,20"},
            {"type": "TextQuoteSelector", "exact": "Four hours"},
            {"type": "TextPositionSelector", "start": 97, "end": 107}]
    assert (lost["outcome"], lost["row"], lost["header_path"], lost["context_gaps"],
            lost["row_cells"]) == ("context_not_extracted", 0, [], ["header_not_extracted"],
                                   ["Standard", "Four hours"])
    assert (kept["outcome"], kept["row"], kept["header_path"], kept["context_gaps"],
            kept["row_cells"]) == ("quote_match", 1, ["Window"], [], ["Standard", "Four hours"])
    page = guide["lines"]["ext"].text.split("\f")[17]
    assert page[97:107] == "Four hours"


def test_impact_and_changed_cells_after_the_table_parser_change(guide):
    store = guide["store"]
    old = guide["lines-strict"]["cits"]
    rows = impact(store, "pdfplumber", version=STRICT)
    assert sorted(r.claim for r in rows) == sorted(c.claim for c in old)
    changed = changed_cells(store, "pdfplumber", STRICT)
    new_t = guide["lines"]["tables"][0]
    got = [(r.claim, r.citation, r.change, r.old_text, r.new_text, r.old_header_path,
            r.new_header_path, r.new_cell) for r in changed]
    # the on-call claim rests on a cell both versions parse alike: not listed; the
    # "Window" claim's citation resolved to no cell: not listed either
    assert got == sorted([
        (old[0].claim, old[0].iri, "header_path", "Four hours", "Four hours", "", "Window",
         table_schema.cell_iri(new_t.iri, 1, 1)),
        (old[2].claim, old[2].iri, "header_path", "Eight hours", "Eight hours", "", "Window",
         table_schema.cell_iri(new_t.iri, 2, 1))])
    assert changed_cells(store, "pdfplumber", LINES) == []  # nothing newer than lines


def test_stale_after_a_revised_guide(guide):
    store = guide["store"]
    mod = _ops_guide_module()
    revised = mod.build([("Migration", "Window"), ("Standard", "Five hours"),
                         ("With data backfill", "Nine hours")])
    rec = _recorder(store, 10, "revise")
    snap2 = rec.snapshot(revised, uri="https://example.org/ops-guide.pdf",
                         media_type="application/pdf")
    record_pdf(rec, snap2, profile="lines")
    rows = stale(store)
    # the tables' rows of stale-texts.rq read snapshot by snapshot are the whole query's
    from .test_staleness_scale import assert_texts_per_snapshot_agree
    assert assert_texts_per_snapshot_agree(store) == 1
    verdict = {(r.claim, r.kind, r.newest): r.span_unchanged for r in rows}
    expected = {}
    for profile in ("lines-strict", "lines"):
        four, pager, eight, window = guide[profile]["cits"]
        expected[(four.claim, "updated", snap2.iri)] = False  # "Four hours" is gone
        expected[(pager.claim, "updated", snap2.iri)] = True
        expected[(eight.claim, "updated", snap2.iri)] = False  # a cited table: its quote is gone
        # "Window" is in the lines table and still in the guide; the lines-strict table does
        # not hold it, so its claim rests on the whole table, which changed
        expected[(window.claim, "updated", snap2.iri)] = profile == "lines"
    assert verdict == expected


def test_the_example_reproduces_the_case():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "migration_window.py")],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert "outcome:     context_not_extracted (header_not_extracted)" in out
    assert "outcome:     quote_match" in out
    assert "header path: ['Window']; row: ['Standard', 'Four hours']" in out
    assert out.count("urn:uuid:") == 3  # two impacted claims, one on a changed cell
    assert ": header_path (no header) -> Window (cell 'Four hours')" in out


# ---------------------------------------------------------------------- NICS
def test_nics_cells_resolve_and_a_lost_state_column_is_reported():
    store = EmbeddedStore()
    snap = _recorder(store).snapshot(NICS.read_bytes(), uri="https://example.org/nics-2015-11.pdf",
                                     media_type="application/pdf")
    res = {}
    cits = {}
    for minute, profile in ((1, "lines"), (2, "text-rows")):
        rec = _recorder(store, minute, profile)
        _, tables = record_pdf(rec, snap, profile=profile, header_rule="non-numeric")
        t = tables[0]
        cell = next(c for c in t.cells if "3,062" in c.text.split("\n"))
        cits[profile] = _claim(rec, (cell.iri, "3,062"), (t.iri, "Alaska"),
                               text="Alaska ran 3,062 handgun checks.")
        res[profile] = [r for _, r in resolve_run(store, rec.iri).items]
    (a, b) = res["lines"]
    assert (a.outcome, a.precision, a.context_gaps, a.text) == ("quote_match", "cell", (), "3,062")
    assert (b.outcome, b.precision) == ("quote_match", "cell")  # "Alabama\nAlaska\n..." cell
    (c, d) = res["text-rows"]
    assert (c.outcome, c.precision, c.context_gaps) == (
        "context_not_extracted", "cell", ("row_context_not_extracted",))
    assert "1 word(s) level with the cell on page 1 lie outside the extracted table" in c.reason
    # the state names are outside this version's table: located nowhere, not invented
    assert (d.outcome, d.precision) == ("quote_mismatch", "table")
    reg = region_for_citation(store, cits["text-rows"][0].iri)
    assert (reg.page, reg.bbox, reg.row, reg.column, reg.header_path, reg.selectors[0]["value"]) == (
        1, (145.814, 517.879, 180.134, 525.079), 4, 1, ("Handgun",),
        "page=1&viewrect=145.814,86.921,34.32,7.2")
    changed = changed_cells(store, "pdfplumber", parser_version("lines"))
    assert [(r.claim, r.change, r.new_text, r.new_header_path) for r in changed] == sorted([
        (cits["lines"][0].claim, "text", "23,022", "Handgun"),
        (cits["lines"][1].claim, "missing", None, "")])
    store.close()


# ---------------------------------------------------------------------- errors
def test_bad_bytes_and_unknown_settings_are_refused():
    with pytest.raises(RecordError, match="the input is not a PDF: its first 1024 bytes hold no"):
        extract_pdf(b"not a pdf")
    with pytest.raises(RecordError, match="unknown table profile 'grid'"):
        extract_pdf(GUIDE.read_bytes(), profile="grid")
    with pytest.raises(RecordError, match="unknown header rule 'italic'"):
        extract_pdf(GUIDE.read_bytes(), header_rule="italic")


def _encrypted_pdf() -> bytes:
    from fpdf import FPDF
    from fpdf.enums import EncryptionMethod

    pdf = FPDF()
    pdf.set_creation_date(T0)
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.cell(text="Secret schedule")
    pdf.set_encryption(owner_password="owner", user_password="reader",
                       encryption_method=EncryptionMethod.AES_128)
    return bytes(pdf.output())


NICS = DATA / "nics-background-checks-2015-11.pdf"


@pytest.mark.parametrize("content, says", [
    (b"# Runbook\n\nNot a PDF at all.\n", " is not a PDF: its first 1024 bytes hold no '%PDF-' header"),
    (b"", " is empty (0 bytes), not a PDF"),
    (NICS.read_bytes()[:len(NICS.read_bytes()) // 2],
     ": pdfplumber cannot read it: PSEOF: Unexpected EOF; the file may be truncated or damaged"),
    (NICS.read_bytes()[:-100],  # the cross-reference table cut off
     ": pdfplumber cannot read it: PDFSyntaxError: No /Root object!"),
    (_encrypted_pdf, " is encrypted: pdfplumber cannot read it without its password"),
    (None, ": cannot read it: Input/output error"),
], ids=["not-a-pdf", "empty", "truncated", "truncated-trailer", "encrypted", "unreadable"])
def test_cli_ingest_pdf_errors_name_the_file(runner, tmp_path, content, says):
    """Every ingest-pdf error names the file given (they said "these bytes" or "this
    PDF"), exits 2 and stores nothing."""
    from provgraph.cli import cli

    if content is None:  # a file that exists and cannot be read, even by root
        if not Path("/proc/self/mem").exists():
            pytest.skip("needs Linux /proc")
        path = Path("/proc/self/mem")
    else:
        path = tmp_path / "guide.pdf"
        path.write_bytes(content() if callable(content) else content)
    store = tmp_path / "store"
    got = runner.invoke(cli, ["--store", str(store), "ingest-pdf", str(path),
                              "--uri", "https://example.org/guide.pdf"])
    assert got.exit_code == 2, (got.output, got.exception)
    assert got.stdout == "" and got.stderr.startswith(f"Error: {path}{says}"), got.stderr
    assert not store.exists()  # parsed before the store is opened: nothing half-written


def test_missing_pdfplumber_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pdfplumber", None)
    with pytest.raises(ProvgraphError, match=r"pip install 'provgraph\[pdf\]'"):
        extract_pdf(GUIDE.read_bytes())


def test_recorded_tables_satisfy_the_shapes(guide):
    from provgraph.shacl import validate_shapes

    report = validate_shapes(guide["store"])
    assert report.conforms, report.messages()


def test_quotes_of_the_page_text_are_located_by_page_box_or_table_region(guide):
    """A quote of a PDF's extracted text has no byte offsets: it is located by page and
    the quoted words' box, and in a table's region (not an invented cell) when the box lies
    inside a table the parser found; a page range that does not hold it is a mismatch."""
    store, ext = guide["store"], guide["lines"]["ext"]
    rec = _recorder(store, 5, "text citations")
    page, region, wrong = _claim(rec, (ext.text_iri, "Plan schema migrations"),
                                 (ext.text_iri, "Standard Four hours"),
                                 (guide["snap"].iri, "Plan schema migrations"))
    res = [r for _, r in resolve_run(store, rec.iri).items]
    assert [(r.outcome, r.precision, r.page, r.bbox) for r in res] == [
        ("quote_match", "page", 18, (74.83, 683.423, 192.2, 694.423)),
        ("quote_match", "table", 18, (78.83, 626.423, 312.015, 637.423)),
        ("quote_match", "page", 18, (74.83, 683.423, 192.2, 694.423))]
    assert res[1].region == guide["lines"]["tables"][0].iri
    assert "page 18, in the region of table 0 (not mapped to a cell)" in res[1].reason
    reg = region_for_citation(store, page.iri)
    assert (reg.precision, reg.page, reg.bbox, reg.table, reg.row, reg.selectors) == (
        "page", 18, (74.83, 683.423, 192.2, 694.423), None, None,
        ({"type": "FragmentSelector", "conformsTo": "http://tools.ietf.org/rfc/rfc8118",
          "value": "page=18&viewrect=74.83,97.577,117.37,11"},))
    reg = region_for_citation(store, region.iri)
    assert (reg.precision, reg.table, reg.row, reg.bbox) == (
        "table", guide["lines"]["tables"][0].iri, None, (78.83, 626.423, 312.015, 637.423))
    # pages [17, 18) are page 17: the quote is on page 18
    cit = rec.citation(page.claim, target=ext.text_iri, start=17, end=18, unit="page",
                       quote="Plan schema migrations")
    last_cit, r = resolve_run(store, rec.iri).items[-1]
    assert (last_cit.iri, r.outcome, r.precision) == (cit.iri, "quote_mismatch", None)
    assert wrong.target == guide["snap"].iri  # a snapshot's quote: found in its extraction


# ---------------------------------------------------------------------- command line
def test_cli_ingest_pdf_region_and_changed_cells(runner, store_path):
    import json

    from provgraph import open_store
    from provgraph.cli import cli

    base = ["--store", str(store_path)]
    uri = "https://example.org/ops-guide.pdf"
    strict = runner.invoke(cli, [*base, "ingest-pdf", str(GUIDE), "--uri", uri, "--profile",
                                 "lines-strict", "--nl"], catch_exceptions=False)
    assert strict.exit_code == 0, strict.output
    rows = [json.loads(line) for line in strict.stdout.splitlines()]
    assert [(r["page"], r["index"], r["bbox"], r["rows"], r["columns"], r["header_rows"])
            for r in rows] == [(18, 0, [72.0, 602.0, 372.0, 642.0], 2, 2, 0),
                               (18, 1, [72.0, 482.0, 372.0, 542.0], 3, 2, 1)]
    assert f"by pdfplumber {STRICT}: 18 pages, 2 tables" in strict.stderr
    store = open_store(str(store_path))
    rec = _recorder(store, 3, "answer")
    (cit,) = _claim(rec, (table_schema.cell_iri(rows[0]["table"], 0, 1), "Four hours"))
    resolve_run(store, rec.iri)
    store.close()
    lines = runner.invoke(cli, [*base, "ingest-pdf", str(GUIDE), "--uri", uri, "--nl"],
                          catch_exceptions=False)
    assert lines.exit_code == 0, lines.output
    region = runner.invoke(cli, [*base, "region", cit.iri], catch_exceptions=False)
    got = json.loads(region.stdout)
    assert (got["outcome"], got["context_gaps"], got["page"], got["bbox"], got["row"],
            got["column"], got["header_path"]) == (
        "context_not_extracted", ["header_not_extracted"], 18, [252.0, 622.0, 372.0, 642.0], 0, 1, [])
    changed = runner.invoke(cli, [*base, "impact", "--agent", "pdfplumber", "--version", STRICT,
                                  "--changed-cells", "--nl"], catch_exceptions=False)
    assert changed.exit_code == 0, changed.output
    (row,) = [json.loads(line) for line in changed.stdout.splitlines()]
    assert (row["claim"], row["change"], row["old_header_path"], row["new_header_path"]) == (
        cit.claim, "header_path", "", "Window")
    usage = runner.invoke(cli, [*base, "impact", "--agent", "pdfplumber", "--changed-cells"])
    assert usage.exit_code == 2 and "--changed-cells needs --version" in usage.output
    missing = runner.invoke(cli, [*base, "region", "urn:uuid:0190f3c2-0000-7000-8000-000000000000"])
    assert missing.exit_code != 0 and "Error:" in missing.output


def test_revalidate_moves_cell_citations_to_the_re_extracted_cell(guide):
    from provgraph.revalidate import revalidate

    store = guide["store"]
    four, pager, eight, window = guide["lines-strict"]["cits"]
    new_tables = guide["lines"]["tables"]
    rows = {r.citation: r for r in revalidate(store, impacted_by=("pdfplumber", STRICT), at=T0)}
    assert (rows[four.iri].old_outcome, rows[four.iri].new_outcome, rows[four.iri].against) == (
        "context_not_extracted", "quote_match", table_schema.cell_iri(new_tables[0].iri, 1, 1))
    assert (rows[pager.iri].changed, rows[pager.iri].against) == (
        False, table_schema.cell_iri(new_tables[1].iri, 1, 1))
    # a cited table is checked against itself again (cells only are carried over)
    assert (rows[eight.iri].new_outcome, rows[eight.iri].against) == (
        "context_not_extracted", eight.target)
    assert rows[window.iri].new_outcome == "quote_mismatch"
    reg = region_for_citation(store, four.iri)
    assert (reg.outcome, reg.header_path, reg.row) == ("quote_match", ("Window",), 1)



def test_resolving_cell_citations_reads_a_bounded_number_of_times():
    """Cited cells and tables are read together (RegionReads.preload): the store reads of
    a resolve do not grow with the number of cell citations."""
    from .counting_store import counting

    reads = []
    for n in (2, 12):
        store = EmbeddedStore()
        rec = _recorder(store)
        snap = rec.snapshot(GUIDE.read_bytes(), uri="https://example.org/ops-guide.pdf",
                            media_type="application/pdf")
        _, tables = record_pdf(rec, snap, profile="lines")
        cells = [c for t in tables for c in t.cells]
        _claim(rec, *[(cells[i % len(cells)].iri, cells[i % len(cells)].text) for i in range(n)])
        with counting(store) as c:
            result = resolve_run(c, rec.iri)
        assert [r.outcome for _, r in result.items] == ["quote_match"] * n
        reads.append(c.reads)
    assert reads[1] <= reads[0], reads


def test_a_verified_cell_quotation_carries_an_rfc8118_fragment_selector(guide):
    """The qualified prov:Quotation of a verified cell quote has an oa:FragmentSelector
    (Web Annotation §4.2.1) with the page and the cell's viewrect; the header-lost one has
    no quotation at all."""
    from provgraph.terms import lit
    from provgraph.vocab import DCTERMS, OA, RDF

    store = guide["store"]
    kept = guide["lines"]["cits"][0].iri
    frag = f"{kept}#quotation-fragment"
    assert {(q[1], q[2]) for q in store.quads(frag, None, None)} == {
        (RDF.type, OA.FragmentSelector), (DCTERMS.conformsTo, "http://tools.ietf.org/rfc/rfc8118"),
        (RDF.value, lit("page=18&viewrect=252,150,120,20"))}
    assert list(store.quads(f"{kept}#quotation", OA.hasSelector, frag))
    lost = guide["lines-strict"]["cits"][0].iri
    assert not list(store.quads(f"{lost}#quotation", None, None))
    again = resolve_run(store, guide["lines"]["rec"].iri)
    assert (again.added, again.removed) == (0, 0)  # idempotent with the new node


def test_region_for_citation_agrees_with_the_resolutions(guide):
    """Two readers of one resolution: what resolve_run returned and what
    region_for_citation reads back from the store say the same page, box, region,
    precision, gaps and fragment; changed_cells lists a subset of impact's claims."""
    store = guide["store"]
    for profile in ("lines-strict", "lines"):
        for cit, res in guide[profile]["res"].items:
            reg = region_for_citation(store, cit.iri)
            assert (reg.outcome, reg.precision, reg.context_gaps, reg.page, reg.bbox) == (
                res.outcome, res.precision, res.context_gaps, res.page, res.bbox)
            assert reg.selectors[0]["value"] == res.fragment
            located = (reg.table if reg.row is None or reg.column is None or reg.table is None
                       else table_schema.cell_iri(reg.table, reg.row, reg.column))
            assert res.region == located
    impacted = {r.claim for r in impact(store, "pdfplumber", version=STRICT)}
    assert {r.claim for r in changed_cells(store, "pdfplumber", STRICT)} < impacted
