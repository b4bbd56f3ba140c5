"""The corrective subproblems: one new hypothesis against the old combination
(models M8, M9 of docs/math.md#model-catalogue).

With the previous weights ``w_prev`` on the first t-1 columns of U, the old combined margin
``v = U[:, :t-1] w_prev``, the new column ``u = U[:, t-1]`` and ``x = u - v``:

    primal:  min_d  u . d + f(d)   s.t.  x . d = 0                     ([KG] Eqs. 4.6, 4.12)
    dual:    max_{a in R}  -f*(-(v + a x))                              ([KG] Eqs. 4.7, 4.13)

where ``f`` is ``(1/eta) Delta + I{capped simplex}`` (Corrective ERLPBoost, M8) or
``(1/eta) Delta_{2,nu} + I{sum d = 1}`` (Corrective Binary ERLPBoost, M9), psi / beta eliminated
by the conjugate library. The w-domain is the line ``w(a) = ((1 - a) w_prev, a)``, so that
``U w(a) = v + a x`` (the change of variables of Lemma 4.2 with its erratum fixed,
docs/math.md#erratum-kg-15); ``a`` is the exact line-search weight of the new hypothesis.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_distribution, check_vector
from dualboost.conjugates import (
    CappedBinaryRelativeEntropy,
    CappedRelativeEntropy,
    CappedSimplex,
    ConvexFunction,
    capped_simplex_support,
    project_capped_simplex,
)
from dualboost.problems.base import CvxpyModel, KKTMultipliers, Model
from dualboost.problems.max_edge import DOMAIN_TOL, as_array
from dualboost.solvers.contract import WDomain

__all__ = ["CorrectiveERLPBoost", "CorrectiveBinaryERLPBoost"]


class _CorrectiveModel(Model):
    """Shared algebra of M8 and M9; subclasses set ``regularizer``."""

    regularizer: ConvexFunction
    w_domain = WDomain.LINE

    def __init__(self, U: ArrayLike, w_prev: ArrayLike):
        super().__init__(U)
        if self.n_hypotheses < 2:
            raise ValueError(
                "U must have at least 2 columns: the previous hypotheses and the new one (last column)"
            )
        w_prev = check_vector(w_prev, "w_prev", self.n_hypotheses - 1)
        if w_prev.min() < 0 or abs(w_prev.sum() - 1.0) > 1e-9:
            raise ValueError("w_prev must lie in the simplex (w_prev >= 0, sum w_prev = 1)")
        self.w_prev = w_prev / w_prev.sum()
        self.old_margins = self.U[:, :-1] @ self.w_prev  # v
        self.new_column = self.U[:, -1]  # u
        self.direction = self.new_column - self.old_margins  # x = u - v

    def parameters(self) -> dict[str, float]:
        return {"nu": self.regularizer.nu, "eta": self.regularizer.eta}

    def weights(self, a: float) -> NDArray[np.float64]:
        """The full w-domain point ``((1 - a) w_prev, a)`` of the line parameter ``a``."""
        return np.r_[(1.0 - a) * self.w_prev, a]

    def line_start(self) -> float:
        """The clipped corrective step of [KG] Alg. 4.1 (b), ``clip(x . d_prev / (eta ||x||_inf^2), 0,
        1)`` with ``d_prev = d(w_prev)``: where ``method="auglag"`` starts its search on the line."""
        d_prev = self.d_from_w(self.weights(0.0))
        norm = np.abs(self.direction).max()
        if norm == 0:
            return 0.0
        return float(np.clip(self.direction @ d_prev / (self.regularizer.eta * norm**2), 0, 1))

    def _line_parameter(self, w: NDArray[np.float64]) -> tuple[float, float]:
        """``a = w[-1]`` and the distance of ``w`` from the line."""
        a = float(w[-1])
        return a, float(np.abs(w - self.weights(a)).max())

    def is_feasible(self) -> bool:
        """Whether some capped d has ``x . d = 0``: the support function of the capped simplex
        (docs/math.md#capped-simplex-support) must be >= 0 at ``x`` and at ``-x``."""
        nu = self.regularizer.nu
        return (
            capped_simplex_support(self.direction, nu) >= 0
            and capped_simplex_support(-self.direction, nu) >= 0
        )

    # --- objectives and maps -------------------------------------------------------------
    def primal_objective(self, d: ArrayLike) -> float:
        d = self._d(d)
        if abs(self.direction @ d) > DOMAIN_TOL:
            return np.inf
        return float(self.new_column @ d + self.regularizer.value(d))

    def dual_objective(self, w: ArrayLike) -> float:
        a, off_line = self._line_parameter(self._w(w))
        if off_line > DOMAIN_TOL:
            return -np.inf
        return -self.regularizer.conjugate(-(self.old_margins + a * self.direction))

    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """``d = grad f*(-(v + a x))`` ([KG] Eqs. 4.8, 4.14)."""
        a, _ = self._line_parameter(self._w(w))
        return self.regularizer.conjugate_grad(-(self.old_margins + a * self.direction))

    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """Stationarity ``grad f(d) + v + a x + psi + beta = 0``: least squares in (a, beta) on the
        uncapped rows (a is free: it multiplies the equality constraint). ``tol`` decides which
        coordinates count as capped; None tries several and keeps the best certified w."""
        d = self._d(d)

        def recover(t: float) -> KKTMultipliers:
            kkt = self._stationarity_multipliers(
                d,
                self.direction[:, None],
                np.array([0]),
                offset=self.old_margins,
                tol=t,
                nonneg=False,
                sum_to_one=False,
            )
            kkt.w = self.weights(float(kkt.w[0]))
            kkt.active_w = np.arange(self.n_hypotheses)
            return kkt

        return self._tolerance_aware(recover, tol)

    # --- feasibility repair ----------------------------------------------------------------
    def repair_primal(self, d: ArrayLike) -> tuple[NDArray[np.float64], float]:
        """Project onto the capped simplex, then mix with the extreme point of the other sign of
        ``x . d`` (from the capped-simplex support function) to restore ``x . d = 0``."""
        d = self._d(d)
        fixed = project_capped_simplex(d, self.regularizer.nu)
        residual = float(self.direction @ fixed)
        violation = max(float(np.abs(fixed - d).max()), abs(residual))
        if residual != 0.0:
            sign = -np.sign(residual)
            extreme = CappedSimplex(self.regularizer.nu).conjugate_grad(sign * self.direction)
            other = float(self.direction @ extreme)
            if other * residual < 0:
                lam = residual / (residual - other)
                fixed = (1.0 - lam) * fixed + lam * extreme
        return fixed, violation

    def repair_dual(self, w: ArrayLike) -> tuple[NDArray[np.float64], float]:
        a, off_line = self._line_parameter(self._w(w))
        return self.weights(a), off_line

    # --- cvxpy models --------------------------------------------------------------------
    def cvxpy_primal(self) -> CvxpyModel:
        d = cp.Variable(self.n_samples, name="d")
        reg, cons = self.regularizer.cvxpy_value(d)
        balance = self.direction @ d == 0  # multiplier lam, a = 1 + lam
        problem = cp.Problem(cp.Minimize(self.new_column @ d + reg), [balance, *cons])

        def readout():
            lam = balance.dual_value
            return d.value, None if lam is None else self.weights(1.0 + float(lam))

        return CvxpyModel(problem, readout)

    def cvxpy_dual(self) -> CvxpyModel:
        a = cp.Variable(name="a")
        objective, cons, link = self._dual_objective_expr(self.old_margins + a * self.direction)
        problem = cp.Problem(cp.Maximize(objective), cons)

        def readout():
            return as_array(link.dual_value), None if a.value is None else self.weights(float(a.value))

        return CvxpyModel(problem, readout)


class CorrectiveERLPBoost(_CorrectiveModel):
    """Model M8 ([KG] Eqs. 4.6-4.8; docs/math.md#corrective-erlpboost): ERLPBoost's subproblem over the
    segment from ``w_prev`` to the new hypothesis.

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix; its last column is the new hypothesis's.
    w_prev : array_like, shape (t - 1,)
        The weights of the previous iteration over the first t - 1 columns.
    nu : float, default 1.0
        The capping in [1, N].
    eta : float, default 1.0
        The regularisation, > 0.
    d0 : array_like of shape (N,), optional
        The prior distribution (uniform when None).
    """

    name = "corrective_erlpboost"

    def __init__(self, U, w_prev, nu: float = 1.0, eta: float = 1.0, d0: ArrayLike | None = None):
        super().__init__(U, w_prev)
        self.regularizer = CappedRelativeEntropy(check_distribution(d0, self.n_samples), nu, eta)
        self.nu, self.eta, self.d0 = self.regularizer.nu, self.regularizer.eta, self.regularizer.d0


class CorrectiveBinaryERLPBoost(_CorrectiveModel):
    """Model M9 ([KG] Eqs. 4.12-4.14; docs/math.md#corrective-binary-erlpboost): as
    :class:`CorrectiveERLPBoost` with the binary relative entropy.

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix; its last column is the new hypothesis's.
    w_prev : array_like, shape (t - 1,)
        The weights of the previous iteration over the first t - 1 columns.
    nu : float, default 1.0
        The capping in [1, N] (below N: the binary entropy).
    eta : float, default 1.0
        The regularisation, > 0.
    d0 : array_like of shape (N,), optional
        The prior distribution (uniform when None).
    """

    name = "corrective_binary_erlpboost"

    def __init__(self, U, w_prev, nu: float = 1.0, eta: float = 1.0, d0: ArrayLike | None = None):
        super().__init__(U, w_prev)
        self.regularizer = CappedBinaryRelativeEntropy(check_distribution(d0, self.n_samples), nu, eta)
        self.nu, self.eta, self.d0 = self.regularizer.nu, self.regularizer.eta, self.regularizer.d0
