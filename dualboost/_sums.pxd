# Sums as numpy sums them, for the compiled modules (dualboost/solvers/_capped_newton.pyx,
# dualboost/conjugates/_capped_sums.pyx): the same additions in the same order as numpy's ``sum`` of
# a contiguous float64 array, so that a compiled result equals the Python path's where it sums the
# same terms (and a distribution normalised by it sums to 1 as numpy checks it as often as numpy's).

cdef enum:
    # the longest vector whose numpy sum is :func:`pairwise_sum` on every supported numpy: longer ones
    # numpy may add in chunks of its buffer, in an order that differs between its versions (the same
    # bound as ``dualboost.conjugates._membership.EXACT_SUM_MAX``, for the compiled modules)
    EXACT_SUM_MAX = 8192

cdef inline double pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """``sum a`` by pairwise summation (blocks of 128 with eight running sums, halves above): a
    rounding error of O(log n) rather than O(n) units."""
    cdef double r0, r1, r2, r3, r4, r5, r6, r7, res
    cdef Py_ssize_t i, half
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
        i = 8
        while i < n - n % 8:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return pairwise_sum(a, half) + pairwise_sum(a + half, n - half)
