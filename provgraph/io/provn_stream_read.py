"""Importing a PROV-N document streamed, without holding it whole (issue 16, item 6).

The ``prov`` package's PROV-N parser needs the whole text (:func:`provgraph.io.provn.read`).
Here the document is read in blocks and split into its top-level statements by the
``prov`` package's own PROV-N lexer (:func:`prov.serializers.provn_lexer.tokenize`,
which knows string literals with their escapes, long strings, comments, IRIs): the split
only finds where each statement ends (``document``, each ``prefix``/``default``
declaration, each record ``keyword(...)``, ``bundle id``, ``endBundle``,
``endDocument``); every record is still parsed by the ``prov`` package. Twice:

1. *Scan.* The lexical form of every formal time (a bare ``xsd:dateTime`` token: the
   form a time is stored in depends on every form the document writes it in) and which
   identifiers name more than one record in one bundle (resolved with the declarations
   in scope; :class:`~provgraph.io.stream_load.RepeatedKeys`).
2. *Records.* The records, :data:`CHUNK_RECORDS` at a time, are written into a small
   document with the declarations in force (``document``, its declarations, and for a
   bundle's records ``bundle id``, the bundle's declarations and ``endBundle``), which
   goes through the path a whole document takes (:func:`provgraph.io.provn.read`:
   the ``prov`` package, the lexical-form fix, the bundle names of PROV-N §3.3;
   :func:`provgraph.validate.check_document`;
   :func:`~provgraph.io.provo.document_to_quads` with the whole document's time forms
   and one map of blank-node labels) and is stored as it comes by
   :func:`provgraph.io.stream_load.store_streamed`, all or nothing. Records whose
   identifier repeats in a bundle (PROV-CONSTRAINTS key checks compare them) are kept
   aside and read together at the end.

Each statement keeps its line and column in the small document (it starts on a line of
its own, indented to its column), and the line numbers the ``prov`` package's messages
give are mapped back to the file's, so a warning names the line the whole read names.

Anything this module does not stream is read whole instead
(:class:`~provgraph.io.stream_load.NotStreamed`, nothing stored), so that its error is
the whole read's, word for word (naming the file, line and column): text the lexer
refuses (an unterminated string or comment), a statement the split does not recognise
(unbalanced parentheses, a missing ``endDocument``, text after it), text that is not
UTF-8, a chunk the ``prov`` package refuses, and a document using the name ``pglexical``.

Memory: a block of text (:data:`BLOCK_CHARS`) and the statement being split; the scan's
Bloom filter of identifiers and one entry per distinct formal time; one chunk, the
records kept aside and the blank-node map.
"""

from __future__ import annotations

import bisect
import codecs
import itertools
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from prov.serializers.provn_lexer import ProvNSyntaxError, Token, TokenKind, tokenize

from ..errors import SerializationError
from ..store import ProvStore
from ..terms import IRI, Quad
from ._prov import PROV_VERSION
from .load import ImportReport, target_graph
from .stream_load import (NotStreamed, ProvChunks, RepeatedKeys, opened, refuse_lexical,
                          repeated_keys)

__all__ = ["BLOCK_CHARS", "CHUNK_RECORDS", "Statement", "import_provn_stream", "statements",
           "streams_provn"]

CHUNK_RECORDS = 2_000
"""Records read together by the ``prov`` package."""
BLOCK_CHARS = 8 << 20
"""Characters of text read at a time; a statement longer than this grows the block."""
_MARGIN = 1 << 20
"""Statements ending this close to a block's end are split again with the next block
(the lexer has not seen what follows them)."""

_ELEMENTS = frozenset({"entity", "activity", "agent"})
_PREDECLARED = {"prov": "http://www.w3.org/ns/prov#",
                "xsd": "http://www.w3.org/2001/XMLSchema#"}
_LINEBREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class Statement:
    """One top-level statement of a PROV-N document.

    Attributes:
        kind: ``"document"``, ``"prefix"``, ``"default"``, ``"bundle"``, ``"endBundle"``,
            ``"endDocument"`` or ``"record"``.
        text: its text, as the document writes it.
        line: the line of its first character (1-based).
        column: the column of its first character (1-based, in characters).
        key: for a record with an identifier, ``(bundle, IRI)`` (``bundle`` the bundle's
            name as written, ``None`` at the top level); else ``None``.
        times: the formal times it writes (bare ``xsd:dateTime`` tokens).
    """

    kind: str
    text: str
    line: int
    column: int
    key: tuple[str | None, str] | None = None
    times: tuple[str, ...] = ()


def _keyword(t: Token) -> str | None:
    return t.value[1] if t.kind is TokenKind.NAME and t.value[0] == "" else None


class _Splitter:
    """Turns tokens into statements; its state changes only when a statement is whole."""

    def __init__(self) -> None:
        self.phase = "start"  # start, decls, body, bdecls, bbody, end
        self.scope: dict[str, str] = dict(_PREDECLARED)
        self.default: str | None = None
        self.outer: tuple[dict[str, str], str | None] = (self.scope, None)
        self.bundle: str | None = None
        self.bundles: frozenset[str] = frozenset()  # the bundle identifiers so far
        self.reset()

    def state(self) -> tuple[Any, ...]:
        """What :meth:`restore` puts back: the state between two statements."""
        return self.phase, self.scope, self.default, self.outer, self.bundle, self.bundles

    def restore(self, state: tuple[Any, ...]) -> None:
        self.phase, self.scope, self.default, self.outer, self.bundle, self.bundles = state

    def reset(self) -> None:
        """Forget the statement being split (the next block splits it again)."""
        self.tokens: list[Token] = []
        self.depth = 0

    def iri(self, t: Token) -> str:
        prefix, local = t.value
        ns = self.scope.get(prefix) if prefix else self.default
        return f"{prefix}:{local}" if ns is None else ns + local

    def feed(self, t: Token) -> str | None:
        """Take token ``t``; the kind of statement it ends, or ``None``.

        Raises:
            NotStreamed: ``t`` cannot come here.
        """
        toks = self.tokens
        toks.append(t)
        first = toks[0]
        word = _keyword(first)
        phase = self.phase
        if phase == "end":
            if t.kind is TokenKind.EOF:
                return "eof"
            raise NotStreamed(f"text follows endDocument at line {t.line}")
        if t.kind is TokenKind.EOF:
            raise NotStreamed("the document ends before endDocument")
        if phase == "start":
            if word != "document":
                raise NotStreamed("it does not start with 'document'")
            self.phase = "decls"
            return "document"
        if len(toks) == 1:
            if word in ("prefix", "default") and phase in ("decls", "bdecls"):
                return None
            if word == "bundle" and phase in ("decls", "body"):
                return None
            if word == "endBundle" and phase in ("bdecls", "bbody"):
                self.phase, self.bundle = "body", None
                self.scope, self.default = self.outer
                return "endBundle"
            if word == "endDocument" and phase in ("decls", "body"):
                self.phase = "end"
                return "endDocument"
            if word is None:
                raise NotStreamed(f"a statement starts with {t.text!r} at line {t.line}, "
                                  f"column {t.column}")
            self.phase = "body" if phase in ("decls", "body") else "bbody"
            return None
        if word == "prefix" and first is not t and len(toks) == 3:
            if toks[1].kind is not TokenKind.NAME or t.kind is not TokenKind.IRI:
                raise NotStreamed(f"a malformed prefix declaration at line {first.line}")
            self.scope = {**self.scope, toks[1].value[1]: t.value}
            return "prefix"
        if word == "default" and len(toks) == 2:
            if t.kind is not TokenKind.IRI:
                raise NotStreamed(f"a malformed default declaration at line {first.line}")
            self.default = t.value
            return "default"
        if word == "bundle" and len(toks) == 2:
            if t.kind is not TokenKind.NAME:
                raise NotStreamed(f"a malformed bundle at line {first.line}")
            named = self.iri(t)
            if named in self.bundles:  # the prov package refuses it (the whole read says so)
                raise NotStreamed(f"the bundle identifier {t.text} at line {first.line} is "
                                  "given to an earlier bundle")
            self.phase, self.bundle = "bdecls", t.text
            self.bundles = self.bundles | {named}
            self.outer = (self.scope, self.default)
            return "bundle"
        if word in ("prefix", "default", "bundle"):
            return None
        if len(toks) == 2 and t.kind is not TokenKind.LPAREN:
            raise NotStreamed(f"{word} at line {first.line} is not followed by '('")
        if t.kind in (TokenKind.LPAREN, TokenKind.LBRACKET):
            self.depth += 1
        elif t.kind in (TokenKind.RPAREN, TokenKind.RBRACKET):
            self.depth -= 1
            if self.depth < 0:
                raise NotStreamed(f"unbalanced parentheses at line {t.line}")
            if self.depth == 0:
                if t.kind is not TokenKind.RPAREN:
                    raise NotStreamed(f"unbalanced parentheses at line {t.line}")
                return "record"
        return None

    def key(self) -> tuple[str | None, str] | None:
        """The identifier of the record just split, if it has one."""
        toks = self.tokens
        if len(toks) < 4 or toks[2].kind is not TokenKind.NAME:
            return None
        if _keyword(toks[0]) in _ELEMENTS or toks[3].kind is TokenKind.SEMICOLON:
            return (self.bundle, self.iri(toks[2]))
        return None


_SPACE = re.compile(r"(?:[ \t\r\n]+|//[^\n\r]*|/\*.*?\*/)*", re.S)
"""What the lexer skips between tokens (PROV-N's WS and comments)."""
_BODY = re.compile(r"""[^"'<()\[\]/\\]+|\"\"\"(?:\\.|"(?!"")|[^"\\])*\"\"\"|"(?:\\.|[^"\\\n\r])*"|"""
                   r"""'(?:\\.|[^'\\\n\r])*'|<(?:[^<>"{}|^`\\\x00-\x20]|\\[^\x00-\x20])*>|"""
                   r"""//[^\n\r]*|/\*.*?\*/|\\.|.""", re.S)
"""The pieces of a record's arguments: runs of plain text, then the lexer's strings, long
strings, qualified-name literals, IRIs, comments and escapes (each skipped whole, so a
parenthesis inside one does not count), and single characters (a bracket)."""
_HINT = re.compile(r"[0-9]{4,}-[0-9]{2}-[0-9]{2}T")
"""Text that may hold a formal time (the lexer's DATETIME starts so)."""
_HEAD = 256
"""Characters the lexer is first given to read a statement's first tokens (more when
they do not fit)."""


def statements(source: BinaryIO, block: int | None = None,
               lexer_warnings: list[str] | None = None, *,
               times: bool = True) -> Iterator[Statement]:
    """The top-level statements of the PROV-N document read from ``source`` (binary,
    UTF-8), in order, a block at a time.

    The ``prov`` package's lexer reads each statement's first tokens (its keyword, a
    declaration, a bundle's name, a record's identifier) and the formal times; a
    record's arguments are passed over piece by piece (:data:`_BODY`: strings, IRIs,
    comments and escapes whole) to its closing parenthesis, which is much faster than
    lexing them. Should the two ever disagree on where a record ends, the ``prov``
    package, which parses every record, refuses the chunk or reads another number of
    records, and the document is read whole.

    Args:
        source: the document, read from its current position.
        block: characters per block (``None``: :data:`BLOCK_CHARS`).
        lexer_warnings: if given, the lexer's warnings between statements (whitespace
            PROV-N does not allow) are appended, with the file's line and column.
        times: whether to find the records' formal times (:attr:`Statement.times`).

    Raises:
        NotStreamed: the text is not UTF-8, the lexer refuses it, or its statements are
            not a PROV-N document's (the whole read then says why, naming the line).

    Example:
        >>> import io
        >>> doc = b'document prefix ex <urn:ex:> entity(ex:e, [ex:v=")"]) endDocument'
        >>> [(s.kind, s.column, s.key) for s in statements(io.BytesIO(doc))]  # doctest: +NORMALIZE_WHITESPACE
        [('document', 1, None), ('prefix', 10, None), ('record', 30, (None, 'urn:ex:e')),
         ('endDocument', 55, None)]
    """
    size = block or BLOCK_CHARS
    margin = min(_MARGIN, size // 4)
    decoder = codecs.getincrementaldecoder("utf-8")()
    split = _Splitter()
    buf = ""
    line, column = 1, 1  # where buf starts in the file
    eof = False
    started = False
    want = size + margin
    while True:
        try:
            while not eof and len(buf) < want:
                data = source.read(size)
                buf += decoder.decode(data, final=not data)
                eof = not data
        except UnicodeDecodeError as exc:
            raise NotStreamed(f"it is not UTF-8 ({exc})") from exc
        if not started:
            buf = buf.removeprefix("\ufeff")  # as the lexer does
            started = True
        starts = [0, *(m.end() for m in _LINEBREAK.finditer(buf))]

        def where(offset: int) -> tuple[int, int]:
            i = bisect.bisect_right(starts, offset) - 1
            return line + i, offset - starts[i] + 1 + (column - 1 if i == 0 else 0)

        limit = len(buf) if eof else len(buf) - margin
        done = pos = 0  # done: characters of buf split into whole statements
        while True:
            pos = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
            if pos >= limit and not eof:
                break
            state = split.state()
            warned: list[str] = []
            got = _statement(buf, pos, eof, split, where, warned, times)
            if got is None or (got[1] > limit and not eof):
                split.restore(state)  # it may go on past the block: split it again
                break
            statement, end = got
            if lexer_warnings is not None:
                lexer_warnings += warned
            if statement is None:  # the end of the text
                return
            yield statement
            done = pos = end
        if eof:  # pragma: no cover - _statement ends the text above
            return
        if done == 0:  # one statement longer than the block: read more before it
            want = len(buf) + size
            continue
        want = size + margin
        line, column = where(done)
        buf = buf[done:]


def _statement(buf: str, pos: int, eof: bool, split: _Splitter,
               where: Callable[[int], tuple[int, int]], warnings: list[str] | None,
               times: bool = True) -> tuple[Statement | None, int] | None:
    """The statement starting at ``buf[pos]`` and where it ends; ``(None, pos)`` at the
    end of the text; ``None`` when it may go on past ``buf`` (not ``eof``)."""
    size = _HEAD
    while True:
        head = buf[pos:pos + size]
        whole = pos + size >= len(buf)  # the head reaches the end of what was read
        got = _head(head, pos, eof and whole, split, where)
        if got is not None:
            break
        if not whole:
            size *= 4
            continue
        return None
    kind, t, offset, warned = got
    if warnings is not None:
        warnings += warned
    if kind == "eof":
        return None, len(buf)
    if kind != "record":
        first = split.tokens[0]
        begin, end = offset(first), offset(t) + len(t.text)
        return Statement(kind, buf[begin:end], *where(begin)), end
    # a record: its keyword and '(' are read; its arguments up to the closing ')'
    begin = offset(split.tokens[0])
    depth = 1
    end = -1
    for m in _BODY.finditer(buf, offset(t) + 1):
        c = buf[m.start()]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                if c != ")":
                    raise NotStreamed(f"unbalanced parentheses at line {where(m.start())[0]}")
                end = m.end()
                break
    if end < 0:
        if eof:
            raise NotStreamed(f"a record at line {where(begin)[0]} is not closed")
        return None
    text = buf[begin:end]
    try:
        first4 = list(itertools.islice(tokenize(text), 4))
        found = tuple(x.text for x in tokenize(text) if x.kind is TokenKind.DATETIME) \
            if times and _HINT.search(text) else ()
    except ProvNSyntaxError as exc:
        raise NotStreamed(f"the PROV-N lexer refuses it ({exc})") from exc
    split.tokens = first4
    key = split.key()
    return Statement("record", text, *where(begin), key, found), end


def _head(head: str, pos: int, last: bool, split: _Splitter,
          where: Callable[[int], tuple[int, int]]
          ) -> tuple[str, Token, Callable[[Token], int], list[str]] | None:
    """The first tokens of the statement at ``pos``, fed to ``split`` up to the end of a
    declaration, bundle or end keyword, or to a record's ``(``: ``(kind, last token,
    offset of a token, the lexer's warnings)``; ``None`` when ``head`` is cut short
    (``last``: it holds the rest of the text, so it is not)."""
    head_starts: list[int] | None = None

    def offset(t: Token) -> int:
        nonlocal head_starts
        if t.line == 1:
            return pos + t.column - 1
        if head_starts is None:
            head_starts = [0, *(m.end() for m in _LINEBREAK.finditer(head))]
        return pos + head_starts[t.line - 1] + t.column - 1

    warned: list[str] = []
    split.reset()
    try:
        for t in tokenize(head, warned):
            if t.kind is TokenKind.EOF and not last:
                return None
            kind = split.feed(t)
            if kind is not None:
                break
            if t.kind is TokenKind.LPAREN and split.depth == 1:
                kind = "record"
                break
        else:  # pragma: no cover - tokenize ends with EOF
            return None
    except ProvNSyntaxError as exc:
        if not last:
            return None
        raise NotStreamed(f"the PROV-N lexer refuses it ({exc})") from exc
    return kind, t, offset, [_shifted_at(w, offset, where) for w in warned]


def _shifted_at(message: str, offset: Callable[[Token], int],
                where: Callable[[int], tuple[int, int]]) -> str:
    """A lexer warning about a statement's head, with the file's line and column."""
    def move(m: re.Match[str]) -> str:
        at = offset(Token(TokenKind.EOF, "", None, int(m.group(1)), int(m.group(2))))
        ln, col = where(at)
        return f"line {ln}, column {col}"

    return _POSITION.sub(move, message, count=1)


_POSITION = re.compile(r"line (\d+), column (\d+)")
_LEXER_WARNING = re.compile(r"line \d+, column \d+: U\+[0-9A-F]{4,} is not PROV-N whitespace")
"""The one warning the ``prov`` package's lexer gives."""


def _position(message: str) -> tuple[int, int]:
    m = _POSITION.search(message)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


_FUTURE = re.compile(r"prov 3\.3\.0 will .*\(#\d+\)$", re.S)
"""The end of a ``prov`` warning about input 3.3.0 will read otherwise (ProvFutureRejectionWarning)."""


def streams_provn(head: bytes, format: str, name: str) -> bool:
    """Whether ``provgraph import`` tries :func:`import_provn_stream` on a file: under
    ``--format provn``, or under ``auto`` for a ``.provn`` file whose text starts with
    ``document`` (after comments).

    Example:
        >>> streams_provn(b"// a comment\\ndocument endDocument", "auto", "doc.provn")
        True
    """
    if format != "auto":
        return format == "provn"
    from . import _PROVN_COMMENT

    text = _PROVN_COMMENT.sub(b" ", head.lstrip(b"\xef\xbb\xbf")[:4096]).lstrip()
    return (os.path.splitext(name)[1].lower() == ".provn" and text.startswith(b"document")
            and not text[8:9].isalnum())


def import_provn_stream(store: ProvStore, source: str | os.PathLike[str] | BinaryIO, *,
                        graph: IRI | str | None = None,
                        name: str = "<input>") -> ImportReport:
    """Import a PROV-N document streamed, all or nothing (module docstring): the same
    statements, report and refusals as :func:`provgraph.io.load.import_document` (an
    agreement test checks it), the document never held whole.

    Args:
        store: where to store; it must journal (:attr:`ProvStore.journals`).
        source: a file path, or a seekable binary file object (read three or four times).
        graph: named graph for statements outside any bundle (``None``: the default
            graph); not one of :data:`provgraph.io.load.RESERVED_GRAPHS`.
        name: the input's name for messages.

    Returns:
        :class:`~provgraph.io.load.ImportReport` (``reader`` says it was streamed).

    Raises:
        NotStreamed: the document is to be read whole (module docstring); nothing was
            stored.
        ValueError: ``graph`` is refused (:func:`~provgraph.io.load.check_target_graph`).
        SerializationError: the document is refused as the whole read refuses it (no
            PROV statement, a record PROV-O cannot hold); nothing is stored.
        StoreError: the store does not journal or cannot be written; nothing is stored.

    Example:
        >>> import io
        >>> from provgraph.store import EmbeddedStore
        >>> doc = io.BytesIO(b"document prefix ex <urn:ex:> entity(ex:e) endDocument")
        >>> r = import_provn_stream(EmbeddedStore(), doc, name="e.provn")
        >>> (r.format, r.stored)
        ('provn', 1)
    """
    target = target_graph(graph)
    with opened(source, name) as f:
        refuse_lexical(f)
        repeated, times = repeated_keys(f, _scan, 40)
        return ProvChunks.store_document(
            store, f, name=name, target=target, times=times,
            quads=lambda f, chunks: _quads(f, repeated, chunks), format="provn",
            reader=f"provn streamed (statements split by the prov package's PROV-N lexer), "
                   f"records read by the prov package {PROV_VERSION}")


def _scan(source: BinaryIO, keys: RepeatedKeys) -> dict[str, None]:
    """A key pass (:func:`~provgraph.io.stream_load.repeated_keys`): every identified
    record's key to ``keys``; in pass 1 also the formal times' distinct texts."""
    times: dict[str, None] = {}
    for s in statements(source, times=not keys.counting):
        if s.key is not None:
            keys.add(s.key)
        times.update(dict.fromkeys(s.times))
    return times


class _Chunk:
    """A small PROV-N document of whole statements, each at its line and column."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.lines: list[tuple[int, int]] = []  # (line in the chunk, line in the file)
        self.at = 1  # the chunk's line the next statement starts on
        self.records = 0

    def add(self, s: Statement) -> None:
        if self.parts:
            self.parts.append("\n")
            self.at += 1
        self.lines.append((self.at, s.line))
        self.parts += [" " * (s.column - 1), s.text]
        self.at += len(_LINEBREAK.findall(s.text))
        self.records += s.kind == "record"

    def text(self, bundle: bool) -> bytes:
        tail = "\nendBundle\nendDocument\n" if bundle else "\nendDocument\n"
        return ("".join(self.parts) + tail).encode("utf-8")

    def file_line(self, line: int) -> int:
        """The file's line for line ``line`` of the chunk."""
        at, file = 1, 1
        for c, f in self.lines:
            if c > line:
                break
            at, file = c, f
        return file + line - at


def _quads(source: BinaryIO, repeated: set[int], chunks: ProvChunks) -> Iterator[Quad]:
    """The document's statements, chunk by chunk (pass 2); the records kept aside last."""
    from .provn import read as read_chunk

    header: list[Statement] = []  # document and its declarations
    bundle_head: list[Statement] = []  # bundle and its declarations
    chunk: _Chunk | None = None
    aside: dict[tuple[int, int] | None, tuple[list[Statement], list[Statement]]] = {}
    lexer: list[str] = []
    parsed: list[str] = []
    bundle_warnings: list[str] = []

    def read(c: _Chunk, in_bundle: bool) -> list[Quad]:
        try:
            got = read_chunk(c.text(in_bundle), chunks.name, times=False)
        except SerializationError as exc:
            raise NotStreamed(f"the prov package refuses a chunk ({exc})") from exc
        if got.record_count != c.records:  # the split and the prov package disagree
            raise NotStreamed(f"a chunk of {c.records} records reads as {got.record_count}")
        prefix = f"{chunks.name}: prov {PROV_VERSION}: "
        for w in got.warnings:
            w = _POSITION.sub(lambda m: f"line {c.file_line(int(m.group(1)))}, "
                              f"column {m.group(2)}", w, count=1)
            if not w.startswith(prefix):
                bundle_warnings.append(w)
            elif _LEXER_WARNING.search(w):  # in file order with the split's, at the end
                lexer.append(w.removeprefix(prefix))
            else:
                parsed.append(w)
        got.warnings = []
        for b in got.document.bundles:  # the whole read reports bundle by bundle
            if b.identifier is not None:
                chunks.constraints.setdefault(str(b.identifier.uri), [])
        return chunks.quads(got, lambda v: v.graph)

    def fresh(in_bundle: bool) -> _Chunk:
        c = _Chunk()
        for s in header + (bundle_head if in_bundle else []):
            c.add(s)
        return c

    in_bundle = False
    for s in statements(source, lexer_warnings=lexer, times=False):
        if s.kind in ("document", "prefix", "default") and not in_bundle:
            header.append(s)
        elif s.kind == "bundle":
            if chunk is not None and chunk.records:
                yield from read(chunk, False)
            chunk, in_bundle, bundle_head = None, True, [s]
        elif s.kind in ("prefix", "default"):
            bundle_head.append(s)
        elif s.kind in ("endBundle", "endDocument"):
            if chunk is not None and (chunk.records or s.kind == "endBundle"):
                yield from read(chunk, in_bundle)
            elif s.kind == "endBundle":  # an empty bundle is read as the whole read reads it
                yield from read(fresh(True), True)
            chunk, in_bundle = None, False
        elif s.key is not None and hash(s.key) in repeated:
            where = (bundle_head[0].line, bundle_head[0].column) if in_bundle else None
            aside.setdefault(where, (list(bundle_head) if in_bundle else [], []))[1].append(s)
        else:
            if chunk is None:
                chunk = fresh(in_bundle)
            chunk.add(s)
            if chunk.records >= CHUNK_RECORDS:
                yield from read(chunk, in_bundle)
                chunk = None
    if chunk is not None and chunk.records:  # the document's records (none end it here)
        yield from read(chunk, False)
    for head, records in aside.values():
        c = _Chunk()
        for s in header + head + records:
            c.add(s)
        yield from read(c, bool(head))
    # the whole read's order: the model's warnings as records are read, then the
    # parser's (the lexer's first), then the bundle names' after the times'
    future = [w for w in parsed if _FUTURE.search(w)]
    lexer.sort(key=_position)
    chunks.prov_warnings = list(dict.fromkeys(
        [w for w in parsed if not _FUTURE.search(w)]
        + [f"{chunks.name}: prov {PROV_VERSION}: {w}" for w in lexer] + future))
    chunks.time_warnings += list(dict.fromkeys(bundle_warnings))

