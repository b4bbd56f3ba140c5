"""GradientProjectionClassifier / GradientProjectionRegressor: scikit-learn's checks, labels, shapes,
closed forms and errors ([GB]; docs/math.md#gradient-boosting-in-function-space)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits, make_classification
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from dualboost.boosting.gradient.losses import CallableLoss
from dualboost.estimators.gradient import GradientProjectionClassifier, GradientProjectionRegressor
from dualboost.oracles import DecisionStumps


@parametrize_with_checks(
    [
        GradientProjectionClassifier(n_estimators=20),
        GradientProjectionClassifier(n_estimators=20, projection="repeated", learner="multiclass_stumps"),
        GradientProjectionRegressor(n_estimators=20),
        GradientProjectionRegressor(n_estimators=20, projection="naive", loss="absolute"),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(n_samples=120, n_features=6, n_informative=3, random_state=0)
    return X, np.where(y == 1, "spam", "ham")


@pytest.mark.parametrize("projection", ["naive", "repeated", "residual"])
@pytest.mark.parametrize("loss", ["logistic", "hinge", "exponential", "squared", "multiclass_hinge"])
def test_binary_labels_shapes_and_history(binary, projection, loss):
    X, y = binary
    clf = GradientProjectionClassifier(loss=loss, projection=projection, n_estimators=40).fit(X, y)
    assert list(clf.classes_) == ["ham", "spam"]
    f = clf.decision_function(X)
    assert f.shape == (120,)
    np.testing.assert_array_equal(clf.predict(X), np.where(f > 0, "spam", "ham"))
    assert clf.score(X, y) > 0.8
    assert clf.n_estimators_ == len(clf.estimators_) == clf.estimator_weights_.size <= 40
    assert len(clf.history_) == clf.n_iter_
    assert clf.objective_ == pytest.approx(clf.history_["primal"][-1])
    assert np.all(clf.history_["edge"] > 0) and np.all(clf.history_["edge"] <= 1 + 1e-12)


def test_multiclass_decision_function_and_learners():
    X, y = load_digits(return_X_y=True)
    X, y = X[:400], y[:400]
    for learner in ("stumps", "multiclass_stumps"):
        clf = GradientProjectionClassifier(n_estimators=60, learner=learner).fit(X, y)
        F = clf.decision_function(X)
        assert F.shape == (400, 10)
        np.testing.assert_array_equal(clf.predict(X), clf.classes_[F.argmax(axis=1)])
        assert clf.loss_.name == "multiclass_hinge"
        assert clf.score(X, y) > 0.6


def test_naive_stalls_on_multiclass_hinge_where_residual_descends():
    """[GB]'s Fig. 3 observation, small: with multiclass stumps the naive method re-uses the same
    weak learners and its objective stays far above the residual method's at the same budget."""
    X, y = load_digits(return_X_y=True)
    X, y = X[:500], y[:500]
    fits = {
        p: GradientProjectionClassifier(projection=p, n_estimators=120, learner="multiclass_stumps").fit(X, y)
        for p in ("naive", "residual")
    }
    assert fits["residual"].objective_ < 0.5 * fits["naive"].objective_
    assert fits["naive"].result_.n_distinct < fits["residual"].result_.n_distinct


def test_regressor_closed_form_and_learners():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = X @ np.array([1.0, -1.0, 2.0]) + 3.0 + 0.1 * rng.normal(size=80)
    # f_0 = mean(y), then one naive unit step with a linear learner = ordinary least squares
    reg = GradientProjectionRegressor(
        projection="naive", learner=LinearRegression(), n_estimators=1, step="constant"
    ).fit(X, y)
    np.testing.assert_allclose(reg.predict(X), LinearRegression().fit(X, y).predict(X), atol=1e-10)
    assert reg.init_ == pytest.approx(y.mean())
    absolute = GradientProjectionRegressor(loss="absolute", n_estimators=150).fit(X, y)
    assert absolute.init_ == pytest.approx(np.median(y))
    assert absolute.objective_ < 0.5 * np.mean(np.abs(y - np.median(y)))


def test_user_loss_oracles_and_sparse_input(binary):
    X, y = binary
    squared = CallableLoss(lambda F, t: 0.5 * (F - t) ** 2, lambda F, t: F - t, smooth=True)
    named = GradientProjectionRegressor(n_estimators=30, projection="naive").fit(X, X[:, 0])
    user = GradientProjectionRegressor(loss=squared, n_estimators=30, projection="naive").fit(X, X[:, 0])
    # the same loss, except that f_0 is 0 for a user loss (mean for "squared"): compare objectives
    assert user.objective_ == pytest.approx(user.history_["primal"][-1])
    assert named.objective_ <= user.objective_ + 0.05
    for learner in ("decision_stumps", DecisionStumps(), DecisionTreeClassifier(max_depth=1)):
        clf = GradientProjectionClassifier(n_estimators=25, learner=learner).fit(X, y)
        assert clf.score(X, y) > 0.8
    dense = GradientProjectionClassifier(n_estimators=25).fit(X, y)
    sparse = GradientProjectionClassifier(n_estimators=25).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)), dense.decision_function(X))


def test_estimator_validation_errors(binary):
    """Each bad parameter is a ValueError naming it (scikit-learn's messages for what
    ``_parameter_constraints`` declares, ours for what depends on the data)."""
    X, y = binary
    y3 = np.arange(120) % 3
    clf = "parameter of GradientProjectionClassifier must be"
    reg = "parameter of GradientProjectionRegressor must be"
    with pytest.raises(ValueError, match=f"'projection' {clf} a str among"):
        GradientProjectionClassifier(projection="greedy").fit(X, y)
    with pytest.raises(ValueError, match=rf"'n_estimators' {clf} an int in the range \[1, inf\)"):
        GradientProjectionClassifier(n_estimators=0).fit(X, y)
    with pytest.raises(ValueError, match=rf"'learning_rate' {reg} a float in the range \(0.0, inf\)"):
        GradientProjectionRegressor(learning_rate=0.0).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="is binary but y has 3 classes"):
        GradientProjectionClassifier(loss="logistic").fit(X, y3)
    with pytest.raises(ValueError, match="fits one output"):
        GradientProjectionClassifier(learner="decision_stumps").fit(X, y3)
    with pytest.raises(ValueError, match="fits K outputs"):
        GradientProjectionClassifier(loss="logistic", learner="multiclass_stumps").fit(X, y)
    with pytest.raises(ValueError, match="multiclass loss"):
        GradientProjectionRegressor(loss="multiclass_hinge").fit(X, X[:, 0])
    with pytest.raises(ValueError, match=f"'learner' {reg} a str among"):
        GradientProjectionRegressor(learner="trees").fit(X, X[:, 0])
    with pytest.raises(ValueError, match=f"'loss' {reg} a str among"):
        GradientProjectionRegressor(loss="huber").fit(X, X[:, 0])
