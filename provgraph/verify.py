"""Verify a store against its ledger, and rebuild a store from a ledger (issue 20).

:func:`verify_store` is what ``provgraph verify`` runs. It proves three things about an
embedded store at ``PATH`` and says where the first failure of each is:

1. **The chain.** ``PATH/ledger.jsonl`` is an unbroken hash chain
   (:func:`provgraph.ledger.check_chain`): a line edited, deleted, inserted or moved is
   named by its number, and ``PATH/ledger.head`` names a line of it.
2. **The store holds exactly what the ledger says.** The lines are replayed, in order,
   into a fresh store in a temporary directory, and its statements are compared with the
   store's, term for term (blank nodes by label: the ledger names the nodes the store
   holds). A statement only the store holds, or only the ledger, is named with the ledger
   line that last wrote it.
3. **Every retained original is intact.** Each blob the ledger lists is present and its
   bytes hash to its name; so is every other blob in ``PATH/originals``.

Each failure names the snapshots and claims that depend on what failed: the resources
of the statement (or with the blob's ``pg:sha256``), and everything downstream of them
along :data:`provgraph.relations.UPSTREAM` (:meth:`provgraph.store.ProvStore.closure`),
in the store and in the replay. With a checkpoint (:mod:`provgraph.signing`) it also
proves that the ledger extends the checkpointed prefix.

What it does not prove: that the recorded content is true (a source can lie, a
recorder can be wrong), nor, without a checkpoint held by someone else, that a writer
who rewrote the whole ledger and store consistently did not do so (README "Trust").

:func:`rebuild_store` replays a ledger into a new store, copying the retained originals
it lists (verified) from the old store's ``originals/``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import OriginalCorruptError, OriginalMissingError, StoreBusyError, StoreError
from .ledger import (HEAD_NAME, LEDGER_NAME, ChainProblem, LedgerLine, check_chain, read_head,
                     read_lines_after)
from .originals import Originals
from .relations import UPSTREAM
from ._store_base import INDEX_DIR, WITHOUT_LEDGER
from .store import EmbeddedStore, check_store_directory
from .terms import IRI, Literal, Quad
from .vocab import PG, RDF

__all__ = ["Finding", "VerifyReport", "RebuildResult", "verify_store", "rebuild_store",
           "REPLAY_IN_MEMORY"]

REPLAY_IN_MEMORY = 256 << 20
"""Bytes of statements (in the ledger) up to which :func:`verify_store` replays into a
store in memory; a larger ledger is replayed into a temporary store on disk."""


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One thing :func:`verify_store` found wrong.

    Attributes:
        kind: ``no-ledger``, ``chain``, ``head``, ``statement-missing`` (the ledger says
            the store holds it; it does not), ``statement-extra`` (the store holds it; the
            ledger never wrote it), ``blob-missing``, ``blob-corrupt``, ``checkpoint``,
            ``stale-index`` (the stale index disagrees with the store: its file was
            changed outside provgraph), ``impact-index`` (an impact index disagrees).
        where: what failed: ``ledger.jsonl line N``, an N-Quads statement, ``blob <sha-256>``.
        detail: what is wrong, for a person.
        line: the ledger line concerned (the bad line; the line that last wrote the
            statement; the line that listed the blob), or ``None``.
        snapshots, claims: IRIs of the source snapshots and claims that depend on it.
    """

    kind: str
    where: str
    detail: str
    line: int | None = None
    snapshots: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()


@dataclass(kw_only=True)
class VerifyReport:
    """What :func:`verify_store` checked and found.

    Attributes:
        store: the store directory.
        lines: ledger lines read (up to the first chain problem).
        head: SHA-256 (hex) of the last line read, or ``None``.
        statements: statements in the store.
        blobs: retained originals checked.
        findings: what is wrong, first failure of each check first; empty when all holds.
        notes: what a person should know that is not a failure (a crash reconciled on
            open, originals the ledger does not list).
    """

    store: str
    lines: int = 0
    head: str | None = None
    statements: int = 0
    blobs: int = 0
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether everything checked holds (no finding)."""
        return not self.findings


def _dependents(stores: Iterable[EmbeddedStore], nodes: set[IRI]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Snapshots and claims among ``nodes`` and downstream of them, in any of ``stores``."""
    snaps: set[str] = set()
    claims: set[str] = set()
    for store in stores:
        if not nodes:
            break
        reach = set(nodes) | store.closure(nodes, UPSTREAM, inverse=True)
        upstream_of = {n for n in nodes if not _is(store, n, PG.SourceSnapshot)}
        near = store.closure(upstream_of, UPSTREAM, max_depth=2) if upstream_of else set()
        for n in reach | near:
            if _is(store, n, PG.SourceSnapshot):
                snaps.add(str(n))
        for n in reach:
            if _is(store, n, PG.Claim):
                claims.add(str(n))
    return tuple(sorted(snaps)), tuple(sorted(claims))


def _is(store: EmbeddedStore, node: IRI, cls: IRI) -> bool:
    return next(iter(store.quads(node, RDF.type, cls)), None) is not None


def _nodes(quads: Iterable[Quad]) -> set[IRI]:
    return {t for q in quads for t in (q[0], q[2]) if isinstance(t, IRI)}


def _nquad(q: Quad) -> str:
    from .store import serialize_quads

    return serialize_quads([q], "nquads").decode("utf-8").strip().removesuffix(" .")


def verify_store(path: str | Path, *, checkpoint: str | Path | None = None,
                 public_key: str | Path | None = None, limit: int = 20,
                 lock_timeout: float | None = None) -> VerifyReport:
    """Check an embedded store against its ledger (the module docstring).

    The store is opened for writing (it waits for another writer, as every write
    command does), so that a ledger line a crash left uncommitted is reconciled first
    (reported in :attr:`VerifyReport.notes`); when the chain is broken, or another
    process kept the write lock for ``lock_timeout`` seconds (``None``: as every writer,
    ``$PROVGRAPH_LOCK_TIMEOUT`` else 30; a ``provgraph serve`` holds it), or this process
    may not write the store's files (an auditor's read-only copy, a read-only mount), it
    is opened read-only, nothing is written, and the notes say so.

    Args:
        path: the store directory.
        checkpoint: a checkpoint receipt (:func:`provgraph.signing.write_checkpoint`)
            the ledger must extend; ``None``: no checkpoint check.
        public_key: the PEM public key the checkpoint must be signed with (required
            with ``checkpoint``).
        limit: at most this many statements of each kind are listed.

    Returns:
        :class:`VerifyReport`; its ``ok`` is true when everything holds. A store with
        no ledger gives one ``no-ledger`` finding.

    Raises:
        StoreError: ``path`` is not a provgraph store on disk, or cannot be opened.
        SignatureError: ``checkpoint`` or ``public_key`` cannot be read.
    """
    root = Path(path)
    report = VerifyReport(store=str(root))
    if not (root / "rdf").is_dir():
        raise StoreError(f"no provgraph store at {root}; check --store / $PROVGRAPH_STORE")
    check_store_directory(root)
    if not (root / LEDGER_NAME).exists():
        report.findings.append(Finding(
            kind="no-ledger", where=str(root / LEDGER_NAME),
            detail="the store has no ledger, so nothing about its history can be proven "
                   "(a store written before issue 20, or by a remote engine); the next "
                   "write command starts one with the statements it holds then"))
        return report
    lines, problem = check_chain(root / LEDGER_NAME)
    # before the writer's open below, which changes the engine's files and so makes any
    # index unused: the index as the reading commands would use it now
    _check_indexes(root, report)
    if problem is None:
        before = (root / LEDGER_NAME).stat().st_size
        writer: EmbeddedStore | None = None
        unwritable = _unwritable(root)
        if unwritable is not None:  # reconciling is a write; the checks below only read
            report.notes.append(
                f"{unwritable} may not be written by this process, so the store was verified "
                "read-only as it is, without first reconciling what a stopped writer left: a "
                "write it did not finish can show as a difference; to reconcile first, verify "
                f"a writable copy (cp -r {root} COPY; provgraph --store COPY verify)")
        else:
            try:  # a writer open reconciles what a crash left and undoes a journal
                writer = EmbeddedStore(root, lock_timeout=lock_timeout)
            except StoreBusyError as exc:
                report.notes.append(f"{exc}; verified what was committed when it opened, "
                                    "without the writer's lock: a write in flight can show as "
                                    "a difference")
        if writer is not None:
            # the store's note says to run verify, which is running: its head finding says it
            recovered = (writer.ledger_recovered or "").replace("; run 'provgraph verify'", "")
            for note in (recovered,
                         writer.recovered and f"undid {writer.recovered}, which a stopped "
                         "process left unfinished (what it had stored is removed by undo lines)"):
                if note:
                    report.notes.append(note)
            writer.close()
        if (root / LEDGER_NAME).stat().st_size != before:  # lines appended or a torn one cut
            lines, problem = check_chain(root / LEDGER_NAME)
    store = EmbeddedStore(root, read_only=True)
    try:
        _verify(store, root, lines, problem, report, limit)
        if checkpoint is not None:
            from .signing import check_checkpoint

            why = check_checkpoint(checkpoint, public_key, lines)
            if why is not None:
                report.findings.append(Finding(kind="checkpoint", where=str(checkpoint),
                                               detail=why))
    finally:
        store.close()
    return report


def _unwritable(root: Path) -> Path | None:
    """The first of the files a writer's open writes (the store directory, its ``rdf/``
    and engine lock, the ledger and its head) that exists and that this process may not
    write (``os.access``: its permissions, or a read-only mount), else ``None``."""
    for p in (root, root / "rdf", root / "rdf" / "LOCK", root / LEDGER_NAME, root / HEAD_NAME):
        if p.exists() and not os.access(p, os.W_OK):
            return p
    return None


def _check_indexes(root: Path, report: VerifyReport) -> None:
    """A ``stale-index`` finding when the stale index ``provgraph stale`` would answer
    from disagrees with computing it (:func:`provgraph.staleness.check_index`), and an
    ``impact-index`` finding when an impact index ``provgraph impact`` would answer from
    disagrees with reading the store (:func:`provgraph._impact_index.check_indexes`),
    read on a read-only open; an original it cannot read is the blob check's finding,
    not this one's."""
    from ._impact_index import INDEX_PATTERN, check_indexes
    from .staleness import INDEX_FILE, check_index

    impact = sorted(p.name for p in root.glob(INDEX_PATTERN))
    if not (root / INDEX_FILE).exists() and not impact:
        return
    try:
        store = EmbeddedStore(root, read_only=True)
    except StoreError:
        return  # the store itself cannot be read: the checks after this one say so
    try:
        stale_why = check_index(store) if (root / INDEX_FILE).exists() else None
        impact_why = check_indexes(store, impact)
    except StoreError:
        return
    finally:
        store.close()
    if stale_why is not None:
        report.findings.append(Finding(kind="stale-index", where=str(root / INDEX_FILE),
                                       detail=stale_why))
    if impact_why is not None:
        report.findings.append(Finding(kind="impact-index", where=str(root / INDEX_DIR),
                                       detail=impact_why))


@dataclass(frozen=True, kw_only=True)
class _Break:
    """A broken chain as :func:`_verify` reports it: the first line the chain does not
    vouch for, the readable lines from there on (as written), the positions of the
    unreadable ones, and the ledger's line count."""

    at: int
    tail: list[LedgerLine]
    unreadable: list[int]
    total: int

    def lines_text(self) -> str:
        return f"line {self.at}" if self.total <= self.at else f"lines {self.at}..{self.total}"


def _verify(store: EmbeddedStore, root: Path, lines: list[LedgerLine], problem: ChainProblem | None,
            report: VerifyReport, limit: int) -> None:
    """The checks of :func:`verify_store` on an open store. With a broken chain, the lines
    from the break on are read as written and replayed and their originals checked too, so
    that what the store holds is compared with the ledger's text: a statement or original
    one of those lines wrote is not reported as written outside provgraph (issue: the
    follow-on findings contradicted the break), and the break is reported with the lines
    it leaves unvouched for and the snapshots and claims that depend on it."""
    report.lines = len(lines)
    report.head = lines[-1].hash if lines else None
    report.statements = len(store)
    brk: _Break | None = None
    if problem is not None:
        try:
            tail, unreadable = read_lines_after(root / LEDGER_NAME, len(lines))
        except OSError:
            tail, unreadable = [], []
        brk = _Break(at=problem.line, tail=tail, unreadable=unreadable,
                     total=len(lines) + len(tail) + len(unreadable))
    n, h = read_head(root)
    head: Finding | None = None
    if n and (n > len(lines) or lines[n - 1].hash != h) and problem is None:
        head = Finding(
            kind="head", where=str(root / HEAD_NAME), line=n,
            detail=f"{HEAD_NAME} names line {n} with hash {h[:16]}..., which the ledger "
                   + ("does not have" if n > len(lines) else
                      f"has with hash {lines[n - 1].hash[:16]}...: the ledger was rewritten"))
    found: list[Finding] = []
    only_store = _compare(store, [*lines, *(brk.tail if brk else ())], found, report, limit,
                          brk)
    _check_blobs(store, root, lines, found, report, brk)
    if brk is not None:
        report.findings.append(_chain_finding(store, problem, brk, only_store))
    if head is not None:
        report.findings.append(head)
    report.findings.extend(found)


def _chain_finding(store: EmbeddedStore, problem: ChainProblem | None, brk: _Break,
                   only_store: list[Quad]) -> Finding:
    """The ``chain`` finding: the break, the lines it leaves unvouched for, and what
    depends on it: the snapshots and claims of the broken line's statements, or, when it
    cannot be read (or was deleted), of the statements the store holds that no readable
    line wrote (what it most likely wrote)."""
    assert problem is not None
    # the line at the break, when it can be read and is numbered as its place (a deleted
    # line's successor is not what the deleted line wrote)
    bad = (brk.tail[0] if brk.tail and brk.at not in brk.unreadable and brk.tail[0].n == brk.at
           else None)
    quads: list[Quad] = []
    if bad is not None:
        from .store import parse_rdf

        text = "".join(t + " .\n" for t in (*bad.removed, *bad.added))
        try:
            quads = parse_rdf(text, "nquads") if text else []
        except (ValueError, StoreError):
            quads = []
    if not quads:
        quads = only_store
    snaps, claims = _dependents([store], _nodes(quads)) if quads else ((), ())
    unread = (f" (line {brk.unreadable[0]} cannot be read as a ledger line)"
              if len(brk.unreadable) == 1 else
              f" (lines {', '.join(map(str, brk.unreadable))} cannot be read as ledger lines)"
              if brk.unreadable else "")
    return Finding(
        kind="chain", where=f"{LEDGER_NAME} line {brk.at}", line=brk.at,
        detail=(f"{problem.reason}; the chain does not vouch for {brk.lines_text()}{unread}: "
                "they were checked as written"),
        snapshots=snaps, claims=claims)


def _compare(store: EmbeddedStore, lines: list[LedgerLine], found: list[Finding],
             report: VerifyReport, limit: int, brk: _Break | None) -> list[Quad]:
    """Replay ``lines`` into a fresh store and compare it with ``store``, appending a
    finding per difference to ``found``; returns the statements only the store holds."""
    tmp = tempfile.mkdtemp(prefix="provgraph-verify-")
    try:
        # in memory up to REPLAY_IN_MEMORY ledger bytes (3x faster), else on disk
        size = sum(len(t) for line in lines for t in (*line.added, *line.removed))
        replay = EmbeddedStore(None if size <= REPLAY_IN_MEMORY else Path(tmp) / "replay",
                               ledger=False)
        try:
            writer: dict[str, int] = {}
            for line in lines:
                replay.apply_ledger_line(line)
            only_store, only_ledger = store.differences(replay, limit=limit)
            if only_store or only_ledger:
                wanted = {_nquad(q) for q in only_ledger}
                for line in lines:
                    for t in line.added:
                        if t in wanted:
                            writer[t] = line.n
            if brk is not None and (only_store or only_ledger):
                report.notes.append(
                    f"the chain is broken at line {brk.at}: the statements below differ "
                    f"between the store and the ledger's lines as written, {brk.lines_text()} "
                    "included")
            for kind, quads in (("statement-missing", only_ledger), ("statement-extra", only_store)):
                for q in quads:
                    text = _nquad(q)
                    snaps, claims = _dependents([store, replay], _nodes([q]))
                    at = writer.get(text)
                    if kind == "statement-missing":
                        after = (" (after the break: the chain does not vouch for it)"
                                 if brk is not None and at is not None and at >= brk.at else "")
                        detail = (f"ledger line {at}{after} wrote this statement; the store "
                                  "does not hold it: it was removed or changed outside provgraph")
                    elif brk is not None:
                        detail = ("the store holds this statement; no ledger line as it now "
                                  f"reads wrote it: the line broken at {brk.at} may have (it "
                                  "was edited, deleted or cannot be read), or it was added or "
                                  "changed outside provgraph")
                    else:
                        detail = ("the store holds this statement; no ledger line wrote it: it "
                                  "was added or changed outside provgraph")
                    found.append(Finding(kind=kind, where=text, line=at, snapshots=snaps,
                                         claims=claims, detail=detail))
            return list(only_store)
        finally:
            replay.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _check_blobs(store: EmbeddedStore, root: Path, lines: list[LedgerLine],
                 found: list[Finding], report: VerifyReport, brk: _Break | None) -> None:
    blobs = Originals(root / "originals")
    listed: dict[str, int] = {}
    for line in [*lines, *(brk.tail if brk else ())]:
        for d in line.blobs:
            listed.setdefault(d, line.n)
    on_disk = set(blobs.digests())
    unlisted = sorted(on_disk - set(listed))
    report.blobs = len(on_disk | set(listed))
    for digest in [*listed, *unlisted]:
        try:
            blobs.get(digest)
            continue
        except OriginalMissingError:
            kind, detail = "blob-missing", "the ledger lists this retained original; it is gone"
        except OriginalCorruptError as exc:
            kind, detail = "blob-corrupt", f"its bytes hash to {exc.actual}, not to its name"
        subjects = {q[0] for q in store.quads(None, PG.sha256, Literal(digest))
                    if isinstance(q[0], IRI)}
        snaps, claims = _dependents([store], subjects)
        found.append(Finding(kind=kind, where=f"blob {digest}", detail=detail,
                             line=listed.get(digest), snapshots=snaps, claims=claims))
    if unlisted:
        report.notes.append(f"{len(unlisted)} retained original(s) are not listed in the "
                            "ledger (written by a write that failed or was killed before its "
                            "statements"
                            + (f", or listed by the line broken at {brk.at}" if brk else "")
                            + "); their bytes were checked")


@dataclass(frozen=True, kw_only=True)
class RebuildResult:
    """What :func:`rebuild_store` made.

    Attributes:
        store: the new store directory.
        lines: ledger lines replayed.
        statements: statements in the new store.
        blobs: retained originals copied.
    """

    store: str
    lines: int
    statements: int
    blobs: int
    notes: tuple[str, ...] = ()


def rebuild_store(ledger: str | Path, target: str | Path, *,
                  originals: str | Path | None = None) -> RebuildResult:
    """Make a new store at ``target`` from a ledger: its lines replayed in order, the
    retained originals they list copied (each verified against its digest) from
    ``originals``, and the ledger (and its head) copied, so the new store goes on with the
    same chain. The result holds the same statements as the store the ledger came from
    (``tests/test_ledger.py`` compares them canonically) and the same listed originals.

    Args:
        ledger: a ``ledger.jsonl`` file.
        target: the new store directory; it must not exist or be empty.
        originals: the directory of retained originals to copy from (``None``: the
            ``originals/`` beside ``ledger``).

    Raises:
        StoreError: ``target`` exists and is not empty; the ledger's chain is broken (the
            message names the line); the ``ledger.head`` beside it names a line the ledger
            has with another hash or lacks (its end was rewritten or cut: a chain alone
            cannot show that); a listed original is missing or corrupt.
    """
    src = Path(ledger)
    dst = Path(target)
    if dst.exists() and (not dst.is_dir() or any(dst.iterdir())):
        raise StoreError(f"{dst} exists and is not empty; rebuild makes a new store: give a "
                         "new directory")
    if not src.is_file():
        raise StoreError(f"{src}: no ledger file there (a store's ledger is PATH/{LEDGER_NAME})")
    lines, problem = check_chain(src)
    if problem is not None:
        raise StoreError(f"{src}: {problem.reason}; a broken ledger is "
                         "not replayed (run 'provgraph verify' on its store)")
    notes: list[str] = []
    head_n, head_hash = read_head(src.parent)
    if (src.parent / HEAD_NAME).exists() and head_n:
        have = lines[head_n - 1].hash if 0 < head_n <= len(lines) else None
        if have != head_hash:
            raise StoreError(
                f"{src}: {HEAD_NAME} beside it names line {head_n} with hash {head_hash[:16]}..., "
                + (f"which the ledger has with hash {have[:16]}..." if have else
                   f"which the ledger lacks ({len(lines)} lines)")
                + ": its end was rewritten or cut; it is not replayed (run 'provgraph verify' "
                "on its store, and check the ledger against a signed checkpoint)")
        if len(lines) > head_n:
            notes.append(f"lines {head_n + 1}..{len(lines)} come after the last line "
                         f"{HEAD_NAME} knew committed; they are replayed as written")
    else:
        notes.append(f"no {HEAD_NAME} beside the ledger: only its chain was checked, which "
                     "cannot show a rewritten or removed last line; check it against a "
                     "signed checkpoint ('provgraph verify --checkpoint')")
    blob_dir = Originals(Path(originals) if originals is not None else src.parent / "originals")
    store = EmbeddedStore(dst, ledger=False)
    copied = 0
    try:
        for line in lines:
            store.apply_ledger_line(line)
            for digest in line.blobs:
                try:
                    store.originals.put(blob_dir.get(digest))
                except (OriginalMissingError, OriginalCorruptError) as exc:
                    raise StoreError(f"ledger line {line.n} lists retained original {digest}: "
                                     f"{exc}") from exc
                copied += 1
        statements = len(store)
    except BaseException:
        store.discard_if_new()
        raise
    store.close()
    shutil.copyfile(src, dst / LEDGER_NAME)
    # replayed from this very ledger, the store is what it says: it holds every write, so
    # what is derived from it (the stale index) may be brought up to date from it again
    (dst / INDEX_DIR / WITHOUT_LEDGER).unlink(missing_ok=True)
    if lines:
        import json

        (dst / HEAD_NAME).write_text(json.dumps({"n": lines[-1].n, "hash": lines[-1].hash}))
    return RebuildResult(store=str(dst), lines=len(lines), statements=statements, blobs=copied,
                         notes=tuple(notes))

