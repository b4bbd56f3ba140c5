"""Totally corrective vs corrective ERLPBoost at high precision: Glocer's Figs. 5.28 and 5.29.

[KG] Sec 5.5 (docs/math.md#thesis-experiments): with eps = 1e-5, ERLPBoost reaches its stop in fewer
iterations AND less time than Corrective ERLPBoost on diabetes (Fig. 5.28) and german (Fig. 5.29,
except raw data). This script runs, on the training part of the thesis's 60/20/20 split (seed
``--seed``), with the thesis's defaults nu = 1 and the theoretical eta for eps:

* ``erlpboost`` (Alg. 3.2) against ``corrective_erlpboost`` (Alg. 4.1), and
* ``binary_erlpboost`` (Alg. 3.3) against ``corrective_binary_erlpboost`` (Alg. 4.3),

each with the drivers' default ``method``, and records the duality gap the thesis plots: the
stopping quantity of both algorithm families, ``delta~^t = min_{q<=t} P^q(d^{q-1}) - Theta^{t-1}``
(docs/math.md#erlpboost-stopping, practical criterion; certified: both values are computed by the
model from d and w),
which must fall to eps/2. It saves one PNG per data set and hypothesis class (gap against
iterations and against time, both algorithms of each pair on the same axes) and prints the
iterations and seconds each run needs to bring the gap under 1e-1, ..., 1e-5.

A run ends at its stopping rule or at a cap, printed with the results: ``--time-cap`` seconds
(default 40 per run) or ``--max-iter`` iterations (default: the drivers' theorem bounds). The time
cap is applied between iterations through the drivers' progress callback.

    python benchmarks/tc_vs_corrective.py                   # diabetes and german, stumps (~6 min)
    python benchmarks/tc_vs_corrective.py --oracles stumps raw svm --time-cap 600
    python benchmarks/tc_vs_corrective.py --eps 1e-3 --datasets german

Outputs: ``benchmarks/results/tc_vs_corrective.txt`` and ``tc_vs_corrective-<data>-<oracle>.png``
(``--out`` sets the text file; the PNGs go beside it).
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting import boost
from dualboost.boosting.core.history import HistoryRow
from dualboost.datasets import load_dataset
from dualboost.oracles import DecisionStumps, LinearKernel, RawFeatures
from dualboost.problems import erlpboost_eta

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance, use_data  # noqa: E402

ORACLES = {"stumps": DecisionStumps, "raw": RawFeatures, "svm": LinearKernel}
#: (totally corrective, corrective) pairs
PAIRS = (("erlpboost", "corrective_erlpboost"), ("binary_erlpboost", "corrective_binary_erlpboost"))
THRESHOLDS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5)
FIGURES = {"diabetes": "Fig. 5.28", "german": "Fig. 5.29"}


class _CapReached(Exception):
    """Raised by the callback to end a run at the time cap."""


@dataclass
class Trace:
    """The recorded iterations of one run and how it ended."""

    algorithm: str
    rows: list[HistoryRow]
    eta: float
    stop: str  # "converged", "time cap", "iteration cap" or another stop reason of the driver

    def column(self, name: str) -> np.ndarray:
        return np.array([getattr(r, name) for r in self.rows], dtype=float)

    def reach(self, threshold: float) -> tuple[int, float] | None:
        """(iteration, seconds) of the first row whose gap is <= threshold, or None."""
        for row in self.rows:
            if row.stopping <= threshold:
                return row.iteration, row.time
        return None


def run_capped(
    algorithm: str, oracle, *, nu: float, eps: float, max_iter: int | None, time_cap: float
) -> Trace:
    """One driver run, ended by its stopping rule, ``max_iter`` or ``time_cap`` seconds."""
    rows: list[HistoryRow] = []

    def callback(row: HistoryRow) -> None:
        rows.append(row)
        if row.time >= time_cap:
            raise _CapReached

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            result = boost(algorithm, oracle, nu=nu, eps=eps, max_iter=max_iter, callback=callback)
        except _CapReached:
            eta = erlpboost_eta(oracle.n_samples_, nu, eps, binary="binary" in algorithm)
            return Trace(algorithm, rows, eta, f"time cap ({time_cap:g} s)")
    stop = "converged" if result.converged else result.stop_reason
    if stop == "max_iter":
        stop = f"iteration cap ({len(rows)})"
    return Trace(algorithm, rows, result.params["eta"], stop)


def plot_pair_traces(traces: list[Trace], eps: float, path: Path, title: str) -> None:
    """Gap against iterations and against time, every trace on the same two panels (log scale)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 4.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 2)
    styles = {"erlpboost": "C0-", "corrective_erlpboost": "C1-", "binary_erlpboost": "C2--"}
    styles["corrective_binary_erlpboost"] = "C3--"
    for axis, x_name, label in zip(axes, ("iteration", "time"), ("iteration", "time (s)"), strict=True):
        for trace in traces:
            gap = trace.column("stopping")
            shown = np.where(gap > 0, gap, np.nan)
            axis.plot(trace.column(x_name), shown, styles[trace.algorithm], label=trace.algorithm, lw=1.2)
        axis.axhline(eps / 2, color="gray", linestyle=":", linewidth=1, label="eps/2")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel(label)
        axis.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("duality gap delta~ = min P - Theta")
    axes[0].legend(loc="best", fontsize="small")
    figure.suptitle(title)
    figure.savefig(path)


def reach_table(traces: list[Trace]) -> str:
    """Iterations / seconds to bring the gap under each threshold ('-': not within the cap)."""
    header = f"{'algorithm':<28} {'eta':>9} " + " ".join(f"{f'<= {t:g}':>17}" for t in THRESHOLDS)
    header += f" {'iterations':>10} {'time s':>8}  stop"
    lines = [header, "-" * len(header)]
    for trace in traces:
        cells = []
        for threshold in THRESHOLDS:
            hit = trace.reach(threshold)
            cells.append(f"{'-':>17}" if hit is None else f"{hit[0]:>8d} {hit[1]:>7.2f}s")
        last = trace.rows[-1]
        lines.append(
            f"{trace.algorithm:<28} {trace.eta:>9.4g} " + " ".join(cells) + f" {last.iteration:>10d} "
            f"{last.time:>8.2f}  {trace.stop}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, RESULTS / "tc_vs_corrective.txt", out_help="output text file", data=True)
    parser.add_argument("--datasets", nargs="+", choices=list(FIGURES), default=list(FIGURES))
    parser.add_argument("--oracles", nargs="+", choices=list(ORACLES), default=["stumps"])
    parser.add_argument("--eps", type=float, default=1e-5, help="precision (default 1e-5, the thesis's)")
    parser.add_argument("--nu", type=float, default=1.0, help="capping nu in [1, N) (default 1)")
    parser.add_argument("--time-cap", type=float, default=40.0, help="seconds per run (default 40)")
    parser.add_argument("--max-iter", type=int, default=None, help="iterations per run (default: theorem)")
    parser.add_argument("--pairs", choices=["both", "erlpboost", "binary"], default="both")
    parser.add_argument("--seed", type=int, default=0, help="seed of the thesis split (default 0)")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNGs")
    args = parser.parse_args(argv)
    if not (args.eps > 0 and math.isfinite(args.eps)):
        parser.error("--eps must be a positive number")
    if not args.time_cap > 0:
        parser.error("--time-cap must be > 0")
    use_data(args.data)
    pairs = {"both": PAIRS, "erlpboost": PAIRS[:1], "binary": PAIRS[1:]}[args.pairs]
    out = args.out
    emit = Report(
        out,
        provenance(__file__, argv),
        f"# eps = {args.eps:g}, nu = {args.nu:g}, eta theoretical; caps per run: {args.time_cap:g} s, "
        f"max_iter {args.max_iter or 'theorem bound'}; thesis split seed {args.seed} (training part)",
    )
    start, load = time.perf_counter(), os.getloadavg()[0]
    for dataset in args.datasets:
        X, y = load_dataset(dataset, seed=args.seed, download=False).train
        for oracle_name in args.oracles:
            oracle = ORACLES[oracle_name]().fit(X, y)
            traces = [
                run_capped(
                    a, oracle, nu=args.nu, eps=args.eps, max_iter=args.max_iter, time_cap=args.time_cap
                )
                for pair in pairs
                for a in pair
            ]
            title = f"{dataset}, {oracle_name}, eps = {args.eps:g}, nu = {args.nu:g} ({FIGURES[dataset]})"
            block = [
                f"\n{title}, N = {X.shape[0]}: iterations and seconds to reach a gap",
                reach_table(traces),
            ]
            if not args.no_plot:
                out.parent.mkdir(parents=True, exist_ok=True)
                png = out.with_name(f"{out.stem}-{dataset}-{oracle_name}.png")
                plot_pair_traces(traces, args.eps, png, title)
                block.append(f"plot: {png.name}")
            emit(*block)
    emit(
        f"\ntotal {time.perf_counter() - start:.0f} s; load average {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end ({os.cpu_count()} cores): times are wall-clock"
    )
    emit.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
