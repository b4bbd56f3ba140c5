"""Weak *online* learners for the online boosters of [BKL] (docs/math.md#online-boosting).

The batch oracles of :mod:`dualboost.oracles.base` answer ``best(d)`` on a fixed training set.
An online booster instead keeps N copies WL^1..WL^N of a weak online learner, asks each for a
prediction WL^i(x_t) in {-1, +1} on every example, and then passes (x_t, y_t) to WL^i with an
importance weight p_t^i in [0, 1] (0 = not passed; [BKL] Eq. (2), docs/math.md#importance-weights). A
:class:`OnlineLearners` object is the whole *bank* of N copies, so that an implementation can keep
one (p, N) state matrix and update all N learners with one numpy operation per example.

Protocol (used by :mod:`dualboost.boosting.online`)

* ``init(n_learners, n_features, X=None)``: allocate a fresh bank (``X``: the first batch of the
  stream, from which e.g. stump thresholds are chosen; may be None);
* ``prepare(X)``: the batch as the bank wants to read it row by row (default: unchanged;
  :class:`OnlineLinear` appends its intercept column), called once per batch by the booster;
* ``rows(X)``: the rows of a prepared batch as the ``(indices, values)`` pairs that
  ``predict_row`` and ``learn_row`` take (default: CSR slices, or ``(arange(p), x)`` for a dense
  row);
* ``predict_row(indices, values)``: the N predictions in {-1, +1} (shape (N,), integer or float),
  or as booleans (True = +1), on one example of a prepared batch given sparsely (feature indices
  and their values; a dense row is ``(arange(p), x)``); ties (score 0) predict -1;
* ``learn_row(indices, values, y, weights)``: update learner i with importance weight
  ``weights[i]`` (0 skips it; a boolean array means weights 0/1, as rejection sampling passes)
  on the example of the *last* ``predict_row`` call, label y in
  {-1, +1};
* ``predict_matrix(X)``: the (n, N) predictions on a batch (dense or CSR), for ``predict``;
* ``grow(n_features)``: accept new features (River-style dict input); optional;
* ``compiled_kernel()``: the bank's kernel for the compiled booster loop (docs/architecture.md#compiled-code),
  or None (the default: the booster runs its Python loop); :class:`OnlineLinear` and
  :class:`OnlineStumps` have one.

Banks: :class:`OnlineLinear` (logistic / hinge / squared / modified Huber loss; AdaGrad, optionally
normalized and importance-invariant steps as in Vowpal Wabbit's default learner; numpy, vectorized
across the N learners), :class:`OnlineStumps` (follow-the-leader decision stumps over fixed
thresholds, vectorized), :class:`PartialFitLearners` (N clones of any estimator whose
``partial_fit`` takes ``sample_weight``, e.g. ``SGDClassifier``; a Python loop over the learners).
The numpy methods of the first two are the reference of their compiled kernels
(:mod:`dualboost.oracles._online`), which the boosters' compiled loop runs.
"""

from __future__ import annotations

import copy
import math
from abc import ABC, abstractmethod
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, wrightomega
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import has_fit_parameter

from dualboost._validation import Matrix, check_count, check_scalar

try:  # the compiled kernel of OnlineLinear (setup.py); without it the boosters run their Python loop
    from dualboost.oracles import _online
except ImportError:  # a source tree that was not built
    _online = None

__all__ = [
    "OnlineLearners",
    "OnlineLinear",
    "OnlineStumps",
    "PartialFitLearners",
    "make_online_learners",
    "margin_slope",
    "invariant_step",
    "invariant_margin",
]

#: the named banks of :func:`make_online_learners`
LOSSES = ("logistic", "hinge", "squared", "modified_huber")


def _signs(scores: NDArray[np.float64]) -> NDArray[np.float64]:
    """+1 where the score is > 0, else -1 (ties go to -1, as ``predict`` of the estimators)."""
    return np.where(scores > 0.0, 1.0, -1.0)


class OnlineLearners(ABC):
    """A bank of N weak online learners (see the module docstring for the protocol).

    Constructed with options only; ``init`` allocates the state for N learners and p features.
    """

    n_learners: int
    n_features: int

    def init(self, n_learners: int, n_features: int, X: Matrix | None = None) -> OnlineLearners:
        """Fresh state for ``n_learners`` copies on ``n_features`` features; returns self."""
        self.n_learners = check_count(n_learners, "n_learners")
        self.n_features = check_count(n_features, "n_features")
        self._init(X)
        return self

    @abstractmethod
    def _init(self, X: Matrix | None) -> None:
        """Allocate the state (``n_learners`` and ``n_features`` are set)."""

    def prepare(self, X: Matrix) -> Matrix:
        """The batch X (validated, dense or CSR) in the form ``predict_row`` reads (default: X)."""
        return X

    def rows(self, X: Matrix) -> Iterator[tuple[NDArray[np.intp], NDArray[np.float64]]]:
        """The rows of a prepared batch, in order, as ``(indices, values)`` pairs."""
        if sp.issparse(X):
            X = X.tocsr()
            indptr, indices, data = X.indptr, X.indices, X.data
            for r in range(X.shape[0]):
                a, b = indptr[r], indptr[r + 1]
                yield indices[a:b], data[a:b]
        else:
            X = np.asarray(X, dtype=np.float64)
            columns = np.arange(X.shape[1])
            for x in X:
                yield columns, x

    @abstractmethod
    def predict_row(self, indices: NDArray[np.intp], values: NDArray[np.float64]) -> NDArray[np.float64]:
        """WL^i(x) in {-1, +1} (or True for +1) for i = 1..N on one example given by its non-zero
        features."""

    @abstractmethod
    def learn_row(
        self, indices: NDArray[np.intp], values: NDArray[np.float64], y: float, weights: NDArray[np.float64]
    ) -> None:
        """Pass the last predicted example with label y to WL^i with importance weight weights[i]."""

    @abstractmethod
    def predict_matrix(self, X: Matrix) -> NDArray[np.float64]:
        """The (n, N) matrix of predictions WL^i(x_n) in {-1, +1} (the learners' current state)."""

    def compiled_kernel(self) -> object | None:
        """The bank's compiled kernel for the booster loop of :mod:`dualboost.boosting.online._loop`
        (docs/architecture.md#compiled-code), or None: this bank has none, and the booster runs its
        Python loop. A kernel works on the bank's arrays in place; a bank that returns one also has
        ``store_kernel(kernel)``, which takes back the kernel's scalars after a compiled run."""
        return None

    def grow(self, n_features: int) -> None:
        """Accept ``n_features`` >= the current number of features (new ones start untrained)."""
        if n_features != self.n_features:
            raise ValueError(
                f"{type(self).__name__} cannot add features after init (has {self.n_features}, "
                f"got {n_features}): pass every feature in the first batch"
            )

    def __repr__(self) -> str:
        params = ", ".join(
            f"{k}={v!r}"
            for k, v in vars(self).items()
            if not k.startswith("_") and k[-1] != "_" and k not in ("n_learners", "n_features")
        )
        return f"{type(self).__name__}({params})"


def margin_slope(loss: str, m: ArrayLike) -> NDArray[np.float64]:
    """phi(m) = -d loss / d m of a margin loss at the margins m = y <W, x> (>= 0; the step direction).

    ``logistic``: 1/(1 + e^m); ``hinge``: 1{m < 1}; ``squared`` (½(1 - m)² = ½(score - y)²): 1 - m;
    ``modified_huber`` (½ max(0, 1 - m)² for m >= -1, -2m below): max(0, 1 - m) for m >= -1 and 2
    below, i.e. the squared-loss gradient at the score clipped to [-1, 1], which is what a learner
    with squared loss and predictions clipped to the label range (Vowpal Wabbit's default) uses.

    Parameters
    ----------
    loss : str
        ``"logistic"``, ``"hinge"``, ``"squared"`` or ``"modified_huber"``.
    m : array-like
        The margins.

    Returns
    -------
    ndarray
        phi(m), of the shape of ``m``.
    """
    m = np.asarray(m, dtype=np.float64)
    if loss == "logistic":
        return expit(-m)
    if loss == "hinge":
        return np.where(m < 1.0, 1.0, 0.0)
    u = 1.0 - m
    if loss == "squared":
        return u
    return np.minimum(np.maximum(u, 0.0), 2.0)  # max(0, 1 - m) for m >= -1, 2 below


def invariant_step(loss: str, m0: ArrayLike, tau: ArrayLike) -> NDArray[np.float64]:
    """m(tau) - m0, the change of the margin in an importance-invariant update, where m(tau) solves
    dm/dtau = phi(m), m(0) = m0 (phi: :func:`margin_slope`).

    Karampatziakis & Langford, "Online Importance Weight Aware Updates" (UAI 2011), define the
    update of an example with importance weight h as the limit of infinitely many infinitesimal
    gradient steps whose weights add up to h: w(h) = w - s(h) A x with ds/dh = eta l'(p - s(h) q),
    s(0) = 0, p = <w, x> and q = x^T A x (A: the per-feature step sizes). In margin form, with
    tau = h eta q, the margin m = y p follows dm/dtau = phi(m). Closed forms, with u = 1 - m:

    * logistic: m + e^m = m0 + e^{m0} + tau, so m = c - W(e^c) = log W(e^c) with c the right side
      and W the Lambert function (``scipy.special.wrightomega(c)`` = W(e^c));
    * hinge: m = min(1, m0 + tau) for m0 < 1 (else unchanged);
    * squared: u = u0 e^{-tau};
    * modified Huber: u falls linearly, u0 - 2 tau, while u > 2, i.e. for tau_1 = (u0 - 2)/2, then
      decays, u = min(u0, 2) e^{-(tau - tau_1)}; nothing moves for u0 <= 0 (m0 >= 1).

    The margin never overshoots the loss's minimiser, whatever the importance weight, unlike the
    plain step tau phi(m0). Exactly 0 at tau = 0 except for the logistic loss (rounding).
    Vectorised over m0 and tau.

    Parameters
    ----------
    loss : str
        One of the losses of :func:`margin_slope`.
    m0 : array-like
        The margins before the update.
    tau : array-like
        The scaled importance weights ``h eta q`` (>= 0).

    Returns
    -------
    ndarray
        ``m(tau) - m0``, broadcast over ``m0`` and ``tau``.
    """
    m0, tau = np.asarray(m0, dtype=np.float64), np.asarray(tau, dtype=np.float64)
    if loss == "logistic":
        c = np.minimum(m0, 700.0)  # e^700 is finite; phi(700) = 0 to double precision anyway
        c += np.exp(c)
        c += tau
        omega = wrightomega(c)
        # two forms of the same root: c - W (no cancellation for c < 1), log W (none for large c)
        return np.where(c < 1.0, c - omega, np.log(np.maximum(omega, 1e-300))) - m0
    if loss == "squared":
        return (1.0 - m0) * -np.expm1(-tau)
    if loss == "hinge":
        return np.minimum(np.maximum(1.0 - m0, 0.0), tau)
    v = m0 - 1.0  # -u
    if v.min(initial=0.0) >= -2.0:  # no linear part (the usual case): as the squared loss for u > 0
        moved = np.expm1(-tau)
        moved *= np.minimum(v, 0.0)  # -max(u, 0)
        return moved
    u = -v
    left = tau - 0.5 * np.maximum(u - 2.0, 0.0)  # time left after the linear part
    u_end = np.where(left < 0.0, u - 2.0 * tau, np.minimum(u, 2.0) * np.exp(-np.maximum(left, 0.0)))
    return np.maximum(u - u_end, 0.0, out=u_end)


def invariant_margin(loss: str, m0: ArrayLike, tau: ArrayLike) -> NDArray[np.float64]:
    """m(tau): the margin after an importance-invariant update (:func:`invariant_step`).

    Parameters
    ----------
    loss : str
        A loss of :func:`margin_slope`.
    m0 : array-like
        The starting margins.
    tau : array-like
        The scaled importance weights (>= 0).

    Returns
    -------
    ndarray
        The margins ``m(tau)``.
    """
    return np.asarray(m0, dtype=np.float64) + invariant_step(loss, m0, tau)


class OnlineLinear(OnlineLearners):
    """N online linear classifiers h_i(x) = sign(<W_i, x> + b_i) trained by importance-weighted SGD.

    One (p, N) weight matrix holds all N learners: an example with k non-zero features costs one
    (k, N) gather for the N scores and one (k, N) scatter for the N updates.

    ``loss``: ``"logistic"`` (log(1 + e^{-y m})), ``"hinge"`` (max(0, 1 - y m)), ``"squared"``
    (½(m - y)²) or ``"modified_huber"`` (the squared loss at the score clipped to [-1, 1]: Vowpal
    Wabbit's default, see :func:`margin_slope`). With importance weight h, the gradient of the
    loss at the score m is g = h l'(m) x. The step of feature j is ``learning_rate * r_j`` times
    g_j (``invariant=False``) or the importance-invariant step below, with

    * ``adaptive``: AdaGrad, r_j = 1/sqrt(G_j), G_j = sum of h l'(m)² x_j² over the updates so
      far *including this one* (an importance weight h counts as h copies of the example);
      otherwise r_j = 1;
    * ``normalized``: scale-free steps after Ross, Mineiro & Langford, "Normalized Online
      Learning" (UAI 2013): with s_j = max |x_j| over the examples learned so far (including this
      one), r_j is divided by s_j (adaptive) or s_j² (plain), and every step is multiplied by
      sqrt(T / S), T the number of examples learned and S the sum of their sum_j x_j²/s_j² (one
      over the mean squared normalized norm). Both statistics describe the input stream, so the
      N learners share them (importance weights do not enter). Rescaling a feature by c > 0 then
      rescales its weights by 1/c and leaves every prediction unchanged;
    * ``invariant``: the importance-invariant update of Karampatziakis & Langford (UAI 2011): the
      limit of many tiny steps whose weights add up to h (:func:`invariant_margin`; the rates r_j
      are held fixed during the example). An update of weight 2h equals two updates of weight h
      (for fixed rates), and a large weight moves the score toward the label without
      overshooting. With ``adaptive``, ``normalized`` and ``invariant`` all True and
      ``loss="modified_huber"`` this is the kind of learner Vowpal Wabbit uses by default
      (written from the two papers' definitions, not from VW's code); on a9a it makes the same
      predictions as ``vw --binary -l r`` at ``learning_rate=r`` but for a handful (VW computes
      in float32).

    Defaults (``adaptive=True``, ``normalized=False``, ``invariant=False``) are plain AdaGrad:
    the step of feature j is ``learning_rate * h l'(m) x_j / sqrt(G_j)``.

    Rows whose values are all 1 (binary features, e.g. a9a; the intercept is such a feature) take
    a shorter path: the outer products with x are skipped, which is exact (x_j = 1). :meth:`rows`
    marks such a row by giving its values as a view of an internal array of ones.
    ``predict_row`` returns booleans (True = +1).

    Parameters
    ----------
    loss : str
        ``"logistic"``, ``"hinge"``, ``"squared"`` or ``"modified_huber"``.
    learning_rate : float
        The base step size.
    adaptive : bool
        AdaGrad's per-feature rates.
    normalized : bool
        Scale-free steps (normalized online learning).
    invariant : bool
        Importance-invariant updates.
    """

    def __init__(
        self,
        loss: str = "logistic",
        learning_rate: float = 0.5,
        adaptive: bool = True,
        normalized: bool = False,
        invariant: bool = False,
    ) -> None:
        self.loss = loss
        self.learning_rate = learning_rate
        self.adaptive = adaptive
        self.normalized = normalized
        self.invariant = invariant

    def _init(self, X: Matrix | None) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {', '.join(map(repr, LOSSES))}; got {self.loss!r}")
        rate = check_scalar(self.learning_rate, "learning_rate")
        if rate <= 0:
            raise ValueError(f"learning_rate must be > 0; got {self.learning_rate!r}")
        for name in ("adaptive", "normalized", "invariant"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False; got {getattr(self, name)!r}")
        self._rate = rate
        self._plain = not (self.normalized or self.invariant)
        n, p = self.n_learners, self.n_features
        # state[j] = [W[j, :] | G[j, :]]: the weights of feature j in the N learners and their
        # AdaGrad sums, side by side so that one gather and one scatter serve both; row p is the
        # intercept (a feature always equal to 1)
        self.state = np.zeros((p + 1, 2 * n))
        self.state[:, n:] = 1e-300  # AdaGrad sums start at 0 (this keeps 0/sqrt(0) away)
        self.scale = np.zeros(p + 1)  # s_j (normalized): max |x_j| so far
        self.n_normalized = 0  # T (normalized): examples learned
        self.total_norm = 0.0  # S (normalized): the sum of their sum_j x_j²/s_j²
        self._unit_scale = True  # every s_j seen so far is 0 or 1 (binary features)
        self._ones = np.ones(p + 1)
        self._rows = np.empty((0, 2 * n))

    @property
    def W(self) -> NDArray[np.float64]:
        """The (p, N) weights: column i is learner i."""
        return self.state[:-1, : self.n_learners]

    @property
    def b(self) -> NDArray[np.float64]:
        """The N intercepts."""
        return self.state[-1, : self.n_learners]

    def grow(self, n_features: int) -> None:
        extra = n_features - self.n_features
        if extra < 0:
            raise ValueError(f"n_features cannot shrink (has {self.n_features}, got {n_features})")
        if extra:
            pad = np.zeros((extra, 2 * self.n_learners))
            pad[:, self.n_learners :] = 1e-300
            self.state = np.vstack([self.state[:-1], pad, self.state[-1:]])
            self.scale = np.concatenate([self.scale[:-1], np.zeros(extra), self.scale[-1:]])
            self._ones = np.ones(n_features + 1)
            self.n_features = n_features

    def compiled_kernel(self) -> object | None:
        """A :class:`~dualboost.oracles._online.LinearKernel` on this bank's arrays (None without the
        compiled module, or for a subclass that overrides the per-row methods)."""
        if _online is None or any(
            getattr(type(self), name) is not getattr(OnlineLinear, name)
            for name in ("predict_row", "learn_row", "_learn_scaled", "prepare", "rows")
        ):
            return None
        return _online.LinearKernel(
            self.state,
            self.scale,
            LOSSES.index(self.loss),
            bool(self.adaptive),
            bool(self.normalized),
            bool(self.invariant),
            self._rate,
            self.n_normalized,
            self.total_norm,
            self._unit_scale,
        )

    def store_kernel(self, kernel: object) -> None:
        """Take back the scalars of ``normalized`` (T, S, all s_j in {0, 1}) from a compiled run."""
        self.n_normalized = int(kernel.n_normalized)
        self.total_norm = float(kernel.total_norm)
        self._unit_scale = bool(kernel.unit_scale)

    def prepare(self, X: Matrix) -> Matrix:
        """X with a last column of ones: the intercept is feature p of every prepared row."""
        if sp.issparse(X):
            return sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")
        return np.hstack([np.asarray(X, dtype=np.float64), np.ones((X.shape[0], 1))])

    def rows(self, X: Matrix) -> Iterator[tuple[NDArray[np.intp], NDArray[np.float64]]]:
        """As :meth:`OnlineLearners.rows`; a sparse row whose values are all 1 gets a view of the
        bank's array of ones as its values (the binary fast path)."""
        if not sp.issparse(X):
            yield from super().rows(X)
            return
        X = X.tocsr()
        indptr, indices, data = X.indptr, X.indices, X.data
        not_one = np.concatenate([[0], np.cumsum(data != 1.0)])
        binary = (not_one[indptr[1:]] == not_one[indptr[:-1]]).tolist()
        ones = [self._ones[:k] for k in range(self._ones.size + 1)]
        starts, stops = indptr[:-1].tolist(), indptr[1:].tolist()
        for a, b, flag in zip(starts, stops, binary, strict=True):
            yield indices[a:b], (ones[b - a] if flag else data[a:b])

    def predict_row(self, indices: NDArray[np.intp], values: NDArray[np.float64]) -> NDArray[np.bool_]:
        self._indices, self._values = indices, values
        self._rows = rows = self.state.take(indices, axis=0)  # kept for learn_row
        self._scores = scores = np.dot(values, rows)[: self.n_learners]
        return scores > 0.0

    def _loss_gradient(self, y: float) -> NDArray[np.float64]:
        """d loss / d score at the cached scores, per learner (a fresh array): -y phi(y m)."""
        if self.loss == "logistic":
            d = expit(self._scores)  # -y sigma(-y m) = sigma(m) - [y = +1] for y in {-1, +1}
            if y > 0:
                d -= 1.0
            return d
        return -y * margin_slope(self.loss, y * self._scores)

    def learn_row(
        self, indices: NDArray[np.intp], values: NDArray[np.float64], y: float, weights: NDArray[np.float64]
    ) -> None:
        if not self._plain:
            self._learn_scaled(y, np.asarray(weights, dtype=np.float64))
            return
        n, rows, values = self.n_learners, self._rows, self._values
        binary = values.base is self._ones
        if self.loss == "logistic":  # inlined _loss_gradient
            d = expit(self._scores)
            if y > 0:
                d -= 1.0
        else:
            d = self._loss_gradient(y)
        g = d * weights
        if self.adaptive:
            sums = rows[:, n:]
            gd = g * d
            sums += gd if binary else np.multiply.outer(values * values, gd)
            step = np.sqrt(sums)
            g *= self._rate
            np.divide(g if binary else np.multiply.outer(values, g), step, out=step)
        else:
            g *= self._rate
            step = g if binary else np.multiply.outer(values, g)
        rows[:, :n] -= step
        self.state[self._indices] = rows

    def _learn_scaled(self, y: float, h: NDArray[np.float64]) -> None:
        """The update with ``normalized`` and/or ``invariant`` (see the class docstring).

        With r_j the per-feature factor (1/sqrt(G_j), over s_j with ``normalized``) and eta the
        rate (``learning_rate``, times sqrt(T/S) with ``normalized``), the plain step is
        w_j += eta h y phi(m) r_j x_j, the invariant one w_j += y (m(tau) - m) r_j x_j / q with
        q = sum_j r_j x_j² and tau = h eta q: the same direction, another length.
        """
        n, rows, values, indices = self.n_learners, self._rows, self._values, self._indices
        binary = values.base is self._ones
        m0 = y * self._scores
        phi = margin_slope(self.loss, m0)  # l'(score) = -y phi
        x2 = None if binary else values * values
        if self.adaptive:
            G = rows[:, n:]
            hp2 = h * phi
            hp2 *= phi
            G += hp2 if binary else np.multiply.outer(x2, hp2)
            r = np.power(G, -0.5)
        else:
            r = np.ones((indices.size, n))
        eta = self._rate
        if self.normalized:
            if binary and self._unit_scale:
                self.scale[indices] = 1.0
                norm = float(indices.size)
            else:
                s = np.maximum(self.scale.take(indices), np.abs(values))
                self.scale[indices] = s
                self._unit_scale = self._unit_scale and bool(np.all(s == 1.0))
                s[s == 0.0] = 1.0  # features never non-zero (dense rows): x_j = 0, no step either way
                r /= (s if self.adaptive else s * s)[:, None]
                norm = float(np.sum(x2 / (s * s))) if x2 is not None else float(np.sum(1.0 / (s * s)))
            self.n_normalized += 1
            self.total_norm += norm
            eta *= math.sqrt(self.n_normalized / self.total_norm)
        if self.invariant:
            q = self._ones[: indices.size] @ r if binary else x2 @ r  # sum_j r_j x_j² (> 0: intercept)
            tau = h * q
            tau *= eta
            coef = invariant_step(self.loss, m0, tau)
            if self.loss == "logistic":
                coef[h == 0.0] = 0.0  # exactly no change at weight 0 (the others give exact zeros)
            coef /= q
        else:
            coef = h * phi
            coef *= eta
        coef *= y
        r *= coef
        rows[:, :n] += r if binary else values[:, None] * r
        self.state[indices] = rows

    def predict_matrix(self, X: Matrix) -> NDArray[np.float64]:
        return _signs(np.asarray(X @ self.W) + self.b)


class OnlineStumps(OnlineLearners):
    """N online decision stumps ``s * sign(x_j - theta)`` by follow-the-leader on the weighted edge.

    The candidate thresholds are fixed when the bank is initialised: ``n_thresholds`` quantiles of
    each feature on the first batch (a single example or no data: theta = 0 only). Learner i keeps
    E_i[j, b] = sum_t w_t^i y_t sign(x_tj - theta_jb) (its weighted edges, all stumps at once) and
    predicts with the stump of largest |E_i[j, b]| (sign s = sign E_i[j, b]; first in (j, b) order
    on ties). Cost per example: O(N p B) (numpy, or the compiled kernel), so meant for a few hundred
    features.

    Parameters
    ----------
    n_thresholds : int
        The candidate thresholds per feature (quantiles of the first batch).
    """

    def __init__(self, n_thresholds: int = 8) -> None:
        self.n_thresholds = n_thresholds

    def _init(self, X: Matrix | None) -> None:
        B = check_count(self.n_thresholds, "n_thresholds")
        p = self.n_features
        thresholds = np.full((p, B), np.inf)  # padding: the stump "always -1" (a constant)
        thresholds[:, 0] = 0.0
        if X is not None and X.shape[0] >= 2:
            dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
            levels = np.linspace(0.0, 1.0, B + 2)[1:-1]
            for j in range(p):
                q = np.unique(np.quantile(dense[:, j], levels, method="lower"))
                values = np.unique(dense[:, j])
                # a threshold at a data value v separates x <= v from x > v
                q = q[q < values.max()] if values.size > 1 else q[:1]
                thresholds[j, : q.size] = q
                thresholds[j, q.size :] = np.inf
        self.thresholds = thresholds
        self.E = np.zeros((self.n_learners, p, B))
        self._best = np.zeros(self.n_learners, dtype=np.intp)  # flat index j * B + b
        self._sign = np.ones(self.n_learners)
        self._x = np.zeros(p)

    def compiled_kernel(self) -> object | None:
        """A :class:`~dualboost.oracles._online.StumpKernel` on this bank's arrays (None without the
        compiled module, or for a subclass that overrides the per-row methods)."""
        if _online is None or any(
            getattr(type(self), name) is not getattr(OnlineStumps, name)
            for name in ("predict_row", "learn_row", "prepare", "rows")
        ):
            return None
        flat = self.E.reshape(self.n_learners, -1)  # a view: the kernel adds to E itself
        return _online.StumpKernel(self.thresholds, flat, self._best, self._sign)

    def store_kernel(self, kernel: object) -> None:
        """Nothing to take back: the kernel updated the bank's arrays in place."""

    def grow(self, n_features: int) -> None:
        extra = n_features - self.n_features
        if extra < 0:
            raise ValueError(f"n_features cannot shrink (has {self.n_features}, got {n_features})")
        if extra:
            B = self.thresholds.shape[1]
            new = np.full((extra, B), np.inf)
            new[:, 0] = 0.0
            self.thresholds = np.vstack([self.thresholds, new])
            self.E = np.concatenate([self.E, np.zeros((self.n_learners, extra, B))], axis=1)
            # appended features: the flat indices j * B + b of the current best stumps are unchanged
            self._x = np.zeros(n_features)
            self.n_features = n_features

    def _stump_outputs(self, indices: NDArray[np.intp], values: NDArray[np.float64]) -> NDArray[np.float64]:
        x = self._x
        x[:] = 0.0
        x[indices] = values
        return np.where(x[:, None] > self.thresholds, 1.0, -1.0).ravel()

    def predict_row(self, indices: NDArray[np.intp], values: NDArray[np.float64]) -> NDArray[np.float64]:
        self._outputs = self._stump_outputs(indices, values)
        return self._sign * self._outputs[self._best]

    def learn_row(
        self, indices: NDArray[np.intp], values: NDArray[np.float64], y: float, weights: NDArray[np.float64]
    ) -> None:
        flat = self.E.reshape(self.n_learners, -1)
        flat += np.outer(y * weights, self._outputs)
        self._best = np.abs(flat).argmax(axis=1)
        self._sign = np.where(flat[np.arange(self.n_learners), self._best] < 0.0, -1.0, 1.0)

    def predict_matrix(self, X: Matrix) -> NDArray[np.float64]:
        B = self.thresholds.shape[1]
        features, bins = np.divmod(self._best, B)
        if sp.issparse(X):
            cols = np.asarray(X.tocsc()[:, features].toarray())
        else:
            cols = np.asarray(X, dtype=np.float64)[:, features]
        return self._sign * np.where(cols > self.thresholds[features, bins], 1.0, -1.0)


class PartialFitLearners(OnlineLearners):
    """N clones of a scikit-learn classifier whose ``partial_fit`` takes ``sample_weight``.

    Learner i is updated by ``partial_fit(x, [y], classes=[-1, 1], sample_weight=[weights[i]])``
    when ``weights[i] > 0``; before its first update it predicts -1. A Python loop over the N
    learners (generic, and slow next to :class:`OnlineLinear`).

    Parameters
    ----------
    estimator : BaseEstimator
        The classifier to clone, with ``partial_fit`` taking ``sample_weight``.
    """

    def __init__(self, estimator: BaseEstimator) -> None:
        self.estimator = estimator

    def _init(self, X: Matrix | None) -> None:
        est = self.estimator
        if not (
            isinstance(est, BaseEstimator)
            and hasattr(est, "partial_fit")
            and has_fit_parameter(est, "sample_weight")
        ):
            raise ValueError(
                "estimator must be a scikit-learn classifier whose fit and partial_fit take sample_weight "
                f"(e.g. SGDClassifier); got {est!r}"
            )
        self.learners_ = [clone(est) for _ in range(self.n_learners)]
        self._fitted = np.zeros(self.n_learners, dtype=bool)
        self._classes = np.array([-1.0, 1.0])

    def _row(self, indices: NDArray[np.intp], values: NDArray[np.float64]) -> sp.csr_matrix:
        return sp.csr_matrix((values, indices, [0, indices.size]), shape=(1, self.n_features))

    def predict_row(self, indices: NDArray[np.intp], values: NDArray[np.float64]) -> NDArray[np.float64]:
        self._x = self._row(indices, values)
        return self._predict(self._x)[0]

    def learn_row(
        self, indices: NDArray[np.intp], values: NDArray[np.float64], y: float, weights: NDArray[np.float64]
    ) -> None:
        label, weights = np.array([y]), np.asarray(weights, dtype=np.float64)
        for i in np.flatnonzero(weights > 0):
            self.learners_[i].partial_fit(
                self._x, label, classes=self._classes, sample_weight=weights[i : i + 1]
            )
            self._fitted[i] = True

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        out = np.full((X.shape[0], self.n_learners), -1.0)
        for i in np.flatnonzero(self._fitted):
            out[:, i] = np.where(np.asarray(self.learners_[i].predict(X), dtype=np.float64) > 0, 1.0, -1.0)
        return out

    def predict_matrix(self, X: Matrix) -> NDArray[np.float64]:
        return self._predict(sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64))


#: the named banks
ONLINE_LEARNERS = {"linear": OnlineLinear, "stumps": OnlineStumps}


def make_online_learners(learner: object) -> OnlineLearners:
    """A fresh (uninitialised) bank from a name of ``ONLINE_LEARNERS`` (``"linear"``, ``"stumps"``),
    an :class:`OnlineLearners` (copied), or a scikit-learn estimator with ``partial_fit`` and
    ``sample_weight`` (wrapped in :class:`PartialFitLearners`).

    Parameters
    ----------
    learner : str, OnlineLearners or BaseEstimator
        The learner's name, a bank, or a scikit-learn estimator.

    Returns
    -------
    OnlineLearners
        A fresh bank.
    """
    if isinstance(learner, str) and learner in ONLINE_LEARNERS:
        return ONLINE_LEARNERS[learner]()
    if isinstance(learner, OnlineLearners):
        return copy.deepcopy(learner)
    if isinstance(learner, BaseEstimator) and hasattr(learner, "partial_fit"):
        return PartialFitLearners(learner)
    raise ValueError(
        f"learner must be one of {', '.join(map(repr, ONLINE_LEARNERS))}, an OnlineLearners bank or a "
        f"scikit-learn classifier with partial_fit(..., sample_weight=...); got {learner!r}"
    )
