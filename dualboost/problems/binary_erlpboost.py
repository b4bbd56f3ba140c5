"""Binary ERLPBoost ([KG] Sec 3.3; docs/math.md#binary-erlpboost, model M6).

    primal:  min_{d in S^N}  max_q u^q . d + (1/eta) Delta_{2,nu}(d, d0)                       (Eq. 3.25)
    dual:    max_{w in S^t, beta}
                 -(1/(eta nu)) sum_n ln(1 - nu d0_n + nu d0_n e^{-eta((U w)_n + beta)}) - beta   (Eq. 3.26)

The caps 0 <= d <= 1/nu are implicit in the binary relative entropy; the conjugate library finds
beta by a bracketed root, so ``dual_objective(w)`` is a function of w alone. Requires d0 < 1/nu
(nu < N for uniform d0, [DERIVED] in docs/math.md#binary-erlpboost).
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from dualboost._validation import check_distribution
from dualboost.conjugates import CappedBinaryRelativeEntropy
from dualboost.problems.lpboost import LPBoost
from dualboost.problems.max_edge import MaxEdgeModel

__all__ = ["BinaryERLPBoost"]


class BinaryERLPBoost(MaxEdgeModel):
    """Binary-entropy-regularised LPBoost: ``U`` (N x t), ``nu`` in [1, N), ``eta`` > 0, ``d0``."""

    name = "binary_erlpboost"

    def __init__(self, U: ArrayLike, nu: float = 1.0, eta: float = 1.0, d0: ArrayLike | None = None):
        super().__init__(U)
        self.regularizer = CappedBinaryRelativeEntropy(check_distribution(d0, self.n_samples), nu, eta)
        self.nu, self.eta, self.d0 = self.regularizer.nu, self.regularizer.eta, self.regularizer.d0

    def parameters(self) -> dict[str, float]:
        return {"nu": self.nu, "eta": self.eta}

    def lp_limit(self) -> LPBoost:
        """LPBoost on the same U and nu: the limit eta -> infinity (docs/math.md#erlpboost-primal)."""
        return LPBoost(self.U, nu=self.nu)
