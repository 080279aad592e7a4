"""Batched store reads for the resolver (issue 12: on a remote store every read is a
network round trip, so ``resolve`` must not read once per citation).

:class:`BatchedReads` caches each subject's statements and the reverse lookups the
resolver makes (what derives from or specializes a resource). While ``collecting``
is on, a read the caches cannot answer is noted and raises :class:`_Miss`; the
caller (:meth:`provgraph._resolver._Resolver.resolve_many`) then fetches every noted
read at once (:meth:`BatchedReads.fetch`: a describe of those subjects, a describe
of what they name upstream, one reverse lookup) and tries those citations again.
After ``_ROUNDS`` rounds what is still missing is read directly, so batching never
changes a verdict, only the number of queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .ids import IRI_SYNTAX
from .schema.citation import Citation
from .store import ProvStore
from .terms import IRI, Literal, Term, lit
from .vocab import PG, PROV, RDF

__all__ = ["BatchedReads"]


class _Miss(Exception):
    """A batched read is needed before this citation can be resolved (see resolve_many)."""


def _value(term: Term | None) -> Any:
    return term.to_python() if isinstance(term, Literal) else (None if term is None else str(term))


class BatchedReads:
    """The resolver's view of the store: statements by subject and reverse lookups,
    cached, and fetched in batches (see the module docstring).

    Args:
        store: the store read.
    """

    def __init__(self, store: ProvStore) -> None:
        self.store = store
        self._props: dict[str, Mapping[IRI, list[Term]]] = {}  # subject -> predicate -> objects
        self._claim_aids: dict[str, list[tuple[IRI, str]]] = {}
        self._subjects: dict[tuple[str, str], list[IRI]] = {}
        self._docs_by_uri: dict[str, list[IRI]] = {}
        self._reversed: set[str] = set()
        self._want_props: set[IRI] = set()
        self._want_subjects: set[tuple[str, str]] = set()
        self._collecting = False

    def prefetch(self, cits: Sequence[Citation]) -> None:
        """Documents by source URI for raw target ids, the aids of every claim's prompt
        and retrieval, and the targets' statements: three queries."""
        raws = sorted({c.target_id for c in cits if c.target is None and c.target_id})
        if raws:
            rows = self.store.select(_DOCUMENT_BY_URI, values=("uri", [lit(r) for r in raws]),
                                     source="provgraph.resolve (documents by URI)")
            found: dict[str, set[IRI]] = {r: set() for r in raws}
            for row in rows:
                if row["uri"] is not None and row["doc"] is not None:
                    found.setdefault(str(_value(row["uri"])), set()).add(IRI(row["doc"]))
            self._docs_by_uri.update({k: sorted(v) for k, v in found.items()})
        claims = sorted({c.claim for c in cits if c.claim is not None})
        if claims:
            rows = self.store.select(_AIDS_OF_CLAIM, values=("claim", claims),
                                     source="provgraph.resolve (aids of claims)")
            got: dict[str, set[tuple[IRI, str]]] = {c: set() for c in claims}
            for row in rows:
                got[str(row["claim"])].add((IRI(row["aid"]), str(_value(row["text"]))))
            self._claim_aids.update({k: sorted(v) for k, v in got.items()})
        targets = {c.target for c in cits if c.target is not None}
        targets |= {d for docs in self._docs_by_uri.values() for d in docs}
        targets |= {IRI(r) for r in raws if IRI_SYNTAX.match(r)}
        self._want_props |= targets
        self.fetch()

    def fetch(self) -> None:
        """Read everything noted as missing: a describe of those subjects and one of the
        resources they name along the upstream links (the next reads a walk makes), and
        one reverse lookup: at most three queries."""
        want = sorted(self._want_props - self._props.keys())
        self._want_props = set()
        if want:
            got = self.store.describe(want)
            self._props.update(got.items())
            ahead = sorted({IRI(o) for p in got.values() for k in _AHEAD for o in p.get(k, [])
                            if isinstance(o, IRI)} - self._props.keys())
            if ahead:
                self._props.update(self.store.describe(ahead).items())
        objs = sorted({o for (_, o) in self._want_subjects} - self._reversed)
        self._want_subjects = set()
        if objs:
            for p in _REVERSE:
                for o in objs:
                    self._subjects[(p, o)] = []
            rows = self.store.select(_REVERSE_LOOKUP, values=("o", [IRI(o) for o in objs]),
                                     source="provgraph.resolve (derived resources)")
            for row in rows:
                key = (str(row["p"]), str(row["o"]))
                if key in self._subjects and isinstance(row["s"], IRI):
                    self._subjects[key].append(row["s"])
            for o in objs:
                for p in _REVERSE:
                    self._subjects[(p, o)].sort()
            self._reversed.update(objs)

    def need(self, props: Iterable[str] = (), subjects: Iterable[tuple[str, str]] = ()) -> None:
        """While collecting, note every read of ``props`` (subjects) and ``subjects``
        (``(predicate, object)`` reverse lookups) the caches lack, then raise _Miss if
        any was noted, so one round fetches them all."""
        if not self._collecting:
            return
        missing = False
        for iri in props:
            if iri not in self._props and IRI_SYNTAX.match(iri):
                self._want_props.add(IRI(iri))
                missing = True
        for key in subjects:
            if key not in self._subjects:
                self._want_subjects.add(key)
                missing = True
        if missing:
            raise _Miss()

    def subjects(self, pred: str, obj: str) -> list[IRI]:
        """The subjects of ``? pred obj`` (fetched in a batch, else one store lookup)."""
        got = self._subjects.get((pred, obj))
        if got is None and self._collecting and pred in _REVERSE:
            self._want_subjects.add((pred, obj))
            raise _Miss()
        if got is None:
            got = self._subjects[(pred, obj)] = sorted(
                IRI(q[0]) for q in self.store.quads(None, IRI(pred), IRI(obj)))
        return got

    # ------------------------------------------------------------ reading
    def props(self, iri: str) -> Mapping[IRI, list[Term]]:
        got = self._props.get(iri)
        if got is None and self._collecting and IRI_SYNTAX.match(iri):
            self._want_props.add(IRI(iri))
            raise _Miss()
        if got is None:
            read: dict[IRI, list[Term]] = {}
            for _, p, o, _ in self.store.quads(IRI(iri)):
                read.setdefault(p, []).append(o)
            self._props[iri] = got = read
        return got

    def one(self, iri: str, pred: IRI) -> Any:
        vals = self.props(iri).get(pred)
        return _value(vals[0]) if vals else None

    def objects(self, iri: str, pred: IRI) -> list[IRI]:
        return [IRI(o) for o in self.props(iri).get(pred, []) if not isinstance(o, Literal)]

    def types(self, iri: str) -> set[str]:
        return {str(o) for o in self.props(iri).get(RDF.type, [])}


_PREFIXES = """PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX pg: <https://w3id.org/provgraph/ns#>
PREFIX oa: <http://www.w3.org/ns/oa#>
"""
_DOCUMENT_BY_URI = _PREFIXES + "SELECT ?uri ?doc WHERE { ?doc pg:sourceUri ?uri ; a pg:Document }"
_ROUNDS = 12
_AHEAD = (PROV.wasDerivedFrom, PROV.wasGeneratedBy, PROV.wasAssociatedWith, PROV.specializationOf,
          PG.segment, PG.segmentSource, PG.target)
_REVERSE = (PROV.wasDerivedFrom, PROV.specializationOf)
_REVERSE_LOOKUP = _PREFIXES + """SELECT ?s ?p ?o WHERE {
  { ?s prov:wasDerivedFrom ?o BIND(prov:wasDerivedFrom AS ?p) }
  UNION { ?s prov:specializationOf ?o BIND(prov:specializationOf AS ?p) }
}"""
# The origin is tested in a FILTER, not as a constant in the pattern: with the constant,
# pyoxigraph started that UNION branch from every "generated" segment of the store (0.6 s
# of the demo's 0.9 s resolve, issue 16); sameTerm() is the pattern's own term equality.
_AIDS_OF_CLAIM = _PREFIXES + """SELECT DISTINCT ?claim ?aid ?text WHERE {
  ?claim pg:answer ?ans . ?ans prov:wasGeneratedBy ?gen . ?gen prov:used ?gi .
  { ?gi pg:segment ?seg . ?seg pg:segmentSource ?aid ; pg:origin ?origin
    FILTER (sameTerm(?origin, "generated")) }
  UNION { ?gi prov:wasGeneratedBy ?pack . ?pack prov:wasInformedBy ?ret . ?ret pg:aidUsed ?aid }
  ?aid pg:text ?text .
}"""
