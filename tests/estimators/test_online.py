"""The online estimators: scikit-learn's checks, streams, River-style calls, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.linear_model import SGDClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from dualboost.estimators.online import AdaBoostOLClassifier, OnlineBBMClassifier
from dualboost.oracles.online import OnlineLinear
from tests.sklearn_checks import online_repeated_rows_checks

CLASSES = [OnlineBBMClassifier, AdaBoostOLClassifier]


@parametrize_with_checks(
    [
        OnlineBBMClassifier(random_state=0),
        AdaBoostOLClassifier(random_state=0),
        OnlineBBMClassifier(learner="stumps", weighting="sampling", n_learners=5, random_state=0),
    ],
    expected_failed_checks=online_repeated_rows_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def stream():
    X, y = make_classification(n_samples=900, n_features=8, n_informative=4, random_state=1)
    return X, np.where(y == 1, "spam", "ham")


@pytest.mark.parametrize("cls", CLASSES)
def test_partial_fit_in_chunks_equals_fit_and_learn_one(cls, stream):
    X, y = stream
    whole = cls(random_state=0).fit(X, y)
    chunks = cls(random_state=0)
    for start in range(0, len(y), 250):
        chunks.partial_fit(X[start : start + 250], y[start : start + 250], classes=["ham", "spam"])
    single = cls(random_state=0)
    for x, label in zip(X, y, strict=True):
        single.learn_one({j: v for j, v in enumerate(x)}, label, classes=["ham", "spam"])
    for other in (chunks, single):
        assert other.n_seen_ == whole.n_seen_ == len(y)
        assert other.progressive_loss_ == whole.progressive_loss_
        np.testing.assert_allclose(other.decision_function(X), whole.decision_function(X))
    assert list(whole.classes_) == ["ham", "spam"]
    assert whole.predict_one(X[0]) == whole.predict(X[:1])[0]
    assert whole.score(X, y) > 0.7
    assert whole.history_["iteration"][-1] == len(y)
    assert whole.history_["stopping"][-1] == whole.progressive_loss_


def test_progressive_loss_counts_predictions_made_before_learning(stream):
    """For Online BBM the online prediction is the vote: predict_one before learn_one."""
    X, y = stream
    clf = OnlineBBMClassifier(n_learners=5, random_state=0)
    mistakes = 0
    for t, (x, label) in enumerate(zip(X[:300], y[:300], strict=True)):
        if t:
            mistakes += clf.predict_one(x) != label
        else:
            mistakes += label != "ham"  # the untrained vote is 0: the negative class
        clf.learn_one(x, label, classes=["ham", "spam"])
    assert clf.progressive_loss_ == pytest.approx(mistakes / 300)


def test_sparse_input_and_other_learners(stream):
    X, y = stream
    dense = AdaBoostOLClassifier(random_state=0).fit(X, y)
    sparse = AdaBoostOLClassifier(random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.decision_function(X), sparse.decision_function(sp.csc_matrix(X)))
    sgd = OnlineBBMClassifier(n_learners=3, learner=SGDClassifier(random_state=0)).fit(X[:300], y[:300])
    assert sgd.score(X, y) > 0.6
    stumps = AdaBoostOLClassifier(learner="stumps", weighting="sampling", random_state=0).fit(X, y)
    assert stumps.score(X, y) > 0.7
    assert np.all(np.abs(stumps.alpha_) <= 2) and stumps.hedge_weights_.sum() == pytest.approx(1)


@pytest.mark.parametrize(
    "params", [{}, {"loss": "modified_huber", "normalized": True, "invariant": True}, {"invariant": True}]
)
def test_vectorised_linear_bank_equals_independent_learners(params):
    """One (p, N) matrix updated with N importance weights = N separate single learners."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    y = np.where(rng.random(50) < 0.5, 1, -1)
    weights = rng.random((50, 3))
    bank = OnlineLinear(**params).init(3, 4)
    singles = [OnlineLinear(**params).init(1, 4) for _ in range(3)]
    P = bank.prepare(X)
    cols = np.arange(5)
    for t in range(50):
        h = bank.predict_row(cols, P[t])
        bank.learn_row(cols, P[t], y[t], weights[t])
        for i, single in enumerate(singles):
            assert single.predict_row(cols, P[t])[0] == h[i]
            single.learn_row(cols, P[t], y[t], weights[t, i : i + 1])
    for i, single in enumerate(singles):
        np.testing.assert_allclose(bank.W[:, i], single.W[:, 0], rtol=1e-12)
        np.testing.assert_allclose(bank.b[i], single.b[0], rtol=1e-12)


# -- sample_weight in fit (docs/online.md#sample-weights) -------------------------------------------


def _importance(n, seed=3):
    """Real importance weights in [0, 3) with every seventh row at 0."""
    w = np.random.default_rng(seed).uniform(0.0, 3.0, n)
    w[::7] = 0.0
    return w


def _same_model(a, b):
    """Two fits that made the same updates in the same order: equal bit for bit, but for the edge sums,
    which add blocks of rows whose ends differ with the batches (rounding: 1e-12)."""
    assert a.n_seen_ == b.n_seen_ and a.booster_.weight_seen == b.booster_.weight_seen
    assert a.progressive_loss_ == b.progressive_loss_
    np.testing.assert_allclose(a.edges_, b.edges_, rtol=1e-12, atol=1e-15)
    assert a.link_slope_ == b.link_slope_
    for learned in ("alpha_", "hedge_weights_"):
        if hasattr(a, learned):
            np.testing.assert_array_equal(getattr(a, learned), getattr(b, learned))


@pytest.mark.parametrize("learner", ["linear", "stumps"])
@pytest.mark.parametrize("weighting", ["importance", "sampling"])
@pytest.mark.parametrize("cls", CLASSES)
def test_fit_with_weights_is_partial_fit_with_weights(cls, weighting, learner, stream):
    """fit(X, y, sample_weight=w) = partial_fit(X, y, sample_weight=w) on a fresh model, n_passes
    times; the counts are those of the positive weights. With the linear learner the stream may also
    come in chunks (the stumps take their feature ranges from the first batch)."""
    X, y = stream[0][:450], stream[1][:450]
    w = _importance(len(y))
    make = lambda: cls(n_passes=2, weighting=weighting, learner=learner, random_state=0)  # noqa: E731
    fitted = make().fit(X, y, sample_weight=w)
    chunk = 150 if learner == "linear" else len(y)
    stepped = make()
    for _ in range(2):
        for start in range(0, len(y), chunk):
            rows = slice(start, start + chunk)
            stepped.partial_fit(X[rows], y[rows], classes=["ham", "spam"], sample_weight=w[rows])
    _same_model(fitted, stepped)
    np.testing.assert_array_equal(fitted.decision_function(X), stepped.decision_function(X))
    np.testing.assert_array_equal(fitted.predict_proba(X), stepped.predict_proba(X))
    assert fitted.n_seen_ == 2 * np.count_nonzero(w)
    assert fitted.booster_.weight_seen == pytest.approx(2 * w.sum(), rel=1e-12)


@pytest.mark.parametrize("cls", CLASSES)
def test_fit_zero_weights_skip_the_rows_and_unit_weights_are_unweighted(cls, stream):
    X, y = stream[0][:450], stream[1][:450]
    w = _importance(len(y))
    kept = w > 0
    weighted = cls(random_state=0).fit(X, y, sample_weight=w)
    reduced = cls(random_state=0).fit(X[kept], y[kept], sample_weight=w[kept])
    _same_model(weighted, reduced)
    np.testing.assert_array_equal(weighted.decision_function(X), reduced.decision_function(X))
    zero_one = cls(random_state=0).fit(X, y, sample_weight=kept.astype(float))
    removed = cls(random_state=0).fit(X[kept], y[kept])
    _same_model(zero_one, removed)
    np.testing.assert_array_equal(zero_one.decision_function(X), removed.decision_function(X))
    ones = cls(random_state=0).fit(X, y, sample_weight=np.ones(len(y)))
    _same_model(ones, cls(random_state=0).fit(X, y))


def test_fit_integer_weights_are_not_repeated_rows(stream):
    """What the class docstring says: a weight of 2 is one step twice as long, not two steps, so a
    stream of doubled weights and the stream of doubled rows have learned different alphas (the same
    total weight)."""
    X, y = stream[0][:300], stream[1][:300]
    weighted = AdaBoostOLClassifier(random_state=0).fit(X, y, sample_weight=np.full(len(y), 2.0))
    repeated = AdaBoostOLClassifier(random_state=0).fit(np.repeat(X, 2, axis=0), np.repeat(y, 2))
    assert weighted.booster_.weight_seen == repeated.booster_.weight_seen == 2 * len(y)
    assert not np.allclose(weighted.alpha_, repeated.alpha_, rtol=1e-3)


@pytest.mark.parametrize("cls", CLASSES)
def test_fit_bad_weights_name_sample_weight(cls, stream):
    X, y = stream[0][:100], stream[1][:100]
    n = len(y)
    for bad, match in (
        (-np.ones(n), "[Nn]egative.*sample_weight"),
        (np.r_[np.nan, np.ones(n - 1)], "sample_weight.*NaN"),
        (np.ones(n - 1), "sample_weight"),
        (np.zeros(n), "sample_weight.*zero"),
        ((y == "spam").astype(float), "two classes"),
    ):
        with pytest.raises(ValueError, match=match):
            cls().fit(X, y, sample_weight=bad)


def test_verbose_progress_line_only_on_a_terminal(stream, monkeypatch, capsys):
    import sys

    X, y = stream
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    OnlineBBMClassifier(verbose=True).fit(np.tile(X, (2, 1)), np.tile(y, 2))
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    OnlineBBMClassifier(verbose=True).fit(np.tile(X, (2, 1)), np.tile(y, 2))
    assert "progressive loss" in capsys.readouterr().err


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_learners": 0}, "n_learners"),
        ({"n_learners": 2.5}, "n_learners"),
        ({"gamma": 1.0}, "gamma"),
        ({"gamma": -0.1}, "gamma"),
        ({"weighting": "weights"}, "weighting"),
        ({"learner": "tree"}, "learner"),
        ({"n_passes": 0}, "n_passes"),
    ],
)
def test_bad_parameters_raise_naming_the_argument(params, match, stream):
    X, y = stream
    with pytest.raises(ValueError, match=match):
        OnlineBBMClassifier(**params).fit(X, y)


def test_bad_stream_input_raises(stream):
    X, y = stream
    clf = AdaBoostOLClassifier()
    with pytest.raises(ValueError, match="classes"):
        clf.partial_fit(X[:5], np.array(["ham"] * 5))
    with pytest.raises(ValueError, match="classes"):
        AdaBoostOLClassifier().partial_fit(X, y, classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="classes"):
        AdaBoostOLClassifier().learn_one(X[0], "spam")
    clf.partial_fit(X, y)
    with pytest.raises(ValueError, match="classes_"):
        clf.partial_fit(X[:3], np.array(["ham", "eggs", "spam"]))
    with pytest.raises(ValueError, match="finite"):
        clf.learn_one(np.full(8, np.nan), "ham")
    with pytest.raises(ValueError, match="features"):
        clf.learn_one(np.ones(3), "ham")
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="SGDClassifier|partial_fit"):
        from sklearn.svm import SVC

        OnlineBBMClassifier(learner=SVC()).fit(X, y)


def _binary_stream(seed=0, n=300, p=12):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.3, random_state=seed, format="csr")
    X.data[:] = 1.0
    y = np.where(X @ rng.normal(size=p) + 0.3 * rng.normal(size=n) > 0.5, 1, -1)
    return X, y


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"loss": "hinge"},
        {"loss": "squared", "adaptive": False},
        {"learning_rate": 0.1},
        {"loss": "modified_huber", "normalized": True, "invariant": True},
        {"loss": "logistic", "invariant": True, "adaptive": False},
    ],
)
def test_binary_fast_path_is_exactly_the_general_update(params):
    """Rows of ones skip the outer products with x (OnlineLinear.rows marks them): bit-for-bit the
    same learners as the general path fed with the same values as plain arrays."""
    X, y = _binary_stream()
    fast, general = OnlineLinear(**params).init(4, 12), OnlineLinear(**params).init(4, 12)
    rng = np.random.default_rng(1)
    Xp = fast.prepare(X)
    n_fast = 0
    for t, (idx, vals) in enumerate(fast.rows(Xp)):
        n_fast += vals.base is fast._ones
        weights = rng.random(4)
        h_fast = fast.predict_row(idx, vals)
        h_general = general.predict_row(idx, np.array(vals))  # a copy: the general path
        np.testing.assert_array_equal(h_fast, h_general)
        fast.learn_row(idx, vals, y[t], weights)
        general.learn_row(idx, np.array(vals), y[t], weights)
    assert n_fast == X.shape[0]
    np.testing.assert_array_equal(fast.state, general.state)


def test_rows_marks_only_rows_of_ones_and_keeps_the_values():
    X = sp.csr_matrix(np.array([[1.0, 0.0, 1.0], [2.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.5]]))
    bank = OnlineLinear().init(2, 3)
    Xp = bank.prepare(X)
    rows = list(bank.rows(Xp))
    assert [vals.base is bank._ones for _, vals in rows] == [True, False, True, False]
    for r, (idx, vals) in enumerate(rows):
        dense = np.zeros(4)
        dense[idx] = vals
        np.testing.assert_array_equal(dense, Xp[r].toarray()[0])


@pytest.mark.parametrize("cls", CLASSES)
def test_sparse_binary_stream_equals_the_dense_stream(cls):
    """The binary fast path (CSR rows of ones) and the dense path learn the same model."""
    X, y = _binary_stream(seed=2, n=400)
    sparse = cls(n_learners=6, random_state=0).fit(X, y)
    dense = cls(n_learners=6, random_state=0).fit(X.toarray(), y)
    assert sparse.progressive_loss_ == dense.progressive_loss_
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X.toarray()))
    np.testing.assert_allclose(sparse.booster_.learners.state, dense.booster_.learners.state, rtol=1e-12)


# -- the VW-like update options of OnlineLinear: adaptive, normalized, importance-invariant ---------------

LOSS_NAMES = ["logistic", "hinge", "squared", "modified_huber"]


def _ode_margin(loss, m0, tau):
    """m(tau) of dm/dtau = phi(m), m(0) = m0, by a numerical ODE solver (the reference)."""
    from scipy.integrate import solve_ivp

    from dualboost.oracles.online import margin_slope

    if tau == 0:
        return m0
    sol = solve_ivp(
        lambda t, m: margin_slope(loss, m), (0.0, tau), [m0], rtol=1e-11, atol=1e-13, max_step=0.01
    )
    return sol.y[0, -1]


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_invariant_step_solves_the_margin_ode(loss):
    """The closed forms of invariant_step against a numerical solution of Karampatziakis &
    Langford's ODE, on margins in every regime (modified Huber's linear part m < -1, its flat part
    m >= 1, both crossings) and in the vectorised call with and without a linear part."""
    from dualboost.oracles.online import invariant_margin, invariant_step

    m0 = np.array([-6.0, -2.5, -1.5, -1.0, -0.3, 0.0, 0.5, 0.99, 1.0, 1.5, 3.0, 40.0])
    tau = np.array([0.4, 3.0, 0.2, 0.7, 1.5, 0.01, 2.0, 0.5, 1.0, 1.0, 4.0, 2.0])
    reference = np.array([_ode_margin(loss, a, b) for a, b in zip(m0, tau, strict=True)])
    # ODE tolerances 1e-11 relative; the hinge slope is discontinuous at m = 1 (the solver's
    # step-size control stops there to ~1e-9)
    np.testing.assert_allclose(invariant_margin(loss, m0, tau), reference, atol=1e-8)
    quadratic = slice(4, 9)  # margins in [-1, 1): modified Huber's exponential regime only
    np.testing.assert_allclose(
        invariant_step(loss, m0[quadratic], tau[quadratic]), reference[quadratic] - m0[quadratic], atol=1e-8
    )
    zero = invariant_step(loss, m0, np.zeros_like(m0))
    assert np.all(np.abs(zero) <= (1e-15 if loss == "logistic" else 0.0))
    if loss != "logistic":  # these losses have a minimiser at m = 1 (or flat beyond it): no overshoot
        big = invariant_margin(loss, m0[:9], np.full(9, 1e6))
        np.testing.assert_allclose(big, 1.0, atol=1e-12)


def _one_update(params, x, y, h, W0=None):
    """One OnlineLinear(1 learner) update on the dense row x with weight h; the new weights."""
    bank = OnlineLinear(**params).init(1, x.size)
    if W0 is not None:
        bank.state[:, 0] = W0
    row = bank.prepare(x[None, :])[0]
    cols = np.arange(x.size + 1)
    bank.predict_row(cols, row)
    bank.learn_row(cols, row, y, np.array([h]))
    return bank


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_invariant_update_is_the_limit_of_many_small_plain_steps(loss):
    """Karampatziakis & Langford's definition, by brute force: with fixed rates (plain steps,
    adaptive=False), k plain updates of weight h/k on the same example converge to the invariant
    update of weight h, at rate O(1/k) (Euler's method)."""
    rng = np.random.default_rng(3)
    x, W0 = rng.normal(size=5), 0.3 * rng.normal(size=6)
    h, rate = 7.0, 0.2  # tau = h rate |x|² is several units: far from the plain step's regime
    label = -1 if x @ W0[:-1] + W0[-1] > 0 else 1  # a wrong side start (margin < 0): every loss moves
    exact = _one_update(
        {"loss": loss, "learning_rate": rate, "adaptive": False, "invariant": True}, x, label, h, W0
    )
    errors = []
    for k in (250, 500, 1000):
        plain = OnlineLinear(loss=loss, learning_rate=rate, adaptive=False).init(1, x.size)
        plain.state[:, 0] = W0
        row, cols = plain.prepare(x[None, :])[0], np.arange(x.size + 1)
        for _ in range(k):
            plain.predict_row(cols, row)
            plain.learn_row(cols, row, label, np.array([h / k]))
        errors.append(np.abs(plain.state[:, 0] - exact.state[:, 0]).max())
    scale = np.abs(exact.state[:, 0] - W0).max()
    assert scale > 0.1  # the update is large
    assert errors[-1] < 0.01 * scale
    if loss != "hinge":  # smooth slope: Euler's error halves with the step (hinge: O(1/k) but not smooth)
        assert 1.6 < errors[0] / errors[1] < 2.4 and 1.6 < errors[1] / errors[2] < 2.4


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_invariant_update_of_weight_2h_equals_two_updates_of_weight_h(loss):
    rng = np.random.default_rng(4)
    x, W0 = rng.normal(size=4), 0.5 * rng.normal(size=5)
    params = {"loss": loss, "learning_rate": 0.3, "adaptive": False, "invariant": True}
    once = _one_update(params, x, -1, 3.0, W0)
    twice = _one_update(params, x, -1, 1.5, W0)
    twice = _one_update(params, x, -1, 1.5, twice.state[:, 0].copy())
    np.testing.assert_allclose(twice.state[:, 0], once.state[:, 0], rtol=1e-10, atol=1e-12)


def _reference_learner(params, X, y, H):
    """A plain-Python loop, learner by learner and feature by feature, of the documented update:
    AdaGrad sums G_j += h phi² x_j², r_j = 1/sqrt(G_j) (1 if not adaptive); normalized: s_j =
    max |x_j|, r_j /= s_j (adaptive) or s_j², rate *= sqrt(T/S); the step along r_j x_j is
    rate h y phi (plain) or y (m(tau) - m)/q with tau = h rate q, q = sum_j r_j x_j² (invariant;
    m(tau) by the closed forms, checked against the ODE solver above). X dense with a last column
    of ones (the intercept)."""
    from dualboost.oracles.online import invariant_margin

    loss, rate0 = params.get("loss", "logistic"), params.get("learning_rate", 0.5)
    adaptive, normalized = params.get("adaptive", True), params.get("normalized", False)
    invariant = params.get("invariant", False)
    n_learners, p = H.shape[1], X.shape[1]
    W, G = np.zeros((p, n_learners)), np.zeros((p, n_learners))
    s, T, S = np.zeros(p), 0, 0.0
    for t in range(X.shape[0]):
        x, label = X[t], y[t]
        support = [j for j in range(p) if x[j] != 0.0]
        if normalized:
            for j in support:
                s[j] = max(s[j], abs(x[j]))
            T += 1
            S += sum(x[j] ** 2 / s[j] ** 2 for j in support)
        margins = [label * sum(W[j, i] * x[j] for j in support) for i in range(n_learners)]
        for i in range(n_learners):
            h, m = H[t, i], margins[i]
            if h == 0.0:
                continue  # not passed: no change at all
            phi = {
                "logistic": 1.0 / (1.0 + math.exp(m)),
                "hinge": 1.0 if m < 1 else 0.0,
                "squared": 1.0 - m,
                "modified_huber": 2.0 if m < -1 else max(0.0, 1.0 - m),
            }[loss]
            r = {}
            for j in support:
                if adaptive:
                    G[j, i] += h * phi**2 * x[j] ** 2
                    r[j] = 1.0 / math.sqrt(G[j, i]) if G[j, i] > 0 else 0.0
                else:
                    r[j] = 1.0
                if normalized:
                    r[j] /= s[j] if adaptive else s[j] ** 2
            rate = rate0 * (math.sqrt(T / S) if normalized else 1.0)
            if invariant:
                q = sum(r[j] * x[j] ** 2 for j in support)
                coef = label * (float(invariant_margin(loss, m, h * rate * q)) - m) / q
            else:
                coef = rate * h * label * phi
            for j in support:
                W[j, i] += coef * r[j] * x[j]
    return W


OPTION_SETS = [
    {"adaptive": True},
    {"adaptive": False, "normalized": True, "loss": "hinge"},
    {"adaptive": True, "normalized": True, "loss": "squared"},
    {"adaptive": True, "invariant": True, "loss": "logistic"},
    {"adaptive": False, "invariant": True, "loss": "modified_huber"},
    {"adaptive": True, "normalized": True, "invariant": True, "loss": "modified_huber", "learning_rate": 2.0},
]


@pytest.mark.parametrize("params", OPTION_SETS)
def test_linear_bank_matches_a_hand_loop_of_the_documented_updates(params):
    """The vectorised bank (3 learners, sparse rows with zeros and non-binary values, importance
    weights including 0) against the loop reference; features of very different scales."""
    rng = np.random.default_rng(5)
    n, p = 40, 4
    X = rng.normal(size=(n, p)) * np.array([1.0, 30.0, 0.02, 1.0])
    X[rng.random((n, p)) < 0.3] = 0.0
    y = np.where(X @ np.array([1.0, 0.05, 40.0, -1.0]) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    H = rng.random((n, 3)) * 3.0
    H[rng.random((n, 3)) < 0.2] = 0.0
    bank = OnlineLinear(**params).init(3, p)
    P = bank.prepare(sp.csr_matrix(X))
    for t, (idx, vals) in enumerate(bank.rows(P)):
        bank.predict_row(idx, vals)
        bank.learn_row(idx, vals, y[t], H[t])
    reference = _reference_learner(params, np.hstack([X, np.ones((n, 1))]), y, H)
    np.testing.assert_allclose(bank.state[:, :3], reference, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("invariant", [False, True])
def test_normalized_updates_are_invariant_to_feature_scales(invariant):
    """Rescaling feature j by c_j rescales its weights by 1/c_j; the predictions do not change."""
    rng = np.random.default_rng(6)
    X = sp.random(200, 6, density=0.5, random_state=6, format="csr")
    X.data = rng.normal(size=X.nnz)
    y = np.where(X @ rng.normal(size=6) > 0, 1, -1)
    c = np.array([1.0, 1e3, 1e-3, 7.0, 0.5, 1.0])
    Xc = X @ sp.diags(c)
    params = {"loss": "modified_huber", "normalized": True, "invariant": invariant, "learning_rate": 1.0}
    a = OnlineBBMClassifier(n_learners=4, learner=OnlineLinear(**params), random_state=0).fit(X, y)
    b = OnlineBBMClassifier(n_learners=4, learner=OnlineLinear(**params), random_state=0).fit(Xc, y)
    assert a.progressive_loss_ == b.progressive_loss_
    np.testing.assert_allclose(b.booster_.learners.W * c[:, None], a.booster_.learners.W, rtol=1e-8)
    np.testing.assert_allclose(b.booster_.learners.b, a.booster_.learners.b, rtol=1e-8, atol=1e-12)
    # without normalisation the same stream gives other predictions
    plain = OnlineBBMClassifier(n_learners=4, learner=OnlineLinear(invariant=invariant), random_state=0)
    assert not np.allclose(plain.fit(Xc, y).booster_.learners.W * c[:, None], a.booster_.learners.W)


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_zero_weight_leaves_a_learner_unchanged(loss):
    """Weight 0 (rejection sampling's 'not passed') changes nothing, with every option on."""
    X, y = _binary_stream(seed=7, n=60)
    bank = OnlineLinear(loss=loss, normalized=True, invariant=True).init(3, 12)
    for t, (idx, vals) in enumerate(bank.rows(bank.prepare(X))):
        before = bank.state[:, 1].copy()
        bank.predict_row(idx, vals)
        bank.learn_row(idx, vals, y[t], np.array([True, False, True]))
        np.testing.assert_array_equal(bank.state[:, 1], before)


def test_k_classes_refused_with_the_wrapper_that_streams_them():
    """Three classes: the error names OneVsRestClassifier, and the wrapper's partial_fit predicts the
    argmax of K binary boosters each streamed on [y == c] (built here one by one)."""
    from sklearn.datasets import load_iris
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    order = np.random.default_rng(0).permutation(150)
    X, y = X[order], y[order]
    with pytest.raises(ValueError, match="OneVsRestClassifier.*docs/online.md#k-classes"):
        AdaBoostOLClassifier().fit(X, y)
    wrapped = OneVsRestClassifier(AdaBoostOLClassifier(random_state=0))
    alone = [AdaBoostOLClassifier(random_state=0) for _ in range(3)]
    for start in range(0, 120, 30):
        rows = slice(start, start + 30)
        wrapped.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
        for c, model in enumerate(alone):
            model.partial_fit(X[rows], (y[rows] == c).astype(int), classes=[0, 1])
    votes = np.column_stack([model.decision_function(X[120:]) for model in alone])
    assert np.array_equal(wrapped.predict(X[120:]), np.argmax(votes, axis=1))
