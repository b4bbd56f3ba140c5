"""The boosters of dualboost.boosting.relaxation: [SS] Fig. 1 and Eq. 13
(docs/math.md#ss-booster).

* [SS] Lemma 11's identity P(d_t) - D(w_t) = <d_t, A(e^{j_t} - w_t)> at every iterate, with P and D
  evaluated independently of the booster (closed forms of [SS] App. B, or the model's objectives).
* [SS] Thm 9 on random A with m from 50 to 500: the iteration bound, the accuracy against rho from
  an LP (HiGHS), ||w||_1 <= 1 and eps_t <= 16 log(m) / ((t + 1) eps) with the smoothed optimum
  from an independent cvxpy solve; the totally corrective variant respects the same bound.
* With beta = 1/eta and the cap 1/nu, the [SS] iterates equal [KG] Alg. 4.1's (corrected step
  and projection, implemented below from the thesis), same oracle order, w_1 = 0.
"""

from __future__ import annotations

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.special import logsumexp

from dualboost import conjugates as cj
from dualboost.boosting import (
    corrective_relaxation_boost,
    max_edge_oracle,
    totally_corrective_relaxation_boost,
)
from dualboost.boosting.relaxation import theorem9_iterations
from dualboost.problems import Relaxation


def learnable(m, n, seed, p=0.8):
    """+-1 edges, each +1 with probability p: weak-learnable, so rho > eps for eps <= 0.2."""
    rng = np.random.default_rng(seed)
    return np.where(rng.uniform(size=(m, n)) < p, 1.0, -1.0)


def soft_margin_rho(A, k):
    """rho = min_{d in S, d <= 1/k} max_j |(A^T d)_j| ([SS] Eq. 2) by HiGHS."""
    m, n = A.shape
    res = linprog(
        np.r_[np.zeros(m), 1.0],
        A_ub=np.vstack([np.hstack([A.T, -np.ones((n, 1))]), np.hstack([-A.T, -np.ones((n, 1))])]),
        b_ub=np.zeros(2 * n),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, 1.0 / k)] * m + [(None, None)],
        method="highs",
    )
    assert res.status == 0
    return res.fun


def avg_min(margins, k):
    """AvgMin_k: the mean of the k smallest margins (= the soft margin, [SS] Cor. 5)."""
    return float(np.sort(margins)[:k].mean())


def smoothed_optimum(A, k, beta):
    """An upper bound, tight to the solver's accuracy, on min_{d in S, d <= 1/k} ||A^T d||_inf +
    beta h(d) ([SS] Eq. 8, = max D by strong duality): the problem is written directly in cvxpy and
    the objective is re-evaluated here at the solver's d, made feasible (solvers' own values can be
    inf or inaccurate on rel_entr)."""
    m = A.shape[0]
    d = cp.Variable(m)
    objective = cp.norm_inf(A.T @ d) + beta * cp.sum(cp.rel_entr(d, np.full(m, 1.0 / m)))
    problem = cp.Problem(cp.Minimize(objective), [cp.sum(d) == 1, d >= 0, d <= 1.0 / k])
    with warnings.catch_warnings():  # an inaccurate solve is fine: the value is recomputed below
        warnings.simplefilter("ignore", UserWarning)
        problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10)
    assert problem.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)
    x = cj.project_capped_simplex(d.value, k)
    return np.abs(A.T @ x).max() + beta * (float(np.sum(x[x > 0] * np.log(x[x > 0]))) + math.log(m))


# --- [SS] Lemma 11 ---------------------------------------------------------------------------
def test_lemma11_identity_hard_margin_against_closed_forms():
    """f = I_S (l1 ball of radius 1): F* = beta log((1/m) sum e^{theta/beta}) ([SS] App. B), F = beta h."""
    A = np.random.default_rng(3).uniform(-1, 1, (60, 25))
    m = A.shape[0]
    res = corrective_relaxation_boost(Relaxation(A, cj.NormBall(p=1, radius=1.0)), 0.05, keep_iterates=True)
    beta = res.beta
    assert len(res.history) > 20
    for row in res.history:
        d, w = row["d"], row["w"]
        assert abs(d.sum() - 1) < 1e-12 and d.min() >= 0
        h = float(np.sum(d[d > 0] * np.log(d[d > 0]))) + math.log(m)
        primal = np.abs(A.T @ d).max() + beta * h
        dual = -beta * (logsumexp(-(A @ w) / beta) - math.log(m))
        j = row["column"]
        identity = row["sign"] * (d @ A[:, j]) - d @ (A @ w)
        assert primal - dual == pytest.approx(identity, abs=1e-12)
        assert row["gap"] == pytest.approx(identity, abs=1e-12)
        assert row["primal"] == pytest.approx(primal, abs=1e-12)
        assert row["dual"] == pytest.approx(dual, abs=1e-12)


@pytest.mark.parametrize(
    "f, tol",
    [
        (cj.NormBall(p=np.inf, radius=1.0 / 6), 1e-12),  # soft margin: Fig. 2 projection
        (cj.NormBall(p=np.inf, radius=1.0 / 6) + 0.02 * cj.RelativeEntropy(np.full(60, 1 / 60)), 1e-12),
        (cj.NormBall(p=2, radius=0.2), 1e-7),  # infimal convolution by a conic solve: solver accuracy
    ],
    ids=["soft-margin", "soft-margin+entropy", "l2-ball"],
)
def test_lemma11_identity_with_the_model_objectives(f, tol):
    A = learnable(60, 20, 4)
    rel = Relaxation(A, f)
    res = corrective_relaxation_boost(rel, 0.2, keep_iterates=True, max_iter=40 if tol > 1e-9 else None)
    smoothed = rel.smoothed(res.beta)
    for row in res.history:
        d, w = row["d"], row["w"]
        identity = row["sign"] * (d @ A[:, row["column"]]) - d @ (A @ w)
        assert smoothed.primal_objective(d) - smoothed.dual_objective(w) == pytest.approx(identity, abs=tol)


# --- [SS] Theorem 9 ----------------------------------------------------------------------------
@pytest.mark.parametrize("m, n, eps", [(50, 30, 0.2), (200, 40, 0.15), (500, 60, 0.2), (500, 40, 0.1)])
def test_theorem9_corrective(m, n, eps):
    A = learnable(m, n, m + n)
    k = m // 10
    rel = Relaxation(A, cj.NormBall(p=np.inf, radius=1.0 / k))
    res = corrective_relaxation_boost(rel, eps)
    rho = soft_margin_rho(A, k)
    assert rho > eps  # the accuracy statement is not vacuous
    assert res.converged
    assert res.iterations <= 32 * math.log(m) / eps**2
    assert np.abs(res.w).sum() <= 1 + 1e-12
    # accuracy: max_gamma gamma - f*([gamma - A w]_+) = AvgMin_k(A w) >= rho - eps
    assert avg_min(A @ res.w, k) >= rho - eps
    assert rel.dual_objective(res.w) == pytest.approx(avg_min(A @ res.w, k), abs=1e-10)
    # eps_t = max D - D(w_t) <= 16 log(m) / ((t + 1) eps)
    d_star = smoothed_optimum(A, k, res.beta)
    for row in res.history:
        assert d_star - row["dual"] <= 16 * math.log(m) / ((row["iteration"] + 1) * eps) + 1e-7
        assert row["dual"] <= d_star + 1e-9  # weak duality of Eq. 8
    assert d_star - max(row["dual"] for row in res.history) <= eps  # the bound is tight enough to test


@pytest.mark.parametrize("m, n, eps", [(50, 30, 0.2), (200, 40, 0.2)])
def test_theorem9_totally_corrective(m, n, eps):
    A = learnable(m, n, m + n)
    k = m // 10
    rel = Relaxation(A, cj.NormBall(p=np.inf, radius=1.0 / k))
    res = totally_corrective_relaxation_boost(rel, eps)
    rho = soft_margin_rho(A, k)
    assert res.converged
    assert res.iterations <= 32 * math.log(m) / eps**2
    assert np.abs(res.w).sum() <= 1 + 1e-9
    assert avg_min(A @ res.w, k) >= rho - eps
    d_star = smoothed_optimum(A, k, res.beta)
    for row in res.history:
        assert d_star - row["dual"] <= 16 * math.log(m) / ((row["iteration"] + 1) * eps) + 1e-7
        assert row["status"] is None or row["status"].startswith("optimal")
    # totally corrective: no more rounds than the corrective run on the same instance
    assert res.iterations <= corrective_relaxation_boost(rel, eps).iterations


def test_theorem9_bound_helper():
    assert theorem9_iterations(500, 0.2) == math.ceil(32 * math.log(500) / 0.04)


# --- [SS] Fig. 1 == [KG] Alg. 4.1 after the unit conversion ----------------------------------
def glocer_project(weights, nu):
    """[KG] Alg. 4.2 with the cap-unit erratum fixed (docs/math.md#erratum-kg-12): cap 1/nu."""
    order = np.argsort(-weights, kind="stable")
    sorted_w = weights[order]
    z = sorted_w.sum()
    for i in range(weights.size):  # n = i + 1 in the thesis's 1-based loop
        theta = (1.0 - i / nu) / z
        if theta * sorted_w[i] <= 1.0 / nu:
            break
        z -= sorted_w[i]
    return np.minimum(1.0 / nu, theta * weights)


def glocer_alg41(U, nu, eta, rounds):
    """[KG] Alg. 4.1 (Sec 4.2) with the corrected step x.d / (eta ||x||_inf^2); max-edge oracle
    (first index on ties); returns per round (d^{t-1}, chosen column, w^{t-1} over U's columns)."""
    N, t = U.shape
    d0 = np.full(N, 1.0 / N)
    d = d0.copy()
    w = np.zeros(t)  # w^0 = 0, aggregated over U's columns
    out = []
    for _ in range(rounds):
        q = int(np.argmax(U.T @ d))
        out.append((d.copy(), q, w.copy()))
        x = U[:, q] - U @ w
        step = min(1.0, max(0.0, (x @ d) / (eta * np.abs(x).max() ** 2)))
        w *= 1.0 - step
        w[q] += step
        d = glocer_project(d0 * np.exp(-eta * (U @ w)), nu)  # (f)-(g)
    return out


@pytest.mark.parametrize("nu, eta", [(8.0, 20.0), (1.0, 5.0), (15.5, 60.0)])
def test_ss_iterates_equal_glocer_alg41(nu, eta):
    B = np.random.default_rng(7).uniform(-1, 1, (40, 12))
    rounds = 60
    rel = Relaxation(B, cj.NormBall(p=np.inf, radius=1.0 / nu))
    ss = corrective_relaxation_boost(rel, 1e-12, beta=1.0 / eta, max_iter=rounds, keep_iterates=True)
    kg = glocer_alg41(np.hstack([B, -B]), nu, eta, rounds)  # the reflexive class of [KG]
    assert len(ss.history) == rounds
    n = B.shape[1]
    for row, (d, q, w) in zip(ss.history, kg, strict=True):
        assert q == (row["column"] if row["sign"] > 0 else row["column"] + n)  # same oracle order
        np.testing.assert_allclose(row["d"], d, rtol=0, atol=1e-12)
        np.testing.assert_allclose(row["w"], w[:n] - w[n:], rtol=0, atol=1e-12)


def test_simplex_form_runs_the_same_iterates_as_the_abs_form():
    B = np.random.default_rng(8).uniform(-1, 1, (30, 10))
    f = cj.NormBall(p=np.inf, radius=0.1)
    a = corrective_relaxation_boost(Relaxation(B, f, form="abs"), 0.05, beta=0.02, max_iter=50)
    s = corrective_relaxation_boost(Relaxation(B, f, form="simplex"), 0.05, beta=0.02, max_iter=50)
    np.testing.assert_allclose(a.margins, s.margins, atol=1e-13)
    assert s.w.min() >= 0 and s.w.sum() == pytest.approx(1.0)  # padded onto the simplex of 2n
    rel = Relaxation(B, f, form="simplex")
    assert rel.dual_objective(s.w) == pytest.approx(Relaxation(B, f).dual_objective(a.w), abs=1e-12)


# --- oracles ---------------------------------------------------------------------------------
def test_vector_oracle_gives_the_same_run_as_the_index_oracle():
    A = learnable(50, 15, 2)
    rel = Relaxation(A, cj.NormBall(p=np.inf, radius=0.1))
    pick = max_edge_oracle(rel)
    by_index = corrective_relaxation_boost(rel, 0.2)
    by_vector = corrective_relaxation_boost(rel, 0.2, oracle=lambda d: A[:, pick(d)])
    assert by_vector.w is None  # hypotheses outside the model's index space
    assert by_vector.iterations == by_index.iterations
    np.testing.assert_allclose(by_vector.margins, A @ by_index.w, atol=1e-13)


def test_totally_corrective_accepts_a_vector_oracle():
    A = learnable(40, 12, 5)
    rel = Relaxation(A, cj.NormBall(p=np.inf, radius=0.1))
    pick = max_edge_oracle(rel)
    res = totally_corrective_relaxation_boost(rel, 0.2, oracle=lambda d: A[:, pick(d)])
    assert res.converged and res.w is None and res.columns.shape[1] <= res.iterations


# --- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"eps": 0.0}, "eps"),
        ({"eps": -1.0}, "eps"),
        ({"eps": np.nan}, "eps"),
        ({"eps": 0.1, "beta": 0.0}, "beta"),
        ({"eps": 0.1, "max_iter": 0}, "max_iter"),
        ({"eps": 0.1, "max_iter": 2.5}, "max_iter"),
        ({"eps": 0.1, "oracle": lambda d: 99}, "oracle"),
        ({"eps": 0.1, "oracle": lambda d: np.ones(3)}, "oracle"),
        ({"eps": 0.1, "oracle": lambda d: np.full(20, 2.0)}, "oracle"),
    ],
)
@pytest.mark.parametrize("booster", [corrective_relaxation_boost, totally_corrective_relaxation_boost])
def test_bad_booster_input_is_a_value_error(booster, kwargs, match):
    rel = Relaxation(learnable(20, 5, 0), cj.NormBall(p=np.inf, radius=0.25))
    with pytest.raises(ValueError, match=match):
        booster(rel, **kwargs)


def test_booster_needs_a_relaxation():
    with pytest.raises(ValueError, match="model"):
        corrective_relaxation_boost(np.zeros((3, 3)), 0.1)
