"""What scikit-learn's estimator checks may not expect of dualboost's estimators, with the reason.

Every expected failure is strict (``xfail_strict = true`` in pyproject.toml's pytest options): a check
declared here that passes fails the run, so that none passes silently. The declarations hold on both
scikit-learn versions CI runs, the lowest pin (1.6.0) and the newest (1.9.1 when measured): each check
listed fails on both, and each check not listed passes on both.
"""

from __future__ import annotations

from dualboost.estimators import (
    AdaBoostVClassifier,
    MaxEdgeAdaBoostClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
)
from dualboost.estimators.maboost import MABoostClassifier, MadaBoostClassifier

#: the classifiers whose fits on scikit-learn's checks' data equal the fits on the repeated rows
#: (measured on scikit-learn 1.6.0 and 1.9.1): the AdaBoost-type ones, MadaBoost, SoftBoost, SmoothBoost
#: and MABoost on the simplex (its capped projection does not: below)
REPEATED_ROWS_PASS = (
    AdaBoostVClassifier,
    MaxEdgeAdaBoostClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
    MadaBoostClassifier,
)


def _repeated_rows_pass(estimator) -> bool:
    # the classes themselves: subclasses (TAdaBoostClassifier) are declared on their own
    if type(estimator) is MABoostClassifier:
        return estimator.projection == "simplex"
    return type(estimator) in REPEATED_ROWS_PASS


def repeated_rows_checks(estimator) -> dict[str, str]:
    """scikit-learn's checks that integer sample weights equal repeated rows: not an identity of
    these models in general (the capping nu is a fraction of the rows, which repeating changes; a cap
    binds per example, not per unit of weight; LP optima are not unique). Where the math makes it an
    identity, tests/estimators/test_classifier_methods.py checks it against fits on the repeated rows.
    The classifiers of :data:`REPEATED_ROWS_PASS` pass the checks on their data and are not listed."""
    if _repeated_rows_pass(estimator):
        return {}
    reason = "integer weights equal repeated rows only where the model merges copies (see docstring)"
    return {f"check_sample_weight_equivalence_on_{kind}_data": reason for kind in ("dense", "sparse")}


def online_repeated_rows_checks(estimator) -> dict[str, str]:
    """The same checks for the online classifiers, whose ``fit`` learns the rows in order: an update of
    integer weight k is one step k times as long, not k steps, and scikit-learn shuffles the weighted
    rows while the repeated ones stay in order. What holds online (fit = partial_fit with the weights,
    weight 0 = the row skipped) is tested in tests/estimators/test_online.py."""
    reason = "online updates depend on the order of the rows; an importance weight k is one step, not k"
    return {f"check_sample_weight_equivalence_on_{kind}_data": reason for kind in ("dense", "sparse")}
