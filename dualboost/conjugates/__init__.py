"""The Fenchel-conjugate library (docs/math.md#conjugate-table).

Every entry is a :class:`ConvexFunction` with ``value``, ``conjugate``, ``conjugate_grad``,
``in_domain`` and cvxpy forms of f and f*. Entries (docs/math.md#conjugate-table, entries 1-6):
indicators of the (capped) simplex and of norm balls, norms, ``(1/2)||.||^2``, relative entropies
(on the orthant, and on the capped simplex), the binary relative entropy, and the hinge, logistic,
exponential and MadaBoost losses. Calculus rules (docs/math.md#calculus-rules): ``c * f``,
``f + g``, ``f + b``, :class:`Shifted`, :class:`Tilted`, :class:`Dilated`, :class:`SeparableSum` and
:class:`SimplexRestriction` ([SS] Lemma 8); :func:`exact_restriction` gives ``f + I_S`` for a strictly
convex f the exact gradient and curvature of its conjugate (docs/math.md#exact-restriction).
:func:`numerical_conjugate` and
:func:`numerical_biconjugate` compute conjugates from f alone, for testing.
"""

from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.calculus import (
    SUM_RULES,
    Dilated,
    Scaled,
    SeparableSum,
    Shifted,
    Sum,
    Tilted,
    add,
    scale,
)
from dualboost.conjugates.entropy import CappedBinaryRelativeEntropy, CappedRelativeEntropy
from dualboost.conjugates.indicators import CappedSimplex
from dualboost.conjugates.losses import (
    ExponentialLoss,
    HingeLoss,
    LogisticLoss,
    MadaBoostLoss,
    SeparableLoss,
)
from dualboost.conjugates.norms import (
    HalfSquaredNorm,
    Norm,
    NormBall,
    dual_exponent,
    unit_ball_maximiser,
)
from dualboost.conjugates.numerical import (
    numerical_biconjugate,
    numerical_conjugate,
    solve_cvxpy,
)
from dualboost.conjugates.projections import (
    capped_simplex_support,
    entropic_project_capped_simplex,
    project_capped_simplex,
    project_simplex,
)
from dualboost.conjugates.quadratic import CappedQuadratic
from dualboost.conjugates.relative_entropy import RelativeEntropy, UnnormalisedRelativeEntropy
from dualboost.conjugates.restriction import SimplexRestriction
from dualboost.conjugates.smooth_restriction import (
    ExactRestrictedSum,
    ExactRestriction,
    ExactRestrictionMixin,
    ExactSimplexRestriction,
    LowRankHessian,
    exact_restriction,
    simplex_pieces,
)
from dualboost.conjugates.tempered import (
    CappedTemperedRelativeEntropy,
    TemperedRelativeEntropy,
    exp_t,
    log_t,
)
from dualboost.conjugates.total_entropy import CappedTotalRelativeEntropy, total_kl_scale

__all__ = [
    "ConvexFunction",
    "CvxpyForm",
    "CappedSimplex",
    "CappedQuadratic",
    "CappedRelativeEntropy",
    "CappedBinaryRelativeEntropy",
    "capped_simplex_support",
    "entropic_project_capped_simplex",
    "project_capped_simplex",
    "project_simplex",
    # entries
    "Norm",
    "NormBall",
    "HalfSquaredNorm",
    "dual_exponent",
    "unit_ball_maximiser",
    "RelativeEntropy",
    "UnnormalisedRelativeEntropy",
    "TemperedRelativeEntropy",
    "CappedTemperedRelativeEntropy",
    "CappedTotalRelativeEntropy",
    "total_kl_scale",
    "log_t",
    "exp_t",
    "SeparableLoss",
    "HingeLoss",
    "LogisticLoss",
    "ExponentialLoss",
    "MadaBoostLoss",
    # calculus
    "Scaled",
    "Shifted",
    "Tilted",
    "Dilated",
    "SeparableSum",
    "Sum",
    "SimplexRestriction",
    "exact_restriction",
    "simplex_pieces",
    "ExactRestrictionMixin",
    "ExactRestriction",
    "ExactRestrictedSum",
    "ExactSimplexRestriction",
    "LowRankHessian",
    "SUM_RULES",
    "add",
    "scale",
    # numerical
    "numerical_conjugate",
    "numerical_biconjugate",
    "solve_cvxpy",
]
