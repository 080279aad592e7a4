"""The PROV-O mapping: :class:`prov.model.ProvDocument` records <-> RDF quads.

This module owns how a PROV-DM document (as the ``prov`` package models it, read
from PROV-JSON, PROV-N or PROV-XML) becomes PROV-O statements in the store, and
back. It is a *mapping* between two models, not a parser: syntaxes are read and
written by the ``prov`` package and by pyoxigraph (through
:mod:`provgraph.store`).

Mapping rules (W3C PROV-O §3 and §4.1, "PROV-DM to PROV-O"):

* A document's top-level records go to one graph (the default graph unless the
  caller names one); each PROV bundle becomes the named graph named by the
  bundle id.
* ``entity``/``activity``/``agent`` give ``rdf:type prov:Entity`` / ``prov:Activity``
  / ``prov:Agent``; ``prov:type`` values that are qualified names become more
  ``rdf:type`` statements, other ``prov:type`` values (strings, ``xsd:anyURI``)
  stay literals of the property ``prov:type`` (they are *not* types: W3C test
  case type-s2). ``prov:label`` is ``rdfs:label``, ``prov:location`` is
  ``prov:atLocation``, activity times are ``prov:startedAtTime``/``prov:endedAtTime``.
* Every influence with a qualified form (generation, usage, communication,
  start, end, invalidation, derivation, attribution, association, delegation,
  influence) is written as its binary property; the qualified node (its id, or
  a blank node) is written too when the record has an id, an optional formal
  argument or any attribute. ``wasRevisionOf``, ``wasQuotedFrom`` and
  ``hadPrimarySource`` (derivations typed ``prov:Revision``/``prov:Quotation``/
  ``prov:PrimarySource``) are *always* written both binary and qualified. A
  generation or invalidation with only a time becomes ``prov:generatedAtTime``
  / ``prov:invalidatedAtTime``.
* ``specializationOf``, ``alternateOf`` (argument order kept) and ``hadMember``
  are plain properties; ``mentionOf(s, g, b)`` is ``s prov:mentionOf g`` plus
  ``s prov:asInBundle b`` (PROV-Links).
* A derivation id given both to an imprecise derivation (no activity,
  generation and usage) and to a precise one is one qualified node in PROV-O;
  it gets ``pg:imprecise true`` (:func:`imprecise_conflicts`), and back in
  PROV-DM both records are written again, so the PROV-CONSTRAINTS conflict
  between them stays visible (``provgraph validate``, constraint 23).
* A record missing a mandatory argument (the ``-`` marker where PROV-DM needs an
  identifier, e.g. ``hadMember(ex:c, -)``, ``wasInformedBy(a, -)``,
  ``actedOnBehalfOf(ag, -, -)``, ``used(a, -, -)``), or a relation whose object may be
  ``-`` given with nothing else (``wasGeneratedBy(e, -, -)``) has no PROV-O form:
  :class:`~provgraph.errors.SerializationError` names the record and PROV-DM's
  argument, and the import stores nothing. The rule is
  :func:`provgraph.relations.missing_argument`, derived from the relation table;
  :func:`missing_in_qualified` applies it to PROV-O qualified nodes (issue 15: such
  records used to be dropped without a word, or stored with no agent).

Back from quads, the same rules run in reverse. RDF resources that are neither a
PROV element nor a qualified influence node (a Web Annotation selector, a
``pg:Segment``) have no PROV-DM counterpart; they are written as ``entity``
records typed ``rdfs:Resource`` (a type every resource has), and reading such a
record back writes its statements without ``rdf:type prov:Entity``. Blank nodes
become qualified names in the ``urn:provgraph:genid:`` namespace and turn back
into fresh blank nodes on reading (RDF 1.1 §3.5 skolemization).

Literal fidelity: datatypes and lexical forms survive the store (issue 15: the store
layer encodes what the engine would normalize, :mod:`provgraph._lexical`) and the
PROV-DM formats: the ``prov`` package would parse attribute values of ``xsd:int``,
``long``, ``integer``, ``double``, ``boolean`` and ``dateTime`` into Python objects, so
their datatype is hidden from it (:data:`provgraph.io._prov.PARSED_TYPES`: each reader
rewrites it, :meth:`_Reader.value` writes it so, each writer names it ``xsd:`` again).
Formal times (``wasGeneratedBy(e, a, T)``, an activity's start and end) can only be
``datetime`` values there: each reader notes the lexical form its document writes each
time in (:func:`provgraph.io._prov.formal_time_forms`) and this module writes the time
in that form (a value written two ways in one document: the canonical form,
:func:`provgraph._lexical.datetime_form`, with a warning); it writes the stored form
when it writes a document (:class:`LexicalDateTime`).

The claim-bundle digest is computed over one canonical form per value
(:mod:`provgraph.xsd`), so it does not depend on the syntax a bundle is in.

PROV-O entailments applied when a document is imported (:func:`complete`): the
binary property of every qualified influence (the ``prov`` package writes only
the qualified form for ids, quotations, revisions and primary sources), the
class of each qualified node (``rdfs:range`` of its ``prov:qualified*``
property), ``prov:Agent`` for ``prov:Person``/``Organization``/``SoftwareAgent``,
``prov:Entity`` for ``prov:Plan``/``Bundle``/``Collection``/``EmptyCollection``,
and the qualified form of a binary-only ``wasRevisionOf``/``wasQuotedFrom``/
``hadPrimarySource``.
"""

from __future__ import annotations

import datetime as _dt
import uuid
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from prov.constants import PROV as _PROV_NS
from prov.constants import (
    PROV_ACTIVITY, PROV_AGENT, PROV_ATTR_ACTIVITY, PROV_ATTR_BUNDLE, PROV_ATTR_ENDTIME,
    PROV_ATTR_GENERAL_ENTITY, PROV_ATTR_GENERATION, PROV_ATTR_SPECIFIC_ENTITY,
    PROV_ATTR_STARTTIME, PROV_ATTR_TIME, PROV_ATTR_USAGE, PROV_DERIVATION, PROV_ENTITY,
    PROV_INTERNATIONALIZEDSTRING, PROV_LABEL, PROV_LOCATION, PROV_MENTION, PROV_ROLE,
    PROV_TYPE, PROV_VALUE,
)
from prov.identifier import Identifier, QualifiedName
from prov.model import Literal as ProvLiteral
from prov.model import ProvBundle, ProvDocument, ProvRecord
from prov.model.records import canonical_xsd_datatype, parse_xsd_datetime

from .._lexical import datetime_form, decode_datatype, double_form
from ._prov import LEXICAL_XSD, PARSED_TYPES, time_key
from ..errors import SerializationError
from ..relations import AS_IN_BUNDLE, MENTION_OF, PROV_RELATIONS, Relation, by_qualified, missing_argument
from ..terms import IRI, BNode, Literal, Quad, Term
from ..vocab import PG, PROV, RDF, RDFS
from .names import GENID, WELL_KNOWN_PREFIXES, QNames, prefixes_for

__all__ = ["document_to_quads", "quads_to_document", "complete", "prefixes_for",
           "imprecise_conflicts", "missing_in_qualified",
           "LexicalDateTime", "GENID", "PROV_TYPE_PROPERTY", "WELL_KNOWN_PREFIXES"]

_P = "http://www.w3.org/ns/prov#"
_XSD = "http://www.w3.org/2001/XMLSchema#"
PROV_TYPE_PROPERTY = IRI(_P + "type")
"""``prov:type`` as an RDF property, for ``prov:type`` values that are not types."""
_MENTION_OF = MENTION_OF
_AS_IN_BUNDLE = AS_IN_BUNDLE
_AUX_TYPE = IRI("http://www.w3.org/2000/01/rdf-schema#Resource")
"""``rdfs:Resource``: marks PROV-DM entity records that stand for non-PROV resources."""



class LexicalDateTime(_dt.datetime):
    """A ``datetime`` that remembers the ``xsd:dateTime`` lexical form it was read from.

    The ``prov`` package writes every time with ``isoformat()``; this subclass
    returns the original lexical form there, so ``2024-01-01T00:00:00.120Z``
    is written as given, not as ``2024-01-01T00:00:00.120000+00:00``.
    """

    lexical: str

    @classmethod
    def parse(cls, lexical: str) -> "LexicalDateTime | None":
        """The value of an ``xsd:dateTime`` lexical form, or ``None`` if prov cannot parse it."""
        parsed = parse_xsd_datetime(lexical)
        if parsed is None:
            return None
        obj = cls(parsed.year, parsed.month, parsed.day, parsed.hour, parsed.minute,
                  parsed.second, parsed.microsecond, tzinfo=parsed.tzinfo, fold=parsed.fold)
        obj.lexical = lexical
        return obj

    def isoformat(self, sep: str = "T", timespec: str = "auto") -> str:
        return self.lexical


# ---------------------------------------------------------------------------
# relation table (PROV-O §4.1), in the prov package's terms


@dataclass(frozen=True)
class _Rel:
    subject: QualifiedName          # formal attribute holding the subject
    object: QualifiedName           # formal attribute holding the binary property's object
    binary: IRI
    qualified: IRI
    cls: IRI
    node_object: IRI                # property of the qualified node naming the object
    extras: tuple[tuple[QualifiedName, IRI], ...] = ()
    time_shortcut: IRI | None = None


def _qn(local: str | None) -> QualifiedName:
    assert local is not None
    return _PROV_NS[local]


def _influencer(r: Relation) -> IRI:
    # every qualified relation of the table names its node's influencer property
    assert r.influencer is not None, r.name
    return r.influencer


# derived from the one relation table (provgraph.relations, issue 12)
_RELS: dict[QualifiedName, _Rel] = {
    _qn(r.record): _Rel(_qn(r.subject_attr), _qn(r.object_attr), r.property, r.qualified,
                        r.qualified_class, _influencer(r),
                        tuple((_qn(attr), prop) for attr, prop in r.roles), r.time_shortcut)
    for r in PROV_RELATIONS
    if r.qualified is not None and r.qualified_class is not None and r.subtype is None}

# derivation subtypes: prov:type value -> (binary, qualified, class)
_DERIVATION_KINDS: dict[IRI, tuple[IRI, IRI, IRI]] = {
    r.subtype: (r.property, r.qualified, r.qualified_class)
    for r in PROV_RELATIONS
    if r.subtype is not None and r.qualified is not None and r.qualified_class is not None}

_SIMPLE: dict[QualifiedName, tuple[QualifiedName, QualifiedName, IRI]] = {
    _qn(r.record): (_qn(r.subject_attr), _qn(r.object_attr), r.property)
    for r in PROV_RELATIONS if r.qualified is None and r.record not in (None, "Mention")}

# qualified property -> (record type, subtype class or None)
_QUALIFIED: dict[str, tuple[QualifiedName, IRI | None]] = {
    rel.qualified: (rtype, None) for rtype, rel in _RELS.items()}
_QUALIFIED.update({q: (PROV_DERIVATION, cls) for cls, (_, q, _) in _DERIVATION_KINDS.items()})
# qualified property -> (binary property, node object property, node class)
_QUAL_TO_BINARY: dict[str, tuple[IRI, IRI, IRI]] = {
    rel.qualified: (rel.binary, rel.node_object, rel.cls)
    for rel in _RELS.values()}
_QUAL_TO_BINARY.update({q: (b, PROV.entity, c) for c, (b, q, _) in _DERIVATION_KINDS.items()})
# record type -> its row, for the mandatory-argument rule (relations.missing_argument)
_ROW_OF: dict[QualifiedName, Relation] = {
    _qn(r.record): r for r in PROV_RELATIONS
    if r.record is not None and r.subtype is None and r.name != "asInBundle"}

_ELEMENT_CLASSES = {
    PROV.Entity: PROV_ENTITY, PROV.Activity: PROV_ACTIVITY, PROV.Agent: PROV_AGENT}
_ENTITY_SUBCLASSES = (PROV.Plan, PROV.Bundle, PROV.Collection, PROV.EmptyCollection)
_AGENT_SUBCLASSES = (PROV.Person, PROV.Organization, PROV.SoftwareAgent)
_ELEMENT_OF: dict[QualifiedName, IRI] = {v: k for k, v in _ELEMENT_CLASSES.items()}

_TRUE = Literal("true", _XSD + "boolean")
_PRECISE_SLOTS = (PROV.hadActivity, PROV.hadGeneration, PROV.hadUsage)
_PRECISE_ATTRS = (PROV_ATTR_ACTIVITY, PROV_ATTR_GENERATION, PROV_ATTR_USAGE)


def imprecise_conflicts(bundle: ProvBundle) -> list[QualifiedName]:
    """Derivation ids that ``bundle`` gives both to an imprecise derivation (no
    activity, generation and usage) and to a precise one.

    PROV-O merges such records into one qualified node; :func:`document_to_quads`
    marks that node ``pg:imprecise true`` so the conflict (PROV-CONSTRAINTS
    Definition 4, constraint 23) stays visible in the store.
    """
    precise: dict[QualifiedName, set[bool]] = defaultdict(set)
    for rec in bundle.get_records():
        if rec.get_type() == PROV_DERIVATION and rec.identifier is not None:
            formal = dict(rec.formal_attributes)
            precise[rec.identifier].add(any(formal.get(a) is not None for a in _PRECISE_ATTRS))
    return [ident for ident, kinds in precise.items() if kinds == {True, False}]


_ATTR_TO_PROP = {PROV_LABEL: RDFS.label, PROV_LOCATION: PROV.atLocation, PROV_VALUE: PROV.value,
                 PROV_ROLE: PROV.hadRole}
_PROP_TO_ATTR = {v: k for k, v in _ATTR_TO_PROP.items()}


# ---------------------------------------------------------------------------
# prov -> quads


def document_to_quads(doc: ProvDocument, graph: IRI | None = None, *,
                      bundle_names: Mapping[str, str] | None = None,
                      times: Mapping[Any, str] | None = None,
                      blank_nodes: dict[str, BNode] | None = None) -> list[Quad]:
    """PROV-O quads for a :class:`prov.model.ProvDocument` (see the module docstring).

    Args:
        doc: the document, as ``prov.read`` returns it.
        graph: graph for the document's top-level records (``None``: the default
            graph). Each bundle goes to the named graph named by its id.
        bundle_names: a bundle id IRI -> the IRI to name its graph instead (a PROV-N
            bundle whose name the ``prov`` package resolved with the bundle's own
            prefixes: :func:`provgraph.io.provn.bundle_names`).
        times: the lexical form of each formal time the document writes
            (:attr:`provgraph.io._prov.ProvRead.times`, by
            :func:`provgraph.io._prov.time_key`): the ``prov`` package holds a formal
            time as a ``datetime``, which is written in that form; a time not in it
            (``None``: none) is written in the canonical form.
        blank_nodes: the fresh blank node given to each of the document's blank-node
            labels, filled as they are met; pass the same dict to the calls for the
            parts of one document read in pieces (:mod:`provgraph.io.provjson_stream_read`).
            ``None``: a new one.

    Returns:
        ``list[Quad]`` in record order; blank nodes get fresh labels on every call
        (every ``blank_nodes``), so two documents never share a blank node.

    Raises:
        SerializationError: a record lacks a mandatory argument, or a value has
            no RDF form.
    """
    w = _Writer(times, blank_nodes)
    w.bundle(doc, graph)
    renamed = bundle_names or {}
    for b in doc.bundles:
        uri = b.identifier.uri if b.identifier is not None else ""
        w.bundle(b, IRI(renamed[uri]) if uri in renamed
                 else w.term(b.identifier))  # type: ignore[arg-type]
    return w.out


class _Writer:
    def __init__(self, times: Mapping[Any, str] | None = None,
                 bnodes: dict[str, BNode] | None = None) -> None:
        self.out: list[Quad] = []
        self._bnodes: dict[str, BNode] = {} if bnodes is None else bnodes
        self._times = times or {}

    def fresh(self) -> BNode:
        return BNode("b" + uuid.uuid4().hex)

    def term(self, qn: Any) -> IRI | BNode:
        uri = qn.uri if isinstance(qn, Identifier) else str(qn)
        if uri.startswith(GENID):
            label = uri[len(GENID):]
            if label not in self._bnodes:
                self._bnodes[label] = self.fresh()
            return self._bnodes[label]
        return IRI(uri)

    def value(self, v: Any) -> Term:
        if isinstance(v, QualifiedName):
            return self.term(v)
        if isinstance(v, ProvLiteral):
            if v.langtag:
                return Literal(v.value, None, v.langtag)
            dt = v.datatype
            if dt is None or dt.uri == _XSD + "string":
                return Literal(v.value)
            # a datatype the reader hid from the prov package to keep the form (_prov)
            return Literal(v.value, decode_datatype(dt.uri))
        if isinstance(v, Identifier):
            return Literal(v.uri, _XSD + "anyURI")
        if isinstance(v, bool):
            return Literal("true" if v else "false", _XSD + "boolean")
        if isinstance(v, int):
            dt = canonical_xsd_datatype(v)
            return Literal(str(v), dt.uri if dt is not None else _XSD + "integer")
        if isinstance(v, float):  # the prov package holds a float: its lexical form is gone
            return Literal(double_form(v), _XSD + "double")
        if isinstance(v, _dt.datetime):
            # LexicalDateTime remembers its form; a plain datetime (the prov package's
            # reading of a document) gets the form the document writes it in, else the
            # canonical one (issue 15)
            if isinstance(v, LexicalDateTime):
                return Literal(v.isoformat(), _XSD + "dateTime")
            return Literal(self._times.get(time_key(v)) or datetime_form(v), _XSD + "dateTime")
        if isinstance(v, _dt.date):
            return Literal(v.isoformat(), _XSD + "date")
        if isinstance(v, _dt.time):
            return Literal(v.isoformat(), _XSD + "time")
        if isinstance(v, str):
            return Literal(v)
        raise SerializationError(f"attribute value {v!r} ({type(v).__name__}) has no RDF form")

    def add(self, s: Any, p: str, o: Any, g: IRI | None) -> None:
        self.out.append((s, IRI(p), o, g))

    def attrs(self, s: Any, attrs: Iterable[tuple[QualifiedName, Any]], g: IRI | None,
              skip_types: Sequence[str] = ()) -> None:
        for name, value in attrs:
            if name == PROV_TYPE:
                if isinstance(value, QualifiedName):
                    if value.uri not in skip_types:
                        self.add(s, RDF.type, self.term(value), g)
                else:
                    self.add(s, PROV_TYPE_PROPERTY, self.value(value), g)
                continue
            self.add(s, _ATTR_TO_PROP.get(name, name.uri), self.value(value), g)

    def bundle(self, bundle: ProvBundle, g: IRI | None) -> None:
        for rec in bundle.get_records():
            try:
                self.record(rec, g)
            except SerializationError:
                raise
            except (TypeError, ValueError) as exc:
                raise SerializationError(f"{_describe(rec)}: {exc}") from exc
        for ident in imprecise_conflicts(bundle):
            self.add(self.term(ident), PG.imprecise, _TRUE, g)

    def record(self, rec: ProvRecord, g: IRI | None) -> None:
        rtype = rec.get_type()
        formal = dict(rec.formal_attributes)
        extra = list(rec.extra_attributes)
        if rec.is_element():
            s = self.term(rec.identifier)
            types = {v.uri for k, v in extra if k == PROV_TYPE and isinstance(v, QualifiedName)}
            if rtype == PROV_ENTITY and _AUX_TYPE in types:
                self.attrs(s, extra, g, skip_types=(_AUX_TYPE,))
                return
            self.add(s, RDF.type, _ELEMENT_OF[rtype], g)
            if rtype == PROV_ACTIVITY:
                if formal.get(PROV_ATTR_STARTTIME) is not None:
                    self.add(s, PROV.startedAtTime, self.value(formal[PROV_ATTR_STARTTIME]), g)
                if formal.get(PROV_ATTR_ENDTIME) is not None:
                    self.add(s, PROV.endedAtTime, self.value(formal[PROV_ATTR_ENDTIME]), g)
            self.attrs(s, extra, g)
            return
        if rtype in _SIMPLE or rtype == PROV_MENTION:
            sub_attr, obj_attr, prop = _SIMPLE.get(rtype, (PROV_ATTR_SPECIFIC_ENTITY,
                                                           PROV_ATTR_GENERAL_ENTITY, _MENTION_OF))
            sub, obj = formal.get(sub_attr), formal.get(obj_attr)
            _require(rec, sub_attr, sub)
            _require(rec, obj_attr, obj)
            self.add(self.term(sub), prop, self.term(obj), g)
            if rtype == PROV_MENTION:
                _require(rec, PROV_ATTR_BUNDLE, formal.get(PROV_ATTR_BUNDLE))
                self.add(self.term(sub), _AS_IN_BUNDLE, self.term(formal[PROV_ATTR_BUNDLE]), g)
            return
        rel = _RELS.get(rtype)
        if rel is None:  # pragma: no cover - every PROV-DM relation is in the tables
            raise SerializationError(f"{_describe(rec)}: no PROV-O mapping for {rtype}")
        sub = formal.get(rel.subject)
        _require(rec, rel.subject, sub)
        why = missing_argument(_ROW_OF[rtype], _given(rec, rtype), bool(extra),
                               rec.identifier is not None)
        if why is not None:  # issue 15: was dropped without a word, or stored without it
            _missing(rec, why, _ROW_OF[rtype])
        s = self.term(sub)
        obj = formal.get(rel.object)
        o = self.term(obj) if obj is not None else None
        kinds = []
        if rtype == PROV_DERIVATION:
            kinds = [_DERIVATION_KINDS[IRI(v.uri)] for k, v in extra
                     if k == PROV_TYPE and isinstance(v, QualifiedName) and v.uri in _DERIVATION_KINDS]
        extras_set = [(prop, formal.get(attr)) for attr, prop in rel.extras
                      if formal.get(attr) is not None]
        need_node = bool(rec.identifier is not None or extras_set or extra or kinds)
        if (rel.time_shortcut is not None and o is None and rec.identifier is None and not extra
                and [p for p, _ in extras_set] == [PROV.atTime]):
            self.add(s, rel.time_shortcut, self.value(extras_set[0][1]), g)
            return
        forms = [(b, q, c) for b, q, c in kinds] or [(rel.binary, rel.qualified, rel.cls)]
        if o is not None:
            for binary, _, _ in forms:
                self.add(s, binary, o, g)
        if not need_node:
            return
        node = self.term(rec.identifier) if rec.identifier is not None else self.fresh()
        for _, qualified, cls in forms:
            self.add(s, qualified, node, g)
            self.add(node, RDF.type, cls, g)
        if o is not None:
            self.add(node, rel.node_object, o, g)
        for prop, value in extras_set:
            self.add(node, prop, self.value(value) if prop == PROV.atTime else self.term(value), g)
        self.attrs(node, extra, g, skip_types=tuple(c for _, _, c in forms))


def _require(rec: ProvRecord, attr: QualifiedName, value: Any) -> None:
    if value is None:
        raise SerializationError(
            f"{_describe(rec)} has no {attr.localpart} ('-' in a mandatory position); "
            "PROV-DM requires it, so the record has no PROV-O form and the document "
            f"is not valid PROV. Give the {attr.localpart} (an identifier), or remove the record")


def _given(rec: ProvRecord, rtype: Any) -> set[str]:
    """The PROV-DM names of the formal arguments ``rec`` gives, with those given by the
    other records of its type under the same id in its bundle: they are one relation
    (PROV-CONSTRAINTS §5.1, key constraints 22-27 merge them), so a ``-`` in one record
    is filled by the other's value (ProvToolbox's unification cases
    ``delegation-success3/4``, ``usage-success2``)."""
    records = [rec]
    if rec.identifier is not None and rec.bundle is not None:
        records += [r for r in rec.bundle.get_record(rec.identifier)
                    if r is not rec and r.get_type() == rtype]
    return {a.localpart for r in records for a, v in r.formal_attributes if v is not None}


def _missing(rec: ProvRecord, why: str, row: Relation) -> None:
    """Refuse a relation record lacking what :func:`~provgraph.relations.missing_argument`
    says PROV-DM requires (issue 15)."""
    if why.startswith("no ") and "," not in why and " and " not in why:
        _require(rec, _PROV_NS[why[3:]], None)
    raise SerializationError(
        f"{_describe(rec)} has {why} ('-' in every optional position); PROV-DM requires at "
        f"least one of them for {row.name} (PROV-DM §5.1, PROV-N §3.3), so the record says nothing and the "
        "document is not valid PROV. Give the "
        + " or the ".join(a for a in (row.object_attr, *(r for r, _ in row.roles)) if a)
        + " (or an id or an attribute), or remove the record")


def missing_in_qualified(quads: Sequence[Quad], name: str = "<input>") -> None:
    """Refuse a PROV-O qualified influence node that lacks what PROV-DM requires of its
    relation (:func:`provgraph.relations.missing_argument`): ``prov:agent`` of a
    ``prov:Attribution``, ``prov:activity`` of a ``prov:Communication``... (PROV-O §3.3),
    or, for a relation whose object is optional (a ``prov:Generation``), every one of
    its object, optional arguments and attributes. Graph by graph.

    Raises:
        SerializationError: names the node, the subject and relation it qualifies, the
            missing PROV-O property (PROV-DM's argument) and the fix.
    """
    by_sg: dict[tuple[Any, Any], list[tuple[IRI, Term]]] = defaultdict(list)
    for s, p, o, g in quads:
        by_sg[(s, g)].append((p, o))
    for s, p, o, g in quads:
        row = by_qualified(p) if p.startswith(_P + "qualified") else None
        if row is None or isinstance(o, Literal) or row.influencer is None:
            continue
        pos = by_sg.get((o, g), [])
        given = {row.subject_attr or ""}
        if any(pp == row.influencer for pp, _ in pos):
            given.add(row.object_attr or "")
        given.update(attr for attr, prop in row.roles if any(pp == prop for pp, _ in pos))
        attributes = any(pp not in (RDF.type, row.influencer, *(q for _, q in row.roles))
                         for pp, _ in pos)
        why = missing_argument(row, given, attributes, identified=isinstance(o, IRI))
        if why is None:
            continue
        where = f" in graph <{g}>" if g is not None else ""
        node = f"_:{o}" if isinstance(o, BNode) else f"<{o}>"
        if row.object_expandable:
            fix = (f"give it a {_n3(row.influencer)}, a time or another statement, or an IRI "
                   f"instead of a blank node, or remove the {_n3(p)} statement")
            rule = f"PROV-DM requires at least one of them for {row.name}"
        else:
            fix = f"give it a {_n3(row.influencer)}, or remove it and the {_n3(p)} statement"
            rule = f"PROV-DM's {row.object_attr} of {row.name} is mandatory"
        raise SerializationError(
            f"{name}: the qualified node {node} ({_n3(s)} {_n3(p)} {node}{where}) has {why} "
            f"({_n3(row.influencer)}); {rule}, so the relation is not valid PROV: {fix}; "
            "nothing was stored")


def _describe(rec: ProvRecord) -> str:
    try:
        text = rec.get_provn()
    except Exception:  # noqa: BLE001 - only used for a message
        text = repr(rec)
    return text if len(text) < 200 else text[:197] + "..."


# ---------------------------------------------------------------------------
# quads -> prov


def quads_to_document(quads: Iterable[Quad], *, bundle_graphs: bool = True,
                      xml: bool = False, keep_forms: bool = True) -> ProvDocument:
    """A :class:`prov.model.ProvDocument` holding ``quads`` (see the module docstring).

    Args:
        quads: PROV-O statements; those of the default graph become top-level
            records, those of each named graph a bundle named by the graph.
        bundle_graphs: ``False`` puts every statement at the top level.
        xml: for PROV-XML, where every identifier and attribute name is an
            ``xsd:QName``: local parts are XML NCNames (:func:`provgraph.io.names.xml_split`).
        keep_forms: values of :data:`provgraph.io._prov.PARSED_TYPES` get their
            datatype in :data:`~provgraph.io._prov.LEXICAL_XSD`, which the PROV-JSON,
            PROV-N and PROV-XML writers turn back into ``xsd:`` (``False`` for a drawing,
            which shows the datatype as the package writes it).

    Raises:
        SerializationError: a statement has no PROV-DM form the ``prov`` package
            accepts (for example an ``prov:atTime`` literal that is not an
            ``xsd:dateTime``); the message names it. With ``xml=True``: an IRI has no
            QName form (the message lists them and the formats that can hold them).
    """
    by_graph: dict[IRI | None, list[Quad]] = defaultdict(list)
    for q in quads:
        by_graph[q[3] if bundle_graphs else None].append(q)
    doc = ProvDocument()
    names = QNames(doc, xml=xml)
    for g in sorted(by_graph, key=lambda x: "" if x is None else "~" + x):
        target: ProvBundle = doc if g is None else doc.bundle(names.qname(g))
        _Reader(target, names, by_graph[g], g, keep_forms).run()
    if names.unwritable:
        bad = sorted(set(names.unwritable))
        raise SerializationError(
            f"PROV-XML cannot write {len(bad)} identifier(s): "
            + ", ".join(f"<{i}>" for i in bad[:5]) + (" ..." if len(bad) > 5 else "")
            + ". PROV-XML writes every identifier and attribute name as an xsd:QName, whose "
            "local part is an XML NCName, and no split of these IRIs gives one (an NCName "
            "holds no ';', ')', '=' or ':' and does not start with a digit). Export as "
            "prov-json, provn, trig or nquads, which hold any IRI")
    return doc


class _Reader:
    """Turns the triples of one graph into records of one bundle."""

    def __init__(self, bundle: ProvBundle, names: QNames, quads: list[Quad],
                 graph: IRI | None = None, keep_forms: bool = True) -> None:
        self.b = bundle
        self.graph = graph
        self.keep_forms = keep_forms
        self.names = names
        self.triples = {(q[0], q[1], q[2]) for q in quads}
        self.by_subject: dict[Any, list[tuple[IRI, Term]]] = defaultdict(list)
        for s, p, o in sorted(self.triples, key=_sort_key):
            self.by_subject[s].append((p, o))
        self.consumed: set[tuple[Any, Any, Any]] = set()

    def qn(self, term: Any) -> QualifiedName:
        return self.names.qname(term)

    def value(self, term: Term, prop: str | None = None) -> Any:
        if isinstance(term, (IRI, BNode)) and not isinstance(term, Literal):
            return self.qn(term)
        assert isinstance(term, Literal)
        if term.language:
            return ProvLiteral(term.value, PROV_INTERNATIONALIZEDSTRING, term.language)
        dt = term.datatype
        if dt is None:
            return term.value
        if dt == _XSD + "dateTime":
            parsed = LexicalDateTime.parse(term.value)
            if parsed is not None:
                return parsed
        if self.keep_forms and dt == _XSD + "QName":
            where = f" in graph <{self.graph}>" if self.graph is not None else ""
            raise SerializationError(
                f"the literal {_n3(term)}{where} (of <{prop or 'prov:type'}>) has no PROV-JSON, "
                "PROV-N or PROV-XML form: those formats read an xsd:QName value as a qualified "
                "name against their own prefix declarations (the value would come back as an "
                "IRI, or not at all), and an RDF literal carries none. Export in an RDF format "
                "(trig, nquads, turtle, json-ld), which keeps it as it is")
        if self.keep_forms and dt.startswith(_XSD) and dt[len(_XSD):] in PARSED_TYPES:
            # the prov package would hold it as a Python value and write it back in its
            # own form; a datatype it does not know keeps the form. The writers
            # (provjson/provn/provxml) name it xsd: again (issue 15)
            return ProvLiteral(term.value, self.names.namespace(LEXICAL_XSD, "pglexical")[
                dt[len(_XSD):]])
        return ProvLiteral(term.value, self.qn(IRI(dt)))

    def time(self, s: Any, p: str, term: Term) -> Any:
        if isinstance(term, Literal) and term.datatype in (_XSD + "dateTime", None):
            parsed = LexicalDateTime.parse(term.value)
            if parsed is not None:
                return parsed
        from ..xsd import ill_typed

        where = f" in graph <{self.graph}>" if self.graph is not None else ""
        if isinstance(term, Literal) and term.datatype == _XSD + "dateTime" \
                and ill_typed(term) is None:
            why = "a valid xsd:dateTime the prov package cannot hold (years 1 to 9999 only)"
        else:
            why = "not a valid xsd:dateTime, which PROV-DM needs there"
        raise SerializationError(
            f"the statement {_n3(s)} {_n3(p)} {_n3(term)} .{where} has no PROV-JSON, PROV-N "
            f"or PROV-XML form: the value is {why}. Run 'provgraph validate' to list every "
            "ill-typed literal; correct the value, or export in an RDF format (trig, nquads, "
            "turtle, json-ld), which keeps it as it is")

    def objects(self, s: Any, p: str) -> list[Term]:
        return [o for pp, o in self.by_subject.get(s, ()) if pp == p]

    def take(self, s: Any, p: str, o: Any) -> None:
        self.consumed.add((s, p, o))

    def run(self) -> None:
        qualified = self._qualified_nodes()
        node_ids = {n for n, _, _ in qualified}
        for node, qprop, subject in qualified:
            self._qualified_record(node, qprop, subject)
        self._binary_records()
        self._elements(node_ids)

    def _qualified_nodes(self) -> list[tuple[IRI | BNode, IRI, IRI | BNode]]:
        """``(node, qualified property, subject)`` for each qualified relation."""
        found: list[tuple[IRI | BNode, IRI, IRI | BNode]] = []
        for s, p, o in sorted(self.triples, key=_sort_key):
            if p in _QUALIFIED and not isinstance(o, Literal):
                found.append((o, p, s))
        return found

    def _qualified_record(self, node: Any, qprop: str, subject: Any) -> None:
        rtype, subtype = _QUALIFIED[qprop]
        rel = _RELS[rtype]
        binary, node_obj, cls = _QUAL_TO_BINARY[qprop]
        self.take(subject, qprop, node)
        imprecise = (rtype == PROV_DERIVATION and not isinstance(node, BNode)
                     and (node, PG.imprecise, _TRUE) in self.triples
                     and any(self.objects(node, p) for p in _PRECISE_SLOTS))
        if imprecise:
            self.take(node, PG.imprecise, _TRUE)
        classes = {cls}
        objs = self.objects(node, node_obj)
        for o in objs:
            self.take(node, node_obj, o)
            self.take(subject, binary, o)
        formal: dict[QualifiedName, list[Any]] = {rel.subject: [self.qn(subject)]}
        formal[rel.object] = [self.qn(o) for o in objs if not isinstance(o, Literal)] or [None]
        for attr, prop in rel.extras:
            vals = self.objects(node, prop)
            for v in vals:
                self.take(node, prop, v)
            if prop == PROV.atTime:
                formal[attr] = [self.time(node, PROV.atTime, v) for v in vals] or [None]
            else:
                formal[attr] = [self.qn(v) for v in vals if not isinstance(v, Literal)] or [None]
        attrs: list[tuple[QualifiedName, Any]] = []
        if subtype is not None:
            attrs.append((PROV_TYPE, self.qn(subtype)))
        for p, o in self.by_subject.get(node, ()):
            if (node, p, o) in self.consumed and p != RDF.type:
                continue
            if p == RDF.type and o in classes:
                self.take(node, p, o)
                continue
            if p in _QUALIFIED or (p == RDF.type and o in (_ELEMENT_CLASSES.keys())):
                continue  # the node is also a subject of its own relations / an element
            self.take(node, p, o)
            attrs.append(self._attr(p, o))
        ident = self.qn(node) if not isinstance(node, BNode) else None
        keys = list(formal)
        for combo in product(*(formal[k] for k in keys)):
            self._new(rtype, ident, list(zip(keys, combo)), attrs)
        if imprecise:  # the same id given as an imprecise derivation too (pg:imprecise)
            for o in formal[rel.object]:
                self._new(rtype, ident, [(rel.subject, self.qn(subject)), (rel.object, o)],
                          attrs[:1] if subtype is not None else [])

    def _new(self, rtype: QualifiedName, ident: Any, formal: list[tuple[QualifiedName, Any]],
             attrs: list[tuple[QualifiedName, Any]]) -> None:
        formal = [(k, v) for k, v in formal if v is not None]
        try:
            self.b.new_record(rtype, ident, formal, attrs)
        except Exception as exc:  # prov raises ProvException and plain ValueErrors
            raise SerializationError(
                f"the prov package cannot hold a {rtype.localpart} record "
                f"{ident or ''} {formal} {attrs}: {exc}") from exc

    def _attr(self, p: str, o: Term) -> tuple[QualifiedName, Any]:
        if p == RDF.type:
            return (PROV_TYPE, self.value(o))
        if p == PROV_TYPE_PROPERTY:
            return (PROV_TYPE, self.value(o))
        if p in _PROP_TO_ATTR:
            return (_PROP_TO_ATTR[p], self.value(o))
        return (self.qn(IRI(p)), self.value(o, p))

    def _binary_records(self) -> None:
        binaries: dict[str, tuple[QualifiedName, IRI | None]] = {}
        for rtype, rel in _RELS.items():
            binaries[rel.binary] = (rtype, None)
        for cls, (binary, _, _) in _DERIVATION_KINDS.items():
            binaries[binary] = (PROV_DERIVATION, cls)
        shortcuts = {rel.time_shortcut: rtype for rtype, rel in _RELS.items() if rel.time_shortcut}
        simple = {prop: (rtype, a, b) for rtype, (a, b, prop) in _SIMPLE.items()}
        for s, p, o in sorted(self.triples, key=_sort_key):
            if (s, p, o) in self.consumed or isinstance(o, Literal) and p not in shortcuts:
                continue
            if p in binaries:
                rtype, subtype = binaries[p]
                rel = _RELS[rtype]
                attrs = [(PROV_TYPE, self.qn(subtype))] if subtype else []
                self._new(rtype, None, [(rel.subject, self.qn(s)), (rel.object, self.qn(o))],
                          attrs)
            elif p in shortcuts:
                rtype = shortcuts[p]
                rel = _RELS[rtype]
                self._new(rtype, None, [(rel.subject, self.qn(s)),
                                        (PROV_ATTR_TIME, self.time(s, p, o))], [])
            elif p in simple:
                rtype, a, b = simple[p]
                self._new(rtype, None, [(a, self.qn(s)), (b, self.qn(o))], [])
            elif p == _MENTION_OF:
                bundles = [x for x in self.objects(s, _AS_IN_BUNDLE) if not isinstance(x, Literal)]
                if not bundles:
                    continue
                for bnd in bundles:
                    self.take(s, _AS_IN_BUNDLE, bnd)
                    self._new(PROV_MENTION, None, [(PROV_ATTR_SPECIFIC_ENTITY, self.qn(s)),
                                                   (PROV_ATTR_GENERAL_ENTITY, self.qn(o)),
                                                   (PROV_ATTR_BUNDLE, self.qn(bnd))], [])
            else:
                continue
            self.take(s, p, o)

    def _elements(self, node_ids: set[Any]) -> None:
        for s, pos in self.by_subject.items():
            kinds: list[QualifiedName] = []
            types = {o for p, o in pos if p == RDF.type}
            for cls, rtype in _ELEMENT_CLASSES.items():
                if cls in types:
                    kinds.append(rtype)
                    self.take(s, RDF.type, cls)
            rest = [(p, o) for p, o in pos if (s, p, o) not in self.consumed]
            if not kinds and not rest:
                continue
            if s in node_ids and not kinds:
                # leftover statements of a qualified node were attached to its record(s)
                continue
            if not kinds:
                kinds = [PROV_ENTITY]
                attrs = [(PROV_TYPE, self.qn(_AUX_TYPE))]
            else:
                attrs = []
            first = kinds[0]
            formal: list[tuple[QualifiedName, Any]] = []
            extra_starts: list[Any] = []
            extra_ends: list[Any] = []
            for p, o in rest:
                if first == PROV_ACTIVITY and p in (PROV.startedAtTime, PROV.endedAtTime):
                    value = self.time(s, p, o)
                    attr = PROV_ATTR_STARTTIME if p == PROV.startedAtTime else PROV_ATTR_ENDTIME
                    if any(k == attr for k, _ in formal):
                        (extra_starts if attr == PROV_ATTR_STARTTIME else extra_ends).append(value)
                    else:
                        formal.append((attr, value))
                    continue
                attrs.append(self._attr(p, o))
            ident = self.qn(s)
            self._new(first, ident, formal, attrs)
            for v in extra_starts:
                self._new(PROV_ACTIVITY, ident, [(PROV_ATTR_STARTTIME, v)], [])
            for v in extra_ends:
                self._new(PROV_ACTIVITY, ident, [(PROV_ATTR_ENDTIME, v)], [])
            for k in kinds[1:]:
                self._new(k, ident, [], [])


def _sort_key(t: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(x.n3() if hasattr(x, "n3") else str(x) for x in t)


def _n3(term: Any) -> str:
    return term.n3() if hasattr(term, "n3") else f"<{term}>"


# ---------------------------------------------------------------------------
# PROV-O entailments applied on import


def complete(quads: Sequence[Quad]) -> tuple[list[Quad], int]:
    """Add the PROV-O entailments listed in the module docstring; return (quads, added).

    Works graph by graph (a bundle's statements never complete another's).
    Idempotent: completing complete quads adds nothing.
    """
    present = set(quads)
    out = list(quads)
    added = 0

    def add(q: Quad) -> None:
        nonlocal added
        if q not in present:
            present.add(q)
            out.append(q)
            added += 1

    by_sg: dict[tuple[Any, Any], list[tuple[str, Term]]] = defaultdict(list)
    for s, p, o, g in quads:
        by_sg[(s, g)].append((p, o))
    for s, p, o, g in list(quads):
        if p in _QUAL_TO_BINARY and not isinstance(o, Literal):
            binary, node_obj, cls = _QUAL_TO_BINARY[p]
            add((o, RDF.type, cls, g))
            for pp, oo in by_sg.get((o, g), ()):
                if pp == node_obj and not isinstance(oo, Literal):
                    add((s, binary, oo, g))
        elif p == RDF.type and o in _AGENT_SUBCLASSES:
            add((s, RDF.type, PROV.Agent, g))
        elif p == RDF.type and o in _ENTITY_SUBCLASSES:
            add((s, RDF.type, PROV.Entity, g))
    # binary-only revision / quotation / primary source: add the qualified form
    for cls, (binary, qualified, _) in _DERIVATION_KINDS.items():
        for s, p, o, g in list(out):
            if p != binary or isinstance(o, Literal):
                continue
            has = any(pp == qualified and any(
                ppp == PROV.entity and ooo == o for ppp, ooo in by_sg.get((oo, g), ()))
                for pp, oo in by_sg.get((s, g), ()))
            if not has:
                node = BNode("b" + uuid.uuid4().hex)
                for q in ((s, qualified, node, g), (node, RDF.type, cls, g),
                          (node, PROV.entity, o, g)):
                    add(q)
                by_sg[(s, g)].append((qualified, node))
                by_sg[(node, g)].append((PROV.entity, o))
    return out, added


def uses_prov(quads: Iterable[Quad]) -> bool:
    """Whether any statement uses a term of the PROV namespace (property, class or value)."""
    for s, p, o, _ in quads:
        if p.startswith(_P) or (isinstance(o, IRI) and o.startswith(_P)):
            return True
    return False

