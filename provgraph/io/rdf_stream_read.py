"""Importing RDF/XML and JSON-LD streamed, without holding the document (issue 16, item 6).

Both syntaxes are parsed incrementally by pyoxigraph (:func:`provgraph.store.iter_rdf`):
its RDF/XML parser reads the file as a stream of XML events, keeping a stack of open
elements and the ``rdf:ID`` values it met; its JSON-LD parser holds the document only
in the default mode (it buffers every object until its end, in case ``@context`` comes
last), so JSON-LD is read with the Streaming JSON-LD profile
(https://www.w3.org/TR/json-ld11-streaming/), which takes an object's keys as they come.
The statements then go through :func:`provgraph.io.stream_load.store_streamed`, the
path of the other streamed RDF syntaxes: all or nothing through the undo journal, the
same checks, counts and PROV-O entailments as :func:`provgraph.io.load.import_document`.

The whole read's screens run first, as a streaming pass over the file, so the engine is
never handed what the whole read refuses:

* RDF/XML is read by defusedxml's ``iterparse`` with the flags of
  :func:`provgraph.io.provxml.screen`: a DTD, an entity declaration or an external
  reference is refused before it is acted on (no file system, no network), as are an
  XInclude element and nesting deeper than :data:`provgraph.limits.MAX_XML_DEPTH`.
  (pyoxigraph's own RDF/XML parser, oxrdfxml, would expand internal ``<!ENTITY>``
  values and never reads an external one; it is not relied on.)
* JSON-LD is read by ``ijson``: every ``@context`` (and ``@import``) given by reference
  is found as :func:`provgraph.io.jsonld.contexts_of` finds it. pyoxigraph 0.5.13 has no
  document loader and never fetches a context; the PROV-JSONLD context URLs are replaced
  by the ``prov`` package's bundled copy, as the whole read does, by writing that copy
  in place of the reference in the document's first key (the reference's extent is
  found by :meth:`json.JSONDecoder.raw_decode`) while the rest of the file is read
  unchanged.

Anything this module does not stream raises
:class:`~provgraph.io.stream_load.NotStreamed` (nothing stored; the whole read then gives
its statements or its refusal, word for word): a refusal of either screen, XML whose root
is not ``rdf:RDF`` under ``--format auto``, JSON with a key twice in one object, a lone
surrogate, a non-integer number that JSON's round trip through a float would write
differently, nesting deeper than :data:`provgraph.limits.MAX_JSON_DEPTH`, a remote or
legacy-dialect context, a PROV-JSONLD context reference anywhere but the first key of
the top-level object, and JSON-LD the Streaming JSON-LD profile does not parse (keys out
of its order: ``@context`` first, then ``@type``, then the rest, which pyoxigraph's own
JSON-LD writer and ProvToolbox's PROV-JSONLD follow and compacted JSON-LD written with
``@id`` before ``@type`` does not; a syntax error). That refusal may come after some
statements were stored: they are undone before the whole read. Each of those differs from what the whole read hands the
engine (it parses the JSON, rewrites it and hands over ``json.dumps`` of it), or is an
error the whole read words.

Memory: the XML pass holds the open elements; the JSON pass the keys of the open objects
and the contexts' values; the store's side is :func:`~provgraph.io.stream_load.store_streamed`'s.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, BinaryIO

import ijson
from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET

from ..errors import SerializationError
from ..limits import MAX_JSON_DEPTH, MAX_XML_DEPTH
from ..store import ProvStore, iter_rdf
from ..terms import IRI, Quad
from . import jsonld
from .load import ImportReport, target_graph
from .stream_load import (NotStreamed, opened, parsed, refuse_plain_rdf, relabelled,
                          store_streamed)

__all__ = ["import_jsonld_stream", "import_rdfxml_stream", "streams_jsonld",
           "streams_rdfxml"]

_RDF_ROOT = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}RDF"
_XINCLUDE = ("{http://www.w3.org/2001/XInclude}", "{http://www.w3.org/2003/XInclude}")


def streams_rdfxml(head: bytes, format: str, name: str) -> bool:
    """Whether ``provgraph import`` tries :func:`import_rdfxml_stream` on a file: under
    ``--format rdf-xml``, or under ``auto`` for a ``.rdf``, ``.owl`` or ``.xml`` file
    starting with ``<`` (the scan leaves XML whose root is not ``rdf:RDF`` to the whole
    read).

    Example:
        >>> streams_rdfxml(b"<rdf:RDF/>", "auto", "doc.rdf"), streams_rdfxml(b"{}", "auto", "d.json")
        (True, False)
    """
    if format != "auto":
        return format == "rdf-xml"
    return (os.path.splitext(name)[1].lower() in (".rdf", ".owl", ".xml")
            and head.lstrip(b"\xef\xbb\xbf").lstrip()[:1] == b"<")


def streams_jsonld(head: bytes, format: str, name: str) -> bool:
    """Whether ``provgraph import`` tries :func:`import_jsonld_stream` on a file: under
    ``--format json-ld``, or under ``auto`` for a ``.jsonld`` or ``.json`` file starting
    with ``{`` or ``[`` (the scan leaves JSON that :func:`provgraph.io.detect` would not
    call JSON-LD to the whole read).

    Example:
        >>> streams_jsonld(b'[{"@id": "urn:a"}]', "auto", "doc.jsonld")
        True
    """
    if format != "auto":
        return format == "json-ld"
    return (os.path.splitext(name)[1].lower() in (".jsonld", ".json")
            and head.lstrip()[:1] in (b"{", b"["))


def import_rdfxml_stream(store: ProvStore, source: str | os.PathLike[str] | BinaryIO, *,
                         graph: IRI | str | None = None, name: str = "<input>",
                         auto: bool = False) -> ImportReport:
    """Import an RDF/XML document streamed, all or nothing (module docstring): the same
    statements, report and refusals as :func:`provgraph.io.load.import_document` (an
    agreement test checks it), the document never held whole.

    Args:
        store: where to store; it must journal (:attr:`ProvStore.journals`).
        source: a file path, or a seekable binary file object (read twice).
        graph: named graph for the document's statements (``None``: the default graph);
            not one of :data:`provgraph.io.load.RESERVED_GRAPHS`.
        name: the input's name for messages.
        auto: the format was not named: XML whose root is not ``rdf:RDF`` is not
            RDF/XML here (as :func:`provgraph.io.detect` says).

    Returns:
        :class:`~provgraph.io.load.ImportReport` (``reader`` says it was streamed).

    Raises:
        NotStreamed: the document is to be read whole (the screen refuses it, or its
            root is not ``rdf:RDF`` under ``auto``); nothing was stored.
        ValueError: ``graph`` is refused (:func:`~provgraph.io.load.check_target_graph`).
        SerializationError: the document does not parse or is refused as the whole read
            refuses it (no PROV term, the ontology graph, a qualified node without its
            argument); nothing is stored.
        StoreError: the store does not journal or cannot be written; nothing is stored.

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> doc = io.BytesIO(b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        ...     b'<rdf:Description rdf:about="urn:ex:e"><rdf:type '
        ...     b'rdf:resource="http://www.w3.org/ns/prov#Entity"/></rdf:Description></rdf:RDF>')
        >>> import_rdfxml_stream(EmbeddedStore(), doc, name="e.rdf").stored
        1
    """
    target = target_graph(graph)
    with opened(source, name) as f:
        _screen_xml(f, auto)
        f.seek(0)
        refuse_plain_rdf(parsed(f, "rdf-xml", target, name), name)  # before any write
        f.seek(0)
        with store.journaled(f"import {name}"):
            quads = f.verified(parsed(f, "rdf-xml", target, name))
            return store_streamed(store, relabelled(quads), format="rdf-xml", name=name,
                                  reader="rdf-xml streamed by pyoxigraph (input screened)")


def _screen_xml(source: BinaryIO, auto: bool) -> None:
    """The streamed form of :func:`provgraph.io.provxml.screen` (module docstring).

    Raises:
        NotStreamed: it refuses the document, or (``auto``) the root is not ``rdf:RDF``.
    """
    stack: list[Any] = []
    try:
        for event, el in SafeET.iterparse(source, events=("start", "end"), forbid_dtd=True,
                                          forbid_entities=True, forbid_external=True):
            if event == "start":
                tag = el.tag if isinstance(el.tag, str) else ""
                if auto and not stack and tag != _RDF_ROOT:
                    raise NotStreamed(f"the XML root is {tag}, not rdf:RDF")
                if len(stack) >= MAX_XML_DEPTH:
                    raise NotStreamed(f"it nests deeper than {MAX_XML_DEPTH} elements")
                if tag.startswith(_XINCLUDE):
                    raise NotStreamed("it has an XInclude element")
                stack.append(el)
                continue
            stack.pop()
            el.clear()
            if stack:
                stack[-1].remove(el)  # handled: free it
    except (DefusedXmlException, SafeET.ParseError, LookupError) as exc:
        raise NotStreamed(f"the XML is refused or not well-formed ({exc})") from exc


def import_jsonld_stream(store: ProvStore, source: str | os.PathLike[str] | BinaryIO, *,
                         graph: IRI | str | None = None, name: str = "<input>",
                         auto: bool = False) -> ImportReport:
    """Import a JSON-LD document streamed, all or nothing (module docstring): the same
    statements, report and refusals as :func:`provgraph.io.load.import_document` (an
    agreement test checks it), the document never held whole and no context fetched.

    Args:
        store: where to store; it must journal (:attr:`ProvStore.journals`).
        source: a file path, or a seekable binary file object (read twice).
        graph: named graph for the default graph's statements (``None``: the default
            graph); not one of :data:`provgraph.io.load.RESERVED_GRAPHS`.
        name: the input's name for messages.
        auto: the format was not named: JSON with no top-level object holding
            ``@context``, ``@graph`` or ``@id`` is not JSON-LD here (as
            :func:`provgraph.io.detect` says).

    Returns:
        :class:`~provgraph.io.load.ImportReport` (``reader`` says it was streamed).

    Raises:
        NotStreamed: the document is to be read whole (module docstring); nothing was
            stored.
        ValueError: ``graph`` is refused (:func:`~provgraph.io.load.check_target_graph`).
        SerializationError: refused as the whole read refuses it (no PROV term, the
            ontology graph, a qualified node without its argument); nothing is stored.
        StoreError: the store does not journal or cannot be written; nothing is stored.

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> doc = io.BytesIO(b'{"@type": "http://www.w3.org/ns/prov#Entity", "@id": "urn:ex:e"}')
        >>> import_jsonld_stream(EmbeddedStore(), doc, name="e.jsonld").stored
        1
    """
    target = target_graph(graph)
    with opened(source, name) as f:
        refs, splice = _scan_json(f, auto)
        if any(r in jsonld.LEGACY_CONTEXTS for r in refs):
            raise NotStreamed("it uses the legacy PROV-JSONLD context (read by the prov package)")
        remote = sorted({r for r in refs if r not in jsonld.PROV_JSONLD_CONTEXTS})
        if remote:
            raise NotStreamed(f"it refers to the remote context(s) {', '.join(remote)}")
        reader = "JSON-LD streamed by pyoxigraph (Streaming JSON-LD profile)"
        if splice:
            reader += " with the bundled PROV-JSONLD context"

        def body() -> BinaryIO:  # the document from its start, as the engine reads it
            f.seek(0)
            return _with_bundled_context(f) if splice else f

        refuse_plain_rdf(_not_streamed_on_error(iter_rdf(body(), "json-ld", graph=target,
                                                         jsonld_streaming=True)), name)
        with store.journaled(f"import {name}"):
            quads = f.verified(_not_streamed_on_error(iter_rdf(body(), "json-ld", graph=target,
                                                               jsonld_streaming=True)))
            return store_streamed(store, relabelled(quads), format="json-ld", name=name,
                                  reader=reader)


def _not_streamed_on_error(quads: Iterator[Quad]) -> Iterator[Quad]:
    """``quads``; a parse error means the document is read whole (the whole read parses
    another text, its ``json.dumps``, and words its own error)."""
    try:
        yield from quads
    except SerializationError as exc:
        raise NotStreamed(f"the Streaming JSON-LD profile does not read it ({exc})") from exc


def _scan_json(source: BinaryIO, auto: bool) -> tuple[list[str], bool]:
    """The JSON pass (module docstring): every context reference, and whether the
    PROV-JSONLD references (if any) are all in the first key of the top-level object
    (``True``: replace them there).

    Raises:
        NotStreamed: the document is to be read whole.
    """
    # per open container: [is a map, its keys (maps), capturing a @context value]
    frames: list[list[Any]] = []
    refs: list[str] = []
    splice_ok = True
    first_is_context = False
    json_ld = not auto
    builder: Any = None  # the @context value being captured
    capture_depth = 0
    capture_top = False
    try:
        for event, value in ijson.basic_parse(source):
            if builder is not None:
                builder.event(event, value)
            if event == "map_key":
                keys = frames[-1][1]
                if value in keys:
                    raise NotStreamed(f"the key {value!r} is repeated in one object")
                keys.add(value)
                _check_string(value)
                depth = len(frames)
                if depth <= 2 and value in ("@context", "@graph", "@id") and (
                        depth == 1 or not frames[0][0]):
                    json_ld = True  # a top-level object (or one in a top-level array)
                if value == "@context" and builder is None:
                    builder, capture_depth = ijson.ObjectBuilder(), depth
                    capture_top = depth == 1 and len(keys) == 1
                    if capture_top:
                        first_is_context = True
                continue
            if event in ("start_map", "start_array"):
                frames.append([event == "start_map", set()])
                if len(frames) > MAX_JSON_DEPTH:
                    raise NotStreamed(f"it nests deeper than {MAX_JSON_DEPTH} levels")
            elif event in ("end_map", "end_array"):
                frames.pop()
            elif event == "string":
                _check_string(value)
            elif event == "number" and isinstance(value, Decimal):
                if repr(float(value)) != str(value):
                    raise NotStreamed(f"the number {value} would be written differently "
                                      "after a round trip through a float")
            if builder is not None and len(frames) == capture_depth:
                found = jsonld.contexts_of({"@context": builder.value})
                if not capture_top and any(r in jsonld.PROV_JSONLD_CONTEXTS for r in found):
                    splice_ok = False
                refs += found
                builder = None
    except ijson.JSONError as exc:
        raise NotStreamed(f"ijson does not read it ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise NotStreamed(f"it is not UTF-8 ({exc})") from exc
    if not json_ld:
        raise NotStreamed("no top-level object has @context, @graph or @id")
    prov = any(r in jsonld.PROV_JSONLD_CONTEXTS for r in refs)
    if prov and not (splice_ok and first_is_context):
        raise NotStreamed("a PROV-JSONLD context is referred to elsewhere than in the "
                          "top-level object's first key")
    return refs, prov


_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_string(text: str) -> None:
    if not text.isascii() and _SURROGATE.search(text):
        raise NotStreamed("a string holds a lone surrogate")


_CONTEXT_FIRST = re.compile(rb'\s*\{\s*"@context"\s*:\s*')
_HEAD = 1 << 20
"""Bytes read to find the top-level ``@context`` value's extent."""


def _with_bundled_context(source: BinaryIO) -> BinaryIO:
    """``source`` (at its start) with the top-level ``@context`` value written with the
    bundled PROV-JSONLD context in place of its references, read as a stream."""
    head = source.read(_HEAD)
    m = _CONTEXT_FIRST.match(head)
    if m is None:
        raise NotStreamed("the top-level @context is not where the scan found it")
    text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    start = len(head[:m.end()].decode("utf-8"))
    try:
        value, end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise NotStreamed(f"the top-level @context is longer than {_HEAD} bytes") from exc
    end_byte = len(text[:end].encode("utf-8"))
    bundled = jsonld.replace_prov_contexts({"@context": value})
    prefix = b'{"@context": ' + json.dumps(bundled["@context"]).encode("utf-8")
    return io.BufferedReader(_Spliced(prefix + head[end_byte:], source), 1 << 20)


class _Spliced(io.RawIOBase):
    """``first``, then the rest of ``rest``, as one binary stream."""

    def __init__(self, first: bytes, rest: BinaryIO) -> None:
        self._first = memoryview(first)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self._first:
            n = min(len(b), len(self._first))
            b[:n] = self._first[:n]
            self._first = self._first[n:]
            return n
        data = self._rest.read(len(b))
        b[:len(data)] = data
        return len(data)
