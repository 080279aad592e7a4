"""Helpers for the framework adapter tests (issue 14): a copy of real documentation
pages to edit, the recorded claims and citations of an answer read back through the
schema layer, and the README's user lines run around an application."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NoReturn

import pytest

from provgraph import EmbeddedStore
from provgraph.schema import citation as citation_schema
from provgraph.schema import claim as claim_schema
from provgraph.vocab import PG

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "corpus" / "Flask-2.0.3" / "docs"


def copy_pages(folder: Path, pages: list[str]) -> Path:
    """``pages`` of the Flask 2.0.3 docs copied into ``folder`` (created), which is returned."""
    folder.mkdir()
    for p in pages:
        shutil.copyfile(CORPUS / p, folder / p)
    return folder


def claims(store: EmbeddedStore, answer: str) -> list[Any]:
    """The claims of ``answer``, in answer order."""
    iris = [s for s, _, _, _ in store.quads(None, PG.answer, answer)]
    return sorted(claim_schema.load(store, iris).values(), key=lambda c: c.start)


def citations(store: EmbeddedStore, claim: str) -> list[Any]:
    """The citations of ``claim``."""
    iris = [o for _, _, o, _ in store.quads(claim, PG.citation, None)]
    return list(citation_schema.load(store, iris).values())


def run_user_lines(user_lines: list[str], app: str, names: dict[str, Any], name: str) -> dict[str, Any]:
    """Check that the user lines are the code block shown for this framework in the README
    and on its page (``docs/frameworks/<framework>.md``, from ``name`` =
    ``README-<framework>``): the first three lines, one comment line, then the rest, in
    order; then run them exactly, the first three before ``app`` (the application's code)
    and the rest after it; returns the namespace."""
    framework = name.removeprefix("README-")
    for doc in (ROOT / "README.md", ROOT / "docs" / "frameworks" / f"{framework}.md"):
        blocks = [b.split("```", 1)[0].strip("\n").split("\n")
                  for b in doc.read_text(encoding="utf-8").split("```python\n")[1:]]
        shown = [[ln for ln in b if not ln.startswith("#")] for b in blocks
                 if any(f"adapters.{framework} import" in ln for ln in b)]
        assert shown == [user_lines], (doc, shown)
    script = "\n".join(user_lines[:3]) + "\n" + app + "\n".join(user_lines[3:]) + "\n"
    ns = dict(names)
    exec(compile(script, name, "exec"), ns)
    return ns


def missing_framework(extra: str, exc: ImportError) -> NoReturn:
    """Fail in CI (``CI=true``), skip elsewhere: a framework extra is not installed."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"the {extra} extra is missing in CI ({exc}); run make test-frameworks")
    pytest.skip(f"needs the {extra} extra ({exc}): make test-frameworks")


def namespace(names: dict[str, Any]) -> SimpleNamespace:
    """``names`` (a fixture's locals: the framework's classes and the test's own) as attributes."""
    return SimpleNamespace(**names)
