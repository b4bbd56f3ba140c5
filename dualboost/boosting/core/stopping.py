"""Iteration caps from the theorems of [KG], and the check of a user's ``max_iter``.

The caps count iterations t (oracle calls); the theorems count T, the hypotheses of the output,
which for the ERLPBoost family is t - 1 at the stop ([KG] Alg. 3.2 step 3(c)), hence the ``+ 1``.

* SoftBoost, Thm 3.2: ``T <= ceil((2/eps^2) ln(N/nu))``.
* ERLPBoost, Thm 3.10 (simple criterion) / Thm 3.12 (practical): ``T <= max((32/eps^2) ln(N/nu),
  8/eps)`` / ``max((64/eps^2) ln(N/nu), 16/eps)`` at the canonical ``eta = max((2/eps) ln(N/nu), 1/2)``.
  Both are the canonical case of the intermediate bound of the proof (Eq. 3.17 and Lemma 3.9 with
  ``c = 1/(8 eta)``): ``T < 8 eta / delta^T`` with ``delta^T > eps/2`` (simple) or ``> eps/4``
  (practical, Lemma 3.4), i.e. ``T < 16 eta/eps`` resp. ``32 eta/eps`` for any ``eta >= 1/2``. The
  caps use this form, so that a user's eta gets the bound that belongs to it.
* Binary ERLPBoost, Thm 3.21 / Thm 3.23 (with erratum KG-16, docs/math.md#erratum-kg-16): the same with
  ``ln(N/nu) + 1`` in eta, which the eta form already carries.
* Corrective ERLPBoost and Corrective Binary ERLPBoost ([KG] Sec 4.2, [SS] Thm 9: O(ln(N/nu)/eps^2),
  the recurrence of [SS] Lemma 12 with ``beta = 1/eta``): ``32 eta/eps``, the practical criterion's
  form (the corrective algorithms monitor delta~).
* LPBoost has no iteration bound (Thm 2.5) and AdaBoost no stopping rule: the cap is the thesis's
  ``max-iter`` of Table 5.3 for LPBoost, 1,000 (the thesis ran AdaBoost for 20,000 iterations).
"""

from __future__ import annotations

import math

__all__ = [
    "softboost_max_iter",
    "erlpboost_max_iter",
    "corrective_max_iter",
    "LPBOOST_MAX_ITER",
    "ADABOOST_MAX_ITER",
    "CRITERIA",
]

#: [KG] Table 5.3's max-iter for LPBoost (no theorem bounds its iterations, Thm 2.5)
LPBOOST_MAX_ITER = 1000
#: AdaBoost's default number of rounds (it has no stopping rule of its own)
ADABOOST_MAX_ITER = 1000
#: the stopping criteria of ERLPBoost and Binary ERLPBoost (docs/math.md#erlpboost-stopping)
CRITERIA = ("practical", "simple")


def softboost_max_iter(n_samples: int, nu: float, eps: float) -> int:
    """[KG] Thm 3.2: ``ceil((2/eps^2) ln(N/nu))`` iterations, at least 1.

    Parameters
    ----------
    n_samples : int
        The number N of examples.
    nu : float
        The capping, a count in [1, N].
    eps : float
        The precision.

    Returns
    -------
    int
        The iteration bound.
    """
    return max(1, math.ceil(2.0 / eps**2 * math.log(n_samples / nu)))


def erlpboost_max_iter(eta: float, eps: float, criterion: str = "practical") -> int:
    """[KG] Thms 3.10, 3.12 (ERLPBoost), 3.21, 3.23 (Binary) in their eta form: ``T < 16 eta/eps``
    (simple) or ``32 eta/eps`` (practical), eta taken >= 1/2 as the lemmas require; plus the
    discarded last iteration.

    Parameters
    ----------
    eta : float
        The entropy regularisation.
    eps : float
        The precision.
    criterion : {"practical", "simple"}, default "practical"
        The stopping criterion.

    Returns
    -------
    int
        The iteration bound.
    """
    factor = 16.0 if criterion == "simple" else 32.0
    return math.ceil(factor * max(eta, 0.5) / eps) + 1


def corrective_max_iter(eta: float, eps: float) -> int:
    """The corrective algorithms ([SS] Thm 9 with ``beta = 1/eta``; [KG] Sec 4.2): ``32 eta/eps``
    (``= 64 ln(N/nu)/eps^2`` at the canonical eta), plus the discarded last iteration.

    Parameters
    ----------
    eta, eps
        As in :func:`erlpboost_max_iter`.

    Returns
    -------
    int
        The iteration bound.
    """
    return erlpboost_max_iter(eta, eps, "practical")
