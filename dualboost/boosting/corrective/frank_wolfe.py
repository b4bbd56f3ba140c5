"""The step rules of the corrective drivers, read as Frank-Wolfe on the regularised dual
([MHT22], docs/math.md#frank-wolfe-steps).

Corrective ERLPBoost maximises the regularised dual ``D(w) = -f*(-U w)`` over the simplex of
hypothesis weights (``f`` the capped relative entropy, or the binary one, with weight ``1/eta``). Its
gradient is ``U^T d_w`` with ``d_w = grad f*(-U w)``, so the max-edge oracle on ``d_w`` is the linear
maximisation oracle of Frank-Wolfe, and ``D`` is eta-smooth with respect to the l1 norm of w. From
``w`` and the oracle's hypothesis h (margins ``m = U w``, column ``u``, ``x = u - m``, the gap
``g = x . d_w``), the rules of :data:`STEPS` move to ``w + alpha (e_h - w)``:

* ``"clipped"``: ``clip(g / (eta ||x||_inf^2), 0, 1)``, the maximiser of [SS] Eq. 10's lower bound
  ([KG] Alg. 4.1(b); miniboosts calls it the short step);
* ``"classic"``: ``2 / (k + 2)`` after k steps, i.e. ``2/(t + 1)`` at iteration t (1 at t = 1);
* ``"short"``: ``clip(g / (eta ||e_h - w||_1^2), 0, 1)`` with ``||e_h - w||_1 = 2 (1 - w_h)``: the
  textbook short step for the smoothness constant eta in the l1 norm;
* ``"line"``: the exact line search ``argmax_{alpha in [0, 1]} D(w + alpha (e_h - w))``
  (:func:`line_search` on the slope ``x . d(m + alpha x)``); with ``method=`` the corrective
  subproblem (models M8/M9) is solved instead, which has the same maximiser;
* ``"pairwise"``: the pairwise step of Frank-Wolfe with away steps: move weight from the away
  hypothesis ``a`` (of w's support, the smallest edge on d_w) to h, ``w + alpha (e_h - e_a)`` with
  ``alpha`` the exact line search on ``[0, w_a]``; ``alpha = w_a`` drops ``a``.

Every rule keeps w in the simplex.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

__all__ = [
    "STEPS",
    "check_step",
    "clipped_step",
    "classic_step",
    "short_step",
    "line_search",
    "segment_slope",
    "away_hypothesis",
]

#: the step rules of the corrective drivers (docs/math.md#frank-wolfe-steps)
STEPS = ("clipped", "classic", "short", "line", "pairwise")
#: the precision of the exact line search in alpha
LINE_XTOL = 1e-12


def check_step(step: object, method: object) -> str:
    """The step rule: ``step`` if given (one of :data:`STEPS`), else ``"line"`` when a ``method`` is
    given (the exact step by a solver, as before ``step`` existed) and ``"clipped"`` otherwise.
    ValueError for another step, a method that is not a string, or a method with a rule other than
    ``"line"`` (a solver computes only the exact step).

    Parameters
    ----------
    step : object
        The step rule given, or None.
    method : object
        The solve method given, or None.

    Returns
    -------
    str
        The step rule.
    """
    if method is not None and not isinstance(method, str):
        raise ValueError(f"method must be None (the clipped step) or a solver name; got {method!r}")
    if step is None:
        return "clipped" if method is None else "line"
    if not isinstance(step, str) or step not in STEPS:
        raise ValueError(f"step must be one of {', '.join(map(repr, STEPS))}; got {step!r}")
    if method is not None and step != "line":
        raise ValueError(
            f"method={method!r} solves the corrective subproblem for the exact step, i.e. step='line'; "
            f"it does not apply to step={step!r}"
        )
    return step


def clipped_step(x: NDArray[np.float64], d: NDArray[np.float64], eta: float) -> float:
    """``clip(x @ d / (eta ||x||_inf^2), 0, 1)`` ([KG] Alg. 4.1(b) with the square, erratum KG-9).

    Parameters
    ----------
    x : ndarray, shape (N,)
        The direction ``U (e_t - w)`` of the step in margin space.
    d : ndarray, shape (N,)
        The current distribution.
    eta : float
        The regularisation.

    Returns
    -------
    float
        The step in [0, 1].
    """
    scale = float(np.abs(x).max()) ** 2
    # np.sum rather than a BLAS dot: see Ensemble.edges
    return 0.0 if scale == 0.0 else min(1.0, max(0.0, float(np.sum(x * d)) / (eta * scale)))


def classic_step(iteration: int) -> float:
    """``2 / (k + 2)`` with ``k = iteration - 1`` steps taken before (1 at the first iteration).

    Parameters
    ----------
    iteration : int
        The iteration, from 1.

    Returns
    -------
    float
        The step size.
    """
    return 2.0 / (iteration + 1.0)


def short_step(gap: float, weight: float, eta: float) -> float:
    """``clip(gap / (eta ||e_h - w||_1^2), 0, 1)`` with ``||e_h - w||_1 = 2 (1 - w_h)`` (``weight``
    is ``w_h``); 0 when ``w = e_h``.

    Parameters
    ----------
    gap : float
        The Frank-Wolfe gap.
    weight : float
        The current weight ``w_h`` of the oracle's hypothesis.
    eta : float
        The smoothness constant.

    Returns
    -------
    float
        The step size in [0, 1].
    """
    norm = 2.0 * (1.0 - weight)
    return 0.0 if norm <= 0.0 else min(1.0, max(0.0, gap / (eta * norm**2)))


def segment_slope(
    distribution: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    margins: NDArray[np.float64],
    direction: NDArray[np.float64],
) -> Callable[[float], float]:
    """The derivative in alpha of ``D`` at the margins ``m + alpha x``: ``x . d(m + alpha x)``, with
    ``distribution(m) = grad f*(-m)``; non-increasing in alpha (D is concave).

    Parameters
    ----------
    distribution : callable
        ``grad f*(-m)`` of the margins m.
    margins : ndarray of shape (N,)
        The margins m at alpha = 0.
    direction : ndarray of shape (N,)
        The direction x of the segment.

    Returns
    -------
    callable
        The slope, of alpha.
    """

    def slope(alpha: float) -> float:
        return float(np.sum(direction * distribution(margins + alpha * direction)))

    return slope


def line_search(slope: Callable[[float], float], upper: float) -> float:
    """The maximiser over ``[0, upper]`` of a concave function with derivative ``slope``
    (non-increasing): 0 if ``slope(0) <= 0``, ``upper`` if ``slope(upper) >= 0``, else the root of
    the slope (Brent's method, to :data:`LINE_XTOL`).

    Parameters
    ----------
    slope : callable
        The non-increasing derivative, of the step.
    upper : float
        The largest step.

    Returns
    -------
    float
        The maximising step.
    """
    if upper <= 0.0 or slope(0.0) <= 0.0:
        return 0.0
    if slope(upper) >= 0.0:
        return upper
    return float(brentq(slope, 0.0, upper, xtol=LINE_XTOL))


def away_hypothesis(w: NDArray[np.float64], edges: NDArray[np.float64], exclude: int) -> int | None:
    """The away vertex of the pairwise step: of the hypotheses with ``w_q > 0`` other than ``exclude``
    (the oracle's), the one of smallest edge (the first on ties); None if there is none.

    Parameters
    ----------
    w : ndarray of shape (Q,)
        The hypothesis weights.
    edges : ndarray of shape (Q,)
        Their edges.
    exclude : int
        The index of the oracle's hypothesis.

    Returns
    -------
    int or None
        The index of the away hypothesis, or None.
    """
    support = np.flatnonzero(w > 0)
    support = support[support != exclude]
    if support.size == 0:
        return None
    return int(support[np.argmin(edges[support])])


def classic_max_iter(eta: float, eps: float) -> int:
    """The iteration cap of the classic step: the Frank-Wolfe gap falls to ``eps/2`` within
    ``27 C / eps`` steps, ``C <= eta diam_1(simplex)^2 = 4 eta`` ([Jag13] Thm 2 with ``beta = 27/4``;
    docs/math.md#frank-wolfe-steps), plus the discarded last iteration."""
    return math.ceil(108.0 * max(eta, 0.5) / eps) + 1
