"""provgraph: a W3C PROV graph store and query toolkit for the provenance of RAG answers.

Record every ingestion, retrieval aid, retrieval, prompt, answer, claim and
citation as PROV-O statements (:class:`Recorder`), keep the retained original
bytes (:class:`Originals`), and ask lineage, staleness and change-impact
questions with named SPARQL queries (:class:`QueryCatalog`).
"""

from .errors import (
    NotFound, ProvgraphError, QueryError, QueryNotFound, QueryParameterError, QuerySyntaxError,
    RecordError, SerializationError, StoreError, UnsupportedFormat,
)
from .model import Agent, Hit, Segment
from .originals import Originals
from .queries import QueryCatalog
from .recorder import Recorder
from .store import EmbeddedStore, ProvStore, open_store
from . import remote as _remote  # noqa: E402,F401 - registers open_store(endpoint=...) (issue 13)
from .serve import client as _serve_client  # noqa: F401 - registers open_store("http://...")

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
