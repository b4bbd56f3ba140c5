"""The classifiers' methods: predict_proba, staged predictions, sample_weight, feature_importances_,
pandas input. Each identity is checked against an independent computation (a fresh fit with
max_iter=t, the fit on the reduced or repeated rows, a direct minimisation of the link's likelihood)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import expit, log_expit
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from dualboost import (
    BinaryERLPBoostClassifier,
    CorrectiveBinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    SoftBoostClassifier,
)
from dualboost.boosting.totally_corrective.drivers import weighted_soft_margin
from dualboost.estimators import (
    AdaBoostOLClassifier,
    GradientProjectionClassifier,
    MABoostClassifier,
    MadaBoostClassifier,
    OnlineBBMClassifier,
    SparseBoostClassifier,
)
from dualboost.estimators.probability import fit_link_slope, link_probabilities

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning", "ignore::dualboost.boosting.core.run.SoftMarginWarning"
)

BATCH = [
    lambda: LPBoostClassifier(nu=0.2, eps=0.05),
    lambda: SoftBoostClassifier(nu=0.2, eps=0.05),
    lambda: ERLPBoostClassifier(nu=0.2, eps=0.05),
    lambda: BinaryERLPBoostClassifier(nu=0.2, eps=0.05),
    lambda: CorrectiveERLPBoostClassifier(nu=0.2, eps=0.05, max_iter=200),
    lambda: CorrectiveBinaryERLPBoostClassifier(nu=0.2, eps=0.05, max_iter=200),
    lambda: MABoostClassifier(max_iter=40),
    lambda: MABoostClassifier(max_iter=40, regulariser="euclidean", projection="capped"),
    lambda: SparseBoostClassifier(max_iter=40),
    lambda: MadaBoostClassifier(max_iter=40),
]
IDS = [
    "lpboost",
    "softboost",
    "erlpboost",
    "binary",
    "corrective",
    "corrective_binary",
    "maboost",
    "maboost_euclidean_capped",
    "sparseboost",
    "madaboost",
]


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=90, n_features=5, n_informative=3, flip_y=0.1, random_state=3)
    X_test, _ = make_classification(n_samples=60, n_features=5, n_informative=3, random_state=4)
    return X, np.where(y == 1, "yes", "no"), X_test


# --- predict_proba ---------------------------------------------------------------------------------


@pytest.mark.parametrize("make", BATCH, ids=IDS)
def test_predict_proba_agrees_with_predict(make, data):
    X, y, X_test = data
    clf = make().fit(X, y)
    P = clf.predict_proba(X_test)
    assert P.shape == (X_test.shape[0], 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(X_test))
    f = clf.decision_function(X_test)
    ties = f == 0  # a tie gets the training class frequencies (dualboost.estimators.ties)
    np.testing.assert_allclose(P[~ties, 1], expit(clf.link_slope_ * f[~ties]), rtol=1e-15)
    np.testing.assert_array_equal(P[ties], np.broadcast_to(clf.class_prior_, P[ties].shape))
    np.testing.assert_allclose(clf.predict_log_proba(X_test), np.log(P), rtol=1e-10)


def test_link_ties_go_to_the_first_class():
    """f = 0 (a tie, as combined_decision reports it) gives 1/2 each, argmax 0 = classes_[0] as
    predict; the smallest non-tie |f| (just above TIE_TOL = 1e-9) at the smallest slope still separates."""
    f = np.array([0.0, 1.01e-9, -1.01e-9, 1.0])
    P = link_probabilities(f, 1e-3)
    np.testing.assert_array_equal(P[0], [0.5, 0.5])
    np.testing.assert_array_equal(P.argmax(axis=1), [0, 1, 0, 1])


def test_link_slope_is_the_maximum_likelihood_slope():
    """Against a direct bounded minimisation of the smoothed negative log-likelihood."""
    rng = np.random.default_rng(0)
    m = np.clip(rng.normal(0.3, 0.4, 200), -1, 1)
    w = rng.integers(1, 4, 200).astype(float)
    t = (w.sum() + 1) / (w.sum() + 2)

    def nll(a):
        return -np.sum(w * (t * log_expit(a * m) + (1 - t) * log_expit(-a * m)))

    direct = minimize_scalar(nll, bounds=(1e-3, 1e3), method="bounded", options={"xatol": 1e-10}).x
    assert fit_link_slope(m, w) == pytest.approx(direct, rel=1e-6)
    # separable margins: the smoothed target keeps the slope finite
    assert 1.0 < fit_link_slope(np.full(50, 0.5)) < 100.0
    # margins no better than chance: the smallest slope, still increasing
    assert fit_link_slope(np.array([-0.5, -0.5, 0.1])) == 1e-3


# --- staged predictions ----------------------------------------------------------------------------


@pytest.mark.parametrize("make", BATCH, ids=IDS)
def test_last_stage_is_the_model(make, data):
    X, y, X_test = data
    clf = make().fit(X, y)
    stages = list(clf.staged_decision_function(X_test))
    assert len(stages) == len(clf.stages_) >= 1
    np.testing.assert_allclose(stages[-1], clf.decision_function(X_test), rtol=0, atol=1e-12)
    predictions = list(clf.staged_predict(X_test))
    np.testing.assert_array_equal(predictions[-1], clf.predict(X_test))
    probabilities = list(clf.staged_predict_proba(X_test))
    np.testing.assert_allclose(probabilities[-1], clf.predict_proba(X_test), atol=1e-12)
    scores = list(clf.staged_score(X, y))
    assert scores[-1] == pytest.approx(clf.score(X, y))


# stage t is a fresh fit with max_iter = t wherever the run with max_iter = t is the first t iterations
# of the longer one and its output is iteration t's weights: every driver here (deterministic, no
# randomness, checkpoint-free). SoftBoost's output at max_iter = t is its normalised iterate w^t.
TRUNCATABLE = [BATCH[i] for i in (0, 1, 2, 3, 4, 5, 6, 9)]
TRUNCATABLE_IDS = [IDS[i] for i in (0, 1, 2, 3, 4, 5, 6, 9)]


@pytest.mark.parametrize("make", TRUNCATABLE, ids=TRUNCATABLE_IDS)
def test_stage_t_equals_a_fit_with_max_iter_t(make, data):
    X, y, X_test = data
    clf = make().fit(X, y)
    stages = list(clf.staged_decision_function(X_test))
    for t in (1, 3, 6):
        assert t < len(stages)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            short = clone(clf).set_params(max_iter=t).fit(X, y)
        np.testing.assert_allclose(stages[t - 1], short.decision_function(X_test), rtol=0, atol=1e-9)


def test_staged_store_is_compact(data):
    """A totally corrective stage holds the nonzero entries of w^t only (12 bytes each)."""
    X, y, _ = data
    clf = ERLPBoostClassifier(nu=0.1, eps=0.02).fit(X, y)
    stages, T = clf.stages_, len(clf.stages_)
    nonzero = sum(np.count_nonzero(stages.weights(s, len(clf.hypotheses_))) for s in range(1, T + 1))
    assert stages.values.size == nonzero
    assert stages.nbytes <= 12 * nonzero + 16 * (T + 1)
    dense = 8 * T * len(clf.hypotheses_)
    assert stages.nbytes < dense


# --- sample_weight ---------------------------------------------------------------------------------


def _weights(n, seed=1):
    w = np.random.default_rng(seed).integers(0, 4, n)
    w[0] = 1  # the smallest positive weight is 1 (MABoost's stop and the canonical eta use min d0)
    return w


@pytest.mark.parametrize("make", BATCH, ids=IDS)
def test_zero_weights_equal_removing_the_rows(make, data):
    """Every model: a zero prior / cap / first weight keeps d_n = 0, so the example never enters an
    edge; the rows are removed before the oracle is fitted."""
    X, y, X_test = data
    w = np.where(np.arange(len(y)) % 3 == 0, 0.0, 1.0)
    weighted = make().fit(X, y, sample_weight=w)
    reduced = make().fit(X[w > 0], y[w > 0])
    np.testing.assert_array_equal(weighted.decision_function(X_test), reduced.decision_function(X_test))
    np.testing.assert_array_equal(weighted.predict_proba(X_test), reduced.predict_proba(X_test))


@pytest.mark.parametrize("make", BATCH, ids=IDS)
def test_unit_weights_are_the_unweighted_fit(make, data):
    X, y, X_test = data
    a, b = make().fit(X, y, sample_weight=np.full(len(y), 2.5)), make().fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X_test), b.decision_function(X_test))


# integer weights = repeated rows where the model is invariant under merging copies: the copies of an
# example share d_n and margin, so a model over the merged example must see their total prior mass AND
# their total cap. Prior-only models (AdaBoost-type MABoost, MadaBoost: d ~ d0 e^{-m}) and the entropy
# models whose caps do not bind (hard margin: nu_ = 1, cap 1) are; the canonical eta then agrees because
# the smallest positive weight is 1 (ln(1/(nu min d0)) = ln(W/nu)). Not identities: the entropy models
# with binding caps (one cap 1/nu_ per example, not w_n/nu_), the binary entropies even without binding
# caps (their second term sums a function of each copy's 1 - nu d_n, which does not merge), Euclidean
# MABoost and SparseBoost (the Euclidean projection does not commute with merging copies).
REPEATABLE = [
    lambda: SoftBoostClassifier(nu=1e-4, eps=0.05),
    lambda: ERLPBoostClassifier(nu=1e-4, eps=0.05),
    lambda: CorrectiveERLPBoostClassifier(nu=1e-4, eps=0.05, max_iter=150),
    lambda: MABoostClassifier(max_iter=40),
    lambda: MABoostClassifier(max_iter=40, update="lazy"),
    lambda: MadaBoostClassifier(max_iter=40),
    lambda: MadaBoostClassifier(max_iter=40, step="fixed_point"),
]


@pytest.mark.parametrize("make", REPEATABLE)
def test_integer_weights_equal_repeating_the_rows(make, data):
    X, y, X_test = data
    w = _weights(len(y))
    weighted = make().fit(X, y, sample_weight=w)
    repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(
        weighted.decision_function(X_test), repeated.decision_function(X_test), rtol=0, atol=1e-9
    )
    np.testing.assert_allclose(weighted.predict_proba(X_test), repeated.predict_proba(X_test), atol=1e-8)


@pytest.mark.parametrize("nu", [0.1, 0.3])
def test_lpboost_weighted_caps_are_the_lp_of_repeated_rows(nu, data):
    """LPBoost's caps c_n = w_n / (nu W) make its LP the LP of the repeated rows: the same optimal soft
    margin (the LP's optima w are not unique, docs/math.md#lpboost, so the solutions may differ)."""
    X, y, _ = data
    w = _weights(len(y))
    kept = w > 0
    weighted = LPBoostClassifier(nu=nu, eps=1e-3).fit(X, y, sample_weight=w)
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    repeated = LPBoostClassifier(nu=nu, eps=1e-3).fit(Xr, yr)
    caps = w[kept] / (nu * w.sum())
    margin_weighted = weighted_soft_margin(weighted.margins(X[kept], y[kept]), caps)
    margin_repeated = weighted_soft_margin(repeated.margins(Xr, yr), np.full(len(yr), 1.0 / (nu * len(yr))))
    assert margin_weighted == pytest.approx(margin_repeated, abs=2e-3)


@pytest.mark.parametrize("make", BATCH[:6] + BATCH[6:7], ids=IDS[:7])
def test_sample_weight_errors_name_it(make, data):
    X, y, _ = data
    with pytest.raises(ValueError, match="sample_weight.*zero|zero.*weight"):
        make().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="[Nn]egative"):
        make().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="sample_weight"):
        make().fit(X, y, sample_weight=np.ones(len(y) - 1))
    with pytest.raises(ValueError, match="two classes with a positive sample_weight"):
        make().fit(X, y, sample_weight=(y == "yes").astype(float))


def test_binary_entropy_prior_above_the_cap_is_an_error(data):
    X, y, _ = data
    w = np.ones(len(y))
    w[0] = 1000.0
    with pytest.raises(ValueError, match="sample_weight gives an example the prior mass"):
        BinaryERLPBoostClassifier(nu=0.5).fit(X, y, sample_weight=w)


def test_online_zero_weights_skip_the_examples(data):
    X, y, X_test = data
    w = np.where(np.arange(len(y)) % 4 == 0, 0.0, 1.0)
    for cls in (OnlineBBMClassifier, AdaBoostOLClassifier):
        weighted = cls(random_state=0).partial_fit(X, y, sample_weight=w)
        reduced = cls(random_state=0).partial_fit(X[w > 0], y[w > 0])
        np.testing.assert_array_equal(weighted.decision_function(X_test), reduced.decision_function(X_test))
        assert weighted.n_seen_ == reduced.n_seen_ == int(w.sum())


def test_online_link_is_fitted_on_the_progressive_predictions(data):
    X, y, X_test = data
    clf = AdaBoostOLClassifier(random_state=0).partial_fit(X, y, sample_weight=np.linspace(0.5, 2, len(y)))
    W, M = clf.booster_.weight_seen, clf.booster_.mistakes
    assert clf.progressive_loss_ == pytest.approx(M / W)
    t = (W + 1) / (W + 2)
    accuracy = (t * (W - M) + (1 - t) * M) / W
    assert clf.link_slope_ == pytest.approx(np.log(accuracy / (1 - accuracy)), rel=1e-8)
    P = clf.predict_proba(X_test)
    np.testing.assert_array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(X_test))


def test_gradient_logistic_probabilities_are_its_own_link(data):
    X, y, X_test = data
    clf = GradientProjectionClassifier(n_estimators=20).fit(X, y)
    assert clf.link_slope_ == 1.0
    np.testing.assert_allclose(clf.predict_proba(X_test)[:, 1], expit(clf.decision_function(X_test)))
    np.testing.assert_allclose(
        list(clf.staged_decision_function(X_test))[-1], clf.decision_function(X_test), atol=1e-12
    )
    multi = GradientProjectionClassifier(n_estimators=10).fit(X, np.arange(len(y)) % 3)
    P = multi.predict_proba(X_test)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(multi.classes_[P.argmax(axis=1)], multi.predict(X_test))


# --- feature_importances_ and scikit-learn names ----------------------------------------------------


def test_feature_importances_of_stumps(data):
    X, y, _ = data
    clf = ERLPBoostClassifier(nu=0.2, eps=0.05).fit(X, y)
    expected = np.zeros(X.shape[1])
    for weight, h in zip(clf.estimator_weights_, clf.hypotheses_, strict=True):
        if hasattr(h, "feature"):
            expected[h.feature] += weight
    np.testing.assert_allclose(clf.feature_importances_, expected / expected.sum())
    assert clf.estimators_ is clf.hypotheses_
    assert clf.estimator_weights_.size == len(clf.estimators_)


def test_feature_importances_of_scikit_learn_members(data):
    """Each member's weight spread by its own ``feature_importances_``; a tree without a split (its
    importances all 0) reads no feature and spreads nothing. The trees' ties are broken by their
    random_state (fixed: with None they follow numpy's global generator, i.e. the tests run before)."""
    X, y, _ = data
    tree = DecisionTreeClassifier(max_depth=2, random_state=0)
    clf = LPBoostClassifier(nu=0.2, eps=0.05, max_iter=10, oracle=tree).fit(X, y)
    expected = sum(
        w * h.estimator.feature_importances_ / h.estimator.feature_importances_.sum()
        for w, h in zip(clf.estimator_weights_, clf.hypotheses_, strict=True)
        if w > 0 and h.estimator.feature_importances_.sum() > 0
    )
    np.testing.assert_allclose(clf.feature_importances_, expected / expected.sum())
    assert clf.feature_importances_.sum() == pytest.approx(1.0)


# --- pandas -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [BATCH[2], BATCH[6]], ids=["erlpboost", "maboost"])
def test_dataframe_input_and_string_labels(make, data):
    pd = pytest.importorskip("pandas")
    X, y, X_test = data
    columns = [f"f{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)
    labels = pd.Series(y)
    clf = make().fit(frame, labels)
    np.testing.assert_array_equal(clf.feature_names_in_, columns)
    assert list(clf.classes_) == ["no", "yes"]
    test = pd.DataFrame(X_test, columns=columns)
    predictions = clf.predict(test)
    assert set(predictions) <= {"no", "yes"}
    np.testing.assert_array_equal(predictions, make().fit(X, y).predict(X_test))
    P = clf.predict_proba(test)
    np.testing.assert_array_equal(clf.classes_[P.argmax(axis=1)], predictions)
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(test.rename(columns={"f0": "other"}))
    with pytest.warns(UserWarning, match="fitted without feature names"):
        make().fit(X, y).predict(test)
