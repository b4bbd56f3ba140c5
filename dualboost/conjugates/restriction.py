"""Restriction of a regulariser to the simplex: [SS] Lemma 8
(docs/math.md#restriction-to-the-simplex).

For ``f~ = f + I_S`` (S the probability simplex),
``f~*(theta) = -max_gamma phi(gamma)`` with ``phi(gamma) = gamma - f*([gamma + theta]_+)``.

Derivation (docs/math.md#restriction-to-the-simplex): Fenchel duality gives
``-f~*(theta) = max_{gamma, x >= theta + gamma} gamma - f*(x)``, which is exact; Thm 7 condition (iii)
makes ``[theta + gamma]_+`` the minimiser of f* over ``{x >= theta + gamma}``. Without (iii) the formula
is only an upper bound on f~*.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_vector
from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.indicators import CappedSimplex
from dualboost.conjugates.numerical import solve_cvxpy

__all__ = ["SimplexRestriction"]

_SIMPLEX = CappedSimplex(1.0)
#: Relative Fenchel–Young gap below which the maximiser assembled from grad f* is accepted.
_CERTIFY_RTOL = 1e-9
#: |slope of phi| below which the bracket expansion stops: the sum of N gradient entries that
#: should be exactly 1 is off by about N * machine epsilon.
_PLATEAU_TOL = 1e-12


class SimplexRestriction(ConvexFunction):
    """``f~(d) = f(d) + I_S(d)``; ``f~*(theta) = -max_gamma (gamma - f*([gamma + theta]_+))`` ([SS] Lemma 8).

    Conditions of [SS] Thm 7 on ``f``: (i) ``min f = 0``, i.e. ``f*(0) = 0``: **checked** (a
    ``ValueError`` otherwise; it is what makes the relaxed-margin dual of Thm 7 exact, and it makes
    ``phi(gamma) = gamma`` below ``-max theta``); (ii) ``0 in core(dom f)``: assumed; (iii)
    ``f*(theta) >= f*(theta - alpha theta_i e^i)`` (f* does not increase when a coordinate moves
    towards 0): assumed, and detected a posteriori when the maximiser cannot be certified (below).
    Norm balls, weighted norms and ``(1/2)||.||^2`` satisfy all three ([SS] Examples 1-2).

    ``phi`` is concave, and its slope is ``1 - sum_{i: gamma + theta_i > 0} (grad f*)_i``, which is
    non-increasing in gamma. The maximisation is a bisection on the sign of that slope (``+inf``
    values of f*, e.g. for ``f = ||.||``, count as past the maximum), from a bracket whose left end
    ``-max theta - 1`` has slope 1; it runs to machine precision, so the value is exact up to
    rounding even where ``phi`` has a kink (piecewise-linear f*, such as the capped simplex).

    The maximiser ``d`` is the convex combination of the (masked) gradients at the two bracket ends
    that sums to 1. It is accepted if it lies in ``S`` and ``dom f`` with a relative Fenchel–Young gap
    below 1e-9; otherwise (no gradient, e.g. f* an indicator) ``d`` comes from a conic solve of
    ``max_{d in S} <d, theta> - f(d)``, and if that value falls short of the Lemma 8 value condition
    (iii) does not hold and a ``ValueError`` is raised.

    Parameters
    ----------
    f : ConvexFunction
        f, satisfying condition (i) of [SS] Thm 7.
    """

    def __init__(self, f: ConvexFunction) -> None:
        if not isinstance(f, ConvexFunction):
            raise ValueError(f"f must be a ConvexFunction; got {type(f).__name__}")
        self.f = f
        self.n = f.n
        self._checked_sizes: set[int] = set()

    def value(self, x: ArrayLike) -> float:
        x = check_vector(x, "d", self.n)
        return self.f.value(x) if _SIMPLEX.in_domain(x) else np.inf

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return _SIMPLEX.in_domain(x, tol) and self.f.in_domain(x, tol)

    def _check_min_zero(self, n: int) -> None:
        """Thm 7 condition (i): ``min f = -f*(0) = 0``."""
        if n not in self._checked_sizes:
            at_zero = self.f.conjugate(np.zeros(n))
            if not abs(at_zero) <= 1e-12:
                raise ValueError(
                    f"f must satisfy [SS] Thm 7 condition (i) min f = 0 for Lemma 8; f*(0) = {at_zero!r}"
                )
            self._checked_sizes.add(n)

    def _slope(self, gamma: float, theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64] | None]:
        """``-phi'(gamma) = sum_{i active} (grad f*)_i - 1`` and the masked gradient.

        ``(+inf, None)`` where ``f*([gamma + theta]_+) = +inf`` (past the maximum of phi).
        """
        x = np.maximum(theta + gamma, 0.0)
        if not np.isfinite(self.f.conjugate(x)):
            return np.inf, None
        grad = np.where(theta + gamma > 0.0, self.f.conjugate_grad(x), 0.0)
        return float(grad.sum() - 1.0), grad

    def _phi(self, gamma: float, theta: NDArray[np.float64]) -> float:
        return gamma - self.f.conjugate(np.maximum(theta + gamma, 0.0))

    def _maximise(self, theta: ArrayLike) -> tuple[NDArray[np.float64], float, tuple, tuple, float]:
        """Bisection for ``max phi``: returns theta, the value ``f~*(theta)``, both bracket ends and
        the maximiser gamma."""
        theta = check_vector(theta, "theta", self.n)
        self._check_min_zero(theta.size)
        scale = max(1.0, float(np.abs(theta).max()))
        lo = float(-theta.max() - 1.0)
        left = self._slope(lo, theta)
        hi, step = float(-theta.min() + 1.0), scale
        right = self._slope(hi, theta)
        for _ in range(200):
            # A slope within rounding of 0 is a plateau of maximisers (e.g. the cap 1/N).
            if right[0] >= -_PLATEAU_TOL:
                break
            lo, left = hi, right
            hi, step = hi + step, 2.0 * step
            right = self._slope(hi, theta)
        else:
            raise ValueError("f + I_S is identically +inf: dom f does not meet the simplex")
        while hi - lo > 4.0 * np.finfo(float).eps * max(scale, abs(lo), abs(hi)):
            mid = 0.5 * (lo + hi)
            at_mid = self._slope(mid, theta)
            if at_mid[0] >= 0.0:
                hi, right = mid, at_mid
            else:
                lo, left = mid, at_mid
        at_lo = self._phi(lo, theta)
        at_hi = self._phi(hi, theta) if right[1] is not None else -np.inf
        return theta, -max(at_lo, at_hi), left, right, lo if at_lo >= at_hi else hi

    def conjugate(self, theta: ArrayLike) -> float:
        return self._maximise(theta)[1]

    def maximising_gamma(self, theta: ArrayLike) -> float:
        """The maximiser gamma* of ``gamma - f*([gamma + theta]_+)`` (Lemma 8): ``[theta + gamma*]_+``
        is the part of theta that f* sees, ``theta - [theta + gamma*]_+`` the part I_S* sees."""
        return self._maximise(theta)[4]

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta, value, (s_lo, g_lo), (s_hi, g_hi), _ = self._maximise(theta)
        if g_hi is not None and g_lo is not None:
            if s_lo <= 0.0 <= s_hi and s_lo < s_hi:  # the convex combination with sum 1
                d = (s_hi * g_lo - s_lo * g_hi) / (s_hi - s_lo)
            else:  # a plateau of phi: both ends are maximisers, take the one closer to sum 1
                d = g_lo if abs(s_lo) <= abs(s_hi) else g_hi
            if self._certified(d, theta, value):
                return d
        return self._conic_maximiser(theta, value)

    def _certified(self, d: NDArray[np.float64], theta: NDArray[np.float64], value: float) -> bool:
        if not self.in_domain(d):
            return False
        gap = self.f.value(d) + value - float(d @ theta)
        return abs(gap) <= _CERTIFY_RTOL * max(1.0, abs(value), float(np.abs(theta).max()))

    def _conic_maximiser(self, theta: NDArray[np.float64], value: float) -> NDArray[np.float64]:
        d = cp.Variable(theta.size, name="d")
        expr, constraints = self.cvxpy_value(d)
        problem = cp.Problem(cp.Maximize(theta @ d - expr), constraints)
        if solve_cvxpy(problem) != cp.OPTIMAL:
            raise ValueError(
                f"could not compute the maximiser of <d, theta> - f(d) on the simplex ({problem.status})"
            )
        if problem.value < value - 1e-6 * max(1.0, abs(value)):
            raise ValueError(
                "[SS] Lemma 8 does not apply to f: condition (iii) of Thm 7 fails "
                f"(Lemma 8 gives {value!r}, the simplex-constrained maximum is {problem.value!r})"
            )
        return np.asarray(d.value, dtype=np.float64)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        expr, constraints = self.f.cvxpy_value(x)
        return expr, [*constraints, cp.sum(x) == 1, x >= 0]

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        """The exact Fenchel dual ``min_{gamma, v >= theta + gamma} f*(v) - gamma`` (no need for (iii))."""
        gamma = cp.Variable(name="gamma")
        v = cp.Variable(theta.shape, name="v")
        expr, constraints = self.f.cvxpy_conjugate(v)
        return expr - gamma, [*constraints, v >= theta + gamma]

    def __repr__(self) -> str:
        return f"SimplexRestriction({self.f!r})"
