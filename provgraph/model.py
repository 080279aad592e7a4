"""The records of what provgraph records, one per pipeline step, as the
:class:`~provgraph.recorder.Recorder` returns them.

Each record type is defined in its concept's module of :mod:`provgraph.schema`, beside
its field -> predicate table, its statements and its batch read; this module
re-exports them under the names the Recorder's callers use. Pass a record, or its IRI
as a ``str``, wherever a later step refers to an earlier one.

Offsets: unless a field says otherwise, ``start``/``end`` are end-exclusive
Unicode code point offsets into the text the record names.
"""

from __future__ import annotations

from typing import Any

from .schema.agent import Agent
from .schema.aid import AidRecord
from .schema.chunk import ChunkRecord
from .schema.citation import Citation
from .schema.claim import ClaimRecord, Derivation
from .schema.extraction import ExtractionRecord
from .schema.generation import AnswerRecord
from .schema.indexed import IndexedRecord
from .schema.prompt import InputRecord
from .schema.query import QueryRecord
from .schema.retrieval import Hit, RetrievalRecord
from .schema.run import RunRecord
from .schema.segment import Segment
from .schema.snapshot import SnapshotRecord
from .terms import IRI

__all__ = ["Agent", "SnapshotRecord", "ExtractionRecord", "ChunkRecord", "AidRecord",
           "IndexedRecord", "QueryRecord", "RetrievalRecord", "Segment", "InputRecord",
           "AnswerRecord", "ClaimRecord", "CitationRecord", "Derivation", "RunRecord", "Hit",
           "Ref", "iri_of"]

CitationRecord = Citation
"""A recorded citation: :class:`provgraph.schema.citation.Citation` (one type for the
Recorder, the resolver and every reader)."""

Ref = (str | SnapshotRecord | ExtractionRecord | ChunkRecord | AidRecord | IndexedRecord
       | QueryRecord | RetrievalRecord | InputRecord | AnswerRecord | ClaimRecord
       | Citation | RunRecord)
"""Anything that names a recorded resource: an IRI string or a record."""


def iri_of(ref: Ref | Any) -> IRI:
    """The IRI of a record or IRI string.

    Raises:
        TypeError: ``ref`` is neither.
    """
    if isinstance(ref, str):
        return IRI(ref)
    iri = getattr(ref, "iri", None)
    if iri is None:
        raise TypeError(f"expected an IRI string or a provgraph record, got {ref!r}")
    return IRI(iri)
