# cython: language_level=3
"""The compiled loops of the decision-stump oracle (``dualboost.oracles.stumps``,
docs/architecture.md#compiled-code): the row-by-row additions of its segmented prefix sum
(``_RunScan``: :func:`scan_rows`, :func:`add_carry`), and the whole search of ``best`` around them
(:class:`Search`: the slots' sums, the scan, the largest edge and the first tie; :func:`stump_column`).

The scan's transposed layout holds the k-th slot of every chunk in row k, so the chunks' prefix
sums advance by one addition per slot of each row, row after row; a long run's chunks then get the
totals of the chunks before them (a carry per column). These loops make exactly the products and
additions the numpy reference makes (``np.take`` of ``-2 v``, scipy's CSR product, ``np.add`` over
a row's slice, ``+=`` of the carries), element by element in the same order, so the sums are the
same bit for bit; the comparisons that pick the stump are those of the reference too. What they
save is the numpy calls on small arrays and the Python between them. Up to ``EXACT_SUM_MAX``
examples (``dualboost/_sums.pxd``), where numpy's sum of a vector is :func:`pairwise_sum`, they
also make the reference's sums over the N examples (``sum(d * y)``, ``sum |d|``, the edge
``sum(column * d)``: :meth:`Search.sums_exact`, :func:`stump_column`'s ``d``).
"""

cimport cython
import numpy as np
from libc.math cimport fabs
from libc.stdlib cimport free, malloc

from dualboost._sums cimport EXACT_SUM_MAX, pairwise_sum

ctypedef fused index_t:
    int
    long long


cdef inline void _rows(
    double* A, const Py_ssize_t* starts, const Py_ssize_t* counts, Py_ssize_t m
) noexcept nogil:
    """``A[starts[k] : starts[k] + counts[k]] += A[starts[k - 1] : ...]`` for k = 1, ..., m - 1 in turn."""
    cdef Py_ssize_t k, i, lo, prev, n
    for k in range(1, m):
        lo, prev, n = starts[k], starts[k - 1], counts[k]
        for i in range(n):
            A[lo + i] += A[prev + i]


cdef inline void _carry(double* A, const Py_ssize_t* starts, Py_ssize_t m, const double* carry,
                        const Py_ssize_t* source, Py_ssize_t n) noexcept nogil:
    """``A[starts[k] + i] += carry[source[i]]`` (``source`` NULL: ``carry[i]``), i < n, k < m."""
    cdef Py_ssize_t k, i, lo
    for k in range(m):
        lo = starts[k]
        if source == NULL:
            for i in range(n):
                A[lo + i] += carry[i]
        else:
            for i in range(n):
                A[lo + i] += carry[source[i]]


cdef enum:
    BLOCK = 256  # slots per block of Search.choose's extremes


cdef inline void _multi_sums(const double* v, double* out, const Py_ssize_t* indptr, const int* indices,
                             const Py_ssize_t* slots, const Py_ssize_t* order, Py_ssize_t m) noexcept nogil:
    """``out[slots[r]] = sum of -2 v[indices[jj]]`` over row r's members ``indptr[r] <= jj < indptr[r + 1]``,
    added in order from 0.0, for the m rows. Each row's additions are a chain (every one waits for
    the last); the rows are taken four at a time, in ``order`` (by decreasing length), their chains
    advancing together: the same additions of each row in its order, so the same sums, with four
    independent chains in flight instead of one."""
    cdef Py_ssize_t g, j, common, r0, r1, r2, r3, p0, p1, p2, p3, n0, n1, n2
    cdef double s0, s1, s2, s3
    g = 0
    while g + 4 <= m:
        r0, r1, r2, r3 = order[g], order[g + 1], order[g + 2], order[g + 3]
        p0, p1, p2, p3 = indptr[r0], indptr[r1], indptr[r2], indptr[r3]
        n0, n1, n2, common = indptr[r0 + 1] - p0, indptr[r1 + 1] - p1, indptr[r2 + 1] - p2, indptr[r3 + 1] - p3
        s0 = s1 = s2 = s3 = 0.0
        for j in range(common):  # (the shortest of the four: the last, by the order)
            s0 = s0 + -2.0 * v[indices[p0 + j]]
            s1 = s1 + -2.0 * v[indices[p1 + j]]
            s2 = s2 + -2.0 * v[indices[p2 + j]]
            s3 = s3 + -2.0 * v[indices[p3 + j]]
        for j in range(common, n0):
            s0 = s0 + -2.0 * v[indices[p0 + j]]
        for j in range(common, n1):
            s1 = s1 + -2.0 * v[indices[p1 + j]]
        for j in range(common, n2):
            s2 = s2 + -2.0 * v[indices[p2 + j]]
        out[slots[r0]], out[slots[r1]], out[slots[r2]], out[slots[r3]] = s0, s1, s2, s3
        g += 4
    while g < m:
        r0 = order[g]
        s0 = 0.0
        for j in range(indptr[r0], indptr[r0 + 1]):
            s0 = s0 + -2.0 * v[indices[j]]
        out[slots[r0]] = s0
        g += 1


cdef inline void _extremes(const double* A, Py_ssize_t n, double* low, double* high) noexcept nogil:
    """The minimum and maximum of ``A[:n]`` (n >= 1), in four independent lanes without branches
    (a minimum or maximum is exact: the order of the comparisons does not change it)."""
    cdef double l0 = A[0], l1 = A[0], l2 = A[0], l3 = A[0], h0 = A[0], h1 = A[0], h2 = A[0], h3 = A[0]
    cdef Py_ssize_t i = 0
    while i + 4 <= n:
        l0 = A[i] if A[i] < l0 else l0
        h0 = A[i] if A[i] > h0 else h0
        l1 = A[i + 1] if A[i + 1] < l1 else l1
        h1 = A[i + 1] if A[i + 1] > h1 else h1
        l2 = A[i + 2] if A[i + 2] < l2 else l2
        h2 = A[i + 2] if A[i + 2] > h2 else h2
        l3 = A[i + 3] if A[i + 3] < l3 else l3
        h3 = A[i + 3] if A[i + 3] > h3 else h3
        i += 4
    while i < n:
        l0 = A[i] if A[i] < l0 else l0
        h0 = A[i] if A[i] > h0 else h0
        i += 1
    l0 = l1 if l1 < l0 else l0
    l2 = l3 if l3 < l2 else l2
    h0 = h1 if h1 > h0 else h0
    h2 = h3 if h3 > h2 else h2
    low[0] = l2 if l2 < l0 else l0
    high[0] = h2 if h2 > h0 else h0


@cython.boundscheck(False)
@cython.wraparound(False)
def scan_rows(double[::1] A, const Py_ssize_t[::1] starts, const Py_ssize_t[::1] counts):
    """``A[starts[k] : starts[k] + counts[k]] += A[starts[k - 1] : starts[k - 1] + counts[k]]`` for
    k = 1, 2, ... in turn (``counts`` non-increasing, the rows laid out end to end in A)."""
    if starts.shape[0] != counts.shape[0]:
        raise ValueError("starts and counts must have one entry per row")
    if counts.shape[0] and starts[counts.shape[0] - 1] + counts[counts.shape[0] - 1] > A.shape[0]:
        raise ValueError("the rows run past the end of A")
    if counts.shape[0]:
        with nogil:
            _rows(&A[0], &starts[0], &counts[0], counts.shape[0])


@cython.boundscheck(False)
@cython.wraparound(False)
def add_carry(double[::1] A, const Py_ssize_t[::1] starts, const double[::1] carry):
    """``A[lo : lo + len(carry)] += carry`` for every row start ``lo`` in ``starts``."""
    cdef Py_ssize_t k, n = carry.shape[0]
    for k in range(starts.shape[0]):
        if starts[k] + n > A.shape[0]:
            raise ValueError("the rows run past the end of A")
    if starts.shape[0] and n:
        with nogil:
            _carry(&A[0], &starts[0], starts.shape[0], &carry[0], NULL, n)


cdef class _Level:
    """One level of a ``_RunScan`` (its rows, and the sub-scan of its long runs' chunk totals),
    checked once when made, so that running it converts no arrays."""

    cdef Py_ssize_t[::1] rows
    cdef Py_ssize_t[::1] counts
    cdef Py_ssize_t[::1] sub_source
    cdef Py_ssize_t[::1] carry_source
    cdef Py_ssize_t size, n_long
    cdef _Level sub

    def __init__(self, scan):
        cdef Py_ssize_t k, m
        self.rows, self.counts = scan.row_array, scan.count_array
        self.size, self.n_long = scan.size, scan.n_long
        self.sub = None if scan.sub is None else _Level(scan.sub)
        self.sub_source, self.carry_source = scan.sub_source, scan.carry_source
        m = self.counts.shape[0]
        if self.rows.shape[0] != m or (
            m and (self.rows[0] < 0 or self.rows[m - 1] + self.counts[m - 1] > self.size)
        ):
            raise ValueError("the rows must lie within the layout")
        for k in range(1, m):
            if self.counts[k] > self.counts[k - 1] or self.rows[k] < self.rows[k - 1] + self.counts[k - 1]:
                raise ValueError("the rows must follow each other with non-increasing lengths")
        if self.sub is not None:
            if m == 0 or self.counts[m - 1] < self.n_long or self.carry_source.shape[0] != self.n_long:
                raise ValueError("every row must hold the long columns, with one carry each")
            if self.sub_source.shape[0] != self.sub.size:
                raise ValueError("sub_source must have one entry per slot of the sub-scan")
            for k in range(self.sub.size):
                if not 0 <= self.sub_source[k] <= self.n_long:
                    raise ValueError("sub_source must index the long columns or be n_long (the zero)")
            for k in range(self.n_long):
                if not 0 <= self.carry_source[k] <= self.sub.size:
                    raise ValueError("carry_source must index the sub-scan or be its size (the zero)")

    cdef int run(self, double* A) except -1:
        """``_RunScan.__call__`` on ``A[:size]``: its additions in its order (the totals of the long
        columns, the sub-scan over them, the carries of ``carry_source`` added to every row)."""
        cdef Py_ssize_t i, k, m = self.counts.shape[0], n = self.n_long, last
        cdef double* sums
        if m == 0:
            return 0
        with nogil:
            _rows(A, &self.rows[0], &self.counts[0], m)
        if self.sub is None:
            return 0
        last = self.rows[m - 1]
        sums = <double*> malloc((self.sub.size + 1) * sizeof(double))
        if sums == NULL:
            raise MemoryError()
        try:
            for i in range(self.sub.size):
                k = self.sub_source[i]
                sums[i] = A[last + k] if k < n else 0.0
            self.sub.run(sums)
            sums[self.sub.size] = 0.0
            with nogil:
                _carry(A, &self.rows[0], m, sums, &self.carry_source[0], n)
        finally:
            free(sums)
        return 0


cdef class Search:
    """The compiled loops of ``DecisionStumps.best`` over one fitted layout: the slots' sums and
    their scan (:meth:`sums`), the tie threshold and the first tied slot in boundary order
    (:meth:`choose`). The layout's arrays are checked once, here.

    Parameters
    ----------
    n : int
        N, the number of training examples.
    scan : _RunScan
        The segmented prefix sum of the layout.
    single : ndarray of intp
        Per slot, the example of its single member, N for none (``_single``).
    multi_indptr : ndarray of intp
        Row pointers of the slots with several members (``_multi``: CSR with data 1.0).
    multi_indices : ndarray of int32
        Their members, in order.
    multi_slots : ndarray of intp
        The slot of each of those rows.
    slot_boundary : ndarray of intp
        The boundary (threshold) of each slot.
    """

    cdef Py_ssize_t n, size
    cdef _Level level
    #: whether N <= EXACT_SUM_MAX: :meth:`sums_exact` may be used (numpy's sums are pairwise_sum's)
    cdef readonly bint exact
    cdef Py_ssize_t[::1] single
    cdef Py_ssize_t[::1] multi_indptr
    cdef int[::1] multi_indices
    cdef Py_ssize_t[::1] multi_slots
    cdef Py_ssize_t[::1] multi_order
    cdef Py_ssize_t[::1] slot_boundary

    def __init__(self, Py_ssize_t n, scan, single, multi_indptr, multi_indices, multi_slots, slot_boundary):
        cdef Py_ssize_t i, r
        self.n, self.size, self.level = n, scan.size, _Level(scan)
        self.exact = n <= EXACT_SUM_MAX
        self.single, self.multi_indptr, self.multi_indices = single, multi_indptr, multi_indices
        self.multi_slots, self.slot_boundary = multi_slots, slot_boundary
        if self.single.shape[0] != self.size or self.slot_boundary.shape[0] != self.size:
            raise ValueError("single and slot_boundary must have one entry per slot")
        for i in range(self.size):
            if not 0 <= self.single[i] <= n:
                raise ValueError("single must index the examples or be N (the zero)")
        if self.multi_indptr.shape[0] != self.multi_slots.shape[0] + 1 or self.multi_indptr[0] != 0:
            raise ValueError("multi_indptr must start at 0 and have one entry more than multi_slots")
        for r in range(self.multi_slots.shape[0]):
            if not 0 <= self.multi_slots[r] < self.size:
                raise ValueError("multi_slots must index the slots")
            if not self.multi_indptr[r] <= self.multi_indptr[r + 1] <= self.multi_indices.shape[0]:
                raise ValueError("multi_indptr must be non-decreasing within multi_indices")
        for i in range(self.multi_indices.shape[0]):
            if not 0 <= self.multi_indices[i] < n:
                raise ValueError("multi_indices must index the examples")
        # the rows with several members by decreasing length (ties in order), summed four at a time
        self.multi_order = np.argsort(-np.diff(np.asarray(self.multi_indptr)), kind="stable").astype(np.intp)

    cdef int _sums(self, const double* v, double* out) except -1:
        """:meth:`sums` of the N entries ``v`` into the ``size`` slots ``out``."""
        cdef Py_ssize_t i, k, n = self.n
        with nogil:
            for i in range(self.size):
                k = self.single[i]
                out[i] = -2.0 * v[k] if k < n else 0.0
            if self.multi_slots.shape[0]:
                _multi_sums(v, out, &self.multi_indptr[0], &self.multi_indices[0], &self.multi_slots[0],
                            &self.multi_order[0], self.multi_slots.shape[0])
        if self.size:
            self.level.run(out)
        return 0

    def sums(self, const double[::1] v, double[::1] out):
        """``out``: -2 S per slot for ``v = d * y`` (``DecisionStumps._run_sums``). Before the scan,
        a slot holds ``-2 v_n`` of its single member (0.0 for none) or, for several members, the
        sum of ``-2 v_n`` over them added in order from 0.0 (scipy's CSR product with data 1.0):
        the reference's products and additions in its order, so the same sums bit for bit."""
        if v.shape[0] != self.n or out.shape[0] != self.size:
            raise ValueError("v must have N entries and out one per slot")
        self._sums(&v[0], &out[0] if self.size else NULL)

    @cython.boundscheck(False)
    @cython.wraparound(False)
    def sums_exact(self, const double[:] d, const double[::1] y, double[::1] out):
        """``(sum(v), sum |d|)`` for ``v = d * y``, and :meth:`sums` of v into ``out``: what
        ``DecisionStumps._run_sums`` and ``weight_scale(d)`` compute, the products ``d_n y_n`` and
        ``|d_n|`` and their sums in numpy's order (:func:`pairwise_sum`), so the same bits, without
        the temporary arrays; only where :attr:`exact` (N <= ``EXACT_SUM_MAX``)."""
        cdef Py_ssize_t i, n = self.n
        cdef double total, scale
        cdef double* v
        if not self.exact:
            raise ValueError(f"sums_exact needs N <= {EXACT_SUM_MAX}; N = {n}")
        if d.shape[0] != n or y.shape[0] != n or out.shape[0] != self.size:
            raise ValueError("d and y must have N entries and out one per slot")
        v = <double*> malloc(max(n, 1) * sizeof(double))
        if v == NULL:
            raise MemoryError()
        try:
            with nogil:
                for i in range(n):
                    v[i] = fabs(d[i])
                scale = pairwise_sum(v, n)
                for i in range(n):
                    v[i] = d[i] * y[i]
                total = pairwise_sum(v, n)
            self._sums(v, &out[0] if self.size else NULL)
        finally:
            free(v)
        return total, scale

    def choose(self, const double[::1] sums, double total, double scale, rule):
        """``(threshold, slot)``: the tie threshold ``rule(top, scale)`` of the largest |edge|
        ``top = max(|total|, total + max(sums), -(total + min(sums)))`` (the first of equal values,
        as Python's ``max``; the slots' edges are +-(total + sums[i])), and the first slot, in slot
        order, of the smallest boundary among the slots whose ``x = total + sums[i]`` has
        ``x >= threshold`` or ``x <= -threshold``; slot -1 where ``|total| >= threshold`` (a
        constant wins). The extremes are taken per block of ``BLOCK`` slots, and ``total + .`` is
        monotone in floating point, so they give the extremes of the edges: the ties are searched
        only in the blocks that reach the threshold."""
        cdef Py_ssize_t i, k, b, start, stop, n_blocks, best = -1, best_boundary = 0
        cdef double x, low, high, top = abs(total), threshold
        cdef double* extremes
        if sums.shape[0] != self.size:
            raise ValueError("sums must have one entry per slot")
        n_blocks = (self.size + BLOCK - 1) // BLOCK
        extremes = <double*> malloc((2 * n_blocks + 1) * sizeof(double))
        if extremes == NULL:
            raise MemoryError()
        try:
            with nogil:
                for k in range(n_blocks):
                    start = k * BLOCK
                    stop = min(start + BLOCK, self.size)
                    _extremes(&sums[start], stop - start, &extremes[2 * k], &extremes[2 * k + 1])
                if n_blocks:
                    low, high = extremes[0], extremes[1]
                    for k in range(1, n_blocks):
                        low = extremes[2 * k] if extremes[2 * k] < low else low
                        high = extremes[2 * k + 1] if extremes[2 * k + 1] > high else high
                    high = total + high
                    low = -(total + low)
                    if high > top:
                        top = high
                    if low > top:
                        top = low
            threshold = rule(top, scale)
            if abs(total) >= threshold:
                return threshold, -1
            with nogil:
                for k in range(n_blocks):
                    high, low = total + extremes[2 * k + 1], total + extremes[2 * k]
                    if not (high >= threshold or low <= -threshold):
                        continue
                    start, stop = k * BLOCK, min((k + 1) * BLOCK, self.size)
                    for i in range(start, stop):
                        x = total + sums[i]
                        if x >= threshold or x <= -threshold:
                            b = self.slot_boundary[i]
                            if best < 0 or b < best_boundary:
                                best, best_boundary = i, b
        finally:
            free(extremes)
        return threshold, best


@cython.boundscheck(False)
@cython.wraparound(False)
def stump_column(
    const index_t[::1] indptr,
    const index_t[::1] indices,
    const double[::1] data,
    Py_ssize_t feature,
    double threshold,
    double sign,
    const double[::1] y,
    double[::1] out,
    const double[:] d=None,
):
    """``out = y * h(X)`` for the stump ``h(x) = sign if x[feature] > threshold else -sign`` of a
    canonical CSC matrix (indptr, indices, data; the rows not stored are 0): each entry one product
    of y_n and +-sign, as ``y * np.where(x > threshold, sign, -sign)``. With ``d`` (at most
    ``EXACT_SUM_MAX`` entries), returns the edge ``np.sum(out * d)`` (the products, and their sum
    in numpy's order: :func:`pairwise_sum`), else None."""
    cdef Py_ssize_t n, jj, start, stop
    cdef double at_zero = sign if 0.0 > threshold else -sign
    cdef double edge
    cdef double* products
    if out.shape[0] != y.shape[0] or feature < 0 or feature + 1 >= indptr.shape[0]:
        raise ValueError("out must match y and feature index the columns of indptr")
    if d is not None and (d.shape[0] != y.shape[0] or d.shape[0] > EXACT_SUM_MAX):
        raise ValueError(f"d must match y and have at most {EXACT_SUM_MAX} entries")
    start, stop = indptr[feature], indptr[feature + 1]
    if start < 0 or stop < start or stop > indices.shape[0] or stop > data.shape[0]:
        raise ValueError("indptr must index indices and data")
    for jj in range(start, stop):
        if indices[jj] < 0 or indices[jj] >= y.shape[0]:
            raise ValueError("indices must index y")
    with nogil:
        for n in range(y.shape[0]):
            out[n] = y[n] * at_zero
        for jj in range(start, stop):
            n = indices[jj]
            out[n] = y[n] * (sign if data[jj] > threshold else -sign)
    if d is None:
        return None
    products = <double*> malloc(max(y.shape[0], 1) * sizeof(double))
    if products == NULL:
        raise MemoryError()
    with nogil:
        for n in range(y.shape[0]):
            products[n] = out[n] * d[n]
        edge = pairwise_sum(products, y.shape[0])
    free(products)
    return edge
