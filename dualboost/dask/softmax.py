"""The capped softmax over row partitions: ERLPBoost's ``d(w)`` and ``f*(-U w)`` without gathering d.

For ``theta = -U w`` and the logits ``z = ln d0 + eta theta``, the conjugate gradient of
:class:`~dualboost.conjugates.CappedRelativeEntropy` (docs/math.md#capped-softmax, [SS] Lemma 16, [KG]
Alg. 4.2) is ``d_n = min(1/nu, exp(z_n - c))`` with the normaliser c fixed by ``sum d = 1``. In terms of
the threshold ``tau = c + ln(1/nu)`` the capped set is ``{n : z_n >= tau}``, and

    g(tau) = K(tau)/nu + exp(S(tau) - tau + ln(1/nu)),   K(tau) = #{z >= tau},  S(tau) = lse{z < tau},

is non-increasing, with ``g(tau) >= 1`` exactly below the root. Only the capped *set* matters: once it
is known, ``c = lse(uncapped z) - ln(1 - K/nu)`` (the closed form of Lemma 16).

**Parallel search** (:func:`find_threshold`): every partition sorts its logits once per
evaluation and keeps their prefix log-sum-exps; the driver holds a bracket ``[lo, hi)`` with
``g(lo) >= 1 > g(hi)`` and, each round, sends a few candidate thresholds; each partition returns,
per candidate, its count ``K_p`` (>= and >), its partial ``S_p`` (a log-sum-exp), and up to ``q``
rank-spaced logits inside each gap between candidates (the pivots of the next round). The driver
adds the counts, log-adds the partial sums, moves the bracket, and stops when no logit lies strictly
inside it: the capped set is then ``{z >= hi}``. Each round divides the number of logits inside the
bracket by about ``q + 1`` (10^6 logits: 4-5 rounds with q = 32); the candidates also include the
closed-form normaliser of each bracket end, which is the answer as soon as that end lies in the
root's piece. ``nu = 1`` and evaluations where no entry reaches the cap need no search.

**Final reduction** (:func:`evaluate`): with the capped set fixed by tau, each partition returns its
count, the maximum uncapped logit m_p, ``s_p = sum exp(z - m_p)`` over the uncapped entries and the
t-vectors ``U_p^T exp(z - m_p)`` (uncapped) and ``U_p^T 1`` (capped); the driver forms c exactly
(``lse_p (m_p + ln s_p)``) and from it ``U^T d``, ``<d, theta>``, ``f*`` and the regulariser's value.
From eta = 1 on, f* and the value come from c in O(|C|) (``f* = <d, theta> - (1/eta) KL`` with
``ln(d_n/d0) = eta theta_n - c + ln(1/N)`` off the caps); c is rounded to ``1e-16 |c|`` and
``|c| / eta`` grows as ``ln N / eta``, so below eta = 1 (``STABLE_BELOW``, as the in-memory
:class:`~dualboost.conjugates.CappedRelativeEntropy`) one more round has each partition return
``sum_n d_n theta_n`` and ``sum_n kl(d_n, d0)`` (:func:`~dualboost.conjugates.stable.entropy_excess`):
``f* = <d, theta> - (1/eta) sum kl(d, d0)`` and the value ``(1/eta) sum kl(d, d0)``, whose absolute
error is a few roundings times |theta| at every eta (docs/math.md#stable-evaluation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dualboost.conjugates.entropy import STABLE_BELOW, uncapped_weights
from dualboost.conjugates.stable import entropy_excess
from dualboost.conjugates.traits import log_change
from dualboost.dask.edges import ColumnBlock, DistributedVector, PartitionedEdges
from dualboost.problems.kernels import centred_hessian, cross_gram_parts, gram_parts

__all__ = ["Evaluation", "evaluate", "find_threshold", "PIVOTS", "MAX_ROUNDS"]

#: logits returned per gap and partition in each search round
PIVOTS = 32
#: a bound on the search rounds (each one removes at least one logit from the bracket)
MAX_ROUNDS = 200


# --- worker-side kernels ------------------------------------------------------------------------
def _theta(block: ColumnBlock, w: NDArray[np.float64]) -> NDArray[np.float64]:
    return -(block.matrix @ w)


def _sorted_logits(theta: NDArray[np.float64], log_d0: float, eta: float) -> tuple:
    zs = np.sort(log_d0 + eta * theta)
    prefix = np.empty(zs.size + 1)
    prefix[0] = -np.inf
    np.logaddexp.accumulate(zs, out=prefix[1:])
    return zs, prefix


def _spaced(zs: NDArray[np.float64], lo: int, hi: int, q: int) -> NDArray[np.float64]:
    """Up to q entries of the sorted ``zs[lo:hi]``, evenly spaced in rank."""
    count = hi - lo
    if count <= q:
        return zs[lo:hi].copy()
    return zs[lo + (np.arange(1, q + 1) * count) // (q + 1)]


def _summary(sorted_logits: tuple, q: int) -> tuple:
    zs, _ = sorted_logits
    top = zs[-1]
    lse = float(top + np.log(np.exp(zs - top).sum()))
    return float(top), lse, _spaced(zs, 0, zs.size, q)


def _query(sorted_logits: tuple, thresholds: NDArray[np.float64], q: int) -> tuple:
    zs, prefix = sorted_logits
    n = zs.size
    left = np.searchsorted(zs, thresholds, side="left")
    right = np.searchsorted(zs, thresholds, side="right")
    starts, ends = np.r_[0, right], np.r_[left, n]  # the gaps (T_{j-1}, T_j), strictly inside
    pivots = [_spaced(zs, s, e, q) for s, e in zip(starts, ends, strict=True)]
    return n - left, n - right, prefix[left], pivots


def _final(block: ColumnBlock, theta: NDArray[np.float64], log_d0: float, eta: float, tau: float) -> tuple:
    U = block.matrix
    z = log_d0 + eta * theta
    capped = z >= tau
    k = int(np.count_nonzero(capped))
    if k == z.size:
        return k, -np.inf, 0.0, np.zeros(U.shape[1]), U.sum(axis=0), 0.0, float(theta.sum()), np.inf
    m = float(z[~capped].max()) if k else float(z.max())
    e = np.exp(np.where(capped, -np.inf, z - m))
    if k:
        both = U.T @ np.column_stack((e, capped.astype(np.float64)))
        free, cap_sum, theta_capped = both[:, 0], both[:, 1], float(theta[capped].sum())
    else:
        free, cap_sum, theta_capped = U.T @ e, np.zeros(U.shape[1]), 0.0
    zmin = float(z[~capped].min()) if k else float(z.min())
    return k, m, float(e.sum()), free, cap_sum, float(e @ theta), theta_capped, zmin


def _d_block(theta: NDArray[np.float64], log_d0: float, eta: float, tau: float, c: float, cap: float):
    z = log_d0 + eta * theta
    return np.where(z >= tau, cap, np.exp(np.minimum(z - c, np.log(cap))))


def _stable_sums(theta, log_d0, eta, tau, c, cap, d0) -> tuple[float, float]:
    """``(sum_n d_n theta_n, sum_n kl(d_n, d0))`` for one partition (the stable f*, module docstring)."""
    d = _d_block(theta, log_d0, eta, tau, c, cap)
    return float(np.sum(d * theta)), float(entropy_excess(d, d0).sum())


def _hessian_block(block, theta, log_d0, eta, tau, c, cap, nu, columns):
    s = uncapped_weights(_d_block(theta, log_d0, eta, tau, c, cap), nu)
    return gram_parts(block.matrix[:, columns], s)


def _hessian_cross_block(block, theta, log_d0, eta, tau, c, cap, nu, rows, columns):
    s = uncapped_weights(_d_block(theta, log_d0, eta, tau, c, cap), nu)
    return (*cross_gram_parts(block.matrix, s, s[:, None], rows, columns), float(s.sum()))


def _weight_sums(block, theta, log_d0, eta, tau, c, cap, nu, columns):
    s = uncapped_weights(_d_block(theta, log_d0, eta, tau, c, cap), nu)
    return block.matrix[:, columns].T @ s, float(s.sum())


def _weighted_product(block, theta, log_d0, eta, tau, c, cap, nu, columns, v):
    s = uncapped_weights(_d_block(theta, log_d0, eta, tau, c, cap), nu)
    C = block.matrix[:, columns]
    return C.T @ (s * (C @ v))


def _move_sums(block, theta, log_d0, eta, tau, c, cap, nu, direction):
    s = uncapped_weights(_d_block(theta, log_d0, eta, tau, c, cap), nu)
    move = -(block.matrix @ direction)
    return float(s @ move), float(s.sum())


def _log_change(block, theta, log_d0, eta, tau, c, cap, nu, direction, mean, d_max):
    d = _d_block(theta, log_d0, eta, tau, c, cap)
    return log_change(-(block.matrix @ direction), uncapped_weights(d, nu), d, eta, mean, d_max)


# --- the driver side ----------------------------------------------------------------------------
@dataclass(eq=False)
class Evaluation:
    """The capped softmax at one w, with its reductions.

    ``conjugate``: f*(theta) with theta = -U w; ``edges``: U^T d; ``theta``: per-partition futures
    of theta; ``tau``, ``c``: the threshold and the normaliser (d_n = 1/nu if z_n >= tau else
    exp(z_n - c)); ``d_sum``, ``d_min``, ``d_max``: for the domain check; ``reg``: the regulariser's
    value ``(1/eta) KL(d, d0)``, in its kl form ``(1/eta) sum_n kl(d_n, d0)`` below eta = 1 (module
    docstring); ``rounds``: round trips used.

    Parameters
    ----------
    edges_of : PartitionedEdges
        The U evaluated.
    theta : list
        Per-partition futures of theta = -U w.
    log_d0 : float
        ln(1/N), the uniform prior.
    eta, nu : float
        The regularisation and the capping.
    tau, c : float
        The threshold and the normaliser of d.
    conjugate : float
        f*(theta).
    edges : ndarray, shape (t,)
        U^T d.
    d_sum, d_min, d_max : float
        For the domain check.
    reg : float
        The regulariser's value.
    rounds : int
        Round trips used.
    on_gather : callable, optional
        Called with (d, this evaluation) when d is first gathered from the workers.
    """

    edges_of: PartitionedEdges
    theta: list
    log_d0: float
    eta: float
    nu: float
    tau: float
    c: float
    conjugate: float
    edges: NDArray[np.float64]
    d_sum: float
    d_min: float
    d_max: float
    reg: float
    rounds: int
    _d: DistributedVector | None = None
    #: called with ``(array, self)`` when d is gathered (the model remembers the pair)
    on_gather: Callable | None = None
    _gathered: NDArray[np.float64] | None = None

    @property
    def cap(self) -> float:
        return 1.0 / self.nu

    def distribution(self) -> DistributedVector:
        """d on the workers (computed once, on first use)."""
        if self._d is None:
            ex = self.edges_of.executor
            args = (self.log_d0, self.eta, self.tau, self.c, self.cap)
            blocks = [ex.submit(_d_block, th, *args, partition=p) for p, th in enumerate(self.theta)]
            self._d = DistributedVector(ex, blocks, self.edges_of.sizes)
        return self._d

    def __array__(self, dtype=None, copy=None) -> NDArray[np.float64]:
        """d gathered on the driver (once: the array is kept), for code that needs it as numpy
        (the solver's certificate); N numbers travel."""
        if self._gathered is None:
            self._gathered = self.distribution().gather()
            if self.on_gather is not None:
                self.on_gather(self._gathered, self)
        return self._gathered if dtype is None else self._gathered.astype(dtype, copy=False)

    def hessian(self, columns: NDArray[np.intp]) -> NDArray[np.float64]:
        """``-eta (C^T diag(s) C - a a^T / sum s)`` with ``a = C^T s``, s = d on the uncapped entries
        (:meth:`CappedRelativeEntropy.conjugate_hessian_factors`), C = U[:, columns]."""
        U = self.edges_of
        ex = U.executor
        args = (self.log_d0, self.eta, self.tau, self.c, self.cap, self.nu, columns)
        parts = ex.gather(ex.map(_hessian_block, list(zip(U.blocks, self.theta, strict=True)), *args))
        gram, a, total = (np.sum([p[i] for p in parts], axis=0) for i in range(3))
        return centred_hessian(gram, a, a, float(total), self.eta)

    def hessian_operator(
        self, columns: NDArray[np.intp]
    ) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
        """``v -> H v`` for :meth:`hessian`'s matrix (``Model.dual_hessian_operator``): the vector
        ``a = C^T s`` and ``sum s`` by one reduction, then one reduction per product (|S| numbers
        travel each way per partition), two passes over the partition's columns."""
        U = self.edges_of
        ex = U.executor
        pairs = list(zip(U.blocks, self.theta, strict=True))
        args = (self.log_d0, self.eta, self.tau, self.c, self.cap, self.nu, columns)
        sums = ex.gather(ex.map(_weight_sums, pairs, *args))
        a, total = np.sum([p[0] for p in sums], axis=0), float(sum(p[1] for p in sums))

        def product(v: NDArray[np.float64]) -> NDArray[np.float64]:
            out = np.sum(ex.gather(ex.map(_weighted_product, pairs, *args, v)), axis=0)
            if total > 0:
                out -= a * (float(a @ v) / total)
            return -self.eta * out

        return product

    def step_spread(self, direction: NDArray[np.float64]) -> float:
        """``Model.dual_step_spread`` over the partitions (docs/solvers.md#step-length): the weighted
        mean of the move by one reduction, then each partition's largest change of ``log d``;
        two passes over U, one number or two travel per partition and round."""
        U = self.edges_of
        ex = U.executor
        pairs = list(zip(U.blocks, self.theta, strict=True))
        args = (self.log_d0, self.eta, self.tau, self.c, self.cap, self.nu, direction)
        sums = ex.gather(ex.map(_move_sums, pairs, *args))
        total = float(sum(p[1] for p in sums))
        if not total > 0.0:
            return 0.0
        mean = float(sum(p[0] for p in sums)) / total
        return float(max(ex.gather(ex.map(_log_change, pairs, *args, mean, self.d_max))))

    def hessian_block(self, rows: NDArray[np.intp], columns: NDArray[np.intp]) -> NDArray[np.float64]:
        """The block ``(rows, columns)`` of :meth:`hessian`'s matrix (``Model.dual_hessian_block``):
        per partition ``U_p[:, rows]^T diag(s) U_p[:, columns]`` and the vectors of the rank-one
        term; |rows| x |columns| + |rows| + |columns| + 1 numbers travel per partition."""
        U = self.edges_of
        ex = U.executor
        args = (self.log_d0, self.eta, self.tau, self.c, self.cap, self.nu, rows, columns)
        parts = ex.gather(ex.map(_hessian_cross_block, list(zip(U.blocks, self.theta, strict=True)), *args))
        gram, a_rows, a_columns, total = (np.sum([p[i] for p in parts], axis=0) for i in range(4))
        return centred_hessian(gram, a_rows[:, 0], a_columns[:, 0], float(total), self.eta)


def find_threshold(
    executor, sorted_futures: list, n: int, nu: float, summaries: list, q: int = PIVOTS
) -> tuple[float, int]:
    """The threshold tau of the capped set (``+inf``: nothing capped) and the rounds used; see the
    module docstring. ``summaries``: per partition ``(max z, lse z, pivots)``.

    Parameters
    ----------
    executor : object
        The executor that runs the partitions' tasks.
    sorted_futures : list
        Each partition's sorted logits, as futures on its worker.
    n : int
        The number N of examples.
    nu : float
        The capping, a count in [1, N].
    summaries : list of tuple
        Per partition ``(max z, lse z, pivots)``.
    q : int, default PIVOTS
        The pivots each partition returns per gap.

    Returns
    -------
    tuple
        ``(tau, rounds)``.
    """
    log_cap = -np.log(nu)
    lse = float(np.logaddexp.reduce([s[1] for s in summaries]))
    if max(s[0] for s in summaries) - lse <= log_cap:  # no entry reaches the cap: plain softmax
        return np.inf, 0
    lo, lo_gt, lo_ge, lo_S = -np.inf, n, n, -np.inf  # g(-inf) = N/nu >= 1: everything capped
    hi, hi_ge, hi_S = np.inf, 0, lse  # g(+inf) = 0: nothing capped
    candidates = np.r_[np.concatenate([s[2] for s in summaries]), lse + log_cap]
    for rounds in range(1, MAX_ROUNDS + 1):
        inside = candidates[(candidates > lo) & (candidates < hi) & np.isfinite(candidates)]
        ends = [x for x in (lo, hi) if np.isfinite(x)]
        T = np.unique(np.r_[inside, ends])
        parts = executor.gather(
            [executor.submit(_query, s, T, q, partition=p) for p, s in enumerate(sorted_futures)]
        )
        K_ge = np.sum([p[0] for p in parts], axis=0)
        K_gt = np.sum([p[1] for p in parts], axis=0)
        S = np.logaddexp.reduce(np.array([p[2] for p in parts]), axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            at_least_one = (K_ge >= nu) | (S - T + log_cap >= np.log1p(-np.minimum(K_ge / nu, 1.0)))
        above = np.flatnonzero(at_least_one)
        j = int(above[-1]) if above.size else -1  # the largest candidate with g >= 1
        if j >= 0:
            lo, lo_gt, lo_ge, lo_S = T[j], int(K_gt[j]), int(K_ge[j]), S[j]
        if j + 1 < T.size:
            hi, hi_ge, hi_S = T[j + 1], int(K_ge[j + 1]), S[j + 1]
        if lo_gt - hi_ge <= 0:  # no logit strictly inside (lo, hi): the capped set is {z >= hi}
            return hi, rounds
        gap = j + 1  # the gap (T_j, T_{j+1}) in every partition's pivot list
        pivots = np.concatenate([p[3][gap] for p in parts])
        closed = [S_ - np.log1p(-K / nu) + log_cap for K, S_ in ((lo_ge, lo_S), (hi_ge, hi_S)) if K < nu]
        candidates = np.r_[pivots, closed]
    raise RuntimeError(
        f"the capped-softmax threshold search did not end in {MAX_ROUNDS} rounds"
    )  # pragma: no cover


def evaluate(
    U: PartitionedEdges, w: NDArray[np.float64], nu: float, eta: float, q: int = PIVOTS
) -> Evaluation:
    """The capped softmax and ``f*(-U w)`` of ``CappedRelativeEntropy(uniform d0, nu, eta)``, by partition
    reductions (module docstring): 1 round for ``nu = 1``, 2 when no entry is capped, 2 + the
    search rounds otherwise; one more below eta = 1 (``STABLE_BELOW``) for the stable f* and value.

    Parameters
    ----------
    U : PartitionedEdges
        The edge matrix on the workers.
    w : ndarray, shape (t,)
        The weights.
    nu : float
        The capping in [1, N].
    eta : float
        The regularisation.
    q : int, default 32
        The pivots of each search round (module docstring).

    Returns
    -------
    Evaluation
        The softmax's threshold and normaliser, f*, the edges and the round trips used.
    """
    ex = U.executor
    n = U.shape[0]
    log_d0 = float(np.log(1.0 / n))
    theta = ex.map(_theta, [(b,) for b in U.blocks], w)
    rounds = 1
    tau = np.inf
    if nu > 1.0:
        sorted_futures = [
            ex.submit(_sorted_logits, th, log_d0, eta, partition=p) for p, th in enumerate(theta)
        ]
        summaries = ex.gather([ex.submit(_summary, s, q, partition=p) for p, s in enumerate(sorted_futures)])
        tau, search_rounds = find_threshold(ex, sorted_futures, n, nu, summaries, q)
        rounds += 1 + search_rounds
        del sorted_futures
    parts = ex.gather(ex.map(_final, list(zip(U.blocks, theta, strict=True)), log_d0, eta, tau))
    ev = _combine(U, theta, parts, log_d0, nu, eta, tau, rounds)
    if eta < STABLE_BELOW:
        # d is on the simplex to rounding, so that sum d - 1 ~ 1e-16 moves the kl form by 1e-16 f* only
        args = (log_d0, eta, ev.tau, ev.c, ev.cap, 1.0 / n)
        sums = ex.gather(ex.map(_stable_sums, [(th,) for th in theta], *args))
        excess = float(np.sum([s[1] for s in sums]))
        ev.conjugate = float(np.sum([s[0] for s in sums])) - excess / eta
        ev.reg = excess / eta
        ev.rounds += 1
    return ev


def _combine(U, theta, parts, log_d0, nu, eta, tau, rounds) -> Evaluation:
    cap = 1.0 / nu
    K = int(sum(p[0] for p in parts))
    free = [p for p in parts if p[2] > 0]
    t = U.n_hypotheses
    cap_edges = np.sum([p[4] for p in parts], axis=0) if t else np.zeros(0)
    theta_capped = float(np.sum([p[6] for p in parts]))
    log_cap_over_d0 = np.log(cap) - log_d0
    if not free:  # every entry capped (nu = N): d = 1/N
        c, edges, d_theta_free, mass = -np.inf, cap * cap_edges, 0.0, 0.0
        d_max = d_min = cap
    else:
        S = float(np.logaddexp.reduce([p[1] + np.log(p[2]) for p in free]))
        c = S - float(np.log1p(-K / nu))
        coef = [np.exp(p[1] - c) for p in free]
        edges = cap * cap_edges + np.sum([a * p[3] for a, p in zip(coef, free, strict=True)], axis=0)
        d_theta_free = float(sum(a * p[5] for a, p in zip(coef, free, strict=True)))
        mass = float(sum(a * p[2] for a, p in zip(coef, free, strict=True)))
        d_max = cap if K else float(np.exp(max(p[1] for p in free) - c))
        d_min = float(np.exp(min(p[7] for p in free) - c))
    # f*(theta) = <d, theta> - (1/eta) KL(d, d0); on the uncapped entries ln(d/d0) = eta theta - c
    capped_kl = K * cap * log_cap_over_d0
    conj = cap * theta_capped + ((c * mass if mass else 0.0) - capped_kl) / eta
    reg = d_theta_free - ((c * mass if mass else 0.0) - capped_kl) / eta
    return Evaluation(
        edges_of=U,
        theta=theta,
        log_d0=log_d0,
        eta=eta,
        nu=nu,
        tau=tau,
        c=c,
        conjugate=float(conj),
        edges=edges,
        d_sum=K * cap + mass,
        d_min=d_min,
        d_max=d_max,
        reg=float(reg),
        rounds=rounds,
    )
