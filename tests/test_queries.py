"""The bundled query files: headers, standard SPARQL 1.1 (a second, independent engine
gives the same rows), parameter binding that cannot be injected into, and the
networkx projection agreeing with the SPARQL answers."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
import rdflib
from rdflib.plugins.sparql import prepareQuery

from provgraph import (
    EmbeddedStore, QueryCatalog, QueryParameterError, QuerySyntaxError, Recorder, analytics,
)
from provgraph import graph as pgraph
from provgraph import ids
from provgraph.queries import parse_query
from provgraph.resources import data_dir
from provgraph.terms import IRI, Literal
from provgraph.vocab import PROV

from . import pipeline, query_scenarios as sc

QUERY_NAMES = ["citations-of", "claims", "coverage", "derivations", "derived-from", "evaluation-claims", "exposure",
               "generated-evidence", "impact", "impact-claims", "invalidations", "lineage",
               "retrieval-aid-kinds", "review-version-mismatch", "revisions", "runs", "stale", "stale-citations",
               "stale-claims", "stale-dependents", "stale-texts", "unadjudicated-disagreements",
               "unreviewed-claims", "unsupported"]


@pytest.fixture(scope="module")
def world():
    """The fixture pipeline plus every scenario: a parser upgrade (run 2), generated
    ranges, a mislabelled prompt, resolver outcomes, and the FAQ's deletion."""
    s = EmbeddedStore()
    rec = Recorder(s, label="fixture", packages=[], run_iri=pipeline.RUN, started_at=pipeline.t(0))
    r = pipeline.record(rec)
    r["upgrade"] = sc.parser_upgrade(s, r)
    r["generated"] = sc.generated_cases(rec, r)
    r["exposure"] = sc.exposure_cases(rec, r)
    r["outcomes"] = sc.outcomes_and_claims(rec, r)
    sc.deletion(rec, r)
    r["reviews"] = sc.reviews(rec, r)
    yield s, r
    s.close()


def test_the_catalog_holds_every_query():
    assert QueryCatalog().names() == QUERY_NAMES


@pytest.mark.parametrize("name", QUERY_NAMES)
def test_each_query_has_a_complete_header(name):
    q = QueryCatalog().get(name)
    assert q.summary and q.see.startswith("https://") and q.returns
    assert q.path.endswith(f"{name}.rq")
    text = Path(q.path).read_text(encoding="utf-8")
    assert text.startswith(f"# name: {name}\n")


@pytest.mark.parametrize("name", QUERY_NAMES)
def test_each_query_is_standard_sparql_11(name):
    # rdflib's parser is an independent SPARQL 1.1 grammar: no engine extensions used
    prepareQuery(QueryCatalog().get(name).text)


def _plain(term):
    if term is None:
        return None
    if isinstance(term, Literal):
        v = term.to_python()
        return v.astimezone(dt.timezone.utc) if isinstance(v, dt.datetime) else v
    if isinstance(term, rdflib.Literal):
        v = term.toPython()
        return v.astimezone(dt.timezone.utc) if isinstance(v, dt.datetime) else v
    return str(term)


def _params(r, name):
    if name == "lineage":
        return {"entity": r["claim_quote"].iri}
    if name == "impact":
        return {"agent_name": "plain-utf8"}
    if name == "impact-claims":  # the fixture's parser agent (content-derived IRI)
        return {"agent": ids.content_iri("agent", "parser", "plain-utf8", "1.0")}
    if name == "citations-of":
        return {"target": r["c_interval"].iri}
    if name in ("derived-from", "stale-citations", "stale-dependents", "derivations"):
        return {"target": r["c_interval"].iri}
    return {}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # rdflib's own Dataset internals
@pytest.mark.parametrize("name", QUERY_NAMES)
def test_each_query_gives_the_same_rows_on_a_second_engine(world, name):
    """Every query runs unchanged on rdflib's SPARQL engine (over the same quads,
    default graph = union of the named graphs) and returns the same rows."""
    store, r = world
    cat = QueryCatalog()
    q = cat.get(name)
    params = _params(r, name)
    ours = [{k: _plain(v) for k, v in row.items()} for row in cat.run(store, name, params)]
    ds = rdflib.Dataset(default_union=True)
    ds.parse(data=store.serialize("nquads"), format="nquads")
    bindings = {k: rdflib.URIRef(v) if k in ("entity", "run", "target", "agent") else rdflib.Literal(v)
                for k, v in params.items()}
    theirs = [{v: _plain(row[v]) for v in q.returns} for row in ds.query(q.text, initBindings=bindings)]
    if name in ("stale-claims", "impact-claims"):  # GROUP_CONCAT's order is the engine's
        for row in ours + theirs:
            row["claims"] = sorted(row["claims"].split(" "))
    if name == "evaluation-claims":
        for row in ours + theirs:
            row["roles"] = sorted(row["roles"].split(" "))
    key = lambda row: repr(sorted(row.items()))  # noqa: E731
    assert ours, name
    assert sorted(ours, key=key) == sorted(theirs, key=key)


# ------------------------------------------------------------------ header checks (the loader)

def test_loader_rejects_a_declared_parameter_the_body_does_not_use(tmp_path):
    text = "# params: ?claim:iri ?ghost:string\nSELECT ?claim WHERE { ?claim ?p ?o }\n"
    with pytest.raises(QueryParameterError, match="ghost"):
        parse_query(text, "ghost.rq", "ghost")


def test_loader_rejects_a_parameter_that_is_not_projected():
    text = "# params: ?claim:iri\nSELECT ?o WHERE { ?claim ?p ?o }\n"
    with pytest.raises(QueryParameterError, match="must be in the SELECT list"):
        parse_query(text, "x.rq", "x")


def test_loader_rejects_returns_that_do_not_match_the_projection():
    text = "# params: ?s:iri\n# returns: ?s ?p\nSELECT ?s ?o WHERE { ?s ?p ?o }\n"
    with pytest.raises(QueryParameterError, match="does not match the SELECT list"):
        parse_query(text, "x.rq", "x")


def test_loader_reports_syntax_errors_with_the_file():
    with pytest.raises(QuerySyntaxError, match="broken.rq"):
        parse_query("# name: broken\nSELECT ?s WHERE { ?s ?p }\n", "broken.rq", "broken")


def test_binding_rejects_undeclared_and_missing_parameters(world):
    store, _ = world
    cat = QueryCatalog()
    with pytest.raises(QueryParameterError, match="unknown parameter"):
        cat.run(store, "stale", {"claim": "urn:x:1"})
    with pytest.raises(QueryParameterError, match="missing required parameter"):
        cat.run(store, "impact", {})


# ------------------------------------------------------------------ injection

EVIL_STRING = 'plain-utf8" } ; DROP ALL ; INSERT DATA { <urn:x:a> <urn:x:b> "c" } #'
EVIL_IRI = "x> } ; DROP ALL ; <y"


def test_a_string_parameter_is_one_literal_and_changes_nothing(world):
    store, _ = world
    before = store.canonical_nquads()
    cat = QueryCatalog()
    assert cat.get("impact").bind({"agent_name": EVIL_STRING}) == {"agent_name": Literal(EVIL_STRING)}
    assert cat.run(store, "impact", {"agent_name": EVIL_STRING}) == []
    # a value that would widen the match if it were pasted into the text matches nothing
    assert cat.run(store, "impact", {"agent_name": 'x" || true || "'}) == []
    assert store.canonical_nquads() == before


def test_an_iri_parameter_with_query_text_is_rejected_before_anything_runs(world):
    store, _ = world
    before = len(store)
    cat = QueryCatalog()
    for name, param in (("lineage", "entity"), ("stale", "run"), ("unsupported", "run")):
        with pytest.raises(QueryParameterError, match="not an absolute IRI"):
            cat.run(store, name, {param: EVIL_IRI})
    with pytest.raises(QueryParameterError):
        analytics.lineage(store, EVIL_IRI)
    assert len(store) == before


def test_networkx_edges_are_the_lineage_edges():
    """graph.project and lineage.rq take their upstream relations from one table
    (tests/test_relations.py checks lineage.rq against it)."""
    from provgraph.relations import UPSTREAM

    assert pgraph.UPSTREAM_RELATIONS == frozenset(UPSTREAM)


def test_lineage_lists_every_pg_class():
    from provgraph.vocab import PG

    text = (data_dir("queries") / "lineage.rq").read_text(encoding="utf-8")
    listed = text[text.index("?relation = rdf:type && ?value IN ("):]
    listed = listed[:listed.index("))")]
    assert re.findall(r"pg:(\w+)", listed) == [t for t in PG._terms if t[0].isupper()]


# ------------------------------------------------------------------ networkx projection

def _nodes_of(store, cls):
    return sorted(q[0] for q in store.quads(None, IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                                          IRI(f"https://w3id.org/provgraph/ns#{cls}")))


def test_networkx_lineage_equals_the_sparql_lineage(world):
    store, r = world
    g = pgraph.project(store)
    starts = set()
    for cls in ("Claim", "Citation", "Chunk", "Answer", "SourceSnapshot", "GeneratorInput",
                "GeneratedAid"):
        starts.update(_nodes_of(store, cls))
    assert len(starts) > 40
    for node in sorted(starts):
        sparql = {x.node: x.depth for x in analytics.lineage(store, node)}
        assert sparql == pgraph.upstream(g, node), node
        assert ({x.node: x.depth for x in analytics.lineage(store, node, max_depth=2)}
                == pgraph.upstream(g, node, max_depth=2))


def test_networkx_impact_equals_the_sparql_impact_for_every_agent(world):
    store, r = world
    g = pgraph.project(store)
    agents = {(d["name"], d.get("version")) for _, d in g.nodes(data=True) if "name" in d}
    assert ("plain-utf8", "2.0") in agents and len(agents) >= 9
    for name, version in sorted(agents):
        sparql = {x.claim for x in analytics.impact(store, name, version=version)}
        assert sparql == pgraph.impact_claims(g, pgraph.agents_named(g, name, version)), (name, version)
    assert pgraph.impact_claims(g, pgraph.agents_named(g, "plain-utf8", "2.0")) == {
        r["upgrade"]["x"].iri, r["upgrade"]["z"].iri}


def test_networkx_staleness_equals_the_sparql_staleness(world):
    store, r = world
    g = pgraph.project(store)
    sparql: dict[IRI, set[str]] = {}
    for x in analytics.stale(store):
        sparql.setdefault(x.claim, set()).add(x.kind)
    assert sparql == pgraph.stale_claims(g)
    assert sparql[r["claim_para"].iri] == {"updated", "deleted"}


def test_cycle_check_finds_an_injected_cycle(world):
    store, r = world
    assert pgraph.find_cycle(pgraph.project(store)) is None
    s = EmbeddedStore()
    s.add(store.quads())
    # a source snapshot "derived from" the claim that cites it: impossible provenance
    s.add([(r["policy_v1"].iri, PROV.wasDerivedFrom, r["claim_quote"].iri, IRI(pipeline.RUN))])
    cycle = pgraph.find_cycle(pgraph.project(s))
    assert cycle is not None
    assert [step[0] for step in cycle[1:]] == [step[1] for step in cycle[:-1]]
    assert cycle[-1][1] == cycle[0][0]
    assert (r["policy_v1"].iri, r["claim_quote"].iri, "prov:wasDerivedFrom") in cycle
    s.close()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pydot's own parser setup
def test_lineage_graph_and_dot(world):
    store, r = world
    import pydot

    g = pgraph.lineage_graph(store, r["c_interval"].iri)
    rows = analytics.lineage(store, r["c_interval"].iri)
    assert set(g.nodes) == {x.node for x in rows}
    assert g.edges[r["c_interval"].iri, r["ext_policy"].text_iri]["relations"] == ["prov:wasDerivedFrom"]
    parsed = pydot.graph_from_dot_data(pgraph.to_dot(g))[0]
    assert {n.get_name().strip('"') for n in parsed.get_nodes()} == set(g.nodes)
    assert len(parsed.get_edges()) == g.number_of_edges()



def test_the_benchmark_workload_has_the_ground_truth_the_queries_give():
    """bench/bench_queries.py's generator states which claims are stale and which
    went through the parser upgrade; on a small in-memory workload the queries and
    the networkx projection give exactly those sets."""
    from bench.bench_queries import PARSER_V2, build_workload

    s = EmbeddedStore()
    truth = build_workload(s, 120, runs=4)
    assert truth.stale_updated and truth.stale_deleted and truth.parser_v2_claims
    rows = analytics.stale(s)
    assert {x.claim for x in rows if x.kind == "updated"} == truth.stale_updated
    assert {x.claim for x in rows if x.kind == "deleted"} == truth.stale_deleted
    assert {x.claim for x in analytics.impact(s, *PARSER_V2[:1], version=PARSER_V2[1])} == (
        truth.parser_v2_claims)
    g = pgraph.project(s)
    assert pgraph.impact_claims(g, pgraph.agents_named(g, *PARSER_V2)) == truth.parser_v2_claims
    assert set(pgraph.stale_claims(g)) == truth.stale_updated | truth.stale_deleted
    s.close()
