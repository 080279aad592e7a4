"""Quote matching against one text: the store-free core of the citation resolver.

:func:`check_quote` answers, for one source text, "is this quoted text at this
range (or, without a range, where is it)?" It is what ``provgraph check-quote``
runs, and :mod:`provgraph.resolve` runs it on the text a stored citation
addresses before mapping the span back to snapshot bytes.

Rules (issue 3):

* With a range and a quote: the range is converted to code points explicitly
  (:meth:`~provgraph.offsets.SourceText.span`); a bound that is not a position
  gives ``unresolved_range``. The text there equal to the quote is
  ``quote_match``; equal under the policy, ``normalized_match`` (offsets still
  into the original text); otherwise ``quote_mismatch``. When the range does
  not match but would in another unit or end convention, the reason says so.
* With a quote and no range: the quote is searched for, exactly first and then
  under the policy. One occurrence is a match. Several: the W3C
  TextQuoteSelector prefix and suffix must single one out, otherwise
  ``ambiguous`` - never silently the first. No fuzzy matching is done.
  When the quote occurs both exactly and (elsewhere) only under the policy, and a
  prefix or suffix is given, all of them are candidates (issue 15): an occurrence
  whose context agrees beats one whose context does not, then an exact one beats a
  normalized one; several equally good occurrences are ``ambiguous``.
* Page and block ranges select whole pages or blocks; a quote is then searched
  for inside them.
* Without a quote: ``located`` with the range (or the whole text); nothing is
  verified.
* A match never starts or ends inside a user-perceived character (an extended
  grapheme cluster, Unicode UAX #29, in the approximation of
  :func:`cluster_break_problem`): ``cafe`` is not in ``cafe\u0301`` (NFD
  "café"), nor is an emoji without its skin-tone modifier, variation selector
  or zero-width-joiner sequence. Such an occurrence, searched or at the cited
  range, is not a match; the reason says the quote starts or ends inside a
  character sequence.

Offsets in results are end-exclusive code points of ``SourceText.text`` (and,
from :func:`check_quote`, bytes of ``SourceText.data``, BOM included).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from . import ids
from .errors import OffsetError, ResolutionError
from .normalize import EXACT, NormalizedText, Policy, get_policy
from .offsets import LOCATOR_UNITS, TEXT_UNITS, SourceText, _char_label
from .terms import IRI
from .vocab import VERIFIED_OUTCOMES

__all__ = ["Resolution", "Located", "locate", "check_quote", "cluster_break_problem", "VERIFIED"]

VERIFIED = frozenset(VERIFIED_OUTCOMES)
"""The outcomes that verify a quotation (and only these write ``prov:wasQuotedFrom``):
:data:`provgraph.vocab.VERIFIED_OUTCOMES` as a set."""

_MAX_HITS = 10_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolution:
    """The outcome of checking one citation.

    Attributes:
        outcome: one of :data:`provgraph.vocab.OUTCOMES`.
        reason: a sentence a person can read: what was compared, where, and why
            it failed when it did.
        policy: name of the normalization policy applied (``exact`` for a
            ``quote_match``; the requested policy otherwise).
        policy_version: that policy's version.
        byte_start, byte_end: end-exclusive ``utf8_byte`` offsets of the resolved
            span in the original snapshot (file) bytes, BOM counted; ``None``
            when nothing resolved.
        codepoint_start, codepoint_end: the same span in code points of the
            snapshot's decoded text (BOM not counted); ``None`` when nothing
            resolved or the snapshot is not text (a PDF, say).
        snapshot: IRI of the snapshot the offsets refer to (RFC 6920 ``ni:``),
            or the newest revision for ``orphaned``.
        generated_source: for ``generated_target``, the aid (or other generated
            entity) the citation actually points at.
        citation: the citation's IRI when it came from the store.
        text: the original text of the resolved span.
        region: for a citation of a PDF table or cell, the ``pg:TableCell`` or ``pg:Table``
            the quote was located in (issue 21).
        precision: how precisely that region was located: ``cell``, ``row``, ``table`` or
            ``page`` (:data:`provgraph.vocab.PRECISIONS`); ``None`` for text citations.
        context_gaps: what the extraction did not keep around the cell
            (:data:`provgraph.vocab.CONTEXT_GAPS`); non-empty exactly for
            ``context_not_extracted``.
        page, bbox: for a PDF, the 1-based page and the box located (the cell's, the
            table's, or the union of the quoted words' boxes): ``(x0, y0, x1, y1)`` in PDF
            user space points, origin bottom-left.
        fragment: for a PDF, the RFC 8118 fragment of that page and box
            (``page=18&viewrect=252,150,120,20``), the value of the ``oa:FragmentSelector``
            a verified quotation gets.
    """

    outcome: str
    reason: str
    policy: str = "exact"
    policy_version: str = "1"
    byte_start: int | None = None
    byte_end: int | None = None
    codepoint_start: int | None = None
    codepoint_end: int | None = None
    snapshot: IRI | None = None
    generated_source: IRI | None = None
    citation: IRI | None = None
    text: str | None = None
    region: IRI | None = None
    precision: str | None = None
    context_gaps: tuple[str, ...] = ()
    page: int | None = None
    bbox: tuple[float, float, float, float] | None = None
    fragment: str | None = None

    @property
    def verified(self) -> bool:
        """Whether the outcome verifies a quotation (quote_match or normalized_match)."""
        return self.outcome in VERIFIED

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with every field (``None`` as JSON null)."""
        return {"outcome": self.outcome, "byte_start": self.byte_start, "byte_end": self.byte_end,
                "codepoint_start": self.codepoint_start, "codepoint_end": self.codepoint_end,
                "policy": self.policy, "policy_version": self.policy_version,
                "reason": self.reason, "snapshot": self.snapshot,
                "generated_source": self.generated_source, "citation": self.citation,
                "text": self.text, "region": self.region, "precision": self.precision,
                "context_gaps": list(self.context_gaps), "page": self.page,
                "bbox": list(self.bbox) if self.bbox else None, "fragment": self.fragment}


@dataclass(frozen=True, slots=True)
class Located:
    """Where a quote is in one text (code points), before any mapping to bytes.

    Attributes:
        outcome: ``quote_match``, ``normalized_match``, ``quote_mismatch``,
            ``ambiguous``, ``unresolved_range`` or ``located``.
        start, end: end-exclusive code points of the text, or ``None``.
        policy: the policy applied (:data:`~provgraph.normalize.EXACT` for exact matches).
        reason: why.
        in_text: for a mismatch, whether the quote occurs anywhere in the text
            (exactly or under the policy); ``None`` when not looked at.
    """

    outcome: str
    start: int | None
    end: int | None
    policy: Policy
    reason: str
    in_text: bool | None = None


_ZWJ = "\u200d"
_MARKS = frozenset({"Mn", "Me", "Mc"})


def _extends(ch: str) -> bool:
    """Whether ``ch`` continues the character before it (UAX #29 Extend, SpacingMark
    and ZWJ): combining marks, the zero width joiner, variation selectors, emoji
    skin-tone modifiers and emoji tag characters."""
    if ch < "\u0300":
        return False
    cp = ord(ch)
    return (unicodedata.combining(ch) != 0 or unicodedata.category(ch) in _MARKS or ch == _ZWJ
            or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF or 0x1F3FB <= cp <= 0x1F3FF
            or 0xE0020 <= cp <= 0xE007F)


def _is_ri(ch: str) -> bool:
    return "\U0001F1E6" <= ch <= "\U0001F1FF"


def _inside_sequence(text: str, i: int) -> str:
    """Why position ``i`` of ``text`` is inside a character sequence, or ``""``."""
    if i <= 0 or i >= len(text):
        return ""
    a, b = text[i - 1], text[i]
    if a == "\r" and b == "\n":
        return "it splits a CR LF line end"
    if b < "\u0300" and a != _ZWJ:
        return ""
    if _extends(b):
        return f"{_char_label(a)} is followed by {_char_label(b)}"
    if a == _ZWJ:
        return f"a zero width joiner (U+200D) joins {_char_label(b)} to the character before it"
    if "\u1160" <= b <= "\u11ff" or "\ud7b0" <= b <= "\ud7ff":
        if "\u1100" <= a <= "\u11ff" or "\ua960" <= a <= "\ua97f" or "\uac00" <= a <= "\ud7ff":
            return f"the Hangul jamo {_char_label(b)} continues the syllable before it"
    if _is_ri(a) and _is_ri(b):
        k = i - 1
        while k > 0 and _is_ri(text[k - 1]):
            k -= 1
        if (i - k) % 2 == 1:
            return "it splits a pair of regional indicator symbols (a flag)"
    return ""


def cluster_break_problem(text: str, start: int, end: int) -> str:
    """``""`` when ``text[start:end]`` starts and ends between user-perceived characters,
    else why not (``"it ends inside a character sequence: ..."``).

    The boundaries are those of extended grapheme clusters (Unicode UAX #29), as far
    as they matter for a quotation: not before a combining mark (any character with a
    canonical combining class, or of category Mn, Me or Mc), a zero width joiner, a
    variation selector, an emoji skin-tone modifier or tag character; not after a
    zero width joiner; not between the parts of a decomposed Hangul syllable, of a
    regional-indicator pair (a flag) or of a CR LF line end.

    >>> cluster_break_problem("Le cafe\u0301 est bon.", 3, 7)
    "it ends inside a character sequence: 'e' (U+0065 LATIN SMALL LETTER E) is followed by '\u0301' (U+0301 COMBINING ACUTE ACCENT)"
    >>> cluster_break_problem("Le cafe\u0301 est bon.", 3, 8)
    ''
    """
    for pos, edge in ((end, "ends"), (start, "starts")):
        why = _inside_sequence(text, pos)
        if why:
            return f"it {edge} inside a character sequence: {why}"
    return ""


def _snip(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit - 1] + "\u2026")


def _normalized(src: SourceText, policy: Policy) -> NormalizedText:
    return src.cached(("normalized", policy.label), lambda: policy.normalize(src.text))


def _context_ok(hay: str, s: int, e: int, pre: str, suf: str, exact: bool) -> bool:
    if exact:
        return (not pre or hay.endswith(pre, 0, s)) and (not suf or hay.startswith(suf, e))
    if pre:
        before = hay[max(0, s - len(pre) - 2):s].rstrip(" ")
        if not before.endswith(pre.rstrip(" ")):
            return False
    if suf:
        after = hay[e:e + len(suf) + 2].lstrip(" ")
        if not after.startswith(suf.lstrip(" ")):
            return False
    return True


def _context_note(hay: str, s: int, e: int, prefix: str | None, suffix: str | None,
                  policy: Policy) -> str:
    if not prefix and not suffix:
        return ""
    pre = policy.normalize_context(prefix) if prefix else ""
    suf = policy.normalize_context(suffix) if suffix else ""
    if _context_ok(hay, s, e, pre, suf, policy is EXACT):
        return "; the prefix and suffix agree"
    return "; note: the given prefix or suffix does not match the text around it"


def _spans_text(spans: list[tuple[int, int, int, int]], limit: int = 5) -> str:
    shown = ", ".join(f"[{o}, {p})" for _, _, o, p in spans[:limit])
    return shown + (f" and {len(spans) - limit} more" if len(spans) > limit else "")


def _decide(hay: str, spans: list[tuple[int, int, int, int]], prefix: str | None,
            suffix: str | None, policy: Policy, ok: str, how: str,
            requested: Policy | None = None) -> Located:
    """Pick one of several occurrences (normalized start/end, original start/end); an
    ambiguous result reports the ``requested`` policy."""
    if len(spans) == 1:
        ns, ne, os_, oe = spans[0]
        return Located(ok, os_, oe, policy, f"the quote occurs once{how}, at code points "
                       f"[{os_}, {oe})" + _context_note(hay, ns, ne, prefix, suffix, policy))
    count = f"{len(spans)}{'+' if len(spans) >= _MAX_HITS else ''} times"
    if prefix or suffix:
        pre = policy.normalize_context(prefix) if prefix else ""
        suf = policy.normalize_context(suffix) if suffix else ""
        good = [sp for sp in spans if _context_ok(hay, sp[0], sp[1], pre, suf, policy is EXACT)]
        if len(good) == 1:
            _, _, os_, oe = good[0]
            return Located(ok, os_, oe, policy, f"the quote occurs {count}{how}; the prefix and "
                           f"suffix select the one at code points [{os_}, {oe})")
        detail = (f"{len(good)} of them have the given prefix and suffix" if good
                  else "none of them has the given prefix and suffix")
    else:
        detail = "no prefix or suffix was given"
    return Located("ambiguous", None, None, requested or policy,
                   f"the quote occurs {count}{how} (at code points {_spans_text(spans)}); "
                   f"{detail}: give a prefix, suffix or range to choose one")


def _decide_mixed(text: str, ntext: str, quote: str, hits: list[int],
                  spans: list[tuple[int, int, int, int]], prefix: str | None,
                  suffix: str | None, policy: Policy) -> Located:
    """Choose among exact occurrences (``hits``) and occurrences under ``policy``
    (``spans``: normalized start/end, original start/end) of one quote.

    An occurrence whose context agrees with the prefix and suffix (compared under the
    policy) is better than one whose context does not; among equals, an exact occurrence
    is better than a normalized one. One best occurrence is the match; several equally
    good ones are ``ambiguous``. Issue 15: the context used to be ignored as soon as one
    exact occurrence existed.
    """
    n = len(quote)
    pre = policy.normalize_context(prefix) if prefix else ""
    suf = policy.normalize_context(suffix) if suffix else ""
    cands: dict[tuple[int, int], tuple[bool, bool]] = {}  # span -> (context agrees, exact)
    for ns, ne, os_, oe in spans:
        cands[(os_, oe)] = (_context_ok(ntext, ns, ne, pre, suf, False), text[os_:oe] == quote)
    for h in hits:
        if (h, h + n) not in cands:
            ok = _context_ok(text, h, h + n, prefix or "", suffix or "", True)
            cands[(h, h + n)] = (ok, True)
    rank = max(cands.values())
    best = sorted(span for span, r in cands.items() if r == rank)
    exact_n = sum(1 for _, ex in cands.values() if ex)
    count = (f"the quote occurs {len(cands)} times ({exact_n} exactly, {len(cands) - exact_n} "
             f"only under {policy.label})")
    context = bool(prefix or suffix)
    if len(best) > 1:
        detail = ("; " + (f"{len(best)} of them have the given prefix and suffix" if rank[0]
                          else "none of them has the given prefix and suffix") if context
                  else "")
        shown = ", ".join(f"[{s}, {e})" for s, e in best[:5])
        return Located("ambiguous", None, None, policy,
                       f"{count}{detail}; equally good at code points {shown}: give a prefix, "
                       "suffix or range to choose one")
    (os_, oe), (ok, exact) = best[0], rank
    if context and ok:
        why = "the prefix and suffix select"
    elif context:
        why = ("note: the given prefix or suffix matches none of them; the exact occurrence "
               "is")
    else:
        why = "no prefix or suffix was given; the exact occurrence is"
    if exact:
        return Located("quote_match", os_, oe, EXACT,
                       f"{count}; {why} the one at code points [{os_}, {oe})")
    return Located("normalized_match", os_, oe, policy,
                   f"{count}; {why} the one at code points [{os_}, {oe}) under {policy.label} "
                   "(not exactly)")


class _WordIndex:
    """Where each word starts in a text, keyed by its first :attr:`K` code points.

    Every occurrence of a quote that contains a word start at offset ``j >= 1``
    (a non-word character followed by a word character, Python ``re`` ``\\w``)
    puts a word start of the text at ``p + j`` with the same ``K`` characters, so
    looking up the quote's rarest such key and verifying each candidate finds
    *all* occurrences without scanning the text. Quotes without such a key
    (one word, or shorter than ``K`` after their last word start) are scanned.
    """

    K = 4
    __slots__ = ("text", "keys")

    def __init__(self, text: str) -> None:
        keys: dict[str, list[int]] = {}
        k = self.K
        for m in _WORD_START.finditer(text):
            i = m.start()
            key = text[i:i + k]
            got = keys.get(key)
            if got is None:
                keys[key] = [i]
            else:
                got.append(i)
        self.text = text
        self.keys = keys

    def find_all(self, q: str, lo: int, hi: int) -> list[int] | None:
        best: tuple[int, list[int]] | None = None
        k = self.K
        for m in _WORD_START.finditer(q, 1):
            j = m.start()
            if len(q) - j < k:
                break
            cands = self.keys.get(q[j:j + k])
            if cands is None:
                return []
            if best is None or len(cands) < len(best[1]):
                best = (j, cands)
                if len(cands) <= 2:
                    break
        if best is None:
            return None
        j, cands = best
        text, n, out = self.text, len(q), []
        for i in cands:
            p = i - j
            if p >= lo and p + n <= hi and text.startswith(q, p):
                out.append(p)
                if len(out) >= _MAX_HITS:
                    break
        return out


_WORD_START = re.compile(r"\b\w")
_INDEX_MIN_CHARS = 2048


@dataclass
class _IndexState:
    """Per source text and key: searches so far, and the word index once built."""

    searches: int = 0
    index: _WordIndex | None = None


def _find_all(text: str, q: str, lo: int, hi: int, src: SourceText, key: str) -> list[int]:
    """Start offsets of every occurrence of ``q`` inside ``text[lo:hi]`` (at most
    ``_MAX_HITS``). From the second search of a long text on, a :class:`_WordIndex`
    of it (cached on ``src``) replaces the scan."""
    if len(text) >= _INDEX_MIN_CHARS:
        state = src.cached(("index", key), _IndexState)
        if state.index is None:
            state.searches += 1
            if state.searches >= 2:
                state.index = _WordIndex(text)
        if state.index is not None:
            got = state.index.find_all(q, lo, hi)
            if got is not None:
                return got
    out: list[int] = []
    i = text.find(q, lo, hi)
    while i != -1 and len(out) < _MAX_HITS:
        out.append(i)
        i = text.find(q, i + 1, hi)
    return out


def search(src: SourceText, quote: str, prefix: str | None = None, suffix: str | None = None,
           policy: Policy = EXACT, lo: int = 0, hi: int | None = None) -> Located:
    """Find ``quote`` in ``src.text[lo:hi]``: exactly first, then under ``policy``.

    Every occurrence is found (up to 10,000), by scanning or, for repeated searches
    of a long text, through an index built once per source and policy.

    Args:
        src: the text searched.
        quote: the quoted text (not empty).
        prefix, suffix: context that chooses among several occurrences.
        policy: tried when the exact search finds nothing.
        lo, hi: only occurrences inside code points ``[lo, hi)`` count
            (``hi=None``: the end of the text).

    Returns a :class:`Located` with outcome ``quote_match``, ``normalized_match``,
    ``ambiguous`` or ``quote_mismatch`` (``in_text=False``).
    """
    text = src.text
    if hi is None:
        hi = len(text)
    n = len(quote)
    hits = _find_all(text, quote, lo, hi, src, "exact")
    split: list[tuple[int, int, str]] = []
    if hits and (not src._ascii or quote[:1] == "\n" or quote[-1:] == "\r"):
        kept = []
        for h in hits:
            why = cluster_break_problem(text, h, h + n)
            if why:
                split.append((h, h + n, why))
            else:
                kept.append(h)
        hits = kept
    spans: list[tuple[int, int, int, int]] = []
    nt: NormalizedText | None = None
    if policy is not EXACT and (not hits or prefix or suffix):
        nq = policy.normalize_quote(quote)
        if nq:
            nt = _normalized(src, policy)
            for i in _find_all(nt.text, nq, 0, len(nt.text), src, policy.label):
                m = nt.to_original(i, i + len(nq))
                if m is not None and lo <= m[0] and m[1] <= hi:
                    why = cluster_break_problem(text, m[0], m[1])
                    if why:
                        split.append((m[0], m[1], why))
                    else:
                        spans.append((i, i + len(nq), m[0], m[1]))
    if hits and nt is not None and any(text[o:e] != quote for _, _, o, e in spans):
        # issue 15: the context chooses between exact and normalized occurrences alike
        return _decide_mixed(text, nt.text, quote, hits, spans, prefix, suffix, policy)
    if len(hits) == 1:
        first = hits[0]
        note = _context_note(text, first, first + n, prefix, suffix, EXACT) if (prefix or suffix) else ""
        return Located("quote_match", first, first + n, EXACT,
                       f"the quote occurs once, at code points [{first}, {first + n})" + note)
    if hits:
        return _decide(text, [(h, h + n, h, h + n) for h in hits], prefix, suffix, EXACT,
                       "quote_match", "", policy)
    if spans and nt is not None:
        return _decide(nt.text, spans, prefix, suffix, policy, "normalized_match",
                       f" under {policy.label} (not exactly)")
    where = " in the text" if (lo, hi) == (0, len(text)) else f" within code points [{lo}, {hi})"
    under = "" if policy is EXACT else f", exactly or under {policy.label}"
    if split:
        s0, e0, why = split[0]
        more = f" (and {len(split) - 1} more such places)" if len(split) > 1 else ""
        return Located("quote_mismatch", None, None, policy,
                       f"the quote does not occur{where}{under} as whole characters: the quote "
                       f"occurs at code points [{s0}, {e0}), but {why}, so the text there is "
                       f"not the quoted text{more}", in_text=False)
    return Located("quote_mismatch", None, None, policy,
                   f"the quote does not occur{where}{under}", in_text=False)


def _unit_hint(src: SourceText, quote: str, start: int, end: int, unit: str,
               end_inclusive: bool, policy: Policy) -> str:
    if unit not in TEXT_UNITS:
        return ""
    target = policy.normalize_quote(quote) if policy is not EXACT else quote
    found = []
    options = [(u, end_inclusive) for u in TEXT_UNITS if u != unit]
    options += [(unit, not end_inclusive)] + [(u, not end_inclusive) for u in TEXT_UNITS if u != unit]
    for u, inc in options:
        try:
            cs, ce = src.span(start, end, u, inc)
        except OffsetError:
            continue
        seg = src.text[cs:ce]
        if seg == quote or (policy is not EXACT and policy.normalize_quote(seg) == target):
            conv = "" if inc == end_inclusive else (" with an inclusive end" if inc else
                                                    " with an exclusive end")
            found.append(f"read as {u} offsets{conv}, the range gives the quote (code points "
                         f"[{cs}, {ce}))")
    if not found:
        return ""
    mixup = ""
    if {unit, found[0].split()[2]} == {"codepoint", "utf16_unit"}:
        mixup = ": a UTF-16 versus code point mix-up"
    return "; " + "; ".join(found) + mixup


def locate(src: SourceText, quote: str | None = None, *, start: int | None = None,
           end: int | None = None, unit: str = "codepoint", end_inclusive: bool = False,
           prefix: str | None = None, suffix: str | None = None,
           policy: Policy = EXACT) -> Located:
    """Check a quote and/or range against one text (see the module docstring).

    Args:
        src: the text the citation addresses.
        quote: the quoted text (``oa:exact``), or ``None``.
        start, end: the range in ``unit``, both or neither.
        unit: any of :data:`provgraph.vocab.UNITS`.
        end_inclusive: ``end`` names the last unit of the range.
        prefix, suffix: the text just before and after the quote (W3C
            ``oa:TextQuoteSelector``), used to choose among occurrences.
        policy: the normalization policy tried after exact comparison.

    Raises:
        ResolutionError: an empty quote, one range bound without the other, or an
            unknown unit.
    """
    if quote is not None and quote == "":
        raise ResolutionError("the quote is empty; give the quoted text, or leave it out")
    if (start is None) != (end is None):
        raise ResolutionError("give both start and end of the range, or neither")
    if start is None or end is None:
        if quote is None:
            return Located("located", 0, len(src.text), policy,
                           f"no quote given; the citation covers the whole text, code points "
                           f"[0, {len(src.text)})")
        return search(src, quote, prefix, suffix, policy)
    try:
        cs, ce = src.span(start, end, unit, end_inclusive)
    except OffsetError as exc:
        if exc.kind == "unknown_unit":
            raise ResolutionError(str(exc)) from None
        hint = _unit_hint(src, quote, start, end, unit, end_inclusive, policy) if quote else ""
        return Located("unresolved_range", None, None, policy, str(exc) + hint)
    shown = f"[{start}, {end}]" if end_inclusive else f"[{start}, {end})"
    if unit in LOCATOR_UNITS:
        where = f"{unit}s {shown} (code points [{cs}, {ce}))"
        if quote is None:
            return Located("located", cs, ce, policy, f"no quote given; the citation covers {where}")
        found = search(src, quote, prefix, suffix, policy, cs, ce)
        if found.outcome != "quote_mismatch":
            return Located(found.outcome, found.start, found.end, found.policy,
                           f"within {where}: {found.reason}")
        anywhere = search(src, quote, prefix, suffix, policy)
        extra = ("; it does occur elsewhere in the source" if anywhere.outcome != "quote_mismatch"
                 else "; it occurs nowhere in the source")
        return Located("quote_mismatch", None, None, policy,
                       f"the quote does not occur within {where}{extra}",
                       in_text=anywhere.outcome != "quote_mismatch")
    if quote is None:
        return Located("located", cs, ce, policy,
                       f"no quote given; the range {unit} {shown} is code points [{cs}, {ce})")
    seg = src.text[cs:ce]
    exact = seg == quote
    if exact or (policy is not EXACT and policy.normalize_quote(seg) == policy.normalize_quote(quote)):
        why = cluster_break_problem(src.text, cs, ce)
        if why:
            return Located("quote_mismatch", None, None, policy,
                           f"the range {unit} {shown} (code points [{cs}, {ce})) holds the quote"
                           f"{'' if exact else ' under ' + policy.label}, but {why}, so the text "
                           "there is not the quoted text", in_text=False)
    if exact:
        note = _context_note(src.text, cs, ce, prefix, suffix, EXACT) if (prefix or suffix) else ""
        return Located("quote_match", cs, ce, EXACT,
                       f"the quote is exactly the text at code points [{cs}, {ce})" + note)
    if policy is not EXACT and policy.normalize_quote(seg) == policy.normalize_quote(quote):
        return Located("normalized_match", cs, ce, policy,
                       f"under {policy.label} the quote equals the text at code points "
                       f"[{cs}, {ce}), which differs exactly")
    reason = f"the range {unit} {shown} (code points [{cs}, {ce})) holds {_snip(seg)}, not the quote"
    reason += _unit_hint(src, quote, start, end, unit, end_inclusive, policy)
    elsewhere = search(src, quote, prefix, suffix, policy)
    if elsewhere.start is not None:
        reason += f"; the quote occurs at code points [{elsewhere.start}, {elsewhere.end})"
    elif elsewhere.outcome == "ambiguous":
        reason += "; the quote occurs several times elsewhere"
    else:
        reason += "; the quote occurs nowhere in the text"
    return Located("quote_mismatch", None, None, policy, reason,
                   in_text=elsewhere.outcome != "quote_mismatch")


def check_quote(source: SourceText | bytes | str, quote: str, *, start: int | None = None,
                end: int | None = None, unit: str = "codepoint", end_inclusive: bool = False,
                prefix: str | None = None, suffix: str | None = None,
                policy: str | Policy = "exact") -> Resolution:
    """Check one quotation against one source, with no store (``provgraph check-quote``).

    Args:
        source: a :class:`~provgraph.offsets.SourceText` (build it once and reuse
            it for many checks: decoding and offset tables are computed once),
            UTF-8 bytes (a BOM is allowed), or a ``str``.
        quote: the quoted text; must not be empty.
        start, end: optional range in ``unit`` (both or neither); for ``page``
            numbers from 1, for ``block`` indices from 0.
        unit: ``utf8_byte``, ``codepoint`` (default), ``utf16_unit``, ``page`` or ``block``.
            ``utf8_byte`` offsets count the BOM; ``codepoint`` and ``utf16_unit``
            offsets index the decoded text without it.
        end_inclusive: ``end`` names the last unit of the range (default: exclusive).
        prefix, suffix: context before and after the quote (W3C TextQuoteSelector).
        policy: ``exact`` (default), ``nfc``, ``whitespace`` or ``fold``.

    Returns:
        :class:`Resolution`; ``snapshot`` is the RFC 6920 name of the source
        bytes, offsets are end-exclusive into those bytes and the decoded text.

    Raises:
        ResolutionError: empty quote, unknown policy or unit, one bound without
            the other; :class:`~provgraph.errors.SourceDecodeError` when
            ``source`` is bytes that are not UTF-8.

    Example:
        >>> src = SourceText.from_bytes(b"\\xef\\xbb\\xbfThe interval is 12 months.\\r\\nSee annex.")
        >>> r = check_quote(src, "12 months")
        >>> r.outcome, r.byte_start, r.byte_end, r.codepoint_start, r.codepoint_end
        ('quote_match', 19, 28, 16, 25)
        >>> check_quote(src, "months. See", policy="whitespace").outcome
        'normalized_match'
        >>> check_quote(src, "12 months", start=16, end=24, end_inclusive=True).outcome
        'quote_match'
    """
    if not isinstance(source, SourceText):
        source = (SourceText.from_bytes(source) if isinstance(source, (bytes, bytearray))
                  else SourceText.from_text(source))
    pol = policy if isinstance(policy, Policy) else get_policy(policy)
    if not quote:
        raise ResolutionError("the quote is empty; give the quoted text")
    loc = locate(source, quote, start=start, end=end, unit=unit, end_inclusive=end_inclusive,
                 prefix=prefix, suffix=suffix, policy=pol)
    snap = source.cached("ni", lambda: ids.snapshot_iri(source.sha256))
    if loc.start is None or loc.end is None:
        return Resolution(outcome=loc.outcome, reason=loc.reason, policy=loc.policy.name,
                          policy_version=loc.policy.version, snapshot=snap)
    bs, be = source.byte_span(loc.start, loc.end)
    return Resolution(outcome=loc.outcome, reason=loc.reason, policy=loc.policy.name,
                      policy_version=loc.policy.version, byte_start=bs, byte_end=be,
                      codepoint_start=loc.start, codepoint_end=loc.end, snapshot=snap,
                      text=source.text[loc.start:loc.end])
