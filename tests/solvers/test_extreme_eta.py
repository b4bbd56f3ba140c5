"""Certificates that hold at every eta (docs/math.md#stable-evaluation).

Every model with a regularisation eta, solved by every method that accepts it at eta from 1e-12
to 1e12: a result reported ``optimal`` must be right within its certificate. The reference needs
no solve: both objectives are re-evaluated at the returned points in 60-digit decimal arithmetic
(Python's ``decimal``), the conjugates from their definitions (the capped softmax of [SS] Lemma 16
by its sorted scan, the binary entropy's and the quadratic's normaliser by bisection), at the
points moved exactly onto their domains (d / sum d, w / sum w); and the upper bound ``P* <=
P(d_u)`` at the feasible uniform capped point needs none either.
"""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, localcontext

import numpy as np
import pytest

from dualboost.conjugates import (
    CappedBinaryRelativeEntropy,
    CappedQuadratic,
    CappedRelativeEntropy,
    NormBall,
    RelativeEntropy,
    scale,
)
from dualboost.problems import (
    BinaryERLPBoost,
    CorrectiveBinaryERLPBoost,
    CorrectiveERLPBoost,
    ERLPBoost,
    QRLPBoost,
    Relaxation,
)
from dualboost.solvers import accepts

CONTEXT = Context(prec=60, Emax=MAX_EMAX, Emin=MIN_EMIN)


def dec(x) -> list[Decimal]:
    return [Decimal(float(v)) for v in np.ravel(x)]


def normalised(x) -> list[Decimal]:
    """``x / sum x`` exactly (to 60 digits): the point of the domain the float x stands for."""
    xs = dec(x)
    total = sum(xs)
    return [v / total for v in xs]


def matvec(U, x: list[Decimal]) -> list[Decimal]:
    return [sum(Decimal(float(u)) * v for u, v in zip(row, x, strict=True)) for row in U]


def kl(d: list[Decimal], d0: list[Decimal]) -> Decimal:
    return sum((a * (a / b).ln() if a > 0 else Decimal(0)) for a, b in zip(d, d0, strict=True))


def bisect(function, lo: Decimal, hi: Decimal) -> Decimal:
    """The root of a non-increasing ``function`` in [lo, hi] to 1e-55 relative."""
    for _ in range(400):
        mid = (lo + hi) / 2
        if function(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= Decimal("1e-55") * max(Decimal(1), abs(mid)):
            break
    return (lo + hi) / 2


class Entropy:
    """``(1/eta) KL(d, d0)`` on the capped simplex and its conjugate (docs/math.md#capped-softmax)."""

    def __init__(self, d0, nu, eta):
        self.d0, self.nu, self.eta = normalised(d0), Decimal(float(nu)), Decimal(float(eta))

    def value(self, d):
        return kl(d, self.d0) / self.eta

    def conjugate(self, theta):
        """``<d*, theta> - f(d*)`` with d* the capped softmax: the i largest of ``d0 e^{eta theta}`` at
        the cap, the rest scaled to the remaining mass, for the first i where that fits ([SS] Lemma 16)."""
        z = [b.ln() + self.eta * t for b, t in zip(self.d0, theta, strict=True)]
        order = sorted(range(len(z)), key=lambda n: -z[n])
        top = z[order[0]]
        e = [(v - top).exp() for v in z]
        cap = 1 / self.nu
        for i in range(len(z)):
            mass = 1 - i / self.nu
            rest = sum(e[n] for n in order[i:])
            if mass <= 0 or mass * e[order[i]] <= cap * rest:
                break
        d = [Decimal(0)] * len(z)
        for n in order[:i]:
            d[n] = cap
        for n in order[i:]:
            d[n] = mass * e[n] / rest if mass > 0 else Decimal(0)
        return sum(a * t for a, t in zip(d, theta, strict=True)) - self.value(d)


class BinaryEntropy(Entropy):
    """``(1/eta) Delta_{2,nu}(d, d0)`` on the simplex and its conjugate ([KG] Lemma 3.18)."""

    def value(self, d):
        cap = 1 / self.nu
        return (kl(d, self.d0) + kl([cap - a for a in d], [cap - b for b in self.d0])) / self.eta

    def conjugate(self, theta):
        """``min_beta (1/(eta nu)) sum ln(1 - nu d0 + nu d0 e^{eta (theta - beta)}) + beta``: convex in
        beta, its derivative ``1 - sum d(beta)`` has the root found by bisection."""
        a = [self.nu * b for b in self.d0]

        def excess(beta):  # sum d(beta) - 1, non-increasing in beta
            total = Decimal(0)
            for ai, t in zip(a, theta, strict=True):
                x = self.eta * (t - beta)
                total += ai / (ai + (1 - ai) * (-x).exp()) if x > -1000 else ai * x.exp() / (1 - ai)
            return total / self.nu - 1

        beta = bisect(excess, min(theta) - 1, max(theta) + 1)
        terms = sum(((1 - ai) + ai * (self.eta * (t - beta)).exp()).ln()
                    for ai, t in zip(a, theta, strict=True))
        return terms / (self.eta * self.nu) + beta


class Quadratic:
    """QRLP-Boost's ``(1/eta) sum (d ln c + d^2/(2c))`` on the capped simplex (uniform prior)."""

    def __init__(self, center, nu, eta):
        self.c, self.nu, self.eta = dec(center), Decimal(float(nu)), Decimal(float(eta))

    def value(self, d):
        return sum(a * c.ln() + a * a / (2 * c) for a, c in zip(d, self.c, strict=True)) / self.eta

    def conjugate(self, theta):
        cap = 1 / self.nu
        z = [self.eta * t - c.ln() for t, c in zip(theta, self.c, strict=True)]

        def point(tau):
            return [min(cap, max(Decimal(0), c * (v - tau))) for v, c in zip(z, self.c, strict=True)]

        span = max(abs(v) for v in z) + 1 + max(cap / c for c in self.c)
        tau = bisect(lambda t: sum(point(t)) - 1, -span, span)
        d = point(tau)
        return sum(a * t for a, t in zip(d, theta, strict=True)) - self.value(d)


def reference(model):
    """``(P(d), D(w))`` of ``model`` in 60 digits, at d and w moved exactly onto their domains."""
    kind = type(model)
    nu, eta = getattr(model, "nu", 1.0), getattr(model, "eta", None)
    if kind is QRLPBoost:
        f = Quadratic(model.center, nu, eta)
    elif kind in (BinaryERLPBoost, CorrectiveBinaryERLPBoost):
        f = BinaryEntropy(model.d0, nu, eta)
    elif kind is Relaxation:  # f = c RelativeEntropy() (uniform prior) on the simplex: eta = 1/c
        f = Entropy(np.full(model.n_samples, 1.0 / model.n_samples), 1.0, 1.0 / getattr(model.f, "c", 1.0))
    else:
        f = Entropy(model.d0, nu, eta)
    corrective = kind in (CorrectiveERLPBoost, CorrectiveBinaryERLPBoost)

    def primal(d_float):
        d = normalised(d_float)
        if corrective:
            return sum(Decimal(float(u)) * a for u, a in zip(model.new_column, d, strict=True)) + f.value(d)
        return max(matvec(model.U.T, d)) + f.value(d)

    def dual(w_float):
        w = normalised(w_float) if not corrective else dec(w_float)
        return -f.conjugate([-m for m in matvec(model.U, w)])

    return primal, dual


def make_models(N: int, t: int, nu: float, eta: float, seed: int):
    """Every model with an eta over one random instance (the binary ones only where nu < N)."""
    rng = np.random.default_rng(seed)
    U = rng.uniform(-1.0, 1.0, (N, t))
    w_prev = rng.dirichlet(np.ones(t - 1))
    models = [
        ERLPBoost(U, nu=nu, eta=eta),
        CorrectiveERLPBoost(U, w_prev, nu=nu, eta=eta),
        QRLPBoost(U, nu=nu, eta=eta),
    ]
    if nu == 1.0:  # the Relaxation path: the entropy scaled by 1/eta, the simplex absorbed by the calculus
        models.append(Relaxation(U, scale(RelativeEntropy(), 1.0 / eta), form="edge"))
    if nu < N:
        models += [BinaryERLPBoost(U, nu=nu, eta=eta), CorrectiveBinaryERLPBoost(U, w_prev, nu=nu, eta=eta)]
    return models


def check_certificate(model, solution) -> None:
    """A result reported optimal says that the optimum lies within ``tol * max(1, |P|)`` of both its
    values. The exact values at its points bound the optimum, ``D(w) <= OPT <= P(d)`` (the points
    moved exactly onto their domains), so it holds when the widest of the float and exact values are
    within that tolerance: ``max(P_float, P(d)) - min(D_float, D(w)) <= tol * max(1, |P|)``."""
    if solution.status != "optimal":
        return
    primal, dual = reference(model)
    scale_ = max(1.0, abs(solution.primal_value))
    with localcontext(CONTEXT):
        p_exact, d_exact = primal(solution.d), dual(solution.w)
        upper = max(p_exact, Decimal(solution.primal_value))
        lower = min(d_exact, Decimal(solution.dual_value))
        widest = float(upper - lower)
        errors = (float(Decimal(solution.primal_value) - p_exact),
                  float(Decimal(solution.dual_value) - d_exact))
    assert widest <= solution.tol * scale_, (
        f"{model!r} by {solution.method}: P {solution.primal_value!r}, D {solution.dual_value!r}, "
        f"exact P - P {-errors[0]:.3g}, exact D - D {-errors[1]:.3g}, tol {solution.tol:g}"
    )


# --- the conjugates and values themselves ------------------------------------------------------------
@pytest.mark.parametrize("eta", [1e-12, 1e-9, 1e-6, 1.0, 1e6, 1e12])
@pytest.mark.parametrize("nu", [1.0, 4.0, 12.0])
def test_conjugates_and_values_match_60_digits(eta, nu):
    """f*(theta) and f(d) of the capped, binary and quadratic regularisers at theta ~ U(-1, 1) and at
    d = their maximiser, against :class:`Entropy`, :class:`BinaryEntropy`, :class:`Quadratic`.
    Lipschitz in theta with constant ||d||_1 = 1, f* has condition 1: an absolute error of a few
    roundings (5e-16) times N = 12 is what a stable evaluation leaves; 1e-13 allows for the
    float theta's own rounding in the value (|theta| <= 1). The naive forms missed by 1e-16/eta."""
    N = 12
    rng = np.random.default_rng(int(nu))
    theta = rng.uniform(-1.0, 1.0, N)
    d0 = rng.dirichlet(np.ones(N)) * 0.5 + 0.5 / N  # a non-uniform prior, every entry >= 1/(2N)
    cases = [(CappedRelativeEntropy(d0, nu, eta), Entropy(d0, nu, eta))]
    if nu * d0.max() < 1.0:
        cases.append((CappedBinaryRelativeEntropy(d0, nu, eta), BinaryEntropy(d0, nu, eta)))
    center = np.full(N, 1.0 / N)
    cases.append((CappedQuadratic(center, nu, eta), Quadratic(center, nu, eta)))
    for f, exact in cases:
        value, d = f.conjugate_and_grad(theta)
        with localcontext(CONTEXT):
            reference_value = exact.conjugate(dec(theta))
            reference_f = exact.value(normalised(d))
            size = max(Decimal(1), abs(reference_f))
            assert abs(Decimal(value) - reference_value) <= Decimal("1e-13") * size, f"{f!r}: f*"
            assert abs(Decimal(f.value(d)) - reference_f) <= Decimal("1e-13") * size, f"{f!r}: f"


def test_entropy_excess_matches_60_digits():
    """``x ln(x/y) - x + y`` to a few roundings relative where x ~ y (the series), from x = y (0) to x
    far from y and x = 0."""
    from dualboost.conjugates.stable import entropy_excess

    rng = np.random.default_rng(0)
    y = rng.uniform(0.01, 1.0, 200)
    x = y * (1.0 + np.concatenate([rng.uniform(-1, 1, 50) * s for s in (1e-12, 1e-4, 0.099, 0.5)]))
    x[:3] = [0.0, y[1], 3.0 * y[2]]
    values = entropy_excess(x, y)
    with localcontext(CONTEXT):
        for a, b, v in zip(dec(x), dec(y), values, strict=True):
            exact = (a * (a / b).ln() if a > 0 else Decimal(0)) - a + b
            # 4 roundings of the result, and where the closed form cancels (|x/y - 1| > 0.1, result
            # >= 0.0048 y) one of its terms' size x + y
            bound = Decimal("4e-16") * exact + Decimal("2.3e-16") * (a + b)
            assert abs(Decimal(v) - exact) <= bound, (a, b, v)


# --- the first probe ------------------------------------------------------------------------------------
@pytest.mark.parametrize("eta", [1e-10, 1e-11, 1e-12])
def test_a_small_eta_certifies_no_value_above_the_uniform_bound(eta):
    """The first probe: U = rng(0).uniform(-1, 1, (30, 5)), nu = 3. d = uniform is feasible with KL = 0,
    so the optimum is at most ``max_q mean_n U[n, q]``; the certified dual value was 1.5e-6 (eta =
    1e-10) and 2.4e-5 (1e-11) above it with status optimal. The optimum is below the bound by
    ``(eta/2) Var`` ~ 2e-12 * eta / 1e-10, so the dual value may exceed it by rounding only."""
    U = np.random.default_rng(0).uniform(-1, 1, (30, 5))
    model = ERLPBoost(U, nu=3, eta=eta)
    solution = model.solve(method="auglag")
    assert solution.status == "optimal"
    assert solution.dual_value <= U.mean(axis=0).max() + 1e-15
    check_certificate(model, solution)


def test_the_relaxation_path_with_a_huge_entropy_weight():
    """The same through Relaxation(U, (1/eta) RelativeEntropy(), form='edge') at 1/eta = 1e11."""
    U = np.random.default_rng(0).uniform(-1, 1, (30, 5))
    model = Relaxation(U, scale(RelativeEntropy(), 1e11), form="edge")
    solution = model.solve(method="auglag")
    assert solution.status == "optimal"
    assert solution.dual_value <= U.mean(axis=0).max() + 1e-15
    check_certificate(model, solution)


@pytest.mark.parametrize("weight", [1e9, 1e11])
def test_the_relaxation_path_through_the_inner_solve_with_a_huge_entropy_weight(weight):
    """An l2 ball plus ``weight * RelativeEntropy()`` (no closed form: the exact inner solve of
    docs/math.md#exact-restriction), form 'simplex'. Its value was ``alpha sum d ln d + <linear, d>``,
    two terms of size weight * ln N: at 1e9 auglag certified a dual value 4.8e-7 above the uniform
    bound, at 3e9 to 1e11 it was inaccurate (gaps -1.9e-6 to -1.2e-4). The ball (radius 1) does not
    bind near the uniform d (norm 0.18), so the reference is the entropy's, eta = 1/weight."""
    U = np.random.default_rng(0).uniform(-1, 1, (30, 5))
    model = Relaxation(U, NormBall(p=2, radius=1.0) + weight * RelativeEntropy(), form="simplex")
    solution = model.solve(method="auglag")
    assert solution.status == "optimal"
    assert solution.dual_value <= np.abs(U.mean(axis=0)).max() + 1e-15
    f = Entropy(np.full(30, 1 / 30), 1.0, 1.0 / weight)
    with localcontext(CONTEXT):
        p_exact = max(matvec(model.U.T, normalised(solution.d))) + f.value(normalised(solution.d))
        d_exact = -f.conjugate([-m for m in matvec(model.U, normalised(solution.w))])
        widest = max(p_exact, Decimal(solution.primal_value)) - min(d_exact, Decimal(solution.dual_value))
    assert float(widest) <= solution.tol * max(1.0, abs(solution.primal_value))


# --- the fuzz -----------------------------------------------------------------------------------------
#: a log grid over [1e-12, 1e12], denser where the naive evaluation certified wrong values (1e-11 to
#: 1e-9: below, its errors were large enough to show in its own gap)
ETAS = [1e-12, 1e-10, 1e-9, 1e-6, 1.0, 1e6, 1e12]
NU_OF = {"1": lambda N: 1.0, "N/2": lambda N: N / 2, "N": float}


def fuzz(eta: float, nu_of: str, methods: tuple[str, ...], kinds: tuple[type, ...] | None = None) -> None:
    """Every eta model (of ``kinds``, all when None) on an instance with N = 12, t = 4, by each of
    ``methods`` that accepts it: :func:`check_certificate`; and the certified dual value is below
    the primal value at the uniform capped point, an upper bound on the optimum that needs no solve
    (``+inf`` for the corrective models, whose uniform point misses ``x . d = 0``)."""
    N, t = 12, 4
    nu = NU_OF[nu_of](N)
    for model in make_models(N, t, nu, eta, seed=2):
        if kinds is not None and not isinstance(model, kinds):
            continue
        bound = model.primal_objective(np.full(N, 1.0 / N))
        for method in methods:
            if accepts(model, method, "dual") is not None:
                continue
            solution = model.solve(method=method)
            check_certificate(model, solution)
            if solution.status == "optimal" and np.isfinite(bound):
                slack = solution.tol * max(1.0, abs(bound))
                assert solution.dual_value <= bound + slack, f"{model!r} by {method}"


@pytest.mark.parametrize("eta", ETAS)
@pytest.mark.parametrize("nu_of", list(NU_OF))
def test_nothing_optimal_lies_outside_its_certificate(eta, nu_of):
    """Every eta model by auglag, Clarabel and ECOS (SCS below: ~1 s a solve)."""
    fuzz(eta, nu_of, ("auglag", "clarabel", "ecos"))


@pytest.mark.parametrize("eta", [1e-12, 1.0, 1e12])
def test_nothing_optimal_by_scs_lies_outside_its_certificate(eta):
    """SCS on ERLPBoost and QRLP-Boost (the other models share their conjugates' code) at nu = N/2."""
    fuzz(eta, "N/2", ("scs",), kinds=(ERLPBoost, QRLPBoost))
