"""MDBoost, margin-distribution boosting ([SL] Eq. 6 with the identity in place of the margins'
covariance, as colboost solves it; docs/math.md#mdboost), as a max-edge pair.

[SL] maximise the mean margin minus half the spread of the margins over ensembles of total weight D:

    max_{w >= 0, sum w = D}  1^T rho - (1/2) ||rho||^2,       rho = U w   (the margins).

With ``w = D v`` the objective is ``D^2 (c^T U v - (1/2) ||U v||^2)`` with ``c = 1/D``, which is
``-f*(-U v)`` for ``f(d) = (1/2) ||d - c||^2`` (``f*(theta) = (1/2)||theta||^2 + c^T theta``). So MDBoost
is the max-edge pair (``MaxEdgeModel``) with this f and d free (no simplex, no caps):

    primal (d-domain):  min_{d in R^N}  max_q (U^T d)_q + (1/2) ||d - 1/D||^2
    dual   (w-domain):  max_{v in S^t}  (1/D) 1^T U v - (1/2) ||U v||^2

and ``d = grad f*(-U v) = 1/D - U v``: an example's weight falls linearly with its margin, and is
negative past the margin 1/D (there the spread term pushes the margin back). The objective of
[SL] at ``w = D v`` is ``D^2`` times the dual value (:meth:`MDBoost.paper_objective`).

The dual is a concave quadratic: its Hessian ``-U_S^T U_S`` needs no regulariser curvature, so
``method="auglag"`` solves it; the cvxpy methods solve both sides.

Example weights ``k > 0`` (sample weights) weigh each margin in both terms of [SL]'s objective,
``sum_n k_n rho_n - (1/2) sum_n k_n rho_n^2``. Then ``f(d) = sum_n (d_n - k_n/D)^2 / (2 k_n)``,
``f*(theta) = (1/2) sum_n k_n theta_n^2 + (1/D) k^T theta``, ``d = k (1/D - U v)`` and the dual
Hessian is ``-U_S^T diag(k) U_S``. Integer weights are the problem of the data with example n
repeated ``k_n`` times: the copies share a margin, and the optimal d of the copies are equal (f is
strictly convex), so ``k_n`` copies of weight ``x/k_n`` give ``k_n (x/k_n - 1/D)^2 / 2``, the term above
(docs/math.md#mdboost).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_positive
from dualboost.conjugates import Dilated, HalfSquaredNorm, Shifted
from dualboost.problems.base import ColumnIndependent, KKTMultipliers
from dualboost.problems.cgboost import check_example_weights
from dualboost.problems.kernels import ColumnProducts, gram_parts
from dualboost.problems.max_edge import MaxEdgeModel

__all__ = ["MDBoost"]


class MDBoost(ColumnIndependent, MaxEdgeModel):
    """MDBoost over the t hypotheses in ``U`` ([SL]; module docstring): ``w`` in the simplex is
    ``w_[SL] / D``.

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1] (docs/math.md#notation).
    D : float, default 1.0
        The total weight of [SL], > 0.
    weights : array_like of shape (N,), optional
        A positive weight per example (default all 1) on its margin in both terms (integer weights are
        repeated examples).
    """

    name = "mdboost"
    #: the dual is a concave quadratic with the Hessian below (no regulariser curvature needed)
    smooth_dual = True

    def __init__(self, U: ArrayLike, D: float = 1.0, weights: ArrayLike | None = None) -> None:
        super().__init__(U)
        self.D = check_positive(D, "D")
        self.weights = check_example_weights(weights, self.n_samples)
        if np.all(self.weights == 1.0):  # (1/2)||d - 1/D||^2
            self.regularizer = Shifted(HalfSquaredNorm(2), np.full(self.n_samples, -1.0 / self.D))
        else:  # sum (d - k/D)^2 / (2k) = (1/2)||d / sqrt(k) - sqrt(k)/D||^2
            root = np.sqrt(self.weights)
            self.regularizer = Dilated(Shifted(HalfSquaredNorm(2), -root / self.D), 1.0 / root)

    def parameters(self) -> dict[str, float]:
        return {"D": self.D}

    def paper_objective(self, w: ArrayLike) -> float:
        """[SL]'s objective ``k^T rho - (1/2) sum k rho^2`` at their weights ``D w`` (``rho = D U w``;
        k the example weights, all 1 by default)."""
        rho = self.D * (self.U @ self._w(w))
        return float(self.weights @ rho - 0.5 * (self.weights * rho) @ rho)

    # --- the dual's curvature: -U_S^T U_S -----------------------------------------------------
    def dual_hessian(
        self, w: NDArray[np.float64], columns: NDArray[np.intp], d: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """``-U_S^T diag(k) U_S`` (hess f* = diag(k)), O(N |S|^2)."""
        return -gram_parts(self.U[:, columns], self.weights)[0]  # (scales its copy of U_S in place)

    def dual_hessian_operator(
        self,
        w: NDArray[np.float64],
        columns: NDArray[np.intp],
        d: NDArray[np.float64] | None = None,
        single: bool = False,
    ) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
        """``v -> -U_S^T (k * (U_S v))``, two passes over U_S (``single``: in single precision, as
        :meth:`Model.dual_hessian_operator`)."""
        U = self.single_precision_U() if single else self.U
        C = ColumnProducts(U, np.asarray(columns, dtype=np.intp), None, self.weights)
        return lambda v: -C.gram(v)

    def dual_hessian_block(
        self,
        w: NDArray[np.float64],
        rows: NDArray[np.intp],
        columns: NDArray[np.intp],
        d: NDArray[np.float64] | None = None,
    ) -> NDArray[np.float64]:
        """The block ``-U_R^T diag(k) U_S``."""
        return -(self.U[:, rows].T @ (self.weights[:, None] * self.U[:, columns]))

    # --- active-set recovery --------------------------------------------------------------------
    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """w from d by the stationarity of the primal: ``U v = 1/D - d / k`` with v in the simplex on the
        hypotheses of maximal edge (docs/math.md#kkt-recovery); a least-squares system without the
        multiplier beta of ``sum d = 1`` (d is free) and without caps."""
        from dualboost.solvers.active_set import recover_multipliers

        d = self._d(d)
        edges = self.U.T @ d

        def recover(t: float) -> KKTMultipliers:
            active = np.flatnonzero(edges >= edges.max() - t)
            return recover_multipliers(
                self.U,
                1.0 / self.D - d / self.weights,
                active,
                np.zeros(self.n_samples, dtype=bool),
                n_weights=self.n_hypotheses,
                nonneg=True,
                sum_to_one=True,
                with_beta=False,
            )

        return self._tolerance_aware(recover, tol)
