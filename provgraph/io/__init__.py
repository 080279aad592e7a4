"""PROV interchange: the format registry, format detection, reading and writing.

Formats (``provgraph import``/``export --format``):

============  =====================================  ==========================
name          read / written by                      extensions
============  =====================================  ==========================
prov-json     the ``prov`` package                   .json
provn         the ``prov`` package                   .provn
prov-xml      the ``prov`` package (input screened)  .provx .xml
turtle        pyoxigraph                             .ttl
trig          pyoxigraph                             .trig
nquads        pyoxigraph                             .nq
json-ld       pyoxigraph (+ ``prov`` for the         .jsonld
              legacy PROV-JSONLD dialect)
rdf-xml       pyoxigraph (input screened)            .rdf .owl
dot           the ``prov`` package (write only)      .dot .gv
svg           ``prov`` + Graphviz ``dot`` program    .svg
============  =====================================  ==========================

:func:`get` returns a :class:`Format`; :func:`detect` tells a format from the
content; :func:`read` turns bytes into PROV-O quads (:class:`ReadResult`) with
the PROV-O entailments of :func:`provgraph.io.provo.complete`; :func:`write`
turns quads into bytes. Storing and exporting from a store are in
:mod:`provgraph.io.load` and :mod:`provgraph.io.bundle`; writing an export file
all at once (temporary file + rename) in :mod:`provgraph.io.files`.

What the ``prov`` package cannot do is said where it matters: it parses
PROV-JSON/PROV-N/PROV-XML values into Python objects (see
:mod:`provgraph.io.provo` for what that means for literals), its PROV-XML reader
rejects non-PROV elements, and SVG needs Graphviz installed.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..limits import loads_json
from ..errors import SerializationError, UnsupportedFormat
from ..terms import IRI, BNode, Quad

__all__ = ["Format", "FORMATS", "ReadResult", "get", "detect", "format_for_path", "read",
           "write", "PROV_JSON_KEYS"]


@dataclass(frozen=True)
class Format:
    """One interchange format.

    Attributes:
        name: the provgraph name (``--format`` value).
        kind: ``"prov"`` (PROV-DM syntaxes), ``"rdf"`` (PROV-O in an RDF syntax)
            or ``"image"`` (write-only drawings).
        extensions: file extensions, lower case, with the dot.
        media_type: IANA media type.
        datasets: whether the syntax holds named graphs (PROV bundles).
        readable: whether provgraph can import it.
    """

    name: str
    kind: str
    extensions: tuple[str, ...]
    media_type: str
    datasets: bool
    readable: bool = True


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("prov-json", "prov", (".json",), "application/json", True),
    Format("provn", "prov", (".provn",), "text/provenance-notation", True),
    Format("prov-xml", "prov", (".provx", ".xml"), "application/xml", True),
    Format("turtle", "rdf", (".ttl",), "text/turtle", False),
    Format("trig", "rdf", (".trig",), "application/trig", True),
    Format("nquads", "rdf", (".nq",), "application/n-quads", True),
    Format("json-ld", "rdf", (".jsonld",), "application/ld+json", True),
    Format("rdf-xml", "rdf", (".rdf", ".owl"), "application/rdf+xml", False),
    Format("dot", "image", (".dot", ".gv"), "text/vnd.graphviz", True, readable=False),
    Format("svg", "image", (".svg",), "image/svg+xml", True, readable=False),
)}
"""Every format, by name."""

PROV_JSON_KEYS = frozenset({
    "prefix", "entity", "activity", "agent", "wasGeneratedBy", "used", "wasInformedBy",
    "wasStartedBy", "wasEndedBy", "wasInvalidatedBy", "wasDerivedFrom", "wasAttributedTo",
    "wasAssociatedWith", "actedOnBehalfOf", "wasInfluencedBy", "specializationOf",
    "alternateOf", "mentionOf", "hadMember", "bundle"})
"""Top-level keys of PROV-JSON (Member Submission §2)."""


def get(name: str) -> Format:
    """The :class:`Format` called ``name``.

    Raises:
        UnsupportedFormat: no such format (the message lists the known ones).

    Example:
        >>> get("prov-json").extensions
        ('.json',)
    """
    try:
        return FORMATS[name]
    except KeyError:
        raise UnsupportedFormat(name, sorted(FORMATS)) from None


def format_for_path(path: str | Path) -> str:
    """The format named by a file's extension (``out.provn`` -> ``provn``).

    Raises:
        UnsupportedFormat: the extension names no format; pass ``--format``.

    Example:
        >>> format_for_path("bundle.jsonld")
        'json-ld'
    """
    suffix = Path(str(path)).suffix.lower()
    for f in FORMATS.values():
        if suffix in f.extensions:
            return f.name
    raise UnsupportedFormat(suffix or str(path), sorted(FORMATS),
                            f"cannot tell the format of {path} from its extension; pass --format")


_XML_START = re.compile(rb"<(\?[A-Za-z_]|!--|!DOCTYPE|[A-Za-z_][\w.\-]*(:[A-Za-z_][\w.\-]*)?[\s/>])")
"""XML starts with a declaration or any other processing instruction (``<?xml-stylesheet``,
``<?foo ...?>``: XML 1.0 §2.6; issue 15), a comment, a DOCTYPE or an element."""
_PROVN_COMMENT = re.compile(rb"(//[^\n]*\n|/\*.*?\*/|\s+)", re.S)


def detect(data: bytes, name: str = "<input>") -> str:
    """Tell the format of ``data`` from its content.

    XML is PROV-XML when its root is ``prov:document`` and RDF/XML when it is
    ``rdf:RDF``; JSON is JSON-LD when it has ``@context`` or ``@graph`` and
    PROV-JSON when its keys are PROV-JSON keys; text whose first word is
    ``document`` is PROV-N; anything else is tried as N-Quads, then TriG
    (Turtle when it has no named graph).

    Raises:
        SerializationError: empty input, or nothing fits; the message lists every
            format tried and why it did not fit.

    Example:
        >>> detect(b'document\\n  entity(ex:e)\\nendDocument')
        'provn'
    """
    fmt, tried = _detect(data, name)
    if fmt is not None:
        return fmt
    raise _undetected(data, name, tried)


def _undetected(data: bytes, name: str, tried: list[str]) -> SerializationError:
    if _is_event_log(data):  # issue 17: a JSONL event log given to 'import'
        return SerializationError(
            f"{name} is a provgraph event log (JSON Lines with \"event\" fields), not a "
            f"document to import; record it with 'provgraph record {name}'")
    return SerializationError(
        f"cannot tell the format of {name}; tried " + "; ".join(tried)
        + ". Pass --format (one of " + ", ".join(n for n, f in FORMATS.items() if f.readable)
        + ")")


def _is_event_log(data: bytes) -> bool:
    """Whether the first line is a JSON object with a string ``event``, as every line of
    a JSONL event log (:mod:`provgraph.events`) is."""
    first = data.lstrip(b"\xef\xbb\xbf").lstrip().split(b"\n", 1)[0]
    try:
        obj = loads_json(first)
    except ValueError:
        return False
    return isinstance(obj, dict) and isinstance(obj.get("event"), str)


_SYNTAX_BY_EXTENSION = frozenset({"turtle", "trig", "nquads", "ntriples", "provn"})
"""Formats whose syntax errors :func:`read` reports by the file's extension when the
content fits no format (JSON and XML files already say why they do not fit)."""


def _extension_format(name: str) -> str | None:
    """The text syntax ``name``'s extension names (``doc.ttl``: ``turtle``) among
    :data:`_SYNTAX_BY_EXTENSION`, or ``None``."""
    suffix = Path(name).suffix.lower()
    return next((f.name for f in FORMATS.values()
                 if f.name in _SYNTAX_BY_EXTENSION and suffix in f.extensions), None)


def _detect(data: bytes, name: str) -> tuple[str | None, list[str]]:
    """:func:`detect`'s work: the format, or ``None`` and why each format did not fit."""
    text = data.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text:
        raise SerializationError(f"{name} is empty: there is nothing to import")
    tried: list[str] = []
    if _XML_START.match(text):
        from .provxml import screen

        try:
            root = screen(data, name)
        except SerializationError as exc:
            if "not well-formed XML" not in str(exc):
                raise  # refused (DTD, entities): never try another reader on it
            tried.append(f"prov-xml/rdf-xml: {str(exc).split(': ', 1)[-1].split(';')[0]}")
        else:
            if root.tag == "{http://www.w3.org/ns/prov#}document":
                return "prov-xml", tried
            if root.tag == "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}RDF":
                return "rdf-xml", tried
            tried.append(f"prov-xml/rdf-xml: the XML root is {root.tag}, neither prov:document "
                         "nor rdf:RDF")
    elif text[:1] in (b"{", b"["):
        try:
            doc = loads_json(text)
        except ValueError as exc:
            tried.append(f"prov-json/json-ld: not JSON ({exc})")
        else:
            items = doc if isinstance(doc, list) else [doc]
            if any(isinstance(i, dict) and ("@context" in i or "@graph" in i or "@id" in i)
                   for i in items):
                return "json-ld", tried
            if isinstance(doc, dict) and doc and set(doc) <= PROV_JSON_KEYS:
                return "prov-json", tried
            keys = sorted(doc)[:6] if isinstance(doc, dict) else type(doc).__name__
            tried.append(f"prov-json: keys {keys} are not PROV-JSON keys; json-ld: no @context")
    else:
        tried.append("prov-xml/rdf-xml: not XML; prov-json/json-ld: not JSON")
    first = _PROVN_COMMENT.sub(b" ", text[:4096]).lstrip()
    if first.startswith(b"document") and (len(first) == 8 or not first[8:9].isalnum()):
        return "provn", tried
    tried.append("provn: does not start with 'document'")
    if not text[:1] in (b"{", b"["):
        from ..store import parse_rdf

        for fmt in ("nquads", "trig"):
            try:
                quads = parse_rdf(data, fmt)
            except SerializationError as exc:
                tried.append(f"{fmt}: {str(exc).split('does not parse: ')[-1]}")
                continue
            if fmt == "trig" and all(q[3] is None for q in quads):
                return "turtle", tried
            return fmt, tried
    return None, tried


@dataclass
class ReadResult:
    """PROV-O quads read from one document.

    Attributes:
        format: the format read.
        reader: which library read it, in words.
        quads: the statements, PROV-O entailments included; blank nodes have fresh
            labels.
        input_statements: records (PROV-DM formats) or triples/quads (RDF formats)
            the document held.
        inferred: statements added by :func:`provgraph.io.provo.complete`.
        warnings: messages worth showing (the ``prov`` package's warnings).
        document: the ``prov`` document, for the PROV-DM formats (``None`` otherwise).
    """

    format: str
    reader: str
    quads: list[Quad]
    input_statements: int
    inferred: int = 0
    warnings: list[str] = field(default_factory=list)
    document: Any = None


def read(data: bytes, format: str = "auto", *, name: str = "<input>",
         graph: IRI | None = None) -> ReadResult:
    """Read a document into PROV-O quads, without storing anything.

    Args:
        data: the document's bytes.
        format: a readable format name, or ``"auto"`` (:func:`detect`).
        name: shown in messages (a file name, or ``<stdin>``).
        graph: graph for the statements outside any bundle/named graph
            (``None``: the default graph).

    Raises:
        UnsupportedFormat: unknown or write-only format.
        SerializationError: the document does not parse, is refused (DTD,
            remote JSON-LD context) or has no PROV-O form, or a relation lacks an
            argument PROV-DM requires (a ``-`` where the informant belongs, a qualified
            node without its ``prov:agent``: :func:`provgraph.relations.missing_argument`);
            nothing is returned. With ``format="auto"``, content that fits no format
            is read as its file name's extension says (``doc.ttl``: Turtle), so the
            message gives that format's syntax error (issue 17: it said only that the
            format could not be told); a JSONL event log is told to go to
            ``provgraph record``.
    """
    if format != "auto":
        return _read(data, format, name, graph)
    fmt, tried = _detect(data, name)
    if fmt is not None:
        return _read(data, fmt, name, graph)
    by_extension = _extension_format(name)
    if by_extension is None or _is_event_log(data):
        raise _undetected(data, name, tried)
    try:  # the content fits no format: read it as its extension says, for that error
        return _read(data, by_extension, name, graph)
    except SerializationError as exc:
        detail = str(exc).split("does not parse: ", 1)[-1].removeprefix(f"{name}: ")
        raise SerializationError(f"{name} ({by_extension}, from its extension) does not "
                                 f"parse: {detail}") from exc


def _read(data: bytes, fmt: str, name: str, graph: IRI | None) -> ReadResult:
    from . import provo

    spec = get(fmt)
    if not spec.readable:
        raise UnsupportedFormat(fmt, [n for n, f in FORMATS.items() if f.readable],
                                f"{fmt} is written by 'provgraph export' but cannot be imported")
    warnings: list[str] = []
    document = None
    if spec.kind == "prov":
        from . import provjson, provn, provxml

        read = {"prov-json": provjson.read, "provn": provn.read, "prov-xml": provxml.read}[fmt]
        got = read(data, name)
        document, warnings, count = got.document, got.warnings, got.record_count
        quads = _mapped(document, graph, name, got.bundle_names, got.times)
        reader = f"{fmt} read by the prov package {_prov_version()}"
    elif fmt == "json-ld":
        from . import jsonld

        parsed, prov_read, reader = jsonld.read(data, name, graph)
        if prov_read is not None:
            document, warnings, count = prov_read.document, prov_read.warnings, prov_read.record_count
            quads = _mapped(document, graph, name)
        else:
            quads = _fresh_blank_nodes(parsed or [])
            count = len(quads)
    else:
        from ..store import parse_rdf

        if fmt == "rdf-xml":
            from .provxml import screen

            screen(data, name)
        try:
            parsed_rdf = parse_rdf(data, fmt, graph=graph)
        except SerializationError as exc:
            raise SerializationError(f"{name}: {exc}") from exc
        quads = _fresh_blank_nodes(parsed_rdf)
        count = len(quads)
        reader = f"{fmt} parsed by pyoxigraph"
    quads = list(dict.fromkeys(quads))
    provo.missing_in_qualified(quads, name)
    quads, inferred = provo.complete(quads)
    return ReadResult(fmt, reader, quads, count, inferred, warnings, document)


def _mapped(document: Any, graph: IRI | None, name: str,
            bundle_names: dict[str, str] | None = None,
            times: dict[Any, str] | None = None) -> list[Quad]:
    from .provo import document_to_quads

    try:
        return document_to_quads(document, graph, bundle_names=bundle_names, times=times)
    except SerializationError as exc:
        raise SerializationError(f"{name}: {exc}; nothing was stored") from exc


def _prov_version() -> str:
    from ._prov import PROV_VERSION

    return PROV_VERSION


def _fresh_blank_nodes(quads: list[Quad]) -> list[Quad]:
    """Give the document's blank nodes fresh labels, so two imports never share one."""
    labels: dict[str, BNode] = {}

    def fresh(t: Any) -> Any:
        if isinstance(t, BNode):
            got = labels.get(t)
            if got is None:
                got = labels[t] = BNode("b" + uuid.uuid4().hex)
            return got
        return t

    return [(fresh(s), p, fresh(o), g) for s, p, o, g in quads]


def write(quads: list[Quad], format: str) -> bytes:
    """Serialize PROV-O quads in ``format``.

    Default-graph statements are the document's top level; each named graph is
    a bundle (PROV formats) or a named graph (TriG, N-Quads, JSON-LD).

    Raises:
        UnsupportedFormat: unknown format, or a graph-only syntax (Turtle,
            RDF/XML) asked to hold more than one graph.
        SerializationError: the statements have no PROV-DM form (PROV formats),
            or Graphviz is missing (SVG).
    """
    from . import provo

    spec = get(format)
    if spec.kind == "rdf":
        from ..store import serialize_quads

        named = sorted({q[3] for q in quads if q[3] is not None})
        if not spec.datasets and named:
            raise UnsupportedFormat(format, [n for n, f in FORMATS.items() if f.datasets],
                                    f"{format} holds only a default graph and this export has "
                                    f"{len(named)} named graph(s) (PROV bundles, e.g. <{named[0]}>); "
                                    "use trig, nquads or json-ld", cannot_hold=True)
        return serialize_quads(quads, format, prefixes=provo.prefixes_for(quads)
                               if format in ("turtle", "trig") else None)
    document = provo.quads_to_document(quads, xml=format == "prov-xml",
                                       keep_forms=spec.kind == "prov")
    if spec.kind == "prov":
        from . import provjson, provn, provxml

        write = {"prov-json": provjson.write, "provn": provn.write, "prov-xml": provxml.write}[format]
        return write(document)
    return _draw(document, format)


def _draw(document: Any, format: str) -> bytes:
    import warnings

    from prov.dot import prov_to_dot

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = prov_to_dot(document)
    if format == "dot":
        return str(graph.to_string()).encode("utf-8")
    if shutil.which("dot") is None:
        raise SerializationError(
            "SVG export needs Graphviz's 'dot' program on PATH, which is not installed "
            "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz); "
            "'--format dot' writes the same drawing as DOT text without it")
    try:
        svg = graph.create(format="svg")
        # pydot 4 annotates create() as str; with no encoding it returns Graphviz's bytes
        return svg if isinstance(svg, bytes) else svg.encode("utf-8")
    except Exception as exc:  # pydot raises plain exceptions with Graphviz's stderr
        raise SerializationError(f"Graphviz could not draw the SVG: {exc}") from exc
