"""The corrective drivers: Corrective ERLPBoost and Corrective Binary ERLPBoost ([KG] Algs. 4.1, 4.3;
:mod:`~dualboost.boosting.corrective.drivers`) and AdaBoost, the baseline of [KG] Ch. 5
(:mod:`~dualboost.boosting.corrective.adaboost`).
"""

from dualboost.boosting.corrective.adaboost import (
    adaboost,
    adaboost_step,
)
from dualboost.boosting.corrective.drivers import (
    CorrectiveUpdate,
    binary_erlpboost_update,
    clipped_step,
    corrective_binary_erlpboost,
    corrective_erlpboost,
    erlpboost_update,
    exact_step,
)

__all__ = [
    "corrective_erlpboost",
    "corrective_binary_erlpboost",
    "CorrectiveUpdate",
    "erlpboost_update",
    "binary_erlpboost_update",
    "clipped_step",
    "exact_step",
    "adaboost",
    "adaboost_step",
]
