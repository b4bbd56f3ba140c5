"""Primal (d-domain) and dual (w-domain) models of the boosting algorithms (docs/architecture.md#layers).

Each model offers ``primal_problem()``, ``dual_problem()``, ``primal_objective(d)``,
``dual_objective(w)``, ``d_from_w(w)``, ``w_from_d(d)`` (with ``kkt_from_d`` for all multipliers)
and ``solve(method=..., side=...)`` returning a certified :class:`~dualboost.solvers.Solution`.
"""

from dualboost.conjugates.simplex import Theorem7Conditions, theorem7_conditions
from dualboost.problems.base import ColumnIndependent, CvxpyModel, KKTMultipliers, Model
from dualboost.problems.binary_erlpboost import BinaryERLPBoost
from dualboost.problems.cgboost import CGBoost
from dualboost.problems.corrective import CorrectiveBinaryERLPBoost, CorrectiveERLPBoost
from dualboost.problems.erlpboost import ERLPBoost, canonical_eta, erlpboost_eta
from dualboost.problems.lpboost import LPBoost, min_max_edge
from dualboost.problems.max_edge import MaxEdgeModel, MaxEdgeWeights
from dualboost.problems.mdboost import MDBoost
from dualboost.problems.nmboost import NMBoost
from dualboost.problems.qrlpboost import QRLPBoost
from dualboost.problems.relaxation import Relaxation
from dualboost.problems.softboost import SoftBoost
from dualboost.problems.tempered_erlpboost import TemperedERLPBoost

__all__ = [
    "Model",
    "MaxEdgeModel",
    "MaxEdgeWeights",
    "ColumnIndependent",
    "CvxpyModel",
    "KKTMultipliers",
    "LPBoost",
    "SoftBoost",
    "ERLPBoost",
    "BinaryERLPBoost",
    "CorrectiveERLPBoost",
    "CorrectiveBinaryERLPBoost",
    "TemperedERLPBoost",
    "MDBoost",
    "CGBoost",
    "NMBoost",
    "QRLPBoost",
    "erlpboost_eta",
    "canonical_eta",
    "min_max_edge",
    "Relaxation",
    "Theorem7Conditions",
    "theorem7_conditions",
]
