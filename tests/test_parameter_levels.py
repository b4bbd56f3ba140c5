"""nu (and eta) are checked once per level (docs/architecture.md#parameters): a fraction by the
estimator, a count by the driver, and by the model when it is first built; a booster's later models
reuse the checked parameters (``ColumnIndependent.with_columns``)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import dualboost._validation as validation
from dualboost.boosting import erlpboost, lpboost
from dualboost.oracles import MatrixOracle
from dualboost.problems import BinaryERLPBoost, ERLPBoost, LPBoost, canonical_eta, erlpboost_eta


def _U(rng, n=60, t=8):
    U = rng.choice([-1.0, 1.0], size=(n, t))
    U[:, 0] = rng.uniform(-1, 1, size=n)
    return U


@pytest.mark.parametrize("model_class, params", [
    (ERLPBoost, {"nu": 6.0, "eta": 30.0}),
    (BinaryERLPBoost, {"nu": 6.0, "eta": 30.0}),
    (LPBoost, {"nu": 6.0}),
])
def test_with_columns_equals_a_fresh_model(model_class, params):
    rng = np.random.default_rng(1)
    U = _U(rng)
    first = model_class(U[:, :3], **params)
    grown, fresh = first.with_columns(U), model_class(U, **params)
    assert grown.n_hypotheses == 8 and first.n_hypotheses == 3  # the first model is unchanged
    assert grown.parameters() == fresh.parameters()
    w = rng.dirichlet(np.ones(8))
    assert grown.dual_objective(w) == fresh.dual_objective(w)
    np.testing.assert_array_equal(grown.d_from_w(w), fresh.d_from_w(w))
    a, b = grown.solve(method="clarabel"), fresh.solve(method="clarabel")
    assert a.dual_value == pytest.approx(b.dual_value, abs=1e-9)
    with pytest.raises(ValueError, match="U must have the model's 60 rows; got 59"):
        first.with_columns(U[1:])
    with pytest.raises(ValueError, match="U"):
        first.with_columns(np.full((60, 2), np.nan))


def test_canonical_eta_is_the_checked_one():
    for binary in (False, True):
        assert canonical_eta(400, 40.0, 0.01, binary=binary) == erlpboost_eta(400, 40.0, 0.01, binary=binary)
    with pytest.raises(ValueError, match="nu"):
        erlpboost_eta(400, 0.5, 0.01)
    with pytest.raises(ValueError, match="eps"):
        erlpboost_eta(400, 40.0, 0.0)


#: the modules on the path of nu from a driver to a model: the driver, the canonical eta, the models
#: and the capped entropy. (The capped simplex of LPBoost knows N only when it is applied, so it
#: checks nu <= N at each call; so do the public projections of the conjugate library.)
PATH = (
    "dualboost.boosting.totally_corrective.drivers",
    "dualboost.problems.erlpboost",
    "dualboost.problems.lpboost",
    "dualboost.conjugates.entropy",
)


def _count_nu_checks(monkeypatch) -> list[float]:
    """The references to ``check_nu`` of the modules in PATH replaced by one that records its argument."""
    calls: list[float] = []
    original = validation.check_nu

    def counting(nu, n_samples, **kwargs):
        calls.append(nu)
        return original(nu, n_samples, **kwargs)

    for name in PATH:
        monkeypatch.setattr(importlib.import_module(name), "check_nu", counting)
    return calls


@pytest.mark.parametrize("driver", [erlpboost, lpboost])
def test_a_boosting_run_checks_nu_once_per_level(monkeypatch, driver):
    rng = np.random.default_rng(2)
    oracle = MatrixOracle(_U(rng, 80, 40))
    calls = _count_nu_checks(monkeypatch)
    result = driver(oracle, nu=8.0, eps=0.05, max_iter=12)
    assert result.n_iter >= 3  # several models were solved
    assert calls == [8.0, 8.0]  # the driver's check, then the first model's
