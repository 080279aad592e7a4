"""What :mod:`provgraph.cli` and its command modules (:mod:`provgraph.cli_trust`,
:mod:`provgraph.cli_import`, :mod:`provgraph.cli_evaluate`, :mod:`provgraph.cli_review`)
share: the exit statuses and the errors that carry them, the context object of the group's
global options (:class:`_Ctx`, which opens the store), and the options, callbacks and writers
that commands of more than one module use. It imports none of those modules, so they import
it without a cycle; the library is imported inside the functions that need it, as in the
commands (start-up, issue 16 item 3)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import click

from .errors import StoreError
from .output import staged_progress, write_rows


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


EXIT_OK, EXIT_FOUND, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
"""The exit statuses of every command (docs/cli-reference.md, "Exit status"): 0 done, nothing
found; 1 a check found something (rows with --fail-on-found, validate's violations, an
altered bundle, a quote that does not match); 2 a usage or input error, printed as
``Error: ...``; 130 interrupted (Ctrl-C). As diff(1) and grep(1): 1 is an answer, 2 is trouble
(issue 17: ``impact --fail-on-found`` exited 1 both for rows found and for an unknown agent)."""


class InputError(click.ClickException):
    """A usage or input error: ``Error: ...`` and exit status 2 (:data:`EXIT_ERROR`)."""

    exit_code = EXIT_ERROR


class Found(click.ClickException):
    """A check that found something: ``Error: ...`` and exit status 1 (:data:`EXIT_FOUND`)."""

    exit_code = EXIT_FOUND


class _Ctx:
    """The group's global options (--store, --memory, --endpoint ..., --lock-timeout) and the
    store they name, opened on a command's first :meth:`store` call; commands take it
    through :data:`pass_ctx`."""

    def __init__(self, store_path: str | None, memory: bool,
                 endpoints: dict[str, str] | None = None,
                 lock_timeout: float | None = None) -> None:
        self.store_path = store_path
        self.memory = memory
        self.endpoints = endpoints or {}  # --endpoint / --update-endpoint / --gsp-endpoint
        self.lock_timeout = lock_timeout
        self.store_from_env = False  # the path is $PROVGRAPH_STORE, not --store
        self._store: Any = None
        self._writer = False
        # what a command had done when Ctrl-C stopped it; None: the generic sentence
        self.on_interrupt: Callable[[], str] | None = None

    def store(self, *, create: bool = False, read_only: bool = False) -> Any:
        """The store; ``create=True`` for commands that write (init, record, import),
        so a mistyped ``--store`` on a read command is an error, not a new empty store;
        ``read_only=True`` for commands that only read: they never wait for a writer
        (issue 13)."""
        if self._store is None:
            from .store import ENV_VAR, open_store

            try:
                self._store = open_store(self.store_path, memory=self.memory, create=create,
                                         read_only=read_only, lock_timeout=self.lock_timeout,
                                         recovery_progress=None if read_only else
                                         _recovery_notice(), **self.endpoints)
            except StoreError as exc:
                if self.store_from_env:  # say where the path came from
                    raise StoreError(f"{exc} (the path came from ${ENV_VAR})") from exc
                raise
            self._writer = not read_only
            if self._writer and hasattr(self._store, "ledger_note"):
                command = click.get_current_context(silent=True)
                if command is not None and command.info_name:
                    self._store.ledger_note = f"provgraph {command.info_name}"
            undone = getattr(self._store, "recovered", None)
            if undone:
                click.echo(f"note: undid {undone}, which a stopped process left unfinished in "
                           f"the store (all or nothing: none of it was kept)", err=True)
            ledger_note = getattr(self._store, "ledger_recovered", None)
            if ledger_note:
                click.echo(f"note: {ledger_note}", err=True)
            running = getattr(self._store, "in_flight", None)
            if running:
                click.echo(f"note: {running} has not committed (it is running, or its process "
                           "stopped and no write command has undone it yet): these answers may "
                           "include part of it", err=True)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def discard_if_new(self) -> None:
        """After a failed write: close the store, deleting its directory when this
        command created it (:meth:`provgraph.store.ProvStore.discard_if_new`)."""
        if self._store is not None:
            self._store.discard_if_new()
            self._store = None


pass_ctx = click.make_pass_decorator(_Ctx)


def _stored_since(obj: _Ctx, before: int, name: str, *, atomic: bool = True) -> Callable[[], str]:
    """The interrupt sentence of a command that adds statements: what is in the store now
    (counted again, as the command counted it before it started)."""
    def note() -> str:
        unfinished = getattr(obj._store, "unfinished", None)
        if unfinished:  # Ctrl-C again while the journaled write was being undone
            return (f"the undo of {unfinished} was interrupted too: the store keeps part of "
                    f"{name} until the next 'provgraph' command that writes it undoes that "
                    "(all or nothing: none of it is kept)")
        added = len(obj.store(create=True)) - before
        if added <= 0:
            undone = getattr(obj._store, "undone", None)
            if undone and undone[1]:  # the journaled write had stored part, undone since
                return (f"nothing from {name} was stored (the store is as it was: the "
                        f"{undone[1]} statements written before the interrupt were removed "
                        "again)")
            return f"nothing from {name} was stored (the store is as it was)"
        if atomic:
            return (f"{name} had been stored whole ({added} statements added) before the "
                    "interrupt arrived")
        return (f"a --bulk load is not atomic: {added} statements of {name} were stored; "
                "run the same command again to load the rest (statements already stored "
                "are not duplicated)")
    return note


UNDO_NOTICE_SECONDS = 1.0
"""How long the undo of an interrupted write runs before a terminal is told (issue 16,
item 2: undoing 200,000 statements in a store that held data takes seconds)."""


def _undo_stage(what: str, name: str) -> dict[str, str]:
    """The :func:`~provgraph.output.staged_progress` stage that :func:`_show_undo` shows,
    for a write of ``what`` (``import``, ``record``) of ``name``."""
    return {"undo": f"undoing the {what} of {name} (Ctrl-C: finish it later)"}


def _show_undo(store: Any, show: Callable[[str, int, int], None]) -> None:
    """Have ``show`` (a :func:`~provgraph.output.staged_progress` callback that has the
    stage of :func:`_undo_stage`) show the undo of ``store``'s journaled write once it has
    run :data:`UNDO_NOTICE_SECONDS` (:attr:`provgraph.store.ProvStore.undo_progress`); a
    store without a journal has no undo to show."""
    if not getattr(store, "journals", False):
        return
    store.undo_progress = _after_notice_delay(
        lambda name, removed, total: show("undo", removed, total))


@contextlib.contextmanager
def _write_progress(store: Any, what: str, name: str, label: str
                    ) -> Iterator[Callable[[str, int, int], None]]:
    """:func:`~provgraph.output.staged_progress` for a journaled write of ``what``
    (``import``, ``record``: its stage, shown as ``label``) of ``name`` into ``store``,
    with the stage of its undo (:func:`_undo_stage`, :func:`_show_undo`), which hides the
    write's own when an interrupt starts it. Yields ``show``."""
    with staged_progress({what: label, **_undo_stage(what, name)},
                         takes_over=("undo",)) as show:
        _show_undo(store, show)
        yield show


def _after_notice_delay(fn: Callable[[str, int, int], None]) -> Callable[[str, int, int], None]:
    """An undo's progress callback (``(name, removed, total)``; ``removed`` 0 when it
    starts) that passes each call after the first :data:`UNDO_NOTICE_SECONDS` of the undo
    on to ``fn``: a short undo shows nothing."""
    import time

    started = time.monotonic()

    def progress(name: str, removed: int, total: int) -> None:
        nonlocal started
        now = time.monotonic()
        if removed == 0:
            started = now
        elif now - started >= UNDO_NOTICE_SECONDS:
            fn(name, removed, total)

    return progress


def _recovery_notice() -> Callable[[str, int, int], None] | None:
    """On a terminal, the ``recovery_progress`` of a writer's open: once it has undone a
    write a stopped process left for :data:`UNDO_NOTICE_SECONDS`, one line says what it
    is undoing (the command seems to hang otherwise); ``None`` elsewhere."""
    import sys

    if not sys.stderr.isatty():
        return None
    said = False

    def say(name: str, removed: int, total: int) -> None:
        nonlocal said
        if not said:
            said = True
            click.echo(f"note: undoing {name}, which a stopped process left unfinished in "
                       f"the store, before this command runs ({removed} statements removed "
                       "so far)", err=True)

    return _after_notice_delay(say)


def _iri_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A click callback: an option that takes an absolute IRI (usage error otherwise)."""
    if value is None:
        return None
    from .store import iri_error

    why = iri_error(value)
    if why is not None:
        raise click.BadParameter(f"{value!r} is not an absolute IRI ({why}); give the full IRI, "
                                 "such as urn:uuid:0190... or https://example.org/x")
    return value


def _run_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--run", "run", metavar="RUN", callback=_iri_option,
                        help="Only this run (its IRI); default: all runs.")(fn)


def _fail_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--fail-on-found", is_flag=True,
                        help="Exit with status 1 when there are rows (for CI checks).")(fn)


def _exit_if_found(n: int, title: str, fail_on_found: bool) -> None:
    """With --fail-on-found, say how many rows were found and exit 1 when any were."""
    if fail_on_found and n:
        click.echo(f"{title}: {n} row(s) found", err=True)
        raise click.exceptions.Exit(EXIT_FOUND)


def _write_result(rows: Any, row_type: Any, fmt: str | None, no_headers: bool, title: str,
                  fail_on_found: bool = False) -> None:
    from ._rows import dicts_of  # here: it imports the store layer, which --help does not need

    n = write_rows(dicts_of(rows), row_type.columns(), fmt=fmt or "json",
                   no_headers=no_headers, title=title, plain_values=True)
    _exit_if_found(n, title, fail_on_found)


# The choice lists are the library's registries, never copies of them: a format added to
# provgraph.io.FORMATS or provgraph.importers.FORMATS is a --format choice
# (tests/test_cli_architecture.py).
# The io registry (and provgraph.normalize) are imported when a choice is first needed
# (the value is checked, or the command's --help is shown), not at start-up: every
# command paid ~16 ms for them (issue 16, item 3).
class _Choices(click.Choice[str]):
    """A :class:`click.Choice` whose values are a library registry's names, read on first use."""

    def __init__(self, names: Callable[[], tuple[str, ...]]) -> None:
        self._values: tuple[str, ...] = ()
        self._names: Callable[[], tuple[str, ...]] | None = names
        super().__init__((), case_sensitive=True)
        self._names = names  # click's __init__ set choices to ()

    @property
    def choices(self) -> tuple[str, ...]:
        if self._names is not None:
            self._values = self._names()
            self._names = None
        return self._values

    @choices.setter
    def choices(self, values: Any) -> None:
        self._values = tuple(values)
        self._names = None


def _document_formats() -> tuple[str, ...]:
    from . import io

    return ("auto", *(name for name, f in io.FORMATS.items() if f.readable))


def _policy_names() -> tuple[str, ...]:
    from .normalize import POLICIES

    return tuple(POLICIES)
