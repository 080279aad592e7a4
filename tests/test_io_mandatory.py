"""Every PROV-DM relation x every PROV format: a relation lacking an argument PROV-DM
requires is an import error naming the record and the argument, and nothing is stored
(issue 15, "Silent loss or change on import and export").

The documents are built from the one relation table (:mod:`provgraph.relations`): the
PROV-N record has its subject and a ``-`` in every other position; PROV-JSON and
PROV-XML are the same document written by the ``prov`` package; the PROV-O form is a
qualified node without its ``prov:entity``/``activity``/``agent``/``influencer`` (and,
for a relation whose object may be ``-``, PROV-CONSTRAINTS §5.1 Table 3's "expandable",
without anything else either). Each document
also holds a valid record, ``entity(ex:x)``: before issue 15 the bad record was then
dropped without a word (or, with an id, stored with no agent).

``specializationOf``, ``alternateOf``, ``hadMember`` and ``mentionOf`` have no
qualified form: a PROV-O triple always has its object, so they have no RDF case.
"""

from __future__ import annotations

import io

import prov
import pytest

from provgraph.errors import SerializationError
from provgraph.io.load import import_document
from provgraph.relations import PROV_RELATIONS, Relation
from provgraph.store import EmbeddedStore, parse_rdf, serialize_quads

_PROVN_KEYWORD = {"wasRevisionOf": "wasDerivedFrom", "wasQuotedFrom": "wasDerivedFrom",
                  "hadPrimarySource": "wasDerivedFrom", "asInBundle": "mentionOf"}
"""PROV-N keywords of the rows that are not PROV-N keywords themselves."""


def _provn_record(rel: Relation, ident: str | None) -> str:
    """The relation's record with its subject, a ``-`` for every other argument."""
    keyword = _PROVN_KEYWORD.get(rel.name, rel.name)
    if rel.name == "mentionOf":
        args = ["ex:s", "-", "ex:b"]
    elif rel.name == "asInBundle":
        args = ["ex:s", "ex:g", "-"]
    else:
        args = ["ex:s", "-", *("-" for _ in rel.roles)]
    attrs = f", [prov:type='prov:{rel.subtype.split('#')[1]}']" if rel.subtype else ""
    head = f"{ident}; " if ident else ""
    return f"{keyword}({head}{', '.join(args)}{attrs})"


def _provn(rel: Relation, ident: str | None = None) -> bytes:
    return (f"document\n  prefix ex <http://example.org/>\n  entity(ex:x)\n"
            f"  {_provn_record(rel, ident)}\nendDocument\n").encode()


def _expected_argument(rel: Relation) -> str:
    return rel.object_attr or ""


_RECORD_ROWS = [r for r in PROV_RELATIONS if r.record is not None]
_QUALIFIED_ROWS = [r for r in PROV_RELATIONS if r.qualified is not None]


def _prov_format(rel: Relation, fmt: str, ident: str | None) -> bytes:
    doc = prov.read(io.BytesIO(_provn(rel, ident)), format="provn")
    if fmt == "provn":
        return _provn(rel, ident)
    return doc.serialize(format={"prov-json": "json", "prov-xml": "xml"}[fmt]).encode()


def _refused(data: bytes, fmt: str) -> str:
    store = EmbeddedStore()
    with pytest.raises(SerializationError) as exc:
        import_document(store, data, fmt, name="doc")
    assert len(store) == 0, "an import that fails stores nothing"
    return str(exc.value)


@pytest.mark.parametrize("fmt", ["provn", "prov-json", "prov-xml"])
@pytest.mark.parametrize("rel", _RECORD_ROWS, ids=lambda r: r.name)
def test_prov_dm_formats_refuse_a_missing_mandatory_argument(rel, fmt):
    message = _refused(_prov_format(rel, fmt, None), fmt)
    argument = "bundle" if rel.name == "asInBundle" else _expected_argument(rel)
    assert message.startswith("doc: ") and f"no {argument}" in message, message
    keyword = _PROVN_KEYWORD.get(rel.name, rel.name)
    assert f"{keyword}(ex:s, " in message, "the message quotes the record"
    assert "or remove the record" in message, "the message says how to fix it"
    if rel.object_expandable:
        assert all(f"no {r}" in message for r, _ in rel.roles), message
        assert "no id" in message
        assert "no attribute" in message


@pytest.mark.parametrize("fmt", ["provn", "prov-json", "prov-xml"])
@pytest.mark.parametrize("rel", [r for r in _QUALIFIED_ROWS if not r.object_expandable],
                         ids=lambda r: r.name)
def test_a_relation_with_an_id_is_not_stored_without_its_object(rel, fmt):
    """``wasAttributedTo(ex:id; ex:e, -)`` used to be stored as a qualified node with no
    agent: a PROV-O attribution nobody made."""
    message = _refused(_prov_format(rel, fmt, "ex:id"), fmt)
    assert f"no {rel.object_attr} ('-' in a mandatory position)" in message, message


def _turtle(rel: Relation) -> str:
    """The PROV-O form: ``ex:s prov:qualifiedX [ a prov:X ]``, without its object."""
    extra = f"; a <{rel.subtype}>" if rel.subtype else ""
    return (f"@prefix ex: <http://example.org/> .\n"
            f"ex:x a <http://www.w3.org/ns/prov#Entity> .\n"
            f"ex:s <{rel.qualified}> [ a <{rel.qualified_class}> {extra} ] .\n")


@pytest.mark.parametrize("fmt", ["turtle", "trig", "nquads", "json-ld"])
@pytest.mark.parametrize("rel", _QUALIFIED_ROWS, ids=lambda r: r.name)
def test_prov_o_refuses_a_qualified_node_without_its_object(rel, fmt):
    data = _turtle(rel).encode()
    if fmt != "turtle":
        data = serialize_quads(parse_rdf(data, "turtle"), fmt)
    message = _refused(data, fmt)
    assert f"no {rel.object_attr}" in message and f"<{rel.influencer}>" in message, message
    assert f"<http://example.org/s> <{rel.qualified}>" in message, message
    assert "nothing was stored" in message


@pytest.mark.parametrize("text", [
    "wasGeneratedBy(ex:s, -, 2024-01-01T00:00:00Z)",
    "wasGeneratedBy(ex:s, -, -, [ex:note='kept'])",
    "wasGeneratedBy(ex:g; ex:s, -, -)",  # the id counts (PROV-N §3.3.1; ProvToolbox derivation1)
    "wasStartedBy(ex:s, -, ex:starter, -)",
    "wasEndedBy(ex:s, -, -, 2024-01-01T00:00:00Z)",
    "wasInvalidatedBy(ex:s, -, 2024-01-01T00:00:00Z)",
    "wasAssociatedWith(ex:s, -, ex:plan)",
    "actedOnBehalfOf(ex:s, ex:r, -)",
])
def test_an_expandable_object_with_another_argument_is_still_imported(text):
    store = EmbeddedStore()
    report = import_document(store, (f"document\n prefix ex <http://example.org/>\n {text}\n"
                                      "endDocument").encode(), "provn")
    assert report.stored > 0 and len(store) > 0


@pytest.mark.parametrize("node", [
    '[ a prov:Generation ; prov:atTime "2024-01-01T00:00:00Z"^^xsd:dateTime ]',
    "<urn:g> . <urn:g> a prov:Generation",  # named: it has an id
])
def test_prov_o_optional_object_with_a_time_or_an_id_is_imported(node):
    store = EmbeddedStore()
    import_document(store, ("@prefix prov: <http://www.w3.org/ns/prov#> .\n"
                            "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                            f"<urn:e> prov:qualifiedGeneration {node} .").encode(), "turtle")
    assert len(store) > 0


def test_a_usage_needs_its_entity_even_with_a_time():
    """A usage's entity is not expandable (PROV-CONSTRAINTS §5.1 Table 3), unlike a
    generation's activity: used(a, -, t) is refused as used(a, -, -) is."""
    message = _refused(b"document\n prefix ex <http://example.org/>\n"
                       b" used(ex:a, -, 2024-01-01T00:00:00Z)\nendDocument\n", "provn")
    assert "used(ex:a, -, 2024-01-01T00:00:00+00:00) has no entity ('-' in a mandatory " \
           "position)" in message, message
