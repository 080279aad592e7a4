"""Row and table writers shared by every CLI command that returns rows.

Formats (sqlite-utils conventions): ``json`` (default: a JSON array written one
object per line, so it streams and stays greppable), ``nl`` (newline-delimited
JSON), ``csv``, ``tsv`` and ``table`` (a rich table for people).
"""

from __future__ import annotations

import contextlib
import csv
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, TypeVar, overload

import click

from .terms import XSD, Literal, Term

__all__ = ["plain", "plain_row", "write_rows", "write_lineage_tree", "output_options",
           "staged_progress", "ROW_FORMATS"]

_ROW_FLAGS = (  # (option names, format, help), in the order --help lists them
    (("-t", "--table"), "table", "A table for people."),
    (("--json",), "json", "JSON array, one object per line (default)."),
    (("--nl",), "nl", "Newline-delimited JSON."),
    (("--csv",), "csv", "Comma-separated values."),
    (("--tsv",), "tsv", "Tab-separated values."),
)
ROW_FORMATS = tuple(fmt for _, fmt, _ in _ROW_FLAGS)
"""The row formats :func:`write_rows` writes and :func:`output_options` offers."""

_NUMERIC = {XSD + t: int for t in ("integer", "int", "long", "nonNegativeInteger", "positiveInteger")}
_NUMERIC.update({XSD + "double": float, XSD + "float": float, XSD + "decimal": float})  # type: ignore[dict-item]


def plain(term: Term | Any | None) -> Any:
    """A JSON-friendly value of an RDF term: IRIs and blank nodes as text, numeric
    and boolean literals as numbers and booleans, other literals by lexical form."""
    if term is None:
        return None
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
               title: str | None = None) -> int:
    """Write rows in ``fmt``; return how many were written.

    Args:
        rows: mappings of column name to a term or plain value.
        columns: column order (default: keys of the first row).
        fmt: one of :data:`ROW_FORMATS`.
        out: text stream (default: standard output).
        no_headers: omit the header line of ``csv``/``tsv``.
        title: caption of a ``table``.
    """
    out = out or sys.stdout
    data = [plain_row(r) for r in rows]
    cols = list(columns) if columns else (list(data[0]) if data else [])
    if fmt == "json":
        if not data:
            out.write("[]\n")
        for i, r in enumerate(data):
            text = json.dumps({c: r.get(c) for c in cols}, ensure_ascii=False, default=str)
            out.write(("[" if i == 0 else " ") + text + ("]\n" if i == len(data) - 1 else ",\n"))
    elif fmt == "nl":
        for r in data:
            out.write(json.dumps({c: r.get(c) for c in cols}, ensure_ascii=False, default=str) + "\n")
    elif fmt in ("csv", "tsv"):
        w = csv.writer(out, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        if not no_headers:
            w.writerow(cols)
        for r in data:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
    elif fmt == "table":
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, show_lines=False)
        for c in cols:
            table.add_column(c, overflow="fold")
        for r in data:
            table.add_row(*("" if r.get(c) is None else str(r.get(c)) for c in cols))
        Console(file=out, width=max(100, min(200, 30 * len(cols)))).print(table)
    else:
        raise click.BadParameter(f"unknown output format {fmt!r}; use one of {ROW_FORMATS}")
    return len(data)


_F = TypeVar("_F", bound=Callable[..., Any])


@overload
def output_options(fn: _F, *, json_default: bool = True) -> _F: ...
@overload
def output_options(fn: None = None, *, json_default: bool = True) -> Callable[[_F], _F]: ...
def output_options(fn: _F | None = None, *, json_default: bool = True
                   ) -> _F | Callable[[_F], _F]:
    """Click decorator adding ``-t/--table``, ``--json``, ``--nl``, ``--csv``, ``--tsv``
    (one option, ``fmt``: one of :data:`ROW_FORMATS`, ``None`` when none is given; the
    last one given wins) and ``--no-headers`` to a command.

    Use it bare (``@output_options``: JSON is the default) or as
    ``@output_options(json_default=False)`` for a command whose default output is
    something else (``lineage``'s tree), so that ``--json`` is not called the default.
    """
    def decorate(fn: _F) -> _F:
        fn = click.option("--no-headers", is_flag=True, help="Omit the CSV/TSV header line.")(fn)
        for names, value, helptext in reversed(_ROW_FLAGS):
            if not json_default:
                helptext = helptext.replace(" (default)", "")
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
def staged_progress(stages: Mapping[str, str]) -> Iterator[Callable[[str, int, int], None]]:
    """Show a long command's progress on standard error while the block runs, only when
    standard error is a terminal (rich, imported only then; removed at the end).

    Args:
        stages: stage name -> label, in the order the stages run.

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
            tasks[stage] = bar.add_task(stages.get(stage, stage),
                                        total=None if total <= 1 else total)
        bar.update(tasks[stage], completed=done,
                   total=(total if total > 1 or done >= total else None))

    with bar:
        yield show
