"""The classifiers of MDBoost, CGBoost, NM-Boost and QRLP-Boost (:mod:`dualboost.estimators.formulations`);
scikit-learn's own checks run in tests/estimators/test_estimator_checks.py.

Independent checks: the fitted model against the driver run on the same oracle (the estimator only
maps labels and parameters), the margins against y times the decision function, the last stage
against the model, a resumed fit against an uninterrupted one.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import dump_svmlight_file, load_svmlight_file, make_classification

import dualboost
from dualboost.boosting import boost
from dualboost.estimators import CGBoostClassifier, MDBoostClassifier, NMBoostClassifier, QRLPBoostClassifier
from dualboost.oracles import DecisionStumps

CASES = [
    (MDBoostClassifier(D=2.0, eps=0.01), "mdboost", {"D": 2.0}),
    (CGBoostClassifier(C=0.5, eps=0.01), "cgboost", {"C": 0.5}),
    (NMBoostClassifier(lam=0.05, tau=0.02, eps=0.01), "nmboost", {"lam": 0.05, "tau": 0.02}),
    (QRLPBoostClassifier(nu=0.2, eps=0.05), "qrlpboost", {"nu": 24.0}),
]


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=120, n_features=6, n_informative=3, random_state=0)
    return X, np.where(y == 1, "spam", "ham")


@pytest.mark.parametrize("estimator, algorithm, params", CASES)
def test_fit_equals_the_driver(estimator, algorithm, params, data):
    X, y = data
    clf = clone(estimator).fit(X, y)
    labels = np.where(y == "spam", 1.0, -1.0)
    result = boost(algorithm, DecisionStumps().fit(X, labels), eps=estimator.eps, **params)
    assert list(clf.classes_) == ["ham", "spam"] and clf.converged_ == result.converged
    assert clf.hypotheses_ == result.hypotheses
    np.testing.assert_allclose(clf.estimator_weights_, result.weights, atol=1e-12)
    assert clf.estimator_weights_.sum() == pytest.approx(1.0) and np.all(clf.estimator_weights_ >= 0)
    assert clf.n_iter_ == result.n_iter == len(clf.history_)
    assert hasattr(clf, "nu_") == (algorithm == "qrlpboost")
    np.testing.assert_allclose(clf.margins(X, y), result.margins, atol=1e-12)
    assert clf.score(X, y) > 0.8
    last = list(clf.staged_decision_function(X))[-1]
    np.testing.assert_allclose(last, clf.decision_function(X), atol=1e-12)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean((proba[:, 1] > 0.5) == (clf.predict(X) == "spam")) > 0.99


@pytest.mark.parametrize("estimator, algorithm, params", CASES)
def test_checkpoint_resume(estimator, algorithm, params, data, tmp_path):
    X, y = data
    path = tmp_path / "run.ckpt"
    first = clone(estimator).set_params(checkpoint=str(path), checkpoint_every=3).fit(X, y)
    resumed = clone(estimator).set_params(checkpoint=str(path), checkpoint_every=3, resume=True).fit(X, y)
    assert resumed.hypotheses_ == first.hypotheses_
    np.testing.assert_allclose(resumed.decision_function(X), first.decision_function(X), atol=1e-9)


@pytest.mark.parametrize("estimator, algorithm, params", CASES)
def test_sample_weight(estimator, algorithm, params, data):
    X, y = data
    plain = clone(estimator).fit(X, y)
    equal = clone(estimator).fit(X, y, sample_weight=np.full(len(y), 3.0))
    np.testing.assert_allclose(equal.decision_function(X), plain.decision_function(X), atol=1e-12)
    zero = np.ones(len(y))
    zero[:10] = 0.0
    removed = clone(estimator).fit(X, y, sample_weight=zero)
    kept = clone(estimator).fit(X[10:], y[10:])
    np.testing.assert_allclose(removed.decision_function(X), kept.decision_function(X), atol=1e-12)
    unequal = np.r_[np.ones(60), 2 * np.ones(60)]

    def given(w):  # what the driver takes: QRLP-Boost the prior d0, the others example weights k
        return {"d0": w / w.sum()} if algorithm == "qrlpboost" else {"weights": w / w.mean()}

    weighted = clone(estimator).fit(X, y, sample_weight=unequal)
    scaled = clone(estimator).fit(X, y, sample_weight=5 * unequal)  # the scale does not matter
    np.testing.assert_allclose(scaled.decision_function(X), weighted.decision_function(X), atol=1e-12)
    labels = np.where(y == "spam", 1.0, -1.0)
    result = boost(algorithm, DecisionStumps().fit(X, labels), eps=estimator.eps, **given(unequal), **params)
    assert weighted.hypotheses_ == result.hypotheses
    np.testing.assert_allclose(weighted.estimator_weights_, result.weights, atol=1e-12)
    zero_and_unequal = unequal.copy()
    zero_and_unequal[:10] = 0.0
    kept = clone(estimator).fit(X, y, sample_weight=zero_and_unequal)
    kept_params = params | ({"nu": 0.2 * 110} if algorithm == "qrlpboost" else {})  # nu counts kept rows
    direct = boost(algorithm, DecisionStumps().fit(X[10:], labels[10:]), eps=estimator.eps,
                   **given(unequal[10:]), **kept_params)  # fmt: skip
    assert kept.hypotheses_ == direct.hypotheses


@pytest.mark.parametrize(
    "cls, params, name",
    [
        (MDBoostClassifier, {"D": 0.0}, "D"),
        (CGBoostClassifier, {"C": -1.0}, "C"),
        (NMBoostClassifier, {"lam": 0.0}, "lam"),
        (NMBoostClassifier, {"tau": "big"}, "tau"),
        (QRLPBoostClassifier, {"nu": 1.5}, "nu"),
        (QRLPBoostClassifier, {"eta": -1.0}, "eta"),
        (CGBoostClassifier, {"method": "simplex"}, "method"),
        (NMBoostClassifier, {"eps": 0.0}, "eps"),
    ],
)
def test_bad_parameters_name_the_argument(cls, params, name, data):
    with pytest.raises(ValueError, match=name):
        cls(**params).fit(*data)


def test_exported():
    for name in ("MDBoostClassifier", "CGBoostClassifier", "NMBoostClassifier", "QRLPBoostClassifier"):
        assert name in dualboost.__all__ and getattr(dualboost, name).__name__ == name


def _toy_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    path = tmp_path / "toy.libsvm"
    dump_svmlight_file(X, y, str(path))
    return path


@pytest.mark.parametrize(
    "algorithm, options, shown",
    [
        ("mdboost", ["--D", "2"], "D = 2"),
        ("cgboost", ["--C", "0.5"], "C = 0.5"),
        ("nmboost", ["--lam", "0.05", "--tau", "0.02"], "tau = 0.02"),
        ("qrlpboost", ["--nu", "0.2", "--eta", "50"], "eta = 50"),
    ],
)
def test_cli_boost_runs_each_formulation(algorithm, options, shown, tmp_path, capsys):
    """The run is the driver's, and its model file (``--save``) predicts as the run's ensemble."""
    from dualboost import cli
    from dualboost.estimators.persistence import load

    path, model = _toy_file(tmp_path), tmp_path / "m.model"
    argv = ["boost", str(path), "--quiet", "--algorithm", algorithm, "--eps", "0.05", "--save", str(model)]
    rc = cli.main([*argv, *options])
    out = capsys.readouterr().out
    assert rc == 0 and "(converged)" in out and shown in out
    X, y = load_svmlight_file(str(path))
    params = {"--D": "D", "--C": "C", "--lam": "lam", "--tau": "tau", "--eta": "eta"}
    given = {params[k]: float(v) for k, v in zip(options[::2], options[1::2], strict=True) if k in params}
    if algorithm == "qrlpboost":
        given["nu"] = 0.2 * 60
    result = boost(algorithm, DecisionStumps().fit(X, y), eps=0.05, **given)
    assert f"iterations:   {result.n_iter}\n" in out
    saved = load(model)
    assert type(saved).__name__.lower() == algorithm.replace("boost", "boostclassifier")
    assert all(saved.get_params()[name] == value for name, value in given.items() if name != "nu")
    np.testing.assert_allclose(saved.decision_function(X), result.decision_function(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "options, message",
    [
        (["--algorithm", "nmboost", "--D", "2"], "--D does not apply to nmboost"),
        (["--algorithm", "mdboost", "--nu", "0.2"], "--nu does not apply to mdboost"),
        (["--algorithm", "cgboost", "--method", "auglag"], "--method auglag does not apply to cgboost"),
        (["--algorithm", "mdboost", "--method", "highs"], "--method highs does not apply to mdboost"),
        (["--algorithm", "cgboost", "--C", "-1"], "--C: The 'C' parameter of CGBoostClassifier must be"),
    ],
)
def test_cli_boost_refuses_what_does_not_apply(options, message, tmp_path, capsys):
    from dualboost import cli

    assert cli.main(["boost", str(_toy_file(tmp_path)), "--quiet", *options]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
