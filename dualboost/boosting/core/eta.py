"""The regularisation parameter eta of the entropy family (ERLPBoost, Binary ERLPBoost, their
corrective versions and QRLP-Boost): a user's eta checked, or the canonical default."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dualboost._validation import check_eta
from dualboost.problems.erlpboost import canonical_eta, prior_eta

__all__ = ["resolve_eta"]


def resolve_eta(
    eta: object,
    n_samples: int,
    nu: float,
    eps: float,
    *,
    d0: NDArray[np.float64] | None = None,
    binary: bool = False,
) -> float:
    """The eta a run uses: ``eta`` itself when given (checked > 0), else the canonical
    ``max((2/eps) ln(N/nu), 1/2)`` of [KG] Sec 3.2 (docs/math.md#canonical-eta; ``ln(N/nu) + 1``
    for Binary ERLPBoost, Thm 3.21), which keeps the regulariser ``(1/eta) Delta(d, d0)`` at most
    eps/2 on the capped simplex as the stopping rule needs ([KG] Lemma 3.4, Thm 3.10).

    Parameters
    ----------
    eta : float or None
        The user's eta, or None for the default.
    n_samples : int
        N, the number of examples.
    nu : float
        The capping in [1, N] (checked already).
    eps : float
        The accuracy > 0 (checked already).
    d0 : ndarray of shape (N,) or None
        A prior the user gave (checked already); the default then bounds the regulariser by
        ``ln(1/(nu min d0))`` in place of ``ln(N/nu)`` (:func:`~dualboost.problems.erlpboost.prior_eta`).
        None for the uniform prior.
    binary : bool
        The binary relative entropy (Binary ERLPBoost and its corrective version).

    Returns
    -------
    float
        eta > 0.
    """
    if eta is not None:
        return check_eta(eta)
    if d0 is None:
        return canonical_eta(n_samples, nu, eps, binary=binary)
    return prior_eta(d0, nu, eps, binary=binary)
