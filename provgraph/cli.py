"""The ``provgraph`` command line: a thin click layer over the library.

Each command calls one library function, formats its result, and lets the
group turn any :class:`~provgraph.errors.ProvgraphError` into ``Error: ...``
with exit status 2, as click does for usage errors (:data:`EXIT_ERROR`; 1 is kept for
checks that found something, :data:`EXIT_FOUND`). Data goes to standard output;
progress and notes go to standard error.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import cli_evaluate, cli_import, cli_review, cli_trust
from .cli_support import (CONTEXT_SETTINGS, EXIT_ERROR, EXIT_FOUND, EXIT_INTERRUPTED, EXIT_OK,
                          Found, InputError, _Choices, _Ctx, _document_formats, _exit_if_found,
                          _fail_option, _iri_option, _policy_names, _run_option, _stored_since,
                          _write_progress, _write_result, pass_ctx)
from .cli_trust import KeyFile
from .errors import ProvgraphError
from .output import ROW_FORMATS, output_options, staged_progress, write_lineage_tree, write_rows
from .vocab import UNITS

__all__ = ["EXIT_ERROR", "EXIT_FOUND", "EXIT_INTERRUPTED", "EXIT_OK", "FOUND", "Found",
           "InputError", "LINEAGE_FORMATS", "RESOLUTION_COLUMNS", "cli", "main"]


FOUND = {
    "validate": "a PROV-CONSTRAINTS or SHACL violation",
    "verify-bundle": "the bundle was altered (its digest or its graphs differ), or with --key "
                     "it is unsigned or not signed by that key",
    "verify": "the ledger's chain is broken, the store or a retained original differs from it, "
              "a checkpoint does not hold, or the store has no ledger",
    "resolve": "a retained original is missing or corrupt (named; its citations are snapshot_mismatch)",
    "check-quote": "the quote does not match (any outcome but quote_match and normalized_match)",
    "gate": "a release gate failed (the report names each one and its numbers)",
    "fixture": "`fixture check` found a problem in the fixture (one line each)",
    "upgrade": "an outdated record it cannot fix safely (named, with what to do by hand)",
}
"""Commands that exit 1 (:data:`EXIT_FOUND`) for what they find without --fail-on-found,
and what that is; every command with --fail-on-found exits 1 when it prints rows."""


class _Group(click.Group):
    """A click group that reports provgraph errors as ``Error: ...`` (exit 2, as click does
    for usage errors) and an interrupt as one line (exit 130), never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ProvgraphError as exc:
            raise InputError(str(exc)) from exc
        except UnicodeDecodeError as exc:
            raise InputError(
                f"the input is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                f"{exc.start}); convert it to UTF-8 first") from exc
        except BrokenPipeError:  # the reader went away ('provgraph ... | head'):
            raise  # click stops quietly (exit 1), as other command-line tools do
        except KeyboardInterrupt:  # Ctrl-C: say what was and was not done (issue 16)
            obj = ctx.obj if isinstance(ctx.obj, _Ctx) else None
            click.echo(f"Interrupted: {_interrupted(obj)}", err=True)
            sys.exit(130)
        except OSError as exc:  # a user's file that cannot be read or written
            where = f": {exc.filename}" if exc.filename else ""
            raise InputError(f"{exc.strerror or exc}{where}") from exc


def _interrupted(obj: _Ctx | None) -> str:
    """The sentence after 'Interrupted: ' when Ctrl-C stops a command."""
    if obj is not None and obj.on_interrupt is not None:
        return obj.on_interrupt()
    if obj is None or obj._store is None or not obj._writer:
        return "the store was not changed"
    return ("each write is one transaction, so the store holds all or none of each; "
            "run the command again to finish")


@click.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
@click.option("--store", "store_path", metavar="PATH", envvar="PROVGRAPH_STORE",
              callback=lambda ctx, param, value: _non_empty_store(value),
              help="Store directory (default: $PROVGRAPH_STORE, else ./.provgraph).")
@click.option("--memory", is_flag=True,
              help="Use a throw-away in-memory store (it overrides $PROVGRAPH_STORE).")
@click.option("--endpoint", metavar="URL", envvar="PROVGRAPH_ENDPOINT",
              help="Keep the statements on a SPARQL 1.1 endpoint (its query URL) instead of "
                   "the store directory, which then holds only the retained originals. "
                   "Credentials: $PROVGRAPH_ENDPOINT_USER, $PROVGRAPH_ENDPOINT_PASSWORD[_FILE].")
@click.option("--update-endpoint", metavar="URL", envvar="PROVGRAPH_UPDATE_ENDPOINT",
              help="Its SPARQL 1.1 Update URL, where the engine uses a separate one.")
@click.option("--gsp-endpoint", metavar="URL", envvar="PROVGRAPH_GSP_ENDPOINT",
              help="Its Graph Store Protocol URL (bulk loads), where the engine has one.")
@click.option("--lock-timeout", type=click.FloatRange(min=0), metavar="SECONDS",
              envvar="PROVGRAPH_LOCK_TIMEOUT",
              help="How long a writing command waits while another process writes the "
                   "store (default 30; reading commands never wait).")
@click.version_option(package_name="provgraph")
@click.pass_context
def cli(ctx: click.Context, store_path: str | None, memory: bool, endpoint: str | None = None,
        update_endpoint: str | None = None, gsp_endpoint: str | None = None,
        lock_timeout: float | None = None) -> None:
    """provgraph: W3C PROV provenance for RAG answers.

    \b
    Record pipeline steps, check citations against retained original bytes,
    and ask lineage, staleness and change-impact questions.

    \b
    Example:
        provgraph init
        provgraph record events.jsonl
        provgraph queries

    \b
    Exit status: 0 done (also when nothing was found); 1 a check found
    something (rows with --fail-on-found; validate, verify-bundle, check-quote);
    2 a usage or input error, printed as 'Error: ...'; 130 interrupted.
    """
    if memory and store_path:
        if ctx.get_parameter_source("store_path") is click.core.ParameterSource.ENVIRONMENT:
            store_path = None  # an option given on the command line beats the environment
        else:
            raise click.UsageError("--memory and --store PATH exclude each other; pass one")
    if memory and endpoint:
        if ctx.get_parameter_source("endpoint") is click.core.ParameterSource.ENVIRONMENT:
            endpoint = update_endpoint = gsp_endpoint = None  # --memory beats the environment
        else:
            raise click.UsageError("--memory and --endpoint URL exclude each other; pass one")
    endpoints = {k: v for k, v in (("endpoint", endpoint), ("update_endpoint", update_endpoint),
                                   ("gsp_endpoint", gsp_endpoint)) if v}
    if endpoints and not endpoint:
        raise click.UsageError("--update-endpoint and --gsp-endpoint need --endpoint URL")
    obj = _Ctx(store_path, memory, endpoints, lock_timeout)
    obj.store_from_env = (store_path is not None and ctx.get_parameter_source("store_path")
                          is click.core.ParameterSource.ENVIRONMENT)
    ctx.obj = obj
    ctx.call_on_close(obj.close)


for _command in (*cli_trust.COMMANDS,  # verify, rebuild, checkpoint, keygen (issue 20)
                 *cli_import.COMMANDS,  # import (issue 5)
                 *cli_evaluate.COMMANDS,  # metrics, evaluate, gate (issue 18)
                 *cli_review.COMMANDS):  # review, adjudicate (issue 18 part 4)
    cli.add_command(_command)


@cli.command()
@pass_ctx
def init(obj: _Ctx) -> None:
    """Create the store (if needed) and load the bundled ontology and shapes.

    \b
    Example:
        provgraph --store /tmp/pg init
    """
    from .ontology import init_store

    store = obj.store(create=True)
    n = init_store(store)
    click.echo(f"store ready at {store.location} ({n} ontology statements loaded)", err=True)


@cli.command()
@click.argument("events", type=click.File("r", encoding="utf-8-sig"))
@pass_ctx
def record(obj: _Ctx, events: Any) -> None:
    """Record a JSONL event log (schemas/events-v1.schema.json); '-' reads stdin.

    The file is checked completely first; a malformed line is reported with its
    line number and field and nothing from the file is stored. It is then read
    again and recorded in batches: a failure or Ctrl-C part-way, or a killed
    process, still leaves nothing from it (the next write to the store undoes it).

    \b
    Example:
        provgraph record pipeline-events.jsonl
    """
    from .events import check_events, iter_checked, record_events

    name = getattr(events, "name", "-")
    name = "<stdin>" if name in ("-", "<stdin>") else str(name)
    with contextlib.ExitStack() as stack:
        try:
            source = _rereadable(events, stack)
            # every bad line, before any store is opened; nothing of the log is kept
            count, lines = check_events(source, name)
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{name}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} does not "
                "decode); convert it to UTF-8 first; nothing from this file was stored") from exc
        source.seek(0)
        store = obj.store(create=True)
        before = len(store)
        stored = _stored_since(obj, before, name)
        obj.on_interrupt = lambda: (
            f"the undo of {name} did not finish; the next command that writes to this store "
            f"finishes it (nothing from {name} is kept)"
            if getattr(store, "unfinished", None) else stored())
        try:
            with _write_progress(store, "record", name, f"recording {name}") as show:
                rec = record_events(store, iter_checked(source, name), name=name, count=count,
                                    progress=lambda n: show("record", n, lines))
        except BaseException:
            obj.discard_if_new()  # a store this command created is not left behind empty
            raise
    click.echo(f"recorded run {rec.iri}: {len(store) - before} statements added", err=True)


def _rereadable(stream: Any, stack: contextlib.ExitStack) -> Any:
    """``stream`` when it can be read twice (a file), else a temporary copy of it (standard
    input, a pipe), closed with ``stack``."""
    try:
        if stream.seekable():
            stream.seek(0)
            return stream
    except (AttributeError, OSError, ValueError):
        pass
    import shutil
    import tempfile

    copy = stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))
    shutil.copyfileobj(stream, copy)
    copy.seek(0)
    return copy


def _parse_params(params: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in params:
        if "=" not in p:
            raise click.BadParameter(f"{p!r} is not name=value", param_hint="-p/--param")
        k, v = p.split("=", 1)
        out[k.strip().lstrip("?$")] = v
    return out


def _complete_query(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion of ``query NAME``: the named queries."""
    from .queries import QueryCatalog

    return [n for n in QueryCatalog().names() if n.startswith(incomplete)]


@cli.command()
@click.argument("name", metavar="NAME|FILE.rq|SPARQL|-", shell_complete=_complete_query)
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A query parameter, bound as an RDF term of its declared type.")
@_fail_option
@output_options
@pass_ctx
def query(obj: _Ctx, name: str, params: tuple[str, ...], fail_on_found: bool, fmt: str | None,
          no_headers: bool) -> None:
    """Run a named query (see 'provgraph queries'), a .rq file, or SPARQL text.

    NAME is a query name, a path to a .rq file, a SELECT query given inline (any
    text with a space or a brace), or '-' for SPARQL text on standard input. Text
    and files are checked as untrusted SPARQL (no SERVICE, no LOAD, no update).

    \b
    Example:
        provgraph query lineage -p entity=urn:uuid:0190... --table
        provgraph query "SELECT ?run WHERE { ?run a <https://w3id.org/provgraph/ns#Run> }"
        provgraph query unreviewed-claims --fail-on-found
    """
    from .queries import QueryCatalog

    cat = QueryCatalog()
    q = cat.get(sys.stdin.read() if name == "-" else name)
    rows = cat.run(obj.store(read_only=True), q, _parse_params(params), require_known=True)
    n = write_rows(rows, q.returns, fmt=fmt or "json", no_headers=no_headers, title=q.name)
    _exit_if_found(n, q.name, fail_on_found)


@cli.command()
@output_options(json_default="table")
def queries(fmt: str | None, no_headers: bool) -> None:
    """List the named queries with their parameters and summaries.

    \b
    Example:
        provgraph queries --table
    """
    from .queries import QueryCatalog

    rows = [{"name": q.name,
             "params": " ".join(("[?%s:%s]" if p.optional else "?%s:%s") % (p.name, p.type)
                                for p in q.params),
             "summary": q.summary} for q in QueryCatalog()]
    write_rows(rows, ["name", "params", "summary"], fmt=fmt or "table", no_headers=no_headers)


@cli.command()
@click.option("--store", "demo_store", metavar="PATH",
              help="Where the demo store goes (default: provgraph's --store or $PROVGRAPH_STORE, "
                   "else ./.provgraph-demo).")
@pass_ctx
def demo(obj: _Ctx, demo_store: str | None) -> None:
    """Run the reference RAG pipeline end to end and show what an auditor sees.

    The store is recreated on every run; a directory that is not a demo store is
    never deleted. The report ends with commands to try next, spelled with the
    program as it was run (.venv/bin/provgraph after 'make demo').

    \b
    Example:
        provgraph --store /tmp/provgraph-demo demo
    """
    try:
        from .demo import run_demo
    except ImportError as exc:  # a dependency of the demo (docutils, rank-bm25, yaml)
        missing = exc.name or str(exc)
        raise InputError(f"provgraph demo needs {missing}, which does not import ({exc}); "
                         "reinstall provgraph with its dependencies ('make demo', or pip "
                         "install -e .)") from exc
    where = demo_store or obj.store_path  # the group's --store, or $PROVGRAPH_STORE (issue 17)
    run_demo(Path(where) if where else None, program=_program())


def _program() -> str:
    """How to spell this program in commands printed for the user to run (issue 17:
    ``provgraph`` is not on PATH after ``make demo``): ``provgraph`` when that is what
    PATH finds, else the path it was run by (``.venv/bin/provgraph``), or
    ``python -m provgraph`` when it was run so."""
    import os
    import shlex
    import shutil

    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name == "__main__.py":
        return f"{shlex.quote(sys.executable)} -m provgraph"
    found = shutil.which("provgraph")
    if found and argv0 and os.path.realpath(found) == os.path.realpath(argv0):
        return "provgraph"
    if Path(argv0).name == "provgraph" and os.path.exists(argv0):
        return shlex.quote(argv0)
    return "provgraph"


# ---------------------------------------------------------------------------
# PROV interchange (issue 5): export, verify-bundle, validate ('import' is in cli_import.py)

# The choice lists are the library's registries (cli_support._Choices), never copies of them.
def _export_formats() -> tuple[str, ...]:
    from . import io

    return tuple(io.FORMATS)


def _non_empty_store(value: str | None) -> str | None:
    """``--store ""`` is a usage error (issue 15: it stored into the current directory)."""
    if value is not None and not value.strip():
        raise click.BadParameter("is empty; give the store directory, or leave --store and "
                                 "$PROVGRAPH_STORE out for ./.provgraph", param_hint="'--store'")
    return value


@cli.command()
@click.option("--claim", metavar="IRI", callback=_iri_option,
              help="Export this claim's lineage bundle.")
@click.option("--run", "run_iri", metavar="IRI", callback=_iri_option,
              help="Export this run's lineage bundle.")
@click.option("--all", "everything", is_flag=True, help="Export every graph of the store.")
@click.option("--format", "fmt", type=_Choices(_export_formats),
              help="Output format (default: from the -o extension).")
@click.option("-o", "--output", default="-", metavar="FILE", show_default=True,
              help="Output file; '-' is standard output.")
@click.option("--sign-key", type=KeyFile(private=True), metavar="FILE",
              help="Sign the bundle's digest with this Ed25519 private key file.")
@click.option("--sign", is_flag=True,
              help="Sign with the key in $PROVGRAPH_SIGNING_KEY (a file name or PEM text).")
@pass_ctx
def export(obj: _Ctx, claim: str | None, run_iri: str | None, everything: bool, fmt: str | None,
           output: str, sign_key: str | None, sign: bool) -> None:
    """Export a claim bundle, a run bundle or the whole store.

    A claim bundle holds the claim's whole lineage and records the sha-256 of its
    canonical content (check it with 'provgraph verify-bundle'); with --sign-key
    (or --sign) it is also signed, so 'verify-bundle --key PUB' proves who exported it.

    \b
    Example:
        provgraph export --claim urn:uuid:0190... -o claim.json
        provgraph export --claim urn:uuid:0190... --sign-key signing.pem -o claim.json
        provgraph export --all --format trig -o store.trig
    """
    from .io.bundle import export as do_export
    from .io.files import atomic_write

    if sum((claim is not None, run_iri is not None, everything)) != 1:
        raise click.UsageError("give exactly one of --claim IRI, --run IRI, --all")
    key = None
    if sign_key is not None or sign:
        if everything:
            raise click.UsageError("--sign-key and --sign sign a bundle: give --claim or --run")
        from .signing import load_private_key

        key = load_private_key(sign_key)
    if output != "-":
        from .io.files import check_output_file

        check_output_file(output)  # a directory is not a file of an unknown format
    if fmt is None:
        if output == "-":
            raise click.UsageError("--format is required when writing to standard output")
        from .io import format_for_path

        fmt = format_for_path(output)
    if output == "-":
        result = do_export(obj.store(read_only=True), fmt, claim=claim, run=run_iri, everything=everything,
                           out=sys.stdout.buffer, signing_key=key)
        sys.stdout.buffer.flush()
    else:  # written beside the file and renamed into place: never a half-written file
        result = atomic_write(output, lambda fh: do_export(
            obj.store(read_only=True), fmt, claim=claim, run=run_iri, everything=everything, out=fh,
            signing_key=key))
    what = f"bundle <{result.bundle}>" if result.bundle else "store"
    digest = f", sha256 {result.digest}" if result.digest else ""
    if key is not None and result.bundle:
        from .signing import key_id

        digest += f", signed by key {key_id(key)}"
    click.echo(f"exported {what}: {result.statements} statements as {fmt} to {output}{digest}",
               err=True)


@cli.command(name="verify-bundle")
@click.argument("file", type=click.File("rb"))
@click.option("--format", "fmt", type=_Choices(_document_formats), default="auto",
              show_default=True)
@click.option("--key", "public_key", type=KeyFile(private=False), metavar="PUB",
              help="Also require a valid signature by this Ed25519 public key (a .pub file).")
def verify_bundle(file: Any, fmt: str, public_key: str | None) -> None:
    """Check a bundle file's recorded sha-256 against its content (exit 1 on mismatch).

    Without --key a signed bundle's signature is not checked and the output says
    whether the bundle is signed; with --key an unsigned bundle, another key's
    signature, or a bundle changed and re-digested after signing exits 1.

    \b
    Example:
        provgraph verify-bundle claim.json
        provgraph verify-bundle claim.json --key signing.pem.pub
    """
    from .io.bundle import verify_bundle as check

    name = getattr(file, "name", "-")
    name = "<stdin>" if name in ("-", "<stdin>") else str(name)
    result = check(file.read(), fmt, name=name)
    if result.recorded != result.actual:
        raise Found(
            f"{name}: bundle <{result.bundle}> was altered: recorded sha256 {result.recorded}, "
            f"content hashes to {result.actual} ({result.statements} statements)")
    if result.misplaced:
        raise Found(
            f"{name}: bundle <{result.bundle}> was altered: {len(result.misplaced)} statement(s) "
            "moved between graphs (the description belongs in the default graph, the rest in "
            "the bundle's graph): " + "; ".join(result.misplaced[:3]))
    signed = (f"; signed by key {result.signing_key} (signature not checked: give --key PUB)"
              if result.signed else "; unsigned (proves integrity, not who exported it)")
    if public_key is not None:
        from .signing import key_id, load_public_key

        pub = load_public_key(public_key)
        problem = result.signature_problem(pub)
        if problem is not None:
            raise Found(f"{name}: bundle <{result.bundle}> is not signed by key {key_id(pub)}: "
                        f"{problem}")
        signed = f"; signature by key {key_id(pub)} verified"
    click.echo(f"{name}: bundle <{result.bundle}> verified: sha256 {result.actual} over "
               f"{result.statements} statements and the bundle's description"
               + (f" (lineage of <{result.subject}>)" if result.subject else "") + signed)


@cli.command()
@click.option("--run", "run_iri", metavar="RUN", callback=_iri_option,
              help="Check only this run's graph.")
@pass_ctx
def validate(obj: _Ctx, run_iri: str | None) -> None:
    """Check PROV-CONSTRAINTS (a subset) and the SHACL shapes; exit 1 on violations.

    PROV-DM attribute warnings (a prov:label that is not a string, several prov:value
    on one entity, prov:value off an entity, prov:role where PROV-DM gives it no
    meaning) are printed after the violations, each with its subject, predicate and
    graph; they do not change the exit status.

    \b
    Example:
        provgraph validate
        provgraph validate --run urn:uuid:0190...
    """
    from .shacl import ShapesData

    done = {"graphs": 0, "total": 0, "shapes": 0}

    def note() -> str:
        if done["shapes"]:
            shapes = "the SHACL validation of their union was stopped before it finished"
        else:
            shapes = "the SHACL shapes were not checked"
        return (f"PROV-CONSTRAINTS were checked in {done['graphs']} of "
                f"{done['total'] or 'the'} graph(s), {shapes}; nothing was reported and the "
                "store was not changed (validate only reads)")

    obj.on_interrupt = note
    # the SHACL engine's process starts first, so it loads its shapes while this one
    # imports the checks and opens the store, and is ready before its data even on a busy
    # machine (issue 16, item 2)
    engine = ShapesData().start()
    try:
        from .validate import validate as check

        store = obj.store(read_only=True)
        with staged_progress({"read": "reading the graphs for the SHACL engine",
                              "shapes": "SHACL shapes (beside the PROV-CONSTRAINTS checks)",
                              "graphs": "PROV-CONSTRAINTS, graph by graph"}) as show:
            def progress(stage: str, i: int, n: int) -> None:
                if stage == "graphs":
                    done["graphs"], done["total"] = i, n
                elif stage == "shapes":
                    done["shapes"] = 1
                show(stage, i, n)

            report = check(store, run_iri, progress=progress, shapes_data=engine)
    except BaseException:  # the engine's process ends with the command (validate's own)
        engine.kill()
        raise
    for msg in report.messages():
        click.echo(msg)
    for warning in report.warnings:
        click.echo(str(warning), err=True)
    if report.shacl_note:
        click.echo(f"note: {report.shacl_note}", err=True)
    n = len(report.messages())
    click.echo(f"{len(report.graphs)} graph(s) checked: {n} violation(s), "
               f"{len(report.warnings)} warning(s)", err=True)
    if not report.conforms:
        raise click.exceptions.Exit(EXIT_FOUND)


# ---------------------------------------------------------------- citation resolver (issue 3)
RESOLUTION_COLUMNS = ["citation", "claim", "target_id", "outcome", "snapshot", "byte_start",
                       "byte_end", "codepoint_start", "codepoint_end", "policy", "policy_version",
                       "generated_source", "precision", "region", "page", "bbox", "fragment",
                       "context_gaps", "reason"]
"""Columns of ``resolve --citations``: the keys of RunResolution.rows() less ``text``, in
this order (kept here until resolve.py has its own column list)."""


@cli.command("resolve")
@click.option("--run", "run", metavar="RUN", callback=_iri_option,
              help="Resolve only this run's citations (the run IRI); default: every run.")
@click.option("--policy", type=_Choices(_policy_names), default="exact", show_default=True,
              help="Normalization policy tried after exact comparison, for citations that "
              "declare none (a citation's declared policy wins).")
@click.option("--citations", "each", is_flag=True,
              help="One row per citation instead of the outcome counts.")
@output_options
@pass_ctx
def resolve_cmd(obj: _Ctx, run: str | None, policy: str, each: bool, fmt: str | None,
                no_headers: bool) -> None:
    """Check every citation against the retained original bytes and record the outcomes.

    Prints the number of citations per outcome (every outcome listed); only
    quote_match and normalized_match record prov:wasQuotedFrom. Running it twice
    changes nothing.

    \b
    Example:
        provgraph resolve --table
        provgraph resolve --run urn:uuid:0190... --citations --nl
    """
    from .resolve import resolve_run

    result = resolve_run(obj.store(), run, policy=policy)
    if each:
        write_rows(result.rows(), RESOLUTION_COLUMNS, fmt=fmt or "json", no_headers=no_headers,
                   title="citations")
    else:
        rows = [{"outcome": k, "citations": v} for k, v in result.counts().items()]
        write_rows(rows, ["outcome", "citations"], fmt=fmt or "json", no_headers=no_headers,
                   title="citation outcomes")
    scope = f"run {run}" if run else "all runs"
    click.echo(f"resolved {len(result.items)} citations in {scope}: {result.added} statements "
               f"added, {result.removed} removed", err=True)
    if result.damaged:
        for error in result.damaged.values():
            click.echo(f"damaged: {error}", err=True)
        raise Found(f"{len(result.damaged)} retained original(s) are missing or corrupt, so "
                    "the citations on them could not be checked (snapshot_mismatch); run "
                    "'provgraph verify' to see what depends on them, and restore the originals "
                    "from a backup")


def _pdf_profiles() -> tuple[str, ...]:
    from .pdf import PROFILES

    return tuple(PROFILES)


def _header_rules() -> tuple[str, ...]:
    from .pdf import HEADER_RULES

    return HEADER_RULES


@cli.command("ingest-pdf")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--uri", required=True, help="Where the PDF came from (the document's identity).")
@click.option("--profile", type=_Choices(_pdf_profiles), default="lines", show_default=True,
              help="pdfplumber table settings; part of the parser version.")
@click.option("--header-rule", type=_Choices(_header_rules), default="bold", show_default=True,
              help="Which leading table rows are headers.")
@click.option("--label", default="ingest-pdf", show_default=True, help="The run's label.")
@output_options
@pass_ctx
def ingest_pdf(obj: _Ctx, file: Path, uri: str, profile: str, header_rule: str, label: str,
               fmt: str | None, no_headers: bool) -> None:
    """Record a PDF: its bytes, the text of its pages with word boxes, and its tables.

    Parsed by pdfplumber (pip install 'provgraph[pdf]'); the parser version is
    pdfplumber's plus the profile. Prints one row per table found: page, index,
    box (PDF user space points, origin bottom-left), rows, columns, header rows.
    Cite a cell or table by its IRI (provgraph.schema.table.cell_iri).

    \b
    Example:
        provgraph ingest-pdf examples/ops-guide.pdf --uri https://example.org/ops-guide.pdf --table
    """
    from .pdf import extract_pdf, record_pdf
    from .recorder import Recorder

    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(f"{file}: cannot read it: {exc.strerror or exc}") from None
    parsed = extract_pdf(data, profile=profile, header_rule=header_rule,
                         name=str(file))  # before any write
    rec = Recorder(obj.store(create=True), label=label)
    with rec.batch():
        snap = rec.snapshot(data, uri=uri, media_type="application/pdf")
        ext, tables = record_pdf(rec, snap, parsed=parsed)
    rows = [{"table": t.iri, "page": t.page, "index": t.index, "bbox": list(t.bbox),
             "rows": t.rows, "columns": t.cols, "header_rows": t.header_rows} for t in tables]
    write_rows(rows, ["table", "page", "index", "bbox", "rows", "columns", "header_rows"],
               fmt=fmt or "json", no_headers=no_headers, title="tables")
    click.echo(f"recorded snapshot {snap.iri}, extraction {ext.iri} by pdfplumber "
               f"{ext.parser.version}: {ext.text.count(chr(12)) + 1} pages, {len(tables)} tables",
               err=True)


@cli.command()
@click.argument("citation", callback=_iri_option)
@pass_ctx
def region(obj: _Ctx, citation: str) -> None:
    """Show the PDF region a citation points at, as one JSON object.

    Page, box (PDF user space points, origin bottom-left), table, row, column,
    header path, the row's cells, the resolver's outcome, precision and context
    gaps, and W3C Web Annotation selectors (RFC 8118 page fragment).

    \b
    Example:
        provgraph region urn:uuid:0190...
    """
    import json

    from .regions import region_for_citation

    got = region_for_citation(obj.store(read_only=True), citation)
    click.echo(json.dumps(got.to_dict(), ensure_ascii=False, indent=2))


@cli.command("check-quote")
@click.argument("source_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--quote", required=True, help="The quoted text to check (not empty).")
@click.option("--start", type=int, help="Range start, in --unit.")
@click.option("--end", type=int, help="Range end, in --unit (exclusive unless --end-inclusive).")
@click.option("--unit", type=click.Choice(UNITS),
              default="codepoint", show_default=True,
              help="Offset unit: utf8_byte counts the file's bytes (BOM included); codepoint and "
              "utf16_unit count the decoded text (BOM excluded); page numbers start at 1, "
              "block indices at 0.")
@click.option("--end-inclusive", is_flag=True, help="--end names the last unit of the range.")
@click.option("--prefix", help="Text just before the quote (chooses among occurrences).")
@click.option("--suffix", help="Text just after the quote (chooses among occurrences).")
@click.option("--policy", type=_Choices(_policy_names), default="exact", show_default=True,
              help="Normalization policy tried after exact comparison.")
@click.pass_context
def check_quote_cmd(ctx: click.Context, source_file: str, quote: str, start: int | None,
                    end: int | None, unit: str, end_inclusive: bool, prefix: str | None,
                    suffix: str | None, policy: str) -> None:
    """Check one quotation against one UTF-8 source file; no store is opened.

    Prints one JSON object: outcome, byte_start, byte_end (into the file's
    bytes), codepoint_start, codepoint_end (into its decoded text), all
    end-exclusive and null when unresolved, policy, policy_version, reason.
    Exit status: 0 for quote_match or normalized_match, 1 for any other
    outcome, 2 for usage errors (missing file, empty quote, undecodable source).

    \b
    Example:
        provgraph check-quote policy.md --quote "not specified" --policy whitespace
        provgraph check-quote notes.txt --quote "café" --start 10 --end 14 --unit utf16_unit
    """
    import json

    from .errors import ResolutionError
    from .matching import check_quote
    from .offsets import SourceText

    if quote == "":
        raise click.UsageError("--quote must not be empty: give the quoted text", ctx=ctx)
    if (start is None) != (end is None):
        raise click.UsageError("--start and --end go together: give both or neither", ctx=ctx)
    try:
        data = Path(source_file).read_bytes()
    except OSError as exc:
        raise click.UsageError(f"cannot read {source_file}: {exc.strerror or exc}", ctx=ctx) from None
    try:
        source = SourceText.from_bytes(data, name=source_file)
        res = check_quote(source, quote, start=start, end=end, unit=unit,
                          end_inclusive=end_inclusive, prefix=prefix, suffix=suffix, policy=policy)
    except ResolutionError as exc:
        raise click.UsageError(str(exc), ctx=ctx) from None
    out = {k: v for k, v in res.to_dict().items()  # PDF region fields: no region in a text file
           if k not in ("citation", "generated_source", "region", "precision", "context_gaps",
                        "page", "bbox", "fragment")}
    out["source"] = source_file
    click.echo(json.dumps(out, ensure_ascii=False, indent=2))
    ctx.exit(EXIT_OK if res.verified else EXIT_FOUND)
@cli.group(context_settings=CONTEXT_SETTINGS)
def fixture() -> None:
    """Frozen evaluation fixtures (schemas/fixture-v1.schema.json): check, record.

    A fixture holds a question, its retained source bytes with their sha-256,
    exact evidence spans (code points, end exclusive), generated aids, permitted
    derivations and the expected answer ("unknown" when unanswerable).

    \b
    Example:
        provgraph fixture check examples/fixtures/calculation.json
        provgraph fixture record examples/fixtures/quotation.json
    """


@fixture.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
def fixture_check(ctx: click.Context, file: str) -> None:
    """Check a fixture: source digests, evidence spans, derivations, expected answer.

    No store is opened. Prints one line per problem (FILE: PART: what is wrong)
    and exits 1, or one line saying what was checked and exits 0. A file that
    cannot be read as a fixture is an input error (exit 2).

    \b
    Example:
        provgraph fixture check examples/fixtures/calculation.json
    """
    from .fixtures import check, load

    fx = load(file)
    problems = check(fx)
    for p in problems:
        click.echo(f"{file}: {p}")
    if problems:
        ctx.exit(EXIT_FOUND)

    def n(kind: str, items: dict[str, Any]) -> str:
        return f"{len(items)} {kind}{'' if len(items) == 1 else 's'}"

    click.echo(f"{file}: fixture {fx.id} passes its check: {n('source', fx.sources)}, "
               f"{n('evidence span', fx.evidence)}, {n('derivation', fx.derivations)}, "
               f"{n('aid', fx.aids)}; expected answer: {fx.expected_answer}")


@fixture.command("record")
@click.argument("file", type=click.Path(dir_okay=False))
@pass_ctx
def fixture_record(obj: _Ctx, file: str) -> None:
    """Check a fixture, then store it as a run: its sources as snapshots of the
    retained bytes, its aids, its question; all of it or nothing.

    A fixture that fails its check is refused (exit 2). The run's IRI follows
    from the fixture's content: recording the same fixture again adds nothing
    and says so; a changed fixture is a new run.

    \b
    Example:
        provgraph fixture record examples/fixtures/quotation.json
    """
    from .fixtures import load, record, require_clean

    fx = load(file)
    require_clean(fx)  # before any store is opened
    store = obj.store(create=True)
    try:
        done = record(store, fx)
    except BaseException:
        obj.discard_if_new()
        raise
    if done.already:
        click.echo(f"fixture {fx.id} is already recorded as run {done.run}; nothing added")
        return
    click.echo(f"recorded fixture {fx.id} as run {done.run} ({done.statements} statements added)")
    click.echo(f"query: {done.query}")
    for sid, iri in done.snapshots.items():
        click.echo(f"source {sid}: {iri} (sha-256 {fx.sources[sid].sha256})")
    for aid, iri in done.aids.items():
        click.echo(f"aid {aid}: {iri}")


# ---------------------------------------------------------------------------
# The query library (issue 4): lineage, stale, impact, unsupported,
# generated-evidence, coverage, exposure. Each command is one call into
# provgraph.analytics plus formatting; rows print exactly as row.to_dict() gives them.

LINEAGE_FORMATS = ("tree", "dot", *ROW_FORMATS)
"""What ``provgraph lineage`` writes: the tree (default), DOT, or rows."""


@cli.command()
@click.argument("iri", callback=_iri_option)
@click.option("--depth", "max_depth", type=click.IntRange(min=0), metavar="N",
              help="Only nodes at most N edges upstream (default: everything).")
@click.option("--tree", "fmt", flag_value="tree",
              help="A readable tree, each node under the node it was first reached from "
              "(default).")
@click.option("--dot", "fmt", flag_value="dot", help="Graphviz DOT of the lineage graph.")
@output_options(json_default=False)
@click.option("--format", "format_name", type=click.Choice(LINEAGE_FORMATS), hidden=True,
              help="The earlier spelling of --tree, --json, --dot and the other flags.")
@pass_ctx
def lineage(obj: _Ctx, iri: str, max_depth: int | None, fmt: str | None, no_headers: bool,
            format_name: str | None) -> None:
    """Show everything upstream of IRI (a claim, citation, chunk ...), with depth.

    The tree (the default) shows each node once, under the node it was first
    reached from: claim, citation, chunk, extracted text, extraction (with parser
    and version), snapshot (with sha-256 and observation time), document, and the
    activities, aids and agents of the answer. The row formats (--json, --table
    ...) give one row per node: node, depth, kind, relation, parent, label (the
    rows of provgraph.analytics.lineage). An IRI that is not in the store is an
    error.

    \b
    Example:
        provgraph lineage urn:uuid:0190... --depth 4
        provgraph lineage urn:uuid:0190... --table
        provgraph lineage urn:uuid:0190... --dot | dot -Tsvg > lineage.svg
    """
    from . import analytics

    if format_name is not None:  # 'lineage --format dot', as before --dot
        if fmt is not None and fmt != format_name:
            raise click.UsageError(f"--format {format_name} and --{fmt} exclude each other; "
                                   "give one")
        fmt = format_name
    store = obj.store(read_only=True)
    if fmt == "dot":
        from . import graph  # networkx: only the DOT output needs it (issue 16, item 3)

        click.echo(graph.to_dot(graph.lineage_graph(store, iri, max_depth=max_depth)), nl=False)
        return
    rows = analytics.lineage(store, iri, max_depth=max_depth)
    if fmt in (None, "tree"):
        write_lineage_tree(rows)
    else:
        _write_result(rows, analytics.LineageRow, fmt, no_headers, "lineage")


@cli.command()
@_run_option
@click.option("--recompute", is_flag=True,
              help="Compute from the statements and originals, without reading or writing "
              "the stale index kept beside the store.")
@_fail_option
@output_options
@pass_ctx
def stale(obj: _Ctx, run: str | None, recompute: bool, fail_on_found: bool, fmt: str | None,
          no_headers: bool) -> None:
    """List claims whose cited snapshot has a newer revision or was deleted.

    Each row says "updated" or "deleted" and, for updated ones, whether the
    cited text is still present, unchanged, in the newest snapshot
    (span_unchanged).

    The rows of the whole store are kept in PATH/index/ and read back while no
    statement has been written and the originals they were computed from are
    unchanged; --recompute ignores that index (the answer is the same).

    \b
    Example:
        provgraph stale --table
        provgraph stale --run urn:uuid:0190... --fail-on-found
    """
    from . import analytics

    rows = analytics.stale(obj.store(read_only=True), run=run, index=not recompute)
    _write_result(rows, analytics.StaleRow, fmt, no_headers, "stale", fail_on_found)


@cli.command()
@click.option("--agent", "agent", required=True, metavar="NAME",
              help="Agent name (parser, chunker, embedder, retriever, model, prompt template).")
@click.option("--version", "version", metavar="V", help="Only this agent version.")
@click.option("--changed-cells", is_flag=True,
              help="Only claims on PDF table cells that a later re-extraction by NAME parsed "
              "differently (text, header path, or no such cell); needs --version.")
@_run_option
@click.option("--recompute", is_flag=True,
              help="Read the claims from the statements, without reading or writing the "
              "agent's impact index kept beside the store.")
@_fail_option
@output_options
@pass_ctx
def impact(obj: _Ctx, agent: str, version: str | None, changed_cells: bool, run: str | None,
           recompute: bool, fail_on_found: bool, fmt: str | None, no_headers: bool) -> None:
    """List claims whose support went through an activity of agent NAME (at version V).

    Each agent's claims are kept in PATH/index/ and read back while no statement has
    been written, or brought up to date from the ledger's record of the writes since;
    --recompute ignores that index (the answer is the same).

    With --changed-cells, only the claims on table cells (PDF, issue 21) that the newest
    later extraction by NAME reads differently: one row per citation with the old and new
    text and header path.

    \b
    Example:
        provgraph impact --agent docutils --version 0.21.2 --table
        provgraph impact --agent claude-sonnet-4 --fail-on-found
        provgraph impact --agent pdfplumber --version 0.11.10+lines-strict --changed-cells
    """
    if changed_cells:
        if version is None:
            raise click.UsageError("--changed-cells needs --version: the parser version whose "
                                   "cells are compared with a later re-extraction")
        from . import regions

        _write_result(regions.changed_cells(obj.store(read_only=True), agent, version, run=run),
                      regions.CellChangeRow, fmt, no_headers, "impact", fail_on_found)
        return
    from . import analytics

    _write_result(analytics.impact(obj.store(read_only=True), agent, version=version, run=run,
                                   index=not recompute),
                  analytics.ImpactRow, fmt, no_headers, "impact", fail_on_found)


@cli.command()
@_run_option
@_fail_option
@output_options
@pass_ctx
def unsupported(obj: _Ctx, run: str | None, fail_on_found: bool, fmt: str | None,
                no_headers: bool) -> None:
    """List claims with no eligible evidence (cited or not), except abstentions and uncertain ones.

    \b
    Example:
        provgraph unsupported --table
        provgraph unsupported --fail-on-found
    """
    from . import analytics

    _write_result(analytics.unsupported(obj.store(read_only=True), run=run), analytics.UnsupportedRow, fmt,
                  no_headers, "unsupported", fail_on_found)


@cli.command(name="generated-evidence")
@_run_option
@output_options
@pass_ctx
def generated_evidence(obj: _Ctx, run: str | None, fmt: str | None, no_headers: bool) -> None:
    """List citations and quotations whose evidence is generated text (aids, generated ranges).

    \b
    Example:
        provgraph generated-evidence --table
    """
    from . import analytics

    _write_result(analytics.generated_evidence(obj.store(read_only=True), run=run),
                  analytics.GeneratedEvidenceRow, fmt, no_headers, "generated-evidence")


@cli.command()
@_run_option
@output_options
@pass_ctx
def coverage(obj: _Ctx, run: str | None, fmt: str | None, no_headers: bool) -> None:
    """Per run: claims, cited claims, verified quotations and citation outcomes, with denominators.

    \b
    Example:
        provgraph coverage --table
    """
    from . import analytics

    _write_result(analytics.coverage(obj.store(read_only=True), run=run), analytics.CoverageRow, fmt,
                  no_headers, "coverage")


@cli.command()
@_run_option
@output_options
@pass_ctx
def exposure(obj: _Ctx, run: str | None, fmt: str | None, no_headers: bool) -> None:
    """For each generation, the generated aids in its input and how they were labelled.

    \b
    Example:
        provgraph exposure --table
    """
    from . import analytics

    _write_result(analytics.exposure(obj.store(read_only=True), run=run), analytics.ExposureRow, fmt,
                  no_headers, "exposure")


# revalidate: re-resolve the citations of the claims 'impact' or 'stale' lists (the
# evaluation commands, metrics, evaluate and gate, are in cli_evaluate.py)

@cli.command()
@click.option("--impacted-by", metavar="AGENT[@VERSION]",
              help="Re-check the citations of the claims 'impact' lists for this agent.")
@click.option("--stale", is_flag=True, help="Re-check the citations of the claims 'stale' lists.")
@_run_option
@click.option("--policy", type=_Choices(_policy_names), default="exact", show_default=True,
              help="Normalization policy for citations that declare none.")
@output_options
@pass_ctx
def revalidate(obj: _Ctx, impacted_by: str | None, stale: bool, run: str | None, policy: str,
               fmt: str | None, no_headers: bool) -> None:
    """Re-resolve only the impacted citations against the newest snapshots or re-extractions.

    The new outcomes are recorded by a pg:Revalidation activity; each replaced
    verdict stays, prov:wasInvalidatedBy it. Prints one row per re-checked
    citation (old and new outcome); other citations are not touched.

    \b
    Example:
        provgraph revalidate --impacted-by docutils@0.21.2 --table
        provgraph revalidate --stale --run urn:uuid:0190...
    """
    from .revalidate import RevalidationRow, revalidate as run_revalidate

    if (impacted_by is None) == (not stale):
        raise InputError("give --impacted-by AGENT[@VERSION] or --stale (one of them)")
    agent = None
    if impacted_by is not None:
        name, _, version = impacted_by.partition("@")
        agent = (name, version or None)
    rows = run_revalidate(obj.store(), impacted_by=agent, stale=stale, run=run, policy=policy)
    _write_result(rows, RevalidationRow, fmt, no_headers, "revalidate")
    click.echo(f"revalidate: {len(rows)} citations re-resolved, "
               f"{sum(r.changed for r in rows)} changed", err=True)


# ---------------------------------------------------------------------------
# Serving the store: serve, ui (review and adjudicate, issue 18 part 4, are in cli_review.py)

@cli.command()
@click.option("--bind", default="127.0.0.1:7878", show_default=True, metavar="HOST:PORT",
              help="Address to listen on (port 0 picks a free one).")
@click.option("--allow-update", is_flag=True,
              help="Accept SPARQL 1.1 Update on /sparql (with the token).")
@click.option("--token-file", type=click.Path(dir_okay=False), envvar="PROVGRAPH_TOKEN_FILE",
              help="File holding the token for ingest and updates (else $PROVGRAPH_TOKEN).")
@click.option("--max-request-mb", type=click.FloatRange(min=0.001), default=64,
              show_default=True, help="Largest request body accepted.")
@pass_ctx
def serve(obj: _Ctx, bind: str, allow_update: bool, token_file: str | None,
          max_request_mb: float) -> None:
    """Own the store and serve it over HTTP: SPARQL 1.1 Protocol, ingest, health.

    \b
    Endpoints: /sparql (read-only unless --allow-update; SERVICE refused),
    /ingest (POST a JSONL event log, as 'provgraph record'), /health, /version.
    Clients: open_store("http://HOST:PORT"), or --store http://HOST:PORT.
    Stop it with SIGTERM or Ctrl-C: requests in flight finish first.

    \b
    Example:
        PROVGRAPH_TOKEN=s3cret provgraph --store /srv/pg serve --bind 127.0.0.1:7878
    """
    from .serve._wire import token_from_environment
    from .serve.server import ServeConfig, serve as run_server

    host, port = _host_port(bind)
    token = token_from_environment(token_file)
    config = ServeConfig(host=host, port=port, allow_update=allow_update,
                         token=token, max_request_bytes=int(max_request_mb * (1 << 20)))
    store = obj.store(create=True)
    obj._store = None  # the server closes it

    def ready(server: Any) -> None:
        if token is None:
            click.echo("provgraph serve: no token set ($PROVGRAPH_TOKEN or --token-file): "
                       "any local process may record", err=True)
        click.echo(f"provgraph serve: listening on {server.url} (store {store.location})",
                   err=True)

    run_server(store, config, ready=ready)


@cli.command()
@click.option("--bind", default="127.0.0.1:7879", show_default=True, metavar="HOST:PORT",
              help="Address to listen on (port 0 picks a free one); this machine only "
                   "unless told otherwise.")
@pass_ctx
def ui(obj: _Ctx, bind: str) -> None:
    """Serve the auditor's web page for the store (read-only) and print its URL.

    Runs, answers and their claims by status and resolver outcome; a claim's
    citation drawer with the cited span highlighted in the retained original;
    its lineage graph; its sealed bundle; stale and impact views with CSV.
    'provgraph serve' serves the same page under /ui/. The page reads the
    store as it was when it started (a read-only open sees no later write):
    restart it to see what was recorded since, or use 'provgraph serve', which
    owns the store and serves every write as it lands. Stop it with Ctrl-C.

    \b
    Example:
        provgraph --store .provgraph-demo ui
        provgraph ui --bind 127.0.0.1:0
    """
    from .ui.app import serve_ui

    host, port = _host_port(bind)
    store = obj.store(read_only=True)

    def ready(server: Any) -> None:
        click.echo(f"provgraph ui: {server.url} (store {store.location}, read-only)", err=True)

    serve_ui(store, host, port, ready=ready)


def _host_port(bind: str) -> tuple[str, int]:
    """``--bind HOST:PORT`` as (host without IPv6 brackets, port 0..65535)."""
    host, _, port = bind.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise click.BadParameter(f"{bind!r} is not HOST:PORT with a port from 0 to 65535",
                                 param_hint="--bind")
    return host.strip("[]"), int(port)


# ---------------------------------------------------------------------------
# Runs (issue 17): list them, delete one as a recorded invalidation; shell completion

@cli.command()
@click.option("--removed", is_flag=True,
              help="List the deleted runs instead (the audit trail of 'delete-run').")
@output_options
@pass_ctx
def runs(obj: _Ctx, removed: bool, fmt: str | None, no_headers: bool) -> None:
    """List the runs (named graphs) with their label, start time, statements and claims.

    A run is a named graph: what provgraph recorded (kind run) or another PROV
    bundle (kind bundle: an imported bundle, an 'import --graph'). --removed lists
    the runs 'delete-run' deleted, with when, how many statements and their digest.

    \b
    Example:
        provgraph runs --table
        provgraph runs --removed
    """
    from . import runs as runs_mod

    store = obj.store(read_only=True)
    if removed:
        rows: Any = runs_mod.removals(store)
        columns = runs_mod.RemovalRow.columns()
    else:
        rows = runs_mod.runs(store)
        columns = runs_mod.RunRow.columns()
    write_rows([r.to_dict() for r in rows], columns, fmt=fmt or "json", no_headers=no_headers,
               title="removed runs" if removed else "runs")


@cli.command(name="delete-run")
@click.argument("run", callback=_iri_option, metavar="RUN")
@click.option("--reason", default="", metavar="TEXT", help="Why, kept in the audit trail.")
@click.option("-y", "--yes", is_flag=True, help="Delete without asking.")
@pass_ctx
def delete_run(obj: _Ctx, run: str, reason: str, yes: bool) -> None:
    """Delete a run (a named graph), recorded as an invalidation: undo a record or import.

    Every statement of the run's graph is removed, and in the same transaction
    the graph urn:provgraph:graph:removals records that the run
    prov:wasInvalidatedBy a pg:Removal: when, how many statements and the SHA-256
    of their canonical N-Quads ('provgraph runs --removed' lists them). Shared
    ingestion facts (documents, snapshots, chunks) and retained bytes stay. Asks
    first, unless --yes. A deleted run is not deleted again (exit 2, nothing
    written); a run recorded again under the same IRI can be, and that removal is
    kept on an alternate of the run (prov:alternateOf), since a run is
    invalidated once.

    \b
    Example:
        provgraph delete-run urn:uuid:0190... --reason "recorded with the wrong parser"
    """
    from .runs import delete_run as delete, run_summary

    store = obj.store()
    row = run_summary(store, run)
    what = (f"Delete {row.kind} <{row.run}> ("
            + ", ".join(x for x in (repr(row.label) if row.label else "",
                                    f"started {row.started.isoformat()}" if row.started else "")
                        if x)
            + f"): {row.statements} statements and {row.claims} claims?")
    if not yes:
        try:
            confirmed = click.confirm(what.replace("(): ", ": "), default=False)
        except click.Abort:
            raise InputError(f"not deleted: {row.run} (no answer; pass --yes to delete "
                             "without asking)") from None
        if not confirmed:
            raise InputError(f"not deleted: {row.run}")
    done = delete(store, row.run, reason=reason)
    click.echo(f"deleted {row.kind} <{done.run}>: {done.statements} statements removed, "
               f"recorded as {done.removal} at {done.removed.isoformat()} "
               f"(sha256 {done.sha256})", err=True)


@cli.command()
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@pass_ctx
def upgrade(obj: _Ctx, dry_run: bool) -> None:
    """Bring records an older provgraph wrote up to the current shape, in one transaction.

    Today: the removal records of deleted runs (urn:provgraph:graph:removals). A
    run typed pg:Run there is retyped pg:RemovedRun; a run deleted, recorded again
    and deleted again keeps its first removal, and each later one moves to an
    alternate of it (prov:alternateOf), as delete-run records it now. 'provgraph
    validate' names what needs it. The ledger records the change as one write;
    nothing else changes, and a second run changes nothing.

    \b
    Example:
        provgraph upgrade --dry-run
        provgraph upgrade
    """
    from .upgrade import upgrade as run_upgrade

    store = obj.store(read_only=dry_run)
    found = run_upgrade(store, dry_run=dry_run)
    fixed = [o for o in found if o.fix]
    verb = "would upgrade" if dry_run else "upgraded"
    for o in found:
        click.echo(f"{verb}: {o.problem}; 'provgraph upgrade' {o.fix}" if o.fix
                   else f"not upgraded: {o.problem}", err=True)
    runs = len({o.run for o in fixed})
    removed = sum(len(o.remove) for o in fixed)
    added = sum(len(o.add) for o in fixed)
    if not found:
        click.echo("up to date: nothing to upgrade", err=True)
    elif fixed:
        click.echo(f"{verb} the removal records of {runs} run(s) ({len(fixed)} fix(es)): "
                   f"{removed} statements removed, {added} added"
                   + (" (nothing written: --dry-run)" if dry_run else ", in one transaction"),
                   err=True)
    if len(fixed) < len(found):
        raise click.exceptions.Exit(EXIT_FOUND)


@cli.command()
@click.argument("shell", required=False, type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str | None) -> None:
    """Print the shell completion script (click's) for bash, zsh or fish.

    SHELL defaults to the one $SHELL names. Load it in the current shell with
    eval, or save it where your shell reads completions.

    \b
    Example:
        eval "$(provgraph completion bash)"
        provgraph completion fish > ~/.config/fish/completions/provgraph.fish
    """
    import os

    from click.shell_completion import get_completion_class

    shell = shell or Path(os.environ.get("SHELL", "bash")).name
    cls = get_completion_class(shell)
    if cls is None:
        raise click.UsageError(f"no completion for the shell {shell!r}; give bash, zsh or fish")
    click.echo(cls(cli, {}, "provgraph", "_PROVGRAPH_COMPLETE").source())


def main() -> None:
    """Console-script entry point (``provgraph`` and ``python -m provgraph``).

    An interrupted command (status :data:`EXIT_INTERRUPTED`, its ``Interrupted: ...`` line
    already printed and its store closed) ends the process by SIGINT, as a program stopped
    by Ctrl-C should (https://www.cons.org/cracauer/sigint.html): a shell reports status 130
    and stops a loop that runs the command; a parent process sees the signal (``-2`` in
    Python's :class:`subprocess.Popen`). The interrupt is re-raised here and CPython ends
    the process by SIGINT after its normal shutdown, as it does for any KeyboardInterrupt
    that leaves a program (bpo-1054041); :func:`_quiet_interrupt_hook` keeps the traceback
    out, since the command has said what happened. Exiting with 130 instead would not be
    deterministic: CPython also ends by SIGINT, whatever the program then does, when the
    interrupt passed through code run by ``exec`` (dataclasses and namedtuples are made
    that way), so the same Ctrl-C gave 130 or SIGINT depending on where it landed."""
    try:
        cli(prog_name="provgraph")
    except SystemExit as exc:
        if exc.code != EXIT_INTERRUPTED:
            raise
        sys.excepthook = _quiet_interrupt_hook(sys.excepthook)
        raise KeyboardInterrupt from None


def _quiet_interrupt_hook(previous: Callable[..., Any]) -> Callable[..., Any]:
    """An exception hook that prints nothing for a KeyboardInterrupt (the command already
    printed its ``Interrupted: ...`` line) and hands every other exception to ``previous``."""
    def hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        if not issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)
    return hook
