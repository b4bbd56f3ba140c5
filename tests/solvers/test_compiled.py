"""The compiled warm re-solve of ERLPBoost's dual against the Python path.

``dualboost/solvers/_capped_newton.pyx`` does a whole Newton re-solve in one call
(docs/architecture.md#compiled-code); the Python path (dualboost.solvers.newton, auglag) is the
reference. Checked here, each against that reference on the same instances:

* one evaluation ``(D(w), d(w), U^T d)`` equals ``Model.dual_value_and_grad`` to rounding for eta up
  to 1e6, nu from 1 to N, non-uniform priors and points on the simplex's faces, and on 3,000 rows
  of tied log-weights and on few tied levels from N = 10 to 1e5 (the capped set's search: its pivots,
  the tied rows, nu at and beside integers);
* a solve to a tight gap reaches the Python path's optimum: value, d and w to 1e-10 (where both
  converge to the same face), N from 10 to 1e5;
* along a boosting-like sequence of warm re-solves, ``NewtonOptions(compiled=True)`` and ``False``
  return solutions whose library certificates pass or fail alike, with dual values within the
  certified gaps, and the compiled loop did run where it applies (eta <= lp_first_eta);
* the option is validated, and without the built module the Python path runs (a warning once per
  process only where ``compiled=True`` asked for it);
* through a stump operator (``Model.stump_columns``: its products and its Gram called back instead of
  BLAS on U) the loop reaches the optimum of the same model without the operator, the operator's
  passes did run, a Gram that declines leaves the BLAS path's result bit for bit, and an operator's
  bad result or error is raised, not swallowed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dualboost.problems.erlpboost import ERLPBoost
from dualboost.solvers import AuglagOptions, NewtonOptions, compiled
from dualboost.solvers.newton import certified_point

#: the built module (None in a source tree never compiled: test_the_compiled_solver_is_built fails there)
_capped_newton = compiled._capped_newton


def _U(rng, N: int, t: int) -> np.ndarray:
    return np.asfortranarray(np.sign(rng.normal(size=(N, t))))


def _evaluate(model: ERLPBoost, w: np.ndarray):
    """The compiled evaluation at w (a solve with no step)."""
    reg = model.regularizer
    out = _capped_newton.solve(
        np.asfortranarray(model.U),
        np.log(reg.d0),
        float(reg.nu),
        float(reg.eta),
        np.ascontiguousarray(w),
        0.0,
        0,
    )
    return out[3], out[1], out[2]


def _python() -> AuglagOptions:
    return AuglagOptions(newton=NewtonOptions(compiled=False))


def test_the_compiled_solver_is_built():
    """CI runs the compiled path: the extension exists in an installed tree, and 'auto' uses it."""
    from dualboost.solvers import _capped_newton as module

    assert callable(module.solve) and compiled.available()
    model = ERLPBoost(np.ones((3, 2)), nu=1.0, eta=10.0)
    assert NewtonOptions().compiled == "cold"  # warm re-solves opt-in (NewtonOptions' comment says why)
    assert compiled.applies(model, "auto") and compiled.applies(model, "auto", cold=True)
    assert compiled.applies(model, "cold", cold=True) and not compiled.applies(model, "cold")
    assert not compiled.applies(model, False, cold=True)


@pytest.mark.parametrize("eta", [1.0, 37.0, 1e3, 1e6])
@pytest.mark.parametrize(
    "N, nu",
    [(10, 1.0), (10, 2.5), (10, 10.0), (500, 1.0), (500, 7.0), (500, 50.0), (500, 499.5), (500, 500.0)],
)
def test_compiled_evaluation_equals_the_python_evaluation(N, nu, eta):
    rng = np.random.default_rng(N + int(10 * nu))
    t = 6
    U = _U(rng, N, t) * rng.uniform(0.2, 1.0, size=(N, t))  # entries in [-1, 1], not only signs
    d0 = rng.uniform(0.5, 1.5, size=N)
    model = ERLPBoost(U, nu=nu, eta=eta, d0=d0 / d0.sum())
    for w in (np.full(t, 1 / t), rng.dirichlet(np.ones(t)), np.eye(t)[2]):
        _check_evaluation(model, w, rtol=1e-11)


def _check_evaluation(model: ERLPBoost, w: np.ndarray, rtol: float) -> np.ndarray:
    """The compiled evaluation at w against ``Model.dual_value_and_grad``: d and g to ``rtol``; the
    reference d."""
    value, d, g = _evaluate(model, w)
    ref_value, ref_g, ref_d = model.dual_value_and_grad(w)
    # the same formulas on the same arrays: the sums' order differs (BLAS against numpy), so the
    # results agree to a few ulps of their size; the value carries (1/eta) ln of sums ~ N terms
    assert value == pytest.approx(ref_value, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(d, ref_d, rtol=rtol, atol=1e-15)
    np.testing.assert_allclose(g, ref_g, rtol=rtol, atol=1e-14)
    nu = model.regularizer.nu
    assert d.sum() == pytest.approx(1.0, abs=1e-12) and d.max() <= 1 / nu * (1 + 1e-12)
    return ref_d


@pytest.mark.parametrize("eta", [1.0, 37.0, 1e3, 1e6])
@pytest.mark.parametrize("nu_of_N", ["1", "0.1 N", "0.5 N", "N - 1", "N"])
@pytest.mark.parametrize("columns", ["signs", "one repeated"])
@pytest.mark.parametrize("N", [3000, 5000])
def test_compiled_evaluation_with_tied_weights_equals_the_python_evaluation(N, columns, nu_of_N, eta):
    """Sign columns on 3,000 and 5,000 rows (few distinct margins: many tied log-weights; one
    repeated column: two values), uniform prior: the capped set's search splits the rows about tied
    pivots and ends at a tied group (capped sets of up to 2,962 of 3,000 rows, 1,445 of 1,500 ties at
    eta = 1e6), in the log domain at eta = 1e6 where weights underflow, libm's exponentials on 3,000
    rows and numpy's on 5,000 (VECTOR_EXP); each against ``Model.dual_value_and_grad``, d to 1e-10
    (the tied rows' d differ by up to 5.5e-11 of theirs here, as they did before this search: at
    eta = 1e6, nu = 300, 1,200 tied rows get exactly 1/1200 here and 1/1200 + 3.5e-14 in the
    reference)."""
    nu = {"1": 1.0, "0.1 N": 0.1 * N, "0.5 N": 0.5 * N, "N - 1": N - 1.0, "N": float(N)}[nu_of_N]
    rng = np.random.default_rng(int(nu) + int(eta))
    t = 6
    U = np.sign(rng.normal(size=(N, t)))
    if columns == "one repeated":
        U[:, 1:] = U[:, :1]
    model = ERLPBoost(np.asfortranarray(U), nu=nu, eta=eta)
    capped = 0
    for w in (np.full(t, 1 / t), rng.dirichlet(np.ones(t)), np.eye(t)[2]):
        ref_d = _check_evaluation(model, w, rtol=1e-10)
        capped = max(capped, int(np.sum(ref_d >= (1 - 1e-12) / nu)))
    if nu_of_N == "N - 1":
        assert capped > 256  # (a capped set of most rows)


def _levels_model(levels: np.ndarray, nu: float, eta: float) -> ERLPBoost:
    """One column, w = 1, uniform prior: the log-weights are ``eta levels / max levels`` (+ log 1/N)."""
    return ERLPBoost(np.asfortranarray(-(levels / levels.max())[:, None]), nu=nu, eta=eta)


def _check_capped_set(model: ERLPBoost) -> int:
    """The compiled evaluation at w = 1 against the Python one: the same rows at the cap (to 1e-12 of
    it: a free row's ``xi e_n`` may round onto the cap, and at nu = N capped_softmax scales the last
    rows rather than setting them), d and g to 1e-10, the value to 1e-11 (at N = 1e5 and eta = 1e6
    its sums over 5e4 capped rows differ by 1.4e-12 between the paths, as before this search);
    their number."""
    value, d, g = _evaluate(model, np.ones(1))
    ref_value, ref_g, ref_d = model.dual_value_and_grad(np.ones(1))
    assert value == pytest.approx(ref_value, rel=1e-11, abs=1e-12)
    np.testing.assert_allclose(d, ref_d, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(g, ref_g, rtol=1e-10, atol=1e-14)
    at_cap = (1.0 - 1e-12) / model.regularizer.nu
    assert np.array_equal(d >= at_cap, ref_d >= at_cap) and d.sum() == pytest.approx(1.0, abs=1e-12)
    return int(np.sum(d >= at_cap))


@pytest.mark.parametrize("eta", [1.0, 1e3, 1e6])
@pytest.mark.parametrize("N", [10, 100, 1_000, 10_000, 100_000])
def test_the_capped_set_is_capped_softmaxs_on_tied_levels_and_at_the_caps_boundaries(N, eta):
    """The capped set's search (a selection of the rank at which Lemma 16's test first holds, no sort;
    in the log domain at eta = 1e6) against capped_softmax on log-weights of five levels (large tied
    groups, so that pivots, splits and the set's end fall on ties), nu from 1.5 to N - 0.5 (integers,
    where 1 - i/nu reaches 0, and halves beside them), and with a top level of exactly floor(nu) rows
    (at eta >= 1e3 the set then takes all the mass, 1 - |C|/nu = 0, or all but a sliver of it): the
    same rows at the cap, d to 1e-10."""
    rng = np.random.default_rng(N)
    for nu in (1.5, 2.0, max(1.5, N / 5), N / 2, N / 2 + 0.5, N - 1.0, N - 0.5):
        levels = rng.integers(1, 6, size=N).astype(float)
        _check_capped_set(_levels_model(levels, nu, eta))
        levels = rng.integers(1, 5, size=N).astype(float)
        levels[rng.choice(N, size=int(nu), replace=False)] = 6.0  # floor(nu) rows on top
        capped = _check_capped_set(_levels_model(levels, nu, eta))
        if eta >= 1e3:  # the top rows at the cap, the next level's e^-(eta / 6) of them below
            assert capped == int(nu)


def test_the_capped_set_search_on_random_tied_log_weights():
    """400 small random instances (N from 2 to 80, one to six levels plus noise-free ties, nu uniform in
    [1, N], eta from 1 to 1e6): the compiled capped set and d are capped_softmax's, whatever the
    pivots the search meets (the median of three of every range, ties among them)."""
    rng = np.random.default_rng(32)
    sizes = []
    for _ in range(400):
        N = int(rng.integers(2, 81))
        levels = rng.integers(1, int(rng.integers(2, 8)), size=N).astype(float)
        if rng.random() < 0.5:  # distinct values as well as tied ones
            levels += rng.integers(0, 2, size=N) * rng.random(N)
        nu = float(rng.choice([rng.uniform(1.0, N), float(rng.integers(1, N + 1))]))
        sizes.append(_check_capped_set(_levels_model(levels, nu, 10 ** rng.uniform(0, 6))))
    assert min(sizes) == 0 and max(sizes) > 20  # (softmaxes and large capped sets both met)


@pytest.mark.parametrize("eta", [50.0, 1e3, 3e4])
@pytest.mark.parametrize("nu_of_N", [0.1, 0.5])
def test_the_capped_set_after_a_solves_searches_is_capped_softmaxs(nu_of_N, eta):
    """Each search starts from the previous search's rows at its threshold (its first pivots): after
    a solve's evaluations at other points (sign columns, few distinct margins: tied log-weights; at
    eta = 3e4 most of them below e^-600 of the largest), the returned d at the returned w is
    capped_softmax's there: the same rows at the cap, d to 1e-10."""
    rng = np.random.default_rng(int(eta) + int(10 * nu_of_N))
    N, t = 2000, 8
    model = ERLPBoost(_U(rng, N, t), nu=nu_of_N * N, eta=eta)
    reg = model.regularizer
    out = _capped_newton.solve(
        np.asfortranarray(model.U), np.log(reg.d0), float(reg.nu), float(reg.eta), np.full(t, 1 / t), 0.0, 40
    )
    w, d, steps, evaluations = out[0], out[1], out[5], out[7]
    assert steps >= 1 and evaluations >= 2  # (the last evaluation after another one)
    ref_d = model.dual_value_and_grad(w)[2]
    np.testing.assert_allclose(d, ref_d, rtol=1e-10, atol=1e-15)
    at_cap = (1.0 - 1e-12) / reg.nu
    assert np.array_equal(d >= at_cap, ref_d >= at_cap) and np.sum(d >= at_cap) > 0


def test_numpys_exponentials_underflow_without_error_under_a_callers_seterr():
    """From VECTOR_EXP rows the weights' exponentials are numpy's: weights that underflow (eta = 1e4)
    give the same evaluation where the caller made numpy raise on underflow."""
    rng = np.random.default_rng(5)
    N, t = 5000, 4
    model = ERLPBoost(np.asfortranarray(np.sign(rng.normal(size=(N, t)))), nu=500.0, eta=1e4)
    w = rng.dirichlet(np.ones(t))
    value, d, g = _evaluate(model, w)
    assert np.sum(d == 0.0) > 0  # (underflowed)
    with np.errstate(all="raise"):
        again = _evaluate(model, w)
    assert again[0] == value and np.array_equal(again[1], d) and np.array_equal(again[2], g)


@pytest.mark.parametrize("nu", [1.0, 20.0])
def test_compiled_d_is_on_the_capped_simplex_as_often_as_the_python_one(nu):
    """The compiled evaluation normalises d as capped_softmax does (the weights' sum in numpy's order,
    then divided by it, or scaled by capped_softmax's xi) and then moves the rounding residual of its
    sum onto its largest entry off the cap (``_sum_to_one``): its d needs no repair (sum exactly 1 as
    numpy sums it, every entry at most the cap) at least as often as the Python path's and in nearly
    every evaluation (measured 192/200 and 200/200 against 82 and 175 for the Python path), so that
    the certificate from it is exact (``certified_point``: no bound, ``certify`` no second pass).
    Scaled by exp(-log(sum)) and summed in row order it was exact in 8-10 % of a boosting run's
    solves; divided as capped_softmax does, without the residual moved, 70/200 and 156/200."""
    rng = np.random.default_rng(11)
    N, t, eta = 700, 20, 40.0
    model = ERLPBoost(_U(rng, N, t) * rng.uniform(0.2, 1.0, size=(N, t)), nu=nu, eta=eta)
    exact = {"compiled": 0, "python": 0}
    for _ in range(200):
        w = rng.dirichlet(np.full(t, 0.5))
        exact["compiled"] += model.repair_primal(_evaluate(model, w)[1])[1] == 0.0
        exact["python"] += model.repair_primal(model.dual_value_and_grad(w)[2])[1] == 0.0
    assert exact["python"] >= 60  # (the share this test measures against)
    assert exact["compiled"] >= max(exact["python"], 180), exact


def _tight_reference(model: ERLPBoost):
    return model.solve(method="auglag", side="dual", tol=1e-13, options=_python())


INSTANCES = [  # N, t, nu, eta: both paths reach a relative gap below 1e-13 on these (the compiled one
    # with the Python stages where its loop stops short)
    (10, 4, 1.0, 5.0),
    (200, 15, 1.0, 50.0),
    (200, 15, 20.0, 50.0),
    (200, 15, 200.0, 50.0),
    (2_000, 30, 200.0, 400.0),  # (d was off by up to 8e-8 on the lowest-supported scipy, 1.11.1, before
    # the compiled evaluation took its weights from one exp per row; within 1e-10 on both stages since).
    # eta = 400, not 300: the loop's line search stops where D's rounding hides its rise, at a gap of
    # 1e-12 or of 1e-7 by the last bits of the steps (on 240 such sign instances, N = 200 to 2,000,
    # 78 stop above 1e-9 with the capped set searched in the linear domain, 74 with the log domain's
    # search before it; eta = 300 here stops at 1.1e-7 with the first, eta = 400 at 2.5e-12 with both)
]


@pytest.mark.parametrize("N, t, nu, eta", INSTANCES)
def test_compiled_resolve_reaches_the_python_optimum(N, t, nu, eta):
    _compare_optima(N, t, nu, eta, w_tol=1e-10)


def test_compiled_resolve_reaches_the_python_optimum_at_100000_examples():
    # w is less well determined here than d and D: the Hessian on the face has eigenvalues ~1e-2
    # (t = 10 sign columns of 1e5 examples are nearly orthogonal, eta = 20), and a gap of 1e-14
    # leaves w within sqrt(2 gap / 1e-2) ~ 1.4e-6 of the optimum by strong concavity; measured 1.2e-9
    _compare_optima(100_000, 10, 10_000.0, 20.0, w_tol=1e-8)


def _compare_optima(N, t, nu, eta, w_tol):
    """The compiled loop from uniform w until no step makes progress (with its damped retries, as the
    cold start runs it), and the solve through it as a user runs it (``method="auglag"`` with the
    compiled loop, the Python stages finishing where its certificate misses), against the Python
    path's tight optimum. The solve: value, d to 1e-10 and w to ``w_tol``. The loop alone: it stops
    where no step makes progress, which near the optimum (D's change the square of a gap ~1e-8, at
    its rounding) rests on rounding, so its d is held to what its own certified gap implies: the
    primal is (1/eta)-strongly convex in the l1 norm (Pinsker), so ``|d - d*|_1 <= sqrt(2 eta gap)``
    for the absolute gap; its value to 1e-10."""
    rng = np.random.default_rng(N + t)
    model = ERLPBoost(_U(rng, N, t), nu=nu, eta=eta)
    w, counts, _, _ = compiled.resolve(model, np.full(t, 1 / t), 0.0, patience=NewtonOptions().patience)
    ref = _tight_reference(model)
    assert ref.relative_gap <= 1e-13 and counts["steps"] >= 1
    loop = certified_point(model, w)
    assert loop.gap <= 1e-6 and abs(w.sum() - 1.0) <= 1e-14 and w.min() >= 0.0
    assert loop.value == pytest.approx(ref.dual_value, abs=1e-10)
    bound = np.sqrt(2.0 * eta * max(loop.gap, 0.0) * max(1.0, abs(ref.primal_value))) + 1e-10
    assert np.abs(loop.d - ref.d).sum() <= bound
    options = AuglagOptions(newton=NewtonOptions(compiled="auto"))
    sol = model.solve(method="auglag", side="dual", tol=1e-13, options=options)
    assert sol.relative_gap <= 1e-13
    assert np.array_equal(sol.w > 0, ref.w > 0)  # the same face
    assert sol.dual_value == pytest.approx(ref.dual_value, abs=1e-10)
    np.testing.assert_allclose(sol.d, ref.d, atol=1e-10)
    np.testing.assert_allclose(sol.w, ref.w, atol=w_tol)


@pytest.mark.parametrize("eta", [50.0, 1e3, 1e6])
@pytest.mark.parametrize("nu", [1.0, 30.0, 300.0])
def test_warm_resolves_certify_alike_with_and_without_the_compiled_loop(nu, eta, monkeypatch):
    """Boosting-like sequences (six instances): the columns enter one at a time, each solve
    warm-started from the previous one, at the practical tolerance; the library's certificate of
    every solution passes or fails alike on both paths, and the dual values agree within the
    certified gaps. Where the compiled loop runs, its own result stands (its certificate meets the
    target) in at least a third of the calls: over 40 such instances it stood in 91-92 % of them at
    eta = 50 and 47-56 % at eta = 1e3 (N = 300 random signs, where the dual is stiff and the Python
    stages finish more often); which instance's calls stand depends on rounding, so the count is
    taken over several."""
    N, t, tol, seeds = 300, 14, 1e-3, 6
    calls = []  # per compiled call: whether the library's certificate of its w met the target
    resolve = compiled.resolve

    def counted(model, w0, target, kept=None, **cold):
        w, counts, formed, evaluated = resolve(model, w0, target, kept, **cold)
        if "start" in cold:  # (a warm solve's call; the first, cold solve's stages pass the cold start's)
            calls.append(certified_point(model, w).gap <= target)
        return w, counts, formed, evaluated

    monkeypatch.setattr(compiled, "resolve", counted)
    for seed in range(seeds):
        rng = np.random.default_rng(int(nu) + int(np.log10(eta)) + 100 * seed)
        U = _U(rng, N, t)
        _certify_alike([ERLPBoost(U[:, :k], nu=nu, eta=eta) for k in range(1, t + 1)], tol)
    if eta <= AuglagOptions().lp_first_eta:
        assert len(calls) == seeds * (t - 1)  # every warm solve went through the compiled loop first
        assert sum(calls) >= len(calls) / 3  # and its result stood in a third of them or more
    else:
        assert not calls  # above lp_first_eta the LP-limit stages run, in Python


@pytest.mark.parametrize("eta", [1.0, 50.0, 1e3, 1e6])
@pytest.mark.parametrize("nu", [1.0, 30.0, 300.0])
def test_the_certificate_from_the_loops_evaluation_is_the_python_one(nu, eta):
    """``compiled.resolve`` returns its last evaluation at the w it returns (not at a trial point);
    the certificate computed from it (``certified_point(..., evaluated=...)``, what the warm compiled
    stage takes) equals the one from the Python evaluation at that w to rounding: the dual value to
    1e-12 of its size (the evaluations' sums in another order), d to 1e-11 relative (as in
    test_compiled_evaluation_equals_the_python_evaluation), U^T d in absolute terms (sum d = 1): N ulps
    of its sums plus d's rounding, which carries eta times the margins' (~2e-16 eta), and the
    certified gap to 1e-11. Warm re-solves from the kept Hessian along a boosting-like sequence (where
    the loop's buffers swap between the point and the trial), nu from 1 to N = 300, eta up to 1e6."""
    rng = np.random.default_rng(int(nu) + int(np.log10(eta)))
    N, t = 300, 12
    U = _U(rng, N, t)
    kept, w = None, np.ones(1)
    for k in range(1, t + 1):
        model = ERLPBoost(U[:, :k], nu=nu, eta=eta)
        w0 = np.append(w, 0.0)[:k] if k > 1 else w
        w0 = np.full(k, 1 / k) if w0.sum() == 0 else w0 / w0.sum()
        w, _, formed, evaluated = compiled.resolve(model, w0, 1e-9, kept)
        kept = formed if formed is not None else kept
        value, g, d = evaluated[:3]
        ref_value, ref_g, ref_d = model.dual_value_and_grad(w)
        assert value == pytest.approx(ref_value, rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(d, ref_d, rtol=1e-11, atol=1e-15)
        np.testing.assert_allclose(g, ref_g, rtol=0, atol=N * 1e-16 + 2e-16 * eta)
        got, ref = certified_point(model, w, evaluated=evaluated), certified_point(model, w)
        assert got.gap == pytest.approx(ref.gap, abs=1e-11)
        assert got.value == value and got.d is d  # taken, not evaluated again
    with pytest.raises(ValueError, match="no other regularizer"):
        certified_point(model, w, regularizer=model.regularizer, evaluated=evaluated)


@pytest.mark.parametrize("eta", [1.0, 50.0, 1e3, 1e6])
@pytest.mark.parametrize("nu", [1.0, 30.0, 300.0])
def test_the_loops_f_of_d_is_the_regularisers_value_and_certifies_alike(nu, eta, monkeypatch):
    """Where the loop's evaluation carries ``f`` (``Evaluation.f``: d on the capped simplex at
    tolerance 0, f(d) by the kernels of ``dualboost/conjugates/_capped_sums.pxd``), d passes the
    model's own membership test and ``f`` is ``regularizer.value(d)`` bit for bit; the certificate
    taken from it (no pass over d) is the one computed without it, field for field and bit for bit,
    and it leaves f(d) in the model's ``regularizer_values`` for the stopping rule (a value asked
    there again is not computed). Where it is NaN, d failed that test (the certificate computes the
    repair itself). Warm re-solves along a boosting-like sequence, nu from 1 to N = 300, eta to 1e6."""
    rng = np.random.default_rng(int(nu) + 7 * int(np.log10(eta)))
    N, t = 300, 12
    U = _U(rng, N, t)
    kept, w, carried = None, np.ones(1), 0
    for k in range(1, t + 1):
        model = ERLPBoost(U[:, :k], nu=nu, eta=eta)
        reg = model.regularizer
        w0 = np.append(w, 0.0)[:k] if k > 1 else w
        w0 = np.full(k, 1 / k) if w0.sum() == 0 else w0 / w0.sum()
        w, _, formed, evaluated = compiled.resolve(model, w0, 1e-9, kept)
        kept = formed if formed is not None else kept
        d = evaluated.d
        assert reg.summed_in_one_pass
        if np.isnan(evaluated.f):
            assert not reg.in_domain(d, tol=0.0)
            continue
        carried += 1
        assert reg.in_domain(d, tol=0.0) and evaluated.f == reg.value(d)
        got = certified_point(model, w, evaluated=evaluated)
        ref = certified_point(ERLPBoost(U[:, :k], nu=nu, eta=eta), w, evaluated=evaluated._replace(f=np.nan))
        assert got.repair[0] is d and got.repair[1] == 0.0
        assert (got.gap, got.primal, got.dual, got.value) == (ref.gap, ref.primal, ref.dual, ref.value)
        with monkeypatch.context() as patch:  # the stopping rule's f(d): the kept value, not computed
            patch.setattr(type(reg), "value", lambda self, x: pytest.fail("f(d) computed again"))
            assert model.primal_from_edges(d, evaluated.grad) == got.primal
    # most last points are exactly on the capped simplex; at nu = N, d is the cap 1/N everywhere,
    # whose sum misses 1 by rounding (the repair moves it)
    assert carried >= t // 2 if nu < N else carried == 0


def test_the_loop_computes_no_f_of_d_where_the_regulariser_sums_otherwise():
    """Above ``EXACT_SUM_MAX`` examples the regulariser's value is numpy's (not the one-pass kernel):
    the loop's evaluation carries no ``f`` and the certificate makes the repair itself (numpy's sum at
    this N differs between numpy versions: d may or may not need one)."""
    rng = np.random.default_rng(5)
    N = 9000
    model = ERLPBoost(_U(rng, N, 3), nu=1.0, eta=20.0)
    assert not model.regularizer.summed_in_one_pass
    w, _, _, evaluated = compiled.resolve(model, np.full(3, 1 / 3), 1e-9)
    assert np.isnan(evaluated.f)
    point = certified_point(model, w, evaluated=evaluated)
    repaired, moved = model.repair_primal(evaluated.d)  # (numpy's sum at this N: moved may be > 0)
    np.testing.assert_array_equal(point.repair[0], repaired)
    assert point.repair[1] == moved and np.isfinite(point.gap)


def _certify_alike(models: list[ERLPBoost], tol: float) -> None:
    """Each model solved warm from the previous one's solution, with ``NewtonOptions(compiled=True)``
    and ``False``: the library's certificates pass or fail alike, and the dual values agree within
    the certified gaps."""
    previous = {True: None, False: None}
    for model in models:
        got = {}
        for flag in (True, False):
            options = AuglagOptions(newton=NewtonOptions(compiled=flag))
            warm = previous[flag]
            sol = model.solve(method="auglag", side="dual", tol=tol, warm_start=warm, options=options)
            got[flag], previous[flag] = sol, sol
        fast, ref = got[True], got[False]
        assert (fast.relative_gap <= tol) == (ref.relative_gap <= tol)
        # both values lie within their certified gaps of the optimum (relative to max(1, |P|))
        slack = (fast.relative_gap + ref.relative_gap) * max(1.0, abs(ref.primal_value)) + 1e-12
        assert abs(fast.dual_value - ref.dual_value) <= slack


def test_option_is_validated():
    with pytest.raises(ValueError, match="NewtonOptions.compiled must be True, False, 'auto' or 'cold'"):
        NewtonOptions(compiled="yes")
    with pytest.raises(ValueError, match="NewtonOptions.compiled"):
        NewtonOptions(compiled=1)


def test_without_the_build_the_python_path_runs(monkeypatch):
    rng = np.random.default_rng(5)
    U = _U(rng, 100, 6)
    model = ERLPBoost(U, nu=10.0, eta=40.0)
    first = ERLPBoost(U[:, :5], nu=10.0, eta=40.0).solve(method="auglag", side="dual", tol=1e-6)
    expected = model.solve(method="auglag", side="dual", tol=1e-6, warm_start=first, options=_python())
    monkeypatch.setattr(compiled, "_capped_newton", None)
    compiled._warn_missing.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 'auto' falls back silently
        assert not compiled.applies(model, "auto")
        got = model.solve(method="auglag", side="dual", tol=1e-6, warm_start=first)
    np.testing.assert_array_equal(got.w, expected.w)
    options = AuglagOptions(newton=NewtonOptions(compiled=True))
    with pytest.warns(RuntimeWarning, match="_capped_newton is not built"):
        model.solve(method="auglag", side="dual", tol=1e-6, warm_start=first, options=options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process
        model.solve(method="auglag", side="dual", tol=1e-6, warm_start=first, options=options)
    compiled._warn_missing.cache_clear()


def test_a_warm_start_after_removed_and_appended_columns_goes_through_the_compiled_stage():
    """As tests/solvers/test_warm_columns.py on the Python path: two columns removed, three appended; the
    compiled stage runs first (reported to the callback), the solution is certified and agrees with
    a cold solve within the two certified gaps."""
    rng = np.random.default_rng(7)
    U = rng.uniform(-1, 1, size=(80, 15))
    previous = ERLPBoost(U[:, :12], nu=8, eta=20).solve(method="auglag", tol=1e-7)
    removed = [1, 5]
    model = ERLPBoost(np.delete(U, removed, axis=1), nu=8, eta=20)
    stages = []
    options = AuglagOptions(
        callback=lambda stage: stages.append((stage.name, stage.gap)), newton=NewtonOptions(compiled="auto")
    )
    warm = model.solve(method="auglag", tol=1e-7, warm_start=previous, removed=removed, options=options)
    cold = model.solve(method="auglag", tol=1e-7, options=_python())
    assert stages[0][0] == "compiled" and stages[-1][0] == "solved"
    assert warm.optimal and cold.optimal
    assert abs(warm.dual_value - cold.dual_value) <= warm.gap + cold.gap + 1e-12


def test_the_kept_hessian_is_the_exact_one_at_its_point_and_serves_the_next_solves():
    """The compiled loop returns the last Hessian it formed with its columns and point: it equals
    ``Model.dual_hessian`` there (the Python path's formula, numpy products against BLAS dsyrk: to
    rounding of its entries, ~eta N 1e-16), and as the warm-start state (``newton.Curvature``) it
    lets the next solves take chord steps: along a boosting-like sequence fewer Hessians are formed
    than steps are taken, every solution certified."""
    from dualboost.solvers.auglag import AuglagState

    rng = np.random.default_rng(3)
    N, t = 400, 30
    U = _U(rng, N, t)
    model = ERLPBoost(U, nu=20.0, eta=200.0)
    _, _, formed, _ = compiled.resolve(model, np.full(t, 1 / t), 1e-12)
    H, face, w_H, d_H, _ = formed
    reference = model.dual_hessian(w_H, face, d_H)
    np.testing.assert_allclose(H, reference, rtol=1e-10, atol=1e-10 * np.abs(H).max())
    np.testing.assert_allclose(d_H, model.dual_value_and_grad(w_H)[2], atol=1e-15)
    hessians = steps = 0
    previous = ERLPBoost(U[:, :5], nu=20.0, eta=200.0).solve(method="auglag", tol=1e-3)
    for k in range(6, t + 1):
        sol = ERLPBoost(U[:, :k], nu=20.0, eta=200.0).solve(method="auglag", tol=1e-3, warm_start=previous)
        assert sol.optimal and isinstance(sol.solver_state, AuglagState)
        hessians += sol.extra["hessians"]
        steps += sol.iterations
        previous = sol
    assert hessians < steps


def test_a_kept_hessian_of_the_wrong_shape_is_refused():
    model = ERLPBoost(np.sign(np.random.default_rng(0).normal(size=(20, 4))), nu=2.0, eta=10.0)
    with pytest.raises(ValueError, match="kept_H must be k x k"):
        compiled.resolve(model, np.full(4, 0.25), 1e-9, (np.eye(3), np.array([0, 1])))
    with pytest.raises(ValueError, match="kept_face must list distinct columns"):
        compiled.resolve(model, np.full(4, 0.25), 1e-9, (np.eye(2), np.array([1, 1])))
    for outside in ([0, 4], [-1, 0]):  # columns that U does not have
        with pytest.raises(ValueError, match="kept_H must be k x k"):
            compiled.resolve(model, np.full(4, 0.25), 1e-9, (np.eye(2), np.array(outside)))


def test_the_compiled_loop_applies_only_to_the_capped_entropy_dual():
    """Where D is not ``-f*(-U w)`` with the capped relative entropy at eta >= 1, the compiled loop is
    not used (it evaluates that formula itself, in the form the library uses from eta = 1 on)."""
    from dualboost.problems import BinaryERLPBoost, LPBoost

    U = np.sign(np.random.default_rng(1).normal(size=(30, 4)))
    assert compiled.applies(ERLPBoost(U, nu=2.0, eta=1.0), "auto")
    assert not compiled.applies(ERLPBoost(U, nu=2.0, eta=1.0), False)
    assert not compiled.applies(ERLPBoost(U, nu=2.0, eta=0.5), "auto")  # the stable form below eta = 1
    assert not compiled.applies(BinaryERLPBoost(U, nu=2.0, eta=10.0), "auto")  # another entropy
    assert not compiled.applies(LPBoost(U, nu=2.0), "auto")  # not a conjugate dual


def _stump_model(monkeypatch, rng, N: int, t: int, nu: float, eta: float) -> ERLPBoost:
    """ERLPBoost on a constant and t - 1 stumps at random features and data thresholds (rounded
    Gaussian features: ties), with the stump operator of those columns set as a run's driver sets it
    (its thresholds at 0: it pays for any size here)."""
    from dualboost.oracles import DecisionStumps
    from dualboost.oracles.stumps import Constant, Stump
    from dualboost.problems.kernels import StumpColumns

    monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", 0)
    monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 0)
    p = 4
    X = np.round(rng.normal(size=(N, p)), 1)
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=N) > 0, 1.0, -1.0)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = [Constant(n_features=p, sign=1)]
    for _ in range(t - 1):
        f = int(rng.integers(0, p))
        sign = int(rng.choice([-1, 1]))
        hypotheses.append(Stump(n_features=p, feature=f, threshold=float(rng.choice(X[:, f])), sign=sign))
    U = np.asfortranarray(np.column_stack([y * h.predict(X) for h in hypotheses]))
    model = ERLPBoost(U, nu=nu, eta=eta)
    model.stump_columns = StumpColumns.of(oracle, hypotheses)
    assert model.stump_columns is not None
    return model


@pytest.mark.parametrize(
    "N, t, nu, eta", [(60, 12, 1.0, 20.0), (300, 25, 30.0, 200.0), (300, 25, 300.0, 1e3)]
)
def test_the_hessian_through_a_stump_operator_is_the_blas_one(N, t, nu, eta, monkeypatch):
    """One step from the same points with and without the operator's passes: the Hessian formed from
    its Gram equals the one BLAS forms on U (both sums exact up to rounding relative to sum d = 1,
    scaled by eta). The steps themselves are not compared: on a face with near-equal stump columns
    the ridge that makes the factor definite depends on that rounding (the solves that follow are,
    in the next test)."""
    rng = np.random.default_rng(N + t)
    model = _stump_model(monkeypatch, rng, N, t, nu, eta)
    products, gram, grams = compiled._operator_passes(model)
    assert gram is None and grams is not None  # (the stump operator's Gram is compiled)
    reg = model.regularizer
    for w in (np.full(t, 1 / t), rng.dirichlet(np.ones(t)), rng.dirichlet(np.full(t, 0.2))):
        args = (model.U, np.log(reg.d0), nu, eta, np.ascontiguousarray(w), 0.0, 1, None, None)
        blas = _capped_newton.solve(*args)
        implicit = _capped_newton.solve(*args, products=products, grams=grams)
        assert blas[6] == implicit[6] == 1  # one Hessian formed, on the same face
        np.testing.assert_array_equal(blas[9], implicit[9])
        np.testing.assert_allclose(implicit[8], blas[8], rtol=0, atol=1e-13 * eta)


@pytest.mark.parametrize("nu, eta", [(1.0, 50.0), (30.0, 1e3), (300.0, 50.0)])
def test_warm_resolves_through_a_stump_operator_certify_alike(nu, eta, monkeypatch):
    """The boosting-like sequence above on stump columns with the operator a run sets
    (``Model.stump_columns``): the compiled loop ran through the operator's Gram, and every solution
    certifies as the Python path's does, with dual values within the certified gaps."""
    from dualboost.problems.kernels import StumpColumns

    rng = np.random.default_rng(int(nu))
    N, t, tol = 300, 14, 1e-3
    full = _stump_model(monkeypatch, rng, N, t, nu, eta)
    grams = []
    gram = StumpColumns.compiled_gram
    monkeypatch.setattr(StumpColumns, "compiled_gram", lambda self: grams.append(1) or gram(self))
    models = []
    for k in range(1, t + 1):
        models.append(ERLPBoost(full.U[:, :k], nu=nu, eta=eta))
        models[-1].stump_columns = full.stump_columns.restricted(np.arange(k))
    _certify_alike(models, tol)
    assert grams  # the loop was given the operator's Gram


def test_a_gram_that_declines_leaves_the_blas_result_bit_for_bit(monkeypatch):
    rng = np.random.default_rng(5)
    model = _stump_model(monkeypatch, rng, 200, 20, 10.0, 100.0)
    args = _solve_args(model)
    asked = []

    def declining(weights, face):
        asked.append(face.size)
        return None

    blas = _capped_newton.solve(*args)
    declined = _capped_newton.solve(*args, gram=declining)
    assert asked and len(asked) == blas[6]  # asked for every Hessian formed
    for a, b in zip(blas[:8], declined[:8], strict=True):
        np.testing.assert_array_equal(a, b)


def test_an_operators_bad_result_or_error_is_raised(monkeypatch):
    rng = np.random.default_rng(6)
    model = _stump_model(monkeypatch, rng, 50, 8, 5.0, 50.0)
    args = _solve_args(model)

    class Short:
        def margins(self, w):
            return np.zeros(3)

        def edges(self, d):
            return np.zeros(8)

    class Failing(Short):
        def margins(self, w):
            raise FloatingPointError("from the operator")

    with pytest.raises(ValueError, match=r"returned shape \(3,\), expected \(50,\)"):
        _capped_newton.solve(*args, products=Short())
    with pytest.raises(FloatingPointError, match="from the operator"):
        _capped_newton.solve(*args, products=Failing())
    with pytest.raises(ValueError, match=r"Gram callable returned shape \(2, 2\), expected \(8, 8\)"):
        _capped_newton.solve(*args, gram=lambda weights, face: np.zeros((2, 2)))


@pytest.mark.parametrize("nu, eta", [(1.0, 50.0), (30.0, 1e3), (300.0, 1e6)])
def test_the_operators_compiled_passes_equal_its_methods_bit_for_bit(nu, eta, monkeypatch):
    """The loop through the stump operator's compiled passes (``passes``, called without the GIL)
    and through its Python methods (``products``): the same functions, so the same solve bit for
    bit; and the passes equal the explicit products with U up to the order of summation."""
    rng = np.random.default_rng(int(eta))
    N, t = 300, 25
    model = _stump_model(monkeypatch, rng, N, t, nu, eta)
    products, gram, grams = compiled._operator_passes(model)
    passes = products.passes()
    for _ in range(3):
        w, d = rng.dirichlet(np.full(t, 0.3)), rng.dirichlet(np.ones(N))
        np.testing.assert_allclose(passes.margins(w), model.U @ w, rtol=0, atol=1e-14)
        np.testing.assert_allclose(passes.edges(d), model.U.T @ d, rtol=0, atol=1e-14)
    reg = model.regularizer
    args = (model.U, np.log(reg.d0), nu, eta, np.full(t, 1 / t), 1e-12, 50, None, None)
    through_methods = _capped_newton.solve(*args, products=products, grams=grams)
    capsule = products.compiled_passes()
    through_passes = _capped_newton.solve(*args, products=products, grams=grams, passes=capsule)
    assert through_methods[5] > 0  # steps were taken
    for a, b in zip(through_methods[:8], through_passes[:8], strict=True):
        np.testing.assert_array_equal(a, b)


def test_passes_of_another_shape_or_without_their_owner_are_refused(monkeypatch):
    rng = np.random.default_rng(8)
    model = _stump_model(monkeypatch, rng, 50, 8, 5.0, 50.0)
    other = _stump_model(monkeypatch, rng, 50, 6, 5.0, 50.0)
    args = _solve_args(model)
    products = model.stump_columns
    with pytest.raises(ValueError, match=r"passes are for 50 x 6, not U's 50 x 8"):
        _capped_newton.solve(*args, products=products, passes=other.stump_columns.passes().capsule())
    with pytest.raises(ValueError, match="passes need the operator that owns them"):
        _capped_newton.solve(*args, passes=products.passes().capsule())
    with pytest.raises(ValueError, match="PyCapsule_GetPointer called with incorrect name|invalid"):
        _capped_newton.solve(*args, products=products, passes=_capped_newton_capsule_of_another_name())


def _solve_args(model: ERLPBoost) -> tuple:
    """The positional arguments of ``_capped_newton.solve`` from uniform w, up to 50 steps, no kept
    Hessian (tol 0: until no step makes progress)."""
    reg, t = model.regularizer, model.n_hypotheses
    return (model.U, np.log(reg.d0), float(reg.nu), float(reg.eta), np.full(t, 1 / t), 0.0, 50, None, None)


def _capped_newton_capsule_of_another_name():
    import ctypes

    make = ctypes.pythonapi.PyCapsule_New
    make.restype = ctypes.py_object
    make.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return make(ctypes.c_void_p(8), b"another", None)


def test_the_lp_limit_is_made_only_for_a_stage_that_may_use_it(monkeypatch):
    """Above continuation_eta a warm solve that the compiled stage finishes makes no LP limit (an
    LPBoost over U, checked when made: 6 % of a diabetes run at nu = 1 when made for every solve);
    a solve that goes on to the Python stages still gets it."""
    from sklearn.exceptions import ConvergenceWarning

    from dualboost import ERLPBoostClassifier
    from dualboost.solvers import AuglagOptions, auglag, default_options

    made, stages = [], []
    lp_limit = ERLPBoost.lp_limit
    monkeypatch.setattr(ERLPBoost, "lp_limit", lambda self: made.append(1) or lp_limit(self))
    solve = auglag._solve_on_simplex

    def recorded(model, *args, **kwargs):
        before = len(made)
        result = solve(model, *args, **kwargs)
        stages.append((len(made) - before, _eta(model)))
        return result

    monkeypatch.setattr(auglag, "_solve_on_simplex", recorded)
    X = np.random.default_rng(2).normal(size=(300, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    options = AuglagOptions(newton=NewtonOptions(compiled="auto"))
    with default_options(options):
        clf = ERLPBoostClassifier(nu=1 / 300, eps=0.01).fit(X, y)
    assert clf.n_iter_ > 20 and all(eta > options.continuation_eta for _, eta in stages)
    assert sum(made) < len(stages) / 2  # most warm solves end in the compiled stage, without it
    with default_options(AuglagOptions()), pytest.warns(ConvergenceWarning, match="max_iter=10"):
        made.clear()  # the Python stages: made where they run above the threshold
        ERLPBoostClassifier(nu=1 / 300, eps=0.01, max_iter=10).fit(X, y)
    assert made


def _eta(model) -> float:
    return float(model.parameters()["eta"])


@pytest.mark.parametrize("nu, eta", [(1.0, 50.0), (20.0, 200.0), (20.0, 1e4), (300.0, 1e6)])
@pytest.mark.parametrize("through", ["blas", "operator"])
def test_the_loop_extends_a_kept_hessian_as_curvature_covering_does(nu, eta, through, monkeypatch):
    """A kept Hessian with its point (``kept=(H, face, w)``): the loop extends it, at that point, to
    the columns appended since and to a column with weight that its face lacks, as
    ``Curvature.covering`` does in Python (``Model.dual_hessian_block``): the same columns in the same
    order and the same entries to rounding (sums of N products of entries up to eta, ~eta N 1e-16
    each), by BLAS or through a stump operator's passes; with no step allowed it is returned as the
    last Hessian, at the kept point, with one evaluation there (none where its d is given, or where
    nothing is new)."""
    from dualboost.solvers.newton import Curvature

    rng = np.random.default_rng(int(nu) + int(np.log10(eta)))
    N, t, m = 300, 16, 11
    full = _stump_model(monkeypatch, rng, N, t, nu, eta) if through == "operator" else None
    U = full.U if full is not None else _U(rng, N, t)
    old = ERLPBoost(U[:, :m], nu=nu, eta=eta)
    w_old = old.solve(method="auglag", tol=1e-6, options=_python()).w
    support = np.flatnonzero(w_old > 0)
    d_old = old.dual_value_and_grad(w_old)[2]
    lacks = int(support.size > 1)  # a column with weight that the kept face lacks (where there are two)
    kept = Curvature.at(old, w_old, support[lacks:], d_old, sum_to_one=True)
    model = ERLPBoost(U, nu=nu, eta=eta)
    if full is not None:
        model.stump_columns = full.stump_columns
    w0 = np.concatenate((w_old, np.zeros(t - m)))
    expected = kept.covering(model, np.concatenate((support, np.arange(m, t))))
    _, counts, formed, _ = compiled.resolve(model, w0, 0.0, (kept.H, kept.face, kept.w), max_steps=0)
    H, face, w_H, d_H, _ = formed
    np.testing.assert_array_equal(face, expected.face)
    assert face.size == kept.face.size + lacks + t - m
    scale = eta * N * 1e-15 * max(1.0, np.abs(expected.H).max())
    np.testing.assert_allclose(H, expected.H, rtol=1e-10, atol=scale)
    np.testing.assert_array_equal(H, H.T)
    np.testing.assert_array_equal(w_H, w0)
    np.testing.assert_allclose(d_H, d_old, rtol=1e-10, atol=1e-15)
    assert counts == {"steps": 0, "hessians": 0, "evaluations": 2}
    # with its d (the Curvature's own): read instead of evaluated, the same matrix to rounding
    _, counts, (H_d, face_d, _, _, _), _ = compiled.resolve(
        model, w0, 0.0, (kept.H, kept.face, kept.w, kept.d), max_steps=0
    )
    np.testing.assert_array_equal(face_d, face)
    np.testing.assert_allclose(H_d, expected.H, rtol=1e-10, atol=scale)
    assert counts == {"steps": 0, "hessians": 0, "evaluations": 1}
    # nothing new: the kept matrix as it is, nothing evaluated at its point, none returned
    _, counts, formed, _ = compiled.resolve(model, w0, 0.0, (expected.H, expected.face, w0), max_steps=0)
    assert counts["evaluations"] == 1 and formed is None


def _called_back_gram(implicit):
    """The Gram as the compiled loop calls it back without a compiled one (``gram``)."""

    def gram(weights, face):
        return implicit.restricted(face).weighted_gram(weights) if implicit.gram_pays(face.size) else None

    return gram


@pytest.mark.parametrize("nu, eta", [(1.0, 50.0), (30.0, 1e3), (300.0, 1e6)])
def test_the_operators_compiled_gram_equals_the_called_back_one_bit_for_bit(nu, eta, monkeypatch):
    """The stump operator's compiled Gram (``compiled_gram``, called without the GIL) computes
    ``restricted(face).weighted_gram`` (the same function on the same cuts and signs): on faces with
    constants and stumps the same matrix bit for bit, which equals the explicit ``U_S^T diag(g) U_S``
    to rounding (sums of N products of +-1 and g, relative to sum g), and the loop through it takes
    the same steps bit for bit as through the called-back Gram."""
    rng = np.random.default_rng(int(nu) + 7)
    N, t = 300, 25
    model = _stump_model(monkeypatch, rng, N, t, nu, eta)
    implicit = model.stump_columns
    passes = implicit.passes()
    for size in (1, 2, 9, t):
        face = np.sort(rng.choice(t, size=size, replace=False))
        g = rng.random(N)
        G = passes.face_gram(g, face)
        np.testing.assert_array_equal(G, implicit.restricted(face).weighted_gram(g))
        U_S = model.U[:, face]
        np.testing.assert_allclose(G, U_S.T @ (g[:, None] * U_S), rtol=0, atol=1e-13 * g.sum())
    products, gram, grams = compiled._operator_passes(model)
    reg = model.regularizer
    args = (model.U, np.log(reg.d0), nu, eta, np.full(t, 1 / t), 1e-12, 50, None, None)
    called_back = _capped_newton.solve(*args, products=products, gram=_called_back_gram(implicit))
    through = _capped_newton.solve(*args, products=products, grams=grams)
    assert through[6] >= 1  # Hessians were formed
    for a, b in zip(called_back, through, strict=True):
        for x, y in zip(*((a, b) if isinstance(a, tuple) else ((a,), (b,))), strict=True):  # (the factor)
            np.testing.assert_array_equal(x, y)


def test_the_compiled_gram_is_asked_from_the_fewest_columns_on_which_it_pays(monkeypatch):
    """``compiled_gram`` hands the loop the smallest face size at which ``gram_pays`` (a bisection on
    a rule that grows with the columns), checked against every size; below it the loop forms the
    Hessian by BLAS, as the Python path's rule says."""
    from dualboost.problems.kernels import StumpColumns

    rng = np.random.default_rng(9)
    model = _stump_model(monkeypatch, rng, 400, 30, 10.0, 100.0)
    implicit = model.stump_columns
    for share in (1 / 16, 1 / 64, 1e-6, 1.0):
        monkeypatch.setattr(StumpColumns, "GRAM_SHARE", share)
        monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 1e9)  # (the products never pay: the Gram's rule)
        paying = [k for k in range(1, implicit.n_columns + 1) if implicit.gram_pays(k)]
        fewest = paying[0] if paying else implicit.n_columns + 1
        assert all(implicit.gram_pays(k) for k in range(fewest, implicit.n_columns + 1))
        passes_min = _gram_min_face(implicit.compiled_gram())
        assert passes_min == fewest


def _gram_min_face(capsule) -> int:
    """The ``min_face`` field of a ``Gram`` capsule (dualboost/solvers/_passes.pxd: data, gram,
    n_rows, n_columns, min_face: two pointers, then three Py_ssize_t)."""
    import ctypes

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get(capsule, _capped_newton.GRAM_NAME)
    fields = (ctypes.c_ssize_t * 5).from_address(address)
    return int(fields[4])


def test_a_gram_of_another_shape_or_name_is_refused(monkeypatch):
    rng = np.random.default_rng(10)
    model = _stump_model(monkeypatch, rng, 50, 8, 5.0, 50.0)
    other = _stump_model(monkeypatch, rng, 50, 6, 5.0, 50.0)
    args = _solve_args(model)
    with pytest.raises(ValueError, match=r"grams are for 50 x 6, not U's 50 x 8"):
        _capped_newton.solve(*args, grams=other.stump_columns.compiled_gram())
    with pytest.raises(ValueError, match="PyCapsule_GetPointer called with incorrect name|invalid"):
        _capped_newton.solve(*args, grams=model.stump_columns.compiled_passes())
    with pytest.raises(ValueError, match="face must list columns below 8"):
        model.stump_columns.passes().face_gram(np.ones(50), np.array([0, 8]))
    with pytest.raises(ValueError, match="weights must have 50 entries"):
        model.stump_columns.passes().face_gram(np.ones(49), np.array([0, 1]))


@pytest.mark.parametrize("nu, eta", [(1.0, 50.0), (30.0, 1e3), (300.0, 1e6)])
def test_a_given_start_is_the_evaluation_at_w0_and_saves_it(nu, eta):
    """``start`` (the previous solve's last compiled evaluation, ``compiled.Evaluation``) after one
    appended column: the loop takes it instead of evaluating w0 again, one evaluation fewer; what it
    returns with no step allowed is the given evaluation with the new column's edge computed at its d
    (BLAS ddot against the model's own ``U^T d``: to rounding), and the solve from it reaches the same
    optimum as the solve without it (to the certified gaps: the same steps on margins that may differ
    in the last bits)."""
    rng = np.random.default_rng(int(nu) + int(np.log10(eta)))
    N, t = 300, 12
    U = _U(rng, N, t)
    old = ERLPBoost(U[:, : t - 1], nu=nu, eta=eta)
    w_old, _, _, start = compiled.resolve(old, np.full(t - 1, 1 / (t - 1)), 1e-10)
    assert isinstance(start, compiled.Evaluation) and start.w is w_old
    assert start.capped.dtype == np.uint8 and start.capped.shape == (N,)
    model = ERLPBoost(U, nu=nu, eta=eta)
    w0 = np.append(w_old, 0.0)
    _, counts, _, given = compiled.resolve(model, w0, 0.0, start=start, max_steps=0)
    assert counts["evaluations"] == 0
    assert given.value == start.value and given.d is not start.d
    np.testing.assert_array_equal(given.d, start.d)
    np.testing.assert_array_equal(given.grad[:-1], start.grad)
    value, grad, d = model.dual_value_and_grad(w0)
    assert given.value == pytest.approx(value, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(given.grad, grad, rtol=0, atol=1e-12)
    np.testing.assert_allclose(given.d, d, rtol=1e-10, atol=1e-15)
    np.testing.assert_array_equal(given.capped, _evaluate_capped(model, w0))
    w_a, counts_a, _, ev_a = compiled.resolve(model, w0, 1e-10, start=start)
    w_b, counts_b, _, ev_b = compiled.resolve(model, w0, 1e-10)
    assert counts_a["evaluations"] == counts_b["evaluations"] - 1 or counts_a["steps"] != counts_b["steps"]
    a, b = certified_point(model, w_a), certified_point(model, w_b)
    assert abs(a.value - b.value) <= (a.gap + b.gap) * max(1.0, abs(b.value)) + 1e-12


def _evaluate_capped(model: ERLPBoost, w: np.ndarray) -> np.ndarray:
    """The capped rows of the compiled evaluation at w (a solve with no step)."""
    return compiled.resolve(model, w, 0.0, max_steps=0)[3].capped


def test_a_start_that_is_partial_or_misshapen_is_refused():
    U = np.asfortranarray(np.sign(np.random.default_rng(0).normal(size=(20, 4))))
    model = ERLPBoost(U, nu=2.0, eta=10.0)
    args = _solve_args(model)
    d, capped = np.full(20, 0.05), np.zeros(20, dtype=np.uint8)
    with pytest.raises(ValueError, match="go together"):
        _capped_newton.solve(*args, start_value=0.0, start_d=d)
    with pytest.raises(ValueError, match="start_d and start_capped must have"):
        _capped_newton.solve(*args, start_value=0.0, start_d=d[:5], start_g=np.zeros(4), start_capped=capped)
    with pytest.raises(ValueError, match="start_d and start_capped must have"):
        _capped_newton.solve(*args, start_value=0.0, start_d=d, start_g=np.zeros(5), start_capped=capped)


def test_warm_resolves_take_the_previous_evaluation_and_certify_every_solution():
    """Along a boosting-like sequence with ``compiled="auto"``: every warm solve that ends in the
    compiled stage leaves its evaluation in the state (``AuglagState.start``, at the w it returned),
    the next compiled re-solve takes it (one evaluation fewer than the same sequence would make
    without it: counted on the solver's ``evaluations``), and every Solution's values are the model's
    own objectives at its (d, w) to a few ulps, as the certificate computed them."""
    from dualboost.solvers.auglag import AuglagState

    rng = np.random.default_rng(11)
    N, t = 300, 20
    U = _U(rng, N, t)
    options = AuglagOptions(newton=NewtonOptions(compiled="auto"))
    taken = []
    resolve = compiled.resolve

    def recording(model, w0, target, kept=None, **kw):
        out = resolve(model, w0, target, kept, **kw)
        taken.append(kw.get("start") is not None)
        return out

    previous = None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(compiled, "resolve", recording)
        for k in range(2, t + 1):
            model = ERLPBoost(U[:, :k], nu=10.0, eta=100.0)
            sol = model.solve(method="auglag", tol=1e-4, warm_start=previous, options=options)
            assert sol.optimal
            assert sol.primal_value == pytest.approx(model.primal_objective(sol.d), rel=1e-14, abs=1e-15)
            assert sol.dual_value == pytest.approx(model.dual_objective(sol.w), rel=1e-14, abs=1e-15)
            state = sol.solver_state
            if isinstance(state, AuglagState) and state.start is not None:
                assert state.start.d.shape == (N,) and state.start.w.size == k
            previous = sol
    assert sum(taken) >= len(taken) // 2  # most warm solves started from the previous evaluation


def test_a_start_from_another_model_is_not_certified_from():
    """A warm start whose state holds the evaluation of another model of the same shape and
    parameters (a misuse: the warm start must be a solution of this model before columns were
    appended; here other columns, which the state's key does not tell): where the loop then takes no
    step (the appended column is the other model's first, so the stale gap is already below the
    target), the certificate is evaluated anew, never taken from the stale evaluation (which would
    certify the other model's values), so the Solution's values are this model's objectives."""
    rng = np.random.default_rng(5)
    N, t = 200, 8
    options = AuglagOptions(newton=NewtonOptions(compiled="auto"))
    A = _U(rng, N, t - 1)
    previous = ERLPBoost(A, nu=5.0, eta=50.0).solve(method="auglag", tol=1e-10, options=options)
    assert previous.solver_state.start is not None
    model = ERLPBoost(np.asfortranarray(np.column_stack((_U(rng, N, t - 1), A[:, 0]))), nu=5.0, eta=50.0)
    steps = []
    resolve = compiled.resolve

    def recording(model, w0, target, kept=None, **kw):
        out = resolve(model, w0, target, kept, **kw)
        steps.append((kw.get("start") is not None, out[1]["steps"]))
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(compiled, "resolve", recording)
        sol = model.solve(method="auglag", tol=1e-6, warm_start=previous, options=options)
    assert steps[0] == (True, 0)  # the stale start taken, no step: its evaluation is not the certificate's
    assert sol.solver_state is None or sol.solver_state.start is None  # nor kept for the next solve
    assert sol.primal_value == pytest.approx(model.primal_objective(sol.d), rel=1e-14, abs=1e-15)
    assert sol.dual_value == pytest.approx(model.dual_objective(sol.w), rel=1e-14, abs=1e-15)
    reference = model.solve(method="auglag", tol=1e-6, options=_python())
    assert abs(sol.dual_value - reference.dual_value) <= sol.gap + reference.gap + 1e-12


@pytest.mark.parametrize("nu, eta", [(1.0, 50.0), (20.0, 200.0)])
def test_the_kept_factor_is_extended_to_the_appended_rows_as_a_cholesky_factor(nu, eta):
    """Along warm re-solves with ``compiled="auto"``, the kept Hessian carries the loop's last Cholesky
    factor (``Curvature.factor``); the next re-solve extends it by the appended column's row (BLAS
    dtrsv) instead of factoring anew. Every factor returned is a Cholesky factor of ``ridge I - H``
    on its rows (``L L^T`` equal to it to rounding: entries up to eta N, ~1e-13 relative), lower
    triangular with a positive diagonal, and a re-solve with the factor reaches the optimum of one
    without it (within the certified gaps: their steps differ by the factors' rounding)."""
    rng = np.random.default_rng(int(nu) + 7)
    N, t = 300, 16
    U = _U(rng, N, t)
    options = AuglagOptions(newton=NewtonOptions(compiled="auto"))
    previous, extended = None, 0
    for k in range(2, t + 1):
        model = ERLPBoost(U[:, :k], nu=nu, eta=eta)
        kept = None if previous is None or previous.solver_state is None else previous.solver_state.curvature
        sol = model.solve(method="auglag", tol=1e-4, warm_start=previous, options=options)
        assert sol.optimal
        curvature = None if sol.solver_state is None else sol.solver_state.curvature
        if curvature is not None and curvature.factor is not None:
            F, rows, ridge = curvature.factor
            M = ridge * np.eye(rows.size) - curvature.H[np.ix_(rows, rows)]
            np.testing.assert_array_equal(F, np.tril(F))
            assert np.all(np.diag(F) > 0)
            np.testing.assert_allclose(F @ F.T, M, rtol=0, atol=1e-13 * np.abs(M).max())
            grew = kept is not None and kept.factor is not None and rows.size > kept.factor[1].size
            extended += grew
        if kept is not None and kept.factor is not None and kept.usable_for(model):
            w0 = np.append(previous.w, 0.0)
            args = (kept.H, kept.face, kept.w, kept.d)
            a = certified_point(model, compiled.resolve(model, w0, 1e-9, (*args, kept.factor))[0])
            b = certified_point(model, compiled.resolve(model, w0, 1e-9, args)[0])
            assert abs(a.value - b.value) <= (a.gap + b.gap) * max(1.0, abs(b.value)) + 1e-12
        previous = sol
    assert extended >= 3  # the factor grew with the appended columns in several solves


def test_a_kept_factor_of_the_wrong_shape_is_refused():
    U = np.asfortranarray(np.sign(np.random.default_rng(0).normal(size=(20, 4))))
    model = ERLPBoost(U, nu=2.0, eta=10.0)
    H, face = -np.eye(3), np.array([0, 1, 2])
    for factor in (
        (np.eye(2), np.array([0, 1, 2]), 0.0),
        (np.eye(2), np.array([0, 0]), 0.0),
        (np.eye(2), np.array([0, 5]), 0.0),
    ):
        with pytest.raises(ValueError, match="kept_factor must be a k x k factor"):
            compiled.resolve(model, np.full(4, 0.25), 1e-9, (H, face, None, None, factor))


@pytest.mark.parametrize("nu, eta", [(1.0, 50.0), (20.0, 200.0), (20.0, 1e4)])
def test_one_chord_step_after_an_appended_column_extends_the_kept_factor(nu, eta):
    """The kept Hessian of a solve over t - 1 columns with its factor, then one step over t columns:
    the loop extends the matrix by the new column's row and the factor by its row (no Hessian formed,
    no new factor); the factor it returns is the Cholesky factor of ``ridge I - H`` on the extended
    matrix's rows, its old rows' block the kept one unchanged."""
    rng = np.random.default_rng(int(nu) + int(np.log10(eta)))
    N, t = 300, 12
    U = _U(rng, N, t)
    old = ERLPBoost(U[:, : t - 1], nu=nu, eta=eta)
    w_old, _, formed, start = compiled.resolve(old, np.full(t - 1, 1 / (t - 1)), 1e-8)
    H, face, w_H, d_H, factor = formed
    assert factor is not None
    model = ERLPBoost(U, nu=nu, eta=eta)
    w0 = np.append(w_old, 0.0)
    _, counts, grown, _ = compiled.resolve(
        model, w0, 0.0, (H, face, w_H, d_H, factor), max_steps=1, start=start
    )
    assert counts["steps"] == 1 and counts["hessians"] == 0
    H2, face2, _, _, (F, rows, ridge) = grown
    assert face2.size == face.size + 1 and rows.size == factor[1].size + 1 and ridge == factor[2]
    M = ridge * np.eye(rows.size) - H2[np.ix_(rows, rows)]
    np.testing.assert_allclose(F @ F.T, M, rtol=0, atol=1e-13 * np.abs(M).max())
    k = factor[1].size
    np.testing.assert_array_equal(F[:k, :k], factor[0])  # the kept block as it was
    np.testing.assert_array_equal(F, np.tril(F))
