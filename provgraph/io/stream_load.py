"""Importing a PROV-O document in an RDF syntax (N-Quads, N-Triples, Turtle, TriG) streamed,
without holding the document in memory, all or nothing (issue 16, item 6).

:func:`import_rdf_stream` is :func:`provgraph.io.load.import_document` for a file too big
to hold: the same statements stored, the same refusals, the same
:class:`~provgraph.io.load.ImportReport`, but the document is parsed by pyoxigraph as it
is read (:func:`provgraph.store.iter_rdf`) and written in transactions of
:data:`STREAM_BATCH` statements inside one
:meth:`~provgraph.store.ProvStore.journaled` write. All or nothing holds through the undo
journal, not a staging graph: every statement a batch adds that the store did not hold is
listed in ``journal.nq`` before the batch commits; a refusal found after some batches
were written (a syntax error at the end of the file, a qualified node without its
``prov:entity``), an exception, Ctrl-C or a killed process removes exactly those
statements (the next writer open does it after a kill), and the journal is deleted when
the import ends whole. A document none of whose statements uses the PROV vocabulary is
refused before anything is written: :func:`refuse_plain_rdf` reads it first, up to its
first PROV term (a few statements of a PROV document; a plain RDF one is parsed whole). The engine commits every batch, so there is no large write-ahead
log for a reopen to replay; the undo a reopen may run removes at most the document's
statements.

What is held in memory while streaming: one batch, a fresh label per blank node of the
document, and the statements the PROV-O entailments need
(:func:`provgraph.io.provo.complete`): the ``prov:qualified*`` statements, the binary
``wasRevisionOf``/``wasQuotedFrom``/``hadPrimarySource`` ones and the ``rdf:type``
statements of the PROV subclasses, usually a small part of a document. The statements of
each qualified node are read back from the store at the end, graph by graph, which is
where :func:`~provgraph.io.provo.complete` and
:func:`~provgraph.io.provo.missing_in_qualified` look for them in the whole document; a
qualified node named by an IRI that the store already described in the same graph is
seen with those statements too (a blank node is always new: its label is fresh).

Counting ``stored`` (the document's distinct statements) and telling an entailment from
a statement the document holds itself: into an empty store, the store is exactly the
document's statements when the last batch is in, so ``stored`` is its size and an
entailment is the document's own when the store holds it; nothing per statement is kept.
Into a store that already held statements, a 64-bit hash per distinct statement is kept
instead (about 70 bytes a statement, 70 MB for a million), since a statement the store
held before may or may not be in the document. What still grows with the document is the
engine's own memory (bench/RESULTS.md, issue 16 item 6: 2,017,849 statements of TriG
peaked at 502 MB with the hashes gone, 641 MB with them; pyoxigraph's own bulk load of
the file at 1.48 GB).

:func:`store_streamed` is the part every streamed reader shares: the PROV-JSON and
PROV-XML and PROV-N readers (:mod:`provgraph.io.provjson_stream_read`,
:mod:`provgraph.io.provxml_stream_read`, :mod:`provgraph.io.provn_stream_read`) feed it
their statements chunk by chunk, and the RDF/XML and JSON-LD reader
(:mod:`provgraph.io.rdf_stream_read`) the engine's statements after its screens.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar, cast

from ..errors import SerializationError
from ..store import ProvStore, iter_rdf
from ..terms import IRI, BNode, Literal, Quad
from ..vocab import PROV, RDF, own_graph_error
from . import provo
from .load import ImportReport, target_graph

if TYPE_CHECKING:
    from ..validate import ConstraintViolation
    from ._prov import ProvRead

__all__ = ["NotProvDocument", "NotStreamed", "PassReader", "RepeatedKeys", "STREAMED_FORMATS", "STREAM_BATCH",
           "SourceChanged", "import_rdf_stream", "opened", "parsed", "refuse_lexical",
           "refuse_plain_rdf", "relabelled", "repeated_keys", "store_streamed",
           "streamed_format"]

_T = TypeVar("_T")

STREAMED_FORMATS = frozenset({"nquads", "ntriples", "turtle", "trig"})
"""Formats :func:`import_rdf_stream` reads streaming."""

STREAM_BATCH = 10_000
"""Statements per transaction of a streamed import. Memory follows it: importing 281,580
statements peaked at 182 MB with 10,000 and 292 MB with 50,000 (the engine's transaction
holds its batch several times over), for 10 % more CPU time (bench/RESULTS.md)."""

_P = "http://www.w3.org/ns/prov#"
_QUALIFIED = _P + "qualified"
_DERIVATION_BINARY = frozenset(b for b, _, _ in provo._DERIVATION_KINDS.values())
_SUBCLASSES = frozenset((*provo._AGENT_SUBCLASSES, *provo._ENTITY_SUBCLASSES))


class NotStreamed(Exception):
    """A document a streamed reader (:mod:`provgraph.io.provjson_stream_read`,
    :mod:`provgraph.io.provxml_stream_read`, :mod:`provgraph.io.provn_stream_read`,
    :mod:`provgraph.io.rdf_stream_read`) leaves to the whole-document read
    (:func:`provgraph.io.load.import_document`); the message says why. Raised before
    anything is stored."""


class SourceChanged(SerializationError):
    """A streamed import's file read other bytes in one pass than in another (it was
    written to while it was imported); nothing from it was stored. Never a reason to read
    the file again some other way: the next read would see yet other bytes."""


class NotProvDocument(SerializationError):
    """A streamed import's document parsed whole, but none of its statements uses the PROV
    vocabulary (:func:`refuse_plain_rdf`); nothing was written. Never a reason to read the
    file again whole under ``--format auto``: that read parses the same statements and
    refuses them the same way, after holding the whole document in memory."""


class PassReader(io.BufferedIOBase, BinaryIO):
    """The file a streamed reader reads in several passes (a check pass, then the pass
    that stores), each from its start, which holds it to one content: the SHA-256 of
    every pass read whole, from the start to the end, must be the same.

    A pass starts at each ``seek(0)``; any other seek makes the pass partial (it is not
    compared). :meth:`verified` ends the storing pass: it reads what the parser left to
    the end, then compares. A file rewritten between the passes (or while one reads it)
    is refused, so the statements stored are those of the document the checks read.

    It has the methods the parsers use (``read``, ``read1``, ``readinto``, ``seek``,
    ``tell``, ``readable``, ``seekable``) and passes the bytes on as they are.
    """

    def __init__(self, raw: BinaryIO, name: str) -> None:
        self.raw, self.label = raw, name
        self._digest: bytes | None = None  # the first whole pass
        self._hash = hashlib.sha256()
        self._whole = True  # this pass has read from the start, in order

    def read(self, n: int | None = -1, /) -> bytes:
        data = self.raw.read(-1 if n is None else n)
        self._hash.update(data)
        return data

    def read1(self, n: int = -1, /) -> bytes:
        data = self.raw.read1(n) if hasattr(self.raw, "read1") else self.raw.read(n)
        self._hash.update(data)
        return data

    def readinto(self, buffer: Any, /) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = os.SEEK_SET, /) -> int:
        if offset == 0 and whence == os.SEEK_SET:
            self._end_pass()
        else:
            self._whole = False
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()

    def size(self) -> int:
        """The size of the file, in bytes (its position and pass are kept)."""
        at = self.raw.tell()
        size = self.raw.seek(0, os.SEEK_END)
        self.raw.seek(at)
        return size

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def _end_pass(self, *, final: bool = False) -> None:
        """Close the pass now ending: a pass that read to the end is compared."""
        ended_whole = self._whole and (final or self.raw.read(1) == b"")
        if ended_whole:
            digest = self._hash.digest()
            if self._digest is None:
                self._digest = digest
            elif digest != self._digest:
                raise SourceChanged(
                    f"{self.label}: the file changed while it was imported (it was read twice "
                    "and the two reads differ); nothing from it was stored. Import it again "
                    "once nothing writes to it")
        self._hash = hashlib.sha256()
        self._whole = True

    def verified(self, quads: Iterable[Quad]) -> Iterator[Quad]:
        """``quads`` (the storing pass's statements), then the check: the rest of the file
        is read and the pass compared with the first whole pass, before the caller's
        journaled write can commit.

        Raises:
            SourceChanged: the file changed between the passes.
        """
        yield from quads
        while self.read(1 << 20):
            pass
        self._end_pass(final=True)


@contextlib.contextmanager
def opened(source: str | os.PathLike[str] | BinaryIO, name: str = "<input>"
           ) -> Iterator[PassReader]:
    """The file a streamed reader reads, at its start, as a :class:`PassReader`: ``source``
    opened when it is a path (and closed when the block ends, however it ends), else the
    seekable file object itself (left open for its owner). ``name`` names it in errors.

    Raises:
        OSError: the path cannot be opened.
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            yield PassReader(f, name)
    else:
        source.seek(0)
        yield PassReader(source, name)


def refuse_lexical(source: PassReader) -> None:
    """Leave a document that uses the name ``pglexical`` anywhere (the private datatype
    of the store's literal encoding, :mod:`provgraph._lexical`) to the whole read, which
    decides how to refuse or read it; ``source`` is read from its start and left there.

    Raises:
        NotStreamed: the bytes ``pglexical`` occur in ``source``.
    """
    source.seek(0)
    tail = b""
    while block := source.read(1 << 20):
        if b"pglexical" in tail + block:
            source.seek(0)
            raise NotStreamed("it uses the name 'pglexical'")
        tail = block[-16:]
    source.seek(0)


class RepeatedKeys:
    """Which keys (hashable tuples: a record id in its section or bundle) occur more than
    once in a document, found in two passes over it without a set of every key: the
    first pass adds each key to a Bloom filter of ``bits`` bits (8 probes; 16 MB for a
    200 MB document sized at one record per 50 bytes, against about 70 bytes a record for
    a set) and notes the keys it may have seen before; only when there are such
    candidates does the caller run a second pass, which counts exactly those.

    Use: ``add(key)`` for every key in pass 1; if :attr:`candidates`, call
    :meth:`verifying` then ``add(key)`` again for every key in pass 2; :meth:`repeated`
    gives the hashes of the keys that occur more than once.

    Example:
        >>> r = RepeatedKeys(1 << 12)
        >>> for k in [("e", "a"), ("e", "b"), ("e", "a")]:
        ...     r.add(k)
        >>> r.verifying()
        >>> for k in [("e", "a"), ("e", "b"), ("e", "a")]:
        ...     r.add(k)
        >>> r.repeated() == {hash(("e", "a"))}
        True
    """

    def __init__(self, bits: int) -> None:
        self.bits = max(1 << 16, bits)
        self._filter = bytearray(self.bits // 8 + 1)
        self.candidates: dict[int, int] = {}
        self._verifying = False

    def add(self, key: tuple[Any, ...]) -> None:
        """Pass 1: note ``key``; pass 2 (after :meth:`verifying`): count it."""
        h = hash(key)
        if self._verifying:
            if h in self.candidates:
                self.candidates[h] += 1
            return
        h2 = hash((h, 1)) | 1
        seen = True
        f, m = self._filter, self.bits
        for i in range(8):
            bit = (h + i * h2) % m
            byte, mask = bit >> 3, 1 << (bit & 7)
            if not f[byte] & mask:
                seen = False
                f[byte] |= mask
        if seen:
            self.candidates[h] = 0

    def verifying(self) -> None:
        """Start pass 2: the filter is dropped, the candidates are counted."""
        self._filter = bytearray()
        self._verifying = True

    def repeated(self) -> set[int]:
        """Hashes of the keys counted more than once in pass 2 (empty without candidates)."""
        return {h for h, n in self.candidates.items() if n > 1}

    @property
    def counting(self) -> bool:
        """Whether this is pass 2 (:meth:`verifying` was called)."""
        return self._verifying


def repeated_keys(f: PassReader, scan: Callable[[PassReader, RepeatedKeys], _T],
                  record_bytes: int) -> tuple[set[int], _T]:
    """The key passes of a streamed reader of PROV records (PROV-JSON, PROV-XML, PROV-N):
    ``scan(f, keys)`` reads ``f`` from where it is (its start) and adds every record's key
    to ``keys``; when pass 1 may have seen a key twice, ``scan`` runs again from the start
    of ``f`` to count those (:class:`RepeatedKeys`; ``keys.counting`` is then true).

    Args:
        f: the document, at its start.
        scan: one pass over it.
        record_bytes: the Bloom filter is sized for one record per this many bytes.

    Returns:
        ``(hashes of the keys that occur more than once, what pass 1's scan returned)``.

    Raises:
        NotStreamed, SerializationError: as ``scan`` raises them.
    """
    keys = RepeatedKeys(f.size() // record_bytes * 32)
    first = scan(f, keys)
    if keys.candidates:  # perhaps a key given twice: count those exactly
        keys.verifying()
        f.seek(0)
        scan(f, keys)
    return keys.repeated(), first


def _needed(q: Quad) -> bool:
    """Whether :func:`provo.complete`/:func:`provo.missing_in_qualified` may need ``q``
    beyond the statements of qualified nodes (read back from the store)."""
    p = q[1]
    return (p.startswith(_QUALIFIED) or p in _DERIVATION_BINARY
            or (p == RDF.type and q[2] in _SUBCLASSES))


def import_rdf_stream(store: ProvStore, source: str | os.PathLike[str] | BinaryIO,
                      format: str, *, graph: IRI | str | None = None,
                      name: str = "<input>") -> ImportReport:
    """Stream an RDF document into the store, all or nothing (module docstring).

    Args:
        store: where to store; it must journal (:attr:`ProvStore.journals`, the embedded
            store).
        source: a file path, or a seekable binary file object read from its current
            position (twice: :func:`refuse_plain_rdf` reads it first).
        format: one of :data:`STREAMED_FORMATS` (no ``"auto"``).
        graph: named graph for the default graph's statements (``None``: the default
            graph); an absolute IRI, not one of :data:`provgraph.io.load.RESERVED_GRAPHS`.
        name: the input's name for messages.

    Returns:
        :class:`~provgraph.io.load.ImportReport`: the same counts
        :func:`~provgraph.io.load.import_document` gives for the same document (an
        agreement test checks it), ``reader`` saying it was streamed.

    Raises:
        ValueError: ``format`` is not streamed, or ``graph`` is refused
            (:func:`~provgraph.io.load.check_target_graph`); nothing is read.
        SerializationError: the document does not parse, writes into the ontology graph,
            holds no statement or no PROV term (:class:`NotProvDocument`, found before
            anything is written), or has a qualified node PROV-DM refuses; nothing is
            stored (what was written is undone).
        StoreError: the store does not journal or cannot be written; nothing is stored.

    Example:
        >>> import io
        >>> from provgraph.store import EmbeddedStore
        >>> s = EmbeddedStore()
        >>> doc = io.BytesIO(b'<urn:ex:e> a <http://www.w3.org/ns/prov#Person> .')
        >>> r = import_rdf_stream(s, doc, "turtle", name="e.ttl")
        >>> (r.stored, r.inferred, len(s))
        (2, 1, 2)
    """
    if format not in STREAMED_FORMATS:
        raise ValueError(f"{format} is not streamed; use one of {sorted(STREAMED_FORMATS)}")
    target = target_graph(graph)
    # decided before anything is written (a file object is read twice, from where it is)
    at = None if isinstance(source, (str, os.PathLike)) else source.tell()
    refuse_plain_rdf(parsed(source, format, target, name), name)
    if at is not None:
        cast(BinaryIO, source).seek(at)
    with store.journaled(f"import {name}"):
        return store_streamed(store, relabelled(parsed(source, format, target, name)),
                              format=format, reader=f"{format} streamed by pyoxigraph",
                              name=name)


def refuse_plain_rdf(quads: Iterable[Quad], name: str) -> None:
    """The pass before the storing one: refuse a document none of whose statements uses
    the PROV vocabulary before anything is written, as :func:`store_streamed` would
    refuse it only after writing (and then undoing) every statement. ``quads`` is read
    until its first statement with a PROV term, so a PROV document costs a few
    statements' parse; a plain RDF document is parsed whole, with a 64-bit hash per
    distinct statement (about 70 bytes each, dropped when the pass ends) for the count
    the message gives. A statement in the ontology graph met first is refused as the
    storing pass refuses it. A document with no statement passes (the storing pass
    words that refusal, storing nothing).

    Raises:
        NotProvDocument: the document holds statements but none uses the PROV vocabulary.
        SerializationError: the document writes into one of provgraph's own graphs
            (:func:`provgraph.vocab.own_graph_error`) before its first PROV term, or ``quads`` raises it (a syntax error); nothing was written.
    """
    distinct: set[int] = set()
    for q in quads:
        p, o, g = q[1], q[2], q[3]
        if p.startswith(_P) or (type(o) is IRI and o.startswith(_P)):
            return
        if g is not None and (why := own_graph_error(g, writer="document")) is not None:
            raise SerializationError(f"{name}: {why}. Nothing was stored")
        distinct.add(hash(q))
    if distinct:
        raise NotProvDocument(_not_prov(name, len(distinct)))


def _not_prov(name: str, distinct: int) -> str:
    return (f"{name}: {distinct} statement(s) but none uses the PROV vocabulary "
            "(http://www.w3.org/ns/prov#): not a PROV document; nothing was stored. "
            "Load plain RDF with a SPARQL client instead")


def store_streamed(store: ProvStore, quads: Iterable[Quad], *, format: str, reader: str,
                   name: str, input_count: Callable[[int], int] = lambda n: n,
                   warnings: Callable[[], list[str]] = list) -> ImportReport:
    """Store a document's statements as they come, inside the caller's
    :meth:`~provgraph.store.ProvStore.journaled` write, with the checks and counts of
    :func:`~provgraph.io.load.import_document` (the module docstring says how).

    Args:
        store: the store, in a journaled write the caller opened (a refusal raises, and
            the caller's block undoes what was stored).
        quads: the document's statements, blank nodes already labelled for this import.
        format, reader, name: for the report and the messages.
        input_count: the document's own count of statements (records, for the PROV-DM
            syntaxes) from the number of statements read, called at the end.
        warnings: the report's warnings, called at the end.

    Returns:
        :class:`~provgraph.io.load.ImportReport`.

    Raises:
        SerializationError: the document writes into the ontology graph, holds no
            statement or no PROV term, or has a qualified node PROV-DM refuses.
    """
    before = len(store)
    # into an empty store, the store itself is the set of the document's distinct
    # statements: no hash per statement (module docstring)
    seen: set[int] | None = set() if before else None
    needed = _Spool()
    graphs: set[IRI | None] = set()
    state = {"input": 0, "prov": False}
    for batch in _batches(_checked(quads, name, state, seen, needed, graphs)):
        store.add(batch)
    distinct = len(seen) if seen is not None else len(store) - before
    if not distinct:
        if (held := input_count(state["input"])):
            raise SerializationError(
                f"{name}: the {format} document holds {held} statement(s) but "
                "none could be stored; nothing was stored")
        raise SerializationError(f"{name}: the {format} document holds no PROV "
                                 "statements; nothing was stored")
    if not state["prov"]:
        raise SerializationError(_not_prov(name, distinct))  # (no pre-pass, or a changed file)
    with needed:
        inferred = _entailed(store, needed, seen, name)
    for i in range(0, len(inferred), STREAM_BATCH):
        store.add(inferred[i:i + STREAM_BATCH])
    graphs.update(q[3] for q in inferred)
    return ImportReport(name=name, format=format, reader=reader,
                        stored=distinct + len(inferred), new=len(store) - before,
                        inferred=len(inferred),
                        graphs=sorted(graphs, key=lambda g: "" if g is None else g),
                        warnings=warnings())


def parsed(source: str | os.PathLike[str] | BinaryIO, format: str, graph: IRI | None,
           name: str) -> Iterator[Quad]:
    """The statements pyoxigraph parses from ``source`` as it reads it
    (:func:`provgraph.store.iter_rdf`), in ``graph`` for a triple format.

    Raises:
        SerializationError: the document does not parse; the message starts with ``name``,
            as the whole read's does.
    """
    try:
        yield from iter_rdf(source, format, graph=graph)
    except SerializationError as exc:
        raise SerializationError(f"{name}: {exc}") from exc


def relabelled(quads: Iterable[Quad]) -> Iterator[Quad]:
    """``quads`` with fresh blank-node labels (as :func:`provgraph.io.read` gives them),
    label by label: two imports of a document never share a blank node."""
    labels: dict[str, BNode] = {}

    def fresh(t: Any) -> Any:
        got = labels.get(t)
        if got is None:
            got = labels[t] = BNode("b" + uuid.uuid4().hex)
        return got

    for s, p, o, g in quads:
        if type(s) is BNode or type(o) is BNode:
            s = fresh(s) if type(s) is BNode else s
            o = fresh(o) if type(o) is BNode else o
        yield (s, p, o, g)


def _checked(quads: Iterable[Quad], name: str, state: dict[str, Any], seen: set[int] | None,
             needed: _Spool, graphs: set[IRI | None]) -> Iterator[Quad]:
    """The document's statements, refusing the ontology graph, noting what the end of
    the import needs; without repeats when ``seen`` (hashes) is given, else repeats
    included (the store keeps one)."""
    for q in quads:
        state["input"] += 1
        if seen is not None:
            h = hash(q)
            if h in seen:
                continue
            seen.add(h)
        g = q[3]
        if g not in graphs:
            if g is not None and (why := own_graph_error(g, writer="document")) is not None:
                raise SerializationError(f"{name}: {why}. Nothing was stored")
            graphs.add(g)
        if not state["prov"]:
            o = q[2]
            state["prov"] = q[1].startswith(_P) or (type(o) is IRI and o.startswith(_P))
        if _needed(q):
            needed.append(q)
        yield q


def _batches(quads: Iterable[Quad]) -> Iterator[list[Quad]]:
    batch: list[Quad] = []
    for q in quads:
        batch.append(q)
        if len(batch) >= STREAM_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


_ENTAIL_SLICE = 5_000
"""Statements of :func:`_entailed`'s input checked and completed at a time."""


class _Spool:
    """The statements :func:`_entailed` needs, in document order, kept in a temporary file
    (pickled, :data:`_ENTAIL_SLICE` at a time) instead of memory: a document that is all
    qualified relations has one for every four or five statements (1.5 million in 7.8
    million statements of the synthetic PROV-JSON document, about 400 MB as tuples)."""

    def __init__(self) -> None:
        self._buffer: list[Quad] = []
        self._file: Any = None

    def append(self, q: Quad) -> None:
        self._buffer.append(q)
        if len(self._buffer) >= _ENTAIL_SLICE:
            if self._file is None:
                self._file = tempfile.TemporaryFile(prefix="provgraph-import-")
            pickle.dump(self._buffer, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._buffer = []

    def slices(self) -> Iterator[list[Quad]]:
        """The statements appended, :data:`_ENTAIL_SLICE` at a time, in their order."""
        if self._file is not None:
            self._file.seek(0)
            while True:
                try:
                    yield pickle.load(self._file)  # noqa: S301 - this import's own file
                except EOFError:
                    break
        if self._buffer:
            yield self._buffer

    def __enter__(self) -> _Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()


def _entailed(store: ProvStore, needed: _Spool, seen: set[int] | None,
              name: str) -> list[Quad]:
    """The PROV-O entailments of the stored document that it does not hold itself
    (:func:`provgraph.io.provo.complete`), after :func:`provgraph.io.provo.missing_in_qualified`
    on its qualified nodes, whose statements are read back from the store. ``seen``:
    the hashes of the document's statements, or ``None`` when the store held nothing
    before the import (then the store holds exactly the document's statements).

    Both rules look no further than one subject and its qualified nodes, so they run
    :data:`_ENTAIL_SLICE` statements at a time, in document order (a refusal is the
    first the whole read gives), with the statements of their qualified nodes and, for a
    subject with a binary ``wasRevisionOf``/``wasQuotedFrom``/``hadPrimarySource``, its
    own statements in that graph, read back from the store (of the document's, when the
    store held others before), instead of over every qualified node at once: at 2
    million statements of the benchmark workload that whole part had grown the peak by
    about 150 MB (bench/RESULTS.md)."""
    out: list[Quad] = []
    new: set[int] = set()
    for piece in needed.slices():
        part = _with_nodes(store, piece)
        provo.missing_in_qualified(part, name)  # this piece's nodes, in document order
        derived = dict.fromkeys((q[0], q[3]) for q in piece if q[1] in _DERIVATION_BINARY)
        if derived:
            more = [q for subject, g in derived for q in store.quads_list(subject, None, None, g)
                    if seen is None or hash(q) in seen]
            part = _with_nodes(store, list(dict.fromkeys(part + more)))
        completed, _ = provo.complete(part)
        for q in completed[len(part):]:  # what complete() added, in its order
            h = hash(q)
            if h in new:  # entailed again from another slice
                continue
            # not a statement of the document itself
            if (store.contains(q)) if seen is None else (h in seen):
                continue
            new.add(h)
            out.append(q)
    return out


def _with_nodes(store: ProvStore, quads: list[Quad]) -> list[Quad]:
    """``quads`` and the statements of the qualified nodes they name, read from the store."""
    part = list(quads)
    have = set(quads)
    nodes = dict.fromkeys((o, g) for s, p, o, g in quads
                          if p.startswith(_QUALIFIED) and not isinstance(o, Literal))
    for o, g in nodes:
        for q in store.quads_list(o, None, None, g):
            if q not in have:
                have.add(q)
                part.append(q)
    return part


_BY_EXTENSION = {".nq": "nquads", ".nquads": "nquads", ".nt": "nquads", ".ntriples": "nquads",
                 ".ttl": "turtle", ".trig": "trig"}
"""What :func:`streamed_format` streams a file as under ``--format auto``: what
:func:`provgraph.io.detect` finds for such content (N-Triples is read as N-Quads)."""


def streamed_format(head: bytes, format: str, name: str) -> str | None:
    """The format to stream a file in (:func:`import_rdf_stream`), or ``None`` when it is
    read whole (:func:`provgraph.io.load.import_document`).

    Args:
        head: the file's first bytes (64 KiB is plenty).
        format: the format asked for, or ``"auto"``.
        name: the file's name; under ``"auto"`` its extension (``.nq``, ``.nt``, ``.ttl``,
            ``.trig``) names the syntax, provided the head is not XML, JSON (PROV-JSON,
            JSON-LD, the RAG formats) or PROV-N. Content the extension
            does not fit fails to parse: the caller then reads the file whole, which tells
            the format from the whole content as before.

    Example:
        >>> streamed_format(b"<urn:a> <urn:b> <urn:c> .", "auto", "doc.nq")
        'nquads'
        >>> streamed_format(b"document endDocument", "auto", "doc.ttl") is None
        True
        >>> streamed_format(b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>',
        ...                 "auto", "doc.ttl") is None
        True
        >>> streamed_format(b"", "trig", "-")
        'trig'
    """
    if format != "auto":
        return format if format in STREAMED_FORMATS else None
    got = _BY_EXTENSION.get(os.path.splitext(name)[1].lower())
    if got is None:
        return None
    from . import _PROVN_COMMENT, _XML_START

    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text or text[:1] in (b"{", b"[") or text[:2] in (b"<?", b"<!"):
        return None
    if _XML_START.match(text) and b"xmlns" in text:  # '<urn:a> <urn:b> ...' is not XML
        return None
    if _PROVN_COMMENT.sub(b" ", text[:4096]).lstrip().startswith(b"document"):
        return None
    return got


@dataclass
class ProvChunks:
    """A PROV-DM document (PROV-JSON, PROV-XML, PROV-N) stored chunk by chunk: what the chunks'
    reads add up to, and their conversion to statements, for
    :func:`provgraph.io.provjson_stream_read.import_provjson_stream` and
    :func:`provgraph.io.provxml_stream_read.import_provxml_stream` alike.

    Args:
        name: the input's name for messages.
        target: named graph for statements outside any bundle (``None``: the default graph).
        forms: the lexical forms of the formal times, read over the whole document
            (:func:`provgraph.io._prov.formal_time_forms`).
        time_warnings: that function's warnings.
    """

    name: str
    target: IRI | None
    forms: dict[Any, str]
    time_warnings: list[str]
    records: int = 0
    """PROV records read so far (the report's input count)."""
    prov_warnings: list[str] = field(default_factory=list)
    constraints: dict[str | None, list[str]] = field(default_factory=lambda: {None: []})
    """PROV-CONSTRAINTS findings per bundle, in the order the whole read reports them."""
    blank_nodes: dict[str, BNode] = field(default_factory=dict)
    """One blank-node label per document, shared by every chunk."""

    def quads(self, got: ProvRead,
              graph_of: Callable[[ConstraintViolation], str | None]) -> list[Quad]:
        """One chunk's statements; its records, warnings and PROV-CONSTRAINTS findings
        (filed under ``graph_of(finding)``) are added up.

        Raises:
            SerializationError: the chunk cannot be written as PROV-O; nothing is stored.
        """
        from ..validate import check_document

        self.records += got.record_count
        self.prov_warnings += got.warnings
        for v in check_document(got.document):
            self.constraints.setdefault(graph_of(v), []).append(f"{self.name}: {v}")
        try:
            return provo.document_to_quads(got.document, self.target,
                                           bundle_names=got.bundle_names, times=self.forms,
                                           blank_nodes=self.blank_nodes)
        except SerializationError as exc:
            raise SerializationError(f"{self.name}: {exc}; nothing was stored") from exc

    def warnings(self) -> list[str]:
        """The report's warnings: the reads', the formal times', then the findings."""
        return [*self.prov_warnings, *self.time_warnings,
                *(w for ws in self.constraints.values() for w in ws)]

    @classmethod
    def store_document(cls, store: ProvStore, f: PassReader, *, name: str,
                       target: IRI | None, times: dict[str, None],
                       quads: Callable[[PassReader, ProvChunks], Iterable[Quad]],
                       format: str, reader: str) -> ImportReport:
        """The storing pass of a PROV-JSON, PROV-XML or PROV-N streamed reader: the formal
        times' lexical forms from ``times`` (the distinct texts its key pass found; the
        dictionary is emptied, as it is no longer needed), then ``quads(f, chunks)`` read
        from the start of ``f`` and stored all or nothing (:meth:`store`), held to the
        file the earlier passes read (:meth:`PassReader.verified`).

        Raises:
            SerializationError: as :meth:`store` and :meth:`PassReader.verified` raise it.
            StoreError: as :meth:`store` raises it.
        """
        from ._prov import formal_time_forms

        forms, time_warnings = formal_time_forms(times, name)
        times.clear()
        f.seek(0)
        chunks = cls(name, target, forms, time_warnings)
        return chunks.store(store, f.verified(quads(f, chunks)), format=format, reader=reader)

    def store(self, store: ProvStore, quads: Iterable[Quad], *, format: str,
              reader: str) -> ImportReport:
        """Store ``quads`` (made by :meth:`quads`) in one journaled write:
        :func:`store_streamed`, all or nothing."""
        with store.journaled(f"import {self.name}"):
            return store_streamed(store, quads, format=format, name=self.name,
                                  warnings=self.warnings, reader=reader,
                                  input_count=lambda _: self.records)
