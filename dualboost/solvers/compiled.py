"""The compiled warm re-solve of ERLPBoost's dual (docs/architecture.md#compiled-code).

``dualboost/solvers/_capped_newton.pyx`` runs a whole Newton re-solve of the capped-entropy dual
``D(w) = -f*(-U w)`` ([KG] Eq. 3.10, docs/math.md#capped-softmax) on the simplex in one call:
capped softmax by log-sum-exp, the Hessian in the low-rank form of
:class:`~dualboost.conjugates.traits.LowRankHessian` (BLAS dsyrk), Cholesky steps (LAPACK), a
backtracking line search within a trust radius (docs/solvers.md#step-length) and the active set.
Where the model has a stump operator (``Model.stump_columns``) the loop calls back into it for the
products and the Hessians' Gram where it pays (:func:`_operator_passes`), as the Python path does.
It applies to :class:`~dualboost.conjugates.CappedRelativeEntropy` with eta >= 1 (where the library
evaluates f* from the projection's scale, as the compiled loop does) and a positive prior.

Nothing it claims is trusted: its own gap and stopping decision stay inside it. :func:`resolve`
returns its w with the loop's last evaluation there (``D(w)``, ``U^T d``, ``d(w)``: values of the
library's compiled evaluation, the same formulas as the Python path's ``Model.dual_value_and_grad``,
which the tests compare it with; and f(d) by the certificate's own compiled functions, where d
needs no repair), from which ``method="auglag"`` computes the library's certificate
(``newton.certified_point``: d repaired onto the capped simplex, the primal value from d, the gap;
then ``certify.certify``) and falls back to the Python stages (the reference path,
:mod:`dualboost.solvers.newton`) where that certificate misses the target. Without the built module
(a source tree never compiled) :func:`available` is False and the Python path runs;
``NewtonOptions(compiled=True)`` then warns once per process.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from dualboost.conjugates import CappedRelativeEntropy
from dualboost.solvers.contract import WDomain

try:  # the extension module is built by setup.py; a source tree without it runs the Python path
    from dualboost.solvers import _capped_newton
except ImportError:  # pragma: no cover - depends on the build
    _capped_newton = None

__all__ = ["available", "applies", "resolve", "Evaluation"]


class Evaluation(NamedTuple):
    """The compiled loop's evaluation at the point ``w`` it returned: ``D(w)``, ``U^T d(w)`` and
    ``d(w)`` ([KG] Eq. 3.10-3.11, docs/math.md#capped-softmax; the first three fields are what
    ``newton.certified_point(..., evaluated=...)`` takes), the capped rows (uint8, 1 where d_n is at the
    cap by the capped set), ``w`` itself (a warm re-solve after appended columns starts from it
    without evaluating its start again: :func:`resolve`'s ``start``) and ``f = f(d)``, the
    regulariser's value where d is on the capped simplex exactly (the membership test at tolerance
    0 that ``MaxEdgeModel.repair_primal`` makes) and the regulariser sums in one pass
    (``CappedRelativeEntropy.summed_in_one_pass``), by the same compiled functions, so the same bits;
    NaN elsewhere (then the certificate computes both itself)."""

    value: float
    grad: NDArray[np.float64]
    d: NDArray[np.float64]
    capped: NDArray[np.uint8]
    w: NDArray[np.float64]
    f: float = math.nan


#: Newton steps one compiled re-solve may take before the Python stages take over
MAX_STEPS = 50


def available() -> bool:
    """Whether the compiled module is built (importable).

    Returns
    -------
    bool
    """
    return _capped_newton is not None


@cache
def _warn_missing() -> None:
    warnings.warn(
        "NewtonOptions(compiled=True): dualboost.solvers._capped_newton is not built (run "
        "`python -m pip install -e .` or `python setup.py build_ext --inplace`); the Python path runs",
        RuntimeWarning,
        stacklevel=4,
    )


def applies(model, compiled: bool | str, cold: bool = False) -> bool:
    """Whether a solve of ``model`` goes through the compiled loop under the option ``compiled``
    (``NewtonOptions.compiled``).

    Parameters
    ----------
    model : Model
        The subproblem (a :class:`~dualboost.solvers.contract.SmoothDual`).
    compiled : bool, "auto" or "cold"
        ``NewtonOptions.compiled`` ("cold": for cold solves only).
    cold : bool, default False
        The solve is a cold one (no warm start).

    Returns
    -------
    bool
        True for a model whose dual is ``-f*(-U w)`` on the simplex (``SmoothDual.conjugate_dual``)
        with the capped relative entropy at eta >= 1, a positive prior and a float64 U, with the
        option on and the module built.
    """
    if compiled is False or (compiled == "cold" and not cold):
        return False
    if not available():
        if compiled is True:
            _warn_missing()
        return False
    if not (model.conjugate_dual and model.w_domain is WDomain.SIMPLEX):
        return False
    reg = model.regularizer
    return (
        type(reg) is CappedRelativeEntropy
        and reg.eta >= 1.0
        and reg.positive_prior
        and isinstance(model.U, np.ndarray)
        and model.U.dtype == np.float64
    )


def resolve(
    model,
    w0: NDArray[np.float64],
    target: float,
    kept: tuple[NDArray[np.float64], ...] | None = None,
    *,
    projected: bool = False,
    ridge: float = 1e-12,
    rounding: float | None = None,
    patience: int = 0,
    max_steps: int = MAX_STEPS,
    start: Evaluation | None = None,
) -> tuple[NDArray[np.float64], dict[str, int], tuple | None, Evaluation]:
    """The compiled Newton loop from ``w0`` to the relative gap ``target`` (or :data:`MAX_STEPS`).

    Parameters
    ----------
    model : Model
        A model for which :func:`applies` is True.
    w0 : ndarray of shape (t,)
        The start, on the simplex.
    target : float
        The relative gap at which the loop stops (its own estimate; the caller certifies).
    kept : (H, face), (H, face, w), (H, face, w, d) or (H, face, w, d, factor), optional
        A Hessian of D formed earlier on the columns ``face`` (``newton.Curvature``): the first
        steps are chord steps with it, while each cuts the gap fourfold. With its point ``w`` (over
        the first ``w.size`` columns) the loop first extends it, at that point, to the columns with
        weight in ``w0`` and those appended after ``w``'s (what ``Curvature.covering`` does), and
        returns it as ``formed`` where it forms no Hessian of its own; with ``d`` (``d(w)``, or None)
        it reads that d instead of evaluating it there; with ``factor`` (the loop's Cholesky factor of
        it, ``Curvature.factor``, or None) the first step extends that factor to the appended rows
        instead of factoring anew.
    projected : bool, default False
        Each step's first trial is the whole step clipped at 0 (the projected Newton path: a cold
        start from uniform w drops many columns at once); False: it stops where the first weight
        reaches 0.
    ridge : float, default 1e-12
        The first relative ridge of a step's Cholesky factor (then 100 times larger, up to 1e-2).
    rounding : float, optional
        The fall of D, relative to ``max(1, |D|)``, that the line search takes for rounding where
        the gap falls (``NewtonOptions.rounding``, as ``newton.accepted``); None: the loop's own,
        1e-15 of ``|D|``.
    patience : int, default 0
        Damped retries (a larger ridge, a smaller radius) where a freshly formed Hessian's step
        fails, in a row without a smaller gap; 0: the loop stops at the first such failure.
    max_steps : int, default MAX_STEPS
        At most this many Newton steps.
    start : Evaluation, optional
        The evaluation at ``w0`` made earlier over U's first ``start.w.size`` columns (``w0`` is
        ``start.w`` followed by zeros for the columns appended since: the caller checks it): the loop
        takes it instead of evaluating ``w0`` again and computes only the appended columns' edges. Where
        the loop then takes no step, the returned evaluation is the one given (``counts["steps"]`` 0):
        a certificate must then evaluate w itself.

    Returns
    -------
    w : ndarray of shape (t,)
        The last point, on the simplex.
    counts : dict
        ``steps``, ``hessians`` and ``evaluations`` made.
    formed : (H, face, w, d, factor) or None
        The last Hessian formed in the loop (or the kept one it extended), its columns, its point and
        the loop's last Cholesky factor of it (``(F, rows, ridge)``, or None); None where neither.
    evaluation : Evaluation
        ``model.dual_value_and_grad(w)`` as the loop evaluated it at the returned w: ``D(w)``,
        ``U^T d(w)`` and ``d(w)`` ([KG] Eq. 3.10-3.11, docs/math.md#capped-softmax), for the caller's
        certificate (``newton.certified_point(..., evaluated=evaluation)``), with the capped rows, w
        (the next warm re-solve's ``start``) and ``f`` = f(d) where d is exactly on the capped simplex
        (:class:`Evaluation`).
    """
    reg = model.regularizer
    U = model.U if model.U.flags.f_contiguous else np.asfortranarray(model.U)
    w0 = np.ascontiguousarray(w0, dtype=np.float64)
    log_d0 = reg.log_d0  # (finite: applies() checked that d0 is positive)
    H, face, w_H, d_H, factor = (*kept, None, None, None)[:5] if kept is not None else (None,) * 5
    products, gram, grams = _operator_passes(model)
    passes = None if products is None else products.compiled_passes()
    given = {}
    if start is not None:
        given = {
            "start_value": start.value,
            "start_d": start.d,
            "start_g": start.grad,
            "start_capped": start.capped,
        }
    w, d, grad, value, _, steps, hessians, evaluations, *formed, capped, divergence = _capped_newton.solve(
        U,
        log_d0,
        float(reg.nu),
        float(reg.eta),
        w0,
        float(target),
        int(max_steps),
        H,
        face,
        projected,
        float(ridge),
        1e-15 if rounding is None else float(rounding),
        0.0 if rounding is None else 1.0,
        int(patience),
        products,
        gram,
        passes,
        kept_w=w_H,
        grams=grams,
        kept_d=d_H,
        kept_factor=factor,
        d0=reg.d0 if reg.summed_in_one_pass else None,  # (f(d) at the end by the kernel of reg.value)
        **given,
    )
    f = reg.value_of_divergence(divergence) if math.isfinite(divergence) else math.nan
    counts = {"steps": steps, "hessians": hessians, "evaluations": evaluations}
    return (
        w,
        counts,
        None if formed[0] is None else tuple(formed),
        Evaluation(float(value), grad, d, capped, w, f),
    )


def _operator_passes(model) -> tuple[object | None, Callable | None, object | None]:
    """What the compiled loop asks of ``model.stump_columns`` (``Model.stump_columns``, a stump
    operator of the run's columns) instead of BLAS on U, by the rules the Python path follows
    (``Model._margins``, ``Model.dual_hessian``): its products where it pays for every column, and
    its Gram (``weighted_gram``) for a Hessian on a face where it pays for the face's columns,
    compiled where the operator has it (``compiled_gram``), else called back.

    Returns
    -------
    products : object or None
        The operator (``margins``, ``edges``), or None: BLAS on U.
    gram : callable or None
        ``(weights, face) -> U_face^T diag(weights) U_face``, or None (declining) where the
        operator does not pay for the face; None: no operator, or its compiled Gram instead.
    grams : PyCapsule or None
        The operator's compiled Gram (``StumpOperator.compiled_gram``), or None.
    """
    implicit = model.stump_columns
    if implicit is None:
        return None, None, None
    products = implicit if implicit.pays(model.n_hypotheses) else None
    grams = implicit.compiled_gram()
    if grams is not None:  # (the model keeps the operator, which owns it, alive)
        return products, None, grams

    def gram(weights: NDArray[np.float64], face: NDArray[np.intp]) -> NDArray[np.float64] | None:
        if not implicit.gram_pays(face.size):
            return None
        return implicit.restricted(face).weighted_gram(weights)

    return products, gram, None
