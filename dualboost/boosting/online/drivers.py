"""Online boosting ([BKL], Beygelzimer, Kale & Luo 2015; docs/math.md#online-boosting): Online BBM
(Alg. 1) and
AdaBoost.OL (Alg. 2), with the examples passed to the weak learners by importance weight or by
rejection sampling (docs/math.md#importance-weights).

Notation (docs/math.md#symbol-crosswalk): N weak online learners WL^1..WL^N (a bank of
:mod:`dualboost.oracles.online`); on example t, z_t^i = y_t WL^i(x_t), s_t^i = s_t^{i-1} + alpha_t^i
z_t^i (s_t^0 = 0), and the *d-domain weight* w_t^i of example t for learner i, from which the
importance weight / sampling probability p_t^i = w_t^i / ||w^i||_inf is formed.

* Online BBM (Alg. 1, alpha = 1): w_t^i = ½ C(N-i, k) p^k q^(N-i-k), k = floor((N-i-s_t^{i-1}+1)/2),
  p = ½ + gamma/2, q = ½ - gamma/2 (Eq. (5) with the /2 of Alg. 1 line 7: erratum BKL-1), computed
  in log space; ||w^i||_inf is replaced by the tight bound ½ max_k Binom(k; N-i, p) (the binomial
  mode, footnote 3 / Lemma 4), so p_t^i in [0, 1] and p_t^N in {0, 1}.
* AdaBoost.OL (Alg. 2): w_t^i = 1/(1 + exp(s_t^{i-1})) = -l'(s_t^{i-1}) for the logistic loss
  l(s) = ln(1 + e^{-s}); alpha^i by projected online gradient descent on [-2, 2] with step
  4/sqrt(t); the prediction follows expert i (sign of the i-th partial sum) drawn from the Hedge
  weights v (learning rate 1), which are kept normalised (they sum to one).

Prediction ties (a zero vote) go to -1, like ``predict`` of every dualboost estimator (the paper's
sign(0) = +1; the bounds count ties as mistakes either way: Phi_N(s) = 1{s <= 0}).
"""

from __future__ import annotations

import math
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, gammaln

from dualboost._validation import Matrix, check_count, check_scalar
from dualboost.boosting.core.history import HistoryRow
from dualboost.oracles.online import OnlineLearners

try:  # the compiled loop (setup.py; docs/architecture.md#compiled-code)
    from dualboost.boosting.online import _loop
except ImportError:  # a source tree that was not built: the Python loop, with one warning
    _loop = None

#: the warning of a missing compiled loop has been given (once per process)
_warned_missing = False

__all__ = [
    "WEIGHTINGS",
    "bbm_potential",
    "bbm_weight",
    "bbm_log_pmf_table",
    "bbm_weight_table",
    "logistic_weight",
    "OnlineBooster",
    "OnlineBBM",
    "AdaBoostOL",
]

#: how the examples reach the weak learners (docs/math.md#importance-weights)
WEIGHTINGS = ("importance", "sampling")


def _check_gamma(gamma: object) -> float:
    gamma = check_scalar(gamma, "gamma")
    if not 0.0 < gamma < 1.0:
        raise ValueError(f"gamma must lie in (0, 1) (the edge; p = 1/2 + gamma/2); got {gamma!r}")
    return gamma


def _log_binom_pmf(k: ArrayLike, m: ArrayLike, p: float) -> NDArray[np.float64]:
    """log Binom(k; m, p) by log-gamma (-inf outside 0 <= k <= m): stable for m up to 10^6."""
    k, m = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(m, dtype=np.float64))
    inside = (k >= 0) & (k <= m)
    ks, ms = np.where(inside, k, 0.0), np.where(inside, m, 0.0)
    log = (
        gammaln(ms + 1)
        - gammaln(ks + 1)
        - gammaln(ms - ks + 1)
        + ks * math.log(p)
        + (ms - ks) * math.log1p(-p)
    )
    return np.where(inside, log, -np.inf)


def bbm_potential(i: ArrayLike, s: ArrayLike, n_learners: int, gamma: float) -> NDArray[np.float64]:
    """Phi_i(s) = Pr[Binom(N-i, ½+gamma/2) <= floor((N-i-s)/2)] (docs/math.md#online-bbm).

    Phi_N(s) = 1{s <= 0}; (4) holds with equality. Computed as a log-sum-exp of the binomial
    log-pmf, so it is accurate for N up to 1,000 and beyond (vectorised over i and s).

    Parameters
    ----------
    i : array_like of int
        The learner index, in [1, N].
    s : array_like of int
        The margin of the partial vote.
    n_learners : int
        N.
    gamma : float
        The assumed edge, in (0, 1).

    Returns
    -------
    ndarray
        Phi_i(s), broadcast over i and s.
    """
    gamma = _check_gamma(gamma)
    i, s = np.broadcast_arrays(np.asarray(i, dtype=np.float64), np.asarray(s, dtype=np.float64))
    m = n_learners - i
    if np.any(m < 0):
        raise ValueError(f"i must lie in [0, N] = [0, {n_learners}]")
    upper = np.floor((m - s) / 2.0)
    ks = np.arange(int(n_learners) + 1, dtype=np.float64)
    logs = _log_binom_pmf(ks, m[..., None], 0.5 + gamma / 2.0)
    logs = np.where(ks <= upper[..., None], logs, -np.inf)
    peak = logs.max(axis=-1, keepdims=True)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    out = np.exp(safe[..., 0]) * np.exp(logs - safe).sum(axis=-1)
    return np.where(np.isfinite(peak[..., 0]), np.minimum(out, 1.0), 0.0)


def bbm_weight(i: ArrayLike, s_prev: ArrayLike, n_learners: int, gamma: float) -> NDArray[np.float64]:
    """w^i = ½ C(N-i, k) p^k q^(N-i-k), k = floor((N - i - s^{i-1} + 1)/2) (Eq. (5) with /2).

    Equals ½(Phi_i(s-1) - Phi_i(s+1)) (docs/math.md#online-bbm) and is <= ½; 0 when k < 0 or k > N - i.

    Parameters
    ----------
    i : array_like of int
        The learner index, in [1, N].
    s_prev : array_like of int
        The margin ``s^{i-1}`` of the partial vote.
    n_learners : int
        N.
    gamma : float
        The assumed edge, in (0, 1).

    Returns
    -------
    ndarray
        w^i, broadcast over i and s_prev.
    """
    gamma = _check_gamma(gamma)
    i, s_prev = np.broadcast_arrays(np.asarray(i, dtype=np.float64), np.asarray(s_prev, dtype=np.float64))
    m = n_learners - i
    k = np.floor((m - s_prev + 1.0) / 2.0)
    return 0.5 * np.exp(_log_binom_pmf(k, m, 0.5 + gamma / 2.0))


def bbm_log_pmf_table(n_learners: int, gamma: float) -> NDArray[np.float64]:
    """L[i-1, k] = log Binom(k; N-i, ½+gamma/2) for i = 1..N, k = 0..N (-inf where k > N - i).

    Parameters
    ----------
    n_learners : int
        N.
    gamma : float
        The assumed edge, in (0, 1).

    Returns
    -------
    ndarray, shape (N, N + 1)
        L.
    """
    gamma = _check_gamma(gamma)
    i = np.arange(1, n_learners + 1, dtype=np.float64)[:, None]
    k = np.arange(n_learners + 1, dtype=np.float64)[None, :]
    return _log_binom_pmf(k, n_learners - i, 0.5 + gamma / 2.0)


def bbm_weight_table(n_learners: int, gamma: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(table, bound)``: table[i-1, k] = ½ Binom(k; N-i, p) (plus a zero column N+1 for k < 0)
    and bound[i-1] = max_k table[i-1, k] >= ||w^i||_inf (the binomial mode,
    docs/math.md#online-bbm).

    Parameters
    ----------
    n_learners : int
        N.
    gamma : float
        The assumed edge, in (0, 1).

    Returns
    -------
    tuple of (ndarray, ndarray)
        ``(table, bound)``.
    """
    table = 0.5 * np.exp(bbm_log_pmf_table(n_learners, gamma))
    table = np.hstack([table, np.zeros((n_learners, 1))])
    return table, table.max(axis=1)


def logistic_weight(s_prev: ArrayLike) -> NDArray[np.float64]:
    """AdaBoost.OL's w = -l'(s) = 1/(1 + e^{s}) in (0, 1) for l(s) = ln(1 + e^{-s})
    (docs/math.md#adaboostol).

    Parameters
    ----------
    s_prev : array_like
        The margins ``s^{i-1}`` of the partial sums.

    Returns
    -------
    ndarray
        The weights, entrywise.
    """
    return expit(-np.asarray(s_prev, dtype=np.float64))


class OnlineBooster(ABC):
    """The booster loop shared by Online BBM and AdaBoost.OL.

    ``learners``: an :class:`~dualboost.oracles.online.OnlineLearners` bank (initialised by
    :meth:`start`); ``n_learners``: N; ``weighting``: ``"importance"`` (every example reaches
    every learner with importance weight p_t^i) or ``"sampling"`` (with probability p_t^i, weight
    1); ``random_state``: seed of the booster's generator (sampling, Hedge draws), so a run is
    deterministic given it.

    After :meth:`start`: ``n_seen`` (t), ``mistakes`` (progressive-validation mistakes: each
    prediction is made before the example is learned), ``last_predictions`` (WL^i(x_t) in
    {-1, +1}), ``last_weights`` (w_t^i), ``last_probabilities`` (p_t^i), ``last_passed`` (the
    weights given to the learners), and the running sums behind :attr:`edges`.

    Compiled loop (docs/architecture.md#compiled-code): when the bank has a compiled kernel
    (:meth:`~dualboost.oracles.online.OnlineLearners.compiled_kernel`: :class:`OnlineLinear
    <dualboost.oracles.online.OnlineLinear>` and :class:`OnlineStumps
    <dualboost.oracles.online.OnlineStumps>`), :meth:`learn_many` runs the rounds of Online BBM and
    AdaBoost.OL in :mod:`dualboost.boosting.online._loop`, on the same state, with the same random
    draws and callbacks; ``compiled = False`` (class or instance attribute) runs the Python loop below
    (:meth:`learn_row`), which stays the reference. The two make the same predictions and agree to
    rounding (tests/boosting/test_online_compiled.py).

    Speed of the Python loop: one example costs a fixed, small number of numpy calls on length-N
    vectors. The weak
    predictions enter the boosters as booleans b^i = [WL^i(x_t) = +1]; the partial sums s_t^{i-1}
    are one ``dot`` with a triangular 0/1 matrix (instead of ``cumsum``), the per-example
    bookkeeping of the edges goes to block buffers reduced every ``_BLOCK`` examples.

    Parameters
    ----------
    learners : OnlineLearners
        The bank of weak online learners (:mod:`dualboost.oracles.online`).
    n_learners : int
        N.
    weighting : {"importance", "sampling"}, default "importance"
        How an example reaches the learners (docs/math.md#importance-weights).
    random_state : int or numpy.random.Generator, optional
        The seed of the booster.
    """

    name = ""

    #: random numbers are drawn, and edge statistics reduced, in blocks of this many examples
    _BLOCK = 1024

    #: run :meth:`learn_many` in the compiled loop when the bank has a kernel (False: the Python loop)
    compiled = True

    def __init__(
        self,
        learners: OnlineLearners,
        n_learners: int,
        weighting: str = "importance",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        check_count(n_learners, "n_learners")
        if weighting not in WEIGHTINGS:
            raise ValueError(
                f"weighting must be one of {', '.join(map(repr, WEIGHTINGS))}; got {weighting!r}"
            )
        if not isinstance(learners, OnlineLearners):
            raise ValueError(f"learners must be an OnlineLearners bank; got {learners!r}")
        self.learners = learners
        self.n_learners = int(n_learners)
        self.weighting = weighting
        self.random_state = random_state

    def start(self, n_features: int, X: Matrix | None = None) -> OnlineBooster:
        """Fresh learners and booster state for a stream with ``n_features`` features."""
        N = self.n_learners
        self.learners.init(N, n_features, X)
        self.rng = np.random.default_rng(self.random_state)
        self._uniforms = self._gumbels = np.empty((0, N))
        self.n_seen = 0
        self.mistakes = 0
        #: the total importance weight of the examples seen (n_seen without weights)
        self.weight_seen = 0.0
        self.start_time = time.perf_counter()
        self._wz = np.zeros(N)
        self._w = np.zeros(N)
        # block buffers of the edge statistics: b_t (WL = +1), the d-domain weight (up to a
        # per-learner constant, which cancels in gamma_i) and y_t
        self._buf_b = np.zeros((self._BLOCK, N), dtype=bool)
        self._buf_w = np.zeros((self._BLOCK, N))
        self._buf_y: list[int] = []
        self._n_buf = 0
        self._sampling = self.weighting == "sampling"
        self.last_passed = self.last_probabilities = np.zeros(N)
        self._last_b = np.zeros(N, dtype=bool)
        self._start()
        return self

    @abstractmethod
    def _start(self) -> None:
        """Reset the algorithm's own state."""

    @abstractmethod
    def _step(
        self, b: NDArray[np.bool_], y: int, weight: float = 1.0
    ) -> tuple[int, NDArray[np.float64], NDArray[np.float64]]:
        """One round given b^i = [WL^i(x_t) = +1] and the label y in {-1, +1}: update the booster's
        state and return (the prediction made before seeing y, p_t (the learners' importance
        weights / sampling probabilities), the d-domain weights up to a per-learner constant).
        ``weight``: the example's importance weight, which scales the booster's own updates."""

    @abstractmethod
    def decision_matrix(self, H: NDArray[np.float64]) -> NDArray[np.float64]:
        """The booster's score in [-1, 1] per row of the (n, N) weak predictions H (> 0: +1)."""

    @property
    def last_predictions(self) -> NDArray[np.intp]:
        """WL^i(x_t) in {-1, +1} on the last example."""
        return np.where(self._last_b, 1, -1)

    def learn_row(
        self, indices: NDArray[np.intp], values: NDArray[np.float64], y: int, weight: float = 1.0
    ) -> int:
        """Predict x_t (a row of ``learners.prepare(X)``, given sparsely), then learn (x_t, y_t),
        y in {-1, +1}; returns the prediction (progressive validation).

        ``weight`` > 0: the example's importance weight (docs/math.md#importance-weights): learner i
        gets ``weight p_t^i`` (sampling: ``weight`` when drawn), the booster's own updates (AdaBoost.OL's
        gradient step on alpha and its Hedge loss) and the edge statistics are scaled by it, and the
        progressive loss counts the example ``weight`` times."""
        h = self.learners.predict_row(indices, values)
        b = h if h.dtype.kind == "b" else h > 0
        self.n_seen += 1
        self.weight_seen += weight
        yhat, p, w = self._step(b, y) if weight == 1.0 else self._step(b, y, weight)
        passed = self._uniform_row() < p if self._sampling else p  # booleans act as weights 0/1
        if weight != 1.0:
            passed, w = weight * passed, weight * w
        self.learners.learn_row(indices, values, y, passed)
        self.mistakes += (yhat != y) if weight == 1.0 else weight * (yhat != y)
        j = self._n_buf
        self._buf_b[j] = b
        self._buf_w[j] = w
        self._buf_y.append(y)
        self._n_buf = j = j + 1
        if j == self._BLOCK:
            self._flush()
        self._last_b, self.last_probabilities, self.last_passed = b, p, passed
        return yhat

    def _flush(self) -> None:
        """Add the buffered examples to the edge sums: sum_t w_t^i z_t^i and sum_t w_t^i."""
        j = self._n_buf
        if j:
            w = self._buf_w[:j]
            z = np.where(self._buf_b[:j], 1.0, -1.0) * np.asarray(self._buf_y, dtype=np.float64)[:, None]
            self._wz += (w * z).sum(axis=0)
            self._w += w.sum(axis=0)
            self._n_buf = 0
            self._buf_y.clear()

    def _uniform_row(self) -> NDArray[np.float64]:
        """N fresh U(0, 1) numbers (for sampling)."""
        t = self.n_seen % self._BLOCK
        if t == 0 or self._uniforms.shape[0] == 0:
            self._uniforms = self.rng.random((self._BLOCK, self.n_learners))
        return self._uniforms[t]

    def learn_many(
        self,
        X: Matrix,
        y: ArrayLike,
        callback: Callable[[HistoryRow], None] | None = None,
        every: int = 1000,
        weights: ArrayLike | None = None,
    ) -> NDArray[np.intp]:
        """:meth:`learn_row` on each row of X (CSR or dense, not yet prepared) in order, labels y
        in {-1, +1}; returns the progressive predictions. ``callback`` gets a :meth:`row` every
        ``every`` examples. ``weights``: positive importance weights, one per row (default 1).
        Runs in the compiled loop when it can (class docstring)."""
        kernel = self._compiled_kernel()
        if kernel is not None:
            return self._learn_compiled(kernel, X, y, callback, every, weights)
        labels = np.asarray(y).astype(np.intp).tolist()  # Python ints: cheap scalar arithmetic
        ones = [1.0] * len(labels)
        importance = ones if weights is None else np.asarray(weights, dtype=np.float64).tolist()
        out = []
        append, learn = out.append, self.learn_row
        rows = self.learners.rows(self.learners.prepare(X))
        for (indices, values), label, weight in zip(rows, labels, importance, strict=True):
            append(learn(indices, values, label, weight))
            if callback is not None and self.n_seen % every == 0:
                callback(self.row())
        return np.asarray(out, dtype=np.intp)

    def _compiled_kernel(self) -> object | None:
        """The bank's compiled kernel if this run can use the compiled loop, else None (one warning
        per process when only the build is missing)."""
        global _warned_missing
        if not self.compiled or type(self).learn_row is not OnlineBooster.learn_row:
            return None
        if type(self)._step not in (OnlineBBM._step, AdaBoostOL._step):
            return None
        kernel = self.learners.compiled_kernel()
        if kernel is not None and _loop is not None:
            return kernel
        has_kernel = type(self.learners).compiled_kernel is not OnlineLearners.compiled_kernel
        if _loop is None and not _warned_missing and has_kernel:
            _warned_missing = True
            warnings.warn(
                "dualboost's compiled online loop (dualboost/boosting/online/_loop) is not built: Online "
                "BBM and AdaBoost.OL run their Python loop, some 10-40x slower. Build it with "
                "`pip install -e .`",
                RuntimeWarning,
                stacklevel=3,
            )
        return None

    def _compiled_rows(self, X: Matrix, y: ArrayLike, weights: ArrayLike | None) -> tuple:
        """The CSR arrays of X (indptr, indices, data), the labels and the importance weights that
        :meth:`_learn_compiled` hands the compiled loop, checked (it reads them without bounds checks)."""
        X = X.tocsr() if sp.issparse(X) else sp.csr_matrix(np.asarray(X, dtype=np.float64))
        labels = np.ascontiguousarray(np.asarray(y).astype(np.intp).ravel())
        n = labels.size
        importance = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
        if X.shape[0] != n or importance.size != n:
            raise ValueError(
                f"X, y and weights must have as many rows: got {X.shape[0]}, {n} and {importance.size}"
            )
        if X.shape[1] > self.learners.n_features:  # the compiled loop reads the bank without bounds checks
            raise ValueError(
                f"X has {X.shape[1]} features, but the learners were started on {self.learners.n_features}"
            )
        if not np.all(np.abs(labels) == 1):
            raise ValueError(f"y must hold labels in {{-1, +1}}; got {np.unique(labels)[:5]}")
        return (
            np.asarray(X.indptr, dtype=np.intp),
            np.asarray(X.indices, dtype=np.intp),
            np.ascontiguousarray(X.data, dtype=np.float64),
            labels,
            importance,
        )

    def _draw_block(self, adaboost_ol: bool) -> None:
        """The next block of random draws where the reference loop draws it (at a block boundary, or
        with none drawn yet): AdaBoost.OL's Gumbels before the sampling's uniforms."""
        t = (self.n_seen + 1) % self._BLOCK
        if adaboost_ol and (t == 0 or self._gumbels.shape[0] == 0):
            self._gumbels = self.rng.gumbel(size=(self._BLOCK, self.n_learners))
        if self._sampling and (t == 0 or self._uniforms.shape[0] == 0):
            self._uniforms = self.rng.random((self._BLOCK, self.n_learners))

    def _learn_compiled(
        self,
        kernel: object,
        X: Matrix,
        y: ArrayLike,
        callback: Callable[[HistoryRow], None] | None,
        every: int,
        weights: ArrayLike | None,
    ) -> NDArray[np.intp]:
        """:meth:`learn_many` in :func:`dualboost.boosting.online._loop.learn_rows`: the same rounds,
        random blocks (Gumbels before uniforms, drawn when the reference draws them) and callbacks."""
        arrays = self._compiled_rows(X, y, weights)
        labels, importance = arrays[3], arrays[4]
        n, N = labels.size, self.n_learners
        self._flush()  # the loop adds to the edge sums directly
        adaboost_ol = isinstance(self, AdaBoostOL)
        empty, no_draws = np.zeros(0), np.zeros((0, N))
        out = np.zeros(n, dtype=np.intp)
        last_b = np.zeros(N, dtype=np.uint8)
        last_p, last_passed, last_w = np.zeros(N), np.zeros(N), np.zeros(N)
        totals = np.array([float(self.mistakes), float(self.weight_seen)])
        kmax = int(np.diff(arrays[0]).max()) if n else 0
        row = 0
        while row < n:
            self._draw_block(adaboost_ol)
            row, self.n_seen = _loop.learn_rows(
                kernel,
                adaboost_ol,
                *arrays,
                row,
                self.n_seen,
                every if callback is not None else 0,
                self._BLOCK,
                kmax,
                empty if adaboost_ol else self._p_flat,
                np.zeros(1, dtype=np.intp) if adaboost_ol else self._index,
                self.alpha if adaboost_ol else empty,
                self.log_v if adaboost_ol else empty,
                self._gumbels if adaboost_ol else no_draws,
                self._sampling,
                self._uniforms if self._sampling else no_draws,
                self._wz,
                self._w,
                last_w,
                last_p,
                last_passed,
                last_b,
                out,
                totals,
            )
            self.learners.store_kernel(kernel)
            self.mistakes = (
                int(totals[0]) if isinstance(self.mistakes, int) and np.all(importance == 1.0) else totals[0]
            )
            self.weight_seen = float(totals[1])
            if callback is not None and self.n_seen % every == 0:
                callback(self.row())
        if n:
            self._last_b, self.last_probabilities, self.last_passed = last_b.view(bool), last_p, last_passed
            if adaboost_ol:
                self.last_weights = last_w
        return out

    def decision_function(self, X: Matrix) -> NDArray[np.float64]:
        """:meth:`decision_matrix` of the learners' current predictions on X."""
        return self.decision_matrix(self.learners.predict_matrix(X))

    @property
    def edges(self) -> NDArray[np.float64]:
        """gamma_i = w^i . z^i / (2 ||w^i||_1) per learner (docs/math.md#adaboostol; 0 before any
        weight)."""
        self._flush()
        return np.divide(self._wz, 2.0 * self._w, out=np.zeros(self.n_learners), where=self._w > 0)

    @property
    def progressive_loss(self) -> float:
        """Progressive-validation 0-1 loss: mistakes / examples so far (NaN before any), both counted
        by importance weight."""
        return self.mistakes / self.weight_seen if self.n_seen else math.nan

    def row(self) -> HistoryRow:
        """The stream's state as a history row: ``iteration`` = examples seen, ``edge`` = mean
        gamma_i, ``stopping`` = progressive 0-1 loss, ``n_hypotheses`` = learners in the vote."""
        return HistoryRow(
            iteration=self.n_seen,
            edge=float(self.edges.mean()),
            stopping=self.progressive_loss,
            time=time.perf_counter() - self.start_time,
            n_hypotheses=self._n_voting(),
        )

    def _n_voting(self) -> int:
        return self.n_learners


def _strict_prefix_matrix(n_learners: int) -> NDArray[np.float64]:
    """T[j, i] = 1 if j < i (j < N, i <= N): (v @ T)[i] = sum_{j<i} v_j, the exclusive prefix sums
    followed by the total (one BLAS call instead of ``cumsum``; exact on small integers)."""
    return np.triu(np.ones((n_learners, n_learners + 1)), 1)


class OnlineBBM(OnlineBooster):
    """Online boost-by-majority ([BKL] Alg. 1; docs/math.md#online-bbm): alpha = 1, BBM weights (5).

    ``gamma``: the assumed edge in (0, 1) (p = ½ + gamma/2; Vowpal Wabbit's ``--gamma g`` is
    gamma = 2g). Theorem 2: mistakes <= exp(-N gamma²/2) T + O~(sqrt(N)(S + 1/gamma)).

    Implementation: w_t^i depends on (i, s_t^{i-1}) only, and s_t^{i-1} = y(2 c_i - (i-1)) with
    c_i = #{j < i: WL^j(x_t) = +1}. The weights and p = w/||w^i||_inf are tabulated once over
    (i, s) in [1, N] x [-N, N] (flattened), and the flat index of example t is
    ``A_y + b @ M_y`` (M_y = 2y T, T the strict prefix matrix): one dot, one add, one take.

    Parameters
    ----------
    learners : OnlineLearners
        The bank of weak online learners (:mod:`dualboost.oracles.online`), N copies updated together.
    n_learners : int
        N, the number of weak online learners.
    gamma : float, default 0.2
        The assumed edge in (0, 1) (p = ½ + gamma/2; Vowpal Wabbit's ``--gamma g`` is gamma = 2g).
    weighting : {"importance", "sampling"}, default "importance"
        Every example reaches every learner with importance weight p_t^i, or with probability p_t^i
        (docs/math.md#importance-weights).
    random_state : int or numpy.random.Generator, optional
        The seed of the booster (sampling, Hedge draws); a run is deterministic given it.
    """

    name = "Online BBM"

    def __init__(
        self,
        learners: OnlineLearners,
        n_learners: int,
        gamma: float = 0.2,
        weighting: str = "importance",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(learners, n_learners, weighting, random_state)
        self.gamma = _check_gamma(gamma)

    def _start(self) -> None:
        N = self.n_learners
        table, self.bound = bbm_weight_table(N, self.gamma)
        # by_sum[i-1, s + N] = w^i for s^{i-1} = s in [-N, N]: k = floor((N-i-s+1)/2) resolved once
        i = np.arange(1, N + 1)[:, None]
        s = np.arange(-N, N + 1)[None, :]
        k = (N - i - s + 1) // 2
        self.by_sum = table[np.arange(N)[:, None], np.where(k < 0, N + 1, np.minimum(k, N + 1))]
        self._w_flat = self.by_sum.ravel()
        self._p_flat = (self.by_sum / self.bound[:, None]).ravel()
        # flat index of learner i0 = i - 1: i0 (2N+1) + N + s, s = y (2 c - i0); entry N counts the +1s
        i0 = np.arange(N + 1, dtype=np.float64)
        T = _strict_prefix_matrix(N)
        T[:, N] = 1.0
        self._offsets, self._counts = {}, {}
        for y in (1, -1):
            offsets = i0 * (2 * N + 1) + N - y * i0
            offsets[N] = 0.0
            M = 2.0 * y * T
            M[:, N] = 1.0
            self._offsets[y], self._counts[y] = offsets, M
        self._index = np.zeros(N + 1, dtype=np.intp)

    @property
    def last_weights(self) -> NDArray[np.float64]:
        """w_t^i of the last example (Eq. (5))."""
        return self._w_flat.take(self._index[:-1])

    def _step(self, b, y, weight=1.0):
        N = self.n_learners
        q = np.dot(b, self._counts[y])  # 2y c_i for i < N, and #{+1 votes}
        index = self._index
        np.add(q, self._offsets[y], out=index, casting="unsafe")  # exact: small integers
        p = self._p_flat.take(index)[:N]
        yhat = 1 if 2.0 * q[N] > N else -1  # sign of the unweighted vote, ties -> -1
        return yhat, p, p

    def decision_matrix(self, H: NDArray[np.float64]) -> NDArray[np.float64]:
        """The unweighted vote (1/N) sum_i WL^i(x)."""
        return np.asarray(H, dtype=np.float64).mean(axis=1)


class AdaBoostOL(OnlineBooster):
    """AdaBoost.OL ([BKL] Alg. 2; docs/math.md#adaboostol): logistic weights, alpha by projected OGD on
    [-2, 2] with step 4/sqrt(t), Hedge (rate 1) over the N experts sign(sum_{j<=i} alpha^j WL^j).

    The online prediction follows the expert drawn from the Hedge weights ``v`` (as Alg. 2);
    :meth:`decision_matrix` (used for ``predict`` on new data) is the deterministic Hedge-weighted
    vote sum_i v_i sign(sum_{j<=i} alpha^j WL^j(x)). Theorem 4: mistakes <= 2T / sum_i gamma_i²
    + O~(N² / sum_i gamma_i²).

    Implementation: with -s_t^i = (-alpha z_t) @ T (T the strict prefix matrix, entries i = 0..N),
    one ``expit`` gives both w_t^i = 1/(1 + e^{s^{i-1}}) and the OGD factor 1/(1 + e^{s^i}).

    Parameters
    ----------
    learners : OnlineLearners
        The bank of weak online learners (:mod:`dualboost.oracles.online`), N copies updated together.
    n_learners : int
        N, the number of weak online learners.
    weighting : {"importance", "sampling"}, default "importance"
        Every example reaches every learner with importance weight p_t^i, or with probability p_t^i
        (docs/math.md#importance-weights).
    random_state : int or numpy.random.Generator, optional
        The seed of the booster (sampling, Hedge draws); a run is deterministic given it.
    """

    name = "AdaBoost.OL"

    def _start(self) -> None:
        N = self.n_learners
        self.alpha = np.zeros(N)
        self.log_v = np.zeros(N)  # log Hedge weights, up to a common constant
        self._prefix = _strict_prefix_matrix(N)
        self._neg_z = {1: np.array([1.0, -1.0]), -1: np.array([-1.0, 1.0])}  # -y h, h = -1 / +1
        self._scratch = np.zeros(N)
        self.last_weights = np.zeros(N)

    @property
    def v(self) -> NDArray[np.float64]:
        """The Hedge weights v_t (normalised: they sum to one)."""
        v = np.exp(self.log_v - self.log_v.max())
        return v / v.sum()

    def _step(self, b, y, weight=1.0):
        alpha, scratch = self.alpha, self._scratch
        nz = self._neg_z[y].take(b)  # -z_t^i
        np.multiply(alpha, nz, out=scratch)
        neg_s = np.dot(scratch, self._prefix)  # -s_t^i for i = 0..N (alpha_t, before the update)
        # i_t drawn with Pr[i_t = i] = v_t^i (Gumbel-max on the log weights); expert i predicts
        # sign(y s^i) (ties -> -1)
        t = self.n_seen % self._BLOCK
        if t == 0 or self._gumbels.shape[0] == 0:
            self._gumbels = self.rng.gumbel(size=(self._BLOCK, self.n_learners))
        i_t = int((self.log_v + self._gumbels[t]).argmax())
        yhat = 1 if y * neg_s[i_t + 1] < 0.0 else -1
        e = expit(neg_s)  # e[i] = 1/(1 + exp(s^i)): w_t^i = e[i-1], the OGD factor is e[i]
        w = e[:-1]
        # projected OGD: alpha <- clip(alpha + eta z / (1 + exp(s^i)), -2, 2)
        np.multiply(nz, e[1:], out=scratch)
        scratch *= 4.0 / math.sqrt(self.n_seen)
        if weight != 1.0:
            scratch *= weight  # the importance-weighted loss's gradient
        alpha -= scratch
        np.minimum(alpha, 2.0, out=alpha)
        np.maximum(alpha, -2.0, out=alpha)
        # Hedge, learning rate 1: v^i *= exp(-1{expert i erred}), in log space; expert i errs iff
        # y s^i <= 0 for y = +1 and y s^i < 0 for y = -1, i.e. -s^i >= 0 resp. -s^i > 0
        erred = neg_s[1:] >= 0.0 if y > 0 else neg_s[1:] > 0.0
        self.log_v -= erred if weight == 1.0 else weight * erred
        if t == 0:
            self.log_v -= self.log_v.max()
        self.last_weights = w
        return yhat, w, w

    def decision_matrix(self, H: NDArray[np.float64]) -> NDArray[np.float64]:
        partial = np.cumsum(np.asarray(H, dtype=np.float64) * self.alpha, axis=1)
        return np.where(partial > 0.0, 1.0, -1.0) @ self.v

    def _n_voting(self) -> int:
        return int(np.count_nonzero(self.alpha))
