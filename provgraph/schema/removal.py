"""The removal of a run: a ``pg:Removal`` activity that invalidated a run (a PROV bundle,
PROV-DM §5.4.1) when ``provgraph delete-run`` deleted its named graph (issue 17).

Deleting is recorded, never silent: in the graph :data:`provgraph.vocab.GRAPH.REMOVALS`
the run ``prov:wasInvalidatedBy`` the removal at ``prov:invalidatedAtTime`` (PROV-DM
§5.1.7 Invalidation), keeps its label there, and the removal carries the number of
statements deleted (``pg:removedStatements``), the ``pg:sha256`` of their canonical
N-Quads (:meth:`provgraph.store.ProvStore.canonical_nquads`: a copy of the run kept
elsewhere can be shown to be what was removed) and, when given, why (``rdfs:comment``).

The run keeps its types there too, but a ``pg:Run`` is kept as a ``pg:RemovedRun`` (a
``prov:Bundle``, :func:`removed_types`): a ``pg:Run`` carries its start time and package
versions (the SHACL ``RunShape``), statements of its graph that were just deleted, so the
audit trail does not claim a live run whose facts it no longer holds.

A run is invalidated once (PROV-CONSTRAINTS C40: the invalidations of one entity are one
instant). A run deleted, recorded again under the same IRI (the same event log, a
content-named import) and deleted again is recorded as an *alternate* of the run
(``prov:alternateOf``, PROV-DM §5.5.2: another aspect of the same thing, here at another
time), :func:`removed_run_iri`, that the second ``pg:Removal`` invalidated: the audit
trail keeps both removals, each with its own time, count and digest, and stays valid.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad, Term, lit
from ..vocab import GRAPH, PG, PROV, RDF, RDFS
from ._table import Field, Table, decode_term

__all__ = ["RemovalRecord", "REMOVAL", "removal_iri", "removed_run_iri", "removed_types",
           "to_quads", "load", "of_runs"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RemovalRecord:
    """One deleted run.

    Args:
        iri: the ``pg:Removal`` activity (:func:`removal_iri`).
        run: the run (or other bundle) whose graph was deleted.
        at: when (timezone-aware; ``prov:endedAtTime`` of the removal and
            ``prov:invalidatedAtTime`` of the run).
        statements: how many statements the graph held.
        sha256: hex SHA-256 of those statements' canonical N-Quads.
        label: the run's ``rdfs:label`` (``""``: it had none).
        run_types: the run's types (``pg:Run``, ``prov:Bundle`` ...) when it was removed;
            written as :func:`removed_types`.
        reason: why, as given (``""``: not given).
        again: the run was deleted before (it has a removal record) and recorded again
            since: this removal invalidates :func:`removed_run_iri`, an alternate of the
            run, not the run itself, which keeps its first invalidation.
    """

    iri: IRI
    run: IRI
    at: _dt.datetime
    statements: int
    sha256: str
    label: str = ""
    run_types: tuple[IRI, ...] = ()
    reason: str = ""
    again: bool = False


REMOVAL = Table(
    "removal", (PROV.Activity, PG.Removal),
    fields=(Field("at", PROV.endedAtTime, "datetime"),
            Field("statements", PG.removedStatements, "int"),
            Field("sha256", PG.sha256),
            Field("reason", RDFS.comment, default="", omit_empty=True)),
    record=None)


def removal_iri(run: IRI, at: _dt.datetime) -> IRI:
    """The removal's IRI: content-derived from the run and the instant."""
    return ids.content_iri("removal", run, at.isoformat())


def removed_run_iri(removal: IRI) -> IRI:
    """The alternate of a run that a repeated removal invalidates (:attr:`RemovalRecord.again`):
    content-derived from the removal's IRI, so one removal names one alternate."""
    return ids.content_iri("removed-run", removal)


def removed_types(run_types: Sequence[IRI]) -> tuple[IRI, ...]:
    """The types a removed run keeps in :data:`GRAPH.REMOVALS`: ``run_types`` with
    ``pg:Run`` replaced by ``pg:RemovedRun``, in order, without repeats.

    Example:
        >>> [str(t) for t in removed_types([PROV.Bundle, PG.Run])]
        ['http://www.w3.org/ns/prov#Bundle', 'https://w3id.org/provgraph/ns#RemovedRun']
    """
    return tuple(dict.fromkeys(PG.RemovedRun if t == PG.Run else t for t in run_types))


def to_quads(rec: RemovalRecord) -> list[Quad]:
    """The removal's statements and the run's invalidation, in :data:`GRAPH.REMOVALS`
    (the run typed as :func:`removed_types` says; with :attr:`RemovalRecord.again`, the
    invalidation, types and label are on the alternate :func:`removed_run_iri`)."""
    q = REMOVAL.quads(rec.iri, rec, GRAPH.REMOVALS)
    return q + _invalidated(rec.run, rec.iri, lit(rec.at), removed_types(rec.run_types),
                            [lit(rec.label)] if rec.label else [], rec.again)


def _invalidated(run: IRI, removal: IRI, at: Term, types: Sequence[IRI], labels: Sequence[Term],
                 again: bool) -> list[Quad]:
    """The removed run's statements in :data:`GRAPH.REMOVALS`: on ``run``, or (``again``)
    on its alternate :func:`removed_run_iri`."""
    g = GRAPH.REMOVALS
    node = removed_run_iri(removal) if again else run
    q: list[Quad] = [(node, RDF.type, t, g) for t in types]
    q += [(node, RDFS.label, label, g) for label in labels]
    if again:
        q.append((node, PROV.alternateOf, run, g))
    q += [(node, PROV.wasInvalidatedBy, removal, g), (node, PROV.invalidatedAtTime, at, g)]
    return q


_REMOVALS = f"""SELECT ?run ?removal ?at ?n ?sha ?label ?why WHERE {{
  GRAPH <{GRAPH.REMOVALS}> {{
    ?node <{PROV.wasInvalidatedBy}> ?removal .
    ?removal a <{PG.Removal}> ; <{PROV.endedAtTime}> ?at ; <{PG.removedStatements}> ?n ;
             <{PG.sha256}> ?sha .
    OPTIONAL {{ ?node <{PROV.alternateOf}> ?of }}
    OPTIONAL {{ ?node <{RDFS.label}> ?label }}
    OPTIONAL {{ ?removal <{RDFS.comment}> ?why }}
  }}
  BIND(COALESCE(?of, ?node) AS ?run)
}}"""


def load(store: ProvStore) -> list[RemovalRecord]:
    """Every removal recorded, oldest first (one query; the run types are not read). A
    repeated removal (:attr:`RemovalRecord.again`) is read as a removal of the run its
    alternate stands for; ``again`` is not read back."""
    out = []
    for r in store.select(_REMOVALS):
        def value(name: str, codec: str, default: Any = None) -> Any:
            term = r.get(name)
            return default if term is None else decode_term(codec, term)

        out.append(RemovalRecord(
            iri=IRI(r["removal"]), run=IRI(r["run"]), at=value("at", "datetime"),
            statements=value("n", "int", 0), sha256=value("sha", "str", ""),
            label=value("label", "str", ""), reason=value("why", "str", "")))
    return sorted(out, key=lambda x: (x.at, x.run))


def of_runs(store: ProvStore, runs: Sequence[IRI]) -> dict[IRI, RemovalRecord]:
    """The latest removal of each of ``runs`` that was removed, by run."""
    wanted = set(runs)
    return {r.run: r for r in load(store) if r.run in wanted}

