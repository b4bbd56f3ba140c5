"""The per-example loop of Online BBM and AdaBoost.OL ([BKL] Algs. 1 and 2) in compiled code.

``OnlineBooster.learn_row`` with ``OnlineBBM._step`` / ``AdaBoostOL._step`` stays the reference
(docs/architecture.md#compiled-code): :func:`learn_rows` runs the same rounds on the same arrays
(the booster's and, through a :class:`~dualboost.oracles._online.BankKernel`, the weak learners'
bank's), in place, so the two paths make the same predictions and agree to rounding
(tests/test_online_compiled.py). The random numbers (uniforms for sampling, Gumbels for the Hedge
draw) are drawn by the caller in the reference's blocks and order; a call returns before a row that
needs a fresh block, and after a row at which the caller's callback is due.
"""

from libc.math cimport exp, sqrt

from dualboost.oracles._online cimport BankKernel

import numpy as np


def learn_rows(
    BankKernel bank,
    bint adaboost_ol,
    const Py_ssize_t[::1] indptr,
    const Py_ssize_t[::1] indices,
    const double[::1] data,
    const Py_ssize_t[::1] labels,
    const double[::1] weights,
    Py_ssize_t start,
    long long n_seen,
    Py_ssize_t every,
    Py_ssize_t block,
    Py_ssize_t kmax,
    const double[::1] p_flat,
    Py_ssize_t[::1] index,
    double[::1] alpha,
    double[::1] log_v,
    const double[:, ::1] gumbels,
    bint sampling,
    const double[:, ::1] uniforms,
    double[::1] wz,
    double[::1] wsum,
    double[::1] last_w,
    double[::1] last_p,
    double[::1] last_passed,
    unsigned char[::1] last_b,
    Py_ssize_t[::1] out,
    double[::1] totals,
):
    """Learn rows ``start, start + 1, ...`` of the CSR stream (indptr, indices, data; the intercept
    is added by the bank) with labels in {-1, +1} and importance ``weights``; returns the next row
    and the new ``n_seen``. Stops at the end, before a row whose n_seen is a multiple of ``block``
    (the caller draws the next block of random numbers) unless it is the first, and after a row
    whose n_seen is a multiple of ``every`` (> 0: the caller's callback). ``kmax``: the most non-zeros
    of a row.

    Online BBM (``adaboost_ol`` False): ``p_flat`` is ``OnlineBBM._p_flat``, ``index`` its
    ``_index``. AdaBoost.OL: ``alpha``, ``log_v`` and the Gumbels of the current block. ``wz``,
    ``wsum``: the edge sums (sum_t w z, sum_t w); ``last_*``: the last row's b, p, passed weights and
    d-domain weights (BBM: p, whose w is read through ``index``); ``out``: the progressive
    predictions; ``totals``: [mistakes, weight_seen], by importance weight."""
    cdef Py_ssize_t n = alpha.shape[0] if adaboost_ol else index.shape[0] - 1
    cdef Py_ssize_t n_rows = labels.shape[0], row = start, i, a, k, t, i_t, c
    cdef Py_ssize_t width = 2 * n + 1
    cdef double y, weight, best, factor, neg, e_prev, e_next, mistakes = totals[0], weight_seen = totals[1]
    cdef int yhat
    cdef bint unit
    bank.reserve(kmax)
    b_arr = np.zeros(n, dtype=np.uint8)
    p_arr = np.zeros(n)
    h_arr = np.zeros(n)
    s_arr = np.zeros(n + 1)
    cdef unsigned char[::1] b = b_arr
    cdef double[::1] p = p_arr
    cdef double[::1] h = h_arr
    cdef double[::1] neg_s = s_arr
    with nogil:
        while row < n_rows:
            t = (n_seen + 1) % block
            if t == 0 and row > start:
                break
            n_seen += 1
            a, k = indptr[row], indptr[row + 1] - indptr[row]
            bank.predict(&indices[a], &data[a], k, &b[0])
            y = <double>labels[row]
            weight = weights[row]
            unit = weight == 1.0
            weight_seen += weight
            if adaboost_ol:
                # AdaBoostOL._step: -s^i = sum_{j<i} alpha^j (-z^j), i = 0..N
                neg_s[0] = 0.0
                for i in range(n):
                    neg = -y if b[i] else y
                    h[i] = neg  # -z^i, kept for the alpha step
                    neg_s[i + 1] = neg_s[i] + alpha[i] * neg
                i_t = 0
                best = log_v[0] + gumbels[t, 0]
                for i in range(1, n):
                    if log_v[i] + gumbels[t, i] > best:
                        best, i_t = log_v[i] + gumbels[t, i], i
                yhat = 1 if y * neg_s[i_t + 1] < 0.0 else -1
                factor = 4.0 / sqrt(<double>n_seen)
                e_prev = 0.5  # expit(-s^0) = expit(0)
                for i in range(n):
                    # w^i = 1/(1 + e^{s^{i-1}}); the OGD factor 1/(1 + e^{s^i})
                    e_next = 1.0 / (1.0 + exp(-neg_s[i + 1]))
                    p[i] = e_prev
                    if unit:
                        alpha[i] -= h[i] * e_next * factor
                    else:
                        alpha[i] -= h[i] * e_next * factor * weight
                    alpha[i] = max(min(alpha[i], 2.0), -2.0)
                    # Hedge: expert i erred iff y s^i <= 0 (y = +1), y s^i < 0 (y = -1)
                    if (neg_s[i + 1] >= 0.0) if y > 0 else (neg_s[i + 1] > 0.0):
                        log_v[i] -= weight
                    e_prev = e_next
                if t == 0:
                    best = log_v[0]
                    for i in range(1, n):
                        best = max(best, log_v[i])
                    for i in range(n):
                        log_v[i] -= best
            else:
                # OnlineBBM._step: flat index i (2N+1) + N + y (2 c_i - i), c_i = #{j < i: b_j}
                c = 0
                for i in range(n):
                    index[i] = i * width + n + <Py_ssize_t>y * (2 * c - i)
                    p[i] = p_flat[index[i]]
                    c += b[i]
                index[n] = c
                yhat = 1 if 2 * c > n else -1
            for i in range(n):
                if sampling:
                    h[i] = 1.0 if uniforms[t, i] < p[i] else 0.0
                else:
                    h[i] = p[i]
                if not unit:
                    h[i] *= weight
            bank.learn(&indices[a], &data[a], k, y, &h[0])
            if yhat != <int>y:
                mistakes += weight
            for i in range(n):
                neg = p[i] * weight if not unit else p[i]  # w (BBM: p, up to a constant per learner)
                wz[i] += neg * (y if b[i] else -y)
                wsum[i] += neg
            out[row] = yhat
            row += 1
            if every > 0 and n_seen % every == 0:
                break
        if row > start:
            for i in range(n):
                last_b[i] = b[i]
                last_p[i] = p[i]
                last_passed[i] = h[i]
                last_w[i] = p[i]
    totals[0], totals[1] = mistakes, weight_seen
    return row, n_seen
