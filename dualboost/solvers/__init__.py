"""Solvers: cvxpy (Clarabel, ECOS, SCS), the hand-written dual path (auglag), HiGHS, active-set
recovery and certification.

:func:`solve` is what ``model.solve(...)`` calls: it validates the request, runs the method on
one side, maps to the other side and certifies the pair (:mod:`dualboost.solvers.certify`).
``options`` steers a method: an :class:`AuglagOptions` for ``"auglag"`` (its Newton steps'
:class:`NewtonOptions` inside), set for a block of code by :func:`default_options`
(:mod:`dualboost.solvers.options`, docs/solvers.md#options).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from dualboost._validation import check_scalar
from dualboost.solvers import auglag, auto, cvxpy_backend, highs
from dualboost.solvers.certify import certify
from dualboost.solvers.cvxpy_backend import CVXPY_METHODS, solve_cvxpy
from dualboost.solvers.highs import solve_highs
from dualboost.solvers.options import AuglagOptions, NewtonOptions, Stage, default_options
from dualboost.solvers.solution import STATUSES, Solution
from dualboost.solvers.state import SolverState

__all__ = [
    "solve",
    "accepts",
    "certify",
    "Solution",
    "SolverState",
    "STATUSES",
    "METHODS",
    "AUTO",
    "SIDES",
    "Method",
    "AuglagOptions",
    "NewtonOptions",
    "Stage",
    "default_options",
]

SIDES = ("primal", "dual")


@dataclass(frozen=True)
class Method:
    """A solve method: ``run(model, side, tol, warm_start, options, **kwargs)`` returns a certified
    Solution (``options``: the method's options object, None for its defaults), and
    ``accepts(model, side)`` is None where the method solves that side of that model,
    else the reason why not (what the model lacks of :mod:`dualboost.solvers.contract`, and which
    methods apply instead)."""

    name: str
    run: Callable[..., Solution]
    accepts: Callable[[object, str], str | None]
    #: the class of the method's options object; None: it has none
    options: type | None = None
    #: the accuracy it certifies to (``dualboost verify``): the relative gap and infeasibility, and
    #: ``||d_from_w(w) - d||_inf`` (where d is unique; :mod:`dualboost.verify`)
    gap_tol: float = 1e-6
    map_tol: float = 1e-5


def _cvxpy(name: str) -> Method:
    def run(model, side, tol, warm_start, options, **kwargs):  # interior-point methods: no warm start
        return solve_cvxpy(model, name, side, tol, **kwargs)

    if name == "scs":  # first-order (ADMM): a looser accuracy than the interior-point methods
        return Method(name, run, cvxpy_backend.accepts, gap_tol=1e-4, map_tol=1e-3)
    return Method(name, run, cvxpy_backend.accepts)


def _run_highs(model, side, tol, warm_start, options, **kwargs):
    if kwargs:
        raise ValueError(f"method='highs' takes no options; got {sorted(kwargs)}")
    return solve_highs(model, side, tol, warm_start)


#: every method by name: the cvxpy solvers, the hand-written dual path, HiGHS for LPs
REGISTRY: dict[str, Method] = {
    **{name: _cvxpy(name) for name in CVXPY_METHODS},
    "auglag": Method("auglag", auglag.run, auglag.accepts, AuglagOptions),
    "highs": Method("highs", _run_highs, highs.accepts),
}
METHODS = tuple(REGISTRY)
#: ``method="auto"``: the first of the methods above that applies and certifies its solution
#: (:mod:`dualboost.solvers.auto`); not one of ``METHODS``, which it chooses from
AUTO = "auto"
_AUTO = Method(AUTO, partial(auto.run, REGISTRY), partial(auto.accepts, REGISTRY), AuglagOptions)


def _method(name: str) -> Method:
    return _AUTO if name == AUTO else REGISTRY[name]


def accepts(model, method: str, side: str) -> str | None:
    """None where ``method`` solves ``side`` of ``model``, else why not (``Method.accepts``).

    Parameters
    ----------
    model : Model
        The problem to solve.
    method : str
        One of ``METHODS``, or ``"auto"``.
    side : str
        ``"primal"`` or ``"dual"``.

    Returns
    -------
    str or None
        None where the method applies, else the reason why not.
    """
    return _method(method).accepts(model, side)


def solve(
    model,
    method: str = "clarabel",
    side: str = "dual",
    warm_start=None,
    tol: float = 1e-6,
    *,
    options: AuglagOptions | None = None,
    **kwargs,
) -> Solution:
    """Solve ``model`` (a :class:`~dualboost.problems.Model`) and return a certified Solution.

    ``method``: one of ``METHODS``, or ``"auto"`` (the fastest that applies, falling back to the next
    where one does not certify its solution: :mod:`dualboost.solvers.auto`); ``side``: ``"primal"`` or
    ``"dual"``; ``tol``: the relative
    gap and feasibility tolerance of the certificate. ``warm_start`` (a previous Solution, of the
    model before columns were appended) is used by ``"auglag"`` (its w and its curvature) and by
    ``"highs"`` on the primal side (its HiGHS model and basis); the interior-point methods accept
    and ignore it. Models that can be infeasible (SoftBoost, the corrective subproblems) are checked
    first by an independent computation and return ``status="infeasible"``. A method that does not
    apply (:func:`accepts`) is a ValueError that says why and what applies instead.

    ``options``: the method's options object, None for its defaults: an :class:`AuglagOptions` for
    ``"auglag"`` (the other methods have none; a wrong type is a ValueError naming ``options``).
    ``kwargs`` go to the method: ``max_iter`` and ``removed`` (the columns removed since
    ``warm_start``) for ``"auglag"``, cvxpy's solver arguments (``verbose=True``, ...) for the
    cvxpy methods.

    Parameters
    ----------
    model : Model
        The problem model (a :class:`~dualboost.problems.Model`).
    method : str
        The solve method (above).
    side : str
        The side to solve and certify.
    warm_start : Solution or None
        A previous solution of the model before columns were appended.
    tol : float
        The relative gap and feasibility tolerance of the certificate.
    options : AuglagOptions or None
        The method's options, None for its defaults.
    **kwargs
        Passed to the method (``max_iter``, ``removed``, cvxpy's solver arguments).

    Returns
    -------
    Solution
        The certified solution (``status="infeasible"`` for an infeasible model).
    """
    if not isinstance(method, str) or method.lower() not in (*REGISTRY, AUTO):
        raise ValueError(f"method must be one of {', '.join(map(repr, (*METHODS, AUTO)))}; got {method!r}")
    if side not in SIDES:
        raise ValueError(f"side must be 'primal' or 'dual'; got {side!r}")
    tol = check_scalar(tol, "tol")
    if tol <= 0:
        raise ValueError(f"tol must be > 0; got {tol!r}")
    if warm_start is not None and not isinstance(warm_start, Solution):
        raise ValueError("warm_start must be None or a Solution returned by an earlier solve")
    chosen = _method(method.lower())
    if options is not None and (chosen.options is None or not isinstance(options, chosen.options)):
        want = "None" if chosen.options is None else f"None or {chosen.options.__name__}"
        newton = isinstance(options, NewtonOptions)
        hint = " (Newton's knobs go in AuglagOptions(newton=...))" if newton else ""
        got = type(options).__name__
        raise ValueError(f"options for method={chosen.name!r} must be {want}; got {got}{hint}")
    if not model.is_feasible():
        return Solution.without_point(
            "infeasible", chosen.name, side, tol, message="the primal feasible set is empty"
        )
    reason = chosen.accepts(model, side)
    if reason is not None:
        raise ValueError(reason)
    return chosen.run(model, side, tol, warm_start, options, **kwargs)
