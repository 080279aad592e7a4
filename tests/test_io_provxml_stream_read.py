"""The streamed PROV-XML import (provgraph.io.provxml_stream_read) agrees with the
whole-document one (provgraph.io.load.import_document): same statements stored (blank
nodes canonicalized), same report (warnings included), same refusals; unsafe XML is
refused before anything acts on it, and a document it does not stream says why and
stores nothing (issue 16, item 6)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from provgraph.errors import SerializationError
from provgraph.io import provxml_stream_read as streamed_read
from provgraph.io import read, write
from provgraph.io.load import import_document
from provgraph.io.provxml_stream_read import import_provxml_stream
from provgraph.io.stream_load import NotStreamed
from provgraph.store import EmbeddedStore

from .conftest import shared_cases
from .io_helpers import canon

TESTS = Path(__file__).parent
_READABLE = (".json", ".provn", ".provx", ".xml", ".ttl", ".trig", ".nq", ".jsonld")


def _both(data: bytes, name: str, graph: str | None = None):
    out = []
    for how in ("whole", "streamed"):
        store = EmbeddedStore()
        try:
            if how == "whole":
                r = import_document(store, data, "prov-xml", graph=graph, name=name)
            else:
                r = import_provxml_stream(store, io.BytesIO(data), graph=graph, name=name)
        except NotStreamed as exc:
            assert len(store) == 0
            out.append((("not streamed", str(exc)), ""))
        except SerializationError as exc:
            out.append((("error", re.sub(r"_:b[0-9a-f]{32}", "_:b", str(exc))),
                        canon(store.quads())))
        else:
            out.append(((r.stored, r.new, r.inferred, r.graphs, r.format, r.warnings),
                        canon(store.quads())))
        store.close()
    return out


def _documents() -> list[tuple[str, bytes]]:
    """Every PROV-XML case (shared and the project's own), and every other readable PROV
    case written as PROV-XML (bundles, blank nodes, qualified relations, typed values)."""
    docs: list[tuple[str, bytes]] = []
    roots = [shared_cases("prov"), TESTS / "prov_constraints", TESTS / "malformed"]
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.suffix in _READABLE):
            data = path.read_bytes()
            if path.suffix in (".provx", ".xml") and b"prov#" in data:
                docs.append((path.name, data))
            try:
                quads = read(data, name=path.name).quads
                docs.append((path.name + ".provx", write(quads, "prov-xml")))
            except SerializationError:
                continue
    return docs


@pytest.mark.parametrize("chunk", [streamed_read.CHUNK_RECORDS, 1])
def test_every_readable_prov_xml_case_streams_to_the_same_statements_and_report(
        chunk, monkeypatch):
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", chunk)
    docs = _documents()
    assert len(docs) > 300
    seen = {"compared": 0, "refused": 0, "warned": 0, "bundles": 0, "blank": 0}
    not_streamed = []
    for name, data in docs:
        whole, streamed = _both(data, name)
        if streamed[0][0] == "not streamed":
            not_streamed.append(name)
            assert whole[0][0] == "error", name  # the whole read refuses what it leaves
            continue
        assert streamed == whole, name
        seen["compared"] += 1
        seen["refused"] += whole[0][0] == "error"
        seen["warned"] += whole[0][0] != "error" and bool(whole[0][5])
        seen["bundles"] += b"bundleContent" in data and whole[0][0] != "error"
        seen["blank"] += "_:" in whole[1]
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
    with pytest.raises(SerializationError) as got:
        import_provxml_stream(store, path, name="late.provx")
    with pytest.raises(SerializationError) as whole:
        import_document(EmbeddedStore(), path.read_bytes(), "prov-xml", name="late.provx")
    assert str(got.value) == str(whole.value)
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
