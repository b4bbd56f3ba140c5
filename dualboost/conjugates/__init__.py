"""The Fenchel-conjugate library (DESIGN.md, spec Part C).

Every entry is a :class:`ConvexFunction` with ``value``, ``conjugate``, ``conjugate_grad``,
``in_domain`` and cvxpy forms of f and f*.
"""

from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.entropy import CappedBinaryRelativeEntropy, CappedRelativeEntropy
from dualboost.conjugates.indicators import CappedSimplex
from dualboost.conjugates.projections import (
    capped_simplex_support,
    entropic_project_capped_simplex,
    project_capped_simplex,
    project_simplex,
)

__all__ = [
    "ConvexFunction",
    "CvxpyForm",
    "CappedSimplex",
    "CappedRelativeEntropy",
    "CappedBinaryRelativeEntropy",
    "capped_simplex_support",
    "entropic_project_capped_simplex",
    "project_capped_simplex",
    "project_simplex",
]
