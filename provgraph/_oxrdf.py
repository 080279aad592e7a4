"""Term conversion and RDF syntax I/O over pyoxigraph: the store layer's bridge between
:mod:`provgraph.terms` and the engine's terms, parsers, serializers and canonicalization.

It owns converting terms both ways (``_to_ox``, ``_from_ox``, query results as SPARQL TSV or
solutions), reading and writing the syntaxes of :data:`RDF_FORMATS` (:func:`parse_rdf`,
:func:`iter_rdf`, :func:`graph_names`, :func:`serialize_quads`), canonical N-Quads (:func:`canonical_nquads`,
:func:`rdfc_canonical_nquads`), terms written into SPARQL text (:func:`sparql_term`,
:func:`sparql_quads`), the engine's query syntax and IRI checks (:func:`check_query_syntax`,
:func:`iri_error`), and the translation of the engine's errors into the provgraph tree
(``_map_errors``). Callers import these names from :mod:`provgraph.store`.

Literals: every literal reads back with its datatype and lexical form as written
(issue 15). The engine alone would keep XSD literals by value in canonical form
(``"7"^^xsd:int`` as ``"7"^^xsd:integer``, ``"1.50"^^xsd:decimal`` as ``"1.5"``, ``+00:00``
as ``Z``), so a literal it would change is stored as a literal of a provgraph-private
datatype and decoded on every read (:mod:`provgraph._lexical`, with the trade-off:
SPARQL does not compare such a literal by value). Language tags read back in lower
case (RDF 1.1 §3.3: tags are case-insensitive). The encoding is here (``_to_store``,
``_quad_to_store``, ``_stored_parsed``, ``_encoded_lines``; read back by ``_from_ox`` and
``_decode_lexical_text``); :class:`provgraph.embedded.EmbeddedStore` applies it on every
write, :meth:`~provgraph.embedded.EmbeddedStore.bulk_load` included, and to
``INSERT DATA``/``DELETE DATA`` in :meth:`~provgraph.embedded.EmbeddedStore.update` (which
refuses templates that would write a literal the engine changes).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any, BinaryIO

import pyoxigraph as ox

from .errors import QueryError, QuerySyntaxError, SerializationError, StoreError, UnsupportedFormat
from ._bulk_windows import line_spans
from ._sparql_messages import short_syntax_message
from .terms import IRI, BNode, Literal, Quad, Term
from ._lexical import LEXICAL, encode_datatype, engine_keeps

__all__ = ["RDF_FORMATS", "DATASET_FORMATS", "parse_rdf", "iter_rdf", "graph_names", "serialize_quads",
           "canonical_nquads", "rdfc_canonical_nquads", "engine_form", "sparql_term",
           "sparql_quads", "check_query_syntax", "iri_error"]

RDF_FORMATS: dict[str, Any] = {
    "turtle": ox.RdfFormat.TURTLE,
    "trig": ox.RdfFormat.TRIG,
    "nquads": ox.RdfFormat.N_QUADS,
    "ntriples": ox.RdfFormat.N_TRIPLES,
    "json-ld": ox.RdfFormat.JSON_LD,
    "rdf-xml": ox.RdfFormat.RDF_XML,
}
"""RDF syntaxes the store reads and writes natively, by provgraph format name."""

DATASET_FORMATS = frozenset({"trig", "nquads", "json-ld"})


# ---------------------------------------------------------------------------
# term conversion (the only place pyoxigraph terms appear)


@lru_cache(maxsize=65536)
def _named(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def _to_ox(term: Term) -> Any:
    if isinstance(term, IRI):
        return _named(term)
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(term.value, language=term.language)
        if term.datatype:
            return ox.Literal(term.value, datatype=_named(term.datatype))
        return ox.Literal(term.value)
    if isinstance(term, BNode):
        label = str(term)
        if ":" in label:
            # N-Triples allows it (PN_CHARS_U), the engine takes it, and its N-Quads parser
            # refuses it: the statement could not be read back from the ledger or an export
            raise ValueError(f"blank node label {label!r} holds ':', which pyoxigraph "
                             "writes but cannot read back as N-Quads; give a label without ':'")
        return ox.BlankNode(label)
    if isinstance(term, str):
        return _named(term)
    raise TypeError(f"not an RDF term: {term!r}")


def _to_store(term: Term) -> Any:
    """``term`` as the store holds it: :func:`_to_ox`, except that a literal the engine
    would change is encoded (:mod:`provgraph._lexical`). Every path that writes to the
    store or matches stored terms goes through it; serializing, parsing and query
    bindings (compared by value) do not."""
    if type(term) is Literal and term.datatype and not term.language \
            and not engine_keeps(term.value, term.datatype):
        return ox.Literal(term.value, datatype=_named(encode_datatype(term.datatype)))
    return _to_ox(term)


def engine_form(literal: Literal) -> Literal:
    """What the engine alone (pyoxigraph 0.5.13, without provgraph's encoding) stores for
    ``literal``: the measurement behind :func:`provgraph._lexical.engine_keeps`.

    Example:
        >>> engine_form(Literal("7", "http://www.w3.org/2001/XMLSchema#int"))
        Literal(value='7', datatype='http://www.w3.org/2001/XMLSchema#integer', language=None)
    """
    scratch = ox.Store()
    s = ox.NamedNode("urn:provgraph:scratch")
    with _map_errors("literal"):
        scratch.add(ox.Quad(s, s, _to_ox(literal)))
        got = next(iter(scratch.quads_for_pattern(s, None, None))).object
    return _from_ox(got, raw=True)  # type: ignore[return-value]


def _with_values(sparql: str, name: str, terms: Sequence[IRI | Literal]) -> str:
    """``sparql`` with a trailing ``VALUES ?name { ... }`` clause (SPARQL 1.1 §10.2.2);
    each term written by pyoxigraph in N-Triples syntax, which SPARQL accepts."""
    if not name.isidentifier():
        raise ValueError(f"values: {name!r} is not a variable name")
    written = []
    for t in terms:
        if not isinstance(t, (IRI, Literal)):
            raise TypeError(f"values: {t!r} is not an IRI or a literal (VALUES admits no "
                            "blank node)")
        written.append(str(_to_store(t)))
    return f"{sparql}\nVALUES ?{name} {{ {' '.join(written)} }}\n"


def _sparql_terms(iris: Iterable[IRI], what: str) -> list[str]:
    """Each IRI written by pyoxigraph as ``<...>`` (checked and escaped), for query text."""
    out = []
    for t in iris:
        if not isinstance(t, IRI):
            raise TypeError(f"{what}: {t!r} is not an IRI")
        try:
            out.append(str(_named(t)))
        except ValueError as exc:
            raise QueryError(f"{what}: {t!r} is not a valid IRI: {exc}") from exc
    return out


def _iris(items: Iterable[IRI], what: str) -> list[IRI]:
    """``items`` without repeats, in order; a plain ``str`` is taken as an IRI."""
    out: dict[IRI, None] = {}
    for t in items:
        if type(t) is str:
            t = IRI(t)
        elif not isinstance(t, IRI):
            raise TypeError(f"{what}: {t!r} is not an IRI")
        out[t] = None
    return list(out)


_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def _from_ox(term: Any, raw: bool = False) -> Term:
    """A pyoxigraph term as a :mod:`provgraph.terms` term; a stored literal of a private
    datatype is decoded (:mod:`provgraph._lexical`) unless ``raw`` (parsed documents)."""
    cls = type(term)
    if cls is ox.NamedNode:
        return IRI(term.value)
    if cls is ox.Literal:
        dt = term.datatype.value
        if term.language:
            return Literal(term.value, None, term.language)
        if not raw and dt.startswith(LEXICAL):
            dt = dt[len(LEXICAL):]
        return Literal(term.value, None if dt == _XSD_STRING else dt)
    if cls is ox.BlankNode:
        return BNode(term.value)
    raise StoreError(f"unsupported term from the store: {term!r}")


def _tsv_term(text: str) -> Term:
    """A term as pyoxigraph writes it in SPARQL 1.1 TSV results, as :func:`_from_ox` gives
    it. IRIs, integers and quoted literals are split here (a TSV-quoted string escapes only
    tab, line feed, carriage return, ``"`` and ``\\``, which JSON reads alike, so the C JSON
    decoder unquotes it; tests/test_store_subject_pairs.py checks every code point); anything
    else (blank nodes, decimals, doubles, booleans, directional language tags) goes through
    pyoxigraph's own TSV parser."""
    head = text[:1]
    if head == "<" and text[1:2] != "<":
        return IRI(text[1:-1])
    if head == '"':
        end = text.rfind('"')
        if end > 0:
            tail = text[end + 1:]
            try:
                value = _TSV_STRING(text[:end + 1])
            except ValueError:
                value = None
            if type(value) is str:
                if not tail:
                    return Literal(value)
                if tail[0] == "@" and "--" not in tail:
                    return Literal(value, None, tail[1:])
                if tail[:3] == "^^<" and tail[-1] == ">":
                    dt = tail[3:-1]
                    if dt.startswith(LEXICAL):
                        dt = dt[len(LEXICAL):]
                    return Literal(value, None if dt == _XSD_STRING else dt)
    elif text.isascii() and text.isdigit():
        return Literal(text, _XSD_INTEGER)
    with _map_errors("query results"):
        parsed = ox.parse_query_results(b"?t\n" + text.encode("utf-8") + b"\n",
                                        format=ox.QueryResultsFormat.TSV)
        assert isinstance(parsed, ox.QuerySolutions)  # TSV holds solutions only
        solution = next(iter(parsed))
    return _from_ox(solution[0])


_XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"
_TSV_STRING = json.JSONDecoder(strict=False).decode
"""Unquotes a TSV-quoted string (raw control characters allowed); made once: ``json.loads``
with an argument builds a decoder per call (the demo run's 1,277 distinct quoted literals:
6.5 ms that way, 3.3 ms this way)."""
_CACHE_TRIAL = 64
"""Values of a column converted before :func:`_solutions` judges whether it repeats."""


def _solutions(solutions: Any, names: list[str]) -> list[dict[str, Term | None]]:
    """Every solution of a pyoxigraph SELECT result as a dict of provgraph terms
    (:func:`_from_ox`), each distinct term converted once per result: a value that
    repeats down a column (a run, a snapshot, a kind) is looked up in a dict keyed by
    the pyoxigraph term (hashed in Rust) instead of converted again (issue 16: 30-45 %
    of the conversion time of the stale queries at 100,000 answers). A column whose
    values mostly differ (claims) stops being cached after :data:`_CACHE_TRIAL` misses,
    as a miss costs more than a conversion."""
    cache: dict[Any, Term] = {}
    use = [True] * len(names)
    misses = [0] * len(names)
    columns = list(enumerate(names))
    out = []
    seen = 0
    for sol in solutions:
        seen += 1
        row: dict[str, Term | None] = {}
        for i, n in columns:
            t = sol[i]
            if t is None:
                row[n] = None
            elif use[i]:
                v = cache.get(t)
                if v is None:
                    v = cache[t] = _from_ox(t)
                    misses[i] += 1
                    if misses[i] > _CACHE_TRIAL and 2 * misses[i] > seen:
                        use[i] = False
                row[n] = v
            else:
                row[n] = _from_ox(t)
        out.append(row)
    return out


def _graph_to_ox(graph: IRI | None) -> Any:
    return ox.DefaultGraph() if graph is None else _to_ox(graph)


def _graph_from_ox(graph: Any) -> IRI | None:
    if isinstance(graph, ox.DefaultGraph):
        return None
    return _from_ox(graph)  # type: ignore[return-value]


_DEFAULT_GRAPH_OX = ox.DefaultGraph()
_MISSING = object()


def _quad_to_ox(q: Quad, obj_ox: Any = None) -> ox.Quad:
    # The write hot path (issue 8 profile): exact-type fast paths for the common IRI and
    # plain/typed Literal terms; everything else goes through _to_ox, so results are identical.
    s, p, o, g = q[0], q[1], q[2], q[3]
    to = type(o)
    if obj_ox is not None:
        obj = obj_ox
    elif to is IRI:
        obj = _named(o)
    elif to is Literal and not o.language:  # type: ignore[union-attr]  # (type() is: no narrowing)
        obj = (ox.Literal(o.value, datatype=_named(o.datatype))  # type: ignore[union-attr]
               if o.datatype else ox.Literal(o.value))  # type: ignore[union-attr]
    else:
        obj = _to_ox(o)
    return ox.Quad(_named(s) if type(s) is IRI else _to_ox(s),
                   _named(p) if type(p) is IRI else _to_ox(p),
                   obj,
                   _DEFAULT_GRAPH_OX if g is None else (_named(g) if type(g) is IRI else _to_ox(g)))


def _quad_to_store(q: Quad) -> ox.Quad:
    """:func:`_quad_to_ox` for the store: the object through :func:`_to_store`."""
    o = q[2]
    if type(o) is Literal and o.datatype and not o.language \
            and not engine_keeps(o.value, o.datatype):
        return _quad_to_ox(q, _to_store(o))
    return _quad_to_ox(q)


def _encoded_literal(o: Any) -> Any:
    """The literal the store holds for the pyoxigraph literal ``o`` when the engine would
    change it (:func:`_to_store` on pyoxigraph terms), or ``None`` when ``o`` is stored
    as it is."""
    if o.language:
        return None
    dt = o.datatype.value
    if engine_keeps(o.value, dt):
        return None
    return ox.Literal(o.value, datatype=_named(encode_datatype(dt)))


def _stored_parsed(q: ox.Quad, graph: Any = None) -> ox.Quad:
    """A quad pyoxigraph parsed, as the store holds it: its object literal encoded when
    the engine would change it (:func:`_encoded_literal`), moved to ``graph`` when one is
    given (a triple format's target graph)."""
    o = q.object
    if type(o) is ox.Literal and (enc := _encoded_literal(o)) is not None:
        return ox.Quad(q.subject, q.predicate, enc, q.graph_name if graph is None else graph)
    return q if graph is None else ox.Quad(q.subject, q.predicate, o, graph)


def _ledger_strs(quads: Iterable[Any]) -> list[str]:
    """Store-form pyoxigraph quads as ledger statements: N-Quads without the final
    `` .``, each literal in the form it was given (provgraph's encoding undone)."""
    out = []
    for q in quads:
        o = q.object
        if type(o) is ox.Literal and o.datatype.value.startswith(LEXICAL):
            q = ox.Quad(q.subject, q.predicate, _to_ox(_from_ox(o)), q.graph_name)
        out.append(str(q))
    return out


_LEXICAL_END = re.compile(rb'(?<!\\)((?:\\\\)*)"\^\^<' + re.escape(LEXICAL.encode()) + rb'([^>]*)>')
"""The end of a literal stored under a private datatype in N-Triples or N-Quads text: its
closing quote (after an even run of backslashes, which escape one another: an escaped
quote inside a literal follows an odd run) and the private datatype IRI."""


def _decode_lexical_text(data: bytes) -> bytes:
    """N-Triples or N-Quads text the engine wrote, with each literal stored under a private
    datatype (:mod:`provgraph._lexical`) written as :func:`_from_ox` reads it: its own
    datatype, or none for ``xsd:string``. Text without one is returned as it is.

    Example:
        >>> _decode_lexical_text(b'<urn:s> <urn:p> "007"^^<' + LEXICAL.encode()
        ...     + b'http://www.w3.org/2001/XMLSchema#int> .')
        b'<urn:s> <urn:p> "007"^^<http://www.w3.org/2001/XMLSchema#int> .'
    """
    if LEXICAL.encode() not in data:
        return data

    def decoded(m: re.Match[bytes]) -> bytes:
        datatype = m[2]
        if datatype == _XSD_STRING.encode():
            return m[1] + b'"'
        return m[1] + b'"^^<' + datatype + b">"
    return _LEXICAL_END.sub(decoded, data)


_TYPED_MARKS = (b"^^<http://www.w3.org/2001/XMLSchema#", b"^^<" + LEXICAL.encode())
"""Bytes every N-Quads/N-Triples line with a literal the engine may change contains: the
datatypes :func:`provgraph._lexical.engine_keeps` can answer no for."""


def _encoded_lines(data: bytes, fmt: Any) -> bytes:
    """``data`` (whole N-Quads or N-Triples lines) with each line whose literal the engine
    would change rewritten, in place, with the store's encoding (:func:`_encoded_literal`).

    Only lines holding an XSD (or private) datatype are parsed, by pyoxigraph, and only
    those whose literal is changed are written back (by pyoxigraph's serializer, on one
    line each): every other byte is kept, so line numbers in the engine's errors stay
    the file's. A selection that does not parse is returned unchanged, for the engine's
    own loader to report."""
    spans = line_spans(data, _TYPED_MARKS)
    if not spans:
        return data
    try:
        parsed = list(ox.parse(b"\n".join(data[a:b] for a, b in spans), fmt))
        if len(parsed) != len(spans):  # a comment-only line among them: one at a time
            parsed = [next(iter(ox.parse(data[a:b], fmt)), None) for a, b in spans]
    except SyntaxError:
        return data
    out: list[bytes] = []
    at = 0
    seen: dict[Any, Any] = {}  # literal -> its encoding or None (a third are repeats)
    for (a, b), q in zip(spans, parsed):
        o = None if q is None else q.object
        if type(o) is not ox.Literal:
            continue
        enc = seen.get(o, _MISSING)
        if enc is _MISSING:
            enc = seen[o] = _encoded_literal(o)
        if enc is None:
            continue
        tail = ("" if fmt is ox.RdfFormat.N_TRIPLES or isinstance(q.graph_name, ox.DefaultGraph)
                else f" {q.graph_name}")
        out += [data[at:a], f"{q.subject} {q.predicate} {enc}{tail} .".encode("utf-8")]
        at = b
    if not out:
        return data
    out.append(data[at:])
    return b"".join(out)


def _quad_from_ox(q: ox.Quad, raw: bool = False) -> Quad:
    return (_from_ox(q.subject), _from_ox(q.predicate), _from_ox(q.object, raw),  # type: ignore[return-value]
            _graph_from_ox(q.graph_name))


def canonical_nquads(quads: Iterable[Quad]) -> str:
    """Sorted N-Quads of ``quads`` after RDF Dataset Canonicalization of blank
    nodes (pyoxigraph ``Dataset.canonicalize``). Equal datasets give equal text."""
    ds = ox.Dataset(_quad_to_ox(q) for q in quads)
    ds.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    lines = sorted(str(q) + " ." for q in ds)
    return "\n".join(lines) + ("\n" if lines else "")


def parse_rdf(data: bytes | str, format: str, *, base_iri: str | None = None,
              graph: IRI | None = None) -> list[Quad]:
    """Parse an RDF document into quads without storing it.

    ``graph`` receives the statements of the default graph (``None``: they stay
    in the default graph); named graphs keep their names.

    Raises:
        UnsupportedFormat: ``format`` is not in :data:`RDF_FORMATS`.
        SerializationError: the document does not parse.
    """
    fmt = _rdf_format(format)
    with _map_errors(format):
        # pyoxigraph 0.5.13 parse() has no default-graph argument: move
        # default-graph quads to ``graph`` here.
        parsed = ox.parse(data.encode() if isinstance(data, str) else data, fmt,
                          base_iri=base_iri)
        out = list(_parsed_quads(parsed))
    if graph is not None:
        out = [(s, p, o, graph if g is None else g) for s, p, o, g in out]
    return out


def graph_names(data: bytes, format: str) -> set[IRI | None]:
    r"""The graphs the statements of an RDF document are in (``None``: the default graph),
    as pyoxigraph parses them, escapes (``\u0079``) resolved, without building the
    statements' other terms (pair: :func:`parse_rdf`, which builds every term).

    Raises:
        UnsupportedFormat: ``format`` is not in :data:`RDF_FORMATS`.
        SerializationError: the document does not parse.

    Example:
        >>> sorted(map(str, graph_names(b'<urn:x:a> <urn:x:p> <urn:x:b> <urn:x:\\u0067> .\n'
        ...                                  b"<urn:x:a> <urn:x:p> <urn:x:c> .", "nquads")))
        ['None', 'urn:x:g']
    """
    fmt = _rdf_format(format)
    with _map_errors(format):
        names = {q.graph_name for q in ox.parse(data, fmt)}
    return {_graph_from_ox(g) for g in names}


def iter_rdf(source: str | os.PathLike[str] | BinaryIO, format: str, *,
             base_iri: str | None = None, graph: IRI | None = None,
             jsonld_streaming: bool = False) -> Iterator[Quad]:
    """Parse an RDF document lazily, quad by quad, as :func:`parse_rdf` does at once
    (pair: :func:`parse_rdf`, which holds the whole document and its quads in memory).

    ``source`` is a file path or a binary file object, read by pyoxigraph as it goes,
    so memory does not grow with the document (blank-node labels aside: pyoxigraph
    keeps the document's labels; RDF/XML also keeps its ``rdf:ID`` values). ``graph``
    receives the default graph's statements.

    JSON-LD is held whole by pyoxigraph's parser (it buffers each object until its end,
    to find an ``@context`` written last), unless ``jsonld_streaming`` reads it with the
    Streaming JSON-LD profile (``RdfFormat.STREAMING_JSON_LD``,
    https://www.w3.org/TR/json-ld11-streaming/): an object's keys are then taken as they
    come, and a document whose keys are out of the profile's order (``@context`` not
    first, ``@type`` after another key) fails to parse. Neither mode fetches a remote
    context: pyoxigraph 0.5.13 has no document loader, and fails on one.

    Raises:
        UnsupportedFormat: ``format`` is not in :data:`RDF_FORMATS` (at the first item).
        ValueError: ``jsonld_streaming`` with another format than ``json-ld``.
        SerializationError: the document does not parse; raised when the parser reaches
            the error, after the quads before it were yielded.
    """
    fmt = _rdf_format(format)
    if jsonld_streaming:
        if fmt is not ox.RdfFormat.JSON_LD:
            raise ValueError(f"jsonld_streaming applies to json-ld, not {format}")
        fmt = ox.RdfFormat.STREAMING_JSON_LD
    with _map_errors(format):
        if isinstance(source, (str, os.PathLike)):
            parsed = ox.parse(path=os.fspath(source), format=fmt, base_iri=base_iri)
        else:
            parsed = ox.parse(source, fmt, base_iri=base_iri)
        for s, p, o, g in _parsed_quads(parsed):
            yield (s, p, o, graph if g is None and graph is not None else g)


def _parsed_quads(parsed: Iterable[Any]) -> Iterator[Quad]:
    """pyoxigraph's parsed quads as provgraph quads (:func:`_quad_from_ox`, ``raw``), each
    predicate and graph name (few distinct values) converted once, and the IRIs met
    lately given as one object each: a subject's statements come together, and classes
    and agents repeat, so a graph read back whole holds each IRI about once (issue 16,
    item 2: a fifth less memory for validate's statements). The cache is cleared at
    :data:`_IRI_CACHE` entries, so a streamed document does not grow it."""
    names: dict[Any, Any] = {}
    iris: dict[str, IRI] = {}
    named = ox.NamedNode
    for q in parsed:
        p, g, s, o = q.predicate, q.graph_name, q.subject, q.object
        pv = names.get(p)
        if pv is None:
            pv = names[p] = IRI(p.value)
        gv = names.get(g, _MISSING)
        if gv is _MISSING:
            gv = names[g] = _graph_from_ox(g)
        sv: Term | None
        ov: Term | None
        if type(s) is named:
            text = s.value
            sv = iris.get(text)
            if sv is None:
                sv = iris[text] = IRI(text)
        else:
            sv = _from_ox(s)
        if type(o) is named:
            text = o.value
            ov = iris.get(text)
            if ov is None:
                ov = iris[text] = IRI(text)
        else:
            ov = _from_ox(o, True)
        if len(iris) > _IRI_CACHE:
            iris.clear()
        yield (sv, pv, ov, gv)  # type: ignore[misc]


_IRI_CACHE = 1 << 16
"""IRIs :func:`_parsed_quads` keeps to give again (about 10 MB at most)."""


def serialize_quads(quads: Iterable[Quad], format: str,
                    prefixes: Mapping[str, str] | None = None) -> bytes:
    """Serialize quads (or triples, for triple formats: graph is ignored) in an RDF syntax.

    Raises:
        UnsupportedFormat: ``format`` is not in :data:`RDF_FORMATS`.
    """
    fmt = _rdf_format(format)
    if format in DATASET_FORMATS:
        items: Any = (_quad_to_ox(q) for q in quads)
    else:
        items = (ox.Triple(_to_ox(q[0]), _to_ox(q[1]), _to_ox(q[2])) for q in quads)
    with _map_errors(format):
        out = ox.serialize(items, format=fmt, prefixes=dict(prefixes or {}) or None)
    return out if isinstance(out, bytes) else b""


def _rdf_format(name: str) -> Any:
    try:
        return RDF_FORMATS[name]
    except KeyError:
        raise UnsupportedFormat(name, sorted(RDF_FORMATS)) from None


@contextlib.contextmanager
def _map_errors(what: str, *, query: bool = False, source: str = "<text>") -> Iterator[None]:
    """Translate pyoxigraph exceptions into the provgraph tree (httpx style)."""
    try:
        yield
    except SyntaxError as exc:
        if query:
            raise QuerySyntaxError(source, short_syntax_message(
                str(exc.msg if hasattr(exc, "msg") else exc))) from exc
        raise SerializationError(f"{what}: the document does not parse: {exc}") from exc
    except OSError as exc:
        raise StoreError(f"{what}: storage error: {exc}") from exc
    except (ValueError, TypeError) as exc:
        if query:
            raise QueryError(f"{source}: {exc}") from exc
        raise StoreError(f"{what}: invalid term or value: {exc}") from exc
    except RuntimeError as exc:
        if query:
            raise QueryError(f"{source}: evaluation failed: {exc}") from exc
        raise StoreError(f"{what}: {exc}") from exc


_ENGINE_ERRORS = (SyntaxError, OSError, ValueError, TypeError, RuntimeError)
"""The pyoxigraph exceptions :func:`_map_errors` translates."""


def _ntriples_quad(q: ox.Quad) -> str:
    if isinstance(q.graph_name, ox.DefaultGraph):
        return f"{q.subject} {q.predicate} {q.object} ."
    return f"GRAPH {q.graph_name} {{ {q.subject} {q.predicate} {q.object} }}"


def sparql_term(term: Term) -> str:
    """``term`` in N-Triples syntax (which SPARQL accepts), written and checked by the
    engine's own serializer: the one way query text is given a term (issue 13).

    Raises:
        StoreError: the term is invalid (an IRI that is not absolute, a bad language tag).

    Example:
        >>> from provgraph.terms import IRI, Literal
        >>> print(sparql_term(IRI("urn:x:a")), sparql_term(Literal('say "hi"', language="en")))
        <urn:x:a> "say \\"hi\\""@en
    """
    with _map_errors("term"):
        return str(_to_ox(term))


def sparql_quads(quads: Iterable[Quad]) -> list[tuple[str, str | None]]:
    """Each quad as ``("S P O", graph)`` in N-Triples syntax with its graph written as
    ``<iri>`` (``None`` for the default graph), checked by the engine's serializer; for
    building ``INSERT DATA``/``DELETE DATA`` text and Graph Store Protocol bodies.

    Raises:
        StoreError: a term is invalid (then nothing is returned).
    """
    out: list[tuple[str, str | None]] = []
    with _map_errors("store"):  # an invalid term is a StoreError, as for add()
        for q in quads:
            oq = _quad_to_ox(q)
            g = None if isinstance(oq.graph_name, ox.DefaultGraph) else str(oq.graph_name)
            out.append((f"{oq.subject} {oq.predicate} {oq.object}", g))
    return out


_SYNTAX_CHECKER: Any = None


def check_query_syntax(text: str, source: str = "<text>") -> None:
    """Check that ``text`` parses as a SPARQL 1.1 query (by evaluating it on an
    empty in-memory dataset, which is how pyoxigraph exposes its parser).

    Raises:
        QuerySyntaxError: the text does not parse; the message carries ``at L:C``.
    """
    global _SYNTAX_CHECKER
    if _SYNTAX_CHECKER is None:
        _SYNTAX_CHECKER = ox.Store()
    try:
        _SYNTAX_CHECKER.query(text)
    except SyntaxError as exc:
        raise QuerySyntaxError(source, short_syntax_message(str(exc))) from exc
    except (RuntimeError, ValueError, TypeError):
        pass  # parsed; evaluation issues (such as unbound substitutions) are not syntax errors


def rdfc_canonical_nquads(quads: Iterable[Quad]) -> str:
    """Sorted N-Quads of ``quads`` after W3C RDF Dataset Canonicalization (RDFC-1.0,
    W3C Recommendation 2024), a stable algorithm: use it for digests kept over time
    (:func:`canonical_nquads` uses pyoxigraph's faster, version-dependent one)."""
    ds = ox.Dataset(_quad_to_ox(q) for q in quads)
    ds.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    lines = sorted(str(q) + " ." for q in ds)
    return "\n".join(lines) + ("\n" if lines else "")


def iri_error(text: str) -> str | None:
    """Why ``text`` is not an absolute IRI (RFC 3987, as the engine checks it), or
    ``None`` when it is one.

    Example:
        >>> iri_error("urn:example:g") is None
        True
        >>> iri_error("not an iri")
        "Invalid IRI code point ' '"
    """
    try:
        ox.NamedNode(text)
    except ValueError as exc:
        return str(exc)
    return None
