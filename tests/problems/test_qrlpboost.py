"""QRLP-Boost (docs/math.md#qrlp-boost): the max-edge pair with the second-order expansion of the
entropy at a centre c on the capped simplex.

Every value is compared with an independent computation: the conjugate with the library's
numerical conjugate (an LP/QP solve of the sup), the curvature with finite differences, each side
with the other solved by another method, and the limit of colboost's re-centred sequence with
ERLPBoost's solution at the same nu and eta (where the expansion's gradient equals the entropy's).
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost import conjugates as cj
from dualboost.conjugates import CappedQuadratic
from dualboost.conjugates.calculus import SeparableSum, Tilted
from dualboost.conjugates.numerical import numerical_conjugate
from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost, QRLPBoost, Relaxation


@pytest.mark.parametrize(
    "n, nu, eta", [(10, 1.0, 1.0), (10, 3.0, 5.0), (40, 10.0, 100.0), (20, 20.0, 2.0), (30, 2.5, 1e6)]
)
def test_conjugate_against_the_numerical_sup(n, nu, eta):
    """f*(theta) by the weighted projection against the sup solved numerically; the maximiser is
    on the capped simplex and satisfies the Fenchel-Young equality (nu = N: every entry capped)."""
    rng = np.random.default_rng(n)
    f = CappedQuadratic(rng.dirichlet(np.ones(n)), nu, eta)
    for _ in range(3):
        theta = rng.normal(size=n)
        value, d = f.conjugate_and_grad(theta)
        assert value == pytest.approx(numerical_conjugate(f, theta), abs=1e-9 * max(1.0, abs(value)))
        assert f.in_domain(d)
        assert f.fenchel_young_gap(d, theta) == pytest.approx(0.0, abs=1e-9 * max(1.0, abs(value)))


def test_hessian_factors_match_finite_differences():
    """On a piece d* is affine in theta with Jacobian ``eta (diag s - s s^T / sum s)``."""
    rng = np.random.default_rng(2)
    n = 25
    f = CappedQuadratic(rng.dirichlet(np.ones(n)), nu=4.0, eta=30.0)
    theta = rng.normal(size=n) * 0.05
    s, scale = f.conjugate_hessian_factors(theta)
    d = f.conjugate_grad(theta)
    assert 0 < np.count_nonzero(s) < n and (d == 0).any()  # a piece with coordinates at 0
    v = rng.normal(size=n)
    h = 1e-8
    fd = (f.conjugate_grad(theta + h * v) - f.conjugate_grad(theta - h * v)) / (2 * h)
    hv = scale * (s * v - s * (s @ v) / s.sum())
    np.testing.assert_allclose(hv, fd, atol=1e-6)


@pytest.mark.parametrize("nu, eta", [(1.0, 10.0), (8.0, 20.0), (8.0, 1e4), (150.0, 5.0)])
@pytest.mark.parametrize("binary", [True, False])
def test_primal_equals_dual_across_methods(nu, eta, binary):
    """The QP (Clarabel, primal) and the dual by auglag reach the same value within 1e-8, and the
    KKT map sends auglag's w to the primal's d (unique: f is strictly convex)."""
    U = random_edge_matrix(150, 12, seed=3, binary=binary)
    center = np.random.default_rng(1).dirichlet(np.ones(150))
    model = QRLPBoost(U, nu=nu, eta=eta, center=center)
    primal = model.solve(method="clarabel", side="primal", tol=1e-9)
    dual = model.solve(method="auglag", side="dual", tol=1e-10)
    assert primal.status == dual.status == "optimal"
    assert dual.dual_value == pytest.approx(primal.primal_value, abs=1e-8)
    np.testing.assert_allclose(model.d_from_w(dual.w), dual.d, atol=1e-12)
    np.testing.assert_allclose(dual.d, primal.d, atol=1e-6)


@pytest.mark.parametrize("nu, eta", [(1.0, 5.0), (4.0, 20.0), (30.0, 2.0)])
def test_declared_as_a_relaxation_the_derived_dual_is_the_hand_written_one(nu, eta):
    """QRLP-Boost is a relaxation in [SS]'s sense (Def. 6, form "edge": d in the simplex, the
    max edge plus a convex f). Declared through ``Relaxation`` with f built from the library's
    pieces (a separable sum of scaled squares, the tilt ``ln c / eta``, the l_inf ball of the caps),
    the dual the calculus derives, ``-(f + I_S)*(-U w)`` (an infimal convolution it evaluates by a
    numerical solve, so to 1e-8), equals the hand-written weighted projection of CappedQuadratic;
    the primal objectives are the same function (to rounding), and so are the optima and d."""
    n, t = 30, 8
    rng = np.random.default_rng(int(nu * 10 + eta))
    U = random_edge_matrix(n, t, seed=1)
    c = rng.dirichlet(np.ones(n))
    squares = SeparableSum([(1.0 / (eta * cn)) * cj.HalfSquaredNorm(2) for cn in c], sizes=[1] * n)
    f = Tilted(squares, np.log(c) / eta) + cj.NormBall(p=np.inf, radius=1 / nu)
    relaxation = Relaxation(U, f, form="edge")
    model = QRLPBoost(U, nu=nu, eta=eta, center=c)
    assert relaxation.dual_form == "general"  # no closed form: the calculus's infimal convolution
    for _ in range(3):
        w = rng.dirichlet(np.ones(t))
        assert relaxation.dual_objective(w) == pytest.approx(model.dual_objective(w), abs=1e-8)
        d = cj.project_capped_simplex(rng.dirichlet(np.ones(n)), nu)
        assert relaxation.primal_objective(d) == pytest.approx(model.primal_objective(d), abs=1e-12)
    derived = relaxation.solve(method="clarabel", side="dual", tol=1e-9)
    hand_written = model.solve(method="auglag", tol=1e-11)
    assert derived.status == hand_written.status == "optimal"
    assert derived.dual_value == pytest.approx(hand_written.dual_value, abs=1e-8)
    np.testing.assert_allclose(derived.d, hand_written.d, atol=1e-6)


def test_kkt_recovery_gives_an_optimal_w():
    U = random_edge_matrix(200, 15, seed=4, binary=True)
    model = QRLPBoost(U, nu=20.0, eta=50.0)
    sol = model.solve(method="clarabel", side="dual", tol=1e-10)
    kkt = model.kkt_from_d(sol.d)
    assert model.dual_objective(kkt.w) == pytest.approx(sol.dual_value, abs=1e-8)


def _settled(model: QRLPBoost) -> tuple[QRLPBoost, object]:
    """colboost's iteration (solve, move the centre to the solution) until the centre moves by less
    than 1e-12, at most 30 solves: the last model and its solution (every d positive on the way)."""
    for _ in range(30):
        sol = model.solve(method="auglag", tol=1e-12)
        assert sol.d.min() > 0
        if np.abs(sol.d - model.center).max() < 1e-12:
            return model, sol
        model = model.recentred(sol.d)
    pytest.fail("the re-centred sequence did not settle in 30 solves")


@pytest.mark.parametrize("nu, eta", [(1.0, 1.0), (20.0, 1.5)])
def test_the_recentred_sequence_tends_to_erlpboost(nu, eta):
    """colboost's iteration (solve, move the centre to the solution) converges where the solutions
    stay positive, and its limit is ERLPBoost's solution with the uniform prior: at c = d the
    expansion's gradient ln c + d/c equals the entropy's ln d + 1 (docs/math.md#qrlp-boost). The
    values differ by the constant ``(1/2 - ln N) / eta``: f_c(d) at c = d is
    ``(1/eta) sum d ln d + 1/(2 eta)``, the relative entropy to uniform is
    ``(1/eta) sum d ln d + ln N / eta``."""
    n = 100
    U = random_edge_matrix(n, 10, seed=6)
    model = QRLPBoost(U, nu=nu, eta=eta)
    model, sol = _settled(model)
    reference = ERLPBoost(U, nu=nu, eta=eta).solve(method="auglag", tol=1e-12)
    np.testing.assert_allclose(sol.d, reference.d, atol=1e-10)
    assert sol.dual_value - reference.dual_value == pytest.approx((0.5 - np.log(n)) / eta, abs=1e-9)


#: colboost 0.1.5's eta for QRLP-Boost and ERLP-Boost: ``max(1/2, ln N / half_tol)``, half_tol = 0.99 / 2
def _colboost_eta(n: int) -> float:
    return max(0.5, np.log(n) / (0.99 / 2))


def test_at_colboosts_eta_the_first_expansion_already_has_zeros():
    """With colboost's eta = ln N / 0.495 the first QP (centre uniform) puts weight 0 on examples, so
    its sequence stops at once: the subproblem it solves is LPBoost plus (N / (2 eta)) ||d||^2."""
    n = 100
    U = random_edge_matrix(n, 10, seed=6)
    eta = _colboost_eta(n)
    sol = QRLPBoost(U, nu=10.0, eta=eta).solve(method="auglag", tol=1e-10)
    assert (sol.d == 0).any()
    d = sol.d  # the regulariser at the uniform centre: (1/eta)(-ln N + (N/2)||d||^2) on the simplex
    assert QRLPBoost(U, nu=10.0, eta=eta).regularizer.value(d) == pytest.approx(
        (-np.log(n) + 0.5 * n * d @ d) / eta, abs=1e-15
    )


@pytest.mark.parametrize("nu", [1.0, 10.0])
def test_colboosts_erlp_boost_is_the_first_qrlp_qp_at_half_its_eta(nu):
    """colboost's ``erlp_boost`` minimises ``gamma + (1/eta) sum_n d_n (ln c_n + (d_n - c_n) / c_n)`` at the
    uniform centre c (its loop ends after that solve; docs/math.md#qrlp-boost), written here in cvxpy
    from that formula: the quadratic term is twice QRLP-Boost's, and sum d ln c = -ln N is constant on
    the simplex, so it is QRLP-Boost's first QP at eta / 2. The same d (both objectives are strongly
    convex in d, modulus 2N/eta, so gaps of 1e-12 bound the distance by sqrt(1e-12 eta / N) < 1e-6);
    the values differ by the constant (ln N - 1) / eta."""
    cp = pytest.importorskip("cvxpy")
    n = 100
    U = random_edge_matrix(n, 10, seed=6)
    eta = _colboost_eta(n)
    c = np.full(n, 1.0 / n)
    d, gamma = cp.Variable(n), cp.Variable()
    regulariser = np.log(c) @ d + cp.sum(cp.multiply(1 / c, cp.square(d))) - cp.sum(d)
    constraints = [cp.sum(d) == 1, d >= 0, d <= 1 / nu, U.T @ d <= gamma]
    colboost = cp.Problem(cp.Minimize(gamma + regulariser / eta), constraints)
    colboost.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    first = QRLPBoost(U, nu=nu, eta=eta / 2).solve(method="auglag", tol=1e-12)
    np.testing.assert_allclose(d.value, first.d, atol=1e-6)
    assert colboost.value - first.primal_value == pytest.approx((np.log(n) - 1) / eta, abs=1e-9)


@pytest.mark.parametrize("n", [10, 5000])
def test_sizes(n):
    U = random_edge_matrix(n, 6, seed=n, binary=True)
    model = QRLPBoost(U, nu=max(1.0, n / 10), eta=100.0)
    fast = model.solve(method="auglag", tol=1e-10)
    ref = model.solve(method="clarabel", side="dual", tol=1e-9)
    assert fast.status == "optimal"
    assert fast.dual_value == pytest.approx(ref.dual_value, abs=1e-8)


def test_bad_input_names_the_argument():
    U = random_edge_matrix(20, 3, seed=1)
    with pytest.raises(ValueError, match="center"):
        QRLPBoost(U, center=np.r_[0.0, np.full(19, 1 / 19)])  # a zero entry: the expansion divides by it
    with pytest.raises(ValueError, match="center"):
        QRLPBoost(U, center=np.full(10, 0.1))  # the wrong length
    for eta in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="eta"):
            QRLPBoost(U, eta=eta)
    for nu in (0.5, 21.0, np.nan):
        with pytest.raises(ValueError, match="nu"):
            QRLPBoost(U, nu=nu)
    with pytest.raises(ValueError, match="hypothesis set is empty"):
        QRLPBoost(np.zeros((20, 0)))


@pytest.mark.parametrize("n, nu, eta", [(10, 1.0, 1.0), (40, 10.0, 100.0), (30, 2.5, 1e6)])
def test_with_a_prior_the_conjugate_is_the_numerical_sup(n, nu, eta):
    """The prior only moves the linear term (ln c - ln(N d0)): f* against the numerical sup and
    Fenchel-Young, as without; the uniform prior gives the function without a prior."""
    rng = np.random.default_rng(n + 1)
    center, prior = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
    f = CappedQuadratic(center, nu, eta, prior=prior)
    for _ in range(3):
        theta = rng.normal(size=n)
        value, d = f.conjugate_and_grad(theta)
        assert value == pytest.approx(numerical_conjugate(f, theta), abs=1e-9 * max(1.0, abs(value)))
        assert f.fenchel_young_gap(d, theta) == pytest.approx(0.0, abs=1e-9 * max(1.0, abs(value)))
    uniform = CappedQuadratic(center, nu, eta, prior=np.full(n, 1.0 / n))
    theta = rng.normal(size=n)
    assert uniform.conjugate(theta) == pytest.approx(
        CappedQuadratic(center, nu, eta).conjugate(theta), abs=1e-12
    )


@pytest.mark.parametrize("nu, eta", [(1.0, 1.0), (20.0, 1.5)])
def test_with_a_prior_the_recentred_sequence_tends_to_erlpboost_with_that_prior(nu, eta):
    """With d0 the expansion's gradient at c = d is ``ln(d/(N d0)) + 1``, the gradient of the relative
    entropy to d0 less ln N: the limit is ERLPBoost's solution with the prior d0; Clarabel's QP
    agrees with auglag's dual on the way (1e-8)."""
    n = 100
    U = random_edge_matrix(n, 10, seed=6)
    d0 = np.random.default_rng(3).dirichlet(4 * np.ones(n))
    model = QRLPBoost(U, nu=nu, eta=eta, center=d0, d0=d0)
    qp = model.solve(method="clarabel", side="primal", tol=1e-10)
    assert model.solve(method="auglag", tol=1e-12).dual_value == pytest.approx(qp.primal_value, abs=1e-8)
    model, sol = _settled(model)
    np.testing.assert_allclose(model.d0, d0, rtol=1e-14)  # the prior travels with the centre
    reference = ERLPBoost(U, nu=nu, eta=eta, d0=d0).solve(method="auglag", tol=1e-12)
    np.testing.assert_allclose(sol.d, reference.d, atol=1e-10)
    with pytest.raises(ValueError, match="d0|prior"):
        QRLPBoost(U, nu=nu, eta=eta, d0=np.r_[0.0, np.full(n - 1, 1.0 / (n - 1))])
