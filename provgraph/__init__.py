"""provgraph: a W3C PROV graph store and query toolkit for the provenance of RAG answers.

Record every ingestion, retrieval aid, retrieval, prompt, answer, claim and
citation as PROV-O statements (:class:`Recorder`), keep the retained original
bytes (:class:`Originals`), and ask lineage, staleness and change-impact
questions with named SPARQL queries (:class:`QueryCatalog`).

The public names are imported when first used (PEP 562), so ``import provgraph``
and the command line load only the modules a caller needs (issue 16, item 3):
``from provgraph import Recorder`` works as before.
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from .errors import (
        NotFound, ProvgraphError, QueryError, QueryNotFound, QueryParameterError, QuerySyntaxError,
        RecordError, SerializationError, StoreError, UnsupportedFormat,
    )
    from .model import Agent, Hit, Segment
    from .originals import Originals
    from .queries import QueryCatalog
    from .recorder import Recorder
    from .store import EmbeddedStore, ProvStore, open_store

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "EmbeddedStore",
    "Hit",
    "NotFound",
    "Originals",
    "ProvStore",
    "ProvgraphError",
    "QueryCatalog",
    "QueryError",
    "QueryNotFound",
    "QueryParameterError",
    "QuerySyntaxError",
    "RecordError",
    "Recorder",
    "Segment",
    "SerializationError",
    "StoreError",
    "UnsupportedFormat",
    "open_store",
]

_ERRORS = ("NotFound", "ProvgraphError", "QueryError", "QueryNotFound", "QueryParameterError",
           "QuerySyntaxError", "RecordError", "SerializationError", "StoreError",
           "UnsupportedFormat")
_MODULE_OF: dict[str, str] = {
    **{name: "errors" for name in _ERRORS},
    "Agent": "model", "Hit": "model", "Segment": "model",
    "Originals": "originals",
    "QueryCatalog": "queries",
    "Recorder": "recorder",
    "EmbeddedStore": "store", "ProvStore": "store", "open_store": "store",
}
"""Which submodule defines each name of ``__all__``."""


def __getattr__(name: str) -> _typing.Any:
    """Import a public name's module on first use and keep the name here (PEP 562)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the not yet imported public ones included."""
    return sorted({*globals(), *__all__})
