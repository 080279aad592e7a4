"""Importing a PROV-JSON document streamed, without holding it whole (issue 16, item 6).

The whole-document path (:func:`provgraph.io.read`) has the ``prov`` package build one
:class:`prov.model.ProvDocument` of every record, then maps it to PROV-O
(:func:`provgraph.io.provo.document_to_quads`): 1.36 GB for a 63 MB document. Here
``ijson`` reads the document as a stream of JSON events, twice:

1. *Scan.* The top-level keys (every one a PROV-JSON key, Member Submission §2), the
   ``prefix`` objects of the document and of each bundle, the lexical form of every
   formal time (``prov:time``, ``prov:startTime``, ``prov:endTime``: the form a time is
   stored in depends on every form the document writes it in,
   :func:`provgraph.io._prov.formal_time_forms`), and whether a record id repeats within
   one section, or any key in one object (a JSON object with a key twice: the whole read
   keeps the last, with the ``prov`` package's warning).
2. *Records.* The records of each section (``entity``, ``used``... at the top level and
   in each bundle) are gathered :data:`CHUNK_RECORDS` at a time into a small PROV-JSON
   document with the prefixes in force, which goes through the very path a whole
   document takes: :func:`provgraph.io.provjson.read` (the ``prov`` package, with its
   fixes for lexical forms and bundle names), the PROV-CONSTRAINTS key checks
   (:func:`provgraph.validate.check_document`), and
   :func:`~provgraph.io.provo.document_to_quads` with the whole document's time forms
   and one map of blank-node labels. The statements are stored as they come by
   :func:`provgraph.io.stream_load.store_streamed`, all or nothing through the undo
   journal, with the PROV-O entailments at the end.

Why the checks hold chunk by chunk: PROV-JSON groups records by section and id, and
the records that share an id and a type (the only ones PROV-CONSTRAINTS key checks and
the imprecise-derivation mark compare) are the value of one key of one section, which
is never split between chunks.

A document this module does not stream is read whole instead, saying why
(:class:`NotStreamed`): a top level that is not an object of PROV-JSON keys, a section
that is not an object, a key given twice in one object, nesting deeper than
:data:`provgraph.limits.MAX_JSON_DEPTH`, the name ``pglexical`` used anywhere (the
lexical-form fix needs a prefix name the document does not use), or JSON that ``ijson``
refuses (the whole read then gives the error).

Memory: the scan keeps the prefixes, a Bloom filter of the record ids
(:class:`~provgraph.io.stream_load.RepeatedKeys`: 32 bits per 50 bytes of document, a
second scan counting the few ids it may have seen twice) and one entry per distinct
formal time form; the records pass keeps one
chunk and the blank-node map (one entry per blank node of the document).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import ijson

from ..limits import MAX_JSON_DEPTH
from ..store import ProvStore
from ..terms import IRI, Quad
from . import PROV_JSON_KEYS
from ._prov import PROV_VERSION
from .load import ImportReport, target_graph
from .stream_load import (NotStreamed, ProvChunks, RepeatedKeys, opened, refuse_lexical,
                          repeated_keys)

__all__ = ["CHUNK_RECORDS", "NotStreamed", "Scan", "import_provjson_stream", "scan",
           "streams_provjson"]

CHUNK_RECORDS = 2_000
"""Records (ids of one section) converted together."""

_TIME_KEYS = frozenset(("prov:time", "prov:startTime", "prov:endTime"))


@dataclass
class Scan:
    """What the scan of a PROV-JSON document found (the module docstring).

    Attributes:
        prefixes: the document's ``prefix`` object (``{}`` when it has none).
        bundle_prefixes: each bundle's own ``prefix`` object, by the bundle's key.
        times: every formal time's distinct lexical forms, in the order first met.
    """

    prefixes: dict[str, Any] = field(default_factory=dict)
    bundle_prefixes: dict[str, Any] = field(default_factory=dict)
    times: dict[str, None] = field(default_factory=dict)


def _events(source: BinaryIO) -> Iterator[tuple[str, Any]]:
    return ijson.basic_parse(source, use_float=True)  # type: ignore[no-any-return]


def _value(first: tuple[str, Any], events: Iterator[tuple[str, Any]]) -> Any:
    """The JSON value that starts with event ``first`` (the rest read from ``events``)."""
    builder = ijson.ObjectBuilder()
    event, value = first
    builder.event(event, value)
    depth = 1 if event in ("start_map", "start_array") else 0
    while depth:
        event, value = next(events)
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
    return builder.value


def scan(source: BinaryIO, ids: RepeatedKeys) -> Scan:
    """Pass 1 over a PROV-JSON document read from ``source`` (module docstring); the
    record ids go to ``ids`` (which may need a second scan to tell a repeat for sure).

    Raises:
        NotStreamed: the document is to be read whole (why in the message).
    """
    out = Scan()
    # per open container: [is a map, its current key, the keys it had (None: a section's
    # records, whose ids are hashed in ``ids``; an array)]
    frames: list[list[Any]] = []
    records = 0
    try:
        events = _events(source)
        for event, value in events:
            depth = len(frames)
            in_bundle = depth > 1 and frames[0][1] == "bundle"
            if event == "map_key":
                frames[-1][1] = value
                keys = frames[-1][2]
                if keys is not None:  # any object but a section's records (ids: below)
                    if value in keys:
                        raise NotStreamed(f"the key {value!r} is repeated in one object")
                    keys.add(value)
                if depth == 1:
                    if value not in PROV_JSON_KEYS:
                        raise NotStreamed(f"the top-level key {value!r} is not a PROV-JSON key")
                    if value == "prefix":
                        out.prefixes = _object(_value(next(events), events), "its prefix")
                elif depth == 3 and in_bundle and value == "prefix":
                    bundle = frames[1][1]
                    out.bundle_prefixes[bundle] = _object(_value(next(events), events),
                                                          f"the prefix of bundle {bundle!r}")
                elif (depth == 2 and not in_bundle) or (depth == 4 and in_bundle):
                    ids.add((*(f[1] for f in frames), value))
                    records += 1
                continue
            if event in ("end_map", "end_array"):
                frames.pop()
                continue
            if depth == 1 or (in_bundle and depth in (2, 3)):  # a section, a bundle
                if event != "start_map":
                    raise NotStreamed(f"the value of {frames[-1][1]!r} is not an object")
            elif depth == 0 and event != "start_map":
                raise NotStreamed("its top level is not a JSON object")
            if event in ("start_map", "start_array"):
                if depth >= MAX_JSON_DEPTH:
                    raise NotStreamed(f"it nests deeper than {MAX_JSON_DEPTH} levels")
                top = frames[0][1] if frames else None
                records_level = ((depth == 1 and top != "bundle")
                                 or (depth == 3 and top == "bundle"))
                frames.append([event == "start_map", None,
                               set() if event == "start_map" and not records_level else None])
            elif event == "string" and frames[-1][0]:
                key = frames[-1][1]
                if key in _TIME_KEYS or (key == "$" and depth >= 2 and frames[-2][0]
                                         and frames[-2][1] in _TIME_KEYS):
                    out.times[value] = None
    except ijson.JSONError as exc:
        raise NotStreamed(f"ijson does not read it ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise NotStreamed(f"it is not UTF-8 ({exc})") from exc
    if not records:
        raise NotStreamed("it holds no records")
    return out


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise NotStreamed(f"{what} is not an object")
    return value


def _records(source: BinaryIO) -> Iterator[tuple[str | None, str, list[tuple[str, Any]]]]:
    """``(bundle key or None, section, [(id, value)...])`` chunks of at most
    :data:`CHUNK_RECORDS` records, in document order (pass 2)."""
    events = _events(source)
    next(events)  # the top-level start_map (checked by the scan)
    for event, key in events:
        if event == "end_map":
            return
        first = next(events)
        if key == "prefix":
            _value(first, events)
            continue
        if key != "bundle":
            yield from _section(None, key, events)
            continue
        for event, bkey in events:  # the bundles
            if event == "end_map":
                break
            next(events)  # its start_map
            for event, section in events:
                if event == "end_map":
                    break
                first = next(events)
                if section == "prefix":
                    _value(first, events)
                    continue
                yield from _section(bkey, section, events)


def _section(bundle: str | None, section: str, events: Iterator[tuple[str, Any]]
             ) -> Iterator[tuple[str | None, str, list[tuple[str, Any]]]]:
    """The chunks of one section, its ``start_map`` already read."""
    chunk: list[tuple[str, Any]] = []
    for event, key in events:
        if event == "end_map":
            break
        chunk.append((key, _value(next(events), events)))
        if len(chunk) >= CHUNK_RECORDS:
            yield bundle, section, chunk
            chunk = []
    if chunk:
        yield bundle, section, chunk


def streams_provjson(head: bytes, format: str, name: str) -> bool:
    """Whether ``provgraph import`` tries :func:`import_provjson_stream` on a file: under
    ``--format prov-json``, or under ``auto`` for a ``.json`` file whose content starts
    with ``{`` (the scan then reads it whole, :class:`NotStreamed`, unless its top-level
    keys are PROV-JSON keys: JSON-LD, OTLP and the RAG formats are not).

    Example:
        >>> streams_provjson(b' {"entity": {}}', "auto", "doc.json")
        True
        >>> streams_provjson(b'[{"@id": "urn:a"}]', "auto", "doc.json")
        False
    """
    if format != "auto":
        return format == "prov-json"
    return (os.path.splitext(name)[1].lower() == ".json"
            and head.lstrip(b"\xef\xbb\xbf").lstrip()[:1] == b"{")


def import_provjson_stream(store: ProvStore, source: str | os.PathLike[str] | BinaryIO, *,
                           graph: IRI | str | None = None,
                           name: str = "<input>") -> ImportReport:
    """Import a PROV-JSON document streamed, all or nothing (module docstring): the same
    statements, report and refusals as :func:`provgraph.io.load.import_document`
    (an agreement test checks it), the document never held whole.

    Args:
        store: where to store; it must journal (:attr:`ProvStore.journals`).
        source: a file path, or a seekable binary file object read from its start
            (read twice).
        graph: named graph for statements outside any bundle (``None``: the default
            graph); not one of :data:`provgraph.io.load.RESERVED_GRAPHS`.
        name: the input's name for messages.

    Returns:
        :class:`~provgraph.io.load.ImportReport` (``reader`` says it was streamed).

    Raises:
        NotStreamed: the document is to be read whole (:func:`provgraph.io.read`);
            nothing was read into the store.
        ValueError: ``graph`` is refused (:func:`~provgraph.io.load.check_target_graph`).
        SerializationError: the document is refused (as the whole read refuses it);
            nothing is stored.
        StoreError: the store does not journal or cannot be written; nothing is stored.

    Example:
        >>> import io
        >>> from provgraph.store import EmbeddedStore
        >>> doc = io.BytesIO(b'{"prefix": {"ex": "urn:ex:"}, "entity": {"ex:e": {}}}')
        >>> r = import_provjson_stream(EmbeddedStore(), doc, name="e.json")
        >>> (r.format, r.stored)
        ('prov-json', 1)
    """
    target = target_graph(graph)
    with opened(source, name) as f:
        if f.read(3) == b"\xef\xbb\xbf":
            raise NotStreamed("it starts with a byte-order mark")
        f.seek(0)
        repeated, found = repeated_keys(f, scan, 50)
        if repeated:
            raise NotStreamed("a record id is given twice in one section")
        refuse_lexical(f)
        return ProvChunks.store_document(
            store, f, name=name, target=target, times=found.times,
            quads=lambda f, chunks: _quads(f, found, chunks), format="prov-json",
            reader=f"prov-json streamed by ijson {ijson.__version__}, records read by the "
                   f"prov package {PROV_VERSION}")


def _quads(source: BinaryIO, found: Scan, chunks: ProvChunks) -> Iterator[Quad]:
    """The document's statements, chunk by chunk (pass 2)."""
    from .provjson import read as read_chunk

    for bundle, section, records in _records(source):
        chunk: dict[str, Any] = {}
        if found.prefixes:
            chunk["prefix"] = found.prefixes
        body = dict(records)
        if bundle is None:
            chunk[section] = body
        else:
            inner: dict[str, Any] = {section: body}
            if bundle in found.bundle_prefixes:
                inner = {"prefix": found.bundle_prefixes[bundle], **inner}
            chunk["bundle"] = {bundle: inner}
        got = read_chunk(json.dumps(chunk).encode("utf-8"), chunks.name, times=False)
        yield from chunks.quads(got, lambda _v: bundle)
