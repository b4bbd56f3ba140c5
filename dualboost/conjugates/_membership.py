"""The conjugate library's membership tolerances and tests (its argument checks are in
:mod:`dualboost._validation`)."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

try:  # the one-pass membership test (setup.py builds it; a source tree without it runs numpy's)
    from dualboost.conjugates import _capped_sums
except ImportError:  # pragma: no cover - depends on the build
    _capped_sums = None

#: the longest vector whose sum the compiled sums (``_capped_sums``, ``dualboost/_sums.pxd``) add in
#: numpy's order on every supported numpy: longer ones numpy may add in chunks of its buffer (8,192
#: entries), in an order that differs between its versions (the lowest CI stage's numpy summed a
#: 100,000-vector an ulp apart), so their membership at tolerance 0 is numpy's own
EXACT_SUM_MAX = 8192

__all__ = [
    "INDICATOR_TOL",
    "CONJUGATE_TOL",
    "within",
    "all_finite",
    "on_capped_simplex",
    "OnCappedSimplex",
]

#: Absolute slack (relative to the radius when it exceeds 1) with which the indicator-valued
#: entries of the library accept a point; the same default as ``ConvexFunction.in_domain``.
INDICATOR_TOL = 1e-9
#: The (much tighter) slack with which a conjugate that is an indicator, or finite only on an
#: interval, accepts theta: it absorbs the rounding of the calculus rules (theta / c, theta - a)
#: but adds at most ~1e-12 relative error to values computed at the boundary of dom f*, such as
#: the maximum of [SS] Lemma 8 when f* is the indicator of a dual ball.
CONJUGATE_TOL = 1e-12


def within(norm: float, radius: float, tol: float = INDICATOR_TOL) -> bool:
    """``norm <= radius`` up to ``tol`` (relative to the radius when it exceeds 1).

    Parameters
    ----------
    norm : float
        The norm of the point.
    radius : float
        The radius of the ball.
    tol : float, default INDICATOR_TOL
        The tolerance.

    Returns
    -------
    bool
        Whether the point is in the ball.
    """
    return bool(norm <= radius + tol * max(1.0, radius))


def all_finite(x: ArrayLike) -> bool:
    """Membership test of a function finite on all of R^N: every entry is finite.

    Parameters
    ----------
    x : array-like
        The point.

    Returns
    -------
    bool
        Whether every entry is finite.
    """
    return bool(np.all(np.isfinite(np.asarray(x, dtype=np.float64))))


def on_capped_simplex(x: ArrayLike, cap: float, tol: float) -> bool:
    """Membership of the capped simplex ``{x : sum x = 1, 0 <= x <= cap}`` up to ``tol``.

    Parameters
    ----------
    x : array-like
        The point.
    cap : float
        The cap on each entry.
    tol : float
        The tolerance.

    Returns
    -------
    bool
        Whether x is in the capped simplex.
    """
    x = np.asarray(x, dtype=np.float64)
    if (
        _capped_sums is not None and x.ndim == 1 and 0 < x.size <= EXACT_SUM_MAX
    ):  # (the same tests in one pass)
        return _capped_sums.on_capped_simplex(np.ascontiguousarray(x), cap, tol)
    return bool(x.min() >= -tol and x.max() <= cap + tol and abs(x.sum() - 1.0) <= tol * max(1, x.size))


class OnCappedSimplex:
    """The domain part of a regulariser on the capped simplex ``{d : sum d = 1, 0 <= d <= 1/nu}``
    (attribute ``nu``): membership, the capped coordinates and the constraints in cvxpy."""

    nu: float

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return on_capped_simplex(x, 1.0 / self.nu, tol)

    def active_caps(self, x: ArrayLike, tol: float = 1e-7) -> NDArray[np.bool_]:
        """The capped coordinates ``{n : x_n >= (1 - tol)/nu}`` (none when ``nu = 1``)."""
        x = np.asarray(x, dtype=np.float64)
        if self.nu == 1.0:
            return np.zeros(x.size, dtype=bool)
        return x >= (1.0 - tol) / self.nu

    def capped_simplex_constraints(self, x: cp.Expression) -> list[cp.Constraint]:
        """``sum x = 1``, ``x >= 0`` and, for nu > 1, ``x <= 1/nu``."""
        cons = [cp.sum(x) == 1, x >= 0]
        if self.nu > 1.0:
            cons.append(x <= 1.0 / self.nu)
        return cons
