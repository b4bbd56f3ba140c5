"""Corrective subproblems M8 ([KG] Eqs. 4.6-4.8) and M9 (Eqs. 4.12-4.14); in part, the internals
of Corrective ERLPBoost ([KG] Sec 4.2).

Independent references: the totally corrective models (ERLPBoost, BinaryERLPBoost) restricted to
the line w(a) = ((1 - a) w_prev, a) and maximised by scipy's bounded Brent search, the primal and
the dual solved by different cvxpy solvers, and the closed-form psi of Alg 4.1 (h)-(i) written
out here.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp

from dualboost.instances import random_edge_matrix
from dualboost.problems import (
    BinaryERLPBoost,
    CorrectiveBinaryERLPBoost,
    CorrectiveERLPBoost,
    ERLPBoost,
)

VALUE_TOL = 1e-7  # interior point at 1e-10; observed certified gaps <= 1e-11
D_TOL = 2e-5  # sqrt(2 eta gap) with gap ~1e-11, eta = 5 (strong convexity, Pinsker)

PAIRS = [(CorrectiveERLPBoost, ERLPBoost), (CorrectiveBinaryERLPBoost, BinaryERLPBoost)]


def instance(seed, n=20, t=5):
    U = random_edge_matrix(n, t, seed=seed)
    w_prev = np.random.default_rng(seed).dirichlet(np.ones(t - 1))
    return U, w_prev


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("nu", [1.0, 3.0])
@pytest.mark.parametrize("corrective, totally", PAIRS)
def test_corrective_primal_dual_and_the_line(corrective, totally, nu, seed):
    eta = 5.0
    U, w_prev = instance(seed)
    model = corrective(U, w_prev, nu=nu, eta=eta)
    assert model.is_feasible()
    primal = model.solve(method="clarabel", side="primal")
    dual = model.solve(method="ecos", side="dual")
    assert primal.status == dual.status == "optimal"
    assert primal.primal_value == pytest.approx(dual.dual_value, abs=VALUE_TOL)
    x = U[:, -1] - U[:, :-1] @ w_prev
    # the primal solution balances the new hypothesis against the old combination: x.d = 0
    assert abs(x @ primal.d) <= 1e-9
    # both returned w lie on the line ((1 - a) w_prev, a)
    for w in (primal.w, dual.w):
        a = w[-1]
        np.testing.assert_allclose(w[:-1], (1 - a) * w_prev, atol=1e-12)
    # its d is d_from_w of the solver's w (Eq. 4.8 / 4.14)
    np.testing.assert_allclose(model.d_from_w(dual.w), primal.d, atol=D_TOL)
    # the totally corrective dual along the line, maximised by Brent over a in [0, 1]
    full = totally(U, nu=nu, eta=eta)
    res = minimize_scalar(
        lambda a: -full.dual_objective(model.weights(a)),
        bounds=(0.0, 1.0),
        method="bounded",
        options={"xatol": 1e-10},
    )
    a_star = dual.w[-1]
    if 1e-6 < a_star < 1 - 1e-6:  # on the simplex part of the line the two duals coincide
        assert -res.fun == pytest.approx(dual.dual_value, abs=VALUE_TOL)
        assert res.x == pytest.approx(a_star, abs=1e-4)  # a is determined to ~sqrt(1e-10)
    else:  # outside [0, 1] the corrective dual can only be larger than the simplex maximum
        assert dual.dual_value >= -res.fun - VALUE_TOL


def test_m8_line_search_is_interior_for_the_chosen_instances():
    """Guard for the test above: the instances really exercise the interior case a in (0, 1)."""
    for seed in (0, 1):
        U, w_prev = instance(seed)
        for corrective, _ in PAIRS:
            a = corrective(U, w_prev, nu=3.0, eta=5.0).solve(side="dual").w[-1]
            assert 0.05 < a < 0.95


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_m8_dual_objective_matches_the_erlpboost_theta_on_the_line(seed):
    """For a in [0, 1] the corrective dual objective is Theta^ of Eq. 3.10 at w(a) (Lemma 4.1)."""
    U, w_prev = instance(seed)
    for corrective, totally in PAIRS:
        model = corrective(U, w_prev, nu=3.0, eta=5.0)
        full = totally(U, nu=3.0, eta=5.0)
        for a in np.linspace(0, 1, 7):
            w = model.weights(a)
            assert model.dual_objective(w) == pytest.approx(full.dual_objective(w), abs=1e-12)
            np.testing.assert_allclose(model.d_from_w(w), full.d_from_w(w), atol=1e-14)
        # off the line the corrective dual is -inf (infeasible)
        w_off = model.weights(0.3)
        w_off[0] += 1e-3
        w_off[-1] -= 1e-3
        assert model.dual_objective(w_off) == -np.inf


@pytest.mark.parametrize("seed", [0, 1])
def test_m8_psi_closed_form_reproduces_the_projection(seed):
    """Alg 4.1 (h)-(i): with C the capped set of d = d_from_w(w), psi_n = -m_n - (1/eta) ln(Z/(d0_n nu))
    on C is >= 0, and Eq. 3.11 with that psi gives d back ([KG] Sec 4.2.1 with the numerator of
    docs/math.md#erratum-kg-13)."""
    nu, eta = 3.0, 20.0
    U, w_prev = instance(seed)
    model = CorrectiveERLPBoost(U, w_prev, nu=nu, eta=eta)
    n = U.shape[0]
    d0 = np.full(n, 1.0 / n)
    for a in (0.2, 0.7):
        w = model.weights(a)
        m = U @ w
        d = model.d_from_w(w)
        capped = d >= 1.0 / nu - 1e-12
        assert capped.any()  # the instance exercises the caps
        log_z = logsumexp(np.log(d0[~capped]) - eta * m[~capped]) - np.log(1 - capped.sum() / nu)
        psi = np.zeros(n)
        psi[capped] = -m[capped] - (log_z - np.log(d0[capped] * nu)) / eta
        assert np.all(psi >= -1e-12)
        z = np.log(d0) - eta * (m + psi)
        np.testing.assert_allclose(np.exp(z - logsumexp(z)), d, atol=1e-12)


@pytest.mark.parametrize("corrective", [CorrectiveERLPBoost, CorrectiveBinaryERLPBoost])
@pytest.mark.parametrize("side", ["primal", "dual"])
def test_corrective_infeasible_when_x_is_positive(corrective, side):
    """x = u - v > 0 everywhere: x.d > 0 for every distribution, so the balance is impossible."""
    n = 10
    rng = np.random.default_rng(0)
    old = rng.uniform(-1.0, -0.2, size=(n, 3))
    new = rng.uniform(0.0, 1.0, size=(n, 1))
    U = np.hstack([old, new])
    model = corrective(U, np.ones(3) / 3, nu=2.0, eta=5.0)
    assert not model.is_feasible()
    assert model.solve(side=side).status == "infeasible"


def test_corrective_needs_two_columns():
    with pytest.raises(ValueError, match="U"):
        CorrectiveERLPBoost(random_edge_matrix(5, 1), np.ones(0), nu=1.0, eta=1.0)
