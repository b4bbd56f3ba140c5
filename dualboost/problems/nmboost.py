"""NM-Boost, negative-margin boosting ([AFAHV25]; docs/math.md#nm-boost), as a pair of linear
programs.

The weights maximise a multiple of the summed margins minus the shortfall of each margin below a
threshold tau (colboost takes tau = 1/t for a pool of t hypotheses):

    dual (w-domain):    max_{w in S^t}  lam 1^T U w - sum_n [tau - (U w)_n]_+
    primal (d-domain):  min_{d in [0, 1]^N}  max_q (U^T (d + lam 1))_q - tau 1^T d

(the primal is the Lagrangian dual of the LP form of the w-problem, the multipliers d of its
constraints ``xi_n + (U w)_n >= tau`` lying in [0, 1]). Both are LPs: the cvxpy methods solve
either side, and d is not unique (:meth:`NMBoost.d_from_w` returns the best point of w's
complementary-slackness face).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linprog

from dualboost._validation import check_positive
from dualboost.problems.base import CvxpyModel, KKTMultipliers, Model
from dualboost.problems.max_edge import DOMAIN_TOL, MaxEdgeWeights, as_array

__all__ = ["NMBoost"]

#: relative tolerances of a tie ``(U w)_n = tau`` tried by :meth:`NMBoost.d_from_w` (w carries noise)
_TIE_TOLERANCES = (1e-9, 1e-7, 1e-5)


class NMBoost(MaxEdgeWeights, Model):
    """NM-Boost over the t hypotheses in ``U`` (N x t, entries in [-1, 1]): ``lam`` > 0 weighs the
    summed margins, ``tau`` > 0 is the margin below which an example's shortfall counts (None: 1/t,
    as colboost). Module docstring for the two sides."""

    name = "nmboost"
    #: the dual is piecewise linear: no gradient method; the cvxpy methods solve the LPs
    smooth_dual = False
    d_is_unique = False

    def __init__(self, U: ArrayLike, lam: float = 1.0, tau: float | None = None) -> None:
        super().__init__(U)
        self.lam = check_positive(lam, "lam")
        self.tau = 1.0 / self.n_hypotheses if tau is None else check_positive(tau, "tau")
        #: ``U^T 1``: the shift ``lam U^T 1`` of every edge (once, not a pass over U per evaluation)
        self._column_sums = self.U.sum(axis=0)

    def parameters(self) -> dict[str, float]:
        return {"lam": self.lam, "tau": self.tau}

    # --- objectives --------------------------------------------------------------------------
    def _in_box(self, d: NDArray[np.float64]) -> bool:
        return bool(d.min() >= -DOMAIN_TOL and d.max() <= 1.0 + DOMAIN_TOL)

    def primal_objective(self, d: ArrayLike) -> float:
        d = self._d(d)
        if not self._in_box(d):
            return np.inf
        return self.primal_from_edges(d, self.U.T @ d)

    def primal_from_edges(self, d: NDArray[np.float64], edges: NDArray[np.float64]) -> float:
        """The primal at d from ``edges = U^T d`` (the shifted edges add ``lam 1^T U``)."""
        if not self._in_box(d):
            return np.inf
        return float((edges + self.lam * self._column_sums).max() - self.tau * d.sum())

    def dual_objective(self, w: ArrayLike) -> float:
        w = self._w(w)
        if not self.on_simplex(w):
            return -np.inf
        margins = self.U @ w
        return float(self.lam * margins.sum() - np.maximum(self.tau - margins, 0.0).sum())

    # --- maps and repairs -----------------------------------------------------------------------
    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """The best primal point on w's complementary-slackness face: ``d_n = 1`` where the margin is
        below tau, 0 where above, and on the ties the d that minimises the primal (a small LP, HiGHS
        through scipy); ties are tried at a few relative tolerances (w carries solver noise) and the
        d with the smallest primal value is returned."""
        margins = self.U @ self._w(w)
        best, best_value = None, np.inf
        for tol in _TIE_TOLERANCES:
            slack = tol * max(1.0, self.tau)
            d = (margins < self.tau - slack).astype(np.float64)
            ties = np.flatnonzero(np.abs(margins - self.tau) <= slack)
            if ties.size:
                d[ties] = self._best_on_ties(d, ties)
            value = self.primal_objective(d)
            if value < best_value:
                best, best_value = d, value
        return best

    def _best_on_ties(self, d: NDArray[np.float64], ties: NDArray[np.intp]) -> NDArray[np.float64]:
        """``argmin_{x in [0,1]^|T|} max_q (U^T d + U_T^T x + lam U^T 1)_q - tau 1^T x`` as an LP in
        ``(x, gamma)``."""
        base = self.U.T @ d + self.lam * self._column_sums
        k = ties.size
        cost = np.r_[np.full(k, -self.tau), 1.0]
        A = np.hstack([self.U[ties].T, -np.ones((self.n_hypotheses, 1))])
        bounds = [(0.0, 1.0)] * k + [(None, None)]
        result = linprog(cost, A_ub=A, b_ub=-base, bounds=bounds, method="highs")
        if result.status != 0:
            raise RuntimeError(f"the tie LP of NMBoost.d_from_w failed: {result.message}")
        return np.clip(result.x[:k], 0.0, 1.0)

    def repair_primal(self, d: ArrayLike) -> tuple[NDArray[np.float64], float]:
        d = self._d(d)
        fixed = np.clip(d, 0.0, 1.0)
        return fixed, float(np.abs(fixed - d).max())

    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """w from d: on the examples strictly inside the box the margin is tau, ``U_A w = tau`` on
        them with w in the simplex on the hypotheses of maximal shifted edge (docs/math.md#kkt-recovery;
        the examples at 0 or 1 give inequalities only and are left out)."""
        from dualboost.solvers.active_set import recover_multipliers

        d = self._d(d)
        edges = self.U.T @ d + self.lam * self._column_sums

        def recover(t: float) -> KKTMultipliers:
            active = np.flatnonzero(edges >= edges.max() - t)
            inside = (d > t) & (d < 1.0 - t)
            return recover_multipliers(
                self.U,
                np.full(self.n_samples, self.tau),
                active,
                np.zeros(self.n_samples, dtype=bool),
                n_weights=self.n_hypotheses,
                nonneg=True,
                sum_to_one=True,
                rows=inside,
                with_beta=False,
            )

        return self._tolerance_aware(recover, tol)

    # --- cvxpy models ---------------------------------------------------------------------------
    def cvxpy_primal(self) -> CvxpyModel:
        d = cp.Variable(self.n_samples, name="d")
        gamma = cp.Variable(name="gamma")
        edges = self.U.T @ d + self.lam * self._column_sums <= gamma  # multipliers: w
        problem = cp.Problem(cp.Minimize(gamma - self.tau * cp.sum(d)), [edges, d >= 0, d <= 1])
        return CvxpyModel(problem, lambda: (d.value, edges.dual_value))

    def cvxpy_dual(self) -> CvxpyModel:
        w = cp.Variable(self.n_hypotheses, nonneg=True, name="w")
        xi = cp.Variable(self.n_samples, nonneg=True, name="xi")
        margins = self.U @ w
        shortfall = xi + margins >= self.tau  # multipliers: d
        objective = cp.Maximize(self.lam * cp.sum(margins) - cp.sum(xi))
        problem = cp.Problem(objective, [cp.sum(w) == 1, shortfall])
        return CvxpyModel(problem, lambda: (as_array(shortfall.dual_value), w.value))
