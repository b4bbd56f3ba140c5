"""Shared checks of the implicit operators of stump columns (``StumpColumns``, ``SparseStumpColumns``)
against the explicit U: imported as ``tests.problems.stump_operators`` by their test modules."""

import numpy as np
import pytest


def explicit(X, y, hypotheses):
    """U from the hypotheses' own predictions (the Ensemble's columns: y * h(x))."""
    return np.column_stack([y * h.predict(X) for h in hypotheses])


def assert_model_products_agree(plain, implicit, w, columns, rng):
    """The smooth dual's value, gradient and d(w), the primal and dual objectives, and the
    Hessian-vector product on ``columns`` (a random v drawn from ``rng``) of the model ``implicit``
    (with its operator) equal those of ``plain`` (the same model on the explicit U). Returns d(w)."""
    for a, b in zip(implicit.dual_value_and_grad(w), plain.dual_value_and_grad(w), strict=True):
        assert np.allclose(a, b, rtol=1e-12, atol=1e-14)
    d = plain.d_from_w(w)
    assert implicit.primal_objective(d) == pytest.approx(plain.primal_objective(d), rel=1e-12)
    assert implicit.dual_objective(w) == pytest.approx(plain.dual_objective(w), rel=1e-12)
    v = rng.normal(size=columns.size)
    product = implicit.dual_hessian_operator(w, columns, d)(v)
    reference = plain.dual_hessian(w, columns, d) @ v
    assert np.allclose(product, reference, rtol=1e-10, atol=1e-12 * np.abs(reference).max())
    # a block (a kept Hessian's border): rows and columns that overlap in part, in any order
    rows, cross = columns[::-1], columns[: max(1, columns.size // 2)]
    block, dense = implicit.dual_hessian_block(w, rows, cross, d), plain.dual_hessian_block(w, rows, cross, d)
    assert block.shape == (rows.size, cross.size)
    assert np.allclose(block, dense, rtol=1e-10, atol=1e-12 * max(np.abs(dense).max(), 1.0))
    return d


def counted_margins(monkeypatch, operator_class) -> list[int]:
    """The column counts of the ``margins`` calls of ``operator_class`` from now on (the list grows as
    they are made): whether a run went through the operator."""
    calls = []
    margins = operator_class.margins

    def counted(self, w):
        calls.append(self.n_columns)
        return margins(self, w)

    monkeypatch.setattr(operator_class, "margins", counted)
    return calls


def grown_and_whole(operator_class, oracle, hypotheses):
    """The operator of ``hypotheses`` extended column by column (as a run grows it, or a resumed run
    makes it again), and made at once."""
    grown = None
    for k in range(1, len(hypotheses) + 1):
        grown = operator_class.of(oracle, hypotheses[:k], grown)
    return grown, operator_class.of(oracle, hypotheses)
