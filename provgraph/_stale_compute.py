"""Computing ``stale``: the claims whose cited snapshot was revised or invalidated, and
whether each claim's cited span still occurs in the newest revision (the algorithm
:func:`provgraph.staleness.stale` describes; private to provgraph).

:mod:`provgraph.staleness` answers from the stale index (:mod:`provgraph._stale_index`)
when it can and computes here otherwise; the index is brought up to date by computing
the rows of some snapshots only (:func:`_recomputed`), which give the same rows as the
whole store's computation for them.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from . import ids
from ._rows import _Row, _int, _run_query, _run_values, _str, row_builder
from .errors import (OffsetError, OriginalMissingError, ResolutionError, SourceDecodeError,
                     StoreError)
from .matching import cluster_break_problem, search
from .normalize import Policy, get_policy
from .offsets import LOCATOR_UNITS, SourceText
from .schema import citation as citation_schema
from .schema.snapshot import newest_first
from .store import ProvStore
from .terms import IRI, BNode, Term, term_value
from .vocab import PG, PROV
from .xsd import instant


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
            occurs in ``newest``, whitespace-normalized, at any position (see
            :func:`stale`): the claim's evidence text survived the revision. A citation
            of the snapshot stays valid (snapshots are content-addressed); one of the
            *document* by range may now point elsewhere, and ``resolve`` then says
            ``quote_mismatch`` with where the quote moved (issue 12). Always ``False``
            for deleted rows; ``None`` when it cannot be told.
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


class _Renderings:
    """The newest snapshot as text a cited span can be found in: its retained bytes
    decoded as UTF-8 (when they are) and every text extracted from it, compared under
    the ``whitespace`` normalization policy (NFC, runs of whitespace collapsed, nothing
    else), so a paragraph that was only re-wrapped counts as unchanged and any change
    of a character does not. ``span in renderings`` is the test. As for the resolver's
    quote search, an occurrence counts only where it starts and ends between
    user-perceived characters (``"e"`` does not occur in ``"e\u0301"``), and a span of
    whitespace only, which that policy makes empty, is looked for exactly."""

    __slots__ = ("texts", "_raw", "_seen")

    def __init__(self, texts: list[str]) -> None:
        self.texts = [(n, n.isascii()) for n in (_SPAN_POLICY.normalize_quote(t) for t in texts)]
        self._raw = [(t, t.isascii()) for t in texts]
        self._seen: dict[str, bool] = {}  # span -> found: each distinct span is looked for once

    def __contains__(self, span: object) -> bool:
        if not isinstance(span, str):
            return False
        found = self._seen.get(span)
        if found is None:
            needle = _SPAN_POLICY.normalize_quote(span)
            found = self._seen[span] = (any(_occurs(needle, t, a) for t, a in self.texts) if needle
                                        else bool(span) and any(_occurs(span, t, a)
                                                                for t, a in self._raw))
        return found


def _occurs(needle: str, text: str, ascii_text: bool) -> bool:
    """Whether ``needle`` (not empty) occurs in ``text`` without splitting a character
    sequence (:func:`provgraph.matching.cluster_break_problem`; ASCII text has none
    except CR LF, and ``needle`` here neither starts nor ends with whitespace unless it
    is whitespace only)."""
    i = text.find(needle)
    if i < 0 or (ascii_text and needle.strip(" \t\r\n\f\v") == needle):
        return i >= 0
    while i >= 0:
        if not cluster_break_problem(text, i, i + len(needle)):
            return True
        i = text.find(needle, i + 1)
    return False


_SPAN_POLICY = get_policy("whitespace")


def _snapshot_text(store: ProvStore, snapshot: IRI) -> _Renderings | None:
    """The renderings of a snapshot (see :class:`_Renderings`), or ``None`` when it has
    no decodable text at all.

    Raises:
        OriginalCorruptError: the retained bytes no longer match their digest.
    """
    texts: list[str] = []
    digest = ids.digest_of_snapshot_iri(snapshot) or _first(store, snapshot, PG.sha256)
    if digest is not None and (src := _decoded(store.originals.get(str(digest)))) is not None:
        texts.append(src.text)
    for q in sorted(store.quads(None, PROV.wasDerivedFrom, snapshot), key=lambda q: str(q[0])):
        sha = _first(store, q[0], PG.sha256)
        if sha is not None and (text := _digest_text(store, str(sha))) is not None:
            texts.append(text)
    return _Renderings(texts) if texts else None


def _first(store: ProvStore, s: IRI | BNode, p: IRI) -> Any:
    for q in store.quads(s, p):
        return term_value(q[2])
    return None


def _decoded(raw: bytes) -> SourceText | None:
    """A snapshot's retained bytes as the resolver reads them (:meth:`SourceText.from_bytes`:
    UTF-8, a leading byte-order mark not part of the text), or ``None`` when they are
    not UTF-8."""
    try:
        return SourceText.from_bytes(raw)
    except SourceDecodeError:
        return None


def _cited_span(row: Mapping[str, Term | None], text: str, src: SourceText | None, *,
                snapshot: bool = False) -> str | None:
    """The text a citation row of ``citations-of.rq`` points at within its target's
    ``text`` (``src``: the target as the resolver reads it, when built already: a
    snapshot's from its bytes, an extracted text's or a chunk's from ``text``, which
    is the default; ``snapshot``: the target is a snapshot).

    The range when one is given, read by :func:`provgraph.offsets.cited_span` as the
    resolver reads it (a range that names no text, such as one inside a character or
    an empty one, gives ``None``); else the quote when it occurs in the target; else,
    when the citation declares a normalization policy (``pg:policy`` on its selector,
    as the resolver honours it), the passage of the target the resolver's search finds
    for the quote under that policy (a ``normalized_match``: the target's own text, not
    the quote), or the quote when it occurs more than once; else the whole target text. Page and block ranges of a snapshot give ``None``: which
    text they number depends on its media type (a block document's blocks, a paged
    source's extracted text).
    """
    cit = citation_schema.from_row(row)
    if cit.unit is not None:
        if not cit.has_range:
            return None
        if snapshot and cit.unit in LOCATOR_UNITS:
            return None
        if src is None:
            src = SourceText.from_text(text)
        try:
            return cit.cited_text(src)
        except OffsetError:
            return None
    quote = cit.quote
    if quote is None:
        return text
    if quote in text:
        return quote
    policy = _declared_policy(cit.policy)
    if policy is None:
        return text
    if src is None:
        src = SourceText.from_text(text)
    found = search(src, quote, policy=policy)  # as the resolver finds it (issue 16 break test)
    if found.outcome in ("quote_match", "normalized_match") and found.start is not None:
        return src.text[found.start:found.end]
    return quote if found.outcome == "ambiguous" else text


def _declared_policy(name: str | None) -> Policy | None:
    """The normalization policy a citation declares for its quote (``name@version``),
    other than ``exact``; ``None`` when it declares none, ``exact``, or one this
    provgraph does not have (its quote is then looked for exactly, as before)."""
    if not name:
        return None
    try:
        policy = get_policy(name)
    except ResolutionError:
        return None
    return None if policy.name == "exact" else policy



@dataclasses.dataclass
class _Computed:
    """What :func:`stale` computed for the whole store, or for some snapshots: the rows,
    and what the stale index keeps to bring them up to date later (see
    :mod:`provgraph._stale_delta`)."""

    rows: list[StaleRow]
    newest: dict[IRI, tuple[IRI, _dt.datetime | None]]
    deleted_at: dict[IRI, _dt.datetime | None]
    non_true: dict[IRI, list[str]]
    """Per revised snapshot, the entities (IRIs, as text) whose span verdict is not
    ``True``."""


def _compute(store: ProvStore, run_iri: IRI | None) -> list[StaleRow]:
    """:func:`stale` computed from the store (``run_iri`` already checked)."""
    return _computed(store, run_iri).rows


def _computed(store: ProvStore, run_iri: IRI | None, *, all_invalidations: bool = False
              ) -> _Computed:
    """:func:`_compute` with what the index keeps (``deleted_at`` of every invalidated
    snapshot only with ``all_invalidations``, else of those in the rows)."""
    if run_iri is None:
        # The whole store: the revision side (newest revisions and the span verdicts of
        # every revised snapshot) runs in a second thread beside the claim side.
        # pyoxigraph evaluates a query mostly without holding the GIL, so on two idle
        # cores the two overlap (about 0.25 s of 1 s at 100,000 answers, measured for
        # issue 12; on a machine with no idle core, as in issue 16's runs at load 2,
        # the gain is within the noise: with/without 0.91-1.15); the verdicts of a
        # snapshot do not depend on which claims cite it.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="provgraph-stale") as pool:
            side = pool.submit(_revised, store, None)
            per_run, updated = _stale_claims(store, None)
            deleted_at = _deleted_at(store, per_run, every=all_invalidations)
            try:
                newest, verdicts = side.result()
            except StoreError:
                # the worker reads every revised snapshot's newest bytes; only those
                # of 'updated' rows are needed (a missing one of any other is no error)
                newest, verdicts = _revised(store, updated) if updated else ({}, {})
    else:
        per_run, updated = _stale_claims(store, run_iri)
        deleted_at = _deleted_at(store, per_run)
        newest, verdicts = _revised(store, updated) if updated else ({}, {})
    return _Computed(_build_rows(per_run, deleted_at, newest, verdicts), newest, deleted_at,
                     _non_true(verdicts))


def _build_rows(per_run: _StaleClaims, deleted_at: Mapping[IRI, _dt.datetime | None],
                newest: Mapping[IRI, tuple[IRI, _dt.datetime | None]],
                verdicts: Mapping[IRI, Mapping[IRI, bool | None]]) -> list[StaleRow]:
    """The rows of :func:`stale`, sorted by run, claim, snapshot."""
    build = row_builder(StaleRow)
    rows: list[StaleRow] = []
    for run_ in sorted(per_run, key=str):  # sorted by run, claim, snapshot
        claims = per_run[run_]
        claims.sort()  # by the claim as exact str (several times faster than IRI), snapshot
        for text, snap, kind, term in claims:
            claim = IRI(text) if term is None else term
            if kind == "deleted":
                rows.append(build(run_, claim, snap, kind, None, deleted_at.get(snap), False))
            else:
                tip, when = newest.get(snap, (None, None))
                verdict = verdicts.get(snap)
                rows.append(build(run_, claim, snap, kind, tip, when,
                                  None if verdict is None else verdict.get(claim, True)))  # type: ignore[arg-type]
    return rows


def _recomputed(store: ProvStore, snapshots: Collection[IRI], kept: _Computed) -> _Computed:
    """The rows of ``snapshots`` computed anew, with the revisions and invalidations the
    index keeps (``kept``: a write that changes those makes the whole index computed
    anew, :mod:`provgraph._stale_delta`): the same rows :func:`_compute` gives for them,
    since a snapshot's rows rest on its own statements only."""
    per_run: _StaleClaims = {}
    updated: set[IRI] = set()
    for snap in sorted(snapshots, key=str):
        if (snap not in kept.newest and snap not in kept.deleted_at
                and not _has(store, None, PROV.wasRevisionOf, snap)):
            continue  # neither revised nor invalidated: no rows (a snapshot in a revision
            # cycle has a newer revision but no newest one: it is not in kept.newest)
        got, up = _stale_claims(store, None, snap)
        for run_, claims in got.items():
            per_run.setdefault(run_, []).extend(claims)
        updated |= up
    newest = {s: kept.newest[s][0] for s in updated if s in kept.newest}
    verdicts = _span_verdicts(store, newest, len(kept.newest))
    return _Computed(_build_rows(per_run, kept.deleted_at, kept.newest, verdicts), kept.newest,
                     kept.deleted_at, _non_true(verdicts))


def _non_true(verdicts: Mapping[IRI, Mapping[IRI, bool | None]]) -> dict[IRI, list[str]]:
    """Per snapshot with any, the entities (as text) whose verdict is not ``True``."""
    out = {snap: [str(e) for e, v in verdict.items() if v is not True]
           for snap, verdict in verdicts.items()}
    return {snap: es for snap, es in out.items() if es}



_StaleClaims = dict[IRI, list[tuple[str, IRI, str, "IRI | BNode | None"]]]


def _stale_claims(store: ProvStore, run: IRI | None, snapshot: IRI | None = None
                  ) -> tuple[_StaleClaims, set[IRI]]:
    """The rows of ``stale.rq`` (of one ``snapshot``, when given) by run, as ``(claim text, snapshot, kind, claim term or
    None)`` (``None``: the claim is the IRI of its text), and the snapshots of the
    ``updated`` ones. Read grouped (``stale-claims.rq``: a group's run, snapshot and
    kind decoded once), or from ``stale.rq`` itself when a group's list cannot be split
    back into its claims (a blank-node claim, whose STR fails; an IRI with a space,
    which no store holds). Both queries group by run, claim and snapshot, so each is
    listed once, ``"deleted"`` where both kinds hold."""
    out: _StaleClaims = {}
    updated: set[IRI] = set()
    params = {"run": run, "snapshot": snapshot}
    groups = _run_query(store, "stale-claims", params)
    if any(g["claims"] is None or str(term_value(g["claims"])).count(" ") + 1 != _int(g["count"])
           for g in groups):
        for r in _run_query(store, "stale", params):
            # (all bound: a named graph, the subject and object of pg:citedSnapshot)
            run_, snap, kind = cast(IRI, r["run"]), cast(IRI, r["snapshot"]), _str(r["kind"]) or ""
            claim = cast("IRI | BNode", r["claim"])
            out.setdefault(run_, []).append((str(claim), snap, kind, claim))
            if kind == "updated":
                updated.add(snap)
        return out, updated
    for g in groups:
        run_, snap, kind = cast(IRI, g["run"]), cast(IRI, g["snapshot"]), _str(g["kind"]) or ""
        if kind == "updated":
            updated.add(snap)
        out.setdefault(run_, []).extend(
            (c, snap, kind, None) for c in str(term_value(g["claims"])).split(" "))
    return out, updated


def _deleted_at(store: ProvStore, per_run: _StaleClaims, *, every: bool = False
                ) -> dict[IRI, _dt.datetime | None]:
    """When each invalidated snapshot was invalidated (``invalidations.rq``: the earliest
    time recorded for it or its document), if any row of ``per_run`` is ``deleted`` (with
    ``every``: in any case)."""
    deleted_at: dict[IRI, _dt.datetime | None] = {}
    if not every and not any(kind == "deleted" for claims in per_run.values()
                             for _, _, kind, _ in claims):
        return deleted_at
    for r in _run_query(store, "invalidations", {}):
        snap, when = IRI(r["snapshot"]), instant(r["invalidated_at"])
        prev = deleted_at.get(snap)
        deleted_at[snap] = when if prev is None or (when is not None and when < prev) else prev
    return deleted_at


def _revised(store: ProvStore, only: set[IRI] | None) -> tuple[
        dict[IRI, tuple[IRI, _dt.datetime | None]], dict[IRI, dict[IRI, bool | None]]]:
    """The newest revision of every revised snapshot, and the span verdicts of those
    in ``only`` (``None``: of all of them)."""
    newest = _newest_revisions(store)
    snaps = newest if only is None else only & newest.keys()
    return newest, _span_verdicts(store, {s: newest[s][0] for s in snaps}, len(newest))


def _newest_revisions(store: ProvStore) -> dict[IRI, tuple[IRI, _dt.datetime | None]]:
    """For every revised snapshot, the tip of its revision chain (latest observed
    where the chain branches: times compared as instants, :func:`provgraph.xsd.instant`,
    a zone-less one read as UTC) and that tip's observation time (``revisions.rq``)."""
    newer: dict[IRI, list[IRI]] = {}
    observed: dict[IRI, _dt.datetime | None] = {}
    for r in _run_query(store, "revisions", {}):
        old, new = IRI(r["snapshot"]), IRI(r["newer"])
        newer.setdefault(old, []).append(new)
        observed[new] = instant(r["observed_at"])  # an instant: not the string (issue 12)
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
            tip = newest_first(tips, observed)[0]
            out[start] = (tip, observed.get(tip))
    return out


def _span_verdicts(store: ProvStore, newest: Mapping[IRI, IRI], revised: int
                   ) -> dict[IRI, dict[IRI, bool | None]]:
    """Per revised snapshot of ``newest`` (snapshot -> its newest revision; ``revised``
    of them in the store), the claims with at least one span that changed (or could not
    be told); claims not listed rest only on unchanged targets. Each snapshot's verdicts
    depend on its own statements only, so those of a few are those the whole store gives."""
    if not newest:
        return {}
    texts = {tip: _snapshot_text(store, tip) for tip in set(newest.values())}
    changed = _changed_targets(store, newest, texts, _stale_texts(store, newest, revised))
    out: dict[IRI, dict[IRI, bool | None]] = {snap: {} for snap in newest}
    # the citations of every changed target first, then what derives from them (a
    # claim's verdict is the worst of its spans, in any order); each read for all
    # targets at once
    citations = _citations_of(store, [c[1] for c in changed if c[4]])
    for snap, target, text, src, cited, _ in changed:
        if not cited:
            continue
        body, verdict = texts[newest[snap]], out[snap]
        for r in citations.get(target, ()):
            if text is not None and src is None and r["unit"] is not None:
                src = SourceText.from_text(text)  # once per target, for its ranged citations
            span = (_cited_span(r, text, src, snapshot=target == snap) if text is not None
                    else None)
            ok = None if span is None or body is None else span in body
            claim = IRI(r["claim"])
            verdict[claim] = _worse(verdict.get(claim, True), ok)
    derivations = _derived_from(store, [c[1] for c in changed if c[5]])
    for snap, target, text, _, _, derived in changed:
        if not derived:
            continue
        body, verdict = texts[newest[snap]], out[snap]
        for r in derivations.get(target, ()):
            claim = IRI(r["claim"])
            direct = _str(r["via"]) == "derivation"
            found = (text in body) if direct and text is not None and body is not None else None
            verdict[claim] = _worse(verdict.get(claim, True), found)
    # a claim derived from a claim whose span changed rests on that span too: followed
    # step by step, each step's derivations read for all snapshots' claims at once
    dependents: dict[IRI, list[IRI]] = {}  # entity -> the entities derived from it (memo)
    todo = {snap: [c for c, v in verdict.items() if v is not True] for snap, verdict in out.items()}
    while any(todo.values()):
        need = [c for claims in todo.values() for c in claims if c not in dependents]
        if need:
            step = _by_target(_of_targets(store, "derivations", need))
            for c in need:
                dependents[c] = [IRI(r["derived"]) for r in step.get(c, ())]
        for snap, claims in todo.items():
            verdict, later = out[snap], []
            for c in claims:
                for d in dependents[c]:
                    new = _worse(verdict.get(d, True), verdict[c])
                    if new != verdict.get(d, True) or d not in verdict:
                        verdict[d] = new
                        if new is not True:
                            later.append(d)
            todo[snap] = later
    return out


_FEW_SNAPSHOTS = 3
""":func:`_stale_texts` reads snapshot by snapshot when it reads fewer than a third of
the revised snapshots: a query per snapshot costs about 1 ms (planning included), the
whole ``stale-texts.rq`` about 0.4 ms per revised snapshot (100,000 answers, pyoxigraph
0.5.13)."""


def _stale_texts(store: ProvStore, snapshots: Collection[IRI], revised: int
                 ) -> list[dict[str, Term | None]]:
    """The rows of ``stale-texts.rq`` for ``snapshots`` (among ``revised`` revised
    snapshots in the store), and maybe those of other snapshots: the whole query when
    they are many, one query per snapshot (``?snapshot`` bound) when they are few."""
    if len(snapshots) * _FEW_SNAPSHOTS < revised:
        return [r for snap in sorted(snapshots, key=str)
                for r in _run_query(store, "stale-texts", {"snapshot": snap})]
    return _run_query(store, "stale-texts", {})


def _changed_targets(store: ProvStore, newest: Mapping[IRI, IRI],
                     texts: Mapping[IRI, _Renderings | None],
                     rows: list[dict[str, Term | None]],
                     ) -> list[tuple[IRI, IRI, str | None, SourceText | None, bool, bool]]:
    """What of each revised snapshot to look at closer (``rows`` of ``stale-texts.rq``): its
    chunks whose text no longer occurs in the newest revision, and the snapshot
    itself and its extracted texts when cited or derived from and changed; as
    (snapshot, target, the target's text, a snapshot's :class:`SourceText`, cited, derived)."""
    targets: dict[IRI, list[tuple[IRI, str | None, str | None, bool, bool]]] = {}
    derived_snapshots: set[IRI] = set()  # revised snapshots a claim is derived from
    for r in rows:
        snap = IRI(r["snapshot"])
        if snap not in newest:
            continue
        if term_value(r["derived"]) is True:
            derived_snapshots.add(snap)
            continue
        targets.setdefault(snap, []).append((
            IRI(r["target"]), _str(r["text"]), _str(r["sha256"]),
            term_value(r["cited"]) is True, term_value(r["quoted"]) is True))
    changed: list[tuple[IRI, IRI, str | None, SourceText | None, bool, bool]] = []
    for snap, tip in newest.items():
        body = texts[tip]
        for target, text, sha, cited, quoted in targets.get(snap, ()):
            if text is not None:  # a chunk: checked only when its text changed
                if body is None or text not in body:
                    changed.append((snap, target, text, None, True, True))
                continue  # else the whole chunk is unchanged, and so is every span of it
            # the snapshot itself or an extracted text: rarely cited or derived from
            derived = (snap in derived_snapshots if target == snap
                       else quoted and _derived_by_claim(store, target))
            if not (cited or derived):
                continue
            src = None
            if target == snap:
                digest = ids.digest_of_snapshot_iri(snap) or sha
                src = _decoded(store.originals.get(str(digest))) if digest is not None else None
                text = src.text if src is not None else None
            else:
                text = _digest_text(store, sha) if sha is not None else None
            if text is not None and body is not None and text in body:
                continue
            changed.append((snap, target, text, src, cited, derived))
    return changed


def _citations_of(store: ProvStore, targets: Sequence[IRI]) -> dict[IRI, list[dict[str, Term | None]]]:
    """The rows of ``citations-of.rq`` for each of ``targets``: ``stale-citations.rq``
    (the same rows without the range, which only a citation with an offset unit has),
    and ``citations-of.rq`` for the targets one of whose citations has an offset unit."""
    rows = _by_target(_of_targets(store, "stale-citations", targets))
    ranged = [t for t, rs in rows.items() if any(r["unit"] is not None for r in rs)]
    for t in ranged:
        del rows[t]
    for rs in rows.values():
        for r in rs:
            r["start"] = r["end"] = r["end_inclusive"] = None
    rows.update(_by_target(_of_targets(store, "citations-of", ranged)))
    return rows


def _derived_from(store: ProvStore, targets: Sequence[IRI]) -> dict[IRI, list[dict[str, Term | None]]]:
    """The rows of ``derived-from.rq`` for each of ``targets``; run only for the
    targets for which ``stale-dependents.rq`` finds a claim or a cited entity derived
    from the target (every ``derived-from.rq`` row needs one)."""
    some = list(_by_target(_of_targets(store, "stale-dependents", targets)))
    return _by_target(_of_targets(store, "derived-from", some))


def _of_targets(store: ProvStore, name: str, targets: Sequence[IRI]) -> list[dict[str, Term | None]]:
    """Run a bundled query whose one parameter is ``?target`` for all of ``targets``
    at once (:func:`provgraph._rows._run_values`)."""
    return _run_values(store, name, "target", targets)


def _by_target(rows: list[dict[str, Term | None]]) -> dict[IRI, list[dict[str, Term | None]]]:
    out: dict[IRI, list[dict[str, Term | None]]] = {}
    for r in rows:
        out.setdefault(r["target"], []).append(r)  # type: ignore[arg-type]
    return out


def _has(store: ProvStore, s: Any, p: IRI, o: Any) -> bool:
    return next(iter(store.quads(s, p, o)), None) is not None


def _derived_by_claim(store: ProvStore, target: IRI) -> bool:
    """Whether a claim is derived from ``target`` (index lookups: the entities derived
    from it, each checked for ``pg:claimKind``)."""
    return any(_has(store, q[0], PG.claimKind, None)
               for q in store.quads(None, PROV.wasDerivedFrom, target))


def _worse(a: bool | None, b: bool | None) -> bool | None:
    """Combine two span verdicts: any change wins, then any unknown."""
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True
