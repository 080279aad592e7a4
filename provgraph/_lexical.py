"""Literal fidelity at the store boundary (issue 15): which literals the embedded engine
would change, and the reversible encoding :mod:`provgraph.store` stores them in.

pyoxigraph 0.5.13 keeps the *value* of XSD literals, not their form: it stores
``"7"^^xsd:int`` as ``"7"^^xsd:integer``, ``"2.0"^^xsd:decimal`` as ``"2"``,
``"…T10:00:00+00:00"`` as ``"…T10:00:00Z"`` (oxigraph issue #526). PROV distinguishes
these values, so the store layer writes a literal the engine would change as a literal
of a provgraph-private datatype, ``<urn:provgraph:lexical:`` + its datatype IRI ``>``,
with its lexical form untouched (the engine keeps literals of unknown datatypes
verbatim), and turns it back on every read (:func:`decode`). Literals the engine keeps
as they are (:func:`engine_keeps`: every plain and language-tagged string, every
datatype the engine does not interpret, and the canonical forms of those it does) are
stored natively, so SPARQL compares them by value as before.

The rule is conservative: a literal is stored natively only when its form is known to
be one the engine keeps (``tests/test_store_literals.py`` checks that against the engine
for every XSD datatype PROV uses); anything else is encoded, which is always exact.

Trade-off: an encoded literal is opaque to SPARQL value semantics. ``FILTER(?n > 5)``,
``ORDER BY``, ``SUM`` and ``=`` against a typed constant do not see
``"7"^^xsd:int`` or ``"2.0"^^xsd:decimal`` as numbers, and ``DATATYPE()`` answers the
private IRI; pattern reads and query results through :class:`~provgraph.store.ProvStore`
decode it. provgraph's own named queries compare no typed values in SPARQL (times are
ordered in Python, :func:`provgraph.xsd.instant`), and what provgraph records is written
in canonical form (:func:`provgraph.terms.lit`), so it is stored natively.
"""

from __future__ import annotations

import datetime as _dt
import re
import struct
from decimal import Decimal, InvalidOperation

__all__ = ["LEXICAL", "engine_keeps", "encode_datatype", "decode_datatype", "double_form",
           "float_form", "datetime_form"]

LEXICAL = "urn:provgraph:lexical:"
"""Prefix of the private datatypes: ``urn:provgraph:lexical:`` + the literal's datatype."""

_X = "http://www.w3.org/2001/XMLSchema#"
_INTEGER = re.compile(r"-?[1-9][0-9]*|0")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?")
_DOUBLE_SYNTAX = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DATETIME = re.compile(
    r"-?(?:[1-9][0-9]{4,}|[0-9]{4})-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*[1-9])?(?:Z|[+-](?!00:00)[0-9]{2}:[0-9]{2})?")
_SPECIAL = frozenset({"INF", "-INF", "NaN"})

ALWAYS_CHANGED = frozenset(_X + t for t in (
    # the engine stores every derived integer type as xsd:integer
    "int", "long", "short", "byte", "unsignedInt", "unsignedLong", "unsignedShort",
    "unsignedByte", "nonNegativeInteger", "positiveInteger", "nonPositiveInteger",
    "negativeInteger",
    # ... xsd:dateTimeStamp as xsd:dateTime
    "dateTimeStamp",
    # and these by value, in forms provgraph does not model: always encoded
    "date", "time", "duration", "dayTimeDuration", "yearMonthDuration", "gYear",
    "gYearMonth", "gMonth", "gDay", "gMonthDay"))
"""Datatypes whose literals are always encoded (the engine changes the datatype, or
provgraph does not model their canonical forms)."""


def double_form(x: float) -> str:
    """The engine's (and :func:`provgraph.terms.lit`'s) form of an ``xsd:double``: the
    shortest decimal that reads back as ``x``, positional (``1``, ``0.5``, ``0.0000001``,
    ``-0``), or ``INF``/``-INF``/``NaN``.

    Example:
        >>> double_form(1.0), double_form(1e-7), double_form(1.5e3)
        ('1', '0.0000001', '1500')
    """
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "INF" if x > 0 else "-INF"
    return _positional(repr(x))


def datetime_form(value: _dt.datetime) -> str:
    """The engine's form of an ``xsd:dateTime`` holding a Python ``datetime``: ISO 8601,
    ``Z`` for a zero offset, the fraction without trailing zeros; a naive ``datetime``
    gets no zone.

    Example:
        >>> datetime_form(_dt.datetime(2026, 3, 1, 9, 0, 0, 120000, tzinfo=_dt.timezone.utc))
        '2026-03-01T09:00:00.12Z'
    """
    text = value.isoformat()
    if "." in text[19:]:
        head, _, rest = text.partition(".")
        digits = rest[:6].rstrip("0")
        text = head + ("." + digits if digits else "") + rest[6:]
    if text.endswith(("+00:00", "-00:00")):
        text = text[:-6] + "Z"
    return text


def float_form(x: float) -> str | None:
    """The engine's form of an ``xsd:float`` holding ``x`` (a 32-bit float: the shortest
    decimal that reads back as the same 32-bit value, positional), or ``None`` when ``x``
    does not fit in 32 bits."""
    try:
        x32 = struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return None
    if x32 != x32 or x32 in (float("inf"), float("-inf")):
        return double_form(x32)
    for digits in range(1, 10):
        text = f"{x32:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == x32:
            return _positional(text)
    return _positional(repr(x32))  # pragma: no cover - 9 digits always round-trip


def _positional(text: str) -> str:
    out = format(Decimal(text), "f")
    if "." in out:
        out = out.rstrip("0").rstrip(".")
    return out


def engine_keeps(value: str, datatype: str | None) -> bool:
    """Whether the engine stores the literal ``value^^datatype`` exactly as given.

    ``datatype=None`` is ``xsd:string`` (or a language-tagged string, whose tag the
    engine writes in lower case: RDF 1.1 Concepts §3.3 makes tags case-insensitive).

    Example:
        >>> engine_keeps("7", _X + "integer"), engine_keeps("7", _X + "int")
        (True, False)
        >>> engine_keeps("2.0", _X + "decimal"), engine_keeps("2", _X + "decimal")
        (False, True)
        >>> engine_keeps("2024-01-01T10:00:00+00:00", _X + "dateTime")
        False
    """
    if datatype is None or not datatype.startswith((_X, LEXICAL)):
        return True
    if datatype in ALWAYS_CHANGED or datatype.startswith(LEXICAL):
        return False
    local = datatype[len(_X):]
    if local == "integer":
        return _INTEGER.fullmatch(value) is not None
    if local == "decimal":
        return _DECIMAL.fullmatch(value) is not None and value != "-0"
    if local == "boolean":
        return value in ("true", "false")
    if local == "dateTime":
        return _DATETIME.fullmatch(value) is not None
    if local in ("double", "float"):
        if value in _SPECIAL:
            return True
        if _DOUBLE_SYNTAX.fullmatch(value) is None:
            return False
        try:
            x = float(value)
        except (ValueError, InvalidOperation):  # pragma: no cover - the pattern admits floats
            return False
        return value == (double_form(x) if local == "double" else float_form(x))
    return True  # a datatype the engine keeps verbatim (xsd:anyURI, xsd:QName, ...)


def encode_datatype(datatype: str) -> str:
    """The private datatype a literal of ``datatype`` is stored with."""
    return LEXICAL + datatype


def decode_datatype(datatype: str) -> str:
    """The datatype a stored literal stands for: ``datatype`` without one
    :data:`LEXICAL` prefix, or as it is."""
    return datatype[len(LEXICAL):] if datatype.startswith(LEXICAL) else datatype
