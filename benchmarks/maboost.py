"""The MABoost family of [NP] against AdaBoost and MadaBoost on german, diabetes and a9a.

[NP] reports no experiments (docs/math.md#maboost); this benchmark measures what its theorems speak of. For
every data set (the thesis's train/test split, ``dualboost.datasets.load_dataset``) and every
algorithm, T rounds of decision stumps (the same :class:`~dualboost.oracles.DecisionStumps` oracle for
all of ours; scikit-learn's ``AdaBoostClassifier`` with depth-1 trees as the outside peer):

* ``train``: the training error of ``sign(sum_t eta_t h_t)`` after T rounds (margin 0 counts as an
  error), against ``bound``, the theorem's guarantee for the run's own edges ((9) for the entropy,
  (8) for the quadratic, (16) for SparseBoost, the MadaBoost bound of Thm 5; for smooth MABoost the
  bound holds while the error is >= 1/k);
* ``test``: the test error; ``d>0``: the fraction of training examples with positive weight in the
  last distribution (SparseBoost's sparsity); ``max Nd``: the largest weight times N (the smoothness
  k of smooth MABoost caps it); ``s``: seconds (same process, same oracle).

Run: ``python benchmarks/maboost.py [--rounds 100] [--full] [--data DIR]``; ``--full`` runs 1,000
rounds. Writes ``benchmarks/results/maboost.txt``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from dualboost.boosting import adaboost
from dualboost.boosting.core.progress import ProgressLine
from dualboost.boosting.maboost import maboost, madaboost, sparseboost
from dualboost.datasets import load_dataset
from dualboost.oracles import DecisionStumps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance, use_data  # noqa: E402

DATASETS = ("german", "diabetes", "a9a")
#: smooth MABoost's k (cap d <= k/N): target training error 1/k
SMOOTH_K = 4.0


def _variants(n: int):
    """(name, driver call) for each of ours; each takes (oracle, rounds, callback)."""
    return [
        ("MABoost entropy (=AdaBoost, eta=gamma)", lambda o, T, cb: maboost(o, max_iter=T, callback=cb)),
        ("LAMABoost entropy", lambda o, T, cb: maboost(o, update="lazy", max_iter=T, callback=cb)),
        ("MABoost quadratic", lambda o, T, cb: maboost(o, regulariser="euclidean", max_iter=T, callback=cb)),
        (
            "LAMABoost quadratic",
            lambda o, T, cb: maboost(o, regulariser="euclidean", update="lazy", max_iter=T, callback=cb),
        ),
        (
            f"smooth MABoost entropy k={SMOOTH_K:g}",
            lambda o, T, cb: maboost(o, nu=n / SMOOTH_K, max_iter=T, callback=cb),
        ),
        ("SparseBoost alpha=1/2", lambda o, T, cb: sparseboost(o, alpha=0.5, max_iter=T, callback=cb)),
        ("SparseBoost alpha=1", lambda o, T, cb: sparseboost(o, alpha=1.0, max_iter=T, callback=cb)),
        ("MadaBoost variant (Alg. 3)", lambda o, T, cb: madaboost(o, max_iter=T, callback=cb)),
        ("AdaBoost (dualboost)", lambda o, T, cb: adaboost(o, max_iter=T, callback=cb)),
    ]


def _error(f: np.ndarray, y: np.ndarray) -> float:
    """Fraction of examples with ``y f <= 0`` (ties are errors, as in the bounds)."""
    return float(np.mean(y * f <= 0))


def run_dataset(name: str, rounds: int) -> list[tuple]:
    split = load_dataset(name, download=False)
    X, y = split.train
    X_test, y_test = split.test
    oracle = DecisionStumps().fit(X, y)
    labels, test_labels = oracle.y_, np.where(y_test == oracle.classes_[1], 1.0, -1.0)
    n = X.shape[0]
    rows = []
    for label, driver in _variants(n):
        progress = ProgressLine(sys.stderr.isatty())
        start = time.perf_counter()
        result = driver(oracle, rounds, progress)
        seconds = time.perf_counter() - start
        progress.close()
        train = _error(result.decision_function(X), labels)
        test = _error(result.decision_function(X_test), test_labels)
        bound = float(result.bound[-1]) if hasattr(result, "bound") and result.bound.size else float("nan")
        rows.append(
            (
                name,
                label,
                result.n_iter,
                train,
                bound,
                test,
                np.mean(result.d > 0),
                n * result.d.max(),
                seconds,
            )
        )
    start = time.perf_counter()
    peer = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=rounds, random_state=0)
    peer.fit(X, y)
    seconds = time.perf_counter() - start
    rows.append(
        (
            name,
            "AdaBoostClassifier (sklearn, stumps)",
            len(peer.estimators_),
            float(np.mean(peer.predict(X) != y)),
            float("nan"),
            float(np.mean(peer.predict(X_test) != y_test)),
            float("nan"),
            float("nan"),
            seconds,
        )
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, data=True)
    parser.add_argument("--rounds", type=int, default=100, help="boosting rounds T (default 100)")
    parser.add_argument("--full", action="store_true", help="1,000 rounds")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    args = parser.parse_args(argv)
    rounds = 1000 if args.full else args.rounds
    use_data(args.data)
    emit = Report(
        RESULTS / "maboost.txt",
        provenance(__file__, argv),
        f"MABoost family vs AdaBoost / MadaBoost, T = {rounds} rounds of decision stumps "
        "(train/test split of dualboost.datasets.load_dataset)",
        "train/test: error with ties counted; bound: the theorem's bound on the train error for the run's "
        "edges; d>0: fraction of examples with positive weight; max Nd: largest weight x N",
        "",
    )
    header = f"{'data':<9}{'algorithm':<40}{'T':>5}{'train':>8}{'bound':>8}{'test':>8}{'d>0':>7}"
    header += f"{'max Nd':>8}{'s':>8}"
    emit(header, "-" * len(header))
    for name in args.datasets:
        for row in run_dataset(name, rounds):
            data, label, T, train, bound, test, support, max_nd, seconds = row
            line = (
                f"{data:<9}{label:<40}{T:>5}{train:>8.4f}{bound:>8.4f}{test:>8.4f}{support:>7.3f}"
                f"{max_nd:>8.2f}{seconds:>8.2f}"
            )
            emit(line)
        emit()
    emit.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
