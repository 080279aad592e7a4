"""The undo journal of :meth:`provgraph.store.EmbeddedStore.journaled` (issue 16, item 6):
the file that makes a write spread over many transactions all or nothing.

While a journaled write runs, ``PATH/journal.nq`` beside ``PATH/rdf/`` lists, as N-Quads
lines, every statement the write added that the store did not hold before; each batch
of lines reaches the disk (``fsync``) before the transaction that stores those
statements starts. The first line is a comment naming the write. Deleting the file
(then ``fsync`` of the directory) is the commit. A journal found when a writer opens
the store belongs to a write that never committed, and is undone: every statement it
lists is removed (a statement the store held before is never listed, so none is lost),
then the file is deleted. A last line cut short by a crash names a statement whose
transaction never started, and is skipped.

A named graph the store did not have before the write is named by a comment line,
``# provgraph new graph: <IRI>`` (or ``_:label``), written and synced with the first
statements that go into it, before them: once those statements are removed the undo
removes the graph's name too, so the store lists no empty graph it did not list before.
A journal without such lines (written before they existed) is undone all the same; its
new graphs stay listed, empty. N-Quads parsers skip comment lines, so the blocks of
:meth:`UndoJournal.chunks` parse as they did.

A write into a store that holds few statements (the bundled ontology after ``provgraph
init``) starts its journal with every statement the store holds, as
``# provgraph keep: <s> <p> <o> <g> .`` lines, then its named graphs
(``# provgraph keep graph: <IRI>``), then ``# provgraph kept: N``, synced before the
write's first transaction. When those lines are fewer bytes than the write's own, the
undo clears the store and adds them back (:func:`read_kept`) instead of removing the
write's statements one by one; a keep section without its last line (a crash while it
was written, before any statement was added) is not used.

The journal costs disk while the write runs: one N-Quads line per new statement (734 MB
beside 1,314 MB of ``rdf/`` part-way through a 200 MB event log, bench/RESULTS.md), and an
undo removes the statements one by one (unless it restores a keep section), so undoing a
very large write takes a while: pyoxigraph 0.5.13 has nothing faster for a graph the
write created (``remove_graph`` of one holding 160,000 statements took 2.8 times as long
as removing them one by one, measured for issue 16 item 2).

This module knows files and lines only; the store layer turns quads into lines and back.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

JOURNAL_NAME = "journal.nq"
"""The journal's file name in a store directory."""
_HEADER = "# provgraph journal: "
_NEW_GRAPH = "# provgraph new graph: "
_KEEP = b"# provgraph keep: "
_KEEP_GRAPH = b"# provgraph keep graph: "
_KEPT = b"# provgraph kept: "
_NEW_GRAPH_LINE = re.compile(rb"^# provgraph new graph: (\S+)$", re.MULTILINE)
_CHUNK_BYTES = 4 << 20


def fsync_directory(path: Path) -> None:
    """Make a directory's entries (a file created, renamed or removed in it) durable;
    a platform or file system that cannot does nothing (shared with :mod:`provgraph.ledger`)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - a platform without directory handles
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse a directory fsync
        pass
    finally:
        os.close(fd)


class UndoJournal:
    """An open journal: ``path`` in a store directory, or ``None`` for a temporary file
    (a store in memory, which no crash outlives).

    Raises:
        OSError: the file cannot be created (``FileExistsError``: a journal is there).
    """

    def __init__(self, path: Path | None, name: str,
                 keep: tuple[Iterable[str], Iterable[str]] | None = None) -> None:
        self.path = path
        self.name = " ".join(name.split())  # one line
        self.lines = 0
        if path is None:
            self.file: IO[bytes] = tempfile.TemporaryFile(prefix="provgraph-journal-")
        else:
            self.file = open(path, "x+b")  # noqa: SIM115 - closed by commit() or close()
        started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        self.file.write(f"{_HEADER}{self.name} (pid {os.getpid()}, started {started})\n"
                        .encode("utf-8"))
        if keep is not None:  # what the store holds: (statements, named graphs) as N-Quads
            statements, graphs = keep
            lines = [_KEEP + f"{line} .\n".encode("utf-8") for line in statements]
            self.file.write(b"".join(lines) + b"".join(
                _KEEP_GRAPH + f"{g}\n".encode("utf-8") for g in graphs)
                + _KEPT + f"{len(lines)}\n".encode("ascii"))
        self._sync()
        if path is not None:
            fsync_directory(path.parent)

    def _sync(self) -> None:
        self.file.flush()
        os.fsync(self.file.fileno())

    def note(self, lines: Iterable[str], new_graphs: Iterable[str] = ()) -> None:
        """Append statements (N-Quads without the final `` .``) and wait until they are
        on disk; call it before the transaction that stores them. ``new_graphs``: the
        graphs among theirs the store did not have before the write (N-Triples terms,
        ``<IRI>`` or ``_:label``), written first."""
        marks = "".join(f"{_NEW_GRAPH}{g}\n" for g in new_graphs)
        text = "".join(f"{line} .\n" for line in lines)
        if text or marks:
            self.file.write((marks + text).encode("utf-8"))
            self.lines += text.count("\n")
            self._sync()

    def chunks(self) -> Iterator[bytes]:
        """The journal's statements so far, in blocks of whole lines (for undoing it)."""
        self.file.flush()
        self.file.seek(0)
        yield from _chunks(self.file)
        self.file.seek(0, os.SEEK_END)

    def kept(self) -> Kept | None:
        """The keep section (:func:`read_kept`) of this journal, ``None`` if it has none."""
        self.file.flush()
        try:
            return _read_kept(self.file)
        finally:
            self.file.seek(0, os.SEEK_END)

    def commit(self) -> None:
        """Delete the journal: the write is kept."""
        self.file.close()
        if self.path is not None:
            discard(self.path)

    def close(self) -> None:
        """Close the file and leave it (the next writer open undoes the write)."""
        self.file.close()


def _chunks(f: IO[bytes]) -> Iterator[bytes]:
    rest = b""
    while True:
        block = f.read(_CHUNK_BYTES)
        if not block:
            break
        block = rest + block
        cut = block.rfind(b"\n") + 1
        rest = block[cut:]
        if cut:
            yield block[:cut]
    # ``rest``: a last line without its newline, cut short by a crash; its statement's
    # transaction never started (note() returns only after the whole line is on disk)


def new_graphs(block: bytes) -> list[str]:
    """The graphs a block of journal lines names as new to the store (N-Triples terms,
    ``<IRI>`` or ``_:label``), in the order they appear."""
    if _NEW_GRAPH.encode() not in block:
        return []
    return [m.decode("utf-8") for m in _NEW_GRAPH_LINE.findall(block)]


@dataclass(frozen=True)
class Kept:
    """A journal's keep section: what the store held when the write began.

    Attributes:
        statements: those statements, N-Quads text.
        graphs: the store's named graphs then (N-Triples terms, ``<IRI>`` or ``_:label``).
        journaled: bytes of the journal after the section (the write's statements).
    """

    statements: bytes
    graphs: list[str]
    journaled: int


def _read_kept(f: IO[bytes]) -> Kept | None:
    f.seek(0)
    f.readline()  # the header
    statements: list[bytes] = []
    graphs: list[str] = []
    while True:
        line = f.readline()
        if line.startswith(_KEEP):
            statements.append(line[len(_KEEP):])
        elif line.startswith(_KEEP_GRAPH):
            graphs.append(line[len(_KEEP_GRAPH):].decode("utf-8").strip())
        elif line.startswith(_KEPT) and line.endswith(b"\n"):
            end = f.tell()
            return Kept(b"".join(statements), graphs, f.seek(0, os.SEEK_END) - end)
        else:  # no keep section, or one cut short by a crash
            return None


def read_kept(path: Path) -> Kept | None:
    """The keep section of the journal at ``path``; ``None`` when it has none, or one
    without its last line.

    Raises:
        OSError: it cannot be read.
    """
    with open(path, "rb") as f:
        return _read_kept(f)


def read_journal(path: Path) -> tuple[str, Iterator[bytes]]:
    """``(the write's name, blocks of whole lines)`` of the journal at ``path``.

    Raises:
        OSError: it cannot be read.
    """
    f = open(path, "rb")  # noqa: SIM115 - closed when the blocks are read

    def blocks() -> Iterator[bytes]:
        with f:
            yield from _chunks(f)

    first = f.readline().decode("utf-8", "replace")
    name = first[len(_HEADER):].strip() if first.startswith(_HEADER) else "an unnamed write"
    f.seek(0)
    return name, blocks()


def journal_name(path: Path) -> str | None:
    """The name of the write whose journal is at ``path``, ``None`` when there is none
    (or it cannot be read)."""
    try:
        with open(path, "rb") as f:
            first = f.readline().decode("utf-8", "replace")
    except OSError:
        return None
    return first[len(_HEADER):].strip() if first.startswith(_HEADER) else "an unnamed write"


def discard(path: Path) -> None:
    """Delete the journal at ``path`` and make the deletion durable (the commit point)."""
    path.unlink(missing_ok=True)
    fsync_directory(path.parent)
