"""Which snapshots' stale rows a write can change: how the stale index is kept current
across writes (issue 16, item 1), private to :mod:`provgraph.staleness`.

A stale row (:class:`provgraph.analytics.StaleRow`) is about one cited snapshot, and the
rows of a snapshot rest only on statements within a few steps of it: the claims that cite
it (``pg:citedSnapshot``, or a citation of its invalidated document), its extracted texts,
chunks and tables (up to two ``prov:wasDerivedFrom`` or ``pg:inTable`` steps from it), the
citations of those and their selectors and ranges, the entities derived from them (one
step more), the newest revision's texts, and what derives from a claim whose span changed
(``derivations.rq``, followed to the end). :func:`touched` reads the statements the ledger
lines since the index was computed added (:mod:`provgraph.ledger`) and gives the
snapshots whose rows may differ now: only their rows are recomputed, the index keeps
every other snapshot's rows. A new revision, invalidation or invalidation time
(:data:`REVISION_SIDE`), an observation time of a revision or a snapshot of an
invalidated document change which snapshots are stale at all, their newest revision or
when they changed: :func:`touched` says so, and the caller reads the revisions and
invalidations anew and adds every snapshot whose entry there changed. It gives ``None``
(compute everything) for what it does not map:

- a removed statement that any stale query reads (:data:`READ`);
- a blank node in a statement that is read (ledger lines keep a write's own labels);
- a predicate the stale queries read that has no rule here (a test holds every predicate
  and class the stale queries name within :data:`READ` and :data:`TYPES`, so a query that
  reads more fails it; the computation's own lookups, ``pg:sha256``, ``pg:claimKind`` and
  ``prov:wasDerivedFrom``, are in :data:`READ` by hand).

Each rule names the snapshots from which the statement is within reach: an entity's
*neighbourhood* (:func:`_around`) is itself, its ancestors up to :data:`_STEPS` steps of
``prov:wasDerivedFrom`` or ``pg:inTable``, and, for a snapshot that is some revised
snapshot's newest revision, that revised snapshot. Statements no stale query reads
(retrieval scores, run metadata, most types) touch nothing.
"""

from __future__ import annotations

import io
from collections.abc import Collection, Iterable, Mapping

from .errors import SerializationError
from .ledger import LedgerLine
from .store import ProvStore, iter_rdf
from .terms import IRI, BNode, Term
from .vocab import PG, PROV, RDF

OA = "http://www.w3.org/ns/oa#"
_EXACT, _SELECTOR = IRI(OA + "exact"), IRI(OA + "hasSelector")

REVISION_SIDE = frozenset({PROV.wasRevisionOf, PROV.wasInvalidatedBy, PROV.invalidatedAtTime})
"""Predicates whose every new statement changes the revisions or invalidations read."""

_OF_CITATION = frozenset({_SELECTOR, PG.offsetUnit, PG.start, PG.end, PG.endInclusive})
"""Predicates of a citation that decide its span (``citations-of.rq``)."""

_AROUND_SUBJECT = frozenset({PG.claimKind, PG.text, PG.cellText, PG.inTable, PG.sha256})
"""Predicates that touch the neighbourhood of their subject."""

_AROUND_OBJECT = frozenset({PG.target, PROV.wasQuotedFrom, PROV.entity})
"""Predicates that touch the neighbourhood of their object."""

TYPES = frozenset({PG.GeneratorInput, PG.IndexedRepresentation, PG.Table})
"""The classes a stale query reads (``rdf:type``); other types touch nothing."""

READ = (REVISION_SIDE | _OF_CITATION | _AROUND_SUBJECT | _AROUND_OBJECT
        | {PG.citedSnapshot, PG.citation, _EXACT, PG.policy, PROV.wasDerivedFrom,
           PROV.specializationOf, PG.observedAt, RDF.type})
"""Every predicate the stale computation reads (its queries and its own lookups)."""

_STEPS = 3
"""How far up ``prov:wasDerivedFrom`` / ``pg:inTable`` a statement can be from the snapshot
whose rows it changes: a chunk is two steps from its snapshot (through its extracted
text), an entity derived from a chunk (a prompt a citation points at) three."""


def touched(store: ProvStore, lines: Iterable[LedgerLine], newest: Mapping[IRI, IRI],
            non_true: Mapping[IRI, Collection[str]]) -> tuple[set[IRI], bool] | None:
    """The snapshots whose stale rows the writes of ``lines`` may have changed, or ``None``
    when every row must be computed anew (see the module docstring).

    Args:
        store: the store as it is now (the lines' writes included).
        lines: the ledger lines written since the index was computed.
        newest: each revised snapshot's newest revision, as the index holds it.
        non_true: per snapshot, the entities (IRIs as text) whose span verdict was not
            ``True`` (a changed or untold span), as the index holds them: what derives
            from them now rests on that snapshot.

    Returns:
        ``(snapshots, revisions)``: the snapshot IRIs touched (maybe some that are not
        stale: they have no rows), and whether the revisions or invalidations may have
        changed (then the caller adds the snapshots whose entry there changed); or
        ``None``.
    """
    by_entity: dict[str, set[IRI]] | None = None  # made at the first derivation read
    tips: dict[IRI, set[IRI]] = {}
    for snap, tip in newest.items():
        tips.setdefault(tip, set()).add(snap)
    around_memo: dict[IRI, set[IRI]] = {}

    def around(e: Term) -> set[IRI]:
        if not isinstance(e, IRI):
            return set()
        got = around_memo.get(e)
        if got is None:
            got = around_memo[e] = _around(store, e, tips)
        return got

    out: set[IRI] = set()
    revisions = False
    for line in lines:
        removed = _quads(line.removed) if line.removed else []
        added = _quads(line.added) if line.added else []
        if removed is None or added is None or any(q[1] in READ for q in removed):
            return None
        for s, p, o, _ in added:
            if p not in READ:
                continue
            if p == RDF.type and o not in TYPES:
                continue
            if isinstance(s, BNode) or isinstance(o, BNode):
                return None
            if p in REVISION_SIDE:
                revisions = True
                continue
            if p == PG.citedSnapshot:
                if isinstance(o, IRI):
                    out.add(o)
            elif p == PG.citation:
                out.update(*(around(t) for t in _targets(store, o)))
            elif p in _OF_CITATION:
                out.update(*(around(t) for t in _targets(store, s)))
            elif p == _EXACT or p == PG.policy:  # of a selector (a citation's: resolved)
                out.update(*(around(t) for t in _targets(store, s)))
                for q in store.quads(None, _SELECTOR, s):
                    out.update(*(around(t) for t in _targets(store, q[0])))
            elif p == PROV.wasDerivedFrom:
                if by_entity is None:
                    by_entity = _snapshots_of_entities(non_true)
                out |= around(o) | by_entity.get(str(o), set())
            elif p in _AROUND_OBJECT:
                out |= around(o)
            elif p in _AROUND_SUBJECT or p == RDF.type:
                out |= around(s)
            elif not isinstance(s, IRI):
                return None  # (a literal subject: no statement has one)
            elif p == PG.observedAt:
                if next(iter(store.quads(s, PROV.wasRevisionOf, None)), None) is not None:
                    revisions = True  # when a revision was observed decides the newest one
            elif p == PROV.specializationOf:
                if not isinstance(o, IRI) or next(
                        iter(store.quads(o, PROV.wasInvalidatedBy, None)), None) is not None:
                    revisions = True  # a snapshot of an invalidated document
            else:  # pragma: no cover - READ and the rules above are one list
                return None
    return out, revisions


def _snapshots_of_entities(non_true: Mapping[IRI, Collection[str]]) -> dict[str, set[IRI]]:
    """For each entity (IRI text) of ``non_true``, the snapshots it is not ``True`` for."""
    out: dict[str, set[IRI]] = {}
    for snap, entities in non_true.items():
        for e in entities:
            out.setdefault(e, set()).add(snap)
    return out


def _quads(statements: Iterable[str]) -> list[tuple[Term, Term, Term, IRI | None]] | None:
    """A ledger line's statements (N-Quads without the final `` .``) as terms; ``None``
    when they do not parse back (a blank node labelled with ``:``, which older provgraph
    let the engine take and its N-Quads parser refuses): then everything is computed."""
    text = "".join(t + " .\n" for t in statements).encode("utf-8")
    try:
        return [(q[0], q[1], q[2], q[3]) for q in iter_rdf(io.BytesIO(text), "nquads")]
    except SerializationError:
        return None


def _targets(store: ProvStore, citation: Term) -> list[Term]:
    """What ``citation`` points at (``pg:target``), as the store holds it now."""
    if not isinstance(citation, IRI):
        return []
    return [q[2] for q in store.quads(citation, PG.target, None)]


def _around(store: ProvStore, entity: IRI, tips: Mapping[IRI, set[IRI]]) -> set[IRI]:
    """``entity``, its ancestors up to :data:`_STEPS` steps of ``prov:wasDerivedFrom`` or
    ``pg:inTable``, the snapshots of it when it is a document (``prov:specializationOf``),
    and the revised snapshots whose newest revision is one of those."""
    seen = {entity}
    frontier = [entity]
    for _ in range(_STEPS):
        up: list[IRI] = []
        for e in frontier:
            for p in (PROV.wasDerivedFrom, PG.inTable):
                for q in store.quads(e, p, None):
                    if isinstance(q[2], IRI) and q[2] not in seen:
                        seen.add(q[2])
                        up.append(q[2])
        frontier = up
    for q in store.quads(None, PROV.specializationOf, entity):
        if isinstance(q[0], IRI):
            seen.add(q[0])
    for e in list(seen):
        seen |= tips.get(e, set())
    return seen
