"""Importers: turn RAG outputs teams already have into provenance, without re-running anything.

One module per format; :data:`FORMATS` names them and :func:`import_file` dispatches.
Every importer records the documents given to the model as
``pg:SourceSnapshot`` entities with retained bytes, the answer, its claims (the
cited answer spans, code points, end-exclusive) and the citations with the
unit and end convention of their ranges (see each module's docstring for the
provider's published shape and the offset semantics it documents).
:mod:`provgraph.importers._common` describes the graph written per item.

Bad input is reported per item (:class:`ItemError`: item index, JSONPath, message).
By default an import is all or nothing: if any item is invalid nothing is stored
and :class:`~provgraph.errors.ImportFailed` is raised carrying the
:class:`ImportReport`; with ``partial=True`` the valid items are stored and the
others listed in the report.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ImportFailed, RecordError, UnsupportedFormat

if TYPE_CHECKING:
    from ..store import ProvStore
    from ._common import ImportReport, ItemError

__all__ = ["FORMATS", "ImportReport", "ItemError", "detect", "import_file"]

FORMATS: dict[str, str] = {
    "anthropic": "Anthropic Messages request + response with citations "
                 "(char, page, content block, search result locations)",
    "cohere": "Cohere Chat v2 (or v1) response with citations, optionally with its request",
    "bedrock": "Amazon Bedrock RetrieveAndGenerate / Retrieve responses (VCR cassette or JSON)",
    "openai": "OpenAI Responses API response with output_text annotations",
    "vertex": "Google Vertex AI / Gemini GenerateContent response with groundingMetadata",
    "ragchecker": "RAGChecker input or output JSON (retrieved_context, response, claim triplets)",
    "alce": "ALCE prompt or result JSON (docs and answers with [n] citation markers)",
    "answer": "an answer in Markdown or text plus its source files (quotations and numbers checked)",
    "otlp": "OpenTelemetry traces as OTLP JSON Lines with OpenInference or GenAI attributes "
            "(one run per trace: retrievals, exact prompts, generations)",
}
"""Format name -> one-line description, in the order ``provgraph import --format`` lists them."""


def __getattr__(name: str) -> Any:
    """``ImportReport`` and ``ItemError``, imported on first use (PEP 562): the command line
    reads :data:`FORMATS` without loading the store and the recorder (issue 16, item 3)."""
    if name in ("ImportReport", "ItemError"):
        from . import _common

        return getattr(_common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def detect(data: bytes) -> str | None:
    """The RAG format ``data`` is recognisably in, or ``None``: what ``provgraph import
    FILE`` (``--format auto``) tries before the PROV and RDF formats
    (:func:`provgraph.io.detect`). Only formats with an unmistakable shape are
    recognised: ``otlp`` (a first line that is a JSON object with ``resourceSpans``,
    OTLP specification, JSON Protobuf Encoding).

    Example:
        >>> detect(b'{"resourceSpans": [{"scopeSpans": []}]}\\n')
        'otlp'
        >>> detect(b'document\\nendDocument') is None
        True
    """
    from . import otlp

    return "otlp" if otlp.detect(bytes(data)) else None


def import_file(store: ProvStore, fmt: str, data: bytes, name: str,
                sources: Sequence[Path] = (), partial: bool = False) -> ImportReport:
    """Import one file of RAG output into ``store`` as one run.

    Args:
        store: the target store (statements and retained originals).
        fmt: one of :data:`FORMATS`.
        data: the file's exact bytes.
        name: how the file is named (its path as given); used in messages and as
            the base of passage URIs for passages that carry no URI of their own.
        sources: for ``answer`` only: the source files or directories (searched
            recursively, hidden files skipped) the answer draws on.
        partial: store the valid items when some are invalid (they are listed in
            the report); by default any invalid item stores nothing.

    Returns:
        :class:`ImportReport` with the run IRI, statements stored, items recorded
        and the per-item errors (only with ``partial=True`` can there be any).

    Raises:
        UnsupportedFormat: ``fmt`` is not a known format.
        RecordError: ``sources`` given for a format other than ``answer``.
        ImportFailed: the payload is not of this format, an item is invalid (and
            ``partial`` is false), or no item is valid; nothing was stored.
            ``exc.report.errors`` lists every problem found.

    Example:
        >>> import json
        >>> from provgraph.store import EmbeddedStore
        >>> store = EmbeddedStore()
        >>> payload = {"results": [{"query_id": "0", "query": "Who wrote it?",
        ...     "response": "Ann wrote it.", "retrieved_context": [
        ...         {"doc_id": "d1", "text": "The book was written by Ann."}]}]}
        >>> report = import_file(store, "ragchecker", json.dumps(payload).encode(), "in.json")
        >>> report.items_ok, report.answers, report.snapshots, report.errors
        (1, 1, 1, ())
    """
    if fmt not in FORMATS:
        raise UnsupportedFormat(fmt, list(FORMATS))
    if sources and fmt != "answer":
        raise RecordError(f"sources apply only to the answer format, not {fmt!r}: the {fmt} "
                          "payload carries its own documents")
    from ._common import ImportReport, ItemError, PayloadError, record

    module = importlib.import_module(f"{__name__}.{fmt}")
    try:
        items, errors = module.parse(bytes(data), name, tuple(Path(s) for s in sources))
    except PayloadError as exc:
        report = ImportReport(format=fmt, name=name, runs=(), stored=0, items_total=0,
                              items_ok=0, errors=(ItemError(None, exc.path, exc.message),))
        raise ImportFailed(report, partial=partial) from None
    return record(store, fmt, name, bytes(data), items, errors, partial=partial,
                  generator_input=module.GENERATOR_INPUT,
                  record_item=getattr(module, "record_item", None))
