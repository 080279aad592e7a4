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

The journal costs disk while the write runs: one N-Quads line per new statement (734 MB
beside 1,314 MB of ``rdf/`` part-way through a 200 MB event log, bench/RESULTS.md), and an
undo removes the statements one by one, so undoing a very large write takes a while.

This module knows files and lines only; the store layer turns quads into lines and back.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

JOURNAL_NAME = "journal.nq"
"""The journal's file name in a store directory."""
_HEADER = "# provgraph journal: "
_NEW_GRAPH = "# provgraph new graph: "
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

    def __init__(self, path: Path | None, name: str) -> None:
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
