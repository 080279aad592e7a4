"""The query catalog: named SPARQL 1.1 queries in ``queries/*.rq`` with checked headers.

Each ``.rq`` file starts with a header of SPARQL ``#`` comments (modelled on aiosql)::

    # name: lineage                  (optional; defaults to the file stem)
    # summary: Everything upstream of an entity, with depth.
    # params: ?entity:iri [?max_depth:integer]
    # returns: ?node ?kind ?depth
    # see: https://www.w3.org/TR/prov-o/

``params`` declares each parameter with its type; a parameter in ``[...]`` is
optional and, when no value is given, stays an unbound variable (so the query
must treat it as "no restriction", e.g. ``FILTER(!BOUND(?run) || ...)`` or by
simply joining on it). Types: ``iri``, ``string``, ``integer``, ``decimal``,
``double``, ``boolean``, ``dateTime``.

Checked when a file loads (:class:`QueryParameterError` / :class:`QuerySyntaxError`):

* the body parses as SPARQL 1.1;
* every declared parameter occurs in the body and is projected by the outer
  ``SELECT`` (values are bound with SPARQL substitution, SEP-0007, which
  pyoxigraph 0.5.13 applies only to projected variables);
* ``returns`` lists exactly the projected variables, in order;
* no ``SERVICE`` or ``LOAD`` clause and no update: a query file given by path or
  from the user's directories passes :func:`provgraph.sparql_guard.check_untrusted`
  (a SPARQL parser's tree, not a text scan; issue 15) before the engine sees it, so
  it never makes the engine send a request over the network (pyoxigraph evaluates
  SPARQL 1.1 Federated Query with HTTP requests). The bundled queries are trusted
  (``tests/test_sparql_guard.py`` checks that they pass it too).

Values are bound as RDF terms, never pasted into the text: ``x> } ; DROP ALL ; <y``
given as an ``iri`` is rejected as an invalid IRI, and as a ``string`` it is one
literal that cannot change the query.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import NotFound, QueryError, QueryNotFound, QueryParameterError, QuerySyntaxError
from .resources import data_dir
from .store import ProvStore, check_query_syntax
from .terms import IRI, Literal, Term, XSD

__all__ = ["NamedQuery", "Param", "QueryCatalog", "PARAM_TYPES", "bind_value"]

PARAM_TYPES = ("iri", "string", "integer", "decimal", "double", "boolean", "dateTime")

_HEADER = re.compile(r"^#\s*(name|summary|params|returns|see)\s*:\s*(.*?)\s*$")
_PARAM = re.compile(r"^(\[)?\?([A-Za-z_][A-Za-z0-9_]*):([A-Za-z]+)(\])?$")
_VAR = re.compile(r"[?$]([A-Za-z_][A-Za-z0-9_]*)")
_IRI_BAD = re.compile(r"[\s<>\"{}|^`\\]")


@dataclass(frozen=True, slots=True)
class Param:
    """A declared query parameter: its name (without ``?``), type and whether it is optional."""

    name: str
    type: str
    optional: bool = False


@dataclass(frozen=True, slots=True)
class NamedQuery:
    """A loaded, checked ``.rq`` query.

    Attributes:
        name: kebab-case name (file stem unless the header says otherwise).
        summary: one-line description.
        params: declared parameters, in header order.
        returns: projected variable names, in order.
        see: reference URL or issue.
        text: the full SPARQL text (header included; it is comments).
        path: the file it came from, or ``"<text>"``.
    """

    name: str
    summary: str
    params: tuple[Param, ...]
    returns: tuple[str, ...]
    see: str
    text: str
    path: str

    def bind(self, values: Mapping[str, Any] | None) -> dict[str, Term]:
        """Turn ``values`` (name -> Python value or string) into RDF terms by declared type.

        ``None`` values are treated as not given.

        Raises:
            QueryParameterError: a required parameter is missing, a name is not
                declared, or a value does not fit its type.
        """
        given = {k.lstrip("?$"): v for k, v in (values or {}).items() if v is not None}
        declared = {p.name: p for p in self.params}
        unexpected = sorted(set(given) - set(declared))
        if unexpected:
            raise QueryParameterError(
                self.name, f"unknown parameter(s) {', '.join(unexpected)}; it takes "
                + (", ".join(_describe(p) for p in self.params) or "no parameters"),
                unexpected=unexpected)
        missing = [p.name for p in self.params if not p.optional and p.name not in given]
        if missing:
            raise QueryParameterError(
                self.name, f"missing required parameter(s) {', '.join(missing)}; pass -p "
                + " -p ".join(f"{m}=VALUE" for m in missing), missing=missing)
        return {k: bind_value(self.name, declared[k], v) for k, v in given.items()}


def _describe(p: Param) -> str:
    s = f"{p.name}:{p.type}"
    return f"[{s}]" if p.optional else s


def bind_value(query: str, param: Param, value: Any) -> Term:
    """Convert one value to an RDF term of the parameter's declared type.

    Raises:
        QueryParameterError: the value does not fit the type (e.g. an IRI with
            spaces or angle brackets, ``"abc"`` for an integer, a naive dateTime).
    """
    t = param.type

    def bad(why: str) -> QueryParameterError:
        return QueryParameterError(query, f"parameter {param.name} ({t}): {value!r} {why}")

    if t == "iri":
        s = str(value)
        if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", s) or _IRI_BAD.search(s):
            raise bad("is not an absolute IRI (scheme:..., no spaces, <, >, quotes or braces)")
        return IRI(s)
    if t == "string":
        return Literal(str(value))
    if t == "boolean":
        s = str(value).lower()
        if isinstance(value, bool):
            s = "true" if value else "false"
        if s not in ("true", "false", "1", "0"):
            raise bad("is not a boolean (true or false)")
        return Literal("true" if s in ("true", "1") else "false", XSD + "boolean")
    if t == "integer":
        try:
            return Literal(str(int(str(value), 10)), XSD + "integer")
        except ValueError:
            raise bad("is not an integer") from None
    if t in ("decimal", "double"):
        try:
            float(str(value))
        except ValueError:
            raise bad(f"is not a {t}") from None
        return Literal(str(value), XSD + t)
    if t == "dateTime":
        if isinstance(value, _dt.datetime):
            dt = value
        else:
            try:
                dt = _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
            except ValueError:
                raise bad("is not an ISO 8601 dateTime") from None
        if dt.tzinfo is None:
            raise bad("has no time zone; add Z or an offset such as +00:00")
        return Literal(dt.isoformat(), XSD + "dateTime")
    raise bad(f"has an unknown declared type; use one of {PARAM_TYPES}")  # pragma: no cover


def _strip_comments_and_strings(text: str) -> str:
    """The query text with comments and string literals blanked (for variable scanning)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "\"'":
            triple = text[i:i + 3] in ('"""', "'''")
            q = text[i:i + 3] if triple else c
            j = i + len(q)
            while j < n and text[j:j + len(q)] != q:
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j + len(q)))  # keep line numbers
            i = j + len(q)
            continue
        if c == "<":  # an IRI ref cannot contain spaces; a '<' followed by space is an operator
            m = re.match(r"<[^\s<>\"{}|^`\\]*>", text[i:])
            if m:
                out.append("<>")
                i += m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _projection(body: str) -> list[str] | None:
    """Variables projected by the outer SELECT, in order; ``None`` for ``SELECT *`` or
    a non-SELECT query."""
    m = re.search(r"\bSELECT\b", body, re.IGNORECASE)
    if not m:
        return None
    i = m.end()
    depth = 0
    tokens: list[str] = []
    cur = ""
    while i < len(body):
        c = body[i]
        if depth == 0 and (c == "{" or re.match(r"(?i)\s(WHERE|FROM)\b", body[i:i + 6])):
            break
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                tokens.append(cur + c)
                cur = ""
                i += 1
                continue
        cur += c
        if depth == 0 and c.isspace():
            if cur.strip():
                tokens.append(cur.strip())
            cur = ""
        i += 1
    if cur.strip():
        tokens.append(cur.strip())
    names: list[str] = []
    for tok in tokens:
        if tok.upper() in ("DISTINCT", "REDUCED"):
            continue
        if tok == "*":
            return None
        if tok.startswith("("):
            am = re.search(r"\bAS\s+[?$]([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$", tok, re.IGNORECASE)
            if am:
                names.append(am.group(1))
        elif tok[:1] in "?$":
            names.append(tok[1:])
    return names


def _header(text: str) -> dict[str, str]:
    """The ``# key: value`` lines before the first line that is not a comment."""
    header: dict[str, str] = {}
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if not s.startswith("#"):
            break
        m = _HEADER.match(s)
        if m:
            header[m.group(1)] = m.group(2)
    return header


def parse_query(text: str, path: str, default_name: str, *, trusted: bool = False) -> NamedQuery:
    """Parse and check one ``.rq`` text (see the module docstring for the rules).

    ``trusted=True`` only for provgraph's bundled ``queries/``; any other text first
    passes :func:`provgraph.sparql_guard.check_untrusted`.

    Raises:
        QueryRefused: an untrusted query with a ``SERVICE`` or ``LOAD`` clause, an update,
            or nesting too deep to check (refused before anything runs).
        QuerySyntaxError: the body does not parse or the header is malformed.
        QueryParameterError: header and body disagree.
    """
    header = _header(text)
    name = header.get("name") or default_name
    params: list[Param] = []
    for tok in header.get("params", "").split():
        pm = _PARAM.match(tok)
        if not pm or bool(pm.group(1)) != bool(pm.group(4)):
            raise QuerySyntaxError(path, f"header 'params': {tok!r} is not ?name:type or [?name:type]")
        if pm.group(3) not in PARAM_TYPES:
            raise QuerySyntaxError(path, f"header 'params': type {pm.group(3)!r} of ?{pm.group(2)} "
                                         f"is not one of {', '.join(PARAM_TYPES)}")
        params.append(Param(pm.group(2), pm.group(3), bool(pm.group(1))))
    returns = tuple(t.lstrip("?$") for t in header.get("returns", "").split())
    body = _strip_comments_and_strings(text)
    if not trusted:  # before the engine's syntax check, which evaluates the query
        from .sparql_guard import check_untrusted  # (not needed by the bundled queries)

        check_untrusted(text, path)
    check_query_syntax(text, path)
    used = set(_VAR.findall(body))
    unused = [p.name for p in params if p.name not in used]
    if unused:
        raise QueryParameterError(name, f"{path}: declared parameter(s) {', '.join(unused)} "
                                        "are not used in the query body", unexpected=unused)
    projected = _projection(body)
    if projected is not None:
        unprojected = [p.name for p in params if p.name not in projected]
        if unprojected:
            raise QueryParameterError(
                name, f"{path}: parameter(s) {', '.join(unprojected)} must be in the SELECT "
                "list to be bound (SPARQL substitution binds projected variables)",
                missing=unprojected)
        if returns and tuple(projected) != returns:
            raise QueryParameterError(
                name, f"{path}: header 'returns' {' '.join('?' + r for r in returns)} does not "
                f"match the SELECT list {' '.join('?' + p for p in projected)}")
        if not returns:
            returns = tuple(projected)
    return NamedQuery(name=name, summary=header.get("summary", ""), params=tuple(params),
                      returns=returns, see=header.get("see", ""), text=text, path=path)


_INLINE = re.compile(r"[\s{}]")
"""What tells SPARQL text from a query name or a file path (:meth:`QueryCatalog.get`)."""


class QueryCatalog:
    """The named queries of one or more directories (default: the bundled ``queries/``).

    Args:
        directories: folders of ``.rq`` files; later folders override earlier
            names. ``None`` means the bundled folder only.

    Raises:
        QuerySyntaxError, QueryParameterError: a file fails its checks (on first use).

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> cat = QueryCatalog()
        >>> q = cat.get("lineage")
        >>> [p.name for p in q.params][:1]
        ['entity']
    """

    def __init__(self, directories: list[Path] | None = None) -> None:
        self._dirs = directories if directories is not None else [data_dir("queries")]
        self._cache: dict[str, NamedQuery | tuple[str, Path]] | None = None

    def _load(self) -> dict[str, NamedQuery | tuple[str, Path]]:
        # A user's folder is checked whole when first used, as before. A bundled query
        # is only named here (its header's name) and checked when first asked for:
        # one command uses one or two of them, and checking all of them cost ~14 ms
        # of every command's start-up (issue 16, item 3).
        if self._cache is None:
            found: dict[str, NamedQuery | tuple[str, Path]] = {}
            bundled = data_dir("queries")
            for d in self._dirs:
                for path in sorted(Path(d).glob("*.rq")):
                    text = path.read_text(encoding="utf-8")
                    if Path(d) == bundled:
                        found[_header(text).get("name") or path.stem] = (text, path)
                    else:
                        q = parse_query(text, str(path), path.stem)
                        found[q.name] = q
            self._cache = found
        return self._cache

    def _query(self, name: str) -> NamedQuery:
        queries = self._load()
        q = queries[name]
        if isinstance(q, tuple):
            text, path = q
            q = queries[name] = parse_query(text, str(path), path.stem, trusted=True)
        return q

    def names(self) -> list[str]:
        """All query names, sorted."""
        return sorted(self._load())

    def __iter__(self) -> Iterator[NamedQuery]:
        return iter([self._query(n) for n in self.names()])

    def get(self, name_or_path: str) -> NamedQuery:
        """A query by name, by path to a ``.rq`` file, or given as SPARQL text (any text
        that holds white space or a brace and does not end in ``.rq``; named
        ``query``, its source ``<command line>``); files and text are checked as
        untrusted (:func:`parse_query`).

        Raises:
            QueryNotFound: no such name or file (with the closest name suggested).
        """
        if not name_or_path.endswith(".rq") and _INLINE.search(name_or_path):
            return parse_query(name_or_path, "<command line>", "query")
        p = Path(name_or_path)
        if name_or_path.endswith(".rq") or "/" in name_or_path:
            if p.is_dir():
                raise QueryNotFound(name_or_path, [str(p.absolute())], found="a directory")
            if not p.is_file():
                raise QueryNotFound(name_or_path, [str(p.absolute())], file=True)
            return parse_query(p.read_text(encoding="utf-8"), str(p), p.stem)
        queries = self._load()
        if name_or_path in queries:
            return self._query(name_or_path)
        if p.is_dir() or p.is_file():  # not a query name, but there: say what it is
            raise QueryNotFound(name_or_path, [str(p.absolute())],
                                found="a directory" if p.is_dir() else "a file")
        import difflib  # only for the error message

        close = difflib.get_close_matches(name_or_path, list(queries), n=1)
        raise QueryNotFound(name_or_path, [str(d) for d in self._dirs], close[0] if close else None)

    def run(self, store: ProvStore, name_or_path: str | NamedQuery,
            params: Mapping[str, Any] | None = None, *,
            require_known: bool = False) -> list[dict[str, Term | None]]:
        """Run a named SELECT query with parameters bound as RDF terms.

        Args:
            store: the store to query.
            name_or_path: query name (see :meth:`names`), ``.rq`` path, SPARQL text
                (:meth:`get`), or a :class:`NamedQuery` already parsed.
            params: parameter values by name; strings are converted by declared type.
            require_known: when the query returns no rows, raise :class:`NotFound`
                for an ``iri`` parameter the store does not mention at all (as the
                functions of :mod:`provgraph.analytics` do), instead of returning
                ``[]``: a mistyped IRI is then told apart from a true empty answer.
                Checked only when no row came back, so it costs nothing otherwise.

        Returns:
            One dict per solution, keyed by the query's ``returns`` variables.

        Raises:
            QueryNotFound, QueryParameterError, QuerySyntaxError, QueryError.
            NotFound: ``require_known`` and an IRI parameter names nothing in the store.
        """
        q = name_or_path if isinstance(name_or_path, NamedQuery) else self.get(name_or_path)
        bound = q.bind(params)
        rows = store.select(q.text, bound, source=q.path)
        if require_known and not rows:
            for p in q.params:
                term = bound.get(p.name)
                # a .rq file may bind an IRI parameter in any position
                if p.type == "iri" and isinstance(term, IRI) and not store.occurs(term):
                    raise NotFound(term, f"{p.name}")
        return rows
