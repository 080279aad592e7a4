"""CLI: ``provgraph resolve`` and the store-free ``provgraph check-quote``."""

from __future__ import annotations

import json

import pytest

from provgraph.cli import cli

from . import pipeline

SOURCE = "\ufeffThe inspection interval is not specified.\r\nCaf\u00e9 \U0001F600 menu.\r\n"


@pytest.fixture
def source_file(tmp_path):
    path = tmp_path / "policy.txt"
    path.write_bytes(SOURCE.encode())
    return path


def _check(runner, store_dir, *args):
    return runner.invoke(cli, ["--store", str(store_dir), "check-quote", *map(str, args)])


def test_check_quote_match_prints_one_json_object_and_exits_0(runner, source_file, tmp_path):
    store_dir = tmp_path / "never-created"
    result = _check(runner, store_dir, source_file, "--quote", "interval is not")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out == {
        "outcome": "quote_match", "byte_start": 18, "byte_end": 33, "codepoint_start": 15,
        "codepoint_end": 30, "policy": "exact", "policy_version": "1",
        "reason": "the quote occurs once, at code points [15, 30)",
        "snapshot": out["snapshot"], "text": "interval is not", "source": str(source_file)}
    assert out["snapshot"].startswith("ni:///sha-256;")
    assert not store_dir.exists()  # check-quote never opens the store


@pytest.mark.parametrize("args, outcome, code, span", [
    (["--quote", "specified. Caf\u00e9", "--policy", "whitespace"], "normalized_match", 0, (34, 51)),
    (["--quote", "\U0001F600", "--start", "48", "--end", "50", "--unit", "utf16_unit"],
     "quote_match", 0, (52, 56)),
    (["--quote", "\U0001F600", "--start", "48", "--end", "49", "--unit", "utf16_unit"],
     "unresolved_range", 1, None),
    (["--quote", "\U0001F600", "--start", "52", "--end", "55", "--unit", "utf8_byte",
      "--end-inclusive"], "quote_match", 0, (52, 56)),
    (["--quote", "interval is 73 days"], "quote_mismatch", 1, None),
    (["--quote", "is", "--prefix", "interval "], "quote_match", 0, (27, 29)),
    (["--quote", "e"], "ambiguous", 1, None),
    (["--quote", "The", "--start", "-1", "--end", "3"], "unresolved_range", 1, None),
])
def test_check_quote_outcomes_and_exit_codes(runner, source_file, tmp_path, args, outcome, code, span):
    result = _check(runner, tmp_path / "s", source_file, *args)
    assert result.exit_code == code, result.output
    out = json.loads(result.output)
    assert out["outcome"] == outcome
    assert (out["byte_start"], out["byte_end"]) == (span or (None, None))


@pytest.mark.parametrize("args, message", [
    (["--quote", ""], "--quote must not be empty"),
    (["--quote", "x", "--start", "1"], "--start and --end go together"),
    (["--quote", "x", "--policy", "nfkc"], "Invalid value for '--policy'"),
    (["--quote", "x", "--unit", "chars"], "Invalid value for '--unit'"),
])
def test_check_quote_usage_errors_exit_2_with_a_message(runner, source_file, tmp_path, args, message):
    result = _check(runner, tmp_path / "s", source_file, *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_check_quote_missing_and_undecodable_files_exit_2(runner, tmp_path):
    result = _check(runner, tmp_path / "s", tmp_path / "absent.txt", "--quote", "x")
    assert result.exit_code == 2
    assert "does not exist" in result.output
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\u00e9".encode("latin-1"))
    result = _check(runner, tmp_path / "s", bad, "--quote", "caf")
    assert result.exit_code == 2
    assert f"Error: {bad} is not UTF-8 text: byte 3 (0xe9) does not decode" in result.output
    assert "Traceback" not in result.output
    result = _check(runner, tmp_path / "s", tmp_path, "--quote", "x")
    assert result.exit_code == 2 and "is a directory" in result.output


@pytest.fixture
def recorded(runner, tmp_path):
    store_dir = tmp_path / "store"
    events = tmp_path / "events.jsonl"
    events.write_text("\n".join(pipeline.events()) + "\n", encoding="utf-8")
    result = runner.invoke(cli, ["--store", str(store_dir), "record", str(events)],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return store_dir


def test_resolve_prints_outcome_counts_and_is_idempotent(runner, recorded):
    result = runner.invoke(cli, ["--store", str(recorded), "resolve", "--nl"], catch_exceptions=False)
    assert result.exit_code == 0
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"outcome": "quote_match", "citations": 2}, {"outcome": "normalized_match", "citations": 0},
        {"outcome": "quote_mismatch", "citations": 0}, {"outcome": "generated_target", "citations": 1},
        {"outcome": "snapshot_mismatch", "citations": 0}, {"outcome": "unresolved_range", "citations": 0},
        {"outcome": "unresolved_id", "citations": 0}, {"outcome": "ambiguous", "citations": 0},
        {"outcome": "orphaned", "citations": 0}, {"outcome": "located", "citations": 1},
        {"outcome": "context_not_extracted", "citations": 0}]
    assert "resolved 4 citations in all runs: 73 statements added, 0 removed" in result.stderr
    again = runner.invoke(cli, ["--store", str(recorded), "resolve", "--run", pipeline.RUN, "--csv"],
                          catch_exceptions=False)
    assert again.stdout.splitlines()[:3] == ["outcome,citations", "quote_match,2",
                                             "normalized_match,0"]
    assert f"resolved 4 citations in run {pipeline.RUN}: 0 statements added, 0 removed" in again.stderr


def test_resolve_citation_rows(runner, recorded):
    result = runner.invoke(cli, ["--store", str(recorded), "resolve", "--citations", "--nl"],
                           catch_exceptions=False)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["citation"][-3:], r["outcome"], r["byte_start"], r["byte_end"]) for r in rows] == [
        ("ct1", "quote_match", 21, 62), ("ct2", "located", 63, 110), ("ct3", "quote_match", 28, 48),
        ("ct4", "generated_target", None, None)]
    assert rows[3]["generated_source"].startswith("urn:provgraph:aid:")


def test_resolve_unknown_run_is_an_error(runner, recorded):
    result = runner.invoke(cli, ["--store", str(recorded), "resolve", "--run", "urn:uuid:nope"])
    assert result.exit_code == 2
    assert "Error: run <urn:uuid:nope> is not in the store" in result.output


@pytest.mark.parametrize("args, word", [
    (["--quote", "H", "--start", "0", "--end", "-1", "--end-inclusive"], "negative"),
    (["--quote", "H", "--start", "-2", "--end", "-1", "--end-inclusive"], "negative"),
    (["--quote", "H", "--start", "3", "--end", "2", "--end-inclusive"], "reversed"),
    (["--quote", "H", "--start", "3", "--end", "3"], "empty"),
    (["--quote", "H", "--start", "2", "--end", "2", "--unit", "page"], "empty"),
    (["--quote", "H", "--start", "2", "--end", "1", "--unit", "block", "--end-inclusive"],
     "reversed"),
])
def test_check_quote_negative_reversed_and_empty_ranges_are_unresolved(runner, tmp_path, args, word):
    # QA 7: validated before an inclusive end is converted, never read as an empty match
    emoji = tmp_path / "emoji.txt"
    emoji.write_text("Hi \U0001F600 there.\fPage two.\n", encoding="utf-8")
    result = _check(runner, tmp_path / "s", emoji, *args)
    assert result.exit_code == 1, result.output
    out = json.loads(result.output)
    assert out["outcome"] == "unresolved_range", out
    assert word in out["reason"], out["reason"]
    assert (out["byte_start"], out["codepoint_start"]) == (None, None)


def test_check_quote_that_stops_before_a_combining_mark_is_no_match(runner, tmp_path):
    # QA 8: "cafe" is not in "Le cafe\u0301 est bon.": the word there is "café" (NFD)
    src = tmp_path / "nfd.txt"
    src.write_text("Le cafe\u0301 est bon.", encoding="utf-8")
    result = _check(runner, tmp_path / "s", src, "--quote", "cafe")
    assert result.exit_code == 1, result.output
    out = json.loads(result.output)
    assert out["outcome"] == "quote_mismatch"
    assert "ends inside a character sequence" in out["reason"]
    assert "U+0301 COMBINING ACUTE ACCENT" in out["reason"]
    result = _check(runner, tmp_path / "s", src, "--quote", "cafe", "--start", "3", "--end", "7")
    assert result.exit_code == 1 and json.loads(result.output)["outcome"] == "quote_mismatch"
    assert "ends inside a character sequence" in json.loads(result.output)["reason"]
    result = _check(runner, tmp_path / "s", src, "--quote", "cafe\u0301")
    assert result.exit_code == 0 and json.loads(result.output)["codepoint_end"] == 8
