"""Independent reference computations shared by the tests: the two LPs of [KG] Sec 2.2, written
out directly for HiGHS (not through the library), at tight tolerances.

HiGHS's default feasibility tolerances (1e-7) accept a vertex up to 1e-7 from the optimum; at
1e-10 its optimum is accurate to ~1e-9, which is what the tests' LP tolerances assume.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def lp_eq22(U, nu):
    """[KG] Eq. 2.2 in (w, psi, rho): max rho - (1/nu) sum psi s.t. U w + psi >= rho; (value, w)."""
    n, t = U.shape
    c = np.r_[np.zeros(t), np.full(n, 1.0 / nu), -1.0]
    a_ub = np.hstack([-U, -np.eye(n), np.ones((n, 1))])
    a_eq = np.r_[np.ones(t), np.zeros(n), 0.0][None, :]
    bounds = [(0, None)] * (t + n) + [(None, None)]
    res = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs", options=HIGHS
    )
    assert res.status == 0
    return -res.fun, res.x[:t]


def lp_eq23(U, nu):
    """[KG] Eq. 2.3 in (d, gamma): min gamma s.t. U^T d <= gamma, sum d = 1, 0 <= d <= 1/nu; (value, d)."""
    n, t = U.shape
    c = np.r_[np.zeros(n), 1.0]
    a_ub = np.hstack([U.T, -np.ones((t, 1))])
    a_eq = np.r_[np.ones(n), 0.0][None, :]
    bounds = [(0, 1.0 / nu)] * n + [(None, None)]
    res = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(t), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs", options=HIGHS
    )
    assert res.status == 0
    return res.fun, np.clip(res.x[:n], 0.0, 1.0 / nu)


def capped_vertex(rng, n, nu):
    """A random vertex of {d : sum d = 1, 0 <= d <= 1/nu}: floor(nu) entries at 1/nu, the rest on one."""
    k = int(np.floor(nu))
    perm = rng.permutation(n)
    d = np.zeros(n)
    d[perm[:k]] = 1.0 / nu
    if k < n:
        d[perm[k]] = 1.0 - k / nu
    return d
