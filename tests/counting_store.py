"""A ProvStore wrapper that counts the store calls made through it, for query-budget tests.

Use it to assert that an operation issues a bounded number of store reads, whatever the
size of the data (on a remote store each read is a network round trip)::

    from tests.counting_store import counting

    with counting(store) as c:
        resolve_run(c, run)
    assert c.reads <= 6, c.log

Every call through the wrapper is counted once, by method name, at the wrapper's boundary:
a batch read such as ``describe`` counts as one ``describe`` (the inner store's own
``select`` is not seen), which is what a remote implementation turns into one request.
``counts`` holds the reads by method, ``write_counts`` the writes, ``blob_counts`` the
calls on ``store.originals``; ``log`` lists ``(method, source)`` in call order, the
``source`` being the query's name where one was given (handy in an assertion message).
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

from provgraph.originals import BlobStore
from provgraph.store import ANY_GRAPH, ProvStore
from provgraph.terms import IRI, BNode, Literal, Quad, Term

__all__ = ["CountingBlobStore", "CountingStore", "counting", "READS", "WRITES"]

READS = frozenset({"quads", "select", "ask", "construct", "describe", "closure", "has_subject",
                   "mentions", "occurs", "contains", "named_graphs", "canonical_nquads",
                   "serialize", "len"})
"""The methods counted in :attr:`CountingStore.reads`."""
WRITES = frozenset({"add", "bulk_add", "bulk_load", "remove", "replace", "load", "update",
                    "remove_graph"})
"""The methods counted in :attr:`CountingStore.writes`."""


class CountingBlobStore(BlobStore):
    """A BlobStore that counts ``put``, ``get`` and ``contains`` on an inner one."""

    def __init__(self, inner: BlobStore, counts: Counter[str]) -> None:
        self.inner = inner
        self.location = inner.location
        self._counts = counts

    def put(self, data: bytes) -> str:
        self._counts["put"] += 1
        return self.inner.put(data)

    def get(self, sha256: str) -> bytes:
        self._counts["get"] += 1
        return self.inner.get(sha256)

    def __contains__(self, sha256: object) -> bool:
        self._counts["contains"] += 1
        return sha256 in self.inner

    def __getattr__(self, name: str) -> Any:  # e.g. Originals.path_for
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


class CountingStore(ProvStore):
    """Delegates every :class:`~provgraph.store.ProvStore` method to ``inner``, counting calls.

    Args:
        inner: the store that does the work (any implementation).

    Attributes:
        counts: reads by method name (``Counter``; ``len`` for ``len(store)``).
        write_counts: writes by method name.
        blob_counts: ``put``/``get``/``contains`` calls on :attr:`originals`.
        log: ``(method, source)`` per call, in order (``source`` is ``""`` unless given).
    """

    def __init__(self, inner: ProvStore) -> None:
        self.inner = inner
        self.location = inner.location
        self.counts: Counter[str] = Counter()
        self.write_counts: Counter[str] = Counter()
        self.blob_counts: Counter[str] = Counter()
        self.log: list[tuple[str, str]] = []
        self.originals = CountingBlobStore(inner.originals, self.blob_counts)

    # -- the counters ------------------------------------------------------------------
    @property
    def reads(self) -> int:
        """Store reads since creation or the last :meth:`reset`."""
        return sum(self.counts.values())

    @property
    def writes(self) -> int:
        """Store writes since creation or the last :meth:`reset`."""
        return sum(self.write_counts.values())

    def reset(self) -> None:
        """Zero every counter and empty the log."""
        self.counts.clear()
        self.write_counts.clear()
        self.blob_counts.clear()
        self.log.clear()

    @contextlib.contextmanager
    def measure(self) -> Iterator[CountingStore]:
        """Reset on entry, so the counters afterwards hold only the calls made inside.

        Example: ``with c.measure(): export_claim(c, claim)`` then ``c.reads``.
        """
        self.reset()
        yield self

    def _count(self, method: str, source: str = "") -> None:
        (self.counts if method in READS else self.write_counts)[method] += 1
        self.log.append((method, source))

    def __getattr__(self, name: str) -> Any:  # implementation extras (add_native, ...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    # -- writing -----------------------------------------------------------------------
    def add(self, quads: Iterable[Quad]) -> None:
        self._count("add")
        self.inner.add(quads)

    def bulk_add(self, quads: Iterable[Quad]) -> None:
        self._count("bulk_add")
        self.inner.bulk_add(quads)

    def bulk_load(self, path: str | os.PathLike[str], format: str, *,
                  graph: IRI | None = None) -> None:
        self._count("bulk_load")
        self.inner.bulk_load(path, format, graph=graph)

    def remove(self, quads: Iterable[Quad]) -> None:
        self._count("remove")
        self.inner.remove(quads)

    def replace(self, remove: Iterable[Quad], add: Iterable[Quad]) -> None:
        self._count("replace")
        self.inner.replace(remove, add)

    def load(self, data: bytes | str | IO[bytes], format: str, *, graph: IRI | None = None,
             base_iri: str | None = None) -> int:
        self._count("load")
        return self.inner.load(data, format, graph=graph, base_iri=base_iri)

    def update(self, sparql: str, *, source: str = "<text>") -> None:
        self._count("update", source)
        self.inner.update(sparql, source=source)

    def remove_graph(self, graph: IRI) -> None:
        self._count("remove_graph")
        self.inner.remove_graph(graph)

    # -- reading -----------------------------------------------------------------------
    def quads(self, subject: IRI | BNode | None = None, predicate: IRI | None = None,
              object: Term | None = None, graph: Any = ANY_GRAPH) -> Iterator[Quad]:
        self._count("quads")
        return self.inner.quads(subject, predicate, object, graph)

    def select(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
               source: str = "<text>",
               values: tuple[str, Sequence[IRI | Literal]] | None = None,
               ) -> list[dict[str, Term | None]]:
        self._count("select", source)
        return self.inner.select(sparql, bindings, source=source, values=values)

    def ask(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
            source: str = "<text>") -> bool:
        self._count("ask", source)
        return self.inner.ask(sparql, bindings, source=source)

    def construct(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
                  source: str = "<text>") -> list[tuple[IRI | BNode, IRI, Term]]:
        self._count("construct", source)
        return self.inner.construct(sparql, bindings, source=source)

    def describe(self, iris: Iterable[IRI], *, graph: Any = ANY_GRAPH,
                 predicates: Iterable[IRI] | None = None,
                 ) -> dict[IRI, dict[IRI, list[Term]]]:
        self._count("describe")
        return self.inner.describe(iris, graph=graph, predicates=predicates)

    def closure(self, start: Iterable[IRI], predicates: Iterable[IRI], *,
                inverse: bool = False, max_depth: int | None = None) -> set[IRI]:
        self._count("closure")
        return self.inner.closure(start, predicates, inverse=inverse, max_depth=max_depth)

    def contains(self, quad: Quad) -> bool:
        self._count("contains")
        return self.inner.contains(quad)

    def has_subject(self, iri: IRI) -> bool:
        self._count("has_subject")
        return self.inner.has_subject(iri)

    def mentions(self, iri: IRI) -> bool:
        self._count("mentions")
        return self.inner.mentions(iri)

    def occurs(self, iri: IRI) -> bool:
        self._count("occurs")
        return self.inner.occurs(iri)

    def canonical_nquads(self, graphs: Iterable[IRI | None] | None = None) -> str:
        self._count("canonical_nquads")
        return self.inner.canonical_nquads(graphs)

    def serialize(self, format: str, *, graph: Any = ANY_GRAPH,
                  output: IO[bytes] | None = None,
                  prefixes: Mapping[str, str] | None = None) -> bytes | None:
        self._count("serialize")
        return self.inner.serialize(format, graph=graph, output=output, prefixes=prefixes)

    def named_graphs(self) -> list[IRI]:
        self._count("named_graphs")
        return self.inner.named_graphs()

    def __len__(self) -> int:
        self._count("len")
        return len(self.inner)

    def optimize(self) -> None:
        self.inner.optimize()

    def close(self) -> None:
        self.inner.close()


@contextlib.contextmanager
def counting(store: ProvStore) -> Iterator[CountingStore]:
    """A fresh :class:`CountingStore` over ``store``; leaving the block does not close ``store``.

    Example: ``with counting(store) as c: resolve_run(c, run)`` then ``assert c.reads <= 6``.
    """
    yield CountingStore(store)
