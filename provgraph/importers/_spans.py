"""Offsets, sentences and citation markers: the text arithmetic the importers share.

Providers count offsets in different units (DESIGN.md, Citation outcomes):

* ``codepoint`` - Unicode code points, Python ``str`` indices;
* ``utf8_byte`` - bytes of the UTF-8 encoding (Vertex AI / Gemini segments);
* ``utf16_unit`` - UTF-16 code units, JavaScript and Java string indices.

and some give the end as the last unit of the range (``end_inclusive``, Amazon
Bedrock spans). :func:`to_codepoints` converts any of these to end-exclusive code
point offsets, the unit claims are stored in. An offset inside a multi-byte
UTF-8 sequence or inside a UTF-16 surrogate pair is an error (:class:`SpanError`),
never rounded.

The sentence splitter is a small rule-based one (terminal ``.``, ``!`` or ``?``
followed by white space, a known-abbreviation list, no split inside numbers); it
exists so that ``[n]`` citation markers and answer positions can be attached to
the sentence they close (ALCE, OpenAI ``file_citation``).

>>> text = "Caf\u00e9 \u2615 ok \U0001F600 done"
>>> to_codepoints(text, 0, 6, "utf8_byte")
(0, 5)
>>> to_codepoints(text, 7, 9, "utf16_unit", end_inclusive=True)
(7, 10)
>>> text[7:10]
'ok '
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

__all__ = ["SpanError", "to_codepoints", "match_span", "unit_length", "sentences", "MarkerGroup",
           "marker_groups", "segment_claims", "claim_before", "find_normalized",
           "collapse_ws", "NUMBER", "number_key"]

UNITS = ("codepoint", "utf8_byte", "utf16_unit")


class SpanError(ValueError):
    """An offset that is negative, past the text, reversed, or inside an encoded character."""


def unit_length(text: str, unit: str) -> int:
    """Length of ``text`` in ``unit`` (``codepoint``, ``utf8_byte`` or ``utf16_unit``)."""
    if unit == "codepoint":
        return len(text)
    if unit == "utf8_byte":
        return len(text.encode("utf-8"))
    if unit == "utf16_unit":
        return len(text.encode("utf-16-le")) // 2
    raise SpanError(f"unknown offset unit {unit!r}; use one of {UNITS}")


def _to_cp(text: str, offset: int, unit: str) -> int:
    size = unit_length(text, unit)
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise SpanError(f"offset {offset!r} is not an integer")
    if offset < 0:
        raise SpanError(f"offset {offset} is negative")
    if offset > size:
        raise SpanError(f"offset {offset} is past the text ({size} {_unit_words(unit)})")
    if unit == "codepoint":
        return offset
    if unit == "utf8_byte":
        try:
            return len(text.encode("utf-8")[:offset].decode("utf-8"))
        except UnicodeDecodeError:
            raise SpanError(f"byte offset {offset} falls inside a multi-byte UTF-8 "
                            "sequence") from None
    head = text.encode("utf-16-le")[:offset * 2]
    try:
        return len(head.decode("utf-16-le"))
    except UnicodeDecodeError:
        raise SpanError(f"UTF-16 offset {offset} falls inside a surrogate pair") from None


def _unit_words(unit: str) -> str:
    return {"codepoint": "code points", "utf8_byte": "UTF-8 bytes",
            "utf16_unit": "UTF-16 units"}[unit]


def to_codepoints(text: str, start: int, end: int, unit: str, *,
                  end_inclusive: bool = False) -> tuple[int, int]:
    """Convert a range of ``text`` given in ``unit`` to end-exclusive code point offsets.

    Args:
        text: the text the offsets index.
        start: first unit of the range.
        end: end of the range: the first unit after it, or its last unit when
            ``end_inclusive`` is true.
        unit: ``codepoint``, ``utf8_byte`` or ``utf16_unit``.

    Returns:
        ``(start, end)`` in code points, end-exclusive, so ``text[start:end]`` is the range.

    Raises:
        SpanError: an offset that is not an integer, negative, past the text,
            inside a multi-byte sequence or surrogate pair, or a reversed range.
    """
    if isinstance(end, int) and not isinstance(end, bool) and end_inclusive:
        end = end + 1
    s = _to_cp(text, start, unit)
    e = _to_cp(text, end, unit)
    if e < s:
        raise SpanError(f"range [{start}, {end}) is reversed")
    return s, e


def match_span(text: str, start: int, end: int, expected: str | None, units: Sequence[str], *,
               end_inclusive: bool = False) -> tuple[int, int, str]:
    """Read an answer range whose unit the provider does not document, using the text
    the provider says the range holds.

    Tries each unit of ``units`` in order and returns the first whose range of ``text``
    equals ``expected`` (with ``expected=None`` the first unit that converts).

    Returns:
        ``(start, end, unit)``: end-exclusive code points and the unit that matched.

    Raises:
        SpanError: no unit gives ``expected`` (the message shows what the first unit gives).

    >>> match_span("\U0001F600 hi", 3, 5, "hi", ("codepoint", "utf16_unit"))
    (2, 4, 'utf16_unit')
    """
    first: str | None = None
    err: SpanError | None = None
    for unit in units:
        try:
            s, e = to_codepoints(text, start, end, unit, end_inclusive=end_inclusive)
        except SpanError as exc:
            err = err or exc
            continue
        if expected is None or text[s:e] == expected:
            return s, e, unit
        if first is None:
            first = text[s:e]
    if first is None and err is not None:
        raise err
    raise SpanError(f"range [{start}, {end}{']' if end_inclusive else ')'} holds {first!r}, "
                    f"not the cited text {expected!r}, counted in {' or '.join(units)}")


# --------------------------------------------------------------------------- sentences

_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf al fig figs no nos vol pp p ch sec eq approx ca mr mrs ms dr prof st jr sr "
    "inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k".split())
_TERMINATOR = re.compile(r"[.!?]+[\"'\u201d\u2019)]*")
_MARKER = re.compile(r"\[(\d+)\]")
_GROUP = re.compile(r"\[\d+\](?:[ \t]*\[\d+\])*")
_LINK = r"\(\[[^\]\n]*\]\([^)\s]*\)\)"  # an inline source link "([site](url))"
_TRAILER = re.compile(r"[ \t]*((?:" + _GROUP.pattern + "|" + _LINK + r")(?:[ \t]*(?:"
                      + _GROUP.pattern + "|" + _LINK + r"))*)?")


def _is_abbreviation(text: str, dot: int) -> bool:
    """Whether the ``.`` at ``dot`` ends an abbreviation or an initial, not a sentence."""
    m = re.search(r"([\w.]+)$", text[max(0, dot - 40):dot])
    if not m:
        return False
    word = m.group(1).lower().strip(".")
    if word in _ABBREVIATIONS:
        return True
    return len(word) == 1 and word.isalpha() and text[dot - 1].isupper()


def sentences(text: str) -> list[tuple[int, int, int]]:
    """Split ``text`` into sentences.

    Returns:
        ``(start, end, reach)`` per sentence, code points: ``text[start:end]`` is the
        sentence without surrounding white space; ``reach`` extends ``end`` over
        citation markers (``[n]``) and inline source links (``([site](url))``) that
        follow the sentence's terminal punctuation (a marker after the period
        belongs to the sentence before it). Sentences tile the
        text in order; text with no terminal punctuation is one sentence.

    >>> t = "It rains [1]. Mawsynram is wet. [2] Done"
    >>> [(t[s:e], t[s:r]) for s, e, r in sentences(t)]
    [('It rains [1].', 'It rains [1].'), ('Mawsynram is wet.', 'Mawsynram is wet. [2]'), ('Done', 'Done')]
    """
    out: list[tuple[int, int, int]] = []
    pos = 0
    n = len(text)
    for m in _TERMINATOR.finditer(text):
        end = m.end()
        if m.group(0)[0] == "." and len(m.group(0).rstrip("\"'\u201d\u2019)")) == 1 \
                and _is_abbreviation(text, m.start()):
            continue
        g = _TRAILER.match(text, end)
        reach = g.end(1) if g and g.group(1) else end
        rest = text[reach:]
        if rest.strip() and not re.match(r"\s+\S", rest):
            continue  # "3.5", "U.S.A" or a terminator glued to the next word
        if rest.strip():
            nxt = rest.lstrip()[0]
            if nxt.islower():
                continue
        _append(out, text, pos, end, reach)
        pos = reach
        if pos >= n:
            break
    if text[pos:].strip():
        _append(out, text, pos, n, n)
    return out


def _append(out: list[tuple[int, int, int]], text: str, start: int, end: int, reach: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        out.append((start, end, max(reach, end)))


class MarkerGroup:
    """Consecutive ``[n]`` markers: ``start``/``end`` code points, ``numbers`` as written."""

    __slots__ = ("start", "end", "numbers")

    def __init__(self, start: int, end: int, numbers: tuple[int, ...]) -> None:
        self.start, self.end, self.numbers = start, end, numbers

    def __repr__(self) -> str:
        return f"MarkerGroup({self.start}, {self.end}, {self.numbers})"


def marker_groups(text: str) -> list[MarkerGroup]:
    """The runs of ``[n]`` citation markers in ``text``, in order.

    >>> marker_groups("a [1][2] b [3]")
    [MarkerGroup(2, 8, (1, 2)), MarkerGroup(11, 14, (3,))]
    """
    return [MarkerGroup(m.start(), m.end(), tuple(int(x) for x in _MARKER.findall(m.group(0))))
            for m in _GROUP.finditer(text)]


_LEAD = " \t\r\n,;:\u2013\u2014-"


def segment_claims(text: str) -> Iterator[tuple[int, int, MarkerGroup | None]]:
    """Cut ``text`` into claim spans at its ``[n]`` marker groups.

    Each marker group cites the text between the previous group of its sentence (or
    the sentence start) and itself; a group after the sentence's period cites the
    whole rest of that sentence, period included. Text of a sentence after its last
    group, or a sentence with no group, is yielded with ``None`` when it holds a
    letter or digit. Spans exclude the markers and surrounding white space and
    leading ``,;:`` and dashes.

    Yields:
        ``(start, end, group)`` in code points, in text order.

    >>> t = "Marazan [1], Stephen Morris [2]. It rains. Wet [3]."
    >>> [(t[s:e], g.numbers if g else None) for s, e, g in segment_claims(t)]
    [('Marazan', (1,)), ('Stephen Morris', (2,)), ('It rains.', None), ('Wet', (3,))]
    """
    groups = marker_groups(text)
    for s_start, s_end, reach in sentences(text):
        inside = [g for g in groups if s_start <= g.start < reach]
        cursor = s_start
        for g in inside:
            span = _trim(text, cursor, g.start)
            if span is not None:
                yield span[0], span[1], g
            cursor = g.end
        if cursor < s_end:
            span = _trim(text, cursor, s_end)
            if span is not None and re.search(r"\w", text[span[0]:span[1]]):
                yield span[0], span[1], None


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start] in _LEAD:
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def claim_before(text: str, pos: int) -> tuple[int, int]:
    """The claim a citation placed at code point ``pos`` closes: from the start of the
    sentence holding ``pos`` (or ending just before it) up to ``pos``, trimmed.

    Raises:
        SpanError: no text precedes ``pos`` in its sentence.

    >>> t = "Water boils at 100 degrees. Ice melts at 0 degrees."
    >>> s, e = claim_before(t, len(t)); t[s:e]
    'Ice melts at 0 degrees.'
    >>> s, e = claim_before(t, 27); t[s:e]
    'Water boils at 100 degrees.'
    """
    if not 0 <= pos <= len(text):
        raise SpanError(f"position {pos} is past the text ({len(text)} code points)")
    start = 0
    for s, e, reach in sentences(text):
        if s >= pos:
            break
        start = s
    span = _trim(text, start, pos)
    if span is None:
        raise SpanError(f"no text precedes position {pos}")
    return span


# --------------------------------------------------------------------------- matching

def collapse_ws(text: str) -> str:
    """``text`` with every run of white space replaced by one space, ends stripped."""
    return " ".join(text.split())


def find_normalized(haystack: str, needle: str) -> tuple[int, int] | None:
    """Find ``needle`` in ``haystack`` when runs of white space count as equal.

    Returns:
        ``(start, end)`` code points of the first match in ``haystack``, or ``None``.

    >>> find_normalized("a  secure,\\ncomputer system", "secure, computer")
    (3, 19)
    """
    words = needle.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.search(pattern, haystack)
    return (m.start(), m.end()) if m else None


NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?!\w)")
"""A number as written: digits with ``,`` or ``.`` separators, not glued to a word
(``H2O``, ``3rd`` and ``5G`` hold no number; ``17025:2017`` holds two)."""


def number_key(token: str) -> str:
    """The comparable form of a number token: thousands separators removed.

    >>> number_key("6,650") == number_key("6650")
    True
    """
    return token.replace(",", "")
