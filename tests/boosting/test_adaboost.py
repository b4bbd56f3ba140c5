"""AdaBoost* ([RW05], docs/math.md#adaboostv): the weight of a round and the margin guarantee.

Independent checks: the best hard margin rho* of the whole class is LPBoost's value at nu = 1
computed by HiGHS and by Clarabel; the output's margin is recomputed from its columns.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting import boost
from dualboost.boosting.corrective.adaboost import adaboostv_max_iter, adaboostv_step
from dualboost.oracles import MatrixOracle
from dualboost.problems import LPBoost


def _hard_margin(U: np.ndarray) -> float:
    """rho* = max_{w in simplex} min_n (U w)_n, by two solvers."""
    highs = LPBoost(U, nu=1.0).solve(method="highs")
    clarabel = LPBoost(U, nu=1.0).solve(method="clarabel")
    assert highs.dual_value == pytest.approx(clarabel.dual_value, abs=1e-6)
    return highs.dual_value


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("tolerance", [0.2, 0.1, 0.05])
def test_margin_is_within_tolerance_of_the_hard_margin(seed, tolerance):
    rng = np.random.default_rng(seed)
    U = rng.choice([-1.0, 1.0], size=(40, 60))
    oracle = MatrixOracle(U, reflexive=True)
    rho = _hard_margin(np.hstack([U, -U]))
    assert rho > 0  # separable by the class: the guarantee says something
    result = boost("adaboostv", oracle, tolerance=tolerance)
    margin = float(np.min(np.asarray(result.columns, dtype=np.float64) @ result.weights))
    assert result.converged and result.n_iter <= adaboostv_max_iter(40, tolerance)
    assert rho - tolerance - 1e-12 <= margin <= rho + 1e-9
    assert margin == pytest.approx(result.margins.min(), abs=1e-12)
    # the stopping quantity: min edge - margin <= tolerance, and min edge >= rho* (max-edge oracle)
    assert result.history["stopping"][-1] <= tolerance
    assert result.history["edge"].min() >= rho - 1e-9


def test_real_valued_hypotheses():
    rng = np.random.default_rng(4)
    U = rng.uniform(-1.0, 1.0, size=(30, 25))
    rho = _hard_margin(np.hstack([U, -U]))
    result = boost("adaboostv", MatrixOracle(U, reflexive=True), tolerance=0.05)
    margin = float(np.min(np.asarray(result.columns) @ result.weights))
    assert result.converged and rho - 0.05 - 1e-12 <= margin <= rho + 1e-9


def test_the_weight_of_a_round():
    """[RW05]'s weight: (1/2) ln((1+g)/(1-g)) - (1/2) ln((1+rho)/(1-rho)), rho = min edge - tolerance."""
    for edge, min_edge, tol in [(0.3, 0.2, 0.1), (0.5, 0.5, 0.05), (0.9, 0.1, 1.0)]:
        rho = min_edge - tol
        expected = 0.5 * math.log((1 + edge) / (1 - edge)) - 0.5 * math.log((1 + rho) / (1 - rho))
        assert adaboostv_step(edge, min_edge, tol) == pytest.approx(expected, rel=1e-13)
        assert adaboostv_step(edge, min_edge, tol) > 0
    assert adaboostv_step(1.0, 0.4, 0.1) == math.inf
    # AdaBoost's weight is the case rho = 0
    assert adaboostv_step(0.3, 0.1, 0.1) == pytest.approx(0.5 * math.log(1.3 / 0.7))
    assert adaboostv_max_iter(100, 0.1) == math.ceil(200 * math.log(100))


def test_a_perfect_hypothesis_is_the_whole_output():
    U = np.column_stack([np.ones(10), np.where(np.arange(10) < 6, 1.0, -1.0)])
    result = boost("adaboostv", MatrixOracle(U), tolerance=0.1)
    assert result.converged and result.n_iter == 1 and result.weights == pytest.approx([1.0])
    # edge 1 (exactly, or to rounding: then its weight is finite and the margin 1 meets the rule)
    assert result.stop_reason == "converged"
    assert result.stop_detail in ("a hypothesis with edge 1", "min_q gamma_q - margin <= tolerance")


def test_no_positive_edge_is_not_converged():
    U = np.column_stack([np.where(np.arange(10) % 2 == 0, 1.0, -1.0)])
    with pytest.warns(ConvergenceWarning, match="no_edge"):
        result = boost("adaboostv", MatrixOracle(U), tolerance=0.1)
    assert not result.converged and result.stop_reason == "no_edge"


def test_max_iter_warns():
    U = np.random.default_rng(0).choice([-1.0, 1.0], size=(40, 60))
    with pytest.warns(ConvergenceWarning, match="adaboostv stopped at max_iter=3"):
        result = boost("adaboostv", MatrixOracle(U, reflexive=True), tolerance=0.01, max_iter=3)
    assert not result.converged and result.n_iter == 3


@pytest.mark.parametrize("tolerance", [0.0, -0.1, 1.5, float("nan"), "x"])
def test_bad_tolerance_is_named(tolerance):
    with pytest.raises(ValueError, match="tolerance"):
        boost("adaboostv", MatrixOracle(np.ones((4, 1))), tolerance=tolerance)
