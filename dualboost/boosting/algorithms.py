"""The drivers by name, for the estimators and the ``dualboost boost`` command."""

from __future__ import annotations

from collections.abc import Callable

from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.corrective.adaboost import adaboost, adaboostv
from dualboost.boosting.corrective.drivers import corrective_binary_erlpboost, corrective_erlpboost, mlpboost
from dualboost.boosting.corrective.smoothboost import smoothboost
from dualboost.boosting.corrective.t_adaboost import t_adaboost
from dualboost.boosting.totally_corrective.drivers import binary_erlpboost, erlpboost, lpboost, softboost
from dualboost.boosting.totally_corrective.formulations import cgboost, mdboost, nmboost, qrlpboost
from dualboost.boosting.totally_corrective.tempered import tempered_erlpboost

__all__ = ["ALGORITHMS", "boost"]

#: every driver, by the name used in the CLI and in tables
ALGORITHMS: dict[str, Callable[..., BoostResult]] = {
    "lpboost": lpboost,
    "softboost": softboost,
    "erlpboost": erlpboost,
    "binary_erlpboost": binary_erlpboost,
    "corrective_erlpboost": corrective_erlpboost,
    "corrective_binary_erlpboost": corrective_binary_erlpboost,
    "adaboost": adaboost,
    "mdboost": mdboost,
    "cgboost": cgboost,
    "nmboost": nmboost,
    "qrlpboost": qrlpboost,
    "mlpboost": mlpboost,
    "adaboostv": adaboostv,
    "smoothboost": smoothboost,
    "tempered_erlpboost": tempered_erlpboost,
    "t_adaboost": t_adaboost,
}


def boost(algorithm: str, oracle, **params) -> BoostResult:
    """Run the driver named ``algorithm`` with a fitted ``oracle``.

    Parameters
    ----------
    algorithm : str
        A key of :data:`ALGORITHMS` (``"lpboost"``, ``"erlpboost"``, ...; ``dualboost boost --help``).
    oracle : Oracle
        A fitted oracle.
    **params
        The driver's keywords (:func:`~dualboost.boosting.erlpboost`, ...).

    Returns
    -------
    BoostResult
        The driver's result.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}")
    return ALGORITHMS[algorithm](oracle, **params)
