"""``method="auglag"`` on [SS] relaxations with signed weights (docs/math.md#signed-weights).

* the default (``"abs"``) form, weights in the l1 ball, is solved through its simplex form over
  ``[A, -A]``: values against Clarabel on the same model, the pair certified by the abs model
  (``||w||_1 <= 1``, the relative gap within tol), warm starts after appended and removed columns;
* a simplex-form warm start places the previous weights where their columns are now: U = [A, -A], so
  a new column of A enters in both halves (before, the old weights of -A landed on the new columns).

Tolerances: each solution is certified to a relative gap of ``tol`` (1e-8 here, Clarabel's 1e-6 by
default), so two values of the same problem differ by at most the sum of the gaps: 2e-6 relative.
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost import conjugates as cj
from dualboost.problems import Relaxation
from dualboost.solvers import accepts
from dualboost.solvers.auglag import warm_start_weights

N, n = 60, 5
RNG = np.random.default_rng(31)
A = RNG.uniform(-1, 1, size=(N, n))
NEW = RNG.uniform(-1, 1, size=(N, 2))
UNIFORM = np.full(N, 1.0 / N)
REGULARISERS = {
    "entropy": lambda: 0.2 * cj.RelativeEntropy(UNIFORM),
    # the exact inner solve of docs/math.md#exact-restriction
    "entropy+l2": lambda: 0.1 * cj.RelativeEntropy(UNIFORM) + 0.5 * cj.HalfSquaredNorm(2),
}


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 2e-6 * max(1.0, abs(b))


@pytest.mark.parametrize("name", REGULARISERS)
def test_abs_form_is_solved_by_auglag_and_agrees_with_clarabel(name):
    rel = Relaxation(A, REGULARISERS[name]())
    assert rel.form == "abs" and accepts(rel, "auglag", "dual") is None
    sol = rel.solve(method="auglag", tol=1e-8)
    ref = rel.solve(method="clarabel")
    assert sol.optimal and ref.optimal and sol.method == "auglag"
    assert np.abs(sol.w).sum() <= 1 + 1e-9 and sol.w.size == n  # signed weights of A's columns
    assert close(sol.dual_value, ref.dual_value) and close(sol.primal_value, ref.primal_value)
    assert rel.dual_objective(sol.w) == pytest.approx(sol.dual_value, abs=1e-12)  # the abs model's own
    assert accepts(rel, "auglag", "primal") is not None  # the dual side only, as for every model


@pytest.mark.parametrize("name", REGULARISERS)
def test_abs_form_warm_starts_after_new_and_removed_columns(name):
    rel = Relaxation(A, REGULARISERS[name]())
    first = rel.solve(method="auglag", tol=1e-8)
    grown = rel.with_columns(np.column_stack([A, NEW]))
    warm = grown.solve(method="auglag", warm_start=first, tol=1e-8)
    assert warm.optimal and close(warm.dual_value, grown.solve(method="clarabel").dual_value)
    shrunk = rel.with_columns(np.delete(np.column_stack([A, NEW]), [1], axis=1))
    again = shrunk.solve(method="auglag", warm_start=warm, removed=[1], tol=1e-8)
    assert again.optimal and close(again.dual_value, shrunk.solve(method="clarabel").dual_value)


def test_simplex_form_warm_start_places_new_columns_of_a_in_both_halves():
    rel = Relaxation(A, REGULARISERS["entropy"](), form="simplex")
    first = rel.solve(method="auglag", tol=1e-8)
    v = first.w  # over [A, -A]: 2n weights
    grown = rel.with_columns(np.column_stack([A, NEW]))  # U = [A, new, -A, -new]
    w0 = warm_start_weights(grown, first, None)
    expected = np.r_[v[:n], 0.0, 0.0, v[n:], 0.0, 0.0] / v.sum()
    np.testing.assert_allclose(w0, expected, rtol=0, atol=1e-15)
    # the starting point is the previous optimum: its dual value there is the previous one
    assert grown.dual_objective(w0) == pytest.approx(first.dual_value, abs=1e-12)
    warm = grown.solve(method="auglag", warm_start=first, tol=1e-8)
    assert warm.optimal and close(warm.dual_value, grown.solve(method="clarabel").dual_value)
