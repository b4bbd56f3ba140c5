"""The drivers by name, for the estimators and the ``dualboost boost`` command, and the subproblem
each one solves (:data:`SUBPROBLEMS`: whether a ``method`` applies is known before any data is read)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.corrective.adaboost import adaboost, adaboostv
from dualboost.boosting.corrective.drivers import corrective_binary_erlpboost, corrective_erlpboost, mlpboost
from dualboost.boosting.corrective.smoothboost import smoothboost
from dualboost.boosting.corrective.t_adaboost import t_adaboost
from dualboost.boosting.totally_corrective.drivers import binary_erlpboost, erlpboost, lpboost, softboost
from dualboost.boosting.totally_corrective.formulations import cgboost, mdboost, nmboost, qrlpboost
from dualboost.boosting.totally_corrective.tempered import tempered_erlpboost
from dualboost.problems import (
    BinaryERLPBoost,
    CGBoost,
    CorrectiveBinaryERLPBoost,
    CorrectiveERLPBoost,
    ERLPBoost,
    LPBoost,
    MDBoost,
    Model,
    NMBoost,
    QRLPBoost,
    SoftBoost,
    TemperedERLPBoost,
)
from dualboost.solvers import AUTO, accepts

__all__ = ["ALGORITHMS", "SUBPROBLEMS", "boost", "method_reason"]

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


#: the model each driver's ``method`` solves (a factory over an edge matrix, at any valid parameters:
#: whether a method applies depends on the model family, not on the data) and the side it solves;
#: the corrective drivers' exact step (``method`` given) solves the corrective subproblem
SUBPROBLEMS: dict[str, tuple[Callable[[np.ndarray], Model], str]] = {
    "lpboost": (lambda U: LPBoost(U, nu=1.0), "primal"),
    "softboost": (lambda U: SoftBoost(U, nu=1.0, gamma_hat=0.5, eps=0.1), "dual"),
    "erlpboost": (lambda U: ERLPBoost(U, nu=1.0, eta=1.0), "dual"),
    "binary_erlpboost": (lambda U: BinaryERLPBoost(U, nu=1.0, eta=1.0), "dual"),
    "corrective_erlpboost": (lambda U: CorrectiveERLPBoost(U, [1.0], nu=1.0, eta=1.0), "dual"),
    "corrective_binary_erlpboost": (lambda U: CorrectiveBinaryERLPBoost(U, [1.0], nu=1.0, eta=1.0), "dual"),
    "tempered_erlpboost": (lambda U: TemperedERLPBoost(U, nu=1.0, eta=1.0), "dual"),
    "mdboost": (lambda U: MDBoost(U), "dual"),
    "cgboost": (lambda U: CGBoost(U), "dual"),
    "nmboost": (lambda U: NMBoost(U), "dual"),
    "qrlpboost": (lambda U: QRLPBoost(U), "dual"),
}
#: the edge matrix of the instances that a method is checked on
_TINY_U = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [-1.0, -1.0]])


def method_reason(algorithm: str, method: str | None) -> str | None:
    """None where ``method`` solves the subproblem of the driver ``algorithm`` (:data:`SUBPROBLEMS`;
    None and ``"auto"`` always do, as does any method of a driver without one), else the solver
    registry's reason why not (:func:`dualboost.solvers.accepts`), which says what applies instead.

    Parameters
    ----------
    algorithm : str
        The driver's name.
    method : str or None
        The solve method asked for.

    Returns
    -------
    str or None
        None when the method applies, else why not.
    """
    if method is None or method.lower() == AUTO or algorithm not in SUBPROBLEMS:
        return None
    make, side = SUBPROBLEMS[algorithm]
    return accepts(make(_TINY_U), method.lower(), side)


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
