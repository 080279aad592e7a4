"""Format registry, detection, malformed input and untrusted input (provgraph.io)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from provgraph import io as pio
from provgraph.errors import SerializationError, UnsupportedFormat
from provgraph.io.bundle import export
from provgraph.io.load import import_document
from provgraph.store import EmbeddedStore, parse_rdf

MALFORMED = Path(__file__).parent / "malformed"
DOC = b"document\n  prefix ex <http://example.org/>\n  entity(ex:e)\nendDocument\n"


def test_registry_and_extensions():
    assert sorted(pio.FORMATS) == ["dot", "json-ld", "nquads", "prov-json", "prov-xml", "provn",
                                   "rdf-xml", "svg", "trig", "turtle"]
    assert [pio.format_for_path(f"x{e}") for e in (".json", ".provn", ".provx", ".XML", ".ttl",
                                                   ".trig", ".nq", ".jsonld", ".dot", ".svg")] == [
        "prov-json", "provn", "prov-xml", "prov-xml", "turtle", "trig", "nquads", "json-ld",
        "dot", "svg"]
    with pytest.raises(UnsupportedFormat, match="cannot tell the format of out.bin"):
        pio.format_for_path("out.bin")
    with pytest.raises(UnsupportedFormat, match="unsupported format 'provjson'; use one of: dot"):
        pio.get("provjson")
    with pytest.raises(UnsupportedFormat, match="svg is written by 'provgraph export' but cannot "
                                                "be imported"):
        pio.read(b"<svg/>", "svg")


@pytest.mark.parametrize("data,fmt", [
    (DOC, "provn"),
    (b"// a comment\n/* another */ document endDocument", "provn"),
    (b'{"prefix": {"ex": "http://example.org/"}, "entity": {"ex:e": {}}}', "prov-json"),
    (b'\xef\xbb\xbf {"@context": {"prov": "http://www.w3.org/ns/prov#"}, "@id": "urn:e"}', "json-ld"),
    (b'<?xml version="1.0"?><prov:document xmlns:prov="http://www.w3.org/ns/prov#"/>', "prov-xml"),
    (b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>', "rdf-xml"),
    (b"<urn:a> <urn:b> <urn:c> <urn:g> .\n", "nquads"),
    (b"<urn:a> <urn:b> <urn:c> .\n", "nquads"),
    (b"@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .", "turtle"),
    (b"@prefix ex: <http://example.org/> .\nex:g { ex:a ex:b ex:c . }", "trig"),
])
def test_detect_from_content(data, fmt):
    assert pio.detect(data) == fmt


def test_detection_failure_lists_what_was_tried():
    with pytest.raises(SerializationError) as exc:
        pio.detect(b"hello world", "notes.txt")
    msg = str(exc.value)
    assert msg.startswith("cannot tell the format of notes.txt; tried prov-xml/rdf-xml: not XML; "
                          "prov-json/json-ld: not JSON; provn: does not start with 'document'; "
                          "nquads: ")
    assert "; trig: " in msg and msg.endswith(
        "Pass --format (one of prov-json, provn, prov-xml, turtle, trig, nquads, json-ld, rdf-xml)")
    with pytest.raises(SerializationError, match="empty.json is empty: there is nothing to import"):
        pio.detect(b"  \n", "empty.json")


# (file, format, message) -- prov `test_malformed.py` style
BAD = [
    pytest.param("dtd_entity.provx", "auto", "refused: the XML declares a DTD", id="dtd-entities"),
    pytest.param("xxe_file.provx", "prov-xml", "refused: the XML declares a DTD", id="xxe-provxml"),
    pytest.param("xxe_rdf.rdf", "rdf-xml", "refused: the XML declares a DTD", id="xxe-rdfxml"),
    pytest.param("xinclude.provx", "auto", "xinclude.provx: refused: the XML has an XInclude "
                 "element <{http://www.w3.org/2001/XInclude}include> (href 'file:///etc/hostname')",
                 id="xinclude-provxml"),
    pytest.param("remote_context.jsonld", "auto",
                 "JSON-LD @context https://example.org/contexts/prov.jsonld is remote; provgraph "
                 "never fetches remote contexts", id="remote-context"),
    pytest.param("remote_import.jsonld", "json-ld",
                 "@context https://example.org/contexts/base.jsonld is remote", id="remote-import"),
    pytest.param("not_prov.xml", "auto", "the XML root is {http://www.w3.org/1999/xhtml}html, "
                 "neither prov:document nor rdf:RDF", id="not-prov-xml"),
    pytest.param("not_prov.xml", "prov-xml", "the XML root is {http://www.w3.org/1999/xhtml}html, "
                 "not prov:document", id="not-prov-xml-explicit"),
    pytest.param("truncated.json", "auto", "prov-json/json-ld: not JSON (Expecting property name",
                 id="truncated-json"),
    pytest.param("truncated.json", "prov-json", "truncated.json: not a PROV-JSON document the prov "
                 "package (3.2.3) can read", id="truncated-json-explicit"),
    pytest.param("empty_document.json", "prov-json", "empty_document.json: the prov-json document "
                 "holds no PROV statements; nothing was stored", id="empty-prov-json"),
    pytest.param("empty_document.provn", "auto", "the provn document holds no PROV statements",
                 id="empty-provn"),
    pytest.param("syntax_error.provn", "auto", "ProvNSyntaxError: line 4, column 1: expected ')', "
                 "found 'endDocument'; nothing was stored", id="provn-syntax"),
    pytest.param("undeclared_prefix.provn", "provn", "cannot resolve 'ex:e': prefix 'ex' is not "
                 "declared", id="provn-prefix"),
    pytest.param("syntax_error.ttl", "turtle", "syntax_error.ttl: turtle: the document does not "
                 "parse", id="ttl-syntax"),
    pytest.param("syntax_error.ttl", "trig", "syntax_error.ttl: trig: the document does not parse",
                 id="ttl-syntax-as-trig"),
    pytest.param("syntax_error.ttl", "nquads", "syntax_error.ttl: nquads: the document does not "
                 "parse", id="ttl-syntax-as-nquads"),
    pytest.param("generation_without_entity.json", "auto",
                 "generation_without_entity.json: wasGeneratedBy(ex:g; -, ex:a, -) has no entity "
                 "('-' in a mandatory position)", id="mandatory-argument"),
]


@pytest.mark.parametrize("name,fmt,message", BAD)
def test_malformed_input_is_rejected_and_nothing_is_stored(name, fmt, message):
    store = EmbeddedStore()
    with pytest.raises(SerializationError) as exc:
        import_document(store, (MALFORMED / name).read_bytes(), fmt, name=name)
    assert message in str(exc.value)
    assert len(store) == 0


def test_a_literal_prov_cannot_hold_is_refused_on_export_with_the_statement():
    store = EmbeddedStore()
    import_document(store, (MALFORMED / "not_a_time.ttl").read_bytes(), name="not_a_time.ttl")
    with pytest.raises(SerializationError, match=r'the statement <http://example.org/a> '
                       r'<http://www.w3.org/ns/prov#startedAtTime> "yesterday" \. has no '
                       r"PROV-JSON, PROV-N or PROV-XML form: the value is not a valid "
                       r"xsd:dateTime, which PROV-DM needs there\. Run 'provgraph validate'"):
        export(store, "prov-json", everything=True)
    assert b"yesterday" in export(store, "trig", everything=True).data


class _NoNetwork:
    """Fails the test if anything opens a socket."""

    def __init__(self, monkeypatch):
        self.calls = []

        def refuse(*args, **kwargs):
            self.calls.append(args)
            raise AssertionError(f"network access attempted: {args}")

        monkeypatch.setattr(socket, "create_connection", refuse)
        monkeypatch.setattr(socket.socket, "connect", refuse)
        monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_pyoxigraph_json_ld_parser_never_fetches_a_remote_context(monkeypatch):
    guard = _NoNetwork(monkeypatch)
    doc = json.dumps({"@context": "http://127.0.0.1:9/never.jsonld",
                      "@id": "http://example.org/e", "name": "x"}).encode()
    with pytest.raises(SerializationError, match="No LoadDocumentCallback has been set to load "
                                                 "remote contexts"):
        parse_rdf(doc, "json-ld")
    assert guard.calls == []


def test_prov_jsonld_context_url_uses_the_bundled_context_offline(monkeypatch):
    guard = _NoNetwork(monkeypatch)
    doc = {"@context": [{"ex": "http://example.org/"},
                        "https://openprovenance.org/prov-jsonld/context.jsonld"],
           "@graph": [{"@type": "Entity", "@id": "ex:article"},
                      {"@type": "Activity", "@id": "ex:compose",
                       "startTime": "2023-09-08T20:12:45.109-04:00"},
                      {"@type": "Generation", "entity": "ex:article", "activity": "ex:compose"}]}
    result = pio.read(json.dumps(doc).encode(), name="mini.jsonld")
    assert result.reader == ("PROV-JSONLD parsed by pyoxigraph with the bundled PROV-JSONLD "
                             "context")
    text = {(str(s), str(p).rsplit("#", 1)[1], getattr(o, "value", str(o))) for s, p, o, _ in result.quads}
    assert ("http://example.org/article", "wasGeneratedBy", "http://example.org/compose") in text
    assert ("http://example.org/compose", "startedAtTime", "2023-09-08T20:12:45.109-04:00") in text
    assert result.inferred == 1  # the binary wasGeneratedBy, from the qualified Generation
    assert guard.calls == []


def test_svg_needs_graphviz_and_says_so(monkeypatch):
    store = EmbeddedStore()
    import_document(store, DOC)
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(SerializationError, match="SVG export needs Graphviz's 'dot' program on "
                                                 "PATH"):
        export(store, "svg", everything=True)
    assert export(store, "dot", everything=True).data.startswith(b"digraph G {")


def test_svg_is_drawn_when_graphviz_is_installed():
    import shutil
    import xml.etree.ElementTree as ET

    if shutil.which("dot") is None:
        pytest.skip("Graphviz 'dot' is not installed (apt-get install graphviz)")
    store = EmbeddedStore()
    import_document(store, DOC)
    svg = export(store, "svg", everything=True).data
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert b">example:e<" in svg  # provgraph names the namespace http://example.org/ "example"


def test_xinclude_in_rdf_xml_is_refused_too():
    rdf = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:prov="http://www.w3.org/ns/prov#" xmlns:xi="http://www.w3.org/2001/XInclude">
  <prov:Entity rdf:about="http://example.org/e"><xi:include href="more.rdf"/></prov:Entity>
</rdf:RDF>"""
    store = EmbeddedStore()
    with pytest.raises(SerializationError, match=r"x\.rdf: refused: the XML has an XInclude "
                       r"element <\{http://www\.w3\.org/2001/XInclude\}include> \(href "
                       r"'more\.rdf'\)"):
        import_document(store, rdf, "rdf-xml", name="x.rdf")
    assert len(store) == 0


# -- found by fuzzing (tests/test_fuzz_parsers.py, issue 20) --------------------------------

def test_prov_json_prefixes_that_are_not_an_object_are_an_error_not_a_traceback():
    # "prefix": [null] beside bundles was TypeError: 'list' object is not a mapping
    from provgraph.errors import SerializationError
    from provgraph.io.load import import_document
    from provgraph.store import EmbeddedStore

    data = (b'{"prefix": [null], "bundle": {"ex:b1": {"prefix": {"ex": "http://e.org/"}, '
            b'"entity": {"ex:e": {}}}}}')
    store = EmbeddedStore()
    with pytest.raises(SerializationError, match='prefix.json: not a PROV-JSON document .*The '
                                                 '"prefix" value must be a JSON object; found list'):
        import_document(store, data, "prov-json", name="prefix.json")
    assert len(store) == 0


def test_an_xml_declaration_naming_an_unknown_encoding_is_an_error_line():
    # encoding="ATF-8" was LookupError: unknown encoding
    from provgraph.errors import SerializationError
    from provgraph.io.load import import_document
    from provgraph.store import EmbeddedStore

    data = (b'<?xml version="1.0" encoding="ATF-8"?>\n<rdf:RDF xmlns:rdf='
            b'"http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>')
    for fmt in ("rdf-xml", "prov-xml"):
        with pytest.raises(SerializationError, match="names an encoding Python does not know"):
            import_document(EmbeddedStore(), data, fmt, name="atf.xml")
