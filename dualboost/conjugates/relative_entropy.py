"""Relative entropies on the non-negative orthant (docs/math.md#conjugate-table).

* :class:`RelativeEntropy` ``sum_n d_n ln(d_n / d0_n)`` -> ``sum_n d0_n e^{theta_n - 1}``;
* :class:`UnnormalisedRelativeEntropy` ``sum_n d_n ln(d_n / d0_n) - d_n + d0_n`` ->
  ``sum_n d0_n (e^{theta_n} - 1)`` ([KG] Sec 3.2.6, the Delta_U of model M5u in docs/math.md#model-catalogue).

Both are closed, strictly convex and finite for ``d >= 0`` (``0 ln 0 = 0``); their conjugates
are smooth, with gradients ``d0 e^{theta - 1}`` and ``d0 e^{theta}`` (stationarity of each term).
The prior ``d0 > 0`` need not be normalised; without one it is uniform, ``1/N`` with N the length of
each argument ([SS]'s ``h(d) = sum d log d + log m``). Restricted to the (capped) simplex they become
:class:`~dualboost.conjugates.entropy.CappedRelativeEntropy` (``(1/eta) * RelativeEntropy(d0) +
CappedSimplex(nu)`` dispatches to it, see :func:`dualboost.conjugates.calculus.add`).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp, rel_entr

from dualboost._validation import check_positive_vector, check_vector
from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.stable import entropy_excess

__all__ = ["RelativeEntropy", "UnnormalisedRelativeEntropy"]


class _OrthantEntropy(ConvexFunction):
    """Shared state: a positive prior ``d0`` (length N), its logarithm, domain ``d >= 0``."""

    conjugate_is_differentiable = True

    def __init__(self, d0: ArrayLike | None = None) -> None:
        if d0 is None:  # the uniform prior 1/N, N taken from each argument ([SS] h(d))
            self.d0, self.n, self._log_d0 = None, None, None
        else:
            self.d0 = check_positive_vector(d0, "d0")
            self.n = self.d0.size
            self._log_d0 = np.log(self.d0)

    def prior(self, size: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(d0, ln d0)`` for an argument of length ``size`` (uniform ``1/size`` when no d0 was given)."""
        if self.d0 is not None:
            return self.d0, self._log_d0
        d0 = np.full(size, 1.0 / size)
        return d0, np.log(d0)

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        x = np.asarray(x, dtype=np.float64)
        shape_ok = x.ndim == 1 and (self.n is None or x.size == self.n)
        return bool(shape_ok and np.all(np.isfinite(x)) and x.min() >= -tol)

    def _point(self, x: ArrayLike) -> NDArray[np.float64] | None:
        """``x`` clipped to the orthant, or ``None`` outside the domain."""
        x = check_vector(x, "d", self.n)
        return np.clip(x, 0.0, None) if self.in_domain(x) else None

    def __repr__(self) -> str:
        if self.d0 is None:
            return f"{type(self).__name__}(d0=uniform)"
        return f"{type(self).__name__}(d0=<{self.n} entries, sum {self.d0.sum():.6g}>)"


class RelativeEntropy(_OrthantEntropy):
    """``f(d) = sum_n d_n ln(d_n / d0_n)`` on ``d >= 0``; ``f*(theta) = sum_n d0_n e^{theta_n - 1}``.

    Stationarity of ``theta_n d_n - d_n ln(d_n/d0_n)`` gives ``d_n = d0_n e^{theta_n - 1}``
    (``conjugate_grad``), where the term equals ``d_n``. The conjugate is evaluated as
    ``exp(logsumexp(ln d0 + theta - 1))`` so that only the result, never an intermediate, overflows.

    Parameters
    ----------
    d0 : array_like of shape (N,), optional
        The prior, positive entries (None: uniform, 1/N for an argument of length N).
    """

    def value(self, x: ArrayLike) -> float:
        d = self._point(x)
        return np.inf if d is None else float(rel_entr(d, self.prior(d.size)[0]).sum())

    def conjugate(self, theta: ArrayLike) -> float:
        theta = check_vector(theta, "theta", self.n)
        with np.errstate(over="ignore"):
            return float(np.exp(logsumexp(self.prior(theta.size)[1] + theta - 1.0)))

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta = check_vector(theta, "theta", self.n)
        return np.exp(self.prior(theta.size)[1] + theta - 1.0)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return cp.sum(cp.rel_entr(x, self.prior(x.shape[0])[0])), []

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return cp.sum(cp.exp(theta + (self.prior(theta.shape[0])[1] - 1.0))), []


class UnnormalisedRelativeEntropy(_OrthantEntropy):
    """``f(d) = sum_n d_n ln(d_n/d0_n) - d_n + d0_n`` on ``d >= 0``.

    ``f*(theta) = sum_n d0_n (e^{theta_n} - 1)``.
    [KG] Sec 3.2.6 (Delta_U). Stationarity gives ``d_n = d0_n e^{theta_n}`` (``conjugate_grad``). The
    conjugate uses ``expm1`` for ``theta_n <= 1`` (no cancellation near 0) and
    ``e^{ln d0_n + theta_n} - d0_n`` above (no overflow of ``e^{theta_n}`` alone when d0_n is small).

    Parameters
    ----------
    d0 : array_like of shape (N,), optional
        The prior, positive entries (None: uniform, 1/N for an argument of length N).
    """

    def value(self, x: ArrayLike) -> float:
        d = self._point(x)
        # kl_div's x ln(x/y) - x + y cancels where x ~ y; the same terms without it
        # (docs/math.md#stable-evaluation)
        return np.inf if d is None else float(entropy_excess(d, self.prior(d.size)[0]).sum())

    def conjugate(self, theta: ArrayLike) -> float:
        theta = check_vector(theta, "theta", self.n)
        d0, log_d0 = self.prior(theta.size)
        small = theta <= 1.0
        with np.errstate(over="ignore"):
            terms = np.where(small, d0 * np.expm1(np.minimum(theta, 1.0)), np.exp(log_d0 + theta) - d0)
        return float(terms.sum())

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta = check_vector(theta, "theta", self.n)
        return np.exp(self.prior(theta.size)[1] + theta)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return cp.sum(cp.kl_div(x, self.prior(x.shape[0])[0])), []

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        d0, log_d0 = self.prior(theta.shape[0])
        return cp.sum(cp.exp(theta + log_d0)) - d0.sum(), []
