"""The passes of :class:`dualboost.problems.kernels.StumpColumns` (their reference: the explicit
products with U, tests/problems/test_stump_columns.py): ``U w`` and ``U^T d`` for decision-stump
columns through each feature's sort order, O(N F) per product instead of O(N t)
(:class:`StumpPasses`, also handed to the compiled solver as ``Passes``,
dualboost/solvers/_passes.pxd), and their Gram (:func:`stump_gram`); and those of
:class:`dualboost.problems.sparse_columns.SparseStumpColumns` (reference: the explicit products and
scipy's, tests/problems/test_indicator_passes.py), through the 0/1 indicators B of its columns,
O(N + nnz(B)) per pass and O(N + sum_n nnz(B_n)^2) per Gram (:class:`IndicatorPasses`, also a
``Passes``) (docs/architecture.md#compiled-code)."""

import numpy as np

cimport cython
from cpython.pycapsule cimport PyCapsule_New
from libc.stdlib cimport calloc, free, malloc

from dualboost.solvers._passes cimport Gram, Passes, pass_fn
from dualboost._sums cimport pairwise_sum as _pairwise_sum

#: the name of the capsules of :meth:`StumpPasses.capsule` (``dualboost/solvers/_passes.pxd``)
cdef const char* _PASSES_NAME = b"dualboost.solvers._passes.Passes"
PASSES_NAME = _PASSES_NAME
#: the name of the capsules of :meth:`StumpPasses.gram_capsule` (``dualboost/solvers/_passes.pxd``)
cdef const char* _GRAM_NAME = b"dualboost.solvers._passes.Gram"
GRAM_NAME = _GRAM_NAME


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
    cdef Py_ssize_t F = position.shape[0], N = position.shape[1], t = cut.shape[0]
    cdef bint rank_one = p_low is not None
    if rank_one and p_low.shape[0] != t:
        raise ValueError("p_low must have one entry per column")
    if sign.shape[0] != t or g.shape[0] != N or out.shape[0] != t or out.shape[1] != t:
        raise ValueError("sign, g and out must match cut's columns and position's rows")
    if t == 0:
        return
    cdef int status
    with nogil:
        status = _stump_gram(&position[0, 0] if F and N else NULL, F, N, &cut[0], &sign[0],
                             t, &g[0] if N else NULL, &out[0, 0], t, True,
                             &p_low[0] if rank_one else NULL, inverse, factor)
    if status != 0:
        raise MemoryError("stump_gram: out of memory")


cdef int _stump_gram(const int* position, Py_ssize_t F, Py_ssize_t N, const Py_ssize_t* cut,
                     const double* sign, Py_ssize_t t, const double* g, double* out, Py_ssize_t ld,
                     bint mirror, const double* p_low, double inverse, double factor) noexcept nogil:
    """:func:`stump_gram` on raw arrays: the value of entry (i, j), i >= j, at ``out[i + ld j]`` (and
    at ``out[j + ld i]`` where ``mirror``: both triangles); ``p_low`` NULL for no rank-one term.
    Its buffers from malloc; -1 where that failed, else 0."""
    cdef Py_ssize_t width = N + 1, f, j, k, n, used = 0, K, i, row, base
    cdef double total, si, low, value, diag_i
    cdef int* local = <int*>malloc(F * sizeof(int)) if F else NULL
    cdef int* marks = <int*>calloc(F * width, sizeof(int)) if F else NULL
    cdef Py_ssize_t* slot = <Py_ssize_t*>malloc(F * sizeof(Py_ssize_t)) if F else NULL
    cdef Py_ssize_t* select = <Py_ssize_t*>calloc(t, sizeof(Py_ssize_t))
    cdef double* diag = <double*>malloc(t * sizeof(double))
    cdef Py_ssize_t* offset = NULL
    cdef int* bucket = NULL
    cdef double* hist = NULL
    cdef int status = -1
    cdef bint failed = (F and (local == NULL or marks == NULL or slot == NULL)) or select == NULL or diag == NULL
    if not failed:
        for f in range(F):
            local[f] = -1
        for j in range(t):
            if cut[j] >= 0:
                f = cut[j] // width
                marks[cut[j]] = 1
                local[f] = 0
        for f in range(F):
            if local[f] >= 0:
                local[f] = used
                slot[used] = f
                used += 1
        offset = <Py_ssize_t*>calloc(used + 1, sizeof(Py_ssize_t))
        bucket = <int*>malloc(used * N * sizeof(int)) if used and N else NULL
        failed = offset == NULL or (used and N and bucket == NULL)
    if not failed:
        for k in range(used):  # running counts of the distinct cuts at or below each slot
            base = slot[k] * width
            for n in range(1, width):
                marks[base + n] += marks[base + n - 1]
            offset[k + 1] = offset[k] + marks[base + N] + 1
            for n in range(N):
                bucket[k * N + n] = marks[base + position[slot[k] * N + n]]
        for j in range(t):  # a constant: bucket 0 of the first slot (every row)
            if cut[j] >= 0:
                k = local[cut[j] // width]
                select[j] = offset[k] + marks[cut[j]]
        K = offset[used] if used else 1
        hist = <double*>malloc(K * K * sizeof(double))
        failed = hist == NULL
    if not failed:
        if used == 0:  # (constants only) sum g, summed as numpy sums
            hist[0] = _pairwise_sum(g, N) if N else 0.0
        else:
            _bucket_gram(bucket, used, N, g, offset, hist, K)
        total = hist[0]
        for i in range(t):
            diag[i] = hist[select[i] * K + select[i]]
        for i in range(t):  # the lower triangle (and its mirror: the same expression for (j, i))
            si, row, diag_i = sign[i], select[i] * K, diag[i]
            for j in range(i + 1):
                low = inverse * p_low[i] * p_low[j] if p_low != NULL else 0.0
                value = factor * (si * sign[j] * (
                    4.0 * hist[row + select[j]] - 2.0 * diag_i - 2.0 * diag[j] + total
                ) - low)
                out[i + ld * j] = value
                if mirror:
                    out[j + ld * i] = value
        status = 0
    free(local)
    free(marks)
    free(slot)
    free(select)
    free(diag)
    free(offset)
    free(bucket)
    free(hist)
    return status


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
    if g.shape[0] != N or offset.shape[0] != F + 1 or out.shape[1] != K or (F and offset[F] != K):
        raise ValueError("bucket, g, offset and out must describe the same rows, slots and K")
    if K == 0:
        return
    with nogil:
        _bucket_gram(&bucket[0, 0] if F and N else NULL, F, N, &g[0] if N else NULL, &offset[0],
                     &out[0, 0], K)


cdef void _bucket_gram(const int* bucket, Py_ssize_t F, Py_ssize_t N, const double* g,
                       const Py_ssize_t* offset, double* out, Py_ssize_t K) noexcept nogil:
    """:func:`bucket_gram` on raw arrays (``bucket`` F x N, ``out`` K x K, C order)."""
    cdef Py_ssize_t f, h, n, r, c, r0, r1, c0, c1
    for r in range(K * K):
        out[r] = 0.0
    for f in range(F):  # pair by pair: each block's histogram stays in cache
        for h in range(f, F):
            for n in range(N):
                out[(offset[f] + bucket[f * N + n]) * K + offset[h] + bucket[h * N + n]] += g[n]
    for f in range(F):
        r0, r1 = offset[f], offset[f + 1]
        for h in range(f, F):
            c0, c1 = offset[h], offset[h + 1]
            for r in range(r1 - 2, r0 - 1, -1):
                for c in range(c0, c1):
                    out[r * K + c] += out[(r + 1) * K + c]
            for r in range(r0, r1):
                for c in range(c1 - 2, c0 - 1, -1):
                    out[r * K + c] += out[r * K + c + 1]
            if h > f:
                for r in range(r0, r1):
                    for c in range(c0, c1):
                        out[c * K + r] = out[r * K + c]


cdef struct StumpArrays:
    const double* y
    const double* sign
    const int* order
    const int* position
    const Py_ssize_t* cut       # the stumps' flat cut slots
    const Py_ssize_t* stumps    # the stumps' columns
    const Py_ssize_t* constants  # the constants' columns
    const Py_ssize_t* column_cut  # every column's flat cut slot (-1: a constant)
    const Py_ssize_t* marks     # the distinct flat cut slots, ascending (so grouped by feature slot)
    Py_ssize_t N, F, t, n_stumps, n_constants, n_marks


cdef int _stump_margins(const void* data, const double* w, double* out, double* scratch) noexcept nogil:
    """``out = U w``: ``y * (2 sum_f A_f + sum_constants s_j w_j - sum_stumps s_j w_j)``, ``A_f`` at a
    row the sum of ``s_j w_j`` over feature slot f's stumps below the row's value (the weights
    placed at their cuts, a running sum along the slot's sort order, a gather per row). The running
    sum changes only at the distinct cuts (``marks``): it is added there and written as constant
    runs between them (the same sums as adding the zeros between, without their chain of
    additions). Scratch: the stumps' ``s_j w_j``, then F (N + 1) running sums."""
    cdef const StumpArrays* a = <const StumpArrays*>data
    cdef Py_ssize_t N = a.N, width = a.N + 1, k, f, n, i, p, base, m = 0
    cdef double* c = scratch
    cdef double* steps = scratch + a.n_stumps
    cdef double run, level = 0.0
    for k in range(a.n_stumps):
        c[k] = a.sign[a.stumps[k]] * w[a.stumps[k]]
    for k in range(a.n_marks):
        steps[a.marks[k]] = 0.0
    for k in range(a.n_stumps):
        steps[a.cut[k]] += c[k]
    for f in range(a.F):
        base = f * width
        run = 0.0
        n = 0
        while m < a.n_marks and a.marks[m] < base + width:
            p = a.marks[m] - base
            for i in range(n, p):
                steps[base + i] = run
            run = run + steps[base + p]
            steps[base + p] = run
            n = p + 1
            m += 1
        for i in range(n, width):
            steps[base + i] = run
    for k in range(a.n_constants):
        level += a.sign[a.constants[k]] * w[a.constants[k]]
    level -= _pairwise_sum(c, a.n_stumps)
    for n in range(N):
        out[n] = 0.0
    for f in range(a.F):
        base = f * width
        for n in range(N):
            out[n] += steps[base + a.position[f * N + n]]
    for n in range(N):
        out[n] = (2.0 * out[n] + level) * a.y[n]
    return 0


cdef void _running_sums(const double* v, const int* order, Py_ssize_t N, double* sums) noexcept nogil:
    """``sums[p] = v[order[0]] + ... + v[order[p - 1]]`` for p in 0..N, added in that order."""
    cdef Py_ssize_t n
    cdef double run = 0.0
    sums[0] = 0.0
    for n in range(N):
        run = run + v[order[n]]
        sums[n + 1] = run


cdef int _stump_edges(const void* data, const double* d, double* out, double* scratch) noexcept nogil:
    """``out = U^T d``: per stump ``s_j (sum(v) - 2 C_j)``, ``C_j`` the running sum of ``v = y d`` along
    its slot's sort order up to its cut; per constant ``s_j sum(v)``. Four slots' running sums at a
    time (four independent chains of additions, each in its slot's order: the same sums as one slot
    at a time). Scratch: v, then F (N + 1) running sums."""
    cdef const StumpArrays* a = <const StumpArrays*>data
    cdef Py_ssize_t N = a.N, width = a.N + 1, k, f = 0, n
    cdef double* v = scratch
    cdef double* sums = scratch + N
    cdef double total, r0, r1, r2, r3
    cdef const int* o
    cdef double* s
    for n in range(N):
        v[n] = a.y[n] * d[n]
    total = _pairwise_sum(v, N)
    while f + 4 <= a.F:
        o, s = a.order + f * N, sums + f * width
        r0 = r1 = r2 = r3 = 0.0
        s[0] = s[width] = s[2 * width] = s[3 * width] = 0.0
        for n in range(N):
            r0 = r0 + v[o[n]]
            r1 = r1 + v[o[N + n]]
            r2 = r2 + v[o[2 * N + n]]
            r3 = r3 + v[o[3 * N + n]]
            s[n + 1] = r0
            s[width + n + 1] = r1
            s[2 * width + n + 1] = r2
            s[3 * width + n + 1] = r3
        f += 4
    while f < a.F:
        _running_sums(v, a.order + f * N, N, sums + f * width)
        f += 1
    for k in range(a.n_stumps):
        out[a.stumps[k]] = a.sign[a.stumps[k]] * (total - 2.0 * sums[a.cut[k]])
    for k in range(a.n_constants):
        out[a.constants[k]] = a.sign[a.constants[k]] * total
    return 0


cdef class StumpPasses:
    """``U w`` and ``U^T d`` of decision-stump columns (``dualboost.problems.kernels.StumpColumns``,
    which calls these) in one compiled call each, and the same passes for a compiled solver without
    the GIL (:meth:`capsule`, the ``Passes`` of ``dualboost/solvers/_passes.pxd``). The arrays are
    kept (read-only) for the object's life.

    Parameters
    ----------
    y : ndarray of shape (N,)
        The labels.
    order, position : ndarray of int32, shape (F, N)
        Each feature slot's sort order and each row's place in it.
    cut : ndarray of intp
        The stumps' flat cut slots ``f * (N + 1) + p``.
    sign : ndarray of shape (t,)
        Every column's sign.
    stumps, constants : ndarray of intp
        The stumps' and the constants' columns.
    """

    cdef const double[::1] _y, _sign
    cdef const int[:, ::1] _order, _position
    cdef const Py_ssize_t[::1] _cut, _stumps, _constants, _column_cut, _marks
    cdef StumpArrays _arrays
    cdef Passes _passes
    cdef Gram _gram
    cdef readonly Py_ssize_t scratch_size

    def __init__(self, y, order, position, cut, sign, stumps, constants):
        cdef Py_ssize_t F, N
        cdef StumpArrays* a
        self._y, self._sign = y, sign
        self._order, self._position = order, position
        self._cut, self._stumps, self._constants = cut, stumps, constants
        F, N = self._order.shape[0], self._order.shape[1]
        if self._y.shape[0] != N or self._position.shape[0] != F or self._position.shape[1] != N:
            raise ValueError("y, order and position must describe the same N rows and F slots")
        if self._cut.shape[0] != self._stumps.shape[0]:
            raise ValueError("cut must give one slot per stump")
        a = &self._arrays
        a.y = &self._y[0] if N else NULL
        a.sign = &self._sign[0] if self._sign.shape[0] else NULL
        a.order = &self._order[0, 0] if F and N else NULL
        a.position = &self._position[0, 0] if F and N else NULL
        a.cut = &self._cut[0] if self._cut.shape[0] else NULL
        a.stumps = &self._stumps[0] if self._stumps.shape[0] else NULL
        a.constants = &self._constants[0] if self._constants.shape[0] else NULL
        column_cut = np.full(self._sign.shape[0], -1, dtype=np.intp)
        column_cut[np.asarray(stumps)] = np.asarray(cut)
        self._column_cut = column_cut
        a.column_cut = &self._column_cut[0] if self._sign.shape[0] else NULL
        self._marks = np.unique(np.asarray(cut, dtype=np.intp))
        a.marks = &self._marks[0] if self._marks.shape[0] else NULL
        a.n_marks = self._marks.shape[0]
        a.N, a.F, a.t = N, F, self._sign.shape[0]
        a.n_stumps, a.n_constants = self._stumps.shape[0], self._constants.shape[0]
        self.scratch_size = F * (N + 1) + (N if N > a.n_stumps else a.n_stumps)
        self._passes.data = <const void*>a
        self._passes.margins = _stump_margins
        self._passes.edges = _stump_edges
        self._passes.scratch = self.scratch_size
        self._passes.n_rows, self._passes.n_columns = N, a.t
        self._gram.data = <const void*>a
        self._gram.gram = _stump_face_gram
        self._gram.n_rows, self._gram.n_columns = N, a.t

    def margins(self, w):
        """``U w`` (w over the t columns), shape (N,)."""
        return self._apply(self._passes.margins, w, "w", self._arrays.t, self._arrays.N)

    def edges(self, d):
        """``U^T d`` (d over the N rows), shape (t,)."""
        return self._apply(self._passes.edges, d, "d", self._arrays.N, self._arrays.t)

    cdef object _apply(self, pass_fn apply, values, str name, Py_ssize_t n_in, Py_ssize_t n_out):
        """``apply`` (a pass) on ``values`` (``name``: n_in entries), into a new array of n_out."""
        cdef const double[::1] x = np.ascontiguousarray(values, dtype=np.float64)
        if x.shape[0] != n_in:
            raise ValueError(f"{name} must have {n_in} entries; got {x.shape[0]}")
        out = np.empty(n_out)
        cdef double[::1] o = out
        cdef double[::1] scratch = np.empty(self.scratch_size)
        with nogil:
            apply(&self._arrays, &x[0] if n_in else NULL, &o[0] if n_out else NULL, &scratch[0])
        return out

    def capsule(self):
        """The passes as a PyCapsule named :data:`PASSES_NAME` pointing to this object's ``Passes``
        (valid while this object lives: a caller keeps a reference to it)."""
        return PyCapsule_New(&self._passes, _PASSES_NAME, NULL)

    def gram_capsule(self, Py_ssize_t min_face):
        """The Gram of any face of these columns (:func:`stump_gram` on the face's columns, its
        lower triangle) as a PyCapsule named :data:`GRAM_NAME` pointing to this object's ``Gram``,
        for faces of at least ``min_face`` columns (valid while this object lives)."""
        self._gram.min_face = min_face
        return PyCapsule_New(&self._gram, _GRAM_NAME, NULL)

    def face_gram(self, weights, face):
        """``U_face^T diag(weights) U_face`` through the function :meth:`gram_capsule` hands out (its
        lower triangle, mirrored here), shape (k, k); for tests and callers without a capsule."""
        cdef const double[::1] g = np.ascontiguousarray(weights, dtype=np.float64)
        cdef const int[::1] columns = np.ascontiguousarray(face, dtype=np.int32)
        cdef Py_ssize_t k = columns.shape[0], i, j
        if g.shape[0] != self._arrays.N:
            raise ValueError(f"weights must have {self._arrays.N} entries; got {g.shape[0]}")
        if k and (np.min(face) < 0 or np.max(face) >= self._arrays.t):
            raise ValueError(f"face must list columns below {self._arrays.t}")
        out = np.zeros((k, k))
        cdef double[::1, :] o = np.asfortranarray(out)
        cdef int status = 0
        if k:
            with nogil:
                status = _stump_face_gram(&self._arrays, &g[0] if g.shape[0] else NULL, &columns[0], k,
                                          &o[0, 0], k)
        if status != 0:
            raise MemoryError("face_gram: out of memory")
        lower = np.asarray(o)
        return np.tril(lower) + np.tril(lower, -1).T


cdef int _stump_face_gram(const void* data, const double* weights, const int* face, int k, double* out,
                          int ld) noexcept nogil:
    """The ``gram_fn`` of ``Gram`` (dualboost/solvers/_passes.pxd) for stump columns: :func:`_stump_gram`
    on the face's cuts and signs, the lower triangle only."""
    cdef const StumpArrays* a = <const StumpArrays*>data
    cdef Py_ssize_t* cut = <Py_ssize_t*>malloc(k * sizeof(Py_ssize_t))
    cdef double* sign = <double*>malloc(k * sizeof(double))
    cdef int i, status = -1
    if cut != NULL and sign != NULL:
        for i in range(k):
            cut[i] = a.column_cut[face[i]]
            sign[i] = a.sign[face[i]]
        status = _stump_gram(a.position, a.F, a.N, cut, sign, k, weights, out, ld, False, NULL, 0.0, 1.0)
    free(cut)
    free(sign)
    return status

cdef struct IndicatorArrays:
    const double* y
    const double* c
    const double* a
    const int* indices         # B's row indices, CSC (each column's rows increasing)
    const Py_ssize_t* indptr
    const Py_ssize_t* columns  # column l of these columns is column columns[l] of indices/indptr
    Py_ssize_t N, t


cdef int _indicator_margins(const void* data, const double* w, double* out, double* scratch) noexcept nogil:
    """``out = U w = y * ((c . w) + B (a * w))``: each column's ``a_j w_j`` added at its rows."""
    cdef const IndicatorArrays* p = <const IndicatorArrays*>data
    cdef Py_ssize_t n, j, k, stop
    cdef double step, level = 0.0
    for n in range(p.N):
        out[n] = 0.0
    for j in range(p.t):
        level += p.c[j] * w[j]
        step = p.a[j] * w[j]
        if step != 0.0:
            stop = p.indptr[p.columns[j] + 1]
            for k in range(p.indptr[p.columns[j]], stop):
                out[p.indices[k]] += step
    for n in range(p.N):
        out[n] = (out[n] + level) * p.y[n]
    return 0


cdef int _indicator_edges(const void* data, const double* d, double* out, double* scratch) noexcept nogil:
    """``out = U^T d = c (y . d) + a * (B^T (y d))``. Scratch: ``v = y d``."""
    cdef const IndicatorArrays* p = <const IndicatorArrays*>data
    cdef Py_ssize_t n, j, k, stop
    cdef double* v = scratch
    cdef double total, acc, acc1, acc2, acc3
    for n in range(p.N):
        v[n] = p.y[n] * d[n]
    total = _pairwise_sum(v, p.N)
    for j in range(p.t):
        # four running sums (each a chain of dependent additions), added at the end
        acc, acc1, acc2, acc3 = 0.0, 0.0, 0.0, 0.0
        k = p.indptr[p.columns[j]]
        stop = p.indptr[p.columns[j] + 1]
        while k + 4 <= stop:
            acc += v[p.indices[k]]
            acc1 += v[p.indices[k + 1]]
            acc2 += v[p.indices[k + 2]]
            acc3 += v[p.indices[k + 3]]
            k += 4
        while k < stop:
            acc += v[p.indices[k]]
            k += 1
        out[j] = p.a[j] * ((acc + acc1) + (acc2 + acc3)) + p.c[j] * total
    return 0


cdef void _indicator_gram(const IndicatorArrays* p, const double* g, double* out, Py_ssize_t* count,
                          Py_ssize_t* start, int* members, double* inner) noexcept nogil:
    """``out = U^T diag(g) U`` (t x t, both triangles) for ``u_j = y (c_j + a_j b_j)``:
    ``(sum g) c c^T + c q^T + q c^T + (a a^T) * A`` with ``A = B^T diag(g) B`` and ``q = a * diag(A)``
    (``y^2 = 1``, ``b^2 = b``). A is summed row by row: each row with ``g_n != 0`` adds g_n at every
    pair of its columns (B's rows found by one counting pass over its columns: ``count`` and
    ``start`` N + 1 ints, ``members`` nnz(B) ints; ``inner`` t x t doubles)."""
    cdef Py_ssize_t N = p.N, t = p.t, n, j, k, i, lo, hi, stop, row
    cdef double gn, total = 0.0, qi
    cdef double* r
    for n in range(N + 1):
        count[n] = 0
    for j in range(t):
        stop = p.indptr[p.columns[j] + 1]
        for k in range(p.indptr[p.columns[j]], stop):
            count[p.indices[k] + 1] += 1
    start[0] = 0
    for n in range(N):
        start[n + 1] = start[n] + count[n + 1]
        count[n + 1] = start[n]  # (the next free slot of row n)
    for j in range(t):  # each row's columns in increasing order
        stop = p.indptr[p.columns[j] + 1]
        for k in range(p.indptr[p.columns[j]], stop):
            row = p.indices[k]
            members[count[row + 1]] = <int>j
            count[row + 1] += 1
    for k in range(t * t):
        inner[k] = 0.0
    for n in range(N):
        gn = g[n]
        total += gn
        if gn == 0.0:
            continue
        lo, hi = start[n], start[n + 1]
        for k in range(lo, hi):  # the lower triangle: (members[k], members[i]), i <= k
            r = inner + members[k] * t
            for i in range(lo, k + 1):
                r[members[i]] += gn
    for i in range(t):
        qi = p.a[i] * inner[i * t + i]
        for j in range(i + 1):
            out[i * t + j] = p.a[i] * p.a[j] * inner[i * t + j] + total * p.c[i] * p.c[j] + p.c[i] * (
                p.a[j] * inner[j * t + j]
            ) + qi * p.c[j]
            out[j * t + i] = out[i * t + j]


cdef class IndicatorPasses:
    """``U w``, ``U^T d`` and ``U^T diag(g) U`` of the columns ``u_j = y (c_j + a_j b_j)``, ``b_j`` a 0/1
    indicator of rows (``dualboost.problems.sparse_columns.SparseStumpColumns``, which calls these),
    each in one compiled call, and the passes for a compiled solver without the GIL (:meth:`capsule`,
    the ``Passes`` of ``dualboost/solvers/_passes.pxd``): they read B's int32 row indices, not a
    dense U. The arrays are kept (read-only) for the object's life.

    Parameters
    ----------
    y : ndarray of shape (N,)
        The labels.
    c, a : ndarray of shape (t,)
        Each column's value off its indicator and its jump on it.
    indices : ndarray of int32
        The indicators' rows, CSC (each column's rows in ``[0, N)``).
    indptr : ndarray of intp
        The CSC column pointers (of at least the columns ``columns`` refers to).
    columns : ndarray of intp of shape (t,)
        Column l here is column ``columns[l]`` of ``indices``/``indptr`` (a restricted operator's
        columns without a copy of its rows).
    check_rows : bool, default True
        Check that every row index lies in ``[0, N)`` (O(nnz)); False where the caller made them so
        (``SparseStumpColumns.of``: rows of the oracle's features). The columns and pointers are
        always checked (O(t)).
    """

    cdef const double[::1] _y, _c, _a
    cdef const int[::1] _indices
    cdef const Py_ssize_t[::1] _indptr, _columns
    cdef IndicatorArrays _arrays
    cdef Passes _passes
    cdef readonly Py_ssize_t scratch_size
    #: nnz of these columns' indicators
    cdef readonly Py_ssize_t nnz

    def __init__(self, y, c, a, indices, indptr, columns, bint check_rows=True):
        cdef Py_ssize_t N, t, n_ptr, j, k, lo, hi, nnz = 0
        cdef bint bad = False
        cdef IndicatorArrays* p
        self._y, self._c, self._a = y, c, a
        self._indices, self._indptr, self._columns = indices, indptr, columns
        N, t, n_ptr = self._y.shape[0], self._c.shape[0], self._indptr.shape[0]
        if self._a.shape[0] != t or self._columns.shape[0] != t:
            raise ValueError("c, a and columns must have one entry per column")
        if n_ptr < 1 or self._indptr[0] < 0 or self._indptr[n_ptr - 1] > self._indices.shape[0]:
            raise ValueError("indptr must index indices")
        with nogil:
            for j in range(t):
                if self._columns[j] < 0 or self._columns[j] >= n_ptr - 1:
                    bad = True
                    break
                lo, hi = self._indptr[self._columns[j]], self._indptr[self._columns[j] + 1]
                if lo > hi or lo < 0 or hi > self._indices.shape[0]:
                    bad = True
                    break
                if check_rows:
                    for k in range(lo, hi):
                        if self._indices[k] < 0 or self._indices[k] >= N:
                            bad = True
                nnz += hi - lo
        if bad:
            raise ValueError("columns must index indptr, and the columns' rows must lie in [0, N)")
        self.nnz = nnz
        p = &self._arrays
        p.y = &self._y[0] if N else NULL
        p.c = &self._c[0] if t else NULL
        p.a = &self._a[0] if t else NULL
        p.indices = &self._indices[0] if self._indices.shape[0] else NULL
        p.indptr = &self._indptr[0]
        p.columns = &self._columns[0] if t else NULL
        p.N, p.t = N, t
        self.scratch_size = N
        self._passes.data = <const void*>p
        self._passes.margins = _indicator_margins
        self._passes.edges = _indicator_edges
        self._passes.scratch = N
        self._passes.n_rows, self._passes.n_columns = N, t

    def margins(self, w):
        """``U w`` (w over the t columns), shape (N,)."""
        return self._apply(self._passes.margins, w, "w", self._arrays.t, self._arrays.N)

    def edges(self, d):
        """``U^T d`` (d over the N rows), shape (t,)."""
        return self._apply(self._passes.edges, d, "d", self._arrays.N, self._arrays.t)

    cdef object _apply(self, pass_fn apply, values, str name, Py_ssize_t n_in, Py_ssize_t n_out):
        """``apply`` (a pass) on ``values`` (``name``: n_in entries), into a new array of n_out."""
        array = np.ascontiguousarray(values, dtype=np.float64)
        if array.ndim != 1 or array.shape[0] != n_in:
            raise ValueError(f"{name} must have {n_in} entries; got shape {array.shape}")
        cdef const double[::1] x = array
        out = np.empty(n_out)
        cdef double[::1] o = out
        cdef double[::1] scratch = np.empty(max(self.scratch_size, 1))
        with nogil:
            apply(&self._arrays, &x[0] if n_in else NULL, &o[0] if n_out else NULL, &scratch[0])
        return out

    def weighted_gram(self, weights):
        """``U^T diag(weights) U``, shape (t, t): per row the pairs of its columns, O(N + nnz(B) +
        sum_n nnz(B_n)^2 / 2 + t^2) (the rows of weight 0 skipped)."""
        cdef Py_ssize_t N = self._arrays.N, t = self._arrays.t
        array = np.ascontiguousarray(weights, dtype=np.float64)
        if array.ndim != 1 or array.shape[0] != N:
            raise ValueError(f"weights must have {N} entries; got shape {array.shape}")
        cdef const double[::1] g = array
        out = np.empty((t, t))
        cdef double[:, ::1] o = out
        cdef Py_ssize_t[::1] count = np.empty(N + 1, dtype=np.intp)
        cdef Py_ssize_t[::1] start = np.empty(N + 1, dtype=np.intp)
        cdef int[::1] members = np.empty(max(self.nnz, 1), dtype=np.int32)
        cdef double[::1] inner = np.empty(max(t * t, 1))
        if t == 0:
            return out
        with nogil:
            _indicator_gram(&self._arrays, &g[0] if N else NULL, &o[0, 0], &count[0], &start[0],
                            &members[0], &inner[0])
        return out

    def capsule(self):
        """The passes as a PyCapsule named :data:`PASSES_NAME` pointing to this object's ``Passes``
        (valid while this object lives: a caller keeps a reference to it)."""
        return PyCapsule_New(&self._passes, _PASSES_NAME, NULL)
