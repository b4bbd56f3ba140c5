"""The solver contract (:mod:`dualboost.solvers.contract`) and the method registry.

* every model family implements the Protocols its methods need, and each method's ``accepts`` says
  which (family, method, side) it solves: the table below, written out by hand from the models'
  mathematics (an LP for HiGHS; a differentiable dual on a known w-domain for auglag; every model in
  memory for cvxpy), not computed from the code under test;
* the ten-line toy model of docs/architecture.md is solved by auglag, and agrees with the same
  problem built independently (ERLPBoost at nu = 1, where the cap 1/nu = 1 is vacuous) and with
  Clarabel; with a regulariser that has no curvature in the library, auglag refuses with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost import problems
from dualboost.conjugates import CappedRelativeEntropy, RelativeEntropy
from dualboost.problems.max_edge import MaxEdgeModel
from dualboost.solvers import METHODS, REGISTRY, SIDES, accepts
from dualboost.solvers.contract import (
    Certifiable,
    CvxpyForms,
    LinearProgram,
    SmoothDual,
    WDomain,
)


# the capabilities of SmoothDual (formerly the Protocols MaxEdgeDual, LineDual, EtaFamily): a smooth
# dual on the simplex with the max-edge members, on the line, in an eta family
def MaxEdgeDual(model) -> bool:  # noqa: N802 (named as the Protocol it replaces)
    return isinstance(model, SmoothDual) and model.w_domain is WDomain.SIMPLEX


def LineDual(model) -> bool:  # noqa: N802
    return isinstance(model, SmoothDual) and model.w_domain is WDomain.LINE


def EtaFamily(model) -> bool:  # noqa: N802
    return isinstance(model, SmoothDual) and model.eta_family

U = np.random.default_rng(1).uniform(-1, 1, size=(30, 8))
W_PREV = np.full(7, 1 / 7)
MODELS = {
    "lpboost": lambda: problems.LPBoost(U, nu=3),
    "softboost": lambda: problems.SoftBoost(U, nu=3, gamma_hat=0.5, eps=0.01),
    "erlpboost": lambda: problems.ERLPBoost(U, nu=3, eta=20),
    "binary_erlpboost": lambda: problems.BinaryERLPBoost(U, nu=3, eta=20),
    "corrective_erlpboost": lambda: problems.CorrectiveERLPBoost(U, W_PREV, nu=3, eta=20),
    "corrective_binary_erlpboost": lambda: problems.CorrectiveBinaryERLPBoost(U, W_PREV, nu=3, eta=20),
}
#: the methods that solve each family's dual side; the primal side: the same minus auglag
CVXPY = {"clarabel", "ecos", "scs"}
DUAL_METHODS = {
    "lpboost": CVXPY | {"highs"},
    "softboost": CVXPY | {"auglag"},
    "erlpboost": CVXPY | {"auglag"},
    "binary_erlpboost": CVXPY | {"auglag"},
    "corrective_erlpboost": CVXPY | {"auglag"},
    "corrective_binary_erlpboost": CVXPY | {"auglag"},
}
#: the Protocols each family implements beyond Certifiable and CvxpyForms
PROTOCOLS = {
    "lpboost": {LinearProgram},
    "softboost": {SmoothDual},
    "erlpboost": {SmoothDual, MaxEdgeDual, EtaFamily},
    "binary_erlpboost": {SmoothDual, MaxEdgeDual, EtaFamily},
    "corrective_erlpboost": {SmoothDual, LineDual},
    "corrective_binary_erlpboost": {SmoothDual, LineDual},
}


@pytest.mark.parametrize("family", MODELS)
def test_each_method_accepts_what_the_mathematics_allows(family):
    model = MODELS[family]()
    for side in SIDES:
        expected = DUAL_METHODS[family] - ({"auglag"} if side == "primal" else set())
        assert {m for m in METHODS if accepts(model, m, side) is None} == expected
        for method in set(METHODS) - expected:  # a refusal names the method that applies
            reason = accepts(model, method, side)
            assert reason and ("use" in reason)
    assert isinstance(model, Certifiable) and isinstance(model, CvxpyForms)
    for protocol in PROTOCOLS[family]:
        capability = protocol in (MaxEdgeDual, LineDual, EtaFamily)
        holds = protocol(model) if capability else isinstance(model, protocol)
        assert holds, protocol.__name__
    assert model.smooth_dual == (family != "lpboost")  # LPBoost's dual is piecewise linear


def test_the_registry_is_the_methods_and_a_refusal_is_the_error():
    assert set(REGISTRY) == set(METHODS) == CVXPY | {"auglag", "highs"}
    model = MODELS["lpboost"]()
    reason = accepts(model, "auglag", "dual")
    with pytest.raises(ValueError) as raised:
        model.solve(method="auglag")
    assert str(raised.value) == reason
    assert WDomain.SIMPLEX == "simplex" and str(WDomain.ORTHANT) == "orthant"


class SmoothHardMargin(MaxEdgeModel):
    """The toy model of docs/architecture.md: min_d max_q (U^T d)_q + (1/eta) KL(d, uniform)."""

    name = "smooth_hard_margin"

    def __init__(self, U, eta, regularizer=None):
        super().__init__(U)
        uniform = np.full(self.n_samples, 1.0 / self.n_samples)
        self.eta = eta
        self.regularizer = regularizer or CappedRelativeEntropy(uniform, nu=1.0, eta=eta)

    def parameters(self):
        return {"eta": self.eta}


def test_a_new_model_with_a_smooth_regulariser_is_solved_by_auglag():
    A = np.random.default_rng(0).choice([-1.0, 1.0], size=(200, 30))
    toy = SmoothHardMargin(A, eta=20.0)
    assert accepts(toy, "auglag", "dual") is None and MaxEdgeDual(toy)
    fast = toy.solve(method="auglag")
    same = problems.ERLPBoost(A, nu=1.0, eta=20.0).solve(method="clarabel")  # the same problem
    reference = toy.solve(method="clarabel")
    assert fast.optimal and reference.optimal
    # certified to tol = 1e-6 (relative gap): both values lie within 1e-6 of the optimum
    assert abs(fast.dual_value - same.primal_value) <= 2e-6
    assert abs(fast.dual_value - reference.dual_value) <= 2e-6
    # a warm start after a new column keeps the curvature as for the built-ins
    grown = SmoothHardMargin(np.column_stack([A, -A[:, 0]]), eta=20.0)
    warm = grown.solve(method="auglag", warm_start=fast)
    assert warm.optimal and warm.solver_state is not None


def test_a_regulariser_without_curvature_is_refused_with_the_reason():
    A = np.random.default_rng(0).choice([-1.0, 1.0], size=(50, 6))
    scaled = (1 / 20.0) * RelativeEntropy(np.full(50, 1 / 50))
    toy = SmoothHardMargin(A, eta=20.0, regularizer=scaled)
    assert not toy.smooth_dual
    with pytest.raises(ValueError, match=r"needs a differentiable dual.*use a cvxpy method"):
        toy.solve(method="auglag")
    assert toy.solve(method="clarabel").optimal  # what applies does


def test_a_relaxation_declares_what_its_form_and_regulariser_give():
    """[SS] relaxations: auglag applies to a strictly convex f~ only (the abs form through its simplex
    form); none is an eta
    family (no eta continuation: ``Relaxation(A, f, form)`` has no eta to vary)."""
    from dualboost.problems.relaxation_report import builtin_relaxation

    for name, form, smooth in [
        ("entropy", "simplex", True),
        ("linf-ball+entropy", "simplex", True),
        ("entropy", "abs", True),  # the l1-ball w-domain, through its simplex form
        ("l2-ball+entropy", "simplex", True),  # the exact inner solve (conjugates.smooth_restriction)
        ("l1-ball", "simplex", False),  # an LP in disguise: no entropy
    ]:
        rel = builtin_relaxation(name, form=form)
        assert (accepts(rel, "auglag", "dual") is None) == smooth, (name, form)
        assert rel.w_domain == (WDomain.SIMPLEX if form == "simplex" else WDomain.L1_BALL)
        assert not EtaFamily(rel) and accepts(rel, "clarabel", "dual") is None
