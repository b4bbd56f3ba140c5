"""Boosting drivers (DESIGN.md, "Drivers").

:mod:`dualboost.boosting.relaxation`: [SS] Fig. 1 and its totally corrective variant for any
:class:`~dualboost.problems.Relaxation`.
"""

from dualboost.boosting.relaxation import (
    RelaxationBoostResult,
    corrective_relaxation_boost,
    max_edge_oracle,
    totally_corrective_relaxation_boost,
)

__all__ = [
    "RelaxationBoostResult",
    "corrective_relaxation_boost",
    "totally_corrective_relaxation_boost",
    "max_edge_oracle",
]
