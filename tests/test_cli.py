"""CLI: thin commands, exact output, errors as 'Error: ...' with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provgraph.cli import cli

from . import pipeline


def test_record_then_query_from_disk(runner, tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    store = str(tmp_path / "store")
    res = runner.invoke(cli, ["--store", store, "record", str(log)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert f"recorded run {pipeline.RUN}" in res.stderr
    # a plain SPARQL file, bound parameter, JSON output by default
    rq = tmp_path / "claims.rq"
    rq.write_text("# params: ?kind:string\n"
                  "PREFIX pg: <https://w3id.org/provgraph/ns#>\n"
                  "SELECT ?kind ?text WHERE { ?c pg:claimKind ?kind ; pg:text ?text } ORDER BY ?text\n")
    res = runner.invoke(cli, ["--store", store, "query", str(rq), "-p", "kind=quotation"],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [
        {"kind": "quotation", "text": "The inspection interval is not specified."}]
    res = runner.invoke(cli, ["--store", store, "query", str(rq), "-p", "kind=paraphrase", "--csv"])
    assert res.stdout.splitlines() == [
        "kind,text", "paraphrase,Boilers are inspected by a certified engineer.",
        "paraphrase,The interval is 73 days."]


def test_record_malformed_line_exits_2_and_stores_nothing(runner, tmp_path):
    lines = pipeline.events()
    lines[3] = lines[3].replace('"snapshot": "p1"', '"snapshot": 7')
    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join(lines), encoding="utf-8")
    store = str(tmp_path / "store")
    res = runner.invoke(cli, ["--store", store, "record", str(log)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"Error: {log}:4 field 'snapshot': 7 is not of type 'string'")
    assert "Traceback" not in res.output
    assert not (tmp_path / "store").exists()  # the file was checked before a store was made


def test_query_tells_an_unknown_iri_from_an_empty_answer(runner, tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    store = str(tmp_path / "store")
    assert runner.invoke(cli, ["--store", store, "record", str(log)]).exit_code == 0
    missing = pipeline.RUN + "-typo"
    res = runner.invoke(cli, ["--store", store, "query", "citations-of", "-p", f"target={missing}"])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr == (f"Error: target <{missing}> is not in the store; check the IRI "
                          "(for example with 'provgraph query claims')\n")
    # an IRI the store mentions but nothing cites: a true empty answer, not an error
    res = runner.invoke(cli, ["--store", store, "query", "citations-of", "-p", f"target={pipeline.RUN}"])
    assert res.exit_code == 0 and res.stdout == "[]\n"


def test_unknown_query_suggests_the_closest(runner):
    res = runner.invoke(cli, ["--memory", "query", "linage"])
    assert res.exit_code == 2
    assert res.stderr == ('Error: Query "linage" not found. Did you mean "lineage"? '
                          "Run 'provgraph queries' to list them.\n")


def test_parameter_injection_is_an_error_not_a_query_change(runner):
    res = runner.invoke(cli, ["--memory", "query", "lineage", "-p", "entity=x> } ; DROP ALL ; <y"])
    assert res.exit_code == 2
    assert "is not an absolute IRI" in res.stderr


def test_bad_param_syntax_is_a_usage_error(runner):
    res = runner.invoke(cli, ["--memory", "query", "lineage", "-p", "entity"])
    assert res.exit_code == 2
    assert "is not name=value" in res.stderr


def test_queries_lists_every_named_query(runner):
    from provgraph.queries import QueryCatalog

    res = runner.invoke(cli, ["queries", "--nl"], catch_exceptions=False)
    names = [json.loads(line)["name"] for line in res.stdout.splitlines()]
    assert names == QueryCatalog().names()


def test_init_loads_ontology(runner, tmp_path):
    res = runner.invoke(cli, ["--store", str(tmp_path / "s"), "init"], catch_exceptions=False)
    assert res.exit_code == 0
    assert "ontology statements loaded" in res.stderr


def test_every_command_has_help_with_an_example(runner):
    for name, cmd in cli.commands.items():
        res = runner.invoke(cli, [name, "-h"])
        assert res.exit_code == 0, name
        assert "Example" in res.stdout, f"{name} help has no example"


def test_read_commands_do_not_create_a_store(runner, tmp_path):
    missing = tmp_path / "typo"
    res = runner.invoke(cli, ["--store", str(missing), "query", "lineage", "-p", "entity=urn:x"])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"Error: no provgraph store at {missing}")
    assert not missing.exists()


def test_non_utf8_input_and_unwritable_paths_are_errors_not_tracebacks(runner, tmp_path):
    log = tmp_path / "latin1.jsonl"
    log.write_bytes('{"event": "query", "text": "caf\xe9"}\n'.encode("latin-1"))
    res = runner.invoke(cli, ["--store", str(tmp_path / "s"), "record", str(log)])
    assert res.exit_code == 2
    assert res.stderr == (f"Error: {log}: not UTF-8 text (byte 0xe9 does not decode); convert "
                          "it to UTF-8 first; nothing from this file was stored\n")
    rq = tmp_path / "bad.rq"
    rq.write_bytes(b"\xff\xfe")
    res = runner.invoke(cli, ["--memory", "query", str(rq)])
    assert res.exit_code == 2 and res.stderr.startswith("Error: the input is not UTF-8 text")


def test_event_log_with_a_byte_order_mark_is_read(runner, tmp_path):
    log = tmp_path / "bom.jsonl"
    log.write_bytes(b"\xef\xbb\xbf" + "\n".join(pipeline.events()).encode())
    res = runner.invoke(cli, ["--store", str(tmp_path / "s"), "record", str(log)])
    assert res.exit_code == 0, res.output


def test_memory_and_store_exclude_each_other(runner, tmp_path):
    res = runner.invoke(cli, ["--memory", "--store", str(tmp_path), "queries"])
    assert res.exit_code == 2
    assert "--memory and --store PATH exclude each other" in res.stderr


def test_a_closed_pipe_stops_quietly(runner, monkeypatch):
    # 'provgraph queries | head -1': the reader goes away; no "Error: Broken pipe"
    import provgraph.cli as cli_module

    def closed_pipe(*args, **kwargs):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli_module, "write_rows", closed_pipe)
    res = runner.invoke(cli, ["--memory", "queries"])
    assert res.exit_code == 1
    assert "Broken pipe" not in res.output and "Traceback" not in res.output


def test_bulk_import_streams_an_nquads_file_to_the_same_statements(runner, tmp_path):
    from provgraph.store import EmbeddedStore

    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    first = str(tmp_path / "first")
    assert runner.invoke(cli, ["--store", first, "record", str(log)]).exit_code == 0
    dump = tmp_path / "all.nq"
    assert runner.invoke(cli, ["--store", first, "export", "--all", "--format", "nquads",
                               "-o", str(dump)]).exit_code == 0
    second = str(tmp_path / "second")
    res = runner.invoke(cli, ["--store", second, "import", "--bulk", str(dump)])
    assert res.exit_code == 0, res.output
    a, b = EmbeddedStore(first), EmbeddedStore(second)
    try:
        assert res.stderr == (f"bulk-loaded {dump} (nquads) into its graphs, without a "
                              f"transaction: {len(b)} statements added ({len(b)} in the store); "
                              "run 'provgraph validate' to check it\n")
        assert len(b) > 100 and a.canonical_nquads() == b.canonical_nquads()
    finally:
        a.close()
        b.close()


def test_bulk_import_refuses_what_it_cannot_stream(runner, tmp_path):
    ttl = tmp_path / "doc.ttl"
    ttl.write_text("<urn:x:a> <urn:x:p> <urn:x:b> .\n")
    nq = tmp_path / "doc.nq"
    nq.write_text("<urn:x:a> <urn:x:p> <urn:x:b> <urn:x:g> .\n<urn:x:a> <urn:x:p> \n")
    store = str(tmp_path / "s")
    cases = [
        (["import", "--bulk", str(ttl)], "--bulk streams N-Quads (.nq) or N-Triples (.nt) only, not doc.ttl"),
        (["import", "--bulk", "-"], "--bulk reads a file by its path, not standard input"),
        (["import", "--bulk", "--graph", "urn:x:g2", str(nq)], "--graph applies to N-Triples only"),
        (["import", "--bulk", "--format", "prov-json", str(nq)], "not doc.nq as prov-json"),
    ]
    for args, message in cases:
        res = runner.invoke(cli, ["--store", store, *args], input="")
        assert res.exit_code == 2 and message in res.stderr, (args, res.output)
    res = runner.invoke(cli, ["--store", store, "import", "--bulk", str(nq)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert str(nq) in res.stderr and "does not parse" in res.stderr
    assert "part of the file, before or after the error, may already be stored" in res.stderr


def test_bulk_import_says_truly_what_a_syntax_error_leaves_stored(runner, tmp_path, monkeypatch):
    """A window with a syntax error stores nothing, statements before the error
    included, and a window after it may already be loaded by the other worker: the
    help and the error may not promise 'the statements before it'."""
    from provgraph import embedded as embedded_mod
    from provgraph.store import EmbeddedStore

    monkeypatch.setattr(embedded_mod, "_BULK_WINDOW_BYTES", 200)
    good = "".join(f"<urn:x:s{i}> <urn:x:p> <urn:x:o> .\n" for i in range(40))
    nt = tmp_path / "doc.nt"
    nt.write_text("<urn:x:a> <urn:x:p> <urn:x:b> .\n<urn:x:a> <urn:x:p> \n" + good)
    path = str(tmp_path / "s")
    res = runner.invoke(cli, ["--store", path, "import", "--bulk", str(nt)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    s = EmbeddedStore(path)
    try:
        stored = {str(q[0]) for q in s.quads()}
    finally:
        s.close()
    assert "urn:x:a" not in stored  # the statement before the error is not stored
    assert "statements before the error may already be stored" not in res.stderr
    assert "part of the file, before or after the error, may already be stored" in res.stderr
    helptext = runner.invoke(cli, ["import", "--help"]).output
    assert "leaves the statements before it stored" not in " ".join(helptext.split())
    assert "blank node" in " ".join(helptext.split())  # such files are not streamed


def test_json_rows_are_the_text_json_dumps_writes():
    """write_rows reuses one C encoder for all rows (issue 16); the text must be what
    json.dumps(row, ensure_ascii=False, default=str) writes, one object per line."""
    import datetime as dt
    import io
    import json

    from provgraph.output import write_rows

    rows = [{"a": "é \" \\ \n \u2028 😀", "b": None, "c": True, "d": 1.5, "e": 10**20,
             "f": float("nan"), "g": dt.date(2026, 1, 2), "h": [1, {"x": "y"}]},
            {"a": "", "b": 0, "c": False, "d": -0.0, "e": -1, "f": 1e300, "g": "t", "h": {}}]
    for fmt, head, sep, tail in (("json", "[", ",\n ", "]\n"), ("nl", "", "\n", "\n")):
        out = io.StringIO()
        assert write_rows(rows, list(rows[0]), fmt=fmt, out=out, plain_values=True) == 2
        want = sep.join(json.dumps(r, ensure_ascii=False, default=str) for r in rows)
        assert out.getvalue() == head + want + tail


def test_an_unknown_run_points_to_the_list_of_runs(runner, tmp_path):
    # a new user's run (issue 17): 'delete-run' or 'coverage --run' with a mistyped run IRI
    # suggested 'provgraph query claims', which lists claims, not runs
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    store = str(tmp_path / "store")
    assert runner.invoke(cli, ["--store", store, "record", str(log)]).exit_code == 0
    missing = pipeline.RUN + "-typo"
    for args in (["delete-run", missing, "--yes"], ["coverage", "--run", missing]):
        res = runner.invoke(cli, ["--store", store, *args])
        assert res.exit_code == 2, (args, res.output)
        assert res.stderr == (f"Error: run <{missing}> is not in the store; check the IRI "
                              "(for example with 'provgraph runs')\n"), args


@pytest.mark.parametrize("args", [["record"], ["import", "--format", "bedrock"],
                                  ["import", "--format", "otlp"]])
def test_an_unterminated_json_string_is_reported_without_a_doubled_at(runner, tmp_path, args):
    # Python says "Unterminated string starting at"; provgraph follows it with its own
    # "at column N", which gave "starting at at column 9" (found by the new-user run, issue 17)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": "no end\n', encoding="utf-8")
    res = runner.invoke(cli, ["--store", str(tmp_path / "s"), *args, str(bad)])
    assert res.exit_code == 2, res.output
    assert "at at" not in res.stderr, res.stderr
    if args[0] == "record" or "otlp" in args:  # bedrock: not its format, said otherwise
        assert "Unterminated string starting at column" in res.stderr, res.stderr


EXAMPLE_LOG = Path(__file__).resolve().parents[1] / "examples" / "events.jsonl"
EXAMPLE_RUN = "urn:uuid:0195e3a0-6f00-7000-8000-0000000000a1"
_OWN = ("reserves for itself (reserved: urn:provgraph:graph:ingestion, "
        "urn:provgraph:graph:ontology, urn:provgraph:graph:removals), not a run: 'provgraph runs' "
        "would not list a run recorded there, nor 'delete-run' remove it; give the run another "
        "IRI (a urn:uuid:, say), or leave it out to mint one; nothing from this file was stored\n")


def _example_log(tmp_path, name, change):
    """examples/events.jsonl with ``change(line number, event)`` applied to each event."""
    out = []
    for n, line in enumerate(EXAMPLE_LOG.read_text(encoding="utf-8").splitlines(), start=1):
        ev = json.loads(line)
        change(n, ev)
        out.append(json.dumps(ev))
    path = tmp_path / name
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def _nquads(store_dir):
    from provgraph.store import EmbeddedStore

    s = EmbeddedStore(store_dir, read_only=True)
    try:
        return s.canonical_nquads()
    finally:
        s.close()


@pytest.mark.parametrize("graph", ["urn:provgraph:graph:ontology", "urn:provgraph:graph:ingestion",
                                   "urn:provgraph:graph:removals"])
def test_record_refuses_a_run_in_one_of_provgraphs_own_graphs(runner, tmp_path, graph):
    """A run recorded into the ontology graph was stored (217 statements), left out of
    'runs', 'export --all' and 'validate'; into the ingestion graph, then not deletable."""
    log = _example_log(tmp_path, "own.jsonl", lambda n, ev: ev.update(iri=graph) if n == 1 else None)
    store = str(tmp_path / "store")
    res = runner.invoke(cli, ["--store", store, "record", str(log)])
    assert res.exit_code == 2
    assert res.stderr == f"Error: {log}:1 field 'iri': {graph} is a graph provgraph {_OWN}"
    assert not (tmp_path / "store").exists()  # refused before a store was made
    # into a store that holds a run: refused alike, the store unchanged
    assert runner.invoke(cli, ["--store", store, "record", str(EXAMPLE_LOG)]).exit_code == 0
    before = _nquads(store)
    res = runner.invoke(cli, ["--store", store, "record", str(log)])
    assert res.exit_code == 2 and res.stderr.endswith(_OWN)
    assert _nquads(store) == before


def test_record_refuses_claims_and_answers_of_another_run(runner, tmp_path):
    """The example log with only its run IRI changed was stored: claims c1 and c2 and the
    answer's generation then had two pg:run values (3 violations in 'validate')."""
    store = str(tmp_path / "store")
    assert runner.invoke(cli, ["--store", store, "record", str(EXAMPLE_LOG)]).exit_code == 0
    before = _nquads(store)
    other = "urn:uuid:0195e3a0-6f00-7000-8000-0000000000a9"

    def rerun(n, ev):
        if n == 1:
            ev["iri"] = other

    tail = (f", and a resource belongs to one run: record it in run <{EXAMPLE_RUN}>, or give it "
            f"an IRI of its own in run <{other}> (or none, to mint one); nothing from this file "
            "was stored\n")
    log = _example_log(tmp_path, "rerun.jsonl", rerun)
    res = runner.invoke(cli, ["--store", store, "record", str(log)])
    assert res.exit_code == 2
    assert res.stderr == (
        f"Error: {log}:8: answer <urn:uuid:0195e3a0-6f00-7000-8000-0000000000a2> (its generation "
        "<urn:provgraph:generation:db6c2f876f39c42b3834144bc0a671f6>) already belongs to run "
        f"<{EXAMPLE_RUN}> (its pg:run){tail}")
    assert _nquads(store) == before

    def fresh_answer(n, ev):  # the answer gets a new IRI: the claims are the first re-use
        rerun(n, ev)
        if ev["event"] == "generation":
            del ev["iri"]

    log = _example_log(tmp_path, "claims.jsonl", fresh_answer)
    res = runner.invoke(cli, ["--store", store, "record", str(log)])
    assert res.exit_code == 2
    assert res.stderr == (f"Error: {log}:9: claim <urn:uuid:0195e3a0-6f00-7000-8000-0000000000c1> "
                          f"already belongs to run <{EXAMPLE_RUN}> (its pg:run){tail}")
    assert _nquads(store) == before
    # the same log again continues its own run: accepted
    assert runner.invoke(cli, ["--store", store, "record", str(EXAMPLE_LOG)]).exit_code == 0
    res = runner.invoke(cli, ["--store", store, "validate"])
    assert res.exit_code == 0 and "0 violation(s)" in res.output


def test_bulk_import_refuses_a_statement_in_the_ontology_graph_and_stores_nothing(runner, tmp_path):
    """import --bulk stored what the same file without --bulk refuses; then (break test)
    an escaped graph name followed by a comment holding an IRI, or a statement ended by a
    carriage return, still got through: the check looked for the escape in the line's last
    '<' only."""
    good = "<urn:x:a> <http://www.w3.org/ns/prov#wasDerivedFrom> <urn:x:b> <urn:x:g> .\n"
    message = ("the document writes into <urn:provgraph:graph:ontology>, the graph of provgraph's "
               "bundled ontology and shapes, which only 'provgraph init' fills; rename that "
               "bundle/graph. Nothing was stored\n")
    store = str(tmp_path / "store")
    cases = [("plain.nq", "<urn:provgraph:graph:ontology> .", 2),
             # the same IRI written with an N-Quads escape is the same graph
             ("escaped.nq", "<urn:provgraph:graph:\\u006Fntology> .", 3),
             ("comment.nq", "<urn:provgraph:graph:ontolog\\u0079> . # was <urn:x:g>", 2),
             ("long-escape.nq", "<urn:provgraph:graph:ontolog\\U00000079> .#<", 1),
             # a carriage return ends an N-Quads line too
             ("cr.nq", "<urn:provgraph:graph:ontolog\\u0079> .\r" + good.rstrip("\n"), 2)]
    for name, tail, line in cases:
        nq = tmp_path / name
        nq.write_bytes((good * (line - 1)
                        + f"<urn:x:a> <http://www.w3.org/ns/prov#wasDerivedFrom> <urn:x:c> {tail}\n"
                        + good).encode("utf-8"))
        res = runner.invoke(cli, ["--store", store, "import", "--bulk", str(nq)])
        assert res.exit_code == 2, (name, res.output)
        assert res.stderr == f"Error: {nq}:{line}: {message}", name
        assert not (tmp_path / "store").exists()
        res = runner.invoke(cli, ["--store", store, "import", str(nq)])  # the atomic import agrees
        assert res.exit_code == 2 and res.stderr == f"Error: {nq}: {message}", name
    # the ontology graph's IRI as a subject or object is not a statement in that graph
    nq = tmp_path / "mentions.nq"
    nq.write_text("<urn:provgraph:graph:ontology> <http://www.w3.org/ns/prov#wasDerivedFrom> "
                  "<urn:provgraph:graph:ontology> <urn:x:g> .\n" + good, encoding="utf-8")
    res = runner.invoke(cli, ["--store", store, "import", "--bulk", str(nq)])
    assert res.exit_code == 0, res.output
    assert "2 statements added (2 in the store)" in res.stderr


_ESCAPED_ONTOLOGY = "<urn:provgraph:graph:ontolog\\u0079>"  # urn:provgraph:graph:ontology


@pytest.mark.parametrize("name, text, bulk", [
    ("doc.nq", f"<urn:x:a> <http://www.w3.org/ns/prov#wasDerivedFrom> <urn:x:b> "
               f"{_ESCAPED_ONTOLOGY} . # from <urn:x:old>\n", True),
    ("doc.nq", f"<urn:x:a> <http://www.w3.org/ns/prov#wasDerivedFrom> <urn:x:b> "
               f"{_ESCAPED_ONTOLOGY} . # from <urn:x:old>\n", False),
    ("doc.trig", "@prefix prov: <http://www.w3.org/ns/prov#> .\n# graph <urn:x:g>\n"
                 f"{_ESCAPED_ONTOLOGY} {{ <urn:x:a> prov:wasDerivedFrom <urn:x:b> }} # <urn:x:c>\n",
     False),
    ("doc.trig", "@prefix prov: <http://www.w3.org/ns/prov#> .\n"
                 "<urn:x:d> prov:wasDerivedFrom <urn:x:e> .  # default graph first\n"
                 f"GRAPH {_ESCAPED_ONTOLOGY} {{ <urn:x:a> prov:wasDerivedFrom <urn:x:b> }}\n",
     False),
])
def test_an_escaped_ontology_graph_name_is_refused_and_the_store_is_unchanged(
        runner, tmp_path, name, text, bulk):
    """N-Quads and TriG name the ontology graph with an escape and a comment holding an
    IRI after it: every import refuses the file and leaves a store that holds data as it was
    (a TriG file under --bulk is a usage error: --bulk reads N-Quads and N-Triples only)."""
    store = str(tmp_path / "store")
    seed = tmp_path / "seed.nq"
    seed.write_text("<urn:x:s> <http://www.w3.org/ns/prov#wasDerivedFrom> <urn:x:t> <urn:x:g> .\n",
                    encoding="utf-8")
    assert runner.invoke(cli, ["--store", store, "import", str(seed)]).exit_code == 0
    before = _nquads(store)
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    res = runner.invoke(cli, ["--store", store, "import", *(["--bulk"] if bulk else []), str(doc)])
    assert res.exit_code == 2, res.output
    where = f"{doc}:1" if bulk else str(doc)
    assert res.stderr == (f"Error: {where}: the document writes into <urn:provgraph:graph:ontology>, "
                          "the graph of provgraph's bundled ontology and shapes, which only "
                          "'provgraph init' fills; rename that bundle/graph. Nothing was stored\n")
    assert _nquads(store) == before
    if name.endswith(".trig"):
        res = runner.invoke(cli, ["--store", store, "import", "--bulk", str(doc)])
        assert res.exit_code == 2 and "--bulk streams N-Quads (.nq) or N-Triples (.nt) only" in res.stderr
        assert _nquads(store) == before


def test_bulk_import_refusal_as_a_process(tmp_path):
    """The break test's file, given to the real command: exit 2, the message on standard
    error, and no store made."""
    import os
    import subprocess
    import sys

    nq = tmp_path / "backfill.nq"
    nq.write_text("<urn:x:a> <http://www.w3.org/ns/prov#wasDerivedFrom> <urn:x:b> "
                  f"{_ESCAPED_ONTOLOGY} . # see <urn:x:note>\n", encoding="utf-8")
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    got = subprocess.run([sys.executable, "-m", "provgraph", "--store", str(tmp_path / "store"),
                          "import", "--bulk", str(nq)], capture_output=True, text=True, env=env,
                         stdin=subprocess.DEVNULL, timeout=120)
    assert got.returncode == 2, got.stderr
    assert got.stderr.startswith(f"Error: {nq}:1: the document writes into "
                                 "<urn:provgraph:graph:ontology>")
    assert got.stdout == ""
    assert not (tmp_path / "store").exists()
