"""Weak learners (oracles): the maximum-edge hypothesis of a class for a distribution d.

Protocol (:mod:`dualboost.oracles.base`, docs/math.md#edges-and-the-oracle): construct with options,
``fit(X, y)`` once, then ``best(d)`` returns a :class:`Selection` with ``edge`` (u . d), ``column``
(u = y * h(X_train), the new column of U) and ``predict(X)``. Classes
(docs/math.md#hypothesis-classes):

* :class:`DecisionStumps`: all features and thresholds, both signs, dense or sparse X;
* :class:`RawFeatures`: h_j(x) = x_j / max|X[:, j]|, both signs;
* :class:`LinearKernel`: "SVM hypotheses" h_i(x) = <x, x_i> / max_n |<x_n, x_i>|, both signs;
* :class:`SklearnOracle`: any scikit-learn classifier taking ``sample_weight``;
* :class:`MatrixOracle`: a fixed finite class given by its edge matrix (e.g. the LPBoost
  lower-bound instance of :func:`dualboost.instances.lpboost_lower_bound`).
"""

from dualboost.oracles.base import TIE_TOL, Hypothesis, Oracle, Selection
from dualboost.oracles.features import KernelColumn, LinearKernel, RawFeature, RawFeatures
from dualboost.oracles.matrix import MatrixColumn, MatrixOracle
from dualboost.oracles.registry import ORACLES, make_oracle
from dualboost.oracles.sklearn import FittedEstimator, SklearnOracle
from dualboost.oracles.stumps import Constant, DecisionStumps, Stump

__all__ = [
    "Oracle",
    "Hypothesis",
    "Selection",
    "TIE_TOL",
    "DecisionStumps",
    "Stump",
    "Constant",
    "RawFeatures",
    "RawFeature",
    "LinearKernel",
    "KernelColumn",
    "SklearnOracle",
    "FittedEstimator",
    "MatrixOracle",
    "MatrixColumn",
    "ORACLES",
    "make_oracle",
]
