"""Segments: which code point ranges of a prompt (``pg:GeneratorInput``) or an indexed
text (``pg:IndexedRepresentation``) are original source text, generated text,
template instructions or the user's query, each linked to its chunk or aid.

A segment is the node ``<owner>#segment-<i>`` (``pg:segment``), with ``pg:start``
and ``pg:end`` (end-exclusive code points of the owner's ``pg:text``),
``pg:origin`` and ``pg:segmentSource``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..terms import IRI
from ..vocab import PG
from ._table import Field, Part, Table

__all__ = ["Segment", "SEGMENT", "SEGMENTS", "SEGMENT_ORIGINS"]

SEGMENT_ORIGINS = ("original", "generated", "instruction", "query")
"""What a segment's text is: source text, model output, template text, the user's question."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Segment:
    """A range of a prompt or indexed text and where it came from.

    Args:
        start: first code point (inclusive).
        end: end code point (exclusive).
        origin: ``original`` (source text), ``generated`` (an aid or other model
            output), ``instruction`` (template text) or ``query`` (the user's question).
        source: IRI or record of the chunk or aid the range came from; ``None``
            for instruction text. Read back from the store as an IRI.
    """

    start: int
    end: int
    origin: str
    source: Any = None

    @property
    def source_iri(self) -> IRI | None:
        """The IRI of :attr:`source` (``None`` when there is none)."""
        if self.source is None:
            return None
        if isinstance(self.source, str):
            return IRI(self.source)
        return IRI(self.source.iri)


SEGMENT = Table(
    "segment", (PG.Segment,),
    fields=(Field("start", PG.start, "int"), Field("end", PG.end, "int"),
            Field("origin", PG.origin), Field("source_iri", PG.segmentSource, "iri", read=False),
            Field("source", PG.segmentSource, "iri", write=False)),
    record=Segment)

SEGMENTS = Part("segments", PG.segment, "#segment-{i}", SEGMENT, many=True)
"""The segments part of an owner table (prompt, indexed representation)."""

