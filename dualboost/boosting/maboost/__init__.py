"""The MABoost family of [NP]: boosting as online mirror descent.

* :mod:`~dualboost.boosting.maboost.drivers`: MABoost, LAMABoost, SparseBoost and the MadaBoost
  variant;
* :mod:`~dualboost.boosting.maboost.geometry`: regularisers, projection sets and Bregman projections.
"""

from dualboost.boosting.maboost.drivers import (
    MABOOST_MAX_ITER,
    MADABOOST_STEPS,
    STEPS,
    THRESHOLDS,
    UPDATES,
    MABoostResult,
    lamaboost,
    maboost,
    madaboost,
    madaboost_fixed_point_step,
    sparseboost,
)

__all__ = [
    "MABoostResult",
    "maboost",
    "lamaboost",
    "sparseboost",
    "madaboost",
    "madaboost_fixed_point_step",
    "MABOOST_MAX_ITER",
    "UPDATES",
    "STEPS",
    "MADABOOST_STEPS",
    "THRESHOLDS",
]
