"""Known cases of [SS] reproduced by Relaxation ([SS] Secs 4.1-4.2 and 5; models M3, M7).

Each case is checked against an independent cvxpy solve of the primal written here, and the dual
side against the closed form the paper gives (Cor. 5, Examples 1-2, Thm 4, Eq. 8). Relaxations
built from the right regulariser give LPBoost's and ERLPBoost's optimal values and distributions.
Solves use Clarabel at tight tolerances and certify to 1e-9; closed forms are compared to 1e-10.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from dualboost import conjugates as cj
from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost, LPBoost, Relaxation

N, n = 24, 30  # n > N: no d in the simplex zeroes A^T d, so the values are positive
A = random_edge_matrix(N, n, seed=11)
UNIFORM = np.full(N, 1.0 / N)
TIGHT = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
SOLVE_TOL = 1e-9


def direct_primal(objective, constraints):
    """Solve ``min objective`` over the simplex plus ``constraints(d)`` in cvxpy; return (value, d)."""
    d = cp.Variable(N)
    problem = cp.Problem(cp.Minimize(objective(d)), [cp.sum(d) == 1, d >= 0, *constraints(d)])
    for solver, options in (("CLARABEL", TIGHT), ("ECOS", {"abstol": 1e-10, "reltol": 1e-10})):
        problem.solve(solver=solver, **options)
        if problem.status == cp.OPTIMAL:
            return problem.value, d.value
    raise AssertionError(f"the direct solve failed: {problem.status}")


def random_l1_points(rng, count=20):
    """Points of the l1 ball B_1^n: random directions scaled to norms in [0, 1]."""
    for _ in range(count):
        w = rng.standard_normal(n) * (rng.uniform(size=n) < 0.5)
        yield w / max(np.abs(w).sum(), 1e-12) * rng.uniform()


def assert_reproduces(rel, value, methods=("clarabel", "ecos"), tol=1e-7):
    """Both sides, each method: certified optimal and equal to the independent value."""
    for method in methods:
        for side in ("primal", "dual"):
            sol = rel.solve(method=method, side=side, tol=SOLVE_TOL)
            assert sol.optimal, (method, side, sol)
            assert sol.primal_value == pytest.approx(value, abs=tol)
            assert sol.dual_value == pytest.approx(value, abs=tol)


# --- Example 1 with l_inf: the soft margin, Cor. 5 ------------------------------------------
@pytest.mark.parametrize("k", [1, 4, 10])
def test_example1_linf_ball_is_the_soft_margin(k):
    rel = Relaxation(A, cj.NormBall(p=np.inf, radius=1.0 / k))
    assert rel.dual_form == "theorem7" and rel.conditions.hold
    value, _ = direct_primal(lambda d: cp.norm_inf(A.T @ d), lambda d: [d <= 1.0 / k])
    assert_reproduces(rel, value)
    rng = np.random.default_rng(k)
    for w in random_l1_points(rng):
        margins = A @ w
        avg_min = np.sort(margins)[:k].mean()  # Cor. 5: AvgMin_k(A w)
        # Example 1: gamma - (1/k) sum [gamma - (A w)_i]_+ is piecewise linear, maximal at a margin
        hinge = max(g - np.maximum(g - margins, 0).sum() / k for g in margins)
        assert rel.dual_objective(w) == pytest.approx(avg_min, abs=1e-10)
        assert hinge == pytest.approx(avg_min, abs=1e-12)
    # Cor. 5 at the optimum: max_w AvgMin_k(A w) = rho
    w = rel.solve(method="clarabel", side="dual", tol=SOLVE_TOL).w
    assert np.sort(A @ w)[:k].mean() == pytest.approx(value, abs=1e-7)


def test_lemma8_identity_for_the_linf_ball():
    """[SS] Example 1: (I_{||d||_inf <= 1/k} + I_S)* (Lemma 8) = the top-k average (greedy) = the LP."""
    k = 5
    restricted = cj.SimplexRestriction(cj.NormBall(p=np.inf, radius=1.0 / k))
    rng = np.random.default_rng(0)
    for _ in range(10):
        theta = rng.standard_normal(N)
        top_k = np.sort(theta)[::-1][:k].mean()
        lp = linprog(-theta, A_eq=np.ones((1, N)), b_eq=[1.0], bounds=[(0, 1.0 / k)] * N, method="highs")
        assert restricted.conjugate(theta) == pytest.approx(top_k, abs=1e-12)
        assert -lp.fun == pytest.approx(top_k, abs=1e-9)


# --- Example 1 with the l2 and l1 balls ---------------------------------------------------------
def test_example1_l2_ball():
    r = 1.1 / np.sqrt(N)
    rel = Relaxation(A, cj.NormBall(p=2, radius=r))
    assert rel.dual_form == "theorem7"
    value, _ = direct_primal(lambda d: cp.norm_inf(A.T @ d), lambda d: [cp.norm(d, 2) <= r])
    assert_reproduces(rel, value)
    # the dual of Example 1: max_{w in B_1, gamma} gamma - r ||[gamma - A w]_+||_2, written in cvxpy
    w, gamma = cp.Variable(n), cp.Variable()
    dual = cp.Problem(cp.Maximize(gamma - r * cp.norm(cp.pos(gamma - A @ w), 2)), [cp.norm1(w) <= 1])
    dual.solve(solver="ECOS", abstol=1e-10, reltol=1e-10)
    assert dual.status == cp.OPTIMAL
    assert dual.value == pytest.approx(value, abs=1e-7)
    for w_point in random_l1_points(np.random.default_rng(1), 5):
        g = cp.Variable()
        at_w = cp.Problem(cp.Maximize(g - r * cp.norm(cp.pos(g - A @ w_point), 2)))
        at_w.solve(solver="ECOS", abstol=1e-11, reltol=1e-11)
        assert at_w.status == cp.OPTIMAL
        assert rel.dual_objective(w_point) == pytest.approx(at_w.value, abs=1e-8)


def test_example1_l1_ball_is_the_hard_margin():
    """An l1 ball of radius 1 contains the simplex: Thm 4, max_w min_i (A w)_i = min_d ||A^T d||_inf."""
    rel = Relaxation(A, cj.NormBall(p=1, radius=1.0))
    value, _ = direct_primal(lambda d: cp.norm_inf(A.T @ d), lambda d: [])
    assert_reproduces(rel, value)
    for w in random_l1_points(np.random.default_rng(2)):
        assert rel.dual_objective(w) == pytest.approx((A @ w).min(), abs=1e-10)


# --- Example 2: f = nu ||d|| ------------------------------------------------------------------
@pytest.mark.parametrize("p", [2, np.inf])
def test_example2_norm_penalty(p):
    nu = 0.5
    rel = Relaxation(A, cj.Norm(p=p, radius=nu))
    assert rel.dual_form == "theorem7"
    value, _ = direct_primal(lambda d: cp.norm_inf(A.T @ d) + nu * cp.norm(d, p), lambda d: [])
    assert_reproduces(rel, value)
    # Example 2's dual: max gamma s.t. ||[gamma - A w]_+||_* <= nu, w in B_1
    q = {2: 2, np.inf: 1}[p]
    w, gamma = cp.Variable(n), cp.Variable()
    dual = cp.Problem(cp.Maximize(gamma), [cp.norm(cp.pos(gamma - A @ w), q) <= nu, cp.norm1(w) <= 1])
    dual.solve(solver="CLARABEL", **TIGHT)
    assert dual.value == pytest.approx(value, abs=1e-7)


# --- Eq. 8: the entropy-smoothed problem --------------------------------------------------------
@pytest.mark.parametrize("k", [1, 6])
def test_eq8_entropy_smoothed_relaxation(k):
    beta = 0.05
    rel = Relaxation(A, cj.NormBall(p=np.inf, radius=1.0 / k)).smoothed(beta)
    assert rel.dual_form == "general" and rel.d_is_unique
    assert isinstance(rel.regularizer, cj.CappedRelativeEntropy)  # the Fig. 2 projection, in closed form
    value, d_direct = direct_primal(
        lambda d: cp.norm_inf(A.T @ d) + beta * cp.sum(cp.rel_entr(d, UNIFORM)), lambda d: [d <= 1.0 / k]
    )
    assert_reproduces(rel, value, methods=("clarabel", "ecos", "scs"), tol=1e-7)
    sol = rel.solve(method="ecos", side="dual", tol=SOLVE_TOL)
    np.testing.assert_allclose(rel.d_from_w(sol.w), d_direct, atol=1e-6)
    # D(w) = -F*(-A w) with F* = beta log((1/m) sum e^{theta/beta}) when k = 1 ([SS] App. B)
    if k == 1:
        for w in random_l1_points(np.random.default_rng(3), 5):
            theta = -(A @ w)
            closed = beta * np.log(np.mean(np.exp(theta / beta)))
            assert rel.dual_objective(w) == pytest.approx(-closed, abs=1e-12)


# --- LPBoost and ERLPBoost as relaxations -------------------------------------------------------
@pytest.mark.parametrize("nu", [1.0, 3.0, 7.5])
def test_lpboost_is_the_edge_form_with_an_linf_ball(nu):
    U = random_edge_matrix(N, 8, seed=5)  # few columns: values can be negative without abs values
    lp, rel = LPBoost(U, nu=nu), Relaxation(U, cj.NormBall(p=np.inf, radius=1.0 / nu), form="edge")
    a = lp.solve(method="clarabel", side="primal", tol=SOLVE_TOL)
    b = rel.solve(method="clarabel", side="primal", tol=SOLVE_TOL)
    c = rel.solve(method="ecos", side="dual", tol=SOLVE_TOL)
    assert a.optimal and b.optimal and c.optimal
    assert b.primal_value == pytest.approx(a.primal_value, abs=1e-8)
    assert c.dual_value == pytest.approx(a.dual_value, abs=1e-8)
    # LP optima are faces: each model's optimal d is optimal for the other, its w too
    assert lp.primal_objective(b.d) == pytest.approx(a.primal_value, abs=1e-8)
    assert rel.primal_objective(a.d) == pytest.approx(a.primal_value, abs=1e-8)
    assert lp.dual_objective(c.w) == pytest.approx(a.primal_value, abs=1e-8)
    rng = np.random.default_rng(0)
    for _ in range(10):  # the objectives are the same functions
        w = rng.dirichlet(np.ones(8))
        assert rel.dual_objective(w) == pytest.approx(lp.dual_objective(w), abs=1e-12)


@pytest.mark.parametrize("form", ["abs", "simplex"])
def test_lpboost_over_the_reflexive_class_is_the_ss_relaxation(form):
    """[SS] Sec. 0 (c): B_1 over A = the simplex over [A, -A]."""
    nu = 4.0
    lp = LPBoost(np.hstack([A, -A]), nu=nu)
    rel = Relaxation(A, cj.NormBall(p=np.inf, radius=1.0 / nu), form=form)
    a = lp.solve(method="clarabel", side="dual", tol=SOLVE_TOL)
    b = rel.solve(method="clarabel", side="dual", tol=SOLVE_TOL)
    assert a.optimal and b.optimal
    assert b.primal_value == pytest.approx(a.primal_value, abs=1e-8)
    assert lp.primal_objective(b.d) == pytest.approx(a.primal_value, abs=1e-8)


@pytest.mark.parametrize("nu, eta", [(1.0, 10.0), (4.5, 20.0)])
def test_erlpboost_is_the_edge_form_with_a_capped_entropy(nu, eta):
    U = random_edge_matrix(N, 8, seed=6)
    d0 = np.random.default_rng(9).dirichlet(np.full(N, 3.0))
    erlp = ERLPBoost(U, nu=nu, eta=eta, d0=d0)
    rel = Relaxation(U, cj.NormBall(p=np.inf, radius=1.0 / nu) + (1.0 / eta) * cj.RelativeEntropy(d0),
                     form="edge")
    assert isinstance(rel.regularizer, cj.CappedRelativeEntropy)  # derived: ERLPBoost's regulariser
    direct, d_direct = direct_primal(
        lambda d: cp.max(U.T @ d) + cp.sum(cp.rel_entr(d, d0)) / eta, lambda d: [d <= 1.0 / nu]
    )
    for method in ("clarabel", "ecos"):
        for side in ("primal", "dual"):
            a = erlp.solve(method=method, side=side, tol=SOLVE_TOL)
            b = rel.solve(method=method, side=side, tol=SOLVE_TOL)
            assert a.optimal and b.optimal
            assert b.primal_value == pytest.approx(a.primal_value, abs=1e-8)
            assert b.primal_value == pytest.approx(direct, abs=1e-8)
            np.testing.assert_allclose(b.d, a.d, atol=1e-8)
            np.testing.assert_allclose(rel.d_from_w(b.w), erlp.d_from_w(a.w), atol=1e-8)
    np.testing.assert_allclose(rel.d_from_w(b.w), d_direct, atol=1e-6)
    rng = np.random.default_rng(1)
    for _ in range(10):
        w = rng.dirichlet(np.ones(8))
        assert rel.dual_objective(w) == pytest.approx(erlp.dual_objective(w), abs=1e-12)
        np.testing.assert_allclose(rel.d_from_w(w), erlp.d_from_w(w), atol=1e-14)


def test_erlpboost_over_the_reflexive_class_in_the_abs_form():
    nu, eta = 5.0, 30.0
    erlp = ERLPBoost(np.hstack([A, -A]), nu=nu, eta=eta)
    rel = Relaxation(A, cj.NormBall(p=np.inf, radius=1.0 / nu) + (1.0 / eta) * cj.RelativeEntropy(UNIFORM))
    a = erlp.solve(method="ecos", side="dual", tol=SOLVE_TOL)
    b = rel.solve(method="ecos", side="dual", tol=SOLVE_TOL)
    assert b.primal_value == pytest.approx(a.primal_value, abs=1e-8)
    np.testing.assert_allclose(rel.d_from_w(b.w), erlp.d_from_w(a.w), atol=1e-8)
