"""Former location of :mod:`dualboost.boosting.gradient.losses`, kept so that the scripts of
benchmarks/ that import it keep working; import from :mod:`dualboost.boosting.gradient.losses`."""

from dualboost.boosting.gradient.losses import *  # noqa: F403
from dualboost.boosting.gradient.losses import __all__  # noqa: F401
