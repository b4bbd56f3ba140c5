"""The multiclass classifiers (docs/boosting.md#multiclass) against scikit-learn on K-class sets.

For each data set, in one process and on the same stratified folds (seed 0): dualboost's
``ERLPBoostClassifier()`` and ``LPBoostClassifier()`` at their defaults (``nu="auto"``, decision
stumps, class-valued for K > 2), scikit-learn's ``AdaBoostClassifier`` with 500 stumps (SAMME) and
``HistGradientBoostingClassifier()`` at its defaults. Reported per set: the mean cross-validated
accuracy (points) and the mean fit time in seconds; the closing lines the mean difference of each
dualboost classifier to AdaBoost-500 over the sets (the multiclass target: within one
point on average), and the certified gap of the last iteration of each dualboost fit (the largest
over the folds).

The sets: iris, wine and digits (scikit-learn's bundled ones), ``make_classification`` with 4
classes (600 x 10, 6 informative, seed 0) and a 5-class noisy one written to a LIBSVM file and read
back with ``sklearn.datasets.load_svmlight_file`` (800 x 12, 10 % of the labels flipped, seed 1).

    python benchmarks/multiclass.py                     # all five, 5 folds (several minutes)
    python benchmarks/multiclass.py --folds 3 --sets iris wine

Output: ``benchmarks/results/multiclass.txt`` (``--out``).
"""

from __future__ import annotations

import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import (
    dump_svmlight_file,
    load_digits,
    load_iris,
    load_svmlight_file,
    load_wine,
    make_classification,
)
from sklearn.ensemble import AdaBoostClassifier, HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from dualboost import ERLPBoostClassifier, LPBoostClassifier
from dualboost.boosting.core.run import SoftMarginWarning

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance  # noqa: E402

SETS = ("iris", "wine", "digits", "synthetic4", "libsvm5")


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The set ``name`` of the module docstring: dense X and its labels."""
    if name == "iris":
        return load_iris(return_X_y=True)
    if name == "wine":
        return load_wine(return_X_y=True)
    if name == "digits":
        return load_digits(return_X_y=True)
    if name == "synthetic4":
        return make_classification(600, 10, n_informative=6, n_classes=4, random_state=0)
    X, y = make_classification(800, 12, n_informative=6, n_classes=5, flip_y=0.1, random_state=1)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "five.libsvm"
        dump_svmlight_file(X, y, str(path))
        X_read, y_read = load_svmlight_file(str(path), n_features=X.shape[1])
    return X_read.toarray(), y_read.astype(int)


def contenders() -> dict:
    """A fresh classifier per name, as a user would make it."""
    return {
        "ERLPBoost": lambda: ERLPBoostClassifier(),
        "LPBoost": lambda: LPBoostClassifier(),
        "AdaBoost-500": lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=500,
                                                   random_state=0),
        "HistGB": lambda: HistGradientBoostingClassifier(random_state=0),
    }


def run(name: str, folds: int, models: list[str]) -> dict:
    """Accuracy, fit time and (dualboost) the largest last gap per classifier over the folds."""
    X, y = load(name)
    out = {}
    for label, make in contenders().items():
        if label not in models:
            continue
        scores, times, gaps = [], [], []
        for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y):
            model = make()
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", (ConvergenceWarning, SoftMarginWarning))
                model.fit(X[train], y[train])
            times.append(time.perf_counter() - start)
            scores.append(model.score(X[test], y[test]))
            if hasattr(model, "history_"):
                gaps.append(model.history_.rows[-1].gap)
        out[label] = (100 * float(np.mean(scores)), float(np.mean(times)), max(gaps) if gaps else None)
    return {"name": name, "shape": X.shape, "classes": int(np.unique(y).size), "results": out}


def main(argv: list[str] | None = None) -> None:
    parser = make_parser(__doc__, RESULTS / "multiclass.txt")
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--models", nargs="+", choices=list(contenders()), default=list(contenders()),
                        help="the classifiers to run (LPBoost's HiGHS solves are slow on digits' pairs)")
    args = parser.parse_args(argv)
    header = f"{'set':<11} {'N x p':>9} {'K':>2}  " + "  ".join(f"{c:>20}" for c in args.models)
    emit = Report(
        args.out,
        provenance(__file__, argv),
        f"multiclass: {args.folds}-fold CV accuracy (points) and mean fit seconds, same folds",
        "",
        header,
    )
    ours = [label for label in ("ERLPBoost", "LPBoost") if label in args.models]
    diffs: dict[str, list[float]] = {label: [] for label in ours}
    gaps: dict[str, float] = dict.fromkeys(ours, 0.0)
    for name in args.sets:
        row = run(name, args.folds, args.models)
        res = row["results"]
        cells = "  ".join(f"{acc:>11.2f} ({t:>6.2f}s)" for acc, t, _ in res.values())
        emit(f"{name:<11} {row['shape'][0]:>4} x{row['shape'][1]:>3} {row['classes']:>2}  {cells}")
        for label in diffs:
            if "AdaBoost-500" in res:
                diffs[label].append(res[label][0] - res["AdaBoost-500"][0])
            gaps[label] = max(gaps[label], res[label][2])
    emit()
    for label, values in diffs.items():
        if not values:
            continue
        emit(
            f"{label} - AdaBoost-500: mean {np.mean(values):+.2f} points, worst {min(values):+.2f}; "
            f"largest certified gap of a fit's last iteration {gaps[label]:.2e}"
        )
    emit.write()


if __name__ == "__main__":
    main()
