"""The GraphSepBoost classifier ([AGHM21] Alon, Gonen, Hazan and Moran, "Boosting simple learners",
STOC 2021; docs/graphsep.md): :class:`GraphSepBoostClassifier`.

The driver (:func:`~dualboost.boosting.corrective.graphsep.graphsepboost`) returns hypotheses that
separate every pair of training examples with opposite labels, so the training examples' codes
``(h_1(x) > 0, ..., h_T(x) > 0)`` are pure. The classifier labels a code by its training examples
(the majority, which is their common label after a converged run); a code no training example has
takes the label of the nearest training code in Hamming distance (the first in training order on a
tie; [AGHM21] leave the aggregation on unseen codes open, this is the library's choice).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from dualboost._validation import binary_labels
from dualboost.boosting.corrective.graphsep import graphsepboost
from dualboost.estimators.inputs import labelled_data, validate_features
from dualboost.oracles import make_oracle

__all__ = ["GraphSepBoostClassifier"]


class GraphSepBoostClassifier(ClassifierMixin, BaseEstimator):
    """GraphSepBoost on two classes (module docstring).

    Parameters
    ----------
    max_iter : int or None
        A cap on the rounds (None: the driver's 1,000).
    oracle : str or Oracle
        The weak learner (``"stumps"``: decision stumps), as for the other classifiers.

    Attributes
    ----------
    classes_ : ndarray
        The two classes.
    hypotheses_ : list
        The separating hypotheses.
    converged_ : bool
        Whether every pair of opposite training labels was separated.
    n_iter_ : int
        The rounds.
    stop_reason_ : str
        Why the run stopped.
    """

    _parameter_constraints = {
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "oracle": "no_validation",
    }

    def __init__(self, max_iter: int | None = None, oracle: object = "stumps") -> None:
        self.max_iter = max_iter
        self.oracle = oracle

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike) -> GraphSepBoostClassifier:
        """Run GraphSepBoost on (X, y) (two classes) and tabulate the training codes."""
        X, y, _ = labelled_data(self, X, y)
        kind = type_of_target(y, input_name="y", raise_unknown=True)
        if kind != "binary":
            raise ValueError(f"y: Only binary classification is supported. The type of the target is {kind}.")
        labels, self.classes_ = binary_labels(y, X.shape[0], "y")
        result = graphsepboost(make_oracle(self.oracle).fit(X, labels), max_iter=self.max_iter)
        self.hypotheses_ = list(result.hypotheses)
        self.converged_, self.n_iter_, self.stop_reason_ = result.converged, result.n_iter, result.stop_reason
        codes = self._codes(X)
        self.codes_, inverse = np.unique(codes, axis=0, return_inverse=True)
        votes = np.bincount(inverse.ravel(), weights=labels, minlength=self.codes_.shape[0])
        self.code_labels_ = np.where(votes >= 0, 1.0, -1.0)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # two classes: the graph joins opposite labels
        tags.input_tags.sparse = True
        return tags

    def _codes(self, X) -> NDArray[np.bool_]:
        if not self.hypotheses_:
            return np.zeros((X.shape[0], 0), dtype=bool)
        return np.column_stack([np.asarray(h.predict(X)) > 0 for h in self.hypotheses_])

    def predict(self, X: ArrayLike) -> NDArray:
        """The label of each example's code (module docstring)."""
        check_is_fitted(self, "codes_")
        X = validate_features(self, X, reset=False)
        codes = self._codes(X)
        distance = (codes[:, None, :] != self.codes_[None, :, :]).sum(axis=2)
        signs = self.code_labels_[np.argmin(distance, axis=1)]
        return np.where(signs > 0, self.classes_[1], self.classes_[0])
