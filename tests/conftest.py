"""Fixtures shared by test files."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dask_cluster():
    """A ``dask.distributed`` LocalCluster with two worker processes (one thread each), started once for
    the session, when the first test asks for :func:`dask_client` (its start is the expensive part:
    two worker processes). Its scheduler's HTTP server (health and metrics routes, even without a
    dashboard) listens on a free port (``":0"``): the default 8787 is taken by the cluster of
    another pytest-xdist worker, and distributed warns as it moves."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
    )
    yield cluster
    cluster.close()


@pytest.fixture(scope="module")
def dask_client(dask_cluster):
    """A Client of :func:`dask_cluster`, the default client while it lives (the estimators'
    ``client=None``). One per test module, closed at its end, so that modules testing in-process
    execution see no default client."""
    distributed = pytest.importorskip("distributed")
    client = distributed.Client(dask_cluster)
    assert len(client.scheduler_info()["workers"]) == 2
    yield client
    client.close()
