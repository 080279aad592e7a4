"""What the server and its client share: RDF terms as JSON, the token, the limits.

Terms travel as in SPARQL 1.1 Query Results JSON (W3C Recommendation 2013, §3.2.2):
``{"type": "uri", "value": ...}``, ``{"type": "literal", "value": ..., "datatype": ...}``
(or ``"xml:lang"``), ``{"type": "bnode", "value": ...}``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..terms import IRI, BNode, Literal, Term

ENV_TOKEN = "PROVGRAPH_TOKEN"
"""Environment variable holding the token for ingest and updates."""
ENV_TOKEN_FILE = "PROVGRAPH_TOKEN_FILE"
"""Environment variable naming a file whose first line is the token."""

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def term_to_json(term: Term) -> dict[str, str]:
    """``term`` in the SPARQL 1.1 Query Results JSON form (§3.2.2)."""
    if isinstance(term, Literal):
        out = {"type": "literal", "value": term.value}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype:
            out["datatype"] = term.datatype
        return out
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    if isinstance(term, str):  # IRI
        return {"type": "uri", "value": str(term)}
    raise TypeError(f"not an RDF term: {term!r}")


def term_from_json(obj: Any) -> Term:
    """The term written by :func:`term_to_json` (``typed-literal`` accepted as well).

    Raises:
        ValueError: ``obj`` is not a term object.
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("value"), str):
        raise ValueError(f"not an RDF term in SPARQL JSON form: {obj!r}")
    kind, value = obj.get("type"), obj["value"]
    if kind == "uri":
        return IRI(value)
    if kind == "bnode":
        return BNode(value)
    if kind in ("literal", "typed-literal"):
        if obj.get("xml:lang"):
            return Literal(value, None, obj["xml:lang"])
        dt = obj.get("datatype")
        return Literal(value, None if dt in (None, _XSD_STRING) else dt)
    raise ValueError(f"unknown term type {kind!r} in {obj!r}")


def token_from_environment(token_file: str | os.PathLike[str] | None = None) -> str | None:
    """The shared token: from ``token_file``, else ``$PROVGRAPH_TOKEN_FILE``, else
    ``$PROVGRAPH_TOKEN``; ``None`` when none is set. Never from a command line
    (it would show in the process list).

    Raises:
        StoreError: the token file cannot be read or is empty.
    """
    path = token_file or os.environ.get(ENV_TOKEN_FILE)
    if path:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise StoreError(f"token file {path}: cannot read it: {exc}") from exc
        token = lines[0].strip() if lines else ""
        if not token:
            raise StoreError(f"token file {path} is empty; write the token on its first line")
        return token
    return os.environ.get(ENV_TOKEN) or None
