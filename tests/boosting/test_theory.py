"""The theorems of [KG] Chs. 2-3 checked on the drivers' actual iterates.

Every quantity is recomputed here from the iterates ``(d^t, w^t)`` the drivers keep
(``keep_iterates=True``) and the columns they selected, through the models' own objectives
(``primal_objective``, ``dual_objective``) and independent LPs (HiGHS via ``LPBoost``); nothing is
read from the drivers' bookkeeping except the iterates themselves. The only hard-coded numbers are
the thesis's (the bounds, the lower-bound construction).

* Progress: Lemma 3.7 / 3.19 (progress per iteration), Lemma 3.8 / 3.20 (the recurrence of delta^t),
  Lemma 3.9 (its envelope), and the two scalar inequalities of the proofs.
* Iteration bounds: the bounds (Thms 3.2, 3.10, 3.12, 3.21, 3.23) with a max-edge oracle over a finite
  random class, and g - P_LP^T <= eps with g the LP value of the whole class.
* Stopping: the practical criterion with inexact inner solves never stops before g - P_LP^T <= eps; with
  exact solves delta~^t = delta^t; T = t - 1 and the output has T columns.
* Lower bound: LPBoost on the lower-bound instance of Thm 2.5 takes N/2 iterations (and N/2 + 1 oracle
  calls), with P_LP^t = -1 + 2 t delta, d^t = e_{M+t}, w^t = e_t; also with rows duplicated nu times.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dualboost.boosting import binary_erlpboost, erlpboost, lpboost, softboost
from dualboost.boosting.core.stopping import erlpboost_max_iter
from dualboost.instances import lpboost_lower_bound, random_edge_matrix
from dualboost.oracles import MatrixOracle
from dualboost.problems import BinaryERLPBoost, ERLPBoost, LPBoost, erlpboost_eta

MODELS = {
    "erlpboost": (erlpboost, ERLPBoost, False),
    "binary_erlpboost": (binary_erlpboost, BinaryERLPBoost, True),
}


def lp_value(U, nu):
    """P_LP of the columns U: the capped min-max edge (Eq. 2.3) by HiGHS, certified."""
    sol = LPBoost(U, nu=nu).solve(method="highs", side="primal", tol=1e-9)
    assert sol.optimal
    return sol.primal_value


def instance(n_samples, n_hypotheses, seed):
    """A random finite class (uniform entries in [-1, 1]) and its reflexive max-edge oracle."""
    U = random_edge_matrix(n_samples, n_hypotheses, seed)
    return U, MatrixOracle(U, reflexive=True)


def exact_run(driver, oracle, **params):
    """A run with (nearly) exact inner solves, keeping its iterates."""
    return driver(oracle, tol=1e-9, keep_iterates=True, **params)


# --- progress ([KG] Lemmas 3.7-3.9, 3.19-3.20) ---------------------------------------------------------


@pytest.mark.parametrize("family", sorted(MODELS))
@pytest.mark.parametrize("seed, nu, eta", [(0, 1.0, 8.0), (1, 4.5, 20.0), (2, 2.0, 1.5)])
def test_progress_lemma_holds_at_every_iteration(family, seed, nu, eta):
    driver, model_class, _ = MODELS[family]
    _, oracle = instance(30, 25, seed)
    result = exact_run(driver, oracle, nu=nu, eps=0.02, eta=eta, criterion="simple", max_iter=60)
    columns = result.columns
    iterates = result.iterates
    assert len(iterates) >= 3  # d^0 and at least two solves
    P_prev = -1.0  # P^0(d^0)
    for t in range(1, len(iterates)):
        d_prev, w_prev = iterates[t - 1]
        d_t, _ = iterates[t]
        k = iterates[t][1].size
        model = model_class(columns[:, :k], nu=nu, eta=eta)
        P_t = model.primal_objective(d_t)
        # x = u^t - sum_{q<t} w_q^{t-1} u^q; P^t(d^{t-1}) - P^{t-1}(d^{t-1}) = x . d^{t-1} (Lemma 3.6)
        x = columns[:, k - 1] - (columns[:, : k - 1] @ w_prev if t > 1 else 0.0)
        increase_at_old_d = model.primal_objective(d_prev) - P_prev
        if t > 1:
            assert x @ d_prev == pytest.approx(increase_at_old_d, abs=1e-7)
        # Lemma 3.7 (3.19): P^t(d^t) - P^{t-1}(d^{t-1}) >= (P^t(d^{t-1}) - P^{t-1}(d^{t-1}))^2 / (8 eta)
        assert P_t - P_prev >= increase_at_old_d**2 / (8 * eta) - 1e-8
        P_prev = P_t


@pytest.mark.parametrize("family", sorted(MODELS))
@pytest.mark.parametrize("seed, nu, eta", [(3, 1.0, 6.0), (4, 3.0, 15.0)])
def test_delta_recurrence_and_envelope(family, seed, nu, eta):
    """Lemma 3.8 (3.20): delta^t - delta^{t+1} >= (delta^t)^2 / (8 eta) while delta^t >= 0, and
    Lemma 3.9: delta^t <= 1 / (c (t - 1 + 1/(delta^1 c))), c = 1/(8 eta)."""
    driver, model_class, _ = MODELS[family]
    _, oracle = instance(25, 30, seed)
    result = exact_run(driver, oracle, nu=nu, eps=0.01, eta=eta, criterion="simple", max_iter=80)
    columns = result.columns
    iterates = result.iterates
    P_at_new = []  # P^q(d^{q-1}), q = 1..
    P_opt = [-1.0]  # P^q(d^q), q = 0..
    for t in range(1, len(iterates)):
        k = iterates[t][1].size
        model = model_class(columns[:, :k], nu=nu, eta=eta)
        P_at_new.append(model.primal_objective(iterates[t - 1][0]))
        P_opt.append(model.primal_objective(iterates[t][0]))
    delta = [min(P_at_new[:t]) - P_opt[t - 1] for t in range(1, len(P_at_new) + 1)]
    c = 1.0 / (8 * eta)
    for t in range(len(delta) - 1):
        if delta[t] >= 0:
            assert delta[t] - delta[t + 1] >= delta[t] ** 2 * c - 1e-8
    for t, value in enumerate(delta, start=1):
        assert value <= 1.0 / (c * (t - 1 + 1.0 / (delta[0] * c))) + 1e-8
    # docs/math.md#erratum-kg-20: delta^1 = u^1 . d^0 + 1 can exceed 1 (the bound's form survives)
    assert delta[0] == pytest.approx(columns[:, 0].mean() + 1.0, abs=1e-12)


def test_scalar_inequalities_of_the_proofs():
    """1 - cosh(z/2) + (z/2) sinh(z/2) >= z^2/8 (Eq. 3.24) and -ln(1 - c(1 - e^r)) >= -c r - r^2/8
    for c in [0, 1] (Helmbold et al., Lemma 3.7), on grids."""
    z = np.linspace(-2, 2, 4001)
    assert np.all(1 - np.cosh(z / 2) + (z / 2) * np.sinh(z / 2) - z**2 / 8 >= -1e-15)
    c, r = np.meshgrid(np.linspace(0, 1, 201), np.linspace(-8, 8, 401))
    assert np.all(-np.log(1 - c * (1 - np.exp(r))) + c * r + r**2 / 8 >= -1e-12)


# --- iteration bounds ([KG] Thms 3.2-3.23) ------------------------------------------------------------


def thm_bound(family, criterion, n, nu, eps):
    """The printed bounds (Thms 3.10, 3.12, 3.21, 3.23 with docs/math.md#erratum-kg-16) on T."""
    log = math.log(n / nu) + (1.0 if family == "binary_erlpboost" else 0.0)
    scale = 32.0 if criterion == "simple" else 64.0
    return max(scale / eps**2 * log, scale / 4 / eps)


@pytest.mark.parametrize("family", sorted(MODELS))
@pytest.mark.parametrize("criterion", ["practical", "simple"])
@pytest.mark.parametrize("n, nu, eps, seed", [(20, 1.0, 0.1, 5), (40, 4.0, 0.05, 6)])
def test_iteration_bounds_and_guarantee(family, criterion, n, nu, eps, seed):
    driver, _, binary = MODELS[family]
    U, oracle = instance(n, 15, seed)
    result = driver(oracle, nu=nu, eps=eps, criterion=criterion)
    assert result.converged
    assert result.params["eta"] == erlpboost_eta(n, nu, eps, binary=binary)
    T = result.n_iter - 1
    assert T <= thm_bound(family, criterion, n, nu, eps)
    g = lp_value(np.hstack([U, -U]), nu)  # the whole (reflexive) class
    assert g - lp_value(result.columns, nu) <= eps + 1e-9


@pytest.mark.parametrize("n, nu, eps, seed", [(20, 1.0, 0.1, 7), (30, 3.0, 0.1, 8), (30, 1.0, 0.05, 9)])
def test_softboost_iteration_bound_and_guarantee(n, nu, eps, seed):
    U, oracle = instance(n, 12, seed)
    result = softboost(oracle, nu=nu, eps=eps)
    assert result.converged
    assert result.n_iter <= math.ceil(2 / eps**2 * math.log(n / nu))  # Thm 3.2
    g = lp_value(np.hstack([U, -U]), nu)
    assert g - lp_value(result.columns, nu) <= eps + 1e-9
    # when the last problem is infeasible the output w is LP-optimal: its soft margin is P_LP^T
    if result.stop_reason == "infeasible":
        soft = LPBoost(result.columns, nu=nu).dual_objective(result.weights)
        assert soft == pytest.approx(lp_value(result.columns, nu), abs=1e-7)


# --- stopping ([KG] Secs 3.2.1-3.2.2) -----------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(MODELS))
@pytest.mark.parametrize("seed", [10, 11])
def test_practical_criterion_with_inexact_solves_is_safe(family, seed):
    driver, _, _ = MODELS[family]
    nu, eps = 2.0, 0.05
    U, oracle = instance(30, 20, seed)
    # the loosest inner tolerance the driver accepts: it re-solves until the certified gap is <= eps/4
    result = driver(oracle, nu=nu, eps=eps, criterion="practical", tol=eps / 2)
    gaps = result.history["gap"][:-1]
    assert np.all(gaps <= eps / 4 + 1e-15)
    g = lp_value(np.hstack([U, -U]), nu)
    assert g - lp_value(result.columns, nu) <= eps + 1e-9
    # T = t - 1: the last hypothesis is discarded and the output has T columns
    T = result.n_iter - 1
    assert result.n_hypotheses == T == result.columns.shape[1] == result.weights.size
    assert np.isnan(result.history["primal"][-1])  # the stopping iteration does not re-solve


@pytest.mark.parametrize("family", sorted(MODELS))
def test_exact_solves_make_both_criteria_agree(family):
    """delta~^t = delta^t when P^{t-1}(d^{t-1}) = Theta^{t-1}(w^{t-1}) (strong duality, [KG] Sec 3.2.2)."""
    driver, model_class, _ = MODELS[family]
    nu, eps, eta = 3.0, 0.02, 25.0
    _, oracle = instance(30, 20, 12)
    result = exact_run(driver, oracle, nu=nu, eps=eps, eta=eta, criterion="practical")
    columns = result.columns
    P_min = math.inf
    for t in range(1, len(result.iterates)):
        d_prev, w_prev = result.iterates[t - 1]
        k = result.iterates[t][1].size
        P_min = min(P_min, model_class(columns[:, :k], nu=nu, eta=eta).primal_objective(d_prev))
        if t == 1:
            continue
        previous = model_class(columns[:, : k - 1], nu=nu, eta=eta)
        simple = P_min - previous.primal_objective(d_prev)
        practical = P_min - previous.dual_objective(w_prev)
        assert practical == pytest.approx(simple, abs=1e-8)
        assert practical == pytest.approx(result.history["stopping"][t - 1], abs=1e-9)


def test_simple_and_practical_runs_reach_the_same_guarantee():
    U, oracle = instance(25, 18, 13)
    nu, eps = 1.0, 0.05
    g = lp_value(np.hstack([U, -U]), nu)
    for criterion in ("simple", "practical"):
        result = erlpboost(oracle, nu=nu, eps=eps, criterion=criterion)
        assert g - lp_value(result.columns, nu) <= eps + 1e-9


# --- lower bound ([KG] Thm 2.5) ----------------------------------------------------------------------


@pytest.mark.parametrize("n", [8, 20, 40])
def test_lpboost_lower_bound_takes_half_n_iterations(n):
    U = lpboost_lower_bound(n)
    m, delta = n // 2, 0.01 / n
    result = lpboost(MatrixOracle(U), nu=1.0, eps=0.01, keep_iterates=True)
    assert [h.index for h in result.hypotheses] == list(range(m + 1))  # columns 1..M+1 in order
    assert result.n_iter == m + 1 and result.converged
    for t in range(1, m + 1):
        d_t, w_t = result.iterates[t]
        assert lp_value(U[:, :t], 1.0) == pytest.approx(-1 + 2 * t * delta, abs=1e-9)
        assert result.history["primal"][t - 1] == pytest.approx(-1 + 2 * t * delta, abs=1e-9)
        np.testing.assert_allclose(d_t, np.eye(n)[m + t - 1], atol=1e-9)
        np.testing.assert_allclose(w_t, np.eye(t)[t - 1], atol=1e-9)
    g = lp_value(U, 1.0)
    assert g >= delta / 2 - 1e-12
    assert g - lp_value(U[:, :m], 1.0) >= 0.99  # after N/2 iterations still 0.99 below the optimum


@pytest.mark.parametrize("n, nu", [(8, 2), (12, 3)])
def test_lpboost_lower_bound_with_duplicated_rows(n, nu):
    """Soft margin: every row duplicated nu times, capping nu: the same N/2 iterations."""
    U = np.repeat(lpboost_lower_bound(n), nu, axis=0)
    result = lpboost(MatrixOracle(U), nu=float(nu), eps=0.01)
    assert result.n_iter == n // 2 + 1
    assert lp_value(U[:, : n // 2], nu) < -0.9


@pytest.mark.parametrize("n", [40, 200])
def test_erlpboost_on_the_lower_bound_instance_stops_early(n):
    """The contrast to [KG] Thm 2.5: on the instance where LPBoost needs N/2 + 1 iterations, ERLPBoost
    reaches eps within its theorem's bound (Thm 3.12, 32 eta / eps, eta = (2/eps) ln(N/nu)) and
    without N/2 iterations, whatever N (LPBoost's count grows with N, checked in the same run)."""
    U = lpboost_lower_bound(n)
    result = erlpboost(MatrixOracle(U), nu=1.0, eps=0.01)
    assert result.converged
    assert result.n_iter <= erlpboost_max_iter(erlpboost_eta(n, 1.0, 0.01), 0.01)
    assert result.n_iter < n // 2
    assert lp_value(U, 1.0) - lp_value(result.columns, 1.0) <= 0.01
    assert lpboost(MatrixOracle(U), nu=1.0, eps=0.01).n_iter == n // 2 + 1
