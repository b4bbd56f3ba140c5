"""One switch for BLAS threads: small products run single-threaded.

Waking OpenBLAS's threads for a product of a few hundred thousand flops costs more than the product
(measured 20x on N = 1000, t = 100 in the auglag path). ``threadpoolctl.threadpool_limits`` finds
the BLAS libraries by reading ``/proc/self/maps`` on every call (3-5 ms, more than a warm-started
subproblem solve), so the libraries are found once, by one :class:`threadpoolctl.ThreadpoolController`
created on first use (after numpy and scipy have loaded their BLAS), and each call only sets limits.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache

from threadpoolctl import ThreadpoolController

__all__ = ["blas_threads", "SMALL_WORK"]

#: products with fewer multiply-adds than this (N * t) run on one BLAS thread
SMALL_WORK = 2_000_000


@lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    import numpy  # noqa: F401  (load numpy's and scipy's BLAS before scanning)
    import scipy.linalg  # noqa: F401

    return ThreadpoolController()


@lru_cache(maxsize=1)
def _default_threads() -> int:
    return max([1, *(lib.num_threads for lib in _controller().lib_controllers if lib.user_api == "blas")])


def blas_threads(work: int) -> AbstractContextManager:
    """A context in which BLAS runs on one thread when ``work`` (multiply-adds per product, e.g.
    N * t for U w) is below :data:`SMALL_WORK`, and on the default number of threads otherwise
    (also inside an enclosing single-thread context: a large product within a loop of small ones)."""
    if work < SMALL_WORK:
        return _controller().limit(limits=1, user_api="blas")
    if _default_threads() == 1:
        return nullcontext()
    return _controller().limit(limits=_default_threads(), user_api="blas")
