"""sample_weight in the gradient-boosting estimators (docs/gradient.md#sample-weights).

The weights s make the objective the weighted risk ``R_s[f] = sum_n s_n l(f(x_n), y_n) / sum_n s_n``,
minimised in L²(P̂_s). The identities: weight 0 = the row removed, integer weights = the rows repeated
(the copies of x_n share f(x_n), so the repeated sample's P̂ is P̂_s), equal weights = no weights. Each
is checked against the other side (a fit on the reduced or repeated rows), and the weighted risk, the
weighted least-squares projection and the weighted median against direct computations, and the weighted
squared-loss fit against scikit-learn's GradientBoostingRegressor with sample_weight.

Tolerances: the weighted and the repeated fit add the same numbers in a different order (w_n t_n once
against t_n added w_n times), so they agree to rounding: about 1e-15 relative per sum, a few hundred sums
per fit; 1e-10 leaves a margin of 1e4 and still catches any real difference (one different stump moves f
by O(0.1)). The removed rows and equal weights are exact (the same arithmetic).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.ensemble import GradientBoostingRegressor

from dualboost.boosting.gradient import gradient_projection
from dualboost.boosting.gradient.losses import weighted_median
from dualboost.estimators.gradient import GradientProjectionClassifier, GradientProjectionRegressor
from dualboost.oracles.regression import RegressionStumps

BINARY_LOSSES = ["logistic", "hinge", "exponential", "squared", "multiclass_hinge"]
PROJECTIONS = ["naive", "repeated", "residual"]
TIGHT = 1e-10


@pytest.fixture(scope="module", params=["continuous", "rounded"])
def data(request):
    """Two data sets: continuous features, and features rounded to one decimal (ties among the values)."""
    X, y = make_classification(n_samples=90, n_features=5, n_informative=3, random_state=0)
    if request.param == "rounded":
        X = np.round(X, 1)
    rng = np.random.default_rng(1)
    X_test = rng.normal(size=(60, 5))
    weights = rng.integers(0, 4, len(y))  # zeros included
    y_real = X[:, 0] + np.sin(2 * X[:, 1]) + 0.3 * rng.normal(size=len(y))
    return X, np.where(y == 1, "spam", "ham"), y_real, X_test, weights


def _risk(loss: str, F: np.ndarray, y: np.ndarray, s: np.ndarray) -> float:
    """The weighted risk written out from the loss's formula (y in {-1, +1}, class indices or reals)."""
    if loss == "multiclass_hinge":
        rows = np.arange(len(y))
        others = F.copy()
        others[rows, y] = -np.inf
        per_example = np.maximum(0.0, 1.0 + others.max(axis=1) - F[rows, y])
    else:
        z = y * F
        per_example = {
            "logistic": lambda: np.logaddexp(0.0, -z),
            "hinge": lambda: np.maximum(0.0, 1.0 - z),
            "exponential": lambda: np.exp(-z),
            "squared": lambda: 0.5 * (F - y) ** 2,
            "absolute": lambda: np.abs(F - y),
        }[loss]()
    return float(np.sum(s * per_example) / np.sum(s))


# --- integer weights = repeated rows, for each loss --------------------------------------------------


@pytest.mark.parametrize("projection", PROJECTIONS)
@pytest.mark.parametrize("loss", BINARY_LOSSES)
def test_classifier_integer_weights_equal_repeated_rows(data, loss, projection):
    X, y, _, X_test, w = data
    make = lambda: GradientProjectionClassifier(loss=loss, projection=projection, n_estimators=30)  # noqa: E731
    weighted = make().fit(X, y, sample_weight=w)
    repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    for a, b in (
        (weighted.decision_function(X_test), repeated.decision_function(X_test)),
        (weighted.predict_proba(X_test), repeated.predict_proba(X_test)),
        (weighted.history_["primal"], repeated.history_["primal"]),
        (weighted.history_["edge"], repeated.history_["edge"]),
    ):
        np.testing.assert_allclose(a, b, rtol=TIGHT, atol=TIGHT)
    assert weighted.n_estimators_ == repeated.n_estimators_
    assert weighted.link_slope_ == pytest.approx(repeated.link_slope_, rel=TIGHT)
    # the recorded objective is the weighted risk of the final f, written out from the loss
    kept = w > 0
    F = weighted.result_.F
    labels = np.where(y[kept] == "spam", 1.0, -1.0) if F.ndim == 1 else (y[kept] == "spam").astype(int)
    assert weighted.objective_ == pytest.approx(_risk(loss, F, labels, w[kept].astype(float)), rel=1e-12)


@pytest.mark.parametrize("projection", PROJECTIONS)
@pytest.mark.parametrize("learner", ["stumps", "multiclass_stumps"])
def test_multiclass_integer_weights_equal_repeated_rows(data, learner, projection):
    X, _, _, X_test, w = data
    y3 = np.arange(len(w)) % 3
    make = lambda: GradientProjectionClassifier(learner=learner, projection=projection, n_estimators=30)  # noqa: E731
    weighted = make().fit(X, y3, sample_weight=w)
    repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y3, w))
    np.testing.assert_allclose(
        weighted.decision_function(X_test), repeated.decision_function(X_test), atol=TIGHT
    )
    np.testing.assert_allclose(weighted.predict_proba(X_test), repeated.predict_proba(X_test), atol=TIGHT)
    kept = w > 0
    risk = _risk("multiclass_hinge", weighted.result_.F, y3[kept], w[kept].astype(float))
    assert weighted.objective_ == pytest.approx(risk, rel=1e-12)


@pytest.mark.parametrize("projection", PROJECTIONS)
@pytest.mark.parametrize("loss", ["squared", "absolute"])
def test_regressor_integer_weights_equal_repeated_rows(data, loss, projection):
    X, _, y, X_test, w = data
    make = lambda: GradientProjectionRegressor(loss=loss, projection=projection, n_estimators=30)  # noqa: E731
    weighted = make().fit(X, y, sample_weight=w)
    repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict(X_test), repeated.predict(X_test), rtol=TIGHT, atol=TIGHT)
    # f_0 is the best constant of the weighted risk: the mean / median of the repeated targets (the
    # median is a data value, exactly; the mean rounds)
    expected = np.mean if loss == "squared" else np.median
    assert float(weighted.init_) == pytest.approx(expected(np.repeat(y, w)), rel=1e-14)
    assert float(weighted.init_) == pytest.approx(float(repeated.init_), rel=1e-14)
    if loss == "absolute":
        assert float(weighted.init_) == float(repeated.init_)
    kept = w > 0
    assert weighted.objective_ == pytest.approx(_risk(loss, weighted.result_.F, y[kept], w[kept]), rel=1e-12)


def test_decision_stumps_learner_integer_weights_equal_repeated_rows(data):
    """Rule (3) through the binary stump oracle: the weighted edge is the edge on the repeated rows."""
    X, y, _, X_test, w = data
    make = lambda: GradientProjectionClassifier(learner="decision_stumps", n_estimators=30)  # noqa: E731
    weighted = make().fit(X, y, sample_weight=w)
    repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(
        weighted.decision_function(X_test), repeated.decision_function(X_test), atol=TIGHT
    )


def test_sparse_input_weights_equal_dense(data):
    X, y, _, X_test, w = data
    dense = GradientProjectionClassifier(n_estimators=20).fit(X, y, sample_weight=w)
    sparse = GradientProjectionClassifier(n_estimators=20).fit(sp.csr_matrix(X), y, sample_weight=w)
    np.testing.assert_array_equal(dense.decision_function(X_test), sparse.decision_function(X_test))


# --- zero weights = rows removed, equal weights = no weights ------------------------------------------


@pytest.mark.parametrize("projection", PROJECTIONS)
@pytest.mark.parametrize("loss", BINARY_LOSSES)
def test_zero_weights_equal_removing_the_rows(data, loss, projection):
    """Weights 0 and 1: the unweighted fit on the kept rows, exactly; weights 0 and others: the weighted
    fit on the kept rows, exactly (the rows are dropped before the learner sees X, so that the stumps'
    thresholds are those of the kept rows)."""
    X, y, _, X_test, w = data
    kept = w > 0
    make = lambda: GradientProjectionClassifier(loss=loss, projection=projection, n_estimators=25)  # noqa: E731
    ones = make().fit(X, y, sample_weight=kept.astype(float))
    reduced = make().fit(X[kept], y[kept])
    np.testing.assert_array_equal(ones.decision_function(X_test), reduced.decision_function(X_test))
    np.testing.assert_array_equal(ones.predict_proba(X_test), reduced.predict_proba(X_test))
    weighted = make().fit(X, y, sample_weight=w)
    reduced_weighted = make().fit(X[kept], y[kept], sample_weight=w[kept])
    np.testing.assert_array_equal(
        weighted.decision_function(X_test), reduced_weighted.decision_function(X_test)
    )
    np.testing.assert_array_equal(weighted.predict_proba(X_test), reduced_weighted.predict_proba(X_test))


@pytest.mark.parametrize("loss", ["squared", "absolute"])
def test_regressor_zero_weights_equal_removing_the_rows(data, loss):
    X, _, y, X_test, w = data
    kept = w > 0
    weighted = GradientProjectionRegressor(loss=loss, n_estimators=25).fit(X, y, sample_weight=w)
    reduced = GradientProjectionRegressor(loss=loss, n_estimators=25).fit(
        X[kept], y[kept], sample_weight=w[kept]
    )
    np.testing.assert_array_equal(weighted.predict(X_test), reduced.predict(X_test))


def test_zero_weights_can_remove_a_class(data):
    """A class whose rows all weigh 0 is not a class of the fit (as when its rows are removed)."""
    X, _, _, X_test, w = data
    y3 = np.arange(len(w)) % 3
    s = np.where(y3 == 2, 0.0, 1.0)
    weighted = GradientProjectionClassifier(n_estimators=20).fit(X, y3, sample_weight=s)
    reduced = GradientProjectionClassifier(n_estimators=20).fit(X[s > 0], y3[s > 0])
    assert list(weighted.classes_) == [0, 1]
    np.testing.assert_array_equal(weighted.decision_function(X_test), reduced.decision_function(X_test))


@pytest.mark.parametrize("loss", BINARY_LOSSES)
def test_equal_weights_are_the_unweighted_fit(data, loss):
    """Equal weights give P̂_s = P̂: the same f bit for bit. Weights of 1 also give the same
    predict_proba; other equal weights c change the Platt target (W + 1)/(W + 2) of the losses without
    a link to W = c N, as c copies of every row would."""
    X, y, _, X_test, _ = data
    make = lambda: GradientProjectionClassifier(loss=loss, n_estimators=25)  # noqa: E731
    plain = make().fit(X, y)
    ones = make().fit(X, y, sample_weight=np.ones(len(y)))
    scaled = make().fit(X, y, sample_weight=np.full(len(y), 2.5))
    np.testing.assert_array_equal(ones.predict_proba(X_test), plain.predict_proba(X_test))
    np.testing.assert_array_equal(scaled.decision_function(X_test), plain.decision_function(X_test))
    assert scaled.objective_ == plain.objective_
    if loss in ("logistic", "exponential"):  # the loss's own link, which does not count examples
        np.testing.assert_array_equal(scaled.predict_proba(X_test), plain.predict_proba(X_test))


def test_regressor_equal_weights_are_the_unweighted_fit(data):
    X, _, y, X_test, _ = data
    for loss in ("squared", "absolute"):
        plain = GradientProjectionRegressor(loss=loss, n_estimators=25).fit(X, y)
        scaled = GradientProjectionRegressor(loss=loss, n_estimators=25).fit(
            X, y, sample_weight=np.full(len(y), 0.3)
        )
        np.testing.assert_array_equal(scaled.predict(X_test), plain.predict(X_test))


# --- the weighted projection, f_0 and the driver ------------------------------------------------------


def _brute_force_weighted_stump(X, target, s):
    """min over features and thresholds of sum_n s_n (target_n - leaf(x_n))², leaves the weighted means."""
    best_error, best_fit = np.inf, None
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for low, high in zip(values[:-1], values[1:], strict=True):
            right = X[:, j] > (low + high) / 2
            fit = np.where(
                right,
                np.average(target[right], weights=s[right]),
                np.average(target[~right], weights=s[~right]),
            )
            error = float(np.sum(s * (target - fit) ** 2))
            if error < best_error:
                best_error, best_fit = error, fit
    return best_error, best_fit


def test_first_step_is_the_weighted_least_squares_stump(data):
    """Squared loss, naive projection, eta = 1, one round: f_1 = weighted mean + the weighted
    least-squares stump of the residuals y - f_0 (rule (4) in L²(P̂_s) fits the gradient f_0 - y; the line
    coefficient c is 1)."""
    X, _, y, _, _ = data
    s = np.random.default_rng(5).uniform(0.1, 3.0, len(y))
    reg = GradientProjectionRegressor(projection="naive", step="constant", n_estimators=1).fit(
        X, y, sample_weight=s
    )
    f0 = np.average(y, weights=s)
    assert float(reg.init_) == pytest.approx(f0, rel=1e-14)
    error, fit = _brute_force_weighted_stump(X, y - f0, s)
    F = reg.result_.F
    assert float(np.sum(s * (y - F) ** 2)) == pytest.approx(error, rel=1e-12)
    np.testing.assert_allclose(F, f0 + fit, atol=1e-12)
    assert reg.estimator_weights_[0] == pytest.approx(-1.0, rel=1e-12)  # -eta c: h projects the gradient
    assert reg.objective_ == pytest.approx(0.5 * error / s.sum(), rel=1e-12)


def test_weighted_squared_loss_matches_scikit_learn_gradient_boosting(data):
    """A second implementation: on the squared loss with stumps, the naive method with eta = 1 is
    Friedman's least-squares boosting, which scikit-learn's GradientBoostingRegressor(learning_rate=1,
    max_depth=1) implements with sample_weight as a weighted mean f_0 and weighted least-squares trees.
    Both fits make the same splits, so f agrees on the training rows to rounding."""
    X, _, y, _, _ = data
    s = np.random.default_rng(8).uniform(0.1, 3.0, len(y))
    ours = GradientProjectionRegressor(projection="naive", step="constant", n_estimators=40)
    ours.fit(X, y, sample_weight=s)
    theirs = GradientBoostingRegressor(learning_rate=1.0, max_depth=1, n_estimators=40, random_state=0)
    theirs.fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=TIGHT)
    assert ours.objective_ == pytest.approx(
        0.5 * np.average((theirs.predict(X) - y) ** 2, weights=s), rel=1e-10
    )


def test_weighted_median():
    rng = np.random.default_rng(6)
    for n in (1, 2, 7, 40, 41, 200):
        v = np.round(rng.normal(size=n), 1)  # ties among the values
        w = rng.integers(0, 4, n)
        w[0] = max(w[0], 1)
        for counts in (w, np.ones(n, dtype=int), w + 1):  # odd and even totals
            expected = np.median(np.repeat(v, counts))
            assert weighted_median(v, counts.astype(float)) == expected
            # normalised as the driver passes them (cumulative sums that round near W/2)
            assert weighted_median(v, counts / counts.sum()) == expected
        # real weights: a minimiser of sum s |v - m| (the minimum is attained at a value v_n)
        s = rng.uniform(0.1, 2.0, n)
        m = weighted_median(v, s)
        assert np.sum(s * np.abs(v - m)) <= np.min([np.sum(s * np.abs(v - c)) for c in v]) * (1 + 1e-14)


def test_driver_weights_are_scale_free_and_checked(data):
    X, _, y, _, _ = data
    oracle = RegressionStumps().fit(X)
    s = np.random.default_rng(7).uniform(0.5, 2.0, len(y))
    a = gradient_projection(oracle, y, "absolute", n_learners=15, sample_weight=s)
    b = gradient_projection(oracle, y, "absolute", n_learners=15, sample_weight=7.0 * s)
    np.testing.assert_allclose(a.F, b.F, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.sample_weight, s / s.sum(), rtol=1e-15)
    assert a.params["weighted"] and a.objective == pytest.approx(_risk("absolute", a.F, y, s), rel=1e-12)
    for bad in (-s, np.r_[np.nan, s[1:]], s[:-1], np.zeros_like(s)):
        with pytest.raises(ValueError, match="sample_weight"):
            gradient_projection(oracle, y, "absolute", n_learners=3, sample_weight=bad)


# --- bad weights ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [GradientProjectionClassifier, GradientProjectionRegressor])
def test_bad_weights_name_sample_weight(data, make):
    X, y, y_real, _, _ = data
    target = y if make is GradientProjectionClassifier else y_real
    n = len(target)
    for bad, match in (
        (-np.ones(n), "[Nn]egative.*sample_weight"),
        (np.r_[np.nan, np.ones(n - 1)], "sample_weight.*NaN"),
        (np.r_[np.inf, np.ones(n - 1)], "sample_weight.*infinity"),
        (np.ones(n - 1), "sample_weight"),
        (np.ones((n, 2)), "[Ss]ample.weight"),
        (np.zeros(n), "sample_weight.*zero"),
    ):
        with pytest.raises(ValueError, match=match):
            make(n_estimators=3).fit(X, target, sample_weight=bad)
    if make is GradientProjectionClassifier:
        with pytest.raises(ValueError, match="two classes with a positive sample_weight"):
            make(n_estimators=3).fit(X, y, sample_weight=(y == "spam").astype(float))
