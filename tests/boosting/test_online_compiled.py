"""The compiled online loop and banks (docs/architecture.md#compiled-code) against their
Python reference.

Each test runs the same stream with the same seed twice, once with ``OnlineBooster.compiled = False``
(the Python loop of ``learn_row``, the reference) and once in ``dualboost.boosting.online._loop``, and
asserts the same predictions (on the stream and on held-out rows), the same mistakes and random draws,
and the same state to 1e-12. Why 1e-12 and not bit-for-bit: numpy's vectorised ``exp`` and BLAS's
``dot`` round differently from libm and a sequential sum (1 ulp per operation); over a stream of
~1,000 examples such differences stay near 1e-15 on these well-conditioned learners.

Not compared: plain (non-adaptive) steps of the hinge, squared and modified Huber losses at a rate
where the updates are unstable (rate * ||x||² > 2, the squared loss diverges) or land the scores on
the loss's kink (m = 1) in inexact arithmetic: there the order of a floating sum decides a side, and
either path also parts from itself under another BLAS. At stable rates they agree (below).
"""

from __future__ import annotations

import decimal
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import wrightomega

from dualboost.boosting.online import AdaBoostOL, OnlineBBM, drivers
from dualboost.boosting.online.drivers import OnlineBooster
from dualboost.estimators.online import AdaBoostOLClassifier, OnlineBBMClassifier
from dualboost.oracles.online import OnlineLinear, OnlineStumps

# the learners of the comparison: every update option, each loss (plain steps at stable rates)
LEARNERS = [
    {},
    {"loss": "modified_huber", "normalized": True, "invariant": True, "learning_rate": 0.25},
    {"loss": "logistic", "invariant": True},
    {"loss": "logistic", "invariant": True, "adaptive": False, "normalized": True},
    {"loss": "hinge", "normalized": True},
    {"loss": "squared", "invariant": True},
    {"loss": "squared", "adaptive": False, "learning_rate": 0.01},
    {"loss": "modified_huber", "adaptive": False, "learning_rate": 0.05},
    {"loss": "hinge", "adaptive": False, "learning_rate": 0.01, "normalized": True, "invariant": True},
]
BOOSTERS = [
    (OnlineBBMClassifier, "importance"),
    (OnlineBBMClassifier, "sampling"),
    (AdaBoostOLClassifier, "importance"),
    (AdaBoostOLClassifier, "sampling"),
]


def _stream(seed: int = 0, n: int = 1200, p: int = 40) -> tuple[sp.csr_matrix, np.ndarray]:
    """A sparse stream whose rows are binary (the fast path of OnlineLinear.rows) or real-valued,
    with features on different scales (the ``normalized`` statistics) and a linear signal."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.15, random_state=rng, format="csr")
    X.data = np.where(rng.random(X.nnz) < 0.5, 1.0, rng.normal(size=X.nnz) * 3.0)
    X = sp.csr_matrix(X.multiply(rng.uniform(0.5, 2.0, p)))
    binary = rng.random(n) < 0.4  # whole rows of ones
    for r in np.flatnonzero(binary):
        X.data[X.indptr[r] : X.indptr[r + 1]] = 1.0
    score = X @ rng.normal(size=p) + 0.3 * rng.normal(size=n)
    return X, np.where(score > 0, 1, -1)


def _fit_both(make, X, y, monkeypatch, **fit):
    """(reference, compiled) estimators fitted on the same stream with the same seed."""
    monkeypatch.setattr(OnlineBooster, "compiled", False)
    reference = make().fit(X, y, **fit)
    monkeypatch.setattr(OnlineBooster, "compiled", True)
    compiled = make().fit(X, y, **fit)
    assert compiled.booster_._compiled_kernel() is not None  # this run took the compiled loop
    return reference, compiled


def _assert_same(reference, compiled, X_test) -> None:
    a, b = reference.booster_, compiled.booster_
    np.testing.assert_array_equal(reference.predict(X_test), compiled.predict(X_test))
    assert a.mistakes == pytest.approx(b.mistakes, rel=1e-12)
    assert a.n_seen == b.n_seen and a.weight_seen == pytest.approx(b.weight_seen, rel=1e-12)
    assert a.rng.bit_generator.state == b.rng.bit_generator.state  # the same random draws
    if isinstance(a.learners, OnlineStumps):
        np.testing.assert_allclose(b.learners.E, a.learners.E, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(b.learners._best, a.learners._best)
        np.testing.assert_array_equal(b.learners._sign, a.learners._sign)
    else:
        np.testing.assert_allclose(b.learners.state, a.learners.state, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(b.learners.scale, a.learners.scale)
        assert b.learners.n_normalized == a.learners.n_normalized
        assert b.learners.total_norm == pytest.approx(a.learners.total_norm, rel=1e-12)
    np.testing.assert_allclose(b.edges, a.edges, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(b.last_predictions, a.last_predictions)
    np.testing.assert_allclose(b.last_weights, a.last_weights, rtol=1e-12)
    np.testing.assert_allclose(b.last_probabilities, a.last_probabilities, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(b.last_passed, float), np.asarray(a.last_passed, float), rtol=1e-12)
    if isinstance(a, AdaBoostOL):
        np.testing.assert_allclose(b.alpha, a.alpha, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(b.log_v, a.log_v, rtol=1e-12, atol=1e-12)
    rows_a, rows_b = reference.history_.rows, compiled.history_.rows
    assert [r.iteration for r in rows_a] == [r.iteration for r in rows_b]
    np.testing.assert_allclose([r.edge for r in rows_b], [r.edge for r in rows_a], rtol=1e-12, atol=1e-15)
    assert [r.stopping for r in rows_b] == pytest.approx([r.stopping for r in rows_a], rel=1e-12)


@pytest.mark.parametrize("cls, weighting", BOOSTERS)
@pytest.mark.parametrize("params", LEARNERS)
def test_compiled_loop_equals_the_python_loop(cls, weighting, params, monkeypatch):
    X, y = _stream()
    X_test, _ = _stream(seed=1, n=300)

    def make():
        return cls(n_learners=6, learner=OnlineLinear(**params), weighting=weighting, random_state=3)

    reference, compiled = _fit_both(make, X, y, monkeypatch)
    _assert_same(reference, compiled, X_test)


@pytest.mark.parametrize("cls, weighting", BOOSTERS)
@pytest.mark.parametrize("dense", [False, True])
def test_compiled_stumps_equal_the_python_stumps(cls, weighting, dense, monkeypatch):
    """The OnlineStumps bank (thresholds from the first batch, sparse rows: absent features are 0)."""
    X, y = _stream(seed=9, n=800, p=12)
    X_test, _ = _stream(seed=10, n=200, p=12)
    if dense:
        X, X_test = X.toarray(), X_test.toarray()

    def make():
        return cls(n_learners=5, learner=OnlineStumps(n_thresholds=4), weighting=weighting, random_state=2)

    reference, compiled = _fit_both(make, X, y, monkeypatch)
    _assert_same(reference, compiled, X_test)


@pytest.mark.parametrize("cls, weighting", BOOSTERS)
def test_compiled_loop_with_importance_weights_dense_rows_and_callbacks(cls, weighting, monkeypatch):
    """Importance weights (sample_weight), dense input (zeros included in the reference's rows) and
    the history's callback every 1,000 examples across the 1,024-example blocks of random numbers."""
    X, y = _stream(seed=4, n=2500, p=12)
    weights = np.random.default_rng(5).uniform(0.1, 3.0, y.size)
    dense = X.toarray()

    def make():
        learner = OnlineLinear(loss="modified_huber", normalized=True, invariant=True, learning_rate=0.25)
        return cls(n_learners=5, learner=learner, weighting=weighting, random_state=7)

    reference, compiled = _fit_both(make, dense, y, monkeypatch, sample_weight=weights)
    assert len(compiled.history_.rows) == 3
    _assert_same(reference, compiled, dense[:200])


@pytest.mark.parametrize("cls", [OnlineBBMClassifier, AdaBoostOLClassifier])
def test_compiled_partial_fit_learn_one_and_pickle_continue_the_same_stream(cls, monkeypatch):
    """partial_fit in chunks, learn_one on dict rows and a pickled model continue the stream exactly
    as the reference does."""
    X, y = _stream(seed=6, n=900, p=15)
    runs = []
    for compiled in (False, True):
        monkeypatch.setattr(OnlineBooster, "compiled", compiled)
        clf = cls(n_learners=4, learner=OnlineLinear(normalized=True, invariant=True), random_state=1)
        clf.partial_fit(X[:400], y[:400], classes=[-1, 1])
        clf = pickle.loads(pickle.dumps(clf))
        clf.partial_fit(X[400:700], y[400:700])
        for r in range(700, 900):
            row = X[r]
            clf.learn_one(dict(zip(row.indices.tolist(), row.data.tolist(), strict=True)), y[r])
        runs.append(clf)
    _assert_same(*runs, X)


def test_the_compiled_modules_are_built():
    """CI runs the compiled path: the extensions exist in an installed tree (no skip), and the
    boosters of the estimators pick them up for OnlineLinear."""
    from dualboost.boosting.online import _loop
    from dualboost.oracles import _online

    assert callable(_loop.learn_rows) and callable(_online.LinearKernel)
    for booster in (OnlineBBM(OnlineLinear(), 3), AdaBoostOL(OnlineLinear(), 3)):
        booster.start(4)
        assert isinstance(booster._compiled_kernel(), _online.LinearKernel)
    booster = AdaBoostOL(OnlineStumps(), 3).start(4)
    assert isinstance(booster._compiled_kernel(), _online.StumpKernel)


def test_compiled_loop_rejects_rows_it_cannot_read():
    """The compiled loop indexes the bank's arrays without bounds checks: wider rows and labels other
    than -1/+1 raise a ValueError naming the argument before it starts (the estimators check both
    earlier; this guards direct use of the booster)."""
    X, y = _stream(seed=11, n=50, p=10)
    booster = OnlineBBM(OnlineLinear(), 3).start(8)
    with pytest.raises(ValueError, match="X has 10 features, but the learners were started on 8"):
        booster.learn_many(X, y)
    booster = AdaBoostOL(OnlineLinear(), 3).start(10)
    with pytest.raises(ValueError, match="y must hold labels in"):
        booster.learn_many(X, np.where(y > 0, 1, 0))
    assert booster.n_seen == 0


def test_without_the_build_the_python_loop_runs_with_one_warning(monkeypatch):
    X, y = _stream(seed=8, n=300, p=10)
    reference = OnlineBBM(OnlineLinear(), 4).start(10)
    reference.compiled = False
    expected = reference.learn_many(X, y)
    monkeypatch.setattr(drivers, "_loop", None)
    monkeypatch.setattr(drivers, "_warned_missing", False)
    booster = OnlineBBM(OnlineLinear(), 4).start(10)
    with pytest.warns(RuntimeWarning, match="compiled online loop .* is not built"):
        got = booster.learn_many(X, y)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(booster.learners.state, reference.learners.state)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        booster.learn_many(X, y)  # once per process


def _omega_decimal(x: float) -> float:
    """omega(x), the root of w + ln w = x, by Newton's method in 50-digit decimal arithmetic (from
    w = e^x below 1, x - ln x above: the iteration is monotone from there)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        X = decimal.Decimal(x)
        w = X.exp() if x < 1 else X - X.ln()
        for _ in range(200):
            step = (w + w.ln() - X) * w / (w + 1)
            w -= step
            if abs(step) <= w * decimal.Decimal("1e-45"):
                break
        return float(w)


def test_compiled_wright_omega_matches_extended_precision():
    """The Wright omega of the logistic invariant update against a 50-digit Newton solve of
    w + ln w = x, over the range the update meets (c = m + e^m + tau), and against scipy's
    ``wrightomega``. Tolerance: the condition number of omega at x is |x| / (1 + omega) (an input
    rounded by eps/2 moves omega by that many half-ulps), plus 4 ulp for the evaluation."""
    from dualboost.oracles._online import wright_omega

    x = np.concatenate([np.linspace(-700, 50, 301), np.geomspace(50, 1e6, 60), [-2.0, 1.0, 0.0, -50.0]])
    got = np.array([wright_omega(v) for v in x])
    exact = np.array([_omega_decimal(v) for v in x])
    eps = np.finfo(float).eps
    tolerance = (np.abs(x) / (1.0 + exact) + 4.0) * eps
    assert np.all(np.abs(got - exact) <= tolerance * exact)
    assert np.all(np.abs(got - wrightomega(x)) <= 2 * tolerance * exact)
    assert wright_omega(1e25) == 1e25 and wright_omega(-800.0) == 0.0 and np.isnan(wright_omega(np.nan))
