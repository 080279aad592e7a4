"""provgraph.revalidate and 'provgraph revalidate' (issue 18 part 3)."""

from __future__ import annotations

import datetime as dt

import pytest

from provgraph import EmbeddedStore, Recorder
from provgraph.analytics import impact
from provgraph.cli import cli
from provgraph.resolve import load_citations, resolve_run
from provgraph.revalidate import revalidate
from provgraph.vocab import PG, PROV, RDF

from . import eval_runs

OTHER_RUN = "urn:uuid:01900000-0000-7000-8000-0000000e0a11"
AT = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)


def _outcomes(store):
    return {c.iri: c.outcome for c in load_citations(store)}


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory):
    from provgraph.demo import run_demo

    return run_demo(tmp_path_factory.mktemp("demo") / "store", quiet=True).store_path


def test_after_the_demo_parser_change_exactly_the_impacted_citations(demo_path):
    from provgraph.demo.rst import PARSER_V1

    with EmbeddedStore(demo_path) as store:
        name, version = PARSER_V1.agent
        claims = {r.claim for r in impact(store, name, version=version)}
        expected = {c.iri for c in load_citations(store) if c.claim in claims}
        before = _outcomes(store)
        rows = revalidate(store, impacted_by=(name, version), at=AT)
        assert {r.citation for r in rows} == expected and len(rows) == 22
        after = _outcomes(store)
        assert {c: o for c, o in after.items() if c not in expected} == \
            {c: o for c, o in before.items() if c not in expected}
        changed = {r.citation for r in rows if r.changed}
        assert len(changed) == 2  # quotes the upgraded parser no longer produces
        assert all(after[c] == r.new_outcome for r in rows for c in [r.citation])
        # the replaced verdicts stay, invalidated by the revalidation
        act = rows[0].activity
        assert next(iter(store.quads(act, RDF.type, PG.Revalidation)), None) is not None
        kept = {q[0] for q in store.quads(None, PROV.wasInvalidatedBy, act)}
        assert len(kept) == 22
        for node in kept:
            cit = next(iter(store.quads(node, PROV.specializationOf, None)))[2]
            old = next(iter(store.quads(node, PG.outcome, None)))[2]
            assert old.value == before[cit]


def test_other_runs_are_untouched(store):
    eval_runs.record(store)
    eval_runs.record(store, run=OTHER_RUN, parser=("other-parser", "2"))
    resolve_run(store)
    before = _outcomes(store)
    rows = revalidate(store, impacted_by=eval_runs.PARSER, at=AT)
    assert {r.run for r in rows} == {eval_runs.RUN}
    assert len(rows) == 3 and not any(r.changed for r in rows)
    after = _outcomes(store)
    assert after == before


def test_stale_revalidates_against_the_newest_revision(store):
    r = eval_runs.record(store)
    resolve_run(store)
    rec = Recorder(store, packages=[], label="update")
    rec.snapshot(b"Water boils at 99 C.\nIce is cold.\n", uri="https://example.org/water.txt",
                 media_type="text/plain", observed_at=AT, revision_of=r["snap"])
    rows = revalidate(store, stale=True, at=AT)
    by_cit = {x.citation: x for x in rows}
    assert set(by_cit) == {r["cit1"].iri, r["cit2"].iri}
    assert by_cit[r["cit1"].iri].old_outcome == "quote_match"
    assert by_cit[r["cit1"].iri].new_outcome != "quote_match"  # 100 C is gone
    assert _outcomes(store)[r["cit7"].iri] == "generated_target"  # not impacted, untouched


def test_revalidate_cli(runner, tmp_path):
    path = tmp_path / "store"
    with EmbeddedStore(path) as s:
        eval_runs.record(s)
        resolve_run(s)
    res = runner.invoke(cli, ["--store", str(path), "revalidate", "--impacted-by",
                              "plain-utf8@1.0", "--csv"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert len(res.stdout.splitlines()) == 4
    assert "3 citations re-resolved, 0 changed" in res.stderr
    bad = runner.invoke(cli, ["--store", str(path), "revalidate"])
    assert bad.exit_code == 2 and "--impacted-by" in bad.output
