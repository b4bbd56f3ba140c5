"""Fixtures shared by test files."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def dask_client():
    """A ``dask.distributed`` LocalCluster with two worker processes (one thread each) and its Client,
    the default client while it lives (the estimators' ``client=None``). One per test module, closed
    at its end, so that modules testing in-process execution see no default client."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    client = distributed.Client(cluster)
    assert len(client.scheduler_info()["workers"]) == 2
    yield client
    client.close()
    cluster.close()
