"""QRLP-Boost's regulariser: the second-order expansion of the entropy at a centre, on the capped
simplex (docs/math.md#qrlp-boost).

``f(d) = (1/eta) sum_n (d_n ln c_n + d_n^2 / (2 c_n))`` on ``{d : sum d = 1, 0 <= d <= 1/nu}``, the
Taylor expansion of ``(1/eta) sum_n d_n ln d_n`` to second order at the centre ``c`` (up to a
constant on the simplex). Its conjugate is a weighted projection: with ``z_n = eta theta_n - ln c_n``,
``d*_n = clip(c_n (z_n - tau), 0, 1/nu)`` with the scalar tau that makes ``sum d* = 1`` (the root of
a non-increasing piecewise-linear function, found exactly from its sorted breakpoints), and
``f*(theta) = <d*, theta> - f(d*)``. On a piece (the same coordinates at 0 and at the cap) d* is
affine in theta with the Jacobian ``eta (diag s - s s^T / sum s)``, ``s = c`` on the free
coordinates and 0 elsewhere: the factored Hessian of a ``SmoothConjugate``.

With a prior d0 the expanded function is ``(1/eta) sum_n d_n ln(d_n / (N d0_n))`` (the relative
entropy to d0, shifted by ``ln N`` so that the uniform prior gives the function above): the linear
term becomes ``ln c_n - ln(N d0_n)``; nothing else changes (docs/math.md#qrlp-boost).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_distribution, check_eta, check_nu, check_vector
from dualboost.conjugates._membership import OnCappedSimplex
from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.projections import spread_residual
from dualboost.conjugates.traits import RankOneCurvature

__all__ = ["CappedQuadratic"]


class CappedQuadratic(RankOneCurvature, OnCappedSimplex, ConvexFunction):
    """``f(d) = (1/eta) sum_n (d_n ln c_n + d_n^2 / (2 c_n))`` on the capped simplex (module docstring).

    QRLP-Boost's regulariser (docs/math.md#qrlp-boost).

    Parameters
    ----------
    center : array_like, shape (N,)
        The centre c, a distribution with positive entries (the expansion divides by them).
    nu : float, default 1.0
        The capping in [1, N] (cap 1/nu).
    eta : float, default 1.0
        The regularisation, > 0.
    prior : array_like of shape (N,), optional
        d0, a distribution with positive entries (None: uniform): the linear term becomes
        ``ln c_n - ln(N d0_n)`` (module docstring).
    """

    def __init__(
        self, center: ArrayLike, nu: float = 1.0, eta: float = 1.0, prior: ArrayLike | None = None
    ) -> None:
        center = np.asarray(center, dtype=np.float64)
        self.center = check_distribution(center, center.size if center.ndim == 1 else 0, "center")
        self.n = self.center.size
        self.nu = check_nu(nu, self.n)
        self.eta = check_eta(eta)
        self.prior = None if prior is None else check_distribution(prior, self.n, "prior")
        #: the coefficients of the linear term (times eta): ln c, less ln(N d0) with a prior
        self._log_c = np.log(self.center)
        if self.prior is not None:
            self._log_c = self._log_c - np.log(self.n * self.prior)

    def value(self, x: ArrayLike) -> float:
        x = check_vector(x, "d", self.n)
        if not self.in_domain(x):
            return np.inf
        return self._expansion(np.clip(x, 0.0, None))

    def _expansion(self, x: NDArray[np.float64]) -> float:
        """``(1/eta) sum_n (x_n ln c_n + x_n^2 / (2 c_n))`` (no domain check)."""
        return float((x @ self._log_c + 0.5 * np.sum(x * x / self.center)) / self.eta)

    def conjugate(self, theta: ArrayLike) -> float:
        return self.conjugate_and_grad(theta)[0]

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.conjugate_and_grad(theta)[1]

    def conjugate_and_grad(self, theta: ArrayLike) -> tuple[float, NDArray[np.float64]]:
        """``(f*(theta), d*)``: d* by the weighted projection of the module docstring, the value by
        ``<d*, theta> - f(d*)`` (no exponential: finite for every finite theta)."""
        theta = check_vector(theta, "theta", self.n)
        d = self._maximiser(self.eta * theta - self._log_c)
        return float(d @ theta) - self._expansion(d), d

    def _maximiser(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        """``clip(c (z - tau), 0, cap)`` with ``sum = 1``. ``g(tau) = sum_n clip(c_n (z_n - tau), 0, cap)``
        is continuous, non-increasing and piecewise linear, ``N cap >= 1`` for small tau and 0 for
        large: coordinate n leaves the cap at ``z_n - cap/c_n`` and reaches 0 at ``z_n``. Walking the
        sorted breakpoints with the running intercept and slope finds the piece where g crosses 1."""
        c, cap = self.center, 1.0 / self.nu
        c_z = c * z
        positions = np.concatenate([z - cap / c, z])
        intercept = np.concatenate([c_z - cap, -c_z])  # what each breakpoint adds to g's intercept
        slope = np.concatenate([-c, c])  # ... and to its slope in tau
        order = np.argsort(positions, kind="stable")
        intercepts = self.n * cap + np.cumsum(intercept[order])
        slopes = np.cumsum(slope[order])
        values = intercepts + slopes * positions[order]  # g at the breakpoints (continuous)
        k = int(np.argmax(values <= 1.0))  # the first breakpoint where g <= 1 (g = 0 at the last)
        if k == 0 or slopes[k - 1] == 0.0:  # g = 1 on a flat piece (nu = N: every coordinate capped)
            tau = positions[order[k]]
        else:
            tau = (1.0 - intercepts[k - 1]) / slopes[k - 1]
        # z and tau are of size eta: their difference carries an error of rounding times eta, which
        # moves sum d* off 1 (1e-8 at eta = 1e8); spread back, d* is feasible and the value
        # <d*, theta> - f(d*) exact up to second order (docs/math.md#stable-evaluation)
        return spread_residual(np.clip(c * (z - tau), 0.0, cap), cap)

    def conjugate_hessian_factors(
        self, theta: ArrayLike | None, grad: NDArray[np.float64] | None = None
    ) -> tuple[NDArray[np.float64], float]:
        """``(s, eta)`` with ``hess f*(theta) = eta (diag(s) - s s^T / sum s)``: ``s = c`` on the
        coordinates strictly between 0 and the cap, 0 elsewhere (d* is constant there on the
        piece). ``grad``: ``d* = conjugate_grad(theta)`` when the caller has it."""
        d = self.conjugate_grad(theta) if grad is None else grad
        cap = 1.0 / self.nu
        free = (d > 0.0) & (d < cap * (1.0 - 1e-12))
        return np.where(free, self.center, 0.0), self.eta

    def smooth_gradient(self, x: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """``(1/eta) (ln c + x / c)`` on the rows where ``x > 0`` (at 0 the bound ``d >= 0`` has a
        multiplier of its own): the stationarity rows of docs/math.md#kkt-recovery."""
        x = check_vector(x, "d", self.n)
        rows = x > 0
        grad = np.zeros(self.n)
        grad[rows] = (self._log_c[rows] + x[rows] / self.center[rows]) / self.eta
        return grad, rows

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        cons = self.capped_simplex_constraints(x)
        quadratic = 0.5 * cp.sum(cp.multiply(1.0 / self.center, cp.square(x)))
        return (self._log_c @ x + quadratic) / self.eta, cons

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        """``min_{tau, psi >= 0} tau + (1/nu) sum psi + sum_n (eta c_n / 2) pos(theta_n - tau - psi_n
        - ln(c_n)/eta)^2``: the Lagrangian dual of the inner maximum with ``sum d = 1`` (tau) and
        ``d <= 1/nu`` (psi) dualised, ``d >= 0`` kept (docs/math.md#qrlp-boost)."""
        tau = cp.Variable(name="tau")
        excess = theta - tau - self._log_c / self.eta
        if self.nu > 1.0:
            psi = cp.Variable(self.n, nonneg=True, name="psi")
            excess = excess - psi
            extra = cp.sum(psi) / self.nu
        else:
            extra = 0.0
        quadratic = cp.sum(cp.multiply(0.5 * self.eta * self.center, cp.square(cp.pos(excess))))
        return tau + extra + quadratic, []

    def __repr__(self) -> str:
        prior = "" if self.prior is None else f", prior=<{self.n} entries>"
        return f"CappedQuadratic(center=<{self.n} entries>, nu={self.nu!r}, eta={self.eta!r}{prior})"
