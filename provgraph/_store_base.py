"""The store contract: :class:`ProvStore`, the interface everything above the store is
written against, and the graph selectors it takes (:data:`ANY_GRAPH`, :data:`DEFAULT_GRAPH`).

:class:`ProvStore` speaks :mod:`provgraph.terms` types only. Its implementations are
:class:`provgraph.embedded.EmbeddedStore` (an embedded pyoxigraph ``Store``),
:class:`provgraph.remote.RemoteStore` (a SPARQL 1.1 Protocol endpoint) and
:class:`provgraph.serve.client.ServedStore` (a ``provgraph serve`` server), so nothing here
leaks pyoxigraph types, and ``tests/test_store_contract.py`` is the suite every
implementation passes. Callers import these names from :mod:`provgraph.store`.

Dataset semantics: one named graph per run (a PROV bundle), the shared
ingestion graph :data:`provgraph.vocab.GRAPH.INGESTION`, and the ontology graph.
SPARQL queries see the *union of all graphs* as their default graph (the
SPARQL 1.1 Protocol equivalent is listing every graph as a
``default-graph-uri``); ``GRAPH ?g { ... }`` still addresses one graph.
"""

from __future__ import annotations

import contextlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from .errors import StoreError, UnsupportedFormat
from .ledger import LedgerLine, LedgerMark
from .originals import BlobStore
from .terms import IRI, BNode, Literal, Quad, Term
from ._oxrdf import (DATASET_FORMATS, _iris, _sparql_terms, canonical_nquads, parse_rdf,
                     serialize_quads)

__all__ = ["ProvStore", "ANY_GRAPH", "DEFAULT_GRAPH", "INDEX_DIR", "term_sort_key"]

INDEX_DIR = "index"
"""The folder of a store directory that holds derived indexes (:meth:`ProvStore.write_index`)."""

WITHOUT_LEDGER = "written-without-ledger"
"""The file a writer opened with ``ledger=False`` leaves in ``PATH/index/``: the ledger
no longer holds every write, so nothing derived from it (the stale index's updates) is
trusted again; kept for good (deleting ``PATH/index`` is safe: an index written after it
was computed from the store)."""


class _AnyGraph:
    def __repr__(self) -> str:
        return "ANY_GRAPH"


ANY_GRAPH: Any = _AnyGraph()
"""Sentinel for :meth:`ProvStore.quads`: match every graph, the default graph included."""
DEFAULT_GRAPH: None = None
"""The default graph, written as ``None`` in a :data:`~provgraph.terms.Quad`."""


class ProvStore(ABC):
    """Interface of a provgraph RDF store with retained originals (the store contract).

    Implementations: :class:`EmbeddedStore` (pyoxigraph); a remote SPARQL 1.1
    store is next (issue 13). Terms are :mod:`provgraph.terms` values; graphs are
    :class:`~provgraph.terms.IRI` or ``None`` for the default graph. An
    implementation provides the abstract primitives; everything else here is built
    on them, so it works on any implementation (which may override it for speed):

    * writing: :meth:`add`, :meth:`remove` and :meth:`replace` are transactions
      (all or nothing); :meth:`bulk_add` and :meth:`bulk_load` stream without one
      (use them for large loads, then :meth:`optimize`); :meth:`load` parses a
      document and stores it atomically; :meth:`update` runs SPARQL 1.1 Update.
    * reading: :meth:`quads` (pattern), :meth:`select`, :meth:`ask`,
      :meth:`construct` (SPARQL over the union of all graphs), and the batch reads
      the layers above use to keep the number of store round trips independent of
      the data: :meth:`describe` (every statement about a set of IRIs, one query)
      and :meth:`closure` (the nodes reachable along given predicates, one query).
    * errors: engine errors surface as :class:`~provgraph.errors.StoreError`,
      :class:`~provgraph.errors.QuerySyntaxError`,
      :class:`~provgraph.errors.QueryError` and
      :class:`~provgraph.errors.SerializationError`, never as engine exceptions.

    Attributes:
        originals: the :class:`~provgraph.originals.BlobStore` of retained
            original bytes beside the statements (the embedded store's is an
            :class:`~provgraph.originals.Originals` directory).
        location: where the store is, for messages (a directory or ``":memory:"``).
        default_graph_iri: ``None`` when the store has a default graph of its own;
            else the named graph that holds the default graph's statements (a remote
            engine: :data:`provgraph.remote.DEFAULT_GRAPH_IRI`), so every statement is
            in a named graph and a query needs no branch for default-graph-only
            statements (Virtuoso returns no rows at all for one, issue 13).
    """

    originals: BlobStore
    location: str
    default_graph_iri: IRI | None = None
    journals: bool = False
    """Whether :meth:`journaled` is available: writes in any number of transactions that
    are undone together after a failure or a crash (:class:`EmbeddedStore`)."""
    undo_progress: Callable[[str, int, int], None] | None = None
    """Where :attr:`journals` is true: called as ``undo_progress(name, removed, total)``
    while a :meth:`journaled` write is undone (statement counts, ``total`` 0 when
    unknown; ``removed`` 0 first): how a command says that a long undo runs."""

    # -- writing -------------------------------------------------------------
    @abstractmethod
    def add(self, quads: Iterable[Quad]) -> None:
        """Insert quads in one transaction, held in memory (pair: :meth:`bulk_add`).

        Either all quads are stored or none. Adding a quad already present is a no-op.

        Raises:
            StoreError: the store cannot be written, or a term is invalid (for
                example an IRI that is not absolute); nothing is stored then.
        """

    def journaled(self, name: str) -> contextlib.AbstractContextManager[None]:
        """All or nothing across many transactions (pair: one :meth:`add`, held in memory).

        Every :meth:`add` and :meth:`load` inside the block is its own transaction, so
        memory and the engine's write-ahead log stay bounded whatever the total; the
        statements they add that were not stored before are also written to an undo
        journal first. The block is kept whole when it ends normally and undone whole
        when it raises (``KeyboardInterrupt`` included) or the process dies (the next
        writer open undoes it). Readers that open meanwhile can see part of it. Only
        where :attr:`journals` is true (:meth:`EmbeddedStore.journaled` says how it
        holds across a crash); callers of a store without it keep to one :meth:`add`.

        Args:
            name: what is being written, kept in the journal (for the message of the
                open that undoes it).

        Raises:
            StoreError: this store has no journal (:attr:`journals` is false), a
                journaled block is already open, or the store is read-only.
        """
        raise StoreError(f"{self.location}: this store cannot undo writes across "
                         "transactions (journals is false); write in one add()")

    @abstractmethod
    def bulk_add(self, quads: Iterable[Quad]) -> None:
        """Insert quads streaming, without a transaction (pair: :meth:`add`).

        Faster for millions of quads; a failure part-way may leave some stored.

        Raises:
            StoreError: the store cannot be written.
        """

    @abstractmethod
    def remove(self, quads: Iterable[Quad]) -> None:
        """Remove quads in one transaction; absent quads are ignored.

        Raises:
            StoreError: the store cannot be written, or a term is invalid; nothing
                is removed then.
        """

    def replace(self, remove: Iterable[Quad], add: Iterable[Quad]) -> None:
        """Remove some quads and add others, in one transaction (absent removals are ignored).

        Used where statements are rewritten in place, such as resolver outcomes
        (issue 3). A quad both removed and added is present afterwards. The
        contract is all or nothing: after a failure the store is unchanged. This
        default runs :meth:`remove` then :meth:`add`, which is not atomic, so an
        implementation overrides it (:class:`EmbeddedStore` runs one SPARQL 1.1
        Update; the contract suite checks it).

        Raises:
            StoreError: the store cannot be written, or a term is invalid; nothing
                is changed then.
        """
        self.remove(remove)
        self.add(add)

    @abstractmethod
    def load(self, data: bytes | str | IO[bytes], format: str, *, graph: IRI | None = None,
             base_iri: str | None = None) -> int:
        """Parse RDF and store it atomically; return the number of quads added.

        Args:
            data: the document as bytes, text or a binary file object.
            format: one of :data:`RDF_FORMATS`.
            graph: target graph for triple formats (``None``: default graph).
                Dataset formats keep their own graphs.
            base_iri: base for relative IRIs; ``None`` rejects relative IRIs.

        Raises:
            UnsupportedFormat: ``format`` is not in :data:`RDF_FORMATS`.
            SerializationError: the document does not parse; nothing is stored.
        """

    # -- reading -------------------------------------------------------------
    @abstractmethod
    def quads(self, subject: IRI | BNode | None = None, predicate: IRI | None = None,
              object: Term | None = None, graph: Any = ANY_GRAPH) -> Iterator[Quad]:
        """Quads matching a pattern; ``None`` is a wildcard except for ``graph``,
        where ``None`` means the default graph and :data:`ANY_GRAPH` any graph."""

    def quads_list(self, subject: IRI | BNode | None = None, predicate: IRI | None = None,
                   object: Term | None = None, graph: Any = ANY_GRAPH) -> list[Quad]:
        """:meth:`quads` read at once into a list: the same quads, in the same order, for
        the many small reads of a walk (one subject at a time), where the iterator's own
        cost shows (issue 16, item 7)."""
        return list(self.quads(subject, predicate, object, graph))

    def subject_pairs(self, subject: IRI | BNode, *, skip_graph: IRI | None = None,
                      skip_predicates: Collection[IRI] = ()) -> list[tuple[IRI, Term]]:
        """The distinct (predicate, object) pairs of ``subject`` over every graph, the
        default graph included, but ``skip_graph`` (``None``: no graph skipped; until issue
        16 item 7's third pass ``None`` skipped the default graph), without
        ``skip_predicates``, in no particular order: one subject's
        read of a walk (pair: :meth:`quads_list`, which gives graphs and duplicates).
        :class:`EmbeddedStore` reads them without building quads (issue 16, item 7)."""
        quads = self.quads_list(subject, None, None, ANY_GRAPH)
        got = [(p, o) for _, p, o, g in quads
               if (g != skip_graph or skip_graph is None) and p not in skip_predicates]
        return list(dict.fromkeys(got)) if len({q[3] for q in quads}) > 1 else got

    def subject_pairs_batch(self, subjects: Sequence[IRI | BNode], *,
                            skip_graph: IRI | None = None,
                            skip_predicates: Collection[IRI] = ()) -> list[list[tuple[IRI, Term]]]:
        """:meth:`subject_pairs` of many subjects in one read: one list per subject, in the
        order of ``subjects`` (a subject given twice gets its pairs twice), each list the
        distinct pairs of that subject in no particular order. The walk of a run export
        reads its subjects this way (issue 16, item 7); :class:`EmbeddedStore` reads them
        with one query whose result pyoxigraph writes as text (no engine term object per
        term), this base class subject by subject.

        Raises:
            StoreError: the store cannot be read.
            QueryError: a subject is not a valid IRI.
        """
        return [self.subject_pairs(s, skip_graph=skip_graph, skip_predicates=skip_predicates)
                for s in subjects]

    @abstractmethod
    def select(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
               source: str = "<text>",
               values: tuple[str, Sequence[IRI | Literal]] | None = None,
               ) -> list[dict[str, Term | None]]:
        """Run a SPARQL 1.1 SELECT query; return one dict per solution.

        Args:
            sparql: the query text.
            bindings: values for variables (name without ``?``), substituted as
                RDF terms, never pasted into the text. Each bound variable must be
                projected (pyoxigraph 0.5.13 requirement; :mod:`provgraph.queries`
                checks it when a ``.rq`` file loads).
            source: name used in error messages (a ``.rq`` path).
            values: ``(name, terms)``: run the query once for a whole list of values
                of one variable, as a trailing ``VALUES ?name { ... }`` clause
                (SPARQL 1.1 §10.2.2; joined before projection, §18.2.4.3). The terms
                are written by the store layer's own serializer (IRIs and literals
                only: VALUES admits no blank node), so the result equals the union
                of the runs with ``bindings={name: term}`` for each term, at the cost
                of one query. The text must not end with a VALUES clause already.

        Returns:
            ``list[dict[str, Term | None]]``; unbound variables map to ``None``.

        Raises:
            QuerySyntaxError: the text does not parse.
            QueryError: evaluation fails.
            TypeError: ``values`` holds something other than an IRI or a literal.
        """

    @abstractmethod
    def ask(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
            source: str = "<text>") -> bool:
        """Run a SPARQL 1.1 ASK query. Raises as :meth:`select`."""

    @abstractmethod
    def construct(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
                  source: str = "<text>") -> list[tuple[IRI | BNode, IRI, Term]]:
        """Run a SPARQL 1.1 CONSTRUCT or DESCRIBE query; return the triples.
        Raises as :meth:`select`."""

    @abstractmethod
    def update(self, sparql: str, *, source: str = "<text>") -> None:
        """Run a SPARQL 1.1 Update atomically.

        Raises:
            QuerySyntaxError: the text does not parse.
            StoreError: the store cannot be written.
        """

    @abstractmethod
    def serialize(self, format: str, *, graph: Any = ANY_GRAPH,
                  output: IO[bytes] | None = None,
                  prefixes: Mapping[str, str] | None = None) -> bytes | None:
        """Write the store (or one graph) in an RDF syntax.

        Args:
            format: one of :data:`RDF_FORMATS`; triple formats need one ``graph``.
            graph: :data:`ANY_GRAPH` for the whole dataset, an IRI or ``None``.
            output: binary stream to write to; ``None`` returns the bytes.
            prefixes: prefix map for Turtle and TriG.

        Raises:
            UnsupportedFormat: unknown format, or a triple format for the whole dataset.
        """

    def serialize_dataset(self, format: str, *, skip: Collection[IRI | None] = (),
                          prefixes: Callable[[Iterable[IRI]], Mapping[str, str]] | None = None
                          ) -> tuple[bytes, int]:
        """Every statement outside the graphs in ``skip``, as :meth:`quads` reads them, in
        an RDF dataset syntax (``provgraph export --all``).

        Args:
            format: one of :data:`DATASET_FORMATS` (``trig``, ``nquads``, ``json-ld``).
            skip: graph names left out (``None`` is the default graph).
            prefixes: called once, before writing, with the IRIs of the statements in
                order (subject, predicate, object, graph of each; repeats included); it
                returns the prefix map for TriG. ``None``: no prefixes.

        Returns:
            ``(bytes, statements written)``.

        Raises:
            UnsupportedFormat: ``format`` is not a dataset syntax.
            StoreError: the store cannot be read.
        """
        if format not in DATASET_FORMATS:
            raise UnsupportedFormat(format, sorted(DATASET_FORMATS), "not a dataset syntax")
        quads = [q for q in self.quads() if q[3] not in skip]
        iris = (t for q in quads for t in q if isinstance(t, IRI))
        return serialize_quads(quads, format, prefixes=prefixes(iris) if prefixes else None), \
            len(quads)

    @abstractmethod
    def named_graphs(self) -> list[IRI]:
        """The named graphs, sorted by IRI."""

    @abstractmethod
    def remove_graph(self, graph: IRI) -> None:
        """Delete a named graph and its quads; a missing graph is ignored."""

    @abstractmethod
    def __len__(self) -> int:
        """Number of quads in the store, all graphs."""

    def close(self) -> None:
        """Flush and release the store; the object is unusable afterwards."""

    def discard_if_new(self) -> bool:
        """Close the store; a store that created its directory when it was opened
        deletes it again (:meth:`EmbeddedStore.discard_if_new`). Returns whether it
        deleted one: here never."""
        self.close()
        return False

    def optimize(self) -> None:
        """Compact the store after large bulk loads (speeds up queries)."""

    # -- derived indexes (issue 16) -------------------------------------------
    def state_token(self) -> str | None:
        """A token for the statements this object reads: two calls give the same token
        only when the store held the same statements, so a result computed from the
        store under one token may be reused while the token is unchanged (the stale
        index, :mod:`provgraph.staleness`). ``None``: the store cannot tell (here: never
        a token; :class:`EmbeddedStore` gives one for a store on disk). A token never
        covers the retained originals, which a reader checks itself.
        """
        return None

    def read_index(self, name: str) -> bytes | None:
        """The bytes of the derived index ``name`` kept beside the store, or ``None``
        when there is none or it cannot be read (here: never one). An index is derived
        data: its content is only trusted together with a :meth:`state_token` it names."""
        return None

    def write_index(self, name: str, data: bytes) -> bool:
        """Keep ``data`` as the derived index ``name`` (replaced whole, never half-written);
        returns whether it was kept. Failing to keep an index (a read-only disk, no
        permission) is not an error: the index only saves time. Here: never kept."""
        return False

    def ledger_mark(self) -> LedgerMark | None:
        """Where a reader of the store's ledger (:mod:`provgraph.ledger`) reads on from
        next time: before its last line (:func:`provgraph.ledger.mark_before_last`).
        ``None`` when the store keeps no ledger that holds every write (here: never one;
        an :class:`EmbeddedStore` on disk whose every writer kept its ledger gives one)."""
        return None

    def ledger_lines_since(self, mark: LedgerMark) -> list[LedgerLine] | None:
        """The ledger lines written after ``mark`` (:meth:`ledger_mark`), each checked to
        continue the chain; ``None`` when they cannot be told (no ledger, a writer wrote
        without one, the ledger was cut or rewritten since ``mark``). Together with a
        result computed at ``mark`` they say what changed since (the stale index,
        :mod:`provgraph.staleness`). Here: always ``None``."""
        return None

    # -- conveniences built on the primitives --------------------------------
    def contains(self, quad: Quad) -> bool:
        """Whether ``quad`` is stored (its graph is matched exactly)."""
        return next(iter(self.quads(*quad)), None) is not None

    def has_subject(self, iri: IRI) -> bool:
        """Whether ``iri`` is the subject of any statement, in any graph."""
        return next(iter(self.quads(iri)), None) is not None

    def mentions(self, iri: IRI) -> bool:
        """Whether ``iri`` appears as subject or object of any statement."""
        return self.has_subject(iri) or next(iter(self.quads(None, None, iri)), None) is not None

    def occurs(self, iri: IRI) -> bool:
        """Whether ``iri`` appears anywhere: as subject, predicate, object or graph name."""
        return (self.mentions(iri) or next(iter(self.quads(None, iri)), None) is not None
                or self.has_graph(iri))

    def has_graph(self, iri: IRI) -> bool:
        """Whether the named graph ``iri`` holds any statement (an emptied graph does not)."""
        return next(iter(self.quads(graph=iri)), None) is not None

    def bulk_load(self, path: str | os.PathLike[str], format: str, *,
                  graph: IRI | None = None,
                  progress: Callable[[int, int], None] | None = None) -> None:
        """Stream an RDF file into the store without a transaction (pair: :meth:`load`).

        This default parses the whole file and hands it to :meth:`bulk_add`;
        :class:`EmbeddedStore` streams it in windows with flat memory.

        Args:
            path: the file.
            format: one of :data:`RDF_FORMATS`.
            graph: target graph for triple formats (``None``: default graph);
                dataset formats keep their own graphs.
            progress: called with ``(bytes loaded, file size in bytes)`` as parts of
                the file are stored (here once, at the end).

        Raises:
            UnsupportedFormat: ``format`` is not in :data:`RDF_FORMATS`.
            SerializationError: the file does not parse (then nothing is stored by
                this default; a streaming implementation may have stored a part).
            StoreError: the file cannot be read or the store cannot be written.
        """
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise StoreError(f"{format} input {path}: cannot read it: {exc}") from exc
        self.bulk_add(parse_rdf(data, format, graph=graph))
        if progress is not None:
            progress(len(data), len(data))

    def describe(self, iris: Iterable[IRI], *, graph: Any = ANY_GRAPH,
                 predicates: Iterable[IRI] | None = None,
                 ) -> dict[IRI, dict[IRI, list[Term]]]:
        """Every statement about each of ``iris`` as subject, in one query whatever their number.

        One SPARQL 1.1 SELECT with a ``VALUES ?s { ... }`` clause (SPARQL 1.1
        §10.2.2, through :meth:`select`'s ``values=``); an empty ``iris`` or an
        empty ``predicates`` issues no query at all.

        Args:
            iris: the subjects (IRIs only: blank nodes cannot be named in a query);
                repeated IRIs are described once.
            graph: :data:`ANY_GRAPH` (the default) reads the union of all graphs, so
                a statement held in two graphs is one object; an IRI reads that
                named graph only. ``None`` (the default graph alone) is refused:
                SPARQL over the union default graph cannot address it.
            predicates: restrict the description to these predicates; ``None`` means all.

        Returns:
            ``dict[IRI, dict[IRI, list[Term]]]``: for each subject, in the order
            given, each predicate (sorted by IRI) with its distinct objects, sorted
            (blank nodes, then IRIs, then literals by lexical form, datatype and
            language). A subject with no statement maps to ``{}``.

        Raises:
            ValueError: ``graph`` is ``None``.
            TypeError: an entry of ``iris`` or ``predicates`` is not an IRI.
            QueryError: the store cannot evaluate the query.

        Example:
            >>> from provgraph.store import EmbeddedStore
            >>> from provgraph.terms import IRI, lit
            >>> s = EmbeddedStore()
            >>> a, p, q, g = (IRI(f"urn:x:{n}") for n in "apqg")
            >>> s.add([(a, p, lit(2), g), (a, p, lit(1), g), (a, q, a, g)])
            >>> d = s.describe([a, IRI("urn:x:none")])
            >>> list(d[a]), [o.value for o in d[a][p]], d[IRI("urn:x:none")]
            ([IRI('urn:x:p'), IRI('urn:x:q')], ['1', '2'], {})
            >>> list(s.describe([a], predicates=[q])[a].items())
            [(IRI('urn:x:q'), [IRI('urn:x:a')])]
        """
        if graph is None:
            raise ValueError("describe(graph=None): the default graph alone cannot be "
                             "addressed over the union default graph; pass ANY_GRAPH or a "
                             "named graph IRI")
        subjects = _iris(iris, "describe")
        out: dict[IRI, dict[IRI, list[Term]]] = {s: {} for s in subjects}
        preds = None if predicates is None else _iris(predicates, "predicates")
        if not subjects or preds == []:
            return out
        pattern = "?s ?p ?o"
        if preds is not None:
            pattern = f"VALUES ?p {{ {' '.join(_sparql_terms(preds, 'predicates'))} }} {pattern}"
        if graph is not ANY_GRAPH:
            pattern = f"GRAPH {_sparql_terms([graph], 'graph')[0]} {{ {pattern} }}"
        found: dict[IRI, dict[IRI, set[Term]]] = {}
        for row in self.select(f"SELECT ?s ?p ?o WHERE {{ {pattern} }}",
                               source="describe", values=("s", subjects)):
            s, p, o = row["s"], row["p"], row["o"]
            found.setdefault(s, {}).setdefault(p, set()).add(o)  # type: ignore[arg-type]
        for s, by_p in found.items():
            out[s] = {p: sorted(by_p[p], key=term_sort_key) for p in sorted(by_p)}
        return out

    def closure(self, start: Iterable[IRI], predicates: Iterable[IRI], *,
                inverse: bool = False, max_depth: int | None = None) -> set[IRI]:
        """The IRIs reachable from ``start`` along ``predicates``, in one query.

        One SPARQL 1.1 SELECT with a property path (SPARQL 1.1 §9.1) over the union
        of all graphs, so a path may cross graphs (a claim in a run's graph, its
        snapshot in the ingestion graph): ``(p1|p2|...)+`` from each start node,
        or ``p/p?/.../p?`` (``max_depth`` steps at most) when a depth is given.

        Args:
            start: the start nodes (IRIs). They are in the result only when they
                are reached again (a cycle); add them yourself for "start and upstream".
            predicates: the edges to follow; an empty set reaches nothing.
            inverse: ``False`` (the default) follows each edge from subject to
                object (``claim prov:wasDerivedFrom chunk`` reaches the chunk from
                the claim: upstream in PROV); ``True`` from object to subject
                (``^p``: downstream, what was derived from ``start``).
            max_depth: the largest number of edges on a path (an int >= 1);
                ``None`` means no limit.

        Returns:
            ``set[IRI]``: the IRIs reached. Paths run through blank nodes, but blank
            nodes and literals reached are not returned.

        Raises:
            ValueError: ``max_depth`` is less than 1.
            TypeError: an entry of ``start`` or ``predicates`` is not an IRI.
            QueryError: the store cannot evaluate the query.

        Example:
            >>> from provgraph.store import EmbeddedStore
            >>> from provgraph.terms import IRI
            >>> s = EmbeddedStore()
            >>> claim, chunk, snap, d = (IRI(f"urn:x:{n}") for n in ("claim", "chunk", "snap", "d"))
            >>> s.add([(claim, d, chunk, None), (chunk, d, snap, None)])
            >>> sorted(s.closure([claim], [d]))
            [IRI('urn:x:chunk'), IRI('urn:x:snap')]
            >>> sorted(s.closure([claim], [d], max_depth=1)), sorted(s.closure([snap], [d], inverse=True))
            ([IRI('urn:x:chunk')], [IRI('urn:x:chunk'), IRI('urn:x:claim')])
        """
        if max_depth is not None and max_depth < 1:
            raise ValueError(f"closure: max_depth must be at least 1, not {max_depth!r}")
        starts = _iris(start, "closure")
        preds = _iris(predicates, "predicates")
        if not starts or not preds:
            return set()
        step = "(" + "|".join(_sparql_terms(preds, "predicates")) + ")"
        if inverse:
            step = f"^{step}"
        path = f"{step}+" if max_depth is None else "/".join([step] + [f"{step}?"] * (max_depth - 1))
        rows = self.select(f"SELECT DISTINCT ?n WHERE {{ ?start {path} ?n FILTER(isIRI(?n)) }}",
                           source="closure", values=("start", starts))
        return {row["n"] for row in rows}  # type: ignore[misc]

    def canonical_nquads(self, graphs: Iterable[IRI | None] | None = None) -> str:
        """The quads (of ``graphs``, or all) as sorted N-Quads after blank-node
        canonicalization, for comparing datasets or digesting a bundle."""
        quads: list[Quad] = []
        if graphs is None:
            quads = list(self.quads())
        else:
            for g in graphs:
                quads.extend(self.quads(graph=g))
        return canonical_nquads(quads)

    def __enter__(self) -> "ProvStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def term_sort_key(term: Term) -> tuple[int, str, str, str]:
    """A total order on terms, as SPARQL ``ORDER BY`` ranks kinds (SPARQL 1.1 §15.1):
    blank nodes, then IRIs, then literals by lexical form, datatype and language.

    Example:
        >>> from provgraph.terms import IRI, BNode, lit
        >>> sorted([lit("a"), IRI("urn:b"), BNode("c")], key=term_sort_key)
        [BNode('c'), IRI('urn:b'), Literal(value='a', datatype=None, language=None)]
    """
    if isinstance(term, Literal):
        return (2, term.value, term.datatype or "", term.language or "")
    return (0 if isinstance(term, BNode) else 1, str(term), "", "")
