"""Binary ERLPBoost ([KG] Sec 3.3; docs/math.md#binary-erlpboost, model M6).

    primal:  min_{d in S^N}  max_q u^q . d + (1/eta) Delta_{2,nu}(d, d0)                       (Eq. 3.25)
    dual:    max_{w in S^t, beta}
                 -(1/(eta nu)) sum_n ln(1 - nu d0_n + nu d0_n e^{-eta((U w)_n + beta)}) - beta   (Eq. 3.26)

The caps 0 <= d <= 1/nu are implicit in the binary relative entropy; the conjugate library finds
beta by a bracketed root, so ``dual_objective(w)`` is a function of w alone. Requires d0 < 1/nu
(nu < N for uniform d0, [DERIVED] in docs/math.md#binary-erlpboost).
"""

from __future__ import annotations

from dualboost.conjugates import CappedBinaryRelativeEntropy
from dualboost.problems.erlpboost import EntropyRegularised

__all__ = ["BinaryERLPBoost"]


class BinaryERLPBoost(EntropyRegularised):
    """Binary-entropy-regularised LPBoost ([KG] Sec 3.3, Eqs. 3.25-3.26; docs/math.md#binary-erlpboost).

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1] (docs/math.md#notation).
    nu : float, default 1.0
        The capping in [1, N): the binary entropy keeps ``d_n < 1/nu`` implicitly.
    eta : float, default 1.0
        The regularisation, > 0.
    d0 : array_like of shape (N,), optional
        The prior distribution (uniform when None), below the cap 1/nu.
    """

    name = "binary_erlpboost"
    regularizer_class = CappedBinaryRelativeEntropy
