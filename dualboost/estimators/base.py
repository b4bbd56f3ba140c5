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
  can have margin below the soft margin);
* ``eps``: the precision of the booster (the stop guarantees a soft margin within eps of the best
  one of the hypothesis class, [KG] Lemmas 3.3, 3.5);
* ``max_iter``: a cap on the iterations; None: the theorem's bound (module
  :mod:`dualboost.boosting.core.stopping`), the default except for the corrective classifiers, whose
  default is 1000 (their bound is O(1/eps^2) iterations: :data:`CORRECTIVE_MAX_ITER`);
* ``oracle``: the weak learner: ``"stumps"`` (decision stumps), ``"raw"`` (raw features),
  ``"svm"`` (linear-kernel hypotheses), a :class:`~dualboost.oracles.Oracle`, or any scikit-learn
  classifier whose ``fit`` takes ``sample_weight`` (wrapped in
  :class:`~dualboost.oracles.SklearnOracle`);
* ``checkpoint``, ``checkpoint_every``, ``resume``: a file to which ``fit`` saves its state every
  ``checkpoint_every`` iterations, and whether ``fit`` continues a killed run from it
  (:mod:`dualboost.boosting.core.checkpoint`); None: no checkpoints.

Dask: :class:`ERLPBoostClassifier` with ``oracle="stumps"`` and ``method="auglag"`` (no checkpoint) fits
a row-chunked ``dask.array`` X and y on the Dask path (:func:`dualboost.dask.fit_dask_erlpboost`, on the
default ``dask.distributed`` client, in-process without one) to the same fitted attributes as on the
numpy arrays; every other configuration raises a ValueError for dask input (:func:`reject_dask_input`)
instead of computing it. ``decision_function``, ``predict`` and ``margins`` of a dask X return dask arrays
computed block by block, whatever data the model was fitted on. Dask is imported only for dask input.

Fitted attributes: ``classes_`` (any two labels; the larger one is the positive class),
``n_iter_`` (iterations, i.e. oracle calls), ``hypotheses_`` and ``estimator_weights_`` (w in the
simplex), ``history_`` (:class:`~dualboost.boosting.History`), ``nu_`` (the capping in [1, N]),
``converged_``, and ``eta_`` for the entropy-regularised ones.
"""

from __future__ import annotations

import os
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from dualboost._validation import binary_labels, check_label_vector, check_scalar
from dualboost.boosting import boost
from dualboost.boosting.core.result import combined_decision
from dualboost.oracles import Oracle
from dualboost.oracles.registry import ORACLES, make_oracle
from dualboost.solvers import METHODS

__all__ = [
    "BoostingClassifier",
    "binary_training_data",
    "nu_count",
    "check_nu_fraction",
    "NU_FRACTION",
    "NU_FRACTION_BELOW_ONE",
    "POSITIVE",
    "COUNT",
    "ORACLE",
    "METHOD",
    "dask_kind",
    "reject_dask_input",
    "DASK_FIT",
]


def binary_training_data(estimator: BaseEstimator, X: ArrayLike, y: ArrayLike) -> tuple:
    """``(X, labels, classes)`` for ``estimator.fit``: X validated by scikit-learn (dense float64 or
    CSR/CSC; ``n_features_in_`` set), y with exactly two classes (else a ValueError saying so),
    ``labels`` in {-1, +1} with ``classes[1]`` as +1."""
    X, y = validate_data(estimator, X, y, accept_sparse=("csr", "csc"), dtype=np.float64)
    check_classification_targets(y)
    n_classes = np.unique(y).size
    if n_classes != 2:
        raise ValueError(
            "Only binary classification is supported: y must contain exactly two classes; got "
            f"{n_classes} class{'es' if n_classes != 1 else ''}"
        )
    labels, classes = binary_labels(y, X.shape[0], "y")
    return X, labels, classes


# --- parameters (docs/architecture.md#parameters) ----------------------------------------------
#: scikit-learn's declarative constraints of the parameters the estimators share (each estimator's
#: ``_parameter_constraints``, checked once at the start of ``fit`` with a ValueError naming the
#: parameter): nu as a fraction of the training set, in (0, 1] (or (0, 1) for the binary entropy)
NU_FRACTION = [Interval(Real, 0, 1, closed="right")]
NU_FRACTION_BELOW_ONE = [Interval(Real, 0, 1, closed="neither")]
#: a real > 0 (eps, eta, learning rates) and a count >= 1 (iterations, learners, passes)
POSITIVE = [Interval(Real, 0, None, closed="neither")]
COUNT = [Interval(Integral, 1, None, closed="left")]
#: a solve method of the registry (whether it applies to the model is the registry's ``accepts``)
METHOD = [StrOptions(set(METHODS))]
#: the weak learner: a name of ``ORACLES``, an Oracle or a scikit-learn classifier
ORACLE = [StrOptions(set(ORACLES)), Oracle, HasMethods(["fit", "predict"])]


def check_nu_fraction(nu: object, *, below_one: bool = False) -> float:
    """nu as a fraction of the training set in (0, 1] (``below_one``: in (0, 1), as the binary
    relative entropy needs ``nu * N < N``), for a caller without ``_parameter_constraints`` (the CLI)."""
    nu = check_scalar(nu, "nu")
    if below_one and not 0.0 < nu < 1.0:
        raise ValueError(f"nu must lie in (0, 1) (the binary entropy needs nu * N < N); got {nu!r}")
    if not 0.0 < nu <= 1.0:
        raise ValueError(f"nu must lie in (0, 1] (a fraction of the training set); got {nu!r}")
    return nu


def nu_count(nu_fraction: float, n_samples: int) -> float:
    """The count nu in [1, N] of models and drivers from the fraction in (0, 1] of estimators and the
    CLI (checked there): ``max(1, nu_fraction * N)`` (docs/math.md#capping-nu)."""
    return float(min(max(1.0, nu_fraction * n_samples), n_samples))


def dask_kind(x: object) -> str | None:
    """``"array"`` if ``x`` is a ``dask.array``, ``"collection"`` for another Dask collection (a Dask
    DataFrame, Bag, Delayed), None otherwise. Imports no Dask module: a Dask object's type comes from
    a module that is loaded already (:func:`dualboost.dask.is_dask_array`)."""
    module = type(x).__module__
    if not module.startswith(("dask.", "dask_expr.")) or not hasattr(x, "__dask_graph__"):
        return None
    from dualboost.dask.data import is_dask_array  # lazily: dualboost.dask imports this module

    return "array" if is_dask_array(x) else "collection"


#: what trains on dask input, for the error messages
DASK_FIT = (
    "only ERLPBoostClassifier(oracle='stumps', method='auglag') without checkpoint, and "
    "dualboost.estimators.dask.DaskERLPBoostClassifier, train on row-partitioned dask arrays X and y"
)


def reject_dask_input(estimator: object, X: object, y: object = None, *, why: str = "") -> None:
    """Raise a ValueError if X or y is a Dask collection, for an estimator (or a configuration: ``why``)
    that trains in memory only: the message names the dask input, says what runs on Dask and how to
    proceed (``X.compute()`` when X fits in memory). Nothing is computed."""
    kinds = {name: dask_kind(value) for name, value in (("X", X), ("y", y))}
    found = [name for name, kind in kinds.items() if kind is not None]
    if not found:
        return
    arrays = all(kinds[name] == "array" for name in found)
    what = " and ".join(found) + (" are " if len(found) == 2 else " is a ")
    what += ("dask array" if arrays else "Dask collection") + ("s" if len(found) == 2 else "")
    raise ValueError(
        f"X and y must be in-memory arrays for {type(estimator).__name__}{why}; {what}. On Dask, {DASK_FIT}"
        f"{'' if arrays else ' (a Dask DataFrame: X.to_dask_array(lengths=True))'}. If X fits in memory, "
        "pass X.compute() (and y.compute()); nothing was computed."
    )


class BoostingClassifier(ClassifierMixin, BaseEstimator):
    """Shared ``fit``/``predict`` of the six classifiers; a subclass names its driver
    (``_algorithm``) and the hyperparameters the driver takes besides nu, eps and max_iter."""

    _algorithm: str = ""
    _parameter_constraints: dict = {
        "nu": NU_FRACTION,
        "eps": POSITIVE,
        "max_iter": [*COUNT, None],
        "oracle": ORACLE,
        "checkpoint": [str, os.PathLike, None],
        "checkpoint_every": COUNT,
        "resume": ["boolean"],
    }

    def _loop_params(self, n_samples: int) -> dict:
        """``nu`` (the count, in [1, N]), ``eps`` and ``max_iter`` (the parameters were checked by
        ``_parameter_constraints`` when ``fit`` began)."""
        return {
            "nu": nu_count(self.nu, n_samples),
            "eps": float(self.eps),
            "max_iter": None if self.max_iter is None else int(self.max_iter),
        }

    def _driver_params(self, n_samples: int) -> dict:
        """The driver's keyword arguments."""
        params = self._loop_params(n_samples) | {
            "checkpoint": self.checkpoint,
            "checkpoint_every": self.checkpoint_every,
            "resume": self.resume,
        }
        return params | self._extra_params()

    def _extra_params(self) -> dict:
        return {}

    def _dask_unsupported(self) -> str | None:
        """None if this configuration trains on dask arrays, else the ``why`` of :func:`reject_dask_input`."""
        return ""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike) -> BoostingClassifier:
        """Boost the oracle's hypotheses on (X, y): X dense or sparse (N x p), y with two classes.
        Dask input: see the module docstring."""
        if dask_kind(X) is not None or dask_kind(y) is not None:
            why = self._dask_unsupported()
            if why is not None:
                reject_dask_input(self, X, y, why=why)
            from dualboost.estimators.dask import fit_partitioned

            fit_partitioned(self, X, y)
            return self
        X, labels, classes = binary_training_data(self, X, y)
        params = self._driver_params(X.shape[0])
        oracle = make_oracle(self.oracle).fit(X, labels)
        self._store(boost(self._algorithm, oracle, **params), classes)
        return self

    def _store(self, result, classes: NDArray) -> None:
        """The fitted attributes every boosting classifier has, from a driver's result."""
        self.classes_ = classes
        self.hypotheses_ = result.hypotheses
        self.estimator_weights_ = result.weights
        self.history_ = result.history
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.nu_ = result.params["nu"]
        if "eta" in result.params:
            self.eta_ = result.params["eta"]

    def _block_decision(self, X: ArrayLike) -> NDArray[np.float64]:
        """The decision function of an in-memory X (the whole X, or one row block of a dask X)."""
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        if sp.issparse(X):
            X = X.tocsc()  # hypotheses read single features
        return combined_decision(self.estimator_weights_, self.hypotheses_, X)

    def _block_margins(self, f: NDArray[np.float64], y: ArrayLike) -> NDArray[np.float64]:
        """``y_n f_n`` with y_n = +1 for ``classes_[1]``, -1 for ``classes_[0]`` (checked)."""
        y = check_label_vector(np.asarray(y), f.size)
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(
                f"y holds labels that are not in classes_ {list(self.classes_)}: {y[unknown][:3]}"
            )
        return np.where(y == self.classes_[1], 1.0, -1.0) * f

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f_w(X) = sum_q w_q h^q(X)`` in [-1, 1]; positive values predict ``classes_[1]``, and
        values within 1e-9 of 0 (cancelling weights at a degenerate optimum) are exactly 0, a tie that
        predicts ``classes_[0]`` (:func:`~dualboost.boosting.core.result.combined_decision`). A dask X
        gives a dask array, computed block by block."""
        check_is_fitted(self)
        if dask_kind(X) is not None:
            from dualboost.estimators.dask import dask_decision_function

            return dask_decision_function(self, X)
        return self._block_decision(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """The class of each row of X: ``classes_[1]`` where the decision function is > 0 (a dask
        array for a dask X)."""
        f = self.decision_function(X)
        if dask_kind(f) is not None:
            from dualboost.estimators.dask import dask_predict

            return dask_predict(self, f)
        return self.classes_[(f > 0).astype(int)]

    def margins(self, X: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """The margins ``y_n f_w(x_n)`` in [-1, 1] ([KG] Def. 2.2) with y_n = +1 for ``classes_[1]``
        and -1 for ``classes_[0]``; the soft margin is the mean of the ``nu_`` smallest. A dask X gives
        a dask array (block by block; bad labels raise when it is computed); a dask y beside an
        in-memory X is computed."""
        check_is_fitted(self)
        if dask_kind(X) is not None:
            from dualboost.estimators.dask import dask_margins

            return dask_margins(self, X, y)
        if dask_kind(y) is not None:
            y = y.compute()  # N labels, smaller than the in-memory X
        return self._block_margins(self.decision_function(X), y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags
