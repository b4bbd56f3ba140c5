"""The tie rule of the binary classifiers: where the decision function is exactly 0, predict the class
that is more frequent in the (sample-weighted) training data.

A classifier of the package predicts ``classes_[1]`` where ``f(x) > 0`` and ``classes_[0]`` where
``f(x) < 0``. At ``f(x) = 0`` (exactly 0, or within ``TIE_TOL`` of it:
:func:`~dualboost.boosting.core.result.combined_decision`) the model carries no information about x:
at a degenerate soft-margin optimum two complementary hypotheses cancel and ``f = 0`` on every
example (LPBoost at nu = 0.1 on german.numer and a9a, docs/math.md#lpboost). The Bayes rule with no
information is the prior's majority, so a tie predicts the class of largest weight in the training
data, ``class_prior_`` (scikit-learn's ``DummyClassifier`` name): the fraction of each class,
weighted by ``sample_weight`` when it is given. ``predict_proba`` at a tie is that prior, so that its
argmax agrees with ``predict`` (:func:`prior_at_ties`). Equal priors give ``classes_[0]``, the
scikit-learn convention; an estimator without ``class_prior_`` (a model file of an earlier version)
keeps it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost.boosting.core.result import TIE_TOL

__all__ = [
    "SIGNS",
    "class_prior",
    "tie_index",
    "classes_by_sign",
    "prior_at_ties",
    "top_classes",
    "votes_to_classes",
    "predicted_classes",
    "prior_at_vote_ties",
]

#: the ±1 labels in the order of ``classes_`` (what :func:`classes_by_sign` returns on ±1 data)
SIGNS = np.array([-1.0, 1.0])
SIGNS.flags.writeable = False


def class_prior(labels: ArrayLike, weights: ArrayLike | None = None) -> NDArray[np.float64]:
    """``[P(classes_[0]), P(classes_[1])]``: the fraction of each of the two classes of ``labels`` in
    sorted order (the order of ``classes_``; -1 before +1), weighted by ``weights`` when given. A dask
    label vector (unweighted) is counted by one reduction.

    Parameters
    ----------
    labels : array-like of shape (N,)
        Labels of two classes (numpy or dask).
    weights : array-like, optional
        The N sample weights (None: unweighted).

    Returns
    -------
    ndarray of shape (2,)
        The class fractions.
    """
    if hasattr(labels, "__dask_graph__"):
        import dask.array as da  # lazily: a dask label vector implies dask is installed

        counts = np.asarray(da.unique(labels, return_counts=True)[1].compute(), dtype=np.float64)
    else:
        _, inverse = np.unique(np.asarray(labels), return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=None if weights is None else np.asarray(weights))
    return np.asarray(counts, dtype=np.float64) / float(np.sum(counts))


def tie_index(prior: NDArray[np.float64] | None) -> int:
    """The index into ``classes_`` that a tie predicts: 1 where the prior favours ``classes_[1]``
    strictly, else 0 (equal priors, or no prior).

    Parameters
    ----------
    prior : ndarray or None
        The class prior, or None.

    Returns
    -------
    int
        0 or 1.
    """
    return int(prior is not None and prior[1] > prior[0])


def classes_by_sign(f: NDArray[np.float64], classes: NDArray, prior: NDArray[np.float64] | None) -> NDArray:
    """``classes[1]`` where f > 0, ``classes[0]`` where f < 0, and ``classes[tie_index(prior)]`` where
    f = 0.

    Parameters
    ----------
    f : ndarray
        The decision values.
    classes : ndarray
        The two classes.
    prior : ndarray or None
        The class prior, or None.

    Returns
    -------
    ndarray
        The class of each value.
    """
    f = np.asarray(f)
    index = (f > 0).astype(int)
    index[f == 0] = tie_index(prior)
    return classes[index]


def prior_at_ties(
    f: NDArray[np.float64], probabilities: NDArray[np.float64], prior: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """``probabilities`` (N x 2, or their logarithms when the prior is passed as its logarithm) with the
    rows where f = 0 replaced by ``prior`` (in place; unchanged without a prior).

    Parameters
    ----------
    f : ndarray of shape (N,)
        The decision values.
    probabilities : ndarray of shape (N, 2)
        The probabilities (or their logarithms).
    prior : ndarray or None
        The class prior (or its logarithm), or None.

    Returns
    -------
    ndarray of shape (N, 2)
        ``probabilities``, changed in place.
    """
    if prior is not None:
        probabilities[np.asarray(f) == 0] = prior
    return probabilities


def top_classes(votes: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Where each row's vote is within ``TIE_TOL`` of its largest (the tied top classes).

    Parameters
    ----------
    votes : ndarray of shape (N, K)
        The votes.

    Returns
    -------
    ndarray of bool, shape (N, K)
        True at the tied top classes.
    """
    return votes >= votes.max(axis=1, keepdims=True) - TIE_TOL


def votes_to_classes(
    votes: NDArray[np.float64], classes: NDArray, prior: NDArray[np.float64] | None
) -> NDArray:
    """``classes`` of the largest vote per row; among top classes tied within ``TIE_TOL`` (rounding:
    the same on every machine) the one of largest ``prior``, the first of them without a prior or
    among equal priors.

    Parameters
    ----------
    votes : ndarray of shape (N, K)
        The votes.
    classes : ndarray
        The K classes.
    prior : ndarray or None
        The class prior, or None.

    Returns
    -------
    ndarray of shape (N,)
        The predicted classes.
    """
    top = top_classes(votes)
    rank = np.zeros(votes.shape[1]) if prior is None else np.asarray(prior, dtype=np.float64)
    return classes[np.argmax(np.where(top, rank, -np.inf), axis=1)]


def prior_at_vote_ties(
    votes: NDArray[np.float64], probabilities: NDArray[np.float64], prior, log: bool = False
) -> NDArray[np.float64]:
    """``probabilities`` (N x K, or their logarithms with ``log``) with the rows whose top classes tie
    changed (in place): their top classes share the top mass in proportion to ``prior``, so that the
    argmax is :func:`votes_to_classes`'s class; unchanged without a prior.

    Parameters
    ----------
    votes : ndarray of shape (N, K)
        The votes.
    probabilities : ndarray of shape (N, K)
        The probabilities (or their logarithms).
    prior : ndarray or None
        The class prior, or None.
    log : bool, default False
        Whether ``probabilities`` are logarithms.

    Returns
    -------
    ndarray of shape (N, K)
        ``probabilities``, changed in place.
    """
    top = top_classes(votes)
    tied = top.sum(axis=1) > 1
    if prior is None or not tied.any():
        return probabilities
    p = np.exp(probabilities[tied]) if log else probabilities[tied]
    mass = np.sum(np.where(top[tied], p, 0.0), axis=1, keepdims=True)
    share = np.where(top[tied], np.asarray(prior, dtype=np.float64), 0.0)
    share = share / np.maximum(share.sum(axis=1, keepdims=True), np.finfo(float).tiny)
    p = np.where(top[tied], mass * share, p)
    probabilities[tied] = np.log(p) if log else p
    return probabilities


def predicted_classes(f: NDArray[np.float64], classes: NDArray, prior: NDArray[np.float64] | None) -> NDArray:
    """The classes ``predict`` gives the decision values f: by sign (:func:`classes_by_sign`), or for a
    vote per class (N x K) by vote (:func:`votes_to_classes`).

    Parameters
    ----------
    f : ndarray
        The N decision values, or N x K votes.
    classes, prior
        As in :func:`votes_to_classes` (two classes for N values).

    Returns
    -------
    ndarray of shape (N,)
        The class ``predict`` gives each row.
    """
    if np.ndim(f) == 2:
        return votes_to_classes(f, classes, prior)
    return classes_by_sign(f, classes, prior)
