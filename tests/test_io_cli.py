"""The 'provgraph import' command: counts, stdin, atomicity, RAG answer dispatch."""

from __future__ import annotations

import sys
import types

from provgraph.cli import cli
from provgraph.store import EmbeddedStore

DOC = b"""document
  prefix ex <http://example.org/>
  entity(ex:report)
  entity(ex:data)
  wasDerivedFrom(ex:report, ex:data, [prov:type='prov:Quotation'])
endDocument
"""


def test_import_prints_what_it_stored_and_reads_stdin(runner, tmp_path):
    store = str(tmp_path / "s")
    res = runner.invoke(cli, ["--store", store, "import", "-"], input=DOC, catch_exceptions=False)
    assert res.exit_code == 0
    assert res.stderr == ("imported <stdin> (provn): 6 statements stored (6 new, 0 inferred) in "
                          "default graph\n")
    f = tmp_path / "doc.provn"
    f.write_bytes(DOC)
    res = runner.invoke(cli, ["--store", store, "import", str(f), "--graph", "urn:example:g"],
                        catch_exceptions=False)
    assert res.exit_code == 0
    assert res.stderr == (f"imported {f} (provn): 6 statements stored (6 new, 0 inferred) in "
                          "<urn:example:g>\n")
    s = EmbeddedStore(store)
    assert len(s) == 12 and s.named_graphs() == ["urn:example:g"]
    s.close()


def test_import_is_all_or_nothing(runner, tmp_path):
    store = str(tmp_path / "s")
    bad = DOC.replace(b"entity(ex:data)", b"hadMember(ex:data, -)")
    res = runner.invoke(cli, ["--store", store, "import", "-", "--format", "provn"], input=bad)
    assert res.exit_code == 2
    assert res.stderr == ("Error: <stdin>: hadMember(ex:data, -) has no entity ('-' in a mandatory "
                          "position); PROV-DM requires it, so the record has no PROV-O form and "
                          "the document is not valid PROV. Give the entity (an identifier), or "
                          "remove the record; nothing was stored\n")
    s = EmbeddedStore(store)
    assert len(s) == 0
    s.close()


def test_zero_statements_is_an_error_not_a_silent_success(runner, tmp_path):
    res = runner.invoke(cli, ["--memory", "import", "-"], input=b"document endDocument")
    assert res.exit_code == 2
    assert "the provn document holds no PROV statements; nothing was stored" in res.stderr


def test_constraint_warnings_are_printed(runner):
    doc = DOC.replace(b"entity(ex:data)", b"activity(ex:a, 2024-01-01T00:00:00Z, -)\n"
                      b"activity(ex:a, 2024-01-02T00:00:00Z, -)")
    res = runner.invoke(cli, ["--memory", "import", "-"], input=doc, catch_exceptions=False)
    assert res.exit_code == 0
    assert "warning: <stdin>: C22 key-object: records with id <http://example.org/a> give " \
           "startTime 2 different values" in res.stderr
    assert "run 'provgraph validate'" in res.stderr


def test_rag_formats_dispatch_to_the_importers(runner, tmp_path, monkeypatch):
    calls = []

    def import_file(store, fmt, data, name, sources, partial):
        calls.append((fmt, data, name, [p.name for p in sources], partial))
        return types.SimpleNamespace(stored=12, errors=["citation 3: unknown document id"])

    fake = types.ModuleType("provgraph.importers")
    fake.import_file = import_file  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "provgraph.importers", fake)
    import provgraph

    monkeypatch.setattr(provgraph, "importers", fake, raising=False)
    src = tmp_path / "policy.md"
    src.write_text("# policy")
    answer = tmp_path / "answer.json"
    answer.write_text("{}")
    res = runner.invoke(cli, ["--memory", "import", str(answer), "--format", "anthropic",
                              "--source", str(src), "--partial"], catch_exceptions=False)
    assert res.exit_code == 0
    assert calls == [("anthropic", b"{}", str(answer), ["policy.md"], True)]
    assert res.stderr == ("error: citation 3: unknown document id\n"
                          f"imported {answer} (anthropic): 12 statements stored\n")
    res = runner.invoke(cli, ["--memory", "import", str(answer), "--format", "cohere"])
    assert res.exit_code == 2  # errors without --partial


def test_source_and_partial_are_only_for_rag_formats(runner, tmp_path):
    src = tmp_path / "s.txt"
    src.write_text("x")
    res = runner.invoke(cli, ["--memory", "import", "-", "--source", str(src)], input=DOC)
    assert res.exit_code == 2
    assert "--source and --partial apply only to the RAG answer formats" in res.stderr


def test_import_refuses_provgraphs_reserved_graphs(runner, tmp_path):
    store = str(tmp_path / "s")
    for graph in ("urn:provgraph:graph:ontology", "urn:provgraph:graph:ingestion",
                  "urn:provgraph:graph:removals"):
        res = runner.invoke(cli, ["--store", store, "import", "-", "--graph", graph], input=DOC)
        assert res.exit_code == 2
        assert res.stderr.endswith(
            f"Error: Invalid value for '--graph': {graph} is a graph provgraph reserves for "
            "itself (reserved: urn:provgraph:graph:ingestion, urn:provgraph:graph:ontology, "
            "urn:provgraph:graph:removals); "
            "name another graph, such as urn:example:g1. To restore 'provgraph export --all' "
            "output, import the TriG or N-Quads file without --graph: its graphs are kept\n")
    s = EmbeddedStore(store)
    assert len(s) == 0
    s.close()


def test_the_library_refuses_them_too():
    import pytest

    from provgraph.io.load import import_document
    from provgraph.vocab import GRAPH

    store = EmbeddedStore()
    with pytest.raises(ValueError, match="is a graph provgraph reserves for itself"):
        import_document(store, DOC, graph=GRAPH.ONTOLOGY)
    with pytest.raises(ValueError, match=r"'not an iri' is not an absolute IRI"):
        import_document(store, DOC, graph="not an iri")
    assert len(store) == 0


def test_a_document_with_the_ontology_graph_is_refused_and_the_ingestion_graph_restored(
        runner, tmp_path, rag_store):
    from provgraph.io.bundle import export

    onto = b"<urn:x:a> <http://www.w3.org/ns/prov#wasDerivedFrom> <urn:x:b> " \
           b"<urn:provgraph:graph:ontology> .\n"
    res = runner.invoke(cli, ["--memory", "import", "-"], input=onto)
    assert res.exit_code == 2
    assert res.stderr == (
        "Error: <stdin>: the document writes into <urn:provgraph:graph:ontology>, the graph of "
        "provgraph's bundled ontology and shapes, which only 'provgraph init' fills; rename that "
        "bundle/graph. Nothing was stored\n")
    # 'export --all' output holds the ingestion graph: importing it restores the store
    store, _ = rag_store
    dump = tmp_path / "store.trig"
    dump.write_bytes(export(store, "trig", everything=True).data)
    copy = str(tmp_path / "copy")
    res = runner.invoke(cli, ["--store", copy, "import", str(dump)], catch_exceptions=False)
    assert res.exit_code == 0 and "<urn:provgraph:graph:ingestion>" in res.stderr
    s = EmbeddedStore(copy)
    assert len(s) == len(store) and "urn:provgraph:graph:ingestion" in s.named_graphs()
    s.close()


def test_iri_options_that_are_not_iris_are_usage_errors(runner):
    for args, option in ((["import", "-", "--graph", "not an iri"], "--graph"),
                         (["export", "--claim", "not an iri", "--format", "nquads"], "--claim"),
                         (["export", "--run", "not an iri", "--format", "nquads"], "--run"),
                         (["validate", "--run", "not an iri"], "--run")):
        res = runner.invoke(cli, ["--memory", *args], input=DOC)
        assert res.exit_code == 2, (args, res.output)
        assert f"Error: Invalid value for '{option}': 'not an iri' is not an absolute IRI " \
               "(Invalid IRI code point ' ')" in res.stderr, res.stderr
