"""AdaBoost, the baseline of [KG] Ch. 5 (formulas of [KG] Ch. 6, docs/math.md#adaboost), and AdaBoost*
([RW05], docs/math.md#adaboostv), which shares its loop.

Round t: the oracle returns u^t for d^{t-1}; the weight ``alpha_t`` minimises the normaliser
``Z_t(alpha) = sum_n d_n^{t-1} e^{-alpha u_n^t}``, which for u in {-1, +1} is
``alpha_t = (1/2) ln((1 + edge)/(1 - edge)) = (1/2) ln((1 - eps_t)/eps_t)`` (eps_t the weighted error)
and otherwise a line search (the root of ``Z_t'``, monotone); then
``d^t proportional to d^{t-1} e^{-alpha_t u^t}``, i.e. ``d0 e^{-U alpha}`` (kept in the log domain).

AdaBoost has no stopping rule of its own: it runs ``max_iter`` rounds, or stops when the best
hypothesis has edge <= 0 (no better than chance; it is discarded) or edge 1 (a perfect hypothesis:
alpha is infinite, the output is that hypothesis alone). The history records, for comparison with
LPBoost, ``min_{q<=t} u^q . d^{q-1} - min_n (U w)_n`` with w = alpha / sum(alpha): an upper bound on
the distance of the normalised hard margin from the optimum (Eq. 2.1). The output weights are
normalised (the sign of f_w, hence every prediction, is unchanged).

AdaBoost* (:func:`adaboostv`) takes the weight of [RW05] instead, which aims at the margin
``rho_t = min_{q<=t} gamma_q - tolerance`` rather than at 0, and stops when that same history
quantity is at most ``tolerance``: the margin the theorem of [RW05] guarantees.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from dualboost._validation import check_distribution, check_max_iter, check_scalar
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import NO_ITERATES, RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult, n_positive
from dualboost.boosting.core.run import Ensemble, Run, check_oracle
from dualboost.boosting.core.stopping import ADABOOST_MAX_ITER
from dualboost.conjugates.projections import logsumexp

__all__ = ["adaboost", "adaboost_step", "adaboostv", "adaboostv_step", "adaboostv_max_iter"]

#: the weight of a round from ``(u, d, edge, min_edge)``, min_edge including this round's edge
Weight = Callable[[NDArray[np.float64], NDArray[np.float64], float, float], float]


def adaboost_step(u: NDArray[np.float64], d: NDArray[np.float64]) -> float:
    """``argmin_alpha sum_n d_n e^{-alpha u_n}`` for a column u with positive edge ``u @ d`` (inf if
    no example with d_n > 0 has u_n < 0).

    Parameters
    ----------
    u : ndarray, shape (N,)
        The column of the new hypothesis, ``u_n = y_n h(x_n)``.
    d : ndarray, shape (N,)
        The distribution it was chosen for.

    Returns
    -------
    float
        alpha, the step (inf when no example with d_n > 0 has u_n < 0).
    """
    edge = float(np.sum(u * d))  # np.sum rather than a BLAS dot (see Ensemble.edges)
    support = d > 0
    if not np.any(u[support] < 0):
        return math.inf
    if np.all(np.abs(u[support]) == 1.0):  # {-1, +1} hypotheses: the closed form
        return 0.5 * math.log((1.0 + edge) / (1.0 - edge))
    us, ds = u[support], d[support]

    def slope(alpha: float) -> float:  # -Z'(alpha), decreasing in alpha
        return float(np.sum(ds * us * np.exp(-alpha * us)))

    high = 1.0
    while slope(high) > 0:
        high *= 2.0
    return brentq(slope, 0.0, high, xtol=1e-14)


def adaboostv_step(edge: float, min_edge: float, tolerance: float) -> float:
    """The weight of AdaBoost* ([RW05], the weight of AdaBoost*_nu; docs/math.md#adaboostv):
    ``atanh(gamma_t) - atanh(rho_t)`` with ``rho_t = min_{q<=t} gamma_q - tolerance``, i.e.
    ``(1/2) ln((1 + gamma_t)/(1 - gamma_t)) - (1/2) ln((1 + rho_t)/(1 - rho_t))``; inf for edge 1.

    ``0 < min_edge <= edge`` and ``0 < tolerance <= 1`` keep ``rho_t`` in (-1, 1) and the weight > 0.

    Parameters
    ----------
    edge : float
        gamma_t, the edge of the new hypothesis.
    min_edge : float
        ``min_{q<=t} gamma_q``.
    tolerance : float
        The precision of AdaBoost* (in (0, 1]).

    Returns
    -------
    float
        The weight (inf for edge 1).
    """
    if edge >= 1.0:
        return math.inf
    return math.atanh(edge) - math.atanh(min_edge - tolerance)


def adaboostv_max_iter(n_samples: int, tolerance: float) -> int:
    """[RW05]'s iteration bound for AdaBoost*: ``ceil(2 ln(N) / tolerance^2)`` (at least 1).

    Parameters
    ----------
    n_samples : int
        The number N of examples.
    tolerance : float
        The margin tolerance of AdaBoost*, in (0, 1].

    Returns
    -------
    int
        The iteration bound.
    """
    return max(1, math.ceil(2.0 * math.log(n_samples) / tolerance**2))


@takes_run_options(without=NO_ITERATES)
def adaboost(
    oracle,
    *,
    max_iter: int | None = None,
    options: RunOptions,
    d0: NDArray[np.float64] | None = None,
) -> BoostResult:
    """AdaBoost with the oracle's hypotheses (max-edge selection, as in all of [KG]'s experiments).

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    max_iter : int, optional
        Rounds, default 1,000 (:data:`~dualboost.boosting.core.stopping.ADABOOST_MAX_ITER`).
    d0 : ndarray of shape (N,), optional
        The first distribution (a positive distribution, default uniform: the sample weights of
        :class:`~dualboost.estimators.MaxEdgeAdaBoostClassifier`; ``d^t`` proportional to
        ``d0 e^{-U alpha}``).
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    n = check_oracle(oracle)
    max_iter = check_max_iter(max_iter, ADABOOST_MAX_ITER)
    return _exponential(
        "adaboost",
        oracle,
        lambda u, d, edge, min_edge: adaboost_step(u, d),
        History("none (max_iter rounds)"),
        {"max_iter": max_iter},
        max_iter,
        None,
        options=options,
        d0=None if d0 is None else check_distribution(d0, n),
    )


@takes_run_options(without=NO_ITERATES)
def adaboostv(
    oracle,
    *,
    tolerance: float = 0.1,
    max_iter: int | None = None,
    options: RunOptions,
    d0: NDArray[np.float64] | None = None,
) -> BoostResult:
    """AdaBoost* ([RW05]; miniboosts' AdaBoostV): AdaBoost with the weight of :func:`adaboostv_step`,
    which maximises the hard margin to within ``tolerance`` (docs/math.md#adaboostv).

    The run stops when the normalised margin of the output is at least ``min_{q<=t} gamma_q -
    tolerance``, the guarantee of [RW05] (with a max-edge oracle ``min_q gamma_q`` is at least the
    best hard margin rho*, so the output's margin is within ``tolerance`` of rho*), or at
    ``max_iter``. A round whose best edge is <= 0 ends the run (not converged: nothing is
    guaranteed), one with edge 1 returns that hypothesis alone, as in [RW05].

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    tolerance : float, default 0.1
        In (0, 1]: the precision that [RW05] calls nu (not the capping nu of the other drivers:
        AdaBoost* has no capping, it aims at the hard margin).
    max_iter : int, optional
        Default the theorem's bound ``ceil(2 ln(N) / tolerance^2)`` (:func:`adaboostv_max_iter`), by
        which the guarantee holds.
    d0 : ndarray of shape (N,), optional
        The first distribution (a positive distribution, default uniform; ``d^t`` proportional to
        ``d0 e^{-U alpha}``).
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    n = check_oracle(oracle)
    tolerance = check_scalar(tolerance, "tolerance")
    if not 0.0 < tolerance <= 1.0:
        raise ValueError(f"tolerance must lie in (0, 1] (the hard margin's precision); got {tolerance!r}")
    max_iter = check_max_iter(max_iter, adaboostv_max_iter(n, tolerance))
    return _exponential(
        "adaboostv",
        oracle,
        lambda u, d, edge, min_edge: adaboostv_step(edge, min_edge, tolerance),
        History("min_q gamma_q - margin <= tolerance", tolerance),
        {"tolerance": tolerance, "max_iter": max_iter},
        max_iter,
        tolerance,
        options=options,
        d0=None if d0 is None else check_distribution(d0, n),
    )


def _exponential(
    algorithm: str,
    oracle,
    weight: Weight,
    history: History,
    params: dict,
    max_iter: int,
    tolerance: float | None,
    *,
    options: RunOptions,
    d0: NDArray[np.float64] | None = None,
) -> BoostResult:
    """The loop of AdaBoost and AdaBoost*: ``d^t`` proportional to ``d0 e^{-U alpha}``, the round's weight
    from ``weight``; ``tolerance``: stop when ``min_q gamma_q - margin <= tolerance`` (None: never)."""
    n = check_oracle(oracle)
    run = Run(oracle, history, options, algorithm=algorithm, settings=params)
    ensemble = Ensemble(n)
    log_d0 = np.full(n, -math.log(n)) if d0 is None else np.log(d0)
    d, margins, alpha = np.exp(log_d0), np.zeros(n), np.zeros(0)
    min_edge = math.inf
    # without a tolerance (AdaBoost) there is no stopping rule: max_iter rounds are the run
    converged, reason = False, "rounds" if tolerance is None else "max_iter"
    detail = f"max_iter={max_iter}"
    first, (d, margins, alpha, min_edge) = run.resume(
        ensemble, d=d, margins=margins, alpha=alpha, min_edge=min_edge
    )
    for t in range(first, max_iter + 1):
        selection = run.ask(d)
        u, edge = selection.column, selection.edge
        if edge <= 0:
            run.record(t, edge, n_hypotheses=n_positive(alpha))
            converged, reason, detail = tolerance is None, "no_edge", "no hypothesis with a positive edge"
            break
        min_edge = min(min_edge, edge)
        with run.solving():
            step = weight(u, d, edge, min_edge)
            alpha, margins = _add_step(ensemble, selection, step, alpha, margins)
            log_d = log_d0 - margins
            given, d = d, np.exp(log_d - logsumexp(log_d))
        hard_margin = float(margins.min() / alpha.sum())
        quantity = min_edge - hard_margin
        run.record(t, edge, stopping=quantity, n_hypotheses=n_positive(alpha))
        if run.stages is not None:
            run.stages.full(alpha)
        if math.isinf(step):
            converged, reason, detail = True, "converged", "a hypothesis with edge 1"
            break
        if tolerance is not None and quantity <= tolerance:
            converged, reason, detail = True, "converged", history.criterion
            d = given  # the last one the oracle saw
            break
        run.save(t, ensemble, d=d, margins=margins, alpha=alpha, min_edge=min_edge)
        timed = run.out_of_time()
        if timed:
            reason, detail = timed
            break
    weights = alpha / alpha.sum() if alpha.sum() > 0 else alpha
    stop = {"converged": converged, "stop_reason": reason, "stop_detail": detail}
    return run.result(algorithm, ensemble, weights, d, params=params, **stop)


def _add_step(ensemble: Ensemble, selection, step: float, alpha, margins) -> tuple:
    """``(alpha, margins)`` after the round's step on the selected hypothesis (appended if new); an
    infinite step (a perfect hypothesis) makes it the whole combination."""
    position, is_new = ensemble.add(selection)
    alpha = np.r_[alpha, 0.0] if is_new else alpha
    if math.isinf(step):
        alpha = np.zeros_like(alpha)
        alpha[position] = 1.0
        return alpha, selection.column.copy()
    alpha[position] += step
    margins += step * selection.column
    return alpha, margins
