"""The JSONL event log: the Recorder's steps as versioned JSON lines, for any language.

Format: version 1, specified by ``schemas/events-v1.schema.json`` (JSON Schema
2020-12). One JSON object per line; ``"event"`` names the step (``run``,
``snapshot``, ``deletion``, ``extraction``, ``chunking``, ``aid``, ``indexed``,
``query``, ``retrieval``, ``context_packing``, ``generation``, ``claim``,
``citation``) and the other fields mirror the keyword arguments of the
:class:`~provgraph.recorder.Recorder` method of the same name. ``"id"`` names a
record so later lines can refer to it; any reference field takes such an id or
an IRI. Blank lines and lines starting with ``//`` are ignored.

Example line::

    {"event": "snapshot", "id": "s1", "uri": "https://example.org/policy.md",
     "media_type": "text/markdown", "content": "# Policy\\n...", "observed_at": "2026-01-05T10:00:00Z"}

Loading is all or nothing: every line is checked against the schema first
(:func:`read_events`, or :func:`check_events`, which keeps nothing: no store needed, every
bad line is reported at once), then the steps are recorded (:func:`record_events`: the
first line that cannot be recorded stops it); :class:`~provgraph.errors.EventLogError`
gives line numbers and fields, and nothing from the file is stored. A log of up to
:data:`BATCH_EVENTS` events is one transaction. A longer one, on a store that journals
(:attr:`provgraph.store.ProvStore.journals`: the embedded store), is recorded in
transactions of :data:`BATCH_EVENTS` events inside one
:meth:`~provgraph.store.ProvStore.journaled` write, so memory stays bounded whatever the
log's size and the engine keeps no large write-ahead log, while a failure, Ctrl-C or a
killed process still leaves nothing of the file (issue 16, item 6; the journal's
docstring says how). On other stores it stays one transaction. The retained originals a
failed record wrote are removed again, but for those a committed transaction's ledger
line lists already (:mod:`provgraph.ledger`) and those a killed process left. Event logs never cause
file or network access: source bytes travel inline (``content`` or ``content_base64``).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import datetime as _dt
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any


from ._recording import discarding_on_failure
from .limits import json_error_text, loads_json
from .errors import EventLogError, ProvgraphError
from .model import Agent, AnswerRecord, Hit, QueryRecord, Segment
from .recorder import Recorder
from .schema import generation as generation_schema
from .resources import json_schema, schema_validator
from .store import ProvStore
from .terms import IRI
from .vocab import own_graph_error

__all__ = ["EVENT_FORMAT_VERSION", "BATCH_EVENTS", "BATCH_STATEMENTS", "load_events", "read_events", "check_events",
           "record_events", "iter_events", "iter_checked", "schema"]

EVENT_FORMAT_VERSION = 1

BATCH_EVENTS = 2_000
"""Most events per transaction when a log is recorded in a journaled write
(:func:`record_events`)."""
BATCH_STATEMENTS = 50_000
"""A transaction of a journaled record ends after the event that brings it to this many
statements (a chunking event of many chunks can write thousands)."""


def schema() -> dict[str, Any]:
    """The event log JSON Schema (a fresh copy)."""
    return json_schema("events-v1.schema.json")


def _validator() -> Any:
    return schema_validator("events-v1.schema.json")


def iter_events(lines: Iterable[str], source: str = "<events>") -> Iterator[tuple[int, dict[str, Any]]]:
    """Parse and schema-check event lines; yield ``(line_number, event)``.

    Raises:
        EventLogError: the first line that is not a JSON object or breaks the schema
            (:func:`read_events` reports every such line).
    """
    for n, obj in _parsed(lines, source):
        if isinstance(obj, EventLogError):
            raise obj
        yield n, obj


def _parsed(lines: Iterable[str], source: str
            ) -> Iterator[tuple[int, dict[str, Any] | EventLogError]]:
    """``(line number, event or the line's error)`` for every line that is not blank or
    a ``//`` comment."""
    validator = _validator()
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        try:
            obj = loads_json(line)
        except json.JSONDecodeError as exc:
            yield n, EventLogError(source, n, None, f"not valid JSON ({json_error_text(exc)} at column {exc.colno})")
            continue
        if not isinstance(obj, dict):
            yield n, EventLogError(source, n, None, "each line must be a JSON object")
            continue
        errors = sorted(validator.iter_errors(obj), key=lambda e: (len(e.path), e.path))
        if errors:
            err = errors[-1]
            field = ".".join(str(p) for p in err.path) or _missing_field(err.message) or "event"
            yield n, EventLogError(source, n, field, _short(err))
            continue
        if obj["event"] == "run" and isinstance(obj.get("iri"), str) and (
                why := own_graph_error(obj["iri"], writer="run")) is not None:
            yield n, EventLogError(source, n, "iri", why)
            continue
        yield n, obj


def read_events(source: IO[str] | Iterable[str], name: str = "<events>"
                ) -> list[tuple[int, dict[str, Any]]]:
    """Read and check a whole event log, without a store: every line is parsed and
    checked against the schema, and a ``run`` event may only be the first.

    Args:
        source: an open text file or an iterable of lines.
        name: how the source is named in error messages (a file path).

    Returns:
        ``(line number, event)`` for every event, in file order; pass it to
        :func:`record_events`.

    Raises:
        EventLogError: every bad line at once (issue 17: only the first was reported):
            ``.errors`` lists one :class:`EventLogError` per bad line, ``.line`` and
            ``.field`` are the first one's; or the log holds no pipeline event.
    """
    events: list[tuple[int, dict[str, Any]]] = []
    _check(_parsed(source, name), name, events.append)
    return events


MAX_REPORTED = 1_000
"""Bad lines :func:`check_events` keeps for its report (it counts the rest)."""


def check_events(source: IO[str] | Iterable[str], name: str = "<events>") -> tuple[int, int]:
    """Check a whole event log as :func:`read_events` does, keeping none of it: memory
    does not grow with the log (the first pass of ``provgraph record``).

    Args:
        source: an open text file or an iterable of lines (read once).
        name: how the source is named in error messages (a file path).

    Returns:
        ``(events, last line number)``: how many events the log holds, and the number of
        its last line (blank and comment lines included).

    Raises:
        EventLogError: as :func:`read_events`; past :data:`MAX_REPORTED` bad lines the
            rest are counted (in the message) but not kept in ``.errors``.
        UnicodeDecodeError: ``source`` is a file that is not valid text in its encoding.
    """
    count = [0]

    def keep(_: tuple[int, dict[str, Any]]) -> None:
        count[0] += 1

    lines = [0]

    def numbered(src: Iterable[str]) -> Iterator[str]:
        for line in src:
            lines[0] += 1
            yield line

    _check(_parsed(numbered(source), name), name, keep, limit=MAX_REPORTED)
    return count[0], lines[0]


def _check(parsed: Iterable[tuple[int, dict[str, Any] | EventLogError]], name: str,
           keep: Callable[[tuple[int, dict[str, Any]]], None], *,
           limit: int | None = None) -> None:
    """The checks of :func:`read_events` over ``parsed``; each good event goes to ``keep``."""
    bad: list[EventLogError] = []
    more = 0
    good = pipeline = 0
    last = 1
    for n, obj in parsed:
        last = n
        err = obj if isinstance(obj, EventLogError) else None
        if err is None and obj["event"] == "run" and (good or bad or more):  # type: ignore[index]
            err = EventLogError(name, n, "event", "a 'run' event may only be the first line")
        if err is not None:
            if limit is None or len(bad) < limit:
                bad.append(err)
            else:
                more += 1
            continue
        good += 1
        pipeline += obj["event"] != "run"  # type: ignore[index]
        keep((n, obj))  # type: ignore[arg-type]
    if len(bad) == 1 and not more:
        raise bad[0]
    if bad:
        raise EventLogError.several(name, bad, len(bad) + more)
    if not pipeline:
        raise EventLogError(name, max(1, last if good else 1), None,
                            "the log holds no pipeline events; nothing to record")


def _missing_field(message: str) -> str | None:
    if "is a required property" in message:
        return message.split("'")[1]
    if "Additional properties are not allowed" in message and "'" in message:
        return message.split("'")[1]
    return None


_DATE_TIME = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"


def _short(err: Any) -> str:
    if err.validator == "pattern" and err.validator_value == _DATE_TIME:
        return (f"{err.instance!r} is not an RFC 3339 date-time with a time zone (add Z or an "
                "offset such as +01:00)")
    msg = str(err.message)
    return msg if len(msg) < 200 else msg[:197] + "..."


def _time(n: int, source: str, field: str, value: str | None) -> _dt.datetime | None:
    if value is None:
        return None
    try:
        return _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise EventLogError(source, n, field, f"{value!r} is not an RFC 3339 date-time") from None


def _agent(role: str, obj: dict[str, str] | None) -> Agent | None:
    return None if obj is None else _required_agent(role, obj)


def _required_agent(role: str, obj: dict[str, str]) -> Agent:
    """An agent the event schema requires (an object, never null)."""
    return Agent(role=role, name=obj["name"], version=obj.get("version", ""))


def load_events(store: ProvStore, source: IO[str] | Iterable[str], *, name: str = "<events>",
                clock: Callable[[], _dt.datetime] | None = None,
                progress: Callable[[int], None] | None = None) -> Recorder:
    """Record a JSONL event log into ``store`` atomically: :func:`read_events`, then
    :func:`record_events`.

    Args:
        store: the target store.
        source: an open text file or an iterable of lines.
        name: how the source is named in error messages (a file path).
        clock: the recorder's clock for omitted times (default: UTC now).
        progress: called with each line number as it is recorded.

    Returns:
        The :class:`Recorder` used (``.iri`` is the run recorded).

    Raises:
        EventLogError: every line that is not JSON or breaks the schema (``.errors``),
            else the first line that cannot be recorded (an id not defined on an
            earlier line, offsets outside the text ...); nothing from the file is stored.
        StoreError: the store cannot be written.
    """
    return record_events(store, read_events(source, name), name=name, clock=clock,
                         progress=progress)


def record_events(store: ProvStore, events: Iterable[tuple[int, dict[str, Any]]], *,
                  name: str = "<events>", clock: Callable[[], _dt.datetime] | None = None,
                  progress: Callable[[int], None] | None = None,
                  count: int | None = None) -> Recorder:
    """Record events checked by :func:`read_events` (or :func:`check_events`) into
    ``store``, all or nothing.

    Up to :data:`BATCH_EVENTS` events, or on a store without a journal
    (:attr:`~provgraph.store.ProvStore.journals` false: a remote store), they are one
    transaction. More are recorded :data:`BATCH_EVENTS` at a time (fewer when they reach
    :data:`BATCH_STATEMENTS` statements), one transaction each, inside one :meth:`~provgraph.store.ProvStore.journaled` write: nothing of them stays
    after an error, Ctrl-C or a killed process, and memory does not grow with the log
    (beyond the ids it defines: a later line may refer to any of them).

    Args:
        store: the target store.
        events: ``(line number, event)`` pairs, checked: what :func:`read_events`
            returned (not changed), or an iterator over a log :func:`check_events`
            accepted (pass ``count`` then; it is read once).
        name: how the source is named in error messages.
        clock: the recorder's clock for omitted times (default: UTC now).
        progress: called with each line number as it is recorded.
        count: the number of events when ``events`` has no length (``None``: its
            length, or, for an iterator, more than :data:`BATCH_EVENTS`).

    Returns:
        The :class:`Recorder` used (``.iri`` is the run recorded).

    Retained originals the log's snapshots and extractions wrote (there were none of those
    bytes before) are removed again when it fails, or is interrupted, unless a statement
    references them: all of them for a log of one transaction; for a longer one on a store
    with a ledger, those of the failing transaction (the ledger lists those of the
    transactions stored before it, and :func:`provgraph.verify.verify_store` checks that
    listed originals are there). A killed process leaves its originals.

    Raises:
        EventLogError: the first line that cannot be recorded (with its line number
            and field); nothing from the file is stored.
        StoreError: the store cannot be written; nothing from the file is stored.
    """
    if count is None:
        count = len(events) if isinstance(events, (list, tuple)) else BATCH_EVENTS + 1
    it = iter(events)
    first = next(it, None)
    run_kwargs: dict[str, Any] = {}
    run_line = 1
    if first is not None and first[1]["event"] == "run":
        n, ev = first
        run_line = n
        run_kwargs = {k: ev[k] for k in ("label", "config", "models", "code_revision", "packages")
                      if k in ev}
        if "iri" in ev:
            run_kwargs["run_iri"] = ev["iri"]
        if "started_at" in ev:
            run_kwargs["started_at"] = _time(n, name, "started_at", ev["started_at"])
    elif first is not None:
        it = itertools.chain([first], it)
    records = _Ids()
    if clock is not None:
        run_kwargs["clock"] = clock
    # The run's own statements join the first transaction.
    try:
        recorder = Recorder(store, hold_run=True, **run_kwargs)
    except ProvgraphError as exc:
        raise EventLogError(name, run_line, None, str(exc)) from exc
    streamed = store.journals and count > BATCH_EVENTS
    # Originals written by a record that fails are removed twice over: inside the journaled
    # write, those of the failing transaction (no statement of it was stored), before the
    # undo's ledger line lists them; outside it, once the undo has run, those of the
    # transactions stored before, on a store without a ledger (with one, their lines list
    # them, and BlobStore.may_discard keeps them).
    with (discarding_on_failure(store),
          store.journaled(f"record {name}") if streamed else contextlib.nullcontext(),
          discarding_on_failure(store)):
        released = done = False
        while not done:
            done = True
            with recorder.batch():
                if not released:
                    recorder.release_run()
                    released = True
                k = 0
                for n, ev in it:
                    try:
                        _apply(recorder, records, n, ev, name)
                    except EventLogError:
                        raise
                    except ProvgraphError as exc:
                        raise EventLogError(name, n, None, str(exc)) from exc
                    if progress is not None:
                        progress(n)
                    k += 1
                    if streamed and (k >= BATCH_EVENTS or recorder.pending >= BATCH_STATEMENTS):
                        done = False  # the rest in the next transaction
                        break
            if streamed:
                records.age()
    return recorder


class _Ids(dict[str, Any]):
    """The ids a log defines -> their records. A record defined two or more transactions
    ago is kept lean, so memory grows with the number of ids, not with the texts and hits
    their records hold (issue 16, item 6): as its IRI (a str, which the Recorder takes
    wherever it takes the record), but for

    - an answer: its IRI too; a claim needs the answer's text and generation, which
      :meth:`answer` reads back from the store (stored by then);
    - a query: a :class:`QueryRecord` without its text, so that an aid derived from it
      stays a per-request aid whatever the query's IRI (:meth:`Recorder.aid`).
    """

    def __init__(self) -> None:
        super().__init__()
        self._new: list[str] = []
        self._last: list[str] = []
        self._read: AnswerRecord | None = None  # the last answer read back

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self._new.append(key)

    def age(self) -> None:
        """At the end of a transaction: keep the records of the previous one lean."""
        for key in self._last:
            value = self.get(key)
            if isinstance(value, QueryRecord):
                dict.__setitem__(self, key, QueryRecord(iri=value.iri, text=""))
                continue
            iri = getattr(value, "iri", None)
            if isinstance(iri, str):
                dict.__setitem__(self, key, iri)
        self._last, self._new = self._new, []

    def answer(self, store: ProvStore, key: str) -> AnswerRecord | None:
        """The answer the id ``key`` names: its record, or, kept as its IRI, the answer
        read back from ``store``; ``None`` when ``key`` names something else."""
        value = self[key]
        if not isinstance(value, str):
            return value if isinstance(value, AnswerRecord) else None
        if self._read is None or self._read.iri != value:  # claims of one answer come together
            self._read = generation_schema.load(store, [IRI(value)]).get(IRI(value))
        return self._read


def iter_checked(source: Iterable[str], name: str = "<events>"
                 ) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, event)`` for every event of a log :func:`check_events` accepted,
    read again (the second pass of ``provgraph record``): checked again line by line, so
    a file changed in between stops with its bad line instead of recording it.

    Raises:
        EventLogError: the first bad line, or a ``run`` event after the first line.
    """
    seen = False
    for n, obj in iter_events(source, name):
        if obj["event"] == "run" and seen:
            raise EventLogError(name, n, "event", "a 'run' event may only be the first line")
        seen = True
        yield n, obj


def _apply(rec: Recorder, records: _Ids, n: int, ev: dict[str, Any], src: str) -> None:
    kind = ev["event"]

    def ref(field: str, value: str | None = None, *, raw_ok: bool = False) -> Any:
        v = ev[field] if value is None else value
        if v in records:
            return records[v]
        if ":" in v or raw_ok:
            return v
        raise EventLogError(src, n, field, f"{field} id {v!r} is not defined earlier in the "
                                           "log (nor is it an IRI)")

    def t(field: str) -> _dt.datetime | None:
        return _time(n, src, field, ev.get(field))

    def segs(field: str) -> list[Segment]:
        return [Segment(start=s["start"], end=s["end"], origin=s["origin"],
                        source=ref(field, s["source"]) if "source" in s else None)
                for s in ev[field]]

    out: Any
    if kind == "snapshot":
        if ("content" in ev) == ("content_base64" in ev):
            raise EventLogError(src, n, "content", "give exactly one of 'content' and 'content_base64'")
        if "content" in ev:
            data = ev["content"].encode("utf-8")
        else:
            try:
                data = base64.b64decode(ev["content_base64"], validate=True)
            except (binascii.Error, ValueError):
                raise EventLogError(src, n, "content_base64", "is not valid base64") from None
        out = rec.snapshot(data, uri=ev["uri"], media_type=ev["media_type"],
                           observed_at=t("observed_at"),
                           revision_of=ref("revision_of") if "revision_of" in ev else None,
                           document=ev.get("document"))
    elif kind == "deletion":
        out = rec.deletion(ref("snapshot"), at=t("at"))
    elif kind == "extraction":
        out = rec.extraction(ref("snapshot"), parser=_required_agent("parser", ev["parser"]),
                             text=ev["text"], offset_map=ev.get("offset_map"), config=ev.get("config"),
                             started_at=t("started_at"), ended_at=t("ended_at"))
    elif kind == "chunking":
        ids = ev.get("ids")
        if ids is not None and len(ids) != len(ev["ranges"]):
            raise EventLogError(src, n, "ids", f"has {len(ids)} names for {len(ev['ranges'])} ranges")
        for i, name in enumerate(ids or []):
            if name in records or name in (ids or [])[:i]:
                raise EventLogError(src, n, "ids", f"{name!r} is already defined")
        chunks = rec.chunking(ref("extraction"), chunker=_required_agent("chunker", ev["chunker"]),
                              ranges=[tuple(r) for r in ev["ranges"]],
                              parameters=ev.get("parameters"), ended_at=t("ended_at"))
        for name, chunk in zip(ids or [], chunks):
            records[name] = chunk
        out = chunks
    elif kind == "aid":
        out = rec.aid(ev["kind"], text=ev["text"], model=_required_agent("model", ev["model"]),
                      derived_from=[ref("derived_from", d) for d in ev["derived_from"]], at=t("at"))
    elif kind == "indexed":
        out = rec.indexed(ref("chunk"), text=ev["text"], segments=segs("segments"),
                          embedder=_agent("embedder", ev.get("embedder")), at=t("at"))
    elif kind == "query":
        out = rec.query(ev["text"], at=t("at"), iri=ev.get("iri"))
    elif kind == "retrieval":
        hits = [Hit(target=ref("hits", h["target"]), rank=h.get("rank", i + 1), score=h.get("score"))
                for i, h in enumerate(ev["hits"])]
        out = rec.retrieval(ref("query"), retriever=_required_agent("retriever", ev["retriever"]),
                            hits=hits, index_version=ev.get("index_version", ""),
                            aids=[ref("aids", a) for a in ev.get("aids", [])],
                            started_at=t("started_at"), ended_at=t("ended_at"), iri=ev.get("iri"))
    elif kind == "context_packing":
        out = rec.context_packing(text=ev["text"], segments=segs("segments"),
                                  retrieval=ref("retrieval") if "retrieval" in ev else None,
                                  template=_agent("prompt_template", ev.get("template")),
                                  omitted=[ref("omitted", o) for o in ev.get("omitted", [])],
                                  token_budget=ev.get("token_budget"), at=t("at"), iri=ev.get("iri"))
    elif kind == "generation":
        out = rec.generation(ref("input"), model=_required_agent("model", ev["model"]),
                             text=ev["text"], settings=ev.get("settings"),
                             started_at=t("started_at"), ended_at=t("ended_at"), iri=ev.get("iri"))
    elif kind == "claim":
        answer: AnswerRecord | str = ref("answer")
        if ev["answer"] in records:
            # an id: the answer's record, read back if the id was defined long ago, so
            # that the claim is checked against its text and linked to its generation
            found = records.answer(rec.store, ev["answer"])
            if found is None:
                raise EventLogError(src, n, "answer", f"answer id {ev['answer']!r} does not "
                                    "name an answer: give the id of a generation event")
            answer = found
        out = rec.claim(answer, start=ev["start"], end=ev["end"], kind=ev["kind"],
                        status=ev.get("status", "supported"), text=ev.get("text"),
                        derived_from=[ref("derived_from", d) for d in ev.get("derived_from", [])],
                        warrant=ev.get("warrant"), iri=ev.get("iri"))
    elif kind == "citation":
        out = rec.citation(ref("claim"), target=ref("target", raw_ok=True), start=ev.get("start"),
                           end=ev.get("end"), unit=ev.get("unit"),
                           end_inclusive=ev.get("end_inclusive", False), quote=ev.get("quote"),
                           prefix=ev.get("prefix"), suffix=ev.get("suffix"),
                           pinned_sha256=ev.get("pinned_sha256"), policy=ev.get("policy"),
                           iri=ev.get("iri"))
    else:  # pragma: no cover - the schema's enum rules this out
        raise EventLogError(src, n, "event", f"unknown event {kind!r}")
    if "id" in ev:
        if ev["id"] in records:
            raise EventLogError(src, n, "id", f"{ev['id']!r} is already defined on an earlier line")
        records[ev["id"]] = out
