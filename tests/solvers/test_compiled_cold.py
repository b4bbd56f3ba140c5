"""The compiled cold start of ERLPBoost's dual against the Python path (the reference).

``NewtonOptions(compiled="auto")`` makes a cold solve (no warm start) of a small enough instance start
with the compiled Newton loop from uniform w, through the same eta continuation as the Python
path (``auglag._compiled_cold_start``); its w stands only where the library's certificate passes.
Checked here on the same instances, from N = 10 to N = 1e5, nu = 1 to nu = N, eta up to 1e6:

* both solutions are certified at the tolerance, their dual values agree within the sum of their
  certified gaps, and d (unique: the primal is strictly convex in d) agrees within the distance
  that the gaps allow by the strong convexity of the relative entropy;
* the compiled stage did run (the stage ``"compiled"``) wherever uniform w is not optimal already;
* the last Hessian the compiled loop formed is the state kept for the next warm solve;
* where the compiled w misses the target by far, the solve is the Python path's, step for step;
  where it misses narrowly, the last Python stage finishes from it;
* the gate: the option off, t above ``COLD_COMPILED_MAX_T``, or beyond ``COLD_COMPILED_SAMPLES``,
  t below ``COLD_COMPILED_MIN_T`` or N t^2 above ``COLD_COMPILED_LARGE_WORK``: no compiled stage;
* over a grid (N from 10 to 1e4, few and many columns, nu in {1, N/10, N}, eta up to 1e6) both
  cold solves are certified and agree, and with Clarabel where its pair is certified too.
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.problems.erlpboost import ERLPBoost
from dualboost.solvers import AuglagOptions, NewtonOptions, auglag, compiled
from dualboost.solvers.newton import DualEvaluator

TOL = 1e-6


def _model(N: int, t: int, nu: float, eta: float, seed: int = 0) -> ERLPBoost:
    rng = np.random.default_rng(seed + N + t)
    U = np.sign(rng.normal(size=(N, t))) * rng.uniform(0.2, 1.0, size=(N, t))
    return ERLPBoost(np.asfortranarray(U), nu=nu, eta=eta)


def _solve(model: ERLPBoost, flag, tol: float = TOL):
    """The cold solve with ``NewtonOptions(compiled=flag)`` and the names of its stages."""
    stages = []
    options = AuglagOptions(newton=NewtonOptions(compiled=flag), callback=lambda s: stages.append(s.name))
    return model.solve(method="auglag", side="dual", tol=tol, options=options), stages


def _agree(fast, ref, eta: float) -> None:
    assert fast.status == ref.status == "optimal"
    assert fast.relative_gap <= TOL and ref.relative_gap <= TOL
    # both dual values lie within their certified gaps below the optimum (relative to max(1, |P|))
    scale = max(1.0, abs(ref.primal_value))
    gaps = (max(fast.relative_gap, 0.0) + max(ref.relative_gap, 0.0)) * scale
    assert abs(fast.dual_value - ref.dual_value) <= gaps + 1e-12
    # P is (1/eta)-strongly convex in d (l1 norm, Pinsker): a pair with absolute gap g has its d
    # within sqrt(2 eta g) of the optimal d in l1, so the two within the sum of those distances
    bound = np.sqrt(2.0 * eta * max(fast.relative_gap, 0.0) * scale)
    bound += np.sqrt(2.0 * eta * max(ref.relative_gap, 0.0) * scale)
    assert np.abs(fast.d - ref.d).sum() <= bound + 1e-9


CASES = [  # N, t, nu, eta
    (10, 3, 1.0, 5.0),
    (10, 4, 1.0, 1e6),
    (10, 4, 10.0, 1e6),
    (10, 6, 3.5, 300.0),
    (200, 8, 1.0, 50.0),
    (200, 8, 200.0, 1e3),
    (200, 8, 20.0, 1e6),
    (1000, 10, 1.0, 1382.0),
    (1000, 10, 1.0, 1e6),
    (1000, 10, 100.0, 4605.0),
    (1000, 10, 1000.0, 50.0),
    (500, 40, 250.0, 1386.0),
    (500, 40, 1.0, 1e4),
    # inside the gate since t <= COLD_COMPILED_MAX_T (was N t^2 <= 5e6) and for N > COLD_COMPILED_SAMPLES
    (1000, 100, 1.0, 1382.0),
    (1000, 100, 100.0, 4605.0),
    (3000, 40, 300.0, 461.0),
    (3000, 40, 1.0, 2e4),
]


@pytest.mark.parametrize("N, t, nu, eta", CASES)
def test_cold_solves_agree_with_and_without_the_compiled_loop(N, t, nu, eta):
    model = _model(N, t, nu, eta)
    ref, ref_stages = _solve(model, False)
    fast, stages = _solve(model, "auto")
    _agree(fast, ref, eta)
    assert "compiled" not in ref_stages
    if ref_stages[0] != "uniform_start" or ref.iterations > 0:  # uniform w not optimal
        assert "compiled" in stages


@pytest.mark.parametrize("nu", [1.0, 100_000.0, 5_000.0])
@pytest.mark.parametrize("eta", [20.0, 1e4])
def test_cold_solves_agree_at_100000_examples(nu, eta, monkeypatch):
    # beyond the gate (N <= COLD_COMPILED_SAMPLES): lifted here to compare the paths at N = 1e5
    monkeypatch.setattr(auglag, "COLD_COMPILED_SAMPLES", 10**6)
    model = _model(100_000, 4, nu, eta)
    ref, _ = _solve(model, False)
    fast, stages = _solve(model, "auto")
    _agree(fast, ref, eta)
    assert "compiled" in stages or ref.iterations == 0


def _fake_resolve(monkeypatch, w) -> list:
    """``compiled.resolve`` replaced by one that returns ``w`` (None: its start) after one step;
    returns the list to which each call appends its model's eta."""
    calls = []

    def fake(model, w0, target, kept=None, **cold):
        calls.append(model.eta)
        out = np.array(w0 if w is None else w)
        value, grad, d = model.dual_value_and_grad(out)
        evaluation = compiled.Evaluation(value, grad, d, np.zeros(d.size, dtype=np.uint8), out)  # (f unknown)
        return out, {"steps": 1, "hessians": 1, "evaluations": 1}, None, evaluation

    monkeypatch.setattr(compiled, "resolve", fake)
    return calls


def test_a_far_miss_runs_the_python_path_from_uniform_w(monkeypatch):
    """The compiled loop returning its start (the certificate misses by far): the Python stages run
    as without it, to the same w in the same iterations."""
    calls = _fake_resolve(monkeypatch, None)
    # (N, t, nu, eta) and the etas of the compiled calls: eta/10, ... down to continuation_eta, then eta
    for (N, t, nu, eta), etas in [
        ((1000, 10, 1.0, 1382.0), [138.2, 1382.0]),
        ((200, 8, 20.0, 50.0), [50.0]),
        ((500, 40, 1.0, 1e4), [1e3, 1e4]),
    ]:
        calls.clear()
        model = _model(N, t, nu, eta)
        ref, _ = _solve(model, False)
        fast, stages = _solve(model, "auto")
        assert "compiled" in stages and fast.relative_gap <= TOL
        assert calls == pytest.approx(etas)
        assert fast.iterations == ref.iterations + len(calls)  # (each call counted its one step)
        np.testing.assert_array_equal(fast.w, ref.w)


def test_a_near_miss_is_finished_by_the_last_python_stage(monkeypatch):
    """A compiled w whose certified gap lies between the target and newton_gap: the augmented
    Lagrangian stage (Newton first) finishes from it."""
    model = _model(1000, 10, 1.0, 1382.0)
    ref, _ = _solve(model, False, tol=1e-12)
    w_near = 0.999 * ref.w + 0.001 / ref.w.size  # a certified gap ~1e-4 (checked below)
    gap = DualEvaluator(model, NewtonOptions()).point(w_near, 0.5 * TOL).gap
    assert 0.5 * TOL < gap <= AuglagOptions().newton_gap
    _fake_resolve(monkeypatch, w_near)
    fast, stages = _solve(model, "auto")
    assert stages[-3:] == ["compiled", "augmented_lagrangian", "solved"]
    _agree(fast, ref, 1382.0)


def test_a_cold_compiled_solve_keeps_its_last_hessian_for_the_next_warm_solve():
    """The state of a cold solve that the compiled loop finished: the last Hessian it formed at eta,
    equal to ``Model.dual_hessian`` at its point (to rounding: numpy against BLAS dsyrk)."""
    model = _model(400, 12, 20.0, 200.0)
    sol, stages = _solve(model, "auto")
    assert stages == ["compiled", "solved"]
    kept = sol.solver_state.curvature
    reference = model.dual_hessian(kept.w, kept.face, kept.d)
    np.testing.assert_allclose(kept.H, reference, rtol=1e-10, atol=1e-10 * np.abs(kept.H).max())
    assert kept.usable_for(model)


def test_the_gate():
    opts = NewtonOptions(compiled="auto")

    def pays(N: int, t: int, options=opts) -> bool:
        model = _model(N, t, 1.0, 50.0)
        return auglag._compiled_cold_pays(model, DualEvaluator(model, options))

    assert pays(1000, 10)
    assert pays(1000, 10, NewtonOptions())  # the default, "cold"
    assert not pays(1000, 10, NewtonOptions(compiled=False))  # the option off
    # N <= COLD_COMPILED_SAMPLES: t up to COLD_COMPILED_MAX_T (100)
    assert pays(1000, 100) and not pays(1000, 101)
    assert pays(auglag.COLD_COMPILED_SAMPLES, 2) and pays(auglag.COLD_COMPILED_SAMPLES, 100)
    # above it: t >= COLD_COMPILED_MIN_T and N t^2 up to COLD_COMPILED_LARGE_WORK (1e8)
    tall = auglag.COLD_COMPILED_SAMPLES + 1
    assert not pays(tall, 2) and not pays(tall, auglag.COLD_COMPILED_MIN_T - 1)
    assert pays(tall, auglag.COLD_COMPILED_MIN_T)
    assert pays(10_000, 100) and not pays(10_000, 101)
    assert pays(20_000, 70) and not pays(20_000, 71)  # 9.8e7, 1.008e8
    wide = _model(1000, 101, 1.0, 50.0)
    _, stages = _solve(wide, "auto")
    assert "compiled" not in stages


def _clarabel_agrees(model: ERLPBoost, sol) -> bool:
    """Whether Clarabel's pair, where the library certifies it at TOL, has the dual value of ``sol``
    within the sum of both certified gaps; True where Clarabel's pair is not certified (no
    reference there: the other path is)."""
    ref = model.solve(method="clarabel", tol=TOL)
    if ref.status != "optimal":
        return True
    scale = max(1.0, abs(ref.primal_value))
    gaps = (max(sol.relative_gap, 0.0) + max(ref.relative_gap, 0.0)) * scale
    return abs(sol.dual_value - ref.dual_value) <= gaps + 1e-12


GRID = [  # N, t: few and many columns
    (10, 3),
    (10, 8),
    (200, 20),
    (1000, 10),
    (1000, 100),
    (10_000, 10),
    (10_000, 40),
]


@pytest.mark.parametrize("N, t", GRID)
@pytest.mark.parametrize("nu_frac", [None, 0.1, 1.0])  # nu = 1, N/10, N
@pytest.mark.parametrize("eta", [50.0, 4605.0, 1e6])
def test_cold_solves_over_the_grid(N, t, nu_frac, eta):
    nu = 1.0 if nu_frac is None else max(1.0, nu_frac * N)
    model = _model(N, t, nu, eta, seed=7)
    ref, _ = _solve(model, False)
    fast, stages = _solve(model, "auto")
    _agree(fast, ref, eta)
    evaluator = DualEvaluator(model, NewtonOptions(compiled="auto"))
    if auglag._compiled_cold_pays(model, evaluator) and ref.iterations > 0:
        assert "compiled" in stages
    if N <= 200:  # Clarabel on the small ones: an independent solve (certified in 25 of these 27)
        assert _clarabel_agrees(model, ref) and _clarabel_agrees(model, fast)


def test_the_stages_share_one_fortran_copy_of_a_c_ordered_u(monkeypatch):
    """A C-ordered U (as ``np.column_stack`` gives): every compiled stage reads one Fortran-ordered
    copy of it (``compiled.resolve`` would copy any other layout on every call), the model's own U is
    left as it was, the stages run at eta/10 then eta, and the solve is the one over the
    Fortran-ordered U bit for bit (the loop reads the same numbers)."""
    fortran_model = _model(1000, 10, 1.0, 1382.0)
    U = np.ascontiguousarray(fortran_model.U)
    model = ERLPBoost(U, nu=1.0, eta=1382.0)
    assert model.U.flags.c_contiguous and not model.U.flags.f_contiguous
    seen, original = [], compiled.resolve

    def recording(stage_model, w0, target, kept=None, **cold):
        seen.append((stage_model.eta, stage_model.U, stage_model.stump_columns))
        return original(stage_model, w0, target, kept, **cold)

    monkeypatch.setattr(compiled, "resolve", recording)
    sol, stages = _solve(model, "auto")
    assert "compiled" in stages and sol.relative_gap <= TOL
    assert [eta for eta, _, _ in seen] == pytest.approx([138.2, 1382.0])
    assert all(u.flags.f_contiguous and u is seen[0][1] for _, u, _ in seen)
    np.testing.assert_array_equal(seen[0][1], U)
    assert model.U.flags.c_contiguous and all(u is not model.U for _, u, _ in seen)
    seen.clear()
    ref, _ = _solve(fortran_model, "auto")
    assert [u is fortran_model.U for _, u, _ in seen] == [True, True]  # (no copy of a Fortran U)
    np.testing.assert_array_equal(sol.w, ref.w)
    assert sol.dual_value == ref.dual_value and sol.iterations == ref.iterations


def test_the_last_compiled_stage_keeps_the_models_stump_operator(monkeypatch):
    """A run's model with its stump operator (``Model.stump_columns``): the last compiled stage, at
    eta, is that model over the shared copy of U, its operator included; the continuation stages
    (``with_eta``) have none, as a model built anew over U."""
    from tests.solvers.test_compiled import _stump_model

    model = _stump_model(monkeypatch, np.random.default_rng(3), 300, 12, 30.0, 4605.0)
    seen, original = [], compiled.resolve

    def recording(stage_model, w0, target, kept=None, **cold):
        seen.append((stage_model.eta, stage_model.stump_columns))
        return original(stage_model, w0, target, kept, **cold)

    monkeypatch.setattr(compiled, "resolve", recording)
    sol, stages = _solve(model, "auto")
    assert "compiled" in stages and sol.relative_gap <= TOL
    assert [eta for eta, _ in seen] == pytest.approx([460.5, 4605.0])
    assert seen[0][1] is None and seen[-1][1] is model.stump_columns


def test_the_cold_certificate_takes_the_loops_evaluation_but_at_one_column(monkeypatch):
    """The compiled cold start certifies its w from the loop's last evaluation (at eta), as the warm
    stage does, so no Python evaluation at that w; at t = 1 (w = (1), a boosting run's first solve)
    from the Python evaluation, so that a run's first d is the Python path's bit for bit (as a Dask
    fit computes it). Either way the Solution is certified and equals the Python path's within the
    two certified gaps."""
    from dualboost.solvers import newton

    taken = []
    original = newton.certified_point

    def recording(model, w, exact_below=np.inf, regularizer=None, evaluated=None):
        taken.append((model.n_hypotheses, evaluated is not None))
        return original(model, w, exact_below, regularizer, evaluated)

    monkeypatch.setattr(newton, "certified_point", recording)
    for t in (1, 12):
        taken.clear()
        model = _model(600, t, 6.0, 200.0, seed=t)
        sol, stages = _solve(model, "auto")
        assert "compiled" in stages and sol.relative_gap <= TOL
        assert taken[0] == (t, t > 1)  # the compiled stage's point: the first certified
        ref, _ = _solve(model, False)
        slack = (sol.relative_gap + ref.relative_gap) * max(1.0, abs(ref.primal_value)) + 1e-12
        assert abs(sol.dual_value - ref.dual_value) <= slack
