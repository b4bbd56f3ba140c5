"""Numerical verification of primal/dual equivalence on built-in instances (``dualboost verify``).

For every model family, instance, method and side: solve, map the solution to the other side
(``d_from_w``), certify the pair and compare. A row passes when

* the certified relative gap ``(primal_value - dual_value) / max(1, |primal_value|)`` and the
  infeasibilities are within the method's tolerance (1e-6 for Clarabel and ECOS, 1e-4 for SCS);
* the map error ``||d_from_w(w) - d||_inf`` is within the map tolerance. The regularised models
  are strongly convex in d (modulus 1/eta in l1), so a certified gap g bounds the distance of each
  point to the optimum by ``sqrt(2 eta g)``; the map tolerance is 1e-5 (1e-3 for SCS) on the
  built-in instances, whose eta is moderate. LPBoost's d is not unique (docs/math.md#lpboost): there the
  mapped pair ``(d_from_w(w), w)`` must itself be certified within the gap tolerance instead.

The ``highs`` rows: LPBoost and NM-Boost on both sides (linear programs), CGBoost on its w-domain
side (a convex QP); measured on the default and extreme instances, every one passes, with certified
gaps of 1e-10 or less.

Each method declares both tolerances where it is registered (``Method.gap_tol`` and
``Method.map_tol`` in ``dualboost.solvers.REGISTRY``); :data:`GAP_TOL` and :data:`MAP_TOL` read them
from there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass

import numpy as np

from dualboost.instances import random_edge_matrix
from dualboost.problems import (
    BinaryERLPBoost,
    CGBoost,
    CorrectiveBinaryERLPBoost,
    CorrectiveERLPBoost,
    ERLPBoost,
    LPBoost,
    MDBoost,
    Model,
    NMBoost,
    QRLPBoost,
    SoftBoost,
)
from dualboost.solvers import METHODS, REGISTRY, SIDES, accepts

__all__ = [
    "VerifyRow",
    "FAMILIES",
    "GAP_TOL",
    "MAP_TOL",
    "default_instances",
    "extreme_instances",
    "run_verify",
]

#: certified relative gap tolerance per method, as each method declares it (``Method.gap_tol``)
GAP_TOL = {name: method.gap_tol for name, method in REGISTRY.items()}
#: map error tolerance per method (``Method.map_tol``; see the module docstring)
MAP_TOL = {name: method.map_tol for name, method in REGISTRY.items()}


def applies(model: Model, method: str, side: str) -> bool:
    """Whether ``method`` solves ``side`` of ``model`` (:func:`dualboost.solvers.accepts`): the cvxpy
    solvers solve every side of every model in memory; ``auglag`` the dual of the models with a
    differentiable dual; ``highs`` both sides of the linear programs (LPBoost, NM-Boost) and the
    w-domain side of CGBoost's QP (HiGHS's QP solver; its d-domain QP is refused, see
    :attr:`dualboost.problems.CGBoost.highs_sides`)."""
    return accepts(model, method, side) is None


FAMILIES = (
    "lpboost",
    "softboost",
    "erlpboost",
    "binary_erlpboost",
    "corrective_erlpboost",
    "corrective_binary_erlpboost",
    "mdboost",
    "nmboost",
    "cgboost",
    "qrlpboost",
)


@dataclass
class VerifyRow:
    """One line of the verification table.

    Parameters
    ----------
    model, instance, method, side : str
        What was solved, and how.
    primal_value, dual_value : float
        The certified values, recomputed by the model from d and w.
    gap : float
        The relative duality gap.
    map_error : float
        ``||d_from_w(w) - d||_inf``.
    time : float
        Seconds.
    status : str
        The solution's status.
    passed : bool
        Whether every check met its tolerance (:data:`GAP_TOL`, :data:`MAP_TOL`).
    reason : str
        Why a check failed (empty when it passed).
    """

    model: str
    instance: str
    method: str
    side: str
    primal_value: float
    dual_value: float
    gap: float
    map_error: float
    time: float
    status: str
    passed: bool
    reason: str

    def as_dict(self) -> dict:
        return asdict(self)


def _softboost(U: np.ndarray, nu: float) -> SoftBoost:
    """A feasible SoftBoost instance: the edge bound a quarter of the way from P_LP to the largest
    edge under the uniform distribution (as in a run's early iterations)."""
    p_lp = LPBoost(U, nu=nu).solve(method="clarabel", side="primal").primal_value
    top = float((U.mean(axis=0)).max())
    return SoftBoost(U, nu=nu, gamma_hat=p_lp + 0.25 * (top - p_lp), eps=0.0)


def extreme_instances(seed: int = 0) -> dict[str, list[Callable[[], Model]]]:
    """Harder instances at the thesis's extremes (eta up to 10^6, nu = N - 1, N = 2000): the
    conic solvers are expected to fail on some of them, and the certificate says where.

    Parameters
    ----------
    seed : int, default 0
        The seed of the random edge matrices.

    Returns
    -------
    dict of str to list of callable
        For each family of :data:`FAMILIES`, factories of its models (built lazily, in order).
    """
    big = random_edge_matrix(2000, 30, seed + 3, binary=True)
    W = random_edge_matrix(200, 20, seed + 4, binary=True)
    return {
        "lpboost": [lambda: LPBoost(big, nu=200.0), lambda: LPBoost(W, nu=200.0)],
        "softboost": [lambda: _softboost(W, 20.0)],
        "erlpboost": [lambda W=W, eta=eta: ERLPBoost(W, nu=10.0, eta=eta) for eta in (1e3, 1e4, 1e6)]
        + [lambda: ERLPBoost(big, nu=100.0, eta=100.0)],
        "binary_erlpboost": [
            lambda W=W, eta=eta: BinaryERLPBoost(W, nu=10.0, eta=eta) for eta in (1e3, 1e4, 1e6)
        ]
        + [lambda: BinaryERLPBoost(W, nu=199.0, eta=10.0)],
        "corrective_erlpboost": [
            lambda: CorrectiveERLPBoost(W, np.full(19, 1 / 19), nu=10.0, eta=1e4),
        ],
        "corrective_binary_erlpboost": [
            lambda: CorrectiveBinaryERLPBoost(W, np.full(19, 1 / 19), nu=10.0, eta=1e4),
        ],
        "mdboost": [lambda: MDBoost(big, D=1e-3), lambda: MDBoost(W, D=1e3)],
        "nmboost": [lambda: NMBoost(big, lam=1e-3, tau=0.05), lambda: NMBoost(W, lam=1e3)],
        "cgboost": [lambda: CGBoost(big, C=1e-3), lambda: CGBoost(W, C=1e3)],
        "qrlpboost": [lambda: QRLPBoost(W, nu=10.0, eta=1e4), lambda: QRLPBoost(big, nu=100.0, eta=100.0)],
    }


def default_instances(seed: int = 0) -> dict[str, list[Callable[[], Model]]]:
    """The built-in instances of each family, as factories (built lazily, in order).

    Parameters
    ----------
    seed : int, default 0
        The seed of the random edge matrices.

    Returns
    -------
    dict of str to list of callable
        For each family of :data:`FAMILIES`, factories of its models.
    """
    U = random_edge_matrix(40, 8, seed)
    V = random_edge_matrix(60, 10, seed + 1)
    S = random_edge_matrix(60, 10, seed + 2, binary=True)  # +-1 entries, as stumps give
    w_prev = np.full(9, 1.0 / 9)
    return {
        "lpboost": [lambda: LPBoost(U, nu=1.0), lambda: LPBoost(U, nu=7.5)],
        "softboost": [lambda: _softboost(U, 1.0), lambda: _softboost(U, 7.5)],
        "erlpboost": [
            lambda: ERLPBoost(V, nu=1.0, eta=10.0),
            lambda: ERLPBoost(V, nu=6.5, eta=20.0),
            lambda: ERLPBoost(S, nu=6.0, eta=50.0),
        ],
        "binary_erlpboost": [
            lambda: BinaryERLPBoost(V, nu=1.0, eta=10.0),
            lambda: BinaryERLPBoost(V, nu=6.5, eta=20.0),
        ],
        "corrective_erlpboost": [lambda: CorrectiveERLPBoost(V, w_prev, nu=6.5, eta=20.0)],
        "corrective_binary_erlpboost": [lambda: CorrectiveBinaryERLPBoost(V, w_prev, nu=6.5, eta=20.0)],
        "mdboost": [lambda: MDBoost(V, D=4.0), lambda: MDBoost(S, D=1.0)],
        "nmboost": [lambda: NMBoost(V, lam=1.0), lambda: NMBoost(S, lam=0.1, tau=0.2)],
        "cgboost": [lambda: CGBoost(V, C=1.0), lambda: CGBoost(S, C=0.1)],
        "qrlpboost": [
            lambda: QRLPBoost(V, nu=6.5, eta=20.0),
            lambda: QRLPBoost(S, nu=1.0, eta=10.0, center=np.random.default_rng(seed).dirichlet(np.ones(60))),
        ],
    }


def _instance_label(model: Model) -> str:
    return " ".join(f"{k}={v:.6g}" for k, v in model.describe().items())


def verify_one(model: Model, method: str, side: str) -> VerifyRow:
    """Solve one side, map to the other, certify and judge (see the module docstring)."""
    start = time.perf_counter()
    sol = model.solve(method=method, side=side, tol=GAP_TOL[method])
    reasons = []
    map_error = np.nan
    if sol.d is None or sol.w is None:
        reasons.append(f"no solution ({sol.status}: {sol.message or sol.solver_status})")
    else:
        mapped = model.d_from_w(sol.w)
        map_error = float(np.abs(mapped - sol.d).max())
        if not sol.optimal:
            reasons.append(
                f"certified gap {sol.relative_gap:.2e} / infeasibility "
                f"{max(sol.primal_infeasibility, sol.dual_infeasibility):.2e} > {GAP_TOL[method]:g}"
            )
        if model.d_is_unique:
            if not map_error <= MAP_TOL[method]:
                reasons.append(f"map error {map_error:.2e} > {MAP_TOL[method]:g}")
        else:
            mapped_gap = (model.primal_objective(mapped) - sol.dual_value) / max(1.0, abs(sol.dual_value))
            if not abs(mapped_gap) <= GAP_TOL[method]:
                reasons.append(f"mapped pair gap {mapped_gap:.2e} > {GAP_TOL[method]:g}")
    return VerifyRow(
        model=model.name,
        instance=_instance_label(model),
        method=method,
        side=side,
        primal_value=sol.primal_value,
        dual_value=sol.dual_value,
        gap=sol.relative_gap,
        map_error=map_error,
        time=time.perf_counter() - start,
        status=sol.status,
        passed=not reasons,
        reason="; ".join(reasons),
    )


def run_verify(
    families: Iterable[str] = FAMILIES,
    methods: Iterable[str] = METHODS,
    sides: Iterable[str] = SIDES,
    seed: int = 0,
    extreme: bool = False,
) -> Iterator[VerifyRow]:
    """Yield one :class:`VerifyRow` per (family, instance, method, side) where the method applies
    (:func:`applies`): what ``dualboost verify`` prints.

    Parameters
    ----------
    families : iterable of str, default all of FAMILIES
        The model families (:data:`FAMILIES`).
    methods : iterable of str, default all of METHODS
        The methods (``"clarabel"``, ``"ecos"``, ``"scs"``, ``"auglag"``, ``"highs"``).
    sides : iterable of str, default ("primal", "dual")
        The sides each method solves.
    seed : int, default 0
        The seed of the instances.
    extreme : bool, default False
        Use :func:`extreme_instances` instead of :func:`default_instances`.

    Yields
    ------
    VerifyRow
        The certified values, the gap, the map error and the time of one solve.
    """
    families, methods, sides = list(families), list(methods), list(sides)
    for name, allowed, kind in (
        (families, FAMILIES, "model"),
        (methods, METHODS, "method"),
        (sides, SIDES, "side"),
    ):
        bad = [x for x in name if x not in allowed]
        if bad:
            raise ValueError(f"unknown {kind} {bad[0]!r}; choose from {', '.join(allowed)}")
    instances = (extreme_instances if extreme else default_instances)(seed)
    for family in families:
        for factory in instances[family]:
            model = factory()
            for method in methods:
                for side in sides:
                    if applies(model, method, side):
                        yield verify_one(model, method, side)
