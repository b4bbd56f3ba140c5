"""The geometry of the MABoost family (docs/math.md#bregman-projections to docs/math.md#lamaboost):
regularisers, projection sets, Bregman projections.

Notation (docs/math.md#symbol-crosswalk; [NP] calls the distribution **w** and the loss vector **d**,
translated here once): ``d`` is the distribution over the N examples (the d-domain), ``u = U[:, t]`` the
new column of the edge matrix ([NP]'s loss vector is ``-u``), ``m = U eta`` the margins of the w-domain
weights.

Everything works in mirror coordinates ``theta = grad R(d)``:

* the active update of Alg. 1 is ``theta = grad R(d_t) - eta_t u_t``, the lazy one
  ``theta = grad R(z_1) - m_t`` (the FTRL form of docs/math.md#lamaboost);
* the Bregman projection onto a set D of ``z = grad R*(theta)`` is
  ``argmin_{d in D} B_R(d, z) = argmin_{d in D} R(d) - <theta, d> = grad (R + I_D)*(theta)``.

A :class:`Regulariser` supplies ``grad R`` (:meth:`~Regulariser.mirror`), the projection
(:meth:`~Regulariser.project`), ``B_R`` (:meth:`~Regulariser.divergence`), the bound L on the squared
dual norm of a column (docs/math.md#regulariser-table, erratum NP-3) and the training-error bound of Thm
1 in terms of ``S_T = sum_t eta_t (gamma_t - alpha_t) - (L/2) eta_t^2`` (Eq. 15, with alpha_t the l1
weight of SparseBoost, 0 otherwise). Three kinds:

* :class:`Entropy`: ``R = sum d ln d`` (the conjugate library's :class:`RelativeEntropy`), L = 1, bound
  (9) ``exp(-S_T)``; projections: softmax on S, the capped softmax on S_k
  (:func:`~dualboost.conjugates.entropic_project_capped_simplex`), one scalar c on S_c
  (docs/math.md#mixed-projection-set);
* :class:`Euclidean`: ``R = (1/2)||d||^2`` (:class:`HalfSquaredNorm`), L = N, bound (8) in the
  published form ``1/(1 + N S_T)`` (erratum NP-2: the halved algebra gives ``1/(1 + 2 N S_T)``,
  :meth:`Euclidean.tight_bound`); projections ``clip(z - tau, 0, cap)``
  (:func:`~dualboost.conjugates.project_capped_simplex` on S and S_k);
* :class:`LibraryRegulariser`: any other strongly convex entry f of the conjugate library, with a
  user-given L: projections by the conjugate calculus (``(f + CappedSimplex(nu)).conjugate_grad``),
  ``grad f`` by maximising ``<theta, d> - f*(theta)`` (Fenchel duality); no closed-form bound (NaN).

:class:`ProjectionSet` is D: the simplex S (``nu = 1``), the capped simplex S_k (``d <= 1/nu``, [NP]'s
``k = N / nu``) or the mixed set S_c of docs/math.md#mixed-projection-set (the cap only on the secondary
examples).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import minimize
from scipy.special import kl_div

from dualboost._validation import check_nu, check_scalar
from dualboost.conjugates import (
    CappedRelativeEntropy,
    CappedSimplex,
    ConvexFunction,
    HalfSquaredNorm,
    RelativeEntropy,
    UnnormalisedRelativeEntropy,
    entropic_project_capped_simplex,
    project_capped_simplex,
)
from dualboost.conjugates.projections import logsumexp

__all__ = [
    "ProjectionSet",
    "Regulariser",
    "Entropy",
    "Euclidean",
    "LibraryRegulariser",
    "make_regulariser",
    "REGULARISERS",
    "entropic_project_mixed",
    "euclidean_project_mixed",
    "entropic_project_hypercube",
    "sparse_prox_hypercube",
]


class ProjectionSet:
    """The set D of Alg. 1 step (d): ``{d : sum d = 1, d >= 0, d_n <= 1/nu for n in B}``.

    ``secondary``: a boolean mask of length N marking the secondary data set B of
    docs/math.md#mixed-projection-set, or None for B = all examples. ``nu = 1`` (no cap below 1) gives
    the simplex S whatever B is; ``nu > 1`` and ``secondary=None`` the capped simplex S_k with
    ``k = N/nu`` (smooth MABoost, Thm 3).

    Parameters
    ----------
    n_samples : int
        The number N of examples.
    nu : float, default 1.0
        The capping: ``d_n <= 1/nu`` on B.
    secondary : array-like of bool, optional
        The mask of B (None: all examples).
    """

    def __init__(self, n_samples: int, nu: float = 1.0, secondary: ArrayLike | None = None) -> None:
        self.n = int(n_samples)
        if secondary is None:
            self.nu = check_nu(nu, self.n)
            self.secondary = None
        else:
            mask = np.asarray(secondary)
            if mask.dtype != bool or mask.shape != (self.n,):
                raise ValueError(
                    f"secondary must be a boolean mask of length N = {self.n}; got dtype {mask.dtype}, "
                    f"shape {mask.shape}"
                )
            nu = check_scalar(nu, "nu")
            if nu < 1.0:
                raise ValueError(f"nu must be >= 1 (the cap 1/nu on the secondary examples); got {nu!r}")
            if not mask.any() or (mask.all() and nu > self.n):
                raise ValueError(
                    "secondary must mark at least one example, and if it marks all of them nu must "
                    f"be <= N = {self.n} (otherwise the set is empty)"
                )
            self.nu = nu
            self.secondary = mask.copy()
            if mask.all():  # B = everything: the capped simplex
                self.secondary = None
        self.cap = 1.0 / self.nu

    @property
    def kind(self) -> str:
        """``"simplex"``, ``"capped"`` or ``"mixed"``."""
        if self.nu == 1.0:
            return "simplex"
        return "capped" if self.secondary is None else "mixed"

    def caps(self) -> NDArray[np.float64]:
        """The per-example upper bounds (inf on the primary examples)."""
        caps = np.full(self.n, self.cap)
        if self.secondary is not None:
            caps[~self.secondary] = np.inf
        return caps

    def contains(self, d: NDArray[np.float64], tol: float = 1e-9) -> bool:
        """Whether d lies in D up to ``tol``."""
        return bool(
            d.shape == (self.n,)
            and d.min() >= -tol
            and abs(d.sum() - 1.0) <= tol * max(1, self.n)
            and np.all(d <= self.caps() + tol)
        )

    def __repr__(self) -> str:
        extra = "" if self.secondary is None else f", {int(self.secondary.sum())} secondary"
        return f"ProjectionSet({self.kind}, N={self.n}, nu={self.nu:g}{extra})"


# -- projections not in the conjugate library -------------------------------------------------------


def entropic_project_mixed(log_weights: NDArray[np.float64], region: ProjectionSet) -> NDArray[np.float64]:
    """Relative-entropy projection of ``exp(log_weights)`` onto the mixed set S_c
    (docs/math.md#mixed-projection-set).

    KKT: ``d_n = c z_n`` on the primary set A and ``min(1/nu, c z_n)`` on B, with one scalar c fixed by
    ``sum d = 1``. As in [SS] Fig. 2, the capped entries are the j largest of B, for the first j with
    ``c_j z_(j+1) <= cap``, where ``log c_j = log(1 - j/nu) - logsumexp(log z over A and the rest of B)``
    (sort of B, suffix log-sum-exps: O(N log N), all in the log domain).

    Parameters
    ----------
    log_weights : ndarray of shape (N,)
        The logarithms of the point projected.
    region : ProjectionSet
        The set S_c.

    Returns
    -------
    ndarray of shape (N,)
        The projection d.
    """
    lw = np.asarray(log_weights, dtype=np.float64)
    log_cap = -math.log(region.nu)
    on_b = region.secondary if region.secondary is not None else np.ones(lw.size, dtype=bool)
    order = np.flatnonzero(on_b)[np.argsort(-lw[on_b], kind="stable")]
    lb = lw[order]
    lse_a = logsumexp(lw[~on_b])
    # suffix[j] = logsumexp(A and B without its j largest), j = 0..|B|
    suffix = np.logaddexp(lse_a, np.r_[np.logaddexp.accumulate(lb[::-1])[::-1], -np.inf])
    j = np.arange(lb.size + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_c = np.log1p(-np.minimum(j / region.nu, 1.0)) - suffix
        ok = (j / region.nu < 1.0) & (np.r_[log_c[:-1] + lb <= log_cap + 1e-12, True])
    first = int(np.argmax(ok))
    d = np.exp(np.where(on_b, np.minimum(lw + log_c[first], log_cap), lw + log_c[first]))
    d[order[:first]] = region.cap
    return d


def euclidean_project_mixed(z: NDArray[np.float64], region: ProjectionSet) -> NDArray[np.float64]:
    """Euclidean projection onto S_c (docs/math.md#mixed-projection-set):
    ``d_n = clip(z_n - tau, 0, cap_n)`` (cap_n = inf on A).

    The mass ``sum clip(z - tau, 0, cap)`` is non-increasing and piecewise linear in tau with breakpoints
    ``z_n`` and ``z_n - cap`` (n in B); it is evaluated at all of them from sorted cumulative sums, and
    tau is interpolated on the segment where it crosses 1 (as :func:`project_capped_simplex`), O(N log N).

    Parameters
    ----------
    z : ndarray of shape (N,)
        The point projected.
    region : ProjectionSet
        As in :func:`entropic_project_mixed`.

    Returns
    -------
    ndarray of shape (N,)
        The Euclidean projection d of z.
    """
    on_b = region.secondary if region.secondary is not None else np.ones(z.size, dtype=bool)
    cap = region.cap
    za, zb = np.sort(z[~on_b]), np.sort(z[on_b])
    ca, cb = np.r_[0.0, np.cumsum(za)], np.r_[0.0, np.cumsum(zb)]

    def mass(tau: NDArray[np.float64]) -> NDArray[np.float64]:
        above = np.searchsorted(za, tau, side="right")  # A: sum of (z - tau) over z > tau
        m_a = (ca[-1] - ca[above]) - (za.size - above) * tau
        hi = np.searchsorted(zb, tau + cap, side="left")  # B: capped from hi on, linear in [lo, hi)
        lo = np.searchsorted(zb, tau, side="right")
        return m_a + (zb.size - hi) * cap + (cb[hi] - cb[lo]) - (hi - lo) * tau

    breaks = np.unique(np.r_[za, zb, zb - cap])
    m = mass(breaks)
    if m[0] < 1.0:  # below every breakpoint the slope is -|A| (B all capped)
        tau = breaks[0] - (1.0 - m[0]) / za.size
    else:
        k = int(np.clip(np.searchsorted(-m, -1.0, side="right") - 1, 0, breaks.size - 2))
        t0, t1, m0, m1 = breaks[k], breaks[k + 1], m[k], m[k + 1]
        tau = t0 if m0 == m1 else t0 + (m0 - 1.0) * (t1 - t0) / (m0 - m1)
    d = np.clip(z - tau, 0.0, np.where(on_b, cap, np.inf))
    free = (d > 0) & ~(on_b & (d >= cap))
    if free.any():  # remove the rounding of the interpolation
        d[free] += (1.0 - d.sum()) / np.count_nonzero(free)
        np.clip(d, 0.0, np.where(on_b, cap, np.inf), out=d)
    return d


def entropic_project_hypercube(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """Generalised-KL projection of ``exp(theta)`` onto the unit hypercube K: ``min(1, e^theta)``
    (Alg. 3, docs/math.md#madaboost-variant), computed as ``exp(min(theta, 0))``: no overflow.

    Parameters
    ----------
    theta : ndarray
        The logarithms of the point projected.

    Returns
    -------
    ndarray
        The projection, in [0, 1].
    """
    return np.exp(np.minimum(theta, 0.0))


def sparse_prox_hypercube(z: NDArray[np.float64], threshold: float) -> NDArray[np.float64]:
    """SparseBoost's first projection (Alg. 2, docs/math.md#sparseboost):
    ``argmin_{y in K} ||y - z||^2 + c ||y||_1`` is ``clip(z - threshold, 0, 1)`` with
    ``threshold = c/2`` (the literal objective) or ``c`` (the (1/2)-convention of the proof).

    Parameters
    ----------
    z : ndarray
        The point.
    threshold : float
        The soft threshold.

    Returns
    -------
    ndarray
        The proximal point, in [0, 1].
    """
    return np.clip(z - threshold, 0.0, 1.0)


# -- regularisers --------------------------------------------------------------------------------------


class Regulariser(ABC):
    """A 1-strongly convex R with its mirror map and Bregman projections (module docstring)."""

    name: str = ""
    #: the conjugate-library entry this regulariser is
    function: ConvexFunction

    @abstractmethod
    def dual_norm_bound(self, n_samples: int) -> float:
        """L >= ||u||_*^2 for every column u in [-1, 1]^N (docs/math.md#regulariser-table, erratum NP-3)."""

    @abstractmethod
    def mirror(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``grad R(d)``."""

    @abstractmethod
    def project(self, theta: NDArray[np.float64], region: ProjectionSet) -> NDArray[np.float64]:
        """``argmin_{d in D} B_R(d, grad R*(theta)) = grad (R + I_D)*(theta)`` (Def. 1, Eq. 2)."""

    @abstractmethod
    def divergence(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
        """``B_R(x, y)`` (Eq. 1)."""

    def project_mirror(
        self, theta: NDArray[np.float64], region: ProjectionSet
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(d, grad R(d))`` for ``d = project(theta, region)`` (the active update needs both)."""
        d = self.project(theta, region)
        return d, self.mirror(d)

    def error_bound(self, s: float, n_samples: int) -> float:
        """The bound on the training error implied by Eq. (15) with ``-B_R(d*, d_1) <= -s``
        (NaN when R has no closed form for ``B_R(d*, uniform)``)."""
        return math.nan

    def ftrl_value(self, margins: NDArray[np.float64], region: ProjectionSet) -> float:
        """``min_{d in D} <d, m> + B_R(d, d_1) = -F*(-m)`` with ``F = B_R(., d_1) + I_D`` and d_1
        uniform (docs/math.md#lamaboost): the w-domain value of the margins m (log of the average
        exponential loss, with a minus sign, for the entropy on S)."""
        n = margins.size
        u = np.full(n, 1.0 / n)
        p = self.project(self.mirror(u) - margins, region)
        return float(np.sum(p * margins)) + self.divergence(p, u)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Entropy(Regulariser):
    """``R(d) = sum_n d_n ln d_n`` (1-strongly convex w.r.t. l1 on S, Pinsker): B_R is the (generalised)
    KL divergence, L = 1 (``||u||_inf <= 1``), bound (9). Mirror coordinates are log-weights
    (``grad R = 1 + ln d``; the constant is dropped, the projections onto sets with ``sum d = 1`` ignore
    it), so ``exp`` is only taken after the projection's normalisation."""

    name = "entropy"

    def __init__(self) -> None:
        self.function = RelativeEntropy()

    def dual_norm_bound(self, n_samples: int) -> float:
        return 1.0

    def mirror(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(divide="ignore"):
            return np.log(d)

    def project(self, theta: NDArray[np.float64], region: ProjectionSet) -> NDArray[np.float64]:
        if region.kind == "simplex":  # softmax
            return np.exp(theta - logsumexp(theta))
        if region.kind == "capped":  # capped softmax, [SS] Fig. 2 (docs/math.md#smooth-maboost)
            return entropic_project_capped_simplex(theta, region.nu)
        return entropic_project_mixed(theta, region)

    def project_mirror(
        self, theta: NDArray[np.float64], region: ProjectionSet
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(d, ln d)`` with ``ln d`` computed in the log domain (``ln c + theta`` off the capped
        entries, ``ln cap`` on them), so that weights below the float range do not become 0 forever
        in the active update."""
        d = self.project(theta, region)
        if region.kind == "simplex":
            return d, theta - logsumexp(theta)
        on_b = region.secondary if region.secondary is not None else np.ones(d.size, dtype=bool)
        capped = on_b & (d >= region.cap * (1.0 - 1e-12))
        if capped.all():  # nu = N: the uniform distribution
            return d, np.full(d.size, -math.log(region.nu))
        log_c = math.log1p(-capped.sum() / region.nu) - logsumexp(theta[~capped])
        return d, np.where(capped, -math.log(region.nu), theta + log_c)

    def divergence(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
        return float(kl_div(x, y).sum())  # sum x ln(x/y) - x + y

    def error_bound(self, s: float, n_samples: int) -> float:
        """(9): ``KL(d* || uniform) = ln(1/eps) >= S_T``, so ``eps <= exp(-S_T)``."""
        return math.exp(-s)

    def ftrl_value(self, margins: NDArray[np.float64], region: ProjectionSet) -> float:
        n = margins.size
        if region.kind == "simplex":  # -log((1/N) sum e^{-m}), independent of the projection code
            return -(logsumexp(-margins) - math.log(n))
        if region.kind == "capped":  # the library's capped log-sum-exp (docs/math.md#capped-softmax)
            return -CappedRelativeEntropy(np.full(n, 1.0 / n), nu=region.nu).conjugate(-margins)
        return super().ftrl_value(margins, region)


class Euclidean(Regulariser):
    """``R(d) = (1/2)||d||_2^2``: B_R is ``(1/2)||x - y||^2``, L = N (``||u||_2^2 <= N``), bound (8)."""

    name = "euclidean"

    def __init__(self) -> None:
        self.function = HalfSquaredNorm(2)

    def dual_norm_bound(self, n_samples: int) -> float:
        return float(n_samples)

    def mirror(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.array(d, dtype=np.float64)

    def project(self, theta: NDArray[np.float64], region: ProjectionSet) -> NDArray[np.float64]:
        if region.kind == "mixed":
            return euclidean_project_mixed(theta, region)
        return project_capped_simplex(theta, region.nu)

    def divergence(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
        return 0.5 * float(np.sum((x - y) ** 2))

    def error_bound(self, s: float, n_samples: int) -> float:
        """(8) as published: ``||d* - d_1||^2 = (1 - eps)/(N eps) >= S_T`` (no 1/2, erratum NP-2)."""
        return 1.0 / (1.0 + n_samples * s) if s > 0 else 1.0

    def tight_bound(self, s: float, n_samples: int) -> float:
        """The bound with the correct ``B_R(d*, d_1) = (1 - eps)/(2 N eps)`` (erratum NP-2):
        ``1/(1 + 2 N S_T)``; with ``eta = gamma/N`` it is ``1/(1 + sum gamma^2)``."""
        return 1.0 / (1.0 + 2.0 * n_samples * s) if s > 0 else 1.0


class LibraryRegulariser(Regulariser):
    """Any strictly convex entry f of the conjugate library with a differentiable conjugate.

    ``dual_norm_bound``: L, the bound on ``||u||_*^2`` for the norm f is 1-strongly convex in (the user
    knows it). Projections: ``grad (f + CappedSimplex(nu))*`` from the conjugate calculus (a closed form
    where :func:`~dualboost.conjugates.add` knows one, else the infimal convolution; the mixed set is
    not available). ``grad f(d)``: the maximiser of ``<theta, d> - f*(theta)`` (L-BFGS on f*).

    Parameters
    ----------
    function : ConvexFunction
        The conjugate-library entry f.
    dual_norm_bound : float
        The bound L on ``||u||_*^2``.
    """

    name = "library"

    def __init__(self, function: ConvexFunction, dual_norm_bound: float) -> None:
        if not isinstance(function, ConvexFunction):
            raise ValueError(f"regulariser must be a conjugate-library ConvexFunction; got {function!r}")
        if not function.conjugate_is_differentiable:
            raise ValueError(
                f"regulariser {function!r} must be strictly convex with a differentiable conjugate "
                "(grad R* is the mirror map back to the d-domain)"
            )
        self.function = function
        self._L = check_scalar(dual_norm_bound, "L")
        if self._L <= 0:
            raise ValueError(f"L must be > 0; got {dual_norm_bound!r}")
        self._restricted: dict[float, ConvexFunction] = {}
        self._mirrors: dict[bytes, NDArray[np.float64]] = {}

    def dual_norm_bound(self, n_samples: int) -> float:
        return self._L

    def mirror(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        key = d.tobytes()
        if key not in self._mirrors:
            if len(self._mirrors) > 4:
                self._mirrors.clear()
            self._mirrors[key] = self._solve_mirror(d)
        return self._mirrors[key].copy()

    def _solve_mirror(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        f = self.function

        def objective(theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            return f.conjugate(theta) - float(theta @ d), f.conjugate_grad(theta) - d

        result = minimize(
            objective,
            np.array(d, dtype=np.float64),
            jac=True,
            method="L-BFGS-B",
            options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10000},
        )
        return np.asarray(result.x, dtype=np.float64)

    def project(self, theta: NDArray[np.float64], region: ProjectionSet) -> NDArray[np.float64]:
        if region.kind == "mixed":
            raise ValueError("the mixed projection set needs regulariser='entropy' or 'euclidean'")
        if region.nu not in self._restricted:
            self._restricted[region.nu] = self.function + CappedSimplex(region.nu)
        d = np.clip(self._restricted[region.nu].conjugate_grad(theta), 0.0, None)
        return d / d.sum()

    def divergence(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
        f = self.function
        return float(f.value(x) - f.value(y) - self.mirror(y) @ (x - y))

    def __repr__(self) -> str:
        return f"LibraryRegulariser({self.function!r}, L={self._L:g})"


#: the regularisers by name
REGULARISERS = {"entropy": Entropy, "euclidean": Euclidean, "quadratic": Euclidean}


def make_regulariser(regulariser: object, dual_norm_bound: float | None = None) -> Regulariser:
    """A :class:`Regulariser` from a name of :data:`REGULARISERS`, a :class:`Regulariser`, or a
    conjugate-library function: :class:`RelativeEntropy` / :class:`UnnormalisedRelativeEntropy` (any
    prior: its Bregman divergence is the KL divergence) give :class:`Entropy`,
    ``HalfSquaredNorm(2)`` gives :class:`Euclidean`, any other needs ``dual_norm_bound`` (L).

    Parameters
    ----------
    regulariser : str, Regulariser or ConvexFunction
        A name of :data:`REGULARISERS`, a regulariser, or a conjugate-library function.
    dual_norm_bound : float, optional
        L, needed for a library function other than the two with a regulariser of their own.

    Returns
    -------
    Regulariser
        The regulariser.
    """
    if isinstance(regulariser, Regulariser):
        return regulariser
    if isinstance(regulariser, str):
        if regulariser not in REGULARISERS:
            raise ValueError(
                f"regulariser must be one of {', '.join(map(repr, REGULARISERS))} or a conjugate-library "
                f"function; got {regulariser!r}"
            )
        return REGULARISERS[regulariser]()
    if type(regulariser) in (RelativeEntropy, UnnormalisedRelativeEntropy):
        return Entropy()
    if type(regulariser) is HalfSquaredNorm and regulariser.p == 2.0:
        return Euclidean()
    if isinstance(regulariser, ConvexFunction):
        if dual_norm_bound is None:
            raise ValueError(
                f"L (the bound on the squared dual norm of a column) is needed for {regulariser!r}"
            )
        return LibraryRegulariser(regulariser, dual_norm_bound)
    raise ValueError(
        f"regulariser must be one of {', '.join(map(repr, REGULARISERS))} or a conjugate-library "
        f"function; got {regulariser!r}"
    )
