"""Generalized gradient boosting of [GB]: restricted gradient descent in function space.

* :mod:`~dualboost.boosting.gradient.drivers`: naive, repeated and residual gradient projection;
* :mod:`~dualboost.boosting.gradient.losses`: the losses as functionals on the sample.
"""

from dualboost.boosting.gradient.drivers import (
    PROJECTIONS,
    STEPS,
    GradientBoostResult,
    gradient_projection,
    inner,
    naive_gradient_projection,
    norm,
    repeated_gradient_projection,
    residual_gradient_projection,
    step_schedule,
)

__all__ = [
    "PROJECTIONS",
    "STEPS",
    "GradientBoostResult",
    "gradient_projection",
    "naive_gradient_projection",
    "repeated_gradient_projection",
    "residual_gradient_projection",
    "step_schedule",
    "inner",
    "norm",
]
