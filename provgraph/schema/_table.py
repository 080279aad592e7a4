"""The machinery every schema module shares: a record's field -> predicate table, its
statements, and the batch read that decodes them back.

A :class:`Table` describes one recorded concept (a ``pg:Citation``, a ``pg:Chunk``, ...):

* ``types``: the ``rdf:type`` IRIs every such resource carries (PROV-O class first);
* ``fields``: :class:`Field` rows, one per record attribute stored on the subject
  itself (attribute name, predicate, codec, cardinality);
* ``parts``: :class:`Part` rows, one per node the record owns, minted as the
  subject's IRI plus a fragment (``#quote``, ``#segment-3``) and reached by a link
  predicate: a W3C Web Annotation selector, a qualified PROV influence node, a
  prompt segment. A part is either *flat* (its fields are attributes of the parent
  record, as a citation's quote selector) or a tuple of sub-records of its own
  table (a retrieval's hits, a prompt's segments).

:meth:`Table.quads` writes a record's statements; :meth:`Table.read` reads any
number of subjects back with **one** SPARQL query (``VALUES`` over the subjects,
SPARQL 1.1 §10.2.2; parts come along in the same query) and returns their
predicate maps, which :meth:`Table.decode` turns into field values. The
ontology check (``tests/test_schema.py``) walks :func:`all_tables` so every
predicate used here is declared in ``ontologies/rag-prov.ttl`` (or is a W3C term).

Codecs (literal <-> Python): ``str`` (xsd:string), ``int`` (xsd:integer), ``bool``
(xsd:boolean), ``float`` (xsd:double), ``datetime`` (xsd:dateTime, timezone-aware),
``json`` (rdf:JSON, keys sorted), ``iri`` (an IRI object, not a literal).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import StoreError
from ..store import ProvStore
from ..terms import IRI, BNode, Literal, Quad, Term, lit
from ..vocab import RDF

__all__ = ["Field", "Part", "Table", "Props", "all_tables", "decode_term", "encode_value",
           "inverse_key"]

CODECS = ("str", "int", "bool", "float", "datetime", "json", "iri")

Props = dict[IRI, list[Term]]
"""Predicate -> objects of one subject, objects in a stable (sorted) order."""


@dataclass(frozen=True, slots=True)
class Field:
    """One record attribute stored as ``subject predicate object``.

    Args:
        attr: the record attribute.
        predicate: the RDF predicate.
        codec: one of ``str``, ``int``, ``bool``, ``float``, ``datetime``, ``json``, ``iri``.
        many: the attribute is a tuple (one statement per element; read back sorted).
        default: the attribute's value when no statement is stored (``None`` unless given).
        write: ``False`` for an attribute another step writes (read only here).
        inverse: the statement is ``object predicate subject`` (a claim's
            ``pg:citation`` names the citation; read back as the citation's ``claim``).
        requires: the attribute whose value must be set for this one to be written
            (a citation's unit and end flag are written with its range only).
        omit_empty: an empty value (``""``, ``()``, ``{}``) is written as no statement
            (and read back as ``default``).
        read: ``False`` for a value derived from other attributes (written, not decoded:
            an agent's ``rdfs:label``).
    """

    attr: str
    predicate: IRI
    codec: str = "str"
    many: bool = False
    default: Any = None
    write: bool = True
    read: bool = True
    omit_empty: bool = False
    inverse: bool = False
    requires: str | None = None

    def __post_init__(self) -> None:
        if self.codec not in CODECS:
            raise ValueError(f"Field {self.attr}: codec {self.codec!r} is not one of {CODECS}")


@dataclass(frozen=True, slots=True)
class Part:
    """A node a record owns: ``subject link <subject + fragment>``.

    Args:
        attr: for a flat part, the record attribute whose presence says whether the
            node is written (a citation's ``quote``); for a list part, the record
            attribute holding the tuple of sub-records.
        link: the predicate from the subject to the node (``oa:hasSelector``,
            ``pg:segment``, ``prov:qualifiedUsage``).
        fragment: the node IRI's fragment; ``{i}`` is the element's index (list parts),
            ``{key}`` the value of ``key`` (a hit's rank).
        table: the node's own table (its types and fields).
        many: a list part (a tuple of sub-records) rather than a flat one.
        key: for a list part, the sub-record attribute that orders the elements and
            fills ``{key}`` (default: the element's position, ``{i}``).
    """

    attr: str
    link: IRI
    fragment: str
    table: "Table"
    many: bool = False
    key: str | None = None

    def node(self, subject: str, i: int, value: Any = None) -> IRI:
        """The IRI of element ``i`` (or the single node) of this part under ``subject``."""
        k = getattr(value, self.key) if (self.key and value is not None) else i
        return IRI(subject + self.fragment.format(i=i, key=k))


@dataclass(frozen=True)
class Table:
    """The field -> predicate table of one recorded concept (see the module docstring).

    Args:
        name: the concept, e.g. ``"citation"`` (used in messages).
        types: ``rdf:type`` IRIs written for every record.
        fields: the attributes stored on the subject.
        parts: the nodes the record owns.
        extra_types: a function giving further types from the record (an agent's role class).
        record: the record class :meth:`build` instantiates (``None`` for flat-part tables).
    """

    name: str
    types: tuple[IRI, ...]
    fields: tuple[Field, ...]
    parts: tuple[Part, ...] = ()
    extra_types: Callable[[Any], Iterable[IRI]] | None = None
    record: type | None = None

    def __post_init__(self) -> None:
        _TABLES.append(self)

    # ------------------------------------------------------------------ writing
    def quads(self, subject: IRI, record: Any, graph: IRI | None, *,
              types: bool = True) -> list[Quad]:
        """Every statement of ``record`` under ``subject`` in ``graph``: its types, each
        written field that is not ``None`` (each element of a ``many`` field), and its
        parts. ``types=False`` leaves out the ``rdf:type`` statements."""
        s = subject
        q: list[Quad] = []
        if types:
            q += [(s, RDF.type, t, graph) for t in self.types]
            if self.extra_types is not None:
                q += [(s, RDF.type, t, graph) for t in self.extra_types(record)]
        for f in self.fields:
            if not f.write:
                continue
            value = getattr(record, f.attr)
            if value is None or (f.codec == "iri" and value == ""):
                continue
            if f.omit_empty and value in ("", (), {}):
                continue
            if f.requires is not None and getattr(record, f.requires) is None:
                continue
            for v in (value if f.many else (value,)):
                t = encode_value(f.codec, v)
                if f.inverse:
                    if not isinstance(t, IRI):
                        raise ValueError(f"{self.name}.{f.attr}: an inverse field holds IRIs")
                    q.append((t, f.predicate, s, graph))
                else:
                    q.append((s, f.predicate, t, graph))
        for p in self.parts:
            value = getattr(record, p.attr)
            if p.many:
                for i, sub in enumerate(value or ()):
                    node = p.node(s, i, sub)
                    q.append((s, p.link, node, graph))
                    q += p.table.quads(node, sub, graph)
            elif value is not None:
                node = p.node(s, 0)
                q.append((s, p.link, node, graph))
                q += p.table.quads(node, record, graph)
        return q

    # ------------------------------------------------------------------ reading
    def decode(self, props: Mapping[IRI, list[Term]], nodes: Mapping[IRI, Props],
               subject: IRI) -> dict[str, Any]:
        """Field values of one subject from its predicate map ``props`` and the
        predicate maps of its part nodes (``nodes``, by node IRI)."""
        out: dict[str, Any] = {}
        for f in self.fields:
            if not f.read:
                continue
            key = inverse_key(f.predicate) if f.inverse else f.predicate
            vals = [decode_term(f.codec, t) for t in props.get(key, [])]
            if f.many:
                out[f.attr] = tuple(sorted(vals, key=_sort_key)) if vals else (f.default or ())
            else:
                out[f.attr] = vals[0] if vals else f.default
        for p in self.parts:
            linked = [IRI(t) for t in props.get(p.link, []) if not isinstance(t, Literal)]
            kind = p.table.types[0] if p.table.types else None
            mine = [n for n in linked
                    if (kind in nodes.get(n, {}).get(RDF.type, []) if kind else n.startswith(subject + "#"))]
            if p.many:
                subs = []
                for n in mine:
                    sub = p.table.build(nodes.get(n, {}), nodes, n)
                    if sub is not None:
                        subs.append((_index(p, n, sub), sub))
                out[p.attr] = tuple(s for _, s in sorted(subs, key=lambda x: x[0]))
            else:
                node = p.node(subject, 0)
                pick = node if node in mine else (mine[0] if mine else None)
                flat = p.table.decode(nodes.get(pick, {}), nodes, pick) if pick is not None else {
                    f.attr: f.default for f in p.table.fields if f.read}
                for k, v in flat.items():  # the subject's own statement wins (chunk start)
                    if out.get(k) is None:
                        out[k] = v
        return out

    def build(self, props: Props, nodes: Mapping[IRI, Props], subject: IRI,
              **known: Any) -> Any:
        """The record of ``subject``: :meth:`decode` plus ``known`` attributes, given to
        the table's record class (``None`` when the table has none)."""
        if self.record is None:
            return None
        values = self.decode(props, nodes, subject)
        values.update(known)
        return self.record(**values)

    def part_links(self) -> frozenset[IRI]:
        """The link predicates of this table's parts, nested parts included."""
        out: set[IRI] = set()
        for p in self.parts:
            out.add(p.link)
            out |= p.table.part_links()
        return frozenset(out)

    def predicates(self) -> set[IRI]:
        """Every predicate this table (and its parts) reads or writes."""
        out = {f.predicate for f in self.fields} | {RDF.type}
        for p in self.parts:
            out.add(p.link)
            out |= p.table.predicates()
        return out

    def read_typed(self, store: ProvStore, subjects: Sequence[IRI], rdf_type: IRI) -> tuple[
            dict[IRI, Props], dict[IRI, Props], dict[IRI, IRI | None]]:
        """:meth:`read`, keeping only the subjects typed ``rdf_type`` (one query)."""
        props, nodes, graphs = self.read(store, subjects)
        return {s: p for s, p in props.items() if rdf_type in p.get(RDF.type, [])}, nodes, graphs

    def read(self, store: ProvStore, subjects: Sequence[IRI]) -> tuple[
            dict[IRI, Props], dict[IRI, Props], dict[IRI, IRI | None]]:
        """One query for the statements of ``subjects`` and of their part nodes.

        Returns:
            ``(props, nodes, graphs)``: the predicate map of each subject found (a
            subject with no statement is absent), of each part node, and the graph
            each subject's ``rdf:type`` statement is in (the first graph by IRI order;
            ``None`` for the default graph).

        Raises:
            StoreError, QueryError: the store cannot be read.
        """
        if not subjects:
            return {}, {}, {}
        links = sorted(self.part_links())
        link_filter = (" || ".join(f"?p = <{p}>" for p in links)) if links else "false"
        inverse = sorted({f.predicate for f in self.fields if f.inverse})
        union = "".join(f" UNION {{ ?o <{p}> ?s BIND(<{p}> AS ?ip) }}" for p in inverse)
        sparql = (f"SELECT ?s ?g ?p ?o ?np ?no ?ip WHERE {{ GRAPH ?g {{ {{ ?s ?p ?o "
                  f"OPTIONAL {{ FILTER({link_filter}) ?o ?np ?no }} }}{union} }} }}")
        rows = store.select(sparql, values=("s", list(dict.fromkeys(subjects))),
                            source=f"provgraph.schema.{self.name}")
        props: dict[IRI, dict[IRI, set[Term]]] = {}
        nodes: dict[IRI, dict[IRI, set[Term]]] = {}
        graphs: dict[IRI, IRI | None] = {}
        for r in rows:
            s, p, o, ip = r["s"], r["p"], r["o"], r.get("ip")
            if isinstance(ip, IRI):
                p = inverse_key(ip)
            if not isinstance(s, IRI) or not isinstance(p, IRI) or o is None:
                raise StoreError(f"provgraph.schema.{self.name}: unexpected row {r!r}")
            props.setdefault(s, {}).setdefault(p, set()).add(o)
            g = r["g"]
            if p == RDF.type and isinstance(g, IRI):
                old = graphs.get(s)
                graphs[s] = g if old is None or g < old else old
            np_, no = r["np"], r["no"]
            if isinstance(o, IRI) and isinstance(np_, IRI) and no is not None:
                nodes.setdefault(o, {}).setdefault(np_, set()).add(no)
        return _sorted_props(props), _sorted_props(nodes), graphs


_TABLES: list[Table] = []


def inverse_key(predicate: IRI) -> IRI:
    """The key under which :meth:`Table.read` files the subjects of ``? predicate subject``."""
    return IRI("^" + predicate)


def all_tables() -> list[Table]:
    """Every table defined by the schema modules (imported by :mod:`provgraph.schema`)."""
    return list(_TABLES)


def _sorted_props(raw: dict[IRI, dict[IRI, set[Term]]]) -> dict[IRI, Props]:
    return {s: {p: sorted(objs, key=_term_key) for p, objs in ps.items()} for s, ps in raw.items()}


def _term_key(t: Term) -> tuple[str, str, str]:
    if isinstance(t, Literal):
        return ("l", t.value, t.datatype or "")
    return ("b" if isinstance(t, BNode) else "i", str(t), "")


def _sort_key(v: Any) -> tuple[str, str]:
    return (type(v).__name__, str(v))


def _index(p: Part, node: IRI, sub: Any) -> tuple[int, str]:
    if p.key is not None:
        k = getattr(sub, p.key)
        return (int(k) if isinstance(k, int) else 0, str(k))
    tail = node.rsplit("-", 1)[-1]
    return (int(tail) if tail.isdigit() else 0, node)


def encode_value(codec: str, value: Any) -> Term:
    """``value`` as an RDF term under ``codec`` (see the module docstring).

    Raises:
        ValueError: a naive ``datetime``, or a value the codec does not take.
    """
    if codec == "iri":
        return IRI(value)
    if codec == "str":
        return lit(str(value))
    if codec == "int":
        return lit(int(value))
    if codec == "bool":
        return lit(bool(value))
    if codec == "float":
        return lit(float(value))
    if codec == "datetime":
        if not isinstance(value, _dt.datetime):
            raise ValueError(f"expected a datetime, got {value!r}")
        return lit(value)
    if codec == "json":
        if isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        return lit(value)
    raise ValueError(f"unknown codec {codec!r}")


def decode_term(codec: str, term: Term) -> Any:
    """The Python value of a stored term under ``codec``; a term of another kind than
    the codec expects is returned as its plain value, so a foreign document is read,
    not rejected."""
    if codec == "iri":
        return IRI(term) if isinstance(term, IRI) else (str(term) if not isinstance(term, Literal)
                                                         else term.value)
    if not isinstance(term, Literal):
        return str(term)
    value = term.to_python()
    if codec == "str":
        return term.value
    if codec == "int":
        return value if isinstance(value, int) and not isinstance(value, bool) else term.value
    if codec == "float":
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else term.value
    if codec == "bool":
        return value if isinstance(value, bool) else term.value
    if codec == "datetime":
        return value
    if codec == "json":
        return value
    return value
