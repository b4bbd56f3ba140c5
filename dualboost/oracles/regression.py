"""Weak learners of function-space boosting ([GB]): the projection of a target onto ℋ
(docs/math.md#projection-rules).

A :class:`ProjectionOracle` is fitted once on the training inputs X (N x p), then asked
``project(target)`` for a target function given by its N values (shape (N,), or (N, K) for K
outputs): the (sub)gradient, or the residual of Alg. 3. It returns a :class:`Projection`: a
hypothesis h of its class ℋ with its values on the training set. The drivers then take the closest
point on the line of h, ``c h`` with ``c = <h, target>/‖h‖²`` ([GB] (2)), so any h with
``<h, target> > 0`` is a descent direction; how good it is is the edge of Definition 1.

Two projection rules ([GB] (3), (4); docs/math.md#projection-rules), and the classes that implement them:

* rule (4), least squares ``argmin_h ‖target - h‖²`` over a class closed under scaling (Friedman):
  :class:`RegressionStumps` (vectorised, O(N p K) per call on presorted features; K outputs share
  the split) and :class:`SklearnRegressorOracle` (any scikit-learn regressor, cloned and fitted on
  the target, with ``sample_weight`` when given);
* rule (3), ``argmax_h <target, h>/‖h‖`` (Mason et al.): :class:`ClassifierProjection` turns any
  binary oracle of the protocol (:class:`~dualboost.oracles.DecisionStumps`, a scikit-learn classifier
  via :class:`~dualboost.oracles.SklearnOracle`, ...) into the weighted classification problem of
  docs/math.md#projection-rules (labels ``sgn target``, weights ``|target|``); for ±1 hypotheses ‖h‖ is
  constant, so the max-edge hypothesis *is* rule (3). :class:`MulticlassStumps`: the multiclass
  decision stumps of [GB] Fig. 3, as Thm 2's vectors h'(x)_k = 1 if k = class else -1/(K-1).

``sample_weight`` weights the examples: rule (4) becomes the weighted least-squares fit
``argmin_h sum_n s_n ‖target_n - h(x_n)‖²``, rule (3) the weighted inner product
``sum_n s_n <target_n, h(x_n)>``. The drivers pass the distribution p of the weighted empirical measure
P̂_s when they are given example weights (docs/gradient.md#sample-weights); the stumps then answer as on
the rows repeated (integer weights), which needs the near-ties below.

Ties (the stumps): two splits that cut the training examples into the same two sets have the same
score, whatever their features and thresholds, but the two scores are rounded differently (and
differently again when the weights are replaced by repeated rows). So that rounding does not pick the
answer, a score within a relative :data:`NEAR_TIE` of the best counts as a tie, and ties go to the first
feature, then the smallest threshold (then the smallest class).
"""

from __future__ import annotations

import copy
import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.multioutput import MultiOutputRegressor
from sklearn.utils.validation import has_fit_parameter

from dualboost._validation import Matrix, check_features, check_vector
from dualboost.oracles.base import Hypothesis, Oracle, feature_column

__all__ = [
    "Projection",
    "ProjectionOracle",
    "RegressionStump",
    "ConstantFunction",
    "RegressionStumps",
    "MulticlassStump",
    "MulticlassStumps",
    "FittedRegressor",
    "SklearnRegressorOracle",
    "ClassifierProjection",
    "NEAR_TIE",
]

#: scores of the stumps within this fraction of the score's scale of the best are ties (module docstring):
#: far above the rounding of the cumulative sums (about N x 1e-16), far below any real difference
NEAR_TIE = 1e-10


@dataclass(frozen=True, eq=False)
class Projection:
    """The answer of ``project(target)``: a hypothesis and its values on the N training examples.

    Compares (and hashes) as its hypothesis, so a driver can count distinct weak learners.
    """

    hypothesis: Hypothesis
    values: NDArray[np.float64] = field(repr=False)

    def predict(self, X: ArrayLike | Matrix) -> NDArray[np.float64]:
        return self.hypothesis.predict(X)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Projection):
            return self.hypothesis == other.hypothesis
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.hypothesis)


class ProjectionOracle(ABC):
    """``fit(X)`` once, then ``project(target, sample_weight=None)`` (module docstring).

    After ``fit``: ``n_samples_`` (N), ``n_features_``. ``outputs``: ``"any"``, ``"single"`` (targets
    of shape (N,) only) or ``"multi"`` (targets of shape (N, K) only).
    """

    outputs = "any"

    def fit(self, X: ArrayLike | Matrix, y: object = None) -> ProjectionOracle:
        """Validate and store the training inputs (dense or scipy.sparse); ``y`` is ignored."""
        X = check_features(X, "X")
        self.n_samples_, self.n_features_ = X.shape
        self._fit(X)
        return self

    @abstractmethod
    def _fit(self, X: Matrix) -> None:
        """Precompute what ``project`` needs from the validated X."""

    def project(self, target: ArrayLike, sample_weight: ArrayLike | None = None) -> Projection:
        """The hypothesis of the class for the target values (N,) or (N, K) (module docstring)."""
        if not hasattr(self, "n_samples_"):
            raise ValueError(f"{type(self).__name__} is not fitted: call fit(X) before project(target)")
        target = _check_target(target, self.n_samples_, self.outputs)
        weights = None
        if sample_weight is not None:
            weights = check_vector(sample_weight, "sample_weight", self.n_samples_)
            if np.any(weights < 0) or not weights.sum() > 0:
                raise ValueError("sample_weight must be non-negative with a positive sum")
        return self._project(target, weights)

    @abstractmethod
    def _project(self, target: NDArray[np.float64], weights: NDArray[np.float64] | None) -> Projection:
        """``project`` for validated arguments."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _check_target(target: ArrayLike, n_samples: int, outputs: str) -> NDArray[np.float64]:
    try:
        arr = np.asarray(target, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("target must be a numeric array of shape (N,) or (N, K)") from exc
    if arr.ndim not in (1, 2) or arr.shape[0] != n_samples or arr.size == 0:
        raise ValueError(f"target must have shape (N,) or (N, K) with N = {n_samples}; got {arr.shape}")
    if outputs == "single" and arr.ndim != 1:
        raise ValueError(f"target must be 1-D (N,) for this learner; got shape {arr.shape}")
    if outputs == "multi" and arr.ndim != 2:
        raise ValueError(f"target must be 2-D (N, K) for this learner; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("target must be finite (no NaN or inf)")
    return arr


def _dense(X: Matrix) -> NDArray[np.float64]:
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)


# ----------------------------------------------------------------------------- stumps


@dataclass(frozen=True)
class ConstantFunction(Hypothesis):
    """h(x) = value: a scalar (``n_outputs`` 0) or a K-vector (``n_outputs`` K), stored as a tuple."""

    value: tuple[float, ...]
    n_outputs: int = 0

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        if self.n_outputs == 0:
            return np.full(X.shape[0], self.value[0])
        return np.tile(np.asarray(self.value), (X.shape[0], 1))

    def describe(self) -> str:
        return f"constant {np.round(self.value, 4).tolist()}"


def _as_tuple(value: NDArray[np.float64]) -> tuple[float, ...]:
    return tuple(float(v) for v in np.atleast_1d(value))


@dataclass(frozen=True)
class RegressionStump(Hypothesis):
    """h(x) = right if x[feature] > threshold else left; ``left``, ``right`` scalars or K-vectors
    (stored as tuples; ``n_outputs`` 0 means scalar outputs)."""

    feature: int
    threshold: float
    left: tuple[float, ...]
    right: tuple[float, ...]
    n_outputs: int = 0

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        above = feature_column(X, self.feature) > self.threshold
        left, right = np.asarray(self.left), np.asarray(self.right)
        if self.n_outputs == 0:
            return np.where(above, right[0], left[0])
        return np.where(above[:, None], right[None, :], left[None, :])

    def describe(self) -> str:
        left, right = np.round(self.left, 4).tolist(), np.round(self.right, 4).tolist()
        return f"x[{self.feature}] > {self.threshold:.6g} -> {right} (else {left})"


class _Presorted(ProjectionOracle):
    """Features sorted once (``fit``), split candidates between consecutive distinct values.

    Per call, :meth:`_sums` gathers the (weighted) target in each feature's order and takes the
    cumulative sums, laid out as (K, p, N-1) so that reductions over the K outputs run over
    contiguous slabs: that gather and that cumulative sum are the O(N p K) of a call. Sparse X is
    densified at ``fit`` (the sort orders are dense N x p anyway).
    """

    def _fit(self, X: Matrix) -> None:
        Xd = _dense(X)
        self.order_ = np.argsort(Xd, axis=0, kind="stable").T.copy()  # (p, N)
        xs = np.take_along_axis(Xd, self.order_.T, axis=0).T  # (p, N) sorted values
        # boundary i of feature j: between sorted positions i and i + 1 (i = 0 .. N-2)
        self.valid_ = xs[:, 1:] > xs[:, :-1]  # (p, N-1)
        low, high = xs[:, :-1], xs[:, 1:]
        mid = np.clip(low / 2 + high / 2, low, high)
        self.thresholds_ = np.where(mid < high, mid, low)

    def _sums(
        self, target: NDArray[np.float64], weights: NDArray[np.float64] | None
    ) -> tuple[NDArray, NDArray, NDArray, float]:
        """``(S_L, W_L, S, W)``: left sums of w*target (K, p, N-1), left sums of w (N-1,) or
        (p, N-1), the totals S (K,) and W."""
        columns = np.atleast_2d(target.T)  # (K, N)
        if weights is not None:
            columns = columns * weights
        left = np.cumsum(columns[:, self.order_], axis=2)[:, :, :-1]
        total = columns.sum(axis=1)
        if weights is None:
            return left, np.arange(1, self.n_samples_, dtype=np.float64), total, float(self.n_samples_)
        return left, np.cumsum(weights[self.order_], axis=1)[:, :-1], total, float(weights.sum())

    def _split_values(self, j: int, i: int, left: NDArray, right: NDArray, shape: tuple) -> NDArray:
        """The training values of the split (feature j, after sorted position i): ``left`` on the
        first i + 1 examples of feature j's order, ``right`` on the others."""
        values = np.empty(shape)
        values[self.order_[j][: i + 1]] = left
        values[self.order_[j][i + 1 :]] = right
        return values


def _first_near_max(scores: NDArray[np.float64], scale: float) -> tuple[int, ...]:
    """The first index (row-major: feature, then threshold) whose score is within ``NEAR_TIE * scale``
    of the maximum (module docstring: near-ties)."""
    best = float(scores.max())
    flat = int(np.argmax(scores >= best - NEAR_TIE * scale))
    return tuple(int(v) for v in np.unravel_index(flat, scores.shape))


def _slab_max(stack: NDArray[np.float64]) -> NDArray[np.float64]:
    """The maximum over the first axis, slab by slab (faster than ``max(axis=0)`` for small K)."""
    out = stack[0].copy()
    for slab in stack[1:]:
        np.maximum(out, slab, out=out)
    return out


class RegressionStumps(_Presorted):
    """The least-squares regression stump (rule (4)): ``argmin_h sum_n w_n ‖target_n - h(x_n)‖²``.

    Over all features and thresholds (midpoints between consecutive distinct values), with leaf
    values the (weighted) means of the target on each side; for targets of shape (N, K) the K
    outputs share the split. Per call O(N p K) (:class:`_Presorted`). The split maximises
    ``‖S_L‖²/W_L + ‖S - S_L‖²/(W - W_L)`` (the decrease of the squared error; the second numerator
    is expanded as ``‖S‖² - 2 <S, S_L> + ‖S_L‖²`` so that only two reductions over K are made);
    ties (within a relative :data:`NEAR_TIE` of the best gain) go to the first feature, then the
    smallest threshold. Features with one value give no split; if no feature has two values the answer
    is the constant mean.
    """

    def _project(self, target: NDArray[np.float64], weights: NDArray[np.float64] | None) -> Projection:
        left, wl, total, wsum = self._sums(target, weights)
        wr = wsum - wl
        left_sq = np.einsum("kpn,kpn->pn", left, left)  # ‖S_L‖²
        cross = np.einsum("kpn,k->pn", left, total)  # <S, S_L>
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = left_sq / wl + (float(total @ total) - 2.0 * cross + left_sq) / wr
        gain = np.where(self.valid_ & (wl > 0) & (wr > 0), gain, -np.inf)
        multi = target.ndim == 2
        n_outputs = target.shape[1] if multi else 0
        if gain.size == 0 or not np.isfinite(gain.max()):
            value = total / wsum
            hypothesis: Hypothesis = ConstantFunction(
                n_features=self.n_features_, value=_as_tuple(value), n_outputs=n_outputs
            )
            values = np.broadcast_to(value if multi else value[0], target.shape).copy()
        else:
            j, i = _first_near_max(gain, abs(float(gain.max())))
            wl_ji = float(wl[j, i] if wl.ndim == 2 else wl[i])
            left_value = left[:, j, i] / wl_ji
            right_value = (total - left[:, j, i]) / (wsum - wl_ji)
            hypothesis = RegressionStump(
                n_features=self.n_features_,
                feature=j,
                threshold=float(self.thresholds_[j, i]),
                left=_as_tuple(left_value),
                right=_as_tuple(right_value),
                n_outputs=n_outputs,
            )
            if not multi:
                left_value, right_value = left_value[0], right_value[0]
            values = self._split_values(j, i, left_value, right_value, target.shape)
        values.setflags(write=False)
        return Projection(hypothesis, values)


@dataclass(frozen=True)
class MulticlassStump(Hypothesis):
    """A multiclass decision stump as a K-vector ([GB] Thm 2, docs/math.md#functional-edge): the class is
    ``right_class`` if x[feature] > threshold else ``left_class``, and h(x)_k = 1 for that class,
    -1/(K-1) for the others (the constants are [RECONSTRUCTED], of medium confidence;
    they make every row sum to 0, as the paper's zero-mean assumption on the weight rows needs)."""

    feature: int
    threshold: float
    left_class: int
    right_class: int
    n_classes: int

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        above = feature_column(X, self.feature) > self.threshold
        cls = np.where(above, self.right_class, self.left_class)
        out = np.full((X.shape[0], self.n_classes), -1.0 / (self.n_classes - 1))
        out[np.arange(X.shape[0]), cls] = 1.0
        return out

    def describe(self) -> str:
        rule = f"x[{self.feature}] > {self.threshold:.6g}"
        return f"{rule} -> class {self.right_class} (else {self.left_class})"


class MulticlassStumps(_Presorted):
    """Multiclass decision stumps under rule (3): ``argmax_h <target, h>/‖h‖`` (targets (N, K), K >= 2).

    Every h is Thm 2's coding of a stump with one class per side, so ‖h‖ is the same for all and
    ``<target, h> = (K/(K-1)) (S_L[a] + S_R[b]) - (1/(K-1)) sum_k S[k]`` for the classes a (left),
    b (right): the best stump maximises ``max_k S_L[k] + max_k S_R[k]`` over splits, O(N p K) per
    call. Ties (within :data:`NEAR_TIE` times the weighted target's mass ``sum_n |s_n target_n|_1``,
    which bounds every score): first feature, smallest threshold, smallest class index.
    """

    outputs = "multi"

    def _project(self, target: NDArray[np.float64], weights: NDArray[np.float64] | None) -> Projection:
        n_classes = target.shape[1]
        if n_classes < 2:
            raise ValueError(f"target must have K >= 2 columns (classes); got {n_classes}")
        left, _, total, _ = self._sums(target, weights)
        mass = float(np.abs(target if weights is None else target * weights[:, None]).sum())
        score = _slab_max(left) + _slab_max(total[:, None, None] - left)
        score = np.where(self.valid_, score, -np.inf)
        code = np.full(n_classes, -1.0 / (n_classes - 1))
        if score.size == 0 or not np.isfinite(score.max()):
            code[_first_near_max(total, mass)[0]] = 1.0
            hypothesis: Hypothesis = ConstantFunction(
                n_features=self.n_features_, value=_as_tuple(code), n_outputs=n_classes
            )
            values = np.tile(code, (self.n_samples_, 1))
        else:
            j, i = _first_near_max(score, mass)
            left_class = _first_near_max(left[:, j, i], mass)[0]
            right_class = _first_near_max(total - left[:, j, i], mass)[0]
            hypothesis = MulticlassStump(
                n_features=self.n_features_,
                feature=j,
                threshold=float(self.thresholds_[j, i]),
                left_class=left_class,
                right_class=right_class,
                n_classes=n_classes,
            )
            left_code, right_code = code.copy(), code.copy()
            left_code[left_class] = right_code[right_class] = 1.0
            values = self._split_values(j, i, left_code, right_code, target.shape)
        values.setflags(write=False)
        return Projection(hypothesis, values)


# ----------------------------------------------------------------------------- scikit-learn regressors


@dataclass(frozen=True)
class FittedRegressor(Hypothesis):
    """h(x) = estimator.predict(x) for a regressor fitted on a target; ``fingerprint`` digests its
    values on the training set and identifies the hypothesis."""

    fingerprint: str
    estimator: BaseEstimator = field(compare=False, repr=False)

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return np.asarray(self.estimator.predict(X), dtype=np.float64)

    def describe(self) -> str:
        return f"{type(self.estimator).__name__} #{self.fingerprint[:8]}"


class SklearnRegressorOracle(ProjectionOracle):
    """Any scikit-learn regressor as a rule-(4) learner: ``clone(estimator).fit(X, target)``.

    ``sample_weight`` is passed to ``fit`` when given (the estimator must then accept it). A target
    with K columns goes to the estimator as is when it supports several outputs (its
    ``target_tags.multi_output``), else to a :class:`~sklearn.multioutput.MultiOutputRegressor`.
    The fit only approximates the least-squares projection (a regularised model shrinks it); the
    drivers' line coefficient c ([GB] (2)) corrects the scale.

    Parameters
    ----------
    estimator : BaseEstimator
        The scikit-learn regressor, cloned at each projection.
    """

    def __init__(self, estimator: BaseEstimator) -> None:
        if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
            raise ValueError(f"estimator must be a scikit-learn regressor; got {estimator!r}")
        self.estimator = estimator

    def _fit(self, X: Matrix) -> None:
        self.X_ = X

    def _project(self, target: NDArray[np.float64], weights: NDArray[np.float64] | None) -> Projection:
        estimator = clone(self.estimator)
        if target.ndim == 2 and not _multi_output(estimator):
            estimator = MultiOutputRegressor(estimator)
        kwargs = {}
        if weights is not None:
            if not has_fit_parameter(self.estimator, "sample_weight"):
                name = type(self.estimator).__name__
                raise ValueError(f"estimator must accept sample_weight in fit; {name} does not")
            kwargs["sample_weight"] = weights
        estimator.fit(self.X_, target, **kwargs)
        values = np.asarray(estimator.predict(self.X_), dtype=np.float64).reshape(target.shape)
        values.setflags(write=False)
        digest = hashlib.sha1(np.ascontiguousarray(values + 0.0).tobytes()).hexdigest()
        hypothesis = FittedRegressor(n_features=self.n_features_, fingerprint=digest, estimator=estimator)
        return Projection(hypothesis, values)

    def __repr__(self) -> str:
        return f"SklearnRegressorOracle({self.estimator!r})"


def _multi_output(estimator: BaseEstimator) -> bool:
    try:
        return bool(estimator.__sklearn_tags__().target_tags.multi_output)
    except AttributeError:  # pragma: no cover - estimators without tags
        return False


# ----------------------------------------------------------------------------- binary oracles (rule (3))


@dataclass(frozen=True)
class _Signed(Hypothesis):
    """A hypothesis of a wrapped binary oracle (labels kept apart from h)."""

    inner: Hypothesis

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return self.inner._predict(X)

    def describe(self) -> str:
        return self.inner.describe()


class ClassifierProjection(ProjectionOracle):
    """Rule (3) with any binary oracle of the protocol (the weighted classification problem of
    docs/math.md#projection-rules).

    ``project(target)`` asks the oracle for the max-edge hypothesis with labels ``sgn target_n`` and
    weights ``|target_n|``, i.e. the h maximising ``<target, h> = sum_n target_n h(x_n)``. The oracle's
    labels are fixed at ``fit``, so it is fitted once on the doubled sample ``[X; X]`` with labels
    ``[+1; -1]`` and asked with ``d = [max(target, 0); max(-target, 0)]``: then
    ``u . d = sum_n target_n h(x_n)`` exactly. Targets of shape (N,) only; ``sample_weight`` scales
    the target.

    Parameters
    ----------
    oracle : Oracle
        A binary oracle of the protocol.
    """

    outputs = "single"

    def __init__(self, oracle: Oracle) -> None:
        if not isinstance(oracle, Oracle):
            raise ValueError(f"oracle must be a dualboost Oracle (e.g. DecisionStumps()); got {oracle!r}")
        self.oracle = oracle

    def _fit(self, X: Matrix) -> None:
        doubled = sp.vstack([X, X], format="csr") if sp.issparse(X) else np.vstack([X, X])
        labels = np.r_[np.ones(X.shape[0]), -np.ones(X.shape[0])]
        self.oracle_ = copy.deepcopy(self.oracle).fit(doubled, labels)

    def _project(self, target: NDArray[np.float64], weights: NDArray[np.float64] | None) -> Projection:
        if weights is not None:
            target = target * weights
        if not np.any(target):
            raise ValueError("target must not be zero everywhere (there is nothing to project)")
        selection = self.oracle_.best(np.r_[np.maximum(target, 0.0), np.maximum(-target, 0.0)])
        values = np.array(selection.column[: self.n_samples_])  # labels +1 on the first copy: u = h
        values.setflags(write=False)
        return Projection(_Signed(n_features=self.n_features_, inner=selection.hypothesis), values)

    def __repr__(self) -> str:
        return f"ClassifierProjection({self.oracle!r})"
