"""Column-generation drivers of the other totally corrective formulations
(docs/math.md#other-totally-corrective-formulations, docs/math.md#column-generation-stops):
:func:`mdboost` ([SL]), :func:`cgboost` ([BZB04]), :func:`nmboost` and :func:`qrlpboost` ([AFAHV25]).

All four run the loop of every totally corrective driver
(:func:`~dualboost.boosting.totally_corrective.column_generation.column_generation`), each a
:class:`~dualboost.boosting.totally_corrective.column_generation.Formulation`: the
pricing distribution the oracle sees, the model of the hypotheses so far and the stopping rule.
Iteration t: the oracle returns the maximum-edge hypothesis h^t for the pricing distribution of
d^{t-1}; its column u^t joins U unless h^t was selected before; the stopping rule is tested; the
restricted model is re-solved, warm-started from the previous certified solution, and certified
(its own gap and feasibility, never a solver's status); its d is d^t. A re-solve whose certificate
fails is repeated by cvxpy + Clarabel (:data:`FALLBACK`). Default methods, the fastest sound ones
measured on german (benchmarks/formulations.py): ``auglag`` for MDBoost and QRLP-Boost (0.03 s and
0.2 s against Clarabel's 0.3 s and 21 s), HiGHS for NM-Boost (its d-domain LP grown by one row and
re-solved from the previous basis: 1.3 s, Clarabel 60 s) and CGBoost (its w-domain QP: 13.7 s,
Clarabel 16.8 s).

Stopping rules, each a certified bound (the proofs, in words; docs/math.md#column-generation-stops):

* **MDBoost and NM-Boost** (max-edge pairs whose d ranges over a set F that does not depend on the
  columns: R^N for MDBoost, the box [0, 1]^N for NM-Boost). For d in F the full problem's primal
  is ``P(d) = max_{h in H} u_h . p(d) + f(d)`` with p the pricing map (``p(d) = d`` for MDBoost,
  ``d + lam 1`` for NM-Boost; the NM-Boost f is ``-tau 1^T d``). With the strongest oracle the new
  column's edge at ``p(d^{t-1})`` is that maximum, so ``P^t(d^{t-1})``, the primal of the model
  *with* the new column at the previous d, is the full problem's primal value ``P(d^{t-1})``, an upper
  bound on the full optimum (weak duality). The restricted dual value ``D^{t-1}(w^{t-1})`` is the full
  dual's value at w^{t-1} padded with zeros (the absent columns carry no weight), a lower bound.
  So the run stops when ``min_{q <= t} P^q(d^{q-1}) - D^{t-1}(w^{t-1}) <= eps`` (ERLPBoost's
  practical criterion, as in :func:`~dualboost.boosting.totally_corrective.drivers.entropy_loop`),
  and then w^{t-1} is within eps of the full optimum; T = t - 1 (the last hypothesis is discarded).
  Every re-solve is certified to a gap <= eps/2, so a re-selected hypothesis (which leaves the
  model unchanged: the quantity is at most the last gap) stops the run.
* **CGBoost** (w in the orthant). Its primal ``(1/2) ||[U^T d]_+||^2 - 1^T d`` sums over every
  column, so one oracle call gives no full primal value. The column-generation rule of [BZB04]: the
  reduced cost of column h at the restricted optimum is ``u_h . d - w_h`` (the violation of the dual
  constraint ``w_h >= u_h . d`` of the Wolfe dual; ``w_h = 0`` for an absent column). The run
  stops when the oracle's hypothesis has a normalised reduced cost ``(u_h . d - w_h) / 1^T d <= eps``
  (d is in [0, C]^N; the oracle sees ``d / 1^T d``); T = t - 1. What this guarantees: for any
  ``w' >= 0`` over the whole class, ``C [x]_+ >= d_n x`` for ``d_n`` in [0, C] gives
  ``D(w') <= -(1/2)||w'||^2 + sum_h w'_h u_h . d - 1^T d <= P^T(d) + sum_{h absent} w'_h u_h . d``,
  so ``D* - D(w^T) <= gap^T + M ||w*_absent||_1`` with M the largest edge ``u_h . d`` over the absent
  columns. When the oracle's hypothesis is absent, ``M <= eps 1^T d``: the full problem is solved to
  ``gap + eps 1^T d ||w*||_1`` (and the KKT condition ``w = [U_H^T d]_+`` of the full problem holds
  to ``eps 1^T d`` in the max-norm). When it is present (a re-selection), the max-edge oracle cannot
  price the absent columns beyond ``M <= u_h . d``: the stop then certifies only that the best
  hypothesis of the class is in the model (the history's last row says which case ended the run).
  A max-edge oracle is a heuristic pricing oracle for CGBoost: the present columns have edges
  ``w_q > 0``, so the maximum edge over the class is not the maximum reduced cost.
* **QRLP-Boost** (the centre of the quadratic moves to the previous d every iteration, as colboost
  does: :meth:`~dualboost.problems.QRLPBoost.recentred`). Stop when the LP gap
  ``min_{q <= t} u^q . d^{q-1} - AvgMin_nu(U w^t) <= eps``, tested after the re-solve; T = t. Proof:
  every ``d^{q-1}`` lies in the capped simplex, so with the strongest oracle ``u^q . d^{q-1} =
  max_{h in H} u_h . d^{q-1} >= g``, the value of the full soft-margin LP ([KG] Eq. 2.3, a
  min over the capped simplex of the max edge); and ``AvgMin_nu(U w^t)``, the mean of the nu smallest
  margins of w^t, is the LP's dual objective at w^t (Eq. 2.2), ``<= g``. So ``g - AvgMin_nu(U w^t)
  <= eps``: w^t maximises the soft margin over the class to eps, whatever the centres were. eta
  defaults to ERLPBoost's canonical ``(2/eps) ln(N/nu)``.

Each driver returns a :class:`~dualboost.boosting.core.result.BoostResult` whose ``weights`` are in
the simplex (CGBoost's orthant w normalised; ``params["w_sum"]`` is its scale ``1^T w``) and whose
``d`` is the last distribution given to the oracle, normalised: ``(d + lam 1)`` normalised for
NM-Boost, ``d / 1^T d`` for CGBoost, d for QRLP-Boost and, for MDBoost, the *signed* pricing vector
``1/D - U v`` scaled to ``sum |d| = 1`` (its negative entries are the examples whose margin exceeds
1/D).

With an oracle that is not the strongest (a scikit-learn classifier), the stopping quantities are
computed the same way but bound only the problem over the hypotheses the oracle can find.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from abc import abstractmethod

import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from dualboost._validation import check_distribution, check_max_iter, check_nu, check_positive
from dualboost.boosting.core.eta import resolve_eta
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import Ensemble, Run, check_oracle
from dualboost.boosting.totally_corrective.column_generation import (
    Formulation,
    Stop,
    column_generation,
    solve_certified,
)
from dualboost.conjugates.projections import capped_simplex_support
from dualboost.problems import CGBoost, MDBoost, NMBoost, QRLPBoost
from dualboost.problems.cgboost import check_example_weights
from dualboost.solvers import Solution

__all__ = [
    "mdboost",
    "cgboost",
    "nmboost",
    "qrlpboost",
    "Formulation",
    "FORMULATION_MAX_ITER",
    "NMBOOST_TAU",
    "QRLP_CENTER_FLOOR",
]

#: the default iteration cap (no iteration bound is known for these column-generation runs)
FORMULATION_MAX_ITER = 1000
#: NM-Boost's default margin threshold tau: colboost's ``1/t`` at its default pool of 100 hypotheses,
#: held fixed (a tau that moves with t changes the problem every iteration, and no stop could be certified)
NMBOOST_TAU = 0.01
#: QRLP-Boost's centre is the previous d with every entry raised to at least this fraction of 1/N
#: (then renormalised): the expansion needs a positive centre, and an entry pinned near 0 by a
#: tiny centre could grow only by a factor of about eta per iteration
QRLP_CENTER_FLOOR = 1e-3
#: the method that repeats a re-solve whose certificate failed (an interior-point method: no warm start)
FALLBACK = "clarabel"
#: re-solves are certified to ``eps * _GAP_FRACTION`` (absolute), so that a re-selected hypothesis stops
_GAP_FRACTION = 0.5
#: QRLP-Boost is at a fixed point when the oracle re-selects a hypothesis of the model and the re-solve
#: moves d by at most this (l1 norm): the next centre, model, d and oracle answer are then the previous
#: ones to rounding, and every further iteration repeats this one (measured on german.numer at
#: eta = ln(N)/0.495: d moved 1.2e-15 per iteration from t = 200 to 1,000, the LP gap fixed at 0.056)
QRLP_FIXED_POINT = 1e-10


class _ColumnFormulation(Formulation):
    """The shared part of the four formulations: a certified re-solve to eps/2 with a fallback, and
    the running minimum ``best`` of the stopping rule."""

    can_vanish = True  # MDBoost's 1/D - U v, CGBoost's and NM-Boost's d in a box may reach 0

    def __init__(self, ensemble: Ensemble, eps: float, method: str, tol: float) -> None:
        super().__init__(ensemble, eps, method, tol)
        self.best = math.inf

    def state(self) -> dict:
        return {"best": self.best}

    def solve(self, model, sol: Solution | None, is_new: bool) -> Solution:
        """The certified re-solve: warm-started, and tightened (at most three times) until the gap
        is <= eps/2; a solve whose certificate fails is repeated by cvxpy + Clarabel
        (:data:`FALLBACK`; HiGHS's QP solver can stop short, docs/math.md#column-generation-stops)."""
        found = solve_certified(model, self.method, sol, self.tol, self.eps * _GAP_FRACTION)
        if found.status != "optimal" and self.method != FALLBACK:
            found = solve_certified(model, FALLBACK, None, self.tol, self.eps * _GAP_FRACTION)
        return found

    def params(self) -> dict:
        return {"eps": self.eps, "method": self.method, "tol": self.tol}


class _BeforeSolve(_ColumnFormulation):
    """MDBoost, NM-Boost and CGBoost: the rule is tested before the re-solve (then T = t - 1), and a
    re-selected hypothesis that does not meet it ends the run (module docstring)."""

    @abstractmethod
    def bound(self, model, d, selection, position: int, is_new: bool, sol: Solution | None) -> float:
        """The stopping quantity before the re-solve (updating :attr:`best`)."""

    def before(self, model, d, selection, position, is_new, sol):
        quantity = self.bound(model, d, selection, position, is_new, sol)
        if quantity <= self.eps:
            which = "new" if is_new else "re-selected"
            return Stop(quantity, "converged", f"{self.rule} ({which} hypothesis)")
        if not is_new:  # an unchanged model: its last certified gap was <= eps/2 unless the solver missed it
            detail = "re-selected hypothesis: the subproblem solver cannot reach the precision eps/2"
            return Stop(quantity, "precision_floor", detail, converged=False)
        return quantity


class _MaxEdgeBound(_BeforeSolve):
    """MDBoost and NM-Boost: stop on ``min_q P^q(d^{q-1}) - D^{t-1}(w^{t-1}) <= eps`` before the
    re-solve (module docstring)."""

    rule = "min_q P^q(d^{q-1}) - D^{t-1}(w^{t-1}) <= eps"

    def bound(self, model, d, selection, position, is_new, sol):
        self.best = min(self.best, model.primal_objective(d))  # P^t(d^{t-1}), the new column included
        return self.best - (-math.inf if sol is None else sol.dual_value)


class _MDBoost(_MaxEdgeBound):
    name, signed = "mdboost", True

    def __init__(self, ensemble, D: float, weights, **kw) -> None:
        self.D, self.example_weights = D, weights
        super().__init__(ensemble, **kw)

    def build(self, U):
        return MDBoost(U, D=self.D, weights=self.example_weights)

    def start(self, n):
        return self.example_weights / self.D  # k (1/D - U v) without columns

    def pricing(self, d):
        total = np.abs(d).sum()
        return d / total if total > 0 else d

    def params(self):
        return {"D": self.D} | _weighted(self.example_weights) | super().params()


class _NMBoost(_MaxEdgeBound):
    name = "nmboost"

    def __init__(self, ensemble, lam: float, tau: float, weights, **kw) -> None:
        self.lam, self.tau, self.example_weights = lam, tau, weights
        super().__init__(ensemble, **kw)

    def build(self, U):
        return NMBoost(U, lam=self.lam, tau=self.tau, weights=self.example_weights)

    def start(self, n):
        return self.example_weights.copy()  # every margin (0 without columns) is below tau: d = k

    def pricing(self, d):
        shifted = d + self.lam * self.example_weights
        return shifted / shifted.sum()

    def solve(self, model, sol, is_new):
        if self.method == "highs":  # the d-domain LP grown by the new row, from the previous basis
            found = model.solve(method="highs", side="primal", warm_start=sol, tol=self.tol)
            if found.status == "optimal" and found.gap <= self.eps * _GAP_FRACTION:
                return found
        return super().solve(model, sol, is_new)

    def params(self):
        return {"lam": self.lam, "tau": self.tau} | _weighted(self.example_weights) | super().params()


class _CGBoost(_BeforeSolve):
    name = "cgboost"
    rule = "reduced cost (u_h.d - w_h) / 1^T d of the oracle's hypothesis <= eps"

    def __init__(self, ensemble, C: float, weights, **kw) -> None:
        self.C, self.example_weights = C, weights
        super().__init__(ensemble, **kw)

    def build(self, U):
        return CGBoost(U, C=self.C, weights=self.example_weights)

    def start(self, n):
        return self.C * self.example_weights  # every margin (0 without columns) is below 1: d = C k

    def pricing(self, d):
        total = d.sum()
        return d / total if total > 0 else d

    def bound(self, model, d, selection, position, is_new, sol):
        present = 0.0 if is_new or sol is None else float(sol.w[position])
        return selection.edge - present / float(d.sum())

    def weights(self, sol):
        if sol is None:
            return np.zeros(0)
        total = float(sol.w.sum())
        return sol.w / total if total > 0 else sol.w

    def params(self):
        return {"C": self.C} | _weighted(self.example_weights) | super().params()


class _QRLPBoost(_ColumnFormulation):
    name = "qrlpboost"
    rule = "min_q u^q.d^{q-1} - AvgMin_nu(U w^t) <= eps"

    def __init__(self, ensemble, nu: float, eta: float, d0, **kw) -> None:
        self.nu, self.eta, self.d0 = nu, eta, d0
        super().__init__(ensemble, **kw)

    def build(self, U):  # the first centre is the prior (uniform without one), as colboost's
        return QRLPBoost(U, nu=self.nu, eta=self.eta, center=self.d0, d0=self.d0)

    def start(self, n):
        return self.d0.copy()

    def model(self, d):
        return self.growing().recentred(recentre(d))

    def solve(self, model, sol, is_new):
        # the previous solve's curvature belongs to another centre: start from its w only
        warm = None if sol is None else dataclasses.replace(sol, solver_state=None)
        return super().solve(model, warm, is_new)

    def after(self, model, d, selection, position, is_new, sol):
        """The LP gap after the re-solve; a fixed point of the re-centring that does not meet it ends
        the run (:meth:`stalled`)."""
        self.best = min(self.best, selection.edge)  # u^t . d^{t-1} >= g (the strongest oracle)
        soft_margin = -capped_simplex_support(-(model.U @ sol.w), self.nu)  # AvgMin_nu(U w^t) <= g
        quantity = self.best - soft_margin
        if quantity <= self.eps:
            return quantity, Stop(quantity, "converged", self.rule)
        stalled = self.stalled(d, sol, is_new)
        return quantity, None if stalled is None else Stop(quantity, "reselected", stalled, converged=False)

    def stalled(self, d: NDArray[np.float64], sol: Solution, is_new: bool) -> str | None:
        """Why the run cannot progress (a re-selected hypothesis and a re-solve that left d where it
        was: a fixed point of the re-centring, :data:`QRLP_FIXED_POINT`), or None."""
        moved = float(np.abs(sol.d - d).sum())
        if is_new or moved > QRLP_FIXED_POINT:
            return None
        hint = " (> eps: raise eta)" if self.bias > self.eps else ""
        return (
            f"re-selected hypothesis at a fixed point of the re-centring (d moved {moved:.2g}): every "
            "further iteration repeats this one, with the LP gap above eps, as the regularisation bias "
            f"bound ln(1/(nu min d0))/eta = {self.bias:.3g} allows{hint}"
        )

    @property
    def bias(self) -> float:
        """The bound on the regularisation bias of the re-centred limit, ERLPBoost's solution at this eta:
        its soft margin is within ``B / eta`` of the best one, with ``B = ln(1/(nu min d0))`` the bound of
        the relative entropy over the capped simplex (``ln(N/nu)`` for the uniform prior;
        :func:`~dualboost.problems.erlpboost.prior_eta`, docs/math.md#qrlp-boost)."""
        return float(-np.log(self.nu * self.d0.min())) / self.eta

    def params(self):
        return {"nu": self.nu, "eta": self.eta} | _weighted(self.d0) | super().params()


def _weighted(weights: NDArray[np.float64]) -> dict:
    """``{"weights": "weighted"}`` for unequal example weights (a result's params and a checkpoint's
    header hold scalars), else nothing."""
    return {"weights": "weighted"} if np.any(weights != weights[0]) else {}


def recentre(d: NDArray[np.float64], floor: float = QRLP_CENTER_FLOOR) -> NDArray[np.float64]:
    """QRLP-Boost's next centre: d with every entry raised to at least ``floor / N``, renormalised
    (a positive distribution, as the expansion needs)."""
    c = np.maximum(d, floor / d.size)
    return c / c.sum()


def _drive(
    form_class,
    oracle,
    *,
    eps: float,
    max_iter: int | None,
    method: str,
    tol: float | None,
    options: RunOptions,
    **model_params,
) -> BoostResult:
    """Check the common arguments, run :func:`column_generation` on ``form_class`` and assemble the
    result (``model_params`` were checked by the caller)."""
    n = check_oracle(oracle)
    eps = check_positive(eps, "eps")
    max_iter = check_max_iter(max_iter, FORMULATION_MAX_ITER)
    tol = eps / 8.0 if tol is None else check_positive(tol, "tol")
    ensemble = Ensemble(n)
    form = form_class(ensemble, eps=eps, method=method, tol=tol, **model_params)
    if form.signed and not getattr(oracle, "signed_weights", False):
        raise ValueError(
            f"{form.name} prices with signed weights (d = 1/D - U v); {type(oracle).__name__} does not take "
            "them (Oracle.signed_weights): use decision stumps, raw features, linear-kernel columns or a "
            "matrix"
        )
    params = form.params()
    settings = params | {"max_iter": max_iter}
    run = Run(oracle, History(form.rule, eps), options, algorithm=form.name, settings=settings)
    end = column_generation(run, ensemble, form, form.start(n), max_iter)
    if isinstance(form, _CGBoost) and end.sol is not None:
        params["w_sum"] = float(end.sol.w.sum())  # the orthant w's scale: weights * w_sum is [BZB04]'s w
    return run.result(
        form.name,
        ensemble,
        form.weights(end.sol),
        form.pricing(end.d),
        converged=end.converged,
        stop_reason=end.reason,
        stop_detail=end.detail,
        params=params,
        soft_margin=isinstance(form, _QRLPBoost),
    )


@takes_run_options
def mdboost(
    oracle,
    *,
    D: float = 1.0,
    weights: NDArray[np.float64] | None = None,
    eps: float = 0.01,
    max_iter: int | None = None,
    method: str = "auglag",
    tol: float | None = None,
    options: RunOptions,
) -> BoostResult:
    """MDBoost ([SL] Eq. 6 with the identity for the margins' covariance; docs/math.md#mdboost): the
    max-edge pair ``min_{d in R^N} max_q u^q . d + (1/2)||d - 1/D||^2`` / ``max_{v in S^t} (1/D) 1^T U v
    - (1/2)||U v||^2`` re-solved after every hypothesis; the oracle prices the *signed*
    ``d = 1/D - U v`` (``Oracle.best(d, signed=True)``). Stop: ``min_q P^q(d^{q-1}) - D^{t-1}(v^{t-1})
    <= eps`` (module docstring); the output v (in the simplex) is [SL]'s weights divided by ``D``.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    D : float, default 1.0
        [SL]'s total weight, > 0.
    weights : ndarray of shape (N,), optional
        A positive weight per example on its margin in both terms of [SL]'s objective
        (:class:`~dualboost.problems.MDBoost`; integer weights are repeated examples).
    eps : float, default 0.01
        The precision of the stopping rule (module docstring).
    max_iter : int, optional
        Default 1,000.
    method : str, default "auglag"
        The subproblem solver (module docstring: the default is the fastest sound one; a re-solve
        that fails is repeated by cvxpy + Clarabel).
    tol : float, optional
        The tolerance of each re-solve, default eps/8, tightened until the certified gap is <= eps/2.
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    return _drive(
        _MDBoost,
        oracle,
        D=check_positive(D, "D"),
        weights=check_example_weights(weights, check_oracle(oracle)),
        eps=eps,
        max_iter=max_iter,
        method=method,
        tol=tol,
        options=options,
    )


@takes_run_options
def nmboost(
    oracle,
    *,
    lam: float = 0.01,
    tau: float = NMBOOST_TAU,
    weights: NDArray[np.float64] | None = None,
    eps: float = 0.01,
    max_iter: int | None = None,
    method: str = "highs",
    tol: float | None = None,
    options: RunOptions,
) -> BoostResult:
    """NM-Boost ([AFAHV25]; docs/math.md#nm-boost): the LP pair ``min_{d in [0,1]^N} max_q u^q @ (d +
    lam 1) - tau 1^T d`` / ``max_{w in S^t} lam 1^T U w - sum_n [tau - (U w)_n]_+`` re-solved (HiGHS,
    warm-started from the previous basis) after every hypothesis; the oracle prices ``d + lam 1``
    (normalised). Stop: ``min_q P^q(d^{q-1}) - D^{t-1}(w^{t-1}) <= eps`` (module docstring).

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    lam : float, default 0.01
        The weight of the summed margins, > 0 (colboost's default trade-off).
    tau : float, default NMBOOST_TAU
        The margin below which a shortfall counts, > 0, fixed for the run (:data:`NMBOOST_TAU`).
    weights : ndarray of shape (N,), optional
        A positive weight per example multiplying its margin and shortfall
        (:class:`~dualboost.problems.NMBoost`; integer weights are repeated examples).
    eps : float, default 0.01
        The precision of the stopping rule (module docstring).
    max_iter : int, optional
        Default 1,000.
    method : str, default "highs"
        The subproblem solver (module docstring: the default is the fastest sound one; a re-solve
        that fails is repeated by cvxpy + Clarabel).
    tol : float, optional
        The tolerance of each re-solve, default eps/8, tightened until the certified gap is <= eps/2.
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    return _drive(
        _NMBoost,
        oracle,
        lam=check_positive(lam, "lam"),
        tau=check_positive(tau, "tau"),
        weights=check_example_weights(weights, check_oracle(oracle)),
        eps=eps,
        max_iter=max_iter,
        method=method,
        tol=tol,
        options=options,
    )


@takes_run_options
def cgboost(
    oracle,
    *,
    C: float = 1.0,
    weights: NDArray[np.float64] | None = None,
    eps: float = 0.01,
    max_iter: int | None = None,
    method: str = "highs",
    tol: float | None = None,
    options: RunOptions,
) -> BoostResult:
    """CGBoost ([BZB04]; docs/math.md#cgboost): the QP pair ``min_{d in [0,C]^N} (1/2)||[U^T d]_+||^2 -
    1^T d`` / ``max_{w >= 0} -(1/2)||w||^2 - C sum_n [1 - (U w)_n]_+`` re-solved (HiGHS's QP solver)
    after every hypothesis; the oracle prices ``d / 1^T d``. Stop: the oracle's hypothesis has a
    normalised reduced cost ``(u_h . d - w_h) / 1^T d <= eps`` (module docstring: what it guarantees).
    The output weights are the orthant w normalised; ``params["w_sum"]`` is ``1^T w``.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    C : float, default 1.0
        The hinge's weight, > 0.
    weights : ndarray of shape (N,), optional
        A positive weight per example multiplying its hinge
        (:class:`~dualboost.problems.CGBoost`; integer weights are repeated examples).
    eps : float, default 0.01
        The precision of the stopping rule (module docstring).
    max_iter : int, optional
        Default 1,000.
    method : str, default "highs"
        The subproblem solver (module docstring: the default is the fastest sound one; a re-solve
        that fails is repeated by cvxpy + Clarabel).
    tol : float, optional
        The tolerance of each re-solve, default eps/8, tightened until the certified gap is <= eps/2.
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    return _drive(
        _CGBoost,
        oracle,
        C=check_positive(C, "C"),
        weights=check_example_weights(weights, check_oracle(oracle)),
        eps=eps,
        max_iter=max_iter,
        method=method,
        tol=tol,
        options=options,
    )


def _warn_bias(nu: float, eta: float, eps: float, prior: NDArray[np.float64]) -> None:
    """A ``ConvergenceWarning`` at the start of a QRLP-Boost run whose eta is below ``B / eps``, ``B =
    ln(1/(nu min d0))`` (``ln(N/nu)`` for the uniform prior; docs/math.md#qrlp-boost).

    Where the re-centring converges, its limit is ERLPBoost's solution at this eta, whose soft margin
    is only known to lie within ``B / eta`` of the best one (the relative entropy ranges over [0, B] on
    the capped simplex, :func:`~dualboost.problems.erlpboost.prior_eta`): at the limit the stop's LP gap
    is at most ``B / eta``, which meets the rule ``<= eps`` for every data set only when
    ``eta >= B / eps``. Below it the rule may still be met (the bound is not always attained), so the
    run is warned, not refused; a run that reaches the fixed point above eps stops with the reason
    ``"reselected"``."""
    bound = float(-np.log(nu * prior.min()))
    if eta * eps < bound:
        warnings.warn(
            f"qrlpboost: eta = {eta:.4g} is below ln(1/(nu min d0))/eps = {bound / eps:.4g} (ln(N/nu)/eps "
            "for uniform weights): the re-centred subproblems tend to ERLPBoost's solution at this eta, "
            f"whose soft margin may fall short of the best by up to {bound / eta:.3g} > eps = {eps:g}, so "
            f"the stopping rule (LP gap <= eps) may never be met; the canonical eta is {2 * bound / eps:.4g}",
            ConvergenceWarning,
            stacklevel=3,
        )


@takes_run_options
def qrlpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    method: str = "auglag",
    tol: float | None = None,
    options: RunOptions,
    d0: NDArray[np.float64] | None = None,
) -> BoostResult:
    """QRLP-Boost ([AFAHV25]; docs/math.md#qrlp-boost): ERLPBoost's subproblem with the entropy
    replaced by its second-order expansion at a centre that moves to the previous d every iteration
    (:func:`recentre`), re-solved after every hypothesis. Stop: the LP gap ``min_q u^q . d^{q-1} -
    AvgMin_nu(U w^t) <= eps`` (module docstring), which certifies the soft margin of w^t to eps.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    nu : float, default 1.0
        The capping in [1, N].
    eta : float, optional
        Default ERLPBoost's canonical ``max((2/eps) ln(N/nu), 1/2)``
        (:func:`~dualboost.problems.canonical_eta`; with a prior, ``ln(1/(nu min d0))`` in place of
        ``ln(N/nu)``: :func:`~dualboost.problems.erlpboost.prior_eta`).
    d0 : ndarray of shape (N,), optional
        The prior of the expanded entropy and the first centre (uniform when None; sample weights),
        so that the re-centred sequence tends to ERLPBoost's solution with that prior.
    eps : float, default 0.01
        The precision of the stopping rule (module docstring).
    max_iter : int, optional
        Default 1,000.
    method : str, default "auglag"
        The subproblem solver (module docstring: the default is the fastest sound one; a re-solve
        that fails is repeated by cvxpy + Clarabel).
    tol : float, optional
        The tolerance of each re-solve, default eps/8, tightened until the certified gap is <= eps/2.
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    n = check_oracle(oracle)
    nu = check_nu(nu, n)
    eps = check_positive(eps, "eps")
    prior = None if d0 is None else check_distribution(d0, n, "d0")
    eta = resolve_eta(eta, n, nu, eps, d0=prior)
    prior = np.full(n, 1.0 / n) if prior is None else prior
    _warn_bias(nu, eta, eps, prior)
    return _drive(
        _QRLPBoost,
        oracle,
        nu=nu,
        eta=eta,
        d0=prior,
        eps=eps,
        max_iter=max_iter,
        method=method,
        tol=tol,
        options=options,
    )
