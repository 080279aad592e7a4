"""Retrieval, context packing and the deterministic extractive reader of the demo.

Nothing here records anything: these are the pipeline's pure steps, and
:mod:`provgraph.demo.pipeline` records what they did.

* :class:`Index` is rank-bm25's ``BM25Okapi`` over the indexed representations
  (contextual prefix + chunk + generated question).
* :func:`pack` builds the exact prompt: an instruction, the question, then for
  each hit in rank order ``[n]`` with its contextual prefix (generated text) and
  its chunk (original text), until the token budget (whitespace tokens) is spent;
  hits that do not fit are omitted.
* :func:`read` is an extractive reader standing in for a language model. It
  looks at the sentences of the packed sources, keeps those that contain every
  *focus* phrase of the question (the question's answer constraint), and picks
  the one that shares the most question terms, weighted by BM25 idf. With no
  such sentence it abstains ("not stated in the sources"). Its answer form
  (quotation, paraphrase, calculation) is the one the question asks for. In
  the labelled stress condition it reads generated prefix text as if it were
  source text, the failure mode the resolver must catch.

Offsets are end-exclusive code points.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rank_bm25 import BM25Okapi

from .generator import tokens

__all__ = ["Question", "Index", "Packed", "CitePlan", "ClaimPlan", "AnswerPlan", "pack", "read",
           "best_sentence",
           "READER", "PROMPT_TEMPLATE", "INSTRUCTION", "TOKEN_BUDGET", "TOP_K"]

READER = ("provgraph-demo-extractive-reader", "1.0")
"""The answer generator ``(name, version)``: a deterministic extractive reader, not a model."""
PROMPT_TEMPLATE = ("provgraph-demo-qa-prompt", "1.0")
INSTRUCTION = ("Answer the question from the numbered sources only. Quote them exactly and cite "
               "the source number; when they do not answer it, say it is not stated in the sources.")
TOKEN_BUDGET = 560
"""Prompt budget in whitespace-separated tokens."""
TOP_K = 6
"""Hits retrieved per question."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


@dataclass(frozen=True, slots=True, kw_only=True)
class Question:
    """One question of ``questions.yaml``."""

    id: str
    text: str
    expect: str
    focus: tuple[str, ...] = ()
    operation: str | None = None
    page: str | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """What the index holds for one chunk: keys of its chunk, aids and indexed text."""

    key: str
    indexed_text: str
    chunk_text: str
    prefix_text: str
    page: str
    title: str


class Index:
    """BM25 (rank-bm25 ``BM25Okapi``, k1=1.5, b=0.75) over indexed representations."""

    def __init__(self, entries: Sequence[IndexEntry]) -> None:
        self.entries = list(entries)
        self.bm25 = BM25Okapi([tokens(e.indexed_text) for e in self.entries])
        digest = hashlib.sha256("\n".join(e.key for e in self.entries).encode()).hexdigest()[:16]
        self.version = f"bm25okapi-k1=1.5-b=0.75:{len(self.entries)}:{digest}"

    def search(self, text: str, k: int = TOP_K) -> list[tuple[int, float]]:
        """``(entry index, score)`` of the ``k`` best entries, best first (ties: index order)."""
        scores = self.bm25.get_scores(tokens(text))
        order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
        return [(i, round(float(scores[i]), 6)) for i in order[:k]]

    def idf(self, token: str) -> float:
        """BM25 idf of ``token`` (0 for unknown tokens)."""
        return float(self.bm25.idf.get(token, 0.0))


@dataclass(slots=True)
class Packed:
    """The generator input: exact text, segments ``(start, end, origin, key)`` where
    ``key`` is ``("chunk"|"prefix", entry index)`` or ``None``, and per source number
    the entry index and where its prefix and chunk sit in the text."""

    text: str
    segments: list[tuple[int, int, str, tuple[str, int] | None]]
    sources: dict[int, int]
    included: list[int]
    omitted: list[int]


def pack(question: str, hits: Sequence[int], index: Index, budget: int = TOKEN_BUDGET) -> Packed:
    """Pack hits (entry indices, rank order) into the prompt under ``budget`` tokens."""
    parts: list[str] = []
    segs: list[tuple[int, int, str, tuple[str, int] | None]] = []
    pos = 0

    def add(text: str, origin: str, key: tuple[str, int] | None) -> None:
        nonlocal pos
        parts.append(text)
        segs.append((pos, pos + len(text), origin, key))
        pos += len(text)

    add(INSTRUCTION + "\n\nQuestion: ", "instruction", None)
    add(question, "query", None)
    add("\n\nSources:\n", "instruction", None)
    used = len(" ".join(parts).split())
    sources: dict[int, int] = {}
    included: list[int] = []
    omitted: list[int] = []
    for i in hits:
        e = index.entries[i]
        cost = len(e.prefix_text.split()) + len(e.chunk_text.split()) + 1
        if used + cost > budget:
            omitted.append(i)
            continue
        used += cost
        n = len(included) + 1
        add(f"\n[{n}] ", "instruction", None)
        add(e.prefix_text, "generated", ("prefix", i))
        add("\n", "instruction", None)
        add(e.chunk_text, "original", ("chunk", i))
        add("\n", "instruction", None)
        sources[n] = i
        included.append(i)
    return Packed(text="".join(parts), segments=segs, sources=sources, included=included,
                  omitted=omitted)


@dataclass(frozen=True, slots=True, kw_only=True)
class CitePlan:
    """A citation as the reader writes it: target ``("chunk"|"prefix", entry index)``,
    code point range in the target's own text, and the quoted text (or ``None``)."""

    target: tuple[str, int]
    start: int
    end: int
    quote: str | None
    prefix: str | None = None
    suffix: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimPlan:
    """A claim the reader makes: code points ``[start, end)`` of the answer."""

    start: int
    end: int
    kind: str
    status: str
    citations: tuple[CitePlan, ...] = ()
    operands: tuple[int, ...] = ()
    warrant: str | None = None


@dataclass(slots=True)
class AnswerPlan:
    """The answer text and its claims, in answer order."""

    text: str
    claims: list[ClaimPlan] = field(default_factory=list)
    abstained: bool = False


@dataclass(frozen=True, slots=True)
class _Sentence:
    number: int
    key: tuple[str, int]
    start: int
    end: int
    text: str


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence ranges of ``text``: blocks split at blank lines, then at sentence ends.

    >>> t = "Title\\n\\nOne here. Two\\nthere."
    >>> [t[s:e] for s, e in sentences(t)]
    ['Title', 'One here.', 'Two\\nthere.']
    """
    out: list[tuple[int, int]] = []
    bounds = [0]
    for m in re.finditer(r"\n[ \t]*\n", text):
        bounds += [m.start(), m.end()]
    bounds.append(len(text))
    for b0, b1 in zip(bounds[::2], bounds[1::2]):
        body = text[b0:b1]
        lead = len(body) - len(body.lstrip())
        start = lead
        for m in _SENTENCE_END.finditer(body, lead):
            out.append((b0 + start, b0 + m.start()))
            start = m.end()
        out.append((b0 + start, b0 + len(body.rstrip())))
    return [(s, e) for s, e in out if text[s:e].strip()]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _candidates(packed: Packed, index: Index, generated_too: bool) -> list[_Sentence]:
    out = []
    for n, i in packed.sources.items():
        e = index.entries[i]
        texts = [("chunk", e.chunk_text)]
        if generated_too:
            texts.insert(0, ("prefix", e.prefix_text))
        for kind, text in texts:
            for s, t in sentences(text):
                out.append(_Sentence(n, (kind, i), s, t, text[s:t]))
    return out


def _has_focus(text: str, focus: Sequence[str]) -> bool:
    """Every focus phrase occurs in ``text`` as whole words, ignoring case and line breaks."""
    low = _norm(text).lower()
    return all(re.search(r"(?<!\w)" + re.escape(f.lower()) + r"(?!\w)", low) for f in focus)


def _best(cands: Sequence[_Sentence], question: Question, index: Index,
          focus: Sequence[str]) -> _Sentence | None:
    q = set(tokens(question.text))
    best: tuple[float, int, int] | None = None
    pick = None
    for c in cands:
        if not _has_focus(c.text, focus):
            continue
        score = sum(index.idf(t) for t in q & set(tokens(c.text)))
        key = (-score, c.number, c.start)
        if best is None or key < best:
            best, pick = key, c
    return pick


def best_sentence(question: Question, blocks: Sequence[str], index: Index
                  ) -> tuple[int, int, int, str] | None:
    """The sentence :func:`read` would pick from ``blocks`` (texts in prompt order):
    ``(block position from 0, start, end, text)`` with code point offsets into its block,
    or ``None`` when no sentence holds every focus phrase of ``question``. Ties go to the
    earlier block and sentence; idf comes from ``index``."""
    cands = [_Sentence(n, ("block", n), s, e, text[s:e])
             for n, text in enumerate(blocks) for s, e in sentences(text)]
    pick = _best(cands, question, index, question.focus)
    return None if pick is None else (pick.number, pick.start, pick.end, pick.text)


def _cite(c: _Sentence, index: Index, quote: bool) -> CitePlan:
    e = index.entries[c.key[1]]
    text = e.chunk_text if c.key[0] == "chunk" else e.prefix_text
    return CitePlan(target=c.key, start=c.start, end=c.end,
                    quote=_norm(c.text) if quote else None,
                    prefix=text[max(0, c.start - 32):c.start] or None,
                    suffix=text[c.end:c.end + 32] or None)


_CONNECTIVES = re.compile(r"^(?:However|So|Generally|Basically|Note that|Typically|Usually|"
                          r"Also|Instead|Otherwise|In that case|For example),?\s+", re.I)
_SWAPS = ((r"\byourself\b", "oneself"), (r"\byou do\b", "one does"), (r" for you\b", ""),
          (r"\byou'll\b", "one will"), (r"\byou're\b", "one is"), (r"\byou\b", "one"),
          (r"\byour\b", "one's"), (r"\bdon't\b", "do not"), (r"\bwon't\b", "will not"),
          (r"\bcan't\b", "cannot"), (r"\bit's\b", "it is"), (r"\bDo not\b", "One should not"))


def paraphrase(sentence: str) -> str:
    """A deterministic restatement: connectives and parentheticals dropped, second
    person made impersonal, contractions expanded.

    >>> paraphrase("However, you can't (usually) change it.")
    'In short, one cannot change it.'
    """
    s = _CONNECTIVES.sub("", _norm(sentence))
    s = re.sub(r"\s*\([^()]*\)", "", s)
    for pat, rep in _SWAPS:
        s = re.sub(pat, rep, s)
    s = s.rstrip(".:;")
    return "In short, " + s[:1].lower() + s[1:] + "."


def _abstain(question: Question, packed: Packed) -> AnswerPlan:
    text = (f"Not stated in the sources: none of the {len(packed.included)} passages retrieved "
            "for this question answers it.")
    return AnswerPlan(text=text, claims=[ClaimPlan(start=0, end=len(text), kind="abstention",
                                                   status="uncertain")], abstained=True)


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0

    def put(self, text: str) -> tuple[int, int]:
        start = self.pos
        self.parts.append(text)
        self.pos += len(text)
        return start, self.pos

    @property
    def text(self) -> str:
        return "".join(self.parts)


def read(question: Question, packed: Packed, index: Index) -> AnswerPlan:
    """Answer ``question`` from the packed sources (see the module docstring).

    Raises:
        ValueError: an unknown ``expect`` or ``operation`` in the question.
    """
    stress = question.expect == "stress_generated"
    cands = _candidates(packed, index, generated_too=stress)
    if question.expect == "derivation":
        return _derive(question, packed, index, cands)
    if question.expect not in ("quotation", "paraphrase", "abstention", "stress_generated"):
        raise ValueError(f"question {question.id}: unknown expect {question.expect!r}")
    pick = _best(cands, question, index, question.focus)
    if pick is None:
        return _abstain(question, packed)
    w = _Writer()
    title = index.entries[pick.key[1]].title
    if question.expect == "paraphrase":
        span = w.put(paraphrase(pick.text))
        w.put(f" [{pick.number}]")
        claim = ClaimPlan(start=span[0], end=span[1], kind="paraphrase", status="supported",
                          citations=(_cite(pick, index, quote=False),))
        return AnswerPlan(text=w.text, claims=[claim])
    w.put(f'The "{title}" page says: "')
    span = w.put(_norm(pick.text))
    w.put(f'" [{pick.number}]')
    claim = ClaimPlan(start=span[0], end=span[1], kind="quotation", status="supported",
                      citations=(_cite(pick, index, quote=True),))
    return AnswerPlan(text=w.text, claims=[claim])


_VERSION = re.compile(r"\b\d+\.\d+(?:\.\d+)?\b")
_DATE = re.compile(r"Released (\d{4})-(\d{2})-(\d{2})")


def _derive(question: Question, packed: Packed, index: Index,
            cands: Sequence[_Sentence]) -> AnswerPlan:
    w = _Writer()
    claims: list[ClaimPlan] = []
    if question.operation == "days_between":
        found: list[tuple[str, _Sentence, dt.date]] = []
        for version in _VERSION.findall(question.text):
            heading = [c for c in cands if _norm(c.text) == f"Version {version}"]
            if not heading:
                return _abstain(question, packed)
            h = heading[0]
            after = [c for c in cands if c.key == h.key and c.start > h.start and _DATE.search(c.text)]
            if not after:
                return _abstain(question, packed)
            c = min(after, key=lambda x: x.start)
            date = _DATE.search(c.text)
            assert date is not None  # `after` holds only texts _DATE matches
            y, m, d = (int(g) for g in date.groups())
            found.append((version, c, dt.date(y, m, d)))
        if len(found) != 2:
            return _abstain(question, packed)
        (va, ca, da), (vb, cb, db) = found
        for i, (v, c, _) in enumerate(found):
            w.put(f"Flask {v} was ")
            w.put('"')
            span = w.put(_norm(c.text))
            w.put(f'" [{c.number}]')
            w.put(" and " if i == 0 else "; ")
            claims.append(ClaimPlan(start=span[0], end=span[1], kind="quotation", status="supported",
                                    citations=(_cite(c, index, quote=True),)))
        days = abs((db - da).days)
        span = w.put(f"{days} days passed between the two releases")
        w.put(".")
        claims.append(ClaimPlan(
            start=span[0], end=span[1], kind="derivation", status="supported", operands=(0, 1),
            warrant=(f"calendar days between ISO 8601 dates: |{db.isoformat()} - {da.isoformat()}| "
                     f"= {days} days")))
        return AnswerPlan(text=w.text, claims=claims)
    if question.operation == "days_to_seconds":
        pick = _best(cands, question, index, question.focus)
        hit = re.search(r"timedelta\(days=(\d+)\)\D*(\d+) seconds", pick.text) if pick else None
        if pick is None or hit is None:
            return _abstain(question, packed)
        days, stated = int(hit.group(1)), int(hit.group(2))
        w.put("The documentation gives \"")
        span = w.put(_norm(pick.text))
        w.put(f'" [{pick.number}]; ')
        claims.append(ClaimPlan(start=span[0], end=span[1], kind="quotation", status="supported",
                                citations=(_cite(pick, index, quote=True),)))
        total = days * 86400
        verdict = "matches" if total == stated else "does not match"
        span = w.put(f"{days} days x 86400 seconds per day = {total} seconds, which {verdict} "
                     f"the stated {stated} seconds")
        w.put(".")
        claims.append(ClaimPlan(start=span[0], end=span[1], kind="derivation",
                                status="supported" if total == stated else "unsupported",
                                operands=(0,), warrant=f"{days} d x 86400 s/d = {total} s; "
                                f"compared with the stated {stated} s"))
        return AnswerPlan(text=w.text, claims=claims)
    raise ValueError(f"question {question.id}: unknown operation {question.operation!r}")


def question_from(data: dict[str, Any]) -> Question:
    """A :class:`Question` from one ``questions.yaml`` entry.

    Raises:
        ValueError: a missing ``id``, ``question`` or ``expect``.
    """
    try:
        return Question(id=str(data["id"]), text=str(data["question"]), expect=str(data["expect"]),
                        focus=tuple(str(f) for f in data.get("focus", ())),
                        operation=data.get("operation"), page=data.get("page"),
                        note=str(data.get("note", "")))
    except KeyError as exc:
        raise ValueError(f"questions.yaml entry {data!r} lacks {exc}") from None
