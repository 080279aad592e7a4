"""Retained originals: a content-addressed, write-once store of source bytes.

Every source snapshot's bytes (and every extracted text provgraph resolves
citations against) are kept here, named by their SHA-256 digest (FIPS 180-4)
in lowercase hex. A blob is written once, atomically (temporary file, fsync,
rename) and made read-only; reading it re-hashes the bytes, so an altered or
missing blob is an error and never silently wrong evidence.

Layout: ``ROOT/sha256/ab/abcdef...`` (two-character fan-out directories).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from .errors import OriginalCorruptError, OriginalMissingError, StoreError

__all__ = ["Originals", "sha256_hex"]


def sha256_hex(data: bytes) -> str:
    """The SHA-256 digest of ``data`` as 64 lowercase hex characters."""
    return hashlib.sha256(data).hexdigest()


class Originals:
    """Write-once blob store keyed by SHA-256.

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

    def path_for(self, sha256: str) -> Path:
        """Where the blob with hex digest ``sha256`` lives (it may not exist).

        Raises:
            ValueError: ``sha256`` is not 64 hex characters.
        """
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ValueError(f"not a lowercase hex sha-256 digest: {sha256!r}")
        return self.root / "sha256" / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        """Retain ``data``; return its hex SHA-256. Storing the same bytes again is a no-op.

        Raises:
            StoreError: the directory cannot be written.
            OriginalCorruptError: a blob with this name exists with other bytes.
        """
        digest = sha256_hex(data)
        target = self.path_for(digest)
        if target.exists():
            self.get(digest)  # verifies the existing blob
            return digest
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
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
        return digest

    def get(self, sha256: str) -> bytes:
        """The retained bytes whose SHA-256 is ``sha256``, verified.

        Raises:
            OriginalMissingError: no blob has that digest.
            OriginalCorruptError: the blob's bytes hash to something else.
        """
        path = self.path_for(sha256)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise OriginalMissingError(sha256, str(self.root)) from None
        except OSError as exc:
            raise StoreError(f"cannot read retained original {path}: {exc}") from exc
        actual = sha256_hex(data)
        if actual != sha256:
            raise OriginalCorruptError(sha256, actual, str(path))
        return data

    def __contains__(self, sha256: object) -> bool:
        return isinstance(sha256, str) and self.path_for(sha256).exists()
