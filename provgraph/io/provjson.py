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
from collections.abc import Iterator
from typing import Any

from prov.model import ProvDocument

from ..limits import loads_json
from ._prov import (LEXICAL_XSD, PARSED_TYPES, ProvRead, lexical_prefix, read_with_prov,
                    write_with_prov, written_prefix)

__all__ = ["read", "write"]

_PREDECLARED = {"prov": "http://www.w3.org/ns/prov#", "xsd": "http://www.w3.org/2001/XMLSchema#"}


def read(data: bytes, name: str = "<input>", *, times: bool = True) -> ProvRead:
    """Read a PROV-JSON document.

    ``times=False`` leaves out the lexical forms of the formal times (and their warnings):
    for a part of a document, whose forms are found over the whole of it
    (:mod:`provgraph.io.provjson_stream_read`).

    Returns:
        :class:`~provgraph.io._prov.ProvRead`; its ``bundle_names`` maps the IRI the
        ``prov`` package gave a bundle to the one the document gives it.

    Raises:
        SerializationError: not JSON, or JSON the ``prov`` package rejects as
            PROV-JSON (for example a typed value without ``"$"``).
    """
    if b'"xsd:' not in data and b'"bundle"' not in data and not any(
            k in data for k in _TIME_KEYS_BYTES):
        return read_with_prov(data, "json", "PROV-JSON", name)
    try:  # parsed once, under the depth limit, for the three fixes below
        doc = loads_json(data)
    except ValueError:
        return read_with_prov(data, "json", "PROV-JSON", name)  # it reports the error
    names = _bundle_names(doc)
    formal = list(_formal_times(doc)) if times else []
    got = read_with_prov(_keep_forms(data, doc), "json", "PROV-JSON", name)
    got.bundle_names.update(names)
    if times:
        got.add_times(formal, name)
    return got


_TIME_KEYS = ("prov:time", "prov:startTime", "prov:endTime")
"""The PROV-JSON keys of formal times (PROV-JSON §2.2)."""
_TIME_KEYS_BYTES = tuple(f'"{k}"'.encode() for k in _TIME_KEYS)


def _formal_times(doc: Any) -> Iterator[str]:
    """The lexical forms of the formal times in a parsed PROV-JSON document: the values
    of its :data:`_TIME_KEYS` (a string, or a typed value ``{"$": ...}``)."""
    for node in _dicts(doc):
        for key in _TIME_KEYS:
            value = node.get(key)
            if isinstance(value, dict):
                value = value.get("$")
            if isinstance(value, str):
                yield value


def _dicts(node: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``node``, each before the objects inside it (a caller may
    change an object's values while iterating: its children are read after)."""
    if isinstance(node, dict):
        yield node
        children: Any = list(node.values())
    elif isinstance(node, list):
        children = node
    else:
        return
    for child in children:
        yield from _dicts(child)


def _keep_forms(data: bytes, doc: Any) -> bytes:
    """``data`` (parsed: ``doc``, changed in place) with the typed values of
    :data:`~provgraph.io._prov.PARSED_TYPES` (``{"$": "1.0E0", "type": "xsd:double"}``)
    retyped in :data:`~provgraph.io._prov.LEXICAL_XSD`, so the ``prov`` package keeps
    their lexical form (issue 15); unchanged when there are none or it is not a JSON
    object."""
    if b'"xsd:' not in data or not isinstance(doc, dict):
        return data
    prefix = lexical_prefix(data.decode("utf-8", errors="replace"))
    found = False
    for node in _dicts(doc):
        kind = node.get("type")
        if "$" in node and isinstance(kind, str) and kind.startswith("xsd:") \
                and kind[4:] in PARSED_TYPES:
            node["type"] = f"{prefix}:{kind[4:]}"
            found = True
    if not found:
        return data
    for scope in (doc, *(b for b in (doc.get("bundle") or {}).values() if isinstance(b, dict))):
        if isinstance(scope.get("prefix", {}), dict):
            scope.setdefault("prefix", {})[prefix] = LEXICAL_XSD
    return json.dumps(doc).encode("utf-8")


def _bundle_names(doc: Any) -> dict[str, str]:
    """``{IRI with the bundle's own prefixes: IRI with the document's}`` for each bundle
    whose name uses a prefix (or ``"default"``) the bundle redeclares."""
    if not isinstance(doc, dict) or not isinstance(doc.get("bundle"), dict):
        return {}
    declared = doc.get("prefix")  # not an object: the reader reports it (issue 20: TypeError)
    outer = {**_PREDECLARED, **(declared if isinstance(declared, dict) else {})}
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
    """PROV-JSON text of ``doc`` (UTF-8, indented); values of
    :data:`~provgraph.io._prov.PARSED_TYPES` keep their lexical form (issue 15)."""
    data = write_with_prov(doc, "json", "PROV-JSON", indent=2)
    prefix = written_prefix(doc)
    if prefix is None:
        return data
    out = json.loads(data)  # the prov package's own output
    for node in _dicts(out):
        kind = node.get("type")
        if "$" in node and isinstance(kind, str) and kind.startswith(prefix + ":"):
            node["type"] = "xsd:" + kind[len(prefix) + 1:]
        prefixes = node.get("prefix")
        if isinstance(prefixes, dict) and prefixes.get(prefix) == LEXICAL_XSD:
            del prefixes[prefix]
            if not prefixes:
                del node["prefix"]
    return json.dumps(out, indent=2, ensure_ascii=False).encode("utf-8")
