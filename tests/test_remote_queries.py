"""Agreement: every named query (queries/*.rq, through provgraph.queries) gives identical
rows on the embedded store and on the remote store over a real engine (issue 13).

Two datasets: the fixture pipeline with the query-library scenarios (parser upgrade,
deletion, outcomes, generated evidence, exposure), recorded by the Recorder straight
into the remote store and into an embedded one; and the demo store (provgraph demo),
copied into the engine with the Graph Store Protocol bulk path. Every query runs with
every parameter value of the types it declares that the data holds (each claim,
citation, answer, snapshot, chunk, agent, run), and with its optional parameters left
out. Rows are compared as sorted lists (blank nodes by position only).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provgraph import Recorder, analytics
from provgraph.io.bundle import export
from provgraph.queries import QueryCatalog
from provgraph.store import EmbeddedStore, ProvStore
from provgraph.terms import IRI, BNode, Literal, Term
from provgraph.xsd import canonical

from . import pipeline, query_scenarios
from .conftest import open_remote

pytestmark = pytest.mark.servers

SERVERS = ["oxigraph_server", "virtuoso_server"]
PG = "https://w3id.org/provgraph/ns#"
_ENTITY_TYPES = ("Claim", "Citation", "Answer", "Chunk", "SourceSnapshot", "GeneratedAid",
                 "GeneratorInput")
_TARGET_TYPES = ("SourceSnapshot", "Chunk", "Document", "ExtractedText", "GeneratedAid")


def _record(store: ProvStore) -> None:
    rec = Recorder(store, label="fixture", packages=[], run_iri=pipeline.RUN,
                   started_at=pipeline.t(0))
    r = pipeline.record(rec)
    r["run"] = rec.iri
    query_scenarios.parser_upgrade(store, r)
    query_scenarios.deletion(rec, r)
    query_scenarios.outcomes_and_claims(rec, r)
    query_scenarios.generated_cases(rec, r)
    query_scenarios.exposure_cases(rec, r)


def _of_types(store: ProvStore, types: tuple[str, ...], limit: int) -> list[IRI]:
    out: list[IRI] = []
    for t in types:
        rows = store.select(f"SELECT DISTINCT ?x WHERE {{ ?x a <{PG}{t}> }} ORDER BY ?x")
        out += [r["x"] for r in rows[:limit] if isinstance(r["x"], IRI)]
    return out


def _param_sets(store: ProvStore, catalog: QueryCatalog, name: str,
                limit: int) -> list[dict[str, Any]]:
    q = catalog.get(name)
    names = {p.name for p in q.params}
    runs: list[Any] = [None] + list(_of_types(store, ("Run",), limit))
    if "entity" in names:
        return [{"entity": e} for e in _of_types(store, _ENTITY_TYPES, limit)]
    if "target" in names:
        return [{"target": e} for e in _of_types(store, _TARGET_TYPES, limit)]
    if "agent" in names:  # impact-claims: an agent IRI, alone and with a run
        agents = [r["a"] for r in store.select(
            f"SELECT DISTINCT ?a WHERE {{ ?a <{PG}agentName> ?n }} ORDER BY ?a LIMIT {limit}")]
        return ([{"agent": a} for a in agents]
                + [{"agent": a, "run": r} for a in agents for r in runs[1:2]])
    if "agent_name" in names:
        agents = store.select(f"SELECT DISTINCT ?n ?v WHERE {{ ?a <{PG}agentName> ?n ; "
                              f"<{PG}agentVersion> ?v }} ORDER BY ?n ?v")
        out: list[dict[str, Any]] = []
        for a in agents:
            assert isinstance(a["n"], Literal) and isinstance(a["v"], Literal)
            out += [{"agent_name": a["n"].value}, {"agent_name": a["n"].value,
                                                   "agent_version": a["v"].value}]
            out += [{"agent_name": a["n"].value, "agent_version": a["v"].value, "run": r}
                    for r in runs[1:2]]
        return out
    if "run" in names:
        return [{} if r is None else {"run": r} for r in runs]
    return [{}]


def _concatenated(text: str) -> set[str]:
    """Variables bound by GROUP_CONCAT with a space separator: SPARQL leaves the order of
    the concatenation to the engine (§18.5.1.7), so they are compared as sets of words."""
    return set(re.findall(r'GROUP_CONCAT\([^)]*\); separator=" "\)\s+AS\s+\?(\w+)', text))


def _normal(rows: list[dict[str, Term | None]],
            concatenated: set[str] = frozenset()) -> list[tuple[tuple[str, str], ...]]:  # type: ignore[assignment]
    def show(k: str, t: Term | None) -> str:
        if isinstance(t, BNode):
            return "_:"
        if k in concatenated and isinstance(t, Literal):
            return repr(Literal(" ".join(sorted(t.value.split(" "))), t.datatype, t.language))
        if isinstance(t, Literal):  # values, not lexical forms: a remote engine keeps its
            return repr(canonical(t))  # own (Virtuoso writes six fraction digits of a time)
        return "-" if t is None else repr(t)
    return sorted(tuple(sorted((k, show(k, v)) for k, v in r.items())) for r in rows)


def _compare(local: ProvStore, remote: ProvStore, limit: int) -> int:
    catalog = QueryCatalog()
    compared = 0
    for name in catalog.names():
        concat = _concatenated(catalog.get(name).text)
        for params in _param_sets(local, catalog, name, limit):
            want = catalog.run(local, name, params)
            got = catalog.run(remote, name, params)
            assert _normal(got, concat) == _normal(want, concat), (name, params)
            compared += 1
    return compared


def _compare_claims(local: ProvStore, remote: ProvStore, limit: int) -> int:
    """Each claim's bundle export (N-Quads: the same bytes, so the same digest) and its
    lineage rows agree: Virtuoso's claim exports held only the bundle description
    before the closure query lost its default-graph-only branch there (issue 13)."""
    claims = _of_types(local, ("Claim",), limit)
    for c in claims:
        want, got = export(local, "nquads", claim=str(c)), export(remote, "nquads", claim=str(c))
        assert (got.digest, got.statements) == (want.digest, want.statements), c
        assert got.data == want.data, c
        assert analytics.lineage(remote, str(c)) == analytics.lineage(local, str(c)), c
    return len(claims)


@pytest.fixture(scope="module")
def fixture_pair(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    local = EmbeddedStore()
    _record(local)
    yield {"local": local}
    local.close()


@pytest.mark.parametrize("server", SERVERS)
def test_recorded_pipeline_is_the_same_dataset_and_every_query_agrees(
        server: str, request: pytest.FixtureRequest, tmp_path: Path,
        fixture_pair: dict[str, Any]) -> None:
    remote = open_remote(request.getfixturevalue(server), tmp_path)
    try:
        _record(remote)  # the Recorder writes straight into the engine
        local = fixture_pair["local"]
        assert remote.canonical_nquads() == local.canonical_nquads()
        assert _compare(local, remote, limit=50) > 40
        assert _compare_claims(local, remote, limit=50) >= 3
    finally:
        remote.close()


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedStore]:
    from provgraph.demo import run_demo

    demo = run_demo(tmp_path_factory.mktemp("demo") / "store", quiet=True)
    s = EmbeddedStore(demo.store_path)
    yield s
    s.close()


@pytest.mark.parametrize("server", SERVERS)
def test_every_query_agrees_on_the_demo_store(server: str, request: pytest.FixtureRequest,
                                              tmp_path: Path, demo_store: EmbeddedStore) -> None:
    remote = open_remote(request.getfixturevalue(server), tmp_path)
    try:
        remote.bulk_add(demo_store.quads())
        assert len(remote) == len(demo_store)
        assert _compare(demo_store, remote, limit=8) > 40
        assert _compare_claims(demo_store, remote, limit=8) == 8
    finally:
        remote.close()
