"""Built-in instances: random edge matrices and the constructions of [KG] Ch. 2.

* :func:`random_edge_matrix`: U with entries in [-1, 1], reproducible from a seed, optionally
  with +-1 entries (as decision stumps give) and duplicated columns.
* :func:`lpboost_lower_bound`: the N/2-iteration instance of [KG] Thm 2.5 / Fig. 2.8, general even N
  (docs/math.md#lpboost-lower-bound, [DERIVED] general form).
* :func:`pivot_example`: the 3 x 3 matrix of [KG] Fig. 2.7 (pivot at (2, 3), value 2).
* :func:`bad_example`: [KG] Fig. 2.9 (b): Fig. 2.8 plus a bad example and a bad hypothesis
  (docs/math.md#bad-example), value -2 delta with the unique optimal w = e_6.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["random_edge_matrix", "lpboost_lower_bound", "pivot_example", "bad_example"]


def random_edge_matrix(
    n_samples: int,
    n_hypotheses: int,
    seed: int | None = 0,
    *,
    binary: bool = False,
    duplicate_columns: int = 0,
) -> NDArray[np.float64]:
    """A random N x t edge matrix in [-1, 1] (uniform entries, or +-1 when ``binary``).

    ``duplicate_columns`` appends that many copies of existing columns (identical hypotheses,
    which make the dual weights non-unique).

    Parameters
    ----------
    n_samples : int
        The number N of rows.
    n_hypotheses : int
        The number t of columns (before the copies).
    seed : int, optional
        The random seed (default 0).
    binary : bool, default False
        Entries +-1 instead of uniform in [-1, 1].
    duplicate_columns : int, default 0
        The copies of existing columns appended.

    Returns
    -------
    ndarray of shape (N, t + duplicate_columns)
        The edge matrix U.
    """
    if n_samples < 1 or n_hypotheses < 1:
        raise ValueError("n_samples and n_hypotheses must be >= 1")
    rng = np.random.default_rng(seed)
    if binary:
        U = rng.choice([-1.0, 1.0], size=(n_samples, n_hypotheses))
    else:
        U = rng.uniform(-1.0, 1.0, size=(n_samples, n_hypotheses))
    if duplicate_columns:
        U = np.hstack([U, U[:, rng.integers(0, n_hypotheses, duplicate_columns)]])
    return U


def lpboost_lower_bound(n_samples: int, delta: float | None = None) -> NDArray[np.float64]:
    """The [KG] Thm 2.5 matrix for even N: M = N/2 top rows, M bottom rows, M + 1 columns.

    Top rows n = 1..M: ``U[n, 1] = 1``, ``U[n, q] = -1 + (2q + 1) delta`` (2 <= q <= M),
    ``U[n, M+1] = -1 + delta``. Bottom row M + r, r = 1..M, q <= M: ``-1 + (2q + 1) delta`` if
    q < r, ``-1 + 2q delta`` if q = r (the pivot), ``+1`` if q = r + 1, ``-1 + (2q + 1) delta`` if
    q > r + 1; last column ``1 - delta``. ``delta`` defaults to ``0.01 / N``
    (docs/math.md#lpboost-lower-bound).
    Columns are 0-based in the returned array.

    Parameters
    ----------
    n_samples : int
        The even number N of rows.
    delta : float, optional
        The offset (None: ``0.01 / N``).

    Returns
    -------
    ndarray of shape (N, N/2 + 1)
        The edge matrix U.
    """
    if n_samples < 2 or n_samples % 2:
        raise ValueError(f"n_samples must be an even integer >= 2; got {n_samples!r}")
    m = n_samples // 2
    if delta is None:
        delta = 0.01 / n_samples
    if not 0 < delta < 1.0 / (2 * m + 1):
        raise ValueError(f"delta must lie in (0, 1/(N+1)); got {delta!r}")
    q = np.arange(1, m + 1)  # 1-based column index of the first M columns
    U = np.empty((n_samples, m + 1))
    U[:m, :m] = -1.0 + (2 * q + 1) * delta
    U[:m, 0] = 1.0
    U[:m, m] = -1.0 + delta
    for r in range(1, m + 1):
        row = -1.0 + (2 * q + 1) * delta
        row[r - 1] = -1.0 + 2 * r * delta
        if r < m:
            row[r] = 1.0
        U[m + r - 1, :m] = row
        U[m + r - 1, m] = 1.0 - delta
    return U


def pivot_example() -> NDArray[np.float64]:
    """[KG] Fig. 2.7: a pivot at (row 2, column 3), value 2. Entries are not in [-1, 1]; divide by 3
    to use it as an edge matrix (value 2/3)."""
    return np.array([[0.0, 0.0, 3.0], [1.0, 1.0, 2.0], [0.0, 0.0, 3.0]])


def bad_example(delta: float = 0.01) -> NDArray[np.float64]:
    """[KG] Fig. 2.9 (b): the N = 8 lower-bound matrix, a 9th example with every entry -3 delta, and
    a 6th hypothesis with -delta on rows 1-8 and -2 delta on row 9 (docs/math.md#bad-example).

    Parameters
    ----------
    delta : float, default 0.01
        The offset.

    Returns
    -------
    ndarray of shape (9, 6)
        The edge matrix U.
    """
    base = lpboost_lower_bound(8, delta)
    U = np.vstack([base, np.full((1, base.shape[1]), -3.0 * delta)])
    bad_column = np.r_[np.full(8, -delta), -2.0 * delta][:, None]
    return np.hstack([U, bad_column])
