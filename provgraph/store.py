"""The RDF store layer's face: :func:`open_store`, and every name of the layer, so callers
import from here (``from provgraph.store import X``) whichever module owns ``X``.

The layer is four modules, one concept each, and the only ones that import pyoxigraph
(``tests/test_cli_architecture.py`` holds that):

* :mod:`provgraph._store_base`: the store contract :class:`ProvStore`, the interface
  everything above the store is written against, in :mod:`provgraph.terms` types only,
  with its dataset semantics and the graph selectors :data:`ANY_GRAPH` and
  :data:`DEFAULT_GRAPH`;
* :mod:`provgraph._oxrdf`: term conversion and RDF syntax I/O over pyoxigraph
  (:func:`parse_rdf`, :func:`iter_rdf`, :func:`graph_names`, :func:`serialize_quads`,
  :func:`canonical_nquads`, :func:`sparql_term`, :func:`check_query_syntax`,
  :func:`iri_error`, ...) and the encoding
  that keeps every literal's lexical form as written (issue 15);
* :mod:`provgraph.embedded`: :class:`EmbeddedStore`, the contract on an embedded pyoxigraph
  ``Store``, and its on-disk layout;
* this module: opening a store (:func:`open_store`, :func:`default_store_path`,
  :func:`check_store_directory`, and the openers :mod:`provgraph.remote` and
  :mod:`provgraph.serve.client` register for endpoints and URLs).

The default ``PATH`` is ``./.provgraph``; the environment variable
``PROVGRAPH_STORE`` and the CLI option ``--store PATH`` override it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path

from .errors import StoreError
from ._undo_journal import JOURNAL_NAME
from .ledger import HEAD_NAME, LEDGER_NAME
from ._oxrdf import (DATASET_FORMATS as DATASET_FORMATS, RDF_FORMATS as RDF_FORMATS,
                     _ledger_strs as _ledger_strs, _quad_to_ox as _quad_to_ox,
                     _quad_to_store as _quad_to_store, _to_ox as _to_ox,
                     _with_values as _with_values, canonical_nquads as canonical_nquads,
                     check_query_syntax as check_query_syntax, engine_form as engine_form,
                     graph_names as graph_names, iri_error as iri_error, iter_rdf as iter_rdf,
                     parse_rdf as parse_rdf,
                     rdfc_canonical_nquads as rdfc_canonical_nquads,
                     serialize_quads as serialize_quads, sparql_quads as sparql_quads,
                     sparql_term as sparql_term)
from ._store_base import (ANY_GRAPH as ANY_GRAPH, DEFAULT_GRAPH as DEFAULT_GRAPH,
                          INDEX_DIR as INDEX_DIR, ProvStore, term_sort_key as term_sort_key)
from .embedded import EmbeddedStore

__all__ = ["ProvStore", "EmbeddedStore", "open_store", "default_store_path",
           "RDF_FORMATS", "ANY_GRAPH", "DEFAULT_GRAPH", "term_sort_key"]

ENV_VAR = "PROVGRAPH_STORE"
"""Environment variable naming the store directory."""


def default_store_path() -> Path:
    """The store directory used when none is given: ``$PROVGRAPH_STORE`` if set,
    else ``./.provgraph`` relative to the current working directory."""
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else Path.cwd() / ".provgraph"


_ENDPOINT_OPENER: "Callable[[str, Path, str | None, str | None], ProvStore] | None" = None
"""``(query URL, originals folder, update URL, GSP URL) -> ProvStore``: set by :mod:`provgraph.remote` when it
is imported (:func:`open_store` imports it by name when first asked for an endpoint), so this
module need not import the remote store that builds on it (no import cycle)."""

_OPENER_MODULES = {"endpoint": "provgraph.remote", "http": "provgraph.serve.client",
                   "https": "provgraph.serve.client"}
"""The module that registers each opener when imported: :func:`open_store` loads it on first
use, so neither ``import provgraph`` nor a command on an embedded store pays for the remote
clients (issue 16, item 3; ``provgraph/__init__`` imported both before)."""


def _load_opener(kind: str) -> None:
    importlib.import_module(_OPENER_MODULES[kind])


def register_endpoint_opener(
        opener: "Callable[[str, Path, str | None, str | None], ProvStore]") -> None:
    """Make :func:`open_store` open endpoints with
    ``opener(url, originals_folder, update_url, gsp_url)``."""
    global _ENDPOINT_OPENER
    _ENDPOINT_OPENER = opener


URL_OPENERS: dict[str, Callable[[str], ProvStore]] = {}
"""Openers of stores named by a URL, by scheme (``http``, ``https``); the serve client
registers itself here (``provgraph/serve/client.py``), so this layer imports nothing above it."""


def open_store(path: str | os.PathLike[str] | None = None, *, memory: bool = False,
               create: bool = True, read_only: bool = False,
               lock_timeout: float | None = None, endpoint: str | None = None,
               update_endpoint: str | None = None, gsp_endpoint: str | None = None,
               recovery_progress: Callable[[str, int, int], None] | None = None) -> ProvStore:
    """Open the provgraph store.

    Args:
        path: store directory; ``None`` uses :func:`default_store_path`
            (``$PROVGRAPH_STORE`` or ``./.provgraph``).
        memory: ``True`` opens an in-memory store instead (``path`` is ignored).
        create: create the store when it does not exist; ``False`` makes a missing
            store an error (read-only commands use this so a mistyped path is caught).
        endpoint: a SPARQL 1.1 Protocol query URL; ``None`` uses ``$PROVGRAPH_ENDPOINT``
            when set. Then the statements live on that engine (a
            :class:`provgraph.remote.RemoteStore`, configured from the environment)
            and ``path`` only holds the retained originals (``PATH/originals``).
        update_endpoint, gsp_endpoint: the engine's update and Graph Store Protocol
            URLs (``None``: ``$PROVGRAPH_UPDATE_ENDPOINT``, ``$PROVGRAPH_GSP_ENDPOINT``,
            else derived from ``endpoint``; see :class:`provgraph.remote.RemoteStore`).
        read_only: open without the write lock (reading commands; issue 13): never
            waits for a writer, works on a read-only disk, sees what was committed
            when it opened; writes raise :class:`~provgraph.errors.StoreError`.
            Implies ``create=False``.
        lock_timeout: seconds a writer waits for another writer's lock (``None``:
            ``$PROVGRAPH_LOCK_TIMEOUT``, else 30).
        recovery_progress: for a writer on a store directory, called while the open
            undoes a write a stopped process left unfinished (:class:`EmbeddedStore`).

    A ``path`` starting with ``http://`` or ``https://`` names a ``provgraph serve``
    server instead: the result is a :class:`provgraph.serve.client.ServedStore` (the
    other arguments do not apply; its token comes from ``$PROVGRAPH_TOKEN``).

    Raises:
        StoreError: the store cannot be opened, or does not exist and ``create`` is false.
        StoreBusyError: another process kept the write lock for ``lock_timeout`` seconds.
    """
    endpoint = endpoint or os.environ.get("PROVGRAPH_ENDPOINT") or None
    if endpoint and not memory:
        if _ENDPOINT_OPENER is None:
            _load_opener("endpoint")
        if _ENDPOINT_OPENER is None:  # pragma: no cover - provgraph.remote registers it
            raise StoreError("no remote store is registered (import provgraph.remote)")
        where = Path(path) if path is not None else default_store_path()
        return _ENDPOINT_OPENER(endpoint, where / "originals", update_endpoint, gsp_endpoint)
    if memory:
        return EmbeddedStore(None)
    if path is None and os.environ.get(ENV_VAR, "").startswith(("http://", "https://")):
        path = os.environ[ENV_VAR]
    if isinstance(path, str) and path.startswith(("http://", "https://")):
        scheme = path.split(":", 1)[0]
        if scheme not in URL_OPENERS:
            _load_opener(scheme)
        if scheme not in URL_OPENERS:  # pragma: no cover - provgraph.serve.client registers it
            raise StoreError(f"{path}: no store client for {scheme}:// is loaded "
                             "(import provgraph.serve.client)")
        return URL_OPENERS[scheme](path)
    where = Path(path) if path is not None else default_store_path()
    if str(path) == "":
        raise StoreError("the store path is empty; give a directory with --store PATH or "
                         "$PROVGRAPH_STORE")
    _refuse_file_in_the_way(where)
    if (not create or read_only) and not (where / "rdf").is_dir():
        raise StoreError(
            f"no provgraph store at {where}; check --store / $PROVGRAPH_STORE, or create one "
            "with 'provgraph init' (record and import also create it)")
    check_store_directory(where)
    return EmbeddedStore(where, read_only=read_only, lock_timeout=lock_timeout,
                         recovery_progress=recovery_progress)


_OXIGRAPH_FAMILIES = ('[CFOptions "id2str"]', '[CFOptions "spog"]')
"""RocksDB column families every Oxigraph store has (named in its ``OPTIONS-*`` files)."""
_STORE_ENTRIES = frozenset({"rdf", "originals", "writer.json", "exports", JOURNAL_NAME,
                            LEDGER_NAME, HEAD_NAME, HEAD_NAME + ".tmp", "checkpoints",
                            INDEX_DIR})
"""What a provgraph store directory holds (``exports``: the demo's bundle files;
``index``: derived indexes, :meth:`EmbeddedStore.write_index`)."""


def _refuse_file_in_the_way(root: Path) -> None:
    """Refuse a store path that is a file, or lies under one (``notes.txt/store``): the
    nearest existing path of ``root`` and its parents must be a directory."""
    for candidate in (root, *root.parents):
        if candidate.exists():
            if not candidate.is_dir():
                raise StoreError(f"{candidate} is a file, not a provgraph store directory; "
                                 "give a directory (provgraph creates it) with --store or $PROVGRAPH_STORE")
            return


def check_store_directory(root: Path) -> None:
    """Refuse to open ``root`` as a store when it is something else (issue 15): a file, a
    directory holding other files and no ``rdf/``, or an ``rdf/`` that is another
    program's RocksDB (its ``OPTIONS-*`` files name no Oxigraph column family) or not a
    database at all. A missing or empty directory is a new store.

    Raises:
        StoreError: naming ``root``, what was found there and the fix.
    """
    _refuse_file_in_the_way(root)
    rdf = root / "rdf"
    if not rdf.is_dir():
        try:
            others = sorted(e.name for e in root.iterdir() if e.name not in _STORE_ENTRIES)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(f"cannot read the store directory {root}: {exc}") from exc
        if others:
            shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
            raise StoreError(
                f"{root} is not a provgraph store: it holds other files ({shown}) and no "
                "rdf/ directory, so provgraph will not write into it; give a new or empty "
                "directory with --store")
        return
    try:
        names = [e.name for e in rdf.iterdir()]
    except OSError as exc:
        raise StoreError(f"cannot read {rdf}: {exc}") from exc
    if not names:
        return
    options = sorted(n for n in names if n.startswith("OPTIONS-"))
    if not options or "CURRENT" not in names:
        raise StoreError(
            f"{rdf} holds files ({', '.join(sorted(names)[:5])}) but no RocksDB database "
            "provgraph wrote (no CURRENT and OPTIONS files), so provgraph will not open it; "
            "give another --store, or restore the store from a backup or an export")
    try:
        text = (rdf / options[-1]).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise StoreError(f"cannot read {rdf / options[-1]}: {exc}") from exc
    if not all(f in text for f in _OXIGRAPH_FAMILIES):
        raise StoreError(
            f"{rdf} is a RocksDB database of another program (its {options[-1]} names no "
            "Oxigraph column families), so provgraph will not open or change it; give "
            "another --store")
