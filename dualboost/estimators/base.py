"""The shared base of the classifiers of [KG]: :class:`BoostingClassifier`, and the helpers of every
estimator family of the package (labels, the capping, Dask input).

Six binary classifiers, one per algorithm of [KG]: :class:`LPBoostClassifier` (Alg. 2.1),
:class:`SoftBoostClassifier` (Alg. 3.1), :class:`ERLPBoostClassifier` (Alg. 3.2),
:class:`BinaryERLPBoostClassifier` (Alg. 3.3), :class:`CorrectiveERLPBoostClassifier` (Alg. 4.1) and
:class:`CorrectiveBinaryERLPBoostClassifier` (Alg. 4.3). They follow the scikit-learn conventions
(parameters stored as given and checked in ``fit``; fitted attributes end in ``_``) and pass
``sklearn.utils.estimator_checks``.

Parameters shared by all:

* ``nu``: the capping as a fraction of the training set in (0, 1], as ``NuSVC`` takes it: the
  models get ``nu_ = max(1, nu * N)`` (docs/math.md#capping-nu), so ``d_n <= 1/nu_``. ``nu * N <= 1``
  is the hard margin; larger values tolerate more noise (at most a fraction ``nu`` of the examples
  can have margin below the soft margin). The default ``"auto"`` chooses the fraction by validation
  (:mod:`dualboost.estimators.nu_selection`, docs/boosting.md#the-default-nuauto): a stratified
  holdout of 25 % of the rows scores a descending grid from :func:`auto_nu` (``AUTO_NU_SHARE *
  2 min(N+, N-) / N``, the largest capping worth trying) down, stopping early, and the classifier is
  refitted on all rows at the best fraction; a given nu is fitted once, as it is. Fitted:
  ``nu_fraction_`` (the fraction used) and ``nu_selection_`` (how it was chosen: a
  :class:`~dualboost.estimators.nu_selection.NuSelection`);
* ``eps``: the precision of the booster (the stop guarantees a soft margin within eps of the best
  one of the hypothesis class, [KG] Lemmas 3.3, 3.5);
* ``max_iter``: a cap on the iterations; None: the theorem's bound (module
  :mod:`dualboost.boosting.core.stopping`), the default except for the corrective classifiers, whose
  default is 1000 (their bound is O(1/eps^2) iterations: :data:`CORRECTIVE_MAX_ITER`);
* ``oracle``: the weak learner: ``"stumps"`` (decision stumps), ``"raw"`` (raw features),
  ``"svm"`` (linear-kernel hypotheses), a :class:`~dualboost.oracles.Oracle`, or any scikit-learn
  classifier whose ``fit`` takes ``sample_weight`` (wrapped in
  :class:`~dualboost.oracles.SklearnOracle`);
* ``max_time``: a time limit in seconds (None: none) for each boosting run of ``fit``: the run stops
  at the first iteration boundary after it with the certified result of that iteration and
  ``stop_reason_ = "time limit"`` (:class:`~dualboost.boosting.core.options.RunOptions`; ``nu="auto"``
  validates several nu, each a run of its own).
* ``checkpoint``, ``checkpoint_every``, ``resume``: a file to which ``fit`` saves its state every
  ``checkpoint_every`` iterations, and whether ``fit`` continues a killed run from it
  (:mod:`dualboost.boosting.core.checkpoint`); None: no checkpoints.

Dask: :class:`ERLPBoostClassifier` with ``oracle="stumps"`` and ``method="auglag"`` (no checkpoint) fits
a row-chunked ``dask.array`` X and y on the Dask path (:func:`dualboost.dask.fit_dask_erlpboost`, on the
default ``dask.distributed`` client, in-process without one) to the same fitted attributes as on the
numpy arrays; every other configuration raises a ValueError for dask input (:func:`reject_dask_input`)
instead of computing it. ``decision_function``, ``predict`` and ``margins`` of a dask X return dask arrays
computed block by block, whatever data the model was fitted on. Dask is imported only for dask input.

``sample_weight`` in ``fit`` (checked by :func:`check_sample_weight`: finite, non-negative, not all
zero): a row of weight 0 is removed before anything is fitted (for every model below the example
then never enters an edge: d_n = 0), and equal positive weights are the unweighted fit. Otherwise,
with ``p = w / sum w`` over the kept rows and ``nu_`` counted on them:

* ERLPBoost, Binary ERLPBoost, SoftBoost and the corrective classifiers: p is the prior d0 of the
  relative entropy (and d^0); the caps stay ``d_n <= 1/nu_`` for every example, so a weight moves an
  example's prior mass, not its cap (the binary entropy needs every ``p_n < 1/nu_``); the canonical
  eta uses ``ln(1/(nu_ min p))`` in place of ``ln(N/nu_)``
  (:func:`~dualboost.problems.erlpboost.prior_eta`). Integer weights equal repeated
  rows only where the caps do not bind (the hard margin nu_ = 1) and the smallest positive weight is
  1; not for the binary entropies;
* LPBoost: no prior (only its support survives the LP limit), so the weights act through
  per-example caps ``d_n <= p_n N / nu_``: the LP of the repeated rows (same optimal soft margin;
  LP optima are not unique, so the solution may differ);
* the MABoost family (:mod:`~dualboost.estimators.maboost`): the first distribution d_1 = p (integer
  weights are repeated rows for the entropy regulariser and MadaBoost).

Fitted attributes: ``classes_`` (any two labels; the larger one is the positive class),
``n_iter_`` (iterations, i.e. oracle calls), ``hypotheses_`` and ``estimator_weights_`` (w in the
simplex), ``history_`` (:class:`~dualboost.boosting.History`), ``nu_`` (the capping in [1, N]),
``converged_``, ``stop_reason_`` (why the run ended: a word of
:data:`~dualboost.boosting.core.result.STOP_REASONS`), ``class_prior_`` (the fraction of each class in
the training data, sample-weighted; a tie f = 0 predicts the larger, :mod:`dualboost.estimators.ties`),
and ``eta_`` for the entropy-regularised ones; ``estimators_`` (scikit-learn's name of
``hypotheses_``), ``feature_importances_``, ``stages_`` (the weights of every iteration, for
``staged_decision_function``, ``staged_predict``, ``staged_predict_proba``, ``staged_score``) and
``link_slope_`` (``predict_proba = expit(link_slope_ * f)``,
:func:`~dualboost.estimators.probability.fit_link_slope`), and ``result_`` (the driver's
:class:`~dualboost.boosting.BoostResult`: its time split into oracle and solver, the stop's detail;
not written to a model file).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.metrics import accuracy_score
from sklearn.utils.validation import check_is_fitted

from dualboost._validation import binary_labels, check_label_vector
from dualboost.boosting import boost
from dualboost.boosting.algorithms import method_reason
from dualboost.boosting.core.history import HistoryRow
from dualboost.boosting.core.result import combined_decision, staged_decisions
from dualboost.estimators.dask_input import dask_kind, reject_dask_input
from dualboost.estimators.importances import feature_importances
from dualboost.estimators.inputs import (
    labelled_data,
    uniform_or,
    validate_features,
)
from dualboost.estimators.model_file import ModelFile
from dualboost.estimators.multiclass import example_margins, multiclass_oracle, pair_weights, staged_votes
from dualboost.estimators.nu_selection import NuSelection, estimator_scores, select_nu
from dualboost.estimators.params import (
    COUNT,
    MAX_TIME,
    NU,
    ORACLE,
    POSITIVE,
    auto_nu,
    nu_count,
)
from dualboost.estimators.probability import ProbabilityLink, fit_link_slope, fit_softmax_slope
from dualboost.estimators.ties import class_prior, predicted_classes
from dualboost.oracles import Oracle
from dualboost.oracles.multiclass import PairCoding, class_votes
from dualboost.oracles.registry import make_oracle

__all__ = ["BoostingClassifier", "n_votes"]


def n_votes(estimator: BaseEstimator) -> int | None:
    """K for a classifier fitted on K > 2 classes (its decision is a vote per class), else None.

    Parameters
    ----------
    estimator : BaseEstimator
        A fitted classifier (with ``classes_``).

    Returns
    -------
    int or None
        The number of classes K when K > 2, else None.
    """
    return len(estimator.classes_) if len(estimator.classes_) > 2 else None


class BoostingClassifier(ModelFile, ProbabilityLink, ClassifierMixin, BaseEstimator):
    """Shared ``fit``/``predict`` of the six classifiers; a subclass names its driver
    (``_algorithm``) and the hyperparameters the driver takes besides nu, eps and max_iter; fitted, it
    is saved and loaded by ``save(path)`` / ``load(path)`` (:class:`ModelFile`)."""

    _algorithm: str = ""
    _parameter_constraints: dict = {
        "nu": NU,
        "eps": POSITIVE,
        "max_iter": [*COUNT, None],
        "oracle": ORACLE,
        "checkpoint": [str, os.PathLike, None],
        "checkpoint_every": COUNT,
        "resume": ["boolean"],
        "max_time": MAX_TIME,
    }
    #: whether the model is a binary relative entropy (its prior must stay below the cap 1/nu_)
    _binary_entropy: bool = False
    #: whether ``fit`` takes K > 2 classes (:meth:`_fit_votes`, docs/boosting.md#multiclass)
    _multiclass: bool = True

    def _choose_nu(self, X, labels: NDArray[np.float64], weights: NDArray[np.float64] | None) -> None:
        """``nu_selection_`` (a :class:`~dualboost.estimators.nu_selection.NuSelection`) and
        ``nu_fraction_`` (the fraction the fit uses) for the training rows: a given fraction as it is,
        ``"auto"`` chosen by validation (:func:`~dualboost.estimators.nu_selection.select_nu` along
        the grid below :meth:`_auto_top`; ``weights``: the non-uniform sample weights or None). Nothing
        for a model without a capping."""
        if "nu" not in self._parameter_constraints:
            return
        if isinstance(self.nu, str):
            scores = estimator_scores(self, X, labels, weights)
            self.nu_selection_ = select_nu(labels, self._auto_top(labels, weights), scores, weights=weights)
        else:
            self.nu_selection_ = NuSelection("given", float(self.nu))
        self.nu_fraction_ = self.nu_selection_.fraction

    def _auto_top(self, labels: ArrayLike, weights: NDArray[np.float64] | None) -> float:
        """The largest fraction ``nu="auto"`` searches: :func:`auto_nu`; for the binary entropy with
        sample weights at most ``1 / (4 N max p)`` (p the normalised weights), so that the cap stays at
        least twice the largest prior mass on the validation split's training part too."""
        top = auto_nu(labels)
        if self._binary_entropy and weights is not None:
            top = min(top, 0.25 * float(weights.sum() / weights.max()) / weights.size)
        return top

    def _nu_count(self, labels: ArrayLike) -> float:
        """The count ``nu_`` in [1, N] of ``nu_fraction_`` (set by :meth:`_choose_nu`) for the N
        training ``labels``."""
        return nu_count(self.nu_fraction_, int(labels.shape[0]))

    def _loop_params(self, labels: ArrayLike) -> dict:
        """``nu`` (the count, in [1, N], of the training ``labels``), ``eps`` and ``max_iter`` (the
        parameters were checked by ``_parameter_constraints`` when ``fit`` began)."""
        return {
            "nu": self._nu_count(labels),
            "eps": float(self.eps),
            "max_iter": None if self.max_iter is None else int(self.max_iter),
        }

    def _driver_params(self, labels: ArrayLike) -> dict:
        """The driver's keyword arguments for the training ``labels``."""
        params = self._loop_params(labels) | {
            "checkpoint": self.checkpoint,
            "checkpoint_every": self.checkpoint_every,
            "resume": self.resume,
            "keep_stages": True,
            "max_time": self.max_time,
        }
        return params | self._extra_params()

    def _extra_params(self) -> dict:
        return {}

    def _weight_params(self, weights: NDArray[np.float64], nu: float) -> dict:
        """The driver's arguments for non-uniform ``sample_weight`` (positive, one per kept row; ``nu``
        the count nu_): the prior ``d0 = weights / sum(weights)`` of the entropy models. The caps stay
        ``d_n <= 1/nu_`` for every example whatever its weight (the conjugates' capped entropies
        have one cap), so a weight moves an example's prior mass, not its cap; the binary entropy
        needs every ``d0_n < 1/nu_`` (``nu="auto"`` searches below it: :meth:`_auto_top`)."""
        d0 = weights / weights.sum()
        if self._binary_entropy and nu * float(d0.max()) >= 1.0:
            raise ValueError(
                f"sample_weight gives an example the prior mass {float(d0.max()):.4g}, at or above the cap "
                f"1/nu_ = {1.0 / nu:.4g}: the binary relative entropy needs every normalised weight below "
                "the cap (lower nu, or the largest weights)"
            )
        return {"d0": d0}

    def _selection_weights(self, weights: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
        """The sample weights that ``nu="auto"`` validates with (the non-uniform ones of ``fit``)."""
        return weights

    def _dask_unsupported(self) -> str | None:
        """None if this configuration trains on dask arrays, else the ``why`` of :func:`reject_dask_input`."""
        return ""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        callback: Callable[[HistoryRow], object] | None = None,
    ) -> BoostingClassifier:
        """Boost the oracle's hypotheses on (X, y): X dense or sparse (N x p), y with two or more
        classes (docs/boosting.md#multiclass).

        ``sample_weight``: N non-negative finite weights (module docstring: what they mean for each
        model); rows of weight 0 are removed, equal weights are the unweighted fit. ``callback``:
        called with each iteration's :class:`~dualboost.boosting.core.history.HistoryRow` as the run
        goes (a progress line, a log: ``dualboost boost`` passes its own); the validation fits of
        ``nu="auto"`` call nothing. Dask input: see the module docstring (neither argument).

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The training rows (a row-chunked dask array on the Dask path, module docstring).
        y : array_like, shape (N,)
            Two or more classes.
        sample_weight : array_like of shape (N,), optional
            Non-negative finite weights.
        callback : callable, optional
            Called with each iteration's HistoryRow.

        Returns
        -------
        BoostingClassifier
            self, fitted.
        """
        if dask_kind(X) is not None or dask_kind(y) is not None:
            if sample_weight is not None or callback is not None:
                raise ValueError(
                    f"{'sample_weight' if sample_weight is not None else 'callback'} is not supported for "
                    "dask input (the Dask fit has a uniform prior and reports nothing as it runs); fit an "
                    "in-memory X to use it"
                )
            why = self._dask_unsupported()
            if why is not None:
                reject_dask_input(self, X, y, why=why)
            from dualboost.estimators.dask import fit_partitioned

            fit_partitioned(self, X, y)
            return self
        reason = method_reason(self._algorithm, getattr(self, "method", None))
        if reason is not None:  # before the data are read, as dualboost boost (the driver's reason)
            raise ValueError(reason)
        X, y, weights = labelled_data(self, X, y, sample_weight)
        classes, indices = np.unique(y, return_inverse=True)
        if classes.size > 2:
            self._fit_votes(X, indices.ravel(), classes, weights, callback)
        else:
            self._fit_two(X, *binary_labels(y, X.shape[0], "y"), weights, callback)
        return self

    def _fit_two(
        self, X, labels: NDArray[np.float64], classes: NDArray, weights: NDArray[np.float64] | None, callback
    ) -> None:
        """``fit`` on two classes (``labels`` in {-1, +1}, ``classes[1]`` as +1)."""
        self._run(X, labels, classes, weights, make_oracle(self.oracle).fit(X, labels), callback=callback)

    def _fit_votes(
        self, X, labels: NDArray[np.intp], classes: NDArray, weights: NDArray[np.float64] | None, callback
    ) -> None:
        """``fit`` on K > 2 classes (``labels``: class indices into ``classes``): the same driver over
        the (example, wrong class) pairs with class-valued stumps, nu a fraction of the pairs, and
        the softmax link of the votes (:mod:`~dualboost.estimators.multiclass`)."""
        oracle = multiclass_oracle(self.oracle, classes.size).fit(X, labels)
        self._run(X, labels, classes, weights, oracle, pairs=oracle.coding_, callback=callback)
        votes = class_votes(self.estimator_weights_, self.hypotheses_, X, classes.size)
        self.link_slope_ = fit_softmax_slope(votes, labels, weights)

    def _run(
        self,
        X,
        labels: NDArray,
        classes: NDArray,
        weights: NDArray[np.float64] | None,
        oracle: Oracle,
        pairs: PairCoding | None = None,
        callback: Callable[[HistoryRow], object] | None = None,
    ) -> None:
        """nu, the driver's parameters and prior, the run of the fitted ``oracle`` and the fitted
        attributes; ``pairs``: the (example, wrong class) pairs that are the model's examples for
        K > 2 classes (each example's sample weight spread over its pairs), None for two classes;
        ``callback``: the driver's (:meth:`fit`)."""
        weighted = uniform_or(weights)
        self._choose_nu(X, labels, self._selection_weights(weighted))
        params = self._driver_params(labels if pairs is None else pairs.rows)  # (their number is read)
        if weighted is not None:
            prior = weighted if pairs is None else pair_weights(weighted, pairs)
            params |= self._weight_params(prior, params.get("nu"))
        if pairs is not None and "weights" in params:  # the example weights of a formulation
            params["weights"] = params["weights"][pairs.rows]
        if callback is not None:
            params["callback"] = callback
        self._store(boost(self._algorithm, oracle, **params), classes, labels, weights)

    def _store(
        self, result, classes: NDArray, labels: ArrayLike, weights: NDArray[np.float64] | None = None
    ) -> None:
        """The fitted attributes every boosting classifier has, from a driver's result; ``labels``:
        the training labels (for ``class_prior_``, the tie rule of :mod:`dualboost.estimators.ties`);
        ``weights``: the positive sample weights of the training rows (None: unweighted), for the
        class prior and the link of ``predict_proba``
        (:func:`~dualboost.estimators.probability.fit_link_slope` on the result's training margins)."""
        self.classes_ = classes
        self.class_prior_ = class_prior(labels, weights)
        self.hypotheses_ = result.hypotheses
        self.estimator_weights_ = result.weights
        self.history_ = result.history
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.stop_reason_ = result.stop_reason
        for name in ("nu", "eta"):  # (AdaBoost has neither, the formulations no eta)
            if name in result.params:
                setattr(self, f"{name}_", result.params[name])
        self.stages_ = result.stages
        self.result_ = result
        if classes.size == 2:  # (K > 2 classes: the softmax's slope, set by _fit_votes)
            margins = np.asarray(result.margins, dtype=np.float64) if result.weights.size else np.zeros(0)
            self.link_slope_ = fit_link_slope(margins, weights)

    @property
    def estimators_(self) -> list:
        """scikit-learn's name of ``hypotheses_`` (the members of the ensemble, in order)."""
        return self.hypotheses_

    @property
    def feature_importances_(self) -> NDArray[np.float64]:
        """Each hypothesis's weight spread over the features it reads
        (:func:`~dualboost.estimators.importances.feature_importances`:
        a stump or raw feature gives all of its weight to its feature, a scikit-learn member by its
        own ``feature_importances_``), normalised to sum 1 (``n_features_in_`` values)."""
        check_is_fitted(self)
        return feature_importances(self.estimator_weights_, self.hypotheses_, self.n_features_in_)

    # -- staged predictions ------------------------------------------------------------------------

    def staged_decision_function(self, X: ArrayLike) -> Iterator[NDArray[np.float64]]:
        """The decision function of every stage: after each iteration of the run, the output weights
        it had then (``stages_``, :class:`~dualboost.boosting.core.result.Stages`).

        Totally corrective algorithms: the certified solution ``w^t`` of iteration t's restricted
        problem (LPBoost, ERLPBoost, Binary ERLPBoost: every iteration that solved; SoftBoost: its
        normalised dual iterates, and the final LP when the run ended infeasible). Corrective and
        MABoost algorithms: the running weights (normalised). The last stage is the fitted model:
        it equals :meth:`decision_function` (to rounding).

        Memory (``stages_.nbytes``, measured on german.numer, N = 1,000, stumps, nu = 0.1, eps =
        0.01): LPBoost 204 stages, 1,771 nonzeros, 24.5 kB (dense w^t of growing size: 167 kB);
        ERLPBoost 138 stages, 9,577 nonzeros (its w^t are nearly dense), 117 kB (dense: 77 kB);
        corrective ERLPBoost 1,000 stages, one update each, 28 kB. Each hypothesis is evaluated on
        X once (an N x T float64 cache while the generator runs).

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.

        Yields
        ------
        ndarray
            The decision function after each iteration.
        """
        check_is_fitted(self)
        if getattr(self, "stages_", None) is None:
            raise ValueError(
                f"{type(self).__name__} kept no stages: a fit resumed from a checkpoint (or a model file "
                "of an earlier version) has none; refit without resume for staged predictions"
            )
        X = validate_features(self, X, reset=False)
        if sp.issparse(X):
            X = X.tocsc()
        if n_votes(self) is not None:
            yield from staged_votes(self.stages_, self.hypotheses_, X, n_votes(self))
        else:
            yield from staged_decisions(self.stages_, self.hypotheses_, X)

    def staged_predict(self, X: ArrayLike) -> Iterator[NDArray]:
        """The predictions of every stage (:meth:`staged_decision_function`; as :meth:`predict`).

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.

        Yields
        ------
        ndarray, shape (N,)
            The classes after each iteration.
        """
        for f in self.staged_decision_function(X):
            yield predicted_classes(f, self.classes_, getattr(self, "class_prior_", None))

    def staged_predict_proba(self, X: ArrayLike) -> Iterator[NDArray[np.float64]]:
        """``predict_proba`` of every stage, with the final model's link slope ``link_slope_``.

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.

        Yields
        ------
        ndarray, shape (N, K)
            The probabilities after each iteration.
        """
        for f in self.staged_decision_function(X):
            yield self._probabilities(f)

    def staged_score(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> Iterator[float]:
        """The accuracy of every stage on (X, y) (as :meth:`score`).

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.
        y : array_like, shape (N,)
            Their labels.
        sample_weight : array_like of shape (N,), optional
            Weights of the rows.

        Yields
        ------
        float
            The accuracy after each iteration.
        """
        for prediction in self.staged_predict(X):
            yield float(accuracy_score(y, prediction, sample_weight=sample_weight))

    def _block_decision(self, X: ArrayLike) -> NDArray[np.float64]:
        """The decision function of an in-memory X (the whole X, or one row block of a dask X)."""
        X = validate_features(self, X, reset=False)
        if sp.issparse(X):
            X = X.tocsc()  # hypotheses read single features
        if n_votes(self) is not None:
            return class_votes(self.estimator_weights_, self.hypotheses_, X, n_votes(self))
        return combined_decision(self.estimator_weights_, self.hypotheses_, X)

    def _block_margins(self, f: NDArray[np.float64], y: ArrayLike) -> NDArray[np.float64]:
        """``y_n f_n`` with y_n = +1 for ``classes_[1]``, -1 for ``classes_[0]`` (checked); for K > 2
        classes the votes' margins ``F_y - max_(k != y) F_k``."""
        y = check_label_vector(np.asarray(y), f.shape[0])
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(
                f"y holds labels that are not in classes_ {list(self.classes_)}: {y[unknown][:3]}"
            )
        if n_votes(self) is not None:
            return example_margins(f, np.searchsorted(self.classes_, y))
        return np.where(y == self.classes_[1], 1.0, -1.0) * f

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f_w(X) = sum_q w_q h^q(X)`` in [-1, 1]; positive values predict ``classes_[1]``, and
        values within 1e-9 of 0 (cancelling weights at a degenerate optimum) are exactly 0, a tie that
        predicts the training majority (:func:`~dualboost.boosting.core.result.combined_decision`,
        :mod:`dualboost.estimators.ties`). A dask X
        gives a dask array, computed block by block.

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.

        Returns
        -------
        ndarray, shape (N,) or (N, K)
            f_w(X) (K votes for K > 2 classes).
        """
        check_is_fitted(self)
        if dask_kind(X) is not None:
            from dualboost.estimators.dask import dask_decision_function

            return dask_decision_function(self, X)
        return self._block_decision(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """The class of each row of X: ``classes_[1]`` where the decision function is > 0,
        ``classes_[0]`` where it is < 0, and at a tie f = 0 the class of the larger ``class_prior_``
        (:func:`~dualboost.estimators.ties.classes_by_sign`; a dask array for a dask X); for K > 2
        classes the class of the largest vote (:func:`~dualboost.estimators.ties.votes_to_classes`).

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.

        Returns
        -------
        ndarray, shape (N,)
            The classes.
        """
        f = self.decision_function(X)
        if dask_kind(f) is not None:
            from dualboost.estimators.dask import dask_predict

            return dask_predict(self, f)
        return predicted_classes(f, self.classes_, getattr(self, "class_prior_", None))

    def margins(self, X: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """The margins ``y_n f_w(x_n)`` in [-1, 1] ([KG] Def. 2.2) with y_n = +1 for ``classes_[1]``
        and -1 for ``classes_[0]``; the soft margin is the mean of the ``nu_`` smallest. A dask X gives
        a dask array (block by block; bad labels raise when it is computed); a dask y beside an
        in-memory X is computed.

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.
        y : array_like, shape (N,)
            Their labels.

        Returns
        -------
        ndarray, shape (N,)
            The margins.
        """
        check_is_fitted(self)
        if dask_kind(X) is not None:
            from dualboost.estimators.dask import dask_margins

            return dask_margins(self, X, y)
        if dask_kind(y) is not None:
            y = y.compute()  # N labels, smaller than the in-memory X
        return self._block_margins(self.decision_function(X), y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self._multiclass
        tags.input_tags.sparse = True
        return tags
