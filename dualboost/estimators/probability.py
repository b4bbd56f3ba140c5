"""The probability link of the binary classifiers: ``predict_proba = expit(a f)`` with the slope a
fitted on the training margins (Platt's sigmoid without an intercept, so that argmax is ``predict``),
and the training class prior at a tie f = 0 (:mod:`dualboost.estimators.ties`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.utils.validation import check_is_fitted

from dualboost.estimators.ties import prior_at_ties, prior_at_vote_ties

__all__ = [
    "LINK_MIN_SLOPE",
    "LINK_MAX_SLOPE",
    "fit_link_slope",
    "link_probabilities",
    "link_log_likelihood",
    "fit_softmax_slope",
    "increasing_root",
    "vote_probabilities",
    "vote_log_probabilities",
    "ProbabilityLink",
]

#: the smallest slope of the link: keeps it strictly increasing, so that argmax predict_proba is
#: predict (a f = 1e-12 at the smallest non-tie |f| = 1e-9 still separates the two probabilities)
LINK_MIN_SLOPE = 1e-3
#: the largest slope searched (a f of 1e6 at |f| = 1 is a probability of 1 in float64)
LINK_MAX_SLOPE = 1e6


def fit_link_slope(margins: ArrayLike, weights: ArrayLike | None = None) -> float:
    """The slope a >= :data:`LINK_MIN_SLOPE` of the link ``P(y | x) = expit(a y f(x))`` fitted by
    maximum likelihood on the training margins ``m_n = y_n f(x_n)`` (Platt's sigmoid without an
    intercept), with Platt's smoothed target ``t = (W + 1)/(W + 2)`` for the true class (W the number
    of examples, or the sum of their weights):
    ``a = argmin sum_n w_n [-t log expit(a m_n) - (1 - t) log expit(-a m_n)]``, convex in a; its
    derivative ``sum_n w_n m_n (expit(a m_n) - t)`` increases in a, and its root is found by Brent's
    method (a = LINK_MIN_SLOPE when the derivative is >= 0 there: margins no better than chance).

    No intercept: ``expit(a f + b)`` with ``b != 0`` would move the boundary from f = 0 and disagree
    with ``predict``. The smoothed target keeps a finite on separable training data, where every
    margin is positive and the plain likelihood grows without bound in a (Platt 1999; scikit-learn's
    ``CalibratedClassifierCV(method="sigmoid")`` uses the same targets).

    Parameters
    ----------
    margins : array-like of shape (N,)
        The training margins ``y_n f(x_n)``.
    weights : array-like, optional
        The N sample weights (None: unweighted).

    Returns
    -------
    float
        The fitted slope a.
    """
    m = np.asarray(margins, dtype=np.float64)
    w = np.ones(m.size) if weights is None else np.asarray(weights, dtype=np.float64)
    total = float(w.sum())
    target = (total + 1.0) / (total + 2.0)

    def slope(a: float) -> float:
        return float(np.sum(w * m * (expit(a * m) - target)))

    return LINK_MIN_SLOPE if m.size == 0 else increasing_root(slope)


def increasing_root(derivative: Callable[[float], float], tol: float = 1e-10) -> float:
    """The slope a in ``[LINK_MIN_SLOPE, LINK_MAX_SLOPE]`` where an increasing ``derivative`` (of a
    convex negative log-likelihood in a) crosses 0, by Brent's method on a bracket found by doubling
    twice from 1 (``tol``: its xtol and rtol); the end of the range when there is no root inside.

    Parameters
    ----------
    derivative : callable
        The increasing derivative, of a slope.
    tol : float, default 1e-10
        The tolerance of Brent's method.

    Returns
    -------
    float
        The slope where the derivative crosses 0, or an end of the range.
    """
    if derivative(LINK_MIN_SLOPE) >= 0:
        return LINK_MIN_SLOPE
    if derivative(LINK_MAX_SLOPE) <= 0:
        return LINK_MAX_SLOPE
    high = 1.0
    while derivative(high) < 0:
        high *= 4.0
    return float(brentq(derivative, LINK_MIN_SLOPE, min(high, LINK_MAX_SLOPE), xtol=tol, rtol=tol))


def link_probabilities(
    f: NDArray[np.float64], slope: float, prior: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """``[P(classes_[0]), P(classes_[1])] = [expit(-a f), expit(a f)]`` per row (N x 2); at a tie
    f = 0 the training class prior ``prior`` (``class_prior_``; without one 1/2 each), whose argmax
    is the class ``predict`` gives a tie (:mod:`dualboost.estimators.ties`).

    Parameters
    ----------
    f : ndarray of shape (N,)
        The decision values.
    slope : float
        The link's slope a.
    prior : ndarray, optional
        The training class prior (for ties).

    Returns
    -------
    ndarray of shape (N, 2)
        The class probabilities.
    """
    f = np.asarray(f, dtype=np.float64)
    return prior_at_ties(f, np.column_stack([expit(-slope * f), expit(slope * f)]), prior)


def link_log_likelihood(margins: NDArray[np.float64], slope: float) -> float:
    """The mean log-likelihood ``mean_n log expit(a m_n)`` of the margins under the link (for
    reports; ``log_expit`` keeps it finite for any a m).

    Parameters
    ----------
    margins : ndarray of shape (N,)
        The margins.
    slope : float
        The link's slope a.

    Returns
    -------
    float
        The mean log-likelihood.
    """
    return float(np.mean(log_expit(slope * np.asarray(margins, dtype=np.float64))))


def _smoothed_targets(labels: NDArray[np.intp], n_classes: int, total: float) -> NDArray[np.float64]:
    """Platt's smoothed targets in K-class form: ``(W + 1)/(W + 2)`` for the true class, the rest
    spread over the others (W the number of examples or the sum of their weights)."""
    right = (total + 1.0) / (total + 2.0)
    targets = np.full((labels.size, n_classes), (1.0 - right) / (n_classes - 1))
    targets[np.arange(labels.size), labels] = right
    return targets


def fit_softmax_slope(
    votes: NDArray[np.float64], labels: NDArray[np.intp], weights: NDArray[np.float64] | None = None
) -> float:
    """The slope a of ``P(c | x) = softmax(a F(x))_c`` fitted by maximum likelihood on the training
    votes with smoothed targets t (:func:`_smoothed_targets`): ``a`` minimises
    ``-sum_n w_n sum_c t_nc log softmax(a F_n)_c``, convex in a, whose derivative
    ``sum_n w_n (E_(softmax(a F_n))[F_n] - t_n . F_n)`` increases in a; its root by Brent's method in
    ``[LINK_MIN_SLOPE, LINK_MAX_SLOPE]`` (the ends when it has none there), as the binary link's
    :func:`fit_link_slope`.

    Parameters
    ----------
    votes : ndarray of shape (N, K)
        The training votes.
    labels : ndarray of shape (N,)
        The class index of each example.
    weights : ndarray, optional
        The N sample weights (None: unweighted).

    Returns
    -------
    float
        The fitted slope a.
    """
    F = np.asarray(votes, dtype=np.float64)
    w = np.ones(F.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    targets = _smoothed_targets(labels, F.shape[1], float(w.sum()))
    aimed = np.sum(targets * F, axis=1)

    def derivative(a: float) -> float:
        return float(np.sum(w * (np.sum(softmax(a * F, axis=1) * F, axis=1) - aimed)))

    return LINK_MIN_SLOPE if F.shape[0] == 0 else increasing_root(derivative)


def vote_probabilities(
    votes: NDArray[np.float64], slope: float, prior: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """``softmax(a F)`` per row (N x K), ties between top classes resolved by ``prior``.

    Parameters
    ----------
    votes : ndarray of shape (N, K)
        The votes.
    slope, prior
        As in :func:`link_probabilities` (``prior`` breaks ties between top classes).

    Returns
    -------
    ndarray of shape (N, K)
        The class probabilities.
    """
    p = softmax(slope * np.asarray(votes, dtype=np.float64), axis=1)
    return prior_at_vote_ties(votes, p, prior)


def vote_log_probabilities(
    votes: NDArray[np.float64], slope: float, prior: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """``log softmax(a F)`` per row (finite for any a F), ties as :func:`vote_probabilities`.

    Parameters
    ----------
    votes, slope, prior
        As in :func:`vote_probabilities`.

    Returns
    -------
    ndarray of shape (N, K)
        The logarithms of the class probabilities.
    """
    log_p = log_softmax(slope * np.asarray(votes, dtype=np.float64), axis=1)
    return prior_at_vote_ties(votes, log_p, prior, log=True)


class ProbabilityLink:
    """``predict_proba``, ``staged_predict_proba`` and the probability link of a binary classifier
    with a ``decision_function`` and ``link_slope_`` (:func:`fit_link_slope`)."""

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """``[P(classes_[0] | x), P(classes_[1] | x)] = [expit(-a f(x)), expit(a f(x))]`` with the
        slope ``a = link_slope_`` fitted on the training margins (:func:`fit_link_slope`): a Platt
        sigmoid without intercept, so ``argmax`` is ``predict``; a tie f = 0 gets the training class
        prior ``class_prior_``, whose argmax is the class ``predict`` gives it
        (:mod:`dualboost.estimators.ties`).

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.

        Returns
        -------
        ndarray, shape (N, K)
            The probability of each class.
        """
        check_is_fitted(self)
        f = self.decision_function(X)
        prior = getattr(self, "class_prior_", None)
        if not isinstance(f, np.ndarray):  # a dask array (a dask X): block by block
            return f.map_blocks(
                link_probabilities,
                self.link_slope_,
                prior,
                new_axis=1,
                chunks=(f.chunks[0], (2,)),
                dtype=np.float64,
            )
        return self._probabilities(f)

    def _probabilities(self, f: NDArray[np.float64]) -> NDArray[np.float64]:
        """The probabilities of the decision values f: the binary link of a sign, the softmax of a
        vote per class (N x K, :func:`vote_probabilities`)."""
        prior = getattr(self, "class_prior_", None)
        if f.ndim == 2:
            return vote_probabilities(f, self.link_slope_, prior)
        return link_probabilities(f, self.link_slope_, prior)

    def predict_log_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """``log predict_proba`` computed as ``log_expit`` (finite for any f; the log prior at a tie).

        Parameters
        ----------
        X : array_like or sparse matrix, shape (N, p)
            The rows.

        Returns
        -------
        ndarray, shape (N, K)
            Its logarithm.
        """
        check_is_fitted(self)
        f = np.asarray(self.decision_function(X), dtype=np.float64)
        prior = getattr(self, "class_prior_", None)
        if f.ndim == 2:
            return vote_log_probabilities(f, self.link_slope_, prior)
        log_p = np.column_stack([log_expit(-self.link_slope_ * f), log_expit(self.link_slope_ * f)])
        return prior_at_ties(f, log_p, None if prior is None else np.log(prior))
