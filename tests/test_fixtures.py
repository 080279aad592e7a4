"""Frozen evaluation fixtures (issue 18 part 2): the shipped examples pass; broken copies give
the exact problem or error; record stores the retained originals, once."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from provgraph import fixtures
from provgraph.cli import cli
from provgraph.errors import FixtureError
from provgraph.schema import aid as aid_schema
from provgraph.schema import query as query_schema
from provgraph.schema import run as run_schema
from provgraph.schema import snapshot as snapshot_schema

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "fixtures"
NAMES = ("quotation", "calculation", "unanswerable")


@pytest.fixture
def copied(tmp_path):
    """The example fixtures copied into tmp_path, for breaking."""
    shutil.copytree(EXAMPLES, tmp_path / "fx")
    return tmp_path / "fx"


def _edit(path: Path, change) -> Path:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_schema_is_valid_and_accepts_the_examples():
    jsonschema.Draft202012Validator.check_schema(fixtures.schema())
    v = jsonschema.Draft202012Validator(fixtures.schema())
    for name in NAMES:
        assert not list(v.iter_errors(json.loads((EXAMPLES / f"{name}.json").read_text())))


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_fixtures_pass_their_check(name):
    fx = fixtures.load(EXAMPLES / f"{name}.json")
    assert fixtures.check(fx) == []


def test_the_examples_are_one_of_each_kind():
    q, c, u = (fixtures.load(EXAMPLES / f"{n}.json") for n in NAMES)
    assert q.answerable and q.evidence and not q.derivations
    assert c.answerable and [d.rule for d in c.derivations.values()] == ["difference"]
    assert c.sources["gauge"].origin == "inline"
    assert not u.answerable and u.expected_answer == "unknown" and not u.evidence


def test_changed_bytes_give_a_digest_problem_and_the_span_problem(copied):
    src = copied / "sources" / "library-hours.txt"
    src.write_bytes(src.read_bytes().replace(b"13:00", b"14:00"))
    fx = fixtures.load(copied / "quotation.json")
    actual = hashlib.sha256(src.read_bytes()).hexdigest()
    assert [str(p) for p in fixtures.check(fx)] == [
        f"source hours: the retained bytes (165 bytes, {src}) have sha-256 {actual}, the fixture "
        "says 0ab59b2ece97c8700cb93fbf278f34066ef5dd04b970c5ce3b0c7ac3ee16d31c",
        "evidence saturday: the text at code points [122, 137) of source hours is "
        "'closes at 14:00', not 'closes at 13:00'"]


def test_a_span_shifted_by_one_says_where_the_text_is(copied):
    def shift(doc):
        doc["evidence"][0]["start"] += 1
        doc["evidence"][0]["end"] += 1
    fx = fixtures.load(_edit(copied / "quotation.json", shift))
    assert [str(p) for p in fixtures.check(fx)] == [
        "evidence saturday: the text at code points [123, 138) of source hours is "
        "'loses at 13:00.', not 'closes at 13:00'; the quoted text is at [122, 137)"]


def test_byte_offsets_are_not_code_points(copied):
    # the source has an 'é' before the span: its UTF-8 byte offsets are one more
    def as_bytes(doc):
        doc["evidence"][0]["start"], doc["evidence"][0]["end"] = 123, 138
    fx = fixtures.load(_edit(copied / "quotation.json", as_bytes))
    data = (copied / "sources" / "library-hours.txt").read_bytes()
    assert data[123:138] == b"closes at 13:00"
    assert len(fixtures.check(fx)) == 1


def test_a_span_past_the_end(copied):
    def far(doc):
        doc["evidence"][0]["start"], doc["evidence"][0]["end"] = 500, 515
    (p,) = fixtures.check(fixtures.load(_edit(copied / "quotation.json", far)))
    assert p.subject == "evidence saturday" and "past the end" in p.message


def test_a_wrong_derivation_result(copied):
    fx = fixtures.load(_edit(copied / "calculation.json",
                             lambda d: d["derivations"][0].update(result="3.43")))
    assert [str(p) for p in fixtures.check(fx)] == [
        "derivation range: difference of high (4.35), low (0.82) is 3.53, not 3.43"]


@pytest.mark.parametrize("rule, operands, result, problem", [
    ("sum", ["high", "low"], "5.17", None),
    ("sum", ["high", "low"], "5.170", None),  # numerically equal
    ("product", ["high", "low"], "3.5670", None),
    ("ratio", ["high", "low"], "5.30", None),  # 5.304878... rounded to the claim's places
    ("ratio", ["high", "low"], "5.3", None),
    ("ratio", ["high", "low"], "5.31", "ratio of high (4.35), low (0.82) is 5.30, not 5.31"),
    ("copy", ["low"], "0.82", None),
    ("difference", ["low", "high"], "3.53", "difference of low (0.82), high (4.35) is -3.53, "
                                            "not 3.53"),
])
def test_rules_in_decimal_arithmetic(copied, rule, operands, result, problem):
    fx = fixtures.load(_edit(copied / "calculation.json", lambda d: d["derivations"][0].update(
        rule=rule, operands=operands, result=result)))
    assert [p.message for p in fixtures.check(fx)] == ([problem] if problem else [])


def test_an_operand_that_is_not_a_number(copied):
    fx = fixtures.load(_edit(copied / "quotation.json", lambda d: d.update(derivations=[
        {"id": "d", "rule": "copy", "operands": ["saturday"], "result": "13"}])))
    assert [str(p) for p in fixtures.check(fx)] == [
        "derivation d: operand saturday is 'closes at 13:00', not a number (digits, optional "
        "sign, thousands commas and fraction); make the span cover just the number"]


def test_a_missing_expected_answer_and_an_answer_without_evidence(copied):
    fx = fixtures.load(_edit(copied / "unanswerable.json", lambda d: d.pop("expected_answer")))
    assert [str(p) for p in fixtures.check(fx)] == [
        "expected_answer: missing; give the expected answer text, or 'unknown' for a question "
        "the sources cannot answer"]
    fx = fixtures.load(_edit(copied / "unanswerable.json",
                             lambda d: d.update(expected_answer="Yes.")))
    assert [p.subject for p in fixtures.check(fx)] == ["expected_answer"]


@pytest.mark.parametrize("name, change, message", [
    ("calculation", lambda d: d["derivations"][0].update(rule="median"),
     "derivations[0].rule: 'median' is not one of ['copy', 'sum', 'difference', 'product', "
     "'ratio'] (schemas/fixture-v1.schema.json)"),
    ("calculation", lambda d: d["derivations"][0].update(operands=["high"]),
     "derivation range: rule 'difference' takes 2 operands, got 1"),
    ("calculation", lambda d: d["derivations"][0].update(operands=["high", "nope"]),
     "derivation range: 'nope' names no evidence span of this fixture (known: high, low)"),
    ("quotation", lambda d: d["sources"][0].update(path="sources/gone.txt"),
     "source hours: cannot read path 'sources/gone.txt' ({dir}/sources/gone.txt: No such file "
     "or directory); put the retained bytes there or give them inline as content_base64"),
    ("quotation", lambda d: d["sources"][0].update(path="../../etc/passwd"),
     "source hours: path '../../etc/passwd' must be relative to the fixture file's folder and "
     "inside it; copy the retained file next to the fixture"),
    ("quotation", lambda d: d.update(format="provgraph-fixture/2"),
     "format: 'provgraph-fixture/1' was expected (schemas/fixture-v1.schema.json)"),
    ("quotation", lambda d: d["aids"][0].update(id="hours"),
     "aids id 'hours' is used twice; give each item its own id"),
    ("quotation", lambda d: d["aids"][0].update(kind="summary"),
     "aids[0].kind: 'summary' is not one of ['hypothetical_document', 'contextual_prefix', "
     "'generated_question'] (schemas/fixture-v1.schema.json)"),
])
def test_unusable_fixtures_are_input_errors(copied, name, change, message):
    path = _edit(copied / f"{name}.json", change)
    with pytest.raises(FixtureError) as exc:
        fixtures.load(path)
    assert str(exc.value) == f"{path}: " + message.format(dir=copied.resolve())


def test_the_schema_aid_kinds_are_the_recorders():
    from provgraph.vocab import AID_KINDS
    kinds = fixtures.schema()["properties"]["aids"]["items"]["properties"]["kind"]["enum"]
    assert kinds == list(AID_KINDS)
    assert fixtures.schema()["properties"]["derivations"]["items"]["properties"]["rule"][
        "enum"] == list(fixtures.RULES)


def test_record_stores_the_retained_originals_once(store):
    fx = fixtures.load(EXAMPLES / "calculation.json")
    done = fixtures.record(store, fx)
    assert not done.already and done.statements == len(store) > 0
    gauge = fx.sources["gauge"]
    snap = done.snapshots["gauge"]
    (rec,) = snapshot_schema.load(store, [snap]).values()
    assert rec.sha256 == gauge.sha256 == hashlib.sha256(gauge.data).hexdigest()
    assert rec.source_uri == gauge.uri and rec.media_type == gauge.media_type
    assert store.originals.get(gauge.sha256) == gauge.data
    (aid,) = aid_schema.load(store, [done.aids["hyde"]]).values()
    assert aid.kind == "hypothetical_document" and aid.derived_from == (done.query,)
    assert query_schema.load(store, [done.query])[done.query].text == fx.query
    (run,) = run_schema.load(store, [done.run])
    assert run.label == "fixture harbour-tidal-range"
    assert run.config is not None and run.config["expected_answer"] == fx.expected_answer
    assert run.config["derivations"][0]["rule"] == "difference"
    # the same fixture again: the same run, nothing added
    n = len(store)
    again = fixtures.record(store, fixtures.load(EXAMPLES / "calculation.json"))
    assert again.already and again.run == done.run and again.statements == 0
    assert len(store) == n


def test_a_changed_fixture_is_a_new_run_and_shares_the_snapshot(store, copied):
    first = fixtures.record(store, fixtures.load(copied / "quotation.json"))
    path = _edit(copied / "quotation.json", lambda d: d.update(expected_answer="At 13:00."))
    second = fixtures.record(store, fixtures.load(path))
    assert second.run != first.run and second.snapshots == first.snapshots


def test_record_refuses_a_fixture_that_fails_its_check(store, copied):
    path = _edit(copied / "calculation.json", lambda d: d["derivations"][0].update(result="1"))
    with pytest.raises(FixtureError, match=r"fails its check \(derivation range: difference of "
                                           r"high \(4.35\), low \(0.82\) is 3.53, not 1; run"):
        fixtures.record(store, fixtures.load(path))
    assert len(store) == 0


# ------------------------------------------------------------------ CLI

def test_cli_check_clean_and_problems(runner, copied):
    good = str(EXAMPLES / "calculation.json")
    res = runner.invoke(cli, ["fixture", "check", good], catch_exceptions=False)
    assert res.exit_code == 0
    assert res.stdout == (f"{good}: fixture harbour-tidal-range passes its check: 1 source, "
                          "2 evidence spans, 1 derivation, 1 aid; expected answer: The tidal "
                          "range was 3.53 m.\n")
    def broken(d):
        d["derivations"][0]["result"] = "3.43"
        d["evidence"][1]["start"] -= 1
    bad = str(_edit(copied / "calculation.json", broken))
    res = runner.invoke(cli, ["fixture", "check", bad])
    assert res.exit_code == 1
    assert res.stdout.splitlines() == [
        f"{bad}: evidence low: the text at code points [74, 79) of source gauge is ' 0.82', "
        "not '0.82'; the quoted text is at [75, 79)",
        f"{bad}: derivation range: difference of high (4.35), low (0.82) is 3.53, not 3.43"]


def test_cli_check_input_error(runner, copied):
    path = _edit(copied / "calculation.json", lambda d: d["derivations"][0].update(rule="mean"))
    res = runner.invoke(cli, ["fixture", "check", str(path)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"Error: {path}: derivations[0].rule: 'mean' is not one of")


def test_cli_record_then_again(runner, tmp_path):
    s = str(tmp_path / "s")
    f = str(EXAMPLES / "quotation.json")
    run = fixtures.load(f).run_iri
    res = runner.invoke(cli, ["--store", s, "fixture", "record", f], catch_exceptions=False)
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[0].startswith(f"recorded fixture library-saturday-closing as run {run} (")
    assert lines[2] == ("source hours: ni:///sha-256;CrWbLs6XyHAMuT-_J480Bm713QS5cMXOOwx6w-4W0xw "
                        "(sha-256 0ab59b2ece97c8700cb93fbf278f34066ef5dd04b970c5ce3b0c7ac3ee16d31c)")
    assert lines[3].startswith("aid question: urn:provgraph:aid:")
    res = runner.invoke(cli, ["--store", s, "fixture", "record", f], catch_exceptions=False)
    assert res.stdout == (f"fixture library-saturday-closing is already recorded as run {run}; "
                          "nothing added\n")


def test_cli_record_refused_creates_no_store(runner, tmp_path, copied):
    path = _edit(copied / "quotation.json", lambda d: d["evidence"][0].update(text="closes"))
    s = tmp_path / "s"
    res = runner.invoke(cli, ["--store", str(s), "fixture", "record", str(path)])
    assert res.exit_code == 2
    assert "fails its check (evidence saturday:" in res.stderr
    assert "nothing was stored" in res.stderr
    assert not s.exists()
