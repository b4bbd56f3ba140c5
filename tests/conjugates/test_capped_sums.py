"""The one-pass membership test and capped relative entropy value (``dualboost/conjugates/_capped_sums.pyx``)
against their numpy references (``_membership.on_capped_simplex``'s three reductions, and
``scipy.special.kl_div`` summed by numpy, as ``CappedRelativeEntropy.value`` computed it): the same
membership decisions, and the same value to an ulp of the sum (the same libm logarithm, the same
formula per term and numpy's pairwise order: bit for bit on the machine this was written on, where
1,800 random points gave no difference)."""

from __future__ import annotations

import numpy as np
import pytest
from dualboost.conjugates._capped_sums import capped_kl, on_capped_simplex
from scipy.special import kl_div

from dualboost.conjugates import CappedRelativeEntropy, _membership


def _member(x: np.ndarray, cap: float, tol: float) -> bool:
    """numpy's three reductions (the reference)."""
    return bool(x.min() >= -tol and x.max() <= cap + tol and abs(x.sum() - 1.0) <= tol * max(1, x.size))


def _points(rng, N: int, nu: float):
    """Points on, near and off the capped simplex: random, with zeros, with entries a rounding below 0,
    at and above the cap, with the sum off by a rounding and by 1e-8."""
    cap = 1.0 / nu
    x = (
        rng.dirichlet(np.full(N, 0.3))
        if nu == 1.0
        else np.clip(np.full(N, 1 / N) + rng.normal(size=N) * 0.1 / N, 0, cap)
    )
    x = x / x.sum()
    yield x
    z = x.copy()
    z[rng.integers(N)] = 0.0
    yield z / z.sum() if z.sum() > 0 else x
    yield x - 1e-12 * (np.arange(N) % 2)
    yield x + 1e-8 / N
    yield x * (1 + 1e-16)
    over = x.copy()
    over[0] = cap + 1e-6
    yield over


@pytest.mark.parametrize("N", [1, 2, 7, 8, 9, 127, 128, 129, 1000, 100_000])
@pytest.mark.parametrize("nu_of_N", [0.0, 0.1, 1.0])
def test_the_one_pass_sums_equal_numpys(N, nu_of_N):
    rng = np.random.default_rng(N)
    nu = max(1.0, nu_of_N * N)
    d0 = rng.dirichlet(np.ones(N))
    for x in _points(rng, N, nu):
        for tol in (0.0, 1e-9):
            inside = _member(x, 1.0 / nu, tol)
            assert _membership.on_capped_simplex(x, 1.0 / nu, tol) is inside  # (numpy's above EXACT_SUM_MAX)
            if N > _membership.EXACT_SUM_MAX:  # numpy may sum in chunks there: its order differs by version
                continue
            assert on_capped_simplex(x, 1.0 / nu, tol) is inside
            got_inside, total = capped_kl(x, d0, 1.0 / nu, tol)
            assert got_inside is inside
            if inside:
                reference = float(kl_div(np.clip(x, 0.0, None), d0).sum())
                assert total == pytest.approx(reference, rel=1e-15, abs=1e-300)
            else:
                assert np.isnan(total)


def test_a_prior_with_zeros_gives_inf_where_the_point_is_positive():
    x, d0 = np.array([0.5, 0.5, 0.0]), np.array([0.5, 0.0, 0.5])
    assert capped_kl(x, d0, 1.0, 1e-9) == (True, np.inf)
    assert capped_kl(np.array([0.5, 0.0, 0.5]), d0, 1.0, 1e-9) == (
        True,
        float(kl_div([0.5, 0, 0.5], d0).sum()),
    )


def test_non_finite_points_are_outside_and_bad_shapes_refused():
    for bad in (np.nan, np.inf, -np.inf):
        x = np.array([0.5, 0.5, bad])
        assert on_capped_simplex(x, 1.0, 1e-9) is False and _member(x, 1.0, 1e-9) is False
        assert capped_kl(x, np.full(3, 1 / 3), 1.0, 1e-9)[0] is False
    with pytest.raises(ValueError, match="non-empty"):
        on_capped_simplex(np.zeros(0), 1.0, 1e-9)
    with pytest.raises(ValueError, match="one length"):
        capped_kl(np.full(3, 1 / 3), np.full(2, 0.5), 1.0, 1e-9)


@pytest.mark.parametrize("eta", [1.0, 37.0, 1e6])
def test_the_regulariser_and_membership_use_it_and_keep_their_answers(eta, monkeypatch):
    """``CappedRelativeEntropy.value`` and ``on_capped_simplex`` through the compiled sums give what the
    numpy path gives (the module switched off: the reference), at the eta and nu extremes."""
    rng = np.random.default_rng(3)
    N = 500
    for nu in (1.0, 50.0, float(N)):
        reg = CappedRelativeEntropy(rng.dirichlet(np.ones(N)), nu=nu, eta=eta)
        points = list(_points(rng, N, nu))
        compiled = [(reg.value(x), reg.in_domain(x), reg.in_domain(x, tol=0.0)) for x in points]
        with monkeypatch.context() as m:
            m.setattr("dualboost.conjugates.entropy._capped_sums", None)
            m.setattr(_membership, "_capped_sums", None)
            python = [(reg.value(x), reg.in_domain(x), reg.in_domain(x, tol=0.0)) for x in points]
        for (value, inside, exact), (ref_value, ref_inside, ref_exact) in zip(compiled, python, strict=True):
            assert (inside, exact) == (ref_inside, ref_exact)
            assert value == pytest.approx(ref_value, rel=1e-15, abs=1e-300) or value == ref_value == np.inf
