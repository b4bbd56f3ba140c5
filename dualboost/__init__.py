"""dualboost: primal (d-domain) and dual (w-domain) convex models of boosting.

See DESIGN.md for the notation: U is the N x t edge matrix, d a distribution over examples,
w weights over hypotheses, nu in [1, N] the capping, eta > 0 the entropy regularisation.
"""

__version__ = "0.1.0"
