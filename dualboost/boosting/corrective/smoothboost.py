"""SmoothBoost ([Ser03]; docs/math.md#smoothboost): a booster whose distributions are smooth,
``d_n <= 1/(kappa N)`` on every round, which bounds the weight any one (noisy) example can get.

With the running margins ``N_n = sum_{q<=t} (u^q_n - theta)``, ``theta = gamma / (2 + gamma)``, the
weight of example n is ``M_n = 1`` where ``N_n < 0`` and ``(1 - gamma)^{N_n / 2}`` elsewhere (so
``0 < M_n <= 1``, computed as ``exp((N_n / 2) ln(1 - gamma))`` with a non-positive exponent), and the
oracle sees ``d = M / sum M``. The run stops as soon as ``sum M < kappa N``; the output is the plain
average of the T hypotheses (weight 1/T each, a re-selected hypothesis adds up).

Guarantees ([Ser03]'s analysis, for a weak learner whose every hypothesis has edge
``u . d >= 2 gamma``): while the run goes on, ``sum M >= kappa N`` and ``M_n <= 1`` give
``d_n <= 1/(kappa N)``; at the stop, every example whose normalised margin is ``<= theta`` has
``N_n <= 0``, hence ``M_n = 1``, so fewer than ``kappa N`` examples have margin ``<= theta`` (in
particular the training error is below kappa); and the run stops after fewer than
``2 / (kappa gamma^2 sqrt(1 - gamma))`` rounds (:func:`smoothboost_max_iter`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dualboost._validation import check_distribution, check_max_iter, check_scalar
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import NO_ITERATES, RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import Ensemble, Run, check_oracle, rule_or_cap

__all__ = ["smoothboost", "smoothboost_weights", "smoothboost_max_iter"]


def smoothboost_weights(margins: NDArray[np.float64], gamma: float) -> NDArray[np.float64]:
    """``M_n = 1`` where ``N_n < 0``, else ``(1 - gamma)^{N_n / 2}`` ([Ser03]), in (0, 1].

    Parameters
    ----------
    margins : ndarray of shape (N,)
        The unnormalised margins N_n.
    gamma : float
        The edge assumed of the weak learner.

    Returns
    -------
    ndarray of shape (N,)
        The weights M_n.
    """
    exponent = 0.5 * np.maximum(margins, 0.0) * math.log1p(-gamma)  # <= 0: no overflow
    return np.where(margins < 0.0, 1.0, np.exp(exponent))


def smoothboost_max_iter(kappa: float, gamma: float) -> int:
    """[Ser03]: SmoothBoost stops after fewer than ``2 / (kappa gamma^2 sqrt(1 - gamma))`` rounds.

    Parameters
    ----------
    kappa : float
        The fraction of examples allowed a margin ``<= theta`` (the target training error).
    gamma : float
        The edge assumed of the weak learner.

    Returns
    -------
    int
        The round bound.
    """
    return max(1, math.ceil(2.0 / (kappa * gamma**2 * math.sqrt(1.0 - gamma))))


def _fraction(value: object, name: str, upper: float, meaning: str) -> float:
    value = check_scalar(value, name)
    if not 0.0 < value < upper:
        raise ValueError(f"{name} must lie in (0, {upper:g}) ({meaning}); got {value!r}")
    return value


@takes_run_options(without=NO_ITERATES)
def smoothboost(
    oracle,
    *,
    kappa: float = 0.1,
    gamma: float = 0.05,
    max_iter: int | None = None,
    d0: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """SmoothBoost ([Ser03]; module docstring, docs/math.md#smoothboost).

    ``theta = gamma / (2 + gamma)`` is the margin aimed at. The history's stopping quantity is
    ``sum M / N``, compared with kappa; ``d`` of the result is the last distribution the oracle saw.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    kappa : float, default 0.1
        In (0, 1): the target fraction of training examples with margin <= theta (the training error
        it guarantees).
    gamma : float, default 0.05
        In (0, 1/2): the advantage the weak learner is assumed to have (every hypothesis's edge
        ``u @ d >= 2 gamma``, i.e. weighted error <= 1/2 - gamma for +-1 hypotheses).
    max_iter : int, optional
        Default the bound of [Ser03] (:func:`smoothboost_max_iter`); a run that reaches it (the
        oracle's edges fell below 2 gamma) warns.
    d0 : ndarray of shape (N,), optional
        A positive distribution p over the examples, the measure of [Ser03] in place of the uniform
        one (``d = p M / sum p M``, stop when ``sum p M < kappa``; then ``d_n <= p_n / kappa`` and the
        p-weight of the examples with margin <= theta is below kappa).
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    n = check_oracle(oracle)
    params = _params(kappa, gamma, max_iter)
    kappa, gamma, theta, max_iter = params.values()
    p = np.full(n, 1.0 / n) if d0 is None else check_distribution(d0, n)
    history = History("sum_n p_n M_n < kappa", kappa)
    run = Run(oracle, history, options, algorithm="smoothboost", settings=params)
    ensemble = Ensemble(n)
    margins, counts = np.zeros(n), np.zeros(0)  # N_n, and how often each hypothesis was selected
    d = p.copy()
    first, (margins, counts, d) = run.resume(ensemble, margins=margins, counts=counts, d=d)
    converged, timed = False, None
    for t in range(first, max_iter + 1):
        selection = run.ask(d)
        with run.solving():
            position, is_new = ensemble.add(selection)
            counts = np.r_[counts, 0.0] if is_new else counts
            counts[position] += 1.0
            margins += selection.column - theta
            pM = p * smoothboost_weights(margins, gamma)
            quantity = float(pM.sum())
        run.record(t, selection.edge, stopping=quantity, n_hypotheses=int(np.count_nonzero(counts)))
        if run.stages is not None:
            run.stages.full(counts)
        if quantity < kappa:
            converged = True
            break
        d = pM / quantity
        run.save(t, ensemble, margins=margins, counts=counts, d=d)
        timed = run.out_of_time()
        if timed:
            break
    reason, detail = timed or rule_or_cap(converged, history.criterion, max_iter)
    return run.result(
        "smoothboost",
        ensemble,
        counts / counts.sum(),
        d,
        converged=converged,
        stop_reason=reason,
        stop_detail=detail,
        params=params,
    )


def _params(kappa: object, gamma: object, max_iter: object) -> dict:
    """The checked ``kappa``, ``gamma``, the margin ``theta = gamma / (2 + gamma)`` aimed at and
    ``max_iter`` (default :func:`smoothboost_max_iter`), as a result reports them."""
    kappa = _fraction(kappa, "kappa", 1.0, "the target training error")
    gamma = _fraction(gamma, "gamma", 0.5, "the weak learner's advantage: edges >= 2 gamma")
    max_iter = check_max_iter(max_iter, smoothboost_max_iter(kappa, gamma))
    return {"kappa": kappa, "gamma": gamma, "theta": gamma / (2.0 + gamma), "max_iter": max_iter}
