"""The provgraph exception tree. Every error a caller can act on has its own class.

::

    ProvgraphError
      StoreError             the RDF store or originals directory cannot be opened, read or written
        StoreBusyError         another process holds the store's write lock past the wait (.holder)
        OriginalMissingError   a retained original blob is absent (.sha256)
        OriginalCorruptError   a retained blob's bytes no longer hash to its name (.sha256, .actual)
      QueryError
        QueryNotFound          no named query or file (.name, .searched)
        QuerySyntaxError       SPARQL that does not parse (.path, .detail)
        QueryParameterError    header/body mismatch or missing/unexpected values (.name, .missing, .unexpected)
        QueryRefused           untrusted SPARQL that would reach the network or write (.source, .clause)
      VocabularyError        unknown term or an ontology that does not load
      RecordError            invalid provenance input: missing field, naive datetime, bad range
        EventLogError          malformed JSONL events (.line, .field of the first; .errors: every one)
        ImportFailed           an imported file with invalid items; nothing stored (.report)
        FixtureError           a frozen evaluation fixture that cannot be read or fails its check (.path)
      ExposureError          a paired exposure test that cannot be run or compared: bad arms, a pipeline
                             that breaks its protocol, arms whose originals differ
      SerializationError     a document that cannot be read or written in a format
        UnsupportedFormat      a format name provgraph does not know (.format, .known)
      ResolutionError        a citation that cannot even be attempted (bad unit, empty quote)
        OffsetError            an offset that names no position: negative, reversed, past the end,
                               inside a UTF-8 sequence or a surrogate pair (.offset, .unit, .kind)
        SourceDecodeError      source bytes that do not decode as UTF-8 (.position)
      NotFound               an IRI that is not in the store (.iri)
        AgentNotFound          no agent with a given name and version (.name, .version, .known)
        WrongKind              an IRI of another kind than asked for: a run as --claim (.iri, .expected, .actual)
        RunDeleted             a run that 'provgraph delete-run' deleted (.iri, .at, .statements)
        NoPageRegion           a citation with no PDF page region: of a text source, or not
                               located on a page (.iri, .snapshot, .media_type)

The CLI turns any ``ProvgraphError`` into ``Error: <message>`` and exit status 2 (a usage
or input error; 1 means a check found something: docs/cli-reference.md, "Exit status").
"""

from __future__ import annotations

from collections.abc import Sequence


class ProvgraphError(Exception):
    """Base class of every error provgraph raises on purpose."""


class StoreError(ProvgraphError):
    """The store cannot be opened, read or written (wraps the backend's OSError)."""


class StoreBusyError(StoreError):
    """A writer waited for the store's write lock and another process kept it (issue 13).

    Attributes:
        location: the store directory.
        waited: seconds waited before giving up.
        holder: what the holder wrote about itself (``pid``, ``host``, ``command``,
            ``since``), or ``{}`` when it left no note.
    """

    def __init__(self, location: str, waited: float, holder: dict[str, object],
                 hint: str) -> None:
        self.location = location
        self.waited = waited
        self.holder = holder
        url = _served_url(holder.get("command"))
        advice = (f"It is a provgraph server: record through that server: provgraph --store "
                  f"{url} COMMAND" if url else
                  "Wait for that process to finish, or stop it, or run 'provgraph serve' so "
                  "every process records through one writer")
        super().__init__(f"the store at {location} is being written by {hint}; waited "
                         f"{waited:g} s for it (--lock-timeout / $PROVGRAPH_LOCK_TIMEOUT). "
                         f"{advice}; reading commands never wait")


def _served_url(command: object) -> str | None:
    """The URL of the ``provgraph serve`` whose command line (``writer.json``) is
    ``command``, or ``None`` when it is another command."""
    if not isinstance(command, str):
        return None
    words = command.split()
    if "serve" not in words:
        return None
    bind = "127.0.0.1:7878"  # provgraph serve's default --bind
    for i, word in enumerate(words):
        if word == "--bind" and i + 1 < len(words):
            bind = words[i + 1]
        elif word.startswith("--bind="):
            bind = word.removeprefix("--bind=")
    return f"http://{bind}"


class OriginalMissingError(StoreError):
    """A retained original is not in the originals directory.

    Attributes:
        sha256: hex digest of the missing blob.
    """

    def __init__(self, sha256: str, where: str) -> None:
        self.sha256 = sha256
        super().__init__(
            f"retained original sha256:{sha256} is missing from {where}; restore it from a "
            "backup of the originals directory or record the source again"
        )


class OriginalCorruptError(StoreError):
    """A retained original's bytes no longer match the digest it is stored under.

    Attributes:
        sha256: the digest the blob is stored under.
        actual: the digest of the bytes found.
    """

    def __init__(self, sha256: str, actual: str, path: str) -> None:
        self.sha256 = sha256
        self.actual = actual
        super().__init__(
            f"retained original {path} was altered: expected sha256:{sha256}, found "
            f"sha256:{actual}; restore it from a backup (originals are write-once)"
        )


class QueryError(ProvgraphError):
    """A query cannot be found, parsed, bound or evaluated."""


class QueryNotFound(QueryError):
    """No named query or query file matches.

    Args:
        file: ``name`` is a path (it ends in ``.rq`` or holds a ``/``): the message says
            the file does not exist.
        found: what ``name`` is instead (``"a directory"``; ``"a file"``: one named
            without ``/`` or ``.rq``, which is read as a query name): the message says so.

    Attributes:
        name: the name asked for.
        searched: where provgraph looked.
    """

    def __init__(self, name: str, searched: Sequence[str], suggestion: str | None = None,
                 *, file: bool = False, found: str | None = None) -> None:
        self.name = name
        self.searched = list(searched)
        if found == "a directory":
            super().__init__(f"{name} is a directory, not a query file; give a FILE.rq in it, "
                             "or a query name ('provgraph queries' lists them)")
            return
        if found == "a file":  # a file named without '/' or '.rq' would be a query name
            super().__init__(f"{name} is a file, but not a query name; give its path as "
                             f"./{name} to run it as a query file (or name it FILE.rq)")
            return
        if file:  # a path (FILE.rq) names a file, not an entry of the list (issue 17)
            super().__init__(f"the query file {name} does not exist (looked for "
                             f"{', '.join(self.searched)}); check the path, or give a query "
                             "name ('provgraph queries' lists them)")
            return
        hint = f' Did you mean "{suggestion}"?' if suggestion else ""
        super().__init__(f'Query "{name}" not found.{hint} Run \'provgraph queries\' to list them.')


class QuerySyntaxError(QueryError):
    """A SPARQL text that does not parse.

    Attributes:
        path: the ``.rq`` file or ``"<text>"``.
        detail: the parser's message (with ``at L:C`` where the engine gives it).
    """

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(f"SPARQL syntax error in {path}: {detail}")


class QueryRefused(QueryError):
    """Untrusted SPARQL (a query file, ``provgraph query``, the ``/sparql`` endpoint) that
    provgraph will not run: a clause that makes the engine fetch (``SERVICE``, ``LOAD``),
    an update where a query is expected, or a text its checker cannot read.

    Attributes:
        source: the file or ``"<request>"``.
        clause: what was refused (``"SERVICE"``, ``"LOAD"``, ``"update"``,
            ``"unchecked"``, ``"depth"``).
    """

    def __init__(self, source: str, clause: str, message: str) -> None:
        self.source = source
        self.clause = clause
        super().__init__(message)


class QueryParameterError(QueryError):
    """Declared parameters do not match the body, or the values given do not match
    the declaration.

    Attributes:
        name: the query name.
        missing: parameters needed but not given (or used but not declared).
        unexpected: parameters given but not declared (or declared but not used).
    """

    def __init__(self, name: str, message: str, missing: Sequence[str] = (),
                 unexpected: Sequence[str] = ()) -> None:
        self.name = name
        self.missing = list(missing)
        self.unexpected = list(unexpected)
        super().__init__(f'query "{name}": {message}')


class VocabularyError(ProvgraphError):
    """An unknown vocabulary term, or an ontology file that does not load."""


class RecordError(ProvgraphError):
    """Invalid provenance input: a missing field, a naive datetime, a bad range."""


class FixtureError(RecordError):
    """A frozen evaluation fixture (:mod:`provgraph.fixtures`) that cannot be read: not
    JSON, against ``schemas/fixture-v1.schema.json``, an unknown id, a derivation rule
    given the wrong number of operands, a source file that is missing; or, when
    recording, one that fails its check. Nothing from it is stored.

    Attributes:
        path: the fixture file as given.
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")


class ExposureError(ProvgraphError):
    """The paired exposure test (:mod:`provgraph.exposure`) cannot be run or its arms
    cannot be compared: bad arms or repetitions, a ``--pipeline`` that does not import
    or breaks the pipeline protocol, or arms whose recorded originals, their order or
    the original-evidence budget differ (the message names the arm and the first
    difference)."""


class EventLogError(RecordError):
    """Malformed lines in a JSONL event log.

    Attributes:
        line: 1-based line number (of the first bad line).
        field: the offending field, or ``None`` when the line is not JSON at all.
        errors: one :class:`EventLogError` per bad line (``[self]`` for one).
        detail: ``SOURCE:LINE field 'F': message`` without the closing clause.
    """

    def __init__(self, source: str, line: int, field: str | None, message: str) -> None:
        self.source = source
        self.line = line
        self.field = field
        self.errors: list[EventLogError] = [self]
        where = f"{source}:{line}" + (f" field {field!r}" if field else "")
        self.detail = f"{where}: {message}"
        super().__init__(f"{self.detail}; nothing from this file was stored")

    SHOWN = 20
    """How many bad lines the message of :meth:`several` lists (``errors`` has all)."""

    @classmethod
    def several(cls, source: str, errors: Sequence[EventLogError],
                total: int | None = None) -> EventLogError:
        """One error for several bad lines: ``.errors`` holds them all (or the first ones,
        when ``total``, the number of bad lines, is larger), ``.line`` and ``.field`` are
        the first one's; the message lists the first :data:`SHOWN`, one per line, under
        ``SOURCE: N bad lines; nothing from this file was stored``."""
        first = errors[0]
        total = max(total or 0, len(errors))
        exc = cls.__new__(cls)
        exc.source, exc.line, exc.field, exc.errors = source, first.line, first.field, list(errors)
        lines = [f"  {e.detail}" for e in errors[:cls.SHOWN]]
        if total > cls.SHOWN:
            lines.append(f"  ... and {total - cls.SHOWN} more bad lines")
        exc.detail = f"{source}: {total} bad lines"
        Exception.__init__(exc, "\n".join([f"{exc.detail}; nothing from this file was stored",
                                           *lines]))
        return exc


class SerializationError(ProvgraphError):
    """A document that cannot be read or written in the requested format."""


class UnsupportedFormat(SerializationError):
    """A format name provgraph does not know.

    Attributes:
        format: the name given.
        known: the names provgraph accepts.

    ``cannot_hold=True``: ``format`` is known but cannot hold the statements (Turtle and
    named graphs); the message is ``hint``.
    """

    def __init__(self, format: str, known: Sequence[str], hint: str = "", *,
                 cannot_hold: bool = False) -> None:
        self.format = format
        self.known = list(known)
        if cannot_hold:  # a known format that cannot hold what is asked: hint says why
            super().__init__(f"{format} cannot hold this export: {hint}")
            return
        super().__init__(
            f"unsupported format {format!r}; use one of: {', '.join(self.known)}"
            + (f" ({hint})" if hint else "")
        )


class ResolutionError(ProvgraphError):
    """A citation check that cannot be attempted: an unknown unit or policy, an empty
    quote, a source that does not decode."""


class OffsetError(ResolutionError):
    """An offset or range that does not name a position in a text (never rounded).

    Attributes:
        offset: the offending offset as given (``None`` for a reversed range).
        unit: its unit (``utf8_byte``, ``codepoint``, ``utf16_unit``, ``page``, ``block``).
        kind: ``negative``, ``past_end``, ``reversed``, ``empty`` (an end-exclusive
            range whose end is its start), ``inside_sequence`` (inside a
            multi-byte UTF-8 sequence or the byte-order mark), ``inside_surrogate_pair``,
            ``not_integer`` or ``unknown_unit``.
    """

    def __init__(self, message: str, *, offset: int | None, unit: str, kind: str) -> None:
        self.offset = offset
        self.unit = unit
        self.kind = kind
        super().__init__(message)


class SourceDecodeError(ResolutionError):
    """Source bytes that are not UTF-8 text.

    Attributes:
        position: byte offset of the first byte that does not decode.
    """

    def __init__(self, message: str, *, position: int) -> None:
        self.position = position
        super().__init__(message)


class NotFound(ProvgraphError):
    """An IRI that is not in the store.

    Attributes:
        iri: the IRI asked for.
    """

    def __init__(self, iri: str, what: str = "resource") -> None:
        self.iri = iri
        lister = "provgraph runs" if what == "run" else "provgraph query claims"
        super().__init__(f"{what} <{iri}> is not in the store; check the IRI "
                         f"(for example with '{lister}')")


class WrongKind(NotFound):
    """An IRI the store holds, but of another kind than the option asks for (issue 17:
    ``export --claim RUN`` exported a 9-statement bundle, ``coverage --run CLAIM`` gave
    ``[]``). A subclass of :class:`NotFound`: no resource of the kind asked for has that IRI.

    Attributes:
        iri: the IRI given.
        expected: the kind asked for (``run``, ``claim or other lineage start``).
        actual: what the IRI is, with its types (``a claim (pg:Claim, prov:Entity)``).
    """

    def __init__(self, iri: str, expected: str, actual: str, hint: str) -> None:
        self.iri = iri
        self.expected = expected
        self.actual = actual
        ProvgraphError.__init__(self, f"<{iri}> is {actual}, not {'an' if expected[0] in 'aeiou' else 'a'} "
                                f"{expected}; {hint}")


class RunDeleted(NotFound):
    """A run whose graph ``provgraph delete-run`` deleted: the audit trail says when.

    Attributes:
        iri: the run.
        at: when it was deleted (timezone-aware).
        statements: how many statements were removed.
    """

    def __init__(self, iri: str, at: object, statements: int) -> None:
        self.iri = iri
        self.at = at
        self.statements = statements
        when = at.isoformat() if hasattr(at, "isoformat") else str(at)
        ProvgraphError.__init__(
            self, f"run <{iri}> was deleted at {when} ({statements} statements removed by "
                  "'provgraph delete-run'); 'provgraph runs --removed' lists deleted runs")


class ImportFailed(RecordError):
    """An import (``provgraph.importers.import_file``) that stored nothing.

    Raised when an item of the imported file is invalid and ``partial`` is false,
    when no item is valid, or when recording fails; the store is unchanged.

    Attributes:
        report: the :class:`~provgraph.importers.ImportReport`, with every
            per-item error in ``report.errors`` and ``report.stored == 0``.
    """

    def __init__(self, report: object, partial: bool = False) -> None:
        self.report = report
        errors = list(getattr(report, "errors", ()))
        name = getattr(report, "name", "<input>")
        fmt = getattr(report, "format", "?")
        ok = getattr(report, "items_ok", 0)
        shown = "; ".join(str(e) for e in errors[:3])
        if len(errors) > 3:
            shown += f"; and {len(errors) - 3} more"
        if ok and not partial:
            fix = (f"fix those items, or import with partial=True (--partial) to store the "
                   f"{ok} valid item{'s' if ok != 1 else ''} and list the rest")
        else:
            fix = f"check that the file is in the {fmt} format (--format) and fix the items listed"
        super().__init__(f"{name}: nothing was stored: {shown or 'no items found'}. {fix}")
class NoPageRegion(NotFound):
    """A citation that points at no PDF page, table or cell (``provgraph region``): it
    cites a text source, whose places are character ranges, or a PDF on which the resolver
    located it on no page. A subclass of :class:`NotFound`: no region has that citation.

    Attributes:
        iri: the citation.
        snapshot: the snapshot it cites (``None``: none recorded for its target).
        media_type: that snapshot's media type (``""``: unknown).
    """

    def __init__(self, iri: str, snapshot: str | None, media_type: str, message: str) -> None:
        self.iri = iri
        self.snapshot = snapshot
        self.media_type = media_type
        ProvgraphError.__init__(self, message)


class AgentNotFound(NotFound):
    """No agent has the name (and version) asked about, e.g. in ``provgraph impact``.

    Attributes:
        name: the agent name asked for.
        version: the version asked for, or ``None``.
        known: the versions recorded for that name (empty when the name is unknown).
    """

    def __init__(self, name: str, version: str | None, known: Sequence[str]) -> None:
        self.name = name
        self.version = version
        self.known = list(known)
        self.iri = ""
        if known:
            what = f"agent {name!r} at version {version!r}"
            hint = "recorded versions: " + ", ".join(repr(v) for v in known)
        else:
            what = f"agent {name!r}"
            hint = "check the name (agent names are recorded with pg:agentName)"
        ProvgraphError.__init__(self, f"{what} is not in the store; {hint}")
