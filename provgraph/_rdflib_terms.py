"""rdflib terms read as :mod:`provgraph.terms` terms: the one conversion the modules that
parse with rdflib (:mod:`provgraph.sparql_guard`'s SPARQL Update reading,
:mod:`provgraph.shacl`'s pyshacl reports) share. Imports rdflib: import this module
where rdflib is needed, not at start-up."""

from __future__ import annotations

from typing import Any

import rdflib

from .terms import IRI, BNode, Literal

__all__ = ["from_rdflib"]

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def from_rdflib(node: Any) -> Any:
    """``node`` as a provgraph term: a ``URIRef`` as :class:`IRI`, a ``BNode`` as
    :class:`BNode` (same label), a ``Literal`` as :class:`Literal` (lexical form as given;
    ``xsd:string`` as a plain literal, RDF 1.1 §3.3; the language tag as rdflib holds
    it). Anything else (``None``, a SPARQL variable) is returned as it is."""
    if isinstance(node, rdflib.URIRef):
        return IRI(str(node))
    if isinstance(node, rdflib.BNode):
        return BNode(str(node))
    if isinstance(node, rdflib.Literal):
        if node.language:
            return Literal(str(node), None, node.language)
        dt = None if node.datatype is None else str(node.datatype)
        return Literal(str(node), None if dt == _XSD_STRING else dt)
    return node
