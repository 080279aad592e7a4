"""Who writes the embedded store: the bounded wait for its write lock and the holder's note.

RocksDB lets one process at a time open a store for writing (its ``rdf/LOCK`` file);
readers open it read-only and never take that lock (issue 13). A writer that finds the
lock taken waits, retrying with a growing pause (10 ms up to 250 ms), for at most the
lock timeout: the ``lock_timeout`` argument, else ``$PROVGRAPH_LOCK_TIMEOUT`` (seconds),
else :data:`DEFAULT_LOCK_TIMEOUT`. It then raises
:class:`~provgraph.errors.StoreBusyError`, naming the holder from the note
``PATH/writer.json`` that every writer leaves while it holds the lock (pid, host,
command, since) and removes when it closes. Nothing here imports the engine:
:mod:`provgraph.embedded` passes the opener in.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .errors import StoreBusyError, StoreError

T = TypeVar("T")

ENV_LOCK_TIMEOUT = "PROVGRAPH_LOCK_TIMEOUT"
"""Environment variable: seconds a writer waits for the write lock."""
DEFAULT_LOCK_TIMEOUT = 30.0
"""Seconds a writer waits for the write lock when nothing else is said."""
NOTE = "writer.json"
"""Name of the holder's note in the store directory."""


def lock_timeout(value: float | None = None) -> float:
    """The write-lock wait in seconds: ``value``, else ``$PROVGRAPH_LOCK_TIMEOUT``, else 30.

    Raises:
        StoreError: the environment variable is not a number of seconds >= 0.
    """
    if value is not None:
        if value < 0:
            raise StoreError(f"lock timeout {value!r}: give a number of seconds >= 0")
        return float(value)
    env = os.environ.get(ENV_LOCK_TIMEOUT)
    if not env:
        return DEFAULT_LOCK_TIMEOUT
    try:
        seconds = float(env)
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        raise StoreError(f"${ENV_LOCK_TIMEOUT}={env!r}: give a number of seconds >= 0")
    return seconds


def is_lock_busy(exc: OSError) -> bool:
    """Whether ``exc`` (from opening RocksDB) means another writer holds the lock."""
    text = str(exc)
    return "LOCK" in text and ("temporarily unavailable" in text or "lock hold" in text
                               or "No locks available" in text)


def open_exclusive(root: Path, opener: Callable[[], T], *, timeout: float) -> T:
    """Open the store for writing with ``opener``, waiting at most ``timeout`` seconds
    while another process holds the write lock; leave the holder's note on success.

    Args:
        root: the store directory (where the note goes).
        opener: opens the engine for writing; raises ``OSError`` when the lock is taken.
        timeout: seconds to wait (0: try once).

    Returns:
        What ``opener`` returned.

    Raises:
        StoreBusyError: the lock stayed taken for ``timeout`` seconds.
        OSError: ``opener`` failed for another reason (the caller maps it).
    """
    start = time.monotonic()
    pause = 0.01
    while True:
        try:
            opened = opener()
        except OSError as exc:
            if not is_lock_busy(exc):
                raise
            waited = time.monotonic() - start
            if waited >= timeout:
                holder = read_note(root)
                raise StoreBusyError(str(root), round(timeout, 3), holder,
                                     describe_holder(holder)) from exc
            time.sleep(min(pause, max(0.0, timeout - waited)))
            pause = min(pause * 2, 0.25)
            continue
        write_note(root)
        return opened


def write_note(root: Path) -> None:
    """Leave ``root/writer.json`` naming this process (best effort: never fails the open).

    Called while holding the write lock, so the temporary notes ``.writer.json.PID`` that
    writers killed part-way through this function left are removed too (issue 20)."""
    import socket  # here: only writers need it (start-up of readers, issue 16)

    note = {"pid": os.getpid(), "host": socket.gethostname(),
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])[:300],
            "since": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    tmp = root / f".{NOTE}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps(note), encoding="utf-8")
        os.replace(tmp, root / NOTE)
        for stale in root.glob(f".{NOTE}.*"):
            stale.unlink(missing_ok=True)
    except OSError:
        pass


def clear_note(root: Path) -> None:
    """Remove the holder's note if this process wrote it."""
    if read_note(root).get("pid") == os.getpid():
        try:
            (root / NOTE).unlink()
        except OSError:
            pass


def read_note(root: Path) -> dict[str, object]:
    """The holder's note, or ``{}`` when there is none or it does not parse."""
    try:
        note = json.loads((root / NOTE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return note if isinstance(note, dict) else {}


def describe_holder(note: dict[str, object]) -> str:
    """Words naming the lock holder for an error message, such as
    ``"pid 4242 (provgraph record a.jsonl) on host h since 2026-01-05T10:00:00+00:00"``."""
    pid = note.get("pid")
    if not isinstance(pid, int):
        return "another process (it left no note in writer.json)"
    words = f"pid {pid}"
    if note.get("command"):
        words += f" ({note['command']})"
    host = note.get("host")
    if host:
        words += f" on {host}"
    if note.get("since"):
        words += f" since {note['since']}"
    import socket

    if host == socket.gethostname() and not _alive(pid):
        words += (" - that process is no longer running, so its note is stale and another "
                  "process holds the lock")
    return words


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
