"""Former location of the online estimators, kept so that existing imports keep working: they live in
:mod:`dualboost.estimators.online` (``from dualboost import OnlineBBMClassifier`` also works)."""

from dualboost.estimators.online import AdaBoostOLClassifier, OnlineBBMClassifier

__all__ = ["OnlineBBMClassifier", "AdaBoostOLClassifier"]
