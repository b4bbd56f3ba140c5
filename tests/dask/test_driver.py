"""The Dask path against the in-memory one, on a LocalCluster with two worker processes.

Every quantity is compared with the in-memory computation of the same thing (ERLPBoost, the
capped softmax of the conjugate library, DecisionStumps, the erlpboost driver) at 1e-8: both are
exact up to rounding (different summation orders), so agreement far below 1e-8 is expected and a
wrong reduction, threshold or tie order shows up as an O(1) difference. One cluster serves the module.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from dualboost.boosting import boost  # noqa: E402
from dualboost.conjugates import entropic_project_capped_simplex  # noqa: E402
from dualboost.dask import (  # noqa: E402
    DaskDecisionStumps,
    DaskERLPBoost,
    DistributedVector,
    Executor,
    PartitionedEdges,
    dask_erlpboost,
    partition_rows,
)
from dualboost.oracles import DecisionStumps  # noqa: E402
from dualboost.problems import ERLPBoost  # noqa: E402

TOL = 1e-8


@pytest.fixture(scope="module")
def executor(dask_client):
    return Executor(dask_client)


def _edge_matrix(rng, n: int, t: int) -> np.ndarray:
    """±1 columns (many tied logits, as stumps give) and one fractional column."""
    U = rng.choice([-1.0, 1.0], size=(n, t))
    U[:, -1] = rng.uniform(-1, 1, size=n)
    return U


SIZES = [97, 160, 143]  # uneven row blocks, N = 400


@pytest.mark.parametrize("nu", [1.0, 40.0, 399.5, 400.0])  # 1, 0.1 N, N-ish, N
def test_model_matches_in_memory(executor, nu):
    rng = np.random.default_rng(int(nu))
    U = _edge_matrix(rng, sum(SIZES), 6)
    parts = PartitionedEdges.from_array(executor, U, SIZES)
    np.testing.assert_array_equal(parts.to_numpy(), U)
    for eta in (1.0, 300.0, 1e4):
        ref, model = ERLPBoost(U, nu=nu, eta=eta), DaskERLPBoost(parts, nu=nu, eta=eta)
        w = rng.dirichlet(np.ones(6))
        value, grad, d = ref.dual_value_and_grad(w)
        value2, grad2, _ = model.dual_value_and_grad(w)
        assert value2 == pytest.approx(value, abs=TOL)
        np.testing.assert_allclose(grad2, grad, atol=TOL)
        d2 = model.d_from_w(w)
        np.testing.assert_allclose(d2, d, atol=TOL, rtol=TOL)
        assert model.dual_objective(w) == pytest.approx(ref.dual_objective(w), abs=TOL)
        assert model.primal_objective(d2) == pytest.approx(ref.primal_objective(d), abs=TOL)
        H, H2 = ref.dual_hessian(w, np.arange(6)), model.dual_hessian(w, np.array([0, 2, 5]))
        np.testing.assert_allclose(H2, H[np.ix_([0, 2, 5], [0, 2, 5])], atol=TOL * max(1.0, np.abs(H).max()))
        block = model.dual_hessian_block(w, np.array([1, 2, 5]), np.array([0, 4]))
        np.testing.assert_allclose(block, H[np.ix_([1, 2, 5], [0, 4])], atol=TOL * max(1.0, np.abs(H).max()))
        v = rng.normal(size=3)  # the products of the conjugate-gradient Newton steps
        Hv = model.dual_hessian_operator(w, np.array([1, 3, 5]))(v)
        want_Hv = H[np.ix_([1, 3, 5], [1, 3, 5])] @ v
        np.testing.assert_allclose(Hv, want_Hv, atol=TOL * max(1.0, np.abs(H).max()))
        # Newton's trust radius measures the same change of log d (two reductions over the partitions)
        x = rng.normal(size=6)
        x -= x.mean()
        _, _, ev = model.dual_value_and_grad(w)
        spread = ref.dual_step_spread(x, d)
        assert model.dual_step_spread(x, ev) == pytest.approx(spread, rel=1e-9, abs=TOL)
        # a d the workers did not make (scattered once): same primal value
        other = rng.dirichlet(np.ones(U.shape[0]))
        other = np.minimum(other, 1.0 / nu)
        other /= other.sum()
        assert model.primal_objective(other) == pytest.approx(ref.primal_objective(other), abs=TOL)


@pytest.mark.parametrize("nu", [1.0, 40.0, 399.5])
@pytest.mark.parametrize("eta", [1.0, 1e4])
def test_capped_softmax_threshold_matches_the_sorting_projection(executor, nu, eta):
    """The parallel threshold search gives the capped set and normaliser of the sort-based
    projection ([SS] Fig. 2): d equal to 1e-8, with the same capped entries."""
    rng = np.random.default_rng(7)
    U = _edge_matrix(rng, sum(SIZES), 4)
    w = rng.dirichlet(np.ones(4))
    ev = DaskERLPBoost(PartitionedEdges.from_array(executor, U, SIZES), nu=nu, eta=eta).evaluation(w)
    logits = np.log(1.0 / U.shape[0]) + eta * -(U @ w)
    d = entropic_project_capped_simplex(logits, nu)
    d2 = ev.distribution().gather()
    np.testing.assert_allclose(d2, d, atol=TOL, rtol=TOL)
    capped = logits >= ev.tau
    assert np.all(d[capped] >= (1 - 1e-12) / nu)
    if nu > 1 and np.isfinite(ev.tau):
        assert capped.sum() < nu  # fewer than nu entries are capped (Lemma 16)
        assert np.all(np.exp(logits[~capped] - ev.c) <= (1 + 1e-12) / nu)
    assert ev.d_sum == pytest.approx(1.0, abs=1e-12)


def _stump_data(rng, n: int = 300):
    X = np.round(rng.normal(size=(n, 5)), 1)
    X[:, 3] = 2.0  # a constant feature: no stump
    X[: n // 2, 4] = -0.0  # signed zeros are one value
    X[n // 2 :, 4] = 0.0
    X[::7, 4] = 1.0
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def test_oracle_matches_decision_stumps(executor):
    rng = np.random.default_rng(3)
    X, y = _stump_data(rng)
    data = partition_rows(X, y, executor, n_partitions=3)
    oracle, ref = DaskDecisionStumps().fit(data), DecisionStumps().fit(X, y)
    for k in range(6):
        d = rng.dirichlet(np.ones(X.shape[0]) * (0.2 if k % 2 else 5.0))
        if k == 5:
            d = np.full(X.shape[0], 1.0 / X.shape[0])  # ties everywhere: the documented order decides
        got, want = oracle.best(DistributedVector.scatter(executor, d, data.sizes)), ref.best(d)
        assert got.hypothesis == want.hypothesis
        assert got.edge == pytest.approx(want.edge, abs=1e-12)
        column = np.concatenate(executor.gather(got.columns))
        np.testing.assert_array_equal(column, want.column)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("nu, chord", [(1.0, False), (30.0, False), (30.0, True)])
def test_full_run_matches_in_memory(executor, nu, chord):
    """dask_erlpboost on a row-chunked dask array = boost("erlpboost", DecisionStumps) to 1e-8;
    ``chord``: with the kept Hessians of warm starts (auglag's chord steps, used in memory from
    N |S|^2 >= 1e8 on) on this small set, which the Dask model extends by partition reductions."""
    from dualboost.solvers import AuglagOptions, NewtonOptions, default_options

    options = AuglagOptions(newton=NewtonOptions(kept_min_work=0.0)) if chord else AuglagOptions()
    rng = np.random.default_rng(11)
    X, y = _stump_data(rng)
    Xd, yd = da.from_array(X, chunks=(110, 2)), da.from_array(y, chunks=110)  # columns are merged
    with default_options(options):
        want = boost("erlpboost", DecisionStumps().fit(X, y), nu=nu, eps=0.15)
        got = dask_erlpboost(Xd, yd, client=executor.client, nu=nu, eps=0.15)
    assert got.converged and want.converged
    assert got.params == want.params
    # Each subproblem is solved to a certified relative gap <= tol = eps/4. The iterates agree to
    # rounding while the solver makes the same discrete choices, and to tol where those differ on a
    # degenerate subproblem (the second one, U = [u, -u], has a singular Newton system). Rounding in
    # the partition sums (1e-12) can also flip a choice (how many conjugate-gradient products, when
    # to form the Hessian anew) where the next hypothesis depends on it (measured with numpy 1.24:
    # the chord run's 19th iterates 2e-4 apart, its 20th hypotheses differ): from there on the runs
    # are different runs, each certified.
    tol = got.params["tol"]
    same = [a == b for a, b in zip(got.hypotheses, want.hypotheses, strict=False)] + [False]
    k = same.index(False)  # the first hypothesis that differs (or the shorter run's length)
    for key in ("edge", "primal", "dual", "stopping"):
        np.testing.assert_allclose(got.history[key][:k], want.history[key][:k], atol=tol, equal_nan=True)
    np.testing.assert_array_equal(got.columns.compute()[:, :k], want.columns[:, :k])
    if k < max(len(got.hypotheses), len(want.hypotheses)):  # the solve before made other choices:
        assert k >= 1  # (the first hypothesis is chosen at the uniform d, the same in both runs)
        primal = got.history["primal"][k - 1], want.history["primal"][k - 1]
        assert TOL < abs(primal[0] - primal[1]) <= 2 * tol
        for run in (got, want):  # both certified
            assert run.history["gap"][k - 1] <= tol * max(1.0, abs(run.history["primal"][k - 1]))
        return
    assert got.n_iter == want.n_iter
    np.testing.assert_allclose(got.weights, want.weights, atol=TOL)
    np.testing.assert_allclose(got.d, want.d, atol=TOL)
    assert np.nanmax(np.abs(got.history["primal"] - want.history["primal"])[-5:]) <= TOL


def test_bad_input(executor):
    rng = np.random.default_rng(5)
    X, y = _stump_data(rng, 60)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X must be finite"):
        dask_erlpboost(da.from_array(bad, chunks=20), y, client=executor.client)
    with pytest.raises(ValueError, match="exactly two classes"):  # one class (K > 2: test_multiclass.py)
        dask_erlpboost(X, np.full(60, 3), client=executor.client)
    with pytest.raises(ValueError, match="continuous"):  # K > 2 distinct values that are not classes
        dask_erlpboost(X, np.arange(60) / 7.0, client=executor.client)
    with pytest.raises(ValueError, match="one label per row"):
        dask_erlpboost(da.from_array(X, chunks=20), y[:-1], client=executor.client)
    with pytest.raises(ValueError, match="nu"):
        dask_erlpboost(X, y, client=executor.client, nu=61)
    with pytest.raises(ValueError, match="eps"):
        dask_erlpboost(X, y, client=executor.client, eps=0.0)
    with pytest.raises(ValueError, match="n_partitions"):
        dask_erlpboost(X, y, client=executor.client, n_partitions=0)
    with pytest.raises(ValueError, match="client"):
        dask_erlpboost(X, y, client="tcp://nowhere")
    with pytest.raises(ValueError, match="2-D"):
        dask_erlpboost(da.from_array(X[:, 0], chunks=20), y, client=executor.client)
    parts = PartitionedEdges.from_array(executor, _edge_matrix(rng, 60, 3), [30, 30])
    with pytest.raises(ValueError, match="PartitionedEdges"):
        DaskERLPBoost(np.ones((60, 3)))
    model = DaskERLPBoost(parts, nu=6.0, eta=2.0)
    with pytest.raises(ValueError, match="auglag"):
        model.solve(method="clarabel")
    with pytest.raises(ValueError, match="w must have length 3"):
        model.dual_objective(np.ones(4) / 4)
    with pytest.raises(ValueError, match="nu"):
        DaskERLPBoost(parts, nu=0.5)
    with pytest.raises(ValueError, match="eta"):
        DaskERLPBoost(parts, eta=-1.0)


def test_model_offers_the_smooth_dual_only(executor):
    """The Dask model is not an in-memory Model: it implements the smooth-dual Protocols of the
    solver contract and nothing that needs U on one machine, and the registry says so."""
    from dualboost.problems import Model
    from dualboost.solvers import accepts
    from dualboost.solvers.contract import CvxpyForms, LinearProgram, SmoothDual, WDomain, implements

    parts = PartitionedEdges.from_array(executor, _edge_matrix(np.random.default_rng(5), 60, 3), [30, 30])
    model = DaskERLPBoost(parts, nu=6.0, eta=2.0)
    assert not isinstance(model, Model) and not hasattr(model, "U")
    # a SmoothDual on the simplex (the max-edge members) in an eta family (formerly two Protocols)
    assert isinstance(model, SmoothDual) and model.w_domain is WDomain.SIMPLEX and model.eta_family
    assert not implements(model, CvxpyForms) and not implements(model, LinearProgram)
    assert accepts(model, "auglag", "dual") is None
    for method in ("clarabel", "highs"):
        assert accepts(model, method, "dual") is not None
    sol = model.solve()
    ref = ERLPBoost(parts.to_numpy(), nu=6.0, eta=2.0).solve(method="clarabel")
    assert sol.dual_value == pytest.approx(ref.dual_value, abs=1e-7)
    assert model.with_eta(5.0).eta == 5.0 and model.lp_limit() is None
