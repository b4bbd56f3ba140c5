"""The one loop of every totally corrective driver: column generation over a :class:`Formulation`.

Iteration t (docs/architecture.md#layers): the oracle returns the maximum-edge hypothesis h^t for the
pricing distribution of d^{t-1}; its column u^t joins U unless h^t was selected before; the
formulation tests its stopping rule before the re-solve (:meth:`Formulation.before`: ERLPBoost's
delta~, the max-edge bound of MDBoost and NM-Boost, CGBoost's reduced cost; then T = t - 1) or after
it (:meth:`Formulation.after`: LPBoost's and QRLP-Boost's LP gap, SoftBoost's zero in d; then T = t);
the model of the hypotheses so far is re-solved, warm-started from the previous certified solution
(:meth:`Formulation.solve`), and its d is d^t. The stopping rules and their certificates are those
of the drivers' modules (:mod:`~dualboost.boosting.totally_corrective.drivers`,
:mod:`~dualboost.boosting.totally_corrective.formulations`).

A formulation keeps its own running quantities (the minima of the stopping rules, ...) as
attributes; :meth:`Formulation.state` names them for the run's checkpoints.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dualboost._threads import single_blas_thread
from dualboost.boosting.core.result import n_positive
from dualboost.boosting.core.run import Ensemble, Run
from dualboost.oracles import DecisionStumps
from dualboost.problems import ColumnIndependent
from dualboost.problems.kernels import StumpFeatures
from dualboost.problems.sparse_columns import stump_operator
from dualboost.solvers import Solution

__all__ = ["Formulation", "Stop", "Outcome", "GrowingModel", "column_generation", "solve_certified"]

#: an inexact certified re-solve is repeated, warm-started, with a tolerance this many times smaller,
#: at most ``RESOLVES`` times
TIGHTEN, RESOLVES = 100.0, 3


@dataclass(frozen=True)
class Stop:
    """Why a run ends at this iteration: its stopping ``quantity``, ``reason`` (a word of
    :data:`~dualboost.boosting.core.result.STOP_REASONS`), ``detail`` and whether its rule was met."""

    quantity: float
    reason: str
    detail: str
    converged: bool = True


@dataclass
class Outcome:
    """The end of a :func:`column_generation` run: the last certified solution (None if none was
    made), the last d in the model's domain, and how the run ended."""

    sol: Solution | None
    d: object
    converged: bool
    reason: str
    detail: str


class GrowingModel:
    """The model of the hypotheses so far, for a booster that re-solves one model over a growing U:
    built once by ``build(U)`` (its parameters checked then), afterwards the same model over the
    ensemble's columns (:meth:`~dualboost.problems.ColumnIndependent.with_columns`, nothing checked
    again). Calling it gives the model of ``ensemble.U``.

    Parameters
    ----------
    ensemble : Ensemble
        The hypotheses so far.
    build : callable
        The first model, of the column matrix U.
    """

    def __init__(self, ensemble, build: Callable[[NDArray[np.float64]], ColumnIndependent]) -> None:
        self.ensemble, self.build = ensemble, build
        self.model: ColumnIndependent | None = None
        #: the oracle, where it is decision stumps: the model gets the implicit operator of the
        #: ensemble's columns (:func:`~dualboost.problems.sparse_columns.stump_operator`); set by
        #: :func:`column_generation`
        self.stumps = None
        #: the last operator of each kind made so far (the one of the kind chosen next is extended:
        #: a run whose sort orders stop paying for a while, at a new feature, and pay again does not
        #: make either operator again from all its columns)
        self._operators: tuple = ()
        #: the census of the features of the ensemble's stumps (grown with its list of hypotheses)
        self._features: StumpFeatures | None = None

    def __call__(self) -> ColumnIndependent:
        U = self.ensemble.U
        self.model = self.build(U) if self.model is None else self.model.with_columns(U)
        if self.stumps is not None:
            hypotheses, features = self.ensemble.hypotheses, self._features
            if features is None or features.hypotheses is not hypotheses:
                features = self._features = StumpFeatures(hypotheses)
            operators = self._operators
            operator = stump_operator(self.stumps, hypotheses, operators, features=features)
            if operator is None:
                self._operators = ()
            elif not operators or type(operators[0]) is not type(operator):  # (the kind changed)
                self._operators = (
                    operator,
                    *(other for other in operators if type(other) is not type(operator)),
                )
            else:  # (the latest is of this kind: the one it replaces)
                self._operators = (operator, *operators[1:])
            self.model.stump_columns = operator
        return self.model


class Formulation(ABC):
    """One totally corrective algorithm as :func:`column_generation` runs it: its start, pricing,
    restricted model, certified re-solve and stopping rule (module docstring).

    Parameters
    ----------
    ensemble : Ensemble
        The hypotheses so far.
    eps : float
        The precision of the stopping rule.
    method : str
        The subproblem's solve method.
    tol : float
        The subproblem's tolerance.
    """

    #: the name of the algorithm (results, checkpoints, warnings)
    name: str
    #: the stopping rule, as the history's threshold description
    rule: str
    #: whether the pricing vector may be signed (``Oracle.best(d, signed=True)``)
    signed: bool = False
    #: whether d may vanish (then every edge is 0 and the last certified gap ends the run)
    can_vanish: bool = False
    #: whether :meth:`pricing` is, after the run's first iteration, a certified solution's d as it is
    #: (finite, non-negative, summing to 1: ``certify`` moved it onto the capped simplex), which the
    #: decision-stump oracle takes without checking it again (``Oracle.best(d, checked=True)``); the
    #: first d (d^0, or a resumed checkpoint's) is always checked
    certified_pricing: bool = False

    def __init__(self, ensemble: Ensemble, eps: float, method: str, tol: float) -> None:
        self.eps, self.method, self.tol = eps, method, tol
        self.growing = GrowingModel(ensemble, self.build)

    def build(self, U: NDArray[np.float64]):
        """The first restricted model (its parameters checked once); for :meth:`model`."""
        raise NotImplementedError  # pragma: no cover - a formulation overrides build or model

    def growing_models(self) -> list[GrowingModel]:
        """The growing models whose restricted models :meth:`model` returns (default :attr:`growing`):
        :func:`column_generation` gives them the oracle where it is decision stumps."""
        return [self.growing]

    def start(self, n: int) -> NDArray[np.float64]:
        """d^0, in the model's d-domain (default the uniform distribution)."""
        return np.full(n, 1.0 / n)

    def pricing(self, d):
        """The normalised distribution (or signed vector) that the oracle sees for d (default d)."""
        return d

    def state(self) -> dict:
        """The running quantities a checkpoint saves, by name (default none)."""
        return {}

    def restore(self, state: dict) -> None:
        """Take back the quantities of :meth:`state` (a resumed or seeded run)."""
        for name, value in state.items():
            setattr(self, name, value)

    def seen(self, selection, is_new: bool) -> None:  # noqa: B027 - a hook, empty by default
        """The oracle's answer, before the model is built (default: nothing)."""

    def model(self, d):
        """The restricted model over the ensemble's columns (``d``: the last d, for a moving centre)."""
        return self.growing()

    def before(self, model, d, selection, position: int, is_new: bool, sol: Solution | None):
        """Before the re-solve: a :class:`Stop`, or the stopping quantity (NaN: tested after the
        re-solve, :meth:`after`)."""
        return math.nan

    @abstractmethod
    def solve(self, model, sol: Solution | None, is_new: bool) -> Solution:
        """The certified re-solve, warm-started from ``sol``."""

    def ended(self, model, sol: Solution) -> Stop | None:
        """A :class:`Stop` when the re-solve has no point and says the run is over (SoftBoost's
        infeasible problem), else None."""
        return None

    def after(self, model, d, selection, position: int, is_new: bool, sol: Solution):
        """After a re-solve with a point: ``(stopping quantity or None, Stop or None)``; None keeps the
        quantity of :meth:`before` (default)."""
        return None, None

    def next_d(self, model, sol: Solution):
        """The next d (default the solution's; the Dask driver keeps it on the workers)."""
        return sol.d

    def weights(self, sol: Solution | None) -> NDArray[np.float64]:
        """The output weights of a solution, in the simplex."""
        return np.zeros(0) if sol is None else sol.w

    def kept(self, sol: Solution) -> NDArray[np.float64]:
        """The w of the iterate ``(d^t, w^t)`` a run keeps (default :meth:`weights`)."""
        return self.weights(sol)


def column_generation(run: Run, ensemble: Ensemble, form: Formulation, d, max_iter: int) -> Outcome:
    """The loop of every totally corrective driver (module docstring) from d^0 = ``d``.

    Parameters
    ----------
    run : Run
        The run (clock, history, checkpoints, options).
    ensemble : Ensemble
        The hypotheses so far.
    form : Formulation
        The algorithm.
    d : ndarray
        The starting distribution d^0.
    max_iter : int
        The iteration cap.

    Returns
    -------
    Outcome
        The last solution, distribution and stop.
    """
    # BLAS on one thread for the whole run (each solve's own context then costs a counter, instead of
    # reading and setting the libraries' thread counts twice per iteration: dualboost._threads)
    with single_blas_thread():
        return _loop(run, ensemble, form, d, max_iter)


def _loop(run: Run, ensemble: Ensemble, form: Formulation, d, max_iter: int) -> Outcome:
    """:func:`column_generation`'s loop."""
    sol = None
    run.keep(form.pricing(d), np.zeros(0))
    first, (d, sol, *rest) = run.resume(ensemble, d=d, sol=sol, **form.state())
    stumps = type(run.oracle) is DecisionStumps  # a subclass may make other columns of its stumps
    if stumps:
        for growing in form.growing_models():
            growing.stumps = run.oracle
    form.restore(dict(zip(form.state(), rest, strict=True)))
    stop: Stop | None = None
    for t in range(first, max_iter + 1):
        if form.can_vanish and not np.any(d != 0):
            stop = _vanished(run, t, form, sol)
            break
        checked = stumps and form.certified_pricing and t > first  # (Oracle.best's internal entry)
        selection = run.ask(form.pricing(d), signed=form.signed, checked=checked)
        position, is_new = ensemble.add(selection, unit=stumps)  # (a stump's column is all -1 or +1)
        form.seen(selection, is_new)
        with run.solving():
            model = form.model(d)
            quantity = form.before(model, d, selection, position, is_new, sol)
        if isinstance(quantity, Stop):
            stop = quantity
            run.record(t, selection.edge, stopping=stop.quantity, n_hypotheses=n_positive(form.weights(sol)))
            break
        with run.solving():
            new = form.solve(model, sol, is_new)
            ended = form.ended(model, new)
        if ended is not None:
            stop = ended
            run.record(t, selection.edge, stopping=stop.quantity, n_hypotheses=n_positive(form.weights(sol)))
            break
        sol = _require_point(new, form.name, t)
        with run.solving():
            found, stop = form.after(model, d, selection, position, is_new, sol)
            d = form.next_d(model, sol)
        quantity = quantity if found is None else found
        run.record(
            t,
            selection.edge,
            primal=sol.primal_value,
            dual=sol.dual_value,
            stopping=quantity,
            n_hypotheses=n_positive(sol.w),
        )
        run.keep(form.pricing(d), form.kept(sol))
        if stop is not None:
            break
        if run.checkpoint is not None:  # (the formulation's state gathered only for a checkpoint)
            run.save(t, ensemble, d=d, sol=sol, **form.state())
        timed = run.out_of_time()
        if timed:
            stop = Stop(quantity, *timed, converged=False)
            break
    stop = stop or Stop(math.nan, "max_iter", f"max_iter={max_iter}", converged=False)
    return Outcome(sol, d, stop.converged, stop.reason, stop.detail)


def _vanished(run: Run, t: int, form: Formulation, sol: Solution | None) -> Stop:
    """The stop of a run whose d vanished (MDBoost's 1/D - U v or CGBoost's d): every edge at d = 0 is
    0, so the full primal there is the restricted one, and the last certified gap bounds the loss
    (MDBoost: P(0) = f(0) = P^t(0); CGBoost: M = 0)."""
    gap = 0.0 if sol is None else max(sol.gap, 0.0)
    run.record(t, 0.0, stopping=gap, n_hypotheses=n_positive(form.weights(sol)))
    return Stop(gap, "converged", "d = 0: every edge is 0, the last certified gap bounds the loss")


def solve_certified(model, method: str, warm: Solution | None, tol: float, max_gap: float | None) -> Solution:
    """``model.solve`` warm-started from ``warm``; while the certified gap exceeds ``max_gap``, solve
    again from the result with a tolerance ``TIGHTEN`` times smaller (at most ``RESOLVES`` times).
    Only a solve that reached its tolerance is tightened (its relative gap met ``tol`` but the
    absolute gap did not meet ``max_gap``): a solve that missed its tolerance would only be asked
    for more of what it could not do (at eta = 1.2e6 that took minutes for nothing).

    Parameters
    ----------
    model : object
        The restricted model.
    method : str
        The solve method.
    warm : Solution or None
        The previous solution, or None.
    tol : float
        The solve's tolerance.
    max_gap : float or None
        The largest certified gap accepted (None: no re-solve).

    Returns
    -------
    Solution
        The last solution.
    """
    sol = model.solve(method=method, side="dual", warm_start=warm, tol=tol)
    for _ in range(RESOLVES):
        if max_gap is None or sol.w is None or sol.gap <= max_gap or sol.status != "optimal":
            break
        tol /= TIGHTEN
        sol = model.solve(method=method, side="dual", warm_start=sol, tol=tol)
    return sol


def _require_point(sol: Solution, algorithm: str, t: int) -> Solution:
    """``sol``, which must hold a primal-dual pair (a RuntimeError naming the iteration otherwise)."""
    if sol.d is None or sol.w is None:
        raise RuntimeError(
            f"{algorithm}: the subproblem of iteration {t} returned no primal-dual pair "
            f"(status {sol.status!r}, method {sol.method!r}): {sol.message}"
        )
    return sol
