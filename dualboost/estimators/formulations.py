"""The classifiers of the other totally corrective formulations (docs/models.md,
docs/math.md#other-totally-corrective-formulations): :class:`MDBoostClassifier` ([SL]),
:class:`CGBoostClassifier` ([BZB04]), :class:`NMBoostClassifier` and :class:`QRLPBoostClassifier`
([AFAHV25]), front-ends of the column-generation drivers of
:mod:`dualboost.boosting.totally_corrective.formulations`.

They share the parameters and fitted attributes of :class:`~dualboost.estimators.base.BoostingClassifier`
except ``nu``: MDBoost, CGBoost and NM-Boost have no capping (their d ranges over R^N, [0, C]^N and
[0, 1]^N), so they take their own parameters instead and have no ``nu_``; QRLP-Boost takes ``nu`` as a
fraction of the training set, as the [KG] classifiers do. ``eps`` is the precision of each driver's
certified stopping rule (:mod:`~dualboost.boosting.totally_corrective.formulations`), ``method`` the
re-solve method (default: the fastest sound one, HiGHS for the LP of NM-Boost and the QP of CGBoost,
the hand-written dual path for MDBoost and QRLP-Boost).

``sample_weight``: rows of weight 0 are removed and equal weights are the unweighted fit, as for
every classifier of the package. MDBoost, CGBoost and NM-Boost take other weights as example weights
``k = w / mean(w)`` of their models (:class:`~dualboost.problems.MDBoost`,
:class:`~dualboost.problems.CGBoost`, :class:`~dualboost.problems.NMBoost`): each example's hinge
(NM-Boost's margin and shortfall, MDBoost's margin in its mean and its spread) counts k_n times, so
integer weights are the problem of the repeated rows (the column-generation path may differ where d
is not unique). QRLP-Boost takes them as the prior ``d0 = w / sum w`` of the entropy it expands
(:class:`~dualboost.problems.QRLPBoost`; the first centre too), as ERLPBoost does: the re-centred
sequence tends to ERLPBoost's solution with that prior, the caps stay ``d_n <= 1/nu_`` and the
canonical eta uses ``ln(1/(nu_ min d0))``; as for ERLPBoost, integer weights are not repeated rows
where the caps bind.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import _safe_indexing

from dualboost.boosting.core.checkpoint import DEFAULT_EVERY
from dualboost.boosting.totally_corrective.formulations import NMBOOST_TAU
from dualboost.estimators.base import BoostingClassifier
from dualboost.estimators.dask_input import dask_kind
from dualboost.estimators.inputs import check_sample_weight
from dualboost.estimators.params import METHOD, NU, POSITIVE, shared_parameters

__all__ = ["MDBoostClassifier", "CGBoostClassifier", "NMBoostClassifier", "QRLPBoostClassifier"]


class _FormulationClassifier(BoostingClassifier):
    """The shared part: no capping (unless a subclass has one), the model's parameters, no weights."""

    _parameter_constraints = {
        name: constraint
        for name, constraint in BoostingClassifier._parameter_constraints.items()
        if name != "nu"
    } | {"method": METHOD}
    #: the model's own parameters (passed to the driver as they are)
    _model_params: tuple[str, ...] = ()

    def _loop_params(self, labels: ArrayLike) -> dict:
        return {"eps": float(self.eps), "max_iter": None if self.max_iter is None else int(self.max_iter)}

    def _extra_params(self) -> dict:
        return {name: getattr(self, name) for name in self._model_params} | {"method": self.method}

    #: whether the model has a weighted form (the example weights of CGBoost and NM-Boost)
    _weighted = False

    def fit(self, X, y, sample_weight=None, *, callback=None) -> _FormulationClassifier:
        """Boost the oracle's hypotheses on (X, y) (:meth:`BoostingClassifier.fit
        <dualboost.estimators.base.BoostingClassifier.fit>`, ``callback`` as there); ``sample_weight``:
        module docstring."""
        if sample_weight is None or dask_kind(X) is not None or dask_kind(y) is not None:
            return super().fit(X, y, sample_weight, callback=callback)
        weights = check_sample_weight(sample_weight, X)
        kept = weights > 0
        if np.all(weights[kept] == weights[kept][0]):
            return super().fit(X, y, sample_weight, callback=callback)  # equal weights: the unweighted fit
        if not self._weighted:
            raise ValueError(
                f"sample_weight with unequal positive weights is not supported by {type(self).__name__}: "
                "the model weighs every example alike (rows of weight 0 are removed and equal weights "
                "are the unweighted fit)"
            )
        self._example_weights = weights[kept]  # read by _driver_params and _store during this fit
        try:
            return super().fit(
                _safe_indexing(X, np.flatnonzero(kept)),
                _safe_indexing(y, np.flatnonzero(kept)),
                callback=callback,
            )
        finally:
            del self._example_weights

    def _selection_weights(self, weights: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
        """The example weights of this fit (``fit`` passes the kept rows on without them)."""
        return getattr(self, "_example_weights", None) if weights is None else weights

    def _driver_params(self, labels: ArrayLike) -> dict:
        params = super()._driver_params(labels)
        weights = getattr(self, "_example_weights", None)
        if weights is not None:
            params["weights"] = weights / weights.mean()  # scale-free: equal weights are all 1
        return params

    def _store(
        self, result, classes: NDArray, labels: ArrayLike, weights: NDArray[np.float64] | None = None
    ) -> None:
        weights = getattr(self, "_example_weights", None) if weights is None else weights
        super()._store(result, classes, labels, weights)  # (no capping: no nu_)


@shared_parameters
class MDBoostClassifier(_FormulationClassifier):
    """MDBoost ([SL] Eq. 6, identity covariance; docs/math.md#mdboost): the ensemble with the largest
    mean margin minus half the margins' squared norm at total weight ``D``; the oracle prices the
    signed ``1/D - U v`` (an oracle that takes signed weights: stumps, raw features, linear-kernel
    columns, a matrix, or a scikit-learn classifier fitted on ``|d|`` with flipped labels).

    ``D`` > 0: [SL]'s total weight (margins above ``1/D`` are pulled back); ``method``: default
    ``"auglag"``. Stop: the full problem's dual is within eps of the output's.

    Parameters
    ----------
    D : float, default 1.0
        [SL]'s total weight, > 0 (margins above ``1/D`` are pulled back).
    eps : float, default 0.01
        The precision of the driver's certified stopping rule
        (:mod:`~dualboost.boosting.totally_corrective.formulations`).
    max_iter : int, optional
        A cap on the iterations; None: 1,000.
    method : str, default "auglag"
        The subproblem solver.
    """

    _algorithm = "mdboost"
    _model_params = ("D",)
    _weighted = True
    _parameter_constraints = {**_FormulationClassifier._parameter_constraints, "D": POSITIVE}

    def __init__(
        self,
        D: float = 1.0,
        eps: float = 0.01,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "auglag",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.D = D
        self.eps = eps
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time


@shared_parameters
class CGBoostClassifier(_FormulationClassifier):
    """CGBoost ([BZB04]; docs/math.md#cgboost): non-negative weights minimising ``(1/2)||w||^2 + C sum_n
    [1 - (U w)_n]_+``, normalised to the simplex for prediction (the sign of ``U w`` is unchanged).

    ``C`` > 0: the hinge's weight; ``method``: default ``"highs"`` (HiGHS's QP solver). Stop: the
    oracle's hypothesis has a normalised reduced cost <= eps (what that guarantees:
    :mod:`~dualboost.boosting.totally_corrective.formulations`).

    Parameters
    ----------
    C : float, default 1.0
        The hinge's weight, > 0.
    eps : float, default 0.01
        The precision of the driver's certified stopping rule
        (:mod:`~dualboost.boosting.totally_corrective.formulations`).
    max_iter : int, optional
        A cap on the iterations; None: 1,000.
    method : str, default "highs"
        The subproblem solver (HiGHS's QP solver).
    """

    _algorithm = "cgboost"
    _weighted = True
    _model_params = ("C",)
    _parameter_constraints = {**_FormulationClassifier._parameter_constraints, "C": POSITIVE}

    def __init__(
        self,
        C: float = 1.0,
        eps: float = 0.01,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "highs",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.C = C
        self.eps = eps
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time


@shared_parameters
class NMBoostClassifier(_FormulationClassifier):
    """NM-Boost ([AFAHV25]; docs/math.md#nm-boost): weights in the simplex maximising ``lam`` times the
    summed margins minus the shortfalls of the margins below ``tau``.

    ``lam`` > 0 (default colboost's 0.01), ``tau`` > 0 (default 0.01, fixed for the run); ``method``:
    default ``"highs"`` (the LP, warm-started). Stop: the full problem's dual is within eps of the
    output's.

    Parameters
    ----------
    lam : float, default 0.01
        The weight of the summed margins, > 0 (colboost's default).
    tau : float, default 0.01
        The margin below which a shortfall counts, > 0, fixed for the run.
    eps : float, default 0.01
        The precision of the driver's certified stopping rule
        (:mod:`~dualboost.boosting.totally_corrective.formulations`).
    max_iter : int, optional
        A cap on the iterations; None: 1,000.
    method : str, default "highs"
        The LP solver (warm-started).
    """

    _algorithm = "nmboost"
    _weighted = True
    _model_params = ("lam", "tau")
    _parameter_constraints = {
        **_FormulationClassifier._parameter_constraints,
        "lam": POSITIVE,
        "tau": POSITIVE,
    }

    def __init__(
        self,
        lam: float = 0.01,
        tau: float = NMBOOST_TAU,
        eps: float = 0.01,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "highs",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.lam = lam
        self.tau = tau
        self.eps = eps
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time


@shared_parameters
class QRLPBoostClassifier(_FormulationClassifier):
    """QRLP-Boost ([AFAHV25]; docs/math.md#qrlp-boost): ERLPBoost with the entropy replaced by its
    second-order expansion at the previous d, re-centred every iteration.

    ``nu``: the capping as a fraction of the training set (``nu_ = max(1, nu N)``, as the [KG]
    classifiers); ``eta``: None for ERLPBoost's canonical ``(2/eps) ln(N/nu_)``; ``method``: default
    ``"auglag"``. Stop: the soft margin of the output is within eps of the best one of the class.

    Parameters
    ----------
    eps : float, default 0.01
        The precision of the driver's certified stopping rule
        (:mod:`~dualboost.boosting.totally_corrective.formulations`).
    eta : float, optional
        The regularisation; None: ERLPBoost's canonical ``(2/eps) ln(N/nu_)``.
    max_iter : int, optional
        A cap on the iterations; None: 1,000.
    method : str, default "auglag"
        The subproblem solver.
    """

    _algorithm = "qrlpboost"
    _model_params = ("eta",)
    _weighted = True
    _parameter_constraints = {
        **_FormulationClassifier._parameter_constraints,
        "nu": NU,
        "eta": [*POSITIVE, None],
    }

    def __init__(
        self,
        nu: float | str = "auto",
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "auglag",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
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
        self.max_time = max_time

    def _loop_params(self, labels: ArrayLike) -> dict:
        return super()._loop_params(labels) | {"nu": self._nu_count(labels)}

    def _driver_params(self, labels: ArrayLike) -> dict:
        """The example weights as the prior ``d0 = w / sum w`` of the expanded entropy (module
        docstring)."""
        params = super()._driver_params(labels)
        weights = params.pop("weights", None)
        if weights is not None:
            params["d0"] = weights / weights.sum()
        return params
