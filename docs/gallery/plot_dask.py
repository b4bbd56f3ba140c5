"""
ERLPBoost on a Dask cluster
===========================

:func:`dualboost.dask.dask_erlpboost` runs ERLPBoost on row-chunked data: the N-sized work (the
stumps' weighted sums, the softmax over the margins) is done by the workers on their row
partitions, and only vectors of the size of the hypothesis set travel (docs/dask.md). Its result
equals that of the in-memory driver to rounding. A ``LocalCluster`` with ``processes=False`` keeps
the workers in this process, enough to show the run; on a real cluster only the client changes.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster

from dualboost.boosting import erlpboost
from dualboost.dask import dask_erlpboost
from dualboost.oracles import DecisionStumps

rng = np.random.default_rng(0)
X = rng.integers(0, 32, size=(2000, 10)).astype(float)
y = np.where(X[:, 0] - X[:, 1] + 4 * rng.normal(size=X.shape[0]) > 0, 1, -1)
nu = 0.4 * len(y)  # the soft margin averages the 40% smallest margins
eps = 0.1

with (
    LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
    Client(cluster) as client,
):
    Xd = da.from_array(X, chunks=(1000, 10))  # two row partitions
    yd = da.from_array(y, chunks=1000)
    distributed = dask_erlpboost(Xd, yd, client=client, nu=nu, eps=eps)
in_memory = erlpboost(DecisionStumps().fit(X, y), nu=nu, eps=eps)
print(distributed)
print(f"in memory: {in_memory.n_iter} iterations; largest difference of the weights "
      f"{np.max(np.abs(distributed.weights - in_memory.weights)):.1e}")

fig, ax = plt.subplots(figsize=(7, 4))
for name, result, style in (("Dask, 2 partitions", distributed, "-"), ("in memory", in_memory, "--")):
    rows = result.history
    ax.semilogy([row.iteration for row in rows], [row.stopping for row in rows], style, label=name)
ax.axhline(eps / 2, color="grey", lw=0.8, ls=":", label="eps/2")
ax.set_xlabel("iteration t")
ax.set_ylabel("stopping quantity")
ax.set_title("ERLPBoost on a Dask LocalCluster and in memory")
ax.legend()
fig.tight_layout()
