"""Projections onto the simplex and the capped simplex, Euclidean and entropic.

The capped simplex is ``{d in R^N : sum(d) = 1, 0 <= d <= 1/nu}`` with a real ``nu`` in
``[1, N]`` (docs/math.md#capped-simplex-support, [DERIVED] real cap; ``nu = 1`` is the plain
simplex).

* :func:`project_capped_simplex` is the Euclidean projection, sort-based, O(N log N).
* :func:`entropic_project_capped_simplex` is the relative-entropy (Bregman) projection of
  [SS] Fig. 2 / [KG] Alg. 4.2 with the cap-unit erratum KG-12 fixed (docs/math.md#capped-softmax), done
  in the log domain so that weights ``exp(-eta * margin)`` with ``eta`` up to 10^6 never
  overflow or underflow before normalisation.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_nu

__all__ = [
    "logsumexp",
    "project_simplex",
    "project_capped_simplex",
    "entropic_project_capped_simplex",
    "capped_softmax",
    "CappedSoftmax",
    "capped_simplex_support",
    "spread_residual",
]

#: a point within this of sum 1, inside the box, is projected by spreading its residual (exact up
#: to rounding: the shift is too small to move an entry across a bound)
ROUNDING_TOL = 1e-12


#: arguments below this give exp(x) < 3.3e-308, denormal from -708.4 on: :func:`exp_nonpositive` sets
#: them to 0. numpy's exp takes a slow path where its result is denormal or underflows (measured on
#: 1000 entries: 1 us in [-700, 0], 94 us in [-745, -708], 12 us below -746), which the weights
#: exp(eta * margin - max) of a large eta mostly are (a9a's stumps at eta = 1386: 13 us of a capped
#: softmax's 33 us)
MIN_EXP = -708.0


def exp_nonpositive(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``exp(x)`` for ``x <= 0`` (weights relative to the largest), with the entries below
    :data:`MIN_EXP` set to 0 (below 3.3e-308 of the largest: a sum of N such weights moves by less
    than N * 3.3e-308, far below rounding) instead of computed on numpy's slow underflow path.
    (Where none is below, plain exp: the masked one cost 2.4 us against 0.85 us at N = 1000, and
    the check 1 us.)"""
    if x.size == 0 or x.min() >= MIN_EXP:
        return np.exp(x)
    return np.exp(x, out=np.zeros(x.shape), where=x >= MIN_EXP)


def logsumexp(x: NDArray[np.float64]) -> float:
    """``log(sum(exp(x)))`` without overflow: ``max + log(sum(exp(x - max)))``; ``-inf`` for an
    empty or all ``-inf`` input. A plain-numpy version of scipy's, ~10x faster on the hot path of
    the dual solvers (scipy's goes through its array-API layer).

    Parameters
    ----------
    x : ndarray
        The exponents.

    Returns
    -------
    float
        ``log(sum(exp(x)))``.
    """
    if x.size == 0:
        return -np.inf
    top = x.max()
    if not np.isfinite(top):
        return float(top)
    return float(top + np.log(exp_nonpositive(x - top).sum()))


def _as_vector(x: ArrayLike, name: str) -> NDArray[np.float64]:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array; got shape {x.shape}")
    return x


def project_capped_simplex(x: ArrayLike, nu: float = 1.0) -> NDArray[np.float64]:
    """Euclidean projection of ``x`` onto ``{d : sum d = 1, 0 <= d <= 1/nu}``.

    The projection is ``clip(x - tau, 0, 1/nu)`` where ``tau`` solves the piecewise-linear
    equation ``sum clip(x - tau, 0, 1/nu) = 1``; its 2N breakpoints ``x_i`` and ``x_i - 1/nu``
    are sorted once, so the cost is O(N log N).

    Parameters
    ----------
    x : array_like, shape (N,)
        The point projected.
    nu : float, default 1.0
        The capping, any real in [1, N].

    Returns
    -------
    ndarray, shape (N,)
        The projection.
    """
    x = _as_vector(x, "x")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite (no NaN or inf)")
    n = x.size
    nu = check_nu(nu, n)
    cap = 1.0 / nu
    if x.min() >= 0.0 and x.max() <= cap and abs(x.sum() - 1.0) <= ROUNDING_TOL:
        # feasible up to rounding (a capped softmax, say): the shift tau is below 1e-12, so no
        # entry strictly inside (0, cap) crosses a bound and the projection moves only those
        return spread_residual(x.copy(), cap)
    xs = np.sort(x)  # ascending
    csum = np.concatenate(([0.0], np.cumsum(xs)))  # csum[k] = sum of the k smallest

    def mass(tau: NDArray[np.float64]) -> NDArray[np.float64]:
        # sum_i clip(x_i - tau, 0, cap): entries with x_i >= tau + cap give cap, entries with
        # tau < x_i < tau + cap give x_i - tau, the rest 0.
        hi = np.searchsorted(xs, tau + cap, side="left")  # first index with x >= tau + cap
        lo = np.searchsorted(xs, tau, side="right")  # first index with x > tau
        mid_sum = csum[hi] - csum[lo]
        return (n - hi) * cap + mid_sum - (hi - lo) * tau

    breaks = np.unique(np.concatenate((xs, xs - cap)))
    m = mass(breaks)  # non-increasing in tau
    # mass(tau) = 1 lies between the last breakpoint with mass >= 1 and the next one.
    # mass(breaks[0]) = N/nu >= 1 and mass(breaks[-1]) = 0, so the crossing lies in
    # [breaks[k], breaks[k+1]] for the last k with mass >= 1 (clamped against rounding of N/nu).
    k = int(np.clip(np.searchsorted(-m, -1.0, side="right") - 1, 0, breaks.size - 2))
    t0, t1, m0, m1 = breaks[k], breaks[k + 1], m[k], m[k + 1]
    tau = t0 if m0 == m1 else t0 + (m0 - 1.0) * (t1 - t0) / (m0 - m1)
    # Remove the rounding left by the interpolation: spread the residual over the free entries.
    return spread_residual(np.clip(x - tau, 0.0, cap), cap)


def spread_residual(d: NDArray[np.float64], cap: float) -> NDArray[np.float64]:
    """``d`` (in place) with ``1 - sum d`` spread evenly over its entries strictly inside (0, cap).

    Parameters
    ----------
    d : ndarray
        A nearly normalised point of the capped simplex.
    cap : float
        The cap on each entry.

    Returns
    -------
    ndarray
        ``d``, changed in place.
    """
    free = (d > 0) & (d < cap)
    if np.any(free):
        d[free] += (1.0 - d.sum()) / np.count_nonzero(free)
        np.clip(d, 0.0, cap, out=d)
    return d


def project_simplex(x: ArrayLike) -> NDArray[np.float64]:
    """Euclidean projection onto the probability simplex (the capped simplex with ``nu = 1``).

    Parameters
    ----------
    x : array_like, shape (N,)
        The point projected.

    Returns
    -------
    ndarray, shape (N,)
        The projection.
    """
    return project_capped_simplex(x, 1.0)


class CappedSoftmax(NamedTuple):
    """The entropic projection with its structure: ``d[capped] = 1/nu`` and
    ``d[n] = exp(log_scale + log_weights[n])`` for every other n ([SS] Lemma 16), so that the
    conjugate of the capped relative entropy follows in O(#capped) (docs/math.md#capped-softmax)."""

    d: NDArray[np.float64]
    capped: NDArray[np.intp]
    log_scale: float


def entropic_project_capped_simplex(log_weights: ArrayLike, nu: float = 1.0) -> NDArray[np.float64]:
    """Relative-entropy projection of the positive weights ``exp(log_weights)`` onto the capped simplex.

    Returns ``argmin_{d : sum d = 1, d <= 1/nu} KL(d || exp(log_weights))``. The weights need not be
    normalised (only ratios matter, docs/math.md#capped-softmax). The solution has the form of Lemma 16
    of [SS]: the ``i`` largest weights are capped at ``1/nu`` and the rest are ``xi * weight`` with
    ``xi = (1 - i/nu) / (sum of the remaining weights)``; ``i`` is the first index in the descending
    order at which the scaled weight does not exceed the cap ([SS] Fig. 2, with the cap value ``1/nu``
    in [KG] units, erratum KG-12). Only the ``floor(nu) + 1`` largest
    weights are sorted: cost O(N + nu log nu), and O(N) when no weight reaches the cap.

    Parameters
    ----------
    log_weights : array_like, shape (N,)
        The logarithms of the weights; entries may be ``-inf`` (zero weight), and at least
        ``ceil(nu)`` of them must be finite for the projection to exist.
    nu : float, default 1.0
        The capping, in [1, N].

    Returns
    -------
    ndarray, shape (N,)
        The projection d.
    """
    lw = _as_vector(log_weights, "log_weights")
    if np.any(np.isnan(lw)) or np.any(lw == np.inf):
        raise ValueError("log_weights must not contain NaN or +inf")
    nu = check_nu(nu, lw.size)
    if np.count_nonzero(np.isfinite(lw)) < np.ceil(nu - 1e-12):
        raise ValueError(
            f"the projection onto the capped simplex with nu={nu} needs at least ceil(nu) "
            "entries of positive weight"
        )
    return capped_softmax(lw, nu).d


def capped_softmax(lw: NDArray[np.float64], nu: float) -> CappedSoftmax:
    """:func:`entropic_project_capped_simplex` of checked input (float64, no NaN or +inf, at least
    ceil(nu) finite entries, ``nu`` in [1, N]), with its structure; the dual solvers' hot path.

    The weights are scaled by their largest, ``e = exp(lw - max lw)`` in [0, 1] (one exp pass):
    no overflow, and an entry that underflows is below 1e-308 of the largest. The sums of the
    weights outside the ``i`` largest are exact sums of non-negative terms (no cancellation); when
    they underflow (all remaining weights below 1e-280 of the largest, eta ~ 10^6 with far
    margins) the log-domain computation takes over.

    Parameters
    ----------
    lw : ndarray of shape (N,)
        The log weights.
    nu : float
        The capping, in [1, N] (the cap is 1/nu).

    Returns
    -------
    CappedSoftmax
        The projection and its structure.
    """
    n = lw.size
    top = lw.max()
    e = exp_nonpositive(lw - top)
    total = e.sum()
    cap = 1.0 / nu
    if nu == 1.0 or total * cap >= 1.0:  # no entry reaches the cap (the largest is e = 1): softmax
        e /= total
        return CappedSoftmax(e, np.zeros(0, dtype=np.intp), float(-top - np.log(total)))
    # Fewer than nu entries are capped, so only the K = floor(nu) + 1 largest weights need sorting:
    # O(N + K log K) instead of a full sort.
    k = min(int(np.floor(nu)), n - 1) + 1
    # ordered by lw, not e (the same order where e does not underflow to 0): the log domain reuses it
    largest = _largest(lw, k)
    ts = e[largest]  # a copy (fancy indexing): e's top entries are zeroed to sum the rest exactly
    e[largest] = 0.0
    rest = e.sum()
    e[largest] = ts
    suffix = np.cumsum(ts[::-1])[::-1] + rest  # suffix[i]: the sum of every weight below the i largest
    mass = 1.0 - np.arange(k) / nu  # 1 - i/nu
    ok = mass * ts <= cap * suffix * (1.0 + 1e-12)  # xi_i * weight_i <= cap
    i = int(np.argmax(ok)) if np.any(ok) else k - 1
    if mass[i] <= 0.0:  # nu an integer and i = nu: the rest get nothing
        d, log_scale = np.zeros(n), -np.inf
    elif suffix[i] < 1e-280:  # the weights that share 1 - i/nu underflowed: in the log domain
        return _capped_softmax_log(lw, nu, largest)
    else:
        xi = mass[i] / suffix[i]
        d = np.minimum(e * xi, cap, out=e)
        log_scale = float(np.log(xi) - top)
    d[largest[:i]] = cap
    return CappedSoftmax(d, largest[:i], log_scale)


def _largest(x: NDArray[np.float64], k: int) -> NDArray[np.intp]:
    """The indices of ``k`` largest entries of ``x`` in descending order: a partition, then a stable
    sort of those k only, O(N + k log k)."""
    top = np.argpartition(-x, k - 1)[:k] if k < x.size else np.arange(x.size)
    return top[np.argsort(-x[top], kind="stable")]


def _capped_softmax_log(lw: NDArray[np.float64], nu: float, largest: NDArray[np.intp]) -> CappedSoftmax:
    """:func:`capped_softmax` in the log domain, ``largest`` the K largest log-weights' indices in
    descending order (:func:`_largest`). Two passes over the N entries beside the K largest: the
    log-sum-exp of the rest relative to the K-th largest log-weight (the rest's sum beside it only
    matters where it is within a factor 1e308 of it, so an underflow there is exact to rounding),
    and the final exp. (At N = 1000, nu = N/2, eta = 1386, a9a's stumps, this branch ran in 11 of
    a cold solve's 25 capped softmaxes; a whole capped softmax through it took 124 us when it
    sorted the log-weights again, masked out the rest and ran plain exps, 81 us now, against 33 us
    through the linear branch alone.)"""
    log_cap = -np.log(nu)
    k = largest.size
    ts = lw[largest]
    if k < lw.size and np.isfinite(ts[-1]):
        shifted = lw - ts[-1]  # <= 0 outside the K largest: no overflow
        shifted[largest] = -np.inf
        with np.errstate(divide="ignore"):  # log 0 = -inf: the rest underflowed beside ts[-1]
            lse_rest = float(ts[-1] + np.log(exp_nonpositive(shifted).sum()))
    else:  # no rest, or every remaining weight is 0
        lse_rest = -np.inf
    # suffix[i] = logsumexp of every weight below the i largest
    suffix = np.logaddexp.accumulate(np.append(ts, lse_rest)[::-1])[::-1][:k]
    idx = np.arange(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_mass = np.log1p(-idx / nu)  # log(1 - i/nu), -inf when i == nu
        log_xi = log_mass - suffix
        ok = log_xi + ts <= log_cap + 1e-12
    i = int(np.argmax(ok)) if np.any(ok) else k - 1
    # Lemma 16: d = min(cap, xi * weight), the min taken in the log domain (no overflow)
    if log_xi[i] == np.inf:  # the weights below the i largest are all 0: the rest get nothing
        d = np.where(np.isfinite(lw), 1.0 / nu, 0.0)
    else:  # relative to the i-th largest log-weight: log_xi + lw adds numbers of size eta and rounds
        # to ulp(eta) (5.8e-5 of d at eta = 1e12: sum d = 0.99998); lw - ts[i] is exact near ts[i]
        # and underflows far from it (-inf - ts[i] = -inf: no NaN)
        log_norm = float(np.logaddexp.reduce(np.append(ts[i:], lse_rest) - ts[i]))
        d = exp_nonpositive(np.minimum(log_mass[i] - log_norm + (lw - ts[i]), log_cap))
    d[largest[:i]] = 1.0 / nu
    return CappedSoftmax(d, largest[:i], float(log_xi[i]) if np.isfinite(log_xi[i]) else -np.inf)


def capped_simplex_support(theta: ArrayLike, nu: float = 1.0) -> float:
    """Support function ``max_{d in capped simplex} <d, theta>`` (docs/math.md#capped-simplex-support).

    Equals ``(1/nu) * sum of the K largest entries + (1 - K/nu) * the (K+1)-th largest`` with
    ``K = floor(nu)``; ``nu = 1`` gives ``max(theta)``. This is the conjugate of the capped-simplex
    indicator (entry 2 of docs/math.md#conjugate-table).

    Parameters
    ----------
    theta : array_like, shape (N,)
        The direction.
    nu : float, default 1.0
        The capping, in [1, N].

    Returns
    -------
    float
        The support function's value.
    """
    theta = _as_vector(theta, "theta")
    n = theta.size
    nu = check_nu(nu, n)
    k = int(np.floor(nu))
    if k >= n:
        return float(theta.mean())
    top = -np.partition(-theta, k)[: k + 1]  # the k+1 largest, the (k+1)-th at position k
    top_k = np.sort(top)[::-1]
    return float(top_k[:k].sum() / nu + (1.0 - k / nu) * top_k[k])
