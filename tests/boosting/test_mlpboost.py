"""MLPBoost ([MHT22], docs/math.md#mlpboost): every iteration takes the better, by the regularised
dual, of the Frank-Wolfe iterate and LPBoost's solution over the hypotheses so far.

Independent checks: each iteration is replayed from the recorded stages: the Frank-Wolfe candidate
is recomputed from the previous weights, LPBoost's value over the same columns by Clarabel (its w
is not unique, its value is), the dual values by the ``ERLPBoost`` model; the stop is certified
against the regularised optimum over the whole class computed by Clarabel.
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.boosting import boost
from dualboost.boosting.core.stopping import corrective_max_iter
from dualboost.boosting.corrective.frank_wolfe import STEPS, clipped_step
from dualboost.oracles import MatrixOracle
from dualboost.problems import ERLPBoost, LPBoost

N, NU, ETA, EPS = 40, 4.0, 8.0, 0.1


@pytest.fixture(scope="module")
def instance():
    rng = np.random.default_rng(21)
    full = rng.uniform(-1.0, 1.0, size=(N, 50))
    oracle = MatrixOracle(full)
    result = boost("mlpboost", oracle, nu=NU, eps=EPS, eta=ETA, keep_stages=True)
    return full, oracle, result


def _soft_margin(margins: np.ndarray, nu: float) -> float:
    """The mean of the nu smallest margins (integer nu), the LP's value at its w."""
    return float(np.sort(margins)[: int(nu)].mean())


def test_each_iteration_takes_the_better_of_frank_wolfe_and_the_lp(instance):
    full, oracle, result = instance
    columns = np.asarray(result.columns, dtype=np.float64)
    K = columns.shape[1]
    stages = [result.stages.weights(s, K) for s in range(1, len(result.stages) + 1)]
    index = {h: q for q, h in enumerate(result.hypotheses)}
    model = ERLPBoost(columns, nu=NU, eta=ETA)
    taken_lp = 0
    k = 1
    for s in range(1, len(stages)):
        w_prev, w_new = stages[s - 1], stages[s]
        d = model.d_from_w(w_prev)
        q = index[oracle.best(d).hypothesis]
        k = max(k, q + 1)
        m = columns @ w_prev
        alpha = clipped_step(columns[:, q] - m, d, ETA)
        fw = (1.0 - alpha) * w_prev
        fw[q] += alpha
        value_new, value_fw = model.dual_objective(w_new), model.dual_objective(fw)
        assert value_new >= value_fw - 1e-10  # never worse than the Frank-Wolfe iterate
        assert np.all(w_new >= 0) and w_new.sum() == pytest.approx(1.0, abs=1e-12)
        if not np.allclose(w_new, fw, atol=1e-9):  # then it is an optimum of the LP over the k columns
            taken_lp += 1
            assert np.all(w_new[k:] == 0)
            lp = LPBoost(columns[:, :k], nu=NU).solve(method="clarabel")
            assert _soft_margin(columns @ w_new, NU) == pytest.approx(lp.dual_value, abs=1e-6)
            assert value_new > value_fw
    assert taken_lp == result.params["lp_steps"] and taken_lp >= 1


def test_the_dual_never_decreases_and_the_stop_is_certified(instance):
    full, _, result = instance
    assert result.converged and result.n_iter <= corrective_max_iter(ETA, EPS)
    duals = result.history["dual"][np.isfinite(result.history["dual"])]
    assert np.all(np.diff(duals) >= -1e-12)
    optimum = ERLPBoost(full, nu=NU, eta=ETA).solve(method="clarabel")
    value = ERLPBoost(np.asarray(result.columns, dtype=np.float64), nu=NU, eta=ETA).dual_objective(
        result.weights
    )
    assert optimum.primal_value - value <= EPS / 2 + 1e-6 and value <= optimum.primal_value + 1e-6


@pytest.mark.parametrize("step", STEPS)
def test_every_step_rule_stops_certified(step):
    rng = np.random.default_rng(8)
    full = rng.uniform(-1.0, 1.0, size=(N, 50))
    result = boost("mlpboost", MatrixOracle(full), nu=NU, eps=EPS, eta=ETA, step=step)
    assert result.converged and result.history["stopping"][-1] <= EPS / 2
    optimum = ERLPBoost(full, nu=NU, eta=ETA).solve(method="clarabel").primal_value
    value = ERLPBoost(np.asarray(result.columns, dtype=np.float64), nu=NU, eta=ETA).dual_objective(
        result.weights
    )
    assert optimum - value <= EPS / 2 + 1e-6


def test_mlpboost_is_no_slower_than_corrective_erlpboost_here():
    """Both take the clipped step; MLPBoost's iterates are at least as good, so on this instance it
    stops no later (not a theorem about the trajectories: a measurement, recorded here)."""
    rng = np.random.default_rng(9)
    full = rng.uniform(-1.0, 1.0, size=(N, 50))
    mlp = boost("mlpboost", MatrixOracle(full), nu=NU, eps=EPS, eta=ETA)
    corrective = boost("corrective_erlpboost", MatrixOracle(full), nu=NU, eps=EPS, eta=ETA)
    assert mlp.converged and corrective.converged and mlp.n_iter <= corrective.n_iter


def test_bad_arguments_are_named():
    oracle = MatrixOracle(np.random.default_rng(0).uniform(-1, 1, size=(10, 4)))
    with pytest.raises(ValueError, match="step must be one of"):
        boost("mlpboost", oracle, nu=2.0, eps=0.1, step="lp")
    with pytest.raises(ValueError, match="nu"):
        boost("mlpboost", oracle, nu=20.0, eps=0.1)
    with pytest.raises(ValueError, match="eps"):
        boost("mlpboost", oracle, nu=2.0, eps=0.0)


class _Interrupt(Exception):
    pass


@pytest.mark.parametrize(
    "algorithm, params",
    [
        ("mlpboost", {"nu": NU, "eps": EPS, "eta": ETA}),
        ("corrective_erlpboost", {"nu": NU, "eps": EPS, "eta": ETA, "step": "pairwise"}),
        ("corrective_binary_erlpboost", {"nu": NU, "eps": EPS, "eta": ETA, "step": "line"}),
        ("adaboostv", {"tolerance": 0.05}),
        ("smoothboost", {"kappa": 0.2, "gamma": 0.05}),
    ],
)
def test_a_killed_run_resumes_to_the_uninterrupted_result(algorithm, params, tmp_path):
    """The state of the new drivers (MLPBoost's LP solution, the pairwise weights, AdaBoost*'s minimum
    edge, SmoothBoost's running margins) survives a checkpoint: killed at iteration 7 and resumed, a
    run ends where an uninterrupted one does."""
    full = np.random.default_rng(13).uniform(-1.0, 1.0, size=(N, 50))
    reference = boost(algorithm, MatrixOracle(full, reflexive=True), **params)
    assert reference.n_iter > 8
    path = tmp_path / "run.ckpt"

    def stop(row):
        if row.iteration == 7:
            raise _Interrupt

    with pytest.raises(_Interrupt):
        boost(
            algorithm,
            MatrixOracle(full, reflexive=True),
            checkpoint=path,
            checkpoint_every=3,
            callback=stop,
            **params,
        )
    resumed = boost(algorithm, MatrixOracle(full, reflexive=True), checkpoint=path, resume=True, **params)
    assert resumed.hypotheses == reference.hypotheses and resumed.n_iter == reference.n_iter
    np.testing.assert_allclose(resumed.weights, reference.weights, atol=1e-10)
    np.testing.assert_allclose(resumed.d, reference.d, atol=1e-10)
    np.testing.assert_allclose(resumed.history["edge"], reference.history["edge"], rtol=0, atol=1e-12)
