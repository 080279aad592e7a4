"""Named, versioned normalization policies, with a map back to the original offsets.

A quotation may match its source only after normalization; provgraph then
reports ``normalized_match`` under the policy's name and version, and every
offset it reports still points into the original, unnormalized text. Case is
never folded by any policy.

=============  =======  ===============================================================
policy         version  what it does
=============  =======  ===============================================================
``exact``      1        nothing: code point for code point (the default)
``nfc``        1        Unicode canonical composition (NFC, UAX #15): precomposed and
                        decomposed forms of one word compare equal
``whitespace`` 1        ``nfc``, then every run of whitespace (space, tab, CR, LF,
                        CRLF, VT, FF, U+0085, U+2028, U+2029) becomes one space; a
                        quote's leading and trailing whitespace is dropped
``fold``       1        ``whitespace`` plus a light compatibility fold that is *not*
                        NFKC: Latin ligatures (U+FB00-FB06 ``ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ``, ``Ĳ ĳ``,
                        ``Ǆ ǅ ǆ Ǉ ǈ ǉ Ǌ ǋ ǌ Ǳ ǲ ǳ``) are spelled out, non-breaking and
                        other typographic spaces (U+00A0, U+1680, U+2000-200A, U+202F,
                        U+205F, U+3000) count as whitespace, typographic single and
                        double quotes and primes become ``'`` and ``"``, hyphens and
                        dashes (U+2010-2015, U+2212) become ``-``, ``…`` becomes
                        ``...``, and soft hyphens, zero-width spaces, word joiners and
                        stray BOMs (U+00AD, U+200B, U+2060, U+FEFF) are dropped.
                        Superscripts, subscripts, circled and fullwidth forms, fractions
                        and letterlike symbols stay distinct (``x²`` is not ``x2``).
=============  =======  ===============================================================

A change to what a policy does gets a new version, never a silent change under
the same name: recorded outcomes name ``name@version``.

The map: :meth:`Policy.normalize` returns a :class:`NormalizedText` whose
:meth:`~NormalizedText.to_original` turns an end-exclusive code point range of
the normalized text into the range of the original text it came from. Where a
piece of text changed (a composed character, a collapsed whitespace run, an
expanded ligature) only the piece's boundaries map; a range that starts or
ends inside such a piece gives ``None`` rather than a rounded guess.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from .errors import ResolutionError

__all__ = ["Policy", "NormalizedText", "POLICIES", "get_policy", "EXACT"]

_ASCII_WS = " \t\n\r\x0b\x0c\x85\u2028\u2029"
_ODD_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
_FOLD_TABLE = {
    # Latin ligatures (Alphabetic Presentation Forms and Latin Extended-B digraphs)
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
    "\ufb05": "st", "\ufb06": "st", "\u0132": "IJ", "\u0133": "ij",
    "\u01c4": "D\u017d", "\u01c5": "D\u017e", "\u01c6": "d\u017e",
    "\u01c7": "LJ", "\u01c8": "Lj", "\u01c9": "lj", "\u01ca": "NJ", "\u01cb": "Nj", "\u01cc": "nj",
    "\u01f1": "DZ", "\u01f2": "Dz", "\u01f3": "dz",
    # typographic quotes and primes
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    # hyphens, dashes and the minus sign
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-",
    "\u2026": "...",
    # invisible characters that only affect rendering
    "\u00ad": "", "\u200b": "", "\u2060": "", "\ufeff": "",
}
_WS_RX = re.compile(f"[{re.escape(_ASCII_WS)}]{{2,}}|[{re.escape(_ASCII_WS[1:])}]")
_ALL_WS = _ASCII_WS + _ODD_SPACES
_FOLD_RX = re.compile(
    f"(?P<ws>[{re.escape(_ALL_WS)}]{{2,}}|[{re.escape(_ALL_WS[1:])}])"
    f"|(?P<ch>[{re.escape(''.join(_FOLD_TABLE))}])")
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


class _PieceMap:
    """Offsets of an output text back to its input, where ``pieces`` lists the changed
    pieces ``(out_start, out_end, in_start, in_end)`` in order; everything between
    pieces was copied unchanged."""

    __slots__ = ("ns", "ne", "os", "oe")

    def __init__(self, pieces: list[tuple[int, int, int, int]]) -> None:
        self.ns = [p[0] for p in pieces]
        self.ne = [p[1] for p in pieces]
        self.os = [p[2] for p in pieces]
        self.oe = [p[3] for p in pieces]

    def start(self, n: int) -> int | None:
        i = bisect_right(self.ns, n) - 1
        if i < 0:
            return n
        if n < self.ne[i]:
            return self.os[i] if n == self.ns[i] else None
        return self.oe[i] + (n - self.ne[i])

    def end(self, n: int) -> int | None:
        i = bisect_left(self.ne, n)
        if i == len(self.ne):
            return n if i == 0 else self.oe[-1] + (n - self.ne[-1])
        ns, ne = self.ns[i], self.ne[i]
        if ns < n < ne:
            return None
        if n == ne and ns < ne:
            return self.oe[i]
        return self.os[i] - (ns - n)


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A text after a policy, with the way back to the original.

    Attributes:
        original: the text before normalization.
        text: the normalized text.
    """

    original: str
    text: str
    _maps: tuple[_PieceMap, ...] = ()

    def to_original(self, start: int, end: int) -> tuple[int, int] | None:
        """The original code point range ``[s, e)`` that normalized ``[start, end)``
        came from, or ``None`` when either bound falls inside a changed piece.

        >>> n = get_policy("whitespace").normalize("a \\r\\n  b")
        >>> n.text, n.to_original(0, 3)
        ('a b', (0, 7))
        """
        s, e = start, end
        for m in self._maps:
            ms, me = m.start(s), m.end(e)
            if ms is None or me is None:
                return None
            s, e = ms, me
        if e < s:
            e = s
        return s, e


def _nfc_pieces(text: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    """NFC of ``text`` with the pieces that changed. Only non-ASCII runs (with the
    ASCII starter before each) can change, and within a run only groups of
    characters that interact under canonical composition."""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text, []
    nfc = unicodedata.normalize
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    pos = npos = 0
    for m in _NON_ASCII_RUN.finditer(text):
        rs = max(m.start() - 1, pos)
        region = text[rs:m.end()]
        if unicodedata.is_normalized("NFC", region):
            continue
        out.append(text[pos:rs])
        npos += rs - pos
        for gs, ge in _groups(region):
            g = region[gs:ge]
            ng = nfc("NFC", g)
            if ng != g:
                pieces.append((npos, npos + len(ng), rs + gs, rs + ge))
            out.append(ng)
            npos += len(ng)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), pieces


def _groups(s: str) -> list[tuple[int, int]]:
    """Split ``s`` into ranges that NFC-normalize independently: clusters start at
    each character of canonical combining class 0, and neighbouring clusters that
    compose with each other (Hangul jamo, some Indic vowel signs) are merged."""
    nfc = unicodedata.normalize
    comb = unicodedata.combining
    starts = [i for i, c in enumerate(s) if i == 0 or comb(c) == 0]
    starts.append(len(s))
    groups: list[tuple[int, int]] = []
    cs, ce = starts[0], starts[1]
    cur = nfc("NFC", s[cs:ce])
    for k in range(1, len(starts) - 1):
        a, b = starts[k], starts[k + 1]
        nb = nfc("NFC", s[a:b])
        joined = nfc("NFC", s[cs:b])
        if joined == cur + nb:
            groups.append((cs, ce))
            cs, ce, cur = a, b, nb
        else:
            ce, cur = b, joined
    groups.append((cs, ce))
    return groups


def _fold_replacement(m: re.Match[str]) -> str:
    return " " if m.lastgroup != "ch" else _FOLD_TABLE[m.group()]


def _regex_pieces(text: str, rx: re.Pattern[str]) -> tuple[str, list[tuple[int, int, int, int]]]:
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    pos = npos = 0
    for m in rx.finditer(text):
        s, e = m.span()
        rep = " " if m.lastgroup != "ch" else _FOLD_TABLE[m.group()]
        out.append(text[pos:s])
        npos += s - pos
        pieces.append((npos, npos + len(rep), s, e))
        out.append(rep)
        npos += len(rep)
        pos = e
    if not pieces:
        return text, []
    out.append(text[pos:])
    return "".join(out), pieces


@dataclass(frozen=True, slots=True)
class Policy:
    """A normalization policy (see the module docstring for the four policies).

    Attributes:
        name: ``exact``, ``nfc``, ``whitespace`` or ``fold``.
        version: the policy's version; recorded with every outcome.
        description: one line saying what it does.
    """

    name: str
    version: str
    description: str
    nfc: bool = False
    whitespace: bool = False
    fold: bool = False

    @property
    def label(self) -> str:
        """``name@version``, the form written to the store (``pg:policy``)."""
        return f"{self.name}@{self.version}"

    def normalize(self, text: str) -> NormalizedText:
        """Normalize a source text, keeping the map back to its offsets.

        >>> n = get_policy("fold").normalize("e\\u0301clair \\ufb01ne\\u00a0print")
        >>> n.text
        'éclair fine print'
        >>> n.to_original(7, 11), n.to_original(0, 1)
        ((8, 11), (0, 2))
        """
        maps: list[_PieceMap] = []
        out = text
        if self.nfc:
            out, pieces = _nfc_pieces(out)
            if pieces:
                maps.append(_PieceMap(pieces))
        if self.whitespace or self.fold:
            out, pieces = _regex_pieces(out, _FOLD_RX if self.fold else _WS_RX)
            if pieces:
                maps.insert(0, _PieceMap(pieces))
        return NormalizedText(text, out, tuple(maps))

    def normalize_quote(self, text: str) -> str:
        """Normalize a quoted text (or a text to compare): like :meth:`normalize`, and
        for the whitespace-collapsing policies without leading or trailing space.

        >>> get_policy("whitespace").normalize_quote("  not\\r\\nspecified. ")
        'not specified.'
        """
        if self.name == "exact":
            return text
        out = unicodedata.normalize("NFC", text) if self.nfc else text
        if self.fold:
            out = _FOLD_RX.sub(_fold_replacement, out).strip(" ")
        elif self.whitespace:
            out = _WS_RX.sub(" ", out).strip(" ")
        return out

    def normalize_context(self, text: str) -> str:
        """Normalize a prefix or suffix: as :meth:`normalize_quote` without stripping."""
        if self.name == "exact":
            return text
        out = unicodedata.normalize("NFC", text) if self.nfc else text
        if self.fold:
            out = _FOLD_RX.sub(_fold_replacement, out)
        elif self.whitespace:
            out = _WS_RX.sub(" ", out)
        return out


EXACT = Policy("exact", "1", "code point for code point")
POLICIES: dict[str, Policy] = {
    "exact": EXACT,
    "nfc": Policy("nfc", "1", "Unicode NFC (canonical composition)", nfc=True),
    "whitespace": Policy("whitespace", "1", "NFC, then runs of whitespace (CRLF included) "
                         "collapsed to one space", nfc=True, whitespace=True),
    "fold": Policy("fold", "1", "whitespace, plus ligatures, typographic spaces, quotes and "
                   "dashes folded (not NFKC; case kept)", nfc=True, whitespace=True, fold=True),
}
"""The policies by name."""


def get_policy(name: str | Policy) -> Policy:
    """The policy called ``name`` (``"whitespace"`` or ``"whitespace@1"``).

    Raises:
        ResolutionError: an unknown name, or a version this provgraph does not have.
    """
    if isinstance(name, Policy):
        return name
    base, _, version = str(name).partition("@")
    pol = POLICIES.get(base)
    if pol is None:
        raise ResolutionError(f"unknown normalization policy {name!r}; use one of "
                              f"{', '.join(POLICIES)}")
    if version and version != pol.version:
        raise ResolutionError(f"policy {base} has version {pol.version}, not {version!r}")
    return pol
