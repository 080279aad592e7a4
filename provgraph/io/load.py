"""Importing PROV documents into a store: atomic, counted, never silently empty.

:func:`import_document` reads a document with :func:`provgraph.io.read`, checks
it, and stores every statement all or nothing: in one transaction, or, past
:data:`WRITE_BATCH` statements on a store that journals, in transactions of that size
inside one :meth:`~provgraph.store.ProvStore.journaled` write (undone together after a
failure, Ctrl-C or a killed process). The document is still read whole first. PROV bundles
and RDF named graphs become named graphs of the store; the rest goes to the
default graph, or to ``graph`` when one is named.

``graph`` may not be one of provgraph's reserved graphs
(:data:`RESERVED_GRAPHS`: the ingestion, ontology and removals graphs, which provgraph
itself fills). A TriG, N-Quads, JSON-LD or PROV document may hold the ingestion
graph ``urn:provgraph:graph:ingestion`` (or the removals graph) as one of its own named
graphs (a PROV bundle): that is how the output of ``provgraph export --all`` is restored,
and it is stored there as written. The ontology graph is never written by an import,
:func:`bulk_import` included (``provgraph init`` loads it). Both rules are
:func:`provgraph.vocab.own_graph_error`, which also keeps a recorded run out of these graphs.

It refuses, with a message naming the input and what to do:

* a document with a named graph (bundle) called ``urn:provgraph:graph:ontology``;
* input that holds statements but yields none to store (never a silent success);
* RDF without a single PROV term (``foreign_vocabulary.ttl``): not a PROV document;
* anything :func:`provgraph.io.read` refuses (syntax errors, DTDs, remote JSON-LD
  contexts, records with a ``-`` where PROV-DM needs an identifier, PROV-O qualified
  nodes without their ``prov:entity``/``activity``/``agent``).

Documents read through the ``prov`` package are also checked for PROV-CONSTRAINTS
key conflicts between records that share an id
(:func:`provgraph.validate.check_document`): those are reported as warnings, since
the statements are stored, and ``provgraph validate`` finds them again in the
store (a derivation id given both imprecise and precise, which PROV-O merges, is
kept as ``pg:imprecise true`` on its node for that).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .._bulk_windows import line_spans, line_windows, read_window
from ..errors import SerializationError, UnsupportedFormat
from ..store import ProvStore, graph_names, iri_error
from ..terms import IRI
from ..vocab import RESERVED_GRAPHS as _RESERVED_GRAPHS, own_graph_error
from . import read
from .provo import uses_prov

__all__ = ["ImportReport", "import_document", "RESERVED_GRAPHS", "check_target_graph", "target_graph",
           "check_bulk_file"]

WRITE_BATCH = 50_000
"""Statements per transaction when an import is stored in a journaled write."""

RESERVED_GRAPHS = _RESERVED_GRAPHS
"""provgraph's own graphs (:data:`provgraph.vocab.RESERVED_GRAPHS`): never an import's
``graph``."""


def check_target_graph(graph: str) -> str | None:
    """Why ``graph`` cannot receive an import's statements, or ``None`` when it can.

    Example:
        >>> check_target_graph("urn:example:g") is None
        True
        >>> check_target_graph("urn:provgraph:graph:ontology")[:58]
        'urn:provgraph:graph:ontology is a graph provgraph reserves'
    """
    why = iri_error(graph)
    if why is not None:
        return f"{graph!r} is not an absolute IRI ({why}); give one such as urn:example:g1"
    return own_graph_error(graph, writer="target")


def target_graph(graph: IRI | str | None) -> IRI | None:
    """An import's ``graph`` argument as the named graph to store into (``None`` or an
    empty string: the default graph).

    Raises:
        ValueError: :func:`check_target_graph` refuses it (the message says why and what
            to give instead).
    """
    if graph is not None and (why := check_target_graph(str(graph))) is not None:
        raise ValueError(why)
    return IRI(graph) if graph else None


@dataclass
class ImportReport:
    """What one import stored.

    Attributes:
        name: the input's name.
        format: the format read.
        reader: which library read it.
        stored: statements of the document written to the store (PROV-O entailments
            included).
        new: how many statements the store grew by: fewer than ``stored`` when some
            were already there (importing a document twice adds nothing the second
            time, except its blank-node statements: a document's blank nodes are new
            nodes on every import, as in SPARQL Update, oxigraph issue 1072). Literals keep their datatype and lexical form (``"01"^^xsd:int`` and
            ``"1"^^xsd:integer`` are two statements; see "Literal fidelity" in the
            README and :mod:`provgraph._lexical`).
        inferred: of ``stored``, those added as PROV-O entailments
            (:func:`provgraph.io.provo.complete`).
        graphs: the named graphs written to (``None`` stands for the default graph).
        warnings: messages for the user (``prov`` package warnings, PROV-CONSTRAINTS
            key conflicts between records).
    """

    name: str
    format: str
    reader: str
    stored: int
    new: int
    inferred: int
    graphs: list[IRI | None]
    warnings: list[str] = field(default_factory=list)


def import_document(store: ProvStore, data: bytes, format: str = "auto", *,
                    graph: IRI | str | None = None, name: str = "<input>") -> ImportReport:
    """Read a PROV document and store its statements atomically.

    Args:
        store: where to store.
        data: the document's bytes.
        format: a readable format name (:data:`provgraph.io.FORMATS`) or ``"auto"``.
        graph: named graph for statements outside any bundle (``None``: default
            graph); an absolute IRI, not one of :data:`RESERVED_GRAPHS`.
        name: the input's name for messages.

    Returns:
        :class:`ImportReport`.

    Raises:
        ValueError: ``graph`` is not an absolute IRI or is a reserved graph
            (:func:`check_target_graph`); nothing is read.
        UnsupportedFormat: unknown or write-only format.
        SerializationError: the document is refused (see the module docstring);
            nothing is stored.
        StoreError: the store cannot be written; nothing is stored.

    Example:
        >>> from provgraph.store import EmbeddedStore
        >>> s = EmbeddedStore()
        >>> r = import_document(s, b'document prefix ex <http://example.org/> '
        ...                        b'entity(ex:e) endDocument', name="e.provn")
        >>> (r.format, r.stored, len(s))
        ('provn', 1, 1)
    """
    from ..validate import check_document

    target = target_graph(graph)
    result = read(data, format, name=name, graph=target)
    for g in {q[3] for q in result.quads}:
        if g is not None and (why := own_graph_error(g, writer="document")) is not None:
            raise SerializationError(f"{name}: {why}. Nothing was stored")
    if not result.quads:
        if result.input_statements:
            raise SerializationError(
                f"{name}: the {result.format} document holds {result.input_statements} "
                "statement(s) but none could be stored; nothing was stored")
        raise SerializationError(f"{name}: the {result.format} document holds no PROV "
                                 "statements; nothing was stored")
    if not uses_prov(result.quads):
        raise SerializationError(
            f"{name}: {len(result.quads)} statement(s) but none uses the PROV vocabulary "
            "(http://www.w3.org/ns/prov#): not a PROV document; nothing was stored. "
            "Load plain RDF with a SPARQL client instead")
    warnings = list(result.warnings)
    if result.document is not None:
        warnings += [f"{name}: {v}" for v in check_document(result.document)]
        # the prov package's document is no longer needed: freed before the store's
        # transaction, which holds the statements in memory until it commits (the peak
        # of a 500,000-statement PROV-JSON import: 1.23 GB instead of 1.48 GB)
        result.document = None
    before = len(store)
    quads = result.quads
    if store.journals and len(quads) > WRITE_BATCH:
        # many transactions undone together on failure (ProvStore.journaled): the engine
        # holds one batch at a time, and leaves no large write-ahead log (issue 16, item 6)
        with store.journaled(f"import {name}"):
            for i in range(0, len(quads), WRITE_BATCH):
                store.add(quads[i:i + WRITE_BATCH])
    else:
        store.add(quads)
    graphs = sorted({q[3] for q in result.quads}, key=lambda g: "" if g is None else g)
    return ImportReport(name=name, format=result.format, reader=result.reader,
                        stored=len(result.quads), new=len(store) - before,
                        inferred=result.inferred, graphs=list(graphs), warnings=warnings)


_SCAN_WINDOW = 16 << 20
"""Bytes of a file :func:`check_bulk_file` reads at a time (cut at a line end)."""
_REFUSED = sorted(g for g in _RESERVED_GRAPHS if own_graph_error(g, writer="document"))
"""The graphs no imported document may hold (:func:`provgraph.vocab.own_graph_error`):
the ontology graph."""
_MARKS = (*(f"<{g}>".encode() for g in _REFUSED), b"\\u", b"\\U")
"""What every N-Quads statement in one of :data:`_REFUSED` contains: the graph name written
as it is, or written with an escape (the N-Quads grammar's ``IRIREF`` has no other way to
write a character, and pyoxigraph refuses any other escape or a relative IRI:
``tests/test_io_load.py`` holds that)."""
_NL = b"\n"
_CR = b"\r"


def check_bulk_file(path: str | os.PathLike[str], format: str, *, name: str | None = None) -> None:
    """Refuse a file for a bulk load (:meth:`provgraph.store.ProvStore.bulk_load`, which has
    no transaction) before anything of it is stored, by the rule an atomic import applies
    to the graphs a document holds (:func:`provgraph.vocab.own_graph_error`, ``writer=
    "document"``): no statement in provgraph's ontology graph.

    The file is read once, a window of :data:`_SCAN_WINDOW` bytes at a time. A byte search
    picks the statements that can be in the ontology graph: those holding
    ``<urn:provgraph:graph:ontology>`` or a ``\\u`` / ``\\U`` escape anywhere (in an IRI, a
    literal or a comment). pyoxigraph parses those, and their parsed graph names decide. A
    statement that does not parse is left to the load, which refuses it in turn (N-Quads is
    read statement by statement, a line each, a line ending at a line feed or a carriage
    return: a statement parses alone as it does in its file).

    Measured on 2 million statements (270 MB, 2 shared cores): 0.8 s with no escape in the
    file, as before; 2.8 s when every fourth statement has an escaped literal (each of
    those is parsed), about what parsing the whole file takes (2.8 s without escapes); the
    bulk load of the same file took 53 s.

    Args:
        path: the file.
        format: ``"nquads"`` (checked) or ``"ntriples"`` (holds no graph: nothing to check).
        name: how the file is named in the message (default: ``path``).

    Raises:
        SerializationError: a statement of the file is in the ontology graph; the message
            gives the file and line (lines counted at line feeds), and what to do.
        UnsupportedFormat: ``format`` is neither of the two.
        OSError: the file cannot be read.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("wb", suffix=".nq", delete=False) as f:
        ...     _ = f.write(b"<urn:x:a> <urn:x:p> <urn:provgraph:graph:ontology> <urn:x:g> .\\n"
        ...                 b"<urn:x:a> <urn:x:p> <urn:x:b> <urn:provgraph:graph:ontology> .\\n")
        >>> check_bulk_file(f.name, "nquads", name="onto.nq")
        Traceback (most recent call last):
        ...
        provgraph.errors.SerializationError: onto.nq:2: the document writes into <urn:provgraph:graph:ontology>, the graph of provgraph's bundled ontology and shapes, which only 'provgraph init' fills; rename that bundle/graph. Nothing was stored
        >>> os.remove(f.name)
    """
    if format == "ntriples":
        return
    if format != "nquads":
        raise UnsupportedFormat(format, ("nquads", "ntriples"),
                                "a bulk load reads these only; import other formats without "
                                "one (atomic)")
    name = str(path) if name is None else name
    lines = 0
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        for start, end in line_windows(fh, size, _SCAN_WINDOW):
            data = read_window(fh, start, end)
            spans = line_spans(data, _MARKS)
            found = _refused_statement(data, spans) if spans else None
            if found is not None:
                offset, why = found
                at = lines + data.count(_NL, 0, offset) + 1
                raise SerializationError(f"{name}:{at}: {why}. Nothing was stored")
            lines += data.count(_NL)


def _refused_statement(data: bytes, lines: list[tuple[int, int]]) -> tuple[int, str] | None:
    """The offset in ``data`` (N-Quads) of its first statement in a graph of
    :data:`_REFUSED`, with :func:`~provgraph.vocab.own_graph_error`'s message, among the
    statements of ``lines`` (``(start, end)`` spans of whole lines) that hold one of
    :data:`_MARKS`; ``None`` when none is. Those statements are parsed together, and one at
    a time only when one of them is in such a graph or one does not parse (which is then
    passed over: the load refuses it)."""
    picked: list[tuple[int, bytes]] = []
    for a, b in lines:
        line = data[a:b]
        if _CR not in line:
            picked.append((a, line))
            continue
        at = a  # a carriage return also ends an N-Quads line (a statement each)
        for part in line.split(_CR):
            if any(mark in part for mark in _MARKS):
                picked.append((at, part))
            at += len(part) + 1
    try:
        if _refused(graph_names(_NL.join(part for _, part in picked), "nquads")) is None:
            return None
    except SerializationError:
        pass
    for at, part in picked:
        try:
            why = _refused(graph_names(part, "nquads"))
        except SerializationError:
            continue  # the load refuses it
        if why is not None:
            return at, why
    return None


def _refused(graphs: set[IRI | None]) -> str | None:
    """Why a document may not hold one of ``graphs`` (:func:`provgraph.vocab.own_graph_error`),
    or ``None``."""
    for g in graphs:
        if g is not None and (why := own_graph_error(g, writer="document")) is not None:
            return why
    return None
