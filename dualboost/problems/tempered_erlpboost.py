"""ERLPBoost with the tempered relative entropy (docs/tempered.md#tempered-erlpboost).

    primal:  min_{d in S^N, d <= 1/nu}  max_q u^q . d + (1/eta) Delta_t(d, d0)
    dual:    max_{w in S^t}  -f*(-U w),   f = (1/eta) Delta_t(., d0) + I{capped simplex}

[KG] Sec 3.2's ERLPBoost with the relative entropy replaced by the tempered relative entropy of
[NAW] (Nock, Amid & Warmuth, NeurIPS 2023); t = 1 is ERLPBoost. The conjugate f* and its rank-one
curvature are :class:`~dualboost.conjugates.CappedTemperedRelativeEntropy`, so ``method="auglag"``
solves the dual as it solves ERLPBoost's and the model certifies the pair.
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from dualboost.conjugates import CappedTemperedRelativeEntropy
from dualboost.conjugates.tempered import check_temperature
from dualboost.problems.erlpboost import EntropyRegularised

__all__ = ["TemperedERLPBoost"]


class TemperedERLPBoost(EntropyRegularised):
    """The tempered-entropy-regularised LPBoost subproblem over the hypotheses in ``U``.

    Parameters
    ----------
    U : array_like
        N x t edges, entries in [-1, 1].
    nu : float
        The capping parameter in [1, N] (cap 1/nu).
    eta : float
        The regularisation, > 0.
    d0 : array_like or None
        The prior (uniform when None).
    t : float
        The temperature in [0, 2) (1: :class:`~dualboost.problems.ERLPBoost`).
    """

    name = "tempered_erlpboost"

    def __init__(
        self, U: ArrayLike, nu: float = 1.0, eta: float = 1.0, d0: ArrayLike | None = None, t: float = 0.5
    ) -> None:
        self.t = check_temperature(t)
        super().__init__(U, nu=nu, eta=eta, d0=d0)

    def regularizer_class(self, d0: ArrayLike, nu: float, eta: float) -> CappedTemperedRelativeEntropy:
        """The capped tempered entropy of temperature ``self.t`` (``EntropyRegularised`` builds the
        regulariser as ``regularizer_class(d0, nu, eta)``)."""
        return CappedTemperedRelativeEntropy(d0, nu, eta, self.t)

    def parameters(self) -> dict[str, float]:
        return {"nu": self.nu, "eta": self.eta, "t": self.t}

    def with_eta(self, eta: float) -> TemperedERLPBoost:
        """The same model (temperature included) with another eta, sharing U (``EntropyRegularised``)."""
        model = TemperedERLPBoost(self.U, nu=self.nu, eta=eta, d0=self.d0, t=self.t)
        model.U, model._single_U = self.U, self._single_U
        return model
