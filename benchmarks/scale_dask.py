"""ERLPBoost with decision stumps or raw features: in-memory numpy against Dask on a LocalCluster (2 workers).

A dense synthetic set (N x 100) is boosted to ``eps`` twice in this process:
``dualboost.boosting.boost("erlpboost", DecisionStumps().fit(X, y))`` (``--features raw``:
``RawFeatures()``) and :func:`dualboost.dask.dask_erlpboost` (``features=``) on a
``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` with X as a row-chunked
dask array. It reports wall time, iterations, peak memory (the driver's peak RSS growth for the
in-memory run; the workers' peak RSS and the driver's growth for the Dask run) and checks that the
two results are identical (same hypotheses, weights to 1e-8). The Dask run goes first (peak RSS
only grows); the workers' figure is their resident memory at the end of the run, not a peak.

Data (``--data``): ``levels`` (default), features on 32 integer levels 0..31 with a planted signal
on three features plus noise (:func:`synthetic`), for both classes; ``gaussian``, the dense set of
``benchmarks/scale.py`` (``dense_set``: Gaussian features rounded to 1/8, a planted linear rule
through the origin on 10 features, 5 % label noise; the set of its "dense/raw" rows). On
``levels`` raw features are weak but not degenerate: every x_j is >= 0 and the class has no
constant, so the offset of the planted rule is made of -x_j of noise features (about 75
iterations to eps = 0.01 at N = 10^5, against 11 on ``gaussian``).

    python benchmarks/scale_dask.py            # N = 20,000, eps = 0.1 (about a minute)
    python benchmarks/scale_dask.py --full     # N = 10^6, eps = 0.01 (hours on 2 cores)
    python benchmarks/scale_dask.py --n 1000000 --eps 0.01 --features raw   # minutes
    python benchmarks/scale_dask.py --n 1000000 --eps 0.01 --features raw --data gaussian

Output: a table on stdout and in benchmarks/results/scale_dask.txt.
"""

from __future__ import annotations

import importlib.util
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance  # noqa: E402


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _worker_rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def synthetic(n: int, p: int = 100, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 32, size=(n, p)).astype(np.float64)
    score = (X[:, 0] - 15.5) / 16 + (X[:, 1] - 15.5) / 16 - (X[:, 2] - 15.5) / 16
    y = np.where(score + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def dense_set(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``benchmarks/scale.py``'s ``dense_set(n)`` (the folder is not a package: loaded by path)."""
    spec = importlib.util.spec_from_file_location("_scale_benchmark", Path(__file__).with_name("scale.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dense_set(n)


def main(argv: list[str] | None = None) -> str:
    parser = make_parser(__doc__, RESULTS / "scale_dask.txt")
    parser.add_argument("--full", action="store_true", help="N = 10^6 and eps = 0.01")
    parser.add_argument("--n", type=int, default=None, help="examples (default 20,000; --full: 10^6)")
    parser.add_argument("--eps", type=float, default=None, help="precision (default 0.1; --full: 0.01)")
    parser.add_argument("--nu", type=float, default=0.1, help="capping as a fraction of N (default 0.1)")
    parser.add_argument("--chunks", type=int, default=4, help="row chunks of the dask array (default 4)")
    parser.add_argument(
        "--features",
        choices=["stumps", "raw"],
        default="stumps",
        help="the hypothesis class (default stumps)",
    )
    parser.add_argument(
        "--data",
        choices=["levels", "gaussian"],
        default="levels",
        help="32 integer levels (default) or benchmarks/scale.py's dense_set",
    )
    args = parser.parse_args(argv)
    n = args.n or (10**6 if args.full else 20_000)
    eps = args.eps or (0.01 if args.full else 0.1)
    nu = max(1.0, args.nu * n)

    import dask.array as da
    from distributed import Client, LocalCluster

    from dualboost.boosting import boost
    from dualboost.dask import dask_erlpboost
    from dualboost.oracles import DecisionStumps, RawFeatures

    raw = args.features == "raw"
    X, y = dense_set(n) if args.data == "gaussian" else synthetic(n)
    # the Dask side first: ru_maxrss only grows, so the driver's growth is measured before the
    # in-memory run sets it; the workers report their resident memory at the end of the run
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as cluster,
        Client(cluster) as client,
    ):
        Xd = da.from_array(X, chunks=(-(-n // args.chunks), X.shape[1]))
        yd = da.from_array(y, chunks=Xd.chunks[0])
        base = _rss_mb()
        start = time.perf_counter()
        dist = dask_erlpboost(Xd, yd, client=client, nu=nu, eps=eps, features=args.features)
        t_dask = time.perf_counter() - start
        peak_driver = _rss_mb() - base
        workers = client.run(_worker_rss_mb)
    base = _rss_mb()
    start = time.perf_counter()
    memory = boost("erlpboost", (RawFeatures() if raw else DecisionStumps()).fit(X, y), nu=nu, eps=eps)
    t_memory = time.perf_counter() - start
    peak_memory = _rss_mb() - base
    same_shape = memory.weights.size == dist.weights.size
    gap_w = float(np.abs(memory.weights - dist.weights).max()) if same_shape else np.nan
    same = memory.hypotheses == dist.hypotheses and gap_w <= 1e-8
    gap_d = float(np.abs(memory.d - dist.d).max())
    now = " / ".join(f"{v:.0f}" for v in workers.values())
    dask_memory = f"driver +{peak_driver:.0f}, workers now {now}"
    kind = "raw features" if raw else "decision stumps"
    if args.data == "gaussian":
        data = "benchmarks/scale.py dense_set: Gaussian rounded to 1/8, planted linear rule"
    elif raw:
        data = "32 levels, the stumps runs' set: all x_j >= 0, the offset is made of -x_j of noise features"
    else:
        data = "32 levels"
    title = f"ERLPBoost + {kind}, dense synthetic {n:,} x {X.shape[1]} ({data})"
    report = Report(
        args.out,
        provenance(__file__, argv),
        f"{title}, nu = {nu:g}, eps = {eps:g}; Dask: LocalCluster 2 workers x 1 thread (processes), "
        f"{args.chunks} row chunks",
        "",
        f"{'path':<22}{'iterations':>11}{'T':>5}{'time (s)':>11}{'oracle (s)':>12}{'solver (s)':>12}"
        f"{'peak memory (MB)':>36}",
        f"{'in-memory numpy':<22}{memory.n_iter:>11}{memory.n_hypotheses:>5}{t_memory:>11.2f}"
        f"{memory.oracle_time:>12.2f}{memory.solver_time:>12.2f}{f'driver +{peak_memory:.0f}':>36}",
        f"{'dask LocalCluster':<22}{dist.n_iter:>11}{dist.n_hypotheses:>5}{t_dask:>11.2f}"
        f"{dist.oracle_time:>12.2f}{dist.solver_time:>12.2f}"
        f"{dask_memory:>36}",
        "",
        f"time ratio dask / in-memory: {t_dask / t_memory:.2f}",
        f"identical results (same hypotheses, |w - w'| <= 1e-8): {same} (max |w - w'| = {gap_w:.2e}, "
        f"max |d - d'| = {gap_d:.2e}; converged: in-memory {memory.converged}, dask {dist.converged})",
    )
    return report.write()


if __name__ == "__main__":
    main()
