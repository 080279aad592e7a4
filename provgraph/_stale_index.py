"""The stale index: ``stale``'s rows for the whole store kept beside it, read back while
they hold and brought up to date through the ledger after writes (issue 16; private to
provgraph: :func:`provgraph.staleness.stale` describes when it is used).

It keeps, in ``PATH/index/stale-v2.json``: the store's state token and ledger mark the
rows were computed at, the digest of the code that computed them, every retained original
the computation read, the rows (as columns), the revisions and invalidations, and the
entities whose span verdicts are not ``True``. :mod:`provgraph._stale_delta` says which
snapshots the ledger lines written since touch; :mod:`provgraph._stale_compute` computes.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as _dt
import functools
import json
from collections.abc import Mapping
from typing import Any, cast

from . import _stale_compute as compute
from . import _stale_delta
from ._rows import code_key, row_builder
from ._stale_compute import StaleRow, _Computed
from .errors import OriginalMissingError, StoreError
from .ledger import LedgerMark
from .store import ProvStore
from .terms import IRI


def _compute_and_keep(store: ProvStore, token: str) -> list[StaleRow]:
    """The whole store's rows computed, and kept as the index of ``token`` when no write
    landed meanwhile."""
    mark = store.ledger_mark()
    log = _ReadLog(store.originals)
    got = compute._computed(cast(ProvStore, _LoggedStore(store, log)), None, all_invalidations=True)
    if store.state_token() == token:  # nothing written while it computed
        _write_index(store, token, mark, got, log.read)
    return got.rows


_INDEX_NAME = "stale-v2.json"
"""The stale index's name among the store's derived indexes (:meth:`ProvStore.read_index`)."""
INDEX_FILE = "index/" + _INDEX_NAME
"""Where an embedded store keeps the stale index, relative to its directory."""

_INDEX_INPUTS = ("staleness.py", "_stale_compute.py", "_stale_index.py", "_stale_delta.py",
                 "matching.py", "normalize.py", "offsets.py", "xsd.py", "_rows.py",
                 "schema/citation.py", "schema/snapshot.py")
"""The modules whose code decides a stale row (their bytes are part of the index's key)."""
_INDEX_QUERIES = ("stale", "stale-claims", "revisions", "invalidations", "stale-texts",
                  "stale-citations", "citations-of", "stale-dependents", "derived-from",
                  "derivations")
"""The bundled queries :func:`stale` runs (their text is part of the index's key)."""


@functools.lru_cache(maxsize=1)
def _code_key() -> str | None:
    """A digest of the code that computes stale rows (:data:`_INDEX_INPUTS`,
    :data:`_INDEX_QUERIES`; :func:`provgraph._rows.code_key`): an index written by other
    code is not used; ``None``: no index is read or written."""
    return code_key(_INDEX_NAME, _INDEX_INPUTS, _INDEX_QUERIES)


class _ReadLog:
    """The retained originals as :func:`stale` reads them while it computes: each
    digest asked for is noted with whether it was there (``read``); a corrupt one
    raises, and then no index is kept."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.read: dict[str, bool] = {}

    def get(self, sha256: str) -> bytes:
        try:
            data: bytes = self.inner.get(sha256)
        except OriginalMissingError:
            self.read.setdefault(sha256, False)
            raise
        self.read[sha256] = True
        return data


class _LoggedStore:
    """``store`` with its originals read through a :class:`_ReadLog`."""

    def __init__(self, store: ProvStore, log: _ReadLog) -> None:
        self._store = store
        self.originals = log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _write_index(store: ProvStore, token: str, mark: LedgerMark | None, got: _Computed,
                 read: Mapping[str, bool]) -> None:
    """Keep ``got`` as the stale index of the state ``token`` (see :func:`stale`), with the
    ledger ``mark`` it was computed at (``None``: it is used only for ``token``); nothing
    is kept when a claim is a blank node (its label is the engine's, not
    the statement's)."""
    snaps: dict[str, int] = {}

    def ref(iri: IRI) -> int:
        return snaps.setdefault(iri, len(snaps))

    times: dict[tuple[_dt.datetime, _dt.timedelta | None], str] = {}

    def iso(when: _dt.datetime | None) -> str | None:
        if when is None:
            return None
        key = (when, when.utcoffset())  # one instant in two zones is two texts (break test)
        text = times.get(key)
        if text is None:
            text = times[key] = when.isoformat()
        return text

    # the rows as columns, in order: a row's newest revision and time are those of its
    # snapshot (the index's newest and deleted), its kind and verdict one small code
    runs: list[list[Any]] = []
    claims: list[str] = []
    of: list[int] = []
    codes: list[int] = []
    for r in got.rows:
        if not isinstance(r.claim, IRI):
            return
        if not runs or runs[-1][0] != r.run:
            runs.append([r.run, 0])
        runs[-1][1] += 1
        claims.append(r.claim)
        of.append(ref(r.snapshot))
        codes.append(3 if r.kind == "deleted" else _CODES.index(r.span_unchanged))
    newest = [[ref(s), ref(tip), iso(when)] for s, (tip, when) in got.newest.items()]
    deleted = [[ref(s), iso(when)] for s, when in got.deleted_at.items()]
    non_true = [[ref(s), es] for s, es in got.non_true.items()]
    doc = {"v": 2, "token": token, "code": _code_key(), "originals": dict(sorted(read.items())),
           "mark": None if mark is None else [mark.n, mark.hash, mark.offset],
           "runs": runs, "claims": claims, "of": of, "codes": codes, "newest": newest,
           "deleted": deleted, "non_true": non_true, "snapshots": list(snaps)}
    store.write_index(_INDEX_NAME, json.dumps(doc, separators=(",", ":")).encode())


_CODES: tuple[bool | None, ...] = (True, False, None)
"""An updated row's ``span_unchanged`` by its code in the index (3: a deleted row)."""


@dataclasses.dataclass
class _Kept:
    """The stale index as read: its state token, ledger mark, the originals its
    computation read, and what it computed."""

    token: str
    mark: LedgerMark | None
    originals: dict[str, bool]
    got: _Computed


def _read_index(store: ProvStore) -> _Kept | None:
    """The stale index kept beside the store when it was computed by this code, else
    ``None`` (also for one that does not parse: any doubt, compute anew)."""
    data = store.read_index(_INDEX_NAME)
    if data is None:
        return None
    try:
        doc = json.loads(data)
        if doc.get("v") != 2 or doc.get("code") != _code_key():
            return None
        snaps = [IRI(x) for x in doc["snapshots"]]
        tz: dict[str, _dt.datetime] = {}

        def when(text: str | None) -> _dt.datetime | None:
            return None if text is None else tz.get(text) or tz.setdefault(
                text, _dt.datetime.fromisoformat(text))
        newest = {snaps[s]: (snaps[t], when(w)) for s, t, w in doc["newest"]}
        deleted = {snaps[s]: when(w) for s, w in doc["deleted"]}
        build = row_builder(StaleRow)
        rows: list[StaleRow] = []
        claims, of, codes, i = doc["claims"], doc["of"], doc["codes"], 0
        if not len(claims) == len(of) == len(codes) == sum(n for _, n in doc["runs"]):
            return None
        for run_, n in doc["runs"]:
            run_iri = IRI(run_)
            for claim, s, c in zip(claims[i:i + n], of[i:i + n], codes[i:i + n]):
                snap = snaps[s]
                if c == 3:
                    rows.append(build(run_iri, IRI(claim), snap, "deleted", None,
                                      deleted.get(snap), False))
                else:
                    tip, at = newest.get(snap, (None, None))
                    rows.append(build(run_iri, IRI(claim), snap, "updated", tip, at, _CODES[c]))
            i += n
        got = _Computed(rows, newest, deleted, {snaps[s]: es for s, es in doc["non_true"]})
        m = doc["mark"]
        mark = None if m is None else LedgerMark(int(m[0]), str(m[1]), int(m[2]))
        return _Kept(str(doc["token"]), mark, {str(k): bool(v) for k, v in doc["originals"].items()},
                     got)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _originals_hold(store: ProvStore, read: Mapping[str, bool]) -> bool:
    """Whether every retained original the index's computation read still reads back with
    its digest, and each that was missing still is (a corrupt one raises)."""
    originals = store.originals
    try:
        for digest, present in read.items():
            if present:
                originals.get(digest)  # raises when it is gone or altered
            elif digest in originals:
                return False
    except StoreError:
        return False
    return True


def _from_index(store: ProvStore, token: str, *, keep: bool) -> list[StaleRow] | None:
    """The whole store's rows from the stale index, or ``None`` when it cannot give them:
    as kept when the state ``token`` is the index's; else brought up to date from the
    ledger lines written since its mark (:mod:`provgraph._stale_delta`: the snapshots
    those writes touched are computed anew) and, with ``keep``, kept for ``token`` when
    no write landed meanwhile. Either way only while every original it read holds."""
    kept = _read_index(store)
    if kept is None or not _originals_hold(store, kept.originals):
        return None
    if kept.token == token:
        return kept.got.rows
    if kept.mark is None:
        return None
    mark = store.ledger_mark()  # before the lines are read: the next call reads on from here
    lines = store.ledger_lines_since(kept.mark)
    if lines is None or mark is None:
        return None
    delta = _stale_delta.touched(store, lines, {s: t for s, (t, _) in kept.got.newest.items()},
                                 kept.got.non_true)
    if delta is None:
        return None
    touched, revisions = delta
    base = kept.got
    if revisions:  # read anew: every snapshot whose newest revision or invalidation changed
        newest = compute._newest_revisions(store)
        deleted = compute._deleted_at(store, {}, every=True)
        for old, new in ((base.newest, newest), (base.deleted_at, deleted)):
            touched |= {s for s in old.keys() | new.keys() if old.get(s) != new.get(s)}
        base = compute._Computed(base.rows, newest, deleted, base.non_true)
    log = _ReadLog(store.originals)
    fresh = compute._recomputed(cast(ProvStore, _LoggedStore(store, log)), touched, base)
    rows = [r for r in base.rows if r.snapshot not in touched]  # still in order
    for r in fresh.rows:
        bisect.insort(rows, r, key=_row_order)
    non_true = {s: es for s, es in base.non_true.items() if s not in touched}
    non_true.update(fresh.non_true)
    got = _Computed(rows, base.newest, base.deleted_at, non_true)
    if keep and store.state_token() == token:  # nothing written while it computed
        _write_index(store, token, mark, got, {**kept.originals, **log.read})
    return rows


def _row_order(r: StaleRow) -> tuple[str, str, str, str]:
    """The order of :func:`stale`'s rows: by run, claim and snapshot, as exact text."""
    return (str(r.run), str(r.claim), str(r.snapshot), r.kind)


def _exactly(rows: list[StaleRow]) -> list[tuple[StaleRow, str | None]]:
    """The rows with each time's text beside it: two times of one instant in two zones
    are equal datetimes, not the same answer (break test)."""
    return [(r, None if r.changed_at is None else r.changed_at.isoformat()) for r in rows]


def check_index(store: ProvStore) -> str | None:
    """Whether the rows :func:`stale` would answer from its index (as kept, or brought up
    to date from the ledger) agree with computing anew (``provgraph verify``): the index
    is derived data outside the ledger, so a change made to its file outside provgraph is
    found here, and so is a write that bypassed the ledger.

    Returns:
        ``None`` when no index is in use (none kept, or none that can answer for this
        state) or its rows are those :func:`stale` computes; else what differs, for a
        person.

    Raises:
        OriginalMissingError, OriginalCorruptError: as :func:`stale` raises them.
    """
    token = store.state_token()
    kept = _from_index(store, token, keep=False) if token is not None else None
    if kept is None:
        return None
    live = compute._compute(store, None)
    if _exactly(kept) == _exactly(live):
        return None
    kept_set, live_set = set(kept), set(live)  # rows are frozen, hashable
    extra = next((r for r in kept if r not in live_set), None)
    missing = next((r for r in live if r not in kept_set), None)
    zone = next((a for a, b in zip(kept, live) if a == b and _exactly([a]) != _exactly([b])),
                None)
    what = (f"it lists {extra!r}, which computing stale does not give" if extra is not None
            else f"it lacks {missing!r}" if missing is not None
            else f"it gives {zone!r} another time zone than computing does" if zone is not None
            else "its rows are in another order")
    return (f"the stale index ({INDEX_FILE}) does not agree with the store: {what} "
            f"({len(kept)} rows kept, {len(live)} computed); it was changed outside "
            "provgraph, or the store was written without its ledger. Delete the file (the "
            "next stale call writes it anew) and find out who changed it")
