"""Byte windows of large line-based RDF files, for the embedded store's bulk load.

Pure file handling, no engine import (:meth:`provgraph.store.EmbeddedStore.bulk_load`
hands each window to pyoxigraph): cut a file at line ends, read a window, stream a whole
file window by window through a rewrite that keeps its lines (the store's literal encoding,
issue 15), and make a window's parse-error line numbers count from the start of the file.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

from .errors import SerializationError

__all__ = ["FileWindow", "RewrittenWindows", "read_window", "may_have_blank_nodes",
           "line_windows", "line_spans", "with_file_lines"]


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


def read_window(raw: Any, start: int, end: int) -> bytes:
    """Bytes ``[start, end)`` of the open binary file ``raw``, read whole."""
    raw.seek(start)
    parts = []
    left = end - start
    while left > 0:
        block = raw.read(left)
        if not block:
            break
        parts.append(block)
        left -= len(block)
    return b"".join(parts)


class RewrittenWindows(io.RawIOBase):
    """A file read window by window (``(start, end)`` byte ranges, each ending at a line
    end), each window passed through ``rewrite`` before it is read: one stream for one
    parse, whose memory holds one window at a time. ``rewrite`` must keep the window's
    lines (so the parser's line numbers stay the file's)."""

    def __init__(self, raw: Any, windows: Iterator[tuple[int, int]],
                 rewrite: Callable[[bytes], bytes]) -> None:
        self._raw, self._windows, self._rewrite = raw, windows, rewrite
        self._buf = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not len(self._buf):
            window = next(self._windows, None)
            if window is None:
                return 0
            self._buf = memoryview(self._rewrite(read_window(self._raw, *window)))
        n = min(len(buffer), len(self._buf))
        memoryview(buffer)[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n


def line_spans(data: bytes, marks: tuple[bytes, ...]) -> list[tuple[int, int]]:
    r"""``(start, end)`` of each line of ``data`` (without its line feed) that contains one
    of ``marks``, in order.

    Example:
        >>> line_spans(b"a\nxb\nc\nbx\n", (b"b",))
        [(2, 4), (7, 9)]
    """
    spans: list[tuple[int, int]] = []
    find, rfind = data.find, data.rfind
    for mark in marks:
        if spans and mark in data:
            return sorted(set(spans) | set(line_spans(data, (mark,))))
        pos = 0
        while (at := find(mark, pos)) >= 0:
            end = find(b"\n", at)
            end = len(data) if end < 0 else end
            spans.append((rfind(b"\n", 0, at) + 1, end))
            pos = end + 1
    return spans


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
