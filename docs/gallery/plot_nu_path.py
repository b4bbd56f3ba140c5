"""
The nu path and its cross-validation curve
==========================================

The capping ``nu`` (docs/math.md#capping-nu) is the number of examples the soft margin averages over:
``d <= 1/nu``. :func:`dualboost.estimators.path` fits ERLPBoost along a grid of nu, each fit
warm-started from the previous one, and :class:`dualboost.ERLPBoostCV` chooses nu by
cross-validated accuracy along that path and refits at the chosen value. The first figure shows
how the training margins respond to nu, the second the cross-validation curve.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from dualboost import ERLPBoostCV
from dualboost.estimators import path

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
nus = [0.5, 0.3, 0.2, 0.1, 0.05, 0.02]

nu_path = path(X_train, y_train, nus, eps=0.02)
labels = np.where(y_train == np.max(y_train), 1.0, -1.0)
fig, ax = plt.subplots(figsize=(7, 4))
for point in nu_path:
    margins = np.sort(labels * point.decision_function(X_train))
    label = f"nu = {point.nu:g} N ({point.result.n_iter} rounds)"
    ax.plot(np.arange(1, len(margins) + 1), margins, label=label)
ax.set_xscale("log")
ax.set_xlabel("rank of the margin (smallest first)")
ax.set_ylabel("margin y f(x)")
ax.set_title(f"The training margins along the nu path ({nu_path.time:.1f} s, warm-started)")
ax.legend(fontsize=8)
fig.tight_layout()

cv = ERLPBoostCV(nus=nus, cv=3, eps=0.02).fit(X_train, y_train)
scores = np.asarray(cv.scores_)
fig, ax = plt.subplots(figsize=(7, 4))
ax.errorbar(
    cv.nus_, scores.mean(axis=0), yerr=scores.std(axis=0), marker="o", capsize=3, label="3-fold CV accuracy"
)
ax.axvline(cv.best_nu_, color="grey", ls="--", label=f"chosen nu = {cv.best_nu_:g} N")
ax.set_xscale("log")
ax.set_xticks(nus, [f"{nu:g}" for nu in nus])
ax.set_xlabel("nu / N")
ax.set_ylabel("accuracy")
ax.set_title("ERLPBoostCV on breast cancer")
ax.legend()
fig.tight_layout()
print(f"chosen nu = {cv.best_nu_:g} N, CV accuracy {cv.best_score_:.3f}, "
      f"held-out accuracy {cv.score(X_test, y_test):.3f}")
