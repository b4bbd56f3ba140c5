"""``method="auglag"`` steered by options objects (docs/solvers.md#options): AuglagOptions and its
NewtonOptions, checked when built; ``solve(options=...)`` and ``default_options`` blocks; the
callback's stages. Each path chosen here is checked against the default path by their certified
values (each within its gap of the optimum, so the two within the sum of the gaps)."""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost, LPBoost
from dualboost.solvers import AuglagOptions, NewtonOptions, Stage, default_options

#: the Python stages: the options' paths below are those of the Python path (by default a cold solve
#: this small starts with the compiled loop, which finishes it: tests/solvers/test_compiled_cold.py)
PYTHON = NewtonOptions(compiled=False)


def _model() -> ERLPBoost:
    """N = 600 (within [lp_cold_min_samples, lp_max_samples]), t = 12, eta above lp_cold_eta: the
    Python path's cold start takes Newton from the LP limit."""
    return ERLPBoost(random_edge_matrix(600, 12, seed=42), nu=60.0, eta=5e3)


def _stages(**fields) -> tuple[list[Stage], AuglagOptions]:
    stages: list[Stage] = []
    return stages, AuglagOptions(callback=stages.append, newton=PYTHON, **fields)


def _iterations(stages: list[Stage], model) -> int:
    """The steps of ``model``'s own stages (a continuation stage's inner stages solve another model
    and are counted by the continuation stage itself)."""
    own = [s for s in stages if s.name != "solved" and (s.model is model or s.name == "continuation")]
    return sum(s.steps for s in own)


def test_options_choose_the_path_and_both_paths_agree():
    model = _model()
    stages, options = _stages()
    default = model.solve(method="auglag", options=options)
    assert [s.name for s in stages] == ["uniform_start", "lp_limit", "solved"]
    assert stages[-1].solution is default and stages[-1].model is model
    assert stages[-1].steps == default.iterations == _iterations(stages, model)
    assert stages[-1].gap == default.relative_gap
    stages, options = _stages(lp_cold_eta=np.inf)  # eta continuation instead
    continued = model.solve(method="auglag", options=options)
    names = ["uniform_start", "augmented_lagrangian", "continuation", "augmented_lagrangian", "solved"]
    assert [s.name for s in stages] == names
    assert stages[1].model.eta == stages[2].model.eta == model.eta / 10 and stages[3].model is model
    assert continued.iterations == _iterations(stages, model)
    assert default.optimal and continued.optimal
    assert abs(default.dual_value - continued.dual_value) <= default.gap + continued.gap + 1e-12


def test_default_options_apply_within_the_block_and_explicit_options_win():
    model = _model()
    outer, inner, explicit = [], [], []
    before = model.solve(method="auglag")  # the library's defaults
    with default_options(AuglagOptions(callback=outer.append, newton=PYTHON)):
        model.solve(method="auglag")
        with default_options(AuglagOptions(callback=inner.append, lp_cold_eta=np.inf, newton=PYTHON)):
            model.solve(method="auglag")
            model.solve(method="auglag", options=AuglagOptions(callback=explicit.append, newton=PYTHON))
        model.solve(method="auglag")
    after = model.solve(method="auglag")  # the defaults again: no callback
    assert [s.name for s in outer] == ["uniform_start", "lp_limit", "solved"] * 2
    assert "lp_limit" not in [s.name for s in inner]  # the inner block's lp_cold_eta
    assert [s.name for s in explicit] == ["uniform_start", "lp_limit", "solved"]
    assert len(outer) == 6 and len(inner) > 0  # nothing reported after the blocks
    assert after.optimal and after.extra["evaluations"] == before.extra["evaluations"]
    assert after.extra["evaluations"] != outer[-1].solution.extra["evaluations"]  # not the blocks' path


def test_newton_options_reach_the_newton_steps():
    """kept_min_work = 0: the conjugate-gradient steps on a kept Hessian (products H v) where the
    default forms the Hessian at every point (no products); both certified and in agreement."""
    model = ERLPBoost(random_edge_matrix(400, 30, seed=3), nu=40.0, eta=100.0)
    exact = model.solve(method="auglag", tol=1e-9, options=AuglagOptions(newton=PYTHON))
    options = AuglagOptions(newton=NewtonOptions(kept_min_work=0.0, compiled=False))
    kept = model.solve(method="auglag", tol=1e-9, options=options)
    assert exact.extra["hessian_products"] == 0 < kept.extra["hessian_products"]
    assert exact.optimal and kept.optimal
    assert abs(exact.dual_value - kept.dual_value) <= exact.gap + kept.gap + 1e-12


def test_a_failed_lp_limit_is_reported_as_a_stage_with_infinite_gap(monkeypatch):
    def fail(self, n_columns=None):
        raise RuntimeError("HiGHS failed")

    monkeypatch.setattr(LPBoost, "primal_lp", fail)
    stages, options = _stages()
    solution = _model().solve(method="auglag", options=options)
    assert solution.optimal
    assert [(s.name, s.gap, s.steps) for s in stages if s.name == "lp_limit"] == [("lp_limit", np.inf, 0)]
    assert "continuation" in [s.name for s in stages]  # where HiGHS fails: continuation


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"lp_cold_t": 1.5}, "AuglagOptions.lp_cold_t must be an integer"),
        ({"lp_warm_steps": -1}, "AuglagOptions.lp_warm_steps must be an integer in"),
        ({"coarse_gap": "1e-3"}, "AuglagOptions.coarse_gap must be a number"),
        ({"lp_warm_progress": 2.0}, r"AuglagOptions.lp_warm_progress must be a number in \[0, 1\]"),
        ({"warm_budget": True}, "AuglagOptions.warm_budget must be an integer"),
        ({"newton": {"pcg_max": 3}}, "AuglagOptions.newton must be a NewtonOptions"),
        ({"callback": 3}, "AuglagOptions.callback must be None or callable"),
    ],
)
def test_bad_auglag_options_name_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        AuglagOptions(**fields)


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"pcg_max": 0}, "NewtonOptions.pcg_max must be an integer in"),
        ({"ridges": ()}, "NewtonOptions.ridges must be a non-empty tuple"),
        ({"ridges": (1e-8, 0.0)}, "NewtonOptions.ridges must be a number"),
        ({"ridges": [1e-8]}, "NewtonOptions.ridges must be a non-empty tuple"),
        ({"radius_min": 10.0, "radius_max": 1.0}, "NewtonOptions.radius_min must be <= radius_max"),
        ({"kept_min_work": np.nan}, "NewtonOptions.kept_min_work must be a number"),
    ],
)
def test_bad_newton_options_name_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        NewtonOptions(**fields)


def test_options_of_the_wrong_kind_name_options():
    model, auglag = _model(), "options for method='auglag' must be None or AuglagOptions"
    with pytest.raises(ValueError, match=rf"{auglag}; got NewtonOptions .*newton="):
        model.solve(method="auglag", options=NewtonOptions())
    with pytest.raises(ValueError, match=rf"{auglag}; got dict"):
        model.solve(method="auglag", options={"lp_cold_eta": 1.0})
    with pytest.raises(ValueError, match=r"options for method='clarabel' must be None; got AuglagOptions"):
        model.solve(method="clarabel", options=AuglagOptions())
    with pytest.raises(ValueError, match=r"options for method='highs' must be None"):
        LPBoost(model.U, nu=60.0).solve(method="highs", options=AuglagOptions())
    with pytest.raises(ValueError, match="default_options takes AuglagOptions objects"):
        with default_options(NewtonOptions()):
            pass


def test_options_are_frozen_and_keep_max_iter_apart():
    options = AuglagOptions()
    with pytest.raises(AttributeError):
        options.lp_cold_eta = 1.0  # type: ignore[misc]
    with pytest.raises(ValueError, match="max_iter must be a positive integer"):
        _model().solve(method="auglag", max_iter=0, options=options)


class _CountedERLPBoost(ERLPBoost):
    """ERLPBoost that counts the reads of ``smooth_dual``: ``auglag.accepts`` reads it once per call
    (the Protocol checks are decided once per class, before the counting starts)."""

    reads = 0

    @property
    def smooth_dual(self) -> bool:
        type(self).reads += 1
        return super().smooth_dual


def test_accepts_is_checked_once_per_solve():
    model = _CountedERLPBoost(random_edge_matrix(200, 8, seed=1), nu=20.0, eta=50.0)
    model.solve(method="auglag")  # (the Protocol checks of this class, once)
    _CountedERLPBoost.reads = 0
    solution = model.solve(method="auglag")
    assert solution.optimal and _CountedERLPBoost.reads == 1
