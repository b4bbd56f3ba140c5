# The passes over U that a compiled solver calls without the GIL (dualboost/solvers/_capped_newton.pyx):
# an operator of U's columns hands them over as a PyCapsule named PASSES_NAME that points to a
# Passes struct (e.g. dualboost/problems/_stump_products.pyx's StumpPasses, the operator of
# decision-stump columns). Declared here, in the solvers' layer, so that the operators above it
# implement it and the solver imports no model (docs/architecture.md#layers).

# out = U x (margins: x over the t columns, out over the N rows) or U^T x (edges: x over the rows,
# out over the columns); scratch: Passes.scratch doubles the caller owns; 0 on success
ctypedef int (*pass_fn)(const void* data, const double* x, double* out, double* scratch) noexcept nogil

cdef struct Passes:
    const void* data
    pass_fn margins
    pass_fn edges
    Py_ssize_t scratch
    Py_ssize_t n_rows
    Py_ssize_t n_columns

# out = U_face^T diag(weights) U_face for the k columns face[:k] of U: entry (i, j), i >= j, at
# out[i + ld * j] (the lower triangle, column-major; the upper one is not written); weights over the
# N rows; 0 on success, -1 where it could not (then the caller forms the product itself)
ctypedef int (*gram_fn)(const void* data, const double* weights, const int* face, int k, double* out,
                        int ld) noexcept nogil

# an operator's Gram for a compiled solver, as a PyCapsule named GRAM_NAME
# ("dualboost.solvers._passes.Gram"): asked only for faces of at least min_face columns (where it
# pays, by the operator's own rule)
cdef struct Gram:
    const void* data
    gram_fn gram
    Py_ssize_t n_rows
    Py_ssize_t n_columns
    Py_ssize_t min_face
