"""Byte windows of large line-based RDF files, for the embedded store's bulk load.

Pure file handling, no engine import (:meth:`provgraph.store.EmbeddedStore.bulk_load`
hands each window to pyoxigraph): cut a file at line ends, read a window without
copying it, and make a window's parse-error line numbers count from the start of the file.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from typing import Any

from .errors import SerializationError

__all__ = ["FileWindow", "may_have_blank_nodes", "line_windows", "with_file_lines"]

class FileWindow(io.RawIOBase):
    """Bytes ``[start, end)`` of an open binary file, read without copying the window."""

    def __init__(self, raw: Any, start: int, end: int) -> None:
        self._raw, self._pos, self._end = raw, start, end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self._end - self._pos)
        if n <= 0:
            return 0
        self._raw.seek(self._pos)
        got = self._raw.readinto(memoryview(buffer)[:n]) or 0
        self._pos += got
        return got


def may_have_blank_nodes(path: str | os.PathLike[str]) -> bool:
    """Whether ``_:`` occurs anywhere in the file (a blank node label, or the same two
    characters inside a literal or IRI: then the answer is a harmless yes)."""
    with open(path, "rb") as fh:
        tail = b""
        while block := fh.read(4 << 20):
            if b"_:" in tail + block[:1] or b"_:" in block:
                return True
            tail = block[-1:]
    return False


def line_windows(probe: Any, size: int, window: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` byte ranges of about ``window`` bytes, each ending at a line end."""
    start = 0
    while start < size:
        probe.seek(min(size, start + window))
        probe.readline()
        end = probe.tell()
        yield start, end
        start = end


def with_file_lines(exc: BaseException, what: str, path: str | os.PathLike[str],
                     start: int) -> BaseException:
    """``exc`` from the window starting at byte ``start``, its line numbers made file-wide."""
    cause = exc.__cause__
    if start == 0 or not isinstance(exc, SerializationError) or not isinstance(cause, SyntaxError):
        return exc
    err = SerializationError(f"{what}: the document does not parse: "
                             f"{_shift_lines(str(cause), _count_lines(path, start))}")
    err.__cause__ = cause
    return err


def _count_lines(path: str | os.PathLike[str], upto: int) -> int:
    """Newlines in the first ``upto`` bytes of ``path`` (used on the error path only)."""
    lines = 0
    with open(path, "rb") as fh:
        while upto > 0:
            block = fh.read(min(upto, 1 << 20))
            if not block:
                break
            lines += block.count(b"\n")
            upto -= len(block)
    return lines


def _shift_lines(message: str, offset: int) -> str:
    """``message`` with each ``line N`` turned into ``line N+offset``."""
    return re.sub(r"\bline (\d+)", lambda m: f"line {int(m.group(1)) + offset}", message)
