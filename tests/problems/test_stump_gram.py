"""The formed Hessian of decision-stump columns through their sort orders
(``StumpColumns.weighted_gram``, ``Model.dual_hessian`` and ``dual_hessian_block`` where the operator
pays) against the explicit Gram ``U^T diag(g) U`` and the Hessians formed on the explicit U."""

import numpy as np
import pytest

from dualboost.oracles import DecisionStumps
from dualboost.oracles.stumps import Constant, Stump
from dualboost.problems.kernels import StumpColumns
from tests.problems.stump_operators import explicit
from tests.problems.test_stump_columns import always, data, model_pair, random_stumps


def test_the_compiled_gram_is_built():
    """CI forms the Hessians of stump columns through the compiled histograms (no skip)."""
    from dualboost.problems import _stump_products as module

    assert callable(module.bucket_gram)


@pytest.mark.parametrize("n", [10, 3000])
def test_weighted_gram_equals_the_explicit_one(monkeypatch, n):
    """Ties, a constant feature, thresholds outside the range, repeated stumps and constants of both
    signs; weights with zeros; columns in any order, repeated, on one feature and on none."""
    always(monkeypatch)
    rng = np.random.default_rng(n)
    X, y = data(rng, n)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 60)
    U = explicit(X, y, hypotheses)
    operator = StumpColumns.of(oracle, hypotheses)
    g = rng.random(n)
    g[:: max(2, n // 7)] = 0.0
    reference = U.T @ (g[:, None] * U)
    tol = 1e-13 * g.sum()  # rounding relative to sum |g|, the Gram's largest entry
    assert np.allclose(operator.weighted_gram(g), reference, rtol=0, atol=tol)
    single = [j for j, h in enumerate(hypotheses) if isinstance(h, Stump) and h.feature == 0]
    for columns in ([59, 0, 7, 33, 2], [5, 5, 1], single, [0, 1]):  # [0, 1]: the two constants
        columns = np.array(columns)
        part = operator.restricted(columns).weighted_gram(g)
        assert np.allclose(part, reference[np.ix_(columns, columns)], rtol=0, atol=tol)
    signed = rng.normal(size=n)  # the formula holds for any weights
    assert np.allclose(operator.weighted_gram(signed), U.T @ (signed[:, None] * U), atol=1e-13 * n)


def test_one_threshold_per_row_extreme():
    """Every row its own bucket (a threshold between each pair of sorted values) and stumps above and
    below every value: the histograms at their largest."""
    n = 50
    rng = np.random.default_rng(2)
    X = rng.permutation(n).reshape(n, 1).astype(float)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = [Stump(n_features=1, feature=0, threshold=k - 0.5, sign=1) for k in range(n + 1)]
    hypotheses.append(Constant(n_features=1, sign=-1))
    operator = StumpColumns(*_parts(oracle, hypotheses))
    U = explicit(X, y, hypotheses)
    g = rng.random(n)
    assert np.allclose(operator.weighted_gram(g), U.T @ (g[:, None] * U), rtol=0, atol=1e-13 * g.sum())


def _parts(oracle, hypotheses):
    """StumpColumns.of's arguments without its thresholds on when it pays."""
    import unittest.mock

    with unittest.mock.patch.multiple(StumpColumns, MIN_COLUMNS_PER_FEATURE=0, MIN_ENTRIES=0):
        built = StumpColumns.of(oracle, hypotheses)
    return built.y, built.order, built.position, built.cut, built.sign, built.features


@pytest.mark.parametrize("eta", [20.0, 2e4])  # 2e4: most rows negligible (dual_hessian's row mask)
def test_model_hessians_through_the_operator(monkeypatch, eta):
    """``dual_hessian`` and ``dual_hessian_block`` of an ERLPBoost model with the operator equal
    those on the explicit U (the Hessian relative to its largest entry, 1e-10)."""
    plain, implicit, w = model_pair(monkeypatch, np.random.default_rng(4), 800, nu=8.0, eta=eta)
    d = plain.d_from_w(w)
    if eta > 1e3:
        _, rows = plain._curvature(w, d)
        assert rows is not None  # the masked path is the one tested
    columns = np.array([1, 5, 6, 30, 31, 59, 0])
    reference = plain.dual_hessian(w, columns, d)
    formed = implicit.dual_hessian(w, columns, d)
    assert np.allclose(formed, reference, rtol=0, atol=1e-10 * np.abs(reference).max())
    new = np.array([59, 0])
    reference = plain.dual_hessian_block(w, columns, new, d)
    block = implicit.dual_hessian_block(w, columns, new, d)
    assert block.shape == (columns.size, new.size)
    assert np.allclose(block, reference, rtol=0, atol=1e-10 * np.abs(reference).max())


def test_hessian_work_through_the_operator(monkeypatch):
    """Newton's cost of forming a Hessian (``Model.hessian_work``, against
    ``NewtonOptions.kept_min_work``): N |S|^2 on the explicit U, the histograms' N F (F + 1) / 2
    plus |S|^2 through the operator (5 feature slots here)."""
    plain, implicit, _ = model_pair(monkeypatch, np.random.default_rng(5), 800, nu=8.0, eta=20.0)
    assert plain.hessian_work(40) == 800 * 40**2
    slots = len(implicit.stump_columns.features)
    assert implicit.hessian_work(40) == 800 * slots * (slots + 1) / 2 + 40**2 < plain.hessian_work(40)
    monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 1e9)  # where the operator does not pay: N |S|^2
    assert implicit.hessian_work(40) == 800 * 40**2


def test_trust_radius_through_the_operator(monkeypatch):
    """``dual_step_spread(single=True)`` takes the operator's float64 pass where it pays (to 1e-12 of
    the explicit float64 spread), not the float32 copy of U (relative error of order 1e-7)."""
    plain, implicit, w = model_pair(monkeypatch, np.random.default_rng(6), 800, nu=8.0, eta=20.0)
    d = plain.d_from_w(w)
    direction = np.random.default_rng(7).normal(size=w.size)
    direction -= direction.mean()
    reference = plain.dual_step_spread(direction, d)
    assert implicit.dual_step_spread(direction, d, single=True) == pytest.approx(reference, rel=1e-12)
    assert implicit._single_U is None  # no float32 copy made
    assert plain.dual_step_spread(direction, d, single=True) == pytest.approx(reference, rel=1e-5)
