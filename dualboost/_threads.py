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
loaded their BLAS), and each call only sets the limit.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import lru_cache

from threadpoolctl import ThreadpoolController

__all__ = ["single_blas_thread"]


@lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    import numpy  # noqa: F401  (load numpy's and scipy's BLAS before scanning)
    import scipy.linalg  # noqa: F401

    return ThreadpoolController()


def single_blas_thread() -> AbstractContextManager:
    """A context in which BLAS (numpy's and scipy's OpenBLAS) runs on one thread."""
    return _controller().limit(limits=1, user_api="blas")
