"""What every driver returns: the result, the history and its CSV, the timing, argument checks.

Independent checks: the columns of the result are recomputed from the hypotheses' predictions on
the training data, the margins from the decision function, and the CSV is parsed back with the
csv module.
"""

from __future__ import annotations

import csv
import inspect
import io
import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting import ALGORITHMS, History, boost
from dualboost.boosting.core.history import HISTORY_FIELDS
from dualboost.boosting.core.stopping import corrective_max_iter, erlpboost_max_iter, softboost_max_iter
from dualboost.oracles import DecisionStumps, MatrixOracle
from dualboost.problems import erlpboost_eta


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).permutation(X.shape[0])[:150]
    return X[rows], np.where(y[rows] == 1, 1.0, -1.0)


@pytest.fixture(scope="module")
def oracle(data):
    return DecisionStumps().fit(*data)


PARAMS = {
    "lpboost": {"nu": 15.0, "eps": 0.1},
    "softboost": {"nu": 15.0, "eps": 0.1},
    "erlpboost": {"nu": 15.0, "eps": 0.05},
    "binary_erlpboost": {"nu": 15.0, "eps": 0.05},
    "corrective_erlpboost": {"nu": 15.0, "eps": 0.1},
    "corrective_binary_erlpboost": {"nu": 15.0, "eps": 0.1},
    "adaboost": {"max_iter": 50},
    "mdboost": {"D": 1.0, "eps": 0.01},
    "cgboost": {"C": 1.0, "eps": 0.01},
    "nmboost": {"lam": 0.01, "tau": 0.01, "eps": 0.01},
    "qrlpboost": {"nu": 15.0, "eps": 0.05},
    "mlpboost": {"nu": 15.0, "eps": 0.1},
    "adaboostv": {"tolerance": 0.1},
    "smoothboost": {"kappa": 0.1, "gamma": 0.1},
    "tempered_erlpboost": {"nu": 15.0, "eps": 0.05, "t": 0.5},
    "t_adaboost": {"max_iter": 50, "t": 0.5},
}


@pytest.fixture(scope="module")
def results(oracle):
    return {name: boost(name, oracle, **params) for name, params in PARAMS.items()}


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_result_is_consistent_with_its_hypotheses(algorithm, results, data):
    X, y = data
    result = results[algorithm]
    assert result.algorithm == algorithm
    assert result.converged or algorithm in ("adaboost", "t_adaboost")
    T = result.n_hypotheses
    assert len(result.hypotheses) == T == result.weights.size == result.columns.shape[1]
    assert np.all(result.weights >= 0) and result.weights.sum() == pytest.approx(1.0, abs=1e-9)
    for q, hypothesis in enumerate(result.hypotheses):  # u^q = y * h^q(X)
        np.testing.assert_array_equal(result.columns[:, q], y * hypothesis.predict(X))
    np.testing.assert_allclose(result.margins, y * result.decision_function(X), atol=1e-12)
    assert result.n_nonzero == np.count_nonzero(result.weights > 0) >= 1
    assert result.d.shape == (X.shape[0],)
    # MDBoost's pricing vector 1/D - U v is signed: its result.d is scaled to sum |d| = 1
    assert (np.abs(result.d) if algorithm == "mdboost" else result.d).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_history_rows_and_timing(algorithm, results):
    result = results[algorithm]
    history = result.history
    assert len(history) == result.n_iter
    np.testing.assert_array_equal(history["iteration"], np.arange(1, result.n_iter + 1))
    assert np.all(np.diff(history["time"]) >= 0)
    assert history["oracle_time"].sum() == pytest.approx(result.oracle_time)
    assert history["solve_time"].sum() == pytest.approx(result.solver_time)
    assert result.oracle_time + result.solver_time <= result.total_time
    solved = np.isfinite(history["gap"])
    np.testing.assert_allclose(history["gap"][solved], (history["primal"] - history["dual"])[solved])
    assert np.all(history["gap"][solved] >= -1e-9)  # certified: weak duality
    if np.isfinite(history.threshold) and result.converged:
        assert history["stopping"][-1] <= history.threshold + 1e-12 or algorithm == "softboost"


def test_history_csv_round_trip(results, tmp_path):
    history = results["erlpboost"].history
    path = tmp_path / "history.csv"
    text = history.to_csv(path)
    assert path.read_text() == text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == HISTORY_FIELDS
    assert len(rows) == len(history)
    for row, original in zip(rows, history, strict=True):
        for name in HISTORY_FIELDS:
            value = getattr(original, name)
            if isinstance(value, float) and math.isnan(value):
                assert row[name] == ""
            else:
                assert float(row[name]) == value  # 17 significant digits: exact
    assert rows[-1]["primal"] == ""  # the stopping iteration of ERLPBoost does not re-solve


def test_history_columns_by_name():
    history = History("test", 0.5)
    with pytest.raises(KeyError, match="no history column 'nope'"):
        history["nope"]
    assert len(history["edge"]) == 0 and "test" in repr(history)


def test_callback_sees_every_row(oracle):
    rows = []
    result = boost("erlpboost", oracle, nu=15.0, eps=0.1, callback=rows.append)
    assert rows == list(result.history)


def test_max_iter_warns_and_reports(oracle):
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        result = boost("erlpboost", oracle, nu=15.0, eps=0.01, max_iter=3)
    assert not result.converged and result.n_iter == 3 and result.stop_reason == "max_iter"
    assert result.n_hypotheses == 3  # every iteration was solved: nothing is discarded


def test_erlpboost_output_discards_the_last_hypothesis(results):
    result = results["erlpboost"]
    assert result.n_hypotheses == result.n_iter - 1
    assert result.params["eta"] == pytest.approx(2 / 0.05 * math.log(150 / 15.0))


@pytest.mark.parametrize("n, nu, eps", [(600, 1.0, 0.01), (100, 10.0, 0.1), (50, 49.0, 0.5)])
def test_iteration_caps_are_the_theorems(n, nu, eps):
    """At the canonical eta, the eta-form caps equal the printed bounds (+1 for the discarded
    iteration): Thm 3.10, 3.12 (ERLPBoost), 3.21 (Binary), Thm 3.2 (SoftBoost)."""
    log = math.log(n / nu)
    eta = erlpboost_eta(n, nu, eps)
    eta_binary = erlpboost_eta(n, nu, eps, binary=True)
    assert erlpboost_max_iter(eta, eps, "simple") == math.ceil(max(32 / eps**2 * log, 8 / eps) - 1e-9) + 1
    assert erlpboost_max_iter(eta, eps, "practical") == math.ceil(max(64 / eps**2 * log, 16 / eps) - 1e-9) + 1
    assert (
        erlpboost_max_iter(eta_binary, eps, "simple")
        == math.ceil(max(32 / eps**2 * (log + 1), 8 / eps) - 1e-9) + 1
    )
    assert softboost_max_iter(n, nu, eps) == max(1, math.ceil(2 / eps**2 * log))
    assert corrective_max_iter(eta, eps) == erlpboost_max_iter(eta, eps, "practical")


@pytest.mark.parametrize(
    "params, name",
    [
        ({"nu": 0.5}, "nu"),
        ({"nu": 1e6}, "nu"),
        ({"eps": 0.0}, "eps"),
        ({"eps": "a"}, "eps"),
        ({"eta": -1.0}, "eta"),
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"criterion": "fast"}, "criterion"),
        ({"method": "simplex"}, "method"),
    ],
)
def test_bad_arguments_name_the_argument(oracle, params, name):
    with pytest.raises(ValueError, match=name):
        boost("erlpboost", oracle, **params)


def test_bad_oracle_and_algorithm(data):
    with pytest.raises(ValueError, match="oracle must be fitted"):
        boost("lpboost", DecisionStumps())
    with pytest.raises(ValueError, match="oracle must be a dualboost oracle"):
        boost("lpboost", object())
    with pytest.raises(ValueError, match="algorithm must be one of"):
        boost("xgboost", DecisionStumps().fit(*data))


def test_binary_algorithms_need_nu_below_n(oracle):
    with pytest.raises(ValueError, match=r"nu must lie in \[1, N\)"):
        boost("binary_erlpboost", oracle, nu=150.0)
    with pytest.raises(ValueError, match=r"nu must lie in \[1, N\)"):
        boost("corrective_binary_erlpboost", oracle, nu=150.0)


#: the drivers without a soft-margin stopping rule: one hypothesis of margin -1 never meets theirs
_HARD_OR_SMOOTH = ("adaboost", "adaboostv", "smoothboost", "t_adaboost")


@pytest.mark.parametrize("algorithm", [a for a in ALGORITHMS if a not in _HARD_OR_SMOOTH])
def test_a_reselected_hypothesis_ends_the_run(algorithm):
    """A class of one hypothesis: the oracle can only re-select it, and every stopping rule fires
    (its edge cannot beat the current solution), with that hypothesis as the whole output."""
    column = np.where(np.arange(20) < 14, 1.0, -1.0)
    capped = "nu" in inspect.signature(ALGORITHMS[algorithm]).parameters  # not MDBoost, CGBoost, NM-Boost
    result = boost(algorithm, MatrixOracle(column[:, None]), eps=0.05, **({"nu": 2.0} if capped else {}))
    assert result.converged and result.n_hypotheses == 1
    assert result.weights == pytest.approx([1.0])
    assert result.n_iter <= (3 if algorithm != "softboost" else 40)
