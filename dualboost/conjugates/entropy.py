"""Entropic regularisers on the (capped) simplex, the ones the totally-corrective models use.

* :class:`CappedRelativeEntropy`: ``(1/eta) KL(d || d0) + I{sum d = 1, d <= 1/nu}``; its conjugate
  is the capped log-sum-exp of docs/math.md#capped-softmax (the log-sum-exp when ``nu = 1``), its
  gradient the capped softmax (entropic projection, [SS] Fig. 2, [KG] Alg. 4.2).
* :class:`CappedBinaryRelativeEntropy`: ``(1/eta) Delta_{2,nu}(d, d0) + I{sum d = 1}`` ([KG] Sec
  3.3); its conjugate is entry 6 of docs/math.md#conjugate-table, with the normalisation multiplier
  beta found by a bracketed 1-D root ([KG] Alg. 4.4 with erratum KG-14 fixed,
  docs/math.md#root-for-beta).

Both work in the log domain: no ``exp`` of an unbounded argument, so eta up to 10^6 is safe.
"""

from __future__ import annotations

import copy

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, kl_div, log1p

from dualboost._validation import check_distribution, check_eta, check_nu, check_vector
from dualboost.conjugates._membership import EXACT_SUM_MAX, OnCappedSimplex, on_capped_simplex
from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.projections import capped_softmax
from dualboost.conjugates.stable import entropy_excess, log_mean_exp, log_mixture
from dualboost.conjugates.traits import RankOneCurvature

try:  # the value in one pass (setup.py builds it; a source tree without it runs numpy's)
    from dualboost.conjugates import _capped_sums
except ImportError:  # pragma: no cover - depends on the build
    _capped_sums = None

__all__ = ["CappedRelativeEntropy", "CappedBinaryRelativeEntropy", "uncapped_weights"]

#: eta below which the capped log-sum-exp and the relative entropy take their stable O(N) forms
#: (docs/math.md#stable-evaluation; also the Dask capped softmax, :func:`dualboost.dask.softmax.evaluate`)
STABLE_BELOW = 1.0


def uncapped_weights(d: NDArray[np.float64], nu: float) -> NDArray[np.float64]:
    """The curvature weights of the capped softmax d ([SS] Lemma 16): ``d_n`` where ``d_n`` is below
    the cap 1/nu, 0 on the capped entries (d is constant there). Shared by the in-memory Hessian
    (:meth:`CappedRelativeEntropy.conjugate_hessian_factors`) and the Dask partitions'.

    Parameters
    ----------
    d : ndarray of shape (N,)
        The capped softmax.
    nu : float
        The capping (the cap is 1/nu).

    Returns
    -------
    ndarray of shape (N,)
        The curvature weights.
    """
    return np.where(d < (1.0 - 1e-12) / nu, d, 0.0) if nu > 1.0 else d


class CappedRelativeEntropy(RankOneCurvature, OnCappedSimplex, ConvexFunction):
    """``f(d) = (1/eta) sum_n d_n ln(d_n / d0_n)`` on ``{d : sum d = 1, 0 <= d <= 1/nu}``.

    ``nu = 1`` is the plain simplex. Conjugate (docs/math.md#capped-softmax, [KG] Lemma 3.6):
    ``f*(theta) = min_{psi >= 0} (1/eta) ln sum_n d0_n e^{eta (theta_n - psi_n)} + (1/nu) sum psi``,
    evaluated exactly as ``<d*, theta> - f(d*)`` with ``d* = conjugate_grad(theta)``, the entropic
    projection of ``softmax(ln d0 + eta theta)`` onto the capped simplex.

    Parameters
    ----------
    d0 : array_like, shape (N,)
        The prior, a distribution with positive entries.
    nu : float, default 1.0
        The capping in [1, N].
    eta : float, default 1.0
        The regularisation, > 0.
    """

    def __init__(self, d0: ArrayLike, nu: float = 1.0, eta: float = 1.0) -> None:
        d0 = np.asarray(d0, dtype=np.float64)
        self.d0 = check_distribution(d0, d0.size if d0.ndim == 1 else 0)
        self.n = self.d0.size
        self.nu = check_nu(nu, self.n)
        self.eta = check_eta(eta)
        with np.errstate(divide="ignore"):
            self._log_d0 = np.log(self.d0)
        self._log_d0.flags.writeable = False
        #: the capped simplex meets d0's support only if ceil(nu) entries of d0 are positive
        self._feasible = np.count_nonzero(self.d0 > 0) >= np.ceil(self.nu - 1e-12)
        #: every entry of d0 is positive (ln d0 finite), as ``log_d0`` was computed
        self.positive_prior = bool(np.all(self.d0 > 0.0))

    @property
    def log_d0(self) -> NDArray[np.float64]:
        """``ln d0`` (-inf where d0 is 0), computed once, read-only (the compiled re-solve takes it,
        ``dualboost.solvers.compiled``)."""
        return self._log_d0

    @property
    def summed_in_one_pass(self) -> bool:
        """Whether :meth:`value` sums in one compiled pass (``_capped_sums.capped_kl``: the extension
        built, eta >= ``STABLE_BELOW``, N <= ``EXACT_SUM_MAX``): then ``f(d)`` is
        :meth:`value_of_divergence` of the kernel's ``sum_n kl(d_n, d0_n)`` for d on the capped
        simplex, which the compiled re-solve computes at its last point with the same kernel
        (``dualboost/conjugates/_capped_sums.pxd``)."""
        return _capped_sums is not None and self.eta >= STABLE_BELOW and self.n <= EXACT_SUM_MAX

    def value_of_divergence(self, total: float) -> float:
        """``f(d) = (1/eta) sum_n kl(d_n, d0_n)`` from the sum ``total`` of the one-pass kernel (where
        :attr:`summed_in_one_pass`) at a d on the capped simplex: what :meth:`value` returns there."""
        return float(total / self.eta)

    def value(self, x: ArrayLike) -> float:
        x = check_vector(x, "d", self.n)
        if self.summed_in_one_pass:
            inside, total = _capped_sums.capped_kl(np.ascontiguousarray(x), self.d0, 1.0 / self.nu, 1e-9)
            return self.value_of_divergence(total) if inside else np.inf
        if not self.in_domain(x):
            return np.inf
        x = np.clip(x, 0.0, None)
        # the kl form (its linear terms cancel on the simplex, so that sum x - 1 ~ 1e-16 does not
        # count 1/eta times); below eta = 1 with its series near d0 (docs/math.md#stable-evaluation)
        terms = entropy_excess(x, self.d0) if self.eta < STABLE_BELOW else kl_div(x, self.d0)
        return float(terms.sum() / self.eta)

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.conjugate_and_grad(theta)[1]

    def conjugate(self, theta: ArrayLike) -> float:
        return self.conjugate_and_grad(theta)[0]

    def conjugate_and_grad(self, theta: ArrayLike) -> tuple[float, NDArray[np.float64]]:
        """``(f*(theta), d*)`` from the structure of the capped softmax d* ([SS] Lemma 16): with C
        the capped coordinates, F the others and ``d*_n`` proportional to ``d0_n e^{eta theta_n}``
        on F, ``f*(theta) = <d*, theta> - f(d*) = (1/nu) sum_C theta_n + m_F L_F(theta)
        - (1/eta) [sum_C kl(1/nu, d0_n) + kl(m_F, d0(F))]`` with ``m_F = 1 - |C|/nu``, ``L_F`` the
        log-mean-exp ``(1/eta) ln E_{d0|F} e^{eta theta}`` and ``kl(a, b) = a ln(a/b) - a + b``
        (docs/math.md#capped-softmax). Below eta = 1 each part is evaluated without cancellation
        (docs/math.md#stable-evaluation: the log-sum-exp from the projection's scale loses
        ``1e-16/eta``), O(N) after the projection; from eta = 1 on, where that loss is at most
        ``1e-16 ln N``, from the scale, O(|C|) (the dual solvers' hot path: 5-10x less time at
        N = 1000)."""
        theta = check_vector(theta, "theta", self.n)
        if not self._feasible:
            raise ValueError(
                f"the projection onto the capped simplex with nu={self.nu} needs at least ceil(nu) "
                "entries of positive weight (d0 has fewer positive entries)"
            )
        projection = capped_softmax(self._log_d0 + self.eta * theta, self.nu)
        if self.eta < STABLE_BELOW:
            return self._conjugate_value(theta, projection.capped), projection.d
        # eta >= 1: the same value from the projection's scale s (d*_n = exp(s + ln d0_n + eta theta_n)
        # off C), O(|C|); its rounding, 1e-16 (ln N / eta + |theta|), is that of the stable form
        capped = projection.capped
        cap = 1.0 / self.nu
        free_mass = 1.0 - capped.size / self.nu
        value = -free_mass * projection.log_scale / self.eta if free_mass > 0 else 0.0
        if capped.size:
            value += cap * float(np.sum(theta[capped] - (np.log(cap) - self._log_d0[capped]) / self.eta))
        return float(value), projection.d

    def _conjugate_value(self, theta: NDArray[np.float64], capped: NDArray[np.intp]) -> float:
        """``f*(theta)`` given the capped coordinates C of the maximiser (:meth:`conjugate_and_grad`),
        in the stable form (O(N))."""
        cap = 1.0 / self.nu
        free_mass = 1.0 - capped.size / self.nu
        value, divergence = 0.0, 0.0
        if capped.size:
            value = cap * float(theta[capped].sum())
            divergence = float(entropy_excess(np.full(capped.size, cap), self.d0[capped]).sum())
        if capped.size:
            free = np.ones(self.n, dtype=bool)
            free[capped] = False
            d0_free, theta_free = self.d0[free], theta[free]
        else:
            d0_free, theta_free = self.d0, theta
        mass = float(d0_free.sum())
        if free_mass > 0:
            value += free_mass * log_mean_exp(theta_free, d0_free / mass, self.eta)
        # kl(0, mass) = mass where the caps take all the mass (nu an integer)
        divergence += float(entropy_excess(np.array([max(free_mass, 0.0)]), np.array([mass]))[0])
        return value - divergence / self.eta

    def conjugate_hessian_factors(
        self, theta: ArrayLike, grad: NDArray[np.float64] | None = None
    ) -> tuple[NDArray[np.float64], float]:
        """``(s, eta)`` with ``hess f*(theta) = eta (diag(s) - s s^T / sum s)``: ``s = d*`` on the
        uncapped coordinates and 0 on the capped ones (the capped softmax is constant there).
        Where the capped set changes, f* is C^1 but not C^2; this is the Hessian of the piece.
        ``grad``: ``d* = conjugate_grad(theta)`` when the caller has it."""
        d = self.conjugate_grad(theta) if grad is None else grad
        return uncapped_weights(d, self.nu), self.eta

    def smooth_gradient(self, x: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """``(1/eta) (1 + ln(x / d0))`` on the rows where ``x > 0``: the gradient of the entropy as in
        the stationarity condition of docs/math.md#kkt-recovery, so that the recovered beta is the
        multiplier of ``sum d = 1`` of Eq. 3.16."""
        x = check_vector(x, "d", self.n)
        rows = x > 0
        grad = np.zeros(self.n)
        grad[rows] = (1.0 + np.log(x[rows]) - self._log_d0[rows]) / self.eta
        return grad, rows

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        cons = self.capped_simplex_constraints(x)
        return cp.sum(cp.rel_entr(x, self.d0)) / self.eta, cons

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        if self.nu == 1.0:
            return cp.log_sum_exp(self._log_d0 + self.eta * theta) / self.eta, []
        psi = cp.Variable(self.n, nonneg=True, name="psi")
        expr = cp.log_sum_exp(self._log_d0 + self.eta * (theta - psi)) / self.eta
        return expr + cp.sum(psi) / self.nu, []

    def __repr__(self) -> str:
        return f"CappedRelativeEntropy(d0=<{self.n} entries>, nu={self.nu!r}, eta={self.eta!r})"


class CappedBinaryRelativeEntropy(RankOneCurvature, ConvexFunction):
    """``f(d) = (1/eta) Delta_{2,nu}(d, d0)`` on ``{d : sum d = 1}`` ([KG] Sec 3.3, Eq. 3.25).

    ``Delta_{2,nu}(d, d0) = sum d ln(d/d0) + sum (1/nu - d) ln((1/nu - d)/(1/nu - d0))``; the box
    ``0 <= d <= 1/nu`` is implicit (a barrier). Needs ``d0 < 1/nu`` (so ``nu < N`` for uniform d0).
    Conjugate (docs/math.md#binary-erlpboost, [KG] Lemma 3.18):
    ``f*(theta) = min_beta (1/(eta nu)) sum ln(1 - nu d0 + nu d0 e^{eta(theta - beta)}) + beta``,
    minimised over beta by the bracketed root of ``sum_n d_n(beta) = 1`` with
    ``d_n = (1/nu) expit(logit(nu d0_n) + eta (theta_n - beta))`` ([KG] Eq. 3.27).

    Parameters
    ----------
    d0 : array_like, shape (N,)
        The prior, a distribution with ``d0 < 1/nu``.
    nu : float
        The capping, with ``nu d0_n < 1`` for every n.
    eta : float, default 1.0
        The regularisation, > 0.
    """

    def __init__(self, d0: ArrayLike, nu: float, eta: float = 1.0) -> None:
        d0 = np.asarray(d0, dtype=np.float64)
        self.d0 = check_distribution(d0, d0.size if d0.ndim == 1 else 0)
        self.n = self.d0.size
        self.nu = check_nu(nu, self.n)
        self.eta = check_eta(eta)
        if np.any(self.nu * self.d0 >= 1.0):
            raise ValueError(
                "the binary relative entropy needs d0 < 1/nu entrywise "
                f"(nu < N = {self.n} for uniform d0); got nu = {self.nu!r}"
            )
        self.cap = 1.0 / self.nu
        nd0 = self.nu * self.d0
        self._log1m = log1p(-nd0)  # ln(1 - nu d0)
        self._log_nd0 = np.log(nd0)
        self._logit = self._log_nd0 - self._log1m  # logit(nu d0)
        self._last_root = np.nan  # the previous normaliser root (used only by a warm copy)
        self._warm = False

    def value(self, x: ArrayLike) -> float:
        x = check_vector(x, "d", self.n)
        if not self.in_domain(x):
            return np.inf
        x = np.clip(x, 0.0, self.cap)
        # the kl form of each part (their linear terms cancel on sum x = 1), accurate at x ~ d0
        # (docs/math.md#stable-evaluation)
        delta = entropy_excess(x, self.d0).sum() + entropy_excess(self.cap - x, self.cap - self.d0).sum()
        return float(delta / self.eta)

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return on_capped_simplex(x, self.cap, tol)

    def normalizer(self, theta: ArrayLike) -> float:
        """``b = eta * beta``, root of ``s(b) = (1/nu) sum_n expit(logit(nu d0_n) + eta theta_n - b) = 1``.

        [KG] Alg. 4.4 with erratum KG-14 fixed (docs/math.md#root-for-beta), as a safeguarded Newton
        iteration: s is strictly decreasing, so every evaluation shrinks a bracket ``[lo, hi]`` and
        a Newton step that leaves the bracket is replaced by bisection. With
        ``z = logit(nu d0) + eta theta`` the bracket ``[min z - logit(nu/N) - 1, max z + ln(N/nu)]``
        has s >= 1 at its left end and s < 1 at its right end (each term is at least ``nu/N``,
        resp. below it; the left end is moved out by 1 because s is exactly 1 there when z is
        constant, and rounding could put it below). In a copy made by :meth:`with_warm_starts`
        the previous root starts the iteration: the dual solvers call this with slowly changing
        theta, where Newton then converges in a few steps.
        """
        theta = check_vector(theta, "theta", self.n)
        z = self._logit + self.eta * theta
        ratio = self.nu / self.n
        lo = z.min() - (np.log(ratio) - np.log1p(-ratio)) - 1.0
        hi = z.max() + np.log(self.n / self.nu)
        warm = self._warm and lo < self._last_root < hi
        b = self._last_root if warm else 0.5 * (lo + hi)
        for _ in range(200):
            p = expit(z - b)
            excess = p.sum() * self.cap - 1.0
            if excess > 0:
                lo = b
            elif excess < 0:
                hi = b
            else:
                break
            slope = -(p * (1.0 - p)).sum() * self.cap
            with np.errstate(over="ignore", divide="ignore"):  # a flat s: the step is rejected below
                step = b - excess / slope if slope < 0 else np.nan
            b_new = step if lo < step < hi else 0.5 * (lo + hi)
            if abs(b_new - b) <= 4.0 * np.finfo(float).eps * max(1.0, abs(b)):
                b = b_new
                break
            b = b_new
        if self._warm:
            self._last_root = float(b)
        return float(b)

    @property
    def last_root(self) -> float:
        """The root ``b`` of the last :meth:`normalizer` call of a warm copy (:meth:`with_warm_starts`),
        where the next call starts; NaN before the first and in a cold copy. A run that saves a
        checkpoint saves it and sets it back on resume, so that the resumed run repeats the
        unbroken one's arithmetic."""
        return self._last_root

    @last_root.setter
    def last_root(self, root: float) -> None:
        self._last_root = float(root)

    def with_warm_starts(self) -> CappedBinaryRelativeEntropy:
        warm = copy.copy(self)
        warm._warm = True
        return warm

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.conjugate_and_grad(theta)[1]

    def conjugate(self, theta: ArrayLike) -> float:
        return self.conjugate_and_grad(theta)[0]

    def conjugate_and_grad(self, theta: ArrayLike) -> tuple[float, NDArray[np.float64]]:
        value, d, _ = self.conjugate_grad_and_normalizer(theta)
        return value, d

    def conjugate_grad_and_normalizer(self, theta: ArrayLike) -> tuple[float, NDArray[np.float64], float]:
        """``(f*(theta), conjugate_grad(theta), b)`` with one root: ``b = eta beta`` of
        :meth:`normalizer`, d from Eq. 3.27 as ``(1/nu) expit(logit(nu d0) + eta theta - b)``. The
        value ``(1/(eta nu)) sum_n ln(1 - nu d0_n + nu d0_n e^{eta theta_n - b}) + b/eta`` takes each
        logarithm as ``log1p(nu d0_n expm1(eta theta_n - b))`` where its exponent is small
        (docs/math.md#stable-evaluation): at small eta every term is of size eta and their sum
        cancels ``b/eta`` to first order. The value is the objective of a minimum over beta at the
        computed root, so the root's error raises it by a second-order amount only."""
        theta = check_vector(theta, "theta", self.n)
        b = self.normalizer(theta)
        x = self._logit + self.eta * theta - b
        terms = log_mixture(self._log_nd0, self._log1m, self.eta * theta - b)
        value = terms.sum() * self.cap / self.eta + b / self.eta
        return float(value), self.cap * expit(x), float(b)

    def conjugate_hessian_factors(
        self, theta: ArrayLike, grad: NDArray[np.float64] | None = None
    ) -> tuple[NDArray[np.float64], float]:
        """``(s, eta)`` with ``hess f*(theta) = eta (diag(s) - s s^T / sum s)``, ``s = d (1 - nu d)``:
        differentiate ``d_n = (1/nu) expit(z_n - b)`` with ``b`` moving to keep ``sum d = 1``.
        ``grad``: ``d = conjugate_grad(theta)`` when the caller has it."""
        d = self.conjugate_grad(theta) if grad is None else grad
        return d * (1.0 - self.nu * d), self.eta

    def smooth_gradient(self, x: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """``(1/eta) [ln(x/d0) - ln((1/nu - x)/(1/nu - d0))]`` on the rows with ``0 < x < 1/nu``
        (stationarity of [KG] Sec 3.3.4)."""
        x = check_vector(x, "d", self.n)
        rows = (x > 0) & (x < self.cap)
        grad = np.zeros(self.n)
        xr, d0 = x[rows], self.d0[rows]
        grad[rows] = (np.log(xr / d0) - np.log((self.cap - xr) / (self.cap - d0))) / self.eta
        return grad, rows

    def active_caps(self, x: ArrayLike, tol: float = 1e-7) -> NDArray[np.bool_]:
        """None: the barrier keeps ``x < 1/nu``, so psi is identically 0 (docs/math.md#binary-erlpboost)."""
        return np.zeros(np.asarray(x).size, dtype=bool)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        expr = cp.sum(cp.rel_entr(x, self.d0)) + cp.sum(cp.rel_entr(self.cap - x, self.cap - self.d0))
        return expr / self.eta, [cp.sum(x) == 1]

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        beta = cp.Variable(name="beta")
        inner = cp.logistic(self._logit + self.eta * (theta - beta))
        expr = (cp.sum(inner) + self._log1m.sum()) * self.cap / self.eta + beta
        return expr, []

    def __repr__(self) -> str:
        return f"CappedBinaryRelativeEntropy(d0=<{self.n} entries>, nu={self.nu!r}, eta={self.eta!r})"
