"""The append-only, hash-chained ledger of every write to an embedded store (issue 20).

A store at ``PATH`` keeps ``PATH/ledger.jsonl``: one JSON object per line, one line per
committed write (a Recorder call or batch, each transaction of an event-log ``record``,
an import, a resolve or revalidate write-back, a review, a run's deletion, an undo), in
the order the writes happened. Each line carries the SHA-256 of the previous line's
exact bytes, as the leaves of a transparency log do (RFC 9162 §2.1 chains by Merkle
tree; this chain is linear), so changing, deleting, inserting or reordering one line
breaks the chain at that line. A line (schema: ``schemas/ledger-line-v1.schema.json``)::

    {"v":1,"n":7,"prev":"<64 hex>","time":"2026-01-05T10:00:00.123456Z","op":"add",
     "removed":["<s> <p> <o> <g>", ...],"added":[...],"blobs":["<sha-256 hex>", ...],
     "note":"record events.jsonl"}

``n`` counts lines from 1; ``prev`` of line 1 is 64 zeros; ``time`` is UTC; ``op`` is the
store operation (:data:`OPS`); ``removed`` and ``added`` are the statements the write
asked to remove, then add, as N-Quads statements without the final `` .`` (literals in
the form they were given, not the engine's); ``blobs`` are the retained originals
written since the previous line (:mod:`provgraph.originals`); empty fields are left out.
Replaying the lines in order (remove, then add) gives the store's statements:
that is what :func:`provgraph.verify.verify_store` checks.

How the ledger and the store cannot diverge after a crash (write-ahead). The store
appends a write's line, and ``fsync``-s it, *before* the engine commits the write. So a
committed write always has its line. A line whose write did not commit (the process died
between the two) is found when a writer next opens the store: every line after the
durable head (``PATH/ledger.head``: the number and hash of the last line whose write is
known to be on disk, updated after each engine flush, which syncs the engine's files) is
checked against the store, statement by statement, and the difference between what those
lines say and what the store holds is appended as one ``"op":"recover"`` line
(:meth:`LedgerWriter.pending`; :meth:`provgraph.store.EmbeddedStore` does it). Nothing is
ever rewritten, so a checkpoint signed over a line stays valid. The one truncation is of a
torn last line (no newline: the process died while appending it; its write never started).

This module owns the line format, hashing, appending and reading; it imports no engine.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ._undo_journal import fsync_directory

__all__ = ["LEDGER_NAME", "HEAD_NAME", "GENESIS", "OPS", "SYNC_ENV", "LedgerLine",
           "LedgerWriter", "ChainProblem", "line_hash", "read_lines", "read_lines_after", "check_chain",
           "read_head", "predicted", "LedgerMark", "mark_before_last", "lines_since"]

LEDGER_NAME = "ledger.jsonl"
"""The ledger's file name in a store directory."""
HEAD_NAME = "ledger.head"
"""The durable head's file name in a store directory (``{"n": ..., "hash": ...}``)."""
GENESIS = "0" * 64
"""``prev`` of the first line."""
OPS = ("add", "remove", "replace", "load", "bulk", "update", "remove-graph", "undo",
       "recover", "adopt", "blobs")
"""Store operations a line records: ``add`` (a transaction), ``remove``, ``replace``
(remove and add in one transaction), ``load`` (a parsed document), ``bulk`` (part of a
streamed load, no transaction), ``update`` (SPARQL 1.1 Update, as its effect),
``remove-graph``, ``undo`` (a journaled write undone), ``recover`` (what a crash left,
found on the next open, or a write the engine refused after its line), ``adopt`` (the
statements a store held when its ledger began), ``blobs`` (retained originals written
with no statement after them)."""


def line_hash(raw: bytes) -> str:
    """SHA-256 (hex) of one ledger line's bytes, without its newline (FIPS 180-4)."""
    return hashlib.sha256(raw).hexdigest()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, kw_only=True)
class LedgerLine:
    """One line of the ledger, as read.

    Attributes:
        n: its number (1 for the first line).
        prev: the SHA-256 (hex) it records for the previous line.
        hash: the SHA-256 (hex) of its own bytes.
        time: when it was written (ISO 8601 UTC text).
        op: one of :data:`OPS`.
        removed, added: N-Quads statements without the final `` .``.
        blobs: SHA-256 digests (hex) of retained originals.
        note: what was being written, when the store knew (a journaled write's name).
    """

    n: int
    prev: str
    hash: str
    time: str
    op: str
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    blobs: tuple[str, ...] = ()
    note: str | None = None


def _encode(n: int, prev: str, op: str, removed: Sequence[str], added: Sequence[str],
            blobs: Sequence[str], note: str | None) -> bytes:
    obj: dict[str, Any] = {"v": 1, "n": n, "prev": prev, "time": _now(), "op": op}
    if note:
        obj["note"] = note
    if removed:
        obj["removed"] = list(removed)
    if added:
        obj["added"] = list(added)
    if blobs:
        obj["blobs"] = list(blobs)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _decode(raw: bytes, h: str) -> LedgerLine:
    """Parse one line. Raises ValueError (with the reason) when it is not a ledger line."""
    from .resources import schema_validator

    try:
        obj = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    # The schema checks the line's shape; checking each of a line's thousands of statements
    # through it cost 9 ms a line (a third of verify), so those arrays are checked here for
    # being strings and given to the schema with their first statement only.
    shape = obj
    if isinstance(obj, dict):
        for key in ("removed", "added"):
            part = obj.get(key)
            if isinstance(part, list) and len(part) > 1:
                if not all(type(x) is str for x in part):
                    raise ValueError(f"{key}: a statement is not a string")
                shape = {**shape, key: part[:1]}
    errors = sorted(schema_validator("ledger-line-v1.schema.json").iter_errors(shape),
                    key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "line"
        raise ValueError(f"{where}: {errors[0].message}")
    return _line(obj, h)


def _line(obj: Any, h: str) -> LedgerLine:
    """The :class:`LedgerLine` of a parsed line object and its hash (raises KeyError or
    TypeError when a field is missing or not of a kind the object can hold)."""
    return LedgerLine(n=obj["n"], prev=obj["prev"], hash=h, time=obj["time"], op=obj["op"],
                      removed=tuple(obj.get("removed", ())), added=tuple(obj.get("added", ())),
                      blobs=tuple(obj.get("blobs", ())), note=obj.get("note"))


def _decode_plain(raw: bytes, h: str) -> LedgerLine:
    """Parse one line checking only what a reader of its statements relies on (the types
    of ``n``, ``prev``, ``time``, ``op`` and the statement lists), without the schema
    (:func:`_decode`: the full check, which :func:`check_chain` and ``verify`` make);
    for :func:`lines_since`, whose reader recomputes from the store when in doubt.
    Raises ValueError when it is not such a line."""
    try:
        obj = json.loads(raw)
        line = _line(obj, h)
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"not a ledger line ({exc})") from None
    if not (type(line.n) is int and isinstance(line.prev, str) and isinstance(line.time, str)
            and line.op in OPS and all(type(x) is str for x in line.removed + line.added)):
        raise ValueError("not a ledger line (a field of the wrong type)")
    return line


def _raw_lines(f: IO[bytes]) -> Iterator[tuple[int, bytes, bool]]:
    """``(byte offset, line bytes without newline, complete)`` for each line of ``f``."""
    at = 0
    for raw in f:
        complete = raw.endswith(b"\n")
        yield at, raw[:-1] if complete else raw, complete
        at += len(raw)


def read_lines(path: str | os.PathLike[str]) -> Iterator[LedgerLine]:
    """Every line of the ledger at ``path``, in order, parsed; a torn last line (no
    newline) is left out. The chain is not checked here (:func:`check_chain` does).

    Raises:
        ValueError: a line is not a ledger line (the message names its number).
        OSError: the file cannot be read.
    """
    with open(path, "rb") as f:
        for i, (_, raw, complete) in enumerate(_raw_lines(f), 1):
            if not complete:
                return
            try:
                yield _decode(raw, line_hash(raw))
            except ValueError as exc:
                raise ValueError(f"{path}:{i}: {exc}") from None


def read_lines_after(path: str | os.PathLike[str], start: int) -> tuple[list[LedgerLine], list[int]]:
    """The lines after the first ``start`` of the ledger at ``path``, parsed as written,
    without checking the chain (what a broken chain's tail says), and the positions (from
    1) of those that are not ledger lines; a torn last line (no newline) is left out.

    Raises:
        OSError: the file cannot be read.
    """
    lines: list[LedgerLine] = []
    bad: list[int] = []
    with open(path, "rb") as f:
        for i, (_, raw, complete) in enumerate(_raw_lines(f), 1):
            if not complete:
                break
            if i <= start:
                continue
            try:
                lines.append(_decode(raw, line_hash(raw)))
            except ValueError:
                bad.append(i)
    return lines, bad


@dataclass(frozen=True)
class LedgerMark:
    """A place in a ledger, to read on from later without reading what came before.

    Attributes:
        n: the number of the last line before the place (0: the start).
        hash: that line's SHA-256 (hex; :data:`GENESIS` at the start), which the next
            line records as its ``prev``.
        offset: the byte offset just past that line's newline (0 at the start).
    """

    n: int
    hash: str
    offset: int


def mark_before_last(path: str | os.PathLike[str]) -> LedgerMark | None:
    """The place before the last complete line of the ledger at ``path`` (the start when
    it has one line or none), read from the end of the file: the last line is the one
    whose write may not have committed yet when a reader looks (the store appends a
    line before its write commits, and one writer writes at a time), so a reader that
    marks where it read up to marks before it, and reads that line again next time.
    ``None`` when the file cannot be read or its last line is not a ledger line."""
    try:
        with open(path, "rb") as f:
            last_nl = _last_newline(f, f.seek(0, os.SEEK_END))
            if last_nl < 0:
                return LedgerMark(0, GENESIS, 0)  # no complete line
            start = _last_newline(f, last_nl) + 1
            f.seek(start)
            raw = f.read(last_nl - start)
        line = _decode_plain(raw, line_hash(raw))
        return LedgerMark(line.n - 1, line.prev, start)
    except (OSError, ValueError):
        return None


def _last_newline(f: IO[bytes], before: int) -> int:
    """The offset of the last newline among the first ``before`` bytes of ``f``, or -1;
    read back in blocks (a line may be hundreds of megabytes: a whole import)."""
    at = before
    while at > 0:
        step = min(1 << 16, at)
        at -= step
        f.seek(at)
        i = f.read(step).rfind(b"\n")
        if i >= 0:
            return at + i
    return -1


def lines_since(path: str | os.PathLike[str], mark: LedgerMark) -> list[LedgerLine] | None:
    """The complete lines after ``mark`` in the ledger at ``path``, each checked to
    continue the chain from the one before (numbered one more, its ``prev`` that line's
    hash). ``None`` when the ledger does not continue from ``mark`` (it was cut, edited or
    replaced since: a mark other than the start is taken before a line, see
    :func:`mark_before_last`, so a ledger with no line after it was cut), cannot be read,
    or holds a line that is not a ledger line."""
    out: list[LedgerLine] = []
    n, prev = mark.n, mark.hash
    try:
        with open(path, "rb") as f:
            if f.seek(0, os.SEEK_END) < mark.offset:
                return None  # cut
            f.seek(mark.offset)
            for raw in f:
                if not raw.endswith(b"\n"):
                    break  # a torn last line: its write never started
                raw = raw[:-1]
                line = _decode_plain(raw, line_hash(raw))
                if line.n != n + 1 or line.prev != prev:
                    return None
                out.append(line)
                n, prev = line.n, line.hash
    except (OSError, ValueError):
        return None
    if mark.n and not out:
        return None  # a mark is taken before a line that was there: the ledger was cut
    return out


@dataclass(frozen=True, kw_only=True)
class ChainProblem:
    """The first place where the ledger's chain breaks.

    Attributes:
        line: the number (from 1) of the first line that is not what the chain says.
        reason: what is wrong there, for a person (edited, deleted, inserted, reordered).
    """

    line: int
    reason: str
    """A sentence that names the line, e.g. ``line 5 was edited: ...``."""


def check_chain(path: str | os.PathLike[str]) -> tuple[list[LedgerLine], ChainProblem | None]:
    """Read the ledger at ``path`` and check its hash chain.

    Each line must parse (schema ``ledger-line-v1``), carry ``n`` equal to its position
    and ``prev`` equal to the SHA-256 of the previous line's bytes (:data:`GENESIS` for
    the first). A changed line breaks the next line's ``prev``; a deleted, inserted or
    moved line breaks the numbering. A torn last line (no newline) is not a problem: the
    next writer open removes it.

    Returns:
        ``(lines, problem)``: the lines up to the first problem (all of them when the
        chain holds) and the problem, or ``None``.

    Raises:
        OSError: the file cannot be read.
    """
    lines: list[LedgerLine] = []
    prev = GENESIS
    with open(path, "rb") as f:
        for i, (_, raw, complete) in enumerate(_raw_lines(f), 1):
            if not complete:
                break
            h = line_hash(raw)
            try:
                line = _decode(raw, h)
            except ValueError as exc:
                return lines, ChainProblem(line=i, reason=f"line {i} is not a ledger line "
                                           f"(edited or inserted): {exc}")
            if line.n != i:
                how = (f"a line before it was deleted, or it was moved up" if line.n > i else
                       "it was inserted, copied or moved down")
                return lines, ChainProblem(line=i, reason=f"line {i} is numbered {line.n}: {how}")
            if line.prev != prev:
                if i == 1:
                    return lines, ChainProblem(line=1, reason="line 1 does not start the chain "
                                               "(its prev is not 64 zeros): lines before it were "
                                               "deleted, or it was edited")
                return lines[:-1], ChainProblem(
                    line=i - 1, reason=f"line {i - 1} was edited: line {i} records another "
                    "SHA-256 for it (its prev)")
            lines.append(line)
            prev = h
    return lines, None


SYNC_ENV = "PROVGRAPH_LEDGER_SYNC"
"""``each`` (the default): every ledger line is on disk (``fdatasync``) before its write
commits, so neither a killed process nor a power loss can leave a committed write without
its line. ``flush``: a line reaches the operating system before its write commits (a
killed process still loses nothing: the kernel keeps what was written) and the disk at
each engine flush (every second or 20,000 statements); a power loss may then leave
statements the ledger lacks, which ``provgraph verify`` reports. The engine itself does
not sync its write-ahead log per commit either. Cost of ``each``: bench/bench_ledger.py."""


def _datasync(fd: int) -> None:
    getattr(os, "fdatasync", os.fsync)(fd)


def read_head(root: Path) -> tuple[int, str]:
    """The durable head a store recorded (``(0, GENESIS)`` when none or unreadable:
    then every line is checked on the next open, which is slower, never wrong)."""
    try:
        obj = json.loads((root / HEAD_NAME).read_bytes())
        return int(obj["n"]), str(obj["hash"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0, GENESIS


@dataclass
class LedgerWriter:
    """The appending end of a store's ledger (one per writer open; the store's write lock
    makes it the only one).

    Opening reads the last line (the head), removes a torn last line and notes it in
    :attr:`torn`. :meth:`pending` gives the lines after the durable head, which the store
    checks against itself (the module docstring).

    Args:
        root: the store directory.

    Raises:
        OSError: the ledger cannot be read or opened for appending.
        ValueError: its last line is not a ledger line.
    """

    root: Path
    n: int = 0
    head: str = GENESIS
    torn: int = 0
    """Bytes of a torn last line removed at open (0: none)."""
    suspect: bool = False
    """The head file disagrees with the ledger (:meth:`pending` returned ``None``): it is
    then never updated, so the evidence stays for ``provgraph verify``."""
    blobs: list[str] = field(default_factory=list)
    """Digests of retained originals written since the last line (go into the next one)."""
    sync_each: bool = field(default_factory=lambda: os.environ.get(SYNC_ENV, "each") != "flush")
    """Wait for the disk after every line (``$PROVGRAPH_LEDGER_SYNC`` unset or ``each``), or
    only at each engine flush (``flush``): :data:`SYNC_ENV`."""
    _file: IO[bytes] | None = None
    _failed: OSError | None = None

    def __post_init__(self) -> None:
        path = self.root / LEDGER_NAME
        new = not path.exists()
        self._file = open(path, "a+b")  # noqa: SIM115 - closed by close()
        if new:
            fsync_directory(self.root)
        self._read_tail()

    @property
    def path(self) -> Path:
        """The ledger file."""
        return self.root / LEDGER_NAME

    def _read_tail(self) -> None:
        f = self._file
        assert f is not None
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        block = 1 << 16
        start = size
        buf = b""
        while start > 0:
            start = max(0, size - block)
            f.seek(start)
            buf = f.read(size - start)
            if buf.count(b"\n") >= 2 or start == 0:
                break
            block *= 4  # a line holds a whole transaction: megabytes
        complete_end = buf.rfind(b"\n") + 1  # bytes of buf up to the last newline
        if complete_end < len(buf):  # a torn last line: its write never started
            self.torn = len(buf) - complete_end
            f.truncate(start + complete_end)
            f.flush()
            os.fsync(f.fileno())
        body = buf[:complete_end]
        if not body:
            return
        last = body[:-1].rsplit(b"\n", 1)[-1]
        line = _decode(last, line_hash(last))
        self.n, self.head = line.n, line.hash
        f.seek(0, os.SEEK_END)

    def append(self, op: str, *, removed: Sequence[str] = (), added: Sequence[str] = (),
               note: str | None = None, sync: bool = True) -> int:
        """Append one line (with the pending :attr:`blobs`) and wait until it is on disk.

        Call it *before* the write it records commits. Returns its number.

        Raises:
            OSError: it cannot be written (the write must not go ahead then). A line that
                failed may be in the file in whole or in part, so after one failure every
                later call raises too: the next writer open (which reads the file's last
                line and reconciles it with the store) is the only safe continuation.
        """
        assert self._file is not None, "ledger closed"
        if self._failed is not None:
            raise OSError(f"the ledger {self.path} could not write line {self.n + 1} "
                          f"({self._failed}); this process writes nothing more to the store: "
                          "close it and open it again, which reconciles that line") \
                from self._failed
        raw = _encode(self.n + 1, self.head, op, removed, added, self.blobs, note)
        try:
            self._file.write(raw + b"\n")
            self._file.flush()
            if sync and self.sync_each:
                _datasync(self._file.fileno())
        except OSError as err:
            self._failed = err
            raise
        self.n += 1
        self.head = line_hash(raw)
        self.blobs.clear()  # in place: the blob store's on_new appends to this list
        return self.n

    def forget_blob(self, digest: str) -> bool:
        """Drop ``digest`` from the pending :attr:`blobs` (a failed write's original being
        discarded: :meth:`provgraph.originals.BlobStore.discard`); ``False`` when it is not
        pending (a line lists it already, or it was never reported), so it must stay."""
        if digest in self.blobs:
            self.blobs.remove(digest)
            return True
        return False

    def mark_durable(self) -> None:
        """Record the head as durable (call after the engine's flush synced its files);
        nothing when the head file is :attr:`suspect`."""
        if self.suspect:
            return
        if self._file is not None:
            _datasync(self._file.fileno())  # never name a line that is not on disk
        tmp = self.root / (HEAD_NAME + ".tmp")
        data = json.dumps({"n": self.n, "hash": self.head}).encode("utf-8")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.root / HEAD_NAME)

    def pending(self) -> list[LedgerLine] | None:
        """The lines after the durable head (:func:`read_head`), whose writes may not have
        committed; ``None`` when the head names a line the ledger does not have, or has
        with another hash. No crash does that (lines are on disk before the head names
        them), so the ledger was cut or rewritten: nothing is reconciled then, and
        ``provgraph verify`` reports it."""
        n, h = read_head(self.root)
        if n > self.n:
            self.suspect = True
            return None
        out: list[LedgerLine] = []
        with open(self.path, "rb") as f:
            for i, (_, raw, complete) in enumerate(_raw_lines(f), 1):
                if not complete or i < n:
                    continue  # lines before the head are not parsed (verify checks them)
                if i == n and line_hash(raw) != h:
                    self.suspect = True
                    return None
                if i > n:
                    out.append(_decode(raw, line_hash(raw)))
        return out

    def close(self) -> None:
        """Close the file (the ledger stays)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def predicted(lines: Iterable[LedgerLine]) -> dict[str, bool]:
    """For each statement the lines touch: whether it is in the store after them
    (the last line touching it decides: removed, then added within a line)."""
    out: dict[str, bool] = {}
    for line in lines:
        for q in line.removed:
            out[q] = False
        for q in line.added:
            out[q] = True
    return out
