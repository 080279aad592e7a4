"""A claim bundle and ``provgraph lineage`` walk one closure (issue 12, disagreement 3),
and a claim export issues a bounded number of store reads (issue 12, store cost)."""

from __future__ import annotations

import pytest

from provgraph import analytics
from provgraph.io import read
from provgraph.io.bundle import CLAIM_EXPORT_READS, export
from provgraph.relations import DESCRIBING, UPSTREAM
from provgraph.terms import IRI
from provgraph.vocab import PG, PROV, RDF

from . import pipeline
from .counting_store import CountingStore

EX = "http://example.org/"


def _bundle_resources(data: bytes, fmt: str) -> tuple[set[object], set[object]]:
    """(resources, describing nodes) of an exported bundle: the resources are its
    described subjects and the objects of its upstream relations, less the nodes that
    only describe them (qualified influences, selectors, segments)."""
    quads = read(data, fmt).quads
    bundle = next(s for s, p, o, _ in quads if p == RDF.type and o == PROV.Bundle)
    content = [q for q in quads if q[0] != bundle]
    describing = {o for _, p, o, _ in content if p in DESCRIBING}
    nodes = {q[0] for q in content} | {o for _, p, o, _ in content if p in UPSTREAM}
    return nodes - describing, describing


def _claims(store):
    return sorted(q[0] for q in store.quads(None, RDF.type, PG.Claim))


@pytest.mark.parametrize("fmt", ["nquads", "prov-json"])
def test_lineage_and_claim_export_cover_the_same_nodes(recorded, fmt):
    store, _, _ = recorded
    for claim in _claims(store):
        lineage = {row.node for row in analytics.lineage(store, claim)}
        resources, describing = _bundle_resources(export(store, fmt, claim=claim).data, fmt)
        assert resources == lineage, claim
        assert describing and not describing & lineage


def test_lineage_and_claim_export_agree_where_they_used_to_differ(recorded):
    """Regression (issue 12, 3): today's main puts a plan named only on a qualified
    association and the target of a pg:supportAgent shortcut into the bundle but not
    into the lineage, and an entity reached by prov:alternateOf or by an imported
    IRI-valued attribute into the lineage but not into the bundle."""
    store, _, r = recorded
    g = IRI(pipeline.RUN)
    gen = next(q[2] for q in store.quads(IRI(r["answer"].iri), PROV.wasGeneratedBy, None))
    model = next(q[2] for q in store.quads(gen, PROV.wasAssociatedWith, None))
    node, plan, ghost = IRI(EX + "assoc"), IRI(EX + "plan"), IRI(EX + "ghost")
    other, author = IRI(EX + "other"), IRI(EX + "author")
    chunk = IRI(r["c_interval"].iri)
    store.add([
        (gen, PROV.qualifiedAssociation, node, g), (node, RDF.type, PROV.Association, g),
        (node, PROV.agent, model, g), (node, PROV.hadPlan, plan, g),
        (plan, RDF.type, PROV.Plan, g), (plan, RDF.type, PROV.Entity, g),
        (IRI(r["claim_quote"].iri), PG.supportAgent, ghost, g), (ghost, RDF.type, PROV.Agent, g),
        (chunk, PROV.alternateOf, other, g), (other, RDF.type, PROV.Entity, g),
        (chunk, IRI(EX + "author"), author, g), (author, RDF.type, PROV.Agent, g),
    ])
    claim = r["claim_quote"].iri
    lineage = {row.node for row in analytics.lineage(store, claim)}
    for fmt in ("nquads", "prov-json"):
        resources, describing = _bundle_resources(export(store, fmt, claim=claim).data, fmt)
        assert resources == lineage, fmt
        assert node in describing
    assert not {plan, ghost, other, author} & lineage


def _claim_with_citations(recorded, n: int) -> str:
    store, rec, r = recorded
    claim = rec.claim(r["answer"], start=1, end=42, kind="quotation",
                      iri=pipeline.iri(f"cn{n}"))
    targets = [r["c_interval"], r["c_engineer"], r["c_faq_a"], r["prefix"]]
    for i in range(n):
        rec.citation(claim, target=targets[i % len(targets)], quote="The inspection",
                     iri=pipeline.iri(f"ctn{n}x{i}"))
    return claim.iri


@pytest.mark.parametrize("fmt", ["prov-json", "nquads", "provn", "turtle"])
def test_claim_export_reads_do_not_grow_with_citations(recorded, fmt):
    store = recorded[0]
    one, eight = _claim_with_citations(recorded, 1), _claim_with_citations(recorded, 8)
    counts = []
    for claim in (one, eight):
        counting = CountingStore(store)
        result = export(counting, fmt, claim=claim)
        counts.append((counting.reads, result.statements))
    (reads_one, statements_one), (reads_eight, statements_eight) = counts
    assert statements_eight > statements_one + 7 * 5  # each citation adds statements
    assert reads_one == reads_eight <= CLAIM_EXPORT_READS, counts
