"""Silence what compiled libraries print to the process's stdout and stderr.

Some solvers write from C/C++ straight to file descriptors 1 and 2, before any option of theirs
can turn the output off: highspy 1.16 prints a two-line banner when a ``Highs`` object is built,
while ``output_flag=False`` can only be set on the object afterwards. Python's ``sys.stdout`` and
``contextlib.redirect_stdout`` do not reach such writes; :func:`silenced_fds` points the two
descriptors at ``os.devnull`` for the duration of a short call and restores them.

The redirection is process-wide, so anything another thread writes in that window is dropped as
well; it is meant for calls that take microseconds (building a solver object), never for a solve.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["silenced_fds"]


def _flush_c_streams() -> None:
    """``fflush(NULL)``: push the C library's buffered output to its descriptor now."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # no C runtime reachable this way (e.g. Windows)
        pass


@contextmanager
def silenced_fds(fds: tuple[int, ...] = (1, 2)) -> Iterator[None]:
    """Point the file descriptors ``fds`` (default stdout and stderr) at ``os.devnull`` while the
    block runs; the C streams are flushed on entry (what was written before is kept) and on exit
    (what the block wrote is dropped). Descriptors that are not open are left alone."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    _flush_c_streams()
    saved: list[tuple[int, int]] = []
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in fds:
            try:
                saved.append((fd, os.dup(fd)))
            except OSError:  # fd not open: nothing can be printed there
                continue
            os.dup2(devnull, fd)
        yield
    finally:
        _flush_c_streams()
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)
