"""Argument checks specific to the conjugate library, built on :mod:`dualboost._validation`.

Every failure is a ``ValueError`` that names the argument, as everywhere in dualboost.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_scalar, check_vector

__all__ = [
    "INDICATOR_TOL",
    "CONJUGATE_TOL",
    "check_nonzero",
    "check_positive_vector",
    "check_norm_order",
    "check_size",
    "within",
    "all_finite",
]

#: Absolute slack (relative to the radius when it exceeds 1) with which the indicator-valued
#: entries of the library accept a point; the same default as ``ConvexFunction.in_domain``.
INDICATOR_TOL = 1e-9
#: The (much tighter) slack with which a conjugate that is an indicator, or finite only on an
#: interval, accepts theta: it absorbs the rounding of the calculus rules (theta / c, theta - a)
#: but adds at most ~1e-12 relative error to values computed at the boundary of dom f*, such as
#: the maximum of [SS] Lemma 8 when f* is the indicator of a dual ball.
CONJUGATE_TOL = 1e-12


def check_nonzero(value: object, name: str) -> float:
    """A finite real scalar ``!= 0``."""
    value = check_scalar(value, name)
    if value == 0.0:
        raise ValueError(f"{name} must be non-zero; got {value!r}")
    return value


def check_positive_vector(x: ArrayLike, name: str, size: int | None = None) -> NDArray[np.float64]:
    """A finite 1-D array with strictly positive entries (a prior ``d0``, not necessarily normalised)."""
    arr = check_vector(x, name, size)
    if np.any(arr <= 0.0):
        raise ValueError(f"{name} must be strictly positive")
    return arr


def check_norm_order(p: object) -> float:
    """The order of an l_p norm, one of ``1``, ``2``, ``inf`` (also the string ``"inf"``)."""
    if isinstance(p, str) and p.lower() == "inf":
        return np.inf
    try:
        value = float(p)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = np.nan
    if value not in (1.0, 2.0, np.inf):
        raise ValueError(f"p must be 1, 2 or inf; got {p!r}")
    return value


def check_size(n: int | None, other: int | None, name: str) -> int | None:
    """The common dimension of two objects whose dimension may be unknown (``None``)."""
    if n is not None and other is not None and n != other:
        raise ValueError(f"{name} has dimension {other}, expected {n}")
    return n if n is not None else other


def within(norm: float, radius: float, tol: float = INDICATOR_TOL) -> bool:
    """``norm <= radius`` up to ``tol`` (relative to the radius when it exceeds 1)."""
    return bool(norm <= radius + tol * max(1.0, radius))


def all_finite(x: ArrayLike) -> bool:
    """Membership test of a function finite on all of R^N: every entry is finite."""
    return bool(np.all(np.isfinite(np.asarray(x, dtype=np.float64))))
