"""K classes for the boosting classifiers, through the multiclass margin (docs/boosting.md#multiclass,
docs/math.md#multiclass).

A classifier given three or more classes boosts class-valued stumps
(:class:`~dualboost.oracles.multiclass.ClassStumps`) over the N(K-1) (example, wrong class)
pairs with the same driver, model and certificate as for two classes; only the data it is given
change. ``nu`` is then a fraction of the pairs (at most a fraction nu of the pairs has a margin below
the soft margin). The fitted vote is ``F_c(x) = sum_q w_q [h_q(x) = c]``:

* ``decision_function`` returns F (N x K, the columns in the order of ``classes_``, as scikit-learn's
  multiclass classifiers); ``predict`` its argmax, a tie between top classes (votes within
  :data:`~dualboost.boosting.core.result.TIE_TOL`) going to the one of larger ``class_prior_``
  (:func:`~dualboost.estimators.ties.votes_to_classes`);
* ``predict_proba`` the softmax ``exp(a F_c) / sum_k exp(a F_k)`` with the slope a fitted by maximum
  likelihood on the training votes with Platt's smoothed targets
  (:func:`~dualboost.estimators.probability.fit_softmax_slope`: the K-class form of the binary link,
  no intercept, so that argmax is ``predict``);
* ``margins(X, y)`` the margin of each example, ``F_y(x) - max_(k != y) F_k(x)`` (the smallest of its
  pairs' margins).

Sample weights spread over each example's pairs: the prior of the pair (n, k) is
``w_n / (K - 1)`` (normalised), so that an example weighs what it weighs with two classes.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost.boosting.core.result import Stages, staged_decisions
from dualboost.oracles import Oracle
from dualboost.oracles.multiclass import ClassStumps, PairCoding, class_votes

__all__ = ["multiclass_oracle", "pair_weights", "staged_votes", "example_margins"]


def multiclass_oracle(oracle: object, n_classes: int) -> Oracle:
    """The weak learner for K-class data: class-valued stumps for ``oracle="stumps"`` (or a
    :class:`~dualboost.oracles.multiclass.ClassStumps` given), ValueError for a binary oracle.

    Parameters
    ----------
    oracle : object
        The estimator's ``oracle`` parameter.
    n_classes : int
        The number K of classes.

    Returns
    -------
    Oracle
        The class-valued weak learner.
    """
    if isinstance(oracle, ClassStumps) or (isinstance(oracle, str) and oracle == "stumps"):
        return ClassStumps()
    raise ValueError(
        f"oracle={oracle!r} gives two-class hypotheses; y has {n_classes} classes, which need "
        "oracle='stumps' (class-valued decision stumps, docs/boosting.md#multiclass)"
    )


def pair_weights(weights: NDArray[np.float64], coding: PairCoding) -> NDArray[np.float64]:
    """The sample weights of the examples spread evenly over their K - 1 pairs.

    Parameters
    ----------
    weights : ndarray of shape (N,)
        The example weights.
    coding : PairCoding
        The (example, wrong class) pairs.

    Returns
    -------
    ndarray of shape (N (K - 1),)
        The weight of each pair.
    """
    return weights[coding.rows] / (coding.n_classes - 1)


def staged_votes(
    stages: Stages, hypotheses: list, X: ArrayLike, n_classes: int
) -> Iterator[NDArray[np.float64]]:
    """The votes ``F`` (N x K) of every stage: each class's votes are the staged decision of the
    indicators ``[h_q(x) = c]``.

    Parameters
    ----------
    stages : Stages
        The stored weights of the stages.
    hypotheses : list
        The hypotheses of the model.
    X : array-like
        The N x p features.
    n_classes : int
        The number K of classes.

    Yields
    ------
    ndarray of shape (N, K)
        The votes of each stage.
    """
    one_hot = [_Indicator(h, n_classes) for h in hypotheses]
    yield from staged_decisions(stages, one_hot, X, n_classes)


class _Indicator:
    """A class hypothesis seen as its N x K indicator ``[h(x) = c]`` (for :func:`staged_votes`)."""

    def __init__(self, hypothesis, n_classes: int) -> None:
        self.hypothesis, self.n_classes = hypothesis, n_classes

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        return class_votes(np.ones(1), [self.hypothesis], X, self.n_classes)


def example_margins(votes: NDArray[np.float64], labels: NDArray[np.intp]) -> NDArray[np.float64]:
    """``F_(y_n)(x_n) - max_(k != y_n) F_k(x_n)`` per example (``labels``: class indices).

    Parameters
    ----------
    votes : ndarray of shape (N, K)
        The votes per class.
    labels : ndarray of shape (N,)
        The class index of each example.

    Returns
    -------
    ndarray of shape (N,)
        The margin of each example.
    """
    rows = np.arange(labels.size)
    own = votes[rows, labels]
    others = votes.copy()
    others[rows, labels] = -np.inf
    return own - others.max(axis=1)
