"""NM-Boost (docs/math.md#nm-boost): a max-edge LP over a box, against independent computations.

The w-problem is also solved in [AFAHV25]'s own variables (margins rho, negative parts rho^-) by
Clarabel; its optimum equals the dual value. The d-domain side, the face map d_from_w and the KKT
recovery of w are each checked against the optimum of the other side.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import NMBoost


def _paper_optimum(U: np.ndarray, lam: float, tau: float) -> float:
    """max sum_n (rho^-_n + lam rho_n) s.t. U w >= rho, rho^- <= rho - tau, rho^- <= 0, w in S^t."""
    n, t = U.shape
    w, rho, neg = cp.Variable(t, nonneg=True), cp.Variable(n), cp.Variable(n)
    constraints = [U @ w >= rho, neg <= rho - tau, neg <= 0, cp.sum(w) == 1]
    problem = cp.Problem(cp.Maximize(cp.sum(neg + lam * rho)), constraints)
    problem.solve(solver="CLARABEL")
    return float(problem.value)


@pytest.mark.parametrize("lam, tau", [(1.0, None), (0.1, 0.2), (5.0, 0.5), (1e-3, 0.05), (1e3, 0.05)])
def test_both_sides_agree_with_each_other_and_the_paper(lam, tau):
    U = random_edge_matrix(150, 12, seed=11, binary=True)
    model = NMBoost(U, lam=lam, tau=tau)
    primal = model.solve(method="clarabel", side="primal", tol=1e-9)
    dual = model.solve(method="ecos", side="dual", tol=1e-9)
    assert primal.status == dual.status == "optimal"
    scale = max(1.0, abs(primal.primal_value))
    assert dual.dual_value == pytest.approx(primal.primal_value, abs=1e-8 * scale)
    assert _paper_optimum(U, lam, model.tau) == pytest.approx(dual.dual_value, abs=1e-6 * scale)
    # the face map and the KKT recovery each give an optimal point of the other side
    assert model.primal_objective(model.d_from_w(dual.w)) == pytest.approx(dual.dual_value, abs=1e-7 * scale)
    kkt = model.kkt_from_d(primal.d)
    assert model.dual_objective(kkt.w) == pytest.approx(primal.primal_value, abs=1e-7 * scale)


def test_default_threshold_is_one_over_the_pool():
    U = random_edge_matrix(30, 8, seed=2)
    assert NMBoost(U).tau == 1.0 / 8
    assert NMBoost(U, tau=0.3).parameters() == {"lam": 1.0, "tau": 0.3}


def test_objectives_are_infinite_off_their_domains():
    U = random_edge_matrix(30, 4, seed=3)
    model = NMBoost(U, lam=1.0)
    assert model.primal_objective(np.full(30, 1.5)) == np.inf
    assert model.dual_objective(np.full(4, 0.5)) == -np.inf
    d, moved = model.repair_primal(np.r_[np.full(29, 0.5), 1.25])
    assert moved == pytest.approx(0.25) and d.max() == 1.0


def test_bad_input_names_the_argument():
    U = random_edge_matrix(20, 3, seed=1)
    for name, kwargs in [("lam", {"lam": 0.0}), ("lam", {"lam": np.nan}), ("tau", {"tau": -0.1})]:
        with pytest.raises(ValueError, match=name):
            NMBoost(U, **kwargs)
    with pytest.raises(ValueError, match="hypothesis set is empty"):
        NMBoost(np.zeros((20, 0)))
