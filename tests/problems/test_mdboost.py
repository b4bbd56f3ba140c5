"""MDBoost (docs/math.md#mdboost): the max-edge pair with f(d) = (1/2)||d - 1/D||^2.

Every value is compared with an independent computation: the other side solved by another method,
[SL]'s own formulation solved by cvxpy (its optimum is D^2 times the dual value), the closed-form
map d = 1/D - U w, and finite differences for the curvature.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import MDBoost


def _paper_optimum(U: np.ndarray, D: float) -> float:
    """[SL] Eq. 6 with the identity for the covariance: max 1^T rho - (1/2)||rho||^2, rho = U w,
    w >= 0, sum w = D, solved by Clarabel in its own variables."""
    w = cp.Variable(U.shape[1], nonneg=True)
    rho = U @ w
    problem = cp.Problem(cp.Maximize(cp.sum(rho) - 0.5 * cp.sum_squares(rho)), [cp.sum(w) == D])
    problem.solve(solver="CLARABEL")
    return float(problem.value)


@pytest.mark.parametrize("D", [1e-3, 0.5, 2.0, 1e3])
@pytest.mark.parametrize("binary", [True, False])
def test_primal_equals_dual_and_the_paper(D, binary):
    U = random_edge_matrix(120, 12, seed=7, binary=binary)
    model = MDBoost(U, D=D)
    primal = model.solve(method="clarabel", side="primal", tol=1e-9)
    dual = model.solve(method="auglag", side="dual", tol=1e-10)
    assert primal.status == dual.status == "optimal"
    scale = max(1.0, abs(primal.primal_value))
    assert dual.dual_value == pytest.approx(primal.primal_value, abs=1e-8 * scale)
    np.testing.assert_allclose(dual.d, 1.0 / D - U @ dual.w, atol=1e-12)  # the KKT map
    np.testing.assert_allclose(dual.d, primal.d, atol=1e-6 * max(1.0, 1.0 / D))  # d is unique
    paper = _paper_optimum(U, D)
    assert model.paper_objective(dual.w) == pytest.approx(paper, rel=1e-7, abs=1e-8)
    assert D**2 * dual.dual_value == pytest.approx(paper, rel=1e-7, abs=1e-8)


def test_kkt_recovery_gives_an_optimal_w():
    U = random_edge_matrix(200, 15, seed=3, binary=True)
    model = MDBoost(U, D=0.5)
    sol = model.solve(method="clarabel", side="dual", tol=1e-10)
    kkt = model.kkt_from_d(sol.d)
    assert model.dual_objective(kkt.w) == pytest.approx(sol.dual_value, abs=1e-8)
    assert kkt.beta == 0.0 and kkt.residual < 1e-8


def test_curvature_matches_finite_differences():
    rng = np.random.default_rng(4)
    U = random_edge_matrix(80, 9, seed=5)
    model = MDBoost(U, D=1.5)
    w, v = rng.dirichlet(np.ones(9)), rng.normal(size=9)
    columns = np.arange(9)
    h = 1e-6
    grad = lambda x: model.dual_value_and_grad(x)[1]  # noqa: E731
    fd = (grad(w + h * v) - grad(w - h * v)) / (2 * h)
    np.testing.assert_allclose(model.dual_hessian(w, columns) @ v, fd, atol=1e-7)
    np.testing.assert_allclose(model.dual_hessian_operator(w, columns)(v), fd, atol=1e-7)
    block = model.dual_hessian_block(w, np.array([1, 4]), np.array([0, 2, 8]))
    np.testing.assert_allclose(block, model.dual_hessian(w, columns)[np.ix_([1, 4], [0, 2, 8])])


@pytest.mark.parametrize("n", [10, 20_000])
def test_sizes_from_ten_to_twenty_thousand(n):
    U = random_edge_matrix(n, 6, seed=n, binary=True)
    model = MDBoost(U, D=1.0)
    fast = model.solve(method="auglag", tol=1e-10)
    ref = model.solve(method="clarabel", side="dual", tol=1e-9)
    assert fast.status == "optimal"
    assert fast.dual_value == pytest.approx(ref.dual_value, abs=1e-8 * max(1.0, abs(ref.dual_value)))


def test_bad_input_names_the_argument():
    U = random_edge_matrix(20, 3, seed=1)
    for D in (0.0, -1.0, np.nan, np.inf, "big"):
        with pytest.raises(ValueError, match="D"):
            MDBoost(U, D=D)
    with pytest.raises(ValueError, match="U"):
        MDBoost(np.full((20, 3), np.nan), D=1.0)
    with pytest.raises(ValueError, match="hypothesis set is empty"):
        MDBoost(np.zeros((20, 0)), D=1.0)
