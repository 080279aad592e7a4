"""A store wrapper that counts the reads a function issues (issue 12: store cost).

Every read of the :class:`~provgraph.store.ProvStore` contract is counted: SPARQL
``select``/``ask``/``construct`` and pattern ``quads`` lookups, including those the
conveniences (``has_subject``, ``mentions``, ``occurs``, ``contains``) make. On a remote
SPARQL endpoint each is one network round trip.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from provgraph.store import ProvStore


class CountingStore(ProvStore):
    """Delegates to ``inner``; ``calls`` counts each read by method name."""

    def __init__(self, inner: ProvStore) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()

    @property
    def reads(self) -> int:
        return sum(self.calls.values())

    def quads(self, *a: Any, **k: Any) -> Any:
        self.calls["quads"] += 1
        return self.inner.quads(*a, **k)

    def select(self, *a: Any, **k: Any) -> Any:
        self.calls["select"] += 1
        return self.inner.select(*a, **k)

    def ask(self, *a: Any, **k: Any) -> Any:
        self.calls["ask"] += 1
        return self.inner.ask(*a, **k)

    def construct(self, *a: Any, **k: Any) -> Any:
        self.calls["construct"] += 1
        return self.inner.construct(*a, **k)

    def add(self, *a: Any, **k: Any) -> Any:
        return self.inner.add(*a, **k)

    def bulk_add(self, *a: Any, **k: Any) -> Any:
        return self.inner.bulk_add(*a, **k)

    def remove(self, *a: Any, **k: Any) -> Any:
        return self.inner.remove(*a, **k)

    def replace(self, *a: Any, **k: Any) -> Any:
        return self.inner.replace(*a, **k)

    def load(self, *a: Any, **k: Any) -> Any:
        return self.inner.load(*a, **k)

    def update(self, *a: Any, **k: Any) -> Any:
        return self.inner.update(*a, **k)

    def serialize(self, *a: Any, **k: Any) -> Any:
        return self.inner.serialize(*a, **k)

    def named_graphs(self) -> Any:
        self.calls["named_graphs"] += 1
        return self.inner.named_graphs()

    def remove_graph(self, *a: Any, **k: Any) -> Any:
        return self.inner.remove_graph(*a, **k)

    def __len__(self) -> int:
        return len(self.inner)
