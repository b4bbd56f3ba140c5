"""ERLPBoost with the tempered relative entropy (docs/tempered.md#tempered-erlpboost): [KG] Alg. 3.2's
loop over the :class:`~dualboost.problems.TemperedERLPBoost` model of temperature t ([NAW] Nock, Amid &
Warmuth, NeurIPS 2023, for the divergence); t = 1 is :func:`~dualboost.boosting.erlpboost`.

The stop ``delta~ <= eps/2`` keeps [KG] Lemmas 3.3-3.5's guarantee ``g - P_LP <= eps`` when the
regulariser is at most eps/2 on the capped simplex; :func:`tempered_eta` is the eta that makes it so.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import NDArray

from dualboost._validation import check_max_iter, check_nu, check_positive
from dualboost.boosting.core.options import RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import check_oracle
from dualboost.boosting.core.stopping import erlpboost_max_iter
from dualboost.boosting.totally_corrective.drivers import _entropy_regularized, _prior
from dualboost.conjugates.tempered import check_temperature, tempered_divergence
from dualboost.problems import TemperedERLPBoost

__all__ = ["tempered_erlpboost", "tempered_eta", "tempered_divergence_bound"]


def tempered_divergence_bound(d0: NDArray[np.float64], nu: float, t: float) -> float:
    """``max Delta_t(d, d0)`` over the capped simplex ``{sum d = 1, 0 <= d <= 1/nu}``, exactly.

    [DERIVED] A convex separable function attains its maximum over the capped simplex at a vertex:
    ``floor(nu)`` entries at the cap 1/nu, one at the remainder ``1 - floor(nu)/nu``, the rest 0. The
    gain ``delta_t(c, y) - delta_t(0, y)`` of mass c on an entry of prior y has y-derivative
    ``-phi_t''(y) c < 0``, and the cap's gain over the remainder's likewise decreases in y, so the caps
    go on the smallest priors and the remainder on the next one.

    Parameters
    ----------
    d0 : ndarray
        The prior (a positive distribution).
    nu : float
        The capping parameter in [1, N].
    t : float
        The temperature in [0, 2).

    Returns
    -------
    float
        The maximum of the divergence (``ln(N/nu)`` for the uniform prior and integer nu at t = 1).
    """
    cap = 1.0 / nu
    k = min(int(math.floor(nu + 1e-12)), d0.size)
    d = np.zeros(d0.size)
    order = np.argsort(d0, kind="stable")
    d[order[:k]] = cap
    if k < d0.size:
        d[order[k]] = max(1.0 - k * cap, 0.0)
    return float(tempered_divergence(d, d0, t).sum())


def tempered_eta(d0: NDArray[np.float64], nu: float, eps: float, t: float) -> float:
    """The canonical eta of the tempered entropy, ``max((2/eps) B_t, 1/2)`` with ``B_t`` the maximum of
    ``Delta_t(., d0)`` on the capped simplex (:func:`tempered_divergence_bound`): then
    ``(1/eta) Delta_t <= eps/2`` there, as the stopping rule needs (docs/math.md#canonical-eta's
    argument with the tempered divergence).

    Parameters
    ----------
    d0 : ndarray
        The prior.
    nu : float
        The capping parameter.
    eps : float
        The accuracy > 0.
    t : float
        The temperature.

    Returns
    -------
    float
        eta.
    """
    return float(max(2.0 / eps * tempered_divergence_bound(d0, nu, t), 0.5))


@takes_run_options
def tempered_erlpboost(
    oracle,
    *,
    t: float = 0.5,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    criterion: str = "practical",
    method: str = "auglag",
    tol: float | None = None,
    d0: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """ERLPBoost ([KG] Alg. 3.2) with ``(1/eta) Delta_t(d, d0)`` in place of the relative entropy.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle.
    t : float
        The temperature in [0, 2) (1: ERLPBoost).
    nu, eps, criterion, method, tol, d0
        As for :func:`~dualboost.boosting.erlpboost`.
    eta : float or None
        None: :func:`tempered_eta`, which keeps the stop's guarantee ``g - P_LP <= eps``.
    max_iter : int or None
        None: [KG] Thm 3.12's ``32 eta / eps`` with eta divided by the l1 strong-convexity modulus of
        ``Delta_t`` on the simplex, ``N^(t-1)`` for t < 1 and 1 from t = 1 on ([DERIVED]: the Hessian
        ``diag(d^-t)`` gives ``v^T H v >= ||v||_1^2 / sum d^t`` by Cauchy-Schwarz, and
        ``sum d^t <= N^(1-t)`` on the simplex for t < 1, ``<= 1`` for t >= 1).
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights and the history.
    """
    n = check_oracle(oracle)
    t = check_temperature(t)
    prior = _prior(d0, n)
    nu_checked, eps_checked = check_nu(nu, n), check_positive(eps, "eps")
    if eta is None:
        eta = tempered_eta(np.full(n, 1.0 / n) if prior is None else prior, nu_checked, eps_checked, t)
    modulus = min(1.0, float(n) ** (t - 1.0))
    cap = erlpboost_max_iter(check_positive(eta, "eta") / modulus, eps_checked, criterion)
    result = _entropy_regularized(
        functools.partial(TemperedERLPBoost, t=t),
        "tempered_erlpboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=check_max_iter(max_iter, cap),
        criterion=criterion,
        method=method,
        tol=tol,
        d0=d0,
        options=options,
    )
    result.params["t"] = t
    return result
