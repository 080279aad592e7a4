"""What kind of resource an IRI names: the one check behind every option that takes an
IRI of a given kind (``--run``, ``--claim``, a lineage start), so that an IRI of the
wrong kind is an error that says what the IRI is, never an empty or a wrong answer
(issue 17: ``export --claim RUN`` exported a 9-statement bundle, ``coverage --run CLAIM``
printed ``[]``).

Kinds are read from the store: a *run* is a named graph of the store (a PROV bundle,
PROV-DM §5.4.1; what provgraph records is also a ``pg:Run``); a *lineage start*
(:func:`provgraph.analytics.lineage`, :func:`provgraph.io.bundle.export` with
``claim=``) is any resource of the store except a run or another ``prov:Bundle``, whose
content is exported with ``run=``.
"""

from __future__ import annotations

from ._rows import _check_iri, curie
from .errors import NotFound, RunDeleted, WrongKind
from .store import ProvStore
from .terms import IRI
from .vocab import GRAPH, PG, PROV, RDF

__all__ = ["types_of", "describe_types", "require_run", "check_run", "require_lineage_start", "RUN_TYPES"]

RUN_TYPES = frozenset({str(PG.Run), str(PROV.Bundle)})
"""Types that make a resource a run (a bundle) rather than a lineage start."""


def _curie(iri: str) -> str:
    short = curie(iri)
    return short if short != iri else f"<{iri}>"


def _types(store: ProvStore, iri: IRI) -> set[str]:
    return {str(q[2]) for q in store.quads(iri, RDF.type)}


def types_of(store: ProvStore, iri: IRI) -> list[str]:
    """The ``rdf:type`` values of ``iri`` in any graph, as sorted CURIEs (``pg:Claim``)
    or ``<IRI>`` for types outside PROV-O and provgraph's vocabulary."""
    return _sorted_curies(_types(store, iri))


def describe_types(store: ProvStore, iri: IRI) -> str:
    """What ``iri`` is, for an error message: ``a run (pg:Run, prov:Bundle, prov:Entity)``,
    ``a claim (pg:Claim, prov:Entity)``; ``iri`` must have a type."""
    return _described(types_of(store, iri))


def _sorted_curies(types: set[str]) -> list[str]:
    return sorted((_curie(t) for t in types), key=lambda c: (c.startswith("<"), c))


def _described(types: list[str]) -> str:
    if "pg:Run" in types or "prov:Bundle" in types:
        name = "a run"
    else:
        noun = (next(t for t in types if t.startswith("pg:"))[3:] if any(
            t.startswith("pg:") for t in types) else types[0].removeprefix("prov:")).lower()
        name = ("an " if noun[:1] in ("a", "e", "i", "o", "u") else "a ") + noun
    return f"{name} ({', '.join(types)})"


def require_run(store: ProvStore, run: str) -> IRI:
    """``run`` as an IRI, once checked to name a run: a named graph of the store.

    Args:
        store: the store to read (two pattern reads at most).
        run: an absolute IRI.

    Returns:
        ``IRI(run)``.

    Raises:
        WrongKind: ``run`` names something else the store holds (a claim, a citation):
            the message gives its types.
        RunDeleted: ``run`` was deleted (``provgraph delete-run``): the message says when.
        NotFound: the store holds nothing about ``run``.
    """
    iri = IRI(run)
    if store.has_graph(iri):
        return iri
    invalidation = next(iter(store.quads(iri, PROV.wasInvalidatedBy, None, GRAPH.REMOVALS)),
                        None)
    if invalidation is not None:
        from .schema.removal import load, of_runs

        gone = of_runs(store, [iri]).get(iri)
        if gone is None:  # the alternate a repeated removal invalidated: its own removal
            gone = next((r for r in load(store) if r.iri == invalidation[2]), None)
        if gone is not None:
            raise RunDeleted(iri, gone.at, gone.statements)
    types = types_of(store, iri)
    if types:
        raise WrongKind(iri, "run", _described(types),
                        "give a run IRI ('provgraph runs' lists them)")
    raise NotFound(iri, "run")


def check_run(store: ProvStore, run: str | None) -> IRI | None:
    """A ``run=`` argument of the query library: ``None`` (every run) stays ``None``;
    anything else must be an absolute IRI (:class:`~provgraph.errors.QueryParameterError`
    otherwise) naming a run (:func:`require_run`)."""
    if run is None:
        return None
    return require_run(store, _check_iri("run", run))


def require_lineage_start(store: ProvStore, iri: str, what: str | None = None) -> IRI:
    """``iri`` as an IRI, once checked not to be a run or another ``prov:Bundle``: the
    start of a lineage walk (:func:`provgraph.analytics.lineage`, a claim bundle of
    :func:`provgraph.io.bundle.export`).

    Args:
        store: the store to read: one pattern read (its types), and a second only when
            ``what`` is given and it has none.
        iri: an absolute IRI.
        what: when given, ``iri`` must also be the subject of a statement, and
            :class:`NotFound` names it so (``claim``); ``None`` leaves that check to the
            caller.

    Raises:
        WrongKind: ``iri`` is a run or another ``prov:Bundle``; the message says to
            export it with ``--run``.
        NotFound: ``what`` is given and the store has no statement about ``iri``.
    """
    node = IRI(iri)
    types = _types(store, node)
    if RUN_TYPES & types:
        raise WrongKind(node, "claim or other lineage start", _described(_sorted_curies(types)),
                        f"export a run with --run {node}")
    if what is not None and not types and not store.has_subject(node):
        raise NotFound(node, what)
    return node
