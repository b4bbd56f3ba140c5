"""t-AdaBoost (Nock, Amid & Warmuth, "Boosting with Tempered Exponential Measures", NeurIPS 2023 [NAW];
docs/tempered.md#t-adaboost): AdaBoost whose example weights are a tempered exponential measure.

The weights q are normalised on their power ``2 - t`` (``sum_n q_n^(2-t) = 1``, the co-simplex of
[NAW]); the oracle sees the distribution ``d = q / sum q`` of the measure (the edge the step below
needs positive; at t = 1, q = d). Round j: the oracle returns the column
``u`` (edges ``y_n h_j(x_n)``), and

    ``q_n <- exp_t(log_t q_n - mu_j u_n) / Z_j``,   ``Z_j^(2-t) = sum_n exp_t(log_t q_n - mu_j u_n)^(2-t)``.

``mu_j`` minimises ``Z_j^(2-t)``, a convex function of mu (second derivative
``(2-t) sum u^2 exp_t^t >= 0``) whose derivative ``-(2-t) sum_n u_n exp_t(log_t q_n - mu u_n)`` vanishes
where the updated measure has edge 0 on the hypothesis just added: AdaBoost's choice at t = 1 (where
q = d and this is :func:`~dualboost.boosting.adaboost`), found by a bracketed root. [DERIVED: the
exact minimiser; [NAW] also analyse a closed-form mu, not used here.] For t < 1 ``exp_t`` is 0 below
``-1/(1-t)``: examples far on the right side of the margin get weight exactly 0. The output weights
are ``mu / sum(mu)`` (a common factor changes no prediction). The run stops at ``max_iter`` rounds,
when no hypothesis has a positive edge, or when one has edge 1 (it is the output alone).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from dualboost._validation import check_max_iter
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import NO_ITERATES, RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult, n_positive
from dualboost.boosting.core.run import Ensemble, Run, check_oracle
from dualboost.boosting.core.stopping import ADABOOST_MAX_ITER
from dualboost.boosting.corrective.adaboost import _add_step
from dualboost.conjugates.tempered import check_temperature, exp_t, log_t

__all__ = ["t_adaboost", "tempered_step", "tempered_update"]


def tempered_update(
    q: NDArray[np.float64], u: NDArray[np.float64], mu: float, t: float
) -> NDArray[np.float64]:
    """``exp_t(log_t q - mu u) / Z`` with ``sum (.)^(2-t) = 1`` (module docstring).

    Parameters
    ----------
    q : ndarray
        The measure (``sum q^(2-t) = 1``).
    u : ndarray
        The column of edges in [-1, 1].
    mu : float
        The step.
    t : float
        The temperature in [0, 2).

    Returns
    -------
    ndarray
        The updated measure.
    """
    e = exp_t(log_t(q, t) - mu * u, t)
    return e / float(np.sum(e ** (2.0 - t))) ** (1.0 / (2.0 - t))


def tempered_step(q: NDArray[np.float64], u: NDArray[np.float64], t: float) -> float:
    """``argmin_mu Z(mu)^(2-t)`` (module docstring) for a column with a positive edge under q; inf
    where no example of positive weight has ``u_n < 0`` (Z decreases for ever).

    Parameters
    ----------
    q : ndarray
        The measure.
    u : ndarray
        The column of edges.
    t : float
        The temperature in [0, 1].

    Returns
    -------
    float
        The step mu > 0.
    """
    if not float(u @ q) > 0.0:
        edge = float(u @ q)
        raise ValueError(f"u must have a positive edge under q (u . q = {edge:.3g}): the step would be <= 0")
    support = q > 0
    if not np.any(u[support] < 0):
        return math.inf
    base = log_t(q, t)

    def slope(mu: float) -> float:  # -(d/dmu) Z^(2-t) / (2-t), decreasing in mu
        return float(np.sum(u * exp_t(base - mu * u, t)))

    high = 1.0
    while slope(high) > 0:
        high *= 2.0
    return brentq(slope, 0.0, high, xtol=1e-14)


@takes_run_options(without=NO_ITERATES)
def t_adaboost(
    oracle,
    *,
    t: float = 0.5,
    max_iter: int | None = None,
    options: RunOptions,
) -> BoostResult:
    """t-AdaBoost ([NAW]) with the oracle's hypotheses (module docstring).

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle.
    t : float
        The temperature in [0, 1], the range [NAW] analyse (t = 1 is AdaBoost; above 1 the measure's
        ``exp_t`` has a pole and the step would need one more safeguard).
    max_iter : int or None
        Rounds, default 1,000 (AdaBoost's).
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their normalised weights and the history.
    """
    n = check_oracle(oracle)
    t = check_temperature(t)
    if t > 1.0:
        raise ValueError(f"t (the temperature) must lie in [0, 1] for t-AdaBoost; got {t!r}")
    max_iter = check_max_iter(max_iter, ADABOOST_MAX_ITER)
    params = {"t": t, "max_iter": max_iter}
    run = Run(oracle, History("none (max_iter rounds)"), options, algorithm="t_adaboost", settings=params)
    ensemble = Ensemble(n)
    q = np.full(n, float(n) ** (-1.0 / (2.0 - t)))  # sum q^(2-t) = 1
    margins, alpha = np.zeros(n), np.zeros(0)
    converged, reason, detail = False, "rounds", f"max_iter={max_iter}"
    first, (q, margins, alpha) = run.resume(ensemble, q=q, margins=margins, alpha=alpha)
    d = q / q.sum()
    for j in range(first, max_iter + 1):
        selection = run.ask(d)
        u, edge = selection.column, selection.edge
        if edge <= 0:
            run.record(j, edge, n_hypotheses=n_positive(alpha))
            converged, reason, detail = True, "no_edge", "no hypothesis with a positive edge"
            break
        with run.solving():
            step = tempered_step(q, u, t)
            alpha, margins = _add_step(ensemble, selection, step, alpha, margins)
            if not math.isinf(step):
                q = tempered_update(q, u, step, t)
                d = q / q.sum()
        run.record(j, edge, n_hypotheses=n_positive(alpha))
        if run.stages is not None:
            run.stages.full(alpha)
        if math.isinf(step):
            converged, reason, detail = True, "converged", "a hypothesis with edge 1"
            break
        run.save(j, ensemble, q=q, margins=margins, alpha=alpha)
        timed = run.out_of_time()
        if timed:
            reason, detail = timed
            break
    weights = alpha / alpha.sum() if alpha.sum() > 0 else alpha
    stop = {"converged": converged, "stop_reason": reason, "stop_detail": detail}
    return run.result("t_adaboost", ensemble, weights, d, params=params, **stop)
