"""The remote store: the store contract over a SPARQL 1.1 Protocol + Graph Store Protocol engine.

:class:`RemoteStore` is the :class:`~provgraph.store.ProvStore` of an engine another
team runs (issue 13): queries go to its SPARQL 1.1 Protocol query URL as form-encoded
POST with JSON results (SPARQL 1.1 Query Results JSON Format), updates to its update
URL (``INSERT DATA``/``DELETE DATA`` in bounded chunks), bulk loads to its Graph Store
Protocol URL (N-Triples per named graph, in bounded chunks). Retained originals stay in
a :class:`~provgraph.originals.BlobStore` (a local or shared folder). Tested on the
Oxigraph server 0.5.13 and Virtuoso 7.2.5 (``tests/test_remote_store.py``); GraphDB,
Stardog, Amazon Neptune and Virtuoso cluster speak the same protocols.

What the engine must do:

* present the **union of all graphs as the default graph** to queries (Oxigraph:
  ``serve --union-default-graph``; Virtuoso, GraphDB and Neptune do by default; Stardog:
  ``query.all.graphs=true``), as the embedded store does;
* accept form-encoded POST for queries and updates.

Statements of provgraph's default graph are kept in the named graph
:data:`DEFAULT_GRAPH_IRI` (Virtuoso has no default graph of its own), so every statement
is in a named graph and reads are ``GRAPH ?g`` patterns. Blank nodes cannot be named in
a request: they are stored and read back (each result's labels stay consistent within
it), but a pattern, ``remove`` or ``replace`` naming one is refused.

Engine deviations handled here, each with a test (Virtuoso 7.2.5):

* property paths inside ``GRAPH ?g { }`` give wrong rows: such a query is refused;
* a path cannot start from a ``VALUES`` variable ("transitive start not given"):
  bindings are substituted as terms, and ``select(values=...)`` over a query with a path
  runs once per value (one request each);
* results are capped at ``ResultSetMaxRows`` (10,000 by default): :meth:`RemoteStore.quads`
  pages through them, and a query that reaches the cap is an error, never a silent cut;
* booleans come back as ``"1"``/``"0"``: read back as ``"true"``/``"false"``, and a
  ``BIND(EXISTS { } AS ?x)`` and ``BIND(true AS ?x)`` (integers there) are sent as a
  typed ``STRDT(...)``;
* doubles come back as ``"1.0"``: written back in the embedded store's canonical form;
* ``GRAPH <iri>`` matches nothing once its own graphs are excluded from the union
  default graph (``define input:default-graph-exclude``): sent as ``GRAPH ?g`` with
  ``VALUES ?g { <iri> }``;
* a trailing ``VALUES`` is joined after ``ORDER BY``: put inside the ``WHERE`` group;
* POST ``application/sparql-query`` is never answered: every query is form-encoded;
* ``INSERT DATA`` takes about 1,000 triples and no blank node: chunks of 500, and blank
  nodes are inserted with ``INSERT { } WHERE { }``;
* some grouped queries with a bound variable fail to compile (SQ156), and some with a
  bound ``GROUP BY`` key lose rows of their ``OPTIONAL`` parts (``coverage`` with
  ``run`` on the demo store): run unbound and filtered on the bound values (a query
  whose bound variables are all ``GROUP BY`` keys always is);
* a request of several update operations is not atomic: :meth:`RemoteStore.replace`
  sends one ``DELETE { } INSERT { } WHERE { }`` operation, and refuses one that does not
  fit a single request.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from . import _sparql_text as text
from ._lexical import double_form
from ._sparql_http import HttpClient, Response
from .errors import QueryError, QuerySyntaxError, StoreError, UnsupportedFormat
from .originals import BlobStore, Originals
from .store import (ANY_GRAPH, DATASET_FORMATS, ProvStore, check_query_syntax, parse_rdf,
                    register_endpoint_opener, serialize_quads, sparql_quads, sparql_term)
from .terms import IRI, BNode, Literal, Quad, Term
from .xsd import canonical

__all__ = ["RemoteStore", "Engine", "ENGINES", "DEFAULT_GRAPH_IRI"]

DEFAULT_GRAPH_IRI = IRI("urn:provgraph:default-graph")
"""The named graph holding what provgraph writes to the default graph (see module docstring)."""

_XSD = "http://www.w3.org/2001/XMLSchema#"
_JSON_RESULTS = "application/sparql-results+json"


@dataclass(frozen=True)
class Engine:
    """What an engine does differently (chosen by name or from its ``Server`` header).

    Attributes:
        name: ``oxigraph``, ``virtuoso`` or ``sparql`` (any other engine).
        update_quads: quads per ``INSERT DATA``/``DELETE DATA`` request.
        atomic_requests: one update request of several operations is one transaction.
        insert_data_bnodes: ``INSERT DATA`` accepts blank nodes.
        max_rows: the engine's cap on result rows (``None``: no cap).
        graph_paths: property paths inside ``GRAPH ?g`` are evaluated correctly.
        values_paths: a property path may start from a ``VALUES`` variable.
        boolean_digits: booleans may come back as ``"1"``/``"0"``.
        trailing_values: a trailing ``VALUES`` clause is joined before ``ORDER BY``
            (else it goes last inside the ``WHERE`` group).
        system_graphs: IRI prefixes of the engine's own graphs, never shown as data.
        bound_group_keys: a grouped query with a bound ``GROUP BY`` key gives the rows
            of its group (else it runs unbound and its rows are kept by the key).
        query_prologue: text put before every query (Virtuoso: ``define
            input:default-graph-exclude`` of its own graphs, so the union default graph
            holds only data).
        max_sorted_rows: the most rows an ``ORDER BY`` query may ask for (``OFFSET`` +
            ``LIMIT``; Virtuoso's ``MaxSortedTopRows``, 10,000 by default), or ``None``.
        short_doubles: ``xsd:double`` results come back cut to a few significant
            digits (Virtuoso 7.2: 6, virtuoso-opensource issue #1006); each projected
            variable's ``STR()`` is asked for as well and read instead.
    """

    name: str
    update_quads: int = 10_000
    atomic_requests: bool = True
    insert_data_bnodes: bool = True
    max_rows: int | None = None
    graph_paths: bool = True
    values_paths: bool = True
    boolean_digits: bool = False
    trailing_values: bool = True
    system_graphs: tuple[str, ...] = ()
    query_prologue: str = ""
    bound_group_keys: bool = True
    short_doubles: bool = False
    max_sorted_rows: int | None = None


_VIRTUOSO_GRAPHS = ("http://www.openlinksw.com/schemas/virtrdf#", "http://www.w3.org/ns/ldp#",
                    "http://localuriqaserver/sparql")

ENGINES: dict[str, Engine] = {
    "sparql": Engine("sparql"),
    "oxigraph": Engine("oxigraph", update_quads=50_000),
    "virtuoso": Engine("virtuoso", update_quads=500, atomic_requests=False,
                       insert_data_bnodes=False, max_rows=10_000, graph_paths=False,
                       values_paths=False, boolean_digits=True, trailing_values=False,
                       bound_group_keys=False, short_doubles=True, max_sorted_rows=10_000,
                       system_graphs=("http://www.openlinksw.com/", "http://www.w3.org/ns/ldp#",
                                      "http://localuriqaserver/"),
                       query_prologue="".join(f"define input:{kind}-graph-exclude <{g}>\n"
                                              for g in _VIRTUOSO_GRAPHS
                                              for kind in ("default", "named"))),
}
"""Known engines by name (``PROVGRAPH_ENDPOINT_ENGINE``; ``auto`` asks the server)."""

_GSP_CHUNK_BYTES = 4 << 20
"""Bytes of N-Triples per Graph Store Protocol POST in :meth:`RemoteStore.bulk_add`."""


class RemoteStore(ProvStore):
    """A :class:`~provgraph.store.ProvStore` on a SPARQL 1.1 Protocol endpoint.

    Args:
        query_url: the SPARQL 1.1 Protocol query URL (``http://host:7878/query``).
        update_url: the update URL; ``None``: ``.../update`` beside a ``.../query`` URL,
            else the query URL itself.
        gsp_url: the Graph Store Protocol URL (``?graph=`` is added); ``None``:
            ``.../store`` beside a ``.../query`` URL, else none (bulk loads then use
            ``INSERT DATA`` chunks).
        originals: the blob store, or a folder for an
            :class:`~provgraph.originals.Originals` (shared between machines if the
            folder is).
        user, password: Basic or Digest credentials (from the environment or a config
            file; never a command-line argument).
        engine: a name of :data:`ENGINES`, an :class:`Engine`, or ``"auto"`` (one
            probe request at first use reads the ``Server`` header).
        timeout: seconds per request; retries: further attempts on connection failures
            and 429/502/503/504 answers.
        max_rows: override the engine's result-row cap (Virtuoso's ``ResultSetMaxRows``).

    Attributes:
        http: the :class:`~provgraph._sparql_http.HttpClient`; ``http.requests`` counts
            the requests sent.

    Raises:
        StoreError: the originals folder cannot be created.
    """

    default_graph_iri: IRI | None = DEFAULT_GRAPH_IRI

    def __init__(self, query_url: str, *, update_url: str | None = None,
                 gsp_url: str | None = None, originals: BlobStore | str | os.PathLike[str],
                 user: str | None = None, password: str | None = None,
                 engine: str | Engine = "auto", timeout: float = 60.0, retries: int = 2,
                 max_rows: int | None = None) -> None:
        if not query_url.startswith(("http://", "https://")):
            raise StoreError(f"endpoint {query_url!r} is not an http(s) URL; pass the SPARQL "
                             "query URL, for example http://127.0.0.1:7878/query")
        self.query_url = query_url
        stem = query_url[:-len("/query")] if query_url.endswith("/query") else None
        self.update_url = update_url or (stem + "/update" if stem else query_url)
        self.gsp_url = gsp_url or (stem + "/store" if stem else None)
        self.location = query_url
        self.originals = originals if isinstance(originals, BlobStore) else Originals(Path(originals))
        self.http = HttpClient(user=user, password=password, timeout=timeout, retries=retries)
        for url in (self.query_url, self.update_url, self.gsp_url):
            if url:
                self.http.add_credentials_for(url)
        if isinstance(engine, str) and engine != "auto" and engine not in ENGINES:
            raise StoreError(f"engine {engine!r} is not one of auto, {', '.join(ENGINES)}")
        self._engine: Engine | None = (engine if isinstance(engine, Engine)
                                       else None if engine == "auto" else ENGINES[engine])
        self._max_rows = max_rows

    @classmethod
    def from_env(cls, endpoint: str, *, originals: BlobStore | str | os.PathLike[str],
                 env: Mapping[str, str] | None = None) -> "RemoteStore":
        """A store configured from environment variables (the CLI's ``--endpoint`` path).

        ``PROVGRAPH_UPDATE_ENDPOINT``, ``PROVGRAPH_GSP_ENDPOINT``, ``PROVGRAPH_ENDPOINT_USER``,
        ``PROVGRAPH_ENDPOINT_PASSWORD`` or ``PROVGRAPH_ENDPOINT_PASSWORD_FILE`` (a file
        holding the password), ``PROVGRAPH_ENDPOINT_ENGINE`` (``auto``),
        ``PROVGRAPH_ENDPOINT_TIMEOUT`` (seconds, 60), ``PROVGRAPH_ENDPOINT_MAX_ROWS``,
        ``PROVGRAPH_ORIGINALS`` (overrides ``originals``).

        Raises:
            StoreError: a variable holds a bad value or the password file cannot be read.
        """
        e = os.environ if env is None else env
        password = e.get("PROVGRAPH_ENDPOINT_PASSWORD")
        pw_file = e.get("PROVGRAPH_ENDPOINT_PASSWORD_FILE")
        if pw_file and password is None:
            try:
                password = Path(pw_file).read_text(encoding="utf-8").strip()
            except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
                from .signing import looks_like_key_material

                if looks_like_key_material(pw_file):  # a password pasted as the file name
                    raise StoreError("PROVGRAPH_ENDPOINT_PASSWORD_FILE cannot be read, and its "
                                     "value is not shown because it looks like a secret: set "
                                     "it to the name of the file holding the password, or set "
                                     "PROVGRAPH_ENDPOINT_PASSWORD") from exc
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                raise StoreError(f"PROVGRAPH_ENDPOINT_PASSWORD_FILE {pw_file}: cannot read "
                                 f"it: {why}") from exc
        try:
            timeout = float(e.get("PROVGRAPH_ENDPOINT_TIMEOUT") or 60)
            max_rows = int(e["PROVGRAPH_ENDPOINT_MAX_ROWS"]) if e.get(
                "PROVGRAPH_ENDPOINT_MAX_ROWS") else None
        except ValueError as exc:
            raise StoreError(f"PROVGRAPH_ENDPOINT_TIMEOUT / _MAX_ROWS: not a number ({exc})") from exc
        return cls(endpoint, update_url=e.get("PROVGRAPH_UPDATE_ENDPOINT") or None,
                   gsp_url=e.get("PROVGRAPH_GSP_ENDPOINT") or None,
                   originals=e.get("PROVGRAPH_ORIGINALS") or originals,
                   user=e.get("PROVGRAPH_ENDPOINT_USER") or None, password=password,
                   engine=e.get("PROVGRAPH_ENDPOINT_ENGINE") or "auto", timeout=timeout,
                   max_rows=max_rows)

    # -- engine ------------------------------------------------------------------------------
    @property
    def engine(self) -> Engine:
        """The engine's :class:`Engine` (asked once, with ``ASK {}``, when ``auto``)."""
        if self._engine is None:
            resp = self._post_query("ASK {}", "application/sparql-results+json", "engine probe")
            server = resp.headers.get("server", "").lower()
            self._engine = next((ENGINES[n] for n in ("virtuoso", "oxigraph") if n in server),
                                ENGINES["sparql"])
        return self._engine

    @property
    def max_rows(self) -> int | None:
        """The result-row cap in force (``max_rows=`` or the engine's)."""
        return self._max_rows if self._max_rows is not None else self.engine.max_rows

    # -- requests ------------------------------------------------------------------------------
    def _post_query(self, sparql: str, accept: str, source: str) -> Response:
        if self._engine is not None and self._engine.query_prologue:
            sparql = self._engine.query_prologue + text.boolean_constants_typed(
                text.exists_as_boolean(text.graph_constants_to_values(sparql)))
        try:
            return self.http.post_form(self.query_url, {"query": sparql}, accept=accept,
                                       what=f"query {source}")
        except QueryError as exc:  # the engine's own refusal (HTTP 400) after our syntax check
            raise QueryError(f"{source}: {exc}") from exc
        except StoreError as exc:
            if "SR066" in str(exc) and "RDF box" in str(exc):
                raise QueryError(
                    f"{source}: Virtuoso cannot walk a property path onto a literal (error "
                    "SR066, 'incomplete RDF box'); exclude literal-valued predicates from the "
                    "path (a negated property set), or use closure(), which works around it"
                ) from exc
            raise

    def _post_update(self, sparql: str, source: str) -> None:
        try:
            self.http.post_form(self.update_url, {"update": sparql}, accept="*/*",
                                what=f"update {source}")
        except QueryError as exc:
            raise QuerySyntaxError(source, str(exc)) from exc
        except StoreError as exc:
            if "SP030" in str(exc):  # Virtuoso's SPARQL compiler answers 500 for syntax errors
                raise QuerySyntaxError(source, str(exc)) from exc
            raise

    def _graph_filter(self, var: str) -> str:
        prefixes = self.engine.system_graphs
        if not prefixes:
            return ""
        cond = " && ".join(f'!STRSTARTS(STR({var}), {json.dumps(p)})' for p in prefixes)
        return f" FILTER({cond})"

    # -- reading -------------------------------------------------------------------------------
    def _rows(self, sparql: str, source: str) -> list[dict[str, Term | None]]:
        if self.engine.short_doubles:
            sparql = text.with_lexical_forms(sparql)
        resp = self._post_query(sparql, _JSON_RESULTS, source)
        try:
            doc = json.loads(resp.body)
            names = doc["head"].get("vars", [])
            bindings = doc["results"]["bindings"]
        except (ValueError, KeyError, TypeError) as exc:
            raise QueryError(f"{source}: {self.query_url} did not answer with SPARQL JSON "
                             f"results ({exc})") from exc
        digits = self.engine.boolean_digits
        names = [n for n in names if not n.startswith(text.HIDDEN_PREFIX)]
        if self.engine.short_doubles:
            for b in bindings:  # the full lexical form of a double (with_lexical_forms)
                for n in names:
                    v, lex = b.get(n), b.get(text.LEXICAL_PREFIX + n)
                    if v is not None and lex is not None and v.get("datatype") in _FLOATS:
                        v["value"] = lex.get("value", v.get("value", ""))
        return [{n: _term(b[n], digits) if n in b else None for n in names} for b in bindings]

    def _capped(self, rows: list[dict[str, Term | None]], source: str) -> None:
        cap = self.max_rows
        if cap is not None and len(rows) >= cap:
            raise QueryError(
                f"{source}: {self.query_url} returned {len(rows):,} rows, its result cap "
                f"({self.engine.name} ResultSetMaxRows {cap:,}), so the answer may be cut "
                "short; raise the cap on the server (Virtuoso: [SPARQL] ResultSetMaxRows in "
                "virtuoso.ini) and PROVGRAPH_ENDPOINT_MAX_ROWS, or narrow the query")

    def _prepare(self, sparql: str, bindings: Mapping[str, Term] | None, source: str,
                 form: str, article: str) -> str:
        if text.query_form(sparql) != form:
            check_query_syntax(sparql, source)
            raise QueryError(f"{source}: expected {article} query")
        check_query_syntax(sparql, source)
        if bindings:
            try:
                if self.engine.values_paths or text.has_property_path(sparql) or form not in (
                        "SELECT", "ASK"):
                    sparql = text.substitute(sparql, {k: sparql_term(v)
                                                      for k, v in bindings.items()})
                else:  # Virtuoso fails to compile a constant in GROUP BY and projections
                    names = sorted(bindings)
                    row = " ".join(sparql_term(bindings[n]) for n in names)
                    sparql = text.values_first_in_where(
                        sparql, f"VALUES ({' '.join('?' + n for n in names)}) {{ ({row}) }}")
            except ValueError as exc:
                raise QueryError(f"{source}: {exc}") from exc
        if not self.engine.graph_paths and text.graph_variable_paths(sparql):
            raise QueryError(
                f"{source}: {self.engine.name} evaluates property paths inside GRAPH "
                f"{', '.join(text.graph_variable_paths(sparql))} {{ ... }} wrongly (repeated "
                "and missing rows), so provgraph refuses the query; walk the path over the "
                "union default graph and join GRAPH ?g on a single statement instead")
        return sparql

    def select(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
               source: str = "<text>",
               values: tuple[str, Sequence[IRI | Literal]] | None = None,
               ) -> list[dict[str, Term | None]]:
        """Run a SELECT query on the engine; see :meth:`ProvStore.select`.

        Bindings are substituted as terms in the text (a projected variable becomes
        ``(TERM AS ?x)``). ``values`` is a trailing ``VALUES`` clause, except on an
        engine where a property path cannot start from one (Virtuoso): there the query
        runs once per value (one request each) and the rows are concatenated.
        """
        if values is not None:
            name, terms = values
            if not name.isidentifier():
                raise ValueError(f"values: {name!r} is not a variable name")
            for t in terms:
                if not isinstance(t, (IRI, Literal)):
                    raise TypeError(f"values: {t!r} is not an IRI or a literal (VALUES admits "
                                    "no blank node)")
            if not self.engine.values_paths and text.has_property_path(sparql):
                out: list[dict[str, Term | None]] = []
                for t in dict.fromkeys(terms):
                    out += self.select(sparql, {**(bindings or {}), name: t}, source=source)
                if text.is_distinct(sparql):
                    out = [dict(r) for r in dict.fromkeys(tuple(r.items()) for r in out)]
                return out
            clause = f"VALUES ?{name} {{ {' '.join(sparql_term(t) for t in terms)} }}"
            if self.engine.trailing_values:
                sparql = f"{sparql}\n{clause}\n"
            else:
                try:
                    sparql = text.values_into_where(sparql, clause)
                except ValueError as exc:
                    raise QueryError(f"{source}: {exc}") from exc
        def unbound_then_filtered() -> list[dict[str, Term | None]]:
            assert bindings
            return [r for r in self._rows(self._prepare(sparql, None, source, "SELECT",
                                                        "a SELECT"), source)
                    if all(r.get(k, v) == v for k, v in bindings.items())]

        if (bindings and not self.engine.bound_group_keys
                and set(bindings) <= set(text.group_keys(sparql))):
            # Virtuoso 7.2 loses OPTIONAL rows of some grouped queries once a GROUP BY key
            # is bound (as a constant, a VALUES or a FILTER): the groups of the unbound
            # query, kept by their key, are the same groups (SPARQL 1.1 §18.5)
            rows = unbound_then_filtered()
            self._capped(rows, source)
            return rows
        prepared = self._prepare(sparql, bindings, source, "SELECT", "a SELECT")
        try:
            rows = self._rows(prepared, source)
        except StoreError as exc:
            # Virtuoso 7.2's optimizer fails (SQ156 "Bad dfe") on some grouped queries with
            # a bound variable, however it is bound; run it unbound and keep the rows that
            # carry the bound values (each bound variable is projected: provgraph.queries)
            if not bindings or "SQ156" not in str(exc):
                raise
            rows = unbound_then_filtered()
        self._capped(rows, source)
        return rows

    def ask(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
            source: str = "<text>") -> bool:
        prepared = self._prepare(sparql, bindings, source, "ASK", "an ASK")
        resp = self._post_query(prepared, _JSON_RESULTS, source)
        try:
            value = json.loads(resp.body)["boolean"]
        except (ValueError, KeyError, TypeError) as exc:
            raise QueryError(f"{source}: {self.query_url} did not answer with a SPARQL JSON "
                             f"boolean ({exc})") from exc
        return value in (True, 1, "true", "1")

    def construct(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
                  source: str = "<text>") -> list[tuple[IRI | BNode, IRI, Term]]:
        form = text.query_form(sparql)
        prepared = self._prepare(sparql, bindings, source,
                                 "DESCRIBE" if form == "DESCRIBE" else "CONSTRUCT",
                                 "a CONSTRUCT or DESCRIBE")
        resp = self._post_query(prepared, "application/n-triples", source)
        quads = parse_rdf(resp.body, "ntriples")
        return [(s, p, o) for s, p, o, _ in quads]

    def _pattern(self, subject: IRI | BNode | None, predicate: IRI | None,
                 object: Term | None, graph: Any) -> tuple[str, list[str]]:
        """The ``GRAPH`` pattern text of a quad pattern and its free variables."""
        for t in (subject, object):
            if isinstance(t, BNode):
                raise StoreError(f"{self.location}: a blank node ({t.n3()}) cannot be named in "
                                 "a request to a SPARQL endpoint; match it through an IRI")
        free: list[str] = []

        def part(term: Term | None, var: str) -> str:
            if term is None:
                free.append(var)
                return f"?{var}"
            return sparql_term(term)

        s, p, o = part(subject, "s"), part(predicate, "p"), part(object, "o")
        if graph is ANY_GRAPH:
            free.append("g")
            return f"GRAPH ?g {{ {s} {p} {o} }}", free
        g = DEFAULT_GRAPH_IRI if graph is None else graph
        return f"GRAPH {sparql_term(g)} {{ {s} {p} {o} }}", free

    def quads(self, subject: IRI | BNode | None = None, predicate: IRI | None = None,
              object: Term | None = None, graph: Any = ANY_GRAPH) -> Iterator[Quad]:
        """Quads matching a pattern (one request; pages of the row cap on Virtuoso)."""
        pattern, free = self._pattern(subject, predicate, object, graph)
        head = f"SELECT {' '.join('?' + v for v in free) or '*'} WHERE {{ {pattern} }}"
        cap = self.max_rows
        if cap is None:
            rows = self._rows(head, "quads")
        else:
            rows = self._rows(f"{head} LIMIT {cap}", "quads")
            if len(rows) >= cap and free:  # more than one page
                rows = self._keyset_pages(pattern, free, cap)
        fixed_g = None if graph is ANY_GRAPH or graph is None else graph
        for r in rows:
            g = r.get("g", fixed_g) if graph is ANY_GRAPH else fixed_g
            yield (r.get("s", subject), r.get("p", predicate), r.get("o", object),  # type: ignore[misc]
                   None if g == DEFAULT_GRAPH_IRI else g)

    def _keyset_pages(self, pattern: str, free: list[str], cap: int
                      ) -> list[dict[str, Term | None]]:
        """Every row of ``pattern`` on an engine that caps results at ``cap`` rows: pages
        ordered by the string of the first free variable (the key), each starting at the
        key where the last one stopped (keyset paging), of at most ``cap`` rows and at most
        the engine's :attr:`Engine.max_sorted_rows`. ``OFFSET`` paging is not used:
        Virtuoso 7.2 refuses an ``ORDER BY`` whose ``OFFSET`` + ``LIMIT`` is over its
        ``MaxSortedTopRows`` (10,000: "SR353 Sorted TOP clause specifies more then ...
        rows to sort"), so a pattern of more statements could not be read at all. A key
        with a page of rows of its own is paged the same way by the next free variable,
        within that key. The rows are counted against a ``COUNT`` of the pattern at the end.

        Raises:
            StoreError: the pages do not add up to the pattern's count (the engine
                ordered and compared strings differently, or the data changed meanwhile).
        """
        size = min(cap, self.engine.max_sorted_rows or cap)
        sel = " ".join("?" + v for v in free)
        rows = self._pages_by(pattern, sel, free, "", size)
        counted = self._rows(f"SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}", "quads count")
        n = counted[0]["n"] if counted else None
        if not isinstance(n, Literal) or int(n.value) != len(rows):
            raise StoreError(
                f"{self.query_url}: paging through {pattern} gave {len(rows):,} rows, the "
                f"engine counts {n.value if isinstance(n, Literal) else '?'}; read it again "
                "when nothing writes to the store, or raise the engine's result cap")
        return rows

    def _pages_by(self, pattern: str, sel: str, keys: list[str], within: str,
                  size: int) -> list[dict[str, Term | None]]:
        """:meth:`_keyset_pages` by ``keys[0]``, inside the filter ``within``."""
        key, k = keys[0], "pgkey"  # not a _pg_ name: _rows must keep it
        base = f"SELECT {sel} (STR(?{key}) AS ?{k}) WHERE {{ {pattern} {within}"
        rows: list[dict[str, Term | None]] = []
        low: str | None = None
        strict = False
        while True:
            cond = "" if low is None else (
                f"FILTER(STR(?{key}) {'>' if strict else '>='} {sparql_term(Literal(low))}) ")
            page = self._rows(f"{base}{cond}}} ORDER BY ?{k} LIMIT {size}", "quads")
            if len(page) < size:
                rows += page
                break
            last = _key(page[-1][k])
            done = [r for r in page if _key(r[k]) != last]
            rows += done
            low, strict = last, bool(not done)
            if not done:  # one key fills a page: page through it by the next variable
                if len(keys) == 1:
                    raise StoreError(f"{self.query_url}: {size:,} rows share every value of "
                                     f"{pattern}; they cannot be paged")
                rows += self._pages_by(
                    pattern, sel, keys[1:],
                    f"{within}FILTER(STR(?{key}) = {sparql_term(Literal(last))}) ", size)
        for r in rows:
            r.pop(k, None)
        return rows

    def _exists(self, pattern: str) -> bool:
        resp = self._post_query(f"ASK {{ {pattern} }}", _JSON_RESULTS, "ask")
        return json.loads(resp.body).get("boolean") in (True, 1, "true", "1")

    def contains(self, quad: Quad) -> bool:
        return self._exists(self._pattern(*quad)[0])

    def has_subject(self, iri: IRI) -> bool:
        return self._exists(self._pattern(iri, None, None, ANY_GRAPH)[0])

    def mentions(self, iri: IRI) -> bool:
        a = self._pattern(iri, None, None, ANY_GRAPH)[0]
        b = self._pattern(None, None, iri, ANY_GRAPH)[0]
        return self._exists(f"{{ {a} }} UNION {{ {b} }}")

    def occurs(self, iri: IRI) -> bool:
        t = sparql_term(iri)
        return self.mentions(iri) or self._exists(
            f"{{ {self._pattern(None, iri, None, ANY_GRAPH)[0]} }} UNION "
            f"{{ GRAPH {t} {{ ?s ?p ?o }} }}")

    def has_graph(self, iri: IRI) -> bool:
        return self._exists(f"GRAPH {sparql_term(iri)} {{ ?s ?p ?o }}")

    def closure(self, start: Iterable[IRI], predicates: Iterable[IRI], *,
                inverse: bool = False, max_depth: int | None = None) -> set[IRI]:
        """See :meth:`ProvStore.closure`. On an engine where a path cannot start from a
        ``VALUES`` variable (Virtuoso), two queries: its transitive subquery with a
        ``UNION`` branch per start node, and the start nodes reached again by a cycle."""
        if self.engine.values_paths:
            return super().closure(start, predicates, inverse=inverse, max_depth=max_depth)
        if max_depth is not None and max_depth < 1:
            raise ValueError(f"closure: max_depth must be at least 1, not {max_depth!r}")
        starts = list(dict.fromkeys(start))
        preds = list(dict.fromkeys(predicates))
        for t in starts + preds:
            if not isinstance(t, IRI):
                raise TypeError(f"closure: {t!r} is not an IRI")
        if not starts or not preds:
            return set()
        # Virtuoso's property paths cannot start from a VALUES variable nor from a constant
        # under ^(...)+, and stop with "incomplete RDF box" on reaching a literal: use its
        # transitive subquery (OPTION (TRANSITIVE ...)) over one step that skips literals,
        # one UNION branch per start node. Its t_distinct never returns a start node
        # reached again through a cycle, so a second query finds those: a start one step
        # from a start or from an IRI reached within max_depth - 1 steps (a cycle closed
        # through a blank node only is not seen).
        alt = " | ".join(sparql_term(p) for p in preds)

        def reach(depth: int | None, var: str) -> str:
            lim = "" if depth is None else f", t_max({depth})"
            end, out = ("?n", "?a") if inverse else ("?a", "?n")
            return " UNION ".join(
                f"{{ SELECT {out} AS {var} WHERE {{ {{ SELECT ?a ?n WHERE {{ ?a {alt} ?n "
                f"FILTER(!isLiteral(?n)) }} }} OPTION (TRANSITIVE, t_in(?a), t_out(?n), "
                f"t_distinct, t_min(1){lim}) FILTER({end} = {sparql_term(s)}) }} }}"
                for s in starts)

        rows = self._rows(f"SELECT DISTINCT ?n WHERE {{ {reach(max_depth, '?n')} "
                          "FILTER(isIRI(?n)) }", "closure")
        self._capped(rows, "closure")
        found = {r["n"] for r in rows if isinstance(r["n"], IRI)}
        sources = set(starts)
        if max_depth is None:
            sources |= found
        elif max_depth > 1:
            inner = self._rows(f"SELECT DISTINCT ?n WHERE {{ {reach(max_depth - 1, '?n')} "
                               "FILTER(isIRI(?n)) }", "closure")
            sources |= {r["n"] for r in inner if isinstance(r["n"], IRI)}
        edge = " UNION ".join(f"{{ ?s {sparql_term(p)} ?m }}" if inverse
                              else f"{{ ?m {sparql_term(p)} ?s }}" for p in preds)
        again = self._rows(
            f"SELECT DISTINCT ?s WHERE {{ {edge} FILTER(?s IN "
            f"({', '.join(sparql_term(s) for s in starts)}) && ?m IN "
            f"({', '.join(sparql_term(s) for s in sorted(sources))})) }}", "closure (cycles)")
        found |= {r["s"] for r in again if isinstance(r["s"], IRI)}
        return found

    def named_graphs(self) -> list[IRI]:
        rows = self._rows("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } "
                          f"{self._graph_filter('?g')} }}", "named graphs")
        return sorted(g for r in rows if isinstance(g := r["g"], IRI) and g != DEFAULT_GRAPH_IRI)

    def __len__(self) -> int:
        rows = self._rows("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }", "count")
        n = rows[0]["n"] if rows else None
        return int(n.value) if isinstance(n, Literal) else 0

    def serialize(self, format: str, *, graph: Any = ANY_GRAPH,
                  output: IO[bytes] | None = None,
                  prefixes: Mapping[str, str] | None = None) -> bytes | None:
        if graph is ANY_GRAPH and format not in DATASET_FORMATS:
            serialize_quads([], format)  # an unknown format is named first
            raise UnsupportedFormat(format, sorted(DATASET_FORMATS),
                                    "a whole dataset needs a dataset format; or pick one graph")
        data = serialize_quads(self.quads(graph=graph), format, prefixes)
        if output is None:
            return data
        output.write(data)
        return None

    # -- writing -------------------------------------------------------------------------------
    def _data_blocks(self, items: Sequence[_Item]) -> str:
        by_graph: dict[str, list[str]] = {}
        default = sparql_term(DEFAULT_GRAPH_IRI)
        for triple, g, _ in items:
            by_graph.setdefault(g or default, []).append(triple)
        return " ".join(f"GRAPH {g} {{ {' . '.join(ts)} }}" for g, ts in by_graph.items())

    def _chunks(self, items: list[_Item]) -> Iterator[list[_Item]]:
        size = self.engine.update_quads
        for i in range(0, len(items), size):
            yield items[i:i + size]

    def add(self, quads: Iterable[Quad]) -> None:
        """Insert quads: one ``INSERT DATA`` request per :attr:`Engine.update_quads` quads.

        Terms are checked before anything is sent, so an invalid one stores nothing. An
        add larger than one request is not atomic (each request is); one recorded
        answer (about 100 statements) is one request.

        Raises:
            StoreError: a term is invalid, or the engine refuses the request.
        """
        self.add_items_chunked(_items(quads))

    def _no_blank(self, items: Sequence[_Item], what: str) -> None:
        if any(b for _, _, b in items):
            raise StoreError(f"{what} on {self.location}: a quad names a blank node, which a "
                             "request to a SPARQL endpoint cannot address (DELETE DATA admits "
                             "none); remove it through an IRI-matching update instead")

    def remove(self, quads: Iterable[Quad]) -> None:
        """Remove quads, ``DELETE DATA`` in chunks (a blank node is refused: see the module)."""
        items = _items(quads)
        self._no_blank(items, "remove")
        for chunk in self._chunks(items):
            self._post_update(f"DELETE DATA {{ {self._data_blocks(chunk)} }}", "remove")

    def replace(self, remove: Iterable[Quad], add: Iterable[Quad]) -> None:
        """Remove and add in one update request.

        Where one request is one transaction (Oxigraph, most engines): ``DELETE DATA``;
        ``INSERT DATA``. On Virtuoso, whose multi-operation requests are not atomic, one
        ``DELETE { } INSERT { } WHERE { }`` operation.

        Raises:
            StoreError: a term is invalid or a removed quad names a blank node (nothing is
                sent then); on Virtuoso, the replace does not fit one request.
        """
        rm, ad = _items(remove), _items(add)
        self._no_blank(rm, "replace")
        added = {(t, g) for t, g, _ in ad}  # removed and added: present afterwards
        rm = [it for it in rm if (it[0], it[1]) not in added]
        if not rm:
            self.add_items_chunked(ad)
            return
        if self.engine.atomic_requests:
            parts = [f"DELETE DATA {{ {self._data_blocks(rm)} }}"]
            if ad:
                parts.append(f"INSERT DATA {{ {self._data_blocks(ad)} }}")
            self._post_update(" ;\n".join(parts), "replace")
            return
        if len(rm) + len(ad) > self.engine.update_quads:
            raise StoreError(
                f"replace on {self.location}: {len(rm) + len(ad):,} quads do not fit one "
                f"{self.engine.name} update request ({self.engine.update_quads:,}), and "
                f"{self.engine.name} does not run several requests as one transaction; "
                "replace fewer statements at a time")
        self._post_update(f"DELETE {{ {self._data_blocks(rm)} }} "
                          f"INSERT {{ {self._data_blocks(ad)} }} WHERE {{ }}", "replace")

    def bulk_add(self, quads: Iterable[Quad]) -> None:
        """Insert quads without a transaction: N-Triples POSTed per graph to the Graph
        Store Protocol URL in chunks of about 4 MB (SPARQL 1.1 Graph Store Protocol §5.5);
        ``INSERT DATA`` chunks when the store has no GSP URL. Quads with blank nodes go
        in one request, so each label stays one node.

        Raises:
            StoreError: a term is invalid (nothing sent), or the engine refuses a chunk
                (earlier chunks stay stored).
        """
        items = _items(quads)
        if self.gsp_url is None:
            self.add_items_chunked(items)
            return
        self.add_items_chunked([it for it in items if it[2]])
        by_graph: dict[str, list[str]] = {}
        default = sparql_term(DEFAULT_GRAPH_IRI)
        for triple, g, blank in items:
            if not blank:
                by_graph.setdefault(g or default, []).append(triple + " .\n")
        for g, lines in by_graph.items():
            url = f"{self.gsp_url}?{urllib.parse.urlencode({'graph': g[1:-1]})}"
            buf: list[str] = []
            size = 0
            for line in lines + [""]:
                if line:
                    buf.append(line)
                    size += len(line)
                if buf and (size >= _GSP_CHUNK_BYTES or not line):
                    self.http.send("POST", url, "".join(buf).encode("utf-8"),
                                   {"Content-Type": "application/n-triples"},
                                   what=f"Graph Store Protocol POST of {len(buf):,} triples")
                    buf, size = [], 0

    def add_items_chunked(self, items: list[_Item]) -> None:
        """``INSERT DATA`` of serialized quads in chunks; the quads with blank nodes in one
        request of their own (``INSERT { } WHERE { }`` where ``INSERT DATA`` admits none),
        so a label shared by several quads stays one node."""
        blank = [it for it in items if it[2]]
        if blank:
            if self.engine.insert_data_bnodes:
                self._post_update(f"INSERT DATA {{ {self._data_blocks(blank)} }}", "add")
            else:
                self._post_update(f"INSERT {{ {self._data_blocks(blank)} }} WHERE {{ }}", "add")
            items = [it for it in items if not it[2]]
        for chunk in self._chunks(items):
            self._post_update(f"INSERT DATA {{ {self._data_blocks(chunk)} }}", "add")

    def load(self, data: bytes | str | IO[bytes], format: str, *, graph: IRI | None = None,
             base_iri: str | None = None) -> int:
        """Parse locally (so a bad document stores nothing), then :meth:`add`; returns the
        quads added (two count requests around the insert)."""
        if not isinstance(data, (bytes, str)):
            data = data.read()
        quads = parse_rdf(data, format, base_iri=base_iri, graph=graph)
        before = len(self)
        self.add(quads)
        return len(self) - before

    def update(self, sparql: str, *, source: str = "<text>") -> None:
        """Run a SPARQL 1.1 Update on the engine (atomic where the engine makes one
        request one transaction; on Virtuoso each operation is its own).

        Raises:
            QuerySyntaxError: the engine does not parse it.
            StoreError: the engine refuses it or cannot be reached.
        """
        self._post_update(sparql, source)

    def remove_graph(self, graph: IRI) -> None:
        self._post_update(f"DROP SILENT GRAPH {sparql_term(graph)}", "remove_graph")

    def clear(self) -> None:
        """Drop every graph this store shows (and its default graph), not the engine's own."""
        for g in self.named_graphs() + [DEFAULT_GRAPH_IRI]:
            self.remove_graph(g)

    def close(self) -> None:
        self.http.close()


_Item = tuple[str, "str | None", bool]
"""A quad serialized for update text: ``("S P O", "<graph>" or None, has a blank node)``."""


def _items(quads: Iterable[Quad]) -> list[_Item]:
    qs = list(quads)
    return [(t, g, isinstance(q[0], BNode) or isinstance(q[2], BNode))
            for (t, g), q in zip(sparql_quads(qs), qs)]


_FLOATS = frozenset({_XSD + "double", _XSD + "float"})


def _canonical_double(value: str) -> str:
    """An ``xsd:double`` in the form the embedded store writes
    (:func:`provgraph._lexical.double_form`), so engines that keep ``1.0`` or write
    ``1.0E-7`` (Virtuoso) give the same rows; a value that is not a number is kept."""
    try:
        return double_form(float(value))
    except ValueError:
        return value


def _key(t: Term | None) -> str:
    """The keyset paging key of a row (``STR()`` of the key variable, a plain literal)."""
    if not isinstance(t, Literal):
        raise StoreError(f"keyset paging: the engine answered {t!r} for STR()")
    return t.value


def _term(b: Mapping[str, str], boolean_digits: bool) -> Term:
    """One RDF term of a SPARQL 1.1 Query Results JSON binding (§3.2.2)."""
    kind, value = b.get("type"), b.get("value", "")
    if kind == "uri":
        return IRI(value)
    if kind == "bnode":
        # engines label blank nodes freely ("nodeID://b10000"); keep them valid labels
        return BNode(value if value.isalnum() else "b" + value.encode("utf-8").hex())
    if kind in ("literal", "typed-literal"):
        lang = b.get("xml:lang")
        if lang:
            return Literal(value, None, lang)
        dt = b.get("datatype")
        if dt == _XSD + "string":
            dt = None
        if boolean_digits and dt == _XSD + "boolean" and value in ("0", "1"):
            value = "true" if value == "1" else "false"
        elif dt in _FLOATS:
            value = _canonical_double(value)
        elif dt == _XSD + "dateTime":
            # Virtuoso writes six fraction digits ("...13.711030Z"): the canonical form, as
            # the Recorder writes it and the embedded store returns it, so a time read here
            # and there is one literal (claim bundles, their digests); an ill-typed value
            # is kept as the engine gave it
            value = canonical(Literal(value, dt)).value
        return Literal(value, dt)
    raise QueryError(f"unsupported term in SPARQL JSON results: {dict(b)!r}")


def _open_endpoint(url: str, originals: Path, update_url: str | None,
                   gsp_url: str | None) -> RemoteStore:
    env = dict(os.environ)
    if update_url:
        env["PROVGRAPH_UPDATE_ENDPOINT"] = update_url
    if gsp_url:
        env["PROVGRAPH_GSP_ENDPOINT"] = gsp_url
    return RemoteStore.from_env(url, originals=originals, env=env)


register_endpoint_opener(_open_endpoint)
