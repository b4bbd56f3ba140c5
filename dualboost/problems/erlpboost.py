"""ERLPBoost ([KG] Sec 3.2; docs/math.md#erlpboost-dual, model M5).

    primal:  min_{d in S^N, d <= 1/nu}  max_q u^q . d + (1/eta) Delta(d, d0)                 (Eq. 3.6)
    dual:    max_{w in S^t, psi >= 0}  -(1/eta) ln sum_n d0_n e^{-eta (U w + psi)_n} - (1/nu) sum psi
                                                                                              (Eq. 3.10)

The conjugate library eliminates psi exactly (capped softmax, docs/math.md#capped-softmax), so
``dual_objective(w)`` is a function of w alone; ``d_from_w`` is Eq. 3.11.
"""

from __future__ import annotations

import copy

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_distribution, check_eta, check_nu, check_positive
from dualboost.conjugates import CappedRelativeEntropy, ConvexFunction
from dualboost.problems.base import ColumnIndependent
from dualboost.problems.lpboost import LPBoost
from dualboost.problems.max_edge import LastValue, MaxEdgeModel

__all__ = ["ERLPBoost", "EntropyRegularised", "erlpboost_eta", "canonical_eta", "prior_eta"]


def erlpboost_eta(n_samples: int, nu: float, eps: float, *, binary: bool = False) -> float:
    """The canonical eta (docs/math.md#canonical-eta): ``(2/eps) ln(N/nu)`` (``+ 1`` inside for Binary),
    at least 1/2 as the bounds require (Thm 3.10, Thm 3.21).

    ``nu`` and ``eps`` are checked (a driver that checked them calls :func:`canonical_eta`).

    Parameters
    ----------
    n_samples : int
        N, the number of training examples.
    nu : float
        The capping in [1, N] (docs/math.md#capping-nu).
    eps : float
        The precision, > 0.
    binary : bool, default False
        Binary ERLPBoost's eta ([KG] Thm 3.21): ``(2/eps) (ln(N/nu) + 1)``.

    Returns
    -------
    float
        eta, at least 1/2.
    """
    return canonical_eta(n_samples, check_nu(nu, n_samples), check_positive(eps, "eps"), binary=binary)


def canonical_eta(n_samples: int, nu: float, eps: float, *, binary: bool = False) -> float:
    """:func:`erlpboost_eta` of arguments checked already.

    Parameters
    ----------
    n_samples : int
        N, the number of training examples.
    nu : float
        The capping in [1, N].
    eps : float
        The precision, > 0.
    binary : bool, default False
        Binary ERLPBoost's eta.

    Returns
    -------
    float
        ``max((2/eps) (ln(N/nu) [+ 1]), 1/2)``.
    """
    log_ratio = np.log(n_samples / nu) + (1.0 if binary else 0.0)
    return float(max(2.0 / eps * log_ratio, 0.5))


def prior_eta(d0: NDArray[np.float64], nu: float, eps: float, *, binary: bool = False) -> float:
    """The canonical eta ``max((2/eps) B, 1/2)`` (docs/math.md#canonical-eta) for a prior d0, with B
    a bound on the regulariser over the capped simplex. [DERIVED] The stop's guarantee needs
    ``(1/eta) Delta(d, d0) <= eps/2`` there, and ``Delta(d, d0) = sum_n d_n ln(d_n/d0_n) <=
    sum_n d_n ln(1/(nu d0_n)) <= ln(1/(nu min d0))`` (``d_n <= 1/nu``): ``ln(N/nu)`` for the uniform
    prior. The binary entropy adds ``(1/nu) sum_n (1 - nu d_n) ln((1 - nu d_n)/(1 - nu d0_n)) <=
    sum_n d0_n/(1 - nu d0_n) <= 1/(1 - nu max d0)`` (``-ln(1 - x) <= x/(1 - x)``), a little above the
    thesis's 1 for the uniform prior (docs/math.md#binary-erlpboost).

    Parameters
    ----------
    d0 : ndarray of shape (N,)
        The prior distribution.
    nu : float
        The capping parameter (``d_n <= 1/nu``).
    eps : float
        The target accuracy of the stop.
    binary : bool
        Bound the binary entropy (Binary ERLPBoost) instead of the relative entropy.

    Returns
    -------
    float
        The canonical eta.
    """
    bound = float(-np.log(nu * d0.min()))
    if binary and nu * float(d0.max()) >= 1.0:
        raise ValueError(
            f"d0 must lie below the cap 1/nu = {1.0 / nu:.6g} for the binary relative entropy; its largest "
            f"entry is {float(d0.max()):.6g}"
        )
    if binary:
        bound += 1.0 / (1.0 - nu * float(d0.max()))
    return float(max(2.0 / eps * bound, 0.5))


class EntropyRegularised(ColumnIndependent, MaxEdgeModel):
    """LPBoost's max-edge problem regularised by ``(1/eta)`` times a capped entropy (the class's
    ``regularizer_class``, built from ``d0``, ``nu`` and ``eta``): the family of ERLPBoost and Binary
    ERLPBoost, indexed by eta (an eta family of :class:`~dualboost.solvers.contract.SmoothDual`),
    which tends to LPBoost as eta -> infinity.

    Parameters
    ----------
    U : array-like of shape (N, t)
        The edge matrix.
    nu : float
        The capping parameter (``d_n <= 1/nu``).
    eta : float
        The regularisation parameter (the entropy is weighted by ``1/eta``).
    d0 : array-like of shape (N,) or None
        The prior distribution, None for the uniform one.
    """

    #: the capped entropy, called as ``regularizer_class(d0, nu, eta)``
    regularizer_class: type[ConvexFunction]
    #: ``with_eta`` and ``lp_limit`` below (eta continuation, the LP start at large eta)
    eta_family = True
    #: D(w) = -f*(-U w) exactly (Model.dual_value_and_grad): the compiled re-solve may evaluate it
    conjugate_dual = True

    def __init__(self, U: ArrayLike, nu: float = 1.0, eta: float = 1.0, d0: ArrayLike | None = None):
        super().__init__(U)
        self.regularizer = self.regularizer_class(check_distribution(d0, self.n_samples), nu, eta)
        self.nu, self.eta, self.d0 = self.regularizer.nu, self.regularizer.eta, self.regularizer.d0
        #: f(d^{t-1}) of the certificate, for the stopping rule's P^t(d^{t-1}) (shared by the copies)
        self.regularizer_values = LastValue()

    def parameters(self) -> dict[str, float]:
        return {"nu": self.nu, "eta": self.eta}

    def __copy__(self) -> EntropyRegularised:
        """The shallow copy ``copy.copy`` makes (a new instance sharing this one's attributes), made
        directly instead of through ``__reduce_ex__``: the copy of a boosting iteration's
        ``with_columns`` (and of ``with_eta``), 8 us of a diabetes iteration in the run, 1.8 -> 0.4 us
        alone."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin

    def lp_limit(self) -> LPBoost:
        """LPBoost on the same U and nu: the limit eta -> infinity (docs/math.md#erlpboost-primal);
        its solution starts the Newton steps of ``method="auglag"`` at large eta."""
        return LPBoost(self.U, nu=self.nu)

    def with_eta(self, eta: float) -> EntropyRegularised:
        """The same model with another regularisation eta (for eta continuation), sharing this
        model's private U (neither changes it) and its single-precision copy where one was made
        (``Model.single_precision_U``), and without a stump operator (``stump_columns``), as a model
        built anew over U.

        Only eta is checked: U, nu and d0 were checked when this model was made, and the regulariser
        is a copy of this model's with the new eta (its other entries, d0 and the arrays computed
        from d0 and nu such as ``ln d0``, do not depend on eta): a continuation stage of a cold solve
        at N = 1,000 paid ~75 us for checking U and d0 again, as much as a Newton step.
        """
        regularizer = copy.copy(self.regularizer)
        regularizer.eta = check_eta(eta)
        model = copy.copy(self)
        model.regularizer, model.eta, model.stump_columns = regularizer, regularizer.eta, None
        return model


class ERLPBoost(EntropyRegularised):
    """The entropy-regularised LPBoost subproblem over the t hypotheses in ``U`` ([KG] Eqs. 3.6, 3.10).

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1] (docs/math.md#notation).
    nu : float, default 1.0
        The capping in [1, N]: ``d_n <= 1/nu`` (1 is the hard margin; docs/math.md#capping-nu).
    eta : float, default 1.0
        The entropy regularisation, > 0 (:func:`erlpboost_eta` gives the canonical value).
    d0 : array_like of shape (N,), optional
        The prior distribution of the relative entropy (uniform when None).

    See Also
    --------
    BinaryERLPBoost : the same with the binary relative entropy.
    LPBoost : the limit eta -> infinity.
    """

    name = "erlpboost"
    regularizer_class = CappedRelativeEntropy
