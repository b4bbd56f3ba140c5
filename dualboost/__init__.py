"""dualboost: primal (d-domain) and dual (w-domain) convex models of boosting.

Notation (docs/math.md#notation): U is the N x t edge matrix, d a distribution over examples,
w weights over hypotheses, nu in [1, N] the capping, eta > 0 the entropy regularisation.

The scikit-learn estimators (:mod:`dualboost.estimators`: totally corrective and corrective;
:mod:`dualboost.estimators_maboost`: mirror descent; :mod:`dualboost.estimators_online`: online
boosting; :mod:`dualboost.estimators_gradient`: gradient boosting) are exported here, imported on first use so
that ``import dualboost.conjugates`` does not load scikit-learn and the solvers.
"""

__version__ = "0.1.0"

#: exported estimator -> the module that defines it
_ESTIMATORS = {
    "LPBoostClassifier": "estimators",
    "SoftBoostClassifier": "estimators",
    "ERLPBoostClassifier": "estimators",
    "BinaryERLPBoostClassifier": "estimators",
    "CorrectiveERLPBoostClassifier": "estimators",
    "CorrectiveBinaryERLPBoostClassifier": "estimators",
    "MABoostClassifier": "estimators_maboost",
    "SparseBoostClassifier": "estimators_maboost",
    "MadaBoostClassifier": "estimators_maboost",
    "OnlineBBMClassifier": "estimators_online",
    "AdaBoostOLClassifier": "estimators_online",
    "GradientProjectionClassifier": "estimators_gradient",
    "GradientProjectionRegressor": "estimators_gradient",
}

__all__ = ["__version__", *_ESTIMATORS]


def __getattr__(name: str):
    if name in _ESTIMATORS:
        from importlib import import_module

        return getattr(import_module(f"dualboost.{_ESTIMATORS[name]}"), name)
    raise AttributeError(f"module 'dualboost' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_ESTIMATORS])
