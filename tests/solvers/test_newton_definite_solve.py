"""``newton._definite_solve``: the small solve with ``G = B^T M^-1 B`` in a Newton step with held
columns (dualboost/solvers/newton.py), against numpy's dense solve and least squares, and a Newton
step whose held columns make the constraints redundant against the dense KKT solve."""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost
from dualboost.solvers import newton


@pytest.mark.parametrize("k", [1, 3, 8])
def test_definite_solve_equals_the_dense_solve(k):
    rng = np.random.default_rng(k)
    A = rng.normal(size=(k, k))
    G = A @ A.T + k * np.eye(k)
    b = rng.normal(size=k)
    np.testing.assert_allclose(newton._definite_solve(G, b), np.linalg.solve(G, b), rtol=1e-12, atol=0)


def test_definite_solve_falls_back_to_least_squares_where_g_is_singular():
    """A singular G (a redundant constraint): the Cholesky factor is refused and the least-squares
    solution with the cutoff 1e-14 is returned, as before."""
    rng = np.random.default_rng(7)
    A = rng.normal(size=(4, 3))
    G = A @ A.T  # rank 3
    b = G @ rng.normal(size=4)  # consistent
    want = np.linalg.lstsq(G, b, rcond=1e-14)[0]
    np.testing.assert_allclose(newton._definite_solve(G, b), want, rtol=0, atol=1e-10 * np.abs(want).max())


def test_factored_step_with_every_column_but_one_held_is_zero():
    """On the simplex with all but one column held, sum x = 0 forces x = 0: the constraints are
    redundant (G singular in exact arithmetic), and the step is 0, as the dense KKT system says."""
    model = ERLPBoost(random_edge_matrix(200, 6, seed=5), nu=20.0, eta=15.0)
    rng = np.random.default_rng(4)
    w, g = rng.dirichlet(np.ones(6)), rng.normal(size=6)
    H = model.dual_hessian(w, np.arange(6))
    step, _ = newton.factored_step(H, g, 0.0, True, np.arange(1, 6))
    np.testing.assert_allclose(step, 0.0, rtol=0, atol=1e-12 * np.abs(g).max())
