# The compiled OnlineLinear bank (dualboost/oracles/_online.pyx), as the booster loop of
# dualboost/boosting/online/_loop.pyx calls it: one row given by its non-zero features, the intercept
# (state row ``intercept``, value 1) added by the kernel.

cdef class LinearKernel:
    cdef double[:, ::1] state
    cdef double[::1] scale
    cdef double[::1] scores
    cdef double[::1] m0
    cdef double[::1] phi
    cdef double[::1] coef
    cdef double[::1] q
    cdef double[::1] sfac
    cdef double[::1] r
    cdef Py_ssize_t[::1] active
    cdef Py_ssize_t n
    cdef Py_ssize_t intercept
    cdef int loss
    cdef bint adaptive, normalized, invariant
    cdef double rate
    cdef public long long n_normalized
    cdef public double total_norm
    cdef public bint unit_scale

    cdef void reserve(self, Py_ssize_t k)
    cdef void predict(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k,
                      unsigned char* b) noexcept nogil
    cdef void learn(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k, double y,
                    const double* h) noexcept nogil
