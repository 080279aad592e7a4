"""Test support for the streamed-import agreement tests (tests/test_io_*_stream_read.py):
import one document whole (:func:`provgraph.io.load.import_document`) and streamed, each
into a fresh store, and compare; gather the documents to compare (issue 16, item 6)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from provgraph.errors import SerializationError
from provgraph.io import read, write
from provgraph.io.load import ImportReport, import_document
from provgraph.io.stream_load import NotStreamed
from provgraph.store import EmbeddedStore, ProvStore

from .conftest import shared_cases
from .io_helpers import canon

TESTS = Path(__file__).parent
READABLE = (".json", ".provn", ".provx", ".xml", ".ttl", ".trig", ".nq", ".jsonld")
"""The suffixes of the cases read as documents to compare."""

Streamed = Callable[..., ImportReport]
"""A streamed import: ``f(store, source: BinaryIO, *, graph, name) -> ImportReport``."""

Outcome = tuple[tuple[Any, ...], str]
"""One import's ``(report, canonical N-Quads stored)``: the report is ``(stored, new,
inferred, graphs, format, warnings)``, or ``("error", message)`` with blank-node labels
blanked (:func:`labels`), or ``("not streamed", why)`` with ``""`` stored."""


def labels(text: str) -> str:
    """``text`` with each ``_:b<32 hex>`` blank-node label written ``_:b``: two reads of
    one document name their blank nodes differently."""
    return re.sub(r"_:b[0-9a-f]{32}", "_:b", text)


def both_ways(data: bytes, name: str, fmt: str, streamed: Streamed,
              graph: str | None = None) -> list[Outcome]:
    """``[whole, streamed]``: the :data:`Outcome` of importing ``data`` (named ``name``)
    as ``fmt`` with ``import_document``, then with ``streamed``, each into a fresh
    in-memory store. A streamed import that raises ``NotStreamed`` must have stored
    nothing (asserted)."""
    out: list[Outcome] = []
    for how in ("whole", "streamed"):
        store = EmbeddedStore()
        try:
            if how == "whole":
                r = import_document(store, data, fmt, graph=graph, name=name)
            else:
                source: BinaryIO = io.BytesIO(data)
                r = streamed(store, source, graph=graph, name=name)
        except NotStreamed as exc:
            assert len(store) == 0
            out.append((("not streamed", str(exc)), ""))
        except SerializationError as exc:
            out.append((("error", labels(str(exc))), canon(store.quads())))
        else:
            out.append(((r.stored, r.new, r.inferred, r.graphs, r.format, r.warnings),
                        canon(store.quads())))
        store.close()
    return out


def documents(fmt: str, suffix: str, own: Callable[[Path, bytes], bool],
              readable: Iterable[str] = READABLE) -> list[tuple[str, bytes]]:
    """``(name, data)`` of every case under ../shared/cases/prov, tests/prov_constraints
    and tests/malformed whose suffix is in ``readable`` (sorted by path in each root):
    the case itself where ``own(path, data)``, and, where provgraph reads it, its
    statements written as ``fmt`` and named ``<case name><suffix>``."""
    docs: list[tuple[str, bytes]] = []
    readable = tuple(readable)
    roots = [shared_cases("prov"), TESTS / "prov_constraints", TESTS / "malformed"]
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.suffix in readable):
            data = path.read_bytes()
            if own(path, data):
                docs.append((path.name, data))
            try:
                quads = read(data, name=path.name).quads
                docs.append((path.name + suffix, write(quads, fmt)))
            except SerializationError:
                continue
    return docs


def agree_on_every_document(docs: list[tuple[str, bytes]], fmt: str, streamed: Streamed, *,
                            bundle: bytes, left_is_refused: bool
                            ) -> tuple[dict[str, int], list[str]]:
    """Import each of ``docs`` both ways (:func:`both_ways`) and assert the streamed
    outcome equals the whole one, report and statements, for every document streamed.

    Returns ``(seen, not_streamed)``: ``seen`` counts the documents ``compared``, those
    ``refused`` alike, ``warned`` (stored with warnings), holding a ``bundle`` (``bundle``
    in the data and stored) and storing a blank node (``blank``); ``not_streamed`` names
    those the streamed import left to the whole read, whose whole read must refuse them
    when ``left_is_refused``."""
    seen = {"compared": 0, "refused": 0, "warned": 0, "bundles": 0, "blank": 0}
    not_streamed = []
    for name, data in docs:
        whole, got = both_ways(data, name, fmt, streamed)
        if got[0][0] == "not streamed":
            not_streamed.append(name)
            if left_is_refused:
                assert whole[0][0] == "error", name  # the whole read refuses what it leaves
            continue
        assert got == whole, name
        seen["compared"] += 1
        seen["refused"] += whole[0][0] == "error"
        seen["warned"] += whole[0][0] != "error" and bool(whole[0][5])
        seen["bundles"] += bundle in data and whole[0][0] != "error"
        seen["blank"] += "_:" in whole[1]
    return seen, not_streamed


def refusals(store: ProvStore, source: object, data: bytes, fmt: str, streamed: Streamed,
             name: str) -> tuple[str, str]:
    """``(streamed, whole)``: the messages of the ``SerializationError`` that ``streamed``
    raises importing ``source`` (a path or a binary stream) into ``store``, and that
    ``import_document`` raises importing ``data`` as ``fmt`` into a fresh store; both
    must raise (asserted). Labels are left as they are: compare through :func:`labels`
    where blank nodes are named."""
    with pytest.raises(SerializationError) as got:
        streamed(store, source, name=name)
    fresh = EmbeddedStore()
    with pytest.raises(SerializationError) as whole:
        import_document(fresh, data, fmt, name=name)
    fresh.close()
    return str(got.value), str(whole.value)
