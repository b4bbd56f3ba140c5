"""The sparse operator of decision-stump columns against the dense products it replaces.

For the stumps of an ERLPBoost run (nu = 0.1 N, eps = 0.01; the first t columns of it), the time of
``U w``, ``U^T d`` and the Gram ``U^T diag(g) U`` by
:class:`dualboost.problems.sparse_columns.SparseStumpColumns` (compiled passes over the 0/1
indicators B, ``_stump_products.IndicatorPasses``) and by the dense float64 U as the compiled
re-solve forms them (column-major U, BLAS dgemv; the Gram as a row scaling by sqrt(g) into a buffer
and dsyrk), best of 5 rounds. Each row gives B's density (nnz(B) / (N t)), the pairs
``sum_n k_n (k_n + 1) / 2`` of the rows' k_n nonzeros (the sparse Gram's work), the times, the
ratios dense/sparse, and the cost of a sparse entry (of a pass) and of a pair (of the Gram) in dense
multiply-adds: ``(t_sparse / t_dense) N t / nnz`` and ``(t_sparse / t_dense) N t^2 / pairs``,
what :attr:`SparseStumpColumns.MAX_DENSITY`, ``SPARSE_MADD_COST`` and ``gram_work`` are set from.
g is random with a tenth of the rows at 0 (the capped rows of a re-solve).

Data: a9a (the shipped train split) where ``DUALBOOST_DATA`` holds it, german and diabetes (dense
features: B's density 0.2-0.3), and a synthetic dense-feature set (Gaussian features, N = 30,000).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/sparse_columns.py [--sets a9a german diabetes gauss]``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import dsyrk

from dualboost.boosting import erlpboost
from dualboost.datasets import DatasetNotFoundError, load_dataset
from dualboost.oracles import DecisionStumps
from dualboost.problems.sparse_columns import SparseStumpColumns

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stump_products import best_ms  # noqa: E402


class _Kept(SparseStumpColumns):
    """The operator with B's rows kept at any density (the dense-feature sets' B is dropped)."""

    DROP_MARGIN = float("inf")


def features(name: str) -> tuple[sp.csr_matrix | np.ndarray, np.ndarray]:
    """The training features and labels of ``name``."""
    if name == "a9a":
        return load_dataset("a9a", download=False).train
    if name == "gauss":
        rng = np.random.default_rng(0)
        X = rng.normal(size=(30_000, 20))
        y = np.where(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=30_000) > 0, 1.0, -1.0)
        return X, y
    parts = load_dataset(name, seed=0, download=False)
    return np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def timings(
    U: np.ndarray, operator: SparseStumpColumns, w: np.ndarray, d: np.ndarray, g: np.ndarray, calls: int
) -> list[tuple[float, float]]:
    """``(dense, sparse)`` ms of ``U w``, ``U^T d`` and the Gram ``U^T diag(g) U``."""
    buffer = np.empty_like(U)
    root = np.sqrt(g)[:, None]

    def dense_gram() -> np.ndarray:  # as the compiled re-solve forms it: a row scaling and dsyrk
        np.multiply(U, root, out=buffer)
        return dsyrk(1.0, buffer, trans=1)

    fewer = max(1, calls // 4)
    return [
        (best_ms(lambda: U @ w, calls), best_ms(lambda: operator.margins(w), calls)),
        (best_ms(lambda: U.T @ d, calls), best_ms(lambda: operator.edges(d), calls)),
        (best_ms(dense_gram, fewer), best_ms(lambda: operator.weighted_gram(g), fewer)),
    ]


def rows(name: str) -> list[str]:
    """The table's rows for one data set."""
    X, y = features(name)
    oracle = DecisionStumps().fit(sp.csr_matrix(X), y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = erlpboost(oracle, nu=max(1.0, 0.1 * y.size), eps=0.01)
    hypotheses, n = run.hypotheses, y.size
    rng = np.random.default_rng(1)
    out = []
    for t in sorted({min(10, len(hypotheses)), len(hypotheses) // 2, len(hypotheses)}):
        operator = _Kept.of(oracle, hypotheses[:t])
        U = np.asfortranarray(np.column_stack([operator.margins(e) for e in np.eye(t)]))
        w, d = rng.random(t), rng.normal(size=n)
        g = rng.random(n)
        g[rng.random(n) < 0.1] = 0.0
        times = timings(U, operator, w, d, g, calls=max(3, int(2e7 / (n * t))))
        explicit = U.T @ (g[:, None] * U)
        error = np.abs(operator.weighted_gram(g) - explicit).max() / np.abs(explicit).max()
        k = np.diff(operator.B.tocsr().indptr)
        pairs = float((k * (k + 1) / 2).sum())
        density = operator.nnz / (n * t)
        pass_cost = np.mean([s / dense for dense, s in times[:2]]) * n * t / max(operator.nnz, 1)
        pair_cost = times[2][1] / times[2][0] * n * t * t / max(pairs, 1)
        cells = "".join(f"  {dense:8.3f} {s:7.3f} {dense / s:5.2f}" for dense, s in times)
        costs = f"  {pass_cost:6.2f} {pair_cost:6.2f}  {error:.0e}"
        out.append(f"{name:>9} {n:6d} {t:4d} {density:6.3f} {pairs:9.3g}{cells}{costs}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["a9a", "german", "diabetes", "gauss"])
    args = parser.parse_args()
    print("ms: dense (BLAS on U) and sparse (SparseStumpColumns), dense/sparse; entry = a pass's cost per")
    print("nonzero of B, pair = the Gram's cost per pair of a row's nonzeros, both in dense multiply-adds;")
    print(
        "err = the Gram's largest difference from the explicit U^T diag(g) U, relative to its largest entry"
    )
    print(
        "      set      N    t  dens.     pairs      U w: dense  sparse     x    U^T d: dense  sparse     x"
        "     Gram: dense  sparse     x   entry   pair  err"
    )
    for name in args.sets:
        try:
            for row in rows(name):
                print(row, flush=True)
        except DatasetNotFoundError:
            print(f"{name:>9}: not found (DUALBOOST_DATA)")


if __name__ == "__main__":
    main()
