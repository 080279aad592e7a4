"""The auditor's page in headless Chromium (issue 19; ``make test-browser``).

On the demo store: open a run, open a quoted claim and check that the highlighted text
is the cited bytes, open a stale claim and see the revision, open the lineage, download
the bundle and verify it; a hostile retained source renders inert. On the
migration-window case (issue 21): the drawer of a claim citing a PDF table cell
highlights the recorded box on the drawn page and the cited cell in the table. Each view's
screenshot is written to a temporary directory, or to ``$PROVGRAPH_SCREENSHOTS`` (the
README's images: ``PROVGRAPH_SCREENSHOTS=docs/screenshots make test-browser``).
Chromium, chromedriver and Selenium missing: skipped with the reason, failed with CI=true.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from provgraph.io.bundle import verify_bundle
from provgraph.store import EmbeddedStore
from provgraph.terms import IRI
from provgraph.vocab import PG

from .ui_support import (HOSTILE, QUOTE, chromium, hostile_store, record_migration_window,
                         require_browser, served)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("PROVGRAPH_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads):
    require_browser()
    with chromium(downloads) as driver:
        yield driver


@pytest.fixture(scope="module")
def demo_page(demo_store_path):
    store = EmbeddedStore(demo_store_path, read_only=True)
    with served(store) as server:
        yield store, server.url
    store.close()


def _by(css: str):
    from selenium.webdriver.common.by import By

    return By.CSS_SELECTOR, css


def _text(el) -> str:
    return el.get_attribute("textContent")


def _shot(driver, shots: Path, name: str) -> None:
    path = shots / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 5000, path


def _cited_bytes(store, citation: str) -> str:
    c = IRI(citation)

    def one(p):
        return next(q[2] for q in store.quads(c, p))
    snap, b0, b1 = one(PG.resolvedSnapshot), int(one(PG.resolvedByteStart).value), int(one(PG.resolvedByteEnd).value)
    digest = next(q[2] for q in store.quads(snap, PG.sha256)).value
    return store.originals.get(digest)[b0:b1].decode("utf-8")


def test_from_a_run_to_the_highlighted_span_the_revision_and_the_bundle(browser, demo_page, shots,
                                                                         downloads):
    store, url = demo_page
    d = browser
    d.get(url)
    assert d.title.startswith("Runs")
    _shot(d, shots, "runs")
    row = next(tr for tr in d.find_elements(*_by("table.runs tbody tr"))
               if tr.find_elements(*_by("td"))[1].text == "flask-docs-qa")
    run_link = row.find_element(*_by("a.run-link"))
    run_link.click()  # click 1: the run
    assert d.title.startswith("Run flask-docs-qa")
    statuses = [li.get_attribute("class").split()[1] for li in d.find_elements(*_by("li.claim"))]
    assert {"status-supported", "status-partial", "status-unsupported"} <= set(statuses)
    assert len(statuses) == 28
    partial = d.find_element(*_by("li.claim.status-partial"))
    d.execute_script("arguments[0].closest('section').scrollIntoView()", partial)
    _shot(d, shots, "answers")
    d.execute_script("window.scrollTo(0, 0)")

    # click 2: a quoted claim (q01: verified quote, and stale: its page was revised in 3.0.3)
    claim = next(a for a in d.find_elements(*_by("a.claim-link"))
                 if _text(a) == "Flask supports Python 3.6 and newer.")
    claim.click()
    drawer = d.find_element(*_by("#drawer"))
    assert _text(drawer.find_element(*_by("#claim-text"))) == "Flask supports Python 3.6 and newer."
    mark = drawer.find_element(*_by("mark.cited-span"))
    citation = drawer.find_element(*_by("section.citation")).get_attribute("data-citation")
    assert _text(mark) == _cited_bytes(store, citation)
    assert " ".join(_text(mark).split()) == "Flask supports Python 3.6 and newer."
    assert mark.is_displayed()
    assert "open" in d.find_element(*_by("li.claim.open")).get_attribute("class")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", mark)
    _shot(d, shots, "drawer")

    # the same claim is stale: the revision, the newer-version banner and the cited lines' diff
    banner = drawer.find_element(*_by(".banner.newer"))
    assert "Newer version exists" in _text(banner)
    assert len(drawer.find_elements(*_by("ol.revisions li"))) == 2
    assert drawer.find_elements(*_by(".diff .del")) and drawer.find_elements(*_by(".diff .ins"))
    rows = drawer.find_elements(*_by("table.stale-rows tbody tr"))
    assert [r.find_elements(*_by("td"))[3].text for r in rows] == ["changed"]
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})",
                     drawer.find_element(*_by(".diff")))
    _shot(d, shots, "stale-claim")

    # the lineage: drawn as SVG, nodes typed and clickable, the bundle verifies
    drawer.find_element(*_by("a.button[href^='/ui/lineage']")).click()
    assert d.title.startswith("Lineage")
    nodes = d.find_elements(*_by("svg#lineage-graph a.node"))
    assert len(nodes) > 20
    kinds = {n.get_attribute("data-kind") for n in nodes}
    assert {"Claim", "Citation", "Chunk", "SourceSnapshot", "Parser", "Model"} <= kinds
    check = d.find_element(*_by("#bundle-check"))
    assert check.get_attribute("data-ok") == "true"
    shown_digest = check.get_attribute("data-sha256")
    _shot(d, shots, "lineage")
    check.find_element(*_by("a.button")).click()
    deadline = time.monotonic() + 20
    files: list[Path] = []
    while time.monotonic() < deadline:
        files = [p for p in downloads.glob("*.prov.json")]
        if files and not list(downloads.glob("*.crdownload")):
            break
        time.sleep(0.1)
    assert len(files) == 1, list(downloads.iterdir())
    result = verify_bundle(files[0].read_bytes())
    assert result.ok and result.actual == shown_digest
    parser = next(n for n in nodes if n.get_attribute("data-kind") == "Parser")
    assert "provgraph-demo-rst" in _text(parser)
    d.execute_script("arguments[0].scrollIntoView()", parser)
    parser.click()  # a node is a link to its statements
    assert d.title.startswith("Node")
    assert "provgraph-demo-rst" in d.find_element(*_by("table.statements")).text


def test_stale_and_impact_views(browser, demo_page, shots):
    store, url = demo_page
    d = browser
    d.get(url + "stale")
    groups = {g.get_attribute("data-group"): len(g.find_elements(*_by("tbody tr")))
              for g in d.find_elements(*_by("section.stale-group"))}
    assert groups["deleted"] > 0 and groups["updated, cited span changed"] > 0
    assert groups["updated, cited span unchanged"] > 0
    _shot(d, shots, "stale")
    d.get(url + "impact?agent=provgraph-demo-rst&version=1.0")
    assert len(d.find_elements(*_by("table.impact tbody tr"))) == 28
    since = {_text(x) for x in d.find_elements(*_by("table.impact [data-stale]"))}
    assert {"current", "deleted", "updated, cited span changed",
            "updated, cited span unchanged"} <= since
    _shot(d, shots, "impact")


def test_a_hostile_source_renders_inert(browser, shots, tmp_path):
    store, r = hostile_store(tmp_path / "hostile")
    try:
        with served(store) as server:
            d = browser
            d.get(server.url.replace("/ui/", "/ui/claim?iri=") + quote(r["claim"], safe=""))
            assert d.execute_script("return typeof window.pwned") == "undefined"
            source = d.find_element(*_by("pre.source"))
            assert _text(source) == HOSTILE.decode()
            assert _text(source.find_element(*_by("mark"))) == QUOTE
            assert source.find_elements(*_by("b, script, img")) == []
            assert d.find_elements(*_by("main script, main img")) == []
            assert _text(d.find_element(*_by("#claim-text"))) == QUOTE
            _shot(d, shots, "hostile")
    finally:
        store.close()


def test_a_cited_pdf_cell_is_highlighted_on_the_page_and_in_the_table(browser, shots, tmp_path):
    from provgraph.regions import region_for_citation

    store = EmbeddedStore(tmp_path / "mw")
    cits = record_migration_window(store)
    cit = cits["kept"]
    reg = region_for_citation(store, str(cit.iri))
    try:
        with served(store) as server:
            d = browser
            d.get(server.url.replace("/ui/", "/ui/claim?iri=") + quote(str(cit.claim), safe=""))
            region = d.find_element(*_by("#region-1"))
            assert region.get_attribute("data-outcome") == "quote_match"
            height = 792.0  # the guide's pages are US Letter, as recorded
            x0, y0, x1, y1 = reg.bbox
            for rect_id in ("region-rect-1", "region-zoom-rect-1"):
                rect = region.find_element(*_by(f"svg rect#{rect_id}"))
                got = {k: float(rect.get_attribute(k)) for k in ("x", "y", "width", "height")}
                assert got == {"x": x0, "y": height - y1, "width": x1 - x0, "height": y1 - y0}
                assert float(rect.get_attribute("data-page-height")) == height
                assert rect.is_displayed()
            # the browser's own geometry of the drawn rectangle, in SVG user units (points)
            box = d.execute_script("const b = arguments[0].getBBox(); return [b.x, b.y, b.width, b.height];",
                                   region.find_element(*_by("rect#region-rect-1")))
            assert [round(v, 3) for v in box] == [x0, height - y1, x1 - x0, y1 - y0]
            cell = region.find_element(*_by("table.pdf-table .cited-cell"))
            assert _text(cell) == reg.text == "Four hours"
            assert [_text(th) for th in region.find_elements(*_by("table.pdf-table th"))] == [
                "Migration", "Window"]
            assert _text(region.find_element(*_by(".header-path"))) == "Window"
            assert d.execute_script("return typeof window.pwned") == "undefined"
            d.execute_script("arguments[0].scrollIntoView()", region)
            _shot(d, shots, "pdf-region")

            # the same claim on the extraction that lost the header: said, and shown
            lost = cits["lost"]
            d.get(server.url.replace("/ui/", "/ui/claim?iri=") + quote(str(lost.claim), safe=""))
            region = d.find_element(*_by("#region-1"))
            missing = region.find_element(*_by("table.pdf-table tr.header-missing"))
            assert missing.is_displayed() and _text(missing).startswith("header not extracted")
            assert _text(region.find_element(*_by(".region-words"))) == (
                "supported by the table, but the header was not extracted")
            assert _text(region.find_element(*_by("table.pdf-table .cited-cell"))) == (
                region_for_citation(store, str(lost.iri)).text)
            d.execute_script("arguments[0].scrollIntoView()", region)
            _shot(d, shots, "pdf-region-header-lost")
    finally:
        store.close()
