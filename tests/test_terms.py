"""Terms: literal construction and store round trips (property tests)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provgraph.store import EmbeddedStore
from provgraph.terms import IRI, Literal, lit

settings.register_profile("ci", derandomize=True, max_examples=200, deadline=None)
settings.load_profile("ci")

S, P = IRI("urn:x:s"), IRI("urn:x:p")
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(st.one_of(_text, st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                 st.booleans()))
def test_python_values_survive_the_store(value):
    store = EmbeddedStore()
    store.add([(S, P, lit(value), None)])
    (q,) = list(store.quads(S, P))
    back = q[2].to_python()
    assert back == value and type(back) is type(value)
    store.close()


@given(st.datetimes(timezones=st.timezones()))
def test_aware_datetimes_keep_the_instant_and_offset(value):
    if value.utcoffset() is None:
        return
    store = EmbeddedStore()
    store.add([(S, P, lit(value), None)])
    back = next(iter(store.quads(S, P)))[2].to_python()
    # PEP 495: a time in a fold never compares equal across zones, so compare instants
    assert back.timestamp() == value.timestamp() and back.utcoffset() == value.utcoffset()
    store.close()


def test_naive_datetime_and_unknown_types_are_rejected():
    with pytest.raises(ValueError, match="naive datetime"):
        lit(dt.datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="cannot make an RDF literal"):
        lit(object())


def test_json_literals_are_canonical():
    assert lit({"b": 1, "a": [1, 2]}) == lit({"a": [1, 2], "b": 1})
    assert lit({"a": 1}).to_python() == {"a": 1}
    assert Literal("x", language="en").n3() == '"x"@en'
