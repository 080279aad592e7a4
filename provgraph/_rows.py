"""Shared plumbing of the query-backed analytics: running a bundled query, row
types with stable columns, and term conversions. Private to provgraph."""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

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


def _run_query(store: ProvStore, name: str, params: Mapping[str, Any]) -> list[dict[str, Term | None]]:
    return _catalog().run(store, name, params)


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
        return tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        """The row as a dict of JSON values: IRIs as text, times as ISO 8601 strings."""
        out: dict[str, Any] = {}
        for name in self.columns():
            v = getattr(self, name)
            if isinstance(v, _dt.datetime):
                v = v.isoformat()
            elif isinstance(v, str):
                v = str(v)
            out[name] = v
        return out


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
