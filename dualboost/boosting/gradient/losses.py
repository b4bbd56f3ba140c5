"""Losses of generalized gradient boosting ([GB]; docs/math.md#gradient-losses) as functionals on the
sample.

Every loss is a pointwise empirical risk over the N training examples,

    R[f] = (1/N) sum_n l(f(x_n), y_n),

on the function space L²(P̂) of docs/math.md#function-space, whose inner product is
``<f, g> = (1/N) sum_n <f(x_n), g(x_n)>``. With that inner product the functional (sub)gradient of R at
f is the function whose value at x_n is a subgradient of ``l(., y_n)`` at ``f(x_n)``
(docs/math.md#function-space, [RECONSTRUCTED]): :meth:`FunctionalLoss.gradient` returns exactly those N
values (an N-vector, or an N x K matrix for K outputs). Positive scaling of R is irrelevant for the
projection (only directions are projected) but sets the step scale.

Example weights s_n >= 0 (``weights``; docs/gradient.md#sample-weights) replace P̂ by
``P̂_s = sum_n p_n δ_{x_n}`` with ``p_n = s_n / sum_m s_m``: ``R_s[f] = sum_n p_n l(f(x_n), y_n)`` and
``<f, g>_s = sum_n p_n <f(x_n), g(x_n)>``. The weights appear in both, so the functional gradient of R_s
in L²(P̂_s) has the same N values as before: :meth:`FunctionalLoss.gradient` takes no weights, and
:meth:`FunctionalLoss.objective` and :meth:`FunctionalLoss.baseline` take them. Integer weights are
repeated examples exactly (the copies of x_n share f(x_n), so P̂ of the repeated sample is P̂_s).

Losses (names as in [GB] where it has them, formulas standard, docs/math.md#gradient-losses):

* binary margin losses on ``z_n = y_n f(x_n)``, ``y_n in {-1, +1}``: ``"hinge"``, ``"logistic"``,
  ``"exponential"``. Their values come from the conjugate library (:mod:`dualboost.conjugates.losses`:
  :class:`HingeLoss`, :class:`LogisticLoss`, :class:`ExponentialLoss`); this module adds the derivative
  ``phi'``. The functional gradient is ``y_n phi'(z_n)``, so ``-grad = y_n d_n`` with the example
  weights ``d_n = -phi'(z_n) >= 0``: the d-domain of the family (docs/math.md#gradient-d-domain; for the
  exponential loss d_n = e^{-z_n}, AdaBoost's weights). ``phi'(z) = s`` is the point of ``dom phi*``
  whose ``conjugate_grad`` is z (Fenchel–Young).
* ``"squared"``: ``l = (f - y)² / 2`` (λ = Λ = 1: docs/math.md#naive-projection), gradient ``f - y``.
* ``"absolute"``: ``l = |f - y|``, subgradient ``sign(f - y)`` (0 at a tie).
* ``"multiclass_hinge"`` ([CS02], docs/math.md#gradient-losses): f has K outputs, y holds class indices,
  ``l = max(0, 1 + max_{k != y} f_k - f_y)``, subgradient ``e_{k*} - e_y`` where the loss is positive
  (k* the first maximiser among k != y), else 0.
* :class:`CallableLoss`: any loss given as two callables (per-example values, per-example
  subgradients).

Subgradient conventions at kinks (documented choice): the hinge losses take 0 at the kink, the
absolute loss takes 0 at a tie (``numpy.sign``). A hinge margin within :data:`KINK` (1e-12, against the
hinge's unit margin) of the kink counts as the kink, and outputs within :data:`KINK` of the largest
count as ties (the first wins): a step of exactly the right length lands on the kink (one stump with
leaves ±1 and c = η = 1 does), and which side its rounding falls on must not decide the subgradient,
since two equal computations in different orders (weights or repeated rows, dense or sparse) round
differently.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from dualboost._validation import check_scalar
from dualboost.conjugates.losses import ExponentialLoss, HingeLoss, LogisticLoss, SeparableLoss

__all__ = [
    "FunctionalLoss",
    "MarginLoss",
    "SquaredLoss",
    "AbsoluteLoss",
    "MulticlassHingeLoss",
    "CallableLoss",
    "LOSSES",
    "make_loss",
    "KINK",
    "weighted_mean",
    "weighted_median",
]

#: margins this close to a hinge's kink are at the kink, outputs this close to the largest are ties
#: (module docstring)
KINK = 1e-12


class FunctionalLoss(ABC):
    """``R[f] = (1/N) sum_n l(f(x_n), y_n)`` with its functional subgradient (module docstring).

    ``F`` holds f at the N training examples: shape (N,) for one output, (N, K) for K outputs
    (``multiclass``). ``smooth``: whether R is strongly smooth (Thm 3's setting); ``strong_convexity``:
    λ > 0 when R is λ-strongly convex in L²(P̂) (Thms 4, 6), else 0. Both select the default step
    schedule (:func:`dualboost.boosting.gradient.step_schedule`).
    """

    name: str = ""
    smooth: bool = False
    strong_convexity: float = 0.0
    multiclass: bool = False

    @abstractmethod
    def objective(
        self, F: NDArray[np.float64], y: NDArray, weights: NDArray[np.float64] | None = None
    ) -> float:
        """R[f], the mean loss over the N examples; with ``weights`` s (N non-negative, positive sum) the
        weighted mean ``sum_n s_n l_n / sum_n s_n`` (module docstring)."""

    @abstractmethod
    def gradient(self, F: NDArray[np.float64], y: NDArray) -> NDArray[np.float64]:
        """A subgradient of R at f in L²(P̂): the N values (or N x K) ``∂l(f(x_n), y_n)`` (the same
        values for R_s in L²(P̂_s): module docstring)."""

    def baseline(self, y: NDArray, weights: NDArray[np.float64] | None = None) -> float:
        """The constant f_0 a regressor starts from (0 unless the loss has a closed-form best constant;
        with ``weights``, the best constant of the weighted risk)."""
        return 0.0

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MarginLoss(FunctionalLoss):
    """A binary margin loss ``l(f, y) = phi(y f)`` with ``phi`` from the conjugate library.

    ``derivative``: ``phi'`` (a subgradient at kinks). The gradient is ``y phi'(y F)`` (module docstring).

    Parameters
    ----------
    phi : SeparableLoss
        The margin function from the conjugate library.
    derivative : callable
        Its derivative (a subgradient at kinks).
    name : str
        The loss's name.
    smooth : bool
        Whether phi is smooth (selects the default step schedule).
    """

    multiclass = False

    def __init__(
        self,
        phi: SeparableLoss,
        derivative: Callable[[NDArray[np.float64]], NDArray[np.float64]],
        name: str,
        smooth: bool,
    ) -> None:
        self.phi = phi
        self.derivative = derivative
        self.name = name
        self.smooth = smooth

    def objective(
        self, F: NDArray[np.float64], y: NDArray, weights: NDArray[np.float64] | None = None
    ) -> float:
        if not np.all(np.isfinite(F)):
            return np.inf
        with np.errstate(over="ignore"):
            if weights is None:
                return self.phi.value(y * F) / F.size
            return weighted_mean(self.phi._phi(y * F), weights)

    def gradient(self, F: NDArray[np.float64], y: NDArray) -> NDArray[np.float64]:
        with np.errstate(over="ignore"):
            return y * self.derivative(y * F)

    def __repr__(self) -> str:
        return f"MarginLoss({self.name!r})"


def _hinge_derivative(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """``phi'(z) = -1`` for z < 1, 0 for z >= 1 (0 at the kink, and within :data:`KINK` of it)."""
    return np.where(z < 1.0 - KINK, -1.0, 0.0)


def _logistic_derivative(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """``phi'(z) = -1/(1 + e^z) = -expit(-z)`` (no overflow)."""
    return -expit(-z)


def _exponential_derivative(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """``phi'(z) = -e^{-z}`` (overflows exactly where the loss does)."""
    return -np.exp(-z)


class SquaredLoss(FunctionalLoss):
    """``l(f, y) = (f - y)² / 2``: 1-strongly convex and 1-strongly smooth
    (docs/math.md#naive-projection)."""

    name = "squared"
    smooth = True
    strong_convexity = 1.0

    def objective(
        self, F: NDArray[np.float64], y: NDArray, weights: NDArray[np.float64] | None = None
    ) -> float:
        if weights is None:
            return 0.5 * float(np.mean((F - y) ** 2))
        return 0.5 * weighted_mean((F - y) ** 2, weights)

    def gradient(self, F: NDArray[np.float64], y: NDArray) -> NDArray[np.float64]:
        return F - y

    def baseline(self, y: NDArray, weights: NDArray[np.float64] | None = None) -> float:
        """The (weighted) mean of y."""
        return float(np.mean(y)) if weights is None else weighted_mean(y, weights)


class AbsoluteLoss(FunctionalLoss):
    """``l(f, y) = |f - y|``, subgradient ``sign(f - y)`` (0 at a tie); non-smooth."""

    name = "absolute"

    def objective(
        self, F: NDArray[np.float64], y: NDArray, weights: NDArray[np.float64] | None = None
    ) -> float:
        if weights is None:
            return float(np.mean(np.abs(F - y)))
        return weighted_mean(np.abs(F - y), weights)

    def gradient(self, F: NDArray[np.float64], y: NDArray) -> NDArray[np.float64]:
        return np.sign(F - y)

    def baseline(self, y: NDArray, weights: NDArray[np.float64] | None = None) -> float:
        """The median of y (:func:`weighted_median` with ``weights``)."""
        return float(np.median(y)) if weights is None else weighted_median(y, weights)


class MulticlassHingeLoss(FunctionalLoss):
    """Crammer–Singer: ``l(f, y) = max(0, 1 + max_{k != y} f_k - f_y)`` for K outputs
    ([CS02], docs/math.md#gradient-losses).

    ``y`` holds class indices in {0, ..., K-1}. Subgradient: ``e_{k*} - e_y`` where the loss is
    positive (k* the first maximiser of f_k over k != y), 0 elsewhere (also at the kink); both up to
    :data:`KINK` (module docstring).
    """

    name = "multiclass_hinge"
    multiclass = True

    @staticmethod
    def _violations(F: NDArray[np.float64], y: NDArray) -> tuple[NDArray, NDArray, NDArray]:
        rows = np.arange(F.shape[0])
        others = F.copy()
        others[rows, y] = -np.inf
        k_star = np.argmax(others >= others.max(axis=1, keepdims=True) - KINK, axis=1)
        slack = 1.0 + others[rows, k_star] - F[rows, y]
        return rows, k_star, slack

    def objective(
        self, F: NDArray[np.float64], y: NDArray, weights: NDArray[np.float64] | None = None
    ) -> float:
        _, _, slack = self._violations(F, y)
        if weights is None:
            return float(np.mean(np.maximum(slack, 0.0)))
        return weighted_mean(np.maximum(slack, 0.0), weights)

    def gradient(self, F: NDArray[np.float64], y: NDArray) -> NDArray[np.float64]:
        rows, k_star, slack = self._violations(F, y)
        grad = np.zeros_like(F)
        active = slack > KINK
        grad[rows[active], k_star[active]] = 1.0
        grad[rows[active], y[active]] -= 1.0
        return grad


class CallableLoss(FunctionalLoss):
    """A user loss from two callables taking ``(F, y)``.

    ``value(F, y)``: the N per-example losses ``l(f(x_n), y_n)`` (their mean is R[f], their weighted
    mean R_s[f]);
    ``gradient(F, y)``: their (sub)gradients with respect to f(x_n), the shape of F. ``smooth``
    selects the default step schedule; ``multiclass``: f has one output per class (F is N x K, y
    holds class indices) rather than one output (F is (N,), y in {-1, +1} for a classifier).
    Both results are checked (shape, finiteness): a failure is a ValueError naming the callable.

    Parameters
    ----------
    value : callable
        The N per-example losses of ``(F, y)``.
    gradient : callable
        Their (sub)gradients, of ``(F, y)``.
    smooth : bool, default False
        Whether the loss is smooth (the default step schedule).
    multiclass : bool, default False
        Whether f has one output per class.
    name : str, default "callable"
        The loss's name.
    """

    def __init__(
        self,
        value: Callable[[NDArray, NDArray], ArrayLike],
        gradient: Callable[[NDArray, NDArray], ArrayLike],
        *,
        smooth: bool = False,
        multiclass: bool = False,
        name: str = "callable",
    ) -> None:
        if not callable(value):
            raise ValueError(f"value must be callable (F, y) -> per-example losses; got {value!r}")
        if not callable(gradient):
            raise ValueError(f"gradient must be callable (F, y) -> subgradients; got {gradient!r}")
        self.value = value
        self._gradient = gradient
        self.smooth = bool(smooth)
        self.multiclass = bool(multiclass)
        self.name = name

    def objective(
        self, F: NDArray[np.float64], y: NDArray, weights: NDArray[np.float64] | None = None
    ) -> float:
        values = np.asarray(self.value(F, y), dtype=np.float64)
        if values.shape != (F.shape[0],):
            raise ValueError(
                f"the loss's value callable must return one loss per example, shape ({F.shape[0]},); "
                f"got shape {values.shape}"
            )
        mean = values.mean() if weights is None else weighted_mean(values, weights)
        return check_scalar(mean, "the loss's value callable (mean over examples)")

    def gradient(self, F: NDArray[np.float64], y: NDArray) -> NDArray[np.float64]:
        grad = np.asarray(self._gradient(F, y), dtype=np.float64)
        if grad.shape != F.shape:
            raise ValueError(
                f"the loss's gradient callable must return an array of the shape of F {F.shape}; "
                f"got shape {grad.shape}"
            )
        return grad

    def __repr__(self) -> str:
        return f"CallableLoss({self.name!r}, smooth={self.smooth}, multiclass={self.multiclass})"


def weighted_mean(values: NDArray[np.float64], weights: NDArray[np.float64]) -> float:
    """``sum_n s_n v_n / sum_n s_n`` for N non-negative weights s with a positive sum (the risk under
    P̂_s, module docstring). Terms of weight 0 count as 0 even where v_n is infinite.

    Parameters
    ----------
    values : ndarray of shape (N,)
        The values v.
    weights : ndarray of shape (N,)
        The weights s.

    Returns
    -------
    float
        The weighted mean.
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    kept = weights > 0
    return float(weights[kept] @ values[kept]) / float(weights.sum())


def weighted_median(values: NDArray[np.float64], weights: NDArray[np.float64]) -> float:
    """The minimiser of ``sum_n s_n |v_n - m|`` that ``numpy.median`` returns on the repeated values
    when the weights are integers: with the values sorted, their cumulative weights C_k and the total W,
    the mean of the first value with ``C_k >= W/2`` and the first with ``C_k > W/2`` (the two middle
    values of an even count, the middle value of an odd one). Values of weight 0 are never chosen.

    ``C_k = W/2`` is decided up to a relative 1e-12, so that normalised weights ``s / sum s`` (whose
    cumulative sums round) give the median of the integer weights they came from.

    Parameters
    ----------
    values : ndarray of shape (N,)
        The values v.
    weights : ndarray of shape (N,)
        The non-negative weights s.

    Returns
    -------
    float
        The weighted median.
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    sorted_values, cumulative = values[order], np.cumsum(weights[order])
    half, slack = cumulative[-1] / 2.0, 1e-12 * cumulative[-1]
    lower = int(np.searchsorted(cumulative, half - slack, side="left"))
    upper = min(int(np.searchsorted(cumulative, half + slack, side="right")), values.size - 1)
    if lower == upper:
        return float(sorted_values[lower])
    return float(np.mean(sorted_values[[lower, upper]]))


def _margin(name: str) -> MarginLoss:
    phi, derivative, smooth = {
        "hinge": (HingeLoss(), _hinge_derivative, False),
        "logistic": (LogisticLoss(), _logistic_derivative, True),
        "exponential": (ExponentialLoss(), _exponential_derivative, True),
    }[name]
    return MarginLoss(phi, derivative, name, smooth)


#: the named losses (constructors)
LOSSES: dict[str, Callable[[], FunctionalLoss]] = {
    "squared": SquaredLoss,
    "absolute": AbsoluteLoss,
    "hinge": lambda: _margin("hinge"),
    "logistic": lambda: _margin("logistic"),
    "exponential": lambda: _margin("exponential"),
    "multiclass_hinge": MulticlassHingeLoss,
}


def make_loss(loss: object) -> FunctionalLoss:
    """A loss from a name of :data:`LOSSES` or a :class:`FunctionalLoss` (returned as is).

    Parameters
    ----------
    loss : str or FunctionalLoss
        A name of :data:`LOSSES` or a loss.

    Returns
    -------
    FunctionalLoss
        The loss.
    """
    if isinstance(loss, FunctionalLoss):
        return loss
    if isinstance(loss, str) and loss in LOSSES:
        return LOSSES[loss]()
    raise ValueError(
        f"loss must be one of {', '.join(map(repr, LOSSES))} or a FunctionalLoss (e.g. CallableLoss); "
        f"got {loss!r}"
    )
