"""The numerical kernels of the smooth duals live in :mod:`dualboost.problems.kernels`, the model base
holds the model (docs/architecture.md#the-solver-contract).

* the base defines classes only (the model, its defaults, ``ColumnIndependent``): no kernel;
* the parts of the Hessian add up over row blocks (what the Dask partitions rely on): the sum over
  three blocks equals the parts over all rows, and the Hessian from the parts equals the dense
  ``-U_R^T hess f* U_C`` formed from the regulariser's ``LowRankHessian`` (an independent product,
  to 1e-12 of the summed terms: the same N products in another order).
"""

from __future__ import annotations

import inspect

import numpy as np

from dualboost.conjugates import CappedRelativeEntropy
from dualboost.problems import base, kernels


def test_the_model_base_defines_no_kernel():
    functions = [
        name
        for name, obj in vars(base).items()
        if inspect.isfunction(obj) and obj.__module__ == base.__name__
    ]
    assert functions == []
    assert {"gram_parts", "cross_gram_parts", "low_rank_hessian", "single_extension"} <= set(kernels.__all__)


def test_parts_add_up_over_row_blocks_and_give_the_hessian():
    rng = np.random.default_rng(7)
    N, t = 120, 6
    U = rng.uniform(-1, 1, size=(N, t))
    reg = CappedRelativeEntropy(rng.dirichlet(np.ones(N)), nu=4.0, eta=30.0)
    theta = -(U @ rng.dirichlet(np.ones(t)))
    g, V, S, scale = H = reg.conjugate_hessian(theta)
    rows, columns = np.array([0, 2, 5]), np.array([1, 2])
    whole = kernels.cross_gram_parts(U, g, V, rows, columns)
    blocks = [slice(0, 40), slice(40, 90), slice(90, N)]
    per_block = [kernels.cross_gram_parts(U[b], g[b], V[b], rows, columns) for b in blocks]
    summed = [sum(parts) for parts in zip(*per_block, strict=True)]
    dense = np.diag(g) - V @ H.M @ V.T
    expected = -scale * (U[:, rows].T @ dense @ U[:, columns])
    magnitude = np.diag(g) + np.abs(V @ H.M @ V.T)
    terms = scale * (np.abs(U[:, rows]).T @ magnitude @ np.abs(U[:, columns]))
    for got in (whole, summed):
        formed = kernels.low_rank_hessian(*got, S, scale)
        np.testing.assert_allclose(formed, expected, rtol=0, atol=1e-12 * terms.max())
