"""Reading more statements than an engine's result cap (issue 13): Virtuoso caps every
result at ``ResultSetMaxRows`` and refuses an ``OFFSET`` + ``LIMIT`` over 1,000,000, so
``RemoteStore.quads`` pages by key (the string of the first free variable). Here the cap
is 200 rows, so a few thousand statements take many pages, one subject alone fills more
than a page, blank nodes and literals are keys too, and every statement must come back
exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provgraph.store import ANY_GRAPH
from provgraph.terms import IRI, BNode, Literal, Quad

from . import servers
from .conftest import _server_fixture, open_remote

pytestmark = pytest.mark.servers
CAP = 200

small_cap_virtuoso = _server_fixture(
    "virtuoso", lambda: servers.start_virtuoso(max_rows=CAP), servers.virtuoso_binary)


def _data() -> list[Quad]:
    p, q = IRI("urn:x:p"), IRI("urn:x:q")
    out: list[Quad] = []
    for i in range(700):  # many subjects, a few statements each, in two graphs
        s = IRI(f"urn:x:s{i:04d}")
        out += [(s, p, Literal(str(i)), IRI("urn:g:a")),
                (s, q, Literal(f"v{i % 7}"), IRI("urn:g:b"))]
    big = IRI("urn:x:big")  # one subject with more statements than a page
    out += [(big, p, Literal(f"n{i}"), IRI("urn:g:a")) for i in range(450)]
    out += [(big, q, Literal("é ü 😀"), None)]
    return out


@pytest.fixture
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    s = open_remote(request.getfixturevalue("small_cap_virtuoso"), tmp_path)
    s.add(_data())
    yield s
    s.close()


def test_every_statement_comes_back_once_across_pages(store: Any) -> None:
    got = list(store.quads(None, None, None, ANY_GRAPH))
    assert len(got) == len(set(got)) == len(_data())
    assert set(got) == set(_data())


def test_a_fixed_subject_pages_by_predicate_and_a_fixed_predicate_by_subject(store: Any) -> None:
    big = list(store.quads(IRI("urn:x:big"), None, None, ANY_GRAPH))
    want = [q for q in _data() if q[0] == IRI("urn:x:big")]
    assert len(big) == len(want) == len(set(big)) and set(big) == set(want)
    ps = list(store.quads(None, IRI("urn:x:p"), None, ANY_GRAPH))
    want = [q for q in _data() if q[1] == IRI("urn:x:p")]
    assert len(ps) == len(want) == len(set(ps)) and set(ps) == set(want)


def test_blank_node_subjects_page_too(store: Any) -> None:
    extra = [(BNode(f"b{i}"), IRI("urn:x:r"), Literal(str(i)), IRI("urn:g:c")) for i in range(450)]
    store.add(extra)
    got = list(store.quads(None, IRI("urn:x:r"), None, ANY_GRAPH))
    assert len(got) == 450 and sorted(int(q[2].value) for q in got) == list(range(450))
    assert len({q[0] for q in got}) == 450  # 450 distinct blank nodes, none read twice


def test_more_statements_than_the_sorted_row_limit_on_a_stock_virtuoso(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Stock Virtuoso: results capped at 10,000 rows, and an ORDER BY may not ask for more
    than 10,000 (OFFSET + LIMIT, MaxSortedTopRows): OFFSET paging failed with SR353 on
    the second page."""
    s = open_remote(request.getfixturevalue("virtuoso_server"), tmp_path)
    try:
        data = [(IRI(f"urn:x:t{i:05d}"), IRI("urn:x:p"), Literal(str(i)), IRI("urn:g:t"))
                for i in range(25_000)]
        s.bulk_add(data)
        got = list(s.quads(None, IRI("urn:x:p"), None, ANY_GRAPH))
        assert len(got) == 25_000 and set(got) == set(data)
    finally:
        s.close()
