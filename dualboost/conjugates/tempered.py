"""Tempered (Tsallis) relative entropies (docs/tempered.md).

The tempered logarithm and exponential of temperature t ([NAW] Nock, Amid & Warmuth, "Boosting with
Tempered Exponential Measures", NeurIPS 2023, Sec. 2; Amid, Warmuth, Anil & Koren 2019)

    ``log_t(x) = (x^(1-t) - 1) / (1 - t)``,   ``exp_t(x) = [1 + (1 - t) x]_+^(1/(1-t))``

tend to ln and exp as t -> 1. The tempered relative entropy is the Bregman divergence of
``phi_t(d) = sum_n d_n^(2-t) / ((1-t)(2-t))`` (``phi_t' = log_t + 1/(1-t)``, ``phi_t'' = d^-t``):

    ``Delta_t(d, d0) = sum_n d_n (log_t d_n - log_t d0_n) - (d_n^(2-t) - d0_n^(2-t)) / (2 - t)``
      ``= sum_n [d_n log_t d_n - (2-t) d_n log_t d0_n + (1-t) d0_n log_t d0_n - d_n + d0_n] / (2-t)``

(the tempered relative entropy of [NAW]; the second form by ``x^(1-t) = 1 + (1-t) log_t x``), the
unnormalised relative entropy ``sum d ln(d/d0) - d + d0`` at t = 1. It is strictly convex for every
t; the library takes ``0 <= t < 2`` (t = 0: ``(1/2)||d - d0||^2``; t < 1: the maximiser may put
weight exactly 0 on an example, as t-AdaBoost does; 1 < t < 2: heavy tails).

* :class:`TemperedRelativeEntropy`: ``Delta_t(d, d0)`` on the orthant. Conjugate
  ``sum_n (d_n^(2-t) - d0_n^(2-t)) / (2-t)`` at its gradient ``d = exp_t(log_t d0 + theta)``.
* :class:`CappedTemperedRelativeEntropy`: ``(1/eta) Delta_t(d, d0) + I{sum d = 1, d <= 1/nu}``.
  Stationarity gives ``d_n = min(exp_t(log_t d0_n + eta theta_n - b), 1/nu)`` with the scalar b
  that makes ``sum d = 1`` (a monotone 1-D root, bracketed); ``f*(theta) = <d, theta> - f(d)``. On a
  piece (the same coordinates at 0 and at the cap) differentiating ``sum d = 1`` gives
  ``hess f* = eta (diag s - s s^T / sum s)`` with ``s = d^t`` on the free coordinates and 0 on the
  others (``exp_t' = exp_t^t``): the rank-one form of the library's smooth conjugates
  (:class:`~dualboost.conjugates.traits.RankOneCurvature`); at t = 1 it is the capped softmax's.

``(1/eta) * TemperedRelativeEntropy(d0, t) + CappedSimplex(nu)`` is the capped form
(:func:`tempered_on_capped_simplex`, one of :data:`dualboost.conjugates.calculus.SUM_RULES`), so that
:class:`~dualboost.problems.Relaxation` derives its smooth dual.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq
from scipy.special import kl_div

from dualboost._validation import (
    check_distribution,
    check_eta,
    check_nu,
    check_positive_vector,
    check_scalar,
    check_vector,
)
from dualboost.conjugates._membership import OnCappedSimplex
from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.indicators import CappedSimplex
from dualboost.conjugates.projections import spread_residual
from dualboost.conjugates.traits import RankOneCurvature

__all__ = [
    "check_temperature",
    "log_t",
    "exp_t",
    "tempered_divergence",
    "TemperedRelativeEntropy",
    "CappedTemperedRelativeEntropy",
    "tempered_on_capped_simplex",
]

#: the temperatures the library takes: phi_t is strictly convex and finite on the orthant for t < 2
T_MAX = 2.0


def check_temperature(t: object) -> float:
    """The temperature t in ``[0, 2)`` (a ValueError naming ``t`` otherwise).

    Parameters
    ----------
    t : float
        The temperature.

    Returns
    -------
    float
        ``t`` as a float.
    """
    t = check_scalar(t, "t")
    if not 0.0 <= t < T_MAX:
        raise ValueError(f"t (the temperature) must lie in [0, 2); got {t!r}")
    return t


def log_t(x: ArrayLike, t: float) -> NDArray[np.float64]:
    """The tempered logarithm ``(x^(1-t) - 1)/(1 - t)`` (``ln x`` at t = 1) for ``x >= 0``, as
    ``expm1((1-t) ln x)/(1-t)``: no cancellation as t -> 1. ``log_t(0) = -1/(1-t)`` for t < 1.

    Parameters
    ----------
    x : array_like
        Non-negative arguments.
    t : float
        The temperature.

    Returns
    -------
    ndarray
        ``log_t(x)`` entrywise.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore"):
        ln = np.log(x)
    if t == 1.0:
        return ln
    with np.errstate(invalid="ignore", over="ignore"):
        return np.expm1((1.0 - t) * ln) / (1.0 - t)


def exp_t(x: ArrayLike, t: float) -> NDArray[np.float64]:
    """The tempered exponential ``[1 + (1-t) x]_+^(1/(1-t))`` (``exp x`` at t = 1), as
    ``exp(log1p((1-t) x)/(1-t))``: 0 where ``1 + (1-t) x <= 0`` and t < 1, ``+inf`` there for t > 1.

    Parameters
    ----------
    x : array_like
        Arguments.
    t : float
        The temperature.

    Returns
    -------
    ndarray
        ``exp_t(x)`` entrywise.
    """
    x = np.asarray(x, dtype=np.float64)
    if t == 1.0:
        with np.errstate(over="ignore"):
            return np.exp(x)
    u = (1.0 - t) * x
    out = np.full(x.shape, 0.0 if t < 1.0 else np.inf)
    inside = u > -1.0
    with np.errstate(over="ignore"):
        out[inside] = np.exp(np.log1p(u[inside]) / (1.0 - t))
    return out


def tempered_divergence(x: NDArray[np.float64], y: NDArray[np.float64], t: float) -> NDArray[np.float64]:
    """The terms of ``Delta_t(x, y)`` (module docstring, second form: continuous in t, scipy's
    ``kl_div`` at t = 1) for ``x >= 0``, ``y > 0``.

    Parameters
    ----------
    x, y : ndarray
        The point and the prior, of one shape.
    t : float
        The temperature.

    Returns
    -------
    ndarray
        ``delta_t(x_n, y_n)`` entrywise (non-negative up to rounding).
    """
    if t == 1.0:
        return kl_div(x, y)
    x_log = np.where(x > 0, x * log_t(np.where(x > 0, x, 1.0), t), 0.0)
    log_y = log_t(y, t)
    return (x_log - (2.0 - t) * x * log_y + (1.0 - t) * y * log_y - x + y) / (2.0 - t)


def _cvxpy_phi_star_shifted(u: cp.Expression, y: NDArray[np.float64], t: float) -> cp.Expression:
    """``sum_n phi_t*(u_n + phi_t'(y_n)) - phi_t*(phi_t'(y_n))``, the conjugate of ``Delta_t(., y)`` on
    the orthant, in cvxpy: with ``phi_t*(v) = ((1-t) v)_+^((2-t)/(1-t)) / (2-t)`` (t < 1; a power
    above 1 of a positive part), ``((t-1)(-v))^(-(2-t)/(t-1)) / (2-t)`` (t > 1; a negative power,
    convex on v < 0) and ``exp`` at t = 1 (docs/tempered.md#conjugates)."""
    if t == 1.0:
        return cp.sum(cp.multiply(y, cp.exp(u) - 1.0))
    # (1-t) phi_t'(y) = y^(1-t), so (1-t)(u + phi_t'(y)) = (1-t) u + y^(1-t)
    base = (1.0 - t) * u + y ** (1.0 - t)
    p = (2.0 - t) / (1.0 - t)
    power = _power(cp.pos(base), p) if t < 1.0 else _power(base, p)
    return (cp.sum(power) - float(np.sum(y ** (2.0 - t)))) / (2.0 - t)


def _power(x: cp.Expression, p: float) -> cp.Expression:
    """``x^p`` in cvxpy as a power cone (``approx=False``); cvxpy before that keyword (1.4, the lowest
    supported) has only its rational second-order-cone form, which is exact for the exponents of a
    rational t with a small denominator (t = 0.5: 3, 1.5; t = 1.5: -1, 0.5) and approximates others."""
    try:
        return cp.power(x, p, approx=False)
    except TypeError:
        return cp.power(x, p)


def _cvxpy_divergence(x: cp.Expression, y: NDArray[np.float64], t: float) -> cp.Expression:
    """``Delta_t(x, y)`` in cvxpy: ``phi_t(x) - phi_t(y) - <phi_t'(y), x - y>`` with ``phi_t(x) =
    sum x^(2-t) / ((1-t)(2-t))``, a power cone (convex power above 1 for t < 1, minus a concave one
    for 1 < t < 2); ``sum kl_div`` at t = 1."""
    if t == 1.0:
        return cp.sum(cp.kl_div(x, y))
    p = 2.0 - t
    c = (1.0 - t) * (2.0 - t)
    phi = cp.sum(_power(x, p)) / c
    slope = y ** (1.0 - t) / (1.0 - t)
    return phi - float(np.sum(y**p)) / c - slope @ x + float(slope @ y)


class TemperedRelativeEntropy(ConvexFunction):
    """``f(d) = Delta_t(d, d0)`` on ``d >= 0`` (module docstring); ``d0 > 0`` (uniform ``1/N`` when
    None, N taken from each argument); ``t`` in [0, 2).

    ``f*(theta) = sum_n (d_n^(2-t) - d0_n^(2-t)) / (2-t)`` at ``d = exp_t(log_t d0 + theta)``, its
    gradient (``conjugate_grad``). At t = 1 this is
    :class:`~dualboost.conjugates.UnnormalisedRelativeEntropy`.

    Parameters
    ----------
    d0 : array-like, optional
        The prior, positive (None: uniform).
    t : float, default 0.5
        The temperature, in [0, 2).
    """

    conjugate_is_differentiable = True

    def __init__(self, d0: ArrayLike | None = None, t: float = 0.5) -> None:
        self.t = check_temperature(t)
        self.d0 = None if d0 is None else check_positive_vector(d0, "d0")
        self.n = None if self.d0 is None else self.d0.size
        if self.t > 1.0:  # f* is finite only where every exp_t argument stays below 1/(t - 1)
            self.conjugate_is_differentiable = False

    def prior(self, size: int) -> NDArray[np.float64]:
        """d0 for an argument of length ``size`` (uniform ``1/size`` when no d0 was given)."""
        return self.d0 if self.d0 is not None else np.full(size, 1.0 / size)

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        x = np.asarray(x, dtype=np.float64)
        shape_ok = x.ndim == 1 and (self.n is None or x.size == self.n)
        return bool(shape_ok and np.all(np.isfinite(x)) and x.min() >= -tol)

    def value(self, x: ArrayLike) -> float:
        x = check_vector(x, "d", self.n)
        if not self.in_domain(x):
            return np.inf
        x = np.clip(x, 0.0, None)
        return float(tempered_divergence(x, self.prior(x.size), self.t).sum())

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta = check_vector(theta, "theta", self.n)
        return exp_t(log_t(self.prior(theta.size), self.t) + theta, self.t)

    def conjugate(self, theta: ArrayLike) -> float:
        theta = check_vector(theta, "theta", self.n)
        d = self.conjugate_grad(theta)
        if not np.all(np.isfinite(d)):
            return np.inf
        return float(d @ theta - tempered_divergence(d, self.prior(theta.size), self.t).sum())

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return _cvxpy_divergence(x, self.prior(x.shape[0]), self.t), []

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return _cvxpy_phi_star_shifted(theta, self.prior(theta.shape[0]), self.t), []

    def __repr__(self) -> str:
        prior = "uniform" if self.d0 is None else f"<{self.n} entries>"
        return f"TemperedRelativeEntropy(d0={prior}, t={self.t!r})"


class CappedTemperedRelativeEntropy(RankOneCurvature, OnCappedSimplex, ConvexFunction):
    """``f(d) = (1/eta) Delta_t(d, d0)`` on ``{d : sum d = 1, 0 <= d <= 1/nu}`` (module docstring).

    Parameters
    ----------
    d0 : array_like or None
        The prior, a distribution with positive entries (uniform when None).
    nu : float
        The capping parameter in [1, N] (cap 1/nu; 1: the plain simplex).
    eta : float
        The regularisation, > 0.
    t : float
        The temperature in [0, 2) (1: :class:`~dualboost.conjugates.CappedRelativeEntropy`).
    """

    def __init__(self, d0: ArrayLike | None, nu: float = 1.0, eta: float = 1.0, t: float = 0.5) -> None:
        self.t = check_temperature(t)
        if d0 is None:
            raise ValueError("d0 must be given (a distribution); use np.full(N, 1/N) for the uniform prior")
        d0 = np.asarray(d0, dtype=np.float64)
        self.d0 = check_distribution(d0, d0.size if d0.ndim == 1 else 0)
        self.n = self.d0.size
        self.nu = check_nu(nu, self.n)
        self.eta = check_eta(eta)
        self._log_t_d0 = log_t(self.d0, self.t)

    def value(self, x: ArrayLike) -> float:
        x = check_vector(x, "d", self.n)
        if not self.in_domain(x):
            return np.inf
        x = np.clip(x, 0.0, None)
        return float(tempered_divergence(x, self.d0, self.t).sum() / self.eta)

    def conjugate(self, theta: ArrayLike) -> float:
        return self.conjugate_and_grad(theta)[0]

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.conjugate_and_grad(theta)[1]

    def conjugate_and_grad(self, theta: ArrayLike) -> tuple[float, NDArray[np.float64]]:
        """``(f*(theta), d*)``: d* from the root b of ``sum_n min(exp_t(z_n - b), 1/nu) = 1``,
        ``z = log_t d0 + eta theta`` (:meth:`maximiser`), the value ``<d*, theta> - f(d*)``."""
        theta = check_vector(theta, "theta", self.n)
        d = self.maximiser(self._log_t_d0 + self.eta * theta)
        return float(d @ theta) - float(tempered_divergence(d, self.d0, self.t).sum()) / self.eta, d

    def maximiser(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        """``min(exp_t(z - b), cap)`` with ``sum = 1``. ``g(b) = sum_n min(exp_t(z_n - b), cap)`` is
        continuous and non-increasing; at ``b = min z - log_t(cap)`` every term is the cap
        (``g = N/nu >= 1``), at ``b = max z - log_t(1/N)`` every term is at most 1/N (``g <= 1``).
        Brent's method finds the root in that bracket, one Newton step on the free coordinates
        (``g' = -sum_F exp_t^t``) polishes it, and the rounding left in ``sum d`` is spread over the
        free coordinates.

        Parameters
        ----------
        z : ndarray
            ``log_t d0 + eta theta``.

        Returns
        -------
        ndarray
            The maximiser d* on the capped simplex.
        """
        cap, t = 1.0 / self.nu, self.t
        if self.nu >= self.n:  # the capped simplex is the single point 1/N
            return np.full(self.n, 1.0 / self.n)

        def excess(b: float) -> float:
            return float(np.minimum(exp_t(z - b, t), cap).sum()) - 1.0

        lo = float(z.min() - log_t(cap, t))
        hi = float(z.max() - log_t(1.0 / self.n, t))
        if excess(lo) <= 0.0:
            b = lo
        elif excess(hi) >= 0.0:
            b = hi
        else:
            scale = max(1.0, abs(lo), abs(hi))
            b = brentq(excess, lo, hi, xtol=1e-15 * scale, rtol=8.9e-16, maxiter=500)
            e = exp_t(z - b, t)
            free = e < cap
            slope = float(np.sum(e[free] ** t))
            if slope > 0.0:
                b += excess(b) / slope
        d = np.minimum(exp_t(z - b, t), cap)
        return spread_residual(d, cap)

    def conjugate_hessian_factors(
        self, theta: ArrayLike | None, grad: NDArray[np.float64] | None = None
    ) -> tuple[NDArray[np.float64], float]:
        """``(s, eta)`` with ``hess f*(theta) = eta (diag(s) - s s^T / sum s)``: ``s = d*^t`` on the
        coordinates strictly between 0 and the cap, 0 elsewhere (module docstring). ``grad``:
        ``d* = conjugate_grad(theta)`` when the caller has it."""
        d = self.conjugate_grad(theta) if grad is None else grad
        free = (d > 0.0) & (d < (1.0 - 1e-12) / self.nu) if self.nu > 1.0 else d > 0.0
        return np.where(free, np.where(free, d, 1.0) ** self.t, 0.0), self.eta

    def smooth_gradient(self, x: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """``(1/eta) (log_t x - log_t d0)`` on the rows where ``x > 0``: the gradient of the divergence
        in the stationarity condition of docs/math.md#kkt-recovery (at 0 the bound ``d >= 0`` has a
        multiplier of its own)."""
        x = check_vector(x, "d", self.n)
        rows = x > 0
        grad = np.zeros(self.n)
        grad[rows] = (log_t(x[rows], self.t) - self._log_t_d0[rows]) / self.eta
        return grad, rows

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return _cvxpy_divergence(x, self.d0, self.t) / self.eta, self.capped_simplex_constraints(x)

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        """``min_{b, psi >= 0} b + (1/nu) sum psi + (1/eta) Delta_t*(eta (theta - b - psi))``: the
        Lagrangian dual of the inner maximum with ``sum d = 1`` (b) and ``d <= 1/nu`` (psi)
        dualised, ``Delta_t*`` the orthant conjugate of :class:`TemperedRelativeEntropy`."""
        b = cp.Variable(name="beta")
        shifted = theta - b
        extra: cp.Expression | float = 0.0
        if self.nu > 1.0:
            psi = cp.Variable(self.n, nonneg=True, name="psi")
            shifted = shifted - psi
            extra = cp.sum(psi) / self.nu
        return b + extra + _cvxpy_phi_star_shifted(self.eta * shifted, self.d0, self.t) / self.eta, []

    def __repr__(self) -> str:
        return (
            f"CappedTemperedRelativeEntropy(d0=<{self.n} entries>, nu={self.nu!r}, eta={self.eta!r}, "
            f"t={self.t!r})"
        )


def tempered_on_capped_simplex(a: ConvexFunction, b: ConvexFunction) -> ConvexFunction | None:
    """``(1/eta) TemperedRelativeEntropy(d0, t) + CappedSimplex(nu)`` as
    :class:`CappedTemperedRelativeEntropy` (d0 a distribution), and a capped tempered entropy plus
    another cap as one with the smaller cap; None otherwise (a rule of
    :data:`dualboost.conjugates.calculus.SUM_RULES`).

    Parameters
    ----------
    a, b : ConvexFunction
        The summands (the rule is tried in both orders).

    Returns
    -------
    ConvexFunction or None
        The closed form, or None where the rule does not apply.
    """
    from dualboost.conjugates.calculus import Scaled  # calculus imports this module (SUM_RULES)

    if not isinstance(b, CappedSimplex):
        return None
    if isinstance(a, CappedTemperedRelativeEntropy):
        nu = max(a.nu, b.nu)
        return a if nu == a.nu else CappedTemperedRelativeEntropy(a.d0, nu, a.eta, a.t)
    c, inner = (a.c, a.f) if isinstance(a, Scaled) else (1.0, a)
    if not isinstance(inner, TemperedRelativeEntropy) or inner.d0 is None:
        return None
    if abs(float(inner.d0.sum()) - 1.0) > 1e-9:
        return None  # Delta_t does not shift by a constant when d0 is rescaled (t != 1)
    return CappedTemperedRelativeEntropy(inner.d0, nu=b.nu, eta=1.0 / c, t=inner.t)
