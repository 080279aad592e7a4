"""Frozen records returned by the :class:`~provgraph.recorder.Recorder`, one per pipeline step.

Each record carries the IRI the step was recorded under plus the facts later
steps need (a chunk's text and range, a snapshot's digest). Pass a record, or its
IRI as a ``str``, wherever a later step refers to an earlier one.

Offsets: unless a field says otherwise, ``start``/``end`` are end-exclusive
Unicode code point offsets into the text the record names.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

from .terms import IRI

__all__ = ["Agent", "SnapshotRecord", "ExtractionRecord", "ChunkRecord", "AidRecord",
           "IndexedRecord", "QueryRecord", "RetrievalRecord", "Segment", "InputRecord",
           "AnswerRecord", "ClaimRecord", "CitationRecord", "RunRecord", "Hit", "Ref", "iri_of"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Agent:
    """A software agent identified by role, name and version (PROV-DM §5.3.1).

    Args:
        role: one of ``parser``, ``chunker``, ``embedder``, ``retriever``, ``model``,
            ``prompt_template``, ``resolver``, ``reviewer``, ``pipeline``.
        name: the tool or model identifier, e.g. ``docutils`` or ``claude-sonnet-4``.
        version: its version string; ``""`` when unknown.
    """

    role: str
    name: str
    version: str = ""
    iri: IRI = IRI("")


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRecord:
    """A run: one PROV bundle (named graph) with the runtime identity of the pipeline."""

    iri: IRI
    label: str
    started_at: _dt.datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotRecord:
    """Retained bytes of one observation of a document (``pg:SourceSnapshot``).

    ``sha256`` is the hex digest of the retained bytes; ``document`` the
    version-independent ``pg:Document`` it is a ``prov:specializationOf``.
    """

    iri: IRI
    document: IRI
    sha256: str
    byte_size: int
    media_type: str
    source_uri: str
    observed_at: _dt.datetime
    revision_of: IRI | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtractionRecord:
    """An extraction activity and the text it produced (``pg:ExtractedText``).

    ``offset_map`` is a tuple of ``(text_start, text_end, byte_start, byte_end)``
    segments: code point offsets into ``text`` mapped to byte offsets into the
    snapshot's retained bytes. Text outside every segment has no source bytes
    (a parser's own output, such as a list bullet).
    """

    iri: IRI
    text_iri: IRI
    snapshot: IRI
    parser: Agent
    text: str
    text_sha256: str
    offset_map: tuple[tuple[int, int, int, int], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkRecord:
    """A chunk of extracted text: code points ``[start, end)`` of the extraction's text."""

    iri: IRI
    extraction: IRI
    text_iri: IRI
    snapshot: IRI
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AidRecord:
    """A generated retrieval aid (hypothetical document, contextual prefix or
    generated question). Never original evidence."""

    iri: IRI
    kind: str
    text: str
    model: Agent
    derived_from: tuple[IRI, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Segment:
    """A range of a prompt or indexed text and where it came from.

    Args:
        start: first code point (inclusive).
        end: end code point (exclusive).
        origin: ``original`` (source text), ``generated`` (an aid or other model
            output), ``instruction`` (template text) or ``query`` (the user's question).
        source: IRI or record of the chunk or aid the range came from; ``None``
            for instruction text.
    """

    start: int
    end: int
    origin: str
    source: "Ref | None" = None


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexedRecord:
    """The exact text that was embedded or indexed for a chunk (``pg:IndexedRepresentation``)."""

    iri: IRI
    text: str
    chunk: IRI
    segments: tuple[Segment, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryRecord:
    """A user query (``pg:Query``)."""

    iri: IRI
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """One ranked retrieval result: ``rank`` counts from 1; ``score`` is the retriever's."""

    target: "Ref"
    rank: int
    score: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalRecord:
    """A retrieval activity with its ranked hits."""

    iri: IRI
    query: IRI
    hits: tuple[tuple[IRI, int, float | None], ...]
    retriever: Agent


@dataclass(frozen=True, slots=True, kw_only=True)
class InputRecord:
    """The exact generator input (prompt) produced by context packing."""

    iri: IRI
    packing: IRI
    text: str
    segments: tuple[Segment, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerRecord:
    """An answer and the generation activity that produced it."""

    iri: IRI
    generation: IRI
    text: str
    model: Agent


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimRecord:
    """A claim: code points ``[start, end)`` of an answer's text."""

    iri: IRI
    answer: IRI
    start: int
    end: int
    text: str
    kind: str
    status: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CitationRecord:
    """What a claim pointed at. Offsets are in ``unit`` with ``end_inclusive`` as given."""

    iri: IRI
    claim: IRI
    target_id: str
    target: IRI | None
    start: int | None = None
    end: int | None = None
    unit: str | None = None
    end_inclusive: bool = False
    quote: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    pinned_sha256: str | None = None
    policy: str | None = None
    """The normalization policy declared for the quote (``name@version``), or ``None``."""
    extra: dict[str, str] = field(default_factory=dict)


Ref = (str | SnapshotRecord | ExtractionRecord | ChunkRecord | AidRecord | IndexedRecord
       | QueryRecord | RetrievalRecord | InputRecord | AnswerRecord | ClaimRecord
       | CitationRecord | RunRecord)
"""Anything that names a recorded resource: an IRI string or a record."""


def iri_of(ref: Ref) -> IRI:
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
