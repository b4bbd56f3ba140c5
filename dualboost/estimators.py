"""scikit-learn front-ends of the drivers in :mod:`dualboost.boosting` (docs/architecture.md#layers).

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
  :mod:`dualboost.boosting.stopping`), the default except for the corrective classifiers, whose
  default is 1000 (their bound is O(1/eps^2) iterations: :data:`CORRECTIVE_MAX_ITER`);
* ``oracle``: the weak learner: ``"stumps"`` (decision stumps), ``"raw"`` (raw features),
  ``"svm"`` (linear-kernel hypotheses), a :class:`~dualboost.oracles.Oracle`, or any scikit-learn
  classifier whose ``fit`` takes ``sample_weight`` (wrapped in
  :class:`~dualboost.oracles.SklearnOracle`);
* ``checkpoint``, ``checkpoint_every``, ``resume``: a file to which ``fit`` saves its state every
  ``checkpoint_every`` iterations, and whether ``fit`` continues a killed run from it
  (:mod:`dualboost.boosting.checkpoint`); None: no checkpoints.

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

import copy
import numbers

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from dualboost._validation import check_scalar
from dualboost.boosting import boost
from dualboost.boosting.checkpoint import DEFAULT_EVERY
from dualboost.boosting.result import combined_decision
from dualboost.oracles import DecisionStumps, LinearKernel, Oracle, RawFeatures, SklearnOracle
from dualboost.oracles._inputs import binary_labels, check_label_vector

__all__ = [
    "LPBoostClassifier",
    "SoftBoostClassifier",
    "ERLPBoostClassifier",
    "BinaryERLPBoostClassifier",
    "CorrectiveERLPBoostClassifier",
    "CorrectiveBinaryERLPBoostClassifier",
    "ORACLES",
    "make_oracle",
    "capping",
    "dask_kind",
    "reject_dask_input",
]

#: the named oracles
ORACLES = {"stumps": DecisionStumps, "raw": RawFeatures, "svm": LinearKernel}


def make_oracle(oracle: object) -> Oracle:
    """A fresh, unfitted oracle from a name of :data:`ORACLES`, an oracle (copied) or a scikit-learn
    classifier taking ``sample_weight`` (cloned and wrapped in :class:`SklearnOracle`)."""
    if isinstance(oracle, str):
        if oracle not in ORACLES:
            raise ValueError(
                f"oracle must be one of {', '.join(map(repr, ORACLES))}, an Oracle or a "
                f"scikit-learn classifier; got {oracle!r}"
            )
        return ORACLES[oracle]()
    if isinstance(oracle, Oracle):
        return copy.deepcopy(oracle)
    if isinstance(oracle, BaseEstimator) and hasattr(oracle, "predict"):
        return SklearnOracle(clone(oracle))
    raise ValueError(
        f"oracle must be one of {', '.join(map(repr, ORACLES))}, an Oracle or a "
        f"scikit-learn classifier; got {oracle!r}"
    )


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


def capping(nu: object, n_samples: int, *, below_one: bool = False) -> float:
    """The model's ``nu`` in [1, N] from the fraction ``nu`` in (0, 1]: ``max(1, nu * N)``
    (docs/math.md#capping-nu). ``below_one``: the binary relative entropy needs ``nu * N < N``, i.e.
    ``nu < 1``."""
    nu = check_scalar(nu, "nu")
    if below_one and not 0.0 < nu < 1.0:
        raise ValueError(f"nu must lie in (0, 1) (the binary entropy needs nu * N < N); got {nu!r}")
    if not 0.0 < nu <= 1.0:
        raise ValueError(f"nu must lie in (0, 1] (a fraction of the training set); got {nu!r}")
    return float(min(max(1.0, nu * n_samples), n_samples))


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
    "dualboost.dask.DaskERLPBoostClassifier, train on row-partitioned dask arrays X and y"
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


def _check_optional_positive(value: object, name: str) -> float | None:
    if value is None:
        return None
    value = check_scalar(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0 or None; got {value!r}")
    return value


class _BoostingClassifier(ClassifierMixin, BaseEstimator):
    """Shared ``fit``/``predict`` of the six classifiers; a subclass names its driver
    (``_algorithm``) and the hyperparameters the driver takes besides nu, eps and max_iter."""

    _algorithm: str = ""
    _binary_entropy: bool = False

    def _loop_params(self, n_samples: int) -> dict:
        """``nu`` (the model's, in [1, N]), ``eps`` and ``max_iter``, checked (each failure a ValueError
        naming the argument)."""
        eps = _check_optional_positive(self.eps, "eps")
        if eps is None:
            raise ValueError("eps must be > 0; got None")
        max_iter = self.max_iter
        if max_iter is not None and (
            isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1
        ):
            raise ValueError(f"max_iter must be a positive integer or None; got {max_iter!r}")
        return {
            "nu": capping(self.nu, n_samples, below_one=self._binary_entropy),
            "eps": eps,
            "max_iter": None if max_iter is None else int(max_iter),
        }

    def _driver_params(self, n_samples: int) -> dict:
        """The driver's keyword arguments, checked (each failure a ValueError naming the argument)."""
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

    def fit(self, X: ArrayLike, y: ArrayLike) -> _BoostingClassifier:
        """Boost the oracle's hypotheses on (X, y): X dense or sparse (N x p), y with two classes.
        Dask input: see the module docstring."""
        if dask_kind(X) is not None or dask_kind(y) is not None:
            why = self._dask_unsupported()
            if why is not None:
                reject_dask_input(self, X, y, why=why)
            from dualboost.dask.estimator import fit_partitioned

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
        predicts ``classes_[0]`` (:func:`~dualboost.boosting.result.combined_decision`). A dask X
        gives a dask array, computed block by block."""
        check_is_fitted(self)
        if dask_kind(X) is not None:
            from dualboost.dask.estimator import dask_decision_function

            return dask_decision_function(self, X)
        return self._block_decision(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """The class of each row of X: ``classes_[1]`` where the decision function is > 0 (a dask
        array for a dask X)."""
        f = self.decision_function(X)
        if dask_kind(f) is not None:
            from dualboost.dask.estimator import dask_predict

            return dask_predict(self, f)
        return self.classes_[(f > 0).astype(int)]

    def margins(self, X: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
        """The margins ``y_n f_w(x_n)`` in [-1, 1] ([KG] Def. 2.2) with y_n = +1 for ``classes_[1]``
        and -1 for ``classes_[0]``; the soft margin is the mean of the ``nu_`` smallest. A dask X gives
        a dask array (block by block; bad labels raise when it is computed); a dask y beside an
        in-memory X is computed."""
        check_is_fitted(self)
        if dask_kind(X) is not None:
            from dualboost.dask.estimator import dask_margins

            return dask_margins(self, X, y)
        if dask_kind(y) is not None:
            y = y.compute()  # N labels, smaller than the in-memory X
        return self._block_margins(self.decision_function(X), y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags


class LPBoostClassifier(_BoostingClassifier):
    """LPBoost ([KG] Alg. 2.1): the soft-margin LP re-solved after every hypothesis.

    ``method``: the LP solver (``"highs"``, the default, or a cvxpy solver name). LPBoost has no
    iteration bound (Thm 2.5): ``max_iter=None`` means 1,000, as in the thesis. See the module
    docstring for the other parameters and the fitted attributes.
    """

    _algorithm = "lpboost"

    def __init__(
        self,
        nu: float = 0.1,
        eps: float = 0.01,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "highs",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume

    def _extra_params(self) -> dict:
        return {"method": self.method}


class SoftBoostClassifier(_BoostingClassifier):
    """SoftBoost ([KG] Alg. 3.1; TotalBoost when nu * N <= 1): relative-entropy projections onto the
    distributions under which every hypothesis so far has edge <= gamma_hat - eps.

    ``method``: the subproblem solver (``"auglag"`` default). ``max_iter=None``: Thm 3.2's bound.
    """

    _algorithm = "softboost"

    def __init__(
        self,
        nu: float = 0.1,
        eps: float = 0.01,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "auglag",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume

    def _extra_params(self) -> dict:
        return {"method": self.method}


class _EntropicClassifier(_BoostingClassifier):
    """The totally corrective entropy-regularised classifiers: eta, criterion and method."""

    def __init__(
        self,
        nu: float = 0.1,
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "auglag",
        criterion: str = "practical",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.eta = eta
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.criterion = criterion
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume

    def _extra_params(self) -> dict:
        return {
            "eta": _check_optional_positive(self.eta, "eta"),
            "method": self.method,
            "criterion": self.criterion,
        }


class ERLPBoostClassifier(_EntropicClassifier):
    """ERLPBoost ([KG] Alg. 3.2): LPBoost regularised by ``(1/eta) Delta(d, d0)``.

    ``eta``: None for the theoretical ``(2/eps) ln(N/nu_)`` (docs/math.md#canonical-eta); ``criterion``:
    ``"practical"`` (default) or ``"simple"`` (docs/math.md#erlpboost-stopping); ``method``: the
    subproblem solver (``"auglag"``, warm-started, default). ``max_iter=None``: Thm 3.12's (or 3.10's)
    bound.
    """

    _algorithm = "erlpboost"

    def _dask_unsupported(self) -> str | None:
        """Dask input trains on the Dask path with decision stumps and the auglag solver, no checkpoint."""
        oracle = self.oracle
        stumps = (isinstance(oracle, str) and oracle == "stumps") or type(oracle) is DecisionStumps
        if stumps and self.method == "auglag" and self.checkpoint is None and not self.resume:
            return None
        given = [f"oracle={self.oracle!r}"] if not stumps else []
        given += [f"method={self.method!r}"] if self.method != "auglag" else []
        given += [f"checkpoint={self.checkpoint!r}"] if self.checkpoint is not None else []
        given += ["resume=True"] if self.resume else []
        return f" with {', '.join(given)}"


class BinaryERLPBoostClassifier(_EntropicClassifier):
    """Binary ERLPBoost ([KG] Alg. 3.3): ERLPBoost with the binary relative entropy, which keeps the
    caps implicit; ``nu`` must be < 1. Theoretical eta ``(2/eps)(ln(N/nu_) + 1)``; bounds Thms 3.21,
    3.23."""

    _algorithm = "binary_erlpboost"
    _binary_entropy = True


#: the corrective classifiers' default cap on the iterations (see :class:`_CorrectiveClassifier`)
CORRECTIVE_MAX_ITER = 1000


class _CorrectiveClassifier(_BoostingClassifier):
    """The corrective classifiers: eta and the step (``method``).

    ``max_iter`` defaults to :data:`CORRECTIVE_MAX_ITER` = 1000, not to the theorem's bound: the
    corrective algorithms need O(ln(N/nu)/eps^2) iterations ([SS] Thm 9, [KG] Sec 4.2: up to
    ``32 eta/eps + 1``, 184,000 for N = 400 at the defaults nu = 0.1, eps = 0.01), each of them cheap
    (one oracle call and an O(N) update, ~0.5 ms at N = 200 with stumps). 1000 iterations end in
    about a second on a few hundred rows and reach most of the accuracy; a run that stops there
    warns (``ConvergenceWarning``). ``max_iter=None`` runs to the theorem's bound.
    """

    def __init__(
        self,
        nu: float = 0.1,
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = CORRECTIVE_MAX_ITER,
        oracle: object = "stumps",
        method: str | None = None,
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.eta = eta
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume

    def _extra_params(self) -> dict:
        return {"eta": _check_optional_positive(self.eta, "eta"), "method": self.method}


class CorrectiveERLPBoostClassifier(_CorrectiveClassifier):
    """Corrective ERLPBoost ([KG] Alg. 4.1): only the newest hypothesis's weight is set per
    iteration; many more, much cheaper iterations than ERLPBoost.

    ``method``: None for the clipped closed-form step of Alg. 4.1(b), or a solver name (e.g.
    ``"auglag"``) for the exact step from the corrective subproblem. ``max_iter``: 1000 by default
    (see :data:`CORRECTIVE_MAX_ITER`); None: the bound ``32 eta/eps + 1``.
    """

    _algorithm = "corrective_erlpboost"


class CorrectiveBinaryERLPBoostClassifier(_CorrectiveClassifier):
    """Corrective Binary ERLPBoost ([KG] Alg. 4.3): the corrective algorithm with the binary relative
    entropy (``nu`` < 1); beta by the root of ``sum d = 1`` (Alg. 4.4)."""

    _algorithm = "corrective_binary_erlpboost"
    _binary_entropy = True
