"""For the page's tests (issue 19): a store whose retained source is hostile HTML, the
migration-window case of PDF regions (issue 21, recorded by examples/migration_window.py's
own record_case) and a PDF whose table cell is a script, the page served in a thread, and
headless Chromium driven by Selenium."""

from __future__ import annotations

import datetime as dt
import importlib.util
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from provgraph import Recorder, Segment
from provgraph.pdf import record_pdf
from provgraph.resolve import resolve_run
from provgraph.store import EmbeddedStore, ProvStore
from provgraph.ui.app import UIServer

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
HOSTILE = b"Intro. <script>window.pwned=1</script><b>x</b> and <img src=x onerror=window.pwned=2> end.\n"
QUOTE = "<script>window.pwned=1</script><b>x</b>"


def record_hostile(store: ProvStore) -> dict[str, Any]:
    """One answer quoting a retained source whose bytes hold a script, markup and an
    event handler; the claim text holds markup too. Resolved, so the quote is located."""
    rec = Recorder(store, label="hostile <i>run</i>", packages=[], started_at=T0, clock=lambda: T0)
    snap = rec.snapshot(HOSTILE, uri="https://evil.example/<b>page</b>.html",
                        media_type="text/html", observed_at=T0)
    text = HOSTILE.decode()
    ext = rec.extraction(snap, parser=("raw", "1"), text=text)
    chunk = rec.chunking(ext, chunker=("whole", "1"), ranges=[(0, len(text))])[0]
    q = rec.query("What does the page say? <script>window.pwned=3</script>")
    gi = rec.context_packing(text=text, segments=[Segment(start=0, end=len(text), origin="original",
                                                          source=chunk)])
    answer = f'The page says "{QUOTE}".'
    ans = rec.generation(gi, model=("reader", "1"), text=answer)
    start = answer.index(QUOTE)
    claim = rec.claim(ans, start=start, end=start + len(QUOTE), kind="quotation")
    b0 = HOSTILE.index(QUOTE.encode())
    rec.citation(claim, target=snap, start=b0, end=b0 + len(QUOTE.encode()), unit="utf8_byte",
                 quote=QUOTE)
    resolve_run(store, str(rec.iri))
    return {"run": rec.iri, "claim": claim.iri, "snapshot": snap.iri, "byte_start": b0}


ROOT = Path(__file__).resolve().parents[1]
PDF_HOSTILE = "<script>window.pwned=1</script>"


def _example(name: str) -> Any:
    """The module examples/NAME.py (examples/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def record_migration_window(store: ProvStore) -> dict[str, Any]:
    """The migration-window case (examples/migration_window.py's ``record_case``): the
    "Four hours" citation of the header-lost (``lost``, lines-strict) and the header-kept
    (``kept``, lines) extraction."""
    (_, lost, _), (_, kept, _) = _example("migration_window").record_case(store)
    return {"lost": lost[0], "kept": kept[0]}


def record_hostile_pdf(store: ProvStore) -> dict[str, Any]:
    """The ops guide written again by fpdf2 (examples/ops_guide.py) with a migration table
    whose cells hold a script and markup; one claim cites the script cell, resolved."""
    data = _example("ops_guide").build([("Migration", "Window"), (PDF_HOSTILE, "Four hours"),
                                        ("<b>x</b>", "Eight hours")])
    rec = Recorder(store, label="hostile pdf", packages=[], started_at=T0, clock=lambda: T0)
    snap = rec.snapshot(data, uri="https://evil.example/<i>guide</i>.pdf",
                        media_type="application/pdf", observed_at=T0)
    _, tables = record_pdf(rec, snap, profile="lines")
    cell = next(c for c in tables[0].cells if c.text == PDF_HOSTILE)
    gi = rec.context_packing(text=cell.text, segments=[])
    answer = rec.generation(gi, model=("reader", "1"), text=f"It says {PDF_HOSTILE}.")
    claim = rec.claim(answer, start=8, end=8 + len(PDF_HOSTILE), kind="quotation")
    cit = rec.citation(claim, target=cell.iri, quote=PDF_HOSTILE)
    resolve_run(store, str(rec.iri))
    return {"claim": claim.iri, "citation": cit.iri}


@contextmanager
def served(store: ProvStore) -> Iterator[UIServer]:
    """The page for ``store`` on 127.0.0.1 (a free port), in a thread."""
    server = UIServer(store, ("127.0.0.1", 0))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[browser]'; .ci/run does)"
    for exe in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.exists(exe) or shutil.which(os.path.basename(exe))):
            return (f"{exe} is not installed (apt-get install chromium chromium-driver; "
                    ".ci/run does)")
    return None


def require_browser() -> None:
    """Skip (fail with CI=true) when Chromium, chromedriver or Selenium is missing."""
    reason = browser_missing()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must run the browser tests")
    pytest.skip(reason)


@contextmanager
def chromium(download_dir: Path) -> Iterator[Any]:
    """Headless Chromium under chromedriver, offline flags, a fresh profile, downloads to
    ``download_dir``. Selenium Manager is never asked (the driver's path is given)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not go online
    profile = tempfile.mkdtemp(prefix="provgraph-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium") or CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1400,1000", f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    opts.add_experimental_option("prefs", {"download.default_directory": str(download_dir),
                                           "download.prompt_for_download": False,
                                           "safebrowsing.enabled": False})
    driver_path = CHROMEDRIVER if os.path.exists(CHROMEDRIVER) else shutil.which("chromedriver")
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    try:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(download_dir)})
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def hostile_store(path: Path) -> tuple[EmbeddedStore, dict[str, Any]]:
    """A new on-disk store at ``path`` with :func:`record_hostile` recorded."""
    store = EmbeddedStore(path)
    return store, record_hostile(store)
