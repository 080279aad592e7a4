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
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad, lit
from ..vocab import GRAPH, PG, PROV, RDF, RDFS
from ._table import Field, Table, decode_term

__all__ = ["RemovalRecord", "REMOVAL", "removal_iri", "removed_types", "to_quads", "load",
           "of_runs"]


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
    """

    iri: IRI
    run: IRI
    at: _dt.datetime
    statements: int
    sha256: str
    label: str = ""
    run_types: tuple[IRI, ...] = ()
    reason: str = ""


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
    (the run typed as :func:`removed_types` says)."""
    g = GRAPH.REMOVALS
    q = REMOVAL.quads(rec.iri, rec, g)
    q += [(rec.run, RDF.type, t, g) for t in removed_types(rec.run_types)]
    if rec.label:
        q.append((rec.run, RDFS.label, lit(rec.label), g))
    q += [(rec.run, PROV.wasInvalidatedBy, rec.iri, g),
          (rec.run, PROV.invalidatedAtTime, lit(rec.at), g)]
    return q


_REMOVALS = f"""SELECT ?run ?removal ?at ?n ?sha ?label ?why WHERE {{
  GRAPH <{GRAPH.REMOVALS}> {{
    ?run <{PROV.wasInvalidatedBy}> ?removal .
    ?removal a <{PG.Removal}> ; <{PROV.endedAtTime}> ?at ; <{PG.removedStatements}> ?n ;
             <{PG.sha256}> ?sha .
    OPTIONAL {{ ?run <{RDFS.label}> ?label }}
    OPTIONAL {{ ?removal <{RDFS.comment}> ?why }}
  }}
}}"""


def load(store: ProvStore) -> list[RemovalRecord]:
    """Every removal recorded, oldest first (one query; the run types are not read)."""
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
