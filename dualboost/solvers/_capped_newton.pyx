# cython: language_level=3
"""A whole re-solve of ERLPBoost's smooth dual in one call (docs/architecture.md#compiled-code).

The dual ([KG] Eq. 3.10 with psi eliminated, docs/math.md#capped-softmax) is
``D(w) = -f*(-U w)`` for the capped relative entropy ``f = (1/eta) Delta(., d0)`` on
``{d : sum d = 1, d <= 1/nu}``, maximised over the simplex. At each point:

* the capped softmax ``d = argmax`` ([SS] Lemma 16): ``d_n = min(1/nu, xi d0_n e^{-eta (U w)_n})``,
  its capped set Lemma 16's along the weights in descending order, found without a sort as a
  selection finds a rank (:func:`_capped_search`): on the weights relative to the largest, or in the
  log domain where the free ones underflow (eta up to 1e6);
* ``D(w) = w^T g + f(d)`` with ``g = U^T d`` (the gradient, docs/math.md#erratum-kg-7), ``f(d)`` from
  the log-scale as ``dualboost.conjugates.CappedRelativeEntropy.conjugate_and_grad`` does at eta >= 1;
* the Hessian on the face S of positive (and entering) weights in the low-rank form of
  ``dualboost.conjugates.traits.LowRankHessian``: ``H = -eta (B^T B - a a^T / sum s)`` with
  ``s`` = d off the capped set (and below the cap by more than rounding), ``B = diag(sqrt s) U_S``
  (BLAS dsyrk), ``a = U_S^T s``;
* the passes over U (``U w``, ``U^T d``) by BLAS dgemv, or by the caller's operator (``products``:
  e.g. a stump operator, O(N F + t) a pass) and ``B^T B`` by the caller's Gram (``gram``) where it
  does not decline, called back with the GIL;
* the Newton step ``(r I - H) x = g_S - mu 1``, ``sum x = 0`` by a Cholesky factor (LAPACK dpotrf,
  dpotrs; the ridge r the smallest of 1e-12, 1e-10, ... times ``max |H_ii|`` that factors); the
  previous solve's factor of the kept Hessian is extended by the appended columns' rows (BLAS dtrsv,
  O(k^2) a row) instead of factored anew;
  entering columns a step would push below 0 leave the face and the step is recomputed; the
  Hessian (the caller's kept one, from an earlier solve, at first) is kept for the next step (a
  chord step) while each step cuts the gap fourfold at full length (CHORD_RATE), and formed anew
  at the current point otherwise, or where a column without a row in it enters, or where the kept
  one gives no ascent; the last one formed is returned with its point, for the next solve;
* a backtracking (Armijo) line search on D along the step clipped at the first weight that reaches
  0, which then leaves the face;
* the stop: the gap of the pair ``(d(w), w)``, ``max_q g_q - w^T g`` (the max-edge models' primal
  ``P(d) = max_q (U^T d)_q + f(d)`` minus ``D(w)``), relative to ``max(1, |P|)``, at most ``tol``.

The caller (``dualboost.solvers.compiled``) certifies the returned w with the library's own
certificate; this module's gap only decides when to stop.
"""

import numpy as np

cimport cython
from libc.math cimport exp, fabs, log, sqrt, INFINITY, NAN
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from scipy.linalg.cython_blas cimport ddot, dgemv, dsyrk, dtrsv
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs
from cpython.pycapsule cimport PyCapsule_GetPointer

from dualboost._sums cimport EXACT_SUM_MAX, pairwise_sum
from dualboost.conjugates._capped_sums cimport capped_member, kl_total
from dualboost.solvers._passes cimport Gram, Passes

#: the name of a ``passes`` capsule (``dualboost/solvers/_passes.pxd``)
cdef const char* _PASSES_NAME = b"dualboost.solvers._passes.Passes"
PASSES_NAME = _PASSES_NAME
#: the name of a ``grams`` capsule (``dualboost/solvers/_passes.pxd``)
cdef const char* _GRAM_NAME = b"dualboost.solvers._passes.Gram"
GRAM_NAME = _GRAM_NAME


#: the largest first-order change of a log-weight eta (U x)_n that a first trial may make, at first,
#: and its bounds (NewtonOptions.radius, radius_min, radius_max; docs/solvers.md#step-length)
cdef double RADIUS = 4.0, RADIUS_MIN = 0.25, RADIUS_MAX = 1e3
#: a step with an older Hessian (a chord step) is followed by another while it cut the gap by this
#: factor at full length; else the Hessian is formed anew at the next point
cdef double CHORD_RATE = 0.25
#: the capped softmax's weights are its kept exponentials ew scaled by exp(log_xi - shift) while the
#: scale's log-weight lies above -SCALED (the scale then at most e^SCALED, and a weight it rescales
#: from below the smallest normal double, e^-708, is below e^-308 of the cap), else one exp each
cdef double SCALED = 400.0
#: from this many rows the weights' exponentials and their sum are numpy's (SIMD where the CPU has it,
#: pairwise): one call with the GIL, about a sixth of the time of libm's exp one at a time and a running
#: sum on a9a's 29,305 rows; below, libm's and the running sum (smaller sets' fits as they were)
cdef int VECTOR_EXP = 4096
#: the capped set's search sums the weights relative to the largest (ew) about a pivot whose
#: log-weight lies above -LINEAR (the weights that underflowed there below e^-145 of its), else
#: relative to the pivot's; capped_softmax's log domain where the sum below the set is under 1e-280
cdef double LINEAR = 600.0
cdef double LOG_TINY = log(1e-280)


cdef struct Problem:
    const double* U      # N x t, column-major (U[n + N j])
    const double* log_d0
    double* lw           # scratch: the log-weights (N)
    int* idx             # scratch: the rows' order that the capped set's search splits (N)
    double* suffix       # scratch: the free weights (N + 1)
    double* ew           # scratch: the weights relative to the largest, exp(lw - max lw) (N)
    int free_row         # the last capped set's search: a row at its threshold, and its last capped
    int capped_row       # row (-1: none), the next search's first pivots (:func:`_capped_search`)
    void* lw_array       # lw and ew as numpy arrays (for numpy's exp: VECTOR_EXP)
    void* ew_array
    int N
    int t
    double eta
    double nu
    void* products       # an object with margins(w) and edges(d) (U w, U^T d), or NULL: BLAS on U
    void* gram           # a callable (weights, face) -> U_S^T diag(weights) U_S or None, or NULL
    const Passes* passes  # the operator's compiled passes (called without the GIL), or NULL
    const Gram* grams     # the operator's compiled Gram (called without the GIL), or NULL
    double* pass_scratch  # their scratch (passes.scratch doubles)


cdef void _sort_rows(int* rows, int n) noexcept nogil:
    """Sorts ``rows[:n]`` ascending (a shell sort)."""
    cdef int gap = 1, i, j, r
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap >= 1:
        for i in range(gap, n):
            r = rows[i]
            j = i
            while j >= gap and rows[j - gap] > r:
                rows[j] = rows[j - gap]
                j -= gap
            rows[j] = r
        gap //= 3

cdef inline bint _capped_at(int i, int K, double cap, double cap_tol, double weight, double below) noexcept nogil:
    """Lemma 16's test at the i-th largest weight (``weight``; ``below`` the sum of the weights below
    the i largest, that one included): ``(1 - i/nu) weight <= cap below`` to the log domain's 1e-12,
    or ``1 - i/nu <= 0``, or i >= K - 1 (the last of the K largest, capped_softmax's fallback)."""
    cdef double mass = 1.0 - i * cap
    return i >= K - 1 or mass <= 0.0 or mass * weight <= cap_tol * below


cdef inline int _median3(const double* lws, int a, int b, int c) noexcept nogil:
    """The row of the median log-weight of rows a, b and c."""
    if lws[a] > lws[b]:
        a, b = b, a
    if lws[b] > lws[c]:
        b = c
    return a if lws[a] > lws[b] else b


cdef inline double _exp_below(double x) noexcept nogil:
    """``exp(x)`` for x <= 0, 0 below -746 without libm's underflow path (its result there is 0)."""
    return exp(x) if x > -746.0 else 0.0


cdef int _capped_search(Problem* p, int K, double cap, unsigned char* capped, double* below_out,
                        double* ref_out, double* level) noexcept nogil:
    """The capped set of Lemma 16 without a sort: the first i, along the log-weights in descending
    order (ties by row), at which ``(1 - i/nu) weight_i <= cap (sum of the weights below the i
    largest, the i-th included)`` (:func:`_capped_at`; capped_softmax's test), found as a selection
    finds a rank (O(N) expected, as the projections onto the capped simplex search their threshold;
    docs/math.md#capped-softmax): the rows' order ``p.idx`` split three ways about a pivot
    log-weight (above, tied, below; the sums of the weights tied and below), the test at the first
    tied row's rank, which is monotone in the rank (its left side less the right falls by
    ``(1 - (i + 1)/nu) (weight_i - weight_{i+1}) >= 0`` a rank), then the rows above where it holds,
    else along the tied rows (in row order) and then the rows below, every row above and tied then
    capped. The first pivots are the previous search's rows at its threshold (``p.free_row``,
    ``p.capped_row``: they bracket this set where it changed little), then medians of three.

    A split's weights are ``ew`` (relative to the largest; exp is monotone, so the log-weights'
    order is theirs, and breaks their ties where they underflowed, as capped_softmax's order does)
    where its pivot's log-weight is above -LINEAR (every weight that underflowed there is below
    e^-(745 - LINEAR) of the pivot's), else ``exp(lw - pivot)`` (at most 1: no overflow; eta up to
    1e6). Sets ``capped`` on the set and returns its size i, ``below_out`` the sum at i relative to
    ``exp(ref_out)`` (``ref_out`` 0, the largest weight, or the i-th largest log-weight) and
    ``level`` the i-th largest log-weight."""
    cdef int N = p.N, lo = 0, hi = N, above = 0, a, b, i, j, row, chosen = -1, rank, tied, pivot_row
    cdef int splits = 0, free_row = -1, capped_row = -1
    cdef double below = 0.0, pivot, x, sum_tied, sum_below, weight, cap_tol = cap * exp(1e-12), rest
    cdef double top = 0.0, ref = 0.0, split_ref  # (below relative to exp(ref): 0 or a pivot's log-weight)
    cdef bint linear
    cdef int* rows = p.idx
    cdef const double* lws = p.lw
    cdef const double* ew = p.ew
    for i in range(N):
        rows[i] = i
    while lo < hi:
        # the pivots: first the previous search's first free row, then (where the set ends above it)
        # its last capped row, which bracket this set where it changed little; else the median of three
        if splits == 0 and p.free_row >= 0:
            pivot_row = p.free_row
        elif splits == 1 and hi < N and p.capped_row >= 0 and lws[p.capped_row] > top:
            pivot_row = p.capped_row
        else:
            pivot_row = _median3(lws, rows[lo], rows[lo + (hi - lo) // 2], rows[hi - 1])
        pivot = lws[pivot_row]
        splits += 1
        linear = pivot > -LINEAR
        # rows[lo:a] above the pivot, rows[a:b] at it, rows[b:hi] below
        a, i, b = lo, lo, hi
        sum_tied, sum_below = 0.0, 0.0
        while i < b:
            row = rows[i]
            x = lws[row]
            if x > pivot:
                rows[i] = rows[a]
                rows[a] = row
                a += 1
                i += 1
            elif x < pivot:
                b -= 1
                rows[i] = rows[b]
                rows[b] = row
                sum_below += ew[row] if linear else _exp_below(x - pivot)
            else:
                i += 1
                sum_tied += ew[row] if linear else 1.0
        # the weights below the range (below, relative to exp(ref); ref at most the pivot)
        if linear:
            weight, split_ref = ew[pivot_row], 0.0
            rest = (below if ref == 0.0 else below * exp(ref)) + sum_below
        else:
            weight, split_ref = 1.0, pivot
            rest = (below * _exp_below(ref - pivot) if below > 0.0 else 0.0) + sum_below
        rank = above + (a - lo)
        if _capped_at(rank, K, cap, cap_tol, weight, rest + sum_tied):  # the set ends at or above rank
            below, ref, top, free_row = rest + sum_tied, split_ref, pivot, pivot_row
            hi = a
            continue
        tied = b - a
        for j in range(1, tied):  # past the first tied row (reached there only by rounding or 1 - i/nu)
            if _capped_at(rank + j, K, cap, cap_tol, weight, rest + (tied - j) * weight):
                chosen = rank + j
                below, ref, top, free_row = rest + (tied - j) * weight, split_ref, pivot, pivot_row
                _sort_rows(rows + a, tied)  # the first j tied rows in row order
                b = a + j
                break
        for i in range(lo, b):
            capped[rows[i]] = 1
        capped_row = pivot_row
        if chosen >= 0:
            break
        above += b - lo
        lo = b
    below_out[0], ref_out[0], level[0] = below, ref, top
    p.free_row, p.capped_row = free_row, capped_row
    return above if chosen < 0 else chosen


cdef int _call_into(object method, const double* x, int n_in, double* out, int n_out) except -1:
    """``out = method(x)``: x copied into a new array (the callee may keep it), the result checked
    to be n_out finite-or-not float64 values."""
    cdef double[::1] arg = np.empty(n_in)
    if n_in:
        memcpy(&arg[0], x, n_in * sizeof(double))
    result = np.ascontiguousarray(method(np.asarray(arg)), dtype=np.float64)
    if result.shape != (n_out,):
        raise ValueError(f"an operator's product returned shape {result.shape}, expected ({n_out},)")
    cdef double[::1] r = result
    if n_out:
        memcpy(out, &r[0], n_out * sizeof(double))
    return 0


cdef int _product(Problem* p, bint transposed, const double* x, double* out) except -1 nogil:
    """``out = U x`` (``transposed``: ``U^T x``): by the operator's compiled passes (``p.passes``,
    without the GIL) or its ``margins``/``edges`` where the caller gave one, else BLAS dgemv on U."""
    cdef int inc = 1
    cdef double one = 1.0, zero = 0.0
    cdef char trans = b'T' if transposed else b'N'
    if p.passes != NULL:
        if transposed:
            p.passes.edges(p.passes.data, x, out, p.pass_scratch)
        else:
            p.passes.margins(p.passes.data, x, out, p.pass_scratch)
        return 0
    if p.products == NULL:
        dgemv(&trans, &p.N, &p.t, &one, <double*>p.U, &p.N, <double*>x, &inc, &zero, out, &inc)
        return 0
    with gil:
        operator = <object>p.products
        if transposed:
            _call_into(operator.edges, x, p.N, out, p.t)
        else:
            _call_into(operator.margins, x, p.t, out, p.N)
    return 0


cdef double _largest(const double* v, int n) noexcept nogil:
    """``max v[:n]`` (-inf for n = 0; NaN entries skipped): four running maxima, which the compiler
    keeps in registers, instead of one chain through memory."""
    cdef double m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY
    cdef int i = 0
    while i + 4 <= n:
        if v[i] > m0:
            m0 = v[i]
        if v[i + 1] > m1:
            m1 = v[i + 1]
        if v[i + 2] > m2:
            m2 = v[i + 2]
        if v[i + 3] > m3:
            m3 = v[i + 3]
        i += 4
    while i < n:
        if v[i] > m0:
            m0 = v[i]
        i += 1
    if m1 > m0:
        m0 = m1
    if m3 > m2:
        m2 = m3
    return m2 if m2 > m0 else m0

cdef double _evaluate(Problem* p, const double* w, double* m, double* d, double* g,
                      unsigned char* capped) except? -1.0 nogil:
    """m = U w, d = the capped softmax at theta = -m, g = U^T d; returns D(w) (the caller's
    buffers; ``capped[n]`` 1 where d_n is at the cap).

    The capped softmax as ``dualboost.conjugates.projections.capped_softmax`` computes it ([SS]
    Lemma 16): the plain softmax where no weight reaches the cap; else the largest log-weights in
    descending order, and the first i at which ``xi_i weight_i <= cap`` with
    ``xi_i = (1 - i/nu) / (sum of the weights below the i largest)``, i < K = floor(nu) + 1, by
    :func:`_capped_search` (O(N) expected, no sort); d from the weights relative to the largest, or,
    where the sum below that i underflows there (below 1e-280, as capped_softmax decides), relative
    to the i-th largest (the log domain)."""
    cdef int N = p.N, n, i, K = N
    cdef double cap = 1.0 / p.nu, log_cap = log(cap)
    cdef double top = -INFINITY, total = 0.0, mass, log_xi, lw = 0.0, shift = 0.0, value, ncap = 0.0
    cdef double scale, xi = 0.0, below, ref, level
    cdef bint plain
    cdef double* lws = p.lw
    cdef double* ew = p.ew
    cdef const double* log_d0 = p.log_d0
    cdef double eta = p.eta
    _product(p, False, w, m)
    memset(capped, 0, N)
    for n in range(N):
        lws[n] = log_d0[n] - eta * m[n]
    top = _largest(lws, N)
    for n in range(N):
        lws[n] -= top  # relative to the largest (<= 0), as capped_softmax scales the weights
    # ew: the weights relative to the largest (kept: the weights below are these, scaled, where that
    # cannot overflow), and their sum as capped_softmax's e.sum() (numpy's pairwise additions)
    if N >= VECTOR_EXP:
        with gil, np.errstate(under="ignore"):  # (as libm's: no error where the caller has seterr)
            total = np.add.reduce(np.exp(<object>p.lw_array, out=<object>p.ew_array))
    else:
        for n in range(N):
            ew[n] = _exp_below(lws[n])
        total = pairwise_sum(ew, N)
    log_xi = -log(total)  # relative to top too: d_n = min(cap, exp(log_xi + lws[n]))
    if p.nu >= N:  # the capped simplex is the one point d = 1/N: every row at the cap, exactly
        for n in range(N):
            capped[n] = 1
        ncap = N
        log_xi = -INFINITY
    elif p.nu != 1.0 and total * cap < 1.0:  # the largest weight exceeds the cap
        K = <int>p.nu
        if K > N - 1:
            K = N - 1
        K += 1
    plain = p.nu < N and (p.nu == 1.0 or total * cap >= 1.0)  # the softmax: d = e / sum e
    if p.nu < N and not plain:
        ncap = _capped_search(p, K, cap, capped, &below, &ref, &level)
        mass = 1.0 - ncap / p.nu
        if not mass > 0.0:  # the set takes all the mass: the rest get nothing
            log_xi = -INFINITY
        elif (below >= 1e-280) if ref == 0.0 else (log(below) + ref >= LOG_TINY):
            # the scale as capped_softmax's linear branch takes it (from the free weights' sum in
            # numpy's order: d sums to 1 as numpy sums it as often as the Python path's), else from
            # the search's sum (relative to the largest weight)
            xi = _linear_scale(p, capped, mass)
            log_xi = log(xi) if xi > 0.0 else log(mass) - log(below) - ref
        else:  # the sum below the set underflowed (below 1e-280: capped_softmax's log domain): the
            # scale relative to the i-th largest weight (exact near it), to which the sum is relative
            shift = level
            log_xi = log(mass) - log(below)
    scale = exp(log_xi - shift) if shift > -SCALED else 0.0  # (log_xi <= 0: at most e^SCALED)
    if plain:  # (as capped_softmax divides)
        for n in range(N):
            d[n] = ew[n] / total
    elif xi > 0.0:  # (as capped_softmax scales: min(cap, xi e_n); one branch-free loop)
        for n in range(N):
            lw = ew[n] * xi
            d[n] = cap if (capped[n] or lw > cap) else lw
    elif log_xi == -INFINITY:
        for n in range(N):
            d[n] = cap if capped[n] else 0.0
    elif shift > -SCALED:  # exp(log_xi + lw - shift) as ew exp(log_xi - shift): one exp per pass
        for n in range(N):  # (one branch-free loop)
            lw = ew[n] * scale
            d[n] = cap if (capped[n] or lw > cap) else lw
    else:
        for n in range(N):
            lw = log_xi + (lws[n] - shift)
            d[n] = cap if capped[n] else _exp_below(lw if lw < log_cap else log_cap)
    _sum_to_one(p, d, capped, cap)
    _product(p, True, d, g)
    # f*(theta) at eta >= 1 from the log-scale (CappedRelativeEntropy.conjugate_and_grad): with
    # theta = -m, f* = -(1 - |C|/nu) log_xi / eta + cap sum_C (theta_n - (log cap - log d0_n) / eta)
    mass = 1.0 - ncap / p.nu  # (CappedRelativeEntropy's free mass)
    value = -mass * ((log_xi - shift) - top) / p.eta if (mass > 0.0 and log_xi != -INFINITY) else 0.0
    if ncap > 0.0:
        for n in range(N):
            if capped[n]:
                value += cap * (-m[n] - (log_cap - p.log_d0[n]) / p.eta)
    return -value


#: the times :func:`_sum_to_one` moves the residual before it leaves d as it is
cdef int SUM_TRIES = 3


cdef void _sum_to_one(const Problem* p, double* d, const unsigned char* capped, double cap) noexcept nogil:
    """d's rounding residual ``1 - sum d`` (numpy's pairwise order, :func:`pairwise_sum`) added to its
    largest entry off the cap, while that leaves it in ``[0, cap]`` (up to :data:`SUM_TRIES` times, until
    the sum is 1): a d on the capped simplex exactly as the certificate checks it
    (``Model.repair_primal`` with tolerance 0), which the library then certifies without a repair and a
    second pass over U (a capped softmax divided by its sum misses by an ulp in a third of a boosting
    run's solves). It moves one entry by ~1e-16: d(w) to rounding, as any evaluation is."""
    cdef int n, k = -1, tries
    cdef double residual, largest = -1.0
    for tries in range(SUM_TRIES):
        residual = 1.0 - pairwise_sum(d, p.N)
        if residual == 0.0:
            return
        if k < 0:
            for n in range(p.N):
                if not capped[n] and d[n] < cap and d[n] > largest:
                    largest = d[n]
                    k = n
            if k < 0:
                return
        if not (0.0 <= d[k] + residual <= cap):
            return
        d[k] += residual


cdef double _linear_scale(Problem* p, const unsigned char* capped, double mass) noexcept nogil:
    """The scale ``xi = (1 - |C|/nu) / (sum of the free weights)`` of the weights ``ew`` (relative to
    the largest) off the capped set C, their sum in row order as numpy sums (the capped rows as 0),
    as capped_softmax's linear branch scales them: d then sums to 1 as numpy sums it about as often
    as the Python path's d; 0 where the sum is below 1e-280 (it underflowed: the log domain decides).
    ``p.suffix`` (N + 1) is its scratch."""
    cdef int n
    cdef double below
    for n in range(p.N):
        p.suffix[n] = 0.0 if capped[n] else p.ew[n]
    below = pairwise_sum(p.suffix, p.N)
    return mass / below if below >= 1e-280 else 0.0


cdef double _gap(const double* w, const double* g, int t, double value) noexcept nogil:
    """The relative gap of (d(w), w): (max g - w^T g) / max(1, |P|), P = D + max g - w^T g."""
    cdef int j
    cdef double best = -INFINITY, wg = 0.0, primal
    for j in range(t):
        if g[j] > best:
            best = g[j]
        wg += w[j] * g[j]
    primal = value + best - wg
    return (best - wg) / (fabs(primal) if fabs(primal) > 1.0 else 1.0)


cdef int _candidates(const double* w, const double* g, double wg, int t, int* face) noexcept nogil:
    """The candidate face: positive weights, and zero weights with ``g_j > w^T g``; its size."""
    cdef int j, k = 0
    for j in range(t):
        if w[j] > 0.0 or g[j] > wg:
            face[k] = j
            k += 1
    return k


cdef double _weights(const Problem* p, const double* d, const unsigned char* capped, double* s) noexcept nogil:
    """The Hessian's row weights at d into ``s`` (``s_n = d_n`` on the rows that count, 0 elsewhere);
    returns their sum. A row counts off the capped set and below the cap by more than its rounding
    (``dualboost.conjugates.entropy.uncapped_weights``: d_n < (1 - 1e-12) / nu for nu > 1), the
    Python path's rule (at nu = N, where every d_n is the cap, the Hessian is then 0 as there), with
    ``d_n > 1e-17 max`` of those, as Model._curvature takes them."""
    cdef int n, N = p.N
    cdef double s_max = 0.0, s_sum = 0.0, below = (1.0 - 1e-12) / p.nu if p.nu > 1.0 else INFINITY, floor
    for n in range(N):
        if not capped[n] and d[n] < below and d[n] > s_max:
            s_max = d[n]
    floor = 1e-17 * s_max
    for n in range(N):
        s[n] = d[n] if (not capped[n] and d[n] < below and d[n] > floor) else 0.0
        s_sum += s[n]
    return s_sum


cdef void _centre(const Problem* p, double* full, const double* a, int k, double s_sum) noexcept nogil:
    """``full -= eta a a^T / sum s`` on the lower triangle (k x k, ld t; nothing where the sum is 0)."""
    cdef int i, j
    if s_sum > 0.0:
        for j in range(k):
            for i in range(j, k):
                full[i + p.t * j] -= p.eta * a[i] * a[j] / s_sum


cdef int _from_gram(Problem* p, const int* face, int k, const double* s, double s_sum, double* full, double* a,
                    double* g_all) except -1 nogil:
    """``full = eta G - eta a a^T / sum s`` from the Gram ``G = U_S^T diag(s) U_S`` in ``full``'s lower
    triangle, with ``a = U_S^T s`` (by :func:`_product`)."""
    cdef int i, j
    _product(p, True, s, g_all)
    for i in range(k):
        a[i] = g_all[face[i]]
    for j in range(k):
        for i in range(j, k):
            full[i + p.t * j] = p.eta * full[i + p.t * j]
    _centre(p, full, a, k, s_sum)
    return 0


cdef int _form_gram(Problem* p, const int* face, int k, const double* s, double s_sum, double* full, double* a,
                    double* g_all) except -1 nogil:
    """``full = -H`` as :func:`_form` forms it, from the caller's Gram ``U_S^T diag(s) U_S``
    (``p.gram``, e.g. a stump operator's histogram Gram, O(N F^2 + k^2) instead of O(N k^2)) at the
    weights ``s`` (:func:`_weights`); 0 where ``p.gram`` declined (returned None), 1 where formed."""
    cdef int N = p.N, t = p.t, i, j
    cdef double[:, ::1] G
    cdef double[::1] weights_view
    cdef Py_ssize_t[::1] columns_view
    with gil:
        weights = np.empty(N)
        columns = np.empty(k, dtype=np.intp)
        weights_view, columns_view = weights, columns
        memcpy(&weights_view[0], s, N * sizeof(double))
        for i in range(k):
            columns_view[i] = face[i]
        result = (<object>p.gram)(weights, columns)
        if result is None:
            return 0
        result = np.ascontiguousarray(result, dtype=np.float64)
        if result.shape != (k, k):
            raise ValueError(f"the Gram callable returned shape {result.shape}, expected ({k}, {k})")
        G = result
    for j in range(k):
        for i in range(j, k):
            full[i + t * j] = G[i, j]
    _from_gram(p, face, k, s, s_sum, full, a, g_all)
    return 1


cdef int _form_compiled_gram(Problem* p, const int* face, int k, const double* s, double s_sum, double* full,
                             double* a, double* g_all) except -1 nogil:
    """``full = -H`` as :func:`_form_gram` forms it, from the operator's compiled Gram (``p.grams``,
    written into ``full``'s lower triangle); 0 where it could not (then the caller's other paths form
    it), 1 where formed."""
    if p.grams.gram(p.grams.data, s, face, k, full, p.t) != 0:
        return 0
    _from_gram(p, face, k, s, s_sum, full, a, g_all)
    return 1


cdef int _form(Problem* p, const double* d, const unsigned char* capped, const int* face, int k,
               double* B, double* full, int* pos, double* sq, double* a, double* g_all) except -1 nogil:
    """``full = -H`` on the columns ``face`` at d (lower triangle, k x k with ld t), and ``pos[j]``
    the row of column j in it (-1 for the others): ``eta (B^T B - a a^T / sum s)`` with
    ``B = diag(sqrt s) U_S`` over the rows with ``s_n > 0`` (:func:`_weights`) by BLAS dsyrk,
    ``a = U_S^T s``; or, from the operator's compiled Gram or the caller's (``p.grams``, ``p.gram``)
    where they do not decline. ``sq`` holds s, then the square roots of its nonzeros."""
    cdef int N = p.N, t = p.t, rows = 0, i, j, n
    cdef double s_sum, zero = 0.0, acc
    cdef char uplo = b'L', trans_t = b'T'
    cdef int* kept = p.idx
    cdef const double* column
    for j in range(t):
        pos[j] = -1
    for i in range(k):
        pos[face[i]] = i
    s_sum = _weights(p, d, capped, sq)
    if p.grams != NULL and k >= p.grams.min_face and _form_compiled_gram(p, face, k, sq, s_sum, full, a, g_all):
        return 0
    if p.gram != NULL and _form_gram(p, face, k, sq, s_sum, full, a, g_all):
        return 0
    for n in range(N):  # the rows that count (their order into p.idx, free here), compacted
        if sq[n] > 0.0:
            sq[rows] = sqrt(sq[n])
            kept[rows] = n
            rows += 1
    for i in range(k):  # B a column at a time (contiguous), a with it
        column = p.U + N * face[i]
        acc = 0.0
        for n in range(rows):
            B[n + N * i] = sq[n] * column[kept[n]]
            acc += sq[n] * B[n + N * i]
        a[i] = acc
    if rows > 0:
        dsyrk(&uplo, &trans_t, &k, &rows, &p.eta, B, &N, &zero, full, &t)
    else:
        for j in range(k):
            for i in range(j, k):
                full[i + t * j] = 0.0
    _centre(p, full, a, k, s_sum)
    return 0


cdef int _cover(Problem* p, const double* wk, int mk, const double* w0, int* pos, int k0, double* full,
                double* m, double* d, double* g, unsigned char* capped, double* s, double* a,
                double* cross, bint given) except -1 nogil:
    """The kept matrix ``full`` (``-H`` on the k0 columns with ``pos >= 0``, formed at the point ``wk``,
    whose first ``mk`` columns are the earlier solve's) extended to the columns a warm start's first
    step may need that it lacks: those with weight in ``w0`` and those appended since (``j >= mk``),
    their rows and columns at ``wk`` by the formula of :func:`_form` (``d`` evaluated there, one pass
    ``U^T (s u_j)`` per new column; what ``newton.Curvature.covering`` does in Python). New columns get
    the next rows, in column order. ``given``: ``d`` holds d(wk) already (the kept Hessian's own, with
    ``capped`` all 0: the rows at the cap are told by :func:`_weights`' rule, as the Python path tells
    them), else it is evaluated. Returns the rows now kept (k0 where nothing is new: nothing
    evaluated)."""
    cdef int N = p.N, t = p.t, i, j, n, k = k0, pi, pj
    cdef double s_sum
    for j in range(t):
        if pos[j] < 0 and (j >= mk or w0[j] > 0.0):
            pos[j] = k
            k += 1
    if k == k0:
        return k0
    if not given:
        _evaluate(p, wk, m, d, g, capped)
    s_sum = _weights(p, d, capped, s)
    _product(p, True, s, a)
    for j in range(t):
        pj = pos[j]
        if pj < k0:  # a kept column (or none)
            continue
        for n in range(N):
            m[n] = s[n] * p.U[n + N * j]
        _product(p, True, m, cross)
        for i in range(t):
            pi = pos[i]
            if pi < 0 or pi > pj:
                continue
            full[pj + t * pi] = p.eta * cross[i]
            if s_sum > 0.0:
                full[pj + t * pi] -= p.eta * a[i] * a[j] / s_sum
    return k


cdef struct Factor:
    # what F holds: the Cholesky factor of ``ridge I + full`` on the rows ``rows[:k]`` of the
    # matrix ``full`` as it was after ``version`` Hessians formed (k = 0: nothing)
    int k
    int version
    double ridge
    int* rows


#: a factor made with a ridge down to this fraction of the one the rule gives (``_direction``: the scale
#: of the face's diagonal grows with a column appended) is taken as made with it
cdef double RIDGE_SLACK = 0.25


cdef inline bint _ridge_ok(const Factor* f, double ridge) noexcept nogil:
    """Whether the factor's ridge serves for ``ridge``: at most it, and at least RIDGE_SLACK of it."""
    return RIDGE_SLACK * ridge <= f.ridge <= ridge


cdef bint _factored(const Factor* f, const int* sub, int kk, double ridge, int version) noexcept nogil:
    """Whether F already holds the factor of ``ridge' I + full`` on the rows ``sub[:kk]`` (``ridge'`` the
    factor's own, within RIDGE_SLACK of ``ridge``)."""
    cdef int i
    if f.k != kk or f.version != version or not _ridge_ok(f, ridge):
        return False
    for i in range(kk):
        if f.rows[i] != sub[i]:
            return False
    return True


cdef bint _extended(Factor* f, const int* sub, int kk, double ridge, int version, const double* full,
                    int t, double* F) noexcept nogil:
    """F's factor extended by bordering to the rows ``sub[:kk]`` where F holds the factor of
    ``ridge' I + full`` on the first ``f.k < kk`` of them (the same ``version``; its ridge ``ridge'``
    within RIDGE_SLACK of ``ridge``, and kept): the factor of a kept matrix after the rows of columns
    appended since (:func:`_cover`), each new row of L by a triangular solve (BLAS dtrsv, O(k^2))
    instead of the O(k^3 / 3) of a new factor. False (F then holds no factor) where nothing is kept
    to extend or a new pivot is not positive."""
    cdef int m = f.k, i, j, r, pi, pj
    cdef double acc
    cdef char uplo = b'L', trans = b'N', diag = b'N'
    if m == 0 or m >= kk or f.version != version or not _ridge_ok(f, ridge):
        return False
    ridge = f.ridge
    for i in range(m):
        if f.rows[i] != sub[i]:
            return False
    for r in range(m, kk):  # row r of L: L[:r, :r] l = the matrix's row r left of the diagonal
        for j in range(r):
            pi, pj = sub[r], sub[j]
            F[r + t * j] = full[pi + t * pj] if pi >= pj else full[pj + t * pi]
        dtrsv(&uplo, &trans, &diag, &r, F, &t, &F[r], &t)
        acc = full[sub[r] + t * sub[r]] + ridge - ddot(&r, &F[r], &t, &F[r], &t)
        if not acc > 0.0:
            f.k = 0
            return False
        F[r + t * r] = sqrt(acc)
    f.k = kk
    for i in range(kk):
        f.rows[i] = sub[i]
    return True


cdef int _direction(Problem* p, const double* w, const double* g, const int* face, int k,
                    double* x, unsigned char* out, const double* full, const int* pos,
                    double* F, double* R, int* sub, double ridge0, Factor* kept,
                    int version) noexcept nogil:
    """The Newton direction x (length t, 0 off the face) at w with the matrix ``full`` (``-H`` at the
    point where it was formed, rows ``pos``): ``(r I + full) x = g - mu 1`` on the candidate face
    ``face`` (every column of which has a row in ``full``), ``sum x = 0``, by a Cholesky factor
    (LAPACK dpotrf/dpotrs; the ridge r the smallest of ridge0, 100 ridge0, ... times ``max full_ii``
    that factors, up to 1e-2; a factor kept from an earlier step or solve serves with its own ridge
    within RIDGE_SLACK below that, and is extended to appended rows by :func:`_extended`). Entering
    columns (weight 0) whose step is negative leave the face and the step is solved again on the
    sub-face. ``kept`` records the factor F holds (``version``: the
    Hessians formed so far, which ``full`` changes with): a chord step on the same rows with the same
    ridge takes it as it is, the same factor without its O(k^3 / 3). Returns the face's size (0: no
    direction)."""
    cdef int t = p.t, kk, i, j, info, two = 2, dropped, pi, pj
    cdef double scale = 1.0, ridge, mu, y2sum, y1sum
    cdef char uplo = b'L'
    for j in range(t):
        out[j] = 0
        x[j] = 0.0
    for i in range(k):
        pi = pos[face[i]]
        if fabs(full[pi + t * pi]) > scale:
            scale = fabs(full[pi + t * pi])
    while True:
        kk = 0
        for i in range(k):
            if not out[face[i]]:
                sub[kk] = pos[face[i]]
                kk += 1
        if kk == 0:
            return 0
        ridge = ridge0 * scale
        while not (_factored(kept, sub, kk, ridge, version)
                   or _extended(kept, sub, kk, ridge, version, full, t, F)):
            for j in range(kk):
                for i in range(j, kk):
                    pi, pj = sub[i], sub[j]
                    F[i + t * j] = full[pi + t * pj] if pi >= pj else full[pj + t * pi]
                F[j + t * j] += ridge
            dpotrf(&uplo, &kk, F, &t, &info)
            if info == 0:
                kept.k, kept.version, kept.ridge = kk, version, ridge
                for i in range(kk):
                    kept.rows[i] = sub[i]
                break
            kept.k = 0  # F holds no factor now
            ridge *= 100.0
            if ridge > 1e-2 * scale:
                return 0
        kk = 0
        for i in range(k):
            if not out[face[i]]:
                sub[kk] = face[i]  # from here on: the sub-face's columns, in the factor's order
                R[kk] = g[face[i]]
                kk += 1
        for i in range(kk):
            R[i + kk] = 1.0
        dpotrs(&uplo, &kk, &two, F, &t, R, &kk, &info)
        if info != 0:
            return 0
        y1sum = 0.0
        y2sum = 0.0
        for i in range(kk):
            y1sum += R[i]
            y2sum += R[i + kk]
        mu = y1sum / y2sum
        dropped = 0
        for i in range(kk):
            j = sub[i]
            x[j] = R[i] - mu * R[i + kk]
            if w[j] <= 0.0 and x[j] < 0.0:
                out[j] = 1
                dropped = 1
        if not dropped:
            return kk
        for j in range(t):
            x[j] = 0.0


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int _kept_factor(kept_factor, int k0, int t, Factor* factor, double* F) except -1:
    """The caller's factor ``(F, rows, ridge)`` of the kept matrix (k0 rows) into ``factor`` and ``F``
    (version 0: the kept matrix); a ValueError where it is not a k x k factor of k distinct rows."""
    matrix, rows, ridge = kept_factor
    cdef const double[::1, :] L = np.asfortranarray(matrix, dtype=np.float64)
    cdef const int[::1] R = np.ascontiguousarray(rows, dtype=np.int32)
    cdef int k = R.shape[0], i, j
    if L.shape[0] != k or L.shape[1] != k or k > k0:
        raise ValueError("kept_factor must be a k x k factor on k distinct rows of kept_H")
    seen = np.zeros(k0, dtype=np.uint8)
    cdef unsigned char[::1] mark = seen
    for j in range(k):
        if R[j] < 0 or R[j] >= k0 or mark[R[j]]:
            raise ValueError("kept_factor must be a k x k factor on k distinct rows of kept_H")
        mark[R[j]] = 1
        factor.rows[j] = R[j]
        for i in range(j, k):
            F[i + t * j] = L[i, j]
    factor.k, factor.version, factor.ridge = k, 0, float(ridge)
    return 0


cdef int _started(start_value, start_d, start_g, start_capped, int N, int t, double[::1] d, double[::1] g,
                  unsigned char[::1] capped) except -1:
    """1 where :func:`solve` was given an evaluation at its start (all four ``start_*``), copied into
    ``d``, ``capped`` and g's first entries; 0 where none; a ValueError for a partial or misshapen one."""
    given = [x is not None for x in (start_value, start_d, start_g, start_capped)]
    if not any(given):
        return 0
    if not all(given):
        raise ValueError("start_value, start_d, start_g and start_capped go together")
    cdef const double[::1] sd = np.ascontiguousarray(start_d, dtype=np.float64)
    cdef const double[::1] sg = np.ascontiguousarray(start_g, dtype=np.float64)
    cdef const unsigned char[::1] sc = np.ascontiguousarray(start_capped, dtype=np.uint8)
    if sd.shape[0] != N or sc.shape[0] != N or sg.shape[0] > t:
        raise ValueError("start_d and start_capped must have U.shape[0] entries, start_g at most U.shape[1]")
    d[:] = sd
    capped[:] = sc
    g[:sg.shape[0]] = sg
    return 1


cdef double _divergence(const double[::1] d, prior, double nu, double* terms) except? -1.0:
    """``sum_n kl(d_n, d0_n)`` (``kl_total``) where d passes the capped simplex's membership test at
    tolerance 0 (``capped_member``), NaN where it does not or where ``prior`` (d0) is None; ``terms``:
    N doubles of scratch."""
    if prior is None:
        return NAN
    cdef const double[::1] d0 = prior
    cdef Py_ssize_t n = d.shape[0]
    if d0.shape[0] != n or n > EXACT_SUM_MAX:
        raise ValueError("d0 must have U.shape[0] entries, at most EXACT_SUM_MAX")
    if not capped_member(&d[0], n, 1.0 / nu, 0.0):
        return NAN
    return kl_total(&d[0], &d0[0], n, terms)


def solve(
    const double[::1, :] U,
    const double[::1] log_d0,
    double nu,
    double eta,
    const double[::1] w0,
    double tol,
    int max_steps,
    kept_H=None,
    kept_face=None,
    bint projected=False,
    double ridge0=1e-12,
    double rounding=1e-15,
    double rounding_floor=0.0,
    int patience=0,
    products=None,
    gram=None,
    passes=None,
    kept_w=None,
    grams=None,
    kept_d=None,
    start_value=None,
    start_d=None,
    start_g=None,
    start_capped=None,
    kept_factor=None,
    d0=None,
):
    """Newton on the simplex from ``w0`` until the gap of ``(d(w), w)`` is at most ``tol``.

    Parameters
    ----------
    U : (N, t) float64, Fortran order
        The edge matrix.
    log_d0 : (N,) float64
        ``ln d0``, finite.
    nu, eta : float
        The cap 1/nu (nu in [1, N]) and the regularisation (eta >= 1).
    w0 : (t,) float64
        The start, on the simplex.
    tol : float
        The relative gap at which to stop.
    max_steps : int
        At most this many Newton steps.
    kept_H : (k, k) float64, optional
        A Hessian of D formed earlier on the columns ``kept_face`` (``newton.Curvature.H``): the
        first steps are chord steps with it, until one does not cut the gap fourfold.
    kept_face : (k,) int, optional
        Its columns, distinct indices below t.
    projected : bool, default False
        The first trial of a step is the whole step clipped at 0 (the projected Newton path, which
        drops every weight it takes below 0 at once, as ``newton.newton_polish`` does without
        breakpoints), the Armijo test on the slope of the clipped path; False: the first trial
        stops where the first weight reaches 0 (one column leaves the face per step).
    ridge0 : float, default 1e-12
        The first relative ridge tried (``NewtonOptions.ridges[0]`` is the Python path's).
    rounding, rounding_floor : float, default 1e-15 and 0
        The fall of D that the line search takes for rounding where the gap falls: ``rounding``
        times ``max(rounding_floor, |D|)`` (``NewtonOptions.rounding`` and 1 are the Python path's,
        ``newton.accepted``).
    patience : int, default 0
        Where a step with a freshly formed Hessian gives no ascent or no accepted trial, it is
        solved again with a larger ridge (the relative damping 1e-3, then ten times larger; a tenth
        after each full step) and a quarter of the trust radius, up to this many times in a row
        without a smaller gap (``NewtonOptions.patience``, as ``newton.newton_polish`` damps);
        0: the loop stops there.
    products : object, optional
        An operator of U's columns with ``margins(w)`` (``U w``, shape (N,)) and ``edges(d)``
        (``U^T d``, shape (t,)), called (with the GIL) instead of BLAS on ``U`` for every pass: e.g. a
        stump operator (``dualboost.problems.kernels.StumpColumns``), O(N F + t) a pass.
    gram : callable, optional
        ``gram(weights, face) -> U_face^T diag(weights) U_face`` (k x k) or None to decline (then
        the Hessian is formed by BLAS on U's columns): where given, every Hessian is first asked of it.
    passes : PyCapsule, optional
        The compiled passes of ``products`` (a capsule named ``PASSES_NAME`` pointing to a ``Passes``
        of ``dualboost/solvers/_passes.pxd``, for U's N rows and t columns), called without the GIL
        instead of ``products``' methods; the caller keeps the object that owns them alive (it
        passes it as ``products``).
    grams : PyCapsule, optional
        The compiled Gram of ``products`` (a capsule named ``GRAM_NAME`` pointing to a ``Gram`` of
        ``dualboost/solvers/_passes.pxd``), called without the GIL for every Hessian on a face of at
        least its ``min_face`` columns, before ``gram``; the caller keeps its owner alive.
    kept_w : (m,) float64, optional
        The point at which ``kept_H`` was formed (over U's first m <= t columns; the others at 0):
        the kept matrix is first extended to the columns with weight in ``w0`` and those appended
        after the first m that ``kept_face`` lacks, at that point (:func:`_cover`), and returned as
        the last Hessian where the loop forms none. Without it the kept matrix is taken as it is.
    kept_d : (N,) float64, optional
        d at ``kept_w`` (the kept Hessian's own), which the extension then reads instead of evaluating
        it again.
    kept_factor : (F, rows, ridge), optional
        The Cholesky factor the loop last made of ``ridge I - kept_H`` on the kept matrix's rows
        ``rows`` (F lower, k x k, column-major; as this function returns it with the Hessian): a step
        on those rows and the appended ones extends it by their rows (O(k^2) each) instead of
        factoring anew, where the ridge is the same.
    start_value, start_d, start_g, start_capped : optional
        An evaluation at ``w0`` made earlier (the previous solve's last, before columns were appended
        with weight 0 in ``w0``): ``D(w0)``, ``d(w0)`` (N), ``U^T d`` over U's first m <= t columns
        (m) and the capped rows (N, uint8: 1 where d_n is at the cap by the capped set), all four or
        none. The loop takes them instead of evaluating ``w0`` (the margins ``U w0`` are the earlier
        ones: the appended columns' weights are 0) and computes only the appended columns' entries of
        ``U^T d`` (BLAS ddot); where it then takes no step, the returned evaluation is the one given.

    Returns
    -------
    tuple
        ``(w, d, g, value, gap, steps, hessians, evaluations, H, face, w_H, d_H, factor, capped)``: the
        last point, ``d(w)``, ``g = U^T d``, ``D(w)``, this module's gap there (not a certificate), the
        counts, the last Hessian formed here with its columns and its point (or the kept one extended
        here, where none was formed; None, None, None, None where neither) and the last Cholesky
        factor made of it (``(F, rows, ridge)``, the next call's ``kept_factor``; None where none is
        of that matrix), the capped rows at w (uint8, N: a next solve's ``start_capped``) and ``sum_n
        kl(d_n, d0_n)`` at the returned d where ``d0`` is given and d passes the membership test at
        tolerance 0 (NaN elsewhere).
    """
    cdef int N = U.shape[0], t = U.shape[1], j
    if log_d0.shape[0] != N or w0.shape[0] != t or N < 1 or t < 1:
        raise ValueError("U must be non-empty, log_d0 have U.shape[0] entries and w0 U.shape[1]")
    cdef Problem p
    p.U = &U[0, 0]
    p.log_d0 = &log_d0[0]
    p.N, p.t, p.eta, p.nu = N, t, eta, nu
    p.free_row, p.capped_row = -1, -1
    p.products = NULL if products is None else <void*>products
    p.gram = NULL if gram is None else <void*>gram
    p.passes, p.pass_scratch = NULL, NULL
    cdef Py_ssize_t pass_size = 0
    if passes is not None:
        if products is None:
            raise ValueError("passes need the operator that owns them, as products")
        p.passes = <const Passes*>PyCapsule_GetPointer(passes, _PASSES_NAME)
        if p.passes.n_rows != N or p.passes.n_columns != t:
            raise ValueError(f"passes are for {p.passes.n_rows} x {p.passes.n_columns}, not U's {N} x {t}")
        pass_size = max(p.passes.scratch, 1)
    p.grams = NULL
    if grams is not None:
        p.grams = <const Gram*>PyCapsule_GetPointer(grams, _GRAM_NAME)
        if p.grams.n_rows != N or p.grams.n_columns != t:
            raise ValueError(f"grams are for {p.grams.n_rows} x {p.grams.n_columns}, not U's {N} x {t}")
    lw_array, ew_array = np.empty(N), np.empty(N)
    cdef double[::1] lw_scratch = lw_array, ew_scratch = ew_array
    p.lw_array, p.ew_array = <void*>lw_array, <void*>ew_array
    # the scratch arrays, carved from one allocation of each type (a call made ~30 arrays and their
    # memoryviews: 12 % of a german boosting iteration went to making and freeing them)
    cdef Py_ssize_t T = t
    cdef double[::1] work = np.empty((N + 1) + 3 * N + 7 * T + N * T + 2 * T * T + 2 * T + pass_size)
    cdef int[::1] int_work = np.empty(N + 5 * T, dtype=np.int32)
    cdef unsigned char[::1] byte_work = np.zeros(N + T, dtype=np.uint8)
    cdef double *suffix = &work[0]
    cdef double *m = suffix + (N + 1)
    cdef double *sq = m + N
    cdef double *cover_s = sq + N
    cdef double *x = cover_s + N
    cdef double *a = x + T
    cdef double *g_all = a + T
    cdef double *cover_g = g_all + T
    cdef double *cover_a = cover_g + T
    cdef double *cover_x = cover_a + T
    cdef double *R = cover_x + T  # (2 t)
    cdef double *B = R + 2 * T  # (N t)
    cdef double *full = B + N * T  # (t t)
    cdef double *F = full + T * T  # (t t)
    p.pass_scratch = NULL if passes is None else F + T * T
    cdef int *idx_scratch = &int_work[0]
    cdef int *face = idx_scratch + N
    cdef int *pos = face + T
    cdef int *sub = pos + T
    cdef int *factor_rows = sub + T
    cdef int *face_formed = factor_rows + T
    cdef unsigned char *out = &byte_work[0]
    cdef unsigned char *cover_c = out + T  # (N zeros)
    for j in range(t):
        pos[j] = -1
    p.lw, p.suffix, p.idx, p.ew = &lw_scratch[0], suffix, idx_scratch, &ew_scratch[0]
    # the arrays returned, kept as the arrays themselves (np.asarray of a memoryview costs ~1 us)
    w_out, d_out, g_out = np.array(w0, dtype=np.float64), np.empty(N), np.empty(t)
    wt_out, dt_out, gt_out = np.empty(t), np.empty(N), np.empty(t)
    capped_out, capped_t_out = np.empty(N, dtype=np.uint8), np.empty(N, dtype=np.uint8)
    cdef double[::1] w = w_out, d = d_out, g = g_out, wt = wt_out, dt = dt_out, gt = gt_out
    cdef unsigned char[::1] capped = capped_out, capped_t = capped_t_out
    cdef Factor factor
    factor.k, factor.version, factor.ridge, factor.rows = 0, 0, 0.0, factor_rows
    cdef int steps = 0, hessians = 0, evaluations = 1, k, blocking, halvings, accepted, swapped = 0
    cdef double value, gap, wg, alpha, alpha_max, slope, trial, trial_gap, total, spread, path_slope, fall
    cdef double one = 1.0, zero = 0.0, radius = RADIUS
    cdef int inc = 1, n, limited, stale = 1, fresh = 0, formed_k = 0, i, stalled = 0
    cdef double damping = 0.0
    w_formed_out, d_formed_out = np.empty(t), np.empty(N)
    cdef double[::1] w_formed = w_formed_out, d_formed = d_formed_out
    cdef const double[:, :] H0
    cdef const int[::1] F0
    cdef int k0
    if kept_H is not None:
        H0 = np.asarray(kept_H, dtype=np.float64)
        face0 = np.ascontiguousarray(kept_face, dtype=np.int32)
        F0 = face0
        k0 = face0.shape[0]
        if H0.shape[0] != k0 or H0.shape[1] != k0:
            raise ValueError("kept_H must be k x k for kept_face's k distinct columns of U")
        for j in range(k0):
            if F0[j] < 0 or F0[j] >= t:
                raise ValueError("kept_H must be k x k for kept_face's k distinct columns of U")
            if pos[F0[j]] >= 0:
                raise ValueError("kept_face must list distinct columns")
            pos[F0[j]] = j
            for i in range(j, k0):
                full[i + t * j] = -H0[i, j]
        stale = 0 if k0 else 1
        if kept_factor is not None and k0:
            _kept_factor(kept_factor, k0, t, &factor, F)
    cdef double[::1] cover_w, cover_d
    cdef int covered = 0, mk = 0  # covered: the rows of the kept matrix once extended here (0: not)
    cdef bint given = False
    if kept_w is not None and kept_H is not None and k0:
        mk = len(kept_w)
        if mk > t:
            raise ValueError("kept_w must have at most U.shape[1] entries")
        start = np.zeros(t)
        start[:mk] = kept_w
        given = kept_d is not None
        if given and len(kept_d) != N:
            raise ValueError("kept_d must have U.shape[0] entries")
        cover_d_out = np.array(kept_d, dtype=np.float64) if given else np.empty(N)
        cover_d = cover_d_out
        cover_w = start
        with nogil:
            k = _cover(&p, &cover_w[0], mk, &w[0], &pos[0], k0, &full[0], &m[0], &cover_d[0], &cover_g[0],
                       &cover_c[0], &cover_s[0], &cover_a[0], &cover_x[0], given)
        if k > k0:
            covered = k
            evaluations += 0 if given else 1
    cdef double *pw = &w[0]
    cdef double *pwt = &wt[0]
    cdef double *pd = &d[0]
    cdef double *pdt = &dt[0]
    cdef double *pg = &g[0]
    cdef double *pgt = &gt[0]
    cdef double *swap
    cdef unsigned char *pc = &capped[0]
    cdef unsigned char *pct = &capped_t[0]
    cdef unsigned char *cswap
    cdef int given_start = _started(start_value, start_d, start_g, start_capped, N, t, d, g, capped)
    cdef int mg = len(start_g) if given_start else t
    cdef double given_value = float(start_value) if given_start else 0.0
    if given_start:
        evaluations -= 1  # (the first, at w0, was given)
    with nogil:
        if given_start:  # the appended columns' edges at the given d
            for j in range(mg, t):
                pg[j] = ddot(&N, <double*>&p.U[N * j], &inc, pd, &inc)
            value = given_value
        else:
            value = _evaluate(&p, pw, &m[0], pd, pg, pc)
        gap = _gap(pw, pg, t, value)
        while gap > tol and steps < max_steps:
            wg = 0.0
            for j in range(t):
                wg += pw[j] * pg[j]
            k = _candidates(pw, pg, wg, t, &face[0])
            if k == 0:
                break
            if not stale:  # every candidate has a row in the kept matrix?
                for j in range(k):
                    if pos[face[j]] < 0:
                        stale = 1
                        break
            if stale:  # -H formed anew at this point
                _form(&p, pd, pc, &face[0], k, &B[0], &full[0], &pos[0], &sq[0], &a[0], &g_all[0])
                hessians += 1
                formed_k = k
                for j in range(k):
                    face_formed[j] = face[j]
                for j in range(t):
                    w_formed[j] = pw[j]
                for n in range(N):
                    d_formed[n] = pd[n]
                stale = 0
                fresh = 1
            else:
                fresh = 0
            k = _direction(&p, pw, pg, &face[0], k, &x[0], &out[0], &full[0], &pos[0], &F[0], &R[0],
                           &sub[0], ridge0 if ridge0 > damping else damping, &factor, hessians)
            if k == 0 and not fresh:  # the kept matrix gave no direction: form it here and retry
                stale = 1
                continue
            if k == 0:
                break
            slope = 0.0
            alpha_max = INFINITY
            blocking = -1
            for j in range(t):
                slope += pg[j] * x[j]
                if x[j] < 0.0 and pw[j] / -x[j] < alpha_max:
                    alpha_max = pw[j] / -x[j]
                    blocking = j
            if not slope > 0.0:  # no ascent: with the kept matrix, form the Hessian here and retry
                if fresh:
                    if stalled >= patience:
                        break
                    stalled += 1  # damped (a larger ridge) on the same face, within patience
                    damping = 10.0 * damping if damping > 1e-3 else 1e-3
                    continue
                stale = 1
                continue
            steps += 1
            alpha = 1.0 if (projected or alpha_max > 1.0) else alpha_max
            # the trust radius (docs/solvers.md#step-length): the first trial moves no log d_n by
            # more than RADIUS, i.e. eta max_n |(U x)_n| alpha <= RADIUS
            _product(&p, False, &x[0], &m[0])
            spread = 0.0
            for n in range(N):
                if fabs(m[n]) > spread:
                    spread = fabs(m[n])
            spread *= eta
            limited = alpha * spread > radius
            if limited:
                alpha = radius / spread
            accepted = 0
            for halvings in range(40):
                total = 0.0
                for j in range(t):
                    pwt[j] = pw[j] + alpha * x[j]
                    if pwt[j] < 0.0 or (j == blocking and alpha == alpha_max):
                        pwt[j] = 0.0
                    total += pwt[j]
                if not total > 0.0:  # every weight clipped: a shorter step
                    alpha *= 0.5
                    continue
                for j in range(t):
                    pwt[j] /= total
                trial = _evaluate(&p, pwt, &m[0], pdt, pgt, pct)
                evaluations += 1
                trial_gap = _gap(pwt, pgt, t, trial)
                if projected:  # the slope along the clipped path: g . (w' - w)
                    path_slope = 0.0
                    for j in range(t):
                        path_slope += pg[j] * (pwt[j] - pw[j])
                else:
                    path_slope = alpha * slope
                # Armijo, or a fall of D within its rounding where the gap falls
                fall = rounding * (fabs(value) if fabs(value) > rounding_floor else rounding_floor)
                if trial >= value + 1e-4 * path_slope or (trial >= value - fall and trial_gap < gap):
                    accepted = 1
                    break
                alpha *= 0.5
            if not accepted:
                if fresh:
                    if stalled >= patience:
                        break
                    stalled += 1  # the Hessian overshoots: damped, a smaller radius, within patience
                    damping = 10.0 * damping if damping > 1e-3 else 1e-3
                    radius = radius / 4.0 if radius / 4.0 > RADIUS_MIN else RADIUS_MIN
                    continue
                stale = 1  # a kept matrix's direction: form the Hessian here and try again
                continue
            # chord steps (the kept matrix) go on while each cuts the gap fourfold at full length
            if halvings > 0 or trial_gap > CHORD_RATE * gap:
                stale = 1
            # the radius grows after a full trial that it limited, and shrinks to what a halved one moved
            if halvings == 0 and limited:
                radius = 4.0 * radius if 4.0 * radius < RADIUS_MAX else RADIUS_MAX
            elif halvings > 0:
                radius = alpha * spread if alpha * spread > RADIUS_MIN else RADIUS_MIN
            swap = pw; pw = pwt; pwt = swap
            swap = pd; pd = pdt; pdt = swap
            swap = pg; pg = pgt; pgt = swap
            cswap = pc; pc = pct; pct = cswap
            swapped = 1 - swapped
            if halvings == 0:
                damping = damping / 10.0 if damping > 1e-3 else 0.0
            if trial_gap < gap:
                stalled = 0
            value, gap = trial, trial_gap
    kept = (None, None, None, None, None)
    cdef double[:, ::1] H_view
    cdef double[::1, :] L_view
    if not formed_k and covered:  # the kept matrix extended here: returned as the last Hessian
        formed_k = covered
        for j in range(t):
            if pos[j] >= 0:
                face_formed[pos[j]] = j
        w_formed_out, d_formed_out = start, cover_d_out
    if formed_k:  # H = -full on the columns formed, symmetric
        H = np.empty((formed_k, formed_k))
        H_view = H
        for j in range(formed_k):
            for i in range(j, formed_k):
                H_view[i, j] = -full[i + t * j]
                H_view[j, i] = H_view[i, j]
        made = None  # the last factor, where it is of this matrix (lower triangular, column-major)
        if factor.k and factor.version == hessians:
            L = np.zeros((factor.k, factor.k), order="F")
            L_view = L
            for j in range(factor.k):
                for i in range(j, factor.k):
                    L_view[i, j] = F[i + t * j]
            made = (L, np.asarray(<int[:factor.k]> factor_rows).copy(), factor.ridge)
        kept = (H, np.asarray(<int[:formed_k]> face_formed).astype(np.intp), w_formed_out, d_formed_out, made)
    cdef double divergence = NAN
    if swapped:
        divergence = _divergence(dt_out, d0, nu, sq)
        return wt_out, dt_out, gt_out, value, gap, steps, hessians, evaluations, *kept, capped_t_out, divergence
    divergence = _divergence(d_out, d0, nu, sq)
    return w_out, d_out, g_out, value, gap, steps, hessians, evaluations, *kept, capped_out, divergence
