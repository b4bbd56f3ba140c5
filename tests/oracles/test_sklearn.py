"""SklearnOracle: a clone of any classifier fitted with sample_weight = N d, its output as h."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from dualboost.oracles import DecisionStumps, FittedEstimator, SklearnOracle


def problem(seed=0, n=80):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + rng.normal(scale=0.5, size=n) > 0, 2, 7)  # labels 2 and 7
    return X, y, rng.dirichlet(np.ones(n))


def test_tree_output_matches_a_direct_weighted_fit():
    X, y, d = problem()
    selection = SklearnOracle(DecisionTreeClassifier(max_depth=2, random_state=0)).fit(X, y).best(d)
    y_pm = np.where(y == 7, 1.0, -1.0)  # the larger label is +1
    direct = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y_pm, sample_weight=len(y) * d)
    np.testing.assert_array_equal(selection.column, y_pm * direct.predict(X))
    assert selection.edge == pytest.approx(selection.column @ d)
    assert isinstance(selection.hypothesis, FittedEstimator) and selection.hypothesis.sign == 1
    np.testing.assert_array_equal(selection.predict(X[:5]), direct.predict(X[:5]))


def test_depth_one_tree_is_a_stump_no_better_than_the_stump_oracle():
    X, y, d = problem(1)
    tree = SklearnOracle(DecisionTreeClassifier(max_depth=1, random_state=0)).fit(X, y).best(d)
    assert tree.edge <= DecisionStumps().fit(X, y).best(d).edge + 1e-12


def test_proba_output_lies_in_the_unit_interval():
    X, y, d = problem(2)
    selection = SklearnOracle(LogisticRegression(), output="proba").fit(X, y).best(d)
    y_pm = np.where(y == 7, 1.0, -1.0)
    direct = LogisticRegression().fit(X, y_pm, sample_weight=len(y) * d)
    np.testing.assert_allclose(selection.column, y_pm * (2 * direct.predict_proba(X)[:, 1] - 1), atol=1e-12)
    assert np.abs(selection.column).max() <= 1 and selection.edge > 0


def test_reflexive_negates_a_negative_edge():
    X, y, _ = problem(3, n=20)
    y_pm = np.where(y == 7, 1.0, -1.0)
    d = np.where(y_pm > 0, 0.2 / (y_pm > 0).sum(), 0.8 / (y_pm < 0).sum())  # weight 0.8 on the -1 class
    always_plus = DummyClassifier(strategy="constant", constant=1)
    plain = SklearnOracle(always_plus, reflexive=False).fit(X, y).best(d)
    flipped = SklearnOracle(always_plus).fit(X, y).best(d)
    assert plain.edge == pytest.approx(-0.6) and plain.hypothesis.sign == 1
    assert flipped.edge == pytest.approx(0.6) and flipped.hypothesis.sign == -1
    np.testing.assert_array_equal(flipped.predict(X[:3]), [-1.0, -1.0, -1.0])
    # the same column from another estimator is the same hypothesis (a re-selection)
    always_minus = SklearnOracle(DummyClassifier(strategy="constant", constant=-1), reflexive=False)
    assert always_minus.fit(X, y).best(d) == flipped


def test_refitting_on_the_same_weights_is_a_reselection():
    X, y, d = problem(4)
    oracle = SklearnOracle(DecisionTreeClassifier(max_depth=1, random_state=0)).fit(X, y)
    a, b = oracle.best(d), oracle.best(d * 3)  # sample_weight = N d / sum(d): the same fit
    assert a == b and hash(a) == hash(b)
    assert a.hypothesis.estimator is not b.hypothesis.estimator


def test_bad_estimators():
    with pytest.raises(ValueError, match="estimator"):
        SklearnOracle(KNeighborsClassifier())  # no sample_weight in fit
    with pytest.raises(ValueError, match="estimator"):
        SklearnOracle(object())
    with pytest.raises(ValueError, match="output"):
        SklearnOracle(DecisionTreeClassifier(), output="decision")
