"""The totally corrective drivers of [KG]: LPBoost (Alg. 2.1), SoftBoost / TotalBoost (Alg. 3.1),
ERLPBoost (Alg. 3.2) and Binary ERLPBoost (Alg. 3.3), in
:mod:`~dualboost.boosting.totally_corrective.drivers`; the column-generation drivers of the other
formulations (MDBoost, CGBoost, NM-Boost, QRLP-Boost) in
:mod:`~dualboost.boosting.totally_corrective.formulations`.
"""

from dualboost.boosting.totally_corrective.drivers import (
    SOFTBOOST_ZERO,
    EntropySetup,
    binary_erlpboost,
    entropy_loop,
    entropy_setup,
    erlpboost,
    lpboost,
    softboost,
)
from dualboost.boosting.totally_corrective.formulations import cgboost, mdboost, nmboost, qrlpboost

__all__ = [
    "lpboost",
    "softboost",
    "erlpboost",
    "binary_erlpboost",
    "entropy_setup",
    "entropy_loop",
    "EntropySetup",
    "SOFTBOOST_ZERO",
    "mdboost",
    "cgboost",
    "nmboost",
    "qrlpboost",
]
