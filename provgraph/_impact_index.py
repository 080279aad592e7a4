"""The impact index: for each agent :func:`provgraph.analytics.impact` was asked about, its
``pg:supportAgent`` statements as ``{run: claims}``, kept beside the store and brought up
to date through the ledger after writes (issue 16, items 1 and 5; private to provgraph).

``impact`` answers "which claims does this agent (at this version) affect?" from the
``pg:supportAgent`` shortcut the recorder writes: one statement ``claim pg:supportAgent
agent`` in the claim's run graph per agent of the claim's support (``impact-claims.rq``).
The agent's name and versions are looked up in the store on every call (a few
statements); the claims, which grow with the store (183,761 for one parser at a million
answers), are what is kept here, one file per agent:
``PATH/index/impact-v1-<sha-256 of the agent IRI>.json`` holding the store's state token
and ledger mark they were read at, the digest of the code that read them, and the claims
of each run graph.

A later call uses the file as kept while the state token is unchanged (nothing written
since, by anyone); else it reads the ledger lines written since the mark
(:meth:`~provgraph.store.ProvStore.ledger_lines_since`) and replays, in order, each
``pg:supportAgent`` statement about the agent they added or removed: the index is a set of
quads of one pattern, so adding and removing them in ledger order gives exactly the set
the store holds (a line read twice, as the mark before the last line makes happen,
changes nothing). It reads the store anew when the ledger cannot tell (a writer without
the ledger, a cut or rewritten ledger), when a replayed statement has a blank node (a
ledger line keeps the writer's label, not the engine's) or does not parse back (a blank
node labelled with ``:``, which the engine takes and its N-Quads parser refuses), or when
the file is missing, unreadable (JSON nested too deep included) or written by other code.
``provgraph verify`` compares every impact index with reading the store
(:func:`check_indexes`).

The ledger's statements are N-Quads as the store layer writes them (IRIs unescaped), so a
statement whose text does not hold ``supportAgent`` is not parsed.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
from collections.abc import Iterable

from ._rows import _int, _run_query, code_key
from .errors import SerializationError
from .ledger import LedgerLine, LedgerMark
from .store import ProvStore, iter_rdf
from .terms import IRI, term_value
from .vocab import PG

Claims = dict[IRI, list[str]]
"""``{run graph: claim IRIs as text}``: one agent's ``pg:supportAgent`` statements."""

_PREFIX = "impact-v1-"
"""The start of an impact index's name among the store's derived indexes."""
INDEX_PATTERN = "index/" + _PREFIX + "*.json"
"""Where an embedded store keeps its impact indexes, relative to its directory (a glob)."""

_INPUTS = ("_impact_index.py",)
"""The modules whose code decides what an impact index holds (their bytes are its key)."""
_QUERIES = ("impact-claims",)
"""The bundled queries it is read with (their text is part of its key)."""

_MARKER = "supportAgent"
"""Text every ledger statement with the ``pg:supportAgent`` predicate holds."""


def _name(agent: IRI) -> str:
    return _PREFIX + hashlib.sha256(str(agent).encode("utf-8")).hexdigest() + ".json"


@functools.lru_cache(maxsize=1)
def _code_key() -> str | None:
    """A digest of the code and query text that fill an impact index
    (:func:`provgraph._rows.code_key`): an index written by other code is not used;
    ``None``: no index is read or written."""
    return code_key(_PREFIX, _INPUTS, _QUERIES)


def claims_by_run(store: ProvStore, agent: IRI, run: IRI | None = None, *,
                  index: bool = True) -> Claims | None:
    """The claims whose support went through ``agent``, per run graph: the ``claim
    pg:supportAgent agent`` statements of every named graph (``impact-claims.rq``).

    From the agent's impact index when it holds for the store as it is now (see the module
    docstring), else read from the store; a whole-store read (``run`` is ``None``) is kept
    as the index when no write landed meanwhile. With ``run``, a read of that run's graph
    alone is not kept.

    Args:
        store: the store.
        agent: the agent's IRI (a blank-node agent has no index: the caller reads
            ``impact.rq``).
        run: only this run graph; ``None``: every named graph.
        index: ``False``: read the store, and neither read nor write the index.

    Returns:
        ``{run: [claim IRI as text, ...]}`` (claims in no particular order; a run without
        claims is absent), or ``None`` when a claim is a blank node (its label is the
        engine's: the caller reads ``impact.rq``, which keeps blank nodes).
    """
    token = store.state_token() if index else None
    code = _code_key()
    if token is not None and code is not None:
        kept = _from_index(store, agent, token, code, keep=True)
        if kept is not None:
            return kept if run is None else {r: c for r, c in kept.items() if r == run}
    if run is not None:
        return _read(store, agent, run)
    mark = store.ledger_mark()  # before the read: the next call replays from here
    got = _read(store, agent, None)
    if got is not None and token is not None and code is not None and store.state_token() == token:
        _write(store, agent, token, code, mark, got)
    return got


def _read(store: ProvStore, agent: IRI, run: IRI | None) -> Claims | None:
    """The agent's claims per run as ``impact-claims.rq`` gives them (one group per run,
    the claims as one text), or ``None`` for a blank-node claim (``STR`` fails on it and
    leaves the group's text unbound or short of its count) or a graph named by a blank
    node."""
    out: Claims = {}
    for g in _run_query(store, "impact-claims", {"agent": agent, "run": run}):
        text, graph = g["claims"], g["run"]
        claims = str(term_value(text)).split(" ") if text is not None else []
        if text is None or len(claims) != _int(g["count"]) or not isinstance(graph, IRI):
            return None
        out[graph] = claims
    return out


def _write(store: ProvStore, agent: IRI, token: str, code: str, mark: LedgerMark | None,
           claims: Claims) -> None:
    doc = {"v": 1, "code": code, "agent": str(agent), "token": token,
           "mark": None if mark is None else [mark.n, mark.hash, mark.offset],
           "runs": {str(r): c for r, c in claims.items()}}
    store.write_index(_name(agent), json.dumps(doc, separators=(",", ":")).encode())


def _from_index(store: ProvStore, agent: IRI, token: str, code: str, *,
                keep: bool) -> Claims | None:
    """The agent's claims from its index: as kept when ``token`` is the index's, else
    replayed from the ledger lines written since its mark and, with ``keep``, kept for
    ``token`` when no write landed meanwhile; ``None`` when the index cannot tell."""
    data = store.read_index(_name(agent))
    if data is None:
        return None
    try:
        doc = json.loads(data)
        if doc.get("v") != 1 or doc.get("code") != code or doc.get("agent") != str(agent):
            return None
        runs = {IRI(r): [str(c) for c in cs] for r, cs in doc["runs"].items()}
        m = doc["mark"]
        mark = None if m is None else LedgerMark(int(m[0]), str(m[1]), int(m[2]))
        kept_token = str(doc["token"])
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
        return None  # any doubt (also JSON nested too deep to read): read the store
    if kept_token == token:
        return runs
    if mark is None:
        return None
    now = store.ledger_mark()  # before the lines are read: the next call reads on from here
    lines = store.ledger_lines_since(mark)
    if lines is None or now is None:
        return None
    replayed = _replayed(runs, agent, lines)
    if replayed is None:
        return None
    if keep and store.state_token() == token:
        _write(store, agent, token, code, now, replayed)
    return replayed


def _replayed(runs: Claims, agent: IRI, lines: Iterable[LedgerLine]) -> Claims | None:
    """``runs`` with the agent's ``pg:supportAgent`` statements the ``lines`` removed and
    added applied in ledger order (removed before added within a line, as a line records a
    write), or ``None`` at a blank node."""
    sets = {r: set(c) for r, c in runs.items()}
    for line in lines:
        for statements, add in ((line.removed, False), (line.added, True)):
            wanted = [t for t in statements if _MARKER in t]
            if not wanted:
                continue
            text = "".join(t + " .\n" for t in wanted).encode("utf-8")
            try:
                quads = list(iter_rdf(io.BytesIO(text), "nquads"))
            except SerializationError:
                # a statement the store took but N-Quads cannot read back (a blank node
                # labelled with ':', which the engine accepts and its parser refuses)
                return None
            for s, p, o, g in quads:
                if p != PG.supportAgent or o != agent or g is None:
                    continue  # another predicate or agent; the default graph is no run
                if not isinstance(s, IRI) or not isinstance(g, IRI):
                    return None
                if add:
                    sets.setdefault(g, set()).add(str(s))
                elif g in sets:
                    sets[g].discard(str(s))
    return {r: list(c) for r, c in sets.items() if c}


def check_indexes(store: ProvStore, names: Iterable[str]) -> str | None:
    """Whether the impact indexes ``names`` (file names under ``PATH/index/``) that
    :func:`claims_by_run` would answer from (as kept, or brought up to date from the
    ledger) agree with reading the store (``provgraph verify``).

    Returns:
        ``None`` when none is in use or each agrees; else what differs, for a person.
    """
    token, code = store.state_token(), _code_key()
    if token is None or code is None:
        return None
    for name in sorted(names):
        data = store.read_index(name)
        try:
            agent = IRI(json.loads(data or b"{}")["agent"])
        except (ValueError, KeyError, TypeError, RecursionError):
            continue  # not one this code reads: never used
        if _name(agent) != name:
            return (f"the impact index index/{name} names the agent <{agent}>, whose index "
                    "has another name; it was changed outside provgraph. Delete the file")
        kept = _from_index(store, agent, token, code, keep=False)
        if kept is None:
            continue
        live = _read(store, agent, None)
        if live is None or {r: sorted(c) for r, c in kept.items()} != {
                r: sorted(c) for r, c in live.items()}:
            k = sum(map(len, kept.values()))
            n = -1 if live is None else sum(map(len, live.values()))
            return (f"the impact index index/{name} of <{agent}> does not agree with the "
                    f"store ({k} claims kept, {n} read); it was changed outside provgraph, "
                    "or the store was written without its ledger. Delete the file (the "
                    "next impact call writes it anew) and find out who changed it")
    return None
