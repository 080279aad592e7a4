"""XSD literal values: which lexical forms are well-typed, and one canonical form per value.

RDF 1.1 Concepts §3.3 calls a literal whose lexical form is not in the lexical
space of its datatype *ill-typed*. Stores accept such literals (pyoxigraph
keeps them verbatim), but they break every consumer that needs the value: the
``prov`` package cannot hold ``"2026-02-30T00:00:00Z"^^xsd:dateTime`` as a PROV
time, SPARQL comparisons on it raise errors. :func:`ill_typed` tells why a
literal is ill-typed (``provgraph validate`` reports it with the statement).

:func:`canonical` maps a well-typed literal to one lexical form per value, the
form the claim-bundle digest (:mod:`provgraph.io.bundle`) is computed over, so a
bundle has one digest whatever syntax it is written in: PROV-JSON, PROV-N and
PROV-XML are read through the ``prov`` package, which holds values as Python
objects (``Z`` reads back as ``+00:00``, ``1.0E0`` as ``1.0``), while the RDF
syntaxes keep the lexical form. The canonical forms:

* ``xsd:dateTime`` (and ``xsd:dateTimeStamp``, which becomes ``xsd:dateTime`` as in
  pyoxigraph): ``YYYY-MM-DDThh:mm:ss[.f]`` plus the zone as written, except
  that a zero offset is ``Z``; the fraction is cut to microseconds (the finest
  unit a Python ``datetime``, hence the ``prov`` package, holds) without trailing
  zeros; ``24:00:00`` is midnight of the next day.
* the integer types: the decimal digits without sign ``+`` or leading zeros,
  datatype ``xsd:integer`` (pyoxigraph stores every derived integer type as
  ``xsd:integer``);
* ``xsd:decimal``: no ``+``, no leading or trailing zeros, at least one digit
  before the point, no point for integral values;
* ``xsd:double``/``xsd:float``: Python's ``repr`` of the value, ``INF``, ``-INF``
  or ``NaN``;
* ``xsd:boolean``: ``true`` or ``false``.

Every other literal, and every ill-typed one, is its own canonical form.
XML Schema 1.1 Part 2 (https://www.w3.org/TR/xmlschema11-2/) defines the
lexical spaces checked here.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from .terms import RDF_JSON, XSD, Literal, zoneless_as_utc

__all__ = ["ill_typed", "canonical", "instant", "CHECKED_DATATYPES"]

_ZONE = r"(?P<zone>Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))?"
_DATE = r"(?P<year>-?(?:[1-9]\d{3,}|0\d{3}))-(?P<month>\d\d)-(?P<day>\d\d)"
_TIME = r"(?P<hour>\d\d):(?P<minute>\d\d):(?P<second>\d\d)(?:\.(?P<frac>\d+))?"
_DATETIME = re.compile(_DATE + "T" + _TIME + _ZONE)
_DATE_ONLY = re.compile(_DATE + _ZONE)
_TIME_ONLY = re.compile(_TIME + _ZONE)
_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_DOUBLE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?INF|NaN")

_INTEGER_RANGES: dict[str, tuple[int | None, int | None]] = {
    "integer": (None, None), "nonNegativeInteger": (0, None), "positiveInteger": (1, None),
    "nonPositiveInteger": (None, 0), "negativeInteger": (None, -1),
    "long": (-2**63, 2**63 - 1), "int": (-2**31, 2**31 - 1), "short": (-2**15, 2**15 - 1),
    "byte": (-2**7, 2**7 - 1), "unsignedLong": (0, 2**64 - 1), "unsignedInt": (0, 2**32 - 1),
    "unsignedShort": (0, 2**16 - 1), "unsignedByte": (0, 2**8 - 1),
}
CHECKED_DATATYPES = frozenset(
    [XSD + t for t in _INTEGER_RANGES]
    + [XSD + t for t in ("dateTime", "dateTimeStamp", "date", "time", "decimal", "double",
                         "float", "boolean")] + [RDF_JSON])
"""Datatypes whose lexical space :func:`ill_typed` checks; other literals are never ill-typed."""


def _days_in(year: int, month: int) -> int:
    if month == 2:  # proleptic Gregorian with a year 0 (XSD 1.1 §D.2.1)
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _date_error(m: re.Match[str]) -> str | None:
    year, month, day = int(m["year"]), int(m["month"]), int(m["day"])
    if not 1 <= month <= 12:
        return f"month {m['month']} is not 01-12"
    if not 1 <= day <= _days_in(year, month):
        return f"day {m['day']} is not in {m['year']}-{m['month']}"
    return None


def _time_error(m: re.Match[str]) -> str | None:
    hour, minute, second = int(m["hour"]), int(m["minute"]), int(m["second"])
    if hour == 24 and minute == 0 and second == 0 and not (m["frac"] or "0").strip("0"):
        return None
    if hour > 23 or minute > 59 or second > 59:
        return f"{m['hour']}:{m['minute']}:{m['second']} is not a time of day"
    return None


def ill_typed(literal: Literal) -> str | None:
    """Why ``literal`` is ill-typed, or ``None`` when it is well-typed or of a datatype
    not in :data:`CHECKED_DATATYPES`.

    Returns:
        A short reason, e.g. ``"day 30 is not in 2026-02"``; the caller names the literal.

    Example:
        >>> ill_typed(Literal("2026-02-30T00:00:00Z", XSD + "dateTime"))
        'day 30 is not in 2026-02'
        >>> ill_typed(Literal("abc", XSD + "integer")) is None
        False
        >>> ill_typed(Literal("2024-02-29T23:59:59.5+01:00", XSD + "dateTime")) is None
        True
    """
    dt = literal.datatype
    if literal.language or dt not in CHECKED_DATATYPES:
        return None
    v = literal.value
    local = dt[len(XSD):] if dt.startswith(XSD) else ""
    if local in ("dateTime", "dateTimeStamp"):
        m = _DATETIME.fullmatch(v)
        if m is None:
            return "not of the form YYYY-MM-DDThh:mm:ss[.s][Z|±hh:mm]"
        if local == "dateTimeStamp" and not m["zone"]:
            return "an xsd:dateTimeStamp needs a time zone"
        return _date_error(m) or _time_error(m)
    if local == "date":
        m = _DATE_ONLY.fullmatch(v)
        return "not of the form YYYY-MM-DD[Z|±hh:mm]" if m is None else _date_error(m)
    if local == "time":
        m = _TIME_ONLY.fullmatch(v)
        return "not of the form hh:mm:ss[.s][Z|±hh:mm]" if m is None else _time_error(m)
    if local in _INTEGER_RANGES:
        if not _INTEGER.fullmatch(v):
            return "not an integer (digits with an optional sign)"
        low, high = _INTEGER_RANGES[local]
        n = int(v)
        if (low is not None and n < low) or (high is not None and n > high):
            return f"{n} is outside the range of xsd:{local}"
        return None
    if local == "decimal":
        return None if _DECIMAL.fullmatch(v) else "not a decimal number such as -1.25"
    if local in ("double", "float"):
        return None if _DOUBLE.fullmatch(v) else "not a floating-point number such as 1.5E3 or INF"
    if local == "boolean":
        return None if v in ("true", "false", "1", "0") else "not true, false, 1 or 0"
    try:  # rdf:JSON
        json.loads(v)
    except ValueError as exc:
        return f"not JSON ({exc})"
    return None


def canonical(literal: Literal) -> Literal:
    """The canonical form of ``literal``'s value (module docstring); ill-typed
    literals and other datatypes are returned unchanged.

    Example:
        >>> canonical(Literal("2026-03-01T09:00:00.120000+00:00", XSD + "dateTime")).value
        '2026-03-01T09:00:00.12Z'
        >>> canonical(Literal("1.0E0", XSD + "double")).value
        '1.0'
    """
    dt = literal.datatype
    # rdf:JSON is its own canonical form whether or not it parses: no json.loads for it
    # (a run export's digest met every rdf:JSON literal here; issue 16, item 7)
    if literal.language or dt not in CHECKED_DATATYPES or dt == RDF_JSON or \
            ill_typed(literal) is not None:
        return literal
    v = literal.value
    local = dt[len(XSD):] if dt.startswith(XSD) else ""
    if local in ("dateTime", "dateTimeStamp"):
        return Literal(_canonical_datetime(v), XSD + "dateTime")
    if local in _INTEGER_RANGES:
        return Literal(str(int(v)), XSD + "integer")
    if local == "decimal":
        try:
            text = format(Decimal(v), "f")
        except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
            return literal
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return Literal("0" if text in ("-0", "") else text, dt)
    if local in ("double", "float"):
        x = float(v.replace("INF", "inf"))
        text = "NaN" if x != x else "INF" if x == float("inf") else "-INF" if x == float("-inf") \
            else repr(x)
        return Literal(text, dt)
    if local == "boolean":
        return Literal("true" if v in ("true", "1") else "false", dt)
    return literal


def _canonical_datetime(v: str) -> str:
    m = _DATETIME.fullmatch(v)
    assert m is not None
    frac = (m["frac"] or "")[:6].rstrip("0")
    zone = m["zone"] or ""
    if zone in ("+00:00", "-00:00"):
        zone = "Z"
    date = f"{m['year']}-{m['month']}-{m['day']}"
    if m["hour"] == "24":
        try:
            nxt = _dt.date(int(m["year"]), int(m["month"]), int(m["day"])) + _dt.timedelta(days=1)
        except (ValueError, OverflowError):
            return v  # a year Python's calendar cannot hold: keep the form as given
        return f"{nxt.isoformat()}T00:00:00{zone}"
    return f"{date}T{m['hour']}:{m['minute']}:{m['second']}" + (f".{frac}" if frac else "") + zone


def instant(value: Any) -> _dt.datetime | None:
    """The instant an ``xsd:dateTime`` names, as a timezone-aware ``datetime``: the one
    way provgraph orders recorded times (issue 12: as strings, ``10:00+05:00`` came
    after ``09:00Z``, four hours later).

    Args:
        value: an ``xsd:dateTime`` or ``xsd:dateTimeStamp`` :class:`Literal`, or a
            ``datetime`` (what :meth:`Literal.to_python` gives for one); ``None``
            and anything else give ``None``.

    Returns:
        An aware ``datetime`` (fraction cut to microseconds; ``24:00:00`` is midnight
        of the next day), comparable with any other; a time without a zone is read
        as UTC (XML Schema 1.1 Part 2 leaves it implicit; SPARQL cannot order it
        against zoned times within 14 hours). ``None`` for an ill-typed literal, a
        year Python cannot hold, or a value that is not a time.

    See: https://www.w3.org/TR/xmlschema11-2/#dateTime (order: §3.3.7.4, "Order relation on dateTime")

    Example:
        >>> later = instant(Literal("2026-03-02T09:00:00Z", XSD + "dateTime"))
        >>> earlier = instant(Literal("2026-03-02T10:00:00+05:00", XSD + "dateTime"))
        >>> earlier < later, later.isoformat()
        (True, '2026-03-02T09:00:00+00:00')
        >>> instant(Literal("2026-03-02T09:00:00", XSD + "dateTime")).tzinfo
        datetime.timezone.utc
    """
    if isinstance(value, _dt.datetime):
        when = value
    elif (isinstance(value, Literal) and value.datatype in (XSD + "dateTime", XSD + "dateTimeStamp")
          and ill_typed(value) is None):
        try:
            when = _dt.datetime.fromisoformat(canonical(value).value.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return zoneless_as_utc(when)
