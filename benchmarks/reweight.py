"""Re-weighting a 500-tree random forest: members kept with w > 0 and test accuracy
against the forest's.

For each data set (the thesis's 60/20/20 split, seed 0; a9a: the shipped train/valid/test files, the
training part subsampled to ``--a9a-size`` when given), in one process:
``RandomForestClassifier(n_estimators=500, random_state=0)`` is fitted on the training part, then
:func:`dualboost.estimators.reweight.reweight` re-weights its trees by one certified solve of LPBoost
(HiGHS) and of ERLPBoost (auglag, canonical eta at eps = 0.01), at nu = 0.1 N, on the training part
itself and on the validation part (data the trees have not seen). Reported: the trees kept (w > 0),
the test accuracy of the re-weighted vote and of the forest, the solve's certified gap and seconds.

    python benchmarks/reweight.py
    python benchmarks/reweight.py --datasets german diabetes --nu 0.05 0.1 0.2

Output: ``benchmarks/results/reweight.txt`` (``--out``). No time is asserted.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance, use_data  # noqa: E402

DATASETS = ("german", "diabetes", "a9a")


def load(name: str, a9a_size: int | None, seed: int = 0) -> tuple:
    """``(train, valid, test, note)`` of the thesis split, dense float64; a9a's training part subsampled
    uniformly (``seed``) to ``a9a_size`` examples when given."""
    from dualboost.datasets import load_dataset

    use_data()
    split = load_dataset(name, seed=0, sparse=False, download=False)
    parts = [(np.asarray(X, dtype=np.float64), np.asarray(y)) for X, y in split[:3]]
    note = ""
    X, y = parts[0]
    if name == "a9a" and a9a_size is not None and a9a_size < X.shape[0]:
        keep = np.random.default_rng(seed).choice(X.shape[0], a9a_size, replace=False)
        parts[0] = (X[keep], y[keep])
        note = f" (subsample of {X.shape[0]})"
    return (*parts, note)


def main(argv: list[str] | None = None) -> int:
    from dualboost.estimators.reweight import reweight

    parser = make_parser(__doc__, RESULTS / "reweight.txt", out_help="result file")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--trees", type=int, default=500, help="trees of the forest (default 500)")
    parser.add_argument("--nu", type=float, nargs="+", default=[0.1], help="capping fractions (default 0.1)")
    parser.add_argument("--a9a-size", type=int, default=None, help="subsample a9a's training part")
    args = parser.parse_args(argv)
    emit = Report(args.out, provenance(__file__, argv), "")

    for name in args.datasets:
        (X, y), (X_valid, y_valid), (X_test, y_test), note = load(name, args.a9a_size)
        start = time.perf_counter()
        forest = RandomForestClassifier(n_estimators=args.trees, random_state=0, n_jobs=1).fit(X, y)
        fit_time = time.perf_counter() - start
        forest_acc = float(np.mean(forest.predict(X_test) == y_test))
        emit(
            f"== {name}: {X.shape[0]} train{note}, {X_valid.shape[0]} valid, {X_test.shape[0]} test; "
            f"forest of {args.trees} trees: test accuracy {forest_acc:.4f} (fit {fit_time:.1f} s) =="
        )
        header = ("model", "nu", "on", "kept", "test acc", "- forest", "gap", "s")
        emit(" ".join(f"{h:>{w}}" for h, w in zip(header, (10, 5, 6, 5, 8, 8, 9, 6), strict=True)))
        for model in ("lpboost", "erlpboost"):
            for nu in args.nu:
                for on, (A, b) in (("train", (X, y)), ("valid", (X_valid, y_valid))):
                    start = time.perf_counter()
                    fitted = reweight(forest, A, b, model=model, nu=nu)
                    seconds = time.perf_counter() - start
                    acc = float(np.mean(fitted.predict(X_test) == y_test))
                    emit(
                        f"{model:>10} {nu:5g} {on:>6} {fitted.support_.size:5d} {acc:8.4f} "
                        f"{acc - forest_acc:+8.4f} {fitted.solution_.gap:9.1e} {seconds:6.1f}"
                    )
        emit()
    emit.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
