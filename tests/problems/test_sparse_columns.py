"""Decision-stump columns on sparse features as a sparse operator
(``dualboost.problems.sparse_columns.SparseStumpColumns``) against the explicit products with U, the
choice between it and the sort-order operator, and ERLPBoost runs through it against the same runs on
the explicit U."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from dualboost.boosting import erlpboost
from dualboost.oracles import DecisionStumps
from dualboost.oracles.stumps import Constant, Stump
from dualboost.problems import ERLPBoost
from dualboost.problems.kernels import (
    StumpColumns,
    StumpFeatures,
    StumpOperator,
    StumpOperatorBase,
    centred_hessian,
)
from dualboost.problems.sparse_columns import SparseStumpColumns, stump_operator
from tests.problems.stump_operators import (
    assert_model_products_agree,
    counted_margins,
    explicit,
    grown_and_whole,
)


def sparse_data(rng, n, p=8):
    """Sparse features with positive and negative values, ties, a positive feature present in most
    rows (a stump at 0 on it is stored as the complement of its zeros) and one absent everywhere."""
    density = np.r_[rng.uniform(0.02, 0.3, p - 2), 0.9, 0.0]
    X = np.where(rng.random((n, p)) < density, np.round(rng.normal(size=(n, p)), 1), 0.0)
    X[:, p - 2] = np.abs(X[:, p - 2])
    y = np.where(rng.random(n) < 0.45, -1.0, 1.0)
    return sp.csr_matrix(X), y


def random_stumps(rng, X, count):
    """Stumps with thresholds at data values, at 0, negative and positive between values, outside the
    range, repeated, and constants of both signs."""
    dense = X.toarray()
    p = dense.shape[1]
    hypotheses = [Constant(n_features=p, sign=1), Constant(n_features=p, sign=-1)]
    while len(hypotheses) < count:
        f = int(rng.integers(0, p))
        kind = rng.integers(0, 5)
        if kind == 0:
            threshold = float(rng.choice(dense[:, f]))
        elif kind == 1:
            threshold = 0.0
        elif kind == 2:
            threshold = float(rng.normal())
        elif kind == 3:
            low, high = float(dense[:, f].min()), float(dense[:, f].max())
            threshold = high + 1.0 if rng.random() < 0.5 else low - 1.0
        else:
            threshold = hypotheses[-1].threshold if isinstance(hypotheses[-1], Stump) else -0.05
        hypotheses.append(Stump(n_features=p, feature=f, threshold=threshold, sign=int(rng.choice([-1, 1]))))
    return hypotheses


@pytest.mark.parametrize("n", [10, 10_000])
def test_products_equal_the_explicit_ones(n):
    rng = np.random.default_rng(n)
    X, y = sparse_data(rng, n)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 40)
    U = explicit(X, y, hypotheses)
    first = SparseStumpColumns.of(oracle, hypotheses[:15])  # grown in two steps, as a run grows it
    operator = SparseStumpColumns.of(oracle, hypotheses, first)
    assert operator.n_columns == U.shape[1] and operator.B.shape == U.shape
    assert operator.nnz <= n * U.shape[1] // 2  # each indicator holds at most half of the rows
    w, d, g = rng.normal(size=U.shape[1]), rng.normal(size=n), rng.random(n)  # signed w and d
    assert np.allclose(operator.margins(w), U @ w, rtol=0, atol=1e-12 * np.abs(w).sum())
    assert np.allclose(operator.edges(d), U.T @ d, rtol=0, atol=1e-12 * np.abs(d).sum())
    reference = U.T @ (g * (U @ w))
    assert np.allclose(operator.gram(w, g), reference, rtol=0, atol=1e-12 * np.abs(reference).max())
    gram = U.T @ (g[:, None] * U)
    assert np.allclose(operator.weighted_gram(g), gram, rtol=0, atol=1e-12 * g.sum())
    assert np.allclose(operator.weighted_gram(0.5), 0.5 * U.T @ U, rtol=0, atol=1e-12 * n)
    columns = np.array([0, 3, 4, 17, 39])
    part = operator.restricted(columns)
    assert np.allclose(part.margins(w[columns]), U[:, columns] @ w[columns], rtol=0, atol=1e-12 * n)
    assert np.allclose(part.edges(d), U[:, columns].T @ d, rtol=0, atol=1e-12 * n)
    assert np.allclose(part.weighted_gram(g), gram[np.ix_(columns, columns)], rtol=0, atol=1e-12 * n)


def test_both_operators_are_stump_operators(monkeypatch):
    """The sort-order and the sparse operator of the same columns are StumpOperators whose shared
    products (cross Gram, the capped softmax's Hessian) equal the explicit ones."""
    rng = np.random.default_rng(4)
    X, y = sparse_data(rng, 400)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 40)
    U = explicit(X, y, hypotheses)
    monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", 0)
    monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 0)
    rows, columns = np.array([0, 5, 9, 22]), np.array([1, 2, 30, 39, 5])
    g, s = rng.random(400), rng.random(400)
    a = U.T @ s
    for operator in (StumpColumns.of(oracle, hypotheses), SparseStumpColumns.of(oracle, hypotheses)):
        assert isinstance(operator, StumpOperator) and isinstance(operator, StumpOperatorBase)
        block = operator.restricted(rows).cross_gram(operator.restricted(columns), g)
        reference = U[:, rows].T @ (g[:, None] * U[:, columns])
        assert np.allclose(block, reference, rtol=0, atol=1e-12 * g.sum())
        hessian = operator.rank_one_hessian(s, a, float(s.sum()), 3.0)
        reference = centred_hessian(U.T @ (s[:, None] * U), a, a, float(s.sum()), 3.0)
        assert np.allclose(hessian, reference, rtol=0, atol=1e-10 * np.abs(reference).max())


def test_grown_and_whole_operators_agree():
    """Built at once or column by column (a resumed run against the uninterrupted one): the same B
    and bit-identical products."""
    rng = np.random.default_rng(7)
    X, y = sparse_data(rng, 300)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 30)
    grown, whole = grown_and_whole(SparseStumpColumns, oracle, hypotheses)
    assert (grown.B != whole.B).nnz == 0
    w, d = rng.normal(size=30), rng.normal(size=300)
    assert np.array_equal(grown.margins(w), whole.margins(w))
    assert np.array_equal(grown.edges(d), whole.edges(d))


def _chain(rng, n, count):
    """A fitted oracle on sparse data, ``count`` random stumps and the operators of their prefixes,
    each extending the one before (as a run makes them)."""
    X, y = sparse_data(rng, n)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, count)
    chain = [SparseStumpColumns.of(oracle, hypotheses[:1])]
    for k in range(2, count + 1):
        chain.append(SparseStumpColumns.of(oracle, hypotheses[:k], chain[-1]))
    return oracle, hypotheses, chain


def test_growth_in_place_leaves_the_earlier_operators_as_they_were():
    """Extending the latest operator appends to its arrays (no copy of B's nonzeros, nor of c and a);
    the earlier operators, an older one extended again (a copy then) and one unpickled (its values
    copied) keep their own columns."""
    rng = np.random.default_rng(8)
    oracle, hypotheses, chain = _chain(rng, 300, 40)
    assert np.shares_memory(chain[-1].B.indices, chain[-2].B.indices)
    assert np.shares_memory(chain[-1].c, chain[-2].c) and np.shares_memory(chain[-1].a, chain[-2].a)
    branch = SparseStumpColumns.of(oracle, hypotheses[:10] + hypotheses[30:], chain[9])
    assert not np.shares_memory(branch.B.indices, chain[-1].B.indices)
    assert not np.shares_memory(branch.c, chain[-1].c)
    restored = pickle.loads(pickle.dumps(chain[20]))
    assert "_values" not in restored.__dict__  # (the run's arrays with room to grow are not pickled)
    again = SparseStumpColumns.of(oracle, hypotheses[:30], restored)
    pairs = [(chain[k], hypotheses[: k + 1]) for k in (0, 9, 20, 39)] + [
        (branch, hypotheses[:10] + hypotheses[30:]),
        (again, hypotheses[:30]),
    ]
    for operator, columns in pairs:
        fresh = SparseStumpColumns.of(oracle, columns)
        assert operator.n_columns == len(columns) and (operator.B != fresh.B).nnz == 0
        assert np.array_equal(operator._csc[0], fresh._csc[0]) and np.array_equal(
            operator._csc[1], fresh._csc[1]
        )
        assert np.array_equal(operator.c, fresh.c) and np.array_equal(operator.a, fresh.a)
        assert operator.c.dtype == operator.a.dtype == np.float64


def test_the_choice_of_operator(monkeypatch):
    """Other hypotheses: no operator. Many stumps per feature (sort orders pay): StumpColumns, else the
    sparse one; the sparse one pays only on enough entries with a sparse B."""
    rng = np.random.default_rng(5)
    X, y = sparse_data(rng, 2_000)
    oracle = DecisionStumps().fit(X, y)

    class Other(Constant):
        pass

    assert stump_operator(oracle, [Constant(n_features=8, sign=1), Other(n_features=8, sign=1)]) is None
    one_each = [Stump(n_features=8, feature=f, threshold=0.0, sign=1) for f in range(6)]
    chosen = stump_operator(oracle, one_each)
    assert type(chosen) is SparseStumpColumns
    assert not chosen.pays(6)  # 2,000 x 6 entries < MIN_ENTRIES
    wide = one_each * 40  # 240 columns on 6 features: the sort orders pay
    assert type(stump_operator(oracle, wide, chosen)) is StumpColumns
    monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", 10**9)
    sparse = stump_operator(oracle, wide)
    assert type(sparse) is SparseStumpColumns
    assert sparse.pays(240) == (sparse.nnz <= SparseStumpColumns.MAX_DENSITY * 2_000 * 240)
    present = X[:, 6].nnz  # the positive feature in ~90 % of the rows
    below = SparseStumpColumns.of(oracle, [Stump(n_features=8, feature=6, threshold=-5.0, sign=1)])
    assert below.nnz == 0  # every row above: a constant column, no indicator
    at_zero = SparseStumpColumns.of(oracle, [Stump(n_features=8, feature=6, threshold=0.0, sign=1)])
    assert at_zero.nnz == 2_000 - present  # its zeros, the complement of the nonzeros above 0
    middle = [Stump(n_features=8, feature=6, threshold=float(np.median(X[:, 6].toarray())), sign=1)] * 240
    assert not SparseStumpColumns.of(oracle, middle).pays(240)  # B holds ~45 % of U: no gain


def test_the_census_of_a_runs_features_rules_out_what_the_sort_orders_do_not_make(monkeypatch):
    """``StumpFeatures`` of a growing list (read once per entry) rules the sort orders out exactly where
    ``StumpColumns.of`` gives None (no feature yet, too many features, a hypothesis of another kind);
    ``stump_operator`` given it chooses the operators made without it, asks ``StumpColumns.of`` only
    where the census does not rule it out or where it extends the last sort-order operator by one
    column, and reads no census of another list."""
    monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 0)  # MIN_COLUMNS_PER_FEATURE and the Gram decide
    rng = np.random.default_rng(22)
    X, y = sparse_data(rng, 300)
    oracle = DecisionStumps().fit(X, y)

    class Other(Constant):
        pass

    hypotheses = [Constant(n_features=8, sign=1)] * 6 + random_stumps(rng, X, 90)
    hypotheses += [Other(n_features=8, sign=1), Constant(n_features=8, sign=-1)]
    asked = []
    of = StumpColumns.of.__func__

    def recorded(cls, oracle, hypotheses, previous=None):
        asked.append(len(hypotheses))
        return of(cls, oracle, hypotheses, previous)

    grown, census, kept, made = [], None, (), []
    seldom = StumpFeatures(grown)  # asked every fifth hypothesis: it reads the ones added since
    for k, h in enumerate(hypotheses, start=1):
        grown.append(h)
        census = census or StumpFeatures(grown)
        expected = StumpColumns.of(oracle, hypotheses[:k])
        if k % 5 == 0:
            assert seldom.rules_out(oracle.n_samples_) == (expected is None), k
        last = next((other for other in kept if type(other) is StumpColumns), None)
        with monkeypatch.context() as patch:
            patch.setattr(StumpColumns, "of", classmethod(recorded))
            operator = stump_operator(oracle, grown, kept, features=census)
            ruled_out = census.rules_out(oracle.n_samples_)
            assert ruled_out == (expected is None), k
            one_more = last is not None and last.n_columns == k - 1
            assert (asked[-1:] == [k]) is (one_more or not ruled_out), k
            # another list's census is not read: the sort orders are asked as without one
            stump_operator(oracle, hypotheses[:k], features=census)
            assert asked[-1] == k
        kept = (operator, *(other for other in kept if type(other) is not type(operator)))
        whole = stump_operator(oracle, hypotheses[:k])
        assert type(operator) is type(whole), k
        if operator is not None:
            made.append(type(operator))
            names = ("cut", "sign", "stumps", "constants") if type(operator) is StumpColumns else ("c", "a")
            for name in names + ("n_columns",):
                assert np.array_equal(getattr(operator, name), getattr(whole, name)), (k, name)
    assert census.read == len(hypotheses) and census.other
    assert operator is None and set(made) == {StumpColumns, SparseStumpColumns}


def test_a_run_goes_back_to_its_last_operator_of_a_kind(monkeypatch):
    """Given the last operator of each kind (as a run's GrowingModel keeps them), the choice going from
    the sort orders to the sparse operator (a new feature: too few columns per feature) and back
    extends the 4-column sort-order operator, not one made again; every operator equals the one made
    at once."""
    monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 0)  # MIN_COLUMNS_PER_FEATURE 4 decides
    rng = np.random.default_rng(21)
    X, y = sparse_data(rng, 300)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = [
        Stump(n_features=8, feature=f, threshold=t, sign=s)
        for f, t, s in (
            (2, 0.0, 1),
            (2, 0.3, -1),
            (2, -0.4, 1),
            (2, 1.1, 1),  # 1-3 columns: the sparse operator; 4 on 1 feature: the sort orders
            (0, 0.2, 1),
            (0, -0.1, -1),
            (0, 0.5, 1),  # 5-7 columns on 2 features: the sparse operator
            (0, 0.0, -1),  # 8 on 2: the sort orders again, feature 0 placed before feature 2
        )
    ]
    given = []
    of = StumpColumns.of.__func__

    def recorded(cls, oracle, hypotheses, previous=None):
        given.append(None if previous is None else previous.n_columns)
        return of(cls, oracle, hypotheses, previous)

    monkeypatch.setattr(StumpColumns, "of", classmethod(recorded))
    kept, kinds = (), []
    for k in range(1, len(hypotheses) + 1):
        operator = stump_operator(oracle, hypotheses[:k], kept)
        kept = (operator, *(other for other in kept if type(other) is not type(operator)))
        kinds.append(type(operator))
        whole = stump_operator(oracle, hypotheses[:k])
        assert type(whole) is type(operator)
        sort_orders = ("order", "position", "cut", "sign", "stumps", "constants", "stump_cut")
        for name in sort_orders if kinds[-1] is StumpColumns else ("c", "a", "nnz"):
            assert np.array_equal(getattr(operator, name), getattr(whole, name)), (k, name)
    assert kinds == ([SparseStumpColumns] * 3 + [StumpColumns]) * 2
    # the operator grown (even calls; the odd ones made it at once): the sort-order one of 4 columns
    # extended by the sparse stretch's columns, not made again
    assert given[::2] == [None] * 4 + [4] * 4


def test_a_dropped_operator_counts_its_rows_and_finds_them_again():
    """Past DROP_MARGIN * MAX_DENSITY of U's entries the operator keeps no rows (only their count,
    and it does not pay); extended by empty columns until it could pay, it is the operator made at
    once."""
    rng = np.random.default_rng(12)
    X, y = sparse_data(rng, 2_000)
    oracle = DecisionStumps().fit(X, y)
    dense = [Stump(n_features=8, feature=6, threshold=float(np.median(X[:, 6].toarray())), sign=1)] * 20
    dropped = SparseStumpColumns.of(oracle, dense)
    assert dropped.B is None and not dropped.pays(20)
    assert dropped.nnz == sum(min(m, 2_000 - m) for m in [int((X[:, 6] > dense[0].threshold).sum())] * 20)
    empty = [Constant(n_features=8, sign=1)] * 200  # no indicator: the density falls 11-fold
    grown = dropped
    for k in range(1, 201):
        grown = SparseStumpColumns.of(oracle, dense + empty[:k], grown)
        fresh = SparseStumpColumns.of(oracle, dense + empty[:k])
        assert grown.nnz == fresh.nnz == dropped.nnz and grown.pays(20 + k) == fresh.pays(20 + k)
        assert (grown.B is None) == (fresh.B is None)
    assert grown.B is not None and grown.pays(220)  # 9 % of the entries: it pays, and has its rows
    assert (grown.B != fresh.B).nnz == 0
    w = rng.normal(size=220)
    assert np.array_equal(grown.margins(w), fresh.margins(w))


def test_a_run_on_dense_features_keeps_no_rows(monkeypatch):
    """Dense continuous features (indicators of ~N/4 rows): while the sparse operator is chosen
    (before the sort orders take over) it holds no rows past DROP_MARGIN * MAX_DENSITY, and the run
    is the one with its rows kept throughout."""
    import dualboost.boosting.totally_corrective.column_generation as module

    rng = np.random.default_rng(13)
    X = rng.normal(size=(1_000, 30))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=1_000) > 0.4, 1.0, -1.0)
    runs, held = {}, {}
    for name, margin in (("dropped", SparseStumpColumns.DROP_MARGIN), ("kept", np.inf)):
        monkeypatch.setattr(SparseStumpColumns, "DROP_MARGIN", margin)
        held[name] = []

        def recorded(oracle, hypotheses, previous=None, stored=held[name], **options):
            operator = stump_operator(oracle, hypotheses, previous, **options)
            if type(operator) is SparseStumpColumns:
                stored.append((operator.n_columns, 0 if operator.B is None else operator.B.nnz))
            return operator

        monkeypatch.setattr(module, "stump_operator", recorded)
        runs[name] = erlpboost(DecisionStumps().fit(X, y), nu=100.0, eps=0.02)
    bound = SparseStumpColumns.DROP_MARGIN * SparseStumpColumns.MAX_DENSITY * 1_000
    assert len(held["dropped"]) > 20 and all(nnz <= bound * t for t, nnz in held["dropped"])
    assert max(nnz / t for t, nnz in held["kept"]) > 200  # rows kept: ~N/4 per column
    a, b = runs["dropped"], runs["kept"]
    assert a.n_iter == b.n_iter and a.hypotheses == b.hypotheses
    assert np.array_equal(a.weights, b.weights)
    assert np.array_equal(a.history["gap"], b.history["gap"], equal_nan=True)


def test_model_products_through_the_operator():
    """The smooth dual's value, gradient, objectives and Hessian-vector products of an ERLPBoost
    model with the sparse operator equal those on the explicit U."""
    rng = np.random.default_rng(3)
    X, y = sparse_data(rng, 2_000)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 300)
    U = explicit(X, y, hypotheses)
    plain = ERLPBoost(U, nu=200.0, eta=20.0)
    implicit = plain.with_columns(U)
    implicit.stump_columns = operator = SparseStumpColumns.of(oracle, hypotheses)
    assert operator.pays(300)  # 6e5 entries, B sparse: the model goes through it
    # its Gram costs less than the explicit one's N |S|^2, so the solver forms Hessians through it
    assert 2_000 < operator.gram_work(300) < 2_000 * 300**2
    assert implicit.hessian_work(300) == operator.gram_work(300) < plain.hessian_work(300)
    w = rng.random(300)
    w /= w.sum()
    d = assert_model_products_agree(plain, implicit, w, np.array([1, 5, 6, 30, 31, 299]), rng)
    every = np.arange(300)  # (on 6 columns the operator does not pay: U_S is formed)
    formed, reference = implicit.dual_hessian(w, every, d), plain.dual_hessian(w, every, d)
    assert np.allclose(formed, reference, rtol=0, atol=1e-10 * np.abs(reference).max())


def topic_like(rng, n=1_000, vocabulary=1_000, words=30):
    """Binary bag of words: Zipf-distributed words plus a few that carry the label."""
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    cdf = np.cumsum(1.0 / np.arange(1, vocabulary + 1))
    cols = np.minimum(np.searchsorted(cdf / cdf[-1], rng.random((n, words))), vocabulary - 1)
    topic = rng.random((n, words)) < 0.2
    cols[topic] = np.where(y > 0, 100, 200)[topic.nonzero()[0]] + rng.integers(0, 20, topic.sum())
    rows = np.repeat(np.arange(n), words)
    X = sp.csr_matrix((np.ones(cols.size), (rows, cols.ravel())), shape=(n, vocabulary))
    X.sum_duplicates()
    X.data[:] = 1.0
    flip = rng.random(n) < 0.05
    y[flip] = -y[flip]
    return X, y


def _runs(monkeypatch, X, y, *, same_decisions):
    """ERLPBoost on the explicit U and through the sparse operator (from its first columns on), and the
    column counts of the operator's products. ``same_decisions``: the operator reports the explicit
    Gram's cost N |S|^2 (``gram_work``), so that the Newton solver forms its Hessians at the same steps
    as on the explicit U (its choice depends on that cost: docs/solvers.md)."""
    runs, calls = {}, counted_margins(monkeypatch, SparseStumpColumns)
    if same_decisions:
        monkeypatch.setattr(SparseStumpColumns, "gram_work", lambda self, k: float(self.n_samples * k * k))
    for name, density in (("explicit", -1.0), ("implicit", 1.0)):
        monkeypatch.setattr(SparseStumpColumns, "MAX_DENSITY", density)
        monkeypatch.setattr(SparseStumpColumns, "MIN_ENTRIES", 0)
        runs[name] = erlpboost(DecisionStumps().fit(X, y), nu=0.1 * y.size, eps=0.02)
        if name == "explicit":
            assert not calls  # the reference run never went through the operator
    assert len(calls) > runs["implicit"].n_iter  # the implicit run did, from its first columns on
    return runs["implicit"], runs["explicit"]


def test_erlpboost_runs_match_the_explicit_ones(monkeypatch):
    """A whole run on sparse binary features through the sparse operator, taking the explicit path's
    solver decisions, has the same hypotheses, iterations and certified values as the run on U."""
    a, b = _runs(monkeypatch, *topic_like(np.random.default_rng(11)), same_decisions=True)
    assert a.n_iter == b.n_iter and a.n_iter > 20
    assert a.hypotheses == b.hypotheses
    # The explicit run measures its trust radius on a float32 U from N |S| >= 2e5 on
    # (docs/solvers.md#single-precision-products), the sparse one in float64: the re-solves stop at
    # points that differ inside their tolerance eps/4 = 5e-3. The duals they certify agree to 1e-10,
    # the weights to 1e-5 and the primal values at those points (so the gaps) to 1e-4, all far below it.
    assert np.allclose(a.weights, b.weights, rtol=0, atol=1e-5)
    assert np.allclose(a.history["dual"], b.history["dual"], rtol=0, atol=1e-10, equal_nan=True)
    assert np.allclose(a.history["gap"], b.history["gap"], rtol=0, atol=1e-4, equal_nan=True)
    assert a.converged and b.converged


def test_a_run_with_its_own_solver_decisions_is_as_good(monkeypatch):
    """With its own Gram cost the solver forms Hessians at other steps, so the run takes another
    path; it is certified all the same, and its output's soft margin is within eps of the explicit
    run's (each is within eps of the best soft margin, [KG] Thm 3.12)."""
    X, y = topic_like(np.random.default_rng(11))
    a, b = _runs(monkeypatch, X, y, same_decisions=False)
    assert a.converged and b.converged
    assert np.all(np.asarray(a.history["gap"])[:-1] >= -1e-9)  # every re-solve certified (P >= D)
    nu = int(0.1 * y.size)
    soft = [float(np.sort(r.margins)[:nu].mean()) for r in (a, b)]
    assert abs(soft[0] - soft[1]) <= 0.02


def test_the_compiled_products_equal_scipys(monkeypatch):
    """B's products and Gram by the compiled kernels (IndicatorPasses: no data array, a restricted
    operator on its parent's rows) against scipy's sparse products, the reference where the
    extension is not built."""
    import dualboost.problems.sparse_columns as module

    assert module.IndicatorPasses is not None  # CI builds the extension: the compiled path is tested
    rng = np.random.default_rng(9)
    X, y = sparse_data(rng, 5_000)
    operator = SparseStumpColumns.of(DecisionStumps().fit(X, y), random_stumps(rng, X, 60))
    columns = np.array([59, 3, 3, 17, 0])  # (out of order, repeated)
    part = operator.restricted(columns)
    w, d, g = rng.normal(size=60), rng.normal(size=5_000), rng.random(5_000)
    g[rng.random(5_000) < 0.2] = 0.0
    compiled = [operator.margins(w), operator.edges(d), operator.weighted_gram(g)]
    compiled += [part.margins(w[columns]), part.edges(d), part.weighted_gram(g)]
    monkeypatch.setattr(module, "IndicatorPasses", None)
    reference = [operator.margins(w), operator.edges(d), operator.weighted_gram(g)]
    reference += [part.margins(w[columns]), part.edges(d), part.weighted_gram(g)]
    for a, b in zip(compiled, reference, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-13 * np.abs(b).max())


def test_rows_are_found_on_first_use_only():
    """:meth:`SparseStumpColumns.of` counts the rows of the new columns (``nnz``, which ``pays`` and
    ``gram_pays`` read) and finds them on first use: an operator whose products were never asked for
    holds no rows, its ``pays`` and ``gram_pays`` are those of the operator with its rows found, and the
    rows found late (several operators' pending columns at once, in any order) are those of the
    operator made at once, sharing the arrays of the latest operator where they can."""
    rng = np.random.default_rng(31)
    oracle, hypotheses, chain = _chain(rng, 400, 24)
    assert all(operator._source is None and operator._pending is not None for operator in chain)
    for k in (23, 5, 11, 0, 22):  # the latest first, then older ones (views of its arrays), then others
        operator, fresh = chain[k], SparseStumpColumns.of(oracle, hypotheses[: k + 1])
        fresh._found()
        assert operator.nnz == fresh.nnz == fresh.B.nnz == operator.B.nnz
        assert (operator.B != fresh.B).nnz == 0
        assert operator._pending is None and operator._source is not None
        for columns in (1, k + 1, 10_000):
            assert operator.pays(columns) == fresh.pays(columns)
            assert operator.gram_pays(columns) == fresh.gram_pays(columns)
        if k in (5, 11, 0, 22):  # the first columns of the latest operator's arrays: no copy
            assert np.shares_memory(operator._source[0], chain[23]._source[0]) or operator.nnz == 0
    # a pending operator extended: its pending columns and the new ones found together
    extended = SparseStumpColumns.of(oracle, hypotheses[:20] + hypotheses[:3], chain[19])
    assert (extended.B != SparseStumpColumns.of(oracle, hypotheses[:20] + hypotheses[:3]).B).nnz == 0
    w = rng.normal(size=24)
    pending = SparseStumpColumns.of(oracle, hypotheses)
    assert np.array_equal(pending.margins(w), chain[23].margins(w))


def test_a_pickled_operator_holds_its_rows_not_the_oracle():
    rng = np.random.default_rng(32)
    X, y = sparse_data(rng, 200)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 12)
    operator = SparseStumpColumns.of(oracle, hypotheses)
    loaded = pickle.loads(pickle.dumps(operator))
    assert loaded._pending is None and loaded.nnz == operator.nnz
    assert (loaded.B != SparseStumpColumns.of(oracle, hypotheses).B).nnz == 0


def test_german_like_runs_never_find_the_rows(monkeypatch):
    """On dense features below the products' floor (german, diabetes) the sparse operator is chosen on
    the first iterations but neither pays nor gram-pays: the run never finds its rows, and its fit is
    the one whose operators found them at once, bit for bit."""
    rng = np.random.default_rng(33)
    X = np.round(rng.normal(size=(300, 6)), 1)
    y = np.where(X[:, 0] + rng.normal(size=300) > 0, 1.0, -1.0)
    found = []
    original = SparseStumpColumns._found

    def counted(self):
        found.append(self._pending is not None)
        return original(self)

    monkeypatch.setattr(SparseStumpColumns, "_found", counted)
    short = erlpboost(DecisionStumps().fit(X, y), nu=1.0, eps=0.05)
    assert not any(found)
    of = SparseStumpColumns.of.__func__

    def at_once(cls, *args):
        made = of(cls, *args)
        if made is not None:
            made._found()
        return made

    monkeypatch.setattr(SparseStumpColumns, "of", classmethod(at_once))
    found.clear()
    eager = erlpboost(DecisionStumps().fit(X, y), nu=1.0, eps=0.05)
    assert any(found)  # the sparse operator was made (and its rows found) on some iterations
    assert eager.n_iter == short.n_iter and eager.weights.tobytes() == short.weights.tobytes()
    assert eager.d.tobytes() == short.d.tobytes()
    assert eager.history["stopping"].tobytes() == short.history["stopping"].tobytes()
