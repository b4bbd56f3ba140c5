"""KKT active-set recovery of the dual variables from a primal point ([KG] App. A).

docs/math.md#active-set-method has the method.

With the primal point d known, stationarity of the Lagrangian is *linear* in the multipliers:

    grad_reg(d)_n + sum_{q in A_w} w_q B[n, q] + offset_n + psi_n + beta = 0     (every n)

with ``psi_n = 0`` off the capped set ``A_psi = {n : d_n >= 1/nu - tol}`` (docs/math.md#kkt-recovery). The
uncapped rows (and ``sum w = 1`` where the model has it) determine ``(w, beta)`` by bounded least
squares (``w >= 0`` where the model says so); each capped row then gives its ``psi_n``. The
system is overdetermined but consistent at an exact optimum, so the residual measures how
well the active sets and d fit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import lsq_linear

from dualboost.solvers.contract import KKTMultipliers

__all__ = ["recover_multipliers"]


def recover_multipliers(
    B: NDArray[np.float64],
    rhs: NDArray[np.float64],
    active_w: NDArray[np.intp],
    capped: NDArray[np.bool_],
    *,
    n_weights: int,
    nonneg: bool,
    sum_to_one: bool,
    rows: NDArray[np.bool_] | None = None,
    row_weights: NDArray[np.float64] | None = None,
    with_beta: bool = True,
) -> KKTMultipliers:
    """Solve ``B[:, active_w] w_A + beta = rhs`` on uncapped rows for ``(w_A, beta)``
    (``with_beta=False``: beta = 0, for a d-domain without the constraint ``sum d = 1``).

    ``rhs = -(grad_reg(d) + offset)``. ``rows`` masks out rows that carry no information (e.g.
    ``d_n = 0`` where ``ln d_n`` is undefined). ``row_weights`` (the models pass d) weight the
    rows: an absolute error delta in d_n perturbs ``ln d_n`` by ``delta / d_n``, so weighting row n
    by d_n makes every row equally trustworthy when d carries solver noise; an exact d solves the
    system exactly whatever the weights. ``sum_to_one`` adds the row ``sum w_A = 1`` with the
    largest row weight. Returns the full ``w`` (length ``n_weights``; renormalised onto
    ``sum w = 1`` when asked), ``psi`` (zero off ``capped``), ``beta`` and the residual: the max
    of the weighted row residuals, weights scaled to max 1.

    Parameters
    ----------
    B : ndarray of shape (N, T)
        The matrix of the stationarity system.
    rhs : ndarray of shape (N,)
        Its right-hand side, ``-(grad_reg(d) + offset)``.
    active_w : ndarray of int
        The columns of the active weights ``w_A``.
    capped : ndarray of bool
        The rows whose cap is binding (their ``psi`` is free).
    n_weights : int
        The length of the full ``w``.
    nonneg : bool
        Whether the weights are constrained to be nonnegative.
    sum_to_one : bool
        Add the row ``sum w_A = 1`` and renormalise ``w`` onto it.
    rows : ndarray of bool or None
        The rows that carry information, None for all.
    row_weights : ndarray or None
        The rows' weights (the models pass d), None for equal ones.
    with_beta : bool
        Solve for beta (False: beta = 0).

    Returns
    -------
    KKTMultipliers
        ``w``, ``psi``, ``beta`` and the weighted residual.
    """
    n = B.shape[0]
    use = ~capped if rows is None else (~capped & rows)
    k = active_w.size
    scale = np.ones(n) if row_weights is None else np.asarray(row_weights, dtype=np.float64)
    scale = scale[use] / max(float(scale[use].max(initial=0.0)), np.finfo(float).tiny)
    A = np.hstack([B[use][:, active_w], np.ones((np.count_nonzero(use), 1))]) * scale[:, None]
    b = rhs[use] * scale
    if sum_to_one:
        A = np.vstack([A, np.r_[np.ones(k), 0.0]])
        b = np.r_[b, 1.0]
    lower = np.r_[np.zeros(k) if nonneg else np.full(k, -np.inf), -np.inf]
    if A.shape[0] == 0:
        raise ValueError("no uncapped rows: the active-set system is empty")
    if not with_beta:
        A, lower = A[:, :k], lower[:k]
    sol = lsq_linear(A, b, bounds=(lower, np.full(lower.size, np.inf)), method="bvls", tol=1e-14)
    coef = sol.x if with_beta else np.r_[sol.x, 0.0]
    residual = float(np.abs(A @ sol.x - b).max()) if A.size else 0.0
    if sum_to_one and coef[:k].sum() > 0:
        coef[:k] /= coef[:k].sum()
    w = np.zeros(n_weights)
    w[active_w] = coef[:k]
    beta = float(coef[k])
    margins = B[:, active_w] @ coef[:k]
    psi = np.zeros(n)
    psi[capped] = rhs[capped] - margins[capped] - beta
    return KKTMultipliers(
        w=w,
        psi=psi,
        beta=beta,
        residual=residual,
        active_w=np.asarray(active_w),
        active_psi=np.flatnonzero(capped),
    )
