"""The compiled passes and Gram of the sparse stump operator (``_stump_products.IndicatorPasses``,
through ``SparseStumpColumns``) against the explicit products with U: directly, through the
``Passes`` capsule the compiled re-solve calls, on restricted columns, with wrong shapes refused; and
an ERLPBoost run on a9a-like binary features through the compiled re-solve with and without the
operator."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from dualboost.problems._stump_products import IndicatorPasses

from dualboost.boosting import erlpboost
from dualboost.oracles import DecisionStumps
from dualboost.oracles.stumps import Constant, Stump
from dualboost.problems import ERLPBoost
from dualboost.problems.sparse_columns import SparseStumpColumns
from dualboost.solvers import AuglagOptions, NewtonOptions, compiled, default_options
from tests.problems.stump_operators import explicit


def binary_features(rng, n, p=40):
    """a9a-like data: binary features (one-hot categories and a few frequent indicators), labels
    from a few of them with noise."""
    frequency = rng.uniform(0.01, 0.25, p)
    frequency[:3] = (0.85, 0.9, 0.3)  # stored as the complement of the zeros where above half
    X = (rng.random((n, p)) < frequency).astype(float)
    score = X[:, 0] - X[:, 3] + 0.8 * X[:, 5] - 0.5 * X[:, 2] + 0.4 * rng.normal(size=n)
    y = np.where(score > np.median(score), 1.0, -1.0)
    return sp.csr_matrix(X), y


def stumps(rng, p, count):
    """A constant and stumps at the binary features' one threshold (0.5) or outside them."""
    hypotheses = [Constant(n_features=p, sign=1)]
    for _ in range(count - 1):
        threshold = float(rng.choice([0.5, 0.5, 0.0, -1.0, 2.0]))
        sign = int(rng.choice([-1, 1]))
        hypotheses.append(
            Stump(n_features=p, feature=int(rng.integers(0, p)), threshold=threshold, sign=sign)
        )
    return hypotheses


@pytest.fixture
def case():
    rng = np.random.default_rng(31)
    X, y = binary_features(rng, 3_000)
    hypotheses = stumps(rng, X.shape[1], 50)
    operator = SparseStumpColumns.of(DecisionStumps().fit(X, y), hypotheses)
    return rng, explicit(X, y, hypotheses), operator


def test_passes_and_gram_equal_the_explicit_products(case):
    rng, U, operator = case
    n, t = U.shape
    passes = operator.passes()
    assert isinstance(passes, IndicatorPasses) and passes.nnz == operator.nnz == operator.B.nnz
    for _ in range(3):
        w, d = rng.normal(size=t), rng.normal(size=n)
        np.testing.assert_allclose(passes.margins(w), U @ w, rtol=0, atol=1e-13 * np.abs(w).sum())
        np.testing.assert_allclose(passes.edges(d), U.T @ d, rtol=0, atol=1e-13 * np.abs(d).sum())
    g = rng.random(n)
    g[rng.random(n) < 0.3] = 0.0  # rows of weight 0 (the capped rows) are skipped
    reference = U.T @ (g[:, None] * U)
    gram = operator.weighted_gram(g)
    assert np.array_equal(gram, gram.T)
    np.testing.assert_allclose(gram, reference, rtol=0, atol=1e-12 * np.abs(reference).max())
    np.testing.assert_allclose(operator.weighted_gram(2.0), 2.0 * U.T @ U, rtol=0, atol=1e-12 * n)
    assert np.array_equal(operator.weighted_gram(np.zeros(n)), np.zeros((t, t)))
    # a face (any order, repeated columns) on the parent's rows, and a restriction of it
    face = np.array([49, 0, 7, 7, 22, 3])
    part = operator.restricted(face)
    assert part.nnz == sum(operator.B[:, j].nnz for j in face) and part.B.shape == (n, face.size)
    np.testing.assert_allclose(
        part.weighted_gram(g), reference[np.ix_(face, face)], rtol=0, atol=1e-12 * np.abs(reference).max()
    )
    inner = part.restricted(np.array([4, 1]))
    w = rng.normal(size=2)
    np.testing.assert_allclose(inner.margins(w), U[:, face[[4, 1]]] @ w, rtol=0, atol=1e-13 * n)
    np.testing.assert_allclose(inner.edges(g), U[:, face[[4, 1]]].T @ g, rtol=0, atol=1e-12 * n)


def test_wrong_shapes_are_refused(case):
    rng, U, operator = case
    n, t = U.shape
    passes = operator.passes()
    with pytest.raises(ValueError, match=f"w must have {t} entries"):
        passes.margins(np.ones(t + 1))
    with pytest.raises(ValueError, match=f"d must have {n} entries"):
        passes.edges(np.ones(n - 1))
    with pytest.raises(ValueError, match=f"weights must have {n} entries"):
        passes.weighted_gram(np.ones((n, 1)))
    indices, indptr, columns = operator._csc
    y, c, a = operator.y, operator.c, operator.a
    with pytest.raises(ValueError, match="one entry per column"):
        IndicatorPasses(y, c, a[:-1], indices, indptr, columns)
    with pytest.raises(ValueError, match="one entry per column"):
        IndicatorPasses(y, c, a, indices, indptr, columns[:-1])
    with pytest.raises(ValueError, match="columns must index indptr"):
        IndicatorPasses(y, c, a, indices, indptr, np.r_[columns[:-1], t].astype(np.intp))
    with pytest.raises(ValueError, match="rows must lie in"):  # rows of another, longer U
        IndicatorPasses(y[:-1], c, a, indices, indptr, columns)
    with pytest.raises(ValueError, match="indptr must index indices"):
        IndicatorPasses(y, c, a, indices[:-1], indptr, columns)
    # an operator made from a B of its own (not by ``of``) has its rows checked too
    assert operator._rows_known and operator.restricted(columns[:3])._rows_known
    longer = sp.csc_matrix((np.ones(2), ([0, n], [0, 1])), shape=(n + 1, 2))
    made = SparseStumpColumns(y, c[:2], a[:2], longer)
    assert not made._rows_known
    with pytest.raises(ValueError, match="rows must lie in"):
        made.margins(np.ones(2))


def test_the_capsule_runs_the_compiled_loop_as_the_methods_do(case, monkeypatch):
    """The compiled re-solve through the operator's capsule (its passes without the GIL) and through
    its Python methods: the same functions, so the same solve bit for bit; and both certify the gap
    the loop on the dense U reaches (its passes by BLAS: a different order of summation)."""
    from dualboost.solvers import _capped_newton

    rng, U, operator = case
    n, t = U.shape
    model = ERLPBoost(np.asfortranarray(U), nu=0.1 * n, eta=200.0)
    model.stump_columns = operator
    monkeypatch.setattr(SparseStumpColumns, "MIN_ENTRIES", 0)
    products, gram, grams = compiled._operator_passes(model)
    assert products is operator and operator.gram_pays(t) and grams is None  # (its Gram called back)
    reg = model.regularizer
    # (the target: 1e-8; the loop's line search stops at rounding between 1e-10 and 5e-9 of relative gap
    # on these 3,000 rows, by the BLAS and the evaluation's rounding, on every path)
    args = (model.U, np.log(reg.d0), float(reg.nu), float(reg.eta), np.full(t, 1 / t), 1e-8, 50, None, None)
    through_methods = _capped_newton.solve(*args, products=products, gram=gram)
    through_passes = _capped_newton.solve(
        *args, products=products, gram=gram, passes=products.compiled_passes()
    )
    dense = _capped_newton.solve(*args)
    assert through_methods[5] > 0 and through_methods[6] > 0  # steps, and Hessians from the Gram
    for a, b in zip(through_methods[:8], through_passes[:8], strict=True):
        np.testing.assert_array_equal(a, b)
    assert through_passes[4] <= 1e-8  # the loop's own relative gap: at its target
    # the dual values of the two loops' points differ by at most the sum of their gaps
    values = [model.dual_objective(result[0]) for result in (through_passes, dense)]
    assert abs(values[0] - values[1]) <= (through_passes[4] + dense[4]) * max(1.0, abs(values[1]))


def test_gram_pays_by_its_estimated_work(monkeypatch):
    """The Gram is asked for where its estimated work is below the dense Gram's N |S|^2 (also below
    the products' floor of entries), never where B's rows were dropped."""
    rng = np.random.default_rng(5)
    X, y = binary_features(rng, 3_000)
    oracle = DecisionStumps().fit(X, y)
    rare = [Stump(n_features=40, feature=f, threshold=0.5, sign=1) for f in range(10, 30)]
    operator = SparseStumpColumns.of(oracle, rare)
    assert not operator.pays(20)  # 6e4 entries: below MIN_ENTRIES
    assert operator.gram_pays(20) == (operator.gram_work(20) < 3_000 * 20**2)
    assert operator.gram_work(20) < 3_000 * 20**2 and operator.gram_pays(20)
    monkeypatch.setattr(SparseStumpColumns, "SPARSE_MADD_COST", 1e6)
    assert not operator.gram_pays(20)
    dropped = SparseStumpColumns(operator.y, operator.c, operator.a, None, nnz=operator.nnz)
    assert not dropped.gram_pays(20) and dropped.compiled_passes() is None


def test_a_run_through_the_compiled_loop_with_and_without_the_operator(monkeypatch):
    """ERLPBoost on a9a-like binary features with the compiled re-solve: through the operator (its
    passes and Gram, from its first columns on) and on the dense U alone. Both are certified at every
    iteration. The solver's choices depend on the Gram's cost (the operator's is lower), so runs may
    part in general (their soft margins then agree within eps, [KG] Thm 3.12: each within eps of the
    best); these two take the same hypotheses, and their certified gaps agree to 1e-6."""
    import dualboost.boosting.totally_corrective.column_generation as module

    rng = np.random.default_rng(17)
    X, y = binary_features(rng, 4_000)
    runs, used = {}, []
    gram = SparseStumpColumns.weighted_gram
    monkeypatch.setattr(SparseStumpColumns, "weighted_gram", lambda self, g: used.append(1) or gram(self, g))
    monkeypatch.setattr(SparseStumpColumns, "MIN_ENTRIES", 0)
    for name in ("operator", "dense"):
        if name == "dense":
            monkeypatch.setattr(module, "stump_operator", lambda *args, **options: None)
        with default_options(AuglagOptions(newton=NewtonOptions(compiled=True))), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs[name] = erlpboost(DecisionStumps().fit(X, y), nu=0.1 * y.size, eps=0.02)
        if name == "operator":
            assert used  # the compiled loop formed Hessians through the operator's Gram
    a, b = runs["operator"], runs["dense"]
    assert a.converged and b.converged and a.n_iter > 10
    for run in (a, b):
        assert np.all(np.asarray(run.history["gap"])[:-1] >= -1e-9)  # every re-solve certified (P >= D)
    assert a.hypotheses == b.hypotheses
    np.testing.assert_allclose(a.history["gap"], b.history["gap"], rtol=0, atol=1e-6)
    nu = int(0.1 * y.size)
    soft = [float(np.sort(r.margins)[:nu].mean()) for r in (a, b)]
    assert abs(soft[0] - soft[1]) <= 0.02
