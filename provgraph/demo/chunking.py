"""The demo's chunker: block-aware, sentence-aware, with overlap, deterministic.

Chunks are built from the parser's blocks (titles, paragraphs, literal blocks):
consecutive blocks are packed until the next one would take the chunk past
``max_chars`` code points, or until a section title arrives and the chunk already
holds ``section_break_chars`` code points (chunks follow the document's sections
where they can); a block longer than ``max_chars`` is split at
sentence ends (and, failing that, hard at ``max_chars``). A chunk never ends
with a title: the title moves to the next chunk. Consecutive chunks overlap by
the previous chunk's last piece when it is at most ``overlap_chars`` long.

Offsets are end-exclusive code points of the extracted text.
"""

from __future__ import annotations

import re
from typing import Any

from .rst import Extracted

__all__ = ["CHUNKER", "CHUNK_PARAMETERS", "chunk_ranges"]

CHUNKER = ("provgraph-demo-chunker", "1.0")
"""The chunker agent ``(name, version)`` recorded on every chunking activity."""

CHUNK_PARAMETERS: dict[str, Any] = {"max_chars": 1000, "overlap_chars": 240,
                                    "section_break_chars": 300,
                                    "boundaries": ["block", "sentence", "hard"],
                                    "unit": "codepoint"}
"""The chunker parameters recorded on every chunking activity."""

_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z0-9`\"'(])")


def _pieces(extracted: Extracted, max_chars: int) -> list[tuple[int, int, str]]:
    """Blocks, with over-long blocks split at sentence ends (or hard)."""
    out: list[tuple[int, int, str]] = []
    text = extracted.text
    for b in extracted.blocks:
        if b.end - b.start <= max_chars:
            out.append((b.start, b.end, b.kind))
            continue
        cuts = [b.start] + [b.start + m.end() for m in _SENTENCE_END.finditer(text[b.start:b.end])]
        cuts.append(b.end)
        start = b.start
        prev = b.start
        for cut in cuts[1:]:
            if cut - start > max_chars and prev > start:
                out.append((start, prev, b.kind))
                start = prev
            while cut - start > max_chars:
                out.append((start, start + max_chars, b.kind))
                start += max_chars
            prev = cut
        if start < b.end:
            out.append((start, b.end, b.kind))
    return [(s, e, k) for s, e, k in out if text[s:e].strip()]


def chunk_ranges(extracted: Extracted, *, max_chars: int = CHUNK_PARAMETERS["max_chars"],
                 overlap_chars: int = CHUNK_PARAMETERS["overlap_chars"],
                 section_break_chars: int = CHUNK_PARAMETERS["section_break_chars"],
                 ) -> list[tuple[int, int]]:
    """Chunk ranges ``(start, end)`` over the extracted text, in order.

    Args:
        extracted: the parser's output (text and blocks).
        max_chars: the most code points a chunk may span (a single piece never exceeds it).
        overlap_chars: the longest trailing piece repeated at the start of the next chunk
            (never across a section title).
        section_break_chars: a title starts a new chunk once the chunk is this long.

    Returns:
        End-exclusive code point ranges; each starts and ends on a piece boundary.

    Example:
        >>> from provgraph.demo.rst import extract_rst
        >>> ex = extract_rst(b"A\\n=\\n\\nOne two.\\n\\nThree four.\\n")
        >>> [ex.text[s:e] for s, e in chunk_ranges(ex, max_chars=14, overlap_chars=0,
        ...                                        section_break_chars=300)]
        ['A\\n\\nOne two.', 'Three four.']
    """
    pieces = _pieces(extracted, max_chars)
    ranges: list[tuple[int, int]] = []
    current: list[tuple[int, int, str]] = []
    for piece in pieces:
        at_title = (piece[2] == "title" and current and current[-1][2] != "title"
                    and current[-1][1] - current[0][0] >= section_break_chars)
        if current and (at_title or piece[1] - current[0][0] > max_chars):
            carry: list[tuple[int, int, str]] = []
            while len(current) > 1 and current[-1][2] == "title":
                carry.insert(0, current.pop())
            ranges.append((current[0][0], current[-1][1]))
            last = current[-1]
            if (not carry and not at_title and last[1] - last[0] <= overlap_chars
                    and piece[1] - last[0] <= max_chars):
                carry = [last]
            current = carry
        current.append(piece)
    if current:
        ranges.append((current[0][0], current[-1][1]))
    return ranges
