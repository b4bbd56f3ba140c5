"""The passes of :class:`dualboost.problems.kernels.StumpColumns` (its reference is the same class's
numpy path): ``U w`` and ``U^T d`` for decision-stump columns through each feature's sort order, O(N F)
per product instead of O(N t) (docs/architecture.md#compiled-code)."""

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
