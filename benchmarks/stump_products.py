"""The implicit products of decision-stump columns against the dense ones.

For N rows, F Gaussian features and t random stumps over them (plus the two constants), the time of
``U w``, ``U^T d`` and ``U^T (g * (U v))`` by :class:`dualboost.problems.kernels.StumpColumns` (each
feature's sort order, O(N F + t) per product) and by the dense float64 U (column-major, BLAS, O(N t)),
best of 5 rounds of ``--calls`` products each, with the largest difference between the two relative
to the dense result's largest entry. One process; the dense products use numpy's BLAS at its
default threads.

Run: ``python benchmarks/stump_products.py [--n 4000] [--features 20] [--columns 50 200 500]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from dualboost.oracles import DecisionStumps
from dualboost.oracles.stumps import Constant, Stump
from dualboost.problems.kernels import StumpColumns

RESULTS = Path(__file__).parent / "results"


def best_ms(call, calls: int) -> float:
    """The least mean time of ``call()`` over 5 rounds of ``calls`` calls, in milliseconds."""
    call()
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        rounds.append((time.perf_counter() - start) / calls)
    return 1e3 * min(rounds)


def measure(n: int, p: int, t: int, calls: int, seed: int = 0) -> str:
    """One row of the table: t columns (2 constants and t - 2 stumps) over n rows and p features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = [Constant(n_features=p, sign=1), Constant(n_features=p, sign=-1)]
    for _ in range(t - 2):
        f = int(rng.integers(0, p))
        hypotheses.append(Stump(n_features=p, feature=f, threshold=float(rng.normal()), sign=1))
    U = np.asfortranarray(np.column_stack([y * h.predict(X) for h in hypotheses]))
    operator = StumpColumns.of(oracle, hypotheses)
    w, d, g = rng.random(t), rng.normal(size=n), rng.random(n)
    pairs = {
        "U w": (lambda: U @ w, lambda: operator.margins(w)),
        "U^T d": (lambda: U.T @ d, lambda: operator.edges(d)),
        "U^T (g U v)": (lambda: U.T @ (g * (U @ w)), lambda: operator.gram(w, g)),
    }
    cells = []
    for dense, implicit in pairs.values():
        reference = dense()
        error = float(np.abs(implicit() - reference).max() / np.abs(reference).max())
        a, b = best_ms(dense, calls), best_ms(implicit, calls)
        cells.append(f"{a:>8.3f} {b:>8.3f} {a / b:>6.2f} {error:>8.1e}")
    return f"{n:>6} {p:>3} {t:>5}  " + "  ".join(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--columns", type=int, nargs="+", default=[50, 100, 200, 500])
    parser.add_argument("--calls", type=int, default=200, help="products per round (5 rounds, best)")
    parser.add_argument("--out", type=Path, help="a file to write the table to (default: print only)")
    args = parser.parse_args(argv)
    groups = ("U w", "U^T d", "U^T (g U v)")
    lines = [
        "ms per product: dense (BLAS on U) and implicit (StumpColumns), dense/implicit,"
        + " max |difference| / max |dense|",
        f"{'N':>6} {'F':>3} {'t':>5}  "
        + "  ".join(f"{g + ': dense  impl.      x  rel.err':>35}" for g in groups),
    ]
    print("\n".join(lines), flush=True)
    for t in args.columns:
        lines.append(measure(args.n, args.features, t, args.calls))
        print(lines[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
