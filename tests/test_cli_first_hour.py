"""Issue 17, a new user's first hour: the mistakes a user makes at once get a clean
``Error:`` line naming the input and the fix, and the exit status follows the one rule
of docs/cli-reference.md (0 ok or nothing found, 1 found with --fail-on-found, 2 usage or
input error). Each test failed on the code before its fix."""

from __future__ import annotations

import json
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
    assert res.stderr.startswith("Error: cannot write /proc/x.json: No such file or directory; "
                                 "the directory /proc exists but does not take new files")
    assert "does not exist" not in res.stderr
    missing = tmp_path / "no" / "such" / "x.json"
    res = runner.invoke(cli, ["--store", recorded_store, "export", "--claim", CLAIM,
                              "-o", str(missing)])
    assert res.exit_code == 2
    assert f"the directory {missing.parent} does not exist; create it first" in res.stderr


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
