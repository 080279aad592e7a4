"""PROV-JSON (W3C Member Submission, https://www.w3.org/submissions/prov-json/),
read and written by the ``prov`` package.

PROV-JSON has no ``wasRevisionOf``/``wasQuotedFrom``/``hadPrimarySource`` keys:
they are ``wasDerivedFrom`` records typed ``prov:Revision``/``prov:Quotation``/
``prov:PrimarySource``, which :mod:`provgraph.io.provo` maps to the PROV-O
binary property and its qualified form.

A bundle's name is a key of the document's ``"bundle"`` object, so it is resolved
with the document's ``"prefix"`` declarations, not the bundle's own (which apply to
its content); the ``prov`` package (3.2) uses the bundle's, so its statements landed
in another named graph (issue 15, as in PROV-N: :mod:`provgraph.io.provn`).
"""

from __future__ import annotations

import json
from typing import Any

from prov.model import ProvDocument

from ._prov import ProvRead, read_with_prov, write_with_prov

__all__ = ["read", "write"]

_PREDECLARED = {"prov": "http://www.w3.org/ns/prov#", "xsd": "http://www.w3.org/2001/XMLSchema#"}


def read(data: bytes, name: str = "<input>") -> ProvRead:
    """Read a PROV-JSON document.

    Returns:
        :class:`~provgraph.io._prov.ProvRead`; its ``bundle_names`` maps the IRI the
        ``prov`` package gave a bundle to the one the document gives it.

    Raises:
        SerializationError: not JSON, or JSON the ``prov`` package rejects as
            PROV-JSON (for example a typed value without ``"$"``).
    """
    got = read_with_prov(data, "json", "PROV-JSON", name)
    if b'"bundle"' in data:
        got.bundle_names.update(_bundle_names(json.loads(data)))
    return got


def _bundle_names(doc: Any) -> dict[str, str]:
    """``{IRI with the bundle's own prefixes: IRI with the document's}`` for each bundle
    whose name uses a prefix (or ``"default"``) the bundle redeclares."""
    if not isinstance(doc, dict) or not isinstance(doc.get("bundle"), dict):
        return {}
    outer = {**_PREDECLARED, **(doc.get("prefix") or {})}
    names: dict[str, str] = {}
    for key, body in doc["bundle"].items():
        inner = body.get("prefix") if isinstance(body, dict) else None
        if not isinstance(inner, dict):
            continue
        prefix, _, local = key.partition(":") if ":" in key else ("default", "", key)
        if prefix in inner and isinstance(outer.get(prefix), str) \
                and isinstance(inner[prefix], str) and outer[prefix] != inner[prefix]:
            names[inner[prefix] + local] = outer[prefix] + local
    return names


def write(doc: ProvDocument) -> bytes:
    """PROV-JSON text of ``doc`` (UTF-8, indented)."""
    return write_with_prov(doc, "json", "PROV-JSON", indent=2)
