"""ERLPBoost past one machine: the N-sized work as Dask reductions over row partitions.

Needs the ``dask`` extra (``dask[distributed]``); ``import dualboost`` does not import this package.

* :func:`dask_erlpboost`: ERLPBoost with decision stumps or raw features on row-chunked
  ``dask.array`` (or numpy) X, y, on a ``dask.distributed`` client or in-process;
* :class:`DaskERLPBoost`: the ERLPBoost model over a row-partitioned U (``solve(method="auglag")``);
* :class:`DaskDecisionStumps`: the stump oracle with per-partition weighted sums;
* :class:`DaskRawFeatures`: the raw-feature oracle (``features="raw"``), one reduction per call;
* :class:`PartitionedEdges`, :class:`DistributedVector`, :class:`Executor`, :func:`partition_rows`:
  the building blocks.

Its scikit-learn front-end is :class:`~dualboost.estimators.ERLPBoostClassifier` on a dask X, through
:mod:`dualboost.estimators.dask` (estimators sit above this package). See ``docs/dask.md`` for what
travels over the network per iteration.
"""

from dualboost.dask.data import RowPartitions, is_dask_array, partition_rows
from dualboost.dask.driver import DaskEnsemble, dask_erlpboost
from dualboost.dask.edges import DistributedVector, PartitionedEdges
from dualboost.dask.executor import Executor
from dualboost.dask.features import DaskRawFeatures
from dualboost.dask.model import DaskERLPBoost
from dualboost.dask.softmax import Evaluation, evaluate
from dualboost.dask.stumps import DaskDecisionStumps, DaskSelection

__all__ = [
    "dask_erlpboost",
    "DaskERLPBoost",
    "DaskDecisionStumps",
    "DaskRawFeatures",
    "DaskSelection",
    "DaskEnsemble",
    "PartitionedEdges",
    "DistributedVector",
    "Evaluation",
    "evaluate",
    "Executor",
    "RowPartitions",
    "partition_rows",
    "is_dask_array",
]
