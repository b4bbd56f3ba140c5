"""Boost decision stumps on german credit with the MABoost family (docs/maboost.md).

Fits MABoost with the entropy (AdaBoost with step gamma), its lazy form LAMABoost, MABoost with
(1/2)||d||^2, smooth MABoost (capped distribution), SparseBoost and the MadaBoost variant on the
thesis's split of german.numer, and prints for each the training error against the theorem's bound,
the test error and what its distribution d looks like (largest weight x N, examples with d > 0).
Then it shows the d/w correspondence on one fit: the distribution d is the gradient of a conjugate
at minus the margins of the hypothesis weights. About 5 s.

Run: python examples/maboost_german.py
The data file german.numer is looked for in $DUALBOOST_DATA, then in ../shared/data beside the
repository, then in the cache (downloaded from the LIBSVM site when a network is there).
"""

import os
from pathlib import Path

import numpy as np

from dualboost.datasets import load_dataset
from dualboost.estimators.maboost import MABoostClassifier, MadaBoostClassifier, SparseBoostClassifier

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"  # ../shared/data beside the repository
if not os.environ.get("DUALBOOST_DATA") and SHARED.is_dir():
    os.environ["DUALBOOST_DATA"] = str(SHARED)

# 1. The thesis's split of german.numer: 600 train, 200 validation, 200 test.
(X, y), _, (X_test, y_test) = load_dataset("german", seed=0)
print(f"german: {X.shape[0]} training and {X_test.shape[0]} test examples\n")

# 2. Six members of the family, 200 rounds of decision stumps each.
T = 200
boosters = {
    "MABoost, entropy (active)": MABoostClassifier(max_iter=T),
    "LAMABoost, entropy (lazy)": MABoostClassifier(update="lazy", max_iter=T),
    "MABoost, (1/2)||d||^2": MABoostClassifier(regulariser="euclidean", max_iter=T),
    "smooth MABoost, k = 4": MABoostClassifier(projection="capped", nu=0.25, max_iter=T),
    "SparseBoost, alpha = 1/2": SparseBoostClassifier(alpha=0.5, max_iter=T),
    "MadaBoost variant": MadaBoostClassifier(max_iter=T),
}
print(f"{'booster':<28}{'train':>7}{'bound':>7}{'test':>7}{'max N d':>9}{'d > 0':>7}")
for name, clf in boosters.items():
    clf.fit(X, y)
    train = np.mean(clf.predict(X) != y)
    test = np.mean(clf.predict(X_test) != y_test)
    d = clf.d_
    print(
        f"{name:<28}{train:>7.3f}{clf.bound_[-1]:>7.3f}{test:>7.3f}{len(d) * d.max():>9.2f}"
        f"{np.count_nonzero(d):>7d}"
    )

# 3. The d/w correspondence (docs/math.md#lamaboost): the w-domain is the hypothesis weights eta,
#    whose margins are m = U eta; the d-domain distribution is grad F*(-m). For the entropy on the
#    simplex that is the softmax of -m (AdaBoost's weights), for smooth MABoost the capped softmax.
clf = boosters["MABoost, entropy (active)"]
result = clf.result_
m = result.columns.astype(float) @ (result.weights * result.eta_sum)  # margins of sum eta_t h_t
softmax = np.exp(-(m - m.min()))
softmax /= softmax.sum()
print(f"\nentropy MABoost: max |d - softmax(-m)| = {np.abs(clf.d_ - softmax).max():.1e}")
print(f"history row {len(clf.history_)}: {clf.history_[-1]}")
