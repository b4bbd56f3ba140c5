# The capped simplex's membership test and the capped relative entropy's sum of terms, for the
# compiled modules (dualboost/conjugates/_capped_sums.pyx defines them; the compiled re-solve,
# dualboost/solvers/_capped_newton.pyx, calls the same functions at its last point, so that what it
# reports is what the certificate would compute, bit for bit).

# x (n >= 1 entries) on {sum x = 1, 0 <= x <= cap} to tol: min x >= -tol, max x <= cap + tol and
# |sum x - 1| <= tol max(1, n), the sum in numpy's pairwise order (False where an entry is NaN)
cdef bint capped_member(const double* x, Py_ssize_t n, double cap, double tol) noexcept nogil

# sum_n kl_div(max(x_n, 0), y_n) (scipy.special.kl_div's branches), the terms summed in numpy's
# pairwise order; terms: n doubles of scratch
cdef double kl_total(const double* x, const double* y, Py_ssize_t n, double* terms) noexcept nogil
