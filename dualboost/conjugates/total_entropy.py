"""The total Kullback-Leibler divergence of Liu and Vemuri on the capped simplex (docs/tempered.md#total-kl).

[LV11] (M. Liu and B. C. Vemuri, CVPR 2011): the total Bregman divergence of a convex phi divides
the Bregman divergence by the length of the tangent, ``sqrt(1 + ||grad phi(y)||^2)``; the total KL of
distributions measures that gradient, ``1 + ln d0``, in the prior's own weights:

    ``tKL(d, d0) = KL(d || d0) / c(d0)``,   ``c(d0) = sqrt(1 + sum_n d0_n (1 + ln d0_n)^2)``,

``c = sqrt(1 + (ln N - 1)^2)`` for the uniform prior (the constant of the 2009 C++ code's tKlBoost).
With d0 fixed, ``(1/eta) tKL(., d0)`` is ``(1/(eta c)) KL(., d0)``: its conjugate, maps and curvature
on the capped simplex are the capped softmax's (docs/math.md#capped-softmax) at ``eta c``, which
:class:`CappedTotalRelativeEntropy` inherits from :class:`~dualboost.conjugates.CappedRelativeEntropy`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_distribution, check_eta
from dualboost.conjugates.entropy import CappedRelativeEntropy

__all__ = ["CappedTotalRelativeEntropy", "total_kl_scale"]


def total_kl_scale(d0: NDArray[np.float64]) -> float:
    """``c(d0) = sqrt(1 + sum_n d0_n (1 + ln d0_n)^2)`` (module docstring).

    Parameters
    ----------
    d0 : ndarray
        The prior (a positive distribution).

    Returns
    -------
    float
        The divisor of KL in tKL.
    """
    return float(np.sqrt(1.0 + np.sum(d0 * (1.0 + np.log(d0)) ** 2)))


class CappedTotalRelativeEntropy(CappedRelativeEntropy):
    """``f(d) = (1/eta) tKL(d, d0)`` on ``{d : sum d = 1, 0 <= d <= 1/nu}`` (module docstring).

    Parameters
    ----------
    d0 : array_like
        The prior (a positive distribution).
    nu : float
        The capping parameter in [1, N].
    eta : float
        The inverse coefficient of tKL, > 0 (``total_eta``); the inherited ``eta`` is ``eta c(d0)``, the
        coefficient of the equal KL form that every inherited method uses.
    """

    def __init__(self, d0: ArrayLike, nu: float = 1.0, eta: float = 1.0) -> None:
        if d0 is None:
            raise ValueError("d0 must be given (a distribution); use np.full(N, 1/N) for the uniform prior")
        d0 = np.asarray(d0, dtype=np.float64)
        prior = check_distribution(d0, d0.size if d0.ndim == 1 else 0)
        self.total_eta = check_eta(eta)
        self.total_scale = total_kl_scale(prior)
        super().__init__(prior, nu, self.total_eta * self.total_scale)

    def total_kl(self, x: ArrayLike) -> float:
        """``tKL(x, d0)`` (``+inf`` off the capped simplex)."""
        return self.value(x) * self.total_eta

    def __repr__(self) -> str:
        return (
            f"CappedTotalRelativeEntropy(d0=<{self.n} entries>, nu={self.nu!r}, eta={self.total_eta!r}, "
            f"c={self.total_scale:.6g})"
        )
