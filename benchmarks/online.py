"""Online boosting on a9a against Vowpal Wabbit's ``--boosting`` ([BKL] Sec. 5, Table 3).

The stream is a9a train + valid (39,073 examples, the thesis's split, in file order), the held-out
set a9a test (9,769). Every learner makes one online pass over the stream and is then scored on
the test set (0-1 loss); ``pv`` is the progressive-validation 0-1 loss on the stream (each example
predicted before it is learned), ``pv post`` the same on the part of the stream after the tuning
prefix (29,073 examples no tuning decision has seen). Rows:

* VW's base learner alone (``vw --binary``: VW's default learner, squared loss with adaptive,
  normalized, importance-invariant updates), and ``vw --boosting N --alg BBM | logistic |
  adaptive`` (VW's ``--gamma g`` is our gamma = 2g; ``logistic`` is AdaBoost.OL with importance
  weights, ``adaptive`` the Hedge variant of Alg. 2);
* our weak learner alone (one :class:`~dualboost.oracles.online.OnlineLinear`, every example at
  weight 1) and :class:`OnlineBBMClassifier`, :class:`AdaBoostOLClassifier` (importance weights)
  and AdaBoost.OL.S (``weighting="sampling"``) on N copies of it. ``--learner vw`` (default):
  ``OnlineLinear(loss="modified_huber", adaptive=True, normalized=True, invariant=True)``, the
  same kind of learner as VW's default ([BKL] used "VW's default base learning algorithm as
  our weak learner"); ``--learner adagrad``: ``OnlineLinear()`` (logistic loss, plain AdaGrad).

Tuning ([BKL]'s protocol, Sec. 5: "We tuned the learning rate, the number of weak learners, and
the edge parameter gamma using progressive validation 0-1 loss on the training set"): every row,
ours **and** VW's, picks its parameters from a grid of the same size by its progressive loss on the
first ``--tune-prefix`` examples of the stream (default 10,000; ties go to the earlier grid point),
then runs the whole stream with them; the test set is never used for a choice. Grids: 4 learning
rates (ours ``OnlineLinear(learning_rate)``, VW ``-l``: the same 4 values for the ``vw`` learner,
which is on VW's scale; 4 values of its own for ``adagrad``), N in ``--tune-n`` (default 5, 10,
20, 40) for the boosters, and gamma in {0.05, 0.1, 0.2} (VW ``--gamma`` gamma/2) for Online BBM.
The first table tunes N; then one table per fixed N in ``--n-learners`` (default 10, 30: the
"same N" comparison, rate and gamma tuned).

Statistics: ``vs base`` is the booster's test-set record against its own weak learner alone:
net = (examples only the booster gets right) - (examples only the base gets right), and the exact
two-sided McNemar p-value of those two counts (``scipy.stats.binomtest``). A difference of a few
test examples is not evidence either way. The diagnostics give, for the N-tuned boosters, the
weighted edges gamma_i of the weak learners on the streams the boosters gave them (Theorem 2 and 4
need gamma_i > 0), their test errors, AdaBoost.OL's Hedge weight on expert 1, and the test loss of
two batch models on the same split (logistic regression, histogram gradient boosting) as the
headroom any online method has on a9a.

Examples/second: VW is timed in-process reading its text file (parsing included, in VW's own
parser thread); ours is timed on the stream already in memory (``partial_fit``). Wall-clock, best
of ``--repeats``; the machine is shared, so the ratios are noisy (the load average is printed).
[BKL]'s Table 3 a9a row is printed beside (their own 80/20 split: compare the ordering, not the
digits). Targets: each booster improves on its own (tuned) weak learner alone; test loss
within 0.003 of VW's corresponding run (ours BBM - VW BBM, ours OL importance - VW logistic, ours
OL sampling - VW adaptive); throughput >= 1/5 of VW's (same N).

Speed (the first table): examples/s and weak-learner updates/s (examples/s times N: every
example is offered to the N learners) of our compiled loop beside VW's, for N in ``--speed-n``
(default 5, 10, 20, 40), Online BBM against ``--alg BBM`` and AdaBoost.OL (importance weights)
against ``--alg logistic``, on a9a and on ``sparse``, a synthetic stream with
``SPARSE_FEATURES`` (200,000) binary features (:func:`sparse_stream`: 40 non-zeros per example drawn
from a skewed distribution, so that most features are rare as in text, labels from a sparse linear
model with noise). Fixed parameters (the ``vw`` learner at rate 0.25, gamma 0.2, VW ``-l 0.25
--gamma 0.1``). Each pair (ours, VW) runs interleaved ``--speed-repeats`` times (default 5), and the
table gives the medians, so a busy second core slows both sides alike. ``python ex/s`` and ``python
test`` are today's Python loop on the same stream and seed (one run): the compiled loop makes the
same predictions, so its test loss must be within 0.002 of it (the target), as is checked.
VW hashes the sparse set's 200,000 feature names into its 2^18 default table.

``--orders K`` reruns the N-tuned rows with the same parameters on K random orders of the stream
(mean and sd of the test loss, the mean net count against the base learner, and how many orders
each booster wins): the part of a difference that depends on the order of the stream rather than
on the test sample.

Run: ``python benchmarks/online.py [--learner vw adagrad] [--n-learners 10 30] [--tune-n 5 10 20 40]
[--repeats 2] [--tune-prefix 10000] [--orders K] [--no-tune] [--full] [--speed-n 5 10 20 40]
[--speed-repeats 5] [--speed-only]`` (``--full``: both learners, best of 3 timings, 5 orders;
``--speed-only``: the speed table alone).
Output: ``benchmarks/results/online.txt`` (``--output``). Without ``vowpalwabbit`` installed
(``pip install vowpalwabbit``) the VW rows are skipped with a message and our rows still run.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.stats import binomtest

from dualboost.boosting.online.drivers import OnlineBooster
from dualboost.datasets import load_dataset
from dualboost.estimators.online import AdaBoostOLClassifier, OnlineBBMClassifier
from dualboost.oracles.online import OnlineLinear

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance, use_data  # noqa: E402

#: [BKL] Table 3, a9a row (test 0-1 loss)
SEED_A9A = {"VW baseline": 0.1509, "Online BBM": 0.1495, "AdaBoost.OL": 0.1497, "AdaBoost.OL.S": 0.1497}
#: VW's learning rates (-l; default 0.5) and Online BBM's gamma (VW: gamma/2)
VW_RATES = (0.125, 0.25, 0.5, 1.0)
#: our weak learners: options of OnlineLinear and the 4 learning rates of the grid ('vw' is on VW's
#: -l scale: at the same rate it makes the same predictions as VW's base learner but for a handful)
LEARNERS = {
    "vw": ({"loss": "modified_huber", "adaptive": True, "normalized": True, "invariant": True}, VW_RATES),
    "adagrad": ({}, (0.1, 0.25, 0.5, 1.0)),
}
GAMMAS = (0.05, 0.1, 0.2)
TUNE_N = (5, 10, 20, 40)
#: the speed table: the synthetic sparse set's features, its examples (train, test), non-zeros per example
SPARSE_FEATURES, SPARSE_ROWS, SPARSE_NNZ = 200_000, (40_000, 10_000), 40
#: the speed table's fixed parameters: our 'vw' learner's and VW's rate, Online BBM's gamma
SPEED_RATE, SPEED_GAMMA = 0.25, 0.2


def write_vw(path: Path, X: sp.csr_matrix, y: np.ndarray) -> None:
    """VW text format: ``label | j:x_j ...`` (feature names are the column indices)."""
    X = X.tocsr()
    with open(path, "w", encoding="ascii") as handle:
        for r in range(X.shape[0]):
            a, b = X.indptr[r], X.indptr[r + 1]
            feats = " ".join(f"{j}:{v:.17g}" for j, v in zip(X.indices[a:b], X.data[a:b], strict=True))
            handle.write(f"{int(y[r])} | {feats}\n")


def vw_progressive(options: str, stream: Path) -> float:
    """VW's progressive-validation 0-1 loss of one pass over ``stream``."""
    from vowpalwabbit import Workspace

    ws = Workspace(f"-d {stream} --binary --quiet {options}")
    ws.run_parser()
    loss = ws.get_sum_loss() / ws.get_weighted_examples()
    ws.finish()
    return loss


def run_vw(options: str, files: dict, repeats: int, n: int, prefix: int) -> dict:
    """Train (timed, best of ``repeats``) on the stream; one more pass writes the progressive
    predictions (for ``pv post``); then test with ``-t`` and read the test predictions."""
    from vowpalwabbit import Workspace

    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        ws = Workspace(f"-d {files['stream']} --binary --quiet -f {files['model']} {options}")
        ws.run_parser()  # learns while parsing
        progressive = ws.get_sum_loss() / ws.get_weighted_examples()
        ws.finish()
        best = min(best, time.perf_counter() - start)
    ws = Workspace(f"-d {files['stream']} --binary --quiet -p {files['pred']} {options}")
    ws.run_parser()
    ws.finish()
    pv_pred = np.loadtxt(files["pred"])
    tester = Workspace(f"-d {files['test']} -t -i {files['model']} --binary --quiet -p {files['pred']}")
    tester.run_parser()
    loss = tester.get_sum_loss() / tester.get_weighted_examples()
    tester.finish()
    y = files["y"]
    return {
        "pv": progressive,
        "post": float(np.mean(pv_pred[prefix:] != y[prefix:])),
        "test": loss,
        "pred": np.loadtxt(files["pred"]),
        "rate": n / best,
    }


def run_ours(make, stream, test, repeats: int, prefix: int) -> dict:
    (X, y), (Xt, yt) = stream, test
    best, clf, post = np.inf, None, np.nan
    for _ in range(repeats):
        clf = make()
        start = time.perf_counter()
        clf.partial_fit(X[:prefix], y[:prefix], classes=[-1.0, 1.0])
        before = clf.booster_.mistakes
        clf.partial_fit(X[prefix:], y[prefix:])
        best = min(best, time.perf_counter() - start)
        post = (clf.booster_.mistakes - before) / max(X.shape[0] - prefix, 1)
    pred = clf.predict(Xt)
    return {
        "pv": clf.progressive_loss_,
        "post": post,
        "test": float(np.mean(pred != yt)),
        "pred": pred,
        "rate": X.shape[0] / best,
        "model": clf,
    }


def vw_test_predictions(options: str, stream: Path, files: dict) -> np.ndarray:
    """Train VW on ``stream`` (one pass) and return its test-set predictions."""
    from vowpalwabbit import Workspace

    ws = Workspace(f"-d {stream} --binary --quiet -f {files['model']} {options}")
    ws.run_parser()
    ws.finish()
    tester = Workspace(f"-d {files['test']} -t -i {files['model']} --binary --quiet -p {files['pred']}")
    tester.run_parser()
    tester.finish()
    return np.loadtxt(files["pred"])


def ours_progressive(make, X, y) -> float:
    clf = make()
    clf.partial_fit(X, y, classes=[-1.0, 1.0])
    return clf.progressive_loss_


def pick(grid: list, loss) -> tuple[object, float]:
    """The grid point of smallest progressive loss (the first on ties) and that loss."""
    losses = [loss(point) for point in grid]
    best = int(np.argmin(losses))
    return grid[best], losses[best]


def mcnemar(pred: np.ndarray, base: np.ndarray, y: np.ndarray) -> tuple[int, int, float]:
    """(only this right, only the base right, exact two-sided McNemar p-value)."""
    right, base_right = pred == y, base == y
    wins, losses = int(np.sum(right & ~base_right)), int(np.sum(~right & base_right))
    p = binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
    return wins, losses, float(p)


def profile_inner_loop(X, y, n_learners: int, learner: OnlineLinear) -> str:
    """cProfile of Online BBM's per-example loop on the first 5,000 examples (top functions)."""
    clf = OnlineBBMClassifier(n_learners=n_learners, learner=learner, random_state=0)
    profiler = cProfile.Profile()
    profiler.runcall(clf.partial_fit, X[:5000], y[:5000], classes=[-1.0, 1.0])
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(8)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    return "\n".join(lines[start:])


def sparse_stream(seed: int = 0) -> tuple[tuple[sp.csr_matrix, np.ndarray], tuple[sp.csr_matrix, np.ndarray]]:
    """The speed table's sparse set: ``SPARSE_ROWS`` examples of ``SPARSE_FEATURES`` binary features,
    ``SPARSE_NNZ`` draws per example of the feature index floor(p u^3), u uniform (feature j drawn with
    probability ~ j^(-2/3): a few frequent features, most of them rare), duplicates merged; labels
    sign(x.w* + noise) for w* ~ N(0, 1) on every feature and noise of sd 0.5 sqrt(nnz)."""
    rng = np.random.default_rng(seed)
    n, p, k = sum(SPARSE_ROWS), SPARSE_FEATURES, SPARSE_NNZ
    cols = np.minimum((p * rng.random((n, k)) ** 3).astype(np.int64), p - 1)
    X = sp.csr_matrix((np.ones(n * k), cols.ravel(), np.arange(0, n * k + 1, k)), shape=(n, p))
    X.sum_duplicates()
    X.data[:] = 1.0
    score = X @ rng.normal(size=p) + rng.normal(scale=0.5 * np.sqrt(k), size=n)
    y = np.where(score > 0, 1.0, -1.0)
    m = SPARSE_ROWS[0]
    return (X[:m], y[:m]), (X[m:], y[m:])


def speed_table(sets: dict, tmp: Path, have_vw: bool, Ns: list[int], repeats: int, say) -> list[tuple]:
    """Examples/s of our compiled loop beside VW's, each pair run interleaved ``repeats`` times
    (medians), and our test loss beside today's Python loop's (one run); returns the verdicts."""
    Workspace = None
    if have_vw:
        from vowpalwabbit import Workspace

    options = LEARNERS["vw"][0]
    say(
        f"speed: {', '.join(sets)}; ours = learner 'vw' (rate {SPEED_RATE}), VW -l "
        f"{SPEED_RATE}; BBM gamma {SPEED_GAMMA} (VW --gamma {SPEED_GAMMA / 2}); medians of {repeats} "
        "interleaved runs (ours, VW); upd/s = ex/s x N; python = today's Python loop, one run"
    )
    head = (
        f"{'data':<8}{'algorithm':<26}{'N':>3}{'ours ex/s':>11}{'VW ex/s':>10}{'ratio':>7}{'ours upd/s':>12}"
        f"{'VW upd/s':>11}{'python ex/s':>12}{'test':>8}{'python':>8}{'VW':>8}"
    )
    for name, ((X, _), (Xt, _)) in sets.items():
        used = np.unique(X.indices).size
        say(
            f"  {name}: {X.shape[0]:,} stream / {Xt.shape[0]:,} test examples, {X.shape[1]:,} features "
            f"({used:,} of them non-zero in the stream), {X.nnz / X.shape[0]:.1f} non-zeros per example"
        )
    say(head)
    say("-" * len(head))
    verdicts = []
    for name, ((X, y), (Xt, yt)) in sets.items():
        stream, test = tmp / f"speed-{name}.vw", tmp / f"speed-{name}-test.vw"
        if have_vw:
            write_vw(stream, X, y)
            write_vw(test, Xt, yt)
        algorithms = (("bbm", "Online BBM", "BBM"), ("ol", "AdaBoost.OL (importance)", "logistic"))
        for key, label, vw_alg in algorithms:
            for N in Ns:
                gamma = SPEED_GAMMA if key == "bbm" else None
                make = our_maker(key, options, SPEED_RATE, N, gamma)
                vw_opts = f"--boosting {N} --alg {vw_alg} -l {SPEED_RATE}" + (
                    f" --gamma {SPEED_GAMMA / 2}" if key == "bbm" else ""
                )
                ours, theirs, clf = [], [], None
                for _ in range(repeats):
                    clf = make()
                    start = time.perf_counter()
                    clf.partial_fit(X, y, classes=[-1.0, 1.0])
                    ours.append(time.perf_counter() - start)
                    if have_vw:
                        start = time.perf_counter()
                        ws = Workspace(f"-d {stream} --binary --quiet -f {tmp / 'speed.model'} {vw_opts}")
                        ws.run_parser()
                        ws.finish()
                        theirs.append(time.perf_counter() - start)
                test_loss = float(np.mean(clf.predict(Xt) != yt))
                OnlineBooster.compiled = False
                try:
                    reference = make()
                    start = time.perf_counter()
                    reference.partial_fit(X, y, classes=[-1.0, 1.0])
                    python_time = time.perf_counter() - start
                finally:
                    OnlineBooster.compiled = True
                python_loss = float(np.mean(reference.predict(Xt) != yt))
                rate = X.shape[0] / float(np.median(ours))
                vw_rate, vw_loss = np.nan, np.nan
                if have_vw:
                    vw_rate = X.shape[0] / float(np.median(theirs))
                    tester = Workspace(f"-d {test} -t -i {tmp / 'speed.model'} --binary --quiet")
                    tester.run_parser()
                    vw_loss = tester.get_sum_loss() / tester.get_weighted_examples()
                    tester.finish()
                    verdicts.append((f"speed: {name} {key} N = {N} ex/s >= VW's", rate >= vw_rate))
                same = abs(test_loss - python_loss) <= 0.002
                verdicts.append((f"speed: {name} {key} N = {N} test loss within 0.002 of the Python's", same))
                python_rate = X.shape[0] / python_time
                say(
                    f"{name:<8}{label:<26}{N:>3}{rate:>11,.0f}{vw_rate:>10,.0f}{rate / vw_rate:>7.2f}"
                    f"{rate * N:>12,.0f}{vw_rate * N:>11,.0f}{python_rate:>12,.0f}{test_loss:>8.4f}"
                    f"{python_loss:>8.4f}{vw_loss:>8.4f}"
                )
    return verdicts


def our_maker(key: str, options: dict, rate: float, N: int, gamma: float | None):
    """A factory of our estimator for a row key."""
    learner = OnlineLinear(learning_rate=rate, **options)
    if key == "base":
        return lambda: OnlineBBMClassifier(n_learners=1, learner=learner)
    if key == "bbm":
        return lambda: OnlineBBMClassifier(n_learners=N, gamma=gamma, learner=learner, random_state=0)
    weighting = "importance" if key == "ol" else "sampling"
    return lambda: AdaBoostOLClassifier(n_learners=N, learner=learner, weighting=weighting, random_state=0)


def vw_options(key: str, rate: float, N: int, gamma: float | None) -> str:
    """VW's options for a row key (``--gamma`` is half our gamma)."""
    boost = {
        "vw": "",
        "vw_bbm": f"--boosting {N} --alg BBM --gamma {gamma / 2 if gamma else 0.1}",
        "vw_ol": f"--boosting {N} --alg logistic",
        "vw_ada": f"--boosting {N} --alg adaptive",
    }[key]
    return f"{boost} -l {rate}"


ROWS = (
    # key, label, seed column, uses gamma
    ("vw", "VW base learner alone", "VW baseline", False),
    ("vw_bbm", "VW --boosting --alg BBM", "Online BBM", True),
    ("vw_ol", "VW --boosting --alg logistic (OL.W)", "AdaBoost.OL", False),
    ("vw_ada", "VW --boosting --alg adaptive", "AdaBoost.OL.S", False),
    ("base", "ours: OnlineLinear alone", "", False),
    ("bbm", "ours: OnlineBBMClassifier", "Online BBM", True),
    ("ol", "ours: AdaBoostOLClassifier (importance)", "AdaBoost.OL", False),
    ("ols", "ours: AdaBoostOLClassifier (sampling)", "AdaBoost.OL.S", False),
)
#: each row's own weak learner alone, and the VW run it is compared with
BASE_OF = {"vw_bbm": "vw", "vw_ol": "vw", "vw_ada": "vw", "bbm": "base", "ol": "base", "ols": "base"}
PEER_OF = {"bbm": "vw_bbm", "ol": "vw_ol", "ols": "vw_ada"}
HEADER = (
    f"{'learner':<40}{'N':>4}{'rate':>7}{'gamma':>6}{'pv pre':>8}{'pv':>8}{'pv post':>8}{'test':>8}"
    f"{'ex/s':>10}{'seed T3':>8}  vs base: net (+/-), McNemar p"
)


def diagnostics(tuned: dict[str, dict], Xt, yt, say) -> None:
    """Why the N-tuned boosters do (not) beat their weak learner: edges, weak learners' test errors,
    ties of the vote, AdaBoost.OL's Hedge weights."""
    for key in ("bbm", "ol", "ols"):
        clf = tuned[key]["model"]
        H = clf.booster_.learners.predict_matrix(Xt)
        errors = np.mean(H != yt[:, None], axis=0)
        say(f"  {key}: N = {H.shape[1]}")
        say(f"    weighted edges gamma_i on its stream: {np.array2string(clf.edges_[:10], precision=3)}")
        say(f"    test error of each weak learner:      {np.array2string(errors[:10], precision=3)}")
        if key == "bbm":
            vote = H.sum(axis=1)
            ties = float(np.mean(vote == 0))
            up = float(np.mean(np.where(vote >= 0, 1.0, -1.0) != yt))
            say(
                f"    tied votes on test: {ties:.4f} of the examples (ties go to -1); test loss with ties to "
                f"+1 (the seed's sign(0) = +1): {up:.4f}"
            )
        else:
            first = np.where(H[:, 0] > 0, 1.0, -1.0)
            differ = int(np.sum(clf.decision_function(Xt) * first <= 0))
            say(
                f"    Hedge weight of expert 1: {clf.hedge_weights_[0]:.3f}; alpha: "
                f"{np.array2string(clf.alpha_[:6], precision=2)}; test predictions that differ from "
                f"weak learner 1 alone: {differ}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(
        __doc__,
        RESULTS / "online.txt",
        out_flag="--output",
        out_help="results file (default {default})",
        data=True,
    )
    parser.add_argument(
        "--learner",
        choices=sorted(LEARNERS),
        nargs="+",
        default=None,
        help="our weak learner(s) (default vw)",
    )
    parser.add_argument("--n-learners", type=int, nargs="*", default=None, help="fixed N (default: 10 30)")
    parser.add_argument("--tune-n", type=int, nargs="*", default=None, help="N grid (default 5 10 20 40)")
    parser.add_argument("--repeats", type=int, default=None, help="timing repeats, best kept (default 2)")
    parser.add_argument("--tune-prefix", type=int, default=10000, help="examples used for tuning")
    parser.add_argument("--no-tune", action="store_true", help="no tuning: rate 0.5, gamma 0.2, first N")
    parser.add_argument("--full", action="store_true", help="both learners, best of 3 timings, 5 orders")
    parser.add_argument(
        "--orders", type=int, default=None, help="rerun the N-tuned rows on K shuffled streams (default 0)"
    )
    parser.add_argument(
        "--speed-n", type=int, nargs="*", default=None, help="N of the speed table (default 5 10 20 40)"
    )
    parser.add_argument(
        "--speed-repeats", type=int, default=5, help="interleaved runs per speed row (median)"
    )
    parser.add_argument("--speed-only", action="store_true", help="the speed table alone")
    args = parser.parse_args(argv)
    repeats = args.repeats or (3 if args.full else 2)
    learners = args.learner or (["vw", "adagrad"] if args.full else ["vw"])
    n_orders = args.orders if args.orders is not None else (5 if args.full else 0)
    sizes = [10, 30] if args.n_learners is None else args.n_learners
    tune_n = list(TUNE_N) if args.tune_n is None else args.tune_n
    use_data(args.data)
    split = load_dataset("a9a", sparse=True, download=False)
    X = sp.vstack([split.train[0], split.valid[0]], format="csr")
    y = np.concatenate([split.train[1], split.valid[1]])
    Xt, yt = split.test
    n, prefix = X.shape[0], min(args.tune_prefix, X.shape[0])
    started = time.perf_counter()
    say = Report(args.output, provenance(__file__, argv))
    say(
        f"a9a: stream = train + valid ({n} examples, {X.shape[1]} features, {X.nnz / n:.1f} non-zeros per "
        f"example), test = {Xt.shape[0]} held out; one online pass; timings best of {repeats} (wall clock)"
    )
    if args.speed_only:
        pass
    elif args.no_tune:
        say("no tuning: learning rate 0.5 (ours and VW's default), gamma 0.2 (VW --gamma 0.1)")
    else:
        say(
            f"tuning by progressive validation on the first {prefix} examples of the stream, grids of the "
            f"same size for ours and VW: 4 rates (VW -l {VW_RATES}, ours below); BBM also gamma {GAMMAS} "
            f"(VW --gamma = gamma/2); the first table also N in {tuple(tune_n)}"
        )
    try:
        import vowpalwabbit

        have_vw = True
        say(f"peer: vowpalwabbit {vowpalwabbit.__version__} (in-process, reading its text file)")
    except ImportError:
        have_vw = False
        say("peer: vowpalwabbit is NOT installed (pip install vowpalwabbit): the VW rows are skipped")

    vw_cache: dict[tuple, dict] = {}  # VW's rows do not depend on our learner: run them once
    summary: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = {
            "stream": tmp / "stream.vw",
            "test": tmp / "test.vw",
            "model": tmp / "m.vw",
            "pred": tmp / "pred.txt",
            "y": y,
        }
        speed_n = list(TUNE_N) if args.speed_n is None else args.speed_n
        if speed_n:
            say()
            sets = {"a9a": ((X, y), (Xt, yt)), "sparse": sparse_stream()}
            verdicts = speed_table(sets, tmp, have_vw, speed_n, args.speed_repeats, say)
            failed = [text for text, ok in verdicts if not ok]
            not_met = f" (not met: {'; '.join(failed)})" if failed else ""
            summary.append(f"speed: all targets met: {not failed}{not_met}")
        if args.speed_only:
            learners = []
        if have_vw and learners:
            write_vw(files["stream"], X, y)
            write_vw(files["test"], Xt, yt)
            write_vw(tmp / "prefix.vw", X[:prefix], y[:prefix])

        def table(title: str, Ns: list[int], options: dict, our_rates: tuple) -> dict[str, dict]:
            say()
            say(title)
            say(HEADER)
            say("-" * len(HEADER))
            rows: dict[str, dict] = {}
            for key, label, seed, uses_gamma in ROWS:
                is_vw = key.startswith("vw")
                if is_vw and not have_vw:
                    continue
                alone = key in ("vw", "base")
                rates = VW_RATES if is_vw else our_rates
                grid = [
                    (r, N, g)
                    for r in rates
                    for N in ((1,) if alone else Ns)
                    for g in (GAMMAS if uses_gamma else (None,))
                ]
                if args.no_tune:
                    grid = [(0.5, N, 0.2 if uses_gamma else None) for N in ((1,) if alone else Ns[:1])]
                cached = (key, tuple(grid))
                if is_vw and cached in vw_cache:
                    result = vw_cache[cached]
                elif is_vw:

                    def loss(point, key=key):
                        return vw_progressive(vw_options(key, *point), tmp / "prefix.vw")

                    (rate, N, gamma), pre = pick(grid, loss)
                    result = run_vw(vw_options(key, rate, N, gamma), files, repeats, n, prefix)
                    result.update(rate_param=rate, gamma=gamma, pre=pre, N=N)
                    vw_cache[cached] = result
                else:

                    def loss(point, key=key):
                        return ours_progressive(our_maker(key, options, *point), X[:prefix], y[:prefix])

                    (rate, N, gamma), pre = pick(grid, loss)
                    result = run_ours(
                        our_maker(key, options, rate, N, gamma), (X, y), (Xt, yt), repeats, prefix
                    )
                    result.update(rate_param=rate, gamma=gamma, pre=pre, N=N)
                rows[key] = result
                ref = f"{SEED_A9A[seed]:.4f}" if seed else ""
                shown_gamma = f"{result['gamma']:.2f}" if result["gamma"] else ""
                versus = ""
                if key in BASE_OF and BASE_OF[key] in rows:
                    wins, losses, p = mcnemar(result["pred"], rows[BASE_OF[key]]["pred"], yt)
                    result["mcnemar"] = (wins, losses, p)
                    versus = f"  {wins - losses:+4d} ({wins}/{losses}), p = {p:.2f}"
                say(
                    f"{label:<40}{result['N']:>4}{result['rate_param']:>7.3f}{shown_gamma:>6}{result['pre']:>8.4f}"
                    f"{result['pv']:>8.4f}{result['post']:>8.4f}{result['test']:>8.4f}{result['rate']:>10,.0f}"
                    f"{ref:>8}{versus}"
                )
            return rows

        def targets(rows: dict[str, dict], same_n: bool, title: str) -> list[tuple[str, bool]]:
            verdicts = []
            say()
            say(f"targets, {title}:")
            for key in ("bbm", "ol", "ols"):
                base = rows["base"]["test"]
                better = rows[key]["test"] < base
                wins, losses, p = rows[key]["mcnemar"]
                text = (
                    f"  {key:<4} improves on its weak learner alone ({rows[key]['test']:.4f} < {base:.4f}): "
                    f"{better} (net {wins - losses:+d} of {wins + losses} disagreements, McNemar "
                    f"p = {p:.2f}: {'significant' if p < 0.05 else 'not significant'} at 0.05)"
                )
                verdicts.append((f"{title}: {key} improves on its weak learner", better))
                peer = PEER_OF[key]
                if have_vw:
                    gap = rows[key]["test"] - rows[peer]["test"]
                    verdicts.append((f"{title}: {key} within 0.003 of VW {peer[3:]}", gap <= 0.003))
                    text += f"; test loss - VW {peer[3:]}: {gap:+.4f} (<= 0.003: {gap <= 0.003})"
                    if same_n:
                        ratio = rows[key]["rate"] / rows[peer]["rate"]
                        verdicts.append((f"{title}: {key} speed >= 0.2 x VW", ratio >= 0.2))
                        text += f"; speed {ratio:.2f} x VW (>= 0.2: {ratio >= 0.2})"
                say(text)
            if have_vw:
                same = int(np.sum(rows["base"]["pred"] != rows["vw"]["pred"]))
                say(
                    f"  (our weak learner alone (rate {rows['base']['rate_param']}) and VW's base learner "
                    f"alone (-l {rows['vw']['rate_param']}) differ on {same} test predictions)"
                )
                vw_base = rows["vw"]["test"]
                for key in ("vw_bbm", "vw_ol", "vw_ada"):
                    wins, losses, p = rows[key]["mcnemar"]
                    say(
                        f"  (VW {key[3:]:<4} vs VW's base learner alone: {rows[key]['test']:.4f} vs "
                        f"{vw_base:.4f}, net {wins - losses:+d} of {wins + losses}, McNemar p = {p:.2f})"
                    )
            return verdicts

        order_files: dict[int, Path] = {}

        def shuffled(tuned: dict[str, dict], options: dict, K: int) -> None:
            """The N-tuned rows (same parameters) on K random orders of the stream: the learners'
            dependence on the order, the part of the test-loss differences that is not the test set's."""
            say()
            say(
                f"the N-tuned rows on {K} random orders of the stream (numpy seeds 0..{K - 1}; same "
                "parameters): test loss mean (sd), and vs base: mean net, orders won/lost"
            )
            losses: dict[str, list] = {key: [] for key, *_ in ROWS if key in tuned}
            nets: dict[str, list] = {key: [] for key in losses}
            for k in range(K):
                perm = np.random.default_rng(k).permutation(n)
                preds = {}
                for key in losses:
                    row = tuned[key]
                    point = (row["rate_param"], row["N"], row["gamma"])
                    if key.startswith("vw"):
                        if k not in order_files:
                            order_files[k] = tmp / f"order{k}.vw"
                            write_vw(order_files[k], X[perm], y[perm])
                        preds[key] = vw_test_predictions(vw_options(key, *point), order_files[k], files)
                    else:
                        clf = our_maker(key, options, *point)()
                        clf.partial_fit(X[perm], y[perm], classes=[-1.0, 1.0])
                        preds[key] = clf.predict(Xt)
                    losses[key].append(float(np.mean(preds[key] != yt)))
                    if key in BASE_OF:
                        wins, lost, _ = mcnemar(preds[key], preds[BASE_OF[key]], yt)
                        nets[key].append(wins - lost)
            for key, label, *_ in ROWS:
                if key not in losses:
                    continue
                text = f"  {label:<40}{np.mean(losses[key]):.4f} ({np.std(losses[key]):.4f})"
                if nets[key]:
                    won = sum(v > 0 for v in nets[key])
                    text += (
                        f"   net {np.mean(nets[key]):+6.1f}, won {won}, lost {sum(v < 0 for v in nets[key])}"
                    )
                say(text)

        for name in learners:
            options, our_rates = LEARNERS[name]
            say()
            say(
                f"=== ours: weak learner '{name}' = OnlineLinear("
                f"{', '.join(f'{k}={v!r}' for k, v in options.items())}), rates {our_rates} ==="
            )
            verdicts: list[tuple[str, bool]] = []
            if tune_n:
                tuned = table(
                    f"N tuned by progressive validation (N in {tuple(tune_n)}):", tune_n, options, our_rates
                )
                verdicts += targets(tuned, False, "N tuned")
                say()
                say(f"diagnostics of our N-tuned boosters (learner '{name}'):")
                diagnostics(tuned, Xt, yt, say)
                if n_orders:
                    shuffled(tuned, options, n_orders)
            for N in sizes:
                rows = table(f"same N = {N} for every booster:", [N], options, our_rates)
                verdicts += targets(rows, True, f"N = {N}")
            failed = [text for text, ok in verdicts if not ok]
            summary.append(
                f"learner '{name}': all targets met: {not failed}"
                + (f" (not met: {'; '.join(failed)})" if failed else "")
            )

    if args.speed_only:
        return finish(args, started, summary, say)
    say()
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    lr = LogisticRegression(C=1.0, max_iter=2000).fit(X, y)
    hgb = HistGradientBoostingClassifier(random_state=0).fit(X.toarray(), y)
    say(
        "headroom on this split (batch models, many passes over the stream): logistic regression (C = 1) "
        f"{np.mean(lr.predict(Xt) != yt):.4f}, HistGradientBoostingClassifier "
        f"{np.mean(hgb.predict(Xt.toarray()) != yt):.4f}"
    )
    say()
    options, our_rates = LEARNERS[learners[0]]
    N0 = sizes[0] if sizes else 10
    say(
        f"profile of the inner loop (Online BBM, learner '{learners[0]}', N = {N0}, first 5,000 examples, "
        "cProfile):"
    )
    say(profile_inner_loop(X, y, N0, OnlineLinear(learning_rate=our_rates[1], **options)))
    return finish(args, started, summary, say)


def finish(args: argparse.Namespace, started: float, summary: list[str], say: Report) -> int:
    """The closing lines (load, run time, verdicts) and the results file."""
    say()
    say(
        f"load average at the end {', '.join(f'{x:.2f}' for x in os.getloadavg())}; run time "
        f"{time.perf_counter() - started:.0f} s"
    )
    for text in summary:
        say(text)
    say.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
