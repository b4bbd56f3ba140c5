"""scikit-learn front-ends of the MABoost family ([NP], :mod:`dualboost.boosting.maboost`).

* :class:`MABoostClassifier`: MABoost (Alg. 1) with ``regulariser`` (``"entropy"``, ``"euclidean"`` or a
  conjugate-library function with ``L``), ``update`` (``"active"``, or ``"lazy"`` for LAMABoost,
  docs/math.md#lamaboost) and ``projection`` (``"simplex"``, ``"capped"`` for smooth MABoost, Thm 3, or
  ``"mixed"`` for a primary and a secondary data set, docs/math.md#mixed-projection-set: pass
  ``fit(X, y, secondary=mask)``);
* :class:`SparseBoostClassifier`: SparseBoost (Alg. 2, Thm 4);
* :class:`MadaBoostClassifier`: the MadaBoost variant (Alg. 3, Thm 5).

They share ``decision_function``, ``predict``, ``margins`` and the tags of the classifiers in
:mod:`dualboost.estimators`, K > 2 classes included: the mirror descent then runs over the
(example, wrong class) pairs with class-valued stumps, as every classifier of docs/boosting.md#multiclass
(the pairs are the examples of [NP]'s algorithms: ``nu`` caps a fraction of the pairs, ``d_`` is a
distribution over them, the pairs of a ``secondary`` example are secondary). ``training_error_`` and
``bound_`` then count pairs: an example is misclassified only if one of its K - 1 pairs has a margin
<= 0, so the fraction of misclassified examples is at most ``(K - 1) * training_error_``.

The capping is a fraction ``nu`` in (0, 1] as there (docs/math.md#capping-nu): the projection set
caps ``d_n <= 1/nu_`` with ``nu_ = max(1, nu * N)``, i.e. [NP]'s smoothness ``k = N / nu_ ~ 1/nu``,
and the target training error of smooth MABoost is
``1/k ~ nu``.

Fitted attributes: ``classes_``, ``hypotheses_``, ``estimator_weights_`` (eta normalised to the
simplex), ``history_`` (the common :class:`~dualboost.boosting.History`: edge, FTRL primal and dual
values, the theorem's bound on the training error as ``stopping``), ``n_iter_``, ``converged_``
(the bound certified a training error below ``nu_/N``), ``nu_``, ``training_error_`` and ``bound_``
(per round), ``d_`` (the last distribution over the training examples) and ``result_`` (the driver's
:class:`~dualboost.boosting.maboost.MABoostResult`).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from dualboost._validation import binary_labels
from dualboost.boosting.maboost.drivers import (
    STEPS,
    THRESHOLDS,
    UPDATES,
    MABoostResult,
    maboost,
    madaboost,
    sparseboost,
)
from dualboost.boosting.maboost.geometry import REGULARISERS, Regulariser
from dualboost.conjugates import ConvexFunction
from dualboost.estimators.base import BoostingClassifier
from dualboost.estimators.dask_input import reject_dask_input
from dualboost.estimators.inputs import labelled_data, uniform_or
from dualboost.estimators.multiclass import multiclass_oracle, pair_weights
from dualboost.estimators.params import (
    COUNT,
    MAX_TIME,
    NU_FRACTION,
    ORACLE,
    POSITIVE,
    nu_count,
    shared_parameters,
)
from dualboost.estimators.probability import fit_softmax_slope
from dualboost.oracles.multiclass import class_votes
from dualboost.oracles.registry import make_oracle

__all__ = ["MABoostClassifier", "SparseBoostClassifier", "MadaBoostClassifier", "PROJECTIONS"]

#: the projection sets of :class:`MABoostClassifier`
PROJECTIONS = ("simplex", "capped", "mixed")


class _MirrorBoostingClassifier(BoostingClassifier):
    """``fit`` for the MABoost family: validate, fit the oracle, run the driver, store the result.

    ``sample_weight`` (module docstring): the first distribution ``d_1 = w / sum w`` of the mirror
    descent (rows of weight 0 removed), ``d0`` of the drivers."""

    def _boost(
        self, oracle, n_samples: int, secondary: ArrayLike | None, max_iter: int, **options
    ) -> MABoostResult:
        raise NotImplementedError

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        secondary: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> _MirrorBoostingClassifier:
        """Boost on (X, y): X dense or sparse (N x p), y with two or more classes (K > 2: over the
        (example, wrong class) pairs, docs/boosting.md#multiclass); ``secondary`` (only with
        ``projection="mixed"``): a boolean mask of the secondary examples,
        docs/math.md#mixed-projection-set (with K > 2 classes an example's pairs are secondary with it);
        ``sample_weight``: N non-negative weights, the first distribution (module docstring)."""
        reject_dask_input(self, X, y)
        if secondary is not None and sample_weight is not None:
            secondary = np.asarray(secondary)
            if secondary.ndim == 1 and secondary.size == len(sample_weight):
                secondary = secondary[np.asarray(sample_weight) > 0]
        X, y, weights = labelled_data(self, X, y, sample_weight)
        classes, indices = np.unique(y, return_inverse=True)
        weighted = uniform_or(weights)
        if classes.size == 2:
            labels, classes = binary_labels(y, X.shape[0], "y")
            oracle, prior = make_oracle(self.oracle).fit(X, labels), weighted
        else:
            labels = indices.ravel()
            oracle = multiclass_oracle(self.oracle, classes.size).fit(X, labels)
            prior = None if weighted is None else pair_weights(weighted, oracle.coding_)
            if secondary is not None and np.ndim(secondary) == 1 and len(secondary) == labels.size:
                secondary = np.asarray(secondary)[oracle.coding_.rows]
        options = {"keep_stages": True, "d0": None if prior is None else prior / prior.sum()}
        options["max_time"] = self.max_time
        result = self._boost(oracle, oracle.n_samples_, secondary, int(self.max_iter), **options)
        self._store(result, classes, labels, weights)
        if classes.size > 2:
            votes = class_votes(self.estimator_weights_, self.hypotheses_, X, classes.size)
            self.link_slope_ = fit_softmax_slope(votes, labels, weights)
        self.training_error_ = result.training_error
        self.bound_ = result.bound
        self.d_ = result.d
        self.result_ = result
        return self


@shared_parameters
class MABoostClassifier(_MirrorBoostingClassifier):
    """MABoost ([NP] Alg. 1); LAMABoost is ``update="lazy"``; smooth MABoost ``projection="capped"``.

    ``regulariser``: ``"entropy"`` (AdaBoost with step gamma_t, bound (9)), ``"euclidean"`` (projected
    gradient, bound (8)) or a conjugate-library function (then ``L``, the bound on the squared dual
    norm of a column, is required). ``update``: ``"active"`` or ``"lazy"``. ``projection``:
    ``"simplex"``, ``"capped"`` (``d_n <= 1/nu_``) or ``"mixed"`` (the cap on the examples marked by
    ``fit(..., secondary=mask)`` only). ``nu``: the capping fraction (module docstring; unused with
    the simplex). ``step``: ``"theory"`` (``gamma/L``) or ``"max_margin"`` (``gamma/(L sqrt t)``, Thm 2).
    ``max_iter``: rounds (the run stops earlier when the bound certifies a training error below
    ``nu_/N``).

    Parameters
    ----------
    regulariser : str or ConvexFunction, default "entropy"
        ``"entropy"`` (AdaBoost with step gamma_t, bound (9)), ``"euclidean"`` (projected gradient, bound (8))
        or a conjugate-library function (then ``L`` is required).
    update : {"active", "lazy"}, default "active"
        ``"lazy"`` is LAMABoost.
    projection : {"simplex", "capped", "mixed"}, default "simplex"
        ``"capped"``: ``d_n <= 1/nu_``; ``"mixed"``: the cap on the examples marked by ``fit(...,
        secondary=mask)`` only.
    nu : float, default 0.1
        The capping fraction (module docstring; unused with the simplex).
    step : {"theory", "max_margin"}, default "theory"
        ``gamma/L`` or ``gamma/(L sqrt t)`` (Thm 2).
    L : float, optional
        The bound on the squared dual norm of a column (required for a conjugate-library regulariser).
    max_iter : int, default 100
        Rounds (the run stops earlier when the bound certifies a training error below ``nu_/N``).
    """

    _parameter_constraints = {
        "regulariser": [StrOptions(set(REGULARISERS)), Regulariser, ConvexFunction],
        "update": [StrOptions(set(UPDATES))],
        "projection": [StrOptions(set(PROJECTIONS))],
        "nu": NU_FRACTION,
        "step": [StrOptions(set(STEPS))],
        "L": [*POSITIVE, None],
        "max_iter": COUNT,
        "oracle": ORACLE,
        "max_time": MAX_TIME,
    }

    def __init__(
        self,
        regulariser: object = "entropy",
        update: str = "active",
        projection: str = "simplex",
        nu: float = 0.1,
        step: str = "theory",
        L: float | None = None,
        max_iter: int = 100,
        oracle: object = "stumps",
        max_time: float | None = None,
    ) -> None:
        self.regulariser = regulariser
        self.update = update
        self.projection = projection
        self.nu = nu
        self.step = step
        self.L = L
        self.max_iter = max_iter
        self.oracle = oracle
        self.max_time = max_time

    def _boost(self, oracle, n_samples, secondary, max_iter, **options) -> MABoostResult:
        if (secondary is not None) != (self.projection == "mixed"):
            raise ValueError(
                "secondary (a boolean mask passed to fit) is required with projection='mixed' "
                "and only allowed with it"
            )
        nu = 1.0 if self.projection == "simplex" else nu_count(self.nu, n_samples)
        if secondary is not None:
            secondary = np.asarray(secondary)
            if secondary.dtype != bool:
                raise ValueError(f"secondary must be a boolean mask; got dtype {secondary.dtype}")
        return maboost(
            oracle,
            regulariser=self.regulariser,
            update=self.update,
            nu=nu,
            secondary=secondary,
            step=self.step,
            L=self.L,
            max_iter=max_iter,
            **options,
        )


@shared_parameters
class SparseBoostClassifier(_MirrorBoostingClassifier):
    """SparseBoost ([NP] Alg. 2): quadratic MABoost whose projection is preceded by an l1-shrunk
    projection onto the hypercube, so the distribution ``d_`` may have zeros (``result_.support``).

    ``alpha`` in [0, 1]: ``alpha_t = alpha gamma_t / 2`` (Thm 4); ``threshold``: ``"literal"`` or
    ``"half"`` (:func:`~dualboost.boosting.maboost.sparseboost`).

    Parameters
    ----------
    alpha : float, default 0.5
        In [0, 1]: ``alpha_t = alpha gamma_t / 2`` (Thm 4).
    threshold : {"literal", "half"}, default "literal"
        The shrinkage threshold (:func:`~dualboost.boosting.maboost.sparseboost`).
    max_iter : int, default 100
        Rounds (the run stops earlier when the bound certifies a training error below ``nu_/N``).
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, 1, closed="both")],
        "threshold": [StrOptions(set(THRESHOLDS))],
        "max_iter": COUNT,
        "oracle": ORACLE,
        "max_time": MAX_TIME,
    }

    def __init__(
        self,
        alpha: float = 0.5,
        threshold: str = "literal",
        max_iter: int = 100,
        oracle: object = "stumps",
        max_time: float | None = None,
    ) -> None:
        self.alpha = alpha
        self.threshold = threshold
        self.max_iter = max_iter
        self.oracle = oracle
        self.max_time = max_time

    def _boost(self, oracle, n_samples, secondary, max_iter, **options) -> MABoostResult:
        if secondary is not None:
            raise ValueError("secondary is only used by MABoostClassifier(projection='mixed')")
        return sparseboost(oracle, alpha=self.alpha, threshold=self.threshold, max_iter=max_iter, **options)


@shared_parameters
class MadaBoostClassifier(_MirrorBoostingClassifier):
    """The MadaBoost variant of [NP] (Alg. 3): weights ``min(1, e^{-margin})``, step
    ``eta_t = eps_t gamma_t`` with ``step="previous"`` (eps from the ensemble before the round, the
    default) or ``"fixed_point"`` (docs/math.md#madaboost-step).

    Parameters
    ----------
    step : {"previous", "fixed_point"}, default "previous"
        eps from the ensemble before the round, or the fixed point (docs/math.md#madaboost-step).
    max_iter : int, default 100
        Rounds (the run stops earlier when the bound certifies a training error below ``nu_/N``).
    """

    _parameter_constraints = {
        "step": [StrOptions({"previous", "fixed_point"})],
        "max_iter": COUNT,
        "oracle": ORACLE,
        "max_time": MAX_TIME,
    }

    def __init__(
        self,
        step: str = "previous",
        max_iter: int = 100,
        oracle: object = "stumps",
        max_time: float | None = None,
    ) -> None:
        self.step = step
        self.max_iter = max_iter
        self.oracle = oracle
        self.max_time = max_time

    def _boost(self, oracle, n_samples, secondary, max_iter, **options) -> MABoostResult:
        if secondary is not None:
            raise ValueError("secondary is only used by MABoostClassifier(projection='mixed')")
        return madaboost(oracle, step=self.step, max_iter=max_iter, **options)
