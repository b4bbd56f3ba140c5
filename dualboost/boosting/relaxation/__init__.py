"""Boosters for a prototyped relaxation: [SS] Fig. 1 and its totally corrective variant (Eq. 13), in
:mod:`~dualboost.boosting.relaxation.drivers`.
"""

from dualboost.boosting.relaxation.drivers import (
    RelaxationBoostResult,
    corrective_relaxation_boost,
    max_edge_oracle,
    theorem9_iterations,
    totally_corrective_relaxation_boost,
)

__all__ = [
    "RelaxationBoostResult",
    "max_edge_oracle",
    "corrective_relaxation_boost",
    "totally_corrective_relaxation_boost",
    "theorem9_iterations",
]
