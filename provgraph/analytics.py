"""Auditor questions as pure functions over the named queries in ``queries/*.rq``.

Each function runs one bundled SPARQL 1.1 query (parameters bound as RDF terms,
never pasted into the text), turns the solutions into typed, frozen rows and
returns them sorted. The queries also run unchanged on a remote SPARQL endpoint;
what SPARQL cannot do (read retained bytes, breadth-first depth) is done here and
said so in each docstring.

==========================  =======================  ==========================
function                    query file               row type
==========================  =======================  ==========================
:func:`lineage`             ``lineage.rq``           :class:`LineageRow`
:func:`stale`               ``stale.rq``             :class:`StaleRow`
:func:`impact`              ``impact.rq``            :class:`ImpactRow`
:func:`generated_evidence`  ``generated-evidence.rq``  :class:`GeneratedEvidenceRow`
:func:`unsupported`         ``unsupported.rq``       :class:`UnsupportedRow`
:func:`coverage`            ``coverage.rq``          :class:`CoverageRow`
:func:`exposure`            ``exposure.rq``          :class:`ExposureRow`
==========================  =======================  ==========================

Every function raises :class:`~provgraph.errors.NotFound` for an IRI argument
(entity or run) that is not in the store, rather than returning no rows, and
:class:`~provgraph.errors.QueryParameterError` for a value that is not an
absolute IRI.

Example:
    >>> from provgraph import EmbeddedStore, Recorder
    >>> store = EmbeddedStore()
    >>> rec = Recorder(store, packages=[])
    >>> snap = rec.snapshot(b"Water boils at 100 C.", uri="file:///f.txt", media_type="text/plain")
    >>> [r.kind for r in lineage(store, snap.iri)]
    ['SourceSnapshot', 'Document', 'Observation']
"""

from __future__ import annotations

import dataclasses
from collections import deque
from itertools import repeat
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ._rows import (
    PREFIXES, _check_iri, _int, _iri, _Row, _run_query, _str, curie, dicts_of, row_builder,
)
from .errors import AgentNotFound, NotFound
from .kinds import check_run, require_lineage_start
from .store import ProvStore
from .terms import IRI, BNode, Literal, Term
from .vocab import OUTCOMES, PG, PROV, RDF, VERIFIED_OUTCOMES

if TYPE_CHECKING:
    from .staleness import StaleRow, stale


def __getattr__(name: str) -> Any:
    """``stale`` and ``StaleRow``, imported from :mod:`provgraph.staleness` on first use
    (PEP 562): lineage and the other questions do not load the span checks (issue 16, item 3)."""
    if name in ("StaleRow", "stale"):
        from . import staleness

        return getattr(staleness, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "LineageRow", "StaleRow", "ImpactRow", "GeneratedEvidenceRow", "UnsupportedRow",
    "CoverageRow", "ExposureRow", "lineage", "stale", "impact", "generated_evidence",
    "unsupported", "coverage", "exposure", "SUCCESS_OUTCOMES", "PREFIXES",
]

SUCCESS_OUTCOMES = VERIFIED_OUTCOMES
"""Resolver outcomes that keep a citation eligible evidence; every other outcome is a failure
(:data:`provgraph.vocab.VERIFIED_OUTCOMES`)."""

# --------------------------------------------------------------------- lineage

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LineageRow(_Row):
    """One node upstream of the entity asked about.

    Attributes:
        node: the node's IRI (or blank node label).
        depth: edges from the entity on a shortest path (the entity itself is 0).
        kind: its most specific ``pg:`` class (``Claim``, ``Chunk``, ``Parser`` ...),
            else ``Entity``, ``Activity`` or ``Agent`` from the relation that reached it.
        relation: the relation from ``parent`` to this node, as a CURIE
            (``prov:wasDerivedFrom``); ``None`` for the entity itself.
        parent: the node it was first reached from (breadth first, ties broken by
            relation then IRI); ``None`` for the entity itself.
        label: a short description: agent name and version, snapshot sha-256 and
            observation time, document URI, chunk or claim code point range, claim
            kind and status, citation target id and outcome, or the associated
            agents of an activity.
    """

    node: IRI
    depth: int
    kind: str
    relation: str | None
    parent: IRI | None
    label: str


_ACTIVITY_RELATIONS = {PROV.wasGeneratedBy, PROV.wasInformedBy, PROV.wasStartedBy,
                       PROV.wasEndedBy, PROV.hadActivity}
_AGENT_RELATIONS = {PROV.wasAssociatedWith, PROV.wasAttributedTo, PROV.actedOnBehalfOf}
_GENERIC_KINDS = {"GeneratedAid"}


def lineage_subgraph(store: ProvStore, entity: str) -> tuple[
        dict[IRI, list[tuple[IRI, IRI]]], dict[IRI, set[str]], dict[IRI, dict[IRI, str]]]:
    """The upstream subgraph of ``entity`` as returned by ``lineage.rq``.

    Returns:
        ``(edges, types, attributes)``: ``edges[node]`` lists ``(relation, upstream)``
        pairs, ``types[node]`` the local names of its ``pg:`` classes,
        ``attributes[node]`` its label properties (relation IRI -> lexical form; several
        values of one property joined with `` | `` in sorted order).

    Raises:
        QueryParameterError: ``entity`` is not an absolute IRI.
        NotFound: ``entity`` is not mentioned in the store.
        WrongKind: ``entity`` is a run or another bundle (export it with ``run=``).
    """
    iri = require_lineage_start(store, _check_iri("entity", entity))
    rows = _run_query(store, "lineage", {"entity": iri})
    if not rows and not store.mentions(iri):  # checked only when nothing came back
        raise NotFound(iri, "entity")
    edges: dict[IRI, list[tuple[IRI, IRI]]] = {}
    types: dict[IRI, set[str]] = {}
    values: dict[IRI, dict[IRI, set[str]]] = {}
    for row in rows:
        node, rel, value = IRI(row["node"]), IRI(row["relation"]), row["value"]
        if rel == RDF.type:
            types.setdefault(node, set()).add(str(value)[len(PREFIXES["pg"]):])
        elif isinstance(value, Literal):
            values.setdefault(node, {}).setdefault(rel, set()).add(value.value)
        else:
            edges.setdefault(node, []).append((rel, IRI(value)))
    for lst in edges.values():
        lst.sort()
    # every value of a label property, in order (a document seen under two URIs has
    # both): the rows' order is the engine's, so keeping the last one differed by store
    attrs = {node: {rel: " | ".join(sorted(vs)) for rel, vs in by_rel.items()}
             for node, by_rel in values.items()}
    return edges, types, attrs


def _kind(types: set[str], via: IRI | None) -> str:
    specific = sorted(types - _GENERIC_KINDS) or sorted(types)
    if specific:
        return specific[0]
    if via in _ACTIVITY_RELATIONS:
        return "Activity"
    if via in _AGENT_RELATIONS:
        return "Agent"
    return "Entity"


def _label(node: IRI, kind: str, attrs: Mapping[IRI, str], agent_labels: list[str]) -> str:
    a = attrs
    if PG.agentName in a:
        return f"{a[PG.agentName]} {a.get(PG.agentVersion, '')}".strip()
    parts: list[str] = []
    if kind == "SourceSnapshot" or (PG.sha256 in a and PG.observedAt in a):
        parts.append(f"sha256:{a.get(PG.sha256, '?')}")
        if PG.observedAt in a:
            parts.append(f"observed {a[PG.observedAt]}")
    elif PG.sha256 in a:
        parts.append(f"sha256:{a[PG.sha256]}")
    if PG.sourceUri in a and kind != "SourceSnapshot":
        parts.append(a[PG.sourceUri])
    if PG.start in a and PG.end in a and kind in ("Chunk", "Claim"):
        parts.append(f"code points [{a[PG.start]}, {a[PG.end]})")
    if PG.claimKind in a:
        parts.append(f"{a[PG.claimKind]} ({a.get(PG.claimStatus, '')})")
    if PG.targetId in a:
        parts.append(f"target {a[PG.targetId]}")
    if PG.outcome in a:
        parts.append(f"outcome {a[PG.outcome]}")
    if agent_labels:
        parts.append("by " + ", ".join(agent_labels))
    return " ".join(parts)


def _agent_label(agent: IRI, attrs: Mapping[IRI, str]) -> str:
    """``name version`` of an agent, or ``<IRI>`` for one recorded without a name
    (issue 17: the label ended in a dangling "by")."""
    name = f"{attrs.get(PG.agentName, '')} {attrs.get(PG.agentVersion, '')}".strip()
    return name or f"<{agent}>"


def lineage(store: ProvStore, entity: str, *, max_depth: int | None = None) -> list[LineageRow]:
    """Everything upstream of ``entity``, each node with its depth (``lineage.rq``).

    Upstream means reachable by the relations that point from effect to cause,
    :data:`provgraph.relations.UPSTREAM` (the one relation table): citations, cited
    targets, chunks, extracted texts, snapshots, documents, older revisions, aids,
    queries, the answer, activities (extraction, chunking, retrieval, packing,
    generation) and their agents. A claim bundle (:func:`provgraph.io.bundle.export`
    with ``claim=``) walks the same relations: its resources are exactly these
    nodes, and the one difference is that it also carries the nodes that only
    describe them (:data:`provgraph.relations.DESCRIBING`: qualified influence
    nodes, selectors, ``pg:Segment`` nodes), which are not rows here. The query returns the
    subgraph's edges; the depth of each node (edge count of a shortest path, the
    entity itself at 0) is computed here, breadth first, because SPARQL 1.1
    property paths do not count steps.

    Args:
        store: the store to read.
        entity: IRI of a claim, citation, answer, chunk or any recorded node.
        max_depth: keep nodes at most this many edges away; ``None`` keeps all.

    Returns:
        ``list[LineageRow]`` sorted by depth, then kind, then IRI; the first row is
        the entity itself (depth 0).

    Raises:
        QueryParameterError: ``entity`` is not an absolute IRI.
        NotFound: ``entity`` is not in the store.

    Example:
        >>> import datetime
        >>> from provgraph import EmbeddedStore, Recorder
        >>> store = EmbeddedStore()
        >>> rec = Recorder(store, packages=[])
        >>> t = datetime.datetime(2026, 1, 5, 8, 0, tzinfo=datetime.timezone.utc)
        >>> snap = rec.snapshot(b"abc", uri="file:///a.txt", media_type="text/plain", observed_at=t)
        >>> ext = rec.extraction(snap, parser=("plain", "1"), text="abc")
        >>> for row in lineage(store, ext.text_iri, max_depth=1):
        ...     print(row.depth, row.kind, row.relation, row.label[:40])
        0 ExtractedText None sha256:ba7816bf8f01cfea414140de5dae2223b
        1 Extraction prov:wasGeneratedBy by plain 1
        1 SourceSnapshot prov:wasDerivedFrom sha256:ba7816bf8f01cfea414140de5dae2223b
    """
    edges, types, attrs = lineage_subgraph(store, entity)
    root = IRI(entity)
    found: dict[IRI, tuple[int, IRI | None, IRI | None]] = {root: (0, None, None)}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        depth = found[node][0]
        if max_depth is not None and depth >= max_depth:
            continue
        for rel, up in edges.get(node, ()):
            if up not in found:
                found[up] = (depth + 1, node, rel)
                queue.append(up)
    rows = []
    for node, (depth, parent, via) in found.items():
        kind = _kind(types.get(node, set()), via)
        agents = [_agent_label(a, attrs.get(a, {}))
                  for r, a in edges.get(node, ()) if r == PROV.wasAssociatedWith]
        rows.append(LineageRow(node=node, depth=depth, kind=kind,
                               relation=curie(via) if via is not None else None, parent=parent,
                               label=_label(node, kind, attrs.get(node, {}), sorted(agents))))
    rows.sort(key=lambda r: (r.depth, r.kind, r.node))
    return rows


# --------------------------------------------------------------------- impact

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ImpactRow(_Row):
    """A claim whose support passed through an activity of the agent asked about.

    Attributes:
        run: the claim's run.
        claim: the claim.
        agent: the matching agent's IRI (one per name, version and role).
        agent_name: its ``pg:agentName``.
        agent_version: its ``pg:agentVersion`` (``""`` when unknown).
    """

    run: IRI
    claim: IRI
    agent: IRI
    agent_name: str
    agent_version: str


def impact(store: ProvStore, agent_name: str, *, version: str | None = None,
           run: str | None = None, index: bool = True) -> list[ImpactRow]:
    """Claims whose support went through an activity associated with an agent (``impact.rq``).

    Use it after a parser, chunker, embedder, retriever, model or prompt-template
    change: the rows are the claims to re-check. The query starts from the agent
    and follows the ``pg:supportAgent`` shortcut the recorder writes for each
    claim (every agent of every activity in the claim's support: its generation,
    the generator input's sources, the informing retrieval and its aids, cited
    targets and derivation operands, down to extraction and chunking).

    The rows are those of ``impact.rq``, read grouped: the agents of that name (and
    version) are looked up first, then ``impact-claims.rq`` gives each agent's claims
    per run as one list, so that what repeats on every row (the agent, its name and
    version, the run) is read once per group (issue 16; ``impact.rq`` itself where a
    blank node makes that impossible).

    **The impact index.** Each agent's claims per run are kept beside the store (one
    file per agent asked about, :mod:`provgraph._impact_index`) with the store's
    :meth:`~ProvStore.state_token` and the place in its ledger they were read at; a later
    call answers from that file as kept when nothing was written since, else brought up
    to date by replaying the ``pg:supportAgent`` statements the ledger lines written since
    added and removed, and reads the store when the ledger cannot tell (a writer without
    the ledger, a cut ledger) or a blank node is involved. The agent's name and versions
    are always read from the store. So the index never changes an answer, only its time
    (issue 16: 183,761 claims of one parser at a million answers, 2.2 s read from the
    store); ``provgraph verify`` compares every impact index with the store.

    Args:
        store: the store to read.
        agent_name: the agent's ``pg:agentName``, e.g. ``"docutils"``.
        version: its ``pg:agentVersion``; ``None`` matches every version.
        run: restrict to one run; ``None`` means all runs.
        index: answer from the impact index when it holds (the default); ``False``
            reads the store and neither reads nor writes the index.

    Returns:
        ``list[ImpactRow]`` sorted by run, claim, agent version.

    Raises:
        AgentNotFound: no agent has that name (or that name and version); the
            message lists the versions that exist.
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = check_run(store, run)
    agents = _matching_agents(store, agent_name, version)
    if not agents:
        return []  # the version exists, but not as the plain literal impact.rq matches
    iris = [a for a in agents if isinstance(a, IRI)]
    if len(iris) < len(agents):
        return _impact_rows(store, agent_name, version, run_iri)  # VALUES admits no blank node
    # each agent's claims per run (usually one agent), from its impact index while that
    # holds (issue 16: kept current through the ledger), else read with the agent bound
    # before evaluation (a trailing VALUES list would join after the GROUP BY)
    from ._impact_index import claims_by_run

    # sorted by run, claim, version, agent; the claims of a run as exact str, which sort
    # several times faster than IRI (a str subclass) or tuples (issue 16)
    per_run: dict[IRI, list[tuple[list[str], str, IRI]]] = {}
    for iri in iris:
        got = claims_by_run(store, iri, run_iri, index=index)
        if got is None:
            return _impact_rows(store, agent_name, version, run_iri)  # a blank-node claim
        for run_, claims in got.items():
            for ver in agents[iri]:
                per_run.setdefault(run_, []).append((list(claims), ver, iri))
    build = row_builder(ImpactRow)
    out: list[ImpactRow] = []
    for run_ in sorted(per_run, key=str):
        parts = per_run[run_]
        if len(parts) == 1:  # one agent at one version: the usual case, built in C loops
            claims, ver, agent = parts[0]
            claims.sort()
            out += map(build, repeat(run_), map(IRI, claims), repeat(agent), repeat(agent_name),
                       repeat(ver))
        else:
            keyed = sorted((c, ver, str(agent), agent) for claims, ver, agent in parts for c in claims)
            out += [build(run_, IRI(c), agent, agent_name, ver) for c, ver, _, agent in keyed]
    return out


def _impact_rows(store: ProvStore, agent_name: str, version: str | None,
                 run: IRI | None) -> list[ImpactRow]:
    """:func:`impact`'s rows read from ``impact.rq`` itself, one solution per row: for the
    stores ``impact-claims.rq`` cannot answer (a blank-node agent or claim)."""
    rows = _run_query(store, "impact", {"agent_name": agent_name, "agent_version": version,
                                        "run": run})
    out = [ImpactRow(run=IRI(r["run"]), claim=IRI(r["claim"]), agent=IRI(r["agent"]),
                     agent_name=_str(r["agent_name"]) or "", agent_version=_str(r["agent_version"]) or "")
           for r in rows]
    return sorted(out, key=lambda x: (x.run, x.claim, x.agent_version, x.agent))


def _matching_agents(store: ProvStore, name: str, version: str | None,
                     ) -> dict[IRI | BNode, list[str]]:
    """The agents named ``name`` (a plain ``pg:agentName`` literal, as ``impact.rq`` binds
    it) with their ``pg:agentVersion`` values as text, only ``version`` when given (a
    plain literal equal to it, as ``impact.rq`` binds it); agents without a matching
    version are left out, as ``impact.rq``'s join leaves them out.

    Raises:
        AgentNotFound: no agent has that name and a version (or that version); the
            message lists the versions that exist.
    """
    versions: set[str] = set()
    out: dict[IRI | BNode, list[str]] = {}
    wanted = None if version is None else Literal(version)
    # one lookup per agent, not per graph that describes it (a model agent is described
    # in every run graph: per quad, N runs cost N x N quads)
    for agent in {q[0] for q in store.quads(None, PG.agentName, Literal(str(name)))}:
        terms = {o for _, _, o, _ in store.quads(agent, PG.agentVersion)}
        texts = {o.value if isinstance(o, Literal) else str(o) for o in terms}
        versions |= texts
        match = sorted(texts if wanted is None else
                       {o.value if isinstance(o, Literal) else str(o) for o in terms if o == wanted})
        if match:
            out[agent] = match
    if not versions or (version is not None and version not in versions):
        raise AgentNotFound(name, version, sorted(versions))
    return out


# --------------------------------------------------------------------- generated evidence

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GeneratedEvidenceRow(_Row):
    """A citation or quotation whose evidence is generated text.

    Attributes:
        run: the claim's run.
        claim: the claim.
        citation: the citation; ``None`` for a ``generated_quotation``.
        target: what was cited or quoted.
        basis: ``generated_target`` (the target is an aid), ``resolved_generated`` (the
            resolver recorded ``generated_target``), ``generated_range``
            (the cited part of a prompt or indexed text is a generated segment) or
            ``generated_quotation`` (``prov:wasQuotedFrom`` an aid).
        aid: the generated aid behind it, when known.
        aid_type: ``HypotheticalDocument``, ``ContextualPrefix`` or ``GeneratedQuestion``.
        segment: the generated segment node, for ``generated_range``.
    """

    run: IRI
    claim: IRI
    citation: IRI | None
    target: IRI
    basis: str
    aid: IRI | None
    aid_type: str | None
    segment: IRI | None


def generated_evidence(store: ProvStore, *, run: str | None = None) -> list[GeneratedEvidenceRow]:
    """Citations or quotations whose target or quoted text is generated (``generated-evidence.rq``).

    Covers citations of aids (hypothetical documents, contextual prefixes,
    generated questions), citations of a generator input or indexed text whose
    cited range (code points), quote or whole text falls on a segment marked
    ``generated``, and ``prov:wasQuotedFrom`` an aid (binary or qualified form).

    Args:
        store: the store to read.
        run: restrict to one run; ``None`` means all runs.

    Returns:
        ``list[GeneratedEvidenceRow]`` sorted by run, claim, citation, basis.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = check_run(store, run)
    out = [GeneratedEvidenceRow(
        run=IRI(r["run"]), claim=IRI(r["claim"]), citation=_iri(r["citation"]),
        target=IRI(r["target"]), basis=_str(r["basis"]) or "", aid=_iri(r["aid"]),
        aid_type=_local(r["aid_type"]), segment=_iri(r["segment"]))
        for r in _run_query(store, "generated-evidence", {"run": run_iri})]
    return sorted(out, key=lambda x: (x.run, x.claim, x.citation or "", x.basis, x.segment or ""))


def _local(t: Term | None) -> str | None:
    return None if t is None else str(t).rsplit("#", 1)[-1]


SHARE_DIGITS = 4
"""Decimal places of :attr:`CoverageRow.share` (issue 17: 16-digit shares were printed)."""

# --------------------------------------------------------------------- unsupported

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class UnsupportedRow(_Row):
    """A material claim without eligible evidence.

    Attributes:
        run: the claim's run.
        claim: the claim.
        kind: ``quotation``, ``paraphrase`` or ``derivation``.
        claimed_status: the status the pipeline recorded for the claim (``supported``,
            ``partially_supported`` or ``unsupported``), which the missing evidence
            contradicts when it is ``supported`` (issue 17: the column was ``status``,
            read as the finding's).
        citations: how many citations the claim has (0 for an uncited claim).
        reason: ``uncited`` or ``no_eligible_citation``.
    """

    run: IRI
    claim: IRI
    kind: str
    claimed_status: str
    citations: int
    reason: str


def unsupported(store: ProvStore, *, run: str | None = None) -> list[UnsupportedRow]:
    """Claims with no eligible evidence that are not abstentions or uncertain (``unsupported.rq``).

    Eligible evidence: a citation of an original (snapshot, extracted text or
    chunk) whose resolver outcome, if any, is one of :data:`SUCCESS_OUTCOMES`;
    a verified quotation (``prov:wasQuotedFrom`` an original); or, for a
    derivation claim, its operands. Generated targets never count. Claims
    without any citation are listed (reason ``uncited``), not skipped.

    Args:
        store: the store to read.
        run: restrict to one run; ``None`` means all runs.

    Returns:
        ``list[UnsupportedRow]`` sorted by run and claim.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = check_run(store, run)
    out = [UnsupportedRow(run=IRI(r["run"]), claim=IRI(r["claim"]), kind=_str(r["kind"]) or "",
                          claimed_status=_str(r["claimed_status"]) or "",
                          citations=_int(r["citations"]),
                          reason=_str(r["reason"]) or "")
           for r in _run_query(store, "unsupported", {"run": run_iri})]
    return sorted(out, key=lambda x: (x.run, x.claim))


# --------------------------------------------------------------------- coverage

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class CoverageRow(_Row):
    """One measure of one run, with its denominator stated.

    Attributes:
        run: the run.
        measure: ``claims``, ``cited_claims``, ``quoting_claims``,
            ``verified_quotations``, ``citations``, ``unresolved`` or a resolver
            outcome (``quote_match`` ... ``orphaned``).
        count: the numerator.
        denominator: the count it is out of.
        of: what the denominator counts (``claims``, ``quoting_claims`` or ``citations``).
        share: ``count / denominator`` rounded to 4 decimal places (0.6667; ``count`` and
            ``denominator`` are exact), ``None`` when the denominator is 0.
    """

    run: IRI
    measure: str
    count: int
    denominator: int
    of: str
    share: float | None


COVERAGE_MEASURES: tuple[tuple[str, str], ...] = (
    ("claims", "claims"), ("cited_claims", "claims"), ("quoting_claims", "claims"),
    ("verified_quotations", "quoting_claims"), ("citations", "citations"),
    ("unresolved", "citations"),
) + tuple((o, "citations") for o in OUTCOMES)
"""Coverage measures in output order, each with the measure that is its denominator."""


def coverage(store: ProvStore, *, run: str | None = None) -> list[CoverageRow]:
    """Per run: claims, cited claims, verified quotations and citations by outcome (``coverage.rq``).

    Each measure is a row with its denominator: ``cited_claims`` and
    ``quoting_claims`` out of all ``claims`` (abstentions included);
    ``verified_quotations`` (claims with ``prov:wasQuotedFrom``, which the
    resolver writes only for ``quote_match``/``normalized_match``) out of
    ``quoting_claims`` (quotation claims and claims with a quoted citation);
    ``unresolved`` (no ``pg:outcome`` yet) and every outcome of
    :data:`provgraph.vocab.OUTCOMES` out of ``citations``.

    Args:
        store: the store to read.
        run: restrict to one run; ``None`` means every run (a run without claims
            gives zeros).

    Returns:
        ``list[CoverageRow]``, by run, then in :data:`COVERAGE_MEASURES` order.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = check_run(store, run)
    out: list[CoverageRow] = []
    for r in sorted(_run_query(store, "coverage", {"run": run_iri}), key=lambda x: str(x["run"])):
        counts = {k: _int(v) for k, v in r.items() if k != "run"}
        for measure, of in COVERAGE_MEASURES:
            n, d = counts[measure], counts[of]
            out.append(CoverageRow(run=IRI(r["run"]), measure=measure, count=n, denominator=d,
                                   of=of, share=round(n / d, SHARE_DIGITS) if d else None))
    return out


# --------------------------------------------------------------------- exposure

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ExposureRow(_Row):
    """A generated aid that was in a generator's input.

    Attributes:
        run: the run.
        generation: the generation activity.
        answer: the answer it generated.
        generator_input: the prompt (``pg:GeneratorInput``).
        aid: the generated aid.
        aid_type: ``HypotheticalDocument``, ``ContextualPrefix`` or ``GeneratedQuestion``.
        label: how the packing labelled its range: ``generated`` (correct),
            ``original``, ``instruction`` or ``query`` (mislabelled), or
            ``unlabelled`` (its text is in the prompt but no segment names it).
        start: first code point of the range in the prompt text.
        end: end code point (exclusive).
    """

    run: IRI
    generation: IRI
    answer: IRI | None
    generator_input: IRI
    aid: IRI
    aid_type: str | None
    label: str
    start: int
    end: int


def exposure(store: ProvStore, *, run: str | None = None) -> list[ExposureRow]:
    """For each generation, the generated aids in its input and their labels (``exposure.rq``).

    Args:
        store: the store to read.
        run: restrict to one run; ``None`` means all runs.

    Returns:
        ``list[ExposureRow]`` sorted by run, generation, start, aid.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = check_run(store, run)
    out = [ExposureRow(run=IRI(r["run"]), generation=IRI(r["generation"]),
                       answer=_iri(r["answer"]), generator_input=IRI(r["generator_input"]),
                       aid=IRI(r["aid"]), aid_type=_local(r["aid_type"]),
                       label=_str(r["label"]) or "", start=_int(r["start"]), end=_int(r["end"]))
           for r in _run_query(store, "exposure", {"run": run_iri})]
    return sorted(out, key=lambda x: (x.run, x.generation, x.start, x.aid))


def rows_as_dicts(rows: Iterable[_Row]) -> list[dict[str, Any]]:
    """``[row.to_dict() for row in rows]``: JSON-friendly rows, as the CLI prints them."""
    return dicts_of(rows)
