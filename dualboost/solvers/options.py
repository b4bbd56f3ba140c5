"""How to steer ``method="auglag"``: its tuning knobs as frozen dataclasses (docs/solvers.md#options).

``model.solve(method="auglag", options=AuglagOptions(...))`` takes one :class:`AuglagOptions`,
whose ``newton`` field holds the :class:`NewtonOptions` of its active-set Newton steps
(:mod:`dualboost.solvers.newton`). Every default is a measured choice; the measurements are in
docs/solvers.md, under the section each field links to, not here. ``options=None`` means the
defaults, or those set for a block of code by :func:`default_options` (a boosting driver or an
estimator solves many subproblems and takes no ``options`` itself)::

    with default_options(AuglagOptions(newton=NewtonOptions(kept_min_work=0.0))):
        ERLPBoostClassifier().fit(X, y)

``callback`` observes a solve: it is called with a :class:`Stage` after each stage, and once with
the certified Solution at the end.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, NamedTuple

__all__ = ["AuglagOptions", "NewtonOptions", "Stage", "default_options", "options_for", "defaults"]


class Stage(NamedTuple):
    """What ``AuglagOptions.callback`` receives: a stage of a solve and where it ended.

    ``name``, on the simplex (docs/solvers.md#the-hand-written-dual-path-methodauglag):
    ``"warm_start"`` or ``"warm_newton"``, ``"uniform_start"``, ``"lp_limit"`` (Newton from the LP
    limit's solution; ``gap`` inf and ``steps`` 0 where HiGHS failed), ``"lp_limit_rounds"`` (the
    augmented Lagrangian rounds after it), ``"continuation"`` (the problem at eta/10, whose own
    stages are reported before it), ``"augmented_lagrangian"``, ``"compiled"`` (the compiled Newton
    loop's warm re-solve or cold start, ``NewtonOptions.compiled``); on every domain ``"solved"`` (the
    end: ``solution`` is the certified Solution, ``steps`` its iterations). ``model``: the model the
    stage solved (a continuation stage's is at eta/10); ``gap``: the certified relative gap it
    reached; ``steps``: its iterations."""

    name: str
    model: Any
    gap: float
    steps: int
    solution: Any = None


def _check(value: object, name: str, kind: type, low: float, high: float = math.inf) -> None:
    """``value`` is a ``kind`` (an int is a float too; a bool is neither) in ``[low, high]``."""
    kinds = numbers.Real if kind is float else numbers.Integral
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        what = "an integer" if kind is int else "a number"
        raise ValueError(f"{name} must be {what} in [{low:g}, {high:g}]; got {value!r}")


@dataclass(frozen=True)
class _Options:
    """Checks every field against its declared kind and range (``metadata``) when built."""

    def __post_init__(self) -> None:
        for f in fields(self):
            if "range" in f.metadata:
                kind, low, high = f.metadata["range"]
                _check(getattr(self, f.name), f"{type(self).__name__}.{f.name}", kind, low, high)


def _field(default: float, kind: type, low: float = 0.0, high: float = math.inf) -> Any:
    """A numeric option with its kind and range."""
    return field(default=default, metadata={"range": (kind, low, high)})


@dataclass(frozen=True)
class NewtonOptions(_Options):
    """The knobs of the active-set Newton steps (:func:`~dualboost.solvers.newton.newton_polish`);
    each links to the docs/solvers.md section with its measurements."""

    #: Newton steps without a better certified gap before the caller's first-order method takes
    #: over (docs/solvers.md#options-warm-starts)
    patience: int = _field(20, int, 1)
    #: step halvings of the line search before the step is damped instead (Levenberg-Marquardt;
    #: docs/solvers.md#the-hand-written-dual-path-methodauglag)
    backtrack: int = _field(6, int, 1)
    #: products ``H v`` a conjugate-gradient step may take before the Hessian is formed anew at the
    #: current point (docs/solvers.md#options-conjugate-gradient-steps)
    pcg_max: int = _field(12, int, 1)
    #: ... and after a step that took more than this many, the next point forms it anew
    pcg_refresh: int = _field(8, int, 0)
    #: the largest relative residual of a conjugate-gradient step: the forcing term is
    #: ``min(pcg_rtol, sqrt(gap))`` while the gap is above ``pcg_near`` times the target, then
    #: ``min(pcg_rtol, gap)`` (docs/solvers.md#options-conjugate-gradient-steps)
    pcg_rtol: float = _field(0.1, float, 0.0, 1.0)
    pcg_near: float = _field(3.0, float, 0.0)
    #: products ``H v`` (and the trust radius's pass ``U x``) are made in single precision where the
    #: forcing term is at least ``single_rtol`` and a pass reads at least ``single_min_work`` entries
    #: of U (docs/solvers.md#single-precision-products)
    single_rtol: float = _field(1e-4, float, 0.0)
    single_min_work: float = _field(2e5, float, 0.0)
    #: a kept Hessian preconditions conjugate gradients only where forming the exact one costs at
    #: least this many multiply-adds, N |S|^2 (docs/solvers.md#options-conjugate-gradient-steps)
    kept_min_work: float = _field(3e7, float, 0.0)
    #: the relative ridges (of ``max |H_ii|``) tried in turn to make ``r I - H`` numerically definite
    #: (docs/solvers.md#options-ridges)
    ridges: tuple[float, ...] = (1e-8, 1e-6, 1e-4)
    #: the trust radius of a first trial (the largest first-order change of log d), and its bounds
    #: (docs/solvers.md#step-length)
    radius: float = _field(4.0, float, 0.0)
    radius_min: float = _field(0.25, float, 0.0)
    radius_max: float = _field(1e3, float, 0.0)
    #: a direction longer than this (max norm, relative to the weights' total) is the ridge's
    #: amplification of a singular face: its clipped full step is taken (docs/solvers.md#step-length)
    singular: float = _field(1e4, float, 0.0)
    #: the relative fall of D that the line search takes for rounding where the certified gap falls
    #: (docs/solvers.md#the-hand-written-dual-path-methodauglag)
    rounding: float = _field(1e-9, float, 0.0)
    #: columns held at 0 beyond this fraction of the kept face: the Hessian on the smaller face is
    #: formed anew (docs/solvers.md#options-conjugate-gradient-steps)
    max_held: float = _field(0.25, float, 0.0)
    #: weights below this fraction of their sum do not stop a first trial at a breakpoint
    #: (docs/solvers.md#options-breakpoints)
    negligible_weight: float = _field(1e-12, float, 0.0)
    #: the compiled Newton loop (``dualboost.solvers.compiled``, docs/architecture.md#compiled-code) on
    #: ERLPBoost's dual before the Python stages, its certificate deciding: "cold" (the default) for
    #: a cold solve (no warm start) where it pays (docs/solvers.md#options-the-compiled-re-solve),
    #: "auto" for those and for every warm re-solve too, where the compiled module is built; True as
    #: "auto" (warning once per process where it is not built); False the Python path only (the
    #: reference). Warm re-solves stay opt-in: at a boosting run's tolerance the loop lands on other
    #: certified points than the Python path, so a run takes another (equally certified) trajectory
    #: than the Python path and the Dask fit that users compare it with, for 1.3-1.7x measured
    #: (docs/architecture.md#compiled-code); a run's only cold solve is its first, at t = 1 (uniform
    #: w, optimal on either path), so "cold" leaves its trajectory as the Python path's
    compiled: bool | str = "cold"

    def __post_init__(self) -> None:
        super().__post_init__()
        named = isinstance(self.compiled, str) and self.compiled in ("auto", "cold")
        if not (isinstance(self.compiled, bool) or named):
            raise ValueError(
                f"NewtonOptions.compiled must be True, False, 'auto' or 'cold'; got {self.compiled!r}"
            )
        ridges = self.ridges
        if not isinstance(ridges, tuple) or not ridges:
            raise ValueError(f"NewtonOptions.ridges must be a non-empty tuple of numbers > 0; got {ridges!r}")
        for ridge in ridges:
            _check(ridge, "NewtonOptions.ridges", float, 1e-300)
        if self.radius_min > self.radius_max:
            raise ValueError(
                "NewtonOptions.radius_min must be <= radius_max; "
                f"got {self.radius_min!r} > {self.radius_max!r}"
            )


@dataclass(frozen=True)
class AuglagOptions(_Options):
    """The knobs of ``method="auglag"`` (:mod:`dualboost.solvers.auglag`): which stages a solve
    takes and for how long; each links to the docs/solvers.md section with its measurements."""

    #: cold starts above this eta go through eta/10, eta/100, ... (each stage warm-starts the next),
    #: and so do warm starts that miss the tolerance within ``warm_budget`` iterations
    #: (docs/solvers.md#options-eta-continuation)
    continuation_eta: float = _field(1e3, float, 0.0)
    #: the certified relative gap to which a continuation stage is solved (its solution only starts
    #: the next stage; docs/solvers.md#options-eta-continuation)
    coarse_gap: float = _field(1e-3, float, 0.0)
    #: L-BFGS-B iterations of a warm start at large eta before the LP limit or continuation
    warm_budget: int = _field(1000, int, 1)
    #: L-BFGS-B iterations per round before Newton takes a turn
    lbfgsb_round: int = _field(300, int, 1)
    #: the certified relative gap below which Newton takes over from L-BFGS-B
    newton_gap: float = _field(1e-2, float, 0.0)
    #: Newton first from a cold start where D is smooth (eta <= newton_first_eta) and its Hessian
    #: cheap (t <= newton_first_t) (docs/solvers.md#options-newton-first)
    newton_first_eta: float = _field(200.0, float, 0.0)
    newton_first_t: int = _field(64, int, 0)
    #: Newton first after a continuation stage, whatever eta, where t <= newton_after_stage_t
    #: (docs/solvers.md#options-newton-first)
    newton_after_stage_t: int = _field(64, int, 0)
    #: Newton steps tried first after a new column (docs/solvers.md#options-warm-starts)
    newton_warm_steps: int = _field(50, int, 0)
    #: Newton steps from the LP limit's solution (docs/solvers.md#the-hand-written-dual-path-methodauglag)
    lp_newton_steps: int = _field(50, int, 0)
    #: at eta > lp_first_eta, at most lp_warm_steps Newton steps from a warm start before the LP limit
    #: is tried, stopping after lp_warm_patience steps that did not bring the best gap below
    #: lp_warm_progress times itself (docs/solvers.md#options-the-lp-limits-start)
    lp_warm_steps: int = _field(10, int, 0)
    lp_warm_patience: int = _field(3, int, 1)
    lp_warm_progress: float = _field(0.5, float, 0.0, 1.0)
    lp_first_eta: float = _field(1e4, float, 0.0)
    #: above this eta Newton's first trial stops at the first breakpoint (docs/solvers.md#options-breakpoints)
    breakpoint_eta: float = _field(1e3, float, 0.0)
    #: the LP limit is used only up to this many examples (it is solved from scratch at each use;
    #: docs/solvers.md#options-the-lp-limits-start)
    lp_max_samples: int = _field(2000, int, 0)
    #: cold starts at eta > lp_cold_eta with t <= lp_cold_t and lp_cold_min_samples <= N <=
    #: lp_max_samples take Newton from the LP limit's solution before continuation
    #: (docs/solvers.md#options-the-lp-limits-start; lp_cold_min_samples is no crossover: the LP
    #: start was faster down to N = 100 on 24 of 25 instances, measured there)
    lp_cold_eta: float = _field(2e3, float, 0.0)
    lp_cold_t: int = _field(64, int, 0)
    lp_cold_min_samples: int = _field(500, int, 0)
    #: the Newton steps' own knobs
    newton: NewtonOptions = field(default_factory=NewtonOptions)
    #: called with a :class:`Stage` after each stage of a solve and at its end (``"solved"``)
    callback: Callable[[Stage], None] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.newton, NewtonOptions):
            raise ValueError(f"AuglagOptions.newton must be a NewtonOptions; got {self.newton!r}")
        if self.callback is not None and not callable(self.callback):
            raise ValueError(f"AuglagOptions.callback must be None or callable; got {self.callback!r}")


#: the options set by :func:`default_options` for the current context, by class
_DEFAULTS: ContextVar[dict[type, object] | None] = ContextVar("dualboost_solver_options", default=None)


@contextmanager
def default_options(*options: AuglagOptions) -> Iterator[None]:
    """Within the block, solves given ``options=None`` use these (one object per options class),
    e.g. every subproblem of a boosting driver or an estimator's fit. Blocks nest; the innermost
    wins."""
    chosen = dict(_DEFAULTS.get() or {})
    for option in options:
        if not isinstance(option, AuglagOptions):
            raise ValueError(f"default_options takes AuglagOptions objects; got {option!r}")
        chosen[type(option)] = option
    token = _DEFAULTS.set(chosen)
    try:
        yield
    finally:
        _DEFAULTS.reset(token)


@cache
def defaults(cls: type[AuglagOptions] | type[NewtonOptions]) -> AuglagOptions | NewtonOptions:
    """The default options of ``cls``, built (and checked) once: they are frozen, so shared."""
    return cls()


def options_for(cls: type[AuglagOptions], options: object) -> AuglagOptions:
    """``options`` (None: those of the enclosing :func:`default_options` block, else the defaults),
    checked to be a ``cls``: a ValueError naming ``options`` otherwise.

    Parameters
    ----------
    cls : type
        The options class expected.
    options : object
        The options given, None for the enclosing block's or the defaults.

    Returns
    -------
    AuglagOptions
        The options to use.
    """
    if options is None:
        return (_DEFAULTS.get() or {}).get(cls) or defaults(cls)
    if not isinstance(options, cls):
        raise ValueError(f"options must be None or {cls.__name__}; got {type(options).__name__}")
    return options
