"""tKlBoost (docs/tempered.md#total-kl) against the 2009 C++ code's tKlBoost, side by side.

The C++ code (public repository rodrigob/totally_corrective_boosting, its ``test_erlpboost``
application; build it with the project's build script into a scratch folder and pass the binary
with ``--cpp``) has ``booster_type = tKlBoost`` (src/boosters/tKlBoost.cpp): its ERLPBoost (the KL
regulariser, uniform prior, L-BFGS-B) with ``nu = 1/D`` and the KL coefficient
``lambda = eps sqrt(1 + (ln N - 1)^2) / (2 ln(N D))``: the total KL of [LV11] with the prior fixed is
KL divided by that square root (:mod:`dualboost.conjugates.total_entropy`).
``dualboost.boosting.totally_corrective.tkl.tklboost`` runs the same problem (the same eta, printed
by both) with decision stumps in both directions (the C++ ``reflexive = true``) and the same stop
``delta~ <= eps/2``.

Data: the thesis splits (seed 0) of german and diabetes, train on the 60 % part, test errors on the
20 % test part; a9a: the shipped a9a.train / a9a.test. Both programs read the same LIBSVM files
(1-based, written here). D = 0.2 (the C++ configuration's value), eps = 0.01 (``--eps``, ``--D``).

Compared per set: T (hypotheses), the last ``min_q P^q(d^{q-1})`` (an upper bound on the optimum P*
of the regularised problem over all stumps) and the last lower bound ``Theta`` (the optimum over the
hypotheses so far, a lower bound on P*): both runs bracket the same P*, so their brackets must
overlap (checked: ``overlap`` is yes when ``max(Theta) <= min(P_min) + 1e-9``); the train and test
errors; the wall-clock seconds (ours: the driver run; C++: the subprocess, including its reading of
the files) and their ratio ``C++ / ours``.

    python benchmarks/tkl_cpp.py --cpp /tmp/cpp/src/applications/test_erlpboost/build/test_erlpboost

Output: ``benchmarks/results/tkl_cpp.txt`` (``--out``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import dump_svmlight_file

from dualboost.boosting.core.run import SoftMarginWarning
from dualboost.boosting.totally_corrective.tkl import tkl_parameters, tklboost
from dualboost.datasets import load_dataset
from dualboost.oracles import DecisionStumps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance  # noqa: E402

CPP_TIMEOUT = 1800.0


def cpp_run(binary: Path, train, test, D: float, eps: float, folder: Path) -> dict:
    """Run the C++ tKlBoost on the LIBSVM files of ``train`` and ``test``; parse T, the last
    objective values, the errors and the wall-clock seconds."""
    for name, (X, y) in (("train", train), ("test", test)):
        dump_svmlight_file(X, y, str(folder / f"{name}.libsvm"), zero_based=False)
    config = {
        "train_file": folder / "train.libsvm",
        "test_file": folder / "test.libsvm",
        "output_file": folder / "output.txt",
        "oracle_type": "decisionstump",
        "reflexive": "true",
        "max_iter": 20000,
        "booster_type": "tKlBoost",
        "optimizer_type": "lbfgsb",
        "eps": repr(float(eps)),
        "binary": "false",
        "D": repr(float(D)),
    }
    path = folder / "config.ini"
    path.write_text("".join(f"{key} = {value}\n" for key, value in config.items()), encoding="utf-8")
    start = time.perf_counter()
    done = subprocess.run([str(binary), str(path)], cwd=folder, capture_output=True, text=True,
                          timeout=CPP_TIMEOUT)
    seconds = time.perf_counter() - start
    out = done.stdout

    def last(pattern: str) -> float:
        found = re.findall(pattern, out, re.MULTILINE)
        return float(found[-1]) if found else float("nan")

    return {
        "T": last(r"^Finished in (\d+) iterations"),
        "eta": last(r"^eta: (\S+)"),
        "p_min": last(r"^min of Obj Values : (\S+)"),
        "theta": last(r"^min Lower Bound : (\S+)"),
        "train": last(r"^training error: (\S+)%") / 100.0,
        "test": last(r"^test error: (\S+)%") / 100.0,
        "seconds": seconds,
        "status": done.returncode,
    }


def ours(train, test, D: float, eps: float) -> dict:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SoftMarginWarning)
        result = tklboost(DecisionStumps().fit(*train), D=D, eps=eps)
    seconds = time.perf_counter() - start
    history = result.history
    duals = history["dual"][np.isfinite(history["dual"])]
    theta = float(duals[-1])
    # the stop's quantity delta~ = min_q P^q(d^{q-1}) - Theta (the practical criterion)
    p_min = float(history["stopping"][-1]) + theta

    def error(X, y) -> float:
        return float(np.mean(np.where(result.decision_function(X) >= 0, 1.0, -1.0) != y))

    return {"T": result.n_hypotheses, "eta": result.params["eta"], "p_min": p_min, "theta": theta,
            "train": error(*train), "test": error(*test), "seconds": seconds,
            "converged": result.converged}


def main(argv: list[str] | None = None) -> None:
    parser = make_parser(__doc__, RESULTS / "tkl_cpp.txt")
    parser.add_argument("--cpp", required=True, help="the C++ test_erlpboost binary")
    parser.add_argument("--datasets", nargs="+", default=["german", "diabetes", "a9a"])
    parser.add_argument("--D", type=float, default=0.2)
    parser.add_argument("--eps", type=float, default=0.01)
    args = parser.parse_args(argv)
    binary = Path(args.cpp).resolve()
    emit = Report(
        args.out,
        provenance(__file__, argv),
        f"# tKlBoost, D = {args.D} (nu = 1/D), eps = {args.eps}: dualboost (auglag) vs the 2009 C++ code",
        f"{'set':<9} {'who':<5} {'N':>6} {'eta':>9} {'T':>5} {'P_min':>10} {'Theta':>10} "
        f"{'train %':>7} {'test %':>7} {'s':>8}",
    )
    summary = []
    for name in args.datasets:
        split = load_dataset(name, seed=0, download=False)
        train, test = split.train, split.test
        n = train[0].shape[0]
        nu, _ = tkl_parameters(n, args.D, args.eps)
        mine = ours(train, test, args.D, args.eps)
        with tempfile.TemporaryDirectory(prefix="tkl_cpp_") as folder:
            theirs = cpp_run(binary, train, test, args.D, args.eps, Path(folder))
        for who, r in (("ours", mine), ("C++", theirs)):
            emit(
                f"{name:<9} {who:<5} {n:>6} {r['eta']:>9.3f} {r['T']:>5.0f} {r['p_min']:>10.6f} "
                f"{r['theta']:>10.6f} {100 * r['train']:>7.2f} {100 * r['test']:>7.2f} {r['seconds']:>8.2f}"
            )
        overlap = max(mine["theta"], theirs["theta"]) <= min(mine["p_min"], theirs["p_min"]) + 1e-9
        p_diff, theta_diff = abs(mine["p_min"] - theirs["p_min"]), abs(mine["theta"] - theirs["theta"])
        test_diff = 100 * (mine["test"] - theirs["test"])
        summary.append(
            f"{name}: brackets overlap: {'yes' if overlap else 'NO'}; |P_min diff| = {p_diff:.2e}, "
            f"|Theta diff| = {theta_diff:.2e} (eps/2 = {args.eps / 2:g}); test error diff {test_diff:+.2f} "
            f"points; time ratio C++/ours = {theirs['seconds'] / mine['seconds']:.1f}"
        )
    emit("", *summary)
    emit.write()


if __name__ == "__main__":
    main()
