"""The passes of :class:`dualboost.problems.kernels.StumpColumns` (its reference is the same class's
numpy path): ``U w`` and ``U^T d`` for decision-stump columns through each feature's sort order, O(N F)
per product instead of O(N t) (docs/architecture.md#compiled-code)."""

import numpy as np

cimport cython


def step_sums(
    const Py_ssize_t[::1] cut,
    const double[::1] c,
    const int[:, ::1] position,
    double[::1] steps,
    double[::1] out,
):
    """``out[n] = sum_f steps_f[position[f, n]]`` with ``steps_f`` the running sums along feature f's
    sort order of the weights ``c`` placed at ``cut`` (flat slots ``f * (N + 1) + p``): the sum over
    the stumps of ``c_j [x_n is above the stump's threshold]``. ``steps`` is scratch of F (N + 1)."""
    cdef Py_ssize_t F = position.shape[0], N = position.shape[1], width = N + 1
    cdef Py_ssize_t f, n, j, base
    cdef double run
    with nogil:
        for j in range(steps.shape[0]):
            steps[j] = 0.0
        for j in range(cut.shape[0]):
            steps[cut[j]] += c[j]
        for f in range(F):
            base = f * width
            run = 0.0
            for n in range(width):
                run = run + steps[base + n]
                steps[base + n] = run
        for n in range(N):
            out[n] = 0.0
        for f in range(F):
            base = f * width
            for n in range(N):
                out[n] += steps[base + position[f, n]]


def prefix_sums(
    const int[:, ::1] order,
    const double[::1] v,
    const Py_ssize_t[::1] cut,
    double[::1] sums,
    double[::1] out,
):
    """``out[j] = sum of v over the rows before slot cut[j]`` of its feature's sort order (flat slots
    ``f * (N + 1) + p``, p rows before): ``sums`` is scratch of F (N + 1)."""
    cdef Py_ssize_t F = order.shape[0], N = order.shape[1], width = N + 1
    cdef Py_ssize_t f, n, j, base
    cdef double run
    with nogil:
        for f in range(F):
            base = f * width
            run = 0.0
            sums[base] = 0.0
            for n in range(N):
                run = run + v[order[f, n]]
                sums[base + n + 1] = run
        for j in range(cut.shape[0]):
            out[j] = sums[cut[j]]



@cython.boundscheck(False)
@cython.wraparound(False)
def stump_gram(
    const int[:, ::1] position,
    const Py_ssize_t[::1] cut,
    const double[::1] sign,
    const double[::1] g,
    double[:, ::1] out,
    const double[::1] p_low=None,
    double inverse=0.0,
    double factor=1.0,
):
    """``out = factor (U^T diag(g) U - inverse p_low p_low^T)`` (a rank-one term only where
    ``p_low`` is given: the dual Hessian ``-scale (gram - a a^T / sum s)`` in the same pass) for the columns ``u_j = y s_j (2 a_j - 1)``, ``a_j`` the rows above
    the cut ``cut[j]`` (flat slot ``f * (N + 1) + p``: the rows at position p and beyond in feature
    slot f's sort order; -1 for a constant, ``a_j = 1``), ``s_j = sign[j]`` (``y^2 = 1``):
    ``s_i s_j (4 A_ij - 2 A_ii - 2 A_jj + sum g)`` with ``A_ij = sum_n g_n a_i a_j``. Each used
    slot's distinct cuts split its rows into buckets; per pair of used slots the g-weighted 2D
    histogram of the rows' buckets, summed from the top along both axes, holds every ``A_ij``
    (:func:`bucket_gram`). O(N F_S^2 / 2 + K^2 + t^2), K the distinct cuts plus F_S."""
    cdef Py_ssize_t F = position.shape[0], N = position.shape[1], width = N + 1, t = cut.shape[0]
    cdef Py_ssize_t f, j, k, n, used = 0, K
    cdef int[::1] local = np.full(F, -1, dtype=np.int32)
    cdef int[::1] marks = np.zeros(F * width, dtype=np.int32)
    for j in range(t):
        if cut[j] >= 0:
            f = cut[j] // width
            marks[cut[j]] = 1
            if local[f] < 0:
                local[f] = 0
    slots = np.flatnonzero(np.asarray(local) >= 0)
    cdef Py_ssize_t[::1] slot = slots.astype(np.intp)
    used = slot.shape[0]
    for k in range(used):
        local[slot[k]] = k
    cdef int[:, ::1] bucket = np.empty((used, N), dtype=np.int32)
    cdef Py_ssize_t[::1] offset = np.zeros(used + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] select = np.zeros(t, dtype=np.intp)
    cdef Py_ssize_t base
    with nogil:
        for k in range(used):  # running counts of the distinct cuts at or below each slot
            base = slot[k] * width
            for n in range(1, width):
                marks[base + n] += marks[base + n - 1]
            offset[k + 1] = offset[k] + marks[base + N] + 1
            for n in range(N):
                bucket[k, n] = marks[base + position[slot[k], n]]
        for j in range(t):  # a constant: bucket 0 of the first slot (every row)
            if cut[j] >= 0:
                k = local[cut[j] // width]
                select[j] = offset[k] + marks[cut[j]]
    if used == 0:
        K = 1
        hist = np.full((1, 1), np.sum(g))
    else:
        K = offset[used]
        hist = np.empty((K, K))
        bucket_gram(bucket, g, offset, hist)
    cdef double[:, ::1] S = hist
    cdef double total = S[0, 0], si, low, value, diag_i
    cdef double[::1] diag = np.empty(t)
    cdef Py_ssize_t i, row
    cdef bint rank_one = p_low is not None
    if rank_one and p_low.shape[0] != t:
        raise ValueError("p_low must have one entry per column")
    with nogil:
        for i in range(t):
            diag[i] = S[select[i], select[i]]
        for i in range(t):  # the lower triangle, mirrored (the same expression for (i, j) and (j, i))
            si, row, diag_i = sign[i], select[i], diag[i]
            for j in range(i + 1):
                low = inverse * p_low[i] * p_low[j] if rank_one else 0.0
                value = factor * (si * sign[j] * (
                    4.0 * S[row, select[j]] - 2.0 * diag_i - 2.0 * diag[j] + total
                ) - low)
                out[i, j] = value
                out[j, i] = value


@cython.boundscheck(False)
@cython.wraparound(False)
def bucket_gram(
    const int[:, ::1] bucket,
    const double[::1] g,
    const Py_ssize_t[::1] offset,
    double[:, ::1] out,
):
    """``out[offset[f] + b, offset[h] + c] = sum of g over the rows whose bucket in feature slot f is
    at least b and in slot h at least c``: per pair of slots, the weighted 2D histogram of the rows'
    buckets (``bucket[f, n]`` in ``0 .. offset[f + 1] - offset[f] - 1``), summed from the top along
    both axes; every block (f, h), both triangles, O(N F^2 / 2 + K^2) for ``K = offset[F]``. ``out``
    is K x K and overwritten."""
    cdef Py_ssize_t F = bucket.shape[0], N = bucket.shape[1], K = out.shape[0]
    cdef Py_ssize_t f, h, n, r, c, r0, r1, c0, c1
    with nogil:
        for r in range(K):
            for c in range(K):
                out[r, c] = 0.0
        for f in range(F):  # pair by pair: each block's histogram stays in cache
            for h in range(f, F):
                for n in range(N):
                    out[offset[f] + bucket[f, n], offset[h] + bucket[h, n]] += g[n]
        for f in range(F):
            r0, r1 = offset[f], offset[f + 1]
            for h in range(f, F):
                c0, c1 = offset[h], offset[h + 1]
                for r in range(r1 - 2, r0 - 1, -1):
                    for c in range(c0, c1):
                        out[r, c] += out[r + 1, c]
                for r in range(r0, r1):
                    for c in range(c1 - 2, c0 - 1, -1):
                        out[r, c] += out[r, c + 1]
                if h > f:
                    for r in range(r0, r1):
                        for c in range(c0, c1):
                            out[c, r] = out[r, c]


def indicator_sums(
    const int[::1] indices, const Py_ssize_t[::1] indptr, const double[::1] v, double[::1] out
):
    """``out[j] = sum of v over the rows indices[indptr[j]:indptr[j + 1]]``: ``B^T v`` for a 0/1
    matrix B in CSC form without its data array (:class:`dualboost.problems.sparse_columns.SparseStumpColumns`)."""
    cdef Py_ssize_t j, k
    cdef double total
    with nogil:
        for j in range(out.shape[0]):
            total = 0.0
            for k in range(indptr[j], indptr[j + 1]):
                total += v[indices[k]]
            out[j] = total


def indicator_scatter(
    const int[::1] indices, const Py_ssize_t[::1] indptr, const double[::1] coef, double[::1] out
):
    """``out[n] += sum of coef[j] over the columns j whose rows include n``: ``B coef`` added to out
    for a 0/1 matrix B in CSC form without its data array."""
    cdef Py_ssize_t j, k
    cdef double c
    with nogil:
        for j in range(coef.shape[0]):
            c = coef[j]
            if c != 0.0:
                for k in range(indptr[j], indptr[j + 1]):
                    out[indices[k]] += c
