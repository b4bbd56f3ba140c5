"""The Newton machinery of ``method="auglag"`` (dualboost/solvers/newton.py) against independent
computations: Hessian-vector products against the formed Hessian, the projected conjugate-gradient
step against a dense solve of the KKT system, and the kept Hessian's bordered inverse against
numpy's inverse."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import BinaryERLPBoost, ERLPBoost
from dualboost.solvers import AuglagOptions, NewtonOptions, auglag, default_options, newton
from dualboost.solvers.certify import certify


def _models():
    U = random_edge_matrix(400, 40, seed=3)
    yield ERLPBoost(U, nu=40.0, eta=30.0)  # some caps active
    yield ERLPBoost(U, nu=1.0, eta=5.0)  # the plain simplex
    yield ERLPBoost(U, nu=40.0, eta=1e5)  # large eta: most rows negligible (the row subset)
    yield BinaryERLPBoost(U, nu=40.0, eta=30.0)


@pytest.mark.parametrize("model", list(_models()), ids=lambda m: repr(m))
@pytest.mark.parametrize("columns", ["all", "few", "most"])
def test_hessian_operator_equals_the_formed_hessian(model, columns):
    """``dual_hessian_operator(w, S)(v) = dual_hessian(w, S) @ v`` on every kind of column subset
    (a copy of few columns; all of U, padded, for most), to rounding."""
    rng = np.random.default_rng(1)
    w = rng.dirichlet(np.ones(model.n_hypotheses))
    S = {"all": np.arange(40), "few": np.array([3, 7, 8, 30]), "most": np.arange(5, 40)}[columns]
    H = model.dual_hessian(w, S)
    product = model.dual_hessian_operator(w, S)
    for _ in range(3):
        v = rng.normal(size=S.size)
        np.testing.assert_allclose(product(v), H @ v, rtol=0, atol=1e-12 * np.abs(H).sum(axis=1).max())


@pytest.mark.parametrize("model", list(_models()), ids=lambda m: repr(m))
@pytest.mark.parametrize("columns", ["all", "few", "most"])
def test_single_precision_operator_is_within_float32_rounding(model, columns):
    """``dual_hessian_operator(w, S, single=True)`` against the formed float64 Hessian, within the
    worst-case rounding of float32 dot products: ``gamma_n = n u / (1 - n u)`` (u = 2^-24) of the
    same sums taken in absolute values (Higham, Accuracy and Stability, Sec. 3.1), n the length of
    the longest sum (N for U_S v, N for U_S^T x, t for a . v), doubled for the rounding of the
    inputs to float32; the bound is computed in float64 from |U_S|, s and |v|."""
    rng = np.random.default_rng(1)
    w = rng.dirichlet(np.ones(model.n_hypotheses))
    S = {"all": np.arange(40), "few": np.array([3, 7, 8, 30]), "most": np.arange(5, 40)}[columns]
    H = model.dual_hessian(w, S)
    product = model.dual_hessian_operator(w, S, single=True)
    A = np.abs(model.U[:, S])
    u, n = 2.0**-24, model.n_samples + S.size
    gamma = 2 * n * u / (1 - n * u)
    curvature, rows = model._curvature(w, None)  # hess f* = scale (diag(g) - V M V^T)
    g, V, M, scale = curvature.g, curvature.V, curvature.M, curvature.scale
    A = A if rows is None else A[rows]
    P = np.abs(A.T @ np.abs(V))
    weights, extra = scale * g, lambda x: scale * P @ (np.abs(M) @ (P.T @ x))
    for _ in range(3):
        v = rng.normal(size=S.size)
        bound = gamma * (A.T @ (weights * (A @ np.abs(v))) + extra(np.abs(v)))
        assert np.all(np.abs(product(v) - H @ v) <= bound + 1e-15)
        assert not np.allclose(bound, 0.0)  # (the bound is not vacuous: of the order of H's entries)


def test_single_precision_u_is_one_copy_per_matrix():
    """The float32 copy of U is made once per model, shared by its with_eta copies, and made anew
    for a model with another U."""
    U = random_edge_matrix(200, 10, seed=6)
    model = ERLPBoost(U, nu=10.0, eta=50.0)
    single = model.single_precision_U()
    assert single.dtype == np.float32 and np.array_equal(single, U.astype(np.float32))
    assert model.single_precision_U() is single and model.with_eta(500.0).single_precision_U() is single
    other = ERLPBoost(U[:, :5], nu=10.0, eta=50.0)
    assert other.single_precision_U().shape == (200, 5)


def test_single_precision_u_grows_with_an_append_only_u():
    """Over an append-only U (columns written into a buffer, the models' U read-only views of its
    first columns, as a boosting run's Ensemble.U), ``with_columns`` extends the float32 copy by
    the new columns in the same buffer; a U elsewhere in memory gets a fresh copy. Each copy equals
    the float32 rounding of its U."""
    rng = np.random.default_rng(7)
    buffer = np.asfortranarray(rng.uniform(-1, 1, size=(50, 12)))

    def first(k):
        view = buffer[:, :k]
        view.flags.writeable = False
        return view

    model = ERLPBoost(first(3), nu=5.0, eta=10.0)
    single = model.single_precision_U()  # exactly 3 columns: the next model's grows it (room for 6)
    grown = model.with_columns(first(5))
    more = grown.with_columns(first(6))
    assert np.shares_memory(more.single_precision_U(), grown.single_precision_U())  # extended in place
    again = more.with_columns(first(12))  # beyond the buffer's room: a larger buffer, still extended
    for m, k in [(model, 3), (grown, 5), (more, 6), (again, 12)]:
        np.testing.assert_array_equal(m.single_precision_U(), buffer[:, :k].astype(np.float32))
    elsewhere = model.with_columns(np.array(first(5)))  # the same values in other memory
    assert not np.shares_memory(elsewhere.single_precision_U(), single)
    np.testing.assert_array_equal(elsewhere.single_precision_U(), buffer[:, :5].astype(np.float32))


def test_single_precision_steps_keep_every_solution_certified(monkeypatch):
    """A stump run whose conjugate-gradient Newton steps all use single-precision products
    (``single_min_work`` lowered to 0, ``kept_min_work`` to 2e6 so that the kept-Hessian path is
    taken): every iteration's solution is certified by the model in float64, single-precision
    products were used (``extra["single_products"]``), and each solve's certified dual value agrees
    with a float64 re-solve of the same subproblem within the sum of the two certified gaps (both
    bracket the optimum)."""
    from dualboost import ERLPBoostClassifier
    from dualboost.problems.kernels import StumpColumns

    # on the explicit U: the stump operator's products are float64 (its own tests cover it)
    monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", 10**9)
    rng = np.random.default_rng(11)
    X = rng.normal(size=(2000, 10))
    y = np.sign(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=2000))
    seen, single = [], []

    def counted(stage):  # every solve of the fit, and its products in single precision
        if stage.name == "solved":
            seen.append((stage.model, stage.solution))
            single.append(stage.solution.extra["single_products"])

    kept = NewtonOptions(kept_min_work=2e6, single_min_work=0.0, compiled=False)  # the Python steps
    with default_options(AuglagOptions(newton=kept, callback=counted)):
        ERLPBoostClassifier(nu=0.1, eps=0.02).fit(X, y)
    float64 = AuglagOptions(newton=NewtonOptions(kept_min_work=2e6, single_min_work=np.inf))
    assert sum(single) > 50
    assert all(s.status == "optimal" for _, s in seen)
    for model, s in seen[60::20]:
        again = model.solve(method="auglag", side="dual", tol=1e-9, options=float64)
        assert abs(again.dual_value - s.dual_value) <= again.gap + s.gap + 1e-12


def _kkt_step(A, g, sum_to_one, held):
    """``argmin x.A.x/2 - g.x`` subject to ``sum x = 0`` (if asked) and ``x_held = 0``: a dense solve
    of the KKT system, the independent reference."""
    k = g.size
    rows = ([np.ones(k)] if sum_to_one else []) + [np.eye(k)[j] for j in held]
    B = np.array(rows).reshape(len(rows), k)
    kkt = np.block([[A, B.T], [B, np.zeros((B.shape[0], B.shape[0]))]])
    return np.linalg.solve(kkt, np.r_[g, np.zeros(B.shape[0])])[:k]


@pytest.mark.parametrize("sum_to_one", [True, False])
@pytest.mark.parametrize("held", [[], [2], [0, 5, 9]])
def test_pcg_step_is_the_constrained_newton_step(sum_to_one, held):
    """With the exact Hessian's products and an older Hessian's inverse as preconditioner,
    projected CG reaches the KKT solution of the ridged Newton system (to its tolerance), every
    iterate on the constraints; with the exact inverse, the projection alone is that solution."""
    model = ERLPBoost(random_edge_matrix(300, 12, seed=4), nu=30.0, eta=20.0)
    rng = np.random.default_rng(2)
    S = np.arange(12)
    w_old, w = rng.dirichlet(np.ones(12)), rng.dirichlet(np.ones(12))
    g = rng.normal(size=12)
    H = model.dual_hessian(w, S)
    held = np.asarray(held, dtype=np.intp)
    kept = newton.Curvature(S, model.dual_hessian(w_old, S), {}, w_old, None, 1.0 if sum_to_one else 0.0)
    inverse, ridge = kept.inverse()
    A = ridge * np.eye(12) - H
    want = _kkt_step(A, g, sum_to_one, held)
    project = newton._Projection(inverse, sum_to_one, held)
    # to 1e-7 (a solver stops at 1e-2 or so): up to 60 products
    step = newton.pcg_step(model.dual_hessian_operator(w, S), g, ridge, project, 1e-7, max_products=60)
    assert step is not None
    np.testing.assert_allclose(step, want, rtol=0, atol=1e-7 * np.abs(want).max())
    assert np.all(step[held] == 0.0)
    if sum_to_one:
        assert abs(step.sum()) <= 1e-12 * np.abs(step).sum()
    exact = newton.Curvature(S, H, {}, w, None, 1.0 if sum_to_one else 0.0)
    direct = newton._Projection(exact.inverse()[0], sum_to_one, held)(g)
    np.testing.assert_allclose(
        direct,
        _kkt_step(exact.inverse()[1] * np.eye(12) - H, g, sum_to_one, held),
        rtol=0,
        atol=1e-8 * np.abs(want).max(),
    )


@pytest.mark.parametrize("sum_to_one", [True, False])
@pytest.mark.parametrize("held", [[], [2], [0, 5, 9]])
def test_factored_step_is_the_constrained_newton_step(sum_to_one, held):
    """The factored step with held rows (a later round of face_step, reusing the first round's
    factor) against a dense solve of the KKT system with the same ridge; the factor it returns
    gives the same step when passed back."""
    model = ERLPBoost(random_edge_matrix(300, 12, seed=4), nu=30.0, eta=20.0)
    rng = np.random.default_rng(3)
    w, g = rng.dirichlet(np.ones(12)), rng.normal(size=12)
    H = model.dual_hessian(w, np.arange(12))
    held = np.asarray(held, dtype=np.intp)
    step, factor = newton.factored_step(H, g, 0.0, sum_to_one, held)
    want = _kkt_step(factor[1] * np.eye(12) - H, g, sum_to_one, held)
    np.testing.assert_allclose(step, want, rtol=0, atol=1e-9 * np.abs(want).max())
    assert np.all(step[held] == 0.0)
    again, _ = newton.factored_step(H, g, 0.0, sum_to_one, held, factor)
    np.testing.assert_array_equal(again, step)


def test_pcg_gives_up_when_the_preconditioner_is_far_off():
    """A preconditioner that is nothing like the Hessian (the identity at a scale 1e6 off) does not
    converge within ``max_products`` (``NewtonOptions.pcg_max``) products: the step reports None
    (the solver then forms the Hessian)."""
    model = ERLPBoost(random_edge_matrix(300, 60, seed=5), nu=30.0, eta=200.0)
    w = np.random.default_rng(3).dirichlet(np.ones(60))
    S = np.arange(60)
    g = np.random.default_rng(4).normal(size=60)
    project = newton._Projection(1e6 * np.eye(60), True, np.zeros(0, dtype=np.intp))
    assert newton.pcg_step(model.dual_hessian_operator(w, S), g, 1e-8, project, 1e-12, max_products=3) is None


def test_a_boosting_run_forms_few_hessians(monkeypatch):
    """On a stump run at N = 2000 the kept Hessian preconditions most Newton steps: once forming a
    Hessian costs ``kept_min_work`` (lowered to 2e6 so that this small run takes that path from
    t = 32 on; t >= 60 counted here), the solves form far fewer Hessians than they take
    Newton steps (each step formed one before), and every iteration's solution is certified (the
    counts are what benchmarks/vs_adaboost.py reports; only their order is asserted)."""
    from dualboost import ERLPBoostClassifier
    from dualboost.problems.kernels import StumpColumns

    # on the explicit U: through the stump operator forming a Hessian is cheap (its own tests)
    monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", 10**9)
    rng = np.random.default_rng(11)
    X = rng.normal(size=(2000, 10))
    y = np.sign(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=2000))
    seen = []

    def counted(stage):  # every solve of the fit
        if stage.name == "solved":
            seen.append(stage.solution)

    # the Python path's kept Hessian (the compiled re-solve forms its own: test_compiled.py)
    options = AuglagOptions(newton=NewtonOptions(kept_min_work=2e6, compiled=False), callback=counted)
    with default_options(options):
        ERLPBoostClassifier(nu=0.1, eps=0.02).fit(X, y)
    assert all(s.status == "optimal" for s in seen)
    late = [s for s in seen if s.w.size >= 60]
    hessians = sum(s.extra["hessians"] for s in late)
    products = sum(s.extra["hessian_products"] for s in late)
    steps = sum(s.iterations for s in late)
    assert len(late) > 100 and products > steps
    assert hessians < 0.25 * steps


def test_the_points_gap_is_an_upper_bound_on_the_repaired_pairs_without_a_pass_over_U(monkeypatch):
    """Where the repair moves d(w) onto the capped simplex (rounding), a point's primal value is
    bounded from the gradient U^T d (MaxEdgeModel.primal_bound_from_edges): the gap is never below
    the one recomputed from the repaired d by primal_objective (the independent computation) and
    exceeds it by at most ||repaired - d||_1 (~1e-16); no U^T product is spent on it."""
    rng = np.random.default_rng(4)
    moved_seen = 0
    for nu, eta in [(1.0, 5.0), (12.0, 300.0), (40.0, 3e4)]:
        model = ERLPBoost(random_edge_matrix(400, 25, seed=int(eta)), nu=nu, eta=eta)
        for _ in range(20):
            w = rng.dirichlet(np.full(25, 0.3))
            value, grad, d = model.dual_value_and_grad(w)
            repaired, moved = model.repair_primal(d)
            primal = model.primal_objective(repaired)
            exact = (primal - value) / max(1.0, abs(primal))
            calls = {"n": 0}
            original = ERLPBoost.primal_objective

            def counted(self, d, original=original, calls=calls):
                calls["n"] += 1
                return original(self, d)

            monkeypatch.setattr(ERLPBoost, "primal_objective", counted)
            point = newton.certified_point(model, w)
            monkeypatch.setattr(ERLPBoost, "primal_objective", original)
            assert calls["n"] == 0
            assert exact - 1e-15 <= point.gap <= exact + float(np.abs(repaired - d).sum()) + 1e-15
            moved_seen += moved > 0
    assert moved_seen > 0  # the bound was exercised


@pytest.mark.parametrize("model", list(_models()), ids=lambda m: repr(m))
@pytest.mark.parametrize("single", [False, True], ids=["float64", "float32"])
def test_step_spread_is_the_first_order_change_of_log_d(model, single):
    """``dual_step_spread(x, d)`` (the trust radius's measure, docs/solvers.md#step-length) against
    finite differences of ``d_from_w``: the largest ``|log d_n(w + h x) - log d_n(w)| / h`` over the
    rows that count (non-negligible d, or growing) for a small h, to first order in h; its pass
    ``U x`` in single precision too (relative error ~1e-6, inside the same 1e-4)."""
    rng = np.random.default_rng(5)
    w = rng.dirichlet(np.ones(model.n_hypotheses))
    x = rng.normal(size=model.n_hypotheses)
    x -= x.mean()  # a move on the simplex
    d = model.d_from_w(w)
    spread = model.dual_step_spread(x, d, single=single)
    h = 1e-7 / max(spread, 1.0)
    moved = model.d_from_w(w + h * x)
    counts = d > 1e-12 * d.max()
    change = np.log(moved[counts]) - np.log(d[counts])
    finite = np.abs(change).max() / h
    assert spread > 0
    # (growing negligible rows count in the spread too: it is at least the finite difference)
    assert spread >= finite * (1 - 1e-4)
    if counts.all():  # every row counts: the two are the same quantity
        np.testing.assert_allclose(spread, finite, rtol=1e-4)


def _point(value: float, gap: float) -> newton.Point:
    return newton.Point(np.zeros(1), value, np.zeros(1), np.zeros(1), gap)


def test_the_line_search_takes_a_fall_of_d_only_within_rounding():
    """A step is taken where D rises by the Armijo fraction; where D falls it is taken only if the
    certified gap falls and D fell by at most ROUNDING (relative): a fall of 1e-5 with a smaller
    gap is an overshoot (accepting it let Newton cycle between two faces)."""
    here = _point(0.5, 1e-2)
    assert newton.accepted(here, _point(0.5 + 1e-6, 5e-2), slope=1e-3)  # Armijo
    assert not newton.accepted(here, _point(0.5 + 1e-8, 5e-2), slope=1e-3)  # too little rise
    assert newton.accepted(here, _point(0.5 - 1e-12, 5e-3), slope=1e-3)  # rounding, better gap
    assert not newton.accepted(here, _point(0.5 - 1e-12, 2e-2), slope=1e-3)  # rounding, worse gap
    assert not newton.accepted(here, _point(0.5 - 1e-5, 1e-4), slope=1e-3)  # an overshoot


# --- the small definite solve of a Newton step with held columns ------------------------------------
# ``newton._definite_solve``: the small solve with ``G = B^T M^-1 B`` in a Newton step with held
# columns (dualboost/solvers/newton.py), against numpy's dense solve and least squares, and a Newton
# step whose held columns make the constraints redundant against the dense KKT solve.


@pytest.mark.parametrize("k", [1, 3, 8])
def test_definite_solve_equals_the_dense_solve(k):
    rng = np.random.default_rng(k)
    A = rng.normal(size=(k, k))
    G = A @ A.T + k * np.eye(k)
    b = rng.normal(size=k)
    np.testing.assert_allclose(newton._definite_solve(G, b), np.linalg.solve(G, b), rtol=1e-12, atol=0)


def test_definite_solve_falls_back_to_least_squares_where_g_is_singular():
    """A singular G (a redundant constraint): the Cholesky factor is refused and the least-squares
    solution with the cutoff 1e-14 is returned, as before."""
    rng = np.random.default_rng(7)
    A = rng.normal(size=(4, 3))
    G = A @ A.T  # rank 3
    b = G @ rng.normal(size=4)  # consistent
    want = np.linalg.lstsq(G, b, rcond=1e-14)[0]
    np.testing.assert_allclose(newton._definite_solve(G, b), want, rtol=0, atol=1e-10 * np.abs(want).max())


def test_factored_step_with_every_column_but_one_held_is_zero():
    """On the simplex with all but one column held, sum x = 0 forces x = 0: the constraints are
    redundant (G singular in exact arithmetic), and the step is 0, as the dense KKT system says."""
    model = ERLPBoost(random_edge_matrix(200, 6, seed=5), nu=20.0, eta=15.0)
    rng = np.random.default_rng(4)
    w, g = rng.dirichlet(np.ones(6)), rng.normal(size=6)
    H = model.dual_hessian(w, np.arange(6))
    step, _ = newton.factored_step(H, g, 0.0, True, np.arange(1, 6))
    np.testing.assert_allclose(step, 0.0, rtol=0, atol=1e-12 * np.abs(g).max())


def _counting(monkeypatch, cls, name: str) -> dict:
    calls = {"n": 0}
    original = getattr(cls, name)

    def counted(self, *args, **kwargs):
        calls["n"] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counted)
    return calls


@pytest.mark.parametrize("nu, eta", [(1.0, 5.0), (12.0, 300.0), (40.0, 3e4), (200.0, 1e6), (400.0, 1e6)])
def test_certify_takes_a_points_parts_only_where_they_are_its_own(monkeypatch, nu, eta):
    """certify(evaluated=point) builds the same Solution, bit for bit, as evaluating everything again
    (the independent computation), and evaluates only what the point lacks: the primal objective
    where its d moved in the repair (the point holds a bound there) or is another array, the dual
    objective where its w is another array; with the model's own regulariser only (a warm-started
    one's point holds neither)."""
    model = ERLPBoost(random_edge_matrix(400, 25, seed=3), nu=nu, eta=eta)
    rng = np.random.default_rng(5)
    reused = recomputed = 0
    for _ in range(15):
        w = rng.dirichlet(np.full(25, 0.3))
        point = newton.certified_point(model, w)
        scratch = certify(model, point.d, point.w, tol=1e-6, method="auglag", side="dual")
        primal = _counting(monkeypatch, ERLPBoost, "primal_objective")
        dual = _counting(monkeypatch, ERLPBoost, "dual_objective")
        repair = _counting(monkeypatch, ERLPBoost, "repair_primal")
        taken = certify(model, point.d, point.w, tol=1e-6, method="auglag", side="dual", evaluated=point)
        counts = (primal["n"], dual["n"], repair["n"])
        other_d = certify(
            model, point.d.copy(), point.w, tol=1e-6, method="auglag", side="dual", evaluated=point
        )
        other_w = certify(
            model, point.d, point.w.copy(), tol=1e-6, method="auglag", side="dual", evaluated=point
        )
        monkeypatch.undo()
        for sol in (taken, other_d, other_w):
            assert (sol.primal_value, sol.dual_value, sol.gap, sol.status) == (
                scratch.primal_value,
                scratch.dual_value,
                scratch.gap,
                scratch.status,
            )
        own = model.repair_primal(point.d)[1] == 0.0
        assert np.isfinite(point.primal) == own and point.dual == point.value
        assert counts == ((0 if own else 1), 0, 0)  # the repair and the dual taken; the primal where exact
        assert (primal["n"], dual["n"], repair["n"]) == ((1 if own else 3), 1, 1)
        reused += own
        recomputed += not own
    warm = newton.certified_point(model, w, regularizer=model.regularizer.with_warm_starts())
    assert np.isnan(warm.primal) and np.isnan(warm.dual)
    assert reused > 0 if nu < 400 else recomputed > 0  # nu = N: d = 1/N, moved by its rounding


def test_a_warm_solve_certifies_its_solution_once(monkeypatch):
    """A boosting run's solves (method="auglag") take their final point's dual objective (and the
    primal where its d needed no repair: most of them), and every Solution's values equal a
    certificate computed from scratch for the same (d, w) (the primal to its rounding where that
    certificate's repair moves the repaired d again)."""
    from dualboost import ERLPBoostClassifier

    X = np.random.default_rng(0).normal(size=(300, 6))
    y = np.where(X[:, 0] + 0.4 * X[:, 1] > 0, 1.0, -1.0)
    solutions, taken = [], []
    original = auglag._solve_auglag
    certify_module = importlib.import_module("dualboost.solvers.certify")  # (the package: the function)
    own = certify_module._own_dual

    def recorded(*args):
        taken.append(own(*args))
        return taken[-1]

    def kept(model, *args):  # certified again at once (a run's stump operator grows afterwards)
        sol = original(model, *args)
        again = certify(model, sol.d, sol.w, tol=sol.tol, method="auglag", side="dual")
        solutions.append((sol, again))
        return sol

    monkeypatch.setattr(auglag, "_solve_auglag", kept)
    monkeypatch.setattr(certify_module, "_own_dual", recorded)
    clf = ERLPBoostClassifier(nu=0.1, eps=0.01).fit(X, y)
    monkeypatch.undo()
    assert len(solutions) == clf.n_iter_ - 1 or len(solutions) == clf.n_iter_
    assert sum(taken) > len(solutions) / 2 > 10
    for sol, scratch in solutions:
        assert sol.dual_value == scratch.dual_value
        if scratch.primal_infeasibility == 0.0:  # sol.d as it stands
            assert (sol.primal_value, sol.gap) == (scratch.primal_value, scratch.gap)
        else:  # the repair of an already repaired d moves it again by its rounding
            assert sol.primal_value == pytest.approx(scratch.primal_value, rel=1e-15, abs=1e-15)
