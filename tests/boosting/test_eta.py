"""What the drivers of dualboost.boosting share: the default eta of the entropy family
(docs/math.md#canonical-eta), written out here as the closed form of [KG] Sec 3.2, and the count of
the hypotheses with positive weight that every history row and result reports."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dualboost.boosting import (
    adaboost,
    binary_erlpboost,
    corrective_binary_erlpboost,
    corrective_erlpboost,
    erlpboost,
    lpboost,
    mdboost,
    qrlpboost,
    smoothboost,
)
from dualboost.boosting.core.eta import resolve_eta
from dualboost.boosting.core.result import n_positive
from dualboost.boosting.core.run import rule_or_cap
from dualboost.conjugates import CappedBinaryRelativeEntropy
from dualboost.instances import random_edge_matrix
from dualboost.oracles import MatrixOracle
from dualboost.problems import LPBoost
from tests.boosting.test_checkpoint import Interrupt, interrupt_at

# short runs on purpose: max_iter ends them before their stopping rule
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

#: driver -> whether it regularises with the binary relative entropy (``+ 1`` in the log, Thm 3.21)
ENTROPY_DRIVERS = {
    erlpboost: False,
    binary_erlpboost: True,
    corrective_erlpboost: False,
    corrective_binary_erlpboost: True,
    qrlpboost: False,
}


def closed_form_eta(n: int, nu: float, eps: float, binary: bool, d0=None) -> float:
    """``max((2/eps) B, 1/2)``, B = ln(N/nu) (uniform prior) or ln(1/(nu min d0)), plus 1 for the
    binary entropy with the uniform prior (the prior's binary term is 1/(1 - nu max d0))."""
    if d0 is None:
        bound = math.log(n / nu) + (1.0 if binary else 0.0)
    else:
        bound = -math.log(nu * min(d0)) + (1.0 / (1.0 - nu * max(d0)) if binary else 0.0)
    return max(2.0 / eps * bound, 0.5)


# (N, nu, eps): nu = 1 (the hard margin), nu = N (eta's floor 1/2 for the non-binary entropy), between
CASES = [(20, 1.0, 0.1), (20, 20.0, 0.1), (30, 7.5, 0.05), (12, 3.0, 0.5), (40, 39.0, 2.0)]


@pytest.mark.parametrize(
    "driver, n, nu, eps",
    [
        pytest.param(driver, *case, id=f"{driver.__name__}-{case}")
        for driver, binary in ENTROPY_DRIVERS.items()
        for case in CASES
        if not (binary and case[1] >= case[0])  # the binary entropy needs nu < N
    ],
)
def test_default_eta_is_the_closed_form(driver, n, nu, eps):
    binary = ENTROPY_DRIVERS[driver]
    oracle = MatrixOracle(random_edge_matrix(n, 6, seed=n))
    result = driver(oracle, nu=nu, eps=eps, max_iter=1)
    # math.log and np.log differ by at most an ulp or two: rel 1e-14 is far above that
    assert result.params["eta"] == pytest.approx(closed_form_eta(n, nu, eps, binary), rel=1e-14)


@pytest.mark.parametrize("driver", list(ENTROPY_DRIVERS), ids=lambda f: f.__name__)
def test_default_eta_with_a_prior(driver):
    binary = ENTROPY_DRIVERS[driver]
    n, nu, eps = 25, 4.0, 0.1
    d0 = np.random.default_rng(3).uniform(0.5, 1.5, n)
    d0 /= d0.sum()
    oracle = MatrixOracle(random_edge_matrix(n, 6, seed=1))
    result = driver(oracle, nu=nu, eps=eps, max_iter=1, d0=d0)
    assert result.params["eta"] == pytest.approx(closed_form_eta(n, nu, eps, binary, list(d0)), rel=1e-14)


@pytest.mark.parametrize("driver", list(ENTROPY_DRIVERS), ids=lambda f: f.__name__)
def test_default_eta_run_equals_explicit_run(driver):
    """A run at the default eta is the run at the closed form passed explicitly, iteration for
    iteration (the same eta to the bit gives the same arithmetic)."""
    binary = ENTROPY_DRIVERS[driver]
    n, nu, eps = 30, 3.0, 0.1
    oracle = MatrixOracle(random_edge_matrix(n, 12, seed=7))
    default = driver(oracle, nu=nu, eps=eps, max_iter=40)
    explicit = driver(oracle, nu=nu, eps=eps, max_iter=40, eta=default.params["eta"])
    assert default.params["eta"] == pytest.approx(closed_form_eta(n, nu, eps, binary), rel=1e-14)
    assert default.n_iter == explicit.n_iter
    np.testing.assert_array_equal(default.weights, explicit.weights)
    np.testing.assert_array_equal(default.d, explicit.d)


def test_resolve_eta_checks_a_given_eta():
    assert resolve_eta(3.5, 10, 2.0, 0.1) == 3.5
    with pytest.raises(ValueError, match="eta"):
        resolve_eta(-1.0, 10, 2.0, 0.1)
    assert resolve_eta(None, 10, 10.0, 0.1) == 0.5  # ln(N/nu) = 0: the floor of the bounds


def test_n_positive():
    assert n_positive(None) == 0
    assert n_positive([]) == 0
    assert n_positive(np.array([0.0, 0.5, -0.0, 1e-300, 0.5])) == 3
    assert n_positive([-1.0, 0.0, 2.0]) == 1


@pytest.mark.parametrize(
    "driver",
    [lpboost, mdboost, erlpboost, qrlpboost, corrective_erlpboost, adaboost],
    ids=lambda f: f.__name__,
)
def test_last_row_counts_the_positive_weights(driver):
    """The last history row's ``n_hypotheses`` is the output's count of weights > 0, counted here."""
    result = driver(MatrixOracle(random_edge_matrix(30, 12, seed=7)), max_iter=30)
    expected = sum(1 for w in result.weights if w > 0)
    assert result.history.rows[-1].n_hypotheses == expected == result.n_nonzero


# --- the binary entropy's normaliser root, carried through a checkpoint ------------------------------


def test_last_root_is_the_warm_start():
    """``last_root`` is the root the warm copy found last (NaN before, and always in a cold copy); set,
    it starts the next solve, which then ends on the same root as a cold solve (the bracketed Newton
    iteration stops at 4 ulps)."""
    n, nu, eta = 40, 5.0, 30.0
    regularizer = CappedBinaryRelativeEntropy(np.full(n, 1.0 / n), nu, eta)
    warm = regularizer.with_warm_starts()
    assert math.isnan(warm.last_root) and math.isnan(regularizer.last_root)
    theta = random_edge_matrix(n, 1, seed=2)[:, 0] * 0.1
    root = warm.normalizer(theta)
    assert warm.last_root == root
    regularizer.normalizer(theta)
    assert math.isnan(regularizer.last_root)  # a cold copy keeps no state
    cold_root = regularizer.normalizer(theta + 0.01)
    warm.last_root = root + 0.5  # a start inside the bracket away from the root
    ulps = 16 * np.finfo(float).eps * abs(cold_root)  # both stop within 4 ulps of the root
    assert warm.normalizer(theta + 0.01) == pytest.approx(cold_root, rel=0, abs=ulps)
    assert warm.last_root != root + 0.5


@pytest.mark.parametrize("stop", [3, 10])
def test_corrective_binary_resume_is_bit_identical(stop, tmp_path):
    """A corrective Binary ERLPBoost run stopped at iteration ``stop`` and resumed from its checkpoint
    (which carries the normaliser's last root, restored through ``last_root``) repeats the unbroken
    run bit for bit: the same operations on the same floats, from the same Newton starts (a resume
    that drops the root, Newton starting from the bracket's middle, differs in the last bits here)."""
    oracle = MatrixOracle(random_edge_matrix(40, 25, seed=1))
    params = {"nu": 2.0, "eps": 0.01, "max_iter": 60}
    reference = corrective_binary_erlpboost(oracle, **params)
    assert reference.n_iter > stop
    path = tmp_path / "run.ckpt"
    with pytest.raises(Interrupt):
        corrective_binary_erlpboost(oracle, checkpoint=path, checkpoint_every=1, callback=interrupt_at(stop),
                                    **params)  # fmt: skip
    resumed = corrective_binary_erlpboost(oracle, checkpoint=path, checkpoint_every=1, resume=True, **params)
    assert resumed.hypotheses == reference.hypotheses
    np.testing.assert_array_equal(resumed.weights, reference.weights)
    np.testing.assert_array_equal(resumed.d, reference.d)
    for column in ("edge", "primal", "dual", "stopping"):
        np.testing.assert_array_equal(resumed.history[column], reference.history[column])


# --- how a loop that stops on its rule or at max_iter reports it -------------------------------------


def _smoothboost_case():
    """A class with hard margin rho* > 0.1 (tests/boosting/test_smoothboost.py): gamma = rho*/2 is a true
    advantage, so SmoothBoost meets its rule."""
    U = np.random.default_rng(2).choice([-1.0, 1.0], size=(40, 60))
    rho = LPBoost(np.hstack([U, -U]), nu=1.0).solve(method="highs").dual_value
    return MatrixOracle(U, reflexive=True), {"kappa": 0.1, "gamma": rho / 2}


@pytest.mark.parametrize(
    "driver, rule",
    [
        (lpboost, "min edge - P_LP <= eps"),
        (corrective_erlpboost, "delta~ (practical) <= eps/2"),
        (smoothboost, None),  # the history's criterion
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_rule_or_cap_stop(driver, rule):
    if driver is smoothboost:
        oracle, params = _smoothboost_case()
    else:
        oracle, params = MatrixOracle(random_edge_matrix(30, 12, seed=7)), {"eps": 0.1}
    met = driver(oracle, **params)
    assert (met.converged, met.stop_reason) == (True, "converged")
    assert met.stop_detail == (met.history.criterion if rule is None else rule)
    capped = driver(oracle, **params, max_iter=2)
    assert (capped.converged, capped.stop_reason, capped.stop_detail) == (False, "max_iter", "max_iter=2")
    assert rule_or_cap(True, "r", 5) == ("converged", "r")
    assert rule_or_cap(False, "r", 5) == ("max_iter", "max_iter=5")
