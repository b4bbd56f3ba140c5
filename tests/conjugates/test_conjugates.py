"""Property tests for every conjugate-library entry and calculus rule (docs/math.md#conjugate-table).

For each case of the catalogue below, on random points drawn by hypothesis (derandomised):

* Fenchel–Young: ``f(x) + f*(theta) >= <x, theta>`` at random ``(x, theta)``, with equality at
  ``x = conjugate_grad(theta)``, which must lie in ``dom f`` ([SS] Lemma 17);
* the conjugate agrees with :func:`numerical_conjugate` (a conic solve of the cvxpy form of f);
* biconjugation ``f** = f`` at random points of ``dom f``, by numerically maximising
  ``<x, theta> - f*(theta)`` (L-BFGS-B on the Python conjugate with its exact gradient where f* is
  smooth or box-constrained, a conic solve of the cvxpy form of f* otherwise);
* the cvxpy forms of f and f* agree with ``value`` and ``conjugate`` (Clarabel).

A case maps raw vectors in ``[-1, 1]^n`` to a function (``w``), a point of ``dom f*`` where the sup
is attained (``theta``) and a point of ``dom f`` (``x``). Wrapper cases (scaling, shift, tilt,
dilation, separable sum, sum, simplex restriction) transform the maps of a base case by the
same rule as the function, so every calculus rule meets the same four checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.special import softmax

from dualboost.conjugates import (
    CappedBinaryRelativeEntropy,
    CappedRelativeEntropy,
    CappedSimplex,
    ConvexFunction,
    Dilated,
    ExponentialLoss,
    HalfSquaredNorm,
    HingeLoss,
    LogisticLoss,
    MadaBoostLoss,
    Norm,
    NormBall,
    RelativeEntropy,
    SeparableSum,
    Shifted,
    SimplexRestriction,
    Sum,
    UnnormalisedRelativeEntropy,
    numerical_biconjugate,
    numerical_conjugate,
    project_capped_simplex,
    solve_cvxpy,
)

Vec = np.ndarray
Bounds = list[tuple[float | None, float | None]] | None

# Tolerances.
# * Closed forms (and the machine-precision bisection of Lemma 8): every quantity is a sum of at
#   most ~10 float64 terms, each of relative error ~1e-16, so f(x) + f*(theta) - <x, theta> carries
#   a rounding error of ~1e-15 times the size S = 1 + |f(x)| + |f*(theta)| + |<x, theta>|. 1e-9 * S
#   leaves six orders of margin over rounding while any wrong formula is off by far more.
# * Numerical conjugates (the infimal convolution of Sum, conic maximisers): solver tolerances are
#   1e-11 (Clarabel) / 1e-12 gradient norm (L-BFGS-B); errors in maximisers enter the value to
#   first order through constraint violations of ~1e-9, so 1e-6 * S.
# * Agreement with a conic solve (numerical conjugate, biconjugate, cvxpy forms): interior-point
#   accuracy on exponential cones is ~1e-8 relative; we ask for 1e-6 * S, the usual conic tolerance.
EXACT_RTOL = 1e-9
NUMERIC_RTOL = 1e-6
SOLVER_RTOL = 1e-6

QUICK = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=120,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
SOLVES = settings(QUICK, max_examples=6)


@dataclass(frozen=True)
class Case:
    """A function family with samplers; every map takes ``(n, w, z)`` with raw ``w, z`` in [-1, 1]^n."""

    name: str
    build: Callable[[int, Vec], ConvexFunction]
    theta: Callable[[int, Vec, Vec], Vec]
    x: Callable[[int, Vec, Vec], Vec]
    biconj: str = "cvxpy"
    bounds: Callable[[int, Vec], Bounds] = lambda n, w: None
    min_n: int = 1
    rtol: float = EXACT_RTOL


def _nu(n: int, w: Vec) -> float:
    """A real cap parameter in [1, n]."""
    return 1.0 + (n - 1) * (w[0] + 1.0) / 2.0


def _ball_point(z: Vec, p: float, r: float) -> Vec:
    return r * z / max(1.0, float(np.linalg.norm(z, p)))


def _dual(p: float) -> float:
    return {1.0: np.inf, 2.0: 2.0, np.inf: 1.0}[p]


def _radius(w: Vec) -> float:
    return 0.5 + (w[-1] + 1.0) / 2.0


def _anything(n: int, w: Vec, z: Vec) -> Vec:
    return 3.0 * z


def _box(lo: float, hi: float) -> Callable[[int, Vec], Bounds]:
    return lambda n, w: [(lo, hi)] * n


def _capped_point(n: int, w: Vec, z: Vec) -> Vec:
    return project_capped_simplex(2.0 * z, _nu(n, w))


BASE_CASES = [
    *[
        Case(
            f"norm-{p}",
            lambda n, w, p=p: Norm(p, _radius(w)),
            lambda n, w, z, p=p: _ball_point(z, _dual(p), _radius(w)),
            _anything,
        )
        for p in (1.0, 2.0, np.inf)
    ],
    *[
        Case(
            f"ball-{p}",
            lambda n, w, p=p: NormBall(p, _radius(w)),
            _anything,
            lambda n, w, z, p=p: _ball_point(z, p, _radius(w)),
        )
        for p in (1.0, 2.0, np.inf)
    ],
    *[
        Case(f"halfsq-{p}", lambda n, w, p=p: HalfSquaredNorm(p), _anything, _anything,
             biconj="scipy" if p == 2.0 else "cvxpy")
        for p in (1.0, 2.0, np.inf)
    ],
    Case(
        "relent",
        lambda n, w: RelativeEntropy(np.exp(w)),
        lambda n, w, z: 2.0 * z,
        lambda n, w, z: np.exp(2.0 * z) * (z > -0.8),
        biconj="scipy",
    ),
    Case(
        "unnormalised-relent",
        lambda n, w: UnnormalisedRelativeEntropy(np.exp(w)),
        lambda n, w, z: 2.0 * z,
        lambda n, w, z: np.exp(2.0 * z) * (z > -0.8),
        biconj="scipy",
    ),
    Case("hinge", lambda n, w: HingeLoss(), lambda n, w, z: (z - 1.0) / 2.0, _anything,
         biconj="scipy", bounds=_box(-1.0, 0.0)),
    Case("logistic", lambda n, w: LogisticLoss(), lambda n, w, z: -0.5 + 0.49 * z, _anything,
         biconj="scipy", bounds=_box(-1.0 + 1e-12, -1e-12)),
    Case("exponential", lambda n, w: ExponentialLoss(), lambda n, w, z: -np.exp(2.0 * z), _anything,
         biconj="scipy", bounds=_box(-1e4, -1e-12)),
    Case("madaboost", lambda n, w: MadaBoostLoss(), lambda n, w, z: -0.505 - 0.495 * z, _anything,
         biconj="scipy", bounds=_box(-1.0, -1e-12)),
    Case("capped-simplex", lambda n, w: CappedSimplex(_nu(n, w)), _anything, _capped_point),
    Case(
        "capped-relent",
        lambda n, w: CappedRelativeEntropy(softmax(w), _nu(n, w), np.exp(2.0 * w[-1])),
        _anything,
        _capped_point,
    ),
    Case(
        "capped-binary-relent",
        lambda n, w: CappedBinaryRelativeEntropy(
            softmax(w), 1.0 + 0.9 * (1.0 / softmax(w).max() - 1.0) * (w[0] + 1.0) / 2.0,
            np.exp(2.0 * w[-1]),
        ),
        _anything,
        lambda n, w, z: project_capped_simplex(
            2.0 * z, 1.0 + 0.9 * (1.0 / softmax(w).max() - 1.0) * (w[0] + 1.0) / 2.0
        ),
        min_n=2,
    ),
]
BASE = {case.name: case for case in BASE_CASES}


# -- calculus rules as case transformers ---------------------------------------------------------


def _factor(w: Vec) -> float:
    """A positive factor in [1/e, e] read from the parameters."""
    return float(np.exp(w[1 % w.size]))


def scaled(case: Case) -> Case:
    """``c f``: dom f* scales by c (theta = c theta_f), dom f is unchanged."""
    return replace(
        case,
        name=f"scaled({case.name})",
        build=lambda n, w: _factor(w) * case.build(n, w),
        theta=lambda n, w, z: _factor(w) * case.theta(n, w, z),
        bounds=lambda n, w: None
        if case.bounds(n, w) is None
        else [(lo * _factor(w), hi * _factor(w)) for lo, hi in case.bounds(n, w)],
    )


def shifted(case: Case) -> Case:
    """``f(x + a)``: dom f moves by -a."""
    return replace(
        case,
        name=f"shifted({case.name})",
        build=lambda n, w: Shifted(case.build(n, w), np.roll(w, 1)),
        x=lambda n, w, z: case.x(n, w, z) - np.roll(w, 1),
    )


def tilted(case: Case) -> Case:
    """``f(x) + <a, x> + b`` (via ``.tilted(a) + b``): dom f* moves by a."""
    return replace(
        case,
        name=f"tilted({case.name})",
        build=lambda n, w: case.build(n, w).tilted(np.roll(w, 2)) + float(w[0]),
        theta=lambda n, w, z: case.theta(n, w, z) + np.roll(w, 2),
        bounds=lambda n, w: None
        if case.bounds(n, w) is None
        else [(lo + a, hi + a) for (lo, hi), a in zip(case.bounds(n, w), np.roll(w, 2), strict=True)],
    )


def _dilated_by(case: Case, name: str, c: Callable[[int, Vec], float | Vec]) -> Case:
    """``f(c x)`` with ``c = c(n, w)`` (a scalar or a vector): dom f* scales by c, dom f by 1/c."""

    def bounds(n: int, w: Vec) -> Bounds:
        base = case.bounds(n, w)
        if base is None:
            return None
        factors = np.broadcast_to(c(n, w), (len(base),))
        pairs = zip(base, factors, strict=True)
        return [tuple(sorted((lo * f, hi * f))) for (lo, hi), f in pairs]  # type: ignore[misc]

    return replace(
        case,
        name=f"{name}({case.name})",
        build=lambda n, w: Dilated(case.build(n, w), c(n, w)),
        theta=lambda n, w, z: c(n, w) * case.theta(n, w, z),
        x=lambda n, w, z: case.x(n, w, z) / c(n, w),
        bounds=bounds,
    )


def dilated(case: Case, sign: float = -1.0) -> Case:
    """``f(c x)`` with the scalar ``c = sign * factor``."""
    return _dilated_by(case, "dilated", lambda n, w: sign * _factor(w))


def diagonally_dilated(case: Case) -> Case:
    """``f(diag(c) x)`` with c a vector of entries of both signs and sizes 0.5-2: the rules of
    :func:`dilated`, entrywise."""
    signs = lambda n: np.where(np.arange(n) % 2 == 0, 1.0, -1.0)  # noqa: E731
    return _dilated_by(case, "diag-dilated", lambda n, w: np.linspace(0.5, 2.0, n) * signs(n))


def separable(first: Case, second: Case) -> Case:
    """``f(x_1) + g(x_2)`` on two consecutive blocks of sizes ``k = n // 2`` and ``n - k``."""

    def halves(n: int, v: Vec) -> tuple[int, Vec, Vec]:
        k = n // 2
        return k, v[:k], v[k:]

    def build(n: int, w: Vec) -> ConvexFunction:
        k, w1, w2 = halves(n, w)
        return SeparableSum([first.build(k, w1), second.build(n - k, w2)], sizes=[k, n - k])

    def joint(attr: str) -> Callable[[int, Vec, Vec], Vec]:
        def sample(n: int, w: Vec, z: Vec) -> Vec:
            k, w1, w2 = halves(n, w)
            _, z1, z2 = halves(n, z)
            return np.concatenate([getattr(first, attr)(k, w1, z1), getattr(second, attr)(n - k, w2, z2)])

        return sample

    return Case(f"separable({first.name}, {second.name})", build, joint("theta"), joint("x"), min_n=2)


def _simplex_point(n: int, w: Vec, z: Vec) -> Vec:
    return project_capped_simplex(2.0 * z, 1.0)


def _capped_simplex_box(n: int, w: Vec) -> NormBall:
    return NormBall(np.inf, 1.0 / _nu(n, w))


def _l2_radius(n: int, w: Vec) -> float:
    """A radius at which the l2 ball meets the simplex in more than one point (> 1/sqrt(n)). At
    exactly 1/sqrt(n) the intersection is the uniform point alone, where the 1-D maximisation of
    Lemma 8 is ill-conditioned (gamma ~ 1e6; the value is off by ~5e-7 relative) and the conic
    solvers end 'inaccurate' (hypothesis 6.155 draws that radius)."""
    return (1.001 + 0.5 * (w[-1] + 1.0)) / np.sqrt(n)


def _simplex_l2_point(n: int, w: Vec, z: Vec) -> Vec:
    """A point of the simplex inside the l2 ball of radius ``_l2_radius``: pull towards uniform."""
    u = np.full(n, 1.0 / n)
    p = _simplex_point(n, w, z) - u
    spare = np.sqrt(max(_l2_radius(n, w) ** 2 - 1.0 / n, 0.0))
    norm = float(np.linalg.norm(p))
    return u + (p if norm <= spare else p * spare / norm)


CALCULUS_CASES = [
    scaled(BASE["relent"]),
    scaled(BASE["hinge"]),
    scaled(BASE["ball-2.0"]),
    shifted(BASE["halfsq-1.0"]),
    shifted(BASE["exponential"]),
    shifted(BASE["relent"]),
    tilted(BASE["logistic"]),
    tilted(BASE["capped-simplex"]),
    tilted(BASE["unnormalised-relent"]),
    dilated(BASE["ball-inf"]),
    dilated(BASE["madaboost"]),
    dilated(BASE["halfsq-2.0"], sign=1.0),
    diagonally_dilated(BASE["halfsq-2.0"]),
    diagonally_dilated(BASE["ball-inf"]),
    diagonally_dilated(BASE["madaboost"]),
    separable(BASE["hinge"], BASE["relent"]),
    separable(BASE["norm-2.0"], BASE["capped-simplex"]),
    Case(
        "sum(halfsq-2, relent) [smooth infimal convolution]",
        lambda n, w: HalfSquaredNorm(2) + RelativeEntropy(np.exp(w)),
        _anything,
        lambda n, w, z: np.exp(z) * (z > -0.8),
        rtol=NUMERIC_RTOL,
    ),
    Case(
        "sum(halfsq-2, ball-1) [conic infimal convolution]",
        lambda n, w: HalfSquaredNorm(2) + NormBall(1, _radius(w)),
        _anything,
        lambda n, w, z: _ball_point(z, 1.0, _radius(w)),
        rtol=NUMERIC_RTOL,
    ),
    Case(
        "sum(scaled relent, capped-simplex) [generic, no dispatch]",
        lambda n, w: Sum(_factor(w) * RelativeEntropy(softmax(w)), CappedSimplex(_nu(n, w))),
        _anything,
        _capped_point,
        rtol=NUMERIC_RTOL,
    ),
    Case(
        "relent/eta + capped-simplex [dispatched closed form, unnormalised d0]",
        lambda n, w: RelativeEntropy(np.exp(2.0 * w)) / _factor(w) + CappedSimplex(_nu(n, w)),
        _anything,
        _capped_point,
    ),
    Case(
        "restriction(ball-inf 1/nu) [Lemma 8]",
        lambda n, w: SimplexRestriction(_capped_simplex_box(n, w)),
        _anything,
        _capped_point,
    ),
    Case(
        "restriction(halfsq-2) [Lemma 8]",
        lambda n, w: HalfSquaredNorm(2).restricted_to_simplex(),
        _anything,
        _simplex_point,
    ),
    Case(
        "restriction(ball-2) [Lemma 8]",
        lambda n, w: SimplexRestriction(NormBall(2, _l2_radius(n, w))),
        _anything,
        _simplex_l2_point,
    ),
    Case(
        "restriction(norm-2) [Lemma 8, conic maximiser]",
        lambda n, w: SimplexRestriction(Norm(2, _radius(w))),
        _anything,
        _simplex_point,
        rtol=NUMERIC_RTOL,
    ),
]

CASES = BASE_CASES + CALCULUS_CASES
IDS = [case.name for case in CASES]


@st.composite
def instances(draw: st.DrawFn, case: Case, max_n: int = 6) -> tuple[int, Vec, Vec, Vec]:
    """``(n, w, z_theta, z_x)`` with raw vectors in [-1, 1]^n."""
    n = draw(st.integers(case.min_n, max_n))
    raw = hnp.arrays(np.float64, n, elements=st.floats(-1.0, 1.0, allow_nan=False, width=64))
    return n, draw(raw), draw(raw), draw(raw)


def _size(*terms: float) -> float:
    return 1.0 + sum(abs(t) for t in terms)


def _close(a: float, b: float, rtol: float) -> bool:
    return bool(abs(a - b) <= rtol * _size(a, b))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fenchel_young(case: Case) -> None:
    """Inequality at random (x, theta); equality at x = conjugate_grad(theta), which lies in dom f."""

    @QUICK
    @given(instances(case))
    def check(instance: tuple[int, Vec, Vec, Vec]) -> None:
        n, w, z_theta, z_x = instance
        f = case.build(n, w)
        theta, x = case.theta(n, w, z_theta), case.x(n, w, z_x)
        assert f.in_domain(x)
        fx, fstar, inner = f.value(x), f.conjugate(theta), float(x @ theta)
        assert np.isfinite(fx) and np.isfinite(fstar)
        assert fx + fstar - inner >= -case.rtol * _size(fx, fstar, inner)
        x_star = f.conjugate_grad(theta)
        assert x_star.shape == (n,)
        assert f.in_domain(x_star, tol=1e-8)
        gx, inner = f.value(np.asarray(x_star)), float(x_star @ theta)
        assert abs(gx + fstar - inner) <= case.rtol * _size(gx, fstar, inner)
        # the maximiser beats the random point
        assert inner - gx >= float(x @ theta) - fx - case.rtol * _size(fx, gx, inner)

    check()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_agrees_with_numerical_conjugate(case: Case) -> None:
    """f*(theta) equals sup_x <x, theta> - f(x) solved by Clarabel over the cvxpy form of f."""

    @SOLVES
    @given(instances(case))
    def check(instance: tuple[int, Vec, Vec, Vec]) -> None:
        n, w, z_theta, _ = instance
        f = case.build(n, w)
        theta = case.theta(n, w, z_theta)
        assert _close(f.conjugate(theta), numerical_conjugate(f, theta), SOLVER_RTOL)

    check()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_biconjugation(case: Case) -> None:
    """f**(x) = f(x) at random x in dom f (f closed convex), by maximising <x, theta> - f*(theta)."""

    @SOLVES
    @given(instances(case))
    def check(instance: tuple[int, Vec, Vec, Vec]) -> None:
        n, w, _, z_x = instance
        f = case.build(n, w)
        x = case.x(n, w, z_x)
        bounds = case.bounds(n, w)
        theta0 = None if bounds is None else np.array([0.5 * (lo + hi) for lo, hi in bounds])
        fxx = numerical_biconjugate(f, x, theta0, method=case.biconj, bounds=bounds)  # type: ignore[arg-type]
        assert _close(fxx, f.value(x), SOLVER_RTOL)

    check()


def _solve_form(expr: cp.Expression, constraints: list[cp.Constraint]) -> float:
    """Minimise a form over its auxiliary variables (exact by the protocol of base.py)."""
    problem = cp.Problem(cp.Minimize(expr), constraints)
    assert solve_cvxpy(problem) == cp.OPTIMAL
    return float(problem.value)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cvxpy_forms(case: Case) -> None:
    """cvxpy_value(x) = value(x) and cvxpy_conjugate(theta) = conjugate(theta), argument fixed by ==."""

    @SOLVES
    @given(instances(case))
    def check(instance: tuple[int, Vec, Vec, Vec]) -> None:
        n, w, z_theta, z_x = instance
        f = case.build(n, w)
        theta, x = case.theta(n, w, z_theta), case.x(n, w, z_x)
        v = cp.Variable(n)
        expr, cons = f.cvxpy_value(v)
        assert _close(_solve_form(expr, [*cons, v == x]), f.value(x), SOLVER_RTOL)
        expr, cons = f.cvxpy_conjugate(v)
        assert _close(_solve_form(expr, [*cons, v == theta]), f.conjugate(theta), SOLVER_RTOL)

    check()


# -- outside the domains -------------------------------------------------------------------------

OUTSIDE = [
    (Norm(1), np.array([0.5, -1.5, 0.2])),  # ||theta||_inf > 1
    (Norm(2, 0.5), np.array([0.4, 0.4, 0.0])),  # ||theta||_2 > 0.5
    (Norm(np.inf), np.array([0.5, -0.6, 0.0])),  # ||theta||_1 > 1
    (HingeLoss(), np.array([-0.5, 0.1])),  # theta_2 > 0
    (HingeLoss(), np.array([-1.2, -0.5])),  # theta_1 < -1
    (LogisticLoss(), np.array([0.3, -0.5])),
    (LogisticLoss(), np.array([-1.01, -0.5])),
    (ExponentialLoss(), np.array([-3.0, 0.2])),
    (MadaBoostLoss(), np.array([-1.5, -0.5])),
    (MadaBoostLoss(), np.array([-0.5, 0.5])),
]


@pytest.mark.parametrize(("f", "theta"), OUTSIDE, ids=lambda v: repr(v))
def test_conjugate_is_infinite_outside_its_domain(f: ConvexFunction, theta: Vec) -> None:
    assert f.conjugate(theta) == np.inf
    assert numerical_conjugate(f, theta) == np.inf
    with pytest.raises(ValueError, match="theta"):
        f.conjugate_grad(theta)


@pytest.mark.parametrize(
    ("f", "theta", "value"),
    [
        (LogisticLoss(), np.array([0.0, -1.0]), 0.0),
        (ExponentialLoss(), np.array([0.0, -1.0]), -1.0),
        (MadaBoostLoss(), np.array([0.0]), 0.0),
    ],
)
def test_unattained_supremum_has_a_value_but_no_maximiser(
    f: ConvexFunction, theta: Vec, value: float
) -> None:
    """At end points of dom f* where the sup is a limit: f* is finite, conjugate_grad raises."""
    assert f.conjugate(theta) == pytest.approx(value, abs=1e-15)
    with pytest.raises(ValueError, match="theta"):
        f.conjugate_grad(theta)


def test_madaboost_conjugate_closed_form_at_reference_points() -> None:
    """phi*(s) = (-s) ln(-s) + s on [-1, 0] (module docstring of losses.py), by hand."""
    f = MadaBoostLoss()
    assert f.conjugate(np.array([-1.0])) == pytest.approx(-1.0, abs=1e-15)  # sup at z = 0: -1 * 0 - 1
    s = -np.exp(-2.0)  # maximiser z = 2: s z - e^{-2} = -3 e^{-2}
    assert f.conjugate(np.array([s])) == pytest.approx(-3.0 * np.exp(-2.0), rel=1e-14)
    assert f.conjugate_grad(np.array([s, -1.0])) == pytest.approx([2.0, 0.0], abs=1e-14)
    # the linear piece: phi(z) = 1 - z for z < 0
    assert f.value(np.array([-2.0, 0.0, 1.0])) == pytest.approx(3.0 + 1.0 + np.exp(-1.0), rel=1e-15)
