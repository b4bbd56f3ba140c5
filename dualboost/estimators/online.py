"""scikit-learn / River-style front-ends of the online boosters ([BKL]; docs/math.md#online-boosting).

* :class:`OnlineBBMClassifier`: Online BBM (Alg. 1), N weak online learners, assumed edge gamma;
* :class:`AdaBoostOLClassifier`: AdaBoost.OL (Alg. 2), parameter-free.

Both learn from a stream: ``partial_fit(X, y, classes=None)`` on mini-batches (rows in order),
``learn_one(x, y)`` on single examples (x a dict ``{feature: value}`` or a 1-D array), ``fit``
(a fresh model, ``n_passes`` passes over X in order), and predict with ``predict``,
``decision_function`` and ``predict_one``. Any two class labels (the larger one is positive); for
K > 2 classes, scikit-learn's ``OneVsRestClassifier`` around one of them (docs/online.md#k-classes:
[BKL]'s algorithms and guarantees are binary).

Parameters shared by both:

* ``n_learners``: N, the number of weak online learners;
* ``learner``: the weak online learner: ``"linear"`` (numpy logistic regression with AdaGrad
  steps, vectorized across the N copies; pass e.g. ``OnlineLinear(loss="modified_huber",
  normalized=True, invariant=True)`` for Vowpal Wabbit-like updates), ``"stumps"`` (online
  decision stumps), an :class:`~dualboost.oracles.online.OnlineLearners` bank (copied), or a
  scikit-learn classifier with ``partial_fit(..., sample_weight=...)`` such as ``SGDClassifier``
  (N clones);
* ``weighting``: ``"importance"`` (every example reaches every learner with importance weight p_t^i;
  AdaBoost.OL.W) or ``"sampling"`` (with probability p_t^i; AdaBoost.OL.S),
  docs/math.md#importance-weights;
* ``random_state``: seed of the booster (sampling, Hedge draws); a run is deterministic given it;
* ``verbose``: a progress line on stderr (examples, progressive loss, mean edge, examples/s),
  on a terminal only.

Fitted attributes: ``classes_``, ``n_features_in_``, ``booster_`` (the
:class:`~dualboost.boosting.online.OnlineBooster`), ``n_seen_`` (examples learned),
``progressive_loss_`` (the progressive-validation 0-1 loss: each example is predicted before it is
learned, the paper's tuning protocol), ``edges_`` (gamma_i = w^i.z^i / (2||w^i||_1) per learner),
``history_`` (a :class:`~dualboost.boosting.History` with a row every 1,000 examples and at the end
of each batch: ``iteration`` = examples seen, ``stopping`` = progressive loss, ``edge`` = mean
gamma_i), and for AdaBoost.OL ``alpha_`` and ``hedge_weights_``.
"""

from __future__ import annotations

import math
import sys
from numbers import Real

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from dualboost.boosting.core.history import History, HistoryRow
from dualboost.boosting.core.progress import ProgressLine
from dualboost.boosting.online.drivers import WEIGHTINGS, AdaBoostOL, OnlineBBM, OnlineBooster
from dualboost.estimators.dask_input import reject_dask_input
from dualboost.estimators.inputs import positive_rows, validate_features
from dualboost.estimators.params import COUNT
from dualboost.estimators.probability import ProbabilityLink, fit_link_slope
from dualboost.oracles.online import ONLINE_LEARNERS, OnlineLearners, make_online_learners

__all__ = ["OnlineBBMClassifier", "AdaBoostOLClassifier"]

#: examples between two history rows (and progress updates)
CHECKPOINT = 1000


def _stream_text(row: HistoryRow) -> str:
    """The progress line of a stream: examples seen, progressive loss, mean edge, throughput."""
    rate = row.iteration / row.time if row.time > 0 else math.nan
    return (
        f"examples {row.iteration}  progressive loss {row.stopping:.4f}  mean edge {row.edge:+.4f}  "
        f"{rate:,.0f} ex/s"
    )


class _OnlineBoostingClassifier(ProbabilityLink, ClassifierMixin, BaseEstimator):
    """Shared stream handling; a subclass builds its booster in ``_make_booster``.

    ``sample_weight`` (``fit`` and ``partial_fit``; docs/online.md#sample-weights): importance weights
    (docs/math.md#importance-weights): example t reaches learner i with weight ``s_t p_t^i``
    (sampling: ``s_t`` when drawn), AdaBoost.OL's own updates and the progressive loss count it
    ``s_t`` times. The identities that hold (tests/estimators/test_online.py):

    * ``fit(X, y, sample_weight=s)`` is ``partial_fit(X, y, sample_weight=s)`` on a fresh model,
      ``n_passes`` times, exactly (the same updates in the same order, the same random draws);
    * an example of weight 0 is skipped: exactly the stream without it (it draws no random number);
    * equal weights of 1 are the unweighted stream.

    Not identities: integer weights are not repeated examples. An update of weight 2 is one step of
    twice the size, not two steps in a row (the learners' steps are not linear in the repetitions, and
    the booster's weights p_t^i change between the two copies), and repeated rows are learned at other
    places in the stream than the weighted row. For the same reason other equal weights (say all 2)
    are not the unweighted stream: every step is twice as long. scikit-learn's
    ``check_sample_weight_equivalence_*`` checks, which compare integer weights with repeated and
    shuffled rows, are expected failures (tests/sklearn_checks.py).

    ``predict_proba``: ``expit(a f)`` with the slope a fitted on the progressive predictions, the
    predictions each example got before it was learned (:attr:`link_slope_`)."""

    def _make_booster(self) -> OnlineBooster:
        raise NotImplementedError

    _parameter_constraints: dict = {
        "n_learners": COUNT,
        "learner": [StrOptions(set(ONLINE_LEARNERS)), OnlineLearners, HasMethods(["partial_fit"])],
        "weighting": [StrOptions(set(WEIGHTINGS))],
        "n_passes": COUNT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    # -- set-up -------------------------------------------------------------------------------------

    def _start(self, X, classes: NDArray) -> None:
        """A fresh booster for a stream whose first batch is X (dense or CSR) and labels ``classes``;
        the parameters are checked here, once per stream (``_parameter_constraints``)."""
        self._validate_params()
        self.classes_ = classes
        self.booster_ = self._make_booster()
        self.booster_.start(X.shape[1], X)
        self.history_ = History("progressive validation 0-1 loss")

    @staticmethod
    def _two_classes(classes: ArrayLike, name: str) -> NDArray:
        classes = np.unique(np.asarray(classes))
        if classes.size != 2:
            raise ValueError(
                f"Only binary classification is supported: {name} must contain exactly two classes; got "
                f"{classes.size} class{'es' if classes.size != 1 else ''} "
                f"({', '.join(map(str, classes[:5]))})"
                + (
                    ". The online boosters of [BKL] are binary: for K classes wrap one in scikit-learn's "
                    "OneVsRestClassifier, whose partial_fit streams too (docs/online.md#k-classes)"
                    if classes.size > 2
                    else ""
                )
            )
        return classes

    def _labels(self, y: NDArray) -> NDArray[np.intp]:
        """y as -1/+1 (``classes_[1]`` is +1); labels outside ``classes_`` raise."""
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(
                f"y holds labels that are not in classes_ {list(self.classes_)}: {y[unknown][:3]}"
            )
        return np.where(y == self.classes_[1], 1, -1)

    # -- learning -----------------------------------------------------------------------------------

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> _OnlineBoostingClassifier:
        """A fresh model learned on the rows of X in order (``n_passes`` times).

        ``sample_weight``: importance weights, one per row (class docstring): the fit is exactly
        ``partial_fit(X, y, sample_weight=sample_weight)`` on a fresh model, ``n_passes`` times; rows
        of weight 0 are skipped (the classes are those of the other rows). Integer weights are not
        repeated rows (class docstring)."""
        reject_dask_input(self, X, y)
        X, y = validate_features(self, X, y)
        check_classification_targets(y)
        X, y, weights = positive_rows(X, y, sample_weight)
        self._vocabulary = {}
        self._start(X, self._two_classes(y, "y" if sample_weight is None else "y (rows of positive weight)"))
        for _ in range(self.n_passes):
            self._learn(X, y, weights)
        return self

    def partial_fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> _OnlineBoostingClassifier:
        """Learn the rows of X in order. On the first call ``classes`` gives the two labels (default:
        the classes of this y, which must then hold both); ``sample_weight``: importance weights."""
        reject_dask_input(self, X, y, why=" (partial_fit: pass row blocks one by one, X.blocks[i].compute())")
        first = not hasattr(self, "booster_")
        X, y = validate_features(self, X, y, reset=first)
        check_classification_targets(y)
        X, y, weights = positive_rows(X, y, sample_weight)
        if first:
            self._start(
                X, self._two_classes(y if classes is None else classes, "y" if classes is None else "classes")
            )
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes must equal classes_ {list(self.classes_)} after the first call; got {classes!r}"
            )
        self._learn(X, y, weights)
        return self

    def _learn(self, X, y: NDArray, weights: NDArray[np.float64] | None = None) -> None:
        labels = self._labels(y)
        progress = ProgressLine(bool(self.verbose) and sys.stderr.isatty(), _stream_text)

        def record(row: HistoryRow) -> None:
            self.history_.append(row)
            progress(row)

        try:
            self.booster_.learn_many(
                X.tocsr() if sp.issparse(X) else X, labels, callback=record, every=CHECKPOINT, weights=weights
            )
        finally:
            progress.close()
        if self.booster_.n_seen % CHECKPOINT:
            self.history_.append(self.booster_.row())

    # -- River-style single examples -----------------------------------------------------------------

    def _row(self, x: object, *, learning: bool) -> tuple[NDArray[np.intp], NDArray[np.float64], int]:
        """A dict ``{feature: value}`` or 1-D array as sparse (indices, values) and the feature count.

        Dict keys are column indices (int) or names: ``feature_names_in_`` once fitted on a
        DataFrame, else names met so far in ``learn_one`` (new names add features when learning).
        """
        n = getattr(self, "n_features_in_", 0)
        if isinstance(x, dict):
            indices, values = [], []
            names = getattr(self, "feature_names_in_", None)
            vocabulary = getattr(self, "_vocabulary", {})
            if names is not None and not vocabulary:
                vocabulary.update({name: j for j, name in enumerate(names)})
            for key, value in x.items():
                if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and not vocabulary:
                    j = int(key)
                    if j < 0 or (n and j >= n and not learning):
                        raise ValueError(f"x has feature index {j} outside [0, {n})")
                elif key in vocabulary:
                    j = vocabulary[key]
                elif learning:
                    j = vocabulary[key] = max(n, len(vocabulary))
                else:
                    continue  # an unseen feature of a prediction: its weight is 0
                indices.append(j)
                values.append(value)
            self._vocabulary = vocabulary
            vals = np.asarray(values, dtype=np.float64)
            if not np.all(np.isfinite(vals)):
                raise ValueError("x must be finite (no NaN or inf)")
            idx = np.asarray(indices, dtype=np.intp)
            return idx, vals, max(n, int(idx.max()) + 1 if idx.size else 0, len(vocabulary))
        arr = np.asarray(x, dtype=np.float64)
        if arr.ndim != 1:
            raise ValueError(f"x must be a dict or a 1-D array; got shape {arr.shape}")
        if n and arr.size != n:
            raise ValueError(f"x has {arr.size} features, but {type(self).__name__} expects {n}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("x must be finite (no NaN or inf)")
        idx = np.flatnonzero(arr)
        return idx, arr[idx], max(n, arr.size)

    def learn_one(
        self, x: dict | ArrayLike, y: object, classes: ArrayLike | None = None
    ) -> _OnlineBoostingClassifier:
        """Learn one example (River style). Before any learning, the two labels come from
        ``classes`` (or are inferred from a bool / 0-1 / -1+1 label)."""
        idx, vals, n = self._row(x, learning=True)
        if n == 0:
            raise ValueError("x must have at least one feature")
        if not hasattr(self, "booster_"):
            if classes is None:
                if isinstance(y, (bool, np.bool_)):
                    classes = [False, True]
                elif y in (0, 1):
                    classes = [0, 1]
                elif y == -1:
                    classes = [-1, 1]
                else:
                    raise ValueError(
                        f"classes must be given to the first learn_one (or partial_fit) call: the two labels "
                        f"cannot be inferred from y = {y!r}"
                    )
            self._start(np.zeros((1, n)), self._two_classes(classes, "classes"))
            self.n_features_in_ = n
        elif n > self.n_features_in_:
            self.booster_.learners.grow(n)
            self.n_features_in_ = n
        row = sp.csr_matrix((vals, idx, [0, idx.size]), shape=(1, self.n_features_in_))
        self.booster_.learn_many(
            row, self._labels(np.asarray([y])), callback=self.history_.append, every=CHECKPOINT
        )
        return self

    def predict_one(self, x: dict | ArrayLike) -> object:
        """The predicted label of one example (River style)."""
        check_is_fitted(self)
        idx, vals, _ = self._row(x, learning=False)
        row = sp.csr_matrix((vals, idx, [0, idx.size]), shape=(1, self.n_features_in_))
        return self.classes_[int(self.booster_.decision_function(row)[0] > 0)]

    # -- prediction ---------------------------------------------------------------------------------

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """The booster's vote in [-1, 1] with the learners' current state; > 0 predicts ``classes_[1]``.

        Online BBM: (1/N) sum_i WL^i(x). AdaBoost.OL: the Hedge-weighted vote of the N experts
        sign(sum_{j<=i} alpha^j WL^j(x)) (the deterministic counterpart of Alg. 2's random draw).
        """
        check_is_fitted(self)
        X = validate_features(self, X, reset=False)
        return self.booster_.decision_function(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """``classes_[1]`` where the decision function is > 0, else ``classes_[0]``."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    # -- fitted quantities ----------------------------------------------------------------------------

    @property
    def n_seen_(self) -> int:
        return self.booster_.n_seen

    @property
    def progressive_loss_(self) -> float:
        return self.booster_.progressive_loss

    @property
    def edges_(self) -> NDArray[np.float64]:
        return self.booster_.edges

    @property
    def link_slope_(self) -> float:
        """The slope a of ``predict_proba = expit(a f)``:
        :func:`~dualboost.estimators.probability.fit_link_slope`
        on the progressive predictions (each in {-1, +1}, made before the example was learned): with M
        mistakes among W examples (both by importance weight) and Platt's target t = (W + 1)/(W + 2),
        ``a = logit((t (W - M) + (1 - t) M) / W)``, so a vote of f = +-1 gets the accuracy the stream
        measured for its predictions (the training examples are never predicted after they were
        learned). No extra state: the progressive mistakes and the example count suffice."""
        check_is_fitted(self)
        mistakes, seen = float(self.booster_.mistakes), float(self.booster_.weight_seen)
        return fit_link_slope(np.array([1.0, -1.0]), np.array([seen - mistakes, mistakes]))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags


class OnlineBBMClassifier(_OnlineBoostingClassifier):
    """Online boost-by-majority ([BKL] Alg. 1; docs/math.md#online-bbm) as a streaming classifier.

    ``gamma`` in (0, 1): the edge assumed of the weak learners (potentials with p = ½ + gamma/2;
    Vowpal Wabbit's ``--gamma g`` is gamma = 2g). The prediction is the unweighted majority vote;
    example t reaches learner i with p_t^i = w_t^i / ||w^i||_inf, w_t^i the binomial weight (5).
    See the module docstring for the other parameters and the fitted attributes.

    Parameters
    ----------
    n_learners : int, default 10
        N, the number of weak online learners.
    gamma : float, default 0.2
        In (0, 1): the edge assumed of the weak learners.
    learner : str, OnlineLearners or classifier, default "linear"
        ``"linear"`` (logistic regression with AdaGrad steps, vectorised across the N copies), ``"stumps"``
        (online decision stumps), an :class:`~dualboost.oracles.online.OnlineLearners` bank (copied), or a
        scikit-learn classifier with ``partial_fit(..., sample_weight=...)`` (N clones).
    weighting : {"importance", "sampling"}, default "importance"
        Every example reaches every learner with importance weight p_t^i (AdaBoost.OL.W), or with probability
        p_t^i (AdaBoost.OL.S); docs/math.md#importance-weights.
    n_passes : int, default 1
        Passes over X in order in ``fit``.
    random_state : int, optional
        The seed of the booster (sampling, Hedge draws); a run is deterministic given it.
    verbose : bool, default False
        A progress line on stderr (on a terminal only).
    """

    _parameter_constraints = {
        **_OnlineBoostingClassifier._parameter_constraints,
        "gamma": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(
        self,
        n_learners: int = 10,
        gamma: float = 0.2,
        learner: object = "linear",
        weighting: str = "importance",
        n_passes: int = 1,
        random_state: int | None = None,
        verbose: bool = False,
    ) -> None:
        self.n_learners = n_learners
        self.gamma = gamma
        self.learner = learner
        self.weighting = weighting
        self.n_passes = n_passes
        self.random_state = random_state
        self.verbose = verbose

    def _make_booster(self) -> OnlineBooster:
        return OnlineBBM(
            make_online_learners(self.learner), self.n_learners, self.gamma, self.weighting, self.random_state
        )


class AdaBoostOLClassifier(_OnlineBoostingClassifier):
    """AdaBoost.OL ([BKL] Alg. 2; docs/math.md#adaboostol) as a streaming classifier: parameter-free.

    Logistic weights w = 1/(1 + e^{s}), learner weights alpha in [-2, 2] by online gradient steps
    4/sqrt(t), Hedge over the N partial sums. ``weighting="sampling"`` is AdaBoost.OL.S. Extra
    fitted attributes: ``alpha_`` and ``hedge_weights_`` (v, summing to one). See the module
    docstring for the other parameters.

    Parameters
    ----------
    n_learners : int, default 10
        N, the number of weak online learners.
    learner : str, OnlineLearners or classifier, default "linear"
        ``"linear"`` (logistic regression with AdaGrad steps, vectorised across the N copies), ``"stumps"``
        (online decision stumps), an :class:`~dualboost.oracles.online.OnlineLearners` bank (copied), or a
        scikit-learn classifier with ``partial_fit(..., sample_weight=...)`` (N clones).
    weighting : {"importance", "sampling"}, default "importance"
        Every example reaches every learner with importance weight p_t^i (AdaBoost.OL.W), or with probability
        p_t^i (AdaBoost.OL.S); docs/math.md#importance-weights.
    n_passes : int, default 1
        Passes over X in order in ``fit``.
    random_state : int, optional
        The seed of the booster (sampling, Hedge draws); a run is deterministic given it.
    verbose : bool, default False
        A progress line on stderr (on a terminal only).
    """

    def __init__(
        self,
        n_learners: int = 10,
        learner: object = "linear",
        weighting: str = "importance",
        n_passes: int = 1,
        random_state: int | None = None,
        verbose: bool = False,
    ) -> None:
        self.n_learners = n_learners
        self.learner = learner
        self.weighting = weighting
        self.n_passes = n_passes
        self.random_state = random_state
        self.verbose = verbose

    def _make_booster(self) -> OnlineBooster:
        return AdaBoostOL(
            make_online_learners(self.learner), self.n_learners, self.weighting, self.random_state
        )

    @property
    def alpha_(self) -> NDArray[np.float64]:
        return self.booster_.alpha.copy()

    @property
    def hedge_weights_(self) -> NDArray[np.float64]:
        return self.booster_.v
