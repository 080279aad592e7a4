"""Extractions: a parser turning a snapshot into text (``pg:Extraction``), and the text
it generated (``pg:ExtractedText``), retained in the blob store by digest.

Offsets: the extracted text is addressed in end-exclusive Unicode code points
(``pg:offsetUnit "codepoint"``); ``pg:offsetMap`` is a JSON array of
``[text_start, text_end, byte_start, byte_end]`` segments mapping code points of the
text to bytes of the snapshot (sorted, non-overlapping). Text outside every segment
has no source bytes (a parser's own output, such as a list bullet).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import ids
from ..store import ProvStore
from ..terms import IRI, Quad
from ..vocab import PG, PROV
from ._table import Field, Table
from .agent import ACTIVITY, Activity, Agent, activity_quads, agents_of, associated

__all__ = ["ExtractionRecord", "EXTRACTION", "EXTRACTED_TEXT", "OffsetMap", "to_quads", "load",
           "text_iri_of", "decode_offset_map"]

OffsetMap = tuple[tuple[int, int, int, int], ...]
"""``(text_start, text_end, byte_start, byte_end)`` segments (see the module docstring)."""


def text_iri_of(extraction: IRI) -> IRI:
    """The IRI of the text an extraction generated."""
    return ids.content_iri("text", extraction)


def decode_offset_map(raw: Any) -> OffsetMap:
    """The segments of a ``pg:offsetMap`` JSON value (``None`` or ``[]``: none).

    Args:
        raw: the decoded JSON, a list of ``[text_start, text_end, byte_start, byte_end]``.

    Returns:
        :data:`OffsetMap`, in the stored order, each number an ``int``.

    Raises:
        ValueError, TypeError: a segment is not four integers.
    """
    return tuple((int(a), int(b), int(c), int(d)) for a, b, c, d in (raw or ()))


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtractionRecord:
    """An extraction activity and the text it produced.

    Args:
        iri: the ``pg:Extraction`` activity (content-derived from snapshot, parser, config).
        text_iri: the ``pg:ExtractedText`` entity.
        snapshot: the snapshot parsed (``prov:used``; the text ``prov:wasDerivedFrom`` it).
        parser: the parser agent.
        text: the extracted text (retained by digest; read back from the blob store).
        text_sha256: hex digest of the text's UTF-8 bytes.
        offset_map: ``(text_start, text_end, byte_start, byte_end)`` segments (see module).
        config: the parser configuration (JSON).
        started_at, ended_at: the activity's aware times (``None``: unknown).
    """

    iri: IRI
    text_iri: IRI
    snapshot: IRI
    parser: Agent
    text: str
    text_sha256: str
    offset_map: OffsetMap
    config: dict[str, Any] = field(default_factory=dict)
    started_at: _dt.datetime | None = None
    ended_at: _dt.datetime | None = None

    @property
    def byte_size(self) -> int:
        """Size of the text's UTF-8 encoding, in bytes."""
        return len(self.text.encode("utf-8"))

    @property
    def offset_unit(self) -> str:
        """The unit of the text's offsets: always ``codepoint``."""
        return "codepoint"


EXTRACTION = Table(
    "extraction", (),
    fields=(Field("snapshot", PROV.used, "iri"), Field("config", PG.configuration, "json"),
            Field("text_iri", PG.extractedText, "iri")))

EXTRACTED_TEXT = Table(
    "extracted-text", (PROV.Entity, PG.ExtractedText),
    fields=(Field("iri", PROV.wasGeneratedBy, "iri"), Field("snapshot", PROV.wasDerivedFrom, "iri"),
            Field("text_sha256", PG.sha256), Field("byte_size", PG.byteSize, "int", read=False),
            Field("offset_unit", PG.offsetUnit, read=False),
            Field("offset_map", PG.offsetMap, "json")))


def to_quads(ext: ExtractionRecord, graph: IRI | None, *, run: IRI) -> list[Quad]:
    """The extraction activity (recorded by ``run``), its parser and its text, in ``graph``."""
    q = activity_quads(Activity(iri=ext.iri, cls=PG.Extraction, run=run, started_at=ext.started_at,
                                ended_at=ext.ended_at, agents=(ext.parser,)), graph)
    q += EXTRACTION.quads(ext.iri, ext, graph, types=False)
    q += EXTRACTED_TEXT.quads(ext.text_iri, ext, graph)
    return q


def load(store: ProvStore, iris: Sequence[IRI], *, text: bool = True) -> dict[IRI, ExtractionRecord]:
    """The extractions among ``iris`` (activity IRIs), by IRI: three queries whatever
    their number (activities, texts, parsers), plus one blob read per text when
    ``text`` (``text=False`` leaves ``text`` empty).

    Raises:
        OriginalMissingError, OriginalCorruptError: a retained text is gone or altered.
        StoreError, QueryError: the store cannot be read.
    """
    found, _, _ = EXTRACTION.read_typed(store, iris, PG.Extraction)
    texts = {i: EXTRACTION.decode(p, {}, i)["text_iri"] for i, p in found.items()}
    tprops, tnodes, _ = EXTRACTED_TEXT.read(store, [t for t in texts.values() if t])
    agents = agents_of(store, found.values())
    out: dict[IRI, ExtractionRecord] = {}
    for i, p in found.items():
        a = EXTRACTION.decode(p, {}, i)
        t_iri = a["text_iri"]
        t = EXTRACTED_TEXT.decode(tprops.get(t_iri, {}), tnodes, t_iri) if t_iri else {}
        parser = associated(p, agents, "parser") or Agent(role="parser", name="")
        sha = t.get("text_sha256") or ""
        body = store.originals.get(sha).decode("utf-8") if (text and sha) else ""
        act_times = ACTIVITY.decode(p, {}, i)
        out[i] = ExtractionRecord(
            iri=i, text_iri=t_iri or IRI(""), snapshot=a["snapshot"] or IRI(""), parser=parser,
            text=body, text_sha256=sha,
            offset_map=decode_offset_map(t.get("offset_map")),
            config=a["config"] or {}, started_at=act_times["started_at"],
            ended_at=act_times["ended_at"])
    return out


_OF_SNAPSHOTS = f"SELECT ?snap ?ext WHERE {{ ?ext <{PROV.used}> ?snap ; a <{PG.Extraction}> }}"


def of_snapshots(store: ProvStore, snapshots: Sequence[IRI], *,
                 text: bool = True) -> dict[IRI, list[ExtractionRecord]]:
    """The extractions of each of ``snapshots``, ordered by IRI (four queries, see
    :func:`load`).

    Raises:
        OriginalMissingError, OriginalCorruptError: a retained text is gone or altered.
        StoreError, QueryError: the store cannot be read.
    """
    if not snapshots:
        return {}
    rows = store.select(_OF_SNAPSHOTS, values=("snap", list(snapshots)),
                        source="provgraph.schema.extraction")
    by_snap: dict[IRI, set[IRI]] = {s: set() for s in snapshots}
    for r in rows:
        if isinstance(r["ext"], IRI):
            by_snap[IRI(str(r["snap"]))].add(r["ext"])
    recs = load(store, sorted({e for v in by_snap.values() for e in v}), text=text)
    return {s: [recs[e] for e in sorted(v) if e in recs] for s, v in by_snap.items()}
