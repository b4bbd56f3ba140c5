"""The online estimators (issue 7): scikit-learn's checks, streams, River-style calls, errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.linear_model import SGDClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from dualboost.estimators_online import AdaBoostOLClassifier, OnlineBBMClassifier
from dualboost.oracles.online import OnlineLinear

CLASSES = [OnlineBBMClassifier, AdaBoostOLClassifier]


@parametrize_with_checks(
    [
        OnlineBBMClassifier(random_state=0),
        AdaBoostOLClassifier(random_state=0),
        OnlineBBMClassifier(learner="stumps", weighting="sampling", n_learners=5, random_state=0),
    ]
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


def test_vectorised_linear_bank_equals_independent_learners():
    """One (p, N) matrix updated with N importance weights = N separate single learners."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    y = np.where(rng.random(50) < 0.5, 1, -1)
    weights = rng.random((50, 3))
    bank = OnlineLinear().init(3, 4)
    singles = [OnlineLinear().init(1, 4) for _ in range(3)]
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
    "params", [{}, {"loss": "hinge"}, {"loss": "squared", "adaptive": False}, {"learning_rate": 0.1}]
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
