"""The curated public surface: __all__ lists exactly the public names (httpx style)."""

from __future__ import annotations

import inspect

import provgraph


def test_all_equals_public_names():
    public = {n for n in dir(provgraph) if not n.startswith("_")
              and not inspect.ismodule(getattr(provgraph, n))}
    assert set(provgraph.__all__) == public
    assert list(provgraph.__all__) == sorted(provgraph.__all__)


def test_public_callables_have_docstrings():
    for name in provgraph.__all__:
        obj = getattr(provgraph, name)
        assert inspect.getdoc(obj), f"{name} has no docstring"
