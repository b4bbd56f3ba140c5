"""``method="auto"``: the fastest method that applies, the next one where it fails (docs/solvers.md#auto).

The methods are tried in :data:`ORDER`, each only where it applies to the model and side
(``Method.accepts``): HiGHS on the linear and quadratic programs (LPBoost, NMBoost, CGBoost), the
hand-written dual path on the smooth duals (the entropy models, QRLP-Boost, MDBoost, SoftBoost, the
relaxations with a strictly convex f), then the interior-point methods through cvxpy, which apply to
every in-memory model. ``side`` is the side HiGHS and the interior-point methods solve; auglag
always solves the dual (the w-domain: what it is written for), and where the primal side is asked for
it still comes before the interior-point methods, since every solution is a certified (d, w) pair
whichever side was solved (``Solution.side`` says which).

The first solution that the model certifies (``status="optimal"``: the model's own gap and
infeasibilities within ``tol``) is returned; a method that stops short (an uncertified point, a
solver error) hands over to the next. Nothing is trusted that the model did not certify: where no
method certifies, the solution of smallest relative gap is returned with its status, and its
``message`` lists every attempt. ``Solution.method`` names the method that produced the result (never
``"auto"``, but where no method ran at all), and ``Solution.extra["auto"]`` the attempts, e.g.
``["highs: optimal (gap 1.2e-09)"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import cvxpy as cp
import numpy as np

from dualboost.solvers.solution import Solution

__all__ = ["ORDER", "accepts", "run"]

#: the order in which ``"auto"`` tries the methods: the specialised ones first (each applies to its
#: own family of models and is one to two orders of magnitude faster there than an interior-point
#: solve, benchmarks/results/subproblem-all-solvers.txt), then Clarabel, ECOS and SCS
ORDER = ("highs", "auglag", "clarabel", "ecos", "scs")
#: what a method may raise on a problem it accepted but cannot solve (numerical breakdown); another
#: exception is a bug and propagates
_SOLVER_ERRORS = (ArithmeticError, RuntimeError, np.linalg.LinAlgError, cp.error.SolverError)


def _side(name: str, side: str) -> str:
    """The side that ``"auto"`` has method ``name`` solve when ``side`` is asked for (module docstring)."""
    return "dual" if name == "auglag" else side


def accepts(registry: Mapping, model, side: str) -> str | None:
    """None where some method of :data:`ORDER` solves ``side`` of ``model``, else every method's reason.

    Parameters
    ----------
    registry : Mapping
        The solve methods by name.
    model : Model
        The candidate model.
    side : str
        ``"primal"`` or ``"dual"``.

    Returns
    -------
    str or None
        None where some method applies, else the reasons, one per method.
    """
    reasons = [registry[name].accepts(model, _side(name, side)) for name in ORDER]
    if any(reason is None for reason in reasons):
        return None
    return "method='auto' found no method for this model and side: " + "; ".join(
        f"{name}: {reason}" for name, reason in zip(ORDER, reasons, strict=True)
    )


def run(
    registry: Mapping, model, side: str, tol: float, warm_start: Solution | None, options, **kwargs
) -> Solution:
    """The first certified solution of the methods of :data:`ORDER` that apply (module docstring).

    ``warm_start`` goes to auglag (it reuses any solution's w) and to the method that produced it;
    ``options`` (an :class:`~dualboost.solvers.AuglagOptions`) and ``kwargs`` (``max_iter``,
    ``removed``) go to auglag, the only method that takes them.

    Parameters
    ----------
    registry : Mapping
        The solve methods by name.
    model : Model
        The problem to solve.
    side : str
        ``"primal"`` or ``"dual"``.
    tol : float
        The relative gap and feasibility tolerance of the certificate.
    warm_start : Solution or None
        A previous solution, None for none.
    options : AuglagOptions or None
        auglag's options.
    **kwargs
        auglag's ``max_iter`` and ``removed``.

    Returns
    -------
    Solution
        The first certified solution, else the one with the smallest gap (a failed one where no
        method ran), its message listing every attempt.
    """
    if (options is not None or kwargs) and registry["auglag"].accepts(model, "dual") is not None:
        given = ["options"] if options is not None else []
        raise ValueError(
            f"{', '.join(given + sorted(kwargs))} steer method='auglag', which does not solve this model: "
            "method='auto' takes them only where auglag applies"
        )
    attempts: list[str] = []
    best: Solution | None = None
    for name in ORDER:
        method, solved = registry[name], _side(name, side)
        if method.accepts(model, solved) is not None:
            continue
        own = name == "auglag"
        start = warm_start if own or (warm_start is not None and warm_start.method == name) else None
        attempt: Callable[[], Solution] = lambda m=method, v=solved, s=start, o=own: m.run(  # noqa: E731
            model, v, tol, s, options if o else None, **(kwargs if o else {})
        )
        try:
            solution = attempt()
        except _SOLVER_ERRORS as exc:
            attempts.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        attempts.append(f"{name}: {solution.status} (gap {solution.gap:.3g})")
        if solution.status == "optimal":
            return _reported(solution, attempts)
        if best is None or solution.relative_gap < best.relative_gap:
            best = solution
    if best is None:
        message = "method='auto': " + "; ".join(attempts)
        return Solution.without_point("failed", "auto", side, tol, message=message, extra={"auto": attempts})
    best.message = "method='auto' certified no solution: " + "; ".join(attempts)
    return _reported(best, attempts)


def _reported(solution: Solution, attempts: list[str]) -> Solution:
    solution.extra = {**solution.extra, "auto": attempts}
    return solution
