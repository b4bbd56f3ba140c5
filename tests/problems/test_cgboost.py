"""CGBoost (docs/math.md#cgboost) against independent computations: [BZB04]'s own problem solved by
Clarabel in its variables (its optimum is minus both values), the other side by another method,
the exact map ``w = [U^T d]_+`` and the face map ``d_from_w``."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import CGBoost


def _paper_optimum(U: np.ndarray, C: float) -> float:
    """min (1/2)||w||^2 + C sum xi s.t. U w + xi >= 1, w, xi >= 0."""
    w, xi = cp.Variable(U.shape[1], nonneg=True), cp.Variable(U.shape[0], nonneg=True)
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), [U @ w + xi >= 1])
    problem.solve(solver="CLARABEL")
    return float(problem.value)


@pytest.mark.parametrize("C", [1e-3, 0.1, 1.0, 100.0])
@pytest.mark.parametrize("binary", [True, False])
def test_both_sides_and_the_paper(C, binary):
    U = random_edge_matrix(120, 10, seed=21, binary=binary)
    model = CGBoost(U, C=C)
    primal = model.solve(method="clarabel", side="primal", tol=1e-9)
    dual = model.solve(method="ecos", side="dual", tol=1e-9)
    assert primal.status == dual.status == "optimal"
    scale = max(1.0, abs(primal.primal_value))
    assert dual.dual_value == pytest.approx(primal.primal_value, abs=1e-8 * scale)
    assert -_paper_optimum(U, C) == pytest.approx(dual.dual_value, abs=1e-6 * scale)
    # the exact map d -> w and the face map w -> d give optimal points of the other side
    kkt = model.kkt_from_d(primal.d)
    np.testing.assert_array_equal(kkt.w, np.maximum(U.T @ primal.d, 0.0))
    assert model.dual_objective(kkt.w) == pytest.approx(primal.primal_value, abs=1e-6 * scale)
    assert model.primal_objective(model.d_from_w(dual.w)) == pytest.approx(dual.dual_value, abs=1e-8 * scale)


def test_domains_and_repairs():
    U = random_edge_matrix(30, 4, seed=3)
    model = CGBoost(U, C=2.0)
    assert model.primal_objective(np.full(30, 2.5)) == np.inf
    assert model.primal_objective(np.full(30, -0.1)) == np.inf
    assert model.dual_objective(np.array([1.0, -0.5, 0.0, 0.0])) == -np.inf
    assert model.dual_objective(np.array([3.0, 0.5, 0.0, 0.0])) > -np.inf  # w is not normalised
    d, moved = model.repair_primal(np.r_[np.full(29, 1.0), 2.5])
    assert moved == pytest.approx(0.5) and d.max() == 2.0
    w, moved = model.repair_dual(np.array([1.0, -0.25, 0.0, 2.0]))
    assert moved == pytest.approx(0.25) and w.min() == 0.0


def test_bad_input_names_the_argument():
    U = random_edge_matrix(20, 3, seed=1)
    for C in (0.0, -1.0, np.nan, "big"):
        with pytest.raises(ValueError, match="C"):
            CGBoost(U, C=C)
    with pytest.raises(ValueError, match="hypothesis set is empty"):
        CGBoost(np.zeros((20, 0)))
