"""Input validation of the model objects: every bad argument is a ValueError naming it."""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import (
    BinaryERLPBoost,
    CorrectiveBinaryERLPBoost,
    CorrectiveERLPBoost,
    ERLPBoost,
    LPBoost,
    SoftBoost,
)

N, T = 6, 3
GOOD_U = random_edge_matrix(N, T, seed=0)


def make(name, U=GOOD_U, **kw):
    """Construct model ``name`` with valid defaults overridden by ``kw``."""
    t = np.asarray(U).shape[-1] if np.asarray(U).ndim >= 2 else 1
    if name == "lpboost":
        return LPBoost(U, **{"nu": 1.0, **kw})
    if name == "softboost":
        return SoftBoost(U, **{"nu": 1.0, "gamma_hat": 0.5, **kw})
    if name == "erlpboost":
        return ERLPBoost(U, **{"nu": 1.0, "eta": 1.0, **kw})
    if name == "binary":
        return BinaryERLPBoost(U, **{"nu": 1.0, "eta": 1.0, **kw})
    w_prev = np.full(max(t - 1, 1), 1.0 / max(t - 1, 1))
    if name == "corrective":
        return CorrectiveERLPBoost(U, **{"w_prev": w_prev, "nu": 1.0, "eta": 1.0, **kw})
    if name == "corrective-binary":
        return CorrectiveBinaryERLPBoost(U, **{"w_prev": w_prev, "nu": 1.0, "eta": 1.0, **kw})
    raise AssertionError(name)


ALL = ["lpboost", "softboost", "erlpboost", "binary", "corrective", "corrective-binary"]
WITH_ETA = ["erlpboost", "binary", "corrective", "corrective-binary"]
WITH_D0 = ["softboost", "erlpboost", "binary", "corrective", "corrective-binary"]


def with_entry(value):
    U = GOOD_U.copy()
    U[2, 1] = value
    return U


BAD_U = {
    "nan": with_entry(np.nan),
    "inf": with_entry(np.inf),
    "-inf": with_entry(-np.inf),
    "above 1": with_entry(1.5),
    "below -1": with_entry(-1.01),
    "3-D": np.zeros((N, T, 2)),
    "no columns": np.zeros((N, 0)),
    "no rows": np.zeros((0, T)),
    "strings": np.array([["a", "b"], ["c", "d"]]),
}


@pytest.mark.parametrize("case", list(BAD_U))
@pytest.mark.parametrize("name", ALL)
def test_bad_edge_matrix(name, case):
    with pytest.raises(ValueError, match=r"\bU\b"):
        make(name, U=BAD_U[case])


@pytest.mark.parametrize("nu", [0.0, 0.5, 0.999, -1.0, N + 0.5, 100.0, np.nan, np.inf, "2"])
@pytest.mark.parametrize("name", ALL)
def test_nu_outside_1_n(name, nu):
    with pytest.raises(ValueError, match=r"\bnu\b"):
        make(name, nu=nu)


@pytest.mark.parametrize("name", ["binary", "corrective-binary"])
def test_binary_nu_equal_n(name):
    with pytest.raises(ValueError, match=r"\bnu\b"):
        make(name, nu=float(N))


@pytest.mark.parametrize("eta", [0.0, -1.0, -1e-12, np.nan, np.inf])
@pytest.mark.parametrize("name", WITH_ETA)
def test_eta_not_positive(name, eta):
    with pytest.raises(ValueError, match=r"\beta\b"):
        make(name, eta=eta)


BAD_D0 = {
    "negative": np.r_[-0.1, np.full(N - 1, 1.1 / (N - 1))],
    "zero entry": np.r_[0.0, np.full(N - 1, 1.0 / (N - 1))],
    "sum 2": np.full(N, 2.0 / N),
    "sum 0.9": np.full(N, 0.9 / N),
    "too short": np.full(N - 1, 1.0 / (N - 1)),
    "too long": np.full(N + 1, 1.0 / (N + 1)),
    "nan": np.r_[np.nan, np.full(N - 1, 1.0 / (N - 1))],
    "2-D": np.full((N, 1), 1.0 / N),
}


@pytest.mark.parametrize("case", list(BAD_D0))
@pytest.mark.parametrize("name", WITH_D0)
def test_d0_not_a_distribution(name, case):
    with pytest.raises(ValueError, match=r"\bd0\b"):
        make(name, d0=BAD_D0[case])


@pytest.mark.parametrize("name", ["binary", "corrective-binary"])
def test_binary_prior_above_cap(name):
    d0 = np.r_[0.5, np.full(N - 1, 0.5 / (N - 1))]  # nu d0_1 = 1 at nu = 2
    with pytest.raises(ValueError, match=r"\bd0\b"):
        make(name, nu=2.0, d0=d0)


@pytest.mark.parametrize("name", ALL)
def test_d_and_w_of_wrong_shape(name):
    model = make(name)
    d = np.full(N, 1.0 / N)
    w = np.full(T, 1.0 / T)
    for bad in (np.full(N + 1, 1.0 / (N + 1)), np.full(N - 1, 1.0 / (N - 1)), d[:, None], np.array([])):
        for call in (model.primal_objective, model.kkt_from_d, model.w_from_d):
            with pytest.raises(ValueError, match=r"\bd\b"):
                call(bad)
    d_nan = d.copy()
    d_nan[0] = np.nan
    with pytest.raises(ValueError, match=r"\bd\b"):
        model.primal_objective(d_nan)
    for bad in (np.full(T + 1, 1.0 / (T + 1)), np.full(T - 1, 1.0 / (T - 1)), w[None, :], np.array([])):
        for call in (model.dual_objective, model.d_from_w):
            with pytest.raises(ValueError, match=r"\bw\b"):
                call(bad)
    w_inf = w.copy()
    w_inf[0] = np.inf
    with pytest.raises(ValueError, match=r"\bw\b"):
        model.dual_objective(w_inf)


@pytest.mark.parametrize("name", ALL)
def test_solve_arguments(name):
    model = make(name)
    for method in ("gurobi", "CLARABELL", "", None, 3):
        with pytest.raises(ValueError, match=r"\bmethod\b"):
            model.solve(method=method)
    for side in ("both", "Primal", "", None):
        with pytest.raises(ValueError, match=r"\bside\b"):
            model.solve(side=side)
    for tol in (0.0, -1e-6, np.nan, np.inf):
        with pytest.raises(ValueError, match=r"\btol\b"):
            model.solve(tol=tol)
    with pytest.raises(ValueError, match="warm_start"):
        model.solve(warm_start=np.ones(T))


BAD_W_PREV = {
    "negative": np.array([1.5, -0.5]),
    "sum 0.5": np.array([0.25, 0.25]),
    "sum 2": np.array([1.0, 1.0]),
    "too long": np.full(3, 1.0 / 3),
    "too short": np.array([1.0]),
    "nan": np.array([np.nan, 1.0]),
}


@pytest.mark.parametrize("case", list(BAD_W_PREV))
@pytest.mark.parametrize("name", ["corrective", "corrective-binary"])
def test_w_prev_not_in_the_simplex(name, case):
    with pytest.raises(ValueError, match=r"\bw_prev\b"):
        make(name, w_prev=BAD_W_PREV[case])


@pytest.mark.parametrize("field, value", [("gamma_hat", np.nan), ("gamma_hat", np.inf), ("eps", -0.1)])
def test_softboost_edge_bound_arguments(field, value):
    with pytest.raises(ValueError, match=rf"\b{field}\b"):
        make("softboost", **{field: value})
