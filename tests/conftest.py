"""Fixtures shared by test files, and one BLAS thread per pytest-xdist worker."""

from __future__ import annotations

import os

import pytest

#: what a pytest-xdist worker sets in its environment, for the processes it starts (documented code,
#: examples, the Sphinx build, the LocalCluster's workers)
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def pytest_configure(config):
    """In a pytest-xdist worker (``-n auto``, pyproject.toml's addopts), BLAS and OpenMP run on one
    thread: the workers already keep every core busy, and BLAS's threads spin-waiting for each other
    on a busy machine slowed scikit-learn's estimator checks (``-n 2`` on 2 cores: 98.6 s with two
    BLAS threads per worker, 83.4 s with one). The solvers run BLAS on one thread anyway
    (dualboost/_threads.py); tests/test_threads.py sets its own counts. A variable set already is
    kept; ``-n 0`` changes nothing."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    unset = {name: value for name, value in ONE_THREAD.items() if name not in os.environ}
    os.environ.update(unset)  # read by the libraries that load from now on, here and in children
    from threadpoolctl import threadpool_limits

    for name, api in (("OPENBLAS_NUM_THREADS", "blas"), ("OMP_NUM_THREADS", "openmp")):
        if name in unset:  # the libraries loaded already (by plugins)
            threadpool_limits(limits=1, user_api=api)


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
