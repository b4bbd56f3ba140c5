"""Speed of the decision-stump oracle on a9a (target: under 20 ms per call), against scikit-learn.

On a9a train (29,305 x 123, the thesis's split: docs/math.md#thesis-experiments), sparse (CSC) and dense X:
``DecisionStumps.best(d)`` per call (median over random distributions d) against
``DecisionTreeClassifier(max_depth=1).fit(X, y, sample_weight=d)`` in the same run, and two checks
of the best weighted error (1 - edge)/2:

* the depth-1 tree on all of X is a stump chosen by Gini impurity, not by weighted error, so its
  error may be larger than ours but never smaller;
* the exact reference: a9a's features are binary, so a depth-1 tree on the single feature j is the
  minimum-error stump of feature j (one threshold, majority leaves); the minimum over the 123
  features must equal our error (checked on ``--exact`` of the distributions).

Run: ``python benchmarks/oracle.py [--calls 50] [--data DIR]``. The data directory defaults to
``$DUALBOOST_DATA`` or ``../shared/data`` beside the repository.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from dualboost.datasets import load_dataset
from dualboost.oracles import DecisionStumps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_parser, use_data  # noqa: E402

TARGET_MS = 20.0


def median_ms(fn, inputs) -> tuple[float, list]:
    times, results = [], []
    for x in inputs:
        start = time.perf_counter()
        results.append(fn(x))
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times)), results


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, data=True)
    parser.add_argument("--calls", type=int, default=50, help="random distributions d (default 50)")
    parser.add_argument("--exact", type=int, default=5, help="distributions for the per-feature check")
    args = parser.parse_args(argv)
    use_data(args.data)
    X_sparse, y = load_dataset("a9a", sparse=True, download=False).train
    n = X_sparse.shape[0]
    rng = np.random.default_rng(0)
    ds = [rng.dirichlet(np.ones(n)) for _ in range(args.calls)]
    print(f"a9a train: N = {n}, p = {X_sparse.shape[1]}, nnz = {X_sparse.nnz}; {args.calls} random d")
    header = f"{'input':<8}{'fit ms':>9}{'ours ms/call':>14}{'sklearn ms/call':>17}{'ratio':>8}"
    print(header)
    print("-" * len(header))
    ok, chosen = True, {}
    tree = DecisionTreeClassifier(max_depth=1, random_state=0)
    for label, X in (("sparse", X_sparse.tocsc()), ("dense", X_sparse.toarray())):
        start = time.perf_counter()
        oracle = DecisionStumps().fit(X, y)
        fit_ms = 1e3 * (time.perf_counter() - start)
        ours_ms, chosen[label] = median_ms(oracle.best, ds)
        sk_ms, predictions = median_ms(lambda d, X=X: tree.fit(X, y, sample_weight=d).predict(X), ds)
        ok &= ours_ms < TARGET_MS
        print(f"{label:<8}{fit_ms:>9.1f}{ours_ms:>14.2f}{sk_ms:>17.2f}{sk_ms / ours_ms:>7.1f}x")
    same = all(a == b and a.edge == b.edge for a, b in zip(chosen["sparse"], chosen["dense"], strict=True))
    ok &= same
    print(f"\nsparse and dense input select the same stumps with the same edges: {same}")
    ours_err = np.array([(1.0 - s.edge) / 2.0 for s in chosen["dense"]])
    gini_err = np.array([d @ (pred != y) for d, pred in zip(ds, predictions, strict=True)])
    excess = gini_err - ours_err
    ok &= bool(np.all(excess >= -1e-12))
    print(f"weighted error, ours: mean {ours_err.mean():.6f} over {len(ds)} d")
    print(
        f"depth-1 tree on all features (Gini split): larger by {excess.min():.2e} .. {excess.max():.2e}, "
        f"never smaller: {bool(np.all(excess >= -1e-12))}"
    )
    binary = all(np.unique(X_sparse[:, [j]].toarray()).size <= 2 for j in range(X_sparse.shape[1]))
    columns = [X_sparse[:, [j]].toarray() for j in range(X_sparse.shape[1])]
    diffs = []
    for d, ours in zip(ds[: args.exact], ours_err, strict=False):
        per_feature = [d @ (tree.fit(c, y, sample_weight=d).predict(c) != y) for c in columns]
        diffs.append(abs(min(per_feature) - ours))
    exact = binary and max(diffs) <= 1e-12
    ok &= exact
    print(
        f"min over features of depth-1 trees on one binary feature (exact reference), {len(diffs)} d: "
        f"max |difference| {max(diffs):.1e}, agree: {exact}"
    )
    print(
        f"{'PASS' if ok else 'FAIL'}: under {TARGET_MS:g} ms per call; the exact minimum weighted error,"
        " never above sklearn's"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
