"""A networkx projection of the provenance (derivation) graph.

:func:`project` reads a store's statements into a :class:`networkx.DiGraph`
whose edges are the upstream relations that ``queries/lineage.rq`` follows
(:data:`provgraph.relations.UPSTREAM`, from the one relation table), pointing
from effect to cause as PROV does. It answers the same lineage and impact
questions as the SPARQL queries, independently of them (the tests compare the
two), and checks the graph for cycles, which well-formed provenance never has
(PROV-CONSTRAINTS §5.2, ordering constraints: an entity is generated before
anything derived from it, so no chain of derivations, generations and usages
returns to where it started).

Node attributes: ``types`` (set of ``pg:`` and ``prov:`` class local names,
e.g. ``{"Chunk", "Entity"}``), ``name`` and ``version`` for agents,
``invalidated`` (``True`` when ``prov:wasInvalidatedBy`` something). Edge
attribute: ``relations`` (set of predicate IRIs from tail to head).

Everything here works in memory: :func:`project` reads every statement once
(seconds per million statements), so use it for checks, tests and baselines;
the query library serves large stores.

Example:
    >>> from provgraph import EmbeddedStore, Recorder
    >>> store = EmbeddedStore()
    >>> rec = Recorder(store, packages=[])
    >>> snap = rec.snapshot(b"abc", uri="file:///a.txt", media_type="text/plain")
    >>> ext = rec.extraction(snap, parser=("plain", "1"), text="abc")
    >>> g = project(store)
    >>> sorted(upstream(g, ext.text_iri).values())
    [0, 1, 1, 2, 2, 2]
    >>> find_cycle(g) is None
    True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TypeAlias

import networkx as nx

from .store import ANY_GRAPH, ProvStore
from .terms import IRI, BNode, Literal
from ._rows import curie
from .relations import CITES, NOT_UPSTREAM, UPSTREAM
from .vocab import PG, PROV, RDF

__all__ = ["NOT_UPSTREAM", "UPSTREAM_RELATIONS", "project", "upstream", "support_graph", "agents_named",
           "impact_claims", "cited_snapshots", "stale_claims", "find_cycle", "lineage_graph",
           "to_dot"]

UPSTREAM_RELATIONS: frozenset[IRI] = frozenset(UPSTREAM)
"""The relations that become edges: :data:`provgraph.relations.UPSTREAM`, the relations
``lineage.rq`` reports as upstream edges."""

_CLASS_BASES = (PG._base, PROV._base)

Node: TypeAlias = IRI | BNode
"""A node of the projection: a statement's subject or the object of an upstream relation."""

ProvGraph: TypeAlias = "nx.DiGraph[Node]"
"""The projection's type: a ``networkx.DiGraph`` over :data:`Node` (attribute dicts as above)."""


def project(store: ProvStore, *, graph: Any = ANY_GRAPH) -> ProvGraph:
    """Build the projection from every statement (or one graph's).

    Args:
        store: the store to read.
        graph: :data:`~provgraph.store.ANY_GRAPH` (default, the union of all graphs),
            a graph IRI, or ``None`` for the default graph.

    Returns:
        ``networkx.DiGraph``: an edge ``a -> b`` for each upstream relation
        ``a p b`` (``relations`` holds every such ``p``); nodes carry ``types``,
        agent ``name``/``version`` and ``invalidated``.
    """
    g: ProvGraph = nx.DiGraph()
    for s, p, o, _ in store.quads(graph=graph):
        if p == RDF.type:
            if isinstance(o, str) and o.startswith(_CLASS_BASES):
                _node(g, s)["types"].add(o.rsplit("#", 1)[1])
        elif isinstance(o, Literal):
            if p == PG.agentName:
                _node(g, s)["name"] = o.value
            elif p == PG.agentVersion:
                _node(g, s)["version"] = o.value
        elif p == PROV.wasInvalidatedBy:
            _node(g, s)["invalidated"] = True
        elif p in UPSTREAM_RELATIONS:
            _node(g, s)
            _node(g, o)
            data = g.get_edge_data(s, o)
            if data is None:
                g.add_edge(s, o, relations={p})
            else:
                data["relations"].add(p)
    return g


def _node(g: ProvGraph, n: Node) -> dict[str, Any]:
    if n not in g:
        g.add_node(n, types=set())
    attrs: dict[str, Any] = g.nodes[n]
    attrs.setdefault("types", set())
    return attrs


def upstream(g: ProvGraph, node: Node, max_depth: int | None = None) -> dict[Node, int]:
    """Every node upstream of ``node`` with its depth (edges on a shortest path; ``node`` is 0).

    The same set and depths as :func:`provgraph.analytics.lineage`.

    Raises:
        KeyError: ``node`` is not in the projection.
    """
    if node not in g:
        raise KeyError(f"{node} is not in the projection")
    return dict(nx.single_source_shortest_path_length(g, node, cutoff=max_depth))


def support_graph(g: ProvGraph) -> ProvGraph:
    """The support view: the projection without a retrieval's plain ``prov:used`` edges.

    A retrieval used its query and every hit, but only the aids it used
    (``pg:aidUsed``) and its own agent support the answer: hits count when they
    are packed into the generator input or cited. This is the notion of support
    behind the recorder's ``pg:supportAgent`` shortcut and ``impact.rq``.
    """
    def keep(a: Node, b: Node) -> bool:
        rels = g.edges[a, b]["relations"]
        return not ("Retrieval" in g.nodes[a]["types"] and rels <= {PROV.used})

    # The stub's DiGraph overload; mypy sees Any (the attribute dicts hold Any).
    view: ProvGraph = nx.subgraph_view(g, filter_edge=keep)
    return view


def agents_named(g: ProvGraph, name: str, version: str | None = None) -> set[Node]:
    """Agents whose ``pg:agentName`` is ``name`` (and ``pg:agentVersion`` is ``version``)."""
    return {n for n, d in g.nodes(data=True)
            if d.get("name") == name and (version is None or d.get("version") == version)}


def impact_claims(g: ProvGraph, agents: Iterable[Node]) -> set[Node]:
    """Claims whose support (:func:`support_graph`) reaches any of ``agents``.

    The same set as the claims of :func:`provgraph.analytics.impact`, computed
    from the full PROV statements instead of the shortcut.
    """
    view = support_graph(g)
    out: set[Node] = set()
    for a in agents:
        if a in view:
            out |= {n for n in nx.ancestors(view, a) if "Claim" in g.nodes[n]["types"]}
    return out


_CITED = CITES  # pg:citation, pg:target, prov:wasDerivedFrom (provgraph.relations)


def cited_snapshots(g: ProvGraph, claim: Node) -> set[Node]:
    """Snapshots a claim's citations (or derivation operands) derive from, the
    ``pg:citedSnapshot`` notion: follow ``pg:citation``, ``pg:target`` and
    ``prov:wasDerivedFrom``, never out of a generated aid (aids are not evidence)
    and never past a snapshot."""
    seen, todo, out = {claim}, [claim], set[Node]()
    while todo:
        n = todo.pop()
        types = g.nodes[n]["types"]
        if "SourceSnapshot" in types:
            out.add(n)
            continue
        if "GeneratedAid" in types:
            continue
        for _, up, data in g.out_edges(n, data=True):
            if data["relations"] & _CITED and up not in seen:
                seen.add(up)
                todo.append(up)
    return out


def stale_claims(g: ProvGraph) -> dict[Node, set[str]]:
    """Claims citing a snapshot that was revised (``"updated"``) or invalidated,
    itself or through its document (``"deleted"``, which wins), with the kinds found."""
    out: dict[Node, set[str]] = {}
    for n, d in g.nodes(data=True):
        if "Claim" not in d["types"]:
            continue
        for snap in cited_snapshots(g, n):
            docs = [b for _, b, e in g.out_edges(snap, data=True)
                    if PROV.specializationOf in e["relations"]]
            if g.nodes[snap].get("invalidated") or any(g.nodes[x].get("invalidated") for x in docs):
                out.setdefault(n, set()).add("deleted")
            elif any(PROV.wasRevisionOf in e["relations"] for _, _, e in g.in_edges(snap, data=True)):
                out.setdefault(n, set()).add("updated")
    return out


def find_cycle(g: ProvGraph) -> list[tuple[Node, Node, str]] | None:
    """A cycle of upstream relations, or ``None`` when the graph is acyclic.

    Returns:
        The cycle as ``(node, upstream node, relation CURIE)`` steps, in order, or
        ``None``. Well-formed provenance is acyclic (PROV-CONSTRAINTS §5.2), so a
        cycle means a recording or import error.
    """
    try:
        edges = nx.find_cycle(g, orientation="original")
    except nx.NetworkXNoCycle:
        return None
    return [(a, b, ", ".join(sorted(curie(r) for r in g.edges[a, b]["relations"])))
            for a, b, _ in edges]


def lineage_graph(store: ProvStore, entity: str, *, max_depth: int | None = None) -> ProvGraph:
    """The upstream subgraph of ``entity`` (``lineage.rq``) as a DiGraph.

    Nodes carry ``kind``, ``label`` and ``depth`` (as in
    :class:`provgraph.analytics.LineageRow`); edges carry ``relations`` (CURIEs).
    Nodes deeper than ``max_depth`` are left out.

    Raises:
        QueryParameterError: ``entity`` is not an absolute IRI.
        NotFound: ``entity`` is not in the store.
    """
    from .analytics import lineage, lineage_subgraph

    rows = lineage(store, entity, max_depth=max_depth)
    edges, _, _ = lineage_subgraph(store, entity)
    g: ProvGraph = nx.DiGraph()
    for r in rows:
        g.add_node(r.node, kind=r.kind, label=r.label, depth=r.depth)
    for a in dict.fromkeys(r.node for r in rows):  # the nodes, in row order
        for rel, b in edges.get(a, ()):
            if b in g:
                if g.has_edge(a, b):
                    g.edges[a, b]["relations"].append(curie(rel))
                else:
                    g.add_edge(a, b, relations=[curie(rel)])
    return g


def to_dot(g: ProvGraph, name: str = "lineage") -> str:
    """Graphviz DOT text for a :func:`lineage_graph` (written with pydot).

    Node ids are the IRIs, quoted; labels show kind, IRI and label; edges are
    labelled with their relations and point upstream (PROV direction).
    """
    import pydot

    def q(s: str) -> str:
        return json.dumps(s, ensure_ascii=False)

    dot = pydot.Dot(q(name), graph_type="digraph", rankdir="BT")
    for n in sorted(g.nodes):
        d = g.nodes[n]
        text = "\n".join(x for x in (d.get("kind", ""), str(n), d.get("label", "")) if x)
        dot.add_node(pydot.Node(q(str(n)), label=q(text), shape="box"))
    for a, b, e in sorted(g.edges(data=True), key=lambda e: (e[0], e[1])):
        dot.add_edge(pydot.Edge(q(str(a)), q(str(b)), label=q(", ".join(sorted(e["relations"])))))
    return str(dot.to_string())
