"""Writing output files: :func:`atomic_write`, so a reader never sees a half-written export.

The CLI's ``export -o FILE`` goes through it; so can any caller that writes an
export to disk.

Crash safety (issue 20): the output is written to ``.NAME.XXXXXXXX.partial`` beside
``NAME`` and renamed over it, so ``NAME`` is always the old file or the whole new one.
An exception, Ctrl-C (``KeyboardInterrupt``) or SIGTERM (when the process has no handler
of its own for it) removes the ``.partial`` file before the process ends. SIGKILL cannot
be caught: the ``.partial`` file of a killed writer stays until the next
:func:`atomic_write` to the same ``NAME``, which removes it. A live writer holds an
exclusive ``flock`` on its ``.partial`` file, so only the files of dead writers are
removed (on a system without ``fcntl`` nothing is).
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, BinaryIO, TypeVar

from ..errors import ProvgraphError

__all__ = ["atomic_write", "check_output_file", "remove_stale_partials"]

T = TypeVar("T")


def atomic_write(path: str | os.PathLike[str], write: Callable[[BinaryIO], T]) -> T:
    """Write a file all at once: ``write`` fills a temporary file beside ``path``,
    which is then renamed over it.

    Until ``write`` returns, ``path`` keeps its old content (or stays absent); if
    ``write`` raises, the temporary file is removed and the exception propagates
    unchanged; SIGTERM removes it too, then ends the process by SIGTERM as before (see
    the module docstring). A ``.partial`` file a killed writer left beside ``path`` is
    removed first. The new file gets the mode a plain ``open(path, "wb")`` would give
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
    remove_stale_partials(target)
    try:
        fh = _locked_partial(target)
    except OSError as exc:
        raise ProvgraphError(_cannot_create(path, target.parent, exc)) from exc
    with _sigterm_unwinds(), fh:
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


def _cannot_create(path: str | os.PathLike[str], parent: Path, exc: OSError) -> str:
    """Why no file can be created for ``path`` in the directory ``parent`` (``exc``: the
    error creating it), and what to do, in one message."""
    if isinstance(exc, FileNotFoundError) and not parent.is_dir():
        return (f"cannot write {path}: the directory {parent} does not exist; create it "
                "first, or give a path in a directory that exists")
    if isinstance(exc, FileNotFoundError):
        # /proc: the directory is there, yet creating a file in it fails with "No such file
        # or directory", which would mislead if printed (issue 17)
        return (f"cannot write {path}: the directory {parent} does not allow new files to "
                "be created in it; give a path in a directory you can write to")
    return (f"cannot write {path}: no new file can be created in the directory {parent} "
            f"({exc.strerror or exc}); check that you may write to it, or give a path in "
            "another directory")


_PARTIAL = ".partial"


def _partial_pattern(target: Path) -> str:
    """The glob of :func:`atomic_write`'s temporary files for ``target``."""
    import glob

    return f".{glob.escape(target.name)}.*{_PARTIAL}"


def _locked_partial(target: Path) -> IO[bytes]:
    """A new ``.partial`` file beside ``target``, open for writing and exclusively
    ``flock``-ed (so :func:`remove_stale_partials` leaves it alone while this process lives).

    Raises:
        OSError: the file cannot be created.
    """
    while True:
        fh = tempfile.NamedTemporaryFile("wb", dir=target.parent, prefix=f".{target.name}.",
                                         suffix=_PARTIAL, delete=False)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no locks, no clean-up
            return fh
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fh.fileno()).st_nlink:
                return fh
        except BlockingIOError:
            pass  # a clean-up took it in the instant before the lock: it deletes it
        fh.close()  # deleted under us by a clean-up that found it unlocked: another name


def remove_stale_partials(path: str | os.PathLike[str]) -> int:
    """Delete the ``.partial`` files that killed :func:`atomic_write` calls to ``path`` left
    beside it (see the module docstring); return how many were deleted.

    A file whose writer is alive is locked (``flock``) and is kept; so is every file
    this process cannot open or delete. Nothing is deleted where ``fcntl`` is missing.
    """
    target = Path(path)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return 0
    removed = 0
    for partial in target.parent.glob(_partial_pattern(target)):
        try:
            fd = os.open(partial, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino == os.stat(partial).st_ino:  # still the file at that name
                partial.unlink()
                removed += 1
        except OSError:  # locked by a live writer (BlockingIOError), or already gone
            pass
        finally:
            os.close(fd)
    return removed


class _Terminated(BaseException):
    """SIGTERM arrived during :func:`atomic_write` (raised by its handler)."""


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """Turn SIGTERM into :class:`_Terminated` for the block, so that the block's clean-up
    runs, then end the process by SIGTERM as the default action would have. Does nothing
    off the main thread or when the process handles SIGTERM itself (its handler stays)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def terminated(signum: int, frame: object) -> None:
        raise _Terminated

    signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
        raise  # pragma: no cover - the default action ended the process
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


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
