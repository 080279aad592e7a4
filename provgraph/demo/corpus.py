"""The demo corpus: Flask documentation pages at two released versions, and the questions.

The files come unchanged from Flask's source distributions on PyPI
(``examples/corpus/SOURCES.md`` lists each file with its SHA-256; the licence is
``examples/corpus/LICENSE.rst``). They are located through
:func:`provgraph.resources.data_dir` (``corpus``), so the demo runs from a source
checkout and from an installed wheel.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..resources import data_dir
from .answerer import Question, question_from

__all__ = ["Release", "RELEASES", "PAGES", "corpus_dir", "page_bytes", "load_questions",
           "document_iri", "PAGE_TITLES"]

UTC = dt.timezone.utc


@dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    """One released version of the documentation: where its files came from and when
    the demo pretends to have fetched them (pinned, so runs are reproducible)."""

    version: str
    folder: str
    sdist: str
    sdist_sha256: str
    observed_at: dt.datetime

    @property
    def sdist_url(self) -> str:
        """The PyPI download URL of the source distribution."""
        project = self.sdist.split("-")[0]
        return f"https://files.pythonhosted.org/packages/source/{project[0]}/{project}/{self.sdist}"

    def source_uri(self, page: str) -> str:
        """Where ``page``'s bytes came from: the sdist URL and the member path."""
        return f"{self.sdist_url}#{self.folder}/{page}"


RELEASES = (
    Release(version="2.0.3", folder="Flask-2.0.3", sdist="Flask-2.0.3.tar.gz",
            sdist_sha256="e1120c228ca2f553b470df4a5fa927ab66258467526069981b3eb0a91902687d",
            observed_at=dt.datetime(2022, 3, 1, 9, 0, tzinfo=UTC)),
    Release(version="3.0.3", folder="flask-3.0.3", sdist="flask-3.0.3.tar.gz",
            sdist_sha256="ceb27b0af3823ea2737928a4d99d125a06175b8512c445cbd9a9ce200ef76842",
            observed_at=dt.datetime(2024, 4, 15, 9, 0, tzinfo=UTC)),
)
"""The two versions, oldest first."""

PAGES = ("docs/installation.rst", "docs/quickstart.rst", "docs/config.rst", "docs/server.rst",
         "docs/cli.rst", "docs/testing.rst", "docs/logging.rst", "docs/errorhandling.rst",
         "docs/templating.rst", "docs/shell.rst", "docs/security.rst", "docs/foreword.rst",
         "docs/becomingbig.rst", "CHANGES.rst")
"""Pages of the corpus, in ingestion order (paths inside the sdist)."""

PAGE_TITLES = {"CHANGES.rst": "Changes"}
"""Titles of pages whose file has none of its own: the changelog is included by
``docs/changes.rst``, whose title is "Changes"."""


def corpus_dir() -> Path:
    """The corpus folder (``examples/corpus`` or the wheel's ``provgraph/_data/corpus``).

    Raises:
        ProvgraphError: neither location exists.
    """
    return data_dir("corpus")


def page_bytes(release: Release, page: str) -> bytes | None:
    """The exact bytes of ``page`` in ``release``, or ``None`` when the release lacks it."""
    path = corpus_dir() / release.folder / page
    return path.read_bytes() if path.is_file() else None


def document_iri(page: str) -> str:
    """The version-independent document IRI of ``page`` (a ``pg:Document``)."""
    return f"urn:provgraph:demo:flask-docs:{page}"


def load_questions() -> list[Question]:
    """The demo questions from ``questions.yaml``, in file order.

    Raises:
        ValueError: an entry lacks ``id``, ``question`` or ``expect``, or ids repeat.
    """
    data = yaml.safe_load((corpus_dir() / "questions.yaml").read_text(encoding="utf-8"))
    questions = [question_from(d) for d in data["questions"]]
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError("questions.yaml: question ids repeat")
    return questions
