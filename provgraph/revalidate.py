"""Targeted revalidation (issue 18): re-resolve only the citations a change touched.

:func:`revalidate` takes the claims :func:`provgraph.analytics.impact` lists for an agent
(``impacted_by``) or :func:`provgraph.staleness.stale` lists (``stale=True``), and
re-resolves each of their citations against the newest content:

* ``stale``: a citation whose target is (a chunk of) a revised snapshot is resolved
  against the snapshot's newest revision (its quote, else the claim's text for a
  quotation); one whose snapshot was deleted gets ``orphaned``;
* ``impacted_by``: a citation of a chunk whose extraction was made by the agent is
  resolved against the newest other extraction of the same snapshot (a re-extraction by
  another version), when there is one; a citation of a PDF table cell parsed by the agent,
  against the corresponding cell of the newest later re-extraction by it
  (:func:`provgraph.regions.counterpart_cell`); otherwise against its own target again.

What is recorded, in the citation's run graph, in one transaction: a ``pg:Revalidation``
activity (``prov:used`` each re-checked citation, ``prov:wasAssociatedWith`` the
``pg:Resolver``, ``prov:startedAtTime``, ``rdfs:comment`` what triggered it); the
citation's new outcome statements (as :func:`provgraph.resolve.resolve_run` writes them);
and the verdict they replace, kept as an entity ``<citation>#verdict-<n>`` that
``prov:specializationOf`` the citation and ``prov:wasInvalidatedBy`` the revalidation at
``prov:invalidatedAtTime`` (the pattern of ``delete-run``'s ``pg:Removal``). Citations
not impacted are not read, resolved or written.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Sequence

from . import ids
from ._resolver import _Resolver
from ._rows import _Row
from .matching import Resolution
from .normalize import get_policy
from .resolve import _claims_of, _old_statements, resolver_agent
from .schema import chunk as chunk_schema
from .schema import citation as citation_schema
from .schema import extraction as extraction_schema
from .schema import table as table_schema
from .schema.citation import OUTCOME_PREDICATES, Citation, verdict_quads
from .store import ProvStore
from .terms import IRI, Quad, lit
from .vocab import PG, PROV, RDF, RDFS

__all__ = ["RevalidationRow", "revalidate"]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RevalidationRow(_Row):
    """One re-checked citation.

    Attributes:
        run: its run.
        claim: its claim.
        citation: the citation.
        old_outcome: the outcome it had (``None``: never resolved).
        new_outcome: the outcome now recorded.
        changed: whether the outcome changed.
        against: what it was checked against (newest snapshot, re-extracted text, or its
            own target); ``None`` for a deleted snapshot.
        activity: the ``pg:Revalidation`` that recorded it.
    """

    run: IRI
    claim: IRI
    citation: IRI
    old_outcome: str | None
    new_outcome: str
    changed: bool
    against: IRI | None
    activity: IRI


def _snapshot_of(targets: Sequence[IRI], store: ProvStore) -> dict[IRI, IRI]:
    chunks = chunk_schema.load(store, list(targets))
    return {i: c.snapshot for i, c in chunks.items()}


def revalidate(store: ProvStore, *, impacted_by: tuple[str, str | None] | None = None,
               stale: bool = False, run: str | None = None, policy: str = "exact",
               at: _dt.datetime | None = None) -> list[RevalidationRow]:
    """Re-resolve the impacted citations and record the new outcomes (module docstring).

    Args:
        store: the store; written in one transaction.
        impacted_by: ``(agent name, version or None)``, as :func:`provgraph.analytics.impact`.
        stale: revalidate the claims :func:`provgraph.staleness.stale` lists instead.
        run: only this run; ``None``: every run.
        policy: normalization policy for citations that declare none.
        at: when (timezone-aware); ``None`` means now (UTC).

    Returns:
        ``list[RevalidationRow]`` sorted by run, claim, citation.

    Raises:
        ValueError: neither or both of ``impacted_by`` and ``stale``; a naive ``at``.
        AgentNotFound: no agent of that name (and version).
        NotFound: ``run`` is not in the store.
    """
    from .analytics import impact
    from .staleness import stale as stale_rows

    if (impacted_by is None) == (not stale):
        raise ValueError("give impacted_by=(name, version) or stale=True, not both or neither")
    if at is not None and at.tzinfo is None:
        raise ValueError("at is a naive datetime; give a timezone-aware one")
    when = at or _dt.datetime.now(_dt.timezone.utc)
    pol = get_policy(policy)
    newest: dict[IRI, IRI | None] = {}  # snapshot -> newest revision (None: deleted)
    if impacted_by is not None:
        name, version = impacted_by
        claims = sorted({r.claim for r in impact(store, name, version=version, run=run)})
        trigger = f"impacted by {name}" + (f"@{version}" if version else "")
    else:
        rows = stale_rows(store, run=run)
        claims = sorted({r.claim for r in rows})
        newest = {r.snapshot: r.newest for r in rows}
        trigger = "stale: cited snapshot revised or deleted"
    cits = [c for cs in citation_schema.citations_of_claims(store, claims).values() for c in cs
            if c.iri is not None]
    targets = sorted({c.target for c in cits if c.target is not None})
    snap_of = _snapshot_of(targets, store)
    for t in targets:
        if t in newest:
            snap_of.setdefault(t, t)
    against: dict[IRI, IRI | None] = {}
    if impacted_by is not None:
        name, version = impacted_by
        snaps = sorted(set(snap_of.values()))
        exts = extraction_schema.of_snapshots(store, snaps) if snaps else {}
        chunks = chunk_schema.load(store, targets)
        for t in targets:
            snap = snap_of.get(t)
            chunk = chunks.get(t)
            if snap is None or chunk is None:
                continue
            others = [e for e in exts.get(snap, []) if e.text_iri != chunk.text_iri
                      and (e.parser.name, e.parser.version) != (name, version)]
            if others:
                against[t] = others[0].text_iri  # newest first
        # a cited PDF table cell: its counterpart in the newest later re-extraction by the
        # agent (issue 21; provgraph.regions.counterpart_cell)
        from .regions import counterpart_cell

        for t, cell in table_schema.load_cells(store, targets).items():
            twin = counterpart_cell(store, cell, name, version)
            if twin is not None and twin[1] is not None:
                against[t] = twin[1].iri
    else:
        for t in targets:
            snap = snap_of.get(t)
            if snap is not None and snap in newest:
                against[t] = newest[snap]
    claims_rec = _claims_of(store, cits)
    resolver = _Resolver(store, pol)
    pairs: list[tuple[Citation, object]] = []
    deleted: list[Citation] = []
    checked: list[tuple[Citation, IRI | None]] = []
    for c in cits:
        tgt = against.get(c.target, c.target) if c.target is not None else None
        if c.target is not None and c.target in against and tgt is None:
            deleted.append(c)
            checked.append((c, None))
            continue
        moved = dataclasses.replace(c, target=tgt, target_id=str(tgt) if tgt else c.target_id,
                                    start=None if tgt != c.target else c.start,
                                    end=None if tgt != c.target else c.end,
                                    unit=None if tgt != c.target else c.unit,
                                    pinned_sha256=None if tgt != c.target else c.pinned_sha256)
        pairs.append((moved, claims_rec.get(c.claim) if c.claim else None))
        checked.append((c, tgt))
    results = iter(resolver.resolve_many(pairs))  # type: ignore[arg-type]
    gone = Resolution(outcome="orphaned", reason="the cited snapshot was deleted",
                      policy=pol.name, policy_version=pol.version)
    items = [(c, gone if tgt is None and c in deleted else next(results)) for c, tgt in checked]
    act_of = {g: ids.content_iri("revalidation", str(g), trigger, when.isoformat())
              for g in {c.graph for c, _ in items}}
    add, remove = _statements(store, items, pol.label, trigger, when, act_of)
    store.replace(remove, add)
    out = [RevalidationRow(run=IRI(c.graph or ""), claim=IRI(c.claim or ""), citation=IRI(c.iri or ""),
                           old_outcome=c.outcome, new_outcome=r.outcome,
                           changed=c.outcome != r.outcome, against=tgt,
                           activity=act_of[c.graph])
           for (c, r), (_, tgt) in zip(items, checked)]
    return sorted(out, key=lambda x: (x.run, x.claim, x.citation))


def _statements(store: ProvStore, items: list[tuple[Citation, Resolution]], policy_label: str,
                trigger: str, when: _dt.datetime, act_of: dict[IRI | None, IRI]
                ) -> tuple[set[Quad], set[Quad]]:
    agent, agent_triples = resolver_agent()
    add: set[Quad] = set()
    remove: set[Quad] = set()
    by_graph: dict[IRI | None, list[tuple[Citation, Resolution]]] = {}
    for c, r in items:
        by_graph.setdefault(c.graph, []).append((c, r))
    for g, group in by_graph.items():
        act = act_of[g]
        earlier = {q[0] for q in store.quads(None, RDF.type, PG.Resolution, g)} | {agent}
        old = {q for q in _old_statements(store, g, group) if q[0] not in earlier}
        new: set[Quad] = {(s, p, o, g) for s, p, o in agent_triples}
        new |= {(act, RDF.type, PROV.Activity, g), (act, RDF.type, PG.Revalidation, g),
                (act, PROV.wasAssociatedWith, agent, g), (act, PG.policy, lit(policy_label), g),
                (act, PROV.startedAtTime, lit(when), g), (act, RDFS.comment, lit(trigger), g)}
        if g is not None:
            new.add((act, PG.run, g, g))
        for c, r in group:
            cit = IRI(c.iri or "")
            new.add((act, PROV.used, cit, g))
            new |= verdict_quads(c, r, g)
            before = [q for q in old if q[0] == cit and q[1] in OUTCOME_PREDICATES]
            if before:
                node = IRI(f"{cit}#verdict-{act.rsplit(':', 1)[-1][:16]}")
                new |= {(node, q[1], q[2], g) for q in before}
                new |= {(node, RDF.type, PROV.Entity, g), (node, PROV.specializationOf, cit, g),
                        (node, PROV.wasInvalidatedBy, act, g),
                        (node, PROV.invalidatedAtTime, lit(when), g)}
        remove |= old - new
        add |= new - old
    return add, remove
