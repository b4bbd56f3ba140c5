"""AdaBoost, the baseline of [KG] Ch. 5 (formulas of [KG] Ch. 6, docs/math.md#adaboost).

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
"""

from __future__ import annotations

import math
import os

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from dualboost._validation import check_max_iter
from dualboost.boosting.core.checkpoint import DEFAULT_EVERY, Checkpoint
from dualboost.boosting.core.history import History
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import Callback, Ensemble, Run, check_oracle
from dualboost.boosting.core.stopping import ADABOOST_MAX_ITER
from dualboost.conjugates.projections import logsumexp

__all__ = ["adaboost", "adaboost_step"]


def adaboost_step(u: NDArray[np.float64], d: NDArray[np.float64]) -> float:
    """``argmin_alpha sum_n d_n e^{-alpha u_n}`` for a column u with positive edge ``u . d`` (inf if
    no example with d_n > 0 has u_n < 0)."""
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


def adaboost(
    oracle,
    *,
    max_iter: int | None = None,
    callback: Callback | None = None,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int = DEFAULT_EVERY,
    resume: bool = False,
) -> BoostResult:
    """AdaBoost with the oracle's hypotheses (max-edge selection, as in all of [KG]'s experiments).

    ``max_iter``: rounds, default 1,000 (:data:`~dualboost.boosting.core.stopping.ADABOOST_MAX_ITER`);
    ``checkpoint``, ``checkpoint_every``, ``resume``: save the state every so many rounds and
    continue a killed run (:mod:`dualboost.boosting.core.checkpoint`).
    """
    n = check_oracle(oracle)
    max_iter = check_max_iter(max_iter, ADABOOST_MAX_ITER)
    params = {"max_iter": max_iter}
    saving = Checkpoint.create(checkpoint, checkpoint_every, resume, "adaboost", params)
    run = Run(oracle, History("none (max_iter rounds)"), callback, checkpoint=saving)
    ensemble = Ensemble(n)
    log_d0 = np.full(n, -math.log(n))
    d, margins, alpha = np.exp(log_d0), np.zeros(n), np.zeros(0)
    min_edge = math.inf
    converged, reason = False, "max_iter reached"
    first, (d, margins, alpha, min_edge) = run.resume(
        ensemble, d=d, margins=margins, alpha=alpha, min_edge=min_edge
    )
    for t in range(first, max_iter + 1):
        selection = run.ask(d)
        u, edge = selection.column, selection.edge
        if edge <= 0:
            run.record(t, edge, n_hypotheses=int(np.count_nonzero(alpha > 0)))
            converged, reason = True, "no hypothesis with a positive edge"
            break
        min_edge = min(min_edge, edge)
        with run.solving():
            step = adaboost_step(u, d)
            position, is_new = ensemble.add(selection)
            alpha = np.r_[alpha, 0.0] if is_new else alpha
            if math.isinf(step):  # a perfect hypothesis
                alpha = np.zeros_like(alpha)
                alpha[position] = 1.0
                margins = u.copy()
            else:
                alpha[position] += step
                margins += step * u
            log_d = log_d0 - margins
            d = np.exp(log_d - logsumexp(log_d))
        hard_margin = float(margins.min() / alpha.sum())
        run.record(t, edge, stopping=min_edge - hard_margin, n_hypotheses=int(np.count_nonzero(alpha > 0)))
        if math.isinf(step):
            converged, reason = True, "a hypothesis with edge 1"
            break
        run.save(t, ensemble, d=d, margins=margins, alpha=alpha, min_edge=min_edge)
    if not converged:
        reason = "max_iter rounds"
    weights = alpha / alpha.sum() if alpha.sum() > 0 else alpha
    return run.result(
        "adaboost", ensemble, weights, d, converged=converged, stop_reason=reason, params=params
    )
