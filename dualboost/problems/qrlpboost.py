"""QRLP-Boost (Akkerman et al. 2025, colboost's quadratically regularised LPBoost; docs/math.md#qrlp-boost)
as a max-edge pair.

ERLPBoost's subproblem with the relative entropy replaced by its second-order expansion at a
centre c (a distribution with positive entries, typically the previous d):

    primal (d-domain):  min_{d in S^N, d <= 1/nu}  max_q (U^T d)_q + f(d),
                        f(d) = (1/eta) sum_n (d_n ln c_n + d_n^2 / (2 c_n))
    dual   (w-domain):  max_{w in S^t}  -f*(-U w)

with ``f`` the :class:`~dualboost.conjugates.CappedQuadratic` and ``d = grad f*(-U w)``, a weighted
projection onto the capped simplex. The primal is a convex QP with LPBoost's constraints; the dual
is piecewise quadratic and differentiable, its Hessian on a piece ``-eta U_S^T (diag s - s s^T/sum s)
U_S`` with ``s = c`` where ``0 < d < 1/nu``, so ``method="auglag"`` solves it.

colboost re-solves the QP with the centre moved to its solution until the value settles: a
sequential quadratic model of the entropy. Where that sequence converges to a d with positive
entries, the gradients of the expansion and of the entropy agree there (``ln c + d/c = ln d + 1`` at
``c = d``), so its limit is ERLPBoost's solution at the same nu and eta with the uniform prior
(:meth:`QRLPBoost.recentred`; tested).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_distribution
from dualboost.conjugates import CappedQuadratic
from dualboost.problems.base import ColumnIndependent
from dualboost.problems.max_edge import MaxEdgeModel

__all__ = ["QRLPBoost"]


class QRLPBoost(ColumnIndependent, MaxEdgeModel):
    """The QRLP-Boost subproblem over the t hypotheses in ``U`` ([AFAHV25]; docs/math.md#qrlp-boost).

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1] (docs/math.md#notation).
    nu : float, default 1.0
        The capping in [1, N]: ``d_n <= 1/nu``.
    eta : float, default 1.0
        The regularisation, > 0.
    center : array_like of shape (N,), optional
        The centre of the second-order expansion (uniform when None; every entry positive).
    d0 : array_like of shape (N,), optional
        The prior of the expanded entropy (uniform when None; every entry positive): the limit of
        the re-centred sequence is then ERLPBoost's solution with that prior.
    """

    name = "qrlpboost"

    def __init__(
        self,
        U: ArrayLike,
        nu: float = 1.0,
        eta: float = 1.0,
        center: ArrayLike | None = None,
        d0: ArrayLike | None = None,
    ) -> None:
        super().__init__(U)
        center = check_distribution(center, self.n_samples, "center")
        self.regularizer = CappedQuadratic(center, nu, eta, prior=d0)
        self.nu, self.eta, self.center = self.regularizer.nu, self.regularizer.eta, self.regularizer.center
        self.d0 = self.regularizer.prior

    def parameters(self) -> dict[str, float]:
        return {"nu": self.nu, "eta": self.eta}

    def recentred(self, d: ArrayLike) -> QRLPBoost:
        """The same subproblem expanded at ``d`` (colboost's next QP): d must have positive entries."""
        return type(self)(self.U, nu=self.nu, eta=self.eta, center=d, d0=self.d0)

    def dual_step_spread(
        self, direction: NDArray[np.float64], d: NDArray[np.float64], single: bool = False
    ) -> float:
        """0: no trust radius (docs/solvers.md#step-length). The dual is quadratic on each piece, so
        Newton's model is exact up to the next change of the clipped coordinates, which the line
        search finds; the softmax's measure (the change of ``log d``) does not apply."""
        return 0.0
