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

Stores written by older provgraph versions hold removal records that break those rules
(the run typed ``pg:Run``; a run with two invalidation times): :func:`outdated` finds them
and says how each is brought up to date (``provgraph upgrade``), and ``provgraph validate``
reports them with the same text.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Literal, Quad, Term, lit
from ..vocab import GRAPH, PG, PROV, RDF, RDFS
from ..xsd import instant
from ._table import Field, Table, decode_term

__all__ = ["RemovalRecord", "REMOVAL", "OutdatedRemoval", "removal_iri", "removed_run_iri",
           "removed_types", "to_quads", "load", "of_runs", "outdated"]


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
    on its alternate :func:`removed_run_iri` (what :func:`to_quads` writes and
    :func:`outdated` rewrites an old record to: one shape for both)."""
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


@dataclass(frozen=True, slots=True, kw_only=True)
class OutdatedRemoval:
    """One thing an older provgraph wrote in a removal record of :data:`GRAPH.REMOVALS`
    that the current one does not (:func:`outdated`).

    Attributes:
        run: the removed run.
        problem: what is wrong, one sentence.
        fix: what ``provgraph upgrade`` does about it (``""``: nothing safe: ``problem``
            says what to do by hand).
        remove: the statements the fix removes (all in :data:`GRAPH.REMOVALS`); for a
            problem without a fix, the statements involved.
        add: the statements the fix adds there.
    """

    run: IRI
    problem: str
    fix: str
    remove: tuple[Quad, ...]
    add: tuple[Quad, ...]

    def message(self) -> str:
        """The problem and its fix, as ``provgraph validate`` prints it."""
        if not self.fix:
            return self.problem
        return (f"{self.problem}; 'provgraph upgrade' {self.fix} (one ledgered transaction; "
                "'provgraph upgrade --dry-run' shows the change first)")


def outdated(triples: Iterable[tuple[Term, Term, Term]]) -> list[OutdatedRemoval]:
    """The removal records of :data:`GRAPH.REMOVALS` that an older provgraph wrote, with
    the statements that bring each to the shape :func:`to_quads` writes now.

    Two shapes are found:

    * the removed run typed ``pg:Run`` (before ``pg:RemovedRun``): the SHACL ``RunShape``
      then asks for the start time and package versions its deleted graph held. Fixed by
      retyping it ``pg:RemovedRun``.
    * a run with more than one ``pg:Removal`` (deleted, recorded again under the same IRI,
      deleted again), hence more than one ``prov:invalidatedAtTime`` (PROV-CONSTRAINTS
      C40). Fixed by keeping the earliest removal on the run and moving each later one to
      an alternate of it (:func:`removed_run_iri`), as :func:`to_quads` writes a repeated
      removal. A later removal whose end time is not among the run's invalidation times
      is reported without a fix.

    Args:
        triples: the statements of :data:`GRAPH.REMOVALS` (``(s, p, o)`` terms, as
            :meth:`provgraph.store.ProvStore.quads` gives them); other graphs' statements
            must not be mixed in.

    Returns:
        The :class:`OutdatedRemoval` entries, by run IRI (a run may have both); ``[]`` for
        a graph written by the current version.
    """
    props: dict[Term, dict[Term, list[Term]]] = {}
    for s, p, o in triples:
        props.setdefault(s, {}).setdefault(p, []).append(o)
    removals = {s for s, ps in props.items() if PG.Removal in ps.get(RDF.type, ())}
    out = []
    g = GRAPH.REMOVALS
    for node in sorted(props, key=str):
        ps = props[node]
        invs = [r for r in ps.get(PROV.wasInvalidatedBy, ()) if r in removals]
        if not invs or not isinstance(node, IRI):
            continue
        run = IRI(node)
        types = [IRI(t) for t in ps.get(RDF.type, ()) if isinstance(t, IRI)]
        if PG.Run in types:
            out.append(OutdatedRemoval(
                run=run, problem=(
                    f"the removal record of run <{run}> was written by an older provgraph: the "
                    "deleted run is typed pg:Run there, not pg:RemovedRun, so the SHACL "
                    "RunShape asks for the start time and package versions that went with "
                    "its graph"),
                fix="retypes it pg:RemovedRun",
                remove=((run, RDF.type, PG.Run, g),),
                add=() if PG.RemovedRun in types else ((run, RDF.type, PG.RemovedRun, g),)))
        if len(invs) > 1:
            out.append(_repeated(run, invs, props, removed_types(types),
                                 sorted(ps.get(RDFS.label, ()), key=str)))
    return out


def _repeated(run: IRI, invs: list[Term], props: dict[Term, dict[Term, list[Term]]],
              types: Sequence[IRI], labels: Sequence[Term]) -> OutdatedRemoval:
    """:func:`outdated`'s second shape: every removal of ``run`` but the earliest moved to
    an alternate of it."""
    def ended(r: Term) -> Term | None:
        return next(iter(props[r].get(PROV.endedAtTime, ())), None)

    def key(r: Term) -> tuple[bool, Any, str]:
        t = ended(r)
        value = t.to_python() if isinstance(t, Literal) else None
        at = instant(value) if isinstance(value, _dt.datetime) else None
        return (at is None, at, str(r))

    g = GRAPH.REMOVALS
    first, *later = sorted(invs, key=key)
    kept = ended(first)
    times = props[run].get(PROV.invalidatedAtTime, [])
    shown = ", ".join(sorted(t.value if isinstance(t, Literal) else str(t) for t in times))
    problem = (f"run <{run}> has {len(invs)} removal records (it was deleted, recorded again "
               "under the same IRI, and deleted again) and an older provgraph put every one "
               f"on the run itself: {len(times)} prov:invalidatedAtTime values ({shown}), "
               "where PROV allows one (PROV-CONSTRAINTS C40)")
    involved = tuple((run, PROV.invalidatedAtTime, t, g) for t in times)
    remove: list[Quad] = []
    add: list[Quad] = []
    for r in later:
        at = ended(r)
        if at is None or at not in times or at == kept or not isinstance(r, IRI):
            return OutdatedRemoval(
                run=run, problem=(
                    f"{problem}; the removal <{r}> has no end time of its own among them, so "
                    "'provgraph upgrade' cannot move it safely: correct the removals graph by "
                    "hand ('provgraph runs --removed' lists the removals)"),
                fix="", remove=involved, add=())
        remove += [(run, PROV.wasInvalidatedBy, IRI(r), g), (run, PROV.invalidatedAtTime, at, g)]
        add += _invalidated(run, IRI(r), at, types, labels, again=True)
    return OutdatedRemoval(
        run=run, problem=problem,
        fix=("keeps the earliest removal on the run and moves each later one to an alternate "
             "of it (prov:alternateOf), as 'provgraph delete-run' records a repeated deletion "
             "now"),
        remove=tuple(remove), add=tuple(add))
