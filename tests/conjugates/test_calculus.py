"""Conjugate calculus and the closed forms of docs/math.md#conjugate-table.

* The top-k average (integer and real nu) against ``scipy.optimize.linprog``; the variational
  form ``min_gamma gamma + (1/nu) sum [theta - gamma]_+``; ``AvgMin_k(theta) = max_gamma gamma -
  (1/k) sum [gamma - theta_i]_+``; the Lemma 8 identity for ``f = I{||d||_inf <= 1/k}``.
* [SS] Appendix B pairs and rules on random inputs (scaling, shift, tilt, dilation; the
  log-sum-exp of the entropy on the simplex, [SS] Sec 5; the smoothing sandwich of [SS]
  Lemma 19).
* ``f + g``: the closed-form dispatch to :class:`CappedRelativeEntropy` and the numerical
  infimal convolution of :class:`Sum` against closed forms.
* Operators and bad input (ValueError naming the argument).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.optimize import linprog
from scipy.special import logsumexp, softmax

from dualboost.conjugates import (
    CappedRelativeEntropy,
    CappedSimplex,
    ConvexFunction,
    Dilated,
    HalfSquaredNorm,
    HingeLoss,
    LogisticLoss,
    Norm,
    NormBall,
    RelativeEntropy,
    Scaled,
    SeparableSum,
    Shifted,
    SimplexRestriction,
    Sum,
    Tilted,
    UnnormalisedRelativeEntropy,
    capped_simplex_support,
    numerical_biconjugate,
    numerical_conjugate,
)

Vec = np.ndarray
CLOSED = 1e-9  # closed forms: rounding of O(10) float64 terms, see test_conjugates.py
LP = 1e-8  # HiGHS reports LP optima to ~1e-9 at the tolerances below
# HiGHS's default feasibility tolerances (1e-7) accept a vertex 1e-7 from the optimum when the
# costs differ by 1e-7 (e.g. theta = [0, 1e-7, 0]); tighten them for a reference value.
HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
NUMERIC = 1e-6  # numerical infimal convolution (L-BFGS-B / Clarabel)

PROFILE = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)
SLOW = settings(PROFILE, max_examples=25)


def vectors(min_n: int = 1, max_n: int = 12, scale: float = 3.0) -> st.SearchStrategy[Vec]:
    return st.integers(min_n, max_n).flatmap(
        lambda n: hnp.arrays(np.float64, n, elements=st.floats(-scale, scale, allow_nan=False, width=64))
    )


@st.composite
def theta_and_nu(draw: st.DrawFn, integer: bool | None = None) -> tuple[Vec, float]:
    theta = draw(vectors())
    n = theta.size
    if integer is None:
        integer = draw(st.booleans())
    nu = float(draw(st.integers(1, n))) if integer else draw(st.floats(1.0, float(n)))
    return theta, nu


def _close(a: float, b: float, rtol: float) -> bool:
    return bool(abs(a - b) <= rtol * (1.0 + abs(a) + abs(b)))


def top_k_average(theta: Vec, nu: float) -> float:
    """docs/math.md#capped-simplex-support [DERIVED]: (1/nu) sum_{j <= K} s_j + (1 - K/nu) s_{K+1},
    K = floor(nu), by a full sort."""
    s = np.sort(theta)[::-1]
    k = int(np.floor(nu))
    return float(s[:k].sum() / nu + ((1.0 - k / nu) * s[k] if k < s.size else 0.0))


def lp_support(theta: Vec, nu: float) -> float:
    """max <d, theta> s.t. sum d = 1, 0 <= d <= 1/nu, by linprog (HiGHS)."""
    n = theta.size
    res = linprog(
        -theta, A_eq=np.ones((1, n)), b_eq=[1.0], bounds=[(0.0, 1.0 / nu)] * n, method="highs", options=HIGHS
    )
    assert res.status == 0
    return float(-res.fun)


def lp_variational(theta: Vec, nu: float) -> float:
    """min_gamma gamma + (1/nu) sum [theta - gamma]_+ as an LP in (gamma, s): s >= theta - gamma, s >= 0."""
    n = theta.size
    c = np.concatenate(([1.0], np.full(n, 1.0 / nu)))
    a_ub = np.hstack((-np.ones((n, 1)), -np.eye(n)))  # theta_i - gamma - s_i <= 0
    res = linprog(
        c, A_ub=a_ub, b_ub=-theta, bounds=[(None, None)] + [(0.0, None)] * n, method="highs", options=HIGHS
    )
    assert res.status == 0
    return float(res.fun)


def lp_avg_min(theta: Vec, k: float) -> float:
    """max_gamma gamma - (1/k) sum [gamma - theta_i]_+ as an LP."""
    n = theta.size
    c = -np.concatenate(([1.0], np.full(n, -1.0 / k)))
    a_ub = np.hstack((np.ones((n, 1)), -np.eye(n)))  # gamma - theta_i - s_i <= 0
    res = linprog(
        c, A_ub=a_ub, b_ub=theta, bounds=[(None, None)] + [(0.0, None)] * n, method="highs", options=HIGHS
    )
    assert res.status == 0
    return float(-res.fun)


# -- top-k average --------------------------------------------------------------------------------


@PROFILE
@given(theta_and_nu())
@example(instance=(np.array([0.0, 1e-7, 0.0]), 1.0))  # HiGHS at default tolerances returns 0 here
def test_e3_top_k_average_equals_linprog(instance: tuple[Vec, float]) -> None:
    """[SS] Sec 4.1 (docs/math.md#capped-simplex-support) for integer and real nu: sort formula == LP
    == variational LP."""
    theta, nu = instance
    closed = top_k_average(theta, nu)
    assert _close(capped_simplex_support(theta, nu), closed, CLOSED)
    assert _close(CappedSimplex(nu).conjugate(theta), closed, CLOSED)
    assert _close(lp_support(theta, nu), closed, LP)
    assert _close(lp_variational(theta, nu), closed, LP)


@PROFILE
@given(theta_and_nu(integer=True))
def test_e3_integer_k_is_the_mean_of_the_k_largest(instance: tuple[Vec, float]) -> None:
    theta, k = instance
    assert _close(CappedSimplex(k).conjugate(theta), float(np.sort(theta)[-int(k) :].mean()), CLOSED)


@PROFILE
@given(theta_and_nu())
def test_e3_avg_min_is_the_soft_margin(instance: tuple[Vec, float]) -> None:
    """[SS] Example 1 + Cor 5: AvgMin_k(theta) = max_gamma gamma - (1/k) sum [gamma - theta_i]_+.

    Three ways: the sorted k smallest (real k: the top-k average of -theta, negated), an LP, and
    minus the Lemma 8 conjugate of I{||d||_inf <= 1/k} at -theta.
    """
    theta, k = instance
    avg_min = -top_k_average(-theta, k)
    assert _close(lp_avg_min(theta, k), avg_min, LP)
    restricted = SimplexRestriction(NormBall(np.inf, 1.0 / k))
    assert _close(-restricted.conjugate(-theta), avg_min, CLOSED)


@PROFILE
@given(theta_and_nu())
def test_e3_lemma8_for_the_box_indicator(instance: tuple[Vec, float]) -> None:
    """[SS] Lemma 8 with f = I{||d||_inf <= 1/k}, f* = (1/k)||.||_1: f~* is the top-k average, and
    its maximiser is a point of the capped simplex attaining it."""
    theta, k = instance
    f = NormBall(np.inf, 1.0 / k)
    assert _close(f.conjugate(theta), np.abs(theta).sum() / k, CLOSED)
    restricted = SimplexRestriction(f)
    value = restricted.conjugate(theta)
    assert _close(value, top_k_average(theta, k), CLOSED)
    d = restricted.conjugate_grad(theta)
    assert CappedSimplex(k).in_domain(d)
    assert _close(float(d @ theta), value, CLOSED)


# -- Appendix B pairs and rules on random inputs --------------------------------------------------


@st.composite
def rule_inputs(draw: st.DrawFn) -> tuple[Vec, Vec, Vec, float]:
    """theta, a shift/tilt vector a, a point x, and a factor c in [0.2, 5]."""
    n = draw(st.integers(1, 8))
    arr = hnp.arrays(np.float64, n, elements=st.floats(-2.0, 2.0, allow_nan=False, width=64))
    return draw(arr), draw(arr), draw(arr), draw(st.floats(0.2, 5.0))


@PROFILE
@given(rule_inputs())
def test_appendix_b_rules_on_random_inputs(instance: tuple[Vec, Vec, Vec, float]) -> None:
    """(c f)* = c f*(./c); f(. + a) -> f* - <., a>; f(.) + <a, .> -> f*(. - a); f(c .) -> f*(./c),
    against formulas written out by hand for f = (1/2)||.||_2^2 and f = sum d ln(d/d0); and the norm
    pairs I{||.||_p <= c} -> c||.||_q, c||.||_p -> I{||.||_q <= c}, (1/2)||.||_p^2 -> (1/2)||.||_q^2."""
    theta, a, x, c = instance
    half = 0.5 * float(theta @ theta)
    f = HalfSquaredNorm(2)
    assert _close((c * f).conjugate(theta), half / c, CLOSED)
    assert _close((c * f).value(x), c * 0.5 * float(x @ x), CLOSED)
    assert _close(f.shifted(a).conjugate(theta), half - float(theta @ a), CLOSED)
    assert _close(f.shifted(a).value(x), 0.5 * float((x + a) @ (x + a)), CLOSED)
    assert _close(f.tilted(a).conjugate(theta), 0.5 * float((theta - a) @ (theta - a)), CLOSED)
    assert _close(f.dilated(c).conjugate(theta), half / c**2, CLOSED)
    assert _close(f.dilated(-c).conjugate(theta), half / c**2, CLOSED)
    d0 = np.exp(a)
    g = RelativeEntropy(d0)
    assert _close((c * g).conjugate(theta), c * float(np.sum(d0 * np.exp(theta / c - 1.0))), CLOSED)
    assert _close(g.dilated(c).conjugate(theta), float(np.sum(d0 * np.exp(theta / c - 1.0))), CLOSED)
    assert np.allclose(g.dilated(c).conjugate_grad(theta), d0 * np.exp(theta / c - 1.0) / c, rtol=1e-12)
    assert _close(g.shifted(x).conjugate(theta), g.conjugate(theta) - float(theta @ x), CLOSED)
    # the norm pairs of [SS] Examples 1-2 and App. B
    for p, q in ((1, np.inf), (2, 2), (np.inf, 1)):
        assert _close(NormBall(p, c).conjugate(theta), c * np.linalg.norm(theta, q), CLOSED)
        norm_q = float(np.linalg.norm(theta, q))
        if norm_q > 0.0:
            unit = theta / norm_q  # first: c / norm_q overflows for a subnormal theta (hypothesis 6.155)
            assert Norm(p, c).conjugate(unit * (0.999 * c)) == 0.0
            assert Norm(p, c).conjugate(unit * (1.001 * c)) == np.inf
        assert _close(HalfSquaredNorm(p).conjugate(theta), 0.5 * np.linalg.norm(theta, q) ** 2, CLOSED)


@PROFILE
@given(vectors(), st.floats(0.05, 20.0))
def test_entropy_on_the_simplex_is_log_sum_exp(theta: Vec, beta: float) -> None:
    """[SS] App. B and Sec 5 (docs/math.md#entropy-smoothing): with u uniform,
    (I_S + beta KL(. || u))* = beta ln((1/m) sum e^{theta/beta}), gradient softmax(theta / beta);
    built as ``beta * RelativeEntropy(u) + CappedSimplex()``."""
    m = theta.size
    f = beta * RelativeEntropy(np.full(m, 1.0 / m)) + CappedSimplex()
    assert isinstance(f, CappedRelativeEntropy)
    assert _close(f.conjugate(theta), beta * (logsumexp(theta / beta) - np.log(m)), CLOSED)
    assert np.allclose(f.conjugate_grad(theta), softmax(theta / beta), rtol=1e-10, atol=1e-300)


@PROFILE
@given(theta_and_nu(), st.floats(0.1, 50.0))
def test_smoothing_sandwich(instance: tuple[Vec, float], eta: float) -> None:
    """docs/math.md#smoothing-sandwich / [SS] Lemma 19, C the capped simplex:
    conj(I_C) - (1/eta) ln(N/nu) <= conj(I_C + Delta/eta) <= conj(I_C)."""
    theta, nu = instance
    n = theta.size
    regularised = RelativeEntropy(np.full(n, 1.0 / n)) / eta + CappedSimplex(nu)
    hard = CappedSimplex(nu).conjugate(theta)
    soft = regularised.conjugate(theta)
    slack = CLOSED * (1.0 + abs(hard))
    assert soft <= hard + slack
    assert soft >= hard - np.log(n / nu) / eta - slack


# -- f + g: dispatch and the numerical infimal convolution --------------------------------------


@pytest.mark.parametrize("nu", [1.0, 2.0, 2.5])
@pytest.mark.parametrize("eta", [0.5, 3.0, 1e6])
def test_dispatch_to_capped_relative_entropy(nu: float, eta: float) -> None:
    """``(1/eta) * RelativeEntropy(d0) + CappedSimplex(nu)`` (either order) is the closed form."""
    rng = np.random.default_rng(7)
    d0 = rng.random(5) + 0.1
    d0 /= d0.sum()
    for f in (
        (1 / eta) * RelativeEntropy(d0) + CappedSimplex(nu),
        CappedSimplex(nu) + RelativeEntropy(d0) / eta,
    ):
        assert type(f) is CappedRelativeEntropy
        assert f.nu == nu and f.eta == pytest.approx(eta, rel=1e-15)
        assert np.allclose(f.d0, d0, rtol=1e-15)
    assert type(RelativeEntropy(d0) + CappedSimplex()) is CappedRelativeEntropy


@SLOW
@given(theta_and_nu(), st.floats(0.2, 5.0), st.floats(0.1, 10.0))
def test_dispatch_with_unnormalised_priors_matches_the_generic_sum(
    instance: tuple[Vec, float], eta: float, mass: float
) -> None:
    """For d0 of total mass Z != 1 the dispatch adds the constant that normalising d0 takes out (ln Z,
    and Z - 1 for the unnormalised entropy); checked against the numerical infimal convolution of :class:`Sum`
    and against the values at a point of the capped simplex."""
    theta, nu = instance
    n = theta.size
    d0 = mass * softmax(np.linspace(-1.0, 1.0, n))
    for entropy in (RelativeEntropy(d0), UnnormalisedRelativeEntropy(d0)):
        closed = entropy / eta + CappedSimplex(nu)
        generic = Sum(entropy / eta, CappedSimplex(nu))
        assert isinstance(closed, (CappedRelativeEntropy, Tilted))
        assert _close(closed.conjugate(theta), generic.conjugate(theta), NUMERIC)
        d = closed.conjugate_grad(theta)
        assert _close(closed.value(d), entropy.value(d) / eta, CLOSED)


@SLOW
@given(vectors(max_n=6))
def test_sum_infimal_convolution_against_closed_forms(theta: Vec) -> None:
    """``f + g`` as a numerical infimal convolution: (1/2)||.||^2 + (1/2)||.||^2 = ||.||^2 has
    conjugate (1/4)||theta||^2 (smooth path); (1/2)||.||^2 + I{||.||_inf <= r} has conjugate
    sum_i h_r(theta_i) with the Huber function h_r (conic path)."""
    half = HalfSquaredNorm(2)
    double = Sum(half, half)
    assert _close(double.conjugate(theta), 0.25 * float(theta @ theta), NUMERIC)
    assert np.allclose(double.conjugate_grad(theta), theta / 2.0, atol=1e-6)
    r = 0.7
    huber = Sum(half, NormBall(np.inf, r))
    a = np.abs(theta)
    expected = np.where(a <= r, 0.5 * a**2, r * a - 0.5 * r**2).sum()
    assert _close(huber.conjugate(theta), float(expected), NUMERIC)
    assert np.allclose(huber.conjugate_grad(theta), np.clip(theta, -r, r), atol=1e-6)


# -- Lemma 8: conditions ------------------------------------------------------------------------


def test_lemma8_checks_condition_i() -> None:
    """min f = 0 is checked: the relative entropy has min -sum d0 / e != 0."""
    with pytest.raises(ValueError, match=r"condition \(i\)"):
        SimplexRestriction(RelativeEntropy(np.ones(3))).conjugate(np.zeros(3))


def test_lemma8_detects_a_violation_of_condition_iii() -> None:
    """f(x) = (1/2)||x - a||^2 has min 0 but f*(theta) = (1/2)||theta||^2 + <theta, a> grows when a
    coordinate of theta moves towards 0 against a: the Lemma 8 value is then a strict upper bound,
    which conjugate_grad detects by its conic cross-check."""
    a = np.array([0.9, -0.5, 0.1])
    f = SimplexRestriction(HalfSquaredNorm(2).shifted(-a))
    theta = np.array([-2.0, 1.0, 0.5])
    true_value = numerical_conjugate(f, theta)
    assert f.conjugate(theta) > true_value + 1e-3
    with pytest.raises(ValueError, match=r"condition \(iii\)"):
        f.conjugate_grad(theta)


def test_lemma8_infeasible_restriction() -> None:
    """A ball that misses the simplex (||d||_1 <= 1/2) makes f + I_S identically +inf."""
    with pytest.raises(ValueError, match="does not meet the simplex"):
        SimplexRestriction(NormBall(1, 0.5)).conjugate(np.array([0.3, -0.2]))


def test_lemma8_with_the_l1_norm() -> None:
    """||d||_1 = 1 on the simplex, so (||.||_1 + I_S)*(theta) = max theta - 1, at a vertex."""
    theta = np.array([0.3, 2.0, -1.0, 1.5])
    f = Norm(1).restricted_to_simplex()
    # the bisection stops on the boundary of dom f* = {||.||_inf <= 1}, accepted up to 1e-12
    assert f.conjugate(theta) == pytest.approx(1.0, abs=1e-11)
    assert np.allclose(f.conjugate_grad(theta), [0.0, 1.0, 0.0, 0.0], atol=1e-6)


# -- operators ----------------------------------------------------------------------------------


def test_operators_build_the_rules() -> None:
    f = HalfSquaredNorm(2)
    assert isinstance(2.0 * f, Scaled) and isinstance(f * 2, Scaled)
    assert isinstance(np.float64(2.0) * f, Scaled)  # numpy scalars defer to __rmul__
    assert (3.0 * (2.0 * f)).c == 6.0 and (3.0 * (2.0 * f)).f is f  # nested scaling collapses
    assert (f / 4.0).c == 0.25
    assert 1.0 * f is f and f + 0 is f
    assert isinstance(f + 1.5, Tilted) and (f + 1.5).conjugate(np.ones(2)) == pytest.approx(1.0 - 1.5)
    assert isinstance(f + HingeLoss(), Sum)
    assert isinstance(sum([f, HingeLoss()]), Sum)  # 0 + f + g
    assert isinstance(f.shifted(np.ones(2)), Shifted)
    assert isinstance(f.dilated(-2.0), Dilated)
    assert isinstance(f.restricted_to_simplex(), SimplexRestriction)


# -- bad input ----------------------------------------------------------------------------------


BAD_FACTORS = [0.0, -1.0, np.nan, np.inf, "two", np.ones(2), True]


@pytest.mark.parametrize("c", BAD_FACTORS, ids=repr)
def test_bad_scaling_factor(c: object) -> None:
    f = HalfSquaredNorm(2)
    with pytest.raises(ValueError, match=r"\bc\b"):
        c * f  # noqa: B018
    with pytest.raises(ValueError, match=r"\bc\b"):
        f * c  # noqa: B018
    with pytest.raises(ValueError, match=r"\bc\b"):
        Scaled(f, c)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: Dilated(HalfSquaredNorm(), 0.0), "c"),
        (lambda: Dilated(HalfSquaredNorm(), np.nan), "c"),
        (lambda: HalfSquaredNorm() / 0.0, "c"),
        (lambda: Shifted(RelativeEntropy(np.ones(3)), np.ones(2)), "a"),
        (lambda: Shifted(HalfSquaredNorm(), [0.0, np.nan]), "a"),
        (lambda: Tilted(RelativeEntropy(np.ones(3)), np.ones(4)), "a"),
        (lambda: Tilted(HalfSquaredNorm(), None, offset=np.inf), "offset"),
        (lambda: RelativeEntropy(np.ones(3)) + RelativeEntropy(np.ones(2)), "other"),
        (lambda: Sum(RelativeEntropy(np.ones(3)), UnnormalisedRelativeEntropy(np.ones(2))), "g"),
        (lambda: Sum(HalfSquaredNorm(), "f"), "g"),  # type: ignore[arg-type]
        (lambda: HalfSquaredNorm() + "f", "other"),
        (lambda: HalfSquaredNorm() + np.nan, "other"),
        (lambda: SeparableSum([HingeLoss(), HalfSquaredNorm()]), "sizes"),
        (lambda: SeparableSum([HingeLoss(), HalfSquaredNorm()], sizes=[2]), "sizes"),
        (lambda: SeparableSum([RelativeEntropy(np.ones(3))], sizes=[2]), "sizes"),
        (lambda: SeparableSum([HingeLoss()], sizes=[0]), "sizes"),
        (lambda: SeparableSum([]), "functions"),
        (lambda: SimplexRestriction("f"), "f"),  # type: ignore[arg-type]
        (lambda: Norm(3), "p"),
        (lambda: NormBall("two"), "p"),
        (lambda: NormBall(2, 0.0), "radius"),
        (lambda: Norm(1, -1.0), "radius"),
        (lambda: RelativeEntropy([1.0, 0.0]), "d0"),
        (lambda: RelativeEntropy([1.0, np.nan]), "d0"),
        (lambda: UnnormalisedRelativeEntropy([[1.0]]), "d0"),
        (lambda: CappedSimplex(3.0) + RelativeEntropy(np.ones(2) / 2), "nu"),
    ],
)
def test_bad_construction_names_the_argument(build: object, name: str) -> None:
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        build()  # type: ignore[operator]


@pytest.mark.parametrize(
    ("f", "theta"),
    [
        (RelativeEntropy(np.ones(3)), np.ones(2)),
        (HalfSquaredNorm(), [0.0, np.nan]),
        (LogisticLoss(), [[0.5]]),
        (2.0 * RelativeEntropy(np.ones(2)), [1.0, np.inf]),
        (SeparableSum([HingeLoss()], sizes=[2]), np.ones(3)),
        (Sum(HalfSquaredNorm(), RelativeEntropy(np.ones(2))), np.ones(3)),
        (SimplexRestriction(HalfSquaredNorm()), [np.nan, 1.0]),
    ],
)
def test_bad_theta_names_the_argument(f: ConvexFunction, theta: object) -> None:
    with pytest.raises(ValueError, match="theta"):
        f.conjugate(theta)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="theta"):
        f.conjugate_grad(theta)  # type: ignore[arg-type]


def test_bad_numerical_method() -> None:
    with pytest.raises(ValueError, match="method"):
        numerical_conjugate(HingeLoss(), np.zeros(2), method="newton")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="method"):
        numerical_biconjugate(HingeLoss(), np.zeros(2), method="newton")  # type: ignore[arg-type]


@SLOW
@given(vectors(max_n=5, scale=0.9))
def test_numerical_conjugate_scipy_path(theta: Vec) -> None:
    """The scipy path of numerical_conjugate (L-BFGS-B on f.value alone) on smooth entries: the
    logistic loss at theta in (-1, 0)^N, and (1/2)||.||^2 + sum d ln d on the orthant (a box)."""
    s = -0.5 + 0.5 * theta  # in (-0.95, -0.05)
    logistic = LogisticLoss()
    assert _close(numerical_conjugate(logistic, s, method="scipy"), logistic.conjugate(s), NUMERIC)
    f = HalfSquaredNorm(2) + RelativeEntropy(np.ones(theta.size))
    bounds = [(0.0, None)] * theta.size  # dom of the entropy
    x0 = np.ones(theta.size)
    numeric = numerical_conjugate(f, theta, x0, method="scipy", bounds=bounds)
    assert _close(numeric, f.conjugate(theta), NUMERIC)
