"""The geometry of the MABoost family ([NP] Lemmas 1-4, Algs. 1-3): Bregman identities, the
projections' optimality conditions (closed-form KKT and cvxpy), the double projection of Lemma 4,
SparseBoost's prox, and MadaBoost's conjugate pair, against independent computations."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from scipy.special import kl_div

from dualboost.boosting.maboost.geometry import (
    Entropy,
    Euclidean,
    LibraryRegulariser,
    ProjectionSet,
    entropic_project_hypercube,
    make_regulariser,
    sparse_prox_hypercube,
)
from dualboost.conjugates import (
    CappedRelativeEntropy,
    HalfSquaredNorm,
    MadaBoostLoss,
    NormBall,
    RelativeEntropy,
    UnnormalisedRelativeEntropy,
    project_simplex,
)

RNG_SEEDS = range(6)


def _regions(n: int, rng: np.random.Generator) -> list[ProjectionSet]:
    """S, S_k (k = N/nu) and S_c with a random secondary set."""
    secondary = rng.random(n) < 0.5
    secondary[0], secondary[1] = True, False
    return [
        ProjectionSet(n),
        ProjectionSet(n, nu=float(rng.uniform(1.5, n / 2))),
        ProjectionSet(n, nu=float(rng.uniform(1.5, n)), secondary=secondary),
    ]


def _random_point(region: ProjectionSet, rng: np.random.Generator) -> np.ndarray:
    """A point of D: a Dirichlet sample pushed into D by the Euclidean projection."""
    return Euclidean().project(rng.dirichlet(np.ones(region.n)) * rng.uniform(0.5, 2.0), region)


def _cvxpy_projection(regulariser, z: np.ndarray, region: ProjectionSet) -> np.ndarray:
    """``argmin_{d in D} B_R(d, z)`` by a conic solver (the independent check of the projections)."""
    d = cp.Variable(z.size)
    if isinstance(regulariser, Entropy):
        objective = cp.sum(cp.kl_div(d, z))
    else:
        objective = 0.5 * cp.sum_squares(d - z)
    caps = region.caps()
    constraints = [cp.sum(d) == 1, d >= 0]
    finite = np.isfinite(caps)
    if finite.any():
        constraints.append(d[np.flatnonzero(finite)] <= caps[finite])
    cp.Problem(cp.Minimize(objective), constraints).solve(solver=cp.CLARABEL)
    return np.asarray(d.value)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_entropic_projections_satisfy_kkt(seed):
    """Entropic S: d ∝ z; S_k: d = min(cap, c z); S_c: c z on A and min(cap, c z) on B (one c)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    theta = rng.normal(scale=3.0, size=n)
    z = np.exp(theta)
    for region in _regions(n, rng):
        d = Entropy().project(theta, region)
        assert region.contains(d, 1e-12)
        caps = region.caps()
        free = d < caps * (1 - 1e-12)
        c = d[free] / z[free]
        np.testing.assert_allclose(c, c[0], rtol=1e-10)  # a single scalar c on the free entries
        # capped entries would exceed the cap when scaled by c: min(cap, c z) = cap there
        assert np.all(c[0] * z[~free] >= caps[~free] * (1 - 1e-10))
        np.testing.assert_allclose(d, np.minimum(caps, c[0] * z), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_euclidean_projections_satisfy_kkt(seed):
    """Euclidean S, S_k, S_c: ``d = clip(z - tau, 0, cap_n)`` with a single tau."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    z = rng.normal(scale=0.3, size=n)
    for region in _regions(n, rng):
        d = Euclidean().project(z, region)
        assert region.contains(d, 1e-12)
        caps = region.caps()
        free = (d > 0) & (d < caps)
        assert free.any()
        tau = z[free] - d[free]
        np.testing.assert_allclose(tau, tau[0], atol=1e-12)
        np.testing.assert_allclose(d, np.clip(z - tau[0], 0.0, caps), atol=1e-12)


@pytest.mark.parametrize("regulariser", [Entropy(), Euclidean()], ids=["entropy", "euclidean"])
def test_projections_match_a_conic_solver(regulariser):
    """Every projection agrees with Clarabel's (~1e-6 for the quadratic cone; the
    exponential cone is solved to ~1e-5 only, so there ours must also have the lower objective)."""
    rng = np.random.default_rng(7)
    n = 14
    theta = rng.normal(scale=1.5, size=n)
    z = np.exp(theta) if isinstance(regulariser, Entropy) else theta
    for region in _regions(n, rng):
        ours = regulariser.project(theta, region)
        conic = _cvxpy_projection(regulariser, z, region)
        tol = 5e-5 if isinstance(regulariser, Entropy) else 2e-6
        np.testing.assert_allclose(ours, conic, atol=tol)
        conic = np.clip(conic, 0.0, region.caps())
        conic /= conic.sum()
        assert regulariser.divergence(ours, z) <= regulariser.divergence(conic, z) + 1e-12


def _pythagorean_cases(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 30))
    for regulariser in (Entropy(), Euclidean()):
        for region in _regions(n, rng):
            theta = rng.normal(scale=2.0, size=n)
            y = np.exp(theta) if isinstance(regulariser, Entropy) else theta  # grad R*(theta)
            yield regulariser, region, theta, y, _random_point(region, rng)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_generalised_pythagorean_theorem(seed):
    """Lemma 1: ``B(x, y) >= B(x, y^) + B(y^, y) >= B(x, y^)`` for x in D, y^ the projection of y."""
    for regulariser, region, theta, y, x in _pythagorean_cases(seed):
        y_hat = regulariser.project(theta, region)
        B = regulariser.divergence
        assert B(x, y) >= B(x, y_hat) + B(y_hat, y) - 1e-10 * max(1.0, B(x, y))
        assert B(x, y_hat) <= B(x, y) + 1e-12


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_three_point_identity(seed):
    """Lemma 2: ``(x - y)^T (grad R(z) - grad R(y)) = B(x, y) - B(x, z) + B(y, z)``."""
    rng = np.random.default_rng(seed)
    n = 9
    for regulariser in (Entropy(), Euclidean()):
        x, y, z = (rng.uniform(0.05, 2.0, size=n) for _ in range(3))
        B = regulariser.divergence
        left = (x - y) @ (regulariser.mirror(z) - regulariser.mirror(y))
        assert left == pytest.approx(B(x, y) - B(x, z) + B(y, z), abs=1e-12)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_double_projection_lemma_4(seed):
    """Lemma 4: ``B(x, y) >= B(x, Pi_S(Pi_K(y)))`` for x in S, K the unit hypercube, both R."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 30))
    simplex = ProjectionSet(n)
    x = rng.dirichlet(np.ones(n))
    theta = rng.normal(scale=2.0, size=n) + rng.choice([-2.0, 0.0, 2.0])
    # entropy: Pi_K is min(1, z) (generalised KL), then normalisation
    y = np.exp(theta)
    k_point = entropic_project_hypercube(theta)
    np.testing.assert_allclose(k_point, np.minimum(1.0, y))
    B = Entropy().divergence
    assert B(x, y) >= B(x, Entropy().project(np.log(k_point), simplex)) - 1e-12
    # Euclidean: Pi_K is clip(z, 0, 1) (the prox with threshold 0), then the simplex projection
    z = theta / 3.0
    B = Euclidean().divergence
    assert B(x, z) >= B(x, project_simplex(sparse_prox_hypercube(z, 0.0))) - 1e-12


def test_hypercube_projection_is_the_generalised_kl_minimiser():
    """docs/math.md#madaboost-variant: ``argmin_{y in [0,1]^N} KL_gen(y || z) = min(1, z)``: the
    problem is separable, so each coordinate is checked against a fine grid of [0, 1] (a conic
    solver only reaches ~1e-5 here)."""
    z = np.array([0.2, 0.9, 1.0, 3.0, 40.0])
    y = entropic_project_hypercube(np.log(z))
    grid = np.linspace(0.0, 1.0, 100001)
    for yi, zi in zip(y, z, strict=True):
        assert kl_div(yi, zi) <= kl_div(grid, zi).min() + 1e-12
        assert abs(yi - grid[np.argmin(kl_div(grid, zi))]) <= 1e-5


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_sparseboost_prox_minimises_its_objective(seed):
    """Alg. 2's first projection: ``clip(z - c/2, 0, 1)`` minimises ``||y - z||^2 + c ||y||_1`` on K
    (coordinate-wise, against a fine grid), and ``clip(z - c, 0, 1)`` its (1/2)-convention."""
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=0.8, size=20)
    c = float(rng.uniform(0.0, 0.5))
    grid = np.linspace(0.0, 1.0, 200001)
    literal = sparse_prox_hypercube(z, c / 2)
    half = sparse_prox_hypercube(z, c)
    for zi, yi, hi in zip(z, literal, half, strict=True):
        objective = (grid - zi) ** 2 + c * grid
        assert (yi - zi) ** 2 + c * yi <= objective.min() + 1e-12
        objective_half = 0.5 * (grid - zi) ** 2 + c * grid
        assert 0.5 * (hi - zi) ** 2 + c * hi <= objective_half.min() + 1e-12


def test_simplex_projection_after_the_prox_adds_no_nonzero_when_mass_exceeds_one():
    """SparseBoost's second projection ([NP] Alg. 2), corrected: when ``sum y >= 1`` the simplex
    projection shifts down (tau >= 0), so ``nnz(Pi_S(y)) <= nnz(y)``; when ``sum y < 1`` it shifts
    every entry up and zeros disappear (the paper's "can only make the solution sparser" needs sum y
    >= 1)."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        y = sparse_prox_hypercube(rng.normal(scale=0.4, size=15), 0.1)
        d = project_simplex(y)
        if y.sum() >= 1.0:
            assert np.count_nonzero(d) <= np.count_nonzero(y)
    y = np.array([0.0, 0.3, 0.2])  # sum 0.5 < 1: the zero becomes positive
    assert np.count_nonzero(project_simplex(y)) == 3


def test_madaboost_weighting_is_the_gradient_of_the_box_restricted_entropy_conjugate():
    """docs/math.md#conjugate-table (cube row), docs/math.md#madaboost-variant: for
    ``F = sum (y ln y - y + 1) + I_{[0,1]^N}`` (built by the conjugate calculus, solved numerically)
    ``grad F* = min(1, e^theta)`` and ``F*(theta) = sum (psi(theta) - 1)``, with
    ``sum psi(theta) = MadaBoostLoss(-theta)`` (the library's closed form)."""
    rng = np.random.default_rng(0)
    theta = rng.normal(scale=1.5, size=12)
    box_entropy = UnnormalisedRelativeEntropy(np.ones(theta.size)) + NormBall(np.inf, 1.0)
    np.testing.assert_allclose(
        box_entropy.conjugate_grad(theta), entropic_project_hypercube(theta), atol=1e-5
    )
    expected = MadaBoostLoss().value(-theta) - theta.size
    assert box_entropy.conjugate(theta) == pytest.approx(expected, abs=1e-7)
    y = entropic_project_hypercube(theta)  # Fenchel-Young equality at the maximiser
    assert float(kl_div(y, 1.0).sum()) + expected - y @ theta == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_ftrl_value_is_the_conjugate_of_the_restricted_divergence(seed):
    """docs/math.md#lamaboost: ``min_{d in D} <d, m> + B_R(d, uniform) = -F*(-m)``: the entropy's
    closed forms on S (log-mean-exp) and S_k (the library's capped log-sum-exp) agree with the value
    at the projection, and the Euclidean one with a conic solve."""
    rng = np.random.default_rng(seed)
    n = 16
    m = rng.normal(scale=2.0, size=n)
    u = np.full(n, 1.0 / n)
    for region in _regions(n, rng)[:2]:
        d = Entropy().project(-m, region)
        assert Entropy().ftrl_value(m, region) == pytest.approx(d @ m + Entropy().divergence(d, u), abs=1e-12)
    capped = ProjectionSet(n, nu=4.0)
    f = CappedRelativeEntropy(u, nu=4.0)
    assert Entropy().ftrl_value(m, capped) == pytest.approx(-f.conjugate(-m), abs=1e-12)
    d = cp.Variable(n)
    problem = cp.Problem(
        cp.Minimize(d @ m + 0.5 * cp.sum_squares(d - u)), [cp.sum(d) == 1, d >= 0, d <= 0.25]
    )
    problem.solve(solver=cp.CLARABEL)
    assert Euclidean().ftrl_value(m, capped) == pytest.approx(problem.value, abs=1e-6)


def test_library_regulariser_reproduces_the_euclidean_geometry():
    """Any conjugate-library R: ``(1/2)||d||^2 + <a, d>`` has the Euclidean Bregman divergence, so its
    mirror map is ``d + a`` and its projections are the Euclidean ones of ``theta - a``."""
    rng = np.random.default_rng(1)
    n = 10
    a = rng.normal(size=n)
    R = LibraryRegulariser(HalfSquaredNorm(2).tilted(a), n)
    d = rng.dirichlet(np.ones(n))
    np.testing.assert_allclose(R.mirror(d), d + a, atol=1e-6)
    theta = rng.normal(size=n)
    for region in (ProjectionSet(n), ProjectionSet(n, nu=3.0)):
        np.testing.assert_allclose(
            R.project(theta, region), Euclidean().project(theta - a, region), atol=1e-6
        )
    assert R.divergence(d, np.full(n, 0.1)) == pytest.approx(
        Euclidean().divergence(d, np.full(n, 0.1)), abs=1e-6
    )


def test_make_regulariser_maps_library_entries():
    assert isinstance(make_regulariser(RelativeEntropy()), Entropy)
    assert isinstance(make_regulariser(UnnormalisedRelativeEntropy(np.full(3, 0.5))), Entropy)
    assert isinstance(make_regulariser(HalfSquaredNorm(2)), Euclidean)
    assert isinstance(make_regulariser("quadratic"), Euclidean)
    with pytest.raises(ValueError, match="regulariser"):
        make_regulariser("l3")
    with pytest.raises(ValueError, match="L "):
        make_regulariser(HalfSquaredNorm(2).tilted(np.ones(3)))
    with pytest.raises(ValueError, match="differentiable conjugate"):
        make_regulariser(NormBall(np.inf, 1.0), 1.0)
    with pytest.raises(ValueError, match="L must be > 0"):
        make_regulariser(HalfSquaredNorm(2).tilted(np.ones(3)), -1.0)


def test_projection_set_validation():
    with pytest.raises(ValueError, match="nu"):
        ProjectionSet(10, nu=0.5)
    with pytest.raises(ValueError, match="nu"):
        ProjectionSet(10, nu=11.0)
    with pytest.raises(ValueError, match="secondary"):
        ProjectionSet(10, nu=2.0, secondary=np.ones(9, dtype=bool))
    with pytest.raises(ValueError, match="secondary"):
        ProjectionSet(10, nu=2.0, secondary=np.zeros(10, dtype=bool))
    with pytest.raises(ValueError, match="secondary"):
        ProjectionSet(10, nu=2.0, secondary=np.ones(10))
    with pytest.raises(ValueError, match="nu"):
        ProjectionSet(10, nu=float("nan"), secondary=np.ones(10, dtype=bool))
    assert ProjectionSet(10, nu=2.0, secondary=np.ones(10, dtype=bool)).kind == "capped"
    assert ProjectionSet(10, nu=1.0, secondary=np.arange(10) < 3).kind == "simplex"
