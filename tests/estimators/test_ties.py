"""A model whose decision function is 0 predicts the training majority, not
``classes_[0]`` (dualboost.estimators.ties)."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier

from dualboost.boosting.core.run import SoftMarginWarning
from dualboost.estimators import LPBoostClassifier, ReweightedClassifier, SoftBoostClassifier, load

#: every example has the same x, so every stump is a constant and the soft-margin optimum is the
#: combination of +1 and -1 that cancels: f = 0 on every point. "b" (the larger label: classes_[1])
#: is the majority, so classes_[0] -- today's tie rule -- is the wrong constant
X_CONSTANT = np.zeros((10, 1))
Y_MAJORITY_B = np.array(["b"] * 7 + ["a"] * 3)


def _majority(y, weights=None):
    """The class of largest (weighted) count, computed in exact arithmetic."""
    weights = np.ones(len(y)) if weights is None else weights
    totals: dict = {}
    for label, w in zip(y, weights, strict=True):
        totals[label] = totals.get(label, Fraction(0)) + Fraction(float(w))
    return max(totals, key=totals.get)


@pytest.mark.filterwarnings("ignore::dualboost.boosting.core.run.SoftMarginWarning")
@pytest.mark.parametrize("make", [lambda: LPBoostClassifier(nu=0.5), lambda: SoftBoostClassifier(nu=0.5)])
def test_a_constant_model_predicts_the_training_majority(make):
    model = make().fit(X_CONSTANT, Y_MAJORITY_B)
    assert np.all(model.decision_function(X_CONSTANT) == 0)  # the premise: a tie everywhere
    majority = _majority(Y_MAJORITY_B)
    assert majority == model.classes_[1] == "b"
    assert np.all(model.predict(X_CONSTANT) == majority)
    assert model.score(X_CONSTANT, Y_MAJORITY_B) == pytest.approx(0.7)
    assert np.all(list(model.staged_predict(X_CONSTANT))[-1] == majority)
    proba = model.predict_proba(X_CONSTANT)
    # argmax predict_proba is predict, and at a tie the probabilities are the training frequencies
    assert np.all(model.classes_[proba.argmax(axis=1)] == model.predict(X_CONSTANT))
    assert proba == pytest.approx(np.tile([0.3, 0.7], (10, 1)), abs=1e-15)
    assert np.exp(model.predict_log_proba(X_CONSTANT)) == pytest.approx(proba, rel=1e-12)
    assert list(model.staged_predict_proba(X_CONSTANT))[-1] == pytest.approx(proba, abs=1e-15)


@pytest.mark.filterwarnings("ignore::dualboost.boosting.core.run.SoftMarginWarning")
def test_the_tie_follows_the_sample_weighted_prior():
    weights = np.r_[np.ones(7), np.full(3, 5.0)]  # "a": 15 of 22
    model = LPBoostClassifier(nu=0.5).fit(X_CONSTANT, Y_MAJORITY_B, sample_weight=weights)
    assert np.all(model.decision_function(X_CONSTANT) == 0)
    assert _majority(Y_MAJORITY_B, weights) == "a"
    assert np.all(model.predict(X_CONSTANT) == "a")
    assert model.class_prior_ == pytest.approx([15 / 22, 7 / 22], rel=1e-15)


def test_class_prior_counts_classes_in_sorted_order():
    from dualboost.estimators.ties import class_prior, classes_by_sign

    assert class_prior(np.array([1, -1, 1, 1])) == pytest.approx([0.25, 0.75])
    assert class_prior(np.array(["y", "x", "x"]), np.array([4.0, 1.0, 1.0])) == pytest.approx([1 / 3, 2 / 3])
    classes = np.array(["a", "b"])
    f = np.array([-0.5, 0.0, 0.5])
    assert list(classes_by_sign(f, classes, np.array([0.4, 0.6]))) == ["a", "b", "b"]
    assert list(classes_by_sign(f, classes, np.array([0.6, 0.4]))) == ["a", "a", "b"]
    assert list(classes_by_sign(f, classes, np.array([0.5, 0.5]))) == ["a", "a", "b"]  # equal: classes_[0]
    assert list(classes_by_sign(f, classes, None)) == ["a", "a", "b"]  # a model file without the prior


def test_the_warning_says_the_model_is_a_constant():
    with pytest.warns(SoftMarginWarning) as caught:
        LPBoostClassifier(nu=0.5).fit(X_CONSTANT, Y_MAJORITY_B)
    message = " ".join(str(w.message) for w in caught)
    assert "f = 0: this model is a constant" in message and "majority class" in message


def test_a_model_with_a_nonzero_f_does_not_say_constant():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + rng.normal(size=40) > 0, 1, -1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LPBoostClassifier(nu=0.5, eps=0.5).fit(X, y)
    assert not any("this model is a constant" in str(w.message) for w in caught)


@pytest.mark.filterwarnings("ignore::dualboost.boosting.core.run.SoftMarginWarning")
def test_the_prior_survives_a_model_file(tmp_path):
    model = LPBoostClassifier(nu=0.5).fit(X_CONSTANT, Y_MAJORITY_B)
    loaded = load(model.save(tmp_path / "m.model"))
    assert loaded.class_prior_ == pytest.approx(model.class_prior_, abs=0)
    assert loaded.stop_reason_ == model.stop_reason_
    assert np.all(loaded.predict(X_CONSTANT) == "b")
    assert loaded.predict_proba(X_CONSTANT) == pytest.approx(model.predict_proba(X_CONSTANT), abs=0)


def test_reweighted_members_that_cancel_predict_the_majority():
    members = [
        DummyClassifier(strategy="constant", constant=label).fit(X_CONSTANT, Y_MAJORITY_B) for label in "ab"
    ]
    model = ReweightedClassifier(members, nu=0.5, output="predict").fit(X_CONSTANT, Y_MAJORITY_B)
    assert np.all(model.decision_function(X_CONSTANT) == 0)
    assert np.all(model.predict(X_CONSTANT) == "b")


#: 40 rows, one constant feature, 70 % "b": every fit of a fold is the constant f = 0 (as above)
X_CONSTANT_40 = np.zeros((40, 1))
Y_MAJORITY_B_40 = np.array(["b"] * 28 + ["a"] * 12)


@pytest.mark.filterwarnings("ignore::dualboost.boosting.core.run.SoftMarginWarning")
def test_cross_validation_scores_a_tie_as_predict_does():
    """LPBoostCV's held-out accuracy of a model with f = 0 is that of the training majority, as its
    ``predict`` would score (stratified folds: each held-out part is 70 % "b")."""
    from dualboost.estimators import LPBoostCV

    cv = LPBoostCV(nus=[0.5, 0.3], cv=4).fit(X_CONSTANT_40, Y_MAJORITY_B_40)
    assert cv.scores_ == pytest.approx(np.full((4, 2), 0.7), abs=1e-12)
    assert cv.best_score_ == pytest.approx(cv.best_estimator_.score(X_CONSTANT_40, Y_MAJORITY_B_40))


def test_reweighting_scores_a_tie_as_predict_does():
    """``nu="auto"`` of ReweightedClassifier scores its held-out rows as ``predict`` would: the members
    cancel, so every grid point scores the training majority's share (not the minority's)."""
    members = [
        DummyClassifier(strategy="constant", constant=label).fit(X_CONSTANT_40, Y_MAJORITY_B_40)
        for label in "ab"
    ]
    model = ReweightedClassifier(members, output="predict").fit(X_CONSTANT_40, Y_MAJORITY_B_40)
    scores = np.asarray(model.nu_selection_.scores)
    assert scores.size > 0 and np.all(scores > 0.5)
    held_out = model.predict(X_CONSTANT_40) == Y_MAJORITY_B_40
    assert np.all(model.predict(X_CONSTANT_40) == "b") and held_out.mean() == pytest.approx(0.7)
