"""Any scikit-learn classifier as an oracle.

``best(d)`` fits a clone of the estimator on the training data with ``sample_weight = N d`` (weights
averaging 1, the scale scikit-learn's defaults are tuned for) and labels in {-1, +1}, and returns
its output as the hypothesis: ``predict`` (values in {-1, +1}) or, with ``output="proba"``,
h(x) = 2 P(y = +1 | x) - 1 in [-1, 1]. A weighted fit only approximately maximises the edge (a
tree minimises an impurity, not the weighted error), so this oracle is a heuristic max-edge
oracle. With ``reflexive=True`` (the default) a hypothesis with a negative edge is negated.

Signed weights (``best(d, signed=True)``, :mod:`dualboost.oracles.base`): the clone is fitted on
``|d|`` with the labels ``sign(d_n) y_n`` (an example of weight 0 keeps y_n), because
``d_n y_n h(x_n) = |d_n| (sign(d_n) y_n) h(x_n)``: the weighted fit approximates the hypothesis of
largest signed edge as it approximates the largest edge for a distribution.

Two fitted hypotheses are equal when they have the same output kind and the same values on the
training examples (the same column of U): refitting the same tree on a new d gives
the same column, which a driver should treat as a re-selection.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import has_fit_parameter

from dualboost._validation import Matrix
from dualboost.oracles.base import Hypothesis, Oracle, Selection

__all__ = ["SklearnOracle", "FittedEstimator"]

OUTPUTS = ("predict", "proba")


@dataclass(frozen=True)
class FittedEstimator(Hypothesis):
    """h(x) = sign * (estimator.predict(x), or 2 P(+1 | x) - 1) for a classifier fitted on +-1 labels.

    ``fingerprint`` digests the values h(X_train) (sign included): with ``output`` it identifies
    the hypothesis.

    Parameters
    ----------
    n_features : int
        The number of features of the data it was fitted on.
    output : {"predict", "proba"}
        What h is made of.
    sign : int
        +1 or -1.
    fingerprint : str
        The digest of h(X_train).
    estimator : BaseEstimator
        The fitted classifier.
    """

    output: str
    sign: int = field(compare=False)
    fingerprint: str
    estimator: BaseEstimator = field(compare=False, repr=False)

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return self.sign * _output(self.estimator, self.output, X)

    def describe(self) -> str:
        name = type(self.estimator).__name__
        return f"{'' if self.sign > 0 else '-'}{name}.{self.output} #{self.fingerprint[:8]}"


def _output(estimator: BaseEstimator, output: str, X: Matrix) -> NDArray[np.float64]:
    """``predict`` or ``2 P(+1) - 1`` of a classifier fitted on labels in {-1, +1}, in [-1, 1]
    (``P(+1) = 0`` for a classifier that saw only the label -1, as a signed fit can)."""
    if output == "proba":
        classes = list(estimator.classes_)
        if 1 not in classes:
            return np.full(X.shape[0], -1.0)
        values = 2.0 * estimator.predict_proba(X)[:, classes.index(1)] - 1.0
    else:
        values = np.asarray(estimator.predict(X), dtype=np.float64)
    return np.clip(values, -1.0, 1.0)


def _fingerprint(values: NDArray[np.float64]) -> str:
    return hashlib.sha1(np.ascontiguousarray(values + 0.0).tobytes()).hexdigest()


class SklearnOracle(Oracle):
    """Boost any scikit-learn classifier whose ``fit`` accepts ``sample_weight``.

    Signed weights are accepted (module docstring).

    Parameters
    ----------
    estimator : BaseEstimator
        A scikit-learn classifier whose ``fit`` takes ``sample_weight``; it is cloned for every call.
    output : {"predict", "proba"}, default "predict"
        ``"predict"``: h in {-1, +1}; ``"proba"``: h = 2 P(+1) - 1 (needs ``predict_proba``).
    reflexive : bool, default True
        Negate a hypothesis whose edge is negative.
    """

    signed_weights = True

    def __init__(self, estimator: BaseEstimator, *, output: str = "predict", reflexive: bool = True) -> None:
        if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
            raise ValueError(f"estimator must be a scikit-learn classifier; got {estimator!r}")
        if not has_fit_parameter(estimator, "sample_weight"):
            name = type(estimator).__name__
            raise ValueError(f"estimator must accept sample_weight in fit; {name} does not")
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {OUTPUTS}; got {output!r}")
        if output == "proba" and not hasattr(estimator, "predict_proba"):
            raise ValueError(f"output='proba' needs predict_proba; {type(estimator).__name__} has none")
        self.estimator = estimator
        self.output = output
        self.reflexive = reflexive

    def _fit(self, X: Matrix) -> None:
        self.X_ = X

    def _best(self, d: NDArray[np.float64]) -> Selection:
        size = np.abs(d)
        labels = np.where(d < 0, -self.y_, self.y_)  # signed weights: |d| and flipped labels
        estimator = clone(self.estimator).fit(
            self.X_, labels, sample_weight=size * (self.n_samples_ / size.sum())
        )
        values = _output(estimator, self.output, self.X_)
        sign = -1 if self.reflexive and float(np.sum(self.y_ * values * d)) < 0 else 1
        hypothesis = FittedEstimator(
            n_features=self.n_features_,
            output=self.output,
            sign=sign,
            fingerprint=_fingerprint(sign * values),
            estimator=estimator,
        )
        return self._select(hypothesis, d, self.X_)

    def __repr__(self) -> str:
        return f"SklearnOracle({self.estimator!r}, output={self.output!r}, reflexive={self.reflexive})"
