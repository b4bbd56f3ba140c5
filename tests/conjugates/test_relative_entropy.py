"""RelativeEntropy() without d0 is the relative entropy to the uniform prior of each argument's
length ([SS] h(d)), and a prototyping snippet works as written."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from dualboost import conjugates as cj
from dualboost import problems
from dualboost.instances import random_edge_matrix


@pytest.mark.parametrize("cls", [cj.RelativeEntropy, cj.UnnormalisedRelativeEntropy])
@pytest.mark.parametrize("n", [1, 7, 40])
def test_no_prior_equals_the_explicit_uniform_prior(cls, n):
    rng = np.random.default_rng(n)
    lazy, explicit = cls(), cls(np.full(n, 1.0 / n))
    x, theta = rng.dirichlet(np.ones(n)), rng.normal(size=n)
    assert lazy.value(x) == explicit.value(x)
    assert lazy.conjugate(theta) == explicit.conjugate(theta)
    assert np.array_equal(lazy.conjugate_grad(theta), explicit.conjugate_grad(theta))
    # the cvxpy form evaluates to the same number (an independent evaluation through cvxpy's atoms)
    expr, _ = lazy.cvxpy_value(cp.Constant(x))
    assert expr.value == pytest.approx(explicit.value(x), rel=1e-12, abs=1e-15)


def test_two_uniform_entropies_merge_into_one():
    merged = 2.0 * cj.RelativeEntropy() + 3.0 * cj.RelativeEntropy()
    x = np.random.default_rng(0).dirichlet(np.ones(6))
    assert merged.value(x) == pytest.approx(5.0 * cj.RelativeEntropy(np.full(6, 1 / 6)).value(x), rel=1e-12)


def test_the_prototyping_snippet_verifies():
    A = random_edge_matrix(30, 8, seed=1)
    f = cj.NormBall(p=2, radius=0.3) + (1 / 20) * cj.RelativeEntropy()
    rel = problems.Relaxation(A, f)
    assert rel.dual_problem() is not None
    report = rel.verify(methods=("clarabel",))
    assert report.passed
