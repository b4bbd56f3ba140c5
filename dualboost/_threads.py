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
sets the count back on exit (1-2 us; nothing to do inside a context already at one thread).
"""

from __future__ import annotations

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


class _SingleBlasThread:
    """The context of :func:`single_blas_thread`: each BLAS library at one thread inside, at its
    own count again on exit (only those whose count was not 1 are touched)."""

    __slots__ = ("_changed",)

    def __enter__(self) -> _SingleBlasThread:
        changed = []
        for library in _blas_libraries():
            threads = library.num_threads
            if threads != 1:
                library.set_num_threads(1)
                changed.append((library, threads))
        self._changed = changed
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        for library, threads in self._changed:
            library.set_num_threads(threads)


def single_blas_thread() -> _SingleBlasThread:
    """A context in which BLAS (numpy's and scipy's OpenBLAS) runs on one thread.

    Returns
    -------
    context manager
        Each BLAS library at one thread inside; its previous thread count restored on exit.
    """
    return _SingleBlasThread()
