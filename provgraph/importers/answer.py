"""An answer in Markdown or plain text plus its source files (format ``answer``).

Input: the answer's bytes (UTF-8) and ``sources``: files, or directories searched
recursively (files sorted by path, names starting with ``.`` skipped). Each source
file is retained as a snapshot (media type from its extension, source URI its
absolute ``file:`` URI) and must be UTF-8 text. The answer is one item, recorded
with model ``unknown`` (an answer file does not say what wrote it).

Quotation claims (kind ``quotation``):

* text between quotation marks: straight ``"..."``, curly ``\u201c...\u201d`` and
  guillemets ``\u00ab...\u00bb``, within one paragraph (a quote may wrap lines but not
  cross a blank line); the claim is the text inside the marks;
* Markdown block quotes: consecutive lines starting with ``>``; the claim runs
  from the first quoted character to the last, and the quote is the lines'
  text without the ``>`` markers, joined by newlines. Quotation marks inside a
  block quote are part of it, not separate claims.

Fenced code blocks and inline code spans are skipped. Each quotation cites, with
a ``oa:TextQuoteSelector`` whose ``exact`` is the quoted text as written, the
sources that contain it (or, when none does, every source, so that the
resolver reports the mismatch against each).

Each quotation's citation declares the normalization policy
:data:`QUOTE_POLICY` (``whitespace``: NFC, runs of white space equal): Markdown
and plain text wrap lines, and a soft line break is not content, so a
quotation and its source often break lines at different places. The resolver
applies a citation's declared policy (:mod:`provgraph.resolve`), so plain
``provgraph resolve`` reports such a quotation as ``normalized_match``, not as
a misquote.

Preliminary status (the resolver gives the official outcomes): a quotation that
the resolver's own matcher (:func:`provgraph.matching.search`) finds in a source
under that policy is ``supported``; otherwise ``unsupported``. So the importer
and the resolver agree. :func:`find_quote` tells verbatim from white-space-equal.

An empty answer, or an answer with no source file, is an error: there would be
nothing to check.

Number claims (kind ``paraphrase``): every number written outside quotations,
code and URLs (digits with ``,`` or ``.`` separators, not glued to a word: ``2.3``,
``6,650``, ``2024``; ``H2O`` holds none) is a claim of its own, ``supported`` when
the same number (thousands separators ignored) appears in a source, else
``unsupported``. This checks presence only, not that the source says the same
thing about the number, and records no citation.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Sequence
from pathlib import Path

from ..matching import search
from ..normalize import EXACT, get_policy
from ..offsets import SourceText
from ._common import cite, ClaimSpec, Doc, ItemSpec, Parsed, PayloadError
from ._spans import NUMBER, number_key

__all__ = ["parse", "GENERATOR_INPUT", "QUOTE_POLICY", "find_quote", "quotations",
           "source_files"]

QUOTE_POLICY = "whitespace"
"""The normalization policy the answer importer declares on each quotation's citation."""

GENERATOR_INPUT = ("reconstructed: the given source files in the order given, joined by a blank "
                   "line; the answer file does not record the prompt")

_QUOTE = re.compile(r'"([^"]*)"|\u201c([^\u201c\u201d]*)\u201d|\u00ab([^\u00ab\u00bb]*)\u00bb')
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_BLOCKQUOTE = re.compile(r"^ {0,3}> ?")
_URL = re.compile(r"\]\([^)\s]*\)|<?[A-Za-z][A-Za-z0-9+.-]*://[^\s>)\]]+")


def source_files(sources: Sequence[Path]) -> list[Path]:
    """The files named by ``sources`` (directories expanded recursively, sorted,
    hidden names skipped), in the order given.

    Raises:
        PayloadError: a source does not exist.
    """
    out: list[Path] = []
    for src in sources:
        p = Path(src)
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file()
                          and not any(part.startswith(".") for part in f.relative_to(p).parts))
        elif p.is_file():
            out.append(p)
        else:
            raise PayloadError(str(src), "source does not exist or is not a file or directory")
    return out


def _mask(text: str) -> str:
    """``text`` with fenced code blocks and inline code replaced by spaces (same length)."""
    chars = list(text)
    fence: str | None = None
    pos = 0
    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            inside = True
        elif fence is not None:
            inside = True
            if line.strip().startswith(fence):
                fence = None
        else:
            inside = False
        if inside:
            for i in range(pos, pos + len(line.rstrip("\n"))):
                chars[i] = " "
        pos += len(line)
    masked = "".join(chars)
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), masked)


def quotations(text: str) -> list[tuple[int, int, str]]:
    """The quotations of a Markdown or text answer.

    Returns:
        ``(start, end, quote)`` per quotation in text order: ``text[start:end]`` is the
        claim span (code points), ``quote`` the quoted text (block quotes without
        their ``>`` markers).

    >>> quotations('It says "hello,\\nworld" and \\u201cbye\\u201d.\\n\\n> Quoted "inner"\\n> line\\n')
    [(9, 21, 'hello,\\nworld'), (28, 31, 'bye'), (37, 58, 'Quoted "inner"\\nline')]
    """
    masked = _mask(text)
    out: list[tuple[int, int, str]] = []
    lines = masked.splitlines(keepends=True)
    pos = 0
    block: list[tuple[int, int]] = []  # content ranges of the current block quote
    blocked = [False] * len(masked)

    def close() -> None:
        if not block:
            return
        parts = [text[s:e] for s, e in block]
        while parts and not parts[-1].strip():
            parts.pop()
            block.pop()
        if parts and any(p.strip() for p in parts):
            s, e = block[0][0], block[-1][1]
            out.append((s, e, "\n".join(parts)))
            for i in range(s, e):
                blocked[i] = True
        block.clear()

    for line in lines:
        m = _BLOCKQUOTE.match(line)
        content_end = pos + len(line.rstrip("\r\n"))
        if m:
            block.append((pos + m.end(), content_end))
        else:
            close()
        pos += len(line)
    close()
    for paragraph in re.finditer(r"(?:[^\n]|\n(?![ \t]*\n))+", masked):
        for m in _QUOTE.finditer(paragraph.group(0)):
            g = next(i for i in (1, 2, 3) if m.group(i) is not None)
            s = paragraph.start() + m.start(g)
            e = paragraph.start() + m.end(g)
            if blocked[s - 1] or not text[s:e].strip():
                continue
            out.append((s, e, text[s:e]))
    return sorted(out)


def find_quote(quote: str, source: str | SourceText) -> str | None:
    """``"verbatim"`` when ``quote`` occurs in ``source`` as written, ``"whitespace"``
    when it occurs under the :data:`QUOTE_POLICY` policy (NFC, runs of white space
    equal), else ``None``. Decided by the resolver's matcher, so the importer's
    status and the resolver's outcome agree (a quote that stops before a combining
    mark is not found, for example).

    >>> find_quote("use of\\nsecure", "the use of secure trails")
    'whitespace'
    >>> find_quote("cafe", "un cafe\\u0301") is None
    True
    """
    src = source if isinstance(source, SourceText) else SourceText.from_text(source)
    if search(src, quote, policy=EXACT).outcome != "quote_mismatch":
        return "verbatim"
    if search(src, quote, policy=get_policy(QUOTE_POLICY)).outcome != "quote_mismatch":
        return "whitespace"
    return None


def _media_type(path: Path) -> str:
    guess = mimetypes.guess_type(path.name)[0]
    if path.suffix.lower() in (".md", ".markdown"):
        guess = "text/markdown"
    guess = guess or "text/plain"
    return f"{guess}; charset=utf-8" if guess.startswith("text/") else guess


def parse(data: bytes, name: str, sources: Sequence[Path] = ()) -> Parsed:
    """Parse an answer file and its sources into one item spec (nothing stored).

    Raises:
        PayloadError: the answer is empty or not UTF-8 text, no source is given (or a
            given directory holds no file), or a source is missing or not UTF-8 text.
    """
    try:
        answer = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PayloadError("$", f"the answer is not UTF-8 text (byte {exc.start})") from None
    if not answer.strip():
        raise PayloadError("$", "the answer is empty: there is nothing to check")
    if not sources:
        raise PayloadError("$", "the answer format needs the source files the answer draws "
                                "on: give --source FILE_OR_DIR (repeatable)")
    files = source_files(sources)
    if not files:
        raise PayloadError(", ".join(str(s) for s in sources),
                           "no source files found (directories are searched recursively; "
                           "names starting with '.' are skipped)")
    docs: list[Doc] = []
    texts: list[SourceText] = []
    for path in files:
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise PayloadError(str(path), f"source is not UTF-8 text (byte {exc.start}); the "
                                          "answer importer checks text sources only") from None
        docs.append(Doc(key=str(path), data=raw, uri=path.resolve().as_uri(),
                        media_type=_media_type(path), text=text))
        texts.append(SourceText.from_text(text))
    claims: list[ClaimSpec] = []
    quoted = [False] * (len(answer) + 1)
    for s, e, quote in quotations(answer):
        for i in range(s, e):
            quoted[i] = True
        found = [d for d, t in zip(docs, texts) if find_quote(quote, t)]
        claim = ClaimSpec(start=s, end=e, kind="quotation",
                          status="supported" if found else "unsupported")
        claim.cites = [cite(d, quote=quote, policy=QUOTE_POLICY) for d in (found or docs)]
        claims.append(claim)
    present = {number_key(m.group(0)) for d in docs for m in NUMBER.finditer(d.text or "")}
    masked = _URL.sub(lambda m: " " * len(m.group(0)), _mask(answer))
    for m in NUMBER.finditer(masked):
        if quoted[m.start()]:
            continue
        claims.append(ClaimSpec(start=m.start(), end=m.end(), kind="paraphrase",
                                status="supported" if number_key(m.group(0)) in present
                                else "unsupported"))
    claims.sort(key=lambda c: (c.start, c.end))
    return [ItemSpec(docs=docs, answer=answer, claims=claims)], []

