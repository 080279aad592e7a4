"""Importing a PROV-XML document streamed, without holding it whole (issue 16, item 6).

The whole-document path screens the document with defusedxml and has the ``prov``
package build one :class:`prov.model.ProvDocument` of it
(:func:`provgraph.io.provxml.read`). Here the document is read twice as a stream of
parse events by defusedxml's ``iterparse`` (the same protections as the screen: a DTD,
an entity declaration or an external reference is refused before it is acted on; no
network), each record element dropped once it is handled:

1. *Scan.* The root is ``prov:document``; no element nests deeper than
   :data:`provgraph.limits.MAX_XML_DEPTH`; no XInclude element; every child of the
   document and of a ``prov:bundleContent`` is in the PROV namespace; the text of every
   formal time (``prov:time``, ``prov:startTime``, ``prov:endTime``: the form a time is
   stored in depends on every form the document writes it in); and which ids name more
   than one record of one kind in one bundle.
2. *Records.* The record elements are written back, :data:`CHUNK_RECORDS` at a time,
   with every namespace declaration in scope and their own prefixes (a PROV-XML value
   such as ``prov:ref="ex:e"`` or a ``xsd:QName`` text depends on them), into a small
   PROV-XML document that goes through the very path a whole document takes
   (:func:`provgraph.io.provxml.read`, :func:`provgraph.validate.check_document`,
   :func:`~provgraph.io.provo.document_to_quads` with the whole document's time forms
   and one map of blank-node labels), stored as they come by
   :func:`provgraph.io.stream_load.store_streamed`, all or nothing. Records whose id
   and kind repeat in a bundle (PROV-CONSTRAINTS key checks and the imprecise-derivation
   mark compare them) are kept aside and converted together at the end.

Anything this module does not stream is read whole instead
(:class:`~provgraph.io.stream_load.NotStreamed`, nothing stored): XML the scan refuses
(the whole read then gives its refusal), a document using the name ``pglexical``,
an element with the same namespace bound to two prefixes, or an attribute in a namespace
bound only as the default one.

Memory: the scan keeps a Bloom filter of the identified records' keys
(:class:`~provgraph.io.stream_load.RepeatedKeys`, with a second scan counting the few it
may have seen twice) and one entry per distinct formal time form; the records pass one chunk, the records kept aside and the blank-node map.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, BinaryIO
from xml.sax.saxutils import escape, quoteattr

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET

from ..limits import MAX_XML_DEPTH
from ..store import ProvStore
from ..terms import IRI, Quad
from ._prov import PROV_VERSION
from .load import ImportReport, target_graph
from .stream_load import (NotStreamed, ProvChunks, RepeatedKeys, opened, refuse_lexical,
                          repeated_keys)

__all__ = ["CHUNK_RECORDS", "import_provxml_stream", "streams_provxml"]

CHUNK_RECORDS = 2_000
"""Record elements converted together."""

PROV_NS = "http://www.w3.org/ns/prov#"
_DOCUMENT = "{%s}document" % PROV_NS
_BUNDLE = "{%s}bundleContent" % PROV_NS
_ID = "{%s}id" % PROV_NS
_TIME_TAGS = frozenset("{%s}%s" % (PROV_NS, t) for t in ("time", "startTime", "endTime"))
_XINCLUDE = ("{http://www.w3.org/2001/XInclude}", "{http://www.w3.org/2003/XInclude}")
_XML_NS = "http://www.w3.org/XML/1998/namespace"


def _events(source: BinaryIO) -> Iterator[tuple[str, Any]]:
    """defusedxml ``iterparse`` events (``start``, ``end``, ``start-ns``), mapping what it
    refuses to :class:`NotStreamed` (the whole read gives the message)."""
    try:
        yield from SafeET.iterparse(source, events=("start", "end", "start-ns"),
                                    forbid_dtd=True, forbid_entities=True,
                                    forbid_external=True)
    except (DefusedXmlException, SafeET.ParseError, LookupError) as exc:
        raise NotStreamed(f"the XML is refused or not well-formed ({exc})") from exc


def _scan(source: BinaryIO, ids: RepeatedKeys) -> dict[str, None]:
    """Pass 1 (module docstring): the formal times' distinct texts; the identified records'
    keys go to ``ids``.

    Raises:
        NotStreamed: the document is to be read whole.
    """
    times: dict[str, None] = {}
    stack: list[Any] = []
    bundle: str | None = None
    bundle_names: set[str] = set()  # the local parts of the bundle identifiers so far
    for event, el in _events(source):
        if event == "start-ns":
            continue
        if event == "start":
            tag = el.tag if isinstance(el.tag, str) else ""
            if not stack and tag != _DOCUMENT:
                raise NotStreamed(f"the root is {tag}, not prov:document")
            if len(stack) >= MAX_XML_DEPTH:
                raise NotStreamed(f"it nests deeper than {MAX_XML_DEPTH} elements")
            if tag.startswith(_XINCLUDE):
                raise NotStreamed("it has an XInclude element")
            parent = stack[-1].tag if stack else None
            if parent in (_DOCUMENT, _BUNDLE):
                if not tag.startswith("{%s}" % PROV_NS):
                    raise NotStreamed(f"<{tag}> is not in the PROV namespace")
                if tag == _BUNDLE:
                    if parent == _BUNDLE:
                        raise NotStreamed("a bundle nests in a bundle")
                    bundle = el.get(_ID)
                    # two bundles with one identifier: the prov package refuses the
                    # document; one local part under two prefixes may name one IRI, so
                    # any repeated local part leaves the document to the whole read
                    local = (bundle or "").rpartition(":")[2]
                    if local in bundle_names:
                        raise NotStreamed(f"the bundle identifier {bundle} may name an "
                                          "earlier bundle")
                    bundle_names.add(local)
                elif el.get(_ID) is not None:
                    ids.add((bundle, tag, el.get(_ID)))
            stack.append(el)
            continue
        stack.pop()
        if el.tag in _TIME_TAGS and el.text and el.text.strip():
            times[el.text.strip()] = None
        if stack and stack[-1].tag in (_DOCUMENT, _BUNDLE):
            if el.tag == _BUNDLE:
                bundle = None
            stack[-1].remove(el)  # handled: free it
    return times


class _Writer:
    """Writes record elements back as XML text with their documents' own prefixes."""

    def __init__(self) -> None:
        self.decls: dict[int, list[tuple[str, str]]] = {}  # id(element) -> its xmlns

    def name(self, qname: str, scope: dict[str, str], attribute: bool) -> str:
        if not qname.startswith("{"):
            return qname
        uri, local = qname[1:].split("}", 1)
        if uri == _XML_NS:
            return "xml:" + local
        prefix = scope.get(uri)
        if prefix is None or (attribute and prefix == ""):
            raise NotStreamed(f"the namespace {uri} has no prefix to write {local} with")
        return f"{prefix}:{local}" if prefix else local

    def element(self, el: Any, scope: dict[str, str], out: list[str]) -> None:
        own = self.decls.get(id(el), [])
        if own:
            scope = dict(scope)
            for prefix, uri in own:
                if scope.get(uri, prefix) != prefix:
                    raise NotStreamed(f"the namespace {uri} is bound to two prefixes")
                scope[uri] = prefix
        parts = [self.name(el.tag, scope, False)]
        parts += [f"xmlns:{p}={quoteattr(u)}" if p else f"xmlns={quoteattr(u)}" for p, u in own]
        parts += [f"{self.name(k, scope, True)}={quoteattr(v)}" for k, v in el.attrib.items()]
        out.append("<" + " ".join(parts) + ">")
        if el.text:
            out.append(escape(el.text))
        for child in el:
            self.element(child, scope, out)
        out.append(f"</{parts[0]}>")
        if el.tail:
            out.append(escape(el.tail))


def _records(source: BinaryIO, repeated: set[int]) -> Iterator[tuple[str, list[str]]]:
    """``(document head + bundle head, [record text...], tail)`` chunks in document order,
    then the records kept aside (pass 2)."""
    w = _Writer()
    pending: list[tuple[str, str]] = []
    stack: list[Any] = []
    scopes: list[dict[str, str]] = []
    heads: list[str] = []
    aside: dict[tuple[str, ...], list[str]] = {}
    chunk: list[str] = []
    bundle_id: str | None = None
    for event, item in _events(source):
        if event == "start-ns":
            pending.append(item if item[0] else ("", item[1]))
            continue
        if event == "start":
            el = item
            scope = dict(scopes[-1]) if scopes else {}
            for prefix, uri in pending:
                scope[uri] = prefix
            if pending:
                w.decls[id(el)] = pending
            pending = []
            if el.tag in (_DOCUMENT, _BUNDLE) and len(stack) < 2:
                if chunk:  # the document's records before the bundle
                    yield _wrap(heads, chunk)
                    chunk = []
                decls = " ".join(f"xmlns:{p}={quoteattr(u)}" if p else f"xmlns={quoteattr(u)}"
                                 for p, u in w.decls.get(id(el), []))
                attrs = " ".join(f"{w.name(k, scope, True)}={quoteattr(v)}"
                                 for k, v in el.attrib.items())
                heads.append(" ".join(x for x in (w.name(el.tag, scope, False), decls, attrs)
                                      if x))
                if el.tag == _BUNDLE:
                    bundle_id = el.get(_ID)
            stack.append(el)
            scopes.append(scope)
            continue
        el = item
        stack.pop()
        scope = scopes.pop()
        if not stack:
            break
        parent = stack[-1]
        if el.tag == _BUNDLE and parent.tag == _DOCUMENT:
            if chunk:
                yield _wrap(heads, chunk)
                chunk = []
            heads.pop()
            bundle_id = None
            parent.remove(el)
            w.decls.clear()
            continue
        if parent.tag not in (_DOCUMENT, _BUNDLE):
            continue
        text: list[str] = []
        w.element(el, scopes[-1], text)
        if el.get(_ID) is not None and hash((bundle_id, el.tag, el.get(_ID))) in repeated:
            aside.setdefault(tuple(heads), []).append("".join(text))
        else:
            chunk.append("".join(text))
        parent.remove(el)
        for sub in el.iter():
            w.decls.pop(id(sub), None)
        if len(chunk) >= CHUNK_RECORDS:
            yield _wrap(heads, chunk)
            chunk = []
    if chunk:
        yield _wrap(heads, chunk)
    for kept_heads, records in aside.items():
        yield _wrap(list(kept_heads), records)


def _wrap(heads: list[str], records: list[str]) -> tuple[str, list[str]]:
    return "".join(f"<{h}>" for h in heads), [*records, *(f"</{h.split(' ', 1)[0]}>"
                                                         for h in reversed(heads))]


def streams_provxml(head: bytes, format: str, name: str) -> bool:
    """Whether ``provgraph import`` tries :func:`import_provxml_stream` on a file: under
    ``--format prov-xml``, or under ``auto`` for a ``.provx``/``.xml`` file (the scan
    leaves any other XML, RDF/XML for one, to the whole read).

    Example:
        >>> streams_provxml(b'<prov:document xmlns:prov="http://www.w3.org/ns/prov#"/>',
        ...                 "auto", "doc.provx")
        True
        >>> streams_provxml(b"{}", "auto", "doc.json")
        False
    """
    if format != "auto":
        return format == "prov-xml"
    return (os.path.splitext(name)[1].lower() in (".provx", ".xml")
            and head.lstrip(b"\xef\xbb\xbf").lstrip()[:1] == b"<")


def import_provxml_stream(store: ProvStore, source: str | os.PathLike[str] | BinaryIO, *,
                          graph: IRI | str | None = None,
                          name: str = "<input>") -> ImportReport:
    """Import a PROV-XML document streamed, all or nothing (module docstring): the same
    statements, report and refusals as :func:`provgraph.io.load.import_document` (an
    agreement test checks it), the document never held whole.

    Args:
        store: where to store; it must journal (:attr:`ProvStore.journals`).
        source: a file path, or a seekable binary file object (read three times).
        graph: named graph for statements outside any bundle (``None``: the default
            graph); not one of :data:`provgraph.io.load.RESERVED_GRAPHS`.
        name: the input's name for messages.

    Returns:
        :class:`~provgraph.io.load.ImportReport` (``reader`` says it was streamed).

    Raises:
        NotStreamed: the document is to be read whole; nothing was stored.
        ValueError: ``graph`` is refused (:func:`~provgraph.io.load.check_target_graph`).
        SerializationError: the document is refused (as the whole read refuses it);
            nothing is stored.
        StoreError: the store does not journal or cannot be written; nothing is stored.

    Example:
        >>> import io
        >>> from provgraph.store import EmbeddedStore
        >>> doc = io.BytesIO(b'<prov:document xmlns:prov="http://www.w3.org/ns/prov#" '
        ...                  b'xmlns:ex="urn:ex:"><prov:entity prov:id="ex:e"/></prov:document>')
        >>> r = import_provxml_stream(EmbeddedStore(), doc, name="e.provx")
        >>> (r.format, r.stored)
        ('prov-xml', 1)
    """
    target = target_graph(graph)
    with opened(source, name) as f:
        refuse_lexical(f)
        repeated, times = repeated_keys(f, _scan, 50)
        return ProvChunks.store_document(
            store, f, name=name, target=target, times=times,
            quads=lambda f, chunks: _quads(f, repeated, chunks), format="prov-xml",
            reader=f"prov-xml streamed by defusedxml iterparse, records read by the prov "
                   f"package {PROV_VERSION}")


def _quads(source: BinaryIO, repeated: set[int], chunks: ProvChunks) -> Iterator[Quad]:
    """The document's statements, chunk by chunk (pass 2)."""
    from .provxml import read as read_chunk

    for head, body in _records(source, repeated):
        got = read_chunk((head + "".join(body)).encode("utf-8"), chunks.name, times=False)
        for b in got.document.bundles:  # the whole read reports bundle by bundle
            if b.identifier is not None:
                chunks.constraints.setdefault(str(b.identifier.uri), [])
        yield from chunks.quads(got, lambda v: v.graph)
