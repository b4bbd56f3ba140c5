"""Former location of :mod:`dualboost.boosting.core.progress`, kept so that the scripts of benchmarks/ that
import it keep working; import from :mod:`dualboost.boosting.core.progress`."""

from dualboost.boosting.core.progress import *  # noqa: F403
from dualboost.boosting.core.progress import __all__  # noqa: F401
