"""Re-weighting a fitted ensemble (dualboost.estimators.reweight).

The edge matrix is rebuilt here from the members' own outputs (predict_proba, predict, the regression
trees' values scaled by their largest magnitude), the model solved by a second method (Clarabel),
and compared with the certified solution reweight returned: the same optimal value, the soft margin
of its w over the rebuilt U equal to that value, the kept members exactly those with w > 0, and the
decision function equal to U w on the re-weighting data.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.ensemble import (
    AdaBoostClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.svm import LinearSVC

import dualboost
from dualboost.conjugates.projections import capped_simplex_support
from dualboost.estimators import ReweightedClassifier, nu_count, reweight
from dualboost.problems import ERLPBoost, LPBoost, canonical_eta

NU = 0.1


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=300, n_features=8, n_informative=4, flip_y=0.08, random_state=1)
    y = np.where(y == 1, 5, 2)  # labels other than -1/+1: 5 is the positive class
    return X[:200], y[:200], X[200:], y[200:]


def _edge_matrix(members, X, y, kind):
    """U[n, q] = y_n h_q(x_n), y_n = +1 for the label 5, computed from each member's own output."""
    signs = np.where(y == 5, 1.0, -1.0)
    columns = []
    for member in members:
        if kind == "proba":
            h = 2.0 * member.predict_proba(X)[:, 1] - 1.0
        elif kind == "predict_labels":
            h = np.where(member.predict(X) == 5, 1.0, -1.0)
        else:
            r = member.predict(X)
            h = r / np.max(np.abs(r))
        columns.append(h)
    return signs[:, None] * np.column_stack(columns)


def _soft_margin(U, w, nu):
    return -capped_simplex_support(-(U @ w), nu)


@pytest.mark.parametrize(
    "ensemble, kind",
    [
        (RandomForestClassifier(n_estimators=40, random_state=0), "proba"),
        (ExtraTreesClassifier(n_estimators=40, max_depth=4, random_state=0), "proba"),
        (AdaBoostClassifier(n_estimators=40, random_state=0), "predict_labels"),
        (GradientBoostingClassifier(n_estimators=40, max_depth=2, random_state=0), "regression"),
    ],
)
def test_lpboost_weights_are_certified_against_clarabel(data, ensemble, kind):
    X, y, X_val, y_val = data
    ensemble = clone(ensemble).fit(X, y)
    fitted = reweight(ensemble, X_val, y_val, model="lpboost", nu=NU)
    members = list(np.asarray(ensemble.estimators_).ravel())
    U = _edge_matrix(members, X_val, y_val, kind)
    assert fitted.n_members_ == len(members)
    nu = nu_count(NU, X_val.shape[0])
    other = LPBoost(U, nu=nu).solve(method="clarabel", tol=1e-9)
    sol = fitted.solution_
    assert sol.optimal and other.optimal and sol.gap <= 1e-7
    assert sol.dual_value == pytest.approx(other.dual_value, abs=1e-6)
    assert _soft_margin(U, sol.w, nu) == pytest.approx(sol.primal_value, abs=1e-7)
    np.testing.assert_array_equal(fitted.support_, np.flatnonzero(sol.w > 0))
    assert fitted.support_.size < len(members)  # an LP vertex: sparse
    assert fitted.estimators_ == [members[q] for q in fitted.support_]
    np.testing.assert_allclose(fitted.estimator_weights_.sum(), 1.0)
    signs = np.where(y_val == 5, 1.0, -1.0)
    np.testing.assert_allclose(signs * fitted.decision_function(X_val), U @ sol.w, atol=1e-9)
    predicted = fitted.predict(X)
    np.testing.assert_array_equal(predicted, np.where(fitted.decision_function(X) > 0, 5, 2))


def test_erlpboost_weights_are_certified_against_clarabel(data):
    X, y, X_val, y_val = data
    forest = RandomForestClassifier(n_estimators=30, random_state=0).fit(X, y)
    fitted = reweight(forest, X_val, y_val, model="erlpboost", nu=NU, eps=0.05)
    nu = nu_count(NU, X_val.shape[0])
    assert fitted.eta_ == canonical_eta(X_val.shape[0], nu, 0.05)
    U = _edge_matrix(forest.estimators_, X_val, y_val, "proba")
    other = ERLPBoost(U, nu=nu, eta=fitted.eta_).solve(method="clarabel", tol=1e-9)
    assert fitted.solution_.optimal and other.optimal
    assert fitted.solution_.dual_value == pytest.approx(other.primal_value, abs=1e-6)
    assert fitted.solution_.primal_value == pytest.approx(other.primal_value, abs=1e-6)


def test_a_list_of_members_maps_each_kind(data):
    X, y, X_val, y_val = data
    logistic = LogisticRegression().fit(X, y)
    svm = LinearSVC().fit(X, y)  # no predict_proba: votes
    ridge = Ridge().fit(X, np.where(y == 5, 1.0, -1.0))  # a regressor: scaled values
    fitted = ReweightedClassifier([logistic, svm, ridge], nu=0.3).fit(X_val, y_val)
    kinds = {h.index: h.kind for h in fitted.hypotheses_}
    assert set(kinds.values()) <= {"proba", "predict", "regression"}
    U = np.column_stack(
        [
            2 * logistic.predict_proba(X_val)[:, 1] - 1,
            np.where(svm.predict(X_val) == 5, 1.0, -1.0),
            ridge.predict(X_val) / np.max(np.abs(ridge.predict(X_val))),
        ]
    ) * np.where(y_val == 5, 1.0, -1.0)[:, None]
    other = LPBoost(U, nu=nu_count(0.3, X_val.shape[0])).solve(method="clarabel", tol=1e-9)
    assert fitted.solution_.dual_value == pytest.approx(other.dual_value, abs=1e-6)
    with_votes = ReweightedClassifier([logistic], output="predict").fit(X_val, y_val)
    assert with_votes.hypotheses_[0].kind == "predict"


def test_bad_input_is_refused(data):
    X, y, X_val, y_val = data
    with pytest.raises(NotFittedError):
        reweight(RandomForestClassifier(), X_val, y_val)
    with pytest.raises(ValueError, match="fitted must be"):
        reweight(LogisticRegression().fit(X, y), X_val, y_val)
    with pytest.raises(ValueError, match="fitted must be"):
        reweight([], X_val, y_val)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="classes"):
        reweight(forest, X_val, np.where(y_val == 5, 1, 0))
    with pytest.raises(ValueError, match="model"):
        reweight(forest, X_val, y_val, model="adaboost")
    with pytest.raises(ValueError, match="nu"):
        reweight(forest, X_val, y_val, nu=0.0)
    with pytest.raises(ValueError, match="features"):
        reweight(forest, X_val, y_val).predict(X_val[:, :3])


def test_scikit_learn_compatible(data):
    X, y, X_val, y_val = data
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    search = GridSearchCV(ReweightedClassifier(FrozenEstimator(forest)), {"nu": [0.05, 0.3]}, cv=3)
    search.fit(X_val, y_val)
    assert search.best_params_["nu"] in (0.05, 0.3)
    direct = reweight(forest, X_val, y_val, nu=search.best_params_["nu"])
    np.testing.assert_array_equal(search.best_estimator_.support_, direct.support_)
    members = [FrozenEstimator(LogisticRegression(C=c).fit(X, y)) for c in (0.01, 0.1, 1.0)]
    assert clone(ReweightedClassifier(members)).fit(X_val, y_val).n_members_ == 3
    with pytest.raises(ValueError, match=r"fitted\[0\] was fitted on the classes \[0.0, 1.0\]"):
        ReweightedClassifier(list(forest.estimators_[:2])).fit(X_val, y_val)  # trees: encoded labels
    assert dualboost.reweight is reweight and dualboost.ReweightedClassifier is ReweightedClassifier
