"""GraphSepBoost ([AGHM21]; dualboost.boosting.corrective.graphsep, dualboost.estimators.graphsep;
docs/graphsep.md) on constructed instances, against its guarantee.

Independent computation: the pairs each returned hypothesis separates are recomputed by brute force
from its predictions, and the graph is replayed round by round.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.utils.estimator_checks import parametrize_with_checks

from dualboost.boosting.corrective.graphsep import graphsep_round_bound, graphsepboost
from dualboost.estimators.graphsep import GraphSepBoostClassifier
from dualboost.oracles import DecisionStumps, MatrixOracle


def _blocks(n_blocks: int, per_block: int = 5, seed: int = 0):
    """1-D points in n_blocks intervals of alternating labels: stumps have small edges, and every
    pair across a block boundary needs its own threshold."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.random(n_blocks * per_block))
    y = np.where((np.arange(x.size) // per_block) % 2 == 0, 1.0, -1.0)
    return x[:, None], y


def _replay(result, X, y):
    """The number of unseparated opposite pairs after each round, by brute force over the pairs."""
    pairs = {(i, j) for i, j in itertools.product(np.flatnonzero(y > 0), np.flatnonzero(y < 0))}
    sizes = [len(pairs)]
    order = _selection_order(result)
    for h in order:
        right = h.predict(X) == y
        pairs = {(i, j) for i, j in pairs if not (right[i] and right[j])}
        sizes.append(len(pairs))
    return sizes


def _selection_order(result):
    return list(result.hypotheses)  # each round adds a new hypothesis (a reselection removes nothing)


@pytest.mark.parametrize("n_blocks", [2, 4, 8])
def test_every_round_removes_a_gamma_fraction_and_the_run_separates_the_sample(n_blocks):
    X, y = _blocks(n_blocks)
    result = graphsepboost(DecisionStumps().fit(X, y))
    assert result.converged and result.stop_reason == "converged"
    edges = result.history["edge"]
    assert len(result.hypotheses) == result.n_iter == edges.size  # one new hypothesis per round
    sizes = _replay(result, X, y)
    assert sizes[-1] == 0
    for before, after, gamma in zip(sizes[:-1], sizes[1:], edges, strict=True):
        assert after <= (1.0 - gamma) * before + 1e-9  # the per-round guarantee
    np.testing.assert_allclose(result.history["stopping"], np.array(sizes[1:]) / sizes[0], rtol=0, atol=1e-15)
    assert result.n_iter <= graphsep_round_bound(sizes[0], float(edges.min()))
    clf = GraphSepBoostClassifier().fit(X, y)
    assert clf.score(X, y) == 1.0  # pure codes: no training error


def test_the_bound_is_reached_within_its_rounds_on_a_matrix_oracle():
    # a matrix oracle of all thresholds of 12 points with alternating labels
    n = 12
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    H = np.array([[1.0 if i <= k else -1.0 for k in range(n)] for i in range(n)])
    oracle = MatrixOracle(y[:, None] * H, y=y, reflexive=True)
    result = graphsepboost(oracle)
    assert result.converged
    assert result.n_iter <= graphsep_round_bound(int((y > 0).sum() * (y < 0).sum()),
                                                 float(result.history["edge"].min()))


def test_round_bound_and_bad_input():
    assert graphsep_round_bound(100, 0.5) == int(np.floor(np.log(100) / np.log(2))) + 1
    assert graphsep_round_bound(100, 1.0) == 1
    with pytest.raises(ValueError, match="gamma"):
        graphsep_round_bound(10, 0.0)
    X, y = _blocks(2)
    with pytest.raises(ValueError, match="both labels"):
        graphsepboost(MatrixOracle(np.ones((4, 2))))
    with pytest.raises(ValueError, match="max_iter"):
        GraphSepBoostClassifier(max_iter=0).fit(X, y)


def test_classifier_on_real_data_and_unseen_codes():
    X, y = load_breast_cancer(return_X_y=True)
    clf = GraphSepBoostClassifier().fit(X[:300], y[:300])
    assert clf.converged_ and clf.score(X[:300], y[:300]) == 1.0
    assert clf.score(X[300:], y[300:]) > 0.85
    assert set(clf.predict(X[300:])) <= set(clf.classes_)


@parametrize_with_checks([GraphSepBoostClassifier(max_iter=20)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
