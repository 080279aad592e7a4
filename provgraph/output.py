"""Row and table writers shared by every CLI command that returns rows.

Formats (sqlite-utils conventions): ``json`` (default: a JSON array written one
object per line, so it streams and stays greppable), ``nl`` (newline-delimited
JSON), ``csv``, ``tsv`` and ``table`` (a rich table for people), ``wide`` (the table
with every value whole).

A ``table`` fits the terminal (``$COLUMNS``, else the terminal of standard output or
standard error, else 80 columns; issue 17: it was 100 to 200 columns whatever the
terminal): columns share the width, text wraps, and a value that is one IRI is kept on
one line and shortened in the middle with ``…`` (its scheme and its distinctive end stay
visible; a folded IRI cannot be copied). No column is narrower than its header's longest
word, so a header is never folded mid-word. When the columns cannot fit even at their
narrowest, each row is printed as a block of ``column  value`` lines instead (as psql's
expanded display). ``wide`` shortens nothing. JSON, CSV and TSV always carry every value
whole.
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, TypeVar, overload

import click

from ._json_encode import reusable_encode
from .terms import XSD, Literal, Term

__all__ = ["plain", "plain_row", "write_rows", "write_lineage_tree", "output_options",
           "staged_progress", "ROW_FORMATS", "terminal_width", "shorten_middle"]

_ROW_FLAGS = (  # (option names, format, help), in the order --help lists them
    (("-t", "--table"), "table", "A table for people, as wide as the terminal: a long IRI is "
     "shortened in the middle (…), never folded over lines."),
    (("--wide",), "wide", "A table with every value whole, however wide it gets."),
    (("--json",), "json", "JSON array, one object per line (default)."),
    (("--nl",), "nl", "Newline-delimited JSON."),
    (("--csv",), "csv", "Comma-separated values."),
    (("--tsv",), "tsv", "Tab-separated values."),
)
ROW_FORMATS = tuple(fmt for _, fmt, _ in _ROW_FLAGS)
_JSON = json.JSONEncoder(ensure_ascii=False, default=str)
"""How rows are written as JSON: non-ASCII as it is, anything JSON has no type for as text."""

_PLAIN: frozenset[type] = frozenset({str, int, bool, float})
"""The row formats :func:`write_rows` writes and :func:`output_options` offers."""

_NUMERIC = {XSD + t: int for t in ("integer", "int", "long", "nonNegativeInteger", "positiveInteger")}
_NUMERIC.update({XSD + "double": float, XSD + "float": float, XSD + "decimal": float})  # type: ignore[dict-item]


def plain(term: Term | Any | None) -> Any:
    """A JSON-friendly value of an RDF term: IRIs and blank nodes as text, numeric
    and boolean literals as numbers and booleans, other literals by lexical form."""
    if term is None or type(term) in _PLAIN:
        return term  # already plain (a row's to_dict() values): the common case, first
    if isinstance(term, Literal):
        conv = _NUMERIC.get(term.datatype or "")
        if conv is not None:
            try:
                return conv(term.value)
            except ValueError:
                return term.value
        if term.datatype == XSD + "boolean":
            return term.value in ("true", "1")
        return term.value
    if isinstance(term, str):
        return str(term)
    return term


def plain_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`plain` applied to every value of a row."""
    return {k: plain(v) for k, v in row.items()}


def write_rows(rows: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None, *,
               fmt: str = "json", out: IO[str] | None = None, no_headers: bool = False,
               title: str | None = None, plain_values: bool = False) -> int:
    """Write rows in ``fmt``; return how many were written.

    Args:
        rows: mappings of column name to a term or plain value.
        columns: column order (default: keys of the first row).
        fmt: one of :data:`ROW_FORMATS`.
        out: text stream (default: standard output).
        no_headers: omit the header line of ``csv``/``tsv``.
        title: caption of a ``table``.
        plain_values: the values are plain already (the ``to_dict()`` of provgraph's
            row types), so :func:`plain` is not applied to each (issue 16).

    A ``table`` is fitted to :func:`terminal_width` (IRIs shortened in the middle,
    :func:`shorten_middle`); ``wide`` shows every value whole.
    """
    out = out or sys.stdout
    data = list(rows) if plain_values else [plain_row(r) for r in rows]
    cols = list(columns) if columns else (list(data[0]) if data else [])
    if fmt in ("json", "nl"):
        # the row dict as it is when it has exactly the columns, in order
        encode = reusable_encode(_JSON)
        lines = [encode(r if list(r) == cols else {c: r.get(c) for c in cols}) for r in data]
        if fmt == "nl":
            out.write("".join(line + "\n" for line in lines))
        elif not lines:
            out.write("[]\n")
        else:
            out.write("[" + ",\n ".join(lines) + "]\n")
    elif fmt in ("csv", "tsv"):
        w = csv.writer(out, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        if not no_headers:
            w.writerow(cols)
        for r in data:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
    elif fmt in ("table", "wide"):
        _write_table(data, cols, title, out, wide=fmt == "wide")
    else:
        raise click.BadParameter(f"unknown output format {fmt!r}; use one of {ROW_FORMATS}")
    return len(data)


_IRI_LIKE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|urn:|ni:|mailto:|tag:)\S+$")
"""A value that is one absolute IRI (not a CURIE such as ``prov:used``, kept whole)."""


def _fit_words(text: str, width: int) -> str:
    """``text`` with each IRI longer than ``width`` shortened in the middle, so that
    wrapping never cuts one over two lines."""
    if _IRI_LIKE.match(text):
        return shorten_middle(text, width)
    if len(text) <= width:
        return text
    return re.sub(r"\S+", lambda m: shorten_middle(m.group(), width)
                  if len(m.group()) > width and _IRI_LIKE.match(m.group().strip("<>,;()"))
                  else m.group(), text)
_MIN_IRI, _MIN_TEXT, _MAX_ATOM = 12, 10, 25
"""Narrowest column for IRIs (``urn:u…0000a1``) and for wrapping text; a column of other
single words (times, outcomes, numbers) keeps its values whole up to this many characters."""


def terminal_width() -> int:
    """The width tables are fitted to: ``$COLUMNS``, else the terminal of standard output,
    else that of standard error (``provgraph ... --table | less``), else 80."""
    import os

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream.isatty():
                return os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            continue
    return 80


def shorten_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: its start and end around ``…``.

    Example:
        >>> shorten_middle("urn:uuid:01900000-0000-7000-8000-00000000000a", 16)
        'urn:uui…0000000a'
    """
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def _longest_word(text: str) -> int:
    """Length of the longest whitespace-separated word of ``text`` (0 when none)."""
    return max((len(w) for w in text.split()), default=0)


def _widths(natural: list[int], minimum: list[int], budget: int) -> list[int]:
    """Column widths within ``budget``: each column its natural width, capped at one
    common width chosen as large as fits, never below its minimum."""
    if sum(natural) <= budget:
        return natural
    lo, hi = 0, max(natural)
    while lo < hi:  # the largest cap that fits
        cap = (lo + hi + 1) // 2
        if sum(max(m, min(n, cap)) for n, m in zip(natural, minimum)) <= budget:
            lo = cap
        else:
            hi = cap - 1
    return [max(m, min(n, lo)) for n, m in zip(natural, minimum)]


_GAP = 2
"""Characters between two columns of a table (rich ``box.SIMPLE_HEAD``, edges unpadded)."""


def _write_table(data: Sequence[Mapping[str, Any]], cols: list[str], title: str | None,
                 out: IO[str], *, wide: bool) -> None:
    """A table fitted to the terminal, or, when its columns cannot fit even at their
    narrowest, one block of ``column value`` lines per row (psql's expanded display);
    ``wide``: every value whole, however wide."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    cells = [["" if r.get(c) is None else str(r.get(c)) for c in cols] for r in data]
    numeric = [bool(data) and all(isinstance(r.get(c), (int, float)) or r.get(c) is None
                                  for r in data) for c in cols]
    iri = [bool(cells) and any(row[i] for row in cells)
           and all(not row[i] or _IRI_LIKE.match(row[i]) for row in cells) for i in range(len(cols))]
    atom = [all(" " not in row[i] for row in cells) for i in range(len(cols))]
    longest = [max([0, *(len(row[i]) for row in cells)]) for i in range(len(cols))]
    natural = [max(len(c), n) for c, n in zip(cols, longest)]
    overhead = _GAP * (len(cols) - 1)
    width = terminal_width()
    if wide:
        widths = natural
    else:
        # a column is never narrower than its header's longest word: rich folds a header
        # like any cell, and a numeric column sized to its values cut "numerator" into
        # "nume/rato/r" (gate --table at 80 columns)
        minimum = [max(_longest_word(c),
                       min(n, _MIN_IRI if i else min(max(m, 1), _MAX_ATOM) if a else _MIN_TEXT))
                   for c, n, m, i, a in zip(cols, natural, longest, iri, atom)]
        if sum(minimum) + overhead > width:
            _write_records(cols, cells, title, out, width)
            return
        widths = _widths(natural, minimum, width - overhead)
        cells = [[_fit_words(v, widths[i]) for i, v in enumerate(row)] for row in cells]
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                  padding=(0, 1, 0, 0))
    for c, w, is_iri, is_atom, num in zip(cols, widths, iri, atom, numeric):
        table.add_column(c, width=w, no_wrap=is_iri, overflow="ellipsis" if is_iri else "fold",
                         justify="right" if num else "left")
    for row in cells:
        table.add_row(*row)
    Console(file=out, highlight=False, width=sum(widths) + overhead).print(table)


def _write_records(cols: list[str], cells: list[list[str]], title: str | None, out: IO[str],
                   width: int) -> None:
    """Rows as blocks of ``column  value`` lines, a rule between rows, values fitted to
    ``width`` (IRIs shortened in the middle, text wrapped)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    label = max(len(c) for c in cols)
    value = max(_MIN_IRI, width - label - _GAP)
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                  show_header=False, padding=(0, 1, 0, 0))
    table.add_column(width=label, no_wrap=True, style="bold")
    table.add_column(width=value, overflow="fold")
    for n, row in enumerate(cells):
        if n:
            table.add_section()
        for c, v in zip(cols, row):
            table.add_row(c, _fit_words(v, value))
    Console(file=out, highlight=False, width=label + _GAP + value).print(table)


_F = TypeVar("_F", bound=Callable[..., Any])


@overload
def output_options(fn: _F, *, json_default: bool | str = True) -> _F: ...
@overload
def output_options(fn: None = None, *, json_default: bool | str = True) -> Callable[[_F], _F]: ...
def output_options(fn: _F | None = None, *, json_default: bool | str = True
                   ) -> _F | Callable[[_F], _F]:
    """Click decorator adding ``-t/--table``, ``--json``, ``--nl``, ``--csv``, ``--tsv``
    (one option, ``fmt``: one of :data:`ROW_FORMATS`, ``None`` when none is given; the
    last one given wins) and ``--no-headers`` to a command.

    Use it bare (``@output_options``: JSON is the default) or as
    ``@output_options(json_default=False)`` for a command whose default output is
    something else (``lineage``'s tree), so that ``--json`` is not called the default;
    ``json_default="table"`` names the table as the default (``queries``: issue 17,
    its help called JSON the default while it printed a table).
    """
    def decorate(fn: _F) -> _F:
        fn = click.option("--no-headers", is_flag=True, help="Omit the CSV/TSV header line.")(fn)
        for names, value, helptext in reversed(_ROW_FLAGS):
            if json_default is not True:
                helptext = helptext.replace(" (default)", "")
            if json_default == value:
                helptext = helptext.rstrip(".") + " (default)."
            fn = click.option(*names, "fmt", flag_value=value, help=helptext)(fn)
        return fn

    return decorate if fn is None else decorate(fn)


_RELATION_ORDER = ("pg:citation", "pg:target", "prov:wasQuotedFrom", "pg:resolvedSnapshot",
                   "prov:wasDerivedFrom", "prov:wasRevisionOf", "prov:specializationOf",
                   "pg:answer", "prov:wasGeneratedBy", "prov:wasAssociatedWith", "prov:used",
                   "pg:aidUsed", "prov:wasInformedBy")
"""Sibling order in the lineage tree: evidence relations first, then the activities'."""


def write_lineage_tree(rows: Sequence[Any], out: IO[str] | None = None) -> None:
    """Write lineage rows as a tree: each node once, under the node it was first reached
    from, siblings by relation (evidence first), kind and IRI.

    Args:
        rows: :class:`provgraph.analytics.LineageRow` values as
            :func:`provgraph.analytics.lineage` returns them: the start node first
            (depth 0), every other row with its ``parent``, ``relation``, ``kind``,
            ``node`` and ``label``.
        out: text stream (default: standard output). On a terminal the tree is drawn by
            rich, styled and wrapped to the terminal's width; anywhere else it is plain
            text, one line per node, never wrapped (changed in issue 16: it was wrapped at
            240 characters), with the same guides, and rich is not imported.
    """
    def order(r: Any) -> tuple[int, str, str]:
        rel = r.relation or ""
        rank = _RELATION_ORDER.index(rel) if rel in _RELATION_ORDER else len(_RELATION_ORDER)
        return rank, r.kind, str(r.node)

    def text(r: Any) -> str:
        return (f"{r.relation} " if r.relation else "") + f"{r.kind} {r.node}" + (
            f"  {r.label}" if r.label else "")

    children: dict[Any, list[Any]] = {}
    for r in rows[1:]:
        children.setdefault(r.parent, []).append(r)
    out = out or sys.stdout
    if not out.isatty():
        # rich's guides (its ASCII ones where the stream cannot encode box drawing)
        encoding = (getattr(out, "encoding", None) or "utf-8").lower()
        space, bar, fork, end = (("    ", "│   ", "├── ", "└── ") if encoding.startswith("utf")
                                 else ("    ", "|   ", "+-- ", "`-- "))
        first, *more = text(rows[0]).split("\n")
        lines = [first, *more]
        # (row, prefix of its first line, prefix of its other lines and its children's)
        stack: list[tuple[Any, str, str]] = []

        def push(node: Any, indent: str) -> None:
            kids = sorted(children.get(node, ()), key=order)
            for i in range(len(kids) - 1, -1, -1):
                last = i == len(kids) - 1
                stack.append((kids[i], indent + (end if last else fork),
                              indent + (space if last else bar)))

        push(rows[0].node, "")
        while stack:
            row, head, indent = stack.pop()
            first, *more = text(row).split("\n")
            lines.append(head + first)
            lines.extend(indent + m for m in more)
            push(row.node, indent)
        out.write("\n".join(lines) + "\n")
        return
    from rich.console import Console
    from rich.text import Text
    from rich.tree import Tree

    def line(r: Any) -> Text:
        t = Text()
        if r.relation:
            t.append(r.relation + " ", style="dim")
        t.append(r.kind, style="bold")
        t.append(" " + str(r.node))
        if r.label:
            t.append("  " + r.label, style="cyan")
        return t

    root = Tree(line(rows[0]))
    todo = [(root, rows[0].node)]
    while todo:
        branch, node = todo.pop()
        for child in sorted(children.get(node, ()), key=order):
            todo.append((branch.add(line(child)), child.node))
    Console(file=out, highlight=False).print(root)


@contextlib.contextmanager
def staged_progress(stages: Mapping[str, str], *, takes_over: Collection[str] = ()
                    ) -> Iterator[Callable[[str, int, int], None]]:
    """Show a long command's progress on standard error while the block runs, only when
    standard error is a terminal (rich, imported only then; removed at the end).

    Args:
        stages: stage name -> label, in the order the stages run.
        takes_over: stages that, when they start, hide every stage shown before them
            that had not finished (the undo of an interrupted write: the write's own
            spinner would go on turning beside it).

    Yields:
        ``show(stage, done, total)``: ``done`` of ``total`` steps of ``stage`` are done
        (a stage whose total is 1 shows as a spinner until it is done). A no-op when
        standard error is not a terminal.
    """
    if not sys.stderr.isatty():
        yield lambda stage, done, total: None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                               TextColumn, TimeElapsedColumn)

    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                   MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    tasks: dict[str, Any] = {}

    def show(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            if stage in takes_over:
                for task in bar.tasks:
                    if not task.finished:
                        bar.update(task.id, visible=False)
            tasks[stage] = bar.add_task(stages.get(stage, stage),
                                        total=None if total <= 1 else total)
        bar.update(tasks[stage], completed=done,
                   total=(total if total > 1 or done >= total else None))

    with bar:
        yield show
