"""CGBoost, column-generation boosting with an l2 penalty on the weights ([BZB04]; docs/math.md#cgboost).

[BZB04] choose nonnegative weights by a soft-margin problem with a squared-norm penalty, in the
manner of an SVM whose features are the hypotheses:

    min_{w >= 0}  (1/2) ||w||^2 + C sum_n [1 - (U w)_n]_+ .

Its Lagrangian dual has one multiplier d_n in [0, C] per margin constraint. dualboost states the pair
with the usual orientation (a minimisation over d, a maximisation over w, equal values; both are
the negative of [BZB04]'s optimum):

    primal (d-domain):  min_{d in [0, C]^N}  (1/2) ||[U^T d]_+||^2 - 1^T d
    dual   (w-domain):  max_{w >= 0}  -(1/2) ||w||^2 - C sum_n [1 - (U w)_n]_+

The map from d to w is explicit, ``w = [U^T d]_+`` (stationarity in w); d is not unique (the hinge is
piecewise linear). The weights are not normalised (the w-domain is the orthant, as for SoftBoost).
Both sides are convex QPs with a diagonal Hessian: ``method="highs"`` (HiGHS's QP solver, the
fastest: :meth:`CGBoost.solve_quadratic_program`) and the cvxpy methods solve either side.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse
from scipy.optimize import minimize

from dualboost._validation import check_positive, check_vector
from dualboost.problems.base import ColumnIndependent, CvxpyModel, KKTMultipliers, Model
from dualboost.problems.max_edge import DOMAIN_TOL, as_array
from dualboost.solvers.contract import WDomain
from dualboost.solvers.highs import solve_diagonal_qp

__all__ = ["CGBoost", "check_example_weights"]

#: relative tolerances of a tie ``(U w)_n = 1`` tried by :meth:`CGBoost.d_from_w` (w carries noise)
_TIE_TOLERANCES = (1e-8, 1e-5, 1e-3, 1e-1)


def check_example_weights(weights: ArrayLike | None, n: int) -> NDArray[np.float64]:
    """Positive finite weights of the N examples (all 1 when None); a ValueError naming ``weights``.

    Parameters
    ----------
    weights : array-like of shape (N,) or None
        The example weights, None for all 1.
    n : int
        N, the number of examples.

    Returns
    -------
    ndarray of shape (N,)
        The weights, as float64.
    """
    if weights is None:
        return np.ones(n)
    weights = check_vector(weights, "weights", n)
    if np.any(weights <= 0):
        raise ValueError("weights must be positive (an example of weight 0 is an example removed)")
    return weights


class CGBoost(ColumnIndependent, Model):
    """CGBoost over the t hypotheses in ``U`` (module docstring). ``-primal_value`` is [BZB04]'s optimum.

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1] (docs/math.md#notation).
    C : float, default 1.0
        The trade-off between the 2-norm of w and the hinges, > 0.
    weights : array_like of shape (N,), optional
        A positive weight per example (default all 1) multiplying its hinge, ``C sum_n weights_n
        [1 - (U w)_n]_+``, so that the caps of d are ``C weights_n``: integer weights are the problem
        of the data with example n repeated ``weights_n`` times (the copies share a margin).
    """

    name = "cgboost"
    w_domain = WDomain.ORTHANT
    #: the w-side has a hinge: not differentiable; the cvxpy methods solve both sides
    smooth_dual = False
    d_is_unique = False

    def __init__(self, U: ArrayLike, C: float = 1.0, weights: ArrayLike | None = None) -> None:
        super().__init__(U)
        self.C = check_positive(C, "C")
        self.weights = check_example_weights(weights, self.n_samples)
        #: the caps of d, ``C weights``
        self.caps = self.C * self.weights

    def parameters(self) -> dict[str, float]:
        return {"C": self.C}

    # --- objectives --------------------------------------------------------------------------
    def primal_objective(self, d: ArrayLike) -> float:
        d = self._d(d)
        if d.min() < -DOMAIN_TOL or np.max(d - self.caps) > DOMAIN_TOL * max(1.0, float(self.caps.max())):
            return np.inf
        w = np.maximum(self.U.T @ d, 0.0)
        return float(0.5 * w @ w - d.sum())

    def dual_objective(self, w: ArrayLike) -> float:
        w = self._w(w)
        if w.min() < -DOMAIN_TOL:
            return -np.inf
        return float(-0.5 * w @ w - self.caps @ np.maximum(1.0 - self.U @ w, 0.0))

    # --- maps and repairs -----------------------------------------------------------------------
    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """``w = [U^T d]_+``: the stationarity of the Lagrangian in w (docs/math.md#cgboost), exact."""
        d = self._d(d)
        w = np.maximum(self.U.T @ d, 0.0)
        return KKTMultipliers(
            w=w,
            psi=np.zeros(self.n_samples),
            beta=0.0,
            residual=0.0,
            active_w=np.flatnonzero(w > 0),
            active_psi=np.flatnonzero(d >= self.caps),
        )

    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """A primal point on w's complementary-slackness face: ``d_n = C`` where the margin is below
        1, 0 where above, and on the ties the d that minimises the primal with the others fixed (a
        smooth bound-constrained problem in the ties, L-BFGS-B). w carries solver noise, so the ties
        are taken at a few tolerances, the first d whose own pair ``(d, [U^T d]_+)`` is certified is
        returned, else the d with the smallest primal value."""
        margins = self.U @ self._w(w)
        best, best_value = None, np.inf
        for tol in _TIE_TOLERANCES:
            d = np.where(margins < 1.0 - tol, self.caps, 0.0)
            ties = np.flatnonzero(np.abs(margins - 1.0) <= tol)
            if ties.size:
                d[ties] = self._best_on_ties(d, ties)
            value = self.primal_objective(d)
            if value < best_value:
                best, best_value = d, value
            own = self.dual_objective(np.maximum(self.U.T @ d, 0.0))  # the w that d maps to
            if value - own <= 1e-12 * max(1.0, abs(value)):
                break  # (d, [U^T d]_+) is certified optimal: no wider tie set can do better
        return best

    def _best_on_ties(self, d: NDArray[np.float64], ties: NDArray[np.intp]) -> NDArray[np.float64]:
        """``argmin_{x in [0, C]^|T|} (1/2)||[U^T d + U_T^T x]_+||^2 - 1^T x``."""
        base, rows = self.U.T @ d, self.U[ties]

        def objective(x: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            z = np.maximum(base + rows.T @ x, 0.0)
            return 0.5 * float(z @ z) - float(x.sum()), rows @ z - 1.0

        caps = self.caps[ties]
        start = 0.5 * caps
        options = {"ftol": 1e-16, "gtol": 1e-13, "maxiter": 2000}
        result = minimize(
            objective,
            start,
            jac=True,
            bounds=list(zip(np.zeros(ties.size), caps, strict=True)),
            method="L-BFGS-B",
            options=options,
        )
        return np.clip(result.x, 0.0, caps)

    def repair_primal(self, d: ArrayLike) -> tuple[NDArray[np.float64], float]:
        d = self._d(d)
        fixed = np.clip(d, 0.0, self.caps)
        return fixed, float(np.abs(fixed - d).max())

    def repair_dual(self, w: ArrayLike) -> tuple[NDArray[np.float64], float]:
        w = self._w(w)
        fixed = np.maximum(w, 0.0)
        return fixed, float(np.abs(fixed - w).max())

    # --- HiGHS (method="highs") -------------------------------------------------------------------
    #: the sides ``method="highs"`` solves: the w-domain QP only. HiGHS's QP solver is inaccurate on
    #: the d-domain QP (no curvature in d): on a 200 x 30 instance its certified gaps were 1.2e-6,
    #: 1.0e-5 and 6.8e-4 at C = 0.5, 5, 50 (a solve error at the tolerances 1e-10), the w-domain QP's
    #: 3.5e-11 to 3.7e-11
    highs_sides = ("dual",)

    def solve_quadratic_program(self, side: str) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
        """``(d, w, iterations)`` from HiGHS's QP solver on the w-domain QP
        (:func:`~dualboost.solvers.highs.solve_diagonal_qp`; ``side`` must be ``"dual"``,
        :attr:`highs_sides`): variables ``(w, xi)``, minimise ``(1/2)||w||^2 + C 1^T xi`` s.t.
        ``U w + xi >= 1``, ``w, xi >= 0``; d is the multiplier vector of the N rows, in [0, C]."""
        if side not in self.highs_sides:
            raise ValueError(
                f"method='highs' solves CGBoost's w-domain QP only: use side='dual'; got {side!r}"
            )
        n, t = self.U.shape
        rows = sparse.hstack([sparse.csr_matrix(self.U), sparse.identity(n, format="csr")])
        x, duals, iterations = solve_diagonal_qp(
            np.r_[np.zeros(t), self.caps],
            np.zeros(t + n),
            np.full(t + n, np.inf),
            rows,
            np.ones(n),
            np.full(n, np.inf),
            np.r_[np.ones(t), np.zeros(n)],
        )
        return np.clip(duals, 0.0, self.caps), x[:t], iterations

    # --- cvxpy models ---------------------------------------------------------------------------
    def cvxpy_primal(self) -> CvxpyModel:
        d = cp.Variable(self.n_samples, name="d")
        z = cp.Variable(self.n_hypotheses, nonneg=True, name="z")  # z = [U^T d]_+ at the optimum
        edges = z >= self.U.T @ d  # multipliers: w
        problem = cp.Problem(
            cp.Minimize(0.5 * cp.sum_squares(z) - cp.sum(d)), [edges, d >= 0, d <= self.caps]
        )
        return CvxpyModel(problem, lambda: (d.value, as_array(edges.dual_value)))

    def cvxpy_dual(self) -> CvxpyModel:
        w = cp.Variable(self.n_hypotheses, nonneg=True, name="w")
        xi = cp.Variable(self.n_samples, nonneg=True, name="xi")
        margins = xi + self.U @ w >= 1.0  # multipliers: d
        problem = cp.Problem(cp.Maximize(-0.5 * cp.sum_squares(w) - self.caps @ xi), [margins])
        return CvxpyModel(problem, lambda: (as_array(margins.dual_value), w.value))
