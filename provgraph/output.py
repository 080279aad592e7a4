"""Row and table writers shared by every CLI command that returns rows.

Formats (sqlite-utils conventions): ``json`` (default: a JSON array written one
object per line, so it streams and stays greppable), ``nl`` (newline-delimited
JSON), ``csv``, ``tsv`` and ``table`` (a rich table for people).
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any

import click

from .terms import XSD, Literal, Term

__all__ = ["plain", "plain_row", "write_rows", "output_options", "ROW_FORMATS"]

ROW_FORMATS = ("json", "nl", "csv", "tsv", "table")

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


def output_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Click decorator adding ``--json/--nl/--csv/--tsv/-t,--table`` (stored as ``fmt``)
    and ``--no-headers`` to a command."""
    fn = click.option("--no-headers", is_flag=True, help="Omit the CSV/TSV header line.")(fn)
    for flag, value, helptext in reversed([
        ("--json", "json", "JSON array, one object per line (default)."),
        ("--nl", "nl", "Newline-delimited JSON."),
        ("--csv", "csv", "Comma-separated values."),
        ("--tsv", "tsv", "Tab-separated values."),
    ]):
        fn = click.option(flag, "fmt", flag_value=value, help=helptext)(fn)
    fn = click.option("-t", "--table", "fmt", flag_value="table", help="A table for people.")(fn)
    return fn
