"""PROV-XML (W3C Working Group Note, https://www.w3.org/TR/prov-xml/), read and
written by the ``prov`` package, with untrusted input screened first.

Screening (defusedxml): a document that declares a DTD, an entity, or refers to
an external resource is refused before any XML parser that could act on it sees
it (XXE, billion laughs), and so is one with an XInclude element (W3C XInclude
1.0, ``xi:include``): no reader here processes it, and it would be dropped
without a word. The ``prov`` package's own reader also disables entity
resolution and network access; the screen makes the refusal explicit.

What the ``prov`` package cannot read, and says so here: elements outside the
PROV namespace directly under ``prov:document`` or a bundle (an unqualified
``<entity>`` is one), and a ``xsd:QName`` value without a prefix when the
document declares no default namespace (W3C PROV-XML example 17 writes
``<prov:type xsi:type="xsd:QName">map</prov:type>``): such a name denotes no IRI.

Writing passes ``force_types=True`` so every attribute carries its ``xsi:type``
(without it prov omits the type of ``xsd:dateTime`` attribute values, and they
would read back as strings).
"""

from __future__ import annotations

import re
from typing import Any

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET
from prov.model import ProvDocument

from ..limits import check_xml_depth
from ..errors import SerializationError
from ._prov import (LEXICAL_XSD, PARSED_TYPES, ProvRead, lexical_prefix, read_with_prov,
                    write_with_prov, written_prefix)

__all__ = ["read", "write", "screen", "PROV_NS"]

PROV_NS = "http://www.w3.org/ns/prov#"
_XINCLUDE = ("{http://www.w3.org/2001/XInclude}", "{http://www.w3.org/2003/XInclude}")


def screen(data: bytes, name: str = "<input>") -> Any:
    """Parse ``data`` with defusedxml, refusing DTDs, entities and external references.

    Returns:
        The root element (``xml.etree.ElementTree.Element``).

    Raises:
        SerializationError: the XML declares a DTD or entities, refers to an
            external resource, has an XInclude element, or is not well-formed.
    """
    deep = check_xml_depth(data)
    if deep is not None:  # RDF/XML 50,000 deep took 328 s of CPU in the engine (issue 15)
        raise SerializationError(f"{name}: refused: {deep}; nothing was stored")
    try:
        root = SafeET.fromstring(data, forbid_dtd=True, forbid_entities=True,
                                 forbid_external=True)
    except DefusedXmlException as exc:
        raise SerializationError(
            f"{name}: refused: the XML declares a DTD, an entity or an external reference "
            f"({type(exc).__name__}: {exc}); untrusted XML may not do that (XXE / entity "
            "expansion). Remove the <!DOCTYPE ...> declaration and entity references; "
            "nothing was stored") from exc
    except SafeET.ParseError as exc:
        raise SerializationError(f"{name}: not well-formed XML: {exc}; nothing was stored") from exc
    except LookupError as exc:  # <?xml ... encoding="ATF-8"?> (found by fuzzing, issue 20)
        raise SerializationError(f"{name}: the XML declaration names an encoding Python does not "
                                 f"know ({exc}); write the file as UTF-8 and declare "
                                 "encoding=\"UTF-8\"; nothing was stored") from exc
    for el in root.iter():
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag.startswith(_XINCLUDE):
            raise SerializationError(
                f"{name}: refused: the XML has an XInclude element <{tag}> (href "
                f"{el.get('href')!r}); untrusted XML may not pull in other files or URLs, and "
                "no reader here would include it (it would be dropped silently). Put the "
                "included content in the document itself; nothing was stored")
    return root


def read(data: bytes, name: str = "<input>", *, times: bool = True) -> ProvRead:
    """Read a PROV-XML document after screening it.

    ``times=False`` leaves out the lexical forms of the formal times (and their warnings):
    for a part of a document, whose forms are found over the whole of it
    (:mod:`provgraph.io.provxml_stream_read`).

    Raises:
        SerializationError: refused by the screen, not a ``prov:document``, an
            element outside the PROV namespace where PROV-XML allows none, or a
            record the ``prov`` package rejects (its message is quoted).
    """
    root = screen(data, name)
    if root.tag != "{%s}document" % PROV_NS:
        raise SerializationError(f"{name}: the XML root is {root.tag}, not prov:document "
                                 f"({PROV_NS}); not PROV-XML")
    _check_children(root, name)
    got = read_with_prov(_keep_forms(_without_outer_comments(data)), "xml", "PROV-XML", name)
    if times:
        got.add_times(_formal_times(root), name)
    return got


_TIME_TAGS = frozenset("{%s}%s" % (PROV_NS, t) for t in ("time", "startTime", "endTime"))
"""The PROV-XML elements of formal times (PROV-XML §3)."""


def _formal_times(root: Any) -> list[str]:
    """The lexical forms of the formal times in the (screened) document ``root``: the
    text of its ``prov:time``, ``prov:startTime`` and ``prov:endTime`` elements."""
    return [el.text.strip() for el in root.iter() if el.tag in _TIME_TAGS and el.text]


_XMLNS = re.compile(rb'xmlns:([A-Za-z_][\w.\-]*)\s*=\s*["\']([^"\']*)["\']')
_ROOT = re.compile(rb"<([A-Za-z_][\w.\-]*:)?document\b")


def _keep_forms(data: bytes) -> bytes:
    """``data`` with each ``xsi:type`` of :data:`~provgraph.io._prov.PARSED_TYPES`
    written in :data:`~provgraph.io._prov.LEXICAL_XSD` (declared on the root element), so
    the ``prov`` package keeps the value's lexical form (issue 15). The prefixes of the
    XML Schema and XML Schema instance namespaces are read from the document's
    declarations."""
    declared = _XMLNS.findall(data)
    xsi = {p for p, uri in declared if uri == b"http://www.w3.org/2001/XMLSchema-instance"}
    xsd = {p for p, uri in declared if uri.rstrip(b"#") == b"http://www.w3.org/2001/XMLSchema"}
    root = _ROOT.search(data)
    if not xsi or not xsd or root is None:
        return data
    prefix = lexical_prefix(data.decode("utf-8", errors="replace")).encode()
    typed = re.compile(rb"\b(" + b"|".join(map(re.escape, sorted(xsi))) + rb"):type=([\"'])("
                       + b"|".join(map(re.escape, sorted(xsd))) + rb"):("
                       + b"|".join(t.encode() for t in sorted(PARSED_TYPES)) + rb")\2")
    out, n = typed.subn(lambda m: m.group(1) + b":type=" + m.group(2) + prefix + b":"
                        + m.group(4) + m.group(2), data)
    if not n:
        return data
    at = _ROOT.search(out)
    assert at is not None
    return (out[:at.end()] + b" xmlns:" + prefix + b'="' + LEXICAL_XSD.encode() + b'"'
            + out[at.end():])


_PROLOG_ITEM = re.compile(rb"\s+|<\?.*?\?>|<!--.*?-->", re.S)
_EPILOG = re.compile(rb"(?:\s|<\?.*?\?>|<!--.*?-->)*\Z", re.S)


def _without_outer_comments(data: bytes) -> bytes:
    """``data`` with the comments before and after the root element blanked out (each
    replaced by as many newlines as it spans, so line numbers hold): the ``prov``
    package (3.2.3) fails on them with ``AttributeError: 'NoneType' object has no
    attribute 'remove'`` (it removes every comment from its parent, and these have
    none). Comments carry nothing PROV-XML reads."""
    def blank(m: re.Match[bytes]) -> bytes:
        text = m.group(0)
        return b"\n" * text.count(b"\n") if text.startswith(b"<!--") else text

    if b"<!--" not in data:
        return data
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    pos, head = start, [data[:start]]
    while (m := _PROLOG_ITEM.match(data, pos)) is not None and m.end() > pos:
        head.append(blank(m))
        pos = m.end()
    tail = _EPILOG.search(data, pos)
    end = tail.start() if tail is not None else len(data)
    rest = data[end:]
    return b"".join(head) + data[pos:end] + re.sub(rb"<!--.*?-->", blank, rest, flags=re.S)


def _check_children(parent: Any, name: str) -> None:
    for child in parent:
        tag = child.tag if isinstance(child.tag, str) else ""
        if not tag.startswith("{%s}" % PROV_NS):
            shown = tag.replace("{}", "") if tag.startswith("{}") or "{" not in tag else tag
            raise SerializationError(
                f"{name}: element <{shown}> (id {child.get('{%s}id' % PROV_NS)!r}) is not in "
                f"the PROV namespace {PROV_NS}; PROV-XML allows only PROV elements directly "
                "under prov:document or a bundle, and the prov package cannot read the "
                "document (write it as <prov:...>); nothing was stored")
        if tag == "{%s}bundleContent" % PROV_NS:
            _check_children(child, name)


_UNTYPED_TIME = re.compile(
    rb"<prov:((?!time>|startTime>|endTime>)[A-Za-z]*[Tt]ime[A-Za-z]*)>")


def write(doc: ProvDocument) -> bytes:
    """PROV-XML text of ``doc`` (UTF-8), every attribute with its ``xsi:type``.

    The ``prov`` package (3.2.3) writes no ``xsi:type`` for an ``xsd:dateTime``
    attribute whose name is in the PROV namespace and contains "time"
    (``prov:atTime`` or ``prov:startedAtTime`` given as attributes, as PROV-O from other
    tools has them on qualified nodes, prov issue #299), taking it for a formal time,
    and reads it back as a string: such elements get ``xsi:type="xsd:dateTime"``
    here; the formal ``prov:time``, ``prov:startTime`` and ``prov:endTime`` need none.
    """
    data = write_with_prov(doc, "xml", "PROV-XML", force_types=True)
    data = _UNTYPED_TIME.sub(rb'<prov:\1 xsi:type="xsd:dateTime">', data)
    prefix = written_prefix(doc)
    if prefix is None:
        return data
    p = prefix.encode()
    data = re.sub(rb'\s+xmlns:' + p + rb'="' + re.escape(LEXICAL_XSD.encode()) + rb'"', b"",
                  data, count=1)
    return re.sub(rb'(xsi:type=")' + p + rb":", rb"\1xsd:", data)
