"""LPBoost (models M1/M2 of docs/math.md#model-catalogue): LP duality, solver agreement and the
degenerate cases, the N/2 lower bound ([KG] Thm 2.5), pivots and the bad example ([KG] Secs 2.3, 2.5).

Every value is compared with an independent computation: scipy's HiGHS on the LPs written out
here (Eq. 2.2 with explicit w, psi, rho; Eq. 2.3 with d, gamma), cvxpy formulations that the
library does not use (the hinge form, sum_largest, the [SS] l1-ball form), closed forms
(AvgMin by sorting) or values the thesis states. Tolerances: the LP and conic solvers run with
~1e-10 tolerances (interior point) and HiGHS's default 1e-7 primal/dual feasibility, so values
are compared to 1e-7 and distributions to 1e-6 unless a comment says otherwise.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from dualboost.instances import bad_example, lpboost_lower_bound, pivot_example, random_edge_matrix
from dualboost.problems import LPBoost
from tests.references import lp_eq22, lp_eq23

LP_TOL = 1e-7  # HiGHS feasibility/optimality tolerance is 1e-7; interior point ~1e-10


# --- independent references ---------------------------------------------------------------
def hinge_form(U, nu):
    """max_{w in simplex, rho} rho - (1/nu) sum [rho - (U w)_n]_+ (model M2, [SS] Eq. 6)."""
    w = cp.Variable(U.shape[1], nonneg=True)
    rho = cp.Variable()
    prob = cp.Problem(cp.Maximize(rho - cp.sum(cp.pos(rho - U @ w)) / nu), [cp.sum(w) == 1])
    prob.solve(solver="CLARABEL")
    return prob.value


def avgmin_form(U, k):
    """max_{w in simplex} AvgMin_k(U w), integer k ([SS] Cor 5), via cvxpy's sum_largest."""
    w = cp.Variable(U.shape[1], nonneg=True)
    prob = cp.Problem(cp.Maximize(-cp.sum_largest(-(U @ w), k) / k), [cp.sum(w) == 1])
    prob.solve(solver="CLARABEL")
    return prob.value


def avgmin_sorted(m, nu):
    """Mean of the nu smallest entries, real nu: (1/nu) sum_{j<=K} s_j + (1 - K/nu) s_{K+1}
    with s ascending, K = floor(nu) (docs/math.md#capped-simplex-support, applied to -m)."""
    s = np.sort(m)
    k = int(np.floor(nu))
    tail = (1.0 - k / nu) * s[k] if k < s.size else 0.0
    return s[:k].sum() / nu + tail


# --- LP duality ([KG] Eq. 2.1) -----------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("nu", [1.0, 2.5, 3.0])  # N/4 = 3 for N = 12
def test_e1_lp_duality_all_forms_agree(seed, nu):
    U = random_edge_matrix(12, 5, seed=seed)
    model = LPBoost(U, nu=nu)
    primal = model.solve(method="clarabel", side="primal")
    dual = model.solve(method="clarabel", side="dual")
    assert primal.status == dual.status == "optimal"
    value22, _ = lp_eq22(U, nu)
    value23, _ = lp_eq23(U, nu)
    assert value22 == pytest.approx(value23, abs=LP_TOL)  # LP duality of the references
    for value in (primal.primal_value, primal.dual_value, dual.primal_value, dual.dual_value):
        assert value == pytest.approx(value22, abs=LP_TOL)
    assert hinge_form(U, nu) == pytest.approx(value22, abs=LP_TOL)
    if float(nu).is_integer():
        assert avgmin_form(U, int(nu)) == pytest.approx(value22, abs=LP_TOL)


@pytest.mark.parametrize("nu", [1.0, 2.0, 2.5, 3.0, 7.3, 12.0])
def test_e1_dual_objective_is_avgmin_closed_form(nu):
    # closed form (sorting): exact up to rounding, 1e-12
    U = random_edge_matrix(12, 5, seed=7)
    model = LPBoost(U, nu=nu)
    rng = np.random.default_rng(1)
    for w in rng.dirichlet(np.ones(5), size=20):
        assert model.dual_objective(w) == pytest.approx(avgmin_sorted(U @ w, nu), abs=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_e1_ss_l1_ball_variant_equals_reflexive_simplex(seed, k):
    """[SS] Eqs. 2-3: min_{d capped} max_j |(d^T A)_j| = max_{||w||_1 <= 1} AvgMin_k(A w), and both
    equal the simplex version over [A, -A] (docs/math.md#signed-weights)."""
    A = random_edge_matrix(10, 4, seed=seed)
    n, m = A.shape
    # primal with |edges| by linprog: min g s.t. A^T d <= g, -A^T d <= g, capped simplex
    c = np.r_[np.zeros(n), 1.0]
    a_ub = np.vstack([np.hstack([A.T, -np.ones((m, 1))]), np.hstack([-A.T, -np.ones((m, 1))])])
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(2 * m),
        A_eq=np.r_[np.ones(n), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, 1.0 / k)] * n + [(None, None)],
        method="highs",
    )
    ss_primal = res.fun
    # dual over the l1 ball by cvxpy
    w = cp.Variable(m)
    prob = cp.Problem(cp.Maximize(-cp.sum_largest(-(A @ w), k) / k), [cp.norm1(w) <= 1])
    prob.solve(solver="CLARABEL")
    ss_dual = prob.value
    assert ss_primal >= -LP_TOL  # the [SS] value is always >= 0 (take w = 0)
    assert ss_dual == pytest.approx(ss_primal, abs=LP_TOL)
    solution = LPBoost(np.hstack([A, -A]), nu=k).solve(side="dual")
    assert solution.status == "optimal"
    assert solution.primal_value == pytest.approx(ss_primal, abs=LP_TOL)
    assert solution.dual_value == pytest.approx(ss_primal, abs=LP_TOL)


# --- solver agreement and degenerate cases -------------------------------------------------------
@pytest.mark.parametrize("nu", [1.0, 2.5])
def test_e2_solvers_agree_on_both_sides(nu):
    U = random_edge_matrix(15, 6, seed=11)
    reference, _ = lp_eq22(U, nu)
    for method, tol in [("clarabel", LP_TOL), ("ecos", LP_TOL), ("scs", 1e-4)]:  # SCS: first order
        for side in ("primal", "dual"):
            sol = LPBoost(U, nu=nu).solve(method=method, side=side)
            assert sol.status == "optimal", (method, side)
            assert sol.primal_value == pytest.approx(reference, abs=tol), (method, side)
            assert sol.dual_value == pytest.approx(reference, abs=tol), (method, side)


@pytest.mark.parametrize("side", ["primal", "dual"])
def test_e2_opposite_labels_give_hard_margin_zero(side):
    """Rows i and j = -i (one instance with both labels): d_i = d_j = 1/2 zeroes every edge. Over the
    reflexive class [A, -A] the value is max_j |edge_j| >= 0, hence exactly 0; with the 5 other
    rows of a generic 6 x 6 A the zero-edge distribution is unique (the 5 vectors a_0, a_1..a_4
    are linearly independent), so d = (e_i + e_j)/2 exactly."""
    A = random_edge_matrix(6, 6, seed=5)
    A[5] = -A[0]
    solution = LPBoost(np.hstack([A, -A]), nu=1).solve(side=side)
    assert solution.status == "optimal"
    assert solution.primal_value == pytest.approx(0.0, abs=LP_TOL)
    expected = np.zeros(6)
    expected[[0, 5]] = 0.5
    np.testing.assert_allclose(solution.d, expected, atol=1e-6)
    # without the negated columns the value is at most 0 (d = (e_0 + e_5)/2 has all edges 0)
    plain = LPBoost(A, nu=1).solve(side=side)
    assert plain.primal_value <= LP_TOL
    assert plain.primal_value == pytest.approx(lp_eq23(A, 1.0)[0], abs=LP_TOL)


@pytest.mark.parametrize("side", ["primal", "dual"])
def test_e2_nu_equal_n_forces_uniform_d_and_best_single_column(side):
    U = random_edge_matrix(10, 5, seed=8)
    n = U.shape[0]
    column_means = U.mean(axis=0)  # edges under the uniform d
    best = int(np.argmax(column_means))
    assert np.sort(column_means)[-1] - np.sort(column_means)[-2] > 1e-3  # unique best column
    solution = LPBoost(U, nu=n).solve(side=side)
    assert solution.status == "optimal"
    np.testing.assert_allclose(solution.d, np.full(n, 1.0 / n), atol=1e-9)
    assert solution.primal_value == pytest.approx(column_means[best], abs=LP_TOL)
    # k = m: the optimal w puts all weight on the best single column ([SS] Sec 4.1)
    np.testing.assert_allclose(solution.w, np.eye(5)[best], atol=1e-6)


@pytest.mark.parametrize("nu", [10.5, 11.0, 100.0])
def test_e2_nu_above_n_raises(nu):
    with pytest.raises(ValueError, match="nu"):
        LPBoost(random_edge_matrix(10, 3), nu=nu)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("nu", [1.0, 2.5, 4.0])
def test_d_from_w_of_optimal_w_is_primal_optimal(seed, nu):
    """The LP d is not unique; d_from_w(w*) must be *a* primal optimum (value = Eq. 2.3 LP)."""
    U = random_edge_matrix(12, 5, seed=seed)
    value, w_star = lp_eq22(U, nu)
    model = LPBoost(U, nu=nu)
    d = model.d_from_w(w_star)
    assert np.all(d >= -1e-12) and np.all(d <= 1.0 / nu + 1e-12)
    assert d.sum() == pytest.approx(1.0, abs=1e-9)
    assert model.primal_objective(d) == pytest.approx(value, abs=LP_TOL)


# --- [KG] Thm 2.5: the LPBoost N/2 lower bound -------------------------------------------------------
def run_lpboost_with_max_edge_oracle(U, nu, n_iter):
    """Algorithm 2.1 with the max-edge oracle over the columns of U: returns the chosen columns, the
    values P_LP^t and the distributions d^t."""
    n = U.shape[0]
    d = np.full(n, 1.0 / n)
    chosen, values, dists = [], [], []
    for _ in range(n_iter):
        edges = U.T @ d
        order = np.argsort(-edges)
        # the construction makes the hypotheses arrive without ties; 1e-5 is far above the LP accuracy
        assert edges[order[0]] - edges[order[1]] > 1e-5
        chosen.append(int(order[0]))
        solution = LPBoost(U[:, chosen], nu=nu).solve(method="clarabel", side="primal")
        assert solution.status == "optimal"
        d = solution.d
        values.append(solution.primal_value)
        dists.append(d)
    return chosen, values, dists


@pytest.mark.parametrize("n", [8, 12, 20])
def test_e13_lpboost_needs_n_over_2_iterations(n):
    U = lpboost_lower_bound(n)
    delta, m = 0.01 / n, n // 2
    chosen, values, dists = run_lpboost_with_max_edge_oracle(U, 1.0, m + 1)
    assert chosen == list(range(m + 1))  # columns arrive in order 1..M+1
    for t in range(1, m + 1):
        assert values[t - 1] == pytest.approx(-1.0 + 2 * t * delta, abs=LP_TOL)  # [KG] Fig. 2.8
        # d^t = e_{M+t} is unique (docs/math.md#lpboost-lower-bound); interior point returns it to ~1e-8
        np.testing.assert_allclose(dists[t - 1], np.eye(n)[m + t - 1], atol=1e-6)
    assert values[-1] >= delta / 2 - LP_TOL
    # the final value is the optimum over all columns (independent LP)
    assert values[-1] == pytest.approx(lp_eq23(U, 1.0)[0], abs=LP_TOL)
    assert values[-1] - values[m - 1] >= 0.99


@pytest.mark.parametrize("n, nu", [(8, 2), (8, 3), (12, 2)])
def test_e13_row_duplication_gives_the_same_count(n, nu):
    U = np.repeat(lpboost_lower_bound(n), nu, axis=0)
    delta, m = 0.01 / n, n // 2
    chosen, values, _ = run_lpboost_with_max_edge_oracle(U, float(nu), m + 1)
    assert chosen == list(range(m + 1))
    for t in range(1, m + 1):
        assert values[t - 1] == pytest.approx(-1.0 + 2 * t * delta, abs=LP_TOL)
    assert values[-1] >= delta / 2 - LP_TOL
    assert values[-1] - values[m - 1] >= 0.99


# --- [KG] Sec 2.3: pivots ---------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["primal", "dual"])
def test_e14_pivot_example(side):
    U = pivot_example()
    assert U[1, 2] == 2.0  # Fig 2.7: the pivot (2, 3) has value 2
    solution = LPBoost(U / 3.0, nu=1).solve(side=side)
    assert solution.status == "optimal"
    assert solution.primal_value == pytest.approx(2.0 / 3.0, abs=LP_TOL)
    # unique: edge of column 3 is (3 - d_2)/3, the margins are (w_3, (1 + w_3)/3, w_3)
    np.testing.assert_allclose(solution.d, [0.0, 1.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(solution.w, [0.0, 0.0, 1.0], atol=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_e14_planted_saddle_point(seed):
    rng = np.random.default_rng(seed)
    n, t = rng.integers(3, 12), rng.integers(2, 8)
    i, j = rng.integers(n), rng.integers(t)
    v = rng.uniform(-0.8, 0.8)
    U = rng.uniform(-1, 1, size=(n, t))
    U[i, :] = rng.uniform(-1, v, size=t)  # row i: every entry <= v
    U[:, j] = rng.uniform(v, 1, size=n)  # column j: every entry >= v
    U[i, j] = v
    model = LPBoost(U, nu=1)
    # Lemma 2.4 by hand: e_i certifies value <= v, e_j certifies value >= v
    assert model.primal_objective(np.eye(n)[i]) == pytest.approx(v, abs=1e-15)
    assert model.dual_objective(np.eye(t)[j]) == pytest.approx(v, abs=1e-15)
    for side in ("primal", "dual"):
        solution = model.solve(side=side)
        assert solution.status == "optimal"
        assert solution.primal_value == pytest.approx(v, abs=LP_TOL)


# --- [KG] Sec 2.5: the bad example (LP part) -------------------------------------------------------
@pytest.mark.parametrize("side", ["primal", "dual"])
def test_e15_bad_example_misclassifies_everything(side):
    delta = 0.01
    U = bad_example(delta)
    assert U.shape == (9, 6)
    solution = LPBoost(U, nu=1).solve(side=side)
    assert solution.status == "optimal"
    assert solution.primal_value == pytest.approx(-2 * delta, abs=LP_TOL)
    np.testing.assert_allclose(solution.w, np.eye(6)[5], atol=1e-6)  # the unique w = e_6
    assert np.all(U @ solution.w < 0)  # every example misclassified
    assert lp_eq22(U, 1.0)[0] == pytest.approx(-2 * delta, abs=LP_TOL)
