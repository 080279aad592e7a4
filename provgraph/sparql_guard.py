"""The one gate for untrusted SPARQL: nothing a user's query can say reaches the network.
Also the one place provgraph reads SPARQL text with rdflib's parser: :func:`read_update`
tells the store what a SPARQL 1.1 Update request writes (issue 15, literal fidelity).

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
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import QueryRefused, QuerySyntaxError
from .terms import IRI, BNode, Literal, Quad, Term

__all__ = ["check_untrusted", "MAX_QUERY_DEPTH", "UpdateRequest", "read_update"]

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


def _negative_decimal(exc: TypeError) -> str:
    """The message for rdflib's ``TypeError`` on a bare negative decimal (``-1.50``): its
    parser negates the literal's value, which ``Literal.__neg__`` does not support for
    ``xsd:decimal`` (RDFLib/rdflib issue 2962)."""
    import re

    number = re.search(r"Literal\('([0-9.]+)'", str(exc))
    shown = f"-{number.group(1)}" if number else "-1.50"
    return (f"rdflib's SPARQL parser, which provgraph reads SPARQL with before the engine "
            f"does, cannot read the bare negative decimal {shown} (RDFLib/rdflib issue 2962): "
            f'write it quoted, as "{shown}"^^xsd:decimal')


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
    except TypeError as exc:  # rdflib's parser fails on a bare negative decimal
        raise QuerySyntaxError(source, _negative_decimal(exc)) from exc
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


# ---------------------------------------------------------------------------
# what an update writes (issue 15: literal fidelity of SPARQL Update text)

@dataclass(frozen=True)
class UpdateRequest:
    """A SPARQL 1.1 Update request as rdflib's parser reads it, with every literal in the
    lexical form the text gives it (SPARQL 1.1 Update §3).

    Attributes:
        data: ``("INSERT" | "DELETE", quads)`` for each operation, in order, when every
            operation is ``INSERT DATA`` or ``DELETE DATA`` (§3.1.1, §3.1.2); ``None``
            when another kind of operation is in the request.
        written: ``(operation, literal)`` for each literal a data operation or a
            ``DELETE``/``INSERT`` template (§3.1.3, ``DELETE WHERE`` included) writes or
            deletes, in order; ``operation`` is the SPARQL keyword phrase
            (``"INSERT DATA"``, ``"INSERT template"``, ``"DELETE WHERE"``, ...).
    """

    data: list[tuple[str, list[Quad]]] | None
    written: list[tuple[str, Literal]] = field(default_factory=list)


def read_update(text: str, source: str = "<text>") -> UpdateRequest:
    """Read a SPARQL 1.1 Update request with rdflib's parser (SPARQL 1.1 Update §3),
    keeping each literal's lexical form (rdflib would put ``"007"^^xsd:int`` in its
    canonical form ``"7"``: its literal normalization is off while this parses).

    Every quoted literal (``"1.50"^^xsd:decimal``) and every unsigned bare number
    (``007``, ``1.0E0``) keeps its form. rdflib reads a bare number with a sign by its
    value (``-07`` as ``"-7"``, ``-1.0E0`` as ``"-1.0"``, ``+1.50`` as ``"1.50"``) and
    cannot read a bare negative decimal (``-1.50``) at all: write those quoted.

    Args:
        text: the update request.
        source: where it came from, named in errors.

    Returns:
        :class:`UpdateRequest`: the data of ``INSERT DATA``/``DELETE DATA`` operations as
        quads (graph ``None``: the default graph), and every literal the request writes.

    Raises:
        QuerySyntaxError: the text does not parse as SPARQL 1.1 Update (line and column
            named), or names an undeclared prefix.
        QueryRefused: brackets nested deeper than :data:`MAX_QUERY_DEPTH`.

    Example:
        >>> r = read_update('INSERT DATA { <urn:s> <urn:p> "007"^^<http://www.w3.org/2001/XMLSchema#int> }')
        >>> r.data[0][0], r.data[0][1][0][2].value
        ('INSERT', '007')
    """
    if _depth(text) > MAX_QUERY_DEPTH:
        raise QueryRefused(source, "depth", f"{source}: the SPARQL text nests brackets deeper "
                           f"than {MAX_QUERY_DEPTH} levels; provgraph refuses it unchecked. "
                           "Flatten the update")
    with _PARSER_LOCK:
        operations = _translated_update(text.replace("\r", "\n"), source)
    data: list[tuple[str, list[Quad]]] | None = []
    written: list[tuple[str, Literal]] = []
    for op in operations:
        if op.name in ("InsertData", "DeleteData"):
            kind = "INSERT" if op.name == "InsertData" else "DELETE"
            quads = list(_clause_quads(op))
            if data is not None:
                data.append((kind, quads))
            written += [(f"{kind} DATA", q[2]) for q in quads if isinstance(q[2], Literal)]
            continue
        data = None
        if op.name == "Modify":
            for key, what in (("delete", "DELETE template"), ("insert", "INSERT template")):
                clause = dict.get(op, key)
                if clause is not None:
                    written += [(what, q[2]) for q in _clause_quads(clause)
                                if isinstance(q[2], Literal)]
        elif op.name == "DeleteWhere":
            written += [("DELETE WHERE", q[2]) for q in _clause_quads(op)
                        if isinstance(q[2], Literal)]
    return UpdateRequest(data, written)


def _translated_update(checked: str, source: str) -> Any:
    """rdflib's algebra of the update (its operations), under :data:`_PARSER_LOCK`."""
    import rdflib
    from pyparsing import ParseException
    from rdflib.plugins.sparql.algebra import translateUpdate
    from rdflib.plugins.sparql.parser import parseUpdate

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    normalize = rdflib.NORMALIZE_LITERALS
    # rdflib builds its literals while it parses, in canonical form unless this is off;
    # the lock serializes provgraph's parses (another thread building rdflib literals
    # meanwhile would keep its lexical forms too)
    rdflib.NORMALIZE_LITERALS = False
    try:
        return translateUpdate(parseUpdate(checked)).algebra
    except ParseException as exc:
        raise QuerySyntaxError(source, f"error at {exc.lineno}:{exc.col}: {exc.msg}") from None
    except RecursionError:
        raise QueryRefused(source, "depth", f"{source}: the SPARQL text is nested too deeply "
                           "to be read; provgraph refuses it") from None
    except TypeError as exc:  # a bare negative decimal: rdflib negates its value and fails
        raise QuerySyntaxError(source, _negative_decimal(exc)) from exc
    except Exception as exc:  # rdflib raises plain Exception for an undeclared prefix
        raise QuerySyntaxError(source, str(exc)) from exc
    finally:
        rdflib.NORMALIZE_LITERALS = normalize
        sys.setrecursionlimit(limit)


def _clause_quads(clause: Any) -> Iterator[Quad]:
    """The quads of an rdflib quad-data clause: its ``triples`` (default graph) and its
    ``quads`` (graph -> triples); a variable stays an rdflib ``Variable``."""
    for s, p, o in dict.get(clause, "triples") or ():
        yield (_term(s), _term(p), _term(o), None)  # type: ignore[misc]
    for g, triples in (dict.get(clause, "quads") or {}).items():
        for s, p, o in triples:
            yield (_term(s), _term(p), _term(o), _term(g))  # type: ignore[misc]


def _term(node: Any) -> Term | Any:
    """An rdflib term as a :mod:`provgraph.terms` term (a variable as it is)."""
    from ._rdflib_terms import from_rdflib

    return from_rdflib(node)
