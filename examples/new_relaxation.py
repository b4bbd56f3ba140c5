"""Prototype a new relaxation on german.numer: an l2-ball cap on d, entropy and a class-balanced prior.

The walk-through of docs/new-relaxation.md: write the regulariser f from the conjugate library, let
``Relaxation`` derive its dual ([SS] Def. 6, Thm 3 / Thm 7, Lemma 8), verify the derivation with
three independent checks (both sides solved, maps, Fenchel-Young residuals), then boost with it
([SS] Fig. 1 / Eq. 13) and compare with the soft margin. About 20 s.

Run: python examples/new_relaxation.py
The data file german.numer is looked for in $DUALBOOST_DATA, then in ../shared/data beside the
repository, then in the cache (downloaded from the LIBSVM site when a network is there).
"""

import math
import os
from pathlib import Path

import numpy as np

from dualboost import conjugates as cj
from dualboost.boosting import corrective_relaxation_boost, totally_corrective_relaxation_boost
from dualboost.datasets import load_dataset
from dualboost.problems import Relaxation

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"  # ../shared/data beside the repository
if not os.environ.get("DUALBOOST_DATA") and SHARED.is_dir():
    os.environ["DUALBOOST_DATA"] = str(SHARED)

# 1. Data and hypotheses: the thesis's split of german.numer (600 training, 200 validation and 200 test
#    examples, 24 features, labels +-1); the validation part is not used. The hypotheses are decision
#    stumps h(x) = +1 if x_j > t else -1 with t at the deciles of feature j on the training set, without
#    the constant and the repeated ones; A[n, j] = y_n h_j(x_n) is in [-1, 1].
(X, y), _, (X_test, y_test) = load_dataset("german", seed=0)
deciles = np.quantile(X, np.linspace(0.1, 0.9, 9), axis=0)


def stumps(Z):
    return np.hstack([np.where(Z > t, 1.0, -1.0) for t in deciles])


H = stumps(X)
_, keep = np.unique(H, axis=1, return_index=True)  # the distinct stumps (in np.unique's order)
keep = keep[np.abs(H[:, keep].sum(axis=0)) < len(y)]  # that are not constant on the training set
H_train, H_test = H[:, keep], stumps(X_test)[:, keep]
A = y[:, None] * H_train
N, n = A.shape
print(f"german.numer: N = {N} training examples, n = {n} stumps, {len(y_test)} test examples")

# 2. The new regulariser: d must stay in an l2 ball (no example gets too much weight, but softly,
#    unlike the l_inf cap of the soft margin), plus a relative entropy towards a class-balanced prior
#    d0 (each class gets half of the prior mass). Any ConvexFunction of dualboost.conjugates works.
d0 = np.where(y > 0, 0.5 / np.sum(y > 0), 0.5 / np.sum(y < 0))
radius = 1.2 / math.sqrt(N)  # the uniform d has ||d||_2 = 1/sqrt(N)
f = cj.NormBall(p=2, radius=radius) + 0.02 * cj.RelativeEntropy(d0)
rel = Relaxation(A, f)  # primal: min_{d in simplex} max_j |(A^T d)_j| + f(d)

# 3. What dualboost derived: Thm 7's conditions on f, the dual form and f~ = f + I_S.
print("\nTheorem 7 conditions on f:")
print("  " + str(rel.conditions).replace("\n", "\n  "))
print(f"dual form: {rel.dual_form}  (f~ = {rel.regularizer!r})")

# 4. Verify the derivation: both sides with Clarabel and ECOS, certified gaps, the maps d_from_w and
#    w_from_d, and the Fenchel-Young residuals of every conjugate pair at each solution.
report = rel.verify(methods=("clarabel", "ecos"), name="l2-ball + entropy, class-balanced prior")
print()
print(report)


# 5. Boost with it. beta = eps / (2 log N) smooths the relaxation ([SS] Eq. 8); the totally corrective
#    booster (Eq. 13) re-solves the smoothed dual over the stumps chosen so far; it stops when the
#    Lemma 11 gap is <= eps. The soft margin (cap d <= 1/nu, nu = 0.575 N: about the same optimum rho)
#    also runs the corrective booster of Fig. 1, whose d-step is the O(N log N) entropic projection
#    of Fig. 2.
def errors(w):
    return np.mean(A @ w <= 0), np.mean(np.sign(H_test @ w) != y_test)


eps = 0.1
soft_margin = Relaxation(A, cj.NormBall(p=np.inf, radius=1 / (0.575 * N)))  # d <= 1/nu, nu = 0.575 N
print(f"\nboosting with eps = {eps} (Thm 9: at most {math.ceil(32 * math.log(N) / eps**2)} rounds, "
      "relaxed margin >= rho - eps)")
runs = [
    ("l2-ball + entropy", "totally corrective", rel, totally_corrective_relaxation_boost),
    ("soft margin", "corrective", soft_margin, corrective_relaxation_boost),
    ("soft margin", "totally corrective", soft_margin, totally_corrective_relaxation_boost),
]
for name, kind, model, booster in runs:
    result = booster(model, eps)
    rho = model.solve(method="ecos", side="dual").dual_value  # the optimum of the relaxation
    train_error, test_error = errors(result.w)
    print(
        f"  {name:17s} {kind:18s} {result.iterations:3d} rounds, final gap {result.history[-1]['gap']:.4f}, "
        f"{np.count_nonzero(result.w):2d} stumps, relaxed margin {model.dual_objective(result.w):+.4f} "
        f"(rho {rho:+.4f}), train error {train_error:.3f}, test error {test_error:.3f}"
    )
