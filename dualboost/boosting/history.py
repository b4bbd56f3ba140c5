"""Former location of :mod:`dualboost.boosting.core.history`, kept so that the scripts of benchmarks/ that
import it keep working; import from :mod:`dualboost.boosting.core.history`."""

from dualboost.boosting.core.history import *  # noqa: F403
from dualboost.boosting.core.history import __all__  # noqa: F401
