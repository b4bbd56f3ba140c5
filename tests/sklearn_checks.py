"""What scikit-learn's estimator checks may not expect of dualboost's estimators, with the reason."""

from __future__ import annotations


def repeated_rows_checks(estimator) -> dict[str, str]:
    """scikit-learn's checks that integer sample weights equal repeated rows: not an identity of
    these models in general (the capping nu is a fraction of the rows, which repeating changes; a cap
    binds per example, not per unit of weight; LP optima are not unique). Where the math makes it an
    identity, tests/test_estimators_issue17.py checks it against fits on the repeated rows.
    (scikit-learn >= 1.7 passes on its own small data; 1.6.0's data shows the difference.)"""
    reason = "integer weights equal repeated rows only where the model merges copies (see docstring)"
    return {f"check_sample_weight_equivalence_on_{kind}_data": reason for kind in ("dense", "sparse")}


def online_repeated_rows_checks(estimator) -> dict[str, str]:
    """The same checks for the online classifiers, whose ``fit`` learns the rows in order: an update of
    integer weight k is one step k times as long, not k steps, and scikit-learn shuffles the weighted
    rows while the repeated ones stay in order. What holds online (fit = partial_fit with the weights,
    weight 0 = the row skipped) is tested in tests/test_online_estimators.py."""
    reason = "online updates depend on the order of the rows; an importance weight k is one step, not k"
    return {f"check_sample_weight_equivalence_on_{kind}_data": reason for kind in ("dense", "sparse")}
