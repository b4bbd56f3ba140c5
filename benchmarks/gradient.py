"""Generalized gradient boosting ([GB]): naive vs repeated vs residual projection, and regression
against scikit-learn's GradientBoostingRegressor, in one run.

Part 1, the setting of [GB] Fig. 3: the multiclass hinge loss (Crammer & Singer) with
multiclass decision stumps (:class:`~dualboost.oracles.regression.MulticlassStumps`, rule (3)), on
scikit-learn's bundled digits (1,797 x 64, 10 classes) and on letter-like synthetic data (16
integer features in 0..15, 26 classes, as UCI letter; ``make_classification`` with
``class_sep=2.5``). For each projection
scheme: the training objective after 10, 30, 100, ... weak learners, the number of distinct
learners used (the naive method "repeatedly cycles through the same weak learners"), train/test
accuracy and the time. Steps η_t = 1/√t for all three ([GB]'s setting for non-smooth losses).

Part 2, regression with the squared and the absolute loss on scikit-learn's diabetes data and on
Friedman #1 (``make_friedman1``): our regressors with regression stumps (rule (4)) against
``GradientBoostingRegressor(max_depth=1)`` (stumps too) at the same number of learners:
scikit-learn with learning rate 1 (shrinkage off) and 0.1 (its default); ours with the steps of
[GB]'s theorems (η = 1 for the naive method on the squared loss, Thm 3; 1/t for the others
on it, Thms 4, 6; std(y)/√t for the absolute loss, Thms 5, 7). Note that scikit-learn's absolute
loss re-fits every leaf to the median of its residuals (a line search per leaf), which
[GB]'s algorithms do not. The training objective is the same for all (mean ½(f - y)², mean
|f - y|), computed from scikit-learn's ``staged_predict``. Time ratios are against scikit-learn
in this run.

Run: ``python benchmarks/gradient.py [--full] [--output PATH]``; ``--full`` uses 1,000 learners
and the full 20,000-example letter-like set (default: 300 learners, 3,000 examples).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_diabetes, load_digits, make_classification, make_friedman1
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import train_test_split

from dualboost.boosting.core.progress import ProgressLine
from dualboost.boosting.gradient import gradient_projection
from dualboost.boosting.gradient.losses import make_loss
from dualboost.oracles.regression import MulticlassStumps, RegressionStumps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance  # noqa: E402

PROJECTIONS = ("naive", "repeated", "residual")


def letter_like(n_samples: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """26 classes, 16 features quantised to the integers 0..15 (the shape of UCI letter)."""
    X, y = make_classification(
        n_samples=n_samples,
        n_features=16,
        n_informative=12,
        n_redundant=2,
        n_classes=26,
        n_clusters_per_class=1,
        class_sep=2.5,
        random_state=seed,
    )
    edges = np.quantile(X, np.linspace(0, 1, 17)[1:-1], axis=0)
    return np.column_stack([np.searchsorted(edges[:, j], X[:, j]) for j in range(16)]).astype(float), y


def at_checkpoints(history, checkpoints: list[int], initial: float) -> list[float]:
    """The objective after the last round that used at most c weak learners, for each c."""
    used, primal = history["n_hypotheses"], history["primal"]
    out = []
    for c in checkpoints:
        done = np.flatnonzero(used <= c)
        out.append(float(primal[done[-1]]) if done.size else initial)
    return out


def fmt_row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(
        c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
    )


def multiclass_part(name, X, y, budget, checkpoints, progress, emit: Report) -> None:
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    classes, ytr_idx = np.unique(ytr, return_inverse=True)
    yte_idx = np.searchsorted(classes, yte)
    oracle = MulticlassStumps().fit(Xtr)
    header = ["method"] + [f"R@{c}" for c in checkpoints] + ["distinct", "train acc", "test acc", "time s"]
    widths = [9] + [8] * len(checkpoints) + [8, 9, 8, 7]
    emit(
        f"{name}: {Xtr.shape[0]} train / {Xte.shape[0]} test examples, {X.shape[1]} features, "
        f"{classes.size} classes; multiclass hinge, multiclass stumps, eta_t = 1/sqrt(t)",
        fmt_row(header, widths),
    )
    for projection in PROJECTIONS:
        result = gradient_projection(
            oracle,
            ytr_idx,
            "multiclass_hinge",
            projection=projection,
            n_learners=budget,
            step="sqrt",
            n_outputs=classes.size,
            callback=progress,
        )
        progress.close()
        values = at_checkpoints(result.history, checkpoints, result.initial_objective)
        train_acc = np.mean(result.F.argmax(axis=1) == ytr_idx)
        test_acc = np.mean(result.decision_function(Xte).argmax(axis=1) == yte_idx)
        cells = [projection] + [f"{v:.4f}" for v in values]
        cells += [str(result.n_distinct), f"{train_acc:.3f}", f"{test_acc:.3f}", f"{result.total_time:.1f}"]
        emit(fmt_row(cells, widths))
    emit()


def sklearn_objectives(model, X, y, loss, checkpoints) -> list[float]:
    values = [loss.objective(f, y) for f in model.staged_predict(X)]
    return [values[min(c, len(values)) - 1] for c in checkpoints]


def regression_part(name, X, y, budget, checkpoints, progress, emit: Report) -> None:
    oracle = RegressionStumps().fit(X)
    notes: list[str] = []
    header = ["method", "loss"] + [f"R@{c}" for c in checkpoints] + ["time s", "time/sklearn"]
    widths = [33, 8] + [9] * len(checkpoints) + [7, 12]
    emit(
        f"{name}: {X.shape[0]} examples, {X.shape[1]} features; stumps, training objective",
        fmt_row(header, widths),
    )
    for loss_name, sk_loss in (("squared", "squared_error"), ("absolute", "absolute_error")):
        loss = make_loss(loss_name)
        rows = []
        start = time.perf_counter()
        reference = GradientBoostingRegressor(
            loss=sk_loss, max_depth=1, learning_rate=1.0, n_estimators=budget, random_state=0
        ).fit(X, y)
        sk_time = time.perf_counter() - start
        rows.append(("sklearn GBR, lr 1", sklearn_objectives(reference, X, y, loss, checkpoints), sk_time))
        start = time.perf_counter()
        default = GradientBoostingRegressor(
            loss=sk_loss, max_depth=1, learning_rate=0.1, n_estimators=budget, random_state=0
        ).fit(X, y)
        rows.append(
            (
                "sklearn GBR, lr 0.1",
                sklearn_objectives(default, X, y, loss, checkpoints),
                time.perf_counter() - start,
            )
        )
        # steps as [GB]'s theorems set them (step="auto"): η = 1 for the naive method on the
        # squared loss (Thm 3), 1/t for the others on it (λ = 1, Thms 4, 6), and for the absolute
        # loss (|∇| <= 1, not strongly convex) η_t = F/√t with F = std(y), Thms 5, 7's η ∝ F/G
        rate = 1.0 if loss.smooth else float(np.std(y))
        runs = [(p, rate) for p in PROJECTIONS]
        if not loss.smooth:
            # the residual method steps along the projection of Δ', and ‖Δ'‖ reaches c G with
            # c = 2/γ² ([GB] Thm 7, docs/math.md#gradient-losses): Thm 7's step scales as F/(c G); a
            # tenth of the naive step is shown
            runs.append(("residual", 0.1 * rate))
        for projection, eta in runs:
            result = gradient_projection(
                oracle,
                y,
                loss,
                projection=projection,
                n_learners=budget,
                learning_rate=eta,
                callback=progress,
            )
            progress.close()
            if loss.smooth:
                label = f"{projection}, eta {'1' if projection == 'naive' else '1/t'}"
            else:
                label = f"{projection}, eta {'' if eta == rate else '0.1 '}std(y)/sqrt(t)"
            if projection == "residual" and not loss.smooth:
                ratio = result.residual_norms.max() / result.gradient_norms.max()
                notes.append(f"  {name} {label}: max ‖Δ_t‖/max ‖∇_t‖ = {ratio:.0f}")
            rows.append(
                (
                    label,
                    at_checkpoints(result.history, checkpoints, result.initial_objective),
                    result.total_time,
                )
            )
        for label, values, seconds in rows:
            cells = (
                [label, loss_name]
                + [f"{v:.5f}" for v in values]
                + [f"{seconds:.2f}", f"{seconds / sk_time:.2f}"]
            )
            emit(fmt_row(cells, widths))
    emit(
        "  (the residual method with eta_t = 1/t on the squared loss is the naive method with eta = 1:",
        "   Delta_t = t * grad_{t+1} by induction, so the two rows agree exactly)",
        "  residual norms relative to the largest gradient (absolute loss, |grad| <= 1):",
        *notes,
        "",
    )


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(
        __doc__, RESULTS / "gradient.txt", out_flag="--output", out_help="result file (default {default})"
    )
    parser.add_argument("--full", action="store_true", help="1,000 learners and 20,000 letter-like examples")
    args = parser.parse_args(argv)
    budget = 1000 if args.full else 300
    checkpoints = [c for c in (10, 30, 100, 300, 1000) if c <= budget]
    progress = ProgressLine(sys.stderr.isatty())
    emit = Report(
        args.output,
        provenance(__file__, argv),
        "Generalized gradient boosting ([GB], Grubb & Bagnell 2011): benchmarks/gradient.py"
        + (" --full" if args.full else ""),
        f"budget {budget} weak learners; R@c = training objective after c learners "
        "(Alg. 2 counts all inner learners)",
        "",
        "Part 1: multiclass hinge loss ([GB] Fig. 3 setting)",
        "",
    )
    digits = load_digits()
    multiclass_part("digits", digits.data, digits.target, budget, checkpoints, progress, emit)
    X, y = letter_like(20000 if args.full else 3000)
    multiclass_part("letter-like synthetic", X, y, budget, checkpoints, progress, emit)
    emit("Part 2: regression against scikit-learn GradientBoostingRegressor (max_depth=1)", "")
    diabetes = load_diabetes()
    regression_part("diabetes", diabetes.data, diabetes.target, budget, checkpoints, progress, emit)
    X, y = make_friedman1(n_samples=5000 if args.full else 2000, noise=1.0, random_state=0)
    regression_part("friedman1", X, y, budget, checkpoints, progress, emit)
    emit.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
