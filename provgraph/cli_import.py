"""The ``import`` command (issue 5): a PROV document, or a RAG answer file, into the store,
atomic and streamed where the format allows, or ``--bulk`` without a transaction; thin over
:mod:`provgraph.io.load`, the streamed readers of :mod:`provgraph.io` and
:mod:`provgraph.importers`. :mod:`provgraph.cli` adds it to its group (:data:`COMMANDS`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import importers
from .cli_support import (EXIT_ERROR, EXIT_INTERRUPTED, InputError, _Choices, _Ctx,
                          _document_formats, _stored_since, _write_progress, pass_ctx)
from .errors import SerializationError
from .output import staged_progress

__all__ = ["COMMANDS"]

# The --format choices are the library's registries (cli_support._Choices): the readable
# formats of provgraph.io.FORMATS and the RAG answer formats of provgraph.importers.FORMATS.
_RAG_FORMATS = tuple(importers.FORMATS)


def _import_formats() -> tuple[str, ...]:
    return _document_formats() + _RAG_FORMATS


def _graph_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A click callback: an absolute IRI that is not one of provgraph's reserved graphs."""
    if value is None:
        return None
    from .io.load import check_target_graph

    why = check_target_graph(value)
    if why is not None:
        raise click.BadParameter(why)
    return value


@click.command(name="import")
@click.argument("file", type=click.File("rb"))
@click.option("--format", "fmt", type=_Choices(_import_formats), default="auto",
              show_default=True, help="Input format; 'auto' tells it from the content.")
@click.option("--graph", metavar="IRI", callback=_graph_option,
              help="Named graph for statements outside any bundle (not a provgraph graph).")
@click.option("--source", "sources", multiple=True,
              type=click.Path(exists=True, file_okay=True, dir_okay=True),
              help="A source file, or a directory searched recursively, that the answer draws "
              "on (--format answer only; repeatable).")
@click.option("--partial", is_flag=True,
              help="Store what can be stored and report the rest (RAG answer formats only).")
@click.option("--bulk", is_flag=True,
              help="Stream a large N-Quads (.nq) or N-Triples (.nt) file in flat memory (a file "
              "with blank nodes, '_:', is loaded in one piece: memory grows with it), WITHOUT a "
              "transaction: a syntax error leaves part of the file stored, before or after it.")
@pass_ctx
def import_(obj: _Ctx, file: Any, fmt: str, graph: str | None, sources: tuple[str, ...],
            partial: bool, bulk: bool) -> None:
    """Import a PROV document (or a RAG answer file) into the store; '-' reads stdin.

    PROV bundles become named graphs. The import is atomic: all statements are
    stored or none. An input that holds statements but yields none is an error.
    N-Quads, N-Triples, Turtle, TriG, PROV-JSON, PROV-XML, PROV-N, JSON-LD and
    RDF/XML are streamed, still all or nothing, without holding the document: a
    file by its extension or any input under --format (stdin through a temporary
    copy); a document a streamed reader cannot read exactly as the whole read
    does is read whole, and a file that changes while it is read is refused
    (bench/RESULTS.md, issue 16 item 6, has the memory figures). --bulk streams an N-Quads or
    N-Triples file faster, at the price of atomicity and of the checks above, but for
    one: no import, --bulk included, writes into urn:provgraph:graph:ontology.
    --graph may not name provgraph's own graphs (urn:provgraph:graph:ingestion,
    urn:provgraph:graph:ontology, urn:provgraph:graph:removals); a TriG or N-Quads file
    written by 'export --all' keeps its graphs, the ingestion graph included, when
    imported without --graph.

    \b
    Example:
        provgraph import primer.provn
        provgraph import --format prov-json --graph urn:example:g1 - < doc.json
        provgraph import store.trig          # restores 'export --all --format trig'
        provgraph import --format answer answer.md --source sources/
        provgraph import traces.otlp.jsonl   # OTLP JSON Lines: detected, one run per trace
        provgraph import --bulk backfill.nq  # large loads: streamed, not atomic
    """
    if bulk:
        _bulk_import(obj, file, fmt, graph, sources, partial)
        return
    try:
        _import(obj, file, fmt, graph, sources, partial)
    except BaseException as exc:  # a store this import created is not left behind empty
        if not isinstance(exc, click.exceptions.Exit):  # (an Exit comes after storing)
            if isinstance(exc, KeyboardInterrupt) and obj.on_interrupt is not None:
                said = obj.on_interrupt()  # counted now: the note must not reopen the store
                obj.on_interrupt = lambda: said
            obj.discard_if_new()
        raise


def _import(obj: _Ctx, file: Any, fmt: str, graph: str | None, sources: tuple[str, ...],
            partial: bool) -> None:
    """``import`` without --bulk: atomic, so a failure stores nothing."""
    name = getattr(file, "name", "-")
    name = "<stdin>" if name in ("-", "<stdin>") else str(name)
    with contextlib.ExitStack() as stack:
        if fmt in _STREAMABLE and not (sources or partial):
            file = _rereadable_bytes(file, stack)  # standard input: a temporary copy
        if _import_streamed(obj, file, fmt, graph, name, bool(sources or partial)):
            return
        data = file.read()
    _import_whole(obj, data, fmt, graph, name, sources, partial)


_STREAMABLE = frozenset({"nquads", "ntriples", "turtle", "trig", "prov-json", "prov-xml", "provn",
                         "rdf-xml", "json-ld"})
"""Formats ``import`` streams (:func:`_import_streamed`), standard input included when
the format is named."""


def _rereadable_bytes(stream: Any, stack: contextlib.ExitStack) -> Any:
    """``stream`` (binary) when it can be read again from its start, else a temporary copy
    of it (standard input, a pipe), closed with ``stack``: a streamed import reads its
    input more than once, and the whole read after a streamed reader declines it."""
    try:
        if stream.seekable():
            return stream
    except (AttributeError, OSError, ValueError):
        pass
    import shutil
    import tempfile

    copy = stack.enter_context(tempfile.TemporaryFile("w+b"))
    shutil.copyfileobj(stream, copy, 1 << 20)
    copy.seek(0)
    return copy


def _import_whole(obj: _Ctx, data: bytes, fmt: str, graph: str | None, name: str,
                  sources: tuple[str, ...], partial: bool) -> None:
    """``import`` of a document read whole (formats and inputs not streamed)."""
    if fmt == "auto":
        fmt = importers.detect(data) or fmt  # a RAG format with an unmistakable shape (otlp)
    obj.on_interrupt = lambda: f"nothing from {name} was stored"
    if fmt in _RAG_FORMATS:
        from .importers import import_file

        store = obj.store(create=True)
        obj.on_interrupt = _stored_since(obj, len(store), name)
        with _write_progress(store, "import", name, f"importing {name}") as show:
            show("import", 0, 1)
            report = import_file(store, fmt, data, name, [Path(p) for p in sources], partial)
        for err in getattr(report, "errors", []) or []:
            click.echo(f"error: {err}", err=True)
        for warning in getattr(report, "warnings", ()) or ():
            click.echo(f"warning: {warning}", err=True)
        if not report.stored:
            raise InputError(f"{name}: nothing was stored")
        runs = " ".join(str(r) for r in getattr(report, "runs", ()))
        click.echo(f"imported {name} ({fmt}): {report.stored} statements stored"
                   + (f" in run(s) {runs} ('provgraph delete-run RUN' undoes one)" if runs else ""),
                   err=True)
        if getattr(report, "errors", None) and not partial:
            raise click.exceptions.Exit(EXIT_ERROR)
        return
    if sources or partial:
        raise click.UsageError("--source and --partial apply only to the RAG answer formats "
                               f"({', '.join(_RAG_FORMATS)})")
    from .io.load import import_document

    store = obj.store(create=True)
    obj.on_interrupt = _stored_since(obj, len(store), name)
    with _write_progress(store, "import", name, f"importing {name}") as show:
        show("import", 0, 1)
        done = import_document(store, data, fmt, graph=graph, name=name)
    _imported(done)


def _import_streamed(obj: _Ctx, file: Any, fmt: str, graph: str | None, name: str,
                     rag_options: bool) -> bool:
    """Stream a file into the store, the document never held whole, all or nothing
    (:func:`provgraph.io.stream_load.import_rdf_stream` for N-Quads, Turtle and TriG;
    :mod:`provgraph.io.provjson_stream_read`, :mod:`provgraph.io.provxml_stream_read`,
    :mod:`provgraph.io.provn_stream_read` for PROV-JSON, PROV-XML and PROV-N;
    :mod:`provgraph.io.rdf_stream_read` for RDF/XML and JSON-LD) when its format allows;
    ``False`` when it is read whole. A file whose content does not fit its extension
    under ``--format auto``, or that every streamed reader that may take it leaves to the
    whole read (``NotStreamed``), is read whole afterwards (nothing of it stayed stored),
    so its error is the one of the whole read."""
    from .io.provjson_stream_read import import_provjson_stream, streams_provjson
    from .io.provn_stream_read import import_provn_stream, streams_provn
    from .io.provxml_stream_read import import_provxml_stream, streams_provxml
    from .io.rdf_stream_read import (import_jsonld_stream, import_rdfxml_stream,
                                     streams_jsonld, streams_rdfxml)
    from .io.stream_load import (NotProvDocument, NotStreamed, SourceChanged, import_rdf_stream,
                                 streamed_format)

    if rag_options or not file.seekable():
        return False
    head = file.read(65536)
    file.seek(0)
    auto = fmt == "auto"
    readers: list[Callable[[Any], Any]] = []
    rdf = streamed_format(head, fmt, name)
    if rdf is not None:
        readers.append(lambda store: import_rdf_stream(store, file, rdf, graph=graph, name=name))
    # tried in this order: a .json file may be PROV-JSON or JSON-LD, a .xml one PROV-XML
    # or RDF/XML; each reader leaves what is not its own (NotStreamed) to the next
    for streams, reader in (
            (streams_provjson, lambda store: import_provjson_stream(store, file, graph=graph,
                                                                    name=name)),
            (streams_jsonld, lambda store: import_jsonld_stream(store, file, graph=graph,
                                                                name=name, auto=auto)),
            (streams_provxml, lambda store: import_provxml_stream(store, file, graph=graph,
                                                                  name=name)),
            (streams_rdfxml, lambda store: import_rdfxml_stream(store, file, graph=graph,
                                                                name=name, auto=auto)),
            (streams_provn, lambda store: import_provn_stream(store, file, graph=graph,
                                                              name=name))):
        if rdf is None and streams(head, fmt, name):
            readers.append(reader)
    if not readers:
        return False
    obj.on_interrupt = lambda: f"nothing from {name} was stored"  # while the store opens
    store = obj.store(create=True)
    if not store.journals:
        return False
    obj.on_interrupt = _stored_since(obj, len(store), name)
    done = None
    with _write_progress(store, "import", name, f"importing {name}") as show:
        show("import", 0, 1)
        for reader in readers:
            try:
                done = reader(store)
                break
            except NotStreamed:  # the next reader, or read whole (nothing was stored)
                file.seek(0)
            except SerializationError as exc:
                if not auto or isinstance(exc, (SourceChanged, NotProvDocument)):
                    raise  # never read it again whole
                file.seek(0)
                return False
    if done is None:
        return False
    _imported(done)
    return True


def _imported(done: Any) -> None:
    """Print what an import of a PROV document stored (:class:`provgraph.io.load.ImportReport`)."""
    name = done.name
    for w in done.warnings:
        click.echo(f"warning: {w}", err=True)
    graphs = ", ".join("default graph" if g is None else f"<{g}>" for g in done.graphs)
    click.echo(f"imported {name} ({done.format}): {done.stored} statements stored "
               f"({done.new} new, {done.inferred} inferred) in {graphs}", err=True)
    if done.warnings:
        click.echo("run 'provgraph validate' to check the PROV constraints", err=True)


_BULK_EXTENSIONS = {".nq": "nquads", ".nquads": "nquads", ".nt": "ntriples", ".ntriples": "ntriples"}


def _bulk_import(obj: _Ctx, file: Any, fmt: str, graph: str | None,
                 sources: tuple[str, ...], partial: bool) -> None:
    """``import --bulk``: :meth:`provgraph.store.EmbeddedStore.bulk_load` of a named file."""
    name = getattr(file, "name", "-")
    if name in ("-", "<stdin>"):
        raise click.UsageError("--bulk reads a file by its path, not standard input; "
                               "save the input to a .nq or .nt file first")
    if sources or partial:
        raise click.UsageError("--bulk takes neither --source nor --partial")
    path = Path(name)
    kind = fmt if fmt == "nquads" else _BULK_EXTENSIONS.get(path.suffix.lower())
    if fmt not in ("auto", "nquads") or kind is None:
        raise click.UsageError(
            f"--bulk streams N-Quads (.nq) or N-Triples (.nt) only, not {path.name}"
            f"{'' if fmt == 'auto' else f' as {fmt}'}; convert it (for example "
            "'provgraph export --all --format nquads' from a scratch store), or import it "
            "without --bulk (atomic, read whole)")
    if kind == "nquads" and graph is not None:
        raise click.UsageError("--graph applies to N-Triples only under --bulk: N-Quads "
                               "statements carry their own graph")
    from .io.load import check_bulk_file
    from .terms import IRI

    file.close()
    try:  # before the store is opened: --bulk has no transaction to undo a refusal
        check_bulk_file(path, kind)
    except SerializationError as exc:
        raise InputError(str(exc)) from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read it: {exc}") from exc
    store = obj.store(create=True)
    before = len(store)
    try:
        with staged_progress({"import": f"loading {path.name} (bytes)"}) as show:
            store.bulk_load(path, kind, graph=IRI(graph) if graph else None,
                            progress=lambda n, total: show("import", n, total))
    except SerializationError as exc:
        raise InputError(
            f"{exc}. --bulk has no transaction: part of the file, before or after the error, "
            "may already be stored; fix the file and load it again (a statement already stored is not "
            "stored twice, unless it has a blank node)") from exc
    except KeyboardInterrupt:
        click.echo(f"Error: interrupted: {len(store) - before} statements of {path} were stored "
                   "before the interrupt (--bulk has no transaction); load the file again to "
                   "finish (a statement already stored is not stored twice)", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    where = f"<{graph}>" if graph else ("its graphs" if kind == "nquads" else "default graph")
    after = len(store)
    click.echo(f"bulk-loaded {path} ({kind}) into {where}, without a transaction: "
               f"{after - before} statements added ({after} in the store); run 'provgraph "
               "validate' to check it", err=True)


COMMANDS = (import_,)
"""The commands :mod:`provgraph.cli` adds to its group."""
