"""DecisionStumps ([KG] Sec 5, docs/math.md#hypothesis-classes): the max-edge stump, checked against
independent computations.

* brute force over every feature, threshold (midpoints and the constants) and sign, on small
  random data with negative values, zeros and ties (hypothesis, derandomised);
* dense and sparse input (CSR, CSC, stored zeros) give identical selections;
* scikit-learn's DecisionTreeClassifier(max_depth=1) with sample_weight: our weighted error is
  never larger (a depth-1 tree is a stump; it minimises Gini impurity, not the error);
* deterministic ties, hashable hypotheses, predict on new data;
* on a9a (from the data folder, when present): a per-feature sort-and-cumsum reference;
* the edges of every threshold against a brute-force sum on random sparse data with many distinct
  values, ties, all-zero features, features whose largest block is not zero and negative values,
  with the segmented prefix sum cut into chunks of 2, 3 and 64 blocks (one to three levels of
  carries) and the layout searched in pieces of 5 slots; the segmented prefix sum itself against
  a per-run cumulative sum;
* the compiled search (``_stump_scan.Search``, ``stump_column``) against the numpy reference, bit
  for bit (sums, stump, edge, column), on those layouts with ties, constant features, long runs
  (chunks of 1 to 64), d with zeros, signed d, dense and sparse input, and along an ERLPBoost run
  on diabetes; its checks of the layout.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.tree import DecisionTreeClassifier

from dualboost.oracles import Constant, DecisionStumps, Stump
from dualboost.oracles import stumps as stumps_module
from tests.environment import DATA_DIR, requires_data

DATA = DATA_DIR


def all_stumps(X):
    """Every member of the class: the constants, then (feature, threshold, sign) in tie order."""
    hyps = [Constant(n_features=X.shape[1], sign=1), Constant(n_features=X.shape[1], sign=-1)]
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for theta in (values[:-1] + values[1:]) / 2:
            for s in (1, -1):
                hyps.append(Stump(n_features=X.shape[1], feature=j, threshold=float(theta), sign=s))
    return hyps


def brute_force(X, y, d):
    """(best edge, first hypothesis within 1e-12 of it) by evaluating every stump."""
    hyps = all_stumps(X)
    edges = np.array(
        [
            (y * np.where(getattr(h, "threshold", -np.inf) < X[:, getattr(h, "feature", 0)], h.sign, -h.sign))
            @ d
            for h in hyps
        ]
    )
    return edges.max(), hyps[int(np.argmax(edges >= edges.max() - 1e-12))]


@st.composite
def stump_problems(draw):
    n = draw(st.integers(1, 14))
    p = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.float64, (n, p), elements=st.sampled_from([-2.5, -1.0, 0.0, 0.0, 0.5, 1.0, 3.0])))
    y = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([-1.0, 1.0])))
    w = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])))
    if w.sum() == 0:
        w[0] = 1.0
    return X, y, w / w.sum()


@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stump_problems())
def test_matches_brute_force_dense_and_sparse(problem):
    X, y, d = problem
    selection = DecisionStumps().fit(X, y).best(d)
    edge, first = brute_force(X, y, d)
    assert selection.edge == pytest.approx(edge, abs=1e-12)
    assert selection.hypothesis == first  # the documented tie order
    np.testing.assert_array_equal(selection.column, y * selection.predict(X))
    assert np.all(np.abs(selection.column) == 1.0)
    assert selection.edge == pytest.approx(selection.column @ d, abs=1e-15)
    for Xs in (sp.csr_matrix(X), sp.csc_matrix(X), sp.coo_matrix(X)):
        other = DecisionStumps().fit(Xs, y).best(d)
        assert other == selection and other.edge == selection.edge
        np.testing.assert_array_equal(other.column, selection.column)


@pytest.mark.parametrize("seed", range(8))
def test_sparse_equals_dense_bitwise_with_continuous_values(seed):
    rng = np.random.default_rng(seed)
    n, p = 200, 12
    X = rng.normal(size=(n, p)) * (rng.random((n, p)) < 0.3)  # sparse, negative and positive values
    X[:, 3] = np.where(rng.random(n) < 0.9, 1.0, 0.0)  # zeros are not the largest block here
    X[:, 5] = 0.0  # constant feature: no stump
    X[:, 7] = rng.integers(-2, 3, n)  # many ties
    y = np.where(rng.random(n) < 0.5, 1, -1)
    dense, sparse = DecisionStumps().fit(X, y), DecisionStumps().fit(sp.csr_matrix(X), y)
    for _ in range(5):
        d = rng.dirichlet(np.ones(n))
        a, b = dense.best(d), sparse.best(d)
        assert a == b and a.edge == b.edge
        ref, _ = brute_force(X, y, d)
        assert a.edge == pytest.approx(ref, abs=1e-12)
        np.testing.assert_array_equal(dense._edges(d)[1], sparse._edges(d)[1])


def test_stored_explicit_zeros_and_negative_zero_are_zeros():
    X = np.array([[0.0, 1.0], [-0.0, 2.0], [1.0, 0.0], [-1.0, 0.0]])
    y = np.array([1, -1, 1, -1])
    Xs = sp.csc_matrix(
        (np.array([0.0, -0.0, 1.0, -1.0, 1.0, 2.0]), np.array([0, 1, 2, 3, 0, 1]), np.array([0, 4, 6])),
        shape=(4, 2),
    )
    rng = np.random.default_rng(0)
    for _ in range(5):
        d = rng.dirichlet(np.ones(4))
        a, b = DecisionStumps().fit(X, y).best(d), DecisionStumps().fit(Xs, y).best(d)
        assert a == b and a.edge == b.edge == pytest.approx(brute_force(X, y, d)[0], abs=1e-12)


@pytest.mark.parametrize("value", [1.0, 3.0, -2.0])
def test_blocks_of_one_stored_value_against_a_per_feature_reference(value):
    """Features whose only nonzero is ``value`` (binary bag-of-words, a9a): ``_blocks`` takes the
    entries in their CSC order there; its blocks against a per-feature count, and the oracle's edges
    against brute force."""
    rng = np.random.default_rng(int(value * 10) + 30)
    n = 60
    X = value * (rng.random((n, 7)) < np.array([0.1, 0.5, 0.9, 0.0, 1.0, 0.3, 0.7]))
    Xc = sp.csc_matrix(X)
    blocks = stumps_module._blocks(Xc)
    expected = []  # (feature, value, count, members) in (feature, value) order
    for j in range(X.shape[1]):
        rows = np.flatnonzero(X[:, j] != 0.0)
        parts = [(0.0, np.flatnonzero(X[:, j] == 0.0)), (value, rows)]
        parts = [(v, r) for v, r in sorted(parts, key=lambda part: part[0]) if r.size]
        if len(parts) == 2:
            expected += [(j, v, r) for v, r in parts]
    assert blocks.feature.tolist() == [e[0] for e in expected]
    assert blocks.value.tolist() == [e[1] for e in expected]
    explicit = []
    for j in sorted({e[0] for e in expected}):
        mine = [e for e in expected if e[0] == j]
        largest = max(e[2].size for e in mine)
        first = next(e for e in mine if e[2].size == largest)  # ties: the lowest value
        assert [e is first for e in mine] == blocks.implicit[blocks.feature == j].tolist()
        explicit += [e[2] for e in mine if e is not first]
    members = blocks.members.tocsr()
    assert members.shape[0] == len(explicit)
    for row, rows in enumerate(explicit):
        assert members.indices[members.indptr[row] : members.indptr[row + 1]].tolist() == rows.tolist()
    y = np.where(rng.random(n) < 0.5, 1, -1)
    oracle = DecisionStumps().fit(Xc, y)
    for _ in range(3):
        d = rng.dirichlet(np.ones(n))
        assert oracle.best(d).edge == pytest.approx(brute_force(X, y, d)[0], abs=1e-12)


def test_never_worse_than_sklearn_depth_one_tree():
    rng = np.random.default_rng(1)
    equal = 0
    for _ in range(40):
        n, p = int(rng.integers(5, 60)), int(rng.integers(1, 6))
        X = np.round(rng.normal(size=(n, p)), 1)
        y = np.where(X[:, 0] + rng.normal(scale=1.0, size=n) > 0, 1.0, -1.0)
        d = rng.dirichlet(np.ones(n))
        ours = (1 - DecisionStumps().fit(X, y).best(d).edge) / 2
        tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y, sample_weight=d)
        theirs = d @ (tree.predict(X) != y)
        assert ours <= theirs + 1e-12
        assert ours == pytest.approx(brute_force(X, y, d)[0] * -0.5 + 0.5, abs=1e-12)
        equal += bool(np.isclose(ours, theirs, atol=1e-12))
    assert equal >= 20  # Gini and the error agree on most small problems


def test_ties_go_to_the_first_feature_and_sign():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])  # feature 1 duplicates feature 0
    y = np.array([-1, -1, 1, 1])
    selection = DecisionStumps().fit(X, y).best(np.full(4, 0.25))
    assert selection.hypothesis == Stump(n_features=2, feature=0, threshold=1.5, sign=1)
    assert selection.edge == 1.0
    # uniform d on balanced labels: every constant has edge 0; the best stump still wins
    d = np.array([0.5, 0.0, 0.0, 0.5])
    assert DecisionStumps().fit(X, y).best(d).hypothesis.feature == 0


def test_constant_hypothesis_when_no_threshold_helps():
    X = np.ones((5, 3))
    y = np.array([1, 1, 1, -1, 1])
    selection = DecisionStumps().fit(X, y).best(np.full(5, 0.2))
    assert selection.hypothesis == Constant(n_features=3, sign=1)
    assert selection.edge == pytest.approx(0.6)
    np.testing.assert_array_equal(selection.predict(np.zeros((2, 3))), [1.0, 1.0])


def test_hypotheses_are_hashable_and_predict_new_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 4))
    y = np.where(X[:, 2] > 0.1, "yes", "no")  # any two labels; "yes" > "no" becomes +1
    oracle = DecisionStumps().fit(X, y)
    d = np.full(50, 1 / 50)
    a, b = oracle.best(d), oracle.best(d.copy())
    assert a == b and hash(a) == hash(b) and len({a.hypothesis, b.hypothesis}) == 1
    assert a.hypothesis.feature == 2 and a.edge == 1.0
    new = np.array([[0.0, 0.0, 5.0, 0.0], [0.0, 0.0, -5.0, 0.0]])
    np.testing.assert_array_equal(a.predict(new), [1.0, -1.0])
    np.testing.assert_array_equal(a.predict(sp.csr_matrix(new)), [1.0, -1.0])
    assert "x[2] >" in a.describe() and "edge" in repr(a)


def test_thresholds_separate_adjacent_floats():
    a = 1.0
    b = np.nextafter(a, 2.0)
    X = np.array([[a], [b]])
    y = np.array([-1, 1])
    selection = DecisionStumps().fit(X, y).best(np.array([0.5, 0.5]))
    assert selection.edge == 1.0
    np.testing.assert_array_equal(selection.predict(X), [-1.0, 1.0])


def reference_edges(X, y, d):
    """Max edge per feature by sorting each column and scanning distinct-value boundaries."""
    v = d * y
    best = abs(v.sum())
    for j in range(X.shape[1]):
        order = np.argsort(X[:, j], kind="stable")
        xs, cs = X[order, j], np.cumsum(v[order])
        distinct = xs[:-1] < xs[1:]
        if distinct.any():
            best = max(best, np.abs(v.sum() - 2 * cs[:-1][distinct]).max())
    return best


@requires_data("a9a.train")
def test_a9a_sparse_and_dense_against_reference():
    from dualboost.datasets import load_libsvm

    X, y = load_libsvm(DATA / "a9a.train", n_features=123)
    X, y = X[:6000], y[:6000]
    Xd = X.toarray()
    sparse, dense = DecisionStumps().fit(X, y), DecisionStumps().fit(Xd, y)
    rng = np.random.default_rng(0)
    for _ in range(3):
        d = rng.dirichlet(np.ones(X.shape[0]))
        a, b = sparse.best(d), dense.best(d)
        assert a == b and a.edge == b.edge
        assert a.edge == pytest.approx(reference_edges(Xd, y, d), abs=1e-12)


def brute_force_edges(X, y, d):
    """sum(d y) and the edge of every stump (j, theta, +1), thresholds in (feature, value) order."""
    v = d * y
    edges = []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for theta in (values[:-1] + values[1:]) / 2:
            above = X[:, j] > theta
            edges.append(v[above].sum() - v[~above].sum())
    return v.sum(), np.array(edges)


def mixed_sparse_data(rng, n=300):
    """Columns of every kind the block layout distinguishes (see the module docstring)."""
    columns = [
        rng.normal(size=n) * (rng.random(n) < 0.3),  # sparse, continuous, both signs: zeros implicit
        np.zeros(n),  # all zero: no stump
        np.full(n, 2.5),  # one non-zero value: no stump
        np.where(rng.random(n) < 0.7, 1.5, rng.normal(size=n)),  # largest block 1.5, in the middle
        -np.abs(rng.normal(size=n)) * (rng.random(n) < 0.4),  # negative only: zeros the largest, at the top
        rng.integers(-2, 3, n).astype(float),  # many ties
        rng.normal(size=n),  # dense, all distinct: runs longer than CHUNK
        np.where(rng.random(n) < 0.5, 0.0, rng.choice([-1.0, 3.0, 7.0], n)),  # implicit between runs
        np.exp(rng.normal(size=n)) * (rng.random(n) < 0.05),  # very sparse, positive
    ]
    X = np.column_stack(columns)
    y = np.where(X[:, 0] + X[:, 6] + rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("chunk", [2, 3, 64])
def test_edges_equal_brute_force_on_mixed_sparse_data(chunk, monkeypatch):
    monkeypatch.setattr(stumps_module, "CHUNK", chunk)
    monkeypatch.setattr(stumps_module, "PIECE", 5)
    rng = np.random.default_rng(chunk)
    X, y = mixed_sparse_data(rng)
    dense, sparse = DecisionStumps().fit(X, y), DecisionStumps().fit(sp.csc_matrix(X), y)
    weights = [rng.dirichlet(np.ones(X.shape[0])), np.where(rng.random(X.shape[0]) < 0.2, 1.0, 0.0)]
    weights.append(np.full(X.shape[0], 3.0))  # not normalised; balanced-ish labels
    for d in weights:
        total, edges = dense._edges(d)
        ref_total, ref_edges = brute_force_edges(X, y, d)
        assert total == pytest.approx(ref_total, abs=1e-12 * d.sum())
        np.testing.assert_allclose(edges, ref_edges, rtol=0, atol=1e-12 * d.sum())
        other_total, other_edges = sparse._edges(d)
        assert other_total == total
        np.testing.assert_array_equal(other_edges, edges)  # bit-identical, dense vs sparse
        a, b = dense.best(d), sparse.best(d)
        assert a == b and a.edge == b.edge
        # the documented order: first within TIE_TOL of the maximum of [total, -total, e1, -e1, ...]
        signed = np.column_stack([np.r_[ref_total, ref_edges], -np.r_[ref_total, ref_edges]]).ravel()
        first = int(np.argmax(signed >= signed.max() - 1e-12 * d.sum()))
        hyps = all_stumps(X)
        assert a.hypothesis == hyps[first]
        assert a.edge == pytest.approx(signed.max(), abs=1e-12 * d.sum())


def test_run_scan_equals_cumsum_per_run():
    rng = np.random.default_rng(5)
    for chunk in (1, 2, 3, 7, 64):
        lengths = np.r_[rng.integers(1, 4 * chunk + 3, 40), 1, chunk, chunk + 1, 2 * chunk, 9 * chunk + 5]
        values = rng.normal(size=lengths.sum())
        scan, slots, pad_slots, pad_elements = stumps_module._run_scan(lengths, chunk)
        A = np.zeros(scan.size)
        A[slots] = values
        scan(A)
        starts = np.r_[0, np.cumsum(lengths)]
        pieces = zip(starts[:-1], starts[1:], strict=True)
        expected = np.concatenate([np.cumsum(values[a:b]) for a, b in pieces])
        np.testing.assert_allclose(A[slots], expected, rtol=0, atol=1e-12 * np.abs(values).sum())
        np.testing.assert_array_equal(A[pad_slots], A[slots][pad_elements])  # padding repeats the last
        assert np.unique(np.r_[slots, pad_slots]).size == scan.size  # every slot used exactly once


def test_the_compiled_scan_is_built():
    """CI runs the compiled row additions: the extension exists in an installed tree (no skip)."""
    assert stumps_module._stump_scan is not None


def test_the_compiled_scan_equals_the_numpy_scan_bit_for_bit(monkeypatch):
    """The compiled row additions and carries (``_stump_scan``) make the numpy loop's additions in
    its order: the same sums exactly, for layouts with and without long runs (sub-scans, carries)."""
    rng = np.random.default_rng(11)
    for chunk in (1, 3, 64):
        lengths = np.r_[rng.integers(1, 4 * chunk + 3, 40), 1, chunk, chunk + 1, 9 * chunk + 5]
        scan, slots, pad_slots, pad_elements = stumps_module._run_scan(lengths, chunk)
        A = rng.normal(size=scan.size) * 10.0 ** rng.integers(-8, 8, size=scan.size)
        compiled = A.copy()
        scan(compiled)
        with monkeypatch.context() as patch:
            patch.setattr(stumps_module, "_stump_scan", None)
            reference = A.copy()
            scan(reference)
        np.testing.assert_array_equal(compiled, reference)
    with pytest.raises(ValueError, match="past the end"):
        stumps_module._stump_scan.scan_rows(np.zeros(3), np.array([0, 2]), np.array([2, 2]))


@requires_data("german.numer")
def test_the_oracle_selects_the_same_with_and_without_the_compiled_scan(monkeypatch):
    """Along random distributions on german (continuous and binary features), both paths of the
    scan give the same stump and the same edge, exactly."""
    from dualboost.datasets import load_libsvm

    X, y = load_libsvm(DATA_DIR / "german.numer", sparse=False)
    oracle = DecisionStumps().fit(X, y)
    rng = np.random.default_rng(3)
    for _ in range(20):
        d = rng.dirichlet(np.full(y.size, 0.3))
        fast = oracle.best(d)
        with monkeypatch.context() as patch:
            patch.setattr(stumps_module, "_stump_scan", None)
            reference = oracle.best(d)
        assert fast == reference and fast.edge == reference.edge


def both_paths(oracle, d, monkeypatch, signed=False):
    """(compiled, numpy) results of ``best`` and ``_run_sums`` for d: the numpy path is the one a
    source tree without the built extension runs (``_stump_scan`` None)."""
    fast = oracle.best(d, signed=signed), oracle._run_sums(d)
    with monkeypatch.context() as patch:
        patch.setattr(stumps_module, "_stump_scan", None)
        reference = oracle.best(d, signed=signed), oracle._run_sums(d)
    return fast, reference


def assert_same_paths(oracle, d, monkeypatch, signed=False):
    (fast, (total, sums)), (reference, (ref_total, ref_sums)) = both_paths(oracle, d, monkeypatch, signed)
    assert total == ref_total
    np.testing.assert_array_equal(sums, ref_sums)  # every slot's running sum, bit for bit
    assert fast.hypothesis == reference.hypothesis  # feature, threshold, sign: same tie-breaking
    assert fast.edge == reference.edge
    np.testing.assert_array_equal(fast.column, reference.column)
    assert not fast.column.flags.writeable
    return fast


@pytest.mark.parametrize("chunk", [1, 2, 3, 64])
def test_the_compiled_search_equals_the_numpy_search(chunk, monkeypatch):
    """The compiled search (``_stump_scan.Search``: slot sums, scan, largest edge, first tie, the
    column) against the numpy reference, exactly: runs cut into chunks of 1 to 64 blocks (up to
    four levels of carries), ties (integer features, duplicated columns, d with exact zeros and
    equal weights), constant features, dense and sparse input, signed d."""
    monkeypatch.setattr(stumps_module, "CHUNK", chunk)
    monkeypatch.setattr(stumps_module, "PIECE", 7)
    rng = np.random.default_rng(100 + chunk)
    X, y = mixed_sparse_data(rng, n=300)
    X = np.column_stack([X, X[:, 5], np.round(X[:, 6])])  # a duplicated feature, coarse ties
    n = X.shape[0]
    weights = [
        rng.dirichlet(np.ones(n)),
        np.where(rng.random(n) < 0.2, 1.0, 0.0),  # zeros; many exact ties in the edges
        np.full(n, 1.0 / n),
        np.where(np.arange(n) < 3, 1.0, 0.0),  # three examples: most stumps tie
    ]
    selected = set()
    for Xs in (X, sp.csr_matrix(X), sp.csc_matrix(X)):
        oracle = DecisionStumps().fit(Xs, y)
        assert oracle._compiled() is not None
        assert oracle._scan.size > 2 * 256  # several blocks of Search.choose's extremes
        for d in weights:
            selected.add(assert_same_paths(oracle, d, monkeypatch).hypothesis)
        for _ in range(3):
            signed = rng.normal(size=n) * (rng.random(n) < 0.5)
            signed[0] = 1.0
            selected.add(assert_same_paths(oracle, signed, monkeypatch, signed=True).hypothesis)
    assert len(selected) >= 3  # the cases exercise different choices, not one stump


def test_the_compiled_search_picks_constants_and_the_first_tie(monkeypatch):
    """The constant hypotheses (no stump reaches |sum(d y)|, constant features only) and a tie
    between two features and both signs: the compiled path gives the reference's choice."""
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    y = np.array([-1, -1, 1, 1])
    oracle = DecisionStumps().fit(X, y)
    fast = assert_same_paths(oracle, np.full(4, 0.25), monkeypatch)
    assert fast.hypothesis == Stump(n_features=2, feature=0, threshold=1.5, sign=1)
    fast = assert_same_paths(oracle, np.array([0.25, 0.0, 0.0, 0.25]), monkeypatch, signed=True)
    assert fast.hypothesis.feature == 0
    for d in (np.array([0.5, 0.5, 0.0, 0.0]), np.array([0.0, 0.0, 0.5, 0.5])):
        # every edge is at most |sum(d y)|: a constant, -1 then +1
        fast = assert_same_paths(oracle, d, monkeypatch)
        assert fast.hypothesis == Constant(n_features=2, sign=int(y @ d))
    constant = DecisionStumps().fit(np.ones((5, 3)), np.array([1, 1, 1, -1, 1]))
    assert constant._scan.size == 0
    fast = assert_same_paths(constant, np.full(5, 0.2), monkeypatch)
    assert fast.hypothesis == Constant(n_features=3, sign=1)


@requires_data("diabetes")
def test_the_compiled_search_along_a_run_on_diabetes(monkeypatch):
    """The distributions of an ERLPBoost run on diabetes (the thesis split): the same stump, edge
    and column on both paths at every iteration."""
    from dualboost import ERLPBoostClassifier
    from dualboost.datasets import load_libsvm, thesis_split

    X, y = thesis_split(*load_libsvm(DATA_DIR / "diabetes", sparse=False), seed=0).train
    seen = []

    class Recording(DecisionStumps):
        def _best(self, d):
            seen.append(d.copy())
            return super()._best(d)

    ERLPBoostClassifier(nu=0.1, eps=0.05, oracle=Recording()).fit(X, y)
    oracle = DecisionStumps().fit(X, y)
    assert len(seen) > 10
    for d in seen:
        assert_same_paths(oracle, d, monkeypatch)


def test_the_compiled_column_equals_the_prediction():
    """``stump_column``: y * h(X) from the CSC columns (int32 and int64 indices), thresholds below,
    between and above the values, below and above 0, both signs."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3)) * (rng.random((40, 3)) < 0.5)
    y = np.where(rng.random(40) < 0.5, 1.0, -1.0)
    Xc = sp.csc_matrix(X)
    wide = sp.csc_matrix(X)
    wide.indptr, wide.indices = wide.indptr.astype(np.int64), wide.indices.astype(np.int64)
    for j in range(3):
        for threshold in (-10.0, -0.3, -0.0, 0.0, 0.4, 10.0, float(X[0, j])):
            for sign in (1, -1):
                expected = y * Stump(n_features=3, feature=j, threshold=threshold, sign=sign)._predict(X)
                for M in (Xc, wide):
                    out = np.empty(40)
                    stumps_module._stump_scan.stump_column(
                        M.indptr, M.indices, M.data, j, threshold, sign, y, out
                    )
                    np.testing.assert_array_equal(out, expected)
    with pytest.raises(ValueError, match="feature"):
        stumps_module._stump_scan.stump_column(Xc.indptr, Xc.indices, Xc.data, 3, 0.0, 1, y, np.empty(40))


def test_the_compiled_sums_over_the_examples_are_numpys():
    """Up to ``EXACT_SUM_MAX`` examples the compiled search also makes the sums over the N examples
    (``Search.sums_exact``: ``sum(d * y)`` and ``sum |d|``; ``stump_column``'s edge ``sum(column * d)``)
    in numpy's pairwise order: the same bits as numpy's, at sizes around its blocks of 8 and 128,
    for distributions and signed weights spanning many magnitudes (where another order of the
    additions rounds differently), strided d too; above it numpy's sums are taken (``exact`` False),
    and ``best`` is the same there as well."""
    rng = np.random.default_rng(21)
    for n in (1, 7, 9, 127, 129, 300, 1000, 4097, 8192, 8193):
        X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, size=n)])
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        oracle = DecisionStumps().fit(X, y)
        search = oracle._compiled()
        assert search.exact == (n <= 8192)
        signed = rng.normal(size=2 * n) * 10.0 ** rng.integers(-9, 3, size=2 * n)
        for d in (rng.dirichlet(np.full(n, 0.2)), signed[:n], signed[::2]):
            v = d * y
            if search.exact:
                out = np.empty(oracle._scan.size)
                total, scale = search.sums_exact(d, y, out)
                assert total == float(v.sum()) and scale == float(np.abs(d).sum())
                np.testing.assert_array_equal(out, oracle._run_sums(np.ascontiguousarray(d))[1])
                X_ = oracle.X_
                column = np.empty(n)
                edge = stumps_module._stump_scan.stump_column(
                    X_.indptr, X_.indices, X_.data, 0, 0.1, -1, y, column, d
                )
                assert edge == float(np.sum(column * d))
            selection = oracle.best(d, signed=True)
            assert selection.edge == float(np.sum(selection.column * d))
    with pytest.raises(ValueError, match="needs N <="):
        search.sums_exact(np.zeros(n), y, np.empty(oracle._scan.size))
    X_ = oracle.X_
    with pytest.raises(ValueError, match="at most 8192"):
        stumps_module._stump_scan.stump_column(X_.indptr, X_.indices, X_.data, 0, 0.1, 1, y, np.empty(n), d)


def test_the_compiled_search_checks_its_layout():
    """``Search`` checks the fitted arrays once (the loops then read them unchecked)."""
    rng = np.random.default_rng(9)
    X, y = mixed_sparse_data(rng, n=60)
    oracle = DecisionStumps().fit(X, y)
    multi = oracle._multi
    parts = dict(
        single=oracle._single,
        multi_indptr=multi.indptr.astype(np.intp),
        multi_indices=multi.indices.astype(np.int32),
        multi_slots=oracle._multi_slots.astype(np.intp),
        slot_boundary=oracle._slot_boundary,
    )
    Search = stumps_module._stump_scan.Search
    Search(60, oracle._scan, *parts.values())  # the fitted layout is accepted
    bad_single = parts["single"].copy()
    bad_single[0] = 61
    bad_indices = parts["multi_indices"].copy()
    bad_indices[-1] = 60
    for key, value, message in [
        ("single", bad_single, "single must index"),
        ("multi_indices", bad_indices, "multi_indices must index"),
        ("multi_slots", parts["multi_slots"][:-1], "multi_indptr must start"),
        ("slot_boundary", parts["slot_boundary"][:-1], "one entry per slot"),
    ]:
        with pytest.raises(ValueError, match=message):
            Search(60, oracle._scan, *{**parts, key: value}.values())
    search = oracle._compiled()
    with pytest.raises(ValueError, match="v must have N"):
        search.sums(np.zeros(59), np.empty(oracle._scan.size))


def test_pickled_oracle_selects_the_same():
    rng = np.random.default_rng(7)
    X, y = mixed_sparse_data(rng, n=80)
    oracle = DecisionStumps().fit(sp.csr_matrix(X), y)
    d = rng.dirichlet(np.ones(80))
    first = oracle.best(d)
    copy = pickle.loads(pickle.dumps(oracle))
    assert "_buffer" not in copy.__dict__ and "_search" not in copy.__dict__
    again = copy.best(d)
    assert again == first and again.edge == first.edge
    assert oracle.best(d) == first  # the reused buffer gives the same answer


def test_first_max_signed_equals_the_interleaved_definition():
    """first_max_signed works on |edges|; the definition orders [e0, -e0, e1, -e1, ...]."""
    from dualboost.oracles.base import TIE_TOL, first_max_signed

    rng = np.random.default_rng(11)
    for _ in range(300):
        edges = rng.choice([-0.5, -0.25, 0.0, 0.25, 0.5], size=int(rng.integers(1, 12)))
        edges = edges + rng.choice([0.0, 0.0, 0.4e-12, -0.4e-12, 1e-9], size=edges.size)  # near-ties
        scale = float(rng.choice([1.0, 3.0]))
        signed = np.column_stack([edges, -edges]).ravel()
        index, odd = divmod(int(np.argmax(signed >= signed.max() - TIE_TOL * scale)), 2)
        assert first_max_signed(edges, scale) == (index, -1 if odd else 1)
