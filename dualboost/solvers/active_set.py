"""KKT active-set recovery of the dual variables from a primal point ([KG] Appendix A, spec B.13).

With the primal point d known, stationarity of the Lagrangian is *linear* in the multipliers:

    grad_reg(d)_n + sum_{q in A_w} w_q B[n, q] + offset_n + psi_n + beta = 0     (every n)

with ``psi_n = 0`` off the capped set ``A_psi = {n : d_n >= 1/nu - tol}`` (spec B.8.5). The
uncapped rows (and ``sum w = 1`` where the model has it) determine ``(w, beta)`` by bounded least
squares (``w >= 0`` where the model says so); each capped row then gives its ``psi_n``. The
system is overdetermined but consistent at an exact optimum, so the residual measures how
well the active sets and d fit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import lsq_linear

from dualboost.problems.base import KKTMultipliers

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
) -> KKTMultipliers:
    """Solve ``B[:, active_w] w_A + beta = rhs`` on uncapped rows for ``(w_A, beta)``.

    ``rhs = -(grad_reg(d) + offset)``. ``rows`` masks out rows that carry no information (e.g.
    ``d_n = 0`` where ``ln d_n`` is undefined). ``sum_to_one`` adds the row ``sum w_A = 1``,
    weighted like the mean row so that neither dominates. Returns the full ``w`` (length
    ``n_weights``), ``psi`` (zero off ``capped``), ``beta`` and the residual of every row used.
    """
    n = B.shape[0]
    use = ~capped if rows is None else (~capped & rows)
    k = active_w.size
    A = np.hstack([B[use][:, active_w], np.ones((np.count_nonzero(use), 1))])
    b = rhs[use]
    if sum_to_one:
        weight = np.sqrt(max(1, A.shape[0]))
        A = np.vstack([A, np.r_[np.full(k, weight), 0.0]])
        b = np.r_[b, weight]
    lower = np.r_[np.zeros(k) if nonneg else np.full(k, -np.inf), -np.inf]
    if A.shape[0] == 0:
        raise ValueError("no uncapped rows: the active-set system is empty")
    sol = lsq_linear(A, b, bounds=(lower, np.full(k + 1, np.inf)), method="bvls", tol=1e-14)
    coef = sol.x
    w = np.zeros(n_weights)
    w[active_w] = coef[:k]
    beta = float(coef[k])
    margins = B[:, active_w] @ coef[:k]
    psi = np.zeros(n)
    psi[capped] = rhs[capped] - margins[capped] - beta
    residual = float(np.abs(A @ coef - b).max()) if A.size else 0.0
    return KKTMultipliers(
        w=w,
        psi=psi,
        beta=beta,
        residual=residual,
        active_w=np.asarray(active_w),
        active_psi=np.flatnonzero(capped),
    )
