"""The corrective drivers: Corrective ERLPBoost and Corrective Binary ERLPBoost ([KG] Algs. 4.1, 4.3)
with the Frank-Wolfe step rules of :mod:`~dualboost.boosting.corrective.frank_wolfe`, and MLPBoost
([MHT22]) (:mod:`~dualboost.boosting.corrective.drivers`); AdaBoost, the baseline of [KG] Ch. 5, and
AdaBoost* ([RW05]) (:mod:`~dualboost.boosting.corrective.adaboost`); SmoothBoost ([Ser03],
:mod:`~dualboost.boosting.corrective.smoothboost`).
"""

from dualboost.boosting.corrective.adaboost import (
    adaboost,
    adaboost_step,
    adaboostv,
    adaboostv_step,
)
from dualboost.boosting.corrective.drivers import (
    CorrectiveUpdate,
    binary_erlpboost_update,
    corrective_binary_erlpboost,
    corrective_erlpboost,
    erlpboost_update,
    exact_step,
    mlpboost,
)
from dualboost.boosting.corrective.frank_wolfe import STEPS, clipped_step
from dualboost.boosting.corrective.smoothboost import smoothboost

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
    "adaboostv",
    "adaboostv_step",
    "mlpboost",
    "smoothboost",
    "STEPS",
]
