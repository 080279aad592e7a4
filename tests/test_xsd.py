"""XSD lexical spaces (provgraph.xsd): ill-typed literals and canonical forms."""

from __future__ import annotations

import datetime as dt

import pytest

from provgraph.terms import XSD, Literal
from provgraph.xsd import canonical, ill_typed, instant

DT = XSD + "dateTime"


@pytest.mark.parametrize("value,datatype,reason", [
    ("2026-02-30T00:00:00Z", "dateTime", "day 30 is not in 2026-02"),
    ("2023-02-29T00:00:00Z", "dateTime", "day 29 is not in 2023-02"),
    ("2024-13-01T00:00:00Z", "dateTime", "month 13 is not 01-12"),
    ("2024-01-01T25:00:00Z", "dateTime", "25:00:00 is not a time of day"),
    ("2024-01-01T24:00:01Z", "dateTime", "24:00:01 is not a time of day"),
    ("2024-01-01 00:00:00Z", "dateTime", "not of the form YYYY-MM-DDThh:mm:ss[.s][Z|±hh:mm]"),
    ("yesterday", "dateTime", "not of the form YYYY-MM-DDThh:mm:ss[.s][Z|±hh:mm]"),
    ("2024-01-01T00:00:00+15:00", "dateTime", "not of the form YYYY-MM-DDThh:mm:ss[.s][Z|±hh:mm]"),
    ("2024-01-01T00:00:00", "dateTimeStamp", "an xsd:dateTimeStamp needs a time zone"),
    ("2024-02-30", "date", "day 30 is not in 2024-02"),
    ("12:60:00", "time", "12:60:00 is not a time of day"),
    ("abc", "integer", "not an integer (digits with an optional sign)"),
    (" 5 ", "integer", "not an integer (digits with an optional sign)"),
    ("128", "byte", "128 is outside the range of xsd:byte"),
    ("-1", "nonNegativeInteger", "-1 is outside the range of xsd:nonNegativeInteger"),
    ("1.5.0", "decimal", "not a decimal number such as -1.25"),
    ("1e5", "decimal", "not a decimal number such as -1.25"),
    ("x", "double", "not a floating-point number such as 1.5E3 or INF"),
    ("yes", "boolean", "not true, false, 1 or 0"),
])
def test_ill_typed(value, datatype, reason):
    assert ill_typed(Literal(value, XSD + datatype)) == reason


@pytest.mark.parametrize("value,datatype", [
    ("2024-02-29T23:59:59.123456789-14:00", "dateTime"), ("2024-01-01T24:00:00Z", "dateTime"),
    ("-0044-03-15T12:00:00", "dateTime"), ("12024-01-01T00:00:00Z", "dateTime"),
    ("2000-02-29", "date"), ("24:00:00", "time"), ("+007", "integer"), ("127", "byte"),
    ("-.5", "decimal"), ("1.", "decimal"), ("-1.5E-3", "double"), ("+INF", "float"),
    ("NaN", "double"), ("1", "boolean"), ("anything", "string"), ("P1D", "duration"),
])
def test_well_typed(value, datatype):
    assert ill_typed(Literal(value, XSD + datatype)) is None


def test_language_strings_and_json():
    assert ill_typed(Literal("2026-02-30", None, "en")) is None
    assert ill_typed(Literal("[1, 2]", "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON")) is None
    assert ill_typed(Literal("[1, 2", "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON")).startswith(
        "not JSON")


@pytest.mark.parametrize("given,datatype,want,want_datatype", [
    # what the store writes and what the prov package reads back give one form
    ("2026-03-01T09:00:00Z", "dateTime", "2026-03-01T09:00:00Z", "dateTime"),
    ("2026-03-01T09:00:00+00:00", "dateTime", "2026-03-01T09:00:00Z", "dateTime"),
    ("2026-03-01T09:00:00-00:00", "dateTime", "2026-03-01T09:00:00Z", "dateTime"),
    ("2026-03-01T09:00:00.120000+01:00", "dateTime", "2026-03-01T09:00:00.12+01:00", "dateTime"),
    ("2026-03-01T09:00:00.000", "dateTime", "2026-03-01T09:00:00", "dateTime"),
    ("2026-03-01T09:00:00.123456789Z", "dateTime", "2026-03-01T09:00:00.123456Z", "dateTime"),
    ("2024-12-31T24:00:00+02:00", "dateTime", "2025-01-01T00:00:00+02:00", "dateTime"),
    ("2026-03-01T09:00:00Z", "dateTimeStamp", "2026-03-01T09:00:00Z", "dateTime"),
    ("+007", "int", "7", "integer"), ("-0", "integer", "0", "integer"),
    ("+1.50", "decimal", "1.5", "decimal"), ("-0.0", "decimal", "0", "decimal"),
    (".5", "decimal", "0.5", "decimal"), ("2.000", "decimal", "2", "decimal"),
    ("1", "double", "1.0", "double"), ("1.0E0", "double", "1.0", "double"),
    ("3.5", "double", "3.5", "double"), ("+INF", "double", "INF", "double"),
    ("1e400", "double", "INF", "double"), ("0", "boolean", "false", "boolean"),
    ("abc", "integer", "abc", "integer"),  # ill-typed: unchanged
    ("P1DT0H", "duration", "P1DT0H", "duration"),  # not a checked datatype: unchanged
])
def test_canonical(given, datatype, want, want_datatype):
    assert canonical(Literal(given, XSD + datatype)) == Literal(want, XSD + want_datatype)


def test_canonical_keeps_language_and_plain_strings():
    assert canonical(Literal("x", None, "en")) == Literal("x", None, "en")
    assert canonical(Literal("01")) == Literal("01")


_UTC = dt.timezone.utc


@pytest.mark.parametrize("value, want", [
    (Literal("2026-03-02T10:00:00+05:00", XSD + "dateTime"), dt.datetime(2026, 3, 2, 5, 0, tzinfo=_UTC)),
    (Literal("2026-03-02T09:00:00", XSD + "dateTime"), dt.datetime(2026, 3, 2, 9, 0, tzinfo=_UTC)),
    (Literal("2026-03-02T09:00:00.123456789Z", XSD + "dateTimeStamp"),
     dt.datetime(2026, 3, 2, 9, 0, 0, 123456, tzinfo=_UTC)),
    (Literal("2024-12-31T24:00:00Z", XSD + "dateTime"), dt.datetime(2025, 1, 1, tzinfo=_UTC)),
    (dt.datetime(2026, 3, 2, 9, 0), dt.datetime(2026, 3, 2, 9, 0, tzinfo=_UTC)),
    (Literal("2026-02-30T00:00:00Z", XSD + "dateTime"), None),  # ill-typed
    (Literal("2026-03-02T09:00:00Z"), None),  # a string, not a time
    (None, None),
])
def test_instant_is_an_aware_datetime_compared_by_instant(value, want):
    got = instant(value)
    assert got == want
    assert got is None or got.utcoffset() is not None
