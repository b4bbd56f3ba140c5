"""The nu path with cross-validation: ERLPBoostCV against scikit-learn's AdaBoost and
HistGradientBoosting, the warm-started path against independent fits, and the default grid.

For each data set (the training part of the thesis's 60/20/20 split, seed 0; a9a's shipped training
file, subsampled to ``--a9a-size`` examples when given), in one process:

1. **Accuracy.** 5-fold stratified CV (the same folds, ``StratifiedKFold(shuffle=True, random_state=0)``)
   of ``ERLPBoostCV`` (stumps, eps 0.01, the default grid: the inner CV picks nu on each outer training
   part, so its CV accuracy is not biased by the choice, i.e. nested CV), of
   ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=500)`` and of
   ``HistGradientBoostingClassifier()`` (its defaults); then each fitted on the whole training part and
   scored on the test part (20 %).
2. **Time.** :func:`dualboost.estimators.cv.path` on the whole training part, warm-started (the default)
   and with ``warm_start=False`` (each nu an independent fit, for ERLPBoost exactly the driver
   ``erlpboost``), per nu: iterations, seconds, the dual value of each output's certified solution (the
   two must agree within eps/2: both are eps/2-optimal for the full class). Ratio = warm / independent,
   both measured here. LPBoost too with ``--lpboost``.
3. **Grid.** The mean CV accuracy of every nu of a wide grid (1.0 ... 0.01) from the path, which nu is
   best and which lie within 1 point of the best: what :data:`~dualboost.estimators.cv.DEFAULT_NUS`
   must cover.

No time is asserted; times are wall seconds on whatever machine runs it (the header says which).

    python benchmarks/cv.py                       # german, diabetes, a9a (full training file)
    python benchmarks/cv.py --datasets german diabetes --lpboost
    python benchmarks/cv.py --a9a-size 5000

Output: ``benchmarks/results/cv.txt`` (``--out``).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.ensemble import AdaBoostClassifier, HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance, use_data  # noqa: E402

DATASETS = ("german", "diabetes", "a9a")
#: the wide grid of part 3
WIDE = (1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01)


def load(name: str, a9a_size: int | None = None, seed: int = 0) -> tuple:
    """``(X_train, y_train, X_test, y_test, note)``: the thesis split's training and test parts (dense
    float64); a9a's training part subsampled (stratified by nothing: uniformly, ``seed``) to
    ``a9a_size`` examples when given."""
    from dualboost.datasets import load_dataset

    use_data()
    split = load_dataset(name, seed=0, sparse=False, download=False)
    (X, y), (X_test, y_test) = split.train, split.test
    X, X_test = np.asarray(X, dtype=np.float64), np.asarray(X_test, dtype=np.float64)
    note = ""
    if name == "a9a" and a9a_size is not None and a9a_size < X.shape[0]:
        keep = np.random.default_rng(seed).choice(X.shape[0], a9a_size, replace=False)
        note = f" (subsample of {X.shape[0]})"
        X, y = X[keep], y[keep]
    return X, y, X_test, np.asarray(y_test), note


def accuracy_rows(X, y, X_test, y_test, folds: int) -> list[tuple]:
    """Part 1: ``(name, cv mean, cv std, test accuracy, seconds, detail)`` per method."""
    from dualboost.estimators.cv import ERLPBoostCV

    splitter = StratifiedKFold(folds, shuffle=True, random_state=0)
    methods = {
        "ERLPBoostCV": ERLPBoostCV(),
        "AdaBoost(500 stumps)": AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=500),
        "HistGradientBoosting": HistGradientBoostingClassifier(random_state=0),
    }
    rows = []
    for name, estimator in methods.items():
        start = time.perf_counter()
        scores = cross_val_score(estimator, X, y, cv=splitter)
        fitted = estimator.fit(X, y)
        test = float(np.mean(fitted.predict(X_test) == y_test))
        seconds = time.perf_counter() - start
        detail = f"nu = {fitted.best_nu_:g} (inner CV)" if name == "ERLPBoostCV" else ""
        rows.append((name, scores.mean(), scores.std(), test, seconds, detail))
    return rows


def time_rows(X, y, model: str) -> tuple[list[tuple], float, float]:
    """Part 2: per nu ``(nu, iterations warm, independent, seconds warm, independent, dual warm,
    independent, gap warm, independent)``, and the two paths' total seconds."""
    from dualboost.estimators.cv import path

    warm = path(X, y, model=model)
    cold = path(X, y, model=model, warm_start=False)
    rows = []
    for a, b in zip(warm, cold, strict=True):
        rows.append(
            (
                a.nu,
                a.result.n_iter,
                b.result.n_iter,
                a.time,
                b.time,
                a.solution.dual_value,
                b.solution.dual_value,
                a.solution.gap,
                b.solution.gap,
            )
        )
    return rows, warm.time, cold.time


def grid_scores(X, y, folds: int) -> np.ndarray:
    """Part 3: the mean CV accuracy of each nu of :data:`WIDE` (ERLPBoost, stumps, the same folds)."""
    from dualboost.estimators.cv import ERLPBoostCV

    splitter = StratifiedKFold(folds, shuffle=True, random_state=0)
    return ERLPBoostCV(nus=WIDE, cv=splitter).fit(X, y).mean_scores_


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, RESULTS / "cv.txt", out_help="result file")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--folds", type=int, default=5, help="CV folds (default 5)")
    parser.add_argument("--a9a-size", type=int, default=None, help="subsample a9a's training part")
    parser.add_argument("--lpboost", action="store_true", help="also time LPBoost's path")
    parser.add_argument("--skip-accuracy", action="store_true", help="parts 2 and 3 only")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    warnings.filterwarnings("ignore", message=".*soft margin.*")

    emit = Report(args.out, provenance(__file__, argv), "")

    for name in args.datasets:
        X, y, X_test, y_test, note = load(name, args.a9a_size)
        emit(f"== {name}: {X.shape[0]} x {X.shape[1]} training{note}, {X_test.shape[0]} test ==")
        if not args.skip_accuracy:
            emit(f"{args.folds}-fold CV accuracy (ERLPBoostCV: nested, nu chosen by its own inner 5-fold CV)")
            emit(f"{'method':>22} {'CV acc':>7} {'+-':>6} {'test acc':>8} {'seconds':>8}  detail")
            for method, mean, std, test, seconds, detail in accuracy_rows(X, y, X_test, y_test, args.folds):
                emit(f"{method:>22} {mean:7.4f} {std:6.4f} {test:8.4f} {seconds:8.1f}  {detail}")
            emit()
        for model in ("erlpboost", "lpboost") if args.lpboost else ("erlpboost",):
            rows, warm, cold = time_rows(X, y, model)
            emit(f"{model} path on the training part: warm-started vs independent fits (default grid)")
            emit(
                f"{'nu':>6} {'it warm':>8} {'it indep':>8} {'s warm':>8} {'s indep':>8} "
                f"{'dual warm':>12} {'dual indep':>12} {'|diff|':>9} {'gap warm':>9} {'gap indep':>9}"
            )
            for nu, iw, ic, sw, sc, dw, dc, gw, gc in rows:
                emit(
                    f"{nu:6g} {iw:8d} {ic:8d} {sw:8.2f} {sc:8.2f} {dw:12.6f} {dc:12.6f} {abs(dw - dc):9.2e} "
                    f"{gw:9.1e} {gc:9.1e}"
                )
            emit(f"path: warm {warm:.2f} s, independent {cold:.2f} s, ratio warm/indep {warm / cold:.2f}")
            emit()
        scores = grid_scores(X, y, args.folds)
        best = scores.max()
        emit("mean CV accuracy per nu (ERLPBoost, stumps, eps 0.01, the same folds)")
        emit("    nu " + " ".join(f"{nu:>6g}" for nu in WIDE))
        emit("   acc " + " ".join(f"{s:6.4f}" for s in scores))
        within = [f"{nu:g}" for nu, s in zip(WIDE, scores, strict=True) if s >= best - 0.01]
        emit(f"best nu {WIDE[int(np.argmax(scores))]:g} ({best:.4f}); within 1 point: {', '.join(within)}")
        emit()
    emit.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
