"""The streamed PROV-XML import (provgraph.io.provxml_stream_read) agrees with the
whole-document one (provgraph.io.load.import_document): same statements stored (blank
nodes canonicalized), same report (warnings included), same refusals; unsafe XML is
refused before anything acts on it, and a document it does not stream says why and
stores nothing (issue 16, item 6)."""

from __future__ import annotations

import io

import pytest

from provgraph.io import provxml_stream_read as streamed_read
from provgraph.io.provxml_stream_read import import_provxml_stream
from provgraph.io.stream_load import NotStreamed
from provgraph.store import EmbeddedStore

from .stream_agreement import agree_on_every_document, both_ways, documents, refusals


def _both(data: bytes, name: str, graph: str | None = None):
    return both_ways(data, name, "prov-xml", import_provxml_stream, graph=graph)


def _documents() -> list[tuple[str, bytes]]:
    """Every PROV-XML case (shared and the project's own), and every other readable PROV
    case written as PROV-XML (bundles, blank nodes, qualified relations, typed values)."""
    return documents("prov-xml", ".provx",
                     lambda path, data: path.suffix in (".provx", ".xml") and b"prov#" in data)


@pytest.mark.parametrize("chunk", [streamed_read.CHUNK_RECORDS, 1])
def test_every_readable_prov_xml_case_streams_to_the_same_statements_and_report(
        chunk, monkeypatch):
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", chunk)
    docs = _documents()
    assert len(docs) > 300
    seen, not_streamed = agree_on_every_document(docs, "prov-xml", import_provxml_stream,
                                                 bundle=b"bundleContent", left_is_refused=True)
    assert seen["compared"] > 300 and seen["refused"] >= 3 and seen["warned"] >= 5, seen
    assert seen["bundles"] >= 5 and seen["blank"] >= 5, seen
    assert sorted(not_streamed) == ["dtd_entity.provx", "primer-prov-xml-examples.xml",
                                    "xinclude.provx", "xxe_file.provx"]


_HEAD = (b'<prov:document xmlns:prov="http://www.w3.org/ns/prov#" xmlns:ex="urn:ex:" '
         b'xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
         b'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">')


def test_records_sharing_an_id_far_apart_are_checked_together(monkeypatch):
    """PROV-CONSTRAINTS key checks compare records that share an id, wherever they are:
    here two chunks apart, an imprecise and a precise derivation and an activity with two
    start times."""
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", 1)
    body = (b'<prov:wasDerivedFrom prov:id="ex:d"><prov:generatedEntity prov:ref="ex:b"/>'
            b'<prov:usedEntity prov:ref="ex:a"/></prov:wasDerivedFrom>'
            b'<prov:activity prov:id="ex:x"><prov:startTime>2024-01-01T00:00:00Z'
            b'</prov:startTime></prov:activity>'
            b'<prov:entity prov:id="ex:a"/><prov:entity prov:id="ex:b"/>'
            b'<prov:activity prov:id="ex:x"><prov:startTime>2024-01-02T00:00:00+00:00'
            b'</prov:startTime></prov:activity>'
            b'<prov:wasDerivedFrom prov:id="ex:d"><prov:generatedEntity prov:ref="ex:b"/>'
            b'<prov:usedEntity prov:ref="ex:a"/><prov:activity prov:ref="ex:y"/>'
            b'</prov:wasDerivedFrom>')
    whole, streamed = _both(_HEAD + body + b"</prov:document>", "k.provx")
    assert streamed == whole
    warnings = whole[0][5]
    assert any("C22" in w for w in warnings) and any("Definition 4" in w for w in warnings)
    assert "imprecise" in whole[1]


@pytest.mark.parametrize("data", [
    pytest.param(b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                 + _HEAD + b"<prov:entity prov:id=\"ex:e\">&e;</prov:entity></prov:document>",
                 id="external-entity"),
    pytest.param(b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>',
                 id="rdf-xml"),
    pytest.param(_HEAD + b"<prov:entity prov:id=\"ex:e\">", id="truncated"),
])
def test_a_document_read_whole_instead_stores_nothing(data):
    store = EmbeddedStore()
    with pytest.raises(NotStreamed):
        import_provxml_stream(store, io.BytesIO(data), name="x.provx")
    assert len(store) == 0


def test_a_refusal_after_stored_chunks_undoes_them(tmp_path, monkeypatch):
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", 10)
    monkeypatch.setattr("provgraph.io.stream_load.STREAM_BATCH", 20)
    body = b"".join(b'<prov:entity prov:id="ex:e%d"><prov:label>e</prov:label></prov:entity>'
                    % i for i in range(300))
    late = b'<prov:wasAttributedTo><prov:entity prov:ref="ex:e1"/></prov:wasAttributedTo>'
    path = tmp_path / "late.provx"
    path.write_bytes(_HEAD + body + late + b"</prov:document>")
    store = EmbeddedStore(tmp_path / "s")
    got, whole = refusals(store, path, path.read_bytes(), "prov-xml", import_provxml_stream,
                          "late.provx")
    assert got == whole
    assert len(store) == 0
    assert not (tmp_path / "s" / "journal.nq").exists()
    store.close()


def test_the_cli_streams_a_prov_xml_file(runner, tmp_path):
    from provgraph.cli import cli

    body = b"".join(b'<prov:entity prov:id="ex:e%d"/>' % i for i in range(40))
    path = tmp_path / "doc.provx"
    path.write_bytes(_HEAD + body + b"</prov:document>")
    got = runner.invoke(cli, ["--store", str(tmp_path / "s"), "import", str(path)],
                        catch_exceptions=False)
    assert got.exit_code == 0, got.output
    assert f"imported {path} (prov-xml): 40 statements stored (40 new, 0 inferred)" in got.output


def test_two_bundles_with_one_identifier_are_left_to_the_whole_read_which_refuses_them():
    bundle = b'<prov:bundleContent prov:id="ex:ba"><prov:entity prov:id="ex:a"/></prov:bundleContent>'
    doc = (b'<prov:document xmlns:prov="http://www.w3.org/ns/prov#" xmlns:ex="urn:ex:">'
           + bundle + bundle + b"</prov:document>")
    whole, streamed = _both(doc, "twice.provx")
    assert streamed[0][0] == "not streamed" and "earlier bundle" in streamed[0][1]
    assert whole[0][0] == "error" and "A bundle with that identifier already exists" in whole[0][1]
