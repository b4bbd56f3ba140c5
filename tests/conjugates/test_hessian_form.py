"""One Hessian form for every smooth conjugate (docs/architecture.md#the-solver-contract).

Every :class:`~dualboost.conjugates.traits.SmoothConjugate` declares ``hess f* = scale (diag(g) - V S^+ V^T)``
(``conjugate_hessian``); the closed forms' ``scale (diag s - s s^T / sum s)`` is its rank-one case.
The model's Hessian, its products and its blocks, now computed from that one form only, are
compared with the closed forms' factored Hessian ``-scale (U_S^T diag(s) U_S - a a^T / sum s)``,
computed here independently from ``conjugate_hessian_factors``.

Tolerance: both are sums of the same N products in float64; their rounding is of order
``N eps`` relative to the terms summed, ``scale (|U_S|^T s |U_S| + |a| |a|^T / sum s)``, not to H
itself (at large eta the two terms cancel). 1e-12 of that scale covers N <= 300 with a margin of 50.
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.conjugates import (
    CappedBinaryRelativeEntropy,
    CappedQuadratic,
    CappedRelativeEntropy,
    HalfSquaredNorm,
    RelativeEntropy,
)
from dualboost.conjugates.traits import LowRankHessian, SmoothConjugate
from dualboost.problems import BinaryERLPBoost, ERLPBoost, QRLPBoost, Relaxation

N, T = 300, 9
RNG = np.random.default_rng(31)
U = np.sign(RNG.normal(size=(N, T))) * RNG.uniform(0.1, 1.0, size=(N, T))
D0 = RNG.dirichlet(np.ones(N))


def closed_forms():
    """(id, model) for the capped softmax (ERLPBoost) at eta 1e-3..1e6 and nu = 1, 7, N; the binary
    entropy (Binary ERLPBoost) and the capped quadratic (QRLPBoost)."""
    for eta in (1e-3, 1.0, 1e2, 1e4, 1e6):
        for nu in (1.0, 7.0, float(N)):
            yield f"capped-softmax-eta{eta:g}-nu{nu:g}", ERLPBoost(U, nu=nu, eta=eta, d0=D0)
    for eta in (1e-3, 1.0, 1e3):
        yield f"binary-eta{eta:g}", BinaryERLPBoost(U, nu=7.0, eta=eta, d0=D0)
    yield "quadratic", QRLPBoost(U, nu=7.0, eta=10.0, d0=D0)


CASES = list(closed_forms())


def factored_hessian(reg, w: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """``-scale (U_R^T diag(s) U_C - a_R a_C^T / sum s)`` (the old form) and the scale of its terms."""
    d = reg.conjugate_grad(-(U @ w))
    s, scale = reg.conjugate_hessian_factors(None, d)
    total = float(s.sum())
    UR, UC = U[:, rows], U[:, columns]
    low = np.outer(UR.T @ s, UC.T @ s) / total if total > 0 else 0.0
    H = -scale * (UR.T @ (s[:, None] * UC) - low)
    terms = scale * (np.abs(UR).T @ (s[:, None] * np.abs(UC)) + np.abs(low))
    return H, terms


@pytest.mark.parametrize("model", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_model_hessian_in_the_one_form_equals_the_factored_form(model):
    w = RNG.dirichlet(np.ones(T))
    reg = model.regularizer
    assert isinstance(reg, (CappedRelativeEntropy, CappedBinaryRelativeEntropy, CappedQuadratic))
    every = np.arange(T)
    H_old, terms = factored_hessian(reg, w, every, every)
    tol = 1e-12 * terms.max()
    assert np.any(np.abs(H_old) > 1e3 * tol) or np.all(H_old == 0)  # (not a vacuous comparison)
    np.testing.assert_allclose(model.dual_hessian(w, every), H_old, rtol=0, atol=tol)
    S = np.array([1, 4, 8])
    product = model.dual_hessian_operator(w, S)
    v = RNG.normal(size=S.size)
    np.testing.assert_allclose(product(v), H_old[np.ix_(S, S)] @ v, rtol=0, atol=tol * np.abs(v).sum())
    rows, cols = np.array([0, 2, 5]), np.array([5, 7])
    np.testing.assert_allclose(model.dual_hessian_block(w, rows, cols), H_old[np.ix_(rows, cols)], atol=tol)


@pytest.mark.parametrize("model", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_rank_one_case_of_the_low_rank_form(model):
    """``conjugate_hessian`` of a closed form is ``LowRankHessian.rank_one`` of its factors: its
    products equal ``scale (s * v - s (s . v) / sum s)``."""
    reg = model.regularizer
    assert isinstance(reg, SmoothConjugate)
    theta = -(U @ RNG.dirichlet(np.ones(T)))
    H = reg.conjugate_hessian(theta)
    assert isinstance(H, LowRankHessian) and H.V.shape == (N, 1) and H.M.shape == (1, 1)
    s, scale = reg.conjugate_hessian_factors(theta)
    v = RNG.normal(size=N)
    total = s.sum()
    expected = scale * (s * v - (s * (s @ v) / total if total > 0 else 0.0))
    bound = 1e-12 * scale * (s * np.abs(v) + s * (s @ np.abs(v)) / max(total, 1e-300)).max()
    np.testing.assert_allclose(H.product(v), expected, rtol=0, atol=bound)


def test_exact_restriction_has_the_same_form():
    """The exact restriction (an entropy plus a squared norm on the simplex) declares the same form,
    with the traits that steer a dual solver: warm points, no step measure in log units."""
    f = RelativeEntropy(np.full(N, 1.0 / N)) + 0.5 * HalfSquaredNorm(2)
    model = Relaxation(U, f, form="simplex")
    reg = model.regularizer
    assert isinstance(reg, SmoothConjugate) and reg.warm_copy_certifies and model.warm_points
    assert not ERLPBoost(U, nu=2, eta=10).warm_points and not QRLPBoost(U, nu=2, eta=10).warm_points
    assert reg.step_spread(lambda: np.ones(N), np.full(N, 1.0 / N)) == 0.0


def test_rank_one_case_keeps_the_factored_forms_rounding():
    """Bit for bit the factored form's arithmetic (``-scale (gram - outer(a, a) / sum s)``, ``a`` and
    the products as before): the solver's iterates, hence its iteration counts, do not change with
    the one form (a boosting run's trajectory is sensitive to rounding: one ulp in H once changed a
    529-iteration run's count by 3)."""
    from dualboost.problems.kernels import ColumnProducts, gram_parts

    model = ERLPBoost(U, nu=7.0, eta=50.0, d0=D0)
    rng = np.random.default_rng(5)
    w = rng.dirichlet(np.ones(T))
    d = model.regularizer.conjugate_grad(-(U @ w))
    s, scale = model.regularizer.conjugate_hessian_factors(None, d)
    s = np.where(s > 1e-17 * s.max(), s, 0.0)  # the negligible weights set to 0, as always
    S = np.array([0, 2, 3, 7])
    gram, a, total = gram_parts(U[:, S], s)
    np.testing.assert_array_equal(model.dual_hessian(w, S, d), -scale * (gram - np.outer(a, a) / total))
    v = rng.normal(size=S.size)
    C = ColumnProducts(U, S, None, s)
    a = C.left(s)
    expected = C.gram(v)
    expected -= a * (float(a @ v) / total)
    np.testing.assert_array_equal(model.dual_hessian_operator(w, S, d)(v), -scale * expected)
