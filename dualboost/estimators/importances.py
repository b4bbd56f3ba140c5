"""``feature_importances_`` of the ensembles: each hypothesis's weight spread over the features it
reads."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

__all__ = ["hypothesis_features", "feature_importances"]


def hypothesis_features(hypothesis: object, n_features: int) -> NDArray[np.float64]:
    """How one hypothesis spreads its weight over the p features (non-negative, summing to 1, or all
    0 for a hypothesis that reads no feature): a stump, raw feature or regression stump (a
    ``feature`` field) gives all of it to its feature; a kernel column in proportion to ``|x_i|`` of
    its support example; a scikit-learn member by its own ``feature_importances_`` (else ``|coef_|``,
    else evenly); a constant or a fixed matrix column reads no feature.

    Parameters
    ----------
    hypothesis : object
        One hypothesis of a fitted model.
    n_features : int
        The number p of features.

    Returns
    -------
    ndarray of shape (p,)
        The hypothesis's share of each feature.
    """
    out = np.zeros(n_features)
    feature = getattr(hypothesis, "feature", None)
    if feature is not None:
        out[int(feature)] = 1.0
        return out
    support = getattr(hypothesis, "support", None)
    if support is not None and sp.issparse(support):
        column = sp.csc_matrix(support)
        out[column.indices] = np.abs(column.data)
    estimator = getattr(hypothesis, "estimator", None)
    if estimator is not None:
        if hasattr(estimator, "feature_importances_"):
            out = np.abs(np.asarray(estimator.feature_importances_, dtype=np.float64)).ravel()[:n_features]
        elif hasattr(estimator, "coef_"):
            out = np.abs(np.asarray(estimator.coef_, dtype=np.float64)).reshape(-1, n_features).sum(axis=0)
        else:
            out = np.ones(n_features)
    total = out.sum()
    return out / total if total > 0 else np.zeros(n_features)


def feature_importances(weights: ArrayLike, hypotheses: list, n_features: int) -> NDArray[np.float64]:
    """``sum_q |w_q| spread_q`` over the hypotheses (:func:`hypothesis_features`), normalised to sum 1
    (all zeros when no weighted hypothesis reads a feature).

    Parameters
    ----------
    weights : array-like of shape (Q,)
        The hypothesis weights.
    hypotheses : list
        The Q hypotheses.
    n_features : int
        The number p of features.

    Returns
    -------
    ndarray of shape (p,)
        The importance of each feature.
    """
    out = np.zeros(n_features)
    for weight, hypothesis in zip(np.abs(np.asarray(weights, dtype=np.float64)), hypotheses, strict=True):
        if weight > 0:
            out += weight * hypothesis_features(hypothesis, n_features)
    total = out.sum()
    return out / total if total > 0 else out
