"""[KG] Appendix A: KKT active-set recovery of (w, psi, beta) from a primal solution d* alone.

The recovered multipliers are checked against (i) the KKT conditions written out here from the
thesis ([KG] Secs 3.1.2, 3.2.4, 3.3.4), not the library's linear system, (ii) the dual solved
independently on the other side by another solver, (iii) the closed-form normaliser of the thesis
(Eq. 3.16, the optimal beta of SoftBoost's dual function in [KG] Sec 3.1, the root of Eq. 3.27).

Accuracy budget: an interior-point primal d* has ~1e-6 error in its entries (its value is exact
to ~1e-11, and P(d) - P* ~ ||d - d*||^2 eta/2), so ln(d*) carries ~1e-6 / min d relative error;
recovered multipliers are compared to 1e-4 and dual values (flat at the optimum) to 1e-6.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from scipy.special import logsumexp

from dualboost.instances import random_edge_matrix
from dualboost.problems import (
    BinaryERLPBoost,
    CorrectiveBinaryERLPBoost,
    CorrectiveERLPBoost,
    ERLPBoost,
    LPBoost,
    SoftBoost,
)
from tests.references import lp_eq23

BINARY = (BinaryERLPBoost, CorrectiveBinaryERLPBoost)

MULT_TOL = 1e-4
VALUE_TOL = 1e-6


def softboost_instance(seed, n, t, nu):
    """A SoftBoost instance whose edge bound is halfway between P_LP and the best uniform edge, so
    that edge constraints bind and a Slater point exists."""
    U = random_edge_matrix(n, t, seed=seed)
    g = 0.5 * (lp_eq23(U, nu)[0] + U.mean(axis=0).max())
    return SoftBoost(U, nu=nu, gamma_hat=g, eps=0.0)


def build(kind):
    if kind == "erlp-nocap":  # docs/math.md#kkt-map's verified setting: N = 20, t = 4, eta = 5, nu = 4.5
        return ERLPBoost(random_edge_matrix(20, 4, seed=3), nu=4.5, eta=5.0)
    if kind == "erlp-caps":  # 2 capped coordinates
        return ERLPBoost(random_edge_matrix(20, 6, seed=1), nu=4.5, eta=20.0)
    if kind == "erlp-hard-margin":
        return ERLPBoost(random_edge_matrix(20, 4, seed=6), nu=1.0, eta=5.0)
    if kind == "binary":
        return BinaryERLPBoost(random_edge_matrix(20, 4, seed=3), nu=3.0, eta=5.0)
    if kind == "binary-hard-margin":
        return BinaryERLPBoost(random_edge_matrix(20, 4, seed=6), nu=1.0, eta=5.0)
    if kind == "softboost":
        return softboost_instance(7, 20, 5, 4.5)
    if kind == "corrective":  # M8: w = ((1 - a) w_prev, a), stationarity as ERLPBoost at U w(a)
        U = random_edge_matrix(20, 5, seed=0)
        return CorrectiveERLPBoost(U, np.random.default_rng(0).dirichlet(np.ones(4)), nu=3.0, eta=5.0)
    if kind == "corrective-binary":
        U = random_edge_matrix(20, 5, seed=0)
        return CorrectiveBinaryERLPBoost(U, np.random.default_rng(0).dirichlet(np.ones(4)), nu=3.0, eta=5.0)
    if kind == "totalboost":
        return softboost_instance(8, 20, 5, 1.0)
    raise AssertionError(kind)


KINDS = [
    "erlp-nocap",
    "erlp-caps",
    "erlp-hard-margin",
    "binary",
    "binary-hard-margin",
    "softboost",
    "totalboost",
    "corrective",
    "corrective-binary",
]


def spec_stationarity(model, d, w, psi, beta):
    """The stationarity residual of the thesis's Lagrangian, with beta the multiplier of sum d = 1:
    ERLPBoost (Eq. 3.13): (1/eta)(1 + ln(d/d0)) + U w + psi + beta = 0;
    SoftBoost (Eq. 3.4):  1 + ln(d/d0) + U w + psi + beta = 0;
    Binary (Eq. 3.28):    (1/eta)[ln(d/d0) - ln((1/nu - d)/(1/nu - d0))] + U w + beta = 0.
    Rows with d_n = 0 carry no information (ln 0); only rows with d_n > 1e-8 are returned."""
    rows = d > 1e-8
    dr, d0 = d[rows], model.d0[rows]
    margins = (model.U @ w)[rows]
    if isinstance(model, BINARY):
        c = 1.0 / model.nu
        grad = (np.log(dr / d0) - np.log((c - dr) / (c - d0))) / model.eta
        return grad + margins + beta
    eta = getattr(model, "eta", 1.0)
    grad = (1.0 + np.log(dr / d0)) / eta
    return grad + margins + psi[rows] + beta


def spec_beta(model, w, psi):
    """The optimal multiplier of sum d = 1 in closed form: Eq. 3.16 (ERLPBoost), [KG] Sec 3.1
    (SoftBoost, eta = 1); for Binary the root of sum_n d_n(beta) = 1 in Eq. 3.27, by bisection here."""
    m = model.U @ w
    if isinstance(model, BINARY):
        nu, eta, d0 = model.nu, model.eta, model.d0

        def total(beta):
            z = -eta * (m + beta)
            return np.sum(d0 * np.exp(z) / (1 - nu * d0 + nu * d0 * np.exp(z)))

        lo, hi = -10.0, 10.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if total(mid) > 1 else (lo, mid)
        return 0.5 * (lo + hi)
    eta = getattr(model, "eta", 1.0)
    return -1.0 / eta + logsumexp(np.log(model.d0) - eta * (m + psi)) / eta


@pytest.fixture(scope="module")
def solved():
    """Each instance solved on both sides with two different solvers (cached for the module)."""
    out = {}
    for kind in KINDS:
        model = build(kind)
        primal = model.solve(method="clarabel", side="primal")
        dual = model.solve(method="ecos", side="dual")
        assert primal.status == dual.status == "optimal", kind
        out[kind] = (model, primal, dual)
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_e9_recovery_matches_the_dual(kind, solved):
    model, primal, dual = solved[kind]
    d_star = primal.d
    kkt = model.kkt_from_d(d_star)
    assert kkt.residual <= MULT_TOL
    assert np.all(kkt.w >= 0)
    assert np.all(kkt.psi >= -1e-10)
    capped = d_star >= 1.0 / model.nu - 1e-6
    assert np.all(kkt.psi[~capped] == 0)
    # the recovered w is unique here (few generic columns): it is the solver's w
    np.testing.assert_allclose(kkt.w, dual.w, atol=MULT_TOL)
    # the KKT conditions as the thesis writes them, with the recovered psi (independent algebra)
    residual = spec_stationarity(model, d_star, kkt.w, kkt.psi, spec_beta(model, kkt.w, kkt.psi))
    assert np.abs(residual).max() <= MULT_TOL


@pytest.mark.parametrize("kind", KINDS)
def test_e9_w_from_d_is_dual_optimal(kind, solved):
    """dual_objective(w_from_d(d*)) equals the optimum: the recovered w must be dual feasible
    (in the simplex for the max-edge models) and optimal up to the accuracy of d*."""
    model, primal, dual = solved[kind]
    w = model.w_from_d(primal.d)
    assert model.dual_objective(w) == pytest.approx(dual.dual_value, abs=VALUE_TOL)


@pytest.mark.parametrize("kind", KINDS)
def test_e9_beta_is_the_multiplier_of_sum_d(kind, solved):
    """KKTMultipliers.beta is documented as the multiplier of sum d = 1; the thesis's stationarity
    (Eqs. 3.4, 3.13, 3.28) must hold with it, i.e. it equals Eq. 3.16 / its SoftBoost form / the
    Eq. 3.27 root."""
    model, primal, _ = solved[kind]
    kkt = model.kkt_from_d(primal.d)
    reference = spec_beta(model, kkt.w, kkt.psi)
    # a second reference: the multiplier cvxpy reports for sum d = 1 in the model's own primal
    problem = model.primal_problem()
    problem.solve(solver="CLARABEL")
    (sum_constraint,) = [
        c
        for c in problem.constraints
        if isinstance(c, cp.constraints.Equality) and str(c).startswith("Sum(d")
    ]
    assert float(np.ravel(sum_constraint.dual_value)[0]) == pytest.approx(reference, abs=MULT_TOL)
    assert kkt.beta == pytest.approx(reference, abs=MULT_TOL)
    residual = spec_stationarity(model, primal.d, kkt.w, kkt.psi, kkt.beta)
    assert np.abs(residual).max() <= MULT_TOL


def test_e9_lpboost_recovery():
    """LPBoost: w from d* by the restricted LP; its soft margin equals the LP value (the LP w is not
    unique, so only values are compared; HiGHS tolerance 1e-7)."""
    U = random_edge_matrix(15, 6, seed=2)
    model = LPBoost(U, nu=2.5)
    primal = model.solve(method="clarabel", side="primal")
    kkt = model.kkt_from_d(primal.d)
    assert np.all(kkt.w >= -1e-12) and kkt.w.sum() == pytest.approx(1.0, abs=1e-9)
    assert np.all(kkt.psi >= -1e-9)
    assert model.dual_objective(kkt.w) == pytest.approx(primal.primal_value, abs=1e-7)
    # slack psi_n = [rho - m_n]_+ (docs/math.md#erratum-kg-2) with rho = -beta
    rho = -kkt.beta
    np.testing.assert_allclose(kkt.psi, np.maximum(0.0, rho - U @ kkt.w), atol=1e-7)


@pytest.mark.parametrize("kind", KINDS)
def test_e9_recovery_is_robust_to_a_1e6_perturbation(kind, solved):
    """Perturb d* by 1e-6 (absolute), renormalise, recover with a tolerance-aware active set
    (tol = 1e-4): the recovered w still gives a dual value within ~1e-4 of the optimum."""
    model, primal, dual = solved[kind]
    rng = np.random.default_rng(0)
    d = np.clip(primal.d + 1e-6 * rng.standard_normal(primal.d.size), 1e-12, None)
    d /= d.sum()
    w = model.w_from_d(d, tol=1e-4)
    assert model.dual_objective(w) == pytest.approx(dual.dual_value, abs=1e-4)


def test_e9_recovery_with_tiny_entries():
    """At large eta some d*_n are ~1e-12, far below the primal solver's absolute accuracy, so
    ln(d*_n) is meaningless on those rows. A certified primal optimum (gap ~1e-10) must still
    give a w whose dual value is within 1e-6 of the optimum and which matches the dual w."""
    model = ERLPBoost(random_edge_matrix(20, 6, seed=0), nu=10.0, eta=50.0)
    primal = model.solve(method="clarabel", side="primal")
    dual = model.solve(method="ecos", side="dual")
    assert primal.status == dual.status == "optimal"
    assert primal.d.min() < 1e-10  # the situation this test is about
    kkt = model.kkt_from_d(primal.d)
    np.testing.assert_allclose(kkt.w, dual.w, atol=MULT_TOL)
    w = kkt.w / kkt.w.sum()  # isolate this failure from the sum-to-one one
    assert model.dual_objective(w) == pytest.approx(dual.dual_value, abs=VALUE_TOL)
