"""Norms, norm balls and the half squared norm (docs/math.md#dual-norms, entry 1 of
docs/math.md#conjugate-table, [SS] Examples 1-2).

For ``p`` in ``{1, 2, inf}`` with dual exponent ``q`` (``1/p + 1/q = 1``, so 1 <-> inf, 2 <-> 2):

* :class:`Norm` ``r ||x||_p``            -> ``I{||theta||_q <= r}``      ([SS] Example 2);
* :class:`NormBall` ``I{||x||_p <= r}``  -> ``r ||theta||_q``            ([SS] Example 1, App. B);
* :class:`HalfSquaredNorm` ``(1/2)||x||_p^2`` -> ``(1/2)||theta||_q^2`` ([SS] App. B).

All three maximisers reduce to :func:`unit_ball_maximiser`, a point of the unit p-ball attaining
``<x, theta> = ||theta||_q`` (the definition of the dual norm, docs/math.md#dual-norms).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_norm_order, check_positive, check_vector
from dualboost.conjugates._membership import (
    CONJUGATE_TOL,
    all_finite,
    within,
)
from dualboost.conjugates.base import ConvexFunction, CvxpyForm

__all__ = ["Norm", "NormBall", "HalfSquaredNorm", "dual_exponent", "unit_ball_maximiser"]


def dual_exponent(p: float) -> float:
    """The exponent ``q`` of the dual norm: ``1 -> inf``, ``2 -> 2``, ``inf -> 1``
    (docs/math.md#dual-norms).

    Parameters
    ----------
    p : float
        The exponent, in [1, inf].

    Returns
    -------
    float
        q with ``1/p + 1/q = 1``.
    """
    p = check_norm_order(p)
    return {1.0: np.inf, 2.0: 2.0, np.inf: 1.0}[p]


def unit_ball_maximiser(theta: ArrayLike, p: float) -> NDArray[np.float64]:
    """A point ``x`` with ``||x||_p <= 1`` and ``<x, theta> = ||theta||_q`` (``q`` the dual exponent).

    ``p = 1``: ``sign(theta_i) e_i`` at a largest ``|theta_i|``; ``p = 2``: ``theta / ||theta||_2``;
    ``p = inf``: ``sign(theta)``. ``theta = 0`` gives ``x = 0``.

    Parameters
    ----------
    theta : array_like, shape (N,)
        The direction.
    p : float
        The exponent of the ball, in [1, inf].

    Returns
    -------
    ndarray, shape (N,)
        x.
    """
    theta = check_vector(theta, "theta")
    p = check_norm_order(p)
    if p == np.inf:
        return np.sign(theta)
    x = np.zeros_like(theta)
    if p == 1.0:
        i = int(np.argmax(np.abs(theta)))
        x[i] = np.sign(theta[i])
        return x
    norm = np.linalg.norm(theta)
    return theta / norm if norm > 0.0 else x


class _NormEntry(ConvexFunction):
    """Shared state of the norm entries: the order ``p``, its dual ``q`` and a radius ``r > 0``."""

    def __init__(self, p: float = 2, radius: float = 1.0) -> None:
        self.p = check_norm_order(p)
        self.q = dual_exponent(self.p)
        self.radius = check_positive(radius, "radius")

    def _norm(self, x: NDArray[np.float64]) -> float:
        return float(np.linalg.norm(x, self.p))

    def _dual_norm(self, theta: NDArray[np.float64]) -> float:
        return float(np.linalg.norm(theta, self.q))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p={self.p}, radius={self.radius})"


class Norm(_NormEntry):
    """``f(x) = r ||x||_p``; ``f*(theta) = I{||theta||_q <= r}`` ([SS] Example 2,
    docs/math.md#conjugate-table).

    ``r = 1`` (the default) is the plain norm, whose conjugate is the indicator of the dual unit
    ball (``||.||_inf -> I_{B_1}``, docs/math.md#dual-norms). On the dual ball the maximiser ``x = 0`` attains
    ``f*(theta) = 0``; outside it the supremum is ``+inf`` and ``conjugate_grad`` raises.

    Parameters
    ----------
    p : float, default 2
        The exponent of the norm, in [1, inf] (``np.inf`` for the max norm).
    radius : float, default 1.0
        r, > 0.
    """

    def value(self, x: ArrayLike) -> float:
        return self.radius * self._norm(check_vector(x, "x"))

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return all_finite(x)

    def conjugate(self, theta: ArrayLike) -> float:
        theta = check_vector(theta, "theta")
        return 0.0 if within(self._dual_norm(theta), self.radius, CONJUGATE_TOL) else np.inf

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta = check_vector(theta, "theta")
        if not within(self._dual_norm(theta), self.radius, CONJUGATE_TOL):
            raise ValueError(
                f"theta lies outside the dual ball ||theta||_{self.q} <= {self.radius}: "
                "the supremum defining f*(theta) is +inf and has no maximiser"
            )
        return np.zeros_like(theta)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return self.radius * cp.norm(x, self.p), []

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return cp.Constant(0.0), [cp.norm(theta, self.q) <= self.radius]


class NormBall(_NormEntry):
    """``f(x) = I{||x||_p <= r}``; ``f*(theta) = r ||theta||_q`` ([SS] Example 1,
    App. B; docs/math.md#conjugate-table).

    ``conjugate_grad(theta) = r * unit_ball_maximiser(theta, p)``. With ``p = inf`` and ``r = 1/k`` this
    is the cap ``||d||_inf <= 1/k`` of docs/math.md#capped-simplex-support, whose conjugate is
    ``(1/k)||theta||_1``.

    Parameters
    ----------
    p : float, default 2
        The exponent of the norm, in [1, inf] (``np.inf`` for the max norm).
    radius : float, default 1.0
        r, > 0.
    """

    def value(self, x: ArrayLike) -> float:
        return 0.0 if self.in_domain(check_vector(x, "x")) else np.inf

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return within(self._norm(np.asarray(x, dtype=np.float64)), self.radius, tol)

    def conjugate(self, theta: ArrayLike) -> float:
        return self.radius * self._dual_norm(check_vector(theta, "theta"))

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.radius * unit_ball_maximiser(theta, self.p)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return cp.Constant(0.0), [cp.norm(x, self.p) <= self.radius]

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return self.radius * cp.norm(theta, self.q), []


class HalfSquaredNorm(_NormEntry):
    """``f(x) = (1/2)||x||_p^2``; ``f*(theta) = (1/2)||theta||_q^2`` ([SS] App. B,
    docs/math.md#conjugate-table).

    The maximiser is ``||theta||_q * unit_ball_maximiser(theta, p)``: along a direction ``u`` with
    ``||u||_p = 1`` the objective is ``t <u, theta> - t^2/2``, maximal at ``t = ||theta||_q``.
    ``p = 2`` is self-conjugate with ``grad f* = identity``.

    Parameters
    ----------
    p : float, default 2
        The exponent of the norm, in [1, inf] (``np.inf`` for the max norm).
    """

    def __init__(self, p: float = 2) -> None:
        super().__init__(p, 1.0)
        self.conjugate_is_differentiable = self.p == 2.0

    def value(self, x: ArrayLike) -> float:
        return 0.5 * self._norm(check_vector(x, "x")) ** 2

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return all_finite(x)

    def conjugate(self, theta: ArrayLike) -> float:
        return 0.5 * self._dual_norm(check_vector(theta, "theta")) ** 2

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta = check_vector(theta, "theta")
        return self._dual_norm(theta) * unit_ball_maximiser(theta, self.p)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        if self.p == 2.0:
            return 0.5 * cp.sum_squares(x), []
        return 0.5 * cp.square(cp.norm(x, self.p)), []

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        if self.q == 2.0:
            return 0.5 * cp.sum_squares(theta), []
        return 0.5 * cp.square(cp.norm(theta, self.q)), []

    def __repr__(self) -> str:
        return f"HalfSquaredNorm(p={self.p})"
