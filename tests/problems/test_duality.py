"""Weak duality on random feasible pairs (hypothesis) and equality at the optimum for every
model x solver x side.

Weak duality dual_objective(w) <= primal_objective(d) must hold for *every* primal-feasible d and
dual-feasible w ([SS] Thm 3; docs/verify-erlpboost-by-hand.md#4-weak-duality-on-any-pair); the
feasible points are built here from vertices of the capped simplex, the LP minimiser (HiGHS) and
the corrective line, independently of the library's projections. Rounding: objectives are O(1)
sums of N <= 25 terms, so 1e-9 suffices.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dualboost.instances import random_edge_matrix
from dualboost.problems import (
    BinaryERLPBoost,
    CorrectiveBinaryERLPBoost,
    CorrectiveERLPBoost,
    ERLPBoost,
    LPBoost,
    SoftBoost,
)
from tests.references import capped_vertex, lp_eq23

ROUND = 1e-9
HYP = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- feasible points -------------------------------------------------------------------------
def capped_point(rng, n, nu):
    """A random point of {sum d = 1, 0 <= d <= 1/nu}: a Dirichlet mixture of random vertices, or
    (one time in four) a vertex itself."""
    if rng.uniform() < 0.25:
        return capped_vertex(rng, n, nu)
    k = int(rng.integers(1, 5))
    return sum(a * capped_vertex(rng, n, nu) for a in rng.dirichlet(np.ones(k)))


def greedy_vertex(x, nu):
    """argmax_{d capped} x.d: the floor(nu) largest entries at 1/nu, the remainder on the next."""
    d = np.zeros(x.size)
    order = np.argsort(-x)
    k = int(np.floor(nu))
    d[order[:k]] = 1.0 / nu
    if k < x.size:
        d[order[k]] = 1.0 - k / nu
    return d


def sharpen(model, rng, d, w):
    """Half of the time replace d by the KKT image of w (a tight pair: Fenchel-Young makes
    P(d(w)) - D(w) = max edge - w.edges, 0 when t = 1), after checking it is feasible."""
    if rng.uniform() < 0.5:
        return d
    d = model.d_from_w(w)
    assert abs(d.sum() - 1) <= 1e-9 and d.min() >= 0 and d.max() <= 1 / model.nu + 1e-12
    return d


@st.composite
def instances(draw, min_n=2, max_n=25, min_t=1, max_t=6):
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(min_n, max_n))
    t = draw(st.integers(min_t, max_t))
    nu = draw(st.floats(1.0, float(n)))
    eta = draw(st.sampled_from([0.1, 1.0, 5.0, 50.0, 1e3, 1e6]))
    binary = draw(st.booleans())
    return np.random.default_rng(seed), random_edge_matrix(n, t, seed=seed, binary=binary), nu, eta


# --- weak duality ----------------------------------------------------------------------------
@HYP
@given(instances())
def test_weak_duality_lpboost(inst):
    rng, U, nu, _ = inst
    model = LPBoost(U, nu=nu)
    d = capped_point(rng, U.shape[0], nu)
    w = rng.dirichlet(np.full(U.shape[1], 0.5))
    d = sharpen(model, rng, d, w)
    primal, dual = model.primal_objective(d), model.dual_objective(w)
    assert np.isfinite(primal) and np.isfinite(dual)
    assert dual <= primal + ROUND


@HYP
@given(instances())
def test_weak_duality_erlpboost(inst):
    rng, U, nu, eta = inst
    model = ERLPBoost(U, nu=nu, eta=eta)
    d = capped_point(rng, U.shape[0], nu)
    w = rng.dirichlet(np.full(U.shape[1], 0.5))
    d = sharpen(model, rng, d, w)
    primal, dual = model.primal_objective(d), model.dual_objective(w)
    assert np.isfinite(primal) and np.isfinite(dual)
    assert dual <= primal + ROUND * (1 + abs(primal))


@HYP
@given(instances())
def test_weak_duality_binary_erlpboost(inst):
    rng, U, nu, eta = inst
    n = U.shape[0]
    nu = min(nu, n - 0.5)  # Binary needs nu < N
    model = BinaryERLPBoost(U, nu=nu, eta=eta)
    d = capped_point(rng, n, nu)
    w = rng.dirichlet(np.full(U.shape[1], 0.5))
    d = sharpen(model, rng, d, w)
    primal, dual = model.primal_objective(d), model.dual_objective(w)
    assert np.isfinite(primal) and np.isfinite(dual)
    assert dual <= primal + ROUND * (1 + abs(primal))


@HYP
@given(instances(), st.floats(0.01, 1.0), st.floats(0.0, 5.0))
def test_weak_duality_softboost(inst, slack, scale):
    """Feasible d: a capped point mixed with the LP minimiser just enough (plus a random extra) to
    bring every edge below g = P_LP + slack; w >= 0 of any scale (SoftBoost's w is unnormalised)."""
    rng, U, nu, _ = inst
    n, t = U.shape
    p_lp, d_lp = lp_eq23(U, nu)
    g = p_lp + slack
    model = SoftBoost(U, nu=nu, gamma_hat=g)
    r = capped_point(rng, n, nu)
    e_r, e_lp = U.T @ r, U.T @ d_lp
    over = e_r > g
    lam = float(np.max((e_r[over] - g) / (e_r[over] - e_lp[over]), initial=0.0))
    lam = min(1.0, lam + rng.uniform(0, 1) * (1 - lam))
    d = (1 - lam) * r + lam * d_lp
    w = scale * rng.exponential(size=t) * (rng.uniform(size=t) < 0.7)
    primal, dual = model.primal_objective(d), model.dual_objective(w)
    assert np.isfinite(primal) and np.isfinite(dual)
    assert dual <= primal + ROUND * (1 + abs(primal))


@pytest.mark.parametrize("cls", [CorrectiveERLPBoost, CorrectiveBinaryERLPBoost])
@HYP
@given(inst=instances(min_n=3, min_t=2), a=st.floats(-2.0, 3.0))
def test_weak_duality_corrective(cls, inst, a):
    """Feasible d: a capped point mixed with the greedy vertex of -x (or +x) to make x.d = 0;
    w = ((1 - a) w_prev, a) for any real a (the corrective dual is over the whole line)."""
    rng, U, nu, eta = inst
    n, t = U.shape
    nu = min(nu, n - 0.5)
    w_prev = rng.dirichlet(np.ones(t - 1))
    model = cls(U, w_prev, nu=nu, eta=eta)
    x = U[:, -1] - U[:, :-1] @ w_prev
    p, q = greedy_vertex(x, nu), greedy_vertex(-x, nu)
    assume(x @ p > 1e-6 and x @ q < -1e-6)  # the balance x.d = 0 is feasible with room
    r = capped_point(rng, n, nu)
    other = q if x @ r > 0 else p
    lam = (x @ r) / (x @ r - x @ other)
    d = (1 - lam) * r + lam * other
    assert abs(x @ d) <= 1e-12
    primal, dual = model.primal_objective(d), model.dual_objective(model.weights(a))
    assert np.isfinite(primal) and np.isfinite(dual)
    assert dual <= primal + ROUND * (1 + abs(primal))


# --- equality at the optimum -----------------------------------------------------------------
def build(name):
    U = random_edge_matrix(15, 5, seed=21)
    w_prev = np.random.default_rng(21).dirichlet(np.ones(4))
    if name == "lpboost":
        return LPBoost(U, nu=2.5)
    if name == "softboost":
        p_lp, _ = lp_eq23(U, 2.5)
        return SoftBoost(U, nu=2.5, gamma_hat=0.5 * (p_lp + U.mean(axis=0).max()))
    if name == "erlpboost":
        return ERLPBoost(U, nu=2.5, eta=5.0)
    if name == "binary":
        return BinaryERLPBoost(U, nu=2.5, eta=5.0)
    if name == "corrective":
        return CorrectiveERLPBoost(U, w_prev, nu=2.5, eta=5.0)
    if name == "corrective-binary":
        return CorrectiveBinaryERLPBoost(U, w_prev, nu=2.5, eta=5.0)
    raise AssertionError(name)


MODELS = ["lpboost", "softboost", "erlpboost", "binary", "corrective", "corrective-binary"]


@pytest.mark.parametrize("side", ["primal", "dual"])
@pytest.mark.parametrize("method", ["clarabel", "ecos", "scs"])
@pytest.mark.parametrize("name", MODELS)
def test_equality_at_the_optimum(name, method, side):
    model = build(name)
    solution = model.solve(method=method, side=side)
    assert solution.status == "optimal"
    tol = 1e-4 if method == "scs" else 1e-6  # SCS is first order
    assert abs(solution.relative_gap) <= tol
    # the reported values are the model's own objectives at the returned points
    assert solution.primal_value == model.primal_objective(solution.d)
    assert solution.dual_value == model.dual_objective(solution.w)
    if model.d_is_unique:
        # ||d - d*||_1^2 <= 2 eta gap (strong convexity): 1e-3 covers SCS's 1e-4 gap at eta = 5
        assert np.abs(model.d_from_w(solution.w) - solution.d).max() <= (1e-3 if method == "scs" else 1e-5)
    # all solvers agree with Clarabel's dual-side answer
    reference = build(name).solve(method="clarabel", side="dual")
    assert solution.primal_value == pytest.approx(reference.dual_value, abs=10 * tol)


# --- objectives outside their domains, and with a non-uniform prior ------------------------------
@pytest.mark.parametrize("name", MODELS)
def test_objectives_are_infinite_outside_the_domain(name):
    """primal_objective is +inf and dual_objective -inf beyond 1e-9 of the feasible sets."""
    model = build(name)
    n, t = model.n_samples, model.n_hypotheses
    uniform = np.full(n, 1.0 / n)
    bad_d = [uniform * 1.01, np.r_[-1e-3, uniform[1:] + 1e-3 / (n - 1)]]
    if model.nu > 1:  # one coordinate above the cap 1/nu
        d = np.full(n, (1 - 1.5 / model.nu) / (n - 1))
        d[0] = 1.5 / model.nu
        bad_d.append(d)
    for d in bad_d:
        assert model.primal_objective(d) == np.inf
    if name == "softboost":
        bad_w = [np.r_[-1e-3, np.ones(t - 1)]]  # any w >= 0 is feasible, whatever its sum
    elif name.startswith("corrective"):
        bad_w = [np.r_[np.full(t - 1, 0.5 / (t - 1)), 0.4]]  # off the line ((1 - a) w_prev, a)
    else:
        bad_w = [np.full(t, 1.01 / t), np.r_[-1e-3, np.full(t - 1, 1.001 / (t - 1))]]
    for w in bad_w:
        assert model.dual_objective(w) == -np.inf


def test_softboost_primal_is_infinite_above_the_edge_bound():
    model = build("softboost")
    d = np.zeros(model.n_samples)
    d[np.argsort(-model.U[:, 0])[:3]] = 1.0 / 3.0  # the three rows where column 1 is largest
    assert (model.U.T @ d).max() > model.edge_bound  # this d violates an edge constraint
    assert model.primal_objective(d) == np.inf


def kl(d, d0):
    pos = d > 0
    return float(np.sum(d[pos] * np.log(d[pos] / d0[pos])))


@pytest.mark.parametrize("name", ["erlpboost", "binary", "softboost", "corrective"])
def test_non_uniform_prior(name):
    """With a non-uniform d0 both sides (two solvers) agree and the primal objective at the solution
    is the thesis's formula evaluated here: max edge + KL(d || d0)/eta (Eq. 3.6), KL(d || d0)
    (Eq. 3.1), max edge + Delta_{2,nu}(d, d0)/eta (Eq. 3.25), u.d + KL(d || d0)/eta (Eq. 4.6)."""
    n, nu, eta = 15, 2.5, 5.0
    rng = np.random.default_rng(3)
    d0 = 1.0 + rng.uniform(size=n)
    d0 /= d0.sum()
    U = random_edge_matrix(n, 5, seed=22)
    if name == "erlpboost":
        model = ERLPBoost(U, nu=nu, eta=eta, d0=d0)
    elif name == "binary":
        model = BinaryERLPBoost(U, nu=nu, eta=eta, d0=d0)
    elif name == "softboost":
        p_lp, _ = lp_eq23(U, nu)
        model = SoftBoost(U, nu=nu, gamma_hat=0.5 * (p_lp + (U.T @ d0).max()), d0=d0)
    else:
        model = CorrectiveERLPBoost(U, rng.dirichlet(np.ones(4)), nu=nu, eta=eta, d0=d0)
    primal = model.solve(method="clarabel", side="primal")
    dual = model.solve(method="ecos", side="dual")
    assert primal.status == dual.status == "optimal"
    assert primal.primal_value == pytest.approx(dual.dual_value, abs=1e-7)
    d = primal.d
    edges = U.T @ d
    if name == "erlpboost":
        formula = edges.max() + kl(d, d0) / eta
    elif name == "binary":
        c = 1.0 / nu
        formula = edges.max() + (kl(d, d0) + kl(c - d, c - d0)) / eta
    elif name == "softboost":
        formula = kl(d, d0)
    else:
        formula = U[:, -1] @ d + kl(d, d0) / eta
    assert primal.primal_value == pytest.approx(formula, abs=1e-12)
    # the prior matters: with d0 the optimum differs from the uniform-prior optimum
    assert np.abs(d - build_uniform_twin(model).solve(side="primal").d).max() > 1e-3


def build_uniform_twin(model):
    """The same model with the uniform prior."""
    if isinstance(model, CorrectiveERLPBoost):
        return CorrectiveERLPBoost(model.U, model.w_prev, nu=model.nu, eta=model.eta)
    if isinstance(model, SoftBoost):
        return SoftBoost(model.U, nu=model.nu, gamma_hat=model.edge_bound)
    return type(model)(model.U, nu=model.nu, eta=model.eta)
