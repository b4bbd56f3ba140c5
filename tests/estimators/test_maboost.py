"""The scikit-learn front-ends of the MABoost family: scikit-learn's estimator checks, labels, the
history and attributes, the mixed projection set through ``fit(..., secondary=...)``, and errors."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks

from dualboost.estimators.maboost import MABoostClassifier, MadaBoostClassifier, SparseBoostClassifier
from tests.sklearn_checks import repeated_rows_checks

ESTIMATORS = [
    MABoostClassifier(max_iter=20),
    MABoostClassifier(regulariser="euclidean", update="lazy", projection="capped", nu=0.2, max_iter=20),
    SparseBoostClassifier(max_iter=20),
    MadaBoostClassifier(max_iter=20),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=repeated_rows_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=120, n_features=6, n_informative=3, random_state=0)
    return X, np.where(y == 1, "spam", "ham")


@pytest.mark.parametrize(
    "clf",
    [
        MABoostClassifier(),
        MABoostClassifier(update="lazy"),
        MABoostClassifier(regulariser="euclidean", projection="capped", nu=0.25),
        SparseBoostClassifier(),
        MadaBoostClassifier(step="fixed_point"),
    ],
    ids=["maboost", "lamaboost", "smooth-euclidean", "sparseboost", "madaboost"],
)
def test_fit_predict_with_string_labels(clf, data):
    X, y = data
    clf.fit(X, y)
    assert list(clf.classes_) == ["ham", "spam"]
    assert clf.n_iter_ == len(clf.history_) == clf.training_error_.size >= 1
    assert clf.estimator_weights_.sum() == pytest.approx(1.0)
    f = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), np.where(f > 0, "spam", "ham"))
    margins = clf.margins(X, y)
    # the training error the driver recorded is the error of the fitted classifier (ties count)
    assert np.mean(margins <= 0) == pytest.approx(clf.training_error_[-1])
    # the guarantee: everywhere on S; on S_k while the error is >= 1/k = nu_/N (Thm 3)
    valid = clf.training_error_ >= clf.nu_ / X.shape[0]
    assert np.all(clf.training_error_[valid] <= clf.bound_[valid] + 1e-12)
    np.testing.assert_allclose(clf.history_["stopping"], clf.bound_)
    assert clf.d_.sum() == pytest.approx(1.0)
    assert clf.score(X, y) > 0.8


def test_capped_projection_uses_the_fraction_nu(data):
    """nu is a fraction (docs/math.md#capping-nu): nu_ = max(1, nu N), d <= 1/nu_ ([NP]'s k = N/nu_)."""
    X, y = data
    clf = MABoostClassifier(projection="capped", nu=0.25, max_iter=60).fit(X, y)
    assert clf.nu_ == pytest.approx(30.0)
    for d, _ in MABoostClassifier(projection="capped", nu=0.25, max_iter=30).fit(X, y).result_.iterates or []:
        assert d.max() <= 1 / 30 + 1e-15
    assert clf.d_.max() <= 1 / 30 + 1e-15
    assert MABoostClassifier(nu=0.25).fit(X, y).nu_ == 1.0  # the simplex ignores nu


def test_mixed_projection_caps_only_the_secondary_examples(data):
    X, y = data
    secondary = np.arange(X.shape[0]) % 3 == 0
    clf = MABoostClassifier(projection="mixed", nu=0.5, max_iter=80).fit(X, y, secondary=secondary)
    assert clf.result_.region.kind == "mixed"
    assert clf.d_[secondary].max() <= 1 / 60 + 1e-15
    assert clf.d_[~secondary].max() > 1 / 60  # the primary examples are not capped


def test_entropy_maboost_distribution_is_adaboosts_form_of_its_margins(data):
    """docs/math.md#maboost: with the entropy, ``d_`` is ``softmax(-m)`` for the fitted margins
    ``m = sum eta_t u_t`` (the estimator's result, recomputed from its columns and unnormalised
    weights)."""
    X, y = data
    clf = MABoostClassifier(max_iter=25).fit(X, y)
    result = clf.result_
    m = result.columns.astype(float) @ (result.weights * result.eta_sum)
    w = np.exp(-(m - m.min()))
    np.testing.assert_allclose(clf.d_, w / w.sum(), rtol=1e-10)
    assert clf.history_["gap"].max() <= 1e-12  # active = lazy on S: the FTRL gap is 0


@pytest.mark.parametrize(
    ("clf", "fit_kwargs", "match"),
    [
        (MABoostClassifier(projection="box"), {}, "projection"),
        (MABoostClassifier(projection="mixed"), {}, "secondary"),
        (MABoostClassifier(), {"secondary": np.ones(120, dtype=bool)}, "secondary"),
        (MABoostClassifier(projection="mixed"), {"secondary": np.ones(120)}, "secondary"),
        (MABoostClassifier(projection="capped", nu=0.0), {}, "nu"),
        (MABoostClassifier(projection="capped", nu=1.5), {}, "nu"),
        (MABoostClassifier(update="eager"), {}, "update"),
        (MABoostClassifier(regulariser="l3"), {}, "regulariser"),
        (MABoostClassifier(max_iter=0), {}, "max_iter"),
        (MABoostClassifier(max_iter=2.5), {}, "max_iter"),
        (MABoostClassifier(oracle="trees"), {}, "oracle"),
        (SparseBoostClassifier(alpha=-0.1), {}, "alpha"),
        (SparseBoostClassifier(), {"secondary": np.ones(120, dtype=bool)}, "secondary"),
        (MadaBoostClassifier(step="circular"), {}, "step"),
        (MadaBoostClassifier(), {"secondary": np.ones(120, dtype=bool)}, "secondary"),
    ],
)
def test_bad_parameters_raise_value_errors(data, clf, fit_kwargs, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        clf.fit(X, y, **fit_kwargs)


def test_bad_data_raises(data):
    X, y = data
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN|infinity"):
        MABoostClassifier().fit(X_nan, y)
    with pytest.raises(ValueError, match="at least two classes"):  # (K > 2: test_multiclass_estimators)
        MadaBoostClassifier().fit(X, np.zeros(X.shape[0]))
