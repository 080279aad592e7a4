"""Writing output files: :func:`atomic_write`, so a reader never sees a half-written export.

The CLI's ``export -o FILE`` goes through it; so can any caller that writes an
export to disk.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, TypeVar

from ..errors import ProvgraphError

__all__ = ["atomic_write", "check_output_file"]

T = TypeVar("T")


def atomic_write(path: str | os.PathLike[str], write: Callable[[BinaryIO], T]) -> T:
    """Write a file all at once: ``write`` fills a temporary file beside ``path``,
    which is then renamed over it.

    Until ``write`` returns, ``path`` keeps its old content (or stays absent); if
    ``write`` raises, the temporary file is removed and the exception propagates
    unchanged. The new file gets the mode a plain ``open(path, "wb")`` would give
    it: an existing file's own mode, else ``0o666`` less the process umask (not the
    temporary file's private ``0o600``). A symbolic link is written through: the
    file it points to is replaced and the link stays. The rename is atomic on POSIX
    file systems (``os.replace``); the data is not fsync'ed.

    Args:
        path: the file to write (str or path-like).
        write: called once with the temporary file, opened for binary writing; its
            return value is returned.

    Returns:
        What ``write`` returned.

    Raises:
        ProvgraphError: ``path`` is a directory, its parent directory does not
            exist or cannot be written, or the rename fails; the message names the
            path and the fix, and nothing is left behind.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> out = Path(tempfile.mkdtemp()) / "bundle.nq"
        >>> atomic_write(out, lambda fh: fh.write(b"<urn:x:s> <urn:x:p> <urn:x:o> .\\n"))
        32
        >>> out.read_bytes()[:9], sorted(p.name for p in out.parent.iterdir())
        (b'<urn:x:s>', ['bundle.nq'])
    """
    target = check_output_file(path)
    try:
        fh = tempfile.NamedTemporaryFile("wb", dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".partial", delete=False)
    except OSError as exc:
        if not isinstance(exc, FileNotFoundError):
            why = f"check that the directory {target.parent} is writable"
        elif target.parent.is_dir():  # /proc, /sys: there, but no new files (issue 17)
            why = f"the directory {target.parent} exists but does not take new files"
        else:
            why = f"the directory {target.parent} does not exist; create it first"
        raise ProvgraphError(f"cannot write {path}: {exc.strerror or exc}; {why}, or choose "
                             "another file") from exc
    with fh:
        try:
            result = write(fh)  # type: ignore[arg-type]  # a binary file, as BinaryIO
            os.chmod(fh.name, target.stat().st_mode & 0o7777 if target.exists()
                     else 0o666 & ~_umask())
        except BaseException:
            fh.close()
            os.unlink(fh.name)
            raise
    try:
        os.replace(fh.name, target)
    except OSError as exc:
        os.unlink(fh.name)
        raise ProvgraphError(f"cannot write {path}: {exc.strerror or exc}; choose another "
                             "file") from exc
    return result


def check_output_file(path: str | os.PathLike[str]) -> Path:
    """The file :func:`atomic_write` would write for ``path`` (a symbolic link resolved:
    it is written through), once checked not to be a directory.

    Callers that infer a format from ``path``'s extension check this first, so that
    ``-o /tmp`` says it is a directory rather than a file of an unknown format (issue 17).

    Raises:
        ProvgraphError: ``path`` is a directory.
    """
    target = Path(path)
    if target.is_symlink():  # write through the link, as open() would
        target = Path(os.path.realpath(target))
    if target.is_dir():
        raise ProvgraphError(f"{path} is a directory; give the name of a file to write "
                             "(one inside it, for example)")
    return target


def _umask() -> int:
    """The process umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
