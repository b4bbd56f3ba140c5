"""Online boosting (seed 002, Beygelzimer, Kale & Luo 2015; spec Sec. 3): Online BBM (Alg. 1) and
AdaBoost.OL (Alg. 2), with the examples passed to the weak learners by importance weight or by
rejection sampling (spec Sec. 3.2).

Notation (spec Sec. 0 crosswalk): N weak online learners WL^1..WL^N (a bank of
:mod:`dualboost.oracles.online`); on example t, z_t^i = y_t WL^i(x_t), s_t^i = s_t^{i-1} + alpha_t^i
z_t^i (s_t^0 = 0), and the *d-domain weight* w_t^i of example t for learner i, from which the
importance weight / sampling probability p_t^i = w_t^i / ||w^i||_inf is formed.

* Online BBM (Alg. 1, alpha = 1): w_t^i = ½ C(N-i, k) p^k q^(N-i-k), k = floor((N-i-s_t^{i-1}+1)/2),
  p = ½ + gamma/2, q = ½ - gamma/2 (Eq. (5) with the /2 of Alg. 1 line 7: spec defect 5), computed
  in log space; ||w^i||_inf is replaced by the tight bound ½ max_k Binom(k; N-i, p) (the binomial
  mode, footnote 3 / Lemma 4), so p_t^i in [0, 1] and p_t^N in {0, 1}.
* AdaBoost.OL (Alg. 2): w_t^i = 1/(1 + exp(s_t^{i-1})) = -l'(s_t^{i-1}) for the logistic loss
  l(s) = ln(1 + e^{-s}); alpha^i by projected online gradient descent on [-2, 2] with step
  4/sqrt(t); the prediction follows expert i (sign of the i-th partial sum) drawn from the Hedge
  weights v (learning rate 1), which are kept normalised (they sum to one).

Prediction ties (a zero vote) go to -1, like ``predict`` of every dualboost estimator (the seed's
sign(0) = +1; the bounds count ties as mistakes either way: Phi_N(s) = 1{s <= 0}).
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, gammaln

from dualboost._validation import check_scalar
from dualboost.boosting.history import HistoryRow
from dualboost.oracles._inputs import Matrix
from dualboost.oracles.online import OnlineLearners

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

#: how the examples reach the weak learners (spec Sec. 3.2)
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
    """Phi_i(s) = Pr[Binom(N-i, ½+gamma/2) <= floor((N-i-s)/2)] (spec Sec. 3.4, BBM potentials).

    Phi_N(s) = 1{s <= 0}; (4) holds with equality. Computed as a log-sum-exp of the binomial
    log-pmf, so it is accurate for N up to 1,000 and beyond (vectorised over i and s).
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

    Equals ½(Phi_i(s-1) - Phi_i(s+1)) (spec Sec. 3.4) and is <= ½; 0 when k < 0 or k > N - i.
    """
    gamma = _check_gamma(gamma)
    i, s_prev = np.broadcast_arrays(np.asarray(i, dtype=np.float64), np.asarray(s_prev, dtype=np.float64))
    m = n_learners - i
    k = np.floor((m - s_prev + 1.0) / 2.0)
    return 0.5 * np.exp(_log_binom_pmf(k, m, 0.5 + gamma / 2.0))


def bbm_log_pmf_table(n_learners: int, gamma: float) -> NDArray[np.float64]:
    """L[i-1, k] = log Binom(k; N-i, ½+gamma/2) for i = 1..N, k = 0..N (-inf where k > N - i)."""
    gamma = _check_gamma(gamma)
    i = np.arange(1, n_learners + 1, dtype=np.float64)[:, None]
    k = np.arange(n_learners + 1, dtype=np.float64)[None, :]
    return _log_binom_pmf(k, n_learners - i, 0.5 + gamma / 2.0)


def bbm_weight_table(n_learners: int, gamma: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(table, bound)``: table[i-1, k] = ½ Binom(k; N-i, p) (plus a zero column N+1 for k < 0)
    and bound[i-1] = max_k table[i-1, k] >= ||w^i||_inf (the binomial mode, spec Sec. 3.4 note)."""
    table = 0.5 * np.exp(bbm_log_pmf_table(n_learners, gamma))
    table = np.hstack([table, np.zeros((n_learners, 1))])
    return table, table.max(axis=1)


def logistic_weight(s_prev: ArrayLike) -> NDArray[np.float64]:
    """AdaBoost.OL's w = -l'(s) = 1/(1 + e^{s}) in (0, 1) for l(s) = ln(1 + e^{-s}) (spec Sec. 3.6)."""
    return expit(-np.asarray(s_prev, dtype=np.float64))


class OnlineBooster(ABC):
    """The booster loop shared by Online BBM and AdaBoost.OL.

    ``learners``: an :class:`~dualboost.oracles.online.OnlineLearners` bank (initialised by
    :meth:`start`); ``n_learners``: N; ``weighting``: ``"importance"`` (every example reaches
    every learner with importance weight p_t^i) or ``"sampling"`` (with probability p_t^i, weight
    1); ``random_state``: seed of the booster's generator (sampling, Hedge draws), so a run is
    deterministic given it.

    After :meth:`start`: ``n_seen`` (t), ``mistakes`` (progressive-validation mistakes: each
    prediction is made before the example is learned), ``last_predictions`` (WL^i(x_t)),
    ``last_weights`` (w_t^i), ``last_probabilities`` (p_t^i), ``last_passed`` (the weights given
    to the learners), and the running sums behind :attr:`edges`.
    """

    name = ""

    def __init__(
        self,
        learners: OnlineLearners,
        n_learners: int,
        weighting: str = "importance",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        if isinstance(n_learners, bool) or not isinstance(n_learners, (int, np.integer)) or n_learners < 1:
            raise ValueError(f"n_learners must be a positive integer; got {n_learners!r}")
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
        self.learners.init(self.n_learners, n_features, X)
        self.rng = np.random.default_rng(self.random_state)
        self._uniforms = self._gumbels = np.empty((0, self.n_learners))
        self.n_seen = 0
        self.mistakes = 0
        self.start_time = time.perf_counter()
        self._wz = np.zeros(self.n_learners)
        self._w = np.zeros(self.n_learners)
        self._start()
        return self

    @abstractmethod
    def _start(self) -> None:
        """Reset the algorithm's own state."""

    @abstractmethod
    def _step(self, h: NDArray, y: int) -> tuple[int, NDArray[np.float64], NDArray[np.float64], NDArray]:
        """One round given the predictions h = WL(x_t) and the label: update the booster's state
        and return (the prediction made before seeing y, w_t, p_t, z_t = y h)."""

    @abstractmethod
    def decision_matrix(self, H: NDArray[np.float64]) -> NDArray[np.float64]:
        """The booster's score in [-1, 1] per row of the (n, N) weak predictions H (> 0: +1)."""

    def learn_row(self, indices: NDArray[np.intp], values: NDArray[np.float64], y: int) -> int:
        """Predict x_t (a row of ``learners.prepare(X)``, given sparsely), then learn (x_t, y_t),
        y in {-1, +1}; returns the prediction (progressive validation)."""
        h = self.learners.predict_row(indices, values)
        self.n_seen += 1
        yhat, w, p, z = self._step(h, y)
        passed = p
        if self.weighting == "sampling":
            passed = self._uniform_row() < p  # booleans: the learners multiply them as 0/1
        self.learners.learn_row(indices, values, y, passed)
        self.mistakes += yhat != y
        self._wz += w * z
        self._w += w
        self.last_predictions, self.last_weights, self.last_probabilities, self.last_passed = h, w, p, passed
        return yhat

    #: random numbers are drawn in blocks of this many rows (one numpy call per block, not per example)
    _BLOCK = 1024

    def _uniform_row(self) -> NDArray[np.float64]:
        """N fresh U(0, 1) numbers (for sampling)."""
        t = self.n_seen % self._BLOCK
        if t == 0 or self._uniforms.shape[0] == 0:
            self._uniforms = self.rng.random((self._BLOCK, self.n_learners))
        return self._uniforms[t]

    def _gumbel_row(self) -> NDArray[np.float64]:
        """N fresh standard Gumbel numbers (for the Hedge draw)."""
        t = self.n_seen % self._BLOCK
        if t == 0 or self._gumbels.shape[0] == 0:
            self._gumbels = self.rng.gumbel(size=(self._BLOCK, self.n_learners))
        return self._gumbels[t]

    def learn_many(
        self,
        X: Matrix,
        y: ArrayLike,
        callback: Callable[[HistoryRow], None] | None = None,
        every: int = 1000,
    ) -> NDArray[np.intp]:
        """:meth:`learn_row` on each row of X (CSR or dense, not yet prepared) in order, labels y
        in {-1, +1}; returns the progressive predictions. ``callback`` gets a :meth:`row` every
        ``every`` examples."""
        n = X.shape[0]
        out = np.empty(n, dtype=np.intp)
        labels = np.asarray(y).astype(np.intp).tolist()  # Python ints: z = y h stays integer
        learn = self.learn_row
        X = self.learners.prepare(X)
        if sp.issparse(X):
            X = X.tocsr()
            indptr, indices, data = X.indptr, X.indices, X.data
            rows = ((indices[indptr[r] : indptr[r + 1]], data[indptr[r] : indptr[r + 1]]) for r in range(n))
        else:
            X = np.asarray(X, dtype=np.float64)
            columns = np.arange(X.shape[1])
            rows = ((columns, X[r]) for r in range(n))
        for r, (idx, vals) in enumerate(rows):
            out[r] = learn(idx, vals, labels[r])
            if callback is not None and self.n_seen % every == 0:
                callback(self.row())
        return out

    def decision_function(self, X: Matrix) -> NDArray[np.float64]:
        """:meth:`decision_matrix` of the learners' current predictions on X."""
        return self.decision_matrix(self.learners.predict_matrix(X))

    @property
    def edges(self) -> NDArray[np.float64]:
        """gamma_i = w^i . z^i / (2 ||w^i||_1) per learner (spec Sec. 3.6; 0 before any weight)."""
        return np.divide(self._wz, 2.0 * self._w, out=np.zeros(self.n_learners), where=self._w > 0)

    @property
    def progressive_loss(self) -> float:
        """Progressive-validation 0-1 loss: mistakes / examples so far (NaN before any)."""
        return self.mistakes / self.n_seen if self.n_seen else math.nan

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


class OnlineBBM(OnlineBooster):
    """Online boost-by-majority (seed 002 Alg. 1; spec Sec. 3.4): alpha = 1, BBM weights (5).

    ``gamma``: the assumed edge in (0, 1) (p = ½ + gamma/2; Vowpal Wabbit's ``--gamma g`` is
    gamma = 2g). Theorem 2: mistakes <= exp(-N gamma²/2) T + O~(sqrt(N)(S + 1/gamma)).
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
        self._rows = np.arange(N)
        self._inv_bound = 1.0 / self.bound

    def _step(self, h, y):
        yhat = 1 if h.sum() > 0 else -1
        z = y * h
        s_prev = np.cumsum(z) - z  # s^{i-1}: integers in [-(i-1), i-1]
        if s_prev.dtype.kind != "i":
            s_prev = s_prev.astype(np.intp)
        w = self.by_sum[self._rows, s_prev + self.n_learners]
        return yhat, w, w * self._inv_bound, z

    def decision_matrix(self, H: NDArray[np.float64]) -> NDArray[np.float64]:
        """The unweighted vote (1/N) sum_i WL^i(x)."""
        return np.asarray(H, dtype=np.float64).mean(axis=1)


class AdaBoostOL(OnlineBooster):
    """AdaBoost.OL (seed 002 Alg. 2; spec Sec. 3.6): logistic weights, alpha by projected OGD on
    [-2, 2] with step 4/sqrt(t), Hedge (rate 1) over the N experts sign(sum_{j<=i} alpha^j WL^j).

    The online prediction follows the expert drawn from the Hedge weights ``v`` (as Alg. 2);
    :meth:`decision_matrix` (used for ``predict`` on new data) is the deterministic Hedge-weighted
    vote sum_i v_i sign(sum_{j<=i} alpha^j WL^j(x)). Theorem 4: mistakes <= 2T / sum_i gamma_i²
    + O~(N² / sum_i gamma_i²).
    """

    name = "AdaBoost.OL"

    def _start(self) -> None:
        N = self.n_learners
        self.alpha = np.zeros(N)
        self.log_v = np.zeros(N)  # log Hedge weights, up to a common constant

    @property
    def v(self) -> NDArray[np.float64]:
        """The Hedge weights v_t (normalised: they sum to one)."""
        v = np.exp(self.log_v - self.log_v.max())
        return v / v.sum()

    def _step(self, h, y):
        z = y * h
        az = self.alpha * z
        s = az.cumsum()  # s_t^i = sum_{j<=i} alpha_t^j z_t^j; expert i predicts sign(y s^i)
        # i_t drawn with Pr[i_t = i] = v_t^i (Gumbel-max on the log weights)
        i_t = (self.log_v + self._gumbel_row()).argmax()
        yhat = 1 if y * s[i_t] > 0 else -1
        w = expit(az - s)  # 1/(1 + exp(s_t^{i-1})), s^{i-1} = s^i - alpha^i z^i
        eta = 4.0 / math.sqrt(self.n_seen)
        # projected OGD: alpha <- clip(alpha + eta z / (1 + exp(s^i)), -2, 2)
        alpha = self.alpha + (eta * z) * expit(-s)
        np.minimum(np.maximum(alpha, -2.0, out=alpha), 2.0, out=alpha)
        self.alpha = alpha
        # Hedge, learning rate 1: v^i *= exp(-1{expert i erred}), in log space; expert i errs
        # iff sign(y s^i) != y, i.e. s^i <= 0 for y = +1 and s^i < 0 for y = -1 (ties -> -1)
        self.log_v -= (s <= 0) if y > 0 else (s < 0)
        if self.n_seen % 1024 == 0:
            self.log_v -= self.log_v.max()
        return yhat, w, w, z

    def decision_matrix(self, H: NDArray[np.float64]) -> NDArray[np.float64]:
        partial = np.cumsum(np.asarray(H, dtype=np.float64) * self.alpha, axis=1)
        return np.where(partial > 0.0, 1.0, -1.0) @ self.v

    def _n_voting(self) -> int:
        return int(np.count_nonzero(self.alpha))
