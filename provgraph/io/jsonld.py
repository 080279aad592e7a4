"""JSON-LD input without remote contexts: PROV-JSONLD and plain JSON-LD.

Untrusted JSON-LD never triggers a fetch. pyoxigraph's JSON-LD parser (0.5.13)
has no document loader: a remote ``@context`` makes it fail with "No
LoadDocumentCallback has been set to load remote contexts" instead of fetching
(``tests/test_io_formats.py`` proves no socket is opened). Before that point
this module looks at every ``@context`` (and ``@import``) in the document:

* the PROV-JSONLD context URLs (W3C Member Submission
  https://www.w3.org/submissions/prov-jsonld/, and the dated ProvToolbox copy)
  are replaced by the copy of that context the ``prov`` package ships, and
  pyoxigraph turns the document into PROV-O (the context maps PROV-JSONLD onto
  PROV-O's qualified terms);
* the legacy ProvToolbox context ``http://openprovenance.org/prov-jsonld.json``
  (no copy of it is shipped anywhere) marks the older dialect, which the ``prov``
  package's PROV-JSONLD reader understands: it is read with that reader and
  mapped by :mod:`provgraph.io.provo`;
* any other remote context is refused with a message saying how to inline it.
"""

from __future__ import annotations

import json
from typing import Any

from prov.serializers.provjsonld import load_vendored_context

from ..limits import loads_json
from ..errors import SerializationError
from ..store import parse_rdf, serialize_quads
from ..terms import IRI, Quad
from ._prov import ProvRead, read_with_prov

__all__ = ["PROV_JSONLD_CONTEXTS", "LEGACY_CONTEXTS", "contexts_of", "read",
           "replace_prov_contexts", "write"]

PROV_JSONLD_CONTEXTS = frozenset({
    "https://openprovenance.org/prov-jsonld/context.jsonld",
    "http://openprovenance.org/prov-jsonld/context.jsonld",
    "https://openprovenance.org/prov-jsonld/context-2024-06-19.json",
    "http://openprovenance.org/prov-jsonld/context-2024-06-19.json",
})
"""Context URLs replaced by the PROV-JSONLD context bundled with the ``prov`` package."""
LEGACY_CONTEXTS = frozenset({
    "http://openprovenance.org/prov-jsonld.json",
    "https://openprovenance.org/prov-jsonld.json",
})
"""The older ProvToolbox dialect's context URLs (read with the ``prov`` package)."""


def contexts_of(doc: Any) -> list[str]:
    """Every context given by reference (a string) anywhere in a JSON-LD document,
    including ``@import`` inside context objects and type-scoped contexts."""
    found: list[str] = []

    def walk(node: Any, in_context: bool) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "@context":
                    walk_ctx(v)
                elif k == "@import" and in_context and isinstance(v, str):
                    found.append(v)
                else:
                    walk(v, in_context)
        elif isinstance(node, list):
            for v in node:
                walk(v, in_context)

    def walk_ctx(ctx: Any) -> None:
        for item in ctx if isinstance(ctx, list) else [ctx]:
            if isinstance(item, str):
                found.append(item)
            elif isinstance(item, dict):
                walk(item, True)

    walk(doc, False)
    return found


def _replace(node: Any, ctx: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "@context":
                items = v if isinstance(v, list) else [v]
                v = [ctx if isinstance(i, str) and i in PROV_JSONLD_CONTEXTS else _replace(i, ctx)
                     for i in items]
            else:
                v = _replace(v, ctx)
            out[k] = v
        return out
    if isinstance(node, list):
        return [_replace(v, ctx) for v in node]
    return node


def replace_prov_contexts(doc: Any) -> Any:
    """``doc`` (parsed JSON) with each PROV-JSONLD context URL
    (:data:`PROV_JSONLD_CONTEXTS`) in an ``@context`` replaced by the copy of that
    context the ``prov`` package ships: what pyoxigraph is given instead of a reference
    it cannot fetch.

    Example:
        >>> got = replace_prov_contexts({"@context": sorted(PROV_JSONLD_CONTEXTS)[0]})
        >>> isinstance(got["@context"][0], dict)
        True
    """
    return _replace(doc, load_vendored_context())


def read(data: bytes, name: str = "<input>", graph: IRI | None = None
         ) -> tuple[list[Quad] | None, ProvRead | None, str]:
    """Read JSON-LD without fetching anything.

    Returns:
        ``(quads, None, reader)`` for PROV-JSONLD and plain JSON-LD (parsed by
        pyoxigraph), or ``(None, prov_read, reader)`` for the legacy dialect
        (read by the ``prov`` package; the caller maps it). ``reader`` says which.

    Raises:
        SerializationError: not JSON, a remote context other than the PROV-JSONLD
            ones, or JSON-LD that does not parse.
    """
    try:
        doc = loads_json(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SerializationError(f"{name}: not JSON: {exc}; nothing was stored") from exc
    refs = contexts_of(doc)
    if any(r in LEGACY_CONTEXTS for r in refs):
        return None, read_with_prov(data, "jsonld", "PROV-JSONLD", name), (
            "PROV-JSONLD (legacy ProvToolbox dialect) read by the prov package")
    remote = sorted({r for r in refs if r not in PROV_JSONLD_CONTEXTS})
    if remote:
        raise SerializationError(
            f"{name}: JSON-LD @context {', '.join(remote)} is remote; provgraph never fetches "
            "remote contexts of untrusted input. Inline the context object in the document "
            "(the only context URLs provgraph resolves are the PROV-JSONLD ones, from a "
            "bundled copy); nothing was stored")
    reader = "JSON-LD parsed by pyoxigraph"
    if refs:
        doc = replace_prov_contexts(doc)
        reader = "PROV-JSONLD parsed by pyoxigraph with the bundled PROV-JSONLD context"
    quads = parse_rdf(json.dumps(doc).encode("utf-8"), "json-ld", graph=graph)
    return quads, None, reader


def write(quads: list[Quad]) -> bytes:
    """JSON-LD (pyoxigraph's expanded form) of ``quads``, named graphs included."""
    return serialize_quads(quads, "json-ld")
