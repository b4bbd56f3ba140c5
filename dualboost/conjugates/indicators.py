"""Indicators of the simplex and of the capped simplex.

``I_C(d) = 0`` on ``C = {d : sum d = 1, 0 <= d <= 1/nu}`` and ``+inf`` elsewhere. Its conjugate is
the support function: ``max_i theta_i`` for ``nu = 1`` and the top-``nu`` average for real ``nu``
(docs/math.md#capped-simplex-support), ``min_gamma gamma + (1/nu) sum [theta - gamma]_+`` by LP
duality. The conjugate is not differentiable; ``conjugate_grad`` returns the greedy maximiser
(the ``floor(nu)`` largest entries at ``1/nu``, the remainder on the next one).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_nu, check_vector
from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.projections import capped_simplex_support

__all__ = ["CappedSimplex"]


class CappedSimplex(ConvexFunction):
    """Indicator of ``{d in R^N : sum d = 1, 0 <= d <= 1/nu}``; ``nu = 1`` is the simplex.

    Parameters
    ----------
    nu : float, default 1.0
        The capping, in [1, N].
    """

    def __init__(self, nu: float = 1.0) -> None:
        self.nu = check_nu(nu, np.inf)

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 1 or self.nu > x.size:
            return False
        return bool(
            x.min() >= -tol and x.max() <= 1.0 / self.nu + tol and abs(x.sum() - 1.0) <= tol * max(1, x.size)
        )

    def value(self, x: ArrayLike) -> float:
        x = check_vector(x, "d")
        return 0.0 if self.in_domain(x) else np.inf

    def conjugate(self, theta: ArrayLike) -> float:
        theta = check_vector(theta, "theta")
        return capped_simplex_support(theta, check_nu(self.nu, theta.size))

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta = check_vector(theta, "theta")
        nu = check_nu(self.nu, theta.size)
        order = np.argsort(-theta, kind="stable")
        k = int(np.floor(nu))
        d = np.zeros(theta.size)
        d[order[:k]] = 1.0 / nu
        if k < theta.size:
            d[order[k]] = 1.0 - k / nu
        return d

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        cons = [cp.sum(x) == 1, x >= 0]
        if self.nu > 1.0:
            cons.append(x <= 1.0 / self.nu)
        return cp.Constant(0.0), cons

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        if self.nu == 1.0:
            return cp.max(theta), []
        gamma = cp.Variable(name="gamma")
        return gamma + cp.sum(cp.pos(theta - gamma)) / self.nu, []

    def __repr__(self) -> str:
        return f"CappedSimplex(nu={self.nu!r})"
