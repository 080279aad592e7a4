"""Input limits for untrusted documents, and the one safe JSON loader (issue 15).

Every file entry point reads JSON through :func:`loads_json` (import detection, PROV-JSON,
JSON-LD, the JSONL event log, the RAG importers, block documents, ``verify-bundle``) and
checks XML through :func:`check_xml_depth` before a parser sees it. Before, JSON nested
100,000 deep stopped 8 of 9 entry points with a Python ``RecursionError`` traceback, and
RDF/XML nested 50,000 deep took 328 s of CPU to parse (growing about as n^2.7).

=====================  =======  ================================================================
limit                  value    why
=====================  =======  ================================================================
:data:`MAX_JSON_DEPTH`   100    arrays and objects inside each other; provgraph's own formats
                                need under 10, PROV-JSON and JSON-LD under 20; the readers
                                behind ``json`` (the ``prov`` package, JSON-LD expansion) recurse
                                per level, and 100 keeps them far from Python's stack limit
:data:`MAX_XML_DEPTH`    200    elements inside each other (PROV-XML, RDF/XML); PROV-XML needs
                                under 10; at 200 the engine parses RDF/XML in milliseconds
=====================  =======  ================================================================

The checks are linear scans that stop at the first level past the limit, so a hostile file
costs one pass over its bytes.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "MAX_XML_DEPTH", "JSONTooDeep", "LoneSurrogate", "json_depth_error",
           "lone_surrogate_error", "loads_json", "json_error_text",
           "check_xml_depth"]

MAX_JSON_DEPTH = 100
"""Deepest nesting of JSON arrays and objects provgraph reads from a file or request."""

MAX_XML_DEPTH = 200
"""Deepest nesting of XML elements provgraph reads (PROV-XML, RDF/XML)."""


class JSONTooDeep(json.JSONDecodeError):
    """JSON nested deeper than :data:`MAX_JSON_DEPTH`: a ``json.JSONDecodeError`` (so every
    reader's "not JSON" handling names it with its line and column) whose message
    states the limit."""


def json_depth_error(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> JSONTooDeep | None:
    """The error for ``text`` when its arrays and objects nest deeper than ``limit``
    (brackets inside strings do not count), else ``None``. One pass, no recursion."""
    s = text.decode("utf-8", "replace") if isinstance(text, (bytes, bytearray)) else text
    depth = 0
    in_str = esc = False
    for i, ch in enumerate(s):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return JSONTooDeep(f"nested deeper than {limit} levels (provgraph's limit for "
                                   "JSON input, provgraph.limits.MAX_JSON_DEPTH)", s, i)
        elif ch in "]}":
            depth -= 1
    return None


class LoneSurrogate(json.JSONDecodeError):
    """A JSON string with a lone UTF-16 surrogate escape (``"\\ud800"`` with no partner): valid
    JSON syntax (RFC 8259 §8.2 leaves its meaning open), but not Unicode text, so it could
    be neither stored nor written as UTF-8; refused as I-JSON (RFC 7493 §2.1) refuses it.
    A ``json.JSONDecodeError``, so every reader's "not JSON" handling names it with its
    line and column."""


def lone_surrogate_error(text: str | bytes, value: Any) -> LoneSurrogate | None:
    """The error for the first string of ``value`` (keys included; nested lists and
    dicts) holding a lone surrogate, placed at its escape in ``text``, the document
    ``value`` was parsed from (JSON, or YAML, whose ``"\\ud83c\\udf09"`` is two lone
    surrogates, not one character); ``None`` when there is none."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as exc:
                ch = v[exc.start]
                s = text.decode("utf-8", "replace") if isinstance(text, (bytes, bytearray)) else text
                pos = max(s.find(f"\\u{ord(ch):04x}"), s.find(f"\\u{ord(ch):04X}"), 0)
                return LoneSurrogate(f"a lone UTF-16 surrogate escape (\\u{ord(ch):04x}), which "
                                     "is not Unicode text", s, pos)
    return None


def json_error_text(exc: json.JSONDecodeError) -> str:
    """``exc``'s message without the trailing "at" of Python's "Unterminated string
    starting at", for a caller that follows it with its own "at line N column M"."""
    return exc.msg.removesuffix(" at")


def loads_json(text: str | bytes) -> Any:
    """``json.loads`` with the depth limit: the only way provgraph parses untrusted JSON.

    Args:
        text: JSON text (``bytes`` are decoded as ``json.loads`` decodes them).

    Returns:
        The decoded value.

    Raises:
        JSONTooDeep: nested deeper than :data:`MAX_JSON_DEPTH` (a ``json.JSONDecodeError``).
        LoneSurrogate: a string holds a lone UTF-16 surrogate escape (a
            ``json.JSONDecodeError``; issue 20: importers failed with UnicodeEncodeError).
        json.JSONDecodeError: not JSON.

    Example:
        >>> loads_json('{"a": [1, 2]}')
        {'a': [1, 2]}
        >>> loads_json("[" * 101 + "]" * 101)
        Traceback (most recent call last):
        ...
        provgraph.limits.JSONTooDeep: nested deeper than 100 levels (provgraph's limit for JSON input, provgraph.limits.MAX_JSON_DEPTH): line 1 column 101 (char 100)
    """
    err = json_depth_error(text)
    if err is not None:
        raise err
    value = json.loads(text)
    if (_SURROGATE_ESCAPE.search(text) if isinstance(text, str)
            else _SURROGATE_ESCAPE_BYTES.search(text)):
        lone = lone_surrogate_error(text, value)  # a walk, only where one may be
        if lone is not None:
            raise lone
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


_XML_TOKEN = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<[?!][^>]*>"
                        r"|<(/?)[^\s/>\"']*(?:[^>\"']|\"[^\"]*\"|'[^']*')*?(/?)>", re.S)


def check_xml_depth(data: bytes | str, limit: int = MAX_XML_DEPTH) -> str | None:
    """Why ``data`` (an XML document) cannot be read: elements nested deeper than
    ``limit``, or ``None``. One pass over the tags (comments, CDATA, processing
    instructions and declarations skipped; quoted attribute values read whole; empty
    elements do not nest); a malformed document is left to the parser.

    Example:
        >>> check_xml_depth("<a><b/><c>x</c></a>") is None
        True
        >>> check_xml_depth("<a>" * 3, limit=2)
        "XML elements nested deeper than 2 levels at line 1 (provgraph's limit for XML input, provgraph.limits.MAX_XML_DEPTH)"
    """
    s = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else data
    depth = 0
    for m in _XML_TOKEN.finditer(s):
        if m.group(1) is None:
            continue  # comment, CDATA, declaration or processing instruction
        if m.group(1):
            depth -= 1
        elif not m.group(2):
            depth += 1
            if depth > limit:
                line = s.count("\n", 0, m.start()) + 1
                return (f"XML elements nested deeper than {limit} levels at line {line} "
                        "(provgraph's limit for XML input, provgraph.limits.MAX_XML_DEPTH)")
    return None
