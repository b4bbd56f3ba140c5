"""Projections onto the (capped) simplex: [SS] Sec 5.3 (Fig. 2, Lemmas 15-16).

Entropic projection ``argmin_{d in S, d <= 1/nu} KL(d || d0)``:
* equals the argmin computed independently by SLSQP (to 1e-7) and is at least as good as Clarabel's;
* sum 1, cap respected, positive, order preserved (Lemma 15), constant ratio d/d0 on the interior
  entries and capped entries with ratio >= that constant (Lemma 16 / KKT);
* the Bregman value formula of [SS] Sec 5.3 (docs/math.md#capped-softmax);
* invariant to the normalisation of d0 and to constant shifts of the log-weights;
* log-weights ``ln d0 - eta * margins`` with eta up to 1e6: no overflow, the KKT conditions hold in
  the log domain, and the result is the greedy (hard-capped) limit when margins are separated;
* nu = 1 is the softmax, nu = N the uniform distribution, real nu in between; N = 1e5 is fast.

Euclidean projection: the KKT form ``d = clip(x - tau, 0, 1/nu)`` with a single tau and sum 1,
against an independent bisection for tau and against Clarabel on small inputs.
"""

from __future__ import annotations

import time

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.optimize import minimize
from scipy.special import softmax

from dualboost.conjugates import (
    CappedSimplex,
    capped_simplex_support,
    entropic_project_capped_simplex,
    project_capped_simplex,
    project_simplex,
    solve_cvxpy,
)

Vec = np.ndarray

PROFILE = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
SOLVES = settings(PROFILE, max_examples=40)

# Closed-form outputs: sums of N <= 10 terms of relative rounding 1e-16, so 1e-12 is generous.
EXACT = 1e-12


@st.composite
def priors(draw: st.DrawFn, max_n: int = 10, integer: bool | None = None) -> tuple[Vec, float]:
    """A normalised prior d0 spanning ~4 orders of magnitude, and nu in [1, N] (integer or real)."""
    n = draw(st.integers(1, max_n))
    log_w = draw(hnp.arrays(np.float64, n, elements=st.floats(-8.0, 2.0, allow_nan=False, width=64)))
    if integer is None:
        integer = draw(st.booleans())
    nu = float(draw(st.integers(1, n))) if integer else draw(st.floats(1.0, float(n)))
    return softmax(log_w), nu


def kl(d: Vec, d0: Vec) -> float:
    pos = d > 0
    return float(np.sum(d[pos] * np.log(d[pos] / d0[pos])))


def slsqp_projection(d0: Vec, nu: float) -> Vec:
    """argmin KL(d || d0) on the capped simplex by SLSQP with the exact gradient, from uniform."""
    n = d0.size
    result = minimize(
        lambda v: float(np.sum(v * np.log(v / d0))),
        np.full(n, 1.0 / n),
        jac=lambda v: np.log(v / d0) + 1.0,
        method="SLSQP",
        bounds=[(1e-300, 1.0 / nu)] * n,
        constraints=[{"type": "eq", "fun": lambda v: v.sum() - 1.0, "jac": lambda v: np.ones(n)}],
        options={"ftol": 1e-16, "maxiter": 2000},
    )
    return result.x


def check_lemma16(d: Vec, weights_log: Vec, nu: float) -> float:
    """The KKT structure of the entropic projection (Lemma 16); returns log xi.

    Interior entries (below the cap) have the same log-ratio log d - log w = log xi; capped
    entries have log w + log xi >= log cap (they would exceed it if uncapped).
    """
    cap = 1.0 / nu
    interior = d < cap * (1.0 - 1e-12)
    capped = ~interior
    if not interior.any():
        return np.nan
    log_ratio = np.log(d[interior]) - weights_log[interior]
    log_xi = float(np.median(log_ratio))
    scale = max(1.0, float(np.abs(weights_log).max()))
    assert np.all(np.abs(log_ratio - log_xi) <= 1e-12 * scale)
    assert np.all(weights_log[capped] + log_xi >= np.log(cap) - 1e-12 * scale)
    return log_xi


@PROFILE
@given(priors())
def test_entropic_projection_structure(instance: tuple[Vec, float]) -> None:
    """Sum 1, cap, positivity, order (Lemma 15), ratio (Lemma 16) and the [SS] Sec 5.3 value formula."""
    d0, nu = instance
    cap = 1.0 / nu
    d = entropic_project_capped_simplex(np.log(d0), nu)
    assert abs(d.sum() - 1.0) <= EXACT
    assert d.max() <= cap * (1.0 + 1e-15)
    assert d.min() > 0.0
    # Lemma 15: d0_i > d0_j implies d_i >= d_j
    order = np.argsort(-d0, kind="stable")
    assert np.all(np.diff(d[order]) <= 1e-15)
    log_xi = check_lemma16(d, np.log(d0), nu)
    # [SS] Sec 5.3: B_h(d || d0) = sum_{capped} cap ln(cap / d0_r) + (1 - cap * #capped) ln xi
    capped = d >= cap * (1.0 - 1e-12)
    formula = float(np.sum(cap * np.log(cap / d0[capped])))
    if not np.isnan(log_xi):
        formula += (1.0 - cap * capped.sum()) * log_xi
    assert abs(kl(d, d0) - formula) <= EXACT * (1.0 + abs(formula))


@SOLVES
@given(priors(max_n=8))
def test_entropic_projection_is_the_kl_argmin(instance: tuple[Vec, float]) -> None:
    """Independent argmin: SLSQP (agrees to ~5e-9 in trials; 1e-7 asked) and Clarabel (its
    minimiser is accurate only to ~1e-6, but its optimal value must not beat ours)."""
    d0, nu = instance
    d = entropic_project_capped_simplex(np.log(d0), nu)
    assert np.abs(d - slsqp_projection(d0, nu)).max() <= 1e-7
    x = cp.Variable(d0.size)
    problem = cp.Problem(cp.Minimize(cp.sum(cp.rel_entr(x, d0))), [cp.sum(x) == 1, x <= 1.0 / nu])
    assert solve_cvxpy(problem, ("CLARABEL",)) == cp.OPTIMAL
    assert kl(d, d0) <= problem.value + 1e-9
    assert np.abs(d - x.value).max() <= 1e-5


@PROFILE
@given(priors(), st.floats(-300.0, 300.0), st.floats(-12.0, 12.0))
def test_entropic_projection_ignores_normalisation(
    instance: tuple[Vec, float], shift: float, log10_mass: float
) -> None:
    """Only ratios matter (docs/math.md#capped-softmax): unnormalised d0, or any constant added to the
    log-weights."""
    d0, nu = instance
    d = entropic_project_capped_simplex(np.log(d0), nu)
    unnormalised = d0 * 10.0**log10_mass
    assert np.allclose(entropic_project_capped_simplex(np.log(unnormalised), nu), d, rtol=1e-10, atol=1e-15)
    assert np.allclose(entropic_project_capped_simplex(np.log(d0) + shift, nu), d, rtol=1e-10, atol=1e-15)


@PROFILE
@given(priors(max_n=12), st.sampled_from([1.0, 1e2, 1e4, 1e6]), st.data())
def test_entropic_projection_with_large_eta(
    instance: tuple[Vec, float], eta: float, data: st.DataObject
) -> None:
    """Log-weights ln d0 - eta * m with m in [-1, 1] and eta up to 1e6 (the thesis's range): finite
    output on the capped simplex, and the KKT conditions hold in the log domain.

    The log-weights themselves carry an absolute rounding error of eps * |ln w| (~1e-10 at
    eta = 1e6), which is a relative error of the same size in the weights: tolerances scale with it.
    """
    d0, nu = instance
    margins = data.draw(hnp.arrays(np.float64, d0.size, elements=st.floats(-1.0, 1.0, width=64)))
    log_w = np.log(d0) - eta * margins
    input_precision = 16 * np.finfo(float).eps * max(1.0, float(np.abs(log_w).max()))
    with np.errstate(over="raise", invalid="raise"):  # underflow of negligible weights is expected
        d = entropic_project_capped_simplex(log_w, nu)
    assert np.all(np.isfinite(d))
    assert abs(d.sum() - 1.0) <= max(EXACT, input_precision)
    assert d.max() <= (1.0 / nu) * (1.0 + 1e-15) and d.min() >= 0.0
    # Lemma 16 on the entries that did not underflow; underflowed ones must be negligible.
    positive = d > 1e-300
    log_xi = check_lemma16(d[positive], log_w[positive], nu)
    if not np.isnan(log_xi):
        assert np.all(log_w[~positive] + log_xi <= np.log(1e-290))


@pytest.mark.parametrize("nu", [1.0, 2.0, 2.5, 3.7, 6.0])
def test_entropic_projection_hard_cap_limit(nu: float) -> None:
    """eta = 1e6 with margins 1e-3 apart: e^{-1000} is 0 in float64, so the projection of
    d0 e^{-eta m} is the greedy maximiser of <d, -m> on the capped simplex
    (docs/math.md#capped-simplex-support)."""
    rng = np.random.default_rng(3)
    margins = rng.permutation(np.arange(8)) * 1e-3
    d0 = softmax(rng.normal(size=8))
    log_w = np.log(d0) - 1e6 * margins
    d = entropic_project_capped_simplex(log_w, nu)
    input_precision = 16 * np.finfo(float).eps * float(np.abs(log_w).max())  # see the test above
    assert np.allclose(d, CappedSimplex(nu).conjugate_grad(-margins), rtol=0.0, atol=input_precision)


@PROFILE
@given(hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(-30.0, 30.0, width=64)))
def test_entropic_projection_extreme_nu(log_w: Vec) -> None:
    """nu = 1 is the softmax (no cap is active); nu = N forces the uniform distribution."""
    n = log_w.size
    assert np.allclose(entropic_project_capped_simplex(log_w, 1.0), softmax(log_w), rtol=1e-12, atol=1e-300)
    assert np.allclose(entropic_project_capped_simplex(log_w, float(n)), np.full(n, 1.0 / n), rtol=1e-12)


def test_entropic_projection_large_n_is_fast() -> None:
    """N = 1e5 in O(N log N): well under a second, with the structure intact."""
    rng = np.random.default_rng(0)
    n, nu = 100_000, 2_500.5
    log_w = -200.0 * rng.random(n)  # weights e^{-200 m}: a few hundred entries dominate
    start = time.perf_counter()
    d = entropic_project_capped_simplex(log_w, nu)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0
    assert abs(d.sum() - 1.0) <= 1e-10 and d.max() <= (1.0 / nu) * (1.0 + 1e-15)
    assert np.count_nonzero(d >= (1.0 / nu) * (1.0 - 1e-12)) >= 1
    check_lemma16(d[d > 1e-300], log_w[d > 1e-300], nu)


def test_entropic_projection_with_zero_weights() -> None:
    """-inf log-weights are zero weights; at least ceil(nu) positive weights are required."""
    d = entropic_project_capped_simplex(np.array([0.0, -np.inf, 0.0, -1.0]), 2.5)
    assert d[1] == 0.0 and d.sum() == pytest.approx(1.0, abs=EXACT) and d.max() <= 0.4 + 1e-15
    with pytest.raises(ValueError, match="nu"):
        entropic_project_capped_simplex(np.array([0.0, -np.inf, -np.inf]), 1.5)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((np.array([0.0, np.nan]), 1.0), "log_weights"),
        ((np.array([0.0, np.inf]), 1.0), "log_weights"),
        ((np.zeros((2, 2)), 1.0), "log_weights"),
        ((np.zeros(3), 3.5), "nu"),
        ((np.zeros(3), 0.5), "nu"),
        ((np.zeros(3), np.nan), "nu"),
    ],
)
def test_entropic_projection_bad_input(args: tuple, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        entropic_project_capped_simplex(*args)


# -- Euclidean projection ------------------------------------------------------------------------


@st.composite
def points(draw: st.DrawFn, max_n: int = 12) -> tuple[Vec, float]:
    n = draw(st.integers(1, max_n))
    x = draw(hnp.arrays(np.float64, n, elements=st.floats(-5.0, 5.0, allow_nan=False, width=64)))
    nu = float(draw(st.integers(1, n))) if draw(st.booleans()) else draw(st.floats(1.0, float(n)))
    return x, nu


def bisection_projection(x: Vec, nu: float) -> Vec:
    """clip(x - tau, 0, cap) with tau from bisection on the non-increasing mass(tau) = 1."""
    cap = 1.0 / nu
    lo, hi = x.min() - cap - 1.0, x.max() + 1.0  # mass(lo) = N cap >= 1, mass(hi) = 0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.clip(x - mid, 0.0, cap).sum() >= 1.0:
            lo = mid
        else:
            hi = mid
    return np.clip(x - 0.5 * (lo + hi), 0.0, cap)


@PROFILE
@given(points())
def test_euclidean_projection_kkt(instance: tuple[Vec, float]) -> None:
    """d = clip(x - tau, 0, 1/nu) for a single tau, sum d = 1 (the KKT conditions characterise the
    projection); compared with an independent bisection for tau."""
    x, nu = instance
    cap = 1.0 / nu
    d = project_capped_simplex(x, nu)
    assert abs(d.sum() - 1.0) <= EXACT
    assert d.min() >= 0.0 and d.max() <= cap * (1.0 + 1e-15)
    free = (d > 1e-12) & (d < cap - 1e-12)
    if free.any():
        taus = x[free] - d[free]
        tau = float(np.mean(taus))
        assert np.all(np.abs(taus - tau) <= 1e-9)
    else:  # every entry is 0 or capped: any tau in [max of the zeroed x, min of the capped x - cap]
        zero, full = d <= 1e-12, d >= cap - 1e-12
        tau = float((x[full] - cap).min())
        assert not zero.any() or x[zero].max() <= tau + 1e-9
    assert np.allclose(d, np.clip(x - tau, 0.0, cap), atol=1e-9)
    assert np.allclose(d, bisection_projection(x, nu), atol=1e-9)


@SOLVES
@given(points(max_n=8))
def test_euclidean_projection_against_clarabel(instance: tuple[Vec, float]) -> None:
    """The interior-point minimiser is accurate to ~sqrt(1e-10) at degenerate (vertex) solutions, so
    the points agree to 1e-5 and our objective may not exceed Clarabel's."""
    x, nu = instance
    v = cp.Variable(x.size)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(v - x)), [cp.sum(v) == 1, v >= 0, v <= 1.0 / nu])
    assert solve_cvxpy(problem, ("CLARABEL",)) == cp.OPTIMAL
    d = project_capped_simplex(x, nu)
    assert np.abs(d - v.value).max() <= 1e-5
    assert float(np.sum((d - x) ** 2)) <= problem.value + 1e-9


@PROFILE
@given(points())
def test_euclidean_projection_is_idempotent_and_simplex_is_nu_1(instance: tuple[Vec, float]) -> None:
    x, nu = instance
    d = project_capped_simplex(x, nu)
    assert np.allclose(project_capped_simplex(d, nu), d, atol=1e-12)
    assert np.array_equal(project_simplex(x), project_capped_simplex(x, 1.0))


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((np.array([0.0, np.nan]), 1.0), "x"),
        ((np.array([[0.0]]), 1.0), "x"),
        ((np.zeros(3), 4.0), "nu"),
        ((np.zeros(3), 0.0), "nu"),
    ],
)
def test_euclidean_projection_bad_input(args: tuple, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        project_capped_simplex(*args)


@PROFILE
@given(points())
def test_support_function_is_attained_by_the_projection_limit(instance: tuple[Vec, float]) -> None:
    """The support function of the capped simplex ([SS] Sec 4.1) is attained at the greedy point and
    bounds <d, theta> for every projected d; it is also lim (1/eta) ln of the capped log-sum-exp."""
    theta, nu = instance
    support = capped_simplex_support(theta, nu)
    greedy = CappedSimplex(nu).conjugate_grad(theta)
    assert abs(float(greedy @ theta) - support) <= EXACT * (1.0 + abs(support))
    assert float(project_capped_simplex(theta, nu) @ theta) <= support + EXACT * (1.0 + abs(support))
    eta = 1e3
    d = entropic_project_capped_simplex(eta * theta, nu)
    assert float(d @ theta) <= support + 1e-11 * (1.0 + abs(support))
    # entropy gap of the soft maximiser is at most ln(N/nu)/eta (docs/math.md#smoothing-sandwich)
    assert float(d @ theta) >= support - np.log(theta.size / nu) / eta - 1e-11


@pytest.mark.parametrize("eta", [1386.0, 13816.0])
@pytest.mark.parametrize("nu_fraction", [None, 0.01, 0.5])
@pytest.mark.parametrize("stumps", [False, True])
def test_entropic_projection_at_large_eta_against_a_root_in_the_log_domain(
    eta: float, nu_fraction: float | None, stumps: bool
) -> None:
    """N = 1000 log-weights ``-eta m`` at the eta of cold ERLPBoost solves (most weights below
    exp(-708) of the largest, where the linear branch zeroes them, and the log-domain branch), with
    margins in [-1, 1] or a stump's few distinct margins (ties): d against ``min(cap, exp(lw + c))``
    with c the root of ``logsumexp(min(lw + c, ln cap)) = 0`` (scipy's logsumexp, Brent), computed
    independently of the sorting and of Lemma 16. Tolerances: the log-weights' own rounding,
    ``eps |lw|``, is a relative error of the weights (rtol 16 eps max|lw|, as above); an entry
    zeroed below exp(-708) of the largest weight has d <= 3.3e-308 xi with xi <= 1e280 (the linear
    branch's sums stay above 1e-280), hence atol 1e-27. (Not at eta = 1e5: with an integer nu the
    nu largest weights take all the mass and the root resolves the rest's only to the sum's rounding,
    1e-16; old and new code alike differ from it there by up to 5e-13.)"""
    from scipy.optimize import brentq
    from scipy.special import logsumexp

    rng = np.random.default_rng(int(eta) + (0 if nu_fraction is None else int(1000 * nu_fraction)))
    n = 1000
    nu = 1.0 if nu_fraction is None else nu_fraction * n
    margins = rng.choice([-1.0, -0.5, 0.25, 1.0], size=n) if stumps else rng.uniform(-1.0, 1.0, n)
    log_w = -eta * margins
    d = entropic_project_capped_simplex(log_w, nu)
    log_cap = -np.log(nu)

    def excess(c: float) -> float:
        return float(logsumexp(np.minimum(log_w + c, log_cap)))

    c = brentq(excess, -log_w.max() - 50.0, log_cap - log_w.min() + 1.0, xtol=1e-15, rtol=1e-15)
    reference = np.exp(np.minimum(log_w + c, log_cap))
    input_precision = 16 * np.finfo(float).eps * float(np.abs(log_w).max())
    assert np.allclose(d, reference, rtol=input_precision, atol=1e-27)
    assert abs(d.sum() - 1.0) <= max(EXACT, input_precision) and d.max() <= (1.0 + 1e-15) / nu
