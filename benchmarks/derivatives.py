"""Derivatives of a certified solve (dualboost.differentiate, docs/differentiation.md) against central
finite differences.

Instances: random edge matrices (N = 60, T = 10, entries 0.8 tanh of Gaussians, a random prior) for
ERLPBoost and TemperedERLPBoost (t = 0.5, 1.5), and a real one: the first 200 training examples of
german (the thesis split, seed 0) with the decision-stump columns that an ERLPBoost run (nu = 20,
eps = 0.05) selected, times 0.9 (inside (-1, 1), so that U +- h dU is valid). The d0 direction is
``d0 (g - g . d0)`` with g Gaussian: relative to d0's entries (of size 1/N), summing to 0. For each
instance and parameter (U along a random direction, eta, nu, d0), the relative error of the JVP of
(w*, d*, V) against ``(F(p + h) - F(p - h)) / 2h`` of solves certified to 1e-13, h = 1e-5 (errors
relative to the finite difference's norm, absolute where it is below 1), and the adjoint residual of
the VJP.

    python benchmarks/derivatives.py          # DUALBOOST_DATA must hold german.numer for the real row

Output: ``benchmarks/results/derivatives.txt`` (``--out``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from dualboost.boosting import erlpboost
from dualboost.datasets import DatasetNotFoundError, load_dataset
from dualboost.differentiate import differentiate
from dualboost.oracles import DecisionStumps
from dualboost.problems import ERLPBoost, TemperedERLPBoost

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance  # noqa: E402

H = 1e-5


def _solve(cls, U, eta, nu, d0, kw):
    model = cls(U, nu=nu, eta=eta, d0=d0, **kw)
    return model, model.solve("auglag", tol=1e-13)


def _rel(a, b) -> float:
    return float(np.linalg.norm(np.atleast_1d(a - b)) / max(np.linalg.norm(np.atleast_1d(b)), 1.0))


def check(name, cls, kw, U, eta, nu, d0, seed=0) -> list[str]:
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    model, sol = _solve(cls, U, eta, nu, d0, kw)
    D = differentiate(model, sol)
    setup = time.perf_counter() - start
    dU = rng.standard_normal(U.shape)
    g = rng.standard_normal(U.shape[0])
    dd0 = d0 * (g - g @ d0)  # relative to d0 (entries of size 1/N), summing to 0
    lines = []
    for param, direction in (("U", {"dU": dU}), ("eta", {"deta": 1.0}), ("nu", {"dnu": 1.0}),
                             ("d0", {"dd0": dd0})):
        def at(sign, param=param):
            return _solve(cls, U + sign * H * dU if param == "U" else U, eta + sign * H * (param == "eta"),
                          nu + sign * H * (param == "nu"), d0 + sign * H * dd0 * (param == "d0"), kw)[1]

        plus, minus = at(1.0), at(-1.0)
        dw, dd, dv = D.jvp(**direction)
        errors = (_rel(dw, (plus.w - minus.w) / (2 * H)), _rel(dd, (plus.d - minus.d) / (2 * H)),
                  _rel(dv, (plus.dual_value - minus.dual_value) / (2 * H)))
        lines.append(f"{name:<28} {param:<4} {errors[0]:9.1e} {errors[1]:9.1e} {errors[2]:9.1e}")
    gw, gd = rng.standard_normal(U.shape[1]), rng.standard_normal(U.shape[0])
    G = D.vjp(gw, gd, 0.7)
    dw, dd, dv = D.jvp(dU=dU, deta=0.3, dnu=-0.2, dd0=dd0)
    lhs = gw @ dw + gd @ dd + 0.7 * dv
    rhs = np.sum(G["U"] * dU) + 0.3 * G["eta"] - 0.2 * G["nu"] + G["d0"] @ dd0
    lines.append(
        f"{name:<28} |S| = {D.support.size}, capped {D.capped.size}, zeros {int(np.sum(sol.d == 0))}, "
        f"adjoint residual {abs(lhs - rhs) / max(1.0, abs(lhs)):.1e}, solve + factorisation {setup:.3f} s"
    )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = make_parser(__doc__, RESULTS / "derivatives.txt")
    args = parser.parse_args(argv)
    emit = Report(
        args.out,
        provenance(__file__, argv),
        "# JVP of (w*, d*, V) against central differences (h = 1e-5, solves certified to 1e-13):",
        "# relative errors (absolute where the difference's norm is below 1)",
        f"{'instance':<28} {'par':<4} {'w':>9} {'d':>9} {'V':>9}",
    )
    rng = np.random.default_rng(0)
    U = 0.8 * np.tanh(rng.standard_normal((60, 10)))
    d0 = rng.random(60) + 0.5
    d0 /= d0.sum()
    for name, cls, kw, eta, nu in (
        ("random ERLPBoost", ERLPBoost, {}, 30.0, 6.0),
        ("random tempered t=0.5", TemperedERLPBoost, {"t": 0.5}, 5.0, 6.0),
        ("random tempered t=1.5", TemperedERLPBoost, {"t": 1.5}, 8.0, 6.0),
    ):
        emit(*check(name, cls, kw, U, eta, nu, d0))
    try:
        X, y = load_dataset("german", seed=0, download=False).train
        X, y = X[:200], y[:200]
        run = erlpboost(DecisionStumps().fit(X, y), nu=20.0, eps=0.05)
        Ug = 0.9 * run.columns  # stumps give +-1: scaled inside (-1, 1) so that U +- h dU stays valid
        uniform = np.full(Ug.shape[0], 1.0 / Ug.shape[0])
        eta = run.params["eta"]
        emit(*check(f"german[:200] ERLPBoost T={Ug.shape[1]}", ERLPBoost, {}, Ug, eta, 20.0, uniform))
        emit(*check("german[:200] tempered t=0.5", TemperedERLPBoost, {"t": 0.5}, Ug, 20.0, 20.0, uniform))
    except (DatasetNotFoundError, ValueError) as exc:
        emit(f"german: skipped ({exc})")
    emit.write()


if __name__ == "__main__":
    main()
