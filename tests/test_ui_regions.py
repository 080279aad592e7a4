"""The drawer's cited PDF region (issue 19 item 2, issue 21) without a browser: on the
migration-window case (examples/migration_window.py's record_case), the page shows the
page, the box, the precision, the outcome and its gaps, the drawn region and the table as
region_for_citation and ``provgraph region`` give them; text from the PDF is escaped."""

from __future__ import annotations

import dataclasses
import html
import json
import re
from urllib.parse import quote

import pytest

from provgraph.cli import cli
from provgraph.regions import region_for_citation
from provgraph.store import EmbeddedStore
from provgraph.ui import pages, views
from provgraph.ui.app import handle

from .ui_support import PDF_HOSTILE, record_hostile, record_hostile_pdf, record_migration_window

pytest.importorskip("pdfplumber", reason="the pdf extra is not installed (pip install -e '.[pdf]')")


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    """The case recorded on disk; the CLI reads it first, then the page's store opens it."""
    path = tmp_path_factory.mktemp("mw") / "store"
    store = EmbeddedStore(path)
    cits = record_migration_window(store)
    store.close()
    from click.testing import CliRunner

    runner = CliRunner()
    cli_out = {}
    for name, cit in cits.items():
        got = runner.invoke(cli, ["--store", str(path), "region", str(cit.iri)],
                            catch_exceptions=False)
        assert got.exit_code == 0, got.output
        cli_out[name] = json.loads(got.stdout)
    store = EmbeddedStore(path, read_only=True)
    yield store, cits, cli_out
    store.close()


def _drawer(store, claim) -> str:
    resp = handle(store, "GET", "/ui/claim?iri=" + quote(str(claim), safe=""))
    assert resp.status == 200
    return resp.body.decode("utf-8")


def _one(pattern: str, body: str) -> str:
    found = re.findall(pattern, body, re.S)
    assert len(found) == 1, (pattern, found)
    return html.unescape(found[0])


def _attrs(tag: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag)}


def _region(body: str, n: int = 1) -> str:
    """The HTML of the drawer's ``n``-th citation's region (the case's claims cite the
    "Four hours" cell first, the "db-oncall" cell second)."""
    start = body.index(f'<div class="pdf-region" id="region-{n}"')
    end = body.find('<div class="pdf-region"', start + 1)
    return body[start:end if end > 0 else len(body)]


def _shown(page: str) -> dict[str, object]:
    """The region values the page shows (its text and its data attributes)."""
    body = _region(page)
    div = _attrs(_one(r'(<div class="pdf-region"[^>]*>)', body))
    rect = _attrs(_one(r'(<rect class="cited-region" id="region-rect-1"[^>]*>)', body))
    return {
        "page": int(_one(r'<span class="region-page">(.*?)</span>', body)),
        "box": _one(r'<span class="region-box">\[(.*?)\]</span>', body),
        "precision": _one(r'<span class="region-precision">(.*?)</span>', body),
        "outcome": _one(r'<span class="region-outcome"><span class="outcome [^"]*" data-outcome="([^"]*)"', body),
        "gaps": re.findall(r'<span class="gap" data-gap="([^"]*)"', body),
        "words": _one(r'<span class="region-words">(.*?)</span>', body),
        "header_path": _one(r'<span class="header-path[^"]*">(.*?)</span>', body),
        "cell": _one(r'<(?:td|th) id="cited-cell-1"[^>]*>(.*?)</(?:td|th)>', body),
        "fragment": _one(r'<code class="fragment">(.*?)</code>', body),
        "div": div, "rect": rect,
    }


def test_header_lost_drawer_shows_page_box_precision_and_the_gap(case):
    store, cits, _ = case
    cit = cits["lost"]
    reg = region_for_citation(store, str(cit.iri))
    body = _drawer(store, cit.claim)
    got = _shown(body)
    assert (got["page"], got["box"], got["precision"], got["outcome"], got["gaps"]) == (
        18, "252, 622, 372, 642", "cell", "context_not_extracted", ["header_not_extracted"])
    assert got["words"] == "supported by the table, but the header was not extracted"
    assert "PDF points (1/72 inch), origin bottom-left" in body
    assert got["cell"] == reg.text == "Four hours"
    assert got["header_path"] == "(none extracted)" and reg.header_path == ()
    assert got["fragment"] == "ops-guide.pdf#page=18&viewrect=252,150,120,20"
    # the table as extracted: no header row, said so; the cited cell's row is its context
    assert _one(r'<tr class="header-missing"><td colspan="2">(.*?)</td></tr>', body).startswith(
        "header not extracted")
    row = re.findall(r'<td[^>]*class="[^"]*cited-row[^"]*"[^>]*>(.*?)</td>', body)
    assert row == list(reg.row_cells) == ["Standard", "Four hours"]
    assert "<th" not in _one(r'(<table class="pdf-table".*?</table>)', body)
    # the header's words are on the page all the same: drawn, but not in the table
    assert re.search(r'<text [^>]*>Migration</text>', body)


def test_header_kept_drawer_shows_the_header_path_and_header_row(case):
    store, cits, _ = case
    cit = cits["kept"]
    reg = region_for_citation(store, str(cit.iri))
    body = _drawer(store, cit.claim)
    got = _shown(body)
    assert (got["page"], got["box"], got["precision"], got["outcome"], got["gaps"]) == (
        18, "252, 622, 372, 642", "cell", "quote_match", [])
    assert got["words"] == "supported by the table cell, under the header Window"
    assert got["cell"] == reg.text == "Four hours"
    assert got["header_path"] == " > ".join(reg.header_path) == "Window"
    table = _one(r'(<table class="pdf-table".*?</table>)', body)
    assert "header-missing" not in table
    assert re.findall(r"<th [^>]*>(.*?)</th>", table) == ["Migration", "Window"]
    column = re.findall(r'<t[dh][^>]*class="[^"]*cited-column[^"]*"[^>]*>(.*?)</t[dh]>', table)
    assert column == ["Window", "Four hours", "Eight hours"]


@pytest.mark.parametrize("which", ["lost", "kept"])
def test_page_region_agrees_with_region_for_citation_the_cli_and_the_api(case, which):
    store, cits, cli_out = case
    cit = cits[which]
    reg = region_for_citation(store, str(cit.iri)).to_dict()
    assert cli_out[which] == json.loads(json.dumps(reg))  # provgraph region = the library
    got = _shown(_drawer(store, cit.claim))
    shown = {"page": got["page"], "bbox": [float(v) for v in got["box"].split(", ")],
             "precision": got["precision"], "outcome": got["outcome"],
             "context_gaps": got["gaps"], "text": got["cell"],
             "table": got["div"]["data-table"], "row": int(got["div"]["data-row"]),
             "column": int(got["div"]["data-column"]),
             "header_path": [] if got["header_path"] == "(none extracted)"
             else got["header_path"].split(" > "),
             "fragment": got["fragment"].split("#", 1)[1]}
    for source in (reg, cli_out[which]):
        assert shown == {"page": source["page"], "bbox": source["bbox"],
                         "precision": source["precision"], "outcome": source["outcome"],
                         "context_gaps": source["context_gaps"], "text": source["text"],
                         "table": source["table"], "row": source["row"],
                         "column": source["column"], "header_path": source["header_path"],
                         "fragment": source["selectors"][0]["value"]}
    # the drawn rectangle is the recorded box, y flipped on the page's recorded height
    x0, y0, x1, y1 = reg["bbox"]
    height = float(got["rect"]["data-page-height"])
    rect = {k: float(got["rect"][k]) for k in ("x", "y", "width", "height")}
    assert rect == {"x": x0, "y": height - y1, "width": x1 - x0, "height": y1 - y0}
    assert height == 792.0
    assert [float(v) for v in got["rect"]["data-bbox"].split(",")] == reg["bbox"]
    api = json.loads(handle(store, "GET", "/ui/api/claim?iri=" + quote(str(cit.claim), safe="")).body)
    assert api["citations"][0]["region"] == json.loads(json.dumps(reg))


def test_the_drawing_places_the_recorded_words_at_their_boxes(case):
    store, cits, _ = case
    rv = views.region_view(store, str(cits["kept"].iri))
    assert rv.page_size == (612.0, 792.0)
    body = _drawer(store, cits["kept"].claim)
    svg = _one(r'(<svg [^>]*id="region-page-1".*?</svg>)', body)
    texts = [(html.unescape(t), _attrs(a)) for a, t in re.findall(r"<text ([^>]*)>(.*?)</text>", svg)]
    assert [t for t, _ in texts] == [w for w, _ in rv.page_words]
    four = [(a, box) for (t, a), (_, box) in zip(texts, rv.page_words) if t == "Four"]
    ((a, box),) = four
    assert (float(a["x"]), float(a["textLength"])) == (box[0], round(box[2] - box[0], 3))
    # drawn inside the cited cell's rectangle (SVG y grows downwards)
    rect = _attrs(_one(r'(<rect class="cited-region"[^>]*>)', svg))
    assert float(rect["y"]) < float(a["y"]) < float(rect["y"]) + float(rect["height"])
    cells = re.findall(r'<rect class="cell[^"]*"[^>]*>', svg)
    assert len(cells) == len(rv.table.cells) == 6


def test_without_word_boxes_only_the_boxes_are_drawn(case):
    store, cits, _ = case
    rv = dataclasses.replace(views.region_view(store, str(cits["kept"].iri)), page_words=[])
    svg = pages.region_svg(1, rv)
    assert re.findall(r"<text [^>]*>(.*?)</text>", svg) == ["no word boxes recorded: boxes only"] * 2
    assert svg.count('class="cited-region"') == 2 and svg.count('class="cell') == 2 * 6


def test_a_script_in_a_pdf_cell_is_escaped_everywhere():
    store = EmbeddedStore()
    try:
        r = record_hostile_pdf(store)
        body = _drawer(store, r["claim"])
        assert not re.search(r"<(script|b|i)[\s>]", body)
        escaped = html.escape(PDF_HOSTILE)
        assert _one(r'<(?:td|th) id="cited-cell-1"[^>]*>(.*?)</(?:td|th)>', body) == PDF_HOSTILE
        # in the table, in the drawing's words and in the cell's quote
        assert f'>{escaped}</td>' in body and f"<q class=\"region-text\">{escaped}</q>" in body
        assert re.search(r"<text [^>]*>&lt;script&gt;window.pwned=1&lt;/script&gt;</text>", body)
        assert "&lt;b&gt;x&lt;/b&gt;</td>" in body
        assert "evil.example/&lt;i&gt;guide&lt;/i&gt;.pdf" in body
    finally:
        store.close()


def test_a_text_citation_has_no_region():
    store = EmbeddedStore()
    try:
        r = record_hostile(store)
        d = views.claim_drawer(store, str(r["claim"]))
        assert [v.region for v in d.citations] == [None]
        assert "pdf-region" not in _drawer(store, r["claim"])
    finally:
        store.close()
