"""
A new relaxation: its primal and its dual
=========================================

The scheme of Shalev-Shwartz and Singer ([SS] Def. 6, Thm 3; docs/new-relaxation.md) needs one
convex function f of the distribution d. Here f is an l2-ball cap on d plus a relative entropy
towards a class-balanced prior d0: :class:`dualboost.problems.Relaxation` derives the dual from the
conjugate library, ``verify`` checks it (both sides solved, the maps between them, the
Fenchel-Young residuals), and the totally corrective booster of [SS] Eq. 13 runs on it. Every
round records the primal value ``P(d_t)`` and the dual value ``D(w_t)``: the dual rises to the
optimum from below, the primal falls to it from above, and the booster stops when the gap of
[SS] Lemma 11 is at most ``eps``.
"""

import math

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer

from dualboost import conjugates as cj
from dualboost.boosting import totally_corrective_relaxation_boost
from dualboost.problems import Relaxation

X, y01 = load_breast_cancer(return_X_y=True)
X, y01 = X[::2], y01[::2]  # every other example (285): the verification solves both sides with Clarabel
y = np.where(y01 == 1, 1.0, -1.0)
# hypotheses: stumps at the quartiles of each feature, A[n, j] = y_n h_j(x_n) in [-1, 1]
H = np.hstack([np.where(X > t, 1.0, -1.0) for t in np.quantile(X, [0.25, 0.5, 0.75], axis=0)])
A = y[:, None] * H
N = len(y)

d0 = np.where(y > 0, 0.5 / np.sum(y > 0), 0.5 / np.sum(y < 0))  # each class half of the prior mass
f = cj.NormBall(p=2, radius=1.5 / math.sqrt(N)) + 0.02 * cj.RelativeEntropy(d0)
rel = Relaxation(A, f)
print(rel.verify(methods=("clarabel",), name="l2 ball + entropy"))
optimum = rel.solve(method="clarabel", side="dual").dual_value

eps = 0.02
result = totally_corrective_relaxation_boost(rel, eps)
rounds = [row["iteration"] for row in result.history]
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(rounds, [row["primal"] for row in result.history], label="primal P(d_t)")
ax.plot(rounds, [row["dual"] for row in result.history], label="dual D(w_t)")
ax.axhline(optimum, color="grey", ls="--", label=f"optimum (Clarabel) {optimum:.4f}")
ax.set_xlabel("round t")
ax.set_ylabel("value")
ax.set_title(f"[SS] Eq. 13 on the new relaxation: {result.iterations} rounds, eps = {eps}")
ax.legend()
fig.tight_layout()
print(f"{result.iterations} rounds, final gap {result.history[-1]['gap']:.4f}, "
      f"{np.count_nonzero(result.weights)} stumps")
