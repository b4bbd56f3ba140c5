"""ERLPBoost with decision stumps on a Dask LocalCluster (two worker processes); see docs/dask.md.

python examples/dask_local_cluster.py
"""

from __future__ import annotations

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

from dualboost import ERLPBoostClassifier
from dualboost.dask import dask_erlpboost


def main() -> None:
    rng = np.random.default_rng(0)
    X = rng.integers(0, 32, size=(20_000, 20)).astype(float)
    y = np.where(X[:, 0] - X[:, 1] + 4 * rng.normal(size=X.shape[0]) > 0, 1, -1)
    Xd = da.from_array(X, chunks=(10_000, 20))  # row chunks = partitions, one per worker
    yd = da.from_array(y, chunks=10_000)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        result = dask_erlpboost(Xd, yd, client=client, nu=0.1 * X.shape[0], eps=0.2)
        print(result)
        for hypothesis, weight in zip(result.hypotheses, result.weights, strict=True):
            if weight > 0:
                print(f"  {weight:.3f}  {hypothesis.describe()}")
        # the main estimator takes the dask arrays as they are (stumps, auglag: the Dask path)
        clf = ERLPBoostClassifier(nu=0.1, eps=0.2).fit(Xd, yd)  # on the default client
        print("training accuracy:", float((clf.predict(Xd) == yd).mean().compute()))


if __name__ == "__main__":
    main()
