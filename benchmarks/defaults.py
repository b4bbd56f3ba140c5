"""Defaults that work: CV accuracy of ERLPBoost over a grid of weak learner x eps x nu,
and which (learner, eps, nu) is within 1 accuracy point of the best on every data set.

Weak learners: decision stumps (``oracle="stumps"``, the max-edge stump) and scikit-learn's
``DecisionTreeClassifier(max_depth=2)`` and ``(max_depth=3)`` through the scikit-learn oracle (a tree
fitted with ``sample_weight = N d`` each iteration, :class:`~dualboost.oracles.SklearnOracle`). For each
data set (the training part of the thesis's 60/20/20 split, seed 0; a9a's shipped training file,
subsampled uniformly to ``--a9a-size`` examples, 5,000 by default: the tree oracles refit a tree on
every iteration of 5 folds x the grid), each learner and each eps, one
:class:`~dualboost.estimators.cv.ERLPBoostCV` (canonical eta ``(2/eps) ln(N/nu)``) on the same 5
stratified folds gives the mean CV accuracy of every nu of the grid, along the warm-started path.

eps is on the grid because it regularises: the practical stop ``delta~ <= eps/2`` ends the run earlier
for a larger eps, and the canonical eta (docs/math.md#canonical-eta) shrinks as 1/eps, which pulls d
towards the uniform prior ([KG] Eq. 3.10), so a larger eps gives a less tightly fitted soft margin.

The recommendation: the (learner, eps, nu) triples whose accuracy is within 1 point of the best triple
of the grid on every data set (the criterion); among them the one with the smallest worst-case
loss. The classifiers' default ``nu="auto"`` (``AUTO_NU_SHARE * 2 min(N+, N-) / N`` of each training
fold, docs/math.md#capping-nu) is scored on the same folds at the default learner and eps for each
share of ``--shares``, the default share being ``ERLPBoostClassifier()`` itself. For comparison
(unless ``--no-nested``), ERLPBoostCV as a user runs it: on each outer fold, nu is
chosen by ERLPBoostCV's own inner 5-fold CV over its default grid on the outer training part, the
refitted classifier is scored on the outer test part (nested CV: its accuracy is not biased by the
choice, while the best triple's is, slightly, being the maximum over the grid of the same folds).

    python benchmarks/defaults.py
    python benchmarks/defaults.py --datasets german diabetes --a9a-size 2000 --eps 0.01 0.1 --no-nested

Output: ``benchmarks/results/defaults_grid.txt`` (``--out``). No time is asserted. The classifiers'
default ``nu="auto"`` now chooses nu by validation below the share's capping
(:mod:`dualboost.estimators.nu_selection`); its accuracy against AdaBoost on a suite of clean and noisy
sets is ``benchmarks/defaults_suite.py``'s (``benchmarks/results/defaults.txt``).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance, use_data  # noqa: E402

DATASETS = ("german", "diabetes", "a9a")
GRID = (0.6, 0.5, 0.45, 0.4, 0.35, 0.3, 0.2, 0.1, 0.05, 0.01)
#: shares of the largest useful capping 2 min(N+, N-) / N scored for nu="auto" (docs/math.md#capping-nu)
SHARES = (0.6, 0.7, 0.75, 0.8, 0.9)
EPS = (0.01, 0.03, 0.05, 0.1, 0.2)
LEARNERS = {
    "stumps": "stumps",
    "tree-2": DecisionTreeClassifier(max_depth=2, random_state=0),
    "tree-3": DecisionTreeClassifier(max_depth=3, random_state=0),
}


def load(name: str, a9a_size: int, seed: int = 0) -> tuple:
    """The training part of the thesis split (dense float64), a9a subsampled to ``a9a_size``."""
    from dualboost.datasets import load_dataset

    use_data()
    X, y = load_dataset(name, seed=0, sparse=False, download=False).train
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    note = ""
    if name == "a9a" and a9a_size < X.shape[0]:
        keep = np.random.default_rng(seed).choice(X.shape[0], a9a_size, replace=False)
        note = f" (subsample of {X.shape[0]})"
        X, y = X[keep], y[keep]
    return X, y, note


def folds() -> StratifiedKFold:
    """The 5 stratified folds of every score here (the outer folds of the nested CV too)."""
    return StratifiedKFold(5, shuffle=True, random_state=0)


def nested_accuracy(X: np.ndarray, y: np.ndarray, learner: str, eps: float) -> np.ndarray:
    """Outer-fold accuracies of ``ERLPBoostCV(eps=eps, oracle=learner)`` (its default grid and inner
    5-fold CV) fitted on each outer training part: what a user who lets ERLPBoostCV pick nu gets."""
    from dualboost.estimators.cv import ERLPBoostCV

    scores = []
    for train, test in folds().split(X, y):
        inner = StratifiedKFold(5, shuffle=True, random_state=1)
        fitted = ERLPBoostCV(cv=inner, eps=eps, oracle=_oracle(learner)).fit(X[train], y[train])
        scores.append(fitted.score(X[test], y[test]))
    return np.array(scores)


def auto_block(emit, data: dict, table: dict, paired, shares: list[float]) -> float:
    """Score nu = share * 2 min(N+, N-) / N (of each training fold) at ERLPBoostClassifier()'s learner
    and eps on the shared folds, one row per share (the default share: ``ERLPBoostClassifier()``
    itself, marked ``*``: nu chosen by validation below that share's capping): mean accuracy and
    loss +- paired standard error per set, worst loss. Returns the default's worst loss (points)."""
    from dualboost.estimators import ERLPBoostClassifier
    from dualboost.estimators.params import AUTO_NU_SHARE

    defaults = ERLPBoostClassifier().get_params()
    emit()
    emit(
        f"nu='auto' = share x 2 min(N+, N-) / N of each training fold, oracle={defaults['oracle']} "
        f"eps={defaults['eps']:g} (ERLPBoostClassifier()'s): mean accuracy, loss +- paired standard error"
    )
    emit(f"{'share':>6} " + " ".join(f"{name:>24}" for name in table) + f" {'worst':>6}")
    default_loss = float("nan")
    for share in shares:
        per_set, cells = [], []
        for name in table:
            X, y = data[name]
            scores = []
            for train, test in folds().split(X, y):
                if share == AUTO_NU_SHARE:
                    clf = ERLPBoostClassifier()  # nu="auto": the default itself
                else:
                    counts = np.unique(y[train], return_counts=True)[1]
                    clf = ERLPBoostClassifier(nu=share * 2 * counts.min() / train.size)
                scores.append(clf.fit(X[train], y[train]).score(X[test], y[test]))
            scores = np.array(scores)
            per_set.append(100 * (table[name].max() - scores.mean()))
            cells.append(f"{scores.mean():.4f} {paired(name, scores)}")
        mark = "*" if share == AUTO_NU_SHARE else " "
        emit(f"{share:>5g}{mark} " + " ".join(f"{cell:>24}" for cell in cells) + f" {max(per_set):6.2f}")
        if share == AUTO_NU_SHARE:
            default_loss = max(per_set)
    return default_loss


def _oracle(learner: str) -> object:
    oracle = LEARNERS[learner]
    return oracle if isinstance(oracle, str) else clone(oracle)


def _label(learner: str, eps: float) -> str:
    return f"{learner:>8} {eps:>6g}"


def main(argv: list[str] | None = None) -> int:
    from dualboost.estimators.cv import DEFAULT_NUS, ERLPBoostCV
    from dualboost.estimators.params import AUTO_NU_SHARE

    parser = make_parser(__doc__, RESULTS / "defaults_grid.txt", out_help="result file")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--learners", nargs="+", choices=tuple(LEARNERS), default=list(LEARNERS))
    parser.add_argument("--eps", nargs="+", type=float, default=list(EPS), help=f"eps axis (default {EPS})")
    parser.add_argument("--nus", nargs="+", type=float, default=list(GRID), help=f"nu axis (default {GRID})")
    parser.add_argument("--a9a-size", type=int, default=5000, help="subsample a9a (default 5000)")
    parser.add_argument("--no-nested", action="store_true", help="skip the nested ERLPBoostCV comparison")
    parser.add_argument(
        "--shares",
        nargs="+",
        type=float,
        default=list(SHARES),
        help=f"shares of nu='auto' to score at the default learner and eps (default {SHARES})",
    )
    args = parser.parse_args(argv)
    if any(not 0.0 < e < 1.0 for e in args.eps):
        parser.error(f"--eps: every value must lie in (0, 1); got {args.eps}")
    if any(not 0.0 < nu <= 1.0 for nu in args.nus) or len(set(args.nus)) < len(args.nus):
        parser.error(f"--nus: distinct fractions in (0, 1] expected; got {args.nus}")
    if any(not 0.0 < share <= 1.0 for share in args.shares):
        parser.error(f"--shares: every value must lie in (0, 1]; got {args.shares}")
    grid = tuple(sorted(args.nus, reverse=True))  # the order of ERLPBoostCV's nus_ (the path's order)
    warnings.simplefilter("ignore", ConvergenceWarning)
    warnings.filterwarnings("ignore", message=".*soft margin.*")
    rows = [(learner, eps) for learner in args.learners for eps in args.eps]
    caption = "mean 5-fold CV accuracy of ERLPBoost (canonical eta) per weak learner, eps and nu"
    emit = Report(args.out, provenance(__file__, argv), "", caption, "")

    def triple(k: int) -> str:
        learner, eps = rows[k // len(grid)]
        return f"{learner} eps={eps:g} nu={grid[k % len(grid)]:g}"

    nus = " ".join(f"{nu:>6g}" for nu in grid)
    table: dict[str, np.ndarray] = {}  # data set -> (learner, eps) rows x nus
    per_fold: dict[str, np.ndarray] = {}  # data set -> rows x folds x nus
    data: dict[str, tuple] = {}
    for name in args.datasets:
        X, y, note = load(name, args.a9a_size)
        data[name] = (X, y)
        emit(f"== {name}: {X.shape[0]} x {X.shape[1]}{note} ==")
        emit(f"{'learner':>8} {'eps':>6} {nus} {'seconds':>8}")
        scores = np.empty((len(rows), len(grid)))
        for i, (learner, eps) in enumerate(rows):
            start = time.perf_counter()
            fitted = ERLPBoostCV(nus=grid, cv=folds(), eps=eps, oracle=_oracle(learner)).fit(X, y)
            scores[i] = fitted.mean_scores_  # in the order of grid (decreasing, as nus_)
            per_fold.setdefault(name, np.empty((len(rows), fitted.scores_.shape[0], len(grid))))[i] = (
                fitted.scores_
            )
            seconds = time.perf_counter() - start
            emit(f"{_label(learner, eps)} " + " ".join(f"{s:6.4f}" for s in scores[i]) + f" {seconds:8.1f}")
        best = int(np.argmax(scores))  # the first of the ties
        emit(f"best: {triple(best)} ({scores.flat[best]:.4f})")
        emit()
        table[name] = scores
    # the triples within 1 point of each set's best, on every set; ranked by the worst loss
    loss = np.max([table[name].max() - table[name] for name in table], axis=0)
    order = np.argsort(loss, axis=None, kind="stable")
    emit("largest loss against the best triple of each set, over the sets (points of accuracy)")
    emit(f"{'learner':>8} {'eps':>6} {nus}")
    for i, (learner, eps) in enumerate(rows):
        emit(f"{_label(learner, eps)} " + " ".join(f"{100 * v:6.2f}" for v in loss[i]))
    emit()
    emit("with nu chosen per set (the best of the grid on the same folds: optimistic): loss per set (points)")
    emit(f"{'learner':>8} {'eps':>6} " + " ".join(f"{name:>9}" for name in table) + f" {'worst':>6}")
    for i, (learner, eps) in enumerate(rows):
        per_set = [100 * (table[name].max() - table[name][i].max()) for name in table]
        emit(f"{_label(learner, eps)} " + " ".join(f"{v:9.2f}" for v in per_set) + f" {max(per_set):6.2f}")
    nested: dict[tuple, dict[str, np.ndarray]] = {}  # (learner, eps) -> data set -> outer-fold accuracies
    if not args.no_nested:
        emit()
        emit(
            "ERLPBoostCV (nested: nu by its inner 5-fold CV over its default grid "
            f"{', '.join(f'{nu:g}' for nu in DEFAULT_NUS)} on each outer training part),"
        )
        emit("mean outer-fold accuracy per set; loss = best triple of the set - this (points)")
        emit(
            f"{'learner':>8} {'eps':>6} "
            + " ".join(f"{name:>9}" for name in table)
            + f" {'worst loss':>10} {'seconds':>8}"
        )
        for learner, eps in rows:
            start = time.perf_counter()
            nested[(learner, eps)] = {name: nested_accuracy(*data[name], learner, eps) for name in table}
            accuracy = {name: float(nested[(learner, eps)][name].mean()) for name in table}
            worst = max(100 * (table[name].max() - accuracy[name]) for name in table)
            seconds = time.perf_counter() - start
            emit(
                f"{_label(learner, eps)} "
                + " ".join(f"{accuracy[name]:9.4f}" for name in table)
                + f" {worst:10.2f} {seconds:8.1f}"
            )
    # the noise of a loss: the folds are shared, so the paired standard error of the mean difference
    emit()
    emit("each loss +- its paired standard error (std of the 5 per-fold differences / sqrt 5), points")
    emit(f"{'':>30} " + " ".join(f"{name:>14}" for name in table))

    def paired(name: str, fold_scores: np.ndarray) -> str:
        i, j = np.unravel_index(np.argmax(table[name]), table[name].shape)
        diff = 100 * (per_fold[name][i, :, j] - fold_scores)
        return f"{diff.mean():6.2f} +- {diff.std(ddof=1) / np.sqrt(diff.size):4.2f}"

    # the triple of the smallest worst-case loss
    i, j = divmod(int(order[0]), len(grid))
    emit(
        f"{triple(int(order[0])):>30} "
        + " ".join(f"{paired(name, per_fold[name][i, :, j]):>14}" for name in table)
    )
    for key, accuracy in nested.items():
        label = f"ERLPBoostCV {key[0]} eps={key[1]:g}"
        emit(f"{label:>30} " + " ".join(f"{paired(name, accuracy[name]):>14}" for name in table))
    default_loss = auto_block(emit, data, table, paired, sorted(set(args.shares) | {AUTO_NU_SHARE}))
    within = [triple(int(k)) for k in order if loss.flat[k] <= 0.01 + 1e-12]
    emit()
    emit(f"ERLPBoostClassifier()'s defaults (nu='auto'): worst-case loss {default_loss:.2f} points")
    if within:
        emit("within 1 point of the best on every set: " + ", ".join(within))
    else:
        k = int(order[0])
        emit(
            "no triple is within 1 point of the best on every set; the smallest worst-case loss: "
            f"{triple(k)} ({100 * loss.flat[k]:.2f} points)"
        )
    emit.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
