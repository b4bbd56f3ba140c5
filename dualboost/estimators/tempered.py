"""The tempered-entropy classifier (docs/tempered.md): :class:`TemperedERLPBoostClassifier`, ERLPBoost
([KG] Alg. 3.2) regularised by the tempered relative entropy of [NAW] (Nock, Amid & Warmuth,
NeurIPS 2023). The parameters and fitted attributes it shares with the other classifiers are
documented in :mod:`dualboost.estimators.base`.
"""

from __future__ import annotations

from numbers import Real

from sklearn.utils._param_validation import Interval

from dualboost.boosting.core.checkpoint import DEFAULT_EVERY
from dualboost.estimators.totally_corrective import _EntropicClassifier

__all__ = ["TemperedERLPBoostClassifier"]


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
