"""Qualified names for IRIs: the prefixes provgraph writes in PROV-N, PROV-JSON,
PROV-XML, Turtle and TriG, and how an IRI is split into a namespace and a local part.

Used by :mod:`provgraph.io.provo` (PROV-DM documents need a qualified name for
every identifier) and by :func:`provgraph.io.write` (Turtle/TriG prefixes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from prov.identifier import Namespace, QualifiedName
from prov.model import ProvDocument

from ..terms import IRI, BNode, Quad

__all__ = ["GENID", "WELL_KNOWN_PREFIXES", "QNames", "split_iri", "prefixes_for"]

GENID = "urn:provgraph:genid:"
"""Namespace of the qualified names that stand for blank nodes in PROV-DM documents."""

WELL_KNOWN_PREFIXES = {
    "prov": "http://www.w3.org/ns/prov#", "xsd": "http://www.w3.org/2001/XMLSchema#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#", "pg": "https://w3id.org/provgraph/ns#",
    "oa": "http://www.w3.org/ns/oa#", "foaf": "http://xmlns.com/foaf/0.1/",
    "dcterms": "http://purl.org/dc/terms/", "owl": "http://www.w3.org/2002/07/owl#",
    "uuid": "urn:uuid:", "ni": "ni:///sha-256;", "genid": GENID,
}
"""Prefixes provgraph writes for well-known namespaces (Turtle, PROV-N, PROV-JSON)."""


class QNames:
    """Mints prov QualifiedNames for IRIs, registering readable prefixes."""

    def __init__(self, doc: ProvDocument) -> None:
        self.doc = doc
        self.by_uri: dict[str, Namespace] = {}
        self.used: set[str] = set()
        self._bnodes: dict[str, str] = {}

    def namespace(self, uri: str, prefix_hint: str) -> Namespace:
        ns = self.by_uri.get(uri)
        if ns is None:
            prefix = prefix_hint
            n = 1
            while prefix in self.used:
                n += 1
                prefix = f"{prefix_hint}{n}"
            self.used.add(prefix)
            ns = self.doc.add_namespace(prefix, uri)
            self.by_uri[uri] = ns
        return ns

    def qname(self, term: Any) -> QualifiedName:
        if isinstance(term, BNode):
            label = self._bnodes.setdefault(str(term), f"b{len(self._bnodes) + 1}")
            return self.namespace(GENID, "genid")[label]
        iri = str(term)
        ns_uri, local, hint = split_iri(iri)
        return self.namespace(ns_uri, hint)[local]


_KNOWN_BY_LENGTH = sorted(WELL_KNOWN_PREFIXES.items(), key=lambda kv: -len(kv[1]))
_PREFIX_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_SKIP_TOKENS = {"http", "https", "www", "urn", "org", "com", "net", "ns", "html", "ttl", "rdf",
                "owl", "xml", "xmlns"}


def split_iri(iri: str) -> tuple[str, str, str]:
    """Split an IRI into (namespace, local part, prefix hint) for a qualified name."""
    for prefix, uri in _KNOWN_BY_LENGTH:
        if iri.startswith(uri) and len(iri) > len(uri):
            return uri, iri[len(uri):], prefix
    m = re.match(r"(urn:provgraph:([A-Za-z][A-Za-z0-9-]*):)(.+)$", iri)
    if m:
        return m.group(1), m.group(3), re.sub(r"[^A-Za-z0-9]", "", m.group(2)) or "pg"
    cut = max(iri.rfind("#"), iri.rfind("/"))
    if cut < 0 or cut == len(iri) - 1:
        cut = iri.rfind(":")
    while cut >= 0 and cut == len(iri) - 1:
        cut = max(iri.rfind("#", 0, cut), iri.rfind("/", 0, cut), iri.rfind(":", 0, cut))
    if cut < 0:
        return iri, "", "ns"
    ns = iri[: cut + 1]
    tokens = [t.lower() for t in _PREFIX_TOKEN.findall(ns) if t.lower() not in _SKIP_TOKENS]
    hint = tokens[-1] if tokens else "ns"
    if hint.startswith("xml"):
        hint = "ns"
    return ns, iri[cut + 1:], hint[:12]


def prefixes_for(quads: Iterable[Quad]) -> dict[str, str]:
    """A readable prefix map for Turtle/TriG output of ``quads``."""
    names = QNames(ProvDocument())
    for q in quads:
        for t in (q[0], q[1], q[2], q[3]):
            if isinstance(t, IRI) and not isinstance(t, BNode):
                names.qname(t)
    return {ns.prefix: uri for uri, ns in names.by_uri.items() if uri != GENID}
