"""Issue 17, a new user's first hour: the mistakes a user makes at once get a clean
``Error:`` line naming the input and the fix, and the exit status follows the one rule
of docs/cli-reference.md (0 ok or nothing found, 1 found with --fail-on-found, 2 usage or
input error). Each test failed on the code before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from provgraph.cli import cli

from . import pipeline


@pytest.fixture(scope="module")
def recorded_store(tmp_path_factory) -> str:
    """A store on disk holding the fixture pipeline's event log, resolved."""
    from click.testing import CliRunner

    root = tmp_path_factory.mktemp("first-hour")
    log = root / "events.jsonl"
    log.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    store = str(root / "store")
    runner = CliRunner()
    for argv in (["record", str(log)], ["resolve"]):
        res = runner.invoke(cli, ["--store", store, *argv], catch_exceptions=False)
        assert res.exit_code == 0, res.output
    return store


CLAIM = pipeline.iri("cl1")


# ------------------------------------------------------------- IRIs of the wrong kind

def test_export_claim_refuses_a_run_iri(runner, recorded_store):
    res = runner.invoke(cli, ["--store", recorded_store, "export", "--claim", pipeline.RUN,
                              "--format", "trig"])
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    assert res.stderr == (
        f"Error: <{pipeline.RUN}> is a run (pg:Run, prov:Bundle, prov:Entity), not a claim or other "
        f"lineage start; export a run with --run {pipeline.RUN}\n")


def test_lineage_refuses_a_run_iri(runner, recorded_store):
    res = runner.invoke(cli, ["--store", recorded_store, "lineage", pipeline.RUN])
    assert res.exit_code == 2, res.output
    assert "is a run (pg:Run, prov:Bundle, prov:Entity), not a claim" in res.stderr


@pytest.mark.parametrize("command", ["coverage", "unsupported", "stale", "exposure",
                                     "generated-evidence", "validate", "resolve"])
def test_run_options_refuse_a_claim_iri(runner, recorded_store, command):
    res = runner.invoke(cli, ["--store", recorded_store, command, "--run", CLAIM])
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    assert res.stderr == (
        f"Error: <{CLAIM}> is a claim (pg:Claim, prov:Entity), not a run; give a run IRI "
        "('provgraph runs' lists them)\n")


def test_export_run_refuses_a_claim_iri(runner, recorded_store):
    res = runner.invoke(cli, ["--store", recorded_store, "export", "--run", CLAIM,
                              "--format", "trig"])
    assert res.exit_code == 2, res.output
    assert "is a claim (pg:Claim, prov:Entity), not a run" in res.stderr


def test_a_run_option_with_an_unknown_iri_is_not_found(runner, recorded_store):
    res = runner.invoke(cli, ["--store", recorded_store, "coverage", "--run", "urn:x:nothing"])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("Error: run <urn:x:nothing> is not in the store")


def test_the_right_kinds_still_work(runner, recorded_store):
    res = runner.invoke(cli, ["--store", recorded_store, "coverage", "--run", pipeline.RUN],
                        catch_exceptions=False)
    assert res.exit_code == 0 and json.loads(res.stdout)[0]["run"] == pipeline.RUN
    res = runner.invoke(cli, ["--store", recorded_store, "export", "--claim", CLAIM, "--format",
                              "trig"], catch_exceptions=False)
    assert res.exit_code == 0 and f"lineage of claim <{CLAIM}>" in res.stdout


# ------------------------------------------------------------- one exit-status rule

def test_impact_fail_on_found_tells_rows_from_an_unknown_agent(runner, recorded_store):
    found = runner.invoke(cli, ["--store", recorded_store, "impact", "--agent", "plain-utf8",
                                "--fail-on-found"])
    assert found.exit_code == 1, found.output
    assert json.loads(found.stdout) and found.stderr == "impact: 3 row(s) found\n"
    unknown = runner.invoke(cli, ["--store", recorded_store, "impact", "--agent", "nosuch",
                                  "--fail-on-found"])
    assert unknown.exit_code == 2, unknown.output
    assert unknown.stdout == ""
    assert unknown.stderr.startswith("Error: agent 'nosuch' is not in the store")
    none = runner.invoke(cli, ["--memory", "stale", "--fail-on-found"])  # nothing found
    assert none.exit_code == 0, none.output
    assert none.stdout == "[]\n"


def test_memory_wins_over_the_store_environment_variable(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("PROVGRAPH_STORE", str(tmp_path / "from-env"))
    res = runner.invoke(cli, ["--memory", "init"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "store ready at :memory:" in res.stderr
    assert not (tmp_path / "from-env").exists()
    monkeypatch.setenv("PROVGRAPH_ENDPOINT", "http://127.0.0.1:9/sparql")  # likewise
    res = runner.invoke(cli, ["--memory", "init"], catch_exceptions=False)
    assert res.exit_code == 0 and "store ready at :memory:" in res.stderr, res.output
    both = runner.invoke(cli, ["--memory", "--store", str(tmp_path / "x"), "init"])
    assert both.exit_code == 2
    assert "--memory and --store PATH exclude each other" in both.stderr


def test_export_to_a_directory_or_an_unwritable_place_says_so(runner, recorded_store, tmp_path):
    res = runner.invoke(cli, ["--store", recorded_store, "export", "--claim", CLAIM,
                              "-o", str(tmp_path)])
    assert res.exit_code == 2, res.output
    assert res.stderr == (f"Error: {tmp_path} is a directory; give the name of a file to write "
                          "(one inside it, for example)\n")
    res = runner.invoke(cli, ["--store", recorded_store, "export", "--claim", CLAIM,
                              "-o", "/proc/x.json"])
    assert res.exit_code == 2, res.output
    # it said "No such file or directory; the directory /proc exists but does not take new
    # files, or choose another file": a missing file, then a fix glued to a fact
    assert res.stderr == ("Error: cannot write /proc/x.json: the directory /proc does not allow "
                          "new files to be created in it; give a path in a directory you can "
                          "write to\n")
    missing = tmp_path / "no" / "such" / "x.json"
    res = runner.invoke(cli, ["--store", recorded_store, "export", "--claim", CLAIM,
                              "-o", str(missing)])
    assert res.exit_code == 2
    assert res.stderr == (f"Error: cannot write {missing}: the directory {missing.parent} does "
                          "not exist; create it first, or give a path in a directory that "
                          "exists\n")
    assert not missing.parent.exists()


def test_export_into_proc_says_so_as_a_process(recorded_store, tmp_path):
    """The same refusal from the real command: exit 2, one plain line, nothing written."""
    import os
    import subprocess
    import sys

    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    got = subprocess.run([sys.executable, "-m", "provgraph", "--store", recorded_store, "export",
                          "--all", "--format", "nquads", "-o", "/proc/provgraph-x.nq"],
                         capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                         timeout=120)
    assert got.returncode == 2, got.stderr
    assert got.stderr == ("Error: cannot write /proc/provgraph-x.nq: the directory /proc does not "
                          "allow new files to be created in it; give a path in a directory you "
                          "can write to\n")
    assert got.stdout == "" and not os.path.exists("/proc/provgraph-x.nq")


def test_a_missing_query_file_is_a_missing_file(runner, recorded_store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(cli, ["--store", recorded_store, "query", "nosuch.rq"])
    assert res.exit_code == 2, res.output
    assert res.stderr == (f"Error: the query file nosuch.rq does not exist (looked for "
                          f"{tmp_path / 'nosuch.rq'}); check the path, or give a query name "
                          "('provgraph queries' lists them)\n")
    res = runner.invoke(cli, ["--store", recorded_store, "query", "lineage-upstrem"])
    assert res.exit_code == 2
    assert 'Did you mean "lineage"' in res.stderr or "Did you mean" in res.stderr


@pytest.mark.parametrize("given", ["notes.txt", "adir", "adir/", "./notes.txt"])
def test_a_query_argument_naming_a_file_or_directory_says_what_it_is(runner, recorded_store,
                                                                      tmp_path, monkeypatch,
                                                                      given):
    # 'query notes.txt' said 'Query "notes.txt" not found', 'query adir/' that the file
    # does not exist, though both are there
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("SELECT * WHERE { ?s ?p ?o }\n")
    (tmp_path / "adir").mkdir()
    res = runner.invoke(cli, ["--store", recorded_store, "query", given])
    if given == "./notes.txt":  # a path with a '/' is read as a query file, whatever its name
        assert res.exit_code == 0, res.output
        return
    assert res.exit_code == 2, res.output
    if given.startswith("adir"):
        assert res.stderr.startswith(f"Error: {given} is a directory, not a query file"), \
            res.stderr
    else:
        assert res.stderr.startswith("Error: notes.txt is a file, but not a query name; give "
                                     "its path as ./notes.txt"), res.stderr
    assert "not found" not in res.stderr and "does not exist" not in res.stderr


def test_a_query_name_runs_even_beside_a_file_or_directory_of_that_name(
        runner, recorded_store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims").mkdir()
    (tmp_path / "runs").write_text("x\n")
    for name in ("claims", "runs"):
        res = runner.invoke(cli, ["--store", recorded_store, "query", name])
        assert res.exit_code == 0, res.output


# ------------------------------------------------------------- record and import

def _statements(path: str) -> int:
    from provgraph.store import EmbeddedStore

    s = EmbeddedStore(path)
    try:
        return len(s)
    finally:
        s.close()


def test_bulk_import_says_how_many_statements_it_added(runner, tmp_path):
    nq = tmp_path / "doc.nq"
    nq.write_text("".join(f"<urn:x:s{i}> <urn:x:p> <urn:x:o> <urn:x:g> .\n" for i in range(50)))
    store = str(tmp_path / "s")
    res = runner.invoke(cli, ["--store", store, "import", "--bulk", str(nq)],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert res.stderr == (f"bulk-loaded {nq} (nquads) into its graphs, without a transaction: "
                          "50 statements added (50 in the store); run 'provgraph validate' to "
                          "check it\n")
    again = runner.invoke(cli, ["--store", store, "import", "--bulk", str(nq)])
    assert "0 statements added (50 in the store)" in again.stderr


def test_ctrl_c_during_a_bulk_import_says_what_was_kept(runner, tmp_path, monkeypatch):
    """Ctrl-C while the workers load: no thread traceback ('ValueError: seek of closed
    file'), no bare 'Aborted!': the windows in flight finish, no new one starts, and the
    error line says how many statements were kept and how to finish."""
    import signal
    import threading

    from provgraph import embedded as embedded_mod

    monkeypatch.setattr(embedded_mod, "_BULK_WINDOW_BYTES", 400)
    nq = tmp_path / "big.nq"
    nq.write_text("".join(f"<urn:x:s{i}> <urn:x:p> <urn:x:o> <urn:x:g> .\n" for i in range(2000)))
    thread_errors: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda a: thread_errors.append(a.exc_value))
    real_window = embedded_mod.read_window
    windows = []

    def window(*args):  # type: ignore[no-untyped-def]
        windows.append(args)
        if len(windows) == 3:  # SIGINT to the main thread, as a terminal's Ctrl-C
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        return real_window(*args)

    monkeypatch.setattr(embedded_mod, "read_window", window)
    store = str(tmp_path / "s")
    res = runner.invoke(cli, ["--store", store, "import", "--bulk", str(nq)])
    monkeypatch.undo()
    code, output, stderr = res.exit_code, res.output, res.stderr
    assert thread_errors == []
    assert code == 130, output
    assert "Aborted!" not in output and "Traceback" not in output
    kept = _statements(store)
    assert 0 < kept < 2000
    assert stderr == (f"Error: interrupted: {kept} statements of {nq} were stored before the "
                          "interrupt (--bulk has no transaction); load the file again to finish "
                          "(a statement already stored is not stored twice)\n")


def test_record_reports_every_bad_line_and_creates_no_store(runner, tmp_path):
    lines = pipeline.events()
    lines[3] = lines[3].replace('"snapshot": "p1"', '"snapshot": 7')
    lines[5] = "{not json"
    lines[7] = lines[7].replace('"event": "aid"', '"event": "aids"')
    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join(lines), encoding="utf-8")
    store = tmp_path / "store"
    res = runner.invoke(cli, ["--store", str(store), "record", str(log)])
    assert res.exit_code == 2, res.output
    errors = res.stderr.splitlines()
    assert errors[0] == f"Error: {log}: 3 bad lines; nothing from this file was stored"
    assert errors[1].startswith(f"  {log}:4 field 'snapshot': 7 is not of type 'string'")
    assert errors[2].startswith(f"  {log}:6: not valid JSON")
    assert errors[3].startswith(f"  {log}:8 field 'event': 'aids' is not one of")
    assert len(errors) == 4
    assert not store.exists()


def test_a_record_that_fails_while_recording_leaves_no_new_store(runner, tmp_path):
    lines = pipeline.events()
    lines[3] = lines[3].replace('"snapshot": "p1"', '"snapshot": "nosuch"')  # valid JSON, bad id
    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join(lines), encoding="utf-8")
    store = tmp_path / "store"
    res = runner.invoke(cli, ["--store", str(store), "record", str(log)])
    assert res.exit_code == 2, res.output
    assert f"{log}:4 field 'snapshot'" in res.stderr
    assert not store.exists()
    # an existing store is kept, unchanged
    assert runner.invoke(cli, ["--store", str(store), "init"]).exit_code == 0
    before = _statements(str(store))
    res = runner.invoke(cli, ["--store", str(store), "record", str(log)])
    assert res.exit_code == 2 and _statements(str(store)) == before


def test_a_turtle_file_with_a_syntax_error_names_the_error(runner, tmp_path):
    bad = tmp_path / "doc.ttl"
    bad.write_text("@prefix prov: <http://www.w3.org/ns/prov#> .\n"
                   "<urn:x:a> a prov:Entity\n<urn:x:b> a prov:Entity .\n")
    res = runner.invoke(cli, ["--memory", "import", str(bad)])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(f"Error: {bad} (turtle, from its extension) does not parse: ")
    assert "line 3" in res.stderr and "cannot tell the format" not in res.stderr


def test_an_event_log_given_to_import_points_to_record(runner, tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    res = runner.invoke(cli, ["--memory", "import", str(log)])
    assert res.exit_code == 2, res.output
    assert res.stderr == (f"Error: {log} is a provgraph event log (JSON Lines with \"event\" "
                          f"fields), not a document to import; record it with 'provgraph record "
                          f"{log}'\n")


def test_a_failed_import_leaves_no_new_store(runner, tmp_path):
    bad = tmp_path / "doc.ttl"
    bad.write_text("<urn:x:a> <urn:x:p> .\n")
    store = tmp_path / "new" / "store"
    res = runner.invoke(cli, ["--store", str(store), "import", str(bad)])
    assert res.exit_code == 2, res.output
    assert not (tmp_path / "new").exists()


# ------------------------------------------------------------- revisions

def test_a_new_snapshot_of_a_known_document_is_a_revision_without_revision_of(runner, tmp_path):
    """The fixture log's second snapshot of policy.md names revision_of; without it the
    snapshot was silently not a revision, and stale found nothing."""
    lines = [line.replace(', "revision_of": "p1"', "") for line in pipeline.events()]
    assert not any('"revision_of"' in line for line in lines)
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = str(tmp_path / "s")
    assert runner.invoke(cli, ["--store", store, "record", str(log)]).exit_code == 0
    explicit = tmp_path / "explicit.jsonl"
    explicit.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    other = str(tmp_path / "o")
    assert runner.invoke(cli, ["--store", other, "record", str(explicit)]).exit_code == 0
    inferred = runner.invoke(cli, ["--store", store, "stale"], catch_exceptions=False)
    given = runner.invoke(cli, ["--store", other, "stale"], catch_exceptions=False)
    assert json.loads(inferred.stdout) and inferred.stdout == given.stdout


def test_a_snapshot_observed_before_the_newest_one_needs_revision_of(store):
    import datetime as dt

    from provgraph import Recorder
    from provgraph.errors import RecordError

    rec = Recorder(store, packages=[])
    t = dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)
    first = rec.snapshot(b"v1", uri="https://example.org/a", media_type="text/plain", observed_at=t)
    second = rec.snapshot(b"v2", uri="https://example.org/a", media_type="text/plain",
                          observed_at=t + dt.timedelta(days=1))
    assert second.revision_of == first.iri
    with pytest.raises(RecordError, match="observed before .* the newest snapshot of "
                                          "https://example.org/a"):
        rec.snapshot(b"v0", uri="https://example.org/a", media_type="text/plain",
                     observed_at=t - dt.timedelta(days=1))
    with rec.batch():  # inside one transaction too
        third = rec.snapshot(b"v3", uri="https://example.org/a", media_type="text/plain",
                             observed_at=t + dt.timedelta(days=2))
        fourth = rec.snapshot(b"v4", uri="https://example.org/a", media_type="text/plain",
                              observed_at=t + dt.timedelta(days=3))
    assert (third.revision_of, fourth.revision_of) == (second.iri, third.iri)


def test_two_snapshots_of_a_new_document_in_one_batch_are_revisions(store):
    import datetime as dt

    from provgraph import Recorder

    rec = Recorder(store, packages=[])
    t = dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)
    with rec.batch():
        a = rec.snapshot(b"v1", uri="https://example.org/b", media_type="text/plain", observed_at=t)
        b = rec.snapshot(b"v2", uri="https://example.org/b", media_type="text/plain",
                         observed_at=t + dt.timedelta(hours=1))
    assert b.revision_of == a.iri


def test_passages_of_one_document_from_a_service_are_not_revisions(runner, tmp_path):
    """The bedrock example's two passages come from one S3 object: two snapshots of that
    document, neither a revision of the other (importers/bedrock.py), so nothing is stale."""
    store = str(tmp_path / "s")
    example = Path(__file__).resolve().parents[1] / "examples" / "bedrock-retrieve-and-generate.json"
    res = runner.invoke(cli, ["--store", store, "import", "--format", "bedrock", str(example)])
    assert res.exit_code == 0, res.output
    stale = runner.invoke(cli, ["--store", store, "stale"], catch_exceptions=False)
    assert stale.stdout == "[]\n"


# ------------------------------------------------------------- what the output says

@pytest.mark.parametrize("argv", [["stale", "--table"], ["coverage", "--table"],
                                  ["unsupported", "--table"], ["lineage", CLAIM, "--table"],
                                  ["resolve", "--citations", "--table"], ["queries"]])
def test_tables_fit_the_terminal_and_keep_iris_on_one_line(runner, recorded_store, argv):
    """Issue 17: --table was 100-200 columns whatever the terminal; at 80 the boxes broke
    and IRIs were folded over lines, so they could not be copied."""
    res = runner.invoke(cli, ["--store", recorded_store, *argv], env={"COLUMNS": "80"},
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines and max(len(ln) for ln in lines) <= 80, "\n".join(lines)
    for ln in lines:  # an IRI is whole or cut in the middle, never continued on the next line
        for text in re.split(r"[\s│┃]+", ln):
            if text.startswith(("urn:", "ni:", "http")):
                assert "…" in text or _WHOLE_IRI.match(text), (text, "\n".join(lines))


_WHOLE_IRI = re.compile(
    r"^(urn:uuid:[0-9a-z-]{36}|ni:///sha-256;[A-Za-z0-9_-]{43}|urn:provgraph:[a-z-]+:[0-9a-f]{32}"
    r"|https?://\S+)$")


def test_wide_tables_show_whole_iris(runner, recorded_store):
    # 120: the narrowest the stale table fits without folding its header span_unchanged
    # (at 100 it is printed as blocks of 'column value' lines)
    narrow = runner.invoke(cli, ["--store", recorded_store, "stale", "--table"],
                           env={"COLUMNS": "120"}, catch_exceptions=False)
    wide = runner.invoke(cli, ["--store", recorded_store, "stale", "--table", "--wide"],
                         env={"COLUMNS": "120"}, catch_exceptions=False)
    assert max(len(ln) for ln in narrow.stdout.splitlines()) <= 120
    assert max(len(ln) for ln in wide.stdout.splitlines()) > 120
    assert pipeline.RUN not in narrow.stdout and "…" in narrow.stdout
    assert pipeline.RUN in wide.stdout and CLAIM in wide.stdout
    assert json.loads(runner.invoke(cli, ["--store", recorded_store, "stale"],
                                    env={"COLUMNS": "80"}).stdout)[0]["run"] == pipeline.RUN


def test_coverage_shares_are_rounded(runner, recorded_store):
    rows = json.loads(runner.invoke(cli, ["--store", recorded_store, "coverage"]).stdout)
    shares = [r["share"] for r in rows if r["share"] is not None]
    assert shares and all(s == round(s, 4) for s in shares)
    assert any(r["count"] == 2 and r["denominator"] == 3 and r["share"] == 0.6667 for r in rows)


def test_unsupported_rows_say_whose_status_it_is(runner, recorded_store):
    rows = json.loads(runner.invoke(cli, ["--store", recorded_store, "unsupported"]).stdout)
    assert rows and all("status" not in r for r in rows)
    assert {(r["claimed_status"], r["reason"]) for r in rows} >= {("unsupported", "no_eligible_citation")}


def test_queries_help_names_its_default(runner):
    helptext = " ".join(runner.invoke(cli, ["queries", "--help"]).output.split())
    assert "JSON array, one object per line (default)" not in helptext
    assert "(default)" in helptext.split("-t, --table", 1)[1].split("--wide", 1)[0]


def test_lineage_of_an_agent_without_a_name_has_no_dangling_by(store):
    from provgraph import analytics
    from provgraph.terms import IRI
    from provgraph.vocab import PROV, RDF

    a, act, e = IRI("urn:x:a"), IRI("urn:x:act"), IRI("urn:x:e")
    store.add([(e, RDF.type, PROV.Entity, None), (e, PROV.wasGeneratedBy, act, None),
               (act, RDF.type, PROV.Activity, None), (act, PROV.wasAssociatedWith, a, None),
               (a, RDF.type, PROV.Agent, None)])
    labels = {str(r.node): r.label for r in analytics.lineage(store, "urn:x:e")}
    assert labels["urn:x:act"] == "by <urn:x:a>"
    assert not any(lb.endswith("by") or lb.endswith("by ") for lb in labels.values())


# ------------------------------------------------------------- new commands

def _fresh_recorded(runner, tmp_path) -> str:
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    store = str(tmp_path / "store")
    assert runner.invoke(cli, ["--store", store, "record", str(log)]).exit_code == 0
    return store


def test_runs_lists_each_run_with_its_size_and_time(runner, recorded_store):
    from provgraph.store import EmbeddedStore

    res = runner.invoke(cli, ["--store", recorded_store, "runs"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)
    s = EmbeddedStore(recorded_store, read_only=True)
    try:
        in_graph = sum(1 for _ in s.quads(graph=pipeline.RUN))
    finally:
        s.close()
    assert row == {"run": pipeline.RUN, "kind": "run", "label": "fixture",
                   "started": pipeline.t(0).isoformat(), "statements": in_graph, "claims": 3}


def test_inline_sparql_runs_like_a_query_file(runner, recorded_store):
    text = ("PREFIX pg: <https://w3id.org/provgraph/ns#> "
            "SELECT ?claim ?kind WHERE { ?claim pg:claimKind ?kind } ORDER BY ?claim")
    res = runner.invoke(cli, ["--store", recorded_store, "query", text, "--csv"],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == ["claim,kind", f"{pipeline.iri('cl1')},quotation",
                                       f"{pipeline.iri('cl2')},paraphrase",
                                       f"{pipeline.iri('cl3')},paraphrase"]
    stdin = runner.invoke(cli, ["--store", recorded_store, "query", "-", "--csv"], input=text)
    assert stdin.exit_code == 0 and stdin.stdout == res.stdout
    service = runner.invoke(cli, ["--store", recorded_store, "query",
                                  "SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }"])
    assert service.exit_code == 2 and "SERVICE" in service.stderr
    bad = runner.invoke(cli, ["--store", recorded_store, "query", "SELECT ?x WHERE { ?x"])
    assert bad.exit_code == 2 and "SPARQL syntax error in <command line>" in bad.stderr


def test_delete_run_asks_removes_the_graph_and_records_the_removal(runner, tmp_path):
    store = _fresh_recorded(runner, tmp_path)
    before = json.loads(runner.invoke(cli, ["--store", store, "runs"]).stdout)[0]
    no = runner.invoke(cli, ["--store", store, "delete-run", pipeline.RUN], input="n\n")
    assert no.exit_code == 2, no.output
    assert f"Delete run <{pipeline.RUN}> ('fixture', started 2026-03-01T09:00:00+00:00): " \
           f"{before['statements']} statements and 3 claims" in no.output
    assert "Error: not deleted" in no.stderr
    assert json.loads(runner.invoke(cli, ["--store", store, "runs"]).stdout) == [before]
    eof = runner.invoke(cli, ["--store", store, "delete-run", pipeline.RUN], input="")
    assert eof.exit_code == 2 and "pass --yes" in eof.stderr
    yes = runner.invoke(cli, ["--store", store, "delete-run", pipeline.RUN, "--reason",
                              "recorded with the wrong parser"], input="y\n")
    assert yes.exit_code == 0, yes.output
    assert f"deleted run <{pipeline.RUN}>: {before['statements']} statements removed" in yes.stderr
    assert json.loads(runner.invoke(cli, ["--store", store, "runs"]).stdout) == []
    [gone] = json.loads(runner.invoke(cli, ["--store", store, "runs", "--removed"]).stdout)
    assert (gone["run"], gone["label"], gone["statements"], gone["reason"]) == (
        pipeline.RUN, "fixture", before["statements"], "recorded with the wrong parser")
    assert len(gone["sha256"]) == 64
    after = runner.invoke(cli, ["--store", store, "coverage", "--run", pipeline.RUN])
    assert after.exit_code == 2
    assert after.stderr.startswith(f"Error: run <{pipeline.RUN}> was deleted at {gone['removed']}")
    # the snapshots, shared by runs, stay; the deletion is PROV: an invalidation
    snaps = runner.invoke(cli, ["--store", store, "query",
                                "SELECT ?s WHERE { ?s a <https://w3id.org/provgraph/ns#SourceSnapshot> }"])
    assert len(json.loads(snaps.stdout)) == 3
    inv = runner.invoke(cli, ["--store", store, "query",
                              "SELECT ?a WHERE { GRAPH <urn:provgraph:graph:removals> { <"
                              + pipeline.RUN + "> <http://www.w3.org/ns/prov#wasInvalidatedBy> ?a } }"])
    assert json.loads(inv.stdout)[0]["a"] == gone["removal"]
    # the same event log can be recorded again, as a whole run
    log = tmp_path / "events.jsonl"
    assert runner.invoke(cli, ["--store", store, "record", str(log)]).exit_code == 0
    assert json.loads(runner.invoke(cli, ["--store", store, "runs"]).stdout) == [before]


def test_validate_passes_after_delete_run_in_the_readmes_order(runner, tmp_path):
    # the README's order: record examples/events.jsonl, delete its run, validate. The removal
    # record kept the run 'a pg:Run' without the start time and package versions the
    # RunShape requires (they went with the run's graph): two SHACL violations, exit 1
    events = Path(__file__).resolve().parents[1] / "examples" / "events.jsonl"
    run = json.loads(events.read_text(encoding="utf-8").splitlines()[0])["iri"]
    store = str(tmp_path / "store")
    assert runner.invoke(cli, ["--store", store, "record", str(events)]).exit_code == 0
    gone = runner.invoke(cli, ["--store", store, "delete-run", run, "--yes"])
    assert gone.exit_code == 0, gone.output
    res = runner.invoke(cli, ["--store", store, "validate"])
    assert res.exit_code == 0, res.output
    assert "0 violation(s)" in res.stderr
    # the run is kept there as what it is now: a removed run (a bundle), no longer a pg:Run
    types = runner.invoke(cli, ["--store", store, "query",
                                "SELECT ?t WHERE { GRAPH <urn:provgraph:graph:removals> { <"
                                + run + "> a ?t } }"])
    assert sorted(r["t"] for r in json.loads(types.stdout)) == [
        "http://www.w3.org/ns/prov#Bundle", "http://www.w3.org/ns/prov#Entity",
        "https://w3id.org/provgraph/ns#RemovedRun"]
    # every reader of the removals graph still finds it
    [row] = json.loads(runner.invoke(cli, ["--store", store, "runs", "--removed"]).stdout)
    assert (row["run"], row["label"], row["statements"]) == (run, "faq-bot", 123)
    assert json.loads(runner.invoke(cli, ["--store", store, "runs"]).stdout) == []
    again = runner.invoke(cli, ["--store", store, "lineage", run])
    assert again.exit_code == 2 and "export a run with --run" in again.stderr
    assert runner.invoke(cli, ["--store", store, "verify"]).exit_code == 0


def test_delete_run_refuses_what_is_not_a_run(runner, tmp_path):
    store = _fresh_recorded(runner, tmp_path)
    res = runner.invoke(cli, ["--store", store, "delete-run", "urn:provgraph:graph:ingestion",
                              "--yes"])
    assert res.exit_code == 2 and "provgraph's own graphs" in res.stderr
    res = runner.invoke(cli, ["--store", store, "delete-run", pipeline.iri("cl1"), "--yes"])
    assert res.exit_code == 2 and "is a claim" in res.stderr


def test_shell_completion(runner, tmp_path):
    import os
    import subprocess
    import sys

    res = runner.invoke(cli, ["completion", "bash"], catch_exceptions=False)
    assert res.exit_code == 0 and "_PROVGRAPH_COMPLETE=bash_complete" in res.stdout
    exe = Path(sys.executable).with_name("provgraph")
    env = {**os.environ, "_PROVGRAPH_COMPLETE": "bash_complete", "COMP_WORDS": "provgraph st",
           "COMP_CWORD": "1"}
    done = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=60)
    assert "plain,stale" in done.stdout.splitlines()
    env.update(COMP_WORDS="provgraph query lin", COMP_CWORD="2")
    done = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=60)
    assert "plain,lineage" in done.stdout.splitlines()


def test_copying_a_store_as_the_readme_says_keeps_stale_working(runner, recorded_store,
                                                                 tmp_path):
    # the README's recipe (export --all trig, import) left the originals behind: 'stale'
    # on the copy failed with "retained original ... is missing"; it now says to copy them
    import shutil
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    recipe = readme[readme.index("To copy a store"):][:500]
    assert "cp -r\nOLD/originals NEW/" in recipe or "cp -r OLD/originals NEW/" in recipe, recipe
    trig, copy = tmp_path / "store.trig", tmp_path / "copy"
    assert runner.invoke(cli, ["--store", recorded_store, "export", "--all", "--format", "trig",
                               "-o", str(trig)]).exit_code == 0
    assert runner.invoke(cli, ["--store", str(copy), "import", str(trig)]).exit_code == 0
    res = runner.invoke(cli, ["--store", str(copy), "stale", "--csv"])
    assert res.exit_code == 2 and "is missing from" in res.stderr, res.output
    shutil.copytree(Path(recorded_store) / "originals", copy / "originals", dirs_exist_ok=True)
    res = runner.invoke(cli, ["--store", str(copy), "stale", "--csv"])
    assert res.exit_code == 0, res.output
    assert res.stdout == runner.invoke(cli, ["--store", recorded_store, "stale", "--csv"]).stdout
