"""No silent useless result: the soft-margin boosters warn when the soft margin they certify is <= 0
or below eps, and the classifiers break ties of the decision function deterministically.

Reproductions: LPBoost (nu = 0.1) on german reaches the degenerate optimum of its LP (soft margin 0,
two cancelling stumps, a decision function ~1e-12 of rounding-set sign, 70 % training error); on a
sparse text-like set of raw word features (every edge below eps), ERLPBoost stops early with a soft
margin below eps. The soft margin is recomputed here by sorting the margins (an independent brute
force of the capped-simplex support function the library uses).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from dualboost import ERLPBoostClassifier, LPBoostClassifier, SoftBoostClassifier
from dualboost.boosting import lpboost
from dualboost.boosting.core.result import TIE_TOL, combined_decision
from dualboost.boosting.core.run import SoftMarginWarning
from dualboost.datasets import load_libsvm
from dualboost.oracles import DecisionStumps
from dualboost.oracles.stumps import Stump
from tests.environment import DATA_DIR, requires_data


def _mean_of_smallest(margins: np.ndarray, nu: float) -> float:
    """AvgMin_nu for an integer nu: the mean of the nu smallest margins."""
    k = int(nu)
    assert k == nu
    return float(np.sort(margins)[:k].mean())


def _message(record: list[warnings.WarningMessage]) -> str:
    found = [str(w.message) for w in record if issubclass(w.category, SoftMarginWarning)]
    assert len(found) == 1, found
    return found[0]


@pytest.fixture(scope="module")
def german():
    X, y = load_libsvm(DATA_DIR / "german.numer")[:2]
    return (X.toarray() if sp.issparse(X) else X), y


@requires_data("german.numer")
@pytest.mark.parametrize("cls, nu", [(LPBoostClassifier, 0.1), (SoftBoostClassifier, 0.3)])
def test_degenerate_lp_optimum_on_german_warns_and_ties_are_exact(german, cls, nu):
    X, y = german
    with pytest.warns(SoftMarginWarning) as record:
        clf = cls(nu=nu).fit(X, y)
    message = _message(record)
    margins = clf.margins(X, y)
    soft = _mean_of_smallest(margins, clf.nu_)
    assert abs(soft) <= 1e-9  # the LP's optimal soft margin is 0 here
    if np.all(np.abs(margins) <= 1e-9):  # every training margin a tie: the model is the constant f = 0
        assert "below eps = 0.01 (f = 0: this model is a constant" in message
    else:
        assert "below eps = 0.01 (<= 0: the model may be no better than a constant)" in message
    assert f"nu = {clf.nu_:g} smallest" in message and "raise nu" in message and "Lower eps" in message
    # the cancelling weights leave only rounding noise: those values are exact ties, predicted as the
    # training majority (estimators/ties.py), counted here from y
    f = clf.decision_function(X)
    ties = f == 0.0
    assert ties.mean() > 0.9
    majority = clf.classes_[int(np.sum(y == clf.classes_[1]) > np.sum(y == clf.classes_[0]))]
    np.testing.assert_array_equal(clf.predict(X)[ties], majority)
    expected = np.where(f > 0, clf.classes_[1], np.where(f < 0, clf.classes_[0], majority))
    np.testing.assert_array_equal(clf.predict(X), expected)


@requires_data("german.numer")
def test_a_larger_nu_gives_a_positive_soft_margin_without_warning(german):
    """The advice of the warning holds: at nu = 0.8 the soft margin is positive and above eps."""
    X, y = german
    with warnings.catch_warnings():
        warnings.simplefilter("error", SoftMarginWarning)
        clf = LPBoostClassifier(nu=0.8).fit(X, y)
    assert _mean_of_smallest(clf.margins(X, y), clf.nu_) >= clf.eps


def _text_like(n: int = 3000, words: int = 1000, seed: int = 0):
    """Sparse binary word counts whose every word is weakly tied to the label (edges ~0.005 < eps)."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], size=n)
    rate = rng.uniform(0.002, 0.006, size=words)
    tilt = rng.choice([-1, 1], size=words) * 0.6
    p = rate[None, :] * (1 + tilt[None, :] * y[:, None])
    return sp.csr_matrix((rng.random((n, words)) < p).astype(float)), y


def test_raw_words_below_eps_warn():
    X, y = _text_like()
    assert np.abs(X.T @ y).max() / X.shape[0] < 0.01  # every word's edge at d0 is below eps
    with pytest.warns(SoftMarginWarning) as record:
        clf = ERLPBoostClassifier(oracle="raw", nu=0.1, eps=0.01).fit(X, y)
    message = _message(record)
    soft = _mean_of_smallest(clf.margins(X, y), clf.nu_)
    assert soft < 0.01
    assert f"is {soft:.3g}, below eps = 0.01" in message


def test_driver_warns_with_the_soft_margin_of_its_result():
    """The drivers themselves warn (not only the estimators), and the value they name is the result's."""
    # every example has a twin with the other label: the margins sum to 0 for any w, so the mean of
    # the nu smallest is <= 0
    X = np.random.default_rng(3).normal(size=(150, 4))
    X, labels = np.vstack([X, X]), np.r_[np.ones(150), -np.ones(150)]
    oracle = DecisionStumps().fit(X, labels)
    with pytest.warns(SoftMarginWarning) as record:
        result = lpboost(oracle, nu=3.0, eps=0.01)
    assert result.soft_margin <= 1e-12
    margins = result.margins
    assert result.soft_margin == pytest.approx(_mean_of_smallest(margins, 3.0), abs=1e-12)
    assert f"is {result.soft_margin:.3g}, below eps" in _message(record)


def test_a_clear_margin_does_not_warn():
    X, y = make_classification(n_samples=200, n_features=5, class_sep=3.0, flip_y=0.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SoftMarginWarning)
        clf = LPBoostClassifier(nu=0.1).fit(X, y)
    assert _mean_of_smallest(clf.margins(X, y), clf.nu_) >= clf.eps


def test_combined_decision_makes_cancelling_weights_exact_ties():
    X = np.linspace(-1, 1, 11)[:, None]
    up, down = (
        Stump(n_features=1, feature=0, threshold=0.0, sign=1),
        Stump(n_features=1, feature=0, threshold=0.0, sign=-1),
    )
    # weights 1/2 +- 1e-13: the sum is +-2e-13, of a sign set by the solver's noise
    f = combined_decision(np.array([0.5 + 1e-13, 0.5 - 1e-13]), [up, down], X)
    np.testing.assert_array_equal(f, 0.0)
    # a real margin just above the tolerance is kept
    g = combined_decision(np.array([0.5 + 1e-9, 0.5 - 1e-9]), [up, down], X)
    np.testing.assert_allclose(np.abs(g), 2e-9)
    assert 2e-9 > TIE_TOL
