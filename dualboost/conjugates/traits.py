"""What the solvers need from a regulariser: its curvature traits.

A model's smooth dual ``D(w) = -f*(-U w)`` (:class:`~dualboost.solvers.contract.SmoothDual`) needs a
gradient and a Hessian of ``f*``, which every smooth conjugate of this library declares in ONE form
(docs/math.md#exact-restriction), a :class:`LowRankHessian`

    ``hess f*(theta) = scale (diag(g) - V S^+ V^T)``,   V: N x k, S: k x k, k <= 2:

the exact restrictions ``f + I_S`` of :mod:`dualboost.conjugates.smooth_restriction` have it from the
implicit differentiation of their inner solve (k = 1, or 2 where an l2 ball binds); the capped
softmax's ``scale (diag s - s s^T / sum s)`` (:meth:`CappedRelativeEntropy.conjugate_hessian_factors`
and the other closed forms) is the case ``k = 1``, ``g = s``, ``V = s``, ``S = sum s``
(:meth:`LowRankHessian.rank_one`, :class:`RankOneCurvature`); the exact restrictions have scale 1.
A :class:`SmoothConjugate` declares it with the two traits that steer a dual solver.

The active set recovery of a model's multipliers (docs/math.md#kkt-recovery) needs a
:class:`SmoothPart`. These describe conjugates, not models, so they live beside the conjugates; a
model checks them with :func:`dualboost.solvers.contract.implements`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "LowRankHessian",
    "SmoothConjugate",
    "RankOneCurvature",
    "SmoothPart",
    "log_change",
    "small_inverse",
]

Vector = NDArray[np.float64]


class LowRankHessian(NamedTuple):
    """``hess f*(theta) = scale (diag(g) - V S^+ V^T)`` (V: N x k, S: k x k, k <= 2, ``S^+`` its
    inverse, or pseudo-inverse where singular: :func:`small_inverse`); a common factor ``scale`` > 0,
    so that the difference is formed before the scaling (at eta = 1e6 the two terms cancel to
    rounding of their own size, not eta's).

    Parameters
    ----------
    g : ndarray, shape (N,)
        The diagonal.
    V : ndarray, shape (N, k)
        The low-rank factor.
    S : ndarray, shape (k, k)
        The small matrix inverted.
    scale : float, default 1.0
        The common factor, > 0.
    """

    g: Vector
    V: NDArray[np.float64]
    S: NDArray[np.float64]
    scale: float = 1.0

    @property
    def M(self) -> NDArray[np.float64]:
        """``S^+``: the middle factor of ``V M V^T``."""
        return small_inverse(self.S)

    def product(self, v: Vector) -> Vector:
        """``hess f* v`` in O(N k)."""
        return self.scale * (self.g * v - self.V @ (self.M @ (self.V.T @ v)))

    @classmethod
    def rank_one(cls, s: Vector, scale: float) -> LowRankHessian:
        """``scale (diag s - s s^T / sum s)`` in this form: ``g = s``, ``V = s``, ``S = sum s``
        (``S^+ = 0`` when ``sum s = 0``: every coordinate capped, the Hessian is 0)."""
        return cls(s, s[:, None], np.array([[float(s.sum())]]), scale)


def small_inverse(S: NDArray[np.float64]) -> NDArray[np.float64]:
    """The inverse of the 1 x 1 or 2 x 2 matrix S of a :class:`LowRankHessian` in closed form
    (pseudo-inverse where it is singular: every coordinate capped, or, for the exact restrictions'
    ``B^T G B``, d - c parallel to 1 on the free coordinates).

    Parameters
    ----------
    S : ndarray of shape (1, 1) or (2, 2)
        The symmetric matrix.

    Returns
    -------
    ndarray
        Its (pseudo-)inverse.
    """
    if S.shape == (1, 1):
        return np.array([[1.0 / S[0, 0]]]) if S[0, 0] > 0.0 else np.zeros((1, 1))
    a, b, c = S[0, 0], S[0, 1], S[1, 1]
    det = a * c - b * b
    if det > 1e-14 * a * c:
        return np.array([[c, -b], [-b, a]]) / det
    return np.linalg.pinv(S, hermitian=True)


@runtime_checkable
class SmoothConjugate(Protocol):
    """A regulariser whose conjugate has a gradient and a :class:`LowRankHessian`."""

    #: Whether a :meth:`with_warm_starts` copy evaluates f* to machine precision from any start (an
    #: inner solve at every evaluation, a cold one costing several warm ones): a dual solver then
    #: certifies its intermediate points with the warm copy (the result is certified with the
    #: model's own regulariser in any case).
    warm_copy_certifies: bool

    def conjugate_and_grad(self, theta: Vector) -> tuple[float, Vector]:
        """``(f*(theta), grad f*(theta))``."""

    def conjugate_hessian(self, theta: Vector | None, grad: Vector | None = None) -> LowRankHessian:
        """``hess f*(theta)``; theta may be None where :meth:`remembers` ``grad = grad f*(theta)``."""

    def step_spread(self, move: Callable[[], Vector], grad: Vector) -> float:
        """The largest first-order change of ``log grad_n`` when theta moves by ``move()`` (a pass over
        U, made only where the conjugate measures steps) from the point whose gradient is ``grad``:
        over such a step of size k the softmax's Hessian changes by
        at most a factor ``exp(2 k)`` (Bach 2010; Karimireddy, Stich & Jaggi 2018), which bounds
        Newton's steps (``Model.dual_step_spread``, docs/solvers.md#step-length); 0 where the
        conjugate has no such bound."""

    def remembers(self, grad: Vector) -> bool:
        """Whether the curvature at ``grad`` follows from ``grad`` alone (the closed forms: always;
        an inner solve: a gradient this object returned recently)."""

    def with_warm_starts(self) -> SmoothConjugate:
        """A copy whose inner root searches start from the previous call's."""


class RankOneCurvature:
    """The :class:`SmoothConjugate` traits of a closed form whose Hessian is ``scale (diag s - s s^T /
    sum s)`` with ``(s, scale) = conjugate_hessian_factors(theta, grad)``, a function of the gradient
    alone (the capped softmax, the binary entropy, the capped quadratic)."""

    warm_copy_certifies = False

    def conjugate_hessian(self, theta: Vector | None, grad: Vector | None = None) -> LowRankHessian:
        """:meth:`LowRankHessian.rank_one` of :meth:`conjugate_hessian_factors`."""
        return LowRankHessian.rank_one(*self.conjugate_hessian_factors(theta, grad))  # type: ignore[attr-defined]

    def remembers(self, grad: Vector) -> bool:
        """True: the factors are a function of the gradient."""
        return True

    def step_spread(self, move: Callable[[], Vector], grad: Vector) -> float:
        """:func:`log_change` of ``move()`` with the factors at ``grad``:
        ``d log d_n = scale (s_n / d_n) (move_n - s.move / sum s)`` (0 when ``sum s = 0``: every
        coordinate capped)."""
        s, scale = self.conjugate_hessian_factors(None, grad)  # type: ignore[attr-defined]
        total = float(s.sum())
        if not total > 0.0:
            return 0.0
        theta_move = move()
        mean = float(s @ theta_move) / total
        return log_change(theta_move, s, grad, scale, mean, float(grad.max(initial=0.0)))


def log_change(
    move: NDArray[np.float64],
    s: NDArray[np.float64],
    d: NDArray[np.float64],
    scale: float,
    mean: float,
    d_max: float,
) -> float:
    """``max_n |scale (s_n / d_n) (move_n - mean)|`` over the rows whose d is above 1e-12 of ``d_max``
    or whose change is positive: the largest first-order change of ``log d_n`` when theta moves by
    ``move``, with the curvature weights s and ``mean = s.move / sum s`` (``Model.dual_step_spread``;
    over row blocks, the maximum of the blocks' values, as the Dask model computes it,
    :mod:`dualboost.dask.softmax`).

    Parameters
    ----------
    move : ndarray of shape (N,)
        The move of theta.
    s : ndarray of shape (N,)
        The curvature weights.
    d : ndarray of shape (N,)
        The current distribution.
    scale : float
        The factor of the change.
    mean : float
        ``s.move / sum s``.
    d_max : float
        The largest entry of d (over every block).

    Returns
    -------
    float
        The largest first-order change of ``log d_n``.
    """
    ratio = np.divide(s, d, out=np.ones_like(s), where=d > 0)
    change = scale * ratio * (move - mean)
    counts = (change > 0) | (d > 1e-12 * d_max)
    return float(np.abs(change[counts]).max(initial=0.0))


@runtime_checkable
class SmoothPart(Protocol):
    """A regulariser on a capped simplex whose KKT multipliers the active-set method recovers
    (:meth:`Model._stationarity_multipliers`, docs/math.md#kkt-recovery): the gradient of its smooth
    part and its active caps."""

    def smooth_gradient(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """``(grad, rows)``: the gradient of the smooth part at x and the rows where it is defined."""

    def active_caps(self, x: NDArray[np.float64], tol: float = 1e-7) -> NDArray[np.bool_]:
        """The coordinates of x at their cap (within ``tol``)."""
