"""User-supplied query files: never any network access (SERVICE), short syntax errors."""

from __future__ import annotations

import pytest

from provgraph.cli import cli
from provgraph.errors import QueryError, QuerySyntaxError
from provgraph.queries import parse_query

HEADER = "# summary: a user query\n"


@pytest.mark.parametrize("form", ["SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
                                  "ASK {{ ?s ?p 1SERVICE <{url}> {{ ?a ?b ?c }} }}",
                                  "SELECT * WHERE {{ ?s ?p ?o .service silent <{url}> {{ }} }}"])
def test_service_in_a_query_file_is_refused_before_anything_runs(runner, tmp_path, listener,
                                                                 form):
    base, seen = listener
    before = len(seen)
    rq = tmp_path / "federated.rq"
    rq.write_text(HEADER + form.format(url=f"{base}sparql") + "\n")
    res = runner.invoke(cli, ["--memory", "query", str(rq)])
    assert res.exit_code == 2
    # issue 15: read from the parse tree (provgraph.sparql_guard); "1SERVICE" is not SPARQL
    # 1.1 for the checker, and a text it cannot read is refused, never handed to the engine
    assert res.stderr in (
        f"Error: {rq}: SERVICE (SPARQL 1.1 Federated Query) is refused: it makes the "
        "engine send requests over the network, and provgraph never lets a query do that. "
        "Query the local store only (remove the SERVICE clause), or run federated queries with "
        "a SPARQL client you trust\n",
        f"Error: SPARQL syntax error in {rq}: error at 2:14: Expected AskQuery (provgraph "
        "checks a query with the SPARQL 1.1 grammar before the engine sees it)\n")
    assert len(seen) == before  # not one connection, not even from the syntax check


@pytest.mark.parametrize("text", [
    "SELECT ?service WHERE { ?service ?p ?o }",
    "PREFIX ex: <http://example.org/> SELECT ?s WHERE { ?s ex:service ?o }",
    "SELECT ?s WHERE { ?s <http://example.org/SERVICE> ?o }",
    'SELECT ?s WHERE { ?s ?p "SERVICE <http://example.org/>" }',
    "SELECT ?s WHERE { ?s ?p ?o } # SERVICE <http://example.org/>",
    "SELECT ?s WHERE { ?s ?p _:service }",
    'SELECT ?s WHERE { ?s ?p "x"@service }',
])
def test_the_word_service_elsewhere_is_not_the_keyword(text):
    assert parse_query(HEADER + text, "q.rq", "q").name == "q"


def test_a_service_clause_after_multi_line_strings_is_refused():
    text = HEADER + 'SELECT * WHERE {\n  ?s ?p """a\nb\nc""" .\n  SERVICE <http://x.example/> { }\n}'
    with pytest.raises(QueryError, match=r"^q\.rq: SERVICE"):
        parse_query(text, "q.rq", "q")


def test_a_syntax_error_names_the_position_and_the_first_expected_tokens(runner, tmp_path):
    rq = tmp_path / "broken.rq"
    rq.write_text("SELECT ?x WHERE { ?x")
    res = runner.invoke(cli, ["--memory", "query", str(rq)])
    assert res.exit_code == 2
    # the engine lists ~470 characters of grammar here, character classes included
    # issue 15: a user's query is parsed by the checker (rdflib's SPARQL 1.1 grammar)
    # before the engine, which would evaluate it; its messages are less precise
    assert res.stderr == (f"Error: SPARQL syntax error in {rq}: error at 1:19: Expected "
                          "SelectQuery (provgraph checks a query with the SPARQL 1.1 grammar "
                          "before the engine sees it)\n")
    with pytest.raises(QuerySyntaxError) as exc:
        parse_query("SELECT * WHERE { ?s ?p ?o } LIMIT x", "l.rq", "l")
    assert exc.value.detail == ("error at 1:29: Expected end of text (provgraph checks a query "
                                "with the SPARQL 1.1 grammar before the engine sees it)")
