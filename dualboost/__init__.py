"""dualboost: primal (d-domain) and dual (w-domain) convex models of boosting.

Notation (docs/math.md#notation): U is the N x t edge matrix, d a distribution over examples,
w weights over hypotheses, nu in [1, N] the capping, eta > 0 the entropy regularisation.

The scikit-learn estimators (the package :mod:`dualboost.estimators`, one module per family:
totally corrective, corrective, mirror descent, gradient and online boosting) are exported here,
imported on first use so that ``import dualboost.conjugates`` does not load scikit-learn and the
solvers.
"""

__version__ = "0.1.0"

#: exported estimator (and :func:`~dualboost.estimators.reweight.reweight`) -> the module that defines it
_ESTIMATORS = {
    "LPBoostClassifier": "estimators.totally_corrective",
    "SoftBoostClassifier": "estimators.totally_corrective",
    "ERLPBoostClassifier": "estimators.totally_corrective",
    "BinaryERLPBoostClassifier": "estimators.totally_corrective",
    "TemperedERLPBoostClassifier": "estimators.tempered",
    "TAdaBoostClassifier": "estimators.tempered",
    "GraphSepBoostClassifier": "estimators.graphsep",
    "CorrectiveERLPBoostClassifier": "estimators.corrective",
    "CorrectiveBinaryERLPBoostClassifier": "estimators.corrective",
    "MaxEdgeAdaBoostClassifier": "estimators.miniboosts",
    "MDBoostClassifier": "estimators.formulations",
    "CGBoostClassifier": "estimators.formulations",
    "NMBoostClassifier": "estimators.formulations",
    "QRLPBoostClassifier": "estimators.formulations",
    "MLPBoostClassifier": "estimators.miniboosts",
    "AdaBoostVClassifier": "estimators.miniboosts",
    "SmoothBoostClassifier": "estimators.miniboosts",
    "MABoostClassifier": "estimators.maboost",
    "SparseBoostClassifier": "estimators.maboost",
    "MadaBoostClassifier": "estimators.maboost",
    "OnlineBBMClassifier": "estimators.online",
    "AdaBoostOLClassifier": "estimators.online",
    "GradientProjectionClassifier": "estimators.gradient",
    "GradientProjectionRegressor": "estimators.gradient",
    "ERLPBoostCV": "estimators.cv",
    "LPBoostCV": "estimators.cv",
    "ReweightedClassifier": "estimators.reweight",
    "reweight": "estimators.reweight",
}

__all__ = ["__version__", *_ESTIMATORS]


def __getattr__(name: str):
    if name in _ESTIMATORS:
        from importlib import import_module

        return getattr(import_module(f"dualboost.{_ESTIMATORS[name]}"), name)
    raise AttributeError(f"module 'dualboost' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_ESTIMATORS])
