"""Offset units and the explicit conversions between them.

Every offset provgraph stores carries its unit (DESIGN.md, "Citation outcomes"):

* ``utf8_byte`` - bytes of the UTF-8 encoding. For a source read from bytes
  (:meth:`SourceText.from_bytes`) these are offsets into the bytes *as given*,
  byte-order mark (BOM) included: the first character after a BOM is at byte 3.
* ``codepoint`` - Unicode code points (Python ``str`` indices) of the decoded
  text. The BOM is not part of the decoded text: the first character after a
  BOM is code point 0.
* ``utf16_unit`` - UTF-16 code units of the decoded text (what JavaScript,
  Java and C# string indices count): an astral character such as an emoji is
  two units, a surrogate pair.
* ``page`` - page *numbers*, counting from 1, of a paged source whose pages are
  separated by form feeds (U+000C, as ``pdftotext`` writes them); ranges are
  end-exclusive, so pages ``[1, 2)`` are the first page (the convention of the
  Anthropic Messages API ``page_location`` citation).
* ``block`` - block *indices*, counting from 0, of a source whose blocks are
  separated by blank lines; end-exclusive (the convention of ``content_block_location``).

Conversions never round: an offset inside a multi-byte UTF-8 sequence (or
inside the BOM), inside a surrogate pair, negative, past the end, a reversed
range or an empty one raises :class:`~provgraph.errors.OffsetError` naming the
position (and, inside a character, the two valid neighbours). Ranges are
end-exclusive unless ``end_inclusive`` says the end names the last unit of the
range (Amazon Bedrock spans), in which case the exclusive end is ``end + 1`` in
the same unit; a range is checked as given, before that conversion.

:class:`SourceText` decodes a source once and answers every conversion in
constant time for ASCII text and in ``O(log n)`` otherwise, so one object can
serve many citation checks.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_left
from itertools import accumulate
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar, cast

from .errors import OffsetError, ResolutionError, SourceDecodeError

_T = TypeVar("_T")

__all__ = ["SourceText", "TEXT_UNITS", "LOCATOR_UNITS", "ALL_UNITS", "BOM", "convert",
           "check_unit", "cited_span"]

TEXT_UNITS = ("utf8_byte", "codepoint", "utf16_unit")
"""Units that address positions in text."""
LOCATOR_UNITS = ("page", "block")
"""Units that address whole pages or blocks of a paged or block source."""
ALL_UNITS = TEXT_UNITS + LOCATOR_UNITS
BOM = b"\xef\xbb\xbf"
"""The UTF-8 encoding of U+FEFF, the byte-order mark."""

_EOL = r"(?:\r\n|\r(?!\n)|\n)"
_BLOCK_SEPARATOR = re.compile(_EOL + r"(?:[ \t\f\v]*" + _EOL + ")+")


def check_unit(unit: str) -> str:
    """Return ``unit`` if it is one of :data:`ALL_UNITS`.

    Raises:
        OffsetError: (``kind="unknown_unit"``) any other value.
    """
    if unit not in ALL_UNITS:
        raise OffsetError(f"unknown offset unit {unit!r}; use one of {', '.join(ALL_UNITS)}",
                          offset=None, unit=str(unit), kind="unknown_unit")
    return unit


def _char_label(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"{ch!r} (U+{ord(ch):04X}{' ' + name if name else ''})"


class SourceText:
    """A source decoded once, with every offset conversion it supports.

    Build it with :meth:`from_bytes` (source files and snapshots: UTF-8 with an
    optional BOM) or :meth:`from_text` (text that is already a ``str``, such as
    an extracted text or a chunk; its bytes are its UTF-8 encoding, no BOM).

    Attributes:
        data: the bytes (``utf8_byte`` offsets index these).
        text: the decoded text without the BOM (``codepoint`` offsets index this).
        bom: 3 when ``data`` starts with a UTF-8 BOM, else 0.

    Example:
        >>> src = SourceText.from_bytes("\\ufeffcaf\\u00e9 \\N{WAVING HAND SIGN}!".encode())
        >>> src.bom, len(src.text)
        (3, 7)
        >>> src.offset_of(5, "utf8_byte"), src.offset_of(6, "utf16_unit")
        (9, 7)
        >>> src.codepoint_of(13, "utf8_byte")
        6
        >>> src.codepoint_of(7, "utf8_byte")
        Traceback (most recent call last):
        ...
        provgraph.errors.OffsetError: utf8_byte offset 7 falls inside the 2-byte UTF-8 sequence of 'é' (U+00E9 LATIN SMALL LETTER E WITH ACUTE) at bytes [6, 8); use 6 or 8
    """

    __slots__ = ("data", "text", "bom", "_ascii", "_cp2b", "_cp2u", "_n_utf16", "_pages",
                 "_blocks", "_cache", "_sha256", "__weakref__")

    def __init__(self, data: bytes, text: str, bom: int = 0) -> None:
        self.data = data
        self.text = text
        self.bom = bom
        self._ascii = text.isascii()
        self._cp2b: array[int] | None = None
        self._cp2u: array[int] | None = None
        self._n_utf16: int | None = len(text) if self._ascii else None
        self._pages: tuple[tuple[int, int], ...] | None = None
        self._blocks: tuple[tuple[int, int], ...] | None = None
        self._cache: dict[Any, Any] = {}
        self._sha256: str | None = None

    # ------------------------------------------------------------ construction
    @classmethod
    def from_bytes(cls, data: bytes, *, name: str = "source") -> "SourceText":
        """Decode UTF-8 bytes, with or without a leading BOM.

        Args:
            data: the source bytes exactly as retained.
            name: how error messages name the source (a path, an IRI).

        Raises:
            SourceDecodeError: the bytes are not UTF-8; the message gives the
                byte offset and value of the first undecodable byte.
        """
        data = bytes(data)
        bom = 3 if data.startswith(BOM) else 0
        try:
            text = data[bom:].decode("utf-8")
        except UnicodeDecodeError as exc:
            pos = exc.start + bom
            raise SourceDecodeError(
                f"{name} is not UTF-8 text: byte {pos} (0x{data[pos]:02x}) does not decode "
                f"({exc.reason}); convert the file to UTF-8, or cite its extracted text",
                position=pos) from None
        return cls(data, text, bom)

    @classmethod
    def from_text(cls, text: str, *,
                  blocks: Sequence[tuple[int, int]] | None = None) -> "SourceText":
        """Wrap a ``str``; its ``utf8_byte`` offsets index ``text.encode("utf-8")``.

        Args:
            text: the text.
            blocks: the code point ranges of its blocks when the source defines
                them (a block document, :mod:`provgraph.media`); ``None``: blocks
                are separated by blank lines (:meth:`block_spans`).

        Raises:
            ResolutionError: ``text`` holds a lone surrogate (it has no UTF-8 encoding).
        """
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ResolutionError(f"text holds a lone surrogate at code point {exc.start}; it "
                                  "is not valid Unicode text") from None
        src = cls(data, text, 0)
        if blocks is not None:
            src._blocks = tuple((int(s), int(e)) for s, e in blocks)
        return src

    # ------------------------------------------------------------ sizes
    @property
    def n_codepoints(self) -> int:
        """Length of the decoded text in code points."""
        return len(self.text)

    @property
    def n_bytes(self) -> int:
        """Length of :attr:`data` in bytes (BOM included)."""
        return len(self.data)

    @property
    def n_utf16(self) -> int:
        """Length of the decoded text in UTF-16 code units."""
        if self._n_utf16 is None:
            self._n_utf16 = len(self.text.encode("utf-16-le")) // 2
        return self._n_utf16

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of :attr:`data` (computed once)."""
        if self._sha256 is None:
            import hashlib

            self._sha256 = hashlib.sha256(self.data).hexdigest()
        return self._sha256

    def cached(self, key: Hashable, factory: Callable[[], _T]) -> _T:
        """``factory()``, computed once per ``key`` for this source (used for the
        normalized forms of the text, one per policy)."""
        try:
            # each key is used with one factory, so its value has that factory's type
            return cast(_T, self._cache[key])
        except KeyError:
            value = self._cache[key] = factory()
            return value

    def size(self, unit: str) -> int:
        """Length of the source in ``unit`` (pages or blocks for locator units)."""
        if unit == "codepoint":
            return len(self.text)
        if unit == "utf8_byte":
            return len(self.data)
        if unit == "utf16_unit":
            return self.n_utf16
        if unit == "page":
            return len(self.page_spans())
        if unit == "block":
            return len(self.block_spans())
        check_unit(unit)
        raise AssertionError(unit)  # pragma: no cover

    # ------------------------------------------------------------ maps (built on first use)
    def _bytes_map(self) -> array[int]:
        if self._cp2b is None:
            self._cp2b = array("q", accumulate(
                (1 if c < "\x80" else 2 if c < "\u0800" else 3 if c < "\U00010000" else 4
                 for c in self.text), initial=self.bom))
        return self._cp2b

    def _utf16_map(self) -> array[int] | None:
        if self._cp2u is None:
            if self.n_utf16 == len(self.text):
                return None
            self._cp2u = array("q", accumulate(
                (1 if c < "\U00010000" else 2 for c in self.text), initial=0))
        return self._cp2u

    # ------------------------------------------------------------ conversions
    def codepoint_of(self, offset: int, unit: str) -> int:
        """The code point offset of a position given in a text unit.

        Args:
            offset: a position (between characters) in ``unit``.
            unit: ``utf8_byte``, ``codepoint`` or ``utf16_unit``.

        Returns:
            The code point offset (0 .. ``len(text)``). With a BOM, byte offset 0
            (before the BOM) and byte offset 3 both give code point 0.

        Raises:
            OffsetError: negative, past the end, inside a multi-byte UTF-8
                sequence or the BOM, inside a surrogate pair, or an unknown unit.
        """
        if type(offset) is not int:
            raise OffsetError(f"{unit} offset {offset!r} is not an integer", offset=None,
                              unit=unit, kind="not_integer")
        if offset < 0:
            raise OffsetError(f"{unit} offset {offset} is negative", offset=offset, unit=unit,
                              kind="negative")
        if unit == "codepoint":
            if offset > len(self.text):
                raise self._past_end(offset, unit, len(self.text))
            return offset
        if unit == "utf8_byte":
            if offset > len(self.data):
                raise self._past_end(offset, unit, len(self.data))
            if offset < self.bom:
                if offset == 0:
                    return 0
                raise OffsetError(f"utf8_byte offset {offset} falls inside the 3-byte "
                                  "byte-order mark at bytes [0, 3); use 0 or 3", offset=offset,
                                  unit=unit, kind="inside_sequence")
            if self._ascii:
                return offset - self.bom
            cp2b = self._bytes_map()
            i = bisect_left(cp2b, offset)
            if cp2b[i] == offset:
                return i
            lo, hi = cp2b[i - 1], cp2b[i]
            raise OffsetError(
                f"utf8_byte offset {offset} falls inside the {hi - lo}-byte UTF-8 sequence of "
                f"{_char_label(self.text[i - 1])} at bytes [{lo}, {hi}); use {lo} or {hi}",
                offset=offset, unit=unit, kind="inside_sequence")
        if unit == "utf16_unit":
            cp2u = self._utf16_map()
            if cp2u is None:
                if offset > len(self.text):
                    raise self._past_end(offset, unit, len(self.text))
                return offset
            if offset > cp2u[-1]:
                raise self._past_end(offset, unit, cp2u[-1])
            i = bisect_left(cp2u, offset)
            if cp2u[i] == offset:
                return i
            lo = cp2u[i - 1]
            raise OffsetError(
                f"utf16_unit offset {offset} falls between the two UTF-16 code units (a "
                f"surrogate pair) of {_char_label(self.text[i - 1])} at units [{lo}, {lo + 2}); "
                f"use {lo} or {lo + 2}", offset=offset, unit=unit, kind="inside_surrogate_pair")
        check_unit(unit)
        raise OffsetError(f"{unit} is a locator unit, not a text position; use span()",
                          offset=offset, unit=unit, kind="unknown_unit")

    def offset_of(self, cp: int, unit: str) -> int:
        """The offset in ``unit`` of code point offset ``cp`` (0 .. ``len(text)``).

        ``utf8_byte`` offsets count the BOM: code point 0 of a source with a BOM is byte 3.

        Raises:
            OffsetError: ``cp`` outside the text, or not a text unit.
        """
        if not 0 <= cp <= len(self.text):
            raise OffsetError(f"code point offset {cp} is outside the text (0..{len(self.text)})",
                              offset=cp, unit="codepoint",
                              kind="negative" if cp < 0 else "past_end")
        if unit == "codepoint":
            return cp
        if unit == "utf8_byte":
            return cp + self.bom if self._ascii else self._bytes_map()[cp]
        if unit == "utf16_unit":
            cp2u = self._utf16_map()
            return cp if cp2u is None else cp2u[cp]
        check_unit(unit)
        raise OffsetError(f"{unit} is a locator unit, not a text position", offset=cp, unit=unit,
                          kind="unknown_unit")

    def byte_span(self, cp_start: int, cp_end: int) -> tuple[int, int]:
        """``utf8_byte`` offsets of a code point range (end-exclusive)."""
        if self._ascii:
            return cp_start + self.bom, cp_end + self.bom
        m = self._bytes_map()
        return m[cp_start], m[cp_end]

    def convert(self, offset: int, from_unit: str, to_unit: str) -> int:
        """Convert a text position between units.

        >>> SourceText.from_text("a\\U0001F600b").convert(3, "utf16_unit", "utf8_byte")
        5

        Raises:
            OffsetError: as :meth:`codepoint_of`.
        """
        return self.offset_of(self.codepoint_of(offset, from_unit), to_unit)

    def span(self, start: int, end: int, unit: str, end_inclusive: bool = False) -> tuple[int, int]:
        """The end-exclusive code point range ``[cp_start, cp_end)`` that a range names.

        Args:
            start, end: the range in ``unit``; for ``page`` these are page numbers
                (from 1), for ``block`` block indices (from 0).
            unit: any of :data:`ALL_UNITS`.
            end_inclusive: ``end`` names the last unit of the range, so the
                exclusive end is ``end + 1``.

        The range is checked as given, before an inclusive end is converted:
        a negative bound, an end before the start (``[3, 2]`` is reversed, not
        empty) and an empty exclusive range (``[3, 3)`` names no text) are errors.

        Raises:
            OffsetError: a bad unit, a negative bound (``kind="negative"``), a
                reversed (``"reversed"``) or empty (``"empty"``) range, or a bound
                that is not a position (see :meth:`codepoint_of`).
        """
        check_unit(unit)
        for name, value in (("start", start), ("end", end)):
            if type(value) is not int:
                raise OffsetError(f"range {name} {value!r} is not an integer", offset=None,
                                  unit=unit, kind="not_integer")
        shown = f"[{start}, {end}]" if end_inclusive else f"[{start}, {end})"
        for name, value in (("start", start), ("end", end)):
            if value < 0:
                raise OffsetError(f"{unit} range {shown} has a negative {name} ({value}); "
                                  f"{unit.replace('_', ' ')}s count up from "
                                  f"{1 if unit == 'page' else 0}", offset=value, unit=unit,
                                  kind="negative")
        if end < start:
            raise OffsetError(f"{unit} range {shown} is reversed: the end comes before the start",
                              offset=None, unit=unit, kind="reversed")
        if end == start and not end_inclusive:
            raise OffsetError(f"{unit} range {shown} is empty: an end-exclusive range whose end "
                              "equals its start names no text", offset=start, unit=unit,
                              kind="empty")
        xend = end + 1 if end_inclusive else end
        if unit in LOCATOR_UNITS:
            return self._locator_span(start, xend, unit, shown)
        cs = self.codepoint_of(start, unit)
        try:
            ce = self.codepoint_of(xend, unit)
        except OffsetError as exc:
            if end_inclusive and exc.kind in ("inside_sequence", "inside_surrogate_pair"):
                raise OffsetError(f"{exc} (the range end is inclusive, so it must name the last "
                                  f"{unit.replace('_', ' ')} of the range)", offset=exc.offset,
                                  unit=unit, kind=exc.kind) from None
            raise
        return cs, ce

    @staticmethod
    def _past_end(offset: int, unit: str, size: int) -> OffsetError:
        return OffsetError(f"{unit} offset {offset} is past the end of the text "
                           f"({size} {unit.replace('_', ' ')}s)", offset=offset, unit=unit,
                           kind="past_end")

    # ------------------------------------------------------------ pages and blocks
    def page_spans(self) -> tuple[tuple[int, int], ...]:
        """Code point ranges of the pages: text between form feeds (U+000C).

        A text without form feeds is one page; page number ``n`` is item ``n - 1``.

        >>> SourceText.from_text("one\\fpage two").page_spans()
        ((0, 3), (4, 12))
        """
        if self._pages is None:
            spans = []
            pos = 0
            for part in self.text.split("\f"):
                spans.append((pos, pos + len(part)))
                pos += len(part) + 1
            self._pages = tuple(spans)
        return self._pages

    def block_spans(self) -> tuple[tuple[int, int], ...]:
        """Code point ranges of the blocks: runs of non-blank lines, separated by one or
        more blank lines (CRLF, CR or LF line ends); a block excludes its final line end.
        (A text built with ``from_text(text, blocks=...)`` has the blocks given.)

        >>> SourceText.from_text("# Title\\n\\nFirst para\\nstill first.\\r\\n\\r\\nSecond.\\n").block_spans()
        ((0, 7), (9, 32), (36, 43))
        """
        if self._blocks is None:
            spans = []
            pos = 0
            text = self.text
            for m in _BLOCK_SEPARATOR.finditer(text):
                spans.append((pos, m.start()))
                pos = m.end()
            spans.append((pos, len(text)))
            out = []
            for s, e in spans:
                while e > s and text[e - 1] in "\r\n":
                    e -= 1
                if text[s:e].strip():
                    out.append((s, e))
            self._blocks = tuple(out)
        return self._blocks

    def _locator_span(self, start: int, xend: int, unit: str, shown: str) -> tuple[int, int]:
        spans = self.page_spans() if unit == "page" else self.block_spans()
        first = 1 if unit == "page" else 0
        count = len(spans)
        if start < first:
            raise OffsetError(f"{unit} range {shown} starts before {unit} {first} "
                              f"({unit}s are numbered from {first})", offset=start, unit=unit,
                              kind="negative")
        if xend > count + first:
            raise OffsetError(f"{unit} range {shown} runs past the last {unit} (the source has "
                              f"{count} {unit}s, numbered from {first})", offset=xend, unit=unit,
                              kind="past_end")
        i, j = start - first, xend - first
        return spans[i][0], spans[j - 1][1]


def convert(text: str | bytes, offset: int, from_unit: str, to_unit: str) -> int:
    """Convert one text position between units (see :class:`SourceText` for many).

    Args:
        text: a ``str`` or UTF-8 bytes (a BOM is allowed and counted in ``utf8_byte``).

    >>> convert("na\\u00efve \\U0001F600", 7, "codepoint", "utf16_unit")
    8
    >>> convert("na\\u00efve \\U0001F600", 8, "utf16_unit", "utf8_byte")
    11

    Raises:
        OffsetError: the position is not one in ``from_unit`` (see
            :meth:`SourceText.codepoint_of`).
        SourceDecodeError: ``text`` is bytes that are not UTF-8.
    """
    src = SourceText.from_bytes(text) if isinstance(text, (bytes, bytearray)) else SourceText.from_text(text)
    return src.convert(offset, from_unit, to_unit)


def cited_span(source: SourceText, start: int, end: int, unit: str | None,
               end_inclusive: bool = False) -> str:
    """The text a citation's range names in ``source``: the one reading of a cited range.

    Every reader of a citation's ``pg:start``, ``pg:end``, ``pg:offsetUnit`` and
    ``pg:endInclusive`` (the resolver, ``provgraph stale``, the citation record)
    calls this, so that two commands cannot read two different spans out of one
    citation (issue 12). It is :meth:`SourceText.span` followed by a slice of
    :attr:`SourceText.text`; in particular:

    * build ``source`` as the resolver does: :meth:`SourceText.from_bytes` for a
      snapshot's retained bytes (``utf8_byte`` offsets count a leading byte-order
      mark, ``codepoint`` and ``utf16_unit`` offsets do not, and the span never
      contains it), :meth:`SourceText.from_text` for an extracted text or a chunk's
      ``pg:text``;
    * ``unit=None`` means ``codepoint`` (a range recorded without a unit);
    * ``end_inclusive=True``: ``end`` names the last unit of the range, so the
      exclusive end is ``end + 1`` in ``unit``; ``[3, 3]`` names one unit;
    * ``page`` and ``block`` ranges name whole pages (form-feed separated, from 1)
      or blocks (blank-line separated, from 0; or the blocks ``source`` was built
      with) of ``source``.

    Args:
        source: the cited target's text.
        start: the range start in ``unit`` (int).
        end: the range end in ``unit`` (int; exclusive unless ``end_inclusive``).
        unit: one of :data:`ALL_UNITS`, or ``None`` for ``codepoint``.
        end_inclusive: whether ``end`` is the last unit of the range.

    Returns:
        The cited text (``str``, never empty): code points ``[cs, ce)`` of
        ``source.text`` where ``(cs, ce) = source.span(start, end, unit, end_inclusive)``.

    Raises:
        OffsetError: a range that names no text: an unknown unit, a bound that is not
            an ``int``, negative, past the end, inside a UTF-8 sequence (or the BOM) or
            a surrogate pair, a reversed range, or an empty end-exclusive one
            (``kind`` says which; see :meth:`SourceText.span`).

    See: https://www.w3.org/TR/annotation-model/#text-position-selector

    Example:
        >>> src = SourceText.from_bytes("\\ufeffcaf\\u00e9 \\N{WAVING HAND SIGN}!".encode())
        >>> cited_span(src, 3, 8, "utf8_byte"), cited_span(src, 0, 4, "codepoint")
        ('caf\u00e9', 'caf\u00e9')
        >>> cited_span(src, 5, 6, "utf16_unit", end_inclusive=True)
        '\U0001f44b'
        >>> cited_span(src, 2, 2, "codepoint")
        Traceback (most recent call last):
        ...
        provgraph.errors.OffsetError: codepoint range [2, 2) is empty: an end-exclusive range whose end equals its start names no text
    """
    cs, ce = source.span(start, end, unit or "codepoint", end_inclusive)
    return source.text[cs:ce]
