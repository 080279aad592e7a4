"""Auditor questions as pure functions over the named queries in ``queries/*.rq``.

Each function runs one bundled SPARQL 1.1 query (parameters bound as RDF terms,
never pasted into the text), turns the solutions into typed, frozen rows and
returns them sorted. The queries also run unchanged on a remote SPARQL endpoint;
what SPARQL cannot do (read retained bytes, breadth-first depth) is done here and
said so in each docstring.

==========================  =======================  ==========================
function                    query file               row type
==========================  =======================  ==========================
:func:`lineage`             ``lineage.rq``           :class:`LineageRow`
:func:`stale`               ``stale.rq``             :class:`StaleRow`
:func:`impact`              ``impact.rq``            :class:`ImpactRow`
:func:`generated_evidence`  ``generated-evidence.rq``  :class:`GeneratedEvidenceRow`
:func:`unsupported`         ``unsupported.rq``       :class:`UnsupportedRow`
:func:`coverage`            ``coverage.rq``          :class:`CoverageRow`
:func:`exposure`            ``exposure.rq``          :class:`ExposureRow`
==========================  =======================  ==========================

Every function raises :class:`~provgraph.errors.NotFound` for an IRI argument
(entity or run) that is not in the store, rather than returning no rows, and
:class:`~provgraph.errors.QueryParameterError` for a value that is not an
absolute IRI.

Example:
    >>> from provgraph import EmbeddedStore, Recorder
    >>> store = EmbeddedStore()
    >>> rec = Recorder(store, packages=[])
    >>> snap = rec.snapshot(b"Water boils at 100 C.", uri="file:///f.txt", media_type="text/plain")
    >>> [r.kind for r in lineage(store, snap.iri)]
    ['SourceSnapshot', 'Document', 'Observation']
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections import deque
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, ClassVar

from . import ids
from .errors import AgentNotFound, NotFound, OriginalMissingError
from .queries import Param, QueryCatalog, bind_value
from .store import ProvStore
from .terms import IRI, Literal, Term, term_value
from .vocab import OUTCOMES, PG, PROV, RDF

__all__ = [
    "LineageRow", "StaleRow", "ImpactRow", "GeneratedEvidenceRow", "UnsupportedRow",
    "CoverageRow", "ExposureRow", "lineage", "stale", "impact", "generated_evidence",
    "unsupported", "coverage", "exposure", "SUCCESS_OUTCOMES", "PREFIXES",
]

SUCCESS_OUTCOMES = ("quote_match", "normalized_match")
"""Resolver outcomes that keep a citation eligible evidence; every other outcome is a failure."""

PREFIXES = {
    "prov": "http://www.w3.org/ns/prov#",
    "pg": "https://w3id.org/provgraph/ns#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "oa": "http://www.w3.org/ns/oa#",
}
"""Prefixes used to shorten relation names in rows (``prov:wasDerivedFrom``)."""


@lru_cache(maxsize=1)
def _catalog() -> QueryCatalog:
    return QueryCatalog()


def _run_query(store: ProvStore, name: str, params: Mapping[str, Any]) -> list[dict[str, Term | None]]:
    return _catalog().run(store, name, params)


def curie(iri: str) -> str:
    """``iri`` shortened with :data:`PREFIXES` (``prov:used``), or unchanged."""
    for prefix, base in PREFIXES.items():
        if iri.startswith(base):
            return f"{prefix}:{iri[len(base):]}"
    return iri


class _Row:
    """Shared behaviour of the row types: column names and a JSON-friendly dict."""

    __slots__ = ()

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        """The field names, in order (the CSV/table columns)."""
        return tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        """The row as a dict of JSON values: IRIs as text, times as ISO 8601 strings."""
        out: dict[str, Any] = {}
        for name in self.columns():
            v = getattr(self, name)
            if isinstance(v, _dt.datetime):
                v = v.isoformat()
            elif isinstance(v, str):
                v = str(v)
            out[name] = v
        return out


def _iri(t: Term | None) -> IRI | None:
    return None if t is None else IRI(t)


def _str(t: Term | None) -> str | None:
    return None if t is None else str(t.value if isinstance(t, Literal) else t)


def _int(t: Term | None) -> int:
    return 0 if t is None else int(t.value if isinstance(t, Literal) else t)


def _time(t: Term | None) -> _dt.datetime | None:
    v = term_value(t)
    return v if isinstance(v, _dt.datetime) else None


_MIN = _dt.datetime.min.replace(tzinfo=_dt.timezone.utc)


def _check_iri(name: str, value: str) -> IRI:
    return IRI(bind_value(name, Param(name, "iri"), value))  # raises QueryParameterError


def _check_run(store: ProvStore, run: str | None) -> IRI | None:
    if run is None:
        return None
    iri = _check_iri("run", run)
    if not store.has_subject(iri):
        raise NotFound(iri, "run")
    return iri


# --------------------------------------------------------------------- lineage

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LineageRow(_Row):
    """One node upstream of the entity asked about.

    Attributes:
        node: the node's IRI (or blank node label).
        depth: edges from the entity on a shortest path (the entity itself is 0).
        kind: its most specific ``pg:`` class (``Claim``, ``Chunk``, ``Parser`` ...),
            else ``Entity``, ``Activity`` or ``Agent`` from the relation that reached it.
        relation: the relation from ``parent`` to this node, as a CURIE
            (``prov:wasDerivedFrom``); ``None`` for the entity itself.
        parent: the node it was first reached from (breadth first, ties broken by
            relation then IRI); ``None`` for the entity itself.
        label: a short description: agent name and version, snapshot sha-256 and
            observation time, document URI, chunk or claim code point range, claim
            kind and status, citation target id and outcome, or the associated
            agents of an activity.
    """

    node: IRI
    depth: int
    kind: str
    relation: str | None
    parent: IRI | None
    label: str


_ACTIVITY_RELATIONS = {PROV.wasGeneratedBy, PROV.wasInformedBy, PROV.wasStartedBy,
                       PROV.wasEndedBy, PROV.hadActivity}
_AGENT_RELATIONS = {PROV.wasAssociatedWith, PROV.wasAttributedTo, PROV.actedOnBehalfOf}
_GENERIC_KINDS = {"GeneratedAid"}


def lineage_subgraph(store: ProvStore, entity: str) -> tuple[
        dict[IRI, list[tuple[IRI, IRI]]], dict[IRI, set[str]], dict[IRI, dict[IRI, str]]]:
    """The upstream subgraph of ``entity`` as returned by ``lineage.rq``.

    Returns:
        ``(edges, types, attributes)``: ``edges[node]`` lists ``(relation, upstream)``
        pairs, ``types[node]`` the local names of its ``pg:`` classes,
        ``attributes[node]`` its label properties (relation IRI -> lexical form).

    Raises:
        QueryParameterError: ``entity`` is not an absolute IRI.
        NotFound: ``entity`` is not mentioned in the store.
    """
    iri = _check_iri("entity", entity)
    if not store.mentions(iri):
        raise NotFound(iri, "entity")
    edges: dict[IRI, list[tuple[IRI, IRI]]] = {}
    types: dict[IRI, set[str]] = {}
    attrs: dict[IRI, dict[IRI, str]] = {}
    for row in _run_query(store, "lineage", {"entity": iri}):
        node, rel, value = IRI(row["node"]), IRI(row["relation"]), row["value"]  # type: ignore[arg-type]
        if rel == RDF.type:
            types.setdefault(node, set()).add(str(value)[len(PREFIXES["pg"]):])
        elif isinstance(value, Literal):
            attrs.setdefault(node, {})[rel] = value.value
        else:
            edges.setdefault(node, []).append((rel, IRI(value)))  # type: ignore[arg-type]
    for lst in edges.values():
        lst.sort()
    return edges, types, attrs


def _kind(types: set[str], via: IRI | None) -> str:
    specific = sorted(types - _GENERIC_KINDS) or sorted(types)
    if specific:
        return specific[0]
    if via in _ACTIVITY_RELATIONS:
        return "Activity"
    if via in _AGENT_RELATIONS:
        return "Agent"
    return "Entity"


def _label(node: IRI, kind: str, attrs: Mapping[IRI, str], agent_labels: list[str]) -> str:
    a = attrs
    if PG.agentName in a:
        return f"{a[PG.agentName]} {a.get(PG.agentVersion, '')}".strip()
    parts: list[str] = []
    if kind == "SourceSnapshot" or (PG.sha256 in a and PG.observedAt in a):
        parts.append(f"sha256:{a.get(PG.sha256, '?')}")
        if PG.observedAt in a:
            parts.append(f"observed {a[PG.observedAt]}")
    elif PG.sha256 in a:
        parts.append(f"sha256:{a[PG.sha256]}")
    if PG.sourceUri in a and kind != "SourceSnapshot":
        parts.append(a[PG.sourceUri])
    if PG.start in a and PG.end in a and kind in ("Chunk", "Claim"):
        parts.append(f"code points [{a[PG.start]}, {a[PG.end]})")
    if PG.claimKind in a:
        parts.append(f"{a[PG.claimKind]} ({a.get(PG.claimStatus, '')})")
    if PG.targetId in a:
        parts.append(f"target {a[PG.targetId]}")
    if PG.outcome in a:
        parts.append(f"outcome {a[PG.outcome]}")
    if agent_labels:
        parts.append("by " + ", ".join(agent_labels))
    return " ".join(parts)


def lineage(store: ProvStore, entity: str, *, max_depth: int | None = None) -> list[LineageRow]:
    """Everything upstream of ``entity``, each node with its depth (``lineage.rq``).

    Upstream means reachable by PROV relations, which point from effect to cause:
    citations, cited targets, chunks, extracted texts, snapshots, documents,
    older revisions, aids, queries, the answer, activities (extraction, chunking,
    retrieval, packing, generation) and their agents. The query returns the
    subgraph's edges; the depth of each node (edge count of a shortest path, the
    entity itself at 0) is computed here, breadth first, because SPARQL 1.1
    property paths do not count steps.

    Args:
        store: the store to read.
        entity: IRI of a claim, citation, answer, chunk or any recorded node.
        max_depth: keep nodes at most this many edges away; ``None`` keeps all.

    Returns:
        ``list[LineageRow]`` sorted by depth, then kind, then IRI; the first row is
        the entity itself (depth 0).

    Raises:
        QueryParameterError: ``entity`` is not an absolute IRI.
        NotFound: ``entity`` is not in the store.

    Example:
        >>> import datetime
        >>> from provgraph import EmbeddedStore, Recorder
        >>> store = EmbeddedStore()
        >>> rec = Recorder(store, packages=[])
        >>> t = datetime.datetime(2026, 1, 5, 8, 0, tzinfo=datetime.timezone.utc)
        >>> snap = rec.snapshot(b"abc", uri="file:///a.txt", media_type="text/plain", observed_at=t)
        >>> ext = rec.extraction(snap, parser=("plain", "1"), text="abc")
        >>> for row in lineage(store, ext.text_iri, max_depth=1):
        ...     print(row.depth, row.kind, row.relation, row.label[:40])
        0 ExtractedText None sha256:ba7816bf8f01cfea414140de5dae2223b
        1 Extraction prov:wasGeneratedBy by plain 1
        1 SourceSnapshot prov:wasDerivedFrom sha256:ba7816bf8f01cfea414140de5dae2223b
    """
    edges, types, attrs = lineage_subgraph(store, entity)
    root = IRI(entity)
    found: dict[IRI, tuple[int, IRI | None, IRI | None]] = {root: (0, None, None)}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        depth = found[node][0]
        if max_depth is not None and depth >= max_depth:
            continue
        for rel, up in edges.get(node, ()):
            if up not in found:
                found[up] = (depth + 1, node, rel)
                queue.append(up)
    rows = []
    for node, (depth, parent, rel) in found.items():
        kind = _kind(types.get(node, set()), rel)
        agents = [f"{attrs.get(a, {}).get(PG.agentName, '')} {attrs.get(a, {}).get(PG.agentVersion, '')}".strip()
                  for r, a in edges.get(node, ()) if r == PROV.wasAssociatedWith]
        rows.append(LineageRow(node=node, depth=depth, kind=kind,
                               relation=curie(rel) if rel is not None else None, parent=parent,
                               label=_label(node, kind, attrs.get(node, {}), sorted(agents))))
    rows.sort(key=lambda r: (r.depth, r.kind, r.node))
    return rows


# --------------------------------------------------------------------- stale

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class StaleRow(_Row):
    """A claim whose cited snapshot changed or went away.

    Attributes:
        run: the run (named graph) the claim was recorded in.
        claim: the claim.
        snapshot: the cited snapshot (reached through a citation's target or a
            derivation operand: the ``pg:citedSnapshot`` shortcut).
        kind: ``"updated"`` (a newer revision exists) or ``"deleted"`` (the
            snapshot or its document was invalidated; this wins over updated).
        newest: the newest revision: the last snapshot of the
            ``prov:wasRevisionOf`` chain, the latest observed one where it branches;
            ``None`` for deleted rows.
        changed_at: when the newest revision was observed, or when the snapshot or
            its document was invalidated (timezone-aware), if recorded.
        span_unchanged: whether every span of ``snapshot`` the claim rests on still
            occurs, character for character, in ``newest`` (see :func:`stale`);
            always ``False`` for deleted rows; ``None`` when it cannot be told.
    """

    run: IRI
    claim: IRI
    snapshot: IRI
    kind: str
    newest: IRI | None
    changed_at: _dt.datetime | None
    span_unchanged: bool | None


def _digest_text(store: ProvStore, digest: str) -> str | None:
    try:
        return store.originals.get(digest).decode("utf-8")
    except (UnicodeDecodeError, OriginalMissingError):
        return None


def _snapshot_text(store: ProvStore, snapshot: IRI) -> str | None:
    """A snapshot's text: its retained bytes as UTF-8, else the text extracted from
    it (retained under the ExtractedText's pg:sha256), else ``None``.

    Raises:
        OriginalCorruptError: the retained bytes no longer match their digest.
    """
    digest = ids.digest_of_snapshot_iri(snapshot) or _first(store, snapshot, PG.sha256)
    if digest is not None:
        try:
            return store.originals.get(str(digest)).decode("utf-8")
        except UnicodeDecodeError:
            pass
    for q in store.quads(None, PROV.wasDerivedFrom, snapshot):
        sha = _first(store, q[0], PG.sha256)  # type: ignore[arg-type]
        if sha is not None and (text := _digest_text(store, str(sha))) is not None:
            return text
    return None


def _first(store: ProvStore, s: IRI, p: IRI) -> Any:
    for q in store.quads(s, p):
        return term_value(q[2])
    return None


def _cited_span(row: Mapping[str, Term | None], text: str, raw: bytes | None) -> str | None:
    """The text a citation row of ``citations-of.rq`` points at within its target's
    ``text`` (``raw``: the target's bytes, for utf8_byte ranges of a snapshot).

    The range when one is given (code points, UTF-8 bytes or UTF-16 units; an
    offset inside a character gives ``None``), else the quote when it occurs in the
    target, else the whole target text. Page and block ranges give ``None``.
    """
    unit = _str(row["unit"])
    if unit is not None:
        if row["start"] is None or row["end"] is None:
            return None
        start = _int(row["start"])
        end = _int(row["end"]) + (1 if term_value(row["end_inclusive"]) is True else 0)
        try:
            if unit == "codepoint":
                return text[start:end]
            if unit == "utf8_byte":
                return (raw if raw is not None else text.encode("utf-8"))[start:end].decode("utf-8")
            if unit == "utf16_unit":
                return text.encode("utf-16-le")[2 * start:2 * end].decode("utf-16-le")
        except UnicodeDecodeError:
            return None
        return None
    quote = _str(row["quote"])
    if quote is not None and quote in text:
        return quote
    return text


def stale(store: ProvStore, *, run: str | None = None) -> list[StaleRow]:
    """Claims whose cited snapshot has a newer revision or was invalidated (``stale.rq``).

    ``stale.rq`` starts from the revision and invalidation statements and follows
    the ``pg:citedSnapshot`` shortcut back to the claims, one index scan per
    snapshot. Whether a claim's cited span is still present, unchanged, in the
    newest snapshot needs the retained bytes, which SPARQL cannot read, so it is
    decided here, per revised snapshot rather than per claim:

    1. the newest revision (``revisions.rq``) is read from ``store.originals`` and
       decoded as UTF-8 (for non-UTF-8 sources, the text extracted from it is used);
    2. each extracted text and chunk of the old snapshot (``stale-texts.rq``)
       whose whole text still occurs verbatim in it is unchanged, and so is every
       span of it: claims resting only on such targets get ``True``;
    3. for the old snapshot itself and each target that changed, the claims resting
       on it (``citations-of.rq``) are checked span by span: the citation's range
       (code points, UTF-8 bytes or UTF-16 units), else its quote if the target
       contains it, else the whole target text must occur verbatim (no
       normalization). A derivation from a changed target counts as changed; a
       citation of a generator input or indexed text derived from it cannot be
       mapped back and gives ``None``.

    A claim's ``span_unchanged`` is ``False`` if any of its spans in the snapshot
    changed, else ``None`` if any could not be told, else ``True``.

    Args:
        store: the store to read.
        run: restrict to claims recorded in this run; ``None`` means all runs.

    Returns:
        ``list[StaleRow]`` sorted by run, claim, snapshot.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
        OriginalMissingError, OriginalCorruptError: the newest snapshot's retained
            bytes are missing or altered.
    """
    run_iri = _check_run(store, run)
    found: dict[tuple[IRI, IRI, IRI], dict[str, Any]] = {}
    for r in _run_query(store, "stale", {"run": run_iri}):
        key = (IRI(r["run"]), IRI(r["claim"]), IRI(r["snapshot"]))  # type: ignore[arg-type]
        kind = _str(r["kind"]) or ""
        if key in found and found[key]["kind"] == "deleted":
            continue
        found[key] = {"kind": kind, "changed_at": _time(r["changed_at"])}
    updated = {k[2] for k, v in found.items() if v["kind"] == "updated"}
    newest = _newest_revisions(store) if updated else {}
    verdicts = _span_verdicts(store, {s: newest[s][0] for s in updated if s in newest})
    rows = []
    for (run_, claim, snap), v in found.items():
        if v["kind"] == "deleted":
            rows.append(StaleRow(run=run_, claim=claim, snapshot=snap, kind="deleted", newest=None,
                                 changed_at=v["changed_at"], span_unchanged=False))
            continue
        tip, when = newest.get(snap, (None, None))
        rows.append(StaleRow(run=run_, claim=claim, snapshot=snap, kind="updated", newest=tip,
                             changed_at=when, span_unchanged=verdicts.get(snap, {}).get(claim, True)
                             if snap in verdicts else None))
    return sorted(rows, key=lambda x: (x.run, x.claim, x.snapshot))


def _newest_revisions(store: ProvStore) -> dict[IRI, tuple[IRI, _dt.datetime | None]]:
    """For every revised snapshot, the tip of its revision chain (latest observed
    where the chain branches) and that tip's observation time (``revisions.rq``)."""
    newer: dict[IRI, list[IRI]] = {}
    observed: dict[IRI, _dt.datetime | None] = {}
    for r in _run_query(store, "revisions", {}):
        old, new = IRI(r["snapshot"]), IRI(r["newer"])  # type: ignore[arg-type]
        newer.setdefault(old, []).append(new)
        observed[new] = _time(r["observed_at"])
    out: dict[IRI, tuple[IRI, _dt.datetime | None]] = {}
    for start in newer:
        tips, seen, todo = [], {start}, list(newer[start])
        while todo:
            n = todo.pop()
            if n in seen:
                continue  # a revision cycle: malformed provenance, not followed twice
            seen.add(n)
            if n in newer:
                todo.extend(newer[n])
            else:
                tips.append(n)
        if tips:
            tip = max(tips, key=lambda t: (observed.get(t) or _MIN, t))
            out[start] = (tip, observed.get(tip))
    return out


def _span_verdicts(store: ProvStore, newest: Mapping[IRI, IRI]) -> dict[IRI, dict[IRI, bool | None]]:
    """Per revised snapshot, the claims with at least one span that changed (or could
    not be told); claims not listed rest only on unchanged targets."""
    if not newest:
        return {}
    texts = {tip: _snapshot_text(store, tip) for tip in set(newest.values())}
    targets: dict[IRI, list[tuple[IRI, str | None, str | None]]] = {}
    for r in _run_query(store, "stale-texts", {}):
        snap = IRI(r["snapshot"])  # type: ignore[arg-type]
        if snap in newest:
            targets.setdefault(snap, []).append((IRI(r["target"]), _str(r["text"]),  # type: ignore[arg-type]
                                                 _str(r["sha256"])))
    out: dict[IRI, dict[IRI, bool | None]] = {}
    for snap, tip in newest.items():
        body = texts[tip]
        verdict: dict[IRI, bool | None] = {}
        out[snap] = verdict
        digest = ids.digest_of_snapshot_iri(snap)
        raw = store.originals.get(digest) if digest is not None and digest in store.originals else None
        try:
            old_text = raw.decode("utf-8") if raw is not None else None
        except UnicodeDecodeError:
            old_text = None
        checks: list[tuple[IRI, str | None, bytes | None]] = [(snap, old_text, raw)]
        for target, text, sha in targets.get(snap, ()):
            if text is None and sha is not None:
                text = _digest_text(store, sha)
            if text is not None and body is not None and text in body:
                continue  # the whole target is unchanged, so is every span of it
            checks.append((target, text, None))
        for target, text, tbytes in checks:
            for r in _run_query(store, "citations-of", {"target": target}):
                claim = IRI(r["claim"])  # type: ignore[arg-type]
                via = _str(r["via"])
                if via == "derivation":
                    ok: bool | None = None if (text is None or body is None) else text in body
                elif via == "citation" and text is not None and body is not None:
                    span = _cited_span(r, text, tbytes)
                    ok = None if span is None else span in body
                else:
                    ok = None
                verdict[claim] = _worse(verdict.get(claim, True), ok)
        # a claim derived from a claim whose span changed rests on that span too
        todo = [c for c, v in verdict.items() if v is not True]
        while todo:
            c = todo.pop()
            for q in store.quads(None, PROV.wasDerivedFrom, c):
                d = IRI(q[0])
                new = _worse(verdict.get(d, True), verdict[c])
                if new != verdict.get(d, True) or d not in verdict:
                    verdict[d] = new
                    if new is not True:
                        todo.append(d)
    return out


def _worse(a: bool | None, b: bool | None) -> bool | None:
    """Combine two span verdicts: any change wins, then any unknown."""
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


# --------------------------------------------------------------------- impact

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ImpactRow(_Row):
    """A claim whose support passed through an activity of the agent asked about.

    Attributes:
        run: the claim's run.
        claim: the claim.
        agent: the matching agent's IRI (one per name, version and role).
        agent_name: its ``pg:agentName``.
        agent_version: its ``pg:agentVersion`` (``""`` when unknown).
    """

    run: IRI
    claim: IRI
    agent: IRI
    agent_name: str
    agent_version: str


def impact(store: ProvStore, agent_name: str, *, version: str | None = None,
           run: str | None = None) -> list[ImpactRow]:
    """Claims whose support went through an activity associated with an agent (``impact.rq``).

    Use it after a parser, chunker, embedder, retriever, model or prompt-template
    change: the rows are the claims to re-check. The query starts from the agent
    and follows the ``pg:supportAgent`` shortcut the recorder writes for each
    claim (every agent of every activity in the claim's support: its generation,
    the generator input's sources, the informing retrieval and its aids, cited
    targets and derivation operands, down to extraction and chunking).

    Args:
        store: the store to read.
        agent_name: the agent's ``pg:agentName``, e.g. ``"docutils"``.
        version: its ``pg:agentVersion``; ``None`` matches every version.
        run: restrict to one run; ``None`` means all runs.

    Returns:
        ``list[ImpactRow]`` sorted by run, claim, agent version.

    Raises:
        AgentNotFound: no agent has that name (or that name and version); the
            message lists the versions that exist.
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = _check_run(store, run)
    _check_agent(store, agent_name, version)
    rows = _run_query(store, "impact", {"agent_name": agent_name, "agent_version": version,
                                        "run": run_iri})
    out = [ImpactRow(run=IRI(r["run"]), claim=IRI(r["claim"]), agent=IRI(r["agent"]),  # type: ignore[arg-type]
                     agent_name=_str(r["agent_name"]) or "", agent_version=_str(r["agent_version"]) or "")
           for r in rows]
    return sorted(out, key=lambda x: (x.run, x.claim, x.agent_version, x.agent))


def _check_agent(store: ProvStore, name: str, version: str | None) -> None:
    versions = set()
    for q in store.quads(None, PG.agentName, Literal(str(name))):
        for v in store.quads(q[0], PG.agentVersion):
            versions.add(str(v[2].value))  # type: ignore[union-attr]
    if not versions or (version is not None and version not in versions):
        raise AgentNotFound(name, version, sorted(versions))


# --------------------------------------------------------------------- generated evidence

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GeneratedEvidenceRow(_Row):
    """A citation or quotation whose evidence is generated text.

    Attributes:
        run: the claim's run.
        claim: the claim.
        citation: the citation; ``None`` for a ``generated_quotation``.
        target: what was cited or quoted.
        basis: ``generated_target`` (the target is an aid), ``generated_range``
            (the cited part of a prompt or indexed text is a generated segment) or
            ``generated_quotation`` (``prov:wasQuotedFrom`` an aid).
        aid: the generated aid behind it, when known.
        aid_type: ``HypotheticalDocument``, ``ContextualPrefix`` or ``GeneratedQuestion``.
        segment: the generated segment node, for ``generated_range``.
    """

    run: IRI
    claim: IRI
    citation: IRI | None
    target: IRI
    basis: str
    aid: IRI | None
    aid_type: str | None
    segment: IRI | None


def generated_evidence(store: ProvStore, *, run: str | None = None) -> list[GeneratedEvidenceRow]:
    """Citations or quotations whose target or quoted text is generated (``generated-evidence.rq``).

    Covers citations of aids (hypothetical documents, contextual prefixes,
    generated questions), citations of a generator input or indexed text whose
    cited range (code points), quote or whole text falls on a segment marked
    ``generated``, and ``prov:wasQuotedFrom`` an aid (binary or qualified form).

    Args:
        store: the store to read.
        run: restrict to one run; ``None`` means all runs.

    Returns:
        ``list[GeneratedEvidenceRow]`` sorted by run, claim, citation, basis.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = _check_run(store, run)
    out = [GeneratedEvidenceRow(
        run=IRI(r["run"]), claim=IRI(r["claim"]), citation=_iri(r["citation"]),  # type: ignore[arg-type]
        target=IRI(r["target"]), basis=_str(r["basis"]) or "", aid=_iri(r["aid"]),  # type: ignore[arg-type]
        aid_type=_local(r["aid_type"]), segment=_iri(r["segment"]))
        for r in _run_query(store, "generated-evidence", {"run": run_iri})]
    return sorted(out, key=lambda x: (x.run, x.claim, x.citation or "", x.basis, x.segment or ""))


def _local(t: Term | None) -> str | None:
    return None if t is None else str(t).rsplit("#", 1)[-1]


# --------------------------------------------------------------------- unsupported

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class UnsupportedRow(_Row):
    """A material claim without eligible evidence.

    Attributes:
        run: the claim's run.
        claim: the claim.
        kind: ``quotation``, ``paraphrase`` or ``derivation``.
        status: ``supported``, ``partially_supported`` or ``unsupported`` (as recorded).
        citations: how many citations the claim has (0 for an uncited claim).
        reason: ``uncited`` or ``no_eligible_citation``.
    """

    run: IRI
    claim: IRI
    kind: str
    status: str
    citations: int
    reason: str


def unsupported(store: ProvStore, *, run: str | None = None) -> list[UnsupportedRow]:
    """Claims with no eligible evidence that are not abstentions or uncertain (``unsupported.rq``).

    Eligible evidence: a citation of an original (snapshot, extracted text or
    chunk) whose resolver outcome, if any, is one of :data:`SUCCESS_OUTCOMES`;
    a verified quotation (``prov:wasQuotedFrom`` an original); or, for a
    derivation claim, its operands. Generated targets never count. Claims
    without any citation are listed (reason ``uncited``), not skipped.

    Args:
        store: the store to read.
        run: restrict to one run; ``None`` means all runs.

    Returns:
        ``list[UnsupportedRow]`` sorted by run and claim.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = _check_run(store, run)
    out = [UnsupportedRow(run=IRI(r["run"]), claim=IRI(r["claim"]), kind=_str(r["kind"]) or "",  # type: ignore[arg-type]
                          status=_str(r["status"]) or "", citations=_int(r["citations"]),
                          reason=_str(r["reason"]) or "")
           for r in _run_query(store, "unsupported", {"run": run_iri})]
    return sorted(out, key=lambda x: (x.run, x.claim))


# --------------------------------------------------------------------- coverage

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class CoverageRow(_Row):
    """One measure of one run, with its denominator stated.

    Attributes:
        run: the run.
        measure: ``claims``, ``cited_claims``, ``quoting_claims``,
            ``verified_quotations``, ``citations``, ``unresolved`` or a resolver
            outcome (``quote_match`` ... ``orphaned``).
        count: the numerator.
        denominator: the count it is out of.
        of: what the denominator counts (``claims``, ``quoting_claims`` or ``citations``).
        share: ``count / denominator`` as a float, ``None`` when the denominator is 0.
    """

    run: IRI
    measure: str
    count: int
    denominator: int
    of: str
    share: float | None


COVERAGE_MEASURES: tuple[tuple[str, str], ...] = (
    ("claims", "claims"), ("cited_claims", "claims"), ("quoting_claims", "claims"),
    ("verified_quotations", "quoting_claims"), ("citations", "citations"),
    ("unresolved", "citations"),
) + tuple((o, "citations") for o in OUTCOMES)
"""Coverage measures in output order, each with the measure that is its denominator."""


def coverage(store: ProvStore, *, run: str | None = None) -> list[CoverageRow]:
    """Per run: claims, cited claims, verified quotations and citations by outcome (``coverage.rq``).

    Each measure is a row with its denominator: ``cited_claims`` and
    ``quoting_claims`` out of all ``claims`` (abstentions included);
    ``verified_quotations`` (claims with ``prov:wasQuotedFrom``, which the
    resolver writes only for ``quote_match``/``normalized_match``) out of
    ``quoting_claims`` (quotation claims and claims with a quoted citation);
    ``unresolved`` (no ``pg:outcome`` yet) and every outcome of
    :data:`provgraph.vocab.OUTCOMES` out of ``citations``.

    Args:
        store: the store to read.
        run: restrict to one run; ``None`` means every run (a run without claims
            gives zeros).

    Returns:
        ``list[CoverageRow]``, by run, then in :data:`COVERAGE_MEASURES` order.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = _check_run(store, run)
    out: list[CoverageRow] = []
    for r in sorted(_run_query(store, "coverage", {"run": run_iri}), key=lambda x: str(x["run"])):
        counts = {k: _int(v) for k, v in r.items() if k != "run"}
        for measure, of in COVERAGE_MEASURES:
            n, d = counts[measure], counts[of]
            out.append(CoverageRow(run=IRI(r["run"]), measure=measure, count=n, denominator=d,  # type: ignore[arg-type]
                                   of=of, share=(n / d) if d else None))
    return out


# --------------------------------------------------------------------- exposure

@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ExposureRow(_Row):
    """A generated aid that was in a generator's input.

    Attributes:
        run: the run.
        generation: the generation activity.
        answer: the answer it generated.
        generator_input: the prompt (``pg:GeneratorInput``).
        aid: the generated aid.
        aid_type: ``HypotheticalDocument``, ``ContextualPrefix`` or ``GeneratedQuestion``.
        label: how the packing labelled its range: ``generated`` (correct),
            ``original``, ``instruction`` or ``query`` (mislabelled), or
            ``unlabelled`` (its text is in the prompt but no segment names it).
        start: first code point of the range in the prompt text.
        end: end code point (exclusive).
    """

    run: IRI
    generation: IRI
    answer: IRI | None
    generator_input: IRI
    aid: IRI
    aid_type: str | None
    label: str
    start: int
    end: int


def exposure(store: ProvStore, *, run: str | None = None) -> list[ExposureRow]:
    """For each generation, the generated aids in its input and their labels (``exposure.rq``).

    Args:
        store: the store to read.
        run: restrict to one run; ``None`` means all runs.

    Returns:
        ``list[ExposureRow]`` sorted by run, generation, start, aid.

    Raises:
        QueryParameterError: ``run`` is not an absolute IRI.
        NotFound: ``run`` is not in the store.
    """
    run_iri = _check_run(store, run)
    out = [ExposureRow(run=IRI(r["run"]), generation=IRI(r["generation"]),  # type: ignore[arg-type]
                       answer=_iri(r["answer"]), generator_input=IRI(r["generator_input"]),  # type: ignore[arg-type]
                       aid=IRI(r["aid"]), aid_type=_local(r["aid_type"]),  # type: ignore[arg-type]
                       label=_str(r["label"]) or "", start=_int(r["start"]), end=_int(r["end"]))
           for r in _run_query(store, "exposure", {"run": run_iri})]
    return sorted(out, key=lambda x: (x.run, x.generation, x.start, x.aid))


def rows_as_dicts(rows: Iterable[_Row]) -> list[dict[str, Any]]:
    """``[row.to_dict() for row in rows]``: JSON-friendly rows, as the CLI prints them."""
    return [r.to_dict() for r in rows]
