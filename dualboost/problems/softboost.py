"""SoftBoost ([KG] Sec 3.1; docs/math.md#softboost, model M4); nu = 1 is TotalBoost.

    primal:  min_{d in S^N, d <= 1/nu}  Delta(d, d0)   s.t.  u^q . d <= g  (q = 1..t)         (Eq. 3.1)
    dual:    max_{w >= 0, psi >= 0}  -ln sum_n d0_n e^{-(U w)_n - psi_n} - g sum w - (1/nu) sum psi
                                                                          (Lemma 3.1, corrected)

with the edge bound ``g = gamma_hat - eps``. The w of SoftBoost is not normalised (erratum KG-5,
docs/math.md#erratum-kg-5). psi is eliminated exactly by the capped softmax (eta = 1), ``d_from_w`` is
Eq. 3.2. The primal is infeasible when ``g`` is below the capped LP value P_LP (LPBoost's optimum); then
the dual is unbounded and ``solve`` reports ``status="infeasible"``, certified by the LP.
"""

from __future__ import annotations

from functools import cached_property

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_distribution, check_scalar
from dualboost.conjugates import CappedRelativeEntropy, project_capped_simplex
from dualboost.problems.base import CvxpyModel, KKTMultipliers, Model
from dualboost.problems.lpboost import min_max_edge
from dualboost.problems.max_edge import DOMAIN_TOL, as_array
from dualboost.solvers.contract import WDomain

__all__ = ["SoftBoost"]


class SoftBoost(Model):
    """The SoftBoost subproblem ([KG] Alg. 3.1, Eqs. 3.1-3.5; docs/math.md#softboost): the relative-entropy
    projection of d0 onto the capped distributions whose edges are all at most ``gamma_hat - eps``.

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1] (docs/math.md#notation).
    nu : float, default 1.0
        The capping in [1, N] (1 is TotalBoost's hard margin).
    gamma_hat : float, default 1.0
        The smallest edge seen so far.
    eps : float, default 0.0
        The precision: the edge bound is ``gamma_hat - eps``.
    d0 : array_like of shape (N,), optional
        The prior distribution (uniform when None).
    """

    name = "softboost"
    w_domain = WDomain.ORTHANT

    def __init__(
        self,
        U: ArrayLike,
        nu: float = 1.0,
        gamma_hat: float = 1.0,
        eps: float = 0.0,
        d0: ArrayLike | None = None,
    ):
        super().__init__(U)
        self.regularizer = CappedRelativeEntropy(check_distribution(d0, self.n_samples), nu, 1.0)
        self.nu, self.d0 = self.regularizer.nu, self.regularizer.d0
        self.gamma_hat = check_scalar(gamma_hat, "gamma_hat")
        self.eps = check_scalar(eps, "eps")
        if self.eps < 0:
            raise ValueError(f"eps must be >= 0; got {eps!r}")
        self.edge_bound = self.gamma_hat - self.eps

    def parameters(self) -> dict[str, float]:
        return {"nu": self.nu, "g": self.edge_bound}

    # --- feasibility: the LP value and a Slater point --------------------------------------
    @cached_property
    def lp_value(self) -> tuple[float, NDArray[np.float64]]:
        """``(P_LP, d_LP)``: the capped min-max edge and a minimiser (HiGHS)."""
        cap = 1.0 / self.nu
        value, d, _ = min_max_edge(self.U, np.zeros(self.n_samples), np.full(self.n_samples, cap))
        return value, np.clip(d, 0.0, cap)

    def is_feasible(self) -> bool:
        """Whether some capped d has every edge <= g, i.e. ``P_LP <= g`` (the proof of [KG] Thm 3.2,
        docs/math.md#softboost)."""
        return self.lp_value[0] <= self.edge_bound + DOMAIN_TOL

    # --- objectives and maps -------------------------------------------------------------
    def primal_objective(self, d: ArrayLike) -> float:
        d = self._d(d)
        if (self.U.T @ d).max() > self.edge_bound + DOMAIN_TOL:
            return np.inf
        return self.regularizer.value(d)

    def dual_objective(self, w: ArrayLike) -> float:
        w = self._w(w)
        if w.min() < -DOMAIN_TOL:
            return -np.inf
        return -self.regularizer.conjugate(-(self.U @ w)) - self.edge_bound * w.sum()

    def dual_value_and_grad(self, w, regularizer=None):
        value, d = (regularizer or self.regularizer).conjugate_and_grad(-(self.U @ w))
        return -value - self.edge_bound * w.sum(), self.U.T @ d - self.edge_bound, d

    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """``d`` proportional to ``d0 e^{-U w - psi}`` with the optimal psi (Eq. 3.2)."""
        return self.regularizer.conjugate_grad(-(self.U @ self._w(w)))

    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """Active sets ``A_w = {q : u^q.d >= g - tol}``, caps as for ERLPBoost; ``w >= 0`` free in scale
        (the KKT conditions of docs/math.md#softboost, eta = 1). ``tol=None`` tries several tolerances
        and keeps the best certified w."""
        d = self._d(d)
        edges = self.U.T @ d

        def recover(t: float) -> KKTMultipliers:
            active = np.flatnonzero(edges >= self.edge_bound - t)
            return self._stationarity_multipliers(d, self.U, active, tol=t, nonneg=True, sum_to_one=False)

        return self._tolerance_aware(recover, tol)

    # --- feasibility repair ----------------------------------------------------------------
    def repair_primal(self, d: ArrayLike) -> tuple[NDArray[np.float64], float]:
        """Project onto the capped simplex, then mix with the LP minimiser (a Slater point when
        ``P_LP < g``) just enough to satisfy every edge constraint."""
        d = self._d(d)
        fixed = project_capped_simplex(d, self.nu)
        moved = float(np.abs(fixed - d).max())
        excess = self.U.T @ fixed - self.edge_bound
        violation = max(moved, float(excess.max(initial=0.0)))
        if excess.max() > 0:
            p_lp, d_lp = self.lp_value
            slack = self.edge_bound - self.U.T @ d_lp
            if p_lp < self.edge_bound:
                need = excess > 0
                lam = float(np.max(excess[need] / (excess[need] + slack[need])))
                fixed = (1.0 - lam) * fixed + lam * d_lp
        return fixed, violation

    def repair_dual(self, w: ArrayLike) -> tuple[NDArray[np.float64], float]:
        w = self._w(w)
        return np.clip(w, 0.0, None), float(max(0.0, -w.min()))

    # --- cvxpy models --------------------------------------------------------------------
    def cvxpy_primal(self) -> CvxpyModel:
        d = cp.Variable(self.n_samples, name="d")
        reg, cons = self.regularizer.cvxpy_value(d)
        edges = self.U.T @ d <= self.edge_bound  # multipliers: w
        problem = cp.Problem(cp.Minimize(reg), [edges, *cons])
        return CvxpyModel(problem, lambda: (d.value, edges.dual_value))

    def cvxpy_dual(self) -> CvxpyModel:
        w = cp.Variable(self.n_hypotheses, nonneg=True, name="w")
        objective, cons, link = self._dual_objective_expr(self.U @ w)
        problem = cp.Problem(cp.Maximize(objective - self.edge_bound * cp.sum(w)), cons)
        return CvxpyModel(problem, lambda: (as_array(link.dual_value), w.value))
