"""GraphSepBoost ([AGHM21] N. Alon, A. Gonen, E. Hazan and S. Moran, "Boosting simple learners", STOC
2021; docs/graphsep.md): boosting by separating the pairs of opposite labels.

The run keeps the bipartite graph G whose edges are the pairs ``(i, j)`` of training examples with
``y_i = +1``, ``y_j = -1`` not yet separated. Round t: the oracle sees the distribution of an
endpoint of a uniform edge (``d_n = deg_G(n) / (2 |E|)``) and returns h with edge
``gamma_t = sum_n d_n y_n h(x_n)``; every edge on which h is right at both endpoints is removed. The
run ends when G is empty: every pair of opposite labels is then separated by some h_t, so the
codes ``(h_1(x), ..., h_T(x))`` of the training examples are pure (one label per code), and a function
of the code classifies the sample without error.

[DERIVED] the guarantee in edge form: for a uniform edge (i, j), ``P[h right at i and at j] >= P[right
at i] + P[right at j] - 1``, and each endpoint is distributed as d, right with probability
``(1 + gamma_t)/2`` for a {-1, +1}-valued h, so at least a fraction ``gamma_t`` of the edges is removed:
``|E_t| <= (1 - gamma_t) |E_{t-1}|``, and with ``gamma_t >= gamma`` the run ends after at most
``ln|E_0| / -ln(1 - gamma) + 1`` rounds ([AGHM21]'s O(log(m)/gamma) with advantage gamma/2).
"""

from __future__ import annotations

import math

import numpy as np

from dualboost._validation import check_max_iter
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import NO_ITERATES, RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import Ensemble, Run, check_oracle

__all__ = ["graphsepboost", "graphsep_round_bound"]

#: the default cap on the rounds (the run normally ends when the graph is empty)
GRAPHSEP_MAX_ITER = 1000


def graphsep_round_bound(n_edges: int, gamma: float) -> int:
    """``floor(ln(n_edges) / -ln(1 - gamma)) + 1``: the most rounds before the graph of ``n_edges``
    opposite pairs is empty when every edge is at least ``gamma`` (module docstring).

    Parameters
    ----------
    n_edges : int
        ``|E_0|``, the number of pairs of opposite labels (> 0).
    gamma : float
        A lower bound on the edges, in (0, 1].

    Returns
    -------
    int
        The bound on the rounds.
    """
    if not 0.0 < gamma <= 1.0:
        raise ValueError(f"gamma must lie in (0, 1]; got {gamma!r}")
    if gamma == 1.0:
        return 1
    return int(math.floor(math.log(n_edges) / -math.log1p(-gamma))) + 1


@takes_run_options(without=NO_ITERATES)
def graphsepboost(oracle, *, max_iter: int | None = None, options: RunOptions) -> BoostResult:
    """GraphSepBoost ([AGHM21], module docstring) with the oracle's hypotheses.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle with labels ``y_`` (both classes present).
    max_iter : int or None
        A cap on the rounds (default 1,000).
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses with uniform weights (the separating family; the classifier of
        :class:`~dualboost.estimators.graphsep.GraphSepBoostClassifier` labels their codes); the history's
        ``stopping`` column is ``|E_t| / |E_0|``, the fraction of pairs still joined.
    """
    n = check_oracle(oracle)
    y = np.asarray(oracle.y_, dtype=np.float64)
    positive, negative = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    if positive.size == 0 or negative.size == 0:
        raise ValueError("oracle: GraphSepBoost needs both labels in the training sample")
    max_iter = check_max_iter(max_iter, GRAPHSEP_MAX_ITER)
    params = {"max_iter": max_iter}
    run = Run(oracle, History("|E_t| / |E_0| = 0", 0.0), options, algorithm="graphsepboost", settings=params)
    ensemble = Ensemble(n)
    joined = np.ones((positive.size, negative.size), dtype=bool)  # the edges of G
    total = float(joined.size)
    count = np.zeros(0)
    converged, reason, detail = False, "max_iter", f"max_iter={max_iter}"
    first, (joined, count) = run.resume(ensemble, joined=joined, count=count)
    d = np.zeros(n)
    for t in range(first, max_iter + 1):
        edges = float(joined.sum())
        d[positive], d[negative] = joined.sum(axis=1), joined.sum(axis=0)
        d /= 2.0 * edges
        selection = run.ask(d)
        u, edge = selection.column, selection.edge
        if edge <= 0:
            run.record(t, edge, stopping=edges / total, n_hypotheses=int(np.count_nonzero(count)))
            reason, detail = "no_edge", "no hypothesis with a positive edge"
            break
        with run.solving():
            position, is_new = ensemble.add(selection)
            count = np.r_[count, 0.0] if is_new else count
            count[position] += 1.0
            right = u > 0
            joined &= ~np.outer(right[positive], right[negative])
        left = float(joined.sum())
        run.record(t, edge, stopping=left / total, n_hypotheses=int(np.count_nonzero(count)))
        if left == 0.0:
            converged, reason, detail = True, "converged", "every pair of opposite labels is separated"
            break
        run.save(t, ensemble, joined=joined, count=count)
        timed = run.out_of_time()
        if timed:
            reason, detail = timed
            break
    weights = (count > 0) / max(np.count_nonzero(count), 1)
    stop = {"converged": converged, "stop_reason": reason, "stop_detail": detail}
    return run.result("graphsepboost", ensemble, weights.astype(np.float64), d, params=params, **stop)
