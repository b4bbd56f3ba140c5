"""What the solvers need from a regulariser: its curvature traits.

A model's smooth dual ``D(w) = -f*(-U w)`` (:class:`~dualboost.solvers.contract.SmoothDual`) needs
a gradient and a Hessian of ``f*``, which a conjugate of this library provides in one of two forms
(docs/math.md#exact-restriction): :class:`SmoothConjugate`, the factored Hessian of the capped
softmax, and :class:`LowRankConjugate`, ``diag(g) - V M V^T`` of the exact restrictions. The active
set recovery of a model's multipliers (docs/math.md#kkt-recovery) needs a :class:`SmoothPart`.
These describe conjugates, not models, so they live beside the conjugates; a solver checks them
with :func:`dualboost.solvers.contract.implements`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = ["SmoothConjugate", "LowRankConjugate", "SmoothPart"]

Vector = NDArray[np.float64]


@runtime_checkable
class SmoothConjugate(Protocol):
    """A regulariser whose conjugate has a gradient and a factored Hessian
    (``hess f*(theta) = scale (diag s - s s^T / sum s)``)."""

    def conjugate_and_grad(self, theta: Vector) -> tuple[float, Vector]:
        """``(f*(theta), grad f*(theta))``."""

    def conjugate_hessian_factors(
        self, theta: Vector | None, grad: Vector | None = None
    ) -> tuple[Vector, float]:
        """``(s, scale)`` at theta (or at ``grad = grad f*(theta)`` when given)."""

    def with_warm_starts(self) -> SmoothConjugate:
        """A copy whose inner root searches start from the previous call's."""


@runtime_checkable
class LowRankConjugate(Protocol):
    """A regulariser whose conjugate has a gradient and a Hessian ``diag(g) - V M V^T`` with a few
    columns in V (``k <= 2``): the exact restrictions ``f + I_S`` of
    :mod:`dualboost.conjugates.smooth_restriction`, whose Hessian comes from implicit differentiation
    of an inner solve (docs/math.md#exact-restriction). The softmax form of :class:`SmoothConjugate`
    is the case ``k = 1``, ``V = scale s``, ``M = 1 / (scale sum s)``."""

    def conjugate_and_grad(self, theta: Vector) -> tuple[float, Vector]:
        """``(f*(theta), grad f*(theta))``."""

    def conjugate_hessian_lowrank(self, theta: Vector | None, grad: Vector | None = None) -> Any:
        """``(g, V, M)`` at theta; theta may be None where :meth:`remembers` ``grad``."""

    def remembers(self, grad: Vector) -> bool:
        """Whether ``grad`` is a gradient this object returned recently (its curvature is known)."""

    def with_warm_starts(self) -> LowRankConjugate:
        """A copy whose inner root searches start from the previous call's."""


@runtime_checkable
class SmoothPart(Protocol):
    """A regulariser on a capped simplex whose KKT multipliers the active-set method recovers
    (:meth:`Model._stationarity_multipliers`, docs/math.md#kkt-recovery): the gradient of its smooth
    part and its active caps."""

    def smooth_gradient(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """``(grad, rows)``: the gradient of the smooth part at x and the rows where it is defined."""

    def active_caps(self, x: NDArray[np.float64], tol: float = 1e-7) -> NDArray[np.bool_]:
        """The coordinates of x at their cap (within ``tol``)."""
