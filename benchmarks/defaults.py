"""Defaults that work (issue 17, item 8): CV accuracy of ERLPBoost over a grid of nu and weak learners,
and which (nu, learner) is within 1 accuracy point of the best on every data set.

Weak learners: decision stumps (``oracle="stumps"``, the max-edge stump) and scikit-learn's
``DecisionTreeClassifier(max_depth=2)`` and ``(max_depth=3)`` through the scikit-learn oracle (a tree
fitted with ``sample_weight = N d`` each iteration, :class:`~dualboost.oracles.SklearnOracle`). For each
data set (the training part of the thesis's 60/20/20 split, seed 0; a9a's shipped training file,
subsampled uniformly to ``--a9a-size`` examples, 5,000 by default: the tree oracles refit a tree on
every iteration of 5 folds x the grid) and each learner, one :class:`~dualboost.estimators.cv.ERLPBoostCV`
(eps 0.01, canonical eta) on the same 5 stratified folds gives the mean CV accuracy of every nu of the
grid, along the warm-started path.

The recommendation: the (nu, learner) pairs whose accuracy is within 1 point of the best pair of the
grid on every data set (the issue's criterion); among them the one with the smallest worst-case loss.

    python benchmarks/defaults.py
    python benchmarks/defaults.py --datasets german diabetes --a9a-size 2000

Output: ``benchmarks/results/defaults.txt`` (``--out``). No time is asserted.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from datetime import date
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results"
DATASETS = ("german", "diabetes", "a9a")
GRID = (0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01)
LEARNERS = {
    "stumps": "stumps",
    "tree-2": DecisionTreeClassifier(max_depth=2, random_state=0),
    "tree-3": DecisionTreeClassifier(max_depth=3, random_state=0),
}


def load(name: str, a9a_size: int, seed: int = 0) -> tuple:
    """The training part of the thesis split (dense float64), a9a subsampled to ``a9a_size``."""
    from dualboost.datasets import load_dataset

    os.environ.setdefault("DUALBOOST_DATA", str(SHARED_DATA))
    X, y = load_dataset(name, seed=0, sparse=False, download=False).train
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    note = ""
    if name == "a9a" and a9a_size < X.shape[0]:
        keep = np.random.default_rng(seed).choice(X.shape[0], a9a_size, replace=False)
        note = f" (subsample of {X.shape[0]})"
        X, y = X[keep], y[keep]
    return X, y, note


def main(argv: list[str] | None = None) -> int:
    from dualboost.estimators.cv import ERLPBoostCV

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--learners", nargs="+", choices=tuple(LEARNERS), default=list(LEARNERS))
    parser.add_argument("--a9a-size", type=int, default=5000, help="subsample a9a (default 5000)")
    parser.add_argument("--out", type=Path, default=RESULTS / "defaults.txt", help="result file")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    warnings.filterwarnings("ignore", message=".*soft margin.*")
    lines = [
        f"# benchmarks/defaults.py, {date.today()}, {platform.machine()} {os.cpu_count()} cores, "
        f"python {platform.python_version()}",
        f"# python benchmarks/defaults.py {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip(),
        "",
        "mean 5-fold CV accuracy of ERLPBoost (eps 0.01, canonical eta) per weak learner and nu",
        "",
    ]

    def emit(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    table: dict[str, np.ndarray] = {}  # data set -> learners x nus
    for name in args.datasets:
        X, y, note = load(name, args.a9a_size)
        emit(f"== {name}: {X.shape[0]} x {X.shape[1]}{note} ==")
        emit(f"{'learner':>8} " + " ".join(f"{nu:>6g}" for nu in GRID) + f" {'seconds':>8}")
        scores = np.empty((len(args.learners), len(GRID)))
        for i, learner in enumerate(args.learners):
            start = time.perf_counter()
            splitter = StratifiedKFold(5, shuffle=True, random_state=0)
            fitted = ERLPBoostCV(nus=GRID, cv=splitter, oracle=LEARNERS[learner]).fit(X, y)
            scores[i] = fitted.mean_scores_  # in the order of GRID (decreasing, as nus_)
            seconds = time.perf_counter() - start
            emit(f"{learner:>8} " + " ".join(f"{s:6.4f}" for s in scores[i]) + f" {seconds:8.1f}")
        best = scores.max()
        i, j = np.unravel_index(np.argmax(scores), scores.shape)
        emit(f"best: {args.learners[i]}, nu {GRID[j]:g} ({best:.4f})")
        emit()
        table[name] = scores
    # the pairs within 1 point of each set's best, on every set; ranked by the worst loss
    loss = np.max([table[name].max() - table[name] for name in table], axis=0)
    order = np.argsort(loss, axis=None)
    emit("largest loss against the best pair of each set, over the sets (points of accuracy)")
    emit(f"{'learner':>8} " + " ".join(f"{nu:>6g}" for nu in GRID))
    for i, learner in enumerate(args.learners):
        emit(f"{learner:>8} " + " ".join(f"{100 * v:6.2f}" for v in loss[i]))
    emit()
    emit("with nu chosen per set (the best of the grid, what ERLPBoostCV aims at): loss per set (points)")
    emit(f"{'learner':>8} " + " ".join(f"{name:>9}" for name in table) + f" {'worst':>6}")
    for i, learner in enumerate(args.learners):
        per_set = [100 * (table[name].max() - table[name][i].max()) for name in table]
        emit(f"{learner:>8} " + " ".join(f"{v:9.2f}" for v in per_set) + f" {max(per_set):6.2f}")
    within = [(args.learners[k // len(GRID)], GRID[k % len(GRID)]) for k in order if loss.flat[k] <= 0.01]
    emit()
    if within:
        emit("within 1 point of the best on every set: " + ", ".join(f"{lr} nu={nu:g}" for lr, nu in within))
    else:
        k = int(order[0])
        emit(
            "no pair is within 1 point of the best on every set; the smallest worst-case loss: "
            f"{args.learners[k // len(GRID)]} nu={GRID[k % len(GRID)]:g} ({100 * loss.flat[k]:.2f} points)"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
