"""How retained bytes are read as text, by media type: text types, and block documents.

The resolver searches a snapshot's bytes as text only when its media type says
they are text (:func:`is_text_media_type`). Anything else (a PDF, an image, a
word-processor file) has text only through a recorded extraction; without one,
a citation of it cannot be checked and the resolver says so (``unresolved_range``,
"no text layer recorded for application/pdf"), never ``quote_mismatch``: bytes
that are not text are not searched as if they were.

Block documents. Some citation APIs cite a document by *block*: Anthropic's
custom-content documents and search results (``content_block_location``,
``search_result_location``: ``start_block_index`` from 0, ``end_block_index``
exclusive, and ``cited_text`` "always equals the contents of
content[start_block_index:end_block_index] joined"). provgraph retains such a
document as the UTF-8 JSON array of its block texts (:func:`encode_blocks`),
media type :data:`BLOCKS_MEDIA_TYPE` (``application/vnd.provgraph.blocks+json``),
and reads it back with :class:`BlockText`:

* block ``i`` is element ``i`` of the array (every element counts, empty ones too);
* the text of blocks ``[i, j)`` is their strings joined with nothing between
  them, as the provider joins ``cited_text``; a quote is searched within it;
* every code point of that text maps back exactly to the bytes of its JSON
  string literal: a character written as an escape (``\\n``, ``\\"``,
  ``\\u00e9``, the surrogate pair ``\\ud83d\\ude00``) maps to the whole escape,
  and a span that crosses from one block into the next includes the JSON
  punctuation between the two literals (:meth:`BlockText.raw_span` says which
  blocks it crosses).

Ranges in ``utf8_byte``, ``codepoint`` or ``utf16_unit`` on a block document
address its retained JSON bytes and their decoded text, as on any snapshot.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable

from .limits import json_error_text, loads_json
from .offsets import SourceText

__all__ = ["BLOCKS_MEDIA_TYPE", "BlockText", "encode_blocks", "is_blocks_media_type",
           "is_text_media_type", "base_media_type"]

BLOCKS_MEDIA_TYPE = "application/vnd.provgraph.blocks+json"
"""A document of text blocks, retained as the UTF-8 JSON array of the blocks' strings."""

_TEXT_APPLICATION = frozenset({
    "json", "xml", "javascript", "ecmascript", "x-javascript", "yaml", "x-yaml", "toml",
    "x-toml", "sql", "csv", "x-sh", "x-csh", "x-tex", "x-latex", "x-subrip", "rtf",
    "x-ndjson", "ndjson", "jsonl", "x-python", "markdown", "x-markdown", "x-rst", "graphql",
    "x-www-form-urlencoded",
})
_TEXT_SUFFIXES = ("+json", "+xml", "+yaml")


def base_media_type(media_type: str) -> str:
    """``type/subtype`` of a media type, lower case, without parameters.

    >>> base_media_type("Text/Markdown; charset=utf-8")
    'text/markdown'
    """
    return media_type.split(";", 1)[0].strip().lower()


def is_text_media_type(media_type: str) -> bool:
    """Whether bytes of this media type are text a quote can be searched in.

    True for ``text/*`` and ``message/*``, for ``application/*`` types that are
    text (JSON, XML, JavaScript, YAML, TOML, SQL, CSV, shell, TeX, RTF, JSON
    Lines, Markdown) and any ``+json``, ``+xml`` or ``+yaml`` type; and for an
    empty media type (unknown: the bytes are read as text when they decode).
    False for everything else: ``application/pdf``, ``application/octet-stream``,
    images, audio, video, fonts, archives and office documents.

    >>> [is_text_media_type(m) for m in ("text/plain; charset=utf-8", "application/ld+json",
    ...                                  "application/pdf", "image/png", "")]
    [True, True, False, False, True]
    """
    base = base_media_type(media_type)
    if not base:
        return True
    kind, _, sub = base.partition("/")
    if kind in ("text", "message"):
        return True
    if sub.endswith(_TEXT_SUFFIXES):
        return True
    return kind == "application" and sub in _TEXT_APPLICATION


def is_blocks_media_type(media_type: str) -> bool:
    """Whether ``media_type`` is :data:`BLOCKS_MEDIA_TYPE` (parameters ignored)."""
    return base_media_type(media_type) == BLOCKS_MEDIA_TYPE


def encode_blocks(texts: Iterable[str]) -> bytes:
    """The retained bytes of a block document: the UTF-8 JSON array of ``texts``.

    >>> encode_blocks(["Öl stieg.", 'Er sagte "ja".'])
    b'["\\xc3\\x96l stieg.", "Er sagte \\\\"ja\\\\"."]'
    """
    return json.dumps(list(texts), ensure_ascii=False).encode("utf-8")


_WS = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class BlockText:
    """A block document read back: the joined text of its blocks and the way to its bytes.

    Attributes:
        blocks: the block strings, in order.
        text: ``"".join(blocks)``; code points of the joined text are what block
            ranges and searched quotes address.
        spans: ``(start, end)`` code points of each block in :attr:`text`.
        raw: the retained bytes decoded as a :class:`~provgraph.offsets.SourceText`
            (the JSON text); :meth:`raw_span` offsets index ``raw.text``.
        literals: ``(start, end)`` code points of each block's string literal
            contents in ``raw.text`` (between its quotation marks).

    Example:
        >>> bt = BlockText.from_bytes(encode_blocks(["Öl stieg.", 'Er sagte "ja".']))
        >>> bt.text, bt.spans
        ('Öl stieg.Er sagte "ja".', ((0, 9), (9, 23)))
        >>> bt.raw_span(9, 23)  # the escaped quotation marks are two code points each
        (15, 31, None)
        >>> bt.raw_span(3, 11)  # across the end of block 0: the JSON between is included
        (5, 17, (0, 1))
    """

    __slots__ = ("blocks", "text", "spans", "raw", "literals", "_starts", "_ends",
                 "_block_starts", "_source")

    def __init__(self, raw: SourceText, blocks: list[str], literals: list[tuple[int, int]],
                 starts: list[int], ends: list[int]) -> None:
        self.raw = raw
        self.blocks = tuple(blocks)
        self.text = "".join(blocks)
        spans = []
        pos = 0
        for b in blocks:
            spans.append((pos, pos + len(b)))
            pos += len(b)
        self.spans = tuple(spans)
        self.literals = tuple(literals)
        self._starts = starts
        self._ends = ends
        # block starts, non-decreasing; for a code point, the last block starting at or
        # before it holds it (an empty block before it starts there too, but comes first)
        self._block_starts = [sp[0] for sp in spans]
        self._source: SourceText | None = None

    @classmethod
    def from_bytes(cls, data: bytes, *, name: str = "the block document") -> "BlockText":
        """Read a block document's retained bytes.

        Raises:
            ValueError: the bytes are not UTF-8, not JSON, not an array of strings,
                or a string holds a lone surrogate escape (refused by
                :func:`~provgraph.limits.loads_json`); the message says which.
        """
        try:
            raw = SourceText.from_bytes(data, name=name)
        except Exception as exc:  # SourceDecodeError: not UTF-8
            raise ValueError(str(exc)) from None
        text = raw.text
        try:
            value = loads_json(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name} is not JSON ({json_error_text(exc)} at line {exc.lineno} column "
                             f"{exc.colno}); a {BLOCKS_MEDIA_TYPE} document is a JSON array "
                             "of strings") from None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{name} is not a JSON array of strings, as a {BLOCKS_MEDIA_TYPE} "
                             "document must be")
        starts: list[int] = []
        ends: list[int] = []
        literals: list[tuple[int, int]] = []
        blocks: list[str] = []
        i = _skip(text, 0)
        i += 1  # "["
        for k in range(len(value)):
            i = _skip(text, i)
            if k:
                i = _skip(text, i + 1)  # ","
            i += 1  # opening quotation mark
            lit_start = i
            chars: list[str] = []
            while text[i] != '"':
                ch, j = _char_at(text, i)
                chars.append(ch)
                starts.append(i)
                ends.append(j)
                i = j
            literals.append((lit_start, i))
            i += 1
            block = "".join(chars)
            if block != value[k]:  # pragma: no cover - the scanner follows RFC 8259 §7
                raise ValueError(f"{name}: block {k} could not be located in the JSON text")
            blocks.append(block)  # no lone surrogate: loads_json refused those
        return cls(raw, blocks, literals, starts, ends)

    def source(self) -> SourceText:
        """The joined text as a :class:`~provgraph.offsets.SourceText` whose ``block``
        unit indexes :attr:`blocks` (built once)."""
        if self._source is None:
            self._source = SourceText.from_text(self.text, blocks=self.spans)
        return self._source

    def raw_span(self, start: int, end: int) -> tuple[int, int, tuple[int, int] | None]:
        """Map code points ``[start, end)`` of :attr:`text` to ``raw.text``.

        Returns:
            ``(raw_start, raw_end, crossed)``: end-exclusive code points of the JSON
            text, exact to the character (an escaped character maps to its whole
            escape); ``crossed`` is ``(first_block, last_block)`` when the span runs
            from one block's literal into a later one (the JSON punctuation between
            them is then inside the range), else ``None``. An empty span maps to the
            inside of the first empty block's literal at that position, or else to
            the position in the literal of the block that holds it.
        """
        if end > start:
            first = bisect_right(self._block_starts, start) - 1
            last = bisect_right(self._block_starts, end - 1) - 1
            return (self._starts[start], self._ends[end - 1],
                    (first, last) if last != first else None)
        holders = [k for k, (s, e) in enumerate(self.spans) if s <= start <= e]
        empty = [k for k in holders if self.spans[k][0] == self.spans[k][1]]
        if empty or holders:
            k = (empty or holders)[0]
            s, e = self.spans[k]
            lo, hi = self.literals[k]
            pos = lo if s == e else hi if start == e else self._starts[start]
            return pos, pos, None
        end_of_array = self.literals[-1][1] if self.literals else 1
        return end_of_array, end_of_array, None


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _char_at(text: str, i: int) -> tuple[str, int]:
    """The character a JSON string literal holds at ``i`` and where the next one starts."""
    c = text[i]
    if c != "\\":
        return c, i + 1
    e = text[i + 1]
    if e != "u":
        return _ESCAPES[e], i + 2
    cp = int(text[i + 2:i + 6], 16)
    j = i + 6
    if 0xD800 <= cp < 0xDC00 and text[j:j + 2] == "\\u":
        low = int(text[j + 2:j + 6], 16)
        if 0xDC00 <= low < 0xE000:
            return chr(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)), j + 6
    return chr(cp), j
