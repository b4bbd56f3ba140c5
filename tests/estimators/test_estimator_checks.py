"""The scikit-learn classifiers: scikit-learn's own estimator checks, labels, margins, errors."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

import dualboost
from dualboost import (
    AdaBoostVClassifier,
    BinaryERLPBoostClassifier,
    CorrectiveBinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MaxEdgeAdaBoostClassifier,
    MLPBoostClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
)
from dualboost.estimators import CGBoostClassifier, MDBoostClassifier, NMBoostClassifier, QRLPBoostClassifier
from dualboost.oracles import DecisionStumps, RawFeatures
from tests.sklearn_checks import repeated_rows_checks

CLASSES = [
    LPBoostClassifier,
    SoftBoostClassifier,
    ERLPBoostClassifier,
    BinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    CorrectiveBinaryERLPBoostClassifier,
]


CORRECTIVE = (CorrectiveERLPBoostClassifier, CorrectiveBinaryERLPBoostClassifier)
#: the classifiers of miniboosts' algorithms (MLPBoost solves an LP per iteration: 50 in the checks;
#: SmoothBoost's default max_iter is its theorem's bound, 8,213 rounds at kappa = 0.1, gamma = 0.05,
#: which the sparse checks' random data run to: 100 in the checks, where they pass as at the bound;
#: tests/boosting/test_smoothboost.py tests the bound)
MINIBOOSTS = [MLPBoostClassifier(max_iter=50), AdaBoostVClassifier(), SmoothBoostClassifier(max_iter=100)]
#: AdaBoost as in [KG]'s experiments (`dualboost boost --algorithm adaboost` fits it)
ADABOOST = [MaxEdgeAdaBoostClassifier(max_iter=100)]

#: the other totally corrective formulations (tests/estimators/test_formulations.py tests them further)
FORMULATION_CLASSES = (MDBoostClassifier, CGBoostClassifier, NMBoostClassifier, QRLPBoostClassifier)
FORMULATIONS = [cls(max_iter=5) for cls in FORMULATION_CLASSES]


def expected_failures(estimator) -> dict[str, str]:
    """:func:`repeated_rows_checks` (every classifier here takes unequal sample weights)."""
    return repeated_rows_checks(estimator)


# the totally corrective ones with max_iter=5, for speed; the corrective ones at a fixed nu = 0.1 with
# their default max_iter, 1000 (with nu="auto" that is up to 10 fits of the validation, 5 s per fit of
# the checks' data; tests/estimators/test_nu_selection.py tests the default's rule): on the checks'
# three-class blobs the corrective steps over the 600 pairs need about 1000 iterations for the
# training accuracy the checks ask (> 0.83: 0.65 at 100 and 300 iterations, 0.94 at 1000)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [cls(nu=0.1) if cls in CORRECTIVE else cls(max_iter=5) for cls in CLASSES] + MINIBOOSTS + FORMULATIONS
    + ADABOOST,
    expected_failed_checks=expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", CORRECTIVE)
def test_corrective_default_max_iter_warns_at_its_cap(cls):
    """The corrective defaults stop at 1000 iterations, far below the bound 32 eta/eps + 1, and say so
    (at nu = 0.1, where the run needs more than 1000; at nu="auto" it converges in fewer)."""
    X, y = make_classification(n_samples=400, n_features=8, n_informative=4, random_state=1)
    with pytest.warns(ConvergenceWarning, match="max_iter=1000"):
        clf = cls(nu=0.1).fit(X, y)
    assert clf.n_iter_ == 1000 and not clf.converged_
    assert clf.n_iter_ < 32 * clf.eta_ / clf.eps
    assert clf.score(X, y) > 0.8


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=120, n_features=6, n_informative=3, random_state=0)
    return X, np.where(y == 1, "spam", "ham")


@pytest.mark.parametrize("cls", CLASSES)
def test_fit_predict_with_string_labels(cls, data):
    X, y = data
    clf = cls(nu=0.2, eps=0.1).fit(X, y)
    assert list(clf.classes_) == ["ham", "spam"]
    assert clf.n_iter_ == len(clf.history_) >= 1
    assert len(clf.hypotheses_) == clf.estimator_weights_.size
    assert clf.estimator_weights_.sum() == pytest.approx(1.0)
    assert clf.nu_ == pytest.approx(max(1.0, 0.2 * 120))
    f = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), np.where(f > 0, "spam", "ham"))
    margins = clf.margins(X, y)
    np.testing.assert_allclose(margins, np.where(y == "spam", 1, -1) * f)
    assert np.all(np.abs(margins) <= 1 + 1e-12)
    assert clf.score(X, y) > 0.8


def test_theoretical_eta_and_dualboost_exports(data):
    X, y = data
    clf = ERLPBoostClassifier(nu=0.1, eps=0.1).fit(X, y)
    assert clf.eta_ == pytest.approx(2 / 0.1 * np.log(120 / 12))
    binary = BinaryERLPBoostClassifier(nu=0.1, eps=0.1).fit(X, y)
    assert binary.eta_ == pytest.approx(2 / 0.1 * (np.log(120 / 12) + 1))
    assert set(dualboost.__all__) >= {cls.__name__ for cls in CLASSES}


def test_hard_margin_and_sparse_input(data):
    import scipy.sparse as sp

    X, y = data
    dense = ERLPBoostClassifier(nu=1e-9, eps=0.1).fit(X, y)
    assert dense.nu_ == 1.0  # max(1, nu N)
    sparse = ERLPBoostClassifier(nu=1e-9, eps=0.1).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)), dense.decision_function(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_oracle_objects_are_not_modified(data):
    X, y = data
    stumps = DecisionStumps()
    clf = CorrectiveERLPBoostClassifier(oracle=stumps, nu=0.1, eps=0.1).fit(X, y)
    assert not hasattr(stumps, "n_samples_")  # the estimator fitted a copy
    assert clf.score(X, y) > 0.8
    raw = ERLPBoostClassifier(oracle=RawFeatures(), nu=0.1, eps=0.1).fit(X, y)
    assert raw.score(X, y) > 0.6
    tree = ERLPBoostClassifier(oracle=DecisionTreeClassifier(max_depth=2), nu=0.1, eps=0.1, max_iter=10)
    tree.fit(X, y)
    assert tree.score(X, y) > 0.8


@pytest.mark.parametrize(
    "cls, params, name",
    [
        (ERLPBoostClassifier, {"nu": 0.0}, "nu"),
        (ERLPBoostClassifier, {"nu": 1.5}, "nu"),
        (BinaryERLPBoostClassifier, {"nu": 1.0}, "nu"),
        (CorrectiveBinaryERLPBoostClassifier, {"nu": 1.0}, "nu"),
        (ERLPBoostClassifier, {"eps": 0.0}, "eps"),
        (LPBoostClassifier, {"eps": None}, "eps"),
        (ERLPBoostClassifier, {"eta": -2.0}, "eta"),
        (CorrectiveERLPBoostClassifier, {"eta": "big"}, "eta"),
        (SoftBoostClassifier, {"max_iter": 0}, "max_iter"),
        (ERLPBoostClassifier, {"max_iter": 1.5}, "max_iter"),
        (ERLPBoostClassifier, {"oracle": "trees"}, "oracle"),
        (ERLPBoostClassifier, {"method": "simplex"}, "method"),
        (ERLPBoostClassifier, {"criterion": "fast"}, "criterion"),
    ],
)
def test_bad_parameters_name_the_argument(cls, params, name, data):
    with pytest.raises(ValueError, match=name):
        cls(**params).fit(*data)


@pytest.mark.parametrize(
    "estimator, nu_",
    [
        (MLPBoostClassifier(nu=0.2, eps=0.1, max_iter=None), 24.0),
        (AdaBoostVClassifier(tolerance=0.1), 1.0),
        (SmoothBoostClassifier(kappa=0.2, gamma=0.05), 24.0),
    ],
)
def test_miniboosts_classifiers(estimator, nu_, data, tmp_path):
    """String labels, the capping each reports, staged predictions ending at the model, a checkpoint
    resumed to the same model, and a model file."""
    X, y = data
    clf = estimator.fit(X, y)
    assert list(clf.classes_) == ["ham", "spam"] and clf.converged_ and clf.nu_ == pytest.approx(nu_)
    assert clf.estimator_weights_.sum() == pytest.approx(1.0) and np.all(clf.estimator_weights_ >= 0)
    assert clf.score(X, y) > 0.8
    last = list(clf.staged_decision_function(X))[-1]
    np.testing.assert_allclose(last, clf.decision_function(X), atol=1e-12)
    path = tmp_path / "run.ckpt"
    first = clone(estimator).set_params(checkpoint=str(path), checkpoint_every=5).fit(X, y)
    resumed = clone(estimator).set_params(checkpoint=str(path), checkpoint_every=5, resume=True).fit(X, y)
    np.testing.assert_allclose(resumed.decision_function(X), first.decision_function(X), atol=1e-9)
    loaded = type(clf).load(clf.save(tmp_path / "model"))
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))


@pytest.mark.parametrize(
    "cls, params, name",
    [
        (MLPBoostClassifier, {"step": "fast"}, "step"),
        (MLPBoostClassifier, {"nu": 0.0}, "nu"),
        (AdaBoostVClassifier, {"tolerance": 0.0}, "tolerance"),
        (AdaBoostVClassifier, {"tolerance": 2.0}, "tolerance"),
        (SmoothBoostClassifier, {"kappa": 1.0}, "kappa"),
        (SmoothBoostClassifier, {"gamma": 0.5}, "gamma"),
    ],
)
def test_miniboosts_bad_parameters_name_the_argument(cls, params, name, data):
    with pytest.raises(ValueError, match=name):
        cls(**params).fit(*data)


def test_bad_data(data):
    X, y = data
    with pytest.raises(ValueError, match="at least two classes"):  # (three: docs/boosting.md#multiclass)
        ERLPBoostClassifier().fit(X, np.zeros(X.shape[0]))
    clf = ERLPBoostClassifier(eps=0.1).fit(X, y)
    with pytest.raises(ValueError, match="y holds labels that are not in classes_"):
        clf.margins(X, np.full(X.shape[0], "eggs"))
    with pytest.raises(ValueError, match="y must be a 1-D array"):
        clf.margins(X, y[:-1])


def test_max_edge_adaboost_is_the_driver_and_fit_reports_each_iteration():
    """MaxEdgeAdaBoostClassifier is the adaboost driver on the stumps (sample weights its d0); fit's
    callback sees every iteration's history row, the rows of history_, and result_ is the driver's."""
    from dualboost.boosting import adaboost
    from dualboost.oracles import DecisionStumps

    X, y = make_classification(n_samples=120, n_features=5, random_state=3)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, 120)
    rows = []
    clf = MaxEdgeAdaBoostClassifier(max_iter=40).fit(X, y, sample_weight=weights, callback=rows.append)
    signs = np.where(y == 1, 1.0, -1.0)
    run = adaboost(DecisionStumps().fit(X, signs), max_iter=40, d0=weights / weights.sum())
    assert np.array_equal(clf.estimator_weights_, run.weights)
    assert clf.hypotheses_ == run.hypotheses
    assert len(rows) == clf.n_iter_ == 40 and rows == list(clf.history_.rows)
    assert clf.result_.n_iter == 40 and clf.result_.algorithm == "adaboost"
    erlp = []
    ERLPBoostClassifier(nu="auto").fit(X, y, callback=erlp.append)  # the validation fits report nothing
    assert 0 < len(erlp) < 200 and [row.iteration for row in erlp] == list(range(1, len(erlp) + 1))
