"""``method="auglag"``'s warm-start state, ``AuglagState(curvature, lp, start)``
(docs/solvers.md#warm-start-state): the Newton curvature, the LP limit's HiGHS state and the compiled
loop's last evaluation side by side, so that the Newton module knows nothing of HiGHS; each part
round-trips through ``to_dict`` / ``state_from_dict`` (what a checkpoint
writes and reads) on its own and together."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pytest

import dualboost.solvers.newton as newton
from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost
from dualboost.solvers import AuglagOptions, NewtonOptions, compiled
from dualboost.solvers.auglag import AuglagState
from dualboost.solvers.highs import HighsState
from dualboost.solvers.state import state_from_dict


def test_the_newton_module_imports_nothing_of_highs():
    tree = ast.parse(inspect.getsource(newton))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    plain = [node for node in ast.walk(tree) if isinstance(node, ast.Import)]
    imported |= {alias.name for node in plain for alias in node.names}
    assert not any("highs" in name for name in imported), imported
    assert not hasattr(newton.Curvature, "lp") and not hasattr(newton.Curvature, "with_lp")


def _large_eta_state() -> AuglagState:
    """The state of a warm solve at eta = 1e5 that started from the LP limit: a curvature and an LP."""
    U = random_edge_matrix(120, 12, seed=7, binary=True)
    options = AuglagOptions(lp_warm_steps=0, lp_cold_eta=np.inf)
    previous = ERLPBoost(U[:, :-1], nu=6.0, eta=1e5).solve(method="auglag", max_iter=500, options=options)
    warm = ERLPBoost(U, nu=6.0, eta=1e5).solve(
        method="auglag", warm_start=previous, max_iter=500, options=options
    )
    assert warm.optimal and isinstance(warm.solver_state, AuglagState)
    return warm.solver_state


@pytest.mark.parametrize("parts", ["both", "curvature", "lp"])
def test_each_part_of_the_state_round_trips(parts):
    state = _large_eta_state()
    assert isinstance(state.curvature, newton.Curvature) and isinstance(state.lp, HighsState)
    if parts == "curvature":
        state = AuglagState(state.curvature, None)
    elif parts == "lp":
        state = AuglagState(None, state.lp)
    written = state.to_dict()
    back = state_from_dict("auglag", written)
    assert type(back) is AuglagState
    assert (back.curvature is None) == (state.curvature is None)
    assert (back.lp is None) == (state.lp is None)
    assert back.to_dict().keys() == written.keys()
    for key, value in written.items():
        np.testing.assert_array_equal(back.to_dict()[key], value)
    if back.lp is not None:  # the live HiGHS model is not written: rebuilt from the basis when used
        assert back.lp.lp is None and back.lp.n_columns == state.lp.n_columns


def test_the_state_is_frozen():
    with pytest.raises(AttributeError):
        AuglagState().lp = None  # type: ignore[misc]


def test_the_compiled_evaluation_round_trips():
    """A warm solve that ended in the compiled stage keeps its evaluation (``start``) and the loop's
    Cholesky factor of its Hessian (``Curvature.factor``): written and read back entry for entry,
    with their dtypes."""
    U = random_edge_matrix(120, 12, seed=7, binary=True)
    options = AuglagOptions(newton=NewtonOptions(compiled="auto"))
    previous = ERLPBoost(U[:, :-1], nu=6.0, eta=50.0).solve(method="auglag", options=options)
    state = (
        ERLPBoost(U, nu=6.0, eta=50.0)
        .solve(method="auglag", warm_start=previous, options=options)
        .solver_state
    )
    assert isinstance(state, AuglagState) and isinstance(state.start, compiled.Evaluation)
    back = state_from_dict("auglag", state.to_dict())
    assert isinstance(back.start, compiled.Evaluation)
    assert np.isfinite(state.start.f) and np.isnan(back.start.f)  # (f(d) not written: never certified from)
    for got, want in zip(back.start[:-1], state.start[:-1], strict=True):
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == np.asarray(want).dtype
    assert type(back.start.value) is float
    assert state.curvature.factor is not None  # the loop's Cholesky factor rides on the Hessian
    for got, want in zip(back.curvature.factor, state.curvature.factor, strict=True):
        np.testing.assert_array_equal(got, want)
