"""Hostile files at every file entry point (issue 15): deep nesting is refused with a
documented limit and an ``Error:`` line, never a traceback or a long parse."""

from __future__ import annotations

import time

import pytest

from provgraph.cli import cli
from provgraph.limits import MAX_JSON_DEPTH, MAX_XML_DEPTH

JSON_ENTRY_POINTS = [
    ["import"], ["import", "--format", "json-ld"], ["import", "--format", "prov-json"],
    ["record"], ["verify-bundle"],
    *[["import", "--format", f] for f in ("anthropic", "cohere", "bedrock", "openai", "vertex",
                                           "ragchecker", "alce", "otlp")],
]


def _deep_json(depth: int, opener: str = "[") -> bytes:
    closer = {"[": "]", "{": "}"}[opener]
    inner = opener if opener == "[" else '{"a":'
    return (inner * depth + "1" + closer * depth).encode() if opener == "[" else \
        (inner * depth + "1" + "}" * depth).encode()


@pytest.mark.parametrize("args", JSON_ENTRY_POINTS, ids=lambda a: "-".join(a))
@pytest.mark.parametrize("opener", ["[", "{"])
def test_json_nested_100000_deep_is_an_error_line_at_every_entry_point(runner, tmp_path, args,
                                                                       opener):
    src = tmp_path / ("deep.jsonl" if args == ["record"] else "deep.json")
    src.write_bytes(_deep_json(100_000, opener))
    store = str(tmp_path / "s")
    started = time.perf_counter()
    res = runner.invoke(cli, ["--store", store, *args, str(src)])
    assert time.perf_counter() - started < 20
    assert res.exit_code == 2, (res.output, res.exception)
    assert res.stderr.startswith("Error: ") and "Traceback" not in res.stderr, res.stderr
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in res.stderr, res.stderr


@pytest.mark.parametrize("key", ["entity", "bundle"])
def test_deep_prov_json_with_typed_values_or_bundles_is_an_error_line(runner, tmp_path, key):
    # the PROV-JSON reader's own passes (typed values kept in their lexical form, bundle
    # names) parsed the text before the depth limit: a RecursionError traceback
    value = '{"$": "1", "type": "xsd:int"}'
    src = tmp_path / "deep.json"
    src.write_text('{"%s": ' % key + "[" * 100_000 + value + "]" * 100_000 + "}")
    res = runner.invoke(cli, ["--memory", "import", "--format", "prov-json", str(src)])
    assert res.exit_code == 2, (res.output, res.exception)
    assert res.stderr.startswith("Error: ") and "Traceback" not in res.stderr, res.stderr
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in res.stderr, res.stderr


def test_json_at_the_limit_is_read(runner, tmp_path):
    src = tmp_path / "ok.jsonl"
    src.write_text('{"event": "run", "label": "x", "config": ' + "[" * (MAX_JSON_DEPTH - 2)
                   + "]" * (MAX_JSON_DEPTH - 2) + "}\n")
    res = runner.invoke(cli, ["--store", str(tmp_path / "s"), "record", str(src)])
    assert "nested deeper" not in res.output


def test_rdf_xml_nested_deeper_than_the_limit_is_refused_quickly(runner, tmp_path):
    # measured (pyoxigraph 0.5.13, one core): 200 deep 1 ms, 4,000 deep 86 ms, growing
    # about as n^2; issue 15 measured 328 s at 50,000
    depth = 50_000
    body = "<rdf:Description><ex:p>" * depth
    close = "</ex:p></rdf:Description>" * depth
    src = tmp_path / "deep.rdf"
    src.write_text('<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-'
                   'syntax-ns#" xmlns:ex="http://e.org/">' + body + close + "</rdf:RDF>")
    started = time.perf_counter()
    res = runner.invoke(cli, ["--store", str(tmp_path / "s"), "import", "--format", "rdf-xml",
                              str(src)])
    assert time.perf_counter() - started < 10
    assert res.exit_code == 2
    assert res.stderr.startswith("Error: ") and f"deeper than {MAX_XML_DEPTH}" in res.stderr, \
        res.stderr


def test_an_empty_store_path_is_a_usage_error_and_writes_nothing(runner, tmp_path,
                                                                  monkeypatch):
    # issue 15: --store "" stored into the current directory
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(cli, ["--store", "", "init"])
    assert res.exit_code == 2
    assert "'--store': is empty; give the store directory" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_write_command_on_a_corrupt_store_is_an_error_line(runner, tmp_path):
    # issue 15: CURRENT overwritten gave a raw RuntimeError traceback on record/import
    store = tmp_path / "s"
    assert runner.invoke(cli, ["--store", str(store), "init"]).exit_code == 0
    (store / "rdf" / "CURRENT").write_text("garbage\n")
    events = tmp_path / "e.jsonl"
    events.write_text('{"event": "query", "text": "q"}\n')  # valid: the store is what fails
    res = runner.invoke(cli, ["--store", str(store), "record", str(events)])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(f"Error: cannot open the store at {store}: the engine reports "
                                 "Corruption: CURRENT file corrupted. The store is damaged")


@pytest.mark.parametrize("command", [["stale"], ["runs"], ["lineage", "urn:x:c"],
                                     ["record", "EVENTS"]])
@pytest.mark.parametrize("inside", [False, True])
def test_a_store_path_that_is_or_passes_through_a_file_says_so(runner, tmp_path, command,
                                                                inside):
    # a reading command said "no provgraph store at FILE ... create one with 'provgraph
    # init'", which then fails; a writer under a file said "cannot read the store
    # directory ...: [Errno 20] Not a directory"
    afile = tmp_path / "notes.txt"
    afile.write_text("hello\n")
    events = tmp_path / "e.jsonl"
    events.write_text('{"event": "query", "text": "q"}\n')
    store = afile / "s" if inside else afile
    args = [str(events) if a == "EVENTS" else a for a in command]
    res = runner.invoke(cli, ["--store", str(store), *args])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(f"Error: {afile} is a file, not a provgraph store directory"), \
        res.stderr
    assert "provgraph init" not in res.stderr
    assert afile.read_text() == "hello\n"


def test_a_bad_store_path_from_the_environment_names_the_environment(runner, tmp_path,
                                                                     monkeypatch):
    # $PROVGRAPH_STORE pointing at a file was answered with "give a directory with --store",
    # although no --store was given
    afile = tmp_path / "notes.txt"
    afile.write_text("hello\n")
    monkeypatch.setenv("PROVGRAPH_STORE", str(afile))
    res = runner.invoke(cli, ["runs"])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(f"Error: {afile} is a file, not a provgraph store directory")
    assert res.stderr.rstrip().endswith("(the path came from $PROVGRAPH_STORE)"), res.stderr
    res = runner.invoke(cli, ["--store", str(afile), "runs"])
    assert "came from" not in res.stderr
