"""scikit-learn front-ends of generalized gradient boosting ([GB]; :mod:`dualboost.boosting.gradient`).

:class:`GradientProjectionClassifier` (two or more classes) and :class:`GradientProjectionRegressor`
boost a restriction set of weak learners by restricted gradient descent in function space, with
``projection="naive"`` (Alg. 1, Mason et al. / Friedman), ``"repeated"`` (Alg. 2) or ``"residual"``
(Alg. 3, the default: it converges on non-smooth losses where the naive method can stall,
docs/math.md#naive-projection).

Parameters shared by both:

* ``loss``: a name (classifier: ``"auto"`` = ``"logistic"`` for two classes, ``"multiclass_hinge"``
  for more or with a K-output learner such as ``"multiclass_stumps"``; also ``"hinge"``,
  ``"exponential"``, ``"squared"``; regressor: ``"squared"``, ``"absolute"``) or a
  :class:`~dualboost.boosting.gradient.losses.FunctionalLoss` such as a
  :class:`~dualboost.boosting.gradient.losses.CallableLoss`. Binary losses see labels in {-1, +1}
  (``classes_[1]`` is +1); a multiclass loss sees class indices and K outputs;
* ``n_estimators``: the budget of weak learners (Alg. 2 trains t of them in round t);
* ``learning_rate``, ``step``: the step sizes η_t (``"auto"``, ``"constant"``, ``"sqrt"``,
  ``"inverse"`` or a callable; :func:`~dualboost.boosting.gradient.step_schedule`);
* ``learner``: the restriction set: ``"stumps"`` (least-squares regression stumps, any number of
  outputs), ``"multiclass_stumps"`` (multiclass decision stumps, rule (3)), ``"decision_stumps"``
  (binary decision stumps, rule (3), one output), a
  :class:`~dualboost.oracles.regression.ProjectionOracle`, a dualboost binary
  :class:`~dualboost.oracles.Oracle`, a scikit-learn regressor (rule (4)) or a scikit-learn
  classifier taking ``sample_weight`` (rule (3), one output);
* ``tol``: stop when the gradient norm is <= tol.

``fit(X, y, sample_weight=None)`` (both; docs/gradient.md#sample-weights): N non-negative finite weights s
(:func:`~dualboost.estimators.inputs.check_sample_weight`) make the objective the weighted risk
``sum_n s_n l(f(x_n), y_n) / sum_n s_n``, minimised in L²(P̂_s) (the weighted least-squares or weighted
max-edge projection, :func:`~dualboost.boosting.gradient.gradient_projection`). The identities, tested in
tests/estimators/test_gradient_sample_weight.py:

* a weight of 0 is the row removed (the rows are dropped before the learner sees X, so that the stumps'
  thresholds are those of the kept rows);
* equal weights are the unweighted fit, bit for bit (f and every fitted attribute; the two-class
  ``predict_proba`` of a loss without its own link fits Platt's target ``(W+1)/(W+2)`` with W the total
  weight, as for repeated rows);
* integer weights are the rows repeated, for every loss and projection, up to rounding: the copies of an
  example share f(x_n), so the repeated sample's P̂ is P̂_s. This needs a learner whose answer depends on
  the sample only through P̂ and not on rounding: the built-in stumps (which treat near-equal splits as
  ties, :data:`~dualboost.oracles.regression.NEAR_TIE`) and decision stumps are; a scikit-learn learner
  is only as exact as its own ``sample_weight`` (its trees, measured, pick other splits on repeated rows).

Fitted attributes: ``result_`` (:class:`~dualboost.boosting.gradient.GradientBoostResult`),
``history_`` (the common :class:`~dualboost.boosting.History`: ``edge`` = Definition 1's edge,
``primal`` = the training objective), ``estimators_`` and ``estimator_weights_`` (the hypotheses and
their coefficients: f = init_ + sum_i weight_i h_i), ``init_``, ``n_estimators_`` (weak learners
used), ``n_iter_`` (rounds), ``stop_reason_`` (why the run ended: ``"rounds"``, ``"converged"``,
``"no_edge"`` or ``"max_iter"``, :data:`~dualboost.boosting.core.result.STOP_REASONS`), ``objective_``
(the final training objective), ``loss_``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from numbers import Real

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context, clone, is_classifier
from sklearn.metrics import accuracy_score
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from dualboost.boosting.gradient.drivers import PROJECTIONS, STEPS, gradient_projection
from dualboost.boosting.gradient.losses import LOSSES, FunctionalLoss, make_loss
from dualboost.estimators.dask_input import reject_dask_input
from dualboost.estimators.importances import feature_importances
from dualboost.estimators.inputs import positive_rows, uniform_or, validate_features
from dualboost.estimators.params import COUNT, MAX_TIME, POSITIVE
from dualboost.estimators.probability import fit_link_slope, increasing_root, link_probabilities
from dualboost.oracles import Oracle
from dualboost.oracles.registry import make_oracle
from dualboost.oracles.regression import (
    ClassifierProjection,
    MulticlassStumps,
    ProjectionOracle,
    RegressionStumps,
    SklearnRegressorOracle,
)

__all__ = ["GradientProjectionClassifier", "GradientProjectionRegressor", "LEARNERS", "make_learner"]

#: the named restriction sets
LEARNERS = ("stumps", "multiclass_stumps", "decision_stumps")


def make_learner(learner: object) -> ProjectionOracle:
    """A fresh, unfitted :class:`~dualboost.oracles.regression.ProjectionOracle` (module docstring).

    Parameters
    ----------
    learner : str, ProjectionOracle, Oracle or estimator
        A name of :data:`LEARNERS`, a projection oracle (copied), a dualboost oracle or scikit-learn
        classifier (projected), or a scikit-learn regressor (cloned).

    Returns
    -------
    ProjectionOracle
        The unfitted restriction set.
    """
    if isinstance(learner, str) and learner in LEARNERS:
        if learner == "stumps":
            return RegressionStumps()
        if learner == "multiclass_stumps":
            return MulticlassStumps()
        return ClassifierProjection(make_oracle("stumps"))
    if isinstance(learner, ProjectionOracle):
        return copy.deepcopy(learner)
    if isinstance(learner, Oracle) or (isinstance(learner, BaseEstimator) and is_classifier(learner)):
        return ClassifierProjection(make_oracle(learner))
    if isinstance(learner, BaseEstimator) and hasattr(learner, "predict"):
        return SklearnRegressorOracle(clone(learner))
    raise ValueError(
        f"learner must be one of {', '.join(map(repr, LEARNERS))}, a ProjectionOracle, a dualboost Oracle, "
        f"or a scikit-learn regressor or classifier; got {learner!r}"
    )


class _GradientProjection(BaseEstimator):
    """Shared parameters, checks and the call of the driver."""

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(LOSSES)), FunctionalLoss],
        "projection": [StrOptions(set(PROJECTIONS))],
        "n_estimators": COUNT,
        "learning_rate": POSITIVE,
        "step": [StrOptions(set(STEPS)), callable],
        "learner": [StrOptions(set(LEARNERS)), ProjectionOracle, Oracle, HasMethods(["fit", "predict"])],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_time": MAX_TIME,
    }

    def __init__(
        self,
        loss: object = "auto",
        projection: str = "residual",
        n_estimators: int = 100,
        learning_rate: float = 1.0,
        step: object = "auto",
        learner: object = "stumps",
        tol: float = 0.0,
        max_time: float | None = None,
    ) -> None:
        self.loss = loss
        self.projection = projection
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.step = step
        self.learner = learner
        self.tol = tol
        self.max_time = max_time

    def _boost(
        self,
        X,
        targets: NDArray,
        loss: FunctionalLoss,
        n_outputs: int | None,
        init,
        learner: ProjectionOracle,
        weights: NDArray[np.float64] | None = None,
    ) -> None:
        if loss.multiclass and learner.outputs == "single":
            raise ValueError(
                f"learner {self.learner!r} fits one output, but loss {loss.name!r} has one output per "
                "class: use learner='stumps' or 'multiclass_stumps'"
            )
        if not loss.multiclass and learner.outputs == "multi":
            raise ValueError(f"learner {self.learner!r} fits K outputs, but loss {loss.name!r} has one")
        learner.fit(X)
        result = gradient_projection(
            learner,
            targets,
            loss,
            projection=self.projection,
            n_learners=int(self.n_estimators),
            step=self.step,
            learning_rate=self.learning_rate,
            init=init,
            n_outputs=n_outputs,
            tol=self.tol,
            sample_weight=uniform_or(weights),
            max_time=self.max_time,
        )
        self.result_ = result
        self.loss_ = result.loss
        self.history_ = result.history
        self.estimators_ = result.hypotheses
        self.estimator_weights_ = result.coefficients
        self.init_ = result.init
        self.n_estimators_ = result.n_learners
        self.n_iter_ = result.n_rounds
        self.stop_reason_ = result.stop_reason
        self.objective_ = result.objective

    def _raw(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self)
        X = validate_features(self, X, reset=False)
        return self.result_.decision_function(X)

    def _staged_raw(self, X: ArrayLike) -> Iterator[NDArray[np.float64]]:
        """f(X) after each weak learner (f_0 = init_ left out)."""
        check_is_fitted(self)
        X = validate_features(self, X, reset=False)
        stages = self.result_.staged_decision_function(X)
        next(stages)
        yield from stages

    @property
    def feature_importances_(self) -> NDArray[np.float64]:
        """Each weak learner's ``|coefficient|`` (summed over outputs) spread over the features it
        reads (:func:`~dualboost.estimators.importances.feature_importances`), normalised to sum 1."""
        check_is_fitted(self)
        weights = [float(np.abs(np.asarray(c)).sum()) for c in self.estimator_weights_]
        return feature_importances(weights, self.estimators_, self.n_features_in_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class GradientProjectionClassifier(ClassifierMixin, _GradientProjection):
    """Generalized gradient boosting for classification ([GB]; module docstring for the parameters).

    ``decision_function``: f(X) (N,) for two classes with a binary loss (positive: ``classes_[1]``),
    f_1 - f_0 for two classes with a multiclass loss, (N, K) for K > 2 classes.

    Parameters
    ----------
    loss : str or FunctionalLoss, default "auto"
        ``"auto"`` (``"logistic"`` for two classes, ``"multiclass_hinge"`` for more or with a K-output
        learner), ``"hinge"``, ``"exponential"``, ``"squared"``, ``"multiclass_hinge"`` or a
        :class:`~dualboost.boosting.gradient.losses.FunctionalLoss`.
    projection : {"naive", "repeated", "residual"}, default "residual"
        Alg. 1, Alg. 2 or Alg. 3 of [GB] (docs/math.md#naive-projection).
    n_estimators : int, default 100
        The budget of weak learners (Alg. 2 trains t of them in round t).
    learning_rate : float, default 1.0
        The scale of the step sizes η_t.
    step : str or callable, default "auto"
        ``"auto"``, ``"constant"``, ``"sqrt"``, ``"inverse"`` or a callable t -> η_t
        (:func:`~dualboost.boosting.gradient.step_schedule`).
    learner : str, oracle or scikit-learn estimator, default "stumps"
        The restriction set (module docstring): ``"stumps"``, ``"multiclass_stumps"``, ``"decision_stumps"``,
        a :class:`~dualboost.oracles.regression.ProjectionOracle`, a dualboost binary oracle, a scikit-learn
        regressor or a classifier taking ``sample_weight``.
    tol : float, default 0.0
        Stop when the gradient norm is <= tol.
    max_time : float, optional
        A time limit in seconds: the run stops at the first round boundary after it.
    """

    _parameter_constraints = {
        **_GradientProjection._parameter_constraints,
        "loss": [StrOptions({*LOSSES, "auto"}), FunctionalLoss],
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> GradientProjectionClassifier:
        """Boost on (X, y): X dense or sparse (N x p), y with two or more classes; ``sample_weight``:
        N non-negative example weights, the weighted risk (module docstring)."""
        reject_dask_input(self, X, y)
        X, y = validate_features(self, X, y)
        check_classification_targets(y)
        X, y, weights = positive_rows(X, y, sample_weight)
        classes, indices = np.unique(y, return_inverse=True)
        if classes.size < 2:
            kept = " with a positive sample_weight" if sample_weight is not None else ""
            raise ValueError(f"y must contain at least two classes{kept}; got {classes.size} class")
        learner = make_learner(self.learner)
        multi = classes.size > 2 or learner.outputs == "multi"
        default = "multiclass_hinge" if multi else "logistic"
        loss = make_loss(default if isinstance(self.loss, str) and self.loss == "auto" else self.loss)
        if loss.multiclass:
            targets, n_outputs, init = indices, classes.size, None
        elif classes.size == 2:
            targets, n_outputs, init = np.where(indices == 1, 1.0, -1.0), None, 0.0
        else:
            raise ValueError(
                f"loss {loss.name!r} is binary but y has {classes.size} classes: use "
                "loss='multiclass_hinge' (or a multiclass CallableLoss)"
            )
        self.classes_ = classes
        self._boost(X, targets, loss, n_outputs, init, learner, weights)
        self.link_slope_ = self._link_slope(loss, indices, weights)
        return self

    def _link_slope(
        self, loss: FunctionalLoss, indices: NDArray[np.intp], weights: NDArray[np.float64] | None = None
    ) -> float:
        """The slope a of ``predict_proba``: ``expit(a f)`` for two classes, ``softmax(a F)`` for more.

        The logistic loss ``ln(1 + e^{-y f})`` is the negative log-likelihood of ``P(y | x) =
        expit(y f)``: a = 1, the model's own link. The exponential loss ``e^{-y f}`` is minimised in
        expectation by half the log-odds (Friedman, Hastie & Tibshirani 2000, as AdaBoost's
        ``predict_proba``): a = 2. Other losses (hinge, squared, multiclass hinge) have no link: a is
        fitted on the training outputs (two classes: :func:`~dualboost.estimators.probability.fit_link_slope`;
        K classes: the multinomial likelihood of ``softmax(a F)``, a 1-D convex problem whose
        derivative (expected minus observed output) increases in a: its root by Brent's method, to
        1e-12). a > 0 keeps argmax at the largest output, so it agrees with ``predict``. With
        ``weights`` (the positive sample weights of the training rows) both likelihoods are weighted,
        as for the rows repeated."""
        F = self._two_class(self.result_.F)
        if F.ndim == 1:
            if loss.name == "logistic":
                return 1.0
            if loss.name == "exponential":
                return 2.0
            return fit_link_slope(np.where(indices == 1, 1.0, -1.0) * F, weights)
        rows = np.arange(F.shape[0])
        counts = np.ones(F.shape[0]) if weights is None else weights
        observed = float(counts @ F[rows, indices])

        def derivative(a: float) -> float:
            """d/da of the negative log-likelihood: expected minus observed output, increasing in a."""
            return float(counts @ np.sum(softmax(a * F, axis=1) * F, axis=1)) - observed

        return increasing_root(derivative, tol=1e-12)

    def _two_class(self, F: NDArray[np.float64]) -> NDArray[np.float64]:
        """f_1 - f_0 for two classes with a multiclass loss, F otherwise (``decision_function``)."""
        if F.ndim == 2 and self.classes_.size == 2:
            return F[:, 1] - F[:, 0]
        return F

    def _probabilities(self, F: NDArray[np.float64]) -> NDArray[np.float64]:
        if F.ndim == 1:
            return link_probabilities(F, self.link_slope_)
        return softmax(self.link_slope_ * F, axis=1)

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class probabilities through the link of :meth:`_link_slope` (``link_slope_``); argmax is
        :meth:`predict` (ties go to the first class, as there)."""
        return self._probabilities(self.decision_function(X))

    def staged_decision_function(self, X: ArrayLike) -> Iterator[NDArray[np.float64]]:
        """:meth:`decision_function` after each weak learner (the running sum of [GB]'s steps)."""
        for F in self._staged_raw(X):
            yield self._two_class(F)

    def staged_predict(self, X: ArrayLike) -> Iterator[NDArray]:
        """:meth:`predict` after each weak learner."""
        for F in self.staged_decision_function(X):
            yield self.classes_[(F > 0).astype(int)] if F.ndim == 1 else self.classes_[np.argmax(F, axis=1)]

    def staged_predict_proba(self, X: ArrayLike) -> Iterator[NDArray[np.float64]]:
        """:meth:`predict_proba` after each weak learner (with the final ``link_slope_``)."""
        for F in self.staged_decision_function(X):
            yield self._probabilities(F)

    def staged_score(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> Iterator[float]:
        """The accuracy after each weak learner."""
        for prediction in self.staged_predict(X):
            yield float(accuracy_score(y, prediction, sample_weight=sample_weight))

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """f(X) (see the class docstring for the shapes)."""
        return self._two_class(self._raw(X))

    def predict(self, X: ArrayLike) -> NDArray:
        """The class with the largest output (two classes: ``classes_[1]`` where f > 0)."""
        F = self.decision_function(X)
        if F.ndim == 1:
            return self.classes_[(F > 0).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]


class GradientProjectionRegressor(RegressorMixin, _GradientProjection):
    """Generalized gradient boosting for regression ([GB]; module docstring for the parameters).

    ``loss``: ``"squared"`` (default), ``"absolute"`` or a one-output FunctionalLoss; f_0 is the loss's
    best constant (mean, median; 0 for a user loss).

    Parameters
    ----------
    loss : str or FunctionalLoss, default "squared"
        ``"squared"``, ``"absolute"`` or a one-output
        :class:`~dualboost.boosting.gradient.losses.FunctionalLoss`.
    projection : {"naive", "repeated", "residual"}, default "residual"
        Alg. 1, Alg. 2 or Alg. 3 of [GB] (docs/math.md#naive-projection).
    n_estimators : int, default 100
        The budget of weak learners (Alg. 2 trains t of them in round t).
    learning_rate : float, default 1.0
        The scale of the step sizes η_t.
    step : str or callable, default "auto"
        ``"auto"``, ``"constant"``, ``"sqrt"``, ``"inverse"`` or a callable t -> η_t
        (:func:`~dualboost.boosting.gradient.step_schedule`).
    learner : str, oracle or scikit-learn estimator, default "stumps"
        The restriction set (module docstring): ``"stumps"``, ``"multiclass_stumps"``, ``"decision_stumps"``,
        a :class:`~dualboost.oracles.regression.ProjectionOracle`, a dualboost binary oracle, a scikit-learn
        regressor or a classifier taking ``sample_weight``.
    tol : float, default 0.0
        Stop when the gradient norm is <= tol.
    max_time : float, optional
        A time limit in seconds: the run stops at the first round boundary after it.
    """

    def __init__(
        self,
        loss: object = "squared",
        projection: str = "residual",
        n_estimators: int = 100,
        learning_rate: float = 1.0,
        step: object = "auto",
        learner: object = "stumps",
        tol: float = 0.0,
        max_time: float | None = None,
    ) -> None:
        super().__init__(loss, projection, n_estimators, learning_rate, step, learner, tol, max_time)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> GradientProjectionRegressor:
        """Boost on (X, y): X dense or sparse (N x p), y real (N,); ``sample_weight``: N non-negative
        example weights, the weighted risk (f_0 the weighted mean or median; module docstring)."""
        reject_dask_input(self, X, y)
        X, y = validate_features(self, X, y, y_numeric=True)
        X, y, weights = positive_rows(X, np.asarray(y, dtype=np.float64), sample_weight)
        loss = make_loss(self.loss)
        if loss.multiclass:
            raise ValueError(f"loss {loss.name!r} is a multiclass loss; a regressor needs a one-output loss")
        self._boost(X, y, loss, None, None, make_learner(self.learner), weights)
        return self

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """f(X)."""
        return self._raw(X)
