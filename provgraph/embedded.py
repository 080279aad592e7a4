"""The embedded store: :class:`EmbeddedStore`, the :class:`~provgraph.store.ProvStore` on an
embedded pyoxigraph ``Store`` (RocksDB on disk, or in memory) with a sibling
:class:`~provgraph.originals.Originals` directory of retained source bytes (reached as
``store.originals``, a :class:`~provgraph.originals.BlobStore`), and the disk helpers its
read-only opens use (``_disk_state``, ``_open_read_only_at``, ``_open_read_only``). It writes
literals in the store's encoding (:mod:`provgraph._oxrdf`). Callers import it from
:mod:`provgraph.store`, whose :func:`~provgraph.store.open_store` opens it.

On-disk layout of a store at ``PATH``::

    PATH/rdf/         RocksDB files of the pyoxigraph store
    PATH/originals/   write-once blobs named by sha-256 (see provgraph.originals); a
                      writer open removes the .tmp-* files a killed writer left there
    PATH/journal.nq   only while a journaled write runs, or after one was killed
                      (EmbeddedStore.journaled; provgraph._undo_journal)
    PATH/ledger.jsonl the hash-chained ledger of every write (provgraph.ledger, issue 20),
    PATH/ledger.head  and its durable head; written ahead of each commit
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import itertools
import operator
import os
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence, Sized
from pathlib import Path
from typing import IO, Any, TypeVar

import pyoxigraph as ox

from .errors import QueryError, StoreError, UnsupportedFormat
from ._bulk_windows import (RewrittenWindows, line_windows, may_have_blank_nodes,
                            read_window, with_file_lines)
from .originals import BlobStore, Originals
from ._writer_lock import clear_note, lock_timeout as _lock_timeout, open_exclusive
from ._undo_journal import (JOURNAL_NAME, UndoJournal, discard as _discard_journal, journal_name,
                            Kept, new_graphs as _new_graphs, read_journal, read_kept)
from .ledger import (HEAD_NAME, LEDGER_NAME, LedgerLine, LedgerMark, LedgerWriter, lines_since,
                     mark_before_last, predicted, read_head)
from .terms import IRI, BNode, Literal, Quad, Term
from ._lexical import LEXICAL, engine_keeps
from ._oxrdf import (DATASET_FORMATS, _ENGINE_ERRORS, _MISSING,
                     _decode_lexical_text, _encoded_lines, _from_ox, _graph_from_ox,
                     _graph_to_ox, _ledger_strs, _map_errors, _ntriples_quad, _quad_from_ox,
                     _quad_to_ox, _quad_to_store, _rdf_format, _solutions, _sparql_terms,
                     _stored_parsed, _to_ox, _to_store, _tsv_term, _with_values, engine_form,
                     parse_rdf)
from ._store_base import ANY_GRAPH, INDEX_DIR, WITHOUT_LEDGER, ProvStore

__all__ = ["EmbeddedStore"]

_T = TypeVar("_T")

_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)


class _PythonWriter(io.BytesIO):
    """A bytes buffer whose ``write`` is Python code, so Ctrl-C stops a long dump into it
    at the engine's next write (a few kilobytes on): into a buffer written in C it would
    wait for the whole dump, 9 s for a graph of 900,000 statements (issue 16, item 2)."""

    def write(self, data: Any) -> int:
        return super().write(data)


_FLUSH_STATEMENTS = 20_000
"""Statements written since the last flush that make a writer flush (see
:meth:`EmbeddedStore.flush_schedule`)."""
_FLUSH_SECONDS = 1.0
"""Seconds after which a writer flushes what it wrote since the last flush."""
_UNDO_STEP = 2_000
"""Statements an undo removes between two calls of its progress callback."""
_KEEP_STATEMENTS = 10_000
"""A journaled write into a store holding at most this many statements (and named graphs)
keeps them in its journal (:mod:`provgraph._undo_journal`), so its undo can clear the store
and add them back, faster than removing the write's statements one by one once the write
has stored more than the store held. Every journaled write into such a store pays for
reading them first, whether it is undone or not: 2.4 s for the demo store's 53,076
statements on the 2-core machine under load (40 us each, before it is optimized), hence
a limit that takes in a store after ``provgraph init`` (1,870) but not that one."""


def _journal_graph(text: str) -> Any:
    """The pyoxigraph graph name of a journal's ``new graph`` line (``<IRI>`` or ``_:label``)."""
    return ox.BlankNode(text[2:]) if text.startswith("_:") else ox.NamedNode(text[1:-1])


class EmbeddedStore(ProvStore):
    """A :class:`ProvStore` on an embedded pyoxigraph ``Store``.

    Args:
        path: store directory (created if missing; see the module docstring for
            its layout), or ``None`` for an in-memory store whose originals are
            kept in a temporary directory removed at :meth:`close`.
        blobs: the :class:`~provgraph.originals.BlobStore` for retained originals;
            ``None`` (the default) uses the :class:`~provgraph.originals.Originals`
            directory described above. Pass a
            :class:`~provgraph.originals.MemoryBlobStore` for a store that touches
            no disk at all.

        read_only: open without the write lock and without writing any file
            (issue 13): a consistent view of what was committed when it opened,
            even beside a writer in another process or on a read-only disk; reopen
            to see newer statements. Every write raises :class:`StoreError`.
        lock_timeout: seconds a writer waits while another process holds the
            write lock (``None``: ``$PROVGRAPH_LOCK_TIMEOUT``, else 30).
        ledger: keep the hash-chained ledger ``PATH/ledger.jsonl`` of every write
            (:mod:`provgraph.ledger`; issue 20). A writer on disk appends one line per
            write *before* the write commits, and on open reconciles the lines whose
            write may not have committed (:attr:`ledger_recovered` says what it found).
            A store that has statements but no ledger yet gets one that starts with
            ``adopt`` lines holding those statements. ``False`` (rebuilds, benchmarks)
            writes none; ``provgraph verify`` then reports the ledger out of step.
            In memory and read-only there is none.
        recovery_progress: called as ``recovery_progress(name, removed, 0)`` while a
            writer open undoes the journaled write a stopped process left (the
            statement count is not known ahead): how a command says why its open takes
            a while (:attr:`undo_progress` is the same for a write of this object).

    Raises:
        StoreError: the directory cannot be created or the RocksDB files cannot
            be opened (a read-only disk for a writer, a missing store for a reader).
        StoreBusyError: another process kept the write lock for ``lock_timeout``
            seconds; the message names it (pid, command) from ``writer.json``.

    Example:
        >>> from provgraph.terms import IRI, lit
        >>> s = EmbeddedStore()
        >>> s.add([(IRI("urn:x:a"), IRI("urn:x:p"), lit(1), IRI("urn:x:g"))])
        >>> s.select("SELECT ?o WHERE { ?s ?p ?o }")[0]["o"].to_python()
        1
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *,
                 blobs: BlobStore | None = None, read_only: bool = False,
                 lock_timeout: float | None = None, ledger: bool = True,
                 recovery_progress: Callable[[str, int, int], None] | None = None) -> None:
        self._tmp: Any = None
        self._ledger: LedgerWriter | None = None
        self.ledger_recovered: str | None = None
        self.ledger_note: str | None = None
        self._checkpoint: Callable[[int, str], None] | None = None
        """Written as the ``note`` of each ledger line that has none of its own (the CLI
        sets it to the command, e.g. ``provgraph resolve``), so an auditor reads what
        wrote each line; ``None``: no note."""
        self._ahead: LedgerLine | None = None  # the line _log appended last (_unless_refused)
        self._names: dict[Any, Any] = {}  # pyoxigraph predicate/graph -> provgraph term
        self._objects: dict[Any, Term] = {}  # pyoxigraph object -> provgraph term (bounded)
        self._tsv_names: dict[str, IRI] = {}  # SPARQL TSV predicate -> term (bounded)
        self._tsv_terms: dict[str, Term] = {}  # SPARQL TSV object -> term (bounded)
        self.read_only = read_only
        self._read_token: str | None = None  # a read-only open's state_token()
        self._root: Path | None = None
        self._created: Path | None = None  # the topmost directory this open created
        self._root_for_reopen: Path | None = None  # a read-only store's directory
        self._unflushed = 0
        self._flushed_at = time.monotonic()
        self._flush_statements: int | None = _FLUSH_STATEMENTS
        self._flush_seconds: float | None = _FLUSH_SECONDS
        self.flushes = 0
        self._undo: UndoJournal | None = None
        self._undo_graphs: set[Any] = set()  # graphs a journaled block has written into
        self.recovered: str | None = None
        self.unfinished: str | None = None
        self.undone: tuple[str, int] | None = None
        self.undo_progress: Callable[[str, int, int], None] | None = None
        # a read-only open beside a journaled write that has not committed (it runs, or
        # its process died and no writer has undone it yet): the write's name
        self.in_flight: str | None = None
        try:
            if path is None:
                self._store = ox.Store()
                self.location = ":memory:"
                if blobs is None:
                    self._tmp = tempfile.TemporaryDirectory(prefix="provgraph-originals-")
                    blobs = Originals(Path(self._tmp.name))
            elif read_only:
                root = Path(path)
                self.location = str(root)
                # No lock, no file written: a read-only mount or a full disk still reads.
                self._store, self._read_token = _open_read_only_at(root)
                self._root_for_reopen = root
                self.in_flight = journal_name(root / JOURNAL_NAME)
                if blobs is None:
                    blobs = Originals(root / "originals")
            else:
                root = Path(path)
                self.location = str(root)
                missing = [p for p in (root, *root.parents) if not p.exists()]
                (root / "rdf").mkdir(parents=True, exist_ok=True)
                self._created = missing[-1] if missing else None
                self._store = open_exclusive(root, lambda: ox.Store(str(root / "rdf")),
                                             timeout=_lock_timeout(lock_timeout))
                self._root = root
                if blobs is None:
                    blobs = Originals(root / "originals")
                    # what a killed writer left half-written; this process holds the lock
                    blobs.remove_stale_temporaries()
                if ledger:
                    self._open_ledger(root, blobs)
                else:  # before any write: what is derived from the ledger is no longer whole
                    (root / INDEX_DIR).mkdir(exist_ok=True)
                    (root / INDEX_DIR / WITHOUT_LEDGER).touch()
                if (root / JOURNAL_NAME).exists():
                    self._recover(root / JOURNAL_NAME, recovery_progress)
            self.originals = blobs
        except RuntimeError as exc:  # RocksDB "Corruption: ..." on a write open (issue 15)
            raise StoreError(
                f"cannot open the store at {path}: the engine reports {exc}. The store is "
                "damaged or not a provgraph store: restore it from a backup (or 'provgraph "
                "export --all' of a copy that opens), or choose another --store") from exc
        except OSError as exc:
            if read_only:
                fix = ("The store is damaged: restore it from a backup, or choose another "
                       "--store" if "Corruption" in str(exc) else
                       "Check the path (a provgraph store has an rdf/ directory)")
                raise StoreError(
                    f"cannot open the store at {path} for reading: {exc}. {fix}") from exc
            if exc.errno == errno.EROFS or "Read-only file system" in str(exc):
                raise StoreError(
                    f"cannot open the store at {path} for writing: it is on a read-only file "
                    "system. Reading commands still work; write to a store on a writable "
                    "disk") from exc
            raise StoreError(
                f"cannot open the store at {path}: {exc}. Check the path, the permissions "
                "and the free disk space") from exc

    def flush_schedule(self, statements: int | None = _FLUSH_STATEMENTS,
                       seconds: float | None = _FLUSH_SECONDS) -> None:
        """Set when a writer on disk flushes the engine (issue 13; issue 16, item 4).

        After a write (:meth:`add`, :meth:`remove`, :meth:`replace`, :meth:`load`,
        :meth:`update`, :meth:`remove_graph`), once ``statements`` statements were
        written since the last flush, or ``seconds`` seconds passed since it and
        something was written, the store calls pyoxigraph's ``Store.flush()``.

        What pyoxigraph 0.5.13 exposes, and what each does to the disk (measured,
        ``bench/bench_record_disk.py``): ``flush()`` writes the engine's memory tables
        to table files, after which RocksDB deletes the write-ahead log files they
        covered; that is what keeps the log from growing (without a flush it holds
        every transaction until RocksDB's own limits, which are sized in GB, and a
        reopen replays it). ``optimize()`` compacts every table file (minutes on a
        large store, and it grows the store: DESIGN.md), so it stays a separate
        call after bulk loads. Nothing else (write-ahead log size limits,
        compaction triggers, sync) is exposed. Recording 10,000 answers one transaction
        each, the default schedule kept the store within 1.12x of its size after close
        and reopen (593 MB) at every sample; without it the store reached 2.35x while
        running and 3.3x at close (1,956 MB, nearly all log), and recorded more slowly
        (bench/RESULTS.md, issue 16 item 4). Bulk loads (:meth:`bulk_add`,
        :meth:`bulk_load`) write table files directly and need no flush.

        Args:
            statements: flush after this many statements (an int >= 1); ``None``:
                never by count.
            seconds: flush after this many seconds (a float > 0); ``None``: never
                by time. Both ``None`` turns the schedule off (for benchmarks).

        A store in memory or opened read-only never flushes. :attr:`flushes` counts
        the flushes this object made.

        Raises:
            ValueError: ``statements`` < 1 or ``seconds`` <= 0.
        """
        if statements is not None and statements < 1:
            raise ValueError(f"flush_schedule: statements must be >= 1, not {statements!r}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"flush_schedule: seconds must be > 0, not {seconds!r}")
        self._flush_statements = statements
        self._flush_seconds = seconds

    def _wrote(self, n: int) -> None:
        """After a write: flush on the schedule of :meth:`flush_schedule`. Also keeps a
        read-only open (which replays what is not flushed: 4.4 s for 310k statements,
        9 ms after a flush, issue 13) fast beside a long-lived writer."""
        if self._root is None:
            return
        self._unflushed += n
        now = time.monotonic()
        every, after = self._flush_statements, self._flush_seconds
        if (every is not None and self._unflushed >= every) or (
                after is not None and self._unflushed and now - self._flushed_at >= after):
            with _map_errors(f"store {self.location}"):
                self._store.flush()
            self._mark_durable()
            self.flushes += 1
            self._unflushed = 0
            self._flushed_at = now

    journals = True

    @contextlib.contextmanager
    def journaled(self, name: str) -> Iterator[None]:
        """All or nothing across many transactions, in bounded memory (the contract:
        :meth:`ProvStore.journaled`; issue 16, item 6).

        How it holds. Before each :meth:`add` (or :meth:`load`) in the block commits its
        transaction, the statements it adds that the store does not already hold are
        appended to the undo journal ``PATH/journal.nq`` and that append is ``fsync``-ed
        (:mod:`provgraph._undo_journal`); the store has one writer (the write lock), so
        "not already held" cannot change underneath. The block's normal end flushes the
        engine, then deletes the journal: that deletion is the commit. Any exception
        (``KeyboardInterrupt`` from Ctrl-C too) removes every journaled statement, then
        deletes the journal. If the process dies first (SIGKILL, power loss, a second
        Ctrl-C during the undo), the journal is still there, so the next writer open
        (:class:`EmbeddedStore`, every ``provgraph`` write command) removes what it lists
        before anything else touches the store, and sets :attr:`recovered`. A statement
        the store held before the block is never listed, so an undo never removes it; a
        statement listed whose transaction never ran is simply absent. Retained original
        bytes written meanwhile stay (content-addressed and unreferenced, as after a failed
        :meth:`~provgraph.recorder.Recorder.batch`).

        Readers opened while the block runs (read-only opens, other processes) can see
        the statements stored so far; only the writer's view is all or nothing.
        When the undo itself is interrupted (a second Ctrl-C), or the commit is (Ctrl-C
        during the final flush), the journal stays and :attr:`unfinished` names the write:
        the next writer open undoes it. An undo that finished sets :attr:`undone` to
        ``(the write's name, the statements it removed)``.

        The undo removes the statements one at a time (15-90 us each on disk, by the
        machine's load; ``remove_graph`` is slower still, :mod:`provgraph._undo_journal`),
        then the name of each graph the block created, so the store lists the graphs it
        listed before (a graph the store had, such as the ingestion graph or the default
        graph, keeps its other statements). Into a store that held nothing it clears the
        store at once instead; a store that held at most :data:`_KEEP_STATEMENTS`
        statements has them written at the head of the journal when the block begins, and
        once the block has stored more than that, the undo clears the store and adds them
        back. While it runs, :attr:`undo_progress`, when set, is called
        as ``undo_progress(name, removed, total)`` (statement counts; ``removed`` 0 first,
        then every few thousand statements): how a command shows a long undo.
        Inside the block, :meth:`remove`, :meth:`replace`, :meth:`update`,
        :meth:`remove_graph` and the bulk writes raise :class:`StoreError` (the journal
        cannot undo them). An in-memory store journals into a temporary file.

        Raises:
            StoreError: a journaled block is open already, the store is read-only, or
                the journal cannot be written (nothing of the block is kept then);
                undoing failed (the journal stays and the next writer open retries it).
        """
        if self.read_only:
            raise StoreError(f"store {self.location} is read-only: it cannot be written")
        if self._undo is not None:
            raise StoreError(f"store {self.location}: a journaled write ({self._undo.name}) "
                             "is open already; journaled blocks do not nest")
        path = None if self._root is None else self._root / JOURNAL_NAME
        # into a store that held nothing, every statement is the block's own (one writer,
        # and the block refuses writes the journal cannot undo): the undo can clear it;
        # a store that holds few has them kept in the journal, to be cleared and restored
        with _map_errors(f"store {self.location}"):
            held = list(itertools.islice(self._store.quads_for_pattern(None, None, None, None),
                                         _KEEP_STATEMENTS + 1))
            graphs = list(itertools.islice(self._store.named_graphs(), _KEEP_STATEMENTS + 1))
        empty = not held and not graphs
        keep = None
        if not empty and len(held) <= _KEEP_STATEMENTS and len(graphs) <= _KEEP_STATEMENTS:
            keep = ([str(q) for q in held], [str(g) for g in graphs])
        del held, graphs
        try:
            journal = UndoJournal(path, name, keep)
        except FileExistsError as exc:  # pragma: no cover - the writer lock prevents it
            raise StoreError(f"store {self.location}: {path} exists: another journaled write "
                             "is unfinished; reopen the store to undo it") from exc
        except OSError as exc:
            raise StoreError(f"store {self.location}: cannot write the journal {path}: {exc}. "
                             "Check the free disk space") from exc
        self._undo = journal
        self._undo_graphs = set()
        self.undone = None
        try:
            yield
        except BaseException:
            self._undo = None
            try:
                removed = self._undo_statements(journal.name, journal.chunks(), clear=empty,
                                                kept=None if keep is None else journal.kept(),
                                                total=journal.lines,
                                                progress=self.undo_progress)
            except BaseException:
                journal.close()  # left for the next writer open to undo
                self.unfinished = journal.name
                raise
            journal.commit()
            self.undone = (journal.name, removed)
            raise
        self._undo = None
        try:
            with _map_errors(f"store {self.location}"):
                self._store.flush()  # the statements are on disk before the commit point
            self._mark_durable()
            journal.commit()
        except BaseException:
            journal.close()  # not committed: the next writer open undoes it
            self.unfinished = journal.name
            raise

    def _recover(self, path: Path,
                 progress: Callable[[str, int, int], None] | None = None) -> None:
        """Undo the journaled write a dead process left (:meth:`journaled`)."""
        try:
            name, blocks = read_journal(path)
            self._undo_statements(name, blocks, kept=read_kept(path), progress=progress)
            _discard_journal(path)
        except BaseException:
            self.close()  # no store object is returned: release the engine and the lock
            raise
        self.recovered = name

    def _undo_statements(self, name: str, blocks: Iterable[bytes], *, clear: bool = False,
                         kept: Kept | None = None, total: int = 0,
                         progress: Callable[[str, int, int], None] | None = None) -> int:
        """Remove every statement the journal lists, one by one, each block logged in the
        ledger first, then the name of each graph the journal says the write created
        (once it is empty); ``clear``: the store held nothing before the journaled write,
        so each block is logged and the store is then cleared at once (0.18 s instead of
        5 s for 100,000 statements: removing costs about what adding did, 50 us a
        statement). ``kept``: the journal's keep section (what the store held before the
        write); when it is smaller than the write's statements, each block is logged, the
        store is cleared, and what it held is logged and added back in one transaction
        (1.3-1.8 s from Ctrl-C to exit instead of 5.4-6.7 s, 60,000-100,000 statements
        written beside the 1,870 of a store after ``provgraph init``, issue 16 item 2).
        ``total``: the statements the journal lists (0: unknown), for ``progress``
        (:meth:`journaled`). Returns the statements listed."""
        what = f"store {self.location}: undoing {name}"
        removed = 0
        created: list[Any] = []
        back = None
        if not clear and kept is not None and len(kept.statements) < kept.journaled:
            try:
                back = list(ox.parse(kept.statements, ox.RdfFormat.N_QUADS))
            except SyntaxError as exc:
                raise StoreError(
                    f"{what}: the statements its journal keeps do not parse ({exc}); nothing "
                    "was undone yet. Restore the store from a backup, or delete the run "
                    "with 'provgraph delete-run'") from exc
            clear = True
        if progress is not None:
            progress(name, 0, total)
        with _map_errors(what):
            for block in blocks:
                created += (_journal_graph(g) for g in _new_graphs(block))
                try:
                    quads = list(ox.parse(block, ox.RdfFormat.N_QUADS))
                except SyntaxError as exc:
                    raise StoreError(
                        f"{what}: its journal holds a line that does not parse ({exc}); the "
                        "store may keep part of that write. Restore it from a backup, or "
                        "delete the run with 'provgraph delete-run'") from exc
                self._log("undo", removed=quads, note=name)
                if not clear:
                    for i in range(0, len(quads), _UNDO_STEP):
                        for q in quads[i:i + _UNDO_STEP]:
                            self._store.remove(q)
                        if progress is not None:
                            progress(name, removed + min(i + _UNDO_STEP, len(quads)), total)
                    self._wrote(len(quads))
                removed += len(quads)
                if clear and progress is not None:
                    progress(name, removed, total)
            if back is not None:
                assert kept is not None
                self._log("undo", added=back, note=name)  # what the clear takes, put back
                self._store.clear()
                self._store.extend(back)
                for g in kept.graphs:  # the graphs it listed (some may be empty)
                    self._store.add_graph(_journal_graph(g))
            elif clear:
                self._store.clear()
            else:
                for g in created:  # emptied above: every statement in it was the write's
                    if next(iter(self._store.quads_for_pattern(None, None, None, g)),
                            None) is None:
                        self._store.remove_graph(g)
            self._store.flush()
        self._mark_durable()
        return removed

    # -- the ledger (provgraph.ledger; issue 20) -------------------------------
    def _open_ledger(self, root: Path, blobs: BlobStore) -> None:
        """Open the ledger, then make it agree with the store: adopt a store that has
        statements but no ledger, or reconcile the lines whose write may not have
        committed (the module docstring of :mod:`provgraph.ledger`)."""
        fresh = not (root / LEDGER_NAME).exists()
        try:
            led = LedgerWriter(root)
        except (OSError, ValueError) as exc:
            self.close()
            raise StoreError(f"store {root}: cannot open its ledger {root / LEDGER_NAME}: "
                             f"{exc}. Run 'provgraph verify' to see what is wrong") from exc
        self._ledger = led
        notes = []
        pending: list[LedgerLine] | None = []
        if led.torn:
            notes.append(f"removed a torn last ledger line ({led.torn} bytes; its write "
                         "never started)")
        try:
            if fresh and len(self._store):
                self._adopt(blobs)
                notes.append("the store had no ledger: it starts with adopt lines holding "
                             "the statements and originals found")
            elif (pending := led.pending()) is None:
                notes.append(f"{HEAD_NAME} names a line the ledger does not have (or has "
                             "with another hash): the ledger was cut or rewritten, so nothing "
                             "was reconciled; run 'provgraph verify'")
            else:
                found = self._reconcile(pending)
                if found:
                    notes.append(found)
            self._store.flush()
            if pending is not None:
                led.mark_durable()
        except BaseException:
            self.close()
            raise
        every = os.environ.get("PROVGRAPH_CHECKPOINT_EVERY")
        if every:  # periodic signed checkpoints (provgraph.signing.periodic_checkpoints)
            from .signing import periodic_checkpoints

            try:
                self._checkpoint = periodic_checkpoints(root, every)
            except BaseException:
                self.close()
                raise
        if isinstance(blobs, Originals) or hasattr(blobs, "on_new"):
            blobs.on_new = led.blobs.append
            blobs.may_discard = led.forget_blob
        self.ledger_recovered = "; ".join(notes) or None

    def _adopt(self, blobs: BlobStore) -> None:
        led = self._ledger
        assert led is not None
        if isinstance(blobs, Originals):
            led.blobs.extend(blobs.digests())
        it = iter(self._store.quads_for_pattern(None, None, None, None))
        first = True
        while (chunk := list(itertools.islice(it, 100_000))) or first:
            self._log("adopt", added=chunk)
            first = False

    def _reconcile(self, pending: list[LedgerLine], why: str = "a crash interrupted"
                   ) -> str | None:
        """Append a ``recover`` line for what ``pending`` lines say and the store lacks
        (or holds against them); the text for :attr:`ledger_recovered`, or ``None``.
        ``why`` says what stopped their writes, in the line's note."""
        if not pending:
            return None
        said = predicted(pending)
        keys = list(said)
        with _map_errors(f"store {self.location}: its ledger"):
            parsed = list(ox.parse("".join(k + " .\n" for k in keys).encode("utf-8"),
                                   ox.RdfFormat.N_QUADS))
        if len(parsed) != len(keys):  # pragma: no cover - each key is one statement
            raise StoreError(f"store {self.location}: its ledger lines "
                             f"{pending[0].n}-{pending[-1].n} do not parse one by one")
        held: list[str] = []
        lacked: list[str] = []
        for k, q in zip(keys, parsed):
            there = _stored_parsed(q) in self._store
            if there != said[k]:
                (held if there else lacked).append(k)
        if not held and not lacked:
            return None
        note = (f"lines {pending[0].n}-{pending[-1].n} were written ahead of writes {why}: "
                f"{len(lacked)} of their statements are not in the store"
                + (f", {len(held)} they remove are" if held else ""))
        assert self._ledger is not None
        self._ledger.append("recover", removed=lacked, added=held, note=note)
        return f"ledger: {note} (recorded as line {self._ledger.n})"

    def _log(self, op: str, *, removed: Iterable[Any] = (), added: Iterable[Any] = (),
             note: str | None = None) -> None:
        """Append the ledger line of a write (store-form pyoxigraph quads) before it runs."""
        led = self._ledger
        if led is None:
            return
        rm, ad = _ledger_strs(removed), _ledger_strs(added)
        if not rm and not ad and not led.blobs:
            return  # nothing written (an empty undo block, an empty add)
        try:
            led.append(op, removed=rm, added=ad, note=note or self.ledger_note)
            self._ahead = LedgerLine(n=led.n, prev="", hash=led.head, time="", op=op,
                                     removed=tuple(rm), added=tuple(ad))
            if self._checkpoint is not None:
                self._checkpoint(led.n, led.head)
        except OSError as exc:
            raise StoreError(f"store {self.location}: cannot append to its ledger {led.path}: "
                             f"{exc}; nothing was written. Check the free disk space") from exc

    @contextlib.contextmanager
    def _unless_refused(self) -> Iterator[None]:
        """Run the engine's part of a write whose line :meth:`_log` just appended. When the
        engine refuses it (``DELETE DATA`` takes no blank node: deleting a run that holds
        one), a ``recover`` line records at once what the store holds against that line,
        as the next open would after a crash; else the line would stay, be marked durable
        at the next flush, and verify, rebuild and the stale and impact indexes would
        take its write as done. A recover line that cannot be appended leaves the head
        before the line, so the next writer open reconciles it."""
        self._ahead = None
        try:
            yield
        except BaseException:
            line, self._ahead = self._ahead, None
            if line is not None and self._ledger is not None:
                try:
                    self._reconcile([line], "the engine refused")
                except (StoreError, OSError):
                    self._ledger.suspect = True
            raise
        self._ahead = None

    def _mark_durable(self) -> None:
        if self._ledger is not None:
            try:
                self._ledger.mark_durable()
            except OSError as exc:
                raise StoreError(f"store {self.location}: cannot write {HEAD_NAME}: {exc}") from exc

    @property
    def ledger_path(self) -> Path | None:
        """The ledger file (``PATH/ledger.jsonl``) of a writer with one, else ``None``."""
        return None if self._ledger is None else self._ledger.path

    def apply_ledger_line(self, line: LedgerLine) -> None:
        """Apply one ledger line to this store (its removals, then its additions), writing
        no ledger line of its own: how :func:`provgraph.verify.rebuild_store` and
        :func:`provgraph.verify.verify_store` replay a ledger.

        Raises:
            StoreError: this store keeps a ledger, or a statement does not parse.
        """
        if self._ledger is not None:
            raise StoreError(f"store {self.location} keeps a ledger; replay into a store "
                             "opened with ledger=False")
        with _map_errors(f"ledger line {line.n}"):
            for part, write in ((line.removed, self._store.remove), (line.added, None)):
                if not part:
                    continue
                quads = [_stored_parsed(q) for q in ox.parse(
                    "".join(t + " .\n" for t in part).encode("utf-8"), ox.RdfFormat.N_QUADS)]
                if write is None:
                    self._store.extend(quads)
                else:
                    for q in quads:
                        write(q)

    def differences(self, other: "EmbeddedStore", limit: int = 100) -> tuple[list[Quad], list[Quad]]:
        """The statements only this store holds and those only ``other`` holds (at most
        ``limit`` of each), compared as the engine holds them (exact terms and blank
        node labels; literals in provgraph's encoding, :mod:`provgraph._lexical`).

        Returns:
            ``(only here, only in other)``, each sorted by N-Quads text.
        """
        def only(a: Any, b: Any) -> list[Quad]:
            out = []
            with _map_errors(f"store {self.location}"):
                for q in a.quads_for_pattern(None, None, None, None):
                    if q not in b:
                        out.append(q)
                        if len(out) >= limit:
                            break
            return [_quad_from_ox(q) for q in sorted(out, key=str)]
        return only(self._store, other._store), only(other._store, self._store)

    def _refuse_in_journal(self, operation: str) -> None:
        if self._undo is not None:
            raise StoreError(f"store {self.location}: {operation} inside a journaled write "
                             f"({self._undo.name}) cannot be undone with it; only add() and "
                             "load() can")

    def _add_journaled(self, journal: UndoJournal, quads: Iterable[Any]) -> int:
        """Journal the statements of ``quads`` (store form) the store lacks, and the graphs
        among theirs it does not have, then store all."""
        # (no local name for the engine: a traceback kept by the caller would keep it, and
        # its write lock, alive after close())
        with _map_errors(f"store {self.location}"):
            batch = list(quads)
            new = [q for q in dict.fromkeys(batch) if q not in self._store]
            created = []
            for g in {q.graph_name for q in new} - self._undo_graphs:
                self._undo_graphs.add(g)
                if type(g) is not ox.DefaultGraph and not self._store.contains_named_graph(g):
                    created.append(str(g))
        try:
            journal.note((str(q) for q in new), created)
        except OSError as exc:
            raise StoreError(f"store {self.location}: cannot write the journal: {exc}. "
                             "Check the free disk space") from exc
        self._log("add", added=new, note=journal.name)
        with _map_errors(f"store {self.location}"):
            self._store.extend(batch)
        self._wrote(len(batch))
        return len(new)

    # writing
    def add(self, quads: Iterable[Quad]) -> None:
        if self._undo is not None:
            self._add_journaled(self._undo, (_quad_to_store(q) for q in quads))
            return
        if self._ledger is not None:
            with _map_errors(f"store {self.location}"):
                stored = [_quad_to_store(q) for q in quads]
            self._log("add", added=stored)
            with _map_errors(f"store {self.location}"):
                self._store.extend(stored)
            self._wrote(len(stored))
            return
        with _map_errors(f"store {self.location}"):
            self._store.extend(_quad_to_store(q) for q in quads)  # one transaction; no list
        self._wrote(len(quads) if isinstance(quads, Sized) else _FLUSH_STATEMENTS // 10)

    def bulk_add(self, quads: Iterable[Quad]) -> None:
        self._refuse_in_journal("bulk_add()")
        if self._ledger is not None:
            with _map_errors(f"store {self.location}"):
                self._bulk_logged(_quad_to_store(q) for q in quads)
            return
        with _map_errors(f"store {self.location}"):
            self._store.bulk_extend(_quad_to_store(q) for q in quads)

    def add_native(self, quads: Iterable[Any], *, bulk: bool = False) -> None:
        """Insert already-built pyoxigraph quads (for benchmarks comparing the raw engine)."""
        self._refuse_in_journal("add_native()")
        if self._ledger is not None:
            quads = list(quads)
            self._log("bulk" if bulk else "add", added=quads)
        with _map_errors(f"store {self.location}"):
            (self._store.bulk_extend if bulk else self._store.extend)(quads)

    def _bulk_logged(self, quads: Iterable[Any], size: int = 100_000) -> None:
        """Stream store-form quads into the engine's bulk writer, one ledger line ahead
        of each ``size`` of them (no transaction: a crash part-way leaves part of a line
        stored, which the next open's reconciliation records)."""
        it = iter(quads)
        while chunk := list(itertools.islice(it, size)):
            self._log("bulk", added=chunk)
            self._store.bulk_extend(chunk)

    def remove(self, quads: Iterable[Quad]) -> None:
        self._refuse_in_journal("remove()")
        with _map_errors(f"store {self.location}"):  # an invalid term is a StoreError too
            oxq = [_quad_to_store(q) for q in quads]
        if not oxq:
            return
        with self._unless_refused():
            self._log("remove", removed=oxq)
            with _map_errors(f"store {self.location}"):
                self._store.update(
                    "DELETE DATA { " + " ".join(_ntriples_quad(q) for q in oxq) + " }"
                )
        self._wrote(len(oxq))

    def replace(self, remove: Iterable[Quad], add: Iterable[Quad]) -> None:
        """Remove and add in one SPARQL 1.1 Update (one transaction): a failure stores nothing."""
        self._refuse_in_journal("replace()")
        with _map_errors(f"store {self.location}"):  # an invalid term is a StoreError too
            rm = [_quad_to_store(q) for q in remove]
            ad = [_quad_to_store(q) for q in add]
        with self._unless_refused():
            if rm or ad:
                self._log("replace", removed=rm, added=ad)
            if not rm:
                if ad:
                    with _map_errors(f"store {self.location}"):
                        self._store.extend(ad)
                    self._wrote(len(ad))
                return
            parts = ["DELETE DATA { " + " ".join(_ntriples_quad(q) for q in rm) + " }"]
            if ad:
                parts.append("INSERT DATA { " + " ".join(_ntriples_quad(q) for q in ad) + " }")
            with _map_errors(f"store {self.location}"):
                self._store.update(" ;\n".join(parts))
        self._wrote(len(rm) + len(ad))

    def load(self, data: bytes | str | IO[bytes], format: str, *, graph: IRI | None = None,
             base_iri: str | None = None) -> int:
        fmt = _rdf_format(format)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, bytes):
            data = data.read()
        before = len(self._store)
        # parsed, then stored through the literal encoding (issue 15): the engine's own
        # load() would keep "7"^^xsd:int as "7"^^xsd:integer
        quads = parse_rdf(data, format, base_iri=base_iri,
                          graph=graph if fmt is not ox.RdfFormat.JSON_LD or graph else None)
        if fmt in (ox.RdfFormat.TRIG, ox.RdfFormat.N_QUADS) and graph is not None:
            quads = parse_rdf(data, format, base_iri=base_iri)
        if self._undo is not None:
            with _map_errors(f"{format} input"):
                stored = [_quad_to_store(q) for q in quads]
            return self._add_journaled(self._undo, stored)
        if self._ledger is not None:
            with _map_errors(f"{format} input"):
                stored = [_quad_to_store(q) for q in quads]
            self._log("load", added=stored)
            with _map_errors(f"{format} input"):
                self._store.extend(stored)
            added = len(self._store) - before
            self._wrote(added)
            return added
        with _map_errors(f"{format} input"):
            self._store.extend(_quad_to_store(q) for q in quads)
        added = len(self._store) - before
        self._wrote(added)
        return added

    def bulk_load(self, path: str | os.PathLike[str], format: str, *,
                  graph: IRI | None = None,
                  progress: Callable[[int, int], None] | None = None) -> None:
        """Stream a large RDF file into the store without a transaction (pair: :meth:`load`).

        Line-based formats (``nquads``, ``ntriples``) are loaded in windows of
        about 24 MB cut at line ends, one pyoxigraph bulk load per window, two
        windows at a time, so the peak memory stays flat whatever the file size
        (320 MB peak measured for 10 million statements, at 0.84 times the rate of
        pyoxigraph's single bulk load of the whole file, which holds 1M-quad
        batches per thread and peaked at 1.8 GB: issue 8, bench/RESULTS.md). pyoxigraph gives every loaded document fresh blank
        nodes, so a file containing ``_:`` is loaded as one document, still read one
        window at a time (one blank node label, one node, as in :meth:`load`). Other
        formats are parsed by pyoxigraph and streamed into its bulk writer.

        Literals keep their datatype and lexical form as in :meth:`load` (issue 15):
        a line whose literal the engine would store in another form
        (``"7"^^xsd:int``, ``"2.0"^^xsd:decimal``; :mod:`provgraph._lexical`) is
        parsed by pyoxigraph and written back, in place, with the store's encoding;
        every other line reaches the engine's loader as it is.

        A ``KeyboardInterrupt`` (Ctrl-C) while windows load lets the windows in
        flight finish, starts no other, and then propagates: what was loaded stays
        stored, and loading the file again finishes it (issue 17: the workers went on
        reading a closed file, printing a thread traceback).

        Args:
            path: the file.
            format: one of :data:`RDF_FORMATS`.
            graph: target graph for triple formats (``None``: default graph).
            progress: called with ``(bytes loaded, file size in bytes)`` after each
                window is stored (once, at the end, for a file loaded whole), from
                the worker thread that loaded it, one call at a time.

        Raises:
            SerializationError: the file does not parse (earlier windows may
                already be stored); line numbers in the message count from the
                start of the file.
            StoreError: the file cannot be read or the store cannot be written.
            KeyboardInterrupt: as above.
        """
        self._refuse_in_journal("bulk_load()")
        fmt = _rdf_format(format)
        kwargs: dict[str, Any] = {"format": fmt}
        if fmt not in (ox.RdfFormat.TRIG, ox.RdfFormat.N_QUADS):
            kwargs["to_graph"] = _graph_to_ox(graph)
        windowed = fmt in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES)
        if self._ledger is not None and windowed:
            with _map_errors(f"{format} input {path}"):
                windowed = not may_have_blank_nodes(path)
        if self._ledger is not None and not windowed:
            # every statement goes through the ledger: parsed here (blank nodes renamed
            # once, so the ledger names the nodes the store holds), not by the engine's
            # loader, which would give them labels the ledger cannot know
            target = kwargs.get("to_graph")
            with _map_errors(f"{format} input {path}"):
                parsed = ox.parse(path=str(path), format=fmt, rename_blank_nodes=True)
                self._bulk_logged(_stored_parsed(q, target) for q in parsed)
            if progress is not None:
                size = os.path.getsize(path)
                progress(size, size)
            return
        if fmt in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES):
            self._bulk_load_windows(path, format, kwargs, progress)
            return
        target = kwargs.get("to_graph")
        with _map_errors(f"{format} input {path}"):
            parsed = ox.parse(path=str(path), format=fmt, rename_blank_nodes=True)
            self._store.bulk_extend(_stored_parsed(q, target) for q in parsed)
        if progress is not None:
            size = os.path.getsize(path)
            progress(size, size)

    def _log_window(self, data: bytes, kwargs: dict[str, Any], lock: Any) -> None:
        """Append the ledger line of one bulk-load window (lines without blank nodes,
        literals already in the store's encoding), one worker at a time."""
        graph = kwargs.get("to_graph")
        quads = list(ox.parse(data, kwargs["format"]))
        if graph is not None:
            quads = [ox.Quad(q.subject, q.predicate, q.object, graph) for q in quads]
        with lock:
            self._log("bulk", added=quads)

    def _bulk_load_windows(self, path: str | os.PathLike[str], format: str,
                           kwargs: dict[str, Any],
                           progress: Callable[[int, int], None] | None) -> None:
        import threading

        what = f"{format} input {path}"
        fmt = kwargs["format"]

        def rewrite(window: bytes) -> bytes:
            return _encoded_lines(window, fmt)

        with _map_errors(what):
            size = os.path.getsize(path)
            probe = open(path, "rb")  # noqa: SIM115 - closed below
        windows = line_windows(probe, size, _BULK_WINDOW_BYTES)
        if may_have_blank_nodes(path):
            # pyoxigraph gives each loaded document fresh blank nodes, so a label used
            # in two windows would become two nodes: one document, read window by window.
            with probe, _map_errors(what), open(path, "rb", buffering=0) as raw:
                self._store.bulk_load(
                    io.BufferedReader(RewrittenWindows(raw, windows, rewrite), 1 << 20),
                    **kwargs)
            if progress is not None:
                progress(size, size)
            return
        lock = threading.Lock()
        failures: list[tuple[int, BaseException]] = []
        stop = threading.Event()  # set on Ctrl-C: take no new window
        done = [0]

        # pyoxigraph releases the GIL while it loads, so two workers overlap one window's
        # parsing with the other's index building, as its own loader does with its batches.
        finished: list[threading.Event] = []

        def work(done_event: threading.Event) -> None:
            try:
                _work()
            finally:
                done_event.set()

        def _work() -> None:
            with open(path, "rb", buffering=0) as raw:
                while True:
                    with lock:
                        window = None if failures or stop.is_set() else next(windows, None)
                    if window is None:
                        return
                    try:
                        with _map_errors(what):
                            data = rewrite(read_window(raw, *window))
                            if self._ledger is not None:  # written ahead of the window
                                self._log_window(data, kwargs, lock)
                            self._store.bulk_load(data, **kwargs)
                    except BaseException as exc:  # re-raised below, from the calling thread
                        with lock:
                            failures.append((window[0], exc))
                        return
                    with lock:
                        done[0] += window[1] - window[0]
                        if progress is not None:
                            progress(done[0], size)

        with probe:
            workers: list[threading.Thread] = []
            try:
                for i in range(_BULK_WORKERS):
                    finished.append(threading.Event())
                    workers.append(threading.Thread(target=work, args=(finished[-1],),
                                                    name=f"provgraph-bulk-load-{i}"))
                    workers[-1].start()
                for t in workers:
                    t.join()
            except KeyboardInterrupt:
                stop.set()  # the windows in flight finish (pyoxigraph cannot be stopped
                # inside one); then the interrupt goes on. Waited for by the workers' own
                # events: a Thread.join() interrupted by Ctrl-C may already count a running
                # thread as stopped (measured: the count of statements kept came out short)
                for t, event in zip(workers, finished):
                    if t.ident is not None:
                        event.wait()
                raise
        if failures:
            start, exc = min(failures, key=lambda f: f[0])
            raise with_file_lines(exc, what, path, start)

    # reading
    def quads(self, subject: IRI | BNode | None = None, predicate: IRI | None = None,
              object: Term | None = None, graph: Any = ANY_GRAPH) -> Iterator[Quad]:
        if not self.read_only or self._root_for_reopen is None:
            yield from self._quads(subject, predicate, object, graph)
            return
        # Read-only beside a writer: the first _PREFETCH quads are read before any is
        # given out, so a race with the writer's compaction there is retried on a fresh
        # open; past them, it is an error that says to run again (nothing is resumed).
        first: list[Quad] = []
        rest: Iterator[Quad] = iter(())

        def head() -> None:
            nonlocal first, rest
            it = self._quads(subject, predicate, object, graph)
            first = list(itertools.islice(it, _PREFETCH))
            rest = it
        self._read_retrying(head)
        yield from first
        try:
            yield from rest
        except StoreError as exc:
            if _lost_race(exc, self._root_for_reopen):
                raise StoreError(
                    f"store {self.location}: the writer compacted away a file this long read "
                    "was using (a read-only open beside a live writer); nothing was changed. "
                    "Run the command again, or read through 'provgraph serve'") from exc
            raise

    def quads_list(self, subject: IRI | BNode | None = None, predicate: IRI | None = None,
                   object: Term | None = None, graph: Any = ANY_GRAPH) -> list[Quad]:
        if not self.read_only or self._root_for_reopen is None:
            return list(self._quads(subject, predicate, object, graph))
        # read-only: the read as quads() makes its first _PREFETCH quads (retried on a lost
        # race); a longer read is made again through quads(), whose message covers it
        got = self._read_retrying(lambda: list(itertools.islice(
            self._quads(subject, predicate, object, graph), _PREFETCH + 1)))
        return got if len(got) <= _PREFETCH else list(self.quads(subject, predicate, object, graph))

    def subject_pairs(self, subject: IRI | BNode, *, skip_graph: IRI | None = None,
                      skip_predicates: Collection[IRI] = ()) -> list[tuple[IRI, Term]]:
        # the walk's hot read (a run export reads every subject of the run once): no quad
        # tuples, no subject conversion, objects from a bounded cache (objects repeat: a
        # demo run's 14,454 reads hold 4,574 distinct objects)
        return self._read_retrying(lambda: self._subject_pairs(subject, skip_graph, skip_predicates))

    def _subject_pairs(self, subject: IRI | BNode, skip_graph: IRI | None,
                       skip_predicates: Collection[IRI]) -> list[tuple[IRI, Term]]:
        names, objects = self._names, self._objects
        got: list[tuple[IRI, Term]] = []
        graphs: set[Any] = set()
        # errors mapped only when one happens: a context manager per read cost 1-2 % of a
        # run export's 2,200 reads (issue 16, item 7)
        try:
            for q in self._store.quads_for_pattern(_to_ox(subject), None, None, None):
                p, o, g = q.predicate, q.object, q.graph_name
                pv = names.get(p)
                if pv is None:
                    pv = names[p] = IRI(p.value)
                gv = names.get(g, _MISSING)
                if gv is _MISSING:
                    gv = names[g] = _graph_from_ox(g)
                graphs.add(gv)
                if (gv == skip_graph and gv is not None) or pv in skip_predicates:
                    continue
                ov = objects.get(o)
                if ov is None:
                    ov = objects[o] = _from_ox(o)
                got.append((pv, ov))
        except _ENGINE_ERRORS:
            with _map_errors(f"store {self.location}"):
                raise
        if len(objects) > 65536:
            objects.clear()
        if len(names) > 4096:
            names.clear()
        return list(dict.fromkeys(got)) if len(graphs) > 1 else got

    def subject_pairs_batch(self, subjects: Sequence[IRI | BNode], *,
                            skip_graph: IRI | None = None,
                            skip_predicates: Collection[IRI] = ()) -> list[list[tuple[IRI, Term]]]:
        # One SELECT over every subject, written by pyoxigraph as SPARQL TSV and split here:
        # the subject is a VALUES row number and the graph is never projected, so the engine
        # decodes two terms a statement instead of four, and no pyoxigraph term object is
        # made (demo run, 2,200 subjects: 68-87 ms against 94-128 ms for quads_for_pattern
        # per subject; issue 16, item 7). Blank-node subjects (VALUES holds no blank node)
        # are read one by one.
        out: list[list[tuple[IRI, Term]]] = [[] for _ in subjects]
        at: list[int] = []
        for i, s in enumerate(subjects):
            if isinstance(s, BNode) or not isinstance(s, str):
                out[i] = self.subject_pairs(s, skip_graph=skip_graph,
                                            skip_predicates=skip_predicates)
            else:
                at.append(i)
        if not at:
            return out
        written = _sparql_terms([IRI(subjects[i]) for i in at], "subject_pairs_batch")
        rows = [f"({i} {w})" for i, w in zip(at, written)]
        graph_filter = ("" if skip_graph is None else
                        f" FILTER(?g != {_sparql_terms([skip_graph], 'skip_graph')[0]})")
        skip = _sparql_terms(sorted(skip_predicates), "skip_predicates")
        sparql = (f"SELECT ?i ?p ?o WHERE {{\n  VALUES (?i ?s) {{ {' '.join(rows)} }}\n"
                  f"  {{ GRAPH ?g {{ ?s ?p ?o }}{graph_filter} }} UNION {{ ?s ?p ?o }}\n"
                  + (f"  FILTER(?p NOT IN ({', '.join(skip)}))\n" if skip else "") + "}")

        def read() -> bytes:
            with _map_errors(f"store {self.location}", query=True, source="(subject pairs)"):
                res = self._store.query(sparql, use_default_graph_as_union=False)
                assert isinstance(res, ox.QuerySolutions)  # a SELECT query
                return res.serialize(format=ox.QueryResultsFormat.TSV) or b""
        data = self._read_retrying(read).decode("utf-8")
        # split in C: every field of every row at once (a TSV term holds no tab or line
        # feed), each distinct term decoded once, the rows mapped to terms and grouped by
        # subject with map, zip and groupby (a Python loop per row cost 2-3 µs a statement)
        body = data[data.find("\n") + 1:-1]  # without the header line and the last "\n"
        fields = body.replace("\t", "\n").split("\n") if body else []
        if len(fields) % 3:
            raise StoreError(f"store {self.location}: unexpected query result rows "
                             f"({len(fields)} fields, 3 a row)")
        names, terms = self._tsv_names, self._tsv_terms
        if len(terms) > 65536:
            terms.clear()
        if len(names) > 4096:
            names.clear()
        ids, predicates, objects = fields[0::3], fields[1::3], fields[2::3]
        for text in set(predicates).difference(names):
            term = _tsv_term(text)
            if not isinstance(term, IRI):
                raise StoreError(f"store {self.location}: a predicate that is no IRI: {text}")
            names[text] = term
        for text in set(objects).difference(terms):
            terms[text] = _tsv_term(text)
        pairs = zip(map(names.__getitem__, predicates), map(terms.__getitem__, objects))
        for i, group in itertools.groupby(zip(ids, pairs), key=_FIRST):
            out[int(i)].extend(map(_SECOND, group))
        return [list(dict.fromkeys(pos)) for pos in out]

    def has_graph(self, iri: IRI) -> bool:
        # one quad read, where quads() on a read-only store would read _PREFETCH of them
        # first (0.1-0.2 s for a run graph, a sixth of a demo run's export; issue 16)
        return self._read_retrying(
            lambda: next(iter(self._quads(None, None, None, iri)), None) is not None)

    def _quads(self, subject: IRI | BNode | None, predicate: IRI | None,
               object: Term | None, graph: Any) -> Iterator[Quad]:
        g = None if graph is ANY_GRAPH else _graph_to_ox(graph)
        with _map_errors(f"store {self.location}"):
            it = self._store.quads_for_pattern(
                None if subject is None else _to_ox(subject),
                None if predicate is None else _to_ox(predicate),
                None if object is None else _to_store(object),
                g,
            )
            # The read hot path (exports, closures): terms the pattern fixes are not
            # converted again, and predicates and graphs (few distinct values) come
            # from a small cache; the objects are converted as they come.
            names = self._names
            fixed_s = subject if type(subject) in (IRI, BNode) else None
            fixed_p = predicate if type(predicate) is IRI else None
            fixed_o = object if type(object) in (IRI, BNode, Literal) else None
            for q in it:
                p, g = q.predicate, q.graph_name
                pv = fixed_p if fixed_p is not None else names.get(p)
                if pv is None:
                    pv = names[p] = IRI(p.value)
                gv = names.get(g, _MISSING)
                if gv is _MISSING:
                    gv = names[g] = _graph_from_ox(g)
                yield (fixed_s if fixed_s is not None else _from_ox(q.subject), pv,  # type: ignore[misc]
                       fixed_o if fixed_o is not None else _from_ox(q.object), gv)
            if len(names) > 4096:
                names.clear()

    def _query(self, sparql: str, bindings: Mapping[str, Term] | None, source: str) -> Any:
        subs = {ox.Variable(k): _to_ox(v) for k, v in (bindings or {}).items()} or None
        with _map_errors("query", query=True, source=source):
            return self._store.query(sparql, use_default_graph_as_union=True, substitutions=subs)

    def select(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
               source: str = "<text>",
               values: tuple[str, Sequence[IRI | Literal]] | None = None,
               ) -> list[dict[str, Term | None]]:
        if values is not None:
            sparql = _with_values(sparql, *values)
        return self._read_retrying(lambda: self._select(sparql, bindings, source))

    def _select(self, sparql: str, bindings: Mapping[str, Term] | None,
                source: str) -> list[dict[str, Term | None]]:
        res = self._query(sparql, bindings, source)
        if not isinstance(res, ox.QuerySolutions):
            raise QueryError(f"{source}: expected a SELECT query")
        names = [v.value for v in res.variables]
        with _map_errors("query", query=True, source=source):
            return _solutions(res, names)

    def query_results(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
                      source: str = "<text>",
                      values: tuple[str, Sequence[IRI | Literal]] | None = None,
                      ) -> tuple[str, bytes]:
        """Run any SPARQL 1.1 query and return its result as the protocol sends it
        (for ``provgraph serve``): ``(media type, bytes)``, SPARQL 1.1 Query Results
        JSON for SELECT and ASK, N-Triples for CONSTRUCT and DESCRIBE. Arguments and
        errors as :meth:`select`."""
        if values is not None:
            sparql = _with_values(sparql, *values)
        def run() -> tuple[str, bytes]:
            res = self._query(sparql, bindings, source)
            with _map_errors("query", query=True, source=source):
                if isinstance(res, ox.QueryTriples):
                    return ("application/n-triples",
                            res.serialize(format=ox.RdfFormat.N_TRIPLES) or b"")
                return ("application/sparql-results+json",
                        res.serialize(format=ox.QueryResultsFormat.JSON) or b"")
        return self._read_retrying(run)

    def ask(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
            source: str = "<text>") -> bool:
        def run() -> bool:
            res = self._query(sparql, bindings, source)
            if not isinstance(res, ox.QueryBoolean):
                raise QueryError(f"{source}: expected an ASK query")
            return bool(res)
        return self._read_retrying(run)

    def construct(self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
                  source: str = "<text>") -> list[tuple[IRI | BNode, IRI, Term]]:
        def run() -> list[tuple[IRI | BNode, IRI, Term]]:
            res = self._query(sparql, bindings, source)
            if not isinstance(res, ox.QueryTriples):
                raise QueryError(f"{source}: expected a CONSTRUCT or DESCRIBE query")
            with _map_errors("query", query=True, source=source):
                return [(_from_ox(t.subject), _from_ox(t.predicate), _from_ox(t.object))  # type: ignore[misc]
                        for t in res]
        return self._read_retrying(run)

    def update(self, sparql: str, *, source: str = "<text>") -> None:
        """Run a SPARQL 1.1 Update request in one transaction, literals kept as written.

        The request is read first by rdflib's SPARQL 1.1 Update parser
        (:func:`provgraph.sparql_guard.read_update`, which keeps lexical forms). When
        every literal it writes is one the engine keeps, the text runs as given. When
        one is not (``"007"^^xsd:int``, ``"2.0"^^xsd:decimal``: :mod:`provgraph._lexical`)
        and every operation is ``INSERT DATA`` or ``DELETE DATA``, their data is
        written back as update text with the store's encoding, so the data keeps its
        datatype and lexical form, and ``DELETE DATA`` removes what :meth:`add` stored.

        Raises:
            QuerySyntaxError: the text does not parse (rdflib's, then the engine's
                message, with ``source``).
            QueryError: a ``DELETE``/``INSERT`` template or ``DELETE WHERE`` writes a
                literal the engine would change, or such a literal is in ``INSERT
                DATA``/``DELETE DATA`` beside another kind of operation: the engine
                would write (or look for) its canonical form, so the request is
                refused, naming the literal, and nothing is written. Literal constants
                in a ``WHERE`` pattern are compared as in queries (by the engine's
                value: the trade-off in :mod:`provgraph._lexical`).
            QueryRefused: brackets nested deeper than
                :data:`provgraph.sparql_guard.MAX_QUERY_DEPTH`.
        """
        from .sparql_guard import read_update

        self._refuse_in_journal("update()")
        request = read_update(sparql, source)
        changed = [(op, lit) for op, lit in request.written
                   if lit.datatype and not lit.language and not engine_keeps(lit.value, lit.datatype)]
        if changed and request.data is None:
            op, lit = changed[0]
            where = ("writes" if "INSERT" in op else "deletes")
            raise QueryError(
                f"{source}: the {op} {where} {lit.n3()}, which the engine would store as "
                f"{engine_form(lit).n3()}; provgraph keeps a literal's form only through INSERT "
                "DATA and DELETE DATA, sent in a request of their own. Send those operations "
                "alone, or write the literal in the engine's form")
        if changed:
            parts = []
            with _map_errors(f"store {self.location}"):  # an invalid term is a StoreError
                for kind, quads in request.data or ():
                    body = " ".join(_ntriples_quad(_quad_to_store(q)) for q in quads)
                    parts.append(f"{kind} DATA {{ {body} }}")
            sparql = " ;\n".join(parts)
        if self._ledger is not None:
            self._logged_update(sparql, request.data, source)
            return
        with _map_errors("update", query=True, source=source):
            self._store.update(sparql)
        self._wrote(_FLUSH_STATEMENTS // 10)

    def _logged_update(self, sparql: str, data: Any, source: str) -> None:
        """Run an update on a store with a ledger: its effect is logged ahead of it. Data
        operations (``INSERT DATA``/``DELETE DATA`` without blank nodes) are logged as their
        net effect and run as one transaction; anything else is first run on an in-memory
        copy of the store (time and memory grow with the store: an administrator's
        operation, not a recording path), and the difference is logged and applied."""
        if data is not None and not any(isinstance(t, BNode) for _, qs in data for q in qs
                                        for t in q):
            net: dict[Any, bool] = {}
            with _map_errors(f"store {self.location}"):
                for kind, qs in data:
                    for q in qs:
                        net[_quad_to_store(q)] = kind == "INSERT"
            with self._unless_refused():
                self._log("update", removed=[q for q, v in net.items() if not v],
                          added=[q for q, v in net.items() if v])
                with _map_errors("update", query=True, source=source):
                    self._store.update(sparql)
            self._wrote(len(net))
            return
        with _map_errors("update", query=True, source=source):
            copy = ox.Store()
            copy.bulk_extend(self._store.quads_for_pattern(None, None, None, None))
            copy.update(sparql)
        with _map_errors(f"store {self.location}"):
            removed = [q for q in self._store.quads_for_pattern(None, None, None, None)
                       if q not in copy]
            added = [q for q in copy.quads_for_pattern(None, None, None, None)
                     if q not in self._store]
        with self._unless_refused():
            self._log("update", removed=removed, added=added)
            with _map_errors(f"store {self.location}"):
                for q in removed:
                    self._store.remove(q)
                self._store.extend(added)
        self._wrote(len(removed) + len(added))

    def serialize(self, format: str, *, graph: Any = ANY_GRAPH,
                  output: IO[bytes] | None = None,
                  prefixes: Mapping[str, str] | None = None) -> bytes | None:
        fmt = _rdf_format(format)
        if graph is ANY_GRAPH and format not in DATASET_FORMATS:
            raise UnsupportedFormat(format, sorted(DATASET_FORMATS),
                                    "a whole dataset needs a dataset format; or pick one graph")
        if format == "ntriples":
            # one graph, one triple a line: the engine's own dump with the stored literals
            # decoded in the text (issue 16: a sixth of the time of the terms' round trip
            # through Python, which validate paid for its SHACL data graph)
            data = self._read_retrying(lambda: self._dump_ntriples(graph))
            if output is None:
                return data
            output.write(data)
            return None
        # through quads(), which decodes stored literals (issue 15), not the engine's dump
        quads = self.quads(graph=graph)
        if format in DATASET_FORMATS:
            items: Any = (_quad_to_ox(q) for q in quads)
        else:
            items = (ox.Triple(_to_ox(q[0]), _to_ox(q[1]), _to_ox(q[2])) for q in quads)
        with _map_errors(f"{format} output"):
            if output is None:
                return ox.serialize(items, format=fmt, prefixes=dict(prefixes or {}) or None)
            ox.serialize(items, output, format=fmt, prefixes=dict(prefixes or {}) or None)
        return None

    def _dump_ntriples(self, graph: IRI | None) -> bytes:
        out = _PythonWriter()
        with _map_errors(f"store {self.location}"):
            self._store.dump(out, format=ox.RdfFormat.N_TRIPLES, from_graph=_graph_to_ox(graph))
        return _decode_lexical_text(out.getvalue())

    def serialize_dataset(self, format: str, *, skip: Collection[IRI | None] = (),
                          prefixes: Callable[[Iterable[IRI]], Mapping[str, str]] | None = None
                          ) -> tuple[bytes, int]:
        # The engine's quads go to the serializer as they are, but for the literals stored
        # under a private datatype (decoded, as quads() decodes them): the same file as
        # converting every term to Python and back, in a third of the time (issue 16).
        fmt = _rdf_format(format)
        if format not in DATASET_FORMATS:
            raise UnsupportedFormat(format, sorted(DATASET_FORMATS), "not a dataset syntax")
        left_out = {_graph_to_ox(g) for g in skip}

        def read() -> list[Any]:
            out = []
            with _map_errors(f"store {self.location}"):
                for q in self._store.quads_for_pattern(None, None, None, None):
                    if q.graph_name in left_out:
                        continue
                    o = q.object
                    if type(o) is ox.Literal and o.datatype.value.startswith(LEXICAL):
                        q = ox.Quad(q.subject, q.predicate, _to_ox(_from_ox(o)), q.graph_name)
                    out.append(q)
            return out

        quads = self._read_retrying(read)
        prefix_map = None
        if prefixes is not None:
            named = ox.NamedNode
            prefix_map = prefixes(IRI(t.value) for q in quads
                                  for t in (q.subject, q.predicate, q.object, q.graph_name)
                                  if type(t) is named)
        with _map_errors(f"{format} output"):
            data = ox.serialize(quads, format=fmt, prefixes=dict(prefix_map or {}) or None)
        return (data if isinstance(data, bytes) else b""), len(quads)

    def named_graphs(self) -> list[IRI]:
        def run() -> list[IRI]:
            with _map_errors(f"store {self.location}"):
                return sorted(IRI(g.value) for g in self._store.named_graphs()
                              if isinstance(g, ox.NamedNode))
        return self._read_retrying(run)

    def remove_graph(self, graph: IRI) -> None:
        self._refuse_in_journal("remove_graph()")
        with _map_errors(f"store {self.location}"):
            if self._store.contains_named_graph(_to_ox(graph)):
                if self._ledger is not None:
                    self._log("remove-graph", removed=list(
                        self._store.quads_for_pattern(None, None, None, _to_ox(graph))))
                self._store.remove_graph(_to_ox(graph))
                self._wrote(_FLUSH_STATEMENTS // 10)

    def __len__(self) -> int:
        def run() -> int:
            with _map_errors(f"store {self.location}"):
                return len(self._store)
        return self._read_retrying(run)

    def _read_retrying(self, read: Callable[[], _T]) -> _T:
        """Run ``read`` (which must not have given out anything yet); on a read-only store
        that lost a race with the writer's compaction (a table file it was about to read
        was deleted: pyoxigraph calls a read-only open beside a writer undefined, issue 13)
        reopen it on the writer's newer state and run ``read`` again, for at most
        :data:`_READ_OPEN_SECONDS`. The retried read sees a newer committed state than
        the reads before it in the same command (never an older or a partial one)."""
        root = self._root_for_reopen
        if not self.read_only or root is None:
            return read()
        deadline = time.monotonic() + _READ_OPEN_SECONDS
        while True:
            try:
                return read()
            except StoreError as exc:
                if not _lost_race(exc, root) or time.monotonic() >= deadline:
                    raise
            try:
                self._store, self._read_token = _open_read_only_at(root)
            except OSError as exc:
                raise StoreError(f"cannot reopen the store at {root} for reading: {exc}") from exc

    def optimize(self) -> None:
        with _map_errors(f"store {self.location}"):
            self._store.optimize()

    def state_token(self) -> str | None:
        """See :meth:`ProvStore.state_token`. For a store on disk: a digest of the names,
        sizes and modification times of the engine's durable files (RocksDB's table
        files, write-ahead logs, manifest and ``CURRENT``: every committed write appends
        to a log or adds a table file) and of the ledger. A writing open compacts and
        flushes, so the token changes at each writer's open and close even when no
        statement changed (a reuse is lost, never a wrong one made). A read-only open
        takes it when it opens, and gives it only if no write landed while it opened
        (else ``None``), so the token is that of the state the reads see. ``None`` for an
        in-memory store and while a journaled write has not finished."""
        if self.read_only:
            return self._read_token
        root = self._root
        if root is None or (root / JOURNAL_NAME).exists():
            return None
        return _disk_state(root)

    def _whole_ledger(self) -> Path | None:
        """The ledger file when it holds every write: ``None`` for a store in memory, one
        without a ledger, or one a writer opened with ``ledger=False`` (it leaves
        ``PATH/index/written-without-ledger``, kept for good)."""
        root = self._root or self._root_for_reopen
        if root is None or (root / INDEX_DIR / WITHOUT_LEDGER).exists():
            return None
        if not self.read_only and self._ledger is None:
            return None
        path = root / LEDGER_NAME
        return path if path.is_file() else None

    def _moved_on(self) -> bool:
        """Whether this is a read-only open the store's files have moved on from (a write
        landed since it opened, or while it opened): its reads are of an older state than
        the ledger on disk, whose lines then go past what it reads."""
        root = self._root or self._root_for_reopen
        return self.read_only and (root is None or self._read_token is None
                                   or _disk_state(root) != self._read_token)

    def ledger_mark(self) -> LedgerMark | None:
        """See :meth:`ProvStore.ledger_mark`. Also ``None`` for a read-only open the store
        has moved on from (:meth:`ledger_lines_since`)."""
        if self._moved_on():
            return None
        path = self._whole_ledger()
        return None if path is None else mark_before_last(path)

    def ledger_lines_since(self, mark: LedgerMark) -> list[LedgerLine] | None:
        """See :meth:`ProvStore.ledger_lines_since`. Also ``None`` when the durable head
        (``PATH/ledger.head``) names a line after ``mark`` that the lines read do not hold
        with its hash: a last line edited, or cut, since it was known committed (the chain
        alone cannot show a changed last line). Also ``None`` for a read-only open the store
        has moved on from since it opened (a long-lived reader, as ``provgraph ui`` holds,
        beside a writer): its reads are of the state it opened on, the lines go on past
        it, and a result brought up to date with them would hold writes its other reads
        do not (impact answered from its index gave claims ``index=False`` did not)."""
        path = self._whole_ledger()
        if path is None or self._moved_on():
            return None
        lines = lines_since(path, mark)
        if lines is None:
            return None
        head_n, head_hash = read_head(path.parent)
        if head_n > mark.n:
            held = {line.n: line.hash for line in lines}
            if held.get(head_n) != head_hash:
                return None
        return lines

    def read_index(self, name: str) -> bytes | None:
        """See :meth:`ProvStore.read_index`: ``PATH/index/NAME`` of a store on disk."""
        root = self._root or self._root_for_reopen
        if root is None:
            return None
        try:
            return (root / INDEX_DIR / name).read_bytes()
        except OSError:
            return None

    def write_index(self, name: str, data: bytes) -> bool:
        """See :meth:`ProvStore.write_index`: ``PATH/index/NAME``, written to a temporary
        file in that directory and renamed over the old one (two processes writing at
        once each rename a whole file). A read-only open writes it too when it can: the
        one file such an open writes, derived data outside the engine's files and the
        ledger, which :meth:`state_token` does not cover; it writes nothing once a write
        has landed since it opened (its reads are of an older state)."""
        root = self._root or self._root_for_reopen
        if root is None:
            return False
        if self._moved_on():
            return False  # the store moved on since this open: an index nobody would use
        folder = root / INDEX_DIR
        tmp: str | None = None
        try:
            folder.mkdir(exist_ok=True)
            tmp = str(folder / f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # as umask allows
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, folder / name)
            return True
        except OSError:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            return False

    def discard_if_new(self) -> bool:
        """Close the store and, when this object created its directory, delete that
        directory again (the topmost one it created), so that a first write that failed
        leaves no empty store behind (issue 17: a failed ``provgraph record`` created
        the store directory). Call it only when nothing this object wrote is to be kept.

        Returns:
            Whether a directory was deleted.
        """
        created = self._created
        self.close()
        if created is None:
            return False
        import shutil

        shutil.rmtree(created, ignore_errors=True)
        return True

    def close(self) -> None:
        store = getattr(self, "_store", None)
        led = getattr(self, "_ledger", None)
        if led is not None:
            with contextlib.suppress(OSError):
                if led.blobs:
                    led.append("blobs")
        if store is not None and getattr(self, "_root", None) is not None:
            with contextlib.suppress(OSError):
                store.flush()
                if led is not None:
                    led.mark_durable()
        if led is not None:
            led.close()
            self._ledger = None
            blobs = getattr(self, "originals", None)
            if getattr(blobs, "on_new", None) is not None:
                blobs.on_new = None  # type: ignore[union-attr]
        self._store = None  # type: ignore[assignment]
        del store  # release the engine (and its write lock) before the note goes
        if getattr(self, "_root", None) is not None:
            clear_note(self._root)  # type: ignore[arg-type]
            self._root = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _disk_state(root: Path) -> str | None:
    """The digest :meth:`EmbeddedStore.state_token` gives for the store at ``root``, or
    ``None`` when its files cannot be listed."""
    h = hashlib.sha256()
    try:
        entries = []
        with os.scandir(root / "rdf") as it:
            for e in it:
                n = e.name
                if n.endswith((".sst", ".log")) or n.startswith("MANIFEST-") or n == "CURRENT":
                    st = e.stat()
                    entries.append(f"{n} {st.st_size} {st.st_mtime_ns}")
        for name in (LEDGER_NAME, HEAD_NAME):
            with contextlib.suppress(FileNotFoundError):
                st = (root / name).stat()
                entries.append(f"{name} {st.st_size} {st.st_mtime_ns}")
    except OSError:
        return None
    for line in sorted(entries):
        h.update(line.encode() + b"\n")
    return h.hexdigest()


def _open_read_only_at(root: Path) -> tuple[Any, str | None]:
    """:func:`_open_read_only` of ``root/rdf`` and the store's :func:`_disk_state` when
    no write landed while it opened (the same before and after), else ``None``; also
    ``None`` while a journaled write is unfinished."""
    before = _disk_state(root)
    store = _open_read_only(root / "rdf")
    after = _disk_state(root)
    stable = before is not None and before == after and not (root / JOURNAL_NAME).exists()
    return store, (after if stable else None)


def _open_read_only(rdf: Path) -> Any:
    """``Store.read_only`` beside a live writer (issue 13). pyoxigraph calls that undefined;
    what happens (measured) is that the writer's compaction can delete a table file
    between the reader reading the manifest and opening the file ("Corruption: ... No
    such file"): the open is then retried on the newer manifest, for at most
    :data:`_READ_OPEN_SECONDS`; any other failure is raised at once."""
    deadline = time.monotonic() + _READ_OPEN_SECONDS
    pause = 0.005
    while True:
        try:
            return ox.Store.read_only(str(rdf))
        except (OSError, RuntimeError) as exc:
            text = str(exc)
            raced = "No such file" in text and (rdf / "CURRENT").exists()
            if not raced or time.monotonic() >= deadline:
                if isinstance(exc, OSError):
                    raise
                raise OSError(text) from exc
            time.sleep(pause)
            pause = min(pause * 2, 0.1)


def _lost_race(exc: BaseException, root: Path | None) -> bool:
    """Whether ``exc`` is a read-only store's read losing a race with the writer's
    compaction: a table file named by the state it opened on is gone, the store is not."""
    text = str(exc)
    return (root is not None and "No such file" in text and ".sst" in text
            and (root / "rdf" / "CURRENT").exists())


_PREFETCH = 10_000
"""Quads a read-only :meth:`EmbeddedStore.quads` reads before giving out the first, so a
lost race there can be retried (see ``_read_retrying``)."""
_READ_OPEN_SECONDS = 10.0
"""Longest a read-only open keeps retrying after losing a race with the writer's compaction."""
_BULK_WINDOW_BYTES = 24 << 20
"""Bytes of N-Quads/N-Triples per pyoxigraph bulk load in :meth:`EmbeddedStore.bulk_load`."""
_BULK_WORKERS = 2
"""Windows loaded at the same time (peak memory grows with WINDOW_BYTES x WORKERS)."""
