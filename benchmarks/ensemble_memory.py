"""What the driver's edge matrix holds, and what its compact products cost.

:class:`~dualboost.boosting.core.run.Ensemble` stores +-1 (stump) columns as ``int8``. A
totally-corrective driver asks for :attr:`Ensemble.U` (the solvers take U as a float64 ndarray:
products, column slices, Gram matrices), which keeps a float64 mirror of the int8 store beside it.
For N examples x t stump hypotheses (random +-1 columns) this script measures

* the bytes held: the int8 buffer (:attr:`Ensemble.nbytes`) and the float64 mirror
  (:attr:`Ensemble.mirror_nbytes`, after one call of ``U``), both at the buffer's capacity (a
  power of two times 16 columns, >= t), and their sum per entry;
* the time of ``U^T d`` and ``U w`` on the float64 mirror (one GEMV each) against the compact
  products on the int8 store, :meth:`Ensemble.edges` and :meth:`Ensemble.margins` (``einsum``,
  no float64 copy); best of ``--repeat`` calls (``time.perf_counter``), BLAS on one thread
  (:func:`dualboost._threads.single_blas_thread`, as the solvers run it); ratio = compact / mirror.

Sizes whose int8 store plus mirror would exceed ``--max-gb`` are skipped.

Run: ``python benchmarks/ensemble_memory.py [--sizes N ...] [--hypotheses T ...] [--repeat K]``;
the table is written to ``benchmarks/results/ensemble_memory.txt`` (``--out``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dualboost._threads import single_blas_thread
from dualboost.boosting.core.run import Ensemble
from dualboost.oracles import Selection, Stump

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance  # noqa: E402

HEADER = (
    f"{'N':>9}{'t':>6}{'cap':>6}{'int8 B':>15}{'float64 B':>16}{'B/entry':>9}"
    f"{'U^T d f64 ms':>14}{'int8 ms':>10}{'ratio':>7}"
    f"{'U w f64 ms':>12}{'int8 ms':>10}{'ratio':>7}{'max diff':>10}"
)


@dataclass
class Row:
    """One (N, t) measurement: bytes held and best-of-k times in seconds."""

    n: int
    t: int
    capacity: int
    int8_bytes: int
    float64_bytes: int
    edges_float64: float
    edges_int8: float
    margins_float64: float
    margins_int8: float
    max_diff: float

    def line(self) -> str:
        per_entry = (self.int8_bytes + self.float64_bytes) / (self.n * self.capacity)
        return (
            f"{self.n:>9,}{self.t:>6}{self.capacity:>6}{self.int8_bytes:>15,}{self.float64_bytes:>16,}"
            f"{per_entry:>9.1f}{1e3 * self.edges_float64:>14.2f}{1e3 * self.edges_int8:>10.2f}"
            f"{self.edges_int8 / self.edges_float64:>7.2f}{1e3 * self.margins_float64:>12.2f}"
            f"{1e3 * self.margins_int8:>10.2f}{self.margins_int8 / self.margins_float64:>7.2f}"
            f"{self.max_diff:>10.1e}"
        )


def build(n: int, t: int, seed: int = 0) -> Ensemble:
    """An Ensemble of t distinct stumps with random +-1 columns of length n (stored as int8)."""
    rng = np.random.default_rng(seed)
    ensemble = Ensemble(n)
    for j in range(t):
        column = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        ensemble.add(Selection(Stump(n_features=t, feature=j, threshold=0.0, sign=1), 0.0, column))
    return ensemble


def capacity(t: int) -> int:
    """The buffer's column capacity after t appends (16, doubled when full)."""
    cap = 16
    while cap < t:
        cap *= 2
    return cap


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """The shortest of ``repeat`` wall-clock times of ``fn()``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measure(ensemble: Ensemble, repeat: int, seed: int = 1) -> Row:
    """Bytes held after one call of ``ensemble.U`` and the times of the four products."""
    U = ensemble.U  # builds the float64 mirror, as a totally-corrective driver does
    n, t = U.shape
    rng = np.random.default_rng(seed)
    d, w = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(t))
    with single_blas_thread():
        edges_float64 = best_of(lambda: U.T @ d, repeat)
        edges_int8 = best_of(lambda: ensemble.edges(d), repeat)
        margins_float64 = best_of(lambda: U @ w, repeat)
        margins_int8 = best_of(lambda: ensemble.margins(w), repeat)
        diff = max(np.abs(ensemble.edges(d) - U.T @ d).max(), np.abs(ensemble.margins(w) - U @ w).max())
    return Row(
        n=n,
        t=t,
        capacity=ensemble.stored.base.shape[1],
        int8_bytes=ensemble.nbytes,
        float64_bytes=ensemble.mirror_nbytes,
        edges_float64=edges_float64,
        edges_int8=edges_int8,
        margins_float64=margins_float64,
        margins_int8=margins_int8,
        max_diff=float(diff),
    )


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, RESULTS / "ensemble_memory.txt")
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000], help="values of N")
    parser.add_argument("--hypotheses", type=int, nargs="+", default=[100, 1_000], help="values of t")
    parser.add_argument("--repeat", type=int, default=10, help="calls per product, best kept (default 10)")
    parser.add_argument("--max-gb", type=float, default=2.0, help="skip sizes holding more (int8 + mirror)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    emit = Report(
        args.out,
        provenance(__file__, argv),
        "Ensemble of t random +-1 stump columns: bytes held at capacity cap (int8 store, float64 mirror of "
        "Ensemble.U), U^T d and U w on the mirror (GEMV) vs on the int8 store (Ensemble.edges / margins); "
        f"best of {args.repeat}, one BLAS thread; ratio = int8 / float64",
        HEADER,
        "-" * len(HEADER),
    )
    for n in args.sizes:
        for t in args.hypotheses:
            held = 9 * n * capacity(t)
            if held > args.max_gb * 1e9:
                line = f"{n:>9,}{t:>6}  skipped: {held:,} bytes > --max-gb {args.max_gb:g}"
            else:
                ensemble = build(n, t)
                line = measure(ensemble, args.repeat).line()
                del ensemble
            emit(line)
    emit.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
