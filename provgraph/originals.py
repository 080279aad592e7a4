"""Retained originals: the blob-store interface and its implementations.

Every source snapshot's bytes (and every extracted text provgraph resolves
citations against) are kept in a :class:`BlobStore`, named by their SHA-256
digest (FIPS 180-4) in lowercase hex. A blob is written once; reading it
re-hashes the bytes, so an altered or missing blob is an error
(:class:`~provgraph.errors.OriginalCorruptError`,
:class:`~provgraph.errors.OriginalMissingError`) and never silently wrong evidence.

Implementations:

* :class:`Originals`: a directory on disk, the default beside an embedded store.
  Layout: ``ROOT/sha256/ab/abcdef...`` (two-character fan-out directories); each
  blob is written atomically (temporary file ``.tmp-*`` beside it, fsync, rename) and
  made read-only. A process killed between the write and the rename leaves its
  temporary file behind; :meth:`Originals.remove_stale_temporaries` removes such files,
  and the embedded store calls it when a writer opens it (issue 20).
* :class:`MemoryBlobStore`: a dictionary, for tests and throw-away stores.

The RDF store reaches its blob store as ``store.originals`` (see
:class:`provgraph.store.ProvStore`); the blob store is a separate interface so that
a remote RDF store (issue 13) can keep its originals in a local or shared folder.
"""

from __future__ import annotations

import contextlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import OriginalCorruptError, OriginalMissingError, StoreError

__all__ = ["BlobStore", "MemoryBlobStore", "Originals", "check_digest", "sha256_hex", "new_blobs"]

_HEX = frozenset("0123456789abcdef")
_TMP_PREFIX = ".tmp-"
"""Name prefix of a blob being written (:meth:`Originals.put`), until its rename."""


def sha256_hex(data: bytes) -> str:
    """The SHA-256 digest of ``data`` as 64 lowercase hex characters."""
    import hashlib  # here: a reader that checks no digest never loads OpenSSL (issue 16)

    return hashlib.sha256(data).hexdigest()


def check_digest(sha256: str) -> str:
    """``sha256`` itself when it is 64 lowercase hex characters (a blob name).

    Raises:
        ValueError: it is not (an upper-case digest is refused, not folded, so one
            blob has exactly one name).

    Example:
        >>> check_digest(sha256_hex(b"")) == sha256_hex(b"")
        True
    """
    if not isinstance(sha256, str) or len(sha256) != 64 or not _HEX.issuperset(sha256):
        raise ValueError(f"not a lowercase hex sha-256 digest: {sha256!r}")
    return sha256


class BlobStore(ABC):
    """Interface of a content-addressed, write-once store of retained bytes.

    Blobs are named by the lowercase hex SHA-256 of their bytes. Every
    implementation verifies the digest on :meth:`get`, and keeps a missing blob
    (:class:`~provgraph.errors.OriginalMissingError`) apart from a corrupt one
    (:class:`~provgraph.errors.OriginalCorruptError`, both subclasses of
    :class:`~provgraph.errors.StoreError`).

    Attributes:
        location: where the blobs are, for messages (a directory, or ``":memory:"``).

    Example:
        >>> blobs = MemoryBlobStore()
        >>> digest = blobs.put(b"hello")
        >>> digest == sha256_hex(b"hello"), digest in blobs, blobs.get(digest)
        (True, True, b'hello')
    """

    location: str
    on_new: "Callable[[str], None] | None" = None
    """Called with the digest of each blob :meth:`put` writes that was not there before
    (the store's ledger lists them: :mod:`provgraph.ledger`); ``None``: nobody listens."""

    may_discard: "Callable[[str], bool] | None" = None
    """Asked before :meth:`discard` removes a blob: ``False`` keeps it (the store's ledger
    already lists it on a line: :meth:`provgraph.ledger.LedgerWriter.forget_blob`);
    ``None``: nobody objects."""

    def discard(self, sha256: str) -> bool:
        """Remove the blob ``sha256`` that this process wrote (:attr:`on_new` reported it)
        for a write that then failed, so that nothing references it; the caller checks
        that no statement does. A blob is otherwise never removed. Returns whether it was
        removed: ``False`` when it is not there, :attr:`may_discard` objects, or this
        store cannot remove blobs (the default).

        Raises:
            ValueError: ``sha256`` is not 64 lowercase hex characters.
            StoreError: the blob is there and cannot be removed.
        """
        check_digest(sha256)
        return False

    @abstractmethod
    def put(self, data: bytes) -> str:
        """Retain ``data``; return its SHA-256 as 64 lowercase hex characters.

        Storing the same bytes again is a no-op that returns the same digest.

        Raises:
            StoreError: the blob cannot be written.
            OriginalCorruptError: a blob with this name exists with other bytes
                (it is never overwritten).
        """

    @abstractmethod
    def get(self, sha256: str) -> bytes:
        """The retained bytes whose SHA-256 is ``sha256``, verified against it.

        Raises:
            ValueError: ``sha256`` is not 64 lowercase hex characters.
            OriginalMissingError: no blob has that digest.
            OriginalCorruptError: the stored bytes hash to another digest.
            StoreError: the blob cannot be read.
        """

    @abstractmethod
    def __contains__(self, sha256: object) -> bool:
        """Whether a blob named ``sha256`` is stored (its bytes are not verified:
        use :meth:`get` for that). Anything but a valid digest is not contained."""


class Originals(BlobStore):
    """A :class:`BlobStore` in a directory on disk (the embedded store's ``originals/``).

    Args:
        root: directory holding the blobs; created on first write.

    Example:
        >>> import tempfile
        >>> o = Originals(tempfile.mkdtemp())
        >>> digest = o.put(b"hello")
        >>> o.get(digest)
        b'hello'
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.location = str(self.root)

    def path_for(self, sha256: str) -> Path:
        """Where the blob with hex digest ``sha256`` lives (it may not exist).

        Raises:
            ValueError: ``sha256`` is not 64 lowercase hex characters.
        """
        check_digest(sha256)
        return self.root / "sha256" / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        digest = sha256_hex(data)
        target = self.path_for(digest)
        if target.exists():
            self.get(digest)  # verifies the existing blob
            return digest
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            import tempfile  # here: only writers need it (start-up of readers, issue 16)

            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=_TMP_PREFIX)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.chmod(tmp, 0o444)
                os.replace(tmp, target)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            raise StoreError(f"cannot retain an original under {self.root}: {exc}") from exc
        if self.on_new is not None:
            self.on_new(digest)
        return digest

    def discard(self, sha256: str) -> bool:
        path = self.path_for(sha256)
        if not path.exists() or (self.may_discard is not None and not self.may_discard(sha256)):
            return False
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise StoreError(f"cannot remove the unreferenced original {path}: {exc}") from exc
        return True

    def remove_stale_temporaries(self) -> int:
        """Delete the temporary files (``ROOT/sha256/ab/.tmp-*``) that :meth:`put`s killed
        before their rename left behind; return how many were deleted.

        A temporary file is never a blob (blobs are named by their digest and appear only
        by the rename), so nothing retained is lost. Call it only while no other process
        can be in :meth:`put` on this directory: :class:`provgraph.store.EmbeddedStore`
        calls it right after it takes the store's write lock, for its own ``originals/``
        (a writer holds that lock for as long as it is open, and only a writer retains
        originals), never from a read-only open.

        Raises:
            StoreError: a temporary file is there but cannot be deleted (permissions).
        """
        removed = 0
        for tmp in self.root.glob(f"sha256/??/{_TMP_PREFIX}*"):
            try:
                tmp.unlink()
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise StoreError(f"cannot remove {tmp}, a temporary file a killed writer left "
                                 f"among the retained originals: {exc}") from exc
            removed += 1
        return removed

    def get(self, sha256: str) -> bytes:
        check_digest(sha256)
        # the path as text, not a Path: a stale index re-reads thousands (issue 16)
        path = os.path.join(self.location, "sha256", sha256[:2], sha256)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise OriginalMissingError(sha256, str(self.root)) from None
        except OSError as exc:
            raise StoreError(f"cannot read retained original {path}: {exc}") from exc
        actual = sha256_hex(data)
        if actual != sha256:
            raise OriginalCorruptError(sha256, actual, str(path))
        return data

    def __contains__(self, sha256: object) -> bool:
        try:
            return isinstance(sha256, str) and self.path_for(sha256).exists()
        except ValueError:
            return False

    def digests(self) -> Iterator[str]:
        """The names of the blobs stored, sorted (files whose name is no digest, such as
        a ``.tmp-*`` file a killed write left, are not blobs and are skipped)."""
        base = self.root / "sha256"
        if not base.is_dir():
            return
        for fan in sorted(base.iterdir()):
            if fan.is_dir():
                for f in sorted(fan.iterdir()):
                    name = f.name
                    if len(name) == 64 and _HEX.issuperset(name) and name[:2] == fan.name:
                        yield name

    def __repr__(self) -> str:
        return f"Originals({self.location!r})"


class MemoryBlobStore(BlobStore):
    """A :class:`BlobStore` held in a dictionary; gone when the object is.

    The bytes are still verified on :meth:`get`, so the two implementations
    behave alike (the store contract tests run over both).

    Example:
        >>> blobs = MemoryBlobStore()
        >>> blobs.get(blobs.put(b"x"))
        b'x'
    """

    def __init__(self) -> None:
        self._blobs: dict[str, bytes] = {}
        self.location = ":memory:"

    def put(self, data: bytes) -> str:
        data = bytes(data)
        digest = sha256_hex(data)
        if digest in self._blobs:
            self.get(digest)  # verifies the existing blob
        else:
            self._blobs[digest] = data
            if self.on_new is not None:
                self.on_new(digest)
        return digest

    def discard(self, sha256: str) -> bool:
        check_digest(sha256)
        if sha256 not in self._blobs or (self.may_discard is not None
                                         and not self.may_discard(sha256)):
            return False
        del self._blobs[sha256]
        return True

    def get(self, sha256: str) -> bytes:
        check_digest(sha256)
        try:
            data = self._blobs[sha256]
        except KeyError:
            raise OriginalMissingError(sha256, "the in-memory blob store") from None
        actual = sha256_hex(data)
        if actual != sha256:
            raise OriginalCorruptError(sha256, actual, f"sha256:{sha256} (in memory)")
        return data

    def __contains__(self, sha256: object) -> bool:
        return isinstance(sha256, str) and sha256 in self._blobs

    def __repr__(self) -> str:
        return f"MemoryBlobStore({len(self._blobs)} blobs)"


@contextlib.contextmanager
def new_blobs(blobs: BlobStore) -> Iterator[list[str]]:
    """Collect the digests of the blobs :meth:`BlobStore.put` writes in the block (those
    :attr:`BlobStore.on_new` reports: not the ones that were there already), in order,
    into the list it yields; whoever listened to ``on_new`` still hears each.

    Example:
        >>> blobs = MemoryBlobStore()
        >>> old = blobs.put(b"kept")
        >>> with new_blobs(blobs) as written:
        ...     _ = blobs.put(b"kept"), blobs.put(b"new")
        >>> written == [sha256_hex(b"new")]
        True
    """
    written: list[str] = []
    prior = blobs.on_new

    def note(digest: str) -> None:
        written.append(digest)
        if prior is not None:
            prior(digest)

    blobs.on_new = note
    try:
        yield written
    finally:
        blobs.on_new = prior
