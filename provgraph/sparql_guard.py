"""The one gate for untrusted SPARQL: nothing a user's query can say reaches the network.

Every place user SPARQL enters provgraph calls :func:`check_untrusted` before the
engine sees the text: ``provgraph query FILE.rq`` and :class:`~provgraph.queries.QueryCatalog`
for files given by path or from the user's directories, and ``provgraph serve``'s
``/sparql`` endpoint (queries, and updates when ``--allow-update``). Issue 15: the
refusal used to be a text scan, which an IRI holding U+00A0 or U+3000 before the
``SERVICE`` keyword got past; the engine then sent HTTP requests to the named endpoint.

How: the text is parsed by a real SPARQL 1.1 parser (rdflib's, a dependency), and the
parse tree, not the text, is searched for the clauses that make an engine fetch:
``SERVICE`` (a ``ServiceGraphPattern`` anywhere: subqueries, ``EXISTS``, updates'
``WHERE``) and ``LOAD``. The engine cannot be asked to parse without evaluating
(pyoxigraph 0.5.13 evaluates a query, ``SERVICE`` included, as soon as it is given
one, and has no option that disables ``SERVICE``), so a text this parser cannot read
is refused too, never handed to the engine to find out. ``FROM`` and ``FROM NAMED``
only choose among the store's own graphs in the engine (measured: no connection), so
they are allowed.

Where the two parsers could read one text differently, the checked text is made
unambiguous first: a comment ends at a carriage return for the engine and only at a
line feed for rdflib, so the checker reads every CR as LF (``# x<CR>SERVICE <...>``
was a bypass of a checker that did not). ``tests/test_sparql_guard.py`` runs more
than 20 obfuscations against a local listener and checks that no connection is made.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from .errors import QueryRefused, QuerySyntaxError

__all__ = ["check_untrusted", "MAX_QUERY_DEPTH"]

MAX_QUERY_DEPTH = 200
"""Deepest nesting of brackets (``{``, ``(``, ``[``) a checked SPARQL text may have: the
parser recurses on them, and a deeper text is refused with :class:`QueryRefused`
(clause ``"depth"``) instead of exhausting the stack."""

_FETCHING = {"ServiceGraphPattern": "SERVICE", "Load": "LOAD"}
_UPDATES = {"Load", "Clear", "Drop", "Create", "Add", "Move", "Copy", "InsertData",
            "DeleteData", "DeleteWhere", "Modify"}


def _depth(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch in "{([":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in "})]":
            depth -= 1
    return deepest


def _names(tree: Any) -> set[str]:
    """Names of every parse-tree node (rdflib ``CompValue``) under ``tree``."""
    from pyparsing import ParseResults
    from rdflib.plugins.sparql.parserutils import CompValue

    out: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            out.add(node.name)
            stack.extend(dict.values(node))
        elif isinstance(node, ParseResults):
            stack.extend(list(node))
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return out


_PARSER_LOCK = threading.Lock()
"""rdflib's SPARQL parser (pyparsing parse actions) and the recursion limit set around it
are not thread-safe: ``provgraph serve`` answers requests in threads, and concurrent
parses failed with "Param.postParse2() missing 1 required positional argument"
(tests/test_concurrency.py). One parse at a time; a parse takes milliseconds."""


def _parse(text: str, update: bool) -> Any:
    """The parse tree of ``text``, or the ``ParseException`` that stopped the parser."""
    from pyparsing import ParseException
    from rdflib.plugins.sparql.parser import parseQuery, parseUpdate

    try:
        return parseUpdate(text) if update else parseQuery(text)
    except ParseException as exc:
        return exc


def check_untrusted(text: str, source: str = "<text>", *, update: bool = False) -> None:
    """Refuse untrusted SPARQL that could make the engine reach the network or write.

    Args:
        text: the SPARQL 1.1 query (or, with ``update=True``, update) text.
        source: where it came from (a ``.rq`` path, ``"<request>"``), named in errors.
        update: the text is an update (``/sparql`` with ``--allow-update``); else a query.

    Raises:
        QueryRefused: a ``SERVICE`` clause (clause ``"SERVICE"``) or ``LOAD``
            (``"LOAD"``); an update given where a query is expected (``"update"``);
            brackets nested deeper than :data:`MAX_QUERY_DEPTH` (``"depth"``).
        QuerySyntaxError: the text does not parse as SPARQL 1.1 (the message names the
            line and column); it is not given to the engine.

    See: https://www.w3.org/TR/sparql11-federated-query/ (SERVICE),
    https://www.w3.org/TR/sparql11-update/#load (LOAD)

    Example:
        >>> check_untrusted("SELECT * WHERE { ?s ?p ?o }")
        >>> check_untrusted("SELECT * { <http://a\\u00a0b> ?p ?o SERVICE <http://x/> { } }", "q.rq")
        Traceback (most recent call last):
        ...
        provgraph.errors.QueryRefused: q.rq: SERVICE (SPARQL 1.1 Federated Query) is refused: ...
    """
    if _depth(text) > MAX_QUERY_DEPTH:
        raise QueryRefused(source, "depth", f"{source}: the SPARQL text nests brackets deeper "
                           f"than {MAX_QUERY_DEPTH} levels; provgraph refuses it unchecked. "
                           "Flatten the query")
    checked = text.replace("\r", "\n")
    with _PARSER_LOCK:
        _check_parsed(checked, source, update)


def _check_parsed(checked: str, source: str, update: bool) -> None:
    """:func:`check_untrusted` after the depth check, under :data:`_PARSER_LOCK`."""
    from pyparsing import ParseException

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        got = _parse(checked, update)
        if isinstance(got, ParseException) and not update \
                and not isinstance(_parse(checked, True), ParseException):
            raise QueryRefused(source, "update", f"{source}: this is a SPARQL Update, and updates "
                               "are refused here: 'provgraph query' and query files only read. "
                               "Record through 'provgraph record' or 'import' (or 'provgraph "
                               "serve --allow-update' with a token)")
    except RecursionError:
        raise QueryRefused(source, "depth", f"{source}: the SPARQL text is nested too deeply "
                           "to be checked; provgraph refuses it unchecked") from None
    finally:
        sys.setrecursionlimit(limit)
    if isinstance(got, ParseException):
        raise QuerySyntaxError(source, f"error at {got.lineno}:{got.col}: {got.msg} (provgraph "
                               "checks a query with the SPARQL 1.1 grammar before the engine "
                               "sees it)")
    names = _names(got)
    for node, clause in _FETCHING.items():
        if node in names:
            what = ("SERVICE (SPARQL 1.1 Federated Query)" if clause == "SERVICE"
                    else "LOAD (SPARQL 1.1 Update)")
            raise QueryRefused(source, clause, f"{source}: {what} is refused: it makes the "
                               "engine send requests over the network, and provgraph never lets "
                               f"a query do that. Query the local store only (remove the {clause} "
                               "clause), or run federated queries with a SPARQL client you trust")
    if not update and names & _UPDATES:
        raise QueryRefused(source, "update", f"{source}: this is a SPARQL Update, and updates "
                           "are refused here")
