"""The runs of a store: listing them with their sizes and times, and deleting one as a
recorded invalidation (issue 17; ``provgraph runs``, ``provgraph delete-run``).

A run is a named graph of the store: a PROV bundle (PROV-DM §5.4.1), recorded by provgraph
(a ``pg:Run``) or imported (a PROV document's bundle, the graph ``import --graph`` named, each
run an importer records per answer or trace). Deleting one removes every statement of its
graph and, in the same transaction, records a ``pg:Removal`` that invalidated it
(:mod:`provgraph.schema.removal`): the audit trail says what was removed, when and how much.
Facts shared by runs (the ingestion graph: documents, snapshots, chunks) and the retained
original bytes stay.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib

from ._rows import _Row, _int, _run_query, _str
from .errors import ProvgraphError
from .kinds import require_run
from .schema import removal as removal_schema
from .store import ProvStore
from .terms import IRI, term_value
from .vocab import GRAPH, PROV, RDF
from .xsd import instant

__all__ = ["RunRow", "RemovalRow", "runs", "run_summary", "removals", "delete_run"]

_MIN = _dt.datetime.min.replace(tzinfo=_dt.timezone.utc)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RunRow(_Row):
    """A run (a named graph) of the store.

    Attributes:
        run: the run's IRI, which names its graph.
        kind: ``run`` (recorded by provgraph: a ``pg:Run``) or ``bundle`` (another named
            graph: an imported PROV bundle, an ``import --graph``).
        label: its ``rdfs:label``, if any.
        started: when it started (``prov:generatedAtTime`` of the bundle), if recorded;
            timezone-aware.
        statements: how many statements its graph holds.
        claims: how many ``pg:Claim`` resources its graph holds.
    """

    run: IRI
    kind: str
    label: str | None
    started: _dt.datetime | None
    statements: int
    claims: int


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RemovalRow(_Row):
    """A deleted run, from the audit trail (:mod:`provgraph.schema.removal`).

    Attributes:
        run: the run deleted.
        label: its label when it was deleted, if any.
        removed: when (timezone-aware).
        statements: how many statements were removed.
        sha256: SHA-256 of those statements' canonical N-Quads.
        reason: why, as given (``None``: not given).
        removal: the ``pg:Removal`` activity's IRI.
    """

    run: IRI
    label: str | None
    removed: _dt.datetime
    statements: int
    sha256: str
    reason: str | None
    removal: IRI


def runs(store: ProvStore) -> list[RunRow]:
    """Every run of the store, oldest first (``runs.rq``; runs without a start time last,
    by IRI). Reads every statement of the named graphs once (to count them).

    Example:
        >>> from provgraph import EmbeddedStore, Recorder
        >>> import datetime
        >>> s = EmbeddedStore()
        >>> t = datetime.datetime(2026, 1, 5, 8, 0, tzinfo=datetime.timezone.utc)
        >>> rec = Recorder(s, label="nightly", packages=[], started_at=t)
        >>> _ = rec.query("How often?", at=t)
        >>> [(r.kind, r.label, r.started.isoformat(), r.claims) for r in runs(s)]
        [('run', 'nightly', '2026-01-05T08:00:00+00:00', 0)]
    """
    out = []
    for r in _run_query(store, "runs", {}):
        started = term_value(r["started"]) if r.get("started") is not None else None
        out.append(RunRow(run=IRI(r["run"]), kind=_str(r["kind"]) or "bundle",
                          label=_str(r.get("label")),
                          started=started if isinstance(started, _dt.datetime) else None,
                          statements=_int(r["statements"]), claims=_int(r.get("claims"))))
    return sorted(out, key=lambda x: (x.started is None, instant(x.started) or _MIN, x.run))


def run_summary(store: ProvStore, run: str) -> RunRow:
    """The :class:`RunRow` of one run (what :func:`delete_run` would remove).

    Raises:
        NotFound: ``run`` names nothing in the store, or a run that was deleted.
        WrongKind: ``run`` names a claim or other resource, not a run.
    """
    iri = require_run(store, run)
    for row in runs(store):
        if row.run == iri:
            return row
    raise ProvgraphError(f"<{iri}> is one of provgraph's own graphs, not a run; it cannot "
                         "be listed or deleted as one")


def removals(store: ProvStore) -> list[RemovalRow]:
    """Every deleted run recorded in the audit trail, oldest first (one query)."""
    return [RemovalRow(run=r.run, label=r.label or None, removed=r.at, statements=r.statements,
                       sha256=r.sha256, reason=r.reason or None, removal=r.iri)
            for r in removal_schema.load(store)]


def delete_run(store: ProvStore, run: str, *, reason: str = "",
               at: _dt.datetime | None = None) -> RemovalRow:
    """Delete a run's named graph and record the deletion, in one transaction.

    The graph's statements are removed; in :data:`provgraph.vocab.GRAPH.REMOVALS` the run
    ``prov:wasInvalidatedBy`` a ``pg:Removal`` (PROV-DM §5.1.7) that records when, how
    many statements and the SHA-256 of their canonical N-Quads, with the run's label and
    types (a ``pg:Run`` kept as a ``pg:RemovedRun``:
    :func:`provgraph.schema.removal.removed_types`). Shared ingestion facts and retained
    originals are kept. Reading the run afterwards is a
    :class:`~provgraph.errors.RunDeleted` that says when it was deleted, and so is deleting
    it again: nothing is written then.

    A run deleted before and recorded again since under the same IRI (the same event log,
    a content-named import) can be deleted again: the new removal invalidates an alternate
    of the run (:func:`provgraph.schema.removal.removed_run_iri`, ``prov:alternateOf``
    the run), since a run is invalidated once (PROV-CONSTRAINTS C40); ``runs --removed``
    lists both removals under the run.

    Args:
        store: the store (written in one transaction: all or nothing).
        run: the run's IRI (a named graph: ``provgraph runs`` lists them).
        reason: why, kept as the removal's ``rdfs:comment`` (``""``: none).
        at: when (timezone-aware; default: now, UTC).

    Returns:
        The :class:`RemovalRow` recorded.

    Raises:
        RunDeleted: the run was deleted and has not been recorded again (a
            :class:`~provgraph.errors.NotFound`); nothing is written.
        NotFound, WrongKind: as :func:`run_summary`.
        ProvgraphError: ``run`` is one of provgraph's own graphs.
        StoreError: the store cannot be written; nothing is changed.
    """
    summary = run_summary(store, run)
    when = at or _dt.datetime.now(_dt.timezone.utc)
    if when.tzinfo is None:
        raise ProvgraphError("the removal time must be timezone-aware")
    quads = list(store.quads(graph=summary.run))
    digest = hashlib.sha256(store.canonical_nquads([summary.run]).encode("utf-8")).hexdigest()
    types = tuple(sorted({IRI(q[2]) for q in quads
                          if q[0] == summary.run and q[1] == RDF.type and isinstance(q[2], IRI)}))
    again = next(iter(store.quads(summary.run, PROV.wasInvalidatedBy, None, GRAPH.REMOVALS)),
                 None) is not None
    rec = removal_schema.RemovalRecord(
        iri=removal_schema.removal_iri(summary.run, when), run=summary.run, at=when,
        statements=len(quads), sha256=digest, label=summary.label or "",
        run_types=types or (IRI(PROV.Bundle),), reason=reason, again=again)
    store.replace(quads, removal_schema.to_quads(rec))
    return RemovalRow(run=rec.run, label=summary.label, removed=when, statements=len(quads),
                      sha256=digest, reason=reason or None, removal=rec.iri)
