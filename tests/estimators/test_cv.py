"""The nu path and its cross-validation (dualboost.estimators.cv).

Checked against independent computations:

* on a fixed finite class (a reflexive MatrixOracle), every point of the path, warm-started or not, is
  eps/2-optimal for the full model over all the columns solved directly by a second method
  (Clarabel): ERLPBoost's dual value of the path within eps/2 below the full optimum, LPBoost's LP
  value within eps;
* the cold path at one nu is the erlpboost driver, hypothesis for hypothesis and weight for weight;
* the warm path needs fewer oracle calls than the independent fits (a count, not a time);
* with warm_start=False the CV scores are scikit-learn's cross_val_score of ERLPBoostClassifier at
  each nu on the same splits, and best_nu_ / best_estimator_ follow from them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, cross_val_score

from dualboost import ERLPBoostClassifier
from dualboost.boosting import erlpboost
from dualboost.estimators import ERLPBoostCV, LPBoostCV, nu_count, path
from dualboost.estimators.cv import DEFAULT_NUS, check_nus, oracle_path
from dualboost.oracles import DecisionStumps, MatrixOracle
from dualboost.problems import ERLPBoost, LPBoost

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

EPS = 0.02
NUS = (0.5, 0.25, 0.1, 0.02)


@pytest.fixture(scope="module")
def matrix_class():
    """A reflexive finite class of 40 random +-1 columns on 80 examples (not separable)."""
    rng = np.random.default_rng(3)
    U = np.where(rng.random((80, 40)) < 0.55, 1.0, -1.0)
    return U, np.hstack([U, -U])


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=160, n_features=6, n_informative=3, flip_y=0.1, random_state=0)
    return X, y


@pytest.mark.parametrize("warm_start", [True, False])
def test_erlpboost_path_is_eps_optimal_for_the_full_class(matrix_class, warm_start):
    U, full = matrix_class
    nu_path = oracle_path(MatrixOracle(U, reflexive=True), NUS, eps=EPS, warm_start=warm_start)
    assert list(nu_path.nus) == sorted(NUS, reverse=True)
    for point in nu_path:
        nu, eta = point.result.params["nu"], point.result.params["eta"]
        assert nu == nu_count(point.nu, U.shape[0])
        optimum = ERLPBoost(full, nu=nu, eta=eta).solve(method="clarabel", tol=1e-9)
        assert optimum.optimal
        sol = point.solution
        assert sol.optimal and np.array_equal(sol.w, point.weights)
        # a restricted dual value is a lower bound of the full optimum; at the stop it is within eps/2
        assert sol.dual_value <= optimum.primal_value + 1e-7
        assert sol.dual_value >= optimum.primal_value - EPS / 2 - 1e-7


def test_lpboost_path_is_eps_optimal_for_the_full_class(matrix_class):
    U, full = matrix_class
    warm = oracle_path(MatrixOracle(U, reflexive=True), NUS, model="lpboost", eps=EPS)
    for point in warm:
        nu = point.result.params["nu"]
        optimum = LPBoost(full, nu=nu).solve(method="clarabel", tol=1e-9)
        assert optimum.optimal
        assert point.solution.dual_value <= optimum.primal_value + 1e-7
        assert point.solution.dual_value >= optimum.primal_value - EPS - 1e-7


def test_warm_and_independent_points_agree_within_eps(matrix_class):
    U, _ = matrix_class
    warm = oracle_path(MatrixOracle(U, reflexive=True), NUS, eps=EPS)
    cold = oracle_path(MatrixOracle(U, reflexive=True), NUS, eps=EPS, warm_start=False)
    for a, b in zip(warm, cold, strict=True):
        assert abs(a.solution.dual_value - b.solution.dual_value) <= EPS / 2 + 1e-9


def test_cold_point_is_the_erlpboost_driver(data):
    X, y = data
    oracle = DecisionStumps().fit(X, y)
    point = oracle_path(oracle, [0.2], eps=EPS, warm_start=False)[0]
    result = erlpboost(oracle, nu=nu_count(0.2, X.shape[0]), eps=EPS)
    assert point.result.hypotheses == result.hypotheses
    np.testing.assert_array_equal(point.result.weights, result.weights)
    assert point.result.n_iter == result.n_iter


@pytest.mark.parametrize("model", ["erlpboost", "lpboost"])
def test_warm_start_saves_oracle_calls(data, model):
    X, y = data
    warm = path(X, y, NUS, model=model, eps=EPS)
    cold = path(X, y, NUS, model=model, eps=EPS, warm_start=False)
    assert warm[0].result.n_iter == cold[0].result.n_iter  # the first nu starts from nothing in both
    assert sum(p.result.n_iter for p in warm) < sum(p.result.n_iter for p in cold)
    # each later point starts with the previous output's hypotheses, in order
    for before, after in zip(warm.points[:-1], warm.points[1:], strict=True):
        k = before.result.n_hypotheses
        assert after.result.hypotheses[:k] == before.result.hypotheses


def test_path_points_predict_as_their_weights(data):
    X, y = data
    point = path(X, y, [0.1], eps=EPS)[0]
    f = sum(w * h.predict(X) for w, h in zip(point.weights, point.result.hypotheses, strict=True) if w > 0)
    np.testing.assert_allclose(point.decision_function(X), f, atol=1e-9)


@pytest.mark.parametrize(
    "nus, match",
    [
        ([], "non-empty"),
        ([0.1, 0.1], "distinct"),
        ([0.0], "nu must lie"),
        ([1.5], "nu must lie"),
        (["a"], "nu"),
    ],
)
def test_bad_grids_are_refused(nus, match):
    with pytest.raises(ValueError, match=match):
        check_nus(nus)


def test_default_grid_and_bad_arguments(data):
    X, y = data
    assert list(check_nus(None)) == sorted(DEFAULT_NUS, reverse=True)
    with pytest.raises(ValueError, match="model must be one of"):
        path(X, y, model="adaboost")
    with pytest.raises(ValueError, match="eps"):
        path(X, y, eps=-1.0)
    with pytest.raises(ValueError, match="method must be one of"):
        path(X, y, method="nope")


def test_cv_scores_are_cross_val_scores_of_independent_fits(data):
    X, y = data
    splitter = StratifiedKFold(3, shuffle=True, random_state=1)
    grid = (0.4, 0.1)
    fitted = ERLPBoostCV(nus=grid, cv=splitter, eps=EPS, warm_start=False).fit(X, y)
    assert fitted.scores_.shape == (3, 2)
    for j, nu in enumerate(fitted.nus_):
        expected = cross_val_score(ERLPBoostClassifier(nu=nu, eps=EPS), X, y, cv=splitter)
        np.testing.assert_array_equal(fitted.scores_[:, j], expected)
    best = int(np.argmax(fitted.scores_.mean(axis=0)))
    assert fitted.best_nu_ == fitted.nus_[best]
    refit = ERLPBoostClassifier(nu=fitted.best_nu_, eps=EPS).fit(X, y)
    np.testing.assert_array_equal(fitted.decision_function(X), refit.decision_function(X))
    np.testing.assert_array_equal(fitted.predict(X), refit.predict(X))
    np.testing.assert_allclose(fitted.predict_proba(X), refit.predict_proba(X))
    assert fitted.nu_ == refit.nu_ and fitted.eta_ == refit.eta_


def test_cv_ties_go_to_the_largest_nu():
    # one feature with 8 values, 10 examples each: both nus score the same on every fold (a tie)
    X = np.repeat(np.arange(8.0), 10)[:, None]
    y = np.where(X[:, 0] > 3, 1, -1)
    fitted = ERLPBoostCV(nus=(0.05, 0.2), cv=4, eps=0.05).fit(X, y)
    assert fitted.mean_scores_[0] == fitted.mean_scores_[1]
    assert fitted.best_nu_ == 0.2


def test_lpboost_cv_and_string_labels(data):
    X, y = data
    labels = np.where(y == 1, "yes", "no")
    fitted = LPBoostCV(nus=(0.3, 0.05), cv=3, eps=EPS).fit(X, labels)
    assert set(fitted.predict(X)) <= {"yes", "no"}
    assert fitted.best_estimator_.__class__.__name__ == "LPBoostClassifier"
    assert fitted.best_nu_ in (0.3, 0.05)
    assert 0.0 <= fitted.best_score_ <= 1.0 and fitted.path_times_.shape == (3,)


def test_cv_parameters_are_checked_and_cloned(data):
    X, y = data
    with pytest.raises(ValueError, match="eps"):
        ERLPBoostCV(eps=0).fit(X, y)
    with pytest.raises(ValueError, match="nu"):
        ERLPBoostCV(nus=[2.0]).fit(X, y)
    with pytest.raises(ValueError, match="at least two classes"):  # (K > 2: test_multiclass_estimators)
        ERLPBoostCV().fit(X, np.zeros(X.shape[0]))
    estimator = ERLPBoostCV(nus=(0.3,), cv=2, eta=50.0)
    assert clone(estimator).get_params() == estimator.get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert ERLPBoostCV(nus=(0.3,), cv=2, eta=50.0).fit(X, y).eta_ == 50.0


def test_scikit_learn_estimator_checks():
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(ERLPBoostCV(nus=(0.3, 0.1), cv=2), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert not failed
