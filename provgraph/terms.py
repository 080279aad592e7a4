"""Backend-neutral RDF terms: the only term types code above the store layer sees.

provgraph keeps pyoxigraph behind :mod:`provgraph.store` so that a remote
SPARQL 1.1 endpoint can serve as a second store implementation. Every other
module builds statements from these small, immutable types:

* :class:`IRI` - a ``str`` subclass holding an absolute IRI (RDF 1.1 §3.2).
* :class:`BNode` - a blank node with a local label (RDF 1.1 §3.4).
* :class:`Literal` - lexical form, datatype IRI and optional language tag
  (RDF 1.1 §3.3). A :class:`Literal` holds its lexical form exactly as given
  (provgraph never re-serialises one through a Python value), and the store gives
  it back so (:mod:`provgraph._lexical`; "Literal fidelity" in the README).
* :data:`Quad` - ``(subject, predicate, object, graph)``; ``graph`` is an
  :class:`IRI` or ``None`` for the default graph.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Any, Union

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
RDF_JSON = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"


class IRI(str):
    """An absolute IRI (RDF 1.1 Concepts §3.2). A ``str`` subclass, so it compares
    and hashes like its text; validation happens when the store converts it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"IRI({str.__repr__(self)})"

    def n3(self) -> str:
        """The IRI in N-Triples form, ``<...>``."""
        return f"<{self}>"


class BNode(str):
    """A blank node identified by a local label (RDF 1.1 Concepts §3.4)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"BNode({str.__repr__(self)})"

    def n3(self) -> str:
        """The blank node in N-Triples form, ``_:label``."""
        return f"_:{self}"


@dataclass(frozen=True, slots=True)
class Literal:
    """An RDF literal (RDF 1.1 Concepts §3.3).

    Args:
        value: the lexical form, exactly as it is to be stored.
        datatype: datatype IRI; ``None`` means ``xsd:string`` (or
            ``rdf:langString`` when ``language`` is set).
        language: BCP 47 language tag, or ``None``.
    """

    value: str
    datatype: str | None = None
    language: str | None = None

    @property
    def datatype_iri(self) -> IRI:
        """The effective datatype IRI (``xsd:string`` when none was given)."""
        if self.language:
            return IRI(RDF_LANG_STRING)
        return IRI(self.datatype or XSD + "string")

    def to_python(self) -> Any:
        """The value as a Python object for common XSD datatypes, else the lexical form.

        ``xsd:integer`` and its subtypes give ``int``, ``xsd:double``/``float``
        give ``float``, ``xsd:boolean`` gives ``bool``, ``xsd:dateTime`` gives a
        ``datetime`` (aware when the lexical form has a zone), ``rdf:JSON`` gives
        the decoded JSON value.
        """
        dt = self.datatype or ""
        try:
            if dt in _INT_TYPES:
                return int(self.value)
            if dt in (XSD + "double", XSD + "float"):
                return float(self.value)
            if dt == XSD + "boolean":
                return self.value in ("true", "1")
            if dt in (XSD + "dateTime", XSD + "dateTimeStamp"):
                # the one reading of a recorded time (issue 15): aware, a time without a
                # zone read as UTC, so any two decoded times compare
                when = _dt.datetime.fromisoformat(self.value.replace("Z", "+00:00"))
                return zoneless_as_utc(when)
            if dt == RDF_JSON:
                return json.loads(self.value)
        except ValueError:
            return self.value
        return self.value

    def n3(self) -> str:
        """The literal in N-Triples form."""
        text = json.dumps(self.value, ensure_ascii=False)
        if self.language:
            return f"{text}@{self.language}"
        if self.datatype and self.datatype != XSD + "string":
            return f"{text}^^<{self.datatype}>"
        return text


_INT_TYPES = frozenset(
    XSD + t
    for t in (
        "integer", "int", "long", "short", "byte", "nonNegativeInteger",
        "positiveInteger", "unsignedInt", "unsignedLong", "unsignedShort",
        "unsignedByte", "negativeInteger", "nonPositiveInteger",
    )
)

Term = Union[IRI, BNode, Literal]
Quad = tuple[Union[IRI, BNode], IRI, Term, Union[IRI, None]]


def zoneless_as_utc(when: _dt.datetime) -> _dt.datetime:
    """``when`` itself when it has a zone, else the same wall time in UTC: provgraph's one
    rule for a time without a zone (README "Auditing"; :func:`provgraph.xsd.instant` and
    :meth:`Literal.to_python` apply it, issue 15).

    Example:
        >>> zoneless_as_utc(_dt.datetime(2026, 3, 2, 9, 0)).isoformat()
        '2026-03-02T09:00:00+00:00'
    """
    if when.tzinfo is None or when.utcoffset() is None:
        return when.replace(tzinfo=_dt.timezone.utc)
    return when


def lit(value: Any) -> Literal:
    """Build a :class:`Literal` from a Python value with the natural XSD datatype.

    Accepts ``str`` (xsd:string), ``bool`` (xsd:boolean), ``int`` (xsd:integer),
    ``float`` (xsd:double: the shortest decimal that reads back as the value, positional:
    ``1``, ``0.5``, ``0.0000001``), timezone-aware ``datetime`` (xsd:dateTime, ISO 8601
    with offset, ``Z`` for UTC, no trailing zeros in the fraction), and
    ``dict``/``list`` (rdf:JSON, keys sorted so equal values give equal literals). The
    numeric and time forms are the canonical ones the store keeps natively, so SPARQL
    compares what provgraph records by value (:mod:`provgraph._lexical`).

    Raises:
        ValueError: for a naive ``datetime`` (a time without a zone is ambiguous
            in an audit trail) or an unsupported type.
    """
    if isinstance(value, Literal):
        return value
    if isinstance(value, bool):
        return Literal("true" if value else "false", XSD + "boolean")
    if isinstance(value, int):
        return Literal(str(value), XSD + "integer")
    if isinstance(value, float):
        from ._lexical import double_form

        return Literal(double_form(value), XSD + "double")
    if isinstance(value, str):
        return Literal(value)
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(
                f"naive datetime {value.isoformat()!r}: pass a timezone-aware datetime "
                "(for example datetime.now(timezone.utc))"
            )
        from ._lexical import datetime_form

        return Literal(datetime_form(value), XSD + "dateTime")
    if isinstance(value, (dict, list)):
        return Literal(
            json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")),
            RDF_JSON,
        )
    raise ValueError(f"cannot make an RDF literal from {type(value).__name__}: {value!r}")


def term_value(term: Term | None) -> Any:
    """The plain Python value of a term: ``str`` for IRIs and blank nodes,
    :meth:`Literal.to_python` for literals, ``None`` for ``None``."""
    if term is None:
        return None
    if isinstance(term, Literal):
        return term.to_python()
    return str(term)


def term_to_json(term: Term) -> dict[str, str]:
    """``term`` in the SPARQL 1.1 Query Results JSON form (W3C, §3.2.2): ``{"type": "uri",
    "value": ...}``, ``{"type": "literal", "value": ..., "datatype": ...}`` (or ``"xml:lang"``),
    ``{"type": "bnode", "value": ...}``; the lexical form is kept exactly.

    Raises:
        TypeError: ``term`` is not an RDF term."""
    if isinstance(term, Literal):
        out = {"type": "literal", "value": term.value}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype:
            out["datatype"] = term.datatype
        return out
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    if isinstance(term, str):  # IRI
        return {"type": "uri", "value": str(term)}
    raise TypeError(f"not an RDF term: {term!r}")


def term_from_json(obj: Any) -> Term:
    """The term written by :func:`term_to_json` (``typed-literal`` accepted as well).

    Raises:
        ValueError: ``obj`` is not a term object.
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("value"), str):
        raise ValueError(f"not an RDF term in SPARQL JSON form: {obj!r}")
    kind, value = obj.get("type"), obj["value"]
    if kind == "uri":
        return IRI(value)
    if kind == "bnode":
        return BNode(value)
    if kind in ("literal", "typed-literal"):
        if obj.get("xml:lang"):
            return Literal(value, None, obj["xml:lang"])
        dt = obj.get("datatype")
        return Literal(value, None if dt in (None, XSD + "string") else dt)
    raise ValueError(f"unknown term type {kind!r} in {obj!r}")
