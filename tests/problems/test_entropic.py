"""ERLPBoost (M5) and Binary ERLPBoost (M6): [KG] Lemmas 3.6, 3.18, the bad example
of [KG] Sec 2.5 (entropic part) and the extremes.

Independent references: the primal solved by cvxpy against the dual solved by cvxpy (two
different conic programs), the multipliers psi / beta maximised out by scipy (L-BFGS-B,
minimize_scalar) instead of the library's closed forms, the LP value by HiGHS, and closed forms
(the smoothing sandwich of docs/math.md#smoothing-sandwich, Delta_{2,nu} <= ln(N/nu) + 1, [SS] Lemma 11).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar
from scipy.special import logsumexp, rel_entr

from dualboost.instances import bad_example, random_edge_matrix
from dualboost.problems import BinaryERLPBoost, ERLPBoost
from tests.references import capped_vertex, lp_eq22

# Interior-point solves run at 1e-10; observed certified gaps are <= 1e-9 at moderate eta.
VALUE_TOL = 1e-7
# d is only as accurate as sqrt(gap): P(d) - P* >= ||d - d*||_1^2 / (2 eta) (Pinsker, strong
# convexity), so a gap of ~1e-11 at eta <= 20 allows ||d - d*|| ~ 2e-5.
D_TOL = 2e-5


# --- independent references ---------------------------------------------------------------
def avgmin(m, nu):
    """The capped LP dual objective at margins m: mean of the nu smallest (real nu)."""
    s = np.sort(m)
    k = int(np.floor(nu))
    return s[:k].sum() / nu + ((1.0 - k / nu) * s[k] if k < s.size else 0.0)


def theta_hat_psi_maximised(U, w, nu, eta, d0):
    """max_{psi >= 0} of [KG] Eq. 3.10 by L-BFGS-B (psi NOT eliminated in closed form)."""
    m = U @ w
    log_d0 = np.log(d0)

    def neg(psi):
        z = log_d0 - eta * (m + psi)
        lse = logsumexp(z)
        d = np.exp(z - lse)
        return lse / eta + psi.sum() / nu, 1.0 / nu - d

    res = minimize(
        neg,
        np.zeros(U.shape[0]),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0, None)] * U.shape[0],
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000},
    )
    return -res.fun, res.x


def theta_binary_beta_maximised(U, w, nu, eta, d0):
    """max_beta of [KG] Eq. 3.26 by Brent's method (beta NOT found by the library's root)."""
    m = U @ w
    log1m, log_nd0 = np.log1p(-nu * d0), np.log(nu * d0)

    def neg(beta):
        return np.logaddexp(log1m, log_nd0 - eta * (m + beta)).sum() / (eta * nu) + beta

    res = minimize_scalar(neg, bracket=(-2.0, 2.0), tol=1e-14)
    return -res.fun


def delta2(d, d0, nu):
    """Delta_{2,nu}(d, d0) of [KG] Sec 3.3, written out."""
    c = 1.0 / nu
    room = np.clip(c - d, 0.0, None)  # d_n = 1/nu may round to c - d = -1e-17
    return float(rel_entr(d, d0).sum() + rel_entr(room, c - d0).sum())


def capped_point(rng, n, nu, n_vertices=4):
    weights = rng.dirichlet(np.ones(n_vertices))
    return sum(a * capped_vertex(rng, n, nu) for a in weights)


# --- [KG] Lemma 3.6: ERLPBoost duality -----------------------------------------------------------
E7_CASES = [  # (seed, N, t, nu, eta): no caps active / caps active / many hypotheses
    (3, 20, 4, 4.5, 5.0),
    (1, 20, 6, 4.5, 20.0),
    (2, 20, 6, 4.5, 20.0),
    (4, 15, 10, 1.0, 5.0),
]


@pytest.mark.parametrize("seed, n, t, nu, eta", E7_CASES)
def test_e7_erlpboost_dual_equals_primal_and_kkt_structure(seed, n, t, nu, eta):
    U = random_edge_matrix(n, t, seed=seed)
    model = ERLPBoost(U, nu=nu, eta=eta)
    primal = model.solve(method="clarabel", side="primal")
    dual = model.solve(method="ecos", side="dual")  # a second solver on the other side
    assert primal.status == dual.status == "optimal"
    assert primal.primal_value == pytest.approx(dual.dual_value, abs=VALUE_TOL)
    # d(w*) from Eq. 3.11 is the primal argmin (unique)
    d_star = primal.d
    np.testing.assert_allclose(model.d_from_w(dual.w), d_star, atol=D_TOL)
    edges = U.T @ d_star
    # complementarity: sum_q w_q u^q.d = max_q u^q.d (error ~ ||w|| * ||d - d*||)
    assert dual.w @ edges == pytest.approx(edges.max(), abs=D_TOL)
    # the w-support has edge = gamma
    support = dual.w > 1e-4
    assert np.all(edges[support] >= edges.max() - D_TOL)
    # psi from the active-set recovery lives on the capped coordinates, psi >= 0
    kkt = model.kkt_from_d(d_star)
    assert np.all(kkt.psi >= -1e-10)
    uncapped = d_star < 1.0 / nu - 1e-6
    assert np.all(kkt.psi[uncapped] == 0.0)


@pytest.mark.parametrize("nu, eta", [(1.0, 5.0), (4.5, 5.0), (4.5, 30.0), (10.0, 50.0)])
def test_e7_dual_objective_eliminates_psi_exactly(nu, eta):
    """dual_objective(w) = max_{psi >= 0} Theta^(w, psi) (Eq. 3.10), psi maximised by L-BFGS-B.
    L-BFGS-B stops at ftol 1e-15 on an O(1) objective; 1e-8 leaves room for its last steps."""
    U = random_edge_matrix(20, 5, seed=9)
    rng = np.random.default_rng(2)
    d0 = rng.dirichlet(np.full(20, 5.0))  # a non-uniform prior exercises d0
    model = ERLPBoost(U, nu=nu, eta=eta, d0=d0)
    for w in rng.dirichlet(np.ones(5), size=6):
        reference, psi = theta_hat_psi_maximised(U, w, nu, eta, d0)
        value = model.dual_objective(w)
        assert value >= reference - 1e-10  # the exact maximum is never below a numerical one
        assert value == pytest.approx(reference, abs=1e-8)


# --- [KG] Lemma 3.18: Binary ERLPBoost -----------------------------------------------------------
@pytest.mark.parametrize("seed, nu, eta", [(3, 3.0, 5.0), (5, 1.0, 5.0), (6, 4.5, 20.0)])
def test_e8_binary_dual_equals_primal(seed, nu, eta):
    U = random_edge_matrix(20, 4, seed=seed)
    model = BinaryERLPBoost(U, nu=nu, eta=eta)
    primal = model.solve(method="clarabel", side="primal")
    dual = model.solve(method="ecos", side="dual")
    assert primal.status == dual.status == "optimal"
    assert primal.primal_value == pytest.approx(dual.dual_value, abs=VALUE_TOL)
    d = model.d_from_w(dual.w)
    # Eq. 3.27: every d_n strictly inside (0, 1/nu), sum d = 1 at the optimal beta
    assert np.all(d > 0) and np.all(d < 1.0 / nu)
    assert d.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(d, primal.d, atol=D_TOL)
    edges = U.T @ primal.d
    assert dual.w @ edges == pytest.approx(edges.max(), abs=D_TOL)


@pytest.mark.parametrize("n, nu", [(20, 3.0), (20, 1.0), (50, 7.5), (10, 9.5)])
def test_e8_binary_entropy_range(n, nu):
    """0 <= Delta_{2,nu} <= ln(N/nu) + 1 on the capped simplex (vertices and mixtures); the library's
    regulariser equals the written-out Delta_{2,nu}/eta (primal_objective minus the max edge)."""
    eta = 3.0
    U = random_edge_matrix(n, 3, seed=1)
    model = BinaryERLPBoost(U, nu=nu, eta=eta)
    d0 = np.full(n, 1.0 / n)
    bound = np.log(n / nu) + 1.0
    rng = np.random.default_rng(0)
    points = [capped_vertex(rng, n, nu) for _ in range(20)] + [capped_point(rng, n, nu) for _ in range(30)]
    for d in points:
        value = delta2(d, d0, nu)
        assert -1e-12 <= value <= bound + 1e-12
        regulariser = model.primal_objective(d) - (U.T @ d).max()
        assert regulariser == pytest.approx(value / eta, abs=1e-12)


def test_e8_spec_extreme_point_value():
    """[KG] Sec 3.3: N = 20, nu = 3, a vertex of the capped simplex has Delta_{2,nu} = 2.818 (to 3
    decimals) <= ln(N/nu) + 1 = 2.897 (docs/math.md#binary-erlpboost)."""
    d = np.r_[np.full(3, 1.0 / 3.0), np.zeros(17)]
    model = BinaryERLPBoost(random_edge_matrix(20, 2), nu=3.0, eta=1.0)
    regulariser = model.primal_objective(d) - (model.U.T @ d).max()
    assert regulariser == pytest.approx(2.818, abs=5e-4)
    assert np.log(20 / 3) + 1 == pytest.approx(2.897, abs=5e-4)


@pytest.mark.parametrize("nu, eta", [(1.0, 1.0), (3.0, 5.0), (4.5, 50.0), (9.0, 500.0)])
def test_e8_dual_objective_eliminates_beta_exactly(nu, eta):
    """dual_objective(w) = max_beta Theta^_B(w, beta) (Eq. 3.26), beta by Brent's method (tol 1e-14
    in beta; the objective is flat at the max, so values agree to ~1e-12)."""
    U = random_edge_matrix(20, 5, seed=10)
    rng = np.random.default_rng(3)
    d0 = 1.0 + 0.5 * rng.uniform(size=20)  # a non-uniform prior with d0 <= 1.5/20 < 1/nu
    d0 /= d0.sum()
    model = BinaryERLPBoost(U, nu=nu, eta=eta, d0=d0)
    for w in rng.dirichlet(np.ones(5), size=6):
        assert model.dual_objective(w) == pytest.approx(
            theta_binary_beta_maximised(U, w, nu, eta, d0), abs=1e-9
        )


# --- [KG] Sec 2.5: the bad example with the entropy-regularised dual -------------------------------
def test_e15_erlpboost_weights_are_not_a_vertex():
    """LPBoost's unique w is e_6 (test_problems_lpboost); ERLPBoost at eta = 5 spreads the weight."""
    U = bad_example(0.01)
    model = ERLPBoost(U, nu=1.0, eta=5.0)
    solution = model.solve(side="dual")
    assert solution.status == "optimal"
    w = solution.w
    assert w.max() < 0.9
    assert np.count_nonzero(w > 0.05) >= 2
    # cross-check the optimum on the other side with another solver
    other = model.solve(method="ecos", side="primal")
    assert other.primal_value == pytest.approx(solution.dual_value, abs=VALUE_TOL)


# --- extremes: eta, nu, N -------------------------------------------------------------------------
ETAS = [1.0, 100.0, 1e4, 1e6]


@pytest.mark.parametrize("eta", ETAS)
@pytest.mark.parametrize(
    "cls, nu, extra",  # extra: the range bound of the regulariser beyond ln(N/nu)
    [(ERLPBoost, 1.0, 0.0), (ERLPBoost, 3.0, 0.0), (BinaryERLPBoost, 1.0, 1.0), (BinaryERLPBoost, 3.0, 1.0)],
)
def test_smoothing_sandwich_at_every_eta(cls, nu, extra, eta):
    """docs/math.md#smoothing-sandwich ([SS] Lemma 19): LP dual(w) <= model dual(w) <= LP dual(w) +
    B/eta pointwise, B = ln(N/nu) (+1 for Binary); hence P_LP <= optimum <= P_LP + B/eta. Rounding:
    the dual value is computed in the log domain, ~1e-12 absolute."""
    n, t = 30, 6
    U = random_edge_matrix(n, t, seed=2)
    model = cls(U, nu=nu, eta=eta)
    bound = (np.log(n / nu) + extra) / eta
    rng = np.random.default_rng(4)
    p_lp, w_lp = lp_eq22(U, nu)
    for w in [w_lp, *rng.dirichlet(np.ones(t), size=8), np.eye(t)[0]]:
        value = model.dual_objective(w)
        d = model.d_from_w(w)
        assert np.isfinite(value) and np.all(np.isfinite(d))
        lower = avgmin(U @ w, nu)
        assert lower - 1e-10 <= value <= lower + bound + 1e-10
        # d_from_w lies in the capped simplex
        assert d.sum() == pytest.approx(1.0, abs=1e-9)
        assert np.all(d >= 0) and np.all(d <= 1.0 / nu + 1e-12)
        # [SS] Lemma 11 / Fenchel-Young: P(d(w)) - D(w) = max edge - w.edges, exactly
        edges = U.T @ d
        gap = model.primal_objective(d) - value
        assert gap == pytest.approx(edges.max() - w @ edges, abs=1e-9)
    value_at_lp = model.dual_objective(w_lp)
    assert p_lp - 1e-9 <= value_at_lp <= p_lp + bound + 1e-9


@pytest.mark.parametrize("eta", [1.0, 100.0, 1e4])
@pytest.mark.parametrize("cls", [ERLPBoost, BinaryERLPBoost])
def test_solve_lies_in_the_smoothing_sandwich(cls, eta):
    n, nu = 30, 3.0
    U = random_edge_matrix(n, 6, seed=2)
    p_lp, _ = lp_eq22(U, nu)
    extra = 1.0 if cls is BinaryERLPBoost else 0.0
    bound = (np.log(n / nu) + extra) / eta
    solution = cls(U, nu=nu, eta=eta).solve(method="clarabel", side="dual")
    assert solution.status == "optimal"
    assert p_lp - 1e-6 <= solution.dual_value <= p_lp + bound + 1e-6  # certified to 1e-6


@pytest.mark.parametrize("eta", [1e4, 1e6])
@pytest.mark.parametrize("method", ["clarabel", "ecos", "scs"])
@pytest.mark.parametrize("cls", [ERLPBoost, BinaryERLPBoost])
def test_large_eta_never_certifies_a_wrong_answer(cls, method, eta):
    """Conic solvers may fail at large eta; a status 'optimal' must still be right."""
    n, nu = 30, 3.0
    U = random_edge_matrix(n, 6, seed=2)
    p_lp, _ = lp_eq22(U, nu)
    extra = 1.0 if cls is BinaryERLPBoost else 0.0
    bound = (np.log(n / nu) + extra) / eta
    options = {"max_iters": 5000} if method == "scs" else {}  # SCS would spend seconds failing
    solution = cls(U, nu=nu, eta=eta).solve(method=method, side="dual", **options)
    assert solution.status in ("optimal", "inaccurate", "failed")
    if solution.status == "optimal":
        assert p_lp - 1e-6 <= solution.dual_value <= p_lp + bound + 1e-6
        assert solution.gap <= 1e-6 * max(1.0, abs(solution.primal_value))


@pytest.mark.parametrize("side", ["primal", "dual"])
def test_erlpboost_nu_equal_n_gives_uniform_d(side):
    """nu = N: the only feasible d is uniform, so the value is the best column mean and the dual
    objective is mean(U w) for every w (the capped-simplex conjugate at nu = N)."""
    n = 12
    U = random_edge_matrix(n, 5, seed=3)
    model = ERLPBoost(U, nu=n, eta=5.0)
    rng = np.random.default_rng(0)
    for w in rng.dirichlet(np.ones(5), size=5):
        assert model.dual_objective(w) == pytest.approx((U @ w).mean(), abs=1e-12)
        np.testing.assert_allclose(model.d_from_w(w), np.full(n, 1.0 / n), atol=1e-12)
    solution = model.solve(side=side)
    assert solution.status == "optimal"
    np.testing.assert_allclose(solution.d, np.full(n, 1.0 / n), atol=1e-7)
    assert solution.primal_value == pytest.approx(U.mean(axis=0).max(), abs=VALUE_TOL)


@pytest.mark.parametrize("side", ["primal", "dual"])
def test_erlpboost_nu_one_is_the_plain_simplex(side):
    """nu = 1: no caps; the dual is the log-sum-exp of Eq. 3.10 with psi = 0 ([SS] App. B;
    docs/math.md#conjugate-table)."""
    n, eta = 15, 4.0
    U = random_edge_matrix(n, 5, seed=4)
    model = ERLPBoost(U, nu=1.0, eta=eta)
    rng = np.random.default_rng(5)
    for w in rng.dirichlet(np.ones(5), size=5):
        closed = -logsumexp(np.log(1.0 / n) - eta * (U @ w)) / eta
        assert model.dual_objective(w) == pytest.approx(closed, abs=1e-12)
    solution = model.solve(side=side)
    assert solution.status == "optimal"
    assert solution.primal_value == pytest.approx(solution.dual_value, abs=VALUE_TOL)


@pytest.mark.parametrize("side", ["primal", "dual"])
def test_binary_nu_just_below_n(side):
    """nu -> N squeezes the binary-entropy box onto the uniform d; the value tends to the best
    column mean (from below, by the sandwich) and the solution stays certified."""
    n = 10
    U = random_edge_matrix(n, 4, seed=0)
    best = U.mean(axis=0).max()
    previous = -np.inf
    for nu in (9.9, 9.99, 9.999):
        model = BinaryERLPBoost(U, nu=nu, eta=5.0)
        solution = model.solve(side=side)
        assert solution.status == "optimal"
        # d_n <= 1/nu and sum d = 1 give 1/N - d_n <= (N - 1)(1/nu - 1/N)
        width = 1.0 / nu - 1.0 / n
        assert np.all(solution.d - 1.0 / n <= width + 1e-9)
        assert np.all(1.0 / n - solution.d <= (n - 1) * width + 1e-9)
        assert solution.primal_value <= best + 1e-7
        assert solution.primal_value >= previous - 1e-7
        previous = solution.primal_value


@pytest.mark.parametrize("cls", [BinaryERLPBoost])
def test_binary_nu_equal_n_raises(cls):
    with pytest.raises(ValueError, match="nu"):
        cls(random_edge_matrix(10, 3), nu=10.0, eta=1.0)


@pytest.mark.parametrize("n", [5, 50, 2000])
@pytest.mark.parametrize("cls", [ERLPBoost, BinaryERLPBoost])
def test_maps_scale_with_n(cls, n):
    """dual_objective / d_from_w for N up to 2000, at moderate and extreme eta."""
    U = random_edge_matrix(n, 8, seed=n)
    nu = max(1.0, n / 10 + 0.5)
    rng = np.random.default_rng(0)
    for eta in (5.0, 1e6):
        model = cls(U, nu=nu, eta=eta)
        extra = 1.0 if cls is BinaryERLPBoost else 0.0
        for w in rng.dirichlet(np.ones(8), size=3):
            value = model.dual_objective(w)
            d = model.d_from_w(w)
            assert np.isfinite(value) and np.all(np.isfinite(d))
            assert d.sum() == pytest.approx(1.0, abs=1e-9)
            assert np.all(d >= 0) and np.all(d <= 1.0 / nu + 1e-12)
            lower = avgmin(U @ w, nu)
            assert lower - 1e-10 <= value <= lower + (np.log(n / nu) + extra) / eta + 1e-10


def test_one_solve_at_n_2000():
    n, nu, eta = 2000, 200.5, 10.0
    U = random_edge_matrix(n, 10, seed=0)
    model = ERLPBoost(U, nu=nu, eta=eta)
    solution = model.solve(method="clarabel", side="dual")
    assert solution.status == "optimal"
    p_lp, _ = lp_eq22(U, nu)
    assert p_lp - 1e-6 <= solution.dual_value <= p_lp + np.log(n / nu) / eta + 1e-6
    # the certified pair satisfies the KKT map
    np.testing.assert_allclose(model.d_from_w(solution.w), solution.d, atol=1e-9)


@pytest.mark.parametrize("cls", [ERLPBoost, BinaryERLPBoost])
def test_erlpboost_with_eta_is_the_model_built_at_that_eta(cls):
    """``with_eta`` (a copy that checks only eta) against the model built anew at that eta: the same
    dual value, gradient and d bit for bit, the same objectives; U shared, the original unchanged,
    no stump operator, and an eta <= 0 refused as the constructor refuses it."""
    rng = np.random.default_rng(5)
    U = random_edge_matrix(200, 7, seed=5)
    d0 = rng.uniform(0.5, 1.5, size=200)
    d0 /= d0.sum()
    model = cls(U, nu=20.0, eta=4605.0, d0=d0)
    model.solve(method="auglag")  # (a model that has been used)
    for eta in (0.5, 46.05, 460.5, 1e6):
        copy, fresh = model.with_eta(eta), cls(U, nu=20.0, eta=eta, d0=d0)
        assert copy.eta == copy.regularizer.eta == fresh.eta and copy.U is model.U
        assert copy.stump_columns is None and copy.parameters() == fresh.parameters()
        for w in (np.full(7, 1 / 7), rng.dirichlet(np.full(7, 0.3))):
            value, grad, d = copy.dual_value_and_grad(w)
            ref_value, ref_grad, ref_d = fresh.dual_value_and_grad(w)
            assert value == ref_value
            np.testing.assert_array_equal(grad, ref_grad)
            np.testing.assert_array_equal(d, ref_d)
            assert copy.dual_objective(w) == fresh.dual_objective(w)
            assert copy.primal_objective(d) == fresh.primal_objective(d)
    assert model.eta == model.regularizer.eta == 4605.0
    for bad in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="eta"):
            model.with_eta(bad)
