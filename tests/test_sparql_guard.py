"""No user SPARQL reaches the network (issue 15): the one gate,
:func:`provgraph.sparql_guard.check_untrusted`, reads the parse tree, not the text.

A TCP listener on 127.0.0.1 records every connection; each obfuscated query is given
to ``provgraph query FILE.rq``, to the library and to ``provgraph serve``'s ``/sparql``,
and the listener must see nothing. The first test shows the listener does see the
engine's request when the gate is skipped, so silence means something.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from provgraph import EmbeddedStore
from provgraph.cli import cli
from provgraph.errors import QueryRefused, QuerySyntaxError
from provgraph.queries import QueryCatalog
from provgraph.resources import data_dir
from provgraph.sparql_guard import MAX_QUERY_DEPTH, check_untrusted

from .serve_helpers import ThreadServedStore


# {u}: the listener's base URL. Each one makes the engine call out, or would if a checker
# read it differently from the engine.
OBFUSCATIONS = [
    "SELECT * WHERE {{ SERVICE <{u}sparql> {{ ?s ?p ?o }} }}",
    "select * where {{ service <{u}sparql> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SeRvIcE SiLeNt <{u}sparql> {{ ?s ?p ?o }} }}",
    # issue 15: an IRI with U+00A0 or U+3000 got past the text scan
    "SELECT * WHERE {{ ?s <http://example.org/a\u00a0b> ?o . SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?s <http://example.org/a\u3000b> ?o . SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ <http://e.org/\u00a0> ?p ?o SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    # the engine ends a comment at CR, rdflib only at LF
    "SELECT * WHERE {{ ?s ?p ?o # note\rSERVICE <{u}x> {{ ?s ?p ?o }}\n }}",
    "ASK {{ ?s ?p 1SERVICE <{u}x> {{ ?a ?b ?c }} }}",
    "SELECT * WHERE {{ ?s ?p ?o .service silent <{u}x> {{ }} }}",
    "SELECT * WHERE {{ {{ SELECT ?s WHERE {{ SERVICE <{u}x> {{ ?s ?p ?o }} }} }} }}",
    "SELECT * WHERE {{ ?s ?p ?o FILTER EXISTS {{ SERVICE <{u}x> {{ ?s ?p ?o }} }} }}",
    "SELECT * WHERE {{ ?s ?p ?o OPTIONAL {{ SERVICE <{u}x> {{ ?s ?p ?o }} }} }}",
    "SELECT * WHERE {{ {{ ?s ?p ?o }} UNION {{ SERVICE <{u}x> {{ ?s ?p ?o }} }} }}",
    "SELECT * WHERE {{ ?s ?p ?o MINUS {{ SERVICE <{u}x> {{ ?s ?p ?o }} }} }}",
    "SELECT * WHERE {{ GRAPH ?g {{ SERVICE <{u}x> {{ ?s ?p ?o }} }} }}",
    "PREFIX svc: <{u}> SELECT * WHERE {{ SERVICE svc:sparql {{ ?s ?p ?o }} }}",
    "BASE <{u}> SELECT * WHERE {{ SERVICE <sparql> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ \\u0053ERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SERVICE\t\n<{u}x>\n{{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SERVICE # a comment\n <{u}x> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?s ?p \"SERVICE\" . SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?s ?p '''a'b''' . SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?s ?p \"<\" . SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "\ufeffSELECT * WHERE {{ SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "DESCRIBE ?s WHERE {{ SERVICE <{u}x> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ {{ {{ {{ SERVICE <{u}x> {{ ?s ?p ?o }} }} }} }} }}",
    "SELECT * WHERE {{ BIND(1 AS ?x) SERVICE ?x {{ ?s ?p ?o }} VALUES ?x {{ <{u}x> }} }}",
    "LOAD <{u}data.ttl>",
    "LOAD SILENT <{u}data.ttl> INTO GRAPH <urn:g>",
    "SELECT * WHERE {{ ?s ?p ?o }} ; LOAD <{u}data.ttl>",
]
assert len(OBFUSCATIONS) >= 20


def _quiet(seen: list[bytes], before: int) -> bool:
    time.sleep(0.05)
    return len(seen) == before


def test_the_listener_sees_the_engines_request_without_the_gate(listener):
    url, seen = listener
    before = len(seen)
    store = EmbeddedStore()
    with pytest.raises(Exception):
        store.select(OBFUSCATIONS[0].format(u=url))
    time.sleep(0.3)
    assert len(seen) > before  # the engine does call out: the silence below is the gate's
    store.close()


@pytest.mark.parametrize("form", OBFUSCATIONS)
def test_no_obfuscated_service_or_load_reaches_the_network(listener, runner, tmp_path, form):
    url, seen = listener
    text = form.format(u=url)
    before = len(seen)
    with pytest.raises((QueryRefused, QuerySyntaxError)):
        check_untrusted(text, "q.rq")
    rq = tmp_path / "q.rq"
    rq.write_text("# summary: hostile\n" + text + "\n", encoding="utf-8")
    res = runner.invoke(cli, ["--memory", "query", str(rq)])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("Error: ") and "Traceback" not in res.stderr
    # a user's query directory is untrusted too
    with pytest.raises((QueryRefused, QuerySyntaxError)):
        QueryCatalog([tmp_path]).names()
    assert _quiet(seen, before)


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[ThreadServedStore]:
    s = ThreadServedStore(tmp_path_factory.mktemp("guard") / "served", allow_update=True)
    yield s
    s.close()


def _post(url: str, form: dict[str, str], token: bool = False) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if token:
        from .serve_helpers import TOKEN
        headers["Authorization"] = f"Bearer {TOKEN}"
    req = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.mark.parametrize("form", OBFUSCATIONS)
def test_serve_refuses_them_as_queries_and_as_updates(listener, served, form):
    url, seen = listener
    text = form.format(u=url)
    before = len(seen)
    status, body = _post(served.location + "/sparql", {"query": text})
    assert status in (400, 403), body
    status, body = _post(served.location + "/sparql", {"update": text}, token=True)
    assert status in (400, 403), body
    assert _quiet(seen, before)


def test_an_update_with_a_service_in_its_where_is_refused(listener, served):
    url, seen = listener
    before = len(seen)
    upd = f"INSERT {{ ?s ?p ?o }} WHERE {{ SERVICE <{url}x> {{ ?s ?p ?o }} }}"
    status, body = _post(served.location + "/sparql", {"update": upd}, token=True)
    assert status == 403 and b"SERVICE (SPARQL 1.1 Federated Query) is refused" in body
    assert _quiet(seen, before)


def test_from_and_from_named_choose_local_graphs_and_fetch_nothing(listener, runner, tmp_path):
    url, seen = listener
    before = len(seen)
    for text in (f"SELECT * FROM <{url}g> WHERE {{ ?s ?p ?o }}",
                 f"SELECT * FROM NAMED <{url}g> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}"):
        rq = tmp_path / "from.rq"
        rq.write_text("# summary: dataset clause\n" + text + "\n")
        res = runner.invoke(cli, ["--memory", "query", str(rq)])
        assert res.exit_code == 0, res.output
    time.sleep(0.3)
    assert len(seen) == before


def test_an_update_given_to_query_says_updates_are_refused(runner, tmp_path):
    rq = tmp_path / "drop.rq"
    rq.write_text("DROP ALL\n")
    res = runner.invoke(cli, ["--memory", "query", str(rq)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"Error: {rq}: this is a SPARQL Update, and updates are "
                                 "refused here")
    assert "expected CONSTRUCT" not in res.stderr


def test_deep_nesting_is_refused_before_parsing():
    text = "SELECT * WHERE " + "{" * (MAX_QUERY_DEPTH + 1) + "}" * (MAX_QUERY_DEPTH + 1)
    with pytest.raises(QueryRefused) as exc:
        check_untrusted(text, "deep.rq")
    assert exc.value.clause == "depth"
    ok = "SELECT * WHERE " + "{" * 60 + "?s ?p ?o" + "}" * 60
    started = time.perf_counter()
    check_untrusted(ok, "ok.rq")
    assert time.perf_counter() - started < 10


def test_every_bundled_query_passes_the_gate():
    for path in sorted(Path(data_dir("queries")).glob("*.rq")):
        check_untrusted(path.read_text(encoding="utf-8"), str(path))


def test_checks_from_many_threads_at_once_agree(tmp_path):
    """provgraph serve checks each request in its own thread; rdflib's parser is not
    thread-safe ("Param.postParse2() missing 1 required positional argument", every read
    through serve failed in the concurrency run)."""
    from concurrent.futures import ThreadPoolExecutor

    query = ("PREFIX pg: <https://w3id.org/provgraph/ns#> SELECT ?c (COUNT(*) AS ?n) "
             "WHERE { GRAPH ?g { ?c a pg:Claim ; pg:text ?t FILTER(STRLEN(?t) > 3) } } GROUP BY ?c")

    def check(i: int) -> str:
        try:
            check_untrusted(query, f"q{i}")
            return "ok"
        except Exception as exc:  # any failure is the defect
            return f"{type(exc).__name__}: {exc}"

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(check, range(400)))
    assert set(results) == {"ok"}, sorted(set(results))[:3]
