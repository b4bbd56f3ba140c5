"""What a solver needs from a model: the contract between the problems and the solvers.

A solver reaches a model only through the four Protocols below (docs/architecture.md#the-solver-contract);
every member a solver reads is declared in one of them, and no solver probes a model with
``hasattr``/``getattr`` (``tests/solvers/test_contract_members.py`` checks both). A new model provides:

1. :class:`Certifiable`, always: both objectives, the d-map ``d_from_w``, the repairs onto the
   feasible sets, ``parameters()``; every method's result is certified by the model itself
   (:func:`~dualboost.solvers.certify.certify`), never copied from a solver's report.
2. :class:`CvxpyForms` for ``method`` in ``clarabel``, ``ecos``, ``scs``: the two sides as cvxpy
   problems. Subclassing :class:`~dualboost.problems.Model` means writing these (1 and 2).
3. :class:`LinearProgram` for ``method="highs"`` (LPBoost): the LP on either side, and its d-domain
   LP that grows by rows for warm starts.
4. :class:`SmoothDual` for ``method="auglag"``: a differentiable w-domain dual with its curvature.
   ``Model`` implements it for ``D(w) = -f*(-U w)`` when the regulariser is a
   :class:`~dualboost.conjugates.traits.SmoothConjugate` (every smooth conjugate of the library,
   whose Hessian is ``scale (diag(g) - V S^+ V^T)``); a model only chooses its ``w_domain``
   (:class:`WDomain`). The members that only some models have are optional capabilities with
   defaults on ``Model`` (see :class:`SmoothDual`): the max-edge members on the simplex (subclass
   :class:`~dualboost.problems.max_edge.MaxEdgeModel`), the line of a corrective step, the l1 ball's
   simplex form, where a warm start's columns sit, an eta family (eta continuation and the LP
   limit), the trust radius's step measure.

(``method="highs"`` also solves the growing LP without LPBoost's ``nu`` and the diagonal QPs: the
``HighsProgram`` and ``QuadraticProgram`` of :mod:`dualboost.solvers.highs`.)

So a new smooth model is ten lines: subclass ``MaxEdgeModel``, set ``regularizer`` to a conjugate
of the library and write ``parameters()`` (docs/architecture.md has the example). Each method's
``accepts(model, side)`` (``dualboost.solvers.REGISTRY``, :func:`dualboost.solvers.accepts`) says
which Protocol it needs and why a model is refused; ``Model.solve`` documents the methods and their
``options``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import cvxpy as cp
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "implements",
    "CvxpyModel",
    "KKTMultipliers",
    "WDomain",
    "Certifiable",
    "CvxpyForms",
    "LinearProgram",
    "SmoothDual",
]

if TYPE_CHECKING:
    from dualboost.conjugates.traits import SmoothConjugate

Vector = NDArray[np.float64]


# --- what solvers hand back to models ------------------------------------------------------------
@dataclass
class CvxpyModel:
    """A cvxpy problem and the function that reads ``(d, w)`` from it after a solve."""

    problem: cp.Problem
    readout: Callable[[], tuple[NDArray[np.float64] | None, NDArray[np.float64] | None]]


@dataclass
class KKTMultipliers:
    """Dual variables recovered from a primal point by the active-set method ([KG] App. A).

    ``w``: hypothesis weights; ``psi``: multipliers of the caps d_n <= 1/nu (zero off the active
    set); ``beta``: multiplier of sum d = 1; ``residual``: max-norm residual of the stationarity
    system; ``active_w`` / ``active_psi``: the active sets that were used.
    """

    w: NDArray[np.float64]
    psi: NDArray[np.float64]
    beta: float
    residual: float
    active_w: NDArray[np.intp]
    active_psi: NDArray[np.intp]


class WDomain(str, Enum):
    """The set the dual's weights w live on (a ``str``: ``WDomain.SIMPLEX == "simplex"``)."""

    #: ``sum w = 1, w >= 0`` (ERLPBoost, Binary ERLPBoost, LPBoost, the simplex relaxations)
    SIMPLEX = "simplex"
    #: ``w >= 0``, unnormalised (SoftBoost)
    ORTHANT = "orthant"
    #: ``w(a) = ((1 - a) w_prev, a)``, one variable (the corrective subproblems)
    LINE = "line"
    #: ``||w||_1 <= 1`` (the signed relaxations of [SS], form ``"abs"``)
    L1_BALL = "l1-ball"

    def __str__(self) -> str:
        return self.value


@runtime_checkable
class Certifiable(Protocol):
    """What every method's result needs: the model certifies a pair ``(d, w)`` itself."""

    name: str
    n_samples: int
    n_hypotheses: int
    w_domain: WDomain

    def primal_objective(self, d: Vector) -> float:
        """The d-domain objective; ``+inf`` outside the feasible set (beyond 1e-9)."""

    def dual_objective(self, w: Vector) -> float:
        """The w-domain objective with the auxiliary multipliers maximised out; ``-inf`` outside."""

    def d_from_w(self, w: Vector) -> Vector:
        """The primal point of a dual one (the d-map)."""

    def repair_primal(self, d: Vector) -> tuple[Vector, float]:
        """The nearest primal-feasible point and the max-norm distance moved."""

    def repair_dual(self, w: Vector) -> tuple[Vector, float]:
        """The nearest dual-feasible point and the max-norm distance moved."""

    def is_feasible(self) -> bool:
        """Whether the primal feasible set is non-empty (checked independently before a solve)."""

    def parameters(self) -> dict[str, float]:
        """The model's numeric parameters other than U (nu, eta, ...): a warm-start state is reused
        only under equal parameters."""


@runtime_checkable
class CvxpyForms(Certifiable, Protocol):
    """Both sides as cvxpy problems, built from ``U`` in memory."""

    U: Vector

    def cvxpy_primal(self) -> CvxpyModel:
        """The primal cvxpy problem and its ``readout() -> (d, w)``."""

    def cvxpy_dual(self) -> CvxpyModel:
        """The dual cvxpy problem and its ``readout() -> (d, w)``."""


@runtime_checkable
class LinearProgram(Certifiable, Protocol):
    """A linear program that HiGHS solves on either side."""

    U: Vector
    nu: float

    def solve_linear_program(self, side: str) -> tuple[Vector, Vector, int | None]:
        """``(d, w, iterations)`` from HiGHS on ``side``; RuntimeError unless HiGHS says optimal."""

    def primal_lp(self, n_columns: int | None = None) -> Any:
        """The d-domain LP as a HiGHS model that grows by rows (a ``PrimalLP``), for warm starts."""


@runtime_checkable
class SmoothDual(Certifiable, Protocol):
    """A differentiable w-domain dual ``D(w)`` with its curvature: what ``method="auglag"`` needs.

    Every smooth dual: ``smooth_dual`` (whether this instance's dual is differentiable with its
    curvature: a relaxation's depends on its form and regulariser; ``Model``'s
    ``D(w) = -f*(-U w)`` needs a :class:`~dualboost.conjugates.traits.SmoothConjugate`, and says why
    not in ``nonsmooth_reason()``), ``regularizer`` (whose ``with_warm_starts()`` copy the solver
    passes to ``dual_value_and_grad``), ``warm_points``, the value and gradient, the Hessian formed,
    as products, and by blocks, and ``dual_step_spread`` (Newton's trust radius; ``Model``'s
    default asks the regulariser, 0 is "no bound").

    Optional capabilities (``Model`` has the defaults in brackets; a solver reads them only where
    they apply, so a model provides the ones its ``w_domain`` or family needs):

    * on the simplex (``w_domain`` SIMPLEX; :class:`~dualboost.problems.max_edge.MaxEdgeWeights`
      provides them): ``gap_from_gradient``, ``primal_from_edges``, ``primal_bound_from_edges``
      for ``min_d max_q (U^T d)_q + f(d)`` (the gap and the primal value from the edges ``U^T d``
      a dual evaluation computed) [NotImplementedError];
    * on the line of a corrective step (``w_domain`` LINE): ``weights(a)``, the point
      ``w(a) = ((1 - a) w_prev, a)``, and ``line_start()``, the clipped step of [KG] Alg. 4.1 (b)
      [NotImplementedError];
    * on the l1 ball (``w_domain`` L1_BALL): ``simplex_form()``, the same problem on the simplex
      over ``[U, -U]`` [None];
    * where a warm start's columns are not U's first ones: ``warm_columns(n_previous)`` [the first];
    * an eta family (``eta_family`` [False]): ``parameters()["eta"]`` is its regularisation,
      ``with_eta(eta)`` the same model at another eta (eta continuation) and ``lp_limit()`` the
      linear program it tends to as eta -> infinity (None: none in memory) [ValueError, None];
    * ``hessian_work(n_columns)``: the multiply-adds of forming the Hessian on that many columns,
      which Newton weighs against keeping an older one [N |S|^2; ``Model`` fewer through its stump
      operator];
    * ``conjugate_dual`` [False]: D is exactly ``-f*(-U w)`` with the model's ``regularizer``, U a
      numpy array and the max-edge members on the simplex (ERLPBoost), so that the compiled re-solve
      of ``dualboost.solvers.compiled`` may evaluate it itself;
    * ``stump_columns`` [None]: an operator of U's columns that a run's driver sets (a stump
      operator: ``margins(w)``, ``edges(d)``, ``weighted_gram(weights)``, ``restricted(columns)``,
      ``pays(n_columns)``), through which the compiled re-solve makes its passes and Gram where it
      pays, as the model's own methods do.
    """

    smooth_dual: bool
    warm_points: bool
    eta_family: bool
    conjugate_dual: bool
    regularizer: Any
    stump_columns: Any

    def dual_value_and_grad(
        self, w: Vector, regularizer: SmoothConjugate | None = None
    ) -> tuple[float, Vector, Vector]:
        """``(D(w), grad D(w), d(w))``, defined on all of R^t."""

    def dual_hessian(self, w: Vector, columns: NDArray[np.intp], d: Vector | None = None) -> Vector:
        """The Hessian of D on ``columns`` (O(N |S|^2))."""

    def dual_hessian_operator(
        self, w: Vector, columns: NDArray[np.intp], d: Vector | None = None, single: bool = False
    ) -> Callable[[Vector], Vector]:
        """``v -> H v`` on ``columns`` without forming H (two passes over U_S); ``single``: the passes
        may be made in single precision (relative error of order 1e-6), for inexact Newton steps."""

    def dual_hessian_block(
        self, w: Vector, rows: NDArray[np.intp], columns: NDArray[np.intp], d: Vector | None = None
    ) -> Vector:
        """The block ``(rows, columns)`` of the Hessian (one pass over U)."""

    def hessian_work(self, n_columns: int) -> float:
        """The multiply-adds of forming the Hessian on ``n_columns`` columns (``dual_hessian``)."""

    def dual_step_spread(self, direction: Vector, d: Vector, single: bool = False) -> float:
        """How far ``w -> w + direction`` moves ``log d(w)``, to first order (docs/solvers.md#step-length):
        the Hessian of a softmax changes by at most ``exp(2 k)`` over a move of size k (Bach 2010;
        Karimireddy, Stich & Jaggi 2018), so Newton's quadratic model is trusted that far. 0: no
        bound. ``single``: the pass over U may be made in single precision."""

    def nonsmooth_reason(self) -> str:
        """Why ``smooth_dual`` is False, as the end of "the dual of <model> ..."; "" when it is True."""

    def warm_columns(self, n_previous: int) -> NDArray[np.intp]:
        """Where the columns of a warm start's ``n_previous`` weights sit in this model's U (``Model``:
        the first ones, new columns appended; a simplex relaxation's ``[A, -A]`` takes a new column
        of A in both halves)."""

    # -- on the simplex
    def gap_from_gradient(self, w: Vector, grad: Vector) -> float:
        """``max_q grad_q - w . grad``: the duality gap when d(w) maximises exactly."""

    def primal_from_edges(self, d: Vector, edges: Vector, f: float | None = None) -> float:
        """The primal value at d from ``edges = U^T d`` (and ``f = f(d)``, the regulariser's value,
        where the caller has it by the regulariser's own kernel: ``compiled.Evaluation.f``)."""

    def primal_bound_from_edges(self, d: Vector, edges: Vector, repaired: Vector) -> float:
        """An upper bound on the primal value at ``repaired`` from ``edges = U^T d``."""

    # -- on the line
    def weights(self, a: float) -> Vector:
        """``w(a)`` on the line of a corrective step."""

    def line_start(self) -> float:
        """The starting line parameter of a cold solve on the line."""

    # -- on the l1 ball
    def simplex_form(self) -> SmoothDual | None:
        """The same problem with its signed weights as a simplex over ``[U, -U]`` (v folds to
        ``w = v+ - v-``, docs/math.md#signed-weights), which auglag solves; None: none."""

    # -- an eta family
    def with_eta(self, eta: float) -> SmoothDual:
        """The same model at another eta."""

    def lp_limit(self) -> LinearProgram | None:
        """The linear program the model tends to as eta -> infinity (None: none in memory)."""


#: (model class, Protocol) -> whether the class's instances implement it (see :func:`implements`)
_IMPLEMENTS: dict[tuple[type, type], bool] = {}


def implements(model: object, protocol: type) -> bool:
    """``isinstance(model, protocol)`` for a Protocol of this module, decided once per model class
    (a structural check of a dozen members costs ~40 us, a boosting run asks it at every solve;
    a class's instances all set the same members in ``__init__``).

    Parameters
    ----------
    model : object
        The model to check.
    protocol : type
        A Protocol of this module.

    Returns
    -------
    bool
        Whether the model's class implements the protocol.
    """
    key = (type(model), protocol)
    found = _IMPLEMENTS.get(key)
    if found is None:
        found = _IMPLEMENTS[key] = isinstance(model, protocol)
    return found
