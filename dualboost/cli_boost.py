"""``dualboost boost`` and ``dualboost predict``: the runs (their options: :mod:`dualboost.cli_options`).

``boost`` trains a booster on a LIBSVM file (or a named data set) and reports. :mod:`dualboost.cli`
imports this module only when one of these commands runs (it imports the drivers, the solvers and
scikit-learn, which ``--help`` does not need). The run: load TRAIN (and TEST; two classes, or K > 2
classes as in the LIBSVM site's multiclass files, boosted over the (example, wrong class) pairs,
docs/boosting.md#multiclass), make the classifier of :mod:`dualboost.estimators` that runs the
algorithm (``--algorithm adaboost``: :class:`~dualboost.estimators.MaxEdgeAdaBoostClassifier`) with
the options given, fit it with a progress line on stderr (only on a terminal), then print
a summary (iterations, train and test error, the time split into oracle and solver, hypotheses
with w > 0); ``--history`` writes the per-iteration CSV and ``--plot`` the convergence figure
([KG] Fig. 5.28); ``--checkpoint PATH`` saves the state every ``--checkpoint-every`` iterations and
``--resume`` continues a killed run from it (:mod:`dualboost.boosting.core.checkpoint`); ``--save PATH``
writes the fitted classifier as a model file (:mod:`dualboost.estimators.persistence`) that
``dualboost predict`` (:func:`run_predict`) and :func:`dualboost.estimators.persistence.load` read.

The options are checked before any data is read (an option the algorithm does not take, a
``--method`` that does not solve its subproblem, an output path of ``--save``, ``--history``,
``--plot`` or ``--checkpoint`` that cannot be written, is named twice or is an input file, a
``--plot`` format matplotlib does not write: :mod:`dualboost.cli_outputs`), the data before fitting
(one class only, a TEST file with more features than TRAIN); each is an error message on stderr and
exit status 1, as the classifiers of :mod:`dualboost.estimators` refuse the same things with a
ValueError. A second run given the ``--checkpoint`` of a running one is refused at its start (the
checkpoint's lock). After training the model is written first, then the history, then the plot; a
failure to write one (a full disk: "cannot write 'PATH': No space left on device") is one line on
stderr, the others are still written, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from dualboost._files import atomic_write, output_error
from dualboost._validation import binary_labels, check_positive
from dualboost.boosting import ALGORITHMS, BoostResult
from dualboost.boosting.algorithms import method_reason
from dualboost.boosting.core.checkpoint import check_free
from dualboost.boosting.core.history import HistoryRow
from dualboost.boosting.core.progress import ProgressLine, iteration_text
from dualboost.boosting.core.run import SoftMarginWarning
from dualboost.boosting.corrective.frank_wolfe import check_step
from dualboost.cli_options import DEFAULT_EPS, DEFAULT_NU
from dualboost.cli_outputs import check_outputs, write_output, write_text
from dualboost.datasets import DATASETS, DatasetNotFoundError, data_dirs, load_dataset, load_libsvm
from dualboost.estimators.base import BoostingClassifier
from dualboost.estimators.params import check_nu_fraction
from dualboost.solvers import METHODS

__all__ = ["run_boost", "run_predict"]

#: algorithms whose regulariser is the binary relative entropy (they need nu < 1)
_BINARY = ("binary_erlpboost", "corrective_binary_erlpboost")


def _log_iteration(row: HistoryRow) -> None:
    """``--verbose``: the row of each iteration as a line of its own on stderr."""
    print(iteration_text(row), file=sys.stderr, flush=True)


def _read_test(test: str, width: int, n_features: int | None) -> tuple:
    """(X, y) of the LIBSVM file TEST with TRAIN's ``width`` features: with ``n_features`` (then
    ``width == n_features``) as given; without, a TEST whose largest feature index is smaller is
    widened (a sparse file need not use the last features), a larger one is refused."""
    X, y = load_libsvm(test, n_features=n_features, binary=False)
    if X.shape[1] > width:
        raise ValueError(
            f"TEST {test!r} has {X.shape[1]} features (from its largest feature index), TRAIN {width}: "
            "are they of the same data? If they share their features, give the count with "
            f"--n-features {X.shape[1]}"
        )
    if X.shape[1] < width:
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
    return X, y


def _load(args: argparse.Namespace) -> tuple[str, tuple, tuple | None]:
    """The name, the training pair and the test pair (or None) the arguments point to; the labels of
    a two-class file as -1/+1 (the larger label +1, the test file's by the training file's classes),
    those of K > 2 classes as they are."""
    if Path(args.train).is_file():
        name = Path(args.train).name
        train = load_libsvm(args.train, n_features=args.n_features, binary=False)
        test = None
    else:
        try:
            split = load_dataset(args.train, seed=args.seed)
        except ValueError as exc:
            raise ValueError(f"TRAIN {args.train!r} is neither a file nor a named data set ({exc})") from None
        if args.n_features is not None:
            raise ValueError(
                f"--n-features applies to LIBSVM files; the data set {args.train!r} has its own "
                f"{split.train[0].shape[1]} features"
            )
        name, train, test = args.train, split.train, split.test
    classes = np.unique(train[1])
    if classes.size < 2:
        raise ValueError(
            f"TRAIN {args.train!r} holds one class only (all {train[1].size} labels are {classes[0]:+g}): "
            "boosting needs examples of at least two classes (the classifiers of dualboost.estimators "
            "refuse such data too)"
        )
    if args.test:
        test = _read_test(args.test, train[0].shape[1], args.n_features)
        unknown = np.setdiff1d(test[1], classes)
        if unknown.size:
            raise ValueError(
                f"TEST {args.test!r} has labels that TRAIN {args.train!r} has not: "
                f"{', '.join(f'{v:g}' for v in unknown[:5])}"
            )
    if classes.size == 2:
        train, test = _signs(train, classes), None if test is None else _signs(test, classes)
    return name, train, test


def _signs(data: tuple, classes: NDArray) -> tuple:
    """(X, y) with the labels of two ``classes`` as -1 and +1 (``classes[1]``)."""
    return data[0], np.where(data[1] == classes[1], 1.0, -1.0)


def _given_options(args: argparse.Namespace) -> dict:
    """The driver options as given on the command line (None: not given)."""
    names = ("nu", "eps", "eta", "max_iter", "max_time", "method", "criterion", "step", "tolerance")
    names += ("kappa", "gamma")
    names += ("D", "C", "lam", "tau")  # the formulations' own (mdboost, cgboost, nmboost)
    return {name: getattr(args, name) for name in names}


def _check_options(args: argparse.Namespace) -> None:
    """Refuse, before any data is read, an option the algorithm does not take, a --nu that is not a
    fraction in (0, 1] ((0, 1) for the binary algorithms), a --method that does not solve its
    subproblem, --resume without --checkpoint and a checkpoint path that cannot be written."""
    taken = inspect.signature(ALGORITHMS[args.algorithm]).parameters
    given = _given_options(args)
    unused = [name for name, value in given.items() if value is not None and name not in taken]
    if unused:
        options = ", ".join("--" + name.replace("_", "-") for name in unused)
        raise ValueError(f"{options} does not apply to {args.algorithm}")
    if args.nu is not None and args.nu != "auto":
        check_nu_fraction(args.nu, below_one=args.algorithm in _BINARY)
    if args.max_time is not None:
        check_positive(args.max_time, "--max-time")
    method = args.method.lower() if args.method is not None else None
    reason = method_reason(args.algorithm, method) if method in METHODS else None
    if reason is not None:  # (another name: the classifier's parameter check says so)
        raise ValueError(f"--method {args.method} does not apply to {args.algorithm}: {reason}")
    if "step" in taken:
        check_step(args.step, None if args.method is None else args.method.lower())
    if args.resume and not args.checkpoint:
        raise ValueError("--resume needs --checkpoint PATH (the file to resume from)")
    outputs = {"--save": args.save, "--history": args.history, "--plot": args.plot}
    outputs["--checkpoint"] = args.checkpoint
    check_outputs(outputs, {"TRAIN": args.train, "TEST": args.test, **_data_set_files()})
    if args.checkpoint:
        check_free(args.checkpoint)  # before the data is read (the run takes the lock at its start)
    if args.plot:
        _check_plot(args.plot)


def _data_set_files() -> dict[str, Path]:
    """The files of the named data sets (:data:`dualboost.datasets.DATASETS`) in the data directories,
    which no output may overwrite (TRAIN may name one of them by its data set's name)."""
    names = {name for spec in DATASETS.values() for name in (*spec.files, *(spec.presplit or ()))}
    return {f"{directory / name}": directory / name for directory in data_dirs() for name in sorted(names)}


def _check_plot(path: str) -> None:
    """``--plot``: matplotlib is installed and draws the format of the file's extension (png without
    one), so that a run does not learn it after training."""
    from dualboost.boosting.core.plot import _matplotlib

    Figure, FigureCanvasAgg = _matplotlib()  # ImportError saying how to install it
    extension = Path(path).suffix[1:].lower()
    formats = FigureCanvasAgg(Figure()).get_supported_filetypes()
    if extension and extension not in formats:
        raise ValueError(
            f"--plot {path!r}: matplotlib does not write .{extension} files; use one of "
            f"{', '.join('.' + name for name in sorted(formats))}"
        )


def _classifier(args: argparse.Namespace) -> BoostingClassifier:
    """The classifier of dualboost.estimators that runs ``args.algorithm`` (its ``_algorithm``), with
    the options given (the others at the classifier's defaults, which are the drivers'), nu as the
    fraction or ``auto`` it takes, and the oracle and checkpoint of the command line. Its parameters
    are checked here, as ``fit`` checks them, before the data is read: a wrong one is a ValueError
    that names its option."""
    from dualboost.estimators.persistence import model_classes

    (cls,) = [c for c in model_classes().values() if getattr(c, "_algorithm", None) == args.algorithm]
    taken = cls().get_params(deep=False)
    params = {name: value for name, value in _given_options(args).items() if value is not None}
    params |= {"nu": DEFAULT_NU if args.nu is None else args.nu}
    params |= {"eps": DEFAULT_EPS if args.eps is None else args.eps, "oracle": args.oracle}
    if args.checkpoint:
        params |= {"checkpoint": args.checkpoint, "resume": args.resume}
        params |= {"checkpoint_every": args.checkpoint_every}
    classifier = cls(**{name: value for name, value in params.items() if name in taken})
    try:
        classifier._validate_params()  # (scikit-learn's check of fit, here before the data is read)
    except ValueError as exc:
        named = re.match(r"The '(\w+)' parameter", str(exc))
        raise ValueError(f"--{named[1].replace('_', '-')}: {exc}" if named else str(exc)) from None
    return classifier


def _summary(name: str, args: argparse.Namespace, classifier: BoostingClassifier, train, test) -> str:
    X, y = train
    result = classifier.result_
    params = ", ".join(
        f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}" for k, v in result.params.items()
    )
    other = result.total_time - result.oracle_time - result.solver_time
    n_classes = len(classifier.classes_)
    shape, over = f"{X.shape[0]} examples, {X.shape[1]} features", ""
    if n_classes > 2:
        shape += f", {n_classes} classes"
        over = f" of the {X.shape[0] * (n_classes - 1)} (example, wrong class) pairs"
    nu = result.params.get("nu")
    lines = [
        f"{args.algorithm} on {name} ({shape}), {args.oracle} oracle",
        f"  parameters:   {params}",
        f"  stopped:      {result.stop_reason}: {result.stop_detail} "
        f"({'converged' if result.converged else 'NOT converged'})",
        f"  iterations:   {result.n_iter}",
        *(
            [f"  soft margin:  {result.soft_margin:.4g} (mean of the nu = {nu:g} smallest{over})"]
            if nu is not None
            else []
        ),
        f"  hypotheses:   {result.n_hypotheses} ({result.n_nonzero} with w > 0)",
        f"  train error:  {100 * (1 - classifier.score(X, y)):.2f}%",
    ]
    if test is not None:
        error = 1 - classifier.score(*test)
        lines.append(f"  test error:   {100 * error:.2f}% ({test[0].shape[0]} examples)")
    lines.append(
        f"  time:         {result.total_time:.3f} s (oracle {result.oracle_time:.3f} s, "
        f"solver {result.solver_time:.3f} s, other {other:.3f} s)"
    )
    return "\n".join(lines)


def run_boost(args: argparse.Namespace) -> int:
    """The ``boost`` subcommand; returns the exit status (1 on a data or parameter error).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``boost``.

    Returns
    -------
    int
        The exit status.
    """
    try:
        _check_options(args)
        name, train, test = _load(args)
        classifier = _classifier(args)
    except (ValueError, OSError, ImportError, DatasetNotFoundError) as exc:
        print(f"dualboost boost: error: {exc}", file=sys.stderr)
        return 1
    progress = ProgressLine(sys.stderr.isatty() and not args.quiet)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("ignore", ConvergenceWarning)  # the summary says "NOT converged"
            warnings.simplefilter("always", SoftMarginWarning)  # printed after the progress line
            callback = _log_iteration if args.verbose else progress
            classifier.fit(*train, callback=callback)
    except ValueError as exc:
        print(f"dualboost boost: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a checkpoint that could not be written (a full disk)
        print(f"dualboost boost: error: --checkpoint: {output_error(exc, args.checkpoint)}", file=sys.stderr)
        return 1
    finally:
        progress.close()
    # the outputs, the model first (nothing else can fail before it), each failure reported alone
    saved = None
    if args.save:
        saved = write_output("boost", "--save", args.save, lambda: classifier.save(args.save))
    for caught_warning in caught:
        kind = "warning" if issubclass(caught_warning.category, SoftMarginWarning) else "note"
        print(f"dualboost boost: {kind}: {caught_warning.message}", file=sys.stderr)
    print(_summary(name, args, classifier, train, test))
    if saved:
        print(f"  model:        {args.save} (dualboost predict {args.save} DATA)")
    reported = _write_reports(args, f"{args.algorithm} on {name}", classifier.result_)
    return 0 if saved is not False and reported else 1


def _write_reports(args: argparse.Namespace, title: str, result: BoostResult) -> bool:
    """``--history`` and then ``--plot``, each written whatever became of the other; False (said on
    stderr) if one could not be written."""
    from dualboost.boosting.core.plot import plot_history

    ok = True
    if args.history:
        text = result.history.to_csv()
        if write_text("boost", "--history", args.history, text):
            print(f"  history:      {args.history} ({len(result.history)} rows)")
        else:
            ok = False
    if args.plot:

        def plot() -> None:  # rendered into atomic_write's file (matplotlib's PNG writer ignores ENOSPC)
            import matplotlib

            extension = Path(args.plot).suffix[1:].lower() or "png"
            with atomic_write(args.plot) as handle, matplotlib.rc_context({"savefig.format": extension}):
                plot_history(result.history, handle, title=title)

        if write_output("boost", "--plot", args.plot, plot):
            print(f"  plot:         {args.plot}")
        else:
            ok = False
    return ok


def run_predict(args: argparse.Namespace) -> int:
    """The ``predict`` subcommand; returns the exit status (1 on an unreadable model or data file).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``predict``.

    Returns
    -------
    int
        The exit status.
    """
    from dualboost.estimators.persistence import load

    try:
        check_outputs({"--out": args.out}, {"MODEL": args.model, "DATA": args.data})
        model = load(args.model, trusted=args.trust, max_bytes=args.max_bytes)
        width = int(model.n_features_in_)
        X, y = load_libsvm(args.data, binary=False)
        if X.shape[1] > width:
            raise ValueError(
                f"DATA {args.data!r} has {X.shape[1]} features (from its largest feature index), the model "
                f"{width}: is it of the same data?"
            )
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
        values = model.decision_function(X) if args.decision_function else model.predict(X)
        labels = _file_labels(model, y, args.data)
    except (ValueError, OSError, ImportError) as exc:
        print(f"dualboost predict: error: {exc}", file=sys.stderr)
        return 1
    if args.decision_function:  # a value per row, or a row of K votes (K > 2 classes)
        text = "".join(" ".join(f"{v:.17g}" for v in np.atleast_1d(row)) + "\n" for row in values)
    else:
        text = "".join(f"{_label(v)}\n" for v in values)
    if args.out:
        if not write_text("predict", "--out", args.out, text):
            return 1
    else:
        sys.stdout.write(text)
    if args.score:
        predicted = model.predict(X)
        accuracy = float(np.mean(predicted == labels))
        print(f"accuracy {accuracy:.4f} on {y.size} examples of {args.data}", file=sys.stderr)
    return 0


def _file_labels(model, y: NDArray, path: str) -> NDArray:
    """The labels of a data file as the model's classes: as they are, or for a two-class model whose
    classes the file does not use (a model of labels 'a', 'b' and a file of -1/+1, or 0/1) the file's
    two labels mapped in order onto ``classes_`` (the larger one to ``classes_[1]``)."""
    if len(model.classes_) == 2 and not np.all(np.isin(y, model.classes_)):
        signs, _ = binary_labels(y, name=f"the labels of {path}")
        return model.classes_[(signs > 0).astype(int)]
    return y


def _label(value: object) -> str:
    """A label as LIBSVM writes it: +1 / -1 for the numeric labels of the files, else as it is."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return f"{int(value):+d}"
    return str(value)
