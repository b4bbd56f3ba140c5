"""The corrective drivers ([KG] Algs. 4.1-4.4) and AdaBoost: internals and guarantees.

* Corrective ERLPBoost ([KG] Sec 4.2): the closed-form psi of Alg. 4.1 (h)-(i) is >= 0, zero off the
  capped set C, and with w^t reproduces the projected d^t through Eq. 3.11; the dual value
  Theta^^(w, psi) equals the ERLPBoost model's dual objective at w (psi maximised out by the
  conjugate library, independently); the clipped step keeps w in the simplex and never decreases
  Theta^ (the bound (4.2) >= 0); the exact step of the corrective subproblem (M8) does at least as
  well as the clipped one.
* Corrective Binary ERLPBoost ([KG] Sec 4.3): the beta root of Alg. 4.4 gives sum d = 1, s(beta) is
  strictly decreasing, and d and Theta^_B agree with Eq. 4.11 / Eq. 3.26 written out here and with
  the BinaryERLPBoost model.
* The stop guarantees g - P_LP^T <= eps, and the output's own soft margin is >= g - eps.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit

from dualboost.boosting import adaboost, corrective_binary_erlpboost, corrective_erlpboost
from dualboost.boosting.corrective import (
    binary_erlpboost_update,
    clipped_step,
    erlpboost_update,
)
from dualboost.boosting.corrective.adaboost import adaboost_step
from dualboost.conjugates import CappedBinaryRelativeEntropy
from dualboost.instances import random_edge_matrix
from dualboost.oracles import MatrixOracle
from dualboost.problems import BinaryERLPBoost, CorrectiveERLPBoost, ERLPBoost, LPBoost

DRIVERS = {
    "corrective_erlpboost": corrective_erlpboost,
    "corrective_binary_erlpboost": corrective_binary_erlpboost,
}


def simplex_point(t, rng):
    w = rng.exponential(size=t)
    return w / w.sum()


# --- Corrective ERLPBoost ([KG] Sec 4.2) -------------------------------------------------------------


@pytest.mark.parametrize(
    "n, t, nu, eta, seed",
    [
        (20, 4, 4.5, 5.0, 0),
        (50, 6, 10.0, 100.0, 1),
        (40, 3, 1.0, 20.0, 2),
        (30, 5, 29.5, 2.0, 3),
        (60, 8, 6.0, 1e4, 4),
        (25, 4, 25.0, 3.0, 5),
    ],
)
def test_psi_closed_form(n, t, nu, eta, seed):
    rng = np.random.default_rng(seed)
    U = random_edge_matrix(n, t, seed)
    w = simplex_point(t, rng)
    m = U @ w
    d0 = np.full(n, 1.0 / n)
    step = erlpboost_update(m, d0, nu, eta)
    capped = step.d >= 1.0 / nu
    assert np.all(step.psi >= -1e-12)
    assert np.all(step.psi[~capped] == 0.0)
    # (3.11): d proportional to d0 exp(-eta (U w + psi)) reproduces the projection, in the log domain
    logits = np.log(d0) - eta * (m + step.psi)
    reproduced = np.exp(logits - logits.max())
    np.testing.assert_allclose(reproduced / reproduced.sum(), step.d, rtol=1e-9, atol=1e-300)
    assert step.d.sum() == pytest.approx(1.0, abs=1e-12) and step.d.max() <= 1.0 / nu * (1 + 1e-12)
    # Theta^^(w, psi) = the dual objective with psi maximised out (the conjugate library's capped softmax)
    assert step.theta == pytest.approx(ERLPBoost(U, nu=nu, eta=eta).dual_objective(w), abs=1e-9)
    # and the model's KKT map agrees with the projection
    np.testing.assert_allclose(ERLPBoost(U, nu=nu, eta=eta).d_from_w(w), step.d, atol=1e-12)


def test_some_psi_instances_have_capped_coordinates():
    rng = np.random.default_rng(6)
    U = random_edge_matrix(40, 5, 6)
    step = erlpboost_update(U @ simplex_point(5, rng), np.full(40, 1 / 40), 8.0, 200.0)
    capped = step.d >= 1 / 8.0
    assert 0 < capped.sum() < 8 and np.all(step.psi[capped] > 0)


def test_clipped_step_is_in_the_unit_interval_and_squared():
    x, d = np.array([0.5, -0.25, 0.1]), np.array([0.6, 0.2, 0.2])
    assert clipped_step(x, d, eta=2.0) == pytest.approx((x @ d) / (2.0 * 0.5**2))
    assert clipped_step(x, d, eta=0.01) == 1.0
    assert clipped_step(-x, d, eta=2.0) == 0.0
    assert clipped_step(np.zeros(3), d, eta=2.0) == 0.0


@pytest.mark.parametrize("family", sorted(DRIVERS))
@pytest.mark.parametrize("nu, seed", [(1.0, 7), (5.0, 8)])
def test_corrective_dual_never_decreases_and_w_stays_in_the_simplex(family, nu, seed):
    U = random_edge_matrix(40, 20, seed)
    result = DRIVERS[family](MatrixOracle(U, reflexive=True), nu=nu, eps=0.05)
    dual = result.history["dual"][:-1]
    assert np.all(np.diff(dual) >= -1e-12)  # Theta^t >= Theta^{t-1}: the bound (4.2) >= 0
    assert np.all(result.weights >= 0) and result.weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert result.n_iter > result.n_hypotheses  # hypotheses are re-selected: corrective weights
    # the certified gap P^t(d^t) - Theta^t of every iterate is >= 0 (weak duality)
    assert np.all(result.history["gap"][:-1] >= -1e-12)


@pytest.mark.parametrize("family", sorted(DRIVERS))
@pytest.mark.parametrize("n, nu, eps, seed", [(30, 1.0, 0.1, 9), (40, 4.0, 0.05, 10)])
def test_corrective_stop_guarantees_the_soft_margin(family, n, nu, eps, seed):
    U = random_edge_matrix(n, 15, seed)
    result = DRIVERS[family](MatrixOracle(U, reflexive=True), nu=nu, eps=eps)
    assert result.converged
    full = np.hstack([U, -U])
    g = LPBoost(full, nu=nu).solve(method="highs", tol=1e-9).primal_value
    lp_T = LPBoost(result.columns, nu=nu).solve(method="highs", tol=1e-9).primal_value
    assert g - lp_T <= eps + 1e-9
    # the output w itself: its soft margin (Eq. 2.2) is within eps of the best of the class
    assert LPBoost(result.columns, nu=nu).dual_objective(result.weights) >= g - eps - 1e-9
    assert result.n_iter <= 32 * result.params["eta"] / eps + 1  # the cap was not what stopped it


def test_exact_step_increases_the_dual_at_least_as_much_as_the_clipped_step():
    rng = np.random.default_rng(11)
    n, nu, eta = 30, 3.0, 20.0
    U = random_edge_matrix(n, 6, 11)
    w_old = simplex_point(5, rng)
    model = CorrectiveERLPBoost(U, w_old, nu=nu, eta=eta)  # the last column is the new hypothesis
    d_prev = ERLPBoost(U[:, :5], nu=nu, eta=eta).d_from_w(w_old)
    clipped = clipped_step(U[:, 5] - U[:, :5] @ w_old, d_prev, eta)
    sol = model.solve(method="auglag", tol=1e-10)
    exact = float(np.clip(sol.w[-1], 0, 1))
    full = ERLPBoost(U, nu=nu, eta=eta)
    assert full.dual_objective(model.weights(exact)) >= full.dual_objective(model.weights(clipped)) - 1e-12


@pytest.mark.parametrize("family", sorted(DRIVERS))
def test_exact_step_driver(family):
    U = random_edge_matrix(30, 12, 12)
    nu, eps = 2.0, 0.1
    clipped = DRIVERS[family](MatrixOracle(U, reflexive=True), nu=nu, eps=eps)
    exact = DRIVERS[family](MatrixOracle(U, reflexive=True), nu=nu, eps=eps, method="auglag")
    assert exact.converged and exact.params["method"] == "auglag"
    assert np.all(np.diff(exact.history["dual"][:-1]) >= -1e-10)
    assert exact.n_iter <= clipped.n_iter


# --- Corrective Binary ERLPBoost ([KG] Sec 4.3) ------------------------------------------------------


@pytest.mark.parametrize(
    "n, t, nu, eta, seed",
    [(20, 4, 3.0, 5.0, 13), (50, 6, 10.0, 50.0, 14), (40, 3, 1.0, 2.0, 15), (30, 5, 12.0, 100.0, 16)],
)
def test_beta_root_normalises_d(n, t, nu, eta, seed):
    rng = np.random.default_rng(seed)
    U = random_edge_matrix(n, t, seed)
    w = simplex_point(t, rng)
    m = U @ w
    d0 = np.full(n, 1.0 / n)
    regularizer = CappedBinaryRelativeEntropy(d0, nu, eta)
    step = binary_erlpboost_update(m, regularizer)
    assert step.d.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(step.d > 0) and np.all(step.d <= 1.0 / nu)  # < in exact arithmetic; expit saturates
    # s(beta) is strictly decreasing, and crosses 1 at the root
    logit = np.log(nu * d0) - np.log1p(-nu * d0)

    def s(beta):
        return (expit(logit - eta * (m + beta)) / nu).sum()

    grid = step.beta + np.linspace(-1, 1, 41) / eta
    values = np.array([s(b) for b in grid])
    assert np.all(np.diff(values) < 0)
    assert values[0] > 1 > values[-1]
    # the model's KKT map and dual objective (independent of the driver's update)
    model = BinaryERLPBoost(U, nu=nu, eta=eta)
    np.testing.assert_allclose(model.d_from_w(w), step.d, atol=1e-12)
    assert step.theta == pytest.approx(model.dual_objective(w), abs=1e-9)


def test_beta_update_matches_the_printed_formulas():
    """Eq. 4.11 and Eq. 3.26 written out directly (moderate eta, no overflow)."""
    n, nu, eta = 25, 4.0, 3.0
    U = random_edge_matrix(n, 3, 17)
    w = np.array([0.2, 0.5, 0.3])
    m, d0 = U @ w, np.full(n, 1.0 / n)
    step = binary_erlpboost_update(m, CappedBinaryRelativeEntropy(d0, nu, eta))
    e = np.exp(-eta * (m + step.beta))
    np.testing.assert_allclose(step.d, d0 * e / (1 - nu * d0 + nu * d0 * e), rtol=1e-12)
    theta = -np.log(1 - nu * d0 + nu * d0 * e).sum() / (eta * nu) - step.beta
    assert step.theta == pytest.approx(theta, abs=1e-13)


# --- AdaBoost ----------------------------------------------------------------------------------------


def test_adaboost_step_closed_form_and_line_search():
    rng = np.random.default_rng(18)
    d = rng.exponential(size=30)
    d /= d.sum()
    u = np.where(rng.uniform(size=30) < 0.7, 1.0, -1.0)
    edge = u @ d
    assert edge > 0
    assert adaboost_step(u, d) == pytest.approx(0.5 * math.log((1 + edge) / (1 - edge)), rel=1e-12)
    v = rng.uniform(-1, 1, size=30) + 0.3 * (u > 0)
    v = np.clip(v, -1, 1)
    alpha = adaboost_step(v, d)
    assert alpha > 0 and abs(d @ (v * np.exp(-alpha * v))) < 1e-12  # Z'(alpha) = 0
    assert adaboost_step(np.abs(u), d) == math.inf


def test_adaboost_driver():
    U = random_edge_matrix(40, 30, 19)
    result = adaboost(MatrixOracle(U, reflexive=True), max_iter=200)
    assert result.n_iter == 200 and not result.converged and result.stop_reason == "rounds"
    assert np.all(result.weights >= 0) and result.weights.sum() == pytest.approx(1.0)
    assert np.all(result.history["edge"] > 0)
    # d^t is proportional to d0 exp(-sum_q alpha_q u^q): the final d from the normalised weights
    margins = result.columns @ result.weights
    alpha_sum = np.log(result.d[0] / result.d) / (margins - margins[0] + 1e-300)
    finite = np.abs(margins - margins[0]) > 1e-6
    assert np.allclose(alpha_sum[finite], alpha_sum[finite][0], rtol=1e-6)
