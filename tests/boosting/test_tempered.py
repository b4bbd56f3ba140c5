"""The tempered relative entropy (dualboost.conjugates.tempered), TemperedERLPBoost, its driver and
classifier, and t-AdaBoost (docs/tempered.md).

Independent computations: cvxpy with Clarabel on the power-cone form of the Tsallis term written
here (not the library's cvxpy forms), central finite differences of the gradient, the closed forms
at t -> 1 (today's relative-entropy models), a brute force over the capped simplex's vertices, and
AdaBoost for t-AdaBoost at t = 1.
"""

from __future__ import annotations

import itertools
import math

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.utils.estimator_checks import parametrize_with_checks

from dualboost.boosting import adaboost, erlpboost
from dualboost.boosting.corrective.t_adaboost import t_adaboost, tempered_step, tempered_update
from dualboost.boosting.totally_corrective.tempered import (
    tempered_divergence_bound,
    tempered_erlpboost,
    tempered_eta,
)
from dualboost.conjugates import (
    CappedRelativeEntropy,
    CappedSimplex,
    CappedTemperedRelativeEntropy,
    TemperedRelativeEntropy,
    exp_t,
    log_t,
)
from dualboost.conjugates.tempered import _power  # (cvxpy 1.4 has no approx keyword: its fallback)
from dualboost.estimators.tempered import TAdaBoostClassifier, TemperedERLPBoostClassifier
from dualboost.oracles import DecisionStumps
from dualboost.problems import ERLPBoost, Relaxation, TemperedERLPBoost
from tests.sklearn_checks import repeated_rows_checks

#: Clarabel's default accuracy is ~1e-8 relative; the power cones at these sizes lose a little more
#: (measured: at most 3e-7 against the certified values); 1e-6 leaves room and still catches a wrong
#: conjugate, whose error is of order one
CVXPY_TOL = 1e-6


def _phi_terms(x, y, t):
    """``phi(x) - phi(y) - phi'(y)(x - y)``, phi = x^(2-t) / ((1-t)(2-t)), in numpy (the definition)."""
    c = (1.0 - t) * (2.0 - t)
    return (x ** (2.0 - t) - y ** (2.0 - t)) / c - y ** (1.0 - t) / (1.0 - t) * (x - y)


def _cvxpy_divergence(x, y, t):
    """The same Bregman divergence in cvxpy: a power cone (convex power for t < 1, minus a concave one
    for t > 1)."""
    c = (1.0 - t) * (2.0 - t)
    power = cp.sum(_power(x, 2.0 - t))
    return power / c - float(np.sum(y ** (2.0 - t))) / c - (y ** (1.0 - t) / (1.0 - t)) @ (x - y)


def _prior(n, seed):
    d0 = np.random.default_rng(seed).random(n) + 0.2
    return d0 / d0.sum()


def test_tempered_log_and_exp_are_inverse_and_tend_to_ln_exp():
    x = np.array([1e-3, 0.2, 1.0, 3.0])
    for t in (0.0, 0.3, 0.7, 1.4):
        np.testing.assert_allclose(exp_t(log_t(x, t), t), x, rtol=1e-13)
        np.testing.assert_allclose(log_t(x, t), (x ** (1 - t) - 1) / (1 - t), rtol=1e-12)
    # t -> 1: log_t x = ln x + (1-t) (ln x)^2 / 2 + O((1-t)^2), the rest below 1e-18 at 1 - t = 1e-10:
    # the expm1 form keeps it to rounding (the naive (x^(1-t) - 1)/(1-t) would lose 1e-6)
    ln = np.log(x)
    np.testing.assert_allclose(log_t(x, 1 - 1e-10), ln + 1e-10 * ln**2 / 2, rtol=0, atol=1e-14)
    # exp_t y = e^y (1 - (1-t) y^2 / 2 + O((1-t)^2))
    np.testing.assert_allclose(exp_t(ln, 1 - 1e-10), x * (1 - 1e-10 * ln**2 / 2), rtol=1e-14)
    assert exp_t(np.array([-5.0]), 0.5)[0] == 0.0  # below -1/(1-t): exactly 0 (sparse weights)


@pytest.mark.parametrize("t", [0.0, 0.5, 1.5])
@pytest.mark.parametrize("nu", [1.0, 3.0, 12.0])
@pytest.mark.parametrize("eta", [0.5, 5.0])
def test_capped_conjugate_against_cvxpy_and_fenchel_young(t, nu, eta):
    n = 12
    d0 = _prior(n, 1)
    f = CappedTemperedRelativeEntropy(d0, nu, eta, t)
    theta = np.random.default_rng(2).standard_normal(n)
    value, d = f.conjugate_and_grad(theta)
    x = cp.Variable(n)
    div = _cvxpy_divergence(x, d0, t) if t != 0.0 else 0.5 * cp.sum_squares(x - d0)
    problem = cp.Problem(cp.Maximize(theta @ x - div / eta), [cp.sum(x) == 1, x >= 0, x <= 1 / nu])
    problem.solve(solver="CLARABEL")
    # the value at the solver's point, clipped and evaluated by the definition (numpy)
    xs = np.clip(x.value, 0, 1 / nu)
    reference = float(theta @ xs - _phi_terms(xs, d0, t).sum() / eta)
    assert abs(value - reference) <= CVXPY_TOL * max(1.0, abs(value))
    assert abs(d.sum() - 1.0) <= 1e-14 and d.min() >= 0.0 and d.max() <= 1 / nu + 1e-15
    np.testing.assert_allclose(f.value(d), _phi_terms(d, d0, t).sum() / eta, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("t", [0.0, 0.4, 1.6])
def test_curvature_matches_finite_differences_of_the_gradient(t):
    n = 10
    f = CappedTemperedRelativeEntropy(_prior(n, 3), nu=3.0, eta=2.0, t=t)
    theta = np.random.default_rng(4).standard_normal(n)
    H = f.conjugate_hessian(theta)
    dense = H.scale * (np.diag(H.g) - H.V @ H.M @ H.V.T)
    h = 1e-6
    fd = np.column_stack([
        (f.conjugate_grad(theta + h * e) - f.conjugate_grad(theta - h * e)) / (2 * h) for e in np.eye(n)
    ])
    # central differences: error O(h^2 |third derivative|) + rounding 1e-16/h ~ 1e-10
    np.testing.assert_allclose(dense, fd, atol=1e-7)


def test_orthant_entry_is_the_unnormalised_entropy_at_one_and_its_conjugate_fenchel_young():
    d0 = np.array([0.5, 1.5, 2.0])
    theta = np.array([0.3, -0.2, 0.1])
    for t in (0.2, 0.8, 1.3):
        f = TemperedRelativeEntropy(d0, t)
        d = f.conjugate_grad(theta)
        # the sup is attained at d: Fenchel-Young holds with equality there, and not elsewhere
        assert abs(f.fenchel_young_gap(d, theta)) <= 1e-12
        assert f.fenchel_young_gap(d * 1.1, theta) > 1e-6
        np.testing.assert_allclose(f.value(d), _phi_terms(d, d0, t).sum(), rtol=1e-12)
    near = TemperedRelativeEntropy(d0, 1 - 1e-10)
    closed = float(np.sum(d0 * np.expm1(theta)))  # UnnormalisedRelativeEntropy's conjugate
    assert abs(near.conjugate(theta) - closed) <= 1e-9


def _edges(n=40, m=8, seed=1):
    rng = np.random.default_rng(seed)
    return np.clip(0.5 * rng.standard_normal((n, m)), -1, 1)


def _cvxpy_primal(U, nu, eta, t, d0):
    n = U.shape[0]
    x = cp.Variable(n)
    div = _cvxpy_divergence(x, d0, t) if t != 0.0 else 0.5 * cp.sum_squares(x - d0)
    objective = cp.max(U.T @ x) + div / eta
    problem = cp.Problem(cp.Minimize(objective), [cp.sum(x) == 1, x >= 0, x <= 1 / nu])
    problem.solve(solver="CLARABEL")
    xs = np.clip(x.value, 0, 1 / nu)
    xs /= xs.sum()
    return float(np.max(U.T @ xs) + _phi_terms(xs, d0, t).sum() / eta)


@pytest.mark.parametrize("t", [0.0, 0.5, 1.5])
@pytest.mark.parametrize("nu", [1.0, 4.0, 40.0])
@pytest.mark.parametrize("eta", [0.5, 20.0])
def test_model_auglag_certified_against_cvxpy(t, nu, eta):
    U = _edges()
    d0 = _prior(U.shape[0], 5)
    model = TemperedERLPBoost(U, nu=nu, eta=eta, d0=d0, t=t)
    assert model.smooth_dual
    sol = model.solve("auglag", tol=1e-8)
    assert sol.status == "optimal"
    reference = _cvxpy_primal(U, nu, eta, t, d0)
    # the certified pair brackets the optimum within 1e-8; cvxpy's point is feasible to its accuracy
    assert sol.primal_value - sol.dual_value <= 1e-8 * max(1.0, abs(sol.primal_value))
    assert abs(sol.primal_value - reference) <= CVXPY_TOL * max(1.0, abs(reference))
    if t < 1.0 and eta == 20.0 and nu < 40.0:
        assert np.count_nonzero(sol.d == 0.0) > 0  # t < 1: exact zeros


@pytest.mark.parametrize("nu", [1.0, 5.0, 40.0])
def test_model_tends_to_erlpboost_as_t_tends_to_one(nu):
    U = _edges(seed=2)
    d0 = _prior(U.shape[0], 6)
    near = TemperedERLPBoost(U, nu=nu, eta=3.0, d0=d0, t=1 - 1e-10).solve("auglag", tol=1e-12)
    kl = ERLPBoost(U, nu=nu, eta=3.0, d0=d0).solve("auglag", tol=1e-12)
    # the divergence differs from the KL by O(1 - t) = 1e-10; the solves are certified to 1e-12
    assert abs(near.primal_value - kl.primal_value) <= 1e-9
    assert abs(near.dual_value - kl.dual_value) <= 1e-9
    np.testing.assert_allclose(near.d, kl.d, atol=1e-8)
    theta = np.random.default_rng(0).standard_normal(U.shape[0])
    f = CappedTemperedRelativeEntropy(d0, nu, 3.0, 1 - 1e-10)
    g = CappedRelativeEntropy(d0, nu, 3.0)
    assert abs(f.conjugate(theta) - g.conjugate(theta)) <= 1e-9


def test_relaxation_derives_the_capped_form_from_the_orthant_entry():
    U = _edges()
    n = U.shape[0]
    d0 = np.full(n, 1.0 / n)
    relaxation = Relaxation(U, TemperedRelativeEntropy(d0, 0.5) / 2.0 + CappedSimplex(5.0), form="edge")
    assert isinstance(relaxation.regularizer, CappedTemperedRelativeEntropy)
    assert relaxation.regularizer.eta == 2.0 and relaxation.regularizer.nu == 5.0
    assert relaxation.smooth_dual and relaxation.d_is_unique
    derived = relaxation.solve("auglag", tol=1e-10)
    direct = TemperedERLPBoost(U, nu=5.0, eta=2.0, t=0.5).solve("auglag", tol=1e-10)
    assert derived.status == "optimal"
    assert abs(derived.primal_value - direct.primal_value) <= 1e-9


@pytest.mark.parametrize("bad", [-0.1, 2.0, 3.0, float("nan"), "a"])
def test_invalid_temperature_is_a_value_error_naming_t(bad):
    with pytest.raises(ValueError, match=r"\bt\b"):
        CappedTemperedRelativeEntropy(np.full(4, 0.25), t=bad)
    with pytest.raises(ValueError, match=r"\bt\b"):
        TemperedRelativeEntropy(t=bad)
    with pytest.raises(ValueError, match=r"\bt\b"):
        TemperedERLPBoost(_edges(4, 2), t=bad)


def test_divergence_bound_is_the_maximum_over_the_vertices():
    n = 6
    d0 = _prior(n, 7)
    for nu, t in ((1.0, 0.5), (2.0, 0.0), (2.5, 1.5), (3.0, 1.0)):
        cap = 1.0 / nu
        k = int(math.floor(nu))
        best = 0.0
        for caps in itertools.permutations(range(n), k + 1):  # every vertex: k caps and a remainder
            d = np.zeros(n)
            d[list(caps[:k])] = cap
            d[caps[k]] += 1.0 - k * cap
            best = max(best, CappedTemperedRelativeEntropy(d0, nu, 1.0, t).value(d))
        assert abs(tempered_divergence_bound(d0, nu, t) - best) <= 1e-12
    uniform = np.full(n, 1.0 / n)
    assert abs(tempered_eta(uniform, 2.0, 0.1, 1.0) - 20.0 * math.log(3.0)) <= 1e-12  # (2/eps) ln(N/nu)


@pytest.fixture(scope="module")
def stumps():
    X, y = load_breast_cancer(return_X_y=True)
    return DecisionStumps().fit(X[:150], 2.0 * y[:150] - 1.0)


def test_t_adaboost_is_adaboost_at_one_and_sparse_below(stumps):
    ada = adaboost(stumps, max_iter=25)
    tada = t_adaboost(stumps, t=1.0, max_iter=25)
    np.testing.assert_allclose(tada.weights, ada.weights, atol=1e-12)
    sparse = t_adaboost(stumps, t=0.3, max_iter=40)
    assert np.count_nonzero(sparse.d == 0.0) > 0
    for bad in (1.5, 2.0, -1.0):
        with pytest.raises(ValueError, match=r"\bt\b"):
            t_adaboost(stumps, t=bad)


def test_tempered_step_leaves_the_new_measure_uncorrelated_with_the_hypothesis():
    rng = np.random.default_rng(8)
    n = 30
    for t in (0.0, 0.5, 1.0):
        q = rng.random(n) + 0.1
        q /= np.sum(q ** (2 - t)) ** (1 / (2 - t))
        u = np.clip(rng.standard_normal(n) + 0.3, -1, 1)
        with pytest.raises(ValueError, match="positive edge"):
            tempered_step(q, -np.abs(u), t)
        u = u if u @ q > 0 else -u
        mu = tempered_step(q, u, t)
        new = tempered_update(q, u, mu, t)
        assert mu > 0
        assert abs(np.sum(new ** (2 - t)) - 1.0) <= 1e-12  # on the co-simplex
        assert abs(float(u @ new)) <= 1e-10  # the minimiser of Z: zero edge on u
        # and it is the minimiser: Z^(2-t) is larger a little to either side
        z = [np.sum(exp_t(log_t(q, t) - m * u, t) ** (2 - t)) for m in (mu - 1e-3, mu, mu + 1e-3)]
        assert z[1] < z[0] and z[1] < z[2]


def test_tempered_erlpboost_driver_is_erlpboost_at_one_and_converges_below(stumps):
    kl = erlpboost(stumps, nu=5.0, eps=0.05)
    near = tempered_erlpboost(stumps, t=1.0, nu=5.0, eps=0.05)
    assert near.params["eta"] == pytest.approx(kl.params["eta"], rel=1e-14)
    np.testing.assert_allclose(near.weights, kl.weights, atol=1e-6)  # both certified to eps/4
    half = tempered_erlpboost(stumps, t=0.5, nu=5.0, eps=0.05)
    assert half.converged and half.params["t"] == 0.5
    assert half.params["eta"] == pytest.approx(tempered_eta(np.full(150, 1 / 150), 5.0, 0.05, 0.5))


def test_classifier_fits_and_validates_t():
    X, y = load_breast_cancer(return_X_y=True)
    clf = TemperedERLPBoostClassifier(t=0.5, eps=0.1).fit(X[:200], y[:200])
    assert clf.score(X[200:400], y[200:400]) > 0.85
    with pytest.raises(ValueError, match="'t'"):
        TemperedERLPBoostClassifier(t=2.5).fit(X[:50], y[:50])


@parametrize_with_checks(
    [TemperedERLPBoostClassifier(max_iter=5)], expected_failed_checks=repeated_rows_checks
)
def test_classifier_is_sklearn_compatible(estimator, check):
    check(estimator)


def test_t_adaboost_classifier_is_the_driver():
    """TAdaBoostClassifier fits the t_adaboost driver on the stumps (the same weights), validates t,
    refuses unequal sample weights saying why, and takes K > 2 classes over the pairs."""
    from sklearn.datasets import load_iris

    from dualboost.boosting.corrective.t_adaboost import t_adaboost
    from dualboost.oracles import DecisionStumps

    X, y = load_breast_cancer(return_X_y=True)
    clf = TAdaBoostClassifier(t=0.3, max_iter=40).fit(X, y)
    run = t_adaboost(DecisionStumps().fit(X, np.where(y == 1, 1.0, -1.0)), t=0.3, max_iter=40)
    assert np.array_equal(clf.estimator_weights_, run.weights) and clf.hypotheses_ == run.hypotheses
    with pytest.raises(ValueError, match="'t'"):
        TAdaBoostClassifier(t=1.5).fit(X, y)
    with pytest.raises(ValueError, match="unequal positive weights"):
        TAdaBoostClassifier().fit(X, y, sample_weight=np.arange(y.size) % 3 + 1.0)
    Xi, yi = load_iris(return_X_y=True)
    assert TAdaBoostClassifier(max_iter=60).fit(Xi, yi).score(Xi, yi) >= 0.9


def _unequal_weights_refused(estimator) -> dict[str, str]:
    reason = "t-AdaBoost starts from the uniform measure: unequal sample weights are refused"
    return repeated_rows_checks(estimator) | {"check_sample_weights_not_overwritten": reason}


@parametrize_with_checks(
    [TAdaBoostClassifier(max_iter=30)], expected_failed_checks=_unequal_weights_refused
)
def test_t_adaboost_is_sklearn_compatible(estimator, check):
    check(estimator)
