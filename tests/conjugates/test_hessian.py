"""The entropic conjugates as the dual solvers use them: conjugate_and_grad, the factored Hessian
and the warm-started binary normaliser (docs/math.md#conjugate-table; [KG] Sec 3.3;
docs/math.md#erratum-kg-14).

Independent references: the regulariser f written out here from the thesis (Delta and
Delta_{2,nu} with uniform d0), so that Fenchel-Young ``f*(theta) = <d, theta> - f(d)`` checks the
value; central finite differences of ``conjugate`` and ``conjugate_grad``; the normaliser's root
by scipy's brentq on ``s(b) = (1/nu) sum expit(logit(nu d0) + eta theta - b) = 1`` written out here.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import expit, rel_entr

from dualboost.conjugates import CappedBinaryRelativeEntropy, CappedRelativeEntropy

EPS = np.finfo(float).eps

# (class, N, nu, eta): no caps, caps active, large eta, binary near nu = N
REGULARISERS = [
    (CappedRelativeEntropy, 40, 1.0, 5.0),
    (CappedRelativeEntropy, 40, 4.5, 20.0),
    (CappedRelativeEntropy, 300, 30.5, 1e4),
    (CappedBinaryRelativeEntropy, 40, 1.0, 5.0),
    (CappedBinaryRelativeEntropy, 40, 4.5, 20.0),
    (CappedBinaryRelativeEntropy, 40, 39.5, 5.0),
    (CappedBinaryRelativeEntropy, 300, 30.5, 1e4),
]
IDS = [f"{c.__name__[6:12]}-N{n}-nu{nu:g}-eta{eta:g}" for c, n, nu, eta in REGULARISERS]


def f_value(cls, d, n, nu, eta):
    """(1/eta) Delta(d, d0) (+ the binary term), uniform d0, written out from [KG] Eq. 3.6 / Sec 3.3."""
    value = rel_entr(np.clip(d, 0.0, None), 1.0 / n).sum()
    if cls is CappedBinaryRelativeEntropy:
        c = 1.0 / nu
        value += rel_entr(np.clip(c - d, 0.0, None), c - 1.0 / n).sum()
    return float(value / eta)


def thetas(n, eta, rng, count=4):
    """Random theta on the scale where eta * theta spreads over ~[-4, 4] (away from saturation)."""
    return [rng.uniform(-1.0, 1.0, n) * 4.0 / np.sqrt(eta) for _ in range(count)]


@pytest.mark.parametrize("cls, n, nu, eta", REGULARISERS, ids=IDS)
def test_conjugate_and_grad_is_conjugate_and_conjugate_grad(cls, n, nu, eta):
    """Bit-for-bit equal to the separate calls (the dual solvers use the fused one, certificates
    the separate ones); Fenchel-Young equality with f written out here to 1e-12 (the value is
    computed in the log domain, |f*| = O(1)); d in the capped simplex."""
    reg = cls(np.full(n, 1.0 / n), nu, eta)
    rng = np.random.default_rng(0)
    for theta in thetas(n, eta, rng):
        value, d = reg.conjugate_and_grad(theta)
        assert value == reg.conjugate(theta)
        np.testing.assert_array_equal(d, reg.conjugate_grad(theta))
        assert value == pytest.approx(d @ theta - f_value(cls, d, n, nu, eta), abs=1e-12)
        assert d.sum() == pytest.approx(1.0, abs=1e-12)
        assert d.min() >= 0.0 and d.max() <= 1.0 / nu * (1 + 1e-12)


def _same_piece(reg, theta, points, nu):
    """Whether the capped set of the capped softmax is the same at every point (no kink between)."""
    if isinstance(reg, CappedBinaryRelativeEntropy) or nu == 1.0:
        return True
    capped = reg.conjugate_grad(theta) >= (1 - 1e-12) / nu
    return all(np.array_equal(reg.conjugate_grad(p) >= (1 - 1e-12) / nu, capped) for p in points)


@pytest.mark.parametrize("cls, n, nu, eta", REGULARISERS[:2] + REGULARISERS[3:6], ids=IDS[:2] + IDS[3:6])
def test_gradient_and_factored_hessian_match_finite_differences(cls, n, nu, eta):
    """grad f* = conjugate_grad (central differences of conjugate, h = 1e-6: truncation
    ~h^2 eta^2 ~ 4e-10, rounding ~1e-16/h; tolerance 1e-7), and
    hess f* = eta (diag(s) - s s^T / sum s) from conjugate_hessian_factors (central differences of
    conjugate_grad, h = 1e-7: truncation ~h^2 eta^3 ~ 1e-10, rounding ~1e-16/h = 1e-9; tolerance
    1e-6 relative to the largest entry). Points where the capped set changes within the steps
    are skipped (f* is only C^1 there)."""
    reg = cls(np.full(n, 1.0 / n), nu, eta)
    rng = np.random.default_rng(1)
    checked = 0
    for theta in thetas(n, eta, rng, count=6):
        basis = np.eye(n)
        if not _same_piece(reg, theta, [theta + s * 1e-6 * e for e in basis for s in (-1, 1)], nu):
            continue
        checked += 1
        h = 1e-6
        fd = np.array(
            [(reg.conjugate(theta + h * e) - reg.conjugate(theta - h * e)) / (2 * h) for e in basis]
        )
        np.testing.assert_allclose(fd, reg.conjugate_grad(theta), rtol=0, atol=1e-7)
        s, scale = reg.conjugate_hessian_factors(theta)
        H = scale * (np.diag(s) - np.outer(s, s) / s.sum())
        h = 1e-7
        jac = np.column_stack(
            [(reg.conjugate_grad(theta + h * e) - reg.conjugate_grad(theta - h * e)) / (2 * h) for e in basis]
        )
        np.testing.assert_allclose(jac, H, rtol=0, atol=1e-6 * np.abs(H).max())
    assert checked >= 3


def _root_tolerance(reg, theta, b):
    """|b - b*| from rounding: s(b) is a sum of N terms (error ~N eps), divided by |s'(b)|, plus a
    few ulps of b (the Newton iteration stops at 4 eps |b|). On well-conditioned roots this is
    ~1e-14 relative; where s'(b) is tiny (large eta, few terms near the root) the root itself is
    ill-determined and only this bound is meaningful."""
    z = reg._logit + reg.eta * theta
    p = expit(z - b)
    slope = (p * (1.0 - p)).sum() / reg.nu
    return reg.n * EPS / slope + 4 * EPS * max(1.0, abs(b))


@pytest.mark.parametrize(
    "n, nu, eta",
    [(50, 4.5, 5.0), (200, 20.0, 1e3), (100, 99.0, 30.0), (1000, 100.5, 1e4), (200, 1.0, 1e3)],
)
def test_warm_started_normaliser_finds_the_cold_root(n, nu, eta):
    """with_warm_starts(): the copy starts Newton from the previous root. Over a sequence of
    slowly changing theta (as in a line search) it must return the cold root (to the rounding
    bound of _root_tolerance, observed <= 0.5 of it and <= 1.2e-14 relative), which is the root
    of s(b) = 1 found here by brentq; the cold object keeps no state."""
    d0 = np.full(n, 1.0 / n)
    reg = CappedBinaryRelativeEntropy(d0, nu, eta)
    warm = reg.with_warm_starts()
    assert warm is not reg
    rng = np.random.default_rng(0)
    theta0, direction = rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n)
    logit = np.log(nu / n) - np.log1p(-nu / n)
    first_cold = reg.normalizer(theta0)
    for k in range(40):
        theta = theta0 + 1e-3 * k * direction / eta
        b_warm, b_cold = warm.normalizer(theta), reg.normalizer(theta)
        tol = _root_tolerance(reg, theta, b_cold)
        assert abs(b_warm - b_cold) <= tol

        def excess(b, theta=theta):
            return expit(logit + eta * theta - b).sum() / nu - 1.0

        b_ref = brentq(excess, b_cold - 1.0, b_cold + 1.0, xtol=1e-300, rtol=4 * EPS, maxiter=500)
        assert abs(b_cold - b_ref) <= tol
        value_w, d_w = warm.conjugate_and_grad(theta)
        value_c, d_c = reg.conjugate_and_grad(theta)
        assert value_w == pytest.approx(value_c, rel=1e-13, abs=1e-13)
        np.testing.assert_allclose(d_w, d_c, rtol=1e-10, atol=1e-15)
    assert reg.normalizer(theta0) == first_cold  # history-independent, bit for bit


def test_warm_normaliser_on_a_numerically_flat_root_gives_the_same_conjugate():
    """nu = 1, eta = 1e6: one term of s(b) saturates and s(b) == 1 in floating point on an interval
    of width ~1e3 in b, so warm and cold 'roots' may differ (observed: by 3.4, relative 3.5e-6)
    while the conjugate and its gradient, which do not depend on where in that interval b lies,
    must agree (value to 1e-12 relative, d to 1e-12)."""
    n, nu, eta = 200, 1.0, 1e6
    reg = CappedBinaryRelativeEntropy(np.full(n, 1.0 / n), nu, eta)
    warm = reg.with_warm_starts()
    rng = np.random.default_rng(0)
    theta0, direction = rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n)
    for k in range(20):
        theta = theta0 + 1e-3 * k * direction / 1e4
        value_w, d_w = warm.conjugate_and_grad(theta)
        value_c, d_c = reg.conjugate_and_grad(theta)
        assert value_w == pytest.approx(value_c, rel=1e-12, abs=1e-12)
        # the sandwich of docs/math.md#smoothing-sandwich, 0 <= Delta_{2,nu} <= ln(N/nu) + 1 ([KG] Sec 3.3)
        assert theta.max() - (np.log(n / nu) + 1.0) / eta - 1e-12 <= value_c <= theta.max() + 1e-12
        np.testing.assert_allclose(d_w, d_c, rtol=0, atol=1e-12)
        assert d_c.sum() == pytest.approx(1.0, abs=1e-12)
