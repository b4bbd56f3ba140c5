"""Verify ERLPBoost's primal/dual equivalence by hand (the walk-through of docs/verify-erlpboost-by-hand.md).

Run: python examples/verify_erlpboost.py
"""

import numpy as np
from sklearn.datasets import load_breast_cancer

from dualboost.problems import ERLPBoost, erlpboost_eta

# 1. An edge matrix from real data: 12 decision stumps on the breast-cancer data (bundled with
#    scikit-learn). U[n, q] = y_n h_q(x_n) with labels y in {-1, +1} and stumps h in {-1, +1}.
X, labels = load_breast_cancer(return_X_y=True)
y = np.where(labels == 1, 1.0, -1.0)
features = [0, 1, 2, 3, 6, 7, 10, 13, 20, 21, 22, 27]
H = np.where(X[:, features] > np.median(X[:, features], axis=0), -1.0, 1.0)
U = y[:, None] * H
N, t = U.shape

# 2. The model: cap d_n <= 1/nu with nu = 0.1 N, and the theoretical eta for eps = 0.1.
nu = 0.1 * N
eta = erlpboost_eta(N, nu, eps=0.1)
model = ERLPBoost(U, nu=nu, eta=eta)
print(f"N = {N}, t = {t}, nu = {nu:.1f}, eta = {eta:.2f}")

# 3. Solve the primal (d-domain) and the dual (w-domain) independently, with cvxpy + Clarabel
#    at tight tolerances (its defaults, 1e-8, leave d about 1e-6 from the optimum here).
tight = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
primal = model.primal_problem()
primal.solve(solver="CLARABEL", **tight)
d = next(v.value for v in primal.variables() if v.name() == "d")
dual = model.dual_problem()
dual.solve(solver="CLARABEL", **tight)
w = next(v.value for v in dual.variables() if v.name() == "w")
print(f"solver values:      primal {primal.value:.10f}   dual {dual.value:.10f}")

# 4. Recompute both objectives ourselves. The model moves each point onto its feasible set first
#    (solvers return points that are feasible only up to ~1e-10).
d_feas, d_moved = model.repair_primal(d)
w_feas, w_moved = model.repair_dual(w)
P, D = model.primal_objective(d_feas), model.dual_objective(w_feas)
print(f"certified values:   primal {P:.10f}   dual {D:.10f}   gap {P - D:.2e}")
print(f"feasibility moves:  d {d_moved:.1e}   w {w_moved:.1e}")

# 5. Map each side to the other: d from w by the KKT map (Eq. 3.11), w from d by active sets.
print(f"||d_from_w(w) - d||_inf = {np.abs(model.d_from_w(w_feas) - d_feas).max():.2e}")
kkt = model.kkt_from_d(d_feas)
print(f"w_from_d(d): residual {kkt.residual:.1e}, dual value {model.dual_objective(kkt.w):.10f}")
print(f"psi > 0 only where d_n = 1/nu: {bool(np.all(d_feas[kkt.psi > 1e-8] >= (1 - 1e-6) / nu))}")

# 6. Complementary slackness: the w-weighted edge equals the maximum edge.
edges = U.T @ d_feas
print(f"sum_q w_q u^q.d = {w_feas @ edges:.10f}   max_q u^q.d = {edges.max():.10f}")

# 7. Weak duality on an arbitrary feasible pair: dual_objective(w) <= primal_objective(d).
rng = np.random.default_rng(1)
w_rand = rng.dirichlet(np.ones(t))
d_rand = model.d_from_w(rng.dirichlet(np.ones(t)))
print(f"weak duality: {model.dual_objective(w_rand):.6f} <= {model.primal_objective(d_rand):.6f}")

# 8. All of the above in one call, with every method and side certified the same way ("scs" works
#    too; a first-order method, it takes several seconds per side here).
for method in ("clarabel", "ecos"):
    for side in ("primal", "dual"):
        sol = model.solve(method=method, side=side)
        print(f"{method:8s} {side:6s} {sol.status:8s} gap {sol.relative_gap:.1e}")
