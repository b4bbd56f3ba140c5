"""The total-KL regulariser and tKlBoost (dualboost.conjugates.total_entropy,
dualboost.boosting.totally_corrective.tkl; docs/tempered.md#total-kl).

Independent computations: the closed-form constant of the C++ code, cvxpy (Clarabel, exponential
cones) for the conjugate, and ERLPBoost run with the C++ code's nu and eta.
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
from scipy.special import rel_entr
from sklearn.datasets import load_breast_cancer

from dualboost.boosting import erlpboost
from dualboost.boosting.totally_corrective.tkl import tkl_parameters, tklboost
from dualboost.conjugates import CappedTotalRelativeEntropy, total_kl_scale
from dualboost.oracles import DecisionStumps


def test_scale_is_the_cpp_constant_for_the_uniform_prior():
    for n in (10, 600, 32561):
        # src/boosters/tKlBoost.cpp: sqrt(1 + (log(N) - 1)^2)
        assert total_kl_scale(np.full(n, 1.0 / n)) == pytest.approx(math.sqrt(1 + (math.log(n) - 1) ** 2),
                                                                     rel=1e-14)


def test_value_and_conjugate_against_the_definition_and_cvxpy():
    rng = np.random.default_rng(0)
    n, nu, eta = 15, 3.0, 2.5
    d0 = rng.random(n) + 0.3
    d0 /= d0.sum()
    f = CappedTotalRelativeEntropy(d0, nu, eta)
    c = math.sqrt(1 + float(np.sum(d0 * (1 + np.log(d0)) ** 2)))
    x = np.full(n, 1.0 / n)
    assert f.value(x) == pytest.approx(float(rel_entr(x, d0).sum()) / (eta * c), rel=1e-12)
    assert f.total_kl(x) == pytest.approx(float(rel_entr(x, d0).sum()) / c, rel=1e-12)
    theta = rng.standard_normal(n)
    d = cp.Variable(n)
    objective = theta @ d - cp.sum(cp.rel_entr(d, d0)) / (eta * c)
    problem = cp.Problem(cp.Maximize(objective), [cp.sum(d) == 1, d >= 0, d <= 1 / nu])
    problem.solve(solver="CLARABEL")
    # Clarabel's accuracy ~1e-8 relative; the closed form is exact to rounding
    assert f.conjugate(theta) == pytest.approx(problem.value, abs=1e-7)
    # the maximiser only to ~sqrt(value accuracy / strong convexity 1/(eta c) ~ 0.1): 3e-4
    np.testing.assert_allclose(f.conjugate_grad(theta), d.value, atol=1e-3)


def test_parameters_are_the_cpp_codes():
    n, D, eps = 600, 0.2, 0.01
    nu, eta = tkl_parameters(n, D, eps)
    c = math.sqrt(1 + (math.log(n) - 1) ** 2)
    lam = eps * c / (2 * math.log(n * D))  # tKlBoost::compute_eta's lambda
    assert nu == 5.0
    assert CappedTotalRelativeEntropy(np.full(n, 1 / n), nu, eta).eta == pytest.approx(1 / lam, rel=1e-13)
    for bad in (0.0, 1.5, 1 / 600, float("nan")):
        with pytest.raises(ValueError, match="D"):
            tkl_parameters(n, bad, eps)
    with pytest.raises(ValueError, match="d0"):
        CappedTotalRelativeEntropy(None, 2.0, 1.0)


def test_tklboost_is_erlpboost_with_the_cpp_parameters():
    X, y = load_breast_cancer(return_X_y=True)
    oracle = DecisionStumps().fit(X[:150], 2.0 * y[:150] - 1.0)
    run = tklboost(oracle, D=0.1, eps=0.05)
    nu, eta = tkl_parameters(150, 0.1, 0.05)
    kl_eta = eta * total_kl_scale(np.full(150, 1 / 150))
    reference = erlpboost(oracle, nu=nu, eps=0.05, eta=kl_eta)
    assert run.converged and run.params["eta"] == pytest.approx(kl_eta, rel=1e-14)
    assert run.n_hypotheses == reference.n_hypotheses
    np.testing.assert_allclose(run.weights, reference.weights, atol=1e-12)
