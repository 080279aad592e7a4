"""Streaming PROV-JSON: PROV-O statements written as PROV-JSON records one
subject at a time, without building a :class:`prov.model.ProvDocument`.

:func:`provgraph.io.provo.quads_to_document` maps any set of PROV-O statements
to PROV-DM records and the ``prov`` package serializes them; that needs every
statement and every record in memory at once and costs tens of microseconds per
statement. This module writes the same records (the same mapping tables, the
same rules: W3C PROV-O §4.1 read in reverse, PROV-JSON Member Submission §2-3)
straight to text, for the statement shapes provgraph itself records:

* every resource is an IRI (no blank node anywhere);
* a qualified influence node (``prov:qualifiedUsage`` etc.) is the object of
  exactly one qualified property, has exactly one object (``prov:entity``,
  ``prov:activity``...) and at most one value of each optional formal slot, and
  is nothing but that influence (no ``rdf:type prov:Entity``, no relations of
  its own);
* a ``prov:wasRevisionOf`` / ``wasQuotedFrom`` / ``hadPrimarySource`` comes with
  its qualified node (the Recorder and the resolver always write both);
* literals are plain or language-tagged strings, or well-typed values whose
  datatype the ``prov`` package reads back as the same value (``xsd:dateTime``
  it can parse, the integer types, ``xsd:double``/``float``, ``xsd:boolean``,
  ``xsd:string``, and datatypes outside XSD such as ``rdf:JSON``, kept as
  written);
* no statement the PROV-DM form cannot hold as it is (``rdf:type`` with a
  literal, a PROV relation whose object is a literal, ``prov:mentionOf``,
  ``pg:imprecise``, an activity with two start or end times, a resource typed
  ``rdfs:Resource``).

Anything else raises :class:`NotStreamable` naming the statement, before a byte
is written to the output, and the exporter falls back to the general mapping.

Within those shapes the mapping is exact both ways: reading the written
document back (``prov.read`` + :func:`~provgraph.io.provo.document_to_quads`)
gives the statements written plus the PROV-O entailments of
:func:`~provgraph.io.provo.complete`, literals equal in value. That is what lets
:mod:`provgraph.io.bundle` compute a bundle's digest from the statements
themselves (:attr:`PROVJSONStream.digest_lines`) instead of reading its own
output back; tests check it against the general path on the shared PROV cases,
the demo store and the benchmark workload.

Memory: record text is spooled per PROV-JSON section (``entity``, ``used``...)
into temporary files once it passes :data:`SPOOL_BYTES`, so a whole run is
written in bounded memory.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

from prov.constants import (
    PROV_ACTIVITY, PROV_ATTR_ENDTIME, PROV_ATTR_STARTTIME, PROV_ATTR_TIME, PROV_DERIVATION,
    PROV_N_MAP, PROV_TYPE,
)
from prov.model.records import parse_xsd_datetime

from .._json_encode import reusable_encode
from ..terms import IRI, BNode, Literal, Term
from ..vocab import PG, PROV, RDF
from ..xsd import ill_typed
from .names import split_iri
from .provo import (
    _AGENT_SUBCLASSES, _AUX_TYPE, _DERIVATION_KINDS, _ELEMENT_CLASSES, _ENTITY_SUBCLASSES,
    _MENTION_OF, _PROP_TO_ATTR, _QUAL_TO_BINARY, _QUALIFIED, _RELS, _SIMPLE, PROV_TYPE_PROPERTY,
)

__all__ = ["NotStreamable", "PROVJSONStream", "SPOOL_BYTES", "nt_line"]

SPOOL_BYTES = 1024 * 1024
"""Record text kept in memory per PROV-JSON section before it is spooled to a temporary file."""

_P = "http://www.w3.org/ns/prov#"
_XSD = "http://www.w3.org/2001/XMLSchema#"
_T_DATETIME = _XSD + "dateTime"
_SAME_VALUE_XSD = frozenset(_XSD + t for t in (
    "string", "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte", "negativeInteger",
    "nonPositiveInteger", "double", "float", "boolean", "dateTime"))
_ATTRIBUTE_PROV = frozenset({PROV_TYPE_PROPERTY, PROV.value, PROV.atLocation, PROV.hadRole})
_BINARIES: dict[str, tuple[Any, IRI | None]] = {rel.binary: (rt, None) for rt, rel in _RELS.items()
                                                if rel.binary is not None}
_BINARIES.update({b: (PROV_DERIVATION, IRI(cls)) for cls, (b, _, _) in _DERIVATION_KINDS.items()})
_KIND_BINARIES = frozenset(b for b, _, _ in _DERIVATION_KINDS.values())
_SHORTCUTS = {rel.time_shortcut: rt for rt, rel in _RELS.items() if rel.time_shortcut}
_SIMPLE_BY_PROP = {prop: (rt, a, b) for rt, (a, b, prop) in _SIMPLE.items()}
_TIME_ATTRS = {PROV.startedAtTime: PROV_ATTR_STARTTIME, PROV.endedAtTime: PROV_ATTR_ENDTIME}
_SECTION = {rt: PROV_N_MAP[rt] for rt in PROV_N_MAP}
_TYPE_KEY = str(PROV_TYPE)
_TIME_KEY = str(PROV_ATTR_TIME)
# The tables above with the record types as section names and the attributes as
# PROV-JSON keys: strings, so the hot path neither hashes nor prints a prov
# QualifiedName (both Python-level methods; issue 16, item 7).
_ELEMENT_SECTION = {cls: _SECTION[rt] for cls, rt in _ELEMENT_CLASSES.items()}
_ACTIVITY_SECTION = _SECTION[PROV_ACTIVITY]
_BINARY_RECORDS = {p: (_SECTION[rt], str(_RELS[rt].subject), str(_RELS[rt].object), sub)
                   for p, (rt, sub) in _BINARIES.items()}
_SHORTCUT_RECORDS = {p: (_SECTION[rt], str(_RELS[rt].subject)) for p, rt in _SHORTCUTS.items()}
_SIMPLE_RECORDS = {p: (_SECTION[rt], str(a), str(b)) for p, (rt, a, b) in _SIMPLE_BY_PROP.items()}
_QUALIFIED_RECORDS = {
    q: (_SECTION[rt], str(_RELS[rt].subject), str(_RELS[rt].object), sub,
        {prop: str(attr) for attr, prop in _RELS[rt].extras})
    for q, (rt, sub) in _QUALIFIED.items()}
_ATTR_KEYS = {p: str(a) for p, a in _PROP_TO_ATTR.items()}
_TIME_KEYS = {p: str(a) for p, a in _TIME_ATTRS.items()}


_JSON = reusable_encode(json.JSONEncoder(ensure_ascii=False, check_circular=False))

_ESCAPES = {i: f"\\u{i:04X}" for i in range(0x20)} | {0x7F: "\\u007F"}
_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r",
                 0x22: '\\"', 0x5C: "\\\\"})
_UCHARS = re.compile(r"[\x00-\x07\x0B\x0E-\x1F\x7F]")
"""Characters canonical N-Quads writes as ``\\uXXXX`` (upper-case hex) where JSON writes
``\\u00xx`` or nothing; without them the two quote a string alike (``\\b \\t \\n \\f \\r
\\" \\\\``)."""
_JSON_QUOTED: Any = getattr(json.encoder, "c_encode_basestring", None) or \
    json.encoder.py_encode_basestring


_CACHE_SIZE = 65536
_SPLIT: dict[str, tuple[str, str, str]] = {}
"""split_iri results, shared by every export (bounded)."""
_CHECKED: dict[Literal, str | None] = {}
"""Literal -> why it has no exact PROV-JSON form (``None``: it has one), shared (bounded)."""


_TIMES: dict[str, bool] = {}
"""xsd:dateTime text -> whether the prov package reads it, shared (bounded)."""


def _readable_time(text: str) -> bool:
    got = _TIMES.get(text)
    if got is None:
        if len(_TIMES) > _CACHE_SIZE:
            _TIMES.clear()
        got = _TIMES[text] = parse_xsd_datetime(text) is not None
    return got


class NotStreamable(Exception):
    """The statements have a shape this module does not write (module docstring);
    the exporter uses :func:`provgraph.io.provo.quads_to_document` instead."""


def _inexact(o: Literal) -> str | None:
    """Why the ``prov`` package would not read typed literal ``o`` back as the same value."""
    dt = o.datatype or ""
    if dt.startswith(_XSD) and dt not in _SAME_VALUE_XSD:
        return "a datatype the prov package reads as another value"
    if dt.startswith(_XSD) and ill_typed(o) is not None:
        return "ill-typed"
    if dt == _T_DATETIME and parse_xsd_datetime(o.value) is None:
        return "an xsd:dateTime the prov package cannot read"
    return None


def nt_line(s: str, p: str, o: Term) -> str:
    """One statement as a line of canonical N-Quads in the default graph (RDF 1.1
    N-Quads §4 / RDFC-1.0 §4.6 canonical form), for blank-node-free statements.

    Example:
        >>> nt_line(IRI("urn:x:a"), IRI("urn:x:p"), Literal('say "hi"\\n'))
        '<urn:x:a> <urn:x:p> "say \\\\"hi\\\\"\\\\n" .'
    """
    if isinstance(o, Literal):
        # the C JSON quoting where it quotes as N-Quads does (8x faster than translate on
        # the long texts of chunks; issue 16, item 7)
        text = (_JSON_QUOTED(o.value) if _UCHARS.search(o.value) is None
                else '"' + o.value.translate(_ESCAPES) + '"')
        if o.language:
            text += "@" + o.language
        elif o.datatype and o.datatype != _XSD + "string":
            text += f"^^<{o.datatype}>"
        return f"<{s}> <{p}> {text} ."
    return f"<{s}> <{p}> <{o}> ."


class _Names:
    """Qualified names as PROV-JSON text, registering one prefix per namespace (the
    prefix choice of :class:`provgraph.io.names.QNames`)."""

    def __init__(self) -> None:
        self.prefixes: dict[str, str] = {}
        self._by_uri: dict[str, str] = {}
        self._cache: dict[str, str] = {}

    def __call__(self, iri: Any) -> str:
        got = self._cache.get(iri)
        if got is not None:
            return got
        if len(self._cache) > _CACHE_SIZE:  # bounded: a run has millions of distinct IRIs
            self._cache.clear()
        parts = _SPLIT.get(iri)
        if parts is None:
            if len(_SPLIT) > _CACHE_SIZE:
                _SPLIT.clear()
            parts = _SPLIT[iri] = split_iri(iri)
        ns, local, hint = parts
        prefix = self._by_uri.get(ns)
        if prefix is None:
            prefix, n = hint, 1
            while prefix in self.prefixes:
                n += 1
                prefix = f"{hint}{n}"
            self.prefixes[prefix] = ns
            self._by_uri[ns] = prefix
        got = self._cache[iri] = f"{prefix}:{local}"
        return got


class _Spool:
    """``"id": {...}`` lines of one PROV-JSON section as UTF-8, in memory up to
    :data:`SPOOL_BYTES`, then in a temporary file. Each record is encoded on its own: a
    section joined first and encoded after is two or four bytes a character throughout
    when one record holds a character above U+00FF (issue 16, item 7)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.file: IO[bytes] | None = None
        self.count = 0

    def add(self, text: str) -> None:
        data = (",\n" + text if self.count else text).encode("utf-8")
        self.count += 1
        self.parts.append(data)
        self.size += len(data)
        if self.size > SPOOL_BYTES:
            if self.file is None:
                self.file = tempfile.TemporaryFile("w+b")
            self.file.write(b"".join(self.parts))
            self.parts, self.size = [], 0

    def chunks(self) -> Iterator[bytes]:
        if self.file is not None:
            self.file.seek(0)
            while block := self.file.read(1 << 20):
                yield block
        yield b"".join(self.parts)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


class PROVJSONStream:
    """Writes one PROV-JSON document: a bundle of content records and, at the top
    level, the description of the bundle.

    Feed the content subject by subject with :meth:`subject` (an element with its
    statements and, for each of its qualified influence nodes, that node's
    statements), the description with :meth:`describe`, then :meth:`write` the
    document. :attr:`digest_lines` receives, for every statement written, its
    canonical N-Quads line (:func:`nt_line`), and the lines of the PROV-O
    entailments a reader adds (:func:`provgraph.io.provo.complete`): exactly the
    statements the document reads back as, literals not yet in canonical form
    (the caller maps them through :func:`provgraph.xsd.canonical`).

    Args:
        bundle: the bundle IRI.
        lines: called with each ``(subject, predicate, object)`` the document
            reads back as (duplicates possible).

    Raises:
        NotStreamable: from :meth:`subject`/:meth:`describe`, for shapes outside
            the module docstring's list; nothing has been written then.
    """

    def __init__(self, bundle: IRI, lines: Any) -> None:
        self.bundle = bundle
        self.names = _Names()
        self.names(bundle)
        self._literals: dict[Literal, Any] = {}
        self.emit = lines
        self.sections: dict[str, _Spool] = {}
        self.top: dict[str, _Spool] = {}
        self._anon = 0

    # -- records -------------------------------------------------------------------
    def _record(self, target: dict[str, _Spool], section: str, ident: str | None,
                attrs: dict[str, Any]) -> None:
        spool = target.get(section)
        if spool is None:
            spool = target[section] = _Spool()
        if ident is None:
            self._anon += 1
            ident = f"_:id{self._anon}"
        spool.add(_JSON({ident: attrs})[1:-1])  # '"id": {...}', one encoder call

    def _value(self, s: IRI, p: str, o: Term) -> Any:
        if not isinstance(o, Literal):
            if isinstance(o, BNode):
                raise NotStreamable(f"blank node object in <{s}> <{p}>")
            return {"$": self.names(o), "type": "xsd:QName"}
        if o.datatype is None and not o.language:  # a plain string: itself (no hashing)
            return o.value
        got = self._literals.get(o)
        if got is None:
            if len(self._literals) > 65536:
                self._literals.clear()
            got = self._literals[o] = self._literal(s, p, o)
        return got

    def _literal(self, s: IRI, p: str, o: Literal) -> Any:
        if o.language:
            return {"$": o.value, "lang": o.language}
        dt = o.datatype
        if dt is None or dt == _XSD + "string":
            return o.value
        why = _CHECKED.get(o, "")
        if why == "":
            if len(_CHECKED) > _CACHE_SIZE:
                _CHECKED.clear()
            why = _CHECKED[o] = _inexact(o)
        if why is not None:
            raise NotStreamable(f"literal {o.n3()} of <{s}> <{p}>: {why}")
        return {"$": o.value, "type": self.names(dt)}

    def _time(self, s: Any, p: Any, o: Any) -> str:
        if not (isinstance(o, Literal) and o.datatype == _T_DATETIME and not o.language
                and _readable_time(o.value)):
            raise NotStreamable(f"time {o!r} of <{s}> <{p}> is not an xsd:dateTime prov reads")
        return o.value

    def _attr(self, attrs: dict[str, Any], s: Any, p: Any, o: Term) -> None:
        if p == RDF.type or p == PROV_TYPE_PROPERTY:
            if isinstance(o, Literal) is (p == RDF.type) or o == _AUX_TYPE:
                raise NotStreamable(f"<{s}> <{p}> {o!r} has no exact PROV-DM form")
            key = _TYPE_KEY
        elif p in _ATTR_KEYS:
            key = _ATTR_KEYS[p]
        else:
            if p.startswith(_P) and p not in _ATTRIBUTE_PROV:
                raise NotStreamable(f"<{s}> <{p}> {o!r} is not a PROV-DM attribute")
            key = self.names(p)
        value = self._value(s, p, o)
        old = attrs.get(key)
        if old is None:
            attrs[key] = value
        elif isinstance(old, list):
            old.append(value)
        else:
            attrs[key] = [old, value]

    # -- subjects ------------------------------------------------------------------
    def subject(self, s: IRI, pos: Sequence[tuple[IRI, Term]],
                nodes: Mapping[IRI | BNode, Sequence[tuple[IRI, Term]]]) -> None:
        """Write the records of subject ``s``.

        Args:
            s: the subject (an IRI).
            pos: its ``(predicate, object)`` pairs, distinct, in a stable order.
            nodes: for each object of a qualified property in ``pos``, that node's
                ``(predicate, object)`` pairs.

        Raises:
            NotStreamable: see the module docstring.
        """
        if isinstance(s, BNode):
            raise NotStreamable(f"blank node subject _:{s}")
        emit, qn = self.emit, self.names
        consumed: set[tuple[Any, Any]] = set()
        for p, node in pos:
            if p not in _QUALIFIED or isinstance(node, Literal):
                continue
            self._qualified(s, p, node, nodes[node], consumed)
        kinds = []
        rest: list[tuple[IRI, Term]] = []
        for p, o in pos:
            if isinstance(o, Literal):
                # a literal is written as an attribute, except an activity-time shortcut;
                # no qualified node consumes one (so no hashing of the literal here)
                if p not in _SHORTCUTS:
                    rest.append((p, o))
                    continue
            elif consumed and (p, o) in consumed:
                continue
            elif p == RDF.type:
                if o in _ELEMENT_CLASSES:
                    kinds.append(o)
                elif o in _AGENT_SUBCLASSES:
                    emit((s, RDF.type, PROV.Agent))
                elif o in _ENTITY_SUBCLASSES:
                    emit((s, RDF.type, PROV.Entity))
            if p in _BINARY_RECORDS:
                if p in _KIND_BINARIES:
                    raise NotStreamable(f"<{s}> <{p}> <{o}> has no qualified node")
                section, a, b, subtype = _BINARY_RECORDS[p]
                attrs: dict[str, Any] = {a: qn(s), b: self._name(s, p, o)}
                if subtype is not None:  # pragma: no cover - kinds raised above
                    attrs[_TYPE_KEY] = {"$": qn(subtype), "type": "xsd:QName"}
                self._record(self.sections, section, None, attrs)
            elif p in _SHORTCUT_RECORDS:
                section, a = _SHORTCUT_RECORDS[p]
                self._record(self.sections, section, None, {a: qn(s), _TIME_KEY: self._time(s, p, o)})
            elif p in _SIMPLE_RECORDS:
                section, a, b = _SIMPLE_RECORDS[p]
                self._record(self.sections, section, None, {a: qn(s), b: self._name(s, p, o)})
            elif p == _MENTION_OF:
                raise NotStreamable(f"<{s}> prov:mentionOf <{o}>")
            else:
                rest.append((p, o))
                continue
            emit((s, p, o))
        if not rest:
            return
        self._element(self.sections, s, [k for k in _ELEMENT_CLASSES if k in kinds], rest)

    def describe(self, s: IRI, pos: Iterable[tuple[str, Term]], *, emit: bool = True) -> None:
        """Write the top-level element ``s`` (the bundle's description); with
        ``emit=False`` its statements are not passed to the ``lines`` callback."""
        pos = list(dict.fromkeys(pos))
        kinds = [o for o in _ELEMENT_CLASSES if (RDF.type, o) in pos]
        saved = self.emit
        if not emit:
            self.emit = lambda t: None
        try:
            for p, o in pos:
                if p == RDF.type and o in _ENTITY_SUBCLASSES:
                    self.emit((s, RDF.type, PROV.Entity))
            self._element(self.top, s, kinds, pos)
        finally:
            self.emit = saved

    def _name(self, s: Any, p: Any, o: Any) -> str:
        if not isinstance(o, IRI) or isinstance(o, BNode):
            raise NotStreamable(f"<{s}> <{p}> {o!r}: the object must be an IRI")
        return self.names(o)

    def _element(self, target: dict[str, _Spool], s: Any, kinds: list[IRI],
                 rest: Sequence[tuple[Any, Any]]) -> None:
        """Write element ``s``: ``kinds`` are its PROV element classes (``prov:Entity``,
        ``prov:Activity``, ``prov:Agent``, in that order), ``rest`` its other pairs."""
        attrs: dict[str, Any] = {}
        for k in kinds:
            self.emit((s, RDF.type, k))
        if not kinds:  # not a PROV element: an entity typed rdfs:Resource, read back without it
            attrs[_TYPE_KEY] = {"$": self.names(_AUX_TYPE), "type": "xsd:QName"}
            kinds = [PROV.Entity]
        first = _ELEMENT_SECTION[kinds[0]]
        activity = first == _ACTIVITY_SECTION
        for p, o in rest:
            self.emit((s, p, o))
            if p == RDF.type and o in _ELEMENT_CLASSES:
                continue
            if activity and p in _TIME_KEYS:
                key = _TIME_KEYS[p]
                if key in attrs:
                    raise NotStreamable(f"activity <{s}> has more than one <{p}>")
                attrs[key] = self._time(s, p, o)
                continue
            self._attr(attrs, s, p, o)
        ident = self.names(s)
        self._record(target, first, ident, attrs)
        for k in kinds[1:]:
            self._record(target, _ELEMENT_SECTION[k], ident, {})

    def _qualified(self, s: IRI, qprop: str, node: Any, npos: Sequence[tuple[Any, Any]],
                   consumed: set[tuple[Any, Any]]) -> None:
        if isinstance(node, BNode):
            raise NotStreamable(f"blank qualified node of <{s}> <{qprop}>")
        section, subject_key, object_key, subtype, slots = _QUALIFIED_RECORDS[qprop]
        binary, node_obj, cls = _QUAL_TO_BINARY[qprop]
        qn, emit = self.names, self.emit
        consumed.add((qprop, node))
        emit((s, qprop, node))
        emit((node, RDF.type, cls))
        attrs: dict[str, Any] = {subject_key: qn(s)}
        objs = [o for p, o in npos if p == node_obj]
        if len(objs) > 1:
            raise NotStreamable(f"qualified node <{node}> has {len(objs)} <{node_obj}>")
        if objs:
            o = objs[0]
            attrs[object_key] = self._name(node, node_obj, o)
            consumed.add((binary, o))
            emit((s, binary, o))
            emit((node, node_obj, o))
        if subtype is not None:
            attrs[_TYPE_KEY] = {"$": qn(subtype), "type": "xsd:QName"}
        for p, o in npos:
            if p == node_obj:
                continue
            if p == RDF.type and o == cls:
                continue
            if p in _QUALIFIED or p in _BINARIES or p == PG.imprecise or (
                    p == RDF.type and o in _ELEMENT_CLASSES):
                raise NotStreamable(f"qualified node <{node}> is more than an influence (<{p}>)")
            emit((node, p, o))
            if p in slots:
                key = slots[p]
                if key in attrs:
                    raise NotStreamable(f"qualified node <{node}> has more than one <{p}>")
                attrs[key] = self._time(node, p, o) if p == PROV.atTime else self._name(node, p, o)
                continue
            self._attr(attrs, node, p, o)
        self._record(self.sections, section, qn(node), attrs)

    # -- output --------------------------------------------------------------------
    def write(self, out: IO[bytes]) -> None:
        """Write the document to ``out`` (UTF-8) and drop the spools."""
        prefix = json.dumps(dict(sorted(self.names.prefixes.items())), ensure_ascii=False)
        try:
            out.write(b'{\n"prefix": ' + prefix.encode() + b",\n")
            self._write_sections(out, self.top)
            out.write(b',\n"bundle": {' + json.dumps(self.names(self.bundle)).encode()
                      + b': {\n"prefix": ' + prefix.encode())
            if self.sections:
                out.write(b",\n")
                self._write_sections(out, self.sections)
            out.write(b"\n}}}\n")
        finally:
            self.close()

    @staticmethod
    def _write_sections(out: IO[bytes], sections: dict[str, _Spool]) -> None:
        first = True
        for name, spool in sections.items():
            if not first:
                out.write(b",\n")
            first = False
            out.write(b'"' + name.encode() + b'": {\n')
            for chunk in spool.chunks():
                out.write(chunk)
            out.write(b"\n}")

    def close(self) -> None:
        """Remove the temporary files."""
        for spool in (*self.sections.values(), *self.top.values()):
            spool.close()
