"""Relaxation: input validation, Thm 7's conditions, the derived f~ and the model contract ([SS] Sec 4.2,
model M3).

The contract is that of every model (docs/architecture.md#the-solver-contract): both sides solve to a
certified Solution, the forms "abs" and "simplex" agree (docs/math.md#signed-weights), weak duality
holds on random feasible pairs, the maps d_from_w / w_from_d close the gap, and the repair moves
solver output into the domain.
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost import conjugates as cj
from dualboost.instances import random_edge_matrix
from dualboost.problems import Relaxation, theorem7_conditions

N, n = 20, 26
A = random_edge_matrix(N, n, seed=2)
UNIFORM = np.full(N, 1.0 / N)
PRIOR = np.random.default_rng(4).dirichlet(np.full(N, 4.0))


def regularisers():
    """Named regularisers covering every route: Lemma 8, closed forms, infimal convolutions."""
    return {
        "linf-ball": cj.NormBall(p=np.inf, radius=0.15),
        "l2-ball": cj.NormBall(p=2, radius=1.2 / np.sqrt(N)),
        "norm-penalty": cj.Norm(p=2, radius=0.5),
        "half-squared": 0.2 * cj.HalfSquaredNorm(2),
        "entropy": 0.05 * cj.RelativeEntropy(PRIOR),
        "capped-entropy": cj.NormBall(p=np.inf, radius=0.15) + 0.05 * cj.RelativeEntropy(UNIFORM),
        "l2-ball+entropy": cj.NormBall(p=2, radius=1.2 / np.sqrt(N)) + 0.05 * cj.RelativeEntropy(PRIOR),
        "ball-around-prior": cj.NormBall(p=2, radius=0.5 / np.sqrt(N)).shifted(-PRIOR),
    }


REGS = regularisers()


# --- validation --------------------------------------------------------------------------------
def with_entry(value):
    bad = A.copy()
    bad[3, 4] = value
    return bad


@pytest.mark.parametrize(
    "bad, match",
    [
        (with_entry(np.nan), "A must be finite"),
        (with_entry(np.inf), "A must be finite"),
        (with_entry(1.5), r"A must lie in \[-1, 1\]"),
        (with_entry(-1.2), r"A must lie in \[-1, 1\]"),
        (np.zeros((0, 3)), "A has no rows"),
        (np.zeros((N, 0)), "A has no columns"),
        (np.zeros((N, 3, 2)), "A must be 2-D"),
        ("abc", "A must be a numeric"),
    ],
)
def test_bad_A_is_a_value_error_naming_A(bad, match):
    with pytest.raises(ValueError, match=match):
        Relaxation(bad, cj.NormBall(p=np.inf, radius=0.5))


@pytest.mark.parametrize("bad", [None, 1.0, np.ones(N), lambda d: d.sum(), "l2"])
def test_f_must_be_a_convex_function(bad):
    with pytest.raises(ValueError, match="f must be a ConvexFunction"):
        Relaxation(A, bad)


def test_f_of_the_wrong_dimension():
    with pytest.raises(ValueError, match=f"f has dimension {N + 1}, but A has N = {N} rows"):
        Relaxation(A, cj.RelativeEntropy(np.full(N + 1, 1.0 / (N + 1))))


@pytest.mark.parametrize("form", ["l1", "", None, 3, "ABS"])
def test_bad_form(form):
    with pytest.raises(ValueError, match="form must be one of 'abs', 'simplex', 'edge'"):
        Relaxation(A, cj.NormBall(p=2, radius=0.5), form=form)


@pytest.mark.parametrize(
    "f, match",
    [
        (cj.NormBall(p=np.inf, radius=0.5 / N), "f: .*dom f does not meet the simplex"),  # Lemma 8 route
        (cj.NormBall(p=2, radius=0.5 / np.sqrt(N)), "f: .*dom f does not meet the simplex"),
        (cj.NormBall(p=np.inf, radius=0.5 / N) + 0.1 * cj.RelativeEntropy(UNIFORM), "l_inf ball .* not meet"),
        (cj.NormBall(p=1, radius=0.5) + 0.1 * cj.RelativeEntropy(UNIFORM), "l1 ball .* does not meet"),
    ],
)
def test_balls_that_miss_the_simplex(f, match):
    with pytest.raises(ValueError, match=match):
        Relaxation(A, f)


@pytest.mark.parametrize("beta", [0.0, -1.0, np.nan])
def test_bad_smoothing(beta):
    with pytest.raises(ValueError, match="beta"):
        Relaxation(A, REGS["l2-ball"]).smoothed(beta)


# --- Thm 7's conditions ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, expected",
    [
        ("linf-ball", (True, True, True)),  # Example 1
        ("l2-ball", (True, True, True)),
        ("norm-penalty", (True, True, True)),  # Example 2
        ("half-squared", (True, True, True)),
        ("entropy", (False, False, False)),  # min = -1/e scaled, dom = orthant, f* grows towards 0
        ("capped-entropy", (False, False, False)),
        ("ball-around-prior", (True, False, False)),  # 0 is outside the ball; f* has the tilt <theta, d0>
    ],
)
def test_theorem7_conditions(name, expected):
    conditions = theorem7_conditions(REGS[name], N)
    assert conditions.values == expected
    assert conditions.hold == all(expected)
    assert len(conditions.failing()) == expected.count(False)
    for line in conditions.failing():
        assert line.split()[0] in ("(i)", "(ii)", "(iii)") and len(line) > 10  # says why


def test_conditions_of_the_capped_simplex_and_the_unnormalised_entropy():
    capped = theorem7_conditions(cj.CappedSimplex(4.0), N).values
    assert capped == (True, False, False)  # f*(0) = 0, but dom f is in the simplex
    unnormalised = theorem7_conditions(cj.UnnormalisedRelativeEntropy(UNIFORM), N).values
    assert unnormalised == (True, False, False)  # min Delta_U = 0 at d0


def test_quick_check_stops_at_the_first_failure():
    quick = theorem7_conditions(REGS["entropy"], N, full=False)
    assert quick.values == (None, False, None) and not quick.hold
    assert "not checked" in str(quick)


def test_dual_form_follows_the_conditions():
    for name, f in REGS.items():
        rel = Relaxation(A, f)
        assert rel.dual_form == ("theorem7" if rel.conditions.hold else "general"), name
        assert (rel.dual_form == "theorem7") == isinstance(rel.regularizer, cj.SimplexRestriction)


def test_derived_regularisers_use_closed_forms():
    assert isinstance(Relaxation(A, REGS["entropy"]).regularizer, cj.CappedRelativeEntropy)
    capped = Relaxation(A, REGS["capped-entropy"]).regularizer
    assert isinstance(capped, cj.CappedRelativeEntropy) and capped.nu == pytest.approx(1 / 0.15)
    mixed = Relaxation(A, REGS["l2-ball+entropy"]).regularizer
    assert isinstance(mixed, cj.Sum)  # the l2 ball stays an infimal convolution
    smoothed = Relaxation(A, REGS["l2-ball+entropy"]).smoothed(0.01).regularizer
    assert isinstance(smoothed, cj.Sum) and len(smoothed.__repr__().split("RelativeEntropy")) == 2  # merged
    assert isinstance(Relaxation(A, REGS["ball-around-prior"]).regularizer, cj.Sum)


# --- the contract --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(REGS))
def test_both_sides_certified_and_forms_agree(name):
    values = []
    for form in ("abs", "simplex"):
        rel = Relaxation(A, REGS[name], form=form)
        for method, side in (("clarabel", "primal"), ("ecos", "dual")):
            sol = rel.solve(method=method, side=side, tol=1e-8)
            assert sol.optimal, (form, method, side, sol)
            assert sol.d.min() >= 0 and abs(sol.d.sum() - 1) < 1e-12
            if form == "abs":
                assert np.abs(sol.w).sum() <= 1 + 1e-12
            else:
                assert sol.w.min() >= 0 and abs(sol.w.sum() - 1) < 1e-12 and sol.w.size == 2 * n
            values.append(sol.primal_value)
            mapped = rel.d_from_w(sol.w)
            if rel.d_is_unique:
                np.testing.assert_allclose(mapped, sol.d, atol=1e-5)
            else:
                assert rel.primal_objective(mapped) == pytest.approx(sol.dual_value, abs=1e-7)
            assert rel.dual_objective(rel.w_from_d(sol.d)) == pytest.approx(sol.primal_value, abs=1e-6)
    assert max(values) - min(values) <= 1e-7


@pytest.mark.parametrize("name", ["linf-ball", "l2-ball", "entropy", "l2-ball+entropy"])
def test_weak_duality_on_random_feasible_pairs(name):
    rel = Relaxation(A, REGS[name])
    rng = np.random.default_rng(0)
    for _ in range(15):
        w = rng.standard_normal(n)
        w *= rng.uniform() / np.abs(w).sum()
        d = rel.regularizer.conjugate_grad(-(A @ rng.standard_normal(n)) / n)  # a point of dom f~
        assert rel.dual_objective(w) <= rel.primal_objective(d) + 1e-9


def test_infeasible_points():
    rel = Relaxation(A, REGS["l2-ball"])
    assert rel.dual_objective(np.full(n, 2.0 / n)) == -np.inf  # ||w||_1 = 2
    assert rel.primal_objective(np.eye(N)[0]) == np.inf  # a vertex is outside the l2 ball
    simplex = Relaxation(A, REGS["l2-ball"], form="simplex")
    assert simplex.dual_objective(np.full(2 * n, 0.4 / n)) == -np.inf  # sum w = 0.8


def test_repair_moves_into_the_domain():
    rel = Relaxation(A, REGS["l2-ball"])
    vertex = np.eye(N)[0]
    fixed, moved = rel.repair_primal(vertex)
    assert np.isfinite(rel.primal_objective(fixed)) and moved > 0.1
    assert np.linalg.norm(fixed) <= 1.2 / np.sqrt(N) + 1e-12
    w, moved = rel.repair_dual(np.full(n, 1.0 / n) * 1.5)
    assert np.abs(w).sum() == pytest.approx(1.0) and moved > 0
    inside = rel.d_from_w(np.zeros(n))
    assert rel.repair_primal(inside)[1] <= 1e-12


def test_fenchel_young_at_the_map_for_every_regulariser():
    rng = np.random.default_rng(5)
    for name, f in REGS.items():
        rel = Relaxation(A, f)
        for _ in range(3):
            theta = -(A @ (rng.standard_normal(n) / n))
            d = rel.regularizer.conjugate_grad(theta)
            assert rel.regularizer.fenchel_young_gap(d, theta) == pytest.approx(0.0, abs=1e-7), name


def test_smoothed_is_eq8():
    rel = Relaxation(A, REGS["linf-ball"])
    beta = 0.03
    smoothed = rel.smoothed(beta)
    d = smoothed.d_from_w(np.zeros(n))
    h = float(np.sum(d * np.log(d))) + np.log(N)
    assert smoothed.primal_objective(d) == pytest.approx(rel.primal_objective(d) + beta * h, abs=1e-12)
    # Lemma 19 / Eq. 7: D^(w) - beta log N <= D(w) <= D^(w) (F^ = f~ + beta h >= f~ on the simplex)
    rng = np.random.default_rng(1)
    for _ in range(5):
        w = rng.standard_normal(n)
        w /= 2 * np.abs(w).sum()
        gap = smoothed.dual_objective(w) - rel.dual_objective(w)
        assert -1e-9 <= gap <= beta * np.log(N) + 1e-9


def test_describe_and_repr():
    rel = Relaxation(A, REGS["l2-ball"])
    assert rel.describe() == {"N": N, "n": n}
    assert "NormBall" in repr(rel) and "abs" in repr(rel)
    assert Relaxation(A, REGS["l2-ball"], form="simplex").n_hypotheses == 2 * n
