"""Reviews and adjudications (issue 18 part 4): the Recorder, the three review queries,
the review_coverage gate, validation and the 'review' / 'adjudicate' commands, on the run
of known counts (tests/eval_runs.py: eight claims c1 ... c8 over one retained source)."""

from __future__ import annotations

import datetime as dt

import pytest

from provgraph import EmbeddedStore, Recorder
from provgraph.cli import cli
from provgraph.errors import RecordError
from provgraph.gates import gate, parse_policy
from provgraph.queries import QueryCatalog
from provgraph.schema import review as review_schema
from provgraph.validate import validate
from provgraph.terms import Literal
from provgraph.vocab import REVIEW_VERDICTS

from . import eval_runs

UTC = dt.timezone.utc
T1 = dt.datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
NEWER = "Water boils at 100 C at sea level.\nIce is cold.\n"


@pytest.fixture
def world():
    s = EmbeddedStore()
    r = eval_runs.record(s)
    rec = Recorder(s, run_iri=r["run"], packages=[], clock=lambda: T1)
    # a newer version of the cited source, observed after the run
    r["snap2"] = rec.snapshot(NEWER.encode(), uri="https://example.org/water.txt",
                              media_type="text/plain", observed_at=T1, revision_of=r["snap"])
    yield s, r, rec
    s.close()


def _rows(store, name):
    return [{k: (v.value if isinstance(v, Literal) else str(v)) if v is not None else None
             for k, v in row.items()}
            for row in QueryCatalog().run(store, name, {})]


def _statements(store):
    return len(store.serialize("nquads").splitlines())


def test_review_round_trips_as_prov(world):
    store, r, rec = world
    got = rec.review(r["c1"], verdicts={"quotation": "faithful", "origin": "original"},
                     reviewer="ana", role="annotator", policy="guide@2", saw=r["snap"], at=T1)
    back = review_schema.load(store, [got.iri])[got.iri]
    assert back == got
    assert [(v.kind, v.value) for v in back.verdicts] == [("origin", "original"),
                                                          ("quotation", "faithful")]
    assert back.reviewer.model is False and back.role == "annotator" and back.at == T1
    nq = store.serialize("nquads").decode()
    for statement in (
        f"<{got.iri}> <http://www.w3.org/ns/prov#wasAssociatedWith> <{got.reviewer.iri}>",
        f"<{got.reviewer.iri}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
        "<http://www.w3.org/ns/prov#Person>",
        f"<{got.iri}#association> <http://www.w3.org/ns/prov#hadRole> <urn:provgraph:role:annotator>",
        f"<{got.iri}#verdict-quotation> <http://www.w3.org/ns/prov#wasAttributedTo> <{got.reviewer.iri}>",
        f"<{got.iri}#verdict-quotation> <http://www.w3.org/ns/prov#wasGeneratedBy> <{got.iri}>",
        f"<{got.iri}> <http://www.w3.org/ns/prov#used> <{r['c1'].iri}>",
        f"<{got.iri}> <https://w3id.org/provgraph/ns#sawSnapshot> <{r['snap'].iri}>",
    ):
        assert statement in nq, statement


def test_known_counts_of_the_three_queries(world):
    store, r, rec = world
    c1, c2 = r["c1"].iri, r["c2"].iri
    # c1 reviewed twice, disagreeing on quotation; the model judge read the newer version
    rec.review(c1, verdicts={"quotation": "faithful"}, reviewer="ana", saw=r["snap"], at=T1)
    rec.review(c1, verdicts={"quotation": "unfaithful", "origin": "original"}, reviewer="judge",
               version="1", model=True, saw=r["snap2"], at=T1)
    # c2 reviewed once, agreeing with itself
    rec.review(c2, verdicts={"coverage": "unsupported"}, reviewer="ana", at=T1)

    unreviewed = _rows(store, "unreviewed-claims")
    assert len(unreviewed) == 6  # c3 ... c8
    assert {row["claim"] for row in unreviewed} == {r[f"c{i}"].iri for i in range(3, 9)}

    mismatch = _rows(store, "review-version-mismatch")
    assert [(row["claim"], row["saw"], row["cited"], row["reason"]) for row in mismatch] == [
        (c1, r["snap2"].iri, r["snap"].iri, "other_version")]

    open_ = _rows(store, "unadjudicated-disagreements")
    assert [(row["claim"], row["kind"], sorted(row["values"].split(" | ")), row["reviews"],
             row["unadjudicated"]) for row in open_] == [
        (c1, "quotation", ["faithful", "unfaithful"], "2", "2")]

    adj = rec.adjudicate(c1, verdicts={"quotation": "unfaithful"}, reviewer="lead",
                         at=T1 + dt.timedelta(hours=1))
    assert len(adj.verdicts[0].derived_from) == 2
    assert _rows(store, "unadjudicated-disagreements") == []
    # a later disagreeing review reopens it: the adjudication did not weigh it
    rec.review(c1, verdicts={"quotation": "faithful"}, reviewer="bo", at=T1 + dt.timedelta(hours=2))
    again = _rows(store, "unadjudicated-disagreements")
    assert [(row["reviews"], row["unadjudicated"]) for row in again] == [("3", "1")]


def test_review_coverage_gate(world):
    store, r, rec = world
    policy = parse_policy("[gates.review_coverage]\nmin = 0.5\n")
    row = next(g for g in gate(store, policy) if g.gate == "review_coverage")
    assert (row.status, row.numerator) == ("not evaluated", None)
    assert "no reviews (pg:Review) recorded in the store" in row.note
    for i in (1, 2, 3):
        rec.review(r[f"c{i}"], verdicts={"coverage": "supported"}, reviewer="ana", at=T1)
    row = next(g for g in gate(store, policy) if g.gate == "review_coverage")
    assert (row.status, row.numerator, row.denominator) == ("fail", 3, 8)
    assert "5 claims released without review" in row.note
    for i in (4, 5):
        rec.review(r[f"c{i}"], verdicts={"coverage": "supported"}, reviewer="ana", at=T1)
    row = next(g for g in gate(store, policy) if g.gate == "review_coverage")
    assert (row.status, row.numerator, row.denominator) == ("pass", 5, 8)


@pytest.mark.parametrize("verdicts, message", [
    ({}, "needs at least one verdict"),
    ({"tone": "fine"}, "unknown verdict kind 'tone'; use one of answerability, origin"),
    ({"quotation": "great"}, "verdict quotation='great' is not a quotation value; use one of "
                             "faithful, unfaithful, not_applicable"),
])
def test_bad_verdicts_are_rejected_and_nothing_is_stored(world, verdicts, message):
    store, r, rec = world
    before = _statements(store)
    with pytest.raises(RecordError, match=message.replace("(", r"\(")):
        rec.review(r["c1"], verdicts=verdicts, reviewer="ana")
    assert _statements(store) == before


def test_adjudication_needs_reviews_of_the_kind(world):
    store, r, rec = world
    rec.review(r["c1"], verdicts={"quotation": "faithful"}, reviewer="ana", at=T1)
    before = _statements(store)
    with pytest.raises(RecordError, match="has no review with a origin verdict: nothing to adjudicate"):
        rec.adjudicate(r["c1"], verdicts={"origin": "original"}, reviewer="lead")
    with pytest.raises(RecordError, match="is before the review"):
        rec.adjudicate(r["c1"], verdicts={"quotation": "faithful"}, reviewer="lead",
                       at=T1 - dt.timedelta(days=1))
    with pytest.raises(RecordError, match="is not a recorded source snapshot"):
        rec.review(r["c1"], verdicts={"quotation": "faithful"}, reviewer="ana",
                   saw=r["chunk"].iri)
    assert _statements(store) == before


def test_validate_passes_on_a_store_with_every_verdict(world):
    store, r, rec = world
    for i, (kind, values) in enumerate(REVIEW_VERDICTS.items()):
        for value in values:
            rec.review(r["c1"], verdicts={kind: value}, reviewer=f"r{i}", model=i % 2 == 1,
                       version="2" if i % 2 else "", policy="guide@1", saw=r["snap"], at=T1)
    rec.adjudicate(r["c1"], verdicts={"coverage": "supported"}, reviewer="lead", at=T1)
    report = validate(store)
    assert report.violations == [] and report.warnings == [], report
    assert report.shacl is not None and report.shacl.conforms, report.shacl.violations


def test_review_and_adjudicate_commands(runner, tmp_path):
    path = tmp_path / "store"
    with EmbeddedStore(path) as s:
        r = eval_runs.record(s)
    c1, snap = r["c1"].iri, r["snap"].iri
    base = ["--store", str(path)]
    res = runner.invoke(cli, [*base, "review", c1, "--verdict", "quotation=faithful",
                              "--verdict", "origin=original", "--reviewer", "ana", "--role",
                              "annotator", "--policy-version", "guide@2", "--saw", snap])
    assert res.exit_code == 0, res.output
    assert res.stderr.startswith("review: recorded urn:uuid:")
    assert (f"of claim {c1} in run {r['run']}: origin=original, quotation=faithful "
            "(by ana, role annotator)") in res.stderr
    res = runner.invoke(cli, [*base, "review", c1, "--verdict", "quotation=unfaithful",
                              "--reviewer", "judge-llm", "--model", "--model-version", "3"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, [*base, "query", "unadjudicated-disagreements", "--csv"])
    assert res.stdout.splitlines()[1].startswith(f"{r['run']},{c1},quotation,")
    res = runner.invoke(cli, [*base, "adjudicate", c1, "--verdict", "quotation=unfaithful",
                              "--reviewer", "lead"])
    assert res.exit_code == 0, res.output
    assert "(by lead, role adjudicator)" in res.stderr
    res = runner.invoke(cli, [*base, "query", "unadjudicated-disagreements", "--csv"])
    assert res.stdout.splitlines() == ["run,claim,kind,values,reviews,unadjudicated"]
    # bad input: exit 2, the input named, nothing stored
    with EmbeddedStore(path) as s:
        before = _statements(s)
    for args, message in (
        (["--verdict", "quotation"], "'quotation' is not KIND=VALUE"),
        (["--verdict", "quotation=great"], "verdict quotation='great' is not a quotation value"),
        (["--verdict", "tone=fine"], "unknown verdict kind 'tone'"),
    ):
        res = runner.invoke(cli, [*base, "review", c1, *args, "--reviewer", "ana"])
        assert res.exit_code == 2 and message in res.stderr, res.output
    res = runner.invoke(cli, [*base, "review", "urn:x:nothing", "--verdict", "quotation=faithful",
                              "--reviewer", "ana"])
    assert res.exit_code == 2 and "claim <urn:x:nothing> is not in the store" in res.stderr
    with EmbeddedStore(path) as s:
        assert _statements(s) == before
    res = runner.invoke(cli, [*base, "validate"])
    assert res.exit_code == 0, res.output


def test_the_shapes_reject_a_value_its_kind_does_not_take(world):
    store, r, rec = world
    got = rec.review(r["c1"], verdicts={"quotation": "faithful"}, reviewer="ana", at=T1)
    from provgraph.terms import IRI, lit
    from provgraph.vocab import PG
    node = IRI(f"{got.iri}#verdict-quotation")
    store.remove([(node, PG.verdictValue, lit("faithful"), r["run"])])
    store.add([(node, PG.verdictValue, lit("warranted"), r["run"])])
    report = validate(store)
    assert [v.message for v in report.shacl.violations if "verdictValue" in v.message] == [
        "A verdict's pg:verdictValue must be one its pg:verdictKind takes "
        "(provgraph.vocab.REVIEW_VERDICTS)."]
