"""The command-line commands of tamper evidence (issue 20): ``verify``, ``rebuild``,
``checkpoint`` and ``keygen``; thin over :mod:`provgraph.verify` and
:mod:`provgraph.signing`. :mod:`provgraph.cli` adds them to its group
(:data:`COMMANDS`); errors reach its one error wrapper as provgraph errors."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

__all__ = ["COMMANDS", "KeyFile"]

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


def _store_dir(obj: Any, what: str) -> Path:
    """The store directory of the global options, for commands that read its files."""
    from .store import default_store_path

    if getattr(obj, "memory", False) or getattr(obj, "endpoints", None):
        raise click.UsageError(f"{what} works on a store on disk (its ledger and originals "
                               "are files); a remote or in-memory store keeps no ledger")
    path = getattr(obj, "store_path", None)
    if isinstance(path, str) and path.startswith(("http://", "https://")):
        raise click.UsageError(f"{what} works on a store on disk, not on a served store "
                               f"({path}): run it where the server's store is")
    return Path(path) if path else default_store_path()


class KeyFile(click.ParamType[str]):
    """A key file option (``--sign-key``, ``--key``): the name of a readable file, else a
    usage error that never prints a value that looks like key material
    (:func:`provgraph.signing.looks_like_key_material`), as click's ``Path`` type printed
    a PEM pasted in place of its file name.

    Args:
        private: a private key (the hint names 'provgraph keygen' and
            ``$PROVGRAPH_SIGNING_KEY``), else a public key (the ``.pub`` file).
    """

    name = "file"

    def __init__(self, *, private: bool) -> None:
        self.private = private

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        """``value`` when it names a readable file; else fails (exit 2) saying why.

        Raises:
            click.BadParameter: no such file, a directory, an unreadable file, or a value
                that looks like key material (not shown).
        """
        import os

        from .signing import ENV_KEY, looks_like_key_material

        text = os.fspath(value) if isinstance(value, os.PathLike) else str(value)
        path = Path(text)
        if path.is_file() and os.access(path, os.R_OK):
            return text
        fix = (f"give the name of the PEM file 'provgraph keygen FILE' wrote, or put the PEM "
               f"text in ${ENV_KEY}" if self.private else
               "give the .pub file 'provgraph keygen' wrote")
        if looks_like_key_material(text):
            self.fail("the value given is not a readable key file, and it is not shown here "
                      f"because it looks like key material (a key's text never goes in an "
                      f"option); {fix}", param, ctx)
        if path.is_dir():
            self.fail(f"{text!r} is a directory, not a key file; {fix}", param, ctx)
        if path.exists():
            self.fail(f"key file {text!r} cannot be read (check its permissions)", param, ctx)
        self.fail(f"key file {text!r} does not exist; {fix}", param, ctx)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option("--checkpoint", "receipt", type=click.Path(exists=True, dir_okay=False),
              help="A checkpoint receipt ('provgraph checkpoint') the ledger must extend.")
@click.option("--key", "public_key", type=KeyFile(private=False),
              metavar="PUB", help="The public key the checkpoint was signed with (.pub).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@click.pass_obj
def verify(obj: Any, receipt: str | None, public_key: str | None, as_json: bool) -> None:
    """Check the store against its ledger; exit 1 naming the first problem of each kind.

    Checks the ledger's hash chain (a line edited, deleted, inserted or moved is
    named by its number), that the store holds exactly the statements the ledger's
    lines add and remove, and every retained original's sha-256. Each problem is
    listed with the snapshots and claims that depend on it. With --checkpoint and
    --key, also proves the ledger still holds the checkpointed line unchanged. It
    takes the write lock to reconcile what a crash left; beside a running writer
    (after --lock-timeout), or on a store it may not write (a read-only copy), it
    checks what was committed, read-only, and says so.

    \b
    Example:
        provgraph verify
        provgraph verify --checkpoint receipt.json --key signing.pem.pub
    """
    from .verify import verify_store

    if receipt is not None and public_key is None:
        raise click.UsageError("--checkpoint needs --key PUB (the public key it was signed with)")
    report = verify_store(_store_dir(obj, "verify"), checkpoint=receipt, public_key=public_key,
                          lock_timeout=getattr(obj, "lock_timeout", None))
    if as_json:
        click.echo(json.dumps({"ok": report.ok, "store": report.store, "lines": report.lines,
                               "head": report.head, "statements": report.statements,
                               "blobs": report.blobs, "notes": report.notes,
                               "findings": [asdict(f) for f in report.findings]}, indent=1))
    else:
        for note in report.notes:
            click.echo(f"note: {note}", err=True)
        for f in report.findings:
            click.echo(f"{f.kind}: {f.where}\n  {f.detail}")
            for label, items in (("snapshots", f.snapshots), ("claims", f.claims)):
                if items:
                    click.echo(f"  {label} depending on it: {', '.join(items)}")
    if report.ok:
        click.echo(f"{report.store}: verified: {report.lines} ledger lines (head "
                   f"{report.head}), {report.statements} statements, {report.blobs} retained "
                   "originals" + (", checkpoint held" if receipt else ""), err=True)
        return
    click.echo(f"{report.store}: {len(report.findings)} problem(s) found", err=True)
    raise click.exceptions.Exit(1)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option("--from-ledger", "ledger", required=True,
              type=click.Path(exists=True, dir_okay=False), metavar="LEDGER",
              help="The ledger to replay (a store's ledger.jsonl).")
@click.option("--originals", type=click.Path(exists=True, file_okay=False), metavar="DIR",
              help="Where the retained originals are (default: originals/ beside LEDGER).")
@click.pass_obj
def rebuild(obj: Any, ledger: str, originals: str | None) -> None:
    """Make a new store (--store PATH) from a ledger: its statements and originals.

    The new store holds what the ledger's lines wrote, in order, and a copy of the
    ledger, so it goes on with the same chain. PATH must not exist or be empty.

    \b
    Example:
        provgraph --store rebuilt rebuild --from-ledger .provgraph/ledger.jsonl
    """
    from .verify import rebuild_store

    result = rebuild_store(ledger, _store_dir(obj, "rebuild"), originals=originals)
    click.echo(f"rebuilt {result.store}: {result.lines} ledger lines replayed, "
               f"{result.statements} statements, {result.blobs} retained originals", err=True)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option("--sign-key", type=KeyFile(private=True), metavar="FILE",
              help="The Ed25519 private key file (default: $PROVGRAPH_SIGNING_KEY, a file "
                   "name or the PEM text).")
@click.option("-o", "--output", metavar="FILE",
              help="Where to write the receipt (default: checkpoints/checkpoint-N.json in "
                   "the store).")
@click.pass_obj
def checkpoint(obj: Any, sign_key: str | None, output: str | None) -> None:
    """Sign the ledger's head (line count, hash, time) into a small receipt.

    Keep the receipt where the store's writer cannot change it; later, 'provgraph
    verify --checkpoint RECEIPT --key PUB' proves that nothing up to that line was
    rewritten. Run it on a schedule (cron, after each batch) for periodic checkpoints.

    \b
    Example:
        provgraph checkpoint --sign-key signing.pem -o receipt.json
    """
    from .signing import load_private_key, write_checkpoint

    cp, path = write_checkpoint(_store_dir(obj, "checkpoint"), load_private_key(sign_key),
                                output)
    click.echo(json.dumps(asdict(cp)))
    click.echo(f"checkpoint of line {cp.n} (head {cp.head}) signed by key {cp.key}, "
               f"written to {path}", err=True)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("file", type=click.Path(dir_okay=False))
def keygen(file: str) -> None:
    """Write a new Ed25519 signing key to FILE (mode 0600) and its public key to FILE.pub.

    Give FILE to --sign-key (or name it in $PROVGRAPH_SIGNING_KEY), FILE.pub to
    auditors, who pass it to --key. An existing file is never overwritten.

    \b
    Example:
        provgraph keygen signing.pem
    """
    from .signing import generate_key, key_id, load_public_key

    priv, pub = generate_key(file)
    click.echo(f"wrote {priv} (private: keep it secret) and {pub} (public); key id "
               f"{key_id(load_public_key(pub))}", err=True)


COMMANDS = [verify, rebuild, checkpoint, keygen]
"""The commands :mod:`provgraph.cli` adds to its group."""
