"""The tempered-entropy classifiers (docs/tempered.md): :class:`TemperedERLPBoostClassifier`, ERLPBoost
([KG] Alg. 3.2) regularised by the tempered relative entropy of [NAW] (Nock, Amid & Warmuth,
NeurIPS 2023), and :class:`TAdaBoostClassifier`, their t-AdaBoost. The parameters and fitted
attributes they share with the other classifiers are documented in :mod:`dualboost.estimators.base`.
"""

from __future__ import annotations

from numbers import Real

from sklearn.utils._param_validation import Interval

from dualboost.boosting.core.checkpoint import DEFAULT_EVERY
from dualboost.boosting.core.stopping import ADABOOST_MAX_ITER
from dualboost.estimators.miniboosts import MaxEdgeAdaBoostClassifier
from dualboost.estimators.totally_corrective import _EntropicClassifier

__all__ = ["TemperedERLPBoostClassifier", "TAdaBoostClassifier"]


class TemperedERLPBoostClassifier(_EntropicClassifier):
    """ERLPBoost with ``(1/eta) Delta_t(d, d0)``, the tempered relative entropy of temperature ``t``
    (:func:`~dualboost.boosting.totally_corrective.tempered.tempered_erlpboost`).

    Parameters
    ----------
    t : float
        The temperature in [0, 2): 1 is :class:`~dualboost.estimators.ERLPBoostClassifier`; below 1
        the distributions over examples may put weight exactly 0 on well-classified examples.
    nu, eps, eta, max_iter, oracle, method, criterion, checkpoint, checkpoint_every, resume, max_time
        As for :class:`~dualboost.estimators.ERLPBoostClassifier`; ``eta=None`` is the tempered
        canonical eta (:func:`~dualboost.boosting.totally_corrective.tempered.tempered_eta`).
    """

    _algorithm = "tempered_erlpboost"
    _parameter_constraints = {
        **_EntropicClassifier._parameter_constraints,
        "t": [Interval(Real, 0, 2, closed="left")],
    }

    def __init__(
        self,
        t: float = 0.5,
        nu: float | str = "auto",
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "auglag",
        criterion: str = "practical",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        super().__init__(
            nu=nu,
            eps=eps,
            eta=eta,
            max_iter=max_iter,
            oracle=oracle,
            method=method,
            criterion=criterion,
            checkpoint=checkpoint,
            checkpoint_every=checkpoint_every,
            resume=resume,
            max_time=max_time,
        )
        self.t = t

    def _extra_params(self) -> dict:
        return {**super()._extra_params(), "t": self.t}


class TAdaBoostClassifier(MaxEdgeAdaBoostClassifier):
    """t-AdaBoost ([NAW]; :func:`~dualboost.boosting.corrective.t_adaboost.t_adaboost`,
    docs/tempered.md#t-adaboost): AdaBoost whose weights over the examples are a tempered exponential
    measure of temperature ``t``; ``dualboost boost --algorithm t_adaboost`` fits it.

    ``sample_weight``: equal weights only (rows of weight 0 are removed): the measure starts from the
    uniform one, and a prior measure is not part of [NAW]'s algorithm.

    Parameters
    ----------
    t : float
        The temperature in [0, 1]: 1 is :class:`~dualboost.estimators.MaxEdgeAdaBoostClassifier`;
        below 1 examples with a large margin get weight exactly 0.
    max_iter, oracle, checkpoint, checkpoint_every, resume, max_time
        As for :class:`~dualboost.estimators.MaxEdgeAdaBoostClassifier` (``max_iter`` rounds, 1,000).
    """

    _algorithm = "t_adaboost"
    _parameter_constraints = {
        **MaxEdgeAdaBoostClassifier._parameter_constraints,
        "t": [Interval(Real, 0, 1, closed="both")],
    }

    def __init__(
        self,
        t: float = 0.5,
        max_iter: int = ADABOOST_MAX_ITER,
        oracle: object = "stumps",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.t = t
        super().__init__(max_iter, oracle, checkpoint, checkpoint_every, resume, max_time)

    def _extra_params(self) -> dict:
        return {"t": float(self.t)}

    def _weight_params(self, weights, nu) -> dict:
        raise ValueError(
            "sample_weight with unequal positive weights is not supported by TAdaBoostClassifier: "
            "t-AdaBoost starts from the uniform measure (rows of weight 0 are removed and equal weights "
            "are the unweighted fit)"
        )
