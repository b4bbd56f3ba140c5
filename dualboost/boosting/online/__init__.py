"""Online boosting of [BKL]: Online BBM and AdaBoost.OL, in :mod:`~dualboost.boosting.online.drivers`."""

from dualboost.boosting.online.drivers import (
    WEIGHTINGS,
    AdaBoostOL,
    OnlineBBM,
    OnlineBooster,
    bbm_log_pmf_table,
    bbm_potential,
    bbm_weight,
    bbm_weight_table,
    logistic_weight,
)

__all__ = [
    "WEIGHTINGS",
    "bbm_potential",
    "bbm_weight",
    "bbm_log_pmf_table",
    "bbm_weight_table",
    "logistic_weight",
    "OnlineBooster",
    "OnlineBBM",
    "AdaBoostOL",
]
