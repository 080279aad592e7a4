"""The streamed PROV-JSON import (provgraph.io.provjson_stream_read) agrees with the
whole-document one (provgraph.io.load.import_document): same statements stored (blank
nodes canonicalized), same report (warnings included), same refusals, nothing left
behind by a refusal; a document it does not stream says why and stores nothing
(issue 16, item 6)."""

from __future__ import annotations

import io
import json

import pytest

from provgraph.io import provjson_stream_read as streamed_read
from provgraph.io.load import import_document
from provgraph.io.provjson_stream_read import NotStreamed, import_provjson_stream
from provgraph.store import EmbeddedStore
from provgraph.terms import BNode

from .stream_agreement import agree_on_every_document, both_ways, documents, refusals


def _both(data: bytes, name: str, graph: str | None = None):
    return both_ways(data, name, "prov-json", import_provjson_stream, graph=graph)


def _documents() -> list[tuple[str, bytes]]:
    """Every PROV-JSON case (shared and the project's own), and every other readable PROV
    case written as PROV-JSON (bundles, blank nodes, qualified relations, typed values)."""
    return documents("prov-json", ".json", lambda path, data: path.suffix == ".json")


@pytest.mark.parametrize("chunk", [streamed_read.CHUNK_RECORDS, 1])
def test_every_readable_prov_json_case_streams_to_the_same_statements_and_report(
        chunk, monkeypatch):
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", chunk)
    docs = _documents()
    assert len(docs) > 200
    seen, not_streamed = agree_on_every_document(docs, "prov-json", import_provjson_stream,
                                                 bundle=b'"bundle"', left_is_refused=False)
    # every part of the comparison was exercised
    assert seen["compared"] > 200 and seen["refused"] >= 3 and seen["warned"] >= 5, seen
    assert seen["bundles"] >= 5 and seen["blank"] >= 5, seen
    # read whole instead, and only for the reasons the module gives
    assert sorted(not_streamed) == ["bad_prefix_map.json", "empty_document.json",
                                    "empty_document.json.json",
                                    "empty_document.provn.json", "truncated.json",
                                    "unknown_record_type.json"]


REFUSED = [
    pytest.param({"prefix": {"pg": "urn:provgraph:graph:", "ex": "urn:ex:"},
                  "bundle": {"pg:ontology": {"entity": {"ex:e": {}}}}},
                 "only 'provgraph init' fills", id="ontology-graph"),
    pytest.param({"prefix": {"ex": "urn:ex:"},
                  "wasAttributedTo": {"ex:r": {"prov:entity": "ex:e"}}},
                 "agent", id="relation-without-its-agent"),
    pytest.param({"prefix": {"ex": "urn:ex:"}, "entity": {"ex:e": {}},
                  "activity": {"ex:a": {"prov:startTime": "yesterday"}}},
                 "", id="a-time-that-is-not-one"),
]


@pytest.mark.parametrize("doc, message", REFUSED)
def test_a_refused_document_is_refused_alike_and_stores_nothing(doc, message):
    whole, streamed = _both(json.dumps(doc).encode(), "r.json")
    assert streamed == whole
    if message:
        assert whole[0][0] == "error" and message in whole[0][1]
        assert not whole[1]


def test_a_default_graph_goes_to_the_named_target_graph_alike():
    doc = {"prefix": {"ex": "urn:ex:"}, "entity": {"ex:e": {"prov:label": "e"}},
           "wasDerivedFrom": {"_:d": {"prov:generatedEntity": "ex:e",
                                      "prov:usedEntity": "ex:f"}},
           "bundle": {"ex:b": {"entity": {"ex:g": {}}}}}
    whole, streamed = _both(json.dumps(doc).encode(), "d.json", graph="urn:example:g1")
    assert streamed == whole
    assert whole[0][3] == ["urn:ex:b", "urn:example:g1"]


def test_one_blank_node_across_chunks_stays_one_node(monkeypatch):
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", 1)
    # how provgraph writes a blank node in PROV-JSON (provgraph.io.names.GENID)
    doc = {"prefix": {"ex": "urn:ex:", "genid": "urn:provgraph:genid:"},
           "entity": {"genid:n": {}, "ex:a": {}},
           "wasDerivedFrom": {"ex:d": {"prov:generatedEntity": "ex:a",
                                       "prov:usedEntity": "genid:n"}}}
    store = EmbeddedStore()
    import_provjson_stream(store, io.BytesIO(json.dumps(doc).encode()), name="b.json")
    nodes = {t for q in store.quads() for t in (q[0], q[2]) if isinstance(t, BNode)}
    assert len(nodes) == 1


def test_a_refusal_after_stored_chunks_undoes_them(tmp_path, monkeypatch):
    monkeypatch.setattr(streamed_read, "CHUNK_RECORDS", 10)
    monkeypatch.setattr("provgraph.io.stream_load.STREAM_BATCH", 20)
    entities = {f"ex:e{i}": {"prov:label": f"e{i}"} for i in range(500)}
    # an activity with a start time the prov package refuses, after every entity
    doc = {"prefix": {"ex": "urn:ex:"}, "entity": entities,
           "activity": {"ex:a": {"prov:startTime": {"$": "not a time", "type": "xsd:int"},
                                 "prov:type": {"type": "xsd:QName"}}}}
    path = tmp_path / "late.json"
    path.write_text(json.dumps(doc))
    store = EmbeddedStore(tmp_path / "s")
    store.add([("urn:ex:kept", "urn:ex:p", "urn:ex:o", None)])  # type: ignore[list-item]
    got, whole = refusals(store, path, path.read_bytes(), "prov-json", import_provjson_stream,
                          "late.json")
    assert got == whole
    assert len(store) == 1
    assert not (tmp_path / "s" / "journal.nq").exists()
    store.close()


@pytest.mark.parametrize("data, why", [
    pytest.param(b'{"@context": {}, "@id": "urn:a"}', "is not a PROV-JSON key", id="json-ld"),
    pytest.param(b'{"entity": {"ex:e": {}, "ex:e": {}}}', "given twice in one section",
                 id="repeated-id"),
    pytest.param(b'{"entity": {"ex:a": {}}, "entity": {"ex:b": {}}}', "repeated in one object",
                 id="repeated-section"),
    pytest.param(b'{"entity": {"ex:a": {"prov:label": "a", "prov:label": "b"}}}',
                 "repeated in one object", id="repeated-attribute"),
    pytest.param(b'{"entity": []}', "is not an object", id="section-not-object"),
    pytest.param(b'{"prefix": {"pglexical": "urn:x"}, "entity": {"pglexical:e": {}}}',
                 "pglexical", id="lexical-prefix-name"),
    pytest.param(b"[1]", "top level is not a JSON object", id="array"),
])
def test_a_document_read_whole_instead_says_why(data, why):
    store = EmbeddedStore()
    with pytest.raises(NotStreamed, match=why):
        import_provjson_stream(store, io.BytesIO(data), name="x.json")
    assert len(store) == 0


def test_the_cli_streams_a_prov_json_file_and_reads_other_json_whole(runner, tmp_path):
    from provgraph.cli import cli

    doc = {"prefix": {"ex": "urn:ex:"},
           "entity": {f"ex:e{i}": {"prov:label": f"e{i}"} for i in range(50)},
           "activity": {"ex:a": {"prov:startTime": "2024-01-01T00:00:00Z"}},
           "wasGeneratedBy": {"ex:g": {"prov:entity": "ex:e1", "prov:activity": "ex:a"}}}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    whole = import_document(EmbeddedStore(), path.read_bytes(), name=str(path))
    got = runner.invoke(cli, ["--store", str(tmp_path / "s"), "import", str(path)],
                        catch_exceptions=False)
    assert got.exit_code == 0, got.output
    assert (f"imported {path} (prov-json): {whole.stored} statements stored "
            f"({whole.new} new, {whole.inferred} inferred) in default graph") in got.output
    jsonld = tmp_path / "doc2.json"  # JSON-LD named .json: not streamed, read whole
    jsonld.write_text(json.dumps({"@id": "urn:ex:x", "@type": "http://www.w3.org/ns/prov#Entity"}))
    got = runner.invoke(cli, ["--store", str(tmp_path / "s"), "import", str(jsonld)],
                        catch_exceptions=False)
    assert got.exit_code == 0, got.output
    assert "(json-ld): 1 statements stored" in got.output


def test_the_cli_streams_standard_input_under_a_named_format(runner, tmp_path):
    from provgraph.cli import cli

    data = json.dumps({"prefix": {"ex": "urn:ex:"},
                       "entity": {f"ex:e{i}": {} for i in range(30)}}).encode()
    got = runner.invoke(cli, ["--store", str(tmp_path / "s"), "import", "--format",
                              "prov-json", "-"], input=data, catch_exceptions=False)
    assert got.exit_code == 0, got.output
    assert "imported <stdin> (prov-json): 30 statements stored (30 new" in got.output
    # a document the streamed reader leaves to the whole read is read whole from the copy
    bad = b'{"prefix": {"ex": "urn:ex:"}, "entity": {"ex:e": {}, "ex:e": {"prov:label": "x"}}}'
    got = runner.invoke(cli, ["--store", str(tmp_path / "s"), "import", "--format",
                              "prov-json", "-"], input=bad, catch_exceptions=False)
    assert got.exit_code == 0, got.output
    assert "imported <stdin> (prov-json): 2 statements stored (2 new" in got.output
    assert "is repeated in a JSON object; the last value is used" in got.output
