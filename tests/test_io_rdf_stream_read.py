"""The streamed RDF/XML and JSON-LD imports (provgraph.io.rdf_stream_read) agree with the
whole-document one (provgraph.io.load.import_document): same statements stored (blank
nodes canonicalized), same report, same refusals; unsafe XML and remote contexts never
reach the engine, and a document read whole instead says why and stores nothing (issue
16, item 6)."""

from __future__ import annotations

import functools
import io
import json
import socket
from pathlib import Path

import pytest

from provgraph.errors import SerializationError
from provgraph.io import read, write
from provgraph.io.load import import_document
from provgraph.io.rdf_stream_read import import_jsonld_stream, import_rdfxml_stream
from provgraph.io.stream_load import NotStreamed
from provgraph.store import EmbeddedStore

from .conftest import shared_cases
from .stream_agreement import READABLE, both_ways, documents, labels, refusals

TESTS = Path(__file__).parent
_STREAMED = {"rdf-xml": import_rdfxml_stream, "json-ld": import_jsonld_stream}


def _both(data: bytes, name: str, fmt: str, graph: str | None = None, auto: bool = False):
    return both_ways(data, name, "auto" if auto else fmt,
                     functools.partial(_STREAMED[fmt], auto=auto), graph=graph)


def _documents(fmt: str) -> list[tuple[str, bytes]]:
    """Every ``fmt`` case (shared and the project's own), and every other readable PROV
    case written in ``fmt`` (RDF/XML: those without bundles, which it cannot hold)."""
    own = ".rdf" if fmt == "rdf-xml" else ".jsonld"
    return documents(fmt, own, lambda path, data: path.suffix == own,
                     readable=READABLE + (".rdf",))


@pytest.mark.parametrize("fmt", ["rdf-xml", "json-ld"])
def test_every_readable_case_streams_to_the_same_statements_and_report(fmt):
    docs = _documents(fmt)
    assert len(docs) > 200
    seen = {"compared": 0, "refused": 0, "graphs": 0, "blank": 0}
    not_streamed = []
    for name, data in docs:
        whole, streamed = _both(data, name, fmt)
        if streamed[0][0] == "not streamed":
            not_streamed.append(name)
            # the whole read refuses what it leaves, but the legacy PROV-JSONLD dialect
            assert whole[0][0] == "error" or "legacy" in streamed[0][1], name
            continue
        assert (streamed[0][:4], streamed[1]) == (whole[0][:4], whole[1]), name
        if streamed[0][0] != "error":
            assert streamed[0][5] == whole[0][5], name
        seen["compared"] += 1
        seen["refused"] += whole[0][0] == "error"
        seen["graphs"] += whole[0][0] != "error" and len(whole[0][3]) > 1
        seen["blank"] += "_:" in whole[1]
    assert seen["compared"] > 200 and seen["refused"] >= 1 and seen["blank"] >= 5, seen
    if fmt == "json-ld":
        assert seen["graphs"] >= 5, seen
        assert sorted(not_streamed) == ["provtoolbox-mini-primer.jsonld",
                                        "remote_context.jsonld", "remote_import.jsonld"]
    else:
        assert sorted(not_streamed) == ["xxe_rdf.rdf"]


def test_the_prov_jsonld_cases_stream_with_the_bundled_context():
    """The PROV-JSONLD documents (ProvToolbox, a context URL in the first key) stream:
    the URL is replaced by the prov package's copy, as the whole read replaces it; the
    legacy dialect is read whole."""
    streamed = legacy = 0
    for path in sorted(shared_cases("prov").rglob("*.jsonld")):
        whole, got = _both(path.read_bytes(), path.name, "json-ld")
        if got[0][0] == "not streamed":
            assert "legacy" in got[0][1], path
            legacy += 1
            continue
        assert got[0][:4] == whole[0][:4] and got[1] == whole[1], path
        assert whole[0][0] != "error"
        streamed += 1
    assert streamed >= 5 and legacy >= 1


_CTX = b'{"@context": {"prov": "http://www.w3.org/ns/prov#", "ex": "urn:ex:"}, '


@pytest.mark.parametrize("data, why", [
    pytest.param(b'{"@id": "urn:ex:e", "@context": {"ex": "urn:ex:"}, '
                 b'"@type": "http://www.w3.org/ns/prov#Entity"}', "Streaming JSON-LD",
                 id="context-last"),
    pytest.param(_CTX + b'"@id": "ex:e", "@id": "ex:f", "@type": "prov:Entity"}', "repeated",
                 id="repeated-key"),
    pytest.param(_CTX + b'"@id": "ex:e", "@type": "prov:Entity", "ex:v": 1e2}', "float",
                 id="exponent"),
    pytest.param(b'{"@graph": [{"@context": "https://openprovenance.org/prov-jsonld/'
                 b'context.jsonld", "@id": "urn:ex:e", "@type": "prov:Entity"}]}',
                 "elsewhere", id="prov-context-nested"),
    pytest.param(b'{"@context": "https://example.org/ctx.jsonld", "@id": "urn:ex:e"}',
                 "remote", id="remote"),
    pytest.param(_CTX + b'"@id": "ex:e", "@type": "prov:Entity"', "ijson", id="truncated"),
])
def test_a_json_ld_document_read_whole_instead_stores_nothing(data, why):
    store = EmbeddedStore()
    with pytest.raises(NotStreamed, match=why):
        import_jsonld_stream(store, io.BytesIO(data), name="x.jsonld")
    assert len(store) == 0


def test_keys_out_of_streaming_order_are_read_alike_after_the_whole_read():
    """A document the Streaming JSON-LD profile refuses (``@type`` after ``@id``) is left
    to the whole read, which stores it."""
    data = _CTX + b'"@id": "ex:e", "@type": "prov:Entity", "ex:v": "x"}'
    whole, streamed = _both(data, "t.jsonld", "json-ld")
    assert streamed[0][0] == "not streamed" and "@type" in streamed[0][1]
    assert whole[0][0] == 2


def test_no_context_is_fetched(monkeypatch):
    """A remote context is never fetched: no socket is opened, and the document is left
    to the whole read (which refuses it)."""
    def no_socket(*a, **k):
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket, "socket", no_socket)
    monkeypatch.setattr(socket, "create_connection", no_socket)
    data = (TESTS / "malformed" / "remote_import.jsonld").read_bytes()
    with pytest.raises(NotStreamed, match="remote"):
        import_jsonld_stream(EmbeddedStore(), io.BytesIO(data), name="r.jsonld")
    with pytest.raises(SerializationError, match="remote"):
        import_document(EmbeddedStore(), data, "json-ld", name="r.jsonld")


_RDF = (b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        b'xmlns:prov="http://www.w3.org/ns/prov#">')


@pytest.mark.parametrize("data, why", [
    pytest.param(b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                 + _RDF + b'<prov:Entity rdf:about="urn:ex:e"><prov:value>&e;</prov:value>'
                 b'</prov:Entity></rdf:RDF>', "refused", id="external-entity"),
    pytest.param(b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]>' + _RDF
                 + b'<prov:Entity rdf:about="urn:ex:&a;"/></rdf:RDF>', "refused",
                 id="internal-entity"),
    pytest.param(_RDF + b'<x:include xmlns:x="http://www.w3.org/2001/XInclude" href="/etc/passwd"/>'
                 b'</rdf:RDF>', "XInclude", id="xinclude"),
    pytest.param(_RDF + b"<a>" * 250 + b"</a>" * 250 + b"</rdf:RDF>", "deeper", id="deep"),
    pytest.param(_RDF + b'<prov:Entity rdf:about="urn:ex:e">', "well-formed", id="truncated"),
])
def test_an_rdf_xml_document_the_screen_refuses_is_read_whole_and_stores_nothing(data, why):
    store = EmbeddedStore()
    with pytest.raises(NotStreamed, match=why):
        import_rdfxml_stream(store, io.BytesIO(data), name="x.rdf")
    assert len(store) == 0
    with pytest.raises(SerializationError):  # and the whole read refuses it
        import_document(EmbeddedStore(), data, "rdf-xml", name="x.rdf")


def test_an_rdf_xml_error_after_stored_batches_undoes_them(tmp_path, monkeypatch):
    """A refusal found at the end (a qualified node without its prov:entity) after many
    stored batches: the same error as the whole read, and nothing stored."""
    monkeypatch.setattr("provgraph.io.stream_load.STREAM_BATCH", 20)
    body = b"".join(b'<prov:Entity rdf:about="urn:ex:e%d"/>' % i for i in range(300))
    late = (b'<prov:Activity rdf:about="urn:ex:a"><prov:qualifiedUsage><prov:Usage>'
            b'<prov:atTime>2024-01-01T00:00:00Z</prov:atTime></prov:Usage>'
            b'</prov:qualifiedUsage></prov:Activity>')
    path = tmp_path / "late.rdf"
    path.write_bytes(_RDF + body + late + b"</rdf:RDF>")
    store = EmbeddedStore(tmp_path / "s")
    got, whole = refusals(store, path, path.read_bytes(), "rdf-xml", import_rdfxml_stream,
                          "late.rdf")
    assert labels(got) == labels(whole)
    assert len(store) == 0 and not (tmp_path / "s" / "journal.nq").exists()
    store.close()


def test_a_syntax_error_after_stored_batches_is_the_whole_reads_and_undone(tmp_path,
                                                                           monkeypatch):
    monkeypatch.setattr("provgraph.io.stream_load.STREAM_BATCH", 20)
    body = b"".join(b'<prov:Entity rdf:about="urn:ex:e%d"/>' % i for i in range(300))
    data = _RDF + body + b'<prov:Entity rdf:about="not an iri"/></rdf:RDF>'
    store = EmbeddedStore(tmp_path / "s")
    got, whole = refusals(store, io.BytesIO(data), data, "rdf-xml", import_rdfxml_stream,
                          "bad.rdf")
    assert got == whole
    assert len(store) == 0
    store.close()


def test_auto_leaves_json_and_xml_that_detect_would_not_call_theirs():
    prov_json = json.dumps({"entity": {"ex:e": {}}, "prefix": {"ex": "urn:ex:"}}).encode()
    with pytest.raises(NotStreamed, match="@context"):
        import_jsonld_stream(EmbeddedStore(), io.BytesIO(prov_json), name="d.json", auto=True)
    prov_xml = b'<prov:document xmlns:prov="http://www.w3.org/ns/prov#"/>'
    with pytest.raises(NotStreamed, match="not rdf:RDF"):
        import_rdfxml_stream(EmbeddedStore(), io.BytesIO(prov_xml), name="d.xml", auto=True)


@pytest.mark.parametrize("suffix, fmt", [(".rdf", "rdf-xml"), (".jsonld", "json-ld")])
def test_the_cli_streams_rdf_xml_and_json_ld_files(runner, tmp_path, suffix, fmt, monkeypatch):
    from provgraph.cli import cli
    from provgraph.io import stream_load

    calls = []
    real = stream_load.store_streamed
    monkeypatch.setattr("provgraph.io.rdf_stream_read.store_streamed",
                        lambda *a, **k: calls.append(k["reader"]) or real(*a, **k))
    doc = read(b"document prefix ex <urn:ex:> "
               + b" ".join(b"entity(ex:e%d)" % i for i in range(40)) + b" endDocument",
               "provn").quads
    path = tmp_path / f"doc{suffix}"
    path.write_bytes(write(doc, fmt))
    got = runner.invoke(cli, ["--store", str(tmp_path / "s"), "import", str(path)],
                        catch_exceptions=False)
    assert got.exit_code == 0, got.output
    assert f"imported {path} ({fmt}): 40 statements stored (40 new, 0 inferred)" in got.output
    assert len(calls) == 1 and "streamed" in calls[0]
