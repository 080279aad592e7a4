"""reStructuredText to plain text with an offset map back to the source bytes (the demo's parser).

docutils parses the document; the Sphinx roles and directives the Flask
documentation uses are registered with small handlers that render them the way
Sphinx would show them in text (``:func:`url_for``` becomes ``url_for``, a
``versionchanged`` directive becomes ``Changed in version 1.0: ...``).

The extracted text is the document's blocks (titles, paragraphs, literal blocks,
terms, ...) in document order, separated by a blank line. Every piece of text
that occurs verbatim in the source is located there and recorded as an offset
map segment ``(text_start, text_end, byte_start, byte_end)``: code points of the
extracted text to bytes of the source. Text the renderer adds itself (the
``Changed in version`` wording, the ``#`` of an issue number, the ``()`` Sphinx
appends to function names, block separators) and text docutils rewrote (smart
quotes, line joins inside indented blocks) has no segment: it has no source bytes.

Untrusted input: file insertion (``include``), ``raw`` and remote content are
disabled; docutils messages are suppressed (they are not part of the text).
"""

from __future__ import annotations

import difflib
import io
from bisect import bisect_right
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

import docutils
import docutils.core
import docutils.nodes as nodes
from docutils.parsers.rst import Directive, directives, roles

__all__ = ["Block", "Extracted", "ParserProfile", "PARSER_V1", "PARSER_V2", "extract_rst"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ParserProfile:
    """A named, versioned parser configuration, recorded as the parser agent.

    Args:
        name: agent name recorded for the parser.
        version: agent version; changes whenever the rendering rules change.
        function_parentheses: append ``()`` to ``:func:`` and ``:meth:`` references,
            as Sphinx's ``add_function_parentheses`` does.
        smart_quotes: docutils' ``smart_quotes`` setting.
    """

    name: str
    version: str
    function_parentheses: bool = False
    smart_quotes: bool = False

    @property
    def agent(self) -> tuple[str, str]:
        """``(name, version)`` as the recorder takes it."""
        return (self.name, self.version)

    @property
    def config(self) -> dict[str, Any]:
        """The configuration recorded on the extraction (JSON)."""
        return {"docutils": docutils.__version__, "function_parentheses": self.function_parentheses,
                "smart_quotes": self.smart_quotes, "doctitle_xform": False,
                "file_insertion_enabled": False, "raw_enabled": False,
                "block_separator": "\\n\\n"}


PARSER_V1 = ParserProfile(name="provgraph-demo-rst", version="1.0")
"""The parser the corpus is first ingested with."""
PARSER_V2 = ParserProfile(name="provgraph-demo-rst", version="1.1", function_parentheses=True)
"""The upgraded parser: renders ``url_for()`` for function references, like Sphinx."""


@dataclass(frozen=True, slots=True)
class Block:
    """One block of extracted text: code points ``[start, end)``, its docutils node
    kind, and the titles of the sections it sits in (outermost first)."""

    start: int
    end: int
    kind: str
    section: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Extracted:
    """The parser's output: text, offset map segments and blocks."""

    text: str
    offset_map: tuple[tuple[int, int, int, int], ...]
    blocks: tuple[Block, ...]
    title: str

    def mapped_fraction(self) -> float:
        """Share of non-whitespace code points of the text that have source bytes."""
        mapped = sum(te - ts for ts, te, _, _ in self.offset_map)
        total = len(self.text)
        return mapped / total if total else 1.0


# ---------------------------------------------------------------- Sphinx roles and directives
_GENERATED = "pg-generated"


def _generated(text: str) -> nodes.inline:
    return nodes.inline("", text, classes=[_GENERATED])


def _xref_display(text: str) -> tuple[str, bool]:
    """Sphinx's display text for a cross-reference and whether a title was given."""
    if text.endswith(">") and "<" in text:
        return text[: text.rindex("<")].rstrip(), True
    target = text.lstrip("!")
    if target.startswith("~"):
        return target[1:].split(".")[-1], False
    return target.lstrip("."), False


def _xref_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
               options: dict[str, Any] | None = None, content: Any = None) -> tuple[list[Any], list[Any]]:
    display, titled = _xref_display(text)
    role = name.split(":")[-1]
    out: list[Any] = [nodes.literal(rawtext, display)]
    parens = getattr(inliner.document.settings, "pg_function_parentheses", False)
    if parens and role in ("func", "meth") and not titled and not display.endswith(")"):
        out.append(_generated("()"))
    if role in ("doc", "ref", "term"):
        out = [nodes.inline(rawtext, display)]
    return out, []


_Role = Callable[[str, str, str, int, Any, dict[str, Any] | None, Any], tuple[list[Any], list[Any]]]
"""A docutils role function: (name, rawtext, text, lineno, inliner, options, content)
-> (nodes, system messages)."""


def _register_role(name: str, role: _Role) -> None:
    # types-docutils 0.23 types a role's result as reference nodes only (and its options
    # and content as required); docutils takes any inline nodes and these defaults
    roles.register_local_role(name, role)  # type: ignore[arg-type]


def _numbered_role(label: str) -> _Role:
    def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
             options: dict[str, Any] | None = None, content: Any = None) -> tuple[list[Any], list[Any]]:
        return [_generated(label), nodes.inline(rawtext, text)], []
    return role


class _AnyOptions(dict[str, Any]):
    """An option spec that accepts every option (Sphinx directives have many)."""

    def __missing__(self, key: str) -> Any:
        return directives.unchanged


class _Code(Directive):
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOptions()
    has_content = True

    def run(self) -> list[Any]:
        text = "\n".join(self.content)
        node = nodes.literal_block(text, text)
        node.line = self.content_offset + 1
        return [node]


class _VersionNote(Directive):
    required_arguments = 1
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()
    _LABELS = {"versionadded": "New in version ", "versionchanged": "Changed in version ",
               "deprecated": "Deprecated since version "}

    def run(self) -> list[Any]:
        para = nodes.paragraph()
        para.line = self.lineno
        para += _generated(self._LABELS[self.name])
        para += nodes.Text(self.arguments[0])
        rest = self.arguments[1] if len(self.arguments) > 1 else ""
        para += _generated(": " if (rest or self.content) else ".")
        if rest:
            inline, _ = self.state.inline_text(rest, self.lineno)
            para.extend(inline)
        box = nodes.container(classes=["versionmodified"])
        box += para
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


class _Titled(Directive):
    """``tab``/``group-tab`` and object descriptions (``py:data``, ``function``):
    the argument as a block, then the parsed content."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def run(self) -> list[Any]:
        box = nodes.container(classes=[self.name.replace(":", "-")])
        if self.arguments:
            para = nodes.paragraph()
            para.line = self.lineno
            para += nodes.literal(self.arguments[0], self.arguments[0])
            box += para
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


class _Silent(Directive):
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def run(self) -> list[Any]:
        return []


class _Container(Directive):
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def run(self) -> list[Any]:
        box = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


_XREF_ROLES = ("func", "meth", "class", "attr", "data", "exc", "obj", "mod", "ref", "doc", "term",
               "file", "command", "envvar", "mimetype", "program", "option", "samp", "kbd",
               "py:func", "py:meth", "py:class", "py:attr", "py:data", "py:exc", "py:obj", "py:mod")
_registered = False


def _register() -> None:
    """Register the Sphinx roles and directives with docutils (once per process;
    behaviour that varies by profile is read from the document settings)."""
    global _registered
    if _registered:
        return
    for name in _XREF_ROLES:
        _register_role(name, _xref_role)
    _register_role("issue", _numbered_role("#"))
    _register_role("pr", _numbered_role("#"))
    _register_role("ghsa", _numbered_role("GHSA-"))
    _register_role("rfc", _numbered_role("RFC "))
    _register_role("pep", _numbered_role("PEP "))
    for name in ("code-block", "sourcecode", "highlight-block"):
        directives.register_directive(name, _Code)
    for name in ("versionadded", "versionchanged", "deprecated"):
        directives.register_directive(name, _VersionNote)
    for name in ("tab", "group-tab", "code-tab", "py:data", "data", "function", "py:function",
                 "class", "py:class", "method", "attribute", "decorator", "envvar"):
        directives.register_directive(name, _Titled)
    for name in ("currentmodule", "module", "py:module", "py:currentmodule", "toctree", "highlight",
                 "autofunction", "autoclass", "automodule", "index"):
        directives.register_directive(name, _Silent)
    directives.register_directive("tabs", _Container)
    _registered = True


# ---------------------------------------------------------------- text and offset map
_BLOCK_SKIP = (nodes.system_message, nodes.comment, nodes.substitution_definition, nodes.label,
               nodes.problematic, nodes.raw, nodes.pending)


class _Locator:
    """Finds pieces of extracted text in the source, moving forward only."""

    def __init__(self, source: str) -> None:
        self.s = source
        self.cursor = 0
        self.ascii = source.isascii()
        if not self.ascii:
            offsets = [0]
            for ch in source:
                offsets.append(offsets[-1] + len(ch.encode("utf-8")))
            self.byte = offsets
        line_starts = [0]
        for i, ch in enumerate(source):
            if ch == "\n":
                line_starts.append(i + 1)
        self.line_starts = line_starts

    def to_byte(self, i: int) -> int:
        return i if self.ascii else self.byte[i]

    def hint(self, line: int | None) -> int:
        """Code point where 1-based ``line`` starts, one line early (titles carry the
        line of their underline)."""
        if not line:
            return self.cursor
        idx = max(0, min(line - 2, len(self.line_starts) - 1))
        return self.line_starts[idx]

    def locate(self, piece: str, hint: int) -> list[tuple[int, int, int]]:
        """Matches ``(offset in piece, source code point, length)`` for ``piece``, in order."""
        if not piece.strip():
            return []
        start = max(self.cursor, hint)
        pos = self._find(piece, start)
        if pos < 0 and start > self.cursor:
            pos = self._find(piece, self.cursor)
        if pos >= 0:
            self.cursor = pos + len(piece)
            return [(0, pos, len(piece))]
        out: list[tuple[int, int, int]] = []
        off = 0
        for line in piece.split("\n"):
            stripped = line.strip()
            if stripped:
                lead = off + len(line) - len(line.lstrip())
                p = self._find(stripped, max(self.cursor, hint) if not out else self.cursor,
                               limit=len(stripped) + 400)
                if p >= 0:
                    out.append((lead, p, len(stripped)))
                    self.cursor = p + len(stripped)
                else:
                    out.extend(self._fuzzy(stripped, lead))
            off += len(line) + 1
        return out

    def _find(self, piece: str, start: int, limit: int | None = None) -> int:
        if limit is None and len(piece) < 24:
            limit = len(piece) + 600
        end = len(self.s) if limit is None else min(len(self.s), start + limit)
        return self.s.find(piece, start, end)

    def _fuzzy(self, piece: str, offset: int) -> list[tuple[int, int, int]]:
        window = self.s[self.cursor:self.cursor + 2 * len(piece) + 200]
        sm = difflib.SequenceMatcher(None, piece, window, autojunk=False)
        out = []
        for a, b, size in sm.get_matching_blocks():
            if size >= 3:
                out.append((offset + a, self.cursor + b, size))
        if out:
            self.cursor = out[-1][1] + out[-1][2]
        return out


def _settings(profile: ParserProfile) -> dict[str, Any]:
    return {"report_level": 5, "halt_level": 5, "warning_stream": io.StringIO(),
            "file_insertion_enabled": False, "raw_enabled": False, "doctitle_xform": False,
            "sectsubtitle_xform": False, "smart_quotes": profile.smart_quotes,
            "syntax_highlight": "none", "input_encoding": "utf-8",
            "pg_function_parentheses": profile.function_parentheses}


def _pieces(block: nodes.Element) -> list[tuple[str, bool]]:
    """The block's text as ``(text, from_source)`` pieces, in order."""
    out: list[tuple[str, bool]] = []

    def walk(node: nodes.Node, generated: bool) -> None:
        if isinstance(node, nodes.Text):
            out.append((node.astext(), not generated))
            return
        if isinstance(node, _BLOCK_SKIP):
            return
        gen = generated or (isinstance(node, nodes.Element) and _GENERATED in node.get("classes", ()))
        for child in node.children:
            walk(child, gen)

    for child in block.children:
        walk(child, False)
    return out


def _blocks(doc: nodes.document) -> list[tuple[nodes.Element, tuple[str, ...]]]:
    """Non-inline text elements in document order, with their section titles."""
    out: list[tuple[nodes.Element, tuple[str, ...]]] = []

    def walk(node: nodes.Element, section: tuple[str, ...]) -> None:
        for child in node.children:
            if not isinstance(child, nodes.Element) or isinstance(child, _BLOCK_SKIP):
                continue
            if isinstance(child, nodes.section):
                title = child.next_node(nodes.title)
                name = title.astext() if title is not None else ""
                walk(child, section + (name,))
            elif isinstance(child, nodes.TextElement) and not isinstance(child, nodes.Inline):
                out.append((child, section))
            else:
                walk(child, section)

    walk(doc, ())
    return out


def extract_rst(data: bytes, profile: ParserProfile = PARSER_V1) -> Extracted:
    """Parse reStructuredText bytes into text with an offset map to those bytes.

    Args:
        data: the source bytes (UTF-8).
        profile: parser name, version and rendering options.

    Returns:
        :class:`Extracted`; offsets in ``offset_map`` are code points of the text
        (end-exclusive) and bytes of ``data`` (end-exclusive), sorted, non-overlapping.

    Raises:
        UnicodeDecodeError: ``data`` is not UTF-8.

    Example:
        >>> ex = extract_rst(b"Title\\n=====\\n\\nUse :func:`url_for` here.\\n")
        >>> ex.text
        'Title\\n\\nUse url_for here.'
        >>> ex.offset_map
        ((0, 5, 0, 5), (7, 11, 13, 17), (11, 18, 24, 31), (18, 24, 32, 38))
        >>> extract_rst(b"Use :func:`url_for` here.\\n", PARSER_V2).text
        'Use url_for() here.'
    """
    _register()
    source = data.decode("utf-8")
    doc = docutils.core.publish_doctree(source, settings_overrides=_settings(profile))
    loc = _Locator(source)
    parts: list[str] = []
    segs: list[list[int]] = []
    blocks: list[Block] = []
    pos = 0
    title = ""
    for element, section in _blocks(doc):
        pieces = _pieces(element)
        text = "".join(p for p, _ in pieces)
        if not text.strip():
            continue
        if parts:
            parts.append("\n\n")
            pos += 2
        start = pos
        hint = loc.hint(element.line)
        for piece, from_source in pieces:
            if from_source:
                for off, src, size in loc.locate(piece, hint):
                    ts, bs = pos + off, loc.to_byte(src)
                    be = loc.to_byte(src + size)
                    if segs and segs[-1][1] == ts and segs[-1][3] == bs:
                        segs[-1][1], segs[-1][3] = ts + size, be
                    else:
                        segs.append([ts, ts + size, bs, be])
            pos += len(piece)
            parts.append(piece)
        kind = element.tagname
        if kind == "title" and not title:
            title = text
        blocks.append(Block(start, pos, kind, section))
    full = "".join(parts)
    return Extracted(text=full, offset_map=tuple((a, b, c, d) for a, b, c, d in segs),
                     blocks=tuple(blocks), title=title)


def block_at(extracted: Extracted, offset: int) -> Block | None:
    """The block containing code point ``offset`` of the extracted text, if any."""
    starts = [b.start for b in extracted.blocks]
    i = bisect_right(starts, offset) - 1
    if i >= 0 and extracted.blocks[i].start <= offset < extracted.blocks[i].end:
        return extracted.blocks[i]
    return None
