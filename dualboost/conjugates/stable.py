"""Entropy terms evaluated without cancellation at every eta (docs/math.md#stable-evaluation).

The entropic regularisers' values and conjugates are differences of nearly equal quantities at the
ends of the eta range: as eta -> 0, ``d -> d0``, so ``sum_n d_n ln(d_n/d0_n)`` is a sum of terms of
size eta whose total is of size eta^2, and ``(1/eta) ln sum_n d0_n e^{eta theta_n}`` divides a
logarithm of size eta, rounded to 1e-16 absolute, by eta. Computed naively both lose
``1e-16 / eta`` absolutely (1e-5 at eta = 1e-11), more than a certificate's tolerance. The forms
here keep the absolute error at a few units of rounding times the spread of theta, whatever eta.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import kl_div

from dualboost.conjugates.projections import logsumexp

__all__ = ["entropy_excess", "log_mean_exp", "log_mixture"]

#: |r - 1| below which ``r ln r - r + 1`` is summed as its series (16 terms: the next is below
#: 1e-17 of the first at |r - 1| = 0.1)
_SERIES_RADIUS = 0.1
_SERIES_TERMS = 16
#: eta times the spread of theta below which the log-mean-exp uses ``log1p`` / ``expm1`` (no
#: overflow: the exponents are at most 1 in size); above it the log-sum-exp, whose rounding
#: ``1e-16 |ln sum|`` divided by eta is at most 1e-16 times the spread
_SMALL_EXPONENT = 1.0


def entropy_excess(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """``x ln(x/y) - x + y`` entrywise (scipy's ``kl_div``) for ``x >= 0``, ``y > 0``, accurate to
    a few units of rounding relative to the result also where ``x ~ y``: there it is
    ``y g(1 + delta)`` with ``delta = (x - y)/y`` (``x - y`` exact for x within a factor 2 of y) and
    ``g(1 + delta) = sum_{k >= 2} (-delta)^k / (k (k - 1))``, the series of ``r ln r - r + 1``;
    elsewhere the closed form, which does not cancel there (``g >= 0.0048``). ``+inf`` where
    ``y = 0 < x``; ``y`` where ``x = 0``.

    Parameters
    ----------
    x : array-like
        Non-negative values.
    y : array-like
        Positive values, of x's shape.

    Returns
    -------
    ndarray
        ``x ln(x/y) - x + y`` entrywise.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    if x.size == 0:
        return np.zeros(x.shape)
    out = kl_div(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (x - y) / y
    near = np.abs(delta) <= _SERIES_RADIUS
    if near.any():
        dn = delta[near]
        # the terms k = 2..last, with |delta|^(last - 1) <= 1e-17 (the rest relative to the first): 2
        # to 4 for the |delta| ~ eta of a small eta, all 16 at |delta| = 0.1 (each costs a pass)
        top = float(np.abs(dn).max())
        last = 2 if top == 0.0 else min(_SERIES_TERMS + 1, 1 + int(np.ceil(17.0 / -np.log10(top))))
        series = np.zeros(dn.shape)
        for k in range(last, 1, -1):  # Horner in -delta from the highest term down
            series = series * -dn + 1.0 / (k * (k - 1))
        out[near] = y[near] * series * dn * dn
    return out


def log_mean_exp(theta: NDArray[np.float64], p: NDArray[np.float64], eta: float) -> float:
    """``(1/eta) ln sum_n p_n e^{eta theta_n}`` for a distribution p (``sum p = 1``, ``p >= 0``):
    the (capped) log-sum-exp of the entropic conjugates, written as ``m + (1/eta) ln E_p e^{eta y}``
    with ``m = E_p theta`` and ``y = theta - m``. When ``eta max|y| <= 1`` the logarithm is
    ``log1p(E_p expm1(eta y))``, whose argument is ``eta E_p y`` (rounding of m) plus
    ``eta^2 Var_p(theta)/2 + ...``: divided by eta, an absolute error of rounding times
    ``max|y|`` (the cumulant expansion ``E_p theta + (eta/2) Var_p theta + ...`` summed exactly);
    above, the log-sum-exp of ``ln p + eta y``, rounded to ``1e-16 (eta max|y| + ln N)``.

    Parameters
    ----------
    theta : ndarray of shape (N,)
        The exponents.
    p : ndarray of shape (N,)
        A distribution.
    eta : float
        The scale (> 0).

    Returns
    -------
    float
        ``(1/eta) ln sum_n p_n e^{eta theta_n}``.
    """
    if p.min(initial=1.0) <= 0.0:
        support = p > 0
        theta, p = theta[support], p[support]
    # products summed without BLAS: a dot product on freshly gathered vectors took 2.4 ms at
    # N = 20000 on a busy machine (BLAS threads waking), the sum 40 us
    m = float(np.sum(p * theta))
    y = theta - m
    spread = float(np.abs(y).max(initial=0.0))
    if eta * spread <= _SMALL_EXPONENT:
        return m + float(np.log1p(np.sum(p * np.expm1(eta * y)))) / eta
    with np.errstate(divide="ignore"):
        return m + logsumexp(np.log(p) + eta * y) / eta


def log_mixture(
    log_a: NDArray[np.float64], log_1ma: NDArray[np.float64], delta: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``ln(1 - a + a e^delta)`` entrywise from ``ln a`` and ``ln(1 - a)`` (``0 < a < 1``): the
    terms of the binary entropy's conjugate ([KG] Lemma 3.18). Where ``|delta| <= 1``,
    ``log1p(a expm1(delta))`` (of size ``a delta``, relative rounding); elsewhere
    ``logaddexp(ln(1 - a), ln a + delta)``, which does not overflow.

    Parameters
    ----------
    log_a : ndarray
        ``ln a``.
    log_1ma : ndarray
        ``ln(1 - a)``.
    delta : ndarray
        The exponents.

    Returns
    -------
    ndarray
        ``ln(1 - a + a e^delta)`` entrywise.
    """
    small = np.abs(delta) <= 1.0
    with np.errstate(over="ignore"):
        near = np.log1p(np.exp(log_a) * np.expm1(np.where(small, delta, 0.0)))
    return np.where(small, near, np.logaddexp(log_1ma, log_a + delta))
