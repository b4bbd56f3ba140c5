"""The run options of every driver (:class:`~dualboost.boosting.core.options.RunOptions`): one object,
checked once, taken as keywords or as ``options=``; and the time limit ``max_time``, which stops a run
at an iteration boundary with the certified result of that iteration (docs/boosting.md#run-options)."""

import inspect
import itertools
import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting import boost
from dualboost.boosting.algorithms import ALGORITHMS
from dualboost.boosting.core.options import OPTION_NAMES, RunOptions
from dualboost.boosting.core.result import STOP_REASONS
from dualboost.boosting.gradient.drivers import gradient_projection
from dualboost.boosting.maboost.drivers import maboost, madaboost, sparseboost
from dualboost.boosting.relaxation import corrective_relaxation_boost, totally_corrective_relaxation_boost
from dualboost.conjugates import NormBall
from dualboost.oracles import DecisionStumps, MatrixOracle
from dualboost.oracles.regression import RegressionStumps
from dualboost.problems import ERLPBoost, Relaxation

pytestmark = pytest.mark.filterwarnings(
    "ignore::dualboost.boosting.core.run.SoftMarginWarning", "ignore::sklearn.exceptions.ConvergenceWarning"
)

#: the algorithms that cap d by nu (the others take no nu)
_UNCAPPED = ("adaboost", "adaboostv", "smoothboost", "mdboost", "cgboost", "nmboost", "t_adaboost")
#: iterations before the fake clock runs out (every algorithm below runs longer on the instance)
_STEPS = 3


def _edges(seed: int = 0, n: int = 40, q: int = 25) -> np.ndarray:
    return np.random.default_rng(seed).choice([-1.0, 1.0], size=(n, q))


def _params(algorithm: str) -> dict:
    params = {} if algorithm in _UNCAPPED else {"nu": 4.0}
    if algorithm == "smoothboost":
        params |= {"kappa": 0.01, "gamma": 0.05}
    if algorithm == "adaboostv":
        params["tolerance"] = 0.01
    return params


class FakeClock:
    """A clock that reads 0 when the run starts and one second more at every later reading: the run
    reads it once per iteration, so ``max_time = k`` runs out at the end of iteration k."""

    def __init__(self) -> None:
        self.ticks = itertools.count()

    def __call__(self) -> float:
        return float(next(self.ticks))


def _timed(**options) -> RunOptions:
    """Options with the time limit of ``_STEPS`` iterations on a :class:`FakeClock`."""
    return RunOptions(max_time=_STEPS, clock=FakeClock(), **options)


def _same_run(a, b) -> None:
    """The same hypotheses, weights and history values (times aside) to the last bit."""
    assert a.hypotheses == b.hypotheses
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.d, b.d)
    assert len(a.history) == len(b.history)
    for x, y in zip(a.history, b.history, strict=True):
        for name in ("iteration", "edge", "primal", "dual", "gap", "stopping", "n_hypotheses"):
            assert getattr(x, name) == getattr(y, name) or (
                math.isnan(getattr(x, name)) and math.isnan(getattr(y, name))
            ), name


# -- RunOptions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("callback", 3),
        ("keep_iterates", "yes"),
        ("checkpoint", 5),
        ("checkpoint_every", 0),
        ("checkpoint_every", 2.5),
        ("resume", 1),
        ("keep_stages", None),
        ("max_time", 0.0),
        ("max_time", -1.0),
        ("max_time", math.inf),
        ("max_time", "1 s"),
        ("clock", 0.0),
    ],
)
def test_every_field_is_checked_with_its_name(field, value):
    with pytest.raises(ValueError, match=field):
        RunOptions(**{field: value})


def test_combinations_are_checked():
    with pytest.raises(ValueError, match="resume=True needs checkpoint"):
        RunOptions(resume=True)
    with pytest.raises(ValueError, match="keep_iterates=True cannot be combined with checkpoint"):
        RunOptions(keep_iterates=True, checkpoint="run.ckpt")


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_every_driver_shows_the_options_and_takes_them_either_way(algorithm):
    driver = ALGORITHMS[algorithm]
    taken = inspect.signature(driver).parameters
    assert "options" in taken and "max_time" in taken and "callback" in taken
    oracle = MatrixOracle(_edges(), reflexive=True)
    rows_a, rows_b = [], []
    a = boost(algorithm, oracle, max_iter=4, callback=rows_a.append, **_params(algorithm))
    b = boost(algorithm, oracle, max_iter=4, options=RunOptions(callback=rows_b.append), **_params(algorithm))
    _same_run(a, b)
    assert [r.iteration for r in rows_a] == [r.iteration for r in rows_b] == [r.iteration for r in a.history]
    with pytest.raises(ValueError, match="inside options="):
        boost(algorithm, oracle, max_iter=4, options=RunOptions(), max_time=1.0, **_params(algorithm))


def test_a_driver_refuses_an_option_it_cannot_honour():
    oracle = MatrixOracle(_edges(), reflexive=True)
    with pytest.raises(ValueError, match="maboost does not take checkpoint"):
        maboost(oracle, checkpoint="run.ckpt")
    with pytest.raises(ValueError, match="corrective_erlpboost does not take keep_iterates"):
        boost("corrective_erlpboost", oracle, keep_iterates=True)
    assert "checkpoint" not in inspect.signature(maboost).parameters
    assert set(OPTION_NAMES) <= set(inspect.signature(ALGORITHMS["lpboost"]).parameters)


# -- max_time --------------------------------------------------------------------------------------


def test_time_limit_is_a_stop_reason():
    assert "time limit" in STOP_REASONS


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_the_time_limit_stops_where_max_iter_would(algorithm):
    """At the end of iteration k the time limit ends the run with the result of iteration k: the same
    (bit for bit) as ``max_iter = k``, which is certified as every max_iter stop is."""
    oracle = MatrixOracle(_edges(), reflexive=True)
    reference = boost(algorithm, oracle, max_iter=_STEPS, **_params(algorithm))
    assert reference.stop_reason in ("max_iter", "rounds")  # the instance runs longer than _STEPS
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        timed = boost(algorithm, oracle, options=_timed(), **_params(algorithm))
    assert timed.stop_reason == "time limit" and not timed.converged
    assert timed.stop_detail == f"max_time={_STEPS} s"
    _same_run(timed, reference)
    warned = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert warned and "time limit" in str(warned[0].message)


@pytest.mark.parametrize("driver", [maboost, sparseboost, madaboost])
def test_the_mirror_descent_family_takes_a_time_limit(driver):
    oracle = MatrixOracle(_edges(), reflexive=True)
    reference = driver(oracle, max_iter=_STEPS)
    timed = driver(oracle, options=_timed())
    assert timed.stop_reason == "time limit"
    np.testing.assert_array_equal(timed.weights, reference.weights)
    np.testing.assert_array_equal(timed.training_error, reference.training_error)


def test_gradient_boosting_takes_a_time_limit():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4))
    y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=60)
    oracle = RegressionStumps().fit(X)
    reference = gradient_projection(oracle, y, n_learners=_STEPS)
    timed = gradient_projection(oracle, y, n_learners=200, options=_timed())
    assert timed.stop_reason == "time limit" and timed.n_learners == _STEPS
    np.testing.assert_array_equal(timed.F, reference.F)


@pytest.mark.parametrize("booster", [corrective_relaxation_boost, totally_corrective_relaxation_boost])
def test_the_relaxation_boosters_take_a_time_limit(booster):
    A = _edges(2, n=30, q=10)
    model = Relaxation(A, NormBall(p=np.inf, radius=1.0 / 3.0))
    reference = booster(model, 0.01, max_iter=_STEPS)
    timed = booster(model, 0.01, options=_timed())
    assert timed.stop_reason == "time limit" and timed.iterations == reference.iterations == _STEPS
    np.testing.assert_array_equal(timed.weights, reference.weights)


def test_a_real_time_limit_returns_a_certified_result():
    """A limit far below one iteration's time: the run stops after its first iteration, and the
    weights it returns are certified: the gap of the ERLPBoost pair at (d, w), recomputed here from the
    model's two objectives, is within the eps/4 every practical-criterion re-solve must meet ([KG]
    Lemma 3.4; 1e-12 of rounding on values of order 1)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 5))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=200) > 0, 1, -1)
    oracle = DecisionStumps().fit(X, y)
    eps = 0.01
    result = boost("erlpboost", oracle, nu=20.0, eps=eps, max_time=1e-9)
    assert result.stop_reason == "time limit" and result.n_iter == 1
    model = ERLPBoost(result.columns.astype(np.float64), nu=20.0, eta=result.params["eta"])
    d = model.d_from_w(result.weights)
    gap = model.primal_objective(d) - model.dual_objective(result.weights)
    assert -1e-12 <= gap <= eps / 4 + 1e-12
    assert result.history[-1].gap == pytest.approx(gap, abs=1e-9)


def test_a_resumed_run_gets_a_fresh_budget(tmp_path):
    """A run stopped by its time limit after writing its checkpoint resumes with a new budget of the same
    size and ends, after as many more iterations, where an uninterrupted run of 2k iterations ends."""
    oracle = MatrixOracle(_edges(), reflexive=True)
    path = tmp_path / "run.ckpt"
    params = {"checkpoint": path, "checkpoint_every": 1}
    first = boost("erlpboost", oracle, options=_timed(**params), nu=4.0)
    assert first.stop_reason == "time limit" and first.n_iter == _STEPS
    resumed = boost("erlpboost", oracle, options=_timed(resume=True, **params), nu=4.0)
    assert resumed.stop_reason == "time limit" and resumed.n_iter == 2 * _STEPS
    _same_run(resumed, boost("erlpboost", oracle, nu=4.0, max_iter=2 * _STEPS))


@pytest.mark.parametrize("booster", [corrective_relaxation_boost, totally_corrective_relaxation_boost])
def test_the_relaxation_boosters_record_the_common_history(booster):
    """The relaxation boosters run on the common Run: their rounds are also history rows, which the
    callback sees. The rows' gap, P(d_t) - D(w_t), is the Lemma 11 gap <d_t, A(e^j - w_t)> of the
    round's dict by Fenchel-Young's equality at d_t = grad F*(-A w_t) (1e-9: rounding of sums of
    order-1 terms over N = 30)."""
    model = Relaxation(_edges(2, n=30, q=10), NormBall(p=np.inf, radius=1.0 / 3.0))
    seen = []
    result = booster(model, 0.01, callback=seen.append)
    assert seen == result.rows.rows and len(seen) == len(result.history) == result.iterations
    for row, round_ in zip(result.rows, result.history, strict=True):
        assert row.iteration == round_["iteration"] and row.stopping == round_["gap"]
        assert row.gap == pytest.approx(round_["gap"], abs=1e-9)
    assert result.total_time >= result.oracle_time + result.solver_time - 1e-9
