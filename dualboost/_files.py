"""Output files that are neither lost nor left half-written: the one place where dualboost writes a
file (model files, checkpoints, the command line's outputs).

* :func:`check_writable`: before a long run, that a file can be written at a path (its directory
  exists and takes a new file, the path is not a directory, an existing file is writable); a
  ValueError naming the path and why otherwise, so that a run fails before it starts, not after.
* :func:`atomic_write`: write to a temporary file beside the target, ``fsync``, then ``os.replace``
  onto it, so that a kill at any moment leaves the previous file or the new one; a failure
  removes the temporary file and is an :class:`OutputError` (an OSError) naming the target and the
  system's reason (e.g. "No space left on device"). The file is created with mode
  ``0o666 & ~umask``, as ``open`` creates files (the kernel applies the umask and any default ACL);
  a symbolic link is written through (its target replaced, the link kept), and a path that is not
  a regular file (a device, a pipe: ``/dev/stdout``) is written in place.
* :class:`FileLock`: an exclusive lock (``fcntl.flock``, POSIX) on the lock file ``.NAME.lock``
  beside a file, held while a run writes it, so that a second writer is refused at its start
  rather than overwriting the first one's file; without ``fcntl`` (Windows) the file is not locked
  and a RuntimeWarning says so.
* :func:`remove_stale_temporaries`: a temporary file is named ``.NAME.PID.HEX.tmp`` (the writer's
  process id and a random token), so that a later writer of NAME -- holding NAME's lock, hence the
  only live one -- recognises a dead writer's leftovers (a ``kill -9`` during a write) and removes
  those whose process is gone.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import tempfile
import warnings
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

__all__ = [
    "OutputError",
    "output_error",
    "check_writable",
    "atomic_write",
    "FileLock",
    "temporary_path",
    "remove_stale_temporaries",
]

#: the suffix of every temporary file of :func:`atomic_write`
TEMP_SUFFIX = ".tmp"


class OutputError(OSError):
    """An OSError while writing the file ``filename``: ``cannot write 'PATH': REASON``, with the
    ``errno`` and the ``strerror`` of the system's error (chained as ``__cause__``)."""

    def __str__(self) -> str:
        return f"cannot write {self.filename!r}: {self.strerror}"


def output_error(exc: OSError, path: str | os.PathLike) -> OutputError:
    """``exc``, raised while writing ``path``, as an :class:`OutputError` naming ``path``."""
    if isinstance(exc, OutputError):
        return exc
    return OutputError(exc.errno, exc.strerror or str(exc) or type(exc).__name__, os.fspath(path))


def check_writable(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path, once it is known that a file can be written there: it is not a directory,
    its directory exists and takes a new file -- tried by creating (and removing) an empty file
    there, since permission bits do not stop root and a read-only file system shows only then --
    and a file already there is writable (and not read-only: mode 0o444 refuses root too, since the
    atomic replacement of :func:`atomic_write` would not ask the file). A ValueError starting with
    ``what`` and the path, saying which, otherwise ("directory not writable" naming the directory)."""
    path = Path(path)
    where = f"{what} {str(path)!r}"
    if path.is_dir():
        raise ValueError(f"{where} is a directory; give a file path")
    if path.exists() and not path.is_file():  # a device or a pipe (/dev/stdout): written in place
        if not os.access(path, os.W_OK):
            raise ValueError(f"{where} is not writable")
        return path
    directory = Path(os.path.realpath(path)).parent if path.is_symlink() else path.parent
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=directory)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            reason = "it does not exist"
        elif isinstance(exc, NotADirectoryError):
            reason = "a part of it is not a directory"
        else:
            reason = exc.strerror or type(exc).__name__
        raise ValueError(f"{where}: directory not writable: {str(directory)!r} ({reason})") from None
    os.close(fd)
    os.unlink(probe)
    if path.exists():
        mode = path.stat().st_mode
        if not os.access(path, os.W_OK) or not mode & 0o222:  # (root may write a read-only file)
            raise ValueError(f"{where}: the file exists and is not writable (mode {oct(mode & 0o777)})")
    return path


def temporary_path(path: Path) -> Path:
    """A fresh name for a temporary file of ``path``: ``.NAME.PID.HEX.tmp`` in its directory."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}{TEMP_SUFFIX}")


def _temporary_pattern(path: Path) -> re.Pattern:
    """The names of :func:`temporary_path` for ``path`` (group 1: the process id). Unambiguous: the
    process id and the token hold no dot, so a temporary file of another NAME never matches."""
    return re.compile(rf"\.{re.escape(path.name)}\.(\d+)\.[0-9a-f]+{re.escape(TEMP_SUFFIX)}")


def _target(path: Path) -> Path:
    """The file that writing ``path`` replaces: a symbolic link's target (the link is kept)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary handle whose content replaces the file ``path`` atomically when the block ends
    (module docstring); nothing is replaced and no temporary file is left when the block raises.
    Any OSError (while creating, writing, syncing or renaming) is an :class:`OutputError` naming
    ``path``."""
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():  # a device or a pipe
        try:
            with open(path, "wb") as handle:
                yield handle
        except OSError as exc:
            raise output_error(exc, path) from exc
        return
    target = _target(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        temporary = temporary_path(target)
        try:
            fd = os.open(temporary, flags, 0o666)  # the umask applies, as for open()
            break
        except FileExistsError:  # pragma: no cover - a 48-bit token seen twice
            continue
        except OSError as exc:
            raise output_error(exc, path) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise output_error(exc, path) from exc
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable (POSIX; not on Windows)
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process of this machine (True when it cannot be told)."""
    if pid == os.getpid() or os.name != "posix":  # (os.kill on Windows terminates the process)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: another user's process
        return True
    return True


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove the temporary files of ``path`` (:func:`temporary_path`) whose writer process is no
    longer running -- a writer killed during :func:`atomic_write` -- and return them. Call it only
    while holding ``path``'s :class:`FileLock`: then no other writer of ``path`` that locks is live,
    and the process check also spares one that does not lock."""
    target = _target(Path(path))
    pattern = _temporary_pattern(target)
    removed = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match and not _running(int(match.group(1))):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


class FileLock:
    """An exclusive lock on ``path`` for one writer at a time: ``fcntl.flock`` on the lock file
    ``.NAME.lock`` beside it, which holds the owner's process id and is removed on :meth:`release`.

    ``acquire`` raises a ValueError naming ``what`` and the path when another process -- or
    another :class:`FileLock` of this process: flock locks belong to an open file -- holds it.
    Without ``fcntl`` (Windows) or on a file system without flock it warns (RuntimeWarning) and
    returns False. The lock is released by :meth:`release`, when the object is collected, and by
    the kernel when the process dies (a ``kill -9`` leaves no stale lock).
    """

    def __init__(self, path: str | os.PathLike, what: str) -> None:
        target = _target(Path(path))
        self.path = Path(path)
        self.lock_path = target.with_name(f".{target.name}.lock")
        self.what = what
        self._fd: int | None = None
        self._finalizer: weakref.finalize | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> bool:
        """Take the lock (True), or warn that it cannot be taken here (False); ValueError if held."""
        if self._fd is not None:
            return True
        if fcntl is None:  # pragma: no cover - Windows
            self._unlocked("this platform has no fcntl")
            return False
        while True:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise ValueError(
                    f"{self.what} {str(self.path)!r} is in use: another run ({self._owner()}) holds its "
                    f"lock {str(self.lock_path)!r}; wait for it to end, or give another path"
                ) from None
            except OSError as exc:  # ENOLCK, EOPNOTSUPP: a file system without flock
                os.close(fd)
                self._unlocked(f"the file system does not lock ({exc.strerror})")
                return False
            try:  # the file locked must still be the one at lock_path (a releaser unlinks it)
                same = os.path.samestat(os.fstat(fd), os.stat(self.lock_path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        self._finalizer = weakref.finalize(self, os.close, fd)
        return True

    def release(self) -> None:
        """Remove the lock file and release the lock (nothing if not held)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.lock_path)  # while still held: see acquire
        self._finalizer()  # closes the file, which releases the lock
        self._fd = self._finalizer = None

    def _owner(self) -> str:
        """The holder as the lock file names it (``process PID``), for the message."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            return f"process {int(self.lock_path.read_text().split()[0])}"
        return "another process"

    def _unlocked(self, why: str) -> None:
        warnings.warn(
            f"{self.what} {str(self.path)!r} is not locked against a second writer: {why}",
            RuntimeWarning,
            stacklevel=4,
        )

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
