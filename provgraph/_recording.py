"""Plumbing shared by the Recorder's steps: checked inputs, emitted statements, memory.

:class:`RecorderBase` holds what every step of :class:`~provgraph.recorder.Recorder`
uses: writing statements (into the open batch or the store), times and JSON
literals checked, agent and activity statements, prompt and index segments, and
the Recorder's memory of what it wrote (the set of written content-addressed
IRIs, extracted texts, and the support cache of :mod:`provgraph._support`), with
the undo log that makes a failed batch forget what it recorded.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from . import ids
from ._support import SupportCache
from .errors import ProvgraphError, RecordError
from .model import Agent, Ref, RunRecord, Segment, iri_of
from .originals import new_blobs
from .schema.agent import Activity, activity_quads
from .schema.segment import SEGMENT_ORIGINS
from .store import ProvStore
from .terms import IRI, Literal, Quad, lit
from .vocab import AGENT_ROLES, PG, RDF

__all__ = ["RecorderBase", "SEGMENT_ORIGINS", "discard_unreferenced", "discarding_on_failure"]

_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")
_IRI_SYNTAX = ids.IRI_SYNTAX

def _a(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


# The class an IRI given for each Recorder argument must have (Recorder._require).
_KIND_CLASS = {"query": "Query", "generator input": "GeneratorInput", "answer": "Answer",
               "claim": "Claim"}


def discard_unreferenced(store: ProvStore, written: Sequence[str]) -> None:
    """Remove the retained originals a failed write wrote (``written``: digests that were
    not there before it, as :func:`provgraph.originals.new_blobs` collects them) that no
    statement references by ``pg:sha256``: nothing was stored, so they would be evidence
    of nothing. A blob another write had already retained is never in ``written``, so
    never removed; nor is one a ledger line lists already
    (:attr:`provgraph.originals.BlobStore.may_discard`).

    Raises:
        StoreError: the store cannot be read, or a blob cannot be removed.
    """
    for digest in written:
        if next(iter(store.quads(None, PG.sha256, Literal(digest))), None) is None:
            store.originals.discard(digest)


@contextlib.contextmanager
def discarding_on_failure(store: ProvStore) -> Iterator[list[str]]:
    """Collect the retained originals written in the block (the list it yields); when the
    block raises (``KeyboardInterrupt`` too), remove those no statement references
    (:func:`discard_unreferenced`) and re-raise the block's exception. Put it around the
    write's undo (a journaled block), so that the statements undone no longer count. A
    blob that cannot be removed stays (unreferenced, as before): the block's error is the
    one raised."""
    with new_blobs(store.originals) as written:
        try:
            yield written
        except BaseException:
            with contextlib.suppress(ProvgraphError):
                discard_unreferenced(store, written)
            raise


def _utcnow() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _check_time(name: str, value: _dt.datetime) -> _dt.datetime:
    if not isinstance(value, _dt.datetime):
        raise RecordError(f"{name} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise RecordError(
            f"{name}={value.isoformat()!r} is a naive datetime; pass a timezone-aware one "
            "(for example datetime.now(timezone.utc))"
        )
    return value


def _given_iri(name: str, value: str | None) -> IRI | None:
    """A caller-supplied IRI, checked: absolute, no spaces, angle brackets, quotes or braces."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _IRI_SYNTAX.match(value):
        raise RecordError(f"{name}={value!r} is not an absolute IRI (scheme:..., with no spaces, "
                          "<, >, quotes or braces); omit it to mint one")
    return IRI(value)


def _agent_tuple(role: str, agent: Agent | tuple[str, str] | str | None) -> Agent:
    if role not in AGENT_ROLES:
        raise RecordError(f"unknown agent role {role!r}; use one of {sorted(AGENT_ROLES)}")
    if agent is None:
        raise RecordError(f"a {role} agent is required: pass (name, version)")
    if isinstance(agent, Agent):
        name, version = agent.name, agent.version
    elif isinstance(agent, str):
        name, version = agent, ""
    else:
        try:
            name, version = agent
        except (TypeError, ValueError):
            raise RecordError(f"{role} must be (name, version), got {agent!r}") from None
    if not name:
        raise RecordError(f"{role} name must not be empty")
    return Agent(role=role, name=str(name), version=str(version or ""),
                 iri=ids.content_iri("agent", role, str(name), str(version or "")))


_MISSING = object()


class _Journal:
    """Undo log of the Recorder's caches while a batch is open, so a failed batch
    forgets what it recorded without copying the caches (issue 8: copies cost O(corpus))."""

    def __init__(self) -> None:
        self.entries: list[tuple[Any, Any, Any]] | None = None

    def open(self) -> None:
        self.entries = []

    def close(self) -> None:
        self.entries = None

    def rollback(self) -> None:
        for container, key, old in reversed(self.entries or []):
            if isinstance(container, set):
                set.discard(container, key)
            elif old is _MISSING:
                dict.pop(container, key, None)
            else:
                dict.__setitem__(container, key, old)
        self.entries = None


class _JournaledDict(dict[Any, Any]):
    def __init__(self, journal: _Journal) -> None:
        super().__init__()
        self._journal = journal

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._journal.entries is not None:
            self._journal.entries.append((self, key, self.get(key, _MISSING)))
        super().__setitem__(key, value)


class _JournaledSet(set[Any]):
    def __init__(self, journal: _Journal) -> None:
        super().__init__()
        self._journal = journal

    def add(self, item: Any) -> None:
        if item not in self:
            if self._journal.entries is not None:
                self._journal.entries.append((self, item, None))
            super().add(item)


class RecorderBase:
    """State and private helpers of a Recorder (see :class:`~provgraph.recorder.Recorder`)."""

    store: ProvStore
    run: RunRecord
    _clock: Any
    _pending: list[Quad] | None
    _held: list[Quad] | None
    _journal: _Journal
    _written: set[IRI]
    _texts: dict[IRI, str]
    _support: SupportCache

    @property
    def iri(self) -> IRI:
        """The run IRI, which is also the name of the run's graph (bundle)."""
        return self.run.iri

    def _emit(self, quads: list[Quad]) -> None:
        if self._held is not None:  # Recorder(hold_run=True) before release_run()
            self._held.extend(quads)
        elif self._pending is not None:
            self._pending.extend(quads)
        else:
            self.store.add(quads)

    def _time(self, name: str, value: _dt.datetime | None) -> _dt.datetime:
        return _check_time(name, value) if value is not None else _check_time("clock()", self._clock())

    @staticmethod
    def _json(name: str, value: Any) -> Literal:
        try:
            return lit(dict(value) if isinstance(value, Mapping) else value)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"{name} must be JSON-serialisable: {exc}") from None

    def _exists(self, iri: IRI) -> bool:
        if iri in self._written:
            return True
        if self.store.has_subject(iri):
            self._mark_written(iri)
            return True
        return False

    def _mark_written(self, iri: IRI) -> None:
        self._written.add(iri)

    def _refuse_other_run(self, node: IRI, what: str) -> None:
        """Refuse to record ``node``, a request-time resource with a ``pg:run`` (a claim, a
        retrieval, context packing, generation or review activity) whose IRI the caller
        chose, when the store has it in another run: it belongs to one run (the shapes
        say ``pg:run`` has one value). ``what`` names it as the caller gave it. One
        pattern read; nothing for a freshly minted IRI, which no run can hold yet.

        Raises:
            RecordError: ``node`` has a ``pg:run`` other than this run; the message names
                ``what``, that run, and what to do.
        """
        for _, _, run, _ in self.store.quads(node, PG.run):
            if run != self.iri:
                raise RecordError(
                    f"{what} already belongs to run <{run}> (its pg:run), and a resource "
                    f"belongs to one run: record it in run <{run}>, or give it an IRI of "
                    f"its own in run <{self.iri}> (or none, to mint one)")

    def _activity_quads(self, act: IRI, cls: IRI, g: IRI, started: _dt.datetime | None,
                        ended: _dt.datetime | None, agents: Iterable[Agent] = ()) -> list[Quad]:
        return activity_quads(Activity(iri=act, cls=cls, run=self.iri, started_at=started,
                                       ended_at=ended, agents=tuple(agents)), g)

    @staticmethod
    def _check_segments(text: str, segments: Sequence[Segment], what: str) -> tuple[Segment, ...]:
        """``segments`` checked against ``text``: inside it, a known origin, a source for
        original and generated text."""
        for i, seg in enumerate(segments):
            if not isinstance(seg, Segment):
                raise RecordError(f"{what} segment {i} must be a Segment, got {seg!r}")
            if not 0 <= seg.start <= seg.end <= len(text):
                raise RecordError(
                    f"{what} segment {i} [{seg.start}, {seg.end}) is outside the text "
                    f"(0..{len(text)} code points)")
            if seg.origin not in SEGMENT_ORIGINS:
                raise RecordError(f"{what} segment {i} origin {seg.origin!r}; use one of "
                                  f"{SEGMENT_ORIGINS}")
            if seg.origin in ("original", "generated") and seg.source is None:
                raise RecordError(f"{what} segment {i} is {seg.origin} text but names no source")
        return tuple(segments)

    def _require(self, ref: Ref, what: str) -> IRI:
        """The IRI of ``ref``, which must name something already recorded, and, given as
        an IRI string, not something of another kind: a run, or a resource whose
        ``pg:`` types do not include ``what``'s class (``claim``: ``pg:Claim``). A
        resource with PROV types only (imported PROV) is taken as it is."""
        iri = iri_of(ref)
        if not isinstance(ref, str):
            return iri
        if iri == self.iri:
            raise RecordError(f"{what} <{iri}> is a run (this recorder's own), not {_a(what)}; "
                              f"give the IRI of {_a(what)} (pg:{_KIND_CLASS[what]})")
        if iri in self._written:
            return iri
        if iri in self._support or (_IRI_SYNTAX.match(iri) and self.store.has_subject(iri)):
            self._check_kind(iri, what)
            return iri
        raise RecordError(f"{what} <{iri}> is not recorded; record it first or pass its record")

    def _check_kind(self, iri: IRI, what: str) -> None:
        from .kinds import RUN_TYPES, describe_types

        expected = str(getattr(PG, _KIND_CLASS[what]))
        base = expected.removesuffix(_KIND_CLASS[what])
        types = {str(q[2]) for q in self.store.quads(iri, RDF.type)}
        if expected in types:
            return
        if RUN_TYPES & types or any(t.startswith(base) for t in types):
            raise RecordError(f"{what} <{iri}> is {describe_types(self.store, iri)}, not "
                              f"{_a(what)}; give the IRI of {_a(what)} (pg:{_KIND_CLASS[what]})")
