"""Shared plumbing of the query-backed analytics: running a bundled query, row
types with stable columns, and term conversions. Private to provgraph."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeVar

from .errors import QueryParameterError
from .queries import Param, QueryCatalog, bind_value
from .store import ProvStore
from .terms import IRI, Literal, Term, term_value

PREFIXES = {
    "prov": "http://www.w3.org/ns/prov#",
    "pg": "https://w3id.org/provgraph/ns#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "oa": "http://www.w3.org/ns/oa#",
}
"""Prefixes used to shorten relation names in rows (``prov:wasDerivedFrom``)."""


@lru_cache(maxsize=1)
def _catalog() -> QueryCatalog:
    return QueryCatalog()


def code_key(tag: str, modules: Sequence[str], queries: Sequence[str]) -> str | None:
    """A SHA-256 digest (hex) of the code that fills a derived index: ``tag`` (the index's
    name), the bytes of ``modules`` (paths relative to the provgraph package) and the text
    of the bundled ``queries``, so that an index written by other code is not used (the
    stale and impact indexes). ``None`` when a module's source cannot be read, as in an
    installation that ships bytecode only: then no index is read or written."""
    import hashlib
    from pathlib import Path

    h = hashlib.sha256(tag.encode())
    base = Path(__file__).parent
    try:
        for name in modules:
            h.update(name.encode() + b"\0" + (base / name).read_bytes() + b"\0")
    except OSError:
        return None
    for name in queries:
        h.update(name.encode() + b"\0" + _catalog().get(name).text.encode() + b"\0")
    return h.hexdigest()


def _run_query(store: ProvStore, name: str, params: Mapping[str, Any]) -> list[dict[str, Term | None]]:
    return _catalog().run(store, name, params)


def _run_values(store: ProvStore, name: str, var: str, terms: Sequence[IRI | Literal],
                params: Mapping[str, Any] | None = None) -> list[dict[str, Term | None]]:
    """Run the bundled query ``name`` for all of ``terms`` as its parameter ``var`` at once:
    a trailing ``VALUES`` clause (:meth:`ProvStore.select`), one query instead of one per
    term, each planned anew. The terms come from the store, so the catalog's checks of
    ``var`` are skipped; the other ``params`` (``None`` values: not given) are bound as
    :meth:`QueryCatalog.run` binds them. No terms: no query, no rows.

    Raises:
        QueryParameterError: a value of ``params`` does not fit its declared type, or
            is not a parameter of the query.
    """
    if not terms:
        return []
    q = _catalog().get(name)
    declared = {p.name: p for p in q.params}
    bound = {}
    for k, v in (params or {}).items():
        if v is None:
            continue
        if k not in declared or k == var:
            raise QueryParameterError(q.name, f"{k} is not a parameter of {q.name} besides ?{var}",
                                      unexpected=[k])
        bound[k] = bind_value(q.name, declared[k], v)
    return store.select(q.text, bound, source=q.path, values=(var, list(dict.fromkeys(terms))))


def curie(iri: str) -> str:
    """``iri`` shortened with :data:`PREFIXES` (``prov:used``), or unchanged."""
    for prefix, base in PREFIXES.items():
        if iri.startswith(base):
            return f"{prefix}:{iri[len(base):]}"
    return iri


class _Row:
    """Shared behaviour of the row types: column names and a JSON-friendly dict."""

    __slots__ = ()

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        """The field names, in order (the CSV/table columns)."""
        return _shape(cls)[0]

    def to_dict(self) -> dict[str, Any]:
        """The row as a dict of JSON values: IRIs as text, times as ISO 8601 strings."""
        columns, values = _shape(type(self))
        return dict(zip(columns, map(_json_value, values(self))))


def dicts_of(rows: Iterable[_Row]) -> list[dict[str, Any]]:
    """``[row.to_dict() for row in rows]``, the same dicts, made faster for many rows of one
    type (what the CLI prints): each distinct text and each time object is converted once
    (a whole-store question repeats its runs, snapshots and times on every row)."""
    out: list[dict[str, Any]] = []
    texts: dict[str, str] = {}
    times: dict[int, str] = {}
    alive: list[Any] = []  # the time objects in ``times``, so that no id is reused meanwhile
    shape: _Shape | None = None
    row_type: type | None = None
    for row in rows:
        if type(row) is not row_type:
            row_type = type(row)
            shape = _shape(row_type)
        columns, values = shape  # type: ignore[misc]
        got = []
        for v in values(row):
            cls = type(v)
            if cls is str or v is None or cls is int or cls is bool:
                got.append(v)
            elif isinstance(v, str):  # an IRI: the same text whatever its class
                text = texts.get(v)
                if text is None:
                    text = texts[v] = str(v)
                got.append(text)
            elif isinstance(v, _dt.datetime):  # by object: equal instants may differ in zone
                iso = times.get(id(v))
                if iso is None:
                    iso = times[id(v)] = v.isoformat()
                    alive.append(v)
                got.append(iso)
            else:
                got.append(v)
        out.append(dict(zip(columns, got)))
    return out


_Shape = tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]
_SHAPES: dict[type, _Shape] = {}


def _shape(cls: type) -> _Shape:
    """A row type's field names and a getter of all its values at once (computed once
    per type: the CLI calls :meth:`_Row.to_dict` for every row it prints, issue 16)."""
    shape = _SHAPES.get(cls)
    if shape is None:
        columns = tuple(f.name for f in dataclasses.fields(cls))
        get = operator.attrgetter(*columns)
        shape = _SHAPES[cls] = (columns, get if len(columns) > 1 else lambda row: (get(row),))
    return shape


def _json_value(v: Any) -> Any:
    """A field value as :meth:`_Row.to_dict` gives it: a datetime as ISO 8601 text, a
    ``str`` subclass (IRI) as ``str``, anything else as it is."""
    cls = type(v)
    if cls is str or v is None or cls is int or cls is bool:
        return v
    if isinstance(v, _dt.datetime):
        return v.isoformat()
    if isinstance(v, str):
        return str(v)
    return v


_R = TypeVar("_R", bound=_Row)


@lru_cache(maxsize=None)
def row_builder(cls: type[_R]) -> Callable[..., _R]:
    """A positional constructor for the frozen row type ``cls``: the arguments are its
    fields in order, stored as given (no conversion, no check), the same object the
    keyword constructor makes. It sets the slots directly instead of going through a
    frozen dataclass's ``object.__setattr__`` per field: about a third of the time
    (0.9 against 2.9 us for a 7-field row), which whole-store questions pay once per row
    (issue 16). Generated once per class, as :mod:`dataclasses` generates ``__init__``.

    Raises:
        TypeError: ``cls`` is not a slotted dataclass without ``__post_init__``.
    """
    if not (dataclasses.is_dataclass(cls) and "__slots__" in cls.__dict__) \
            or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: not a slotted dataclass without __post_init__")
    names = [f.name for f in dataclasses.fields(cls)]
    ns: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = [f"def build({', '.join(names)}):", "    o = new(cls)"]
    for i, name in enumerate(names):
        ns[f"set{i}"] = cls.__dict__[name].__set__  # the slot's member descriptor
        lines.append(f"    set{i}(o, {name})")
    lines.append("    return o")
    exec("\n".join(lines), ns)  # field names are identifiers of provgraph's own row types
    build: Callable[..., _R] = ns["build"]
    return build


def _iri(t: Term | None) -> IRI | None:
    return None if t is None else IRI(t)


def _str(t: Term | None) -> str | None:
    return None if t is None else str(t.value if isinstance(t, Literal) else t)


def _int(t: Term | None) -> int:
    return 0 if t is None else int(t.value if isinstance(t, Literal) else t)


def _time(t: Term | None) -> _dt.datetime | None:
    v = term_value(t)
    return v if isinstance(v, _dt.datetime) else None


_MIN = _dt.datetime.min.replace(tzinfo=_dt.timezone.utc)


def _check_iri(name: str, value: str) -> IRI:
    return IRI(bind_value(name, Param(name, "iri"), value))  # raises QueryParameterError
