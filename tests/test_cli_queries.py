"""The query-library commands: the same rows as the Python API, exact output, exit codes."""

from __future__ import annotations

import csv
import io
import json

import pytest

from provgraph import EmbeddedStore, Recorder, analytics
from provgraph.cli import cli

from . import pipeline, query_scenarios as sc

EVIL_IRI = "x> } ; DROP ALL ; <y"


@pytest.fixture(scope="module")
def disk():
    """An on-disk store with the fixture pipeline and the parser upgrade (run 2); the
    expected rows are computed through the Python API before the CLI opens it."""
    import tempfile

    tmp = tempfile.TemporaryDirectory(prefix="provgraph-cli-")
    path = f"{tmp.name}/store"
    s = EmbeddedStore(path)
    rec = Recorder(s, label="fixture", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    r["upgrade"] = sc.parser_upgrade(s, r)
    api = {
        "stale": analytics.rows_as_dicts(analytics.stale(s)),
        "stale-run2": analytics.rows_as_dicts(analytics.stale(s, run=sc.RUN2)),
        "impact": analytics.rows_as_dicts(analytics.impact(s, "plain-utf8", version="2.0")),
        "unsupported": analytics.rows_as_dicts(analytics.unsupported(s)),
        "generated-evidence": analytics.rows_as_dicts(analytics.generated_evidence(s)),
        "coverage": analytics.rows_as_dicts(analytics.coverage(s)),
        "exposure": analytics.rows_as_dicts(analytics.exposure(s)),
        "lineage": analytics.rows_as_dicts(analytics.lineage(s, r["claim_quote"].iri)),
        "len": len(s),
    }
    s.close()
    yield path, r, api
    tmp.cleanup()


def run(runner, path, *args, code=0):
    result = runner.invoke(cli, ["--store", path, *args], catch_exceptions=code != 0)
    assert result.exit_code == code, (result.output, result.exception)
    return result


@pytest.mark.parametrize("command, args, key", [
    ("stale", [], "stale"),
    ("stale", ["--run", sc.RUN2], "stale-run2"),
    ("impact", ["--agent", "plain-utf8", "--version", "2.0"], "impact"),
    ("unsupported", [], "unsupported"),
    ("generated-evidence", [], "generated-evidence"),
    ("coverage", [], "coverage"),
    ("exposure", [], "exposure"),
])
def test_cli_json_rows_equal_the_python_api(runner, disk, command, args, key):
    path, _, api = disk
    out = run(runner, path, command, *args, "--json").output
    assert json.loads(out) == api[key]
    assert api[key], "the scenario has rows for every command"
    # the default format is the same JSON, one object per line
    assert run(runner, path, command, *args).output == out
    assert len(out.splitlines()) == len(api[key])


def test_cli_csv_and_table(runner, disk):
    path, r, api = disk
    out = run(runner, path, "impact", "--agent", "plain-utf8", "--version", "2.0", "--csv").output
    rows = list(csv.reader(io.StringIO(out)))
    assert rows == [["run", "claim", "agent", "agent_name", "agent_version"]] + [
        [d["run"], d["claim"], d["agent"], "plain-utf8", "2.0"] for d in api["impact"]]
    assert rows[1][1] == r["upgrade"]["x"].iri and rows[2][1] == r["upgrade"]["z"].iri
    table = run(runner, path, "coverage", "--run", pipeline.RUN, "--table").output
    assert "coverage" in table.splitlines()[0]
    assert "verified_quotations" in table and "quoting_claims" in table
    csv_out = run(runner, path, "stale", "--csv", "--no-headers").output
    stale_rows = list(csv.reader(io.StringIO(csv_out)))
    assert len(stale_rows) == len(api["stale"]) and stale_rows[0][0] != "run"
    assert [row[6] for row in stale_rows] == ["False", "True", "True"]


@pytest.mark.parametrize("command, args", [
    ("stale", []),
    ("impact", ["--agent", "plain-utf8", "--version", "2.0"]),
    ("unsupported", []),
    ("query", ["stale-claims"]),  # a named query as a CI check
])
def test_fail_on_found_exits_1_when_there_are_rows(runner, disk, command, args):
    path, _, _ = disk
    result = run(runner, path, command, *args, "--fail-on-found", code=1)
    assert json.loads(result.stdout)  # the rows are still printed on stdout
    assert "row(s) found" in result.stderr


def test_fail_on_found_exits_0_without_rows(runner, disk):
    path, _, _ = disk
    result = run(runner, path, "impact", "--agent", "plain-utf8", "--version", "2.0",
                 "--run", pipeline.RUN, "--fail-on-found")
    assert result.output == "[]\n"
    result = run(runner, path, "query", "unadjudicated-disagreements", "--fail-on-found")
    assert result.output == "[]\n"


def test_lineage_tree(runner, disk):
    path, r, _ = disk
    out = run(runner, path, "lineage", r["cit1"].iri, "--depth", "3").output
    ext = r["ext_policy"]
    rows = analytics_rows(path, r["cit1"].iri)
    chunking = [x["node"] for x in rows if x["kind"] == "Chunking"][0]
    chunker = [x["node"] for x in rows if x["kind"] == "Chunker"][0]
    assert out == (
        f"Citation {r['cit1'].iri}  target {r['c_interval'].iri}\n"
        f"└── pg:target Chunk {r['c_interval'].iri}  code points [21, 63)\n"
        f"    ├── prov:wasDerivedFrom ExtractedText {ext.text_iri}  sha256:{ext.text_sha256}\n"
        f"    │   ├── prov:wasDerivedFrom SourceSnapshot {r['policy_v1'].iri}  "
        f"sha256:{r['policy_v1'].sha256} observed 2026-03-01T09:00:00Z\n"
        f"    │   └── prov:wasGeneratedBy Extraction {ext.iri}  by plain-utf8 1.0\n"
        f"    └── prov:wasGeneratedBy Chunking {chunking}  by lines 1.0\n"
        f"        └── prov:wasAssociatedWith Chunker {chunker}  lines 1.0\n"
    )


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_lineage_tree_off_a_terminal_is_rich_drawing_unwrapped(disk, monkeypatch, encoding):
    # issue 16: off a terminal the tree is written without rich; on one, rich draws it.
    # Both give the same lines (rich's ASCII guides where the stream is not UTF-8), except
    # that rich wraps at the terminal's width and the plain text never wraps.
    import re

    from provgraph.output import write_lineage_tree

    path, r, _ = disk
    s = EmbeddedStore(path)
    try:
        rows = analytics.lineage(s, r["claim_quote"].iri)
    finally:
        s.close()
    import dataclasses

    rows = [rows[0], dataclasses.replace(rows[1], label=("x " * 400).strip()), *rows[2:]]

    class Stream(io.StringIO):
        def __init__(self, tty: bool) -> None:
            super().__init__()
            self.tty = tty

        @property
        def encoding(self) -> str:  # type: ignore[override]
            return encoding

        def isatty(self) -> bool:
            return self.tty

    plain, drawn = Stream(False), Stream(True)
    write_lineage_tree(rows, plain)
    monkeypatch.setenv("COLUMNS", "100000")
    write_lineage_tree(rows, drawn)
    unstyled = re.sub(r"\x1b\[[0-9;]*m", "", drawn.getvalue())
    assert plain.getvalue() == unstyled
    assert len(plain.getvalue().splitlines()) == len(rows)
    assert ("x " * 399).strip() in plain.getvalue()
    assert ("└── " if encoding == "utf-8" else "`-- ") in plain.getvalue()


def analytics_rows(path, iri):
    s = EmbeddedStore(path)
    try:
        return analytics.rows_as_dicts(analytics.lineage(s, iri))
    finally:
        s.close()


def test_lineage_json_equals_the_python_api_and_dot_parses(runner, disk):
    path, r, api = disk
    out = run(runner, path, "lineage", r["claim_quote"].iri, "--format", "json").output
    assert json.loads(out) == api["lineage"]
    dot = run(runner, path, "lineage", r["claim_quote"].iri, "--format", "dot", "--depth", "1").output
    assert dot.startswith('digraph "lineage" {')
    assert f'"{r["claim_quote"].iri}" -> "{r["cit1"].iri}" [label="pg:citation"];' in dot
    # depth 1: the answer, the citation and the generation, and every edge among them
    # (the answer was also generated by the generation)
    gen = [x["node"] for x in api["lineage"] if x["kind"] == "Generation"][0]
    assert f'"{r["answer"].iri}" -> "{gen}" [label="prov:wasGeneratedBy"];' in dot
    assert dot.count(" -> ") == 4


def test_lineage_takes_the_shared_output_options(runner, disk):
    path, r, api = disk
    iri = r["claim_quote"].iri
    columns = list(analytics.LineageRow.columns())
    rows = api["lineage"]
    assert json.loads(run(runner, path, "lineage", iri, "--json").output) == rows
    assert run(runner, path, "lineage", iri, "--json").output == \
        run(runner, path, "lineage", iri, "--format", "json").output
    nl = run(runner, path, "lineage", iri, "--nl").output
    assert [json.loads(x) for x in nl.splitlines()] == rows
    text = run(runner, path, "lineage", iri, "--csv").output
    assert text.splitlines()[0] == ",".join(columns)
    assert list(csv.DictReader(io.StringIO(text))) == [
        {c: "" if x[c] is None else str(x[c]) for c in columns} for x in rows]
    tsv = run(runner, path, "lineage", iri, "--tsv", "--no-headers").output
    assert len(tsv.splitlines()) == len(rows) and tsv.split("\t")[0] == rows[0]["node"]
    table = run(runner, path, "lineage", iri, "-t").output
    assert table.lstrip().startswith("lineage") and "SourceSnapshot" in table
    # the tree stays the default, and --tree names it; --dot is the earlier --format dot
    tree = run(runner, path, "lineage", iri).output
    assert run(runner, path, "lineage", iri, "--tree").output == tree
    assert tree.startswith(f"Claim {iri}")
    assert run(runner, path, "lineage", iri, "--dot", "--depth", "1").output == \
        run(runner, path, "lineage", iri, "--format", "dot", "--depth", "1").output


def test_lineage_format_and_a_different_flag_are_a_usage_error(runner, disk):
    path, r, _ = disk
    result = run(runner, path, "lineage", r["claim_quote"].iri, "--format", "dot", "--json",
                 code=2)
    assert result.stderr.endswith("Error: --format dot and --json exclude each other; give one\n")


def test_unknown_iris_are_errors_not_empty_results(runner, disk):
    path, _, _ = disk
    result = run(runner, path, "lineage", "urn:uuid:01900000-0000-7000-8000-00000000dead", code=2)
    assert result.output.startswith(
        "Error: entity <urn:uuid:01900000-0000-7000-8000-00000000dead> is not in the store")
    for command in (["stale"], ["unsupported"], ["coverage"], ["exposure"], ["generated-evidence"],
                    ["impact", "--agent", "lines"]):
        result = run(runner, path, *command, "--run", "urn:uuid:nope", code=2)
        assert result.output.startswith("Error: run <urn:uuid:nope> is not in the store"), command
    result = run(runner, path, "impact", "--agent", "docutils", code=2)
    assert result.output.startswith("Error: agent 'docutils' is not in the store")


def test_injection_through_cli_parameters_changes_nothing(runner, disk):
    path, _, api = disk
    result = run(runner, path, "lineage", EVIL_IRI, code=2)
    assert "not an absolute IRI" in result.output
    result = run(runner, path, "stale", "--run", EVIL_IRI, code=2)
    assert "not an absolute IRI" in result.output
    result = run(runner, path, "impact", "--agent", 'x" } ; DROP ALL ; #', code=2)
    assert result.output.startswith("Error: agent 'x\" } ; DROP ALL ; #' is not in the store")
    s = EmbeddedStore(path)
    try:
        assert len(s) == api["len"]
    finally:
        s.close()


@pytest.mark.parametrize("command", ["lineage", "stale", "impact", "unsupported",
                                     "generated-evidence", "coverage", "exposure"])
def test_every_command_has_help_with_an_example(runner, command):
    result = runner.invoke(cli, [command, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output and f"provgraph {command}" in result.output


def test_a_query_file_iri_parameter_used_as_predicate_or_graph_is_known(runner, disk, tmp_path):
    """An IRI the store holds as a predicate or graph name is in the store: an empty
    answer is [] (exit 0), not 'is not in the store'; one it holds nowhere is the error."""
    path, _, _ = disk
    rq = tmp_path / "by-predicate.rq"
    rq.write_text("# name: by-predicate\n# summary: subjects linked by ?p to nothing\n"
                  "# params: ?p:iri\n# returns: ?s ?p\n"
                  "SELECT ?s ?p WHERE { ?s ?p <urn:x:nothing-points-here> }\n")
    gq = tmp_path / "in-graph.rq"
    gq.write_text("# name: in-graph\n# summary: things of a type no one has, in ?g\n"
                  "# params: ?g:iri\n# returns: ?s ?g\n"
                  "SELECT ?s ?g WHERE { GRAPH ?g { ?s a <urn:x:no-such-type> } }\n")
    result = run(runner, path, "query", str(rq), "-p", "p=http://www.w3.org/ns/prov#used")
    assert json.loads(result.stdout) == []
    result = run(runner, path, "query", str(gq), "-p", "g=urn:provgraph:graph:ingestion")
    assert json.loads(result.stdout) == []
    result = run(runner, path, "query", str(rq), "-p", "p=urn:x:no-such-predicate", code=2)
    assert result.output.startswith("Error: p <urn:x:no-such-predicate> is not in the store")


def test_region_of_a_text_citation_says_its_source_has_no_page_regions(runner, tmp_path):
    """A citation of a text source has no page region: 'region' names the snapshot and
    its media type and points to lineage, resolve and the ui drawer (it said a table,
    cell or page "located for the citation <chunk> is not in the store")."""
    path = str(tmp_path / "store")
    s = EmbeddedStore(path)
    rec = Recorder(s, label="fixture", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    s.close()
    cit, snap = r["cit1"].iri, r["policy_v1"].iri
    for resolved in (False, True):  # the chunk's snapshot, then the resolver's
        if resolved:
            run(runner, path, "resolve")
        got = run(runner, path, "region", cit, code=2)
        assert got.stdout == ""
        assert got.stderr.startswith(
            f"Error: citation <{cit}> has no page region: it cites a text source, snapshot "
            f"<{snap}> (text/markdown), located by character range, not by page; "
            f"'provgraph lineage {cit}' shows what it cites, 'provgraph resolve --run "
            f"{pipeline.RUN} --citations' its span and outcome, and the citation drawer of "
            f"'provgraph ui' (claim <{r['claim_quote'].iri}>)"), got.stderr
    aid = run(runner, path, "region", r["cit4"].iri, code=2)  # a generated prefix: no snapshot
    assert (f"citation <{r['cit4'].iri}> has no page region: its target <{r['prefix'].iri}> is "
            "no PDF page, table, table cell or retained snapshot") in aid.stderr
    unknown = run(runner, path, "region", "urn:uuid:0190f3c2-0000-7000-8000-000000000000", code=2)
    assert "citation <urn:uuid:0190f3c2-0000-7000-8000-000000000000> is not in the store" in (
        unknown.stderr)
