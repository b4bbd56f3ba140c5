"""Every run says why it stopped (``BoostResult.stop_reason``, ``stop_reason_``), and
a run that ends before its stopping rule is met warns with the reason."""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from sklearn.exceptions import ConvergenceWarning

import dualboost.estimators as estimators
from dualboost import cli
from dualboost.boosting import boost
from dualboost.boosting.algorithms import ALGORITHMS
from dualboost.boosting.maboost.drivers import maboost, madaboost, sparseboost
from dualboost.oracles import MatrixOracle

pytestmark = pytest.mark.filterwarnings("ignore::dualboost.boosting.core.run.SoftMarginWarning")

#: the vocabulary: a test of its own, so that a renamed word is a visible change
VOCABULARY = {
    "converged", "infeasible", "rounds", "no_edge", "max_iter", "time limit", "precision_floor", "reselected"
}


def _random_edges(seed: int = 0, n: int = 30, q: int = 12) -> np.ndarray:
    return np.random.default_rng(seed).choice([-1.0, 1.0], size=(n, q))


def _toy(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)


def _fit_recording(make, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = make().fit(X, y)
    return model, [w for w in caught if issubclass(w.category, ConvergenceWarning)]


def test_the_vocabulary_is_the_documented_one():
    from dualboost.boosting.core.result import STOP_REASONS

    assert set(STOP_REASONS) == VOCABULARY


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
@pytest.mark.parametrize("max_iter", [2, 400])
def test_every_driver_reports_a_word_and_warns_when_unconverged(algorithm, max_iter):
    oracle = MatrixOracle(_random_edges(), reflexive=True)
    params = {"max_iter": max_iter}
    uncapped = ("adaboost", "adaboostv", "smoothboost", "mdboost", "cgboost", "nmboost", "t_adaboost")
    if algorithm not in uncapped:
        params["nu"] = 3.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = boost(algorithm, oracle, **params)
    assert result.stop_reason in VOCABULARY
    warned = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    if result.converged or result.stop_reason == "rounds":
        assert not warned
    else:
        assert len(warned) == 1 and repr(result.stop_reason) in str(warned[0].message)
    if result.stop_reason == "max_iter":
        assert result.n_iter == max_iter and not result.converged


@pytest.mark.parametrize("driver", [maboost, sparseboost, madaboost])
def test_the_mirror_descent_drivers_report_rounds_or_a_stop(driver):
    result = driver(MatrixOracle(_random_edges(1), reflexive=True), max_iter=5)
    assert result.stop_reason in VOCABULARY
    assert result.stop_reason in ("rounds", "converged", "no_edge")


#: the estimators that run a boosting driver: not ReweightedClassifier (one certified solve, no run)
#: nor the online learners (no stopping rule: they learn every example they are given)
RUNS = sorted(
    name
    for name in estimators.__all__
    if isinstance(getattr(estimators, name), type)
    and name not in ("ReweightedClassifier", "OnlineBBMClassifier", "AdaBoostOLClassifier")
)


@pytest.mark.parametrize("name", RUNS)
def test_every_fitted_estimator_has_a_stop_reason(name):
    cls = getattr(estimators, name)
    X, y = _toy(0, 40)
    options = {"nus": [0.2, 0.5], "cv": 2} if name.endswith("CV") else {}
    options |= {"max_iter": 20} if "max_iter" in cls().get_params() else {}
    model, _ = _fit_recording(lambda: cls(**options), X, y)
    assert model.stop_reason_ in VOCABULARY


def test_erlpboost_at_an_unreachable_eps_stops_at_its_precision_floor_and_says_so():
    # once stopped after 6 iterations with converged_ False, no warning and no reason. A fixed nu
    # (the loose capping the former nu="auto" gave): the validation search of nu="auto" would run its
    # grid at eps = 1e-12 too (70 s)
    X, y = _toy(1, 60)
    model, warned = _fit_recording(
        lambda: estimators.ERLPBoostClassifier(nu=0.8, eps=1e-12, max_iter=30), X, y
    )
    assert model.stop_reason_ == "precision_floor" and not model.converged_ and model.n_iter_ < 30
    assert len(warned) == 1 and "precision_floor" in str(warned[0].message)
    # the reason is true: the last certified gap is far above the eps/4 that the criterion needs
    assert float(model.history_["gap"][-2]) > 1e-12 / 4


def test_qrlpboost_below_the_bias_bound_warns_at_fit_time_and_stops_at_its_fixed_point():
    X, y = _toy(0, 100)
    n, nu, eps = 100, 10.0, 0.01
    eta = math.log(n) / 0.495  # colboost's eta, far below ln(N/nu)/eps
    bound = math.log(n / nu) / eps
    model, warned = _fit_recording(lambda: estimators.QRLPBoostClassifier(nu=0.1, eta=eta, eps=eps), X, y)
    assert len(warned) == 2
    first = str(warned[0].message)
    assert f"eta = {eta:.4g}" in first and f"{bound:.4g}" in first
    assert model.stop_reason_ == "reselected" and not model.converged_
    assert "reselected" in str(warned[1].message)
    assert model.n_iter_ < 1000  # was: max_iter = 1000 iterations re-selecting the same hypotheses


def test_qrlpboost_fixed_point_really_cannot_progress(monkeypatch):
    """The run stopped as "reselected" gives the weights that 100 more iterations give (the fixed-point
    test switched off): they were spent for nothing."""
    from dualboost.boosting.totally_corrective import formulations

    X, y = _toy(0, 100)
    oracle = estimators.base.make_oracle("stumps").fit(X, np.where(y > 0, 1.0, -1.0))
    eta = math.log(100) / 0.495
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        stopped = formulations.qrlpboost(oracle, nu=10.0, eta=eta)
        monkeypatch.setattr(formulations, "QRLP_FIXED_POINT", -1.0)
        longer = formulations.qrlpboost(oracle, nu=10.0, eta=eta, max_iter=stopped.n_iter + 100)
    assert stopped.stop_reason == "reselected" and longer.stop_reason == "max_iter"
    assert longer.n_hypotheses == stopped.n_hypotheses
    # the auglag re-solves are certified to a relative gap of eps/8; the weights agree far below it
    assert longer.weights == pytest.approx(stopped.weights, abs=1e-6)
    assert longer.soft_margin == pytest.approx(stopped.soft_margin, abs=1e-8)


def test_qrlpboost_at_the_bound_does_not_warn_at_fit_time():
    X, y = _toy(0, 100)
    eta = math.log(10.0) / 0.01  # exactly ln(N/nu)/eps: the bias bound meets eps
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimators.QRLPBoostClassifier(nu=0.1, eta=eta, max_iter=3).fit(X, y)
    assert not any("is below ln(1/(nu min d0))/eps" in str(w.message) for w in caught)


def test_gradient_budget_is_rounds_and_tol_unmet_is_max_iter():
    X, y = _toy(0, 40)
    model, warned = _fit_recording(lambda: estimators.GradientProjectionClassifier(n_estimators=3), X, y)
    assert model.stop_reason_ == "rounds" and not warned
    model, warned = _fit_recording(
        lambda: estimators.GradientProjectionClassifier(n_estimators=3, tol=1e-12), X, y
    )
    assert model.stop_reason_ == "max_iter" and len(warned) == 1


def test_the_stop_reason_survives_a_model_file(tmp_path):
    X, y = _toy(0, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = estimators.LPBoostClassifier(nu=0.2, max_iter=2).fit(X, y)
    assert model.stop_reason_ == "max_iter"
    assert estimators.load(model.save(tmp_path / "m.model")).stop_reason_ == "max_iter"


def test_the_cli_summary_prints_the_reason(tmp_path, capsys):
    X, y = _toy(0, 60)
    path = tmp_path / "toy.libsvm"
    dump_svmlight_file(X, y, str(path))
    model = tmp_path / "m.model"
    argv = ["boost", str(path), "--algorithm", "lpboost", "--nu", "0.1", "--max-iter", "2", "--quiet"]
    assert cli.main([*argv, "--save", str(model)]) == 0
    out = capsys.readouterr().out
    assert "stopped:      max_iter: max_iter=2 (NOT converged)" in out
    saved = estimators.load(model)
    assert saved.stop_reason_ == "max_iter"
    assert saved.class_prior_ == pytest.approx([np.mean(y < 0), np.mean(y > 0)])
