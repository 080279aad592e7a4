"""provgraph.analytics.impact() reads its rows grouped (impact-claims.rq, issue 16) and
gives the rows it gave when it read impact.rq one solution per row: the old function is
kept here as the oracle, and the two agree on the fixture scenarios, on a benchmark
workload, for every agent and version, per run, on a blank-node claim (the fallback) and,
when ``PROVGRAPH_STALE_ORACLE_STORE`` names an on-disk benchmark store
(``python -m bench.bench_queries --path``), on that store."""

from __future__ import annotations

import os
from typing import Any

import pytest

from provgraph import EmbeddedStore, Recorder, analytics
from provgraph._rows import _run_query, _str
from provgraph.kinds import check_run
from provgraph.analytics import ImpactRow
from provgraph.errors import AgentNotFound
from provgraph.terms import IRI, BNode, Literal
from provgraph.vocab import PG

from . import pipeline, query_scenarios as sc


def reference_impact(store: Any, agent_name: str, version: str | None = None,
                     run: str | None = None) -> list[ImpactRow]:
    """impact() as it was before issue 16 (commit c30266b): impact.rq, one ImpactRow
    per solution, sorted by run, claim, version, agent."""
    run_iri = check_run(store, run)
    versions: set[str] = set()
    for agent in {q[0] for q in store.quads(None, PG.agentName, Literal(str(agent_name)))}:
        for _, _, o, _ in store.quads(agent, PG.agentVersion):
            versions.add(o.value if isinstance(o, Literal) else str(o))
    if not versions or (version is not None and version not in versions):
        raise AgentNotFound(agent_name, version, sorted(versions))
    rows = _run_query(store, "impact", {"agent_name": agent_name, "agent_version": version,
                                        "run": run_iri})
    out = [ImpactRow(run=IRI(r["run"]), claim=IRI(r["claim"]), agent=IRI(r["agent"]),
                     agent_name=_str(r["agent_name"]) or "",
                     agent_version=_str(r["agent_version"]) or "") for r in rows]
    return sorted(out, key=lambda x: (x.run, x.claim, x.agent_version, x.agent))


def _agents(store: Any) -> list[tuple[str, str | None]]:
    """Every agent name with each of its versions, and with ``None`` (every version)."""
    out: set[tuple[str, str | None]] = set()
    for s, _, name, _ in store.quads(None, PG.agentName):
        out.add((name.value, None))
        for _, _, v, _ in store.quads(s, PG.agentVersion):
            out.add((name.value, v.value if isinstance(v, Literal) else str(v)))
    return sorted(out, key=lambda x: (x[0], x[1] or ""))


def assert_same_as_reference(store: Any) -> int:
    """impact() equals the oracle for every agent name and version, over all runs and per
    run; returns how many rows were compared."""
    runs = sorted({str(q[3]) for q in store.quads(None, PG.supportAgent) if q[3] is not None})
    n = 0
    for name, version in _agents(store):
        rows = analytics.impact(store, name, version=version)
        assert rows == reference_impact(store, name, version), (name, version)
        assert all(type(r.claim) is IRI and type(r.run) is IRI for r in rows)
        n += len(rows)
        for run in runs:
            assert analytics.impact(store, name, version=version, run=run) == \
                reference_impact(store, name, version, run), (name, version, run)
    return n


def test_every_agent_of_the_query_scenarios_gives_the_reference_rows():
    s = EmbeddedStore()
    rec = Recorder(s, label="fixture", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    sc.parser_upgrade(s, r)
    sc.generated_cases(rec, r)
    sc.exposure_cases(rec, r)
    sc.outcomes_and_claims(rec, r)
    assert assert_same_as_reference(s) > 20
    # plain-utf8 has two versions: without --version a claim through both is listed twice
    both = analytics.impact(s, "plain-utf8")
    assert {x.agent_version for x in both} == {"1.0", "2.0"}
    s.close()


def test_the_benchmark_workload_gives_the_reference_rows():
    from bench.bench_queries import PARSER_V2, build_workload

    s = EmbeddedStore()
    truth = build_workload(s, 400, runs=4)
    assert assert_same_as_reference(s) > 1000
    assert {x.claim for x in analytics.impact(s, *PARSER_V2[:1], version=PARSER_V2[1])} == \
        truth.parser_v2_claims
    s.close()


def test_a_blank_node_claim_is_read_through_impact_rq(recorded):
    # STR() of a blank node fails, so impact-claims.rq leaves that group's list unbound
    store, _, _ = recorded
    agent = min(q[0] for q in store.quads(None, PG.agentName, Literal("plain-utf8")))
    store.add([(BNode("orphan"), PG.supportAgent, agent, IRI(pipeline.RUN))])
    rows = analytics.impact(store, "plain-utf8")
    assert rows == reference_impact(store, "plain-utf8")
    assert any(x.claim == "orphan" for x in rows)


def test_a_version_that_is_not_a_plain_literal_matches_as_impact_rq_matches(recorded):
    # impact.rq binds the version as a plain literal: "3"^^xsd:integer is not "3"
    store, _, _ = recorded
    agent = min(q[0] for q in store.quads(None, PG.agentName, Literal("plain-utf8")))
    store.add([(agent, PG.agentVersion, Literal("3", "http://www.w3.org/2001/XMLSchema#integer"),
                IRI(pipeline.RUN))])
    assert analytics.impact(store, "plain-utf8", version="3") == \
        reference_impact(store, "plain-utf8", "3") == []
    assert analytics.impact(store, "plain-utf8") == reference_impact(store, "plain-utf8")
    with pytest.raises(AgentNotFound):
        analytics.impact(store, "plain-utf8", version="4")


@pytest.mark.skipif(not os.environ.get("PROVGRAPH_STALE_ORACLE_STORE"),
                    reason="set PROVGRAPH_STALE_ORACLE_STORE to an on-disk store directory "
                           "(bench/bench_queries.py --path) to compare there")
def test_a_large_on_disk_store_gives_the_reference_rows():
    from bench.bench_queries import PARSER_V2

    store = EmbeddedStore(os.environ["PROVGRAPH_STALE_ORACLE_STORE"], read_only=True)
    try:
        for name, version in (PARSER_V2, (PARSER_V2[0], None), ("lines", None)):
            rows = analytics.impact(store, name, version=version)
            assert rows and rows == reference_impact(store, name, version)
    finally:
        store.close()
