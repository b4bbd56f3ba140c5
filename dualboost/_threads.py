"""One switch for BLAS threads: the solvers run BLAS on one thread.

Two measurements on the 2-core development machine decided this:

* small products (a warm-started subproblem is many GEMVs of a few hundred thousand flops and
  L-BFGS-B's t-sized updates): waking OpenBLAS's threads costs more than the product (20x slower
  on N = 1000, t = 100);
* large products on a machine that is doing anything else: OpenBLAS's threads spin-wait for each
  other, so a Gram matrix C^T C of a 200,000 x 200 matrix took 4.0 s on two threads against
  0.25 s on one while another process kept the machine busy (load 4); on an idle machine two
  threads gain at most 2x.

``threadpoolctl.threadpool_limits`` finds the BLAS libraries by reading ``/proc/self/maps`` on every
call (3-5 ms, more than a warm-started subproblem solve), so the libraries are found once, by one
:class:`threadpoolctl.ThreadpoolController` created on first use (after numpy and scipy have
loaded their BLAS). Its ``limit`` context still builds a limiter that reads every library's
info (15-20 us a solve, 1 % of a cold 1000 x 10 solve), so :func:`single_blas_thread` talks to the
libraries' controllers directly: it reads each one's thread count, sets 1 where it differs and
sets the count back on exit. Contexts nest: only the outermost reads and sets the counts, and the
inner ones cost a counter (a boosting run holds one around its loop, so that each of its
subproblem solves, each in a context of its own, does not set the counts twice: 2.7 % of a german
ERLPBoost iteration did).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from types import TracebackType

from threadpoolctl import ThreadpoolController

__all__ = ["single_blas_thread"]


@lru_cache(maxsize=1)
def _blas_libraries() -> tuple:
    """The controllers of the loaded BLAS libraries (``threadpoolctl``'s ``LibController``), found
    once, after numpy's and scipy's BLAS are loaded."""
    import numpy  # noqa: F401  (load numpy's and scipy's BLAS before scanning)
    import scipy.linalg  # noqa: F401

    return tuple(ThreadpoolController().select(user_api="blas").lib_controllers)


class _Held:
    """The contexts of :func:`single_blas_thread` open in this process (any thread: BLAS's thread
    count is the process's) and the counts the outermost one changed, to set back when the last
    one closes."""

    lock = threading.Lock()
    depth = 0
    changed: list = []


class _SingleBlasThread:
    """The context of :func:`single_blas_thread`: each BLAS library at one thread inside, at its
    own count again when the outermost open context exits (only those whose count was not 1 are
    touched; an inner context only counts itself)."""

    __slots__ = ()

    def __enter__(self) -> _SingleBlasThread:
        with _Held.lock:
            if _Held.depth == 0:
                changed = []
                for library in _blas_libraries():
                    threads = library.num_threads
                    if threads != 1:
                        library.set_num_threads(1)
                        changed.append((library, threads))
                _Held.changed = changed
            _Held.depth += 1
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        with _Held.lock:
            _Held.depth -= 1
            if _Held.depth == 0:
                for library, threads in _Held.changed:
                    library.set_num_threads(threads)
                _Held.changed = []


def single_blas_thread() -> _SingleBlasThread:
    """A context in which BLAS (numpy's and scipy's OpenBLAS) runs on one thread.

    Returns
    -------
    context manager
        Each BLAS library at one thread inside; its previous thread count restored on exit.
    """
    return _SingleBlasThread()
