"""The names and numbers that the ``dualboost`` command's parsers and help show, without importing
what defines them.

``dualboost --help`` and ``dualboost verify --help`` build the parsers of :mod:`dualboost.cli`; the
registries these names come from live in modules that import cvxpy, scipy.optimize and scikit-learn
(1.5-2 s together), which a command imports only when it runs (docs/architecture.md). Each constant
names the registry it mirrors; tests/cli/test_startup.py checks that every one equals its registry, so a
model, method or algorithm added there and not here fails a test instead of missing from the command.
"""

from __future__ import annotations

__all__ = [
    "ALGORITHMS",
    "CVXPY_METHODS",
    "DATASETS",
    "DEFAULT_EVERY",
    "FAMILIES",
    "GAP_TOL",
    "MAX_MODEL_BYTES",
    "MAP_TOL",
    "METHODS",
    "ORACLES",
    "RELAXATIONS",
    "SIDES",
    "STEPS",
]

#: :data:`dualboost.verify.FAMILIES`: the model families ``dualboost verify`` solves
FAMILIES = (
    "lpboost",
    "softboost",
    "erlpboost",
    "binary_erlpboost",
    "corrective_erlpboost",
    "corrective_binary_erlpboost",
    "mdboost",
    "nmboost",
    "cgboost",
    "qrlpboost",
)
#: :data:`dualboost.solvers.METHODS`: the solve methods (the cvxpy solvers, then auglag and HiGHS)
METHODS = ("clarabel", "ecos", "scs", "auglag", "highs")
#: :data:`dualboost.solvers.cvxpy_backend.CVXPY_METHODS` (its keys): the methods solved through cvxpy
CVXPY_METHODS = ("clarabel", "ecos", "scs")
#: :data:`dualboost.solvers.SIDES`
SIDES = ("primal", "dual")
#: :data:`dualboost.verify.GAP_TOL`: the certified relative gap each method must reach in ``verify``
GAP_TOL = {"clarabel": 1e-6, "ecos": 1e-6, "scs": 1e-4, "auglag": 1e-6, "highs": 1e-6}
#: :data:`dualboost.verify.MAP_TOL`: the map error each method must reach in ``verify``
MAP_TOL = {"clarabel": 1e-5, "ecos": 1e-5, "scs": 1e-3, "auglag": 1e-5, "highs": 1e-5}
#: :data:`dualboost.problems.relaxation_report.BUILTIN_RELAXATIONS` (its keys): ``verify --relaxation``
RELAXATIONS = (
    "linf-ball",
    "l2-ball",
    "l1-ball",
    "norm-penalty",
    "entropy",
    "linf-ball+entropy",
    "l2-ball+entropy",
    "l2-ball-around-prior",
)
#: :data:`dualboost.boosting.ALGORITHMS` (its keys): ``boost --algorithm``
ALGORITHMS = (
    "lpboost",
    "softboost",
    "erlpboost",
    "binary_erlpboost",
    "corrective_erlpboost",
    "corrective_binary_erlpboost",
    "adaboost",
    "mdboost",
    "cgboost",
    "nmboost",
    "qrlpboost",
    "mlpboost",
    "adaboostv",
    "smoothboost",
    "tempered_erlpboost",
    "t_adaboost",
)
#: :data:`dualboost.datasets.DATASETS` (its keys): the named data sets ``boost`` takes as TRAIN
DATASETS = ("a9a", "german.numer", "diabetes")
#: :data:`dualboost.oracles.registry.ORACLES` (its keys): ``boost --oracle``
ORACLES = ("stumps", "raw", "svm")
#: :data:`dualboost.boosting.corrective.frank_wolfe.STEPS`: ``boost --step``
STEPS = ("clipped", "classic", "short", "line", "pairwise")
#: :data:`dualboost.boosting.core.checkpoint.DEFAULT_EVERY`: ``boost --checkpoint-every``'s default
DEFAULT_EVERY = 10
#: :data:`dualboost.estimators.persistence.MAX_MODEL_BYTES`: ``predict --max-bytes``'s default
MAX_MODEL_BYTES = 1 << 28
