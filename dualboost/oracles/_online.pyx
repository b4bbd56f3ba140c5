"""The per-example work of the online banks :class:`~dualboost.oracles.online.OnlineLinear` and
:class:`~dualboost.oracles.online.OnlineStumps` in compiled code.

The Python methods ``predict_row`` and ``learn_row`` (and ``OnlineLinear._learn_scaled``) stay the
reference (docs/architecture.md#compiled-code): :class:`LinearKernel` and :class:`StumpKernel`
compute the same quantities with the same formulas, one row at a time, on the bank's own arrays
(updated in place), so the two paths agree to rounding (tests/test_online_compiled.py). They are
driven by the booster loop of :mod:`dualboost.boosting.online._loop` through ``_online.pxd`` (the
base :class:`BankKernel`); a row is given by its non-zero features. The linear kernel adds the
intercept (state row ``intercept``, a feature equal to 1) itself.

The importance-invariant update (Karampatziakis & Langford, UAI 2011) of the logistic loss needs the
Wright omega function W(e^c) on reals: :func:`wright_omega`, after Lawrence, Corless & Jeffrey,
"Algorithm 917: Complex Double-Precision Evaluation of the Wright omega Function" (ACM TOMS 38(3),
2012): a first approximation on three intervals, then Fritsch-Shafer-Crowley steps.
"""

from libc.math cimport exp, expm1, fabs, log, sqrt

import numpy as np

cdef enum:  # the order of dualboost.oracles.online.LOSSES
    LOGISTIC = 0
    HINGE = 1
    SQUARED = 2
    MODIFIED_HUBER = 3


cdef inline double expit(double x) noexcept nogil:
    return 1.0 / (1.0 + exp(-x))


cdef inline double margin_slope(int loss, double m) noexcept nogil:
    """phi(m) = -d loss / d m (dualboost.oracles.online.margin_slope)."""
    if loss == LOGISTIC:
        return expit(-m)
    if loss == HINGE:
        return 1.0 if m < 1.0 else 0.0
    if loss == SQUARED:
        return 1.0 - m
    return min(max(1.0 - m, 0.0), 2.0)


cdef inline double fsc_step(double x, double w) noexcept nogil:
    """One Fritsch-Shafer-Crowley step towards the root of w + log w = x (Lawrence et al., Eq. 8)."""
    cdef double r = x - w - log(w)
    cdef double wp1 = w + 1.0
    cdef double t = 2.0 * wp1 * (wp1 + 2.0 / 3.0 * r)
    return w * (1.0 + r / wp1 * (t - r) / (t - 2.0 * r))


cdef double wright_omega_c(double x) noexcept nogil:
    cdef double w, previous
    cdef int it
    if x != x:
        return x
    if x < -50.0:
        return exp(x)  # w = e^x e^{-w}, and w < 2e-22: exact to double precision
    if x > 1e20:
        return x  # w = x - log w to double precision
    if x < -2.0:
        w = exp(x)
    elif x < 1.0:
        w = exp(2.0 * (x - 1.0) / 3.0)
    else:
        w = log(x)
        w = x - w + w / x
    for it in range(4):  # cubic convergence: two steps reach double precision from these starts
        previous = w
        w = fsc_step(x, w)
        if fabs(w - previous) <= 1e-16 * w:
            break
    return w


def wright_omega(double x) -> float:
    """omega(x) = W(e^x), the root of w + log w = x, for real x (``scipy.special.wrightomega``)."""
    return wright_omega_c(x)


cdef inline double invariant_step(int loss, double m0, double tau, bint small) noexcept nogil:
    """m(tau) - m0 (dualboost.oracles.online.invariant_step); ``small``: every learner's margin is
    >= -1 (the modified Huber loss has no linear part on this row)."""
    cdef double c, omega, u, left, u_end
    if loss == LOGISTIC:
        c = min(m0, 700.0)
        c += exp(c)
        c += tau
        omega = wright_omega_c(c)
        return (c - omega if c < 1.0 else log(max(omega, 1e-300))) - m0
    if loss == SQUARED:
        return (1.0 - m0) * -expm1(-tau)
    if loss == HINGE:
        return min(max(1.0 - m0, 0.0), tau)
    if small:
        return expm1(-tau) * min(m0 - 1.0, 0.0)
    u = 1.0 - m0
    left = tau - 0.5 * max(u - 2.0, 0.0)
    if left < 0.0:
        u_end = u - 2.0 * tau
    else:
        u_end = min(u, 2.0) * exp(-max(left, 0.0))
    return max(u - u_end, 0.0)


cdef class BankKernel:
    """A bank of N weak online learners as the compiled loop calls it (a base class: no learners)."""

    cdef void reserve(self, Py_ssize_t k):
        """Scratch for rows of up to k non-zero features."""

    cdef void predict(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k,
                      unsigned char* b) noexcept nogil:
        """b_i = [WL^i(x) = +1] for the row (indices, values) of k non-zero features."""

    cdef void learn(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k, double y,
                    const double* h) noexcept nogil:
        """Learner i learns the last predicted row with label y and importance weight h[i]."""


cdef class LinearKernel(BankKernel):
    """The state of an OnlineLinear bank (its arrays, shared) and its options, for the compiled loop.

    ``state``: the bank's (p + 1, 2N) array [W | G] (row p: the intercept); ``scale``: its s_j;
    ``loss``: an index into ``LOSSES``; the scalars of ``normalized`` (T, S and whether every s_j is
    0 or 1) are read here and handed back by ``OnlineLinear._store_kernel``.
    """

    def __init__(
        self,
        double[:, ::1] state,
        double[::1] scale,
        int loss,
        bint adaptive,
        bint normalized,
        bint invariant,
        double rate,
        long long n_normalized,
        double total_norm,
        bint unit_scale,
    ):
        self.state = state
        self.scale = scale
        self.n = state.shape[1] // 2
        self.intercept = state.shape[0] - 1
        self.loss = loss
        self.adaptive = adaptive
        self.normalized = normalized
        self.invariant = invariant
        self.rate = rate
        self.n_normalized = n_normalized
        self.total_norm = total_norm
        self.unit_scale = unit_scale
        self.scores = np.zeros(self.n)
        self.m0 = np.zeros(self.n)
        self.phi = np.zeros(self.n)
        self.coef = np.zeros(self.n)
        self.q = np.zeros(self.n)
        self.active = np.zeros(self.n, dtype=np.intp)
        self.sfac = np.zeros(1)
        self.r = np.zeros(self.n)

    cdef void reserve(self, Py_ssize_t k):
        """Scratch for rows of up to k non-zero features (plus the intercept)."""
        if self.sfac.shape[0] < k + 1:
            self.sfac = np.zeros(k + 1)
            self.r = np.zeros((k + 1) * self.n)

    def scores_of(self, Py_ssize_t[::1] indices, double[::1] values):
        """The N scores <W_i, x> + b_i of one row (its non-zero features), for tests."""
        b = np.zeros(self.n, dtype=np.uint8)
        cdef unsigned char[::1] bv = b
        self.predict(&indices[0] if indices.shape[0] else NULL, &values[0] if values.shape[0] else NULL,
                     indices.shape[0], &bv[0])
        return np.asarray(self.scores).copy()

    cdef void predict(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k,
                      unsigned char* b) noexcept nogil:
        """The N scores into ``scores`` and b_i = [score_i > 0] (ties: -1)."""
        cdef Py_ssize_t n = self.n, i, jj
        cdef double* scores = &self.scores[0]
        cdef const double* row
        cdef double x
        for i in range(n):
            scores[i] = 0.0
        for jj in range(k):
            row = &self.state[indices[jj], 0]
            x = values[jj]
            for i in range(n):
                scores[i] += x * row[i]
        row = &self.state[self.intercept, 0]
        for i in range(n):
            scores[i] += row[i]
            b[i] = scores[i] > 0.0

    cdef void learn(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k, double y,
                    const double* h) noexcept nogil:
        """Learner i learns the last predicted row with label y and importance weight h[i] (0: not
        at all, skipped: its update is exactly zero). ``reserve(k)`` must have been called."""
        cdef Py_ssize_t n = self.n, i, a, jj, n_active = 0
        cdef Py_ssize_t* active = &self.active[0]
        cdef double* scores = &self.scores[0]
        cdef double* coef = &self.coef[0]
        cdef double* m0 = &self.m0[0]
        cdef double* phi = &self.phi[0]
        cdef double* q = &self.q[0]
        cdef double* sfac = &self.sfac[0]
        cdef double* r = &self.r[0]
        cdef double* row
        cdef double x, x2, d, g, s, norm, eta
        cdef bint small = True
        for i in range(n):
            if h[i] != 0.0:
                active[n_active] = i
                n_active += 1
        if not (self.normalized or self.invariant):
            # OnlineLinear.learn_row: W -= rate g x / sqrt(G) with g = h l'(score), G += g l' x^2
            for a in range(n_active):
                i = active[a]
                if self.loss == LOGISTIC:
                    d = expit(scores[i])
                    if y > 0:
                        d -= 1.0
                else:
                    d = -y * margin_slope(self.loss, y * scores[i])
                m0[i] = d * h[i]  # g
                phi[i] = m0[i] * d  # g l'
                coef[i] = m0[i] * self.rate
            for jj in range(k + 1):
                if jj < k:
                    row = &self.state[indices[jj], 0]
                    x = values[jj]
                else:
                    row = &self.state[self.intercept, 0]
                    x = 1.0
                x2 = x * x
                for a in range(n_active):
                    i = active[a]
                    if self.adaptive:
                        row[n + i] += x2 * phi[i]
                        row[i] -= x * coef[i] / sqrt(row[n + i])
                    else:
                        row[i] -= x * coef[i]
            return
        # OnlineLinear._learn_scaled
        for i in range(n):
            m0[i] = y * scores[i]
            if m0[i] - 1.0 < -2.0:
                small = False
        for a in range(n_active):
            i = active[a]
            phi[i] = margin_slope(self.loss, m0[i])
            q[i] = 0.0
            coef[i] = h[i] * phi[i]  # h phi^2, the AdaGrad increment (coef is set after its last use)
            coef[i] *= phi[i]
        eta = self.rate
        if self.normalized:
            norm = 0.0
            for jj in range(k + 1):
                if jj < k:
                    x = values[jj]
                    s = max(self.scale[indices[jj]], fabs(x))
                    self.scale[indices[jj]] = s
                else:
                    x = 1.0
                    s = max(self.scale[self.intercept], 1.0)
                    self.scale[self.intercept] = s
                self.unit_scale = self.unit_scale and s == 1.0
                if s == 0.0:
                    s = 1.0
                sfac[jj] = s if self.adaptive else s * s
                norm += x * x / (s * s)
            self.n_normalized += 1
            self.total_norm += norm
            eta *= sqrt(self.n_normalized / self.total_norm)
        for jj in range(k + 1):
            if jj < k:
                row = &self.state[indices[jj], 0]
                x = values[jj]
            else:
                row = &self.state[self.intercept, 0]
                x = 1.0
            x2 = x * x
            for a in range(n_active):
                i = active[a]
                if self.adaptive:
                    row[n + i] += x2 * coef[i]
                    g = 1.0 / sqrt(row[n + i])  # G^-1/2 (the reference's np.power(G, -0.5), to 1 ulp)
                else:
                    g = 1.0
                if self.normalized:
                    g /= sfac[jj]
                r[jj * n + i] = g
                if self.invariant:
                    q[i] += x2 * g
        for a in range(n_active):
            i = active[a]
            if self.invariant:
                coef[i] = invariant_step(self.loss, m0[i], h[i] * q[i] * eta, small) / q[i]
            else:
                coef[i] = h[i] * phi[i] * eta
            coef[i] *= y
        for jj in range(k + 1):
            if jj < k:
                row = &self.state[indices[jj], 0]
                x = values[jj]
            else:
                row = &self.state[self.intercept, 0]
                x = 1.0
            for a in range(n_active):
                i = active[a]
                row[i] += x * (r[jj * n + i] * coef[i])


cdef class StumpKernel(BankKernel):
    """The state of an OnlineStumps bank (its arrays, shared): ``thresholds`` (p, B), the weighted
    edges ``E`` as (N, p B), the flat index ``best`` of each learner's stump and its ``sign``."""

    def __init__(self, double[:, ::1] thresholds, double[:, ::1] E, Py_ssize_t[::1] best,
                 double[::1] sign):
        self.thresholds = thresholds
        self.E = E
        self.best = best
        self.sign = sign
        self.n = E.shape[0]
        self.x = np.zeros(thresholds.shape[0])
        self.outputs = np.zeros(E.shape[1])

    cdef void predict(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k,
                      unsigned char* b) noexcept nogil:
        """OnlineStumps.predict_row: learner i predicts sign_i * sign(x_j - theta_jb) of its stump."""
        cdef Py_ssize_t B = self.thresholds.shape[1], jj, i, f
        for jj in range(k):
            self.x[indices[jj]] = values[jj]
        for i in range(self.n):
            f = self.best[i]
            b[i] = self.sign[i] * (1.0 if self.x[f // B] > self.thresholds[f // B, f % B] else -1.0) > 0.0

    cdef void learn(self, const Py_ssize_t* indices, const double* values, Py_ssize_t k, double y,
                    const double* h) noexcept nogil:
        """OnlineStumps.learn_row: E_i += y h_i (the outputs of every stump), then each learner takes
        the stump of largest |E_i| (the first on ties); learners of weight 0 are unchanged."""
        cdef Py_ssize_t p = self.thresholds.shape[0], B = self.thresholds.shape[1], m = p * B
        cdef Py_ssize_t i, j, c, f, best
        cdef double* out = &self.outputs[0]
        cdef double* row
        cdef double scale, top
        for j in range(p):
            for c in range(B):
                out[j * B + c] = 1.0 if self.x[j] > self.thresholds[j, c] else -1.0
        for i in range(self.n):
            if h[i] == 0.0:
                continue
            scale = y * h[i]
            row = &self.E[i, 0]
            best, top = 0, -1.0
            for f in range(m):
                row[f] += scale * out[f]
                if fabs(row[f]) > top:
                    best, top = f, fabs(row[f])
            self.best[i] = best
            self.sign[i] = -1.0 if row[best] < 0.0 else 1.0
        for j in range(k):
            self.x[indices[j]] = 0.0
