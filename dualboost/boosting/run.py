"""Former location of :mod:`dualboost.boosting.core.run`, kept so that the scripts of benchmarks/ that
import it keep working; import from :mod:`dualboost.boosting.core.run`."""

from dualboost.boosting.core.run import *  # noqa: F403
from dualboost.boosting.core.run import __all__  # noqa: F401
