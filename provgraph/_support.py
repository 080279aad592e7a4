"""The support of a recorded entity: the agents and source snapshots behind it.

The :class:`~provgraph.recorder.Recorder` writes two shortcuts on every claim,
``pg:supportAgent`` (each agent in the claim's support) and ``pg:citedSnapshot``
(each snapshot its evidence derives from), so that ``impact`` and ``stale`` are
one-hop lookups. This module owns their one definition, and the bounded memory
of it the Recorder keeps while recording.

Definition. The *support step* of an entity or activity ``x`` is what the
Recorder writes about ``x`` itself:

* direct agents: an activity's own agents (``x prov:wasAssociatedWith a``: a
  retrieval's retriever) and the agents of the activity that generated ``x``
  (``x prov:wasGeneratedBy/prov:wasAssociatedWith a``);
* direct snapshots: ``x`` itself when it is a ``pg:SourceSnapshot``;
* *evidence* (agents and snapshots flow from it): what ``x`` was derived from
  (``prov:wasDerivedFrom``: an extraction's snapshot, a chunk's extracted text,
  an aid's chunks or query, a prompt's sources, an indexed text's chunk and aids);
* *inputs* (only agents flow from them): what the activity that generated ``x``
  used or was informed by (``prov:wasGeneratedBy/prov:used``,
  ``prov:wasGeneratedBy/prov:wasInformedBy``: a generation's prompt, a packing's
  retrieval), and the aids a retrieval used (``pg:aidUsed``).

The support of ``x`` is then: its direct agents plus the agents of the support of
every evidence and input; its direct snapshots plus the snapshots of the support
of every evidence. A generated aid (``pg:GeneratedAid``) has no snapshots: it is
never original evidence.

A claim's support is fixed when the claim is recorded, from its answer (an
input) and its derivation operands (evidence), and grows with each citation by
the support of the citation's target (evidence); every change is written as the
claim's shortcuts. So the store's ``pg:supportAgent`` and ``pg:citedSnapshot``
statements of a ``pg:Claim`` *are* its support, and a claim derived from
another takes the operand's support as it stands then.

:meth:`SupportCache.derive` is the one function that combines a step into a
support, whether the step comes from a Recorder method (which knows what it is
writing) or from the store (:func:`read_step`, for entities recorded by another
session or no longer in memory).

Reference: PROV-O §3.1-3.3 (https://www.w3.org/TR/prov-o/).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import NamedTuple

from .store import ProvStore
from .terms import IRI
from .vocab import GRAPH, PG, PROV, RDF

__all__ = ["Support", "SupportCache", "read_step", "EMPTY", "DEFAULT_CACHE_SIZE"]

DEFAULT_CACHE_SIZE = 8192
"""Request-time entries a Recorder keeps by default: about 8 per answer (query,
retrieval, aid, prompt, answer, claims), so the answers of the last thousand or so
requests, about 1.6 MB (200 bytes an entry, measured)."""


class Support(NamedTuple):
    """Agents and source snapshots in the support of one entity (see the module doc)."""

    agents: frozenset[IRI]
    snapshots: frozenset[IRI]


EMPTY = Support(frozenset(), frozenset())


class Step(NamedTuple):
    """One entity's support step as read from the store (see the module doc)."""

    agents: set[IRI]
    snapshots: set[IRI]
    evidence: set[IRI]
    inputs: set[IRI]
    generated: bool
    found: bool  # the store has statements about it
    ingestion: bool  # all of them in the ingestion graph


def read_step(store: ProvStore, x: IRI) -> Step:
    """The support step of ``x`` from the statements the store holds about it.

    Reads ``x``'s own statements (any graph) and those of the activities that
    generated it; a claim's step is its shortcuts (see the module doc).
    """
    agents: set[IRI] = set()
    snapshots: set[IRI] = set()
    evidence: set[IRI] = set()
    inputs: set[IRI] = set()
    shortcut_agents: set[IRI] = set()
    shortcut_snapshots: set[IRI] = set()
    generated = found = claim = False
    ingestion = True
    acts: list[IRI] = []
    for _, p, o, g in store.quads(x):
        found = True
        if g != GRAPH.INGESTION:
            ingestion = False
        if p == PROV.wasDerivedFrom:
            evidence.add(o)  # type: ignore[arg-type]
        elif p == PROV.wasGeneratedBy:
            acts.append(o)  # type: ignore[arg-type]
        elif p == PROV.wasAssociatedWith:
            agents.add(o)  # type: ignore[arg-type]
        elif p == PG.aidUsed:
            inputs.add(o)  # type: ignore[arg-type]
        elif p == PG.supportAgent:
            shortcut_agents.add(o)  # type: ignore[arg-type]
        elif p == PG.citedSnapshot:
            shortcut_snapshots.add(o)  # type: ignore[arg-type]
        elif p == RDF.type:
            if o == PG.SourceSnapshot:
                snapshots.add(x)
            elif o == PG.GeneratedAid:
                generated = True
            elif o == PG.Claim:
                claim = True
    if claim:
        return Step(shortcut_agents, shortcut_snapshots, set(), set(), False, True, False)
    for act in acts:
        for _, p, o, _ in store.quads(act):
            if p == PROV.wasAssociatedWith:
                agents.add(o)  # type: ignore[arg-type]
            elif p == PROV.used or p == PROV.wasInformedBy:
                inputs.add(o)  # type: ignore[arg-type]
    return Step(agents, snapshots, evidence, inputs, generated, found, ingestion)


class SupportCache:
    """The supports a Recorder has computed, bounded, falling back to the store.

    Two tiers. *Ingestion* entries (snapshots, extracted texts, chunks, aids made
    from chunks, indexed representations, and anything read back from the store
    whose statements are all in the ingestion graph) are kept for the cache's
    life: there are as many as the corpus has, not as requests, and every
    request's citations look them up. *Request* entries (queries, retrievals,
    per-request aids, prompts, answers, claims, and other entities read back from
    the store) are an LRU of at most ``size`` entries; an evicted entry is read
    back from the store by :func:`read_step` when next asked for, which gives the
    same support (``tests/test_recorder_support.py``).

    Entries recorded inside an open batch are held apart until it commits (they
    are not in the store yet, so they cannot be evicted) and dropped if it rolls
    back (they never reached the store).

    Args:
        store: where evicted or unknown entities are read back from.
        size: request entries kept, at least 1 (default :data:`DEFAULT_CACHE_SIZE`).
    """

    def __init__(self, store: ProvStore, size: int = DEFAULT_CACHE_SIZE) -> None:
        if int(size) < 1:
            raise ValueError(f"support cache size must be at least 1, got {size}")
        self.store = store
        self.size = int(size)
        self.ingestion: dict[IRI, Support] = {}
        self.recent: OrderedDict[IRI, Support] = OrderedDict()
        self._open: dict[IRI, tuple[Support, bool]] | None = None
        self._interned: dict[frozenset[IRI], frozenset[IRI]] = {}
        self._visiting: set[IRI] = set()

    # ----------------------------------------------------------------- lookups
    def __contains__(self, iri: object) -> bool:
        return ((self._open is not None and iri in self._open) or iri in self.recent
                or iri in self.ingestion)

    def __len__(self) -> int:
        return len(self.ingestion) + len(self.recent) + len(self._open or ())

    def get(self, iri: IRI) -> Support | None:
        """The remembered support of ``iri`` (``None``: not in memory)."""
        if self._open is not None:
            got = self._open.get(iri)
            if got is not None:
                return got[0]
        s = self.recent.get(iri)
        if s is not None:
            self.recent.move_to_end(iri)
            return s
        return self.ingestion.get(iri)

    def of(self, iri: IRI) -> Support:
        """The support of ``iri``: remembered, else read back from the store (and remembered).

        An IRI the store knows nothing about has an empty support, not remembered.
        """
        got = self.get(iri)
        if got is not None:
            return got
        if iri in self._visiting:  # a derivation cycle (PROV-CONSTRAINTS forbids it): stop here
            return EMPTY
        self._visiting.add(iri)
        try:
            step = read_step(self.store, iri)
            if not step.found:
                return EMPTY
            s = self.derive(agents=step.agents, snapshots=step.snapshots, evidence=step.evidence,
                            inputs=step.inputs, generated=step.generated)
        finally:
            self._visiting.discard(iri)
        self._put(iri, s, step.ingestion)
        return s

    # ----------------------------------------------------------------- the definition
    def derive(self, *, agents: Iterable[IRI] = (), snapshots: Iterable[IRI] = (),
               evidence: Iterable[IRI] = (), inputs: Iterable[IRI] = (),
               generated: bool = False) -> Support:
        """The support of an entity whose support step is given (see the module doc)."""
        ag = set(agents)
        sn: set[IRI] = set() if generated else set(snapshots)
        for u in evidence:
            s = self.of(u)
            ag |= s.agents
            if not generated:
                sn |= s.snapshots
        for u in inputs:
            ag |= self.of(u).agents
        return Support(self._intern(frozenset(ag)), self._intern(frozenset(sn)))

    def _intern(self, fs: frozenset[IRI]) -> frozenset[IRI]:
        # Many entities share one set (the chunks of an extraction, the claims of an
        # answer): keep one copy. Bounded: cleared when full.
        got = self._interned.get(fs)
        if got is not None:
            return got
        if len(self._interned) >= 4096:
            self._interned.clear()
        self._interned[fs] = fs
        return fs

    # ----------------------------------------------------------------- remembering
    def remember(self, iri: IRI, support: Support, *, ingestion: bool) -> None:
        """Remember what the Recorder just recorded (or is recording in the open batch)."""
        if self._open is not None:
            self._open[iri] = (support, ingestion)
        else:
            self._put(iri, support, ingestion)

    def _put(self, iri: IRI, support: Support, ingestion: bool) -> None:
        if ingestion:
            self.ingestion[iri] = support
            self.recent.pop(iri, None)
            return
        self.ingestion.pop(iri, None)
        self.recent[iri] = support
        self.recent.move_to_end(iri)
        while len(self.recent) > self.size:
            self.recent.popitem(last=False)

    def begin(self) -> None:
        """A batch opens: hold new entries apart until :meth:`commit`."""
        self._open = {}

    def commit(self) -> None:
        """The batch's statements are stored: its entries join the tiers (and may be evicted)."""
        held, self._open = self._open or {}, None
        for iri, (support, ingestion) in held.items():
            self._put(iri, support, ingestion)

    def rollback(self) -> None:
        """The batch failed: forget its entries (earlier ones are untouched)."""
        self._open = None
