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

__all__ = ["GENID", "WELL_KNOWN_PREFIXES", "QNames", "split_iri", "prefixes_for",
           "prefixes_for_iris", "xml_split",
           "NCNAME"]

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


_NAME_START = ("A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF"
               "\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF"
               "\uFDF0-\uFFFD\U00010000-\U000EFFFF")
_NAME_CHAR = _NAME_START + "\\-.0-9\u00B7\u0300-\u036F\u203F-\u2040"
NCNAME = re.compile(f"[{_NAME_START}][{_NAME_CHAR}]*")
"""An XML NCName (Namespaces in XML 1.0 §3, XML 1.0 §2.3): a QName's local part and prefix."""
_NCNAME_SUFFIX = re.compile(f"[{_NAME_START}][{_NAME_CHAR}]*$")


def xml_split(iri: str) -> tuple[str, str] | None:
    """Split an IRI into a namespace and an NCName local part, as PROV-XML needs for every
    ``prov:id``/``prov:ref`` (``xsd:QName``) and attribute element name; ``None`` when no
    split gives one (the IRI ends in a character no NCName holds, as in
    ``http://example.org/page=4;``).

    :func:`split_iri`'s split when its local part is an NCName; otherwise the longest
    NCName suffix (``urn:uuid:0190f3c2-...`` -> ``urn:uuid:0190`` + ``f3c2-...``).

    Example:
        >>> xml_split("http://example.org/report-v2")
        ('http://example.org/', 'report-v2')
        >>> xml_split("urn:x:1a"), xml_split("http://example.org/report(v2)")
        (('urn:x:1', 'a'), None)
    """
    ns, local, _ = split_iri(iri)
    if local and NCNAME.fullmatch(local):
        return ns, local
    m = _NCNAME_SUFFIX.search(iri[iri.rfind(":") + 1:] if ":" in iri else iri)
    if m is None:
        return None
    cut = len(iri) - len(m.group(0))
    return iri[:cut], iri[cut:]


class QNames:
    """Mints prov QualifiedNames for IRIs, registering readable prefixes.

    With ``xml=True`` every local part is an XML NCName (:func:`xml_split`), as
    PROV-XML needs; an IRI without one is collected in :attr:`unwritable` (and gets
    the usual split, so the caller can name them all before refusing).
    """

    def __init__(self, doc: ProvDocument, *, xml: bool = False) -> None:
        self.doc = doc
        self.by_uri: dict[str, Namespace] = {}
        self.used: set[str] = set()
        self._bnodes: dict[str, str] = {}
        self.xml = xml
        self.unwritable: list[str] = []

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
        if self.xml and not NCNAME.fullmatch(local):
            got = xml_split(iri)
            if got is None:
                self.unwritable.append(iri)
            else:
                ns_uri, local = got
                hint = split_iri(ns_uri + "x")[2]
        return self.namespace(ns_uri, hint)[local]


_KNOWN_BY_LENGTH = sorted(WELL_KNOWN_PREFIXES.items(), key=lambda kv: -len(kv[1]))
_PREFIX_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_SKIP_TOKENS = {"http", "https", "www", "urn", "org", "com", "net", "ns", "html", "ttl", "rdf",
                "owl", "xml", "xmlns"}


_PG_URN = re.compile(r"(urn:provgraph:([A-Za-z][A-Za-z0-9-]*):)(.+)$")
_HINTS: dict[str, str] = {}
"""Namespace -> its prefix hint (a run export splits thousands of IRIs in a few
namespaces; issue 16, item 7). Bounded."""


def split_iri(iri: str) -> tuple[str, str, str]:
    """Split an IRI into (namespace, local part, prefix hint) for a qualified name."""
    for prefix, uri in _KNOWN_BY_LENGTH:
        if iri.startswith(uri) and len(iri) > len(uri):
            return uri, iri[len(uri):], prefix
    m = _PG_URN.match(iri)
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
    hint = _HINTS.get(ns)
    if hint is None:
        tokens = [t.lower() for t in _PREFIX_TOKEN.findall(ns) if t.lower() not in _SKIP_TOKENS]
        hint = tokens[-1] if tokens else "ns"
        if hint.startswith("xml"):
            hint = "ns"
        if len(_HINTS) > 4096:
            _HINTS.clear()
        hint = _HINTS[ns] = hint[:12]
    return ns, iri[cut + 1:], hint


def prefixes_for(quads: Iterable[Quad]) -> dict[str, str]:
    """A readable prefix map for Turtle/TriG output of ``quads``."""
    return prefixes_for_iris(t for q in quads for t in (q[0], q[1], q[2], q[3])
                             if isinstance(t, IRI) and not isinstance(t, BNode))


def prefixes_for_iris(iris: Iterable[IRI]) -> dict[str, str]:
    """:func:`prefixes_for` from the IRIs of the statements, in statement order (subject,
    predicate, object, graph; repeats allowed): the prefixes depend on that order."""
    names = QNames(ProvDocument())
    seen: set[str] = set()  # each IRI once, in first-seen order (a store export repeats most
    for t in iris:          # of them: 44,499 statements have 161,655 IRI positions; issue 16)
        if t not in seen:
            seen.add(t)
            names.qname(t)
    return {ns.prefix: uri for uri, ns in names.by_uri.items() if uri != GENID}
