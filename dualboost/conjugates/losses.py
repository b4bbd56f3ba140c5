"""Margin losses as separable convex functions ``f(z) = sum_i phi(z_i)`` of a margin vector ``z``.

The conjugate of a separable function is separable: ``f*(s) = sum_i phi*(s_i)``, maximised
coordinate-wise. Each ``phi*`` below is finite exactly on an interval ``[lower, upper]`` with
``upper = 0`` (every loss is non-increasing). Derivations (``phi*(s) = sup_z s z - phi(z)``):

* hinge ``phi(z) = max(0, 1 - z)``: for ``z >= 1`` the objective is ``s z``, for ``z <= 1`` it is
  ``(1 + s) z - 1``; both are bounded iff ``-1 <= s <= 0``, with value ``s`` at ``z = 1``.
  ``phi*(s) = s`` on ``[-1, 0]``.
* logistic ``phi(z) = ln(1 + e^{-z})``: stationarity ``s = -sigmoid(-z)`` gives
  ``z = ln((1 + s)/(-s))`` and ``phi*(s) = (-s) ln(-s) + (1 + s) ln(1 + s)`` on ``[-1, 0]``
  (``0 ln 0 = 0``; at ``s = -1, 0`` the sup is a limit, not attained).
* exponential ``phi(z) = e^{-z}``: stationarity ``s = -e^{-z}`` gives ``z = -ln(-s)`` and
  ``phi*(s) = (-s) ln(-s) + s`` on ``(-inf, 0]`` (not attained at 0).
* MadaBoost ``phi(z) = e^{-z}`` for ``z >= 0``, ``1 - z`` for ``z < 0`` (C^1 and convex: both pieces
  have value 1 and slope -1 at 0). Its slopes fill ``[-1, 0)``: for ``s < -1`` the linear piece
  gives ``(1 + s) z - 1 -> inf`` as ``z -> -inf``; for ``s > 0`` the exponential piece gives
  ``s z -> inf``; for ``-1 <= s < 0`` the maximiser is ``z = -ln(-s) >= 0`` on the exponential piece.
  Hence ``phi*(s) = (-s) ln(-s) + s`` on ``[-1, 0]`` (the exponential conjugate restricted to
  ``[-1, 0]``; ``phi*(-1) = -1``, attained at ``z = 0``; ``phi*(0) = 0``, not attained).

Every formula uses ``xlogy``/``log1p``/``logaddexp``: no exp of an unbounded argument except the
exponential loss value itself, whose true value overflows.
"""

from __future__ import annotations

from abc import abstractmethod

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import xlogy

from dualboost._validation import check_vector
from dualboost.conjugates._membership import CONJUGATE_TOL, all_finite
from dualboost.conjugates.base import ConvexFunction, CvxpyForm

__all__ = ["SeparableLoss", "HingeLoss", "LogisticLoss", "ExponentialLoss", "MadaBoostLoss"]


def _neg_log_conjugate(s: NDArray[np.float64]) -> NDArray[np.float64]:
    """``(-s) ln(-s) + s`` for ``s <= 0``: the conjugate of ``e^{-z}`` (and of MadaBoost on [-1, 0])."""
    return xlogy(-s, -s) + s


def _neg_log_argmax(s: NDArray[np.float64]) -> NDArray[np.float64]:
    """``z = -ln(-s)``: the stationary point of ``s z - e^{-z}`` for ``s < 0``."""
    return -np.log(-s)


class SeparableLoss(ConvexFunction):
    """``f(z) = sum_i phi(z_i)`` on R^N with ``dom phi* = [conj_lower, conj_upper]`` (module docstring).

    Subclasses give ``phi``, ``phi*`` on its domain and the maximiser ``z(s)``, plus the interval
    ends and whether the sup is attained there. ``conjugate`` is ``+inf`` outside the interval
    (accepted up to ``CONJUGATE_TOL``); ``conjugate_grad`` raises where the sup is not attained.
    """

    conj_lower: float = -np.inf
    conj_upper: float = 0.0
    lower_attained: bool = False
    upper_attained: bool = False

    @abstractmethod
    def _phi(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        """The loss, entry-wise."""

    @abstractmethod
    def _phi_conjugate(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        """``phi*`` entry-wise on ``[conj_lower, conj_upper]``."""

    @abstractmethod
    def _phi_argmax(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        """The maximiser ``z`` of ``s z - phi(z)``, entry-wise where it is attained."""

    def value(self, x: ArrayLike) -> float:
        return float(self._phi(check_vector(x, "x")).sum())

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return all_finite(x)

    def _in_conjugate_domain(self, s: NDArray[np.float64]) -> bool:
        lo = self.conj_lower - CONJUGATE_TOL * max(1.0, abs(self.conj_lower))
        return bool(np.all(s >= lo) and np.all(s <= self.conj_upper + CONJUGATE_TOL))

    def conjugate(self, theta: ArrayLike) -> float:
        s = check_vector(theta, "theta")
        if not self._in_conjugate_domain(s):
            return np.inf
        return float(self._phi_conjugate(np.clip(s, self.conj_lower, self.conj_upper)).sum())

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        s = check_vector(theta, "theta")
        if not self._in_conjugate_domain(s):
            raise ValueError(f"theta must lie in [{self.conj_lower}, {self.conj_upper}]^N, the domain of f*")
        s = np.clip(s, self.conj_lower, self.conj_upper)
        unattained = np.zeros(s.shape, dtype=bool)
        if not self.lower_attained:
            unattained |= s <= self.conj_lower
        if not self.upper_attained:
            unattained |= s >= self.conj_upper
        if np.any(unattained):
            raise ValueError(
                "the supremum defining f*(theta) is not attained where theta_i is an end point "
                f"{self.conj_lower} or {self.conj_upper} of dom f*; theta has such entries"
            )
        return self._phi_argmax(s)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class HingeLoss(SeparableLoss):
    """``phi(z) = max(0, 1 - z)``; ``phi*(s) = s`` on ``[-1, 0]``, maximiser ``z = 1`` (module docstring)."""

    conj_lower = -1.0
    lower_attained = True
    upper_attained = True

    def _phi(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.maximum(0.0, 1.0 - z)

    def _phi_conjugate(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return s

    def _phi_argmax(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.ones_like(s)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return cp.sum(cp.pos(1 - x)), []

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return cp.sum(theta), [theta >= -1, theta <= 0]


class LogisticLoss(SeparableLoss):
    """``phi(z) = ln(1 + e^{-z})``; ``phi*(s) = (-s) ln(-s) + (1+s) ln(1+s)`` on ``[-1, 0]``.

    Maximiser ``z = ln(1 + s) - ln(-s)`` for ``-1 < s < 0`` (module docstring).
    """

    conj_lower = -1.0

    def _phi(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.logaddexp(0.0, -z)

    def _phi_conjugate(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return xlogy(-s, -s) + xlogy(1.0 + s, 1.0 + s)

    def _phi_argmax(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.log1p(s) - np.log(-s)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return cp.sum(cp.logistic(-x)), []

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return cp.sum(-cp.entr(-theta) - cp.entr(1 + theta)), []


class ExponentialLoss(SeparableLoss):
    """``phi(z) = e^{-z}`` (AdaBoost); ``phi*(s) = (-s) ln(-s) + s`` on ``(-inf, 0]``, ``z = -ln(-s)``."""

    def _phi(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(over="ignore"):
            return np.exp(-z)

    def _phi_conjugate(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return _neg_log_conjugate(s)

    def _phi_argmax(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return _neg_log_argmax(s)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return cp.sum(cp.exp(-x)), []

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return cp.sum(-cp.entr(-theta) + theta), []


class MadaBoostLoss(SeparableLoss):
    """MadaBoost: ``phi(z) = e^{-z}`` for ``z >= 0``, ``1 - z`` for ``z < 0``.

    ``phi*(s) = (-s) ln(-s) + s`` on ``[-1, 0]``, ``+inf`` elsewhere.
    Derivation in the module docstring. The maximiser is ``z = -ln(-s)`` for ``-1 <= s < 0``
    (``z = 0`` at ``s = -1``). The cvxpy form of ``phi`` is the exact infimal representation
    ``phi(z) = min_{t <= min(0, z)} e^{t - z} - t`` (the optimum is ``t = min(0, z)``), which is DCP.
    """

    conj_lower = -1.0
    lower_attained = True

    def _phi(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.where(z >= 0.0, np.exp(-np.maximum(z, 0.0)), 1.0 - z)

    def _phi_conjugate(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return _neg_log_conjugate(s)

    def _phi_argmax(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return _neg_log_argmax(s)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        t = cp.Variable(x.shape, name="t")
        return cp.sum(cp.exp(t - x) - t), [t <= 0, t <= x]

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return cp.sum(-cp.entr(-theta) + theta), [theta >= -1]
