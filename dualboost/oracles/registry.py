"""The oracle registry: the named weak learners, and a fresh oracle from a name, an oracle or a
scikit-learn classifier. The estimators and the command line build their oracles here.
"""

from __future__ import annotations

import copy

from sklearn.base import BaseEstimator, clone

from dualboost.oracles.base import Oracle
from dualboost.oracles.features import LinearKernel, RawFeatures
from dualboost.oracles.sklearn import SklearnOracle
from dualboost.oracles.stumps import DecisionStumps

__all__ = ["ORACLES", "make_oracle"]

#: the named oracles
ORACLES = {"stumps": DecisionStumps, "raw": RawFeatures, "svm": LinearKernel}


def make_oracle(oracle: object) -> Oracle:
    """A fresh, unfitted oracle, as the estimators and the command line take it.

    Parameters
    ----------
    oracle : str, Oracle or BaseEstimator
        A name of :data:`ORACLES` (``"stumps"``, ``"raw"``, ``"svm"``), an oracle (copied) or a
        scikit-learn classifier taking ``sample_weight`` (cloned and wrapped in :class:`SklearnOracle`).

    Returns
    -------
    Oracle
        Unfitted.
    """
    if isinstance(oracle, str):
        if oracle not in ORACLES:
            raise ValueError(
                f"oracle must be one of {', '.join(map(repr, ORACLES))}, an Oracle or a "
                f"scikit-learn classifier; got {oracle!r}"
            )
        return ORACLES[oracle]()
    if isinstance(oracle, Oracle):
        return copy.deepcopy(oracle)
    if isinstance(oracle, BaseEstimator) and hasattr(oracle, "predict"):
        return SklearnOracle(clone(oracle))
    raise ValueError(
        f"oracle must be one of {', '.join(map(repr, ORACLES))}, an Oracle or a "
        f"scikit-learn classifier; got {oracle!r}"
    )
