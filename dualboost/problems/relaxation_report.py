"""The verification report of a :class:`~dualboost.problems.Relaxation` (``rel.verify()``,
``dualboost verify --relaxation NAME``) and the named built-in relaxations.

For each method and side the relaxation is solved and certified (:func:`dualboost.solvers.solve`),
and the report gives:

* the certified primal and dual values and relative gap (recomputed by the model);
* the d-map: ``||d_from_w(w) - d||_inf`` when d is unique (strictly convex f~), else the relative
  gap of the mapped pair ``(d_from_w(w), w)`` (the optimal d is a face, as for LPBoost);
* the w-map: the relative gap of ``(d, w_from_d(d))``;
* the Fenchel-Young residuals ``phi(x) + phi*(y) - <x, y> >= 0`` of every conjugate pair in the
  derivation, at the solution: the edge term ``g = ||.||_inf`` with ``g* = I_{B_1}`` at
  ``(A^T d, w)`` ([SS] Thm 3), the regulariser ``f~ = f + I_S`` at ``(d, -A w)``, and the parts
  of f~ at their split of ``-A w`` (Lemma 8: f at ``[gamma* - A w]_+`` and I_S at the rest;
  an infimal convolution: each summand at its share). Their sum is the gap, so each is ~0 at an
  optimum;
* which of Thm 7's conditions hold, and which dual form was derived.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from dualboost.conjugates import (
    CappedSimplex,
    ConvexFunction,
    Norm,
    NormBall,
    RelativeEntropy,
    SimplexRestriction,
    Sum,
)
from dualboost.conjugates.simplex import Theorem7Conditions
from dualboost.instances import random_edge_matrix
from dualboost.problems.relaxation import Relaxation
from dualboost.solvers import REGISTRY, accepts

__all__ = [
    "FAST_GAP_TOL",
    "FAST_MAP_TOL",
    "ReportRow",
    "RelaxationReport",
    "verify_relaxation",
    "fenchel_young_residuals",
    "BUILTIN_RELAXATIONS",
    "builtin_relaxation",
    "GAP_TOL",
    "MAP_TOL",
]

_CVXPY = ("clarabel", "ecos", "scs")
#: certified relative gap tolerance per cvxpy method, as the method declares it (``Method.gap_tol`` of
#: ``dualboost.solvers.REGISTRY``, which ``dualboost verify`` reads too)
GAP_TOL = {name: REGISTRY[name].gap_tol for name in _CVXPY}
#: map tolerance per method: ``||d_from_w(w) - d||_inf`` for a unique d, else the relative gap of
#: the mapped pair (``Method.map_tol``, as ``dualboost verify``)
MAP_TOL = {name: REGISTRY[name].map_tol for name in _CVXPY}
#: the fast method's tolerances: ``method="auglag"`` on the forms whose dual is smooth (the simplex
#: and edge forms with a strictly convex f, docs/math.md#exact-restriction); its rows appear only
#: where it applies (``dualboost verify --relaxation`` shows them in a second report, form "simplex")
FAST_GAP_TOL = {"auglag": REGISTRY["auglag"].gap_tol}
FAST_MAP_TOL = {"auglag": REGISTRY["auglag"].map_tol}
_LABEL_WIDTH = 70


def _label(f: ConvexFunction) -> str:
    if isinstance(f, CappedSimplex):  # no repr of its own
        return "I_S (simplex)" if f.nu == 1.0 else f"I{{simplex, d <= 1/{f.nu:g}}}"
    text = repr(f)
    return text if len(text) <= _LABEL_WIDTH else text[: _LABEL_WIDTH - 3] + "..."


def _regulariser_residuals(
    f: ConvexFunction, d: NDArray[np.float64], theta: NDArray[np.float64], name: str
) -> list[tuple[str, float]]:
    """Fenchel-Young residual of f at (d, theta), then of its parts at their split of theta."""
    rows = [(f"{name} = {_label(f)}", f.fenchel_young_gap(d, theta))]
    if isinstance(f, SimplexRestriction):  # Lemma 8: f sees [theta + gamma*]_+, I_S the rest
        hinge = np.maximum(theta + f.maximising_gamma(theta), 0.0)
        rows += _regulariser_residuals(f.f, d, hinge, "  f at [gamma* + theta]_+")
        rows += _regulariser_residuals(CappedSimplex(1.0), d, theta - hinge, "  I_S at the rest")
    elif isinstance(f, Sum):  # infimal convolution: each summand at its share of theta
        y = f.split(theta)
        rows += _regulariser_residuals(f.f, d, y, "  part")
        rows += _regulariser_residuals(f.g, d, theta - y, "  part")
    return rows


def fenchel_young_residuals(
    rel: Relaxation, d: NDArray[np.float64], w: NDArray[np.float64]
) -> list[tuple[str, float]]:
    """Every conjugate pair of the derivation at ``(d, w)`` (module docstring); the first two sum
    to ``primal_objective(d) - dual_objective(w)``.

    Parameters
    ----------
    rel : Relaxation
        The relaxation.
    d : ndarray
        A primal point.
    w : ndarray
        A dual point.

    Returns
    -------
    list of (str, float)
        Each pair's name and Fenchel-Young residual.
    """
    margins = rel.U @ w
    edge = (
        "g = ||A^T d||_inf, g* = I_B1 (edge term)"
        if rel.signed
        else "g = max_q (U^T d)_q, g* = I_S (edge term)"
    )
    return [
        (edge, rel.edge_term(d) - float(d @ margins)),
        *_regulariser_residuals(rel.regularizer, d, -margins, "f~"),
    ]


@dataclass
class ReportRow:
    """One (method, side) of the report; ``passed`` with the ``reason`` when not."""

    method: str
    side: str
    status: str
    primal_value: float
    dual_value: float
    gap: float
    d_map: float
    w_map: float
    gamma: float
    fenchel_young: list[tuple[str, float]]
    time: float
    passed: bool
    reason: str = ""


@dataclass
class RelaxationReport:
    """The verification of one relaxation: its derivation and one :class:`ReportRow` per solve."""

    name: str
    relaxation: str
    regularizer: str
    dual_form: str
    d_is_unique: bool
    conditions: Theorem7Conditions
    rows: list[ReportRow] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return (
            bool(self.rows)
            and all(r.passed for r in self.rows)
            and self.value_spread <= max(GAP_TOL.get(r.method, 1e-6) for r in self.rows)
        )

    @property
    def value_spread(self) -> float:
        """Largest relative difference between the certified primal values of the optimal rows."""
        values = [r.primal_value for r in self.rows if r.status == "optimal"]
        if len(values) < 2:
            return 0.0
        return (max(values) - min(values)) / max(1.0, abs(max(values)))

    def __str__(self) -> str:
        forms = {
            "theorem7": "Theorem 7: max_{w, gamma} gamma - f*([gamma - A w]_+)  (f~* by Lemma 8)",
            "general": "general: max_w -(f + I_S)*(-A w)  (f~* by the conjugate calculus)",
        }
        lines = [
            f"relaxation {self.name}: {self.relaxation}",
            f"  f~ = f + I_S = {self.regularizer}",
            f"  dual form: {forms[self.dual_form]}",
            "  optimal d is "
            + (
                "unique (d-map: ||d_from_w(w) - d||_inf)"
                if self.d_is_unique
                else "a face (d-map: relative gap of (d_from_w(w), w))"
            ),
            "Theorem 7 conditions on f:",
            *("  " + line for line in str(self.conditions).splitlines()),
            "",
        ]
        header = (
            "method",
            "side",
            "status",
            "primal",
            "dual",
            "rel.gap",
            "d-map",
            "w-map",
            "gamma*",
            "max FY",
            "time s",
            "ok",
        )
        body = []
        for r in self.rows:
            fy = max((v for _, v in r.fenchel_young), key=abs, default=np.nan)
            body.append(
                [
                    r.method,
                    r.side,
                    r.status,
                    f"{r.primal_value:.10f}",
                    f"{r.dual_value:.10f}",
                    f"{r.gap:.1e}",
                    f"{r.d_map:.1e}",
                    f"{r.w_map:.1e}",
                    "-" if not np.isfinite(r.gamma) else f"{r.gamma:.6f}",
                    f"{fy:.1e}",
                    f"{r.time:.2f}",
                    "yes" if r.passed else "NO",
                ]
            )
        widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
        lines.append("  ".join("-" * w for w in widths))
        lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths, strict=True)) for b in body]
        lines.append("")
        lines.append("Fenchel-Young residuals phi(x) + phi*(y) - <x, y> at each solution:")
        for r in self.rows:
            lines.append(f"  {r.method}/{r.side}:")
            lines += [f"    {value: .2e}  {label}" for label, value in r.fenchel_young]
        failed = [r for r in self.rows if not r.passed]
        lines.append("")
        lines.append(f"certified primal values agree across methods to {self.value_spread:.1e} (relative)")
        if failed:
            lines.append(f"{len(failed)} of {len(self.rows)} checks FAILED:")
            lines += [f"  {r.method}/{r.side}: {r.reason}" for r in failed]
        else:
            lines.append(f"all {len(self.rows)} checks passed")
        return "\n".join(lines)


def _relative(value: float, scale: float) -> float:
    return float(value) / max(1.0, abs(scale)) if np.isfinite(value) else np.inf


def _row(rel: Relaxation, method: str, side: str, gap_tol: float, map_tol: float) -> ReportRow:
    start = time.perf_counter()
    sol = rel.solve(method=method, side=side, tol=gap_tol)
    if sol.d is None or sol.w is None:
        return ReportRow(
            method,
            side,
            sol.status,
            sol.primal_value,
            sol.dual_value,
            np.inf,
            np.nan,
            np.nan,
            np.nan,
            [],
            time.perf_counter() - start,
            False,
            f"no solution ({sol.status}: {sol.message or sol.solver_status})",
        )
    mapped = rel.d_from_w(sol.w)
    if rel.d_is_unique:
        d_map = float(np.abs(mapped - sol.d).max())
    else:
        d_map = _relative(rel.primal_objective(mapped) - sol.dual_value, sol.dual_value)
    w_map = _relative(sol.primal_value - rel.dual_objective(rel.w_from_d(sol.d)), sol.primal_value)
    residuals = fenchel_young_residuals(rel, sol.d, sol.w)
    gamma = np.nan
    if isinstance(rel.regularizer, SimplexRestriction):
        gamma = rel.regularizer.maximising_gamma(-(rel.U @ sol.w))
    reasons = []
    if not sol.optimal:
        reasons.append(
            f"certified gap {sol.relative_gap:.2e} / infeasibility "
            f"{max(sol.primal_infeasibility, sol.dual_infeasibility):.2e} > {gap_tol:g}"
        )
    if not abs(d_map) <= map_tol:
        reasons.append(f"d-map {d_map:.2e} > {map_tol:g}")
    if not abs(w_map) <= map_tol:
        reasons.append(f"w-map {w_map:.2e} > {map_tol:g}")
    worst = max((abs(v) for _, v in residuals), default=0.0)
    if not worst <= gap_tol * max(1.0, abs(sol.primal_value)):
        reasons.append(f"Fenchel-Young residual {worst:.2e} > {gap_tol:g}")
    return ReportRow(
        method,
        side,
        sol.status,
        sol.primal_value,
        sol.dual_value,
        sol.relative_gap,
        d_map,
        w_map,
        float(gamma),
        residuals,
        time.perf_counter() - start,
        not reasons,
        "; ".join(reasons),
    )


def verify_relaxation(
    rel: Relaxation,
    methods: Iterable[str] = ("clarabel", "ecos", "scs"),
    sides: Iterable[str] = ("primal", "dual"),
    *,
    name: str = "",
    gap_tol: dict[str, float] | None = None,
    map_tol: dict[str, float] | None = None,
) -> RelaxationReport:
    """Solve both sides of ``rel`` with each method and build the :class:`RelaxationReport`.

    Parameters
    ----------
    rel : Relaxation
        The relaxation to check.
    methods : iterable of str
        The solve methods (keys of ``GAP_TOL``, or auglag's).
    sides : iterable of str
        The sides to solve.
    name : str
        The report's name (empty: ``"(user)"``).
    gap_tol : dict or None
        Gap tolerances per method, over ``GAP_TOL``.
    map_tol : dict or None
        Tolerances of the mapped pair per method, over ``MAP_TOL``.

    Returns
    -------
    RelaxationReport
        One row per method and side solved.
    """
    gap_tol = {**GAP_TOL, **(gap_tol or {})}
    map_tol = {**MAP_TOL, **(map_tol or {})}
    methods, sides = list(methods), list(sides)
    for method in methods:
        if method not in gap_tol:
            raise ValueError(f"method must be one of {', '.join(map(repr, GAP_TOL))}; got {method!r}")
    report = RelaxationReport(
        name=name or "(user)",
        relaxation=f"f = {rel.f!r}, form {rel.form!r}, N = {rel.n_samples}, n = {rel.A.shape[1]}",
        regularizer=repr(rel.regularizer),
        dual_form=rel.dual_form,
        d_is_unique=rel.d_is_unique,
        conditions=rel.conditions,
    )
    for method in methods:
        for side in sides:
            if method in FAST_GAP_TOL and accepts(rel, method, side) is not None:
                continue  # auglag solves the dual of a smooth form only (its reason: rel.solve says)
            report.rows.append(_row(rel, method, side, gap_tol[method], map_tol[method]))
    return report


# --- named built-in relaxations (``dualboost verify --relaxation NAME``) -----------------------
def _prior(n: int, seed: int) -> NDArray[np.float64]:
    return np.random.default_rng(seed + 1).dirichlet(np.full(n, 5.0))


#: name -> (description, f as a function of (N, seed)); caps and radii chosen to be active.
BUILTIN_RELAXATIONS: dict[str, tuple[str, Callable[[int, int], ConvexFunction]]] = {
    "linf-ball": (
        "[SS] Example 1, l_inf ball d <= 2/N: the soft margin (Cor. 5)",
        lambda n, s: NormBall(p=np.inf, radius=2.0 / n),
    ),
    "l2-ball": (
        "[SS] Example 1, l2 ball ||d||_2 <= 1.2/sqrt(N)",
        lambda n, s: NormBall(p=2, radius=1.2 / np.sqrt(n)),
    ),
    "l1-ball": (
        "[SS] Example 1, l1 ball of radius 1: the hard margin (Thm 4)",
        lambda n, s: NormBall(p=1, radius=1.0),
    ),
    "norm-penalty": ("[SS] Example 2, f = 0.5 ||d||_2", lambda n, s: Norm(p=2, radius=0.5)),
    "entropy": (
        "[SS] Eq. 8 with f = 0: the entropy-smoothed hard margin, beta = 0.05",
        lambda n, s: 0.05 * RelativeEntropy(np.full(n, 1.0 / n)),
    ),
    "linf-ball+entropy": (
        "ERLPBoost's regulariser: d <= 2/N plus 0.05 KL(d, uniform)",
        lambda n, s: NormBall(p=np.inf, radius=2.0 / n) + 0.05 * RelativeEntropy(np.full(n, 1.0 / n)),
    ),
    "l2-ball+entropy": (
        "new: ||d||_2 <= 1.2/sqrt(N) plus 0.05 KL(d, d0), d0 a non-uniform prior",
        lambda n, s: NormBall(p=2, radius=1.2 / np.sqrt(n)) + 0.05 * RelativeEntropy(_prior(n, s)),
    ),
    "l2-ball-around-prior": (
        "new: ||d - d0||_2 <= 0.5/sqrt(N) (Thm 7 (iii) fails: infimal convolution)",
        lambda n, s: NormBall(p=2, radius=0.5 / np.sqrt(n)).shifted(-_prior(n, s)),
    ),
}


def builtin_relaxation(
    name: str, seed: int = 0, n_samples: int = 30, n_hypotheses: int = 40, form: str = "abs"
) -> Relaxation:
    """The built-in relaxation ``name`` (:data:`BUILTIN_RELAXATIONS`) on a random A (N x n, seed):
    n > N makes the hard-margin value positive ([SS] Thm 4: no d in the simplex zeroes A^T d).

    Parameters
    ----------
    name : str
        A key of ``BUILTIN_RELAXATIONS``.
    seed : int
        The seed of A and of the function's parameters.
    n_samples : int
        N, the rows of A.
    n_hypotheses : int
        n, the columns of A.
    form : str
        ``"abs"`` or ``"simplex"`` (:class:`Relaxation`).

    Returns
    -------
    Relaxation
        The relaxation.
    """
    if name not in BUILTIN_RELAXATIONS:
        raise ValueError(f"unknown relaxation {name!r}; choose from {', '.join(BUILTIN_RELAXATIONS)}")
    A = random_edge_matrix(n_samples, n_hypotheses, seed)
    return Relaxation(A, BUILTIN_RELAXATIONS[name][1](n_samples, seed), form)
