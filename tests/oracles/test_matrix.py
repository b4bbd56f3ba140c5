"""MatrixOracle: a fixed finite class given by its edge matrix.

[KG] Thm 2.5 (docs/math.md#lpboost-lower-bound): on the lower-bound instance with even N and
delta = 0.01/N, the max-edge oracle driven by LPBoost's d^t picks columns 1, ..., N/2 + 1 in order,
with P_LP^t = -1 + 2 t delta and d^t = e_{M+t} for t <= M; the final value is >= delta/2, so after
N/2 iterations the gap is still >= 0.99. Row duplication (the soft-margin version) keeps the count.
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.instances import lpboost_lower_bound, random_edge_matrix
from dualboost.oracles import MatrixColumn, MatrixOracle
from dualboost.problems import min_max_edge


def lpboost_run(oracle, nu=1.0):
    """LPBoost (Alg. 2.1) with the exact LP (2.3): the selected indices, the values and the d's."""
    n = oracle.n_samples_
    d = np.full(n, 1.0 / n)
    chosen, values, ds = [], [], []
    while True:
        selection = oracle.best(d)
        if selection in chosen:
            return chosen, values, ds
        chosen.append(selection)
        U = np.column_stack([s.column for s in chosen])
        value, d, _ = min_max_edge(U, np.zeros(n), np.full(n, 1.0 / nu))
        values.append(value)
        ds.append(d)


@pytest.mark.parametrize("n_samples", [8, 20, 40])
def test_e13_lpboost_lower_bound(n_samples):
    M, delta = n_samples // 2, 0.01 / n_samples
    oracle = MatrixOracle(lpboost_lower_bound(n_samples, delta))
    chosen, values, ds = lpboost_run(oracle)
    assert [s.hypothesis.index for s in chosen] == list(range(M + 1))
    for t in range(1, M + 1):
        assert values[t - 1] == pytest.approx(-1 + 2 * t * delta, abs=1e-9)
        np.testing.assert_allclose(ds[t - 1], np.eye(n_samples)[M + t - 1], atol=1e-9)
    assert values[-1] >= delta / 2 - 1e-9
    assert values[-1] - values[M - 1] >= 0.99


@pytest.mark.parametrize("copies", [2, 3])
def test_e13_row_duplication_keeps_the_count(copies):
    n_samples, delta = 8, 0.01 / 8
    U = np.repeat(lpboost_lower_bound(n_samples, delta), copies, axis=0)
    chosen, values, _ = lpboost_run(MatrixOracle(U), nu=copies)
    assert [s.hypothesis.index for s in chosen] == list(range(n_samples // 2 + 1))
    assert values[n_samples // 2 - 1] == pytest.approx(-1 + n_samples * delta, abs=1e-9)


def test_max_edge_column_against_explicit_products():
    U = random_edge_matrix(30, 12, seed=4)
    rng = np.random.default_rng(0)
    for reflexive in (False, True):
        oracle = MatrixOracle(U, reflexive=reflexive)
        for _ in range(5):
            d = rng.dirichlet(np.ones(30))
            edges = U.T @ d
            selection = oracle.best(d)
            if reflexive:
                q = int(np.argmax(np.abs(edges)))
                sign = 1 if edges[q] > 0 else -1
                assert (selection.hypothesis.index, selection.hypothesis.sign) == (q, sign)
            else:
                q = int(np.argmax(edges))
                assert selection.hypothesis == MatrixColumn(n_features=0, index=q, sign=1, values=U[:, q])
            assert selection.edge == pytest.approx(abs(edges[q]) if reflexive else edges[q], abs=1e-14)


def test_ties_lowest_index_and_predict_by_example_index():
    U = np.array([[1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]])
    y = np.array([1, -1])
    oracle = MatrixOracle(U, y=y)
    selection = oracle.best(np.array([0.5, 0.5]))  # all edges 0: column 0 wins
    assert selection.hypothesis.index == 0
    np.testing.assert_array_equal(selection.column, U[:, 0])
    np.testing.assert_array_equal(selection.predict(np.array([0, 1])), y * U[:, 0])
    assert oracle.fit(np.zeros((2, 5))) is oracle
    with pytest.raises(ValueError, match="X"):
        selection.predict(np.array([2]))
    with pytest.raises(ValueError, match="X"):
        oracle.fit(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="U"):
        MatrixOracle(U * 2)
