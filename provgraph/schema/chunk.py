"""Chunks: a chunker splitting an extracted text into ranges (``pg:Chunking``,
``pg:Chunk``).

A chunk holds code points ``[start, end)`` (end-exclusive) of its extracted text,
stated twice: ``pg:start``/``pg:end`` with ``pg:offsetUnit "codepoint"``, and a W3C
Web Annotation ``oa:TextPositionSelector`` (``#position``; Web Annotation Data Model
§4.2.4). Its IRI derives from text, chunker and range, so re-chunking adds nothing.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad, lit
from ..vocab import OA, PG, PROV
from ._table import Field, Part, Table
from .agent import Activity, Agent, activity_quads
from .extraction import EXTRACTED_TEXT

__all__ = ["ChunkRecord", "CHUNK", "to_quads", "load", "chunk_iri", "chunking_iri",
           "chunking_quads"]


def chunking_iri(text_iri: IRI, chunker_name: str, chunker_version: str, params: object) -> IRI:
    """The content-derived IRI of a chunking activity."""
    return ids.content_iri("chunking", text_iri, chunker_name, chunker_version, params)


def chunk_iri(text_iri: IRI, chunker_name: str, chunker_version: str, start: int, end: int) -> IRI:
    """The content-derived IRI of a chunk."""
    return ids.content_iri("chunk", text_iri, chunker_name, chunker_version, start, end)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkRecord:
    """A chunk of extracted text: code points ``[start, end)`` of the extraction's text.

    Args:
        iri: the chunk.
        extraction: the extraction whose text it cuts (the text's ``prov:wasGeneratedBy``).
        text_iri: the extracted text (``prov:wasDerivedFrom``).
        snapshot: the snapshot that text derives from.
        start, end: end-exclusive code point offsets into the extracted text.
        text: the chunk's text (``pg:text``), ``text[start:end]`` of the extraction.
        chunking: the chunking activity (``prov:wasGeneratedBy``); ``""`` when unknown.
    """

    iri: IRI
    extraction: IRI
    text_iri: IRI
    snapshot: IRI
    start: int
    end: int
    text: str
    chunking: IRI = IRI("")

    @property
    def offset_unit(self) -> str:
        """``codepoint``: the unit of :attr:`start` and :attr:`end`."""
        return "codepoint"


_POSITION = Table("position-selector", (OA.TextPositionSelector,),
                  fields=(Field("start", OA.start, "int"), Field("end", OA.end, "int")))

CHUNK = Table(
    "chunk", (PROV.Entity, PG.Chunk),
    fields=(Field("chunking", PROV.wasGeneratedBy, "iri"),
            Field("text_iri", PROV.wasDerivedFrom, "iri"), Field("text", PG.text),
            Field("start", PG.start, "int"), Field("end", PG.end, "int"),
            Field("offset_unit", PG.offsetUnit, read=False)),
    parts=(Part("start", OA.hasSelector, "#position", _POSITION),))


def chunking_quads(act: IRI, text_iri: IRI, params: dict[str, Any], chunker: Agent,
                   graph: IRI | None, *, run: IRI, ended_at: _dt.datetime | None) -> list[Quad]:
    """The chunking activity ``act`` (recorded by ``run``): its chunker, the text it used
    and its parameters (``pg:configuration``, JSON)."""
    q = activity_quads(Activity(iri=act, cls=PG.Chunking, run=run, ended_at=ended_at,
                                agents=(chunker,)), graph)
    return q + [(act, PROV.used, text_iri, graph), (act, PG.configuration, lit(params), graph)]


def to_quads(chunk: ChunkRecord, graph: IRI | None) -> list[Quad]:
    """The chunk's statements and its position selector, in ``graph``."""
    return CHUNK.quads(chunk.iri, chunk, graph)


def load(store: ProvStore, iris: Sequence[IRI]) -> dict[IRI, ChunkRecord]:
    """The chunks among ``iris``, by IRI (two queries: chunks, then their texts).

    Raises:
        StoreError, QueryError: the store cannot be read.
    """
    props, nodes, _ = CHUNK.read_typed(store, iris, PG.Chunk)
    found = {i: CHUNK.decode(p, nodes, i) for i, p in props.items()}
    texts = sorted({v["text_iri"] for v in found.values() if v["text_iri"]})
    tprops, tnodes, _ = EXTRACTED_TEXT.read(store, texts)
    out: dict[IRI, ChunkRecord] = {}
    for i, v in found.items():
        t = EXTRACTED_TEXT.decode(tprops.get(v["text_iri"], {}), tnodes, v["text_iri"]) \
            if v["text_iri"] else {}
        out[i] = ChunkRecord(iri=i, extraction=t.get("iri") or IRI(""),
                             text_iri=v["text_iri"] or IRI(""), snapshot=t.get("snapshot") or IRI(""),
                             start=v["start"] if isinstance(v["start"], int) else 0,
                             end=v["end"] if isinstance(v["end"], int) else 0,
                             text=v["text"] or "", chunking=v["chunking"] or IRI(""))
    return out
