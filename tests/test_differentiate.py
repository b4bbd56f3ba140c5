"""Derivatives of a certified solve (dualboost.differentiate, docs/differentiation.md).

Independent computation: central finite differences of certified solves (tol 1e-13) in every
parameter; the VJP against the JVP by the adjoint identity; constructed breakpoints for the errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.differentiate import differentiate
from dualboost.problems import ERLPBoost, LPBoost, TemperedERLPBoost

#: central differences with step H of solves certified to 1e-13: truncation O(H^2) ~ 1e-10 times the
#: third derivative, rounding 1e-13 / H = 1e-8; measured errors 1e-10 to 5e-8 (benchmarks/results/
#: derivatives.txt), so 1e-6 relative catches a wrong term (errors of order one) with room
H = 1e-5
FD_TOL = 1e-6


def _instance(seed, n=30, m=6):
    rng = np.random.default_rng(seed)
    U = 0.8 * np.tanh(rng.standard_normal((n, m)))  # inside (-1, 1): U +- H dU stays valid
    d0 = rng.random(n) + 0.5
    return U, d0 / d0.sum(), rng


def _solve(cls, U, eta, nu, d0, **kw):
    model = cls(U, nu=nu, eta=eta, d0=d0, **kw)
    return model, model.solve("auglag", tol=1e-13)


def _rel(a, b):
    """The error relative to the finite difference, absolute where that is below 1 (a derivative that
    is 0, e.g. in nu without binding caps)."""
    return float(np.linalg.norm(np.atleast_1d(a - b)) / max(np.linalg.norm(np.atleast_1d(b)), 1.0))


CASES = [
    (ERLPBoost, {}, 30.0, 5.0),  # eta large enough that caps bind
    (TemperedERLPBoost, {"t": 0.5}, 4.0, 5.0),  # caps and exact zeros
    (TemperedERLPBoost, {"t": 1.5}, 6.0, 3.0),
]


@pytest.mark.parametrize(("cls", "kw", "eta", "nu"), CASES)
def test_jvp_matches_central_differences(cls, kw, eta, nu):
    U, d0, rng = _instance(3)
    model, sol = _solve(cls, U, eta, nu, d0, **kw)
    D = differentiate(model, sol)
    assert D.support.size >= 2
    if cls is ERLPBoost:
        assert D.capped.size > 0  # the nu terms are exercised
    dU = rng.standard_normal(U.shape)
    g = rng.standard_normal(U.shape[0])
    dd0 = d0 * (g - g @ d0)  # relative to d0 (entries of size 1/N), on the simplex
    directions = {"U": {"dU": dU}, "eta": {"deta": 1.0}, "nu": {"dnu": 1.0}, "d0": {"dd0": dd0}}
    for name, direction in directions.items():
        def at(sign, name=name):
            return _solve(
                cls,
                U + sign * H * dU if name == "U" else U,
                eta + sign * H * (name == "eta"),
                nu + sign * H * (name == "nu"),
                d0 + sign * H * dd0 * (name == "d0"),
                **kw,
            )[1]

        plus, minus = at(1.0), at(-1.0)
        dw, dd, dv = D.jvp(**direction)
        assert _rel(dw, (plus.w - minus.w) / (2 * H)) <= FD_TOL, name
        assert _rel(dd, (plus.d - minus.d) / (2 * H)) <= FD_TOL, name
        assert _rel(dv, (plus.dual_value - minus.dual_value) / (2 * H)) <= FD_TOL, name


@pytest.mark.parametrize(("cls", "kw", "eta", "nu"), CASES)
def test_vjp_is_the_adjoint_of_the_jvp(cls, kw, eta, nu):
    U, d0, rng = _instance(4)
    model, sol = _solve(cls, U, eta, nu, d0, **kw)
    D = differentiate(model, sol)
    gw, gd, gv = rng.standard_normal(U.shape[1]), rng.standard_normal(U.shape[0]), 0.7
    dU, dd0 = rng.standard_normal(U.shape), rng.standard_normal(U.shape[0])
    G = D.vjp(gw, gd, gv)
    dw, dd, dv = D.jvp(dU=dU, deta=0.3, dnu=-0.2, dd0=dd0)
    lhs = gw @ dw + gd @ dd + gv * dv
    rhs = np.sum(G["U"] * dU) + 0.3 * G["eta"] - 0.2 * G["nu"] + G["d0"] @ dd0
    assert abs(lhs - rhs) <= 1e-10 * max(1.0, abs(lhs))  # the same linear map: rounding only


def test_a_breakpoint_of_the_support_is_named():
    U, d0, _ = _instance(5, m=1)
    u = U[:, 0]
    _, single = _solve(ERLPBoost, U, 2.0, 1.0, d0)
    d = single.d
    # v = u + delta with delta . d = 0: same edge as u under d, so w = (1, 0) is optimal with a zero
    # reduced gradient on v: the support changes at this point
    delta = np.random.default_rng(6).standard_normal(u.size) * 0.05
    delta -= (delta @ d) / (d @ d) * d
    model, sol = _solve(ERLPBoost, np.column_stack([u, u + delta]), 2.0, 1.0, d0)
    with pytest.raises(ValueError, match="hypothesis 1 .*breakpoint"):
        differentiate(model, sol)


def test_a_cap_just_binding_is_named():
    U, d0, _ = _instance(7, m=1)
    _, free = _solve(ERLPBoost, U, 3.0, 1.0, d0)
    nu = 1.0 / float(free.d.max())  # the cap 1/nu is exactly the largest weight of the uncapped d
    model, sol = _solve(ERLPBoost, U, 3.0, nu, d0)
    with pytest.raises(ValueError, match="cap"):
        differentiate(model, sol)
    # away from it, the same instance is differentiable
    model, sol = _solve(ERLPBoost, U, 3.0, nu * 1.2, d0)
    assert differentiate(model, sol).capped.size >= 1


def test_bad_input_is_a_value_error_naming_it():
    U, d0, _ = _instance(8)
    model, sol = _solve(ERLPBoost, U, 3.0, 2.0, d0)
    with pytest.raises(ValueError, match="model"):
        differentiate(LPBoost(U, nu=2.0), sol)
    with pytest.raises(ValueError, match="tol"):
        differentiate(model, sol, tol=-1.0)
    D = differentiate(model, sol)
    with pytest.raises(ValueError, match="dU"):
        D.jvp(dU=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="gd"):
        D.vjp(gd=np.zeros(3))


def test_a_zero_just_binding_is_named():
    # t = 0.5, one column: d = exp_t(log_t d0 - eta u - b)_+ ; an example at 0 leaves b unchanged, so
    # placing its u at the threshold log_t d0_k - eta u_k - b = -1/(1-t) makes its multiplier 0
    from dualboost.conjugates import log_t

    U, d0, _ = _instance(9, m=1)
    eta, t = 6.0, 0.5
    U[0, 0] = 0.95  # far enough to be at 0
    model, sol = _solve(TemperedERLPBoost, U, eta, 1.0, d0, t=t)
    assert sol.d[0] == 0.0
    free = int(np.argmax(sol.d))
    b = log_t(d0[free], t) - eta * U[free, 0] - log_t(sol.d[free], t)
    U[0, 0] = (log_t(d0[0], t) - b + 1.0 / (1.0 - t)) / eta
    assert -1.0 < U[0, 0] < 1.0
    model, sol = _solve(TemperedERLPBoost, U, eta, 1.0, d0, t=t)
    with pytest.raises(ValueError, match="zero just binding"):
        differentiate(model, sol)
