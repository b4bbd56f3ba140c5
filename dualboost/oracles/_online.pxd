# The compiled banks of dualboost/oracles/_online.pyx, as the booster loop of
# dualboost/boosting/online/_loop.pyx calls them: one row given by its non-zero features.

cdef class BankKernel:
    cdef Py_ssize_t n

    cdef void reserve(self, Py_ssize_t k)
    cdef void predict(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k,
                      unsigned char* b) noexcept nogil
    cdef void learn(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k, double y,
                    const double* h) noexcept nogil


cdef class LinearKernel(BankKernel):
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


cdef class StumpKernel(BankKernel):
    cdef double[:, ::1] thresholds
    cdef double[:, ::1] E
    cdef Py_ssize_t[::1] best
    cdef double[::1] sign
    cdef double[::1] x
    cdef double[::1] outputs

    cdef void predict(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k,
                      unsigned char* b) noexcept nogil
    cdef void learn(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k, double y,
                    const double* h) noexcept nogil
